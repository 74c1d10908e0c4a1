"""Vision: camera sources, the recognizer's run-time, tracking, layout readers, the scene generator.

Depends on the referee (card codes, games), never on the web layer.
"""

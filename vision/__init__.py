"""Vision: camera sources, the recognizer's run-time, tracking, layout readers, the scene generator.

Depends on the referee (card codes, games), never on the web layer.
"""

import os

# onnxruntime reports to Microsoft's telemetry servers unless this is set when it loads; every
# part of the project that loads it (the recognizer, training's quantization) is in this package.
os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")

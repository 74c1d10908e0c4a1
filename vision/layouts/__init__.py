"""Layout readers: from the stable table state to each game's observations.

``road`` reads a Stigespill road; ``stigespill``, ``sten`` and ``skipbo`` turn the table
into the view each game's guard compares the referee's legal moves against.
"""

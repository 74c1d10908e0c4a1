"""Layout readers: from the stable table state to each game's observations.

``road`` reads a Stigespill road; ``stigespill``, ``sten`` and ``skipbo`` turn the table
into the view each game's guard compares the referee's legal moves against.
"""

from typing import Any


def entries(view: dict[str, Any]) -> dict[str, Any]:
    """Return a view's parts when each entry is one (a Sten suit, the Stigespill discard
    pile), lists made tuples so that parts compare and hash alike."""
    return {k: tuple(v) if isinstance(v, list) else v for k, v in view.items()}

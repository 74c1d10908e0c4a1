"""Pure rules engines: cards, Stigespill, Sten and Skip-Bo, with hints and scoring.

Nothing here imports OpenCV, Flask, torch or numpy: the referee knows no pixels or HTTP.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any

from referee.core import CHANCE, GameLog, Hint, IllegalMove, Move, Rules, RulesError

GAMES: dict[str, str] = {
    "stigespill": "referee.stigespill:Stigespill",
    "sten": "referee.sten:Sten",
    "skipbo": "referee.skipbo:SkipBo",
}


def make_rules(game: str, **config: Any) -> Rules:
    """Return the rules of ``game`` set up with ``config`` (players, variant…).

    Raises :class:`RulesError` for an unknown game or a bad set-up.
    """
    if game not in GAMES:
        raise RulesError(f"unknown game {game!r}; expected one of {', '.join(GAMES)}")
    module, cls = GAMES[game].split(":")
    rules = getattr(importlib.import_module(module), cls)
    settings = [n for n in inspect.signature(rules).parameters if n != "self"]
    unknown = [name for name in config if name not in settings]
    if unknown:  # said in the user's words, not as Python's TypeError
        raise RulesError(
            f"{game} has no {unknown[0]!r} setting; its settings: {', '.join(settings)}"
        )
    try:
        return rules(**config)
    except TypeError as e:  # a missing keyword: a set-up error, not a crash
        raise RulesError(f"bad set-up for {game}: {e}") from None


def replay(log: GameLog) -> tuple[Rules, list[Any]]:
    """Return ``(rules, states)``: every state of a logged game, the initial one first."""
    rules = make_rules(log.game, **log.config)
    states = [rules.state_from_json(log.initial)]
    for data in log.moves:
        states.append(rules.apply(states[-1], rules.move_from_json(data)))
    return rules, states


__all__ = [
    "CHANCE",
    "GAMES",
    "GameLog",
    "Hint",
    "IllegalMove",
    "Move",
    "Rules",
    "RulesError",
    "make_rules",
    "replay",
]

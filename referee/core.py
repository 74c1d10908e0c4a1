"""What every game engine shares: the rules interface, illegal moves, move logs.

A game is rules + state (open_spiel's shape). States are immutable or copied on write, so
undo is "keep the old state" and replay is "apply the log". Chance (shuffles, draws) is
explicit: when :meth:`Rules.to_move` is :data:`CHANCE`, the legal moves are the chance
outcomes (for example "the die card drawn is 5♥"). A simulator samples one with a seeded
generator; at a real table the camera or a tap says which one happened.
"""

from __future__ import annotations

import dataclasses
import random
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar

CHANCE = -1
"""The seat number that stands for chance (draws, shuffles, turned-up cards)."""


class IllegalMove(ValueError):
    """A move the rules forbid. ``str()`` is a sentence a player understands."""


class RulesError(ValueError):
    """A bad game set-up (player count, stock size, unknown variant…), explained."""


class Move:
    """Base of every game's moves: frozen dataclasses with a JSON form.

    Subclasses set ``kind`` (a short lower-case name used in JSON) and are registered
    on their rules class, so ``Rules.move_from_json`` can rebuild them.
    """

    kind: ClassVar[str] = "move"
    # Declared, not set: every subclass is a dataclass, so dataclasses.fields() takes a move.
    __dataclass_fields__: ClassVar[dict[str, dataclasses.Field[Any]]]

    def to_json(self) -> dict[str, Any]:
        """Return ``{"kind": ..., field: value...}``; cards as codes."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in dataclasses.fields(self):
            out[f.name] = _jsonable(getattr(self, f.name))
        return out


def _jsonable(value: Any) -> Any:
    if hasattr(value, "code"):
        return value.code
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    return value


@dataclass(frozen=True)
class Hint:
    """Advice for the player on turn: a move (or none), a one-line reason, and extras."""

    move: Move | None
    reason: str
    details: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        """Return the hint as JSON: its move's JSON (or null), reason and details."""
        return {
            "move": self.move.to_json() if self.move else None,
            "reason": self.reason,
            "details": self.details,
        }


class Rules(ABC):
    """One game's rules. Stateless apart from its configuration; states flow through."""

    name: ClassVar[str]
    config: dict[str, Any]
    """The set-up this instance was made with (players, variant…), as JSON."""
    players: int
    """How many people play."""
    seats: int
    """How many seats take turns (players, or tokens for a solo Stigespill player)."""
    move_types: ClassVar[tuple[type[Move], ...]] = ()
    field_counts: ClassVar[dict[str, int]] = {}
    """How many there are of the things a move names by number besides seats (Skip-Bo's piles):
    a move naming one out of range is malformed."""

    # ---- set-up and flow ---------------------------------------------------
    @abstractmethod
    def initial_state(self, rng: random.Random) -> Any:
        """Return a fresh state (shuffles and deals drawn from ``rng``)."""

    @abstractmethod
    def to_move(self, state: Any) -> int:
        """Return the seat on turn, or :data:`CHANCE`."""

    @abstractmethod
    def legal_moves(self, state: Any) -> list[Move]:
        """Return the legal moves in a deterministic order (chance outcomes when chance moves)."""

    @abstractmethod
    def check(self, state: Any, move: Move) -> None:
        """Raise :class:`IllegalMove` with a reason if ``move`` is not legal now."""

    @abstractmethod
    def apply(self, state: Any, move: Move) -> Any:
        """Return the state after ``move``; checks it first; never mutates ``state``."""

    @abstractmethod
    def is_over(self, state: Any) -> bool:
        """Return whether the game has ended."""

    @abstractmethod
    def scores(self, state: Any) -> dict[str, Any]:
        """Return the result: winner(s), ranking or points."""

    def is_legal(self, state: Any, move: Move) -> bool:
        """Return whether ``move`` is legal now (:meth:`check` raises nothing)."""
        try:
            self.check(state, move)
        except IllegalMove:
            return False
        return True

    def codes(self) -> frozenset[str]:
        """Return the codes of the cards this game is played with: by default one standard
        deck without jokers (a camera's reading of any other code is a misreading)."""
        from referee.cards import standard_deck

        return frozenset(c.code for c in standard_deck())

    def chance_move(self, state: Any, rng: random.Random) -> Move:
        """Sample one chance outcome, each physical card equally likely."""
        return rng.choice(self.legal_moves(state))

    # ---- views and JSON -----------------------------------------------------
    @abstractmethod
    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        """Return what ``seat`` may see as JSON (``None``: the public table view)."""

    @abstractmethod
    def state_to_json(self, state: Any) -> dict[str, Any]:
        """Return the whole state as JSON (every hand: not for players; see :meth:`view`)."""

    @abstractmethod
    def state_from_json(self, data: dict[str, Any]) -> Any:
        """Rebuild a state from :meth:`state_to_json`; raise :class:`RulesError` if malformed."""

    def move_from_json(self, data: dict[str, Any]) -> Move:
        """Rebuild a move from its JSON form; raise :class:`IllegalMove` if malformed."""
        from referee.cards import CardError, parse_card

        if not isinstance(data, dict) or "kind" not in data:
            raise IllegalMove(f"a move must be an object with a 'kind', not {data!r:.60}")
        by_kind = {t.kind: t for t in self.move_types}
        kind = data["kind"]
        cls = by_kind.get(kind) if isinstance(kind, str) else None  # a list is unhashable
        if cls is None:
            raise IllegalMove(
                f"unknown move {kind!r:.40} in {self.name}; expected one of {sorted(by_kind)}"
            )
        kwargs = {}
        for f in dataclasses.fields(cls):  # not __dataclass_fields__: it lists ClassVar `kind`
            name = f.name
            if name not in data:
                if (
                    f.default is not dataclasses.MISSING
                    or f.default_factory is not dataclasses.MISSING
                ):
                    continue
                raise IllegalMove(f"move {data['kind']!r} needs {name!r}")
            value = data[name]
            if "Card" in str(f.type):
                many = str(f.type).startswith("tuple")  # tuple[Card, ...]: a list of codes
                if value is None or many != isinstance(value, list):
                    raise IllegalMove(
                        f"{name} must be {'a list of card codes' if many else 'one card code'}"
                    )
                try:
                    if many:
                        value = tuple(parse_card(v) for v in value)
                    elif value is not None:
                        value = parse_card(value)
                except CardError as e:
                    raise IllegalMove(str(e)) from None
            elif f.type in ("int", "int | None") and not (value is None and f.type != "int"):
                # A whole number (JSON's true is not one), and a seat one of this table's.
                count = self.seats if name in ("seat", "owner") else self.field_counts.get(name)
                if (
                    isinstance(value, bool)
                    or not isinstance(value, int)
                    or (count is not None and not 0 <= value < count)
                ):
                    span = f" 0–{count - 1}" if count is not None else ""
                    raise IllegalMove(
                        f"{name} must be a whole number{span}, not {repr(value)[:20]}"
                    )
            elif isinstance(value, list):
                value = tuple(value)
            kwargs[name] = value
        try:
            return cls(**kwargs)
        except (TypeError, ValueError) as e:
            raise IllegalMove(f"malformed {data['kind']!r} move: {e}") from None

    # ---- advice ---------------------------------------------------------------
    def hint(self, state: Any, seat: int) -> Hint:
        """Return advice for ``seat`` (games override)."""
        return Hint(None, "no hints for this game")

    def greedy_move(self, state: Any, rng: random.Random) -> Move:
        """Return a simple one-step-greedy move (games override); defaults to random."""
        return rng.choice(self.legal_moves(state))

    def hint_move(self, state: Any, rng: random.Random) -> Move:
        """Return the move the hint engine recommends (games override)."""
        move = self.hint(state, self.to_move(state)).move
        return move if move is not None else self.greedy_move(state, rng)

    def invariant_violations(self, state: Any) -> list[str]:
        """Return broken invariants (cards created or lost…); empty when all hold."""
        return []


@dataclass
class GameLog:
    """A game as data: rules name, configuration, initial state, and the moves applied.

    Replaying the log reproduces the final state exactly.
    """

    game: str
    config: dict[str, Any]
    initial: dict[str, Any]
    moves: list[dict[str, Any]] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        """Return the log as JSON: game, config, initial state and moves."""
        return {
            "game": self.game,
            "config": self.config,
            "initial": self.initial,
            "moves": self.moves,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> GameLog:
        """Rebuild a log from :meth:`to_json`."""
        return cls(data["game"], data["config"], data["initial"], list(data["moves"]))

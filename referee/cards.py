"""Cards as values: the card codes that are Kortbord's vocabulary everywhere.

A standard card's code is rank + suit (``AS``, ``10H``, ``QD``); a joker is ``JK``;
Skip-Bo cards are ``SB1`` … ``SB12`` and the wild ``SBW``. Model class names, JSON and
CLI output all come from this module, so they cannot drift apart.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field
from functools import cache


class Suit(enum.Enum):
    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def symbol(self) -> str:
        """Return the suit's symbol: ♠, ♥, ♦ or ♣."""
        return _SUIT_SYMBOLS[self]

    @property
    def is_red(self) -> bool:
        """Return whether the suit is hearts or diamonds."""
        return self in (Suit.HEARTS, Suit.DIAMONDS)

    @property
    def twin(self) -> Suit:
        """Return the other suit of the same colour (♠↔♣, ♥↔♦)."""
        return _TWINS[self]


_SUIT_SYMBOLS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
_TWINS = {
    Suit.SPADES: Suit.CLUBS,
    Suit.CLUBS: Suit.SPADES,
    Suit.HEARTS: Suit.DIAMONDS,
    Suit.DIAMONDS: Suit.HEARTS,
}

_KIND_ORDER = {"std": 0, "joker": 1, "skipbo": 2}
RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SUITS: tuple[Suit, ...] = tuple(Suit)
FACE_RANKS = frozenset({"J", "Q", "K"})


class CardError(ValueError):
    """A card code that names no card; the message names the bad input."""


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One card: a standard card (rank + suit), a joker, or a Skip-Bo card.

    ``kind`` is ``"std"``, ``"joker"`` or ``"skipbo"``. For Skip-Bo cards ``value`` is
    1–12, or 0 for the wild ``SBW``. Cards compare, hash and sort by a precomputed key
    (suit-major for standard cards): playouts hash cards millions of times.
    """

    kind: str
    rank: str = ""
    suit: Suit | None = None
    value: int = 0
    _key: tuple = field(init=False, repr=False)
    _hash: int = field(init=False, repr=False)

    def __post_init__(self) -> None:
        key = (
            _KIND_ORDER[self.kind],
            SUITS.index(self.suit) if self.suit else 0,
            RANKS.index(self.rank) if self.rank else 0,
            self.value or 13,  # the Skip-Bo wild sorts after SB12
        )
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))

    def __eq__(self, other: object) -> bool:
        return self is other or (isinstance(other, Card) and self._key == other._key)

    def __hash__(self) -> int:
        return self._hash

    def __lt__(self, other: Card) -> bool:
        return self._key < other._key

    def __le__(self, other: Card) -> bool:
        return self._key <= other._key

    def __gt__(self, other: Card) -> bool:
        return self._key > other._key

    def __ge__(self, other: Card) -> bool:
        return self._key >= other._key

    # ---- text form -------------------------------------------------------
    @property
    def code(self) -> str:
        """Return the card code, the card's text form: ``QS``, ``10H``, ``JK``, ``SB7``, ``SBW``."""
        if self.kind == "std":
            assert self.suit is not None, "a standard card has a suit"
            return f"{self.rank}{self.suit.value}"
        if self.kind == "joker":
            return "JK"
        return "SBW" if self.value == 0 else f"SB{self.value}"

    def __str__(self) -> str:
        return self.code

    def __repr__(self) -> str:
        return f"Card({self.code})"

    @property
    def pretty(self) -> str:
        """Return a human form with the suit symbol: ``Q♥``, ``10♠``, ``Joker``, ``Skip-Bo 7``."""
        if self.kind == "std":
            assert self.suit is not None, "a standard card has a suit"
            return f"{self.rank}{self.suit.symbol}"
        if self.kind == "joker":
            return "Joker"
        return "Skip-Bo wild" if self.value == 0 else f"Skip-Bo {self.value}"

    # ---- properties used by the games -----------------------------------
    @property
    def is_joker(self) -> bool:
        """Return whether the card is a joker."""
        return self.kind == "joker"

    @property
    def is_face(self) -> bool:
        """Return whether the card is a jack, queen or king."""
        return self.kind == "std" and self.rank in FACE_RANKS

    @property
    def rank_value(self) -> int:
        """Return A=1 … K=13 for a standard card; 0 for jokers and Skip-Bo cards."""
        return RANKS.index(self.rank) + 1 if self.kind == "std" else 0

    def to_json(self) -> str:
        """Return the card's JSON form: its code."""
        return self.code

    @staticmethod
    def from_json(data: str) -> Card:
        """Return the card of a JSON code; raise :class:`CardError` if it is none."""
        return parse_card(data)


def card(code: str) -> Card:
    """Return the card for a code (forgiving; see :func:`parse_card`)."""
    return parse_card(code)


def std(rank: str, suit: Suit | str) -> Card:
    """Return a standard card from a canonical rank and a suit."""
    if rank not in RANKS:
        raise CardError(f"unknown rank {rank!r}")
    return Card("std", rank, Suit(suit) if isinstance(suit, str) else suit)


JOKER = Card("joker")


def skipbo(value: int) -> Card:
    """Return Skip-Bo card 1–12, or the wild for 0."""
    if not 0 <= value <= 12:
        raise CardError(f"Skip-Bo cards are 1–12 or wild, not {value}")
    return Card("skipbo", value=value)


SKIPBO_WILD = Card("skipbo", value=0)

# ---- parsing ---------------------------------------------------------------
# Index letters, international and Nordic: E = ess (ace), Kn/B = knekt/bonde/knægt
# (jack), D = dame (queen); K is king in every language we serve.
_RANK_ALIASES = {
    "A": "A", "E": "A", "1": "A",
    "J": "J", "KN": "J", "B": "J",
    "Q": "Q", "D": "Q",
    "K": "K",
    "T": "10",
}  # fmt: skip
for _r in RANKS[1:10]:
    _RANK_ALIASES[_r] = _r
# Suits after the rank, international and Nordic: R = ruter/ruder (diamonds), K =
# kløver/klør/klöver (clubs); S and H are spar/spader and hjerter/hjärter in every language.
_SUIT_ALIASES = {"S": "S", "H": "H", "D": "D", "C": "C", "R": "D", "K": "C",
                 "♠": "S", "♥": "H", "♦": "D", "♣": "C",
                 "♤": "S", "♡": "H", "♢": "D", "♧": "C"}  # fmt: skip
_STD_RE = re.compile(r"^(10|[2-9]|KN|[AEJQDKBT1])([SHDCRK♠♥♦♣♤♡♢♧])$")


def parse_card(text: str) -> Card:
    """Parse a card code, forgivingly.

    Accepts lower case, ``T`` for 10, suit symbols (also as a phone's emoji, ``♥️``), Nordic
    index letters (``E`` ace, ``Kn``/``B`` jack, ``D`` queen) and suit letters (``R`` ruter,
    ``K`` kløver: ``7R``, ``DK``), ``JK``/``joker`` (also
    ``JK-1``), ``SB1``–``SB12``, ``SBW``. Raises :class:`CardError` naming the input for
    anything else.
    """
    if not isinstance(text, str):  # checked before the cache, which would hash a list
        raise CardError(f"a card code must be text, not {type(text).__name__}: {text!r:.40}")
    return _parse_code(text)


@cache
def _parse_code(text: str) -> Card:
    # U+FE0F asks for the emoji form of the symbol before it (phones add it to ♥ and ♦).
    t = text.strip().upper().replace(" ", "").replace("\ufe0f", "")
    if t in ("JK", "JOKER") or re.fullmatch(r"JK-?\d", t):
        return JOKER
    m = re.fullmatch(r"SB(\d{1,2}|W)", t)
    if m:
        v = m.group(1)
        if v == "W":
            return SKIPBO_WILD
        if 1 <= int(v) <= 12:
            return skipbo(int(v))
        raise CardError(f"unknown card code {text!r}: Skip-Bo cards are SB1–SB12 and SBW")
    m = _STD_RE.match(t)
    if m:
        return Card("std", _RANK_ALIASES[m.group(1)], Suit(_SUIT_ALIASES[m.group(2)]))
    raise CardError(f"unknown card code {text!r}: expected e.g. AS, 10H, QD, KC, JK, SB7 or SBW")


def split_codes(text: str) -> list[str]:
    """Return the codes of one string, separated by spaces or commas ("7S 8S, 9S")."""
    return [t for t in re.split(r"[\s,]+", text) if t]


def parse_cards(texts: str | list[str]) -> list[Card]:
    """Parse a list of codes, or one string of codes separated by spaces or commas."""
    return [parse_card(t) for t in (split_codes(texts) if isinstance(texts, str) else texts)]


# ---- decks -----------------------------------------------------------------
def standard_deck(jokers: int = 0) -> list[Card]:
    """Return the 52 standard cards (suit-major, A…K) plus ``jokers`` jokers."""
    return [Card("std", r, s) for s in SUITS for r in RANKS] + [JOKER] * jokers


def skipbo_deck() -> list[Card]:
    """Return the 162-card Skip-Bo deck: 12 each of 1–12 and 18 wilds."""
    return [skipbo(v) for v in range(1, 13) for _ in range(12)] + [SKIPBO_WILD] * 18


def improvised_skipbo_value(c: Card) -> int:
    """Return the Skip-Bo value of a card of the improvised deck: A–Q = 1–12, K/joker wild (0)."""
    if c.kind == "skipbo":
        return c.value
    if c.is_joker or c.rank == "K":
        return 0
    return c.rank_value


def improvised_skipbo_deck() -> list[Card]:
    """Return three standard decks with two jokers each: 162 cards, A–Q count 1–12, K/JK wild."""
    return standard_deck(jokers=2) * 3


# ---- model classes -----------------------------------------------------------
def all_codes() -> list[str]:
    """Return every card code in a fixed order: the 52 standard cards, JK, SB1–SB12, SBW.

    The recognizer's class names are exactly this list.
    """
    return (
        [c.code for c in standard_deck()]
        + ["JK"]
        + [skipbo(v).code for v in range(1, 13)]
        + ["SBW"]
    )

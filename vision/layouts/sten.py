"""Sten: read the board — for each suit whether its 7 is down and the tops of its two piles.

Cards are unique in Sten, so no zones are needed: a suit's upper pile top is the highest
rank above 7 seen of that suit, its lower pile top the lowest rank below 7. A finished pile
(the K or the A laid) leaves the table; that it left is known from the game's history, and
the finishing card shows only briefly (a transient view).
"""

from __future__ import annotations

import numpy as np

from referee.cards import Card, parse_card
from referee.core import Move, Rules
from referee.sten import GoOut, Lay, StenState
from vision.layouts import entries
from vision.tracker import TableState

SUIT_ORDER = ("S", "H", "D", "C")


def _board_view(board) -> dict[str, list]:
    out = {}
    for si, pile in enumerate(board):
        if pile is None:
            out[SUIT_ORDER[si]] = [False, None, None]
            continue
        low, high = pile
        out[SUIT_ORDER[si]] = [True, high if 7 < high < 13 else None, low if 1 < low < 7 else None]
    return out


def _lay(board, si: int, r: int):
    pile = board[si]
    if pile is None:
        new = (7, 7)
    elif r < 7:
        new = (r, pile[1])
    else:
        new = (pile[0], r)
    return (*board[:si], new, *board[si + 1 :])


def _suit(c: Card) -> str:
    """Return a standard card's suit letter."""
    assert c.suit is not None, f"{c} is no standard card"
    return c.suit.value


def _key(code: str) -> tuple[int, int]:
    c = parse_card(code)
    return SUIT_ORDER.index(_suit(c)), c.rank_value


def _long_axis(corners: np.ndarray) -> np.ndarray:
    """Return the unit vector from a card's top edge to its bottom edge (its column)."""
    along = corners[3] + corners[2] - corners[0] - corners[1]
    return along / max(float(np.linalg.norm(along)), 1e-6)


def _column_of(center: np.ndarray, sevens: dict[str, np.ndarray]) -> tuple[str, float]:
    """Return the suit whose column (the line through its 7, along the 7's long side) lies
    nearest to ``center``, and how far from that line it lies in widths of that 7."""

    def offset(corners: np.ndarray) -> float:
        along = _long_axis(corners)
        d = center - corners.mean(axis=0)
        width = float(np.linalg.norm(corners[1] + corners[2] - corners[0] - corners[3])) / 2
        return abs(float(d[0] * along[1] - d[1] * along[0])) / max(width, 1e-6)

    offsets = {suit: offset(corners) for suit, corners in sevens.items()}
    suit = min(offsets, key=offsets.__getitem__)
    return suit, offsets[suit]


def _in_own_column(center: np.ndarray, suit: str, sevens: dict[str, np.ndarray]) -> bool:
    """Return whether a card of ``suit`` at ``center`` may be what it reads: in its own
    suit's column, or, while its 7 is not down, off every other suit's column (a card there
    is that suit's card misread; one lying apart is an early lay the guard reports)."""
    column, off = _column_of(center, sevens)
    if suit in sevens:
        return column == suit
    return off > 0.5


# Of a card's length: a card lying this much nearer its 7 than a card of its pile it would
# lie on is not the pile's top (see _out_of_order); a fan's cards lie a tenth apart or more.
OUT_OF_ORDER = 0.1


def _along(cards: list, sevens: dict[str, np.ndarray]) -> dict[int, tuple[float, float]]:
    """Return, by card id, how far along its suit's column each card lies from its 7, and
    that 7's length. The 7s' axes are turned alike, so a sign means the same side in every
    column; a 7 lying upside down would otherwise flip it."""
    ref = _long_axis(next(iter(sevens.values())))
    columns = {}  # suit -> (its 7's centre, column axis turned like ref, card length)
    for suit, seven in sevens.items():
        axis = _long_axis(seven)
        length = float(np.linalg.norm(seven[3] + seven[2] - seven[0] - seven[1])) / 2
        columns[suit] = (seven.mean(axis=0), axis if float(axis @ ref) >= 0 else -axis, length)
    out = {}
    for card, c in cards:
        if c.suit.value not in columns or c.rank_value == 7:
            continue
        center, axis, length = columns[c.suit.value]
        out[card.id] = float((card.center - center) @ axis), length
    return out


def _sides(along: dict[int, tuple[float, float]]) -> dict[int, int]:
    """Return, by card id, on which side of its suit's 7 each card lies along the column
    (+1, -1, or 0 when it lies too near the 7 to tell)."""
    return {
        i: 0 if abs(d) < 0.25 * length else (1 if d > 0 else -1) for i, (d, length) in along.items()
    }


def _out_of_order(cards: list, along: dict[int, tuple[float, float]]) -> set[int]:
    """Return the ids of cards lying nearer their 7 than a card of their pile they would lie
    on, by more than ``OUT_OF_ORDER`` of a length. A pile grows away from its 7, fanned or
    squared, so such a card is not its top but a card under it misread (a 6♣'s index peeking
    from under a fanned 5♣ 4♣ read as A♣)."""

    def lies_on(c, o) -> bool:  # o is of c's pile, between c and the 7
        steps, o_steps = c.rank_value - 7, o.rank_value - 7
        return o.suit == c.suit and o_steps * steps > 0 and abs(o_steps) < abs(steps)

    placed = [(card.id, c, *along[card.id]) for card, c in cards if card.id in along]
    return {
        i
        for i, c, d, length in placed
        if any(lies_on(c, o) and abs(d) < abs(e) - OUT_OF_ORDER * length for _, o, e, _ in placed)
    }


class StenReader:
    """The Sten board as the guard sees it: ``{suit: [seven down, upper top, lower top]}``.

    The piles of a suit lie above and below its 7. A card that lies in another suit's column
    is a misreading (a 5♣ half covered on the clubs' pile read as 5♠, also while the 7♠ is
    not down), and does not count; nor does one on the wrong side of its 7 (a 6♥ in the
    lower pile read as 8♥): the side of the upper piles is the one where most of the board's
    cards above 7 lie and most below 7 do not. Nor does one lying nearer its 7 than a card it
    would lie on (a peeking index under the pile's top misread).
    """

    def observe(self, table: TableState) -> dict[str, list]:
        """Return the board read from the stable table (ranks A=1 … K=13)."""
        view: dict[str, list[bool | int | None]] = {s: [False, None, None] for s in SUIT_ORDER}
        cards = [(card, parse_card(card.code)) for card in table.cards]
        cards = [(card, c) for card, c in cards if c.kind == "std"]
        sevens = {_suit(c): card.corners for card, c in cards if c.rank_value == 7}
        if sevens:
            cards = [
                (card, c)
                for card, c in cards
                if c.rank_value == 7 or _in_own_column(card.center, _suit(c), sevens)
            ]
            along = _along(cards, sevens)
            sides = _sides(along)
            ups = sum(sides.get(card.id, 0) * (1 if c.rank_value > 7 else -1) for card, c in cards)
            up = (ups > 0) - (ups < 0)
            if up:
                cards = [
                    (card, c)
                    for card, c in cards
                    if sides.get(card.id, 0) in (0, up if c.rank_value > 7 else -up)
                ]
            dropped = _out_of_order(cards, along)
            cards = [(card, c) for card, c in cards if card.id not in dropped]
        for _, c in cards:
            v = view[_suit(c)]
            r = c.rank_value
            if r == 7:
                v[0] = True
            elif r > 7:
                v[1] = r if v[1] is None else max(v[1], r)
            else:
                v[2] = r if v[2] is None else min(v[2], r)
        return view

    def expect(self, rules: Rules, state: StenState) -> dict[str, list]:
        """Return the view a referee state predicts."""
        return _board_view(state.board)

    def transients(
        self, rules: Rules, before: StenState, move: Move, after: StenState
    ) -> list[dict[str, list]]:
        """Return the views while a pile's last card shows, and between cards of a go-out."""
        if isinstance(move, Lay):
            cards = [move.card.code]
        elif isinstance(move, GoOut):
            cards = [c.code for c in move.cards]
        else:
            return []
        views = []
        board = before.board
        for i, code in enumerate(cards):
            si, r = _key(code)
            board = _lay(board, si, r)
            view = _board_view(board)
            if r in (1, 13):  # the finishing card shows before the pile leaves
                shown = {k: list(v) for k, v in view.items()}
                shown[SUIT_ORDER[si]][1 if r == 13 else 2] = r
                views.append(shown)
            if i < len(cards) - 1:
                views.append(view)
        return views

    parts = staticmethod(entries)

    @staticmethod
    def mismatch(expected: dict, observed: dict) -> float:
        """Return how many of the suits' entries (7 down, upper top, lower top) differ."""
        return float(
            sum(
                a != b
                for s in expected
                for a, b in zip(expected[s], observed.get(s, [None] * 3), strict=False)
            )
        )

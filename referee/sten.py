"""Sten (Danish Sevens, Fan Tan): build suits out from the sevens; a stuck player takes the stone.

Rules (issue 2): all 52 cards are dealt. The holder of 7♥ lays it first; then, clockwise,
each player lays one card, or, only when none of their cards fits, says "Sten" and takes
the stone. A 7 may be laid whenever its holder is on turn; above it 8…K in order, below it
6…A in order; nothing goes on the 7 itself. When the K is laid the upper pile leaves the
table, when the A is laid the lower pile. A player may go out in one turn by laying all
remaining cards in a declared order in which each fits; if the order does not fit, the cards
go back to the hand and the player takes the stone. The first player with no cards wins;
whoever holds the stone at that moment loses.

House rules (also in README.md, section "Sten"):

* 2 to 10 players. Seats are numbered clockwise; the dealer is the last seat unless
  ``dealer`` says otherwise. When 52 does not divide, the first seats after the dealer get
  one card more (3 players: 18, 17, 17).
* Nobody holds the stone at the start; it goes to the first player who says "Sten". If nobody
  ever said "Sten", nobody loses. If the winner holds the stone as they go out, nobody loses.
* Before 7♥ is down, laying it is the only move (or going out at once with 7♥ first). A
  wrong going-out order then leaves the turn with 7♥'s holder, who takes the stone and must
  still lay 7♥ (it went back to the hand with the other cards).
* With ``known_hands=False`` (a real table, where only laid cards are seen) the referee
  tracks how many cards each hand holds, accepts any laid card that fits and is not already
  out, and takes "Sten" on trust. The first move must then say who laid 7♥ (``seat``).

Every move may carry ``seat``: who makes it. ``None`` means the seat on turn; any other seat
is refused as out of turn.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from referee.cards import RANKS, SUITS, Card, CardError, Suit, parse_card, standard_deck
from referee.core import Hint, IllegalMove, Move, Rules, RulesError

MIN_PLAYERS, MAX_PLAYERS = 2, 10
SUIT_NAMES = {Suit.SPADES: "spades", Suit.HEARTS: "hearts", Suit.DIAMONDS: "diamonds",
              Suit.CLUBS: "clubs"}  # fmt: skip
HEARTS = SUITS.index(Suit.HEARTS)
DECK: tuple[Card, ...] = tuple(standard_deck())  # suit-major (S H D C), A…K: the sort order
_CARDS: tuple[tuple[Card, ...], ...] = tuple(DECK[13 * s : 13 * s + 13] for s in range(4))
_KEY: dict[Card, tuple[int, int]] = {c: (i // 13, i % 13 + 1) for i, c in enumerate(DECK)}
_KEY_BY_ID = {id(c): k for c, k in _KEY.items()}  # the DECK objects live forever: ids are safe
SEVEN_OF_HEARTS = _CARDS[HEARTS][6]

Pile = tuple[int, int] | None
"""One suit on the table: ``None`` until its 7 is down, else ``(low, high)`` ranks laid
(A=1 … K=13). ``low == 1``: the lower pile is finished and has left the table;
``high == 13``: the upper pile has."""


def _key(c: Card) -> tuple[int, int]:
    """Return (suit index, rank) of a standard card (hands hold no others).

    States hold the DECK objects themselves, so the identity lookup almost always hits;
    hashing a card (a dataclass with an enum) is slow enough to halve simulation speed.
    """
    k = _KEY_BY_ID.get(id(c))
    return k if k is not None else _KEY[c]


def _card(si: int, r: int) -> Card:
    return _CARDS[si][r - 1]


def _pretty(si: int, r: int) -> str:
    return f"{RANKS[r - 1]}{SUITS[si].symbol}"


def _listing(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def fits(board: tuple[Pile, ...], si: int, r: int) -> bool:
    """Return whether the card of suit index ``si`` and rank ``r`` may be laid on ``board``."""
    if board[HEARTS] is None:
        return si == HEARTS and r == 7
    pile = board[si]
    if pile is None:
        return r == 7
    return r == pile[0] - 1 or r == pile[1] + 1


def _lay_on(board: tuple[Pile, ...], si: int, r: int) -> tuple[Pile, ...]:
    pile = board[si]
    if pile is None:
        new: Pile = (7, 7)
    elif r < 7:
        new = (r, pile[1])
    else:
        new = (pile[0], r)
    return (*board[:si], new, *board[si + 1 :])


def _on_table(board: tuple[Pile, ...], si: int, r: int) -> bool:
    pile = board[si]
    return pile is not None and pile[0] <= r <= pile[1]


def _open_cards(board: tuple[Pile, ...]) -> list[tuple[int, int]]:
    """Return every card that fits ``board`` now, in deck order."""
    if board[HEARTS] is None:
        return [(HEARTS, 7)]
    out = []
    for si, pile in enumerate(board):
        if pile is None:
            out.append((si, 7))
            continue
        if pile[0] > 1:
            out.append((si, pile[0] - 1))
        if pile[1] < 13:
            out.append((si, pile[1] + 1))
    return sorted(out)


def go_out_order(
    board: tuple[Pile, ...], cards: list[tuple[int, int]]
) -> list[tuple[int, int]] | None:
    """Return an order in which all ``cards`` can be laid one after another, or ``None``.

    Laying a card never stops another from fitting later, so laying whatever fits first
    (in deck order) finds an order whenever one exists.
    """
    left = sorted(cards)
    order: list[tuple[int, int]] = []
    while left:
        for i, (si, r) in enumerate(left):
            if fits(board, si, r):
                board = _lay_on(board, si, r)
                order.append(left.pop(i))
                break
        else:
            return None
    return order


# ---- moves -----------------------------------------------------------------------------
@dataclass(frozen=True)
class Lay(Move):
    """Lay one card on the table."""

    kind: ClassVar[str] = "lay"
    card: Card
    seat: int | None = None


@dataclass(frozen=True)
class SaySten(Move):
    """Say "Sten" (nothing fits) and take the stone."""

    kind: ClassVar[str] = "sten"
    seat: int | None = None


@dataclass(frozen=True)
class GoOut(Move):
    """Lay all remaining cards at once, in this order."""

    kind: ClassVar[str] = "go_out"
    cards: tuple[Card, ...]
    seat: int | None = None


# ---- state -----------------------------------------------------------------------------
@dataclass(frozen=True)
class StenState:
    """A Sten position. ``hands`` is ``None`` when the hands are unknown (a real table)."""

    hands: tuple[tuple[Card, ...], ...] | None
    counts: tuple[int, ...]
    board: tuple[Pile, ...]
    stone: int | None
    turn: int
    winner: int | None = None
    loser: int | None = None
    last: str = ""


def _sorted_hand(cards) -> tuple[Card, ...]:
    """Return the cards as canonical DECK objects in deck order."""
    return tuple(_card(*k) for k in sorted(_KEY[c] for c in cards))


class Sten(Rules):
    """The rules of Sten for 2–10 players, with known hands (a simulation) or unknown ones."""

    name = "sten"
    move_types = (Lay, SaySten, GoOut)

    def __init__(
        self,
        players: int = 4,
        hands: list[list[str]] | None = None,
        known_hands: bool = True,
        dealer: int | None = None,
        names: list[str] | None = None,
        variant: str | None = None,
    ) -> None:
        if variant is not None:
            raise RulesError(f"Sten has no variants; got {variant!r}")
        if isinstance(players, bool) or not isinstance(players, int):
            raise RulesError(f"the number of players must be a whole number, not {players!r}")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise RulesError(
                f"Sten is played by {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}"
            )
        if not isinstance(known_hands, bool):
            raise RulesError(f"known_hands must be true or false, not {known_hands!r}")
        if dealer is None:
            dealer_seat = players - 1
        elif isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < players:
            raise RulesError(f"the dealer must be a seat from 0 to {players - 1}, not {dealer!r}")
        else:
            dealer_seat = dealer
        if names is not None:
            if not isinstance(names, list | tuple) or len(names) != players:
                raise RulesError(f"give one name per player ({players}), not {names!r}")
            if not all(isinstance(n, str) and n.strip() for n in names):
                raise RulesError(f"player names must be non-empty text: {names!r}")
        self.players = self.seats = players
        self.known_hands = known_hands
        self.dealer = dealer_seat
        self.names = (
            [n.strip() for n in names] if names else [f"Player {s + 1}" for s in range(players)]
        )
        self.hands = None if hands is None else self._check_hands(hands)
        self.config: dict[str, Any] = {"players": players, "known_hands": known_hands}
        if dealer is not None:
            self.config["dealer"] = dealer
        if names is not None:
            self.config["names"] = list(self.names)
        if self.hands is not None:
            self.config["hands"] = [[c.code for c in h] for h in self.hands]

    def _check_hands(self, hands: Any) -> tuple[tuple[Card, ...], ...]:
        if not self.known_hands:
            raise RulesError("hands were given, but known_hands is false: give one or the other")
        if not isinstance(hands, list | tuple) or len(hands) != self.players:
            raise RulesError(f"give one hand per player ({self.players} hands)")
        parsed = []
        seen: dict[Card, int] = {}
        for seat, hand in enumerate(hands):
            who = self.names[seat]
            if not isinstance(hand, list | tuple):
                raise RulesError(f"{who}'s hand must be a list of card codes, not {hand!r}")
            cards = []
            for code in hand:
                try:
                    c = code if isinstance(code, Card) else parse_card(code)
                except CardError as e:
                    raise RulesError(f"{who}'s hand: {e}") from None
                if c not in _KEY:
                    raise RulesError(f"{who}'s hand: Sten is played without {c.pretty}")
                if c in seen:
                    where = "twice" if seen[c] == seat else f"also in {self.names[seen[c]]}'s hand"
                    raise RulesError(f"{who}'s hand: {c.pretty} is {where}")
                seen[c] = seat
                cards.append(c)
            parsed.append(_sorted_hand(cards))
        missing = [c.pretty for c in DECK if c not in seen]
        if missing:
            raise RulesError(f"all 52 cards must be dealt; missing: {' '.join(missing)}")
        sizes = [len(h) for h in parsed]
        if max(sizes) - min(sizes) > 1:
            raise RulesError(
                f"the cards must be dealt as evenly as possible; hand sizes are {sizes}"
            )
        return tuple(parsed)

    # ---- set-up and flow -------------------------------------------------------------------
    def deal_sizes(self) -> list[int]:
        """Return each seat's number of cards: the first seats after the dealer get the extras."""
        base, extra = divmod(52, self.players)
        return [
            base + (1 if (s - self.dealer - 1) % self.players < extra else 0)
            for s in range(self.players)
        ]

    def initial_state(self, rng: random.Random) -> StenState:
        """Deal (or take the given hands); the holder of 7♥ is on turn."""
        board: tuple[Pile, ...] = (None,) * 4
        if not self.known_hands:
            first = (self.dealer + 1) % self.players
            return StenState(None, tuple(self.deal_sizes()), board, None, first,
                             last="Waiting for 7♥")  # fmt: skip
        if self.hands is not None:
            hands = self.hands
        else:
            deck = list(DECK)
            rng.shuffle(deck)
            dealt: list[list[Card]] = [[] for _ in range(self.players)]
            for i, c in enumerate(deck):
                dealt[(self.dealer + 1 + i) % self.players].append(c)
            hands = tuple(_sorted_hand(h) for h in dealt)
        first = next(s for s, h in enumerate(hands) if SEVEN_OF_HEARTS in h)
        return StenState(hands, tuple(len(h) for h in hands), board, None, first,
                         last=f"{self.names[first]} holds 7♥ and lays it first")  # fmt: skip

    def to_move(self, state: StenState) -> int:
        """Return the seat on turn (unknown hands, before 7♥: the seat after the dealer)."""
        return state.turn

    def is_over(self, state: StenState) -> bool:
        """Return whether a player has gone out."""
        return state.winner is not None

    def legal_moves(self, state: StenState) -> list[Move]:
        """Return the legal moves: lays in deck order, then one going-out order, or Sten.

        Only one valid going-out order is listed (many may exist), and never a wrong one,
        though a wrong one is a legal move with a penalty.
        """
        if state.winner is not None:
            return []
        if state.hands is None:
            if state.board[HEARTS] is None:
                return [Lay(SEVEN_OF_HEARTS, seat=s) for s in range(self.players)]
            moves: list[Move] = [Lay(_card(si, r)) for si, r in _open_cards(state.board)]
            return [*moves, SaySten()]
        hand = state.hands[state.turn]
        board = state.board
        moves = [Lay(c) for c in hand if fits(board, *_key(c))]
        if not moves:
            return [SaySten()]
        # With one card left, laying it is going out: one move, not two that do the same.
        order = go_out_order(board, [_key(c) for c in hand]) if len(hand) > 1 else None
        if order is not None:
            moves.append(GoOut(tuple(_card(*k) for k in order)))
        return moves

    # ---- checking ------------------------------------------------------------------------
    def _mover(self, state: StenState, move: Move) -> int:
        seat = getattr(move, "seat", None)
        if seat is None:
            if state.hands is None and state.board[HEARTS] is None:
                raise IllegalMove(
                    "say who laid 7♥: with unknown hands the referee does not know who holds it"
                )
            return state.turn
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise IllegalMove(f"no seat {seat!r}: seats are 0 to {self.players - 1}")
        if state.hands is None and state.board[HEARTS] is None:
            return seat  # whoever lays 7♥ starts
        if seat != state.turn:
            raise IllegalMove(f"it is {self.names[state.turn]}'s turn, not {self.names[seat]}'s")
        return seat

    def _stand(self, board: tuple[Pile, ...], si: int) -> str:
        suit = SUIT_NAMES[SUITS[si]]
        pile = board[si]
        if pile is None:
            return f"the 7{SUITS[si].symbol} is not down yet"
        low, high = pile
        text = (
            f"only the 7{SUITS[si].symbol} of {suit} is down"
            if low == high
            else (f"{suit} stand at {RANKS[low - 1]}–{RANKS[high - 1]}")
        )
        gone = [p for p, f in (("lower", low == 1), ("upper", high == 13)) if f]
        if gone:
            text += f" (the {' and '.join(gone)} pile{'s have' if len(gone) > 1 else ' has'} "
            text += "left the table)"
        nxt = [_pretty(s, r) for s, r in _open_cards(board) if s == si]
        if nxt:
            text += f"; only {' or '.join(nxt)} fit{'s' if len(nxt) == 1 else ''} there"
        return text

    def _why_not(self, board: tuple[Pile, ...], si: int, r: int) -> str:
        """Explain why the card does not fit ``board``."""
        if board[HEARTS] is None:
            return "7♥ must be laid first"
        return f"{_pretty(si, r)} does not fit: {self._stand(board, si)}"

    def _judge(self, state: StenState, move: Move) -> tuple:
        """Check ``move``; return what applying it needs, or raise :class:`IllegalMove`."""
        if state.winner is not None:
            raise IllegalMove(f"the game is over: {self.names[state.winner]} went out")
        if not isinstance(move, Move) or type(move) not in self.move_types:
            raise IllegalMove(f"{move!r} is not a Sten move (lay, sten or go_out)")
        seat = self._mover(state, move)
        hand = None if state.hands is None else state.hands[seat]
        if isinstance(move, Lay):
            si, r = self._std_card(move.card)
            self._held(state, hand, si, r)
            if not fits(state.board, si, r):
                raise IllegalMove(self._why_not(state.board, si, r))
            return (seat, si, r)
        if isinstance(move, SaySten):
            if state.board[HEARTS] is None:
                raise IllegalMove("7♥ must be laid first")
            if hand is not None:
                fitting = [_pretty(*_key(c)) for c in hand if fits(state.board, *_key(c))]
                if fitting:
                    verb = "fits" if len(fitting) == 1 else "fit"
                    raise IllegalMove(f"you cannot say Sten: {_listing(fitting)} {verb}")
            return (seat,)
        assert isinstance(move, GoOut), "the move types are Lay, SaySten and GoOut"
        cards = move.cards
        if not isinstance(cards, tuple) or not cards:
            raise IllegalMove("to go out, name your cards in the order you lay them")
        keys = [self._std_card(c) for c in cards]
        if len(set(keys)) != len(keys):
            twice = next(k for k in keys if keys.count(k) > 1)
            raise IllegalMove(f"{_pretty(*twice)} is named twice")
        for k in keys:
            self._held(state, hand, *k)
        if hand is not None and len(keys) != len(hand):
            named = set(keys)
            missing = [_pretty(*_key(c)) for c in hand if _key(c) not in named]
            raise IllegalMove(
                f"to go out you must lay all {len(hand)} of your cards; "
                f"{_listing(missing)} {'is' if len(missing) == 1 else 'are'} missing"
            )
        if hand is None and len(keys) != state.counts[seat]:
            raise IllegalMove(
                f"to go out {self.names[seat]} must lay all {state.counts[seat]} cards "
                f"in the hand, not {len(keys)}"
            )
        if state.board[HEARTS] is None and keys[0] != (HEARTS, 7):
            raise IllegalMove("7♥ must be laid first")
        board = state.board
        for i, (si, r) in enumerate(keys):
            if not fits(board, si, r):
                return (seat, keys, i, board)
            board = _lay_on(board, si, r)
        return (seat, keys, None, board)

    @staticmethod
    def _std_card(c: Any) -> tuple[int, int]:
        if not isinstance(c, Card):
            raise IllegalMove(f"{c!r} is not a card")
        key = _KEY_BY_ID.get(id(c)) or _KEY.get(c)
        if key is None:
            raise IllegalMove(f"Sten is played without {c.pretty}")
        return key

    def _held(self, state: StenState, hand, si: int, r: int) -> None:
        if hand is not None:
            if _card(si, r) not in hand:
                where = " (it is already on the table)" if _on_table(state.board, si, r) else ""
                raise IllegalMove(f"you do not hold {_pretty(si, r)}{where}")
        elif _on_table(state.board, si, r):
            pile = state.board[si]
            assert pile is not None, "a card on the table lies on its suit's pile"
            gone = (r < 7 and pile[0] == 1) or (r > 7 and pile[1] == 13)
            raise IllegalMove(
                f"{_pretty(si, r)} has already {'left the table' if gone else 'been laid'}"
            )

    def check(self, state: StenState, move: Move) -> None:
        """Raise :class:`IllegalMove` with a reason if ``move`` is not legal now."""
        self._judge(state, move)

    # ---- applying --------------------------------------------------------------------------
    def apply(self, state: StenState, move: Move) -> StenState:
        """Return the state after ``move`` (checked first); ``state`` is left as it was."""
        verdict = self._judge(state, move)
        seat = verdict[0]
        who = self.names[seat]
        nxt = (seat + 1) % self.players
        if isinstance(move, SaySten):
            if state.stone == seat:
                text = f"{who} said Sten and keeps the stone"
            elif state.stone is None:
                text = f"{who} said Sten and takes the stone"
            else:
                text = f"{who} said Sten and takes the stone from {self.names[state.stone]}"
            return replace(state, stone=seat, turn=nxt, last=text)
        if isinstance(move, Lay):
            _, si, r = verdict
            board = _lay_on(state.board, si, r)
            text = f"{who} laid {_pretty(si, r)}"
            if r == 13:
                text += f": the upper {SUIT_NAMES[SUITS[si]]} pile leaves the table"
            elif r == 1:
                text += f": the lower {SUIT_NAMES[SUITS[si]]} pile leaves the table"
            return self._after_laying(state, seat, [(si, r)], board, text)
        _, keys, bad, board = verdict
        laid = " ".join(_pretty(*k) for k in keys)
        if bad is None:
            return self._after_laying(state, seat, keys, board, f"{who} laid {laid} at once")
        text = (
            f"{who} tried to go out with {laid}, but {_pretty(*keys[bad])} did not fit; "
            f"the cards go back and {who} takes the stone"
        )
        # 7♥ went back to its holder's hand: nobody else may lay anything (nor say Sten)
        # until its holder has laid it, so the turn stays there.
        if state.board[HEARTS] is None:
            nxt = seat
        return replace(state, stone=seat, turn=nxt, last=text)

    def _after_laying(self, state: StenState, seat: int, keys, board, text: str) -> StenState:
        counts = list(state.counts)
        counts[seat] -= len(keys)
        hands = state.hands
        if hands is not None:
            gone = set(keys)
            hand = tuple(c for c in hands[seat] if _key(c) not in gone)
            hands = (*hands[:seat], hand, *hands[seat + 1 :])
        if counts[seat] > 0:
            return replace(state, hands=hands, counts=tuple(counts), board=board,
                           turn=(seat + 1) % self.players, last=text)  # fmt: skip
        who = self.names[seat]
        if state.stone is None:
            loser, text = None, f"{text} and goes out: {who} wins; nobody took the stone"
        elif state.stone == seat:
            loser, text = None, f"{text} and goes out with the stone: {who} wins, nobody loses"
        else:
            loser = state.stone
            text = f"{text} and goes out: {who} wins, {self.names[loser]} has the stone and loses"
        return replace(state, hands=hands, counts=tuple(counts), board=board, winner=seat,
                       loser=loser, last=text)  # fmt: skip

    # ---- results, views, JSON -------------------------------------------------------------
    def scores(self, state: StenState) -> dict[str, Any]:
        """Return ``{"winners": [seat], "loser": seat or None, "cards_left": [...]}``."""
        return {
            "winners": [] if state.winner is None else [state.winner],
            "loser": state.loser,
            "cards_left": list(state.counts),
        }

    def _seat_arg(self, seat: Any) -> None:
        if isinstance(seat, bool) or not isinstance(seat, int) or not 0 <= seat < self.players:
            raise RulesError(f"no seat {seat!r}: seats are 0 to {self.players - 1}")

    def view(self, state: StenState, seat: int | None) -> dict[str, Any]:
        """Return the table as ``seat`` may see it: the board, everyone's hand size, own hand."""
        if seat is not None:
            self._seat_arg(seat)
        over = state.winner is not None
        board = []
        for si, pile in enumerate(state.board):
            suit = SUITS[si]
            low, high = pile if pile is not None else (None, None)
            board.append({
                "suit": suit.value,
                "symbol": suit.symbol,
                "name": SUIT_NAMES[suit],
                "seven_down": pile is not None,
                "low": _card(si, low).code if low is not None and low < 7 else None,
                "high": _card(si, high).code if high is not None and high > 7 else None,
                "lower_pile_left": low == 1,
                "upper_pile_left": high == 13,
                "fits": [] if over else [  # nothing fits a finished game
                    _card(s, r).code for s, r in _open_cards(state.board) if s == si
                ],
            })  # fmt: skip
        out: dict[str, Any] = {
            "game": self.name,
            "players": self.players,
            "names": list(self.names),
            "known_hands": state.hands is not None,
            "started": state.board[HEARTS] is not None,
            "board": board,
            "stone": state.stone,
            "turn": state.turn,
            "hand_sizes": list(state.counts),
            "last": state.last,
            "over": over,
            "winner": state.winner,
            "loser": state.loser,
            "seat": seat,
        }
        if seat is not None and state.hands is not None:
            hand = state.hands[seat]
            out["hand"] = [c.code for c in hand]
            out["fits"] = [] if over else [c.code for c in hand if fits(state.board, *_key(c))]
        return out

    def state_to_json(self, state: StenState) -> dict[str, Any]:
        """Return the whole state as JSON (every hand: not for players; see :meth:`view`)."""
        return {
            "hands": None if state.hands is None else [[c.code for c in h] for h in state.hands],
            "counts": list(state.counts),
            "board": {
                s.value: (None if p is None else list(p))
                for s, p in zip(SUITS, state.board, strict=True)
            },
            "stone": state.stone,
            "turn": state.turn,
            "winner": state.winner,
            "loser": state.loser,
            "last": state.last,
        }

    def state_from_json(self, data: dict[str, Any]) -> StenState:
        """Rebuild a state; raise :class:`RulesError` naming what is malformed."""
        try:
            hands = data["hands"]
            if hands is not None:
                hands = tuple(_sorted_hand(parse_card(c) for c in h) for h in hands)
            board = tuple(
                None if data["board"][s.value] is None else
                (int(data["board"][s.value][0]), int(data["board"][s.value][1]))
                for s in SUITS
            )  # fmt: skip
            state = StenState(
                hands=hands,
                counts=tuple(int(n) for n in data["counts"]),
                board=board,
                stone=None if data["stone"] is None else int(data["stone"]),
                turn=int(data["turn"]),
                winner=None if data["winner"] is None else int(data["winner"]),
                loser=None if data["loser"] is None else int(data["loser"]),
                last=str(data.get("last", "")),
            )
        except (KeyError, TypeError, ValueError, IndexError, CardError) as e:
            raise RulesError(f"not a Sten state: {type(e).__name__} {e}") from None
        problems = self.invariant_violations(state)
        if problems:
            raise RulesError(f"not a valid Sten state: {'; '.join(problems)}")
        return state

    def invariant_violations(self, state: StenState) -> list[str]:
        """Return broken invariants: cards created or lost, bad piles, counts, seats."""
        out = []
        n = self.players
        if len(state.counts) != n:
            return [f"{len(state.counts)} hand counts for {n} players"]
        laid = 0
        for si, pile in enumerate(state.board):
            if pile is None:
                continue
            low, high = pile
            if not 1 <= low <= 7 <= high <= 13:
                out.append(f"{SUIT_NAMES[SUITS[si]]} pile {pile} is not a run through the 7")
            laid += high - low + 1
        if any(p is not None for p in state.board) and state.board[HEARTS] is None:
            out.append("a suit is open but 7♥ is not down")
        elif (
            state.hands is not None
            and state.board[HEARTS] is None
            and 0 <= state.turn < len(state.hands)
            and SEVEN_OF_HEARTS not in state.hands[state.turn]
        ):
            out.append(f"7♥ is not down, yet seat {state.turn}, who does not hold it, is on turn")
        if state.hands is not None:
            if len(state.hands) != n:
                out.append(f"{len(state.hands)} hands for {n} players")
            seen: set[tuple[int, int]] = set()
            board = state.board
            for seat, hand in enumerate(state.hands):
                if seat < n and len(hand) != state.counts[seat]:
                    out.append(
                        f"seat {seat} holds {len(hand)} cards but counts {state.counts[seat]}"
                    )
                keys = [_KEY_BY_ID.get(id(c)) or _KEY.get(c) for c in hand]
                known = [k for k in keys if k is not None]
                fresh = set(known)
                if len(fresh) == len(hand) and not fresh & seen:
                    seen |= fresh
                    # the fast path: distinct cards; only the table overlap is left to check
                    for si, r in known:
                        pile = board[si]
                        if pile is not None and pile[0] <= r <= pile[1]:
                            out.append(
                                f"{_pretty(si, r)} is both on the table and in seat {seat}'s hand"
                            )
                    continue
                for c, key in zip(hand, keys, strict=True):
                    if key is None:
                        out.append(f"seat {seat} holds {c!r}, not a Sten card")
                        continue
                    if key in seen:
                        out.append(f"{c.pretty} is in two hands")
                    elif _on_table(board, *key):
                        out.append(f"{c.pretty} is both on the table and in seat {seat}'s hand")
                    seen.add(key)
            if len(seen) + laid != 52:
                out.append(f"{len(seen)} cards in hands + {laid} laid = {len(seen) + laid}, not 52")
        if any(k < 0 for k in state.counts):
            out.append(f"negative hand count: {list(state.counts)}")
        if sum(state.counts) + laid != 52:
            out.append(f"{sum(state.counts)} cards in hands + {laid} laid != 52")
        for label, s in (("stone holder", state.stone), ("turn", state.turn),
                         ("winner", state.winner), ("loser", state.loser)):  # fmt: skip
            if s is not None and not 0 <= s < n:
                out.append(f"{label} {s} is no seat")
        if state.winner is None:
            if any(k == 0 for k in state.counts):
                out.append("a hand is empty but nobody has won")
            if state.loser is not None:
                out.append("a loser without a winner")
        elif 0 <= state.winner < n:
            if state.counts[state.winner] != 0:
                out.append(f"winner {state.winner} still holds cards")
            if state.loser is not None and (
                state.loser == state.winner or state.loser != state.stone
            ):
                out.append(f"loser {state.loser} is not the stone holder {state.stone}")
        return out

    # ---- advice ----------------------------------------------------------------------------
    @staticmethod
    def _prospects(hand_keys: set[tuple[int, int]], si: int, r: int) -> tuple[list, list, int]:
        """Return (own cards freed at once, own cards further on, cards opened to others)."""
        chain: list[tuple[int, int]] = []
        behind: list[tuple[int, int]] = []
        gifts = 0
        steps = (1, -1) if r == 7 else ((1,) if r > 7 else (-1,))
        for d in steps:
            x = r + d
            while 1 <= x <= 13 and (si, x) in hand_keys:
                chain.append((si, x))
                x += d
            if 1 <= r + d <= 13 and (si, r + d) not in hand_keys:
                gifts += 1
            x = r + d
            while 1 <= x <= 13:
                if (si, x) in hand_keys:
                    behind.append((si, x))
                x += d
        return chain, behind, gifts

    def _rank_lays(self, state: StenState, seat: int) -> list[tuple[float, Card, str]]:
        assert state.hands is not None, "ranked only where the hands are known"
        hand = state.hands[seat]
        keys = {_key(c) for c in hand}
        fitting = [c for c in hand if fits(state.board, *_key(c))]
        ranked: list[tuple[float, Card, str]] = []
        for c in fitting:
            si, r = _key(c)
            chain, behind, gifts = self._prospects(keys, si, r)
            score = 4 * len(chain) + 2 * len(behind) - (3 * gifts if not chain else 0)
            if chain:
                why = f"it frees your {_listing([_pretty(*k) for k in chain])}"
            elif behind:
                nearest = sorted(behind, key=lambda k: abs(k[1] - r))
                why = (f"it moves {SUIT_NAMES[SUITS[si]]} towards your "
                       f"{_listing([_pretty(*k) for k in nearest[:3]])}")  # fmt: skip
            elif len(fitting) == 1:
                why = "it is the only card that fits"
            elif gifts == 0:
                why = "it opens nothing for the others"
            else:
                why = "none of your cards that fit frees another of yours; this one opens least"
            ranked.append((score, c, why))
        ranked.sort(key=lambda t: (-t[0], _key(t[1])))
        return ranked

    def hint(self, state: StenState, seat: int) -> Hint:
        """Return the cards that fit, a way out if there is one, and a recommended move."""
        self._seat_arg(seat)
        if state.winner is not None:
            return Hint(None, f"the game is over: {self.names[state.winner]} went out")
        if state.hands is None:
            open_codes = [_card(*k).code for k in _open_cards(state.board)]
            return Hint(
                None,
                "the referee does not know your hand; these cards fit: "
                + " ".join(_pretty(*k) for k in _open_cards(state.board)),
                {"fits": open_codes},
            )
        hand = state.hands[seat]
        fitting = [c for c in hand if fits(state.board, *_key(c))]
        details: dict[str, Any] = {"fits": [c.code for c in fitting]}
        if seat != state.turn:
            return Hint(None, f"it is {self.names[state.turn]}'s turn", details)
        if not fitting:
            return Hint(SaySten(), "nothing fits: say Sten and take the stone", details)
        order = go_out_order(state.board, [_key(c) for c in hand])
        if order is not None:
            details["go_out"] = [_card(*k).code for k in order]
            text = " ".join(_pretty(*k) for k in order)
            move = GoOut(tuple(_card(*k) for k in order)) if len(order) > 1 else Lay(hand[0])
            return Hint(move, f"you can go out now: {text}", details)
        ranked = self._rank_lays(state, seat)
        _, best, why = ranked[0]
        details["recommended"] = best.code
        details["ranking"] = [{"card": c.code, "score": s, "reason": w} for s, c, w in ranked]
        return Hint(Lay(best), f"Lay {best.pretty}: {why}", details)

    def greedy_move(self, state: StenState, rng: random.Random) -> Move:
        """Go out when possible, else lay the card that frees most own cards at once."""
        if state.hands is None:
            return rng.choice(self.legal_moves(state))
        moves = self.legal_moves(state)
        if isinstance(moves[-1], GoOut | SaySten):
            return moves[-1]
        keys = {_key(c) for c in state.hands[state.turn]}
        lays = [m for m in moves if isinstance(m, Lay)]  # all of them: no way out, no Sten
        return max(lays, key=lambda m: len(self._prospects(keys, *_key(m.card))[0]))

    def hint_move(self, state: StenState, rng: random.Random) -> Move:
        """Return the hint's recommended move."""
        if state.hands is None:
            return rng.choice(self.legal_moves(state))
        move = self.hint(state, state.turn).move
        assert move is not None, "a hint on turn in a game not over names a move"
        return move

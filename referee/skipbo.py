"""Skip-Bo: the complete rules, scoring, team play, matches and a turn-planner hint.

Table: each player has a stock (top last; only the top is face up), a hand of up to five
and four discard piles; four shared building piles run 1→12 and a pile reaching 12 is set
aside; the rest is the draw pile. A turn: draw up to five; play any number of cards (stock
top, hand cards, top of any own discard pile) onto building piles, each exactly one higher
or a wild, which takes the value needed; a new pile needs a 1 or a wild; a hand emptied
mid-turn draws five more; the stock's next card turns up at once. The turn ends with one
hand card onto one of the player's discard piles. Playing is always optional. The first
player to empty the stock wins 25 + 5 for every card left in the opponents' stocks.

Chance. A simulated state (:meth:`SkipBo.initial_state`) keeps the real shuffled order of
the draw pile and the stocks, so drawing and turning up are deterministic steps inside
:meth:`SkipBo.apply` and simulation needs no chance moves. At a real table nobody knows
that order: :meth:`SkipBo.table_state` starts a game whose unseen cards (draw pile and the
face-down stock cards) are only a placeholder arrangement of the right multiset. Whenever
such a game has to draw or turn up a card, :meth:`SkipBo.to_move` is :data:`CHANCE` and the
legal moves are ``Reveal(card)`` for every card still unseen; the camera (or a tap) says
which card it was, and the referee swaps it into place from the unseen cards. One state
shape, one code path, exact replay from the log either way.

House rules (documented, chosen here):

* Building piles are four numbered slots (1–4 in messages, 0–3 in moves); a new pile goes
  into an empty slot, so "at most four piles" holds by construction.
* Hands are drawn at the start of each turn (the first player draws five at once).
* When the draw pile runs out, the set-aside piles are shuffled into a new one with
  ``random.Random(f"{seed}:{reshuffles}")``, so a replayed log reshuffles identically.
* ``empty_draw="play_on"`` (default): when neither is left, play on without drawing; a
  player with an empty hand ends the turn with ``EndTurn``. ``empty_draw="end"``: the game
  ends as soon as a draw is needed and there is no card to draw.
* A game that can make no more progress ends: after a full round of turns in which no card
  was played onto a building pile while nothing was left to draw. Such a stalled game (and
  one ended by ``empty_draw="end"``) is won by the fewest stock cards (per team in team
  play; ties share the win) and scores 5 per card left in the opponents' stocks, without
  the 25 for going out.
* ``EndTurn`` is legal only with an empty hand (there is then nothing to discard).
* Teams (4, 6 or 8 players): partners sit opposite (seat ``i`` and ``i + players/2``) and
  may play from each other's stock and discard piles; a team wins when both stocks are
  empty. The table-talk penalty puts two cards from the draw pile, unseen, under the
  offender's face-up stock card (the face-up card stays on top).
* Default stock: 30 for 2–4 players, 20 for 5–6, and for 7–8 (teams) as much as the
  162-card deck allows with a draw pile of at least 20 cards left.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, ClassVar

from referee.cards import (
    Card,
    CardError,
    improvised_skipbo_deck,
    improvised_skipbo_value,
    parse_card,
    skipbo_deck,
)
from referee.core import CHANCE, Hint, IllegalMove, Move, Rules, RulesError

HAND = 5
PILES = 4
MIN_PLAYERS, MAX_PLAYERS = 2, 6  # without teams
TEAM_PLAYERS = (4, 6, 8)  # teams of two
TOP = 12
DECKS = ("skipbo", "improvised")
EMPTY_DRAW = ("play_on", "end")
SOURCES = ("stock", "hand", "discard")


def value(card: Card) -> int:
    """Return a card's Skip-Bo value: 1–12, or 0 for a wild (both decks)."""
    return card.value if card.kind == "skipbo" else improvised_skipbo_value(card)


def is_wild(card: Card) -> bool:
    """Return whether a card is a wild (SBW; K or JK in the improvised deck)."""
    return value(card) == 0


# ---- moves ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Play(Move):
    """Play ``card`` from ``source`` onto building pile ``pile`` (0–3).

    ``index`` is the discard pile (0–3) for ``source="discard"``; ``owner`` the seat whose
    stock or discard pile it comes from (a partner's in team play; ``None``: the player's
    own); ``seat``, when given, must be the seat on turn.
    """

    kind: ClassVar[str] = "play"
    source: str
    card: Card
    pile: int
    index: int = 0
    owner: int | None = None
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Discard(Move):
    """End the turn: put hand card ``card`` onto the player's discard pile ``pile`` (0–3)."""

    kind: ClassVar[str] = "discard"
    card: Card
    pile: int
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class EndTurn(Move):
    """End the turn without discarding (only with an empty hand)."""

    kind: ClassVar[str] = "end_turn"
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Reveal(Move):
    """Chance at a real table: the card just drawn or turned up is ``card``."""

    kind: ClassVar[str] = "reveal"
    card: Card


@dataclass(frozen=True, slots=True)
class TableTalkPenalty(Move):
    """Team play: ``seat`` talked about the game; two draw-pile cards go onto its stock."""

    kind: ClassVar[str] = "penalty"
    seat: int


# ---- state ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SkipBoState:
    """The whole table. Piles are tuples with the top card last."""

    stocks: tuple[tuple[Card, ...], ...]
    hands: tuple[tuple[Card, ...], ...]
    discards: tuple[tuple[tuple[Card, ...], ...], ...]
    building: tuple[tuple[Card, ...], ...]
    done: tuple[Card, ...]
    draw: tuple[Card, ...]
    turn: int = 0
    phase: str = "play"  # "play" or "over"
    winners: tuple[int, ...] = ()
    stalled: bool = False
    seed: int = 0
    reshuffles: int = 0
    idle: int = 0
    played: bool = False  # a card went onto a building pile this turn
    hidden: bool = False  # real table: unseen cards are a placeholder order
    owed: int = 0  # hidden only: cards the player on turn still has to draw
    turn_up: tuple[int, ...] = ()  # hidden only: seats whose stock top awaits turning up
    turns: int = 1
    last: str = ""

    def pile_value(self, pile: int) -> int:
        """Return the value building pile ``pile`` stands at (0: empty)."""
        return len(self.building[pile])


class _Work:
    """Mutable copy of a state used inside ``apply``; frozen again by ``freeze``."""

    __slots__ = (
        "building",
        "discards",
        "done",
        "draw",
        "hands",
        "hidden",
        "idle",
        "last",
        "owed",
        "phase",
        "played",
        "reshuffles",
        "seed",
        "stalled",
        "stocks",
        "turn",
        "turn_up",
        "turns",
        "winners",
    )
    # the fields __init__ copies by name, typed as in SkipBoState
    turn: int
    phase: str
    winners: tuple[int, ...]
    stalled: bool
    seed: int
    reshuffles: int
    idle: int
    played: bool
    hidden: bool
    owed: int
    turn_up: tuple[int, ...]
    turns: int
    last: str

    def __init__(self, s: SkipBoState):
        self.stocks = list(s.stocks)
        self.hands = list(s.hands)
        self.discards = list(s.discards)
        self.building = list(s.building)
        self.done = s.done
        self.draw = s.draw
        for name in (
            "turn",
            "phase",
            "winners",
            "stalled",
            "seed",
            "reshuffles",
            "idle",
            "played",
            "hidden",
            "owed",
            "turn_up",
            "turns",
            "last",
        ):
            setattr(self, name, getattr(s, name))

    def freeze(self) -> SkipBoState:
        return SkipBoState(
            tuple(self.stocks),
            tuple(self.hands),
            tuple(self.discards),
            tuple(self.building),
            self.done,
            self.draw,
            self.turn,
            self.phase,
            self.winners,
            self.stalled,
            self.seed,
            self.reshuffles,
            self.idle,
            self.played,
            self.hidden,
            self.owed,
            self.turn_up,
            self.turns,
            self.last,
        )

    def ensure_draw(self) -> bool:
        """Reshuffle the set-aside piles into a new draw pile if it is empty; say if any left."""
        if not self.draw and self.done:
            cards = list(self.done)
            random.Random(f"{self.seed}:{self.reshuffles}").shuffle(cards)
            self.draw, self.done = tuple(cards), ()
            self.reshuffles += 1
        return bool(self.draw)


# ---- rules ---------------------------------------------------------------------------
class SkipBo(Rules):
    """Skip-Bo for 2–6 players (4, 6 or 8 as teams of two), with both decks and house rules."""

    name: ClassVar[str] = "skipbo"
    move_types: ClassVar[tuple[type[Move], ...]] = (
        Play,
        Discard,
        EndTurn,
        Reveal,
        TableTalkPenalty,
    )
    field_counts: ClassVar[dict[str, int]] = {"pile": PILES, "index": PILES}

    def __init__(
        self,
        players: int = 2,
        stock: int | None = None,
        teams: bool = False,
        deck: str = "skipbo",
        empty_draw: str = "play_on",
        match_target: int = 500,
        first: int = 0,
    ):
        if not isinstance(players, int) or isinstance(players, bool):
            raise RulesError(f"players must be a whole number, not {players!r}")
        if not isinstance(teams, bool):
            raise RulesError(f"teams must be true or false, not {teams!r}")
        if teams:
            if players not in TEAM_PLAYERS:
                raise RulesError(
                    f"team Skip-Bo needs 4, 6 or 8 players (teams of two), not {players}"
                )
        elif not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise RulesError(
                f"Skip-Bo is for 2–6 players (4, 6 or 8 as teams of two), not {players}"
            )
        if deck not in DECKS:
            raise RulesError(f"unknown deck {deck!r}; expected one of {', '.join(DECKS)}")
        if empty_draw not in EMPTY_DRAW:
            raise RulesError(
                f"unknown empty_draw rule {empty_draw!r}; expected one of {', '.join(EMPTY_DRAW)}"
            )
        if stock is None:
            stock = 30 if players <= 4 else 20 if players <= 6 else (162 - 20) // players - HAND
        if not isinstance(stock, int) or isinstance(stock, bool) or not 5 <= stock <= 30:
            raise RulesError(f"the stock must be 5–30 cards, not {stock!r}")
        if players * (stock + HAND) > 162:
            raise RulesError(
                f"{players} stocks of {stock} plus hands need {players * (stock + HAND)} cards;"
                " the deck has 162: agree on a smaller stock"
            )
        if not _whole(match_target) or match_target < 1:
            raise RulesError(f"the match target must be a positive number, not {match_target!r}")
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < players:
            raise RulesError(
                f"the first player must be a seat from 0 to {players - 1}, not {first!r}"
            )
        self.players = self.seats = players
        self.first = first  # who plays first (a match's next game: the next seat)
        self.stock = stock
        self.teams = bool(teams)
        self.deck = deck
        self.empty_draw = empty_draw
        self.match_target = match_target
        self.config = {
            "players": players,
            "stock": stock,
            "teams": self.teams,
            "deck": deck,
            "empty_draw": empty_draw,
            "match_target": match_target,
        }
        if first:
            self.config["first"] = first
        # One object per card code (parse_card caches), so states can be counted by identity.
        cards = skipbo_deck() if deck == "skipbo" else improvised_skipbo_deck()
        self._deck = [parse_card(c.code) for c in cards]
        self._deck_counts = Counter(self._deck)
        self._deck_ids = sorted(map(id, self._deck))

    # ---- seats and teams ----------------------------------------------------------
    def partner(self, seat: int) -> int | None:
        """Return ``seat``'s partner in team play, else ``None``."""
        return (seat + self.players // 2) % self.players if self.teams else None

    def team(self, seat: int) -> tuple[int, ...]:
        """Return the seats that win together with ``seat`` (just ``seat`` without teams)."""
        partner = self.partner(seat)  # None without teams
        return (seat,) if partner is None else tuple(sorted((seat, partner)))

    def teams_list(self) -> list[list[int]]:
        """Return the teams as seat lists (each player alone without teams)."""
        return [
            list(self.team(s)) for s in range(self.players // 2 if self.teams else self.players)
        ]

    # ---- set-up -------------------------------------------------------------------
    def codes(self) -> frozenset[str]:
        """Return the codes of the cards this game is played with (its deck's)."""
        return frozenset(c.code for c in self._deck)

    def wild_codes(self) -> frozenset[str]:
        """Return the codes of this game's wilds (SBW; K and JK in the improvised deck)."""
        return frozenset(c.code for c in self._deck if is_wild(c))

    def initial_state(self, rng: random.Random) -> SkipBoState:
        """Shuffle, deal the stocks and draw the first player's hand (order known: simulation)."""
        return self._deal(rng, hidden=False)

    def table_state(self, rng: random.Random | None = None) -> SkipBoState:
        """Start a real-table game: card order unknown, every draw and turn-up is a ``Reveal``."""
        return self._deal(rng or random.Random(0), hidden=True)

    def _deal(self, rng: random.Random, hidden: bool) -> SkipBoState:
        cards = list(self._deck)
        rng.shuffle(cards)
        stocks = []
        for _ in range(self.players):
            stocks.append(tuple(cards[-self.stock :]))
            del cards[-self.stock :]
        empty_piles = ((),) * PILES
        s = SkipBoState(
            stocks=tuple(stocks),
            hands=((),) * self.players,
            discards=(empty_piles,) * self.players,
            building=empty_piles,
            done=(),
            draw=tuple(cards),
            seed=rng.randrange(2**31),
            hidden=hidden,
            turn_up=tuple(range(self.players)) if hidden else (),
            turn=self.first,
            last="the stocks are dealt",
        )
        w = _Work(s)
        self._refill(w, HAND)
        return w.freeze()

    # ---- flow ---------------------------------------------------------------------
    def to_move(self, state: SkipBoState) -> int:
        """Return the seat on turn, or :data:`CHANCE` while a drawn or turned-up card is unseen."""
        if state.phase == "play" and (state.owed or state.turn_up):
            return CHANCE
        return state.turn

    def is_over(self, state: SkipBoState) -> bool:
        """Return whether a player (or team) has emptied their stock, or the game stalled."""
        return state.phase == "over"

    def legal_moves(self, state: SkipBoState) -> list[Move]:
        """Return the legal moves: an unseen card's reveals, else plays, discards, end turn."""
        if state.phase == "over":
            return []
        if state.owed or state.turn_up:
            w = _Work(state)
            w.ensure_draw()
            return [Reveal(c) for c in sorted(set(self._unseen_cards(w)))]
        seat = state.turn
        moves: list[Move] = []
        fits = self._fit_table(state)
        for owner in self.team(seat) if self.teams else (seat,):
            own = None if owner == seat else owner
            stock = state.stocks[owner]
            if stock:
                moves += [Play("stock", stock[-1], p, 0, own) for p in fits[value(stock[-1])]]
            for i, pile in enumerate(state.discards[owner]):
                if pile:
                    moves += [Play("discard", pile[-1], p, i, own) for p in fits[value(pile[-1])]]
        hand = state.hands[seat]
        # cards are canonical objects (see __init__), so identity finds the distinct ones fast
        distinct = list({id(c): c for c in hand}.values())
        for c in distinct:
            moves += [Play("hand", c, p) for p in fits[value(c)]]
        for c in distinct:
            moves += [Discard(c, p) for p in range(PILES)]
        if not hand:
            moves.append(EndTurn())
        return moves

    @staticmethod
    def _fit_table(state: SkipBoState) -> list[list[int]]:
        """Return, for each value 0–12, the building piles a card of that value fits on."""
        fits: list[list[int]] = [[] for _ in range(TOP + 1)]
        for p, pile in enumerate(state.building):
            fits[len(pile) + 1].append(p)
        fits[0] = list(range(PILES))
        return fits

    @staticmethod
    def _fits(card: Card, sizes: list[int]) -> list[int]:
        v = value(card)
        return [p for p, n in enumerate(sizes) if v == 0 or v == n + 1]

    # ---- checking -----------------------------------------------------------------
    def check(self, state: SkipBoState, move: Move) -> None:
        """Raise :class:`IllegalMove` with a reason if ``move`` is not legal now."""
        if isinstance(move, TableTalkPenalty):
            return self._check_penalty(state, move)
        if state.phase == "over":
            raise IllegalMove("the game is over")
        if isinstance(move, Reveal):
            if not (state.owed or state.turn_up):
                raise IllegalMove("no card is being drawn or turned up now")
            if not isinstance(move.card, Card):
                raise IllegalMove(f"a revealed card must be a card, not {move.card!r}")
            w = _Work(state)
            w.ensure_draw()
            if move.card not in self._unseen_cards(w):
                raise IllegalMove(f"{move.card} cannot be drawn: no unseen {move.card} is left")
            return None
        if not isinstance(move, Play | Discard | EndTurn):
            raise IllegalMove(f"{move!r} is not a Skip-Bo move")
        if state.owed or state.turn_up:
            what = "turned up" if state.turn_up else "drawn"
            raise IllegalMove(f"first say which card was {what}")
        seat = state.turn
        if move.seat is not None and move.seat != seat:
            raise IllegalMove(f"it is seat {seat}'s turn, not seat {move.seat}'s")
        hand = state.hands[seat]
        if isinstance(move, EndTurn):
            if hand:
                raise IllegalMove(
                    f"the turn ends with a discard: put one of your {len(hand)} hand cards"
                    " onto a discard pile"
                )
            return None
        if not isinstance(move.card, Card):
            raise IllegalMove(f"the card must be a card code, not {move.card!r}")
        if not isinstance(move.pile, int) or not 0 <= move.pile < PILES:
            kind = "discard" if isinstance(move, Discard) else "building"
            raise IllegalMove(f"there is no {kind} pile {move.pile!r}: piles are 0–3")
        if isinstance(move, Discard):
            if move.card not in hand:
                raise IllegalMove(f"{move.card} is not in your hand")
            return None
        # a play
        if move.source not in SOURCES:
            raise IllegalMove(
                f"unknown source {move.source!r}: play from the stock, the hand or a discard pile"
            )
        owner = seat if move.owner is None else move.owner
        if owner != seat:
            if not self.teams or owner != self.partner(seat):
                raise IllegalMove(
                    f"seat {seat} may play only from their own stock and discard piles"
                    + (" and their partner's" if self.teams else "")
                )
            if move.source == "hand":
                raise IllegalMove("you may play only from your own hand")
        whose = "your" if owner == seat else "your partner's"
        if move.source == "stock":
            stock = state.stocks[owner]
            if not stock:
                raise IllegalMove(f"{whose} stock is empty")
            if stock[-1] != move.card:
                raise IllegalMove(f"the top of {whose} stock is {stock[-1]}, not {move.card}")
        elif move.source == "hand":
            if move.card not in hand:
                raise IllegalMove(f"{move.card} is not in your hand")
        else:
            if not isinstance(move.index, int) or not 0 <= move.index < PILES:
                raise IllegalMove(f"there is no discard pile {move.index!r}: piles are 0–3")
            pile = state.discards[owner][move.index]
            if not pile:
                raise IllegalMove(f"{whose} discard pile {move.index + 1} is empty")
            if pile[-1] != move.card:
                raise IllegalMove(
                    f"the top of {whose} discard pile {move.index + 1} is {pile[-1]},"
                    f" not {move.card}"
                )
        v = value(move.card)
        stands = len(state.building[move.pile])
        if v != 0 and v != stands + 1:
            if stands == 0:
                raise IllegalMove(
                    f"{move.card} cannot start building pile {move.pile + 1}:"
                    " a new pile needs a 1 or a wild"
                )
            raise IllegalMove(
                f"{move.card} does not fit on building pile {move.pile + 1}: it stands at {stands}"
            )
        return None

    def _check_penalty(self, state: SkipBoState, move: TableTalkPenalty) -> None:
        if not self.teams:
            raise IllegalMove("the table-talk penalty applies to team play only")
        if state.phase == "over":
            raise IllegalMove("the game is over")
        if not isinstance(move.seat, int) or not 0 <= move.seat < self.players:
            raise IllegalMove(f"there is no seat {move.seat!r}: seats are 0–{self.players - 1}")
        if not state.draw and not state.done:
            # taken as a no-op, it was logged as "takes 0 cards"
            raise IllegalMove("the draw pile is empty: there are no cards to take as a penalty")

    # ---- applying -----------------------------------------------------------------
    def apply(self, state: SkipBoState, move: Move) -> SkipBoState:
        """Return the state after ``move`` (checked first); ``state`` is left as it was."""
        self.check(state, move)
        w = _Work(state)
        if isinstance(move, Play):
            self._play(w, move)
        elif isinstance(move, Discard):
            seat = w.turn
            hand = list(w.hands[seat])
            card = hand.pop(hand.index(move.card))
            w.hands[seat] = tuple(hand)
            piles = list(w.discards[seat])
            piles[move.pile] = (*piles[move.pile], card)
            w.discards[seat] = tuple(piles)
            w.last = f"seat {seat} discards {move.card} onto discard pile {move.pile + 1}"
            self._end_turn(w)
        elif isinstance(move, EndTurn):
            w.last = f"seat {w.turn} ends the turn with an empty hand"
            self._end_turn(w)
        elif isinstance(move, Reveal):
            self._reveal(w, move.card)
        elif isinstance(move, TableTalkPenalty):
            self._penalty(w, move.seat)
            self._settle_hidden(w)  # it may take the last cards a draw was owed from
        return w.freeze()

    def _play(self, w: _Work, move: Play) -> None:
        seat = w.turn
        owner = seat if move.owner is None else move.owner
        whose = "" if owner == seat else f"seat {owner}'s "
        # the card objects move from pile to pile (the move's card only names them)
        if move.source == "stock":
            card = w.stocks[owner][-1]
            w.stocks[owner] = w.stocks[owner][:-1]
            src = f"{whose}stock"
        elif move.source == "hand":
            hand = list(w.hands[seat])
            card = hand.pop(hand.index(move.card))
            w.hands[seat] = tuple(hand)
            src = "hand"
        else:
            piles = list(w.discards[owner])
            card = piles[move.index][-1]
            piles[move.index] = piles[move.index][:-1]
            w.discards[owner] = tuple(piles)
            src = f"{whose}discard pile {move.index + 1}"
        pile = (*w.building[move.pile], card)
        w.played = True
        w.last = f"seat {seat} plays {move.card} from {src} onto building pile {move.pile + 1}"
        if len(pile) == TOP:
            w.done = w.done + pile
            pile = ()
            w.last += ", which reaches 12 and is set aside"
        else:
            w.last += f" ({len(pile)})"
        w.building[move.pile] = pile
        if move.source == "stock":
            team = self.team(owner)
            if all(not w.stocks[s] for s in team):
                w.phase, w.winners = "over", team
                w.last += f"; {self._names(team)} won"
                return
            if w.hidden and w.stocks[owner]:
                w.turn_up = (*w.turn_up, owner)
        if move.source == "hand" and not w.hands[seat]:
            self._refill(w, HAND)

    def _names(self, seats: tuple[int, ...]) -> str:
        return " and ".join(f"seat {s}" for s in seats)

    def _end_turn(self, w: _Work) -> None:
        nothing_to_draw = not w.draw and not w.done
        w.idle = w.idle + 1 if (nothing_to_draw and not w.played) else 0
        if w.idle >= self.players:
            w.last += "; a full round passed without a play and nothing to draw: game over"
            self._stall(w)
            return
        w.turn = (w.turn + 1) % self.players
        w.turns += 1
        w.played = False
        self._refill(w, HAND - len(w.hands[w.turn]))

    def _stall(self, w: _Work) -> None:
        """End a game that cannot go on; the fewest stock cards (per team) wins."""
        left = {
            t: sum(len(w.stocks[s]) for s in t) for t in {self.team(s) for s in range(self.players)}
        }
        fewest = min(left.values())
        w.phase, w.stalled = "over", True
        w.winners = tuple(sorted(s for t, n in left.items() if n == fewest for s in t))

    def _refill(self, w: _Work, n: int) -> None:
        """Let the player on turn draw ``n`` cards (owed until revealed at a real table)."""
        if n <= 0:
            return
        if w.hidden:
            w.owed += n
            self._settle_hidden(w)
            return
        seat = w.turn
        drawn = []
        for _ in range(n):
            if not w.ensure_draw():
                break
            drawn.append(w.draw[-1])
            w.draw = w.draw[:-1]
        w.hands[seat] = w.hands[seat] + tuple(drawn)
        if len(drawn) < n and self.empty_draw == "end":
            w.last += "; the draw pile is used up: game over"
            self._stall(w)

    def _settle_hidden(self, w: _Work) -> None:
        """Cancel owed draws that cannot happen (nothing left to draw)."""
        if w.owed and not w.ensure_draw():
            w.owed = 0
            if self.empty_draw == "end":
                w.last += "; the draw pile is used up: game over"
                self._stall(w)

    def _unseen_cards(self, w: _Work) -> list[Card]:
        cards = list(w.draw)
        for s, stock in enumerate(w.stocks):
            cards += stock if s in w.turn_up else stock[:-1]
        return cards

    def _reveal(self, w: _Work, card: Card) -> None:
        w.ensure_draw()
        if w.turn_up:
            seat, w.turn_up = w.turn_up[0], w.turn_up[1:]
            self._swap_into(w, card, "stock", seat)
            w.last = f"seat {seat}'s stock turns up {card}"
            return
        self._swap_into(w, card, "draw", 0)
        w.hands[w.turn] = (*w.hands[w.turn], w.draw[-1])
        w.draw = w.draw[:-1]
        w.owed -= 1
        w.last = f"seat {w.turn} draws a card"  # public text: never name a hand card
        self._settle_hidden(w)

    def _swap_into(self, w: _Work, card: Card, where: str, seat: int) -> None:
        """Make ``card`` the top of the draw pile or a stock by swapping it with an unseen card."""
        top = w.draw[-1] if where == "draw" else w.stocks[seat][-1]
        if top == card:
            return
        draw = list(w.draw)
        if card in draw:
            i = draw.index(card)
            found, draw[i] = draw[i], top
            w.draw = tuple(draw)
        else:
            for s, stock in enumerate(w.stocks):
                whole = s in w.turn_up or (where == "stock" and s == seat)
                unseen = stock if whole else stock[:-1]
                if card in unseen:
                    new = list(stock)
                    i = unseen.index(card)
                    found, new[i] = new[i], top
                    w.stocks[s] = tuple(new)
                    break
        if where == "draw":
            w.draw = (*w.draw[:-1], found)
        else:
            w.stocks[seat] = (*w.stocks[seat][:-1], found)

    def _penalty(self, w: _Work, seat: int) -> None:
        taken = []
        for _ in range(2):
            if not w.ensure_draw():
                break
            taken.append(w.draw[-1])
            w.draw = w.draw[:-1]
        stock = w.stocks[seat]
        if stock:
            w.stocks[seat] = (*stock[:-1], *taken, stock[-1])
        else:
            w.stocks[seat] = tuple(taken)
            if w.hidden and taken:
                w.turn_up = (*w.turn_up, seat)
        w.last = (
            f"table talk: seat {seat} takes {len(taken)} cards from the draw pile onto its stock"
        )

    # ---- results ------------------------------------------------------------------
    def scores(self, state: SkipBoState) -> dict[str, Any]:
        """Return winners, points (25 + 5 per card in the opponents' stocks), stock counts."""
        left = {s: len(state.stocks[s]) for s in range(self.players)}
        points = {s: 0 for s in range(self.players)}
        if state.winners:
            opp = sum(n for s, n in left.items() if s not in state.winners)
            for s in state.winners:
                points[s] = (0 if state.stalled else 25) + 5 * opp
        return {
            "winners": list(state.winners),
            "points": points,
            "stock_left": left,
            "stalled": state.stalled,
            "teams": self.teams_list() if self.teams else None,
            "turns": state.turns,
        }

    def new_match(self) -> Match:
        """Return an empty match to this rules' target and seat count."""
        return Match(players=self.players, target=self.match_target)

    # ---- views and JSON -------------------------------------------------------------
    def view(self, state: SkipBoState, seat: int | None) -> dict[str, Any]:
        """Return what ``seat`` may see (``None``: the table): no other hand, no hidden card."""
        if seat is not None and (not isinstance(seat, int) or not 0 <= seat < self.players):
            raise RulesError(f"there is no seat {seat!r}: seats are 0–{self.players - 1}")
        players = []
        for s in range(self.players):
            stock = state.stocks[s]
            turned = bool(stock) and s not in state.turn_up
            players.append(
                {
                    "seat": s,
                    "stock_count": len(stock),
                    "stock_top": stock[-1].code if turned else None,
                    "discards": [[c.code for c in pile] for pile in state.discards[s]],
                    "hand_count": len(state.hands[s]),
                    "partner": self.partner(s),
                }
            )
        return {
            "game": self.name,
            "config": self.config,
            "seat": seat,
            "building": [
                {"value": len(p), "count": len(p), "top": p[-1].code if p else None}
                for p in state.building
            ],
            "players": players,
            "hand": [c.code for c in state.hands[seat]] if seat is not None else None,
            "draw_count": len(state.draw),
            "set_aside_count": len(state.done),
            "turn": state.turn,
            "to_move": self.to_move(state),
            "phase": state.phase,
            "winners": list(state.winners),
            "last": state.last,
            "awaiting_reveal": bool(state.owed or state.turn_up),
        }

    def state_to_json(self, state: SkipBoState) -> dict[str, Any]:
        """Return the whole state as JSON (every hand: not for players; see :meth:`view`)."""

        def codes(cards):
            return [c.code for c in cards]

        return {
            "stocks": [codes(p) for p in state.stocks],
            "hands": [codes(p) for p in state.hands],
            "discards": [[codes(p) for p in piles] for piles in state.discards],
            "building": [codes(p) for p in state.building],
            "done": codes(state.done),
            "draw": codes(state.draw),
            "turn": state.turn,
            "phase": state.phase,
            "winners": list(state.winners),
            "stalled": state.stalled,
            "seed": state.seed,
            "reshuffles": state.reshuffles,
            "idle": state.idle,
            "played": state.played,
            "hidden": state.hidden,
            "owed": state.owed,
            "turn_up": list(state.turn_up),
            "turns": state.turns,
            "last": state.last,
        }

    def state_from_json(self, data: dict[str, Any]) -> SkipBoState:
        """Rebuild a state; raise :class:`RulesError` naming what is malformed."""

        def cards(codes: Any, what: str) -> tuple[Card, ...]:
            if not isinstance(codes, list):
                raise RulesError(f"{what} must be a list of card codes, not {codes!r}")
            try:
                return tuple(parse_card(c) for c in codes)
            except CardError as e:
                raise RulesError(f"{what}: {e}") from None

        if not isinstance(data, dict):
            raise RulesError(f"a Skip-Bo state must be an object, not {type(data).__name__}")
        try:
            n = self.players
            if len(data["stocks"]) != n or len(data["hands"]) != n or len(data["discards"]) != n:
                raise RulesError(
                    f"the state must have stocks, hands and discard piles for {n} seats"
                )
            if len(data["building"]) != PILES or any(len(p) != PILES for p in data["discards"]):
                raise RulesError("the state must have 4 building piles and 4 discard piles a seat")
            state = SkipBoState(
                stocks=tuple(cards(p, f"stock {i}") for i, p in enumerate(data["stocks"])),
                hands=tuple(cards(p, f"hand {i}") for i, p in enumerate(data["hands"])),
                discards=tuple(
                    tuple(cards(p, f"discard pile {i}/{j}") for j, p in enumerate(piles))
                    for i, piles in enumerate(data["discards"])
                ),
                building=tuple(
                    cards(p, f"building pile {i}") for i, p in enumerate(data["building"])
                ),
                done=cards(data["done"], "set-aside cards"),
                draw=cards(data["draw"], "draw pile"),
                turn=int(data["turn"]),
                phase=str(data["phase"]),
                winners=tuple(int(s) for s in data["winners"]),
                stalled=bool(data["stalled"]),
                seed=int(data["seed"]),
                reshuffles=int(data["reshuffles"]),
                idle=int(data["idle"]),
                played=bool(data["played"]),
                hidden=bool(data["hidden"]),
                owed=int(data["owed"]),
                turn_up=tuple(int(s) for s in data["turn_up"]),
                turns=int(data["turns"]),
                last=str(data["last"]),
            )
        except KeyError as e:
            raise RulesError(f"the Skip-Bo state lacks {e.args[0]!r}") from None
        except (TypeError, ValueError) as e:
            if isinstance(e, RulesError):
                raise
            raise RulesError(f"malformed Skip-Bo state: {e}") from None
        problems = self.invariant_violations(state)
        if problems:
            raise RulesError(f"inconsistent Skip-Bo state: {problems[0]}")
        return state

    # ---- invariants -------------------------------------------------------------------
    def invariant_violations(self, state: SkipBoState) -> list[str]:
        """Return broken invariants: cards lost or created, bad piles, hands over five…"""
        out = []
        everything = [*state.draw, *state.done]
        for s in range(len(state.stocks)):
            everything += state.stocks[s]
            everything += state.hands[s]
            for pile in state.discards[s]:
                everything += pile
        for pile in state.building:
            everything += pile
        # comparing identities is fast; count by value only to explain a mismatch
        if sorted(map(id, everything)) != self._deck_ids and (
            (seen := Counter(everything)) != self._deck_counts
        ):
            extra = seen - self._deck_counts
            missing = self._deck_counts - seen
            out.append(
                "cards not accounted for exactly once:"
                f" extra {sorted(c.code for c in extra.elements())},"
                f" missing {sorted(c.code for c in missing.elements())}"
            )
        if len(state.building) != PILES:
            out.append(f"{len(state.building)} building piles instead of 4")
        for i, pile in enumerate(state.building):
            if len(pile) >= TOP:
                out.append(f"building pile {i + 1} holds {len(pile)} cards; 12 is set aside")
            for k, c in enumerate(pile):
                if value(c) not in (0, k + 1):
                    out.append(f"building pile {i + 1} has {c} at height {k + 1}")
        if len(state.done) % TOP:
            out.append(f"{len(state.done)} set-aside cards is not a number of whole piles")
        for s, hand in enumerate(state.hands):
            if len(hand) > HAND:
                out.append(f"seat {s} holds {len(hand)} cards")
        if not 0 <= state.turn < self.players:
            out.append(f"turn {state.turn} is no seat")
        if state.phase not in ("play", "over"):
            out.append(f"unknown phase {state.phase!r}")
        seats = range(self.players)
        if (state.phase == "over") != bool(state.winners) or any(
            s not in seats for s in state.winners
        ):
            out.append(f"winners {list(state.winners)} in a game whose phase is {state.phase!r}")
        # what is still to be drawn or turned up (a real table only) must be possible
        if state.turn_up and (
            not state.hidden
            or len(set(state.turn_up)) != len(state.turn_up)
            or any(s not in seats or not state.stocks[s] for s in state.turn_up)
        ):
            out.append(f"turn_up {list(state.turn_up)} names no stock waiting to turn up")
        if state.owed and (
            not state.hidden
            or state.owed < 0
            or not (state.draw or state.done)  # such a draw is cancelled
            or (0 <= state.turn < self.players and len(state.hands[state.turn]) + state.owed > HAND)
        ):
            out.append(f"owed {state.owed}: no such draw is due")
        return out

    # ---- advice -------------------------------------------------------------------------
    def hint(self, state: SkipBoState, seat: int) -> Hint:
        """Plan the turn for ``seat`` from what it may see; return the first move and the plan."""
        from referee.skipbo_hint import plan_hint

        return plan_hint(self, state, seat)

    def greedy_move(self, state: SkipBoState, rng: random.Random) -> Move:
        """Play the stock, else a non-wild discard top or hand card, else discard sensibly."""
        if self.to_move(state) == CHANCE:
            return self.chance_move(state, rng)
        seat = state.turn
        sizes = [len(p) for p in state.building]
        stock = state.stocks[seat]
        if stock:
            fits = self._fits(stock[-1], sizes)
            if fits:
                return Play("stock", stock[-1], fits[0])
        for i, pile in enumerate(state.discards[seat]):
            if pile and value(pile[-1]):
                fits = self._fits(pile[-1], sizes)
                if fits:
                    return Play("discard", pile[-1], fits[0], index=i)
        hand = state.hands[seat]
        for c in hand:
            if value(c):
                fits = self._fits(c, sizes)
                if fits:
                    return Play("hand", c, fits[0])
        if not hand:
            return EndTurn()
        c = max(hand, key=value)
        tops = [value(p[-1]) if p else None for p in state.discards[seat]]
        v = value(c)
        for want in (v, None):
            if want in tops:
                return Discard(c, tops.index(want))
        return Discard(c, 0)

    def chance_move(self, state: SkipBoState, rng: random.Random) -> Move:
        """Sample the revealed card, each unseen physical card equally likely."""
        w = _Work(state)
        w.ensure_draw()
        return Reveal(rng.choice(self._unseen_cards(w)))


# ---- matches ---------------------------------------------------------------------------
def _whole(x: Any) -> bool:
    """Return whether ``x`` is a whole number (JSON's true is not one)."""
    return isinstance(x, int) and not isinstance(x, bool)


@dataclass(frozen=True)
class Match:
    """A match over several games: points add up until someone reaches the target."""

    players: int
    target: int = 500
    totals: tuple[int, ...] = ()
    games: tuple[tuple[int, ...], ...] = field(default=())

    def __post_init__(self):
        if not _whole(self.players) or self.players < 1:
            raise RulesError(f"a match needs at least one player, not {self.players!r}")
        if not _whole(self.target) or self.target < 1:
            raise RulesError(f"the match target must be a positive number, not {self.target!r}")
        if any(len(g) != self.players for g in self.games):
            raise RulesError(f"a match of {self.players} players needs their points in every game")
        if not self.totals:
            object.__setattr__(self, "totals", (0,) * self.players)
        if len(self.totals) != self.players:
            raise RulesError(f"a match of {self.players} players needs {self.players} totals")

    def add(self, scores: dict[str, Any]) -> Match:
        """Return the match with one more game's ``scores()["points"]`` added."""
        if self.is_over:
            raise RulesError(f"the match is over: {self.winners} reached {self.target}")
        points = scores.get("points") if isinstance(scores, dict) else None
        if not isinstance(points, dict):
            raise RulesError("a game's scores must have 'points' by seat")
        game: tuple[Any, ...] = tuple(  # JSON values until checked below
            points.get(s, points.get(str(s), 0)) for s in range(self.players)
        )
        for p in game:
            if not _whole(p) or p < 0:
                raise RulesError(f"a game's points must be whole numbers of 0 or more, not {p!r}")
        totals = tuple(a + b for a, b in zip(self.totals, game, strict=True))
        return Match(self.players, self.target, totals, (*self.games, game))

    @property
    def winners(self) -> list[int]:
        """Return the seats with the highest total once it reaches the target (else [])."""
        best = max(self.totals)
        if best < self.target:
            return []
        return [s for s, t in enumerate(self.totals) if t == best]

    @property
    def is_over(self) -> bool:
        """Return whether a seat has reached the target."""
        return bool(self.winners)

    def to_json(self) -> dict[str, Any]:
        """Return the match as JSON, its winners included."""
        return {
            "players": self.players,
            "target": self.target,
            "totals": list(self.totals),
            "games": [list(g) for g in self.games],
            "winners": self.winners,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Match:
        """Rebuild a match; raise :class:`RulesError` if malformed."""
        try:
            return cls(
                int(data["players"]),
                int(data["target"]),
                tuple(int(t) for t in data["totals"]),
                tuple(tuple(int(p) for p in g) for g in data["games"]),
            )
        except (KeyError, TypeError, ValueError) as e:
            if isinstance(e, RulesError):
                raise
            raise RulesError(f"malformed match: {e!r}") from None

"""Stigespill: Norwegian snakes and ladders laid out with a deck of cards.

The road is the 28 cards 7–K in the order they lie on the table; the goal is a joker after
the last road card. Positions: 0 is the start (just before the first road card), 1–28 are
the road cards, 29 is the goal. The die pile is A–6 of every suit plus one joker (25
cards); A counts 1 … 6 counts 6. A token that ends its move on a face card jumps at once to
the card of the same rank in the twin-colour suit (♠↔♣, ♥↔♦): a ladder when that lies
ahead, a snake when it lies behind. No chained jumps. The goal must be reached exactly: an
overshoot walks into the goal and back out the remaining steps.

Chance is explicit. A turn is the player's ``Draw`` (or, in the strategy variant, a
``Play`` of a hand card); after a draw the seat on turn is :data:`CHANCE` and the legal
moves are ``Reveal(card)`` for every card in the die pile. The die cards are all distinct,
so the pile is kept as a set (in a fixed order): shuffling is moving cards into it. The
joker never leaves the pile: drawing it moves the discard pile back in and the player
draws again. In the strategy variant the deal is chance too: three ``Reveal`` moves per
seat, round by round, the joker never dealt (at a table it is swapped for the next card and
shuffled back, which leaves every non-joker equally likely).

House rules where the issue leaves room: a solo player runs two tokens by default (up to
ten), each token a seat with its own hand in the strategy variant; the strategy variant
seats at most eight (three cards each from the 24 non-jokers); a draw is refused when every
non-joker is in a hand (only possible with eight seats), so the player plays a hand card.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import math
import random
import zlib
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar

from referee.cards import JOKER, SUITS, Card, CardError, parse_card, split_codes
from referee.core import CHANCE, Hint, IllegalMove, Move, Rules, RulesError

ROAD_RANKS = ("7", "8", "9", "10", "J", "Q", "K")
DIE_RANKS = ("A", "2", "3", "4", "5", "6")
ROAD_LENGTH = 28
START = 0
GOAL = ROAD_LENGTH + 1
HAND_SIZE = 3
MIN_PLAYERS = 1  # a solo player runs two or more tokens
MAX_SEATS = 10  # players, or a solo player's tokens
MAX_STRATEGY_SEATS = 8
VARIANTS = ("classic", "strategy")

ROAD_CARDS: tuple[Card, ...] = tuple(Card("std", r, s) for s in SUITS for r in ROAD_RANKS)
"""The 28 road cards in a fixed order (suit by suit, 7…K)."""
DIE_CARDS: tuple[Card, ...] = (*tuple(Card("std", r, s) for s in SUITS for r in DIE_RANKS), JOKER)
"""The 25 die cards in the fixed order the die pile is kept in: A–6 of each suit, the joker."""
_DIE_ORDER = {c: i for i, c in enumerate(DIE_CARDS)}
_DIE_SET = frozenset(DIE_CARDS)
_ID_ORDER = {id(c): i for i, c in enumerate(DIE_CARDS)}


def _die_card(code: str) -> Card:
    """Return the canonical card object for a code (unknown or road cards parse as they are)."""
    c = parse_card(code)
    i = _DIE_ORDER.get(c)
    return c if i is None else DIE_CARDS[i]


_ROAD_SET = frozenset(ROAD_CARDS)

# Layout advice: 12 face cards split the 29 steps from start to goal into 13 gaps.
FACE_COUNT = 12
IDEAL_GAP = GOAL / (FACE_COUNT + 1)
CLUSTER_LIMIT = 1.2
"""Unevenness (RMS gap error, in road cards) above which the face cards count as clustered."""
FACE_RUN_LIMIT = 3
"""More face cards in a row than this count as clustered too: gaps of 1 weigh little in the
RMS (five in a row, the other gaps even, measure 0.89)."""

# Hints: Monte Carlo rollouts per option. A token's turns to finish spread widely (snakes):
# at the start of a road the mean over 300 sampled piles still moved by 1.8 turns (one
# standard deviation) from seed to seed, and the hint said 28.3 turns where the mean is 25.6.
# Over 1000 the spread is about 1.0 (18 ms; 2000 gave 0.4 but doubled the web's update
# latency at ten busy tables). A hand's options share their sampled piles, so comparing
# them is steadier than their figures.
HINT_SAMPLES = 400
CLASSIC_HINT_SAMPLES = 1000
# The rollout plays a hand card when it saves at least this many expected turns over a draw.
ROLLOUT_PLAY_GAIN = 0.5
ROLLOUT_CAP = 300


# ---- moves -------------------------------------------------------------------------
@dataclass(frozen=True)
class Draw(Move):
    """Draw the top die card (the card itself is revealed by the next, chance, move)."""

    kind: ClassVar[str] = "draw"
    seat: int | None = None


@dataclass(frozen=True)
class Play(Move):
    """Strategy variant: move by a hand card instead of drawing."""

    kind: ClassVar[str] = "play"
    card: Card
    seat: int | None = None


@dataclass(frozen=True)
class Reveal(Move):
    """Chance: the die card that came off the pile (drawn, or dealt to a hand)."""

    kind: ClassVar[str] = "reveal"
    card: Card


# ---- state ---------------------------------------------------------------------------
@dataclass(frozen=True)
class Step:
    """One token's move: where it started, the card it landed on, and where it ended."""

    seat: int
    card: Card
    start: int
    landed: int
    end: int
    bounced: bool
    jump: str  # "", "ladder" or "snake"

    def to_json(self) -> dict[str, Any]:
        """Return the step as JSON."""
        return {
            "seat": self.seat,
            "card": self.card.code,
            "start": self.start,
            "landed": self.landed,
            "end": self.end,
            "bounced": self.bounced,
            "jump": self.jump,
        }


@dataclass(frozen=True)
class StigeState:
    """An immutable Stigespill position.

    ``die`` is the unordered die pile kept in :data:`DIE_CARDS` order (the joker always in
    it); ``discard`` has its top last; ``hands`` is empty per seat in the classic variant.
    ``pending`` is ``"deal"`` or ``"draw"`` while chance must reveal a card, else ``None``.
    """

    road: tuple[Card, ...]
    positions: tuple[int, ...]
    die: tuple[Card, ...]
    discard: tuple[Card, ...]
    hands: tuple[tuple[Card, ...], ...]
    turn: int = 0
    pending: str | None = None
    last: str = ""
    step: Step | None = None
    winner: int | None = None
    turns: int = 0
    moves: int = 0


# ---- road: movement, check and layout ---------------------------------------------------
def _value(c: Card) -> int:
    """Return a die card's step count (A=1 … 6=6); 0 for the joker."""
    return 0 if c.is_joker else c.rank_value


def _twin_positions(road: tuple[Card, ...]) -> tuple[int, ...]:
    """Return for each position 0..29 the position it jumps to (itself when no jump)."""
    where = {c: i + 1 for i, c in enumerate(road)}
    out = list(range(GOAL + 1))
    for i, c in enumerate(road):
        if c.is_face:
            assert c.suit is not None, "a face card is a standard card"
            out[i + 1] = where[Card("std", c.rank, c.suit.twin)]
    return tuple(out)


_TABLES: dict[int, tuple[tuple[Card, ...], tuple, tuple]] = {}


def _tables(road: tuple[Card, ...]) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]]:
    """Return (jump, dest): jump target per position and ``dest[pos][steps]`` after jumps."""
    # Keyed by identity: a state's road is one tuple shared by every later state, and
    # hashing 28 cards on every move would cost more than the move itself.
    hit = _TABLES.get(id(road))
    if hit is not None and hit[0] is road:
        return hit[1], hit[2]
    jump = _twin_positions(road)
    dest = []
    for pos in range(GOAL + 1):
        row = [pos]
        for steps in range(1, 7):
            landed, _ = _walk(pos, steps)
            row.append(jump[landed])
        dest.append(tuple(row))
    if len(_TABLES) >= 256:
        _TABLES.clear()
    _TABLES[id(road)] = (road, jump, tuple(dest))
    return jump, tuple(dest)


_ROAD_PROBLEMS: dict[int, tuple[tuple[Card, ...], bool]] = {}


def _checked_road(road: tuple[Card, ...]) -> bool:
    """Return True when ``road`` is not the 28 road cards once each (cached by identity)."""
    hit = _ROAD_PROBLEMS.get(id(road))
    if hit is not None and hit[0] is road:
        return hit[1]
    bad = len(road) != ROAD_LENGTH or set(road) != _ROAD_SET
    if len(_ROAD_PROBLEMS) >= 256:
        _ROAD_PROBLEMS.clear()
    _ROAD_PROBLEMS[id(road)] = (road, bad)
    return bad


def _walk(pos: int, steps: int) -> tuple[int, bool]:
    """Return (landing position, bounced) for ``steps`` forward with the exact-goal bounce."""
    target = pos + steps
    if target > GOAL:
        return 2 * GOAL - target, True
    return target, False


def _road_cards(road: Any) -> tuple[Card, ...]:
    """Return a checked road as cards, or raise :class:`RulesError` naming its problems."""
    problems = check_road(road)
    if problems:
        raise RulesError("bad road: " + "; ".join(problems))
    items = _split_codes(road)
    return tuple(c if isinstance(c, Card) else parse_card(c) for c in items)


def _split_codes(road: Any) -> list:
    return split_codes(road) if isinstance(road, str) else list(road)


def check_road(codes: Any) -> list[str]:
    """Return the problems with a road in road order; empty when it is 7–K, each once."""
    if not isinstance(codes, str | list | tuple):
        return [f"a road is a list of 28 card codes, not {type(codes).__name__}"]
    items = _split_codes(codes)
    problems: list[str] = []
    seen: dict[Card, list[int]] = {}
    for i, item in enumerate(items, start=1):
        try:
            c = item if isinstance(item, Card) else parse_card(item)
        except CardError as e:
            problems.append(f"road card {i}: {e}")
            continue
        if c.is_joker:
            problems.append(f"road card {i} is a joker: the joker is the goal, not a road card")
        elif c not in _ROAD_SET:
            problems.append(f"road card {i} is {c.pretty}: only 7–K belong on the road")
        else:
            seen.setdefault(c, []).append(i)
    for c in ROAD_CARDS:
        places = seen.get(c, [])
        if len(places) > 1:
            at = ", ".join(str(p) for p in places)
            problems.append(f"{c.pretty} appears {len(places)} times (road cards {at})")
    missing = [c.pretty for c in ROAD_CARDS if c not in seen]
    if missing:
        problems.append(f"missing: {', '.join(missing)}")
    if len(items) != ROAD_LENGTH:
        cards = "1 card" if len(items) == 1 else f"{len(items)} cards"
        problems.append(f"the road has {cards}, not {ROAD_LENGTH}")
    return problems


def _gaps(face_positions: list[int]) -> list[int]:
    marks = [START, *face_positions, GOAL]
    return [b - a for a, b in itertools.pairwise(marks)]


def _unevenness(gaps: list[int]) -> float:
    return math.sqrt(sum((g - IDEAL_GAP) ** 2 for g in gaps) / len(gaps))


def _longest_face_run(road: tuple[Card, ...]) -> int:
    best = run = 0
    for c in road:
        run = run + 1 if c.is_face else 0
        best = max(best, run)
    return best


EVEN_FACE_POSITIONS: tuple[int, ...] = tuple(round((i + 1) * IDEAL_GAP) for i in range(FACE_COUNT))
"""Road positions (1-based) that spread the 12 face cards evenly: 2, 4, 7, 9, 11, …, 27."""


def even_order(road: Any) -> list[str]:
    """Return the road re-laid with face cards at evenly spaced places, both orders kept."""
    cards = _road_cards(road)
    faces = [c for c in cards if c.is_face]
    numbers = [c for c in cards if not c.is_face]
    out: list[Card] = []
    for pos in range(1, ROAD_LENGTH + 1):
        out.append(faces.pop(0) if pos in EVEN_FACE_POSITIONS else numbers.pop(0))
    return [c.code for c in out]


def nearest_even_order(road: Any) -> list[str]:
    """Return the road re-laid so its face cards no longer cluster, moving the fewest cards.

    The number cards and the face cards each keep their order (every ladder stays a ladder,
    every snake a snake), so a card keeps its place only where as many face cards lie before
    it as before. Among the places for the 12 face cards that count as spread (unevenness at
    most ``CLUSTER_LIMIT``, at most ``FACE_RUN_LIMIT`` in a row), the one that keeps the most
    cards in place wins (then the more even). A search over the road's places: each state is
    the face cards laid so far, where the last lies and how many lie in a row there; each
    keeps, per number of cards kept, the least squared gap error so far.
    """
    cards = _road_cards(road)
    faces = [i for i, c in enumerate(cards, start=1) if c.is_face]
    numbers = [i for i, c in enumerate(cards, start=1) if not c.is_face]
    budget = len(_gaps(faces)) * CLUSTER_LIMIT**2 + 1e-9  # the summed squared error allowed
    Key = tuple[int, int, int]  # face cards so far, the last one's place, face cards in a row
    # state → cards kept → (squared error so far, state before, kept before)
    layers: list[dict[Key, dict[int, tuple[float, Key | None, int]]]] = [
        {(0, START, 0): {0: (0.0, None, 0)}}
    ]
    for pos in range(1, ROAD_LENGTH + 1):
        layer: dict[Key, dict[int, tuple[float, Key | None, int]]] = {}
        for (f, last, run), by_kept in layers[-1].items():
            steps = []
            if f < FACE_COUNT and run < FACE_RUN_LIMIT:  # a face card here
                error = (pos - last - IDEAL_GAP) ** 2
                steps.append(((f + 1, pos, run + 1), error, faces[f] == pos))
            if ROAD_LENGTH - pos >= FACE_COUNT - f:  # a number card here
                steps.append(((f, last, 0), 0.0, numbers[pos - 1 - f] == pos))
            for key, error, kept in steps:
                into = layer.setdefault(key, {})
                for n, (total, _, _) in by_kept.items():
                    cost = total + error
                    if cost <= budget and cost < into.get(n + kept, (math.inf,))[0]:
                        into[n + kept] = (cost, (f, last, run), n)
        layers.append(layer)
    best = None
    for (f, last, run), by_kept in layers[-1].items():
        for n, (total, _, _) in by_kept.items():
            cost = total + (GOAL - last - IDEAL_GAP) ** 2
            if f == FACE_COUNT and cost <= budget and (best is None or (n, -cost) > best[:2]):
                best = (n, -cost, (f, last, run))
    if best is None:  # cannot happen (the even places always fit): lay them evenly
        return even_order(cards)
    n, _, key = best
    at: set[int] = set()  # the face cards' places, traced back
    for pos in range(ROAD_LENGTH, 0, -1):
        _, before, n_before = layers[pos][key][n]
        assert before is not None, "only the first layer, never traced back to, has none before"
        if key[0] > before[0]:
            at.add(pos)
        key, n = before, n_before
    face_cards = [c for c in cards if c.is_face]
    number_cards = [c for c in cards if not c.is_face]
    return [
        (face_cards if pos in at else number_cards).pop(0).code for pos in range(1, ROAD_LENGTH + 1)
    ]


def layout_advice(road: Any) -> dict[str, Any]:
    """Measure how evenly the face cards are spread and propose a better order when they cluster.

    The 12 face cards cut the 29 steps from start to goal into 13 gaps; the measure
    ``unevenness`` is the root-mean-square difference between those gaps and the ideal
    29/13 ≈ 2.23 (an even road scores 0.42, a shuffled one about 1.4). Above 1.2, or with
    more than 3 face cards in a row, the road counts as clustered (about 82% of shuffled
    roads; 79% by the measure alone), and ``proposed_road`` is the road spread out with the
    fewest cards moved (:func:`nearest_even_order`; on clustered shuffles 23 of the 28 cards
    stay on average, against 6 when the face cards go to the evenly spaced places 2, 4, 7,
    …, 27), the number cards and the face cards each in their present order — so every
    ladder stays a ladder and every snake a snake. ``moved`` lists the cards to move as
    ``[code, from, to]`` (places 1–28).
    """
    cards = _road_cards(road)
    faces = [i + 1 for i, c in enumerate(cards) if c.is_face]
    gaps = _gaps(faces)
    score = _unevenness(gaps)
    run = _longest_face_run(cards)
    clustered = score > CLUSTER_LIMIT or run > FACE_RUN_LIMIT
    proposal = nearest_even_order(cards) if clustered else None
    place = {c.code: i for i, c in enumerate(cards, start=1)}
    moved: list[list[Any]] = [  # JSON rows: code, from, to
        [code, place[code], to]
        for to, code in enumerate(proposal or (), start=1)
        if cards[to - 1].code != code
    ]
    best = _unevenness(_gaps(list(EVEN_FACE_POSITIONS)))
    out: dict[str, Any] = {
        "face_positions": faces,
        "gaps": gaps,
        "ideal_gap": round(IDEAL_GAP, 3),
        "unevenness": round(score, 3),
        "limit": CLUSTER_LIMIT,
        "even_unevenness": round(best, 3),
        "largest_gap": max(gaps),
        "longest_face_run": run,
        "run_limit": FACE_RUN_LIMIT,
        "clustered": clustered,
        "proposed_road": proposal,
        "moved": moved,
    }
    if clustered:
        why = (
            f"unevenness {score:.2f}, more than {CLUSTER_LIMIT}; largest gap {max(gaps)}"
            if score > CLUSTER_LIMIT
            else f"unevenness {score:.2f}, largest gap {max(gaps)}"
        )
        out["advice"] = (
            f"The face cards cluster ({why}, {run} face cards in a row). "
            f"Move {len(moved)} cards, keeping both orders: "
            + ", ".join(f"{parse_card(code).pretty} from {a} to {b}" for code, a, b in moved)
            + "."
        )
    else:
        out["advice"] = (
            f"The face cards are spread evenly enough (unevenness {score:.2f}, "
            f"at most {CLUSTER_LIMIT}; at most {FACE_RUN_LIMIT} face cards in a row)."
        )
    return out


# ---- the rules ------------------------------------------------------------------------------
class Stigespill(Rules):
    """Stigespill for 1–10 players (a solo player runs two or more tokens), classic or strategy."""

    name: ClassVar[str] = "stigespill"
    move_types: ClassVar[tuple[type[Move], ...]] = (Draw, Play, Reveal)

    def __init__(
        self,
        players: int = 2,
        variant: str = "classic",
        tokens: int | None = None,
        road: list[str] | None = None,
        first: int = 0,
    ) -> None:
        if isinstance(players, bool) or not isinstance(players, int):
            raise RulesError(f"players must be a whole number, not {players!r}")
        if not MIN_PLAYERS <= players <= MAX_SEATS:
            raise RulesError(
                f"Stigespill is for {MIN_PLAYERS} to {MAX_SEATS} players, not {players}"
            )
        if variant not in VARIANTS:
            raise RulesError(
                f"unknown Stigespill variant {variant!r}; expected one of {', '.join(VARIANTS)}"
            )
        if tokens is not None and (isinstance(tokens, bool) or not isinstance(tokens, int)):
            raise RulesError(f"tokens must be a whole number, not {tokens!r}")
        if players == 1:
            tokens = 2 if tokens is None else tokens
            if not 2 <= tokens <= MAX_SEATS:
                raise RulesError(f"a solo player runs 2 to {MAX_SEATS} tokens, not {tokens}")
            seats = tokens
        else:
            if tokens not in (None, 1):
                raise RulesError(
                    f"with {players} players each runs one token; several tokens ({tokens}) "
                    "are for a solo player"
                )
            seats = players
        if variant == "strategy" and seats > MAX_STRATEGY_SEATS:
            raise RulesError(
                f"the strategy variant deals {HAND_SIZE} die cards to each of {seats} seats, but "
                f"the die pile has only 24 cards besides the joker: at most "
                f"{MAX_STRATEGY_SEATS} seats"
            )
        if isinstance(first, bool) or not isinstance(first, int) or not 0 <= first < seats:
            raise RulesError(f"the first seat must be a seat from 0 to {seats - 1}, not {first!r}")
        self.players = players
        self.variant = variant
        self.seats = seats
        self.first = first  # who begins, and is dealt to first (a table's next game: the next)
        self.road = _road_cards(road) if road is not None else None
        self.config: dict[str, Any] = {"players": players, "variant": variant}
        if players == 1:
            self.config["tokens"] = seats
        if self.road is not None:
            self.config["road"] = [c.code for c in self.road]
        if first:
            self.config["first"] = first

    # ---- naming ----------------------------------------------------------------------
    def codes(self) -> frozenset[str]:
        """Return the codes of the cards this game is played with: one deck and its jokers."""
        return super().codes() | {JOKER.code}

    def seat_name(self, seat: int) -> str:
        """Return how a seat is called: "Player 2", or "Token 2" for a solo player."""
        return f"{'Token' if self.players == 1 else 'Player'} {seat + 1}"

    @staticmethod
    def _place(road: tuple[Card, ...], pos: int) -> str:
        if pos == START:
            return "the start"
        if pos == GOAL:
            return "the goal"
        return f"{road[pos - 1].pretty} (card {pos})"

    # ---- set-up and flow -----------------------------------------------------------------
    def initial_state(self, rng: random.Random) -> StigeState:
        """Return the start: a random road unless one was given, all tokens at the start."""
        if self.road is not None:
            road = self.road
        else:
            cards = list(ROAD_CARDS)
            rng.shuffle(cards)
            road = tuple(cards)
        strategy = self.variant == "strategy"
        return StigeState(
            road=road,
            positions=(START,) * self.seats,
            die=DIE_CARDS,
            discard=(),
            hands=((),) * self.seats,
            turn=self.first,
            pending="deal" if strategy else None,
            last=(
                f"Deal {HAND_SIZE} die cards to each seat (never the joker)"
                if strategy
                else f"{self.seat_name(self.first)} begins"
            ),
        )

    def dealt_to(self, dealt: int) -> int:
        """Return the seat a strategy deal's card goes to when ``dealt`` cards are out: round
        by round, from the seat that begins."""
        return (self.first + dealt) % self.seats

    def to_move(self, state: StigeState) -> int:
        """Return the seat on turn, or :data:`CHANCE` while a card is dealt or drawn."""
        return CHANCE if state.pending else state.turn

    def is_over(self, state: StigeState) -> bool:
        """Return whether a token has reached the goal."""
        return state.winner is not None

    def _can_draw(self, state: StigeState) -> bool:
        return len(state.die) > 1 or bool(state.discard)

    def legal_moves(self, state: StigeState) -> list[Move]:
        """Return the legal moves: the cards a reveal may show, else draw and the hand's cards."""
        if state.winner is not None:
            return []
        if state.pending == "deal":
            return [Reveal(c) for c in state.die if not c.is_joker]
        if state.pending == "draw":
            return [Reveal(c) for c in state.die]
        seat = state.turn
        moves: list[Move] = []
        if self._can_draw(state):
            moves.append(Draw(seat))
        moves += [Play(c, seat) for c in state.hands[seat]]
        return moves

    def chance_move(self, state: StigeState, rng: random.Random) -> Move:
        """Sample the revealed card, each card in the die pile equally likely."""
        if state.pending == "deal":
            return Reveal(rng.choice(state.die[:-1]))  # the joker is last and never dealt
        return Reveal(rng.choice(state.die))

    def check(self, state: StigeState, move: Move) -> None:
        """Raise :class:`IllegalMove` with a reason if ``move`` is not legal now."""
        if state.winner is not None:
            raise IllegalMove(f"the game is over: {self.seat_name(state.winner)} reached the goal")
        if not isinstance(move, Draw | Play | Reveal):
            raise IllegalMove(f"{move!r} is not a Stigespill move (draw, play or reveal)")
        if isinstance(move, Reveal):
            self._check_reveal(state, move)
            return
        if state.pending == "deal":
            raise IllegalMove("the cards are being dealt: reveal the next dealt card first")
        if state.pending == "draw":
            raise IllegalMove(
                f"{self.seat_name(state.turn)} has drawn: reveal the drawn card first"
            )
        seat = move.seat
        if seat is not None:
            if isinstance(seat, bool) or not isinstance(seat, int):
                raise IllegalMove(f"a seat is a number, not {seat!r}")
            if not 0 <= seat < self.seats:
                raise IllegalMove(f"there is no seat {seat}: seats are 0 to {self.seats - 1}")
            if seat != state.turn:
                raise IllegalMove(
                    f"it is {self.seat_name(state.turn)}'s turn, not {self.seat_name(seat)}'s"
                )
        who = self.seat_name(state.turn)
        if isinstance(move, Draw):
            if not self._can_draw(state):
                raise IllegalMove(
                    "every die card but the joker is in a hand: play a hand card instead"
                )
            return
        if self.variant == "classic":
            raise IllegalMove("the classic game has no hands: draw from the die pile")
        if not isinstance(move.card, Card):
            raise IllegalMove(f"{move.card!r} is not a card")
        hand = state.hands[state.turn]
        if move.card not in hand:
            held = " ".join(c.pretty for c in hand) or "empty"
            raise IllegalMove(f"{move.card.pretty} is not in {who}'s hand (hand: {held})")

    def _check_reveal(self, state: StigeState, move: Reveal) -> None:
        c = move.card
        if not isinstance(c, Card):
            raise IllegalMove(f"{c!r} is not a card")
        if not state.pending:
            raise IllegalMove(
                f"no card is being drawn: it is {self.seat_name(state.turn)}'s turn to "
                + ("draw" if self.variant == "classic" else "draw or play a hand card")
            )
        if c not in state.die:
            raise IllegalMove(f"{c.pretty} is not in the die pile")
        if state.pending == "deal" and c.is_joker:
            raise IllegalMove(
                "the joker is never dealt: swap it for the next card and shuffle it back"
            )

    def apply(self, state: StigeState, move: Move) -> StigeState:
        """Return the state after ``move`` (checked first); ``state`` is left as it was."""
        self.check(state, move)
        moves = state.moves + 1
        if isinstance(move, Draw):
            return dataclasses.replace(
                state,
                pending="draw",
                last=f"{self.seat_name(state.turn)} draws from the die pile",
                step=None,
                moves=moves,
            )
        if isinstance(move, Play):
            hand = list(state.hands[state.turn])
            card = hand.pop(hand.index(move.card))  # the state's own card object
            hands = (*state.hands[: state.turn], tuple(hand), *state.hands[state.turn + 1 :])
            return self._advance(state, card, "plays", hands=hands, die=state.die)
        assert isinstance(move, Reveal), "check() lets only draws, plays and reveals through"
        i = state.die.index(move.card)
        card = state.die[i]  # the state's own card object, so identity lookups stay valid
        die = state.die[:i] + state.die[i + 1 :]
        if state.pending == "deal":
            dealt = sum(len(h) for h in state.hands)
            seat = self.dealt_to(dealt)
            dealt_hands = list(state.hands)
            dealt_hands[seat] = tuple(
                sorted((*dealt_hands[seat], card), key=_DIE_ORDER.__getitem__)
            )
            done = dealt + 1 == HAND_SIZE * self.seats
            last = f"A card is dealt to {self.seat_name(seat)}"
            if done:
                last += f"; the deal is done and {self.seat_name(self.first)} begins"
            return dataclasses.replace(
                state,
                die=die,
                hands=tuple(dealt_hands),
                pending=None if done else "deal",
                last=last,
                moves=moves,
            )
        if card.is_joker:
            who = self.seat_name(state.turn)
            pile = sorted((*state.die, *state.discard), key=_DIE_ORDER.__getitem__)
            return dataclasses.replace(
                state,
                die=tuple(pile),
                discard=(),
                last=(
                    f"{who} drew the joker: the die and discard piles are shuffled together "
                    f"into a new die pile ({len(pile)} cards), and {who} draws again"
                ),
                step=None,
                moves=moves,
            )
        return self._advance(state, card, "drew", hands=state.hands, die=die)

    def _advance(
        self,
        state: StigeState,
        card: Card,
        verb: str,
        *,
        hands: tuple[tuple[Card, ...], ...],
        die: tuple[Card, ...],
    ) -> StigeState:
        """Move the token on turn by ``card``, discard it, and pass the turn."""
        seat = state.turn
        start = state.positions[seat]
        landed, bounced = _walk(start, _value(card))
        jump_table, _ = _tables(state.road)
        end = jump_table[landed]
        jump = "" if end == landed else ("ladder" if end > landed else "snake")
        positions = (*state.positions[:seat], end, *state.positions[seat + 1 :])
        who = self.seat_name(seat)
        if end == GOAL:
            text = f"{who} {verb} {card.pretty}: reaches the goal and wins"
        else:
            if bounced:
                move_text = f"walks into the goal and back out {GOAL - landed} to "
            else:
                move_text = "lands on " if jump else "moves to "
            text = f"{who} {verb} {card.pretty}: {move_text}{self._place(state.road, landed)}"
            if jump == "ladder":
                text += f", climbs a ladder to {self._place(state.road, end)}"
            elif jump == "snake":
                text += f", slides down a snake to {self._place(state.road, end)}"
        won = end == GOAL
        return dataclasses.replace(
            state,
            positions=positions,
            die=die,
            discard=(*state.discard, card),
            hands=hands,
            turn=seat if won else (seat + 1) % self.seats,
            pending=None,
            last=text,
            step=Step(seat, card, start, landed, end, bounced, jump),
            winner=seat if won else None,
            turns=state.turns + 1,
            moves=state.moves + 1,
        )

    def scores(self, state: StigeState) -> dict[str, Any]:
        """Return winners, the ranking by distance to the goal (ties share a place), positions."""
        dist = [GOAL - p for p in state.positions]
        ranking = sorted(range(self.seats), key=lambda s: (dist[s], s))
        places = [1 + sum(d < dist[s] for d in dist) for s in range(self.seats)]
        return {
            "winners": [state.winner] if state.winner is not None else [],
            "ranking": ranking,
            "places": places,
            "positions": list(state.positions),
            "distances": dist,
            "turns": state.turns,
        }

    # ---- views and JSON ------------------------------------------------------------
    def road_view(self, road: tuple[Card, ...]) -> list[dict[str, Any]]:
        """Return the road for the web page: each card with its jump target and kind."""
        jump, _ = _tables(road)
        out = []
        for i, c in enumerate(road, start=1):
            target = jump[i] if c.is_face else None
            out.append(
                {
                    "position": i,
                    "code": c.code,
                    "face": c.is_face,
                    "jump_to": target,
                    "jump": None if target is None else ("ladder" if target > i else "snake"),
                }
            )
        return out

    def view(self, state: StigeState, seat: int | None) -> dict[str, Any]:
        """Return what ``seat`` sees: the table, its own hand only, the die pile as a count.

        A solo player owns every token, so with one player every hand is shown.
        """
        if seat is not None and not (isinstance(seat, int) and 0 <= seat < self.seats):
            raise RulesError(f"there is no seat {seat!r}: seats are 0 to {self.seats - 1}")
        on_turn = self.to_move(state)
        out: dict[str, Any] = {
            "game": self.name,
            "variant": self.variant,
            "seat": seat,
            "road": self.road_view(state.road),
            "goal": {"position": GOAL, "code": JOKER.code},
            "tokens": [
                {
                    "seat": s,
                    "name": self.seat_name(s),
                    "position": p,
                    "on": "start"
                    if p == START
                    else "goal"
                    if p == GOAL
                    else state.road[p - 1].code,
                    "distance": GOAL - p,
                }
                for s, p in enumerate(state.positions)
            ],
            "die_pile": len(state.die),
            "discard": [c.code for c in state.discard],
            "hand_sizes": [len(h) for h in state.hands],
            "turn": state.turn,
            "to_move": "chance" if on_turn == CHANCE else on_turn,
            "waiting_for": {"deal": "deal", "draw": "reveal"}.get(state.pending or ""),
            "last_move": state.last,
            "step": state.step.to_json() if state.step else None,
            "winner": state.winner,
            "over": state.winner is not None,
        }
        if self.variant == "strategy":
            out["hand_size"] = HAND_SIZE  # each seat's dealt cards
            if seat is not None:
                out["hand"] = [c.code for c in state.hands[seat]]
            if self.players == 1:
                out["hands"] = [[c.code for c in h] for h in state.hands]
        if seat is not None and on_turn == seat:
            out["legal_moves"] = [m.to_json() for m in self.legal_moves(state)]
        if state.winner is not None:
            out["scores"] = self.scores(state)
        return out

    def state_to_json(self, state: StigeState) -> dict[str, Any]:
        """Return the whole state as JSON (every hand: not for players; see :meth:`view`)."""
        return {
            "road": [c.code for c in state.road],
            "positions": list(state.positions),
            "die": [c.code for c in state.die],
            "discard": [c.code for c in state.discard],
            "hands": [[c.code for c in h] for h in state.hands],
            "turn": state.turn,
            "pending": state.pending,
            "last": state.last,
            "step": state.step.to_json() if state.step else None,
            "winner": state.winner,
            "turns": state.turns,
            "moves": state.moves,
        }

    def state_from_json(self, data: dict[str, Any]) -> StigeState:
        """Rebuild a state; raise :class:`RulesError` naming what is malformed."""
        try:
            step = data["step"]
            state = StigeState(
                road=_road_cards(data["road"]),
                positions=tuple(int(p) for p in data["positions"]),
                die=tuple(_die_card(c) for c in data["die"]),
                discard=tuple(_die_card(c) for c in data["discard"]),
                hands=tuple(tuple(_die_card(c) for c in h) for h in data["hands"]),
                turn=int(data["turn"]),
                pending=data["pending"],
                last=str(data["last"]),
                step=None
                if step is None
                else Step(
                    int(step["seat"]),
                    parse_card(step["card"]),
                    int(step["start"]),
                    int(step["landed"]),
                    int(step["end"]),
                    bool(step["bounced"]),
                    str(step["jump"]),
                ),
                winner=None if data["winner"] is None else int(data["winner"]),
                turns=int(data["turns"]),
                moves=int(data["moves"]),
            )
        except KeyError as e:
            raise RulesError(f"a Stigespill state needs {e.args[0]!r}") from None
        except (CardError, TypeError, ValueError) as e:
            raise RulesError(f"malformed Stigespill state: {e}") from None
        problems = self.invariant_violations(state)
        if problems:
            raise RulesError("inconsistent Stigespill state: " + "; ".join(problems))
        return state

    def invariant_violations(self, state: StigeState) -> list[str]:
        """Return what is broken: die cards created or lost, tokens off the road, bad turn…"""
        out: list[str] = []
        all_cards = state.die + state.discard + tuple(c for h in state.hands for c in h)
        order = [_ID_ORDER.get(id(c), -1) for c in all_cards]
        if -1 in order:  # a card object not from DIE_CARDS: compare by value instead
            order = [_DIE_ORDER.get(c, -1) for c in all_cards]
        if sorted(order) != list(range(len(DIE_CARDS))):
            counts = Counter(all_cards)
            for c in DIE_CARDS:
                if counts[c] != 1:
                    out.append(f"die card {c.code} is there {counts[c]} times, not once")
            extra = sorted(c.code for c in counts if c not in _DIE_SET)
            if extra:
                out.append(f"cards that are no die cards: {' '.join(extra)}")
        die_order = order[: len(state.die)]
        if not state.die or die_order[-1] != _DIE_ORDER[JOKER]:
            out.append("the joker is not in the die pile")
        if any(a >= b for a, b in itertools.pairwise(die_order)):
            out.append("the die pile is not kept in its fixed order")
        if _checked_road(state.road):
            out.append("the road is not the 28 cards 7–K once each")
        if len(state.positions) != self.seats or len(state.hands) != self.seats:
            out.append(
                f"{len(state.positions)} tokens and {len(state.hands)} hands for {self.seats} seats"
            )
        for s, p in enumerate(state.positions):
            if not START <= p <= GOAL:
                out.append(f"{self.seat_name(s)} is at {p}, off the road 0–{GOAL}")
        at_goal = [s for s, p in enumerate(state.positions) if p == GOAL]
        if at_goal != ([] if state.winner is None else [state.winner]):
            out.append(f"winner {state.winner} but tokens at the goal: {at_goal}")
        for s, h in enumerate(state.hands):
            if len(h) > HAND_SIZE or (self.variant == "classic" and h):
                out.append(f"{self.seat_name(s)} holds {len(h)} cards")
        if not 0 <= state.turn < self.seats:
            out.append(f"turn {state.turn} is no seat")
        if state.pending not in (None, "deal", "draw"):
            out.append(f"unknown pending step {state.pending!r}")
        if state.pending == "deal" and (state.discard or any(state.positions)):
            out.append("cards are being dealt in the middle of the game")
        if state.pending == "deal" and len(state.hands) == self.seats:
            dealt = sum(len(h) for h in state.hands)
            due = [
                max(0, (dealt - (s - self.first) % self.seats + self.seats - 1) // self.seats)
                for s in range(self.seats)
            ]
            if self.variant == "classic":
                out.append("the classic game deals no cards")
            elif dealt >= HAND_SIZE * self.seats:
                out.append(f"the deal is done ({dealt} cards dealt), yet more is to be dealt")
            elif [len(h) for h in state.hands] != due:
                out.append(
                    f"hands of {[len(h) for h in state.hands]} cards mid-deal; dealt round by "
                    f"round they hold {due}"
                )
        seats_ok = 0 <= state.turn < self.seats and len(state.hands) == self.seats
        if seats_ok and state.winner is None and not state.pending and not self.legal_moves(state):
            out.append(f"{self.seat_name(state.turn)} is on turn but has no legal move")
        return out

    # ---- advice -----------------------------------------------------------------------
    def _unseen_values(self, state: StigeState, seat: int) -> list[int]:
        """Return the values of the non-joker die cards ``seat`` has not seen (a solo player
        sees every token's hand)."""
        known = set(state.discard) | set(state.hands[seat])
        if self.players == 1:
            known.update(c for h in state.hands for c in h)
        return [_value(c) for c in DIE_CARDS[:-1] if c not in known]

    def greedy_move(self, state: StigeState, rng: random.Random) -> Move:
        """Return the option that lands furthest forward after jumps (a draw counts its mean)."""
        if state.pending:
            return self.chance_move(state, rng)
        seat = state.turn
        hand = state.hands[seat]
        if not hand:
            return Draw(seat)
        _, dest = _tables(state.road)
        row = dest[state.positions[seat]]
        best = max(hand, key=lambda c: (row[_value(c)], -_DIE_ORDER[c]))
        if not self._can_draw(state):
            return Play(best, seat)
        pool = self._unseen_values(state, seat)
        draw_mean = sum(row[v] for v in pool) / len(pool) if pool else -1.0
        return Play(best, seat) if row[_value(best)] >= draw_mean else Draw(seat)

    def hint(self, state: StigeState, seat: int) -> Hint:
        """Advise ``seat``: which hand card to play, or to draw, with expected turns to finish.

        Monte Carlo over what ``seat`` knows: the die pile is a random draw from the
        non-joker die cards it has not seen (others' hands are unknown, so part of that
        pool), drawn without replacement, the joker bringing the discard pile back. Each
        option is followed by a rollout policy (play a hand card only when it saves at least
        half an expected turn over a draw) until the token reaches the goal. Other tokens'
        draws are not simulated. The seed comes from what the seat can see, so the same
        position gives the same hint.
        """
        if state.winner is not None:
            return Hint(None, f"the game is over: {self.seat_name(state.winner)} won")
        if state.pending:
            return Hint(None, "waiting for chance: reveal the card that was dealt or drawn")
        if seat != state.turn:
            return Hint(None, f"wait: it is {self.seat_name(state.turn)}'s turn")
        hand = state.hands[seat]
        options: list[Draw | Play] = []
        if self._can_draw(state):
            options.append(Draw(seat))
        seen_values: set[int] = set()
        for c in hand:
            if _value(c) not in seen_values:
                seen_values.add(_value(c))
                options.append(Play(c, seat))
        samples = HINT_SAMPLES if hand else CLASSIC_HINT_SAMPLES
        pool = self._unseen_values(state, seat)
        means = _rollout_means(state, seat, options, pool, samples, solo=self.players == 1)
        best = min(range(len(options)), key=lambda i: (means[i], i))
        move = options[best]
        labels = ["draw" if isinstance(m, Draw) else m.card.code for m in options]
        details = {
            "expected_turns": {lab: round(m, 2) for lab, m in zip(labels, means, strict=True)},
            "samples": samples,
            "method": "Monte Carlo, die cards drawn without replacement",
        }
        if self.variant == "classic" or not hand:
            why = (
                "the classic game has only draws"
                if self.variant == "classic"
                else "no hand cards left"
            )
            return Hint(move, f"Draw ({why}): about {means[best]:.1f} turns to finish", details)
        if isinstance(move, Draw):
            reason = f"Draw: about {means[best]:.1f} turns to finish; keep your cards for later"
        else:
            _, dest = _tables(state.road)
            end = dest[state.positions[seat]][_value(move.card)]
            reason = (
                f"Play {move.card.pretty} to {self._place(state.road, end)}: "
                f"about {means[best]:.1f} turns to finish"
            )
            if Draw(seat) in options:
                reason += f" (drawing instead: {means[0]:.1f})"
        return Hint(move, reason, details)


# ---- hint machinery ---------------------------------------------------------------------------
@lru_cache(maxsize=256)
def _draw_values(road: tuple[Card, ...]) -> tuple[float, ...]:
    """Return expected turns to finish from each position when only drawing (uniform A–6)."""
    _, dest = _tables(road)
    v = [0.0] * (GOAL + 1)
    for _ in range(2000):
        delta = 0.0
        for p in range(GOAL - 1, -1, -1):
            new = 1.0 + sum(v[dest[p][s]] for s in range(1, 7)) / 6.0
            delta = max(delta, abs(new - v[p]))
            v[p] = new
        if delta < 1e-9:
            break
    return tuple(v)


@lru_cache(maxsize=256)
def _gain_table(road: tuple[Card, ...]) -> tuple[tuple[float, ...], ...]:
    """Return ``gain[pos][value]``: expected turns saved by playing ``value`` instead of drawing."""
    _, dest = _tables(road)
    v = _draw_values(road)
    # Reaching the goal always counts as worth playing.
    return tuple(
        tuple(
            [0.0]
            + [math.inf if dest[p][s] == GOAL else v[p] - 1.0 - v[dest[p][s]] for s in range(1, 7)]
        )
        for p in range(GOAL + 1)
    )


def _hint_seed(state: StigeState, seat: int, solo: bool = False) -> int:
    """Return a seed from what ``seat`` can see (``solo``: every hand), so equal positions
    get equal hints."""
    visible = json.dumps(
        [
            [c.code for c in state.road],
            state.positions,
            [c.code for c in state.discard],
            [c.code for c in state.hands[seat]],
            len(state.die),
            seat,
        ]
        + ([[c.code for c in h] for h in state.hands] if solo else [])
    )
    return zlib.crc32(visible.encode())


def _rollout_means(
    state: StigeState,
    seat: int,
    options: list[Draw | Play],
    pool: list[int],
    samples: int,
    solo: bool = False,
) -> list[float]:
    """Return the mean turns to finish after each option, over ``samples`` sampled die piles."""
    _, dest = _tables(state.road)
    gain = _gain_table(state.road)
    rng = random.Random(_hint_seed(state, seat, solo))
    start = state.positions[seat]
    hand0 = [_value(c) for c in state.hands[seat]]
    discard0 = [_value(c) for c in state.discard]
    in_pile = len(state.die) - 1  # non-jokers in the die pile
    firsts = [0 if isinstance(m, Draw) else _value(m.card) for m in options]
    totals = [0] * len(options)
    for _ in range(samples):
        pile0 = rng.sample(pool, in_pile)
        pile0.insert(rng.randrange(in_pile + 1), 0)
        for k, first in enumerate(firsts):
            totals[k] += _rollout(start, hand0[:], pile0[:], discard0[:], first, dest, gain, rng)
    return [t / samples for t in totals]


def _rollout(
    pos: int,
    hand: list[int],
    pile: list[int],
    discard: list[int],
    first: int,
    dest: tuple[tuple[int, ...], ...],
    gain: tuple[tuple[float, ...], ...],
    rng: random.Random,
) -> int:
    """Play one token to the goal (``first``: 0 draw, else the hand value played); return turns."""
    turns = 0
    choice = first
    while pos != GOAL:
        turns += 1
        if turns > ROLLOUT_CAP:
            return turns
        if turns > 1:
            choice = 0
            if hand:
                g = gain[pos]
                best = max(hand, key=g.__getitem__)
                if g[best] >= ROLLOUT_PLAY_GAIN or (len(pile) == 1 and not discard):
                    choice = best
        if choice:
            hand.remove(choice)
            discard.append(choice)
            pos = dest[pos][choice]
            continue
        while True:
            if len(pile) == 1 and not discard:
                return ROLLOUT_CAP  # nothing left to draw and no card to play
            value = pile.pop()
            if value:
                discard.append(value)
                pos = dest[pos][value]
                break
            pile += discard
            pile.append(0)
            discard.clear()
            rng.shuffle(pile)
    return turns

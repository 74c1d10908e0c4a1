"""Skip-Bo: zones on the table (building piles; per seat a stock and four discard piles).

A :class:`ZoneMap` names each zone and its centre in the image. :func:`propose_zones`
proposes one from the cards at the start of a game (each seat's face-up stock card), by the
usual arrangement: a seat's four discard piles in a row to the right of its stock (as the
seat reads its cards), fanned toward the seat; the four building piles in a row across the
middle of the table, parallel to seat 0's row. The web page shows the map for the user to
confirm or drag, and stores it per table as JSON (:meth:`ZoneMap.to_json`,
:meth:`ZoneMap.from_json`). :class:`SkipBoReader` then reads each zone's cards.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any

import numpy as np

from referee.cards import Card, parse_card
from referee.core import Move, Rules
from referee.skipbo import Discard, Play, SkipBoState, is_wild
from vision.tracker import TableState, TrackedCard

KINDS = ("building", "stock", "discard")
PILES = 4
MAX_SIDE = 100_000  # no picture, and so no zone or card in it, is wider than this


def whole_number(value: Any, lo: int, hi: int) -> bool:
    """Return whether ``value`` is a whole number (JSON's true is not) with ``lo <= value < hi``."""
    return isinstance(value, int) and not isinstance(value, bool) and lo <= value < hi


def _finite(value: Any) -> bool:
    """Return whether ``value`` is a finite number (JSON's true is not one)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    # a whole number is finite: numpy cannot take one past 64 bits (JSON's 10**30)
    return isinstance(value, int) or bool(np.isfinite(value))


WILD = "SBW"
SPACING = 1.2  # pile spacing in card widths
FAN_DISCOUNT = 0.25  # how much distance along a discard pile's fan counts
# A card new to a discard pile, no further along the fan than the pile's end plus TOP_MARGIN
# card sizes and within TWIN_DISTANCE of a card of its code there, is that card found again
# (a fan's step is about a third of a card).
TOP_MARGIN = 0.1
LEVEL = 0.12  # cards of a fan closer than this (card sizes) along it lie level
TWIN_DISTANCE = 0.6
# A card new to a discard pile this near (card sizes) a card of the seat's piles is laid on
# that card's pile (a fan's step is about a third of a card; the piles lie a card apart).
NEAR_PILE = 0.6
# A pile's top card not seen for this long (seconds: a frame at 8 fps) is out of sight
# (see SkipBoReader.unsure).
UNSEEN = 0.1


class ZoneError(ValueError):
    """A zone map that cannot be used; the message names the bad entry."""


@dataclass(frozen=True)
class Zone:
    """One pile's place: ``kind`` building/stock/discard, ``owner`` seat, ``index`` pile 0–3."""

    kind: str
    center: tuple[float, float]
    owner: int | None = None
    index: int = 0

    def to_json(self) -> dict[str, Any]:
        """Return the zone as JSON (owner only where it has one, index only off the stock)."""
        out: dict[str, Any] = {
            "kind": self.kind,
            "center": [round(self.center[0], 1), round(self.center[1], 1)],
        }
        if self.owner is not None:
            out["owner"] = self.owner
        if self.kind != "stock":
            out["index"] = self.index
        return out


@dataclass(frozen=True)
class ZoneMap:
    """The zones of one table, with the card size (pixels) they were made for."""

    zones: tuple[Zone, ...]
    players: int
    card_size: float

    def to_json(self) -> dict[str, Any]:
        """Return the zone map as JSON, the form :meth:`from_json` reads."""
        return {
            "players": self.players,
            "card_size": round(self.card_size, 1),
            "zones": [z.to_json() for z in self.zones],
        }

    def moved(self, points: Callable[[np.ndarray], np.ndarray], zoom: float) -> ZoneMap:
        """Return the same piles seen by a camera that moved: each zone's centre taken by
        ``points`` (``(n, 2)`` to ``(n, 2)``), the card size by ``zoom``."""
        centres = points(np.array([z.center for z in self.zones], np.float32))
        zones = tuple(
            replace(z, center=(float(x), float(y)))
            for z, (x, y) in zip(self.zones, centres, strict=True)
        )
        return replace(self, zones=zones, card_size=self.card_size * zoom)

    def problems(self, frame: tuple[int, int] | None = None) -> list[str]:
        """Return what keeps this from being a whole table's map: piles doubled or missing
        (four building piles; each seat's stock and four discard piles) and, given the
        picture's ``frame`` (width, height), zones far outside it (a proposal may put a
        discard pile a little past the picture's edge)."""

        def name(kind: str, owner: int | None, index: int) -> str:
            if kind == "building":
                return f"building pile {index + 1}"
            seat = f"seat {owner}'s"
            return f"{seat} stock" if kind == "stock" else f"{seat} discard pile {index + 1}"

        wanted: list[tuple[str, int | None, int]] = [("building", None, k) for k in range(PILES)]
        for seat in range(self.players):
            wanted += [("stock", seat, 0)] + [("discard", seat, k) for k in range(PILES)]
        found = [(z.kind, None if z.kind == "building" else z.owner, z.index) for z in self.zones]
        counts = Counter(found)  # not found.count per zone: a long list took most of an hour
        out = [f"{name(*k)} twice" for k, n in counts.items() if n > 1]
        out += [f"no {name(*k)}" for k in wanted if k not in counts]
        if frame is not None:
            w, h = frame
            out += [
                f"{name(*k)} lies far outside the picture"
                for k, z in zip(found, self.zones, strict=True)
                if not (-w / 2 <= z.center[0] <= 1.5 * w and -h / 2 <= z.center[1] <= 1.5 * h)
            ]
        return out

    @classmethod
    def from_json(cls, data: Any) -> ZoneMap:
        """Rebuild a zone map; raise :class:`ZoneError` naming what is wrong."""
        if not isinstance(data, dict) or not isinstance(data.get("zones"), list):
            raise ZoneError("a zone map is an object with a 'zones' list")
        if not data["zones"]:
            raise ZoneError("the map has no zones")
        players = data.get("players")
        if players is not None and not whole_number(players, 1, MAX_SIDE):
            raise ZoneError(f"'players' must be a whole number, not {repr(players)[:20]}")
        size = data.get("card_size", 60.0)
        if not _finite(size) or not 1 <= size < MAX_SIDE:
            raise ZoneError(f"'card_size' must be a card's size in pixels, 1–{MAX_SIDE}")
        zones = []
        for i, z in enumerate(data["zones"]):
            if not isinstance(z, dict) or z.get("kind") not in KINDS:
                raise ZoneError(f"zone {i}: 'kind' must be one of {', '.join(KINDS)}")
            c = z.get("center")
            if not (
                isinstance(c, list | tuple)
                and len(c) == 2
                and all(_finite(v) and abs(v) < MAX_SIDE for v in c)
            ):
                raise ZoneError(f"zone {i}: 'center' must be [x, y] in pixels")
            owner = z.get("owner")
            if z["kind"] != "building" or owner is not None:
                seats = players or MAX_SIDE
                if not whole_number(owner, 0, seats):
                    raise ZoneError(
                        f"zone {i}: a {z['kind']} zone needs an 'owner' seat"
                        + (f" 0–{players - 1}" if players else "")
                        + (f", not {repr(owner)[:20]}" if owner is not None else "")
                    )
            index = z.get("index", 0)
            if not whole_number(index, 0, PILES):
                raise ZoneError(f"zone {i}: 'index' must be a whole number 0–{PILES - 1}")
            zones.append(Zone(z["kind"], (float(c[0]), float(c[1])), owner, index))
        if players is None:
            players = 1 + max((z.owner for z in zones if z.owner is not None), default=0)
        return cls(tuple(zones), players, float(size))

    def assign(self, point: np.ndarray) -> Zone | None:
        """Return the zone nearest ``point`` (within two card sizes), or None.

        A discard pile is fanned toward its seat, so distance along that way counts a quarter:
        the tenth card of a long fan still belongs to its pile.
        """
        best, best_d = None, 2.0 * self.card_size
        for z in self.zones:
            d = self.distance(z, point)
            if d < best_d:
                best, best_d = z, d
        return best

    def distance(self, z: Zone, point: np.ndarray, center: np.ndarray | None = None) -> float:
        """Return how far ``point`` lies from zone ``z`` (at ``center`` if given), as
        :meth:`assign` counts it."""
        off = np.asarray(point, np.float64) - (z.center if center is None else center)
        fan = self._fan_dirs.get(z.owner) if z.kind == "discard" else None
        if fan is None:
            return float(np.hypot(*off))
        along = float(off @ fan)
        across = float(np.hypot(*(off - along * fan)))
        return float(np.hypot(across, along * (FAN_DISCOUNT if along > 0 else 1.0)))

    @cached_property
    def _fan_dirs(self) -> dict[int | None, np.ndarray]:
        """Per seat, the unit direction its discard piles fan in: from the building piles
        toward the seat's row, square to the row."""
        building = [z.center for z in self.zones if z.kind == "building"]
        if not building:
            return {}
        middle = np.mean(building, axis=0)
        out: dict[int | None, np.ndarray] = {}
        for owner in {z.owner for z in self.zones if z.kind == "discard"}:
            row = sorted(
                (z for z in self.zones if z.owner == owner and z.kind == "discard"),
                key=lambda z: z.index,
            )
            mine = np.mean([z.center for z in row], axis=0)
            toward = mine - middle
            if len(row) >= 2:  # square to the row of piles
                along_row = np.subtract(row[-1].center, row[0].center)
                n = float(np.linalg.norm(along_row))
                if n > 0:
                    along_row = along_row / n
                    toward = toward - (toward @ along_row) * along_row
            n = float(np.linalg.norm(toward))
            if n > 0:
                out[owner] = toward / n
        return out


def _seat_axes(card: TrackedCard, middle: np.ndarray) -> tuple[np.ndarray, float]:
    """Return (the unit direction to the right of the player whose stock ``card`` is, the
    card's width): along the card's short side, turned so that the player faces ``middle``.

    A card reads the same turned half round (its two index corners swap), so which way it
    lies does not say where its player sits; the table's middle does.
    """
    q = np.asarray(card.corners, np.float64)
    right = q[1] - q[0]
    w = float(np.linalg.norm(right)) or 1.0
    right = right / w
    toward = np.asarray(middle, np.float64) - card.center
    facing_right = np.array([-toward[1], toward[0]])  # a quarter turn clockwise on screen
    return (right if float(right @ facing_right) >= 0 else -right), w


def propose_zones(
    table: TableState, players: int | None = None, stock_tops: list[str] | None = None
) -> ZoneMap:
    """Propose the zones from the cards at the start (each seat's face-up stock card).

    ``stock_tops`` (seat order) says whose stock is whose; without it seats go clockwise
    from the stock nearest the bottom of the picture. Raises :class:`ZoneError`.
    """
    cards = list(table.cards)
    want = players if players is not None else (len(stock_tops) if stock_tops else None)
    if stock_tops is not None and want is not None and len(cards) > want:
        cards = _stock_cards(cards, stock_tops) or cards
    if want is not None and len(cards) != want:
        raise ZoneError(f"expected {want} face-up stock cards at the start, saw {len(cards)}")
    if len(cards) < 2:
        raise ZoneError(f"need at least two stock cards to propose zones, saw {len(cards)}")
    centers = np.array([c.center for c in cards])
    mid = centers.mean(0)
    angles = np.arctan2(centers[:, 1] - mid[1], centers[:, 0] - mid[0])
    first = int(np.argmax(centers[:, 1]))
    # Seats go clockwise round the table (on screen, y down: increasing angle).
    ring = sorted(range(len(cards)), key=lambda i: (angles[i] - angles[first]) % (2 * np.pi))
    if stock_tops is not None:
        # Which stock is seat 0: the turn of the ring whose cards show the seats' stock tops.
        def fits(r: int) -> int:
            return sum(cards[ring[(s + r) % len(ring)]].code == c for s, c in enumerate(stock_tops))

        best = max(range(len(ring)), key=lambda r: (fits(r), -r))
        if fits(best) < len(stock_tops):
            missing = [c for c in stock_tops if c not in [x.code for x in cards]]
            raise ZoneError(
                "the stock cards on the table do not match the game's stocks"
                + (f" (not seen: {' '.join(missing)})" if missing else "")
            )
        ring = ring[best:] + ring[:best]
    stocks = [cards[i] for i in ring]
    n = len(stocks)
    zones: list[Zone] = []
    seat_centres = []
    sizes = []
    for seat, card in enumerate(stocks):
        right, w = _seat_axes(card, mid)
        gap = SPACING * w
        sizes.append(card.size)
        c = card.center
        zones.append(Zone("stock", (float(c[0]), float(c[1])), seat))
        for k in range(PILES):
            p = c + right * gap * (k + 1)
            zones.append(Zone("discard", (float(p[0]), float(p[1])), seat, k))
        seat_centres.append(c + right * gap * 2.5)
    # The table's middle: halfway between seat 0 and the seat facing it.
    right0, w0 = _seat_axes(stocks[0], mid)
    facing = min(range(1, n), key=lambda s: float(np.dot(_seat_axes(stocks[s], mid)[0], right0)))
    middle = (seat_centres[0] + seat_centres[facing]) / 2
    for k in range(PILES):
        p = middle + right0 * SPACING * w0 * (k - 1.5)
        zones.append(Zone("building", (float(p[0]), float(p[1])), None, k))
    return ZoneMap(tuple(zones), n, float(np.median(sizes)))


def _stock_cards(cards: list[TrackedCard], stock_tops: list[str]) -> list[TrackedCard] | None:
    """Return the stock cards among ``cards`` (in the order they were laid): for each stock
    top, the first-laid card of its code, or None when one is missing. A stock card too
    small to be found at once may show only after the first discards lie there too."""
    chosen: list[TrackedCard] = []
    for code in stock_tops:
        card = next((c for c in cards if c.code == code and all(c is not x for x in chosen)), None)
        if card is None:
            return None
        chosen.append(card)
    return chosen


class SkipBoReader:
    """The Skip-Bo table as the guard sees it, through a zone map.

    View: ``{"building": [top code or None] * 4, "wilds": [wild cards on top] * 4,
    "stock": [top per seat], "discard": [[codes bottom→top] * 4 per seat]}`` (a fanned
    discard pile shows every card). ``wilds`` counts the wild cards lying in a row on top of
    each building pile, so that a wild laid on a wild is seen (the tracker's ``relaid``).
    A view seen also has ``"relaid": [[n] * 4 per seat]``: how many cards the tracker saw
    laid squarely onto each discard pile's top card, of its code. They may lie there, hidden
    (the lower card's strip never found again), or not (the top card's outline jumped).
    """

    def __init__(self, zones: ZoneMap, codes: Collection[str] | None = None) -> None:
        self.zones = zones
        # The codes the game's cards have (the rules' deck; None: any): a card read as
        # another code, an A♥ on a table of Skip-Bo cards, is a misreading and does not count.
        self.codes = frozenset(codes) if codes is not None else None
        # The game's wilds: SBW, or K and JK in a deck improvised from ordinary cards.
        self.wilds = (
            frozenset(c for c in self.codes if is_wild(parse_card(c)))
            if self.codes is not None
            else frozenset({WILD})
        )
        # A card keeps the zone it was first seen in: cards lie still, and a card between
        # two zones must not flicker from one to the other with the camera's shake.
        self._zone_of: dict[int, Zone | None] = {}
        self._twin_of: dict[int, int] = {}  # a discard pile's card found again: id → beside id
        self._piles_of: tuple[TableState, dict[str, Any]] | None = None  # the last table's piles

    def observe(self, table: TableState) -> dict[str, Any]:
        """Return the piles seen, as :meth:`expect` gives them (and discards seen laid again)."""
        piles = self._piles(table)
        return {
            "building": list(piles["building"]),
            "wilds": list(piles["wilds"]),
            "stock": [c.code if c else None for c in piles["stock"]],
            "discard": [[[c.code for c in pile] for pile in seat] for seat in piles["discard"]],
            "relaid": [list(seat) for seat in piles["relaid"]],
        }

    def unsure(self, table: TableState) -> bool:
        """Return whether a stock's or discard pile's top card is out of sight (a hand over
        it, or just taken away) while a building pile shows its code: a card played from
        there and one of its code played from a hand look alike until its place shows."""
        view = self._piles(table)
        tops = [c for c in view["stock"] if c] + [p[-1] for s in view["discard"] for p in s if p]
        shown = set(view["building"])
        return any(c.code in shown and table.time - c.last_seen > UNSEEN for c in tops)

    def _piles(self, table: TableState) -> dict[str, Any]:
        """Return the view (see :meth:`expect`) with each stock's top and each discard
        pile's cards, bottom to top, as the cards themselves (worked out once per table:
        the guard asks :meth:`observe` and :meth:`unsure` of each)."""
        if self._piles_of is not None and self._piles_of[0] is table:
            return self._piles_of[1]
        n = self.zones.players
        view: dict[str, Any] = {
            "building": [None] * PILES,
            "wilds": [0] * PILES,
            "stock": [None] * n,
            "discard": [[[] for _ in range(PILES)] for _ in range(n)],
            "relaid": [[0] * PILES for _ in range(n)],
        }
        present = {card.id: card for card in table.cards}
        for card in table.cards:  # in the order they were laid
            if self.codes is not None and card.code not in self.codes:
                continue
            if card.id not in self._zone_of:
                self._zone_of[card.id] = self._pile_of(card, present)
                self._find_twin(card, present)
            z = self._zone_of[card.id]
            if z is None or self._found_again(card.id, present):
                continue
            if z.kind == "building":
                view["building"][z.index] = card.code
                wild = card.code in self.wilds
                top_wilds = view["wilds"][z.index] if wild else 0
                view["wilds"][z.index] = top_wilds + (1 + card.relaid if wild else 0)
            elif z.kind == "stock" and z.owner is not None and z.owner < n:
                view["stock"][z.owner] = card
            elif z.kind == "discard" and z.owner is not None and z.owner < n:
                view["discard"][z.owner][z.index].append(card)
        for seat, piles in enumerate(view["discard"]):
            fan = self.zones._fan_dirs.get(seat)
            for k, pile in enumerate(piles):
                if fan is not None:
                    piles[k] = pile = _along_fan(pile, fan)
                view["relaid"][seat][k] = pile[-1].relaid if pile else 0
        self._piles_of = (table, view)
        return view

    def _pile_of(self, card: TrackedCard, present: dict[int, TrackedCard]) -> Zone | None:
        """Return the zone of a card new to the table: the nearest zone, or for a discard
        pile's card the pile of the seat's card it lies next to. A card laid on a discard
        pile lands a fan's step from its top card, and the proposed zones may lie a little
        off the piles as laid (the seat's row seen in perspective)."""
        z = self.zones.assign(card.center)
        if z is None or z.kind != "discard":
            return z
        seat = self._seat_piles(z.owner, card.id, present)
        near = [(float(np.linalg.norm(c.center - card.center)), w) for c, w in seat]
        d, w = min(near, key=lambda p: p[0], default=(np.inf, z))
        if d < NEAR_PILE * card.size:
            return w
        # A new pile: where the seat's piles lie as laid, not as proposed.
        row = self._row_as_laid(z.owner, seat)
        if row is None:
            return z
        piles = [x for x in self.zones.zones if x.kind == "discard" and x.owner == z.owner]
        return min(piles, key=lambda x: self.zones.distance(x, card.center, row[x.index]))

    def _seat_piles(
        self, owner: int | None, card_id: int, present: dict[int, TrackedCard]
    ) -> list[tuple[TrackedCard, Zone]]:
        """Return the present cards of a seat's discard piles but ``card_id``, with their piles."""
        out = []
        for c in present.values():
            w = self._zone_of.get(c.id)
            if c.id != card_id and w is not None and w.kind == "discard" and w.owner == owner:
                out.append((c, w))
        return out

    def _row_as_laid(
        self, owner: int | None, seat: list[tuple[TrackedCard, Zone]]
    ) -> list[np.ndarray] | None:
        """Return the places of a seat's discard piles fitted to the piles laid so far
        (``seat``: :meth:`_seat_piles`; their bottom cards lie a whole number of steps from
        the stock along the row), or None when none is laid yet."""
        stock = next((x for x in self.zones.zones if x.kind == "stock" and x.owner == owner), None)
        fan = self.zones._fan_dirs.get(owner)
        if stock is None or fan is None:
            return None
        origin = np.asarray(stock.center, np.float64)
        steps = []
        for k in range(PILES):
            pile = [c.center for c, w in seat if w.index == k]
            if pile:
                bottom = min(pile, key=lambda c: float(c @ fan))
                steps.append((bottom - origin) / (k + 1))
        if not steps:
            return None
        step = np.mean(steps, axis=0)
        return [origin + step * (k + 1) for k in range(PILES)]

    def _find_twin(self, card: TrackedCard, present: dict[int, TrackedCard]) -> None:
        """Remember whether a card new to a discard pile is a card found again.

        A card laid on a discard pile lands beyond the fan's end. One that shows up inside
        the fan, next to a card of its code, is that card (its outline lost for a while
        under the top card's and found again), and does not count while that card lies.
        So is one next to a card of its code in the seat's next pile (an outline drawn round
        that card and part of this pile): the piles lie further apart than that.
        """
        z = self._zone_of[card.id]
        if z is None or z.kind != "discard":
            return
        fan = self.zones._fan_dirs.get(z.owner)
        if fan is None:
            return
        seat = self._seat_piles(z.owner, card.id, present)
        pile = [c for c, w in seat if w == z]
        along = float(card.center @ fan)
        if pile and along > max(float(c.center @ fan) for c in pile) + TOP_MARGIN * card.size:
            return
        same = [c for c in pile if c.code == card.code]
        if sum(c.relaid for c in same) >= len(same) > 0:
            # A card of this code was laid onto one of them and its outline followed the
            # new top card: this one is the card below, left where it lay.
            return
        for other, _ in seat:
            near = float(np.linalg.norm(other.center - card.center)) < TWIN_DISTANCE * card.size
            if other.code == card.code and near:
                self._twin_of[card.id] = other.id
                return

    def _found_again(self, card_id: int, present: dict[int, TrackedCard]) -> bool:
        """Return whether a card was found again beside a track of the same card that still
        lies (the one it was found beside, or that one's own earlier track): once those go,
        it stands for the card. Each link points to a card observed earlier, so it ends."""
        twin = self._twin_of.get(card_id)
        while twin is not None:
            if twin in present:
                return True
            twin = self._twin_of.get(twin)
        return False

    def expect(self, rules: Rules, state: SkipBoState) -> dict[str, Any]:
        """Return the view a referee state predicts."""
        return {
            "building": [p[-1].code if p else None for p in state.building],
            "wilds": [_wild_run(p) for p in state.building],
            "stock": [s[-1].code if s else None for s in state.stocks],
            "discard": [[[c.code for c in pile] for pile in seat] for seat in state.discards],
        }

    def transients(
        self, rules: Rules, before: SkipBoState, move: Move, after: SkipBoState
    ) -> list[dict[str, Any]]:
        """Return the view with a finished building pile still showing its last card."""
        if isinstance(move, Play) and not after.building[move.pile]:
            view = self.expect(rules, after)
            view["building"][move.pile] = move.card.code
            view["wilds"][move.pile] = _wild_run([*before.building[move.pile], move.card])
            return [view]
        return []

    @staticmethod
    def parts(view: dict) -> dict[tuple, Any]:
        """Return the view's piles by name: each building pile, stock and discard pile."""
        out: dict[tuple, Any] = {}
        for k, top in enumerate(view["building"]):
            out["building", k] = (top, view["wilds"][k])
        for seat, top in enumerate(view["stock"]):
            out["stock", seat] = top
        for seat, piles in enumerate(view["discard"]):
            for k, pile in enumerate(piles):
                out["discard", seat, k] = tuple(pile)
        return out

    @staticmethod
    def touches(state: SkipBoState, move: Move) -> set[tuple] | None:
        """Return the piles (:meth:`parts`) ``move`` changes in ``state``, known without
        playing it (None: not known)."""
        if isinstance(move, Discard):
            return {("discard", state.turn, move.pile)}
        if not isinstance(move, Play):
            return None
        owner = state.turn if move.owner is None else move.owner
        out: set[tuple] = {("building", move.pile)}
        if move.source == "discard":
            out.add(("discard", owner, move.index))
        elif move.source == "stock":
            if getattr(state, "hidden", False):
                return None  # the card below is not known yet
            stock = state.stocks[owner]
            if len(stock) < 2 or stock[-2].code != stock[-1].code:
                out.add(("stock", owner))  # the top shown changes (not to a card alike)
        return out

    @staticmethod
    def reachable(state: SkipBoState, move: Move, seen: dict[tuple, Any]) -> bool:
        """Return whether, after ``move``, the piles it changes can still come to show what
        is seen (``seen``: the seen view's parts, :meth:`parts`) by later moves.

        Cards go on and come off a discard pile at its top only, so a discard pile's new
        top card must be seen there, or be played from it later: onto a building pile,
        where it is seen on top (one covered by more plays is missed: the search this
        prunes is only the last resort for cards found late). A building pile does not go
        down (unless it reaches 12 and is set aside).
        """
        if not isinstance(move, Discard | Play):
            return True

        def shows(pile: tuple, top: str | None) -> bool:
            if top is None or pile not in seen or top in seen[pile]:
                return True
            return any(v[0] == top for key, v in seen.items() if key[0] == "building")

        if isinstance(move, Discard):
            return shows(("discard", state.turn, move.pile), move.card.code)
        shown = _number(seen.get(("building", move.pile), (None,))[0])
        if shown is not None and len(state.building[move.pile]) + 1 > shown:
            return False
        if move.source == "discard":
            owner = state.turn if move.owner is None else move.owner
            below = state.discards[owner][move.index][:-1]
            return shows(("discard", owner, move.index), below[-1].code if below else None)
        return True

    @staticmethod
    def mismatch(expected: dict, observed: dict) -> float:
        """Return how many tops, wilds and discard-pile cards seen differ from expected."""
        bad = 0
        for key in ("building", "stock"):
            e, o = expected.get(key, []), observed.get(key, [])
            bad += sum(a != b for a, b in zip(e, o, strict=False)) + abs(len(e) - len(o))
        # A wild laid squarely onto a wild may land as it lay: the camera sees no outline
        # jump. Fewer wilds seen on top than the game holds may be so; more may not.
        e, o = expected.get("wilds", []), observed.get("wilds", [])
        bad += sum(b > a for a, b in zip(e, o, strict=False)) + abs(len(e) - len(o))
        e, o = expected.get("discard", []), observed.get("discard", [])
        relaid = observed.get("relaid") or [[0] * PILES for _ in o]
        bad += abs(len(e) - len(o))
        for mine, seen, hidden in zip(e, o, relaid, strict=False):
            bad += abs(len(mine) - len(seen))
            bad += sum(_pile_off(a, b, h) for a, b, h in zip(mine, seen, hidden, strict=False))
        return float(bad)


def _along_fan(pile: list[TrackedCard], fan: np.ndarray) -> list[TrackedCard]:
    """Return a discard pile's cards (given in the order they were laid) bottom to top.

    Bottom to top is the way the pile fans out (toward its seat), not the order the cards
    were seen in: a lower card lost for a moment under the top one's outline and found
    again is still below it. But two cards whose outlines lie level along the fan (one
    outline drawn too far, round the pile) keep the order they were laid in.
    """
    out = sorted(pile, key=lambda c: float(c.center @ fan))
    laid = {id(c): i for i, c in enumerate(pile)}
    for i in range(len(out) - 1):
        a, b = out[i], out[i + 1]
        level = float((b.center - a.center) @ fan) < LEVEL * a.size
        if level and laid[id(a)] > laid[id(b)]:
            out[i], out[i + 1] = b, a
    return out


def _pile_off(expected: list[str], seen: list[str], hidden: int = 0) -> int:
    """Return how far a discard pile seen (codes bottom→top) is off the pile the game
    holds: 0 when it fits, else one for a wrong top and one for each card seen too many.

    The top card must be the game's top card; a lower card may be missing, as the fan's
    lower cards show only a strip that the camera can lose under the top card's outline
    (cards leave a discard pile only from the top, so a missing lower card is hidden, not
    gone), but every card seen must lie in the pile. Their order below the top is not
    compared: the strips' outlines wobble, and two lower cards may seem to swap places
    (a move only ever changes a pile's top). The cards of the top's code lying in a row on
    top must all show (playing one of two wilds changes nothing else), save up to ``hidden``
    that the camera saw laid squarely onto the top card. More of them in a row is a lower
    card between them hidden, not a card too many (those are counted).
    """
    if not expected or not seen:
        return max(len(seen), 1) if expected or seen else 0
    top = expected[-1]
    run = _run_on_top(seen, top)
    wrong_top = seen[-1] != top or run + hidden < _run_on_top(expected, top)
    return int(wrong_top) + (Counter(seen) - Counter(expected)).total()


def _run_on_top(codes: list[str], code: str) -> int:
    """Return how many cards of ``code`` lie in a row at the top of a pile (codes bottom→top)."""
    n = 0
    for c in reversed(codes):
        if c != code:
            break
        n += 1
    return n


def _number(code: str | None) -> int | None:
    """Return a Skip-Bo card's number (``SB7`` → 7); None for a wild, none or another code."""
    digits = code[2:] if code and code.startswith("SB") else ""
    return int(digits) if digits.isdigit() else None


def _wild_run(cards: Sequence[Card]) -> int:
    """Return how many wild cards lie in a row at the top of a pile (bottom→top)."""
    n = 0
    while n < len(cards) and is_wild(cards[-1 - n]):
        n += 1
    return n

"""Layouts of our games on the table plane (millimetres, x right, y down; far side = up).

Each layout returns a list of :class:`Placed` cards in stacking order (later cards lie on top)
with each card's role in the game. Nothing here knows pixels: the scene's camera projects them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from referee.cards import RANKS, SUITS, standard_deck
from vision.synth.faces import CardFace, Deck, SkipBoDeck, procedural_face
from vision.synth.names import LAYOUTS

ROAD_SHAPES = ("rows", "serpentine", "uturn", "spiral", "curve")


@dataclass
class Placed:
    """One card on the table: its face, centre (mm), rotation (degrees, clockwise) and role."""

    face: CardFace
    center: tuple[float, float]
    angle: float
    role: dict = field(default_factory=dict)

    @property
    def code(self) -> str | None:
        """Return the card's code (None: face down)."""
        return self.face.code

    def quad(self) -> np.ndarray:
        """Return the ``(4, 2)`` table points TL, TR, BR, BL of the card as it reads upright."""
        w, h = self.face.size_mm
        c = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
        a = math.radians(self.angle)
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        return (c @ rot.T + self.center).astype(np.float64)


@dataclass
class Layout:
    """A layout's cards, and whether they are held up close to the camera (a hand)."""

    name: str
    cards: list[Placed]
    held: bool = False
    info: dict = field(default_factory=dict)


def _jit(rng: np.random.Generator, s: float) -> float:
    """Return a random offset, normal with spread ``s``: no hand lays cards exactly on a grid."""
    return float(rng.normal(0, s))


# ---- Stigespill road -----------------------------------------------------------------------
def road_slots(rng: np.random.Generator, shape: str, n: int, w: float, h: float) -> list[tuple]:
    """Return ``n`` (x, y, angle) slots along a road of the given shape, in road order."""
    gx, gy = w + rng.uniform(2, 14), h + rng.uniform(4, 25)
    slots: list[tuple] = []
    if shape in ("rows", "serpentine", "curve"):
        k = int(rng.integers(6, 11))
        bend = rng.uniform(0.08, 0.25) if shape == "curve" else 0.0
        if bend:
            gx += rng.uniform(3, 10)  # turned cards need a little more room
        for i in range(n):
            r, c = divmod(i, k)
            if shape != "rows" and r % 2 == 1:
                c = k - 1 - c
            x = c * gx
            y = r * gy
            a = 0.0
            if bend:  # every row bent along the same gentle arc, cards turned with it
                u = (c - (k - 1) / 2) / max(1, (k - 1) / 2)
                y += bend * gy * u * u * 1.2
                a = math.degrees(math.atan(2 * bend * gy * 1.2 * u / ((k - 1) / 2 * gx)))
            slots.append((x, y, a))
    elif shape == "uturn":
        k = math.ceil(n / 2)
        for i in range(n):
            r, c = divmod(i, k)
            if r == 1:
                c = k - 1 - c
            slots.append((c * gx, r * gy, 0.0))
    elif shape == "spiral":
        cols = int(rng.integers(5, 9))
        rows = math.ceil(n / cols)
        cells = []
        top, left, bottom, right = 0, 0, rows - 1, cols - 1
        while top <= bottom and left <= right:
            cells += [(top, c) for c in range(left, right + 1)]
            cells += [(r, right) for r in range(top + 1, bottom + 1)]
            if top < bottom:
                cells += [(bottom, c) for c in range(right - 1, left - 1, -1)]
            if left < right:
                cells += [(r, left) for r in range(bottom - 1, top, -1)]
            top, left, bottom, right = top + 1, left + 1, bottom - 1, right - 1
        slots = [(c * gx, r * gy, 0.0) for r, c in cells[:n]]
    else:
        raise ValueError(f"unknown road shape {shape!r}; expected one of {', '.join(ROAD_SHAPES)}")
    return slots


def _pile(rng, faces, x, y, a, spread, role, rot_spread=3.0) -> list[Placed]:
    out = []
    for d, f in enumerate(faces):
        out.append(
            Placed(
                f,
                (x + _jit(rng, spread), y + _jit(rng, spread)),
                a + _jit(rng, rot_spread),
                {**role, "depth": d},
            )
        )
    return out


def road(rng: np.random.Generator, deck: Deck, shape: str | None = None) -> Layout:
    """Lay a Stigespill road: 7–K of every suit in a random order, the goal joker at the end."""
    shape = shape or str(rng.choice(ROAD_SHAPES))
    w, h = deck.face("7S").size_mm
    codes = [c.code for c in standard_deck() if c.rank_value >= 7]
    codes = [codes[i] for i in rng.permutation(len(codes))]
    slots = road_slots(rng, shape, 29, w, h)
    cards = []
    has_joker = deck.has("JK")
    for i, (x, y, a) in enumerate(slots):
        if i < 28:
            face = deck.face(codes[i])
        else:  # a deck without jokers borrows a procedural one for the goal
            face = deck.face("JK") if has_joker else procedural_face(0, "JK")
        role = {"role": "road", "position": i + 1}
        if i == 28:
            role["goal"] = True
        cards.append(Placed(face, (x + _jit(rng, 2), y + _jit(rng, 2)), a + _jit(rng, 3), role))
    if rng.random() < 0.5:  # the road may start at either end of the table
        cards = [Placed(c.face, (-c.center[0], -c.center[1]), c.angle + 180, c.role) for c in cards]
    # die (draw) pile face down and the discard pile beside the road
    q = np.concatenate([c.quad() for c in cards])
    lo, hi = q.min(0), q.max(0)
    side = rng.integers(4)
    small = [c.code for c in standard_deck() if c.rank_value <= 6]
    if side < 2:
        px = lo[0] - w * 1.5 if side == 0 else hi[0] + w * 1.5
        pys = (lo[1] + h * 0.6, lo[1] + h * 2.0)
        pxs = (px, px)
    else:
        py = lo[1] - h * 0.9 if side == 2 else hi[1] + h * 0.9
        pxs = (lo[0] + rng.uniform(0, 2) * w, lo[0] + rng.uniform(2.5, 4) * w)
        pys = (py, py)
    nd = int(rng.integers(1, 18))
    cards += _pile(rng, [deck.back()] * nd, pxs[0], pys[0], _jit(rng, 8), 0.6, {"role": "die"}, 1.5)
    nx = int(rng.integers(0, 10))
    disc = [small[i] for i in rng.permutation(len(small))[:nx]]
    cards += _pile(
        rng, [deck.face(c) for c in disc], pxs[1], pys[1], _jit(rng, 10), 5, {"role": "discard"}, 12
    )
    return Layout("road", cards, info={"shape": shape})


# ---- Sten ------------------------------------------------------------------------------------
def sten(rng: np.random.Generator, deck: Deck) -> Layout:
    """Lay a Sten board: four 7s in a row, upper piles (8 up) above, lower piles (6 down) below."""
    w, h = deck.face("7S").size_mm
    gx = w + rng.uniform(5, 25)
    gy = h + rng.uniform(5, 20)
    step = rng.uniform(0.06, 0.25) * h  # the small offset between stacked cards
    cards = []
    suits = [SUITS[i] for i in rng.permutation(4)]
    for col, suit in enumerate(suits):
        if rng.random() < 0.12:
            continue  # this suit's 7 is not down yet
        x = col * gx
        cards.append(
            Placed(
                deck.face(f"7{suit.value}"),
                (x + _jit(rng, 2), _jit(rng, 2)),
                _jit(rng, 3),
                {"role": "sten", "suit": suit.value, "pile": "seven", "depth": 0},
            )
        )
        up = int(rng.integers(0, 7))
        for d, rank in enumerate(RANKS[7 : 7 + up]):
            y = -gy - d * step
            cards.append(
                Placed(
                    deck.face(f"{rank}{suit.value}"),
                    (x + _jit(rng, 1.5), y + _jit(rng, 1.5)),
                    _jit(rng, 3),
                    {"role": "sten", "suit": suit.value, "pile": "upper", "depth": d},
                )
            )
        down = int(rng.integers(0, 7))
        for d, rank in enumerate(RANKS[5 - down + 1 : 6][::-1]):
            y = gy + d * step
            cards.append(
                Placed(
                    deck.face(f"{rank}{suit.value}"),
                    (x + _jit(rng, 1.5), y + _jit(rng, 1.5)),
                    _jit(rng, 3),
                    {"role": "sten", "suit": suit.value, "pile": "lower", "depth": d},
                )
            )
    if not cards:
        cards.append(
            Placed(
                deck.face("7H"),
                (0, 0),
                0,
                {"role": "sten", "suit": "H", "pile": "seven", "depth": 0},
            )
        )
    return Layout("sten", cards)


# ---- Skip-Bo ---------------------------------------------------------------------------------
def skipbo(rng: np.random.Generator, decks: list[Deck], genuine_deck: Deck | None = None) -> Layout:
    """Lay a Skip-Bo table: building piles in the middle; per player a stock and fanned discards."""
    genuine = genuine_deck is not None
    use = [genuine_deck] if genuine_deck is not None else decks
    w, h = use[0].face("SB1" if genuine else "AS").size_mm

    def value_face(v: int) -> CardFace:
        d = use[int(rng.integers(len(use)))]
        if v == 0 or rng.random() < 0.08:
            wild = "SBW" if genuine else str(rng.choice(["JK", "KS", "KH", "KD", "KC"]))
            if not d.has(wild):
                wild = "KS"
            return d.face(wild)
        code = f"SB{v}" if genuine else RANKS[v - 1] + SUITS[int(rng.integers(4))].value
        return d.face(code)

    def rand_face() -> CardFace:
        return value_face(int(rng.integers(0, 13)))

    cards: list[Placed] = []
    nb = int(rng.integers(0, 5))
    gx = w + rng.uniform(5, 20)
    for k in range(nb):
        top = int(rng.integers(1, 13))
        faces = [value_face(v) for v in range(1, top + 1)]
        cards += _pile(
            rng,
            faces,
            (k - (nb - 1) / 2) * gx,
            0.0,
            _jit(rng, 4),
            0.8,
            {"role": "skipbo", "zone": "building", "pile": k + 1},
            2.5,
        )
    players = int(rng.integers(2, 5))
    seats = [(0, 1), (0, -1), (-1, 0), (1, 0)][:players]
    fan = rng.uniform(0.17, 0.3) * h
    for p, (sx, sy) in enumerate(seats):
        # local frame: the player sits at +y, reading the cards upright
        a = {(0, 1): 0, (0, -1): 180, (-1, 0): 90, (1, 0): -90}[(sx, sy)]
        ra = math.radians(a)
        rot = np.array([[math.cos(ra), -math.sin(ra)], [math.sin(ra), math.cos(ra)]])
        dist = h * rng.uniform(1.6, 2.3) + (gx * 1.5 if sx else 0)
        origin = np.array([sx, sy], float) * dist

        def place(
            lx: float,
            ly: float,
            face: CardFace,
            role: dict,
            spread: float,
            rs: float,
            _rot=rot,
            _origin=origin,
            _a=a,
        ) -> Placed:
            c = _rot @ np.array([lx, ly]) + _origin
            return Placed(
                face, (c[0] + _jit(rng, spread), c[1] + _jit(rng, spread)), _a + _jit(rng, rs), role
            )

        stock_n = int(rng.integers(1, 12))
        back = use[0].back()
        for d in range(stock_n):
            cards.append(
                place(
                    -2.2 * gx,
                    0,
                    back,
                    {
                        "role": "skipbo",
                        "zone": "stock",
                        "owner": p + 1,
                        "depth": d,
                    },
                    0.5,
                    1.5,
                )
            )
        cards.append(
            place(
                -2.2 * gx,
                0,
                rand_face(),
                {"role": "skipbo", "zone": "stock", "owner": p + 1, "depth": stock_n},
                1.0,
                2.0,
            )
        )
        for k in range(int(rng.integers(0, 5))):
            for d in range(int(rng.integers(1, 7))):
                cards.append(
                    place(
                        (k - 0.9) * gx,
                        d * fan,
                        rand_face(),
                        {
                            "role": "skipbo",
                            "zone": "discard",
                            "owner": p + 1,
                            "pile": k + 1,
                            "depth": d,
                        },
                        1.0,
                        2.5,
                    )
                )
    return Layout("skipbo", cards, info={"players": players, "genuine": genuine})


# ---- hands and scatter -----------------------------------------------------------------------
def hand(rng: np.random.Generator, decks: list[Deck]) -> Layout:
    """Fan a hand of 4–13 cards around a pivot below them, later cards on top (to the right)."""
    deck = decks[0]
    n = int(rng.integers(4, 14))
    pool = [c for c in deck.codes if not c.startswith("SB")]
    if isinstance(deck, SkipBoDeck):
        pool = list(deck.codes)
    codes = [pool[i] for i in rng.choice(len(pool), n, replace=False)]
    h = deck.face(codes[0]).size_mm[1]
    step = rng.uniform(5, 12)
    r = h * rng.uniform(0.25, 0.55)
    cards = []
    for i, code in enumerate(codes):
        th = (i - (n - 1) / 2) * step + _jit(rng, 1)
        t = math.radians(th)
        c = (math.sin(t) * r, -math.cos(t) * r)
        cards.append(Placed(deck.face(code), c, th, {"role": "hand", "position": i + 1}))
    return Layout("hand", cards, held=True, info={"pivot": [0.0, h * 0.35]})


def scatter(rng: np.random.Generator, decks: list[Deck]) -> Layout:
    """Scatter 4–30 cards from one or more decks, overlapping, some face down."""
    n = int(rng.integers(4, 31))
    cards = []
    h = decks[0].face(decks[0].codes[0]).size_mm[1]
    extent = math.sqrt(n) * h * rng.uniform(0.7, 1.6)
    for _ in range(n):
        d = decks[int(rng.integers(len(decks)))]
        code = d.codes[int(rng.integers(len(d.codes)))]
        up = rng.random() > 0.12
        face = d.face(code) if up else d.back()
        cards.append(
            Placed(
                face,
                tuple(rng.uniform(-extent / 2, extent / 2, 2)),
                float(rng.uniform(0, 360)),
                {"role": "scatter"},
            )
        )
    return Layout("scatter", cards, info={"decks": len(decks)})


def make_layout(
    name: str, rng: np.random.Generator, decks: list[Deck], skipbo_deck: Deck
) -> Layout:
    """Return a random layout of kind ``name`` drawn with ``decks`` (the first is the main one)."""
    if name == "road":
        return road(rng, decks[0])
    if name == "sten":
        return sten(rng, decks[0])
    if name == "skipbo":
        return skipbo(rng, decks, skipbo_deck if rng.random() < 0.6 else None)
    if name == "hand":
        if rng.random() < 0.15:
            return hand(rng, [skipbo_deck])
        return hand(rng, decks)
    if name == "scatter":
        return scatter(
            rng, decks if rng.random() < 0.5 else decks[:1] + [skipbo_deck] * (rng.random() < 0.2)
        )
    raise ValueError(f"unknown layout {name!r}; expected one of {', '.join(LAYOUTS)}")

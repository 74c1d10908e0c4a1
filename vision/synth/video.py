"""Render a seeded simulated game as a video (a JPEG frame folder) with its true event list.

The referee plays the game (random or greedy policy); a *stager* per game turns every move
into physical changes of the table (a die card laid on the discard pile; a Sten card laid on
its pile; a Skip-Bo card moved from stock, hand or discard pile onto a building pile), and
each table is rendered once with the generator's renderer under a fixed camera. Frames are
then made cheaply from those renders: a little camera shake, slow light changes, and now
and then a hand passing over or laying the card. Output::

    OUT/frames/000000.jpg …   the video, ``fps`` frames per second
    OUT/labels.jsonl          per frame: time and every face-up card (code, corners, visible)
    OUT/events.json           game, config, initial state, true moves with times, table events

so the pipeline can start from the same state (``initial``) and be judged by ``moves``.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import cv2
import numpy as np

from referee import make_rules, skipbo, sten, stigespill
from referee.core import CHANCE, Move, Rules
from referee.simulate import choose
from vision.detections import points_json
from vision.images import imread, imwrite, opencv_can_name
from vision.synth.camera import Camera, Effects, Lighting, apply_h, look_at
from vision.synth.faces import Deck, ProceduralDeck, SkipBoDeck
from vision.synth.layouts import Layout, Placed, _jit, road_slots
from vision.synth.scene import SKIN, SceneSpec, _hand_mask, render

GAMES = ("stigespill", "sten", "skipbo")


@dataclass
class Table:
    """The physical table: cards in stacking order (later on top), each keyed by a slot."""

    cards: list[tuple[str, Placed]] = field(default_factory=list)  # (slot key, card)

    def copy(self) -> Table:
        """Return a copy to change (the cards themselves are shared)."""
        return Table(list(self.cards))

    def add(self, key: str, card: Placed) -> None:
        """Lay ``card`` on top, in slot ``key``."""
        self.cards.append((key, card))

    def remove(self, pred: Callable[[str, Placed], bool]) -> None:
        """Take away every card for which ``pred(key, card)`` holds."""
        self.cards = [(k, c) for k, c in self.cards if not pred(k, c)]

    def count(self, key: str) -> int:
        """Return how many cards lie in slot ``key``."""
        return sum(1 for k, _ in self.cards if k == key)


# ---- stagers: referee moves → table changes ----------------------------------------------------
class StigespillStager:
    """Road in a seeded shape, die pile face down, discard pile beside it."""

    def __init__(self, rng: np.random.Generator, deck: Deck, shape: str | None = None) -> None:
        self.rng, self.deck = rng, deck
        self.shape = shape or str(rng.choice(["rows", "serpentine", "uturn", "spiral"]))

    def setup(self, rules: Rules, state: Any) -> tuple[Table, dict]:
        """Return the table at the start (road, die pile) and the set-up the events record."""
        rng, deck = self.rng, self.deck
        w, h = deck.face("7S").size_mm
        slots = road_slots(rng, self.shape, 29, w, h)
        table = Table()
        codes = [c.code for c in state.road] + ["JK"]
        for i, ((x, y, a), code) in enumerate(zip(slots, codes, strict=True)):
            table.add(
                f"road{i}",
                Placed(
                    deck.face(code),
                    (x + _jit(rng, 1.5), y + _jit(rng, 1.5)),
                    a + _jit(rng, 2),
                    {"role": "road", "position": i + 1},
                ),
            )
        q = np.concatenate([c.quad() for _, c in table.cards])
        lo, hi = q.min(0), q.max(0)
        self.die_at = (lo[0] - w * 1.6, lo[1] + h * 0.6)
        self.discard_at = (lo[0] - w * 1.6, lo[1] + h * 2.0)
        for d in range(8):
            table.add(
                "die",
                Placed(
                    deck.back(),
                    (self.die_at[0] + _jit(rng, 0.6), self.die_at[1] + _jit(rng, 0.6)),
                    _jit(rng, 1.5),
                    {"role": "die", "depth": d},
                ),
            )
        self._extent = np.array(
            [
                [min(lo[0], self.die_at[0] - w), lo[1] - h * 0.2],
                [hi[0], max(hi[1], self.discard_at[1] + h)],
            ]
        )
        return table, {"road": codes[:28], "goal": "JK", "shape": self.shape}

    def extent(self) -> np.ndarray:
        """Return the ``(2, 2)`` corners (mm) of what the camera must frame."""
        return self._extent

    def stage(
        self, rules: Rules, before: Any, move: Move, after: Any, table: Table
    ) -> list[tuple[Table, str | None]]:
        """Return the tables after each physical step, with the code of the card laid."""
        drawn = before.pending == "draw"
        if isinstance(move, stigespill.Play) or (isinstance(move, stigespill.Reveal) and drawn):
            card = move.card.code
            t = table.copy()
            x, y = self.discard_at
            t.add(
                "discard",
                Placed(
                    self.deck.face(card),
                    (x + _jit(self.rng, 4), y + _jit(self.rng, 4)),
                    _jit(self.rng, 10),
                    {"role": "discard"},
                ),
            )
            steps: list[tuple[Table, str | None]] = [(t, card)]
            if isinstance(move, stigespill.Reveal) and move.card.is_joker:
                t2 = t.copy()
                t2.remove(lambda k, c: k == "discard")
                steps.append((t2, None))
            return steps
        return []


class StenStager:
    """Four columns, one per suit: the 7, the upper pile above it, the lower pile below."""

    SUITS = ("S", "H", "D", "C")

    def __init__(self, rng: np.random.Generator, deck: Deck) -> None:
        self.rng, self.deck = rng, deck
        w, h = deck.face("7S").size_mm
        self.gx, self.gy = w + rng.uniform(12, 25), h + rng.uniform(10, 20)
        self.step = rng.uniform(0.12, 0.22) * h
        self.cols = list(rng.permutation(4))

    def setup(self, rules: Rules, state: Any) -> tuple[Table, dict]:
        """Return the bare board at the start and the hands the events record."""
        table = Table()
        # Markers of the board's extent are not cards: the camera frames the full board.
        return table, {"hands": [[c.code for c in hand] for hand in state.hands]}

    def extent(self) -> np.ndarray:
        """Return the ``(2, 2)`` corners (mm) of the full board, which the camera frames."""
        w, h = self.deck.face("7S").size_mm
        xs = [0, 3 * self.gx]
        ys = [-self.gy - 5 * self.step, self.gy + 5 * self.step]
        return np.array([[min(xs) - w, min(ys) - h], [max(xs) + w, max(ys) + h]])

    def _place(self, code: str) -> tuple[str, Placed]:
        rank, suit = code[:-1], code[-1]
        col = self.cols[self.SUITS.index(suit)]
        r = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"].index(rank) + 1
        x = col * self.gx
        if r == 7:
            y, key = 0.0, f"{suit}7"
        elif r > 7:
            y, key = -self.gy - (r - 8) * self.step, f"{suit}up"
        else:
            y, key = self.gy + (6 - r) * self.step, f"{suit}down"
        return key, Placed(
            self.deck.face(code),
            (x + _jit(self.rng, 1.5), y + _jit(self.rng, 1.5)),
            _jit(self.rng, 2.5),
            {"role": "sten", "suit": suit},
        )

    def stage(
        self, rules: Rules, before: Any, move: Move, after: Any, table: Table
    ) -> list[tuple[Table, str | None]]:
        """Return the tables after each card laid, with the code of the card."""
        if isinstance(move, sten.Lay):
            codes = [move.card.code]
        elif isinstance(move, sten.GoOut):
            codes = [c.code for c in move.cards]
        else:
            return []
        steps: list[tuple[Table, str | None]] = []
        t = table
        for code in codes:
            t = t.copy()
            key, placed = self._place(code)
            t.add(key, placed)
            steps.append((t, code))
            if code[:-1] in ("K", "A"):  # the finished pile leaves the table

                def finished(k: str, c: Placed, key: str = key) -> bool:
                    return k == key

                t = t.copy()
                t.remove(finished)
                steps.append((t, None))
        return steps


class SkipBoStager:
    """Building piles in the middle; per seat a stock pile and four fanned discard piles."""

    SEAT_ANGLES: ClassVar[dict[int, tuple[int, ...]]] = {
        2: (0, 180),
        3: (0, 90, 180),
        4: (0, 90, 180, -90),
    }

    def __init__(self, rng: np.random.Generator, deck: Deck, players: int) -> None:
        if players not in self.SEAT_ANGLES:
            raise ValueError(f"Skip-Bo videos are for 2–4 players, not {players}")
        self.rng, self.deck = rng, deck
        w, h = deck.face("SB1").size_mm
        self.w, self.h = w, h
        self.gx = w * 1.2
        self.fan = 0.24 * h
        self.angles = self.SEAT_ANGLES[players]

    def _seat_point(self, seat: int, lx: float, ly: float) -> tuple[tuple[float, float], float]:
        a = self.angles[seat]
        ra = math.radians(a)
        side = a in (90, -90)
        dist = self.h * 2.3 + (2.0 * self.gx if side else 0.0)
        x, y = lx, ly + dist
        return (x * math.cos(ra) - y * math.sin(ra), x * math.sin(ra) + y * math.cos(ra)), a

    def _stock_card(self, seat: int, code: str | None) -> Placed:
        (x, y), a = self._seat_point(seat, -2.5 * self.gx, 0.0)
        face = self.deck.face(code) if code else self.deck.back()
        return Placed(
            face,
            (x + _jit(self.rng, 0.5), y + _jit(self.rng, 0.5)),
            a + _jit(self.rng, 1.5),
            {"role": "skipbo", "zone": "stock", "owner": seat},
        )

    def zones_mm(self) -> list[dict]:
        """Return the true zones (table mm centres) in the zone map's vocabulary."""
        zones = [
            {"kind": "building", "index": k, "center": [(k - 1.5) * self.gx, 0.0]} for k in range(4)
        ]
        for s in range(len(self.angles)):
            (x, y), _ = self._seat_point(s, -2.5 * self.gx, 0.0)
            zones.append({"kind": "stock", "owner": s, "center": [x, y]})
            for k in range(4):
                (x, y), _ = self._seat_point(s, (k - 1.5) * self.gx, 0.0)
                zones.append({"kind": "discard", "owner": s, "index": k, "center": [x, y]})
        return zones

    def setup(self, rules: Rules, state: Any) -> tuple[Table, dict]:
        """Return the table at the start (the stocks) and their tops for the events."""
        table = Table()
        for s, stock in enumerate(state.stocks):
            for _ in range(min(6, len(stock) - 1)):
                table.add(f"stock{s}", self._stock_card(s, None))
            table.add(f"stock{s}", self._stock_card(s, stock[-1].code))
        return table, {"stock_tops": [st[-1].code for st in state.stocks]}

    def extent(self) -> np.ndarray:
        """Return the ``(2, 2)`` corners (mm) of every seat's piles, which the camera frames."""
        corners = []
        for s in range(len(self.angles)):
            for lx in (-2.5 * self.gx, 1.5 * self.gx):
                for ly in (0.0, 6 * self.fan):
                    corners.append(self._seat_point(s, lx, ly)[0])
        pts = np.array(corners)
        return np.array([pts.min(0) - self.h * 0.7, pts.max(0) + self.h * 0.7])

    def _building(self, pile: int) -> tuple[str, tuple[float, float]]:
        return (f"build{pile}", ((pile - 1.5) * self.gx + _jit(self.rng, 1.0), _jit(self.rng, 1.0)))

    def stage(
        self, rules: Rules, before: Any, move: Move, after: Any, table: Table
    ) -> list[tuple[Table, str | None]]:
        """Return the tables after each physical step, with the code of the card laid."""
        rng = self.rng
        seat = before.turn
        if isinstance(move, skipbo.Play):
            t = table.copy()
            owner = seat if move.owner is None else move.owner
            if move.source == "stock":
                t.remove(lambda k, c: k == f"stock{owner}" and c.face.code is not None)
                if after.stocks[owner]:
                    t.add(f"stock{owner}", self._stock_card(owner, after.stocks[owner][-1].code))
            elif move.source == "discard":
                key = f"disc{owner}.{move.index}"
                idx = max(i for i, (k, _) in enumerate(t.cards) if k == key)
                t.cards.pop(idx)
            key, (x, y) = self._building(move.pile)
            t.add(
                key,
                Placed(
                    self.deck.face(move.card.code),
                    (x, y),
                    _jit(rng, 3),
                    {"role": "skipbo", "zone": "building", "pile": move.pile},
                ),
            )
            steps: list[tuple[Table, str | None]] = [(t, move.card.code)]
            if not after.building[move.pile]:  # reached 12: set aside
                t2 = t.copy()
                t2.remove(lambda k, c: k == key)
                steps.append((t2, None))
            return steps
        if isinstance(move, skipbo.Discard):
            t = table.copy()
            key = f"disc{seat}.{move.pile}"
            d = t.count(key)
            (x, y), a = self._seat_point(seat, (move.pile - 1.5) * self.gx, d * self.fan)
            t.add(
                key,
                Placed(
                    self.deck.face(move.card.code),
                    (x + _jit(rng, 0.8), y + _jit(rng, 0.8)),
                    a + _jit(rng, 2),
                    {
                        "role": "skipbo",
                        "zone": "discard",
                        "owner": seat,
                        "pile": move.pile,
                        "depth": d,
                    },
                ),
            )
            return [(t, move.card.code)]
        return []


# ---- rendering ----------------------------------------------------------------------------------
@dataclass
class VideoSettings:
    """How the video looks: size, frame rate, seconds per table change, disturbances."""

    size: tuple[int, int] = (1280, 720)
    fps: float = 8.0
    hold: float = 1.6  # seconds each table change stays before the next one
    hand_rate: float = 0.35  # chance that a hand lays the card / passes over during a step
    shake: float = 1.5  # pixels
    light: float = 0.12  # relative amplitude of slow light changes
    jpeg: int = 88


def _camera(rng: np.random.Generator, extent: np.ndarray, settings: VideoSettings) -> Camera:
    """Return a fixed camera that shows the whole table ``extent`` (mm box) large."""
    W, H = settings.size
    (x0, y0), (x1, y1) = extent
    corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], float)
    centre = corners.mean(0)
    tilt = float(rng.uniform(0, 30))
    yaw = float(rng.uniform(0, 360))
    focal = W * float(rng.uniform(0.8, 1.2))
    distance = focal * float(max(x1 - x0, y1 - y0)) / (0.8 * W)
    H0 = look_at(centre, distance, tilt, yaw, float(rng.normal(0, 2)), focal, settings.size)
    p = apply_h(H0, corners)
    lo, hi = p.min(0), p.max(0)
    s = float(rng.uniform(0.85, 0.95)) * min(W / (hi - lo)[0], H / (hi - lo)[1])
    off = np.array([W, H]) / 2 - (lo + hi) / 2 * s
    S = np.array([[s, 0, off[0]], [0, s, off[1]], [0, 0, 1]])
    Hm = S @ H0
    return Camera(Hm / Hm[2, 2], settings.size, 0.0, tilt, yaw)


def _lighting(rng: np.random.Generator) -> Lighting:
    b, g, r = (float(c) for c in rng.uniform(0.93, 1.07, 3))
    return Lighting(
        gain=float(rng.uniform(0.85, 1.05)),
        gradient_angle=float(rng.uniform(0, 360)),
        gradient=float(rng.uniform(0, 0.25)),
        vignette=float(rng.uniform(0, 0.2)),
        cast=(b, g, r),
    )


class _Renderer:
    """Render each table once; make frames from those renders (shake, light, hands)."""

    def __init__(self, rng, cam, table_kind, lighting, settings: VideoSettings) -> None:
        self.rng, self.cam, self.table_kind = rng, cam, table_kind
        self.lighting, self.settings = lighting, settings
        self.effects = Effects(noise=float(rng.uniform(1.0, 3.0)), jpeg=settings.jpeg)
        self.card_w = 60.0

    def render(self, table: Table):
        layout = Layout("video", [c for _, c in table.cards])
        spec = SceneSpec(
            layout,
            self.cam,
            self.table_kind,
            self.lighting,
            self.effects,
            [],
            [1.0] * len(layout.cards),
            int(self.rng.integers(1 << 31)),
            glossy=False,
        )
        scene = render(spec)
        labels: list[dict[str, Any]] = [
            {
                "code": lab.code,
                "corners": lab.corners.astype(np.float64),
                "visible": lab.visible,
                "index": max(lab.index_visible, default=0.0),
            }
            for lab in scene.labels
            if lab.code is not None
        ]
        widths = [np.linalg.norm(lab["corners"][1] - lab["corners"][0]) for lab in labels]
        if widths:
            self.card_w = float(np.median(widths))
        return scene.image, labels

    def frame(self, base: np.ndarray, labels: list[dict], t: float, hand: dict | None):
        s = self.settings
        rng = self.rng
        dx, dy = rng.normal(0, s.shake, 2)
        gain = 1.0 + s.light * math.sin(t * 0.7) + 0.04 * math.sin(t * 2.3)
        M = np.array([[1, 0, dx], [0, 1, dy]], np.float32)
        img = cv2.warpAffine(base, M, s.size, borderMode=cv2.BORDER_REFLECT)
        img = cv2.convertScaleAbs(img, alpha=gain, beta=0)
        out = [
            {
                "code": lab["code"],
                "corners": lab["corners"] + [dx, dy],
                "visible": lab["visible"],
                "index": lab["index"],
            }
            for lab in labels
        ]
        if hand is not None:
            mask, (x0, y0) = _hand_mask(hand, s.size[0], s.size[1])
            if mask.size:
                h, w = mask.shape
                roi = img[y0 : y0 + h, x0 : x0 + w].astype(np.float32)
                m = (mask.astype(np.float32) / 255)[..., None]
                skin = np.array(hand["skin"], np.float32) * gain
                img[y0 : y0 + h, x0 : x0 + w] = (roi * (1 - m) + skin * m).astype(np.uint8)
                full = np.zeros((s.size[1], s.size[0]), np.uint8)
                full[y0 : y0 + h, x0 : x0 + w] = mask
                for lab in out:
                    q = np.round(lab["corners"]).astype(np.int32)
                    cm = np.zeros_like(full)
                    cv2.fillConvexPoly(cm, q, 1)
                    area = max(1, int(cm.sum()))
                    covered = int(((full > 127) & (cm > 0)).sum()) / area
                    lab["visible"] = lab["visible"] * (1 - covered)
                    lab["index"] = lab["index"] * (1 - covered)
        return img, out

    def hand_over(self, target: np.ndarray, frac: float) -> dict:
        """Return a hand reaching toward ``target`` (image px), ``frac`` 0…1 of the way."""
        rng = self.rng
        W, H = self.settings.size
        width = self.card_w * rng.uniform(1.2, 1.6)
        base = np.array([target[0] + rng.normal(0, W * 0.05), H + width])
        palm = base + (np.array(target) - base) * frac
        return {
            "base": base.tolist(),
            "palm": palm.tolist(),
            "width": float(width),
            "spread": float(rng.uniform(6, 14)),
            "curl": float(rng.uniform(0.7, 1.0)),
            "right": bool(rng.random() < 0.5),
            "skin": [float(v) for v in SKIN[int(rng.integers(len(SKIN)))]],
        }


def _stager(game: str, rng: np.random.Generator, players: int, shape: str | None):
    if game == "stigespill":
        return StigespillStager(rng, ProceduralDeck(int(rng.integers(40))), shape)
    if game == "sten":
        return StenStager(rng, ProceduralDeck(int(rng.integers(40))))
    return SkipBoStager(rng, SkipBoDeck(int(rng.integers(8))), players)


def _rules(game: str, players: int) -> Rules:
    if game == "skipbo":
        return make_rules("skipbo", players=players, stock=5)
    return make_rules(game, players=players)


def play_script(
    game: str, players: int, seed: int, policy: str = "random", max_moves: int = 400
) -> tuple[Rules, Any, list[Move]]:
    """Play a seeded game with the referee; return (rules, initial state, moves)."""
    rules = _rules(game, players)
    rng = random.Random(seed)
    state = rules.initial_state(rng)
    initial = state
    moves: list[Move] = []
    # A shortened game stops after a move the camera sees (a card laid, a turn's discard),
    # never after an unseen one (a draw before its card shows, a pass).
    ends = {"stigespill": ("reveal", "play"), "sten": ("lay", "go_out"),
            "skipbo": ("discard", "end_turn")}[game]  # fmt: skip
    while not rules.is_over(state):
        if rules.to_move(state) == CHANCE:
            move = rules.chance_move(state, rng)
        else:
            move = choose(rules, state, policy, rng)
        state = rules.apply(state, move)
        moves.append(move)
        if len(moves) >= max_moves and move.kind in ends:
            break
        if len(moves) >= max_moves * 3:  # no visible end in sight: stop anyway
            break
    return rules, initial, moves


def make_video(
    game: str,
    players: int,
    seed: int,
    out: str | Path,
    *,
    policy: str = "random",
    settings: VideoSettings | None = None,
    max_moves: int | None = None,
    shape: str | None = None,
) -> dict[str, Any]:
    """Render the seeded game to ``out``; return the ``events.json`` content."""
    if game not in GAMES:
        raise ValueError(f"unknown game {game!r}; expected one of {', '.join(GAMES)}")
    settings = settings or VideoSettings()
    out = Path(out)
    limit = max_moves or {"stigespill": 400, "sten": 400, "skipbo": 30}[game]
    rules, initial, moves = play_script(game, players, seed, policy, limit)  # checks the set-up
    frames_dir = out / "frames"
    frames_dir.mkdir(parents=True, exist_ok=True)
    for old in frames_dir.glob("*.jpg"):  # a previous video in the same folder
        old.unlink()
    rng = np.random.default_rng([seed, 7])
    stager = _stager(game, rng, players, shape)
    table, setup = stager.setup(rules, initial)
    cam = _camera(rng, stager.extent(), settings)
    table_kind = (str(rng.choice(["wood", "felt", "cloth", "plain"])), int(rng.integers(48)))
    renderer = _Renderer(rng, cam, table_kind, _lighting(rng), settings)
    if game == "skipbo":
        setup["zones"] = [
            {
                **z,
                "center": [round(float(v), 1) for v in apply_h(cam.H, np.array([z["center"]]))[0]],
            }
            for z in stager.zones_mm()
        ]
    dt = 1.0 / settings.fps
    frame_index = 0
    t = 0.0
    labels_file = open(out / "labels.jsonl", "w")
    true_moves: list[dict] = []
    table_events: list[dict] = []
    # A laid card counts from the first frame in which it lies visible (a hand laying it
    # may still cover it): (code, image centre, time the step began).
    pending: list[tuple[str, np.ndarray, float]] = []

    def emit(base, labels, n_frames: int, hand_target=None, laying: bool = False) -> None:
        nonlocal frame_index, t, pending
        length = min(n_frames, int(rng.integers(3, 6))) if hand_target is not None else 0
        for i in range(n_frames):
            hand = None
            if i < length:
                if laying:  # the hand has just put the card down and withdraws
                    frac = 1.05 - 0.5 * i / length
                else:  # a hand passing over: in and out again
                    frac = 1.0 - abs(i - (length - 1) / 2) / length * 0.6
                hand = renderer.hand_over(hand_target, frac)
            img, labs = renderer.frame(base, labels, t, hand)
            still = []
            for code, centre, began in pending:
                seen = any(
                    lab["code"] == code
                    and (lab["visible"] >= 0.5 or lab["index"] >= 0.6)
                    and np.linalg.norm(lab["corners"].mean(0) - centre) < 0.3 * renderer.card_w
                    for lab in labs
                )
                if seen:
                    table_events.append(
                        {
                            "event": "laid",
                            "code": code,
                            "time": round(t, 4),
                            "step": round(began, 4),
                        }
                    )
                else:
                    still.append((code, centre, began))
            pending = still
            imwrite(
                frames_dir / f"{frame_index:06d}.jpg",
                img,
                [cv2.IMWRITE_JPEG_QUALITY, settings.jpeg],
            )
            labels_file.write(
                json.dumps(
                    {
                        "frame": frame_index,
                        "time": round(t, 4),
                        "cards": [
                            {
                                "code": lab["code"],
                                "visible": round(lab["visible"], 3),
                                "index": round(lab["index"], 3),
                                "corners": points_json(lab["corners"]),
                            }
                            for lab in labs
                        ],
                    }
                )
                + "\n"
            )
            frame_index += 1
            t = frame_index * dt

    hold = max(3, round(settings.hold * settings.fps))
    base, labels = renderer.render(table)
    emit(base, labels, hold * 2)
    state = initial
    for move in moves:
        after = rules.apply(state, move)
        steps = stager.stage(rules, state, move, after, table)
        true_moves.append({"move": move.to_json(), "time": round(t, 4)})
        for k, (new_table, laid) in enumerate(steps):
            # Going out is quick, card after card; everything else takes its time.
            frames = max(3, hold // 2) if move.kind == "go_out" and k < len(steps) - 1 else hold
            before_codes = {id(c) for _, c in table.cards}
            table = new_table
            base, labels = renderer.render(table)
            new_cards = [c for _, c in table.cards if id(c) not in before_codes]
            target, laying = None, False
            if laid is not None and new_cards:
                centre = apply_h(cam.H, np.array([new_cards[-1].center]))[0]
                pending.append((laid, centre, t))
            if new_cards and rng.random() < settings.hand_rate:
                target = apply_h(cam.H, np.array([new_cards[-1].center]))[0]
                laying = True
            elif rng.random() < settings.hand_rate * 0.5 and labels:
                target = labels[int(rng.integers(len(labels)))]["corners"].mean(0)
            emit(base, labels, frames, target, laying)
        if not steps and move.kind == "sten":
            emit(base, labels, hold)  # "Sten!": the stone changes hands, the cards do not
        state = after
    emit(base, labels, hold)
    labels_file.close()
    events = {
        "game": game,
        "players": players,
        "seed": seed,
        "policy": policy,
        "fps": settings.fps,
        "size": list(settings.size),
        "frames": frame_index,
        "config": rules.config,
        "initial": rules.state_to_json(initial),
        "setup": setup,
        "moves": [m["move"] for m in true_moves],
        "move_times": [m["time"] for m in true_moves],
        "table_events": table_events,
    }
    (out / "events.json").write_text(json.dumps(events, indent=1))
    return events


def cmd_video(args: argparse.Namespace) -> int:
    """``kortbord dataset video``: render one game; print where it went and what it holds."""
    from kortbord.cli import CommandError, folder_option, no_file_in_the_way
    from referee.core import RulesError
    from vision.images import os_reason

    size = args.size
    out = folder_option("--out", args.out)
    no_file_in_the_way("--out", out, out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise CommandError(f"cannot write to --out {str(out)!r}: {os_reason(e)}") from None
    settings = VideoSettings(size=size, fps=args.fps)
    try:
        events = make_video(
            args.game,
            args.players,
            args.seed,
            out,
            policy=args.policy,
            settings=settings,
            max_moves=args.max_moves,
        )
    except (RulesError, ValueError) as e:
        raise CommandError(str(e)) from None
    if args.mp4:
        write_mp4(out, settings.fps, size)
    print(
        json.dumps(
            {
                "out": str(out),
                "game": args.game,
                "moves": len(events["moves"]),
                "frames": events["frames"],
                "seconds": round(events["frames"] / args.fps, 1),
            }
        )
    )
    return 0


def write_mp4(folder: Path, fps: float, size: tuple[int, int]) -> bool:
    """Write ``folder/video.mp4`` from ``folder/frames``; return False if no codec is available."""
    with tempfile.TemporaryDirectory() as tmp:
        # OpenCV cannot be given a name that is not UTF-8: such a video is written elsewhere
        out = folder / "video.mp4"
        at = out if opencv_can_name(out) else Path(tmp) / out.name
        writer = cv2.VideoWriter(str(at), cv2.VideoWriter.fourcc(*"mp4v"), fps, size)
        if not writer.isOpened():
            return False
        for path in sorted((folder / "frames").glob("*.jpg")):
            image = imread(path)
            assert image is not None, f"{path} was just written"
            writer.write(image)
        writer.release()
        if at != out:
            shutil.move(at, out)
    return True

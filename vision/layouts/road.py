"""Stigespill: read the road (28 cards 7–K and the goal joker) in road order from the table.

The road is a chain of cards, each next to the one before. :class:`RoadReader` finds the
chain that passes through every road card and ends at the goal joker with the least
length and turning (a beam search from the goal backwards), so rows, serpentines, U-turns
and curves all read the same way; a road that turns one way only and ends inside is a
spiral. What the cards' places cannot decide is a setting with a default, and the reading
says so in a note: a grid of straight rows may run like text (``shape="rows"``) or as a
serpentine (the default), a spiral may wind clockwise (the default) or anticlockwise. Two
chains of nearly equal cost make the order ambiguous, which is reported, not guessed.
Cards A–6 and a second joker belong to the die and discard piles.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from referee.cards import CardError, parse_card
from referee.core import Move, Rules
from referee.stigespill import Play, Reveal, StigeState
from vision.crops import Pyramid
from vision.detections import Detections
from vision.geometry import polygon_iou
from vision.layouts import entries
from vision.tracker import TableState, card_size

if TYPE_CHECKING:
    from vision.recognizer import Recognition, Recognizer

ROAD_RANKS = ("7", "8", "9", "10", "J", "Q", "K")
ROAD_CODES = tuple(f"{r}{s}" for s in "SHDC" for r in ROAD_RANKS)
SHAPES = ("auto", "chain", "rows")
SPIRALS = ("clockwise", "anticlockwise")  # the way a spiral road winds, seen from above
GOAL_REACH = 3.0  # the goal joker lies within this many card sizes of a road card
SECOND_JOKER_NEAR = 1.8  # a second joker this near the road makes the goal unclear
ASPECT = 0.7  # card width / height (poker 0.72, bridge 0.65)
NEAR_CARDS = 5  # a card and its nearest cards, whose shape shows a whole card's there
CUT_SHAPE = 0.8  # a card this much narrower or wider for its height than its neighbours was cut
# Cards narrower than this in the picture (median, pixels) are read unreliably: their index is
# a few pixels (at 60 px 87% of cards read right by their index corners, larger ones 99%).
SMALL_CARD = 40
# An empty place beside the road where a card not seen may lie: within a step of two road
# cards or more (this many spacings, or the road's own long steps, rows lying further apart
# than cards in a row) ...
HOLE_NEAR = 1.5
# ... and no nearer than this to any.
HOLE_CLEAR = 0.75
# Roads with at most this many codes not seen are read again with them put beside the road
# (each way two can lie there is a reading: on rendered roads 0.6 s more a photo on average,
# 1.2 s at the 90th percentile, several seconds for a spiral with many empty places).
MOST_FILLED = 2


class RoadError(ValueError):
    """The road cannot be read; ``details`` holds what was read (JSON) for the user."""

    def __init__(self, message: str, details: dict[str, Any]) -> None:
        super().__init__(message)
        self.details = details


@dataclass(frozen=True)
class RoadReading:
    """What was read: ``road`` codes in road order, the ``goal`` code, the problems found.

    ``centers`` ``(len(road), 2)`` are the road cards' image centres in road order;
    ``ok`` is False when a problem makes the reading unusable for the referee.
    """

    road: list[str]
    goal: str | None
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    centers: np.ndarray | None = None
    goal_center: np.ndarray | None = None
    piles: list[dict[str, Any]] = field(default_factory=list)
    ok: bool = True
    grid: bool = False  # straight rows read as a serpentine: they may run like text instead

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"road": self.road, "goal": self.goal, "problems": self.problems}
        if self.notes:
            out["notes"] = self.notes
        if self.piles:
            out["piles"] = self.piles
        return out


def _is_road_code(code: str) -> bool:
    return code in ROAD_CODES


# The discard pile lies beside the road: a die card more than this share on road cards is a
# misreading of them.
ON_ROAD = 0.3
# Discard cards first seen this close in time came into view together: either may be on top.
TOGETHER = 0.25


def _share_covered(quad: np.ndarray, others: list[np.ndarray]) -> float:
    """Return the share of the convex ``quad``'s area that lies on the ``others``."""
    q = np.asarray(quad, np.float32).reshape(-1, 1, 2)
    area = abs(cv2.contourArea(q))
    if area <= 0:
        return 0.0
    on = sum(
        cv2.intersectConvexConvex(q, np.asarray(o, np.float32).reshape(-1, 1, 2))[0] for o in others
    )
    return float(on / area)


def _drop_lying_on_others(road_cards: list[tuple[str, np.ndarray]]) -> list[tuple[str, np.ndarray]]:
    """Return the road cards less misread outlines: of a code read twice, one lying
    ``ON_OTHERS`` on other road cards and one on its own, the latter is the card. A camera's
    tracker keeps such an outline for good once read surely (small cards: one drawn across
    two, or a card read now and then as another code), so the road would stay doubled."""
    quads = [q for _, q in road_cards]
    on = [_share_covered(q, quads[:i] + quads[i + 1 :]) >= ON_OTHERS for i, q in enumerate(quads)]
    alone = {code for (code, _), o in zip(road_cards, on, strict=True) if not o}
    return [card for card, o in zip(road_cards, on, strict=True) if not (o and card[0] in alone)]


def _width(quad: np.ndarray) -> float:
    """Return a card's width in the picture: the mean length of its two shorter sides."""
    sides = np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1)
    return float(min(sides[0] + sides[2], sides[1] + sides[3]) / 2)


def _iou_like(a: np.ndarray, b: np.ndarray) -> float:
    """Return how much two cards coincide: 1 − centre distance / card size, floored at 0."""
    d = float(np.linalg.norm(a.mean(0) - b.mean(0)))
    return max(0.0, 1.0 - d / max(card_size(a), card_size(b)))


class RoadReader:
    """Order the road cards seen on the table.

    ``shape``: ``auto`` (a chain; straight-row grids also get a note), ``chain``, or
    ``rows`` (rows read like text, each from the same side). ``beam`` bounds the search;
    ``ambiguity`` is the cost margin (in card spacings) under which two different chains
    count as equally good (on rendered roads, 0.15 flagged some whose best chain was right;
    0.1 read none of those wrong). ``spiral``: the way a spiral road winds (``clockwise`` or
    ``anticlockwise`` seen from above), which its cards alone cannot say. ``fill_missing``:
    a road with one or two cards not seen is read again with them in the empty places beside
    it (one: 0.3–1 s more, two: 0.6 s on average, several for some spirals; a camera
    table, which uses only a road read whole, goes without).
    """

    def __init__(
        self,
        *,
        shape: str = "auto",
        beam: int = 150,
        ambiguity: float = 0.1,
        turn_cost: float = 0.6,
        spiral: str = "clockwise",
        fill_missing: bool = True,
    ) -> None:
        if shape not in SHAPES:
            raise ValueError(f"unknown road shape {shape!r}; expected one of {', '.join(SHAPES)}")
        if spiral not in SPIRALS:
            raise ValueError(f"unknown spiral {spiral!r}; expected one of {', '.join(SPIRALS)}")
        self.spiral = spiral
        self.shape = shape
        self.beam = beam
        self.ambiguity = ambiguity
        self.turn_cost = turn_cost
        self.fill_missing = fill_missing

    def read(self, table: Detections | TableState | list[tuple[str, np.ndarray]]) -> RoadReading:
        """Return the road read from detections, a stable table state, or (code, quad) pairs."""
        cards = _pairs(table)
        reading, quads = self._read(cards)
        missing = [c for c in ROAD_CODES if c not in reading.road]
        # Rows read like text take no chain search, so no gap misleads it.
        chain = self.fill_missing and self.shape != "rows"
        if chain and quads is not None and 1 <= len(missing) <= MOST_FILLED:
            if len(quads) == 29 - len(missing):  # no code doubled
                return self._fill_missing(cards, reading, quads, missing)
        return reading

    def _fill_missing(
        self,
        cards: list[tuple[str, np.ndarray]],
        reading: RoadReading,
        quads: np.ndarray,
        codes: list[str],
    ) -> RoadReading:
        """Return ``reading`` of a road without ``codes`` (one or two), read again with those
        cards put in the empty places beside the road, each way they can lie (``quads``
        ``(n + 1, 4, 2)``: the road's cards in the order read, then the goal).

        A gap misleads the chain search: over rendered roads with one card taken out, most
        of those read in a wrong order (spirals worst) read in the right one once the card
        lay in its place. Where every reading with the cards put in some places agrees, that
        is the order; where they differ the order is ambiguous, as two near-equal chains are.
        A second card goes in the places beside the road with the first card in it, so two
        cards missing side by side are put there too.
        """
        orders: list[list[str]] = []
        tried: set[frozenset[tuple[int, ...]]] = set()

        def fill(given: list[tuple[str, np.ndarray]], around: np.ndarray, left: list[str]) -> None:
            for hole in _holes(around):
                if len(orders) > 1:
                    return  # ambiguous: the other ways cannot make it less so
                placed = [*given, (left[0], hole)]
                key = frozenset(tuple(int(v) for v in np.round(q.mean(0))) for _, q in placed)
                if len(left) == 1 and key in tried:
                    continue  # the same places, filled in another order
                tried.add(key)
                try:
                    again, again_quads = self._read([*cards, *placed])
                except RoadError:
                    continue
                if len(left) > 1:
                    if again_quads is not None:
                        fill(placed, again_quads, left[1:])
                    continue
                order = [c for c in again.road if c not in codes]
                if again.ok and order not in orders:
                    orders.append(order)

        fill([], quads, codes)
        if not orders or orders == [reading.road]:
            return reading
        problems = reading.problems
        if len(orders) == 1:
            # The order is known; what was said of the order read without the card is not.
            assert reading.centers is not None, "set by _read"
            at = dict(zip(reading.road, reading.centers, strict=True))
            problems = [p for p in problems if not p.startswith(("ambiguous order", "gap in"))]
            return replace(
                reading,
                road=orders[0],
                problems=problems,
                centers=np.array([at[c] for c in orders[0]]),
            )
        if not any(p.startswith("ambiguous order") for p in problems):
            # Where the first reading that differs from the one shown leaves it.
            k, other = min(
                (next(i for i, (a, b) in enumerate(zip(reading.road, o, strict=True)) if a != b), o)
                for o in orders
                if o != reading.road
            )
            problems = [*problems, _ambiguous(k, reading.road[k], other[k])]
        return replace(reading, problems=problems)

    def _read(self, cards: list[tuple[str, np.ndarray]]) -> tuple[RoadReading, np.ndarray | None]:
        """Return the road read from (code, quad) pairs and, with a goal, the outlines
        ``(n + 1, 4, 2)`` of the road's cards in road order and the goal's."""
        road_cards: list[tuple[str, np.ndarray]] = []
        jokers: list[np.ndarray] = []
        piles: list[dict[str, Any]] = []
        for code, quad in cards:
            if code == "JK":
                jokers.append(quad)
            elif _is_road_code(code):
                # One card seen twice (two index corners, a flicker) is still one card.
                if any(c == code and _iou_like(q, quad) > 0.5 for c, q in road_cards):
                    continue
                road_cards.append((code, quad))
            else:
                piles.append({"code": code, "center": _round(quad.mean(0))})
        road_cards = _drop_lying_on_others(road_cards)
        problems: list[str] = []
        fatal = False
        codes = [c for c, _ in road_cards]
        missing = [c for c in ROAD_CODES if c not in codes]
        doubled = sorted({c for c in codes if codes.count(c) > 1}, key=ROAD_CODES.index)
        if missing:
            problems.append(f"missing: {' '.join(missing)}")
            fatal = True
        if doubled:
            problems.append(f"doubled: {' '.join(doubled)}")
            fatal = True
        if len(road_cards) < 2:
            raise RoadError(
                f"no road found: {len(road_cards)} of the 28 road cards (7–K) seen",
                {"road": codes, "goal": None, "problems": problems},
            )
        centers = np.array([q.mean(0) for _, q in road_cards], np.float64)
        pitch = _pitch(centers)  # image pixels: to split a grid into its rows
        sizes = np.array([card_size(q) for _, q in road_cards])
        goal_index, goal_problem = _find_goal(centers, sizes, jokers)
        if goal_problem:
            problems.append(goal_problem)
            fatal = True
        all_centers = (
            centers if goal_index is None else np.vstack([centers, jokers[goal_index].mean(0)])
        )
        notes: list[str] = []
        grid = False
        if self.shape == "rows":
            # Rows seen at a slant converge: split them where they lie, on the table.
            plane = _on_the_table(all_centers, [q for _, q in road_cards])
            order, alt_problem = _rows_order(plane, goal_index is not None, _pitch(plane))
            if alt_problem:
                problems.append(alt_problem)
                fatal = True
        else:
            quads = [q for _, q in road_cards]
            if goal_index is not None:
                quads.append(jokers[goal_index])
            order, runner_up, gaps = self._chain(np.array(quads), goal_index is not None)
            spiral = self._spiral(np.array(quads)) if goal_index is not None else None
            if spiral is not None:
                order, runner_up, either_way = spiral
                gaps = []
                if either_way:
                    other = SPIRALS[1 - SPIRALS.index(self.spiral)]
                    notes.append(
                        f"read as a spiral winding {self.spiral}; if it winds {other}, "
                        f"read with spiral {other}"
                    )
            # A step of several spacings is a guess: over 321 rendered roads it never came
            # with every card read right, and it came with a misread road three times.
            for a, b in gaps:
                problems.append(
                    f"gap in the road between {_name(a, road_cards)} and {_name(b, road_cards)}: "
                    "a card may be missing or the road may be broken"
                )
                fatal = True
            if runner_up is not None:
                k, instead = runner_up
                problems.append(
                    _ambiguous(k, _name(order[k], road_cards), _name(instead, road_cards))
                )
                fatal = True
            grid = self.shape == "auto" and _is_grid(all_centers, order, pitch)
            if self.shape == "auto" and not grid and goal_index is not None:
                # Rows seen at a slant converge in the picture: on the table they are straight,
                # and they are asked about where they read like text too.
                plane = _on_the_table(all_centers, [q for _, q in road_cards])
                as_text, not_text = _rows_order(plane, True, _pitch(plane))
                grid = not not_text and as_text != order and _is_grid(plane, order, _pitch(plane))
            if grid:
                notes.append(
                    "the road lies in straight rows: read as a serpentine (each row back the other "
                    "way); if it runs like text, each row from the same side, read with shape rows"
                )
        width = float(np.median([_width(q) for _, q in road_cards]))
        if fatal and width < SMALL_CARD:  # the likeliest cause: say what helps
            problems.append(
                f"the cards are about {round(width)} px wide in the picture: "
                "a camera closer to the table reads them better"
            )
        road_order = [i for i in order if i < len(road_cards)]
        goal = "JK" if goal_index is not None else None
        reading = RoadReading(
            road=[road_cards[i][0] for i in road_order],
            goal=goal,
            problems=problems,
            notes=notes,
            centers=centers[road_order],
            goal_center=None if goal_index is None else jokers[goal_index].mean(0),
            piles=piles,
            ok=not fatal,
            grid=grid,
        )
        if goal_index is None:
            return reading, None
        return reading, np.array([*(road_cards[i][1] for i in road_order), jokers[goal_index]])

    def _spiral(self, quads: np.ndarray):
        """Return (order, ambiguity or None, could it wind the other way) for a spiral road,
        else None.

        A grid of cards holds many chains of equal length and turning, so the chain search
        cannot tell a spiral from a snake through the same places. A spiral is the road that
        turns one way only; of the one-way walks that end at the goal, the shortest winding
        the expected way (``spiral``) is the road.
        """
        hand = 1.0 if self.spiral == "clockwise" else -1.0
        every = _spiral_orders(quads)
        walks = [o for o, h in every if h == hand]
        if not walks:
            return None
        dist, unit = _step_geometry(quads)
        ranked = sorted((_path_cost(dist, unit, o[::-1], self.turn_cost), o) for o in walks)
        best_cost, best = ranked[0]
        ambiguous = None
        if len(ranked) > 1 and ranked[1][0] - best_cost < self.ambiguity:
            alt = ranked[1][1]
            k = next(i for i, (a, b) in enumerate(zip(best, alt, strict=True)) if a != b)
            ambiguous = (k, alt[k])
        return best, ambiguous, len(walks) < len(every)

    # ---- the chain search ----------------------------------------------------------
    def _chain(self, quads: np.ndarray, has_goal: bool):
        """Return (order, ambiguity or None, gaps) for the best chain through the cards.

        ``quads`` ``(n, 4, 2)``; with a goal (the last card) the chain is searched from it
        backwards, without one from every card. Steps are measured in each card's own frame
        (its width and height), which undoes the camera's perspective locally.
        """
        n = len(quads)
        dist, pts = _step_geometry(quads)
        starts = [n - 1] if has_goal else list(range(n))
        results: list[tuple[float, list[int]]] = []
        for s in starts:
            results += self._beam(dist, pts, s)
        results.sort(key=lambda r: r[0])
        best_cost, best = results[0]
        order = best[::-1]  # the search ran from the goal backwards
        runner = next(
            ((c, p) for c, p in results[1:] if p != best and (has_goal or p != best[::-1])), None
        )
        if has_goal:
            # The best chain's start may be a free choice (a ring of cards can be entered at
            # two corners): search again for a chain that starts elsewhere.
            other = self._beam(dist, pts, n - 1, avoid_end=best[-1])
            if other and (runner is None or other[0][0] < runner[0]):
                runner = other[0]
        ambiguous = None
        if runner is not None and runner[0] - best_cost < self.ambiguity:
            alt = runner[1][::-1]
            k = next(i for i, (a, b) in enumerate(zip(order, alt, strict=True)) if a != b)
            ambiguous = (k, alt[k])
        gaps = [(a, b) for a, b in itertools.pairwise(order) if dist[a, b] > 2.6]
        return order, ambiguous, gaps

    def _beam(
        self, dist: np.ndarray, pts: np.ndarray, start: int, avoid_end: int | None = None
    ) -> list[tuple[float, list[int]]]:
        """Beam search of chains from ``start``: cost is length plus turning (in spacings).

        ``avoid_end``: a card the chain may not end at.
        """
        n = len(pts)
        full = (1 << n) - 1
        # state: (cost, path, mask, direction of the last step)
        beam: list[tuple] = [(0.0, [start], 1 << start, None)]
        for _ in range(n - 1):
            expanded: dict[tuple[int, int], tuple] = {}
            for cost, path, mask, direction in beam:
                last = path[-1]
                prev = path[-2] if len(path) > 1 else None
                # The last step seen from the card it arrived at (its own frame).
                direction = None if prev is None else -pts[last, prev]
                cand = [int(j) for j in np.argsort(dist[last]) if not mask >> int(j) & 1][:4]
                for j in cand:
                    if j == avoid_end and len(path) == n - 1:
                        continue
                    step = pts[last, j]
                    c = cost + _step_cost(float(dist[last, j]), direction, step, self.turn_cost)
                    key = (mask | 1 << j, j)
                    if key not in expanded or expanded[key][0] > c:
                        expanded[key] = (c, [*path, j], mask | 1 << j, step)
            beam = sorted(expanded.values(), key=lambda s: s[0])[: self.beam]
        return [(b[0], b[1]) for b in beam if b[2] == full][:20]


def _ambiguous(k: int, shown: str, other: str) -> str:
    """Return the problem of an order two readings fit about equally, the first differing at
    road card ``k`` (0-based): ``shown`` there in the reading given, ``other`` in the other
    (webui/speech.py says it in the page's language)."""
    return (
        "ambiguous order: two readings fit almost equally well and differ first at "
        f"road card {k + 1} ({shown} or {other})"
    )


def _holes(quads: np.ndarray) -> list[np.ndarray]:
    """Return outlines ``(4, 2)`` of the empty places beside the road ``quads`` ``(n, 4, 2)``:
    one step on past a card, away from a card beside it, on no card and beside two or more
    (a place beside one card only lies off the road's side or past its start)."""
    dist, _ = _step_geometry(quads)
    centers = quads.mean(axis=1)
    n = len(quads)
    # A spiral's rows may lie 1.6 spacings apart: its long steps are steps too (without them
    # a spiral's corner was no place, and a wrong one the only one).
    steps = dist[np.arange(n - 1), np.arange(1, n)]
    reach = max(HOLE_NEAR, float(np.quantile(steps, 0.9)))
    found: list[tuple[np.ndarray, np.ndarray]] = []
    for i in range(n - 1):  # not on past the goal
        for j in np.flatnonzero(dist[i] <= reach):
            if j == i:
                continue
            step = centers[i] - centers[j]
            quad = quads[i] + step
            d, _ = _step_geometry(np.concatenate([quads, quad[None]]))
            near = d[n, :n]
            if near.min() < HOLE_CLEAR or (near <= reach).sum() < 2:
                continue
            if any(np.linalg.norm(c - quad.mean(0)) < np.linalg.norm(step) / 2 for c, _ in found):
                continue
            found.append((quad.mean(0), quad))
    return [q for _, q in found]


def _local_steps(quads: np.ndarray) -> np.ndarray:
    """Return ``(n, n, 2)``: the step from card i to card j in card i's own frame.

    A card's frame has its width along x and its height along y, scaled so a card is
    ``ASPECT`` × 1; perspective shrinks both the cards and their spacing, so distances in
    this frame compare like distances on the table.

    A partly covered card is often outlined where it shows only (under a hand, a chip):
    measured from the middle of so small a frame its steps looked long, and the road turned
    before it. A card's width for its height is what its nearest cards' is (perspective
    changes their sizes, not that): where it is off by ``CUT_SHAPE``, the side cut short
    takes the length that makes it so, and the card's steps along that side are shortened by
    up to half what was cut (which end is covered is not known).
    """
    if not len(quads):
        return np.zeros((0, 0, 2))
    centers = quads.mean(axis=1)
    u = (quads[:, 1] - quads[:, 0] + quads[:, 2] - quads[:, 3]) / 2  # width vectors
    v = (quads[:, 3] - quads[:, 0] + quads[:, 2] - quads[:, 1]) / 2  # height vectors
    basis = np.stack([u, v], axis=2)  # (n, 2, 2): columns u, v
    diff = centers[None, :, :] - centers[:, None, :]  # (n, n, 2): j - i
    sides = np.maximum(np.linalg.norm(basis, axis=1), 1e-6)  # (n, 2): |u|, |v|
    near = np.argsort(np.linalg.norm(diff, axis=2), axis=1)[:, :NEAR_CARDS]
    shape = sides[:, 0] / sides[:, 1]
    typical = np.median(shape[near], axis=1)
    # Much wider for its height than its neighbours: cut across; much narrower: along.
    grow = np.ones_like(sides)
    across = shape * CUT_SHAPE > typical
    along = shape < CUT_SHAPE * typical
    grow[across, 1] = shape[across] / typical[across]
    grow[along, 0] = typical[along] / shape[along]
    basis = basis * grow[:, None, :]
    det = np.linalg.det(basis)
    basis[np.abs(det) < 1e-6] = np.eye(2)
    inv = np.linalg.inv(basis)  # (n, 2, 2)
    ab = np.einsum("iab,ijb->ija", inv, diff)  # coordinates in (u, v) units
    cut = (1.0 - 1.0 / grow) / 2  # (n, 2): how far the middle may lie off, in card sizes
    ab = np.sign(ab) * np.maximum(np.abs(ab) - cut[:, None, :], 0.0)
    return ab * np.array([ASPECT, 1.0])


def _step_geometry(quads: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(dist, unit)``: distances between cards in road spacings (symmetric) and the
    unit step i→j in card i's own frame, which undoes the camera's perspective locally."""
    n = len(quads)
    vec = _local_steps(quads)
    length = np.linalg.norm(vec, axis=2)
    dist = (length + length.T) / 2
    pitch = float(np.median((dist + np.eye(n) * 1e9).min(axis=1))) or 1.0
    with np.errstate(invalid="ignore", divide="ignore"):
        unit = np.nan_to_num(vec / length[..., None])
    return dist / pitch, unit


def _step_cost(d: float, direction: np.ndarray | None, step: np.ndarray, turn_cost: float) -> float:
    """The cost of one step of ``d`` road spacings: long hops are rarely the road, turns cost."""
    c = d + (max(0.0, d - 1.6) ** 2) * 4
    if direction is not None:
        c += turn_cost * (1.0 - float(np.dot(direction, step)))
    return c


def _path_cost(dist: np.ndarray, unit: np.ndarray, path: list[int], turn_cost: float) -> float:
    """The chain search's cost of ``path`` (walked in the order given)."""
    cost = 0.0
    for k in range(1, len(path)):
        last, j = path[k - 1], path[k]
        direction = -unit[last, path[k - 2]] if k >= 2 else None
        cost += _step_cost(float(dist[last, j]), direction, unit[last, j], turn_cost)
    return cost


def _spiral_orders(quads: np.ndarray, max_step: float = 2.0) -> list[tuple[list[int], float]]:
    """Return every (walk, hand) through all cards, the last one the goal, that spirals: it
    goes straight on to the next card while it can and otherwise turns, always to the same
    side (``hand`` 1 clockwise on screen, -1 anticlockwise). ``max_step`` is the longest step
    to a neighbour, in road spacings.
    """
    n = len(quads)
    if n < 4:
        return []
    dist, unit = _step_geometry(quads)

    def ahead(cur: int, heading: np.ndarray, seen: set[int]) -> int | None:
        best, best_d = None, max_step
        for j in range(n):
            if j not in seen and dist[cur, j] <= best_d and float(unit[cur, j] @ heading) > 0.87:
                best, best_d = j, dist[cur, j]  # the nearest within 30° of the heading
        return best

    found: set[tuple[tuple[int, ...], float]] = set()
    for start in range(n - 1):
        for first in range(n - 1):
            if first == start or dist[start, first] > max_step:
                continue
            for hand in (1.0, -1.0):
                order, seen = [start, first], {start, first}
                while len(order) < n:
                    cur, prev = order[-1], order[-2]
                    h = -unit[cur, prev]  # the direction it arrived in
                    nxt = ahead(cur, h, seen)
                    if nxt is None:  # turn; y points down, so (-y, x) is a right turn
                        nxt = ahead(cur, hand * np.array([-h[1], h[0]]), seen)
                    if nxt is None:
                        break
                    order.append(nxt)
                    seen.add(nxt)
                if len(order) == n and order[-1] == n - 1:
                    found.add((tuple(order), hand))
    return [(list(o), h) for o, h in sorted(found)]


def _pairs(table) -> list[tuple[str, np.ndarray]]:
    if isinstance(table, TableState):
        return [(c.code, np.asarray(c.corners, np.float64)) for c in table.cards]
    if isinstance(table, Detections):
        return [(code, np.asarray(q, np.float64)) for code, _, q in table]
    out = []
    for code, quad in table:
        try:
            code = parse_card(code).code
        except CardError:
            continue
        out.append((code, np.asarray(quad, np.float64).reshape(4, 2)))
    return out


def _round(p: np.ndarray) -> list[float]:
    return [round(float(p[0]), 1), round(float(p[1]), 1)]


def _name(i: int, road_cards: list) -> str:
    return road_cards[i][0] if i < len(road_cards) else "the goal joker"


def _pitch(centers: np.ndarray) -> float:
    """Return the road's card spacing: the median distance to the nearest other card."""
    d = np.linalg.norm(centers[:, None] - centers[None], axis=2)
    np.fill_diagonal(d, np.inf)
    return float(np.median(d.min(axis=1))) or 1.0


def _find_goal(centers: np.ndarray, sizes: np.ndarray, jokers: list[np.ndarray]):
    """Return (index of the goal joker or None, problem or "").

    Distances count in card sizes where the joker lies (its own and its nearest road card's),
    so a near card under a tilted camera is not "far" in pixels.
    """
    if not jokers:
        return None, "no goal joker found: cannot tell which end of the road is the goal"
    near = []
    for i, q in enumerate(jokers):
        d = np.linalg.norm(centers - q.mean(0), axis=1)
        k = int(d.argmin())
        near.append((float(d[k]) / ((card_size(q) + sizes[k]) / 2), i))
    near.sort()
    if near[0][0] > GOAL_REACH:
        return None, "the joker lies away from the road: put the goal joker after the last card"
    if len(near) > 1 and near[1][0] <= SECOND_JOKER_NEAR:
        return None, "two jokers lie at the road: only the goal joker belongs there"
    return near[0][1], ""


def _on_the_table(points: np.ndarray, quads: list[np.ndarray]) -> np.ndarray:
    """Return image ``points`` as they lie on the table, seen from straight above.

    A card is a rectangle on the table, so the outline of one card fixes the perspective of
    the whole table; the card nearest the road's middle is taken, so that no point lies far
    from it. Returns ``points`` as they are when the outline gives no usable mapping.
    """
    centers = np.array([q.mean(axis=0) for q in quads])
    middle = np.asarray(quads[int(np.linalg.norm(centers - centers.mean(axis=0), axis=1).argmin())])
    # Its outline starts at its index corner, on a short side, however the camera's tilt
    # makes its sides look.
    card = np.array([[0, 0], [ASPECT, 0], [ASPECT, 1.0], [0, 1.0]], np.float32)
    try:
        to_table = cv2.getPerspectiveTransform(middle.astype(np.float32), card)
        flat = cv2.perspectiveTransform(points.reshape(-1, 1, 2).astype(np.float64), to_table)
    except cv2.error:
        return points
    flat = flat.reshape(-1, 2)
    return flat if np.isfinite(flat).all() else points


def _principal_row_axis(pts: np.ndarray, pitch: float) -> np.ndarray:
    """Return the unit direction of the road's rows: the commonest nearest-neighbour step."""
    d = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    np.fill_diagonal(d, np.inf)
    steps = pts[d.argmin(axis=1)] - pts
    angles = np.mod(np.arctan2(steps[:, 1], steps[:, 0]), math.pi)
    # Circular mean of doubled angles: directions modulo 180°.
    a = 0.5 * math.atan2(np.sin(2 * angles).mean(), np.cos(2 * angles).mean())
    return np.array([math.cos(a), math.sin(a)])


def _rows(pts: np.ndarray, pitch: float) -> tuple[np.ndarray, list[list[int]]]:
    """Split points into straight rows; return (row axis, rows each sorted along the axis)."""
    axis = _principal_row_axis(pts, pitch)
    normal = np.array([-axis[1], axis[0]])
    across = pts @ normal
    order = np.argsort(across)
    rows: list[list[int]] = [[int(order[0])]]
    for i in order[1:]:
        if across[i] - across[rows[-1][-1]] > 0.5 * pitch:
            rows.append([])
        rows[-1].append(int(i))
    along = pts @ axis
    return axis, [sorted(r, key=lambda i: along[i]) for r in rows]


def _is_grid(pts: np.ndarray, order: list[int], pitch: float) -> bool:
    """Return whether the points form two or more straight parallel rows.

    The first or last row may hold one card: the goal joker laid past a full last row (28
    road cards in rows of 7) is a row of its own, which lies first or last as the rows are
    counted across the picture.
    """
    if len(pts) < 8:
        return False
    _, rows = _rows(pts, pitch)
    full = [r for r in rows if len(r) >= 2]
    if len(full) < 2 or any(len(r) < 2 for r in rows[1:-1]):
        return False
    return max(len(r) for r in rows) * len(rows) < len(pts) + max(len(r) for r in rows)


def _rows_order(pts: np.ndarray, has_goal: bool, pitch: float) -> tuple[list[int], str]:
    """Return the order for rows read like text (goal last), or a problem."""
    if not has_goal:
        return list(range(len(pts))), "reading rows needs the goal joker to know the direction"
    goal = len(pts) - 1
    axis, rows = _rows(pts, pitch)
    goal_row = next(i for i, r in enumerate(rows) if goal in r)
    if goal_row not in (0, len(rows) - 1):
        return list(range(len(pts))), "the goal joker is not in the first or last row"
    if goal_row == 0:
        rows = rows[::-1]
    last = rows[-1]
    if len(last) == 1:
        # The goal alone in its row lies where every row begins.
        along = pts @ axis
        first_full = rows[0]
        forward = abs(along[goal] - along[first_full[0]]) < abs(along[goal] - along[first_full[-1]])
    else:
        forward = last[-1] == goal
        if not forward and last[0] != goal:
            return list(range(len(pts))), "the goal joker is not at the end of its row"
    order = [i for r in rows for i in (r if forward else r[::-1])]
    return order, ""


# ---- a photo of the road: the recognizer's readings, each road code given once --------------
# A road photo is read once, at set-up, so it can afford the detector's full-resolution pass
# (far cards of a road seen from its end are 35–50 px wide), outlines started again wherever
# they read nothing (the detector's outline of a card turned 45° is often square and reads
# nothing), and readings far below a single photo's floor: a road holds each of its 28 codes
# once, which settles what an unsure reading alone cannot (a spade read as a club, whose club
# is read surely elsewhere, is the spade).
PHOTO_SIZE = 1280  # the detector's extra input size for a road photo
# ... and for a photo at least BIG_PHOTO px long (a phone's), BIG_PHOTO_SIZE too: there a card
# half under a hand or a chip shows to the detector as it does at 1280 px in a 720p photo.
BIG_PHOTO, BIG_PHOTO_SIZE = 2560, 1920
PHOTO_FLOOR = 0.1  # the lowest reading considered (card and code confidence)
SURE = 0.5  # a reading at least this sure is a card even when its code goes to another
SECOND_SHARE = 0.1  # a card may take a code read with this share of its best code's probability
SECOND_LEAST = 0.05  # … and at least this probability
SAME_CARD = 0.5  # outlines overlapping this much (IoU) are one card read twice
ON_OTHERS = 0.7  # a road code's outline this much on surer cards was drawn round them
IN_ROAD = 1.4  # a card this many of its nearest road card's spacings away lies in the road …
ALONE = 0.05  # … when it overlaps no other card more than this (IoU): it is on no pile
UNREAD_ALONE = 0.1  # an unread outline, often drawn loosely, may overlap a card this much
AT_PLACE = 0.5  # an unread card this many steps from an empty place in the road lies there
GAP = 1.5  # a step between road cards longer than this many spacings may pass a card not seen
LIKELIER = 5.0  # the likeliest way of giving out the codes left wins by this factor
# A card takes a code other than its likeliest only when that beats the other way round (the
# card holding that likeliest code taking this one) by this factor: nearer, it is a toss-up.
TOSS_UP = 1.5
MOST_SUSPECTS = 8  # at most this many cards weighed for the codes left (8! ways)
# A card looked for in an empty place beside the road counts when it reads a code no card
# holds with this much of the probability, overlapping no card read more than PROBE_APART
# (IoU); the road is looked at again at most PROBE_ROUNDS times.
PROBE_SURE = 0.3
PROBE_APART = 0.3
PROBE_ROUNDS = 3


def road_detections(recognizer: Recognizer, image: np.ndarray) -> tuple[Detections, list[str]]:
    """Return the cards of a road photo (BGR), each road code given to one card at most, and
    a note for each card read by elimination (see :func:`settle_road_codes`) or read in a gap
    in the road where the detector found none (see :func:`probe_holes`).

    ``recognizer`` is a :class:`vision.recognizer.Recognizer` (its ``recognize`` returns the
    readings' code probabilities).
    """
    sizes = (PHOTO_SIZE,) + ((BIG_PHOTO_SIZE,) if max(image.shape[:2]) >= BIG_PHOTO else ())
    rec = recognizer.recognize(image, PHOTO_FLOOR, sizes=sizes, retry_unread=True, far=True)
    seen = len(rec.detections)
    rec, det, notes = probe_holes(recognizer, image, rec)
    # A card read in a gap was read unsurely where no card was found: the user checks it.
    probed = rec.detections.corners[seen:]
    notes += [
        f"{code} read in a gap in the road: check that card"
        for code, quad in zip(det.codes, det.corners, strict=True)
        if any(np.array_equal(quad, q) for q in probed)
        and not any(n.startswith(f"{code} ") for n in notes)
    ]
    return det, notes


def _settled(rec: Recognition) -> tuple[Detections, list[str]]:
    """Return :func:`settle_road_codes` of a recognition's readings."""
    return settle_road_codes(
        rec.detections, rec.code_probs, rec.code_names, rec.unread, rec.unread_probs
    )


def probe_holes(
    recognizer: Recognizer, image: np.ndarray, rec: Recognition
) -> tuple[Recognition, Detections, list[str]]:
    """Return ``rec`` with the cards read in the road's empty places added, and its road codes
    settled (the cards and notes :func:`settle_road_codes` gives): where the road misses
    codes, an outline of its nearest card's size and turn is started in each empty place
    beside it and before its first card (:func:`_empty_places`), moved onto a card's edges by
    the refiner and read; one that reads a code no card holds with ``PROBE_SURE`` of the
    probability is that card.

    A far card (35–50 px in a 720p photo) can show the detector no outline at all, while its
    neighbours say where it must lie. Each card added may open the place of the next (two
    cards missing side by side), so the road is looked at again, at most ``PROBE_ROUNDS``
    times. An unread outline that the card added lies on is that card. The codes are settled
    once for each recognition, at the start and after each round that adds cards: the round
    that ends the look adds none, so its settling is the one returned.
    """
    pyr = Pyramid(image)
    h, w = image.shape[:2]
    tried: list[np.ndarray] = []  # the outlines of the cards added
    det, notes = _settled(rec)
    for _ in range(PROBE_ROUNDS):
        left = [c for c in ROAD_CODES if c not in det.codes and c in rec.code_names]
        if not left:
            break
        road = _empty_places(det)
        if road is None:
            break
        holes = [q for q in road[1] if (q.mean(0) >= 0).all() and (q.mean(0) < (w, h)).all()]
        if not holes:
            break
        # Each place is read as the refiner outlines it and as its neighbours say (on a far
        # card, whose edges are a few pixels, the refiner may draw it off a little).
        starts = np.array(holes, np.float32)
        starts = np.concatenate([recognizer.refine_outlines(pyr, starts), starts])
        boxes = np.concatenate([starts.min(axis=1), starts.max(axis=1)], axis=1)
        code_idx, code_conf, hyp, dist, _ = recognizer.read_outlines(
            pyr,
            starts,
            boxes,
            np.ones((len(starts), 4), np.float32),
            PHOTO_FLOOR,
            other_way="any",
            far=True,
            jitter=True,
            jitter_far=True,
        )
        found: dict[str, int] = {}
        for k in np.argsort(-code_conf, kind="stable"):
            code = recognizer.class_names[int(code_idx[k])] if code_idx[k] >= 0 else None
            if code not in left or code in found or code_conf[k] < PROBE_SURE:
                continue
            # An outline the refiner drew onto a card already read is that card again; one
            # onto a card added before, which the road's codes did not keep, is no better now.
            if any(polygon_iou(starts[k], q) > PROBE_APART for q in (*det.corners, *tried)):
                continue
            if any(polygon_iou(starts[k], starts[j]) > PROBE_APART for j in found.values()):
                continue
            # Of a place's two readings the surer counts (the refiner's where they tie).
            raw = k >= len(holes)
            if code_conf[(k + len(holes)) % len(starts)] + (1e-6 if raw else 0) > code_conf[k]:
                continue
            found[code] = int(k)
        if not found:
            break
        new = list(found.values())
        corners = np.array([np.roll(starts[k], -int(hyp[k]), axis=0) for k in new], np.float32)
        tried += list(corners)
        added = Detections(
            np.concatenate([rec.detections.corners, corners]),
            (*rec.detections.codes, *found),
            np.concatenate([rec.detections.confidence, code_conf[new]]).astype(np.float32),
        )
        keep = [
            u
            for u, quad in enumerate(rec.unread)
            if all(polygon_iou(quad, q) <= PROBE_APART for q in corners)
        ]
        rec = replace(
            rec,
            detections=added,
            visible_boxes=np.concatenate([rec.visible_boxes, boxes[new]]).astype(np.float32),
            code_probs=np.concatenate([rec.code_probs, dist[new]]).astype(np.float32),
            unread=rec.unread[keep],
            unread_probs=rec.unread_probs[keep],
        )
        det, notes = _settled(rec)
    return rec, det, notes


def settle_road_codes(
    det: Detections,
    probs: np.ndarray,
    names: tuple[str, ...],
    unread: np.ndarray | tuple[()] = (),
    unread_probs: np.ndarray | None = None,
) -> tuple[Detections, list[str]]:
    """Give each road code to one card: the surest (card, code) reading first, among the codes
    each card reads with at least ``SECOND_SHARE`` of its best code's probability.

    Returns the cards and a note for each card given a code other than its own, so the user
    knows which cards to check.

    ``probs`` ``(len(det), len(names))``: each card's probability of each code. A card given
    no road code keeps its own code when that is not a road code (a die card, a joker) or
    when it was read surely (two sure readings of one code stay two cards: the road then
    reports the code doubled); an unsure reading of a road code taken by a surer card is
    left out. One card read twice, under different codes, is kept once (the surer), and an
    outline of a road code lying mostly on surer cards (drawn round two of them) is none.
    A road code a surer card reads too, read away from the road (the die pile, the table), is
    none (:func:`_strays`). Road codes left over may go to cards lying alone in the road that
    read a die card's code, or to cards reading one code twice (see :func:`_codes_left`). The
    one code left (or the goal joker, when every road code is read and no joker) may go to
    the one card in the road that read no code (``unread``: ``(m, 4, 2)`` outlines of cards
    found but not read, and ``unread_probs`` ``(m, len(names))`` what their crops said of
    each code, zero where nothing) or was left out (see :func:`_unread_in_road`).
    """
    probs = np.asarray(probs, np.float64).reshape(len(det), len(names))
    cards: list[int] = []
    for i in np.argsort(-det.confidence, kind="stable"):
        others = [det.corners[j] for j in cards]
        if all(polygon_iou(det.corners[i], q) < SAME_CARD for q in others) and not (
            det.codes[i] in ROAD_CODES and _share_covered(det.corners[i], others) >= ON_OTHERS
        ):
            cards.append(int(i))
    column = {code: names.index(code) for code in ROAD_CODES if code in names}
    offers = []
    for i in cards:
        floor = max(SECOND_LEAST, SECOND_SHARE * probs[i].max())
        offers += [(probs[i, k], i, code) for code, k in column.items() if probs[i, k] >= floor]
    given: dict[int, str] = {}
    taken: set[str] = set()
    for _, i, code in sorted(offers, key=lambda o: -o[0]):
        if i not in given and code not in taken:
            given[i] = code
            taken.add(code)
    _swap_likelier(given, probs, column)
    _drop_toss_ups(given, probs, column)
    # The goal is one joker: an unsure joker beside a sure one is a misread (a discard).
    sure_joker = any(det.codes[i] == "JK" and det.confidence[i] >= SURE for i in cards)
    keep, codes = [], []
    for i in sorted(cards):
        code = given.get(i, det.codes[i])
        if code == "JK" and sure_joker and det.confidence[i] < SURE:
            continue
        if i in given or code not in column or det.confidence[i] >= SURE:
            keep.append(i)
            codes.append(code)
    settled = Detections(det.corners[keep], tuple(codes), det.confidence[keep])
    strays = _strays(settled)
    if strays:
        keep = [i for n, i in enumerate(keep) if n not in strays]
        settled = settled[[n for n in range(len(settled)) if n not in strays]]
    settled = _codes_left(settled, probs[keep], column)
    codes = list(settled.codes)
    notes = [
        f"{code} read by elimination: that card looks most like {det.codes[i]}"
        for i, code in zip(keep, codes, strict=True)
        if code != det.codes[i]
    ]
    # A card left out (read unsurely as a code a surer card took) was not read either.
    left_out = [i for i in cards if i not in keep]
    unread = np.concatenate(
        [np.asarray(unread, np.float32).reshape(-1, 4, 2), det.corners[left_out]]
    )
    if unread_probs is None:
        unread_probs = np.zeros((len(unread) - len(left_out), len(names)))
    unread_probs = np.concatenate([np.reshape(unread_probs, (-1, len(names))), probs[left_out]])
    joker = names.index("JK") if "JK" in names else None
    filled = _unread_in_road(settled, probs[keep], unread, unread_probs, column, joker)
    notes += [
        f"{new} read by elimination: that card looks most like {old}"
        # filled may hold one card more, the unread one
        for old, new in zip(settled.codes, filled.codes, strict=False)
        if new != old
    ]
    if len(filled) > len(settled):
        notes.append(f"{filled.codes[-1]} read by elimination: that card could not be read")
    return filled, notes


def _strays(det: Detections) -> set[int]:
    """Return the indices of cards reading a road code that a surer card in the road reads
    too, lying away from the road (on the die pile, on the table): the deck holds each road
    code once, so such a reading is a misreading of something else."""
    codes = list(det.codes)
    road = [i for i, code in enumerate(codes) if code in ROAD_CODES]
    out: set[int] = set()
    for i in road:
        twins = [j for j in road if codes[j] == codes[i] and det.confidence[j] > det.confidence[i]]
        if not twins:
            continue
        others = [j for j in road if j != i]
        if _beside_road(det.corners[others].mean(axis=1), det.corners[i].mean(axis=0)) is None:
            out.add(i)
    return out


def _swap_likelier(given: dict[int, str], probs: np.ndarray, column: dict[str, int]) -> None:
    """Swap the codes of two cards wherever the swap makes both readings together likelier.

    Surest first gives a code to the card that reads it most surely: of two kings, one read
    K♣ 0.5 or K♠ 0.45, the other K♣ 0.45 or K♠ 0.1, the first gets K♣. Yet the first as K♠
    and the second as K♣ is four times likelier.
    """
    cards = list(given)
    for _ in range(len(cards)):  # each pass swaps pairs; a handful settles it
        swapped = False
        for i, j in itertools.combinations(cards, 2):
            x, y = column[given[i]], column[given[j]]
            if probs[i, y] * probs[j, x] > probs[i, x] * probs[j, y]:
                given[i], given[j] = given[j], given[i]
                swapped = True
        if not swapped:
            break


def _drop_toss_ups(given: dict[int, str], probs: np.ndarray, column: dict[str, int]) -> None:
    """Take back a code given to a card that reads another road code likelier, held by another
    card, unless this way is ``TOSS_UP`` times as likely as the two swapped.

    Of two far kings both read K♣, one 0.8 K♣ or 0.2 K♠, the other 0.75 K♣ or 0.25 K♠: the
    second as K♠ is only 1.33 times as likely as the first, and on rendered roads such calls
    were wrong twice as often as right. The card then keeps its own code (the road reports
    it doubled) or, read unsurely, is left out.
    """
    holder = {code: i for i, code in given.items()}
    codes = list(column)
    road_probs = probs[:, [column[code] for code in codes]]
    for i, code in list(given.items()):
        best = codes[int(road_probs[i].argmax())]
        j = holder.get(best)
        if best == code or j is None:
            continue
        this_way = probs[i, column[code]] * probs[j, column[best]]
        if this_way < TOSS_UP * probs[i, column[best]] * probs[j, column[code]]:
            del given[i]


def _codes_left(det: Detections, probs: np.ndarray, column: dict[str, int]) -> Detections:
    """Give the road codes no card reads to the cards that must be them, when that is clear.

    Every road card must read surely (else an unsure one may be the misread card). The cards
    that may be misread are those reading a code another card reads too, and the cards lying
    alone in the road (next to a road card, on no pile) that read a die card's code: a far 8
    looks like a 5. When they are exactly as many as the codes they and the codes left make
    up, every way of giving them those codes is weighed (the product of the cards'
    probabilities), and the likeliest wins when it is at least ``LIKELIER`` times as likely as
    the next; else the cards keep their codes and the road reports them missing and doubled.
    """
    codes = list(det.codes)
    left = [code for code in column if code not in codes]
    road = [i for i, code in enumerate(codes) if code in ROAD_CODES]
    if not left or len(road) < 2 or min(det.confidence[road]) < SURE:
        return det
    road_centers = det.corners[road].mean(axis=1)
    suspects = [i for i in road if codes.count(codes[i]) > 1]
    for i, code in enumerate(codes):
        if code in ROAD_CODES or code == "JK":
            continue
        alone = all(
            polygon_iou(det.corners[i], det.corners[j]) <= ALONE for j in range(len(det)) if j != i
        )
        if alone and _beside_road(road_centers, det.corners[i].mean(axis=0)) is not None:
            suspects.append(i)
    pool = sorted({codes[i] for i in suspects if codes[i] in ROAD_CODES}) + left
    if len(suspects) != len(pool) or len(pool) > MOST_SUSPECTS:
        return det
    p = probs[np.ix_(suspects, [column[code] for code in pool])]
    ways = sorted(
        (
            (math.prod(p[n, k] for n, k in enumerate(way)), way)
            for way in itertools.permutations(range(len(pool)))
        ),
        reverse=True,
    )
    best, way = ways[0]
    second = ways[1][0] if len(ways) > 1 else 0.0
    if best <= 0 or best < LIKELIER * second:
        return det
    for n, k in enumerate(way):
        codes[suspects[n]] = pool[k]
    return Detections(det.corners, tuple(codes), det.confidence)


def _beside_road(road_centers: np.ndarray, point: np.ndarray) -> int | None:
    """Return the index of the road card nearest ``point`` when the point lies in the road (at
    most ``IN_ROAD`` of that card's spacing to its own nearest road card away), else None."""
    spacing = np.linalg.norm(road_centers[:, None] - road_centers[None], axis=-1)
    np.fill_diagonal(spacing, np.inf)
    away = np.linalg.norm(road_centers - point, axis=1)
    k = int(away.argmin())
    return k if away[k] <= IN_ROAD * spacing[k].min() else None


def _empty_places(det: Detections) -> tuple[np.ndarray, list[np.ndarray]] | None:
    """Return the road's cards in ``det`` in their order (their outlines ``(n, 4, 2)``, the
    goal last, as the chain search reads them) and the outlines of the empty places where a
    card not seen may lie: beside the road (:func:`_holes`), and one step on before its first
    card (which lies beside one card only, the next: its place is past it, the way the road
    comes). ``None`` when the cards make no road of three or more."""
    try:
        _, quads = RoadReader(shape="chain")._read(_pairs(det))
    except RoadError:
        return None
    if quads is None or len(quads) < 3:
        return None
    return quads, [*_holes(quads), quads[0] + (quads[0].mean(0) - quads[1].mean(0))]


def _at_a_place(det: Detections, point: np.ndarray) -> bool:
    """Return whether ``point`` lies where the road's one card not seen may lie, within
    ``AT_PLACE`` of a step of an empty place: one beside the road or before its first card
    (:func:`_empty_places`), or one in a gap in the road. ``det``: the cards read.

    An unread outline elsewhere beside the road (a card's width off its side) is not that
    card: given the code, the road read ok in a wrong order, the note "read by elimination"
    the only sign (36 of 740 procedural roads with one card not seen; 15 with this rule, whose
    outline lies at an empty place beside the road)."""
    road = _empty_places(det)
    if road is None:
        return False
    quads, places = road
    centers = quads.mean(axis=1)
    # A gap in the road (a step longer than ``GAP``): the card not seen lies in it, nearer
    # both its ends than they lie to each other (its middle, or at a turn one step on from
    # one end), on no card.
    n = len(quads)
    dist, _ = _step_geometry(quads)
    steps = dist[np.arange(n - 1), np.arange(1, n)]
    for i in np.flatnonzero(steps > GAP):
        ways = [(quads[i] + quads[i + 1]) / 2]
        if i > 0:
            ways.append(quads[i] + (centers[i] - centers[i - 1]))
        if i + 2 < n:
            ways.append(quads[i + 1] + (centers[i + 1] - centers[i + 2]))
        for way in ways:
            d, _ = _step_geometry(np.concatenate([quads, way[None]]))
            if d[n, :n].min() >= HOLE_CLEAR and max(d[n, i], d[n, i + 1]) < steps[i]:
                places.append(way)
    for place in places:
        center = place.mean(axis=0)
        near = int(np.linalg.norm(centers - center, axis=1).argmin())
        step = float(np.linalg.norm(centers[near] - center))
        if np.linalg.norm(point - center) <= AT_PLACE * step:
            return True
    return False


def _unread_in_road(
    det: Detections,
    probs: np.ndarray,
    unread: np.ndarray,
    unread_probs: np.ndarray,
    column: dict[str, int],
    joker: int | None = None,
) -> Detections:
    """Give the one road code no card reads to the one unread card lying alone in the road
    (or, when every road code is read and no joker, the goal joker: ``joker`` is its column),
    or to a road card that may be it, the unread card then taking that card's code.

    A far card's index can be a few grey pixels that read as nothing, while the detector
    finds the card surely. When every other road code is read once and exactly one unread
    outline lies in the road (next to a road card, overlapping no card more than
    ``UNREAD_ALONE``, about a road card's size), either that card is the code left, or a road
    card read otherwise is, and the unread card is that card's code. Each way is weighed by
    what the cards read (``unread_probs``: the unread cards' probabilities, too unsure to
    count alone; where they read nothing, every code alike), and the likeliest is taken when
    it is ``LIKELIER`` times as likely as the next. A road code goes only to an outline at a
    place where the card not seen may lie (:func:`_at_a_place`). The card added is at
    confidence 0: it was not read.
    """
    codes = list(det.codes)
    left = [code for code in column if code not in codes]
    road = [i for i, code in enumerate(codes) if code in ROAD_CODES]
    if not left and "JK" not in codes and joker is not None:
        # Every road code read once and no joker: a joker of a design the classifier never
        # saw reads nothing, and the unread card at the road is the goal.
        left, column = ["JK"], {**column, "JK": joker}
    if len(left) != 1 or len(road) != len(column) - 1:
        return det
    road_quads = det.corners[road]
    road_centers = road_quads.mean(axis=1)
    in_road = []
    for u, quad in enumerate(unread):
        center = quad.mean(axis=0)
        k = _beside_road(road_centers, center)
        if k is None or any(polygon_iou(quad, other) > UNREAD_ALONE for other in det.corners):
            continue
        if 0.5 <= abs(cv2.contourArea(quad)) / abs(cv2.contourArea(road_quads[k])) <= 2.0:
            # An outline that read nothing is often drawn round part of the card only: its
            # place counts, and the card takes the outline of its nearest road card there.
            in_road.append((u, road_quads[k] - road_centers[k] + center))
    if len(in_road) != 1:
        return det
    (u, outline), code = in_road[0], left[0]
    if code != "JK" and not _at_a_place(det, outline.mean(axis=0)):
        return det
    seen = np.asarray(unread_probs[u], np.float64)
    if not seen.any():
        seen = np.ones_like(seen)  # it read nothing: every code alike
    # Each way against all cards as read: the unread card is the code left (None), or road
    # card i is it and the unread card is i's code.
    own = np.maximum(probs[road, [column[codes[i]] for i in road]], 1e-9)
    ways = sorted(
        [(seen[column[code]], None)]
        + [
            (seen[column[codes[i]]] * probs[i, column[code]] / own[n], i)
            for n, i in enumerate(road)
        ],
        key=lambda w: -w[0],
    )
    (best, i), second = ways[0], ways[1][0]
    if best <= 0 or best < LIKELIER * second:
        return det
    if i is not None:
        codes[i], code = code, codes[i]
    return Detections(
        np.concatenate([det.corners, [outline]]).astype(np.float32),
        (*codes, code),
        np.concatenate([det.confidence, [0.0]]).astype(np.float32),
    )


def read_road(
    table: Detections | TableState | list[tuple[str, np.ndarray]], shape: str = "auto"
) -> RoadReading:
    """Return the road read from ``table`` (detections, a table state or (code, quad) pairs)."""
    return RoadReader(shape=shape).read(table)


# ---- the game view the guard compares -------------------------------------------------------
class StigespillReader:
    """The Stigespill table as the guard sees it: the top card of the discard pile.

    The road and the goal joker do not change during a game; the die pile lies face down.
    Every other face-up card (A–6, the second joker) is on the discard pile, and the top
    one is the card laid last. Drawing the joker shows it briefly before the piles are
    shuffled together (a transient view).

    A view is ``{"discard": top code or None, "also": codes}``. In the game's view ``also``
    holds the rest of the pile; in a view seen, the cards first seen together with the top
    (within ``TOGETHER`` seconds): a picture taken only after two draws, or a view blocked
    while both were laid, shows two new cards at once, and which lies on top is not known.
    """

    def __init__(self, goal_distance: float = 2.0) -> None:
        self.goal_distance = goal_distance
        self.goal_id: int | None = None
        self.goal_at: np.ndarray | None = None
        self.under: set[int] = set()  # cards first seen under the game's top card (align)

    def align(self, table: TableState, expected: dict[str, Any]) -> None:
        """Take the table as first seen to be the game as it stands. A camera started during
        a game (the server started again) sees the discard pile's cards all at once, in no
        order, and a lower card taken for the top was a draw; the game's top card, when it
        is among them, lies on the others."""
        top = expected.get("discard")
        if any(c.code == top for c in table.cards):
            self.under = {c.id for c in table.cards if c.code != top}

    def observe(self, table: TableState) -> dict[str, Any]:
        """Return the view of the stable table (see the class)."""
        road = [c for c in table.cards if _is_road_code(c.code)]
        if self.goal_id is None and road:
            # The goal is the joker lying at the road when the game starts; a joker laid
            # later is a drawn one, on the discard pile.
            jokers = [(self._distance(c, road), c.id) for c in table.cards if c.code == "JK"]
            near = [j for j in jokers if j[0] <= self.goal_distance]
            if near:
                self.goal_id = min(near)[1]
                self.goal_at = next(c.center for c in table.cards if c.id == self.goal_id)
        pile = []
        for c in table.cards:  # in the order they were laid: the last is on top
            if _is_road_code(c.code) or c.id == self.goal_id or c.id in self.under:
                continue
            if _share_covered(c.corners, [r.corners for r in road]) > ON_ROAD:
                continue  # read on the road itself: parts of road cards taken for one card
            if c.code == "JK" and self.goal_at is not None:
                if float(np.linalg.norm(c.center - self.goal_at)) < 0.5 * c.size:
                    continue  # the goal, lost for a moment and found again
            pile.append(c)
        if not pile:
            return {"discard": None, "also": ()}
        top = pile[-1]
        together = [c.code for c in pile[:-1] if top.first_seen - c.first_seen <= TOGETHER]
        return {"discard": top.code, "also": tuple(sorted(together))}

    @staticmethod
    def _distance(card, road) -> float:
        centers = np.array([r.center for r in road])
        return float(np.linalg.norm(centers - card.center, axis=1).min()) / card.size

    def expect(self, rules: Rules, state: StigeState) -> dict[str, Any]:
        """Return the view a referee state predicts."""
        if not state.discard:
            return {"discard": None, "also": ()}
        return {
            "discard": state.discard[-1].code,
            "also": tuple(sorted(c.code for c in state.discard[:-1])),
        }

    def transients(
        self, rules: Rules, before: StigeState, move: Move, after: StigeState
    ) -> list[dict[str, Any]]:
        """Return the joker on the discard pile while a drawn joker is shown."""
        if isinstance(move, Reveal) and before.pending == "draw":
            if move.card.is_joker:
                return [{"discard": "JK"}]
        return []

    def evidence(
        self, rules: Rules, before: StigeState, move: Move, after: StigeState
    ) -> list[dict[str, Any]]:
        """Return the views that must have been seen for ``move`` to be believed: a drawn
        joker leaves no trace once the piles are gathered, so a joker draw the camera did
        not see never explains a discard pile that looks wrong (a misread die card)."""
        return self.transients(rules, before, move, after)

    @staticmethod
    def rests_on(rules: Rules, state: StigeState, moves: Sequence[Move]) -> bool:
        """Return whether ``moves`` lay a card on the discard pile as the game has it: the
        guard then asks when the table never showed the game's top card (a draw entered by
        hand with another card, an undone draw's card left lying), as the card under the new
        one is no part of the view. A drawn joker gathers the pile instead."""
        for move in moves:
            if isinstance(move, Play) or (isinstance(move, Reveal) and state.pending == "draw"):
                return not move.card.is_joker
            state = rules.apply(state, move)
        return False

    def renames(
        self, rules: Rules, shown: dict[str, Any], state: StigeState, moves: Sequence[Move]
    ) -> bool:
        """Return whether the game in ``state`` is the view the table last showed as the
        game's (``shown``) but for its top card's name, and ``moves`` lay no card of the name
        the camera reads it by. A card the camera misread and the page put right (a draw
        undone and entered with its true card) keeps its wrong name on the table; the next
        card laid on it is no draw onto a pile the table never showed, but the card read as
        that name again may be the misread card itself, seen anew (a hand over the pile)."""
        game = self.expect(rules, state)
        misread = shown.get("discard")
        if misread is None or game["discard"] is None or game["also"] != shown.get("also"):
            return False
        laid = [m.card.code for m in moves if isinstance(m, Play | Reveal)]
        return misread not in laid

    parts = staticmethod(entries)

    @staticmethod
    def mismatch(expected: dict, observed: dict) -> float:
        """Return 1 when the top card seen is not the game's, and as many when more cards
        first seen with it are not on the game's pile (each a draw the game lacks)."""
        top = expected.get("discard")
        seen = (observed.get("discard"), *observed.get("also", ()))
        pile = {top, *expected.get("also", ())}
        return float(max(top not in seen, sum(code not in pile for code in seen)))

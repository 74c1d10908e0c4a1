"""Stable table state from noisy per-frame detections.

A card counts as present once it has been seen, lying still, in ``confirm_hits`` of the
last ``window`` frames. It counts as gone only when there is evidence: another card was laid
on top of it (covered), or the place where it lay is clearly visible without it — the image
there looks like the table (see :class:`TableModel`) and is calm — in ``remove_frames``
frames in a row. A hand over the table hides cards without removing them; one misread
frame neither creates nor removes a card. Every change of the stable state is a
:class:`TableEvent` (``laid``, ``removed``, ``moved``) with its frame time.

A camera bumped or pushed (its stand knocked) moves the whole view at once, for good: every
lying card shifts, turns and grows alike. The tracker takes that for one move of the camera
and carries every card along, and its stable state keeps the table as first seen, so the
layout readers' places (Skip-Bo's zones, Stigespill's goal) stay where the cards lie.
"""

from __future__ import annotations

import statistics
from collections import deque
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.detections import Detections, points_json
from vision.geometry import (
    NEXT_CORNER,
    PREVIOUS_CORNER,
    chained,
    inverse,
    moved,
    scaled,
    similarity,
)
from vision.relay import RelayWatch

# The weakest reading a frame passes on: a card needs several sightings with the same code to
# count, so the votes over frames filter what one frame is unsure of. One of those sightings
# must be sure (``SURE_CONFIDENCE``, the recognizer's floor for a single photo): a card that is
# only ever read unsurely is a misreading (a half-covered 3♣ taken for J♣ now and then).
MIN_CONFIDENCE = 0.3
SURE_CONFIDENCE = 0.5
# A card laid onto one of its own code must move it this many times its usual wobble (the
# mean change of its outline from frame to frame while it lies still).
WOBBLE_MARGIN = 4.0
# A card lies under a later one when its centre and three of its corners, moved toward its
# centre to this share of its size, lie inside that card: a recognizer's outlines of a
# pile's cards are a few pixels off each other, a fanned pile's lower card shows its far end.
COVER_SHARE = 0.8
# An outline keeping one edge and moving the other this many times its wobble has one edge
# drawn elsewhere, not a card laid onto it.
EDGE_MOVED = 2.5
RELAY_SIGHTINGS = 3  # sightings in a row, alike and off its place, that make a card re-laid
# An outline holding a present card this much smaller (square root of the area) is drawn
# round two cards, not one (two cards side by side: √½ ≈ 0.71 of their joint outline).
HOLDS_SIZE = 0.8
# Matching a detection to a track: of the outlines near enough, a size change counts
# SIZE_WEIGHT times its log ratio as distance (in card sizes); a lying card's outline may
# shrink by SIZE_GATE at most.
SIZE_WEIGHT = 2.0
SIZE_GATE = float(np.log(1.15))
# A card laid onto one of its code lies on top, whole: an outline centred on a present card
# of its code and smaller by this much is that card in part (a strip of a fanned pile).
PART_GATE = float(np.log(1.08))
# ... and it shows in the same frames as that card (its strip) in this many sightings at least.
TWIN_SIGHTINGS = 2
SIZE_MEMORY = 15  # sightings whose median size is a card's size
# A card read in the middle of a lying card of another code, seen in the same frame and read
# surer by this margin than the new card ever was, is that card misread (see _misread_of).
MISREAD_MARGIN = 0.05
# A tentative card read only ever this surely is remembered for SPORADIC windows unseen.
SPORADIC_SURE = 0.75
SPORADIC = 3
TABLE_SAMPLE = 3  # the table's colour is sampled every 3rd row and column
# A bumped camera turns the view by this many degrees at most, and zooms it by this factor:
# a card's own move beyond that is no camera move.
VIEW_TURN = 20.0
VIEW_ZOOM = 1.3
# Every card shifted alike by more than this (card sizes) is the camera moved, not its shake.
VIEW_SHIFT = 0.3
# The camera's shake moves the view up to SHAKE_SIGMAS times its spread (pixels each way,
# measured from the cards' steps over the last SHAKE_MEMORY frames) in all but one frame in
# twenty: where cards look small, that is more than ``still`` (and twice that, VIEW_SHIFT).
SHAKE_SIGMAS = 2.5
SHAKE_MEMORY = 40
# The lying cards' places are taken from one frame (first anchored, or carried with a camera
# move), shaken like any: the mean of the shifts they show at over the CENTRE_FRAMES frames
# after is where the camera keeping still shows them (:meth:`Tracker._note_offset`).
CENTRE_FRAMES = 16
# A slow turn or zoom of the camera is told from this many lying cards, whose places it fits
# with this many times less squared error than a shift does (:meth:`Tracker._turned`).
TURN_CARDS = 4
TURN_EVIDENCE = 4.0


@dataclass(frozen=True)
class TrackedCard:
    """A card in the stable state: ``corners`` ``(4, 2)`` where it was last seen.

    ``relaid`` counts the cards of the same code laid squarely onto it since (in Skip-Bo a
    wild on a wild), or found covered by it: the code on top did not change, but the card did.
    """

    id: int
    code: str
    corners: np.ndarray
    first_seen: float
    last_seen: float
    relaid: int = 0

    @property
    def center(self) -> np.ndarray:
        """Return the card's centre ``(2,)`` in pixels."""
        return self.corners.mean(axis=0)

    @property
    def size(self) -> float:
        """Return the card's size in pixels (see :func:`card_size`)."""
        return card_size(self.corners)

    def to_json(self) -> dict[str, Any]:
        """Return the card as JSON (``relaid`` only when a card was laid onto it)."""
        return {
            "id": self.id,
            "code": self.code,
            "corners": points_json(self.corners),
            "first_seen": round(self.first_seen, 3),
            "last_seen": round(self.last_seen, 3),
            **({"relaid": self.relaid} if self.relaid else {}),
        }


@dataclass(frozen=True)
class TableState:
    """The stable cards on the table at ``time``."""

    time: float
    cards: tuple[TrackedCard, ...] = ()

    def codes(self) -> list[str]:
        """Return the codes of the cards on the table."""
        return [c.code for c in self.cards]

    def to_json(self) -> dict[str, Any]:
        """Return the state as JSON."""
        return {"time": round(self.time, 3), "cards": [c.to_json() for c in self.cards]}


@dataclass(frozen=True)
class TableEvent:
    """A change of the stable state: ``kind`` is ``laid``, ``removed`` or ``moved``."""

    kind: str
    code: str
    time: float
    card_id: int
    corners: np.ndarray
    previous: np.ndarray | None = None
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        """Return the event as JSON (``from``: where a moved card lay before)."""
        out: dict[str, Any] = {
            "event": self.kind,
            "code": self.code,
            "time": round(self.time, 3),
            "card": self.card_id,
            "corners": points_json(self.corners),
        }
        if self.previous is not None:
            out["from"] = points_json(self.previous)
        if self.reason:
            out["reason"] = self.reason
        return out


def card_size(corners: np.ndarray) -> float:
    """Return a card's size in pixels: the square root of its quad's area."""
    x, y = corners[:, 0], corners[:, 1]
    area = 0.5 * abs(float(np.dot(x, y[PREVIOUS_CORNER]) - np.dot(y, x[PREVIOUS_CORNER])))
    return max(1.0, area**0.5)


def point_in_quad(point: np.ndarray, quad: np.ndarray) -> bool:
    """Return whether ``point`` ``(2,)`` lies inside the convex ``quad`` ``(4, 2)``."""
    sign = 0.0
    for i in range(4):
        a, b = quad[i], quad[(i + 1) % 4]
        cross = (b[0] - a[0]) * (point[1] - a[1]) - (b[1] - a[1]) * (point[0] - a[0])
        if cross != 0:
            if sign == 0:
                sign = cross
            elif (cross > 0) != (sign > 0):
                return False
    return True


class TableModel:
    """Decides whether a place on the table is clearly visible (bare table, nothing over it).

    The table's colour is learnt from each frame itself, outside every known card, so light
    changes follow; a place is visible when nearly all its pixels look like table (in Lab,
    within a robust spread of the table's median) and it did not change since the last frame
    (a hand in motion, a shadow sweeping). Works on a ``scale`` reduced copy for speed.
    """

    def __init__(
        self,
        *,
        scale: float = 0.5,
        table_fraction: float = 0.8,
        calm: float = 18.0,
        chroma_tolerance: float = 8.0,
        light_tolerance: float = 25.0,
    ) -> None:
        self.scale = scale
        self.table_fraction = table_fraction
        self.calm = calm
        self.chroma_tolerance = chroma_tolerance
        self.light_tolerance = light_tolerance
        self._lab: np.ndarray | None = None
        self._prev: np.ndarray | None = None
        self._table: tuple[np.ndarray, np.ndarray] | None = None
        self._known: list[np.ndarray] = []
        self._frame_id = -1
        self._prepared = -1

    def new_frame(self, image: np.ndarray | None, known_cards: list[np.ndarray]) -> None:
        """Remember this frame (``(h, w, 3)`` BGR) and the cards known to lie on the table."""
        self._prev = self._lab
        self._frame_id += 1
        self._image = image
        self._known = known_cards
        self._lab = None

    def _prepare(self) -> None:
        import cv2

        if self._prepared == self._frame_id or self._image is None:
            return
        self._prepared = self._frame_id
        small = scaled(self._image, self.scale)
        lab = cv2.cvtColor(small, cv2.COLOR_BGR2LAB).astype(np.float32)
        self._lab = lab
        mask = np.full(lab.shape[:2], 255, np.uint8)
        for quad in self._known:
            # Grow each card a little: its border and shadow are not table.
            c = quad.mean(axis=0)
            grown = (c + (quad - c) * 1.15) * self.scale
            cv2.fillConvexPoly(mask, np.round(grown).astype(np.int32), 0)
        # Every few rows and columns: a sample is plenty for the median.
        sample = (slice(None, None, TABLE_SAMPLE),) * 2
        pixels = lab[sample][mask[sample] > 0]
        if len(pixels) < 50:
            self._table = None
            return
        med = np.median(pixels, axis=0)
        mad = np.median(np.abs(pixels - med), axis=0) * 1.4826
        self._table = (med, mad)

    def visible(self, quad: np.ndarray, others: list[np.ndarray] | None = None) -> bool:
        """Return whether the place ``quad`` ``(4, 2)`` shows bare, calm table this frame.

        ``others``: cards seen there now (the card below a fanned pile's top): their area is
        left out, and the rest of the place must be table.
        """
        import cv2

        if self._image is None:
            return False
        self._prepare()
        if self._table is None or self._lab is None:
            return False
        c = quad.mean(axis=0)
        inner = np.round((c + (quad - c) * 0.8) * self.scale).astype(np.int32)
        # Work in the place's bounding box only: a frame has many places to look at.
        h, w = self._lab.shape[:2]
        x0, y0 = np.clip(inner.min(axis=0), 0, [w, h])
        x1, y1 = np.clip(inner.max(axis=0) + 1, 0, [w, h])
        if x1 <= x0 or y1 <= y0:
            return False
        lab = self._lab[y0:y1, x0:x1]
        offset = np.array([x0, y0])
        mask = np.zeros(lab.shape[:2], np.uint8)
        cv2.fillConvexPoly(mask, inner - offset, 255)
        whole = int((mask > 0).sum())
        for other in others or []:
            oc = other.mean(axis=0)
            grown = np.round((oc + (other - oc) * 1.05) * self.scale).astype(np.int32)
            cv2.fillConvexPoly(mask, grown - offset, 0)
        sel = mask > 0
        if sel.sum() < max(6, 0.1 * whole):
            return False
        pixels = lab[sel]
        med, mad = self._table
        tol = np.array(
            [
                self.light_tolerance + 3 * mad[0],
                self.chroma_tolerance + 3 * mad[1],
                self.chroma_tolerance + 3 * mad[2],
            ],
            np.float32,
        )
        table_like = np.all(np.abs(pixels - med) <= tol, axis=1).mean()
        if table_like < self.table_fraction:
            return False
        if self._prev is not None and self._prev.shape == self._lab.shape:
            change = float(np.abs(self._prev[y0:y1, x0:x1][sel] - pixels).mean())
            if change > self.calm:
                return False
        return True


@dataclass
class _Track:
    id: int
    code: str
    corners: np.ndarray
    first_seen: float
    last_seen: float
    hits: deque
    best: float = 0.0  # the surest reading of its code so far
    conf: float = 0.0  # its reading's confidence when last seen
    least: float = 1.0  # the least sure reading of its code so far
    seen: int = 0  # sightings in all
    # Sightings in the same frame as a present card of its code that holds its centre.
    with_twin: int = 0
    confirmed: bool = False
    # When it was laid (confirmed, or laid onto again): later cards may cover earlier ones.
    order: int = -1
    settled: int = 0  # sightings in a row (missed frames aside) at the same place while tentative
    covered: int = 0
    absent_visible: int = 0
    covered_by: _Track | None = None  # the card lying over it
    hidden: int = 0  # frames in a row not seen
    anchor: np.ndarray | None = None  # where it lies on the table, camera shake taken out
    anchor_angle: float = 0.0
    anchor_size: float = 0.0
    anchor_corners: np.ndarray | None = None  # its outline there, camera shake taken out
    # (place, angle, size) seen in a row off the anchor
    pending: list = field(default_factory=list)
    # How much its reading wobbles from frame to frame while it lies still: (shift in card
    # sizes, turn in degrees). A re-laid card must stand out from it.
    wobble: np.ndarray = field(default_factory=lambda: np.zeros(2))
    relaid: int = 0
    extra: dict = field(default_factory=dict)
    # Its outline's recent sizes (card_size): their median is its size, which an outline
    # drawn wrong for a few frames does not change.
    sizes: deque = field(default_factory=lambda: deque(maxlen=SIZE_MEMORY))

    @property
    def size(self) -> float:
        # The same median as numpy's (the middle one, or the mean of the middle two), at a
        # twentieth of its cost: the camera's checks ask every lying card's size each frame.
        return float(statistics.median(self.sizes))

    def card(self, back: tuple[complex, complex] | None = None) -> TrackedCard:
        """Return the card, its corners moved by ``back`` (the camera's moves taken out)."""
        corners = self.corners.copy() if back is None else moved(self.corners, back)
        return TrackedCard(
            self.id, self.code, corners, self.first_seen, self.last_seen, self.relaid
        )


@dataclass(frozen=True)
class _Sought:
    """A lying card as the camera's moves tried in one frame look for it: where it lies
    (its place's centre, ``(1, 2)``), the detections of its code (``found``, their centres
    ``(k, 2)``), how far off a move may find it (card sizes) and its size."""

    track: _Track
    centre: np.ndarray
    found: np.ndarray
    centres: np.ndarray
    still: float
    size: float


class Tracker:
    """Turn per-frame detections into a stable table state and its change events.

    Settings: ``confirm_hits`` still sightings within the last ``window`` frames make a
    card present; ``remove_frames`` frames in a row of evidence (covered, or place visible)
    make it gone. ``match_distance`` is the largest centre distance, in card sizes, at which
    a detection continues a track; ``still`` the largest move, in card sizes, between
    sightings of a card that is being laid. ``min_confidence`` drops weak detections;
    a card becomes present only once one of its readings reached ``sure_confidence``.
    ``visible`` overrides the table model's "place is visible" test (``quad -> bool``).
    ``codes``, when set, are the codes of the game's cards: a reading of any other code is a
    misreading, dropped before it can become a card or cover one. Lying cards of the
    ``watch`` codes are watched in the picture too (:mod:`vision.relay`): a card of the code
    laid onto one so squarely that the outline does not move still changes its picture.

    A lying card seen ``RELAY_SIGHTINGS`` times in a row, alike, turned by more than
    ``relay_angle`` degrees or shifted by more than ``relay_shift`` card sizes (camera shake
    taken out), and by ``WOBBLE_MARGIN`` times as much as its reading wobbles while it lies
    still, is another card of the same code laid onto it: no two cards land alike. So is a
    card found covered by a card of its code: the pair shows as one card, one hidden below.
    """

    def __init__(
        self,
        *,
        confirm_hits: int = 3,
        window: int = 5,
        remove_frames: int = 3,
        match_distance: float = 0.5,
        still: float = 0.15,
        min_confidence: float = MIN_CONFIDENCE,
        sure_confidence: float = SURE_CONFIDENCE,
        table_model: TableModel | None = None,
        visible: Callable[[np.ndarray], bool] | None = None,
        relay_angle: float = 0.8,
        relay_shift: float = 0.02,
        codes: Collection[str] | None = None,
        watch: Collection[str] = (),
    ) -> None:
        if not 1 <= confirm_hits <= window:
            raise ValueError(f"need 1 <= confirm_hits <= window, got {confirm_hits}, {window}")
        self.confirm_hits = confirm_hits
        self.window = window
        self.remove_frames = remove_frames
        self.match_distance = match_distance
        self.still = still
        self.min_confidence = min_confidence
        self.sure_confidence = sure_confidence
        self.table_model = table_model or TableModel()
        self.visible_override = visible
        self.relay_angle = relay_angle
        self.relay_shift = relay_shift
        self.codes = frozenset(codes) if codes is not None else None
        self.watch = frozenset(watch)
        self._pictures = RelayWatch()
        self._tracks: list[_Track] = []
        self._next_id = 1
        self._order = 0
        # The camera's moves since the first frame (see moved): the table as first seen
        # shows there now.
        self._view: tuple[complex, complex] = (1, 0)
        self._held = 0  # frames in a row the lying cards lay shifted by more than ``still``
        self._settling = 0  # frames left, after a knock was carried, before cards lie still
        self._times: deque[float] = deque(maxlen=window)  # the last frames' times
        # The view as each of the last frames (since a knock was carried) came in.
        self._views: deque[tuple[complex, complex]] = deque(maxlen=window)
        # The shifts (pixels) the lying cards showed at, off their places as last taken from
        # one frame, and where the camera keeping still shows them, off those places (see
        # _note_offset).
        self._offsets: list[complex] | None = []  # (None: no longer noted)
        self._centre = 0j
        # The cards' steps (pixels) from frame to frame, and how far the shake they show moves
        # the view (see _note_step).
        self._steps: deque[complex] = deque(maxlen=SHAKE_MEMORY)
        self._reach = 0.0
        self.time = 0.0

    # ---- public ---------------------------------------------------------------
    @property
    def state(self) -> TableState:
        """Return the stable state: confirmed cards in the order they were laid (a card laid
        onto one of its code counts as laid then), where they lie in the view as first seen
        (a camera bumped since is taken out)."""
        cards = sorted((t for t in self._tracks if t.confirmed), key=lambda t: t.order)
        back = None if self._view == (1, 0) else inverse(self._view)
        return TableState(self.time, tuple(t.card(back) for t in cards))

    @property
    def view(self) -> tuple[complex, complex]:
        """Return the camera's moves since the first frame: a point z = x + iy of the table
        as first seen shows now at a·z + b (|a| how much larger the cards look)."""
        return self._view

    def to_view(self, points: np.ndarray) -> np.ndarray:
        """Return ``points`` ``(n, 2)`` of the table as first seen where they show now (the
        camera's moves since, a bump, put in)."""
        return moved(np.asarray(points, np.float32), self._view)

    def to_table(self, points: np.ndarray) -> np.ndarray:
        """Return ``points`` ``(n, 2)`` of the view now where they lay in the table as first
        seen (the camera's moves since taken out): the stable state's pixels."""
        return moved(np.asarray(points, np.float32), inverse(self._view))

    def out_of_view(self, width: int, height: int) -> list[TrackedCard]:
        """Return the lying cards (as :attr:`state` gives them) that a camera moved since no
        longer shows: their middles lie outside its ``width`` × ``height`` picture. What is
        laid on them or taken from them cannot be seen."""
        cards = self.state.cards
        if not cards or self._view == (1, 0):
            return []
        middles = self.to_view(np.array([c.corners.mean(axis=0) for c in cards]))
        # numpy's stubs: all() over an axis may be one bool (not of these 2-D arrays)
        inside: np.ndarray = (middles >= 0).all(axis=1) & (middles < [width, height]).all(axis=1)  # type: ignore[assignment]
        return [c for c, shown in zip(cards, inside, strict=True) if not shown]

    def seed(self, cards: list[tuple[str, np.ndarray]], time: float = 0.0) -> None:
        """Start from known cards (code, corners ``(4, 2)``) as already present, no events."""
        for code, corners in cards:
            t = self._new_track(code, np.asarray(corners, np.float32), time)
            self._confirm(t)

    def update(
        self, detections: Detections, time: float, image: np.ndarray | None = None
    ) -> list[TableEvent]:
        """Feed one frame's detections (and its BGR image) at ``time``; return the events."""
        self.time = float(time)
        self._times.append(self.time)
        self._views.append(self._view)
        if len(detections) and self.min_confidence > 0:
            detections = detections[detections.confidence >= self.min_confidence]
        if len(detections) and self.codes is not None:
            detections = detections[np.array([c in self.codes for c in detections.codes])]
        matched = self._match(detections)
        step = self._step(matched, detections)
        camera = self._camera_move(detections, matched)
        if camera is not None:
            self._carry(camera)
            matched = self._match(detections)
        # While the view swings (a knock's smeared frames) the cards seem to move with it:
        # none is laid or taken away until it has come to rest, nor laid onto until a
        # while after.
        swinging = camera is None and self._swinging(matched, detections)
        self._settling = max(self._settling - 1, 0)
        quiet = swinging or self._settling > 0
        confirmed_quads = [t.corners for t in self._tracks if t.confirmed]
        self.table_model.new_frame(image, confirmed_quads + list(detections.corners))
        events: list[TableEvent] = []
        seen_tracks: set[int] = set()
        watched: list[_Track] = []
        shake = self._shake(matched, detections)
        if camera is None and not quiet:  # (the view at rest: a knock's frames are no shake)
            self._note_step(step)
            self._note_offset(shake)
        shake = shake or (1 + 0j, 0j)
        for det_index, track in matched.items():
            seen_tracks.add(track.id)
            corners = detections.corners[det_index]
            step = float(np.linalg.norm(corners.mean(axis=0) - track.corners.mean(axis=0)))
            size = card_size(corners)
            if not track.confirmed:
                if swinging:
                    track.settled = 0
                elif step <= self.still * size:
                    track.settled += 1
                    turn = _turn(_axis_angle(corners), _axis_angle(track.corners))
                    track.wobble = 0.7 * track.wobble + 0.3 * np.array([step / size, turn])
                else:
                    track.settled = 1
            conf = float(detections.confidence[det_index])
            # A lying card read unsurely in an outline clearly larger than its own is seen
            # there, but the outline is drawn round more than the card (a hand, the next
            # pile): it does not move the card, which would leave its own place to a second.
            drawn_round = (
                track.confirmed
                and conf < self.sure_confidence
                and _resized(size, track.size) > SIZE_GATE
            )
            if track.confirmed and not drawn_round and not quiet:
                relaid = track.relaid
                self._check_relaid(track, corners, shake, events)
                if track.code in self.watch:
                    if track.relaid != relaid:
                        self._pictures.forget(track.id)
                    else:
                        watched.append(track)
            track.hidden = 0
            track.conf = conf
            track.best = max(track.best, track.conf)
            track.least = min(track.least, track.conf)
            track.seen += 1
            if not drawn_round:
                track.sizes.append(size)
                track.corners = corners.copy()
            track.last_seen = self.time
            track.hits.append(True)
            track.covered = 0
            track.absent_visible = 0
        if watched and image is not None:
            self._watch_pictures(image, watched, list(matched.values()), shake, events)
        for i in range(len(detections)):
            if i not in matched:
                t = self._new_track(detections.codes[i], detections.corners[i].copy(), self.time)
                t.best = t.conf = t.least = float(detections.confidence[i])
                t.seen = 1
                seen_tracks.add(t.id)
        for track in self._tracks:
            if track.id not in seen_tracks:
                track.hits.append(False)
                track.hidden += 1
            elif not track.confirmed and self._twin_of(track, seen_tracks) is not None:
                track.with_twin += 1
        # Confirm tentative cards that have lain still long enough.
        for track in list(self._tracks):
            if not track.confirmed and self._seen_enough(track):
                if (
                    track.settled >= min(self.confirm_hits, 2)
                    and track.best >= self.sure_confidence
                    and not self._holds_a_card(track)
                    and not self._part_of_a_card(track)
                    and not self._misread_of(track)
                ):
                    self._confirm(track)
                    events.append(
                        TableEvent("laid", track.code, self.time, track.id, track.corners.copy())
                    )
        # Gather evidence for confirmed cards not seen this frame.
        newly_seen = [t for t in self._tracks if t.confirmed and t.id in seen_tracks]
        for track in list(self._tracks):
            if not track.confirmed or track.id in seen_tracks or swinging:
                continue
            cover = self._covering(track, newly_seen)
            if cover is not None:
                track.covered += 1
                track.covered_by = cover
            elif self._place_visible(track.corners, newly_seen):
                track.absent_visible += 1
            else:
                # A card once seen squarely under a later one stays under it while its place
                # is unclear (a hand over the pile): only seeing it again clears that.
                track.absent_visible = 0
            if track.covered >= self.remove_frames:
                cover = track.covered_by
                assert cover is not None, "counted only once a card covers it"
                if cover.code == track.code and any(t is cover for t in self._tracks):
                    # Its twin lies over it (a Skip-Bo discard laid near squarely on a card
                    # of its code): the pair shows as one card, with this one hidden below.
                    cover.relaid += 1 + track.relaid
                events.append(self._remove(track, f"covered by {cover.code}"))
            elif track.absent_visible >= self.remove_frames:
                events.append(self._remove(track, "its place is visible without it"))
        # Forget tentative cards not seen for a whole window (one read only surely, for
        # SPORADIC windows).
        self._tracks = [
            t
            for t in self._tracks
            if t.confirmed
            or any(t.hits)
            or (t.least >= SPORADIC_SURE and t.hidden <= self.window * SPORADIC)
        ]
        return _pair_moves(events)

    def _seen_enough(self, track: _Track) -> bool:
        """Return whether a tentative card was seen often enough to be laid: in
        ``confirm_hits`` of the last ``window`` frames, or, read only ever surely (a card
        mostly hidden in an outline drawn round it and the card below, read as that card),
        ``confirm_hits`` times in all."""
        if sum(track.hits) >= self.confirm_hits:
            return True
        return track.least >= SPORADIC_SURE and track.seen >= self.confirm_hits

    # ---- internals ------------------------------------------------------------
    def _new_track(self, code: str, corners: np.ndarray, time: float) -> _Track:
        t = _Track(self._next_id, code, corners, time, time, deque([True], maxlen=self.window))
        t.sizes.append(card_size(corners))
        t.settled = 1
        # Until it has been watched lying still, assume it wobbles as much as a re-lay moves.
        t.wobble = np.array([self.relay_shift, self.relay_angle])
        self._next_id += 1
        self._tracks.append(t)
        return t

    def _camera_move(
        self, detections: Detections, matched: dict[int, _Track]
    ) -> tuple[complex, complex] | None:
        """Return the camera's move (see :func:`moved`) when the lying cards all moved alike
        from where they lie (:func:`_place`), more than its shake moves them, else None.

        The lying cards found again, most of them, tell the move at once (a push of the
        stand, or a slow sag). Else (a bump of half a card or more, or a hand over the table)
        each card read elsewhere, under its code, proposes the move that took it there. A
        move counts the cards it finds where it takes them, within their wobble; it must find
        more than the camera keeping still but for its shake does, half the lying cards at
        least, and two it moved (one card moved is a card, not the camera).
        """
        lying = [t for t in self._tracks if t.confirmed and t.hidden < self.window]
        if len(lying) < 2:
            return None
        ids = {t.id for t in lying}
        found = [(t, i) for i, t in matched.items() if t.id in ids]
        places = [_place(t) for t, _ in found]
        before = np.array([p.mean(axis=0) for p in places]).reshape(-1, 2)
        after = detections.centers[[i for _, i in found]].reshape(-1, 2)
        shake = np.median(after - before, axis=0) if found else np.zeros(2)
        size = float(np.median([card_size(p) for p in places] or [1]))
        shifted = float(np.linalg.norm(shake - self._centred())) / size
        at_once = similarity(before, after) if len(found) >= 2 else None
        held = False
        if at_once is not None and len(found) >= len(lying) / 2:
            # A shift held for a window of frames is the camera moved, however little (it
            # sagged, or stopped short of a carry): a shake comes and goes.
            self._held = self._held + 1 if shifted > self._shift_limit(self.still, size) else 0
            held = self._held >= self.window
            if not self._moves_cards(at_once, lying, held):
                return None
        # The cards that lie where they lay, but for the camera's shake (a shift this large,
        # or held, is no shake).
        beyond = shifted > self._shift_limit(VIEW_SHIFT, size) or held
        still = (1, 0j if beyond else complex(*shake))
        # Every move tried looks for the same cards among the same detections.
        sought, centres = self._sought(lying, detections), detections.centers
        kept = {s.track.id for s, _ in self._found_after(still, sought)}
        need = max(2, int(np.ceil(len(lying) / 2)), len(kept) + 1)

        def judged(move: tuple[complex, complex] | None) -> tuple[Any, list]:
            move = self._fitted(move, sought, centres)
            pairs = self._found_after(move, sought) if move is not None else []
            newly = sum(s.track.id not in kept for s, _ in pairs)
            enough = len(pairs) >= need and newly >= 2
            if move is not None and enough and self._moves_cards(move, lying, held):
                return move, pairs
            return None, pairs

        best, pairs = judged(at_once)
        if best is not None:
            return best
        codes = np.array(detections.codes)
        seen = {(s.track.id, j) for s, j in pairs}
        for t in lying:
            for i in np.flatnonzero(codes == t.code):
                if (t.id, int(i)) in seen:
                    continue  # the card lies where a move tried already takes it
                move, pairs = judged(_card_move(_place(t), detections.corners[i]))
                seen.update((s.track.id, j) for s, j in pairs)
                if move is not None:
                    best, need = move, len(pairs) + 1
        return best

    def _fitted(
        self, move: tuple[complex, complex] | None, sought: list[_Sought], centres: np.ndarray
    ) -> tuple[complex, complex] | None:
        """Return ``move`` fitted to the lying cards it finds (within ``match_distance``, then
        within their wobble), or None when it finds fewer than two or is no camera's;
        ``centres``: the detections' ``(n, 2)``."""
        if move is None or not _camera_like(move):
            return None
        for tol in (self.match_distance, None):
            pairs = self._found_after(move, sought, tol)
            if len(pairs) < 2:
                return None
            move = similarity(
                np.array([s.centre[0] for s, _ in pairs]), centres[[j for _, j in pairs]]
            )
            if not _camera_like(move):
                return None
        return move

    def _sought(self, tracks: list[_Track], detections: Detections) -> list[_Sought]:
        """Return the ``tracks`` with a detection of their code, as :meth:`_found_after`
        looks for them."""
        centres = detections.centers
        codes = np.array(detections.codes)
        out = []
        for t in tracks:
            same = np.flatnonzero(codes == t.code)
            if len(same):
                centre = _place(t).mean(axis=0, keepdims=True)
                out.append(_Sought(t, centre, same, centres[same], self._still_limit(t)[0], t.size))
        return out

    def _found_after(
        self, move: tuple[complex, complex], sought: list[_Sought], tol: float | None = None
    ) -> list[tuple[_Sought, int]]:
        """Return the cards sought (:meth:`_sought`) with a detection of their code within
        ``tol`` card sizes (None: within their wobble, :meth:`_still_limit`) of where
        ``move`` takes them, each with the nearest such detection."""
        out = []
        for s in sought:
            to = moved(s.centre, move)[0]
            d = np.linalg.norm(s.centres - to, axis=1)
            k = int(np.argmin(d))
            limit = s.still if tol is None else tol
            if d[k] <= limit * s.size * abs(move[0]):
                out.append((s, int(s.found[k])))
        return out

    def _still_limit(self, track: _Track) -> np.ndarray:
        """Return how far (card sizes) and how turned (degrees) a lying card may seem to
        move, its reading's wobble and the camera's shake taken out, and still lie there."""
        return np.maximum([self.relay_shift, self.relay_angle], WOBBLE_MARGIN * track.wobble)

    def _moves_cards(
        self, move: tuple[complex, complex], lying: list[_Track], held: bool = False
    ) -> bool:
        """Return whether ``move`` moves the lying cards more than the camera's shake: all
        of them by more than ``VIEW_SHIFT`` (``still``, the shift ``held``; see
        :meth:`_shift_limit`), or one of them, the shake taken out, off its place
        (:meth:`_still_limit`); of two, by more than the shake moves the view, too (one of
        two outlines drawn a few pixels off moves their median, the other card with it)."""
        places = [_place(t) for t in lying]
        centres = np.array([p.mean(axis=0) for p in places])
        sizes = np.array([card_size(p) for p in places])
        shifts = (moved(centres, move) - centres - self._centred()) / sizes[:, None]
        shake = np.median(shifts, axis=0)
        limit = self._shift_limit(self.still if held else VIEW_SHIFT, float(np.median(sizes)))
        if float(np.linalg.norm(shake)) > limit:
            return True
        turn = abs(float(np.degrees(np.angle(move[0]))))
        off = np.linalg.norm(shifts - shake, axis=1)
        wobble = WOBBLE_MARGIN * np.array([t.wobble for t in lying])
        limits = np.maximum([self.relay_shift, self.relay_angle], wobble)
        if len(lying) == 2:
            limits[:, 0] = np.maximum(limits[:, 0], self._reach / sizes)
        return bool(np.any(off > limits[:, 0]) or np.any(turn > limits[:, 1]))

    def _swinging(self, matched: dict[int, _Track], detections: Detections) -> bool:
        """Return whether the lying cards found lie off their places (:func:`_place`) by
        more than a shake moves them (``VIEW_SHIFT``, :meth:`_shift_limit`; median): the
        view is on its way somewhere, a knock's smeared frames, not yet found as a move.
        (Three cards at least: of two, one moved by a hand would be half of them.)"""
        found = [(t, i) for i, t in matched.items() if t.confirmed]
        if len(found) < 3:
            return False
        places = [_place(t) for t, _ in found]
        sizes = [card_size(p) for p in places]
        centre = self._centred()
        shifts = [
            np.linalg.norm(detections.centers[i] - p.mean(axis=0) - centre) / size
            for (_, i), p, size in zip(found, places, sizes, strict=True)
        ]
        return float(np.median(shifts)) > self._shift_limit(VIEW_SHIFT, float(np.median(sizes)))

    def _knock(self, move: tuple[complex, complex]) -> bool:
        """Return whether ``move``, with the moves carried in the window of frames before
        it, takes the lying cards further than a shake moves them (``VIEW_SHIFT``,
        :meth:`_shift_limit`; median): the camera knocked (at one go, or a step at a time,
        each less than a shake), not sagging."""
        places = [_place(t) for t in self._tracks if t.confirmed]
        if not places:
            return False
        centres = np.array([p.mean(axis=0) for p in places])
        sizes = np.array([card_size(p) for p in places])
        # where they lay as the window's first frame came in (moves carried since undone)
        window_start = moved(centres, chained(inverse(self._view), self._views[0]))
        shifts = np.linalg.norm(moved(centres, move) - self._centred() - window_start, axis=1)
        shifts /= sizes
        return float(np.median(shifts)) > self._shift_limit(VIEW_SHIFT, float(np.median(sizes)))

    def _carry(self, move: tuple[complex, complex]) -> None:
        """Carry every card along with the camera's ``move``: where it lies, its outline
        and its anchor (its wobble stays), and count the move in the view.

        A knock carries each card from its place, not from where the smeared frames on the
        way showed it; and from the new view each card's outline wobbles anew, as a
        just-laid card's is taken to until seen lying still. For a window of frames after
        it no card is laid onto another, and the cards first found in the window of frames
        before it are forgotten: found while the view was on its way, they lie in no one
        view, and were often read off a smear (a 7♠ read as 7♣). A card that is there is
        found again."""
        a = move[0]
        turn, zoom = float(np.degrees(np.angle(a))), abs(a)
        knock = self._knock(move)
        if knock:
            self._settling = self.window
            self._views.clear()
            since = self._times[0]
            self._tracks = [t for t in self._tracks if t.confirmed or t.first_seen < since]
        for t in self._tracks:
            t.corners = moved(_place(t) if knock else t.corners, move)
            if knock and t.confirmed:
                t.wobble = np.maximum(t.wobble, [self.relay_shift, self.relay_angle])
            t.sizes = deque((s * zoom for s in t.sizes), maxlen=SIZE_MEMORY)
            if t.anchor is not None:
                assert t.anchor_corners is not None, "set with the anchor"
                t.anchor = moved(t.anchor[None], move)[0]
                t.anchor_corners = moved(t.anchor_corners, move)
                t.anchor_angle += turn
                t.anchor_size *= zoom
            t.pending = [(moved(p[None], move)[0], g + turn, s * zoom) for p, g, s in t.pending]
        self._view = chained(self._view, move)
        self._held = 0
        self._offsets, self._centre = [], 0j  # the places are this frame's now
        self._pictures.keep_only(set())  # their pictures lie elsewhere now

    def _shake(
        self, matched: dict[int, _Track], detections: Detections
    ) -> tuple[complex, complex] | None:
        """Return how the camera moved the table since its lying cards were anchored (its
        shake, or a slow sag, turn or zoom not yet carried), as a similarity (see
        :func:`moved`): the lying cards' median shift, so that one card moved by a hand
        does not move the others; a turn and zoom as well only where their places show one
        clearly (:meth:`_turned`); None where fewer than two lying cards show."""
        found = [
            (t, detections.corners[i])
            for i, t in matched.items()
            if t.confirmed and t.anchor is not None and t.hidden == 0
        ]
        if len(found) < 2:
            return None  # too few lying cards seen to tell
        src = np.array([t.anchor for t, _ in found])
        dst = np.array([c.mean(axis=0) for _, c in found])
        sizes = np.array([t.anchor_size for t, _ in found])
        shift = np.median(dst - src, axis=0)
        move = (1 + 0j, complex(shift[0], shift[1]))
        return self._turned(src, dst, sizes) or move

    def _note_offset(self, shake: tuple[complex, complex] | None) -> None:
        """Note the shift the lying cards show at off their places (``shake``, see
        :meth:`_shake`), and where the camera keeping still shows them: off their places by
        the mean of the shifts noted, as far as its shake reaches (see :meth:`_note_step`).

        The places come from one frame (the cards first anchored, or carried with a camera
        move), shaken like any: measured from them, a later frame shaken the other way shows
        both shakes, and a camera shaking 1.5 px reads as knocked (a third of a card) where
        cards are 27 px wide. Noted for ``CENTRE_FRAMES`` frames, unless the later shifts
        lie elsewhere than the earlier ones by more than the shake's spread explains: the
        camera sags, and a sag is carried as it goes."""
        if not any(t.confirmed and t.anchor is not None for t in self._tracks):
            self._offsets, self._centre = [], 0j
        if shake is None or shake[0] != 1 or self._offsets is None:
            return  # (a turn or zoom is no shake)
        self._offsets.append(shake[1])
        offsets = np.array(self._offsets)
        half = len(offsets) // 2
        # The halves' means differ by 2/√n times the shake's spread each way, shaking: by three
        # times that, the camera drifts.
        drift = abs(offsets[half:].mean() - offsets[:half].mean()) if half >= 2 else 0.0
        if drift > 6 / SHAKE_SIGMAS * self._reach / np.sqrt(len(offsets)):
            self._offsets, self._centre = None, 0j
            return
        mean = complex(offsets.mean())
        self._centre = mean if abs(mean) <= self._reach else mean * self._reach / abs(mean)
        if len(offsets) >= CENTRE_FRAMES:
            self._offsets = None

    def _centred(self) -> np.ndarray:
        """Return where the camera keeping still shows the lying cards, off their places
        (pixels ``(2,)``, see :meth:`_note_offset`): their shifts are measured from there."""
        return np.array([self._centre.real, self._centre.imag])

    def _step(self, matched: dict[int, _Track], detections: Detections) -> complex | None:
        """Return the cards' step (pixels) since the last frame: of those seen in both, the
        median, so that a card moved by a hand does not count; None if fewer than two."""
        seen = [(t, i) for i, t in matched.items() if t.hidden == 0]
        if len(seen) < 2:
            return None
        before = np.array([t.corners.mean(axis=0) for t, _ in seen])
        x, y = np.median(detections.centers[[i for _, i in seen]] - before, axis=0)
        return complex(x, y)

    def _note_step(self, step: complex | None) -> None:
        """Note the cards' ``step`` in a frame where the view kept still (see :meth:`_step`),
        and from the last ``SHAKE_MEMORY`` steps how far the camera's shake moves the view
        (``SHAKE_SIGMAS`` times its spread each way, in pixels; a sag's steady drift taken
        out)."""
        if step is None:
            return
        self._steps.append(step)
        if len(self._steps) >= 3:
            steps = np.array(self._steps)
            drift = complex(np.median(steps.real), np.median(steps.imag))
            # A step is the difference of two shakes: its length's median is 2·√(ln 2)
            # times the shake's spread each way.
            spread = float(np.median(np.abs(steps - drift))) / (2 * np.sqrt(np.log(2)))
            self._reach = SHAKE_SIGMAS * spread

    def _shift_limit(self, share: float, size: float) -> float:
        """Return how far (card sizes) lying cards ``size`` pixels large must shift alike to
        be shifted by more than ``share`` of a card (``still``, ``VIEW_SHIFT``), the camera's
        shake taken to shift them by ``still`` at most: cards that look small enough are
        shifted further by it."""
        return max(share, share / self.still * self._reach / size)

    def _turned(
        self, src: np.ndarray, dst: np.ndarray, sizes: np.ndarray
    ) -> tuple[complex, complex] | None:
        """Return the similarity fitted to cards anchored at ``src`` and found at ``dst`` when
        it explains their places clearly better than a shift does, else None.

        A camera turning or zooming slowly (a drooping holder) moves far cards more than near
        ones: a shift alone would have each card learn that as its own drift, late, and take
        it for a card laid onto it. The outlines' own wobble fits no turn. So the fit counts
        from ``TURN_CARDS`` cards, leaving out those it finds twice the median off (moved by a
        hand), and only where it leaves ``TURN_EVIDENCE`` times less squared error than the
        shift, which leaves them off by more than half a re-lay's move (root mean square)."""
        if len(src) < TURN_CARDS:
            return None
        fit = similarity(src, dst)
        off = np.linalg.norm(dst - moved(src, fit), axis=1) / sizes
        keep = off <= max(2 * float(np.median(off)), self.relay_shift / 2)
        if keep.sum() < TURN_CARDS:
            return None
        src, dst, sizes = src[keep], dst[keep], sizes[keep]
        fit = similarity(src, dst)
        fitted = float(np.sum((np.linalg.norm(dst - moved(src, fit), axis=1) / sizes) ** 2))
        moves = dst - src
        plain = float(np.sum((np.linalg.norm(moves - moves.mean(axis=0), axis=1) / sizes) ** 2))
        if plain <= len(src) * (self.relay_shift / 2) ** 2 or plain < TURN_EVIDENCE * fitted:
            return None
        return fit if _camera_like(fit) else None

    def _check_relaid(
        self,
        track: _Track,
        corners: np.ndarray,
        shake: tuple[complex, complex],
        events: list[TableEvent],
    ) -> None:
        """Follow where a lying card lies; ``RELAY_SIGHTINGS`` sightings in a row that lie
        alike but differ from it (turned, or shifted with the camera's shake taken out) are
        another card laid onto it. (A hand passing over the card bends its outline for a
        frame or two, each time differently.) Sightings of another size are not a card laid
        onto it, which would be its size: they say only where its outline now lies (more of
        the card shows once the hand laying it is drawn back; an outline drawn round the
        pile below it for a while)."""
        outline = moved(corners, inverse(shake))
        here, angle, size = outline.mean(axis=0), _axis_angle(outline), card_size(outline)
        if track.anchor is None:
            _anchor(track, outline, angle, size)
            return
        assert track.anchor_corners is not None, "set with the anchor"
        limit = self._still_limit(track)

        def differs(place: np.ndarray, turned: float, sized: float) -> tuple[bool, float, float]:
            shift = float(np.linalg.norm(here - place)) / size
            turn = _turn(angle, turned)
            resized = abs(_resized(size, sized)) > SIZE_GATE
            return bool(shift > limit[0] or turn > limit[1] or resized), shift, turn

        away, shift, turn = differs(track.anchor, track.anchor_angle, track.anchor_size)
        if away:
            if track.pending and differs(*track.pending[0])[0]:
                track.pending = []  # not where the last sightings were: still settling
            track.pending.append((here, angle, size))
            if len(track.pending) >= RELAY_SIGHTINGS:
                resized = abs(_resized(size, track.anchor_size)) > SIZE_GATE
                # A card laid onto it moves all its corners; an outline that keeps two
                # neighbouring corners where they were has one edge drawn elsewhere (round
                # part of the pile below, or short of a hand): no card moves so.
                edge = _one_edge_moved(track.anchor_corners, outline, limit[0] * size)
                under = self._partly_under(track, shake)
                track.pending = []
                _anchor(track, outline, angle, size)
                if resized or edge or under:
                    return
                self._laid_onto(track, corners, events)
            return
        track.pending = []
        track.anchor = 0.8 * track.anchor + 0.2 * here
        track.anchor_corners = outline
        track.wobble = 0.9 * track.wobble + 0.1 * np.array([shift, turn])

    def _laid_onto(self, track: _Track, corners: np.ndarray, events: list[TableEvent]) -> None:
        """Count another card of the track's code laid onto it, now lying in ``corners``."""
        track.relaid += 1
        track.order = self._order  # the card laid onto it lies on top of all before
        self._order += 1
        events.append(
            TableEvent(
                "laid",
                track.code,
                self.time,
                track.id,
                corners.copy(),
                reason=f"onto a {track.code}",
            )
        )

    def _watch_pictures(
        self,
        image: np.ndarray,
        watched: list[_Track],
        seen: list[_Track],
        shake: tuple[complex, complex],
        events: list[TableEvent],
    ) -> None:
        """Look for a card laid squarely onto a watched card in the picture (see
        :mod:`vision.relay`), against the lying cards seen round it."""
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
        lying = [t for t in seen if t.confirmed]
        for track in watched:
            centre = track.corners.mean(axis=0)

            def away(t: _Track, centre: np.ndarray = centre) -> float:
                return float(np.linalg.norm(t.corners.mean(axis=0) - centre))

            around = sorted((t for t in lying if away(t) > track.size), key=away)
            if self._pictures.check(gray, track.id, track.corners, [t.corners for t in around]):
                self._laid_onto(track, track.corners, events)
                # Its outline now is the new card's: the outline check starts from there.
                o = moved(track.corners, inverse(shake))
                _anchor(track, o, _axis_angle(o), card_size(o))
                track.pending = []
        self._pictures.keep_only({t.id for t in self._tracks})

    def _confirm(self, track: _Track) -> None:
        track.confirmed = True
        track.order = self._order
        self._order += 1

    def _remove(self, track: _Track, reason: str) -> TableEvent:
        self._tracks.remove(track)
        return TableEvent(
            "removed", track.code, self.time, track.id, track.corners.copy(), reason=reason
        )

    def _place_visible(self, quad: np.ndarray, seen: list[_Track]) -> bool:
        if self.visible_override is not None:
            return bool(self.visible_override(quad))
        center, size = quad.mean(axis=0), card_size(quad)
        others = [
            t.corners
            for t in seen
            if float(np.linalg.norm(t.corners.mean(axis=0) - center)) < 1.2 * size
        ]
        return self.table_model.visible(quad, others)

    def _covering(self, track: _Track, seen: list[_Track]) -> _Track | None:
        """Return a card laid after ``track`` that now lies over most of it.

        Over its centre and at least three of its corners (``COVER_SHARE``): a card laid on a
        pile covers the one below, a card of a fanned pile leaves the one below it showing.
        """
        c = track.corners.mean(axis=0)
        for other in seen:
            if other.order > track.order and point_in_quad(c, other.corners):
                if _corners_under(track.corners, other) >= 3:
                    return other
        return None

    def _partly_under(self, track: _Track, shake: tuple[complex, complex]) -> bool:
        """Return whether a card laid after ``track``, seen lately, lies fanned over where it
        lies (its anchor, camera shake taken out): over two or three of its corners (see
        ``COVER_SHARE``), not all four. A card laid onto it would lie over that card too,
        whose cover shows it; its outline, the strip left showing, jumps about. (A card read
        over all of it, centred, may be the one laid onto it misread.)"""
        assert track.anchor_corners is not None, "asked only of an anchored card"
        place = moved(track.anchor_corners, shake)
        return any(
            other.confirmed
            and other.order > track.order
            and other.hidden == 0
            and _corners_under(place, other) in (2, 3)
            for other in self._tracks
        )

    def _holds_a_card(self, track: _Track) -> bool:
        """Return whether ``track``'s outline holds a present card of much smaller size: it is
        drawn round two cards lying side by side (read as some third card), not one card.
        Cards near each other look the same size; a pile's lower card holds one of its own."""
        size = card_size(track.corners)
        for other in self._tracks:
            if other.hidden >= self.window:
                continue  # not seen for a while: under this card, which was laid onto it
            if other.confirmed and card_size(other.corners) <= HOLDS_SIZE * size:
                if all(point_in_quad(p, track.corners) for p in _shrunk(other.corners)):
                    return True
        return False

    def _part_of_a_card(self, track: _Track) -> bool:
        """Return whether ``track`` is an outline of a present card of its code, drawn
        wrong: centred on that card, but of another size (shrunk to the part a hand or a
        card fanned over it leaves showing, or grown round the pile below), or seen in its
        stead (the card's outline drawn in two places in turn). A second card of the code
        laid onto or fanned over the first is whole — as large as it, or larger — and the
        first still shows beside it."""
        other = self._twin_of(track)
        if other is None:
            return False
        resized = _resized(track.size, other.size)
        return resized < -PART_GATE or resized > SIZE_GATE or track.with_twin < TWIN_SIGHTINGS

    def _twin_of(self, track: _Track, seen: set[int] | None = None) -> _Track | None:
        """Return a present card of the track's code (seen this frame, if ``seen`` is given)
        whose outline holds the track's centre."""
        center = track.corners.mean(axis=0)
        for other in self._tracks:
            if other.confirmed and other.code == track.code and other is not track:
                if (seen is None or other.id in seen) and point_in_quad(center, other.corners):
                    return other
        return None

    def _misread_of(self, track: _Track) -> bool:
        """Return whether ``track`` is a present card of another code misread: centred on
        it, while that card is seen in the same frame and read surer than ``track`` ever was.

        A card laid onto a pile is its top card, read as surely as any card; the one below
        shows at most a strip, which reads less surely. The outline of a top card read
        unsurely as another code now and then (a 2 taken for a 3) is not a card laid.
        """
        center = track.corners.mean(axis=0)
        for other in self._tracks:
            if other.confirmed and other.hidden == 0 and other.code != track.code:
                if other.conf > track.best + MISREAD_MARGIN and point_in_quad(
                    center, _shrunk(other.corners, 0.5)
                ):
                    return True
        return False

    def _match(self, detections: Detections) -> dict[int, _Track]:
        """Match detections to tracks of the same code, nearest first; ``{det: track}``.

        Nearest counts the size too: an outline drawn round two cards of a pile must not
        take the lower card's place, or the card itself, found where it lies, would become
        a second card. And a lying card is not matched to an outline clearly smaller than
        it: the part a hand leaves showing would drag it (and seem a card laid onto it). A
        larger outline may be the whole card, first seen half under the hand laying it.
        """
        if not len(detections) or not self._tracks:
            return {}
        centers = detections.centers
        pairs = []
        for i, code in enumerate(detections.codes):
            size = card_size(detections.corners[i])
            for track in self._tracks:
                if track.code != code:
                    continue
                d = float(np.linalg.norm(track.corners.mean(axis=0) - centers[i])) / size
                resized = _resized(size, track.size)
                if track.confirmed and resized < -SIZE_GATE:
                    continue
                if d <= self.match_distance:
                    # Prefer confirmed tracks at equal distance: they are the known cards.
                    d += SIZE_WEIGHT * abs(resized) - (0.01 if track.confirmed else 0.0)
                    pairs.append((d, i, track))
        pairs.sort(key=lambda p: (p[0], p[1], p[2].id))
        out: dict[int, _Track] = {}
        used: set[int] = set()
        for _, i, track in pairs:
            if i in out or track.id in used:
                continue
            out[i] = track
            used.add(track.id)
        return out


def _place(track: _Track) -> np.ndarray:
    """Return where a card lies: its outline with the camera's shake taken out (its anchor),
    or, not yet anchored, as last seen."""
    return track.anchor_corners if track.anchor_corners is not None else track.corners


def _card_move(before: np.ndarray, after: np.ndarray) -> tuple[complex, complex]:
    """Return the similarity that takes one card's outline ``before`` to ``after`` (its
    centre, size and long side; the corners may start anywhere)."""
    turn = (_long_angle(after) - _long_angle(before) + 90.0) % 180.0 - 90.0
    zoom = card_size(after) / card_size(before)
    a = complex(zoom * np.exp(1j * np.radians(turn)))
    c0, c1 = before.mean(axis=0), after.mean(axis=0)
    return a, complex(c1[0], c1[1]) - a * complex(c0[0], c0[1])


def _camera_like(move: tuple[complex, complex]) -> bool:
    """Return whether a bumped camera could move the view by ``move``."""
    turn = abs(float(np.degrees(np.angle(move[0]))))
    return turn <= VIEW_TURN and 1 / VIEW_ZOOM <= abs(move[0]) <= VIEW_ZOOM


def _long_angle(corners: np.ndarray) -> float:
    """Return the direction (degrees) of a quad's longer sides."""
    turned = corners[NEXT_CORNER]  # the same quad from its second corner: the other sides first
    longer = np.linalg.norm(_axis(corners)) >= np.linalg.norm(_axis(turned))
    return _axis_angle(corners if longer else turned)


def _anchor(track: _Track, outline: np.ndarray, angle: float, size: float) -> None:
    """Set where a lying card lies (its outline with the camera's shake taken out)."""
    track.anchor, track.anchor_angle, track.anchor_size = outline.mean(axis=0), angle, size
    track.anchor_corners = outline


def _one_edge_moved(before: np.ndarray, after: np.ndarray, still: float) -> bool:
    """Return whether outline ``after`` keeps two neighbouring corners of ``before`` within
    ``still`` pixels while another moved ``EDGE_MOVED`` times as far (the outlines' corners
    may start anywhere; a card turned a little moves all four alike)."""
    moved = [float(np.linalg.norm(after - c, axis=1).min()) for c in before]
    kept = any(moved[k] <= still and moved[(k + 1) % 4] <= still for k in range(4))
    return kept and max(moved) > EDGE_MOVED * still


def _resized(size: float, before: float) -> float:
    """Return how much an outline's size changed: the log of the ratio (0: the same)."""
    return float(np.log(size / before))


def _corners_under(quad: np.ndarray, other: _Track) -> int:
    """Return how many corners of ``quad``, taken at ``COVER_SHARE`` of its size (a pile's
    cards lie a few degrees and pixels off), lie inside the card ``other``."""
    return sum(point_in_quad(p, other.corners) for p in _shrunk(quad, COVER_SHARE))


def _shrunk(corners: np.ndarray, share: float = 0.9) -> np.ndarray:
    """Return a card's corners moved toward its centre, to ``share`` of its size (an outline
    a pixel or two off still lies inside the card that holds it)."""
    c = corners.mean(axis=0)
    return c + (corners - c) * share


def _turn(a: float, b: float) -> float:
    """Return the angle in degrees between two axis directions (``_axis_angle``), 0–90."""
    d = abs(a - b) % 180.0
    return min(d, 180.0 - d)


def _axis_angle(corners: np.ndarray) -> float:
    """Return the direction (degrees) of a quad's first and third edges, averaged."""
    d = _axis(corners)
    return float(np.degrees(np.arctan2(d[1], d[0])))


def _axis(corners: np.ndarray) -> np.ndarray:
    """Return a quad's first edge plus its third run backwards ``(2,)``: the way they point."""
    return (corners[1] - corners[0]) + (corners[2] - corners[3])


def _pair_moves(events: list[TableEvent]) -> list[TableEvent]:
    """Merge a removal and a lay of the same code in one frame into one ``moved`` event."""
    removed = [e for e in events if e.kind == "removed"]
    if not removed:
        return events
    out: list[TableEvent] = []
    used: set[int] = set()
    for e in events:
        if e.kind == "laid":
            match = next((r for r in removed if r.code == e.code and id(r) not in used), None)
            if match is not None:
                used.add(id(match))
                out.append(
                    TableEvent(
                        "moved", e.code, e.time, e.card_id, e.corners, previous=match.corners
                    )
                )
                continue
        out.append(e)
    return [e for e in out if id(e) not in used]

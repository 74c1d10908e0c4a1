"""Seeing in the picture a card laid squarely onto a card of its own code.

In Skip-Bo a wild may be laid onto a building pile's wild. The code on top stays the same and
the new card often lands within a pixel and a degree or two of the one below: the
recognizer's outline of the pile hardly moves (it wobbles as much from frame to frame). The
picture of the card does change — its edges, its print (a card laid the other way round) —
while the cards around it do not. :class:`RelayWatch` keeps a reference picture of each
watched card and of its neighbours; the camera's shake is measured on the neighbours (OpenCV's
ECC alignment, sub-pixel; where they moved unalike, as under a slow zoom, the similarity their
moves fit), and the card counts as re-laid when, with the shake taken out, its
picture differs from the reference ``RATIO`` times as much as its neighbours' pictures differ
from theirs (noise, light, JPEG) — and as it usually does: a fine print differs more after a
shake — in ``SIGHTINGS`` frames in a row that look alike. A hand passing over it changes it
differently from frame to frame.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.geometry import moved, similarity

RATIO = 1.4  # a changed card differs this many times as much as its unchanged neighbours
FLOOR = 1.0  # grey levels: a difference below this is noise, however clean the neighbours
SIGHTINGS = 3  # frames in a row, changed alike, that make the card re-laid
SETTLE = 2  # frames alike that make a new reference trusted (no hand in it)
REFRESH = 16  # frames after which an unchanged reference is taken again (light, shadows)
MARGIN = 6  # pixels round a card's outline in its picture: its edges and a shake
NEIGHBOURS = 6  # a hand over one or two still leaves four to fit a zoom from
ALIKE_PX = 0.5  # neighbours' shifts this close to their median: the camera only shifted
FIT_EVIDENCE = 4.0  # a similarity must leave this many times less squared error than a shift
MOST_ZOOM = 0.05  # a fitted zoom or turn past this (5%, 3°) is not the camera's between frames
_ECC = (cv2.TERM_CRITERIA_EPS | cv2.TERM_CRITERIA_COUNT, 20, 1e-3)


@dataclass
class _Patch:
    """A card's picture: the grey crop round its outline and where the card lies in it."""

    box: tuple[int, int, int, int]  # x0, y0, x1, y1 in the frame
    pixels: np.ndarray  # float32 crop
    card: np.ndarray  # uint8 mask of the card's outline (grown by a little) in the crop
    inner: np.ndarray  # bool mask of the card well inside its outline


@dataclass
class _Watch:
    card: _Patch
    neighbours: list[_Patch]
    alike: int = 0  # frames since the reference was taken that looked like it
    # How many times as much as its neighbours the card's picture differs from its reference
    # while unchanged: a card with a fine print differs more, shake after shake.
    usual: float = 0.0
    age: int = 0
    candidate: np.ndarray | None = None  # the changed card's picture, shake taken out
    changed: int = 0


def _patch(gray: np.ndarray, quad: np.ndarray) -> _Patch | None:
    h, w = gray.shape
    x0, y0 = np.floor(quad.min(axis=0) - MARGIN).astype(int)
    x1, y1 = np.ceil(quad.max(axis=0) + MARGIN).astype(int)
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return None  # at the picture's edge: the shake would take it out of view
    pixels = gray[y0:y1, x0:x1].astype(np.float32)
    outline = np.zeros(pixels.shape, np.uint8)
    cv2.fillConvexPoly(outline, np.round(quad - [x0, y0]).astype(np.int32), 1)
    card = cv2.dilate(outline, np.ones((5, 5), np.uint8))
    inner = cv2.erode(outline, np.ones((3, 3), np.uint8)).astype(bool)
    if inner.sum() < 50:
        return None
    return _Patch((int(x0), int(y0), int(x1), int(y1)), pixels, card, inner)


def _crop(gray: np.ndarray, patch: _Patch, shake: np.ndarray) -> np.ndarray:
    """Return the frame's picture of the patch's place, the camera's ``shake`` (a 2×3 affine
    from where things lay in the reference to where they lie now) taken out."""
    x0, y0, x1, y1 = patch.box
    # The patch's pixel q lay at q + (x0, y0) in the reference, and lies at shake of that.
    at = shake @ np.array([x0, y0, 1], np.float32)
    m = np.hstack([shake[:, :2], at[:, None]]).astype(np.float32)
    return cv2.warpAffine(
        gray, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    ).astype(np.float32)


def _centre(patch: _Patch) -> np.ndarray:
    x0, y0, x1, y1 = patch.box
    return np.array([(x0 + x1) / 2, (y0 + y1) / 2], np.float32)


def _shake(shifts: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """Return the camera's move as a 2×3 affine from the neighbours' ``shifts`` at their
    ``centres``: their median shift, or, where they moved unalike (a zoom, a turn: far cards
    move more), the similarity they fit, when each neighbour's shift is foretold within
    ``ALIKE_PX`` by the similarity the others fit, and it fits them clearly better than the
    median.

    A card amid its neighbours under a slow zoom moves pixels off their median shift, and its
    picture, taken back by the median, differed from its reference as a card laid on it does.
    A neighbour a hand moved is foretold wrong by the others: the median then, as ever.
    """
    median = np.median(shifts, axis=0)
    plain = np.hstack([np.eye(2), median[:, None]]).astype(np.float32)
    off = np.linalg.norm(shifts - median, axis=1)
    if len(shifts) < 4 or off.max() <= ALIKE_PX:  # from three, a fit with one left out
        return plain
    now = centres + shifts
    for i in range(len(shifts)):
        others = np.arange(len(shifts)) != i
        fit = similarity(centres[others], now[others])
        if np.linalg.norm(moved(centres[i], fit) - now[i]) > ALIKE_PX:
            return plain
    (a, b) = fit = similarity(centres, now)
    miss = np.linalg.norm(moved(centres, fit) - now, axis=1)
    if abs(a - 1) > MOST_ZOOM or (off**2).sum() < FIT_EVIDENCE * (miss**2).sum():
        return plain
    return np.array([[a.real, -a.imag, b.real], [a.imag, a.real, b.imag]], np.float32)


def _shift(gray: np.ndarray, patch: _Patch) -> np.ndarray | None:
    """Return how far the patch's card moved in the frame (ECC translation), or None."""
    x0, y0, x1, y1 = patch.box
    warp: np.ndarray = np.eye(2, 3, dtype=np.float32)
    try:
        _, warp = cv2.findTransformECC(
            patch.pixels,
            gray[y0:y1, x0:x1].astype(np.float32),
            warp,
            cv2.MOTION_TRANSLATION,
            _ECC,
            patch.card,
            3,
        )
    except cv2.error:  # did not converge: a hand over it, a card laid on it
        return None
    shift = warp[:, 2]
    return shift if float(np.abs(shift).max()) < MARGIN else None


def _differs(patch: _Patch, pixels: np.ndarray) -> float:
    """Mean grey difference inside the card, brightness and contrast matched (light)."""
    a, b = patch.pixels[patch.inner], pixels[patch.inner]
    b = (b - b.mean()) * (a.std() / (b.std() + 1e-6)) + a.mean()
    return float(np.abs(a - b).mean())


class RelayWatch:
    """Watch lying cards' pictures for a card of the same code laid squarely onto them."""

    def __init__(self) -> None:
        self._watches: dict[int, _Watch] = {}

    def forget(self, key: int) -> None:
        """Take a new reference the next time (the card was seen re-laid another way)."""
        self._watches.pop(key, None)

    def keep_only(self, keys: set[int]) -> None:
        """Forget the watch of every card whose key is not in ``keys``."""
        self._watches = {k: w for k, w in self._watches.items() if k in keys}

    def check(
        self, gray: np.ndarray, key: int, quad: np.ndarray, neighbours: list[np.ndarray]
    ) -> bool:
        """Look at card ``key`` lying in ``quad`` in this frame (``gray``), with the outlines
        of unchanged cards around it; return True when another card now lies on it."""
        watch = self._watches.get(key)
        if watch is None:
            self._take(gray, key, quad, neighbours)
            return False
        shifts, kept = [], []
        for n in watch.neighbours:
            s = _shift(gray, n)
            if s is not None:
                shifts.append(s)
                kept.append(n)
        if len(shifts) < 2:
            return False  # too few neighbours in sight to take out the shake: no decision
        shake = _shake(np.array(shifts), np.array([_centre(n) for n in kept]))
        noise = max(float(np.median([_differs(n, _crop(gray, n, shake)) for n in kept])), FLOOR)
        limit = RATIO * max(1.0, watch.usual) * noise
        now = _crop(gray, watch.card, shake)
        differs = _differs(watch.card, now)
        changed = differs > limit
        if not changed:
            ratio = differs / noise
            watch.usual = 0.8 * watch.usual + 0.2 * ratio if watch.usual else ratio
        watch.age += 1
        if watch.alike < SETTLE:  # a new reference proves itself first (no hand in it)
            if changed:
                self._take(gray, key, quad, neighbours, usual=watch.usual)
            else:
                watch.alike += 1
            return False
        if not changed:
            watch.candidate, watch.changed = None, 0
            # While the view zooms or turns, the reference is taken anew each frame: the fit
            # of the camera's move then only has to hold over one frame's move.
            if watch.age >= REFRESH or not np.allclose(shake[:, :2], np.eye(2)):
                self._take(gray, key, quad, neighbours, trusted=True, usual=watch.usual)
            return False
        if (
            watch.candidate is None
            or _differs(replace(watch.card, pixels=watch.candidate), now) > limit
        ):
            watch.candidate, watch.changed = now, 1  # changed, but not as the frame before
            return False
        watch.changed += 1
        if watch.changed < SIGHTINGS:
            return False
        self._take(gray, key, quad, neighbours, trusted=True, usual=watch.usual)
        return True

    def _take(
        self,
        gray: np.ndarray,
        key: int,
        quad: np.ndarray,
        neighbours: list[np.ndarray],
        trusted: bool = False,
        usual: float = 0.0,
    ) -> None:
        card = _patch(gray, quad)
        around = [p for p in (_patch(gray, q) for q in neighbours[:NEIGHBOURS]) if p is not None]
        if card is None or len(around) < 2:
            self._watches.pop(key, None)
            return
        self._watches[key] = _Watch(card, around, alike=SETTLE if trusted else 0, usual=usual)

"""Card geometry in frame pixels: outlines (``(4, 2)`` quads, clockwise on screen with y
down), boxes (``x1 y1 x2 y2``), how they overlap, and non-maximum suppression."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

NEXT_CORNER = [1, 2, 3, 0]  # corner k's clockwise neighbour: quad[NEXT_CORNER] - quad = sides
PREVIOUS_CORNER = [3, 0, 1, 2]  # corner k's neighbour the other way round the quad


def order_clockwise(points: np.ndarray) -> np.ndarray:
    """Return ``(4, 2)`` points sorted clockwise on screen (y down), starting nearest the top-left.

    The start is the point with the smallest ``x + y``; any start is a valid card outline up to
    which corner is the card's own top-left, which the classifier decides.
    """
    pts = np.asarray(points, np.float32).reshape(4, 2)
    return pts[clockwise_order(pts)]


def clockwise_order(pts: np.ndarray) -> np.ndarray:
    """Return the indices that put ``(4, 2)`` points in :func:`order_clockwise`'s order."""
    c = pts.mean(axis=0)
    # On screen with y pointing down, increasing atan2(dy, dx) walks clockwise.
    order = np.argsort(np.arctan2(pts[:, 1] - c[1], pts[:, 0] - c[0]), kind="stable")
    start = int(np.argmin(pts[order].sum(axis=1)))
    return np.roll(order, -start)


def quads_are_sane(quads: np.ndarray, min_side: float = 4.0) -> np.ndarray:
    """Return, for ``(n, 4, 2)`` quads, whether each is convex, non-degenerate and wound
    clockwise (sides at least ``min_side``)."""
    q = np.asarray(quads, np.float64).reshape(-1, 4, 2)
    e = q[:, NEXT_CORNER] - q
    f = e[:, NEXT_CORNER]
    cross = e[..., 0] * f[..., 1] - e[..., 1] * f[..., 0]
    sides = np.hypot(e[..., 0], e[..., 1])
    # numpy's stubs: all() over an axis may be one bool (not for these 2-D arrays)
    return (cross > 0).all(axis=1) & (sides >= min_side).all(axis=1)  # type: ignore[return-value]


def quad_is_sane(quad: np.ndarray, min_side: float = 4.0) -> bool:
    """Return whether a clockwise quad is convex, non-degenerate and wound clockwise."""
    return bool(quads_are_sane(quad, min_side)[0])


def polygon_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Return the intersection over union of two convex ``(4, 2)`` polygons."""
    a = np.asarray(a, np.float32).reshape(-1, 1, 2)
    b = np.asarray(b, np.float32).reshape(-1, 1, 2)
    area_a, area_b = abs(cv2.contourArea(a)), abs(cv2.contourArea(b))
    if area_a <= 0 or area_b <= 0:
        return 0.0
    inter, _ = cv2.intersectConvexConvex(a, b)
    return float(inter / (area_a + area_b - inter + 1e-9))


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Return the ``(n, m)`` IoU matrix of ``x1, y1, x2, y2`` boxes."""
    a = np.asarray(a, np.float32).reshape(-1, 4)
    b = np.asarray(b, np.float32).reshape(-1, 4)
    lt = np.maximum(a[:, None, :2], b[None, :, :2])
    rb = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.clip(rb - lt, 0, None).prod(axis=2)
    area_a = (a[:, 2:] - a[:, :2]).clip(0).prod(axis=1)
    area_b = (b[:, 2:] - b[:, :2]).clip(0).prod(axis=1)
    return inter / (area_a[:, None] + area_b[None, :] - inter + 1e-9)


def nms(boxes: np.ndarray, scores: np.ndarray, iou: float) -> np.ndarray:
    """Return indices of boxes kept by greedy non-maximum suppression, best first."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    if not len(boxes):
        return np.zeros(0, np.int64)
    xywh = np.concatenate([boxes[:, :2], boxes[:, 2:] - boxes[:, :2]], axis=1)
    kept = cv2.dnn.NMSBoxes(xywh.tolist(), np.asarray(scores, np.float32).tolist(), 0.0, iou)
    keep = np.asarray(kept, np.int64).reshape(-1)
    return keep[np.argsort(-np.asarray(scores)[keep], kind="stable")]


def nms_outlines(
    boxes: np.ndarray, quads: np.ndarray, scores: np.ndarray, iou: float
) -> np.ndarray:
    """Return indices kept by greedy non-maximum suppression, best first, where a find is
    suppressed only when both its box and its ``(4, 2)`` outline overlap a better one's by
    ``iou``: the box of an outline drawn across two turned cards side by side covers each
    card's box, but the outline does not cover the card's outline."""
    boxes = np.asarray(boxes, np.float32).reshape(-1, 4)
    order = np.argsort(-np.asarray(scores), kind="stable")
    overlap = box_iou(boxes, boxes) >= iou
    alive = np.ones(len(boxes), bool)
    keep = []
    for i in order:
        if not alive[i]:
            continue
        keep.append(i)
        for j in np.flatnonzero(overlap[i] & alive):
            if j != i and polygon_iou(quads[i], quads[j]) >= iou:
                alive[j] = False
    return np.asarray(keep, np.int64)


def box_corners(boxes: np.ndarray) -> np.ndarray:
    """Return the ``(n, 4, 2)`` corners, clockwise from the top-left, of ``x1 y1 x2 y2`` boxes."""
    b = np.asarray(boxes, np.float32).reshape(-1, 4)
    return np.stack([b[:, [0, 1]], b[:, [2, 1]], b[:, [2, 3]], b[:, [0, 3]]], axis=1)


def scaled(image: np.ndarray, scale: float, interpolation: int = cv2.INTER_AREA) -> np.ndarray:
    """Return ``image`` resized by ``scale``, each side at least one pixel (a photo a few pixels
    thin must not shrink to nothing)."""
    h, w = image.shape[:2]
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    return cv2.resize(image, size, interpolation=interpolation)


def turning(w: int, h: int, degrees: float) -> tuple[np.ndarray, tuple[int, int]]:
    """Return the 2×3 map that turns a ``w`` × ``h`` frame by ``degrees`` (anticlockwise, as
    OpenCV's) onto a canvas that holds all of it, and the canvas's size."""
    m = np.asarray(cv2.getRotationMatrix2D((w / 2, h / 2), degrees, 1.0), np.float64)
    cos, sin = abs(m[0, 0]), abs(m[0, 1])
    tw, th = int(h * sin + w * cos + 0.5), int(h * cos + w * sin + 0.5)
    m[:, 2] += ((tw - w) / 2, (th - h) / 2)
    return m, (tw, th)


def turned_quads(quads: np.ndarray, degrees: float, scale: float = 1.0) -> np.ndarray:
    """Return ``(n, 4, 2)`` quads turned about their centres and scaled."""
    a = np.radians(degrees)
    m = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    c = quads.mean(axis=1, keepdims=True)
    return ((quads - c) * scale) @ m.T + c


def card_widths(quads: np.ndarray) -> np.ndarray:
    """Return each ``(4, 2)`` outline's width: the mean of its two shorter opposite edges
    (at least 1 pixel)."""
    quads = np.asarray(quads, np.float64)
    e = np.linalg.norm(quads[:, NEXT_CORNER] - quads, axis=2)
    return np.maximum(np.minimum(e[:, 0] + e[:, 2], e[:, 1] + e[:, 3]) / 2, 1.0)


def visible_box(
    quad: np.ndarray, others: Sequence[np.ndarray], shape: Sequence[int], step: int = 4
) -> np.ndarray:
    """Return the ``x1 y1 x2 y2`` box of the part of a card's outline inside the frame and
    outside the ``others`` (taken to lie over it), drawn on a grid of ``step`` pixels; the
    outline's own box in the frame when nothing of it is left."""
    h, w = shape[:2]
    mask = np.zeros((h // step + 1, w // step + 1), np.uint8)

    def fill(outline: np.ndarray, value: int) -> None:
        # Cell i spans pixels [i * step, (i + 1) * step); corners to 1/16 of a cell.
        cells = (np.asarray(outline, np.float64) / step - 0.5) * 16
        cv2.fillConvexPoly(mask, np.round(cells).astype(np.int32), value, shift=4)

    fill(quad, 1)
    for other in others:
        fill(other, 0)
    ys, xs = np.nonzero(mask)
    if not len(xs):
        lo, hi = np.asarray(quad).min(axis=0), np.asarray(quad).max(axis=0)
        return np.array([max(lo[0], 0), max(lo[1], 0), min(hi[0], w), min(hi[1], h)], np.float32)
    return np.array(
        [
            xs.min() * step,
            ys.min() * step,
            min((xs.max() + 1) * step, w),
            min((ys.max() + 1) * step, h),
        ],
        np.float32,
    )


def moved(points: np.ndarray, move: tuple[complex, complex]) -> np.ndarray:
    """Return ``points`` ``(..., 2)`` moved by a similarity ``move`` ``(a, b)``: a point z,
    taken as the complex number x + iy, goes to a·z + b (|a| the zoom, its angle the turn)."""
    a, b = move
    z = a * (points[..., 0] + 1j * points[..., 1]) + b
    return np.stack([z.real, z.imag], axis=-1).astype(np.float32)


def inverse(move: tuple[complex, complex]) -> tuple[complex, complex]:
    """Return the similarity that undoes ``move`` (see :func:`moved`)."""
    a, b = move
    return 1 / a, -b / a


def chained(
    first: tuple[complex, complex], then: tuple[complex, complex]
) -> tuple[complex, complex]:
    """Return the similarity that moves as ``first`` and then ``then`` (see :func:`moved`)."""
    (a1, b1), (a2, b2) = first, then
    return a2 * a1, a2 * b1 + b2


def similarity(src: np.ndarray, dst: np.ndarray) -> tuple[complex, complex]:
    """Return the similarity (see :func:`moved`) that best takes points ``src`` ``(n, 2)``
    to ``dst`` (least squares; one point: a shift)."""
    z = src[:, 0] + 1j * src[:, 1]
    w = dst[:, 0] + 1j * dst[:, 1]
    zc, wc = z - z.mean(), w - w.mean()
    norm = float(np.sum(np.abs(zc) ** 2))
    a = complex(np.sum(wc * np.conj(zc)) / norm) if norm > 1e-9 else 1 + 0j
    return a, complex(w.mean() - a * z.mean())

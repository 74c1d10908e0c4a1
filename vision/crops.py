"""Rectified pictures cut from a frame: a card's index corners for the classifiers and the
patch round a rough outline that the outline refiner reads. Training cuts its samples with the
same functions (:mod:`vision.train.crops`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class CropSpec:
    """Where an index corner is cut from a card and how big the classifier's input is.

    region: ``(u, v)`` extent of the crop as fractions of the card's width and height, measured
        from the card's corner; covers the index of every deck design we know (jumbo too).
    size: ``(width, height)`` of the crop in pixels.
    """

    region: tuple[float, float] = (0.40, 0.34)
    size: tuple[int, int] = (40, 48)


DEFAULT_SPEC = CropSpec()
# A whole small card, read by its pips and picture where its index is a blur of a few pixels.
THUMB_SPEC = CropSpec(region=(1.0, 1.0), size=(40, 48))


def corner_crop_matrix(quad: np.ndarray, corner: int, spec: CropSpec = DEFAULT_SPEC) -> np.ndarray:
    """Return the 3×3 map from crop pixels to image pixels for one index corner.

    ``quad`` is ``(4, 2)`` clockwise from the card's top-left; ``corner`` 0 cuts the top-left
    index upright, 2 the bottom-right index turned 180° so that it also reads upright.
    """
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    card_h = cv2.getPerspectiveTransform(unit, np.asarray(quad, np.float32).reshape(4, 2))
    (ru, rv), (w, h) = spec.region, spec.size
    if corner == 0:
        s = np.array([[ru / w, 0, 0], [0, rv / h, 0], [0, 0, 1]], np.float64)
    elif corner == 2:
        s = np.array([[-ru / w, 0, 1], [0, -rv / h, 1], [0, 0, 1]], np.float64)
    else:
        raise ValueError(f"corner must be 0 (top-left) or 2 (bottom-right), not {corner}")
    return card_h @ s


def crop_moves(
    spec: CropSpec, shifts: Sequence[Sequence[float]], scales: Sequence[float]
) -> tuple[np.ndarray, ...]:
    """Return 3×3 moves in a crop's pixels: each of ``shifts`` ``(dx, dy)``, then each of
    ``scales`` about the crop's centre. ``matrix @ move`` cuts the crop so moved."""
    cx, cy = spec.size[0] / 2, spec.size[1] / 2
    moves = [np.array([[1, 0, dx], [0, 1, dy], [0, 0, 1]], float) for dx, dy in shifts]
    moves += [np.array([[k, 0, (1 - k) * cx], [0, k, (1 - k) * cy], [0, 0, 1]]) for k in scales]
    return tuple(moves)


class Pyramid:
    """Lazily downscaled copies of a frame, so small crops of big cards are not aliased."""

    def __init__(self, frame: np.ndarray) -> None:
        self.levels = [frame]

    def level(self, n: int) -> np.ndarray:
        """Return the frame halved ``n`` times (made on first use)."""
        while len(self.levels) <= n:
            self.levels.append(cv2.pyrDown(self.levels[-1]))
        return self.levels[n]


def warp_many(
    frame: np.ndarray | Pyramid, matrices: np.ndarray, size: tuple[int, int]
) -> np.ndarray:
    """Return ``(n, h, w, 3)`` pictures; pixel p of picture i shows frame point
    ``matrices[i] @ p``. Where one output pixel spans more than ~2 frame pixels the picture
    is read from a smaller pyramid level, against aliasing."""
    pyr = frame if isinstance(frame, Pyramid) else Pyramid(frame)
    ms = np.asarray(matrices, np.float64).reshape(-1, 3, 3)
    out = np.empty((len(ms), size[1], size[0], 3), np.uint8)
    if not len(ms):
        return out
    with np.errstate(invalid="ignore", divide="ignore"):
        jac = np.abs(np.linalg.det(ms[:, :2, :2] / ms[:, 2:3, 2:3])) ** 0.5
    jac = np.nan_to_num(jac, nan=1.0, posinf=16.0)  # a degenerate outline: any level will do
    levels = np.clip(np.floor(np.log2(np.maximum(jac, 1e-6) / 1.5)), 0, 4).astype(int)
    for i, (m, level) in enumerate(zip(ms, levels, strict=True)):
        if not np.isfinite(m).all():
            out[i] = 0  # nothing to see: reads as background
            continue
        if level:
            m = np.diag([0.5**level, 0.5**level, 1.0]) @ m
        out[i] = cv2.warpPerspective(
            pyr.level(int(level)),
            m,
            size,
            flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_REPLICATE,
        )
    return out


def cut_corner(
    frame: np.ndarray | Pyramid, quad: np.ndarray, corner: int, spec: CropSpec = DEFAULT_SPEC
) -> np.ndarray:
    """Return the rectified ``(h, w, 3)`` crop of one index corner of a card in ``frame``."""
    return warp_many(frame, corner_crop_matrix(quad, corner, spec), spec.size)[0]


# The outline refiner's view: a rough outline is mapped onto the inner square of a patch, with a
# margin around it where the true corners may lie.
PATCH_SIZE = 96
PATCH_MARGIN = 20
_INNER = np.array(
    [
        [PATCH_MARGIN, PATCH_MARGIN],
        [PATCH_SIZE - PATCH_MARGIN, PATCH_MARGIN],
        [PATCH_SIZE - PATCH_MARGIN, PATCH_SIZE - PATCH_MARGIN],
        [PATCH_MARGIN, PATCH_SIZE - PATCH_MARGIN],
    ],
    np.float32,
)


def patch_matrix(quad: np.ndarray) -> np.ndarray:
    """Return the 3×3 map from refiner-patch pixels to frame pixels for a rough outline."""
    return cv2.getPerspectiveTransform(_INNER, np.asarray(quad, np.float32).reshape(4, 2))


def cut_patch(frame: np.ndarray | Pyramid, quad: np.ndarray) -> np.ndarray:
    """Return the ``(PATCH_SIZE, PATCH_SIZE, 3)`` patch the refiner reads for a rough outline."""
    return cut_patches(frame, np.asarray(quad)[None])[0]


def cut_patches(frame: np.ndarray | Pyramid, quads: np.ndarray) -> np.ndarray:
    """Return the refiner's ``(n, PATCH_SIZE, PATCH_SIZE, 3)`` patches for ``(n, 4, 2)`` quads."""
    ms = np.array([patch_matrix(q) for q in quads], np.float64).reshape(-1, 3, 3)
    return warp_many(frame, ms, (PATCH_SIZE, PATCH_SIZE))


def patch_offsets(quad: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """Return the refiner's target: where ``truth`` lies in ``quad``'s patch, as ``(4, 2)``
    offsets from the inner square's corners in units of its side (``quad`` corner k ↔ truth k)."""
    inv = np.linalg.inv(patch_matrix(quad))
    p = cv2.perspectiveTransform(np.asarray(truth, np.float64).reshape(1, 4, 2), inv)[0]
    return ((p - _INNER) / (PATCH_SIZE - 2 * PATCH_MARGIN)).astype(np.float32)


def apply_offsets(quads: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Return the frame corners that ``offsets`` (as from :func:`patch_offsets`) point at;
    one outline ``(4, 2)`` or many ``(n, 4, 2)`` with ``(n, 8)`` offsets."""
    q = np.asarray(quads, np.float32)
    many = q.reshape(-1, 4, 2)
    p = _INNER + np.asarray(offsets, np.float64).reshape(-1, 4, 2) * (PATCH_SIZE - 2 * PATCH_MARGIN)
    ms = np.array([patch_matrix(x) for x in many], np.float64).reshape(-1, 3, 3)
    h = np.concatenate([p, np.ones((*p.shape[:2], 1))], axis=2) @ ms.transpose(0, 2, 1)
    return (h[..., :2] / h[..., 2:]).astype(np.float32).reshape(q.shape)

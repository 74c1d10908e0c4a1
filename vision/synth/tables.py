"""Procedural table surfaces: wood, felt, cloth, patterned tablecloths and plain colours.

A texture is a square BGR image of a patch of table ``TABLE_MM`` wide; the scene warps it with
the camera's homography. Textures are deterministic in ``(kind, key)`` and cached, so a build
reuses a few hundred of them instead of generating one per image.
"""

from __future__ import annotations

from functools import lru_cache

import cv2
import numpy as np

KINDS = ("wood", "felt", "cloth", "pattern", "plain")
TEXTURE_PX = 640
TABLE_MM = 1400.0  # the texture covers this many millimetres of table

WOODS = (
    (60, 110, 170),
    (40, 80, 130),
    (90, 150, 200),
    (30, 55, 90),
    (120, 170, 210),
    (70, 90, 110),
)
FELTS = ((40, 100, 30), (90, 60, 20), (30, 30, 110), (70, 70, 70), (100, 80, 40), (45, 75, 45))
CLOTHS = ((200, 210, 215), (150, 170, 190), (120, 120, 130), (60, 60, 150), (170, 140, 110))
PLAINS = (
    (235, 235, 235),
    (215, 225, 230),
    (200, 200, 200),
    (60, 60, 60),
    (30, 30, 30),
    (120, 150, 170),
    (180, 200, 210),
    (90, 60, 40),
    (245, 240, 235),
)


def _noise(rng: np.random.Generator, shape: tuple[int, int], cells: tuple[int, int]) -> np.ndarray:
    """Return smooth noise in [-1, 1]: random values on a coarse grid, upscaled."""
    small = rng.uniform(-1, 1, (cells[0], cells[1])).astype(np.float32)
    return cv2.resize(small, (shape[1], shape[0]), interpolation=cv2.INTER_CUBIC)


def _wood(rng, n: int) -> np.ndarray:
    base = np.array(WOODS[rng.integers(len(WOODS))], np.float32) * rng.uniform(0.85, 1.15)
    _, x = np.mgrid[0:n, 0:n].astype(np.float32)
    # grain: thin fibres along y, bent by slow noise, with occasional darker growth rings
    warp = _noise(rng, (n, n), (3, 6)) * rng.uniform(6, 20)
    xx = x + warp
    fibres = _noise(rng, (n, n), (8, n // 2))  # long along y, fine across x
    rings = np.sin(xx * rng.uniform(0.05, 0.12) + 3 * _noise(rng, (n, n), (4, 12))) ** 8
    v = 1 + 0.07 * fibres - 0.12 * rings + 0.06 * _noise(rng, (n, n), (4, 4))
    # planks along the grain with thin dark seams and slightly different tones
    pw = int(rng.integers(n // 5, n // 2))
    off = int(rng.integers(pw))
    plank = ((x + off) // pw).astype(np.int32)
    tones = rng.uniform(0.9, 1.08, plank.max() + 2).astype(np.float32)
    v = v * tones[plank]
    v[((x + off) % pw) < 1.5] *= 0.6
    img = v[..., None] * base
    return np.ascontiguousarray(np.transpose(img, (1, 0, 2))) if rng.random() < 0.5 else img


def _felt(rng, n: int) -> np.ndarray:
    base = np.array(FELTS[rng.integers(len(FELTS))], np.float32) * rng.uniform(0.8, 1.2)
    v = (
        1
        + 0.06 * rng.standard_normal((n, n)).astype(np.float32)
        + 0.05 * _noise(rng, (n, n), (8, 8))
    )
    v = cv2.GaussianBlur(v, (0, 0), 0.8)
    return v[..., None] * base


def _cloth(rng, n: int) -> np.ndarray:
    base = np.array(CLOTHS[rng.integers(len(CLOTHS))], np.float32) * rng.uniform(0.85, 1.1)
    y, x = np.mgrid[0:n, 0:n].astype(np.float32)
    p = rng.uniform(2.0, 4.0)
    weave = 0.06 * np.sin(x * 2 * np.pi / p) * np.sin(y * 2 * np.pi / p)
    v = 1 + weave + 0.04 * rng.standard_normal((n, n)).astype(np.float32)
    v += 0.08 * _noise(rng, (n, n), (4, 4))  # folds and wrinkles
    return v[..., None] * base


def _pattern(rng, n: int) -> np.ndarray:
    c1 = np.array(PLAINS[rng.integers(len(PLAINS))], np.float32)
    c2 = np.array(
        [(40, 40, 180), (150, 80, 30), (40, 130, 40), (40, 160, 220), (120, 60, 120)][
            rng.integers(5)
        ],
        np.float32,
    )
    y, x = np.mgrid[0:n, 0:n].astype(np.float32)
    kind = rng.integers(4)
    p = rng.uniform(25, 70)
    if kind == 0:  # gingham: the overlaps of stripes are darkest
        a = ((x // p) % 2 == 0).astype(np.float32)
        b = ((y // p) % 2 == 0).astype(np.float32)
        m = 0.45 * a + 0.45 * b
    elif kind == 1:  # stripes
        m = (((x + y * rng.uniform(-0.5, 0.5)) // p) % 2).astype(np.float32) * 0.8
    elif kind == 2:  # polka dots
        m = (((x % p) - p / 2) ** 2 + ((y % p) - p / 2) ** 2 < (p * 0.22) ** 2).astype(np.float32)
    else:  # flowers: rings of petals
        m = np.zeros((n, n), np.float32)
        for _ in range(int(n * n / p / p * 1.5)):
            cx, cy = rng.uniform(0, n, 2)
            r = p * rng.uniform(0.12, 0.22)
            for k in range(5):
                a = k * 2 * np.pi / 5
                cv2.circle(
                    m,
                    (int(cx + np.cos(a) * r), int(cy + np.sin(a) * r)),
                    int(r * 0.7),
                    1.0,
                    -1,
                    cv2.LINE_AA,
                )
    m = cv2.GaussianBlur(m, (0, 0), 1.0)
    img = c1 * (1 - m[..., None]) + c2 * m[..., None]
    v = (
        1
        + 0.03 * rng.standard_normal((n, n)).astype(np.float32)
        + 0.06 * _noise(rng, (n, n), (4, 4))
    )
    return img * v[..., None]


def _plain(rng, n: int) -> np.ndarray:
    base = np.array(PLAINS[rng.integers(len(PLAINS))], np.float32) * rng.uniform(0.9, 1.05)
    v = (
        1
        + 0.02 * rng.standard_normal((n, n)).astype(np.float32)
        + 0.04 * _noise(rng, (n, n), (5, 5))
    )
    return v[..., None] * base


_MAKERS = {"wood": _wood, "felt": _felt, "cloth": _cloth, "pattern": _pattern, "plain": _plain}


@lru_cache(maxsize=160)
def table_texture(kind: str, key: int) -> np.ndarray:
    """Return the ``(TEXTURE_PX, TEXTURE_PX, 3)`` uint8 texture number ``key`` of a table kind."""
    if kind not in _MAKERS:
        raise ValueError(f"unknown table kind {kind!r}; expected one of {', '.join(KINDS)}")
    rng = np.random.default_rng([9173, KINDS.index(kind), key])
    img = _MAKERS[kind](rng, TEXTURE_PX)
    return np.clip(img, 0, 255).astype(np.uint8)

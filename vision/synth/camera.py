"""The camera and what it does to light: perspective, lens distortion, lighting, blur and noise.

Everything is explicit data (:class:`Camera`, :class:`Lighting`, :class:`Effects`) sampled from a
numpy Generator, so a scene can be re-rendered, or a video can move the camera a little per frame.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

import cv2
import numpy as np


@dataclass
class Camera:
    """A camera over the table.

    H: ``(3, 3)`` homography from table millimetres to image pixels (before lens distortion).
    k1: radial distortion; the image point at normalised radius r samples the ideal image at
        ``r * (1 + k1 * r**2)`` (r = 1 at the image corners), so k1 > 0 is barrel distortion.
    table_H: homography for the table surface when it is not the cards' plane (a hand held up
        close to the camera: the table is further away and out of focus, ``table_blur`` sigma).
    """

    H: np.ndarray
    size: tuple[int, int]
    k1: float = 0.0
    tilt: float = 0.0
    yaw: float = 0.0
    table_H: np.ndarray | None = None
    table_blur: float = 0.0

    def project(self, pts: np.ndarray, distort: bool = True) -> np.ndarray:
        """Map ``(n, 2)`` table points to image pixels."""
        return project(self.H, pts, self.k1 if distort else 0.0, self.size)

    def to_json(self) -> dict:
        """Return the camera as JSON: its homography, lens and pose."""
        return {
            "H": np.round(self.H, 8).tolist(),
            "k1": round(self.k1, 5),
            "tilt": round(self.tilt, 2),
            "yaw": round(self.yaw, 2),
        }


def apply_h(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Apply a homography to ``(n, 2)`` points."""
    p = np.asarray(pts, np.float64).reshape(-1, 2)
    q = p @ H[:, :2].T + H[:, 2]
    return q[:, :2] / q[:, 2:3]


def distort_points(pts: np.ndarray, k1: float, size: tuple[int, int]) -> np.ndarray:
    """Move ideal image points to where the lens puts them (inverse of the remap model)."""
    if k1 == 0.0:
        return pts
    W, H = size
    c = np.array([W / 2, H / 2])
    R = math.hypot(W / 2, H / 2)
    u = (pts - c) / R
    d = u.copy()
    for _ in range(20):  # fixed point of d = u / (1 + k1 |d|^2)
        d = u / (1 + k1 * (d * d).sum(1, keepdims=True))
    return d * R + c


def project(H: np.ndarray, pts: np.ndarray, k1: float, size: tuple[int, int]) -> np.ndarray:
    """Map table points through a homography and lens distortion."""
    return distort_points(apply_h(H, pts), k1, size)


@lru_cache(maxsize=40)
def _distortion_maps(k1: float, W: int, H: int) -> tuple[np.ndarray, np.ndarray]:
    y, x = np.mgrid[0:H, 0:W].astype(np.float32)
    cx, cy, R = W / 2, H / 2, math.hypot(W / 2, H / 2)
    dx, dy = (x + 0.5 - cx) / R, (y + 0.5 - cy) / R
    f = 1 + k1 * (dx * dx + dy * dy)
    mx = (dx * f * R + cx - 0.5).astype(np.float32)
    my = (dy * f * R + cy - 0.5).astype(np.float32)
    return cv2.convertMaps(mx, my, cv2.CV_16SC2)


def distort_image(img: np.ndarray, k1: float) -> np.ndarray:
    """Apply radial lens distortion ``k1`` to an image."""
    if k1 == 0.0:
        return img
    m1, m2 = _distortion_maps(round(k1, 4), img.shape[1], img.shape[0])
    return cv2.remap(img, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101)


def _rot(axis: str, deg: float) -> np.ndarray:
    a = math.radians(deg)
    c, s = math.cos(a), math.sin(a)
    if axis == "x":
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


def look_at(
    target: np.ndarray,
    distance: float,
    tilt: float,
    yaw: float,
    roll: float,
    focal: float,
    size: tuple[int, int],
) -> np.ndarray:
    """Return the table→image homography of a pinhole camera aimed at ``target`` (mm).

    The table has x right, y down and z into the table; ``tilt`` 0 looks straight down.
    """
    # tilting about the image x axis so that the top of the picture is the far side of the table
    R = _rot("z", roll) @ _rot("x", -tilt) @ _rot("z", yaw)
    C = np.array([target[0], target[1], 0.0]) - distance * (R.T @ np.array([0, 0, 1.0]))
    t = -R @ C
    K = np.array([[focal, 0, size[0] / 2], [0, focal, size[1] / 2], [0, 0, 1]])
    H = K @ np.column_stack([R[:, 0], R[:, 1], t])
    return H / H[2, 2]


def card_widths_px(H: np.ndarray, quads: np.ndarray) -> np.ndarray:
    """Return each card's projected top-edge length in pixels; quads ``(n, 4, 2)`` mm."""
    p = apply_h(H, quads.reshape(-1, 2)).reshape(-1, 4, 2)
    return np.linalg.norm(p[:, 1] - p[:, 0], axis=1)


def sample_camera(
    rng: np.random.Generator,
    quads: np.ndarray,
    size: tuple[int, int],
    card_px: tuple[float, float] = (48.0, 400.0),
    tilt_max: float = 50.0,
    held: bool = False,
) -> Camera:
    """Sample a camera that frames the cards ``quads`` ``(n, 4, 2)`` (mm) in a ``size`` image."""
    W, Hh = size
    pts = quads.reshape(-1, 2)
    lo, hi = pts.min(0), pts.max(0)
    centre = (lo + hi) / 2 + rng.normal(0, 0.05, 2) * (hi - lo)
    extent = float(max(hi - lo)) + 1.0
    tilt = (
        float(tilt_max * min(1.0, rng.beta(1.4, 1.8) * 1.15))
        if not held
        else float(rng.uniform(0, 35))
    )
    yaw = float(rng.uniform(0, 360)) if not held else float(rng.normal(0, 25))
    roll = float(rng.normal(0, 3))
    focal = W * float(rng.uniform(0.65, 1.3))
    distance = focal * extent / (0.8 * W)
    H0 = look_at(centre, distance, tilt, yaw, roll, focal, size)
    p = apply_h(H0, pts)
    plo, phi = p.min(0), p.max(0)
    span = np.maximum(phi - plo, 1.0)
    fill = rng.uniform(0.55, 0.98)
    s = fill * min(W / span[0], Hh / span[1])
    widths = np.median(card_widths_px(H0, quads))
    lo_px, hi_px = card_px
    if held:
        s = rng.uniform(max(lo_px, 120), hi_px) / widths
    elif rng.random() < 0.15:  # a closer look at part of the layout
        s *= rng.uniform(1.3, 2.5)
    s = float(np.clip(s, lo_px / widths, hi_px / widths))
    # place the layout: centred with a random offset in the slack (or overflow)
    new_span = span * s
    off = np.array([W, Hh]) / 2 - (plo + phi) / 2 * s
    off += rng.uniform(-0.5, 0.5, 2) * np.abs(np.array([W, Hh]) - new_span) * 0.6
    S = np.array([[s, 0, off[0]], [0, s, off[1]], [0, 0, 1]])
    H = S @ H0
    # quantised so a build needs few distortion maps (they are cached)
    k1 = round(float(rng.uniform(-0.05, 0.12)), 2) if rng.random() < 0.5 else 0.0
    cam = Camera(H / H[2, 2], size, k1, tilt, yaw)
    if held:
        # the table lies far behind the held cards: smaller, different view, out of focus
        tH = look_at(
            centre, distance * rng.uniform(3, 6), float(rng.uniform(20, 50)), yaw, roll, focal, size
        )
        cam.table_H = tH
        cam.table_blur = float(rng.uniform(1.5, 5.0))
    return cam


# ---------------------------------------------------------------------------------------------
@dataclass
class Lighting:
    """Light over the scene: gain, a linear gradient, vignetting, a colour cast, soft shadows
    (ellipses in image fractions) and glare spots (on glossy cards only)."""

    gain: float = 1.0
    gradient_angle: float = 0.0
    gradient: float = 0.0
    vignette: float = 0.0
    cast: tuple[float, float, float] = (1.0, 1.0, 1.0)  # B, G, R multipliers
    shadows: list[tuple] = field(default_factory=list)  # (cx, cy, ax, ay, angle, darkness)
    glare: list[tuple] = field(default_factory=list)  # (cx, cy, ax, ay, angle, strength)

    def to_json(self) -> dict:
        """Return the lighting as JSON."""
        r = lambda v: round(float(v), 4)  # noqa: E731
        return {
            "gain": r(self.gain),
            "gradient_angle": r(self.gradient_angle),
            "gradient": r(self.gradient),
            "vignette": r(self.vignette),
            "cast": [r(c) for c in self.cast],
            "shadows": [[r(v) for v in s] for s in self.shadows],
            "glare": [[r(v) for v in g] for g in self.glare],
        }


CASTS = {
    "neutral": (1.0, 1.0, 1.0),
    "warm": (0.72, 0.92, 1.08),  # tungsten / evening lamp
    "very_warm": (0.58, 0.84, 1.1),
    "cool": (1.1, 1.0, 0.88),  # daylight through a window
    "green": (0.95, 1.05, 0.93),  # fluorescent
}


def sample_lighting(rng: np.random.Generator) -> Lighting:
    """Sample the room light."""
    cast_name = rng.choice(list(CASTS), p=[0.4, 0.25, 0.1, 0.15, 0.1])
    cast = np.array(CASTS[str(cast_name)]) * rng.uniform(0.96, 1.04, 3)
    shadows = []
    for _ in range(int(rng.choice([0, 0, 1, 1, 2]))):
        shadows.append(
            (
                rng.uniform(-0.2, 1.2),
                rng.uniform(-0.2, 1.2),
                rng.uniform(0.15, 0.6),
                rng.uniform(0.1, 0.4),
                rng.uniform(0, 180),
                rng.uniform(0.15, 0.5),
            )
        )
    glare = []
    for _ in range(int(rng.choice([0, 0, 1, 1, 2]))):
        glare.append(
            (
                rng.uniform(0.1, 0.9),
                rng.uniform(0.1, 0.9),
                rng.uniform(0.04, 0.2),
                rng.uniform(0.02, 0.1),
                rng.uniform(0, 180),
                rng.uniform(0.2, 0.8),
            )
        )
    return Lighting(
        gain=float(rng.uniform(0.6, 1.15)),
        gradient_angle=float(rng.uniform(0, 360)),
        gradient=float(rng.uniform(0, 0.45)),
        vignette=float(rng.uniform(0, 0.4)),
        cast=(float(cast[0]), float(cast[1]), float(cast[2])),
        shadows=shadows,
        glare=glare,
    )


@lru_cache(maxsize=4)
def _grid(W: int, H: int) -> tuple[np.ndarray, np.ndarray]:
    y, x = np.mgrid[0:H, 0:W].astype(np.float32)
    return x / W - 0.5, y / H - 0.5


def light_map(light: Lighting, size: tuple[int, int]) -> np.ndarray:
    """Return the ``(h/4, w/4, 3)`` float32 multiplicative light map."""
    W, H = size[0] // 4, size[1] // 4
    u, v = _grid(W, H)
    a = math.radians(light.gradient_angle)
    m = light.gain * (1 + light.gradient * (u * math.cos(a) + v * math.sin(a)) * 2)
    m = m * (1 - light.vignette * (u * u + v * v) * 2)
    if light.shadows:
        sh: np.ndarray = np.zeros((H, W), np.float32)
        for cx, cy, ax, ay, ang, dark in light.shadows:
            cv2.ellipse(
                sh,
                (int(cx * W), int(cy * H)),
                (max(1, int(ax * W)), max(1, int(ay * H))),
                ang,
                0,
                360,
                float(dark),
                -1,
                cv2.LINE_AA,
            )
        sh = cv2.GaussianBlur(sh, (0, 0), W * 0.02 + 1)
        m = m * (1 - sh)
    return np.clip(m, 0.05, 2.0)[..., None] * np.asarray(light.cast, np.float32)


def glare_map(light: Lighting, size: tuple[int, int]) -> np.ndarray | None:
    """Return a ``(h/4, w/4)`` float32 additive glare map (0–255 scale), or None."""
    if not light.glare:
        return None
    W, H = size[0] // 4, size[1] // 4
    g = np.zeros((H, W), np.float32)
    for cx, cy, ax, ay, ang, s in light.glare:
        cv2.ellipse(
            g,
            (int(cx * W), int(cy * H)),
            (max(1, int(ax * W)), max(1, int(ay * H))),
            ang,
            0,
            360,
            float(s) * 255,
            -1,
            cv2.LINE_AA,
        )
    return cv2.GaussianBlur(g, (0, 0), W * 0.015 + 1)


@dataclass
class Effects:
    """Optical and sensor effects: defocus, motion blur, resolution loss, noise, JPEG quality."""

    defocus: float = 0.0  # Gaussian sigma, pixels
    motion: float = 0.0  # motion-blur length, pixels
    motion_angle: float = 0.0
    downscale: float = 1.0  # < 1: rendered smaller and scaled back up (a cheap camera)
    noise: float = 0.0  # sensor noise sigma, grey levels
    jpeg: int = 90

    def to_json(self) -> dict:
        """Return the effects as JSON."""
        return {k: round(float(v), 3) for k, v in self.__dict__.items()}


def sample_effects(rng: np.random.Generator) -> Effects:
    """Sample blur, noise and compression."""
    return Effects(
        defocus=float(rng.uniform(0.4, 2.2)) if rng.random() < 0.35 else 0.0,
        motion=float(rng.uniform(2, 9)) if rng.random() < 0.15 else 0.0,
        motion_angle=float(rng.uniform(0, 180)),
        downscale=float(rng.uniform(0.45, 0.85)) if rng.random() < 0.2 else 1.0,
        noise=float(rng.uniform(0.5, 9)) if rng.random() < 0.8 else 0.0,
        jpeg=int(rng.integers(35, 96)),
    )


@lru_cache(maxsize=4)
def _noise_pool(W: int, H: int) -> np.ndarray:
    # One fixed noise field per size (int16, sigma 16); each image takes a random window of it.
    g = np.random.default_rng(20261130)
    n = g.standard_normal((H + 64, W + 64, 3), dtype=np.float32)
    n = 0.6 * n[..., :1] + 0.4 * n  # mostly luminance noise, some chroma
    return np.round(n * 16).astype(np.int16)


def add_noise(img: np.ndarray, sigma: float, rng: np.random.Generator) -> np.ndarray:
    """Return a uint8 image with sensor noise of ``sigma`` grey levels added."""
    if sigma <= 0:
        return img
    H, W = img.shape[:2]
    pool = _noise_pool(W, H)
    ox, oy = int(rng.integers(0, 64)), int(rng.integers(0, 64))
    n = pool[oy : oy + H, ox : ox + W]
    # img + n * sigma / 16, saturated to uint8
    return cv2.addWeighted(img, 1.0, n, sigma / 16.0, 0.0, dtype=cv2.CV_8U)


def blur(img: np.ndarray, fx: Effects) -> np.ndarray:
    """Apply resolution loss, defocus and motion blur."""
    if fx.downscale < 1.0:
        h, w = img.shape[:2]
        small = cv2.resize(
            img, (int(w * fx.downscale), int(h * fx.downscale)), interpolation=cv2.INTER_AREA
        )
        img = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
    if fx.defocus > 0:
        img = cv2.GaussianBlur(img, (0, 0), fx.defocus)
    if fx.motion >= 2:
        n = round(fx.motion) | 1
        k = np.zeros((n, n), np.float32)
        c = n // 2
        a = math.radians(fx.motion_angle)
        cv2.line(
            k,
            (int(c - math.cos(a) * c), int(c - math.sin(a) * c)),
            (int(c + math.cos(a) * c), int(c + math.sin(a) * c)),
            1.0,
            1,
            cv2.LINE_AA,
        )
        img = cv2.filter2D(img, -1, k / k.sum())
    return img

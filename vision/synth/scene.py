"""Scene composition and exact labels.

A :class:`SceneSpec` says everything about one picture (layout, camera, table, light, occluders,
effects); :func:`render` turns it into pixels and per-card labels. :func:`sample_scene` draws a
random spec from a Generator. A video renderer reuses :func:`render` with specs it edits per frame.

Visibility is exact: every card is rasterised into an id map in stacking order (later cards
cover earlier ones, occluders cover all), and a card's visible fraction is its pixels left in
the map over its full projected area (parts outside the image count as hidden).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.detections import points_json
from vision.synth import tables
from vision.synth.camera import (
    Camera,
    Effects,
    Lighting,
    add_noise,
    apply_h,
    blur,
    distort_image,
    distort_points,
    glare_map,
    light_map,
    sample_camera,
    sample_effects,
    sample_lighting,
)
from vision.synth.faces import Deck
from vision.synth.layouts import Layout, Placed, make_layout

SKIN = (
    (150, 180, 230),
    (120, 160, 215),
    (95, 135, 190),
    (70, 105, 160),
    (45, 70, 115),
    (135, 170, 225),
)
SLEEVES = (
    (40, 40, 40),
    (120, 60, 30),
    (50, 50, 140),
    (180, 180, 180),
    (60, 110, 60),
    (200, 200, 210),
)
CHIPS = ((40, 40, 200), (160, 70, 20), (40, 140, 40), (30, 30, 30), (230, 230, 230), (30, 170, 220))
TABLE_WEIGHTS = {"wood": 0.32, "felt": 0.18, "cloth": 0.15, "pattern": 0.15, "plain": 0.2}
TABLE_KEYS = 24  # textures per kind (~1.2 MB each, cached): a build reuses 120 tables


@dataclass
class Occluder:
    """Something over the cards. ``hand``: image pixels (it is above the table); ``chip`` and
    ``phone``: table millimetres (they lie on it)."""

    kind: str
    params: dict

    def to_json(self) -> dict:
        """Return the occluder as JSON, numbers rounded."""

        def r(v):
            if isinstance(v, list | tuple):
                return [r(x) for x in v]
            return round(float(v), 2) if isinstance(v, float | np.floating) else v

        return {"kind": self.kind, **{k: r(v) for k, v in self.params.items()}}


@dataclass
class SceneSpec:
    """Everything about one picture; :func:`render` is a pure function of it."""

    layout: Layout
    camera: Camera
    table: tuple[str, int]
    lighting: Lighting = field(default_factory=Lighting)
    effects: Effects = field(default_factory=Effects)
    occluders: list[Occluder] = field(default_factory=list)
    shades: list[float] | None = None  # per-card brightness (paper, angle to the light)
    noise_seed: int = 0
    glossy: bool = True
    shadow_dir: tuple[float, float] = (0.7, 0.7)  # where cards' shadows fall, image direction
    bends: list[tuple[float, float]] | None = None  # per card: light gradient (amount, angle°)
    edge: tuple[float, float, float] | None = None  # table edge: n·x > d (mm) is off the table
    room: tuple[float, float, float] = (60.0, 60.0, 60.0)  # what lies beyond the table edge
    dof: float = 0.0  # depth of field: blur sigma reached at the top (far side) of the picture

    @property
    def size(self) -> tuple[int, int]:
        """Return the picture's size ``(width, height)``."""
        return self.camera.size


@dataclass
class CardLabel:
    """One card in the picture.

    corners: ``(4, 2)`` image points TL, TR, BR, BL as the card reads upright (as in
        :class:`vision.detections.Detections`), after lens distortion.
    visible: fraction of the card's area that is in the image and not covered.
    index_corners: ``(k, 4, 2)`` image points of its index corners (top-left index first),
        each clockwise from the index's own upright top-left; ``index_visible`` their fractions.
    """

    code: str | None
    deck: str
    role: dict
    corners: np.ndarray
    visible: float
    index_corners: np.ndarray
    index_visible: list[float]

    @property
    def face_up(self) -> bool:
        """Return whether the card shows its face."""
        return self.code is not None

    def box(self, size: tuple[int, int]) -> tuple[float, float, float, float] | None:
        """Return the card's axis-aligned box clipped to the image, or None if outside it."""
        return clip_box(self.corners, size)

    def to_json(self) -> dict:
        """Return the label as JSON."""
        return {
            "code": self.code,
            "face_up": self.face_up,
            "deck": self.deck,
            "role": self.role,
            "corners": points_json(self.corners),
            "visible": round(self.visible, 4),
            "index": [
                {"corners": points_json(q), "visible": round(v, 4)}
                for q, v in zip(self.index_corners, self.index_visible, strict=True)
            ],
        }


def clip_box(pts: np.ndarray, size: tuple[int, int]) -> tuple[float, float, float, float] | None:
    """Return the axis-aligned box of points clipped to the image, or None if it is empty."""
    x0, y0 = np.maximum(pts.min(0), 0)
    x1, y1 = np.minimum(pts.max(0), [size[0], size[1]])
    if x1 - x0 < 1 or y1 - y0 < 1:
        return None
    return float(x0), float(y0), float(x1), float(y1)


@dataclass
class Scene:
    """A rendered picture: BGR uint8 ``image`` (before JPEG), its labels and its spec.

    idmap: ``(h, w)`` int16, per pixel the index of the card on top (into ``labels``), -1 for
        table, -2 for an occluder; in undistorted image coordinates (before lens distortion).
    """

    image: np.ndarray
    labels: list[CardLabel]
    spec: SceneSpec
    idmap: np.ndarray | None = None

    def jpeg(self) -> bytes:
        """Return the picture encoded as JPEG at the spec's quality (its artefacts are wanted)."""
        _, buf = cv2.imencode(
            ".jpg", self.image, [cv2.IMWRITE_JPEG_QUALITY, self.spec.effects.jpeg]
        )
        return buf.tobytes()

    def jpeg_image(self) -> np.ndarray:
        """Return the picture as the camera delivers it, with JPEG artefacts."""
        image = cv2.imdecode(np.frombuffer(self.jpeg(), np.uint8), cv2.IMREAD_COLOR)
        assert image is not None, "a JPEG just written reads back"
        return image

    def truth(self) -> dict:
        """Return the JSON ground truth of the picture."""
        spec = self.spec
        return {
            "width": spec.size[0],
            "height": spec.size[1],
            "layout": spec.layout.name,
            "layout_info": spec.layout.info,
            "table": {"kind": spec.table[0], "key": spec.table[1]},
            "camera": spec.camera.to_json(),
            "lighting": spec.lighting.to_json(),
            "effects": spec.effects.to_json(),
            "occluders": [o.to_json() for o in spec.occluders],
            "table_edge": None if spec.edge is None else [round(v, 3) for v in spec.edge],
            "depth_of_field": round(spec.dof, 3),
            "cards": [lab.to_json() for lab in self.labels],
        }


# ---------------------------------------------------------------------------------------------
def _card_homography(p: Placed) -> np.ndarray:
    """Return the homography from face pixels to table millimetres."""
    src = p.face.corners()
    return cv2.getPerspectiveTransform(src, p.quad().astype(np.float32)).astype(np.float64)


def _poly_area(q: np.ndarray) -> float:
    x, y = q[:, 0], q[:, 1]
    return 0.5 * abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def _draw_table(spec: SceneSpec) -> np.ndarray:
    W, H = spec.size
    if spec.table[0] == "solid":  # a uniform colour, key = 0xBBGGRR (tests, studio shots)
        k = spec.table[1]
        return np.full((H, W, 3), ((k >> 16) & 255, (k >> 8) & 255, k & 255), np.float32)
    tex = tables.table_texture(*spec.table)
    n = tex.shape[0]
    s = tables.TABLE_MM / n
    # centred on the table origin, not the layout, so a video's table stays put as cards come
    cx, cy = 0.0, 0.0
    T = np.array([[s, 0, cx - n * s / 2], [0, s, cy - n * s / 2], [0, 0, 1]])
    Ht = spec.camera.table_H if spec.camera.table_H is not None else spec.camera.H
    img = cv2.warpPerspective(
        tex, Ht @ T, (W, H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT_101
    )
    if spec.camera.table_blur > 0:
        img = cv2.GaussianBlur(img, (0, 0), spec.camera.table_blur)
    img = img.astype(np.float32)
    if spec.edge is not None and spec.camera.table_H is None:
        _draw_room(img, spec)
    return img


def _draw_room(img: np.ndarray, spec: SceneSpec) -> None:
    """Paint what lies beyond the table's edge (and above the horizon): a dim, blurred room.

    Both boundaries are straight lines in the image (``H^-T`` maps table lines to image lines),
    so the mask is an exact, anti-aliased half-plane test per pixel.
    """
    W, H = spec.size
    Hinv_t = np.linalg.inv(spec.camera.H).T
    assert spec.edge is not None, "drawn only where the table has an edge"
    nx, ny, d = spec.edge
    l_edge = Hinv_t @ np.array([nx, ny, -d])
    l_hor = Hinv_t @ np.array([0.0, 0.0, 1.0])
    if l_hor[2] < 0 or (l_hor[:2] @ [W / 2, H / 2] + l_hor[2]) < 0:
        l_hor = -l_hor  # orient so that the table side is positive
        l_edge = -l_edge
    xs = np.arange(W, dtype=np.float32) + 0.5
    ys = np.arange(H, dtype=np.float32) + 0.5

    def half_plane(line: np.ndarray) -> np.ndarray:
        n = float(np.hypot(line[0], line[1])) or 1.0
        dist = np.add.outer(ys * np.float32(line[1] / n), xs * np.float32(line[0] / n))
        dist += np.float32(line[2] / n)
        return np.clip(0.5 + dist, 0, 1)

    m = np.maximum(half_plane(l_edge), half_plane(-l_hor))
    if not m.any():
        return
    # the room: a soft vertical gradient with a few dark and light blobs (furniture, a window)
    w, h = W // 4, H // 4
    room: np.ndarray = np.empty((h, w, 3), np.float32)
    grad = np.linspace(0.7, 1.1, h, dtype=np.float32)[:, None, None]
    room[:] = np.asarray(spec.room, np.float32) * grad
    g = np.random.default_rng(spec.noise_seed)
    for _ in range(4):
        c = (int(g.uniform(0, w)), int(g.uniform(0, h)))
        ax = (int(g.uniform(w * 0.05, w * 0.3)), int(g.uniform(h * 0.05, h * 0.4)))
        cv2.ellipse(room, c, ax, 0, 0, 360, tuple(float(v) for v in g.uniform(20, 200, 3)), -1)
    room = cv2.resize(cv2.GaussianBlur(room, (0, 0), 6), (W, H), interpolation=cv2.INTER_LINEAR)
    # the table's edge itself: a thin darker band just inside the boundary
    band = np.clip(
        1 - np.abs(half_plane(l_edge + np.array([0, 0, 3.0 * np.hypot(*l_edge[:2])])) - 0.5) * 2,
        0,
        1,
    )
    cv2.multiply(img, cv2.merge([1 - 0.35 * band] * 3), dst=img)
    cv2.blendLinear(img, room, 1 - m, m, dst=img)


def _shift(a: np.ndarray, dx: int, dy: int) -> np.ndarray:
    """Return ``a`` moved by (dx, dy) pixels, zeros coming in."""
    out = np.zeros_like(a)
    h, w = a.shape[:2]
    if abs(dx) >= w or abs(dy) >= h:
        return out
    out[max(dy, 0) : h + min(dy, 0), max(dx, 0) : w + min(dx, 0)] = a[
        max(-dy, 0) : h + min(-dy, 0), max(-dx, 0) : w + min(-dx, 0)
    ]
    return out


def _composite_card(
    img,
    idmap,
    i,
    p: Placed,
    Hcard: np.ndarray,
    shade: float,
    held: bool,
    shadow_dir: tuple[float, float] = (0.7, 0.7),
    bend: tuple[float, float] = (0.0, 0.0),
) -> np.ndarray:
    """Warp one card into its bounding rectangle and blend it; return its undistorted image quad."""
    W, H = img.shape[1], img.shape[0]
    face = p.face
    corners = face.corners().astype(np.float64)
    q = apply_h(Hcard, corners)
    wpx = max(
        1.0,
        float(np.linalg.norm(q[1] - q[0])),
        float(np.linalg.norm(q[3] - q[0])) * face.width / face.height,
    )
    ratio = face.width / wpx
    level = math.floor(math.log2(ratio)) if ratio >= 2 else 0
    src = face.mip(level)
    m = int(3 + 0.04 * wpx) if not held else int(4 + 0.06 * wpx)
    x0, y0 = np.floor(q.min(0)).astype(int) - m
    x1, y1 = np.ceil(q.max(0)).astype(int) + m
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return q
    sx, sy = src.shape[1] / face.width, src.shape[0] / face.height
    src_c = (corners * [sx, sy]).astype(np.float32)
    M = cv2.getPerspectiveTransform(src_c, (q - [x0, y0]).astype(np.float32))
    warped = cv2.warpPerspective(
        src,
        M,
        (x1 - x0, y1 - y0),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0, 0),
    )
    a = warped[..., 3].astype(np.float32) * (1 / 255)
    roi = img[y0:y1, x0:x1]
    # a soft drop shadow: cards have thickness and lift off the table
    d = max(1.0, 0.014 * wpx) if not held else max(2.0, 0.04 * wpx)
    k = max(3, int(0.03 * wpx * (3 if held else 1)) | 1)
    sh = cv2.boxFilter(a, -1, (k, k))
    shifted = _shift(sh, round(d * shadow_dir[0]), round(d * shadow_dir[1]))
    dark = shifted * (0.45 if held else 0.3)
    # roi * (1 - dark), then roi * (1 - a) + card * a: blendLinear does each in one pass
    cv2.blendLinear(roi, _zeros_like(roi), 1 - dark, dark, dst=roi)
    card = warped[..., :3].astype(np.float32)
    if bend[0] > 0:  # a slightly bent card catches the light unevenly
        bh, bw = a.shape
        ca, sa = math.cos(math.radians(bend[1])), math.sin(math.radians(bend[1]))
        g = np.add.outer(
            np.linspace(-0.5, 0.5, bh, dtype=np.float32) * sa,
            np.linspace(-0.5, 0.5, bw, dtype=np.float32) * ca,
        )
        g = shade * (1 + 2 * bend[0] * g)
        cv2.blendLinear(card, _zeros_like(card), g, 1 - g, dst=card)
    elif shade != 1.0:
        card *= shade
    cv2.blendLinear(roi, card, 1 - a, a, dst=roi)
    idmap[y0:y1, x0:x1][a > 0.5] = i
    return q


def _zeros_like(a: np.ndarray) -> np.ndarray:
    return np.zeros_like(a)


def _hand_mask(p: dict, W: int, H: int) -> tuple[np.ndarray, tuple[int, int]]:
    """Rasterise a hand: a capsule arm, a palm, four fingers and a thumb (uint8 mask, offset)."""
    base, palm = np.array(p["base"], float), np.array(p["palm"], float)
    hw = float(p["width"])
    d = palm - base
    d /= np.linalg.norm(d) + 1e-9
    n = np.array([-d[1], d[0]])
    pts = [base, palm]
    fingers = []
    # a hand gripping a fan from below shows its palm and thumb; the fingers are behind the cards
    for k in range(0 if p.get("grip") else 4):
        ang = math.radians((k - 1.5) * p["spread"])
        fd = np.array(
            [
                d[0] * math.cos(ang) - d[1] * math.sin(ang),
                d[0] * math.sin(ang) + d[1] * math.cos(ang),
            ]
        )
        start = palm + d * hw * 0.35 + n * (k - 1.5) * hw * 0.22
        length = hw * (0.55 + 0.2 * (1 - abs(k - 1.5) / 1.5)) * p["curl"]
        fingers.append((start, start + fd * length, hw * 0.17))
    side = 1 if p.get("right", True) else -1
    ta = math.radians(55 * side)
    td = np.array(
        [d[0] * math.cos(ta) - d[1] * math.sin(ta), d[0] * math.sin(ta) + d[1] * math.cos(ta)]
    )
    tstart = palm + n * side * hw * 0.35
    if p.get("grip"):  # the thumb lies up along the front card
        td = d * 0.8 - n * side * 0.6
        fingers.append((tstart, tstart + td * hw * 0.75, hw * 0.24))
    else:
        fingers.append((tstart, tstart + td * hw * 0.5, hw * 0.2))
    for s, e, _ in fingers:
        pts += [s, e]
    allp = np.array(pts)
    x0, y0 = np.floor(allp.min(0) - hw).astype(int)
    x1, y1 = np.ceil(allp.max(0) + hw).astype(int)
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return np.zeros((0, 0), np.uint8), (0, 0)
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    o = np.array([x0, y0])

    def ip(v):
        return tuple(round(c) for c in (v - o))

    cv2.line(mask, ip(base - d * hw), ip(palm), 255, int(hw * 0.8), cv2.LINE_AA)
    if p.get("sleeve") is not None:  # value 254 marks the sleeve, drawn in cloth colour
        cuff = palm - d * hw * float(p.get("cuff", 1.2))
        cv2.line(mask, ip(base - d * hw), ip(cuff), 254, int(hw * 1.05), cv2.LINE_8)
    cv2.ellipse(
        mask,
        ip(palm),
        (int(hw * 0.5), int(hw * 0.45)),
        math.degrees(math.atan2(d[1], d[0])),
        0,
        360,
        255,
        -1,
        cv2.LINE_AA,
    )
    for s, e, t in fingers:
        _finger(mask, s - o, e - o, t, 255)
    return mask, (x0, y0)


def _finger(img: np.ndarray, s: np.ndarray, e: np.ndarray, t: float, value) -> None:
    """Draw a finger from ``s`` to ``e``: ``t`` wide at the knuckle, tapering, a round tip."""
    v = e - s
    L = float(np.linalg.norm(v)) + 1e-9
    n = np.array([-v[1], v[0]]) / L
    poly = np.array([s + n * t / 2, e + n * t * 0.38, e - n * t * 0.38, s - n * t / 2])
    cv2.fillConvexPoly(img, np.round(poly * 16).astype(np.int32), value, cv2.LINE_AA, shift=4)
    for c, r in ((e, t * 0.38), (s, t * 0.5)):
        cv2.circle(
            img, (round(c[0] * 16), round(c[1] * 16)), round(r * 16), value, -1, cv2.LINE_AA, 4
        )


def _hand_details(p: dict, shape: tuple[int, int], offset: tuple[int, int]) -> np.ndarray:
    """Return a ``shape`` float32 shading factor for a hand: creases between fingers, lighter
    nails and a faint skin texture."""
    base, palm = np.array(p["base"], float), np.array(p["palm"], float)
    hw = float(p["width"])
    d = (palm - base) / (np.linalg.norm(palm - base) + 1e-9)
    n = np.array([-d[1], d[0]])
    o = np.array(offset, float)
    lines = np.zeros(shape, np.uint8)
    nails = np.zeros(shape, np.uint8)
    for k in range(0 if p.get("grip") else 4):
        ang = math.radians((k - 1.5) * p["spread"])
        fd = np.array(
            [
                d[0] * math.cos(ang) - d[1] * math.sin(ang),
                d[0] * math.sin(ang) + d[1] * math.cos(ang),
            ]
        )
        start = palm + d * hw * 0.35 + n * (k - 1.5) * hw * 0.22 - o
        length = hw * (0.55 + 0.2 * (1 - abs(k - 1.5) / 1.5)) * p["curl"]
        end = start + fd * length
        fn = np.array([-fd[1], fd[0]])
        for side in (-1, 1):  # the outline of each finger, where it meets the next one
            a, b = start + fn * side * hw * 0.085, end + fn * side * hw * 0.065
            cv2.line(
                lines, (round(a[0]), round(a[1])), (round(b[0]), round(b[1])), 255, 1, cv2.LINE_AA
            )
        tip = end - fd * hw * 0.06
        ax = (max(1, round(hw * 0.05)), max(1, round(hw * 0.045)))
        angle = math.degrees(math.atan2(fd[1], fd[0]))
        centre = (round(tip[0]), round(tip[1]))
        cv2.ellipse(nails, centre, ax, angle, 0, 360, 255, -1, cv2.LINE_AA)
    g = np.random.default_rng(round(hw * 1000) + round(palm[0]))
    cells = (max(1, shape[0] // 6), max(1, shape[1] // 6))
    tex: np.ndarray = g.uniform(-1, 1, cells).astype(np.float32)
    tex = cv2.resize(tex, (shape[1], shape[0]), interpolation=cv2.INTER_LINEAR)
    lines_f = cv2.GaussianBlur(lines.astype(np.float32) * (1 / 255), (0, 0), 0.8)
    return (1 + 0.04 * tex) * (1 - 0.35 * lines_f) * (1 + 0.18 * nails.astype(np.float32) / 255)


def _draw_occluders(img: np.ndarray, idmap: np.ndarray, spec: SceneSpec) -> None:
    W, H = spec.size
    Hm = spec.camera.H
    # things lying on the table first, then hands above them
    for occ in sorted(spec.occluders, key=lambda o: o.kind == "hand"):
        p = occ.params
        if occ.kind == "chip":
            t = np.linspace(0, 2 * np.pi, 32, endpoint=False)
            c, r = np.array(p["center"]), p["radius"]
            ring = np.stack([np.cos(t), np.sin(t)], 1)
            outer = apply_h(Hm, c + ring * r)
            # the chip's edge: the same disc a few mm up, seen as a darker rim
            col = np.array(p["colour"], np.float32)
            _fill(img, idmap, outer + np.array([0, 2]), col * 0.6)
            _fill(img, idmap, outer, col)
            _fill(img, idmap, apply_h(Hm, c + ring * r * 0.7), col * 0.85, occlude=False)
            for k in range(6):
                a = k * np.pi / 3
                spot = c + np.array(
                    [
                        [math.cos(a - 0.15), math.sin(a - 0.15)],
                        [math.cos(a + 0.15), math.sin(a + 0.15)],
                    ]
                )
                quad = np.concatenate(
                    [c + (spot - c) * r * 0.98, (c + (spot - c) * r * 0.75)[::-1]]
                )
                _fill(
                    img,
                    idmap,
                    apply_h(Hm, quad),
                    np.array([235, 235, 235], np.float32),
                    occlude=False,
                )
        elif occ.kind == "phone":
            w, h = p["size"]
            a = math.radians(p["angle"])
            rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
            box = np.array([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [-w / 2, h / 2]])
            body = apply_h(Hm, box @ rot.T + p["center"])
            _fill(img, idmap, body, np.array(p["colour"], np.float32))
            screen = apply_h(Hm, box * [0.9, 0.88] @ rot.T + p["center"])
            _fill(img, idmap, screen, np.array([40, 28, 22], np.float32), occlude=False)
            # a faint reflection of the room across part of the glass
            refl = apply_h(Hm, box * [0.9, 0.88] @ rot.T * [1, 1] + p["center"])[[0, 1, 2]]
            _fill(img, idmap, refl, np.array([80, 75, 70], np.float32), occlude=False, alpha=0.25)
            cam = apply_h(Hm, np.array([[0.0, -h * 0.46]]) @ rot.T + p["center"])[0]
            cv2.circle(img, (int(cam[0]), int(cam[1])), 2, (10, 10, 10), -1, cv2.LINE_AA)
        elif occ.kind == "hand":
            mask, (x0, y0) = _hand_mask(p, W, H)
            if mask.size == 0:
                continue
            m = mask.astype(np.float32) * (1 / 255)
            roi = img[y0 : y0 + m.shape[0], x0 : x0 + m.shape[1]]
            # its shadow on the table first, soft and offset
            sd = int(p["width"] * 0.25)
            sh = _soft(m, p["width"] * 0.12 + 1)
            shifted = np.zeros_like(sh)
            shifted[sd:, sd:] = sh[:-sd, :-sd] if sd > 0 else sh
            cv2.multiply(roi, cv2.merge([1 - 0.4 * shifted] * 3), dst=roi)
            # rounded shading: darker towards the outline
            inner = _soft(m, p["width"] * 0.08 + 1)
            shade = 0.65 + 0.4 * cv2.sqrt(np.clip(inner, 0, 1))
            shade *= _hand_details(p, m.shape, (x0, y0))
            colour = p["skin"]
            skin = cv2.merge([shade * (m * float(c)) for c in colour])
            if p.get("sleeve") is not None:
                sl = (mask == 254).astype(np.float32)
                cloth = cv2.merge([shade * (sl * float(c)) for c in p["sleeve"]])
                skin = skin * cv2.merge([1 - sl] * 3) + cloth
            cv2.multiply(roi, cv2.merge([1 - m] * 3), dst=roi)
            cv2.add(roi, skin, dst=roi)
            idmap[y0 : y0 + m.shape[0], x0 : x0 + m.shape[1]][m > 0.5] = -2


def _soft(m: np.ndarray, sigma: float) -> np.ndarray:
    """Blur a mask with a large sigma cheaply: at a quarter of the resolution."""
    h, w = m.shape
    if min(h, w) < 16:
        return cv2.GaussianBlur(m, (0, 0), sigma)
    small = cv2.resize(m, (max(1, w // 4), max(1, h // 4)), interpolation=cv2.INTER_AREA)
    small = cv2.GaussianBlur(small, (0, 0), sigma / 4)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)


def _fill(
    img, idmap, poly: np.ndarray, colour: np.ndarray, occlude: bool = True, alpha: float = 1.0
) -> None:
    H, W = img.shape[:2]
    x0, y0 = np.floor(poly.min(0)).astype(int)
    x1, y1 = np.ceil(poly.max(0)).astype(int) + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(
        mask, [np.round((poly - [x0, y0]) * 16).astype(np.int32)], 255, cv2.LINE_AA, shift=4
    )
    m = mask.astype(np.float32)[..., None] * (alpha / 255)
    roi = img[y0:y1, x0:x1]
    roi[:] = roi * (1 - m) + colour * m
    if occlude:
        idmap[y0:y1, x0:x1][mask > 127] = -2


def render(spec: SceneSpec) -> Scene:
    """Render a scene spec into a BGR image with exact per-card labels."""
    W, H = spec.size
    cards = spec.layout.cards
    img = _draw_table(spec)
    idmap = np.full((H, W), -1, np.int16)
    shades = spec.shades or [1.0] * len(cards)
    bends = spec.bends or [(0.0, 0.0)] * len(cards)
    quads, hcards = [], []
    for i, p in enumerate(cards):
        Hc = spec.camera.H @ _card_homography(p)
        hcards.append(Hc)
        quads.append(
            _composite_card(
                img, idmap, i, p, Hc, shades[i], spec.layout.held, spec.shadow_dir, bends[i]
            )
        )
    _draw_occluders(img, idmap, spec)
    # light, glare on glossy card surfaces, optics, sensor
    lm = cv2.resize(light_map(spec.lighting, spec.size), (W, H), interpolation=cv2.INTER_LINEAR)
    img *= lm
    gm = glare_map(spec.lighting, spec.size) if spec.glossy else None
    if gm is not None:
        g = cv2.resize(gm, (W, H), interpolation=cv2.INTER_LINEAR)
        g *= idmap >= 0
        img += g[..., None]
    out: np.ndarray = np.clip(img, 0, 255, out=img).astype(np.uint8)
    if spec.dof > 0:  # the far (top) part of a tilted view is out of focus
        far = cv2.GaussianBlur(out, (0, 0), spec.dof)
        wgt = np.clip(np.linspace(1.3, -0.4, H, dtype=np.float32), 0, 1)[:, None]
        wgt = np.ascontiguousarray(np.repeat(wgt, W, axis=1))
        out = cv2.blendLinear(far, out, wgt, 1 - wgt)
    out = blur(out, spec.effects)
    out = distort_image(out, spec.camera.k1)
    out = add_noise(out, spec.effects.noise, np.random.default_rng(spec.noise_seed))
    labels = _labels(spec, idmap, quads, hcards)
    return Scene(out, labels, spec, idmap)


def _labels(spec: SceneSpec, idmap: np.ndarray, quads: list, hcards: list) -> list[CardLabel]:
    W, H = spec.size
    cards = spec.layout.cards
    counts = np.bincount((idmap.ravel() + 2).astype(np.int64), minlength=len(cards) + 2)
    k1 = spec.camera.k1
    index_quads = [
        [apply_h(hcards[i], quad) for quad in p.face.index_quads] for i, p in enumerate(cards)
    ]
    # distort every label point in one call (the inverse lens model iterates)
    flat = [q for q in quads] + [q for iq in index_quads for q in iq]
    pts: np.ndarray = (
        distort_points(np.concatenate(flat), k1, (W, H)).astype(np.float32)
        if flat
        else np.zeros((0, 2))
    )
    pts = pts.reshape(-1, 4, 2)
    card_pts, idx_pts = pts[: len(quads)], pts[len(quads) :]
    labels = []
    k = 0
    for i, p in enumerate(cards):
        q = quads[i]
        area = _poly_area(q) * p.face.alpha_fraction
        vis = min(1.0, counts[i + 2] / area) if area > 0 else 0.0
        n = len(index_quads[i])
        labels.append(
            CardLabel(
                code=p.face.code,
                deck=p.face.deck,
                role=dict(p.role),
                corners=card_pts[i],
                visible=float(vis),
                index_corners=idx_pts[k : k + n].reshape(-1, 4, 2),
                index_visible=[_quad_visible(idmap, qq, i) for qq in index_quads[i]],
            )
        )
        k += n
    return labels


def _quad_visible(idmap: np.ndarray, q: np.ndarray, i: int) -> float:
    """Return the share of quad ``q`` (image pixels) where card ``i`` is on top and in the image."""
    area = _poly_area(q)
    if area < 1e-6:
        return 0.0
    H, W = idmap.shape
    x0, y0 = np.floor(q.min(0)).astype(int)
    x1, y1 = np.ceil(q.max(0)).astype(int) + 1
    x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, W), min(y1, H)
    if x1 <= x0 or y1 <= y0:
        return 0.0
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(
        mask, [np.round((q - [x0, y0] - 0.5) * 16).astype(np.int32)], 1, cv2.LINE_8, shift=4
    )
    inside = int(mask.sum())
    if inside == 0:
        return 0.0
    on_top = int(((idmap[y0:y1, x0:x1] == i) & (mask > 0)).sum())
    # pixels of the quad outside the image count as hidden
    return float(min(1.0, on_top / max(area, inside)))


# ---------------------------------------------------------------------------------------------
def sample_occluders(rng: np.random.Generator, layout: Layout, cam: Camera) -> list[Occluder]:
    """Sample hands, chips and a phone over the layout."""
    W, H = cam.size
    out: list[Occluder] = []
    cards = layout.cards
    centres_mm = np.array([c.center for c in cards])
    centres = apply_h(cam.H, centres_mm)
    widths = np.array(
        [np.linalg.norm(d[1] - d[0]) for d in (apply_h(cam.H, c.quad()) for c in cards)]
    )
    cw = float(np.median(widths))
    card_w_mm = cards[0].face.size_mm[0]
    if layout.held:  # the hand holding the fan at its base, fingers up over the front
        bottoms = np.array([apply_h(cam.H, c.quad()[2:4].mean(0, keepdims=True))[0] for c in cards])
        grip = bottoms.mean(0) - [0, cw * rng.uniform(0.05, 0.35)]
        hp = _hand_params(rng, grip, cw * rng.uniform(0.7, 1.0), W, H, from_side=2)
        hp["grip"] = True
        out.append(Occluder("hand", hp))
    elif rng.random() < 0.35:
        target = centres[int(rng.integers(len(centres)))] + rng.normal(0, cw * 0.5, 2)
        out.append(Occluder("hand", _hand_params(rng, target, cw * rng.uniform(1.1, 1.7), W, H)))
    if rng.random() < 0.25 and not layout.held:  # chips lie on the table, not in the hand
        for _ in range(int(rng.integers(1, 7))):
            c = centres_mm[int(rng.integers(len(centres_mm)))] + rng.normal(0, card_w_mm, 2)
            out.append(
                Occluder(
                    "chip",
                    {
                        "center": [float(c[0]), float(c[1])],
                        "radius": float(rng.uniform(12, 20)),
                        "colour": list(CHIPS[int(rng.integers(len(CHIPS)))]),
                    },
                )
            )
    if rng.random() < 0.1 and not layout.held:
        c = centres_mm[int(rng.integers(len(centres_mm)))] + rng.normal(0, card_w_mm * 2, 2)
        out.append(
            Occluder(
                "phone",
                {
                    "center": [float(c[0]), float(c[1])],
                    "angle": float(rng.uniform(0, 360)),
                    "size": [float(rng.uniform(68, 78)), float(rng.uniform(140, 160))],
                    "colour": [float(v) for v in rng.uniform(10, 60, 3)],
                },
            )
        )
    return out


def _hand_params(rng, target, width, W, H, from_side: int | None = None) -> dict:
    if from_side is not None:
        side = from_side
    elif rng.random() < 0.7:  # arms mostly reach in from the nearest edge of the picture
        tx, ty = float(target[0]) / W, float(target[1]) / H
        side = int(np.argmin([ty, tx, 1 - ty, 1 - tx]))
    else:
        side = int(rng.integers(4))
    t = rng.uniform(0.1, 0.9)
    at_edge = [(t * W, -width), (-width, t * H), (t * W, H + width), (W + width, t * H)][side]
    base = (
        np.array(at_edge)
        if from_side is None
        else np.array([target[0] + rng.normal(0, width * 0.3), H + width * 2])
    )
    d = np.array(target) - base
    palm = np.array(target) - d / (np.linalg.norm(d) + 1e-9) * width * 0.6
    return {
        "base": [float(base[0]), float(base[1])],
        "palm": [float(palm[0]), float(palm[1])],
        "width": float(width),
        "spread": float(rng.uniform(4, 16)),
        "curl": float(rng.uniform(0.6, 1.1)),
        "right": bool(rng.random() < 0.5),
        "skin": [
            float(v) for v in np.array(SKIN[int(rng.integers(len(SKIN)))]) * rng.uniform(0.9, 1.1)
        ],
        "sleeve": (
            [
                float(v)
                for v in np.array(SLEEVES[int(rng.integers(len(SLEEVES)))]) * rng.uniform(0.8, 1.1)
            ]
            if rng.random() < 0.5
            else None
        ),
        "cuff": float(rng.uniform(0.9, 2.5)),
    }


def sample_scene(
    rng: np.random.Generator,
    layout: str,
    decks: list[Deck],
    skipbo_deck: Deck,
    size: tuple[int, int] = (1280, 720),
    card_px: tuple[float, float] = (48.0, 400.0),
) -> SceneSpec:
    """Sample a random scene of one layout kind drawn with ``decks`` (the first is the main one)."""
    lay = make_layout(layout, rng, decks, skipbo_deck)
    quads = np.stack([c.quad() for c in lay.cards])
    cam = sample_camera(rng, quads, size, card_px, held=lay.held)
    kinds = list(TABLE_WEIGHTS)
    kind = str(rng.choice(kinds, p=list(TABLE_WEIGHTS.values())))
    table = (kind, int(rng.integers(TABLE_KEYS)))
    lighting = sample_lighting(rng)
    effects = sample_effects(rng)
    occluders = sample_occluders(rng, lay, cam)
    shades = [float(v) for v in rng.uniform(0.9, 1.04, len(lay.cards))]
    bend_amount = rng.uniform(0, 0.12) if rng.random() < 0.6 else 0.0
    bends = [
        (float(bend_amount * rng.uniform(0.3, 1)), float(rng.uniform(0, 360))) for _ in lay.cards
    ]
    a = rng.uniform(0, 2 * np.pi)
    shadow_dir = (float(np.cos(a)), float(np.sin(a)))
    edge = None
    if not lay.held and cam.tilt > 22 and rng.random() < 0.45:
        edge = _table_edge(cam, quads, float(rng.uniform(40, 400)))
    b, g, r = (float(v) for v in rng.uniform(25, 150, 3))
    dof = float(rng.uniform(0.8, 2.5)) if cam.tilt > 28 and rng.random() < 0.3 else 0.0
    return SceneSpec(
        lay,
        cam,
        table,
        lighting,
        effects,
        occluders,
        shades,
        int(rng.integers(1 << 31)),
        glossy=bool(rng.random() < 0.7),
        shadow_dir=shadow_dir,
        bends=bends,
        edge=edge,
        room=(b, g, r),
        dof=dof,
    )


def _table_edge(cam: Camera, quads: np.ndarray, margin: float) -> tuple[float, float, float]:
    """Return a table edge (n, d) on the far side of the view, ``margin`` mm beyond the cards."""
    W, H = cam.size
    inv = np.linalg.inv(cam.H)
    centre = apply_h(inv, np.array([[W / 2, H / 2]]))[0]
    top = apply_h(inv, np.array([[W / 2, H * 0.3]]))[0]
    n = top - centre
    n /= np.linalg.norm(n) + 1e-9
    d = float((quads.reshape(-1, 2) @ n).max()) + margin
    return float(n[0]), float(n[1]), d

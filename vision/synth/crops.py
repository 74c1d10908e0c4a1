"""Cheap training images for a classifier: rectified index-corner crops and single card faces.

No scene is rendered: the crop is warped straight from the face, then degraded like a camera
would (low resolution, blur, light, colour cast, noise), so millions can be made on a CPU.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

from vision.synth.camera import CASTS
from vision.synth.faces import CardFace, Deck, ProceduralDeck, SkipBoDeck


def face_for(code: str, deck: Deck | None = None, style: int = 0) -> CardFace:
    """Return the face of ``code`` from ``deck``, or from procedural style ``style``."""
    if deck is None:
        deck = SkipBoDeck(style) if code.startswith("SB") else ProceduralDeck(style)
    return deck.face(code)


def card_image(face: CardFace, background: Sequence[float] = (255, 255, 255)) -> np.ndarray:
    """Return the face as BGR uint8 on a plain background (the rounded corners filled)."""
    a = face.image[..., 3:].astype(np.float32) / 255
    bg = np.asarray(background, np.float32)
    return (face.image[..., :3] * a + bg * (1 - a)).astype(np.uint8)


def corner_crop(
    face: CardFace,
    which: int = 0,
    size: tuple[int, int] = (48, 80),
    rng: np.random.Generator | None = None,
    margin: float = 0.12,
    angle: float = 0.0,
) -> np.ndarray:
    """Return a ``(h, w, 3)`` BGR crop of index corner ``which`` (0 top-left, 1 bottom-right),
    rectified so the index reads upright, then rotated by ``angle`` degrees.

    With ``rng`` the crop is degraded at random: the quad jittered (as a detector would place
    it), the card seen at 40–400 px width, blur, gain, a colour cast (warm light too), noise.
    """
    w, h = size
    q = face.index_quads[which].astype(np.float64)
    if rng is not None:
        span = np.linalg.norm(q[2] - q[0])
        q = q + rng.normal(0, 0.04 * span, q.shape)
    # target: the quad inside the crop with a margin, rotated about the crop centre
    mx, my = w * margin, h * margin
    dst = np.array([[mx, my], [w - mx, my], [w - mx, h - my], [mx, h - my]], np.float64)
    if angle:
        a = math.radians(angle)
        c = np.array([w / 2, h / 2])
        rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
        dst = (dst - c) @ rot.T + c
    scale = 1.0
    if rng is not None:
        # the card was this wide in the camera image; the crop cannot hold more detail than that
        card_px = float(np.exp(rng.uniform(math.log(40), math.log(400))))
        quad_px = np.linalg.norm(q[1] - q[0]) * card_px / face.width
        scale = float(np.clip(quad_px / (w - 2 * mx), 0.15, 1.0))
    sw, sh = max(4, round(w * scale)), max(4, round(h * scale))
    M = cv2.getPerspectiveTransform(
        q.astype(np.float32), (dst * [sw / w, sh / h]).astype(np.float32)
    )
    bg = (0, 0, 0, 0)
    src = card_image(
        face, (60, 90, 60) if rng is None else tuple(int(v) for v in rng.integers(20, 230, 3))
    )
    img = cv2.warpPerspective(
        src,
        M,
        (sw, sh),
        flags=cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_REPLICATE,
        borderValue=bg,
    )
    if (sw, sh) != (w, h):
        img = cv2.resize(img, (w, h), interpolation=cv2.INTER_LINEAR)
    if rng is None:
        return img
    f: np.ndarray = img.astype(np.float32)
    if rng.random() < 0.3:
        f = cv2.GaussianBlur(f, (0, 0), rng.uniform(0.3, 1.2))
    cast = np.array(list(CASTS.values())[int(rng.integers(len(CASTS)))], np.float32)
    f *= cast * rng.uniform(0.55, 1.15)
    f += rng.normal(0, rng.uniform(0, 8), f.shape).astype(np.float32)
    img = np.clip(f, 0, 255).astype(np.uint8)
    if rng.random() < 0.5:
        _, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(40, 95))])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        assert decoded is not None, "a JPEG just written reads back"
        img = decoded
    return img

"""Training samples for the corner classifier: index-corner crops cut exactly as at run time.

Each sample places one card face (procedural or real art) on a table texture under a random
homography (scale, rotation, tilt), degrades it like a camera would (light, white balance,
blur, noise, JPEG, occluders), then cuts a corner with the run-time's own :func:`cut_corner`
from a quad jittered like the detector's corners. Backgrounds are the other things the
run-time cuts: the non-index corners (a wrong reading), covered indices, backs, the table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.crops import DEFAULT_SPEC, CropSpec, corner_crop_matrix, cut_corner
from vision.recognizer import CLASS_NAMES

NUM_CLASSES = len(CLASS_NAMES)
BG = NUM_CLASSES - 1
CODES = CLASS_NAMES[:-1]


def _decks(style_ids: list[int], skipbo_ids: list[int], deck_dirs: list[Path]):
    from vision.synth.faces import Deck, ImageDeck, ProceduralDeck, SkipBoDeck

    std: list[Deck] = [ProceduralDeck(i) for i in style_ids]
    for d in deck_dirs:
        std.append(ImageDeck(d))
    sb = [SkipBoDeck(i) for i in skipbo_ids]
    return std, sb


@dataclass
class SamplerConfig:
    """What the sampler draws from."""

    style_ids: tuple[int, ...] = tuple(range(48))
    skipbo_ids: tuple[int, ...] = tuple(range(6))
    deck_dirs: tuple[str, ...] = ()
    art_share: float = 0.35  # share of standard-card samples drawn from real-art decks
    background_share: float = 0.22
    width_px: tuple[float, float] = (34.0, 330.0)  # card widths on screen (log-uniform)


class CropSampler:
    """Draw ``(crop, label)`` pairs; deterministic for a given ``numpy`` generator."""

    def __init__(self, config: SamplerConfig, spec: CropSpec = DEFAULT_SPEC) -> None:
        self.config = config
        self.spec = spec
        self.proc, self.skipbo = _decks(list(config.style_ids), list(config.skipbo_ids), [])
        self.art = _decks([], [], [Path(d) for d in config.deck_dirs])[0]
        self._textures: dict[int, np.ndarray] = {}

    # -- pieces --------------------------------------------------------------------------
    def _texture(self, rng: np.random.Generator) -> np.ndarray:
        from vision.synth.tables import KINDS, table_texture

        key = int(rng.integers(40))
        if key not in self._textures:
            self._textures[key] = table_texture(KINDS[key % len(KINDS)], key)
        return self._textures[key]

    def _face(self, rng: np.random.Generator, code: str | None):
        """Return a face for ``code`` (``None``: a back) from a random deck that has it."""
        if code is not None and code.startswith("SB"):
            deck = self.skipbo[int(rng.integers(len(self.skipbo)))]
        else:
            use_art = self.art and rng.random() < self.config.art_share
            pool = self.art if use_art else self.proc
            deck = pool[int(rng.integers(len(pool)))]
            if code is not None and not deck.has(code):
                deck = self.proc[int(rng.integers(len(self.proc)))]
        return deck.back() if code is None else deck.face(code)

    # -- one sample ----------------------------------------------------------------------
    def sample(self, rng: np.random.Generator) -> tuple[np.ndarray, int]:
        """Return one ``(h, w, 3)`` BGR crop and its class index."""
        r = rng.random()
        bg_share = self.config.background_share
        if r < bg_share:
            kind = rng.choice(
                ["wrong_corner", "back", "table", "interior", "covered"],
                p=[0.35, 0.15, 0.15, 0.15, 0.20],
            )
            code = None if kind == "back" else CODES[int(rng.integers(len(CODES)))]
        else:
            kind = "index"
            code = CODES[int(rng.integers(len(CODES)))]
        face = self._face(rng, code)
        crop, label = self._render(rng, face, kind, code)
        return crop, label

    def _render(self, rng, face, kind: str, code: str | None) -> tuple[np.ndarray, int]:
        fw, fh = face.width, face.height
        # Card width on screen, log-uniform over what a 720p table view to a close-up shows.
        lo, hi = self.config.width_px
        w_px = math.exp(rng.uniform(math.log(lo), math.log(hi)))
        s = w_px / fw
        h_px = fh * s
        # Card quad around the origin: rotation, then a tilt as independent corner moves.
        ang = rng.uniform(0, 2 * math.pi)
        ca, sa = math.cos(ang), math.sin(ang)
        rect = (
            np.array([[-w_px, -h_px], [w_px, -h_px], [w_px, h_px], [-w_px, h_px]], np.float32) / 2
        )
        tilt = rng.uniform(0, 0.16) * w_px / 2
        base = rect + rng.normal(0, tilt, (4, 2)).astype(np.float32).clip(-0.3 * w_px, 0.3 * w_px)
        rot = np.array([[ca, -sa], [sa, ca]], np.float32)
        quad = base @ rot.T
        if not _convex(quad):
            quad = rect @ rot.T

        # The quad the detector would report: jittered corners, or a wrong reading.
        corner = 0 if rng.random() < 0.5 else 2
        q = quad.copy()
        jit = rng.uniform(0.0, 0.045) * w_px
        q += rng.normal(0, jit, (4, 2)).astype(np.float32).clip(-2.5 * jit, 2.5 * jit)
        q += rng.normal(0, 0.02 * w_px, (1, 2)).astype(np.float32)
        if kind == "wrong_corner":
            q = np.roll(q, -1, axis=0)
        elif kind == "interior":
            # A quad well inside the card: pips, pictures, no index.
            c = q.mean(axis=0)
            q = c + (q - c) * rng.uniform(0.3, 0.5) + rng.normal(0, 0.05 * w_px, (1, 2))
            q = np.roll(q, -int(rng.integers(4)), axis=0).astype(np.float32)
        elif kind == "table":
            q = q + rng.uniform(-1, 1, (1, 2)).astype(np.float32) * w_px

        # Render only the part of the scene that the crop reads (plus a margin for blur).
        cw, ch = self.spec.size
        m = corner_crop_matrix(q, corner, self.spec)
        rc = cv2.perspectiveTransform(
            np.array([[[0, 0]], [[cw, 0]], [[cw, ch]], [[0, ch]]], np.float32), m
        ).reshape(4, 2)
        margin = 6 + 0.06 * w_px
        x0, y0 = np.floor(rc.min(axis=0) - margin)
        x1, y1 = np.ceil(rc.max(axis=0) + margin)
        rw, rh = int(x1 - x0), int(y1 - y0)
        off = np.array([x0, y0], np.float32)
        quad, q = quad - off, q - off

        canvas = self._table_patch(rng, rw, rh)
        label = BG if kind != "index" else CLASS_NAMES.index(code)
        index_quad = None
        if kind != "table":
            # Warp a pre-shrunk face so small cards are not aliased.
            level = int(max(0, math.floor(math.log2(max(1.0, 1.0 / s) / 1.3)))) if s < 1 else 0
            img = face.mip(level)
            ih, iw = img.shape[:2]
            src = np.array([[0, 0], [iw, 0], [iw, ih], [0, ih]], np.float32)
            hmat = cv2.getPerspectiveTransform(src, quad.astype(np.float32))
            warped = cv2.warpPerspective(img, hmat, (rw, rh), flags=cv2.INTER_LINEAR)
            alpha = warped[..., 3:4].astype(np.float32) / 255.0
            canvas = canvas * (1 - alpha) + warped[..., :3] * alpha
            idx_quads = np.asarray(face.index_quads, np.float32)
            if len(idx_quads) >= 2:
                iq = idx_quads[0 if corner == 0 else 1] * [iw / fw, ih / fh]
                index_quad = cv2.perspectiveTransform(iq.reshape(-1, 1, 2).astype(np.float32), hmat)
                index_quad = index_quad.reshape(4, 2)

        occl_mask = None
        if kind == "covered" or (kind == "index" and rng.random() < 0.25) or rng.random() < 0.1:
            canvas, occl_mask = self._occlude(
                rng, canvas, quad, corner, w_px, heavy=kind == "covered"
            )
        if kind in ("index", "covered"):
            covered = 0.0
            if index_quad is not None and occl_mask is not None:
                mk = np.zeros((rh, rw), np.uint8)
                cv2.fillConvexPoly(mk, np.round(index_quad).astype(np.int32), 1)
                covered = float((occl_mask[mk > 0] > 0).mean()) if mk.any() else 0.0
            if kind == "index" and covered > 0.35:
                label = BG if covered > 0.6 else -1
            if kind == "covered" and covered < 0.6:
                label = -1
        if label == -1:  # ambiguous: partly covered index
            return self.sample(rng)

        canvas = self._photometric(rng, canvas, w_px)
        return cut_corner(canvas, q, corner, self.spec), label

    def _table_patch(self, rng, rw: int, rh: int) -> np.ndarray:
        tex = self._texture(rng)
        scale = rng.uniform(0.4, 2.0)
        nw = int(min(tex.shape[1] - 1, max(8, rw / scale)))
        nh = int(min(tex.shape[0] - 1, max(8, rh / scale)))
        x0 = int(rng.integers(0, tex.shape[1] - nw))
        y0 = int(rng.integers(0, tex.shape[0] - nh))
        patch = cv2.resize(
            tex[y0 : y0 + nh, x0 : x0 + nw], (rw, rh), interpolation=cv2.INTER_LINEAR
        )
        return patch.astype(np.float32)

    def _occlude(self, rng, canvas, quad, corner, w_px, heavy: bool):
        """Cover part of the card near ``corner`` with a blob (hand, chip) or another card."""
        mask = np.zeros(canvas.shape[:2], np.uint8)
        c = quad[corner] + (quad.mean(axis=0) - quad[corner]) * rng.uniform(
            0.05, 0.45 if heavy else 0.9
        )
        if rng.random() < 0.5:
            # Another card's body lying over this one: a big rotated rectangle.
            ang = rng.uniform(0, 180)
            wh = (w_px * rng.uniform(0.8, 1.2), w_px * rng.uniform(1.2, 1.6))
            off = rng.normal(0, 0.35, 2) * w_px
            box = cv2.boxPoints(((float(c[0] + off[0]), float(c[1] + off[1])), wh, ang))
            cv2.fillConvexPoly(mask, np.round(box).astype(np.int32), 255)
            colour = rng.uniform(200, 252, 3)
            shade = rng.uniform(0.8, 1.0)
            fill = np.full_like(canvas, 0) + colour * shade
            # A few pips/strokes so it is not a flat patch.
            for _ in range(int(rng.integers(0, 4))):
                p = box.mean(axis=0) + rng.normal(0, 0.25, 2) * w_px
                cv2.circle(
                    fill,
                    (int(p[0]), int(p[1])),
                    max(2, int(w_px * 0.08)),
                    (20, 20, 20) if rng.random() < 0.5 else (40, 30, 200),
                    -1,
                )
        else:
            # A skin-, dark- or chip-coloured blob.
            r = w_px * rng.uniform(0.15, 0.6)
            cv2.ellipse(
                mask,
                (int(c[0]), int(c[1])),
                (int(r), int(r * rng.uniform(0.5, 1.5))),
                rng.uniform(0, 180),
                0,
                360,
                255,
                -1,
            )
            palette = [
                (120, 150, 200),
                (90, 120, 170),
                (60, 80, 120),
                (30, 30, 30),
                (40, 40, 180),
                (160, 60, 30),
            ]
            colour = np.array(palette[int(rng.integers(len(palette)))], np.float32) * rng.uniform(
                0.7, 1.2
            )
            fill = np.zeros_like(canvas) + colour
        soft = (
            cv2.GaussianBlur(mask, (0, 0), max(0.6, w_px * 0.01)).astype(np.float32)[..., None]
            / 255
        )
        canvas = canvas * (1 - soft) + fill * soft
        return canvas, mask

    def _photometric(self, rng, canvas: np.ndarray, w_px: float) -> np.ndarray:
        rh, rw = canvas.shape[:2]
        img = canvas
        # Light: a smooth gradient (and sometimes a shadow edge) times exposure.
        g = rng.uniform(0.45, 1.25)
        gx = np.linspace(-1, 1, rw, dtype=np.float32)[None, :]
        gy = np.linspace(-1, 1, rh, dtype=np.float32)[:, None]
        ang = rng.uniform(0, 2 * math.pi)
        field = np.cos(ang) * gx + np.sin(ang) * gy
        light = g * (1 + rng.uniform(0, 0.35) * field)
        if rng.random() < 0.15:
            edge = (np.cos(ang + 1) * gx + np.sin(ang + 1) * gy) > rng.uniform(-0.5, 0.5)
            light = light * np.where(edge, rng.uniform(0.45, 0.8), 1.0).astype(np.float32)
        img = img * light[..., None]
        # White balance: warm (tungsten) to cool (shade) light, sometimes strongly.
        t = rng.normal(0, 0.13)
        gains = np.array([1 - t, 1.0, 1 + t], np.float32) * rng.uniform(0.92, 1.08, 3).astype(
            np.float32
        )
        if rng.random() < 0.2:
            gains = np.array(
                [rng.uniform(0.55, 0.8), rng.uniform(0.85, 1.0), 1.15], np.float32
            )  # tungsten
        img = img * gains
        # Glare: a bright soft spot.
        if rng.random() < 0.12:
            cx, cy = rng.uniform(0, rw), rng.uniform(0, rh)
            yy, xx = np.mgrid[0:rh, 0:rw].astype(np.float32)
            rad = w_px * rng.uniform(0.15, 0.6)
            img = (
                img
                + 255
                * rng.uniform(0.3, 0.9)
                * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * rad**2))[..., None]
            )
        # Saturation and gamma.
        img = np.clip(img, 0, 255)
        if rng.random() < 0.3:
            grey = img.mean(axis=2, keepdims=True)
            img = grey + (img - grey) * rng.uniform(0.4, 1.3)
        if rng.random() < 0.5:
            img = 255 * (np.clip(img, 0, 255) / 255) ** rng.uniform(0.7, 1.4)
        img = np.clip(img, 0, 255).astype(np.uint8)
        # Optics: defocus or motion blur at camera scale.
        r = rng.random()
        if r < 0.35:
            sig = rng.uniform(0.3, 1.0 + w_px / 150)
            img = cv2.GaussianBlur(img, (0, 0), sig)
        elif r < 0.5:
            k = int(rng.integers(3, 3 + max(3, int(w_px / 25))))
            kern: np.ndarray = np.zeros((k, k), np.float32)
            kern[k // 2, :] = 1.0 / k
            rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), rng.uniform(0, 180), 1.0)
            kern = cv2.warpAffine(kern, rot, (k, k))
            img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
        # Sensor noise, then JPEG.
        if rng.random() < 0.7:
            sig = rng.uniform(1, 14)
            img = np.clip(img.astype(np.float32) + rng.normal(0, sig, img.shape), 0, 255).astype(
                np.uint8
            )
        if rng.random() < 0.6:
            _, buf = cv2.imencode(
                ".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(rng.integers(25, 95))]
            )
            decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
            assert decoded is not None, "a JPEG just written reads back"
            img = decoded
        return img


def _convex(q: np.ndarray) -> bool:
    e = np.roll(q, -1, axis=0) - q
    cross = e[:, 0] * np.roll(e, -1, axis=0)[:, 1] - e[:, 1] * np.roll(e, -1, axis=0)[:, 0]
    return bool(np.all(cross > 0) or np.all(cross < 0))

"""A contact sheet: one scene of every layout with its labels drawn, for a person to look at."""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.synth.dataset import MIN_CARD_VISIBLE, MIN_CORNER_VISIBLE, N_SKIPBO_STYLES, N_STYLES
from vision.synth.faces import Deck, ProceduralDeck, SkipBoDeck, load_deck
from vision.synth.names import LAYOUTS
from vision.synth.scene import Scene, render, sample_scene


def draw_labels(img: np.ndarray, scene: Scene, scale: float = 1.0) -> np.ndarray:
    """Draw card quads (green, a dot at the card's top-left), codes and index corners (magenta)."""
    for lab in scene.labels:
        c = lab.corners * scale
        if lab.visible < 0.02:
            continue
        strong = lab.visible >= MIN_CARD_VISIBLE
        col = (60, 230, 60) if lab.face_up else (200, 200, 200)
        cv2.polylines(
            img,
            [np.round(c).astype(np.int32)],
            True,
            col if strong else (40, 140, 40),
            1,
            cv2.LINE_AA,
        )
        cv2.circle(img, tuple(np.round(c[0]).astype(int)), 2, (0, 255, 255), -1)
        for q, v in zip(lab.index_corners, lab.index_visible, strict=True):
            if v >= MIN_CORNER_VISIBLE:
                cv2.polylines(
                    img, [np.round(q * scale).astype(np.int32)], True, (255, 0, 255), 1, cv2.LINE_AA
                )
        if lab.code is not None and strong:  # face up
            p = tuple(np.round(c.mean(0)).astype(int) - [8, 0])
            cv2.putText(img, lab.code, p, cv2.FONT_HERSHEY_SIMPLEX, 0.38, (0, 0, 0), 3, cv2.LINE_AA)
            cv2.putText(
                img, lab.code, p, cv2.FONT_HERSHEY_SIMPLEX, 0.38, (255, 255, 255), 1, cv2.LINE_AA
            )
    return img


def preview_scenes(
    seed: int,
    layouts: Sequence[str] = LAYOUTS,
    deck_dirs: tuple[str, ...] = (),
    size: tuple[int, int] = (1280, 720),
) -> list[Scene]:
    """Render one scene per layout (two for the road), alternating procedural and real decks."""
    plan = []
    for name in layouts:
        plan.append(name)
        if name == "road":
            plan.append(name)
    scenes = []
    for k, name in enumerate(plan):
        rng = np.random.default_rng([seed, 1000 + k])
        decks: list[Deck]
        if deck_dirs and k % 2 == 1:
            decks = [load_deck(deck_dirs[(k // 2) % len(deck_dirs)])]
        else:
            decks = [ProceduralDeck(int(rng.integers(N_STYLES)))]
        if name == "scatter":
            decks.append(ProceduralDeck(int(rng.integers(N_STYLES))))
        sb = SkipBoDeck(int(rng.integers(N_SKIPBO_STYLES)))
        scenes.append(render(sample_scene(rng, name, decks, sb, size)))
    return scenes


def contact_sheet(
    seed: int = 0,
    layouts: Sequence[str] = LAYOUTS,
    deck_dirs: tuple[str, ...] = (),
    size: tuple[int, int] = (1280, 720),
    labels: bool = True,
    tile_width: int = 960,
) -> np.ndarray:
    """Return a BGR contact sheet of :func:`preview_scenes`, two tiles per row."""
    tiles = []
    for sc in preview_scenes(seed, layouts, deck_dirs, size):
        s = tile_width / sc.spec.size[0]
        img = cv2.resize(sc.jpeg_image(), None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        if labels:
            draw_labels(img, sc, s)
        spec = sc.spec
        cap = (
            f"{spec.layout.name} {spec.layout.info.get('shape', '')}  table {spec.table[0]}  "
            f"tilt {spec.camera.tilt:.0f}  deck {sc.labels[0].deck if sc.labels else ''}"
        )
        img[:28] = (img[:28] * 0.35).astype(np.uint8)
        cv2.putText(
            img, cap, (8, 19), cv2.FONT_HERSHEY_SIMPLEX, 0.5, (255, 255, 255), 1, cv2.LINE_AA
        )
        tiles.append(img)
    if len(tiles) % 2:
        tiles.append(np.zeros_like(tiles[0]))
    rows = [
        np.hstack([tiles[i], np.zeros((tiles[i].shape[0], 4, 3), np.uint8), tiles[i + 1]])
        for i in range(0, len(tiles), 2)
    ]
    sep = np.zeros((4, rows[0].shape[1], 3), np.uint8)
    out = [rows[0]]
    for r in rows[1:]:
        out += [sep, r]
    return np.vstack(out)

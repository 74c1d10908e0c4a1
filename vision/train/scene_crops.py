"""Index-corner crops cut from whole rendered scenes, for the far-card classifier.

The crop sampler (:mod:`vision.train.crops`) draws one card at a time on a table patch; a
road photo's far cards (35–60 px wide in a 720p photo) are drawn by the scene renderer instead,
with its own camera blur, lens, light and JPEG at the scene's size, and that is what the
far-card classifier reads at run time. Here each scene is rendered at its real size, JPEG
round trip included (:meth:`vision.synth.scene.Scene.jpeg_image`), and every small card's two
index corners are cut with the run-time's own :func:`vision.crops.corner_crop_matrix` from
the card's true outline jittered as much as the outline refiner still errs (a few % of the
card's width). Backgrounds are what the run-time also cuts there: a covered index corner, a
face-down card's corners, and the outline read the wrong way round (a long side on top).

Scenes are numbered ``numpy.random.default_rng([seed, i])`` as the road benchmark's are
(``bench.bench_pipeline``: seeds 1000–4000; the README's phone-photo roads 7000); training
uses :data:`TRAIN_SEED` and validation :data:`VAL_SEED`, so no evaluation scene is learnt.
The crops are rendered once into a cache (``.npz``) that a resumed run reads again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.crops import DEFAULT_SPEC, CropSpec, corner_crop_matrix, warp_many
from vision.geometry import card_widths
from vision.recognizer import CLASS_NAMES

BG = len(CLASS_NAMES) - 1
# The road benchmark's scenes are seeds 1000, 2000, 3000 and 4000, the README's phone-photo roads
# 7000 (the same roads at another size): none of them is learnt.
TRAIN_SEED = 5000
VAL_SEED = 5001
LAYOUTS = ("road",)


@dataclass(frozen=True)
class SceneCropConfig:
    """Which scenes are rendered and how their cards' corners are cut.

    size: the rendered photo's ``(width, height)`` (a road photo's, as benchmarked).
    max_width: only cards up to this many pixels wide (the far-card classifiers read up to 110).
    jitter: the largest standard deviation of each outline corner's error, as a fraction of
        the card's width (drawn uniformly per crop), and ``shift`` that of the whole outline.
    jitters: crops cut per index corner (each with its own outline error).
    label_from: an index at least this visible is the card's code; ``background_below``: one
        less visible shows what covers it (background); a crop between is not used.
    art_every: with real-art decks, every ``art_every``-th scene is drawn with one of them
        (in turn), the others with a procedural deck, as the benchmark draws its two kinds.
    """

    layout: str = "road"
    scenes: int = 500
    size: tuple[int, int] = (1280, 720)
    seed: int = TRAIN_SEED
    max_width: float = 150.0
    jitter: float = 0.04
    shift: float = 0.015
    jitters: int = 2
    label_from: float = 0.7
    background_below: float = 0.25
    wrong_way: float = 0.5  # chance per card of a crop of its outline read the other way round
    art_every: int = 2


def scene_deck(i: int, rng: np.random.Generator, art: Sequence[Any], art_every: int):
    """Return the deck of scene ``i``: a procedural deck drawn from ``rng`` (as the road
    benchmark draws it), or, every ``art_every``-th scene, the next of the ``art`` decks."""
    from vision.synth import ProceduralDeck

    deck = ProceduralDeck(int(rng.integers(40)))
    if art and art_every and i % art_every == 0:
        return art[(i // art_every) % len(art)]
    return deck


def jittered(quad: np.ndarray, width: float, rng: np.random.Generator, cfg: SceneCropConfig):
    """Return ``quad`` ``(4, 2)`` with each corner moved as the refined outline errs."""
    sd = rng.uniform(0.0, cfg.jitter) * width
    moved = rng.normal(0.0, max(sd, 1e-6), (4, 2)).clip(-2.5 * sd, 2.5 * sd)
    return (quad + moved + rng.normal(0.0, cfg.shift * width, (1, 2))).astype(np.float32)


def scene_corner_crops(
    image: np.ndarray,
    labels: Sequence[Any],
    rng: np.random.Generator,
    cfg: SceneCropConfig = SceneCropConfig(),
    spec: CropSpec = DEFAULT_SPEC,
) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(crops (n, h, w, 3) uint8, class indices (n,))`` cut from a rendered scene's
    ``image`` (BGR, as the camera delivers it) at its cards' ``labels`` (``CardLabel``s)."""
    h, w = image.shape[:2]
    matrices: list[np.ndarray] = []
    classes: list[int] = []
    for lab in labels:
        quad = np.asarray(lab.corners, np.float64).reshape(4, 2)
        width = float(card_widths(quad[None])[0])
        if width > cfg.max_width or lab.visible < 0.05:
            continue
        for k, corner in enumerate((0, 2)):
            x, y = quad[corner]
            if not (0 <= x < w and 0 <= y < h):
                continue  # the run-time does not read a corner outside the frame
            if lab.code is None:
                label, cuts = BG, 1  # a face-down card shows no index
            else:
                seen = float(lab.index_visible[k])
                if seen >= cfg.label_from:
                    label, cuts = CLASS_NAMES.index(lab.code), cfg.jitters
                elif seen < cfg.background_below:
                    label, cuts = BG, 1  # the index is covered: the crop shows what lies on it
                else:
                    continue  # partly covered: either reading would teach a guess
            for _ in range(cuts):
                matrices.append(corner_crop_matrix(jittered(quad, width, rng, cfg), corner, spec))
                classes.append(label)
        if lab.visible >= 0.3 and rng.random() < cfg.wrong_way:
            # The outline read with a long side on top: its corner crops show no index.
            turned = np.roll(jittered(quad, width, rng, cfg), -1, axis=0)
            corner = 0 if rng.random() < 0.5 else 2
            x, y = turned[corner]
            if 0 <= x < w and 0 <= y < h:
                matrices.append(corner_crop_matrix(turned, corner, spec))
                classes.append(BG)
    crops = warp_many(image, np.array(matrices).reshape(-1, 3, 3), spec.size)
    return crops, np.array(classes, np.int64)


def render_scene_crops(
    cfg: SceneCropConfig,
    deck_dirs: Sequence[str | Path] = (),
    spec: CropSpec = DEFAULT_SPEC,
    log: Callable[[str], Any] = print,
) -> tuple[np.ndarray, np.ndarray]:
    """Render ``cfg.scenes`` scenes and return all their corner crops and class indices."""
    from vision.synth import ImageDeck, SkipBoDeck, render
    from vision.synth.scene import sample_scene

    if cfg.layout not in LAYOUTS:
        raise ValueError(f"scene crops of {cfg.layout!r}: expected one of {', '.join(LAYOUTS)}")
    art = [ImageDeck(Path(d)) for d in deck_dirs]
    xs, ys = [], []
    for i in range(cfg.scenes):
        rng = np.random.default_rng([cfg.seed, i])
        deck = scene_deck(i, rng, art, cfg.art_every)
        spec_ = sample_scene(rng, cfg.layout, [deck], SkipBoDeck(0), cfg.size)
        scene = render(spec_)
        x, y = scene_corner_crops(scene.jpeg_image(), scene.labels, rng, cfg, spec)
        xs.append(x)
        ys.append(y)
        if (i + 1) % 50 == 0:
            log(f"scene crops: {i + 1} of {cfg.scenes} scenes, {sum(map(len, ys))} crops")
    if not xs:
        return np.zeros((0, spec.size[1], spec.size[0], 3), np.uint8), np.zeros(0, np.int64)
    return np.concatenate(xs), np.concatenate(ys)


def cache_name(cfg: SceneCropConfig) -> str:
    """Return the file name of ``cfg``'s crop cache in a training run's folder."""
    w, h = cfg.size
    return f"scene_crops_{cfg.layout}_{w}x{h}_{cfg.seed}_{cfg.scenes}.npz"


def cached_scene_crops(
    path: Path,
    cfg: SceneCropConfig,
    deck_dirs: Sequence[str | Path] = (),
    spec: CropSpec = DEFAULT_SPEC,
    log: Callable[[str], Any] = print,
) -> tuple[np.ndarray, np.ndarray]:
    """Return the crops of :func:`render_scene_crops`, rendered once into ``path`` (``.npz``)."""
    path = Path(path)
    if path.is_file():
        z = np.load(path)
        return z["x"], z["y"]
    x, y = render_scene_crops(cfg, deck_dirs, spec, log)
    part = path.with_name(path.stem + ".part.npz")  # a run stopped while writing leaves no cache
    np.savez(part, x=x, y=y)
    part.replace(path)
    return x, y

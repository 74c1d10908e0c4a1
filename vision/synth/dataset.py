"""Random scenes by (seed, index), and the YOLO dataset export with JSON ground truth.

Image ``i`` of a build with seed ``s`` depends only on ``(s, i)`` (a numpy Generator seeded with
``[s, i]``), so builds are reproducible whatever the number of workers.
"""

from __future__ import annotations

import json
import math
import multiprocessing as mp
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from referee.cards import all_codes
from vision.synth.faces import Deck, ProceduralDeck, SkipBoDeck, load_deck
from vision.synth.names import LAYOUTS, TARGETS
from vision.synth.scene import Scene, clip_box, render, sample_scene

N_STYLES = 40  # procedural deck styles (faces are cached per style and code)
N_SKIPBO_STYLES = 8
MIN_CARD_VISIBLE = 0.3
MIN_CORNER_VISIBLE = 0.6


def class_names(targets: str) -> list[str]:
    """Return the YOLO class names of a target set, in class-id order."""
    if targets == "cards":
        return ["card"]
    if targets == "corners":
        return ["corner"]
    if targets == "cards+corners":
        return ["card", "corner"]
    if targets == "codes":
        return list(all_codes())
    raise ValueError(f"unknown targets {targets!r}; expected one of {', '.join(TARGETS)}")


def pick_decks(
    rng: np.random.Generator, deck_dirs: tuple[str, ...], real_fraction: float = 0.5
) -> list[Deck]:
    """Pick the decks of one scene: a main deck (real art or procedural) and up to two more."""

    def one() -> Deck:
        if deck_dirs and rng.random() < real_fraction:
            return load_deck(deck_dirs[int(rng.integers(len(deck_dirs)))])
        return ProceduralDeck(int(rng.integers(N_STYLES)))

    n = 1 + int(rng.random() < 0.3) + int(rng.random() < 0.15)
    return [one() for _ in range(n)]


def random_scene(
    seed: int,
    index: int,
    layouts: tuple[str, ...] | dict[str, float] = LAYOUTS,
    deck_dirs: tuple[str, ...] = (),
    size: tuple[int, int] = (1280, 720),
    real_fraction: float = 0.5,
) -> Scene:
    """Render image ``index`` of the build with ``seed``: a random layout, decks, table and camera.

    ``layouts`` is a tuple of layout names (equally likely) or a dict of weights.
    """
    rng = np.random.default_rng([seed, index])
    layout = choose_layout(rng, layouts)
    decks = pick_decks(rng, deck_dirs, real_fraction)
    sb = SkipBoDeck(int(rng.integers(N_SKIPBO_STYLES)))
    return render(sample_scene(rng, layout, decks, sb, size))


def choose_layout(rng: np.random.Generator, layouts: tuple[str, ...] | dict[str, float]) -> str:
    """Draw a layout name: uniformly from a tuple, or by weight from a dict."""
    if isinstance(layouts, dict):
        names = list(layouts)
        w = np.array([float(layouts[n]) for n in names])
        return names[int(rng.choice(len(names), p=w / w.sum()))]
    return layouts[int(rng.integers(len(layouts)))]


def is_val(index: int, val_fraction: float) -> bool:
    """Return whether image ``index`` goes to the val split (evenly spread, deterministic)."""
    return ((index * 0.6180339887498949) % 1.0) < val_fraction


def yolo_lines(
    scene: Scene,
    targets: str = "cards+corners",
    min_card_visible: float = MIN_CARD_VISIBLE,
    min_corner_visible: float = MIN_CORNER_VISIBLE,
    obb: bool = False,
) -> list[str]:
    """Return YOLO label lines ``class cx cy w h`` (normalised, clipped to the image) for a scene.

    Face-down cards are never labelled. A card box is labelled when at least
    ``min_card_visible`` of the card shows; an index corner when at least ``min_corner_visible``
    of it shows. With ``codes`` the card box's class is its card code. With ``obb`` each line
    is an oriented box ``class x1 y1 x2 y2 x3 y3 x4 y4`` (the quad from its own top-left,
    clockwise; points clipped to the image) for Ultralytics' OBB task.
    """
    names = class_names(targets)
    size = scene.spec.size
    W, H = size
    out = []

    def line(cls: int, quad: np.ndarray) -> None:
        box = clip_box(quad, size)
        if box is None:
            return
        if obb:
            q = np.clip(quad / [W, H], 0, 1)
            out.append(f"{cls} " + " ".join(f"{v:.6f}" for v in q.ravel()))
            return
        x0, y0, x1, y1 = box
        out.append(
            f"{cls} {(x0 + x1) / 2 / W:.6f} {(y0 + y1) / 2 / H:.6f} "
            f"{(x1 - x0) / W:.6f} {(y1 - y0) / H:.6f}"
        )

    for lab in scene.labels:
        if lab.code is None:  # face down
            continue
        if targets in ("cards", "cards+corners", "codes") and lab.visible >= min_card_visible:
            line(names.index(lab.code) if targets == "codes" else 0, lab.corners)
        if targets in ("corners", "cards+corners"):
            cls = 0 if targets == "corners" else 1
            for q, v in zip(lab.index_corners, lab.index_visible, strict=True):
                if v >= min_corner_visible:
                    line(cls, q)
    return out


@dataclass
class BuildConfig:
    """Settings of a dataset build (the ``kortbord dataset build`` options)."""

    out: Path
    images: int
    seed: int = 0
    layouts: tuple[str, ...] | dict[str, float] = LAYOUTS
    deck_dirs: tuple[str, ...] = ()
    size: tuple[int, int] = (1280, 720)
    targets: str = "cards+corners"
    val_fraction: float = 0.1
    workers: int = 1
    real_fraction: float = 0.5
    min_card_visible: float = MIN_CARD_VISIBLE
    min_corner_visible: float = MIN_CORNER_VISIBLE
    obb: bool = False
    progress: bool = True
    extra: dict = field(default_factory=dict)


def _write_one(cfg: BuildConfig, index: int) -> int:
    scene = random_scene(cfg.seed, index, cfg.layouts, cfg.deck_dirs, cfg.size, cfg.real_fraction)
    split = "val" if is_val(index, cfg.val_fraction) else "train"
    name = f"{index:06d}"
    (cfg.out / "images" / split / f"{name}.jpg").write_bytes(scene.jpeg())
    lines = yolo_lines(scene, cfg.targets, cfg.min_card_visible, cfg.min_corner_visible, cfg.obb)
    (cfg.out / "labels" / split / f"{name}.txt").write_text("".join(x + "\n" for x in lines))
    truth = {
        "image": f"images/{split}/{name}.jpg",
        "seed": cfg.seed,
        "index": index,
        **scene.truth(),
    }
    (cfg.out / "truth" / split / f"{name}.json").write_text(
        json.dumps(truth, separators=(",", ":"))
    )
    return len(scene.labels)


_CFG: BuildConfig | None = None


def _init_worker(cfg: BuildConfig) -> None:
    global _CFG
    _CFG = cfg
    cv2.setNumThreads(1)
    for d in cfg.deck_dirs:
        load_deck(d)


def _work(index: int) -> int:
    assert _CFG is not None
    return _write_one(_CFG, index)


def prepare_output(out: Path) -> None:
    """Create the dataset folders; raise ``OSError`` with the path if the output is not writable."""
    for sub in ("images", "labels", "truth"):
        for split in ("train", "val"):
            (out / sub / split).mkdir(parents=True, exist_ok=True)
    probe = out / ".write-test"
    probe.write_text("ok")
    probe.unlink()


def write_data_yaml(cfg: BuildConfig) -> None:
    """Write the Ultralytics ``data.yaml`` (paths relative to the yaml's folder)."""
    names = class_names(cfg.targets)
    layouts = json.dumps(cfg.layouts) if isinstance(cfg.layouts, dict) else ",".join(cfg.layouts)
    lines = [
        "# Kortbord synthetic table scenes (kortbord dataset build)",
        f"# seed {cfg.seed}, {cfg.images} images, size {cfg.size[0]}x{cfg.size[1]}, "
        f"targets {cfg.targets}{' (oriented boxes)' if cfg.obb else ''}",
        f"# layouts {layouts}; decks: procedural" + "".join(f", {d}" for d in cfg.deck_dirs),
        "# No 'path:' key, so the folder can move: Ultralytics then takes this file's folder",
        "# as the dataset root (give it this file's absolute path).",
        "train: images/train",
        "val: images/val",
        f"nc: {len(names)}",
        "names:",
    ] + [f"  {i}: {json.dumps(n)}" for i, n in enumerate(names)]
    (cfg.out / "data.yaml").write_text("\n".join(lines) + "\n")


class Progress:
    """A plain stderr progress bar."""

    def __init__(self, total: int, enabled: bool = True) -> None:
        self.total, self.done, self.enabled = total, 0, enabled
        self.t0 = time.monotonic()
        self.last = 0.0

    def step(self, n: int = 1) -> None:
        """Count ``n`` more done; redraw the bar on stderr at most five times a second."""
        self.done += n
        now = time.monotonic()
        if not self.enabled or (now - self.last < 0.2 and self.done < self.total):
            return
        self.last = now
        rate = self.done / max(now - self.t0, 1e-9)
        eta = (self.total - self.done) / rate if rate > 0 else 0
        filled = int(30 * self.done / max(1, self.total))
        sys.stderr.write(
            f"\r[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total} "
            f"{rate:5.1f} img/s  eta {int(eta) // 60}m{int(eta) % 60:02d}s "
        )
        if self.done >= self.total:
            sys.stderr.write("\n")
        sys.stderr.flush()


def build(cfg: BuildConfig) -> dict:
    """Build a YOLO dataset with JSON ground truth; return a summary."""
    if cfg.targets not in TARGETS:
        raise ValueError(f"unknown targets {cfg.targets!r}; expected one of {', '.join(TARGETS)}")
    for d in cfg.deck_dirs:
        load_deck(d)  # fail early with the deck's own message
    prepare_output(cfg.out)
    write_data_yaml(cfg)
    t0 = time.monotonic()
    bar = Progress(cfg.images, cfg.progress)
    cards = 0
    if cfg.workers <= 1:
        _init_worker(cfg)
        for i in range(cfg.images):
            cards += _write_one(cfg, i)
            bar.step()
    else:
        # Not fork: the parent has used OpenCV's thread pool (loading decks), and a forked child
        # that calls into OpenCV can wait forever on the pool's copied lock.
        ctx = mp.get_context("spawn")
        with ctx.Pool(cfg.workers, _init_worker, (cfg,)) as pool:
            chunk = max(1, min(16, math.ceil(cfg.images / (cfg.workers * 8))))
            for n in pool.imap_unordered(_work, range(cfg.images), chunksize=chunk):
                cards += n
                bar.step()
    dt = time.monotonic() - t0
    n_val = sum(is_val(i, cfg.val_fraction) for i in range(cfg.images))
    return {
        "out": str(cfg.out),
        "images": cfg.images,
        "train": cfg.images - n_val,
        "val": n_val,
        "cards": cards,
        "seconds": round(dt, 2),
        "images_per_second": round(cfg.images / max(dt, 1e-9), 2),
        "workers": cfg.workers,
        "cpus": os.cpu_count(),
    }

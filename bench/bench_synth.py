"""Benchmark the scene generator: images per second at 1280×720 on one core, per layout and overall.

Run ``python -m bench.bench_synth`` (or ``make bench``). Rendering only (no file writes): each
figure is the median over several runs of ~20 images, after a warm-up that fills the caches
(face renders, table textures) as a long build would.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

import cv2

from vision.synth.dataset import random_scene
from vision.synth.layouts import LAYOUTS

SHARED_DECKS = Path(__file__).resolve().parents[2] / "shared" / "decks"


def _rate(layouts: tuple[str, ...], start: int, n: int, decks: tuple[str, ...], with_jpeg: bool) -> float:
    t = time.perf_counter()
    for i in range(start, start + n):
        scene = random_scene(1, i, layouts, decks, (1280, 720))
        if with_jpeg:
            scene.jpeg()
    return n / (time.perf_counter() - t)


def main(argv: list[str] | None = None) -> dict:
    """Print and return images/s per layout and overall, and the time for 20,000 images."""
    cv2.setNumThreads(1)
    decks = tuple(str(p) for p in sorted(SHARED_DECKS.glob("*")) if p.is_dir()) if SHARED_DECKS.is_dir() else ()
    runs, n = 3, 20
    _rate(LAYOUTS, 10_000, 40, decks, True)  # warm-up: fills the face and texture caches
    result: dict = {"size": "1280x720", "threads": 1, "real_decks": len(decks), "per_layout": {}}
    for lay in LAYOUTS:
        rates = [_rate((lay,), 20_000 + r * n, n, decks, True) for r in range(runs)]
        result["per_layout"][lay] = round(statistics.median(rates), 2)
    overall = [_rate(LAYOUTS, 30_000 + r * n, n, decks, True) for r in range(runs)]
    rate = statistics.median(overall)
    result["overall_images_per_second"] = round(rate, 2)
    result["estimate_20000_images_minutes_one_core"] = round(20_000 / rate / 60, 1)
    result["note"] = "render + JPEG encode, no disk writes; a build adds JSON/label writes"
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main(sys.argv[1:])

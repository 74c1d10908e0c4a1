"""Benchmark the scene generator: images per second at 1280×720 on one core, per layout and overall.

Run ``python -m bench.bench_synth`` (or ``make bench``). Rendering and JPEG encoding, no file
writes: each figure is the median over several runs of 20 images, after a warm-up that fills the
caches (every procedural face, the table textures, the real decks) as a long build does. Both
wall-clock and CPU-time rates are reported: on a shared machine the CPU-time rate is the one-core
figure, the wall-clock one shows the contention.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time

import cv2

from vision.shared import DECKS
from vision.synth import tables
from vision.synth.dataset import N_SKIPBO_STYLES, N_STYLES, random_scene
from vision.synth.faces import SKIPBO_CODES, STANDARD_CODES, load_deck, procedural_face, skipbo_face
from vision.synth.names import LAYOUTS
from vision.synth.scene import TABLE_KEYS


def _rate(
    layouts: tuple[str, ...], start: int, n: int, decks: tuple[str, ...]
) -> tuple[float, float]:
    """Return (wall-clock, CPU-time) images per second for ``n`` scenes."""
    t, c = time.perf_counter(), time.process_time()
    for i in range(start, start + n):
        random_scene(1, i, layouts, decks, (1280, 720)).jpeg()
    return n / (time.perf_counter() - t), n / max(time.process_time() - c, 1e-9)


def warm_up(decks: tuple[str, ...]) -> None:
    """Fill the caches a long build fills: every face, every table texture, the real decks."""
    for d in decks:
        load_deck(d)
    for sid in range(N_STYLES):
        for code in (*STANDARD_CODES, "JK", None):
            procedural_face(sid, code)
    for sid in range(N_SKIPBO_STYLES):
        for code in (*SKIPBO_CODES, None):
            skipbo_face(sid, code)
    for kind in tables.KINDS:
        for key in range(TABLE_KEYS):
            tables.table_texture(kind, key)
    _rate(LAYOUTS, 10_000, 10, decks)


def main(argv: list[str] | None = None) -> int:
    """Print images/s per layout and overall, and the time for 20,000 images, as JSON."""
    argparse.ArgumentParser(prog="bench_synth", description=__doc__.splitlines()[0]).parse_args(
        argv
    )
    cv2.setNumThreads(1)
    decks = tuple(str(p) for p in sorted(DECKS.glob("*")) if p.is_dir()) if DECKS.is_dir() else ()
    runs, n = 3, 20
    t = time.perf_counter()
    warm_up(decks)
    result: dict = {
        "size": "1280x720",
        "threads": 1,
        "real_decks": len(decks),
        "warm_up_seconds": round(time.perf_counter() - t, 1),
        "per_layout_cpu": {},
        "per_layout_wall": {},
    }
    for lay in LAYOUTS:
        rates = [_rate((lay,), 20_000 + r * n, n, decks) for r in range(runs)]
        result["per_layout_wall"][lay] = round(statistics.median(r[0] for r in rates), 2)
        result["per_layout_cpu"][lay] = round(statistics.median(r[1] for r in rates), 2)
    overall = [_rate(LAYOUTS, 30_000 + r * n, n, decks) for r in range(runs)]
    wall = statistics.median(r[0] for r in overall)
    cpu = statistics.median(r[1] for r in overall)
    result["overall_images_per_second_wall"] = round(wall, 2)
    result["overall_images_per_second_cpu"] = round(cpu, 2)
    result["estimate_20000_images_minutes_one_core"] = round(20_000 / cpu / 60, 1)
    result["estimate_20000_images_minutes_16_workers"] = round(20_000 / cpu / 60 / 16 * 1.15, 1)
    result["note"] = "render + JPEG encode, no disk writes; a build adds the label and JSON writes"
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The too-dark measure (vision/exposure.py): how many normal frames it calls unreadable
(it should call none), and how many cards the recognizer still reads in photos dimmed until
their brightest part is at a given level (where its ``DARK_LEVEL`` comes from).

Normal frames: every picture under ``--frames`` (default: the generated videos
bench_pipeline keeps, light changes and empty tables included) and the real photos.
Prints one JSON object.

    python -m bench.bench_exposure [--frames DIR ...] [--photos DIR] [--dimmed N]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

from kortbord.cli import Number

SUFFIXES = (".jpg", ".jpeg", ".png")
LEVELS = (60, 40, 30, 20, 15, 10)  # the brightest part of a dimmed photo


def _pictures(folders: list[Path]) -> list[Path]:
    return sorted(
        p for d in folders if d.is_dir() for p in d.rglob("*") if p.suffix.lower() in SUFFIXES
    )


def flagged(paths: list[Path]) -> dict:
    """Return how many of ``paths`` the measure calls unreadable, and why, and the least
    brightest part and spread among them (how far they are from its thresholds)."""
    import cv2

    from vision import exposure

    said: Counter[str] = Counter()
    measured = []
    for path in paths:
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            continue
        said[exposure.unreadable(image) or "readable"] += 1
        measured.append(exposure.levels(image))
    return {
        "frames": len(measured),
        "flagged": len(measured) - said["readable"],
        "why": {why: n for why, n in said.items() if why != "readable"},
        "least_brightest": min((high for _, high in measured), default=None),
        "least_spread": min((high - low for low, high in measured), default=None),
    }


def dimmed(paths: list[Path]) -> dict[str, int]:
    """Return the cards the recognizer reads in ``paths`` as they are and dimmed to each of
    :data:`LEVELS`."""
    import cv2
    import numpy as np

    from vision.exposure import levels
    from vision.recognizer import Recognizer

    rec = Recognizer()
    pictures = (cv2.imread(str(p), cv2.IMREAD_COLOR) for p in paths)
    images = [image for image in pictures if image is not None]  # as flagged() leaves them out
    out = {"as taken": sum(len(rec.recognize(i).detections.codes) for i in images)}
    for level in LEVELS:
        read = 0
        for image in images:
            dark = np.clip(image.astype(np.float32) * (level / levels(image)[1]), 0, 255)
            read += len(rec.recognize(dark.astype(np.uint8)).detections.codes)
        out[f"brightest {level}"] = read
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its JSON."""
    from vision.realphotos import DEFAULT_DIR

    p = argparse.ArgumentParser(prog="bench_exposure", description=__doc__.splitlines()[0])
    p.add_argument(
        "--frames",
        type=Path,
        nargs="+",
        help="folders of normal frames (default runs/bench_videos)",
    )
    p.add_argument("--photos", type=Path, help=f"real photos (default {DEFAULT_DIR})")
    p.add_argument("--dimmed", type=Number(int, 0), default=16, help="photos dimmed (default 16)")
    args = p.parse_args(argv)
    # A folder named is meant: one not there printed empty results, exit 0, as a checkout
    # without the default folders does.
    for option, folder in [
        ("--photos", args.photos),
        *(("--frames", f) for f in args.frames or []),
    ]:
        if folder is not None and not folder.is_dir():
            print(f"bench_exposure: {option} {folder}: no such folder", file=sys.stderr)
            return 2
        if folder is not None and not _pictures([folder]):  # empty results, as for none
            print(f"bench_exposure: {option} {folder}: no pictures in it", file=sys.stderr)
            return 2
    args.frames = args.frames or [Path("runs/bench_videos")]
    args.photos = args.photos or DEFAULT_DIR
    photos = _pictures([args.photos])
    result = {
        "frames": flagged(_pictures(args.frames)),
        "photos": flagged(photos),
        "dimmed photos": dimmed(photos[: args.dimmed]) if photos else {},
    }
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

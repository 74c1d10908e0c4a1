"""Benchmark the recognizer on 1280×720 frames with about 30 cards (goal: ≤ 80 ms median).

Run ``python -m bench.bench_recognizer`` (or ``make bench``). Frames are generated road scenes
(28 road cards plus piles). Reports the median time of the whole run-time path (onnxruntime
detector, proposals, outline refiner, crops, classifier, post-processing) and of the detector
alone at its main input size (letterbox, onnxruntime, decoding), and, when Ultralytics is
installed, the median of Ultralytics' own torch ``predict`` of the same detector checkpoint at
the same input size, measured in the same run with the same number of threads.
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from vision.recognizer import MODEL_DIR, Recognizer, models_present
from vision.shared import DECKS

THREADS = 2  # this machine's cores; the goal is stated for it


def frames(n: int = 4, min_cards: int = 28) -> list[tuple[np.ndarray, int]]:
    """Return ``n`` generated 1280×720 frames that show at least ``min_cards`` cards each."""
    from vision.synth import random_scene

    decks = tuple(str(p) for p in sorted(DECKS.iterdir()) if p.is_dir()) if DECKS.is_dir() else ()
    out: list[tuple[np.ndarray, int]] = []
    i = 0
    while len(out) < n and i < 200:
        scene = random_scene(seed=4242, index=i, layouts=("road",), deck_dirs=decks)
        shown = sum(1 for lab in scene.labels if lab.code is not None and lab.visible >= 0.4)
        if shown >= min_cards:
            out.append((scene.jpeg_image(), shown))
        i += 1
    return out


def _median_ms(fn, frame, runs: int) -> float:
    for _ in range(3):
        fn(frame)
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn(frame)
        times.append(time.perf_counter() - t)
    return 1000 * statistics.median(times)


def _alternating_ms(fns, fs, blocks: int = 4, runs: int = 6, skip: int = 2) -> list[float]:
    """Return the median ms of each of ``fns`` over the frames, taken turn about in short
    blocks per frame, so that all see the same machine (a shared machine's speed drifts by a
    fifth within minutes); each block's first ``skip`` runs are not timed, so none pays for
    another's threads winding down."""
    times: list[list[float]] = [[] for _ in fns]
    for f, _ in fs:
        for _ in range(blocks):
            for fn, ts in zip(fns, times, strict=True):
                for i in range(runs):
                    t0 = time.perf_counter()
                    fn(f)
                    if i >= skip:
                        ts.append(time.perf_counter() - t0)
    return [1000 * statistics.median(ts) for ts in times]


def main(argv: list[str] | None = None) -> int:
    """Print the benchmark figures as JSON; skip with a message when no models are shipped."""
    import argparse

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", type=Path, default=None, help="default: the shipped models/")
    given = ap.parse_args(argv).models
    model_dir = MODEL_DIR if given is None else given
    if given is not None and not models_present(model_dir):  # a folder named is meant
        print(f"bench_recognizer: no models in {model_dir}", file=sys.stderr)
        return 2
    if not models_present(model_dir):
        print(f"bench_recognizer: no models in {model_dir}; skipped (train with `kortbord train`)")
        return 0
    rec = Recognizer(model_dir, threads=THREADS)
    fs = frames()
    if not fs:
        print("bench_recognizer: could not generate frames with 30 cards")
        return 1
    full = [_median_ms(rec, f, 15) for f, _ in fs]

    # The detector at one input size, as Ultralytics' predict below: letterbox, run, decode.
    def ours_fn(x):
        return rec.detect_at(x, rec.detector_size)

    det_only = [_median_ms(ours_fn, f, 15) for f, _ in fs]
    # What starting unsure outlines again (``Recognizer._reseat``) costs: in turns.
    plain = Recognizer(model_dir, threads=THREADS)
    plain.reseat_turns = ()
    with_reseat, without = _alternating_ms((rec, plain), fs)
    found = [len(rec(f)) for f, _ in fs]
    result: dict[str, Any] = {
        "frames": len(fs),
        "cards_per_frame": [c for _, c in fs],
        "cards_recognised": found,
        "threads": THREADS,
        "input": f"{fs[0][0].shape[1]}x{fs[0][0].shape[0]}",
        "detector_size": rec.detector_size,
        "onnx_full_ms_median": round(statistics.median(full), 1),
        "onnx_detector_ms_median": round(statistics.median(det_only), 1),
        "onnx_full_ms_median_alternating": round(with_reseat, 1),
        "onnx_full_ms_median_alternating_without_reseat": round(without, 1),
        "goal_full_ms": 80,
    }
    pt = model_dir / "card_detector.pt"
    import vision.train  # first: it keeps Ultralytics from asking DNS if it is online

    try:
        import torch
        from ultralytics import YOLO
    except ImportError:
        result["torch_predict"] = (
            "skipped: ultralytics/torch not installed (pip install -e '.[train]')"
        )
    else:
        if not pt.is_file():
            result["torch_predict"] = f"skipped: {pt} missing"
        else:
            import vision.train.detector  # noqa: F401  (the checkpoint's model class lives there)

            torch.set_num_threads(THREADS)
            model = YOLO(str(pt), task="pose")

            def predict(frame):
                return model.predict(
                    frame, imgsz=rec.detector_size, device="cpu", verbose=False, conf=0.3
                )

            t, o = _alternating_ms((predict, ours_fn), fs)
            result["torch_predict_ms_median"] = round(t, 1)
            result["onnx_detector_ms_median_alternating"] = round(o, 1)
            result["speedup_full_vs_torch_predict"] = round(t / result["onnx_full_ms_median"], 2)
            result["speedup_detector_vs_torch_predict"] = round(t / o, 2)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""A rendered game video seen by a camera that moves halfway: knocked aside, or drooping.

The pipeline benchmark (``--camera-move``) replays each of its videos once more with the view
moved from ``MOVE_AT`` of the way through the game on: shifted, turned and zoomed about the
picture's middle, at once (a knock: the frames in between smeared, nothing readable in them)
or little by little over some seconds (a phone on a bending holder). The ground-truth labels
move with the picture; a card pushed partly out of the picture shows less of itself.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np

MOVE_AT = 0.45  # share of the video's frames before the camera moves
SMEAR_S = 0.5  # a knock smears this many seconds of frames
# Moves that keep a table in view (shifts in pixels, turns in degrees, zooms as factors)
MOVES: dict[str, dict[str, Any]] = {
    "shift40": {"shift": 40.0},
    "shift100": {"shift": 100.0},
    "turn3": {"turn": 3.0},
    "turn5": {"turn": -5.0},
    "zoom1.07": {"zoom": 1.07},
    "zoom0.92": {"zoom": 0.92},
    "combo": {"shift": (-60.0, 30.0), "turn": 4.0, "zoom": 1.05},
}


def warp(
    size: tuple[int, int],
    shift: np.ndarray | tuple[float, float] = (0.0, 0.0),
    turn: float = 0.0,
    zoom: float = 1.0,
) -> np.ndarray:
    """Return the 2×3 affine matrix of a view turned (degrees, anticlockwise on screen as
    OpenCV turns) and zoomed about the picture's middle, then shifted (pixels)."""
    w, h = size
    m = np.asarray(cv2.getRotationMatrix2D((w / 2, h / 2), turn, zoom), np.float64)
    m[:, 2] += shift
    return m


def _inside(quad: np.ndarray, size: tuple[int, int]) -> float:
    """Return the share of a card's outline inside the picture."""
    w, h = size
    area = cv2.contourArea(quad)
    frame = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    inside, _ = cv2.intersectConvexConvex(quad, frame)
    return inside / area if area > 0 else 0.0


def _away_from_edges(lines: list[str], length: float, size: tuple[int, int]) -> tuple[float, ...]:
    """Return the shift of ``length`` pixels, in steps of 15°, that keeps the cards laid
    from then on furthest inside the picture."""
    pts = [np.array(c["corners"], np.float64) for line in lines for c in json.loads(line)["cards"]]
    if not pts:
        return (length, 0.0)
    xy = np.concatenate(pts).reshape(-1, 2)
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    best: tuple[float, np.ndarray] | None = None
    for a in np.radians(np.arange(0, 360, 15)):
        d = length * np.array([np.cos(a), np.sin(a)])
        margin = min(*(lo + d), *(np.array(size) - hi - d))
        if best is None or margin > best[0]:
            best = (margin, d)
    assert best is not None, "24 ways were tried"
    return tuple(float(round(v, 1)) for v in best[1])


def moved_copy(src: Path, dst: Path, kind: str, over_s: float = 0.0, at: float = MOVE_AT) -> dict:
    """Write to ``dst`` the video folder ``src`` (frames/, labels.jsonl, events.json) with the
    camera moved as ``MOVES[kind]`` says, at once (``over_s`` 0) or over ``over_s`` seconds;
    return its events (with ``camera_move``: what moved, from which frame)."""
    move = dict(MOVES[kind])
    events = json.loads((src / "events.json").read_text())
    size = tuple(events["size"])
    lines = (src / "labels.jsonl").read_text().splitlines()
    start = int(len(lines) * at)
    if isinstance(move.get("shift"), float):  # a length: the way that keeps the cards in view
        move["shift"] = _away_from_edges(lines[start:], move["shift"], size)
    shift = np.array(move.get("shift", (0.0, 0.0)))
    turn, zoom = move.get("turn", 0.0), move.get("zoom", 1.0)
    steps = max(1, round((over_s or SMEAR_S) * events["fps"]))
    if dst.exists():
        shutil.rmtree(dst)
    (dst / "frames").mkdir(parents=True)
    out = []
    for line in lines:
        rec = json.loads(line)
        n = rec["frame"]
        name = f"{n:06d}.jpg"
        if n < start:
            shutil.copy(src / "frames" / name, dst / "frames" / name)
            out.append(line)
            continue
        k = min(1.0, (n - start + 1) / (steps + 1))  # how far the camera has moved
        m = warp(size, shift * k, turn * k, 1 + (zoom - 1) * k)
        smeared = over_s == 0 and k < 1
        image = cv2.imread(str(src / "frames" / name))
        if image is None:
            raise FileNotFoundError(f"{src / 'frames' / name} is not a readable image")
        edge = np.concatenate([image[:8].reshape(-1, 3), image[-8:].reshape(-1, 3)])
        table = tuple(float(v) for v in np.median(edge, axis=0))
        image = cv2.warpAffine(image, m, size, borderValue=table)
        if smeared:  # a knock: the frames in between are a blur
            length = max(3, int(np.hypot(*shift) / (steps + 1)) | 1)
            kernel = np.zeros((length, length), np.float32)
            kernel[length // 2, :] = 1 / length
            image = cv2.filter2D(image, -1, kernel)
        cv2.imwrite(str(dst / "frames" / name), image, [cv2.IMWRITE_JPEG_QUALITY, 88])
        cards = []
        for c in rec["cards"]:
            quad = (np.array(c["corners"], np.float64) @ m[:, :2].T + m[:, 2]).astype(np.float32)
            share = _inside(quad, size)
            seen = 0.0 if smeared else share
            cards.append(
                {
                    **c,
                    "visible": round(c["visible"] * seen, 3),
                    "index": round(c["index"] * (1.0 if seen > 0.99 else seen * 0.5), 3),
                    "corners": [[round(float(x), 1), round(float(y), 1)] for x, y in quad],
                }
            )
        out.append(json.dumps({**rec, "cards": cards}))
    (dst / "labels.jsonl").write_text("\n".join(out) + "\n")
    events["camera_move"] = {
        "kind": kind,
        "frame": start,
        "over_s": over_s,
        "shift": [float(v) for v in shift],
        "turn": turn,
        "zoom": zoom,
    }
    (dst / "events.json").write_text(json.dumps(events, indent=1))
    return events

"""A rendered video seen by a moving camera: the picture and its labels move alike."""

import json

import cv2
import numpy as np
import pytest

from bench.camera_moves import moved_copy

SIZE = (320, 180)
CARD = np.float32([[130, 60], [170, 60], [170, 120], [130, 120]])


def video(folder, frames=16, fps=8.0):
    """Write a little video folder: a white card on a grey table in every frame."""
    (folder / "frames").mkdir(parents=True)
    lines = []
    for n in range(frames):
        image = np.full((SIZE[1], SIZE[0], 3), 90, np.uint8)
        cv2.fillConvexPoly(image, CARD.astype(np.int32), (255, 255, 255))
        cv2.imwrite(str(folder / "frames" / f"{n:06d}.jpg"), image)
        card = {"code": "7H", "corners": CARD.tolist(), "visible": 1.0, "index": 1.0}
        lines.append(json.dumps({"frame": n, "time": n / fps, "cards": [card]}))
    (folder / "labels.jsonl").write_text("\n".join(lines) + "\n")
    events = {"size": list(SIZE), "fps": fps, "moves": []}
    (folder / "events.json").write_text(json.dumps(events))
    return folder


def white_centre(path):
    gray = cv2.imread(str(path), cv2.IMREAD_GRAYSCALE)
    ys, xs = np.nonzero(gray > 170)
    return np.array([xs.mean(), ys.mean()])


def labels(folder):
    return [json.loads(line) for line in (folder / "labels.jsonl").read_text().splitlines()]


@pytest.mark.parametrize("kind", ["turn5", "zoom0.92", "combo"])
def test_the_labels_move_with_the_picture(tmp_path, kind):
    src = video(tmp_path / "src")
    events = moved_copy(src, tmp_path / "moved", kind, over_s=1.0)
    assert events["camera_move"]["frame"] == 7  # 45% of 16 frames: the first half unmoved
    moved = tmp_path / "moved"
    before, after = labels(moved)[6]["cards"][0], labels(moved)[-1]["cards"][0]
    assert np.allclose(before["corners"], CARD)
    assert not np.allclose(after["corners"], CARD, atol=2)
    for n in (8, 15):  # gliding, and moved all the way
        corners = np.array(labels(moved)[n]["cards"][0]["corners"])
        centre = white_centre(moved / "frames" / f"{n:06d}.jpg")
        assert np.linalg.norm(centre - corners.mean(axis=0)) < 1.0
        assert labels(moved)[n]["cards"][0]["visible"] == 1.0  # a glide stays readable


def test_a_knock_smears_the_frames_between_and_pushes_cards_out_of_view(tmp_path):
    src = video(tmp_path / "src")
    moved_copy(src, tmp_path / "moved", "shift100")  # at once: half a second smeared
    rows = labels(tmp_path / "moved")
    shifted = np.array(rows[-1]["cards"][0]["corners"]) - CARD
    assert np.allclose(np.linalg.norm(shifted, axis=1), 100, atol=0.2)  # the same 100 px each
    assert [r["cards"][0]["visible"] for r in rows[7:11]] == [0.0] * 4  # smeared: unreadable
    # the card keeps in view: the shift goes the way that leaves it furthest inside
    assert rows[-1]["cards"][0]["visible"] == 1.0
    centre = white_centre(tmp_path / "moved" / "frames" / "000015.jpg")
    assert np.linalg.norm(centre - np.array(rows[-1]["cards"][0]["corners"]).mean(axis=0)) < 1

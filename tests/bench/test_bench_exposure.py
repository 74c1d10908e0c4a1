"""The too-dark measure's benchmark."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np

import vision.recognizer
from bench.bench_exposure import LEVELS, dimmed, flagged


def test_a_picture_that_cannot_be_read_is_left_out_of_the_dimmed_photos_as_of_the_frames(
    tmp_path, monkeypatch
):
    good, bad = tmp_path / "good.png", tmp_path / "bad.jpg"
    cv2.imwrite(str(good), np.full((40, 60, 3), 200, np.uint8))
    bad.write_bytes(b"not a picture")
    seen = []

    class OneCard:  # stands in for the model: one card in any picture
        def recognize(self, image):
            seen.append(image.shape)
            return SimpleNamespace(detections=SimpleNamespace(codes=["AS"]))

    monkeypatch.setattr(vision.recognizer, "Recognizer", OneCard)
    assert flagged([good, bad])["frames"] == 1
    assert dimmed([good, bad]) == {"as taken": 1} | {f"brightest {v}": 1 for v in LEVELS}
    assert seen == [(40, 60, 3)] * (1 + len(LEVELS))

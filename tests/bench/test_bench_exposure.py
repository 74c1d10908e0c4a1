"""The too-dark measure's benchmark."""

from __future__ import annotations

from types import SimpleNamespace

import cv2
import numpy as np
import pytest

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


def test_a_named_folder_without_pictures_and_a_negative_dimmed_count_are_refused(tmp_path, capsys):
    """A --photos or --frames folder with no picture in it printed empty results, exit 0;
    ``--dimmed -5`` dimmed every photo but the last five. Each is refused by name, exit 2."""
    from bench.bench_exposure import main

    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.txt").write_text("no pictures")
    assert main(["--photos", str(empty), "--frames", str(tmp_path)]) == 2
    assert f"--photos {empty}: no pictures in it" in capsys.readouterr().err
    photos = tmp_path / "photos"
    photos.mkdir()
    cv2.imwrite(str(photos / "a.png"), np.full((40, 60, 3), 200, np.uint8))
    with pytest.raises(SystemExit) as done:
        main(["--photos", str(photos), "--frames", str(photos), "--dimmed", "-5"])
    assert done.value.code == 2
    assert "--dimmed: expected a whole number 0 or more, not -5" in capsys.readouterr().err

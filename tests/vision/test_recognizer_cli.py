"""`kortbord detect` / `eval` / `train` argument handling, with a stand-in recognizer."""

from __future__ import annotations

import json

import cv2
import numpy as np
import pytest

from kortbord.cli import main
from vision.detections import Detections


class FakeRecognizer:
    """Sees one 7♥ in the middle of every frame."""

    def __call__(self, frame):
        h, w = frame.shape[:2]
        quad = [[w * 0.4, h * 0.3], [w * 0.6, h * 0.3], [w * 0.6, h * 0.7], [w * 0.4, h * 0.7]]
        return Detections(np.array([quad], np.float32), ("7H",), np.array([0.93], np.float32))


@pytest.fixture
def fake_recognizer(monkeypatch):
    import vision.cli

    monkeypatch.setattr(vision.cli, "_recognizer", lambda args: FakeRecognizer())


@pytest.fixture
def images(tmp_path):
    good = tmp_path / "table.png"
    cv2.imwrite(str(good), np.full((120, 160, 3), 90, np.uint8))
    bad = tmp_path / "notes.jpg"
    bad.write_text("not an image")
    return good, bad, tmp_path / "missing.jpg"


def test_detect_json_has_one_object_per_readable_image_and_names_bad_files(
    fake_recognizer, images, capsys
):
    good, bad, missing = images
    rc = main(["detect", str(good), str(bad), str(missing), str(good), "--json"])
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert rc == 1  # some files could not be read
    assert [d["image"] for d in data] == [str(good), str(good)]
    card = data[0]["cards"][0]
    assert set(card) == {"code", "confidence", "corners"}
    assert card["code"] == "7H" and card["confidence"] == pytest.approx(0.93)
    assert len(card["corners"]) == 4 and all(len(p) == 2 for p in card["corners"])
    assert f"{bad}: not a readable image" in err
    assert f"{missing}: no such file" in err
    assert "Traceback" not in err


def test_detect_table_and_annotate(fake_recognizer, images, tmp_path, capsys):
    good, _, _ = images
    out_dir = tmp_path / "ann"
    rc = main(["detect", str(good), "--annotate", str(out_dir)])
    out, _ = capsys.readouterr()
    assert rc == 0
    assert "1 card" in out and "7H" in out
    drawn = cv2.imread(str(out_dir / "table.jpg"))
    assert drawn is not None and drawn.shape == (120, 160, 3)
    assert not np.array_equal(drawn, np.full_like(drawn, 90))  # the card outline was drawn


def test_detect_names_an_image_it_cannot_recognise_and_goes_on(
    fake_recognizer, monkeypatch, images, tmp_path, capsys
):
    import vision.cli

    good, _, _ = images
    odd = tmp_path / "odd.png"
    cv2.imwrite(str(odd), np.full((40, 60, 3), 10, np.uint8))

    def recognise(frame):
        if frame.shape[:2] == (40, 60):
            raise ValueError("frame too odd")
        return FakeRecognizer()(frame)

    monkeypatch.setattr(vision.cli, "_recognizer", lambda args: recognise)
    rc = main(["detect", str(odd), str(good), "--json"])
    out, err = capsys.readouterr()
    assert rc == 1
    assert [d["image"] for d in json.loads(out)] == [str(good)]
    assert f"{odd}: cannot be recognised: frame too odd" in err


def test_detect_draws_two_images_of_one_name_into_two_files(
    fake_recognizer, images, tmp_path, capsys
):
    good, _, _ = images
    other = tmp_path / "other"
    other.mkdir()
    twin = other / good.name
    cv2.imwrite(str(twin), np.full((80, 100, 3), 90, np.uint8))
    out_dir = tmp_path / "ann"
    assert main(["detect", str(good), str(twin), "--annotate", str(out_dir)]) == 0
    assert cv2.imread(str(out_dir / "table.jpg")).shape == (120, 160, 3)
    assert cv2.imread(str(out_dir / "table-2.jpg")).shape == (80, 100, 3)


@pytest.mark.parametrize(
    ("truth", "says"),
    [
        ("5", "not iterable"),
        ("[1, 2]", "has no attribute"),
        ('[{"code": "ZZ", "corners": [[0, 0], [1, 0], [1, 1], [0, 1]]}]', "unknown card code"),
        ('[{"code": "7S"}]', "no 'corners'"),
        ('{"cards": [{"code": "7S", "corners": "x"}]}', "could not convert"),
    ],
)
def test_road_names_a_malformed_ground_truth_file(images, tmp_path, capsys, truth, says):
    good, _, _ = images
    labels = tmp_path / "truth.json"
    labels.write_text(truth)
    assert main(["road", str(good), "--truth", str(labels), "--json"]) == 2
    out, err = capsys.readouterr()
    reply = json.loads(out)
    assert reply["error"].startswith(f"bad ground truth {str(labels)!r}") and says in reply["error"]
    assert "Traceback" not in err


def test_detect_without_models_is_a_clear_error(tmp_path, images, capsys):
    good, _, _ = images
    rc = main(["detect", str(good), "--models", str(tmp_path / "nowhere")])
    _, err = capsys.readouterr()
    assert rc == 2
    assert "card_detector.onnx" in err and "missing" in err


def test_eval_skips_real_photos_when_the_folder_is_absent(monkeypatch, tmp_path, capsys):
    import vision.cli

    monkeypatch.setattr(vision.cli, "_recognizer", lambda args: FakeRecognizer())
    rc = main(["eval", "--synthetic-images", "0", "--real", str(tmp_path / "none")])
    out, _ = capsys.readouterr()
    assert rc == 0
    assert "not found; skipping" in out


def test_train_names_a_bad_deck_dir(capsys, tmp_path):
    rc = main(["train", "--deck-dir", str(tmp_path / "nodeck"), "--out", str(tmp_path / "run")])
    _, err = capsys.readouterr()
    assert rc == 2 and "nodeck" in err


@pytest.mark.parametrize("widths", ["150,30", "30", "a,b", "0,150"])
def test_train_names_bad_classifier_widths(capsys, tmp_path, widths):
    rc = main(["train", "--classifier-widths", widths, "--out", str(tmp_path / "run")])
    _, err = capsys.readouterr()
    assert rc == 2 and "--classifier-widths" in err and not (tmp_path / "run").exists()

"""Reading labelled real photos: VOC boxes, full codes and hand-read suits."""

from __future__ import annotations

import json
import re

import cv2
import numpy as np
import pytest

from vision import realphotos
from vision.realphotos import DEFAULT_DIR, RealPhotoError, load_split, read_photos, turn_photo

VOC = """<annotation><filename>{name}.jpg</filename>{objects}</annotation>"""
OBJ = """<object><name>{rank}</name><bndbox><xmin>{x}</xmin><ymin>10</ymin>
<xmax>{x2}</xmax><ymax>90</ymax></bndbox></object>"""


def _photo_set(root, split, photos: dict[str, list[str]]):
    """Write ``root/split/NAME.jpg`` and ``.xml`` with one box per rank word."""
    d = root / split
    d.mkdir(parents=True)
    for name, ranks in photos.items():
        cv2.imwrite(str(d / f"{name}.jpg"), np.zeros((100, 400, 3), np.uint8))
        objs = "".join(
            OBJ.format(rank=r, x=10 + 90 * i, x2=80 + 90 * i) for i, r in enumerate(ranks)
        )
        (d / f"{name}.xml").write_text(VOC.format(name=name, objects=objs))
    return root


def test_suits_come_from_codes_then_the_projects_suit_file(tmp_path, monkeypatch):
    root = _photo_set(tmp_path / "cards", "train", {"a": ["king", "nine"], "b": ["ace"]})
    suits_dir = tmp_path / "labels"
    suits_dir.mkdir()
    (suits_dir / "cards-train-suits.json").write_text(json.dumps({"suits": {"a": ["S", "HD"]}}))
    (root / "train-codes.json").write_text(json.dumps({"b": ["AH"]}))
    monkeypatch.setattr(realphotos, "SUITS_DIR", suits_dir)

    a, b = load_split(root, "train")
    assert a.ranks == ("K", "9") and a.codes == (None, None) and a.suits == ("S", "HD")
    assert b.codes == ("AH",) and b.suits == ("H",)  # a full code says its suit


def test_a_photo_without_suits_may_be_any_suit(tmp_path, monkeypatch):
    root = _photo_set(tmp_path / "cards", "test", {"a": ["ten"]})
    monkeypatch.setattr(realphotos, "SUITS_DIR", tmp_path)
    (photo,) = load_split(root, "test")
    assert photo.suits == ("SHDC",)


@pytest.mark.parametrize("entry", [["S"], ["S", "H", "D"], ["S", "X"]])
def test_a_suit_file_that_does_not_fit_the_boxes_is_named(tmp_path, monkeypatch, entry):
    root = _photo_set(tmp_path / "cards", "train", {"a": ["king", "nine"]})
    (tmp_path / "cards-train-suits.json").write_text(json.dumps({"suits": {"a": entry}}))
    monkeypatch.setattr(realphotos, "SUITS_DIR", tmp_path)
    with pytest.raises(RealPhotoError, match=r"cards-train-suits\.json"):
        load_split(root, "train")


def test_the_shipped_suits_cover_the_edje_train_photos():
    if not (DEFAULT_DIR / "train").is_dir():
        pytest.skip(f"{DEFAULT_DIR} is absent (it lies in ../shared beside a checkout)")
    photos = load_split(DEFAULT_DIR, "train")
    suits = [s for p in photos for s in p.suits]
    assert len(suits) == sum(len(p.ranks) for p in photos) > 500
    assert sum(len(s) == 1 for s in suits) / len(suits) > 0.95  # most suits were readable


class _BrightBoxes:
    """A stand-in recognizer: each bright region of the frame is a king of hearts."""

    def recognize(self, frame):
        from vision.detections import Detections
        from vision.recognizer import Recognition

        n, _, stats, _ = cv2.connectedComponentsWithStats((frame[..., 0] > 200).astype(np.uint8))
        boxes = np.array([[x, y, x + w, y + h] for x, y, w, h, _ in stats[1:n]], np.float32)
        quads = np.array([[[a, b], [c, b], [c, d], [a, d]] for a, b, c, d in boxes], np.float32)
        det = Detections(quads.reshape(-1, 4, 2), ("KH",) * len(boxes), np.ones(len(boxes)))
        return Recognition(det, boxes.reshape(-1, 4))


def test_real_photos_are_scored_turned_each_quarter_with_their_boxes_turned_alike(tmp_path):
    from vision.recognizer_eval import eval_real

    d = tmp_path / "test"
    d.mkdir()
    photo = np.zeros((100, 400, 3), np.uint8)
    photo[10:90, 10:80] = 255  # the card of the label below, at the photo's left
    cv2.imwrite(str(d / "a.png"), photo)
    (d / "a.xml").write_text(VOC.format(name="a", objects=OBJ.format(rank="king", x=10, x2=80)))
    (tmp_path / "test-codes.json").write_text(json.dumps({"a": ["KH"]}))
    photos = list(read_photos(load_split(tmp_path, "test")))
    for turns in ((0,), (90,), (180,), (270,), (0, 90, 180, 270)):
        s = eval_real(_BrightBoxes(), photos, turns).summary()
        n = len(turns)
        assert (s["images"], s["cards_found_right"], s["false_positives"]) == (n, n, 0)
        assert s["box_iou_ge_0.8"] == 1.0
    # At any other angle the photo lies turned on a grey canvas, each box the turned box's;
    # cards match by their outlines' boxes, and box IoU is not counted.
    s = eval_real(_BrightBoxes(), photos, (15, 30, 45)).summary()
    assert (s["images"], s["cards_found_right"], s["false_positives"]) == (3, 3, 0)
    assert "box_iou_ge_0.8" not in s
    ((photo, pixels),) = photos
    frame, boxes = turn_photo(pixels, photo.boxes, 45)
    assert frame.shape[:2] == (354, 354)  # (100 + 400) / √2 each way
    # Clockwise: the card at the photo's left goes up.
    assert (boxes[0, 1] + boxes[0, 3]) / 2 < frame.shape[0] / 2 - 50


class _LightBoxes(_BrightBoxes):
    """The stand-in, its threshold half the frame's brightest: it sees in any light."""

    def recognize(self, frame):
        gray = frame.mean(axis=2)
        return super().recognize(
            np.where(gray > 0.5 * gray.max(), 255, 0).astype(np.uint8)[..., None].repeat(3, axis=2)
        )


def test_real_photos_are_scored_under_each_disturbance_with_their_boxes_moved_alike(tmp_path):
    from vision.recognizer_eval import DISTURBANCES, eval_real_disturbed

    d = tmp_path / "test"
    d.mkdir()
    photo = np.full((300, 400, 3), 40, np.uint8)
    photo[10:110, 320:390] = 255  # the card of the label below, top right: tilting moves it most
    cv2.imwrite(str(d / "a.png"), photo)
    (d / "a.xml").write_text(
        VOC.format(
            name="a",
            objects=OBJ.format(rank="king", x=320, x2=390).replace("<ymax>90", "<ymax>110"),
        )
    )
    (tmp_path / "test-codes.json").write_text(json.dumps({"a": ["KH"]}))
    tallies = eval_real_disturbed(_LightBoxes(), list(read_photos(load_split(tmp_path, "test"))))
    assert list(tallies) == list(DISTURBANCES)
    for name, t in tallies.items():
        assert (t.images, t.tp, t.fp, t.fn) == (1, 1, 0, 0), name


@pytest.mark.parametrize("ymax", ["", "<ymax>ninety</ymax>"])
def test_a_box_without_a_readable_corner_is_named_with_its_file(tmp_path, ymax):
    root = _photo_set(tmp_path / "cards", "test", {"a": ["ten"]})
    xml = root / "test" / "a.xml"
    xml.write_text(xml.read_text().replace("<ymax>90</ymax>", ymax))
    with pytest.raises(RealPhotoError, match=r"a\.xml.*ymax"):
        realphotos.read_voc(xml)


def test_a_photo_that_does_not_read_whole_is_skipped_and_said_or_named_in_an_error(tmp_path):
    root = _photo_set(tmp_path / "cards", "test", {"a": ["ten"], "b": ["two"]})
    cut = root / "test" / "b.jpg"
    noise = np.random.default_rng(0).integers(0, 256, (100, 400, 3), np.uint8)
    data = cv2.imencode(".jpg", noise)[1].tobytes()
    cut.write_bytes(data[: len(data) // 2])  # OpenCV reads it, grey where bytes are missing
    photos = load_split(root, "test")
    said: list = []
    ((photo, frame),) = read_photos(photos, lambda p, e: said.append((p.image, str(e))))
    assert photo.image.name == "a.jpg" and frame.shape == (100, 400, 3)
    assert said == [(cut, "the file is cut off: part of the picture is missing")]
    with pytest.raises(RealPhotoError, match=rf"^{re.escape(str(cut))}: the file is cut off"):
        list(read_photos(photos))

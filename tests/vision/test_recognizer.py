"""The recognizer's run-time on hand-made inputs: decoding, reading, de-duplication."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.vision.conftest import card_quad
from vision.geometry import (
    box_iou,
    order_clockwise,
    polygon_iou,
    quad_is_sane,
)
from vision.recognizer import (
    BACKGROUND,
    CLASS_NAMES,
    THUMB_DEFAULTS,
    TURNS,
    CardCandidates,
    Recognizer,
    bright_card_quads,
    decode_pose_output,
    dedupe_cards,
    letterbox,
    read_cards,
    turned_twins,
)

C = len(CLASS_NAMES)


# ---- detector output ---------------------------------------------------------------------------
def test_letterbox_keeps_aspect_and_pads_to_the_stride():
    frame = np.zeros((720, 1280, 3), np.uint8)
    blob, scale = letterbox(frame, 640)
    assert blob.shape == (1, 3, 384, 640)
    assert scale == pytest.approx(0.5)
    blob, scale = letterbox(np.zeros((504, 378, 3), np.uint8), 640)
    assert blob.shape[2] == 640 and blob.shape[3] % 32 == 0


def _raw(cards, n_noise=0):
    """Build a (1, 17, N) pose output from (box xyxy, score, 4 corners) tuples in input pixels."""
    cols = []
    for box, score, corners in cards:
        x0, y0, x1, y1 = box
        kp = np.concatenate([np.asarray(corners, np.float32), np.ones((4, 1), np.float32)], axis=1)
        cols.append(
            np.concatenate([[(x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0, score], kp.ravel()])
        )
    for _ in range(n_noise):
        cols.append(np.concatenate([[10, 10, 5, 5, 0.01], np.zeros(12)]))
    return np.array(cols, np.float32).T[None]


def test_decode_pose_output_scales_back_suppresses_duplicates_and_orders_corners():
    q1 = card_quad(100, 100, 40, 56, 30)
    q2 = card_quad(300, 120, 40, 56, -10)
    box1 = [*q1.min(0), *q1.max(0)]
    box2 = [*q2.min(0), *q2.max(0)]
    # Card 1 twice (a near-identical duplicate), card 2 once, corners given in a scrambled order.
    raw = _raw(
        [(box1, 0.9, q1[[2, 0, 3, 1]]), (np.add(box1, 1), 0.8, q1), (box2, 0.7, q2[::-1])],
        n_noise=5,
    )
    cand = decode_pose_output(raw, scale=0.5, conf_threshold=0.3, iou_threshold=0.6)
    assert len(cand) == 2
    assert cand.scores.tolist() == pytest.approx([0.9, 0.7])
    np.testing.assert_allclose(cand.boxes[0], np.array(box1) / 0.5, atol=1e-3)
    for quad, truth in zip(cand.quads, (q1, q2), strict=True):
        assert quad_is_sane(quad)
        assert polygon_iou(quad, truth / 0.5) > 0.99


def test_decode_pose_output_rejects_a_wrong_shape():
    from vision.recognizer import ModelError

    with pytest.raises(ModelError, match="expected"):
        decode_pose_output(np.zeros((1, 56, 10), np.float32), 1.0)


# ---- reading codes -----------------------------------------------------------------------------
def _probs(code, p=0.9):
    v = np.full(C, (1 - p) / (C - 1), np.float32)
    v[CLASS_NAMES.index(code)] = p
    return v


def test_read_cards_combines_corners_and_picks_the_reading_that_shows_an_index():
    bg = _probs(BACKGROUND, 0.95)
    probs = np.stack(
        [
            # card 0: reading 0 shows QS at both corners
            np.stack([np.stack([_probs("QS"), _probs("QS", 0.8)]), np.stack([bg, bg])]),
            # card 1: reading 1 is right (reading 0 cut the blank corners)
            np.stack([np.stack([bg, bg]), np.stack([_probs("6H"), _probs("6H", 0.7)])]),
            # card 2: its bottom-right corner is covered (invalid) and shows another card's index
            np.stack([np.stack([_probs("9C"), _probs("JS", 0.99)]), np.stack([bg, bg])]),
            # card 3: nothing but background
            np.stack([np.stack([bg, bg]), np.stack([bg, bg])]),
        ]
    )
    valid = np.ones((4, 2, 2), bool)
    valid[2, 0, 1] = False
    code, conf, reading, dist = read_cards(probs, valid)
    assert [CLASS_NAMES[i] if i >= 0 else None for i in code] == ["QS", "6H", "9C", None]
    assert reading[:3].tolist() == [0, 1, 0]
    assert conf[0] == pytest.approx(0.85, abs=1e-3)
    assert conf[2] == pytest.approx(0.9, abs=1e-3)
    # Each card's code probabilities are its chosen reading's, over the usable corners.
    assert dist.shape == (4, len(CLASS_NAMES) - 1)
    assert dist[1, CLASS_NAMES.index("6H")] == pytest.approx(0.8, abs=1e-3)
    assert dist[2].argmax() == CLASS_NAMES.index("9C") and not dist[3].any()


def test_a_whole_card_thumbnail_settles_a_small_card_whose_corners_disagree():
    # Two blurred index corners split between 8D and 9D; the whole card's pips say 8D.
    corners = [_probs("9D", 0.55), _probs("8D", 0.5)]
    thumb = _probs("8D", 0.9)
    probs = np.stack([np.stack([*corners, thumb])])[None]  # (1 card, 1 reading, 3 slots, C)
    valid = np.ones((1, 1, 3), bool)
    code, conf, *_ = read_cards(probs[:, :, :2], valid[:, :, :2])
    assert code[0] == -1  # no code is sure enough
    code, conf, *_ = read_cards(probs, valid, weights=[1.0, 1.0, 2.0])
    assert CLASS_NAMES[code[0]] == "8D"
    assert conf[0] == pytest.approx((0.5 + 2 * 0.9) / 4, abs=0.01)
    # Without a usable thumbnail (e.g. a big card) the corners alone decide, as before.
    valid[0, 0, 2] = False
    code_alone, *_ = read_cards(probs, valid, weights=[1.0, 1.0, 2.0])
    assert code_alone[0] == read_cards(probs[:, :, :2], valid[:, :, :2])[0][0]


def test_a_small_cards_pips_outweigh_two_corners_agreeing_on_a_blurred_suit():
    # A far K♠: both index corners, a few pixels, read K♣ (0.65) more than K♠ (0.1); its
    # whole picture reads K♠ (0.7). Counted as two corners, the whole card lost (K♣ 0.45
    # against K♠ 0.40); the shipped weight lets it win. (Rendered roads: 229 -> 234 of 321
    # read right; real photos unchanged.)
    def two(a, pa, b, pb):
        v = np.full(C, (1 - pa - pb) / (C - 2), np.float32)
        v[CLASS_NAMES.index(a)], v[CLASS_NAMES.index(b)] = pa, pb
        return v

    corner, thumb = two("KC", 0.65, "KS", 0.1), two("KS", 0.7, "KC", 0.25)
    probs = np.stack([corner, corner, thumb])[None, None]
    valid = np.ones((1, 1, 3), bool)
    as_two_corners, *_ = read_cards(probs, valid, 0.4, [1.0, 1.0, 2.0])
    assert CLASS_NAMES[as_two_corners[0]] == "KC"
    code, *_ = read_cards(probs, valid, 0.4, [1.0, 1.0, THUMB_DEFAULTS["weight"]])
    assert CLASS_NAMES[code[0]] == "KS"


# ---- one physical card once --------------------------------------------------------------------
def test_two_cards_with_the_same_code_stay_two_cards():
    a = card_quad(100, 100, 60, 84, 0)
    b = card_quad(400, 100, 60, 84, 0)
    keep = dedupe_cards(np.stack([a, b]), ["7H", "7H"], np.array([0.9, 0.8]))
    assert keep.tolist() == [0, 1]


def test_the_same_card_found_twice_is_one_card():
    a = card_quad(100, 100, 60, 84, 0)
    keep = dedupe_cards(
        np.stack([a, a + 2, a + np.array([200, 0])]), ["7H", "7H", "7H"], np.array([0.7, 0.9, 0.8])
    )
    assert keep.tolist() == [1, 2]


def test_a_card_found_turned_over_a_card_of_its_code_found_upright_is_that_card():
    upright = card_quad(100, 100, 60, 84, 0)
    across = upright + np.array([25, 0])  # the same card outlined half across its neighbour
    elsewhere = card_quad(300, 100, 60, 84, 0)  # a card of that code from another deck
    misread = upright + np.array([4, 2])  # the same card read otherwise
    quads = np.stack([upright, across, elsewhere, across, misread])
    codes = ["7H", "7H", "7H", "8H", "9H"]
    turned = np.array([False, True, True, True, True])
    # The 8H across the 7H overlaps it less than TURN_APART: a card under it, say.
    assert turned_twins(quads, codes, turned).tolist() == [False, True, False, False, True]
    # Two cards found upright stay as they are, as do two found turned.
    assert not turned_twins(quads, codes, np.zeros(5, bool)).any()
    assert not turned_twins(quads[1:], codes[1:], np.ones(4, bool)).any()


@pytest.mark.parametrize("scale", [1, 4])  # 4: a photo larger than the detector's input
def test_finds_on_the_frame_turned_are_turned_back_onto_the_frame(scale):
    frame = np.zeros((300 * scale, 400 * scale, 3), np.uint8)
    card = card_quad(150 * scale, 120 * scale, 60 * scale, 84 * scale, 10)
    cv2.fillConvexPoly(frame, np.round(card).astype(np.int32), (255, 255, 255))

    def bright_card(image, size, conf_threshold=None, region=None):
        # A stand-in detector: the bright card's outline in whatever image it is given.
        mask = (image[..., 0] > 128).astype(np.uint8)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        quad = order_clockwise(cv2.boxPoints(cv2.minAreaRect(contours[0])))[None]
        box = np.concatenate([quad.min(axis=1), quad.max(axis=1)], axis=1)
        return CardCandidates(box, np.float32([0.9]), quad, np.ones((1, 4), np.float32))

    rec = object.__new__(Recognizer)  # no models: the detector is the stand-in
    rec.detect_at = bright_card
    found = rec.detect_turned(frame, 544)
    assert found.quads.shape == (len(TURNS), 4, 2)  # the card, found at each turn
    assert all(polygon_iou(quad, card) > 0.9 for quad in found.quads)
    truth = np.concatenate([card.min(axis=0), card.max(axis=0)])[None]
    assert (box_iou(found.boxes, truth) > 0.9).all()


def test_a_stacked_pile_of_different_cards_is_kept():
    a = card_quad(100, 100, 60, 84, 0)
    keep = dedupe_cards(np.stack([a, a + np.array([0, 12])]), ["7H", "8H"], np.array([0.9, 0.8]))
    assert keep.tolist() == [0, 1]


def test_readings_skip_the_sideways_reading_only_when_the_shape_is_clear():
    from vision.recognizer import readings

    upright = card_quad(200, 200, 63, 88, 0)  # q0→q1 is a short edge
    assert readings(upright) == (0,)
    assert readings(np.roll(upright, -1, axis=0)) == (1,)
    square_looking = card_quad(200, 200, 80, 88, 0)  # e.g. a long edge foreshortened by tilt
    assert readings(square_looking) == (0, 1)


def test_complete_quad_fills_one_unsure_corner_as_a_parallelogram():
    from vision.recognizer import complete_quad

    quad = card_quad(100, 100, 60, 90, 20)
    broken = quad.copy()
    broken[2] = [0, 0]
    fixed = complete_quad(broken, np.array([0.9, 0.9, 0.05, 0.9]))
    np.testing.assert_allclose(fixed, quad, atol=1e-3)
    # Two unsure corners: nothing to complete from.
    np.testing.assert_array_equal(complete_quad(broken, np.array([0.9, 0.1, 0.05, 0.9])), broken)


def test_bright_card_shaped_regions_are_proposed_and_others_are_not():
    rng = np.random.default_rng(2)
    frame = np.clip(rng.normal(90, 25, (480, 640, 3)), 0, 255).astype(np.uint8)  # a carpet
    card = card_quad(220, 240, 120, 170, 20).astype(np.float32)
    cv2.fillConvexPoly(frame, np.round(card).astype(np.int32), (235, 240, 238))
    cv2.circle(frame, (520, 120), 60, (240, 240, 240), -1)  # bright, but round
    cv2.rectangle(frame, (450, 300), (620, 330), (240, 240, 240), -1)  # bright, but a strip
    found = bright_card_quads(frame)
    assert len(found) == 1
    assert polygon_iou(found[0], card) > 0.9


# onnxruntime (1.32 on Linux) reports to Microsoft's telemetry servers a few seconds after a
# session opens unless ORT_DISABLE_TELEMETRY is set when it loads; this notes that setting as the
# recognizer first loads onnxruntime in a fresh process.
TELEMETRY_AT_LOAD = """
import os, sys
seen = []
class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == "onnxruntime":
            seen.append(os.environ.get("ORT_DISABLE_TELEMETRY"))
sys.meta_path.insert(0, Watch())
from vision.recognizer import Recognizer
Recognizer(threads=1)
print(seen)
"""


def test_the_recognizer_loads_onnxruntime_with_its_telemetry_off():
    root = Path(__file__).resolve().parents[2]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ORT_")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(root), env.get("PYTHONPATH"))))
    run = subprocess.run(
        [sys.executable, "-c", TELEMETRY_AT_LOAD],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert run.stdout.splitlines()[-1:] == ["['1']"], run.stdout + run.stderr

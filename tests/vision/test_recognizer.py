"""The recognizer's run-time on hand-made inputs: geometry, decoding, reading, de-duplication."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.recognizer import (
    BACKGROUND,
    CLASS_NAMES,
    PATCH_MARGIN,
    PATCH_SIZE,
    THUMB_DEFAULTS,
    TURNS,
    CardCandidates,
    CropSpec,
    Recognizer,
    apply_offsets,
    box_iou,
    bright_card_quads,
    crop_moves,
    cut_corner,
    cut_patch,
    decode_pose_output,
    dedupe_cards,
    letterbox,
    nms,
    nms_outlines,
    order_clockwise,
    patch_offsets,
    polygon_iou,
    quad_is_sane,
    quads_are_sane,
    read_cards,
    turned_twins,
    visible_box,
    warp_many,
)

C = len(CLASS_NAMES)


def card_quad(cx, cy, w, h, deg):
    """Return the clockwise TL, TR, BR, BL corners of a w×h card centred at (cx, cy), turned."""
    a = np.deg2rad(deg)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    base = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
    return (base @ rot.T + [cx, cy]).astype(np.float32)


# ---- geometry ----------------------------------------------------------------------------------
@pytest.mark.parametrize("deg", [0, 17, 44, 46, 90, 135, 181, 270, 333])
def test_order_clockwise_recovers_a_cyclic_order_from_any_permutation(deg):
    quad = card_quad(300, 200, 63, 88, deg)
    rng = np.random.default_rng(deg)
    ordered = order_clockwise(quad[rng.permutation(4)])
    # Same points, clockwise on screen, starting at the point nearest the top-left.
    shift = [k for k in range(4) if np.allclose(np.roll(quad, -k, axis=0), ordered)]
    assert len(shift) == 1
    assert np.argmin(ordered.sum(axis=1)) == 0
    assert quad_is_sane(ordered)


def test_quad_is_sane_rejects_counter_clockwise_and_degenerate_quads():
    quad = card_quad(100, 100, 60, 90, 10)
    assert quad_is_sane(quad)
    assert not quad_is_sane(quad[::-1])
    assert not quad_is_sane(np.array([[0, 0], [50, 0], [50, 1], [0, 1]], np.float32))


def test_quads_are_sane_judges_each_quad_of_a_batch_alone():
    good = card_quad(100, 100, 60, 90, 10)
    folded = good[[0, 2, 1, 3]]  # two corners swapped: the sides cross
    flat = np.array([[0, 0], [50, 0], [50, 0.5], [0, 0.5]], np.float32)
    small = card_quad(10, 10, 2, 3, 0)
    batch = np.stack([good, folded, good[::-1], flat, small])
    assert quads_are_sane(batch, 3.0).tolist() == [True, False, False, False, False]
    assert quads_are_sane(batch, 1.0).tolist() == [True, False, False, False, True]


def _card_image(quad, size=(640, 480)):
    """Draw a white card whose top-left index is a red square and bottom-right one a blue square."""
    import cv2

    w, h = 252, 352
    face = np.full((h, w, 3), 255, np.uint8)
    face[10:60, 10:50] = (0, 0, 255)  # top-left index: red
    face[h - 60 : h - 10, w - 50 : w - 10] = (255, 0, 0)  # bottom-right index: blue
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    hmat = cv2.getPerspectiveTransform(src, quad)
    img = np.full((size[1], size[0], 3), 60, np.uint8)
    warped = cv2.warpPerspective(face, hmat, size)
    mask = cv2.warpPerspective(np.full((h, w), 255, np.uint8), hmat, size) > 0
    img[mask] = warped[mask]
    return img


@pytest.mark.parametrize("deg", [0, 30, 120, 200])
def test_cut_corner_reads_both_indices_upright_at_the_crop_top_left(deg):
    quad = card_quad(320, 240, 180, 252, deg)
    img = _card_image(quad)
    spec = CropSpec()
    tl = cut_corner(img, quad, 0, spec)
    br = cut_corner(img, quad, 2, spec)
    assert tl.shape == br.shape == (spec.size[1], spec.size[0], 3)
    # The index square sits near the crop's own top-left in both crops.
    for crop, channel in ((tl, 2), (br, 0)):
        hot = (crop[..., channel] > 200) & (crop[..., 1] < 80)
        ys, xs = np.nonzero(hot)
        assert hot.mean() > 0.05
        assert xs.mean() < spec.size[0] * 0.5 and ys.mean() < spec.size[1] * 0.6


def test_cut_corner_of_a_big_card_reads_from_a_smaller_pyramid_level_without_aliasing():
    quad = card_quad(640, 480, 600, 840, 5)
    img = _card_image(quad, size=(1280, 1000))
    crop = cut_corner(img, quad, 0)
    red = (crop[..., 2] > 200) & (crop[..., 1] < 80)
    assert red.mean() > 0.05


def test_polygon_iou():
    a = card_quad(100, 100, 60, 90, 0)
    assert polygon_iou(a, a) == pytest.approx(1.0, abs=1e-4)
    b = a + np.array([30, 0])
    assert polygon_iou(a, b) == pytest.approx(1 / 3, abs=1e-3)
    assert polygon_iou(a, a + np.array([500, 0])) == 0.0


def test_letterbox_keeps_aspect_and_pads_to_the_stride():
    frame = np.zeros((720, 1280, 3), np.uint8)
    blob, scale = letterbox(frame, 640)
    assert blob.shape == (1, 3, 384, 640)
    assert scale == pytest.approx(0.5)
    blob, scale = letterbox(np.zeros((504, 378, 3), np.uint8), 640)
    assert blob.shape[2] == 640 and blob.shape[3] % 32 == 0


# ---- detector output ---------------------------------------------------------------------------
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


def test_nms_keeps_the_best_of_overlapping_boxes_only():
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]], np.float32)
    keep = nms(boxes, np.array([0.5, 0.9, 0.8]), 0.5)
    assert keep.tolist() == [1, 2]


def _turned_card(center, degrees, w=63.0, h=88.0) -> np.ndarray:
    """Return the clockwise ``(4, 2)`` outline of a ``w`` × ``h`` card turned ``degrees``."""
    t = np.deg2rad(degrees)
    rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
    half = np.array([[-w, -h], [w, -h], [w, h], [-w, h]]) / 2
    return (half @ rot.T + center).astype(np.float32)


def test_an_outline_across_two_turned_cards_does_not_suppress_either_card():
    """Cards turned 40° touch in a row (a road). One detector pass drew a card's outline a
    third of the way across two of them, surer than another pass's outline of the card it
    mostly covers: their boxes overlap as much as one card's two finds, their outlines not."""
    step = 65 * np.array([np.cos(np.deg2rad(40)), np.sin(np.deg2rad(40))])  # along the row
    card = _turned_card((100, 100), 40)
    across = _turned_card(np.array([100, 100]) + 0.3 * step, 40)
    again = card + 2  # the card found again by a third pass
    quads = np.stack([across, card, again])
    boxes = np.concatenate([quads.min(axis=1), quads.max(axis=1)], axis=1)
    scores = np.array([0.8, 0.5, 0.4])
    assert box_iou(boxes[:1], boxes[1:2])[0, 0] >= 0.6 > polygon_iou(across, card)
    assert nms(boxes, scores, 0.6).tolist() == [0]  # by boxes alone the card is gone
    assert nms_outlines(boxes, quads, scores, 0.6).tolist() == [0, 1]
    assert nms_outlines(np.zeros((0, 4)), np.zeros((0, 4, 2)), np.zeros(0), 0.6).tolist() == []


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


def test_a_cards_visible_box_leaves_out_the_cards_over_it_and_the_frames_outside():
    lower = card_quad(100, 100, 60, 84, 0)  # x 70..130, y 58..142
    over = card_quad(100, 130, 80, 84, 0)  # covers it from y 88 down
    box = visible_box(lower, [over], (480, 640))
    assert np.allclose(box, [70, 58, 130, 88], atol=4)
    assert np.allclose(visible_box(lower, [], (480, 640)), [70, 58, 130, 142], atol=4)
    # Partly outside the frame: the part inside; wholly covered: its own box in the frame.
    assert np.allclose(visible_box(lower - 80, [], (480, 640)), [0, 0, 50, 62], atol=4)
    assert np.allclose(
        visible_box(lower, [lower + 0, card_quad(100, 100, 90, 120, 0)], (480, 640)),
        [70, 58, 130, 142],
        atol=1,
    )


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


def test_refiner_offsets_lead_from_a_rough_outline_back_to_the_card():
    rng = np.random.default_rng(5)
    for _ in range(20):
        truth = card_quad(*rng.uniform(100, 500, 2), 60, 90, rng.uniform(0, 360))
        rough = truth + rng.normal(0, 8, (4, 2))
        offsets = patch_offsets(rough, truth)
        assert offsets.shape == (4, 2)
        assert np.allclose(apply_offsets(rough, offsets), truth, atol=1e-3)
    assert np.allclose(patch_offsets(truth, truth), 0, atol=1e-5)


def test_refiner_patch_shows_the_rough_outline_as_its_inner_square():
    frame = np.zeros((400, 600, 3), np.uint8)
    quad = card_quad(300, 200, 80, 120, 25).astype(np.float32)
    cv2.fillConvexPoly(frame, np.round(quad).astype(np.int32), (255, 255, 255))
    patch = cut_patch(frame, quad)
    assert patch.shape == (PATCH_SIZE, PATCH_SIZE, 3)
    m, e = PATCH_MARGIN, PATCH_SIZE - PATCH_MARGIN
    assert patch[m + 3 : e - 3, m + 3 : e - 3].min() > 200  # the card fills the inner square
    assert patch[: m - 3].max() < 50 and patch[e + 3 :].max() < 50  # table in the margin


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


def test_a_degenerate_outline_gives_a_blank_crop_not_an_error():
    frame = np.full((100, 120, 3), 200, np.uint8)
    mats = np.array([np.eye(3), np.full((3, 3), np.nan), np.zeros((3, 3))])
    crops = warp_many(frame, mats, (8, 6))
    assert crops.shape == (3, 6, 8, 3)
    assert crops[0].min() == 200 and crops[1].max() == 0


def test_a_crop_move_shifts_and_scales_what_the_crop_shows_in_crop_pixels():
    """``matrix @ move`` cuts the crop moved in its own pixels, wherever the card lies."""
    rng = np.random.default_rng(5)
    frame = rng.integers(0, 256, (400, 600, 3), dtype=np.uint8)
    spec = CropSpec()
    w, h = spec.size
    # A card twice the crop's scale: crop pixel p shows frame point 2p + (430, 260).
    place = np.array([[2, 0, 430.0], [0, 2, 260.0], [0, 0, 1]])
    shift, grow = crop_moves(spec, [(1, 2)], [1.1])
    still, shifted = warp_many(frame, np.stack([place, place @ shift]), spec.size)
    np.testing.assert_array_equal(shifted[: h - 2, : w - 1], still[2:, 1:])
    centre = np.array([w / 2, h / 2, 1])
    np.testing.assert_allclose(grow @ centre, centre)  # a scale keeps the crop's centre
    np.testing.assert_allclose((grow @ [0, 0, 1])[:2], [-0.1 * w / 2, -0.1 * h / 2])

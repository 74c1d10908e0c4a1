"""Card geometry: outline order and sanity, overlaps, suppression, visible parts."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.conftest import card_quad
from vision.geometry import (
    box_iou,
    chained,
    inverse,
    moved,
    nms,
    nms_outlines,
    order_clockwise,
    polygon_iou,
    quad_is_sane,
    quads_are_sane,
    scaled,
    visible_box,
)


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


def test_polygon_iou():
    a = card_quad(100, 100, 60, 90, 0)
    assert polygon_iou(a, a) == pytest.approx(1.0, abs=1e-4)
    b = a + np.array([30, 0])
    assert polygon_iou(a, b) == pytest.approx(1 / 3, abs=1e-3)
    assert polygon_iou(a, a + np.array([500, 0])) == 0.0


def test_nms_keeps_the_best_of_overlapping_boxes_only():
    boxes = np.array([[0, 0, 10, 10], [1, 1, 11, 11], [20, 20, 30, 30]], np.float32)
    keep = nms(boxes, np.array([0.5, 0.9, 0.8]), 0.5)
    assert keep.tolist() == [1, 2]


def test_an_outline_across_two_turned_cards_does_not_suppress_either_card():
    """Cards turned 40° touch in a row (a road). One detector pass drew a card's outline a
    third of the way across two of them, surer than another pass's outline of the card it
    mostly covers: their boxes overlap as much as one card's two finds, their outlines not."""
    step = 65 * np.array([np.cos(np.deg2rad(40)), np.sin(np.deg2rad(40))])  # along the row
    card = card_quad(100, 100, 63, 88, 40)
    across = card_quad(*(np.array([100, 100]) + 0.3 * step), 63, 88, 40)
    again = card + 2  # the card found again by a third pass
    quads = np.stack([across, card, again])
    boxes = np.concatenate([quads.min(axis=1), quads.max(axis=1)], axis=1)
    scores = np.array([0.8, 0.5, 0.4])
    assert box_iou(boxes[:1], boxes[1:2])[0, 0] >= 0.6 > polygon_iou(across, card)
    assert nms(boxes, scores, 0.6).tolist() == [0]  # by boxes alone the card is gone
    assert nms_outlines(boxes, quads, scores, 0.6).tolist() == [0, 1]
    assert nms_outlines(np.zeros((0, 4)), np.zeros((0, 4, 2)), np.zeros(0), 0.6).tolist() == []


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


def test_scaled_keeps_every_side_at_least_one_pixel():
    thin = np.zeros((1, 4000, 3), np.uint8)
    assert scaled(thin, 0.16).shape == (1, 640, 3)
    assert scaled(np.zeros((100, 200), np.uint8), 0.5).shape == (50, 100)


def test_chained_moves_as_the_first_move_then_the_second():
    points = np.float32([[0, 0], [10, 0], [3, -7]])
    first = (np.exp(0.3j) * 1.05, 4 - 2j)  # turned, zoomed and shifted
    then = (np.exp(-0.1j) * 0.9, -6 + 1j)
    assert np.allclose(
        moved(points, chained(first, then)), moved(moved(points, first), then), atol=1e-4
    )
    assert np.allclose(moved(points, chained(first, inverse(first))), points, atol=1e-4)

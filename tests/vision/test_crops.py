"""Rectified crops: index corners read upright, the refiner's patch and offsets, crop moves."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.conftest import card_quad
from vision.crops import (
    PATCH_MARGIN,
    PATCH_SIZE,
    CropSpec,
    apply_offsets,
    crop_moves,
    cut_corner,
    cut_patch,
    patch_offsets,
    warp_many,
)


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

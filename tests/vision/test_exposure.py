"""Too dark to read: a dark room, a covered lens or a blank frame is said, a table is not,
and a camera says it only once its pictures have stayed so for a while."""

from __future__ import annotations

import numpy as np
import pytest

from vision.exposure import ONE_COLOUR, TOO_DARK, UnreadableWatch, unreadable
from vision.sources import Frame
from vision.synth import random_scene

pytest.importorskip("cv2")


def _scenes(n: int = 6) -> list[np.ndarray]:
    """Generated table scenes with cards (their lights as the generator samples them)."""
    return [random_scene(seed=3, index=k).image for k in range(n)]


def _noisy(level: int, size=(720, 1280), spread: int = 4, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    grey = rng.integers(level - spread, level + spread + 1, size, dtype=np.int16)
    return np.repeat(np.clip(grey, 0, 255).astype(np.uint8)[..., None], 3, axis=2)


def test_a_table_with_cards_can_be_read():
    for image in _scenes():
        assert unreadable(image) == ""


def test_a_dark_empty_table_or_one_small_card_is_not_taken_for_darkness():
    """The darkest normal frames measured: a dark cloth before any card is laid (grey about
    28, a camera's noise on it), and one card far off on it."""
    cloth = _noisy(28, spread=3)
    assert unreadable(cloth) == ""
    cloth[300:360, 600:640] = 230  # a card of 40 × 60 px in 1280 × 720
    assert unreadable(cloth) == ""


@pytest.mark.parametrize("gain", [0.06, 0.03, 0.0])
def test_a_table_in_a_dark_room_is_too_dark(gain):
    for image in _scenes(3):
        dark = np.clip(image.astype(np.float32) * gain, 0, 255).astype(np.uint8)
        assert unreadable(dark) == TOO_DARK


def test_a_covered_lens_or_a_blank_frame():
    assert unreadable(_noisy(6, spread=6)) == TOO_DARK  # a lens cap: black and noise
    assert unreadable(np.zeros((480, 640, 3), np.uint8)) == TOO_DARK  # a black picture
    blank = np.full((720, 1280, 3), (60, 90, 170), np.uint8)  # a blank frame, "no signal"
    assert unreadable(blank) == ONE_COLOUR
    assert unreadable(np.full((90, 120, 3), 255, np.uint8)) == ONE_COLOUR  # white, and small


def _watch(watch: UnreadableWatch, images: list[np.ndarray], fps: float) -> list[str]:
    return [watch.update(Frame(k / fps, image, k)) for k, image in enumerate(images)]


def test_a_camera_says_it_once_its_pictures_stay_dark_and_not_for_a_hand_or_a_flicker():
    table, dark = _scenes(1)[0], np.zeros((720, 1280, 3), np.uint8)
    # at 30 fps: a flicker (one dark frame), a hand over the lens for half a second, then
    # the lights go out for 40 frames (from frame 37) and come on again
    frames = [table] * 10 + [dark] + [table] * 10 + [dark] * 15 + [table] + [dark] * 40 + [table]
    said = _watch(UnreadableWatch(), frames, 30)
    assert set(said[:37]) == {""}
    # said after a second without a readable frame, and no longer at the first good one
    assert said[37:64] == [""] * 27 and said[67:77] == [TOO_DARK] * 10 and said[77] == ""


def test_a_camera_that_starts_dark_or_sends_few_pictures_says_it_too():
    """A camera covered from its first frame; a phone sending a picture a second: still,
    three frames in a row (one picture taken counts as three steady frames)."""
    dark = np.zeros((120, 160, 3), np.uint8)
    assert _watch(UnreadableWatch(), [dark] * 12, 8)[-1] == TOO_DARK
    assert _watch(UnreadableWatch(), [dark] * 3, 1) == ["", "", TOO_DARK]

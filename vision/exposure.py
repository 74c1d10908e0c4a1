"""Whether a camera's pictures can show a card at all: a dark room, a covered lens or a blank
frame give pictures in which nothing can be read, and the table's page should say so rather
than wait in silence.

A picture is measured on a small grey copy, so a hot pixel or a little noise counts for
nothing: its brightest part (lit white cards, where there are any) and the spread from its
darkest part to its brightest.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # numpy and OpenCV only where a picture is measured: the web app imports
    import numpy as np  # the sentences below without them

TOO_DARK = "The picture is too dark to read the cards: turn on a light or uncover the camera."
ONE_COLOUR = "The picture is all one colour: uncover the camera, or point it at the table."

# The brightest part below which the recognizer reads next to nothing: in photos dimmed until
# their brightest part is at 20 it reads 6 of 16 cards, at 10 none, at 30 all; the darkest
# normal frame (an empty dark table in a generated video) is at 29 (bench/bench_exposure.py).
DARK_LEVEL = 20
# One colour (darkest to brightest part), as a blank frame or a capture device's "no signal":
# an empty plain table spreads a little more (the flattest normal frame over 6), and so does
# a camera's noise alone (about 2 on the grey copy).
FLAT_SPREAD = 1
SAMPLE_WIDTH = 160  # the grey copy's width: a card far off still covers dozens of its pixels
PERCENTILE = 0.1  # the brightest and darkest part: 0.1 % of the copy's pixels


def levels(image: np.ndarray) -> tuple[float, float]:
    """Return the grey level ``(darkest, brightest)`` of the darkest and brightest part of
    ``image`` ``(h, w, 3)`` BGR."""
    import cv2
    import numpy as np

    h, w = image.shape[:2]
    if w > SAMPLE_WIDTH:
        size = (SAMPLE_WIDTH, max(1, round(h * SAMPLE_WIDTH / w)))
        image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    grey = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    darkest, brightest = np.percentile(grey, [PERCENTILE, 100 - PERCENTILE])
    return float(darkest), float(brightest)


def unreadable(image: np.ndarray) -> str:
    """Return why no card can be read in ``image`` ``(h, w, 3)`` BGR (:data:`TOO_DARK`,
    :data:`ONE_COLOUR`), or "" when one may."""
    darkest, brightest = levels(image)
    if brightest < DARK_LEVEL:
        return TOO_DARK
    if brightest - darkest <= FLAT_SPREAD:
        return ONE_COLOUR
    return ""


class UnreadableWatch:
    """Say that a camera's pictures cannot be read once the last ``frames`` in a row could
    not, and none could for ``seconds``: a hand passing over the lens or a flicker says
    nothing. The first readable frame ends it.

    Time is the frames' own (:class:`vision.sources.Frame`), so a video says it at its pace.
    """

    def __init__(self, frames: int = 3, seconds: float = 1.0) -> None:
        self.frames = frames
        self.seconds = seconds
        self.reason = ""
        self._unreadable_run = 0
        self._readable_at = 0.0  # the last readable frame's time; the source's start before one

    def update(self, frame: Any) -> str:
        """Measure one :class:`vision.sources.Frame`; return what to say ("" while its
        pictures can be read)."""
        why = unreadable(frame.image)
        if not why:
            self._unreadable_run, self._readable_at, self.reason = 0, frame.time, ""
            return ""
        self._unreadable_run += 1
        if self._unreadable_run >= self.frames and frame.time - self._readable_at >= self.seconds:
            self.reason = why
        return self.reason

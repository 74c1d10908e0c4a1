"""Frame sources: a webcam, a video file, a folder of images, a network stream, pushed frames.

Every source has one method that matters, :meth:`FrameSource.frames`, which yields
:class:`Frame` objects (time in seconds, BGR image). Live sources (a webcam, an RTSP or
HTTP MJPEG stream) reconnect by themselves with a growing back-off when the camera is
lost, and say so through ``on_status`` and the log; nothing raises out of ``frames()``
because a camera hiccuped. A frame that cannot be decoded is skipped with a message.

Tests use the same classes with a fake ``opener`` (anything with ``read()``/``isOpened()``
/``release()``), so reconnection is tested without a camera.
"""

from __future__ import annotations

import logging
import math
import os
import queue
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

import numpy as np

log = logging.getLogger("kortbord.vision.sources")

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
STREAM_SCHEMES = ("rtsp://", "rtsps://", "rtmp://", "http://", "https://", "udp://", "tcp://")
# A network stream's try to open, or to read a frame, is given up after this long (ms)
STREAM_TIMEOUT_MS = 10_000


class SourceError(ValueError):
    """A source that cannot be opened at all (bad path, bad spec); the message names it."""


@dataclass(frozen=True)
class Frame:
    """One picture of the table: ``time`` in seconds, ``image`` ``(h, w, 3)`` uint8 BGR.

    For files and folders ``time`` is video time (frame index / fps); for live sources it is
    seconds since the source was opened.
    """

    time: float
    image: np.ndarray
    index: int = 0


@dataclass(frozen=True)
class SourceStatus:
    """Something a source wants the user to know: ``state`` is one of ``open``, ``lost``,
    ``reconnecting``, ``skipped``, ``ended``, ``closed``."""

    state: str
    message: str
    source: str

    def to_json(self) -> dict[str, str]:
        """Return the status as a JSON event (``"event": "source"``)."""
        return {
            "event": "source",
            "state": self.state,
            "message": self.message,
            "source": self.source,
        }


StatusCallback = Callable[[SourceStatus], None]


def _valid_image(image: Any) -> TypeGuard[np.ndarray]:
    return (
        isinstance(image, np.ndarray)
        and image.dtype == np.uint8
        and image.ndim == 3
        and image.shape[2] == 3
        and image.shape[0] > 0
        and image.shape[1] > 0
    )


class FrameSource:
    """Base of all sources: ``frames()`` yields frames until the source ends or is closed."""

    name: str = "source"

    def __init__(self, on_status: StatusCallback | None = None) -> None:
        self.on_status = on_status
        # quiet: what it says is logged at DEBUG only (its ``on_status`` tells the user)
        self.quiet = False
        self.status: SourceStatus | None = None
        self._closed = threading.Event()

    def frames(self) -> Iterator[Frame]:
        """Yield frames until the source ends or is closed."""
        raise NotImplementedError

    def close(self) -> None:
        """Stop ``frames()`` at the next frame (safe from another thread)."""
        self._closed.set()

    @property
    def closed(self) -> bool:
        """Return whether :meth:`close` was called."""
        return self._closed.is_set()

    def _say(self, state: str, message: str, level: int = logging.INFO) -> None:
        self.status = SourceStatus(state, message, self.name)
        log.log(logging.DEBUG if self.quiet else level, "%s: %s", self.name, message)
        if self.on_status is not None:
            self.on_status(self.status)

    def __iter__(self) -> Iterator[Frame]:
        return self.frames()

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class CaptureSource(FrameSource):
    """A cv2.VideoCapture target: a webcam index, a video file, or a network stream URL.

    ``live`` sources (webcams, streams) reconnect after a lost camera with back-off
    ``backoff`` seconds, doubling up to ``max_backoff``, forever unless ``max_reconnects``
    is set; a file simply ends, and one with no frame at all is a :class:`SourceError`.
    A live source that has never opened is tried again the same way, or given up with a
    :class:`SourceError` after ``first_tries`` tries (a webcam index or stream URL mistyped:
    ``kortbord watch``; a web table keeps trying, as a camera may be plugged in later).
    ``opener(target)`` returns the capture object (injectable for tests); ``sleep`` and
    ``clock`` likewise.
    """

    def __init__(
        self,
        target: int | str,
        *,
        live: bool | None = None,
        fps: float | None = None,
        backoff: float = 0.5,
        max_backoff: float = 8.0,
        max_reconnects: int | None = None,
        first_tries: int | None = None,
        opener: Callable[[int | str], Any] | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
        on_status: StatusCallback | None = None,
    ) -> None:
        super().__init__(on_status)
        self.target = target
        self.live = (not _is_file(target)) if live is None else live
        self.fps = fps
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.max_reconnects = max_reconnects
        self.first_tries = first_tries
        self.opener = opener or _cv2_opener
        self.sleep = sleep
        self.clock = clock
        self.name = f"camera {target}" if isinstance(target, int) else str(target)

    def _open(self):
        try:
            cap = self.opener(self.target)
        except Exception as e:  # a driver error must not end the watch
            log.debug("opener failed: %s", e)
            return None
        if cap is None or not cap.isOpened():
            if cap is not None:
                cap.release()
            return None
        return cap

    def frames(self) -> Iterator[Frame]:
        """Yield the capture's frames; a live one reconnects after a lost camera, with back-off."""
        cap = self._open()
        if cap is None and not self.live:
            raise SourceError(f"cannot open video {self.target!r}: not a readable video file")
        if cap is not None and not self.live and _capture_codec(cap) == "ansi":
            # FFmpeg plays a text file as "ANSI art": a few frames of the text drawn.
            cap.release()
            raise SourceError(f"cannot read {self.target!r}: it is text, not a video file")
        start = self.clock()
        index = 0  # a file's frame number (its frames that could not be read count too)
        unreadable = 0
        reconnects = 0
        opened = cap is not None
        opened_file = False  # a file is said open at its first frame
        fps = self.fps
        if cap is not None:
            if self.live:  # a file at its first frame: OpenCV opens some text files
                self._say("open", f"opened {self.name}")
            if fps is None and not self.live:
                fps = _capture_fps(cap)
        try:
            while not self.closed:
                if cap is None:
                    if self.max_reconnects is not None and reconnects >= self.max_reconnects:
                        self._say(
                            "ended",
                            f"gave up on {self.name} after {reconnects} reconnection attempts",
                            logging.ERROR,
                        )
                        return
                    if not opened and self.first_tries is not None:
                        if reconnects + 1 >= self.first_tries:  # the first open was a try
                            raise SourceError(
                                f"cannot open {self.name}: nothing answered in "
                                f"{reconnects + 1} tries (no such camera, or the stream is down)"
                            )
                    delay = min(self.max_backoff, self.backoff * 2 ** min(reconnects, 16))
                    reconnects += 1
                    message = (
                        f"reconnecting to {self.name} in {delay:.1f} s (attempt {reconnects})"
                        if opened
                        else f"cannot open {self.name}; trying again in {delay:.1f} s "
                        f"(attempt {reconnects})"
                    )
                    self._say("reconnecting", message, logging.WARNING)
                    self.sleep(delay)
                    if self.closed:
                        return
                    cap = self._open()
                    if cap is not None:
                        # The back-off resets only once a frame arrives, so a camera that
                        # opens but never delivers does not spin.
                        self._say("open", f"{'reconnected to' if opened else 'opened'} {self.name}")
                        opened = True
                    continue
                try:
                    ok, image = cap.read()
                except Exception as e:  # some backends raise on a broken stream
                    ok, image = False, None
                    log.debug("read failed: %s", e)
                if not ok or image is None:
                    if not self.live:
                        # A damaged stretch inside a file fails a read for each frame lost;
                        # the frames after it still read, at their own times.
                        if index < _capture_frame_count(cap):
                            index += 1
                            unreadable += 1
                            continue
                        if index == unreadable:  # OpenCV opens some non-videos (an image's bytes)
                            raise SourceError(
                                f"cannot read {self.name}: no frame in it; "
                                "not a readable video file"
                            )
                        damaged = f" ({unreadable} could not be read)" if unreadable else ""
                        self._say(
                            "ended",
                            f"end of {self.name} after {index} frames{damaged}",
                            logging.WARNING if unreadable else logging.INFO,
                        )
                        return
                    self._say("lost", f"lost {self.name}; will reconnect", logging.WARNING)
                    cap.release()
                    cap = None
                    continue
                if not _valid_image(image):
                    self._say(
                        "skipped",
                        f"skipped a corrupt frame from {self.name} "
                        f"(shape {getattr(image, 'shape', None)})",
                        logging.WARNING,
                    )
                    index += 1
                    continue
                if self.live:
                    t = self.clock() - start
                else:
                    t = index / fps if fps else _capture_time(cap, index)
                reconnects = 0
                if not opened_file and not self.live:
                    opened_file = True
                    self._say("open", f"opened {self.name}")
                yield Frame(t, image, index)
                index += 1
        finally:
            if cap is not None:
                cap.release()
            if self.closed:
                self._say("closed", f"closed {self.name}")


def _cv2_opener(target: int | str):
    import cv2

    if isinstance(target, str) and target.lower().startswith(STREAM_SCHEMES):
        # OpenCV waits 30 s for a stream that accepts and sends nothing, at each try
        timeouts = [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, STREAM_TIMEOUT_MS]
        timeouts += [cv2.CAP_PROP_READ_TIMEOUT_MSEC, STREAM_TIMEOUT_MS]
        return cv2.VideoCapture(target, cv2.CAP_ANY, timeouts)
    return cv2.VideoCapture(target)


def _capture_fps(cap) -> float | None:
    try:
        import cv2

        fps = float(cap.get(cv2.CAP_PROP_FPS))
    except Exception:
        return None
    return fps if 0 < fps < 1000 else None


def _capture_codec(cap) -> str:
    """Return the four letters naming a capture's codec ("" where it does not say)."""
    try:
        import cv2

        fourcc = int(cap.get(cv2.CAP_PROP_FOURCC)) & 0xFFFFFFFF
    except Exception:
        return ""
    return fourcc.to_bytes(4, "little").decode("ascii", "replace").strip("\0 ")


def _capture_frame_count(cap) -> int:
    """Return the frames a video file says it holds (0 where it does not say)."""
    try:
        import cv2

        count = float(cap.get(cv2.CAP_PROP_FRAME_COUNT))
    except Exception:
        return 0
    return int(count) if 0 < count < 1e9 else 0


def _capture_time(cap, index: int) -> float:
    try:
        import cv2

        ms = float(cap.get(cv2.CAP_PROP_POS_MSEC))
    except Exception:
        ms = 0.0
    return ms / 1000 if ms > 0 else index / 30.0


def _is_file(target: int | str) -> bool:
    return isinstance(target, str) and not target.lower().startswith(STREAM_SCHEMES)


class FolderSource(FrameSource):
    """A folder of images read in name order, as frames ``1 / fps`` seconds apart.

    An image that cannot be read is skipped with a message naming it; a folder of which no
    image reads is a :class:`SourceError`.
    """

    def __init__(
        self,
        folder: str | os.PathLike,
        *,
        fps: float = 10.0,
        on_status: StatusCallback | None = None,
    ) -> None:
        super().__init__(on_status)
        self.folder = Path(folder)
        if not self.folder.is_dir():
            raise SourceError(f"{str(self.folder)!r} is not a folder")
        _check_fps(fps)
        self.fps = fps
        self.name = str(self.folder)
        self.paths = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.paths:
            raise SourceError(f"no images ({', '.join(IMAGE_SUFFIXES)}) in {str(self.folder)!r}")

    def frames(self) -> Iterator[Frame]:
        """Yield the folder's images in name order, skipping (and saying) any that is unreadable."""
        from vision.images import ImageError, read_image

        self._say("open", f"reading {len(self.paths)} images from {self.name}")
        read = 0
        for index, path in enumerate(self.paths):
            if self.closed:
                return
            try:
                image = read_image(path)
            except ImageError as e:  # not a picture, empty, cut off, damaged, billions of pixels
                self._say("skipped", f"skipped {path.name}: {e}", logging.WARNING)
                continue
            if not _valid_image(image):
                self._say("skipped", f"skipped {path.name}: not a readable image", logging.WARNING)
                continue
            read += 1
            yield Frame(index / self.fps, image, index)
        if not read:
            raise SourceError(f"no image in {self.name!r} is readable ({len(self.paths)} tried)")
        # images that could not be read (a folder deleted or renamed while it plays) are said
        unread = len(self.paths) - read
        damaged = f" after {len(self.paths)} frames ({unread} could not be read)" if unread else ""
        self._say("ended", f"end of {self.name}{damaged}")


class QueueSource(FrameSource):
    """Frames pushed in from another thread (the web page's phone camera, as JPEG bytes).

    ``push`` never blocks: when the consumer lags, the oldest waiting frame is dropped so
    the pipeline always works on recent pictures. ``frames()`` ends after ``close()``.
    """

    def __init__(
        self,
        *,
        maxsize: int = 4,
        clock: Callable[[], float] = time.monotonic,
        on_status: StatusCallback | None = None,
        name: str = "pushed frames",
    ) -> None:
        super().__init__(on_status)
        self.name = name
        self.clock = clock
        self._start = clock()
        self._queue: queue.Queue = queue.Queue(maxsize=max(1, maxsize))
        self.dropped = 0

    def push(self, data: bytes | np.ndarray, time: float | None = None) -> None:
        """Queue one frame: encoded image bytes (JPEG/PNG) or a BGR array."""
        if self.closed:
            return
        t = self.clock() - self._start if time is None else float(time)
        while True:
            try:
                self._queue.put_nowait((t, data))
                return
            except queue.Full:
                try:
                    self._queue.get_nowait()
                    self.dropped += 1
                except queue.Empty:
                    pass

    def close(self) -> None:
        """Stop ``frames()`` after the frames already pushed, waking a waiting consumer."""
        super().close()
        try:
            self._queue.put_nowait(None)  # wake a waiting consumer
        except queue.Full:
            pass

    def frames(self) -> Iterator[Frame]:
        """Yield the pushed frames, decoded, skipping (and saying) any that is no image or is
        cut off or damaged."""
        from vision.images import ImageError, decode_image

        index = 0
        while True:
            # Frames pushed before close() are still delivered; then the source ends.
            try:
                item = self._queue.get(timeout=0.05 if self.closed else 0.5)
            except queue.Empty:
                if self.closed:
                    break
                continue
            if item is None:
                break
            t, data = item
            why = "not a decodable image"
            if isinstance(data, bytes | bytearray | memoryview):
                try:
                    image = decode_image(bytes(data))
                except ImageError as e:
                    image, why = None, str(e)
            else:
                image = data
            if not _valid_image(image):
                self._say(
                    "skipped",
                    f"skipped pushed frame {index}: {why} "
                    f"({len(data) if isinstance(data, bytes) else type(data).__name__})",
                    logging.WARNING,
                )
                index += 1
                continue
            yield Frame(t, image, index)
            index += 1
        self._say("closed", f"closed {self.name}")


def _check_fps(fps: float) -> None:
    """Refuse a frame rate that is not a positive, finite number (NaN would pass ``<= 0``
    and give every frame the time NaN)."""
    if not fps > 0:
        raise SourceError(f"fps must be positive, not {fps}")
    if math.isinf(fps):
        raise SourceError(f"fps must be finite, not {fps}")


def webcam_index(spec: str) -> int | None:
    """Return the webcam ``spec`` names (``"0"``), or ``None``: ASCII digits only, as
    ``str.isdigit`` also takes "²", which ``int`` refuses, and "٣", which it reads as 3."""
    # a few digits: int() refuses 4301 and more, and no computer has a billion webcams
    return int(spec) if spec.isascii() and spec.isdigit() and len(spec) < 10 else None


def open_source(
    spec: str | int, *, fps: float | None = None, on_status: StatusCallback | None = None, **kw: Any
) -> FrameSource:
    """Return the source ``spec`` names: a webcam index (``0``), a stream URL, a folder, a file.

    Raises :class:`SourceError` naming ``spec`` when it is none of these.
    """
    if fps is not None:
        _check_fps(fps)
    index = webcam_index(spec.strip()) if isinstance(spec, str) else spec
    if isinstance(index, int):
        return CaptureSource(index, live=True, on_status=on_status, **kw)
    if not isinstance(spec, str) or not spec.strip():
        raise SourceError(f"bad source {spec!r}: expected a webcam index, URL, folder or file")
    from vision.images import NOT_UTF8, opencv_can_name, shown

    if not opencv_can_name(spec) and not Path(spec).is_dir():  # a folder's pictures read whole
        raise SourceError(f"bad source '{shown(spec)}': {NOT_UTF8}")
    if spec.lower().startswith(STREAM_SCHEMES):
        return CaptureSource(spec, live=True, on_status=on_status, **kw)
    path = Path(spec)
    if path.is_dir():
        return FolderSource(path, fps=10.0 if fps is None else fps, on_status=on_status)
    if path.is_file():
        return CaptureSource(str(path), live=False, fps=fps, on_status=on_status, **kw)
    if path.exists():  # a pipe or device: FFmpeg would wait on it for a writer
        from vision.images import NOT_A_FILE

        raise SourceError(f"bad source {spec!r}: {NOT_A_FILE}; expected a video file or folder")
    raise SourceError(
        f"bad source {spec!r}: no such file or folder, and not a webcam index or stream URL "
        "(rtsp://, http://…)"
    )

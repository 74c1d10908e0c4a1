"""The camera as an app resource: one producer thread per table that has a camera.

The producer owns the source (a webcam, a stream, a video file, frames pushed from a phone)
and, when the vision pipeline is installed, the pipeline that turns frames into referee
moves. It keeps the newest annotated JPEG for the MJPEG viewers and hands every move to the
table hub — which checks it with the referee like any tap. Everything vision-specific is
behind :func:`make_reader`, so the web app runs (and its tests pass) without OpenCV models.
"""

from __future__ import annotations

import logging
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from flask import Flask, current_app

from vision.exposure import ONE_COLOUR, TOO_DARK, UnreadableWatch
from webui import i18n
from webui.i18n import Translator
from webui.pipeline_adapter import (
    OUT_OF_VIEW,
    OUT_OF_VIEW_ONE,
    WAITING,
    WARMUP,
    pipeline_reader,
)
from webui.speech import say_known, say_road_problems, sentence

log = logging.getLogger("kortbord.web.camera")

NO_RECOGNIZER = "No card recognizer is installed on this server: tap your cards instead."
JPEG_QUALITY = 80
# A camera in one of these states gives no pictures (until its source says "open" again).
NO_PICTURES = ("lost", "reconnecting", "ended", "error", "closed")
# ...and in one of these it should, and the terminal is told once (and again once it does)
TROUBLE = ("lost", "reconnecting", "error")
# An address in what a camera says: its user and password, and its query (an IP webcam's
# "?user=admin&pwd=…"), are left out of what the pages are told
_ADDRESS = re.compile(
    r"\b([a-z][a-z0-9+.-]*://)(?:[^\s/?#]*@)?([^\s/?#;@]*)([^\s?#;]*)(?:[?#][^\s;]*)?", re.I
)


def shown_source(text: str) -> str:
    """Return a camera's source, or what it said, with every address's password, user and
    query left out (``rtsp://admin:pw@10.0.0.7/live`` is shown ``rtsp://10.0.0.7/live``):
    the pages of guests and phones show which camera, not how to log in to it."""
    return _ADDRESS.sub(r"\1\2\3", text)


@dataclass
class Reading:
    """What the reader made of one frame: an annotated picture and what happened."""

    jpeg: bytes | None = None
    moves: list[dict[str, Any]] = field(default_factory=list)  # referee moves, JSON
    prompt: dict[str, Any] | None = None  # out of sync: {"message", "candidates": [...]}
    status: str | None = None
    game: Any = None  # the referee state the prompt was made against (None: not known)


class TableCamera:
    """One table's camera: a thread reading frames, the newest JPEG, a condition to wait on.

    ``state`` and ``message`` are what its source last said (see
    :class:`vision.sources.SourceStatus`): ``starting``, ``open``, ``lost``, ``reconnecting``,
    ``ended``, ``error`` or ``closed``, and a sentence naming the camera; ``unreadable`` is
    why no card can be read in its pictures (too dark: ``watch(frame)``'s word, "" while they
    can be); ``on_change(cam)`` is called when either changes, so the table's pages can show it.
    ``progress(time)``: a recorded video's camera tells how far the game has followed it (the
    frame time of each reading that made moves, and of its last frame), so that a camera
    started again goes on from there instead of playing the moves again.
    """

    def __init__(
        self,
        table_id: str,
        frames: Callable[[], Iterator[Any]],
        reader: Callable[[Any], Reading],
        on_reading: Callable[[str, Reading], None],
        push: Callable[[Any], None] | None = None,  # a decoded picture, or its bytes
        dropped: Callable[[], int] | None = None,  # how many pushed pictures were not read
        close: Callable[[], None] | None = None,
        realtime: bool = False,
        on_change: Callable[[TableCamera], None] | None = None,
        watch: Callable[[Any], str] | None = None,  # a frame → why none can be read, or ""
        progress: Callable[[float], None] | None = None,
    ):
        self.realtime = realtime  # a recorded video plays at its own pace, not as fast as read
        self.table_id = table_id
        self._frames = frames
        self._reader = reader
        self._on_reading = on_reading
        self.push = push
        self.dropped = dropped or (lambda: 0)
        self._close = close
        self.jpeg: bytes | None = None
        self.frame_no = 0
        self.status = "starting"  # the reader's word on the last frame
        self.state = "starting"
        self.message = ""
        self.unreadable = ""
        self._watch = watch
        self._progress = progress
        self._on_change = on_change
        self.cond = threading.Condition()
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"camera-{table_id}", daemon=True)

    def start(self) -> TableCamera:
        """Start the producer thread; return self."""
        self.thread.start()
        return self

    def stop(self) -> None:
        """Stop reading frames and wake every viewer."""
        self.stopped.set()
        if self._close:
            self._close()
        with self.cond:
            self.cond.notify_all()

    @property
    def done(self) -> bool:
        """Whether no more frames will come: stopped, or the thread has ended."""
        return self.stopped.is_set() or not self.thread.is_alive()

    def source_status(self, status: Any) -> None:
        """Take what the source says (a :class:`vision.sources.SourceStatus`)."""
        if status.state != "skipped":  # one corrupt frame among good ones: the log says it
            self._set(status.state, status.message)

    def _set(self, state: str, message: str) -> None:
        with self.cond:
            changed = state != self.state
            self.state, self.message = state, message
            self.cond.notify_all()  # a viewer waiting for a picture that will not come
        if changed:
            self._tell_pages()

    @property
    def waiting(self) -> str:
        """What the camera waits to see before it can follow the game ("" when nothing)."""
        return self.status[len(WAITING) :] if self.status.startswith(WAITING) else ""

    def _see(self, frame: Any) -> None:
        """Note whether cards can be read in the frame's picture; tell the pages when that
        changes (a light turned off, or on again)."""
        if self._watch is None or not hasattr(frame, "image"):
            return
        try:
            why = self._watch(frame)
        except Exception:  # a picture the measure cannot take must never stop the camera
            log.exception("camera of table %s: could not measure a frame", self.table_id)
            return
        with self.cond:
            changed = why != self.unreadable
            self.unreadable = why
        if changed:
            self._tell_pages()

    def _tell_progress(self, frame_time: float) -> None:
        if self._progress is None:
            return
        try:
            self._progress(frame_time)
        except Exception:  # a full disk: the camera goes on; a restart reads a little again
            log.exception("camera of table %s: could not note how far it read", self.table_id)

    def _tell_pages(self) -> None:
        if self._on_change is not None:
            try:
                self._on_change(self)
            except Exception:  # telling the pages must never stop the camera
                log.exception("camera of table %s: could not show its state", self.table_id)

    def _run(self) -> None:
        try:
            start, first, last = time.monotonic(), None, None
            for frame in self._frames():
                if self.stopped.is_set():
                    break
                last = getattr(frame, "time", None)
                if self.realtime:  # at its pace from the first frame read (it may go on mid-way)
                    first = last if first is None else first
                    ahead = (last or 0.0) - (first or 0.0) - (time.monotonic() - start)
                    if ahead > 0 and self.stopped.wait(ahead):
                        break
                try:
                    reading = self._reader(frame)
                except Exception as e:  # a bad frame must never stop the table's camera
                    log.exception("camera reader failed on table %s", self.table_id)
                    reading = Reading(status=f"reader error: {e}")
                self._see(frame)  # after the reader: a dark frame is still read as ever
                if self.state == "starting":  # pushed frames: their source never says "open"
                    self._set("open", "")
                with self.cond:
                    if reading.jpeg is not None:
                        self.jpeg = reading.jpeg
                        self.frame_no += 1
                    waited = self.waiting
                    if reading.status:
                        self.status = reading.status
                    self.cond.notify_all()
                self._on_reading(self.table_id, reading)
                if reading.moves and last is not None:
                    self._tell_progress(last)
                if self.waiting != waited:  # the camera line says what the camera waits for
                    self._tell_pages()
            self.status = "ended"
            if last is not None and not self.stopped.is_set():
                self._tell_progress(last)  # read to its end: nothing left to follow
            if self.state not in ("ended", "closed"):  # a source that ends without a word
                self._set("ended", "the camera gives no more pictures")
        except Exception as e:  # a video that cannot be read, a driver that fell over
            log.exception("camera of table %s stopped", self.table_id)
            self.status = f"stopped: {e}"
            self._set("error", str(e))
        with self.cond:
            self.cond.notify_all()

    def wait_frame(self, after: int, timeout: float) -> tuple[int, bytes | None]:
        """Return the newest (frame number, JPEG) once it is newer than ``after``, or sooner
        when none will come: the camera stopped, or its source is lost."""
        with self.cond:
            self.cond.wait_for(
                lambda: self.frame_no > after or self.done or self.state in NO_PICTURES,
                timeout=timeout,
            )
            return self.frame_no, self.jpeg


def encode_jpeg(image: Any) -> bytes | None:
    """Return ``image`` (BGR array) as JPEG bytes, or ``None`` without OpenCV."""
    try:
        import cv2
    except ImportError:
        return None
    ok, buf = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), JPEG_QUALITY])
    return buf.tobytes() if ok else None


def make_reader(
    rules: Any,
    table_id: str,
    source: str = "",
    current: Callable[[], Any] | None = None,
    **hooks: Any,
) -> Callable[[Any], Reading]:
    """Return the frame → :class:`Reading` function: the vision pipeline when installed,
    else a plain picture without recognition."""
    try:
        reader = pipeline_reader(rules, source, current, **hooks)
    except Exception as e:  # a pipeline that cannot start leaves a plain camera
        log.warning("no pipeline for table %s: %s", table_id, e)
        reader = None
    if reader is not None:
        return reader

    def plain(frame: Any) -> Reading:
        image = getattr(frame, "image", frame)
        return Reading(jpeg=encode_jpeg(image), status="camera (no recognizer)")

    return plain


def open_video(spec: str) -> Any:
    """Open a video file, a folder of pictures, or a generated video's folder (its frames,
    beside its events.json), as a table's camera plays it."""
    from vision.pipeline import load_events, open_recording

    recorded = Path(spec).is_dir() and (Path(spec) / "events.json").is_file()
    events, source = load_events(spec) if recorded else (None, spec)
    return open_recording(source, events)


class CameraHub:
    """Starts and stops the table cameras; feeds their moves to the table hub."""

    def __init__(self, app: Flask):
        self.app = app
        self.cameras: dict[str, TableCamera] = {}
        self.failures: dict[str, str] = {}  # table → why its camera would not open
        self._stops: dict[str, int] = {}  # table → how often its camera was stopped
        self._troubled: set[str] = set()  # tables whose camera's trouble the terminal was told
        self._lock = threading.Lock()

    def get(self, table_id: str) -> TableCamera | None:
        """Return the table's running camera, if any."""
        with self._lock:
            return self.cameras.get(table_id)

    def view(self, table_id: str) -> dict[str, str]:
        """Return what the table's pages show of its camera: ``{"state", "message",
        "waiting", "unreadable"}``, the state ``off`` when none was started, ``error`` when
        it would not open; ``waiting``: what the camera waits to see before it can follow the
        game; ``unreadable``: why no card can be read in its pictures (too dark)."""
        with self._lock:
            cam = self.cameras.get(table_id)
            failure = self.failures.get(table_id)
        if cam is not None:
            with cam.cond:
                waiting = cam.waiting
                # a camera giving no pictures says why; its last pictures are old news
                unreadable = "" if cam.state in NO_PICTURES else cam.unreadable
                return {
                    "state": cam.state,
                    "message": shown_source(cam.message),
                    "waiting": waiting,
                    "unreadable": unreadable,
                }
        if failure is not None:
            return {
                "state": "error",
                "message": shown_source(failure),
                "waiting": "",
                "unreadable": "",
            }
        return {"state": "off", "message": "", "waiting": "", "unreadable": ""}

    def ensure(self, table_id: str) -> TableCamera | None:
        """Start the table's camera if it has a source and none runs; return it, or ``None``
        (no camera; :meth:`view` says why when it would not open)."""
        with self._lock:
            cam = self.cameras.get(table_id)
            if cam is not None and cam.thread.is_alive():
                return cam
            stops = self._stops.get(table_id, 0)
        hub = self.app.extensions["kortbord.hub"]
        rt = hub.get(table_id)
        source = rt.table["source"]
        if source in ("none", "", None) or not self.app.config.get("CAMERA", True):
            return None
        try:
            cam = self._open(table_id, source, rt.rules)
        except Exception as e:  # no OpenCV, no camera: the table still works by tapping
            log.warning("no camera for table %s (%s): %s", table_id, source, e)
            why = str(e)
            with self._lock:
                # told once, and not for a source changed meanwhile (the camera stopped since)
                new = self._stops.get(table_id, 0) == stops and self.failures.get(table_id) != why
                if new:
                    self.failures[table_id] = why
                    old = self.cameras.get(table_id)
                    if old is not None and not old.thread.is_alive():
                        del self.cameras[table_id]  # its end is old news: the failure is said
            if new:
                self._news(table_id, "error", why)
                self._tell(table_id)
            return None
        with self._lock:
            # Checked and started under the lock: a registered camera always runs, so no
            # other caller replaces it; and a camera opened for a source that was changed
            # meanwhile (the camera stopped since) is not kept.
            old = self.cameras.get(table_id)
            if old is not None and old.thread.is_alive():
                winner = old
            elif self._stops.get(table_id, 0) != stops:
                winner = None
            else:
                self.cameras[table_id] = cam
                self.failures.pop(table_id, None)
                cam.start()
                winner = cam
        if winner is not cam:
            cam.stop()
            return winner
        self._tell(table_id)
        return cam

    def stop(self, table_id: str) -> None:
        """Stop the table's camera and forget why one would not open; call it after the
        table's source changed, so a camera being opened for the old one is not kept."""
        with self._lock:
            cam = self.cameras.pop(table_id, None)
            self.failures.pop(table_id, None)
            self._troubled.discard(table_id)
            self._stops[table_id] = self._stops.get(table_id, 0) + 1
        if cam is not None:
            cam.stop()

    def _changed(self, cam: TableCamera) -> None:
        with self._lock:
            if self.cameras.get(cam.table_id) is not cam:
                return  # a camera being replaced or stopped: its pages show the new one
        self._news(cam.table_id, cam.state, cam.message)
        self._tell(cam.table_id)

    def _news(self, table_id: str, state: str, message: str) -> None:
        """Say on the terminal (the log) once that a table's camera gives no pictures, and
        what to do, and once that it gives them again. Its source tries again quietly: a line
        at each try (every 8 s, for ever) had scrolled the address to open, and the phones'
        QR code, off the screen, and its return was never said."""
        with self._lock:
            if state in TROUBLE and table_id not in self._troubled:
                self._troubled.add(table_id)
            elif state == "open" and table_id in self._troubled:
                self._troubled.discard(table_id)
            else:
                return
        try:
            name = repr(self.app.extensions["kortbord.hub"].get(table_id).table["name"])
        except Exception:  # a table deleted meanwhile
            name = table_id
        english = i18n.translator("en")
        said = " ".join(
            part for part in (say_camera(message, english), camera_check(message, english)) if part
        )
        # at WARNING, its return too: the terminal shows warnings only, and its last word on
        # the camera must not be the loss
        log.warning("camera of table %s: %s", name, shown_source(said))

    def _tell(self, table_id: str) -> None:
        """Wake the table's pages to show the camera's new state (server-sent events)."""
        try:
            self.app.extensions["kortbord.hub"].touch(table_id)
        except Exception as e:  # a table deleted meanwhile: nobody to tell
            log.debug("camera of table %s: %s", table_id, e)

    def _open(self, table_id: str, source: str, rules: Any) -> TableCamera:
        from vision.sources import FrameSource, QueueSource, SourceError, open_source

        hub = self.app.extensions["kortbord.hub"]
        # A recorded game goes on from the last frame that made moves (the server was
        # stopped, the page opened again after its end): played from its first frame again,
        # its draws would be taken for new ones. It starts a warm-up before that frame, so the
        # table is seen whole as the game stands, the last card laid on top.
        read = hub.video_read(table_id) if source.startswith("video:") else None
        if read is not None:
            read = max(0.0, read - WARMUP)
        reader = make_reader(
            rules,
            table_id,
            source,
            lambda: hub.get(table_id).state,
            options=lambda: hub.get(table_id).table["options"],
            on_zones=lambda zones, frame: hub.propose_zones(table_id, zones, frame),
            on_road=lambda road, grid: hub.set_road(table_id, road, by_camera=True, grid=grid),
            current_rules=lambda: hub.get(table_id).rules,
            starts_at=read or 0.0,
            undos=lambda: hub.get(table_id).undos,
            past=lambda n: hub.recent(table_id, n),
        )
        spec = source.split(":", 1)[1] if source.startswith(("webcam:", "video:")) else source
        src: FrameSource
        push = dropped = progress = None  # a phone's pictures; how far a video was followed
        if source == "phone":
            src = phone = QueueSource(name=f"phone camera of table {table_id}")
            push, dropped = phone.push, lambda: phone.dropped
        elif source.startswith("video:"):
            if not Path(spec).exists():  # moved or deleted since the table was made
                raise SourceError(f"cannot open video {spec!r}: no such file")
            src = open_video(spec)
            progress = partial(hub.note_video_read, table_id)
        else:
            src = open_source(spec)
        cam = TableCamera(
            table_id,
            src.frames if read is None else _after(src.frames, read),
            reader,
            self._on_reading,
            push=push,
            dropped=dropped,
            close=src.close,
            realtime=source.startswith("video:"),
            on_change=self._changed,
            watch=UnreadableWatch().update,
            progress=progress,
        )
        src.on_status = cam.source_status
        src.quiet = True  # the terminal is told by _news, once, not at each try
        return cam

    def _on_reading(self, table_id: str, reading: Reading) -> None:
        from referee import IllegalMove

        hub = self.app.extensions["kortbord.hub"]
        if reading.moves:
            try:
                hub.play(table_id, reading.moves, source="camera")
            except IllegalMove as e:
                # the referee's own words (a Refusal's), said in each page's language there
                reason = getattr(e, "reason", str(e))
                hub.set_prompt(table_id, {"message": reason, "candidates": []})
        elif reading.prompt is not None:
            hub.set_prompt(table_id, reading.prompt, game=reading.game)

    def stop_all(self) -> None:
        """Stop every table's camera."""
        with self._lock:
            cams = list(self.cameras.values())
            for table_id in self.cameras:
                self._stops[table_id] = self._stops.get(table_id, 0) + 1
            self.cameras.clear()
            self.failures.clear()
        for cam in cams:
            cam.stop()


def _after(frames: Callable[[], Iterator[Any]], read: float) -> Callable[[], Iterator[Any]]:
    """Return ``frames`` without those up to frame time ``read`` (seconds)."""
    return lambda: (f for f in frames() if f.time > read)


# What a camera's source says (vision.sources speaks English), why its pictures cannot be read
# (vision.exposure), and what its reader waits for (vision.layouts.skipbo: propose_zones), as
# the table's page says it. The page hears of changes of state, not of each reconnection
# attempt: no attempt's time.
SOURCE_SENTENCES = [
    # tried again after it was lost (one that never opened "cannot open"s): the page says so
    # for the whole outage, not for the half second before the first try
    (r"reconnecting to (?P<name>.+) in [\d.]+ s \(attempt \d+\)", "lost {name}; reconnecting…"),
    (
        r"cannot open (?P<name>.+); trying again in [\d.]+ s \(attempt \d+\)",
        "cannot open {name}; trying again…",
    ),
    (r"lost (?P<name>.+); will reconnect", "lost {name}; reconnecting…"),
    (
        r"gave up on (?P<name>.+) after (?P<n>\d+) reconnection attempts",
        "gave up on {name} after {n} attempts",
    ),
    sentence("end of {name} after {n} frames ({k} could not be read)", n=r"\d+", k=r"\d+"),
    sentence("end of {name} after {n} frames", n=r"\d+"),
    sentence("end of {name}"),
    sentence("the camera gives no more pictures"),
    *(sentence(why) for why in (TOO_DARK, ONE_COLOUR, OUT_OF_VIEW_ONE)),
    sentence(OUT_OF_VIEW, n=r"\d+"),
    sentence("{name} enters their card on their own phone"),
    sentence("expected {want} face-up stock cards at the start, saw {n}", want=r"\d+", n=r"\d+"),
    sentence("need at least two stock cards to propose zones, saw {n}", n=r"\d+"),
    sentence("the stock cards on the table do not match the game's stocks (not seen: {codes})"),
    sentence("the stock cards on the table do not match the game's stocks"),
]


# A network stream (an IP camera, a phone's camera app) that cannot be reached, or was lost:
# what the family can check, said after it (a red line that named only its address left them
# to guess).
STREAM_TROUBLE = re.compile(
    r"(?:reconnecting to|cannot open|lost|gave up on) [a-z][\w+.-]*://", re.I
)
STREAM_CHECK = (
    "Check that the camera (or the phone's camera app) is on, and on the same network as the "
    "computer Kortbord runs on."
)
# A webcam lost (unplugged, its cable loose, taken by another program), or one that never
# opened (also a number mistyped: `serve --source 7`)
WEBCAM_LOST = re.compile(r"(?:reconnecting to|lost) camera \d+\b")
WEBCAM_NEVER = re.compile(r"cannot open camera \d+\b")
WEBCAM_CHECK = "Check that the webcam is plugged in and that no other program uses it."
WEBCAM_NUMBER = "Check that the webcam is plugged in and its number (the first one is 0)."
# A live camera being tried again: the game need not wait for it (one lost, or one that
# never opened)
MEANWHILE = "Until it is back, tap the moves in on the table's page: those made so far are kept."
MEANWHILE_FIRST = "Until it opens, tap the moves in on the table's page."


def camera_check(message: str, t: Translator) -> str:
    """Return what to check and do, said with ``t``, when a camera's source said
    (``message``) that it cannot be reached or was lost (a network stream, a webcam); else
    ""."""
    if STREAM_TROUBLE.match(message):
        check = STREAM_CHECK
    elif WEBCAM_LOST.match(message):
        check = WEBCAM_CHECK
    elif WEBCAM_NEVER.match(message):
        check = WEBCAM_NUMBER
    else:
        return ""
    meanwhile = MEANWHILE_FIRST if message.startswith("cannot open") else MEANWHILE
    return f"{t(check)} {t(meanwhile)}"


def say_camera(message: str, t: Translator) -> str:
    """Return what a camera's source said, said with ``t`` (unchanged when of another shape)."""
    # a video's file or folder by its own name, not its whole path; a generated video's
    # pictures (its folder "frames", an English word on every page) by the video's name
    message = re.sub(r"^end of (?:\S*/)?([^/\s]+)/frames(?=\s|$)", r"end of \1", message)
    message = re.sub(r"^end of \S*/(?=[^/\s]+)", "end of ", message)
    said = say_known(SOURCE_SENTENCES, message, t) or say_road_problems(message, t)
    if said is None:
        return message
    # a webcam (vision.sources names it "camera 0") in the page's words
    return re.sub(r"\bcamera (\d+)\b", lambda m: t("camera {n}", n=m[1]), said)


NOT_A_PICTURE = "That file is not a picture I can read (a JPEG or PNG)."
DAMAGED_PICTURE = "The picture is cut off or damaged: take or send it again."
EMPTY_PHOTO = "the photo is empty"
TOO_MANY_PIXELS = "The picture has too many pixels: at most 100 million."
# a 200 MP phone photo's bytes fit the 8 MB limit only heavily shrunk
MAX_PICTURE_PIXELS = 100_000_000
# A phone camera's picture waits for the table's camera at most this size (a 12 MP phone
# photo as it is): a few hundred KB of PNG decode to 300 MB, and each phone table's camera
# kept several waiting (a guest's 20 tables: tens of gigabytes)
MAX_FRAME_PIXELS = 4096 * 3072
# The frame markers of a JPEG that give its size (SOF0–SOF15 less DHT, JPG and DAC).
_JPEG_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def picture_size(data: bytes) -> tuple[int, int] | None:
    """Return a PNG's or JPEG's ``(width, height)`` from its header, ``None`` when the bytes
    do not say. Read by hand because OpenCV only tells after decoding, and a few hundred
    kilobytes of PNG can decode to gigabytes."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
        return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 9 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker in _JPEG_SOF:
            return int.from_bytes(data[i + 7 : i + 9], "big"), int.from_bytes(
                data[i + 5 : i + 7], "big"
            )
        if 0xD0 <= marker <= 0xD9 or marker == 0x01:  # markers without a length
            i += 2
            continue
        i += 2 + int.from_bytes(data[i + 2 : i + 4], "big")
    return None


_DECODING = threading.BoundedSemaphore(2)  # pictures decoded at once: up to 300 MB each


def decode_picture(data: bytes, most_pixels: int | None = None) -> tuple[Any, str | None]:
    """Return the BGR image ``(h, w, 3)`` in a picture's bytes (JPEG, PNG…) and ``None``,
    or ``(None, why not)``: empty, not a picture, or no OpenCV to read it. A picture of
    more than ``most_pixels`` is shrunk to that many (before it is let go of)."""
    if not data:
        return None, EMPTY_PHOTO
    size = picture_size(data)
    if size is None:  # other formats and damaged headers decode to who knows how many pixels
        return None, NOT_A_PICTURE
    if size[0] * size[1] > MAX_PICTURE_PIXELS:
        return None, TOO_MANY_PIXELS
    try:
        import cv2

        from vision.images import DamagedImage, ImageError, decode_image
    except ImportError:
        return None, NO_RECOGNIZER
    try:
        with _DECODING:
            image = decode_image(data)
            if most_pixels and image.shape[0] * image.shape[1] > most_pixels:
                scale = (most_pixels / (image.shape[0] * image.shape[1])) ** 0.5
                size = (max(1, int(image.shape[1] * scale)), max(1, int(image.shape[0] * scale)))
                image = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    except DamagedImage:  # decoded, it is garbled or grey where bytes are missing
        return None, DAMAGED_PICTURE
    except (ImageError, cv2.error):
        return None, NOT_A_PICTURE
    return image, None


def _read_photo(data: bytes, read: Callable[[Any], Any]) -> tuple[Any, str | None]:
    """Decode a photo's bytes and read the BGR image with ``read`` (a function of
    :mod:`webui.pipeline_adapter`, ``None`` without models); return ``(result, None)`` or
    ``(None, why not)``."""
    image, problem = decode_picture(data)
    if problem:
        return None, problem
    result = read(image)
    return (None, NO_RECOGNIZER) if result is None else (result, None)


def recognize_photo(data: bytes) -> tuple[list[str], str | None]:
    """Return the card codes in a photo, or ``([], why not)``."""
    from webui import pipeline_adapter

    codes, problem = _read_photo(data, pipeline_adapter.recognize)
    return ([], problem) if problem else (codes, None)


@dataclass
class RoadPhoto:
    """A Stigespill road read from a photo of it laid out: ``road``, the codes in road order
    (all 28, or those read); ``problem``, why it cannot be played (what is missing, doubled
    or ambiguous; no cards where the photo could not be read at all), else ``None``;
    ``checks``: the cards read by elimination, for the user to check; ``as_text``: a road
    in straight rows read as a snake, read like text; ``gaps``: where missing cards likely
    lie, each the index in ``road`` of the card before one."""

    road: list[str]
    problem: str | None = None
    checks: list[str] = field(default_factory=list)
    as_text: list[str] | None = None
    gaps: list[int] = field(default_factory=list)


def read_road_photo(data: bytes, shape: str = "auto") -> RoadPhoto:
    """Return the Stigespill road in a photo of the laid-out road. ``shape``: how the road
    runs (``auto``, or ``rows``: every row the same way, like text), which the cards' places
    cannot say."""
    from webui import pipeline_adapter

    reading, problem = _read_photo(data, lambda image: pipeline_adapter.read_road(image, shape))
    if problem:
        return RoadPhoto([], problem)
    if not reading["ok"]:
        why = "; ".join(reading["problems"])
        return RoadPhoto(list(reading["road"]), why, gaps=list(reading.get("gaps", [])))
    return RoadPhoto(reading["road"], None, list(reading.get("checks", [])), reading.get("as_text"))


def init_app(app: Flask) -> None:
    """Register the camera hub."""
    app.extensions["kortbord.cameras"] = CameraHub(app)


def cameras() -> CameraHub:
    """Return the current app's camera hub."""
    return current_app.extensions["kortbord.cameras"]

"""Reading a picture, from a file (the commands, a folder of frames) or its bytes (the web
app's photos and phone frames): a clear reason for every one that is not a picture, or is
cut off or damaged, and for anything else the system refused (``os_reason``)."""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

JPEG_START, JPEG_END = b"\xff\xd8", b"\xff\xd9"
PNG_START, PNG_END = b"\x89PNG", b"IEND\xaeB`\x82"


NOT_AN_IMAGE = "not a readable image"
NOT_A_FILE = "not a file (a pipe, socket or device)"
TOO_MANY_PIXELS = "too many pixels to read (more than OpenCV decodes)"


class ImageError(ValueError):
    """The file cannot be read as an image; the message says why."""


def os_reason(e: OSError) -> str:
    """Say why an operating-system call failed: "permission denied", not "[Errno 13] …"."""
    return (e.strerror or str(e)).lower()


def check_file(path: str | Path) -> None:
    """Raise ``OSError`` (``IsADirectoryError`` for a folder; :data:`NOT_A_FILE` for a pipe,
    socket or device) unless ``path`` is a file: reading a pipe waits for a writer that may
    never come, and ``detect`` given a FIFO named photo.png hung without a word."""
    mode = os.stat(path).st_mode
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, NOT_A_FILE, str(path))


class DamagedImage(ImageError):
    """The file is an image cut off or damaged: its picture would be wrong in part."""


CUT_OFF = "the file is cut off: part of the picture is missing"
CUT_OFF_UNREADABLE = "the file is cut off: it cannot be read"


def read_image(path: str | Path) -> Any:
    """Return the BGR image ``(h, w, 3)`` in an image file; raise :class:`ImageError` naming
    why it cannot be read (missing, a folder, no permission, empty, not an image) and
    :class:`DamagedImage` for a JPEG or PNG cut off or damaged: OpenCV reads such a file and
    greys out or garbles what is missing, so a damaged photo would pass for a table with
    fewer cards."""
    p = Path(path)
    try:
        check_file(p)
        with p.open("rb") as f:
            head = f.read(8)
            f.seek(max(0, p.stat().st_size - 64))
            tail = f.read()
    except FileNotFoundError:
        raise ImageError("no such file") from None
    except IsADirectoryError:
        raise ImageError("a folder, not an image") from None
    except PermissionError:
        raise ImageError("permission denied") from None
    except OSError as e:
        raise ImageError(os_reason(e)) from None
    return _judge(head, tail, *_decode(lambda: imread(p)))


def decode_image(data: bytes) -> Any:
    """Return the BGR image ``(h, w, 3)`` in an image file's bytes (a photo sent to the web
    app, a phone's camera frame); raise as :func:`read_image` does."""
    return _judge(bytes(data[:8]), bytes(data[-64:]), *_decode(lambda: imdecode(data)))


def _judge(head: bytes, tail: bytes, image: Any, said: str | None) -> Any:
    """Return ``image`` unless it is none, or the image library said it is damaged (``said``:
    its words; None where they could not be heard). A file without its end marker is said
    cut off; one whose library read it whole without a word is not (a phone's trailer after
    a JPEG's end marker)."""
    if not head:
        raise ImageError("an empty file")
    tail = tail.rstrip(b"\x00 \r\n")
    cut = (head.startswith(JPEG_START) and not tail.endswith(JPEG_END)) or (
        head.startswith(PNG_START) and not tail.endswith(PNG_END)
    )
    if image is None or image.size == 0:
        if cut:
            raise DamagedImage(CUT_OFF_UNREADABLE)
        if not said:
            raise ImageError(NOT_AN_IMAGE)
    elif cut and (said or said is None):
        raise DamagedImage(CUT_OFF)
    # e.g. libpng's "IDAT: CRC error" (a chunk's bytes changed, the image unread), libjpeg's
    # "Corrupt JPEG data: 12 extraneous bytes before marker 0xd9" (read, but garbled)
    if said:
        raise DamagedImage(f"the file is damaged ({said.splitlines()[0]})")
    return image


_STDERR = threading.Lock()  # fd 2 is the process's: one decoding at a time borrows it


def _decode(decode: Callable[[], Any]) -> tuple[Any, str | None]:
    """Decode with OpenCV (``decode()``); return the image (None if it cannot) and what the
    image libraries said of damage on the process's stderr meanwhile (None where there is
    no stderr to borrow). libjpeg and libpng write their own lines there ("Premature end of
    JPEG file"), around the command's words: they are kept and said as the command's reason
    instead. libpng's warnings (an odd colour profile) are no damage and are left out, but
    for a chunk whose checksum is wrong. Another thread's words that land there meanwhile (a
    server's request log) are no damage either: a library says its own again when the file
    is decoded again, and those words go on to stderr as they were."""
    with _STDERR:
        image, said = _decode_saying(decode)
        if said is None:  # no stderr to borrow: decoded as it is
            return image, None
        if said:
            again = _decode_saying(decode)[1] or []
            stray = [line for line in said if line not in again]
            stray += [line for line in again if line not in said]
            said = [line for line in said if line in again]
            if stray:
                os.write(2, ("\n".join(stray) + "\n").encode("utf-8", "replace"))
    said = [line.strip() for line in said if line.strip()]
    said = [
        line.removeprefix("libpng error: ").removeprefix("libpng warning: ")
        for line in said
        if not line.startswith("libpng warning") or "CRC error" in line
    ]
    return image, "\n".join(said)


def _decode_saying(decode: Callable[[], Any]) -> tuple[Any, list[str] | None]:
    """Decode with the process's stderr borrowed; return the image and the lines written
    there meanwhile (None when there is no stderr to borrow). Call with _STDERR held."""
    with tempfile.TemporaryFile() as caught:
        try:
            sys.stderr.flush()
            saved = os.dup(2)
        except (OSError, ValueError):
            return decode(), None
        os.dup2(caught.fileno(), 2)
        try:
            image = decode()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        caught.seek(0)
        return image, caught.read().decode("utf-8", "replace").splitlines()


NOT_UTF8 = (
    "its name is not UTF-8 (a letter from another code page), which OpenCV cannot open: rename it"
)


def opencv_can_name(path: str | Path) -> bool:
    """Return whether OpenCV may be given ``path``: a name that is not UTF-8 (``kort\xe6.jpg``
    from a Windows camera card or zip, held by Python as a lone surrogate) crashed the whole
    process inside OpenCV ("Segmentation fault"), whatever the call."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def shown(path: str | Path) -> str:
    """Return ``path`` as a message shows it: a byte that is not UTF-8 as ``\xe6``, not a
    lone surrogate, which a UTF-8 terminal cannot print."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def imread(path: str | Path) -> Any:
    """``cv2.imread`` in colour: the BGR image, or None when it cannot be read; raise
    :class:`ImageError` for a header claiming more pixels than OpenCV decodes (OpenCV
    raises on it rather than returning None). A file OpenCV cannot be given the name of
    (:func:`opencv_can_name`) is read by Python and decoded from its bytes."""
    import cv2

    if not opencv_can_name(path):
        return imdecode(Path(path).read_bytes())
    return _opencv(lambda: cv2.imread(str(path), cv2.IMREAD_COLOR))


def imwrite(path: str | Path, image: Any, params: Sequence[int] = ()) -> bool:
    """Write ``image`` ``(h, w, 3)`` to the picture file ``path``, its format by its suffix
    (``params`` as ``cv2.imwrite`` takes them); return False when it cannot be encoded or
    written. Encoded by OpenCV and written by Python, so any name the system takes will
    do (:func:`opencv_can_name`)."""
    import cv2

    try:
        ok, data = cv2.imencode(Path(path).suffix, image, list(params))
        if ok:
            Path(path).write_bytes(data.tobytes())
    except (cv2.error, OSError):
        return False
    return bool(ok)


def imdecode(data: bytes) -> Any:
    """``cv2.imdecode`` in colour, as :func:`imread` reads a file."""
    import cv2
    import numpy as np

    return _opencv(lambda: cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR))


def _opencv(decode: Callable[[], Any]) -> Any:
    import cv2

    try:
        return decode()
    except cv2.error as e:
        if "MAX_IMAGE" in str(e):
            raise ImageError(TOO_MANY_PIXELS) from None
        return None

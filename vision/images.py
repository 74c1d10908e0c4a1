"""Reading an image file for the commands: a clear reason for every file that is not one, and
for anything else the system refused (``os_reason``)."""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
import threading
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


def read_image(path: str | Path) -> tuple[Any, str | None]:
    """Return ``(BGR image, warning or None)`` for an image file; raise :class:`ImageError`
    naming why it cannot be read (missing, a folder, no permission, empty, not an image).

    The warning says a JPEG or PNG is cut off or damaged: OpenCV reads such a file and
    greys out what is missing, so a damaged photo would otherwise pass for a table with
    fewer cards.
    """
    p = Path(path)
    try:
        check_file(p)
        with p.open("rb") as f:
            head = f.read(8)
            f.seek(max(0, p.stat().st_size - 64))
            tail = f.read().rstrip(b"\x00 \r\n")
    except FileNotFoundError:
        raise ImageError("no such file") from None
    except IsADirectoryError:
        raise ImageError("a folder, not an image") from None
    except PermissionError:
        raise ImageError("permission denied") from None
    except OSError as e:
        raise ImageError(os_reason(e)) from None
    if not head:
        raise ImageError("an empty file")
    cut = (head.startswith(JPEG_START) and not tail.endswith(JPEG_END)) or (
        head.startswith(PNG_START) and not tail.endswith(PNG_END)
    )
    image, said = _decode(p)
    if image is None or image.size == 0:
        raise ImageError("the file is cut off: it cannot be read" if cut else NOT_AN_IMAGE)
    if cut:
        return image, "the file is cut off: part of the picture is missing"
    if said:  # e.g. libjpeg's "Corrupt JPEG data: 12 extraneous bytes before marker 0xd9"
        return image, f"the file is damaged ({said.splitlines()[0]})"
    return image, None


_STDERR = threading.Lock()  # fd 2 is the process's: one decoding at a time borrows it


def _decode(path: Path) -> tuple[Any, str]:
    """Decode ``path`` with OpenCV; return the image (None if it cannot) and what the image
    libraries said of damage on the process's stderr meanwhile. libjpeg and libpng write
    their own lines there ("Premature end of JPEG file"), around the command's words: they
    are kept and said as part of the command's warning instead. libpng's warnings (an odd
    colour profile) are no damage and are left out. Another thread's words that land there
    meanwhile (a server's request log) are no damage either: a library says its own again
    when the file is decoded again, and those words go on to stderr as they were."""
    with _STDERR:
        image, said = _decode_saying(path)
        if said is None:  # no stderr to borrow: decoded as it is
            return image, ""
        if said:
            again = _decode_saying(path)[1] or []
            stray = [line for line in said if line not in again]
            stray += [line for line in again if line not in said]
            said = [line for line in said if line in again]
            if stray:
                os.write(2, ("\n".join(stray) + "\n").encode("utf-8", "replace"))
    said = [line.strip() for line in said if line.strip()]
    return image, "\n".join(line for line in said if not line.startswith("libpng warning"))


def _decode_saying(path: Path) -> tuple[Any, list[str] | None]:
    """Decode ``path`` with the process's stderr borrowed; return the image and the lines
    written there meanwhile (None when there is no stderr to borrow). Call with _STDERR held."""
    with tempfile.TemporaryFile() as caught:
        try:
            sys.stderr.flush()
            saved = os.dup(2)
        except (OSError, ValueError):
            return imread(path), None
        os.dup2(caught.fileno(), 2)
        try:
            image = imread(path)
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        caught.seek(0)
        return image, caught.read().decode("utf-8", "replace").splitlines()


def imread(path: str | Path) -> Any:
    """``cv2.imread`` in colour: the BGR image, or None when it cannot be read; raise
    :class:`ImageError` for a header claiming more pixels than OpenCV decodes (OpenCV
    raises on it rather than returning None)."""
    import cv2

    try:
        return cv2.imread(str(path), cv2.IMREAD_COLOR)
    except cv2.error as e:
        if "MAX_IMAGE" in str(e):
            raise ImageError(TOO_MANY_PIXELS) from None
        return None

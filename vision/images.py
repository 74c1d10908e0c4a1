"""Reading an image file for the commands: a clear reason for every file that is not one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

JPEG_START, JPEG_END = b"\xff\xd8", b"\xff\xd9"
PNG_START, PNG_END = b"\x89PNG", b"IEND\xaeB`\x82"


class ImageError(ValueError):
    """The file cannot be read as an image; the message says why."""


def read_image(path: str | Path) -> tuple[Any, str | None]:
    """Return ``(BGR image, warning or None)`` for an image file; raise :class:`ImageError`
    naming why it cannot be read (missing, a folder, no permission, empty, not an image).

    The warning says a JPEG or PNG is cut off: OpenCV reads such a file and greys out what
    is missing, so a damaged photo would otherwise pass for a table with fewer cards.
    """
    import cv2

    p = Path(path)
    try:
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
        raise ImageError(e.strerror or str(e)) from None
    if not head:
        raise ImageError("an empty file")
    image = cv2.imread(str(p), cv2.IMREAD_COLOR)
    if image is None or image.size == 0:
        raise ImageError("not a readable image")
    cut = (head.startswith(JPEG_START) and not tail.endswith(JPEG_END)) or (
        head.startswith(PNG_START) and not tail.endswith(PNG_END)
    )
    return image, "the file is cut off: part of the picture is missing" if cut else None

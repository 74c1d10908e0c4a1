"""Read labelled real photographs: Pascal VOC boxes plus optional full card codes.

The shared set ``realphotos/edje-cards`` has ``train/`` and ``test/`` folders of JPEGs with one
VOC ``.xml`` each (whole-card boxes of the *visible* card, labelled by rank only) and a
``test-codes.json`` with the full code of every box of the test photos, in box order. The
suits of the train photos were read off the photos by hand for this project, in
``datasets/edje-cards-train-suits.json``: per box the suits it may be (``"S"``; ``"HD"`` where
only its colour shows; ``"SHDC"`` where nothing does).
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from kortbord.cli import load_json
from vision.geometry import box_corners, turning
from vision.images import ImageError, read_image
from vision.shared import REAL_PHOTOS

RANK_WORDS = {
    "ace": "A", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
    "eight": "8", "nine": "9", "ten": "10", "jack": "J", "queen": "Q", "king": "K",
}  # fmt: skip
DEFAULT_DIR = REAL_PHOTOS
SUITS_DIR = Path(__file__).resolve().parent.parent / "datasets"  # <set>-<split>-suits.json
ANY_SUIT = "SHDC"


class RealPhotoError(ValueError):
    """A photo folder or annotation that cannot be read; the message names the file."""


@dataclass(frozen=True)
class LabelledPhoto:
    """One photo: its path, the ``(n, 4)`` boxes, each box's rank, (if known) full code, and
    the suits each box may be (its code's suit; ``"SHDC"`` when unknown)."""

    image: Path
    boxes: np.ndarray
    ranks: tuple[str, ...]
    codes: tuple[str | None, ...]
    suits: tuple[str, ...] = ()


def read_voc(xml_path: str | Path) -> tuple[str, np.ndarray, tuple[str, ...]]:
    """Return ``(file name, boxes (n, 4) x1 y1 x2 y2, ranks)`` from a VOC annotation."""
    try:
        root = ET.parse(xml_path).getroot()
    except (OSError, ET.ParseError) as e:
        raise RealPhotoError(f"cannot read annotation {str(xml_path)!r}: {e}") from e
    boxes, ranks = [], []
    for obj in root.iter("object"):
        name = (obj.findtext("name") or "").strip().lower()
        b = obj.find("bndbox")
        if b is None:
            raise RealPhotoError(f"{xml_path}: an object has no bndbox")
        box = []
        for k in ("xmin", "ymin", "xmax", "ymax"):
            text = b.findtext(k)
            try:
                box.append(float(text or ""))
            except ValueError:
                raise RealPhotoError(f"{xml_path}: a bndbox's {k} is no number: {text!r}") from None
        boxes.append(box)
        ranks.append(RANK_WORDS.get(name, name.upper()))
    return root.findtext("filename") or "", np.array(boxes, np.float32).reshape(-1, 4), tuple(ranks)


def load_split(folder: str | Path, split: str = "test") -> list[LabelledPhoto]:
    """Return the labelled photos of one split (``train`` or ``test``) of a photo set, with
    the suits from ``datasets/<set>-<split>-suits.json`` where the project has them."""
    folder = Path(folder)
    d = folder / split
    if not d.is_dir():
        raise RealPhotoError(f"photo folder {str(d)!r} does not exist")
    codes_file = folder / f"{split}-codes.json"
    codes = {}
    if codes_file.is_file():
        try:
            codes = load_json(codes_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise RealPhotoError(f"cannot read {str(codes_file)!r}: {e}") from None
        if not isinstance(codes, dict):
            raise RealPhotoError(f"{codes_file}: not an object of codes by photo name")
    suits_file = SUITS_DIR / f"{folder.name}-{split}-suits.json"
    suits = json.loads(suits_file.read_text())["suits"] if suits_file.is_file() else {}
    photos = []
    for xml in sorted(d.glob("*.xml")):
        _, boxes, ranks = read_voc(xml)
        image = next(
            (p for p in d.glob(xml.stem + ".*") if p.suffix.lower() in (".jpg", ".jpeg", ".png")),
            None,
        )
        if image is None:
            raise RealPhotoError(f"{xml}: no image beside it")
        full = codes.get(xml.stem)
        if full is not None and len(full) != len(ranks):
            raise RealPhotoError(
                f"{codes_file}: {xml.stem} has {len(full)} codes for {len(ranks)} boxes"
            )
        full = tuple(full) if full else (None,) * len(ranks)
        may_be = suits.get(xml.stem) or [ANY_SUIT] * len(ranks)
        if len(may_be) != len(ranks) or any(not set(s) <= set(ANY_SUIT) for s in may_be):
            raise RealPhotoError(f"{suits_file}: {xml.stem} needs one suit set per box")
        may_be = tuple(
            c[-1] if c and c[-1] in ANY_SUIT else s for c, s in zip(full, may_be, strict=True)
        )
        photos.append(LabelledPhoto(image, boxes, ranks, full, may_be))
    return photos


PhotoFrame = tuple[LabelledPhoto, np.ndarray]  # a labelled photo and its BGR pixels (h, w, 3)


def read_photos(
    photos: Iterable[LabelledPhoto],
    unread: Callable[[LabelledPhoto, ImageError], object] | None = None,
) -> Iterator[PhotoFrame]:
    """Yield each photo with its pixels, decoded once by :func:`vision.images.read_image`.

    A photo that does not read whole (missing, not an image, cut off or damaged: OpenCV
    would read it grey or garbled in part, a table with fewer cards) is skipped and given to
    ``unread`` with the reason; without ``unread`` it raises :class:`RealPhotoError` naming
    the file."""
    for p in photos:
        try:
            frame = read_image(p.image)
        except ImageError as e:
            if unread is None:
                raise RealPhotoError(f"{p.image}: {e}") from None
            unread(p, e)
            continue
        yield p, frame


ANGLED_CANVAS = (90, 100, 110)  # BGR grey round a photo turned by other than quarter turns


def turn_photo(
    frame: np.ndarray, boxes: np.ndarray, degrees: float
) -> tuple[np.ndarray, np.ndarray]:
    """Return a photo and its ``x1 y1 x2 y2`` boxes turned clockwise by ``degrees``.

    Quarter turns turn the pixels. Any other angle puts the photo turned on a grey canvas
    that holds all of it (its cards then lie at that angle), and each box becomes the box of
    the turned box: exact for an upright card seen whole, larger than a turned card's."""
    h, w = frame.shape[:2]
    x0, y0, x1, y1 = np.asarray(boxes, np.float32).reshape(-1, 4).T
    if degrees % 90:
        m, canvas = turning(w, h, -degrees)
        turned = cv2.warpAffine(frame, m, canvas, borderValue=ANGLED_CANVAS)
        if not len(x0):
            return turned, np.zeros((0, 4), np.float32)
        corners = cv2.transform(box_corners(boxes).reshape(1, -1, 2), m).reshape(-1, 4, 2)
        return turned, np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1)
    degrees = int(degrees) % 360
    if degrees == 0:
        return frame, np.stack([x0, y0, x1, y1], 1)
    if degrees == 90:
        return cv2.rotate(frame, cv2.ROTATE_90_CLOCKWISE), np.stack([h - y1, x0, h - y0, x1], 1)
    if degrees == 180:
        return cv2.rotate(frame, cv2.ROTATE_180), np.stack([w - x1, h - y1, w - x0, h - y0], 1)
    turned = cv2.rotate(frame, cv2.ROTATE_90_COUNTERCLOCKWISE)  # 270
    return turned, np.stack([y0, w - x1, y1, w - x0], 1)

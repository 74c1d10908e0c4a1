"""Measure the recognizer: card-code precision and recall on generated scenes and real photos.

Synthetic: every face-up card at least ``min_visible`` visible must be found with its code;
cards that show less may be found (a right reading of them counts for nothing, a wrong one is a
false positive). A detection matches a card when their outlines overlap (IoU ≥ 0.5).

Real photos: the labels are boxes of the visible card, so a detection matches by the IoU of
its visible box; box IoU ≥ 0.8 is counted per labelled card.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.geometry import box_corners, box_iou, polygon_iou
from vision.realphotos import PhotoFrame, turn_photo
from vision.recognizer import Recognition, Recognizer
from vision.synth.names import LAYOUTS

if TYPE_CHECKING:  # the scene generator is imported only where it renders
    from vision.synth.scene import CardLabel

EVAL_SEED = 90210  # never used for training data


@dataclass
class Tally:
    """Counts for card-code precision and recall, and which codes were confused."""

    tp: int = 0
    fp: int = 0
    fn: int = 0
    confusions: Counter = field(default_factory=Counter)
    box_ious: list[float] = field(default_factory=list)
    corner_errors: list[float] = field(default_factory=list)
    images: int = 0
    seconds: float = 0.0

    @property
    def precision(self) -> float:
        """Return the share of cards found that were read right."""
        return self.tp / max(1, self.tp + self.fp)

    @property
    def recall(self) -> float:
        """Return the share of cards there that were found and read right."""
        return self.tp / max(1, self.tp + self.fn)

    def add(self, other: Tally) -> None:
        """Add ``other``'s counts to these."""
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.confusions.update(other.confusions)
        self.box_ious += other.box_ious
        self.corner_errors += other.corner_errors
        self.images += other.images
        self.seconds += other.seconds

    def summary(self) -> dict:
        """Return the figures as a JSON-ready dict."""
        out = {
            "images": self.images,
            "cards_found_right": self.tp,
            "false_positives": self.fp,
            "missed": self.fn,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "ms_per_image": round(1000 * self.seconds / max(1, self.images), 1),
            "top_confusions": [f"{a}->{b} x{n}" for (a, b), n in self.confusions.most_common(10)],
        }
        if self.box_ious:
            ious = np.array(self.box_ious)
            out["box_iou_ge_0.8"] = round(float((ious >= 0.8).mean()), 4)
            out["box_iou_median"] = round(float(np.median(ious)), 3)
        if self.corner_errors:
            out["corner_error_median_of_card_width"] = round(
                float(np.median(self.corner_errors)), 4
            )
        return out


def _greedy_match(
    iou: np.ndarray, order: np.ndarray, same: np.ndarray | None = None, thr: float = 0.5
):
    """Match predictions (rows, in ``order``) to truths (columns); prefer same-code truths."""
    taken = np.zeros(iou.shape[1], bool)
    match = np.full(iou.shape[0], -1, np.int64)
    for i in order:
        cand = np.flatnonzero((iou[i] >= thr) & ~taken)
        if not len(cand):
            continue
        if same is not None and same[i, cand].any():
            cand = cand[same[i, cand]]
        j = cand[np.argmax(iou[i, cand])]
        match[i] = j
        taken[j] = True
    return match


def score_synthetic(
    rec: Recognition, labels: Sequence[CardLabel], min_visible: float = 0.4
) -> Tally:
    """Compare one frame's recognition with the generator's labels."""
    det = rec.detections
    gt = [lab for lab in labels if lab.code is not None]
    must = np.array([lab.visible >= min_visible for lab in gt], bool)
    t = Tally(images=1)
    if len(det) and gt:
        iou = np.array([[polygon_iou(q, lab.corners) for lab in gt] for q in det.corners])
        same = np.array([[c == lab.code for lab in gt] for c in det.codes])
        match = _greedy_match(iou, np.argsort(-det.confidence), same)
    else:
        match = np.full(len(det), -1)
    found = np.zeros(len(gt), bool)
    for i, j in enumerate(match):
        if j < 0:
            t.fp += 1
            continue
        right = det.codes[i] == gt[j].code
        if not right:
            t.fp += 1
            t.confusions[(gt[j].code, det.codes[i])] += 1
        elif must[j]:
            t.tp += 1
            found[j] = True
            w = float(np.linalg.norm(gt[j].corners[1] - gt[j].corners[0]))
            err = min(
                float(
                    np.linalg.norm(
                        np.roll(det.corners[i], -r, axis=0) - gt[j].corners, axis=1
                    ).mean()
                )
                for r in (0, 2)
            )
            t.corner_errors.append(err / max(w, 1.0))
    t.fn = int((must & ~found).sum())
    return t


def score_real(
    rec: Recognition, boxes: np.ndarray, codes: Iterable[str | None], angled: bool = False
) -> Tally:
    """Compare one photo's recognition with its VOC boxes and full codes.

    ``angled``: the photo was turned by other than quarter turns (:func:`turn_photo`), and
    each truth box is the box of a turned box, larger than a turned card's visible part. A
    card then matches by its outline's box at IoU ≥ 0.3, and box IoU is not counted."""
    codes = list(codes)
    det = rec.detections
    t = Tally(images=1)
    mine = rec.visible_boxes
    if angled and len(det):
        mine = np.concatenate([det.corners.min(axis=1), det.corners.max(axis=1)], axis=1)
    iou = box_iou(mine, boxes) if len(det) and len(boxes) else np.zeros((len(det), len(boxes)))
    same = np.array([[c == g for g in codes] for c in det.codes]).reshape(len(det), len(codes))
    match = (
        _greedy_match(iou, np.argsort(-det.confidence), same, 0.3 if angled else 0.5)
        if len(det)
        else np.zeros(0, np.int64)
    )
    found = np.zeros(len(codes), bool)
    best_iou = np.zeros(len(codes))
    for i, j in enumerate(match):
        if j < 0:
            t.fp += 1
            continue
        best_iou[j] = iou[i, j]
        if det.codes[i] == codes[j]:
            t.tp += 1
            found[j] = True
        else:
            t.fp += 1
            t.confusions[(codes[j], det.codes[i])] += 1
    t.fn = int((~found).sum())
    t.box_ious = [] if angled else best_iou.tolist()
    return t


def eval_synthetic(
    recognizer: Recognizer,
    images: int = 100,
    deck_dirs: tuple[str, ...] = (),
    seed: int = EVAL_SEED,
    min_visible: float = 0.4,
    log: Callable[[str], None] | None = None,
) -> dict[str, Tally]:
    """Render ``images`` new scenes (layouts in turn) and score the recognizer on each layout."""
    from vision.synth import random_scene

    per: dict[str, Tally] = {name: Tally() for name in LAYOUTS}
    for i in range(images):
        layout = LAYOUTS[i % len(LAYOUTS)]
        scene = random_scene(seed=seed, index=i, layouts=(layout,), deck_dirs=deck_dirs)
        frame = scene.jpeg_image()
        t0 = time.perf_counter()
        rec = recognizer.recognize(frame)
        dt = time.perf_counter() - t0
        t = score_synthetic(rec, scene.labels, min_visible)
        t.seconds = dt
        per[layout].add(t)
        if log and (i + 1) % 25 == 0:
            log(f"synthetic: {i + 1}/{images}")
    return per


def eval_real(
    recognizer: Recognizer, photos: Iterable[PhotoFrame], turns: Iterable[float] = (0,)
) -> Tally:
    """Score the recognizer on labelled real photos (read by
    :func:`vision.realphotos.read_photos`) that have full codes, each turned
    clockwise by each of ``turns`` degrees (quarter turns: a phone held sideways; other
    angles: cards lying at an angle, scored as :func:`score_real` says)."""

    def turned(photo, boxes):
        for degrees in turns:
            yield (*turn_photo(photo, boxes, degrees), bool(degrees % 90))

    return _score_views(recognizer, photos, turned)


def _lit(photo: np.ndarray, gain) -> np.ndarray:
    """The photo in other light: each pixel times ``gain`` (one, or one per B, G, R)."""
    return np.clip(photo.astype(np.float32) * np.float32(gain), 0, 255).astype(np.uint8)


def _tilted(photo: np.ndarray, boxes: np.ndarray, narrow: float = 0.2):
    """The photo as a camera tilted away sees it: its top edge ``narrow`` shorter each side."""
    h, w = photo.shape[:2]
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = np.array([[w * narrow, 0], [w * (1 - narrow), 0], [w, h], [0, h]], np.float32)
    m = cv2.getPerspectiveTransform(src, dst)
    out = cv2.warpPerspective(photo, m, (w, h), borderMode=cv2.BORDER_REPLICATE)
    corners = box_corners(boxes)
    if len(corners):
        corners = cv2.perspectiveTransform(corners.reshape(1, -1, 2), m).reshape(-1, 4, 2)
    return out, np.concatenate([corners.min(axis=1), corners.max(axis=1)], axis=1)


def _jpeg(photo: np.ndarray, quality: int) -> np.ndarray:
    _, data = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, quality])
    out = cv2.imdecode(data, cv2.IMREAD_COLOR)
    assert out is not None, "a JPEG just written reads back"
    return out


def _noisy(photo: np.ndarray, sigma: float, seed: int = 0) -> np.ndarray:
    noise = np.random.default_rng(seed).normal(0, sigma, photo.shape)
    return np.clip(photo + noise, 0, 255).astype(np.uint8)


# Each: (photo, boxes) -> (photo, boxes, angled): what a real photo the recognizer never saw
# may look like. ``angled``: the boxes are boxes of warped boxes (see score_real).
DISTURBANCES = {
    "half size": lambda f, b: (
        cv2.resize(f, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA),
        b * 0.5,
        False,
    ),
    "tungsten light": lambda f, b: (_lit(f, [0.55, 0.85, 1.0]), b, False),
    "dim (0.4)": lambda f, b: (_lit(f, 0.4), b, False),
    "noisy (sigma 8)": lambda f, b: (_noisy(f, 8.0), b, False),
    "JPEG 20": lambda f, b: (_jpeg(f, 20), b, False),
    "blurred (sigma 2)": lambda f, b: (cv2.GaussianBlur(f, (0, 0), 2.0), b, False),
    "tilted camera": lambda f, b: (*_tilted(f, b), True),
}


def eval_real_disturbed(recognizer: Recognizer, photos: Iterable[PhotoFrame]) -> dict[str, Tally]:
    """Score the recognizer on the labelled real photos (read by
    :func:`vision.realphotos.read_photos`) under each of ``DISTURBANCES``."""
    photos = list(photos)  # scored once for each disturbance
    return {
        name: _score_views(recognizer, photos, lambda f, b, d=disturb: [d(f, b)])
        for name, disturb in DISTURBANCES.items()
    }


def _score_views(recognizer: Recognizer, photos: Iterable[PhotoFrame], views) -> Tally:
    """Score each view (``views(photo, boxes)`` yields ``(frame, boxes, angled)``) of each
    labelled photo that has full codes."""
    total = Tally()
    for p, photo in photos:
        if any(c is None for c in p.codes):
            continue
        for frame, boxes, angled in views(photo, np.asarray(p.boxes, np.float32)):
            t0 = time.perf_counter()
            rec = recognizer.recognize(frame)
            dt = time.perf_counter() - t0
            t = score_real(rec, boxes, p.codes, angled=angled)
            t.seconds = dt
            total.add(t)
    return total


def eval_real_ranks(recognizer: Recognizer, photos: Iterable[PhotoFrame]) -> dict:
    """Score rank-only photos (the train split, read by
    :func:`vision.realphotos.read_photos`): rank precision/recall and box IoU."""
    tp = fp = fn = images = 0
    ious: list[float] = []
    for p, frame in photos:
        images += 1
        rec = recognizer.recognize(frame)
        det = rec.detections
        ranks = [c[:-1] if c[-1] in "SHDC" and c != "JK" else c for c in det.codes]
        iou = (
            box_iou(rec.visible_boxes, p.boxes)
            if len(det) and len(p.boxes)
            else np.zeros((len(det), len(p.boxes)))
        )
        same = np.array([[r == g for g in p.ranks] for r in ranks]).reshape(len(det), len(p.ranks))
        match = _greedy_match(iou, np.argsort(-det.confidence), same) if len(det) else []
        best = np.zeros(len(p.ranks))
        found = np.zeros(len(p.ranks), bool)
        for i, j in enumerate(match):
            if j < 0:
                fp += 1
                continue
            best[j] = iou[i, j]
            if ranks[i] == p.ranks[j]:
                tp += 1
                found[j] = True
            else:
                fp += 1
        fn += int((~found).sum())
        ious += best.tolist()
    a = np.array(ious) if ious else np.zeros(1)
    return {
        "images": images,
        "rank_precision": round(tp / max(1, tp + fp), 4),
        "rank_recall": round(tp / max(1, tp + fn), 4),
        "box_iou_ge_0.8": round(float((a >= 0.8).mean()), 4),
    }

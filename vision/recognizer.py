"""The card recognizer's run-time: one BGR frame in, :class:`Detections` out, with no torch.

Three small ONNX networks run in onnxruntime:

1. ``card_detector.onnx`` — a one-class YOLO pose model at low resolution. Per card it gives the
   axis-aligned box of the card's *visible* part and the card's four corners (also where they are
   covered), in no particular order: a card looks the same turned 180°, so the detector is trained
   with a loss that accepts any cyclic order and the order is rebuilt here from the geometry.
   At that resolution its corners are rough (a quarter of a card's width off, typically).
2. ``card_refiner.onnx`` — a small CNN that looks at a full-resolution patch around a rough
   outline and moves each corner onto the card's true corner; run twice. Optional: without it
   the detector's corners are used as they are.
3. ``card_classifier.onnx`` — a small CNN that reads one index corner, cut from the full-resolution
   frame and rectified with the card's homography, into one of the 66 card codes or "background"
   (no index there: a covered corner, the wrong corner, a back).

For every card both index corners are read under both ways the quad can be the card's upright
outline (which edge is the short top edge is ambiguous under strong perspective); the reading
with the most confident codes wins, covered or out-of-frame corners are ignored, and the card's
corners are returned clockwise from the top-left of the winning reading.

Outlines and boxes are measured by :mod:`vision.geometry`; crops and the refiner's patches are
cut by :mod:`vision.crops`, which training shares.
"""

from __future__ import annotations

import json
import os
import platform
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.cards import all_codes
from vision.crops import (
    THUMB_SPEC,
    CropSpec,
    Pyramid,
    apply_offsets,
    corner_crop_matrix,
    crop_moves,
    cut_patches,
    warp_many,
)
from vision.detections import Detections
from vision.geometry import (
    NEXT_CORNER,
    box_corners,
    box_iou,
    card_widths,
    clockwise_order,
    nms,
    nms_outlines,
    order_clockwise,
    polygon_iou,
    quad_is_sane,
    quads_are_sane,
    scaled,
    turned_quads,
    turning,
    visible_box,
)

MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
DETECTOR_FILE = "card_detector.onnx"
CLASSIFIER_FILE = "card_classifier.onnx"
REFINER_FILE = "card_refiner.onnx"
THUMBS_FILE = "card_thumbs.onnx"
# Optional: corner classifiers fine-tuned on far cards; a road photo's small cards are read by
# the mean of their probabilities (two fine-tunes together read more rendered roads right
# than either alone).
FAR_FILES = ("card_classifier_far.onnx", "card_classifier_far2.onnx")
META_FILE = "recognizer.json"
# what a missing model folder or file is told to do
GET_MODELS = "(train with `kortbord train`, or use the models shipped in models/)"

BACKGROUND = "background"
CLASS_NAMES: tuple[str, ...] = (*all_codes(), BACKGROUND)


# When a card is read whole: at most ``max_width`` px wide, and only where its index corners
# read with less than ``below`` of the probability; the thumbnail then counts ``weight``
# times as much as one corner in a photo, ``video_weight`` times in a video's frame.
# (Measured: reading every small card whole cost real photos 7 of 143 cards; gated like this,
# none. Counting 4 rather than 2 corners: rendered roads read right 229 -> 234 of 321,
# synthetic recall 0.883 -> 0.898, real test photos the same; but live Skip-Bo videos 19 -> 16
# of 20 followed exactly, their small discard cards flickering to another code: a video sees
# each card many times, and its tracker wants one code.)
THUMB_DEFAULTS = {
    "max_width": 110.0,
    "weight": 4.0,
    "video_weight": 2.0,
    "below": 0.7,
    "far_below": 0.99,
    "far_max_width": 70.0,
}
# Outlines read with at least ``above`` and less than ``below`` of the probability are started
# again turned by each of ``turns`` degrees (at most ``most`` of them a frame), see
# ``Recognizer._reseat``; the starts are RESEAT_SCALE of the outline's size.
RESEAT_DEFAULTS = {"turns": (-30, -20, -10, 10, 20, 30), "below": 0.7, "above": 0.1, "most": 8}
RESEAT_SCALE = 0.85
# In a photo read with the default floors, an outline the detector scores as low as
# ``detector`` still counts as a card when its code reads with at least ``code`` of the
# probability. On real photos the detector scores clear cards on busy backgrounds (print,
# wood, a game board) as low as 0.1; the classifier, which has learnt real backgrounds, is
# then the better witness. (Measured on the real test photos: recall 0.916 -> 0.944, no card
# more read wrongly; a video keeps its own floors, which its tracker was tuned with.)
WEAK_DEFAULTS = {"detector": 0.1, "code": 0.9}
WEAK_APART = 0.1  # ... unless it overlaps a card of its code found at the ordinary floors
# In a photo read at the default floors, an index corner whose crop reads no class with
# ``below`` of the probability is read again from crops cut ``shifts`` pixels aside and
# ``scales`` times as large, and its probabilities are averaged: a misreading that rests on
# how the crop happened to fall rarely survives the moves, a right reading does. (Measured:
# synthetic validation 1105 right / 28 wrong -> 1108 / 19, on two more seeds' 100 scenes
# 1088 / 32 -> 1091 / 26 and 1168 / 42 -> 1170 / 34; real photos over ten views 1846 / 42 ->
# 1850 / 38. Not for road photos, whose layout settles doubtful readings: of 180 rendered
# roads 127 read right without, 126 with. ``shifts`` and ``scales`` [] switch it off.)
# In a photo of few cards (under CROWDED), such a corner of a card up to ``far_max_width``
# wide is also read by the first far-card classifier (FAR_FILES), and its moved crops by both
# networks, the probabilities averaged. (Measured: real photos over ten views 1850 right / 38
# wrong -> 1856 / 33. The second far-card classifier too: 1853 / 32. In crowded photos too:
# synthetic validation 1108 / 19 -> 1114 / 18, but the benchmark's 30-card frames 6-12 ms
# slower, its hardest frame far more.) 0 switches it off.
JITTER_DEFAULTS = {
    "below": 0.9,
    "shifts": ((1, 1), (-1, -1)),
    "scales": (1.06, 0.94),
    "far_max_width": 90.0,
}
# In a photo of few cards, a card the detector scored surely (conf_threshold) but whose code
# reads under ``below`` is outlined again from the detector's finds at each of ``sizes``
# (scored ``floor`` or more, their boxes overlapping its visible box by 0.5): a partly covered
# card's outline differs from one input size to another, and one of them may show its index.
# A find replaces the outline when its refined outline overlaps it by ``same`` (the same card,
# not a neighbour) and its code reads with ``sure`` and more surely than before, unless
# it reads the code of another card it overlaps by TURN_SAME. (Measured: real photos over
# ten views 1856 right / 33 wrong -> 1870 / 34, synthetic validation the same; without
# ``sure`` 1877 / 35, without ``same`` too 1883 / 39.) ``sizes`` [] switches it off.
OTHER_SIZES_DEFAULTS = {"sizes": (416, 640), "below": 0.7, "floor": 0.1, "same": 0.7, "sure": 0.6}
# The detector score given to outlines proposed otherwise (bright quads, a video's last cards).
PROPOSAL_SCORE = 0.35
# A frame in which the detector finds this many cards shows a table from afar: its cards are
# small, and the passes that look for big cards (a close-up) find nothing more.
CROWDED = 10
# A photo of few cards is also looked at turned by each of TURNS degrees
# (Recognizer.detect_turned); a card found so that overlaps a card of its code found upright
# by TURN_SAME is that card again, and one overlapping any card found upright by TURN_APART
# is no card apart.
TURNS = (45.0,)  # 22.5°, 45° and 67.5° read more cards but more wrong ones (history)
TURN_SAME = 0.3
TURN_APART = 0.45


class ModelError(RuntimeError):
    """The shipped models are missing or unusable; the message says which file and why."""


# ---------------------------------------------------------------------------------------------
# Detector output
@dataclass(frozen=True)
class CardCandidates:
    """Cards found by the detector in one frame, before their codes are read.

    boxes: ``(n, 4)`` visible part, ``x1, y1, x2, y2`` in frame pixels.
    scores: ``(n,)`` detector confidence.
    quads: ``(n, 4, 2)`` card corners clockwise on screen (start arbitrary).
    corner_conf: ``(n, 4)`` the detector's confidence that each corner lies inside the frame.
    turned: ``(n,)`` found on the frame turned (:meth:`Recognizer.detect_turned`); None: none.
    """

    boxes: np.ndarray
    scores: np.ndarray
    quads: np.ndarray
    corner_conf: np.ndarray
    turned: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.scores)


CANDIDATE_FIELDS = ("boxes", "scores", "quads", "corner_conf")  # what the detector gives


def letterbox(frame: np.ndarray, long_side: int, stride: int = 32) -> tuple[np.ndarray, float]:
    """Return ``(1, 3, H, W)`` float32 RGB input (long side ``long_side``, padded right/bottom
    to a multiple of ``stride``) and the scale from frame to input pixels."""
    h, w = frame.shape[:2]
    scale = long_side / max(h, w)
    nw, nh = max(1, round(w * scale)), max(1, round(h * scale))
    # Bilinear, as Ultralytics' letterbox did for the training images (and 10× faster than
    # area averaging at a fractional scale).
    resized = cv2.resize(frame, (nw, nh), interpolation=cv2.INTER_LINEAR)
    pw, ph = -(-nw // stride) * stride, -(-nh // stride) * stride
    canvas = np.full((ph, pw, 3), 114, np.uint8)
    canvas[:nh, :nw] = resized
    return cv2.dnn.blobFromImage(canvas, 1 / 255.0, swapRB=True), scale


def decode_pose_output(
    output: np.ndarray,
    scale: float,
    conf_threshold: float = 0.3,
    iou_threshold: float = 0.6,
    max_cards: int = 300,
) -> CardCandidates:
    """Turn the raw ``(1, 5 + 12, N)`` pose output into card candidates in frame pixels.

    Rows are box centre x, y, width, height, card score, then x, y, in-frame score of each of
    the four corners, all in network-input pixels.
    """
    out = np.asarray(output, np.float32)
    if out.ndim != 3 or out.shape[1] != 17:
        raise ModelError(f"detector output has shape {out.shape}, expected (1, 17, N)")
    p = out[0].T
    p = p[p[:, 4] >= conf_threshold]
    if not len(p):
        z = np.zeros
        return CardCandidates(
            z((0, 4), np.float32), z(0, np.float32), z((0, 4, 2), np.float32), z((0, 4), np.float32)
        )
    xy, wh = p[:, 0:2], p[:, 2:4]
    boxes = np.concatenate([xy - wh / 2, xy + wh / 2], axis=1) / scale
    scores = p[:, 4]
    kpts = p[:, 5:17].reshape(-1, 4, 3)
    keep = nms(boxes, scores, iou_threshold)[:max_cards]
    quads, kconf = [], []
    for i in keep:
        pts = kpts[i, :, :2] / scale
        order = clockwise_order(pts)
        quads.append(complete_quad(pts[order], kpts[i, order, 2]))
        kconf.append(kpts[i, order, 2])
    return CardCandidates(
        boxes[keep].astype(np.float32),
        scores[keep].astype(np.float32),
        np.array(quads, np.float32).reshape(-1, 4, 2),
        np.array(kconf, np.float32).reshape(-1, 4),
    )


def bright_card_quads(
    frame: np.ndarray, work_side: int = 640, min_area: float = 0.004, max_area: float = 0.7
) -> np.ndarray:
    """Return ``(n, 4, 2)`` outlines of card-shaped bright regions (clockwise, frame pixels).

    A card's face is light and unsaturated: on a darker or more colourful background it is a
    bright convex four-sided blob with a card's proportions. These proposals cost a few
    milliseconds and find what a low-resolution detector misses in a close-up; each one
    must still read as a card code, or the classifier calls it background.
    ``min_area`` and ``max_area`` are shares of the picture.
    """
    h, w = frame.shape[:2]
    s = min(1.0, work_side / max(h, w))
    small = scaled(frame, s) if s < 1 else frame
    hsv = cv2.cvtColor(small, cv2.COLOR_BGR2HSV)
    light = np.clip(hsv[..., 2].astype(np.int16) - hsv[..., 1], 0, 255).astype(np.uint8)
    _, mask = cv2.threshold(light, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    area_px = small.shape[0] * small.shape[1]
    quads = []
    for c in contours:
        area = cv2.contourArea(c)
        if not min_area * area_px <= area <= max_area * area_px:
            continue
        hull = cv2.convexHull(c)
        if area < 0.85 * cv2.contourArea(hull):
            continue  # not convex: cards overlapping, or not a card
        poly = cv2.approxPolyDP(hull, 0.04 * cv2.arcLength(hull, True), True)
        if len(poly) != 4:
            continue
        q = order_clockwise(poly.reshape(4, 2).astype(np.float32) / s)
        e = np.linalg.norm(q[NEXT_CORNER] - q, axis=1)
        aspect = max(e[0] + e[2], e[1] + e[3]) / max(1e-6, min(e[0] + e[2], e[1] + e[3]))
        if 1.15 <= aspect <= 1.9 and quad_is_sane(q, 8.0):
            quads.append(q)
    return np.array(quads, np.float32).reshape(-1, 4, 2)


# ---------------------------------------------------------------------------------------------
# Classifier output
def read_cards(
    probs: np.ndarray,
    valid: np.ndarray,
    min_corner_conf: float = 0.5,
    weights: Sequence[float] | np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Choose each card's code and upright reading from its corner crops' class probabilities.

    probs: ``(n, h, 2, C)`` softmax over ``C`` classes (the last is background) for ``n`` cards,
        ``h`` readings (an outline with its top-left at quad corner 0 or 1), 2 index corners
        (top-left, bottom-right).
    valid: ``(n, h, 2)`` whether each crop may be used (its corner is in frame and not covered).
    weights: how much each crop slot counts (default 1 each); more slots than the two corners
        (a whole-card thumbnail) may follow them.

    Returns ``(code index (n,), confidence (n,), reading (n,), code probabilities (n, C-1))``:
    code index −1 where no corner shows an index with at least ``min_corner_conf`` of the
    probability; the probabilities are those of the chosen reading (zero where no crop counts).
    """
    probs = np.asarray(probs, np.float32)
    n = probs.shape[0]
    codes = probs[..., :-1]
    # A crop counts when its corner is usable and it shows some index, not background.
    usable = np.asarray(valid, bool) & (probs[..., -1] < 0.5)
    slot_w = np.ones(probs.shape[2], np.float32) if weights is None else np.asarray(weights)
    weight = (usable * slot_w).astype(np.float32)[..., None]
    count = usable.sum(axis=2)  # (n, h)
    mean = (codes * weight).sum(axis=2) / np.maximum(weight.sum(axis=2), 1e-6)  # (n, h, C-1)
    best = mean.max(axis=2)  # (n, h)
    best[count == 0] = 0.0
    reading = best.argmax(axis=1)
    rows = np.arange(n)
    conf = best[rows, reading]
    dist = mean[rows, reading]
    code = dist.argmax(axis=1)
    code[conf < min_corner_conf] = -1
    return code.astype(np.int64), conf.astype(np.float32), reading.astype(np.int64), dist


def readings(quad: np.ndarray, ratio: float = 1.2) -> tuple[int, ...]:
    """Return which readings of a clockwise quad to try: 0 (top edge q0→q1), 1 (q1→q2) or both.

    A card is about 1.4 times as tall as wide; only when the quad's side lengths say clearly
    which edges are the short ones is the other reading skipped (strong perspective can make
    a long edge look short, so then both are read).
    """
    q = np.asarray(quad, np.float32).reshape(4, 2)
    e = np.linalg.norm(q[NEXT_CORNER] - q, axis=1)
    a, b = e[0] + e[2], e[1] + e[3]
    if b > ratio * a:
        return (0,)
    if a > ratio * b:
        return (1,)
    return (0, 1)


def complete_quad(quad: np.ndarray, corner_conf: np.ndarray, min_conf: float = 0.3) -> np.ndarray:
    """Return the quad with one unsure corner (e.g. outside the frame) replaced by the
    parallelogram completion of the other three; other quads are returned unchanged."""
    q = np.asarray(quad, np.float32).reshape(4, 2).copy()
    unsure = np.flatnonzero(np.asarray(corner_conf) < min_conf)
    if len(unsure) == 1:
        k = int(unsure[0])
        q[k] = q[(k - 1) % 4] + q[(k + 1) % 4] - q[(k + 2) % 4]
    return q


def dedupe_cards(
    quads: np.ndarray, codes: Sequence[str], conf: np.ndarray, iou: float = 0.7
) -> np.ndarray:
    """Return indices that keep each physical card once.

    Two detections are one card only when their outlines overlap almost entirely *and* they read
    the same code; two cards of the same code elsewhere (several decks) both stay.
    """
    order = np.argsort(-np.asarray(conf), kind="stable")
    keep: list[int] = []
    for i in order:
        if all(codes[i] != codes[j] or polygon_iou(quads[i], quads[j]) < iou for j in keep):
            keep.append(int(i))
    return np.array(sorted(keep), np.int64)


def _turned_back(cand: CardCandidates, back: np.ndarray, w: int, h: int) -> CardCandidates:
    """Return candidates found on a turned frame in the frame's pixels (``back``: the 2×3
    map from the turned frame), each visible box the box of the part of its outline inside
    its turned-back box, within the ``w`` × ``h`` frame."""
    quads = cv2.transform(cand.quads.reshape(1, -1, 2), back).reshape(-1, 4, 2)
    diamonds = cv2.transform(box_corners(cand.boxes).reshape(1, -1, 2), back).reshape(-1, 4, 2)
    boxes = np.zeros((len(cand), 4), np.float32)
    for i, (diamond, quad) in enumerate(zip(diamonds, quads, strict=True)):
        area, part = cv2.intersectConvexConvex(diamond, order_clockwise(quad).astype(np.float32))
        pts = part.reshape(-1, 2) if area > 0 else diamond
        boxes[i] = *pts.min(axis=0), *pts.max(axis=0)
    boxes[:, 0::2] = boxes[:, 0::2].clip(0, w)
    boxes[:, 1::2] = boxes[:, 1::2].clip(0, h)
    return CardCandidates(boxes, cand.scores, quads.astype(np.float32), cand.corner_conf)


def _proposed(boxes: np.ndarray, quads: np.ndarray) -> CardCandidates:
    """Candidates proposed other than by the detector; scored below its sure finds, so NMS
    keeps the detector's where both saw a card."""
    n = len(quads)
    return CardCandidates(
        np.asarray(boxes, np.float32).reshape(n, 4),
        np.full(n, PROPOSAL_SCORE, np.float32),
        np.asarray(quads, np.float32).reshape(n, 4, 2),
        np.ones((n, 4), np.float32),
    )


# ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Recognition:
    """What the recognizer saw in one frame: the detections plus each card's visible box."""

    detections: Detections
    visible_boxes: np.ndarray = field(default_factory=lambda: np.zeros((0, 4), np.float32))
    # Per card, the probability of each code (the chosen reading's): what a
    # layout that holds each code once weighs when two cards read alike (vision.layouts.road).
    code_probs: np.ndarray = field(
        default_factory=lambda: np.zeros((0, len(CLASS_NAMES) - 1), np.float32)
    )
    code_names: tuple[str, ...] = CLASS_NAMES[:-1]  # the columns of code_probs
    # ``(m, 4, 2)`` outlines of cards the detector found surely but whose code read nothing
    # at the floor, apart from every card reported: a card is there, which one is not known
    # (a layout that knows which code is missing can name it: vision.layouts.road).
    unread: np.ndarray = field(default_factory=lambda: np.zeros((0, 4, 2), np.float32))
    # Per unread outline, what its crops said of each code (zero where they showed none):
    # too unsure to count alone, yet a layout weighing which card is which may use it.
    unread_probs: np.ndarray = field(
        default_factory=lambda: np.zeros((0, len(CLASS_NAMES) - 1), np.float32)
    )


SETTLED = 0.02  # an outline change under this share of the card's size changes no reading


class Recognizer:
    """Map a BGR frame to :class:`Detections` with the shipped ONNX models.

    Settings go to ``__init__``; call the object with a frame. ``model_dir`` defaults to the
    repository's ``models/``; ``threads`` caps onnxruntime's intra-op threads (default: all cores).
    """

    def __init__(
        self,
        model_dir: str | os.PathLike | None = None,
        *,
        threads: int | None = None,
        conf_threshold: float | None = None,
        detector_size: int | None = None,
    ) -> None:
        import onnxruntime as ort

        self.model_dir = Path(model_dir) if model_dir is not None else MODEL_DIR
        meta_path = self.model_dir / META_FILE
        if not self.model_dir.is_dir():  # a file given: not "card_detector.onnx is missing"
            why = "not a folder" if self.model_dir.exists() else "no such folder"
            raise ModelError(f"model folder {str(self.model_dir)!r}: {why} {GET_MODELS}")
        for name in (DETECTOR_FILE, CLASSIFIER_FILE, META_FILE):
            if not (self.model_dir / name).is_file():
                raise ModelError(
                    f"model file {str(self.model_dir / name)!r} is missing {GET_MODELS}"
                )
        try:
            self.meta = json.loads(meta_path.read_text())
        except (OSError, ValueError) as e:
            raise ModelError(f"cannot read {str(meta_path)!r}: {e}") from e
        try:
            self._read_settings(conf_threshold, detector_size)
        except (AttributeError, TypeError, ValueError, KeyError, IndexError) as e:
            # recognizer.json hand-edited or copied from elsewhere: a list, a size "abc"
            why = f"no {e}" if isinstance(e, KeyError) else str(e)
            raise ModelError(f"{meta_path}: not a recognizer's settings ({why})") from None

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = int(threads or os.cpu_count() or 1)
        opts.inter_op_num_threads = 1
        opts.log_severity_level = 3
        if not int8_is_exact():
            # The int8 weights are then multiplied as floats (slower, but right).
            opts.add_session_config_entry("session.disable_quant_qdq", "1")
        # Four sessions run one after another on few cores: a pool that spins waiting for
        # work after its run takes the cores from the next session's threads (on two cores
        # that doubled the whole path's time), so the threads spin between the operators of
        # a run (a fifth faster than sleeping) and stop when it returns.
        opts.add_session_config_entry("session.intra_op.allow_spinning", "1")
        opts.add_session_config_entry("session.force_spinning_stop", "1")

        def session(path: Path) -> Any:
            # every network runs on the CPU with the options above
            return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])

        try:
            self.detector = session(self.model_dir / DETECTOR_FILE)
            self.classifier = session(self.model_dir / CLASSIFIER_FILE)
            # Optional: without it the detector's own (rough) corners are used.
            refiner = self.model_dir / REFINER_FILE
            self.refiner = (
                session(refiner) if refiner.is_file() and self.refiner_passes > 0 else None
            )
            # Optional too: without it small cards are read by their index corners alone.
            thumbs = self.model_dir / THUMBS_FILE
            self.thumbs = session(thumbs) if thumbs.is_file() and self.thumb_weight > 0 else None
            # Optional: read a road photo's small cards (``recognize(far=True)``).
            far = (self.model_dir / name for name in FAR_FILES)
            self.far_classifiers = tuple(session(p) for p in far if p.is_file())
        except Exception as e:  # onnxruntime raises its own exception types
            raise ModelError(f"cannot load the models in {str(self.model_dir)!r}: {e}") from e
        self._det_input = self.detector.get_inputs()[0].name
        # A photo's unsure small corners: the first far-card classifier read them best.
        self.jitter_far = self.far_classifiers[:1]

    def _read_settings(self, conf_threshold: float | None, detector_size: int | None) -> None:
        """Take the settings in ``self.meta`` (recognizer.json), each over its default."""
        if not isinstance(self.meta, dict):
            raise TypeError(f"an object of settings, not a {type(self.meta).__name__}")
        self.class_names = tuple(self.meta.get("classes", CLASS_NAMES))
        if not self.class_names or self.class_names[-1] != BACKGROUND:
            raise ValueError(f"the last class must be {BACKGROUND!r}")
        crop = self.meta.get("crop", {})
        self.spec = CropSpec(
            tuple(crop.get("region", CropSpec.region)), tuple(crop.get("size", CropSpec.size))
        )
        self.detector_size = int(detector_size or self.meta.get("detector_size", 640))
        self.extra_sizes = tuple(int(v) for v in self.meta.get("extra_sizes", ()))
        self.conf_threshold = float(
            conf_threshold if conf_threshold is not None else self.meta.get("conf_threshold", 0.3)
        )
        self.extra_conf_threshold = float(
            self.meta.get("extra_conf_threshold", self.conf_threshold)
        )
        self.nms_iou = float(self.meta.get("nms_iou", 0.6))
        self.min_code_conf = float(self.meta.get("min_code_conf", 0.5))
        # A card is reported only when its confidence (√(detector score × code probability))
        # says it is at least as likely right as wrong (measured on tuning scenes).
        self.min_confidence = float(self.meta.get("min_confidence", 0.0))
        self.reading_ratio = float(self.meta.get("reading_ratio", 1.2))
        self.refiner_passes = int(self.meta.get("refiner_passes", 2))
        thumb = {**THUMB_DEFAULTS, **self.meta.get("thumbs", {})}
        self.thumb_max_width = float(thumb["max_width"])
        self.thumb_weight = float(thumb["weight"])
        self.thumb_video_weight = float(thumb["video_weight"])
        self.thumb_below = float(thumb["below"])
        # A far photo's (a road's) cards up to far_max_width wide are read whole up to this
        # surety of their corners: their index is a few blurred pixels, pips and pictures not.
        self.far_thumb_below = float(thumb["far_below"])
        self.far_thumb_max_width = float(thumb["far_max_width"])
        self.far_max_width = float(self.meta.get("far_max_width", self.thumb_max_width))
        self.bright_quads = bool(self.meta.get("bright_quads", True))
        self.turned_pass = bool(self.meta.get("turned_pass", True))
        reseat = {**RESEAT_DEFAULTS, **self.meta.get("reseat", {})}
        self.reseat_turns = tuple(float(t) for t in reseat["turns"])
        self.reseat_below = float(reseat["below"])
        self.reseat_above = float(reseat["above"])
        self.reseat_most = int(reseat["most"])
        jitter = {**JITTER_DEFAULTS, **self.meta.get("jitter", {})}
        self.jitter_below = float(jitter["below"])
        self.jitter_moves = crop_moves(self.spec, jitter["shifts"], jitter["scales"])
        self.jitter_far_max_width = float(jitter["far_max_width"])
        other = {**OTHER_SIZES_DEFAULTS, **self.meta.get("other_sizes", {})}
        self.other_sizes = tuple(int(size) for size in other["sizes"])
        self.other_below = float(other["below"])
        self.other_floor = float(other["floor"])
        self.other_same = float(other["same"])
        self.other_sure = float(other["sure"])
        weak = {**WEAK_DEFAULTS, **self.meta.get("weak_cards", {})}
        self.weak_detector = float(weak["detector"])
        self.weak_code = float(weak["code"])

    # -- stages ----------------------------------------------------------------------------
    def find_cards(
        self,
        frame: np.ndarray,
        sizes: Sequence[int] = (),
        proposals: Recognition | None = None,
        extra: bool | None = None,
        region: Sequence[int] | None = None,
        floor: float | None = None,
        outline_nms: bool = False,
        turned: bool = False,
    ) -> CardCandidates:
        """Run the detector: card outlines and visible boxes, codes not yet read.

        Besides the main input size the detector also runs at each of ``extra_sizes`` (smaller),
        which find large cards, as in a close-up or a small photo, keeping their finds scored
        ``extra_conf_threshold`` or more (``extra``: True always, False never, None unless the
        main size found ``CROWDED`` cards or more: a table seen from afar), and at each of
        ``sizes``. ``proposals`` (say, the cards of a video's last frame) are read as well.
        ``floor``: the lowest detector score kept at the main size and at ``sizes`` (default
        ``conf_threshold``). With ``outline_nms`` a find from one pass suppresses another's only
        where their outlines overlap too (:func:`nms_outlines`): in a road photo's tight rows of
        turned cards one pass may draw an outline across two cards, whose box covers a card's.
        ``turned``: unless the main size found ``CROWDED`` cards or more, the detector also runs
        on the frame turned by each of ``TURNS`` (:meth:`detect_turned`).
        """
        parts = [self.detect_at(frame, self.detector_size, floor, region=region)]
        few = len(parts[0]) < CROWDED
        if extra is None:
            extra = few
        turn = self.detect_turned(frame, self.detector_size, floor) if turned and few else None
        parts += [self.detect_at(frame, size, floor) for size in sizes]
        if extra:
            parts += [
                self.detect_at(frame, size, self.extra_conf_threshold) for size in self.extra_sizes
            ]
        if self.bright_quads:
            quads = bright_card_quads(frame)
            boxes = np.concatenate([quads.min(axis=1), quads.max(axis=1)], axis=1)
            parts.append(_proposed(boxes, quads))
        if proposals is not None and len(proposals.detections):
            parts.append(_proposed(proposals.visible_boxes, proposals.detections.corners))
        if turn is not None:
            parts.append(turn)
        if len(parts) == 1:
            return parts[0]
        boxes = np.concatenate([p.boxes for p in parts])
        scores = np.concatenate([p.scores for p in parts])
        quads = np.concatenate([p.quads for p in parts])
        from_turn = np.concatenate([np.full(len(p), p is turn) for p in parts])
        upright = np.flatnonzero(~from_turn)
        if outline_nms:
            keep = upright[
                nms_outlines(boxes[upright], quads[upright], scores[upright], self.nms_iou)
            ]
        else:
            keep = upright[nms(boxes[upright], scores[upright], self.nms_iou)]
        if turn is not None:
            # What the frame shows upright is kept: a turned find only adds a card, where
            # its outline too differs from every one kept (a fanned pair's lower card).
            both = np.concatenate([keep, np.flatnonzero(from_turn)])
            rank = scores[both] + (~from_turn[both])
            keep = both[nms_outlines(boxes[both], quads[both], rank, self.nms_iou)]
        return CardCandidates(
            boxes[keep],
            scores[keep],
            quads[keep],
            np.concatenate([p.corner_conf for p in parts])[keep],
            from_turn[keep] if turn is not None else None,
        )

    def detect_turned(
        self, frame: np.ndarray, size: int, conf_threshold: float | None = None
    ) -> CardCandidates:
        """Run the detector on the frame turned by each of ``TURNS`` (on a canvas that holds
        all of it), its finds turned back.

        The detector learnt real photos from their upright boxes: on the test photos turned
        45° it found a fanned pair's lower card far less often (recall 0.94 → 0.81). Turned,
        such a card lies upright again. A find's visible box is the box of the part of its
        card's outline inside its turned-back box.
        """
        h, w = frame.shape[:2]
        parts = []
        for degrees in TURNS:
            # Turned at the detector's scale (area-averaged): turning a phone's 12 MP photo
            # whole took 130 ms, and the detector sees it at ``size`` anyway.
            cos, sin = abs(np.cos(np.deg2rad(degrees))), abs(np.sin(np.deg2rad(degrees)))
            scale = min(1.0, size / max(h * sin + w * cos, h * cos + w * sin))
            small = frame
            if scale < 1.0:
                small = scaled(frame, scale)
            sh, sw = small.shape[:2]
            m, canvas = turning(sw, sh, degrees)
            # The canvas continues the photo's edges (on 1430 test cards a black one read 2
            # more wrong, among them a sock at the photo's corner read 10♣).
            turned = cv2.warpAffine(small, m, canvas, borderMode=cv2.BORDER_REPLICATE)
            cand = self.detect_at(turned, size, conf_threshold)
            if len(cand):
                back = cv2.invertAffineTransform(m) / np.array([[sw / w], [sh / h]])
                parts.append(_turned_back(cand, back, w, h))
        if not parts:
            return _proposed(np.zeros((0, 4)), np.zeros((0, 4, 2)))
        return CardCandidates(
            *(np.concatenate([getattr(p, k) for p in parts]) for k in CANDIDATE_FIELDS)
        )

    def detect_at(
        self,
        frame: np.ndarray,
        size: int,
        conf_threshold: float | None = None,
        region: Sequence[int] | None = None,
    ) -> CardCandidates:
        """Run the detector once, on the frame letterboxed to long side ``size``; keep finds
        scored ``conf_threshold`` (default: the main pass's) or more. With ``region``
        (``x1, y1, x2, y2``) it looks at that part of the frame alone, scaled to ``size``."""
        x0 = y0 = 0
        if region is not None:
            x0, y0, x1, y1 = (int(v) for v in region)
            frame = frame[y0:y1, x0:x1]
        blob, scale = letterbox(frame, size)
        (out,) = self.detector.run(None, {self._det_input: blob})[:1]
        floor = self.conf_threshold if conf_threshold is None else conf_threshold
        cand = decode_pose_output(out, scale, floor, self.nms_iou)
        if x0 or y0:
            cand.boxes[:] += np.array([x0, y0, x0, y0], np.float32)
            cand.quads[:] += np.array([x0, y0], np.float32)
        return cand

    def refine_outlines(self, frame: np.ndarray | Pyramid, quads: np.ndarray) -> np.ndarray:
        """Return the ``(n, 4, 2)`` outlines moved onto the cards' edges by the refiner (each
        pass starts from the last one's answer); corner k stays corner k."""
        if self.refiner is None or not len(quads):
            return quads
        name = self.refiner.get_inputs()[0].name
        quads = np.array(quads, np.float32)  # a copy, moved in place
        busy = np.ones(len(quads), bool)  # outlines still moving
        for _ in range(self.refiner_passes):
            if not busy.any():
                break
            prev = quads[busy]
            patches = cut_patches(frame, prev)
            x = np.ascontiguousarray(patches.transpose(0, 3, 1, 2), np.float32) / 255.0
            (off,) = self.refiner.run(None, {name: x})[:1]
            moved = apply_offsets(prev, off)
            # A pass that folds an outline (a confused patch) keeps the previous one.
            ok = quads_are_sane(moved, 3.0)
            moved = np.where(ok[:, None, None], moved, prev)
            # An outline that moved under SETTLED of its size is where it will stay.
            step = np.abs(moved - prev).max(axis=(1, 2)) / card_widths(moved)
            quads[busy] = moved
            busy[np.flatnonzero(busy)[step < SETTLED]] = False
        return quads

    def read_outlines(
        self,
        frame: np.ndarray | Pyramid,
        outlines: np.ndarray,
        boxes: np.ndarray,
        corner_conf: np.ndarray,
        code_floor: float,
        agreed_only: bool = False,
        other_way: str | None = None,
        thumb_weight: float | None = None,
        far: bool = False,
        jitter: bool = False,
        jitter_far: bool = False,
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Read each card's code from its outline: its index corners, and a small card whole
        where they read unsurely (with ``agreed_only``, only where both corners read one code;
        the whole card counts ``thumb_weight`` corners, default the photo's weight).
        With ``other_way``, a card whose sides allowed one reading only, and which shows no
        index so, is read the other way round too, and that reading counts when both index
        corners read the card's code (``"agreed"``); with ``"any"``, a card that reads
        nothing surely is read the other way too, and that reading always counts. With
        ``far`` (and far-card classifiers in the models), the index corners of cards up to
        ``far_max_width`` wide are read by them (the mean of their probabilities), and small
        cards are read whole below the corners' surety ``far_thumb_below``. With ``jitter``,
        each index corner that reads unsurely (no class at ``jitter_below``) is read again
        from crops moved by ``jitter_moves``, and its probabilities averaged; with
        ``jitter_far`` too, on a card up to ``jitter_far_max_width`` wide the networks of
        ``self.jitter_far`` read it as well, and they and the corner classifier its moved crops.

        ``boxes``: where each card shows (a corner outside it is covered); ``corner_conf``:
        the detector's confidence in each outline corner. Returns ``(code index, confidence,
        reading, code probabilities, corners agree)``: as :func:`read_cards`, and whether both
        index corners were read and read the card's code.
        """
        pyr = frame if isinstance(frame, Pyramid) else Pyramid(frame)
        h, w = pyr.level(0).shape[:2]
        n = len(outlines)
        nh = 2  # hypotheses: the two readings of the card's outline
        slots = 3 if self.thumbs is not None else 2  # two index corners, a small card whole
        valid = np.zeros((n, nh, slots), bool)
        matrices = np.zeros((n, nh, slots, 3, 3))
        tried = [readings(quad, self.reading_ratio) for quad in outlines]

        def aim(i: int, r: int) -> None:
            """Place reading ``r``'s two index-corner crops of card ``i``."""
            box = boxes[i]
            pad = 0.08 * max(box[2] - box[0], box[3] - box[1])
            turn = (np.arange(4) + r) % 4  # corner r first
            q, kc = outlines[i][turn], corner_conf[i][turn]
            for k, corner in enumerate((0, 2)):
                x, y = q[corner]
                inside = -2 <= x <= w + 2 and -2 <= y <= h + 2
                # A corner outside the visible box is covered: its crop shows another card.
                seen = (box[0] - pad <= x <= box[2] + pad) and (box[1] - pad <= y <= box[3] + pad)
                valid[i, r, k] = inside and seen and kc[corner] >= 0.3
                if valid[i, r, k]:
                    matrices[i, r, k] = corner_crop_matrix(q, corner, self.spec)

        for i in range(n):
            for r in tried[i]:
                aim(i, r)
        probs = np.zeros((n, nh, slots, len(self.class_names)), np.float32)
        probs[..., -1] = 1.0

        widths = card_widths(outlines) if far and n else np.zeros(n)
        far_rows = np.zeros(n, bool)
        if far and self.far_classifiers:
            far_rows = widths <= self.far_max_width

        def read_index_crops(
            cuts: np.ndarray, far_cut: np.ndarray, mixed_cut: np.ndarray | None = None
        ) -> np.ndarray:
            """Probabilities of the index-corner crops ``cuts`` (crop matrices): those of far
            cards (``far_cut``) read by the far-card classifiers, those in ``mixed_cut`` by the
            corner classifier and ``self.jitter_far`` (the mean), the rest by the corner
            classifier; one call per network (a call's overhead is a few crops')."""
            crops = warp_many(pyr, cuts, self.spec.size)
            read = np.empty((len(cuts), len(self.class_names)), np.float32)
            if mixed_cut is None:
                mixed_cut = np.zeros_like(far_cut)
            for these, session in (
                (~far_cut & ~mixed_cut, self.classifier),
                (far_cut, self.far_classifiers),
                (mixed_cut, (self.classifier, *self.jitter_far)),
            ):
                if these.any():
                    read[these] = self.classify_crops(crops[these], session)
            return read

        def read_corners(use: np.ndarray) -> None:
            use = use.copy()
            use[:, :, 2:] = False
            if use.any():
                probs[use] = read_index_crops(matrices[use], far_rows[np.nonzero(use)[0]])

        read_corners(valid)
        code_idx, code_conf, hyp, dist = read_cards(probs[:, :, :2], valid[:, :, :2], code_floor)
        rows = np.arange(n)

        def corners_agree() -> np.ndarray:
            top = probs[rows, hyp, :2, :-1].argmax(axis=-1)  # (n, 2): each corner's code
            both = valid[rows, hyp, 0] & valid[rows, hyp, 1]
            return both & (top == code_idx[:, None]).all(axis=1)

        # A tilted camera can make a card's long edges look the short ones: where the one
        # reading its sides allowed shows no index (or, with "any", reads nothing surely),
        # the card is read both ways. Read so, an outline drawn round two cards can read as
        # one, each corner showing another card; where both corners read one code, it is the
        # card turned.
        if other_way == "any":
            unread = np.flatnonzero(code_conf < self.min_code_conf)
        elif other_way:
            unread = np.flatnonzero(code_conf == 0)
        else:
            unread = np.zeros(0, np.int64)
        again = {int(i): tried[i][0] for i in unread if len(tried[i]) == 1}
        if again:
            before = valid.copy()
            for i, first in again.items():
                aim(i, 1 - first)
                tried[i] = (0, 1)
            read_corners(valid & ~before)
            code_idx, code_conf, hyp, dist = read_cards(
                probs[:, :, :2], valid[:, :, :2], code_floor
            )
            agree = corners_agree()
            dropped = [i for i in again if not agree[i]] if other_way != "any" else []
            for i in dropped:
                valid[i, 1 - again[i]] = False
                tried[i] = (again[i],)
            if dropped:
                code_idx, code_conf, hyp, dist = read_cards(
                    probs[:, :, :2], valid[:, :, :2], code_floor
                )

        if jitter and self.jitter_moves:
            # Each unsure index-corner crop (one read surely, as a code or as background, is
            # left) is cut again moved, every move in one call per network. On a small card
            # in a photo of few cards (jitter_far) a far-card classifier reads it too.
            def unsure_corners() -> np.ndarray:
                sel = valid & (probs.max(axis=-1) < self.jitter_below)
                sel[:, :, 2:] = False
                return sel

            sel = unsure_corners()
            small = np.zeros(n, bool)
            if jitter_far and self.jitter_far and n:
                small = (card_widths(outlines) <= self.jitter_far_max_width) & ~far_rows
            twice = sel & small[:, None, None]
            if twice.any():
                nets = len(self.jitter_far)
                crops = warp_many(pyr, matrices[twice], self.spec.size)
                far_read = self.classify_crops(crops, self.jitter_far)
                probs[twice] = (probs[twice] + nets * far_read) / (1 + nets)
                sel = unsure_corners()
            if sel.any():
                moves = len(self.jitter_moves)
                # A matrix maps crop pixels to the frame's: the move comes first.
                cuts = np.concatenate([matrices[sel] @ move for move in self.jitter_moves])
                owner = np.nonzero(sel)[0]  # each crop's card
                far_cut, mixed_cut = np.tile(far_rows[owner], moves), np.tile(small[owner], moves)
                moved = read_index_crops(cuts, far_cut, mixed_cut)
                moved = moved.reshape(moves, -1, len(self.class_names))
                probs[sel] = (probs[sel] + moved.sum(axis=0)) / (1 + moves)
            if twice.any() or sel.any():
                code_idx, code_conf, hyp, dist = read_cards(
                    probs[:, :, :2], valid[:, :, :2], code_floor
                )

        if slots == 3:
            # A small card whose index corners read unsurely is also read whole. Cards read
            # surely by their corners keep that reading: the corners are the better witness.
            unsure = code_conf < self.thumb_below
            if far:
                unsure |= (widths <= self.far_thumb_max_width) & (code_conf < self.far_thumb_below)
            if agreed_only:
                unsure &= corners_agree()
            for i in np.flatnonzero(unsure).tolist():
                for r in tried[i]:
                    q = np.roll(outlines[i], -r, axis=0)
                    if self._thumb_fits(q, w, h):
                        valid[i, r, 2] = True
                        matrices[i, r, 2] = corner_crop_matrix(q, 0, THUMB_SPEC)
            use = valid[:, :, 2]
            if use.any():
                crops = warp_many(pyr, matrices[:, :, 2][use], THUMB_SPEC.size)
                probs[:, :, 2][use] = self.classify_crops(crops, self.thumbs)
                both = read_cards(
                    probs,
                    valid & unsure[:, None, None],
                    code_floor,
                    [1.0, 1.0, self.thumb_weight if thumb_weight is None else thumb_weight],
                )
                # numpy's stubs: any() over an axis may be one bool (not of this 2-D array)
                redo: np.ndarray = use.any(axis=1)  # type: ignore[assignment]
                code_idx, code_conf, hyp = (
                    np.where(redo, b, a)
                    for a, b in zip((code_idx, code_conf, hyp), both[:3], strict=True)
                )
                dist = np.where(redo[:, None], both[3], dist)
        return code_idx, code_conf, hyp, dist, corners_agree()

    def _reseat(
        self,
        pyr,
        outlines,
        boxes,
        code_floor,
        read,
        strong,
        unread=False,
        thumb_weight=None,
        far=False,
        jitter=False,
        jitter_far=False,
    ):
        """Start the outlines of unsurely read cards again, turned and a little smaller, and
        keep a start the refiner moves onto a card that reads surely.

        The detector draws the outline of a messy pile (a discard pile's cards turned every
        which way) round the whole pile, and the refiner cannot turn it onto the top card:
        its index corners then show parts of other cards. Turned by up to 30°, the refiner
        finds the top card's own edges. A start counts only when both index corners read
        the code (a lower card's peeking index is one corner), and reads it more surely.
        With ``unread``, every outline that reads nothing is started again too. Only the
        outlines marked ``strong`` (the detector's own finds) are started again. ``jitter``,
        ``jitter_far``: as :meth:`read_outlines`.
        """
        code_idx, code_conf, hyp, dist = (np.array(a) for a in read)
        unsure = np.flatnonzero(
            strong & (code_conf < self.reseat_below) & (code_conf >= self.reseat_above)
        )[: self.reseat_most]
        if unread:
            unsure = np.union1d(unsure, np.flatnonzero(strong & (code_conf < self.reseat_above)))
        if not len(unsure):
            return outlines, (code_idx, code_conf, hyp, dist)
        starts = np.concatenate(
            [turned_quads(outlines[unsure], t, RESEAT_SCALE) for t in self.reseat_turns]
        )
        k = len(unsure)
        owner = np.tile(unsure, len(self.reseat_turns))
        # A start counts only when its corners agree: only those are worth reading whole.
        starts, (a_idx, a_conf, a_hyp, a_dist, agree) = self._read_starts(
            pyr,
            starts,
            boxes[owner],
            code_floor,
            agreed_only=True,
            thumb_weight=thumb_weight,
            far=far,
            jitter=jitter,
            jitter_far=jitter_far,
        )
        a_conf = np.where(agree & (a_idx >= 0), a_conf, 0.0).reshape(-1, k)
        best = a_conf.argmax(axis=0)
        outlines = outlines.copy()
        for j, i in enumerate(unsure):
            m = best[j] * k + j
            if a_conf[best[j], j] > code_conf[i]:
                outlines[i] = starts[m]
                code_idx[i], code_conf[i], hyp[i] = a_idx[m], a_conf[best[j], j], a_hyp[m]
                dist[i] = a_dist[m]
        return outlines, (code_idx, code_conf, hyp, dist)

    def _read_starts(self, pyr, quads, boxes, code_floor, **read):
        """Return outlines started anew (``(n, 4, 2)``), moved onto the cards' edges by the
        refiner, and :meth:`read_outlines`' readings of them (each corner taken as sure)."""
        starts = self.refine_outlines(pyr, quads)
        corners = np.ones((len(starts), 4), np.float32)
        return starts, self.read_outlines(pyr, starts, boxes, corners, code_floor, **read)

    def _outline_again(self, frame, pyr, outlines, boxes, code_floor, read, strong, thumb_weight):
        """Outline the surely found but unsurely read cards of a photo of few cards again from
        the detector's finds at ``other_sizes`` (see ``OTHER_SIZES_DEFAULTS``); return the
        outlines and readings, each replaced where such a find reads the card better."""
        code_idx, code_conf, hyp, dist = (np.array(a) for a in read)
        unsure = np.flatnonzero(strong & (code_conf < self.other_below))
        if not len(unsure):
            return outlines, read
        finds = [self.detect_at(frame, size, self.other_floor) for size in self.other_sizes]
        find_boxes = np.concatenate([f.boxes for f in finds])
        overlap = box_iou(boxes[unsure], find_boxes) >= 0.5
        pairs = [(i, j) for k, i in enumerate(unsure) for j in np.flatnonzero(overlap[k])]
        if not pairs:
            return outlines, read
        owner = np.array([i for i, _ in pairs])
        quads = np.concatenate([f.quads for f in finds])[[j for _, j in pairs]]
        starts, (a_idx, a_conf, a_hyp, a_dist, _) = self._read_starts(
            pyr,
            quads,
            boxes[owner],
            code_floor,
            other_way="agreed",
            thumb_weight=thumb_weight,
            jitter=True,
            jitter_far=True,
        )
        outlines = outlines.copy()
        for k, i in enumerate(owner):
            same = polygon_iou(starts[k], outlines[i]) >= self.other_same
            surer = a_conf[k] >= self.other_sure and a_conf[k] > code_conf[i]
            # An outline reading the code of another card it overlaps is that card again
            # (a fanned pair outlined as one card).
            twin = any(
                polygon_iou(starts[k], outlines[m]) >= TURN_SAME
                for m in np.flatnonzero(strong & (code_idx == a_idx[k]))
                if m != i
            )
            if same and surer and not twin and a_idx[k] >= 0:
                outlines[i] = starts[k]
                code_idx[i], code_conf[i] = a_idx[k], a_conf[k]
                hyp[i], dist[i] = a_hyp[k], a_dist[k]
        return outlines, (code_idx, code_conf, hyp, dist)

    def _thumb_fits(self, quad: np.ndarray, w: int, h: int) -> bool:
        """Return whether a card is small enough to be read whole, and wholly in the frame."""
        inside = (quad >= -2).all() and (quad[:, 0] <= w + 2).all() and (quad[:, 1] <= h + 2).all()
        return bool(inside and card_widths(quad[None])[0] <= self.thumb_max_width)

    def classify_crops(self, crops: np.ndarray, session: Any = None) -> np.ndarray:
        """Return ``(n, C)`` class probabilities for ``(n, h, w, 3)`` BGR uint8 crops, read by
        the corner classifier (or another ``session`` with the same input and classes, or the
        mean of a tuple of such sessions)."""
        if not len(crops):
            return np.zeros((0, len(self.class_names)), np.float32)
        if not session:  # None or no sessions: the corner classifier
            session = self.classifier
        sessions = session if isinstance(session, tuple) else (session,)
        x = np.ascontiguousarray(crops.astype(np.float32).transpose(0, 3, 1, 2) / 255.0)
        probs = []
        for net in sessions:
            (logits,) = net.run(None, {net.get_inputs()[0].name: x})[:1]
            e = np.exp(logits - logits.max(axis=1, keepdims=True))
            probs.append(e / e.sum(axis=1, keepdims=True))
        return np.mean(probs, axis=0)

    def recognize(
        self,
        frame: np.ndarray,
        min_confidence: float | None = None,
        *,
        sizes: Sequence[int] = (),
        proposals: Recognition | None = None,
        extra: bool | None = None,
        region: Sequence[int] | None = None,
        retry_unread: bool = False,
        video: bool = False,
        far: bool = False,
    ) -> Recognition:
        """Return the detections and visible boxes of the cards in a BGR ``frame``.

        A card is left out when its confidence, or its code's probability, is below
        ``min_confidence`` (default: the floors tuned for single photos, under which a card
        the detector scores weakly still counts when its code reads surely: ``WEAK_DEFAULTS``).
        ``sizes``, ``proposals`` and ``extra`` go to :meth:`find_cards`; a photo read at the
        default floors is also looked at turned when it shows few cards (``turned_pass``,
        :meth:`detect_turned`), and its unsure index corners are read again from moved crops
        (``jitter_moves``, see :meth:`read_outlines`), when it shows few cards a small card's
        also by a far-card classifier (``jitter_far``). Outside a video, an outline that shows
        no index is read the other way round too (a tilted camera can make
        a card's long sides look short), and counts when both its index corners read one code
        (in a video, a Skip-Bo discard fan's outline read so became a card that was not
        there, and a card is seen in many frames anyway). ``retry_unread`` counts it however
        it reads, and starts every outline that reads nothing again (a detector's outline of
        a card turned 45° is often square): for a photo read once, where time matters less
        than each card and a layout settles doubtful readings (a Stigespill road).
        ``video``: the frame is one of a video's, whose cards
        are seen many times: a small card read whole counts as fewer corners (``thumbs``'
        ``video_weight``). ``far``: a photo of cards laid out far from the camera (a road):
        small cards' corners are read by the far-card classifiers, where the models have them,
        and small cards are read whole unless their corners read almost surely
        (``thumbs``' ``far_below``); the detector's passes are merged by outline
        (``find_cards``' ``outline_nms``), and an outline it scores weakly counts when its code
        reads surely, as in a photo read at the default floors.
        """
        photo = min_confidence is None
        floor, code_floor = (
            (self.min_confidence, self.min_code_conf)
            if min_confidence is None
            else (float(min_confidence),) * 2
        )
        frame = _as_bgr(frame)
        # A road photo is read once too, and its layout settles doubtful readings.
        weak = photo or far
        weakest = min(self.weak_detector, self.conf_threshold) if weak else None
        # A photo of few cards is looked at turned too (find_cards); a video sees its cards
        # turned as the hand lays them, frame after frame.
        cand = self.find_cards(
            frame,
            sizes,
            proposals,
            extra,
            region,
            weakest,
            outline_nms=far,
            turned=photo and self.turned_pass,
        )
        n = len(cand)
        if n == 0:
            return Recognition(Detections.empty())
        pyr = Pyramid(frame)
        outlines = self.refine_outlines(pyr, cand.quads)
        thumb_weight = self.thumb_video_weight if video else self.thumb_weight
        # A weakly detected outline (a photo's) counts only when it reads surely as it is.
        strong = cand.scores >= self.conf_threshold
        # A photo of few cards affords reading its unsure cards more ways.
        few = photo and int(strong.sum()) < CROWDED
        read = self.read_outlines(
            pyr,
            outlines,
            cand.boxes,
            cand.corner_conf,
            code_floor,
            other_way="any" if retry_unread else (None if video else "agreed"),
            thumb_weight=thumb_weight,
            far=far,
            jitter=photo,
            jitter_far=few,
        )[:4]
        if few and self.other_sizes:
            outlines, read = self._outline_again(
                frame, pyr, outlines, cand.boxes, code_floor, read, strong, thumb_weight
            )
        if self.reseat_turns:
            outlines, read = self._reseat(
                pyr,
                outlines,
                cand.boxes,
                code_floor,
                read,
                strong,
                retry_unread,
                thumb_weight,
                far,
                photo,
                few,
            )
        code_idx, code_conf, hyp, dist = read
        card_conf = np.sqrt(code_conf * cand.scores)
        found = strong & (card_conf >= floor)
        if weak:
            sure = (code_conf >= self.weak_code) & ~found & (code_idx >= 0)
            # A card found on the turned frame is not one found upright (see turned_twins).
            upright = ~cand.turned if cand.turned is not None else np.ones(n, bool)
            for i in np.flatnonzero(sure):
                # An outline over part of a card found with its code is that card again.
                twins = np.flatnonzero(found & upright & (code_idx == code_idx[i]))
                sure[i] = all(polygon_iou(outlines[i], outlines[j]) < WEAK_APART for j in twins)
            # Such a card is right about as often as a card at the floor: it is reported at it.
            card_conf = np.where(sure, np.maximum(card_conf, floor), card_conf)
            found |= sure
        read_ok = (code_idx >= 0) & found
        ok = np.flatnonzero(read_ok)

        def with_unread(rec: Recognition) -> Recognition:
            # The outlines found surely but not read, apart from the cards and each other.
            unread = np.flatnonzero(strong & ~read_ok)
            unread = unread[_apart(outlines[unread], rec.detections.corners)]
            return replace(
                rec, unread=outlines[unread].astype(np.float32), unread_probs=dist[unread]
            )

        if not len(ok):
            return with_unread(Recognition(Detections.empty()))
        quads = np.stack([np.roll(outlines[i], -int(hyp[i]), axis=0) for i in ok])
        quads = quads.astype(np.float32)
        codes = [self.class_names[int(code_idx[i])] for i in ok]
        conf = card_conf[ok]
        keep = np.arange(len(ok))
        if cand.turned is not None:  # the upright finding of a card, not the turned one
            keep = np.flatnonzero(~turned_twins(quads, codes, cand.turned[ok]))
        keep = keep[dedupe_cards(quads[keep], [codes[i] for i in keep], conf[keep])]
        det = Detections(quads[keep], tuple(codes[i] for i in keep), conf[keep])
        boxes = cand.boxes[ok][keep]
        if cand.turned is not None and cand.turned[ok][keep].any():
            boxes = boxes.copy()
            for i in np.flatnonzero(cand.turned[ok][keep]):
                others = [det.corners[j] for j in range(len(det)) if j != i]
                boxes[i] = visible_box(det.corners[i], others, frame.shape)
        return with_unread(Recognition(det, boxes, dist[ok][keep], self.class_names[:-1]))

    def __call__(self, frame: np.ndarray) -> Detections:
        """Return the cards in a BGR ``frame``."""
        return self.recognize(frame).detections


def turned_twins(quads: np.ndarray, codes: Sequence[str], turned: np.ndarray) -> np.ndarray:
    """Return which cards found on the turned frame overlap a card found upright by
    ``TURN_APART`` or more, or a card of their code by ``TURN_SAME`` or more: the same card
    outlined otherwise (often across its neighbour), or read otherwise. A turned find only
    adds a card apart; two cards of one code from two decks lie apart, or one on the other,
    and a pile's cards are what the upright frame shows."""
    upright = np.flatnonzero(~turned).tolist()

    def twin(i: int) -> bool:
        for j in upright:
            iou = polygon_iou(quads[i], quads[j])
            if iou >= TURN_APART or (codes[j] == codes[i] and iou >= TURN_SAME):
                return True
        return False

    return np.array([bool(turned[i]) and twin(i) for i in range(len(quads))], bool)


def _apart(outlines: np.ndarray, cards: np.ndarray) -> np.ndarray:
    """Return the indices of the ``outlines`` that overlap none of ``cards`` (nor an earlier
    outline kept) by ``WEAK_APART`` IoU or more."""
    kept: list[int] = []
    for i, quad in enumerate(outlines):
        if all(polygon_iou(quad, other) < WEAK_APART for other in [*cards, *outlines[kept]]):
            kept.append(i)
    return np.asarray(kept, np.int64)


def _as_bgr(frame: np.ndarray) -> np.ndarray:
    frame = np.asarray(frame)
    if frame.dtype != np.uint8:
        raise ValueError(f"frame must be uint8, not {frame.dtype}")
    if frame.ndim == 2:
        return cv2.cvtColor(frame, cv2.COLOR_GRAY2BGR)
    if frame.ndim == 3 and frame.shape[2] == 4:
        return cv2.cvtColor(frame, cv2.COLOR_BGRA2BGR)
    if frame.ndim == 3 and frame.shape[2] == 3:
        return frame
    raise ValueError(f"frame must be (h, w), (h, w, 3) or (h, w, 4), not {frame.shape}")


def int8_is_exact(cpuinfo: str | None = None) -> bool:
    """Return whether onnxruntime's fused int8 convolutions compute exactly on this CPU.

    On x86-64 without VNNI they multiply unsigned by signed bytes into 16 bits, which
    saturates: on an AVX2-only machine the shipped detector then missed a quarter of the
    real test cards (recall 0.73 instead of 0.93). ARM's int8 dot products do not saturate.
    ``cpuinfo`` is the text of ``/proc/cpuinfo`` (read when not given; elsewhere than Linux
    an x86 CPU counts as without VNNI).
    """
    if platform.machine().lower() in ("arm64", "aarch64"):
        return True
    if cpuinfo is None:
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text()
        except OSError:
            return False
    return bool({"avx512_vnni", "avx_vnni", "amx_int8"} & set(cpuinfo.split()))


def models_present(model_dir: str | os.PathLike | None = None) -> bool:
    """Return whether the model files the recognizer needs are in ``model_dir``."""
    d = Path(model_dir) if model_dir is not None else MODEL_DIR
    return all((d / n).is_file() for n in (DETECTOR_FILE, CLASSIFIER_FILE, META_FILE))


def draw_detections(frame: np.ndarray, det: Detections) -> np.ndarray:
    """Return a copy of ``frame`` with each card's outline, top-left corner and code drawn,
    in strokes and letters sized to the picture: drawn in fixed pixels, a phone's 4032-px
    photo seen whole showed its labels as specks and its outlines as hairlines."""
    out = frame.copy()
    h, w = out.shape[:2]
    unit = max(1.0, max(h, w) / 800)  # 1 up to an 800-px picture
    font, scale, stroke = cv2.FONT_HERSHEY_SIMPLEX, 0.55 * unit, max(1, round(1.2 * unit))
    for code, conf, quad in det:
        pts = np.round(quad).astype(np.int32)
        cv2.polylines(out, [pts.reshape(-1, 1, 2)], True, (0, 220, 0), round(2 * unit), cv2.LINE_AA)
        dot = round(4 * unit)
        cv2.circle(out, tuple(int(v) for v in pts[0]), dot, (0, 0, 255), -1, cv2.LINE_AA)
        label = f"{code} {conf:.2f}"
        # white on a black box above the card and its corner dot (white letters alone were
        # lost on a white card), kept inside the picture (a card at its edge cut its label)
        (tw, th), base = cv2.getTextSize(label, font, scale, stroke)
        pad = round(3 * unit)
        x = min(max(pad, int(pts[:, 0].min())), max(pad, w - tw - pad))
        y = min(max(th + pad, int(pts[:, 1].min()) - dot - base - pad), h - base - pad)
        cv2.rectangle(out, (x - pad, y - th - pad), (x + tw + pad, y + base + pad), (0, 0, 0), -1)
        cv2.putText(out, label, (x, y), font, scale, (255, 255, 255), stroke, cv2.LINE_AA)
    return out

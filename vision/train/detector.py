"""Train the card detector: a one-class YOLOv8n pose model whose four keypoints are the corners.

Labels come from the scene generator: per face-up card that shows enough of itself (or of an
index corner), the box of its *visible* part and its four corners, also where covered. A card
looks the same turned 180°, and at some rotations any fixed corner order jumps, so the pose
loss is made order-free: for every card it is computed against the four cyclic orders of the
corners and the best one counts. The run-time rebuilds the order from the geometry.

Nothing here downloads: the model is built from Ultralytics' YAML, plots are off and the AMP
check (which fetches weights) and the dataset check's font (fetched for plots) are skipped.
"""

from __future__ import annotations

import csv
import shutil
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing import get_context
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.train.loop import read_scene

if TYPE_CHECKING:
    from vision.synth.scene import CardLabel, Scene

MIN_VISIBLE = 0.15  # a card showing less than this is labelled only if an index corner shows
MIN_INDEX_VISIBLE = 0.5


# ---------------------------------------------------------------------------------------------
# Dataset
def _visible_boxes(idmap: np.ndarray, n: int, k1: float, size: tuple[int, int]) -> np.ndarray:
    """Return ``(n, 4)`` boxes of each card's visible pixels (NaN where none), lens-distorted."""
    from vision.synth.camera import distort_points

    boxes = np.full((n, 4), np.nan, np.float32)
    present = np.unique(idmap[idmap >= 0])
    for i in present:
        m = idmap == i
        rows = np.flatnonzero(m.any(axis=1))
        cols = np.flatnonzero(m.any(axis=0))
        x0, x1, y0, y1 = cols[0], cols[-1] + 1, rows[0], rows[-1] + 1
        xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
        pts = np.array(
            [[x0, y0], [xm, y0], [x1, y0], [x1, ym], [x1, y1], [xm, y1], [x0, y1], [x0, ym]],
            np.float32,
        )
        d = distort_points(pts, k1, size) if k1 else pts
        boxes[i] = [d[:, 0].min(), d[:, 1].min(), d[:, 0].max(), d[:, 1].max()]
    return boxes


_CAPTURE: dict = {}


def _install_capture() -> None:
    """Wrap the generator's label step so each render also leaves its visible boxes here."""
    import vision.synth.scene as scene_mod

    if getattr(scene_mod._labels, "_kortbord_capture", False):
        return
    original = scene_mod._labels

    def labels_with_boxes(spec, idmap, quads, hcards):
        labels = original(spec, idmap, quads, hcards)
        _CAPTURE["boxes"] = _visible_boxes(idmap, len(labels), spec.camera.k1, spec.size)
        return labels

    labels_with_boxes._kortbord_capture = True  # type: ignore[attr-defined]
    scene_mod._labels = labels_with_boxes


def render_labelled(
    seed: int, index: int, deck_dirs: tuple[str, ...], size: tuple[int, int]
) -> tuple[Scene, np.ndarray]:
    """Render one generator scene; return ``(scene, visible boxes (n, 4))``."""
    from vision.synth import random_scene

    _install_capture()
    _CAPTURE.clear()
    scene = random_scene(seed=seed, index=index, deck_dirs=deck_dirs, size=size)
    return scene, _CAPTURE["boxes"]


def wanted(label: CardLabel, box: np.ndarray) -> bool:
    """Return whether a card is a detection target: face up, in view, and readable enough."""
    if label.code is None or not np.isfinite(box).all():
        return False
    return (
        label.visible >= MIN_VISIBLE or max(label.index_visible, default=0.0) >= MIN_INDEX_VISIBLE
    )


def pose_lines(scene: Scene, boxes: np.ndarray) -> list[str]:
    """Return Ultralytics pose label lines: ``0 cx cy w h`` then ``x y v`` for four corners."""
    w, h = scene.spec.size
    out = []
    for lab, box in zip(scene.labels, boxes, strict=True):
        if not wanted(lab, box):
            continue
        x0, y0, x1, y1 = np.clip(box, 0, [w, h, w, h])
        if x1 - x0 < 2 or y1 - y0 < 2:
            continue
        cx, cy, bw, bh = (x0 + x1) / 2 / w, (y0 + y1) / 2 / h, (x1 - x0) / w, (y1 - y0) / h
        parts = [f"0 {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}"]
        for x, y in lab.corners:
            inside = 0 <= x <= w and 0 <= y <= h
            xn, yn = min(max(x / w, 0.0), 1.0), min(max(y / h, 0.0), 1.0)
            parts.append(f"{xn:.6f} {yn:.6f} {2 if inside else 0}")
        out.append(" ".join(parts))
    return out


def _build_one(args) -> int:
    seed, index, split, out, deck_dirs, size = args
    scene, boxes = render_labelled(seed, index, deck_dirs, size)
    name = f"{index:06d}"
    _, buf = cv2.imencode(
        ".jpg", scene.image, [cv2.IMWRITE_JPEG_QUALITY, int(scene.spec.effects.jpeg)]
    )
    # Label first, image last (atomically): an interrupted build leaves no image without labels.
    (Path(out) / "labels" / split / f"{name}.txt").write_text(
        "\n".join(pose_lines(scene, boxes)) + "\n"
    )
    image = Path(out) / "images" / split / f"{name}.jpg"
    tmp = image.with_suffix(".part")
    tmp.write_bytes(buf.tobytes())
    tmp.replace(image)
    return index


def build_pose_dataset(
    out: str | Path,
    images: int,
    seed: int = 0,
    deck_dirs: tuple[str, ...] = (),
    size: tuple[int, int] = (640, 360),
    val_images: int = 100,
    workers: int = 1,
    time_limit_s: float = 0.0,
    log: Callable[[str], None] = print,
) -> Path:
    """Render ``images`` + ``val_images`` labelled scenes into an Ultralytics pose dataset.

    Already rendered images are kept, so an interrupted build resumes; with ``time_limit_s``
    the build stops early and the dataset holds what was rendered. Returns ``data.yaml``.
    """
    out = Path(out)
    for split in ("train", "val"):
        (out / "images" / split).mkdir(parents=True, exist_ok=True)
        (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    jobs = []
    for i in range(images + val_images):
        split = "val" if i >= images else "train"
        done = (out / "labels" / split / f"{i:06d}.txt").is_file() and (
            out / "images" / split / f"{i:06d}.jpg"
        ).is_file()
        if not done:
            jobs.append((seed, i, split, str(out), tuple(deck_dirs), tuple(size)))
    t0 = time.time()
    # Validation scenes first, so a capped build still has them.
    jobs.sort(key=lambda j: j[2] != "val")

    def over() -> bool:
        return bool(time_limit_s) and time.time() - t0 > time_limit_s

    if jobs:
        log(f"dataset: rendering {len(jobs)} scenes with {workers} worker(s)")
        if workers > 1:
            # spawn, not fork: a forked child can hang in OpenCV's copied thread pool.
            with get_context("spawn").Pool(workers) as pool:  # leaving the block terminates it
                for k, _ in enumerate(pool.imap_unordered(_build_one, jobs, chunksize=2), 1):
                    if k % 200 == 0:
                        log(f"dataset: {k}/{len(jobs)} scenes, {time.time() - t0:.0f}s")
                    if over():
                        log(f"dataset: time limit reached after {k} scenes")
                        break
        else:
            for k, job in enumerate(jobs, 1):
                _build_one(job)
                if k % 50 == 0:
                    log(f"dataset: {k}/{len(jobs)} scenes, {time.time() - t0:.0f}s")
                if over():
                    log(f"dataset: time limit reached after {k} scenes")
                    break
        for part in out.glob("images/*/*.part"):
            part.unlink()
    data = out / "data.yaml"
    data.write_text(
        f"path: {out.resolve()}\ntrain: images/train\nval: images/val\n"
        "kpt_shape: [4, 3]\nflip_idx: [1, 0, 3, 2]\nnames:\n  0: card\n"
    )
    n_train = len(list((out / "images" / "train").glob("*.jpg")))
    n_val = len(list((out / "images" / "val").glob("*.jpg")))
    log(f"dataset: ready in {time.time() - t0:.0f}s ({n_train} train, {n_val} val images)")
    return data


REAL_SPLIT = "real"


def add_real_boxes(
    data_yaml: str | Path,
    photos: str | Path,
    turns: tuple[int, ...] = (0, 90, 180, 270),
    log: Callable[[str], None] = print,
    angles: int = 0,
    seed: int = 0,
) -> int:
    """Add the ``train`` split of labelled real photos to a pose dataset, once at each of
    ``turns`` (degrees clockwise) and, where its boxes stay true turned, at ``angles`` other
    angles (seeded by ``seed`` and the photo's name); return how many images were added.

    The photos were taken upright, their cards mostly upright too: a detector that saw them
    only so found a quarter fewer of the test photos' cards turned a quarter (0.93 → 0.78
    recall), and a fanned pair lying at an angle was found as one card. A box turned by other
    than quarter turns is the box of the turned box: true for a card (or the strip of it that
    shows) lying upright, too large for one lying at an angle, so only photos whose boxes all
    have an upright card's shape or a strip's (``UPRIGHT_BOXES``) are turned so. Real photos
    give whole-card boxes but no corners: their corners are written as unknown (``0 0 0``),
    which the pose loss skips. The validation split stays synthetic.
    """
    from vision.realphotos import load_split, read_photos, turn_photo

    data_yaml = Path(data_yaml)
    root = data_yaml.parent
    images, labels = root / "images" / REAL_SPLIT, root / "labels" / REAL_SPLIT
    for d in (images, labels):
        shutil.rmtree(d, ignore_errors=True)
        d.mkdir(parents=True)

    def unread(photo, why) -> None:
        log(f"real photos: skipped {photo.image}: {why}")

    added = 0
    for photo, frame in read_photos(load_split(photos, "train"), unread):
        extra: list[float] = []
        if angles and _upright_boxes(photo.boxes):
            rng = np.random.default_rng([seed, zlib.crc32(photo.image.name.encode())])
            extra = [90.0 * rng.integers(4) + rng.uniform(*ANGLED) for _ in range(angles)]
        for degrees in (*turns, *extra):
            turned, boxes = turn_photo(frame, photo.boxes, degrees)
            h, w = turned.shape[:2]
            lines = []
            for x0, y0, x1, y1 in np.clip(boxes, 0, [w, h, w, h]):
                if x1 - x0 >= 2 and y1 - y0 >= 2:
                    cx, cy = (x0 + x1) / 2 / w, (y0 + y1) / 2 / h
                    bw, bh = (x1 - x0) / w, (y1 - y0) / h
                    lines.append(f"0 {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}" + " 0 0 0" * 4)
            name = f"{photo.image.stem}_{degrees:g}".replace(".", "p")
            (labels / f"{name}.txt").write_text("\n".join(lines) + "\n")
            cv2.imwrite(str(images / f"{name}.jpg"), turned, [cv2.IMWRITE_JPEG_QUALITY, 95])
            added += 1
    text = data_yaml.read_text()
    if f"images/{REAL_SPLIT}" not in text:
        text = text.replace("train: images/train", f"train: [images/train, images/{REAL_SPLIT}]")
        data_yaml.write_text(text)
    log(f"real photos: {added} images added to {data_yaml}")
    return added


ANGLED = (10.0, 80.0)  # a real photo's other angles: this far past a quarter turn
UPRIGHT_BOXES = 0.76  # a box squarer than this holds a card lying 5° or more off upright


def _upright_boxes(boxes: np.ndarray) -> bool:
    """Return whether every ``x1 y1 x2 y2`` box has the shape of a card lying upright or of a
    strip of one (not that of a card at an angle: its box is squarer)."""
    sides = np.stack([boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]], axis=1)
    short, long = sides.min(axis=1), sides.max(axis=1)
    return bool(len(boxes)) and bool((short <= UPRIGHT_BOXES * long).all())


# ---------------------------------------------------------------------------------------------
# Order-free pose loss, model and trainer (only where the `train` extra is installed)
try:
    import torch
    from ultralytics.models.yolo.pose import PoseTrainer
    from ultralytics.nn.tasks import PoseModel
    from ultralytics.utils.loss import v8PoseLoss
    from ultralytics.utils.ops import xyxy2xywh
except ImportError:  # run-time installs have no torch/Ultralytics; only training needs them
    pass
else:

    class CyclicPoseLoss(v8PoseLoss):
        """Pose loss that scores each card against the best of the four cyclic corner orders."""

        def calculate_keypoints_loss(
            self, masks, target_gt_idx, keypoints, stride_tensor, target_bboxes, pred_kpts
        ):
            if not masks.any():
                return 0, 0
            target_bboxes /= stride_tensor
            gt_kpt = keypoints[masks.nonzero(as_tuple=True)[0], target_gt_idx[masks]]
            strides = stride_tensor.view(1, -1).expand(masks.shape[0], -1)[masks]
            gt_kpt[..., :2] /= strides[:, None, None]
            area = xyxy2xywh(target_bboxes[masks])[:, 2:].prod(1, keepdim=True)
            pred_kpt = pred_kpts[masks]
            # (m, 4 shifts, 4 corners, 3): the ground truth rolled by 0..3 corners.
            shifted = torch.stack([gt_kpt.roll(-s, dims=1) for s in range(4)], dim=1)
            vis = (shifted[..., 2] != 0).float()
            d = ((pred_kpt[:, None, :, :2].detach() - shifted[..., :2]) ** 2).sum(-1)
            cost = (d * vis).sum(-1) / vis.sum(-1).clamp(min=1)
            best = cost.argmin(dim=1)
            gt_best = shifted[torch.arange(len(best), device=best.device), best]
            kpt_mask = gt_best[..., 2] != 0
            kpts_loss = self.keypoint_loss(pred_kpt, gt_best, kpt_mask, area)
            kpts_obj_loss = 0
            # A real photo's card has a box but no corners (all v=0): it teaches no corner
            # visibility either, or the model would learn that real cards have none.
            known = kpt_mask.any(dim=1)
            if pred_kpt.shape[-1] == 3 and known.any():
                kpts_obj_loss = self.bce_pose(pred_kpt[known][..., 2], kpt_mask[known].float())
            return kpts_loss, kpts_obj_loss

    class CardPoseModel(PoseModel):
        """YOLO pose model for cards (four corners, order-free loss)."""

        def init_criterion(self):
            return CyclicPoseLoss(self)

    class CardPoseTrainer(PoseTrainer):
        """Pose trainer that builds :class:`CardPoseModel` and needs no polars or downloads."""

        def get_model(self, cfg=None, weights=None, verbose=True):
            model = self.set_model_names_for_load(
                CardPoseModel(
                    cfg,
                    nc=self.data["nc"],
                    ch=self.data["channels"],
                    data_kpt_shape=self.data["kpt_shape"],
                    verbose=False,
                )
            )
            if weights:
                model.load(weights)
            return model

        def read_results_csv(self):
            try:
                with open(self.csv, newline="") as f:
                    rows = list(csv.DictReader(f))
            except OSError:
                return {}
            out: dict = {}
            for row in rows:
                for k, v in row.items():
                    try:
                        out.setdefault(k.strip(), []).append(float(v))
                    except (TypeError, ValueError):
                        out.setdefault(k.strip(), []).append(v)
            return out


@dataclass
class DetectorConfig:
    """Settings of one detector training run."""

    out: str
    data: str
    epochs: int = 30
    imgsz: int = 640
    batch: int = 16
    workers: int = 1
    device: str = "cpu"
    threads: int = 2
    close_mosaic: int = 3
    patience: int = 100
    cache: str | bool = False
    time_limit_h: float = 0.0  # Ultralytics' own wall-clock limit (0 = none)
    start_from: str | None = None  # weights to start from (e.g. models/card_detector.pt)
    warmup_epochs: float = 3.0


def train_detector(config: DetectorConfig, log: Callable[[str], None] = print) -> Path:
    """Train (or resume from ``OUT/detector/weights/last.pt``) and export ONNX; return its path."""
    import ultralytics.data.utils as data_utils
    import ultralytics.engine.trainer as trainer_mod

    # check_amp() downloads a model to compare; AMP on a CUDA device is known-good here.
    trainer_mod.check_amp = lambda model: True
    # The dataset check fetches Arial.ttf for the plots (off here) wherever it is missing.
    data_utils.check_font = lambda font="Arial.ttf": None
    out = Path(config.out)
    run_dir = out / "detector"
    last = run_dir / "weights" / "last.pt"
    overrides = dict(
        model="yolov8n-pose.yaml",
        data=str(config.data),
        epochs=config.epochs,
        imgsz=config.imgsz,
        batch=config.batch,
        workers=config.workers,
        device=config.device,
        project=str(out.resolve()),
        name="detector",
        exist_ok=True,
        pretrained=str(config.start_from) if config.start_from else False,
        plots=False,
        amp=config.device != "cpu",
        fliplr=0.0,  # a mirrored card does not exist
        flipud=0.0,
        degrees=0.0,  # the generator already turns cards every way
        mosaic=1.0,
        close_mosaic=config.close_mosaic,
        # A fine-tune needs no warm-up; Ultralytics' default (3 epochs, at least 100 steps)
        # would eat most of a short CPU run.
        warmup_epochs=0.0 if config.start_from else config.warmup_epochs,
        patience=config.patience,
        cache=config.cache,
        seed=0,
        deterministic=False,
        verbose=True,
        val=True,
    )
    if config.time_limit_h:
        overrides["time"] = config.time_limit_h
    if last.is_file():
        ck = torch.load(last, map_location="cpu", weights_only=False)
        if ck.get("epoch", -1) != -1:  # -1 marks a finished run
            log(f"detector: resuming from {last}")
            overrides["resume"] = str(last)
        else:
            log(f"detector: {last} is a finished run; exporting it")
            return export_detector(last, out, config.imgsz)
    trainer = CardPoseTrainer(overrides=overrides)
    if config.device == "cpu":
        trainer.add_callback(
            "on_pretrain_routine_end", lambda tr: torch.set_num_threads(config.threads)
        )
    trainer.train()
    best = run_dir / "weights" / "best.pt"
    return export_detector(best if best.is_file() else last, out, config.imgsz)


def export_detector(weights: Path, out: Path, imgsz: int) -> Path:
    """Export a trained checkpoint to ``OUT/card_detector.onnx`` (dynamic height and width),
    its convolutions quantized to int8 (``OUT/card_detector_float.onnx`` keeps the float one)."""
    from ultralytics import YOLO

    model = YOLO(str(weights), task="pose")
    path = Path(
        model.export(
            format="onnx",
            imgsz=imgsz,
            dynamic=True,
            simplify=False,
            opset=17,
            half=False,
            device="cpu",
        )
    )
    plain = Path(out) / "card_detector_float.onnx"
    shutil.copyfile(path, plain)
    images = sorted((Path(out) / "data" / "images").rglob("*.jpg"))[:32]
    target = Path(out) / "card_detector.onnx"
    skipped: set[Path] = set()
    calibration = [read_scene(p, skipped) for p in images]
    quantize_detector(plain, target, [im for im in calibration if im is not None], imgsz)
    return target


def quantize_detector(src: Path, dst: Path, frames: list[np.ndarray], imgsz: int) -> Path:
    """Write ``src`` with its convolutions in int8, calibrated on ``frames`` (BGR, letterboxed
    as at run time); without frames the float model is copied."""
    from vision.recognizer import letterbox
    from vision.train.loop import quantize_convs

    blobs = [letterbox(f, imgsz)[0] for f in frames if f is not None]
    if not blobs:
        shutil.copyfile(src, dst)
        return Path(dst)
    return quantize_convs(src, dst, [{"images": b} for b in blobs])

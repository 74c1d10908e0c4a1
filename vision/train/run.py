"""`kortbord train`: build the data, train the three networks, export ONNX, package ``models/``.

Every stage resumes: rendered scenes are kept, the detector resumes from Ultralytics'
``last.pt``, the classifier from ``classifier_last.pt`` and the outline refiner from
``refiner_last.pt``. Stages can run alone (``--only``), which is how the networks train side
by side.
"""

from __future__ import annotations

import json
import os
import platform
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vision.crops import THUMB_SPEC, CropSpec
from vision.recognizer import (
    CLASS_NAMES,
    CLASSIFIER_FILE,
    DETECTOR_FILE,
    JITTER_DEFAULTS,
    META_FILE,
    OTHER_SIZES_DEFAULTS,
    REFINER_FILE,
    THUMB_DEFAULTS,
    THUMBS_FILE,
)

FINE_TUNE_LR = 1e-3  # the classifier's rate when it starts from trained weights

# Presets. "cpu" is the base recipe of the shipped models on this 2-core machine: its stages
# run one after another, each capped in wall-clock time (80 + 69 + 45 + 45 min, about 4 h; the
# fine-tunes in models/README.md came on top). "gpu" fills a few minutes of one large GPU with
# a 16-core host.
PROFILES: dict[str, dict] = {
    "cpu": dict(
        images=900,
        val_images=60,
        epochs=12,  # the wall-clock cap sets the real number; this sets when mosaic stops
        imgsz=416,
        batch=16,
        workers=1,
        classifier_steps=100000,
        classifier_batch=128,
        classifier_workers=1,
        render_workers=2,
        detector_hours=1.15,
        classifier_seconds=4800.0,
        refiner_images=1200,
        refiner_seconds=2700.0,
        thumbs_seconds=2700.0,
    ),
    "gpu": dict(
        detector_hours=0.0,
        classifier_seconds=0.0,
        images=5000,
        val_images=200,
        epochs=60,
        imgsz=640,
        batch=64,
        workers=8,
        classifier_steps=3000,
        classifier_batch=512,
        classifier_workers=6,
        render_workers=12,
        cache="ram",
        refiner_images=4000,
        refiner_seconds=600.0,
        thumbs_seconds=600.0,
    ),
    "tiny": dict(
        detector_hours=0.0,
        classifier_seconds=0.0,
        images=12,
        val_images=4,
        epochs=1,
        imgsz=320,
        batch=4,
        workers=0,
        classifier_steps=6,
        classifier_batch=16,
        classifier_workers=0,
        render_workers=2,
        refiner_images=6,
        refiner_seconds=5.0,
        thumbs_seconds=5.0,
    ),
}


# The run-time settings written beside the models (measured on the synthetic validation
# scenes and the real test photos; see models/README.md).
RUN_TIME: dict = {
    "detector_size": 544,  # the main pass's long side (at least the training size)
    # An extra pass at the training size finds large cards (a close-up, a small photo) that
    # the main pass outlines badly; it keeps only its sure finds (an unsure one there was
    # more often a false card than a missed one).
    "extra_sizes": [416],
    "extra_conf_threshold": 0.6,
    "bright_quads": True,  # OpenCV proposals of bright card-shaped regions
    # A photo of few cards is also looked at turned 45°: the detector learnt real photos from
    # their upright boxes, and misses a fanned pair's lower card lying at an angle.
    "turned_pass": True,
    "conf_threshold": 0.3,
    "nms_iou": 0.6,
    # A card's code counts from 0.4 of the probability when the card's confidence (with the
    # detector's score) reaches min_confidence: such cards were right 6 times in 8.
    "min_code_conf": 0.4,
    "min_confidence": 0.5,  # below it, half of the cards reported were wrong
    "refiner_passes": 2,
    "thumbs": dict(THUMB_DEFAULTS),  # when small cards are also read whole
    # A photo's unsure index corners are read again from moved crops (a misreading rarely
    # survives the moves): synthetic validation 1105 right / 28 wrong -> 1108 / 19.
    "jitter": dict(JITTER_DEFAULTS),
    # A photo of few cards outlines an unsurely read card again from other input sizes' finds.
    "other_sizes": dict(OTHER_SIZES_DEFAULTS),
}


@dataclass
class TrainOptions:
    """Everything `kortbord train` needs; ``None`` fields come from the profile."""

    out: str = "runs/train"
    profile: str = "cpu"
    device: str = "cpu"
    deck_dirs: tuple[str, ...] = ()
    only: str = "all"  # all | dataset | detector | classifier | refiner | thumbs | package
    install: str | None = None  # copy the packaged models here (e.g. models/)
    images: int | None = None
    val_images: int | None = None
    epochs: int | None = None
    imgsz: int | None = None
    batch: int | None = None
    workers: int | None = None
    classifier_steps: int | None = None
    classifier_batch: int | None = None
    classifier_workers: int | None = None
    render_workers: int | None = None
    detector_hours: float | None = None
    render_seconds: float = 0.0
    classifier_seconds: float | None = None
    refiner_images: int | None = None
    refiner_seconds: float | None = None
    thumbs_seconds: float | None = None
    threads: int = 2
    seed: int = 0
    start_from: str | None = None  # a models/ folder whose checkpoints the networks start from
    # Labelled real photos: boxes for the detector, ranks (and suits) for the classifier.
    real_photos: str | None = None
    # The detector also learns each real photo whose boxes stay true turned at this many
    # other angles than quarter turns.
    real_angles: int = 0
    # Card widths on screen of the classifier's synthetic crops (None: ClassifierConfig's).
    classifier_widths: tuple[float, float] | None = None
    # The classifier's weights to start from instead of --start-from's card_classifier.pt: a
    # checkpoint (.pt) or an exported classifier (.onnx, e.g. a far-card classifier).
    classifier_start: str | None = None
    # Index-corner crops cut from rendered scenes of this layout, half of each batch.
    scene_crops: str | None = None

    def setting(self, name: str) -> Any:
        """Return option ``name``: as given, else the profile's value."""
        value = getattr(self, name)
        return PROFILES[self.profile][name] if value is None else value


def train(opts: TrainOptions, log: Callable[[str], None] = print) -> Path:
    """Run the stages of ``opts.only``; return the folder holding the packaged models."""
    if opts.profile not in PROFILES:
        raise ValueError(f"unknown profile {opts.profile!r}; expected one of {', '.join(PROFILES)}")
    out = Path(opts.out)
    out.mkdir(parents=True, exist_ok=True)
    stages = {"all": ("dataset", "detector", "classifier", "refiner", "thumbs", "package")}.get(
        opts.only, (opts.only,)
    )
    timing_file = out / "timing.json"
    timing = json.loads(timing_file.read_text()) if timing_file.is_file() else {}

    def timed(stage: str, fn):
        t0 = time.time()
        result = fn()
        timing[stage] = round(timing.get(stage, 0.0) + time.time() - t0, 1)
        timing_file.write_text(json.dumps(timing, indent=1))
        return result

    data_yaml = out / "data" / "data.yaml"
    if "dataset" in stages or ("detector" in stages and not data_yaml.is_file()):
        from vision.train.detector import build_pose_dataset

        _preload_decks(opts.deck_dirs)
        timed(
            "dataset",
            lambda: build_pose_dataset(
                out / "data",
                opts.setting("images"),
                opts.seed,
                opts.deck_dirs,
                val_images=opts.setting("val_images"),
                workers=opts.setting("render_workers"),
                time_limit_s=opts.render_seconds,
                log=log,
            ),
        )
    if "classifier" in stages:
        from vision.train.classifier import train_classifier

        cfg = _classifier_config(
            opts,
            out=str(out),
            seed=opts.seed,
            time_limit_s=opts.setting("classifier_seconds"),
            start_from=opts.classifier_start or _start(opts, "card_classifier.pt"),
            # A fine-tune of trained weights steps more gently (measured in the second session).
            **({"lr": FINE_TUNE_LR} if opts.start_from or opts.classifier_start else {}),
            scene_crops=opts.scene_crops,
            real_photos=opts.real_photos,
            # The real cards are found with the recognizer being fine-tuned.
            outline_models=opts.start_from,
            **({"width_px": opts.classifier_widths} if opts.classifier_widths else {}),
        )
        if opts.real_photos and not opts.start_from:
            raise ValueError("--real-photos fine-tunes a finished recognizer: add --start-from")
        timed("classifier", lambda: train_classifier(cfg, log=log))
    if "detector" in stages:
        from vision.train.detector import DetectorConfig, add_real_boxes, train_detector

        if opts.real_photos:
            add_real_boxes(
                data_yaml, opts.real_photos, log=log, angles=opts.real_angles, seed=opts.seed
            )

        cfg = DetectorConfig(
            out=str(out),
            data=str(data_yaml),
            epochs=opts.setting("epochs"),
            imgsz=opts.setting("imgsz"),
            batch=opts.setting("batch"),
            workers=opts.setting("workers"),
            device=opts.device,
            threads=opts.threads,
            time_limit_h=opts.setting("detector_hours"),
            start_from=_start(opts, "card_detector.pt"),
            close_mosaic=max(1, min(5, opts.setting("epochs") // 6)),
            cache=PROFILES[opts.profile].get("cache", False),
        )
        timed("detector", lambda: train_detector(cfg, log=log))
    if "refiner" in stages:
        timed("refiner", lambda: _train_refiner(opts, out, log))
    if "thumbs" in stages:
        timed("thumbs", lambda: _train_thumbs(opts, out, log))
    if "package" in stages:
        return package(opts, timing, log=log)
    return out


def _train_refiner(opts: TrainOptions, out: Path, log=print) -> Path:
    """Render full-resolution scenes with true outlines (once) and train (or resume) the refiner."""
    from vision.synth.dataset import BuildConfig, build
    from vision.train.refiner import RefinerConfig, train_refiner

    data = out / "refine_data"
    want = opts.setting("refiner_images")
    have = len(list((data / "truth").rglob("*.json"))) if data.is_dir() else 0
    if have < want:
        _preload_decks(opts.deck_dirs)
        log(f"refiner: rendering {want} scenes at 1280x720 into {data}")
        build(
            BuildConfig(
                data,
                want,
                seed=opts.seed + 4242,
                deck_dirs=tuple(opts.deck_dirs),
                targets="cards",
                val_fraction=0.05,
                workers=opts.setting("render_workers"),
                progress=False,
            )
        )
    cfg = RefinerConfig(
        data=str(data),
        out=str(out),
        steps=10**6,  # the wall-clock cap ends the schedule
        workers=0 if opts.profile == "tiny" else 1,
        threads=opts.threads,
        seed=opts.seed,
        time_limit_s=opts.setting("refiner_seconds"),
        start_from=_start(opts, "card_refiner.pt"),
    )
    return train_refiner(cfg, log=log)


def _train_thumbs(opts: TrainOptions, out: Path, log=print) -> Path:
    """Train (or resume) the reader of whole small cards, in ``OUT/thumbs``; it starts from
    the corner classifier's weights where there are some (pips and glyphs look alike)."""
    from vision.train.classifier import train_classifier

    tried = [out / "classifier_last.pt"]  # this run's corner classifier
    if opts.start_from:
        tried[:0] = [Path(opts.start_from) / n for n in ("card_thumbs.pt", "card_classifier.pt")]
    start = next((p for p in tried if p.is_file()), None)
    cfg = _classifier_config(
        opts,
        out=str(out / "thumbs"),
        seed=opts.seed + 77,
        time_limit_s=opts.setting("thumbs_seconds"),
        start_from=str(start) if start else None,
        # Going on from a trained whole-card reader steps gently, as the corner fine-tune does.
        **({"lr": FINE_TUNE_LR} if start and start.name == "card_thumbs.pt" else {}),
        spec=THUMB_SPEC,
        width_px=(30.0, 1.1 * RUN_TIME["thumbs"]["max_width"]),
        onnx_name=THUMBS_FILE,
    )
    path = train_classifier(cfg, log=log)
    shutil.copyfile(path, out / THUMBS_FILE)
    return out / THUMBS_FILE


def _classifier_config(opts: TrainOptions, **settings):
    """Return a ``ClassifierConfig`` with the profile's steps, batch and workers (the corner
    classifier and the whole-card reader train alike)."""
    from vision.train.classifier import ClassifierConfig

    return ClassifierConfig(
        deck_dirs=tuple(opts.deck_dirs),
        steps=opts.setting("classifier_steps"),
        batch=opts.setting("classifier_batch"),
        workers=opts.setting("classifier_workers"),
        device=_torch_device(opts.device),
        threads=opts.threads,
        val_size=400 if opts.profile == "tiny" else 3000,
        **settings,
    )


def _start(opts: TrainOptions, name: str) -> str | None:
    if not opts.start_from:
        return None
    path = Path(opts.start_from) / name
    if not path.is_file():
        raise FileNotFoundError(f"--start-from: {path} does not exist")
    return str(path)


DEVICES = "cpu, mps, cuda, a CUDA device number (0), several (0,1) or cuda:0"
_DEVICE = re.compile(r"cpu|mps|cuda|(cuda:)?\d+(,\d+)*")


def check_device(given: str) -> str:
    """Return the training device ``given`` as Ultralytics reads it (lower case, no spaces:
    one of :data:`DEVICES`); raise ``ValueError`` for another, before torch loads (a typo
    went on to torch and Ultralytics, which said it in their own words minutes later)."""
    device = given.strip().lower().replace(" ", "")
    if not _DEVICE.fullmatch(device):
        raise ValueError(f"not a device (give {DEVICES})")
    return device


def _torch_device(device: str) -> str:
    """Return the torch device the classifiers train on: the first of several CUDA devices."""
    if device in ("cpu", "mps", "cuda"):
        return device
    return f"cuda:{device.removeprefix('cuda:').split(',')[0]}"


def _preload_decks(deck_dirs) -> None:
    """Load real-art decks once before worker processes fork, so each does not reload them."""
    from vision.synth.faces import load_deck

    for d in deck_dirs:
        load_deck(str(d))


def package(opts: TrainOptions, timing: dict, log: Callable[[str], None] = print) -> Path:
    """Write ``recognizer.json`` beside the two ONNX files; copy all three to ``opts.install``."""
    out = Path(opts.out)
    for name in (DETECTOR_FILE, CLASSIFIER_FILE):
        if not (out / name).is_file():
            raise FileNotFoundError(
                f"{out / name} is missing: run the detector and classifier stages first"
            )
    spec = CropSpec()
    cls_metrics = {}
    if (out / "classifier_metrics.json").is_file():
        cls_metrics = json.loads((out / "classifier_metrics.json").read_text()).get("final", {})
    meta = {
        "classes": list(CLASS_NAMES),
        "crop": {"region": list(spec.region), "size": list(spec.size)},
        **RUN_TIME,
        # Run larger than trained: a card a few pixels wide at the training size is found
        # when the picture is bigger (the detector is fully convolutional).
        "detector_size": max(opts.setting("imgsz"), RUN_TIME["detector_size"]),
        "training": {
            "profile": opts.profile,
            "device": opts.device,
            "host": platform.node(),
            "cpu_count": os.cpu_count(),
            "images": opts.setting("images"),
            "epochs": opts.setting("epochs"),
            "classifier_steps": opts.setting("classifier_steps"),
            "seconds": timing,
            "classifier_val": cls_metrics,
            "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        },
    }
    (out / META_FILE).write_text(json.dumps(meta, indent=1))
    target = out
    _checkpoints(out, log)
    if opts.install:
        target = Path(opts.install)
        target.mkdir(parents=True, exist_ok=True)
        models = (DETECTOR_FILE, CLASSIFIER_FILE, REFINER_FILE, THUMBS_FILE, META_FILE)
        for name in (*models, *CHECKPOINT_FILES):
            if (out / name).is_file():
                shutil.copyfile(out / name, target / name)
        log(f"models installed in {target}")
    return target


CHECKPOINT_FILES = ("card_detector.pt", "card_classifier.pt", "card_refiner.pt", "card_thumbs.pt")


def _checkpoints(out: Path, log=print) -> None:
    """Write the small checkpoints shipped beside the ONNX files (for fine-tuning and the
    benchmark's torch comparison): Ultralytics' stripped detector and the classifier weights."""
    weights = out / "detector" / "weights"
    for name in ("best.pt", "last.pt"):
        if (weights / name).is_file():
            shutil.copyfile(weights / name, out / "card_detector.pt")
            break
    for ckpt, name in (
        (out / "classifier_last.pt", "card_classifier.pt"),
        (out / "thumbs" / "classifier_last.pt", "card_thumbs.pt"),
    ):
        if ckpt.is_file():
            import torch

            state = torch.load(ckpt, map_location="cpu", weights_only=False)
            torch.save({"model": state["model"], "step": state.get("step")}, out / name)
            log(f"checkpoints: {name}")

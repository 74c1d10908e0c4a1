"""The vision layer's commands. Each command is one ``register_*``/``cmd_*`` pair, so other
vision commands can live in this module beside them.

- ``kortbord detect IMAGE ... [--json] [--annotate DIR]`` — recognise the cards in photos.
- ``kortbord eval [--synthetic-images N] [--real DIR]`` — the recognizer's metrics.
- ``kortbord train [--profile cpu|gpu] [--out DIR] [--install models/]`` — train the models.
- ``kortbord road IMAGE [--json]`` — read a Stigespill road in road order.
- ``kortbord watch SOURCE --game G [--players N] [--json]`` — follow a game live.
- ``kortbord replay VIDEO --game G [--players N] [--json]`` — the transcript of a recording.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from kortbord.cli import SEED, THREADS, WORKERS, Number, exit_statuses
from referee.cli import PLAYERS, players_checked
from vision.shared import DECKS

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

    from vision.detections import Detections
    from vision.realphotos import PhotoFrame


def register(sub: argparse._SubParsersAction) -> None:
    """Add the vision commands to the ``kortbord`` parser."""
    register_detect(sub)
    register_eval(sub)
    register_train(sub)
    register_road(sub)
    register_watch(sub)
    register_replay(sub)


NO_MODELS = ", or no models"  # what else a command that reads photos ends with exit status 2
# vision.recognizer.MODEL_DIR, not imported here: it loads OpenCV and onnxruntime
SHIPPED_MODELS = Path(__file__).resolve().parent.parent / "models"


def _add_recognizer_options(p: argparse.ArgumentParser) -> None:
    """Add where the models are and how many threads read them (see :func:`_recognizer`)."""
    p.add_argument(
        "--models",
        metavar="DIR",
        default=None,
        help=f"the recognizer's model folder (default: the shipped models, {SHIPPED_MODELS})",
    )
    p.add_argument(
        "--threads",
        type=THREADS,
        default=None,
        metavar="N",
        help="threads reading the models (default: all this computer's cores)",
    )


def _recognizer(args):
    from kortbord.cli import CommandError, folder_option
    from vision.recognizer import ModelError, Recognizer

    if args.models is not None:
        folder_option("--models", args.models, "a model folder")
    try:
        return Recognizer(args.models, threads=args.threads)
    except ModelError as e:
        raise CommandError(str(e)) from e


# ---- detect ----------------------------------------------------------------------------------
def register_detect(sub: argparse._SubParsersAction) -> None:
    """Add ``detect``: recognise the cards in photos."""
    p = sub.add_parser(
        "detect",
        help="recognise the cards in images",
        description="Recognise the cards in each image. For each it prints its name and "
        "number of cards, then a line a card: its code (AS, 10H, QD, JK), the confidence "
        "(0-1) and the four corners in pixels, from the card's top-left clockwise. An image "
        "that cannot be read (or drawn) is named on stderr and the others go on.",
        epilog=exit_statuses("an image could not be read, recognised or drawn", NO_MODELS),
    )
    p.add_argument("images", nargs="+", metavar="IMAGE", help="image files (JPEG, PNG, …)")
    p.add_argument(
        "--json",
        action="store_true",
        help="print one JSON array instead: an object a readable image, its image (the path "
        "given; a byte that is not UTF-8 as \\xNN, as messages show it) and cards (each with "
        "code, confidence and corners)",
    )
    p.add_argument(
        "--annotate",
        metavar="DIR",
        help="also draw each image's cards into DIR (made if missing) as NAME.jpg, after the "
        "image's name; NAME-2.jpg (NAME-3.jpg, …) where that file is there or another image "
        "given took NAME: no file in DIR is written over",
    )
    _add_recognizer_options(p)
    p.set_defaults(func=cmd_detect)


def cmd_detect(args: argparse.Namespace) -> int:
    """Recognise the cards in each image; report unreadable files and go on with the rest."""
    import cv2

    from kortbord.cli import CommandError, folder_option
    from vision.images import ImageError, imwrite, os_reason, read_image, shown
    from vision.recognizer import draw_detections

    annotate = None if args.annotate is None else folder_option("--annotate", args.annotate)
    if annotate is not None:
        try:
            annotate.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            why = os_reason(e)
            raise CommandError(f"cannot create --annotate folder {str(annotate)!r}: {why}") from e
    rec = _recognizer(args)
    results, failed, drawn = [], 0, set()
    for path in args.images:
        try:
            frame = read_image(path)
        except ImageError as e:  # a cut-off or damaged photo too: its cards would be wrong
            print(f"kortbord detect: {shown(path)}: {e}", file=sys.stderr)
            failed += 1
            continue
        try:
            det = rec(frame)
        except (ValueError, cv2.error) as e:
            print(f"kortbord detect: {shown(path)}: cannot be recognised: {e}", file=sys.stderr)
            failed += 1
            continue
        # A name that is not UTF-8 holds a lone surrogate ("\udce6"), which strict JSON
        # readers refuse: it is written as messages show it ("\xe6").
        results.append({"image": shown(path), "cards": det.to_list()})
        if annotate is not None:
            # Two images of one name (from two folders) get two drawings; a drawing is never
            # written over a file already there (photos/IMG_1.jpg given or not, IMG_1.JPG on a
            # disk blind to case, a dangling link): it was lost, replaced by the drawing.
            name, n = Path(path).stem, 1
            while name in drawn or os.path.lexists(annotate / f"{name}.jpg"):
                n += 1
                name = f"{Path(path).stem}-{n}"
            drawn.add(name)
            out = annotate / f"{name}.jpg"
            if not imwrite(out, draw_detections(frame, det)):
                print(f"kortbord detect: cannot write {shown(out)}", file=sys.stderr)
                failed += 1
        if not args.json:
            _print_table(shown(path), det)
    if args.json:
        print(json.dumps(results, indent=1))
    return 1 if failed else 0


def _file(path: str | Path) -> tuple[int, int] | None:
    """Return what tells the file ``path`` from any other (device and inode: the same file by
    another name too), or None where there is none."""
    try:
        st = Path(path).stat()
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def _print_table(path: str, det) -> None:
    print(f"{path}: {len(det)} card{'s' if len(det) != 1 else ''}")
    for code, conf, quad in det:
        corners = " ".join(f"({x:.0f},{y:.0f})" for x, y in quad)
        print(f"  {code:<5} {conf:5.2f}  {corners}")


# ---- eval ------------------------------------------------------------------------------------
def register_eval(sub: argparse._SubParsersAction) -> None:
    """Add ``eval``: the recognizer's metrics on generated scenes and real photos."""
    from vision.shared import REAL_PHOTOS

    p = sub.add_parser(
        "eval",
        help="measure the recognizer on generated scenes and real photos",
        epilog=exit_statuses("a real photo did not read and was not scored", NO_MODELS),
    )
    p.add_argument(
        "--synthetic-images",
        type=Number(int, 0),
        default=100,
        metavar="N",
        help="generated validation scenes (new seed, every layout; default 100; 0 skips)",
    )
    p.add_argument(
        "--real",
        metavar="DIR",
        default=None,
        help=f"labelled real photos, a test/ folder in DIR (default {REAL_PHOTOS}, skipped "
        "when absent)",
    )
    p.add_argument("--real-train", action="store_true", help="also score the rank-only train split")
    p.add_argument(
        "--real-turned",
        action="store_true",
        help="also score the test photos turned a quarter, a half and three quarters",
    )
    p.add_argument(
        "--real-angled",
        action="store_true",
        help="also score the test photos turned 15, 30 and 45 degrees on a grey canvas (cards "
        "lying at an angle; matched by their outlines' boxes, box IoU not counted)",
    )
    p.add_argument(
        "--real-disturbed",
        action="store_true",
        help="also score the test photos under other light, blur, noise, JPEG, size and a "
        "tilted camera, each alone (what photos the recognizer never saw may look like)",
    )
    p.add_argument(
        "--deck-dir",
        action="append",
        default=None,
        metavar="DIR",
        help=f"real-art decks for the scenes (default: every deck in {DECKS})",
    )
    _add_recognizer_options(p)
    p.add_argument("--json", action="store_true", help="print the metrics as JSON")
    p.set_defaults(func=cmd_eval)


def _deck_dirs(given) -> tuple[str, ...]:
    from kortbord.cli import CommandError, folder_option
    from vision.synth.cli import check_deck

    if given:
        for d in given:
            if not folder_option("--deck-dir", d, "a deck folder", opencv=True).is_dir():
                raise CommandError(f"--deck-dir {d!r} is not a folder")
            check_deck(d)
        return tuple(given)
    if DECKS.is_dir():
        return tuple(str(p) for p in sorted(DECKS.iterdir()) if p.is_dir())
    return ()


def cmd_eval(args: argparse.Namespace) -> int:
    """Print the recognizer's metrics."""
    from kortbord.cli import CommandError, folder_option
    from vision.realphotos import DEFAULT_DIR
    from vision.recognizer_eval import (
        Tally,
        eval_real,
        eval_real_disturbed,
        eval_real_ranks,
        eval_synthetic,
    )

    real = DEFAULT_DIR
    if args.real is not None:  # named, so meant: not skipped quietly
        real = folder_option("--real", args.real, "a folder of labelled photos", exists=True)
        if not (real / "test").is_dir():
            raise CommandError(f"--real {args.real!r}: no test/ folder of labelled photos in it")
    if args.synthetic_images == 0 and not (real / "test").is_dir():
        raise CommandError(f"nothing to measure: no generated scenes, and no {real}")
    # a real-photo measure asked for by name is not skipped without a word
    for option, split in (
        ("--real-train", "train"),
        ("--real-turned", "test"),
        ("--real-angled", "test"),
        ("--real-disturbed", "test"),
    ):
        if getattr(args, option[2:].replace("-", "_")) and not (real / split).is_dir():
            raise CommandError(f"{option}: no {split}/ folder of labelled photos in {real}")
    decks = _deck_dirs(args.deck_dir) if args.synthetic_images > 0 else ()
    rec = _recognizer(args)
    report: dict = {}
    log = (lambda m: print(m, file=sys.stderr)) if args.json else print
    if args.synthetic_images > 0:
        per = eval_synthetic(rec, args.synthetic_images, decks, log=log)
        total = Tally()
        for t in per.values():
            total.add(t)
        report["synthetic"] = {"all": total.summary(), **{k: v.summary() for k, v in per.items()}}
    if (real / "test").is_dir():
        skipped: list[dict] = []
        test: Iterable[PhotoFrame] = _photos(real, "test", skipped)
        if args.real_turned or args.real_angled or args.real_disturbed:
            # decoded once for every measure; read alone, the photos stream (a folder of
            # 12-megapixel phone photos held at once would take 36 MB each)
            test = list(test)
        report["real_test"] = eval_real(rec, test).summary()
        if args.real_turned:
            report["real_test_turned"] = eval_real(rec, test, turns=(90, 180, 270)).summary()
        if args.real_angled:
            report["real_test_angled"] = eval_real(rec, test, turns=(15, 30, 45)).summary()
        if args.real_disturbed:
            disturbed = eval_real_disturbed(rec, test)
            report["real_test_disturbed"] = {k: v.summary() for k, v in disturbed.items()}
        if args.real_train:
            report["real_train_ranks"] = eval_real_ranks(rec, _photos(real, "train", skipped))
        report["real_skipped"] = skipped
    else:
        log(f"real photos: {real} not found; skipping the real-photo metrics")
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        _print_report(report)
    return 1 if report.get("real_skipped") else 0


def _photos(folder: Path, split: str, skipped: list[dict]) -> Iterator[PhotoFrame]:
    """Return an iterator of the labelled photos of ``split`` that read whole, with their
    pixels; name each other one on stderr and add it to ``skipped`` (its ``image`` and
    ``why``), which the report shows: a photo that would not read was left out of the
    metrics without a word."""
    from kortbord.cli import CommandError
    from vision.realphotos import RealPhotoError, load_split, read_photos

    try:
        photos = load_split(folder, split)
    except RealPhotoError as e:
        raise CommandError(str(e)) from None

    def unread(p, e) -> None:
        print(f"kortbord eval: {p.image}: {e}; not scored", file=sys.stderr)
        skipped.append({"image": str(p.image), "why": str(e)})

    return read_photos(photos, unread)


def _print_report(report: dict) -> None:
    if "synthetic" in report:
        print("Synthetic validation (cards >= 40% visible):")
        for name, s in report["synthetic"].items():
            if not s["images"]:
                continue  # a layout no scene had (fewer scenes than layouts)
            print(
                f"  {name:<8} images {s['images']:>4}  precision {s['precision']:.4f}  "
                f"recall {s['recall']:.4f}  {s['ms_per_image']:.0f} ms/image"
            )
        conf = report["synthetic"]["all"]["top_confusions"]
        if conf:
            print("  confusions: " + ", ".join(conf))
    for key, split in (
        ("real_test", "test split"),
        ("real_test_turned", "test split turned"),
        ("real_test_angled", "test split at 15-45 degrees"),
    ):
        if key in report:
            s = report[key]
            boxes = f"  box IoU>=0.8 {s['box_iou_ge_0.8']:.4f}" if "box_iou_ge_0.8" in s else ""
            print(
                f"Real photos ({split}): images {s['images']}  precision {s['precision']:.4f}  "
                f"recall {s['recall']:.4f}{boxes}"
            )
            if s["top_confusions"]:
                print("  confusions: " + ", ".join(s["top_confusions"]))
    for name, s in report.get("real_test_disturbed", {}).items():
        print(
            f"Real photos (test split, {name}): precision {s['precision']:.4f}  "
            f"recall {s['recall']:.4f}"
        )
    if "real_train_ranks" in report:
        s = report["real_train_ranks"]
        print(
            f"Real photos (train split, ranks only): rank precision {s['rank_precision']:.4f}  "
            f"rank recall {s['rank_recall']:.4f}  box IoU>=0.8 {s['box_iou_ge_0.8']:.4f}"
        )
    if report.get("real_skipped"):
        print(f"Real photos not scored: {len(report['real_skipped'])}")
        for s in report["real_skipped"]:
            print(f"  {s['image']}: {s['why']}")


# ---- train -----------------------------------------------------------------------------------
def register_train(sub: argparse._SubParsersAction) -> None:
    """Add ``train``: train the recognizer's models."""
    p = sub.add_parser(
        "train",
        help="train the recognizer's networks (needs the train extra: pip install -e '.[train]')",
    )
    p.add_argument(
        "--out", default="runs/train", help="work folder; a second run resumes (default runs/train)"
    )
    p.add_argument(
        "--profile",
        choices=("cpu", "gpu", "tiny"),
        default="cpu",
        help="preset sizes: cpu (the base recipe, about 4 h here: its stages' caps, 80 + 69 + 45 "
        "+ 45 min, one after another; the shipped models took about 10 h with their "
        "fine-tunes), gpu (minutes on one big GPU), tiny (a smoke test)",
    )
    p.add_argument("--device", default="cpu", help="cpu, mps, cuda, 0, 0,1 or cuda:0 (default cpu)")
    p.add_argument(
        "--deck-dir",
        action="append",
        default=None,
        metavar="DIR",
        help=f"real-art decks to mix in (default: every deck in {DECKS})",
    )
    p.add_argument(
        "--only",
        choices=("all", "dataset", "detector", "classifier", "refiner", "thumbs", "package"),
        default="all",
        help="one stage only (default all: render the scenes, train each network, package"
        " the ONNX files and recognizer.json)",
    )
    p.add_argument("--install", metavar="DIR", help="copy the finished models here (e.g. models)")
    for name in ("images", "val-images", "epochs", "imgsz", "batch", "workers"):
        p.add_argument(f"--{name}", type=TRAIN_NUMBERS[name], help="override the profile")
    for name in ("classifier-steps", "classifier-batch", "classifier-workers", "render-workers"):
        p.add_argument(f"--{name}", type=TRAIN_NUMBERS[name], help="override the profile")
    for name, what in (
        ("detector-hours", "the detector"),
        ("classifier-seconds", "the classifier"),
        ("refiner-seconds", "the refiner"),
        ("thumbs-seconds", "the reader of whole small cards"),
    ):
        p.add_argument(f"--{name}", type=CAP, help=f"wall-clock cap for {what} (0: none)")
    p.add_argument("--refiner-images", type=TRAIN_NUMBERS["images"], help="scenes for the refiner")
    p.add_argument(
        "--render-seconds",
        type=CAP,
        default=0.0,
        help="wall-clock cap for rendering scenes (default 0: none)",
    )
    p.add_argument(
        "--classifier-widths",
        metavar="LO,HI",
        default=None,
        help="card widths on screen (px) of the classifier's synthetic crops, drawn "
        "log-uniformly (default 34,330; e.g. 30,150 to dwell on far cards)",
    )
    p.add_argument(
        "--classifier-start",
        metavar="FILE",
        help="the classifier's weights to start from instead of --start-from's: a checkpoint "
        "(.pt) or an exported classifier (.onnx, its int8 weights read back; e.g. "
        "models/card_classifier_far2.onnx)",
    )
    p.add_argument(
        "--scene-crops",
        choices=("road",),
        default=None,
        help="the classifier also learns index corners cut from rendered scenes of this layout "
        "(half of each batch; 500 scenes at 1280x720, rendered once into --out): road, the far "
        "cards of a road photo",
    )
    p.add_argument(
        "--threads",
        type=THREADS,
        default=2,
        help="torch threads on CPU (default 2)",
    )
    p.add_argument(
        "--start-from",
        metavar="DIR",
        help="fine-tune from the checkpoints in DIR (e.g. models) instead of training from scratch",
    )
    p.add_argument(
        "--real-photos",
        metavar="DIR",
        help="labelled real photos (VOC boxes with ranks, as ../shared/realphotos/edje-cards): "
        "the detector also learns the boxes of their train split, and the classifier their "
        "ranks and the suits in datasets/ (the classifier needs --start-from)",
    )
    p.add_argument(
        "--real-angles",
        metavar="N",
        type=TRAIN_NUMBERS["real-angles"],
        default=0,
        help="with --real-photos, the detector also learns each photo whose cards lie upright "
        "turned N times by other than a quarter turn (default 0)",
    )
    p.add_argument(
        "--seed", type=SEED, default=0, help="seed of the scenes and of training (default 0)"
    )
    p.set_defaults(func=cmd_train)


def _widths(text: str | None) -> tuple[float, float] | None:
    """Parse ``--classifier-widths LO,HI`` (pixels, 0 < LO < HI)."""
    from kortbord.cli import CommandError

    if text is None:
        return None
    try:
        lo, hi = (float(v) for v in text.split(","))
    except ValueError:
        lo = hi = 0.0
    if not 0 < lo < hi:
        raise CommandError(f"--classifier-widths {text!r}: expected LO,HI with 0 < LO < HI")
    return lo, hi


# What train's numbers take: torch and Ultralytics would take a batch of 0 or -5 images to
# their own errors after the models load; a negative cap stopped at once.
CAP = Number(float, 0, note=" (0: no cap)")
TRAIN_NUMBERS = {
    "images": Number(int, 1),
    "val-images": Number(int, 1),
    "epochs": Number(int, 1),
    "imgsz": Number(int, 32, 8192),
    "batch": Number(int, 1),
    "workers": Number(int, 0, WORKERS.most),
    "classifier-steps": Number(int, 1),
    "classifier-batch": Number(int, 1),
    "classifier-workers": Number(int, 0, WORKERS.most),
    "render-workers": WORKERS,
    "real-angles": Number(int, 0, 8),
}


def cmd_train(args: argparse.Namespace) -> int:
    """Train the models (resuming what an earlier run left)."""
    from kortbord.cli import CommandError, folder_option

    # Bad options are named before anything heavy loads.
    for option, given in (
        ("--out", args.out),
        ("--install", args.install),
        ("--start-from", args.start_from),
        ("--real-photos", args.real_photos),
    ):
        if given is not None:
            folder_option(option, given, opencv=True)
    start = args.classifier_start
    if start is not None and (
        Path(start).suffix not in (".pt", ".onnx") or not Path(start).is_file()
    ):
        raise CommandError(f"--classifier-start {start!r}: not a .pt or .onnx file")
    if args.real_angles and args.real_photos is None:
        raise CommandError("--real-angles turns the real photos: add --real-photos")
    deck_dirs = _deck_dirs(args.deck_dir)
    widths = _widths(args.classifier_widths)
    from vision.train.run import check_device

    try:
        device = check_device(args.device)
    except ValueError as e:
        raise CommandError(f"--device {args.device!r}: {e}") from None
    import vision.train  # noqa: F401  (first: it keeps Ultralytics from asking DNS if it is online)

    try:
        import torch  # noqa: F401
        import ultralytics  # noqa: F401
    except ImportError as e:
        raise CommandError(
            f"training needs the train extra ({e.name} is missing): pip install -e '.[train]'"
        ) from e
    from dataclasses import fields

    from vision.train.run import TrainOptions, train

    # Every other option is TrainOptions's field of the same name, taken as given.
    given = {f.name: getattr(args, f.name) for f in fields(TrainOptions) if hasattr(args, f.name)}
    opts = TrainOptions(
        **{**given, "device": device, "deck_dirs": deck_dirs, "classifier_widths": widths}
    )
    try:
        where = train(opts)
    except (FileNotFoundError, ValueError) as e:
        raise CommandError(str(e)) from e
    print(f"kortbord train: done; models in {where}")
    return 0


# ---- road, watch, replay (the camera pipeline) ------------------------------------------------
def _add_source_options(p: argparse.ArgumentParser, truth: str) -> None:
    p.add_argument(
        "--truth",
        nargs="?",
        const="auto",
        default=None,
        metavar="LABELS",
        help=f"use ground-truth labels ({truth}) instead of the recognizer",
    )
    _add_recognizer_options(p)
    # ``--truth IMAGE``: its optional value takes the photo or video, which the command then
    # took for LABELS and asked for. The input is left optional to argparse (its usage still
    # says it is needed), and the command takes it back from --truth (see _input).
    usage = p.format_usage().removeprefix("usage: ").rstrip("\n").replace("%", "%%")
    for action in p._actions:
        if not action.option_strings:
            action.nargs = "?"
    p.usage = usage


# What --truth names: a generated scene's truth JSON, a video's labels.jsonl
LABELS_SUFFIXES = (".json", ".jsonl")


def _input(args: argparse.Namespace, dest: str, metavar: str) -> str:
    """Return the photo or video (``args.<dest>``) the command reads: one that ``--truth``
    took for its labels (``road --truth road.jpg``) is taken back, a bare ``--truth`` meant;
    raise :class:`CommandError` when none is given."""
    from kortbord.cli import CommandError

    given = getattr(args, dest)
    truth = args.truth
    if (
        given is None
        and truth not in (None, "auto")
        and not truth.lower().endswith(LABELS_SUFFIXES)
    ):
        given, args.truth = truth, "auto"
        setattr(args, dest, given)
    if given is None:
        raise CommandError(f"the following arguments are required: {metavar}")
    return given


SHAPE_HELP = (
    "how the road runs: auto (default) and chain read one continuous chain (a snake, U-turn, "
    "spiral or curve), auto noting a road in straight rows; rows: straight rows read like text"
)


def _add_road_options(p: argparse.ArgumentParser, shape_flag: str, shape_help: str) -> None:
    """Add how a Stigespill road runs, which its cards' places cannot say: its shape and the
    way a spiral winds (``vision.layouts.road``'s SHAPES and SPIRALS, not imported here so
    that the CLI starts without OpenCV)."""
    p.add_argument(shape_flag, choices=("auto", "chain", "rows"), default="auto", help=shape_help)
    p.add_argument(
        "--spiral",
        choices=("clockwise", "anticlockwise"),
        default="clockwise",
        help="the way a spiral road winds, seen from above (default clockwise)",
    )


def register_road(sub: argparse._SubParsersAction) -> None:
    """Add ``road``: read a Stigespill road from a photo."""
    p = sub.add_parser(
        "road",
        help="read a Stigespill road from a photo, in road order",
        epilog=exit_statuses(
            "the road cannot be read (its problems are said) or --annotate not written",
            NO_MODELS,
        ),
    )
    p.add_argument("image", metavar="IMAGE", help="the photo of the road (JPEG, PNG, …)")
    p.add_argument("--json", action="store_true", help="print JSON")
    _add_road_options(p, "--shape", SHAPE_HELP)
    p.add_argument(
        "--annotate",
        metavar="OUT",
        help="write the photo with the road drawn (each place and its code, the cards to "
        "check in red) to OUT, a .jpg or .png file or a folder (made if missing when OUT ends "
        "in /)",
    )
    _add_source_options(
        p,
        "a generated scene's truth JSON, e.g. truth/train/000001.json; without a path, the "
        "image's name ending in .json (road.jpg: road.json)",
    )
    p.set_defaults(func=cmd_road)


def _image_truth(image: str, truth: str) -> Detections:
    """Return detections from a generator ground-truth JSON (``scene.truth()`` form)."""
    from kortbord.cli import CommandError
    from vision.detections import Detections
    from vision.images import os_reason
    from vision.pipeline import check_truth_cards, read_json

    path = Path(image).with_suffix(".json") if truth == "auto" else Path(truth)
    try:
        data = read_json(path)
    except OSError as e:  # "no such file or directory", not Python's "[Errno 2] …: 'path'"
        raise CommandError(f"cannot read ground truth {str(path)!r}: {os_reason(e)}") from e
    except ValueError as e:
        raise CommandError(f"cannot read ground truth {str(path)!r}: {e}") from e
    cards = data.get("cards", data) if isinstance(data, dict) else data
    try:
        check_truth_cards(cards, shares=("visible",))
        return Detections.from_list(
            [c for c in cards if c.get("code") and c.get("visible", 1.0) >= 0.3]
        )
    except ValueError as e:
        raise CommandError(f"bad ground truth {str(path)!r}: {e}") from e


def cmd_road(args: argparse.Namespace) -> int:
    """Print the road read from one photo, or a JSON error naming what is wrong; with
    ``--annotate``, then draw what was read (the reading is printed whatever befalls it)."""
    from kortbord.cli import CommandError
    from vision.images import ImageError, read_image, shown
    from vision.layouts.road import RoadError, RoadReader, road_detections

    _input(args, "image", "IMAGE")
    frame = None
    try:
        annotate = None if args.annotate is None else _road_picture(args.annotate, args.image)
        if not args.truth or annotate:
            try:
                frame = read_image(args.image)
            except ImageError as e:
                raise CommandError(f"{shown(args.image)}: {e}") from None
        notes: list[str] = []
        if args.truth:
            det = _image_truth(args.image, args.truth)
        else:
            assert frame is not None, "read above"
            det, notes = road_detections(_recognizer(args), frame)
    except CommandError as e:
        if not args.json:
            raise
        print(json.dumps({"error": str(e), "road": [], "goal": None, "problems": [str(e)]}))
        return 2
    try:
        reading = RoadReader(shape=args.shape, spiral=args.spiral).read(det)
    except RoadError as e:
        _road_out(args, {"error": str(e), **e.details, **({"notes": notes} if notes else {})})
        if annotate:  # no road: the picture shows the cards that were seen
            from vision.recognizer import draw_detections

            assert frame is not None, "read above to be annotated"
            _write_picture(annotate, draw_detections(frame, det))
        return 1
    out = reading.to_json()
    if notes:
        out["notes"] = notes + out.get("notes", [])
    if not reading.ok:
        out = {"error": "the road cannot be read: " + "; ".join(reading.problems), **out}
    _road_out(args, out)
    if annotate and not _write_picture(annotate, _annotate_road(frame, reading, out)):
        return 1
    return 0 if reading.ok else 1


ROAD_PICTURE_SUFFIXES = (".jpg", ".jpeg", ".png", ".webp")


def _road_picture(given: str, image: str) -> Path:
    """Return where ``--annotate`` writes the road's picture: the file named, or in a folder
    (``detect --annotate`` takes one) the photo's name with ``-road.jpg``; a folder's name
    that ends in "/" is made if missing, as ``detect`` makes its folder (``--annotate out/``,
    the README's example, was refused as no picture's name)."""
    from kortbord.cli import CommandError, folder_option
    from vision.images import os_reason

    out = folder_option("--annotate", given, "a folder or a picture's name")
    if given.endswith(("/", os.sep)):
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            why = os_reason(e)
            raise CommandError(f"cannot create --annotate folder {given!r}: {why}") from None
    if out.is_dir():
        out = out / f"{Path(image).stem}-road.jpg"
    elif out.suffix.lower() not in ROAD_PICTURE_SUFFIXES:
        raise CommandError(
            f"--annotate {given!r}: give a folder or a picture's name ending in "
            + ", ".join(ROAD_PICTURE_SUFFIXES)
        )
    elif not out.parent.is_dir():
        raise CommandError(f"--annotate {given!r}: there is no folder {str(out.parent)!r}")
    if _file(out) is not None and _file(out) == _file(image):  # it was written over the photo
        raise CommandError(f"--annotate {given!r} is the photo itself: give another name")
    return out


def _write_picture(path: Path, image) -> bool:
    """Write a drawing; say on stderr when it cannot be written."""
    from vision.images import imwrite, shown

    if imwrite(path, image):
        return True
    print(f"kortbord road: cannot write --annotate {shown(path)!r}", file=sys.stderr)
    return False


def _annotate_road(frame, reading, out: dict):
    """Return ``frame`` with each road card's place and code along the road (1…28, G for the
    goal); the codes a problem or note names (missing, doubled, read by elimination) in red,
    so the user finds the physical card to check."""
    import itertools
    import re

    import cv2

    img = frame.copy()
    said = " ".join([*out.get("problems", []), *out.get("notes", [])])
    doubt = set(re.findall(r"\b(?:10|[2-9AJQK])[SHDC]\b|\bJK\b", said))
    codes = [*reading.road, *[""] * len(reading.centers)]
    marks = [(str(i + 1), codes[i], c) for i, c in enumerate(reading.centers)]
    if reading.goal_center is not None:
        marks.append(("G", reading.goal or "", reading.goal_center))
    pts = [tuple(int(v) for v in c) for _, _, c in marks]
    for a, b in itertools.pairwise(pts):
        cv2.line(img, a, b, (40, 200, 255), 2, cv2.LINE_AA)
    scale = max(0.5, img.shape[1] / 1600)
    font, line = cv2.FONT_HERSHEY_SIMPLEX, round(28 * scale)
    for (place, code, _), (x, y) in zip(marks, pts, strict=True):
        colour = (60, 60, 255) if code in doubt else (255, 255, 255)
        for text, at in ((place, (x, y)), (code, (x, y + line))):
            cv2.putText(img, text, at, font, scale, (0, 0, 0), 4, cv2.LINE_AA)
            cv2.putText(img, text, at, font, scale, colour, 1, cv2.LINE_AA)
    return img


def _road_out(args, out: dict) -> None:
    if args.json:
        print(json.dumps(out))
        return
    if "error" in out:
        print(f"kortbord road: {out['error']}", file=sys.stderr)
    if out.get("road"):
        print("road: " + " ".join(out["road"]) + (f" → {out['goal']}" if out.get("goal") else ""))
    for note in out.get("notes", []):
        print(f"note: {note}")


def register_watch(sub: argparse._SubParsersAction) -> None:
    """Add ``watch``: follow a game live from a camera or a recording."""
    p = sub.add_parser(
        "watch",
        help="follow a game from a camera, stream, video or folder",
        epilog=exit_statuses(two=NO_MODELS),
    )
    p.add_argument(
        "source",
        metavar="SOURCE",
        help="webcam index (0), rtsp:// or http:// stream, video file or image folder",
    )
    _add_game_options(p)
    p.set_defaults(func=players_checked(p, cmd_watch))


def register_replay(sub: argparse._SubParsersAction) -> None:
    """Add ``replay``: print the transcript of a recorded game."""
    p = sub.add_parser(
        "replay",
        help="print the transcript of moves of a recorded game",
        epilog=exit_statuses(
            "a picture or part of the video did not read (said on stderr): the transcript may "
            "lack the moves it showed",
            NO_MODELS,
        ),
    )
    p.add_argument(
        "video", metavar="VIDEO", help="video file, frame folder or generated video folder"
    )
    _add_game_options(p)
    p.set_defaults(func=players_checked(p, cmd_replay))


def _add_game_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--game",
        required=True,
        choices=("stigespill", "sten", "skipbo"),
        help="the game on the table (a generated video's events.json gives its set-up)",
    )
    p.add_argument("--players", type=PLAYERS, default=2, help="players at the table (default 2)")
    p.add_argument("--json", action="store_true", help="print JSON lines")
    p.add_argument(
        "--fps",
        type=Number(float, above=0),
        default=None,
        help="frame rate to time a video file's or a folder's frames by (default: the video's "
        "own, a generated video's events.json, or 10 for a folder)",
    )
    p.add_argument(
        "--zones",
        metavar="FILE",
        default=None,
        help="Skip-Bo zone map (JSON); without it the zones are proposed from the stock cards",
    )
    _add_road_options(p, "--road-shape", f"Stigespill: {SHAPE_HELP}")
    _add_source_options(
        p, "a generated video's labels.jsonl, found beside the video when no path is given"
    )


def _setup(args, path: str):
    """Return (events.json content or None, frames source spec, recognizer)."""
    from kortbord.cli import CommandError
    from referee import RulesError, make_rules
    from vision.pipeline import VideoRecognizer, load_events
    from vision.sources import SourceError, open_source

    events, source = None, path
    try:
        events, source = load_events(path)
    except FileNotFoundError:
        pass
    except ValueError as e:  # an events.json that is no recording's
        raise CommandError(str(e)) from None
    if events is not None and events.get("game") != args.game:
        raise CommandError(f"{path} records a {events.get('game')} game, not {args.game}")
    if events is None:  # a recording names its own players; otherwise check them first
        try:
            make_rules(args.game, players=args.players)
        except RulesError as e:
            raise CommandError(str(e)) from None
    folder = Path(path) if Path(path).is_dir() else Path(path).parent
    beside = folder / "labels.jsonl"
    if args.truth:
        labels = str(beside) if args.truth == "auto" else args.truth
        if not Path(labels).is_file():
            if not Path(path).exists():
                try:  # a mistyped video: name it, not the labels it would have beside it
                    open_source(path)
                except SourceError as e:
                    raise CommandError(str(e)) from None
            raise CommandError(f"no ground-truth labels at {labels!r}")
        return events, source, _truth_labels(labels)
    try:
        return events, source, VideoRecognizer(_recognizer(args))
    except CommandError as e:
        if not beside.is_file():
            raise
        # No models yet: a generated video carries its own labels.
        print(f"kortbord: {e}; using the ground-truth labels in {beside}", file=sys.stderr)
        return events, source, _truth_labels(str(beside))


def _truth_labels(path: str):
    """Return the recognizer that plays back a generated video's ``labels.jsonl``."""
    from kortbord.cli import CommandError
    from vision.pipeline import GroundTruthRecognizer

    try:
        return GroundTruthRecognizer(path)
    except (OSError, ValueError) as e:
        raise CommandError(f"bad ground-truth labels: {e}") from e


class _SourceWarnings(logging.Handler):
    """Count a frame source's warnings; with ``say``, say each on stderr as
    ``kortbord COMMAND: …``."""

    def __init__(self, command: str, say: bool) -> None:
        super().__init__(logging.WARNING)
        self.command = command
        self.say = say
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1
        if self.say:
            print(f"kortbord {self.command}: {record.getMessage()}", file=sys.stderr)


def _run_game(args, path: str, stream: bool) -> tuple[list[dict], dict | None, int]:
    """Follow the game in ``path``'s frames; return the moves read, the recording's events
    (``None`` for no recording) and how many warnings the frame source gave."""
    from kortbord.cli import CommandError
    from vision.images import os_reason
    from vision.layouts.skipbo import ZoneError, ZoneMap
    from vision.pipeline import (
        Guard,
        Pipeline,
        open_recording,
        read_json,
        replay_events,
        table_game,
    )
    from vision.sources import SourceError

    events, source, recognizer = _setup(args, path)

    def show(obj: dict) -> None:
        if stream:
            print(json.dumps(obj) if args.json else _human(obj), flush=True)

    # A stream shows each status as a line of its own, not on stderr as well; replay shows
    # none, so says a source's warnings there (a picture skipped, a stretch of video that
    # would not read: the transcript may lack its moves).
    said = _SourceWarnings(args.command, say=not stream)
    sources_log = logging.getLogger("kortbord.vision.sources")
    sources_log.addHandler(said)
    try:
        # a camera that never opens is a mistyped index or URL: said after a few tries
        src = open_recording(
            source, events, fps=args.fps, on_status=lambda s: show(s.to_json()), first_tries=4
        )
        zones = None
        if args.zones:
            try:
                zones = ZoneMap.from_json(read_json(args.zones))
            except (OSError, ValueError, ZoneError) as e:
                why = os_reason(e) if isinstance(e, OSError) else e
                raise CommandError(f"bad --zones {args.zones!r}: {why}") from e
        frames = src.frames()
        if events is not None:
            tr = replay_events(events, frames, recognizer, on_line=show, zones=zones)
            return tr.moves, events, said.count
        pipeline = Pipeline(recognizer)
        last_problem = None
        last = None
        for frame in frames:
            last = frame
            out = pipeline.process(frame)
            for obj in out.lines():
                show(obj)
            if pipeline.guard is None and frame.time >= 1.0 and pipeline.tracker.state.cards:
                try:
                    rules, state, reader = table_game(
                        args.game,
                        args.players,
                        pipeline.tracker.state,
                        road_shape=args.road_shape,
                        spiral=args.spiral,
                        zones=zones,
                    )
                    pipeline.guard = Guard(rules, state, reader)
                    pipeline.tracker.codes = rules.codes()
                    show({"event": "game", "game": args.game, "config": rules.config})
                except (ValueError, ZoneError) as e:
                    if str(e) != last_problem:
                        last_problem = str(e)
                        show({"event": "waiting", "message": str(e)})
        if pipeline.guard is not None and last is not None:
            for g in pipeline.guard.finish(pipeline.tracker.state, last.time):
                show(g.to_json())
        moves = [m.to_json() for m in pipeline.guard.history] if pipeline.guard else []
        return moves, None, said.count
    except SourceError as e:
        raise CommandError(str(e)) from e
    finally:
        sources_log.removeHandler(said)


def _human(obj: dict) -> str:
    kind = obj.get("event")
    if kind in ("laid", "removed", "moved"):
        return f"{obj['time']:8.2f}s  card {kind}: {obj['code']}"
    if kind == "move":
        moves = ", ".join(
            m["kind"] + (f" {m['card']}" if "card" in m else "") for m in obj["moves"]
        )
        return f"{obj['time']:8.2f}s  move: {moves}  {obj.get('message', '')}"
    if kind == "out_of_sync":
        return f"{obj['time']:8.2f}s  {obj['message']}"
    return f"          {obj.get('message', json.dumps(obj))}"


def cmd_watch(args: argparse.Namespace) -> int:
    """Stream one line per table event and per accepted move until the source ends (Ctrl+C,
    and a reader of the output that goes away, end it as they end every command: see
    ``kortbord.cli.main``)."""
    _run_game(args, _input(args, "source", "SOURCE"), stream=True)
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    """Print the whole transcript of a recorded game."""
    moves, events, warnings = _run_game(args, _input(args, "video", "VIDEO"), stream=False)
    out: dict = {"game": args.game, "moves": moves}
    if events is not None and "moves" in events:
        out["matches_recording"] = moves == events["moves"]
    if args.json:
        print(json.dumps(out))
    else:
        for i, m in enumerate(moves, 1):
            print(f"{i:4d}. {json.dumps(m)}")
        if not moves:
            print("no moves were read")
        if "matches_recording" in out:
            print(
                "matches the recorded moves"
                if out["matches_recording"]
                else "differs from the recorded moves"
            )
    return 1 if warnings else 0  # frames said unread: the transcript may lack moves

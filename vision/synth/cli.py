"""``kortbord dataset build | preview``: the scene generator's commands."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

from kortbord.cli import SEED, WORKERS, Number, size
from referee.cli import PLAYERS, players_checked
from vision.synth.names import LAYOUTS, TARGETS

SHARE = Number(float, 0, 1)
IMAGES = Number(int, 1)


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``dataset`` (build, preview, video) to the ``kortbord`` parser."""
    p = sub.add_parser("dataset", help="synthetic table scenes with exact labels (YOLO + JSON)")
    dsub = p.add_subparsers(dest="dataset_command", metavar="ACTION", required=True)

    b = dsub.add_parser("build", help="render a YOLO dataset with JSON ground truth")
    b.add_argument(
        "--config",
        type=Path,
        help="YAML with any of these options, e.g. datasets/default.yaml (not read unless "
        "given; options on the command line win)",
    )
    b.add_argument("--out", help="output folder (required, here or in --config)")
    b.add_argument("--images", type=IMAGES, help="number of images (required, here or in --config)")
    b.add_argument(
        "--seed", type=SEED, help="seed of the scenes (default 0): same seed, same files"
    )
    _common(b, defaults=False)
    b.add_argument("--targets", help=f"one of {', '.join(TARGETS)} (default cards+corners)")
    b.add_argument(
        "--val-fraction", type=SHARE, help="share of images in the val split (default 0.1)"
    )
    b.add_argument(
        "--workers",
        type=WORKERS,
        default=1,
        help="processes (default 1)",
    )
    b.add_argument(
        "--real-fraction",
        type=SHARE,
        help="share of scenes whose main deck is real art from --deck-dir (default 0.5)",
    )
    b.add_argument(
        "--min-card-visible",
        type=SHARE,
        help="label a card box when at least this share of the card shows (default 0.3)",
    )
    b.add_argument(
        "--min-corner-visible",
        type=SHARE,
        help="label an index corner when at least this share of it shows (default 0.6)",
    )
    b.add_argument(
        "--obb",
        action="store_true",
        help="oriented boxes (class x1 y1 … x4 y4) instead of axis-aligned",
    )
    b.add_argument("--quiet", action="store_true", help="no progress bar")
    b.set_defaults(func=_build)

    v = dsub.add_parser(
        "preview", help="write a contact sheet: one scene of every layout, labels drawn"
    )
    v.add_argument("--out", required=True, type=Path, help="image file (.jpg or .png)")
    v.add_argument("--seed", type=SEED, default=0, help="seed of the scene (default 0)")
    _common(v)
    v.add_argument("--no-labels", action="store_true", help="draw the scenes without labels")
    v.set_defaults(func=_preview)

    # ``dataset video``: the camera pipeline's test videos (vision/synth/video.py).
    vid = dsub.add_parser("video", help="render a seeded simulated game: frames + events.json")
    vid.add_argument(
        "--game", required=True, choices=("stigespill", "sten", "skipbo"), help="the game played"
    )
    vid.add_argument("--players", type=PLAYERS, default=2, help="players (default 2)")
    vid.add_argument(
        "--seed", type=SEED, default=0, help="seed of the game and its video (default 0)"
    )
    vid.add_argument("--out", required=True, help="output folder")
    vid.add_argument(
        "--policy",
        choices=("random", "greedy"),
        default="random",
        help="how every seat plays (default random)",
    )
    vid.add_argument(
        "--size", type=size, default="1280x720", help="frame size WxH (default 1280x720)"
    )
    vid.add_argument(
        "--fps", type=Number(float, 1, 60), default=8.0, help="frames per second (default 8)"
    )
    vid.add_argument(
        "--max-moves",
        type=Number(int, 1),
        default=None,
        help="stop the game at the first move the camera sees after N moves (a Stigespill "
        "draw, say, ends with its card shown)",
    )
    vid.add_argument("--mp4", action="store_true", help="also write video.mp4 (cv2.VideoWriter)")
    vid.set_defaults(func=players_checked(vid, _video))


def _video(args: argparse.Namespace) -> int:
    from vision.synth.video import cmd_video  # imports the referee engines only when asked

    return cmd_video(args)


def _common(p: argparse.ArgumentParser, defaults: bool = True) -> None:
    p.add_argument(
        "--layouts",
        default=",".join(LAYOUTS) if defaults else None,
        help="comma-separated layouts (default all)",
    )
    p.add_argument(
        "--deck-dir",
        action="append",
        default=[],
        metavar="DIR",
        help="folder of real card art named by code (QS.png, 10H.png…); repeatable",
    )
    p.add_argument(
        "--size",
        type=size,
        default="1280x720" if defaults else None,
        help="image size WxH (default 1280x720)",
    )


def parse_layouts(text: str) -> tuple[str, ...]:
    """Parse a comma-separated layout list; raise ValueError naming unknown ones."""
    names = tuple(t.strip() for t in text.split(",") if t.strip())
    bad = [n for n in names if n not in LAYOUTS]
    if bad or not names:
        raise ValueError(
            f"unknown layout(s) {', '.join(bad) or repr(text)}: "
            f"expected some of {', '.join(LAYOUTS)}"
        )
    return names


def check_deck(folder: str) -> None:
    """Raise :class:`CommandError` naming what is wrong with the deck in ``folder``: every
    card is read here, before any scene is drawn."""
    from kortbord.cli import CommandError
    from vision.synth.faces import DeckError, load_deck

    try:
        load_deck(folder)
    except DeckError as e:
        raise CommandError(str(e)) from None


def _common_args(args):
    from kortbord.cli import CommandError, folder_option

    try:
        layouts = parse_layouts(args.layouts)
    except ValueError as e:
        raise CommandError(str(e)) from None
    decks = tuple(
        str(folder_option("--deck-dir", d, "a deck folder", opencv=True)) for d in args.deck_dir
    )
    for d in decks:
        check_deck(d)
    return args.size, layouts, decks


BUILD_DEFAULTS = {
    "seed": 0,
    "size": (1280, 720),
    "targets": "cards+corners",
    "val_fraction": 0.1,
    "layouts": ",".join(LAYOUTS),
    "real_fraction": 0.5,
    "min_card_visible": 0.3,
    "min_corner_visible": 0.6,
}
# What each config key holds: YAML reads "seed: abc" or "obb: maybe" as text, "deck_dirs: 5"
# as a number, and the build would take them as they came (a bool for a count, a folder a
# letter) or fail in Python's words.
FRACTION = ((int, float), "a number in [0, 1]")
CONFIG_KINDS: dict[str, tuple[tuple[type, ...], str]] = {
    "out": ((str,), "a folder's path"),
    "images": ((int,), "a whole number"),
    "seed": ((int,), "a whole number"),
    "size": ((str,), "WIDTHxHEIGHT, e.g. 1280x720"),
    "targets": ((str,), f"one of {', '.join(TARGETS)}"),
    "layouts": ((str, list, dict), "layout names, or a mapping of layouts to weights"),
    "deck_dirs": ((list,), "a list of deck folders"),
    "obb": ((bool,), "true or false"),
    "val_fraction": FRACTION,
    "real_fraction": FRACTION,
    "min_card_visible": FRACTION,
    "min_corner_visible": FRACTION,
}
CONFIG_KEYS = set(CONFIG_KINDS)
CONFIG_NUMBERS = {
    "images": IMAGES,
    "seed": SEED,
    **{key: SHARE for key, kind in CONFIG_KINDS.items() if kind is FRACTION},
}
# The config keys that are options of the same name too, which win over the config's; deck
# folders add up, and --obb can only turn oriented boxes on.
OPTION_KEYS = [key for key in CONFIG_KINDS if key not in ("deck_dirs", "obb")]


def _wrong_kind(key: str, value) -> bool:
    """Return whether a config value is not of the kind ``key`` holds ("deck_dirs:" with
    nothing after it is no deck; any other key left empty has no value to take)."""
    kinds, _ = CONFIG_KINDS[key]
    if value is None:
        return key != "deck_dirs"
    if isinstance(value, bool) != (bool in kinds) or not isinstance(value, kinds):
        return True
    return (
        key == "deck_dirs"
        and isinstance(value, list)  # as checked above
        and not all(isinstance(d, str) for d in value)
    )


def _yaml_problem(e) -> str:
    """Say a YAML error on one line, with where it is ("line 2, column 1: expected …"), not
    PyYAML's lines with '<unicode string>' and a caret."""
    mark, problem = getattr(e, "problem_mark", None), getattr(e, "problem", None)
    if problem is None:
        return str(e).splitlines()[0]
    return f"line {mark.line + 1}, column {mark.column + 1}: {problem}" if mark else problem


def load_config(path: Path) -> dict:
    """Read a dataset config YAML; raise ValueError naming the file and the bad key."""
    import yaml

    from vision.images import check_file, os_reason

    try:
        check_file(path)
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as e:
        raise ValueError(f"cannot read config {str(path)!r}: {os_reason(e)}") from None
    except UnicodeDecodeError:
        raise ValueError(f"config {str(path)!r} is not text (UTF-8)") from None
    except yaml.YAMLError as e:
        raise ValueError(f"config {str(path)!r} is not valid YAML: {_yaml_problem(e)}") from None
    if not isinstance(data, dict):
        raise ValueError(f"config {str(path)!r} must be a mapping of options")
    bad = sorted(set(data) - CONFIG_KEYS)
    if bad:
        raise ValueError(
            f"config {str(path)!r}: unknown key(s) {', '.join(bad)}; "
            f"known: {', '.join(sorted(CONFIG_KEYS))}"
        )
    for key, value in data.items():
        if _wrong_kind(key, value):
            raise ValueError(
                f"config {str(path)!r}: {key} must be {CONFIG_KINDS[key][1]}, not {value!r:.40}"
            )
        try:  # what the option of the same name takes
            if key in CONFIG_NUMBERS:
                CONFIG_NUMBERS[key].check(value)
            elif key == "size":
                data[key] = size(value)
        except (ValueError, argparse.ArgumentTypeError) as e:
            raise ValueError(f"config {str(path)!r}: {key}: {e}") from None
    return data


def _weight(x) -> bool:
    """Whether a layout's weight is one: a finite number of at least 0 (no bool, no text)."""
    return isinstance(x, int | float) and not isinstance(x, bool) and math.isfinite(x) and x >= 0


def _layouts_value(v) -> tuple[str, ...] | dict[str, float]:
    if isinstance(v, dict):
        parse_layouts(",".join(map(str, v)))
        weights = v.values()
        if (
            not all(_weight(x) for x in weights)
            or sum(weights) <= 0
            or not math.isfinite(sum(weights))
        ):
            raise ValueError(f"layout weights must be numbers, non-negative and not all zero: {v}")
        return {str(k): float(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        v = ",".join(map(str, v))
    return parse_layouts(str(v))


def _build(args: argparse.Namespace) -> int:
    import sys

    from kortbord.cli import CommandError, folder_option, no_file_in_the_way
    from vision.images import os_reason
    from vision.synth.dataset import BuildConfig, build

    opts: dict[str, Any] = dict(BUILD_DEFAULTS)  # the config's values, checked below
    config_decks: list[str] = []
    try:
        if args.config:
            conf = load_config(args.config)
            config_decks = [str(d) for d in conf.pop("deck_dirs", []) or []]
            opts.update(conf)
        for key in OPTION_KEYS:
            if getattr(args, key) is not None:
                opts[key] = getattr(args, key)
        layouts = _layouts_value(opts["layouts"])
    except ValueError as e:
        raise CommandError(str(e)) from None
    decks = []
    for d in config_decks:  # optional: they may live outside a user's clone
        if folder_option(
            f"deck_dirs in {str(args.config)!r}", d, "deck folders", opencv=True
        ).is_dir():
            decks.append(str(Path(d)))
        else:
            print(
                f"kortbord dataset build: deck folder {d!r} from the config not found; skipped",
                file=sys.stderr,
            )
    decks += [
        str(folder_option("--deck-dir", d, "a deck folder", opencv=True)) for d in args.deck_dir
    ]
    for d in decks:
        check_deck(d)
    if opts.get("out") is None or opts.get("images") is None:
        raise CommandError("--out and --images are required (on the command line or in --config)")
    if opts["targets"] not in TARGETS:
        raise CommandError(
            f"unknown --targets {opts['targets']!r}: expected one of {', '.join(TARGETS)}"
        )
    out = folder_option("--out", str(opts["out"]), opencv=True)
    no_file_in_the_way("--out", out, out)
    cfg = BuildConfig(
        out=out,
        images=opts["images"],
        seed=int(opts["seed"]),
        layouts=layouts,
        deck_dirs=tuple(decks),
        size=opts["size"],
        targets=opts["targets"],
        val_fraction=float(opts["val_fraction"]),
        workers=args.workers,
        real_fraction=float(opts["real_fraction"]),
        min_card_visible=float(opts["min_card_visible"]),
        min_corner_visible=float(opts["min_corner_visible"]),
        obb=bool(args.obb or opts.get("obb", False)),
        progress=not args.quiet,
    )
    try:
        summary = build(cfg)
    except OSError as e:
        raise CommandError(f"cannot write to {str(out)!r}: {os_reason(e)}") from None
    print(json.dumps(summary))
    return 0


def _preview(args: argparse.Namespace) -> int:
    from kortbord.cli import CommandError, no_file_in_the_way
    from vision.images import imwrite, os_reason
    from vision.synth.preview import contact_sheet

    size, layouts, decks = _common_args(args)
    if args.out.suffix.lower() not in (".jpg", ".jpeg", ".png"):
        raise CommandError(f"--out {str(args.out)!r} must end in .jpg or .png")
    if args.out.is_dir():  # said "cannot write 'sheet.jpg'" and no more
        raise CommandError(f"--out {str(args.out)!r} is a folder, not a picture's name")
    no_file_in_the_way("--out", args.out, args.out.parent)
    sheet = contact_sheet(args.seed, layouts, decks, size, labels=not args.no_labels)
    import cv2

    try:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        params = [cv2.IMWRITE_JPEG_QUALITY, 82] if args.out.suffix.lower() != ".png" else []
        ok = imwrite(args.out, sheet, params)
    except OSError as e:
        raise CommandError(f"cannot write {str(args.out)!r}: {os_reason(e)}") from None
    except cv2.error as e:
        raise CommandError(f"cannot write {str(args.out)!r}: {e}") from None
    if not ok:
        raise CommandError(f"cannot write {str(args.out)!r}")
    print(json.dumps({"out": str(args.out), "width": sheet.shape[1], "height": sheet.shape[0]}))
    return 0

"""The ``kortbord`` command. Each layer adds its own subcommands in a module of its own.

A subcommand module defines ``register(subparsers)``, which adds parsers whose default
``func(args) -> int`` runs the command. Modules are imported only when the command line is
built, and each imports its heavy dependencies inside ``func``, so ``kortbord simulate``
never loads OpenCV or numpy (tests/referee/test_purity.py). Flask it does: the web commands'
module lies in the web app's package, whose ``__init__`` is the app factory.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from pathlib import Path

# One line per layer that contributes commands (dependency order: referee, vision, webui).
COMMAND_MODULES = [
    "referee.cli",  # simulate
    "vision.synth.cli",  # dataset build | video | preview
    "vision.cli",  # detect, eval, train, road, watch, replay
    "webui.cli",  # serve, run
]


class CommandError(Exception):
    """A user error that ends a command with a clear message and exit code 2."""


def folder_option(
    option: str, given: str, what: str = "a folder", *, exists: bool = False, opencv: bool = False
) -> Path:
    """Return the folder ``option`` was given; raise :class:`CommandError` naming the option
    for an empty path (``Path("")`` is the current folder: a blank, not a folder meant),
    with ``exists`` for a folder that is not there, and with ``opencv`` (its files' names go
    to OpenCV, Ultralytics or a YAML file as they are) for a name that is not UTF-8: OpenCV
    crashed on it, and a dataset's YAML ended the command in a traceback."""
    if not given:
        raise CommandError(f"{option} needs {what}, not an empty path")
    if opencv:
        from vision.images import NOT_UTF8, opencv_can_name, shown

        if not opencv_can_name(given):
            raise CommandError(f"{option} '{shown(given)}': {NOT_UTF8}")
    path = Path(given)
    if exists and not path.is_dir():
        raise CommandError(f"{option} {given!r}: no such folder")
    return path


def os_problem(e: OSError) -> str:
    """Say an operating-system error plainly: "PATH: permission denied", not "[Errno 13] …"."""
    from vision.images import os_reason

    return f"{e.filename}: {os_reason(e)}" if e.filename else os_reason(e)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("kortbord")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="kortbord", description="Referee and score keeper for card games on a real table."
    )
    parser.add_argument("--version", action="version", version=f"kortbord {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name and name.startswith(e.name):  # layer not installed in this build
                continue
            raise
        module.register(sub)
    _describe(sub)
    return parser


def _describe(sub: argparse._SubParsersAction) -> None:
    """Open each command's help with its one line, as its parent's help lists it, and so on
    down (``dataset build``): ``kortbord run --help`` began at "usage:", not a word of what
    the command does."""
    for choice in sub._choices_actions:
        command = sub.choices[choice.dest]
        if command.description is None and choice.help:
            command.description = choice.help[0].upper() + choice.help[1:] + "."
        for action in command._actions:
            if isinstance(action, argparse._SubParsersAction):
                _describe(action)


def main(argv: list[str] | None = None) -> int:
    # OpenCV's and FFmpeg's own warnings ("[ WARN:0@0.375] … can't open camera by index")
    # would come before the command's one-line reason for the same trouble; set either
    # variable to see them again.
    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")
    os.environ.setdefault("OPENCV_FFMPEG_LOGLEVEL", "-8")  # AV_LOG_QUIET
    # OpenCV's own AVI reader, tried after FFmpeg fails, prints a cut-off file's bytes on
    # stderr whatever the log level ("Unexpected element. Expected: LIST. Got: \xadU."); FFmpeg
    # reads every AVI that one does, so it is left out ("0" disables a video backend).
    os.environ.setdefault("OPENCV_VIDEOIO_PRIORITY_CV_MJPEG", "0")
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except CommandError as e:
        print(f"kortbord {args.command}: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader of the output went away (`| head`): said nothing
        # more is written there; Python would say so again as it flushed stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as e:  # a file or folder the command may not read or write
        print(f"kortbord {args.command}: {os_problem(e)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130

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
import math
import os
import re
import sys
from pathlib import Path
from typing import Any

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
        raise CommandError(f"{option} {given!r}: {'not a' if path.exists() else 'no such'} folder")
    return path


def cores() -> int:
    """Return how many cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


class Number:
    """An argparse ``type`` for every seed, count and size a command takes: a whole number
    (``int``) or a finite one (``float``) of at least ``least``, above ``above``, at most
    ``most`` or, with ``up_to_cores``, this computer's cores (threads beyond them wait on each
    other: 64 onnxruntime threads on 2 cores took 8 times as long). Any other value argparse
    refuses as it refuses a choice not offered, naming the option, with exit status 2
    ("argument --seed: expected a whole number 0 or more, not -1"): ``simulate`` took a
    negative --seed that ``dataset build`` refused, and each command said its limits in words
    of its own."""

    def __init__(
        self,
        kind: type[int] | type[float],
        least: float | None = None,
        most: float | None = None,
        *,
        above: float | None = None,
        up_to_cores: bool = False,
        note: str = "",
    ) -> None:
        self.kind, self.least, self.most, self.above = kind, least, most, above
        self.up_to_cores, self.note = up_to_cores, note

    def expected(self) -> str:
        """Say what the option takes: "a whole number 1–65535", "a number above 0"."""
        most = cores() if self.up_to_cores else self.most
        what = "a whole number" if self.kind is int else "a number"
        if self.above is not None:
            what += f" above {self.above}"
        if self.least is not None and most is not None:
            what += f" {self.least}–{most}"
        elif self.least is not None:
            what += f" {self.least} or more"
        elif most is not None:
            what += f" {most} or less"
        cores_said = f" (this computer has {most} cores)" if self.up_to_cores else ""
        return what + cores_said + self.note

    def check(self, value: object) -> int | float:
        """Return ``value`` when the option takes it; else raise ValueError saying what it
        takes (a config file's value is checked here too)."""
        kinds = (int,) if self.kind is int else (int, float)
        most = cores() if self.up_to_cores else self.most
        if (
            isinstance(value, bool)
            or not isinstance(value, kinds)
            or not math.isfinite(value)
            or (self.least is not None and value < self.least)
            or (self.above is not None and value <= self.above)
            or (most is not None and value > most)
        ):
            raise ValueError(f"expected {self.expected()}, not {value!r}")
        return value

    def __call__(self, text: str) -> int | float:
        try:
            value = self.kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                said(f"expected {self.expected()}, not {text!r}")
            ) from None
        try:
            return self.check(value)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {self.expected()}, not {text}") from None


SEED = Number(int, 0)  # every seed: numpy's generators take no negative one
THREADS = Number(int, 1, up_to_cores=True)
# Worker processes: beyond the cores they render no faster, but they are not refused there as
# threads are: a GPU host's data loaders wait on files too, and gpu_train.sh's 10 and 7 run on
# 2 cores in its dry run. 100000 forked as many.
WORKERS = Number(int, 1, 256)
SIDE = Number(int, 64, 8192)  # a picture's width or height, in pixels


def size(text: str) -> tuple[int, int]:
    """An argparse ``type`` for a picture's size, ``WIDTHxHEIGHT`` (a config file's too):
    return ``(width, height)``; raise ArgumentTypeError saying what it takes."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX×]\s*(\d+)\s*", str(text))
    try:
        if not m:
            raise ValueError(text)
        return int(SIDE.check(int(m[1]))), int(SIDE.check(int(m[2])))
    except ValueError:
        raise argparse.ArgumentTypeError(
            said(f"expected WIDTHxHEIGHT, each {SIDE.expected()}, e.g. 1280x720, not {text!r}")
        ) from None


def exit_statuses(one: str | None = None, two: str = "") -> str:
    """Return the end of a command's --help that says its exit statuses: 1 when ``one`` (why
    it returns 1), 2 for a bad option or input and ``two`` (only ``detect`` said them, in
    words of its own)."""
    text = "Exit status: 0 when done"
    if one:
        text += f"; 1 when {one}"
    return text + f"; 2 for a bad option or input{two} (named on stderr)."


def no_file_in_the_way(option: str, given: Path, folder: Path) -> None:
    """Raise :class:`CommandError` when ``folder`` (``given``'s, to be made if missing) or a
    folder above it is a file: making it said "file exists" or "not a directory", and
    ``dataset preview`` said so only after drawing its scenes."""
    for there in (folder, *folder.parents):
        if there.is_dir():
            return
        if there.exists():
            where = "" if there == given else f": {str(there)!r}"
            raise CommandError(f"{option} {str(given)!r}{where} is a file, not a folder")


def os_problem(e: OSError) -> str:
    """Say an operating-system error plainly: "PATH: permission denied", not "[Errno 13] …"."""
    from vision.images import os_reason

    return f"{e.filename}: {os_reason(e)}" if e.filename else os_reason(e)


def load_json(text: str) -> Any:
    """Return the content of JSON ``text`` (a file given to a command: ground truth, a zone
    map, a recording's events, photos' codes); raise ValueError saying plainly where it is not
    JSON, "not JSON (line 1, column 1)", not Python's "Expecting value: line 1 column 1
    (char 0)", or "its JSON is nested too deeply", not "maximum recursion depth exceeded"."""
    import json

    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON (line {e.lineno}, column {e.colno})") from None
    except RecursionError:
        raise ValueError("its JSON is nested too deeply") from None


SURROGATE_REPR = re.compile(r"\\udc([89a-f][0-9a-f])")  # repr() of a byte not UTF-8


def said(message: str) -> str:
    r"""Return ``message`` as the terminal is to show it: a name's byte that is not UTF-8 as
    ``\xe6`` (``kort\xe6.jpg``, as ``vision.images.shown`` writes it), not ``\udce6``, whether
    the message holds the name (a lone surrogate) or its repr ("cannot read config
    'kort\udce6.txt'")."""
    message = SURROGATE_REPR.sub(r"\\x\1", message)
    try:
        return message.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a surrogate that no byte gave
        return message


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
    describe(sub)
    return parser


def describe(sub: argparse._SubParsersAction) -> None:
    """Open each command's help with its one line, as its parent's help lists it, and so on
    down (``dataset build``): ``kortbord run --help`` began at "usage:", not a word of what
    the command does; end it with its exit statuses."""
    for choice in sub._choices_actions:
        command = sub.choices[choice.dest]
        if command.description is None and choice.help:
            command.description = choice.help[0].upper() + choice.help[1:] + "."
        below = [a for a in command._actions if isinstance(a, argparse._SubParsersAction)]
        for action in below:
            describe(action)
        if not below and command.epilog is None:  # a command that returns 1 sets its own
            command.epilog = exit_statuses()


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
        print(said(f"kortbord {args.command}: {e}"), file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader of the output went away (`| head`): said nothing
        # more is written there; Python would say so again as it flushed stdout at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except OSError as e:  # a file or folder the command may not read or write
        print(said(f"kortbord {args.command}: {os_problem(e)}"), file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130

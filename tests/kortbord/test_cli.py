"""The ``kortbord`` command line as a user meets it: every seed, count and size refused alike,
and every command's --help saying its exit statuses."""

from __future__ import annotations

import argparse

import pytest

import kortbord.cli
from kortbord.cli import build_parser, main


def _commands(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """Yield ``(path, parser)`` for every command that runs (``("dataset", "build")``)."""
    below = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not below:
        yield path, parser
    for action in below:
        for name, command in action.choices.items():
            yield from _commands(command, (*path, name))


COMMANDS = dict(_commands(build_parser()))
SEEDED = [path for path, p in COMMANDS.items() if "--seed" in p._option_string_actions]


def _refused(capsys, argv: list[str]) -> str:
    """Return the line in which argparse refused ``argv``: it exits 2, as for any bad option."""
    with pytest.raises(SystemExit) as done:
        main(argv)
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: ") and "Traceback" not in err
    return err.splitlines()[-1]


def test_the_seeded_commands_are_found():
    assert {("simulate",), ("dataset", "build"), ("dataset", "video"), ("train",)} <= set(SEEDED)


@pytest.mark.parametrize("path", SEEDED, ids=" ".join)
def test_every_seed_refuses_a_negative_one_alike(capsys, path):
    """``simulate --seed -1`` ran while ``dataset build`` refused it in words of its own."""
    said = _refused(capsys, [*path, "--seed", "-1"])
    assert said == (
        f"kortbord {' '.join(path)}: error: argument --seed: expected a whole number 0 or more, "
        "not -1"
    )


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["simulate", "sten", "--games", "0"], "--games: expected a whole number 1 or more, not 0"),
        (
            ["simulate", "sten", "--seed", "1.5"],
            "--seed: expected a whole number 0 or more, not '1.5'",
        ),
        (
            ["dataset", "build", "--images", "0"],
            "--images: expected a whole number 1 or more, not 0",
        ),
        (
            ["dataset", "build", "--workers", "100000"],
            "--workers: expected a whole number 1–256, not 100000",
        ),
        (
            ["dataset", "build", "--val-fraction", "nan"],
            "--val-fraction: expected a number 0–1, not nan",
        ),
        (
            ["dataset", "build", "--size", "100000x10"],
            "--size: expected WIDTHxHEIGHT, each a whole ",
        ),
        (["dataset", "preview", "--size", "12x"], "--size: expected WIDTHxHEIGHT, each a whole "),
        (["dataset", "video", "--fps", "0"], "--fps: expected a number 1–60, not 0"),
        (
            ["dataset", "video", "--max-moves", "0"],
            "--max-moves: expected a whole number 1 or more",
        ),
        (["detect", "x.jpg", "--threads", "0"], "--threads: expected a whole number 1–2 (this "),
        (["eval", "--synthetic-images", "-1"], "--synthetic-images: expected a whole number 0 or"),
        (["train", "--imgsz", "100000"], "--imgsz: expected a whole number 32–8192, not 100000"),
        (
            ["train", "--render-workers", "512"],
            "--render-workers: expected a whole number 1–256, not",
        ),
        (
            ["train", "--threads", "3"],
            "--threads: expected a whole number 1–2 (this computer has 2",
        ),
        (["train", "--detector-hours", "inf"], "--detector-hours: expected a number 0 or more (0:"),
        (
            ["replay", "x", "--game", "sten", "--fps", "-1"],
            "--fps: expected a number above 0, not -1",
        ),
        (["watch", "0", "--game", "sten", "--fps", "inf"], "--fps: expected a number above 0"),
        (["serve", "--port", "70000"], "--port: expected a whole number 1–65535, not 70000"),
    ],
)
def test_counts_and_sizes_that_mean_nothing_are_refused_by_name(capsys, monkeypatch, argv, says):
    monkeypatch.setattr(kortbord.cli, "cores", lambda: 2)
    command = next(" ".join(p) for p in COMMANDS if list(p) == argv[: len(p)])
    assert _refused(capsys, argv).startswith(f"kortbord {command}: error: argument {says}")


# The commands that end with exit status 1 for a reason of their own (the rest: 0 or 2)
RETURNS_ONE = {
    ("simulate",): "a game broke a rule or an invariant",
    ("detect",): "an image could not be read",
    ("eval",): "a real photo did not read",
    ("road",): "the road cannot be read",
    ("replay",): "a picture or part of the video did not read",
}


@pytest.mark.parametrize("path", list(COMMANDS), ids=" ".join)
def test_every_command_says_its_exit_statuses(path):
    """Only ``detect --help`` said them."""
    said = " ".join(COMMANDS[path].format_help().split())
    assert "Exit status: 0 when done; " in said
    assert "; 2 for a bad option or input" in said
    one = RETURNS_ONE.get(path)
    assert (f"; 1 when {one}" in said) if one else ("; 1 when" not in said)


@pytest.fixture
def odd_names(tmp_path, monkeypatch):
    """A folder holding a file and a folder whose names are not UTF-8 (``kort\\xe6.txt``,
    ``mapp\\xe6``: an old camera card's or zip's), and a file of no picture; the commands
    run there."""
    import os

    monkeypatch.chdir(tmp_path)
    with open(b"kort\xe6.txt", "wb") as f:
        f.write(b"hello")
    os.mkdir(b"mapp\xe6")
    (tmp_path / "text.txt").write_text("hello")
    return os.fsdecode(b"kort\xe6.txt"), os.fsdecode(b"mapp\xe6")


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["road", "text.txt", "--truth", "{file}"], "cannot read ground truth 'kort\\xe6.txt': "),
        (["dataset", "build", "--config", "{file}"], "config 'kort\\xe6.txt' must be a mapping"),
        (["dataset", "build", "--config", "{folder}"], "cannot read config 'mapp\\xe6': is a"),
        (["eval", "--synthetic-images", "0", "--real", "{folder}"], "--real 'mapp\\xe6': no test/"),
        (["replay", "{folder}", "--game", "sten", "--truth"], "labels at 'mapp\\xe6/labels"),
    ],
)
def test_a_name_that_is_not_utf8_is_shown_as_detect_shows_it(capsys, odd_names, argv, says):
    r"""The README promises ``kort\xe6.jpg``; most messages said ``'kort\udce6.jpg'``."""
    file, folder = odd_names
    assert main([a.format(file=file, folder=folder) for a in argv]) == 2
    err = capsys.readouterr().err
    assert says in err and "\\udc" not in err and "\\xe6" in err and err.count("\n") == 1


@pytest.mark.parametrize("option", ["--seed", "--size"])
def test_an_options_value_that_is_not_utf8_is_shown_as_a_name_is(capsys, option):
    import os

    said = _refused(capsys, ["dataset", "preview", "--out", "p.jpg", option, os.fsdecode(b"\xe6")])
    assert said.endswith(", not '\\xe6'")


def test_a_file_given_for_a_folder_is_not_said_to_be_missing(capsys, odd_names):
    assert main(["eval", "--synthetic-images", "0", "--real", "text.txt"]) == 2
    assert capsys.readouterr().err == "kortbord eval: --real 'text.txt': not a folder\n"
    assert main(["eval", "--synthetic-images", "0", "--real", "gone"]) == 2
    assert capsys.readouterr().err == "kortbord eval: --real 'gone': no such folder\n"


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (["simulate", "sten", "--players", "0"], "expected a whole number 1–10, not 0"),
        (["simulate", "stigespill", "--players", "-3"], "expected a whole number 1–10, not -3"),
        (["simulate", "sten", "--players", "99"], "expected a whole number 1–10, not 99"),
        (["simulate", "sten", "--players", "two"], "expected a whole number 1–10, not 'two'"),
        # where the command knows the game, its own limits
        (["simulate", "sten", "--players", "1"], "expected a whole number 2–10 for Sten, not 1"),
        (
            ["simulate", "skipbo", "--players", "9"],
            "expected a whole number 2–8 for Skip-Bo (4, 6 or 8 as teams of two), not 9",
        ),
        (
            ["dataset", "video", "--game", "sten", "--players", "1", "--out", "v"],
            "expected a whole number 2–10 for Sten, not 1",
        ),
        (
            ["replay", "x", "--game", "sten", "--players", "1"],
            "expected a whole number 2–10 for Sten, not 1",
        ),
        (
            ["watch", "0", "--game", "skipbo", "--players", "0"],
            "expected a whole number 1–10, not 0",
        ),
        # 0 was taken as no number given: a table of 2 players
        (["serve", "--source", "0", "--players", "0"], "expected a whole number 1–10, not 0"),
        (["run", "--players", "11"], "expected a whole number 1–10, not 11"),
    ],
)
def test_players_are_refused_as_any_count_is(capsys, tmp_path, monkeypatch, argv, says):
    """A bad --players was refused in the rules' words ("Sten is played by 2 to 10 players,
    not 1"), not argparse's, and ``serve`` said the web form's."""
    monkeypatch.chdir(tmp_path)  # dataset video writes nothing there

    def served(*_args, **_kwargs):
        raise AssertionError("a server was started")  # fails where it would wait for ever

    monkeypatch.setattr("werkzeug.serving.make_server", served)
    command = next(" ".join(p) for p in COMMANDS if list(p) == argv[: len(p)])
    assert _refused(capsys, argv) == f"kortbord {command}: error: argument --players: {says}"
    assert not (tmp_path / "v").exists()


@pytest.mark.parametrize("players", ["1", "10"])
def test_players_each_game_is_played_by_are_taken(capsys, players):
    assert main(["simulate", "stigespill", "--players", players, "--games", "1"]) == 0
    assert '"games": 1' in capsys.readouterr().out


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("", "not JSON (line 1, column 1)"),
        ("{", "not JSON (line 1, column 2)"),
        ('{\n  "cards": [1,\n  ]\n}', "not JSON (line 3, column 3)"),
        ("[" * 100_000 + "]" * 100_000, "its JSON is nested too deeply"),
    ],
)
def test_json_that_does_not_read_says_where_plainly(text, says):
    """Python's words were "Expecting value: line 1 column 1 (char 0)"."""
    with pytest.raises(ValueError) as e:
        kortbord.cli.load_json(text)
    assert str(e.value) == says


def test_a_file_given_that_is_not_json_is_named_with_where(capsys, tmp_path):
    bad = tmp_path / "truth.json"
    bad.write_text('{"cards": [}\n')
    assert main(["road", str(tmp_path / "road.jpg"), "--truth", str(bad)]) == 2
    said = f"kortbord road: cannot read ground truth '{bad}': not JSON (line 1, column 12)\n"
    assert capsys.readouterr().err == said
    import cv2
    import numpy as np

    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "000.png"), np.full((36, 64, 3), 60, np.uint8))
    assert main(["replay", str(frames), "--game", "skipbo", "--zones", str(bad)]) == 2
    said = f"kortbord replay: bad --zones '{bad}': not JSON (line 1, column 12)\n"
    assert capsys.readouterr().err == said


def test_a_labels_line_that_is_not_json_is_named_with_where(capsys, tmp_path):
    labels = tmp_path / "labels.jsonl"
    labels.write_text('{"frame": 0, "cards": []}\n{"frame": 1, oops}\n')
    assert main(["replay", str(tmp_path), "--game", "sten", "--truth", str(labels)]) == 2
    assert capsys.readouterr().err == (
        f"kortbord replay: bad ground-truth labels: {labels} line 2: not JSON (column 14)\n"
    )

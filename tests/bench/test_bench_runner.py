"""The benchmark runner and each benchmark's command line."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import bench
from bench.__main__ import main

NAMES = sorted(m.name for m in pkgutil.iter_modules(bench.__path__) if m.name.startswith("bench_"))


@pytest.mark.parametrize("name", NAMES)
def test_each_benchmark_says_what_it_does_when_asked_instead_of_running(name, capsys):
    module = importlib.import_module(f"bench.{name}")
    with pytest.raises(SystemExit) as done:
        module.main(["--help"])
    assert done.value.code == 0
    assert capsys.readouterr().out.startswith("usage:")


def test_the_runner_runs_the_benchmarks_named_and_refuses_a_name_that_is_none(monkeypatch, capsys):
    ran = []
    for name in NAMES:
        module = importlib.import_module(f"bench.{name}")
        monkeypatch.setattr(module, "main", lambda argv, name=name: ran.append((name, argv)) or 0)
    assert main(["bench_web", "bench_referee"]) == 0
    assert ran == [("bench_referee", []), ("bench_web", [])]  # in name order, their defaults
    assert main(["bench_nope"]) == 2
    assert "no benchmark 'bench_nope'" in capsys.readouterr().err
    ran.clear()
    assert main([]) == 0 and [n for n, _ in ran] == NAMES


def test_the_runner_says_what_it_does_when_asked(capsys):
    """``python -m bench --help`` answered "no benchmark '--help'", exit 2."""
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m bench [NAME ...]") and ", ".join(NAMES) in out


def test_a_models_folder_named_for_the_recognizer_benchmark_must_hold_models(tmp_path, capsys):
    """A mistyped --models said "skipped" and exited 0, as a checkout with no models does."""
    from bench.bench_recognizer import main as bench_recognizer

    assert bench_recognizer(["--models", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"bench_recognizer: no models in {tmp_path}\n"


@pytest.mark.parametrize(
    ("tool", "option", "given", "said"),
    [
        # --games -5 printed "hint vs greedy, -5 2-player games: -0.0%", exit 0
        ("bench_referee", "--games", "-5", "expected a whole number 1 or more, not -5"),
        ("bench_referee", "--latency-games", "0", "expected a whole number 1 or more, not 0"),
        ("bench_referee", "--seed", "-1", "expected a whole number 0 or more, not -1"),
        # --games 0 ended in a ZeroDivisionError; --roads -2 printed no roads, exit 0
        ("bench_pipeline", "--games", "0", "expected a whole number 1 or more, not 0"),
        ("bench_pipeline", "--roads", "-2", "expected a whole number 0 or more, not -2"),
        ("bench_pipeline", "--seed", "x", "expected a whole number 0 or more, not 'x'"),
        ("bench_pipeline", "--fps", "0", "expected a number 1–60, not 0"),
        ("bench_pipeline", "--move-over", "nan", "expected a number 0 or more, not nan"),
        ("bench_pipeline", "--size", "1280", "expected WIDTHxHEIGHT, each a whole number"),
        ("bench_live", "--moves", "0", "expected a whole number 1 or more, not 0"),
    ],
)
def test_the_benchmarks_check_their_numbers_as_the_commands_do(tool, option, given, said, capsys):
    """Each benchmark refuses a count, seed or size out of range with the usage, the option
    and what it takes (as every ``kortbord`` command does), exit 2, and runs nothing."""
    import importlib

    main = importlib.import_module(f"bench.{tool}").main
    with pytest.raises(SystemExit) as done:
        main([option, given])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: ") and f"argument {option}: {said}" in err


@pytest.mark.parametrize("option", ["--photos", "--frames"])
def test_the_exposure_benchmark_refuses_a_folder_named_that_is_not_there(option, tmp_path, capsys):
    """``--photos /nope --frames /nope`` printed empty results, exit 0."""
    from bench.bench_exposure import main as bench_exposure

    assert bench_exposure([option, str(tmp_path / "nope")]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"bench_exposure: {option} {tmp_path / 'nope'}: no such folder\n"

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


@pytest.mark.parametrize("option", ["--games", "--latency-games"])
def test_the_referee_benchmark_refuses_no_games(option, capsys):
    """``--games -5`` printed "hint vs greedy, -5 2-player games: -0.0%", exit 0."""
    from bench.bench_referee import main as bench_referee

    with pytest.raises(SystemExit) as done:
        bench_referee([option, "-5"])
    assert done.value.code == 2
    assert f"{option} must be at least 1, not -5" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--photos", "--frames"])
def test_the_exposure_benchmark_refuses_a_folder_named_that_is_not_there(option, tmp_path, capsys):
    """``--photos /nope --frames /nope`` printed empty results, exit 0."""
    from bench.bench_exposure import main as bench_exposure

    assert bench_exposure([option, str(tmp_path / "nope")]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == f"bench_exposure: {option} {tmp_path / 'nope'}: no such folder\n"

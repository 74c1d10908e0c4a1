"""Referee benchmark: random-play speed of each game, Skip-Bo hint latency and win rate.

``python -m bench.bench_referee [--games 400] [--seed 0]`` prints one JSON object, then a
table. Figures:

* ``games_per_second`` for random play (``referee.simulate.simulate``, every move checked
  and every invariant verified, as ``kortbord simulate`` does): Stigespill (2 players),
  Sten (4) and Skip-Bo (2); a game whose engine does not import yet is reported as skipped;
* Skip-Bo hint latency per call (one call per move) and per turn (all calls in one turn),
  p50/p95 in milliseconds, over seeded 2-player hint-vs-greedy games;
* the hint policy's win rate against greedy over ``--games`` seeded 2-player Skip-Bo games,
  seats rotating (goal ≥ 60 %).
"""

from __future__ import annotations

import argparse
import importlib
import json
import time
from typing import Any

from bench import percentile
from kortbord.cli import SEED, Number
from referee import GAMES
from referee.simulate import play_game, simulate

RANDOM_PLAY = (("stigespill", 2, 2000), ("sten", 4, 1000), ("skipbo", 2, 500))


def random_play(seed: int) -> dict[str, Any]:
    """Return random-play games/s for each game whose engine imports."""
    out: dict[str, Any] = {}
    for game, players, games in RANDOM_PLAY:
        module = GAMES[game].split(":")[0]
        try:
            importlib.import_module(module)
        except Exception as e:  # another engine still being written must not stop the rest
            out[game] = {"skipped": f"{module} does not import: {type(e).__name__}: {e}"}
            continue
        cpu = time.process_time()
        result = simulate(game, players, games, seed)
        cpu = time.process_time() - cpu
        out[game] = {
            "players": players,
            "games": games,
            "games_per_second": result["games_per_second"],
            "games_per_cpu_second": round(games / cpu, 1) if cpu else None,
            "mean_turns": result["mean_turns"],
            "invariant_violations": result["invariant_violations"],
        }
    return out


def hint_latency(games: int, seed: int) -> dict[str, Any]:
    """Time every Skip-Bo hint in ``games`` seeded 2-player hint-vs-greedy games."""
    from referee.skipbo import SkipBo

    per_call: list[float] = []
    per_turn: dict[tuple[int, int], float] = {}

    class Timed(SkipBo):
        game = 0

        def hint(self, state, seat):
            start = time.perf_counter()
            hint = super().hint(state, seat)
            took = time.perf_counter() - start
            per_call.append(took)
            key = (Timed.game, state.turns)
            per_turn[key] = per_turn.get(key, 0.0) + took
            return hint

    rules = Timed(players=2)
    for k in range(games):
        Timed.game = k
        policies = ["greedy", "greedy"]
        policies[k % 2] = "hint"
        play_game(rules, seed * 7919 + k, policies)
    turns = list(per_turn.values())
    ms = 1000.0
    return {
        "games": games,
        "calls": len(per_call),
        "turns": len(turns),
        "per_call_ms": {
            "p50": round(percentile(per_call, 0.5) * ms, 2),
            "p95": round(percentile(per_call, 0.95) * ms, 2),
            "max": round(max(per_call) * ms, 2),
        },
        "per_turn_ms": {
            "p50": round(percentile(turns, 0.5) * ms, 2),
            "p95": round(percentile(turns, 0.95) * ms, 2),
            "max": round(max(turns) * ms, 2),
        },
    }


def hint_vs_greedy(games: int, seed: int) -> dict[str, Any]:
    """Return the hint policy's wins against greedy over ``games`` seeded 2-player games."""
    result = simulate("skipbo", 2, games, seed, policy="hint", against="greedy")
    wins = result["wins"]["by_policy"]
    return {
        "games": games,
        "hint_wins": wins.get("hint", 0),
        "greedy_wins": wins.get("greedy", 0),
        "hint_win_rate": round(wins.get("hint", 0) / games, 3),
        "seconds": result["seconds"],
        "invariant_violations": result["invariant_violations"],
    }


def main(argv: list[str] | None = None) -> int:
    """Run the referee benchmark; print JSON and a table; return 1 on invariant violations."""
    p = argparse.ArgumentParser(prog="python -m bench.bench_referee", description=__doc__)
    games = Number(int, 1)  # -5 games printed a table of -0.0% wins, exit 0
    p.add_argument("--games", type=games, default=400, help="hint-vs-greedy games (default 400)")
    p.add_argument("--latency-games", type=games, default=40)
    p.add_argument("--seed", type=SEED, default=0)
    args = p.parse_args(argv if argv is not None else [])
    report = {
        "random_play": random_play(args.seed),
        "skipbo_hint_latency": hint_latency(args.latency_games, args.seed),
        "skipbo_hint_vs_greedy": hint_vs_greedy(args.games, args.seed),
    }
    print(json.dumps(report, indent=2))
    print()
    print("| figure | value |")
    print("|---|---|")
    for game, row in report["random_play"].items():
        if "skipped" in row:
            print(f"| {game} random play | skipped ({row['skipped']}) |")
        else:
            speed = f"{row['games_per_second']} games/s ({row['games_per_cpu_second']} per CPU s)"
            print(f"| {game} random play, {row['players']} players | {speed} |")
    lat = report["skipbo_hint_latency"]
    print(
        f"| Skip-Bo hint latency per call p50 / p95 | {lat['per_call_ms']['p50']} / "
        f"{lat['per_call_ms']['p95']} ms |"
    )
    print(
        f"| Skip-Bo hint latency per turn p50 / p95 | {lat['per_turn_ms']['p50']} / "
        f"{lat['per_turn_ms']['p95']} ms |"
    )
    vs = report["skipbo_hint_vs_greedy"]
    print(
        f"| Skip-Bo hint vs greedy, {vs['games']} 2-player games | "
        f"{vs['hint_win_rate']:.1%} ({vs['hint_wins']} wins, greedy {vs['greedy_wins']}) |"
    )
    bad = sum(r.get("invariant_violations", 0) for r in report["random_play"].values())
    bad += vs["invariant_violations"]
    return 1 if bad else 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv[1:]))

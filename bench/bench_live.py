"""Live updates to every open page of one table: how soon the slowest page has a move.

The scenario of ``tests/webui/test_live.py``'s push test, timed. A ``kortbord serve`` process
runs on 127.0.0.1 with a fresh data folder; one 3-player Stigespill table is dealt by the app;
three pages of the table and the private page of the player on seat 1 watch its event streams.
A draw (and the card the app reveals) is posted ``--moves`` times, one at a time, each once
every page has the one before; for each, the time from sending it to the slowest page having
the snapshot that holds it. The baseline, in the same run: the move's own answer (the POST's
round trip), before which no page can be told. Prints one JSON object: medians, p95 and max
in ms; the machine's load average is printed with them, as a busy machine answers late.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from typing import Any

from bench import percentile
from bench.bench_web import Watchers, _request, draw, serving
from kortbord.cli import Number

GOAL = "issue 6 (web referee): live updates to every open page of a table within 1 s"
GOAL_MS = 1000
MOVES = 60
WARM_UP = 3  # moves made before the timed ones: the first of a server are slower
TABLE_PAGES = 3
WAIT_S = 10.0  # how long a move's pages are waited for before it counts as missed


def run(moves: int = MOVES) -> dict[str, Any]:
    """Run the benchmark; return the figures."""
    load = os.getloadavg()[0]
    with serving() as port:
        body = {"game": "stigespill", "players": 3, "deal": "app", "name": "Bench live"}
        status, t = _request(port, "POST", "/api/tables", body)
        assert status == 201, t
        token = t["players"][1]["url"].rsplit("/", 1)[1]
        watchers = [
            Watchers(port, f"/api/tables/{t['id']}/events", TABLE_PAGES),
            Watchers(port, f"/api/p/{token}/events", 1),  # the player's own page
        ]
        pages = [seen for w in watchers for seen in w.seen]
        for w in watchers:
            w.thread.start()
        deadline = time.monotonic() + WAIT_S
        while not all(pages) and time.monotonic() < deadline:  # each page's first snapshot
            time.sleep(0.01)
        answer: list[float] = []  # the move's own round trip, per move
        slowest: list[float] = []  # till the last page had it, per move
        per_page: list[list[float]] = [[] for _ in pages]
        missed = errors = made = 0
        try:
            while made < WARM_UP + moves:
                t0 = time.perf_counter()
                status, snap = draw(port, t["id"])
                t1 = time.perf_counter()
                if status != 200:
                    errors += status != 409  # 409: the game ended, the next one began
                    continue
                made += 1
                key = (snap["table"]["number"], snap["moves_made"])
                deadline = time.monotonic() + WAIT_S
                while not all(key in seen for seen in pages) and time.monotonic() < deadline:
                    time.sleep(0.001)
                if made <= WARM_UP:
                    continue
                got = [seen[key] - t0 for seen in pages if key in seen]
                if len(got) < len(pages):
                    missed += len(pages) - len(got)
                    continue
                answer.append(t1 - t0)
                for times, took in zip(per_page, got, strict=True):
                    times.append(took)
                slowest.append(max(got))
        finally:
            for w in watchers:
                w.close()

    def ms(values: list[float], q: float | None = None) -> float | None:
        if not values:
            return None
        value = statistics.median(values) if q is None else percentile(values, q)
        return round(1000 * value, 1)

    return {
        "benchmark": "web_live_pages",
        "goal": GOAL,
        "pages": {"table": TABLE_PAGES, "private": 1},
        "moves_timed": len(slowest),
        "missed_deliveries": missed,
        "errors": errors,
        "baseline_move_answer_median_ms": ms(answer),
        "slowest_page_median_ms": ms(slowest),
        "slowest_page_p95_ms": ms(slowest, 0.95),
        "slowest_page_max_ms": round(1000 * max(slowest), 1) if slowest else None,
        "slowest_page_after_answer_median_ms": ms(
            [s - a for s, a in zip(slowest, answer, strict=True)]
        ),
        "each_page_median_ms": [ms(p) for p in per_page],  # the table's pages, then the player's
        "moves_every_page_within_goal": sum(s <= GOAL_MS / 1000 for s in slowest),
        "load_average_1min_before": round(load, 2),
        "cpus": os.cpu_count(),
    }


def main(argv: list[str] | None = None) -> int:
    """Print the figures as JSON; return 1 when p95 misses the 1 s goal or a page missed a move."""
    parser = argparse.ArgumentParser(prog="bench_live", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--moves", type=Number(int, 1), default=MOVES, help="moves timed (%(default)s)"
    )
    args = parser.parse_args(argv)
    result = run(args.moves)
    print(json.dumps(result, indent=1))
    p95 = result["slowest_page_p95_ms"]
    ok = p95 is not None and p95 <= GOAL_MS
    return 0 if ok and not result["missed_deliveries"] and not result["errors"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""Seeded playouts of any game: policies, invariants, statistics.

Every move a policy picks is re-checked with ``rules.check``; after every move the game's
own invariants (no card created or lost…) and the turn order are verified. Anything broken
is counted in ``invariant_violations`` and kept as a message.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from referee import make_rules
from referee.core import CHANCE, IllegalMove, Move, Rules, RulesError

POLICIES = ("random", "greedy", "hint")
MAX_MOVES = 20_000  # a game still running after this many moves is a bug, reported as such


def choose(rules: Rules, state: Any, policy: str, rng: random.Random) -> Move:
    """Return the move ``policy`` picks in ``state`` (the seat on turn is not chance)."""
    if policy == "random":
        return rng.choice(rules.legal_moves(state))
    if policy == "greedy":
        return rules.greedy_move(state, rng)
    if policy == "hint":
        return rules.hint_move(state, rng)
    raise RulesError(f"unknown policy {policy!r}; expected one of {', '.join(POLICIES)}")


@dataclass
class GameResult:
    turns: int
    moves: int
    scores: dict[str, Any]
    violations: list[str] = field(default_factory=list)


def play_game(
    rules: Rules, seed: int, policies: list[str], *, check: bool = True
) -> tuple[GameResult, list[Move]]:
    """Play one game; ``policies[seat]`` names each seat's policy. Return result and move log."""
    rng = random.Random(seed)
    state = rules.initial_state(rng)
    violations: list[str] = []
    log: list[Move] = []
    last_seat = None
    turns = 0
    while not rules.is_over(state):
        if len(log) >= MAX_MOVES:
            violations.append(f"seed {seed}: no end after {MAX_MOVES} moves")
            break
        seat = rules.to_move(state)
        if seat == CHANCE:
            move = rules.chance_move(state, rng)
        else:
            if last_seat is not None and seat not in (last_seat, (last_seat + 1) % rules.seats):
                violations.append(f"seed {seed}: seat {seat} moved after seat {last_seat}")
            if seat != last_seat:
                turns += 1
            last_seat = seat
            move = choose(rules, state, policies[seat], rng)
        if check:
            try:
                rules.check(state, move)
            except IllegalMove as e:
                violations.append(f"seed {seed}: policy chose an illegal move {move}: {e}")
                break
        state = rules.apply(state, move)
        log.append(move)
        if check:
            violations += [f"seed {seed}: {v}" for v in rules.invariant_violations(state)]
    return GameResult(
        turns, len(log), rules.scores(state) if rules.is_over(state) else {}, violations
    ), log


def simulate(
    game: str,
    players: int,
    games: int,
    seed: int,
    policy: str = "random",
    against: str | None = None,
    variant: str | None = None,
    check: bool = True,
    teams: bool = False,
) -> dict[str, Any]:
    """Play ``games`` seeded games; return the statistics as JSON.

    With ``against``, one seat (rotating from game to game, so no seat is favoured) plays
    ``policy`` and the others ``against``; ``wins.by_policy`` then compares them.
    """
    for p in (policy, against or policy):
        if p not in POLICIES:
            raise RulesError(f"unknown policy {p!r}; expected one of {', '.join(POLICIES)}")
    config: dict[str, Any] = {"players": players}
    if variant:
        config["variant"] = variant
    if teams:
        config["teams"] = True
    rules = make_rules(game, **config)
    by_seat: Counter[int] = Counter()
    by_policy: Counter[str] = Counter()
    violations: list[str] = []
    turns = []
    together = 0  # games won by more than one seat: a tie, or partners
    start = time.perf_counter()
    for k in range(games):
        if against:
            policies = [against] * rules.seats
            policies[k % rules.seats] = policy
        else:
            policies = [policy] * rules.seats
        result, _ = play_game(rules, seed * 1_000_003 + k, policies, check=check)
        violations += result.violations
        turns.append(result.turns)
        together += len(result.scores.get("winners", [])) > 1
        for seat in result.scores.get("winners", []):
            by_seat[seat] += 1
            by_policy[policies[seat]] += 1
    seconds = time.perf_counter() - start
    out = {
        "game": game,
        "players": players,
        "config": rules.config,
        "games": games,
        "seed": seed,
        "policy": policy,
        "against": against,
        "seconds": round(seconds, 3),
        "games_per_second": round(games / seconds, 2) if seconds else None,
        "mean_turns": round(sum(turns) / len(turns), 2) if turns else 0,
        "wins": {
            "by_seat": {str(s): by_seat[s] for s in range(rules.seats)},
            "by_policy": dict(by_policy),
            # each of a game's winners counts above: these games count more than once
            "games_won_together": together,
        },
        "invariant_violations": len(violations),
    }
    if violations:
        out["violation_examples"] = violations[:10]
    return out

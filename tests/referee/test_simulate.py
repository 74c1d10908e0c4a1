"""The simulator: the figures issue 2 asks it to print, and checks that catch what they check."""

from __future__ import annotations

import dataclasses
import json

import pytest

from kortbord.cli import main
from referee.simulate import play_game
from referee.sten import Sten
from referee.stigespill import Draw, Stigespill


@pytest.mark.parametrize(
    ("game", "args", "seats"),
    [
        ("stigespill", ["--players", "2", "--variant", "strategy"], 2),
        ("sten", ["--players", "3"], 3),
        ("skipbo", ["--players", "2"], 2),
    ],
)
def test_simulate_prints_every_figure_the_issue_names(capsys, game, args, seats):
    argv = ["simulate", game, *args, "--games", "6", "--seed", "2"]
    assert main([*argv, "--policy", "greedy", "--against", "random"]) == 0
    out = json.loads(capsys.readouterr().out)
    named = {"games", "seconds", "games_per_second", "mean_turns", "wins", "invariant_violations"}
    assert named <= out.keys()
    assert out["games"] == 6 and out["invariant_violations"] == 0
    assert out["seconds"] > 0 and out["games_per_second"] > 0 and out["mean_turns"] > 0
    by_seat, by_policy = out["wins"]["by_seat"], out["wins"]["by_policy"]
    assert set(by_seat) == {str(s) for s in range(seats)}
    assert set(by_policy) <= {"greedy", "random"}
    assert sum(by_seat.values()) == sum(by_policy.values()) >= 6  # every game has a winner


class _SkipsASeat(Stigespill):
    """A broken referee: after a move the turn jumps one seat too far."""

    def apply(self, state, move):
        after = super().apply(state, move)
        if after.turn != state.turn and after.winner is None:
            after = dataclasses.replace(after, turn=(after.turn + 1) % self.seats)
        return after


class _PlaysOutOfTurn(Stigespill):
    """A broken greedy policy: it draws for the next seat."""

    def greedy_move(self, state, rng):
        return Draw((state.turn + 1) % self.seats)


class _LosesACard(Sten):
    """A broken referee: every lay takes a second card out of the hand."""

    def apply(self, state, move):
        after = super().apply(state, move)
        hand = after.hands[state.turn]
        if after.winner is None and hand and hand != state.hands[state.turn]:
            hands = list(after.hands)
            hands[state.turn] = hand[1:]
            counts = list(after.counts)
            counts[state.turn] -= 1
            after = dataclasses.replace(after, hands=tuple(hands), counts=tuple(counts))
        return after


@pytest.mark.parametrize(
    ("rules", "policy", "words"),
    [
        (_SkipsASeat(3), "random", "seat 2 moved after seat 0"),
        (_PlaysOutOfTurn(2), "greedy", "policy chose an illegal move"),
        (_LosesACard(players=3), "random", "not 52"),
    ],
)
def test_playouts_catch_a_skipped_turn_an_illegal_move_and_a_lost_card(rules, policy, words):
    """The playouts' zero violations mean something: each check fires on a broken game."""
    result, _ = play_game(rules, 1, [policy] * rules.seats)
    assert any(words in v for v in result.violations), result.violations[:3]

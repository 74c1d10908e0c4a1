"""Stigespill: a named test for every rule of the issue, plus seeded playouts."""

import dataclasses
import json
import random

import pytest

from kortbord.cli import main as kortbord_main
from referee import GameLog, make_rules, replay
from referee.cards import JOKER, parse_card
from referee.core import CHANCE, IllegalMove, RulesError
from referee.simulate import play_game, simulate
from referee.stigespill import (
    DIE_CARDS,
    EVEN_FACE_POSITIONS,
    GOAL,
    ROAD_CARDS,
    Draw,
    Play,
    Reveal,
    Stigespill,
    check_road,
    layout_advice,
)

# A road with the face cards evenly spread. Twins: J♠ 2 ↔ J♣ 22, Q♠ 4 ↔ Q♣ 25,
# K♠ 7 ↔ K♣ 27, J♥ 9 ↔ J♦ 16, Q♥ 11 ↔ Q♦ 18, K♥ 13 ↔ K♦ 20.
EVEN = (
    "7S JS 8S QS 9S 10S KS 7H JH 8H QH 9H KH 10H 7D JD 8D QD 9D KD 10D JC 7C 8C QC 9C KC 10C"
).split()
# Number cards first (positions 1–16), face cards last (17–28): badly clustered.
NUMBERS_FIRST = [c.code for c in ROAD_CARDS if not c.is_face] + [
    c.code for c in ROAD_CARDS if c.is_face
]
# Face cards first (1–12), number cards last (13–28): bounces land on number cards only.
FACES_FIRST = NUMBERS_FIRST[16:] + NUMBERS_FIRST[:16]


def c(code):
    return parse_card(code)


def fresh(players=2, variant="classic", road=EVEN, seed=0, **kw):
    rules = Stigespill(players, variant, road=road, **kw)
    return rules, rules.initial_state(random.Random(seed))


def at(state, *positions, turn=0):
    """Return ``state`` with the tokens moved to ``positions`` (a test builder)."""
    return dataclasses.replace(state, positions=tuple(positions), turn=turn)


def draw(rules, state, code):
    """Return the state after the player on turn draws and the card ``code`` is revealed."""
    state = rules.apply(state, Draw(state.turn))
    assert rules.to_move(state) == CHANCE
    return rules.apply(state, Reveal(c(code)))


def dealt(rules, state, codes):
    """Return a strategy state after dealing ``codes`` round by round (seat 0, 1, …)."""
    for code in codes:
        state = rules.apply(state, Reveal(c(code)))
    assert state.pending is None
    return state


# ---- set-up --------------------------------------------------------------------------
@pytest.mark.parametrize("players", range(1, 11))
def test_one_to_ten_players(players):
    rules = Stigespill(players)
    state = rules.initial_state(random.Random(1))
    assert len(state.positions) == rules.seats
    assert rules.seats == (2 if players == 1 else players)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"players": 0}, "1 to 10 players, not 0"),
        ({"players": 11}, "1 to 10 players, not 11"),
        ({"players": "3"}, "whole number"),
        ({"players": True}, "whole number"),
        ({"players": 2, "variant": "chaos"}, "unknown Stigespill variant 'chaos'"),
        ({"players": 3, "tokens": 2}, "several tokens (2) are for a solo player"),
        ({"players": 1, "tokens": 1}, "solo player runs 2 to 10 tokens, not 1"),
        ({"players": 1, "tokens": 11}, "not 11"),
        ({"players": 9, "variant": "strategy"}, "at most 8 seats"),
        ({"players": 2, "road": ["7S"] * 28}, "bad road"),
    ],
)
def test_bad_set_up_is_a_clear_error(kwargs, message):
    with pytest.raises(RulesError, match=message.replace("(", r"\(").replace(")", r"\)")):
        Stigespill(**kwargs)


def test_solo_player_runs_two_tokens():
    rules = Stigespill(1)
    assert rules.seats == 2 and rules.config["tokens"] == 2
    state = rules.initial_state(random.Random(2))
    assert state.positions == (0, 0)
    state = draw(rules, state, "3H")
    assert state.turn == 1 and state.last.startswith("Token 1 drew 3♥")
    state = draw(rules, state, "2H")
    assert state.turn == 0 and state.positions[1] != 0
    assert Stigespill(1, tokens=3).seats == 3
    assert make_rules("stigespill", **rules.config).seats == 2


def test_die_pile_is_ace_to_six_of_every_suit_and_one_joker():
    _, state = fresh()
    assert len(state.die) == 25
    assert sorted(x.code for x in state.die if not x.is_joker) == sorted(
        f"{r}{s}" for r in ("A", "2", "3", "4", "5", "6") for s in "SHDC"
    )
    assert state.die.count(JOKER) == 1
    assert state.discard == ()


def test_random_road_is_the_28_cards_seven_to_king_and_seeded():
    rules = Stigespill(2)
    roads = [rules.initial_state(random.Random(s)).road for s in (1, 1, 2)]
    assert check_road(list(roads[0])) == []
    assert roads[0] == roads[1] != roads[2]
    assert "road" not in rules.config


def test_given_road_is_laid_and_kept_in_config():
    rules, state = fresh(road=" ".join(EVEN).lower())  # forgiving codes, one string
    assert [x.code for x in state.road] == EVEN
    assert rules.config["road"] == EVEN
    assert make_rules("stigespill", **rules.config).initial_state(random.Random(9)).road == (
        state.road
    )


def test_tokens_start_before_the_first_road_card():
    rules, state = fresh(3)
    assert state.positions == (0, 0, 0)
    state = draw(rules, state, "AH")
    assert state.positions[0] == 1 and "7♠ (card 1)" in state.last


# ---- a turn ----------------------------------------------------------------------------
def test_ace_counts_one():
    rules, state = fresh(road=NUMBERS_FIRST)
    assert draw(rules, state, "AS").positions[0] == 1


@pytest.mark.parametrize(("code", "steps"), [("AD", 1), ("2C", 2), ("3S", 3), ("4H", 4),
                                             ("5D", 5), ("6C", 6)])  # fmt: skip
def test_die_card_moves_its_rank_forward(code, steps):
    rules, state = fresh(road=NUMBERS_FIRST)
    state = draw(rules, at(state, 3, 0), code)
    assert state.positions == (3 + steps, 0)
    assert state.step.start == 3 and state.step.end == 3 + steps and state.step.jump == ""


def test_drawn_card_goes_on_the_discard_pile_and_turn_passes():
    rules, state = fresh()
    state = draw(rules, state, "5H")
    state = draw(rules, state, "AC")
    assert [x.code for x in state.discard] == ["5H", "AC"]  # top last
    assert parse_card("5H") not in state.die and len(state.die) == 23
    assert state.turn == 0 and state.turns == 2


def test_joker_reshuffles_and_draws_again():
    rules, state = fresh()
    state = draw(rules, state, "5H")
    state = draw(rules, state, "AC")
    before = state.positions
    state = rules.apply(state, Draw(0))
    state = rules.apply(state, Reveal(JOKER))
    # Die and discard cards, the joker included, make the new die pile; the same player draws.
    assert state.discard == () and sorted(state.die, key=DIE_CARDS.index) == list(DIE_CARDS)
    assert rules.to_move(state) == CHANCE and state.turn == 0 and state.positions == before
    assert "drew the joker" in state.last and "draws again" in state.last
    assert Reveal(c("5H")) in rules.legal_moves(state)  # back in the pile
    state = rules.apply(state, Reveal(c("3S")))
    assert state.positions[0] == before[0] + 3 or state.step.jump
    assert state.turn == 1 and state.discard == (c("3S"),)


def test_joker_can_come_up_again_after_a_reshuffle():
    rules, state = fresh()
    state = rules.apply(state, Draw(0))
    for _ in range(3):
        state = rules.apply(state, Reveal(JOKER))
        assert rules.to_move(state) == CHANCE and len(state.die) == 25
    assert rules.invariant_violations(state) == []


def test_exact_goal_message_and_winner():
    rules, state = fresh()
    state = draw(rules, at(state, 26, 5), "3C")
    assert state.positions[0] == GOAL and state.winner == 0
    assert state.last == "Player 1 drew 3♣: reaches the goal and wins"


@pytest.mark.parametrize(("start", "code"), [(23, "6H"), (28, "AS"), (26, "3C"), (24, "5D")])
def test_goal_is_reached_exactly(start, code):
    rules, state = fresh()
    assert draw(rules, at(state, start, 0), code).winner == 0


@pytest.mark.parametrize(
    ("start", "code", "end"),
    [(24, "6H", 28), (26, "6H", 26), (28, "2H", 28), (28, "6H", 24), (26, "4S", 28)],
)
def test_overshoot_bounces_back_from_goal(start, code, end):
    rules, state = fresh()
    state = draw(rules, at(state, start, 0), code)
    back = start + parse_card(code).rank_value - GOAL
    assert state.positions[0] == end == GOAL - back
    assert state.winner is None and state.step.bounced
    assert f"walks into the goal and back out {back}" in state.last


def test_face_card_after_bounce_jumps():
    rules, state = fresh()
    state = draw(rules, at(state, 26, 0), "5H")  # 26 + 5 = 31: back 2 to K♣ at 27
    assert state.step.landed == 27 and state.step.bounced
    assert state.positions[0] == 7 and state.step.jump == "snake"  # K♠
    assert "slides down a snake to K♠ (card 7)" in state.last


@pytest.mark.parametrize(
    ("start", "code", "landed", "end", "kind"),
    [
        (0, "2H", "JS", "JC", "ladder"),  # ♠ → ♣
        (20, "2H", "JC", "JS", "snake"),  # ♣ → ♠
        (8, "AH", "JH", "JD", "ladder"),  # ♥ → ♦
        (14, "2H", "JD", "JH", "snake"),  # ♦ → ♥
        (1, "3S", "QS", "QC", "ladder"),
        (5, "2S", "KS", "KC", "ladder"),
        (17, "AS", "QD", "QH", "snake"),
    ],
)
def test_ladder_and_snake_to_twin_colour_suit(start, code, landed, end, kind):
    rules, state = fresh()
    state = draw(rules, at(state, start, 0), code)
    road = state.road
    assert road[state.step.landed - 1] == c(landed)
    assert road[state.positions[0] - 1] == c(end)
    assert c(end).rank == c(landed).rank and c(end).suit == c(landed).suit.twin
    assert state.step.jump == kind
    verb = "climbs a ladder" if kind == "ladder" else "slides down a snake"
    assert f"lands on {c(landed).pretty}" in state.last and verb in state.last


def test_move_is_described_in_words():
    rules, state = fresh()
    state = draw(rules, at(state, 6, 0), "5H")  # lands on Q♥ at 11, climbs to Q♦ at 18
    assert state.last == (
        "Player 1 drew 5♥: lands on Q♥ (card 11), climbs a ladder to Q♦ (card 18)"
    )
    state = draw(rules, at(state, 6, 0, turn=1), "AC")
    assert state.last == "Player 2 drew A♣: moves to 7♠ (card 1)"


def test_no_chained_jumps():
    rules, state = fresh()
    state = draw(rules, state, "2H")  # lands on J♠, jumps to J♣ — a face card itself
    assert state.positions[0] == 22 and state.road[21].is_face
    state = draw(rules, state, "AS")
    state = draw(rules, state, "AH")  # from J♣ at 22: an ordinary step to 7♣
    assert state.positions[0] == 23


def test_tokens_may_share_a_card():
    rules, state = fresh()
    state = draw(rules, state, "4S")
    state = draw(rules, state, "4H")
    assert state.positions == (state.positions[0], state.positions[0])


def test_game_ends_on_goal_and_others_rank_by_distance():
    rules, state = fresh(4)
    state = draw(rules, at(state, 26, 10, 20, 3), "3C")
    assert rules.is_over(state) and rules.legal_moves(state) == []
    scores = rules.scores(state)
    assert scores["winners"] == [0]
    assert scores["ranking"] == [0, 2, 1, 3]
    assert scores["distances"] == [0, 19, 9, 26]
    assert scores["places"] == [1, 3, 2, 4]
    with pytest.raises(IllegalMove, match="the game is over: Player 1 reached the goal"):
        rules.apply(state, Draw(1))


def test_equal_distances_share_a_place():
    rules, state = fresh(3)
    state = draw(rules, at(state, 26, 10, 10), "3C")
    assert rules.scores(state)["places"] == [1, 2, 2]


# ---- strategy variant ------------------------------------------------------------------
def test_strategy_deal_gives_three_die_cards_to_each_seat():
    rules, state = fresh(3, "strategy")
    assert rules.to_move(state) == CHANCE and state.pending == "deal"
    rng = random.Random(4)
    while rules.to_move(state) == CHANCE:
        state = rules.apply(state, rules.chance_move(state, rng))
    assert [len(h) for h in state.hands] == [3, 3, 3]
    assert len(state.die) == 25 - 9 and JOKER in state.die
    assert state.positions == (0, 0, 0) and state.turn == 0
    assert "the deal is done and Player 1 begins" in state.last


def test_strategy_deal_never_gives_joker():
    rules, state = fresh(2, "strategy")
    assert Reveal(JOKER) not in rules.legal_moves(state)
    with pytest.raises(IllegalMove, match="the joker is never dealt: swap it for the next card"):
        rules.apply(state, Reveal(JOKER))
    for seed in range(300):
        assert not rules.chance_move(state, random.Random(seed)).card.is_joker


def test_strategy_deal_goes_round_the_table():
    rules, state = fresh(2, "strategy")
    state = dealt(rules, state, ["AS", "2S", "3S", "4S", "5S", "6S"])
    assert [[x.code for x in h] for h in state.hands] == [["AS", "3S", "5S"], ["2S", "4S", "6S"]]


def test_strategy_turn_is_draw_or_play_a_hand_card():
    rules, state = fresh(2, "strategy")
    state = dealt(rules, state, ["AS", "2S", "3S", "4S", "5S", "6S"])
    assert rules.legal_moves(state) == [Draw(0), Play(c("AS"), 0), Play(c("3S"), 0),
                                        Play(c("5S"), 0)]  # fmt: skip
    state = rules.apply(state, Play(c("5S"), 0))
    assert state.positions[0] == 5 and state.discard == (c("5S"),)
    assert state.hands[0] == (c("AS"), c("3S")) and state.turn == 1
    assert state.last == "Player 1 plays 5♠: moves to 9♠ (card 5)"
    state = draw(rules, state, "6H")  # the other player draws instead
    assert state.hands[1] == (c("2S"), c("4S"), c("6S")) and state.turn == 0


def test_played_face_landing_jumps_too():
    rules, state = fresh(2, "strategy")
    state = dealt(rules, state, ["2H", "AS", "3S", "4S", "5S", "6S"])
    state = rules.apply(state, Play(c("2H"), 0))
    assert state.positions[0] == 22 and state.step.jump == "ladder"


def test_hands_never_refilled():
    rules, state = fresh(2, "strategy")
    state = dealt(rules, state, ["AS", "2S", "3S", "4S", "5S", "6S"])
    for code, other in (("AS", "AH"), ("3S", "AD"), ("5S", "AC")):
        state = rules.apply(state, Play(c(code), 0))
        state = draw(rules, state, other)
    assert state.hands[0] == () and len(state.hands[1]) == 3
    assert rules.legal_moves(state) == [Draw(0)]
    state = draw(rules, state, "2H")
    state = rules.apply(state, Draw(1))
    state = rules.apply(state, Reveal(JOKER))  # a reshuffle does not refill hands either
    state = rules.apply(state, Reveal(c("3H")))
    assert state.hands[0] == () and len(state.hands[1]) == 3


def test_strategy_draw_is_refused_when_every_die_card_is_in_a_hand():
    rules, state = fresh(8, "strategy")
    rng = random.Random(1)
    while rules.to_move(state) == CHANCE:
        state = rules.apply(state, rules.chance_move(state, rng))
    assert state.die == (JOKER,)
    assert all(isinstance(m, Play) for m in rules.legal_moves(state))
    with pytest.raises(IllegalMove, match="play a hand card instead"):
        rules.apply(state, Draw(0))


# ---- illegal moves ---------------------------------------------------------------------------
def _classic():
    return fresh()


def _classic_drawn():
    rules, state = fresh()
    return rules, rules.apply(state, Draw(0))


def _classic_after_5h():
    rules, state = fresh()
    return rules, rules.apply(draw(rules, state, "5H"), Draw(1))


def _strategy():
    rules, state = fresh(2, "strategy")
    return rules, dealt(rules, state, ["AS", "2S", "3S", "4S", "5S", "6S"])


def _strategy_dealing():
    return fresh(2, "strategy")


def _over():
    rules, state = fresh()
    return rules, draw(rules, at(state, 26, 0), "3C")


@pytest.mark.parametrize(
    ("build", "move", "message"),
    [
        (_classic, Draw(1), "it is Player 1's turn, not Player 2's"),
        (_classic, Draw(7), "there is no seat 7"),
        (_classic, Play(c("AS"), 0), "the classic game has no hands: draw"),
        (_classic, Reveal(c("AS")), "no card is being drawn: it is Player 1's turn to draw"),
        (_classic_drawn, Draw(0), "Player 1 has drawn: reveal the drawn card first"),
        (_classic_drawn, Reveal(c("QS")), "Q♠ is not in the die pile"),
        (_classic_after_5h, Reveal(c("5H")), "5♥ is not in the die pile"),
        (_strategy, Play(c("2S"), 0), r"2♠ is not in Player 1's hand \(hand: A♠ 3♠ 5♠\)"),
        (_strategy, Play(c("5S"), 1), "it is Player 1's turn, not Player 2's"),
        (_strategy, Reveal(c("AH")), "turn to draw or play a hand card"),
        (_strategy_dealing, Draw(0), "the cards are being dealt"),
        (_strategy_dealing, Reveal(JOKER), "the joker is never dealt"),
        (_over, Draw(1), "the game is over"),
        (_over, Reveal(c("AH")), "the game is over"),
    ],
)
def test_illegal_moves_explain_and_do_not_change_state(build, move, message):
    rules, state = build()
    before = json.dumps(rules.state_to_json(state))
    assert not rules.is_legal(state, move)
    with pytest.raises(IllegalMove, match=message):
        rules.apply(state, move)
    assert json.dumps(rules.state_to_json(state)) == before


def test_a_move_from_another_game_is_refused():
    from referee.core import Move

    class Shout(Move):
        kind = "shout"

    rules, state = fresh()
    with pytest.raises(IllegalMove, match="is not a Stigespill move"):
        rules.check(state, Shout())


def test_apply_never_mutates_and_old_states_stay_valid():
    rules, state = fresh()
    snapshot = rules.state_to_json(state)
    later = draw(rules, state, "4D")
    assert rules.state_to_json(state) == snapshot and later != state


# ---- JSON, replay, views ----------------------------------------------------------------
@pytest.mark.parametrize(
    "move", [Draw(), Draw(1), Play(c("5H"), 0), Play(c("AS")), Reveal(c("6C")), Reveal(JOKER)]
)
def test_moves_round_trip_through_json(move):
    rules = Stigespill(2, "strategy")
    data = json.loads(json.dumps(move.to_json()))
    assert rules.move_from_json(data) == move


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "fly"}, "unknown move 'fly'"),
        ({"kind": "play", "card": "ZZ"}, "unknown card code 'ZZ'"),
        ({"kind": "reveal"}, "needs 'card'"),
        ({"kind": "reveal", "card": None}, "card must be one card code"),
        ("draw", "must be an object"),
    ],
)
def test_malformed_move_json_is_a_clear_error(data, message):
    with pytest.raises(IllegalMove, match=message):
        Stigespill(2).move_from_json(data)


@pytest.mark.parametrize(("players", "variant", "seed"), [(2, "classic", 3), (3, "strategy", 4),
                                                          (1, "strategy", 5)])  # fmt: skip
def test_json_round_trip_and_replay_reproduces_state(players, variant, seed):
    rules = Stigespill(players, variant)
    result, moves = play_game(rules, seed, ["random"] * rules.seats)
    assert result.violations == []
    # Rebuild the same game move by move, checking every state's JSON round trip.
    rng = random.Random(seed)
    state = rules.initial_state(rng)
    log = GameLog(rules.name, rules.config, rules.state_to_json(state))
    for move in moves:
        assert rules.state_from_json(json.loads(json.dumps(rules.state_to_json(state)))) == state
        state = rules.apply(state, move)
        log.moves.append(move.to_json())
    assert rules.is_over(state)
    data = json.loads(json.dumps(log.to_json()))
    replayed_rules, states = replay(GameLog.from_json(data))
    assert states[-1] == state and len(states) == len(moves) + 1
    assert replayed_rules.scores(states[-1]) == rules.scores(state) == result.scores


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("die"), "needs 'die'"),
        (lambda d: d.update(positions=[0, 31]), "Player 2 is at 31"),
        (lambda d: d["die"].remove("5H"), "die card 5H is there 0 times"),
        (lambda d: d["discard"].append("5H"), "die card 5H is there 2 times"),
        (lambda d: d.update(discard=["XX"]), "unknown card code 'XX'"),
        (lambda d: d.update(road=d["road"][:-1]), "the road has 27 cards"),
    ],
)
def test_state_from_bad_json_is_a_clear_error(change, message):
    rules, state = fresh()
    data = rules.state_to_json(state)
    change(data)
    with pytest.raises(RulesError, match=message):
        rules.state_from_json(data)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(turn=5), "turn 5 is no seat"),
        (lambda d: d.update(hands=[]), "2 tokens and 0 hands for 2 seats"),
    ],
)
def test_state_with_a_turn_or_hands_for_no_seat_is_a_clear_error(change, message):
    """A turn past the last seat or hands missing was an IndexError (a traceback), not a
    RulesError: the invariant check asked that seat for its legal moves."""
    rules, state = fresh()
    data = rules.state_to_json(state)
    change(data)
    with pytest.raises(RulesError, match=message):
        rules.state_from_json(data)


def test_a_state_dealing_past_the_deal_or_out_of_order_is_refused():
    """A strategy state still waiting for the deal with every hand full was accepted, and
    the next card dealt made a hand of four; hands of 1 and 3 cards mid-deal (not round by
    round) were accepted too."""
    rules, state = fresh(2, "strategy")
    state = dealt(rules, state, ["AS", "2S", "3S", "4S", "5S", "6S"])
    data = rules.state_to_json(state)
    with pytest.raises(RulesError, match="deal"):
        rules.state_from_json({**data, "pending": "deal"})
    uneven = {**data, "pending": "deal", "hands": [["AS"], ["2S", "4S", "6S"]]}
    uneven["die"] = ["3S", "5S", *data["die"]]
    with pytest.raises(RulesError, match="deal"):
        rules.state_from_json(uneven)
    classic, start = fresh(2)
    with pytest.raises(RulesError, match="deal"):
        classic.state_from_json({**classic.state_to_json(start), "pending": "deal"})


def test_invariant_violations_catch_lost_created_and_misplaced_cards():
    rules, state = fresh()
    state = draw(rules, state, "5H")
    assert rules.invariant_violations(state) == []
    lost = dataclasses.replace(state, discard=())
    assert "die card 5H is there 0 times, not once" in rules.invariant_violations(lost)
    doubled = dataclasses.replace(state, discard=(c("5H"), c("5H")))
    assert "die card 5H is there 2 times, not once" in rules.invariant_violations(doubled)
    road_card = dataclasses.replace(state, discard=(c("5H"), c("QS")))
    assert "cards that are no die cards: QS" in rules.invariant_violations(road_card)
    no_joker = dataclasses.replace(state, die=state.die[:-1], discard=(c("5H"), JOKER))
    assert "the joker is not in the die pile" in rules.invariant_violations(no_joker)
    won = dataclasses.replace(state, positions=(GOAL, 0))
    assert any("tokens at the goal" in v for v in rules.invariant_violations(won))


def test_view_shows_road_jumps_tokens_and_counts():
    rules, state = fresh()
    state = draw(rules, state, "2H")
    v = json.loads(json.dumps(rules.view(state, 1)))
    assert v["road"][1] == {"position": 2, "code": "JS", "face": True, "jump_to": 22,
                            "jump": "ladder"}  # fmt: skip
    assert v["road"][21]["jump"] == "snake" and v["road"][21]["jump_to"] == 2
    assert v["road"][0]["jump"] is None and not v["road"][0]["face"]
    assert v["tokens"][0]["position"] == 22 and v["tokens"][0]["on"] == "JC"
    assert v["tokens"][1]["on"] == "start" and v["tokens"][1]["distance"] == GOAL
    assert v["die_pile"] == 24 and v["discard"] == ["2H"]
    assert v["to_move"] == 1 and v["legal_moves"] == [{"kind": "draw", "seat": 1}]
    assert v["last_move"] == state.last and v["step"]["jump"] == "ladder"
    assert "legal_moves" not in rules.view(state, 0)


def test_view_hides_other_hands_and_the_die_pile():
    rules, state = fresh(2, "strategy")
    state = dealt(rules, state, ["AS", "2S", "3S", "4S", "5S", "6S"])
    v = rules.view(state, 0)
    text = json.dumps(v)
    assert v["hand"] == ["AS", "3S", "5S"] and v["hand_sizes"] == [3, 3]
    pile = [x.code for x in state.die if not x.is_joker]  # the goal joker is public
    for code in ["2S", "4S", "6S", *pile]:
        assert f'"{code}"' not in text  # neither the other hand nor the die pile
    assert "hand" not in rules.view(state, None)
    with pytest.raises(RulesError, match="there is no seat 5"):
        rules.view(state, 5)


def test_solo_view_shows_every_token_hand():
    rules, state = fresh(1, "strategy")
    state = dealt(rules, state, ["AS", "2S", "3S", "4S", "5S", "6S"])
    assert rules.view(state, 0)["hands"] == [["AS", "3S", "5S"], ["2S", "4S", "6S"]]


# ---- road check and layout advice ---------------------------------------------------------
def test_road_check_names_missing_and_doubled():
    road = ["8S", *EVEN[1:]]  # 7♠ replaced by a second 8♠
    problems = check_road(road)
    assert "8♠ appears 2 times (road cards 1, 3)" in problems
    assert "missing: 7♠" in problems
    assert len(problems) == 2


@pytest.mark.parametrize(
    ("road", "message"),
    [
        (EVEN[:-1], "the road has 27 cards, not 28"),
        (EVEN[:1], "the road has 1 card, not 28"),
        (EVEN[:-1], "missing: 10♣"),
        ([*EVEN[:-1], "JK"], "road card 28 is a joker: the joker is the goal"),
        ([*EVEN[:-1], "5H"], "road card 28 is 5♥: only 7–K belong on the road"),
        ([*EVEN[:-1], "ZZ"], "road card 28: unknown card code 'ZZ'"),
        ([*EVEN, "7S"], "7♠ appears 2 times (road cards 1, 29)"),
        (42, "a road is a list of 28 card codes, not int"),
    ],
)
def test_road_check_rejects_bad_roads(road, message):
    assert any(p.startswith(message) for p in check_road(road))


def test_road_check_accepts_every_order_and_forgiving_codes():
    assert check_road(EVEN) == []
    assert check_road(NUMBERS_FIRST) == []
    nordic = [x.replace("Q", "D").replace("J", "Kn").lower() for x in EVEN]  # dame, knekt
    assert check_road(nordic) == []


def test_layout_advice_measures_gaps_between_face_cards():
    advice = layout_advice(EVEN)
    assert advice["face_positions"] == list(EVEN_FACE_POSITIONS)
    assert sum(advice["gaps"]) == GOAL and len(advice["gaps"]) == 13
    assert advice["unevenness"] == pytest.approx(0.421, abs=1e-3)
    assert advice["clustered"] is False and advice["proposed_road"] is None
    assert "spread evenly enough" in advice["advice"]


def test_layout_advice_proposes_even_order():
    advice = layout_advice(NUMBERS_FIRST)
    assert advice["clustered"] is True
    assert advice["unevenness"] > advice["limit"] and advice["longest_face_run"] == 12
    proposal = advice["proposed_road"]
    assert check_road(proposal) == []
    assert layout_advice(proposal)["clustered"] is False
    # the cards to move, each once, from its place to its place in the proposal
    assert len(advice["moved"]) == sum(a != b for a, b in zip(proposal, NUMBERS_FIRST, strict=True))
    for code, was, to in advice["moved"]:
        assert NUMBERS_FIRST[was - 1] == code == proposal[to - 1]
    assert (
        f"Move {len(advice['moved'])} cards, keeping both orders: J♠ from 17 to"
        in (advice["advice"])
    )
    # Both orders are kept, so each ladder stays a ladder and each snake a snake.
    assert [x for x in proposal if not c(x).is_face] == NUMBERS_FIRST[:16]
    assert [x for x in proposal if c(x).is_face] == NUMBERS_FIRST[16:]
    rules = Stigespill(2)
    kinds = [
        {r["code"]: r["jump"] for r in rules.road_view(tuple(c(x) for x in road))}
        for road in (NUMBERS_FIRST, proposal)
    ]
    assert kinds[0] == kinds[1]


def test_layout_advice_counts_a_run_of_face_cards_as_a_cluster():
    """Five face cards in a row (17–21) cluster however even the other gaps are: the RMS of
    the gaps alone (0.89 here) called this road spread evenly enough."""

    def faces_at(*at):
        faces = [x for x in EVEN if c(x).is_face]
        numbers = [x for x in EVEN if not c(x).is_face]
        return [faces.pop(0) if i in at else numbers.pop(0) for i in range(1, 29)]

    road = faces_at(2, 5, 8, 11, 14, 17, 18, 19, 20, 21, 24, 27)
    advice = layout_advice(road)
    assert advice["unevenness"] <= advice["limit"] and advice["longest_face_run"] == 5
    assert advice["clustered"] is True
    proposal = advice["proposed_road"]
    assert sorted(proposal) == sorted(road) and layout_advice(proposal)["clustered"] is False
    # the fewest cards moved: the run broken by three (the even places 2, 4, 7… moved 19)
    assert [m[0] for m in advice["moved"]] == ["10D", "KD", "JC"]
    assert "5 face cards in a row" in advice["advice"]
    assert "more than 1.2" not in advice["advice"]  # the gaps alone were even enough
    # three in a row is still no cluster (about half of all shuffles have one)
    assert layout_advice(faces_at(2, 4, 7, 9, 11, 12, 13, 16, 18, 20, 22, 25))["clustered"] is False


def test_the_proposed_road_moves_the_fewest_cards_and_keeps_both_orders():
    """The even places 2, 4, 7, …, 27 kept 6 of a family's 28 cards where they lay, on
    average: the proposal asked them to lay out the road again."""
    from referee.stigespill import even_order, nearest_even_order

    rng = random.Random(5)
    for _ in range(40):
        road = list(EVEN)
        rng.shuffle(road)
        if not layout_advice(road)["clustered"]:
            continue
        proposal = nearest_even_order(road)
        assert sorted(proposal) == sorted(road) and not layout_advice(proposal)["clustered"]
        for kind in (True, False):
            assert [x for x in proposal if c(x).is_face is kind] == [
                x for x in road if c(x).is_face is kind
            ]
        kept = sum(a == b for a, b in zip(proposal, road, strict=True))
        assert kept >= sum(a == b for a, b in zip(even_order(road), road, strict=True))


def test_layout_advice_on_a_bad_road_is_a_clear_error():
    with pytest.raises(RulesError, match="missing: 7♠"):
        layout_advice(EVEN[1:])


# ---- hints, greedy ------------------------------------------------------------------------------
def _hint_state(hand_codes, position, road=EVEN):
    rules, state = fresh(2, "strategy", road=road)
    others = [x.code for x in DIE_CARDS[:-1] if x.code not in hand_codes][:3]
    order = [code for pair in zip(hand_codes, others, strict=True) for code in pair]
    state = dealt(rules, state, order)
    return rules, at(state, position, 0)


def test_hint_plays_a_card_that_reaches_the_goal():
    rules, state = _hint_state(["AS", "4H", "6D"], 25)
    hint = rules.hint(state, 0)
    assert hint.move == Play(c("4H"), 0)
    assert hint.details["expected_turns"]["4H"] == 1.0
    assert "Play 4♥ to the goal: about 1.0 turns to finish" in hint.reason


def test_hint_takes_a_ladder():
    # From 10♠ (6): A♥ lands on K♠ and climbs to K♣ (27); then 2♦ finishes — two turns.
    rules, state = _hint_state(["5S", "AH", "2D"], 6)
    hint = rules.hint(state, 0)
    assert hint.move == Play(c("AH"), 0)
    assert "Play A♥ to K♣ (card 27): about 2.0 turns to finish" in hint.reason
    turns = hint.details["expected_turns"]
    assert turns["AH"] == 2.0 and set(turns) == {"draw", "5S", "AH", "2D"}
    assert min(turns["draw"], turns["5S"], turns["2D"]) > 2.0


def test_hint_uses_the_whole_hand_to_finish():
    # A (to 1), 6 (to K♠ at 7, ladder to 27), 2 (goal): three turns whatever the order.
    rules, state = _hint_state(["AS", "2H", "6D"], 0)
    turns = rules.hint(state, 0).details["expected_turns"]
    assert turns["AS"] == turns["2H"] == turns["6D"] == 3.0 < turns["draw"]


def test_hint_avoids_a_snake_and_keeps_the_card():
    rules, state = _hint_state(["2S", "3S", "4S"], 20)  # every card but 4 hits a snake
    hint = rules.hint(state, 0)
    turns = hint.details["expected_turns"]
    assert hint.move != Play(c("2S"), 0) and turns["2S"] > turns["draw"]


def test_hint_knows_cards_are_drawn_without_replacement():
    # On card 28 only an ace finishes; draws of 2–6 bounce onto number cards.
    rules, state = fresh(2, road=FACES_FIRST)
    aces = [c(x) for x in ("AS", "AH", "AD", "AC")]
    twos = [c(x) for x in ("2S", "2H", "2D", "2C")]
    pile_without = tuple(x for x in state.die if x not in aces)
    no_aces = dataclasses.replace(state, positions=(28, 0), die=pile_without, discard=tuple(aces))
    pile_without = tuple(x for x in state.die if x not in twos)
    no_twos = dataclasses.replace(state, positions=(28, 0), die=pile_without, discard=tuple(twos))
    without_aces = rules.hint(no_aces, 0).details["expected_turns"]["draw"]
    without_twos = rules.hint(no_twos, 0).details["expected_turns"]["draw"]
    assert without_aces > without_twos + 0.5


def test_a_solo_players_hint_knows_the_cards_in_its_other_tokens_hands():
    """A solo player sees every token's hand (the view shows them all), so those cards are
    not in the die pile. The hint counted them as possibly there: with the three aces in the
    other token's hand it gave the same figures as with three twos there."""
    rules = Stigespill(1, "strategy", road=FACES_FIRST)  # on card 28 only an ace finishes
    start = rules.initial_state(random.Random(0))
    mine = ()  # token 1 has played its cards (they went back with a joker)

    def draw_turns(other: str) -> float:
        held = tuple(c(x) for x in other.split())
        die = tuple(x for x in start.die if x not in mine + held)
        state = dataclasses.replace(
            start, positions=(28, 0), die=die, hands=(mine, held), pending=None, turn=0
        )
        assert rules.invariant_violations(state) == []
        return rules.hint(state, 0).details["expected_turns"]["draw"]

    assert draw_turns("AS AH AD") > draw_turns("2S 2H 2D") + 0.5


def test_hint_uses_only_what_the_seat_sees():
    rules, state = _hint_state(["AS", "3S", "5S"], 4)
    # Swap a card between the other hand and the die pile: seat 0 cannot tell the difference.
    other = state.hands[1]
    swapped_in = state.die[0]
    pile = tuple(sorted((*state.die[1:], other[0]), key=DIE_CARDS.index))
    hidden = dataclasses.replace(
        state, die=pile, hands=(state.hands[0], tuple(sorted((swapped_in, *other[1:]),
                                                             key=DIE_CARDS.index)))
    )  # fmt: skip
    assert rules.invariant_violations(hidden) == []
    assert rules.hint(state, 0) == rules.hint(hidden, 0)
    assert rules.hint(state, 0) == rules.hint(state, 0)  # seeded from the position


def test_hint_waits_when_it_is_not_the_seats_turn():
    rules, state = _hint_state(["AS", "3S", "5S"], 4)
    assert rules.hint(state, 1).move is None and "Player 1's turn" in rules.hint(state, 1).reason
    assert rules.hint(rules.apply(state, Draw(0)), 0).move is None


def test_classic_hint_says_draw_with_expected_turns():
    rules, state = fresh()
    hint = rules.hint(state, 0)
    assert hint.move == Draw(0) and "the classic game has only draws" in hint.reason
    assert 5 < hint.details["expected_turns"]["draw"] < 60


def test_greedy_plays_the_card_that_lands_furthest():
    rules, state = _hint_state(["AS", "2S", "6H"], 0)
    assert rules.greedy_move(state, random.Random(0)) == Play(c("2S"), 0)  # J♠ → J♣ at 22
    rules, state = _hint_state(["AS", "2S", "3S"], 20)  # 2 → snake; A → 21; 3 → 23
    assert rules.greedy_move(state, random.Random(0)) == Play(c("3S"), 0)


# ---- seeded playouts ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("players", "variant", "games"),
    [(2, "classic", 600), (4, "classic", 250), (1, "classic", 150),
     (2, "strategy", 300), (5, "strategy", 120), (8, "strategy", 40), (1, "strategy", 80)],
)  # fmt: skip
def test_random_playouts_keep_every_invariant(players, variant, games):
    result = simulate("stigespill", players, games, seed=11, variant=variant)
    assert result["invariant_violations"] == 0, result.get("violation_examples")
    assert sum(result["wins"]["by_seat"].values()) == games  # every game ends with one winner
    assert result["mean_turns"] > 5


@pytest.mark.parametrize("policy", ["greedy", "hint"])
def test_policies_play_legal_games(policy):
    games = 40 if policy == "greedy" else 4
    result = simulate("stigespill", 2, games, seed=2, policy=policy, against="random",
                      variant="strategy")  # fmt: skip
    assert result["invariant_violations"] == 0
    assert sum(result["wins"]["by_policy"].values()) == games


def test_cli_simulate_prints_json(capsys):
    code = kortbord_main(
        ["simulate", "stigespill", "--players", "3", "--games", "50", "--seed", "1"]
    )
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["games"] == 50 and out["invariant_violations"] == 0
    assert out["games_per_second"] > 0 and out["config"] == {"players": 3, "variant": "classic"}


def test_cli_simulate_bad_players_is_a_clear_error(capsys):
    with pytest.raises(SystemExit) as done:  # refused as argparse refuses a bad value
        kortbord_main(["simulate", "stigespill", "--players", "0", "--games", "5"])
    assert done.value.code == 2
    assert "argument --players: expected a whole number 1–10, not 0" in capsys.readouterr().err


def test_the_game_names_the_codes_of_its_cards():
    # One deck with its jokers: what a camera may read on a Stigespill table.
    codes = Stigespill(2).codes()
    assert len(codes) == 53 and "JK" in codes and "7S" in codes and "SB7" not in codes
    sten = make_rules("sten", players=3).codes()
    assert len(sten) == 52 and "JK" not in sten


def test_the_classic_hints_expected_turns_is_near_the_true_mean():
    """The figure a family reads: within a turn of the mean over 20000 sampled die piles."""
    import referee.stigespill as stige

    rules, state = fresh(2, "classic")
    shown = rules.hint(state, 0).details["expected_turns"]["draw"]
    pool = rules._unseen_values(state, 0)
    mean = stige._rollout_means(state, 0, [Draw(0)], pool, 20000)[0]
    assert abs(shown - mean) < 1.0, (shown, mean)


def test_the_first_seat_begins_and_is_dealt_to_first():
    """A table's next game starts with the next seat (``first``), in both variants."""
    classic = make_rules("stigespill", players=3, first=2)
    state = classic.initial_state(random.Random(1))
    assert classic.to_move(state) == 2 and "Player 3 begins" in state.last
    strategy = make_rules("stigespill", players=3, variant="strategy", first=1)
    state = strategy.initial_state(random.Random(1))
    for card in ("AS", "2S", "3S", "4S"):
        state = strategy.apply(state, strategy.move_from_json({"kind": "reveal", "card": card}))
    # dealt round by round from the first seat: seat 1, 2, 0, then 1 again
    assert [[c.code for c in h] for h in state.hands] == [["3S"], ["AS", "4S"], ["2S"]]
    assert make_rules("stigespill", **strategy.config).first == 1  # kept in the config
    for bad in (3, -1, True, "1"):
        with pytest.raises(RulesError, match="first seat"):
            make_rules("stigespill", players=3, first=bad)

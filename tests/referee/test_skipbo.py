"""Skip-Bo: a named test for every rule of issue 2, teams, matches, JSON, hints, playouts."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest

from referee import GameLog, make_rules, replay
from referee.cards import improvised_skipbo_deck, parse_card, skipbo_deck
from referee.core import CHANCE, IllegalMove, RulesError
from referee.simulate import play_game, simulate
from referee.skipbo import (
    Discard,
    EndTurn,
    Match,
    Play,
    Reveal,
    SkipBo,
    SkipBoState,
    TableTalkPenalty,
    value,
)

W = "SBW"


def cards(text: str | tuple = "") -> tuple:
    """Return cards from space-separated codes (the last is the top of a pile)."""
    if isinstance(text, tuple):
        return text
    return tuple(parse_card(c) for c in text.split())


def build(
    rules: SkipBo | None = None,
    *,
    stocks: list[str],
    hands: list[str],
    building: list[str] | None = None,
    discards: list[list[str]] | None = None,
    draw: str | None = None,
    done: str = "",
    turn: int = 0,
    rest_to: str = "draw",
    **fields,
) -> tuple[SkipBo, SkipBoState]:
    """Build a consistent table: the cards not named go under the draw pile (or out of reach).

    ``rest_to="discard"`` puts them at the bottom of the last seat's fourth discard pile, so
    the draw pile is exactly ``draw``.
    """
    rules = rules or SkipBo()
    n = rules.players
    building = (building or []) + [""] * (4 - len(building or []))
    discards = discards or [[""] * 4 for _ in range(n)]
    named = {
        "stocks": [list(cards(s)) for s in stocks],
        "hands": [list(cards(h)) for h in hands],
        "building": [list(cards(b)) for b in building],
        "discards": [[list(cards(p)) for p in piles] for piles in discards],
        "done": list(cards(done)),
        "draw": list(cards(draw or "")),
    }
    used = Counter(named["done"] + named["draw"])
    for key in ("stocks", "hands", "building"):
        for pile in named[key]:
            used.update(pile)
    for piles in named["discards"]:
        for pile in piles:
            used.update(pile)
    deck = Counter(rules._deck)
    assert not used - deck, f"more cards than the deck has: {used - deck}"
    rest = sorted((deck - used).elements(), key=lambda c: c.code)
    if rest_to == "draw":
        named["draw"] = rest + named["draw"]
    else:
        named["discards"][-1][3] = rest + named["discards"][-1][3]
    state = SkipBoState(
        stocks=tuple(tuple(p) for p in named["stocks"]),
        hands=tuple(tuple(p) for p in named["hands"]),
        discards=tuple(tuple(tuple(p) for p in piles) for piles in named["discards"]),
        building=tuple(tuple(p) for p in named["building"]),
        done=tuple(named["done"]),
        draw=tuple(named["draw"]),
        turn=turn,
        **fields,
    )
    assert rules.invariant_violations(state) == []
    return rules, state


def basic(**kw):
    """Two players; seat 0 on turn with stock top SB3, building piles at 2 and 5."""
    defaults = dict(
        stocks=["SB9 SB3", "SB8 SB11"],
        hands=["SB1 SB4 SB6 SB10 SBW", ""],
        building=["SB1 SB2", "SB1 SB2 SB3 SB4 SB5"],
    )
    defaults.update(kw)
    return build(**defaults)


# ---- set-up ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("players", "teams", "stock"),
    [
        (2, False, 30),
        (3, False, 30),
        (4, False, 30),
        (5, False, 20),
        (6, False, 20),
        (4, True, 30),
        (6, True, 20),
        (8, True, 12),
    ],
)
def test_rule_player_counts_and_default_stock(players, teams, stock):
    rules = SkipBo(players=players, teams=teams)
    state = rules.initial_state(random.Random(1))
    assert rules.seats == players
    assert [len(s) for s in state.stocks] == [stock] * players
    assert rules.config["stock"] == stock


@pytest.mark.parametrize("stock", [5, 12, 30])
def test_rule_any_agreed_stock_from_5_to_30(stock):
    state = SkipBo(players=3, stock=stock).initial_state(random.Random(2))
    assert {len(s) for s in state.stocks} == {stock}


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"players": 1}, "2–6 players"),
        ({"players": 7}, "2–6 players"),
        ({"players": 5, "teams": True}, "4, 6 or 8"),
        ({"players": "two"}, "whole number"),
        ({"stock": 4}, "5–30"),
        ({"stock": 31}, "5–30"),
        ({"players": 6, "stock": 30}, "smaller stock"),
        ({"deck": "uno"}, "unknown deck"),
        ({"empty_draw": "cry"}, "empty_draw"),
        ({"match_target": 0}, "match target"),
        ({"players": 2, "first": 2}, "first player"),
        ({"first": True}, "first player"),
        # "no" (a form's or a file's text) was taken as true: a team game of 4 nobody asked for
        ({"players": 4, "teams": "no"}, "teams must be true or false"),
        ({"players": 4, "teams": 1}, "teams must be true or false"),
    ],
)
def test_bad_setups_raise_rules_error_with_a_sentence(kwargs, words):
    with pytest.raises(RulesError, match=words):
        SkipBo(**kwargs)


def test_the_first_player_plays_first_and_draws_the_first_hand():
    rules = SkipBo(players=3, stock=5, first=2)
    state = rules.initial_state(random.Random(4))
    assert rules.to_move(state) == 2 and [len(h) for h in state.hands] == [0, 0, 5]
    assert rules.config["first"] == 2 and "first" not in SkipBo(players=3, stock=5).config


def test_make_rules_finds_skipbo_and_rejects_bad_player_count():
    assert make_rules("skipbo", players=3).seats == 3
    with pytest.raises(RulesError, match="2–6"):
        make_rules("skipbo", players=9)


@pytest.mark.parametrize(
    ("deck", "factory"), [("skipbo", skipbo_deck), ("improvised", improvised_skipbo_deck)]
)
def test_rule_the_table_at_the_start(deck, factory):
    rules = SkipBo(players=2, deck=deck)
    state = rules.initial_state(random.Random(3))
    assert len(state.building) == 4 and all(p == () for p in state.building)
    assert all(len(piles) == 4 and all(p == () for p in piles) for piles in state.discards)
    assert len(state.hands[0]) == 5 and state.hands[1] == ()  # hands are drawn on turn
    assert len(state.draw) == 162 - 60 - 5
    assert Counter(state.draw + state.hands[0] + state.stocks[0] + state.stocks[1]) == Counter(
        factory()
    )
    assert rules.to_move(state) == 0 and rules.invariant_violations(state) == []


def test_seeded_initial_state_is_reproducible():
    rules = SkipBo()
    assert rules.initial_state(random.Random(7)) == rules.initial_state(random.Random(7))
    assert rules.initial_state(random.Random(7)) != rules.initial_state(random.Random(8))


# ---- a turn -------------------------------------------------------------------------------
def test_rule_draw_up_to_five_at_the_start_of_a_turn():
    rules, state = build(stocks=["SB9", "SB8"], hands=["SB10 SB11", "SB12 SB7"], draw="SB5 SB4 SB3")
    after = rules.apply(state, Discard(parse_card("SB10"), 0))
    assert after.turn == 1
    assert sorted(c.code for c in after.hands[1]) == sorted(["SB12", "SB7", "SB3", "SB4", "SB5"])
    assert len(after.draw) == len(state.draw) - 3


def test_rule_a_full_hand_draws_nothing():
    rules, state = build(stocks=["SB9", "SB8"], hands=["SB10 SB11", "SB2 SB3 SB4 SB5 SB6"])
    after = rules.apply(state, Discard(parse_card("SB10"), 0))
    assert after.hands[1] == state.hands[1] and after.draw == state.draw


@pytest.mark.parametrize(
    ("move", "pile_after"),
    [
        (Play("stock", parse_card("SB3"), 0), "SB1 SB2 SB3"),
        (Play("hand", parse_card("SB6"), 1), "SB1 SB2 SB3 SB4 SB5 SB6"),
        (Play("hand", parse_card("SB1"), 2), "SB1"),
        (Play("hand", parse_card(W), 2), "SBW"),
        (Play("hand", parse_card(W), 0), "SB1 SB2 SBW"),
        (Play("discard", parse_card("SB6"), 1, index=2), "SB1 SB2 SB3 SB4 SB5 SB6"),
    ],
)
def test_rule_play_stock_hand_or_discard_top_one_higher(move, pile_after):
    rules, state = basic(discards=[["", "", "SB12 SB6", ""], [""] * 4])
    after = rules.apply(state, move)
    assert after.building[move.pile] == cards(pile_after)
    assert after.turn == 0  # play goes on
    assert rules.invariant_violations(after) == []


def test_rule_a_wild_takes_the_value_needed():
    rules, state = basic()
    after = rules.apply(state, Play("hand", parse_card(W), 0))  # pile at 2: the wild is a 3
    assert after.pile_value(0) == 3
    after = rules.apply(after, Play("hand", parse_card("SB4"), 0))  # so a 4 goes on it
    assert after.pile_value(0) == 4


@pytest.mark.parametrize(
    ("move", "reason"),
    [
        (Play("hand", parse_card("SB4"), 0), "SB4 does not fit on building pile 1: it stands at 2"),
        (Play("hand", parse_card("SB10"), 1), "does not fit on building pile 2: it stands at 5"),
        (Play("hand", parse_card("SB1"), 0), "does not fit on building pile 1: it stands at 2"),
        (Play("hand", parse_card("SB4"), 2), "cannot start building pile 3: a new pile needs a 1"),
        (Play("stock", parse_card("SB3"), 2), "a new pile needs a 1 or a wild"),
    ],
)
def test_rule_exactly_one_higher_and_new_piles_need_a_one_or_wild(move, reason):
    rules, state = basic()
    with pytest.raises(IllegalMove, match=reason):
        rules.check(state, move)


def test_rule_at_most_four_building_piles():
    rules, state = basic(
        hands=["SB1 SB4 SB6 SB10 SB12", ""],
        building=["SB1 SB2", "SB1 SB2 SB3 SB4 SB5", "SB1", "SB1 SB2 SB3"],
    )
    assert not any(isinstance(m, Play) and m.card.code == "SB1" for m in rules.legal_moves(state))
    for pile in range(4):
        with pytest.raises(IllegalMove, match="does not fit"):
            rules.check(state, Play("hand", parse_card("SB1"), pile))
    with pytest.raises(IllegalMove, match="no building pile 4"):
        rules.check(state, Play("hand", parse_card("SB1"), 4))


def test_rule_a_pile_reaching_12_is_set_aside():
    pile = " ".join(f"SB{v}" for v in range(1, 12))
    rules, state = basic(hands=["SB12 SB4", ""], building=[pile])
    after = rules.apply(state, Play("hand", parse_card("SB12"), 0))
    assert after.building[0] == ()
    assert after.done == cards(pile + " SB12")
    assert "set aside" in after.last
    # the slot takes a new pile
    assert rules.is_legal(after, Play("stock", parse_card("SB3"), 0)) is False
    assert rules.invariant_violations(after) == []


def test_rule_a_wild_can_be_the_twelfth_card():
    pile = " ".join(f"SB{v}" for v in range(1, 12))
    rules, state = basic(building=[pile])
    after = rules.apply(state, Play("hand", parse_card(W), 0))
    assert after.building[0] == () and len(after.done) == 12


def test_rule_a_hand_emptied_mid_turn_draws_five_more():
    rules, state = build(
        stocks=["SB9", "SB8"],
        hands=["SB3", ""],
        building=["SB1 SB2"],
        draw="SB10 SB11 SB12 SB4 SB6 SB7",
    )
    after = rules.apply(state, Play("hand", parse_card("SB3"), 0))
    assert after.hands[0] == cards("SB7 SB6 SB4 SB12 SB11")
    assert after.turn == 0 and rules.to_move(after) == 0  # and play goes on
    after = rules.apply(after, Play("hand", parse_card("SB4"), 0))
    assert after.pile_value(0) == 4 and len(after.hands[0]) == 4


def test_rule_a_hand_emptied_by_completing_a_pile_draws_five_from_the_set_aside_cards():
    """The draw pile is empty: the pile the last hand card completed is set aside, shuffled
    into a new draw pile at once, and the five more come from it."""
    pile = " ".join(f"SB{v}" for v in range(1, 12))
    rules, state = build(
        stocks=["SB9", "SB8"], hands=["SB12", ""], building=[pile], draw="", rest_to="discard"
    )
    after = rules.apply(state, Play("hand", parse_card("SB12"), 0))
    assert after.building[0] == () and after.done == () and after.reshuffles == 1
    assert len(after.hands[0]) == 5 and len(after.draw) == 12 - 5
    assert Counter(after.hands[0] + after.draw) == Counter(cards(pile + " SB12"))
    assert rules.to_move(after) == 0 and rules.invariant_violations(after) == []


def test_rule_a_hand_emptied_mid_turn_at_a_real_table_asks_for_the_five_cards_drawn():
    rules, state = build(stocks=["SB9", "SB8"], hands=["SB1", ""], hidden=True)
    after = rules.apply(state, Play("hand", parse_card("SB1"), 0))
    assert after.owed == 5 and rules.to_move(after) == CHANCE
    for code in ("SB2", "SB3", "SBW", "SB12", "SB2"):
        after = rules.apply(after, Reveal(parse_card(code)))
    assert sorted(c.code for c in after.hands[0]) == ["SB12", "SB2", "SB2", "SB3", "SBW"]
    assert rules.to_move(after) == 0 and after.turn == 0  # play goes on
    assert rules.is_legal(after, Play("hand", parse_card("SB2"), 0))
    assert rules.invariant_violations(after) == []


def test_rule_a_wild_stock_card_plays_on_any_pile_and_may_start_one():
    rules, state = build(
        stocks=["SB9 SBW", "SB8"], hands=["SB3", ""], building=["SB1 SB2", "SB1 SB2 SB3 SB4"]
    )
    stock_plays = [
        m for m in rules.legal_moves(state) if isinstance(m, Play) and m.source == "stock"
    ]
    assert [m.pile for m in stock_plays] == [0, 1, 2, 3]
    after = rules.apply(state, Play("stock", parse_card(W), 2))  # a new pile: the wild is a 1
    assert after.building[2] == cards(W) and after.pile_value(2) == 1
    assert rules.view(after, 1)["players"][0]["stock_top"] == "SB9"
    on_top = rules.apply(state, Play("stock", parse_card(W), 1))  # on a 4: the wild is a 5
    assert on_top.pile_value(1) == 5


def test_rule_a_wild_as_the_last_stock_card_completes_a_pile_and_wins():
    pile = " ".join(f"SB{v}" for v in range(1, 12))
    rules, state = build(stocks=[W, "SB8 SB8 SB8"], hands=["SB3", ""], building=[pile])
    after = rules.apply(state, Play("stock", parse_card(W), 0))
    assert after.building[0] == () and after.done == cards(pile + " " + W)
    assert rules.is_over(after) and after.winners == (0,)
    assert rules.scores(after)["points"] == {0: 25 + 5 * 3, 1: 0}
    assert rules.invariant_violations(after) == []


def test_rule_a_wild_on_top_of_a_discard_pile_plays_as_the_value_needed():
    rules, state = build(
        stocks=["SB9", "SB8"],
        hands=["SB3", ""],
        building=["SB1 SB2 SB3 SB4 SB5 SB6 SB7"],
        discards=[["SB5 SBW", "", "", ""], [""] * 4],
    )
    after = rules.apply(state, Play("discard", parse_card(W), 0, index=0))
    assert after.pile_value(0) == 8 and after.discards[0][0] == cards("SB5")
    assert rules.is_legal(after, Play("discard", parse_card("SB5"), 1, index=0)) is False


def test_rule_the_stocks_next_card_turns_up_at_once():
    rules, state = basic(stocks=["SB9 SB7 SB3", "SB8 SB11"])
    after = rules.apply(state, Play("stock", parse_card("SB3"), 0))
    view = rules.view(after, 1)
    assert view["players"][0]["stock_top"] == "SB7"
    assert view["players"][0]["stock_count"] == 2
    assert rules.is_legal(after, Play("stock", parse_card("SB7"), 0)) is False
    assert (
        rules.is_legal(
            rules.apply(after, Play("hand", parse_card("SB4"), 0)),
            Play("stock", parse_card("SB7"), 1),
        )
        is False
    )  # pile 2 stands at 5, pile 1 at 4 now: 7 fits nowhere yet


def test_rule_the_turn_ends_with_a_discard_onto_an_own_pile():
    rules, state = basic()
    after = rules.apply(state, Discard(parse_card("SB10"), 3))
    assert after.discards[0][3] == cards("SB10")
    assert after.turn == 1 and after.turns == state.turns + 1
    assert "discards SB10 onto discard pile 4" in after.last


def test_rule_the_discard_is_required_while_the_hand_has_cards():
    rules, state = basic()
    with pytest.raises(IllegalMove, match="the turn ends with a discard"):
        rules.check(state, EndTurn())
    assert EndTurn() not in rules.legal_moves(state)


def test_rule_an_empty_hand_ends_the_turn_with_end_turn():
    rules, state = build(stocks=["SB9", "SB8"], hands=["", ""], rest_to="discard")
    assert rules.legal_moves(state)[-1] == EndTurn()
    after = rules.apply(state, EndTurn())
    assert after.turn == 1


def test_rule_playing_is_always_optional():
    rules, state = basic()
    playable = [m for m in rules.legal_moves(state) if isinstance(m, Play)]
    assert playable  # plays were possible…
    after = rules.apply(state, Discard(parse_card("SB1"), 0))  # …and discarding at once is fine
    assert after.turn == 1


def test_rule_only_the_top_of_an_own_discard_pile_plays():
    rules, state = basic(discards=[["SB3 SB12", "", "", ""], ["SB3", "", "", ""]])
    with pytest.raises(IllegalMove, match="the top of your discard pile 1 is SB12, not SB3"):
        rules.check(state, Play("discard", parse_card("SB3"), 0, index=0))
    with pytest.raises(IllegalMove, match="only from their own stock and discard piles"):
        rules.check(state, Play("discard", parse_card("SB3"), 0, index=0, owner=1))
    with pytest.raises(IllegalMove, match="discard pile 2 is empty"):
        rules.check(state, Play("discard", parse_card("SB3"), 0, index=1))


def test_rule_wilds_in_the_improvised_deck_are_kings_and_jokers():
    rules = SkipBo(deck="improvised")
    rules, state = build(
        rules, stocks=["5S 2H", "9D"], hands=["KC JK AH QD 3S", ""], building=["AS"]
    )
    for code in ("KC", "JK", "2H"):
        assert rules.is_legal(state, Play("stock" if code == "2H" else "hand", parse_card(code), 0))
    assert rules.is_legal(state, Play("hand", parse_card("AH"), 1))
    with pytest.raises(IllegalMove, match="QD does not fit on building pile 1"):
        rules.check(state, Play("hand", parse_card("QD"), 0))
    assert value(parse_card("QD")) == 12 and value(parse_card("KS")) == 0


# ---- draw pile running out --------------------------------------------------------------
def test_rule_set_aside_piles_are_shuffled_into_a_new_draw_pile():
    done = " ".join(f"SB{v}" for v in range(1, 13))
    rules, state = build(
        stocks=["SB9", "SB8"],
        hands=["SB10", ""],
        draw="SB4 SB5",
        done=done,
        rest_to="discard",
        seed=11,
    )
    after = rules.apply(state, Discard(parse_card("SB10"), 0))
    assert after.done == () and after.reshuffles == 1
    assert len(after.hands[1]) == 5 and len(after.draw) == 12 + 2 - 5
    assert {"SB4", "SB5"} <= {c.code for c in after.hands[1]}
    again = rules.apply(state, Discard(parse_card("SB10"), 0))
    assert again == after  # the shuffle is seeded by the state: replay is exact
    other = rules.apply(
        SkipBoState(**{**{f: getattr(state, f) for f in SkipBoState.__slots__}, "seed": 12}),
        Discard(parse_card("SB10"), 0),
    )
    assert other.hands[1] != after.hands[1] or other.draw != after.draw


def test_house_rule_play_on_without_drawing():
    rules, state = build(
        stocks=["SB9", "SB8"],
        hands=["SB10 SB11", "SB3"],
        building=["SB1 SB2"],
        draw="",
        rest_to="discard",
    )
    after = rules.apply(state, Discard(parse_card("SB10"), 0))
    assert after.phase == "play" and after.hands[1] == cards("SB3")
    after = rules.apply(after, Play("hand", parse_card("SB3"), 0))
    assert after.hands[1] == () and rules.legal_moves(after)[-1] == EndTurn()


def test_house_rule_end_ends_the_game_when_a_draw_is_impossible():
    rules = SkipBo(empty_draw="end")
    rules, state = build(
        rules, stocks=["SB9 SB9", "SB8"], hands=["SB10 SB11", "SB3"], draw="", rest_to="discard"
    )
    after = rules.apply(state, Discard(parse_card("SB10"), 0))
    assert rules.is_over(after) and after.stalled
    result = rules.scores(after)
    assert result["winners"] == [1]  # fewest stock cards
    assert result["points"] == {0: 0, 1: 10}  # 5 per opponent stock card, no 25: nobody went out


def test_house_rule_a_full_round_without_progress_ends_the_game():
    rules, state = build(
        stocks=["SB9", "SB8 SB8"], hands=["SB10", "SB11"], draw="", rest_to="discard"
    )
    state = rules.apply(state, Discard(parse_card("SB10"), 0))
    assert not rules.is_over(state) and state.idle == 1
    state = rules.apply(state, Discard(parse_card("SB11"), 0))
    assert rules.is_over(state) and state.stalled
    assert rules.scores(state)["winners"] == [0]
    assert "full round" in state.last


def test_a_play_resets_the_no_progress_count():
    rules, state = build(
        stocks=["SB9", "SB8"], hands=["SB10", "SB1 SB11"], draw="", rest_to="discard"
    )
    state = rules.apply(state, Discard(parse_card("SB10"), 0))
    state = rules.apply(state, Play("hand", parse_card("SB1"), 0))
    state = rules.apply(state, Discard(parse_card("SB11"), 0))
    assert state.idle == 0 and not rules.is_over(state)


# ---- winning, scoring, matches --------------------------------------------------------------
def test_rule_first_to_empty_the_stock_wins_and_scores():
    rules, state = basic(stocks=["SB3", "SB8 SB9 SB11"])
    after = rules.apply(state, Play("stock", parse_card("SB3"), 0))
    assert rules.is_over(after) and after.winners == (0,)
    result = rules.scores(after)
    assert result["winners"] == [0]
    assert result["points"] == {0: 25 + 5 * 3, 1: 0}
    assert result["stalled"] is False
    with pytest.raises(IllegalMove, match="the game is over"):
        rules.check(after, Discard(parse_card("SB10"), 0))
    assert rules.legal_moves(after) == []


def test_score_counts_every_opponent_stock():
    rules = SkipBo(players=3, stock=10)
    rules, state = build(
        rules,
        stocks=["SB3", "SB8 SB9", "SB5 SB5 SB5 SB5"],
        hands=["", "", ""],
        building=["SB1 SB2"],
    )
    result = rules.scores(rules.apply(state, Play("stock", parse_card("SB3"), 0)))
    assert result["points"] == {0: 25 + 5 * 6, 1: 0, 2: 0}


def test_match_runs_to_500_and_declares_the_winner():
    match = SkipBo().new_match()
    assert match.target == 500 and match.totals == (0, 0)
    for _ in range(3):
        match = match.add({"points": {0: 150, 1: 0}})
    assert not match.is_over and match.winners == []
    match = match.add({"points": {"0": 0, "1": 175}})  # JSON keys work too
    match = match.add({"points": {0: 60, 1: 0}})
    assert match.totals == (510, 175) and match.is_over and match.winners == [0]
    assert Match.from_json(json.loads(json.dumps(match.to_json()))) == match
    with pytest.raises(RulesError, match="the match is over"):
        match.add({"points": {0: 5, 1: 0}})


def test_match_target_is_configurable_and_games_add_up():
    rules = SkipBo(match_target=100)
    match = rules.new_match()
    for seed in range(40):
        if match.is_over:
            break
        result, _ = play_game(rules, seed, ["greedy", "hint"])
        match = match.add(result.scores)
    assert match.is_over and max(match.totals) >= 100
    assert match.totals == tuple(sum(g[s] for g in match.games) for s in range(2))


def test_match_rejects_malformed_input():
    with pytest.raises(RulesError, match="points"):
        Match(2).add({"winner": 0})
    with pytest.raises(RulesError, match="malformed match"):
        Match.from_json({"players": 2})


@pytest.mark.parametrize("points", ["abc", None, [], 2.5, True, -25])
def test_match_refuses_points_that_are_not_whole_numbers_of_zero_or_more(points):
    """A game's points of "abc" or None were a ValueError/TypeError (a traceback); 2.5,
    True and -25 were added as 2, 1 and -25."""
    match = Match(2)
    with pytest.raises(RulesError, match="points"):
        match.add({"points": {0: points, 1: 0}})
    assert match.totals == (0, 0)


@pytest.mark.parametrize(
    "data",
    [
        {"players": 0, "target": 500, "totals": [], "games": []},
        {"players": 2, "target": 0, "totals": [0, 0], "games": []},
        {"players": 2, "target": 500, "totals": [0, 0], "games": [[25]]},
    ],
)
def test_match_from_json_refuses_no_players_no_target_or_short_games(data):
    """No players gave a match whose winners raised ValueError (max of nothing); target 0
    made both players winners of a match nobody played."""
    with pytest.raises(RulesError):
        Match.from_json(data)


def test_a_match_target_of_true_is_refused():
    with pytest.raises(RulesError, match="match target"):
        SkipBo(match_target=True)


# ---- teams ---------------------------------------------------------------------------------
def team_table(**kw):
    rules = SkipBo(players=4, teams=True, stock=5)
    defaults = dict(
        stocks=["SB9 SB3", "SB8", "SB12 SB4", "SB7"],
        hands=["SB10 SB11", "", "", ""],
        building=["SB1 SB2"],
        discards=[[""] * 4, [""] * 4, ["SB5", "", "", ""], ["SB3", "", "", ""]],
    )
    defaults.update(kw)
    return build(rules, **defaults)


def test_team_partners_sit_opposite():
    rules = SkipBo(players=6, teams=True)
    assert [rules.partner(s) for s in range(6)] == [3, 4, 5, 0, 1, 2]
    assert rules.teams_list() == [[0, 3], [1, 4], [2, 5]]


def test_team_partners_play_from_each_others_stock_and_discard_piles():
    rules, state = team_table()
    state = rules.apply(state, Play("stock", parse_card("SB3"), 0))
    state = rules.apply(state, Play("stock", parse_card("SB4"), 0, owner=2))
    state = rules.apply(state, Play("discard", parse_card("SB5"), 0, index=0, owner=2))
    assert state.pile_value(0) == 5
    assert state.stocks[2] == cards("SB12") and state.discards[2][0] == ()
    assert "seat 2's discard pile 1" in state.last
    with pytest.raises(
        IllegalMove, match="only from their own stock and discard piles and their partner"
    ):
        rules.check(state, Play("discard", parse_card("SB3"), 1, index=0, owner=3))
    with pytest.raises(IllegalMove, match="only from your own hand"):
        rules.check(state, Play("hand", parse_card("SB10"), 1, owner=2))


def test_team_wins_only_when_both_stocks_are_empty():
    rules, state = team_table(stocks=["SB3", "SB8 SB8", "SB4", "SB7"])
    state = rules.apply(state, Play("stock", parse_card("SB3"), 0))
    assert not rules.is_over(state)  # seat 0's stock is empty, its partner's is not
    state = rules.apply(state, Play("stock", parse_card("SB4"), 0, owner=2))
    assert rules.is_over(state) and state.winners == (0, 2)
    result = rules.scores(state)
    assert result["winners"] == [0, 2]
    assert result["points"] == {0: 25 + 15, 1: 0, 2: 25 + 15, 3: 0}
    assert result["teams"] == [[0, 2], [1, 3]]


def test_team_table_talk_penalty_puts_two_unseen_cards_under_the_stock_top():
    rules, state = team_table(draw="SB6 SB7")
    after = rules.apply(state, TableTalkPenalty(1))
    assert after.stocks[1] == cards("SB7 SB6 SB8")
    assert rules.view(after, 0)["players"][1]["stock_top"] == "SB8"
    assert rules.view(after, 0)["players"][1]["stock_count"] == 3
    assert len(after.draw) == len(state.draw) - 2 and after.turn == state.turn
    assert rules.invariant_violations(after) == []


def test_table_talk_penalty_is_for_team_play_only():
    rules, state = basic()
    with pytest.raises(IllegalMove, match="team play only"):
        rules.check(state, TableTalkPenalty(1))
    rules, state = team_table()
    with pytest.raises(IllegalMove, match="no seat 4"):
        rules.check(state, TableTalkPenalty(4))


def test_a_penalty_with_no_card_to_take_is_refused_not_logged_as_taking_none():
    rules, state = team_table(draw="", rest_to="discard")
    assert not state.draw and not state.done
    with pytest.raises(IllegalMove, match="the draw pile is empty: there are no cards to take"):
        rules.apply(state, TableTalkPenalty(1))
    # finished building piles are shuffled into a new draw pile: the penalty takes from it
    done = " ".join(f"SB{v}" for v in range(1, 13))
    rules, state = team_table(draw="", done=done, rest_to="discard")
    assert not state.draw
    after = rules.apply(state, TableTalkPenalty(1))
    assert len(after.stocks[1]) == len(state.stocks[1]) + 2


# ---- illegal moves explain and change nothing ------------------------------------------------
@pytest.mark.parametrize(
    ("move", "reason"),
    [
        (Play("hand", parse_card("SB7"), 1), "SB7 is not in your hand"),
        (Play("stock", parse_card("SB7"), 1), "the top of your stock is SB3, not SB7"),
        (Play("deck", parse_card("SB4"), 1), "unknown source 'deck'"),
        (Play("hand", parse_card("SB6"), 1, seat=1), "it is seat 0's turn, not seat 1's"),
        (Play("discard", parse_card("SB6"), 1, index=7), "no discard pile 7"),
        (Discard(parse_card("SB7"), 0), "SB7 is not in your hand"),
        (Discard(parse_card("SB10"), 4), "no discard pile 4"),
        (Discard(parse_card("SB10"), "x"), "no discard pile 'x'"),
        (Reveal(parse_card("SB7")), "no card is being drawn"),
        (Play("hand", "SB6", 1), "must be a card code"),
    ],
)
def test_illegal_moves_explain_and_do_not_change_the_state(move, reason):
    rules, state = basic()
    before = rules.state_to_json(state)
    with pytest.raises(IllegalMove, match=reason):
        rules.apply(state, move)
    assert not rules.is_legal(state, move)
    assert rules.state_to_json(state) == before


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        ({"kind": "fly"}, "unknown move 'fly'"),
        ({"kind": "play", "source": "hand", "card": "SB13", "pile": 0}, "SB13"),
        ({"kind": "discard", "card": "SB4"}, "needs 'pile'"),
        ({"kind": "discard", "card": None, "pile": 0}, "card must be one card code"),
        ("play SB4", "must be an object"),
    ],
)
def test_malformed_move_json_is_explained(data, reason):
    with pytest.raises(IllegalMove, match=reason):
        SkipBo().move_from_json(data)


def test_malformed_state_json_is_explained():
    rules = SkipBo()
    good = rules.state_to_json(rules.initial_state(random.Random(1)))
    with pytest.raises(RulesError, match="lacks 'draw'"):
        rules.state_from_json({k: v for k, v in good.items() if k != "draw"})
    with pytest.raises(RulesError, match="draw pile: unknown card code 'SB99'"):
        rules.state_from_json({**good, "draw": ["SB99"]})
    with pytest.raises(RulesError, match="not accounted for"):
        rules.state_from_json({**good, "draw": good["draw"][1:]})


@pytest.mark.parametrize(
    ("hidden", "change", "words"),
    [
        (True, {"turn_up": [7]}, "turn_up"),
        (True, {"turn_up": [0, 0]}, "turn_up"),
        (True, {"owed": -1}, "owed"),
        (True, {"owed": 3}, "owed"),  # on top of a full hand of five
        (False, {"owed": 1}, "owed"),
        (False, {"turn_up": [0]}, "turn_up"),
        (False, {"winners": [9], "phase": "over"}, "winners"),
        (False, {"phase": "over"}, "winners"),
        (False, {"winners": [0]}, "winners"),
    ],
)
def test_a_state_with_impossible_draws_turn_ups_or_winners_is_refused(hidden, change, words):
    """Such a state was accepted, and the next chance move crashed (turn_up [7]: IndexError)
    or dealt a hand of 17 cards (owed -1)."""
    rules = SkipBo()
    rng = random.Random(2)
    state = rules.table_state(random.Random(1)) if hidden else rules.initial_state(rng)
    while rules.to_move(state) == CHANCE:
        state = rules.apply(state, rules.chance_move(state, rng))
    assert len(state.hands[state.turn]) == 5
    with pytest.raises(RulesError, match=words):
        rules.state_from_json({**rules.state_to_json(state), **change})


def test_a_state_owing_a_draw_with_nothing_to_draw_is_refused():
    """A real table's state that owes a card while the draw pile and the set-aside piles are
    empty was accepted, and the next reveal raised IndexError (such a draw is cancelled)."""
    rules, state = build(
        stocks=["SB9", "SB8"], hands=["SB3 SB4 SB5 SB6", ""], draw="", rest_to="discard"
    )
    with pytest.raises(RulesError, match="owed"):
        rules.state_from_json({**rules.state_to_json(state), "hidden": True, "owed": 1})


# ---- views and JSON ---------------------------------------------------------------------------
def test_view_shows_own_hand_stock_tops_and_fanned_discards_only():
    rules, state = basic(discards=[["SB12 SB11", "", "", ""], ["SB7", "", "", ""]])
    view = rules.view(state, 1)
    assert view["hand"] == [] and view["players"][0]["hand_count"] == 5
    public = json.dumps(view)
    assert not any(f'"{c}"' in public for c in ("SB1", "SB4", "SB6", "SBW"))  # no hand leaks…
    assert view["players"][0]["stock_top"] == "SB3" and view["players"][0]["stock_count"] == 2
    assert '"SB9"' not in public  # …nor the stock under its top
    assert view["players"][0]["discards"][0] == ["SB12", "SB11"]
    assert view["building"][1] == {"value": 5, "count": 5, "top": "SB5"}
    assert view["draw_count"] == len(state.draw) and view["turn"] == 0
    assert rules.view(state, 0)["hand"] == ["SB1", "SB4", "SB6", "SB10", "SBW"]
    assert rules.view(state, None)["hand"] is None
    with pytest.raises(RulesError, match="no seat 5"):
        rules.view(state, 5)


@pytest.mark.parametrize(
    "move",
    [
        Play("discard", parse_card("SB6"), 1, index=2, owner=3, seat=0),
        Play("stock", parse_card("SBW"), 0),
        Discard(parse_card("SB10"), 3),
        EndTurn(),
        Reveal(parse_card("SB12")),
        TableTalkPenalty(2),
    ],
)
def test_moves_round_trip_through_json(move):
    data = json.loads(json.dumps(move.to_json()))
    assert SkipBo(players=4, teams=True).move_from_json(data) == move


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("index", "ZZ", "index must be a whole number 0–3, not 'ZZ'"),
        ("index", True, "index must be a whole number 0–3, not True"),
        ("index", -1, "index must be a whole number 0–3, not -1"),
        ("index", 1e20, "index must be a whole number 0–3, not 1e+20"),
        ("index", [0], "index must be a whole number 0–3, not [0]"),
        ("pile", 4, "pile must be a whole number 0–3, not 4"),
        ("owner", 2, "owner must be a whole number 0–1, not 2"),
        ("seat", 0.0, "seat must be a whole number 0–1, not 0.0"),
    ],
)
def test_a_moves_numbers_must_be_whole_and_in_range(field, value, words):
    """Even a number the move does not use (the index of a play from the hand): the log
    keeps a move as it was sent."""
    data = {"kind": "play", "source": "hand", "card": "SB3", "pile": 0, field: value}
    with pytest.raises(IllegalMove) as e:
        SkipBo(players=2).move_from_json(data)
    assert str(e.value) == words
    assert SkipBo(players=2).move_from_json({**data, field: 1}).to_json()[field] == 1


@pytest.mark.parametrize(
    "config", [{}, {"players": 4, "teams": True}, {"players": 3, "deck": "improvised"}]
)
def test_states_round_trip_and_logs_replay_exactly(config):
    rules = SkipBo(**config)
    result, moves = play_game(rules, 5, ["hint"] + ["random"] * (rules.seats - 1))
    assert result.violations == []
    initial = rules.initial_state(random.Random(5))
    log = GameLog(
        "skipbo", rules.config, rules.state_to_json(initial), [m.to_json() for m in moves]
    )
    log = GameLog.from_json(json.loads(json.dumps(log.to_json())))
    _, states = replay(log)
    for state in [*states[:: max(1, len(states) // 20)], states[-1]]:
        assert rules.state_from_json(json.loads(json.dumps(rules.state_to_json(state)))) == state
    assert rules.is_over(states[-1]) and rules.scores(states[-1]) == result.scores


# ---- a real table: unknown card order ---------------------------------------------------------
def test_table_state_asks_for_every_turned_up_and_drawn_card():
    rules = SkipBo()
    state = rules.table_state(random.Random(1))
    assert rules.to_move(state) == CHANCE and state.turn_up == (0, 1) and state.owed == 5
    assert rules.view(state, 0)["players"][0]["stock_top"] is None
    assert rules.view(state, 0)["awaiting_reveal"] is True
    with pytest.raises(IllegalMove, match="first say which card was turned up"):
        rules.check(state, Discard(parse_card("SB1"), 0))
    wanted = ["SB7", "SBW", "SB1", "SB1", "SB5", "SB12", "SB1"]
    for code in wanted:
        state = rules.apply(state, Reveal(parse_card(code)))
    assert rules.to_move(state) == 0
    assert [c.code for c in (state.stocks[0][-1], state.stocks[1][-1])] == ["SB7", "SBW"]
    assert [c.code for c in state.hands[0]] == ["SB1", "SB1", "SB5", "SB12", "SB1"]
    assert rules.invariant_violations(state) == []
    state = rules.apply(state, Play("hand", parse_card("SB1"), 0))
    moves = rules.legal_moves(state)
    assert all(isinstance(m, Play | Discard) for m in moves)


def test_table_state_with_the_improvised_deck_offers_every_unseen_card():
    rules = SkipBo(deck="improvised")
    state = rules.table_state(random.Random(2))
    assert len(rules.legal_moves(state)) == 53  # 52 standard cards and the joker
    state = rules.apply(state, Reveal(parse_card("KH")))
    assert rules.view(state, 1)["players"][0]["stock_top"] == "KH"


def test_table_state_refuses_a_card_that_cannot_be_unseen():
    rules2, full = build(stocks=["SB9", "SB8"], hands=["SB10", ""], rest_to="discard", hidden=True)
    full = rules2.apply(full, Discard(parse_card("SB10"), 0))
    assert full.owed == 0  # nothing left unseen to draw: play on
    hidden_one = build(
        stocks=["SB9 SB4", "SB8"], hands=["SB10", ""], rest_to="discard", hidden=True, turn_up=(1,)
    )[1]
    with pytest.raises(IllegalMove, match="no unseen SB12 is left"):
        rules2.check(hidden_one, Reveal(parse_card("SB12")))
    assert rules2.legal_moves(hidden_one) == [Reveal(parse_card("SB8")), Reveal(parse_card("SB9"))]
    after = rules2.apply(hidden_one, Reveal(parse_card("SB9")))
    assert after.stocks == (cards("SB8 SB4"), cards("SB9"))  # swapped in from the unseen cards


def test_table_state_playouts_keep_every_card_and_replay():
    rules = SkipBo(players=3, stock=10)
    rng = random.Random(9)
    state = initial = rules.table_state(rng)
    log = []
    while not rules.is_over(state):
        move = (
            rules.chance_move(state, rng)
            if rules.to_move(state) == CHANCE
            else (rules.hint_move(state, rng))
        )
        state = rules.apply(state, move)
        log.append(move.to_json())
        assert rules.invariant_violations(state) == []
    _, states = replay(GameLog("skipbo", rules.config, rules.state_to_json(initial), log))
    assert states[-1] == state


# ---- the hint ------------------------------------------------------------------------------------
def plan_of(hint):
    return [(m["source"], m["card"], m["pile"]) for m in hint.details["plan"]]


def test_hint_plays_towards_the_stock_first():
    rules, state = build(
        stocks=["SB9 SB4", "SB10"], hands=["SB3 SB2 SB11 SB12 SB12", ""], building=["SB1"]
    )
    hint = rules.hint(state, 0)
    assert plan_of(hint)[:3] == [("hand", "SB2", 0), ("hand", "SB3", 0), ("stock", "SB4", 0)]
    assert hint.move == Play("hand", parse_card("SB2"), 0)
    assert "from the stock" in hint.reason.split(":")[-1]


def test_hint_spends_a_wild_where_it_frees_the_stock_card():
    rules, state = build(
        stocks=["SB9 SB5", "SB10"], hands=["SBW SB11 SB12 SB12 SB10", ""], building=["SB1 SB2 SB3"]
    )
    assert plan_of(rules.hint(state, 0)) == [("hand", "SBW", 0), ("stock", "SB5", 0)]


def test_hint_keeps_a_wild_that_frees_no_stock_card():
    rules, state = build(
        stocks=["SB9 SB10", "SB10"], hands=["SBW SB11 SB12 SB12 SB8", ""], building=["SB1 SB2 SB3"]
    )
    hint = rules.hint(state, 0)
    assert all(card != "SBW" for _s, card, _p in plan_of(hint))
    assert hint.details["discard"]["card"] != "SBW"


def test_hint_builds_discard_piles_downwards():
    rules, state = build(
        stocks=["SB9 SB10", "SB10"],
        hands=["SB7 SB11 SB12 SB12 SB9", ""],
        discards=[["SB8", "SB3", "", ""], [""] * 4],
    )
    hint = rules.hint(state, 0)
    assert hint.details["plan"] == []
    assert hint.move == Discard(parse_card("SB7"), 0)


def test_hint_gives_no_gift_to_the_next_player():
    rules, state = build(
        stocks=["SB9 SB10", "SB6"],
        hands=["SB5 SB11 SB12 SB12 SB9", ""],
        building=["SB1 SB2 SB3 SB4"],
    )
    hint = rules.hint(state, 0)
    assert ("hand", "SB5", 0) not in plan_of(hint)
    rules, state = build(
        stocks=["SB9 SB10", "SB8"],
        hands=["SB5 SB11 SB12 SB12 SB9", ""],
        building=["SB1 SB2 SB3 SB4"],
    )
    assert ("hand", "SB5", 0) in plan_of(rules.hint(state, 0))  # no gift: then play it


def test_hint_plays_discard_pile_tops():
    rules, state = build(
        stocks=["SB9 SB6", "SB12"],
        hands=["SB11 SB11 SB12 SB12 SB10", ""],
        building=["SB1 SB2 SB3"],
        discards=[["SB5", "SB9 SB4", "", ""], [""] * 4],
    )
    plan = plan_of(rules.hint(state, 0))
    assert plan == [("discard", "SB4", 0), ("discard", "SB5", 0), ("stock", "SB6", 0)]


def test_hint_uses_the_partners_stock_in_team_play():
    rules, state = team_table(stocks=["SB9 SB9", "SB8", "SB12 SB3", "SB7"])
    hint = rules.hint(state, 0)
    assert hint.details["plan"][0] == Play("stock", parse_card("SB3"), 0, owner=2).to_json()
    # said as whose stock it is: "from the stock" sent the player to their own SB9
    assert hint.reason.startswith("play SB3 from seat 2's stock onto building pile 1:")


def test_hint_names_the_discard_pile_it_plays_from():
    rules, state = build(
        stocks=["SB9", "SB10"],
        hands=["SB11 SB12", ""],
        building=["SB1 SB2"],
        discards=[["SB7", "", "SB3", ""], [""] * 4],
    )
    hint = rules.hint(state, 0)
    assert hint.move == Play("discard", parse_card("SB3"), 0, index=2)
    assert hint.reason.startswith("play SB3 from discard pile 3 onto building pile 1:")
    partner = team_table(
        stocks=["SB3 SB9", "SB8", "SB12 SB11", "SB7"],
        discards=[[""] * 4, [""] * 4, ["", "SB3", "", ""], [""] * 4],
    )
    hint = partner[0].hint(partner[1], 0)
    assert hint.reason.startswith("play SB3 from seat 2's discard pile 2 onto building pile 1:")


def test_hint_plan_is_legal_move_by_move():
    rules = SkipBo()
    rng = random.Random(4)
    state = rules.initial_state(rng)
    checked = 0
    while not rules.is_over(state) and checked < 60:
        hint = rules.hint(state, state.turn)
        plan = [rules.move_from_json(m) for m in hint.details["plan"]]
        trial = state
        for move in plan:
            rules.check(trial, move)
            trial = rules.apply(trial, move)
            if (
                len(trial.hands[state.turn]) > len(state.hands[state.turn])
                or trial.turn != state.turn
            ):
                break  # a fresh hand was drawn: the rest of the plan is re-planned anyway
        if hint.details["discard"] and trial.turn == state.turn and trial.hands[state.turn]:
            rules.check(trial, rules.move_from_json(hint.details["discard"]))
        state = rules.apply(state, rules.hint_move(state, rng))
        checked += 1
    assert checked > 20


def test_hint_says_nothing_when_it_is_not_the_seats_turn():
    rules, state = basic()
    assert rules.hint(state, 1).move is None
    assert "seat 0's turn" in rules.hint(state, 1).reason


def test_hint_beats_greedy_on_a_seeded_sample():
    result = simulate("skipbo", 2, 16, seed=3, policy="hint", against="greedy")
    assert result["invariant_violations"] == 0
    assert result["wins"]["by_policy"].get("hint", 0) >= 12


# ---- seeded playouts ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("players", "games", "policy"),
    [
        (2, 500, "random"),
        (3, 200, "random"),
        (4, 200, "random"),
        (5, 150, "random"),
        (6, 150, "random"),
        (2, 150, "greedy"),
        (3, 60, "greedy"),
    ],
)
def test_seeded_random_playouts_keep_every_rule(players, games, policy):
    result = simulate("skipbo", players, games, seed=players, policy=policy)
    assert result["invariant_violations"] == 0, result.get("violation_examples")
    assert result["games"] == games
    assert sum(result["wins"]["by_seat"].values()) >= games  # every game ends with a winner


@pytest.mark.parametrize(
    "config",
    [
        {"players": 4, "teams": True},
        {"players": 6, "teams": True},
        {"players": 2, "deck": "improvised", "stock": 10},
        {"players": 3, "empty_draw": "end"},
    ],
)
def test_seeded_playouts_of_variants(config):
    rules = SkipBo(**config)
    for seed in range(18):
        policy = ("random", "greedy", "hint")[seed % 3]
        result, _ = play_game(rules, seed, [policy] * rules.seats)
        assert result.violations == [], result.violations[:3]
        assert result.scores["winners"]


def test_a_penalty_that_takes_the_last_cards_of_an_owed_draw_cancels_that_draw():
    """At a real table the player on turn may still owe a draw when a table-talk penalty
    takes the draw pile's last cards (nothing set aside to shuffle in): the draw cannot
    happen, and the game goes on without it (before, every move then failed)."""
    rules = SkipBo(players=4, teams=True, stock=30)
    rng = random.Random(0)
    state = rules.table_state(random.Random(0))
    while not (
        rules.to_move(state) == CHANCE
        and state.owed
        and len(state.draw) <= 2
        and not state.done
        and not state.turn_up
    ):
        move = rules.chance_move(state, rng) if rules.to_move(state) == CHANCE else None
        state = rules.apply(state, move or rules.greedy_move(state, rng))
    after = rules.apply(state, TableTalkPenalty(1))
    assert after.owed == 0 and after.draw == ()
    assert rules.to_move(after) == state.turn  # the player on turn plays on, without drawing
    for move in rules.legal_moves(after):
        assert rules.invariant_violations(rules.apply(after, move)) == []


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"kind": "reveal", "card": {}}, "a card code must be text, not dict"),
        ({"kind": "discard", "card": ["SB3"], "pile": 0}, "card must be one card code"),
    ],
)
def test_a_card_given_as_anything_but_its_code_is_refused_with_a_sentence(data, words):
    with pytest.raises(IllegalMove, match=words):
        SkipBo().move_from_json(data)


def test_simulate_plays_team_skipbo_and_names_settings_skipbo_lacks(capsys):
    from kortbord.cli import main

    assert main(["simulate", "skipbo", "--players", "4", "--teams", "--games", "6"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["config"]["teams"] is True
    wins = out["wins"]["by_seat"]
    assert wins["0"] == wins["2"] and wins["1"] == wins["3"]  # partners win together
    assert out["wins"]["games_won_together"] == 6
    assert main(["simulate", "skipbo", "--variant", "strategy", "--games", "1"]) == 2
    err = capsys.readouterr().err
    assert "skipbo has no 'variant' setting; its settings: players, stock, teams" in err
    assert main(["simulate", "sten", "--teams", "--games", "1"]) == 2
    assert "--teams is for Skip-Bo" in capsys.readouterr().err

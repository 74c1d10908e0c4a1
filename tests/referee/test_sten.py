"""Sten: a named test for every rule of issue 2, the house rules, views, JSON and playouts."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from referee import GameLog, IllegalMove, RulesError, make_rules, replay
from referee.cards import SUITS, parse_card, parse_cards
from referee.simulate import play_game, simulate
from referee.sten import DECK, GoOut, Lay, SaySten, Sten, StenState, go_out_order


# ---- builders --------------------------------------------------------------------------------
def lay(code: str, seat: int | None = None) -> Lay:
    return Lay(parse_card(code), seat=seat)


def go_out(codes: str) -> GoOut:
    return GoOut(tuple(parse_cards(codes)))


def _on_board(piles: dict[str, tuple[int, int]]) -> set:
    out = set()
    for c in DECK:
        pile = piles.get(c.suit.value)
        if pile and pile[0] <= c.rank_value <= pile[1]:
            out.add(c)
    return out


def position(
    players: int = 3,
    board: dict[str, tuple[int, int]] | None = None,
    hands: dict[int, str] | None = None,
    turn: int = 0,
    stone: int | None = None,
    known: bool = True,
) -> tuple[Sten, StenState]:
    """Build a mid-game position: the named hands, the named piles, the rest dealt to others."""
    rules = Sten(players=players, known_hands=known)
    piles = board if board is not None else {"H": (7, 7)}
    given = {seat: parse_cards(text) for seat, text in (hands or {}).items()}
    used = {c for h in given.values() for c in h} | _on_board(piles)
    rest = [c for c in DECK if c not in used]
    others = [s for s in range(players) if s not in given]
    dealt = {s: list(given.get(s, [])) for s in range(players)}
    for i, c in enumerate(rest):
        dealt[others[i % len(others)]].append(c)
    hands_t = tuple(tuple(sorted(dealt[s], key=DECK.index)) for s in range(players))
    state = StenState(
        hands=hands_t if known else None,
        counts=tuple(len(h) for h in hands_t),
        board=tuple(piles.get(s.value) for s in SUITS),
        stone=stone,
        turn=turn,
    )
    assert rules.invariant_violations(state) == []
    return rules, state


def deal_for(players: int, holder: int = 0, **extra) -> list[list[str]]:
    """Return a fixed deal (codes) in which seat ``holder`` holds 7♥."""
    deck = [c.code for c in DECK]
    deck.remove("7H")
    deck.insert(holder, "7H")
    hands: list[list[str]] = [[] for _ in range(players)]
    for i, code in enumerate(deck):
        hands[i % players].append(code)
    return hands


# ---- set-up ----------------------------------------------------------------------------------
@pytest.mark.parametrize("players", range(2, 11))
def test_all_52_cards_are_dealt_as_evenly_as_possible(players):
    rules = Sten(players=players)
    state = rules.initial_state(random.Random(players))
    sizes = [len(h) for h in state.hands]
    assert sum(sizes) == 52 and max(sizes) - min(sizes) <= 1
    assert sorted(c.code for h in state.hands for c in h) == sorted(c.code for c in DECK)
    assert list(state.counts) == sizes == rules.deal_sizes()
    assert rules.invariant_violations(state) == []


@pytest.mark.parametrize(
    ("players", "dealer", "sizes"),
    [
        (2, None, [26, 26]),
        (3, None, [18, 17, 17]),
        (3, 0, [17, 18, 17]),
        (3, 1, [17, 17, 18]),
        (5, None, [11, 11, 10, 10, 10]),
        (5, 3, [11, 10, 10, 10, 11]),
        (8, None, [7, 7, 7, 7, 6, 6, 6, 6]),
        (10, 9, [6, 6, 5, 5, 5, 5, 5, 5, 5, 5]),
    ],
)
def test_uneven_deal_house_rule(players, dealer, sizes):
    """When 52 does not divide, the first seats after the dealer get one card more."""
    rules = Sten(players=players, dealer=dealer)
    assert rules.deal_sizes() == sizes
    assert [len(h) for h in rules.initial_state(random.Random(7)).hands] == sizes
    unknown = Sten(players=players, dealer=dealer, known_hands=False)
    assert list(unknown.initial_state(random.Random(7)).counts) == sizes


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({"players": 1}, "2 to 10 players, not 1"),
        ({"players": 11}, "2 to 10 players, not 11"),
        ({"players": "4"}, "whole number"),
        ({"players": 4, "dealer": 4}, "dealer must be a seat from 0 to 3"),
        ({"players": 2, "names": ["Anna"]}, "one name per player"),
        ({"players": 4, "variant": "strategy"}, "no variants"),
        ({"players": 2, "hands": [["AS"]]}, "one hand per player"),
        ({"players": 2, "hands": [["XX"], []]}, "unknown card code 'XX'"),
        ({"players": 2, "hands": [["JK"], []]}, "without Joker"),
        ({"players": 2, "hands": [["AS", "AS"], []]}, "A♠ is twice"),
        ({"players": 2, "hands": [["AS"], ["AS"]]}, "also in Player 1's hand"),
        ({"players": 2, "hands": [["AS"], ["2S"]]}, "missing: 3♠"),
        ({"players": 2, "hands": [["AS"], "2S"]}, "must be a list"),
        ({"players": 2, "known_hands": False, "hands": deal_for(2)}, "known_hands is false"),
    ],
)
def test_bad_set_ups_raise_rules_error_with_a_sentence(config, message):
    with pytest.raises(RulesError, match=message):
        Sten(**config)


def test_uneven_given_hands_are_refused():
    hands = deal_for(2)
    hands[1].append(hands[0].pop())
    hands[1].append(hands[0].pop())
    with pytest.raises(RulesError, match=r"evenly as possible; hand sizes are \[24, 28\]"):
        Sten(players=2, hands=hands)


def test_make_rules_builds_sten_and_config_rebuilds_it():
    rules = make_rules("sten", players=3, hands=deal_for(3), names=["Anna", "Bo", "Cy"])
    again = make_rules("sten", **json.loads(json.dumps(rules.config)))
    assert again.config == rules.config and again.seats == 3
    assert rules.initial_state(random.Random(1)) == again.initial_state(random.Random(2))


# ---- starting --------------------------------------------------------------------------------
@pytest.mark.parametrize(("players", "holder"), [(2, 1), (3, 2), (4, 0), (6, 5), (10, 7)])
def test_holder_of_seven_of_hearts_starts(players, holder):
    rules = Sten(players=players, hands=deal_for(players, holder))
    state = rules.initial_state(random.Random(0))
    assert parse_card("7H") in state.hands[holder]
    assert rules.to_move(state) == holder
    assert "lays it first" in state.last


@pytest.mark.parametrize("seed", range(20))
def test_holder_of_seven_of_hearts_starts_after_a_shuffle(seed):
    rules = Sten(players=4)
    state = rules.initial_state(random.Random(seed))
    assert parse_card("7H") in state.hands[rules.to_move(state)]
    assert state.stone is None


def test_only_seven_of_hearts_is_legal_first():
    rules = Sten(players=4, hands=deal_for(4, 2))
    state = rules.initial_state(random.Random(0))
    assert rules.legal_moves(state) == [lay("7H")]
    other = next(c.code for c in state.hands[2] if c.code != "7H")
    for move in (lay(other), SaySten()):
        with pytest.raises(IllegalMove, match="7♥ must be laid first"):
            rules.check(state, move)
    after = rules.apply(state, lay("7H"))
    assert after.board[SUITS.index(parse_card("7H").suit)] == (7, 7)
    assert after.turn == 3


def test_going_out_on_the_first_turn_starts_with_seven_of_hearts():
    hearts = ["7H", "8H", "9H", "10H", "JH"]
    hands: list[list[str]] = [[] for _ in range(10)]
    hands[2] = hearts
    others = [s for s in range(10) if s != 2]
    for i, code in enumerate(c.code for c in DECK if c.code not in hearts):
        hands[others[i % 9]].append(code)
    rules = Sten(players=10, hands=hands)
    state = rules.initial_state(random.Random(0))
    assert state.turn == 2
    assert rules.legal_moves(state) == [lay("7H"), go_out("7H 8H 9H 10H JH")]
    with pytest.raises(IllegalMove, match="7♥ must be laid first"):
        rules.check(state, go_out("8H 7H 9H 10H JH"))
    won = rules.apply(state, go_out("7H 8H 9H 10H JH"))
    assert rules.is_over(won) and won.winner == 2 and won.loser is None


@pytest.mark.parametrize("known", [True, False])
def test_a_wrong_going_out_order_on_the_first_move_leaves_seven_of_hearts_to_its_holder(known):
    """7♥ first, then a card that does not fit: the cards went back, 7♥ too, and the turn
    passed to a player who does not hold 7♥; that player's one legal move (Sten) was refused
    ("7♥ must be laid first"), so the game was stuck. The holder takes the stone and must
    still lay 7♥ first."""
    rules, state = position(3, board={}, hands={1: "7H 8H 9H 10H JH"}, turn=1, known=known)
    after = rules.apply(state, GoOut(tuple(parse_cards("7H 9H 8H 10H JH")), seat=1))
    assert after.stone == 1 and after.winner is None and after.board == state.board
    assert after.last.endswith("the cards go back and Player 2 takes the stone")
    assert rules.invariant_violations(after) == []
    assert after.turn == 1
    if known:
        assert rules.legal_moves(after) == [lay("7H"), go_out("7H 8H 9H 10H JH")]
    assert all(rules.is_legal(after, m) for m in rules.legal_moves(after))
    laid = rules.apply(after, lay("7H", seat=1))
    assert laid.turn == 2 and laid.board[SUITS.index(parse_card("7H").suit)] == (7, 7)


# ---- building --------------------------------------------------------------------------------
def test_play_goes_clockwise_one_card_each():
    rules, state = position(4, hands={0: "8H 2C", 1: "6H 3C", 2: "9H 4C"}, turn=0)
    for seat, code in ((0, "8H"), (1, "6H"), (2, "9H"), (3, "7S")):
        assert state.turn == seat
        count = state.counts[seat]
        state = rules.apply(state, lay(code))
        assert state.counts[seat] == count - 1
    assert state.turn == 0


def test_seven_opens_its_suit_whenever_its_holder_is_on_turn():
    rules, state = position(3, hands={0: "7S 7D 7C 5H"}, turn=0)
    assert [m.card.code for m in rules.legal_moves(state)] == ["7S", "7D", "7C"]
    state = rules.apply(state, lay("7D"))
    assert state.board[SUITS.index(parse_card("7D").suit)] == (7, 7)
    assert "laid 7♦" in state.last


def test_cards_of_a_suit_wait_for_its_seven():
    rules, state = position(3, hands={0: "8S 6S 2C"}, turn=0)
    for code in ("8S", "6S"):
        with pytest.raises(IllegalMove, match=r"does not fit: the 7♠ is not down yet"):
            rules.check(state, lay(code))


def test_build_up_from_seven_to_king():
    rules, state = position(2, board={"H": (7, 7), "S": (7, 7)},
                            hands={0: "8S 9S 10S JS QS KS 2C"})  # fmt: skip
    with pytest.raises(IllegalMove, match=r"9♠ does not fit: only the 7♠ of spades is down"):
        rules.check(state, lay("9S"))
    for code in ("8S", "9S", "10S", "JS", "QS", "KS"):
        state = dataclasses.replace(state, turn=0)
        state = rules.apply(state, lay(code))
    assert state.board[0] == (7, 13)


def test_build_down_from_seven_to_ace():
    rules, state = position(2, board={"H": (7, 7), "C": (7, 7)},
                            hands={0: "6C 5C 4C 3C 2C AC 8S"})  # fmt: skip
    with pytest.raises(IllegalMove, match=r"4♣ does not fit"):
        rules.check(state, lay("4C"))
    for code in ("6C", "5C", "4C", "3C", "2C", "AC"):
        state = dataclasses.replace(state, turn=0)
        state = rules.apply(state, lay(code))
    assert state.board[3] == (1, 7)


@pytest.mark.parametrize("code", ["5S", "9S", "10S", "AS", "KS"])
def test_nothing_goes_on_the_seven(code):
    """With only 7♠ down, only 6♠ and 8♠ go beside it; nothing else of spades goes on it."""
    rules, state = position(2, board={"H": (7, 7), "S": (7, 7)}, hands={0: f"{code} 6S 8S 2C"})
    with pytest.raises(IllegalMove, match="only the 7♠ of spades is down; only 6♠ or 8♠ fit"):
        rules.check(state, lay(code))
    assert [m.card.code for m in rules.legal_moves(state)] == ["6S", "8S"]
    assert code not in {m.card.code for m in rules.legal_moves(state) if isinstance(m, Lay)}


def test_a_card_fits_only_at_the_ends_of_its_piles():
    rules, state = position(2, board={"H": (7, 7), "S": (6, 9)}, hands={0: "JS 5S 10S 2C"})
    with pytest.raises(IllegalMove) as e:
        rules.check(state, lay("JS"))
    assert str(e.value) == "J♠ does not fit: spades stand at 6–9; only 5♠ or 10♠ fit there"
    assert [m.card.code for m in rules.legal_moves(state)] == ["5S", "10S"]


def test_king_removes_upper_pile():
    rules, state = position(2, board={"H": (7, 7), "S": (5, 12)}, hands={0: "KS 4S 2S"})
    state = rules.apply(state, lay("KS"))
    assert state.board[0] == (5, 13)
    assert "the upper spades pile leaves the table" in state.last
    spades = rules.view(state, None)["board"][0]
    assert spades["upper_pile_left"] and not spades["lower_pile_left"]
    assert spades["fits"] == ["4S"]
    with pytest.raises(IllegalMove) as e:
        rules.check(dataclasses.replace(state, turn=0), lay("2S"))
    assert str(e.value) == (
        "2♠ does not fit: spades stand at 5–K (the upper pile has left the table); "
        "only 4♠ fits there"
    )


def test_ace_removes_lower_pile():
    rules, state = position(2, board={"H": (2, 7)}, hands={0: "AH 8H 2C"})
    state = rules.apply(state, lay("AH"))
    assert state.board[1] == (1, 7)
    assert "the lower hearts pile leaves the table" in state.last
    hearts = rules.view(state, None)["board"][1]
    assert hearts["lower_pile_left"] and hearts["low"] == "AH" and hearts["fits"] == ["8H"]


# ---- Sten and the stone ----------------------------------------------------------------------
def test_sten_only_when_nothing_fits():
    rules, state = position(3, board={"H": (6, 8)}, hands={0: "5H 2C", 1: "2D 3D"}, turn=0)
    with pytest.raises(IllegalMove) as e:
        rules.check(state, SaySten())
    assert str(e.value) == "you cannot say Sten: 5♥ fits"
    assert SaySten() not in rules.legal_moves(state)
    state = rules.apply(state, lay("5H"))
    assert rules.legal_moves(state) == [SaySten()]
    state = rules.apply(state, SaySten())
    assert state.stone == 1 and state.turn == 2


def test_sten_names_every_card_that_fits():
    rules, state = position(3, board={"H": (6, 8)}, hands={0: "5H 9H 7S"})
    with pytest.raises(IllegalMove, match="you cannot say Sten: 7♠, 5♥ and 9♥ fit"):
        rules.check(state, SaySten())


def test_nobody_holds_the_stone_at_the_start():
    rules = Sten(players=4)
    assert rules.initial_state(random.Random(3)).stone is None


def test_sten_takes_the_stone_from_holder():
    rules, state = position(4, board={"H": (6, 8)}, hands={0: "2D", 1: "3D", 2: "4D 5H"})
    state = rules.apply(state, SaySten())
    assert state.stone == 0 and state.last == "Player 1 said Sten and takes the stone"
    state = rules.apply(state, SaySten())
    assert state.stone == 1
    assert state.last == "Player 2 said Sten and takes the stone from Player 1"
    state = rules.apply(state, lay("5H"))
    state = rules.apply(state, lay("9H"))
    assert state.stone == 1 and state.turn == 0
    state = rules.apply(state, SaySten())
    assert state.stone == 0
    assert state.last == "Player 1 said Sten and takes the stone from Player 2"


def test_saying_sten_again_keeps_the_stone():
    rules, state = position(2, board={"H": (6, 8)}, hands={0: "2D 3D"}, stone=0)
    state = rules.apply(state, SaySten())
    assert state.stone == 0 and state.last.endswith("keeps the stone")


# ---- going out -------------------------------------------------------------------------------
def test_go_out_in_valid_order():
    rules, state = position(3, board={"H": (6, 8)}, hands={0: "9H 10H 5H 7S"}, stone=2)
    moves = rules.legal_moves(state)
    assert moves[-1] == go_out("7S 5H 9H 10H")  # one canonical order, listed last
    assert go_out("9H 10H 5H 7S") not in moves
    after = rules.apply(state, go_out("9H 5H 10H 7S"))  # any valid order is accepted
    assert after.winner == 0 and after.loser == 2
    assert after.hands[0] == () and after.board[1] == (5, 10) and after.board[0] == (7, 7)
    assert "laid 9♥ 5♥ 10♥ 7♠ at once and goes out" in after.last


def test_go_out_bad_order_returns_cards_and_takes_stone():
    rules, state = position(3, board={"H": (6, 8)}, hands={0: "9H 10H 5H"}, stone=1)
    after = rules.apply(state, go_out("10H 9H 5H"))
    assert after.hands == state.hands and after.board == state.board
    assert after.stone == 0 and after.turn == 1 and after.winner is None
    assert after.last == (
        "Player 1 tried to go out with 10♥ 9♥ 5♥, but 10♥ did not fit; "
        "the cards go back and Player 1 takes the stone"
    )
    assert rules.invariant_violations(after) == []


@pytest.mark.parametrize(
    ("codes", "message"),
    [
        ("9H 10H", "you must lay all 3 of your cards; 5♥ is missing"),
        ("9H 10H 5H 4H", "you do not hold 4♥"),
        ("9H 9H 5H", "9♥ is named twice"),
        ("9H 10H JK", "without Joker"),
    ],
)
def test_go_out_must_name_exactly_the_own_cards(codes, message):
    rules, state = position(3, board={"H": (6, 8)}, hands={0: "9H 10H 5H"})
    with pytest.raises(IllegalMove, match=message):
        rules.check(state, go_out(codes))


def test_go_out_is_offered_only_when_possible():
    rules, state = position(3, board={"H": (6, 8)}, hands={0: "9H JH 5H"})
    assert not any(isinstance(m, GoOut) for m in rules.legal_moves(state))
    assert go_out_order(state.board, [(1, 9), (1, 11), (1, 5)]) is None


def test_the_last_card_is_one_move_not_a_lay_and_a_go_out():
    # Two moves that do the same would leave a camera (and a log) unsure which was made.
    rules, state = position(3, board={"H": (6, 8)}, hands={0: "9H"})
    assert rules.legal_moves(state) == [lay("9H")]
    assert rules.apply(state, go_out("9H")).winner == 0  # still accepted when asked for


# ---- winning and losing ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("stone", "loser", "ending"),
    [
        (2, 2, "Player 1 wins, Player 3 has the stone and loses"),
        (None, None, "Player 1 wins; nobody took the stone"),
        (0, None, "goes out with the stone: Player 1 wins, nobody loses"),
    ],
)
def test_first_out_wins_and_stone_holder_loses(stone, loser, ending):
    rules, state = position(3, board={"H": (6, 8)}, hands={0: "9H"}, stone=stone)
    state = rules.apply(state, lay("9H"))
    assert rules.is_over(state)
    assert rules.scores(state) == {
        "winners": [0], "loser": loser, "cards_left": [0, *state.counts[1:]]
    }  # fmt: skip
    assert state.last.endswith(ending)
    with pytest.raises(IllegalMove, match="the game is over: Player 1 went out"):
        rules.check(state, SaySten())
    assert rules.legal_moves(state) == []


# ---- illegal moves ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("move", "message"),
    [
        (lay("8H", seat=1), "it is Player 1's turn, not Player 2's"),
        (lay("8H", seat=7), "no seat 7: seats are 0 to 2"),
        (lay("3C"), "you do not hold 3♣"),
        (lay("7H"), r"you do not hold 7♥ \(it is already on the table\)"),
        (lay("KD"), "K♦ does not fit: the 7♦ is not down yet"),
        (lay("JK"), "Sten is played without Joker"),
        (Lay("8H"), "'8H' is not a card"),
        (SaySten(seat=2), "it is Player 1's turn, not Player 3's"),
        (SaySten(), "you cannot say Sten: 8♥ fits"),
        (GoOut(()), "name your cards"),
    ],
)
def test_illegal_moves_explain_and_do_not_change_state(move, message):
    rules, state = position(3, hands={0: "8H KD 2S", 1: "3C"})
    before = json.dumps(rules.state_to_json(state))
    with pytest.raises(IllegalMove, match=message):
        rules.check(state, move)
    with pytest.raises(IllegalMove, match=message):
        rules.apply(state, move)
    assert not rules.is_legal(state, move)
    assert json.dumps(rules.state_to_json(state)) == before


@pytest.mark.parametrize("known", [True, False])
def test_random_bad_input_is_refused_or_applied_cleanly(known):
    """Any move at all, in any position, is refused with a sentence or leaves a sound state."""
    rng = random.Random(5)
    rules = Sten(players=3, known_hands=known)
    codes = [c.code for c in DECK] + ["JK", "SB3"]
    state = rules.initial_state(rng)
    for _ in range(400):
        if rules.is_over(state):
            state = rules.initial_state(rng)
        seat = rng.choice([None, None, -1, 0, 1, 2, 3, "1", True])
        kind = rng.choice(["lay", "sten", "go_out"])
        if kind == "lay":
            data = {"kind": "lay", "card": rng.choice(codes), "seat": seat}
        elif kind == "sten":
            data = {"kind": "sten", "seat": seat}
        else:
            data = {"kind": "go_out", "cards": rng.sample(codes, rng.randint(0, 4)), "seat": seat}
        try:
            after = rules.apply(state, rules.move_from_json(data))
        except IllegalMove as e:
            assert str(e) and "Traceback" not in str(e)
            state = rules.apply(state, rng.choice(rules.legal_moves(state)))
            continue
        assert rules.invariant_violations(after) == []
        state = after


def test_a_move_with_the_seat_on_turn_is_legal():
    rules, state = position(3, hands={0: "8H KD 2S"})
    assert rules.apply(state, lay("8H", seat=0)) == rules.apply(state, lay("8H"))


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"kind": "lay"}, "needs 'card'"),
        ({"kind": "lay", "card": "ZZ"}, "unknown card code 'ZZ'"),
        ({"kind": "fold"}, "unknown move 'fold'"),
        ({"kind": "go_out", "cards": ["8H", "XX"]}, "unknown card code 'XX'"),
        ({"kind": "lay", "card": None}, "card must be one card code"),
        ({"kind": "go_out", "cards": None}, "cards must be a list of card codes"),
    ],
)
def test_malformed_moves_are_explained(data, message):
    with pytest.raises(IllegalMove, match=message):
        Sten(players=3).move_from_json(data)


# ---- unknown hands (a real table) ------------------------------------------------------------
def test_unknown_hands_mode():
    rules = Sten(players=4, known_hands=False)
    state = rules.initial_state(random.Random(0))
    assert state.hands is None and list(state.counts) == [13] * 4
    assert rules.legal_moves(state) == [lay("7H", seat=s) for s in range(4)]
    with pytest.raises(IllegalMove, match="say who laid 7♥"):
        rules.check(state, lay("7H"))
    with pytest.raises(IllegalMove, match="7♥ must be laid first"):
        rules.check(state, lay("7S", seat=1))
    state = rules.apply(state, lay("7H", seat=2))
    assert state.turn == 3 and state.counts == (13, 13, 12, 13)
    # any card that fits is accepted: the referee cannot know who holds it
    state = rules.apply(state, lay("8H"))
    with pytest.raises(IllegalMove, match="8♥ has already been laid"):
        rules.check(state, lay("8H"))
    with pytest.raises(IllegalMove, match="10♥ does not fit"):
        rules.check(state, lay("10H"))
    with pytest.raises(IllegalMove, match="it is Player 1's turn"):
        rules.check(state, lay("9H", seat=1))
    # Sten is taken on trust, even though cards fit the table
    state = rules.apply(state, SaySten())
    assert state.stone == 0 and state.turn == 1
    assert SaySten() in rules.legal_moves(state)
    assert {m.card.code for m in rules.legal_moves(state) if isinstance(m, Lay)} == {
        "7S", "6H", "9H", "7D", "7C"
    }  # fmt: skip
    view = rules.view(state, 1)
    assert "hand" not in view and view["hand_sizes"] == [13, 13, 12, 12]
    assert rules.invariant_violations(state) == []
    assert "does not know your hand" in rules.hint(state, 1).reason


def test_unknown_hands_going_out_when_the_count_reaches_zero():
    rules, state = position(3, board={"H": (6, 8)}, hands={0: "9H 10H"}, stone=1, known=False)
    with pytest.raises(IllegalMove, match="must lay all 2 cards in the hand, not 1"):
        rules.check(state, go_out("9H"))
    with pytest.raises(IllegalMove, match="6♥ has already been laid"):
        rules.check(state, go_out("9H 6H"))
    bad = rules.apply(state, go_out("10H 9H"))
    assert bad.counts == state.counts and bad.stone == 0
    state = rules.apply(state, lay("9H"))
    state = dataclasses.replace(state, turn=0)
    state = rules.apply(state, lay("10H"))
    assert state.winner == 0 and state.loser == 1
    assert rules.invariant_violations(state) == []


# ---- views -----------------------------------------------------------------------------------
def test_view_shows_own_hand_only():
    rules, state = position(3, board={"H": (5, 9), "S": (7, 13)}, hands={0: "4H 2C", 1: "KC"},
                            stone=2)  # fmt: skip
    for seat in range(3):
        view = rules.view(state, seat)
        text = json.dumps(view)
        assert view["hand"] == [c.code for c in state.hands[seat]]
        others = {c.code for s, h in enumerate(state.hands) if s != seat for c in h}
        fit_codes = {code for pile in view["board"] for code in pile["fits"]}
        leaked = {code for code in others - fit_codes if f'"{code}"' in text}
        assert not leaked, f"seat {seat} sees {leaked}"
    public = rules.view(state, None)
    assert "hand" not in public and public["hand_sizes"] == list(state.counts)
    assert public["stone"] == 2 and public["turn"] == 0
    spades, hearts = public["board"][0], public["board"][1]
    assert spades == {
        "suit": "S", "symbol": "♠", "name": "spades", "seven_down": True, "low": None,
        "high": "KS", "lower_pile_left": False, "upper_pile_left": True, "fits": ["6S"],
    }  # fmt: skip
    assert hearts["low"] == "5H" and hearts["high"] == "9H" and hearts["fits"] == ["4H", "10H"]
    assert public["board"][2]["seven_down"] is False
    with pytest.raises(RulesError, match="no seat 3"):
        rules.view(state, 3)


def test_nothing_fits_a_finished_game():
    """A finished game's pages outlined the cards that would have fitted, as if play went on."""
    rules, state = position(3, board={"H": (6, 8)}, hands={0: "9H", 1: "5H 4C"}, stone=1)
    assert rules.view(state, 1)["fits"] == ["5H"]
    state = rules.apply(state, lay("9H"))
    assert state.winner == 0
    for seat in (None, 1):
        view = rules.view(state, seat)
        assert all(pile["fits"] == [] for pile in view["board"])
    assert rules.view(state, 1)["fits"] == [] and rules.view(state, 1)["hand"] == ["5H", "4C"]


# ---- JSON, replay, invariants ----------------------------------------------------------------
@pytest.mark.parametrize(("players", "seed"), [(2, 1), (4, 2), (7, 3)])
def test_json_round_trip_and_replay(players, seed):
    rules = Sten(players=players)
    result, moves = play_game(rules, seed, ["hint"] * players)
    assert result.violations == [] and result.scores["winners"]
    log = GameLog(
        "sten", rules.config, rules.state_to_json(rules.initial_state(random.Random(seed)))
    )
    state = rules.state_from_json(log.initial)
    for move in moves:
        data = json.loads(json.dumps(move.to_json()))
        assert rules.move_from_json(data) == move
        log.moves.append(data)
        state = rules.apply(state, move)
        assert rules.state_from_json(json.loads(json.dumps(rules.state_to_json(state)))) == state
    _, states = replay(GameLog.from_json(json.loads(json.dumps(log.to_json()))))
    assert states[-1] == state and rules.is_over(state)
    assert len(states) == len(moves) + 1


def test_move_json_round_trip_for_every_kind():
    rules = Sten(players=3)
    for move in (lay("10H"), lay("QS", seat=2), SaySten(), SaySten(seat=1),
                 go_out("7S 8S 10D"), GoOut(tuple(parse_cards("AC")), seat=0)):  # fmt: skip
        assert rules.move_from_json(json.loads(json.dumps(move.to_json()))) == move


def test_unknown_hands_state_round_trip():
    rules = Sten(players=3, known_hands=False)
    state = rules.apply(rules.initial_state(random.Random(0)), lay("7H", seat=1))
    assert rules.state_from_json(json.loads(json.dumps(rules.state_to_json(state)))) == state


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.pop("counts"), "not a Sten state"),
        (lambda d: d["hands"][0].append("XX"), "not a Sten state"),
        (lambda d: d["hands"][0].append(d["hands"][1][0]), "in two hands"),
        (lambda d: d["hands"][0].pop(), "counts"),
        (lambda d: d["board"].update(S=[8, 9]), "not a run through the 7"),
        (lambda d: d.update(stone=5), "stone holder 5 is no seat"),
    ],
)
def test_state_from_json_rejects_bad_data(change, message):
    rules = Sten(players=3)
    data = rules.state_to_json(rules.initial_state(random.Random(0)))
    change(data)
    with pytest.raises(RulesError, match=message):
        rules.state_from_json(data)


def test_a_state_before_seven_of_hearts_with_another_seat_on_turn_is_refused():
    """Known hands, no card laid, and a seat on turn that does not hold 7♥: the state was
    accepted, its one legal move (Sten) was refused ("7♥ must be laid first") and the hint
    said to say Sten, so the game was stuck."""
    rules = Sten(players=3)
    state = rules.initial_state(random.Random(0))
    data = rules.state_to_json(state)
    data["turn"] = (state.turn + 1) % 3
    with pytest.raises(RulesError, match="7♥"):
        rules.state_from_json(data)


def test_invariants_catch_a_lost_or_created_card():
    rules, state = position(3, board={"H": (6, 8)}, hands={0: "9H 2C"})
    hands = ((parse_card("9H"),), *state.hands[1:])
    lost = dataclasses.replace(state, hands=hands, counts=(1, *state.counts[1:]))
    assert any("not 52" in v for v in rules.invariant_violations(lost))
    doubled = dataclasses.replace(state, board=(*state.board[:1], (5, 9), *state.board[2:]))
    problems = rules.invariant_violations(doubled)
    assert any("both on the table and in seat 0's hand" in v for v in problems)
    no_winner = dataclasses.replace(state, winner=1)
    assert any("still holds cards" in v for v in rules.invariant_violations(no_winner))


# ---- hints and policies ----------------------------------------------------------------------
def test_hint_lists_the_cards_that_fit_and_recommends_a_run():
    rules, state = position(3, board={"H": (7, 7), "C": (7, 7)},
                            hands={0: "6C 5C 4C 8H 10S 2D"})  # fmt: skip
    hint = rules.hint(state, 0)
    assert hint.details["fits"] == ["8H", "6C"]
    assert hint.move == lay("6C")
    assert hint.reason == "Lay 6♣: it frees your 5♣ and 4♣"
    assert json.dumps(hint.to_json())


def test_hint_holds_back_a_card_that_only_helps_others():
    rules, state = position(3, board={"H": (6, 8), "S": (7, 12)}, hands={0: "9H 5H 4H KS 2C"})
    hint = rules.hint(state, 0)
    # 9♥ would open 10♥ for the others and frees nothing; K♠ closes a pile and gives nothing
    assert hint.move == lay("5H") and "frees your 4♥" in hint.reason
    state2 = rules.apply(state, lay("5H"))
    state2 = rules.apply(dataclasses.replace(state2, turn=0), lay("4H"))
    hint2 = rules.hint(dataclasses.replace(state2, turn=0), 0)
    assert hint2.move == lay("KS") and hint2.reason == "Lay K♠: it opens nothing for the others"


def test_hint_says_you_can_go_out_with_the_order():
    rules, state = position(3, board={"H": (6, 8)}, hands={0: "9H 10H 5H"})
    hint = rules.hint(state, 0)
    assert hint.reason == "you can go out now: 5♥ 9♥ 10♥"
    assert hint.details["go_out"] == ["5H", "9H", "10H"] and hint.move == go_out("5H 9H 10H")


def test_hint_says_sten_when_nothing_fits_and_waits_out_of_turn():
    rules, state = position(3, board={"H": (6, 8)}, hands={0: "2C 3C", 1: "5H 2D"})
    hint = rules.hint(state, 0)
    assert hint.move == SaySten() and hint.details["fits"] == []
    with pytest.raises(RulesError, match="no seat 5: seats are 0 to 2"):
        rules.hint(state, 5)
    waiting = rules.hint(state, 1)
    assert waiting.move is None and waiting.reason == "it is Player 1's turn"
    assert waiting.details["fits"] == ["5H"]


def test_greedy_goes_out_when_possible_and_else_frees_most():
    rules, state = position(3, board={"H": (6, 8)}, hands={0: "9H 10H 5H"})
    assert rules.greedy_move(state, random.Random(0)) == go_out("5H 9H 10H")
    rules, state = position(3, board={"H": (6, 8)}, hands={0: "9H 10H JH 5H 2C"})
    assert rules.greedy_move(state, random.Random(0)) == lay("9H")
    assert rules.hint_move(state, random.Random(0)) == lay("9H")


def test_names_appear_in_messages():
    rules = Sten(players=2, hands=deal_for(2, 1), names=["Anna", "Bo"])
    state = rules.initial_state(random.Random(0))
    assert state.last == "Bo holds 7♥ and lays it first"
    with pytest.raises(IllegalMove, match="it is Bo's turn, not Anna's"):
        rules.check(state, lay("7H", seat=0))
    assert rules.apply(state, lay("7H")).last == "Bo laid 7♥"


# ---- playouts --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("players", "games", "policy", "against"),
    [
        (2, 500, "random", None),
        (3, 500, "random", None),
        (4, 500, "random", None),
        (5, 300, "random", None),
        (6, 300, "random", None),
        (10, 100, "random", None),
        (2, 150, "greedy", "random"),
        (4, 150, "hint", "greedy"),
        (6, 100, "hint", "random"),
    ],
)
def test_seeded_random_playouts_keep_every_invariant(players, games, policy, against):
    """Conservation of cards, turn order and legality of every move, over many games."""
    result = simulate("sten", players, games, seed=players, policy=policy, against=against)
    assert result["invariant_violations"] == 0, result.get("violation_examples")
    assert sum(result["wins"]["by_seat"].values()) == games  # every game ends with a winner
    assert result["mean_turns"] >= 52 / players


def test_playouts_are_deterministic_per_seed():
    a = simulate("sten", 4, 20, seed=9)
    b = simulate("sten", 4, 20, seed=9)
    assert a["wins"] == b["wins"] and a["mean_turns"] == b["mean_turns"]


def test_cli_simulate_sten(capsys):
    from kortbord.cli import main

    # (how fast: bench/bench_referee.py's Sten random play, 4 players)
    assert main(["simulate", "sten", "--players", "4", "--games", "50", "--seed", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["game"] == "sten" and out["games"] == 50 and out["invariant_violations"] == 0
    # the speed it reports is its own games over its own seconds (each rounded)
    assert out["games_per_second"] == pytest.approx(50 / out["seconds"], rel=0.02)


def test_cli_simulate_sten_bad_player_count(capsys):
    from kortbord.cli import main

    with pytest.raises(SystemExit) as done:  # refused as argparse refuses a bad value
        main(["simulate", "sten", "--players", "12", "--games", "5"])
    assert done.value.code == 2
    assert "--players: expected a whole number 1–10, not 12" in capsys.readouterr().err


@pytest.mark.parametrize("games", ["0", "-3"])
def test_cli_simulate_names_a_bad_number_of_games(capsys, games):
    from kortbord.cli import main

    with pytest.raises(SystemExit) as done:
        main(["simulate", "sten", "--games", games])
    assert done.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"kortbord simulate: error: argument --games: expected a whole number 1 or more, "
        f"not {games}"
    )

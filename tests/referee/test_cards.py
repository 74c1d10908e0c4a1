import re

import pytest

from referee.cards import (
    JOKER,
    SKIPBO_WILD,
    Card,
    CardError,
    Suit,
    all_codes,
    improvised_skipbo_deck,
    improvised_skipbo_value,
    parse_card,
    parse_cards,
    skipbo_deck,
    standard_deck,
)


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("AS", "AS"),
        ("as", "AS"),
        ("10H", "10H"),
        ("TH", "10H"),
        ("th", "10H"),
        ("Q♥", "QH"),
        ("k♣", "KC"),
        ("7♦", "7D"),
        ("E♠", "AS"),  # ess
        ("ES", "AS"),
        ("KnH", "JH"),  # knekt
        ("BD", "JD"),  # bonde / knægt
        ("DS", "QS"),  # dame
        ("DD", "QD"),
        ("KD", "KD"),
        ("7R", "7D"),  # ruter / ruder
        ("DK", "QC"),  # dame kløver / klør / klöver
        ("KK", "KC"),
        ("KnR", "JD"),
        ("JK", "JK"),
        ("joker", "JK"),
        ("JK-1", "JK"),
        ("SB1", "SB1"),
        ("sb12", "SB12"),
        ("SBW", "SBW"),
        (" 9 c ", "9C"),
        ("Q\u2665\ufe0f", "QH"),  # a phone's emoji heart: ♥ asked to show as an emoji
        ("7\u2666\ufe0f", "7D"),
    ],
)
def test_parse_is_forgiving(text, code):
    assert parse_card(text).code == code


@pytest.mark.parametrize("bad", ["", "1", "11H", "ZS", "AX", "SB13", "SB0", "QQ", "10", "K♥♥"])
def test_unknown_codes_fail_naming_the_input(bad):
    with pytest.raises(CardError, match=re.escape(repr(bad))):
        parse_card(bad)


@pytest.mark.parametrize("bad", [7, None, {}, ["AS"], ("AS",)])
def test_non_text_fails_clearly(bad):
    with pytest.raises(CardError, match="must be text"):
        parse_card(bad)


def test_cards_are_hashable_values():
    assert parse_card("qs") == Card("std", "Q", Suit.SPADES)
    assert len({parse_card("QS"), parse_card("q♠"), parse_card("DS")}) == 1
    assert str(parse_card("10h")) == "10H"
    assert parse_card("10h").pretty == "10♥"


def test_twin_colour_suits():
    assert Suit.SPADES.twin is Suit.CLUBS and Suit.CLUBS.twin is Suit.SPADES
    assert Suit.HEARTS.twin is Suit.DIAMONDS and Suit.DIAMONDS.twin is Suit.HEARTS


def test_parse_cards_splits_text():
    assert [c.code for c in parse_cards("AS, 10h Q♦")] == ["AS", "10H", "QD"]


def test_standard_deck_is_52_distinct_cards():
    deck = standard_deck()
    assert len(deck) == 52 == len(set(deck))
    assert standard_deck(jokers=2).count(JOKER) == 2


def test_skipbo_deck_has_144_numbers_and_18_wilds():
    deck = skipbo_deck()
    assert len(deck) == 162
    assert deck.count(SKIPBO_WILD) == 18
    for v in range(1, 13):
        assert deck.count(parse_card(f"SB{v}")) == 12


def test_improvised_skipbo_deck_counts_like_the_real_one():
    values = [improvised_skipbo_value(c) for c in improvised_skipbo_deck()]
    assert len(values) == 162
    assert values.count(0) == 18  # 12 kings + 6 jokers are wild
    for v in range(1, 13):
        assert values.count(v) == 12
    assert improvised_skipbo_value(parse_card("QH")) == 12
    assert improvised_skipbo_value(parse_card("AS")) == 1


def test_all_codes_are_the_model_classes():
    codes = all_codes()
    assert len(codes) == 52 + 1 + 13 == len(set(codes))
    assert codes[:3] == ["AS", "2S", "3S"] and codes[-1] == "SBW"
    assert all(parse_card(c).code == c for c in codes)


def test_cards_sort_suit_major_across_kinds():
    cards = parse_cards("SBW KH 2S JK AS 10H SB3")
    assert [c.code for c in sorted(cards)] == ["AS", "2S", "10H", "KH", "JK", "SB3", "SBW"]


def test_equal_cards_from_different_constructions_hash_alike():
    a = Card("std", "Q", Suit.SPADES)
    assert a == parse_card("QS") and hash(a) == hash(parse_card("QS"))
    assert a != parse_card("QC") and a != "QS"

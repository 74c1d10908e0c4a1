"""Languages: every sentence the pages use is translated, with the same placeholders."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from webui import i18n
from webui.camera import EMPTY_PHOTO, NO_RECOGNIZER, NOT_A_PICTURE, SOURCE_SENTENCES
from webui.games import SKIPBO_KEYS, STEN_KEYS, STIGESPILL_KEYS

WEBUI = Path(i18n.__file__).parent
KEY = re.compile(r"""\bt\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""")
# words of the referee's English that no translated sentence may keep
ENGLISH = re.compile(
    r"\b(from|the|onto|pile|plays?|discards|draws?|takes?|with|reaching|which|reaches|turns|"
    r"drew|lands|moves|climbs|slides|laid|holds|said|stone|goes|wins|nobody|frees|towards|"
    r"your|only|about|finish|card|cards|and|goal|is|it)\b"
)


def used_keys() -> set[str]:
    keys = {NO_RECOGNIZER, NOT_A_PICTURE, EMPTY_PHOTO}  # a photo's problems, via t(problem)
    keys |= {*STIGESPILL_KEYS, *STEN_KEYS, *SKIPBO_KEYS}  # referee sentences said via variables
    keys |= {key for _, key in SOURCE_SENTENCES}  # what a camera's source says
    for path in [*WEBUI.rglob("*.html"), *WEBUI.rglob("*.py")]:
        for m in KEY.finditer(path.read_text(encoding="utf-8")):
            keys.add(m.group(1) or m.group(2))
    return keys


@pytest.mark.parametrize("lang", ["nb", "da", "sv"])
def test_every_sentence_is_translated_with_its_placeholders(lang):
    catalog = i18n.catalog(lang)
    keys = used_keys()
    assert len(keys) > 100
    missing = sorted(keys - catalog.keys())
    assert not missing, f"{lang} lacks {missing[:5]}"
    for key in keys:
        assert set(re.findall(r"{\w+}", key)) == set(re.findall(r"{\w+}", catalog[key])), key


@pytest.mark.parametrize(
    ("cookie", "accept", "lang"),
    [
        (None, "nb-NO,nb;q=0.9,en;q=0.5", "nb"),
        (None, "no", "nb"),
        (None, "da-DK", "da"),
        (None, "sv-SE,sv;q=0.8", "sv"),
        (None, "de-DE,de;q=0.9", "en"),
        (None, "en;q=0.4, sv;q=0.9", "sv"),
        (None, "sv;q=abc, da", "da"),
        (None, None, "en"),
        ("da", "sv", "da"),
        ("xx", "sv", "sv"),
    ],
)
def test_language_choice(cookie, accept, lang):
    assert i18n.pick_language(cookie, accept) == lang


def test_pages_speak_the_browsers_language_or_the_chosen_one(client):
    assert "Nytt spill" in client.get("/", headers={"Accept-Language": "nb"}).get_data(as_text=True)
    assert "Nyt spil" in client.get("/", headers={"Accept-Language": "da"}).get_data(as_text=True)
    client.get("/lang/sv")
    page = client.get("/", headers={"Accept-Language": "nb"}).get_data(as_text=True)
    assert "Nytt parti" in page and 'lang="sv"' in page


def test_move_labels_are_translated(client, make_table):
    t = make_table("stigespill")
    snap = client.get(f"/api/tables/{t['id']}", headers={"Accept-Language": "da"}).get_json()
    assert snap["moves"][0]["label"] == "Træk et terningkort"


def test_stigespill_referee_sentences_are_said_in_the_pages_language():
    """Every sentence the referee says in whole games (both variants, a real table's deal, a
    solo player's tokens) reads back exactly in English and wholly in Norwegian."""
    import random

    from referee import make_rules
    from referee.core import CHANCE
    from webui.games import stigespill_sentence

    english, norwegian = i18n.translator("en"), i18n.translator("nb")
    said = set()
    for players, variant in ((3, "classic"), (2, "strategy"), (1, "classic")):
        rules = make_rules("stigespill", players=players, variant=variant)
        rng = random.Random(players)
        for _ in range(12):
            state = rules.initial_state(rng)
            while not rules.is_over(state):
                if rules.to_move(state) != CHANCE and rng.random() < 0.2:  # hints cost 20 ms
                    said.add(rules.hint(state, rules.to_move(state)).reason)
                if rules.to_move(state) != CHANCE:
                    move = rng.choice(rules.legal_moves(state))
                else:
                    move = rules.chance_move(state, rng)
                state = rules.apply(state, move)
                said.add(rules.view(state, None)["last_move"])
    assert len(said) > 100
    for text in said:
        assert stigespill_sentence(text, english) == text
        said_there = stigespill_sentence(text, norwegian)
        assert not ENGLISH.search(said_there), (text, said_there)
    shapes = ("walks into the goal", "climbs a ladder", "slides down a snake", "drew the joker")
    for key in (*shapes, "(drawing:", "keep your cards", "no hand cards left", "is dealt to"):
        assert any(key in s for s in said), key  # the games said each shape


def test_sten_referee_sentences_are_said_in_the_pages_language():
    """Every sentence the referee says in whole Sten games (known and unknown hands, the
    players' own names) reads back exactly in English and wholly in Danish."""
    import random

    from referee import make_rules
    from referee.core import CHANCE
    from referee.sten import GoOut
    from webui.games import sten_sentence

    english, danish = i18n.translator("en"), i18n.translator("da")
    said = set()
    for players, known in ((2, True), (3, False), (4, True), (5, True)):
        names = ["Anna", "Bo", "Cecilie Ås", "Dag", "Eli"][:players]
        rules = make_rules("sten", players=players, known_hands=known, names=names)
        rng = random.Random(players)
        for _ in range(20):
            state = rules.initial_state(rng)
            while not rules.is_over(state):
                on = rules.to_move(state)
                if on != CHANCE:
                    said.add(rules.hint(state, on).reason)
                    moves = rules.legal_moves(state)
                    move = rng.choice(moves)
                    if (
                        known
                        and isinstance(move, GoOut)
                        and len(move.cards) > 1
                        and rng.random() < 0.3
                    ):
                        move = GoOut(move.cards[::-1], move.seat)  # perhaps a wrong order
                else:
                    move = rules.chance_move(state, rng)
                state = rules.apply(state, move)
                said.add(rules.view(state, None)["last"])
    said.discard("")
    assert len(said) > 200
    for text in said:
        assert sten_sentence(text, english) == text
        said_there = sten_sentence(text, danish)
        assert not ENGLISH.search(said_there), (text, said_there)
    shapes = (
        "at once",
        "pile leaves the table",
        "goes out with the stone",
        "has the stone and",
        "nobody took",
        "takes the stone from",
        "moves",
        "frees your",
        "did not fit",
    )
    for key in shapes:
        assert any(key in s for s in said), key  # the games said each shape


def test_skipbo_referee_sentences_are_said_in_the_pages_language():
    """Every sentence the referee says in whole Skip-Bo games (the app's deck and a real
    table's, teams, the improvised deck, table talk) reads back exactly in English and wholly
    in Swedish."""
    import random

    from referee import make_rules
    from referee.core import CHANCE
    from referee.skipbo import TableTalkPenalty
    from webui.games import skipbo_sentence

    english, swedish = i18n.translator("en"), i18n.translator("sv")
    said = set()
    for players, teams, deck in (
        (2, False, "skipbo"),
        (3, False, "improvised"),
        (4, True, "skipbo"),
    ):
        rules = make_rules("skipbo", players=players, teams=teams, deck=deck, stock=8)
        rng = random.Random(players)
        for game in range(6):
            state = rules.table_state(rng) if game % 2 else rules.initial_state(rng)
            for _ in range(3000):
                if rules.is_over(state):
                    break
                on = rules.to_move(state)
                if on == CHANCE:
                    move = rules.chance_move(state, rng)
                else:
                    if rng.random() < 0.2:
                        said.add(rules.hint(state, on).reason)
                    move = rules.greedy_move(state, rng) if rng.random() < 0.7 else None
                    move = move or rng.choice(rules.legal_moves(state))
                    if teams and rng.random() < 0.01:
                        move = TableTalkPenalty(rng.randrange(players))
                state = rules.apply(state, move)
                said.add(rules.view(state, None)["last"])
            said.add(rules.hint(state, 0).reason)
    said.discard("")
    assert len(said) > 200
    for text in said:
        assert skipbo_sentence(text, english) == text
        said_there = skipbo_sentence(text, swedish)
        assert not ENGLISH.search(said_there), (text, said_there)
    shapes = (
        "which reaches 12",
        "won",
        "'s discard pile",
        "reaching the stock",
        "discards",
        "draws a card",
        "turns up",
        "table talk",
        "no play helps",
        "game is over",
    )
    for key in shapes:
        assert any(key in s for s in said), key  # the games said each shape


def test_what_a_camera_says_is_said_in_the_pages_language():
    from webui.camera import say_camera

    norwegian = i18n.translator("nb")
    said = {
        "reconnecting to rtsp://cam in 4.0 s (attempt 3)": "kobler til rtsp://cam igjen …",
        "lost rtsp://cam; will reconnect": "mistet rtsp://cam; kobler til igjen …",
        "gave up on rtsp://cam after 9 reconnection attempts": "ga opp rtsp://cam etter 9 forsøk",
        "end of clip.mp4 after 60 frames (17 could not be read)": (
            "slutt på clip.mp4 etter 60 bilder (17 kunne ikke leses)"
        ),
        "end of clip.mp4 after 60 frames": "slutt på clip.mp4 etter 60 bilder",
        "end of data/demo/frames": "slutt på data/demo/frames",
        "the camera gives no more pictures": "kameraet gir ingen flere bilder",
        "cannot open video 'x.mp4': no such file": "cannot open video 'x.mp4': no such file",
    }
    for english, there in said.items():
        assert say_camera(english, norwegian) == there
    # the page hears of changes of state, not of each attempt: in English too
    english = i18n.translator("en")
    assert say_camera("reconnecting to rtsp://cam in 4.0 s (attempt 3)", english) == (
        "reconnecting to rtsp://cam…"
    )
    assert (
        say_camera("end of clip.mp4 after 60 frames", english) == "end of clip.mp4 after 60 frames"
    )

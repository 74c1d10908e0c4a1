"""Languages: every sentence the pages use is translated, with the same placeholders."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from referee.cards import parse_card
from tests.webui.conftest import error_said, token, zone_map
from webui import DATABASE_DAMAGED, i18n, speech
from webui.camera import (
    DAMAGED_PICTURE,
    EMPTY_PHOTO,
    MEANWHILE,
    MEANWHILE_FIRST,
    NO_RECOGNIZER,
    NOT_A_PICTURE,
    SOURCE_SENTENCES,
    STREAM_CHECK,
    WEBCAM_CHECK,
    WEBCAM_NUMBER,
)
from webui.games import CAMERA_TABLE
from webui.pipeline_adapter import DEFAULT_OUT_OF_SYNC
from webui.snapshot import UNDONE
from webui.speech import (
    CAMERA_KEYS,
    SETUP_KEYS,
    SKIPBO_KEYS,
    STEN_KEYS,
    STIGESPILL_KEYS,
    pretty,
)
from webui.tables import DEALT_ELSEWHERE, HAND_FULL, LOG_READ, NOT_YOURS

WEBUI = Path(i18n.__file__).parent
KEY = re.compile(r"""\bt\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')""")
# a page's own refusals, said by the error handler
REFUSAL = re.compile(r"""\bIllegalMove\(\s*"((?:[^"\\]|\\.)*)"\s*\)""")
# an error a route answers with, given as its sentence (the error handler says it)
ERROR_KEY = re.compile(
    r"""\b(?:abort|error)\(\s*\d+(?:\s+if\s[^,]+\selse\s+\d+)?,\s*"((?:[^"\\]|\\.)*)"\s*[,)]"""
)
# ... or built where it is raised (an f-string): no catalog has it, so it was English on
# every page
ERROR_BUILT = re.compile(r"""\b(?:abort|error)\(\s*[^,()]+,\s*f["']""")
# the camera guard's reasons for asking (vision/pipeline.py), said with the referee's
GUARD_REASON = re.compile(r"""self\._report\([^"]*"([^"]+)"\)""")
# words of the referee's English that no translated sentence may keep
ENGLISH = re.compile(
    r"\b(from|the|onto|pile|plays?|discards|draws?|takes?|with|reaching|which|reaches|turns|"
    r"drew|lands|moves|climbs|slides|laid|holds|said|stone|goes|wins|nobody|frees|towards|"
    r"your|only|about|finish|card|cards|and|goal|is|it)\b"
)


def assert_said_back(say, said, *langs: str, shown=lambda text: text) -> None:
    """Assert that ``say(text, t)`` gives every English sentence in ``said`` back exactly in
    English (as ``shown`` shows it, a typed value in English quotation marks) and with no
    English word in each of ``langs``."""
    english = i18n.translator("en")
    for lang in langs:
        there = i18n.translator(lang)
        for text in said:
            assert say(text, english).replace("“", "'").replace("”", "'") == shown(text)
            said_there = say(text, there)
            assert not ENGLISH.search(said_there), (lang, text, said_there)
            assert said_there != shown(text), (lang, text)  # (of words ENGLISH does not know)


def used_keys() -> set[str]:
    keys = {NO_RECOGNIZER, NOT_A_PICTURE, DAMAGED_PICTURE, EMPTY_PHOTO}  # a photo's problems
    keys |= {DEALT_ELSEWHERE, HAND_FULL}  # why a phone's noted dealt card was not taken
    keys |= {UNDONE, NOT_YOURS, LOG_READ}  # an undo: the cards to put back; why refused
    keys |= {*STIGESPILL_KEYS, *STEN_KEYS, *SKIPBO_KEYS}  # referee sentences said via variables
    keys |= {key for _, key in SOURCE_SENTENCES}  # what a camera's source says
    # ... and what to check and do when it gives no pictures
    keys |= {STREAM_CHECK, WEBCAM_CHECK, WEBCAM_NUMBER, MEANWHILE, MEANWHILE_FIRST}
    keys |= {*CAMERA_KEYS, DEFAULT_OUT_OF_SYNC, *SETUP_KEYS}
    keys.add(CAMERA_TABLE)  # the name of a camera's table the command line made
    keys.add(DATABASE_DAMAGED)  # what the error handler says of a damaged database
    pipeline = (WEBUI.parent / "vision" / "pipeline.py").read_text(encoding="utf-8")
    keys |= set(GUARD_REASON.findall(pipeline))
    for path in [*WEBUI.rglob("*.html"), *WEBUI.rglob("*.py")]:
        text = path.read_text(encoding="utf-8")
        for m in KEY.finditer(text):
            keys.add(m.group(1) or m.group(2))
        keys |= set(REFUSAL.findall(text))
        keys |= set(ERROR_KEY.findall(text))
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


# A Skip-Bo match is its players' games played to a score (500): Norwegian and Danish say
# "kamp", Swedish "match"; "turnering" is a tournament, many players' matches.
MATCH_WORD = {"nb": "kamp", "da": "kamp", "sv": "match"}
MATCH_NOUN = re.compile(r"\bmatch(es)?\b(?! (the|target))", re.IGNORECASE)


@pytest.mark.parametrize("lang", MATCH_WORD)
def test_a_match_is_called_by_one_word_and_not_a_tournament(lang):
    said = {en: out for en, out in i18n.catalog(lang).items() if MATCH_NOUN.search(en)}
    assert len(said) >= 12, said  # the lists, a match's page, its end, its errors
    for en, out in said.items():
        assert MATCH_WORD[lang] in out.lower(), (en, out)
    assert not [out for out in i18n.catalog(lang).values() if "turnering" in out.lower()]


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


def test_a_table_page_tells_how_to_let_the_phones_in_with_the_command_a_newcomer_ran(
    client, make_table
):
    """Without --lan the phones cannot join: each page names ``make run``'s way to it."""
    url = make_table()["url"]
    for lang in ("en", "nb", "da", "sv"):
        page = client.get(url, headers={"Accept-Language": lang}).get_data(as_text=True)
        page = re.sub(r"<[^>]+>", "", page)  # the words as shown (an option kept on its line)
        assert "(make run ARGS=--lan, " in page and " kortbord run --lan)" in page, lang
        assert "serve --lan" not in page, lang


@pytest.mark.parametrize(
    ("letters", "shown"),
    [
        ("JQKA", "only A♠ or Q♠ fit; hearts stand at 2–J, J♥ is down"),
        ("KnDKE", "only E♠ or D♠ fit; hearts stand at 2–Kn, Kn♥ is down"),
        ("BDKE", "only E♠ or D♠ fit; hearts stand at 2–B, B♥ is down"),
    ],
)
def test_cards_named_in_a_sentence_are_shown_with_the_decks_letters(letters, shown):
    text = "only A♠ or Q♠ fit; hearts stand at 2–J, J♥ is down"
    assert i18n.lettered(text, letters) == shown
    assert i18n.lettered(shown, letters) == shown  # said again: no change
    # what is not a card stays: Skip-Bo's runs, words, codes
    for other in ("SB1–SB12", "2–6 players", "AQUA♠", "QS 10H", "Kn♠"):
        assert i18n.lettered(other, letters) == other


def test_a_page_names_cards_with_the_letters_chosen_for_this_device(client, make_table):
    """A Nordic deck letters the ace E, the jack Kn (or B) and the queen D: the page names
    cards so once chosen; card codes, in moves and views, stay as they are."""
    t = make_table("sten")
    pages = [f"/api/p/{token(t, seat)}" for seat in (0, 1)]
    hands = [client.get(page).get_json()["view"]["hand"] for page in pages]
    first = 0 if "7H" in hands[0] else 1
    lay_7h = {"move": {"kind": "lay", "card": "7H"}}
    assert client.post(f"{pages[first]}/moves", json=lay_7h).status_code == 200
    page = pages[1 - first]  # on turn now, with a court card or an ace that fits nowhere yet
    card = next(c for c in hands[1 - first] if c[0] in "AJQ")
    lay = {"move": {"kind": "lay", "card": card}}
    said = client.post(f"{page}/moves", json=lay).get_json()["error"]
    assert said.startswith(f"{pretty(card)} does not fit")
    r = client.get("/letters/KnDKE?next=/")
    assert (r.status_code, r.location) == (302, "/")
    said = client.post(f"{page}/moves", json=lay).get_json()["error"]
    nordic = {"A": "E", "J": "Kn", "Q": "D"}[card[0]] + pretty(card)[1:]
    assert said.startswith(f"{nordic} does not fit")
    assert card in client.get(page).get_json()["view"]["hand"]
    html = client.get(f"/t/{t['id']}").get_data(as_text=True)
    assert '"letters": {"A": "E", "J": "Kn", "Q": "D"}' in html
    assert client.get("/letters/XYZ").status_code == 404
    client.get("/letters/JQKA")
    said = client.post(f"{page}/moves", json=lay).get_json()["error"]
    assert said.startswith(f"{pretty(card)} does not fit")


def _texts(snapshot, skip=("view",)):
    """Yield every string a page shows of a snapshot (not the referee's own view data)."""
    if isinstance(snapshot, str):
        yield snapshot
    elif isinstance(snapshot, dict):
        for key, value in snapshot.items():
            if key not in skip:
                yield from _texts(value, ())
    elif isinstance(snapshot, list):
        for value in snapshot:
            yield from _texts(value, ())


@pytest.mark.parametrize("game", ["stigespill", "sten"])
def test_nothing_a_page_says_names_a_card_by_the_letters_not_chosen(client, make_table, game):
    """Played with aces, jacks and queens first (else the hint), a game's pages (last move,
    hints, move labels, notices) name each with the Nordic letters once they are chosen.
    (Stigespill at a real table: the die cards drawn are the page's to say, aces first.)"""
    client.get("/letters/KnDKE")
    deal = "table" if game == "stigespill" else "app"
    table = make_table(game, players=3, names="Anna, Bo, Cy", open=True, deal=deal)
    url = f"/api/tables/{table['id']}"
    lettered = 0
    for turn in range(60):
        snap = client.get(url, headers={"Accept-Language": ("en", "nb")[turn % 2]}).get_json()
        for text in _texts(snap):
            assert not re.search(r"(?<!\w)[AJQ][♠♥♦♣]", text), text
            lettered += len(re.findall(r"(?<!\w)(?:E|Kn|D)[♠♥♦♣]", text))
        if snap["over"]:
            break
        moves = [m["move"] for m in snap["moves"]]
        court = [m for m in moves if str(m.get("card", ""))[:1] in ("A", "J", "Q")]
        move = (court or [(snap["hint"] or {}).get("move")] or moves)[0] or moves[0]
        assert client.post(f"{url}/moves", json={"move": move}).status_code == 200
    assert lettered > 5


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
    from webui.speech import stigespill_sentence

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

    # how many turns a hint says is tested on its own (test_a_stigespill_hint_says_whole_turns)
    turns = re.compile(r"about [\d.]+ turns| \(drawing instead: [^)]+\)")
    assert_said_back(
        lambda text, t: turns.sub("", stigespill_sentence(text, t)),
        said,
        "nb",
        shown=lambda text: turns.sub("", text),
    )
    for text in said:  # no tenth of a turn, in any language
        for lang in ("en", "nb"):
            assert not re.search(r"\d[.,]\d", stigespill_sentence(text, i18n.translator(lang)))
    assert any(re.search(r"\d\.\d", s) for s in said)
    shapes = ("walks into the goal", "climbs a ladder", "slides down a snake", "drew the joker")
    for key in (
        *shapes,
        "(drawing instead:",
        "keep your cards",
        "no hand cards left",
        "is dealt to",
    ):
        assert any(key in s for s in said), key  # the games said each shape


@pytest.mark.parametrize(
    ("lang", "referee", "said"),
    [
        (
            "en",
            "Draw (the classic game has only draws): about 12.8 turns to finish",
            "Draw (the classic game has only draws): about 13 turns to finish",
        ),
        (
            "en",
            "Draw: about 12.5 turns to finish; keep your cards for later",
            "Draw: about 13 turns to finish; keep your cards for later",
        ),
        (
            "en",
            "Play 5♥ to 9♠ (card 12): about 12.4 turns to finish (drawing instead: 14.6)",
            "Play 5♥ to 9♠ (card 12): about 12 turns to finish (drawing instead: 15)",
        ),
        (  # 2.6 and 3.4 are both "about 3": the play still saves a little
            "en",
            "Play 5♥ to the goal: about 2.6 turns to finish (drawing instead: 3.4)",
            "Play 5♥ to the goal: about 3 turns to finish (drawing instead: a little more)",
        ),
        (
            "nb",
            "Draw (no hand cards left): about 19.8 turns to finish",
            "Trekk (ingen kort igjen på hånden): omtrent 20 runder igjen til mål",
        ),
        (
            "sv",
            "Play 5♥ to the goal: about 2.6 turns to finish (drawing instead: 3.4)",
            "Spela 5♥ till mål: ungefär 3 omgångar kvar till mål"
            " (om du drar ett kort i stället: lite fler)",
        ),
    ],
)
def test_a_stigespill_hint_says_whole_turns(lang, referee, said):
    """A family counts turns, not tenths of one: "about 12.8 turns" is said "about 13"."""
    from webui.speech import stigespill_sentence

    assert stigespill_sentence(referee, i18n.translator(lang)) == said


def test_sten_referee_sentences_are_said_in_the_pages_language():
    """Every sentence the referee says in whole Sten games (known and unknown hands, the
    players' own names) reads back exactly in English and wholly in Danish."""
    import random

    from referee import make_rules
    from referee.core import CHANCE
    from referee.sten import GoOut
    from webui.speech import sten_sentence

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
    assert_said_back(sten_sentence, said, "da")
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
    from webui.speech import skipbo_sentence

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
    assert_said_back(skipbo_sentence, said, "sv")
    shapes = (
        "which reaches 12",
        "won",
        "'s discard pile",
        "of them from the stock",
        "discards",
        "draws a card",
        "turns up",
        "table talk",
        "no play helps",
        "game is over",
    )
    for key in shapes:
        assert any(key in s for s in said), key  # the games said each shape


def test_a_skipbo_hint_says_whose_pile_it_plays_from_and_which():
    """A team hint said "from the stock" for the partner's stock, and "from the discard"
    named no pile."""
    from webui import i18n
    from webui.speech import say_named

    names, da = ["Anna", "Bo", "Cy", "Di"], i18n.translator("da")
    hint = "play SB3 from seat 2's discard pile 2 onto building pile 1: the one play this turn"
    assert say_named("skipbo", hint, da, names) == (
        "spil 3 fra Cys aflægningsbunke 2 på byggebunke 1: turens eneste træk"
    )
    hint = "play SBW from discard pile 3 onto building pile 4: the one play this turn"
    assert say_named("skipbo", hint, da, names).startswith("spil Skip-Bo fra aflægningsbunke 3")


def test_a_road_of_one_card_is_said_in_the_singular():
    from webui import i18n
    from webui.speech import say_setup

    text = "bad road: the road has 1 card, not 28"
    assert say_setup(text, i18n.translator("en")) == text
    assert say_setup(text, i18n.translator("nb")).endswith(": veien har 1 kort, ikke 28")


def test_a_name_ending_in_s_takes_the_possessive_of_the_language():
    """Danish and Swedish said "Jenss grundbunke": a name ending in s, x or z takes an
    apostrophe in Danish and nothing in Swedish; other names, and Norwegian, as before."""
    from webui import i18n
    from webui.speech import say_named

    da, sv, nb = (i18n.translator(lang) for lang in ("da", "sv", "nb"))
    assert da("{name}'s stock", name="Jens") == "Jens' grundbunke"
    assert da("{name}'s stock", name="Max") == "Max' grundbunke"
    assert da("{name}'s stock", name="Anna") == "Annas grundbunke"
    assert sv("{name}'s stock", name="Jens") == "Jens grundhög"
    assert sv("{name}'s stock", name="Anna") == "Annas grundhög"
    assert nb("{name}'s stock", name="Jens") == "Grunnbunken til Jens"
    # a referee sentence names its seats before each part is said
    play = "seat 1 plays SB3 from seat 0's stock onto building pile 1 (3)"
    assert "fra Jens' grundbunke" in say_named("skipbo", play, da, ["Jens", "Bo"])
    assert "från Jens grundhög" in say_named("skipbo", play, sv, ["Jens", "Bo"])
    assert "fra Annas grundbunke" in say_named("skipbo", play, da, ["Anna", "Bo"])
    # whose turn it is, said as a family says it ("Jens' tur", not "Tur: Jens")
    assert da("{name}'s turn", name="Jens") == "Jens' tur"
    assert sv("{name}'s turn", name="Jens") == "Jens tur"
    assert sv("{name}'s turn", name="Anna") == "Annas tur"
    wrong_seat = "it is seat 0's turn, not seat 1's"
    assert say_named("skipbo", wrong_seat, da, ["Jens", "Anna"]) == "det er Jens' tur, ikke Annas"
    assert say_named("sten", wrong_seat, sv, ["Max", "Bo"]) == "det är Max tur, inte Bos"


def test_what_a_camera_says_is_said_in_the_pages_language():
    from webui.camera import say_camera

    norwegian = i18n.translator("nb")
    said = {
        # tried again after it was lost: said lost for the whole outage
        "reconnecting to rtsp://cam in 4.0 s (attempt 3)": "mistet rtsp://cam; kobler til igjen …",
        "lost rtsp://cam; will reconnect": "mistet rtsp://cam; kobler til igjen …",
        # a webcam by the page's word for it ("camera 7" read as English in Norwegian)
        "cannot open camera 7; trying again in 8.0 s (attempt 5)": (
            "kan ikke åpne kamera 7; prøver igjen …"
        ),
        "lost camera 0; will reconnect": "mistet kamera 0; kobler til igjen …",
        "gave up on rtsp://cam after 9 reconnection attempts": "ga opp rtsp://cam etter 9 forsøk",
        "end of clip.mp4 after 60 frames (17 could not be read)": (
            "slutt på clip.mp4 etter 60 bilder (17 kunne ikke leses)"
        ),
        "end of clip.mp4 after 60 frames": "slutt på clip.mp4 etter 60 bilder",
        # by its own name, not its path; a generated video's pictures by the video's name
        # (its folder "frames" read as an English word in Norwegian: "slutt på frames")
        "end of data/demo/frames": "slutt på demo",
        "end of /tmp/sbvideo/frames after 40 frames": "slutt på sbvideo etter 40 bilder",
        "end of data/holiday-frames": "slutt på holiday-frames",
        "end of /home/anna/videos/game.mp4 after 9 frames": "slutt på game.mp4 etter 9 bilder",
        "the camera gives no more pictures": "kameraet gir ingen flere bilder",
        "cannot open video 'x.mp4': no such file": "cannot open video 'x.mp4': no such file",
    }
    for english, there in said.items():
        assert say_camera(english, norwegian) == there
    road = (
        "the road cannot be read yet: missing: QH; the cards are about 30 px wide in the "
        "picture: a camera closer to the table reads them better"
    )
    assert speech.say_road_problems(road, norwegian) == (
        "veien kan ikke leses ennå: mangler: Q♥; kortene er omtrent 30 px brede i bildet: et "
        "kamera nærmere bordet leser dem bedre"
    )
    # the page hears of changes of state, not of each attempt: in English too
    english = i18n.translator("en")
    assert say_camera("reconnecting to rtsp://cam in 4.0 s (attempt 3)", english) == (
        "lost rtsp://cam; reconnecting…"
    )
    assert (
        say_camera("end of clip.mp4 after 60 frames", english) == "end of clip.mp4 after 60 frames"
    )


def test_a_road_the_camera_reads_doubled_names_the_cards_as_the_board_shows_them():
    """The camera's road with a card read twice (and so another missing) names both cards
    as the board draws them: "missing: K♦; doubled: Q♦", not the doubled one as its code."""
    from webui.camera import say_camera

    said = say_camera(
        "the road cannot be read yet: missing: KD; doubled: QD 10H", i18n.translator("en")
    )
    assert said == "the road cannot be read yet: missing: K♦; doubled: Q♦ 10♥"
    said = say_camera("road photo: doubled: QD", i18n.translator("nb"))
    assert "Q♦" in said and "QD" not in said


def _refusals(game: str, configs: list[dict], tries) -> set[str]:
    """Every reason the referee gives for refusing well-formed moves in random games."""
    import random

    from referee import IllegalMove, make_rules
    from referee.core import CHANCE

    said = set()
    for config in configs:
        rules = make_rules(game, **config)
        rng = random.Random(7)
        for g in range(3):
            real_table = g % 2 and hasattr(rules, "table_state")
            state = rules.table_state(rng) if real_table else rules.initial_state(rng)
            for _ in range(300):
                for move in tries(rules, rng):
                    try:
                        rules.apply(state, move)
                    except IllegalMove as e:
                        said.add(str(e))
                if rules.is_over(state):
                    break
                on = rules.to_move(state)
                move = (
                    rules.chance_move(state, rng)
                    if on == CHANCE
                    else rng.choice(rules.legal_moves(state))
                )
                state = rules.apply(state, move)
    return said


def _some_cards(rng, skipbo: bool = False):

    ranks = "A 2 3 4 5 6 7 8 9 10 J Q K".split()
    codes = [f"{r}{s}" for r in ranks for s in "SHDC"] + ["JK"]
    if skipbo:
        codes += [f"SB{v}" for v in range(1, 13)] + ["SBW"] * 6
    return [parse_card(c) for c in rng.sample(codes, 8)]


def _stigespill_tries(rules, rng):
    from referee.stigespill import Draw, Play, Reveal

    cards = _some_cards(rng)
    seats = [None, *range(rules.seats)]
    return [
        *(Draw(s) for s in seats),
        *(Play(c, rng.choice(seats)) for c in cards),
        *(Reveal(c) for c in cards),
    ]


def _sten_tries(rules, rng):
    from referee.sten import GoOut, Lay, SaySten

    cards = _some_cards(rng)
    seats = [None, *range(rules.seats)]
    return [
        *(Lay(c, rng.choice(seats)) for c in cards),
        *(SaySten(s) for s in seats),
        *(GoOut(tuple(cards[:k]), rng.choice(seats)) for k in (0, 1, 3)),
        GoOut((cards[0], cards[0])),
    ]


def _skipbo_tries(rules, rng):
    from referee.skipbo import Discard, EndTurn, Play, Reveal, TableTalkPenalty

    cards = _some_cards(rng, skipbo=True)
    seats = [None, *range(rules.seats)]
    moves = [*(EndTurn(s) for s in seats), *(Reveal(c) for c in cards)]
    for c in cards:
        for source in ("hand", "stock", "discard"):
            owner = rng.choice(seats)
            moves.append(Play(source, c, rng.randrange(4), rng.randrange(4), owner))
        moves.append(Discard(c, rng.randrange(4)))
    return [*moves, *(TableTalkPenalty(s) for s in range(rules.seats))]


REFUSAL_GAMES = {
    "stigespill": (
        [{"players": 2, "variant": "classic"}, {"players": 3, "variant": "strategy"}],
        _stigespill_tries,
        ("reached the goal", "(hand: empty)", "has drawn", "turn to draw or play", "die pile"),
    ),
    "sten": (
        [
            {"players": 3, "known_hands": True, "names": ["Anna", "Bo", "Cecilie Ås"]},
            {"players": 2, "known_hands": False, "names": ["Anna", "Bo"]},
        ],
        _sten_tries,
        ("left the table)", "; only", "fit there", "are missing", "say who laid", "is down"),
    ),
    "skipbo": (
        [{"players": 2, "stock": 8}, {"players": 4, "teams": True, "stock": 8}],
        _skipbo_tries,
        ("partner's discard pile", "the top of your stock", "cannot start", "stands at"),
    ),
}


@pytest.mark.parametrize("game", REFUSAL_GAMES)
def test_refused_moves_reasons_are_said_in_the_pages_language(game):
    """Every reason the referee gives for refusing a well-formed move (in random games, at
    every turn) reads back exactly in English and with no English word left in the others."""
    from webui.speech import referee_sentence

    configs, tries, shapes = REFUSAL_GAMES[game]
    said = _refusals(game, configs, tries)
    assert len(said) > 40
    assert_said_back(lambda text, t: referee_sentence(game, text, t), said, "nb", "da", "sv")
    # an English page says them as they are: no API word ("a 'reveal' move") among them
    assert not [s for s in said if re.search(r"'\w+' move", s)]
    for key in shapes:
        assert any(key in s for s in said), key  # the games gave each shape


def test_a_refused_move_is_said_in_each_pages_language(client, make_table):
    """The refusing reply speaks the sender's language, the table's notice each page's."""
    t = make_table("stigespill", players=2)
    wrong = {"kind": "draw", "seat": 1}  # seat 0 is on turn
    r = client.post(
        f"/api/tables/{t['id']}/moves",
        json={"moves": [wrong]},
        headers={"Accept-Language": "sv"},
    )
    assert r.status_code == 409
    assert r.get_json()["error"] == "det är Annas tur, inte Bos"
    for lang, reason in (("en", "it is Anna's turn, not Bo's"), ("nb", "det er Anna sin tur")):
        snap = client.get(f"/api/tables/{t['id']}", headers={"Accept-Language": lang}).get_json()
        assert snap["notice"]["error"].startswith(reason)
    r = client.post(f"/api/tables/{t['id']}/undo", headers={"Accept-Language": "da"})
    assert (r.status_code, r.get_json()["error"]) == (409, "intet at fortryde")


def test_what_the_camera_asks_is_said_in_the_pages_language():
    from webui.speech import referee_sentence, say_checks

    danish = i18n.translator("da")
    asked = "out of sync — please confirm: it is seat 1's turn, not seat 0's"
    assert referee_sentence("skipbo", asked, danish) == (
        "ude af trit — bekræft venligst: det er seat 1s tur, ikke seat 0s"
    )  # then named, as every sentence
    assert referee_sentence("sten", "the table does not match the game", danish) == (
        "bordet stemmer ikke overens med spillet"
    )
    checks = (
        "QH read by elimination: that card looks most like QD; "
        "8S read by elimination: that card could not be read; "
        "10C read in a gap in the road: check that card"
    )
    # the cards as the board and the form's problems show them: Q♥, not QH
    assert say_checks(checks, danish) == (
        "Q♥ er læst ved udelukkelse: kortet ligner mest Q♦; "
        "8♠ er læst ved udelukkelse: det kort kunne ikke læses; "
        "10♣ er læst i et hul i vejen: tjek det kort"
    )
    assert say_checks(checks, i18n.translator("en")).startswith("Q♥ read by elimination")


def _setup_problems() -> set[str]:
    """What the new-game form can be told: every set-up problem of forms a user can fill in,
    and the problems of road photos (read by the real road reader)."""
    import numpy as np

    from tests.vision.test_road import H, lay_ring, lay_road
    from vision.layouts.road import ROAD_CODES, RoadError, RoadReader
    from webui.games import SetupError, parse_setup

    said = set()
    forms = [
        {"names": "Anna, Anna"},
        {"names": "Anna, Bo, Cy"},
        {"names": "A" * 30},
        {"colours": "red, red", "players": "1"},
        {"colours": "mauve"},
        {"colours": "red, blue, green", "players": "1", "tokens": "2"},
        {"road": "7S 8S XX SB13"},
        {"road": "7S 7S ZZ"},
        {"road": "7S 7S JK 2H " + " ".join(ROAD_CODES[3:20])},
        {"road": "SB7 SBW " + " ".join(ROAD_CODES[2:])},  # a Skip-Bo card is named in two words
        {"stock": "4"},
        {"stock": "30", "players": "6"},
        {"players": "12"},
        {"match_target": "10"},
        {"players": "1", "tokens": "1"},
        {"players": "9", "variant": "strategy"},
        {"players": "3", "teams": "on"},
        {"players": "7"},
        {"players": "1"},
        {"players": "٣"},  # a number field of no ASCII digits (sent by no page, but by a request)
        {"players": "1", "tokens": "2.5"},
        {"stock": "1_0"},
        {"match_target": "+5"},
        {"dealer": "x"},
    ]
    for game in ("stigespill", "sten", "skipbo"):
        for form in forms:
            try:
                parse_setup(game, {"players": "2", **form})
            except SetupError as e:
                said.add(str(e))
    cards, truth = lay_road("uturn", 5)
    without = [(c, q) for c, q in cards if c != "QH"]
    roads = [
        without,
        [*without, ("9C", without[0][1] + [0, 400])],
        [(c, q) for c, q in cards if c != "JK"],
        [(c, q + np.array([0.0, 4 * H]) if c in set(truth[14:]) | {"JK"} else q) for c, q in cards],
    ]
    roads.append(lay_ring())
    for road in roads:
        said.add("road photo: " + "; ".join(RoadReader().read(road).problems))
    try:
        RoadReader().read([("5H", np.zeros((4, 2)))])
    except RoadError as e:
        said.add(f"road photo: {e}")
    return said


def test_a_new_games_problems_are_said_in_the_pages_language(client):
    from webui.speech import say_setup

    said = _setup_problems()
    assert len(said) > 15

    def shown(text: str) -> str:  # the cards missing or doubled: named as the board shows them
        return re.sub(
            r"(missing|doubled): ([^;]+)",
            lambda m: f"{m[1]}: " + " ".join(map(pretty, m[2].split())),
            text,
        )

    assert_said_back(say_setup, said, "nb", "da", "sv", shown=shown)
    for key in ("missing:", "doubled:", "ambiguous order", "gap in the road", "no goal joker"):
        assert any(key in s for s in said), key  # the road photos gave each shape
    # the form's page says it
    page = client.post(
        "/new",
        data={"game": "sten", "players": "2", "names": "Anna, Anna"},
        headers={"Accept-Language": "da"},
    )
    assert page.status_code == 400
    assert "hver spiller skal have sit eget navn" in page.get_data(as_text=True).lower()


# new-game forms no page sends (a request's own): each refused
CRAFTED_FORMS = [
    ("poker", {}),
    ("sten", {"deal": "x"}),
    ("stigespill", {"road_shape": "zig"}),
    ("sten", {"open": "x"}),
    ("skipbo", {"teams": "x"}),
    ("sten", {"names": 5}),
    ("sten", {"colours": 5}),
    ("stigespill", {"road": 5}),
    ("stigespill", {"variant": "foo"}),
    ("skipbo", {"deck": "foo"}),
    ("skipbo", {"empty_draw": "foo"}),
]


def test_a_crafted_new_games_problems_are_said_in_the_pages_language(client):
    """A new game asked for with a form no page sends (an unknown game, deal, road shape,
    deck or rule, a yes/no option or the names not as text) was refused in English on a
    Norwegian page, as ``/lang/xx`` was. Each is said in the page's language, what was
    asked for as it was."""
    from webui.games import SetupError, parse_setup
    from webui.home import _road_from_photo
    from webui.speech import say_setup

    said = set()
    for game, form in CRAFTED_FORMS:
        with pytest.raises(SetupError) as e:
            parse_setup(game, {"players": "2", **form})
        said.add(str(e.value))
    with pytest.raises(SetupError) as e:
        _road_from_photo(b"", "zig")  # a road photo's rows said to run some other way
    said.add(str(e.value))
    assert len(said) == len(CRAFTED_FORMS) + 1, said
    assert_said_back(say_setup, said, "nb", "da", "sv")
    page = client.post("/new", data={"game": "poker"}, headers={"Accept-Language": "nb"})
    assert page.status_code == 400
    assert "ukjent spill «poker»" in page.get_data(as_text=True).lower()


def test_the_cameras_question_and_its_choices_are_said_in_each_pages_language(app, client):
    """An out-of-sync prompt is kept in the referee's English; each page reads its message
    and its choices in its own language, with the players' names."""
    created = client.post(
        "/api/tables", json={"game": "sten", "players": 2, "names": "Anna, Bo"}
    ).get_json()
    hub = app.extensions["kortbord.hub"]
    hub.set_prompt(
        created["id"],
        {
            "message": "out of sync — please confirm: two or more moves fit what the camera sees",
            "candidates": [
                {"label": "Lay 8♠", "moves": [{"kind": "lay", "card": "8S"}]},
                {"label": "Say Sten", "moves": [{"kind": "sten"}]},
            ],
        },
    )
    url = f"/api/tables/{created['id']}"
    prompt = client.get(url, headers={"Accept-Language": "nb"}).get_json()["prompt"]
    # under the page's own "Out of sync — please confirm": the message says why alone
    assert prompt["message"] == "to eller flere trekk passer med det kameraet ser"
    assert [c["label"] for c in prompt["candidates"]] == [
        i18n.translator("nb")("Lay {card}", card="8♠"),
        i18n.translator("nb")("Say Sten"),
    ]
    assert prompt["candidates"][0]["label"] != "Lay 8♠"
    english = client.get(url, headers={"Accept-Language": "en"}).get_json()["prompt"]
    assert [c["label"] for c in english["candidates"]] == ["Lay 8♠", "Say Sten"]


@pytest.mark.parametrize(
    ("lang", "deal", "too_many"),
    [
        ("nb", "Del ut 3 terningkort til hver spiller (aldri jokeren)", "til hver av 9 spillere"),
        ("da", "Giv 3 terningkort til hver spiller (aldrig jokeren)", "til hver af 9 spillere"),
        ("sv", "Dela ut 3 tärningskort till varje spelare (aldrig jokern)", "av 9 spelare"),
    ],
)
def test_a_strategy_deal_goes_to_each_player_in_every_language(
    client, make_table, lang, deal, too_many
):
    """The strategy deal said "til hver plass" (plads, plats): a place, where a family
    reads the English "seat" as a player. It deals to each player (spiller, spelare)."""
    t = make_table("stigespill", players=3, names="Anna, Bo, Cy", variant="strategy", deal="table")
    page = {"Accept-Language": lang}
    assert client.get(f"/api/tables/{t['id']}", headers=page).get_json()["last"] == deal
    body = {"game": "stigespill", "players": 9, "variant": "strategy"}
    said = client.post("/api/tables", json=body, headers=page).get_json()["error"]
    assert too_many in said and "plass" not in said and "plads" not in said, said
    assert "plats" not in said, said


def test_no_error_is_built_in_english_where_it_is_raised():
    """An error a route answers with is a catalog's sentence, its details given as fields
    (``t("no seat {seat}", seat=…)``): an f-string was said in English on every page."""
    built = [
        f"{path.relative_to(WEBUI)}: {m[0]}"
        for path in WEBUI.rglob("*.py")
        for m in ERROR_BUILT.finditer(path.read_text(encoding="utf-8"))
    ]
    assert not built, built


def _errors_said(client, lang: str) -> dict[str, str]:
    """Return what the pages' and the API's errors say in ``lang``: ``{what: sentence}``."""
    client.set_cookie("lang", lang)
    sten = client.post("/api/tables", json={"game": "sten", "players": 2}).get_json()
    skipbo = client.post("/api/tables", json={"game": "skipbo", "players": 2}).get_json()
    body = {"game": "stigespill", "players": 2, "source": "phone"}
    stige = client.post("/api/tables", json=body).get_json()
    said = {}
    for what, path in (
        ("an unknown language", "/lang/xx"),
        ("unknown card letters", "/letters/XYZ"),
        ("no such seat", f"/t/{sten['id']}/players/9/qr.svg"),
    ):
        r = client.get(path)
        assert r.status_code == 404, (what, r.status_code)
        said[what] = html.unescape(
            re.search(r'<p class="lead">(.*?)</p>', r.get_data(as_text=True))[1]
        )
    for what, path, sent, status in (
        ("zones at a Sten table", f"/api/tables/{sten['id']}/zones", {}, 409),
        ("zones for 3 players", f"/api/tables/{skipbo['id']}/zones", {"zones": zone_map(3)}, 400),
        ("a road at a Sten table", f"/api/tables/{sten['id']}/road", {"road": "7S"}, 409),
        ("a road's shape", f"/api/tables/{stige['id']}/road/again", {"shape": "zigzag"}, 400),
    ):
        said[what] = error_said(client.post(path, json=sent), status)
    return said


QUOTED_XX = {"en": "“xx”", "nb": "«xx»", "da": "»xx«", "sv": "”xx”"}


@pytest.mark.parametrize("lang", ["en", "nb", "da", "sv"])
def test_an_errors_typed_value_is_quoted_with_the_pages_quotation_marks(client, lang):
    """``/lang/xx`` said 'xx' and a new game's unknown card codes 'ZZ', 'YY', with Python's
    quotes, on every page. What was typed stands in the page language's own quotation marks:
    “xx” in English, «xx» in Norwegian, »xx« in Danish, ”xx” in Swedish."""
    from webui.speech import say_setup

    client.set_cookie("lang", lang)
    r = client.get("/lang/xx")
    assert r.status_code == 404
    lead = html.unescape(re.search(r'<p class="lead">(.*?)</p>', r.get_data(as_text=True))[1])
    assert QUOTED_XX[lang] in lead and "'" not in lead, lead
    start, end = i18n.QUOTES[lang]
    page = client.post("/new", data={"game": "poker"})
    assert f"{start}poker{end}" in html.unescape(page.get_data(as_text=True))
    codes = "bad road: unknown card codes 'ZZ', 'YY' (road cards 3, 5): a road card is 7–K of a"
    said = say_setup(codes + " suit, e.g. 7S, 10H, QD, KC", i18n.translator(lang))
    assert f"{start}ZZ{end}, {start}YY{end}" in said and "'" not in said, said
    field = client.post("/api/tables", json={"game": "sten", "players": 2, "colour": "red"})
    assert f"{start}colour{end}" in error_said(field, 400)


# A new table's field typed with what Python writes with an escape (a line break, a tab, a
# quote of each kind, a character that prints nothing), or longer than an error says back:
# the value as the error shows it, inside the page's quotation marks.
TYPED_WITH_ESCAPES = [
    ({"players": "2\n"}, "2\\n"),
    ({"players": 2, "colours": "red\tblue"}, "red\\tblue"),
    ({"players": 2, "colours": 'it\'s "brun"'}, 'it\'s "brun"'),
    ({"players": 2, "webcam_index": "9\u200b", "source": "webcam"}, "9\\u200b"),
    ({"players": 2, "deal": "a\n" * 50}, "a\\n" * 10 + "…"),
    ({"players": 2, "source": "cam\n" * 50}, "cam\\n" * 10 + "…"),
    ({"players": 2, "foo\r": 1}, "foo\\r"),
]


@pytest.mark.parametrize("lang", ["en", "nb"])
@pytest.mark.parametrize(("body", "shown"), TYPED_WITH_ESCAPES)
def test_a_typed_value_with_an_escape_is_quoted_with_the_pages_marks(client, lang, body, shown):
    """A typed value whose Python form holds an escape ('2\\n', 'red\\tblue', 'it\\'s "brun"')
    kept Python's quotes on every page, and one with both quotes was said in English on a
    Norwegian page; a long game, deal or camera source was cut inside its quotes ('aaaa…
    with no closing quote), and an unknown field's line break stood in the error as it was.
    Each stands in the page language's marks, a character that prints nothing written as
    \\n, \\t or \\u200b, cut to a few words."""
    start, end = i18n.QUOTES[lang]
    r = client.post("/api/tables", json={"game": "sten", **body}, headers={"Accept-Language": lang})
    said = error_said(r, 400)
    assert f"{start}{shown}{end}" in said, said
    assert not any(c in said for c in "\n\r\t\u200b") and len(said) < 240, said
    if lang == "nb":
        assert not ENGLISH.search(said.replace(shown, "")), said  # the value's own words apart
        assert said != error_said(client.post("/api/tables", json={"game": "sten", **body}), 400)


def test_a_games_name_with_an_escape_is_quoted_on_the_form_in_the_pages_language(client):
    """The new-game form's error said an unknown game typed with a line break, or cut off
    past 30 characters, in Python's quotes ('sten\\n', 'xxxx… with no closing quote)."""
    for game, shown in [("sten\n", "sten\\n"), ("x" * 3000, "x" * 30 + "…")]:
        page = client.post("/new", data={"game": game}, headers={"Accept-Language": "nb"})
        assert page.status_code == 400
        assert f"ukjent spill «{shown}»" in html.unescape(page.get_data(as_text=True)).lower()


@pytest.mark.parametrize("lang", ["nb", "da", "sv"])
def test_a_routes_errors_are_said_in_the_pages_language(app, lang):
    """``/lang/xx`` and ``/letters/XYZ`` (a hand-typed address), a player's QR code of a
    seat the table has not, and the API's refusals answered in English on a Norwegian page.
    Each is said in the language the user chose, its details (the code typed, the choices)
    as they are."""
    english = _errors_said(app.test_client(), "en")
    said = _errors_said(app.test_client(), lang)
    assert english["an unknown language"] == "Unknown language “xx”; expected one of en, nb, da, sv"
    for what, sentence in said.items():
        assert sentence != english[what], (what, sentence)
        assert not ENGLISH.search(sentence), (what, sentence)
    assert "xx" in said["an unknown language"] and "nb" in said["an unknown language"]
    assert "XYZ" in said["unknown card letters"] and "KnDKE" in said["unknown card letters"]

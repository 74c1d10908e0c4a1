"""Every route, and what each does with malformed or hostile requests: a clear 4xx, no change."""

from __future__ import annotations

import html
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.webui.conftest import error_said as _err
from tests.webui.conftest import new_table, token


# ---- pages ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    "path",
    [
        "/",
        "/new",
        "/new?game=stigespill",
        "/new?game=sten",
        "/new?game=skipbo",
        "/new?game=<script>",
        "/matches",
    ],
)
def test_pages_render(client, path):
    r = client.get(path)
    assert r.status_code == 200
    assert "<script>" not in r.get_data(as_text=True).split("</header>")[1].split("<script")[0]


def test_the_browsers_own_icon_request_finds_the_apps_icon(client):
    r = client.get("/favicon.ico", follow_redirects=True)
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    assert b"<svg" in r.data


def test_new_game_form_creates_a_table_and_opens_it(client):
    r = client.post(
        "/new",
        data={
            "game": "skipbo",
            "players": "3",
            "names": "Ann, Bo, Cy",
            "match_target": "500",
            "deal": "app",
            "source": "none",
        },
    )
    assert r.status_code == 302 and r.location.startswith("/t/")
    page = client.get(r.location).get_data(as_text=True)
    assert "Skip-Bo" in page and "Cy" in page


def typed_in(page: str) -> dict[str, str]:
    """Return what a form page has filled in: its inputs' values, checked boxes' and radio
    buttons', selected options' (empty ones left out)."""
    form = page.split('id="new-game"', 1)[1]
    out = {}
    for tag in re.findall(r"<input\b[^>]*>", form):
        name, value = re.search(r'name="(\w+)"', tag), re.search(r'value="([^"]*)"', tag)
        if (
            name
            and value
            and value[1]
            and (("checkbox" not in tag and "radio" not in tag) or re.search(r"\schecked\b", tag))
        ):
            out[name[1]] = html.unescape(value[1])
    for name, options in re.findall(r'<select name="(\w+)"[^>]*>(.*?)</select>', form, re.S):
        chosen = re.search(r'<option value="(\w+)" selected', options) or re.search(
            r'<option value="(\w+)"', options
        )
        if chosen:  # (Sten's dealer is left to the rules: forms.js lists the players)
            out[name] = chosen[1]
    return out


@pytest.mark.parametrize(
    ("game", "setup", "typed"),
    [  # the seats left unnamed at the end are left out; the usual stock is left to the rules
        ("skipbo", {"players": 4, "names": "Mor, Ida"}, {"players": "4", "names": "Mor, Ida"}),
        ("skipbo", {"players": 3, "stock": 30, "empty_draw": "end"}, {"empty_draw": "end"}),
        ("stigespill", {"variant": "strategy", "road_shape": "rows"}, {"variant": "strategy"}),
        ("sten", {"deal": "table", "source": "phone"}, {"deal": "table", "source": "phone"}),
        ("sten", {"source": "stream", "stream_url": "rtsp://10.0.0.2/cam"}, {"source": "stream"}),
    ],
)
def test_a_form_filled_in_as_a_table_sets_up_the_same_table(client, game, setup, typed):
    """A new match with the same players starts from the form filled in as its table was set
    up: sent as it stands, it sets up the same (its name, players, names, choices, camera),
    the seats left unnamed unnamed again; a new road, dealer and first player."""
    t = new_table(client, game, name="Kitchen", **{"names": "", **setup})
    form = typed_in(client.get(f"/new?game=sten&again={t['id']}").get_data(as_text=True))
    assert form["game"] == game and form["name"] == "Kitchen"
    assert {k: form[k] for k in typed} == typed
    assert "stock" not in form
    r = client.post("/new", data=form)
    assert r.status_code == 302, r.get_data(as_text=True)[:300]
    made = [t["id"], r.location.rsplit("/", 1)[1]]
    tables = [client.get(f"/api/tables/{i}").get_json()["table"] for i in made]
    configs = [client.get(f"/api/tables/{i}/log").get_json()["config"] for i in made]
    for table in tables:
        del table["id"]
    assert tables[0] == tables[1]
    kept = [{k: v for k, v in c.items() if k not in ("dealer", "first", "road")} for c in configs]
    assert kept[0] == kept[1]


def test_new_game_form_names_the_bad_field(client):
    r = client.post("/new", data={"game": "sten", "players": "1"})
    assert r.status_code == 400 and "players" in r.get_data(as_text=True).lower()


@pytest.mark.parametrize(
    ("game", "least", "most", "extra"),
    [("stigespill", 1, 10, {}), ("sten", 2, 10, {}), ("skipbo", 2, 8, {"teams": "1"})],
)
def test_the_forms_players_field_takes_as_many_players_as_the_game_seats(
    client, game, least, most, extra
):
    """The form's own limits on players are the game's: Skip-Bo's stopped at 6, so the browser
    refused the 8 players of the team play the same form offers ("Teams (4, 6 or 8 players)").
    The server takes the least and the most and refuses one fewer or one more."""
    page = client.get(f"/new?game={game}").get_data(as_text=True)
    field = re.search(r'<input name="players"[^>]*>', page)
    assert field is not None
    assert f'min="{least}"' in field.group(0) and f'max="{most}"' in field.group(0)
    for players, also in ((least, {}), (most, extra)):
        r = client.post("/new", data={"game": game, "players": str(players), **also})
        assert r.status_code == 302 and r.location.startswith("/t/"), players
    for players, also in ((least - 1, {}), (most + 1, extra)):
        r = client.post("/new", data={"game": game, "players": str(players), **also})
        assert r.status_code == 400 and "players" in r.get_data(as_text=True).lower(), players


def test_the_web_layers_player_limits_are_the_rules_own():
    """Each game's least and most players are said once, in its rules' module: the web layer
    read Skip-Bo's from its own table of stocks (2, 3, 4, 5, 6, 8) and Stigespill's least as a
    1 of its own, so a change to the rules would leave the form saying otherwise. Changed in
    the rules (in a fresh interpreter, before the web layer is imported), the form's limits
    and the stock hint's numbers of players follow."""
    code = (
        "import json\n"
        "from referee import skipbo, sten, stigespill\n"
        "skipbo.MIN_PLAYERS, skipbo.MAX_PLAYERS, skipbo.TEAM_PLAYERS = 3, 5, (4, 6)\n"
        "sten.MIN_PLAYERS, sten.MAX_PLAYERS = 3, 7\n"
        "stigespill.MIN_PLAYERS, stigespill.MAX_SEATS = 2, 9\n"
        "from webui import games\n"
        "print(json.dumps([games.PLAYERS, sorted(games.SKIPBO_STOCKS), games.MOST_PLAYERS]))\n"
    )
    root = Path(__file__).resolve().parents[2]  # this checkout's code, not an installed one
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=root)
    assert out.returncode == 0, out.stderr[-600:]
    players, stocks, most = json.loads(out.stdout)
    assert players == {"stigespill": [2, 9], "sten": [3, 7], "skipbo": [3, 6]}
    assert stocks == [3, 4, 5, 6] and most == 9


@pytest.mark.parametrize("game", ["stigespill", "sten", "skipbo"])
def test_the_form_counts_the_names_and_players_as_the_server_does(client, monkeypatch, game):
    """The form's script raises the players as more names are typed, up to the most the game
    seats: it wrote the server's rule again (names apart at "," or a line, at most 10 players,
    Skip-Bo's 8 in the page), so a change to one would leave the other saying otherwise. The
    page takes the server's numbers (games.PLAYERS, games.NAME_SEPARATORS): changed there, the
    form says them, and the server reads the names as the form counted them."""
    from webui import games

    least, most = games.PLAYERS[game]
    monkeypatch.setitem(games.PLAYERS, game, (least, most - 1))
    monkeypatch.setattr(games, "NAME_SEPARATORS", "[;\n]")
    page = client.get(f"/new?game={game}").get_data(as_text=True)
    players = re.search(r'<input name="players"[^>]*>', page)
    names = re.search(r'<input name="names"[^>]*>', page)
    assert players is not None and names is not None
    assert f'min="{least}"' in players.group(0) and f'max="{most - 1}"' in players.group(0)
    assert 'data-split="[;\n]"' in names.group(0)
    r = client.post("/new", data={"game": game, "players": "2", "names": "Mor;Far;Ida;Jon"})
    assert r.status_code == 302, r.get_data(as_text=True)[:300]
    table_id = r.location.rsplit("/", 1)[1]
    created = client.get(f"/api/tables/{table_id}").get_json()["table"]["players"]
    assert [p["name"] for p in created] == ["Mor", "Far", "Ida", "Jon"]


def test_the_stock_fields_hint_says_the_stock_an_empty_field_deals(client):
    """The Skip-Bo form's stock field says what an empty field deals for every number of
    players it takes: eight players (teams) get 12 cards, not the 20 it said "for more"."""
    from referee.skipbo import SkipBo

    page = client.get("/new?game=skipbo").get_data(as_text=True)
    hint = re.search(r'<p [^>]*id="stock-usual">([^<]*)</p>', page)
    assert hint is not None
    said = {}
    for stock, low, high, other in re.findall(
        r"(\d+)(?: cards)? for (\d+)(?:–(\d+)| or (\d+))?", hint.group(1)
    ):
        said |= {n: int(stock) for n in range(int(low), int(high or other or low) + 1)}
    for players, teams in ((2, False), (3, False), (4, False), (5, False), (6, False), (8, True)):
        assert said.get(players) == SkipBo(players=players, teams=teams).stock, hint.group(0)


def test_the_stock_field_reads_as_a_family_says_it_with_the_usual_stock_shown(client):
    """The Skip-Bo form's stock field read "Stock size (empty: 30 for 2–4 players, 20 for
    5–6, 12 for 8)", a programmer's note. It asks for the cards in each stock pile, says
    the usual numbers under it, read with it, and shows the usual one for the players
    chosen in the empty field; a refused form keeps both said."""
    page = client.get("/new?game=skipbo").get_data(as_text=True)
    assert "empty:" not in page and "Stock size" not in page
    field = re.search(r'Cards in each stock pile\s*<input name="stock"[^>]*>', page, re.S)
    assert field is not None
    assert 'placeholder="30"' in field.group(0), field.group(0)  # two players at first
    assert 'aria-describedby="stock-usual"' in field.group(0), field.group(0)
    assert re.search(r'id="stock-usual">Leave it empty for the usual number: 30 cards', page)
    r = client.post("/new", data={"game": "skipbo", "players": "5", "stock": "31"})
    assert r.status_code == 400
    field = re.search(r'<input name="stock"[^>]*>', r.get_data(as_text=True))
    assert field is not None
    assert 'placeholder="20"' in field.group(0), field.group(0)
    assert 'aria-describedby="form-error stock-usual"' in field.group(0), field.group(0)


@pytest.mark.parametrize(
    ("lang", "drawn"), [("en", "drawn"), ("nb", "trukket"), ("da", "trukket"), ("sv", "drogs")]
)
def test_the_sten_forms_real_cards_choice_speaks_of_cards_laid_not_drawn(client, lang, drawn):
    """Sten draws no card: its form's choice of real cards said "tap or camera says what was
    drawn", as Stigespill's and Skip-Bo's do; it says what was laid."""

    def choice(game: str) -> str:
        page = client.get(f"/new?game={game}", headers={"Accept-Language": lang})
        found = re.search(r'value="table"[^>]*>([^<]*)</label>', page.get_data(as_text=True))
        assert found is not None
        return found.group(1)

    assert drawn not in choice("sten")
    assert drawn in choice("stigespill") and drawn in choice("skipbo")


def test_table_page_and_api(client, make_table):
    t = make_table("stigespill")
    page = client.get(t["url"]).get_data(as_text=True)
    assert 'id="board"' in page and "Anna" in page
    snap = client.get(f"/api/tables/{t['id']}").get_json()
    assert snap["table"]["game"] == "stigespill" and len(snap["view"]["road"]) == 28
    log = client.get(f"/api/tables/{t['id']}/log").get_json()
    assert log["game"] == "stigespill" and log["moves"] == []
    assert client.get("/api/tables").get_json()["tables"][0]["id"] == t["id"]


@pytest.mark.parametrize("lang", ["en", "nb", "da", "sv"])
def test_a_stigespill_hint_on_the_table_says_whole_turns(client, make_table, lang):
    """The table's hint said "about 19.8 turns to finish": nobody counts tenths of a turn."""
    import re

    t = make_table("stigespill")  # classic: the hint of the player on turn is public
    hint = client.get(f"/api/tables/{t['id']}", headers={"Accept-Language": lang}).get_json()
    text = hint["hint"]["text"]
    assert re.search(r" \d+ ", text) and not re.search(r"\d[.,]\d", text), text


def test_a_table_played_on_one_device_offers_no_players_own_pages(client, lan_app):
    """ "One device for everyone" (and a solo player's tokens) offered each player a page of
    their own and its QR code, which nobody at such a table uses; on the home network the
    table's own join code stays, said as a way to show the table on another device."""
    tables = {
        "phones": new_table(client, "sten"),
        "one device": new_table(client, "sten", open=True),
        "solo": new_table(client, "stigespill", players=1, names="Anna"),
    }
    for kind, t in tables.items():
        page = client.get(t["url"]).get_data(as_text=True)
        own = "Players&#39; own pages" in page and t["players"][0]["url"] in page
        assert own == (kind == "phones"), kind
        assert "Show this table on another device" not in page  # this computer only: none
    host = lan_app.test_client()
    one = new_table(host, "skipbo", open=True)
    page = host.get(one["url"]).get_data(as_text=True)
    assert "/players/0/qr.svg" not in page and one["players"][0]["url"] not in page
    assert "Show this table on another device" in page and one["join_code"] in page
    assert f"/t/{one['id']}/qr.svg" in page
    phones = new_table(host, "skipbo")
    page = host.get(phones["url"]).get_data(as_text=True)
    assert "/players/0/qr.svg" in page and "Show this table on another device" not in page


def test_player_page(client, make_table):
    t = make_table("sten")
    r = client.get(t["players"][0]["url"])
    assert r.status_code == 200 and r.headers["Referrer-Policy"] == "no-referrer"
    page = r.get_data(as_text=True)
    assert "Anna" in page
    assert "Sten · only you" in page and "Sten · Sten" not in page  # the default name once
    named = make_table("sten", name="Kitchen table")
    page = client.get(named["players"][0]["url"]).get_data(as_text=True)
    assert "Sten · Kitchen table · only you can see this page" in page


def test_qr_codes(client, make_table):
    t = make_table("sten")
    r = client.get(f"/t/{t['id']}/players/1/qr.svg")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and b"<svg" in r.data
    assert client.get(f"/t/{t['id']}/qr.svg").status_code == 200
    _err(client.get(f"/t/{t['id']}/players/7/qr.svg", headers={"Accept": "application/json"}), 404)


def test_language_choice(client):
    r = client.get("/lang/nb?next=/matches")
    assert r.status_code == 302 and r.location == "/matches"
    assert "lang=nb" in r.headers["Set-Cookie"]
    assert client.get("/lang/sv?next=//evil.example").location == "/"
    assert client.get("/lang/sv?next=/%0d%0aSet-Cookie:x=1").location == "/"
    assert client.get("/lang/sv?next=javascript:alert(1)").location == "/"
    assert client.get("/lang/xx").status_code == 404


@pytest.mark.parametrize("choice", ["lang", "letters"])
def test_an_unknown_choice_of_language_or_letters_is_not_said_back_whole(client, choice):
    """``/lang/<code>`` with a code of thousands of characters said it all back in its 404;
    what is said back is cut to 20 characters, a short code still named whole."""
    long = "x" * 3000
    said = _err(client.get(f"/{choice}/{long}", headers={"Accept": "application/json"}), 404)
    assert f"“{'x' * 20}…”" in said and "x" * 21 not in said and len(said) < 120
    said = _err(client.get(f"/{choice}/xx", headers={"Accept": "application/json"}), 404)
    assert "“xx”" in said


# ---- hostile and malformed requests ------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "status", "words"),
    [
        ({"data": "game=sten", "content_type": "application/x-www-form-urlencoded"}, 415, "JSON"),
        ({"data": "{not json", "content_type": "application/json"}, 400, "object"),
        ({"json": ["sten"]}, 400, "object"),
        ({"json": {"game": "poker"}}, 400, "unknown game"),
        ({"json": {"game": "sten", "players": 99}}, 400, "players"),
        ({"json": {"game": "sten", "players": "two"}}, 400, "whole number"),
        ({"json": {"game": "sten", "players": 2.5}}, 400, "whole number"),
        ({"json": {"game": "sten", "players": True}}, 400, "whole number"),
        (
            {"data": '{"game": "sten", "players": 1e400}', "content_type": "application/json"},
            400,
            "too large",
        ),
        # Python reads NaN and Infinity, JSON has neither: stored, they would break every page
        ({"data": '{"game": "sten", "x": NaN}', "content_type": "application/json"}, 400, "NaN"),
        (
            {"data": '{"game": "sten", "x": [-Infinity]}', "content_type": "application/json"},
            400,
            "Infinity",
        ),
        (
            {"data": "[" * 100_000 + "]" * 100_000, "content_type": "application/json"},
            400,
            "nested",
        ),
        # said as a client can act on it, not as Python does ("sys.set_int_max_str_digits()",
        # "'utf-8' codec can't decode byte 0xff in position 13")
        (
            {"data": '{"players": ' + "9" * 5000 + "}", "content_type": "application/json"},
            400,
            "99999999999999999999… is too long a number",
        ),
        ({"data": b'{"game": "sten\xff"}', "content_type": "application/json"}, 400, "in UTF-8"),
        ({"json": {"game": "sten", "names": "A" * 200}}, 400, "longer"),
        ({"json": {"game": "sten", "names": "Ann, Ann"}}, 400, "different"),
        ({"json": {"game": "sten", "names": {"x": 1}}}, 400, "names"),
        ({"json": {"game": "skipbo", "stock": 99}}, 400, "stock"),
        ({"json": {"game": "stigespill", "road": "7S 8S ZZ"}}, 400, "ZZ"),
        ({"json": {"game": "stigespill", "road": 5}}, 400, "road must be card codes"),
        ({"json": {"game": "stigespill", "road": [["AS"]]}}, 400, "road must be card codes"),
        ({"json": {"game": "sten", "open": "false"}}, 400, "open must be true or false"),
        ({"json": {"game": "sten", "open": "no"}}, 400, "open must be true or false"),
        ({"json": {"game": "sten", "open": "0"}}, 400, "open must be true or false"),
        ({"json": {"game": "sten", "open": "off"}}, 400, "open must be true or false"),
        ({"json": {"game": "sten", "open": 1}}, 400, "open must be true or false"),
        (
            {"json": {"game": "skipbo", "players": 4, "teams": "false"}},
            400,
            "teams must be true or false",
        ),
        ({"json": {"game": "sten", "deal": "maybe"}}, 400, "deal"),
        (
            {"json": {"game": "sten", "source": "stream", "stream_url": "file:///etc/passwd"}},
            400,
            "rtsp",
        ),
        ({"json": {"game": "sten", "source": "webcam", "webcam_index": "-1"}}, 400, "webcam"),
        ({"json": {"game": "sten", "source": "satellite"}}, 400, "source"),
    ],
)
def test_bad_new_table_requests(client, kwargs, status, words):
    assert words.lower() in _err(client.post("/api/tables", **kwargs), status).lower()
    assert client.get("/api/tables").get_json()["tables"] == []


@pytest.mark.parametrize(
    ("lang", "unknown", "doubled", "missing"),
    [
        ("en", "unknown card codes “ZZ”, “7X” (road cards 5, 21)", "9♠ appears 2", "missing:"),
        ("nb", "ukjente kortkoder «ZZ», «7X» (veikort 5, 21)", "9♠ finnes 2", "mangler:"),
        ("da", "ukendte kortkoder »ZZ«, »7X« (vejkort 5, 21)", "9♠ findes 2", "mangler:"),
        ("sv", "okända kortkoder ”ZZ”, ”7X” (vägkort 5, 21)", "9♠ finns 2", "saknas:"),
    ],
)
def test_a_typed_road_with_several_mistakes_names_them_all_at_once(
    client, lang, unknown, doubled, missing
):
    """Two unknown codes, a card typed twice and the cards they left out: the form says all
    of them at once, not one per try."""
    from referee.stigespill import ROAD_CARDS

    road = [c.code for c in ROAD_CARDS]
    road[4], road[10], road[20] = "ZZ", road[2], "7X"
    form = {"game": "stigespill", "players": "2", "names": "Ann, Bo", "road": " ".join(road)}
    page = client.post("/new", data=form, headers={"Accept-Language": lang})
    assert page.status_code == 400
    said = page.get_data(as_text=True).replace("&#39;", "'")
    assert unknown in said and doubled in said
    assert f"{missing} J♠, 10♥, K♦" in said  # the cards the three mistakes left out
    assert client.get("/api/tables").get_json()["tables"] == []


@pytest.mark.parametrize(
    ("names", "lang", "tokens"),
    [
        ("Anna", "en", ["Anna 1", "Anna 2", "Anna 3"]),
        ("", "en", ["Token 1", "Token 2", "Token 3"]),
        ("", "nb", ["Brikke 1", "Brikke 2", "Brikke 3"]),
    ],
)
def test_a_solo_stigespill_players_tokens_are_named_by_number(client, names, lang, tokens):
    body = {"game": "stigespill", "players": 1, "tokens": 3, "names": names}
    r = client.post("/api/tables", json=body, headers={"Accept-Language": lang})
    assert r.status_code == 201, r.get_json()
    page = {"Accept-Language": lang}  # unnamed tokens are said in the page's language
    snap = client.get(f"/api/tables/{r.get_json()['id']}", headers=page).get_json()
    assert [p["name"] for p in snap["table"]["players"]] == tokens


@pytest.mark.parametrize(
    ("value", "on"),
    [(True, True), ("on", True), ("1", True), ("true", True), (False, False), ("", False),
     (None, False)],
)  # fmt: skip
def test_yes_no_options_take_json_booleans_and_ticked_checkboxes(client, make_table, value, on):
    t = make_table("sten", open=value)
    assert client.get(f"/api/tables/{t['id']}").get_json()["table"]["open"] is on
    s = make_table("skipbo", players=4, names="", teams=value)
    config = client.get(f"/api/tables/{s['id']}/log").get_json()["config"]
    assert config.get("teams", False) is on


def test_an_unticked_checkbox_is_absent_from_the_form(client):
    r = client.post("/new", data={"game": "sten", "players": "2"})
    assert r.status_code == 302
    table_id = r.location.rsplit("/", 1)[1]
    assert client.get(f"/api/tables/{table_id}").get_json()["table"]["open"] is False


BAD_MOVES = [
    ({"data": "x", "content_type": "text/plain"}, 415),
    ({"json": 5}, 400),
    ({"json": {}}, 400),
    ({"json": {"move": "draw"}}, 400),
    ({"json": {"moves": "draw"}}, 400),
    ({"json": {"moves": [1, 2]}}, 400),
    ({"json": {"moves": []}}, 409),
    # moves the referee cannot read: a bad request (400); one it reads and refuses: 409
    ({"json": {"move": {"kind": "fly"}}}, 400),
    ({"json": {"move": {"no": "kind"}}}, 400),
    ({"json": {"move": {"kind": "reveal", "card": "ZZ"}}}, 400),
    ({"json": {"move": {"kind": "reveal", "card": ["5H", {"a": 1}]}}}, 400),
    ({"json": {"move": {"kind": "reveal", "card": None}}}, 400),
    ({"json": {"move": {"kind": "draw", "seat": 1}}}, 409),
    ({"json": {"move": {"kind": "draw", "seat": "0; DROP TABLE moves"}}}, 400),
    ({"json": {"move": {"kind": "draw", "seat": 10**30}}}, 400),
    ({"json": {"moves": [{"kind": "draw"}] * 61}}, 409),
    ({"data": "[" * 50_000 + "]" * 50_000, "content_type": "application/json"}, 400),
]


@pytest.mark.parametrize(("kwargs", "status"), BAD_MOVES)
def test_bad_moves_get_a_clear_error_and_change_nothing(client, make_table, kwargs, status):
    t = make_table("stigespill", deal="table")
    url = f"/api/tables/{t['id']}"
    before = client.get(url).get_json()
    _err(client.post(f"{url}/moves", **kwargs), status)
    after = client.get(url).get_json()
    assert after["view"] == before["view"] and after["moves_made"] == 0


@pytest.mark.parametrize(
    ("move", "words"),
    [
        ({"kind": ["draw"]}, "unknown move ['draw']"),
        ({"kind": {"a": 1}}, "unknown move {'a': 1}"),
        ({"kind": "x" * 5000}, "unknown move 'xxxx"),
        ({"a": "x" * 5000}, "a move must be an object with a 'kind'"),
    ],
)
def test_a_move_of_no_known_kind_is_named_in_a_short_sentence(client, make_table, move, words):
    t = make_table("stigespill", deal="table")
    error = _err(client.post(f"/api/tables/{t['id']}/moves", json={"move": move}), 400)
    assert words in error and len(error) < 200


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("index", {"x": [1, 2]}, "index must be a whole number 0–3"),
        ("index", "ZZ", "index must be a whole number 0–3"),
        ("index", True, "index must be a whole number 0–3"),
        ("index", -1, "index must be a whole number 0–3"),
        ("index", 1e20, "index must be a whole number 0–3"),
        ("index", [0], "index must be a whole number 0–3"),
        ("pile", True, "pile must be a whole number 0–3"),
        ("pile", 4, "pile must be a whole number 0–3"),
        ("owner", 0.0, "owner must be a whole number 0–1"),
        ("seat", 0.0, "seat must be a whole number 0–1"),
        ("seat", False, "seat must be a whole number 0–1"),
    ],
)
def test_a_moves_seats_and_piles_are_whole_numbers_in_range(
    client, make_table, field, value, words
):
    for _ in range(30):  # a deal where seat 0 can play from its hand (most can)
        t = make_table("skipbo", open=True)
        page = f"/api/p/{token(t, 0)}"
        plays = [m["move"] for m in client.get(page).get_json()["moves"]]
        plays = [m for m in plays if m.get("source") == "hand"]
        if plays:
            break
    play = plays[0]
    log = client.get(f"/api/tables/{t['id']}/log").get_json()["moves"]
    for url in (f"{page}/moves", f"/api/tables/{t['id']}/moves"):
        assert words in _err(client.post(url, json={"move": {**play, field: value}}), 400)
    assert client.get(f"/api/tables/{t['id']}/log").get_json()["moves"] == log
    # the same move with its numbers right is played
    assert client.post(f"{page}/moves", json={"move": play}).status_code == 200


def test_unknown_move_fields_are_dropped_not_stored(client, make_table):
    t = make_table("stigespill", deal="table")
    r = client.post(
        f"/api/tables/{t['id']}/moves", json={"move": {"kind": "draw", "extra": [1] * 1000}}
    )
    assert r.status_code == 200
    assert client.get(f"/api/tables/{t['id']}/log").get_json()["moves"] == [
        {"kind": "draw", "seat": None}
    ]


@pytest.mark.parametrize(("kwargs", "status"), BAD_MOVES[:6])
def test_bad_moves_on_a_private_page(client, make_table, kwargs, status):
    t = make_table("sten")
    _err(client.post(f"/api/p/{token(t, 0)}/moves", **kwargs), status)
    assert client.get(f"/api/tables/{t['id']}").get_json()["moves_made"] == 0


@pytest.mark.parametrize(
    "path",
    [
        "/api/tables/nope",
        "/api/tables/nope/log",
        "/api/tables/nope/events",
        "/api/tables/" + "x" * 300,
        "/api/tables/%E2%99%A0",
        "/api/p/nope",
        "/api/p/nope/events",
        "/api/matches/nope",
        "/api/tables/nope/camera",
    ],
)
def test_unknown_things_are_404_json(client, path):
    _err(client.get(path), 404)


@pytest.mark.parametrize(
    "action", ["moves", "draw", "undo", "redo", "next", "prompt", "frame", "source"]
)
def test_posting_to_an_unknown_table_is_404(client, action):
    _err(client.post(f"/api/tables/nope/{action}", json={}), 404)


@pytest.mark.parametrize("action", ["moves", "draw", "photo"])
def test_posting_to_an_unknown_player_is_404(client, action):
    _err(client.post(f"/api/p/{'z' * 22}/{action}", json={}), 404)


def test_unknown_pages_are_html_404(client):
    assert client.get("/t/nope").status_code == 404
    assert client.get("/p/nope").status_code == 404
    assert b"<html" in client.get("/nowhere").data


def test_wrong_method_is_405(client, make_table):
    t = make_table()
    _err(client.get(f"/api/tables/{t['id']}/undo"), 405)
    _err(client.delete(f"/api/tables/{t['id']}"), 405)


def test_undo_redo_next_with_nothing_to_do(client, make_table):
    t = make_table("stigespill", deal="table")
    url = f"/api/tables/{t['id']}"
    assert "nothing to undo" in _err(client.post(f"{url}/undo", json={}), 409)
    assert "nothing to redo" in _err(client.post(f"{url}/redo", json={}), 409)
    assert "finish" in _err(client.post(f"{url}/next", json={}), 409)
    assert "no card" in _err(client.post(f"{url}/draw", json={}), 409)


def test_prompt_answers(app, client, make_table):
    t = make_table("stigespill", deal="table")
    url = f"/api/tables/{t['id']}"
    assert "nothing to confirm" in _err(client.post(f"{url}/prompt", json={"choice": 0}), 409)
    hub = app.extensions["kortbord.hub"]
    hub.set_prompt(
        t["id"],
        {
            "message": "5♥ or 5♦?",
            "candidates": [
                {"label": "5♥", "moves": [{"kind": "draw"}, {"kind": "reveal", "card": "5H"}]},
                {"label": "5♦", "moves": [{"kind": "draw"}, {"kind": "reveal", "card": "5D"}]},
            ],
        },
    )
    assert client.get(url).get_json()["prompt"]["message"] == "5♥ or 5♦?"
    for bad in ({"choice": 2}, {"choice": "0"}, {"choice": True}, {}):
        _err(client.post(f"{url}/prompt", json=bad), 400)
    r = client.post(f"{url}/prompt", json={"choice": 1})
    assert r.status_code == 200
    snap = r.get_json()
    assert snap["prompt"] is None and snap["moves_made"] == 2 and "5♦" in snap["last"]
    hub.set_prompt(t["id"], {"message": "?", "candidates": []})
    assert client.post(f"{url}/prompt", json={"dismiss": True}).get_json()["prompt"] is None


def test_two_draws_seen_at_once_are_offered_as_who_drew_which(app, client):
    """The camera saw two new die cards at once (a phone picture taken after two draws):
    each choice names who drew which card, in the page's language, and plays both draws."""
    created = client.post(
        "/api/tables", json={"game": "stigespill", "players": 2, "names": "Anna, Bo"}
    ).get_json()
    url = f"/api/tables/{created['id']}"

    def draws(first: str, second: str) -> list[dict]:
        return [
            {"kind": "draw", "seat": 0},
            {"kind": "reveal", "card": first},
            {"kind": "draw", "seat": 1},
            {"kind": "reveal", "card": second},
        ]

    app.extensions["kortbord.hub"].set_prompt(
        created["id"],
        {
            "message": "out of sync — please confirm: two or more moves fit what the camera sees",
            "candidates": [
                {"label": "3♣ + 6♦", "moves": draws("3C", "6D")},
                {"label": "6♦ + 3♣", "moves": draws("6D", "3C")},
            ],
        },
    )
    labels = [c["label"] for c in client.get(url).get_json()["prompt"]["candidates"]]
    assert labels == ["Anna drew 3♣ + Bo drew 6♦", "Anna drew 6♦ + Bo drew 3♣"]
    norwegian = client.get(url, headers={"Accept-Language": "nb"}).get_json()["prompt"]
    assert norwegian["candidates"][1]["label"] == "Anna trakk 6♦ + Bo trakk 3♣"
    snap = client.post(f"{url}/prompt", json={"choice": 1}).get_json()
    assert snap["prompt"] is None and snap["moves_made"] == 4 and "3♣" in snap["last"]


def test_match_routes_only_for_skipbo(client, make_table):
    t = make_table("sten")
    _err(client.get(f"/api/matches/{t['id']}"), 404)
    assert client.get(f"/matches/{t['id']}").status_code == 404
    s = make_table("skipbo")
    body = client.get(f"/api/matches/{s['id']}").get_json()
    assert body["target"] == 500 and body["totals"] == [0, 0] and body["names"] == ["Anna", "Bo"]
    assert client.get(f"/matches/{s['id']}").status_code == 200
    assert "Anna" in client.get("/matches").get_data(as_text=True)
    assert _err(client.get("/api/matches/nosuch"), 404) == "no such match"
    assert _err(client.get("/api/matches/nosuch", headers={"Accept-Language": "nb"}), 404) == (
        "det finnes ingen slik kamp"
    )


def test_the_home_page_says_when_each_table_was_started(app, client, make_table):
    """Tables of one family look alike ("Sten · Mor, Far, Ida · game 1"): each says when it
    was started, in the page's language."""
    from datetime import date, datetime

    from webui.home import when

    make_table("sten")
    created = app.extensions["kortbord.hub"].store.list_tables()[0]["created"]
    clock = datetime.fromtimestamp(created).strftime("%H:%M")
    html = client.get("/").get_data(as_text=True)
    assert f"today {clock} · game 1" in html or f"yesterday {clock} · game 1" in html  # midnight
    start = datetime(2026, 12, 6, 19, 5).timestamp()
    for lang, words in (
        ("en", ["today 19:05", "yesterday 19:05", "6 Dec", "6 Dec 2026"]),
        ("nb", ["i dag 19:05", "i går 19:05", "6. des.", "6. des. 2026"]),
        ("sv", ["i dag 19:05", "i går 19:05", "6 dec.", "6 dec. 2026"]),
    ):
        with app.test_request_context(headers={"Accept-Language": lang}):
            days = (date(2026, 12, 6), date(2026, 12, 7), date(2026, 12, 20), date(2027, 1, 2))
            assert [when(start, today) for today in days] == words, lang


def _rows(html: str) -> list[tuple[str, str, str]]:
    """Return each listed table's badge, heading and the line under it, as shown."""
    import re

    found = re.findall(
        r'class="game-badge[^"]*">([^<]*)</span>\s*<span class="table-name">([^<]*)</span>'
        r'\s*<span class="muted">([^<]*)</span>',
        html,
    )
    return [tuple(" ".join(part.split()) for part in row) for row in found]


def test_an_unnamed_tables_row_is_headed_by_who_plays_not_its_game_twice(
    app, client, make_table, lan_app
):
    """An unnamed Skip-Bo table's row read "SKIP-BO Skip-Bo": the badge and the heading
    said the game twice. Its heading is now who plays (said once), a guest's who may not
    see names the time it began, an unnamed match's on the Matches page likewise."""
    make_table("skipbo", names="Mor, Ida")
    make_table("sten", names="Mor, Far", name="Fredag")
    html = client.get("/").get_data(as_text=True)
    (named, unnamed) = _rows(html)
    assert named[:2] == ("Sten", "Fredag") and named[2].startswith("Mor, Far · ")
    assert unnamed[:2] == ("Skip-Bo", "Mor, Ida") and "Mor" not in unnamed[2]
    assert unnamed[2].startswith(("today ", "yesterday "))
    ((_, heading, scores),) = _rows(client.get("/matches").get_data(as_text=True))
    assert heading.startswith(("today ", "yesterday ")) and scores == "Mor 0 · Ida 0 / 500"
    guest = lan_app.test_client()  # another device on the network (the same two tables)
    guest.environ_base["REMOTE_ADDR"] = "203.0.113.23"
    guest = _rows(guest.get("/").get_data(as_text=True))
    assert [heading for _, heading, _ in guest] == ["Fredag", unnamed[2].split(" · ")[0]]
    assert [line for _, _, line in guest] == [named[2].split(" · ", 1)[1], "game 1 · 0 moves"]


def test_a_tables_row_after_one_move_says_move_not_moves(client, make_table):
    """A table after its first move was listed "game 1 · 1 moves" on the home page. One move
    is said "1 move" (and in each language), more "2 moves"."""
    t = make_table("sten", names="Mor, Far", name="Fredag")
    for count in (1, 2):
        snap = client.get(f"/api/tables/{t['id']}").get_json()
        seat = snap["to_move"]
        move = client.get(f"/api/p/{token(t, seat)}").get_json()["moves"][0]["move"]
        assert client.post(f"/api/p/{token(t, seat)}/moves", json={"move": move}).status_code == 200
        said = {}
        for lang in ("en", "nb", "da", "sv"):
            html = client.get("/", headers={"Accept-Language": lang}).get_data(as_text=True)
            ((_, _, line),) = _rows(html)
            said[lang] = line.rsplit(" · ", 1)[1]
        if count == 1:
            assert said == {"en": "1 move", "nb": "1 trekk", "da": "1 træk", "sv": "1 drag"}
        else:
            assert said["en"] == "2 moves"


def test_an_unnamed_tables_page_is_headed_by_who_plays_as_its_row_is(client, make_table):
    """An unnamed Sten table's page was headed "STEN Sten": its game twice. It is headed as
    its row on the home page is: by who plays; a named table's by its name."""
    import re

    for name, heading in ((None, "Mor, Ida"), ("Fredag", "Fredag")):
        t = make_table("sten", names="Mor, Ida", **({"name": name} if name else {}))
        html = client.get(t["url"]).get_data(as_text=True)
        h1 = re.search(r'<h1 class="table-title">(.*?)</h1>', html, re.S).group(1)
        assert " ".join(re.sub("<[^>]+>", " ", h1).split()) == f"Sten {heading}"
        assert f"{heading} · Kortbord</title>" in html


def test_a_solo_players_table_is_headed_by_the_player_not_each_token(client, make_table):
    """A solo Stigespill player's table, unnamed, was headed "Anna 1, Anna 2, … Anna 10",
    its tokens' names, on the home page and its own. It is headed by the player ("Anna"),
    and by its game alone where the player left the name out ("Token 1"…)."""
    import re

    for names, heading in (("Anna", "Anna"), ("", "")):
        t = make_table("stigespill", players=1, tokens=10, names=names)
        html = client.get(t["url"]).get_data(as_text=True)
        h1 = re.search(r'<h1 class="table-title">(.*?)</h1>', html, re.S).group(1)
        assert " ".join(re.sub("<[^>]+>", " ", h1).split()) == f"Stigespill {heading}".strip()
        assert f"<title>Stigespill{f' · {heading}' if heading else ''} · Kortbord</title>" in html
    (unnamed, named) = _rows(client.get("/").get_data(as_text=True))
    assert named[:2] == ("Stigespill", "Anna") and "Anna" not in named[2]
    assert unnamed[1].startswith(("today ", "yesterday ")) and "Token" not in unnamed[2]
    assert unnamed[2] == "game 1 · 0 moves"  # when it began: said once, as its heading


def test_a_named_solo_tables_row_names_the_player_once(client, make_table):
    """A named solo Stigespill table's row listed every token under its name ("Anna 1,
    Anna 2, … Anna 10"), where its heading names the player once. It says the player once
    and how many tokens ("Anna · 10 tokens"; "10 tokens" where the name was left out), in
    the page's language."""
    for names in ("Anna", ""):
        make_table("stigespill", players=1, tokens=10, names=names, name="Sunday")
    (unnamed, named) = _rows(client.get("/").get_data(as_text=True))
    assert named[:2] == unnamed[:2] == ("Stigespill", "Sunday")
    assert named[2].startswith("Anna · 10 tokens · ") and "Anna 1" not in named[2]
    assert unnamed[2].startswith("10 tokens · ") and "Token" not in unnamed[2]
    nb = _rows(client.get("/", headers={"Accept-Language": "nb"}).get_data(as_text=True))
    assert nb[1][2].startswith("Anna · 10 brikker · ")


def test_a_match_page_before_its_first_game_ends_says_what_the_race_is(app, client):
    """No game ended: a sentence instead of an empty chart and a table of noughts; the chart
    and the scores once a game has ended."""
    import random

    t = client.post("/api/tables", json={"game": "skipbo", "players": 2, "stock": 5}).get_json()
    for lang, words in (("en", "First to 500 points wins the match"), ("nb", "Først til 500")):
        page = client.get(f"/matches/{t['id']}", headers={"Accept-Language": lang})
        html = page.get_data(as_text=True)
        assert words in html and "<svg" not in html and "<table" not in html, lang
    hub = app.extensions["kortbord.hub"]
    rng = random.Random(3)
    for _ in range(2000):
        rt = hub.get(t["id"])
        if rt.rules.is_over(rt.state):
            break
        move = rt.rules.greedy_move(rt.state, rng) or rt.rules.legal_moves(rt.state)[0]
        hub.play(t["id"], [move.to_json()], source="demo")
    html = client.get(f"/matches/{t['id']}").get_data(as_text=True)
    assert "<svg" in html and "<table" in html and "First to 500" not in html


def _listed(client, table_id: str, page: str = "/") -> bool:
    html = client.get(page).get_data(as_text=True)
    return f'href="/t/{table_id}"' in html.split('class="removed-list"')[0]  # not those apart


def test_a_table_leaves_the_home_list_only_after_a_page_that_asks(app, client, make_table):
    """The list grew for ever: a row's "Remove" now asks first (one tap loses no game in
    progress), then takes the table off the list, keeping it (its page still opens, for the
    phones at it); the home page can undo that, and the list stays so after a restart."""
    from webui import create_app

    kept, t = make_table("sten"), make_table("sten", names="Mor, Far")
    html = client.get("/").get_data(as_text=True)
    assert f'href="/t/{t["id"]}/remove"' in html and "Remove Sten · Mor, Far from the list" in html
    page = client.get(f"/t/{t['id']}/remove")
    asked = page.get_data(as_text=True)
    assert page.status_code == 200 and "Remove this table from the list?" in asked
    assert "Its game is not over." in asked and "Mor, Far" in asked
    assert _listed(client, t["id"])  # asking removed nothing
    r = client.post(f"/t/{t['id']}/remove")
    assert r.status_code == 302 and r.headers["Location"] == f"/?removed={t['id']}"
    home = client.get(r.headers["Location"]).get_data(as_text=True)
    listed = home.split('class="removed-list"')[0]
    assert f'href="/t/{t["id"]}"' not in listed and f'href="/t/{kept["id"]}"' in listed
    assert "Sten · Mor, Far was removed from the list." in home
    assert f'action="/t/{t["id"]}/restore"' in home
    assert [row["id"] for row in client.get("/api/tables").get_json()["tables"]] == [kept["id"]]
    assert client.get(t["url"]).status_code == 200  # kept: its page opens by its link
    assert client.get(f"/api/tables/{t['id']}").get_json()["moves_made"] == 0
    assert "was removed" not in client.get("/").get_data(as_text=True)  # said once, then gone
    said = client.get(f"/?removed={t['id']}", headers={"Accept-Language": "nb"})
    assert "Sten · Mor, Far er fjernet fra listen." in said.get_data(as_text=True)
    again = create_app({"TESTING": True, "DATA_DIR": app.config["DATA_DIR"], "CAMERA": False})
    assert not _listed(again.test_client(), t["id"])  # a restart keeps it off the list
    assert client.post(f"/t/{t['id']}/restore").status_code == 302
    assert _listed(client, t["id"]) and _listed(again.test_client(), t["id"])
    assert _err(client.post("/t/nosuch/remove", headers={"Accept": "application/json"}), 404)


def test_tables_removed_from_the_list_are_listed_apart_and_may_be_put_back(client, make_table):
    """A table removed from the list could be seen again only by its link or the Undo right
    after: the home page now lists the removed ones apart, each with a way to put it back."""
    kept, t = make_table("sten"), make_table("sten", names="Mor, Far")
    assert "Removed tables" not in client.get("/").get_data(as_text=True)  # none removed
    client.post(f"/t/{t['id']}/remove")
    home = client.get("/").get_data(as_text=True)
    assert "Removed tables (1)" in home and "was removed" not in home
    removed = home.split("Removed tables (1)")[1]
    assert f'href="/t/{t["id"]}"' in removed and f'href="/t/{kept["id"]}"' not in removed
    assert f'action="/t/{t["id"]}/restore"' in removed
    assert "Restore Sten · Mor, Far to the list" in removed
    said = client.get("/", headers={"Accept-Language": "nb"}).get_data(as_text=True)
    assert "Fjernede bord (1)" in said
    assert client.post(f"/t/{t['id']}/restore").status_code == 302
    home = client.get("/").get_data(as_text=True)
    assert "Removed tables" not in home and _listed(client, t["id"])


def test_a_match_removed_from_the_list_leaves_the_matches_page_whole(app, client):
    """A Skip-Bo match is its table: removed, it leaves the home list and the Matches page
    alike (no match without its table, nor a table without its match), its games and totals
    kept on its own page; put back, it is on both again, as it was."""
    import random

    t = client.post("/api/tables", json={"game": "skipbo", "players": 2, "stock": 5}).get_json()
    hub = app.extensions["kortbord.hub"]
    rng = random.Random(3)
    while not hub.get(t["id"]).rules.is_over(hub.get(t["id"]).state):  # one game of the match
        rt = hub.get(t["id"])
        move = rt.rules.greedy_move(rt.state, rng) or rt.rules.legal_moves(rt.state)[0]
        hub.play(t["id"], [move.to_json()], source="demo")
    match = client.get(f"/api/matches/{t['id']}").get_json()
    assert len(match["games"]) == 1 and not match["over"]
    asked = client.get(f"/t/{t['id']}/remove").get_data(as_text=True)
    assert "This Skip-Bo match is not over: it leaves the Matches page too." in asked
    client.post(f"/t/{t['id']}/remove")
    assert not _listed(client, t["id"]) and f"/matches/{t['id']}" not in client.get(
        "/matches"
    ).get_data(as_text=True)
    assert client.get(f"/api/matches/{t['id']}").get_json() == match  # nothing of it lost
    assert client.get(f"/matches/{t['id']}").status_code == 200
    client.post(f"/t/{t['id']}/restore")
    assert f"/matches/{t['id']}" in client.get("/matches").get_data(as_text=True)
    assert client.get(f"/api/matches/{t['id']}").get_json() == match


def test_camera_routes_without_a_camera(client, make_table):
    t = make_table("stigespill")
    url = f"/api/tables/{t['id']}"
    _err(client.get(f"/t/{t['id']}/camera.mjpg", headers={"Accept": "application/json"}), 404)
    assert client.get(f"{url}/camera").get_json()["running"] is False
    assert "phone" in _err(
        client.post(f"{url}/frame", data=b"\xff\xd8\xff\xe0", content_type="image/jpeg"), 409
    )
    _err(client.post(f"{url}/source", json={"source": "tv"}), 400)
    assert client.post(f"{url}/source", json={"source": "phone"}).get_json()["source"] == "phone"
    _err(client.post(f"{url}/frame", data=b"", content_type="image/jpeg"), 400)
    _err(client.post(f"{url}/frame", data=b"GIF89a....", content_type="image/gif"), 400)
    assert client.post(f"{url}/source", json={"source": "none"}).status_code == 200


def test_a_pushed_frame_is_decoded_and_a_corrupt_one_refused(client, make_table):
    cv2 = pytest.importorskip("cv2")
    np = pytest.importorskip("numpy")
    import random

    t = make_table("stigespill", source="phone")
    url = f"/api/tables/{t['id']}/frame"
    jpeg = cv2.imencode(".jpg", np.full((48, 64, 3), 90, np.uint8))[1].tobytes()
    noise = random.Random(3).randbytes(1000)
    for bad in (b"\xff\xd8\xff" + noise, b"\x89PNG\r\n\x1a\n" + bytes(100)):
        assert "not a picture" in _err(client.post(url, data=bad, content_type="image/jpeg"), 400)
    cut = _err(client.post(url, data=jpeg[: len(jpeg) // 2], content_type="image/jpeg"), 400)
    assert cut == "The picture is cut off or damaged: take or send it again."
    # CAMERA is off in tests: a good frame has nowhere to go, and says so
    _err(client.post(url, data=jpeg, content_type="image/jpeg"), 503)


def _png_header(width: int, height: int) -> bytes:
    """A PNG's first bytes: what it says its size is, and no pixels."""
    ihdr = width.to_bytes(4, "big") + height.to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    return b"\x89PNG\r\n\x1a\n" + len(ihdr).to_bytes(4, "big") + b"IHDR" + ihdr + bytes(4)


def test_a_picture_of_too_many_pixels_is_refused_before_it_is_decoded(client, make_table):
    """20000 × 20000 pixels fit a few hundred kilobytes of PNG and decode to 1.2 GB."""
    huge = _png_header(20000, 20000) + bytes(1000)
    t = make_table("stigespill", source="phone")
    frame = client.post(f"/api/tables/{t['id']}/frame", data=huge, content_type="image/png")
    assert "too many pixels" in _err(frame, 400)
    s = make_table("sten")
    r = client.post(f"/api/p/{token(s, 0)}/photo", data={"photo": (io.BytesIO(huge), "h.png")})
    assert r.status_code == 400 and "too many pixels" in r.get_json()["error"]


def test_a_pictures_size_is_read_from_its_header():
    cv2 = pytest.importorskip("cv2")
    np = pytest.importorskip("numpy")
    from webui.camera import picture_size

    image = np.zeros((123, 457, 3), np.uint8)
    for progressive in (0, 1):  # a baseline and a progressive JPEG name their size apart
        jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_PROGRESSIVE, progressive])[1]
        assert picture_size(jpeg.tobytes()) == (457, 123)
    assert picture_size(cv2.imencode(".png", image)[1].tobytes()) == (457, 123)
    assert picture_size(_png_header(20000, 30)) == (20000, 30)
    assert picture_size(b"GIF89a") is None and picture_size(b"\xff\xd8\xff") is None


def test_photo_of_a_hand(client, make_table):
    t = make_table("sten")
    url = f"/api/p/{token(t, 0)}/photo"
    _err(client.post(url, data={}), 400)
    import io

    r = client.post(url, data={"photo": (io.BytesIO(b"not a picture"), "hand.jpg")})
    assert r.status_code in (400, 503) and r.get_json()["error"]
    r = client.post(url, data={"photo": (io.BytesIO(b""), "hand.jpg")})
    assert r.status_code == 400 and r.get_json()["error"] == "the photo is empty"


def test_too_large_bodies_are_413(client, make_table):
    t = make_table("stigespill", source="phone")
    r = client.post(
        f"/api/tables/{t['id']}/frame",
        data=b"\xff\xd8\xff" + b"0" * (9 * 1024 * 1024),
        content_type="image/jpeg",
    )
    _err(r, 413)


# ---- LAN mode ----------------------------------------------------------------------------
def test_lan_tables_need_their_join_code(lan_app):
    host = lan_app.test_client()
    t = new_table(host, "sten")
    guest = lan_app.test_client()
    # the host (who created the table) may open it and see the players' codes
    assert host.get(t["url"]).status_code == 200
    assert host.get(f"/t/{t['id']}/players/0/qr.svg").status_code == 200
    # a guest may not, without the code
    r = guest.get(t["url"])
    assert r.status_code == 403 and b'name="code"' in r.data
    _err(guest.get(f"/api/tables/{t['id']}"), 403)
    _err(guest.get(f"/api/tables/{t['id']}/events"), 403)
    _err(guest.post(f"/api/tables/{t['id']}/undo", json={}), 403)
    assert guest.post(f"/t/{t['id']}/join", data={"code": "000000x"}).status_code == 403
    assert (
        guest.get(f"/api/tables/{t['id']}", headers={"X-Join-Code": t["join_code"]}).status_code
        == 200
    )
    r = guest.post(f"/t/{t['id']}/join", data={"code": t["join_code"]})
    assert r.status_code == 302
    assert guest.get(t["url"]).status_code == 200
    assert guest.get(f"/api/tables/{t['id']}").status_code == 200
    # joining the table does not open the players' pages or their codes
    _err(guest.get(f"/t/{t['id']}/players/0/qr.svg", headers={"Accept": "application/json"}), 403)
    assert t["join_code"] not in guest.get(t["url"]).get_data(as_text=True)
    # a private page needs nothing but its own token
    assert lan_app.test_client().get(t["players"][1]["url"]).status_code == 200
    _err(lan_app.test_client().get("/api/p/" + "a" * 22), 404)


def test_lan_log_opens_only_when_the_game_is_over(lan_app):
    host = lan_app.test_client()
    t = new_table(host, "sten")
    assert "every hand" in _err(host.get(f"/api/tables/{t['id']}/log"), 403)


def test_a_finished_games_log_read_on_the_lan_keeps_the_game_over(lan_app, tmp_path):
    """A guest read a finished game's log (every hand as dealt); the host's undo then made
    the game live again with the guest knowing every hand. A game whose log was handed out
    stays over, after a restart too; one whose log nobody read is taken back as before."""
    import random

    from webui import create_app

    host, guest = lan_app.test_client(), lan_app.test_client()
    t = new_table(host, "sten")
    url = f"/api/tables/{t['id']}"
    assert guest.post(f"/t/{t['id']}/join", data={"code": t["join_code"]}).status_code == 302
    hub, rng = lan_app.extensions["kortbord.hub"], random.Random(1)

    def play_to_the_end():
        while not (rt := hub.get(t["id"])).rules.is_over(rt.state):
            hub.play(t["id"], [rt.rules.greedy_move(rt.state, rng).to_json()], source="demo")

    play_to_the_end()
    assert host.post(f"{url}/undo", json={}).status_code == 200  # nobody read the log
    assert host.post(f"{url}/redo", json={}).get_json()["over"]
    log = guest.get(f"{url}/log").get_json()
    assert len(log["initial"]["hands"]) == 2  # the guest holds every hand as dealt
    for client in (host, guest):
        assert "every hand" in _err(client.post(f"{url}/undo", json={}), 409)
    restarted = create_app(
        {"TESTING": True, "DATA_DIR": str(tmp_path), "CAMERA": False, "LAN": True}
    )
    again = restarted.test_client()
    again.post(f"/t/{t['id']}/join", data={"code": t["join_code"]})
    assert "every hand" in _err(again.post(f"{url}/undo", json={}), 409)
    snap = again.get(url).get_json()
    assert snap["over"] and "hand" not in snap["view"]
    # the next game's log is shut until it ends; its undo is free until then
    assert host.post(f"{url}/next", json={}).status_code == 200
    assert "every hand" in _err(guest.get(f"{url}/log"), 403)
    play_to_the_end()
    assert host.post(f"{url}/undo", json={}).status_code == 200


def test_lan_join_by_qr_link(lan_app):
    host = lan_app.test_client()
    t = new_table(host, "sten")
    guest = lan_app.test_client()
    assert guest.get(f"{t['url']}?code={t['join_code']}").status_code == 200
    assert guest.get(f"/api/tables/{t['id']}").status_code == 200  # remembered in a cookie


def test_lan_a_wrong_code_in_the_link_is_said_wrong(lan_app):
    """A link whose code is not the table's (mistyped into the address, read out wrong) was
    checked and counted as a wrong code typed, and the join page said nothing of it: it
    looked as a first visit does. It says the link's code is not right, in the page's
    language; the page opened without a code says nothing is wrong."""
    t = new_table(lan_app.test_client(), "sten")
    wrong = "000000" if t["join_code"] != "000000" else "111111"
    guest = lan_app.test_client()
    first = guest.get(t["url"]).get_data(as_text=True)
    assert 'role="alert"' not in first and "aria-invalid" not in first
    r = guest.get(f"{t['url']}?code={wrong}")
    page = r.get_data(as_text=True)
    assert r.status_code == 403 and 'role="alert"' in page and 'aria-invalid="true"' in page
    assert "The code in this link is not right" in page
    nb = guest.get(f"{t['url']}?code={wrong}", headers={"Accept-Language": "nb"})
    assert "Koden i lenken stemmer ikke" in nb.get_data(as_text=True)


def test_lan_a_wrong_join_code_stays_in_its_field(lan_app):
    """A wrong join code typed came back as an empty field: the family typed all six digits
    again where one was wrong. The code typed (as typed, its space too) or the link's code
    stays in the field, marked to be selected (forms.js), in every language; a first visit's
    field is empty."""
    t = new_table(lan_app.test_client(), "sten")
    wrong = "123 457" if t["join_code"] != "123457" else "123 458"
    guest = lan_app.test_client()
    field = re.compile(r"<input name=\"code\"[^>]*>")
    first = field.search(guest.get(t["url"]).get_data(as_text=True))
    assert first and "value=" not in first[0] and "data-retype" not in first[0], first
    for lang in ("en", "nb", "da", "sv"):
        r = guest.post(f"{t['url']}/join", data={"code": wrong}, headers={"Accept-Language": lang})
        typed = field.search(r.get_data(as_text=True))
        assert r.status_code == 403 and typed, lang
        assert f'value="{wrong}"' in typed[0] and "data-retype" in typed[0], (lang, typed[0])
    linked = field.search(
        guest.get(f"{t['url']}?code={wrong.replace(' ', '')}").get_data(as_text=True)
    )
    assert linked and f'value="{wrong.replace(" ", "")}"' in linked[0], linked
    # what is typed is shown as text, not read as the page's markup
    r = guest.post(f"{t['url']}/join", data={"code": '"><b>1'})
    assert "<b>1" not in r.get_data(as_text=True)


def test_a_player_page_not_found_says_how_to_get_the_right_one(lan_app):
    """A player's link cut short (or from another evening's data folder) ended at "There is
    no such player page" and "Back to the tables", a list a guest's phone sees empty. It
    says where the player's code is: the host shows it again on the table's page."""
    guest = lan_app.test_client()
    for lang, words in (("en", "host to show your code again"),
                        ("nb", "be verten vise koden din igjen")):  # fmt: skip
        r = guest.get("/p/" + "a" * 22, headers={"Accept-Language": lang})
        assert r.status_code == 404 and words in r.get_data(as_text=True)
    assert "host" in _err(guest.get("/api/p/" + "a" * 22), 404)


def _junk(rng, depth=0):
    """Return a random JSON value: the shapes a hostile or broken client might send."""
    pick = rng.randrange(9 if depth < 3 else 3)
    if pick == 0:
        return rng.choice([None, True, False])
    if pick == 1:
        return rng.choice([0, -1, 1, 2, 3, 10**20, -(10**20), 2.5, 1e308])
    if pick == 2:
        return rng.choice(
            [
                "",
                "draw",
                "lay",
                "reveal",
                "play",
                "7H",
                "SB5",
                "SBW",
                "JK",
                "x" * 500,
                "🂡",
                "'; DROP TABLE moves; --",
                "<script>",
                "\x00",
                "stock",
                "hand",
            ]
        )
    if pick in (3, 4, 5):
        keys = [
            "kind",
            "card",
            "cards",
            "seat",
            "pile",
            "index",
            "source",
            "owner",
            "move",
            "moves",
            "choice",
            "dismiss",
            "game",
            "players",
            "names",
            "stock",
            "deal",
        ]
        return {rng.choice(keys): _junk(rng, depth + 1) for _ in range(rng.randrange(1, 5))}
    return [_junk(rng, depth + 1) for _ in range(rng.randrange(0, 4))]


def test_random_junk_never_breaks_the_server_or_the_game(client, make_table):
    import random

    rng = random.Random(5)
    tables = {g: make_table(g, deal=d) for g, d in
              (("stigespill", "table"), ("sten", "table"), ("skipbo", "table"))}  # fmt: skip
    before = {g: client.get(f"/api/tables/{t['id']}").get_json() for g, t in tables.items()}
    for _ in range(400):
        game = rng.choice(list(tables))
        t = tables[game]
        url = rng.choice([f"/api/tables/{t['id']}/moves", f"/api/p/{token(t, 0)}/moves",
                          f"/api/tables/{t['id']}/prompt", f"/api/tables/{t['id']}/source",
                          "/api/tables"])  # fmt: skip
        body = _junk(rng)
        if rng.random() < 0.5:
            body = {"move": body} if rng.random() < 0.5 else {"moves": [body]}
        r = client.post(url, json=body)
        assert r.status_code < 500, (url, body, r.get_json())
        if url == "/api/tables" and r.status_code == 201:
            continue
        if r.status_code == 200 and url.endswith("/moves"):
            before[game] = client.get(f"/api/tables/{t['id']}").get_json()  # a legal move got in
    for game, t in tables.items():
        after = client.get(f"/api/tables/{t['id']}").get_json()
        assert after["moves_made"] == before[game]["moves_made"]


# ---- a Stigespill road read from a photo -----------------------------------------------------
def _road_scene(index: int = 42):
    """Return (JPEG bytes, true road) of the road benchmark's scene ``index`` (42: a
    serpentine; 4 and 8: rows that run like text)."""
    import numpy as np

    from vision.synth import ProceduralDeck, SkipBoDeck, render
    from vision.synth.scene import sample_scene

    rng = np.random.default_rng([1000, index])
    spec = sample_scene(rng, "road", [ProceduralDeck(int(rng.integers(40)))], SkipBoDeck(0))
    scene = render(spec)
    road = [lab for lab in scene.labels if lab.role.get("role") == "road" and lab.code != "JK"]
    return scene.jpeg(), [lab.code for lab in sorted(road, key=lambda lab: lab.role["position"])]


def _stigespill_form(**extra):
    return {"game": "stigespill", "players": "2", "names": "Ann, Bo", "deal": "table", **extra}


def test_a_new_stigespill_table_takes_its_road_from_a_photo(client):
    import io

    from vision.recognizer import models_present

    if not models_present():
        pytest.skip("no trained models in models/")
    jpeg, truth = _road_scene()
    r = client.post("/new", data=_stigespill_form(road_photo=(io.BytesIO(jpeg), "road.jpg")))
    assert r.status_code == 302, r.get_data(as_text=True)
    view = client.get("/api/tables/" + r.location.rsplit("/", 1)[1]).get_json()["view"]
    assert [tile["code"] for tile in view["road"]] == truth
    # A road typed in the form wins over the photo.
    typed = " ".join(reversed(truth))
    r = client.post(
        "/new", data=_stigespill_form(road=typed, road_photo=(io.BytesIO(jpeg), "road.jpg"))
    )
    view = client.get("/api/tables/" + r.location.rsplit("/", 1)[1]).get_json()["view"]
    assert [tile["code"] for tile in view["road"]] == truth[::-1]


def test_a_road_photo_of_rows_that_run_like_text_is_read_so_when_the_user_says_so(client):
    import io

    from vision.recognizer import models_present

    if not models_present():
        pytest.skip("no trained models in models/")
    jpeg, truth = _road_scene(4)

    def road_read(**extra):
        form = _stigespill_form(road_photo=(io.BytesIO(jpeg), "road.jpg"), **extra)
        r = client.post("/new", data=form)
        assert r.status_code == 302, r.get_data(as_text=True)
        view = client.get("/api/tables/" + r.location.rsplit("/", 1)[1]).get_json()["view"]
        return [tile["code"] for tile in view["road"]]

    assert road_read(road_shape="rows") == truth
    # The same places read as a snake: every other row the other way.
    snake = road_read()
    assert sorted(snake) == sorted(truth) and snake != truth


def test_a_road_photos_rows_read_as_a_snake_are_read_like_text_with_one_tap(client):
    """A road photo of straight rows that run like text, given with the form's first
    choice (a snake), was read with every other row backwards, and the table's page said
    nothing of it: the family played a wrong road or typed all 28 cards. The table's page
    asks, as for a camera's road, and one tap takes the rows read like text."""
    from vision.recognizer import models_present

    if not models_present():
        pytest.skip("no trained models in models/")
    jpeg, truth = _road_scene(8)  # rows that run like text, seen as straight rows
    r = client.post("/new", data=_stigespill_form(road_photo=(io.BytesIO(jpeg), "road.jpg")))
    url = "/api/tables/" + r.location.rsplit("/", 1)[1]
    table = client.get(url).get_json()
    assert table.get("road_grid") and [t["code"] for t in table["view"]["road"]] != truth
    table = client.post(url + "/road/again", json={"shape": "rows"}).get_json()
    assert [tile["code"] for tile in table["view"]["road"]] == truth
    assert not table.get("road_grid") and table["road_editable"]
    # a road in rows read as they run: nothing to ask
    r = client.post(
        "/new", data=_stigespill_form(road_photo=(io.BytesIO(jpeg), "road.jpg"), road_shape="rows")
    )
    assert not client.get("/api/tables/" + r.location.rsplit("/", 1)[1]).get_json().get("road_grid")


def test_cards_a_road_photo_read_by_elimination_are_shown_to_check(client, monkeypatch):
    import io

    import webui.pipeline_adapter as adapter
    from webui.speech import pretty

    _, truth = _road_scene()
    check = f"{truth[3]} read by elimination: that card looks most like 5H"
    monkeypatch.setattr(
        adapter,
        "read_road",
        lambda image, shape: {
            "road": truth,
            "goal": "JK",
            "problems": [],
            "ok": True,
            "checks": [check],
        },
    )
    jpeg, _ = _road_scene()
    r = client.post("/new", data=_stigespill_form(road_photo=(io.BytesIO(jpeg), "road.jpg")))
    table = client.get("/api/tables/" + r.location.rsplit("/", 1)[1]).get_json()
    assert [tile["code"] for tile in table["view"]["road"]] == truth
    assert table["notice"]["check"] == check.replace(truth[3], pretty(truth[3])).replace(
        "5H", "5♥"
    )  # as the board shows the cards
    # A road typed in the form is the user's own: nothing to check.
    r = client.post(
        "/new", data=_stigespill_form(road=" ".join(truth), road_photo=(io.BytesIO(jpeg), "r.jpg"))
    )
    assert client.get("/api/tables/" + r.location.rsplit("/", 1)[1]).get_json()["notice"] is None


def test_a_road_photo_is_read_the_way_the_user_says_its_rows_run(client, monkeypatch):
    import io

    import webui.pipeline_adapter as adapter

    _, truth = _road_scene()
    shapes = []

    def read_road(image, shape):
        shapes.append(shape)
        return {"road": truth, "goal": "JK", "problems": [], "ok": True, "checks": []}

    monkeypatch.setattr(adapter, "read_road", read_road)
    jpeg, _ = _road_scene()
    for given, read_as in ((None, "auto"), ("auto", "auto"), ("rows", "rows")):
        extra = {} if given is None else {"road_shape": given}
        form = _stigespill_form(road_photo=(io.BytesIO(jpeg), "road.jpg"), **extra)
        assert client.post("/new", data=form).status_code == 302
        assert shapes[-1] == read_as
    # The page offers the choice; an unknown one is a set-up error, and no table is made.
    assert 'name="road_shape"' in client.get("/new?game=stigespill").get_data(as_text=True)
    before = len(client.get("/api/tables").get_json()["tables"])
    form = _stigespill_form(road_photo=(io.BytesIO(jpeg), "road.jpg"), road_shape="zigzag")
    r = client.post("/new", data=form)
    assert r.status_code == 400 and "unknown road shape" in r.get_data(as_text=True)
    assert len(client.get("/api/tables").get_json()["tables"]) == before


def test_a_road_photo_that_cannot_be_read_says_why_and_makes_no_table(client, monkeypatch):
    import io

    before = len(client.get("/api/tables").get_json()["tables"])
    r = client.post("/new", data=_stigespill_form(road_photo=(io.BytesIO(b"junk"), "road.jpg")))
    assert r.status_code == 400 and "not a picture" in r.get_data(as_text=True)
    r = client.post("/new", data=_stigespill_form(road_photo=(io.BytesIO(b""), "road.jpg")))
    assert r.status_code == 400 and "Road photo: the photo is empty" in r.get_data(as_text=True)
    assert len(client.get("/api/tables").get_json()["tables"]) == before
    # A readable photo of a road with a card missing names the card.
    import webui.pipeline_adapter as adapter

    monkeypatch.setattr(
        adapter,
        "read_road",
        lambda image, shape: {"road": [], "goal": "JK", "problems": ["missing: 10D"], "ok": False},
    )
    jpeg, _ = _road_scene()
    r = client.post("/new", data=_stigespill_form(road_photo=(io.BytesIO(jpeg), "road.jpg")))
    assert r.status_code == 400 and "Road photo: missing: 10♦" in r.get_data(as_text=True)
    assert len(client.get("/api/tables").get_json()["tables"]) == before


def _photo_reads(monkeypatch, road, problems=(), checks=()):
    """Make a road photo read as ``road`` with ``problems`` (none: read right) and the cards
    to ``checks``."""
    import webui.pipeline_adapter as adapter

    reading = {"road": road, "goal": "JK", "problems": list(problems), "ok": not problems}
    monkeypatch.setattr(adapter, "read_road", lambda image, shape: {**reading, "checks": checks})


def test_a_road_photo_read_but_for_a_card_gives_the_road_back_to_put_right(client, monkeypatch):
    """A road photo read but for one card (unread, or misread as another road card) came
    back as an empty road box and no photo: the family typed all 28 cards to start. The form
    comes back with the 27 or 28 cards read, in road order, in the road's box (marked, and a
    line under it says so), so adding or changing the card named starts the game; in nb."""
    _, truth = _road_scene()
    read = truth[:9] + truth[10:]  # the 10th card not read
    _photo_reads(monkeypatch, read, [f"missing: {truth[9]}"])
    jpeg, _ = _road_scene()
    before = len(client.get("/api/tables").get_json()["tables"])
    form = _stigespill_form(road_photo=(io.BytesIO(jpeg), "road.jpg"))
    r = client.post("/new", data=form, headers={"Accept-Language": "nb"})
    page = html.unescape(r.get_data(as_text=True))
    assert r.status_code == 400 and "Bilde av veien: mangler:" in page
    box = re.search(r"<textarea name=\"road\"([^>]*)>([^<]*)</textarea>", page)
    assert box is not None and box[2].split() == read, page
    assert 'aria-invalid="true"' in box[1] and "road-read" in box[1]
    assert 'id="road-read"' in page and "rett opp kortene som er nevnt over" in page
    assert len(client.get("/api/tables").get_json()["tables"]) == before
    # The card added where it lies, the same form starts the game with the road.
    assert '<input type="hidden" name="road_read" value="1">' in page
    fixed = " ".join([*read[:9], truth[9], *read[9:]])
    r = client.post("/new", data=_stigespill_form(road=fixed, road_read="1", deal="app"))
    assert r.status_code == 302
    table = client.get("/api/tables/" + r.location.rsplit("/", 1)[1]).get_json()
    assert [tile["code"] for tile in table["view"]["road"]] == truth
    # still the road on the table, put right on its page before play where the app deals
    assert table["road_editable"]


def test_a_road_read_from_a_photo_in_a_game_the_app_deals_is_put_right_on_the_table(
    client, monkeypatch
):
    """A road photo read with a card to check, at a table where the app deals (the form's
    first choice), showed "Check these cards: KS read by elimination" on the table's page
    and offered no way to put it right: only a new table did. A road read from a photo lies
    on a real table: it is put right on the table's page before the first move, as at a
    table with real cards; the app's own road, or one typed, is not."""
    _, truth = _road_scene()
    read = list(truth)
    read[3], read[6] = truth[6], truth[3]  # two cards read the wrong way round
    check = f"{read[3]} read by elimination: that card looks most like {truth[3]}"
    _photo_reads(monkeypatch, read, checks=[check])
    jpeg, _ = _road_scene()
    form = _stigespill_form(deal="app", road_photo=(io.BytesIO(jpeg), "road.jpg"))
    r = client.post("/new", data=form)
    url = "/api/tables/" + r.location.rsplit("/", 1)[1]
    table = client.get(url).get_json()
    assert table["notice"]["check"] and table.get("road_editable"), table
    r = client.post(url + "/road", json={"road": " ".join(truth)})
    assert r.status_code == 200, r.get_json()
    table = client.get(url).get_json()
    assert [tile["code"] for tile in table["view"]["road"]] == truth
    assert table["notice"] is None  # the card checked is put right
    # the app's road, or one typed, dealt on the phones: nothing laid out to put right
    for typed in ("", " ".join(read)):
        r = client.post("/new", data=_stigespill_form(deal="app", road=typed))
        url = "/api/tables/" + r.location.rsplit("/", 1)[1]
        assert not client.get(url).get_json().get("road_editable")
        assert client.post(url + "/road", json={"road": " ".join(truth)}).status_code == 409


def test_a_road_photos_card_not_read_is_placed_between_the_cards_it_lies_between(client):
    """A road photo with a card unread (painted over) gave back the 27 cards read, but
    nothing said where the missing one lies: the family looked for it on the table. The
    line under the road's box names the two cards it lies between and their places."""
    import cv2
    import numpy as np

    from vision.recognizer import models_present
    from vision.synth import ProceduralDeck, SkipBoDeck, render
    from vision.synth.scene import sample_scene
    from webui.speech import pretty

    if not models_present():
        pytest.skip("no trained models in models/")
    rng = np.random.default_rng([1000, 42])  # _road_scene(42)'s
    scene = render(
        sample_scene(rng, "road", [ProceduralDeck(int(rng.integers(40)))], SkipBoDeck(0))
    )
    road = sorted(
        (lab for lab in scene.labels if lab.role.get("role") == "road" and lab.code != "JK"),
        key=lambda lab: lab.role["position"],
    )
    image = cv2.imdecode(np.frombuffer(scene.jpeg(), np.uint8), cv2.IMREAD_COLOR)
    table = tuple(int(v) for v in image[5, 5])
    cv2.fillConvexPoly(image, np.asarray(road[9].corners, np.int32).reshape(-1, 2), table)
    jpeg = cv2.imencode(".jpg", image)[1].tobytes()
    r = client.post("/new", data=_stigespill_form(road_photo=(io.BytesIO(jpeg), "road.jpg")))
    page = html.unescape(r.get_data(as_text=True))
    assert r.status_code == 400 and f"missing: {pretty(road[9].code)}" in page
    before, after = pretty(road[8].code), pretty(road[10].code)
    said = f"A card seems to be missing between {before} and {after} (places 9 and 10 in the box)."
    assert said in page, page


def test_a_road_photos_card_read_twice_is_named_with_its_two_places(client, monkeypatch):
    """A road photo with a card misread as another road card said "missing: Q♠; doubled:
    Q♣", and the family looked through 28 cards for the two Q♣. The line under the road's
    box names the places the card is read at, in the page's language."""
    from webui.speech import pretty

    _, truth = _road_scene()
    read = list(truth)
    read[24] = truth[16]  # the 25th card read as the 17th
    _photo_reads(monkeypatch, read, [f"missing: {truth[24]}", f"doubled: {truth[16]}"])
    jpeg, _ = _road_scene()
    form = _stigespill_form(road_photo=(io.BytesIO(jpeg), "road.jpg"))
    r = client.post("/new", data=form, headers={"Accept-Language": "nb"})
    page = html.unescape(r.get_data(as_text=True))
    note = re.search(r'<p class="small road-read" id="road-read">(.*?)</p>', page, re.S)
    assert r.status_code == 400 and note is not None, page
    assert f"{pretty(truth[16])} er lest på plass 17, 25: ett av dem er et annet kort." in note[1]
    assert pretty(truth[24]) not in note[1]


def test_a_photo_of_a_few_road_cards_says_how_many_not_twenty_missing(client, monkeypatch):
    """A photo that is not of a road (a Sten row, a corner of the road) was answered with
    20 card codes "missing" and the goal joker not found. It says how many of the 28 road
    cards it saw, and gives back no road to put right."""
    _, truth = _road_scene()
    missing = " ".join(truth[8:])
    _photo_reads(monkeypatch, truth[:8], [f"missing: {missing}", "no goal joker found: …"])
    jpeg, _ = _road_scene()
    r = client.post("/new", data=_stigespill_form(road_photo=(io.BytesIO(jpeg), "road.jpg")))
    page = r.get_data(as_text=True)
    assert r.status_code == 400
    assert "Road photo: no road found: 8 of the 28 road cards (7–K) seen" in page, page
    assert re.search(r'<textarea name="road"[^>]*></textarea>', page)
    assert 'id="road-read"' not in page


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        (
            "en",
            "take the photo again from straight above, closer and in focus, with the whole road",
        ),
        ("nb", "ta bildet på nytt rett ovenfra, nærmere og skarpt, med hele veien i bildet"),
        ("da", "tag billedet igen lige oppefra, tættere på og skarpt, med hele vejen i billedet"),
        ("sv", "ta om bilden rakt ovanifrån, närmare och skarpt, med hela vägen i bilden"),
    ],
)
def test_a_road_photo_with_no_road_found_says_how_to_take_it_again(client, monkeypatch, lang, said):
    """A blurred road photo, or one with no cards, said only "no road found: 1 of the 28 road
    cards (7–K) seen": nothing of why, nor what to do. It says how to take it again."""
    _photo_reads(monkeypatch, [], ["no road found: 1 of the 28 road cards (7–K) seen"])
    jpeg, _ = _road_scene()
    form = _stigespill_form(road_photo=(io.BytesIO(jpeg), "road.jpg"))
    r = client.post("/new", data=form, headers={"Accept-Language": lang})
    error = re.search(r'<p class="alert" id="form-error"[^>]*>(.*?)</p>', r.get_data(as_text=True))
    assert r.status_code == 400 and error is not None
    assert said in html.unescape(error[1]), error[1]


def test_error_pages_speak_the_pages_language_and_lead_back_to_a_form(client):
    client.set_cookie("lang", "nb")
    r = client.get("/no/such/page")
    assert r.status_code == 404 and "Den siden finnes ikke her." in r.get_data(as_text=True)
    assert "Det finnes ikke noe slikt bord" in client.get("/t/nope").get_data(as_text=True)
    # a form's mistake: the form again, as it was filled in, saying what is wrong first
    form = {"game": "sten", "players": "3", "names": "A, B, A", "deal": "table"}
    r = client.post("/new", data=form)
    page = r.get_data(as_text=True)
    assert r.status_code == 400 and 'role="alert"' in page and "trenger et eget navn" in page
    assert 'value="A, B, A"' in page and 'value="table" checked' in page
    assert 'name="game" value="sten"' in page
    # the field it is about is marked, and described by the reason (then by who will play)
    assert page.count('aria-invalid="true"') == 1
    assert 'name="names" aria-invalid="true" aria-describedby="form-error who-plays"' in page
    # a mistake outside a form: the error page, back to the tables
    assert "history.back()" not in client.get("/t/nope").get_data(as_text=True)


def test_a_refused_moves_reason_is_shown_for_a_minute(app, client, make_table):
    import time

    t = make_table("stigespill", deal="table")
    url = f"/api/tables/{t['id']}"
    assert (
        client.post(f"{url}/moves", json={"move": {"kind": "reveal", "card": "5H"}}).status_code
        == 409
    )
    notice = client.get(url).get_json()["notice"]
    assert "no card is being drawn" in notice["error"]
    rt = app.extensions["kortbord.hub"].get(t["id"])
    rt.notice = {**rt.notice, "at": time.time() - 61}
    rt.version += 1  # a new snapshot
    assert client.get(url).get_json()["notice"] is None
    rt.notice = {"check": "the road's 7♠ was read by elimination", "at": time.time() - 600}
    rt.version += 1
    assert client.get(url).get_json()["notice"]["check"]  # cards to check stay until a move


def test_a_refused_move_does_not_hush_the_cards_to_put_back(app, client, make_table, tmp_path):
    import time

    from webui import create_app

    t = make_table("stigespill", deal="table")
    url = f"/api/tables/{t['id']}"
    client.post(
        f"{url}/moves", json={"moves": [{"kind": "draw"}, {"kind": "reveal", "card": "5H"}]}
    )
    check = client.post(f"{url}/undo", json={}).get_json()["notice"]["check"]
    refused = client.post(f"{url}/moves", json={"move": {"kind": "reveal", "card": "5H"}})
    assert refused.status_code == 409
    assert "no card is being drawn" in client.get(url).get_json()["notice"]["error"]
    rt = app.extensions["kortbord.hub"].get(t["id"])
    rt.notice = {**rt.notice, "at": time.time() - 61}
    rt.version += 1  # a new snapshot
    assert client.get(url).get_json()["notice"]["check"] == check  # said again after a minute
    again = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "CAMERA": False})
    assert again.test_client().get(url).get_json()["notice"]["check"] == check  # and kept


def test_a_players_page_offers_a_hand_only_in_games_with_hands(client, make_table):
    pages = {}
    for game, form in (
        ("stigespill", {}),
        ("stigespill", {"variant": "strategy"}),
        ("sten", {}),
        ("sten", {"deal": "table"}),
    ):
        t = make_table(game, **form)
        key = (game, tuple(form.values()))
        pages[key] = client.get(t["players"][0]["url"]).get_data(as_text=True)
    assert 'id="hand"' not in pages[("stigespill", ())]  # classic: only the draw
    assert (
        'id="hand"' in pages[("stigespill", ("strategy",))] and 'id="hand"' in pages[("sten", ())]
    )
    # a hand photo only where the referee does not know the hand: a real Sten table
    shown = [key for key, page in pages.items() if "Photograph your hand" in page]
    assert shown == [("sten", ("table",))]


def test_player_qr_codes_are_offered_only_where_a_phone_can_open_them(client, lan_app):
    t = new_table(client, "sten")
    page = client.get(t["url"]).get_data(as_text=True)  # this computer only
    words = re.sub(r"<[^>]+>", "", page)  # as shown (the command's option kept on its line)
    assert "/qr.svg" not in page and "make run ARGS=--lan" in words
    assert f'href="{t["players"][0]["url"]}"' in page  # the names still open the pages
    host = lan_app.test_client()
    t = new_table(host, "sten")
    assert "/players/0/qr.svg" in host.get(t["url"]).get_data(as_text=True)


def test_a_road_the_camera_cannot_read_is_typed_on_the_table_page(client):
    """A camera Stigespill table waits for its road; where the camera cannot read it (no
    recognizer, an odd layout), the table's page takes it typed, once."""
    from referee.stigespill import ROAD_CARDS

    body = {"game": "stigespill", "players": 2, "deal": "table", "source": "phone"}
    t = client.post("/api/tables", json=body).get_json()
    url = f"/api/tables/{t['id']}"
    assert client.get(url).get_json()["road_pending"]
    road = [c.code for c in ROAD_CARDS][::-1]
    r = client.post(f"{url}/road", json={"road": " ".join(road[:27])})
    assert r.status_code == 400 and "missing" in r.get_json()["error"]
    r = client.post(f"{url}/road", json={"road": "7S XX"}, headers={"Accept-Language": "sv"})
    assert (
        r.status_code == 400 and "okänd kortkod ”XX”: ett vägkort är 7–K" in r.get_json()["error"]
    )
    r = client.post(f"{url}/road", json={"road": " ".join(road)})
    assert r.status_code == 200
    snap = r.get_json()
    assert "road_pending" not in snap and [x["code"] for x in snap["view"]["road"]] == road
    assert snap["moves"] and snap["road_editable"]  # the game is on: the draw is offered
    # typed wrong: typed again before the first move, or read again by the camera
    again = client.post(f"{url}/road", json={"road": " ".join(road[::-1])})
    assert [x["code"] for x in again.get_json()["view"]["road"]] == road[::-1]
    reread = client.post(f"{url}/road/again").get_json()
    assert reread["road_pending"] and not reread["moves"] and "road_editable" not in reread
    assert client.post(f"{url}/moves", json={"moves": [{"kind": "draw"}]}).status_code == 409
    snap = client.post(f"{url}/road", json={"road": " ".join(road)}).get_json()
    assert "road_pending" not in snap and snap["road_editable"]
    moves = [{"kind": "draw"}, {"kind": "reveal", "card": "3H"}]
    snap = client.post(f"{url}/moves", json={"moves": moves}).get_json()
    assert "road_editable" not in snap  # played on: the road stays
    for path, body in (("road", {"road": " ".join(road[::-1])}), ("road/again", {})):
        r = client.post(f"{url}/{path}", json=body, headers={"Accept-Language": "da"})
        assert r.status_code == 409 and "før første træk" in r.get_json()["error"]
    assert [x["code"] for x in client.get(url).get_json()["view"]["road"]] == road


def test_only_a_stigespill_table_with_a_camera_reads_its_road_again(client):
    from referee.stigespill import ROAD_CARDS

    road = " ".join(c.code for c in ROAD_CARDS)
    body = {"game": "stigespill", "players": 2, "deal": "table", "road": road}
    t = client.post("/api/tables", json=body).get_json()
    snap = client.get(f"/api/tables/{t['id']}").get_json()
    assert snap["road_editable"]  # a road typed on the form may be put right too
    assert client.post(f"/api/tables/{t['id']}/road/again").status_code == 409  # no camera
    on_phones = client.post("/api/tables", json={**body, "deal": "app"}).get_json()
    assert "road_editable" not in client.get(f"/api/tables/{on_phones['id']}").get_json()
    t = client.post("/api/tables", json={"game": "sten", "players": 3, "source": "phone"})
    url = f"/api/tables/{t.get_json()['id']}"
    assert "road_editable" not in client.get(url).get_json()
    assert client.post(f"{url}/road/again").status_code == 409
    assert client.post(f"{url}/road", json={"road": road}).status_code == 409


def test_a_road_sent_to_a_game_dealt_on_the_phones_is_refused_as_no_page_offers_it(client):
    """A Stigespill game on the phones (the app deals, no camera) plays the app's road, and
    no page offers to type one; the API took one all the same before the first move. It is
    refused now, saying why; a camera's table dealt on the phones still takes one."""
    from referee.stigespill import ROAD_CARDS

    road = [c.code for c in ROAD_CARDS]
    t = client.post("/api/tables", json={"game": "stigespill", "players": 2}).get_json()
    url = f"/api/tables/{t['id']}"
    before = [x["code"] for x in client.get(url).get_json()["view"]["road"]]
    assert before != road  # the app's road, shuffled
    r = client.post(f"{url}/road", json={"road": " ".join(road)})
    assert r.status_code == 409 and "dealt on the phones" in r.get_json()["error"]
    r = client.post(f"{url}/road", json={"road": " ".join(road)}, headers={"Accept-Language": "nb"})
    assert r.status_code == 409 and "delt ut på telefonene" in r.get_json()["error"]
    assert [x["code"] for x in client.get(url).get_json()["view"]["road"]] == before
    body = {"game": "stigespill", "players": 2, "source": "phone"}  # dealt on the phones
    url = f"/api/tables/{client.post('/api/tables', json=body).get_json()['id']}"
    assert client.get(url).get_json()["road_editable"]
    r = client.post(f"{url}/road", json={"road": " ".join(road)})
    assert r.status_code == 200 and [x["code"] for x in r.get_json()["view"]["road"]] == road


@pytest.mark.parametrize("game", ["sten", "skipbo"])
def test_a_road_sent_to_a_table_of_another_game_is_refused_so(client, make_table, game):
    from referee.stigespill import ROAD_CARDS

    t = make_table(game, source="phone")
    url = f"/api/tables/{t['id']}"
    log = client.get(f"{url}/log").get_json()
    road = " ".join(c.code for c in ROAD_CARDS)
    for path, body in (("road", {"road": road}), ("road/again", {})):
        error = _err(client.post(f"{url}/{path}", json=body), 409)
        assert error == f"only a Stigespill table has a road; this one plays {game}"
    assert client.get(f"{url}/log").get_json() == log


def test_a_table_without_a_camera_is_told_to_type_its_road(client, make_table):
    t = make_table("stigespill", deal="table")
    error = _err(client.post(f"/api/tables/{t['id']}/road/again"), 409)
    assert error == "this table has no camera to read its road: type the road instead"


def test_sten_deals_from_the_chosen_dealer_and_passes_the_deal_on(app, client):
    """The hand counts follow who dealt (the seats after the dealer get the odd cards), and
    the next game is dealt by the next seat."""
    form = {"game": "sten", "players": "3", "names": "Anna, Bo, Cy", "deal": "table"}
    r = client.post("/new", data={**form, "dealer": "1"})
    assert r.status_code == 302
    real = app.extensions["kortbord.hub"].get(r.location.rsplit("/", 1)[1]).rules
    assert real.dealer == 0 and real.deal_sizes() == [17, 18, 17]
    hub = app.extensions["kortbord.hub"]
    r = client.post("/new", data={**form, "deal": "app"})  # the last seat deals by default
    table_id = r.location.rsplit("/", 1)[1]
    assert hub.get(table_id).rules.dealer == 2
    while not hub.get(table_id).rules.is_over(hub.get(table_id).state):
        rt = hub.get(table_id)
        hub.play(table_id, [rt.rules.legal_moves(rt.state)[0].to_json()], source="demo")
    hub.next_game(table_id)
    rules = hub.get(table_id).rules
    assert rules.dealer == 0 and rules.deal_sizes() == [17, 18, 17]  # was [18, 17, 17]
    assert len(hub.get(table_id).state.hands[1]) == 18
    r = client.post("/new", data={**form, "dealer": "4"})
    assert r.status_code == 400 and "dealer" in r.get_data(as_text=True)


def test_a_stigespill_draw_at_a_real_table_is_said_on_the_drawers_phone_too(client):
    """Strategy variant, real cards: the player who drew enters the card on their own phone
    (or the table's page does); the other player's phone has nothing to say."""
    body = {"game": "stigespill", "players": 2, "variant": "strategy", "deal": "table"}
    t = client.post("/api/tables", json=body).get_json()
    url = f"/api/tables/{t['id']}"
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    for _ in range(20):  # the deal: each card on its owner's phone
        snap = client.get(url).get_json()
        if not snap.get("chance"):
            break
        owner = snap["chance"]["seat"]
        mine = client.get(f"/api/p/{tokens[owner]}").get_json()
        _reveal_one_offered(client, tokens[owner], mine)
    on = client.get(url).get_json()["to_move"]
    r = client.post(f"/api/p/{tokens[on]}/moves", json={"move": {"kind": "draw", "seat": on}})
    assert r.status_code == 200
    drawer = client.get(f"/api/p/{tokens[on]}").get_json()
    assert drawer["chance"]["mine"] and any(m["move"]["kind"] == "reveal" for m in drawer["moves"])
    assert drawer["chance"]["question"] == "Which die card did you draw?"  # was "did Player 1"
    other = client.get(f"/api/p/{tokens[1 - on]}").get_json()
    assert not other["chance"]["mine"] and not other["moves"]
    name = t["players"][on]["name"]
    assert other["chance"]["question"] == f"Which die card did {name} draw?"
    table = client.get(url).get_json()
    assert table["chance"]["mine"]  # the table's page may say it too
    assert table["chance"]["question"] == f"Which die card did {name} draw?"
    # what either page offers tells nothing of the hands: every die card not seen is offered
    dealt = [m["card"] for m in client.get(f"{url}/log").get_json()["moves"][:6]]
    hands = {seat: set(dealt[seat::2]) for seat in (0, 1)}
    offers = {
        page: {m["move"]["card"] for m in snap["moves"] if m["move"]["kind"] == "reveal"}
        for page, snap in (("drawer", drawer), ("table", table))
    }
    assert hands[1 - on] <= offers["drawer"] and not hands[on] & offers["drawer"]
    assert hands[0] | hands[1] <= offers["table"] and len(offers["table"]) == 25
    _reveal_one_offered(client, tokens[on], drawer)


def _reveal_one_offered(client, token: str, snap: dict) -> None:
    """Enter the first card a phone offers that the referee takes (one another player holds
    is refused: the phone cannot know)."""
    for m in snap["moves"]:
        if m["move"]["kind"] == "reveal":
            r = client.post(f"/api/p/{token}/moves", json={"move": m["move"]})
            if r.status_code == 200:
                return
            assert r.status_code == 409, r.get_json()
    raise AssertionError("no offered card was taken")


def test_a_real_table_without_a_road_or_camera_may_type_its_road_before_the_first_move(client):
    """Real cards, no camera, no road typed: the app's road is a proposal to lay out, and the
    road the family laid out instead may be typed until the first move."""
    from referee.stigespill import ROAD_CARDS

    body = {"game": "stigespill", "players": 2, "deal": "table"}
    t = client.post("/api/tables", json=body).get_json()
    url = f"/api/tables/{t['id']}"
    snap = client.get(url).get_json()
    assert snap["road_proposed"] and "road_pending" not in snap and snap["moves"]
    road = [c.code for c in ROAD_CARDS]
    r = client.post(f"{url}/road", json={"road": " ".join(road)})
    assert r.status_code == 200 and [x["code"] for x in r.get_json()["view"]["road"]] == road
    assert "road_proposed" not in r.get_json()
    t = client.post("/api/tables", json=body).get_json()
    url = f"/api/tables/{t['id']}"
    r = client.post(
        f"{url}/moves", json={"moves": [{"kind": "draw"}, {"kind": "reveal", "card": "3H"}]}
    )
    assert r.status_code == 200 and "road_proposed" not in r.get_json()
    assert client.post(f"{url}/road", json={"road": " ".join(road)}).status_code == 409
    with_road = {**body, "road": " ".join(road)}
    t = client.post("/api/tables", json=with_road).get_json()
    assert "road_proposed" not in client.get(f"/api/tables/{t['id']}").get_json()


def test_a_skipbo_matchs_next_game_starts_with_the_next_player(app, client):
    import random

    t = client.post(
        "/api/tables", json={"game": "skipbo", "players": 3, "stock": 5, "match_target": 500}
    ).get_json()
    hub = app.extensions["kortbord.hub"]
    assert hub.get(t["id"]).state.turn == 0
    for _ in range(2000):
        rt = hub.get(t["id"])
        if rt.rules.is_over(rt.state):
            break
        rng = random.Random(len(rt.moves))
        move = rt.rules.greedy_move(rt.state, rng) or rt.rules.legal_moves(rt.state)[0]
        hub.play(t["id"], [move.to_json()], source="demo")
    hub.next_game(t["id"])
    rt = hub.get(t["id"])
    assert rt.number == 2 and rt.state.turn == 1 and rt.rules.to_move(rt.state) == 1
    assert len(rt.state.hands[1]) == 5  # the first player's hand is drawn
    match = client.get(f"/api/tables/{t['id']}").get_json()["match"]
    assert len(match["games"]) == 1  # the finished game still counts in the match


def test_a_joker_the_app_draws_is_said_before_the_draw_after_it(client):
    """App-dealt Stigespill: one tap draws; a joker reshuffles and the app draws again. The
    last-move line says both, or the joker would go unseen."""
    t = client.post(
        "/api/tables", json={"game": "stigespill", "players": 2, "names": "Anna, Bo"}
    ).get_json()
    url = f"/api/tables/{t['id']}"
    for _ in range(400):
        snap = client.get(url, headers={"Accept-Language": "nb"}).get_json()
        if snap["over"]:  # a game that ended before the joker came: the next one
            assert client.post(f"{url}/next").status_code == 200
            continue
        if "jokeren" in snap["last"]:
            joker, after = snap["last"].split(". ", 1)
            assert joker.endswith("trekker igjen") and "trakk" in after, snap["last"]
            return
        draw = next(m["move"] for m in snap["moves"] if m["move"]["kind"] == "draw")
        assert client.post(f"{url}/moves", json={"move": draw}).status_code == 200
    pytest.fail("no joker drawn in 400 draws")


@pytest.mark.parametrize(
    ("form", "field"),
    [
        ({"game": "sten", "players": "2", "names": "Anna, Anna"}, "names"),
        ({"game": "sten", "players": "1"}, "players"),
        ({"game": "stigespill", "players": "2", "road": "7S XX"}, "road"),
        ({"game": "stigespill", "players": "1", "colours": "red, red"}, "colours"),
        ({"game": "skipbo", "players": "6", "stock": "30"}, "stock"),
        ({"game": "skipbo", "players": "2", "match_target": "3"}, "match_target"),
        ({"game": "stigespill", "players": "9", "variant": "strategy"}, "players"),
    ],
)
def test_a_refused_form_marks_the_field_its_reason_is_about(client, form, field):
    page = client.post("/new", data=form).get_data(as_text=True)
    assert page.count('aria-invalid="true"') == 1
    assert f'name="{field}" aria-invalid="true"' in page


def test_a_bad_number_in_a_new_table_is_named_as_the_request_wrote_it(client):
    r = client.post("/api/tables", json={"game": "sten", "players": True})
    assert (
        r.status_code == 400 and r.get_json()["error"] == "players must be a whole number, not true"
    )


def test_a_new_table_names_a_field_it_does_not_know(client):
    r = client.post("/api/tables", json={"game": "sten", "players": 3, "player": 4})
    assert r.status_code == 400 and r.get_json()["error"].startswith("unknown field “player”;")
    assert client.get("/api/tables").get_json()["tables"] == []  # nothing made


def test_players_left_unnamed_are_named_in_the_pages_language(client):
    da = {"Accept-Language": "da"}
    t = client.post("/api/tables", json={"game": "sten", "players": 3, "names": "Åse"}, headers=da)
    names = [p["name"] for p in t.get_json()["players"]]
    assert names == ["Åse", "Spiller 2", "Spiller 3"]
    snap = client.get(f"/api/tables/{t.get_json()['id']}", headers=da).get_json()
    import json

    assert "Player" not in json.dumps(snap, ensure_ascii=False)


@pytest.mark.parametrize("game", ["stigespill", "sten", "skipbo"])
def test_a_new_table_of_more_names_than_players_seats_every_name(client, game):
    """The JSON API refused four names for two players ("4 names for 2 players") where the
    page's form raised its players to the names: one set-up made a table by the page and
    was refused by the API. Both seat every name now; more names than any game seats are
    refused."""
    r = client.post("/api/tables", json={"game": game, "players": 2, "names": "Mor, Far, Ida, Jon"})
    assert r.status_code == 201, r.get_json()
    assert [p["name"] for p in r.get_json()["players"]] == ["Mor", "Far", "Ida", "Jon"]
    form = {"game": game, "players": "1", "names": "Mor, Far, Ida"}  # a page sent without script
    r = client.post("/new", data=form)
    assert r.status_code == 302
    table = client.get(f"/api/tables/{r.location.rsplit('/', 1)[1]}").get_json()["table"]
    assert [p["name"] for p in table["players"]] == ["Mor", "Far", "Ida"]
    r = client.post("/api/tables", json={"game": game, "names": ", ".join("ABCDEFGHIJK")})
    assert r.status_code == 400 and r.get_json()["error"] == "11 names for 10 players"


def test_a_camera_address_refused_comes_back_on_the_form_in_the_pages_language(client):
    form = {"game": "sten", "players": "3", "names": "Åse, Bo", "source": "stream"}
    r = client.post(
        "/new",
        data={**form, "stream_url": "ftp://kamera.local/live"},
        headers={"Accept-Language": "da"},
    )
    page = r.get_data(as_text=True)
    assert r.status_code == 400 and 'name="stream_url"' in page and "Åse, Bo" in page
    assert "en netværksstrøm skal have en rtsp://- eller http(s)://-adresse" in page.lower()
    assert 'name="stream_url" aria-invalid="true"' in page
    r = client.post("/api/tables", json={**form, "source": "webcam", "webcam_index": "99"})
    assert r.status_code == 400 and r.get_json()["error"] == "webcam index must be 0–16, not “99”"
    assert client.get("/api/tables").get_json()["tables"] == []


def test_token_colours_in_the_pages_language(client):
    sv = {"Accept-Language": "sv"}
    body = {"game": "stigespill", "players": 2, "colours": "lila, turkos"}
    assert client.post("/api/tables", json=body, headers=sv).status_code == 201
    r = client.post("/api/tables", json={**body, "colours": "brun"}, headers=sv)
    assert r.status_code == 400
    assert r.get_json()["error"] == (
        "okänd färg ”brun”; använd #rrggbb eller en av röd, blå, grön, gul, lila, rosa, turkos, "
        "orange, grå, svart, vit"
    )


def test_a_change_made_on_a_position_the_table_has_left_is_refused(client, make_table):
    """A page sends the position it showed with each change: a tap that arrives twice, or
    after another device moved, is refused (409, its sender alone is told) and never
    becomes another move — on a one-device Skip-Bo table a second copy of a discard was
    once the next player's discard."""
    t = make_table("skipbo", open=True, stock=5)
    url = f"/api/tables/{t['id']}"
    snap = client.get(url).get_json()
    discard = next(m["move"] for m in snap["moves"] if m["move"]["kind"] == "discard")
    body = {"move": discard, "position": snap["position"]}
    first = client.post(f"{url}/moves", json=body)
    assert first.status_code == 200
    again = client.post(f"{url}/moves", json=body, headers={"Accept-Language": "nb"})
    assert _err(again, 409) == (
        "spillet hadde gått videre før trykket ditt kom fram: se på brettet og trykk igjen"
    )
    assert again.get_json()["moved"] is True  # not judged: a page may send it again
    after = client.get(url).get_json()
    assert after["position"] == first.get_json()["position"] != snap["position"]
    assert after["moves_made"] == snap["moves_made"] + 1
    assert after["notice"] is None  # told to its sender only
    # an undo tapped on the position before the discard takes nothing back
    _err(client.post(f"{url}/undo", json={"position": snap["position"]}), 409)
    assert client.get(url).get_json()["moves_made"] == after["moves_made"]
    assert client.post(f"{url}/undo", json={"position": after["position"]}).status_code == 200
    undone = client.get(url).get_json()
    assert undone["moves_made"] == snap["moves_made"] and undone["position"] == snap["position"]
    _err(client.post(f"{url}/redo", json={"position": after["position"]}), 409)
    assert client.post(f"{url}/redo", json={"position": undone["position"]}).status_code == 200
    # a request without a position (the API, the camera) acts on the table as it is
    assert client.post(f"{url}/undo").status_code == 200
    for bad in (5, "x" * 65, ["1.0.0"]):
        _err(client.post(f"{url}/undo", json={"position": bad}), 400)


def test_a_players_change_on_a_position_the_table_has_left_is_refused(client, make_table):
    t = make_table("stigespill", players=2, deal="app")
    url, mine = f"/api/tables/{t['id']}", f"/api/p/{token(t, 0)}"
    seen = client.get(mine).get_json()
    draw = next(m["move"] for m in seen["moves"] if m["move"]["kind"] == "draw")
    # the table's page drew for Anna first; Anna's own tap comes on the position before it
    assert client.post(f"{url}/moves", json={"move": draw}).status_code == 200
    r = client.post(f"{mine}/moves", json={"move": draw, "position": seen["position"]})
    assert "moved on" in _err(r, 409)
    _err(client.post(f"{mine}/draw", json={"position": seen["position"]}), 409)


def test_a_sten_players_phone_shows_the_players_and_who_holds_the_stone(client, make_table):
    """A Sten phone lists the players (cards left, the stone): the board shows neither, and
    the list was drawn on every phone but kept hidden, so no player saw who held the stone
    once the move that gave it was no longer the last."""
    for deal in ("app", "table"):
        t = make_table("sten", players=3, names="Anna, Bo, Cato", deal=deal)
        page = client.get(t["players"][1]["url"]).get_data(as_text=True)
        assert '<ul class="players" id="players">' in page, deal
        assert client.get(f"/api/p/{token(t, 1)}").get_json()["view"]["stone"] is None
    # Skip-Bo's board shows each player's piles and hand: no list beside it
    s = make_table("skipbo", players=3, names="Anna, Bo, Cato")
    assert '<ul class="players" id="players" hidden>' in client.get(
        s["players"][0]["url"]
    ).get_data(as_text=True)


def test_before_7h_at_a_real_sten_table_every_phone_gets_its_hint(client, make_table):
    """Whoever holds 7♥ starts: the first seat's phone alone had a hint ("none of your cards
    fits"), and the phone of the player who held 7♥ none."""
    t = make_table("sten", players=3, names="Anna, Bo, Cato", deal="table")
    hints = [client.get(f"/api/p/{token(t, s)}").get_json().get("hint") for s in range(3)]
    assert all(h and "7♥" in h["text"] for h in hints), hints
    move = {"kind": "lay", "card": "7H", "seat": 1}
    assert client.post(f"/api/p/{token(t, 1)}/moves", json={"move": move}).status_code == 200
    snaps = [client.get(f"/api/p/{token(t, s)}").get_json() for s in range(3)]
    assert [bool(s.get("hint")) for s in snaps] == [s == snaps[0]["to_move"] for s in range(3)]


def test_a_clustered_road_on_a_real_table_is_offered_an_even_order_before_the_first_move(client):
    """A road laid with the face cards bunched (all at the end) gets the referee's layout
    advice on the table's page until the first move: the even order, the same 28 cards, to
    lay out and use, or to leave; an even road, a game on phones and a game begun get none."""
    from referee.stigespill import ROAD_CARDS, layout_advice

    numbers_first = [c.code for c in ROAD_CARDS if not c.is_face] + [
        c.code for c in ROAD_CARDS if c.is_face
    ]
    body = {"game": "stigespill", "players": 2, "deal": "table", "road": " ".join(numbers_first)}
    t = client.post("/api/tables", json=body).get_json()
    url = f"/api/tables/{t['id']}"
    snap = client.get(url).get_json()
    advice = snap["road_advice"]
    said = layout_advice(numbers_first)
    assert advice["road"] == said["proposed_road"]
    assert advice["moved"] == [to for _, _, to in said["moved"]]  # the places of cards to move
    assert sorted(advice["road"]) == sorted(numbers_first)
    assert advice["run"] == 12 and advice["gap"] == 17
    from tests.webui.conftest import token

    assert "road_advice" not in client.get(f"/api/p/{token(t, 0)}").get_json()  # a phone
    # taken: the board shows the even road, and no advice is left
    snap = client.post(f"{url}/road", json={"road": " ".join(advice["road"])}).get_json()
    assert [x["code"] for x in snap["view"]["road"]] == advice["road"]
    assert "road_advice" not in snap and snap["road_editable"]
    # kept: the first move ends the advice
    t = client.post("/api/tables", json=body).get_json()
    url = f"/api/tables/{t['id']}"
    moves = [{"kind": "draw"}, {"kind": "reveal", "card": "3H"}]
    assert "road_advice" not in client.post(f"{url}/moves", json={"moves": moves}).get_json()
    on_phones = client.post("/api/tables", json={**body, "deal": "app"}).get_json()
    assert "road_advice" not in client.get(f"/api/tables/{on_phones['id']}").get_json()


def test_a_recorded_videos_road_gets_no_layout_advice_a_live_cameras_does(app, client):
    """The advice is for a family that just laid its road: a live camera's table gets it
    until the first move; a recorded video's road (the demo's) was laid and played long ago,
    and the advice only flashed for the 2 s before the video's first move."""
    from referee.stigespill import ROAD_CARDS
    from webui import games

    bunched = [c.code for c in ROAD_CARDS if not c.is_face] + [
        c.code for c in ROAD_CARDS if c.is_face
    ]
    form = {"players": 2, "deal": "table", "road": " ".join(bunched)}
    setup = games.parse_setup("stigespill", form)
    hub = app.extensions["kortbord.hub"]
    for source, advised in (("webcam:0", True), ("phone", True), ("video:/family/game", False)):
        t = hub.create(setup, source=source)
        snap = client.get(f"/api/tables/{t['id']}").get_json()
        assert snap["road_editable"] and ("road_advice" in snap) == advised, source

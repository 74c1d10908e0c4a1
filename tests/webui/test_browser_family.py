"""What a family trips over on its first evening, in a real headless Chromium: the language
menu, the new-game form, a match played to its end."""

from __future__ import annotations

import pytest

from tests.webui import test_browser, test_browser_taps
from tests.webui.test_browser import LIVE_MS, PHONE, watch_errors
from webui import games

pytestmark = pytest.mark.browser
chromium, browser = test_browser.chromium, test_browser.browser  # the same fixtures
server = test_browser_taps.server  # a server of this module's own, with no demo table


def test_the_language_menu_closes_on_a_tap_outside_it_or_escape(browser, server):
    """The language menu, opened on a phone, stood over the board (the turn and a third of
    the piles) until its own button was tapped again: a tap on the board or Escape left it
    open. Either closes it now (Escape gives the focus back to its button); a tap inside it
    (its heading) keeps it open."""
    status, t = server.post("/api/tables", {"game": "stigespill", "players": 2})
    assert status == 201
    page = browser.new_page(viewport=PHONE, has_touch=True, is_mobile=True)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("body[data-moves]")
    menu = "document.querySelector('details.langs').open"
    page.tap(".langs summary")
    assert page.evaluate(menu)
    page.tap(".langs-head")  # inside: stays
    assert page.evaluate(menu)
    page.tap("#last")  # the board's last line: no control of its own
    assert not page.evaluate(menu)
    page.tap(".langs summary")
    assert page.evaluate(menu)
    page.keyboard.press("Escape")
    assert not page.evaluate(menu)
    assert page.evaluate("document.activeElement.matches('.langs summary')")
    assert not errors, errors
    page.close()


@pytest.mark.parametrize("game", ["skipbo", "sten", "stigespill"])
def test_the_players_follow_the_names_typed(browser, server, game):
    """Three names typed on a form that said 2 players (Skip-Bo's) were refused ("3 names for
    2 players") after Start, and Sten's "who deals" offered only the first names meanwhile:
    the form asked the same thing twice. Typing more names than players now raises the
    players to the names (the dealer's list follows, its last player the dealer until one is
    chosen); fewer names leave the number as it is (the seats left unnamed are "Player N")."""
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}/new?game={game}")
    page.fill("input[name=players]", "2")
    page.fill("input[name=names]", "Mor, Far, Ida, Jon")
    assert page.input_value("input[name=players]") == "4"
    if game == "sten":  # the dealer is the last player, as the form has it, till one is chosen
        shown = page.locator("#dealer option").all_inner_texts()
        assert shown == ["Mor", "Far", "Ida", "Jon"] and page.input_value("#dealer") == "4"
    page.fill("input[name=names]", "Mor, Far")  # fewer: the players stay four
    assert page.input_value("input[name=players]") == "4"
    if game == "sten":
        page.select_option("#dealer", "2")
    page.fill("input[name=names]", "Mor, Far, Ida, Jon, Eva")
    if game == "sten":
        assert page.input_value("#dealer") == "2"
    page.click("button[type=submit]")
    page.wait_for_selector("body[data-moves]")
    table = server.get(f"/api/tables/{page.url.rsplit('/', 1)[1]}")["table"]
    assert [p["name"] for p in table["players"]] == ["Mor", "Far", "Ida", "Jon", "Eva"]
    # more names than the game seats: the players stop at its most (the server's number), the
    # names counted as the server counts them (a name left empty between two commas is none)
    most = games.PLAYERS[game][1]
    page.goto(f"{server.base}/new?game={game}")
    page.fill("input[name=names]", ", ,".join(f"P{k}" for k in range(most + 1)))
    assert page.input_value("input[name=players]") == str(most)
    assert page.inner_text("#who-plays").startswith(f"{most} players: P0, P1")
    assert not errors, errors
    page.close()


def test_a_match_over_starts_a_new_one_with_the_same_players(browser, server):
    """A Skip-Bo match played to its end offered "New game": a blank form, where the family
    typed again how many they were, their names, the target and every choice. It now offers
    a new match with the same players, on the form filled in as the match was set up (its
    name, players, names, stock, target, deck, draw pile's end, cards, camera)."""
    setup = {"game": "skipbo", "name": "Kitchen", "players": 3, "names": "Mor, Far, Ida"}
    setup |= {"stock": 5, "match_target": 25, "deck": "improvised", "empty_draw": "end"}
    status, t = server.post("/api/tables", {**setup, "open": True, "source": "phone"})
    assert status == 201
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    while True:  # a stalled game scores only the stocks' 5s: the match may take another
        test_browser.greedy_skipbo(server, tokens, t["id"])
        if server.get(f"/api/tables/{t['id']}")["match"]["over"]:
            break
        assert server.post(f"/api/tables/{t['id']}/next", {})[0] == 200
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("#moves a.btn", timeout=LIVE_MS)
    assert page.inner_text("#moves a.btn") == "New match with the same players"
    page.wait_for_selector("#chart svg", state="attached", timeout=LIVE_MS)
    # the match's end is said once on the page (it stood in the match's panel too)
    assert page.get_by_text("Match over: ").count() == 1
    page.click("#moves a.btn")  # (a locator's: a live update may draw the page anew)
    page.wait_for_selector("#new-game")
    typed = page.evaluate(
        "Object.fromEntries([...new FormData(document.getElementById('new-game'))]"
        ".filter(([k, v]) => typeof v === 'string' && v !== ''))"
    )
    assert typed == {**{k: str(v) for k, v in setup.items()}, "deal": "app", "open": "1"} | {
        "source": "phone",
        "webcam_index": "0",
    }
    page.click("button[type=submit]")
    page.wait_for_selector("body[data-moves]")
    new = server.get(f"/api/tables/{page.url.rsplit('/', 1)[1]}")
    assert new["table"]["id"] != t["id"] and new["moves_made"] == 0
    assert [p["name"] for p in new["table"]["players"]] == ["Mor", "Far", "Ida"]
    assert not errors, errors
    page.close()


def play_sten_out(server, table: dict, seed: int) -> dict:
    """Play a Sten table's game to its end through the players' pages (a card laid where one
    fits, now and then "Sten"); return the table's snapshot."""
    import random

    rng = random.Random(seed)
    tokens = [p["url"].rsplit("/", 1)[1] for p in table["players"]]
    for _ in range(3000):
        snap = server.get(f"/api/tables/{table['id']}")
        if snap["over"]:
            return snap
        mine = server.get(f"/api/p/{tokens[snap['to_move']]}")
        moves = [m["move"] for m in mine["moves"]]
        laid = [m for m in moves if m["kind"] != "sten"]
        pick = rng.choice(laid) if laid and rng.random() > 0.1 else moves[0]
        status, body = server.post(f"/api/p/{tokens[snap['to_move']]}/moves", {"move": pick})
        assert status == 200, body
    raise AssertionError("the game did not end")


def test_a_sten_evenings_games_are_listed_on_the_table_and_the_phones(browser, server):
    """Three games of Sten in, the table's page said "Game 4" and nothing of the games
    before: who won, who lost with the stone. The pages list each finished game, newest
    first, and count the wins and the stones lost, in the page's language."""
    status, t = server.post("/api/tables", {"game": "sten", "players": 3, "names": "Mor, Far, Ida"})
    assert status == 201
    names = ["Mor", "Far", "Ida"]
    lines = []
    for number, seed in ((1, 3), (2, 4)):
        snap = play_sten_out(server, t, seed)
        (result,) = [r for r in snap["record"] if r["number"] == number]
        loser = result["loser"]
        said = f"{names[result['winners'][0]]} won game {number} · " + (
            "nobody lost" if loser is None else f"{names[loser]} lost with the stone"
        )
        lines.insert(0, said)
        assert server.post(f"/api/tables/{t['id']}/next", {})[0] == 200
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("#record li")
    assert page.locator("#record li").all_inner_texts() == lines
    assert page.inner_text("#record-panel h2").lower() == "games so far"
    wins = page.locator("#record p").first.inner_text()
    assert wins.startswith("Wins: ") and "\u00a0×" in wins  # "Anna 2 ×1", on one line
    phone = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": "nb"})
    errors += watch_errors(phone)
    phone.goto(f"{server.base}{t['players'][0]['url']}")
    phone.wait_for_selector("#record li")
    assert phone.locator("#record li").first.inner_text().startswith(lines[0].split(" won")[0])
    assert " vant spill 2 · " in phone.locator("#record li").first.inner_text()
    assert not errors, errors
    page.close()
    phone.close()


def test_a_long_evenings_earlier_games_fold_away(browser, server):
    """Games so far listed every game a table had played: the demo, which replays its game
    for as long as the app runs, grew a line a minute and a half. The newest five are
    listed; the earlier ones fold away, counted, and open with a tap."""
    status, t = server.post("/api/tables", {"game": "sten", "players": 2, "names": "Mor, Far"})
    assert status == 201
    for seed in range(7):
        play_sten_out(server, t, seed)
        assert server.post(f"/api/tables/{t['id']}/next", {})[0] == 200
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("#record li")
    shown = page.locator("#record > ul > li")
    assert [text.split(" · ")[0][-1] for text in shown.all_inner_texts()] == list("76543")
    assert page.inner_text("#record details summary") == "Earlier games (2)"
    assert not page.locator("#record details li").first.is_visible()
    page.click("#record details summary")
    assert page.locator("#record details li").all_inner_texts()[-1].split(" · ")[0][-1] == "1"
    assert not errors, errors
    page.close()

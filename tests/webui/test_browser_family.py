"""What a family trips over on its first evening, in a real headless Chromium: the language
menu, the new-game form, a match played to its end."""

from __future__ import annotations

import pytest

from tests.webui import test_browser, test_browser_taps
from tests.webui.test_browser import PHONE, watch_errors

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
    assert not errors, errors
    page.close()

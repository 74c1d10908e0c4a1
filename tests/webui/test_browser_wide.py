"""The pages as a family sees them on a laptop (1440×900, 1280×720) or a tablet (768×1024),
in a real headless Chromium: the browser and demo server of ``test_browser.py``."""

from __future__ import annotations

import pytest

from tests.webui import test_browser as tb

pytestmark = pytest.mark.browser
chromium, browser, server = tb.chromium, tb.browser, tb.server  # this module's own instances

LAPTOP = {"width": 1440, "height": 900}
SMALL_LAPTOP = {"width": 1280, "height": 720}
TABLET = {"width": 768, "height": 1024}

SIX = "Mamma, Pappa, Åse-Marie, Kristoffer, Ingrid, Bestefar"

# Each Skip-Bo seat's place on the board: its left and top edge, and how far anything in it
# reaches past its right edge.
SKIPBO_SEATS_JS = """() => [...document.querySelectorAll('.sb-player')].map((s) => {
  const r = s.getBoundingClientRect();
  const rights = [...s.querySelectorAll('*')].map((e) => e.getBoundingClientRect().right);
  const past = Math.max(...rights);
  return [Math.round(r.left), Math.round(r.top), past - r.right];
})"""


@pytest.mark.parametrize(
    "viewport", [LAPTOP, SMALL_LAPTOP, TABLET], ids=["1440x900", "1280x720", "768x1024"]
)
def test_a_skipbo_board_of_six_seats_them_two_a_line_on_a_laptop_or_tablet(
    browser, server, viewport
):
    """A Skip-Bo table of six players drew each seat on a line of its own, its stock and four
    discard piles in the left third of a board 745 px wide: the board stood 1170 px tall, so
    on a 900 px laptop only three seats showed. Where the board has room the seats stand two
    a line, each seat's piles inside it, and the board (1440x900: 684 px) fits the screen."""
    status, t = server.post("/api/tables", {"game": "skipbo", "players": 6, "names": SIX})
    assert status == 201
    page = browser.new_page(viewport=viewport)
    errors = tb.watch_errors(page)
    for url in (t["url"], t["players"][0]["url"]):  # the table's page and a player's own
        page.goto(f"{server.base}{url}", wait_until="domcontentloaded")
        page.wait_for_selector(".sb-player")
        seats = page.evaluate(SKIPBO_SEATS_JS)
        assert len(seats) == 6, seats
        assert len({left for left, _, _ in seats}) == 2, seats  # two seats a line
        assert len({top for _, top, _ in seats}) == 3, seats
        assert all(past <= 0.5 for _, _, past in seats), seats
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    board = page.evaluate("document.querySelector('.board-panel').getBoundingClientRect().height")
    assert board <= viewport["height"], board
    tb.shot(page, f"skipbo-six-{viewport['width']}")
    page.close()
    assert not errors, errors

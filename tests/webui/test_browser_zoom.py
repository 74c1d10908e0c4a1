"""The pages as grandparents read them: a browser zoomed 150-200 % or a phone's text set larger,
in a real headless Chromium (the browser and demo server of ``test_browser.py``).

A browser's zoom is a narrower page in CSS pixels, each drawn larger: a 1366×768 laptop zoomed
200 % lays the page out 683×384, as a viewport of that size at a device scale of 2 does. A larger
text size (Chrome's or Firefox's font size; a phone's large text where it reaches the page) is
the root's font size: ``Page.setFontSizes`` sets that setting as the browser's own menu does."""

from __future__ import annotations

import itertools

import pytest

from tests.webui import test_browser as tb

pytestmark = pytest.mark.browser
chromium, browser, server = tb.chromium, tb.browser, tb.server  # this module's own instances

SIX = "Bestemor Kari, Bestefar Ola, Mamma Sofie, Pappa Henrik, Tante Ingrid, Onkel Jonas"
FOUR = "Bestemor Kari, Bestefar Ola, Tante Ingrid, Onkel Jonas"


def zoomed_page(browser, viewport: dict, zoom: float):
    """A page on a screen of ``viewport`` with the browser zoomed by ``zoom`` (1.5 = 150 %)."""
    size = {"width": round(viewport["width"] / zoom), "height": round(viewport["height"] / zoom)}
    return browser.new_page(viewport=size, device_scale_factor=zoom)


def large_text_page(browser, text_px: int, viewport: dict = tb.PHONE):
    """A page whose browser's text size is ``text_px`` (16 as it comes)."""
    page = browser.new_page(viewport=viewport)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Page.setFontSizes", {"fontSizes": {"standard": text_px, "fixed": text_px}})
    return page


def new_table(server, **body) -> dict:
    status, t = server.post("/api/tables", body)
    assert status == 201, t
    return t


# The font size in px of the first element each selector finds.
FONT_PX_JS = """(selectors) => selectors.map((s) =>
  parseFloat(getComputedStyle(document.querySelector(s)).fontSize))"""


def test_every_line_grows_with_the_browsers_text_size(browser, server):
    """With the text size set to 26 px (160 %) the headings grew and the rest kept 16 px, the
    body's own size: the turn, the hint, each seat's name and the list of moves as small as
    before beside headings twice their size. Each grows with the text size now."""
    t = new_table(server, game="skipbo", players=4, names=FOUR)
    page = large_text_page(browser, 26)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['players'][0]['url']}", wait_until="domcontentloaded")
    page.wait_for_selector("#hand .card")
    lines = ["body", "#turn-chip", ".sb-who", ".all-moves summary", ".live-head p"]
    sizes = page.evaluate(FONT_PX_JS, lines)
    assert all(px >= 0.75 * 26 for px in sizes), dict(zip(lines, sizes, strict=True))
    tb.shot(page, "zoom-skipbo-phone-text-160")
    page.close()
    assert not errors, errors


# The boxes of the pile labels on the Skip-Bo board's building line, their text's.
LABELS_JS = """() => [...document.querySelectorAll('.sb-build .pile-label')].map((l) => {
  const range = document.createRange();
  range.selectNodeContents(l);
  const r = range.getBoundingClientRect();
  return [r.left, r.right];
})"""


def test_skipbo_pile_labels_do_not_run_into_each_other_with_large_text(browser, server):
    """On a phone with its text at 160 % the labels under the building piles kept one
    line, as they do at the usual size, and ran over each other ("NEXT:NEXT:NEXT: 1DRAW PILE"):
    their one line was decided by the screen's width in px. A label wider than its pile takes
    two lines under it now, clear of the next."""
    t = new_table(server, game="skipbo", players=4, names=FOUR)
    page = large_text_page(browser, 26)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
    page.wait_for_selector(".sb-build .pile-label")
    labels = page.evaluate(LABELS_JS)
    assert len(labels) == 5, labels
    assert all(a[1] <= b[0] for a, b in itertools.pairwise(labels)), labels
    assert page.evaluate("document.documentElement.scrollWidth") <= tb.PHONE["width"]
    page.close()
    assert not errors, errors


# How many lines the table's name takes in its heading, and how wide it stands.
HEADING_JS = """() => {
  const name = document.querySelector('.table-title > span:last-child');
  const lines = new Set([...name.getClientRects()].map((r) => Math.round(r.top)));
  const range = document.createRange();
  range.selectNodeContents(name);
  const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
  return {lines: Math.max(lines.size, tops.size),
          width: range.getBoundingClientRect().width,
          heading: document.querySelector('.table-title').getBoundingClientRect().width};
}"""


@pytest.mark.parametrize(
    ("text_px", "zoom", "most"), [(26, 1, 6), (16, 1.3, 5)], ids=["text 160%", "zoom 130%"]
)
def test_a_tables_heading_runs_under_its_badge_on_a_phone(browser, server, text_px, zoom, most):
    """Six names in a phone's heading stood in a column beside the game's badge, two thirds of
    its width: eleven lines with the text at 160 %, six at 130 % zoom, the board under them
    off the first screen. The names run on under the badge, the heading's whole width (six
    lines, five)."""
    t = new_table(server, game="skipbo", players=6, names=SIX)
    page = zoomed_page(browser, tb.PHONE, zoom) if zoom != 1 else large_text_page(browser, text_px)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
    page.wait_for_selector(".sb-player")
    heading = page.evaluate(HEADING_JS)
    assert heading["lines"] <= most, heading
    assert heading["width"] >= 0.9 * heading["heading"], heading
    tb.shot(page, f"zoom-skipbo-six-heading-{text_px}-{zoom}")
    page.close()
    assert not errors, errors


def test_the_game_tabs_fit_a_phone_zoomed_160(browser, server):
    """A phone zoomed 160 % (Chrome's page zoom on Android: the page 244 px wide) put the new
    game form's last tab, Skip-Bo, off the screen's edge and the page scrolled sideways. The
    tab that does not fit takes a line of its own now."""
    page = zoomed_page(browser, tb.PHONE, 1.6)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}/new?game=skipbo")
    width = page.evaluate("document.documentElement.clientWidth")
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    for tab in page.locator(".tab").all():
        box = tab.bounding_box()
        assert box is not None and box["x"] + box["width"] <= width, (tab.inner_text(), box)
    tb.shot(page, "zoom-new-game-244")
    page.close()
    assert not errors, errors


@pytest.mark.parametrize(("viewport", "zoom"), [({"width": 1366, "height": 768}, 2)])
def test_the_top_bar_scrolls_away_on_a_laptop_zoomed_200(browser, server, viewport, zoom):
    """A 1366×768 laptop zoomed 200 % (the page 683×384) kept the top bar on top as the page
    scrolled: 53 px, a seventh of the screen, over the board and its buttons. On a screen that
    short the bar scrolls away with the page; at 100 % it stays."""
    t = new_table(server, game="stigespill", players=3, names="Bestemor Kari, Bestefar Ola, Ingrid")
    for z, stays in ((zoom, False), (1, True)):
        page = zoomed_page(browser, viewport, z)
        errors = tb.watch_errors(page)
        page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
        page.wait_for_selector(".road")
        page.evaluate("window.scrollTo(0, 300)")
        bottom = page.evaluate("document.querySelector('.topbar').getBoundingClientRect().bottom")
        assert (bottom > 0) == stays, (z, bottom)
        page.close()
        assert not errors, errors


HD_LAPTOP = {"width": 1366, "height": 768}
SMALL_LAPTOP = {"width": 1280, "height": 720}

# The top and bottom of the first element a selector finds that shows.
SPAN_JS = """(s) => {
  const e = [...document.querySelectorAll(s)].find((x) => x.getClientRects().length);
  if (!e) return null;
  const r = e.getBoundingClientRect();
  return [r.top, r.bottom];
}"""
# The "Next game" buttons that show: their ids and where each ends.
NEXT_GAME_JS = """() => [...document.querySelectorAll('button')]
  .filter((b) => b.textContent === 'Next game' && b.getClientRects().length)
  .map((b) => [b.id, b.getBoundingClientRect().bottom])"""


@pytest.mark.parametrize(
    ("viewport", "zoom"),
    [(HD_LAPTOP, 1.5), (HD_LAPTOP, 2), (HD_LAPTOP, 1), (SMALL_LAPTOP, 1)],
    ids=["1366x768@150", "1366x768@200", "1366x768", "1280x720"],
)
def test_stigespills_draw_is_on_a_zoomed_laptops_first_screen(browser, server, viewport, zoom):
    """A 1366×768 laptop zoomed 150 % (911×512) or 200 % (683×384): Stigespill's road fills
    the board's width and "Draw a die card", under it by the die pile, stood 760-900 px down,
    off every screen that showed the road. On so short a window the die pile and its draw
    stand above the road; on a laptop at 100 % under it, as before."""
    t = new_table(server, game="stigespill", players=3, names="Bestemor Kari, Bestefar Ola, Ingrid")
    page = zoomed_page(browser, viewport, zoom)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
    page.wait_for_selector(".pile-do button")
    draw = page.evaluate(SPAN_JS, ".pile-do button")
    road = page.evaluate(SPAN_JS, ".road-wrap")
    height = page.evaluate("innerHeight")
    assert page.inner_text(".pile-do button") == "Draw a die card"
    assert draw[1] <= height, (draw, height)
    assert (draw[1] <= road[0]) == (zoom > 1), (draw, road)  # above the road only when zoomed
    tb.shot(page, f"zoom-stigespill-draw-{viewport['width']}-{zoom}")
    page.click(".pile-do button")
    page.wait_for_function("document.body.dataset.moves > 0", timeout=tb.LIVE_MS)
    page.close()
    assert not errors, errors


@pytest.mark.parametrize(
    ("viewport", "zoom"), [(HD_LAPTOP, 2), (HD_LAPTOP, 1)], ids=["1366x768@200", "1366x768"]
)
def test_skipbos_next_game_is_on_a_zoomed_laptops_first_screen(browser, server, viewport, zoom):
    """At a Skip-Bo game's end on a 1366×768 laptop zoomed 200 % (683×384, one column) "Next
    game" stood under the board, 720 px down: off every screen that showed the board. It
    stands under the winner there too; at 100 % once, beside the board, as before."""
    t = new_table(server, game="skipbo", players=2, names="Bestemor Kari, Bestefar Ola", stock=5)
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    tb.greedy_skipbo(server, tokens, t["id"])
    page = zoomed_page(browser, viewport, zoom)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
    page.wait_for_selector("#next-game")
    shown = page.evaluate(NEXT_GAME_JS)
    height = page.evaluate("innerHeight")
    first = [name for name, bottom in shown if bottom <= height]  # on the first screen
    assert first == (["next-game"] if zoom == 1 else ["next-game-top"]), (shown, height)
    tb.shot(page, f"zoom-skipbo-next-game-{viewport['width']}-{zoom}")
    page.click(f"#{first[0]}")
    page.wait_for_function(
        "document.getElementById('game-no').textContent.endsWith('2')", timeout=tb.LIVE_MS
    )
    assert not page.locator("#next-game-top").count()
    page.close()
    assert not errors, errors


# Each pile count shown on a card: its box, its card's and its card's number's (a count hidden,
# as a seat's stock's on a phone, left out).
BADGES_JS = """() => [...document.querySelectorAll('.card .badge')]
  .filter((b) => b.getClientRects().length).map((b) => {
  const card = b.closest('.card'), rank = card.querySelector('.rank');
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };
  return { count: b.textContent, badge: box(b), card: box(card),
           border: parseFloat(getComputedStyle(card).borderTopWidth),
           rank: rank && rank.textContent ? box(rank) : null };
})"""


def overlap(a: list[float], b: list[float]) -> bool:
    """Whether two boxes (left, top, right, bottom) share more than a pixel's edge."""
    return min(a[2], b[2]) - max(a[0], b[0]) > 0.5 and min(a[3], b[3]) - max(a[1], b[1]) > 0.5


def play_to_a_building_pile(server, t: dict) -> None:
    """Play a Skip-Bo table's turns (a play where there is one, else a discard) until a card
    stands on a building pile."""
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    for _ in range(60):
        seat = server.get(f"/api/tables/{t['id']}")["to_move"]
        moves = [m["move"] for m in server.get(f"/api/p/{tokens[seat]}")["moves"]]
        plays = [m for m in moves if m["kind"] == "play"]
        move = (plays or [m for m in moves if m["kind"] in ("discard", "end_turn")] or moves)[0]
        status, answer = server.post(f"/api/p/{tokens[seat]}/moves", {"move": move})
        assert status == 200, answer
        if plays:
            return
    raise AssertionError("no card was played in 60 moves")


@pytest.mark.parametrize("text_px", [26, 16], ids=["text 160%", "text 100%"])
def test_a_piles_count_leaves_its_cards_number_in_sight_with_large_text(browser, server, text_px):
    """With the text at 160 % the cards stay 54×76 px and the count on a pile's corner (a
    Skip-Bo building pile's, a Stigespill discard pile's) grew down over the card's number: 36
    px of it, "5" and "♠" half hidden. The count rises with the text now, off the number, and
    the piles' row makes room for it above them; at the usual size it stands where it stood
    (7 px above the card's top)."""
    skipbo = new_table(server, game="skipbo", players=2, names="Anna, Bo", stock=12)
    play_to_a_building_pile(server, skipbo)
    stige = new_table(server, game="stigespill", players=3, names="Anna, Bo, Cy")
    status, answer = server.post(f"/api/tables/{stige['id']}/moves", {"move": {"kind": "draw"}})
    assert status == 200, answer
    for game, t in ("skipbo", skipbo), ("stigespill", stige):
        page = large_text_page(browser, text_px)
        errors = tb.watch_errors(page)
        page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
        page.wait_for_selector(".card .badge")
        badges = page.evaluate(BADGES_JS)
        numbered = [b for b in badges if b["rank"]]
        assert numbered, badges  # a pile with a card on it, and its count
        for b in badges:
            if text_px == 16:  # as it stood
                assert b["badge"][1] == pytest.approx(b["card"][1] + b["border"] - 7, abs=0.5), b
            assert not (b["rank"] and overlap(b["badge"], b["rank"])), b
        assert page.evaluate("document.documentElement.scrollWidth") <= tb.PHONE["width"]
        if text_px == 26:
            centre = "document.querySelector('.card .badge').scrollIntoView({block: 'center'})"
            page.evaluate(centre)
            page.screenshot(path=str(tb.ARTIFACTS / f"zoom-{game}-pile-count-text-160.png"))
        page.close()
        assert not errors, errors


# The elements that stand past the screen's right edge: each one's parent's class, its tag and
# class, its right edge and the start of its text.
PAST_EDGE_JS = """() => [...document.querySelectorAll('body *')]
  .filter((e) => e.getClientRects().length && e.getBoundingClientRect().right > innerWidth + 0.5)
  .map((e) => [e.parentElement.className, `${e.tagName.toLowerCase()}.${e.className}`,
               Math.round(e.getBoundingClientRect().right), e.textContent.slice(0, 30)])"""


@pytest.mark.parametrize("game", ["stigespill", "sten", "skipbo"])
def test_a_table_fits_a_phone_with_its_text_at_200(browser, server, game):
    """A phone (390×844) with its text at 200 % (32 px): Stigespill's table page was 452 px
    wide and scrolled sideways, its legend ("▲ ladder up ▼ snake down") one line past the
    edge; every game's table page 412 px, its players' codes two a line with "Bestefar Ola"
    past it. The legend takes two lines where one cannot hold it, the codes one a line: each
    page fits the screen."""
    t = new_table(server, game=game, players=3, names="Bestemor Kari, Bestefar Ola, Ingrid")
    page = large_text_page(browser, 32)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
    page.wait_for_selector(".board-panel .card")
    past = page.evaluate(PAST_EDGE_JS)
    width = page.evaluate("document.documentElement.scrollWidth")
    page.screenshot(path=str(tb.ARTIFACTS / f"zoom-{game}-phone-text-200.png"), full_page=True)
    assert width <= page.evaluate("innerWidth"), (width, past)
    page.close()
    assert not errors, errors


# Each word of the turn's text, and how many lines it stands on.
TURN_WORDS_JS = """() => {
  const chip = document.getElementById('turn-chip'), words = [];
  const walker = document.createTreeWalker(chip, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    for (const m of n.data.matchAll(/\\S+/g)) {
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      words.push([m[0], new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size]);
    }
  }
  const box = (id) => document.getElementById(id).getBoundingClientRect().toJSON();
  return {words, chip: box('turn-chip'), game: box('game-no'), screen: innerWidth};
}"""


@pytest.mark.parametrize("game", ["stigespill", "skipbo"])
def test_a_phones_turn_breaks_a_name_between_its_words_with_its_text_at_200(browser, server, game):
    """A phone (390×844) with its text at 200 % (32 px): the table page's turn, beside the
    game's number, left the name 138 px, and "Bestemor" (173 px) broke inside: "Bestem" /
    "or Kari's turn". There the turn takes the line under the game's number, and each word
    of it stands on one line; with the text as it comes it stays beside the number."""
    t = new_table(server, game=game, players=3, names="Bestemor Kari, Bestefar Ola, Ingrid")
    for text_px, beside in ((32, False), (16, True)):
        page = large_text_page(browser, text_px)
        errors = tb.watch_errors(page)
        page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
        page.wait_for_function(
            "document.getElementById('turn-chip').textContent.startsWith('Bestemor Kari')",
            timeout=tb.LIVE_MS,
        )
        seen = page.evaluate(TURN_WORDS_JS)
        tb.shot(page, f"zoom-{game}-turn-{text_px}px")
        assert [w for w, _ in seen["words"]] == ["Bestemor", "Kari's", "turn"], seen
        assert all(lines == 1 for _, lines in seen["words"]), seen
        assert (seen["chip"]["top"] < seen["game"]["bottom"]) == beside, seen
        assert seen["chip"]["right"] <= seen["screen"], seen
        page.close()
        assert not errors, errors

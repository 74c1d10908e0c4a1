"""The pages as a family sees them on a laptop (1440×900, 1366×768, 1280×720) or a tablet
(768×1024), in a real headless Chromium: the browser and demo server of ``test_browser.py``,
the taps' helpers of ``test_browser_taps.py``."""

from __future__ import annotations

import itertools

import pytest

from tests.webui import test_browser as tb
from tests.webui import test_browser_taps as taps
from tests.webui.server import Server

pytestmark = pytest.mark.browser
chromium, browser, server = tb.chromium, tb.browser, tb.server  # this module's own instances

LAPTOP = {"width": 1440, "height": 900}
SMALL_LAPTOP = {"width": 1280, "height": 720}
HD_LAPTOP = {"width": 1366, "height": 768}
TABLET = {"width": 768, "height": 1024}
TABLET_WIDE = {"width": 1024, "height": 768}

SIX = "Mamma, Pappa, Åse-Marie, Kristoffer, Ingrid, Bestefar"
EIGHT = f"{SIX}, Solveig, Oddbjørn"


def table_page(
    browser, server, body: dict, viewport: dict, seat: int | None = None, lang: str = "en"
):
    """Make a table of ``body``; open its page, or seat ``seat``'s own, in ``lang``:
    ``(page, errors)``."""
    status, t = server.post("/api/tables", body)
    assert status == 201
    page = browser.new_page(viewport=viewport, extra_http_headers={"Accept-Language": lang})
    errors = tb.watch_errors(page)
    url = t["url"] if seat is None else t["players"][seat]["url"]
    page.goto(f"{server.base}{url}", wait_until="domcontentloaded")
    return page, errors


def skipbo_boards(page, server, players: int, names: str = EIGHT, over: bool = False, **options):
    """Make a Skip-Bo table of ``players`` (the first of ``names``; eight as teams of two), with
    ``options`` for its form, its game played to the end where ``over``; open its page on
    ``page``, then its first player's own, yielding as each has drawn its seats."""
    names = ", ".join(names.split(", ")[:players])
    body = {"game": "skipbo", "players": players, "names": names, "teams": players == 8, **options}
    status, t = server.post("/api/tables", body)
    assert status == 201
    if over:
        tokens = [seat["url"].rsplit("/", 1)[1] for seat in t["players"]]
        tb.greedy_skipbo(server, tokens, t["id"])
    for url in (t["url"], t["players"][0]["url"]):
        page.goto(f"{server.base}{url}", wait_until="domcontentloaded")
        page.wait_for_selector(".sb-player")
        yield url


# Each Skip-Bo seat's place on the board: its left and top edge, and how far anything in it
# reaches past its right or bottom edge: a box, or its text where the box is too narrow for a
# line that does not wrap.
SKIPBO_SEATS_JS = """() => [...document.querySelectorAll('.sb-player')].map((s) => {
  const r = s.getBoundingClientRect();
  const boxes = [...s.querySelectorAll('*')].map((e) => e.getBoundingClientRect());
  const texts = document.createTreeWalker(s, NodeFilter.SHOW_TEXT);
  for (let t = texts.nextNode(); t; t = texts.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(t);
    boxes.push(...range.getClientRects());
  }
  const past = Math.max(...boxes.map((b) => Math.max(b.right - r.right, b.bottom - r.bottom)));
  return [Math.round(r.left), Math.round(r.top), past];
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
    a line, each seat's piles inside it, and the board (1440x900: 684 px) fits the screen. On
    a player's own page on a tablet their seat takes a line, their hand beside its piles, the
    others two a line."""
    page = browser.new_page(viewport=viewport)
    errors = tb.watch_errors(page)
    for url in skipbo_boards(page, server, 6):
        seats = page.evaluate(SKIPBO_SEATS_JS)
        assert len(seats) == 6, seats
        own = url.startswith("/p/") and viewport is TABLET  # the hand in the player's seat
        others = seats[1:] if own else seats
        assert len({left for left, _, _ in others}) == 2, seats  # two seats a line
        assert len({top for _, top, _ in seats}) == (4 if own else 3), seats
        assert all(past <= 0.5 for _, _, past in seats), seats
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    board = page.evaluate("document.querySelector('.board-panel').getBoundingClientRect().height")
    assert board <= viewport["height"], board
    tb.shot(page, f"skipbo-six-{viewport['width']}")
    page.close()
    assert not errors, errors


# A Skip-Bo board's bottom edge, and what each seat says of its stock: the count shown on its
# card or under it.
SKIPBO_FIT_JS = """() => {
  const shown = (e) => e && e.checkVisibility() ? e.textContent.trim() : null;
  return {
    bottom: document.querySelector('.board-panel').getBoundingClientRect().bottom,
    seats_bottom: Math.max(...[...document.querySelectorAll('.sb-player')]
      .map((s) => s.getBoundingClientRect().bottom)),
    stock: [...document.querySelectorAll('.sb-player .pile.stock')].map((p) =>
      [shown(p.querySelector('.card .badge')), shown(p.querySelector('.stock-count'))]),
  };
}"""


@pytest.mark.parametrize(
    ("players", "viewport"),
    [
        *itertools.product([5, 6, 8], [SMALL_LAPTOP, HD_LAPTOP, TABLET_WIDE]),
    ],
    ids=lambda v: f"{v['width']}x{v['height']}" if isinstance(v, dict) else f"{v} seats",
)
def test_a_skipbo_board_of_six_seats_fits_a_short_laptop(browser, server, viewport, players):
    """On a 1280×720 laptop a Skip-Bo board of five or six seats (three lines of two) stood
    past the screen: its last seats 44 px, its last move 93 px (45 px on a 1024×768 tablet
    laid sideways), each seat as tall as its stock card with the count under it; eight seats
    (teams of two, four lines) by 120 px at 1280×720, 72 px at 1366×768 and 138 px at
    1024×768 (the board 784 px tall). The count is on the stock card there, as the draw
    pile's, on a laptop each seat's name stands beside its cards, and on the tablet eight
    seats' stock cards are as large as their discard piles, each hand's count beside them:
    the whole board shows, each seat's piles inside it, and each seat still says its stock's
    count; four seats keep the count under the card."""
    page = browser.new_page(viewport=viewport)
    errors = tb.watch_errors(page)
    stock = {5: "20", 6: "20", 8: "12"}[players]
    for _ in skipbo_boards(page, server, players):
        board = page.evaluate(SKIPBO_FIT_JS)
        assert board["bottom"] <= viewport["height"], board
        assert board["stock"] == [[stock, None]] * players, board
        seats = page.evaluate(SKIPBO_SEATS_JS)
        assert all(past <= 0.5 for _, _, past in seats), seats
    tb.shot(page, f"skipbo-{players}-seats-{viewport['width']}x{viewport['height']}")
    for _ in skipbo_boards(page, server, 4):
        board = page.evaluate(SKIPBO_FIT_JS)
        assert board["bottom"] <= viewport["height"], board
        assert board["stock"] == [[None, "Stock 30"]] * 4, board
    page.close()
    assert not errors, errors


# Names as a family writes them ("Bestemor Kari"): a game's last move, "Tante Ingrid plays 3
# from stock onto building pile 4 (3); Bestemor Kari and Tante Ingrid won", takes two lines.
FAMILY = (
    "Bestemor Kari, Bestefar Ola, Mamma Sofie, Pappa Henrik, Tante Ingrid, Onkel Jonas, "
    "Kusine Maja, Fetter Emil"
)
LONG_FIVE = (
    "Bestemor Åse-Marie, Bestefar Kristoffer, Mamma Ingrid Sofie, Pappa Hans Petter, "
    "Tante Mari-Louise"
)
# How many lines the last move takes.
LAST_MOVE_LINES_JS = """() => {
  const last = document.getElementById('last');
  return Math.round(last.getBoundingClientRect().height
    / parseFloat(getComputedStyle(last).lineHeight));
}"""


@pytest.mark.parametrize(
    ("players", "names"),
    [(5, LONG_FIVE), (6, FAMILY), (8, FAMILY)],
    ids=["5", "6 teams", "8 teams"],
)
@pytest.mark.parametrize("viewport", [SMALL_LAPTOP, HD_LAPTOP], ids=["1280x720", "1366x768"])
def test_a_skipbo_board_at_a_games_end_fits_a_short_laptop(
    browser, server, viewport, players, names
):
    """At a game's end the last move ("…; Bestemor Kari and Tante Ingrid won") takes two lines
    and discard piles stand up to four cards deep: on a 1280×720 laptop a board of five seats
    stood up to 105 px past the screen, of six (teams) 122 px and of eight 332 px, each seat's
    name line above its cards (two lines with its partner's name), the players' names heading
    the page on two lines and the turn on a line of its own. Each seat's name, partner and
    hand stand beside its cards there and the heading wraps beside the turn: the whole board
    shows, each seat's piles inside it."""
    page = browser.new_page(viewport=viewport)
    errors = tb.watch_errors(page)
    options = {"teams": True} if players == 6 else {}
    for _ in skipbo_boards(page, server, players, names, over=True, stock=5, **options):
        assert page.evaluate(LAST_MOVE_LINES_JS) == 2, page.inner_text("#last")
        board = page.evaluate(SKIPBO_FIT_JS)
        assert board["bottom"] <= viewport["height"], board
        seats = page.evaluate(SKIPBO_SEATS_JS)
        assert all(past <= 0.5 for _, _, past in seats), seats
    tb.shot(page, f"skipbo-{players}-seats-end-{viewport['width']}x{viewport['height']}")
    page.close()
    assert not errors, errors


# Eight names as long as a family writes them in full (17 or 18 characters each).
LONG_EIGHT = (
    "Bestemor Åse Lund, Bestefar Ola Berg, Mamma Sofie Dahlby, Pappa Henrik Moene, "
    "Tante Ingrid Holm, Onkel Jonas Stein, Kusine Maja Nilsen, Fetter Emil Hansen"
)
# The last move's lines: those its text takes, those shown; its font's size.
LAST_MOVE_JS = """() => {
  const last = document.getElementById('last'), style = getComputedStyle(last);
  const line = parseFloat(style.lineHeight);
  return { text: Math.round(last.scrollHeight / line), shown: Math.round(last.clientHeight / line),
    px: parseFloat(style.fontSize) };
}"""


def skipbo_ends(page, server, names: str, last: str, discards: list[list[str]] | None = None):
    """Make a Skip-Bo table of eight ``names`` (teams of two), play its game to the end, then
    open its page on ``page``, then its first player's own, each shown the game's end with
    ``last`` (its ``{a}`` and ``{b}`` the winners) as its last move, and each seat's discard
    piles ``discards`` where given, yielding the text shown."""
    body = {"game": "skipbo", "players": 8, "names": names, "teams": True, "stock": 5}
    status, t = server.post("/api/tables", body)
    assert status == 201
    tokens = [seat["url"].rsplit("/", 1)[1] for seat in t["players"]]
    tb.greedy_skipbo(server, tokens, t["id"])
    page.add_init_script(tb.TEST_EVENTS)
    pages = {t["url"]: f"/api/tables/{t['id']}", t["players"][0]["url"]: f"/api/p/{tokens[0]}"}
    for url, api in pages.items():
        page.goto(f"{server.base}{url}", wait_until="domcontentloaded")
        page.wait_for_function("window.testEvents && window.testEvents.heard.snapshot")
        snap = server.get(api)
        a, b = snap["winner_names"]
        snap["last"] = last.format(a=a, b=b)
        for seat in snap["view"]["players"] if discards else ():
            seat["discards"] = discards
        page.evaluate("(s) => window.sendSnapshot(s)", snap)
        page.wait_for_selector(".sb-player")
        yield snap["last"]


# Discard piles as deep as a board shows them (four cards), on every seat: a game's end.
DEEP_DISCARDS = [["SB9", "SB8", "SB7", "SB6"], ["SB5"], [], ["SB12", "SB11"]]


def tab_to(page, selector: str) -> bool:
    """Press Tab from the page's top until ``selector`` has the focus: whether it came."""
    page.evaluate("document.activeElement && document.activeElement.blur()")
    for _ in range(80):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return True
    return False


@pytest.mark.parametrize(
    "viewport",
    [SMALL_LAPTOP, HD_LAPTOP, TABLET_WIDE],
    ids=["1280x720", "1366x768", "1024x768"],
)
def test_a_skipbo_board_of_eight_long_names_fits_a_short_laptop_at_the_games_end(
    browser, server, viewport
):
    """Eight seats named as a family writes them in full ("Bestemor Åse Lund") at a game's end
    whose last move took three lines ("…, which reaches 12 and is set aside; Bestemor Åse Lund
    and Tante Ingrid Holm won"): on a 1280×720 laptop the board stood 14 px past the screen on
    a player's page and 76 px on the table's, its heading of eight names four lines tall (up
    to 34 px at 1366×768); on a 1024×768 tablet laid sideways, discard piles four cards deep,
    330 px on the table's page (its heading seven lines tall) and 190 px on a player's, each
    seat's name, partner and cards on lines of their own. The last move shows two lines
    there, all three under the pointer (or a finger) and under the keyboard's focus (Tab),
    and the table's heading one line, the names on their seats under it: the whole board
    shows, nothing past its seat's edge, its text as large as before."""
    page = browser.new_page(viewport=viewport)
    errors = tb.watch_errors(page)
    last = (
        "{b} plays Skip-Bo from {a}'s stock onto building pile 1, which reaches 12 and is set"
        " aside; {a} and {b} won"
    )  # a sentence the referee says at a game's end
    for said in skipbo_ends(page, server, LONG_EIGHT, last, DEEP_DISCARDS):
        board = page.evaluate(SKIPBO_FIT_JS)
        assert board["bottom"] <= viewport["height"], board
        shown = page.evaluate(LAST_MOVE_JS)
        assert shown["text"] == 3 and shown["shown"] == 2 and shown["px"] >= 16, shown
        assert page.inner_text("#last") == said  # whole, for a screen reader
        shown_names = page.locator(".sb-who > strong").all_inner_texts()
        assert sorted(shown_names) == sorted(LONG_EIGHT.split(", ")), shown_names
        names_px = page.eval_on_selector_all(
            ".sb-who > strong", "(es) => es.map((e) => parseFloat(getComputedStyle(e).fontSize))"
        )
        assert min(names_px) >= 16, names_px
        seats = page.evaluate(SKIPBO_SEATS_JS)
        assert all(past <= 0.5 for _, _, past in seats), seats
        page.hover("#last")
        assert page.evaluate(LAST_MOVE_JS)["shown"] == 3  # whole under the pointer or a finger
        page.mouse.move(0, 0)
        assert page.evaluate(LAST_MOVE_JS)["shown"] == 2
        assert tab_to(page, "#last"), "the last move cannot be reached with Tab"
        assert page.evaluate(LAST_MOVE_JS)["shown"] == 3  # whole under the keyboard's focus
        # said once where it takes the focus, as a paragraph: no name beside its text
        assert page.locator("#last").aria_snapshot() == f"- paragraph: {said}"
        tb.shot(page, f"skipbo-8-long-names-end-focus-{viewport['width']}x{viewport['height']}")
        page.keyboard.press("Shift+Tab")
        assert page.evaluate(LAST_MOVE_JS)["shown"] == 2
    tb.shot(page, f"skipbo-8-long-names-end-{viewport['width']}x{viewport['height']}")
    page.close()
    assert not errors, errors


# Each line the toast shows: its text and its box.
TOAST_LINES_JS = """() => [...document.querySelectorAll('#toast .toast-line')].map((l) => {
  const r = l.getBoundingClientRect();
  return [l.innerText, r.top, r.bottom, r.left, r.right];
})"""


def test_two_things_said_at_once_are_both_read(browser, server):
    """The page had one toast: a tap not taken ("Not made: …") and, when the answer came, the
    card picked meanwhile let go were said one over the other, the first gone before it was
    read. Each is a line of its own now, the later under the earlier, both on the screen."""
    _, token, _, (b, c) = taps.skipbo_turn(server)
    page = browser.new_page(viewport=SMALL_LAPTOP)
    errors = tb.watch_errors(page)
    tb.clock_stopped(page)  # the first line stays however late the answer comes
    page.goto(f"{server.base}/p/{token}")
    page.wait_for_selector(taps.card(b))
    held = taps.hold_moves(page)
    page.click(taps.card(b))
    page.click(".fan.target >> nth=0")  # b discarded: the turn passes
    discard = taps.next_held(page, held)
    page.click(taps.card(c))  # picked while the discard waits
    label = page.evaluate(
        """c => Kortbord.snapshot().moves.find(m => m.move.kind === 'discard'
             && m.move.card === c && m.move.pile === 1).label""",
        c,
    )
    page.click(".fan.target >> nth=1")  # not made: the discard still waits
    page.wait_for_selector("#toast.show.bad")
    discard.continue_()
    tb.settled(page)
    page.wait_for_function("document.body.dataset.moves == 1", timeout=tb.LIVE_MS)
    page.wait_for_function("document.querySelectorAll('#toast .toast-line').length == 2")
    page.wait_for_function("!document.getAnimations().length")  # not while it slides in
    lines = page.evaluate(TOAST_LINES_JS)
    assert [text for text, *_ in lines] == [
        f"Not made: {label}. The tap before it was still waiting for the table's answer:"
        " tap again if you still want it.",
        "The card you picked has no move now, so it is no longer picked.",
    ], lines
    (_, _, bottom0, *_), (_, top1, bottom1, *_) = lines
    assert bottom0 <= top1 and bottom1 <= SMALL_LAPTOP["height"], lines  # one under the other
    assert all(left >= 0 and right <= SMALL_LAPTOP["width"] for *_, left, right in lines), lines
    assert all(right - left <= 640 for *_, left, right in lines), (
        lines
    )  # a line short enough to read
    tb.shot(page, "toast-two-lines")
    page.close()
    assert not errors, errors


# The lines the heading's text ``word`` stands on (the tops of its pieces).
WORD_LINES_JS = """(word) => {
  const h = document.querySelector('h1'), range = document.createRange();
  const walker = document.createTreeWalker(h, NodeFilter.SHOW_TEXT), nodes = [];
  while (walker.nextNode()) nodes.push(walker.currentNode);
  let text = '';
  const at = nodes.map((n) => { const start = text.length; text += n.data; return start; });
  const from = text.indexOf(word), to = from + word.length;
  const place = (i) => {
    let k = at.length - 1;
    while (at[k] > i) k--;
    return [nodes[k], i - at[k]];
  };
  range.setStart(...place(from));
  range.setEnd(...place(to - 1));
  range.setEnd(range.endContainer, range.endOffset + 1);
  const rects = [...range.getClientRects()].filter((r) => r.width);
  return new Set(rects.map((r) => Math.round(r.top))).size;
}"""


@pytest.mark.parametrize("lang", ["en", "nb"])
def test_a_match_page_keeps_the_games_name_on_one_line_on_a_phone(browser, server, lang):
    """On a 320 px phone a Skip-Bo match's page read "Race to 500 · Skip-" / "Bo", its
    heading broken at the game's hyphen; each word of the table's name keeps one line."""
    status, t = server.post("/api/tables", {"game": "skipbo", "players": 2, "match_target": 500})
    assert status == 201
    page = browser.new_page(viewport=tb.NARROW_PHONE)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}/lang/{lang}")
    page.goto(f"{server.base}/matches/{t['id']}")
    assert page.evaluate(WORD_LINES_JS, "Skip-Bo") == 1, page.inner_text("h1")
    assert page.evaluate("document.documentElement.scrollWidth") <= tb.NARROW_PHONE["width"]
    tb.shot(page, f"match-title-320-{lang}")
    page.close()
    assert not errors, errors


# A JavaScript helper for the snippets below: an element's box as [left, top, right, bottom].
BOX_JS = """  const box = (e) => {
    const r = e.getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom];
  };"""


# The match chart's players' labels (text, box), the chart's box and how far right the lines'
# ends (their dots) reach.
CHART_LABELS_JS = (
    "() => {\n"
    + BOX_JS
    + """
  return {
    labels: [...document.querySelectorAll('svg.race text.who')].map((t) => [t.textContent, box(t)]),
    chart: box(document.querySelector('svg.race')),
    ends: Math.max(...[...document.querySelectorAll('svg.race circle')].map((c) => box(c)[2])),
  };
}"""
)


COLOURS = ["#d62828", "#1d4ed8", "#2a9d5c", "#b7791f", "#7c3aed", "#db2777"]


def chart_page(browser, server, viewport: dict, svg: str):
    """Open a page of the app's style with the match chart ``svg`` in a panel of its own:
    ``(page, errors)``."""
    page = browser.new_page(viewport=viewport)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}/matches")
    page.evaluate(
        """svg => { const chart = document.createElement('div');
          chart.className = 'chart'; chart.innerHTML = svg;
          document.querySelector('main section').replaceChildren(chart); }""",
        svg,
    )
    return page, errors


@pytest.mark.parametrize(
    "totals",
    [[410, 400], [480, 490, 470, 495, 485, 475], [0, 415, 0, 0, 0, 0]],
    ids=["two-close", "six-near-the-target", "five-tied"],
)
@pytest.mark.parametrize("viewport", [tb.NARROW_PHONE, LAPTOP], ids=["320", "1440"])
def test_the_match_charts_names_stand_apart_beside_their_lines_ends(
    browser, server, viewport, totals
):
    """The match chart wrote each player's name and points left of their line's end, lifted
    18 px over the next (its text 19 px tall): close totals' labels overlapped, lay over the
    lines ("Cy 240" on Anna's and Bo's), and six near the target stood above the chart, cut
    off. Each label stands right of the lines' ends now, nudged apart from its neighbours
    around its own end's height, the highest total's on top, all inside the chart."""
    from webui.matches import race_svg

    names = SIX.split(", ")[: len(totals)]
    games = [{"totals": [t // 2 for t in totals]}, {"totals": totals}]
    match = {"target": 500, "sides": [[s] for s in range(len(totals))], "games": games}
    page, errors = chart_page(browser, server, viewport, race_svg(names, COLOURS, match))
    drawn = page.evaluate(CHART_LABELS_JS)
    labels = sorted(drawn["labels"], key=lambda label: label[1][1])  # top to bottom
    ranked = sorted(range(len(totals)), key=lambda s: (-totals[s], s))
    assert [text for text, _ in labels] == [f"{names[s]} {totals[s]}" for s in ranked], labels
    for (_, above), (_, below) in itertools.pairwise(labels):
        assert above[3] <= below[1], labels  # one under the other, not over it
    left, top, right, bottom = drawn["chart"]
    for _, (l_left, l_top, l_right, l_bottom) in labels:
        assert l_left >= drawn["ends"], (labels, drawn["ends"])  # clear of the lines
        assert left <= l_left and l_right <= right and top <= l_top and l_bottom <= bottom, drawn
    tb.shot(page, f"match-chart-{len(totals)}-{totals[0]}-{viewport['width']}")
    page.close()
    assert not errors, errors


# The match chart's players' labels (each line's text and box, the label's tooltip), the
# chart's box, how far right the lines' ends reach, and whether each line is what shows at
# its middle (nothing drawn over it).
CHART_LINES_JS = (
    "() => {\n"
    + BOX_JS
    + """
  const svg = document.querySelector('svg.race');
  const shown = (e) => {
    const [l, t, r, b] = box(e);
    const top = document.elementFromPoint((l + r) / 2, (t + b) / 2);
    return top?.closest('text') === e.closest('text');
  };
  return {
    labels: [...svg.querySelectorAll('text.who')].map((t) => ({
      seat: t.dataset.seat,
      lines: [...(t.querySelector('tspan') ? t.querySelectorAll('tspan') : [t])]
        .map((l) => [l.textContent, box(l), shown(l)]),
      box: box(t),
      tip: t.parentElement.querySelector(':scope > title')?.textContent ?? null,
    })),
    chart: box(svg),
    ends: Math.max(...[...svg.querySelectorAll('circle')].map((c) => box(c)[2])),
  };
}"""
)


@pytest.mark.parametrize("totals", [[250, 240], [410, 120]], ids=["close", "apart"])
@pytest.mark.parametrize("viewport", [tb.SMALL_PHONE, SMALL_LAPTOP], ids=["360", "1280"])
def test_the_match_charts_team_labels_show_both_partners(browser, server, viewport, totals):
    """Two teams of long names ("Bestefar Ole & Mormor Kari") had their labels on the match
    chart cut from the end ("Bestefar Ole… 250", "Oddbjørn… 240"): the second partner never
    showed. Each partner has a line of the label now, the team's points on the last, a name
    too long for a line told by its given name, the whole name the label's tooltip; no label
    over another or over the lines, all inside the chart, on a phone and on a laptop."""
    from webui.matches import race_svg

    names = ["Bestefar Ole", "Oddbjørn", "Mormor Kari", "Åse-Marie Bø"]
    games = [{"totals": [t // 2 for t in totals] * 2}, {"totals": totals * 2}]
    match = {"target": 500, "sides": [[0, 2], [1, 3]], "games": games}
    page, errors = chart_page(browser, server, viewport, race_svg(names, COLOURS, match))
    drawn = page.evaluate(CHART_LINES_JS)
    labels = {label["seat"]: label for label in drawn["labels"]}
    texts = {seat: [text for text, _, _ in label["lines"]] for seat, label in labels.items()}
    assert texts == {
        "0": ["Bestefar Ole &", f"Mormor Kari {totals[0]}"],
        "1": ["Oddbjørn &", f"Åse-Marie {totals[1]}"],
    }, texts
    assert labels["0"]["tip"] == f"Bestefar Ole & Mormor Kari {totals[0]}"
    assert labels["1"]["tip"] == f"Oddbjørn & Åse-Marie Bø {totals[1]}"
    left, top, right, bottom = drawn["chart"]
    for label in labels.values():
        for text, (l_left, l_top, l_right, l_bottom), shown in label["lines"]:
            assert shown, (text, drawn)  # nothing drawn over it
            assert l_left >= drawn["ends"], (text, drawn)  # clear of the lines
            assert left <= l_left and l_right <= right and top <= l_top and l_bottom <= bottom
    above, below = sorted((label["box"] for label in labels.values()), key=lambda b: b[1])
    assert above[3] <= below[1], drawn  # one under the other, not over it
    tb.shot(page, f"match-chart-teams-{totals[0]}-{viewport['width']}")
    page.close()
    assert not errors, errors


# Where a table page's board stands, and how its pieces lie: the board's bottom edge; Sten's
# lines a suit and its places' widths; Skip-Bo's seats a line.
BOARD_JS = """() => {
  const tops = (sel) => new Set([...document.querySelectorAll(sel)]
    .map((e) => Math.round(e.getBoundingClientRect().top))).size;
  return {
    bottom: document.querySelector('.board-panel').getBoundingClientRect().bottom,
    sten_lines: [...document.querySelectorAll('.sten-row')].map((r) => new Set(
      [...r.querySelectorAll('.card')].map((c) => Math.round(c.getBoundingClientRect().top))).size),
    sten_narrowest: Math.min(...[...document.querySelectorAll('.sten-row .card')]
      .map((c) => c.getBoundingClientRect().width)),
    seat_lines: tops('.sb-player'),
  };
}"""


@pytest.mark.parametrize("game", ["stigespill", "sten", "skipbo"])
def test_a_tablet_laid_sideways_shows_the_whole_board(browser, server, game):
    """On a 1024×768 tablet laid sideways the board had 612 px of the page's width: a
    Stigespill road took five lines and its die pile stood under the screen (the board 827 px
    tall), Sten's suits two lines each, and four Skip-Bo seats one a line (846 px). The board
    has the larger share now (676 px): the road three lines of ten, a suit a line of places
    44 px wide or more, the seats two a line, the whole board on the screen."""
    players = {"stigespill": 6, "sten": 5, "skipbo": 4}[game]
    names = ", ".join(SIX.split(", ")[:players])
    body = {"game": game, "players": players, "names": names}
    page, errors = table_page(browser, server, body, TABLET_WIDE)
    page.wait_for_selector(".board-panel .card")
    board = page.evaluate(BOARD_JS)
    assert board["bottom"] <= TABLET_WIDE["height"], board
    assert page.evaluate("document.documentElement.scrollWidth") <= TABLET_WIDE["width"]
    if game == "sten":
        assert board["sten_lines"] == [1, 1, 1, 1] and board["sten_narrowest"] >= 44, board
    if game == "skipbo":
        assert board["seat_lines"] == 2, board
    tb.shot(page, f"tablet-{game}-1024")
    page.close()
    assert not errors, errors


# Where a player's page puts its board and its hand's panel (each box's edges).
PLAYER_PAGE_JS = (
    "() => {\n"
    + BOX_JS
    + """
  const board = document.querySelector('.board-panel');
  return { board: box(board), hand: box(document.querySelector('#moves').closest('.panel')) };
}"""
)


@pytest.mark.parametrize(
    "viewport", [LAPTOP, SMALL_LAPTOP, TABLET_WIDE], ids=["1440x900", "1280x720", "1024x768"]
)
@pytest.mark.parametrize("game", ["stigespill", "sten"])
def test_a_players_page_on_a_laptop_shows_the_hand_beside_the_board(
    browser, server, viewport, game
):
    """A player's page on a laptop or a tablet laid sideways was a phone's page made wide: the
    hand's panel across the page (three cards in 920 px) and the board under it, its bottom
    under the screen (a Stigespill road's die pile 1070 px down a 900 px screen). The hand and
    the moves stand beside the board now, as the table page's panels do, the whole board on
    the screen."""
    variant = {"variant": "strategy"} if game == "stigespill" else {}
    names = "Mamma, Pappa, Åse-Marie, Kristoffer, Ingrid"
    body = {"game": game, "players": 5, "names": names, **variant}
    page, errors = table_page(browser, server, body, viewport, seat=0)
    page.wait_for_selector("#hand .card")
    where = page.evaluate(PLAYER_PAGE_JS)
    (b_left, b_top, b_right, b_bottom), (h_left, h_top, _, _) = where["board"], where["hand"]
    assert h_left >= b_right and abs(h_top - b_top) < 1, where  # side by side
    assert b_bottom <= viewport["height"], where
    assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
    assert b_right - b_left >= 664, where  # as the table page's: the road ten cards a line
    tb.shot(page, f"player-{game}-{viewport['width']}")
    page.close()
    assert not errors, errors


# The line on the players' list that holds the stone: the middle of its sign and of its words.
STONE_JS = """() => [...document.querySelectorAll('#players .player')]
  .filter((li) => li.querySelector('.stone'))
  .map((li) => [li.querySelector('.stone'), li.querySelector('.stone + *')].map((e) => {
    const r = e.getBoundingClientRect();
    return Math.round(r.top + r.height / 2);
  }))"""


def test_the_stones_sign_and_its_words_stay_together_beside_a_tablets_board(browser, server):
    """On a 1024 px tablet laid sideways the players' list beside a Sten board is 275 px wide:
    "Kristoffer Ås 10 kort ●" stood on one line and "har steinen" under it, at the left, the
    stone's sign and its words apart. They are one piece now, on one line."""
    names = "Kristoffer Ås, Margrethe Li, Åse-Marie Bø, Sebastian Ek, Bestefar Ola"
    status, t = server.post("/api/tables", {"game": "sten", "players": 5, "names": names})
    assert status == 201
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    for _ in range(200):  # until somebody says "Sten" and takes the stone
        snap = server.get(f"/api/tables/{t['id']}")
        if snap["view"].get("stone") is not None:
            break
        move = server.get(f"/api/p/{tokens[snap['to_move']]}")["moves"][-1]["move"]
        assert server.post(f"/api/p/{tokens[snap['to_move']]}/moves", {"move": move})[0] == 200
    page = browser.new_page(viewport=TABLET_WIDE)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}/lang/nb")
    page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
    page.wait_for_selector("#players .stone")
    (sign, words), *_ = page.evaluate(STONE_JS)
    assert abs(sign - words) <= 2, (sign, words, page.inner_text("#players"))
    tb.shot(page, "sten-stone-1024")
    page.close()
    assert not errors, errors


@pytest.fixture(scope="module")
def lan_server(tmp_path_factory):
    """A server for the home network (``--lan``): the players' pages have QR codes."""
    s = Server(tmp_path_factory.mktemp("lan") / "data", extra=["--lan", "--host", "127.0.0.1"])
    yield s.start()
    s.stop()


def lan_table_page(browser, lan_server, body: dict, viewport: dict):
    """Make a table of ``body`` on the home network's server, its host this browser (the
    players' codes are the host's to show), and open its page: ``(page, errors, table)``."""
    page = browser.new_page(viewport=viewport)
    errors = tb.watch_errors(page)
    page.goto(f"{lan_server.base}/")  # the table made by this browser: its host's page
    t = page.evaluate(
        """async (body) => (await fetch('/api/tables', { method: 'POST', body: JSON.stringify(body),
          headers: { 'Content-Type': 'application/json' } })).json()""",
        body,
    )
    page.goto(f"{lan_server.base}{t['url']}", wait_until="domcontentloaded")
    return page, errors, t


def off_screen(codes: dict, viewport: dict) -> list[dict]:
    """The boxes of ``codes`` (:data:`CODES_JS`) not whole on the first screen."""
    return [
        b
        for b in codes["boxes"]
        if b["top"] < 0
        or b["bottom"] > viewport["height"]
        or b["left"] < 0
        or b["right"] > viewport["width"]
    ]


# Each player's code, the name under it, the table's join code and its own code (for a late
# player), where they stand on the screen (the page unscrolled), and whether the box that
# holds them is open.
CODES_JS = """() => ({
  open: document.querySelector('.join-box').open,
  boxes: [...document.querySelectorAll('.qr-card img, .qr-card > span, .join-code, .join-box img')]
    .filter((e, i, all) => all.indexOf(e) === i).map((e) => {
    const r = e.getBoundingClientRect();
    return { what: e.className || e.alt || e.tagName, text: e.textContent.trim(), top: r.top,
      bottom: r.bottom, left: r.left, right: r.right };
  }),
  scrolled: scrollY,
})"""


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [
        ("sten", 3, {}),
        ("sten", 4, {}),
        ("skipbo", 2, {}),
        ("skipbo", 3, {}),
        ("skipbo", 4, {}),
        ("stigespill", 2, {"variant": "strategy"}),
        ("stigespill", 4, {"variant": "strategy"}),
    ],
    ids=["sten-3", "sten-4", "skipbo-2", "skipbo-3", "skipbo-4", "stige-2", "stige-4"],
)
@pytest.mark.parametrize("viewport", [HD_LAPTOP, SMALL_LAPTOP], ids=["1366x768", "1280x720"])
def test_the_players_codes_and_the_tables_own_stand_on_a_laptops_first_screen(
    browser, lan_server, viewport, game, players, options
):
    """A table played on the players' own phones opens with their pages' QR codes, for each
    player to scan: on a 1366×768 laptop they stood in the Players panel at the foot of the
    side column, three or four codes in two lines, their lower edge, the names under them and
    the join code 46-465 px under the screen, while the board's column stood empty under the
    board. The codes stand in a panel of their own under the next move, four in a line: each
    code, its player's name and the join code on the first screen (Skip-Bo's too when the
    table's page may lay the first stock card, where the box stayed folded). The table's own
    code, for a player who comes late, stood under the join code, 140 px tall: its lower edge
    18-45 px under a 1366×768 screen and 66-75 px under a 1280×720 one (Sten of 3 or 4
    players, Skip-Bo of 2 to 4), 39-48 px under a 1280×720 one in Stigespill's strategy game.
    It stands beside the join code, as large as the players' codes, on the first screen, and
    no link points to it there."""
    names = "Mamma, Pappa, Åse-Marie, Kristoffer"
    body = {"game": game, "players": players, "names": ", ".join(names.split(", ")[:players])}
    body |= options
    page, errors, _ = lan_table_page(browser, lan_server, body, viewport)
    page.wait_for_selector(".qr-card img")
    codes = page.evaluate(CODES_JS)
    assert codes["open"] and codes["scrolled"] == 0, codes
    assert len(codes["boxes"]) == 2 * players + 2, codes  # with the table's own code
    assert not off_screen(codes, viewport), codes
    # and each code drawn (a code loaded lazily stood as an empty frame in a screenshot)
    page.wait_for_function(
        "[...document.querySelectorAll('.join-box img')].every((i) => i.complete && i.naturalWidth)"
    )
    assert page.locator(".join-jump").is_hidden()  # no link to what is in sight
    tb.shot(page, f"players-codes-{game}-{players}-{viewport['width']}")
    page.close()
    assert not errors, errors


@pytest.mark.parametrize("viewport", [HD_LAPTOP, SMALL_LAPTOP], ids=["1366x768", "1280x720"])
def test_a_hyphenated_name_under_its_players_code_keeps_its_line(browser, lan_server, viewport):
    """On a laptop the players' own pages' codes stand four in a line, each name under its
    code wrapping inside the code's width: "Anne-Kristine" stood broken at its hyphen,
    "Anne-" over "Kristine" (the one place left where a name did). Each name keeps its
    line, inside its code's box."""
    from tests.webui.test_browser_phone import BROKEN_NAMES_JS, HYPHENATED

    body = {"game": "skipbo", "players": 4, "names": ", ".join(HYPHENATED)}
    page, errors, _ = lan_table_page(browser, lan_server, body, viewport)
    page.wait_for_selector(".join-box[open] .qr-card img")
    assert page.evaluate(BROKEN_NAMES_JS, HYPHENATED) == []
    past = page.evaluate(
        """() => [...document.querySelectorAll('.qr-card')].filter((card) => {
          const box = card.getBoundingClientRect();
          const name = card.querySelector('span').getBoundingClientRect();
          return name.left < box.left || name.right > box.right;
        }).map((card) => card.textContent.trim())"""
    )
    assert past == [], past
    page.wait_for_function(
        "[...document.querySelectorAll('.join-box img')].every((i) => i.complete && i.naturalWidth)"
    )
    tb.shot(page, f"hyphenated-codes-{viewport['width']}")
    page.close()
    assert not errors, errors


@pytest.mark.parametrize("lang", ["en", "nb", "da", "sv"])
def test_the_command_that_lets_the_phones_in_keeps_its_options_whole(browser, server, lang):
    """Without --lan the players' pages say how to let the phones in ("make run ARGS=--lan,
    or kortbord run --lan"): on a laptop, in nb and sv, the line broke inside the command at
    its hyphens, "ARGS=--" over "lan". Each option keeps its line."""
    from tests.webui.test_browser_phone import BROKEN_NAMES_JS

    body = {"game": "sten", "players": 3, "names": "Mormor, Jens, Ida"}
    page, errors = table_page(browser, server, body, HD_LAPTOP, lang=lang)
    page.wait_for_selector("#board")
    page.evaluate("() => { document.querySelector('.join-box').open = true; }")
    assert "ARGS=--lan" in page.inner_text(".join-box")
    assert page.evaluate(BROKEN_NAMES_JS, ["ARGS=--lan", "--lan)"]) == []
    tb.shot(page, f"lan-command-whole-{lang}")
    page.close()
    assert not errors, errors


# Each player's code on a laptop: its width, and where its dot stands against its name's
# first line (the dot's middle, the line's top and bottom).
QR_CARDS_JS = """() => [...document.querySelectorAll('.qr-card')].map((card) => {
  const text = document.createTreeWalker(card.querySelector(':scope > span'), NodeFilter.SHOW_TEXT);
  const words = document.createRange();
  words.selectNodeContents(text.nextNode());
  const line = words.getClientRects()[0];
  const dot = card.querySelector('.dot').getBoundingClientRect();
  const code = card.querySelector('img').getBoundingClientRect().width;
  return { name: card.textContent.trim(), code, dot: (dot.top + dot.bottom) / 2,
           line: [line.top, line.bottom] };
})"""


@pytest.mark.parametrize(
    "names",
    ["Bestefar Oddbjørn, Mormor, Anne-Kristine, Bo", "Mamma, Pappa, Åse-Marie, Kristoffer"],
    ids=["long", "hyphenated"],
)
def test_the_players_codes_are_one_size_each_dot_beside_its_name(browser, lan_server, names):
    """On a laptop a player's name too long to stand beside its colour's dot under their
    code ("Anne-Kristine", kept whole) put the dot on a line of its own above it, and its
    wider card drew its code larger (100 px beside 88). Every code is one size now, and each
    dot stands on its name's first line. Each still reads (OpenCV's QR reader, as drawn on a
    laptop's screen of one pixel per CSS pixel: 76 px here) as its player's page."""
    import cv2
    import numpy as np

    body = {"game": "sten", "players": 4, "names": names}
    page, errors, _ = lan_table_page(browser, lan_server, body, HD_LAPTOP)
    page.wait_for_selector(".join-box[open] .qr-card img")
    page.wait_for_function("() => document.fonts.status === 'loaded'")
    cards = page.evaluate(QR_CARDS_JS)
    assert len({round(c["code"]) for c in cards}) == 1 and cards[0]["code"] >= 72, cards
    assert all(c["line"][0] <= c["dot"] <= c["line"][1] for c in cards), cards
    for card in page.locator(".qr-card").all():
        drawn = np.frombuffer(card.locator("img").screenshot(), np.uint8)
        grey = cv2.imdecode(drawn, cv2.IMREAD_GRAYSCALE)
        quiet = cv2.copyMakeBorder(grey, 16, 16, 16, 16, cv2.BORDER_CONSTANT, value=255)
        read, _, _ = cv2.QRCodeDetector().detectAndDecode(quiet)
        assert read.endswith(card.get_attribute("href")), (read, card.get_attribute("href"))
    codes = page.evaluate(CODES_JS)
    assert not off_screen(codes, HD_LAPTOP), codes
    tb.shot(page, f"players-codes-one-size-{names.split(',')[0].split()[0].lower()}")
    page.close()
    assert not errors, errors


@pytest.mark.parametrize(
    ("game", "players", "options"),
    [
        ("stigespill", 2, {}),
        ("stigespill", 4, {"variant": "strategy"}),
        ("sten", 4, {}),
        ("skipbo", 4, {}),
    ],
    ids=["stige-2", "stige-strategy-4", "sten-4", "skipbo-4"],
)
@pytest.mark.parametrize("viewport", [HD_LAPTOP, SMALL_LAPTOP], ids=["1366x768", "1280x720"])
def test_a_phone_camera_tables_codes_stand_above_its_camera_on_a_laptops_first_screen(
    browser, lan_server, viewport, game, players, options
):
    """A table whose camera is a phone, on a laptop: the camera's panel came first in the
    column beside the board, the next move under it, so the players' codes, the join code and
    the table's own QR code stood 738-1560 px down the page (a phone's upright picture in the
    panel: the lower end), the link to them at the screen's foot or under it; and where the
    game is played on the table's page (Stigespill's classic game, Sten) their box was folded,
    though the phone that looks at the table joins with the table's code ("No picture yet: on
    the phone that looks down at the table, open this page"). Before the first move their
    box stands open above the camera's panel, on the first screen, with an upright picture
    from the phone too."""
    import cv2
    import numpy as np

    names = "Mamma, Pappa, Åse-Marie, Kristoffer"
    body = {"game": game, "players": players, "names": ", ".join(names.split(", ")[:players])}
    body |= {"source": "phone", **options}
    page, errors, t = lan_table_page(browser, lan_server, body, viewport)
    page.wait_for_selector(".join-box[open] .qr-card img")
    upright = cv2.imencode(".jpg", np.full((640, 480, 3), 90, np.uint8))[1].tobytes()
    status = page.evaluate(
        """async ([url, bytes]) => (await fetch(url, { method: 'POST',
          body: new Uint8Array(bytes), headers: { 'Content-Type': 'image/jpeg' } })).status""",
        [f"/api/tables/{t['id']}/frame?still=1", list(upright)],
    )
    assert status == 200
    page.wait_for_function(
        "document.getElementById('camera').naturalHeight > 0", timeout=tb.CAMERA_MS
    )
    page.wait_for_function(
        "[...document.querySelectorAll('.join-box img')].every((i) => i.complete && i.naturalWidth)"
    )
    codes = page.evaluate(CODES_JS)
    assert codes["open"] and codes["scrolled"] == 0, codes
    assert len(codes["boxes"]) == 2 * players + 2, codes  # with the table's own code
    assert not off_screen(codes, viewport), codes
    assert page.locator(".join-jump").is_hidden()  # no link to what is in sight
    tb.shot(page, f"phone-camera-codes-{game}-{players}-{viewport['width']}")
    page.close()
    assert not errors, errors


def test_a_phone_camera_table_on_one_device_offers_its_join_code_above_the_camera(
    browser, lan_server
):
    """A table on one device whose camera is a phone kept its join code in the Players panel
    at the foot of a 1280×720 laptop's page, 1000 px down, while its camera's panel said to
    open the page on that phone. Its box, "Show this table on another device", stands above
    the camera's panel on the first screen, folded (the device's next move stays in sight);
    a tap on it shows the join code and the table's QR code there."""
    body = {"game": "sten", "players": 2, "names": "Mamma, Pappa", "source": "phone", "open": True}
    page, errors, _ = lan_table_page(browser, lan_server, body, SMALL_LAPTOP)
    page.wait_for_selector("#play-panel button")
    summary = page.locator(".join-box summary")
    assert summary.inner_text() == "Show this table on another device"
    assert summary.bounding_box()["y"] + summary.bounding_box()["height"] <= 720
    assert page.evaluate("document.getElementById('play-panel').getBoundingClientRect().top") < 720
    summary.click()
    page.wait_for_function(
        "[...document.querySelectorAll('.join-box img')].every((i) => i.complete && i.naturalWidth)"
    )
    codes = page.evaluate(CODES_JS)
    assert len(codes["boxes"]) == 2 and codes["scrolled"] == 0, codes  # the code and its QR
    assert not off_screen(codes, SMALL_LAPTOP), codes
    tb.shot(page, "phone-camera-one-device-1280")
    page.close()
    assert not errors, errors


@pytest.mark.parametrize(
    ("players", "viewport", "fits"),
    [(2, SMALL_LAPTOP, False), (4, HD_LAPTOP, True), (4, SMALL_LAPTOP, False)],
    ids=["2-1280x720", "4-1366x768", "4-1280x720"],
)
def test_the_tables_own_code_is_one_tap_away_where_it_cannot_stand_on_the_first_screen(
    browser, lan_server, viewport, players, fits
):
    """A real-cards Stigespill strategy game opens with the road to lay out, to type, and the
    deal to enter on the phones above the players' codes: the table's join code and its own
    QR code cannot stand on a laptop's first screen (the code's lower edge stood 163-220 px
    under it, 95-154 px beside the join code), and nothing there said they were below. A
    link under the box's heading, on the first screen, says so; a tap on it brings them
    whole into sight. The players' own codes, for the deal they enter on their phones, stood
    under the screen too, their names' lower edge 767-778 px down (the next move's lines a
    paragraph's margin apart): they stand whole on the first screen. (Two players' join code
    and QR code reach 767 px down at 1366×768: on its first screen, no link. Four players'
    too, since the players' codes are drawn the narrowest card's size: the link, placed before
    the codes were sized, was shown for a code on the screen.)"""
    names = "Mamma, Pappa, Åse-Marie, Kristoffer"
    body = {"game": "stigespill", "players": players, "variant": "strategy", "deal": "table"}
    body["names"] = ", ".join(names.split(", ")[:players])
    page, errors, _ = lan_table_page(browser, lan_server, body, viewport)
    page.wait_for_selector(".join-box[open] .qr-card")
    page.wait_for_function(  # each code drawn at its size
        "[...document.querySelectorAll('.qr-card img')].every((i) => i.complete && i.naturalWidth)"
    )
    codes = page.evaluate(CODES_JS)
    players_codes = codes["boxes"][: 2 * players]  # each code and its name, in the page's order
    assert len(players_codes) == 2 * players and codes["scrolled"] == 0, codes
    assert not off_screen({"boxes": players_codes}, viewport), codes
    qr = page.locator(".join-box img:not(.qr-card img)")
    jump = page.locator(".join-jump a")
    if fits:
        page.wait_for_load_state("load")
        assert qr.bounding_box()["y"] + qr.bounding_box()["height"] <= viewport["height"]
        assert not jump.is_visible()
        page.close()
        assert not errors, errors
        return
    assert qr.bounding_box()["y"] + qr.bounding_box()["height"] > viewport["height"]
    jump.wait_for(state="visible", timeout=tb.LIVE_MS)
    box = jump.bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"], box
    tb.shot(page, f"join-jump-{players}-{viewport['width']}")
    jump.click()
    page.wait_for_function(  # the table's code and its join code, whole
        """() => [...document.querySelectorAll('.join-box img:not(.qr-card img), .join-code')]
          .map((e) => e.getBoundingClientRect())
          .every((r) => r.top >= 0 && r.bottom <= innerHeight)""",
        timeout=tb.LIVE_MS,
    )
    assert "#" not in page.url  # a reload opens the page at its top
    page.close()
    assert not errors, errors


def test_a_skipbo_table_whose_first_stock_card_may_be_laid_opens_the_players_pages(browser, server):
    """A Skip-Bo table played on the players' phones opens with their pages' codes, but not
    when the first player's stock card showed a 1 or a Skip-Bo card: the table's page may lay
    that card (every stock's top card is in sight), so it seemed to need no phone, and the box
    stayed folded while the hands were only on the phones. It opens before the first move."""
    for _ in range(100):  # a deal whose first stock card fits a building pile (one in five)
        status, t = server.post("/api/tables", {"game": "skipbo", "players": 2})
        assert status == 201
        if server.get(f"/api/tables/{t['id']}")["moves"]:
            break
    else:
        raise AssertionError("no deal began with a stock card to lay")
    page = browser.new_page(viewport=HD_LAPTOP)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
    page.wait_for_selector("#moves .all-moves")  # the stock card's moves, on the table's page
    assert page.locator(".join-box[open] .qr-card").count() == 2
    page.close()
    assert not errors, errors

"""The pages on the narrowest phones (320, 360 and 390 px wide), in a real headless Chromium.

The browser and the demo server are those of ``test_browser.py`` (this module's own
instances); screenshots go to ``tests/artifacts/`` as there.
"""

from __future__ import annotations

import itertools
import random

import pytest

from tests.webui import test_browser as tb
from tests.webui.conftest import zone_map

pytestmark = pytest.mark.browser

chromium = tb.chromium
browser = tb.browser
server = tb.server

WIDTHS = [tb.NARROW_PHONE, tb.SMALL_PHONE, tb.PHONE]
WIDTH_IDS = ["320", "360", "390"]


# Where each Sten row's places stand: the lines they take, and the board panel's corners.
STEN_LINES_JS = """() => ({
  lines: [...document.querySelectorAll('.sten-row')].map((r) => new Set(
    [...r.querySelectorAll('.card')].map((c) => Math.round(c.getBoundingClientRect().top))).size),
  radius: parseFloat(getComputedStyle(document.querySelector('.board-panel')).borderTopLeftRadius),
})"""


@pytest.mark.parametrize("viewport", [*WIDTHS, tb.LAPTOP], ids=[*WIDTH_IDS, "laptop"])
def test_a_narrow_phones_sten_places_are_a_finger_wide(browser, server, viewport):
    """On a 320 px phone a Sten board's places were 38 px each way (the board 283 px wide
    for seven places a line), under the 44 px a finger needs (43.6 px on a 360 or 390 px
    phone, their taps 44). Below 360 px the board now takes the phone's whole width (its
    panel's and the page's margins): each place takes a tap 44 px wide and tall, its card
    readable (12 px or more), the board on one screen and nothing past the page's edge. A
    laptop's board keeps a line a suit, a wider phone's its margins."""
    _, tokens, seat = tb.sten_to_lay_on(server)
    page = browser.new_page(viewport=viewport, has_touch=True, is_mobile=True)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}/p/{tokens[seat]}")  # the board whose places lay a card
    page.wait_for_selector(".sten-grid button.card.playable")
    board = page.evaluate(tb.STEN_BOARD_JS)
    assert board["smallest_text"] >= 12, board
    assert board["past_board"] <= 0 and board["past_page"] <= 0, board
    assert board["board_height"] <= board["screen"], board
    places = page.evaluate(tb.TAP_BOX_JS, ".sten-grid button.card")
    small = [box for box in places if min(box[1:]) < 44]
    assert places and not small, places
    lines = page.evaluate(STEN_LINES_JS)
    assert set(lines["lines"]) == {1 if viewport is tb.LAPTOP else 2}, lines
    if viewport["width"] >= 360:  # the panel's rounded corners: it stands inside the page
        assert lines["radius"] > 0, lines
    name = {320: "320", 360: "360", 390: "390"}.get(viewport["width"], "laptop")
    tb.shot(page, f"sten-board-{name}")
    page.close()
    assert not errors, errors


# The Skip-Bo building piles and the draw pile as drawn: each card's left and right edge, in
# order, and each label's.
SKIPBO_BUILD_JS = """() => [...document.querySelectorAll('.sb-build > .pile')].map((p) => {
  const c = p.querySelector('.card').getBoundingClientRect();
  const l = p.querySelector('.pile-label').getBoundingClientRect();
  return { card: [c.left, c.right], label: [l.left, l.right], text: p.textContent.trim() };
})"""


def skipbo_phone_table(browser, server, viewport: dict, lang: str):
    """Open a new two-player Skip-Bo table's page on a phone in ``lang``: (page, its errors)."""
    status, t = server.post("/api/tables", {"game": "skipbo", "players": 2, "names": "Anna, Bo"})
    assert status == 201
    language = {"Accept-Language": lang}
    page = browser.new_page(
        viewport=viewport, has_touch=True, is_mobile=True, extra_http_headers=language
    )
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    return page, errors


@pytest.mark.parametrize("lang", ["en", "nb", "da", "sv"])
@pytest.mark.parametrize("viewport", WIDTHS, ids=WIDTH_IDS)
def test_skipbo_building_piles_stand_apart_on_a_narrow_phone(browser, server, viewport, lang):
    """On a 320 px phone in Norwegian ("NESTE: 1", "TREKKBUNKE") the four building piles
    stood on each other, 3 px over the next each and no gap between them: their columns
    were narrower than a card, and the cards did not narrow with them. They narrow now,
    apart from each other and from the draw pile, in every language and width."""
    page, errors = skipbo_phone_table(browser, server, viewport, lang)
    page.wait_for_selector(".sb-build .pile-label")
    piles = page.evaluate(SKIPBO_BUILD_JS)
    assert len(piles) == 5, piles
    for a, b in itertools.pairwise(piles):
        assert a["card"][1] + 2 <= b["card"][0], piles  # a gap between the cards
        assert a["label"][1] <= b["label"][0], piles
    assert all(p["card"][1] - p["card"][0] >= 36 for p in piles), piles  # still a card
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    if lang == "nb":
        tb.shot(page, f"skipbo-building-piles-nb-{viewport['width']}")
    page.close()
    assert not errors, errors


# The Skip-Bo board's pile labels as drawn: the lines each takes, its font size and its left and
# right edge, the building piles' in order (their counts made 12 first: the widest, "NESTE: 12"),
# then each stock's, with its seat's discard piles' left edge.
SKIPBO_LABELS_JS = """() => {
  for (const l of document.querySelectorAll('.sb-build .pile-label')) {
    l.textContent = l.textContent.replace(/\\d+/, '12');
  }
  const drawn = (l) => {
    const range = document.createRange();
    range.selectNodeContents(l);
    const boxes = [...range.getClientRects()];
    return { text: l.textContent, lines: new Set(boxes.map((b) => Math.round(b.top))).size,
             px: parseFloat(getComputedStyle(l).fontSize),
             left: Math.min(...boxes.map((b) => b.left)),
             right: Math.max(...boxes.map((b) => b.right)) };
  };
  return {
    build: [...document.querySelectorAll('.sb-build > .pile > .pile-label')].map(drawn),
    stocks: [...document.querySelectorAll('.sb-row')].map((row) => ({
      ...drawn(row.querySelector('.stock-count')),
      discards: row.querySelector('.sb-discards').getBoundingClientRect().left })),
  };
}"""


@pytest.mark.parametrize("lang", ["en", "nb", "da", "sv"])
@pytest.mark.parametrize("viewport", [tb.SMALL_PHONE, tb.PHONE], ids=["360", "390"])
def test_skipbo_pile_labels_keep_one_line_on_a_phone(browser, server, viewport, lang):
    """At 360 px in Norwegian and Danish the building piles' labels broke over two lines
    ("NESTE:" over "1"), and each stock's ("GRUNNBUNKE" over "30"). Each keeps one line now,
    at the widest count ("NESTE: 12"), in every language, its words 12 px still, apart from
    the next label and from its seat's discard piles."""
    page, errors = skipbo_phone_table(browser, server, viewport, lang)
    page.wait_for_selector(".sb-row .stock-count")
    labels = page.evaluate(SKIPBO_LABELS_JS)
    drawn = labels["build"] + labels["stocks"]
    assert len(labels["build"]) == 5 and len(labels["stocks"]) == 2, labels
    assert all(label["lines"] == 1 and label["px"] >= 12 for label in drawn), labels
    for a, b in itertools.pairwise(labels["build"]):
        assert a["right"] + 2 <= b["left"], labels
    assert all(s["right"] <= s["discards"] for s in labels["stocks"]), labels
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    if lang in ("nb", "da"):
        tb.shot(page, f"skipbo-pile-labels-{lang}-{viewport['width']}")
    page.close()
    assert not errors, errors


# The camera panel's picture as drawn, with its frame, and the markers' dots and touch targets:
# their size on the screen, and how much of the picture a dot covers.
ZONES_DRAWN_JS = """() => {
  const frame = document.getElementById('cam-frame');
  const picture = document.getElementById('camera').getBoundingClientRect();
  const dots = [...document.querySelectorAll('#zones .zone-dot')];
  const scale = picture.width / 640;
  return {
    frame: frame.getBoundingClientRect().width,
    picture: picture.width,
    scrolls: frame.scrollWidth > frame.clientWidth,
    past_page: document.documentElement.scrollWidth - window.innerWidth,
    dot_px: Math.max(...dots.map((d) => d.getBoundingClientRect().width)),
    dot_of_picture: Math.max(...dots.map((d) => d.getBoundingClientRect().width / scale)),
    targets: Math.min(...[...document.querySelectorAll('#zones .zone')].map((g) => {
      const r = g.getBoundingClientRect();
      return Math.round(Math.min(r.width, r.height) * 10) / 10; })),
    button: document.getElementById('zones-zoom').innerText,
  };
}"""


@pytest.mark.parametrize("viewport", [tb.NARROW_PHONE, tb.SMALL_PHONE], ids=["320", "360"])
def test_skipbo_zones_picture_is_enlarged_to_place_a_marker_precisely(browser, server, viewport):
    """On a phone the camera's picture under the Skip-Bo zone markers was drawn as wide as the
    panel (280-320 px for 640): each finger-sized marker covered a large part of a pile, and a
    finger's move of 10 px moved it 20 picture pixels. "Enlarge the picture" draws it twice
    as wide in its panel, scrolled sideways to the middle, the markers no larger than a
    finger's touch (less of the picture under each): a drag moves a marker half as far on
    the picture, and its name, held, stays in view at the picture's top. "Show the whole
    picture" draws it whole again; the zones are confirmed as placed."""
    page, errors, t, snap = tb.skipbo_zones_page(
        browser, server, {**viewport, "height": 700}, has_touch=True, is_mobile=True
    )
    zones = zone_map(2)
    zones["zones"][4]["center"] = [200, 12]  # player 1's stock at the picture's top
    page.evaluate(  # the connection's first snapshot
        "s => sendSnapshot(s)",
        {**snap, "zones": {"map": zones, "frame": [640, 400], "confirmed": False}},
    )
    page.wait_for_selector("#zones .zone")
    whole = page.evaluate(ZONES_DRAWN_JS)
    assert whole["picture"] == pytest.approx(whole["frame"], abs=1), whole
    assert whole["button"] == "Enlarge the picture" and not whole["scrolls"], whole
    page.evaluate("document.getElementById('camera').scrollIntoView({block: 'center'})")

    def on_screen(i: int) -> tuple[float, float]:
        box = page.locator(f"#zones .zone[data-i='{i}'] .zone-dot").bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    def drag_right(i: int, px: float) -> float:
        """Drag marker ``i`` ``px`` to the right with a finger: how far it moved on the picture."""
        before = tb.zone_centre(page, i)[0]
        x, y = on_screen(i)
        tb.touch_drag(page, [(x, y), *[(x + px * k / 4, y) for k in range(1, 5)]])
        return tb.zone_centre(page, i)[0] - before

    moved_whole = drag_right(1, 40)  # building pile 2
    page.click("#zones-zoom")
    page.wait_for_function("document.getElementById('zones-zoom').innerText.includes('whole')")
    big = page.evaluate(ZONES_DRAWN_JS)
    assert big["picture"] >= 1.9 * big["frame"] and big["scrolls"], big
    assert big["past_page"] <= 0 and big["targets"] >= 44, big
    # no larger than a finger's touch on the screen (a pile's 0.6 at most): less of the
    # picture under it
    assert big["dot_px"] <= 44, (whole, big)
    assert big["dot_of_picture"] <= 0.75 * whole["dot_of_picture"], (whole, big)
    frame = page.locator("#cam-frame").bounding_box()
    x, _ = on_screen(0)  # scrolled to the middle: building pile 1 (300 of 640) in view
    assert frame["x"] < x < frame["x"] + frame["width"], (frame, x)
    moved_big = drag_right(2, 40)  # building pile 3
    assert moved_big == pytest.approx(moved_whole / 2, abs=2), (moved_whole, moved_big)
    # the stock at the picture's top, held: its name stands inside the frame, not cut off
    page.evaluate("document.getElementById('cam-frame').scrollLeft = 0")
    x, y = on_screen(4)
    held = {}

    def look() -> None:
        held["box"] = page.locator("#zone-tag").bounding_box()
        held["text"] = page.locator("#zone-tag").inner_text()

    tb.touch_drag(page, [(x, y), (x, y + 5), (x, y + 10)], hold=look)
    assert held["text"] == "Player 1's stock", held
    assert held["box"]["y"] >= page.locator("#cam-frame").bounding_box()["y"] - 0.5, held
    placed = [tb.zone_centre(page, i) for i in range(len(zones["zones"]))]
    page.click("#zones-zoom")
    page.wait_for_function("document.getElementById('zones-zoom').innerText.includes('Enlarge')")
    again = page.evaluate(ZONES_DRAWN_JS)
    assert again["picture"] == pytest.approx(again["frame"], abs=1), again
    assert not again["scrolls"] and again["targets"] >= 44, again
    assert [tb.zone_centre(page, i) for i in range(len(placed))] == placed
    page.click("#zones-zoom")  # confirmed while enlarged: as placed
    page.click("#zones-confirm")
    page.wait_for_function(
        "document.getElementById('zones-text').textContent.includes('confirmed')"
    )
    confirmed = server.get(f"/api/tables/{t['id']}")["zones"]["map"]["zones"]
    assert [z["center"] for z in confirmed] == placed
    tb.ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shown = tb.ARTIFACTS / f"skipbo-zones-enlarged-{viewport['width']}.png"
    page.locator(".camera-panel").screenshot(path=str(shown))
    page.close()
    assert not errors, errors


def skipbo_game_played(server, names: str, stock: int = 5) -> dict:
    """A Skip-Bo match of ``names`` whose first game is played out on the phones (a stock
    play first, else any play, else the first move): the table."""
    players = len(names.split(","))
    body = {"game": "skipbo", "players": players, "names": names, "stock": stock}
    status, t = server.post("/api/tables", {**body, "match_target": 500})
    assert status == 201
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    for _ in range(2000):
        snap = server.get(f"/api/tables/{t['id']}")
        if snap["over"]:
            return t
        seat = snap["to_move"]
        moves = [m["move"] for m in server.get(f"/api/p/{tokens[seat]}")["moves"]]
        plays = [m for m in moves if m["kind"] == "play"]
        pick = [m for m in plays if m["source"] == "stock"] or plays or moves
        assert server.post(f"/api/p/{tokens[seat]}/moves", {"move": pick[0]})[0] == 200
    raise AssertionError("the game did not end")


# How far the page reaches past the screen's right edge, and each match table's box: its
# width, how far it scrolls sideways and whether its last column can be brought into view.
PAGE_WIDTH_JS = """() => ({
  past_page: document.documentElement.scrollWidth - window.innerWidth,
  tables: [...document.querySelectorAll('table.scores')].map((t) => {
    const box = t.parentElement;
    box.scrollLeft = box.scrollWidth;
    const last = t.querySelector('thead th:last-child').getBoundingClientRect();
    const shown = box.getBoundingClientRect();
    return { width: Math.round(shown.width), scrolls: box.scrollWidth > box.clientWidth,
             last_in_view: last.right <= shown.right + 1 && last.left >= shown.left - 1 };
  }),
})"""


@pytest.mark.parametrize("viewport", WIDTHS, ids=WIDTH_IDS)
def test_a_six_player_matchs_scores_fit_the_phone(browser, server, viewport):
    """A Skip-Bo match of six players (Anne-Marie … Fredrikke) after its first game made
    each page that shows its table of scores 560-570 px wide on a phone of 320-390 px: the
    phone showed the whole page smaller, the board with it (the table page's one column took
    the table's width). The pages fit the phone now; the table of scores scrolls sideways
    in its own box, its last player's column brought into view by a swipe."""
    names = "Anne-Marie, Bjørnar, Cecilie, Dagfinn, Eirik, Fredrikke"
    t = skipbo_game_played(server, names)
    page = browser.new_page(viewport=viewport)
    errors = tb.watch_errors(page)
    for url in (t["url"], f"/matches/{t['id']}", t["players"][0]["url"]):
        page.goto(f"{server.base}{url}")
        page.wait_for_selector("table.scores")
        shown = page.evaluate(PAGE_WIDTH_JS)
        assert shown["past_page"] <= 0, (url, shown)
        assert shown["tables"], (url, shown)
        for table in shown["tables"]:
            assert table["width"] <= viewport["width"] and table["last_in_view"], (url, shown)
        if url == t["url"]:
            board = page.locator(".board-panel").bounding_box()
            assert board["x"] + board["width"] <= viewport["width"], (url, board)
    page.close()
    assert not errors, errors


# Each player's line in a table's list of players: the pieces of it (name, what the player
# holds, points) that are broken over two lines, or stand past the list's edge.
PLAYER_LINES_JS = """() => [...document.querySelectorAll('#players .player')].flatMap((li) => {
  const edge = li.getBoundingClientRect().right;
  const lines = (c) => {
    const text = document.createRange();
    text.selectNodeContents(c);
    return new Set([...text.getClientRects()].map((r) => Math.round(r.bottom))).size;
  };
  return [...li.children].filter((c) => c.textContent.trim() && (lines(c) > 1
    || c.getBoundingClientRect().right > edge + 0.5)).map((c) => c.textContent);
})"""


@pytest.mark.parametrize("viewport", WIDTHS, ids=WIDTH_IDS)
@pytest.mark.parametrize("game", ["skipbo", "sten"])
def test_a_phones_list_of_players_breaks_no_word(browser, server, game, viewport):
    """On a 320 px phone in Norwegian a Skip-Bo match's list of players read "0 / poeng",
    "Grunnbunke / 30" and "Åse- / Marie", each broken over two lines, and with eight players
    it stood 10 px past its panel. Each piece keeps one line now, the points going under
    the rest where a line has no room for them."""
    names = "Anne-Marie, Bjørnar, Cecilie, Åse-Marie, Eirik, Fredrikke, Gunnhild, Jens-Petter"
    players = {"skipbo": 6, "sten": 8}[game]
    body = {"game": game, "players": players, "names": ", ".join(names.split(", ")[:players])}
    if game == "skipbo":  # a match: each player's points
        body["match_target"] = 500
    status, t = server.post("/api/tables", body)
    assert status == 201
    page = browser.new_page(viewport=viewport, extra_http_headers={"Accept-Language": "nb"})
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("#players .player")
    assert page.evaluate(PLAYER_LINES_JS) == []
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    page.close()
    assert not errors, errors


# The new game form's game tabs: each one's name, on how many lines, and how far the tabs
# reach past their bar.
GAME_TABS_JS = """() => {
  const bar = document.querySelector('.tabs').getBoundingClientRect();
  return [...document.querySelectorAll('.tabs .tab')].map((tab) => {
    const text = document.createRange();
    text.selectNodeContents(tab);
    const lines = new Set([...text.getClientRects()].map((r) => Math.round(r.bottom))).size;
    return [tab.textContent.trim(), lines, tab.getBoundingClientRect().right <= bar.right];
  });
}"""


@pytest.mark.parametrize("viewport", WIDTHS, ids=WIDTH_IDS)
def test_the_new_game_tabs_name_each_game_on_one_line(browser, server, viewport):
    """On a 320 px phone the new game form's tabs read "Stigespill", "Sten" and "Skip- / Bo",
    the last broken over two lines in a tab as wide as "Sten"'s. Each name keeps one line
    now, the tabs inside their bar."""
    page = browser.new_page(viewport=viewport)
    errors = tb.watch_errors(page)
    for lang in ("en", "nb", "da", "sv"):
        page.goto(f"{server.base}/lang/{lang}?next=/new?game=skipbo")
        page.wait_for_selector(".tabs .tab")
        tabs = page.evaluate(GAME_TABS_JS)
        assert len(tabs) == 3 and all(lines == 1 and inside for _, lines, inside in tabs), tabs
    page.close()
    assert not errors, errors


# Skip-Bo on one device passed round the table, on a phone: what the player on turn needs.
SMALL_ANDROID = {"width": 360, "height": 740}
ONE_DEVICE_NAMES = "Anne-Marie, Bjørnar, Cecilie, Dagfinn"
# The boxes a turn takes, as they stand on the screen unscrolled: the building piles, the stock
# and discard piles of the seat on turn, and its hand (or the button that shows it); how far
# the page is scrolled, and the deepest discard pile of that seat (its cards shown).
TURN_BOXES_JS = """() => {
  const boxes = (sel) => [...document.querySelectorAll(sel)].map((e) => {
    const r = e.getBoundingClientRect();
    return { what: sel, top: r.top, bottom: r.bottom, left: r.left, right: r.right };
  });
  const seat = '.sb-player.on-turn';
  return {
    boxes: [...boxes('.sb-build > .pile > .card'), ...boxes(`${seat} .pile.stock > .card`),
      ...boxes(`${seat} .fan`), ...boxes('#hand > .card, #show-hand')],
    scrolled: scrollY,
    deepest: Math.max(...[...document.querySelectorAll(`${seat} .fan`)]
      .map((f) => f.querySelectorAll('.card:not(.empty)').length)),
  };
}"""


def tap_centre(page, selector: str) -> None:
    """Tap the middle of ``selector`` where it stands, as a finger does: nothing scrolled."""
    box = tb.box_of(page.locator(selector))
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def tap_the_discard(page, moves: list[dict], made: int) -> None:
    """With ``made`` moves made, tap the first discard of ``moves`` where it stands, unscrolled
    (its card in the hand, then its pile in the seat on turn), or "End turn" where the hand is
    empty (the draw pile used up); wait until it is made."""
    page.wait_for_function(f"document.body.dataset.moves >= {made}")
    discard = next((m for m in moves if m["kind"] == "discard"), None)
    if discard is None:
        tap_centre(page, ".sb-player.on-turn #hand button[data-kind=end_turn]")
    else:
        tap_centre(page, f"#hand button.card[data-code='{discard['card']}'] >> nth=0")
        tap_centre(page, f".sb-player.on-turn .fan.target >> nth={discard['pile']}")
    page.wait_for_function(f"document.body.dataset.moves > {made}")
    tb.settled(page)


@pytest.mark.parametrize(
    ("viewport", "players", "lang"),
    [(tb.PHONE, 4, "nb"), (tb.PHONE, 2, "en"), (SMALL_ANDROID, 4, "sv"), (SMALL_ANDROID, 2, "da")],
    ids=["390x844-4-nb", "390x844-2-en", "360x740-4-sv", "360x740-2-da"],
)
def test_a_one_device_skipbo_turn_is_played_on_one_screen(browser, server, viewport, players, lang):
    """Skip-Bo on one device passed round the table: the hand of the player on turn stood
    under the board, 1027 px down a 390×844 phone with four players (711-734 px down a
    360×740 phone with two), the building piles at the board's top: every card picked took a scroll
    down and laying it one up. The hand stands in its player's seat now, that seat under
    the building piles: from the game's start to its end, discard piles several cards deep,
    the building piles, the stock and discard piles on turn and the hand (or the button that
    shows it) stand on the first screen, and each turn's discard is tapped there, unscrolled."""
    names = ", ".join(ONE_DEVICE_NAMES.split(", ")[:players])
    body = {"game": "skipbo", "players": players, "names": names, "open": True, "stock": 5}
    status, t = server.post("/api/tables", body)
    assert status == 201
    api = f"/api/tables/{t['id']}"
    page = browser.new_page(
        viewport=viewport,
        has_touch=True,
        is_mobile=True,
        extra_http_headers={"Accept-Language": lang},
    )
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    deepest = 0
    for turn in range(200):
        snap = server.get(api)
        # the page at the server's version: a tap on a curtain about to be drawn anew is lost
        page.wait_for_function(f"Number(document.body.dataset.version) >= {snap['version']}")
        if snap["over"]:
            break
        page.wait_for_selector("#show-hand")
        for shown in ("curtain", "hand"):
            boxes = page.evaluate(TURN_BOXES_JS)
            assert boxes["scrolled"] == 0, (turn, shown, boxes)
            out = [
                b
                for b in boxes["boxes"]
                if b["top"] < 0
                or b["bottom"] > viewport["height"]
                or b["left"] < 0
                or b["right"] > viewport["width"]
            ]
            assert len(boxes["boxes"]) >= 10 and not out, (turn, shown, out)
            if shown == "curtain":
                tap_centre(page, "#show-hand")
                page.wait_for_selector("#hand button")  # a card, or "End turn"
        deepest = max(deepest, boxes["deepest"])
        # the turn's plays made on the table's page (stock first, then the hand's numbers, once
        # a discard pile has stood four deep: a deal that ends soon would leave them shallow)
        while True:
            moves = [m["move"] for m in server.get(api)["moves"]]
            plays = [m for m in moves if m["kind"] == "play" and m["card"] != "SBW"]
            play = [m for m in plays if m["source"] == "stock"] or [
                m for m in plays if m["source"] == "hand" and deepest >= 4
            ]
            if not play or server.get(api)["over"]:
                break
            assert server.post(f"{api}/moves", {"move": play[0]})[0] == 200
        if server.get(api)["over"]:
            continue
        tap_the_discard(page, moves, server.get(api)["moves_made"])  # onto the first pile
        assert page.evaluate("scrollY") == 0, turn
    else:
        raise AssertionError("the game did not end")
    assert deepest >= 4, deepest  # discard piles as deep as a seat shows them
    tb.shot(page, f"skipbo-one-device-end-{viewport['width']}-{players}")
    page.close()
    assert not errors, errors


@pytest.mark.parametrize("viewport", [tb.PHONE, SMALL_ANDROID], ids=["390x844", "360x740"])
def test_a_phones_skipbo_discard_piles_take_a_fingers_tap(browser, server, viewport):
    """On a phone the Skip-Bo discard piles a card may go onto took a tap 40 px wide (a
    card 36 px wide in a box 40 px wide, 6 px apart), under the 44 px a finger needs. Each
    takes 44 px each way now, the cards as far apart as before. The card picked showed no
    ring while the finger that tapped it still hovered it (a phone's hover stays): it shows
    its ring. On a laptop one device's hand stays beside the board, under "Next move"."""
    body = {"game": "skipbo", "players": 2, "names": "Anna, Bo", "open": True}
    status, t = server.post("/api/tables", body)
    assert status == 201
    page = browser.new_page(viewport=viewport, has_touch=True, is_mobile=True)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.click("#show-hand")
    page.click("#hand button.card >> nth=0")  # picked: the four discard piles take it
    page.wait_for_selector(".sb-player.on-turn .fan.target")
    ring = page.eval_on_selector(
        "#hand button.card >> nth=0", "(c) => getComputedStyle(c).boxShadow"
    )
    assert "rgb(183, 121, 31)" in ring, ring  # its ring, under the finger that picked it
    fans = page.evaluate(tb.TAP_BOX_JS, ".sb-player.on-turn .fan.target")
    assert len(fans) == 4 and all(min(box[1:]) >= 44 for box in fans), fans
    tb.shot(page, f"skipbo-one-device-picked-{viewport['width']}")
    page.set_viewport_size(tb.LAPTOP)
    page.wait_for_function("document.querySelector('#play-panel #hand button.card')")
    assert page.locator(".sb-player #hand").count() == 0
    page.close()
    assert not errors, errors


# The table page's head on a phone: the game's number (its lines, and whether its words fit
# its box) and whether the turn chip stands over it.
TABLE_HEAD_JS = """() => {
  const no = document.getElementById('game-no'), chip = document.getElementById('turn-chip');
  const text = document.createRange();
  text.selectNodeContents(no);
  const lines = new Set([...text.getClientRects()].map((r) => Math.round(r.bottom))).size;
  const a = no.getBoundingClientRect(), b = chip.getBoundingClientRect();
  const apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
  return { text: no.textContent, lines, cut: no.scrollWidth > Math.ceil(a.width), apart,
           chip: chip.textContent, right: b.right, screen: window.innerWidth };
}"""


@pytest.mark.parametrize("lang", ["en", "nb"])
@pytest.mark.parametrize("viewport", [tb.SMALL_PHONE, tb.PHONE], ids=["360", "390"])
def test_a_long_turn_leaves_the_game_number_readable_on_a_phone(browser, server, viewport, lang):
    """A turn chip of two lines ("New card on Bestemor Ingeborg's stock", at a real Skip-Bo
    table) took its whole one-line width on a phone's table page, and the game's number what
    was left: "Game 1" stood as "G" over "1" in a column one letter wide. The number keeps
    its line now, the chip wraps beside it, at the screen's right edge."""
    body = {"game": "skipbo", "players": 2, "names": "Bestemor Ingeborg, Sondre", "deal": "table"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    page = browser.new_page(viewport=viewport, extra_http_headers={"Accept-Language": lang})
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("#turn-chip.chance")
    head = page.evaluate(TABLE_HEAD_JS)
    assert "Bestemor Ingeborg" in head["chip"], head
    assert head["lines"] == 1 and not head["cut"] and head["apart"], head
    assert head["screen"] - head["right"] < 24, head  # the chip keeps to the right
    tb.shot(page, f"table-head-long-turn-{lang}-{viewport['width']}")
    page.close()
    assert not errors, errors


def in_view(box: dict, viewport: dict) -> bool:
    """Whether ``box`` (a ``getBoundingClientRect``'s edges) stands whole on the screen."""
    return (
        box["top"] >= 0
        and box["left"] >= 0
        and box["bottom"] <= viewport["height"]
        and box["right"] <= viewport["width"]
    )


# Where a control stands on the screen and whether it stands in the seat on turn (or the first
# seat, where one device's hand stands); null where it is not shown.
PLACE_JS = """(selector) => {
  const e = document.querySelector(selector);
  if (!e || !e.getClientRects().length) return null;
  const r = e.getBoundingClientRect();
  const seat = e.closest('.sb-player');
  return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, text: e.innerText,
    seat: seat ? Number(seat.dataset.seat) : null,
    first: seat === document.querySelector('.sb-player'), scrolled: scrollY };
}"""
# What a tap at each point would tap: a control's id, or its class.
TAPPED_AT_JS = """(points) => points.map(([x, y]) => {
  const e = document.elementFromPoint(x, y);
  const control = e && e.closest('button, a');
  return control ? control.id || control.className : null;
})"""


def open_one_device(browser, server, viewport: dict, players: int, lang: str = "en", **options):
    """Make a one-device Skip-Bo table; open its page on a phone: ``(table, page, errors)``."""
    names = ", ".join(ONE_DEVICE_NAMES.split(", ")[:players])
    body = {"game": "skipbo", "players": players, "names": names, "open": True, **options}
    status, t = server.post("/api/tables", body)
    assert status == 201
    page = browser.new_page(
        viewport=viewport,
        has_touch=True,
        is_mobile=True,
        extra_http_headers={"Accept-Language": lang},
    )
    return t, page, tb.watch_errors(page)


def greedy_move(snap: dict) -> dict:
    """The move a greedy player makes: stock first, then a number card, else a discard."""
    moves = [m["move"] for m in snap["moves"]]
    plays = [m for m in moves if m["kind"] == "play"]
    return (
        [m for m in plays if m["source"] == "stock"]
        or [m for m in plays if m["card"] != "SBW"]
        or [m for m in moves if m["kind"] in ("discard", "end_turn")]
        or moves
    )[0]


@pytest.mark.parametrize(
    ("viewport", "lang"), [(tb.PHONE, "nb"), (SMALL_ANDROID, "sv")], ids=["390x844", "360x740"]
)
def test_a_one_device_skipbo_turns_hint_and_undo_stand_under_the_hand(
    browser, server, viewport, lang
):
    """Skip-Bo on one device on a phone: the hand stood in its seat under the building piles,
    but the hint, "Tap a card, then where it goes" and Undo still stood under the board, a
    screen and more down (1000 px and more with four players). They stand in the seat on turn
    under its hand now, on the first screen: the hint and what to tap while the hand shows,
    Undo (and Redo) once there is something to take back, also while the next player's hand
    is covered (the discard just made is taken back there). Undo stands below the hand and the
    piles a card is laid on: no tap that lays a card lands on it, the turn's last one neither."""
    t, page, errors = open_one_device(browser, server, viewport, 4, lang)
    page.goto(f"{server.base}{t['url']}")
    tap_centre(page, "#show-hand")
    page.wait_for_selector("#hand button.card")
    first_seat = page.evaluate("document.querySelector('.sb-player').dataset.seat")
    hint, line = page.evaluate(PLACE_JS, "#hint"), page.evaluate(PLACE_JS, ".tap-line")
    for place in (hint, line):
        assert place and in_view(place, viewport) and place["first"], (hint, line)
    assert page.evaluate(PLACE_JS, "#undo") is None  # nothing to take back yet
    api = f"/api/tables/{t['id']}"
    discard = next(m["move"] for m in server.get(api)["moves"] if m["move"]["kind"] == "discard")
    tap_centre(page, f"#hand button.card[data-code='{discard['card']}'] >> nth=0")
    picked = page.evaluate(PLACE_JS, ".tap-line")
    assert picked["text"] != line["text"] and in_view(picked, viewport), (line, picked)
    fan = tb.box_of(page.locator(f".sb-player.on-turn .fan.target >> nth={discard['pile']}"))
    x, y = fan["x"] + fan["width"] / 2, fan["y"] + fan["height"] / 2
    page.mouse.click(x, y)  # the turn's last card: the next player's hand is covered
    page.wait_for_function("document.body.dataset.moves == 1", timeout=tb.LIVE_MS)
    tb.settled(page)
    page.wait_for_selector("#show-hand")
    assert page.evaluate(TAPPED_AT_JS, [[x, y]]) != ["undo"]
    undo = page.evaluate(PLACE_JS, "#undo")
    assert undo and in_view(undo, viewport) and undo["first"] and undo["scrolled"] == 0, undo
    assert undo["top"] > tb.box_of(page.locator("#show-hand"))["y"], undo
    tb.shot(page, f"skipbo-one-device-undo-{viewport['width']}")
    tap_centre(page, "#undo")  # the discard taken back: its player's hand covered again
    page.wait_for_function("document.body.dataset.moves == 0", timeout=tb.LIVE_MS)
    tb.settled(page)
    assert page.evaluate("document.querySelector('.sb-player').dataset.seat") == first_seat
    redo = page.evaluate(PLACE_JS, "#redo")  # to lay it again
    assert redo and in_view(redo, viewport) and redo["first"], redo
    assert page.locator("#redo").is_enabled() and not page.locator("#undo").is_enabled()
    page.close()
    assert not errors, errors


@pytest.mark.parametrize(
    ("viewport", "players"), [(tb.PHONE, 4), (SMALL_ANDROID, 2)], ids=["390x844-4", "360x740-2"]
)
def test_a_one_device_skipbo_games_next_game_stands_where_the_hand_stood(
    browser, server, viewport, players
):
    """At the end of a one-device Skip-Bo game on a phone "Next game" stood under the board
    and the players' seats (765-1145 px down a 390×844 or 360×740 phone), the winner's seat
    back in seat order: the family scrolled for it. The winner's seat stays first under the
    building piles, "Next game" where the hand stood, in sight: a tap starts the next game."""
    t, page, errors = open_one_device(browser, server, viewport, players, stock=5)
    api = f"/api/tables/{t['id']}"
    for _ in range(2000):
        snap = server.get(api)
        if snap["over"]:
            break
        assert server.post(f"{api}/moves", {"move": greedy_move(snap)})[0] == 200
    winner = server.get(api)["scores"]["winners"][0]
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("#next-game")
    button = page.evaluate(PLACE_JS, "#next-game")
    assert in_view(button, viewport) and button["scrolled"] == 0, button
    assert button["first"] and button["seat"] == winner, (button, winner)
    tb.shot(page, f"skipbo-one-device-next-game-{viewport['width']}-{players}")
    tap_centre(page, "#next-game")
    page.wait_for_function("document.body.dataset.moves == 0", timeout=tb.LIVE_MS)
    assert server.get(api)["table"]["number"] == 2
    page.close()
    assert not errors, errors


def test_a_one_device_skipbo_end_turn_stands_where_the_hand_stood(browser, server):
    """With the draw pile used up a player whose hand is empty ends the turn with "End turn":
    on a one-device phone it stood under the board and the seats, the seat on turn showing
    only "No cards in hand". It stands in the hand's place, on the first screen."""

    def ends_turn(snap: dict) -> bool:
        return any(m["move"]["kind"] == "end_turn" for m in snap["moves"])

    # a deal whose game runs on past its draw pile: many deals end first (a run of four such
    # deals failed this test now and then), so up to twelve are dealt
    for _ in range(12):
        t, page, errors = open_one_device(browser, server, SMALL_ANDROID, 4)
        api = f"/api/tables/{t['id']}"
        for _ in range(600):
            snap = server.get(api)
            if snap["over"] or ends_turn(snap):
                break
            assert server.post(f"{api}/moves", {"move": greedy_move(snap)})[0] == 200
        if not snap["over"] and ends_turn(snap):
            break
        page.close()
    assert ends_turn(snap), "no deal ran past its draw pile"
    page.goto(f"{server.base}{t['url']}")
    # on a busy machine the page could still be drawing the game it was opened on: a tap
    # measured before then landed beside "Show the hand", which never opened
    page.wait_for_function(f"document.body.dataset.moves >= {snap['moves_made']}")
    tb.settled(page)
    tap_centre(page, "#show-hand")
    page.wait_for_selector("button[data-kind=end_turn]")
    button = page.evaluate(PLACE_JS, "button[data-kind=end_turn]")
    assert in_view(button, SMALL_ANDROID) and button["first"] and button["scrolled"] == 0, button
    assert page.locator(".sb-player.on-turn #hand button[data-kind=end_turn]").count() == 1
    tb.shot(page, "skipbo-one-device-end-turn-360")
    made = snap["moves_made"]
    tap_centre(page, "button[data-kind=end_turn]")
    page.wait_for_function(f"document.body.dataset.moves > {made}", timeout=tb.LIVE_MS)
    after = server.get(api)  # the turn passed, or the game ended stalled (nothing to draw)
    assert after["over"] or after["to_move"] != snap["to_move"], after["last"]
    page.close()
    assert not errors, errors


@pytest.mark.parametrize(
    ("viewport", "players"),
    [(tb.PHONE, 2), (tb.PHONE, 4), (SMALL_ANDROID, 2), (SMALL_ANDROID, 4)],
    ids=["390x844-2", "390x844-4", "360x740-2", "360x740-4"],
)
def test_a_players_own_phone_shows_their_skipbo_turn_on_one_screen(
    browser, server, viewport, players
):
    """Skip-Bo played on the players' own phones: a player's page showed the hand above the
    board, the hint and the moves between them, the building piles and the player's own stock
    and discard piles under them: 675-901 px down a 360×740 phone (on a 390×844 one down to
    some 30 px above its bottom edge). The board stands first now, the hand in
    the player's seat under their piles, that seat under the building piles (as on one
    device): turn after turn, discard piles several cards deep, the building piles, the
    player's stock and discard piles and hand stand on the first screen, and each discard is
    tapped there, unscrolled."""
    names = ", ".join(ONE_DEVICE_NAMES.split(", ")[:players])
    status, t = server.post("/api/tables", {"game": "skipbo", "players": players, "names": names})
    assert status == 201
    api = f"/api/tables/{t['id']}"
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    me = server.get(api)["to_move"]
    mine = f"/api/p/{tokens[me]}"
    page = browser.new_page(viewport=viewport, has_touch=True, is_mobile=True)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['players'][me]['url']}")
    deepest = turns = 0
    while deepest < 3 and turns < 40:
        snap = server.get(api)
        if snap["over"]:
            break
        if snap["to_move"] != me:  # the others play on their phones
            seat = f"/api/p/{tokens[snap['to_move']]}"
            assert server.post(f"{seat}/moves", {"move": greedy_move(server.get(seat))})[0] == 200
            continue
        turns += 1
        page.wait_for_function(f"document.body.dataset.moves >= {snap['moves_made']}")
        page.wait_for_selector("#hand button")  # a card, or "End turn"
        boxes = page.evaluate(TURN_BOXES_JS)
        out = [b for b in boxes["boxes"] if not in_view(b, viewport)]
        assert boxes["scrolled"] == 0 and len(boxes["boxes"]) >= 10 and not out, (turns, out)
        deepest = max(deepest, boxes["deepest"])
        while True:  # the turn's plays made elsewhere, then its discard tapped here
            moves = [m["move"] for m in server.get(mine)["moves"]]
            plays = [m for m in moves if m["kind"] == "play" and m["card"] != "SBW"]
            if not plays or server.get(api)["over"]:
                break
            assert server.post(f"{mine}/moves", {"move": plays[0]})[0] == 200
        if server.get(api)["over"]:
            break
        tap_the_discard(page, moves, server.get(api)["moves_made"])
        assert page.evaluate("scrollY") == 0, turns
    assert turns >= 3, turns
    tb.shot(page, f"skipbo-own-phone-{viewport['width']}-{players}")
    page.close()
    assert not errors, errors


@pytest.mark.parametrize("viewport", [tb.PHONE, SMALL_ANDROID], ids=["390x844", "360x740"])
def test_a_real_tables_take_back_stands_under_the_hand_on_the_players_phone(
    browser, server, viewport
):
    """Skip-Bo at a real table, on a player's own phone: "Take back my move" stood under the
    board and the seats, below the first screen of a 390×844 phone. It stands in the player's
    seat under the hand (where one device's Undo stands): in view after the move, and not
    under the finger that laid the card."""
    body = {"game": "skipbo", "players": 2, "names": "Anna, Bo", "deal": "table"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    api = f"/api/tables/{t['id']}"
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    for _ in range(40):  # the app picks the real cards the table's deal turned up
        snap = server.get(api)
        if not snap.get("chance"):
            break
        seat = snap["chance"]["seat"] if snap["chance"]["seat"] is not None else snap["to_move"]
        assert server.post(f"/api/p/{tokens[seat]}/draw", {})[0] == 200
    me = server.get(api)["to_move"]
    mine = f"/api/p/{tokens[me]}"
    moves = [m["move"] for m in server.get(mine)["moves"]]
    page = browser.new_page(viewport=viewport, has_touch=True, is_mobile=True)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['players'][me]['url']}")
    page.wait_for_selector("#hand button.card")
    play = next((m for m in moves if m["kind"] == "play"), None)
    if play is not None and play["source"] == "hand":
        tap_centre(page, f"#hand button.card[data-code='{play['card']}'] >> nth=0")
        target = f".sb-build > .pile >> nth={play['pile']}"
    else:
        discard = next(m for m in moves if m["kind"] == "discard")
        tap_centre(page, f"#hand button.card[data-code='{discard['card']}'] >> nth=0")
        target = f".sb-player.on-turn .fan.target >> nth={discard['pile']}"
    box = tb.box_of(page.locator(target))
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    made = server.get(api)["moves_made"]
    page.mouse.click(x, y)
    page.wait_for_function(f"document.body.dataset.moves > {made}", timeout=tb.LIVE_MS)
    tb.settled(page)
    page.wait_for_selector("#undo-mine:not([hidden])")
    undo = page.evaluate(PLACE_JS, "#undo-mine")
    assert undo and in_view(undo, viewport) and undo["scrolled"] == 0, undo
    assert undo["seat"] == me, undo
    assert page.evaluate(TAPPED_AT_JS, [[x, y]]) != ["undo-mine"]
    tb.shot(page, f"skipbo-own-phone-take-back-{viewport['width']}")
    tap_centre(page, "#undo-mine")
    page.wait_for_function(f"document.body.dataset.moves == {made}", timeout=tb.LIVE_MS)
    page.close()
    assert not errors, errors


# A real table's players' phones: the game, and what the player taps to make the move (a card
# of the noted hand, a die card among the moves) with the box it stands in.
REAL_TABLE_TAPS = {
    "sten": ("#hand button.card[data-code='7H']", "#hand"),
    "stigespill": ("#moves button.card[data-code='3H']", "#moves"),
}


@pytest.mark.parametrize("game", ["sten", "stigespill"])
@pytest.mark.parametrize("viewport", [tb.PHONE, SMALL_ANDROID], ids=["390x844", "360x740"])
def test_a_real_tables_take_back_stands_over_the_hand_on_a_sten_or_stigespill_phone(
    browser, server, viewport, game
):
    """Sten and Stigespill at a real table, on a player's own phone: "Take back my move" stood
    under the hand, the hint and the moves, where a Sten hand pushed it down: with two players'
    noted hands of 26 cards, 938 px down a 360×740 phone (702 px on a 390×844 one). It stands
    beside the panel's heading now, over the hand (or the moves) the finger tapped: in view
    after the move, unscrolled, however long the hand, and not under the finger that made the
    move; a tap there takes the move back."""
    body = {"game": game, "players": 2, "names": "Anna, Bo", "deal": "table"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    page = browser.new_page(viewport=viewport, has_touch=True, is_mobile=True)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['players'][0]['url']}")
    tap, box = REAL_TABLE_TAPS[game]
    if game == "sten":  # Anna holds the hearts and diamonds, 7♥ among them: she starts
        ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
        tb.note_on_phone(page, [r + s for s in "HD" for r in ranks])
    page.wait_for_selector(tap)
    card = tb.box_of(page.locator(tap))
    x, y = card["x"] + card["width"] / 2, card["y"] + card["height"] / 2
    assert 0 <= y <= viewport["height"], card  # tapped where it stands, unscrolled
    page.mouse.click(x, y)
    page.wait_for_function("document.body.dataset.moves > 0", timeout=tb.LIVE_MS)
    tb.settled(page)
    page.wait_for_selector("#undo-mine:not([hidden])")
    made = int(page.evaluate("document.body.dataset.moves"))
    undo, under = page.evaluate(PLACE_JS, "#undo-mine"), page.evaluate(PLACE_JS, box)
    assert undo and in_view(undo, viewport) and undo["scrolled"] == 0, undo
    assert undo["bottom"] <= under["top"], (undo, under)  # over the hand, however long
    assert page.evaluate(TAPPED_AT_JS, [[x, y]]) != ["undo-mine"]
    tb.shot(page, f"{game}-own-phone-take-back-{viewport['width']}")
    tap_centre(page, "#undo-mine")
    page.wait_for_function(f"document.body.dataset.moves < {made}", timeout=tb.LIVE_MS)
    assert server.get(f"/api/tables/{t['id']}")["moves_made"] == 0
    page.close()
    assert not errors, errors


# Players whose names have a hyphen, and the places such a name stands broken over two lines as
# shown (what is said to a screen reader only, and a closed box's insides, aside): each one's
# element and its text.
HYPHENATED = ["Åse-Marie", "Jan-Erik", "Anne-Kristine", "Karl-Johan"]
BROKEN_NAMES_JS = """(names) => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (walker.nextNode()) {
    const text = walker.currentNode, e = text.parentElement;
    if (!e.getClientRects().length || e.closest('.sr-only')) continue;
    const closed = e.closest('details:not([open])');
    if (closed && !e.closest('summary')) continue;
    for (const name of names) {
      for (let i = text.data.indexOf(name); i >= 0; i = text.data.indexOf(name, i + 1)) {
        const range = document.createRange();
        range.setStart(text, i);
        range.setEnd(text, i + name.length);
        const lines = new Set([...range.getClientRects()].filter((b) => b.width > 0)
          .map((b) => Math.round(b.bottom)));
        if (lines.size > 1) out.push(`${e.tagName}.${e.className}: ${text.data}`);
      }
    }
  }
  return out;
}"""


def real_stigespill_to_its_end(server, table_id: str) -> None:
    """Play a real-cards Stigespill game to its end: each draw a die card it may be, the
    higher ones likelier (seeded; a snake may send a token back)."""
    api = f"/api/tables/{table_id}"
    rng = random.Random(table_id)
    for _ in range(2000):
        snap = server.get(api)
        if snap["over"]:
            return
        moves = [m["move"] for m in snap["moves"]]
        reveals = [m for m in moves if m["kind"] == "reveal"]
        weights = [2 + "A23456".find(m["card"][0]) for m in reveals]  # the joker 1
        move = rng.choices(reveals, weights)[0] if reveals else moves[0]
        assert server.post(f"{api}/moves", {"move": move})[0] == 200, move
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("lang", ["en", "nb"])
@pytest.mark.parametrize("viewport", [tb.NARROW_PHONE, SMALL_ANDROID], ids=["320", "360"])
def test_a_hyphenated_name_keeps_its_line_on_a_narrow_phone(browser, server, viewport, lang):
    """A player named with a hyphen ("Åse-Marie", "Jan-Erik") had her name broken at the
    hyphen on a narrow phone: "Anne-" over "Kristine" in the table's name, the last move,
    the match's scores and the list of tables. Each hyphenated name keeps its line now, where
    a page shows it (the table's name, the turn, the seats, the players, a real Stigespill
    table's standings, the scores, the list of tables), the text around it wrapping between
    words, and nothing past the page's edge."""
    names = ", ".join(HYPHENATED)
    tables = [
        {"game": "skipbo", "players": 4, "names": names, "open": True, "stock": 5},
        {"game": "skipbo", "players": 4, "names": names, "open": True, "match_target": 100},
        {"game": "stigespill", "players": 4, "names": names, "deal": "table"},
    ]
    made = []
    for body in tables:
        status, t = server.post("/api/tables", body)
        assert status == 201, t
        made.append(t)
    one_device, match, stige = made
    for _ in range(2000):  # the match's first game, to its end: the scores show
        snap = server.get(f"/api/tables/{match['id']}")
        if snap["over"]:
            break
        move = greedy_move(snap)
        assert server.post(f"/api/tables/{match['id']}/moves", {"move": move})[0] == 200
    real_stigespill_to_its_end(server, stige["id"])
    language = {"Accept-Language": lang}
    page = browser.new_page(
        viewport=viewport, has_touch=True, is_mobile=True, extra_http_headers=language
    )
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{one_device['url']}")
    page.click("#show-hand")  # waits for it: a live update may draw it anew meanwhile
    page.wait_for_selector("#hand button.card")
    broken = page.evaluate(BROKEN_NAMES_JS, HYPHENATED)
    page.goto(f"{server.base}{match['url']}")
    page.wait_for_selector(".scores th")
    broken += page.evaluate(BROKEN_NAMES_JS, HYPHENATED)
    page.goto(f"{server.base}{stige['url']}")
    page.wait_for_selector(".standings li")
    assert page.locator(".standings .pname").count() == 4
    broken += page.evaluate(BROKEN_NAMES_JS, HYPHENATED)
    page.goto(f"{server.base}/")
    page.wait_for_selector(".table-list .table-name")
    broken += page.evaluate(BROKEN_NAMES_JS, HYPHENATED)
    assert page.evaluate("document.documentElement.scrollWidth - window.innerWidth") <= 0
    assert not broken, broken
    page.goto(f"{server.base}{one_device['url']}")
    page.wait_for_selector("#show-hand")
    tb.shot(page, f"hyphenated-names-{lang}-{viewport['width']}")
    page.close()
    assert not errors, errors


def test_a_camera_giving_no_pictures_is_said_on_a_phones_first_screen(browser, server):
    """On a 390×844 phone the camera's panel stands under the board, its red line saying the
    camera cannot open (or was lost), what to check and that the moves can be tapped in, 835 px
    down: a family looking at the phone never learned the camera was gone. A line under the
    table's heading says so on the first screen and leads to the panel; it goes when the
    camera gives pictures again. On a laptop the panel beside the board says it in sight."""
    body = {"game": "sten", "players": 3, "deal": "table", "source": "webcam"}
    _, t = server.post("/api/tables", {**body, "webcam_index": "16"})  # no such webcam
    page = browser.new_page(viewport=tb.PHONE)
    errors = tb.watch_errors(page)
    page.add_init_script(tb.TEST_EVENTS)  # the test says what the table's page hears
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector(".sten-grid")
    assert not page.locator("#camera-alert").is_visible()  # nothing wrong said yet
    # the page's picture starts the camera, which cannot open: it tries again and again
    lost = tb.polled(
        lambda: server.get(f"/api/tables/{t['id']}"),
        lambda s: s["camera"]["state"] == "reconnecting",
    )
    assert lost["camera"]["message"].startswith("cannot open camera 16"), lost["camera"]
    page.evaluate("s => sendSnapshot(s)", {**lost, "version": lost["version"] + 1})
    page.wait_for_selector("#camera-state.bad")
    alert = page.locator("#camera-alert")
    assert alert.is_visible()
    box = alert.bounding_box()
    assert box is not None and box["y"] + box["height"] <= tb.PHONE["height"], box
    assert alert.inner_text() == (
        "The camera gives no pictures: the moves can be tapped in meanwhile. What to check ↓"
    )
    state = page.locator("#camera-state").bounding_box()
    assert state is not None and state["y"] > tb.PHONE["height"], state  # why: off the screen
    tb.shot(page, "camera-lost-phone")
    alert.locator("a").click()  # it leads to the camera's panel, what to check in sight
    page.wait_for_function(
        "(() => { const r = document.getElementById('camera-state').getBoundingClientRect();"
        " return r.top >= 0 && r.bottom <= innerHeight; })()",
        timeout=tb.LIVE_MS,
    )
    # the camera back: the line goes
    back = {**lost, "camera": {**lost["camera"], "state": "open", "message": "camera 16"}}
    page.evaluate("s => sendSnapshot(s)", {**back, "version": lost["version"] + 2})
    page.wait_for_selector("#camera-state", state="hidden")
    assert not alert.is_visible()
    page.close()
    # A laptop shows the camera's panel, its red line, beside the board: no line above it.
    page = browser.new_page(viewport={"width": 1366, "height": 768})
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("#camera-state.bad", timeout=tb.LIVE_MS)
    assert page.locator("#camera-alert").count() == 1
    assert not page.locator("#camera-alert").is_visible()
    state = page.locator("#camera-state").bounding_box()
    assert state is not None and state["y"] + state["height"] <= 768, state
    page.close()
    assert not errors, errors


# The boxes of the show-hand button, the panel it stands in, the game's number and the turn.
SHOW_HAND_JS = """() => {
  const box = (e) => {
    const r = e.getBoundingClientRect();
    return { left: r.left, right: r.right };
  };
  const button = document.getElementById('show-hand');
  return { button: box(button), panel: box(button.closest('.board-panel, .panel')),
           game: box(document.getElementById('game-no')),
           turn: box(document.getElementById('turn-chip')),
           page: document.documentElement.scrollWidth, screen: innerWidth };
}"""


@pytest.mark.parametrize("lang", ["en", "nb"])
def test_a_long_name_fits_a_narrow_phones_strategy_deal(browser, server, lang):
    """One device for a real-cards Stigespill strategy game on a 320×640 phone, a player
    named with one long word (24 letters, the most a name takes): after the deal the button
    that shows their hand ("Bestemorkarinordmannsen1: tap to see your hand") stood 24 px past
    its panel's edge and the page scrolled sideways, and the turn beside "Game 1" covered it
    but for its first letters. The name breaks where it must now: the button in its panel,
    the turn beside the game's number."""
    names = "Bestemorkarinordmannsen1, Bestefarolanordmannsen2"
    body = {"game": "stigespill", "players": 2, "names": names, "deal": "table",
            "variant": "strategy", "open": True}  # fmt: skip
    status, t = server.post("/api/tables", body)
    assert status == 201, t
    for card in ["AS", "AH", "2S", "2H", "3S", "3H"]:  # the deal, each seat's three in turn
        status, answer = server.post(
            f"/api/tables/{t['id']}/moves", {"move": {"kind": "reveal", "card": card}}
        )
        assert status == 200, answer
    page = browser.new_page(
        viewport=tb.NARROW_PHONE, has_touch=True, is_mobile=True,
        extra_http_headers={"Accept-Language": lang},
    )  # fmt: skip
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("#show-hand")
    shown = page.evaluate(SHOW_HAND_JS)
    assert shown["page"] <= tb.NARROW_PHONE["width"] == shown["screen"], shown
    assert shown["panel"]["left"] <= shown["button"]["left"], shown
    assert shown["button"]["right"] <= shown["panel"]["right"], shown
    assert shown["game"]["right"] <= shown["turn"]["left"], shown
    assert shown["turn"]["right"] <= tb.NARROW_PHONE["width"], shown
    tb.shot(page, f"stige-strategy-long-name-320-{lang}")
    page.close()
    assert not errors, errors

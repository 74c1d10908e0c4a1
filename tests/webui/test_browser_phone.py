"""The pages on the narrowest phones (320, 360 and 390 px wide), in a real headless Chromium.

The browser and the demo server are those of ``test_browser.py`` (this module's own
instances); screenshots go to ``tests/artifacts/`` as there.
"""

from __future__ import annotations

import itertools

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
    page.evaluate(
        "s => sendSnapshot(s)",
        {**snap, "version": 1, "zones": {"map": zones, "frame": [640, 400], "confirmed": False}},
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
    box = page.locator(selector).bounding_box()
    page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


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
        if not snap["view"]["hand"]:  # the draw pile could not refill it: the turn ends
            end = next(m["move"] for m in snap["moves"] if m["move"]["kind"] == "end_turn")
            assert server.post(f"{api}/moves", {"move": end})[0] == 200
            continue
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
                page.wait_for_selector("#hand button.card")
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
        after = server.get(api)
        if after["over"] or not after["view"]["hand"]:  # the game won, or the hand played out
            continue
        made = after["moves_made"]
        page.wait_for_function(f"document.body.dataset.moves >= {made}")
        discard = next(m for m in moves if m["kind"] == "discard")  # onto the first pile
        tap_centre(page, f"#hand button.card[data-code='{discard['card']}'] >> nth=0")
        tap_centre(page, f".sb-player.on-turn .fan.target >> nth={discard['pile']}")
        page.wait_for_function(f"document.body.dataset.moves > {made}")
        tb.settled(page)
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

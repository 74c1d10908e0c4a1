"""Taps and boxes on a live page, in a real headless Chromium: a tap made while the one before
it waits for the table's answer, a box the user opened while updates redraw the page, and what
lies under the finger that answered a prompt."""

from __future__ import annotations

import pytest

from tests.webui import test_browser
from tests.webui.server import WAIT_S, Server
from tests.webui.test_browser import (
    LAPTOP,
    LIVE_MS,
    NARROW_PHONE,
    PHONE,
    TEST_EVENTS,
    on_turns_phone,
    settled,
    watch_errors,
)

pytestmark = pytest.mark.browser
chromium, browser = test_browser.chromium, test_browser.browser  # the same fixtures


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("taps") / "data").start()
    yield s
    s.stop()


def hold_moves(page) -> list:
    """Hold each move ``page`` sends until the test lets it go (``route.continue_()`` on the
    list's items, as they come)."""
    held: list = []
    page.route("**/moves", lambda route: held.append(route))
    return held


def next_held(page, held: list, seen: int = 0):
    """Wait until more than ``seen`` changes are held (the page is waited on meanwhile, which
    runs the route's handler); return the last one."""
    for _ in range(round(WAIT_S / 0.05)):
        if len(held) > seen:
            return held[-1]
        page.wait_for_timeout(50)
    raise AssertionError("the page sent no change")


def sending(page) -> bool:
    return page.evaluate("document.body.classList.contains('sending')")


def test_a_second_tap_while_the_first_waits_is_one_move_or_said_not_taken(browser, server):
    """A tap made while the one before it waited for the table's answer was dropped without a
    word (a bar at the top only): the same die card tapped again is still one move, said
    nothing of; another card is said not taken, and is not made after the answer either."""
    body = {"game": "stigespill", "players": 2, "deal": "table", "names": "Anna, Bo"}
    t, page, errors = on_turns_phone(browser, server, body, stop_clock=True)  # the toast stays
    three, five = "#moves button.card[data-code='3S']", "#moves button.card[data-code='5H']"
    page.wait_for_selector(three)
    held = hold_moves(page)
    page.click(three)
    first = next_held(page, held)
    page.click(three)  # a double tap
    assert page.locator("#toast.show").count() == 0
    page.click(five)  # another card, while the first waits
    toast = page.wait_for_selector("#toast.show.bad", timeout=LIVE_MS)
    said = (
        "That tap was not taken: the tap before it was still waiting for the table's answer."
        " Tap again if you still want it."
    )
    assert toast.inner_text() == said
    assert len(held) == 1 and sending(page)
    first.continue_()
    settled(page)
    page.wait_for_function("document.body.dataset.moves == 2", timeout=WAIT_S * 1000)
    log = server.get(f"/api/tables/{t['id']}/log")["moves"]
    assert [m["kind"] for m in log] == ["draw", "reveal"] and log[1]["card"] == "3S", log
    assert page.inner_text("#toast") == said  # still said once the first is answered
    assert len(held) == 1, [r.request.post_data_json for r in held]
    page.close()
    assert not errors, errors


@pytest.mark.parametrize("what", ["undo", "redo"])
def test_undo_tapped_again_while_the_first_waits_is_said_not_taken(browser, server, what):
    """Undo tapped twice quickly undid one move and said nothing of the second tap: it was
    taken for the same change, as a move's double tap is. A second Undo may mean one move
    more, which would take back a move the page has not shown yet: it is not sent, now or
    after the first one's answer, and said not taken, with how to undo one more; Redo alike."""
    status, t = server.post("/api/tables", {"game": "sten", "players": 2, "names": "Anna, Bo"})
    assert status == 201
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    for _ in range(3):
        seat = server.get(f"/api/tables/{t['id']}")["to_move"]
        move = server.get(f"/api/p/{tokens[seat]}")["moves"][0]["move"]
        assert server.post(f"/api/p/{tokens[seat]}/moves", {"move": move})[0] == 200
    if what == "redo":  # two moves undone, to redo
        for _ in range(2):
            assert server.post(f"/api/tables/{t['id']}/undo")[0] == 200
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    test_browser.clock_stopped(page)  # the toast stays however late the answer comes
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector(f"#{what}:not([disabled])")
    made = 2  # the moves on the table after one undo of three (or one redo of two undone)
    held: list = []
    page.route(f"**/{what}", lambda route: held.append(route))
    page.click(f"#{what}")
    first = next_held(page, held)
    page.click(f"#{what}")  # the second tap of a quick double tap
    toast = page.wait_for_selector("#toast.show.bad", timeout=LIVE_MS)
    word = what.capitalize()
    said = (
        f"That tap on {word} was not taken: the one before it was still waiting for the"
        f" table's answer. Tap {word} again to {what} one more move."
    )
    assert toast.inner_text() == said
    assert len(held) == 1 and sending(page)
    first.continue_()
    settled(page)
    page.wait_for_function(f"document.body.dataset.moves == {made}", timeout=WAIT_S * 1000)
    assert len(server.get(f"/api/tables/{t['id']}/log")["moves"]) == made
    assert said in page.inner_text("#toast")  # still said once the first is answered
    assert len(held) == 1, [r.request.url for r in held]
    page.wait_for_function("!document.getAnimations().length")  # not while it slides in
    test_browser.shot(page, f"{what}-tapped-twice")
    page.close()
    assert not errors, errors


def card(code: str) -> str:
    """Where the first hand card ``code`` is (a hand may hold two alike)."""
    return f"#hand button.card[data-code='{code}'] >> nth=0"


def skipbo_turn(server, tries: int = 40):
    """A Skip-Bo table whose player on turn has a hand card that goes on a building pile and
    two other hand cards: ``(table, token, that card's move, the other two codes)``."""
    for _ in range(tries):
        status, t = server.post("/api/tables", {"game": "skipbo", "players": 2, "stock": 5})
        assert status == 201
        seat = server.get(f"/api/tables/{t['id']}")["to_move"]
        token = t["players"][seat]["url"].rsplit("/", 1)[1]
        mine = server.get(f"/api/p/{token}")
        plays = [
            m["move"]
            for m in mine["moves"]
            if m["move"]["kind"] == "play" and m["move"]["source"] == "hand"
        ]
        for play in plays:
            others = sorted(set(mine["view"]["hand"]) - {play["card"]})
            if len(others) >= 2:
                return t, token, play, others[:2]
    raise AssertionError("no deal with a hand card to build and two others")


def test_a_skipbo_card_picked_while_a_move_waits_stays_picked_after_it(browser, server):
    """A card picked while the move before it waited for its answer was let go when the
    answer came, without a word: it stays picked while it has a move, and is said let go
    when it has none (the turn passed)."""
    _, token, play, (b, c) = skipbo_turn(server)
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}/p/{token}")
    page.click(card(play["card"]))
    held = hold_moves(page)
    page.click(f".sb-build .pile >> nth={play['pile']} >> .card")
    first = next_held(page, held)
    page.click(card(b))  # picked while the play waits
    assert page.locator(f"#hand button.card.selected[data-code='{b}']").count() >= 1
    # and put on a discard pile while the play still waits: not made, and said by its name
    label = page.evaluate(
        """b => Kortbord.snapshot().moves.find(m => m.move.kind === 'discard'
             && m.move.card === b && m.move.pile === 0).label""",
        b,
    )
    page.click(".fan.target >> nth=0")
    assert page.inner_text("#toast.show.bad") == (
        f"Not made: {label}. The tap before it was still waiting for the table's answer:"
        " tap again if you still want it."
    )
    assert len(held) == 1
    first.continue_()
    settled(page)
    page.wait_for_function("document.body.dataset.moves == 1", timeout=WAIT_S * 1000)
    assert page.locator(f"#hand button.card.selected[data-code='{b}']").count() >= 1
    assert page.inner_text(".tap-line") == "Now tap where it goes"  # under the hand
    # b discarded ends the turn: c, picked while the discard waits, has no move after it
    page.click(".fan.target >> nth=0")
    discard = next_held(page, held, 1)
    page.click(card(c))
    assert page.locator(f"#hand button.card.selected[data-code='{c}']").count() >= 1
    discard.continue_()
    settled(page)
    page.wait_for_function("document.body.dataset.moves == 2", timeout=WAIT_S * 1000)
    assert page.locator("#hand button.card.selected").count() == 0
    said = "The card you picked has no move now, so it is no longer picked."
    page.wait_for_selector("#toast.show.bad")  # said under the "Not made" above, if still shown
    assert page.inner_text("#toast .toast-line:last-child") == said
    page.close()
    assert not errors, errors


def test_a_tap_as_the_pages_first_live_update_comes_is_taken(browser, server):
    """A page's live connection opens with the table as it is, most often the very table the
    page was drawn from: drawn again all the same, it replaced the card a finger had just come
    down on, and the tap was lost (nothing picked; a test measuring the card got nothing). The
    same table is not drawn again: the finger lifted, the card is picked."""
    _, token, play, _ = skipbo_turn(server)
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.add_init_script(TEST_EVENTS)
    page.goto(f"{server.base}/p/{token}")
    shown = server.get(f"/api/p/{token}")  # the table as the page was drawn from it
    box = test_browser.box_of(page.locator(card(play["card"])))
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.evaluate("s => sendSnapshot(s)", shown)  # the connection's first snapshot
    page.mouse.up()
    picked = f"#hand button.card.selected[data-code='{play['card']}']"
    assert page.locator(picked).count() >= 1  # (its twins too: a hand may hold two alike)
    assert page.inner_text(".tap-line") == "Now tap where it goes"
    page.close()
    assert not errors, errors


def test_a_live_connections_late_first_snapshot_does_not_take_the_board_back(browser, server):
    """The page's live connection opened, and a tap's answer came before the connection's
    first snapshot (a busy server): that snapshot, the table before the tap, was taken as the
    table as it is now, the board went back a move, and the next tap was refused ("the table
    moved on"). A connection's first snapshot older than the board, from the same run of the
    server, is left; one from a server started again is taken whatever its version."""
    status, t = server.post("/api/tables", STIGE_ONE_DEVICE)
    assert status == 201
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.add_init_script(TEST_EVENTS)
    page.goto(f"{server.base}{t['url']}")
    first = server.get(f"/api/tables/{t['id']}")  # rendered as the connection opened
    page.click(DRAW)
    settled(page)
    made = server.get(f"/api/tables/{t['id']}")["moves_made"]
    assert made >= 2 and test_browser.moves_made(page) == made
    page.evaluate("s => sendSnapshot(s)", first)  # the connection's first, late
    assert test_browser.moves_made(page) == made
    page.click(DRAW)  # on the board as it is: taken
    page.wait_for_function(f"document.body.dataset.moves > {made}", timeout=LIVE_MS)
    settled(page)
    # a server started again, its clock behind: its versions are lower, and taken
    again = server.get(f"/api/tables/{t['id']}")
    restarted = {**again, "run": "another", "version": first["version"]}
    page.evaluate("window.dispatchEvent(new Event('online'))")  # the page connects again
    page.evaluate("s => sendSnapshot(s)", restarted)
    assert page.evaluate("document.body.dataset.version") == str(first["version"])
    page.close()
    assert not errors, errors


def test_a_click_held_as_a_live_update_comes_is_taken(browser, server):
    """A mouse's click is a press and a release: a live update drawn between them (another
    device's change, the camera's state) replaced the card pressed, and the click went to no
    card at all. An update that comes while the button is held is drawn once it is let go,
    after the click it made."""
    _, token, play, _ = skipbo_turn(server)
    live = LivePage(browser, server, f"/p/{token}", f"/api/p/{token}")
    page = live.page
    box = test_browser.box_of(page.locator(card(play["card"])))
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    live.update()
    page.mouse.up()
    picked = f"#hand button.card.selected[data-code='{play['card']}']"
    assert page.locator(picked).count() >= 1  # (its twins too: a hand may hold two alike)
    drawn = page.evaluate("document.body.dataset.version")  # the update, after the click
    assert drawn == str(live.snap["version"] + 1), drawn
    page.close()
    assert not live.errors, live.errors


class LivePage:
    """A page whose live connection is the test's: ``update()`` sends the page's snapshot
    again as a newer one (the page redraws as at any live update)."""

    SUMMARY = "#moves details.all-moves > summary"

    def __init__(self, browser, server, path: str, api: str) -> None:
        self.page = browser.new_page(viewport=PHONE)
        self.errors = watch_errors(self.page)
        self.page.add_init_script(TEST_EVENTS)
        self.page.goto(f"{server.base}{path}")
        self.snap = server.get(api)
        self.page.evaluate("s => sendSnapshot(s)", self.snap)  # the connection's first
        self.versions = iter(range(self.snap["version"] + 1, self.snap["version"] + 100))

    def update(self, then: str = "() => {}") -> None:
        """Run ``then`` (a script), and send an update in the same task, before the events
        a tap made in it would have come."""
        script = f"s => {{ ({then})(); sendSnapshot(s); }}"
        self.page.evaluate(script, {**self.snap, "version": next(self.versions)})

    def tap_list_as_an_update_comes(self) -> None:
        self.update(f"() => document.querySelector('{self.SUMMARY}').click()")

    def list_open(self) -> bool:
        return self.page.evaluate(f"document.querySelector('{self.SUMMARY}').parentNode.open")


def test_skipbo_all_moves_stays_open_through_live_updates_until_closed(browser, server):
    """A Skip-Bo page's "All moves" list, opened, was drawn closed by the next live update
    (a move on another page, a camera's picture), and the page jumped up with it: it stays
    open, where it was, until the user closes it; a tap as an update comes is kept too."""
    _, token, _, _ = skipbo_turn(server)
    live = LivePage(browser, server, f"/p/{token}", f"/api/p/{token}")
    page = live.page
    assert not live.list_open()
    page.click(live.SUMMARY)
    assert live.list_open()
    # scrolled down to the list: its place on the screen stays, as the list does
    page.evaluate(f"document.querySelector('{live.SUMMARY}').scrollIntoView()")
    where = (
        f"[window.scrollY, document.querySelector('{live.SUMMARY}').getBoundingClientRect().top]"
    )
    scrolled, top = page.evaluate(where)
    assert scrolled > 0
    for _ in range(3):
        live.update()
        assert live.list_open()
        assert page.evaluate(where)[1] == top
    page.click(live.SUMMARY)  # closed by the user: stays closed
    live.update()
    assert not live.list_open()
    # opened or closed as an update comes (its toggle event comes after the redraw)
    live.tap_list_as_an_update_comes()
    assert live.list_open()
    live.tap_list_as_an_update_comes()
    assert not live.list_open()
    page.close()
    assert not live.errors, live.errors


@pytest.mark.parametrize(
    ("lang", "named"),
    [
        ("en", "Every move you can make"),
        ("nb", "Alle trekk du kan gjøre"),
        ("da", "Alle træk, du kan lave"),
        ("sv", "Alla drag du kan göra"),
    ],
)
def test_a_phones_list_of_moves_is_named_as_the_moves_one_can_make(browser, server, lang, named):
    """On a Skip-Bo phone "All moves (16)" was the list of moves one may make now, but read
    like the game's history. It is named for what it holds: "Every move you can make (16)",
    the count the moves listed (one string: the table's page and a Sten or Stigespill hand's
    list say it alike)."""
    _, token, _, _ = skipbo_turn(server)
    page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": lang})
    errors = watch_errors(page)
    page.goto(f"{server.base}/p/{token}")
    page.wait_for_selector(LivePage.SUMMARY, timeout=LIVE_MS)
    summary = page.locator(LivePage.SUMMARY)  # found anew: a live update draws the box anew
    listed = page.locator("#moves details.all-moves .move-list button").count()
    assert listed > 0
    assert summary.inner_text() == f"{named} ({listed})"
    summary.click()
    summary.scroll_into_view_if_needed()
    page.screenshot(path=str(test_browser.ARTIFACTS / f"skipbo-every-move-{lang}.png"))
    page.close()
    assert not errors, errors


def test_a_move_list_the_page_opens_stays_closed_once_the_user_closes_it(browser, server):
    """A short list of moves (a Stigespill strategy hand's) is drawn open; closed by the user,
    the next live update opened it again."""
    status, t = server.post(
        "/api/tables", {"game": "stigespill", "players": 2, "variant": "strategy"}
    )
    assert status == 201
    token = t["players"][server.get(f"/api/tables/{t['id']}")["to_move"]]["url"].rsplit("/", 1)[1]
    live = LivePage(browser, server, f"/p/{token}", f"/api/p/{token}")
    assert live.list_open()
    live.update()
    assert live.list_open()  # left alone, as the page draws it
    live.page.click(live.SUMMARY)
    live.update()
    assert not live.list_open()
    live.tap_list_as_an_update_comes()
    assert live.list_open()
    live.page.close()
    assert not live.errors, live.errors


# Classic Stigespill on one device for everyone, the app dealing: the family taps the draw.
STIGE_ONE_DEVICE = {"game": "stigespill", "players": 2, "names": "Anna, Bo", "open": True}
SMALL_ANDROID = {"width": 360, "height": 740}
SHORT_LAPTOP = {"width": 1366, "height": 768}
DRAW = "button.move[data-kind=draw]"
# The draw button's box on the screen as it stands (scrolled as it is), and how far the page is
# scrolled.
DRAW_BOX_JS = f"""() => {{
  const r = document.querySelector("{DRAW}").getBoundingClientRect();
  return {{ top: r.top, bottom: r.bottom, left: r.left, right: r.right, scrolled: scrollY }};
}}"""
# What stands at each of the given points of the screen: the button's (or link's) id, else
# the element's tag and class.
AT_POINTS_JS = """(points) => points.map(([x, y]) => {
  const e = document.elementFromPoint(x, y);
  const control = e && e.closest('button, a');
  return control ? control.id || control.className : e ? `${e.tagName} ${e.className}` : null;
})"""


def stige_page(browser, server, viewport: dict, lang: str):
    """Open a new one-device Stigespill table's page in ``lang``: ``(table, page, errors)``."""
    status, t = server.post("/api/tables", STIGE_ONE_DEVICE)
    assert status == 201
    headers = {"Accept-Language": lang}
    page = browser.new_page(viewport=viewport, has_touch=True, extra_http_headers=headers)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector(DRAW)
    return t, page, errors


def tap_draw(page) -> dict:
    """Tap the draw button as a finger does (scrolled to first where it is out of sight) and
    wait for the table's answer; return the button's box as it was tapped."""
    made = int(page.evaluate("document.body.dataset.moves"))
    # in the page, not by a locator: a live update may draw the button anew meanwhile
    page.evaluate(f"document.querySelector({DRAW!r}).scrollIntoView({{block: 'nearest'}})")
    box = page.evaluate(DRAW_BOX_JS)
    page.mouse.click((box["left"] + box["right"]) / 2, (box["top"] + box["bottom"]) / 2)
    page.wait_for_function(f"document.body.dataset.moves > {made}", timeout=LIVE_MS)
    settled(page)
    return box


@pytest.mark.parametrize("lang", ["en", "nb", "da", "sv"])
@pytest.mark.parametrize("viewport", [PHONE, SMALL_ANDROID], ids=["390x844", "360x740"])
def test_the_draw_button_is_on_a_phones_first_screen(browser, server, viewport, lang):
    """On a 390×844 phone the Stigespill table's one button, "Draw a die card", stood at the
    first screen's bottom edge, cut off (on a 360×740 phone 180 px under it), below the
    board and the classic game's hint. It stands under the road now, by the die pile: whole
    on the first screen, unscrolled, at the start and as the game goes on."""
    _, page, errors = stige_page(browser, server, viewport, lang)
    for turn in range(6):
        if page.locator("#next-game").count():
            break  # a game of ladders can end in five draws
        page.evaluate("window.scrollTo(0, 0)")
        box = page.evaluate(DRAW_BOX_JS)
        assert box["scrolled"] == 0, box
        assert 0 <= box["top"] and box["bottom"] <= viewport["height"], (turn, box)
        assert 0 <= box["left"] and box["right"] <= viewport["width"], (turn, box)
        tap_draw(page)
    if lang == "nb":
        test_browser.shot(page, f"stige-draw-in-sight-{viewport['width']}")
    page.close()
    assert not errors, errors


@pytest.mark.parametrize(
    "viewport, lang",
    [(PHONE, "en"), (SMALL_ANDROID, "en"), (SMALL_ANDROID, "sv"), (SHORT_LAPTOP, "da")],
    ids=["390x844-en", "360x740-en", "360x740-sv", "1366x768-da"],
)
def test_a_quick_second_tap_on_the_winning_draw_does_not_undo_it(browser, server, viewport, lang):
    """The draw that won the game took the hint away and the draw button with it: the Undo
    button moved up into their place, and a child's quick second tap on "Draw a die card"
    took the win back. "Next game" takes the draw button's place now: no point of the
    button the finger tapped has Undo (or Redo) under it after the win."""
    t, page, errors = stige_page(browser, server, viewport, lang)
    # played on to a token 6 steps or fewer from the goal (nobody wins on the way: a draw
    # moves 6 at most and a ladder ends on the road), then by tapping the draw to the end
    while max(k["position"] for k in server.get(f"/api/tables/{t['id']}")["view"]["tokens"]) < 23:
        assert server.post(f"/api/tables/{t['id']}/moves", {"move": {"kind": "draw"}})[0] == 200
    made = server.get(f"/api/tables/{t['id']}")["moves_made"]
    page.wait_for_function(f"document.body.dataset.moves >= {made}", timeout=LIVE_MS)
    for _ in range(200):
        box = tap_draw(page)
        if page.locator("#next-game").count():
            break
    assert server.get(f"/api/tables/{t['id']}")["over"]
    inset = 4  # the button's corners and edges, a little inside, and its middle
    xs = (box["left"] + inset, (box["left"] + box["right"]) / 2, box["right"] - inset)
    ys = (box["top"] + inset, (box["top"] + box["bottom"]) / 2, box["bottom"] - inset)
    under = page.evaluate(AT_POINTS_JS, [[x, y] for y in ys for x in xs])
    assert not {"undo", "redo"} & set(under), under
    assert under[4] == "next-game", under  # the middle
    test_browser.shot(page, f"stige-won-next-game-{viewport['width']}-{lang}")
    page.close()
    assert not errors, errors


@pytest.mark.parametrize(
    ("lang", "won", "next_game"),
    [
        ("en", "{names} won game {n}", "Next game"),
        ("nb", "{names} vant spill {n}", "Neste spill"),
        ("da", "{names} vandt spil {n}", "Næste spil"),
        ("sv", "{names} vann parti {n}", "Nästa parti"),
    ],
)
def test_a_stigespill_games_end_says_who_won_in_the_moves_panel(
    browser, server, lang, won, next_game
):
    """At a Stigespill game's end on a 1366×768 laptop the "Next move" panel was a heading
    over nothing but Undo and Redo ("Next game" stands under the road, where the draw was):
    an empty-looking panel. It says who won and offers the next game there too, in sight
    without scrolling, and that button starts the next game."""
    t, page, errors = stige_page(browser, server, SHORT_LAPTOP, lang)
    for _ in range(300):
        if server.get(f"/api/tables/{t['id']}")["over"]:
            break
        assert server.post(f"/api/tables/{t['id']}/moves", {"move": {"kind": "draw"}})[0] == 200
    snap = server.get(f"/api/tables/{t['id']}")
    assert snap["over"]
    page.wait_for_selector("#next-game", timeout=LIVE_MS)
    settled(page)
    said = won.format(names=", ".join(snap["winner_names"]), n=snap["table"]["number"])
    assert page.locator("#moves #game-won").inner_text() == f"★ {said}"
    here = page.locator("#moves #next-game-here")
    assert here.inner_text() == next_game
    box = test_browser.box_of(here)
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= SHORT_LAPTOP["height"], box
    test_browser.shot(page, f"stige-over-moves-panel-1366-{lang}")
    here.click()
    page.wait_for_selector("#moves #game-won", state="detached", timeout=LIVE_MS)
    after = server.get(f"/api/tables/{t['id']}")
    assert not after["over"] and after["table"]["number"] == snap["table"]["number"] + 1
    page.close()
    assert not errors, errors


# Stigespill with real cards: the family draws a real die card and taps which one it was.
TAP_SIZE_JS = test_browser.TAP_BOX_JS  # how far a tap on each control reaches it, across and down
STIGE_REAL = {"game": "stigespill", "players": 2, "names": "Anna, Bo", "deal": "table"}
# What a turn is tapped on at a real table's page: the die cards, a strategy game's hand, its
# draw and the button that shows the hand. Each one's box on the screen (as scrolled), with its
# code (else its id or kind), and how far the page is scrolled.
TURN_TAPS = ".card-grid button.card, #hand button.card, button.move[data-kind=draw], #show-hand"
TAPS_JS = f"""() => [...document.querySelectorAll("{TURN_TAPS}")]
  .filter((e) => e.getClientRects().length)
  .map((e) => {{
    const r = e.getBoundingClientRect();
    return {{ what: e.dataset.code || e.id || e.dataset.kind, top: r.top, bottom: r.bottom,
             left: r.left, right: r.right, scrolled: scrollY }};
  }})"""


def real_stige_page(browser, server, body: dict, viewport: dict, lang: str):
    """Open a new real-cards Stigespill table's page in ``lang`` on a phone: ``(table, page,
    errors)``."""
    status, t = server.post("/api/tables", body)
    assert status == 201
    headers = {"Accept-Language": lang}
    page = browser.new_page(
        viewport=viewport, has_touch=True, is_mobile=True, extra_http_headers=headers
    )
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector(".road .tile")
    return t, page, errors


def taps_in_sight(page, viewport: dict) -> dict:
    """The turn's taps on the page as it opens (unscrolled): each one's box, those not whole
    on the first screen named (an empty list: all in sight)."""
    page.evaluate("window.scrollTo(0, 0)")
    taps = page.evaluate(TAPS_JS)
    out = [
        tap["what"]
        for tap in taps
        if tap["top"] < 0
        or tap["left"] < 0
        or tap["bottom"] > viewport["height"]
        or tap["right"] > viewport["width"]
        or tap["scrolled"]
    ]
    return {"taps": {tap["what"]: tap for tap in taps}, "out_of_sight": out}


def tap_at(page, box: dict) -> tuple[float, float]:
    """Tap the middle of ``box`` (as the screen stands, unscrolled) as a finger does, and wait
    for the table's answer; return the point tapped."""
    made = int(page.evaluate("document.body.dataset.moves"))
    x, y = (box["left"] + box["right"]) / 2, (box["top"] + box["bottom"]) / 2
    page.mouse.click(x, y)
    page.wait_for_function(f"document.body.dataset.moves > {made}", timeout=LIVE_MS)
    settled(page)
    return x, y


@pytest.mark.parametrize("lang", ["en", "nb", "da", "sv"])
@pytest.mark.parametrize(
    "viewport", [PHONE, SMALL_ANDROID, NARROW_PHONE], ids=["390x844", "360x740", "320x640"]
)
def test_a_real_tables_die_cards_are_on_a_phones_first_screen(browser, server, viewport, lang):
    """At a real-cards Stigespill table the 25 die cards to tap ("Tap the die card that was
    drawn") stood below the board and the hint, 1040-1256 px down a 390×844 phone: every
    turn began with a scroll. They stand under the road now, by the die pile, a suit a line:
    every card whole on the first screen, unscrolled, turn after turn, each in its own place
    (a card drawn leaves a gap, the others stay where the finger knows them). On a 320×640
    phone the grid ended 728-746 px down, a line of its own for the joker: it ends on the
    first screen too, each card still a finger's tap (44 px each way)."""
    t, page, errors = real_stige_page(browser, server, STIGE_REAL, viewport, lang)
    page.wait_for_selector(".card-grid button.card")
    taps = page.evaluate(TAP_SIZE_JS, ".die-grid button.card")
    assert len(taps) == 25 and all(min(tap[1:]) >= 44 for tap in taps), taps
    for turn, card in enumerate(["2S", "3H", "AD", "4C", "2H", "3S"]):
        if page.locator("#next-game").count():
            break
        shown = taps_in_sight(page, viewport)
        assert len(shown["taps"]) == 25 - turn, (turn, shown)  # the die pile's cards
        assert shown["out_of_sight"] == [], (turn, shown["out_of_sight"])
        tap_at(page, shown["taps"][card])
        after = taps_in_sight(page, viewport)["taps"]
        assert card not in after, turn
        for c, box in after.items():  # each card where it stood
            assert (box["left"], box["top"]) == (shown["taps"][c]["left"], shown["taps"][c]["top"])
    assert server.get(f"/api/tables/{t['id']}")["moves_made"] >= 8
    test_browser.shot(page, f"stige-real-die-cards-{viewport['width']}-{lang}")
    page.close()
    assert not errors, errors


@pytest.mark.parametrize(
    ("viewport", "lang"),
    [(PHONE, "en"), (SMALL_ANDROID, "en"), (NARROW_PHONE, "en"), (NARROW_PHONE, "nb")],
    ids=["390x844", "360x740", "320x640-en", "320x640-nb"],
)
def test_a_real_strategy_turn_is_on_a_phones_first_screen(browser, server, viewport, lang):
    """One device for a real-cards strategy game: the cards dealt to each player, the button
    that shows the hand, the hand and the draw, and the die card drawn stood in the panel
    under the board (the dealt cards 809 px down a 390×844 phone, the hand cut off at its
    bottom): each is tapped on the first screen now, unscrolled, under the road. The cards
    already dealt are empty places (they were offered, and a tap on one refused). On a
    320×640 phone the deal's last line of cards ended 4 px (en) to 27 px (nb: the turn chip
    "Utdeling: kortet til Anna" on two lines) under the screen: the chip took the die cards'
    box's margin (both are "chance"), and its words are a little smaller there."""
    body = {**STIGE_REAL, "variant": "strategy", "open": True}
    _, page, errors = real_stige_page(browser, server, body, viewport, lang)
    dealt = ["AS", "AH", "2S", "2H", "3S", "3H"]  # Anna's three, Bo's, in turn
    for k, card in enumerate(dealt):
        page.wait_for_selector(f".card-grid button.card[data-code='{card}']")
        settled(page)
        shown = taps_in_sight(page, viewport)
        assert "JK" not in shown["taps"] and len(shown["taps"]) == 24 - k, (card, shown)
        assert not set(dealt[:k]) & set(shown["taps"]), (card, shown)
        assert shown["out_of_sight"] == [], (card, shown["out_of_sight"])
        tap_at(page, shown["taps"][card])
    page.wait_for_selector("#show-hand")
    shown = taps_in_sight(page, viewport)
    assert list(shown["taps"]) == ["show-hand"] and shown["out_of_sight"] == [], shown
    box = shown["taps"]["show-hand"]
    page.mouse.click((box["left"] + box["right"]) / 2, (box["top"] + box["bottom"]) / 2)
    page.wait_for_selector("#hand button.card")
    shown = taps_in_sight(page, viewport)
    assert set(shown["taps"]) == {"AS", "2S", "3S", "draw"}, shown
    assert shown["out_of_sight"] == [], shown["out_of_sight"]
    tap_at(page, shown["taps"]["draw"])
    page.wait_for_selector(".card-grid button.card[data-code='4S']")
    shown = taps_in_sight(page, viewport)
    assert "JK" in shown["taps"] and shown["out_of_sight"] == [], shown  # the die pile's
    assert len(shown["taps"]) == 25 - len(dealt) and not set(dealt) & set(shown["taps"]), shown
    tap_at(page, shown["taps"]["4S"])
    test_browser.shot(page, f"stige-real-strategy-{viewport['width']}-{lang}")
    page.close()
    assert not errors, errors


# The box of the ``nth`` element ``selector`` finds, brought into sight as a finger would (the
# least scroll), and the box of the die cards' grid it stands in (else its own).
TAP_BOX_JS = """([selector, nth]) => {
  const e = document.querySelectorAll(selector)[nth];
  e.scrollIntoView({ block: 'nearest' });
  const box = (r) => ({ top: r.top, bottom: r.bottom, left: r.left, right: r.right });
  return { tapped: box(e.getBoundingClientRect()),
           place: box((e.closest('.card-grid') || e).getBoundingClientRect()) };
}"""


def finger_tap(page, selector: str, nth: int = 0) -> dict | None:
    """Tap the ``nth`` of what ``selector`` finds as a finger does and wait for the table's
    answer: the boxes
    of TAP_BOX_JS and the point tapped, or None where the table refused it (a card the
    table's page offers that is in a hand)."""
    page.evaluate("document.querySelector('#prompt button')?.click()")  # a refusal seen
    made = int(page.evaluate("document.body.dataset.moves"))
    boxes = page.evaluate(TAP_BOX_JS, [selector, nth])
    box = boxes["tapped"]
    boxes["point"] = [(box["left"] + box["right"]) / 2, (box["top"] + box["bottom"]) / 2]
    page.mouse.click(*boxes["point"])
    settled(page)
    page.wait_for_function(
        f"document.body.dataset.moves > {made}"
        " || document.querySelector('#prompt.illegal:not([hidden])')",
        timeout=LIVE_MS,
    )
    return boxes if int(page.evaluate("document.body.dataset.moves")) > made else None


def near_the_goal(server, table_id: str) -> None:
    """Play the table on (any move the table's page offers, a refused one tried again) to a
    token 6 steps or fewer from the goal, a player on turn: nobody wins on the way (a card
    moves 6 at most and a ladder ends on the road)."""
    for k in range(2000):
        snap = server.get(f"/api/tables/{table_id}")
        if snap["to_move"] >= 0 and max(t["position"] for t in snap["view"]["tokens"]) >= 23:
            return
        moves = [m["move"] for m in snap["moves"]]
        server.post(f"/api/tables/{table_id}/moves", {"move": moves[k * 7 % len(moves)]})
    raise AssertionError("no token came near the goal")


# Whether a point of the screen lies in the place of the moves under the road.
ON_THE_PLACE_JS = "([x, y]) => Boolean(document.elementFromPoint(x, y).closest('#board .pile-do'))"
# A road laid as it is on the table (the same game each run).
ROAD = "7S 8H 9D JS 10C 8S QH 9C 7D KS 10H 8D JD 9S 7C QC 10D 8C KH 9H JC 7H QS 10S KD QD KC JH"


def under_points(page, box: dict, inset: float = 4, steps: int = 4) -> list:
    """What stands (AT_POINTS_JS) at a lattice of points over ``box``, a little inside it."""
    width, height = box["right"] - box["left"] - 2 * inset, box["bottom"] - box["top"] - 2 * inset
    xs = [box["left"] + inset + width * i / steps for i in range(steps + 1)]
    ys = [box["top"] + inset + height * i / steps for i in range(steps + 1)]
    return page.evaluate(AT_POINTS_JS, [[x, y] for y in ys for x in xs])


@pytest.mark.parametrize(
    "viewport, lang",
    [(PHONE, "en"), (PHONE, "nb"), (SMALL_ANDROID, "da"), (SHORT_LAPTOP, "sv")],
    ids=["390x844-en", "390x844-nb", "360x740-da", "1366x768-sv"],
)
def test_a_quick_second_tap_on_the_winning_die_card_does_not_undo_it(
    browser, server, viewport, lang
):
    """At a real-cards Stigespill table the die card tapped for the winning draw went with
    the game's end, and Undo moved up into the die cards' place: a quick second tap took the
    win back. "Next game" takes their place now, the place keeping its height (the tokens'
    places under it): no point where a die card stood has Undo or Redo under it, the finger's
    last point included."""
    t, page, errors = real_stige_page(browser, server, {**STIGE_REAL, "road": ROAD}, viewport, lang)
    near_the_goal(server, t["id"])
    made = server.get(f"/api/tables/{t['id']}")["moves_made"]
    page.wait_for_function(f"document.body.dataset.moves >= {made}", timeout=LIVE_MS)
    for k in range(200):
        if page.locator("#next-game").count():
            break
        cards = page.locator(".card-grid button.card").count()
        tapped = finger_tap(page, ".card-grid button.card", k * 5 % cards)
    assert server.get(f"/api/tables/{t['id']}")["over"]
    assert tapped is not None
    under = page.evaluate(AT_POINTS_JS, [tapped["point"]]) + under_points(page, tapped["place"])
    assert not {"undo", "redo"} & set(under), under
    # the finger's last point: in the die cards' place under the road (Next game, the
    # tokens' places, the felt)
    assert page.evaluate(ON_THE_PLACE_JS, tapped["point"]), under
    test_browser.shot(page, f"stige-real-won-{viewport['width']}-{lang}")
    page.close()
    assert not errors, errors


def test_a_quick_second_tap_at_a_real_strategy_games_end_does_not_undo_it(browser, server):
    """The end of a real-cards strategy game on one device was never looked at: the hand's
    card that won (or the die card drawn) went with the game's end, and Next game and Undo
    moved up into their place. "Next game" takes the place of the moves under the road now,
    the place keeping its height: no point of the last card tapped has Undo or Redo under
    it."""
    body = {**STIGE_REAL, "variant": "strategy", "open": True, "road": ROAD}
    t, page, errors = real_stige_page(browser, server, body, PHONE, "en")
    near_the_goal(server, t["id"])
    made = server.get(f"/api/tables/{t['id']}")["moves_made"]
    page.wait_for_function(f"document.body.dataset.moves >= {made}", timeout=LIVE_MS)
    last = None
    for k in range(300):
        if page.locator("#next-game").count():
            break
        if page.locator("#show-hand").count():
            page.click("#show-hand")
            continue
        grid = page.locator(".card-grid button.card").count()
        if grid:  # the die card drawn
            last = finger_tap(page, ".card-grid button.card", k * 5 % grid) or last
        elif page.locator("#hand button.card").count():
            last = finger_tap(page, "#hand button.card")
        else:
            last = finger_tap(page, "button.move[data-kind=draw]")
    assert server.get(f"/api/tables/{t['id']}")["over"]
    under = page.evaluate(AT_POINTS_JS, [last["point"]]) + under_points(page, last["place"])
    assert not {"undo", "redo"} & set(under), under
    assert page.evaluate(ON_THE_PLACE_JS, last["point"]), under  # nothing moved under it
    test_browser.shot(page, "stige-real-strategy-won-390")
    page.close()
    assert not errors, errors


@pytest.fixture(scope="module")
def app_server(tmp_path_factory):
    """The app served from this process, ``(app, its address)``: the test puts up the camera's
    "out of sync" prompt itself (the table hub's ``set_prompt``), as the camera's reader does."""
    import threading

    from werkzeug.serving import make_server

    from webui import create_app

    app = create_app({"DATA_DIR": str(tmp_path_factory.mktemp("prompt") / "data")})
    served = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=served.serve_forever, daemon=True).start()
    yield app, f"http://127.0.0.1:{served.server_port}"
    served.shutdown()


# Where the board stands on the screen, and what is under a point of it (a control or not).
BOARD_TOP_JS = "() => document.getElementById('board').getBoundingClientRect().top"
UNDER_JS = """([x, y]) => {
  const e = document.elementFromPoint(x, y);
  return e ? [e.className, Boolean(e.closest('button, a[href], summary, [tabindex]'))] : null;
}"""
# The line under the board as it is shown (without the words a screen reader hears for its cards)
LAST_SHOWN_JS = """() => [...document.getElementById('last').childNodes]
  .filter((n) => !n.classList || !n.classList.contains('sr-only'))
  .map((n) => n.textContent).join('')"""


@pytest.mark.parametrize("lang", ["en", "nb", "da", "sv"])
@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["390x844", "laptop"])
def test_an_answered_prompt_leaves_nothing_under_the_finger(browser, app_server, viewport, lang):
    """After an "out of sync — please confirm" prompt was answered its box went and the
    board moved up by its height (about 250 px on a phone) under the finger that answered:
    a Sten place, a button, lay there. Its space stays now, empty, and the board where it
    was; scrolled out of sight above the screen, the space goes without moving the page."""
    app, base = app_server
    client = app.test_client()
    body = {"game": "sten", "players": 3, "names": "Mormor, Jens, Ida", "deal": "table"}
    t = client.post("/api/tables", json=body).get_json()
    legal = [m["move"] for m in client.get(f"/api/tables/{t['id']}").get_json()["moves"]]
    assert len(legal) >= 2, legal  # who lays 7♥: a move for each seat
    language = {"Accept-Language": lang}
    page = browser.new_page(
        viewport=viewport, has_touch=viewport is PHONE, extra_http_headers=language
    )
    errors = watch_errors(page)
    page.goto(f"{base}{t['url']}")
    page.wait_for_selector("#board .card")
    app.extensions["kortbord.hub"].set_prompt(
        t["id"],
        {
            "message": "out of sync — please confirm: two or more moves fit what the camera sees",
            "candidates": [{"label": "", "moves": [move]} for move in legal[:2]],
        },
    )
    button = page.locator("#prompt.sync button").first
    button.wait_for(timeout=LIVE_MS)
    board = page.evaluate(BOARD_TOP_JS)
    box = test_browser.box_of(button)
    finger = [box["x"] + box["width"] / 2, box["y"] + box["height"] / 2]
    if viewport is PHONE:
        page.touchscreen.tap(*finger)
    else:
        page.mouse.click(*finger)
    page.wait_for_function("document.body.dataset.moves == '1'", timeout=LIVE_MS)
    page.wait_for_selector("#prompt", state="hidden")
    settled(page)
    assert page.evaluate(BOARD_TOP_JS) == pytest.approx(board, abs=1)
    under = page.evaluate(UNDER_JS, finger)
    assert under is not None and not under[1], under  # no control under the finger
    done = page.inner_text(".prompt-space")  # what was done, as the line under the board says
    last = page.evaluate(LAST_SHOWN_JS)
    assert "7♥" in last and done == f"✓ {last}", (done, last)
    test_browser.shot(page, f"prompt-answered-{lang}-{viewport['width']}")
    # scrolled down past the space: it goes, and the board stays where the scroll put it
    scrolled = page.evaluate(
        """async () => {
          const space = document.querySelector('.prompt-space');
          const past = space.getBoundingClientRect().bottom + 10;
          if (document.documentElement.scrollHeight - innerHeight < past) return null;
          const before = document.getElementById('board').getBoundingClientRect().top;
          window.scrollBy(0, past);
          await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
          return { moved: before - document.getElementById('board').getBoundingClientRect().top,
                   past, left: document.querySelector('.prompt-space')?.isConnected ?? false };
        }"""
    )
    if viewport is PHONE:  # a phone's page is long enough to scroll the space out of sight
        assert scrolled is not None and not scrolled["left"], scrolled
        assert scrolled["moved"] == pytest.approx(scrolled["past"], abs=1), scrolled
    page.close()
    assert not errors, errors


def test_an_answered_prompts_space_goes_once_the_page_is_left_alone(browser, app_server):
    """An answered prompt's space stayed for good where it was not scrolled away (a laptop's
    page): a gap above the board saying a move long past ("✓ Mormor laid 7♥"), or empty
    after a refused move's reason went by itself. It goes once the page has been left alone
    a while (eight seconds without a tap or a key, the page's own clock run on here), the
    board back where it stood before the prompt; a tap meanwhile keeps it."""
    app, base = app_server
    client = app.test_client()
    body = {"game": "sten", "players": 3, "names": "Mormor, Jens, Ida", "deal": "table"}
    t = client.post("/api/tables", json=body).get_json()
    legal = [m["move"] for m in client.get(f"/api/tables/{t['id']}").get_json()["moves"]]
    page = browser.new_page(viewport=LAPTOP)
    errors = watch_errors(page)
    test_browser.clock_stopped(page)  # eight seconds are the page's, however busy the machine
    page.goto(f"{base}{t['url']}")
    page.wait_for_selector("#board .card")
    board = page.evaluate(BOARD_TOP_JS)
    app.extensions["kortbord.hub"].set_prompt(
        t["id"],
        {"message": "out of sync — please confirm", "candidates": [{"moves": [legal[0]]}]},
    )
    page.locator("#prompt.sync button").first.click(timeout=LIVE_MS)
    page.wait_for_function("document.body.dataset.moves == '1'", timeout=LIVE_MS)
    page.wait_for_selector(".prompt-space")
    kept = page.evaluate(BOARD_TOP_JS)
    assert kept > board + 50, (kept, board)  # the space holds the board where it was
    page.clock.run_for(5000)
    page.mouse.click(5, LAPTOP["height"] - 5)  # a tap on the page: the player is still at it
    page.clock.run_for(5000)
    assert page.locator(".prompt-space").count() == 1
    test_browser.shot(page, "prompt-space-kept-laptop")
    page.clock.run_for(4000)
    page.wait_for_selector(".prompt-space", state="detached")
    assert page.evaluate(BOARD_TOP_JS) == pytest.approx(board, abs=1)
    test_browser.shot(page, "prompt-space-gone-laptop")
    page.close()
    assert not errors, errors

"""Accessibility of every page a family meets, in a real headless Chromium: axe-core's rules
(WCAG 2.2 A and AA, and its best practices) over each page and state, on a phone and a
laptop, in English and Norwegian, and each page's language said as the one it is written in.

axe-core comes from the dev extra's ``axe-playwright-python``, which ships ``axe.min.js``
inside its wheel: nothing is fetched when the tests run. The browser and its fixtures are
``test_browser.py``'s."""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable

import pytest

from tests.webui import test_browser as tb
from tests.webui.server import WAIT_S, Server

pytestmark = pytest.mark.browser
chromium, browser = tb.chromium, tb.browser  # this module's own instances

# axe's rules for WCAG 2.0-2.2, levels A and AA, and its best practices (landmarks, headings
# in order, one main heading)
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
Act = Callable[..., None] | None


@pytest.fixture(scope="module")
def axe():
    sync = pytest.importorskip(
        "axe_playwright_python.sync_playwright", reason="axe-core comes with the dev extra"
    )
    return sync.Axe()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = Server(tmp_path_factory.mktemp("a11y") / "data").start()
    yield s
    s.stop()


def play_out(server: Server, table: dict) -> None:
    """Play ``table``'s game to its end: the table's own move where it has one (a draw),
    else the first lay or play of the player on turn (a stock card first), else any move."""
    tokens = [p["url"].rsplit("/", 1)[1] for p in table["players"]]
    for _ in range(3000):
        snap = server.get(f"/api/tables/{table['id']}")
        if snap["over"]:
            return
        if snap["moves"]:
            path, move = f"/api/tables/{table['id']}/moves", snap["moves"][0]["move"]
        else:
            path = f"/api/p/{tokens[snap['to_move']]}/moves"
            moves = [m["move"] for m in server.get(f"/api/p/{tokens[snap['to_move']]}")["moves"]]
            plays = [m for m in moves if m["kind"] in ("play", "lay", "go_out")]
            move = ([m for m in plays if m.get("source") == "stock"] or plays or moves)[0]
        status, body = server.post(path, {"move": move})
        assert status == 200, body
    raise AssertionError("the game did not end")


def remove_table(server: Server, table_id: str) -> str:
    """Take a table off the home page's list, as its page that asks does; return where the
    answer leads (the home page that says so, with an Undo)."""
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=WAIT_S)
    try:
        conn.request("POST", f"/t/{table_id}/remove")
        answer = conn.getresponse()
        assert answer.status == 302, answer.status
        return answer.getheader("Location")
    finally:
        conn.close()


def pick_a_card(page) -> None:
    page.click("#hand button.card >> nth=0")
    page.wait_for_selector(".fan.target")


def hand_shown_a_card_picked(page) -> None:
    """One device for everyone: the player on turn shows their hand and picks a card."""
    page.click("#show-hand")
    pick_a_card(page)


def a_move_not_sent(page) -> None:
    """Tap a move while the table cannot be reached: the toast says it was not sent."""
    page.route("**/moves", lambda route: route.abort())
    page.click("button.move >> nth=0")  # classic Stigespill: its draw, under the road
    page.wait_for_selector("#toast.show")


def boxes_open(page) -> None:
    page.evaluate("document.querySelectorAll('main details').forEach(d => d.open = true)")


def language_menu_open(page) -> None:
    page.click(".langs summary")


def a_form_refused(page) -> None:
    # eleven names for Sten's ten seats at most (fewer would raise the players to match)
    page.fill("input[name=names]", ", ".join("ABCDEFGHIJK"))
    page.click("button[type=submit]")
    page.wait_for_selector("#form-error")


@pytest.fixture(scope="module")
def pages(server) -> dict[str, tuple[str, Act]]:
    """Every page a family meets, each in the states worth checking: ``name: (path, act)``,
    ``act`` bringing the state about once the page is open."""
    shown: dict[str, tuple[str, Act]] = {"home": ("/", None)}
    shown["languages"] = ("/", language_menu_open)
    for game in ("stigespill", "sten", "skipbo"):
        shown[f"new {game}"] = (f"/new?game={game}", None)
    shown["new, refused"] = ("/new?game=sten", a_form_refused)
    options = {
        "stigespill": {"variant": "strategy"},
        "stigespill classic": {},
        "stigespill, real cards": {"deal": "table"},
        "sten": {},
        "sten, real cards": {"deal": "table"},
        "sten, one device": {"open": "1"},
        "skipbo": {"stock": 5, "match_target": 500},
        "skipbo, real cards": {"deal": "table"},
        "skipbo, one device": {"open": "1"},
        "stigespill, phone camera": {"source": "phone"},
    }
    made = {}
    for name, form in options.items():
        body = {"game": name.split(",")[0].split()[0], "players": 2, "names": "Anna, Bo", **form}
        status, made[name] = server.post("/api/tables", body)
        assert status == 201, made[name]
        on_turn = server.get(f"/api/tables/{made[name]['id']}")["to_move"] or 0
        shown[f"table {name}"] = (made[name]["url"], boxes_open)
        shown[f"phone {name}"] = (made[name]["players"][on_turn]["url"], boxes_open)
    shown["phone skipbo, a card picked"] = (shown["phone skipbo"][0], pick_a_card)
    # on a phone its hand stands in its seat on the board
    shown["table skipbo, one device, a card picked"] = (
        made["skipbo, one device"]["url"],
        hand_shown_a_card_picked,
    )
    shown["table stigespill, not sent"] = (made["stigespill classic"]["url"], a_move_not_sent)
    status, refused = server.post("/api/tables", {"game": "skipbo", "players": 2})
    server.post(f"/api/tables/{refused['id']}/moves", {"move": {"kind": "end_turn"}})  # 409
    shown["table skipbo, a move refused"] = (refused["url"], None)
    for game in ("stigespill", "sten", "skipbo"):
        status, t = server.post(
            "/api/tables", {"game": game, "players": 2, "names": "Cy, Di", "stock": 5}
        )
        play_out(server, t)
        shown[f"table {game}, over"] = (t["url"], None)
        shown[f"phone {game}, over"] = (t["players"][0]["url"], None)
    shown["match"] = (f"/matches/{t['id']}", None)
    shown["matches"] = ("/matches", None)
    shown["remove"] = (f"/t/{made['sten']['id']}/remove", None)
    home = remove_table(server, made["sten, one device"]["id"])
    shown["home, a table removed"] = (home, boxes_open)  # its Undo
    shown["not found"] = ("/t/none-such", None)
    return shown


def violations(axe, page) -> list[str]:
    """What axe finds wrong on ``page``: one line for each rule broken, and where."""
    found = axe.run(page, options={"runOnly": {"type": "tag", "values": AXE_TAGS}})
    return [
        f"{v['id']} ({v['impact']}): {v['help']}: "
        + "; ".join(" ".join(n["target"]) for n in v["nodes"][:5])
        for v in found.response["violations"]
    ]


@pytest.mark.parametrize(
    ("viewport", "lang"),
    [(tb.PHONE, "en"), (tb.PHONE, "nb"), (tb.LAPTOP, "en")],
    ids=["phone-en", "phone-nb", "laptop-en"],
)
def test_every_page_passes_axe(axe, browser, server, pages, viewport, lang):
    """Every page and state passes axe-core's WCAG A and AA rules and best practices, and says
    it is written in the language it is shown in."""
    context = browser.new_context(viewport=viewport)
    context.add_cookies([{"name": "lang", "value": lang, "url": server.base}])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    found = {}
    for name, (path, act) in pages.items():
        page.goto(f"{server.base}{path}")  # loaded: a page without scripts is styled then
        if path.startswith(("/t/", "/p/")) and "remove" not in path and "none" not in path:
            page.wait_for_function("document.body.dataset.version !== undefined")
        if act:
            act(page)
        said = page.evaluate("document.documentElement.lang")
        wrong = violations(axe, page) + ([f"html lang={said!r}"] if said != lang else [])
        if wrong:
            found[name] = wrong
    context.close()
    assert not found, "\n".join(f"{name}: {v}" for name, vs in found.items() for v in vs)
    assert not errors, errors


# The live region (or alert) that says what appears in an element, if any: its role or
# aria-live, else null
LIVE_REGION_JS = """(e) => {
  const region = e.closest('[role=status], [role=alert], [role=log], [aria-live]');
  if (!region || region.getAttribute('aria-live') === 'off') return null;
  return region.getAttribute('aria-live') || region.getAttribute('role');
}"""


def test_a_hand_photos_answer_is_said(browser, server):
    """A Sten player at a real table who sends a photo of their hand heard nothing of the
    answer ("No card was recognised…", the cards read, or why the photo was refused): it
    was written into a plain paragraph. It is said now, as a status message."""
    status, t = server.post("/api/tables", {"game": "sten", "players": 2, "deal": "table"})
    assert status == 201
    page = browser.new_page(viewport=tb.PHONE)
    errors = tb.watch_errors(page)
    page.goto(f"{server.base}{t['players'][0]['url']}")
    page.click("#photo-box summary")
    with page.expect_response("**/photo"):
        page.set_input_files(
            "#photo", {"name": "hand.jpg", "mimeType": "image/jpeg", "buffer": b"not a picture"}
        )
    page.wait_for_function("document.getElementById('photo-msg').textContent !== ''")
    assert page.eval_on_selector("#photo-msg", LIVE_REGION_JS) in ("polite", "status"), (
        page.inner_text("#photo-msg")
    )
    page.close()
    assert [e for e in errors if "400 (BAD REQUEST)" not in e] == [], errors


def test_a_wrong_join_code_is_said_first_and_marks_the_field(browser, tmp_path):
    """A guest on the home network who typed a wrong join code got the page again with "That
    code is not right." in a paragraph: not said, not focused, the field not marked. The
    reason is an alert now, and the field is marked wrong and described by it; the page's
    title names the table to join. The field came back empty too (six digits to type again
    where one was wrong): it keeps the code typed, selected, and takes the focus, saying the
    reason it is described by; a digit typed replaces the whole code."""
    server = Server(tmp_path / "data", extra=["--lan", "--host", "127.0.0.1"]).start()
    try:
        status, t = server.post("/api/tables", {"game": "sten", "players": 2, "name": "Hytta"})
        assert status == 201
        page = browser.new_page(viewport=tb.PHONE)  # a guest: not the table's host
        errors = tb.watch_errors(page)
        page.goto(f"{server.base}{t['url']}")
        assert page.title() == "Join Hytta · Kortbord"
        typed = "000 000" if t["join_code"] != "000000" else "111 111"
        page.fill("input[name=code]", typed)
        page.click("button[type=submit]")
        page.wait_for_selector("#form-error")
        page.wait_for_load_state("load")  # its scripts, the focus's mover among them, have run
        focused = page.evaluate(
            """() => { const e = document.activeElement;
              return [e.name, e.value, e.selectionStart, e.selectionEnd]; }"""
        )
        field = page.locator("input[name=code]")
        marked = [field.get_attribute(a) for a in ("aria-invalid", "aria-describedby")]
        said = page.inner_text("#form-error")
        page.keyboard.type("4")
        retyped = field.input_value()
        page.close()
    finally:
        server.stop()
    assert said == "That code is not right."
    assert focused == ["code", typed, 0, len(typed)], focused
    assert marked == ["true", "form-error"], marked
    assert retyped == "4", retyped
    assert [e for e in errors if "403 (FORBIDDEN)" not in e] == [], errors


def test_a_phones_small_controls_take_a_finger_each_way(browser, server):
    """On a phone the language menu's button took a tap 37 px wide; the folded boxes ("All
    moves", "Players' own pages", "Photograph your hand", "Removed tables") 40-43 px tall, as
    did the moves' buttons and a player's name under "Players' own pages". Each takes a tap
    44 px each way now (what a finger needs), none a neighbour's, and looks as it did."""
    page = browser.new_page(viewport=tb.PHONE)
    errors = tb.watch_errors(page)
    controls = []
    status, sten = server.post("/api/tables", {"game": "sten", "players": 2, "deal": "table"})
    assert status == 201
    body = {"game": "stigespill", "players": 2, "names": "Anna, Bo", "variant": "strategy"}
    status, stigespill = server.post("/api/tables", body)
    assert status == 201
    status, gone = server.post("/api/tables", {"game": "sten", "players": 2})
    assert status == 201
    home = remove_table(server, gone["id"])  # the home page's "Removed tables" box
    for path, selector in (
        ("/", ".langs summary"),
        (stigespill["url"], ".join-box summary"),
        (stigespill["url"], ".qr-card"),
        (stigespill["players"][0]["url"], ".all-moves summary"),
        (stigespill["players"][0]["url"], "#moves .btn-move"),
        (sten["players"][0]["url"], ".photo-box summary"),
        (home, ".removed-list summary"),
    ):
        if page.url != f"{server.base}{path}":
            page.goto(f"{server.base}{path}")
        if selector == ".qr-card":  # open by itself: the game is played on the phones
            page.wait_for_selector(".join-box[open]")
        page.wait_for_selector(selector)
        found = page.evaluate(tb.TAP_BOX_JS, selector)
        assert found, selector
        controls += [(selector, *box) for box in found]
    page.close()
    small = [c for c in controls if min(c[2:]) < 44]
    assert not small, small
    assert not errors, errors


# Each text field's and list's border colour and the colour behind it (the first background
# up its ancestors that is not transparent), as CSS rgb(…) colours
FIELD_EDGES_JS = """(selector) => [...document.querySelectorAll(selector)]
  .filter((e) => e.getClientRects().length)
  .map((e) => {
    const colour = (x) => getComputedStyle(x).backgroundColor;
    let back = e.parentElement;
    while (colour(back) === 'rgba(0, 0, 0, 0)') back = back.parentElement;
    return [e.name || e.id, getComputedStyle(e).borderTopColor, colour(back)];
  })"""
FIELDS = "input:not([type=checkbox]):not([type=radio]):not([type=hidden]), select, textarea"


def test_a_forms_fields_stand_out_from_the_page(browser, server):
    """The new-game form's fields and the table page's road box were edged in a grey 1.5:1
    against the white around them: where to type was hard to see (WCAG asks 3:1 of what
    shows a control). Their edge is the same grey-blue, darker: 3:1 or more."""
    from tests.webui.test_tables import _contrast

    page = browser.new_page(viewport=tb.PHONE)
    errors = tb.watch_errors(page)
    edges = []
    for game in ("stigespill", "sten", "skipbo"):
        page.goto(f"{server.base}/new?game={game}")
        edges += page.evaluate(FIELD_EDGES_JS, f"#new-game :is({FIELDS})")
    status, t = server.post("/api/tables", {"game": "stigespill", "players": 2, "deal": "table"})
    assert status == 201
    page.goto(f"{server.base}{t['url']}")
    page.click(".road-typed summary")  # the app's road proposed: the one laid may be typed
    edges += page.evaluate(FIELD_EDGES_JS, "#road-typed")
    page.close()
    assert len(edges) >= 12, edges
    faint = [e for e in edges if _contrast(tb.hex_of(e[1]), tb.hex_of(e[2])) < 3]
    assert not faint, faint
    assert not errors, errors


def test_confirmed_zones_are_said(browser, tmp_path):
    """A Skip-Bo camera table's piles, confirmed (the markers may be moved by keyboard), said
    nothing: "Zones confirmed…" was written over the bar's sentence in a plain paragraph. The
    sentence is a status region now, and it is written only when it changes, so a camera's
    picture (a redraw each second) does not say it again."""
    with tb.camera_video_server(tmp_path, "skipbo", 2, 1, max_moves=10) as (server, table):
        page = browser.new_page(viewport=tb.LAPTOP)
        errors = tb.watch_errors(page)
        page.goto(f"{server.base}/t/{table['id']}", wait_until="domcontentloaded")
        page.wait_for_selector("#zones .zone", timeout=tb.CAMERA_MS)
        assert page.inner_text("#zones-text").startswith("Check the piles the camera found")
        with page.expect_response(f"**/api/tables/{table['id']}/zones"):
            page.click("#zones-confirm")
        page.wait_for_function(
            "document.getElementById('zones-text').textContent.startsWith('Zones confirmed')",
            timeout=tb.LIVE_MS,
        )
        region = page.eval_on_selector("#zones-text", LIVE_REGION_JS)
        # the camera's next pictures redraw the page: the sentence's text stays the same node
        page.evaluate("window.zonesSaid = document.getElementById('zones-text').firstChild")
        version = int(page.evaluate("document.body.dataset.version"))
        page.wait_for_function(f"document.body.dataset.version > {version}", timeout=tb.CAMERA_MS)
        kept = page.evaluate(
            "window.zonesSaid === document.getElementById('zones-text').firstChild"
        )
        page.close()
    assert (region, kept) == ("status", True)
    assert not errors, errors


def test_the_camera_zones_pass_axe(axe, browser, tmp_path):
    """A Skip-Bo camera table's page while its piles are checked (the picture, its markers,
    the zones bar) passes axe-core's rules, on a phone and a laptop."""
    found = {}
    with tb.camera_video_server(tmp_path, "skipbo", 2, 1, max_moves=10) as (server, table):
        for name, viewport in (("phone", tb.PHONE), ("laptop", tb.LAPTOP)):
            page = browser.new_page(viewport=viewport)
            page.goto(f"{server.base}/t/{table['id']}", wait_until="domcontentloaded")
            page.wait_for_selector("#zones .zone", timeout=tb.CAMERA_MS)
            found[name] = violations(axe, page)
            page.close()
    assert found == {"phone": [], "laptop": []}, found


# What the keyboard's focus shows: the focused control's outline, shadow, colours and
# underline, each control's looks without the focus kept first (``data-look``); a file input
# hidden from sight shows it on its button (file_picker.html)
LOOKS_JS = """(e) => {
  if (e.matches('input.file-input')) e = document.querySelector(`label.file-btn[for="${e.id}"]`);
  const s = getComputedStyle(e);
  return JSON.stringify([s.outlineStyle === 'none' ? 'none' : s.outline, s.boxShadow,
    s.backgroundColor, s.borderColor, s.color, s.textDecorationLine]);
}"""


def focus_shows(plain: list[str], focused: list[str]) -> bool:
    """Whether a control's looks with the focus (``LOOKS_JS``) show it: an outline, a ring
    (a shadow it has not without the focus), or other colours or underline; a shadow lost
    alone is no sign."""
    outline, shadow = focused[:2]
    return outline != "none" or shadow not in ("none", plain[1]) or plain[2:] != focused[2:]


def test_the_keyboards_focus_shows_on_every_control(browser, server):
    """Tabbing through the pages a family meets, every control the focus lands on looks other
    than it does without it (an outline, a ring, a colour): none hides it."""
    status, t = server.post(
        "/api/tables", {"game": "skipbo", "players": 2, "names": "Anna, Bo", "stock": 5}
    )
    assert status == 201
    on_turn = server.get(f"/api/tables/{t['id']}")["to_move"]
    page = browser.new_page(viewport=tb.LAPTOP)
    errors = tb.watch_errors(page)
    unseen, stops = [], 0
    for path in ("/", "/new?game=stigespill", t["url"], t["players"][on_turn]["url"]):
        page.goto(f"{server.base}{path}")
        page.wait_for_load_state()
        page.eval_on_selector_all(
            "a[href], button, input, select, textarea, summary, [tabindex]",
            f"es => es.forEach((e, i) => {{ e.dataset.look = ({LOOKS_JS})(e); e.dataset.i = i; }})",
        )
        seen = set()
        for _ in range(60):  # each stop, till the focus comes round or leaves the page
            page.keyboard.press("Tab")
            now = page.evaluate(
                f"""() => {{ const e = document.activeElement;
                  if (!e || e === document.body || !e.dataset.look) return null;
                  const name = (e.getAttribute('aria-label') || e.textContent).trim().slice(0, 40);
                  return [e.dataset.i, e.dataset.look, ({LOOKS_JS})(e),
                          `${{e.tagName}}.${{e.className}} ${{name}}`]; }}"""
            )
            if now is None or now[0] in seen:
                break
            seen.add(now[0])
            stops += 1
            if not focus_shows(json.loads(now[1]), json.loads(now[2])):
                unseen.append((path, now[3]))
    page.close()
    assert stops >= 30, stops
    assert not unseen, unseen
    assert not errors, errors


# The page's file input as a user meets it: its box, whether it has the focus, and the
# button-like label for it with that label's looks (``LOOKS_JS``) and the name beside it
PICKER_JS = f"""() => {{
  const input = document.querySelector('input[type=file]'), box = input.getBoundingClientRect();
  const button = input.id && document.querySelector(`label.file-btn[for="${{input.id}}"]`);
  return {{box: [box.width, box.height], focused: document.activeElement === input,
    button: button && button.innerText.trim(), look: button && ({LOOKS_JS})(button),
    name: input.id && document.getElementById(`${{input.id}}-name`)?.innerText}};
}}"""


def test_a_photos_file_picker_speaks_the_pages_language(browser, server):
    """The road photo's file picker (and a hand's photo, a phone camera's pictures) showed
    the browser's own "Choose File" and "No file chosen", in the browser's language on a
    Norwegian page. Its input is hidden from sight now and its button is a label in the
    page's words, which the keyboard reaches (Tab, its focus ringed) and beside which the
    chosen file's name stands."""
    status, sten = server.post("/api/tables", {"game": "sten", "players": 2, "deal": "table"})
    assert status == 201
    body = {"game": "stigespill", "players": 2, "source": "phone"}
    status, camera = server.post("/api/tables", body)
    assert status == 201
    context = browser.new_context(viewport=tb.PHONE, locale="en-US")  # the browser: English
    context.add_cookies([{"name": "lang", "value": "nb", "url": server.base}])
    page = context.new_page()
    errors = tb.watch_errors(page)
    seen = {}
    for picker, path, before in (  # before: the control the focus leaves for the input
        ("road photo", "/new?game=stigespill", "textarea[name=road]"),
        ("hand photo", sten["players"][0]["url"], "#photo-box summary"),
        ("camera picture", camera["url"], "#phone-start"),
    ):
        page.goto(f"{server.base}{path}")
        page.wait_for_load_state()
        if picker == "hand photo":
            page.click("#photo-box summary")
        if picker == "camera picture":  # shown where live video is not given (no https://)
            page.evaluate("document.getElementById('phone-snap-label').hidden = false")
        plain = page.evaluate(PICKER_JS)
        page.focus(before)
        page.keyboard.press("Tab")
        focused = page.evaluate(PICKER_JS)
        page.route("**/photo", lambda route: route.fulfill(json={"codes": []}))
        page.route("**/frame?still=1", lambda route: route.fulfill(json={"ok": True}))
        page.set_input_files(
            "input[type=file]", {"name": "bordet.jpg", "mimeType": "image/jpeg", "buffer": b"x"}
        )
        chosen = page.evaluate(PICKER_JS)
        seen[picker] = (plain, focused, chosen)
    context.close()
    for picker, (plain, focused, chosen) in seen.items():
        assert max(plain["box"]) <= 1, (picker, plain)  # the browser's own button unseen
        assert plain["button"] == "Ta eller velg et bilde", (picker, plain)
        assert plain["name"] == "Ikke noe bilde valgt", (picker, plain)
        assert focused["focused"], (picker, focused)
        assert focus_shows(json.loads(plain["look"]), json.loads(focused["look"])), picker
        assert chosen["name"] == "bordet.jpg", (picker, chosen)
    assert not errors, errors

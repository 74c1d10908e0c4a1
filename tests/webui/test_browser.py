"""End to end in a real headless Chromium (Debian's ``chromium``, driven by Playwright).

Screenshots at phone (390×844) and laptop (1280×800) sizes go to ``tests/artifacts/``.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.webui.conftest import token, zone_map
from tests.webui.server import WAIT_S, Server
from webui.camera_bp import MJPEG_IDLE_S

pytestmark = pytest.mark.browser
T = TypeVar("T")

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--use-fake-device-for-media-stream",  # a test pattern for the phone-camera page
    "--use-fake-ui-for-media-stream",
]
ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
PHONE = {"width": 390, "height": 844}
SMALL_PHONE = {"width": 360, "height": 780}  # many Android phones
NARROW_PHONE = {"width": 320, "height": 640}  # the narrowest phones in use
LAPTOP = {"width": 1280, "height": 800}
# How long a page is given for a live update (a tap's answer, another page's server-sent
# event, a reconnection), in ms: a busy two-core machine takes seconds over what an idle one
# does at once. Each wait ends as its condition holds, so only a failing test waits this long.
LIVE_MS = 15000
# How long a camera table's page is given for what its camera reads from a video: the
# camera's worker loads the recognizer first, then reads picture by picture.
CAMERA_MS = 60000


class LenientBrowser:
    """Chromium whose pages let the tests' own scripts run: Playwright evaluates a waiting
    condition given as text, which the pages' policy forbids (no eval). The policy itself
    is tested on pages that keep it (:func:`strict_page`)."""

    def __init__(self, chromium) -> None:
        self.chromium = chromium

    def new_page(self, **options):
        return self.chromium.new_page(bypass_csp=True, **options)

    def new_context(self, **options):
        return self.chromium.new_context(bypass_csp=True, **options)


@pytest.fixture(scope="module")
def chromium():
    if not os.path.exists(CHROMIUM):
        pytest.skip("Debian's chromium is not installed (make test installs it)")
    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture(scope="module")
def browser(chromium):
    return LenientBrowser(chromium)


def render_demo(data: Path) -> dict | None:
    """Render a short demo video where ``kortbord serve --demo`` looks for it (if possible)."""
    try:
        from vision.synth.video import VideoSettings, make_video
    except ImportError:
        return None
    settings = VideoSettings(size=(640, 360), jpeg=75, hold=1.0)
    return make_video("stigespill", 3, 7, data / "demo", max_moves=12, settings=settings)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    data = tmp_path_factory.mktemp("web") / "data"
    events = render_demo(data)
    s = Server(data, extra=["--demo"], env={"KORTBORD_DEMO_PACE": "0.4"}).start()
    s.demo_events = events
    yield s
    s.stop()


@contextmanager
def camera_video_server(tmp_path: Path, game: str, players: int, seed: int, max_moves: int):
    """Serve a generated video of ``game`` as the camera of a new table: ``(server, table)``."""
    try:
        from vision.synth.video import VideoSettings, make_video
    except ImportError:
        pytest.skip("the scene generator (vision.synth) is not installed")
    video = tmp_path / f"{game}-video"
    settings = VideoSettings(size=(640, 360), jpeg=75, hold=1.0)
    make_video(game, players, seed, video, max_moves=max_moves, settings=settings)
    server = Server(tmp_path / "data", extra=["--source", str(video)]).start()
    try:
        yield server, server.get("/api/tables")["tables"][0]
    finally:
        server.stop()


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)


def watch_errors(page) -> list[str]:
    errors: list[str] = []

    def on_console(message) -> None:
        if message.type == "error":  # its place names what a "Failed to load resource" was
            errors.append(f"{message.text} ({message.location.get('url')})")

    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", on_console)
    return errors


def on_turns_phone(browser, server, body: dict, stop_clock: bool = False):
    """Make a table; open the phone page of the player on turn (its clock stopped, if asked:
    :func:`clock_stopped`): ``(table, page, errors)``."""
    status, t = server.post("/api/tables", body)
    assert status == 201
    seat = server.get(f"/api/tables/{t['id']}")["to_move"]
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    if stop_clock:
        clock_stopped(page)
    page.goto(f"{server.base}{t['players'][seat]['url']}")
    return t, page, errors


def phone_camera_table(browser, server, viewport: dict):
    """Make a Stigespill table whose camera is a phone; open its page: ``(table, page, errors)``."""
    status, t = server.post(
        "/api/tables", {"game": "stigespill", "players": 2, "source": "phone", "name": "Phone"}
    )
    assert status == 201
    page = browser.new_page(viewport=viewport)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")  # the MJPEG never ends
    return t, page, errors


def moves_made(page) -> int:
    return int(page.evaluate("document.body.dataset.moves"))


def settled(page) -> None:
    """Wait until ``page`` has taken the answer to its last change: until then a tap sends
    nothing (live.js: a second tap while the first is on its way), and the live update that
    shows the change may come before the answer."""
    page.wait_for_function("!document.body.classList.contains('sending')", timeout=LIVE_MS)


def clock_stopped(page) -> None:
    """Stop ``page``'s clock before it opens a page (Playwright's fake clock, paused): what a
    page shows for a while (a toast's line, an answered prompt's space) stayed only so many
    seconds of the machine's time, and a busy machine's answer came after it had gone.
    ``page.clock.run_for`` moves the clock on; requestAnimationFrame waits for it too."""
    now = time.time()
    page.clock.install(time=now)
    page.clock.pause_at(now + 60)  # nothing runs yet: no timer fires on the way


def polled(ask: Callable[[], T], done: Callable[[T], bool], seconds: float = WAIT_S) -> T:
    """Ask ``ask`` until ``done`` holds for its answer or ``seconds`` pass (a busy machine
    answers late); return the last answer."""
    deadline = time.monotonic() + seconds
    while not done(answer := ask()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return answer


def box_of(locator) -> dict:
    """The box ``locator`` stands in. A live update draws the board anew: the element found may
    be replaced before it is measured (Playwright answers None), so it is asked again."""
    box = polled(locator.bounding_box, lambda b: b is not None)
    assert box is not None, f"{locator} is not shown"
    return box


def wait_for_the_app_draw(page, server, table_id: str) -> list[str]:
    """Wait until ``page`` shows the table after one draw whose card the app drew: two moves,
    or more when the card was the joker (the die is shuffled and the player draws again).
    Return the kinds of the moves made, as the server logged them."""
    page.wait_for_function("document.body.dataset.moves >= 2", timeout=LIVE_MS)
    kinds = [m["kind"] for m in server.get(f"/api/tables/{table_id}/log")["moves"]]
    assert moves_made(page) == len(kinds), kinds
    return kinds


def greedy_skipbo(server: Server, tokens: list[str], table_id: str, limit: int = 2000) -> None:
    """Finish the game through the players' pages: stock first, then any play, else discard."""
    for _ in range(limit):
        snap = server.get(f"/api/tables/{table_id}")
        if snap["over"]:
            return
        seat = snap["to_move"]
        mine = server.get(f"/api/p/{tokens[seat]}")
        moves = [m["move"] for m in mine["moves"]]
        plays = [m for m in moves if m["kind"] == "play"]
        stock = [m for m in plays if m["source"] == "stock"]
        pick = (
            stock
            or [m for m in plays if m["card"] != "SBW"]
            or [m for m in moves if m["kind"] in ("discard", "end_turn")]
            or moves
        )[0]
        status, body = server.post(f"/api/p/{tokens[seat]}/moves", {"move": pick})
        assert status == 200, body
    raise AssertionError("the game did not end")


# Each Skip-Bo seat's line on the board: its name and what it says of the seat.
SKIPBO_SEATS_JS = """() => [...document.querySelectorAll('.sb-player')].map((p) => ({
  who: p.querySelector('.sb-who').textContent,
  stock: p.querySelector('.stock-count').textContent,
  discards: p.querySelectorAll('.sb-discards .fan').length,
}))"""


def test_a_finished_skipbo_game_says_nothing_of_the_hands(browser, server):
    """A finished Skip-Bo game's seats each said "Hand: 0" (the hands are played out or
    thrown in: nothing a player reads from them once the game is over). During a game each
    seat says how many cards its hand holds; at the end it says nothing of the hand, its
    name, stock and discard piles as before (the table's page and a player's, in nb)."""
    t = server.post(
        "/api/tables", {"game": "skipbo", "players": 2, "names": "Anna, Bo", "stock": 5}
    )[1]
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": "nb"})
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
    page.wait_for_selector(".sb-player")
    during = page.evaluate(SKIPBO_SEATS_JS)
    assert [re.sub(r"\d+$", "N", s["who"]) for s in during] == ["AnnaHånd: N", "BoHånd: N"]
    greedy_skipbo(server, tokens, t["id"])
    for url in (t["url"], t["players"][0]["url"]):
        page.goto(f"{server.base}{url}", wait_until="domcontentloaded")
        page.wait_for_selector(".sb-player")
        seats = page.evaluate(SKIPBO_SEATS_JS)
        assert sorted(s["who"] for s in seats) == ["Anna", "Bo"], seats
        kept = [s["stock"].startswith("Grunnbunke ") and s["discards"] == 4 for s in seats]
        assert all(kept), seats
        shot(page, f"skipbo-over-seats-{'table' if url == t['url'] else 'player'}-nb")
    page.close()
    assert not errors, errors


def test_skipbo_match_by_tapping_seen_on_a_second_page(browser, server):
    laptop = browser.new_page(viewport=LAPTOP)
    errors = watch_errors(laptop)
    laptop.goto(f"{server.base}/new?game=skipbo")
    laptop.fill("input[name=name]", "Kitchen table")
    laptop.fill("input[name=players]", "2")
    laptop.fill("input[name=names]", "Anna, Bo")
    laptop.fill("input[name=stock]", "5")
    laptop.fill("input[name=match_target]", "60")
    laptop.click("button[type=submit]")
    laptop.wait_for_selector(".sb-build")
    table_id = laptop.url.rsplit("/", 1)[1]
    # before a game has ended the match panel says what the race is: no empty chart
    assert laptop.inner_text("#match-start").startswith("First to 60 points wins the match.")
    assert laptop.locator("#match #chart, #match table").count() == 0
    tokens = [
        laptop.get_attribute(f".qr-card[data-seat='{s}']", "href").rsplit("/", 1)[1] for s in (0, 1)
    ]

    phone = browser.new_page(viewport=PHONE)
    errors += watch_errors(phone)
    phone.goto(f"{server.base}/p/{tokens[0]}")
    phone.wait_for_selector("#hand .card")
    assert phone.inner_text("#turn-chip") == "Your turn"
    shot(phone, "skipbo-private-phone")
    # tap a hand card, then the discard pile it goes to: Anna's turn ends
    before = moves_made(laptop)
    phone.click("#hand button.card")
    # an update that changes no move (a refused move shown on every page) keeps the pick
    version = int(phone.evaluate("document.body.dataset.version"))
    status, _ = server.post(f"/api/tables/{table_id}/moves", {"move": {"kind": "end_turn"}})
    assert status == 409
    phone.wait_for_function(f"document.body.dataset.version > {version}", timeout=LIVE_MS)
    assert phone.locator("#hand button.card.selected").count() >= 1  # (its twins too)
    phone.click(".fan.target >> nth=0")
    laptop.wait_for_function(f"document.body.dataset.moves > {before}", timeout=LIVE_MS)
    assert "Anna discards" in laptop.inner_text("#last")
    assert laptop.locator(".sb-player[data-seat='0'] .fan .card:not(.empty)").count() == 1
    # the rest of the game through the players' pages; the laptop follows live
    greedy_skipbo(server, tokens, table_id)
    laptop.wait_for_selector("#next-game", timeout=LIVE_MS)
    laptop.wait_for_selector("#chart svg polyline", state="attached", timeout=LIVE_MS)
    assert laptop.locator("#chart polyline").count() == 2
    totals = [int(v) for v in laptop.locator("#match tfoot th").all_inner_texts()[1:]]
    # 25 for going out plus 5 a card in the other stock; a stalled game (the shuffle
    # decides) scores only the 5s, so the points are 5s, and someone scored
    assert max(totals) > 0 and all(v % 5 == 0 for v in totals)
    shot(laptop, "skipbo-match-laptop")
    # the chart's words are readable on a phone, and not shouted on a laptop
    phone.goto(f"{server.base}/matches/{table_id}")
    on_phone = phone.evaluate(CHART_TEXT_PX_JS)
    laptop_sizes = laptop.evaluate(CHART_TEXT_PX_JS)
    phone.go_back()
    assert min(on_phone) >= 11.5 and max(laptop_sizes) <= 18, (on_phone, laptop_sizes)
    # the player's page, where no move is left, says where the next game starts
    phone.wait_for_selector("#next-on-table")  # found again as it is read: drawn on each update
    said = phone.inner_text("#next-on-table")
    assert said == "Game over. The next game starts from the table's page."
    laptop.click("#next-game")
    laptop.wait_for_function("document.getElementById('game-no').textContent.includes('2')")
    phone.wait_for_function("document.body.dataset.moves == 0", timeout=LIVE_MS)
    assert not errors, errors


# The size in CSS pixels each word of the match chart is drawn at (the SVG is scaled to fit).
CHART_TEXT_PX_JS = """() => {
  const svg = document.querySelector('svg.race');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const px = (t) => parseFloat(getComputedStyle(t).fontSize) * scale;
  return [...svg.querySelectorAll('text')].map(px);
}"""


BOARD_CLEAR_JS = """() => {
  const inside = (pt, b) =>
    pt.x >= b.x && pt.x <= b.x + b.width && pt.y >= b.y && pt.y <= b.y + b.height;
  const suits = [...document.querySelectorAll('.road .tile.face .tile-suit')].map(t => t.getBBox());
  const ends = [...document.querySelectorAll('.road .jump')]
    .flatMap(p => [p.getPointAtLength(0), p.getPointAtLength(p.getTotalLength())]);
  return {
    arrow_ends_on_suits: ends.filter(pt => suits.some(b => inside(pt, b))).length,
  };
}"""

# How the tokens on the start stand (in CSS pixels, as drawn): how many cover its word, touch
# another token, stand outside its square or on another; the letters that stick out of their
# token; the smallest letter's size.
TOKENS_CLEAR_JS = """() => {
  const label = document.querySelector('.road .tile.start .tile-small').getBoundingClientRect();
  const tile = document.querySelector('.road .tile.start rect').getBoundingClientRect();
  const others = [...document.querySelectorAll('.road .tile:not(.start) rect')]
    .map(r => r.getBoundingClientRect());
  const tokens = [...document.querySelectorAll('.road .token')].map(g => {
    const c = g.querySelector('circle').getBoundingClientRect();
    const text = g.querySelector('text');
    return { x: c.x + c.width / 2, y: c.y + c.height / 2, r: c.width / 2,
             letter: text.getBoundingClientRect(),
             px: parseFloat(getComputedStyle(text).fontSize) * text.getScreenCTM().a };
  });
  const covers = (c, b) => c.x + c.r > b.x && c.x - c.r < b.right && c.y + c.r > b.y
    && c.y - c.r < b.bottom;
  const within = (c, b) => c.x - c.r >= b.x && c.x + c.r <= b.right && c.y - c.r >= b.y
    && c.y + c.r <= b.bottom;
  const touching = tokens.filter((c, i) => tokens.some((o, j) =>
    i !== j && Math.hypot(c.x - o.x, c.y - o.y) < c.r + o.r));
  // a letter's box is its line's height, more than its ink: its width must fit
  const sticking = tokens.filter(c => c.letter.x < c.x - c.r || c.letter.right > c.x + c.r);
  return {
    tokens_on_start_label: tokens.filter(c => covers(c, label)).length,
    tokens_touching: touching.length,
    tokens_off_start: tokens.filter(c => !within(c, tile)).length,
    tokens_on_other_squares: tokens.filter(c => others.some(b => covers(c, b))).length,
    letters_sticking_out: sticking.length,
    tokens: tokens.length,
    smallest_letter_px: Math.min(...tokens.map(c => c.px)),
  };
}"""


def test_stigespill_by_tapping_die_cards(browser, server):
    # a fixed road, so the taps below climb ladders, slide down a snake and nobody wins yet
    road = "7S 8H 9D JS 10C 8S QH 9C 7D KS 10H 8D JD 9S 7C QC 10D 8C KH 9H JC 7H QS 10S KD QD KC JH"
    status, t = server.post(
        "/api/tables",
        {
            "game": "stigespill",
            "players": 3,
            "deal": "table",
            "names": "Anna, Bo, Cecilie",
            "name": "Stigespill",
            "road": road,
        },
    )
    assert status == 201
    laptop = browser.new_page(viewport=LAPTOP)
    errors = watch_errors(laptop)
    laptop.goto(f"{server.base}{t['url']}")
    laptop.wait_for_selector(".road .tile")
    assert laptop.locator(".road .tile").count() == 30
    assert laptop.locator(".road .jump").count() == 6  # six twin pairs: a ladder and a snake each
    # no arrow ends on a face card's suit; the tokens at the start leave its label readable
    assert laptop.evaluate(BOARD_CLEAR_JS) == {"arrow_ends_on_suits": 0}
    clear = laptop.evaluate(TOKENS_CLEAR_JS)
    assert clear["tokens"] == 3 and clear["tokens_on_start_label"] == 0, clear
    assert clear["tokens_touching"] == 0, clear
    # a screen reader hears where the tokens stand and where the six ladders go
    label = laptop.get_attribute(".road", "aria-label")
    assert "Anna at 0, 29 to go" in label and label.count("→") == 6, label
    second = browser.new_page(viewport=PHONE)
    second.goto(f"{server.base}{t['url']}")
    second.wait_for_selector(".road .tile")
    # the drawn card's button is the draw: no second way to draw beside it
    laptop.locator(".pile-do button.card[data-code='5H']").wait_for(timeout=LIVE_MS)
    assert laptop.locator("button[data-kind='draw']").count() == 0
    for k, card in enumerate(["5H", "6S", "4C", "3D", "6H", "2S", "5C", "AD", "4H"]):
        button = laptop.locator(f".pile-do button.card[data-code='{card}']")
        try:
            button.wait_for(timeout=LIVE_MS)
        except Exception:
            state = laptop.evaluate("JSON.stringify(Kortbord.snapshot())")
            raise AssertionError(f"no button for {card} after {k} taps: {state[:3000]}") from None
        settled(laptop)  # the board may show the last draw before its tap is answered
        button.click()
        laptop.wait_for_function(f"document.body.dataset.moves == {2 * (k + 1)}")
    second.wait_for_function("document.body.dataset.moves == 18", timeout=LIVE_MS)
    assert "drew" in second.inner_text("#last")
    positions = second.evaluate("Kortbord.snapshot().view.tokens.map(t => t.position)")
    assert any(p > 0 for p in positions)
    shot(laptop, "stigespill-laptop")
    shot(second, "stigespill-phone")
    # undo on one page is seen on the other
    settled(laptop)
    laptop.click("#undo")
    second.wait_for_function("document.body.dataset.moves == 16", timeout=LIVE_MS)
    settled(laptop)
    laptop.click("#redo")
    second.wait_for_function("document.body.dataset.moves == 18", timeout=LIVE_MS)
    # an impossible card: the referee says why, on every page
    status, _ = server.post(
        f"/api/tables/{t['id']}/moves",
        {"moves": [{"kind": "draw"}, {"kind": "reveal", "card": "5H"}]},
    )
    assert status == 409
    second.wait_for_selector("#prompt.illegal", timeout=LIVE_MS)
    assert "5♥" in second.inner_text("#prompt")
    # dismissed by keyboard: the notice goes, the focus stays on the page's controls
    second.locator("#prompt button").focus()
    second.keyboard.press("Enter")
    second.wait_for_selector("#prompt", state="hidden", timeout=LIVE_MS)
    assert second.evaluate("document.activeElement.id") == "turn-chip"
    assert not errors, errors


def test_a_phone_camera_page_sends_pictures_and_says_how_fast(browser, server):
    """The page sends its camera's pictures one at a time and shows the pace; the server's
    camera reads them."""
    t, page, errors = phone_camera_table(browser, server, PHONE)
    page.click("#phone-start")
    page.wait_for_function(
        "/[0-9.,]+ pictures a second/.test(document.getElementById('phone-rate').textContent)",
        timeout=LIVE_MS,
    )
    camera = polled(  # the camera's worker loads the recognizer first
        lambda: server.get(f"/api/tables/{t['id']}/camera"),
        lambda c: c.get("frames"),
        CAMERA_MS / 1000,
    )
    assert camera.get("frames", 0) >= 1, camera
    page.close()
    assert not errors, errors
    # a camera the user did not allow: said in the page's words, and pictures offered instead
    page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": "sv"})
    page.add_init_script(
        "navigator.mediaDevices.getUserMedia = () => "
        "Promise.reject(new DOMException('Permission denied', 'NotAllowedError'))"
    )
    page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
    page.click("#phone-start")
    page.wait_for_selector("#phone-snap-label:not([hidden])")
    assert page.inner_text("#phone-snap-why") == "Skicka bilder från kameraappen:"
    assert page.inner_text("#toast").startswith("Kameran fick inte tillåtelse")
    page.close()
    # a page at a LAN address over http (no secure context), a phone's or a laptop's:
    # pictures one at a time, and why
    page = browser.new_page(viewport=LAPTOP)
    page.add_init_script("Object.defineProperty(window, 'isSecureContext', { value: false })")
    page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
    page.wait_for_selector("#phone-snap-label:not([hidden])")
    assert page.locator("#phone-start").is_hidden()
    why = page.inner_text("#phone-snap-why")
    assert why == "Live video needs an https:// address here; send pictures instead:"
    page.close()


def test_stigespill_against_the_demo_video(browser, server):
    """The demo table follows its video through the camera pipeline (or, without the video
    stack, plays itself); the page shows the camera and the board move by move."""
    tables = server.get("/api/tables")["tables"]
    demo = next(t for t in tables if t["name"] == "Demo")
    phone = browser.new_page(viewport=PHONE)
    errors = watch_errors(phone)
    phone.goto(f"{server.base}/t/{demo['id']}")
    phone.wait_for_selector(".road .token")
    # (the demo's video starts when a page opens the table, or a few seconds after a pass
    # ends: its first moves take a while)
    phone.wait_for_function("document.body.dataset.moves >= 4", timeout=CAMERA_MS)
    log = server.get(f"/api/tables/{demo['id']}/log")
    watching = server.get(f"/api/tables/{demo['id']}")["table"]["source"].startswith("video:")
    if server.demo_events is not None and watching:
        # every move came from the camera and is exactly what happened in the video
        assert set(log["sources"]) == {"camera"}
        assert log["moves"] == server.demo_events["moves"][: len(log["moves"])]
        # (the viewer opens again when the demo's video starts over: give it a moment)
        phone.wait_for_function(
            "document.getElementById('camera').naturalWidth > 0", timeout=LIVE_MS
        )
    # a draw is told (waited for: the video may have started over meanwhile, "Anna begins")
    phone.wait_for_function("document.getElementById('last').textContent.includes('drew')")
    shot(phone, "demo-phone")
    laptop = browser.new_page(viewport=LAPTOP)
    laptop.goto(f"{server.base}/t/{demo['id']}")
    laptop.wait_for_selector(".road .token")
    laptop.wait_for_timeout(600)
    shot(laptop, "demo-laptop")
    assert not errors, errors


def test_sten_private_page_and_home(browser, server):
    _, t = server.post(
        "/api/tables", {"game": "sten", "players": 3, "names": "Anna, Bo, Cecilie", "name": "Sten"}
    )
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    for _ in range(14):  # a few moves, each from the hint of the player on turn
        snap = server.get(f"/api/tables/{t['id']}")
        mine = server.get(f"/api/p/{tokens[snap['to_move']]}")
        server.post(f"/api/p/{tokens[snap['to_move']]}/moves", {"move": mine["hint"]["move"]})
    seat = server.get(f"/api/tables/{t['id']}")["to_move"]
    phone = browser.new_page(viewport=PHONE)
    errors = watch_errors(phone)
    phone.goto(f"{server.base}/p/{tokens[seat]}")
    phone.wait_for_selector(".sten-grid")
    assert phone.locator("#hint").is_visible()
    shot(phone, "sten-private-phone")
    before = moves_made(phone)
    # lay a card that fits, or say Sten when none does
    phone.click("#hand button.card.fits, #moves button[data-kind='sten'] >> nth=0")
    phone.wait_for_function(f"document.body.dataset.moves > {before}")
    laptop = browser.new_page(viewport=LAPTOP)
    laptop.goto(f"{server.base}/t/{t['id']}")
    laptop.wait_for_selector(".sten-grid")
    shot(laptop, "sten-laptop")
    home = browser.new_page(
        viewport=PHONE, locale="nb-NO", extra_http_headers={"Accept-Language": "nb"}
    )
    home.goto(f"{server.base}/")
    assert "pågår" in home.inner_text("main").lower()
    # a phone's top bar: Matches, and every language in the menu (Norsk was once hidden)
    assert home.locator(".topnav > a[href='/matches']").is_visible()
    home.click(".langs summary")
    shown = [a.inner_text() for a in home.locator(".langs-menu a").all() if a.is_visible()]
    languages = ["English", "Norsk", "Dansk", "Svenska"]
    assert shown == [*languages, "J Q K A", "Kn D K E", "B D K E"]  # and the cards' letters
    home.click(".langs summary")
    shot(home, "home-phone-nb")
    assert not errors, errors


def test_a_skipbo_card_tapped_onto_a_pile_it_does_not_fit_says_why(browser, server):
    """A hand card chosen, a building pile it does not fit had done nothing when tapped."""
    for _ in range(5):  # a hand of ones and wilds fits every empty pile: deal again
        status, t = server.post("/api/tables", {"game": "skipbo", "players": 2, "stock": 5})
        assert status == 201
        seat = server.get(f"/api/tables/{t['id']}")["to_move"]
        token = t["players"][seat]["url"].rsplit("/", 1)[1]
        misfits = [
            c for c in server.get(f"/api/p/{token}")["view"]["hand"] if c not in ("SB1", "SBW")
        ]
        if misfits:
            break
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}/p/{token}")
    page.click(f"#hand button.card[data-code='{misfits[0]}'] >> nth=0")
    page.click(".sb-build .pile >> nth=0 >> .card")
    page.wait_for_selector("#toast.bad")
    n = misfits[0].removeprefix("SB")
    assert page.inner_text("#toast") == f"{n} does not go on building pile 1: it needs 1"
    assert server.get(f"/api/tables/{t['id']}")["moves_made"] == 0
    page.close()
    assert not errors, errors


def test_a_phone_takes_back_a_card_tapped_by_mistake(browser, server):
    body = {"game": "stigespill", "players": 2, "names": "Anna, Bo", "deal": "table"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['players'][0]['url']}")
    assert page.locator("#undo-mine").is_hidden()
    page.click("#moves button.card[data-code='5H']")  # Anna drew 4♥, tapped 5♥
    page.wait_for_function("document.body.dataset.moves == 2")
    settled(page)
    page.click("#undo-mine")
    page.wait_for_function("document.body.dataset.moves == 0")
    assert page.locator("#undo-mine").is_hidden()
    # the table's page says which real card goes back
    assert "Undone: Anna drew 5♥" in server.get(f"/api/tables/{t['id']}")["notice"]["check"]
    page.close()
    assert not errors, errors


def test_a_card_to_say_is_asked_as_yours_and_the_others_wait_for_its_player(browser, server):
    """At a real Skip-Bo table Anna's stock card turns up: her phone asked "Which card turned
    up on Anna's stock?", and Bo's said "Nothing to do now.", not whom the table waits for."""
    body = {"game": "skipbo", "players": 2, "names": "Anna, Bo", "deal": "table"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    chance = server.get(f"/api/tables/{t['id']}")["chance"]
    asked = chance["seat"] if chance["seat"] is not None else chance["about"]
    pages = {}
    for seat in (0, 1):
        pages[seat] = browser.new_page(viewport=PHONE)
        pages[seat].goto(f"{server.base}{t['players'][seat]['url']}")
    mine, other = pages[asked], pages[1 - asked]
    mine.wait_for_selector("p.question")
    assert mine.inner_text("p.question") == "Which card turned up on your stock?"
    other.wait_for_selector("#moves p")
    assert other.inner_text("#moves") == f"Waiting for {['Anna', 'Bo'][asked]}"
    for page in pages.values():
        page.close()


def test_a_real_table_deal_says_who_enters_the_card_where(browser, server):
    """Stigespill strategy with real cards: each dealt card is entered on its owner's phone;
    the shared page says so instead of "nothing to do" and "Anna draws…"."""
    body = {"game": "stigespill", "players": 2, "names": "Anna, Bo", "variant": "strategy",
            "deal": "table"}  # fmt: skip
    status, t = server.post("/api/tables", body)
    assert status == 201
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("#moves p")
    owner = server.get(f"/api/tables/{t['id']}")["chance"]["seat"]
    name = ["Anna", "Bo"][owner]
    assert page.inner_text("#turn-chip") == f"Dealing: {name}'s card"
    assert "Each player enters their dealt cards on their own phone" in page.inner_text("#moves")
    assert f"Next card: {name}." in page.inner_text("#moves")
    # the players see whose cards are noted, and whose the deal still waits for
    other = 1 - owner
    token = t["players"][other]["url"].rsplit("/", 1)[1]
    assert server.post(f"/api/p/{token}/deal", {"note": ["2D", "6S"]})[0] == 200
    row = page.locator(f"#players li:nth-child({other + 1})")
    row.filter(has_text="2 noted").wait_for(timeout=LIVE_MS)
    assert "noted" not in page.locator(f"#players li:nth-child({owner + 1})").inner_text()
    page.close()
    assert not errors, errors


def test_a_real_table_deal_is_tapped_in_on_every_phone_at_once(browser, server):
    """Stigespill strategy with real cards: the referee takes the dealt cards seat by seat,
    but no phone waits for its turn: each player taps their three cards at once, and the
    table enters them as the deal comes round to each seat, even a phone gone to sleep."""
    body = {"game": "stigespill", "players": 3, "names": "Anna, Bo, Cy", "variant": "strategy",
            "deal": "table"}  # fmt: skip
    status, t = server.post("/api/tables", body)
    assert status == 201
    dealt = {2: ["AS", "5H", "3C"], 1: ["2D", "6S", "AH"], 0: ["4C", "4D", "6H"]}
    cy = f"/api/p/{token(t, 2)}"
    phones, errors = {}, []
    for seat in (2, 1, 0):  # the last seat first: the deal starts at Anna
        phone = browser.new_page(viewport=PHONE)
        errors += watch_errors(phone)
        phone.goto(f"{server.base}{t['players'][seat]['url']}")
        phone.wait_for_selector("#chance .card-grid")
        assert "3 more" in phone.inner_text("#chance")
        if seat == 2:  # a card tapped by mistake is taken back before it is entered
            phone.click("#chance [data-key='deal:2S']")
            phone.click("#chance [data-key='dealt:2S']")
            assert phone.locator("#chance [data-key='dealt:2S']").count() == 0
        for code in dealt[seat]:
            phone.click(f"#chance [data-key='deal:{code}']")
        if seat == 2:  # the deal waits at Anna's first card: Cy's three wait on the table
            assert "noted" in phone.inner_text("#chance")
            # sent before it sleeps (on a busy machine a tap's answer may take seconds)
            noted = polled(lambda: server.get(cy)["deal"]["noted"], lambda n: len(n) == 3)
            assert sorted(noted) == sorted(dealt[seat]), noted
            phone.close()  # Cy's phone sleeps from now on
            continue
        phones[seat] = phone
    # each phone enters its next card when the deal comes round to it
    state = polled(
        lambda: server.get(f"/api/tables/{t['id']}"), lambda s: s["view"]["waiting_for"] is None
    )
    assert state["view"]["waiting_for"] is None and state["view"]["hand_sizes"] == [3, 3, 3]
    for seat in dealt:
        assert sorted(server.get(f"/api/p/{token(t, seat)}")["view"]["hand"]) == sorted(dealt[seat])
    for phone in phones.values():
        phone.wait_for_selector("#chance", state="hidden")
        phone.close()
    assert not errors, errors


def test_a_phone_whose_dealt_cards_are_all_in_says_no_more_of_the_deal(browser, server):
    body = {"game": "stigespill", "players": 2, "names": "Anna, Bo", "variant": "strategy",
            "deal": "table"}  # fmt: skip
    status, t = server.post("/api/tables", body)
    assert status == 201
    bo, anna = (browser.new_page(viewport=PHONE) for _ in range(2))
    bo.goto(f"{server.base}{t['players'][1]['url']}")
    anna.goto(f"{server.base}{t['players'][0]['url']}")
    for page, codes in ((bo, ["2D", "6S"]), (anna, ["4C", "4D", "6H"])):  # Bo has one to go
        page.wait_for_selector("#chance .card-grid")
        for code in codes:
            page.click(f"#chance [data-key='deal:{code}']")
    anna.wait_for_selector("#chance", state="hidden", timeout=LIVE_MS)  # her three are in her hand
    assert sorted(
        anna.locator("#hand .card").evaluate_all("cs => cs.map(c => c.dataset.code)")
    ) == ["4C", "4D", "6H"]
    assert server.get(f"/api/tables/{t['id']}")["view"]["hand_sizes"] == [3, 2]
    assert "1 more" in bo.inner_text("#chance")
    # Bo taps a card Anna holds: the table says so on Bo's phone, and Bo taps his own. The
    # live update may come before the tap's answer (held here; a busy phone meets it): the
    # phone said "Your cards are noted" beside the refusal, with 4♣ among them.
    answers = []
    bo.route("**/deal", lambda route: answers.append((route, route.fetch())))
    bo.click("#chance [data-key='deal:4C']")
    bo.wait_for_selector("#chance .refused")  # by the live connection
    assert bo.inner_text("#chance .refused") == (
        "4♣ went to another player: if it is in your hand, their phone tapped it by mistake."
        " Tell the table."
    )

    def one_more_and_no_4c() -> None:
        assert "1 more" in bo.inner_text("#chance")
        tiles = "#chance [data-key='deal:4C'], #chance [data-key='dealt:4C']"
        assert bo.locator(tiles).count() == 0  # neither offered nor noted

    one_more_and_no_4c()
    deadline = time.monotonic() + LIVE_MS / 1000
    while not answers and time.monotonic() < deadline:
        bo.wait_for_timeout(50)  # the route's handler runs while the page is waited on
    route, answer = answers.pop()
    route.fulfill(response=answer)
    bo.unroute("**/deal")
    settled(bo)  # the answer drawn
    one_more_and_no_4c()
    shot(bo, "stigespill-deal-refused-phone")
    bo.click("#chance [data-key='deal:AH']")
    bo.wait_for_selector("#chance", state="hidden", timeout=LIVE_MS)
    assert server.get(f"/api/tables/{t['id']}")["view"]["hand_sizes"] == [3, 3]
    bo.close()
    anna.close()


def test_cards_are_named_in_words_for_screen_readers(browser, server):
    """A screen reader given "Q♠" spells the letter and names the symbol in its own voice's
    words: cards and the buttons that show them are named in the page's language."""
    body = {"game": "sten", "players": 3, "names": "Anna, Bo, Cy", "deal": "table"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    # a letter shown stays in the name (a voice control user says what is shown): "Q", and
    # "Anna legger 7" in order, else the shown text is the name
    for lang, slot, shown, said in (
        ("en", "Q, queen of spades not laid yet", "Anna lays 7♥", "Anna lays 7 of hearts"),
        ("nb", "Q, spar dame ikke lagt ennå", "Anna legger 7♥", None),
        ("sv", "Q, spader dam inte lagt än", "Anna lägger 7♥", None),
    ):
        page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": lang})
        errors = watch_errors(page)
        page.goto(f"{server.base}{t['url']}")
        page.wait_for_selector(".sten-grid")
        assert page.get_attribute("[data-key='slot:QS']", "aria-label") == slot
        lay = page.locator("#moves button[data-kind='lay']").first
        assert lay.inner_text() == shown and lay.get_attribute("aria-label") == said
        if lang == "en":  # a letter in a sentence stays too, so the name holds what is shown
            assert page.evaluate("Board.saidText('Play A♦')") == "Play A, ace of diamonds"
        page.close()
        assert not errors, errors
    # A Nordic deck's letters, chosen in the menu: the cards show and are named by them.
    page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": "nb"})
    errors = watch_errors(page)
    page.goto(f"{server.base}/letters/KnDKE?next={t['url']}")
    page.wait_for_selector(".sten-grid")
    slot = page.locator("[data-key='slot:QS']")
    assert slot.inner_text() == "D"
    assert slot.get_attribute("aria-label") == "D, spar dame ikke lagt ennå"
    said = page.evaluate("Board.saidText('Spill E♦ eller Kn♣')")
    assert said == "Spill E, ruter ess eller Kn, kløver knekt"
    page.close()
    assert not errors, errors


def test_a_card_several_players_may_lay_is_not_laid_for_one_by_a_tap_on_its_place(browser, server):
    """At a real Sten table anyone may hold 7♥: its place on the board cannot tell whose it
    is, so a tap there points to the buttons that name the player, and lays nothing."""
    body = {"game": "sten", "players": 3, "names": "Anna, Bo, Cy", "deal": "table"}
    _, t = server.post("/api/tables", body)
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector(".sten-grid")
    page.click("[data-key='slot:7H']")
    page.wait_for_selector("#toast.show")
    # shown as it is, said in words (a screen reader says "7 black heart suit" of "7♥")
    assert page.inner_text("#toast [aria-hidden]") == "Who lays 7♥? Tap the button with their name."
    assert "Who lays 7 of hearts?" in page.locator("#toast").aria_snapshot()
    assert moves_made(page) == 0
    page.click("#moves button:has-text('Bo lays 7♥')")
    page.wait_for_function("document.body.dataset.moves > 0")
    assert server.get(f"/api/tables/{t['id']}")["last"].startswith("Bo laid 7♥")
    # From then on a card's place lays it for the player on turn.
    settled(page)
    page.click("[data-key='slot:6H']")
    page.wait_for_function("document.body.dataset.moves > 1")
    assert server.get(f"/api/tables/{t['id']}")["last"].startswith("Cy laid 6♥")
    page.close()
    assert not errors, errors


def test_a_road_the_camera_cannot_read_for_want_of_pictures_is_asked_typed(browser, server):
    """A Stigespill camera table whose webcam gives no pictures (unplugged, or a number
    mistyped: ``serve --source 7``) said "Lay out the road where the camera sees it … the game
    starts when the camera has read it", the way to type it folded away: the family waited
    for a camera that could not read. It says the camera cannot read the road, the typing
    box open; the road typed starts the game."""
    body = {"game": "stigespill", "players": 2, "deal": "table", "source": "webcam"}
    _, t = server.post("/api/tables", {**body, "webcam_index": "16"})  # no such webcam
    page = browser.new_page(viewport=LAPTOP)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("#camera-state.bad", timeout=LIVE_MS)  # its picture starts it
    page.wait_for_selector("details.road-typed[open]", timeout=LIVE_MS)
    assert page.inner_text("#moves p.muted") == (
        "The camera gives no pictures, so it cannot read the road: type it below, and the "
        "game starts."
    )
    assert "Check that the webcam is plugged in" in page.inner_text("#camera-state")
    assert "stale" in (page.get_attribute("#camera", "class") or "")  # no live picture
    road = " ".join(f"{r}{s}" for s in "SHDC" for r in ("7", "8", "9", "10", "J", "Q", "K"))
    page.fill("#road-typed", road)
    page.click("#road-use")
    page.wait_for_selector("#moves details.road-typed", state="detached", timeout=LIVE_MS)
    assert "road_pending" not in server.get(f"/api/tables/{t['id']}")
    page.close()
    assert not errors, errors


def test_skipbo_camera_table_zones_confirmed_by_dragging(browser, tmp_path):
    """A Skip-Bo video as the camera: the page shows the piles the pipeline found; the user
    drags markers and moves one by keyboard, confirms, and the zones are kept as the user
    left them; the moves the camera reads appear on the board. (The video's camera keeps
    still, as the tracker sees it: the camera proposes the zones once. A proposal made anew
    is the next test's.)"""
    with camera_video_server(tmp_path, "skipbo", 2, 1, max_moves=10) as (server, table):
        page = browser.new_page(viewport=LAPTOP)
        errors = watch_errors(page)
        page.goto(f"{server.base}/t/{table['id']}")
        page.wait_for_selector("#zones .zone", timeout=CAMERA_MS)
        assert page.locator("#zones .zone").count() == 4 + 2 * (1 + 4)
        proposed = [
            z["center"] for z in server.get(f"/api/tables/{table['id']}")["zones"]["map"]["zones"]
        ]
        # the two stocks' markers tell "Player 1" from "Player 2" (not "P" and "P")
        stocks = page.locator("#zones .zone-stock text").evaluate_all(
            "ts => ts.map(t => t.textContent)"
        )
        assert sorted(stocks) == ["1", "2"], stocks
        # a building pile's letter is black on its amber (white read 2.2 to 1)
        fill = page.locator("#zones .zone-building text").first.evaluate(
            "t => getComputedStyle(t).fill"
        )
        assert fill == "rgb(0, 0, 0)", fill
        building = page.locator("#zones .zone-building").first
        b = int(building.get_attribute("data-i"))
        marker = box_of(building)
        x, y = marker["x"] + marker["width"] / 2, marker["y"] + marker["height"] / 2
        page.mouse.move(x, y)
        page.mouse.down()
        page.mouse.move(x + 12, y + 6, steps=4)
        page.mouse.up()
        # a marker dragged past the picture's edge stays on the picture, at its edge
        far = page.locator("#zones .zone-discard").first
        j = int(far.get_attribute("data-i"))
        box = box_of(far)
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(box["x"], box["y"] + 2000, steps=4)
        page.mouse.up()
        # a marker moves by keyboard too: focus it, arrow keys
        stock = page.locator("#zones .zone-stock").first
        i = int(stock.get_attribute("data-i"))
        assert "arrow keys" in stock.get_attribute("aria-label")
        stock.focus()
        for _ in range(3):
            page.keyboard.press("ArrowRight")
        with page.expect_response(f"**/api/tables/{table['id']}/zones") as answer:
            page.click("#zones-confirm")
        zones = answer.value.json()["zones"]  # the zones as confirmed
        assert zones["confirmed"] and len(zones["map"]["zones"]) == 14
        confirmed = [z["center"] for z in zones["map"]["zones"]]
        (x0, y0), (x1, y1) = proposed[b], confirmed[b]
        assert x1 > x0 and y1 > y0  # dragged right and down
        (x0, y0), (x1, y1) = proposed[i], confirmed[i]
        assert x1 > x0 + 5 and abs(y1 - y0) < 1  # moved right, as the keys said
        w, h = zones["frame"]
        assert confirmed[j][1] == h  # dragged down to the edge
        assert all(0 <= x <= w and 0 <= y <= h for x, y in confirmed)
        # the markers left alone are confirmed where the camera proposed them
        kept = [n for n in range(14) if n not in (b, i, j)]
        assert [confirmed[n] for n in kept] == [proposed[n] for n in kept]
        page.wait_for_function(
            "document.getElementById('zones-text').textContent.includes('confirmed')"
        )
        page.wait_for_function("document.body.dataset.moves >= 2", timeout=CAMERA_MS)
        assert set(server.get(f"/api/tables/{table['id']}/log")["sources"]) == {"camera"}
        shot(page, "skipbo-camera-laptop")
        assert not errors, errors


# The page's live connection replaced by one the test speaks through: sendSnapshot(s).
TEST_EVENTS = """
window.EventSource = class {
  constructor() { this.heard = {}; window.testEvents = this; }
  addEventListener(type, fn) { (this.heard[type] ||= []).push(fn); }
  close() {}
};
window.sendSnapshot = (s) => {
  for (const fn of window.testEvents.heard.snapshot) fn({ data: JSON.stringify(s) });
};
"""


def skipbo_zones_page(browser, server, viewport: dict = LAPTOP, **options):
    """Open a new Skip-Bo phone-camera table's page, its live connection the test's
    (``sendSnapshot``), once a 640×400 picture shows: ``(page, errors, table, snapshot)``.
    ``options`` go to the browser's new page (``has_touch``)."""
    import cv2
    import numpy as np

    status, t = server.post("/api/tables", {"game": "skipbo", "players": 2, "source": "phone"})
    assert status == 201
    page = browser.new_page(viewport=viewport, **options)
    errors = watch_errors(page)
    page.add_init_script(TEST_EVENTS)
    page.goto(f"{server.base}{t['url']}")
    jpeg = cv2.imencode(".jpg", np.full((400, 640, 3), 90, np.uint8))[1].tobytes()
    server.post_bytes(f"/api/tables/{t['id']}/frame?still=1", jpeg, "image/jpeg")
    page.wait_for_function("document.getElementById('camera').naturalWidth > 0", timeout=CAMERA_MS)
    return page, errors, t, server.get(f"/api/tables/{t['id']}")


def zone_centre(page, i: int) -> list[float]:
    """Return where zone marker ``i`` is drawn, in the picture's pixels."""
    c = page.locator(f"#zones .zone[data-i='{i}'] .zone-dot")
    return [float(c.get_attribute("cx")), float(c.get_attribute("cy"))]


def test_skipbo_zones_dragged_stay_on_their_pile_when_the_camera_proposes_anew(browser, server):
    """The camera proposes the zones anew when its view moves (a knock): a marker the user
    dragged keeps its place on its pile, moved as its own zone moved, and the others take
    the new proposal. The page threw the drag away: the marker jumped back."""
    page, errors, t, snap = skipbo_zones_page(browser, server)

    def propose(zones: dict, version: float) -> None:
        z = {"map": zones, "frame": [640, 400], "confirmed": False}
        page.evaluate("s => sendSnapshot(s)", {**snap, "version": version, "zones": z})

    def centre(i: int) -> list[float]:
        return zone_centre(page, i)

    proposed = zone_map(2)
    propose(proposed, snap["version"])  # the connection's first snapshot
    page.wait_for_selector("#zones .zone")
    box = page.locator("#zones .zone[data-i='0']").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 30, y + 20, steps=4)
    page.mouse.up()
    dragged = [round(v) for v in centre(0)]  # the page keeps whole pixels
    assert dragged[0] > 310, dragged
    # the camera knocked: every pile shows 20 px right and 12 px up
    knocked = zone_map(2)
    for zone in knocked["zones"]:
        zone["center"] = [zone["center"][0] + 20, zone["center"][1] - 12]
    # shown at once (the page draws it as it comes); the server's next snapshot is newer
    propose(knocked, snap["version"] + 0.5)
    assert centre(0) == [dragged[0] + 20, dragged[1] - 12]  # on its pile still
    assert [centre(i) for i in range(1, 14)] == [z["center"] for z in knocked["zones"][1:]]
    page.click("#zones-confirm")
    page.wait_for_function(
        "document.getElementById('zones-text').textContent.includes('confirmed')"
    )
    confirmed = server.get(f"/api/tables/{t['id']}")["zones"]["map"]["zones"]
    assert confirmed[0]["center"] == [dragged[0] + 20, dragged[1] - 12]
    assert confirmed[1:] == knocked["zones"][1:]
    assert centre(0) == [dragged[0] + 20, dragged[1] - 12]  # the confirmed map, not moved again
    assert not errors, errors


def test_skipbo_zone_markers_stay_in_hand_while_snapshots_come(browser, server):
    """Every snapshot (the camera's state, a move) drew the zone markers anew: a drag under
    way ended where the snapshot found it, and a marker moved by the keyboard lost its focus,
    so the next arrow key moved nothing. They are drawn anew only when the zones change."""
    page, errors, _, snap = skipbo_zones_page(browser, server)
    zones = {"map": zone_map(2), "frame": [640, 400], "confirmed": False}
    versions = iter(range(snap["version"] + 1, snap["version"] + 100))

    def send() -> None:  # the same zones, in a newer snapshot
        page.evaluate("s => sendSnapshot(s)", {**snap, "version": next(versions), "zones": zones})

    def centre(i: int) -> list[float]:
        return zone_centre(page, i)

    send()
    page.wait_for_selector("#zones .zone")
    start = centre(0)
    box = page.locator("#zones .zone[data-i='0']").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 15, y, steps=3)
    send()  # a snapshot halfway through the drag
    page.mouse.move(x + 40, y + 20, steps=3)
    page.mouse.up()
    dragged = centre(0)
    assert dragged[0] > start[0] + 30 and dragged[1] > start[1] + 15, (start, dragged)
    marker = page.locator("#zones .zone[data-i='1']")
    marker.focus()
    before = centre(1)
    page.keyboard.press("ArrowRight")
    once = centre(1)
    send()
    assert page.evaluate("document.activeElement.dataset.i") == "1"
    page.keyboard.press("ArrowRight")  # a second step, as far as the first
    twice = centre(1)
    assert once[0] > before[0] and twice[1] == once[1] == before[1], (before, once, twice)
    assert twice[0] - once[0] == pytest.approx(once[0] - before[0], abs=1)
    assert not errors, errors


@pytest.mark.parametrize("viewport", [SMALL_PHONE, LAPTOP], ids=["phone", "laptop"])
def test_the_zones_question_reads_across_the_camera_panel(browser, server, viewport):
    """On a phone "Check the piles the camera found: drag a marker onto its pile…" stood in a
    column 130 px wide beside "Confirm zones", seven lines of two or three words. On a
    phone it reads across the panel, the button under it; on a laptop beside it still."""
    page, errors, _, snap = skipbo_zones_page(browser, server, viewport)
    zones = {"map": zone_map(2), "frame": [640, 400], "confirmed": False}
    page.evaluate("s => sendSnapshot(s)", {**snap, "zones": zones})  # the connection's first
    page.wait_for_selector("#zones-bar:not([hidden])")
    text = page.locator("#zones-text").bounding_box()
    bar = page.locator("#zones-bar").bounding_box()
    button = page.locator("#zones-confirm").bounding_box()
    beside = button["y"] < text["y"] + text["height"]
    assert text["width"] >= 0.6 * bar["width"], (text, bar)
    assert beside == (viewport is LAPTOP), (text, button)
    assert not errors, errors


# Each zone marker's label: its text and colour, and what stands behind it (the last shape
# its marker draws before it that is not transparent): its colour, its opacity (with its
# group's), and whether it holds the label's box whole
ZONE_LABELS_JS = """() => [...document.querySelectorAll('#zones .zone')].map((g) => {
  const text = g.querySelector('text'), kids = [...g.children];
  const painted = (e) => !['none', 'rgba(0, 0, 0, 0)'].includes(getComputedStyle(e).fill);
  const back = kids.slice(0, kids.indexOf(text)).filter(painted).pop();
  let opacity = +getComputedStyle(back).fillOpacity;
  for (let e = back; e !== g.ownerSVGElement; e = e.parentNode) {
    opacity *= +getComputedStyle(e).opacity;
  }
  const t = text.getBoundingClientRect(), b = back.getBoundingClientRect();
  const holds = t.left >= b.left - .5 && t.right <= b.right + .5 && t.top >= b.top - .5
    && t.bottom <= b.bottom + .5;
  const fill = (e) => getComputedStyle(e).fill;
  return [text.textContent, fill(text), fill(back), opacity, holds];
})"""


def over(colour: str, opacity: float, picture: str) -> str:
    """Return ``colour`` drawn at ``opacity`` over ``picture`` (#rrggbb each)."""
    mix = (
        round(opacity * int(colour[i : i + 2], 16) + (1 - opacity) * int(picture[i : i + 2], 16))
        for i in (1, 3, 5)
    )
    return "#" + "".join(f"{v:02x}" for v in mix)


def test_the_zone_markers_labels_read_over_any_picture(browser, server):
    """A zone marker's number (b1, a player's letter, a discard pile's number) stood on its
    dot, drawn at 80% opacity so the pile shows through it: over a light picture the label
    fell to about 4.2:1 (white on a red dot). It stands on a solid badge of the marker's
    colour now: 4.5:1 or more over any picture (black to white), in any player's colour."""
    from tests.webui.test_tables import _contrast
    from webui.games import COLOURS

    page, errors, _, snap = skipbo_zones_page(browser, server)
    zones = {"map": zone_map(2), "frame": [640, 400], "confirmed": False}
    # the game's colours, white's and black's, and greys where white and black read alike
    colours = [*COLOURS, "#e5e7eb", "#111827", "#757575", "#777777", "#ffffff", "#000000"]
    labels = []
    for version, pair in enumerate(zip(colours[::2], colours[1::2], strict=True), 1):
        players = [{**p, "colour": c} for p, c in zip(snap["table"]["players"], pair, strict=True)]
        sent = {**snap, "version": snap["version"] + version, "zones": zones}
        page.evaluate(
            "s => sendSnapshot(s)", {**sent, "table": {**snap["table"], "players": players}}
        )
        page.wait_for_function(  # drawn in the second player's colour
            "c => document.querySelector(`#zones [fill='${c}']`) !== null",
            arg=pair[1],
            timeout=LIVE_MS,
        )
        labels += page.evaluate(ZONE_LABELS_JS)
    page.close()
    # each time 4 building piles, and each player's stock and 4 discard piles
    assert len(labels) == 14 * len(colours) // 2, labels
    for text, fill, back, opacity, holds in labels:
        worst = min(
            _contrast(hex_of(fill), over(hex_of(back), opacity, p)) for p in ("#000000", "#ffffff")
        )
        assert worst >= 4.5 and holds, (text, fill, back, opacity, worst, holds)
    assert not errors, errors


def touch_drag(page, points: list[tuple[float, float]], hold=None) -> None:
    """Drag a finger through ``points`` (the page's CSS pixels) on a touch screen; call
    ``hold()`` before lifting it."""
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, x: float = 0, y: float = 0) -> None:
        finger = [] if kind == "touchEnd" else [{"x": x, "y": y, "radiusX": 6, "radiusY": 6}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": finger})

    touch("touchStart", *points[0])
    for x, y in points[1:]:
        touch("touchMove", x, y)
    if hold:
        hold()
    touch("touchEnd")
    cdp.detach()


def test_skipbo_zone_markers_are_moved_with_a_finger_where_piles_lie_close(browser, server):
    """On a phone the zone markers were dots 15-22 px across, and where piles lay close (a
    player's discard piles side by side, as the camera sees them from afar) they overlapped:
    a touch took the dot drawn last, often not the one meant, and a touch just beside a dot
    took none. Each now takes a touch within 22 px of its centre (44 px across), the nearest
    marker is taken where they overlap, and the marker held says which pile it is for above
    the finger. A touch on the picture away from the markers scrolls the page."""
    page, errors, _, snap = skipbo_zones_page(
        browser, server, {**SMALL_PHONE, "height": 500}, has_touch=True, is_mobile=True
    )
    close = zone_map(2)
    for zone in close["zones"]:  # the discard piles 20 px apart in a 640 px picture, not 60
        if zone["kind"] == "discard":
            zone["center"][0] = 270 + 20 * zone["index"]
    zones = {"map": close, "frame": [640, 400], "confirmed": False}
    page.evaluate("s => sendSnapshot(s)", {**snap, "zones": zones})  # the connection's first
    page.wait_for_selector("#zones .zone")
    targets = page.locator("#zones .zone").evaluate_all(
        "gs => gs.map((g) => g.getBoundingClientRect()).map((r) => [r.width, r.height])"
    )
    assert min(min(wh) for wh in targets) >= 44, targets
    page.evaluate("document.getElementById('camera').scrollIntoView({block: 'center'})")

    def on_screen(i: int) -> tuple[float, float]:
        box = page.locator(f"#zones .zone[data-i='{i}'] .zone-dot").bounding_box()
        return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

    # Player 1's first two discard piles (markers 5 and 6, 6 drawn over 5): a finger a little
    # right of 5's centre, on 6's dot, takes 5, the nearer
    first, second = 5, 6
    (x1, y1), (x2, _) = on_screen(first), on_screen(second)
    assert 0 < x2 - x1 < 12, (x1, x2)  # their dots overlap
    start = (x1 + 0.3 * (x2 - x1), y1)
    held = {}

    def look() -> None:
        held["tag"] = page.locator("#zone-tag")
        held["box"] = held["tag"].bounding_box()
        held["text"] = held["tag"].inner_text() if held["tag"].is_visible() else None

    touch_drag(page, [start, (start[0], start[1] + 10), (start[0], start[1] + 25)], hold=look)
    assert held["text"] == "Player 1's discard pile 1", held
    assert held["box"]["y"] + held["box"]["height"] <= start[1] + 25 - 10, held  # above the finger
    moved = [zone_centre(page, i) for i in range(14)]
    assert moved[first][1] > close["zones"][first]["center"][1] + 20, moved[first]
    assert moved[second] == close["zones"][second]["center"], moved[second]
    assert not page.locator("#zone-tag").is_visible()  # the finger lifted
    # a finger 18 px beside a building pile's dot (a discard pile's reach is past it) takes it
    x, y = on_screen(0)
    touch_drag(page, [(x, y + 18), (x, y + 30), (x, y + 40)])
    assert zone_centre(page, 0)[1] > close["zones"][0]["center"][1] + 20
    # a swipe on the picture away from the markers scrolls the page
    box = page.locator("#camera").bounding_box()
    corner = (box["x"] + 10, box["y"] + box["height"] - 10)
    before = page.evaluate("window.scrollY")
    touch_drag(page, [corner, *[(corner[0], corner[1] - 15 * k) for k in range(1, 6)]])
    page.wait_for_function(f"window.scrollY > {before} + 20", timeout=LIVE_MS)
    assert not errors, errors


def test_a_camera_table_page_loads_while_its_camera_sends_nothing(browser, server):
    """The camera's picture streams for as long as the camera runs: in the page's HTML it held
    up the page's load for good while no picture came (a phone not sending yet), and the
    browser showed the page loading. It is asked for once the page has loaded."""
    import cv2
    import numpy as np

    status, t = server.post("/api/tables", {"game": "sten", "players": 2, "source": "phone"})
    assert status == 201
    page = browser.new_page(viewport=LAPTOP)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}", timeout=LIVE_MS)  # waits for the page's load event
    assert page.evaluate("document.readyState") == "complete"
    # until a picture comes, the empty box says where it comes from
    assert page.inner_text("#camera-state").startswith("No picture yet: on the phone")
    picture = np.full((180, 320, 3), 90, np.uint8)
    picture[40:140, 120:190] = 240
    jpeg = cv2.imencode(".jpg", picture)[1].tobytes()
    server.post_bytes(f"/api/tables/{t['id']}/frame?still=1", jpeg, "image/jpeg")
    page.wait_for_function("document.getElementById('camera').naturalWidth > 0", timeout=CAMERA_MS)
    page.wait_for_selector("#camera-state", state="hidden", timeout=LIVE_MS)
    # Opened again while the phone sends single pictures, the page shows the last one at
    # once (not when the next picture comes, or the stream's idle repeat MJPEG_IDLE_S later).
    assert LIVE_MS < MJPEG_IDLE_S * 1000  # else the repeat would pass the wait below
    page.reload()
    page.wait_for_function("document.getElementById('camera').naturalWidth > 0", timeout=LIVE_MS)
    assert not errors, errors


def strict_page(chromium):
    """A page that keeps the pages' Content-Security-Policy, and the errors it logs."""
    page = chromium.new_page(viewport=PHONE)
    return page, watch_errors(page)


def test_the_pages_run_under_their_policy_and_refuse_inline_script(chromium, server):
    page, errors = strict_page(chromium)
    demo = next(t for t in server.get("/api/tables")["tables"] if t["name"] == "Demo")
    page.goto(f"{server.base}/t/{demo['id']}")  # the camera's table
    page.wait_for_selector("body[data-moves]")  # live.js started from its settings
    for game in ("sten", "skipbo", "stigespill"):
        status, t = server.post("/api/tables", {"game": game, "players": 2})
        assert status == 201
        for url in (t["url"], t["players"][0]["url"]):
            page.goto(f"{server.base}{url}")
            page.wait_for_selector("body[data-moves]")
    page.goto(f"{server.base}/new?game=sten")
    page.fill("input[name=players]", "2")
    assert page.locator("#dealer option").count() == 2  # forms.js ran
    assert not errors, errors
    # A script slipped into the page does not run, and the browser says why.
    try:
        page.add_script_tag(content="document.body.dataset.slipped = 'ran'")
    except Exception:
        pass  # refused outright
    assert page.evaluate("document.body.dataset.slipped") is None
    assert any("Content Security Policy" in e for e in errors), errors


def test_the_new_game_form_asks_only_what_the_game_needs(browser, server):
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}/new?game=stigespill")
    solo, shared = page.locator("#solo-tokens"), page.locator("label.when-hands")
    assert not solo.is_visible() and not shared.is_visible()  # three players, classic
    page.fill("input[name=players]", "1")
    assert solo.is_visible()
    page.check("input[name=variant][value=strategy]")  # hands: one device may show them
    assert shared.is_visible()
    # Sten's dealer is chosen among the names typed (the form's script, a file of its own).
    page.goto(f"{server.base}/new?game=sten")
    page.fill("input[name=players]", "3")
    page.fill("[name=names]", "Mor, Far, Ida")
    options = page.locator("#dealer option").all_inner_texts()
    assert options == ["Mor", "Far", "Ida"] and page.input_value("#dealer") == "3"
    assert not errors, errors


WHO_PLAYS = {
    "en": (
        "3 players: Mormor, Jens and Player 3",
        "4 players: Mormor, Jens, Player 3 and Player 4",
    ),
    "nb": (
        "3 spillere: Mormor, Jens og Spiller 3",
        "4 spillere: Mormor, Jens, Spiller 3 og Spiller 4",
    ),
    "da": (
        "3 spillere: Mormor, Jens og Spiller 3",
        "4 spillere: Mormor, Jens, Spiller 3 og Spiller 4",
    ),
    "sv": (
        "3 spelare: Mormor, Jens och Spelare 3",
        "4 spelare: Mormor, Jens, Spelare 3 och Spelare 4",
    ),
}


@pytest.mark.parametrize("lang", list(WHO_PLAYS))
def test_the_new_game_form_says_who_will_play_before_start(browser, server, lang):
    """Two names typed with Sten's three players made a third seat, "Player 3", dealt 17
    cards nobody held: the game stopped at its turn, and nothing on the form had said so. A
    line under the names says who will play as the names and the number change, a seat
    without a name marked; the form is still sent as it is (a host may mean the seats)."""
    page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": lang})
    errors = watch_errors(page)
    page.goto(f"{server.base}/new?game=sten")
    who = page.locator("#who-plays")
    page.fill("[name=names]", "Mormor, Jens")
    assert who.inner_text() == WHO_PLAYS[lang][0]
    unnamed = WHO_PLAYS[lang][0].split()[-2]  # "Player", "Spiller", "Spelare"
    assert who.locator("strong").all_inner_texts() == [f"{unnamed} 3"]
    page.fill("input[name=players]", "4")
    assert who.inner_text() == WHO_PLAYS[lang][1]
    page.fill("[name=names]", "Mormor, Jens, Ida, Bo")  # all named: none marked
    assert who.locator("strong").count() == 0
    assert "Ida" in who.inner_text() and "Bo" in who.inner_text()
    # the field is described by it: a screen reader hears it with the names
    assert page.get_attribute("[name=names]", "aria-describedby") == "who-plays"
    page.fill("[name=names]", "Mormor, Jens")
    if lang == "nb":
        who.scroll_into_view_if_needed()
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "new-sten-who-plays-nb.png"))
    page.close()
    assert not errors, errors


@pytest.mark.parametrize(("lang", "label"), [("en", "Cards in each stock pile"), ("nb", "Kort i")])
def test_the_skipbo_forms_empty_stock_shows_the_usual_stock_for_the_players(
    browser, server, lang, label
):
    """The Skip-Bo form's stock field was labelled "Stock size (empty: 30 for 2–4 players, 20
    for 5–6, 12 for 8)". It asks for the cards in each stock pile and, left empty, shows the
    number the players chosen get: 30 for two, 20 for five, 12 for eight (teams), none for
    seven (not a Skip-Bo table)."""
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}/lang/{lang}?next=/new?game=skipbo")
    stock = page.locator("input[name=stock]")
    assert page.locator("label", has=stock).inner_text().strip().startswith(label)
    usual = {}
    for players in ("2", "5", "7", "8", "4"):
        page.fill("input[name=players]", players)
        usual[players] = stock.get_attribute("placeholder")
    assert usual == {"2": "30", "5": "20", "7": "", "8": "12", "4": "30"}, usual
    stock.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"new-skipbo-stock-{lang}.png"))
    page.close()
    assert not errors, errors


# The choices of the form's drop-down lists that a closed list cuts off (wider than the list
# leaves its text beside its arrow, about 20 px): each with how many pixels do not show.
CUT_CHOICES_JS = """() => [...document.querySelectorAll('#new-game select')]
  .filter((s) => s.getClientRects().length)
  .flatMap((s) => {
    const cs = getComputedStyle(s);
    const pen = document.createElement('canvas').getContext('2d');
    pen.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
    const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight) - 20;
    return [...s.options].map((o) => [o.text, Math.ceil(pen.measureText(o.text).width - room)]);
  })
  .filter(([, cut]) => cut > 0)"""


def test_no_choice_of_the_new_game_form_is_cut_off_on_a_phone(browser, server):
    """On a 360 px phone the game's variant showed "Klassisk: dra ett tärningskort varje t",
    the camera "Uten kamera: trykk hvert trek", a network stream and the improvised Skip-Bo
    deck far less: a closed drop-down list cuts its text. They are choices to tap, each said
    in full; what is left in a list fits it, in every language."""
    page = browser.new_page(viewport=SMALL_PHONE, has_touch=True, is_mobile=True)
    errors = watch_errors(page)
    cut = {}
    for lang in ("en", "nb", "da", "sv"):
        for game in ("stigespill", "sten", "skipbo"):
            page.goto(f"{server.base}/lang/{lang}?next=/new?game={game}")
            page.wait_for_selector("#new-game")
            cut[lang, game] = page.evaluate(CUT_CHOICES_JS)
    assert not any(cut.values()), cut
    # the choices that show or hide a field still do
    page.goto(f"{server.base}/lang/en?next=/new?game=stigespill")
    shared, stream = page.locator("label.when-hands"), page.locator("label.when-stream")
    assert not shared.is_visible() and not stream.is_visible()
    page.check("input[name=variant][value=strategy]")
    page.check("input[name=source][value=stream]")
    assert shared.is_visible() and stream.is_visible()
    page.close()
    assert not errors, errors


def test_a_game_played_on_the_phones_shows_their_codes_until_the_first_move(browser, server):
    """The table's page cannot move for the players when the app deals their hands: before
    the first move it opens the players' pages (their links, or QR codes) instead of leaving
    them folded at the bottom; later they stay folded (and where the table's page plays
    itself: test_a_phone_draws_by_tapping_the_die_pile_under_the_board)."""
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    status, t = server.post("/api/tables", {"game": "sten", "players": 2, "names": "Mor, Ida"})
    assert status == 201
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector(".join-box[open] .qr-card", state="visible", timeout=LIVE_MS)
    seat = server.get(f"/api/tables/{t['id']}")["to_move"]
    mine = server.get(f"/api/p/{token(t, seat)}")
    status, _ = server.post(f"/api/p/{token(t, seat)}/moves", {"move": mine["moves"][0]["move"]})
    assert status == 200
    page.reload()
    page.wait_for_function("document.body.dataset.moves == 1")
    assert page.locator(".join-box[open]").count() == 0
    assert not errors, errors
    page.close()


def test_a_real_deal_entered_on_the_phones_shows_their_codes_before_the_first_card(browser, server):
    """At a real Stigespill strategy table the dealt cards can only be entered on the
    players' own phones, and the table's page said so ("see Players' own pages") with those
    pages folded away at its foot; they are open before the first card is entered."""
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    body = {"game": "stigespill", "players": 2, "names": "Mor, Ida", "variant": "strategy",
            "deal": "table"}  # fmt: skip
    status, t = server.post("/api/tables", body)
    assert status == 201
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector(".join-box[open] .qr-card", state="visible", timeout=LIVE_MS)
    assert "own phone" in page.inner_text("#moves")
    assert not errors, errors
    page.close()


def test_a_strategy_game_on_the_phones_shows_their_codes_though_the_table_may_draw(browser, server):
    """A Stigespill strategy game the app deals, played on the players' phones, opened with
    their pages folded: the table's page may draw a die card (the die pile is public), so it
    seemed to need no phone, and the app's deal (six die cards) seemed a game begun, while
    each hand is on its player's phone only. The codes stand open before the first move, as
    for Sten and Skip-Bo; after it they stay folded."""
    page = browser.new_page(viewport=LAPTOP)
    errors = watch_errors(page)
    body = {"game": "stigespill", "players": 2, "names": "Mor, Ida", "variant": "strategy"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("#moves [data-kind=draw]", timeout=LIVE_MS)  # the table may draw
    page.wait_for_selector(".join-box[open] .qr-card", state="visible", timeout=LIVE_MS)
    dealt = moves_made(page)
    seat = server.get(f"/api/tables/{t['id']}")["to_move"]
    status, _ = server.post(f"/api/p/{token(t, seat)}/moves", {"move": {"kind": "draw"}})
    assert status == 200
    page.reload()
    page.wait_for_function(f"document.body.dataset.moves > {dealt}", timeout=LIVE_MS)
    page.wait_for_selector("#moves [data-kind]", timeout=LIVE_MS)  # its moves drawn
    assert page.locator(".join-box[open]").count() == 0
    page.close()
    assert not errors, errors


# How tall each control matching the selector is to a finger: the span of points down its
# middle that a tap lands on it (or on its label), in CSS pixels.
TAP_HEIGHTS_JS = """(selector) => [...document.querySelectorAll(selector)]
  .filter((e) => e.getClientRects().length)
  .map((e) => {
    e.scrollIntoView({ block: 'center' });
    const r = e.getBoundingClientRect(), x = r.left + r.width / 2;
    const mine = (hit) => hit && (e.contains(hit) || hit.closest('label') === e.closest('label')
      && e.closest('label') !== null);
    let n = 0;
    for (let y = Math.floor(r.top - 30); y <= r.bottom + 30; y++)
      if (mine(document.elementFromPoint(x, y))) n++;
    return [e.textContent.trim().slice(0, 30) || e.name, n];
  })"""


def test_a_phone_s_small_controls_are_a_finger_tall(browser, server):
    """The top bar's links and language menu, the form's game tabs (39 px before) and
    choices and the match's details link take a tap anywhere 44 px tall (the size a finger
    needs), on a phone."""
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}/new?game=skipbo")
    small = [
        (name, h)
        for sel in (
            ".topnav > a",
            ".langs summary",
            ".tabs .tab",
            "#new-game input[type=radio]",
            "#new-game input[type=checkbox]",
        )
        for name, h in page.evaluate(TAP_HEIGHTS_JS, sel)
        if h < 44
    ]
    page.click(".langs summary")  # the languages and the card letters
    small += [(n, h) for n, h in page.evaluate(TAP_HEIGHTS_JS, ".langs-menu a") if h < 44]
    status, t = server.post("/api/tables", {"game": "skipbo", "players": 2, "stock": 5})
    assert status == 201
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("#match-panel:not([hidden]) h2 a")
    small += [(n, h) for n, h in page.evaluate(TAP_HEIGHTS_JS, "#match-panel h2 a") if h < 44]
    assert not small, small
    assert not errors, errors
    page.close()


def test_a_phones_quiet_buttons_are_a_finger_tall(browser, server):
    """The quiet buttons of a real table's phone, "No real card? Let the app pick one" and
    "Take back my move", look small (33 px) but take a tap anywhere 44 px tall, as the top
    bar's links do; the cards above them keep every tap of their own."""
    body = {"game": "skipbo", "players": 2, "names": "Anna, Bo", "deal": "table"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    chance = server.get(f"/api/tables/{t['id']}")["chance"]  # whose stock card turns up
    asked = chance["seat"] if chance["seat"] is not None else chance["about"]
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['players'][asked]['url']}")
    page.wait_for_selector("#draw-app")
    [(_, pick)] = page.evaluate(TAP_HEIGHTS_JS, "#draw-app")
    cards = page.evaluate(TAP_HEIGHTS_JS, "#chance .card-grid button.card")
    boxes = page.eval_on_selector_all(
        "#chance .card-grid button.card", "(cs) => cs.map((c) => c.getBoundingClientRect().height)"
    )
    assert all(n >= int(h) for (_, n), h in zip(cards, boxes, strict=True)), (cards, boxes)
    body = {"game": "stigespill", "players": 2, "names": "Anna, Bo", "deal": "table"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    page.goto(f"{server.base}{t['players'][0]['url']}")
    page.click("#moves button.card[data-code='5H']")  # Anna drew a card: she may take it back
    page.wait_for_selector("#undo-mine:not([hidden])")
    [(_, take_back)] = page.evaluate(TAP_HEIGHTS_JS, "#undo-mine")
    assert pick >= 44 and take_back >= 44, (pick, take_back)
    page.close()
    assert not errors, errors


# How far a tap on each control (through its middle) reaches it, across and down: its
# width and height for a finger, in CSS pixels (a larger hit area counts, a neighbour's not).
TAP_BOX_JS = """(selector) => [...document.querySelectorAll(selector)]
  .filter((e) => e.getClientRects().length)
  .map((e) => {
    e.scrollIntoView({ block: 'center' });
    const r = e.getBoundingClientRect(), x = r.left + r.width / 2, y = r.top + r.height / 2;
    const mine = (hit) => hit && e.contains(hit);
    let w = 0, h = 0;
    for (let i = Math.floor(r.left - 30); i <= r.right + 30; i++)
      if (mine(document.elementFromPoint(i, y))) w++;
    for (let i = Math.floor(r.top - 30); i <= r.bottom + 30; i++)
      if (mine(document.elementFromPoint(x, i))) h++;
    return [e.dataset.code || e.textContent.trim(), w, h];
  })"""


def test_a_phones_card_choices_and_home_link_are_a_finger_wide(browser, server):
    """On a phone the die cards to tap ("Tap the die card that was drawn"), the numbers of
    a Skip-Bo card turned up and the "♠ Kortbord" home link took a tap 37 px wide or 36 px
    tall, under the 44 px a finger needs. They take 44 px each way now, none a neighbour's."""
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    body = {"game": "stigespill", "players": 2, "names": "Anna, Bo", "deal": "table"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector(".pile-do .card-grid button.card")
    boxes = page.evaluate(TAP_BOX_JS, ".pile-do .card-grid button.card")
    assert len(boxes) == 25, boxes  # the die pile's cards and the joker
    boxes += page.evaluate(TAP_BOX_JS, ".brand")
    body = {"game": "skipbo", "players": 2, "names": "Anna, Bo", "deal": "table"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    chance = server.get(f"/api/tables/{t['id']}")["chance"]  # whose stock card turns up
    asked = chance["seat"] if chance["seat"] is not None else chance["about"]
    page.goto(f"{server.base}{t['players'][asked]['url']}")
    page.wait_for_selector("#chance .card-grid button.card")
    numbers = page.evaluate(TAP_BOX_JS, "#chance .card-grid button.card")
    assert len(numbers) == 13, numbers  # 1–12 and Skip-Bo
    small = [box for box in boxes + numbers if min(box[1:]) < 44]
    assert not small, small
    page.close()
    assert not errors, errors


def test_a_start_tapped_twice_on_a_slow_network_makes_one_table(browser, server):
    """A phone on a slow network, its Start tapped again while the form is on its way: one
    table (the second tap had made a second one, left on the home page in progress)."""
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}/new?game=sten")
    before = len(server.get("/api/tables")["tables"])
    sent, done = [], []  # the forms the page sent; those answered, or given up
    page.on("request", lambda r: r.method == "POST" and sent.append(r))
    page.on("requestfinished", lambda r: r.method == "POST" and done.append(r))
    page.on("requestfailed", lambda r: r.method == "POST" and done.append(r))
    cdp = page.context.new_cdp_session(page)  # each request takes a second to arrive
    cdp.send("Network.enable")
    slow = {"latency": 1000, "downloadThroughput": -1, "uploadThroughput": -1}
    cdp.send("Network.emulateNetworkConditions", {"offline": False, **slow})
    # (the second tap is marked in the tab's session storage, which the table's page keeps)
    page.evaluate("""() => {
      const start = document.querySelector("#new-game button[type=submit]");
      start.click();
      setTimeout(() => { start.click(); sessionStorage.tappedAgain = "yes"; }, 300);
    }""")
    page.wait_for_selector("#board", timeout=LIVE_MS)  # the table's page
    page.wait_for_function("sessionStorage.tappedAgain === 'yes'", timeout=LIVE_MS)
    deadline = time.monotonic() + LIVE_MS / 1000
    while len(done) < len(sent) and time.monotonic() < deadline:
        page.wait_for_timeout(50)  # (the page's events are heard while it is waited on)
    assert len(sent) == 1, [r.url for r in sent]
    assert len(server.get("/api/tables")["tables"]) == before + 1
    assert not errors, errors
    page.close()


def test_start_with_a_road_photo_says_at_once_that_it_reads_it(browser, server):
    """After Start with a road photo nothing showed for 2-7 s while the photo went and was
    read, so a family tapped Start again or thought the page hung. The page says at once
    that the photo goes (here in nb), its Start greyed against a second tap; the form
    shown again by the back button, and the form that comes back (the photo refused), are
    as before: Start may be tapped, nothing said."""
    import cv2
    import numpy as np

    page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": "nb"})
    errors = watch_errors(page)
    start = "#new-game button[type=submit]"
    grey = cv2.imencode(".jpg", np.full((480, 640, 3), 120, np.uint8))[1].tobytes()
    photo = {"name": "road.jpg", "mimeType": "image/jpeg", "buffer": grey}
    page.goto(f"{server.base}/new?game=stigespill")
    page.set_input_files("#road_photo", photo)
    # the form on its way, and on its way still: the page as the family sees it meanwhile
    held = []
    page.route("**/new", lambda route: held.append(route))
    page.click(start)
    assert page.is_disabled(start)
    # how much of it has gone (held here before any answer: none), then that it is read (the
    # test below)
    assert page.inner_text("#start-status") == "Sender bildet av veien: 0 %"
    page.locator("#start-status").scroll_into_view_if_needed()
    page.screenshot(path=str(ARTIFACTS / "start-reading-road-photo-nb.png"))
    # shown again by the back button as the browser kept it (its back-forward cache, which
    # the test's browser does not keep pages in): Start may be tapped, nothing said
    page.evaluate("window.dispatchEvent(new PageTransitionEvent('pageshow', { persisted: true }))")
    assert page.is_enabled(start) and page.inner_text("#start-status") == ""
    route = held.pop()
    route.fulfill(response=route.fetch())  # (the form comes back: a grey picture, no road)
    page.unroute("**/new")
    # sent and answered: a grey picture has no road, and the form comes back
    page.goto(f"{server.base}/new?game=stigespill")
    page.set_input_files("#road_photo", photo)
    page.click(start)
    page.wait_for_selector("#form-error", timeout=LIVE_MS)
    assert page.is_enabled(start) and page.inner_text("#start-status") == ""
    page.close()
    assert [e for e in errors if "400 (bad request)" not in e.lower()] == [], errors


# A photo's status as it goes: [the words, the share of the photo sent], else null
PERCENT_SAID_JS = """(at) => {
  const m = document.querySelector(at).textContent.match(/^(.*?)(\\d+)\\s?%$/);
  return m ? [m[1], +m[2]] : null;
}"""


def test_a_photo_on_a_slow_link_says_how_much_of_it_has_gone(browser, server):
    """A road photo (the new-game form) and a photo of a hand went on a slow phone link for
    half a minute and more with only "Reading the road photo…" said: no sign that it moved.
    Each says how much of it has gone as it goes ("Sender bildet av veien: 40 %"), then
    that it is read, then the answer (the upload slowed by the browser, here in nb)."""
    import cv2
    import numpy as np

    noise = np.random.default_rng(0).integers(0, 255, (600, 800, 3), dtype=np.uint8)
    jpeg = cv2.imencode(".jpg", noise, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes()
    assert len(jpeg) > 400_000  # noise: no smaller for being a JPEG
    status, sten = server.post("/api/tables", {"game": "sten", "players": 2, "deal": "table"})
    assert status == 201
    page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": "nb"})
    errors = watch_errors(page)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    slow = {"offline": False, "latency": 20, "downloadThroughput": -1, "uploadThroughput": 150_000}
    cdp.send("Network.emulateNetworkConditions", slow)
    for url, picker, at, words, answer in [
        ("/new?game=stigespill", "#road_photo", "#start-status", "Sender bildet av veien: ",
         "#form-error"),
        (sten["players"][0]["url"], "#photo", "#photo-msg", "Sender bildet: ", "#photo:enabled"),
    ]:  # fmt: skip
        page.goto(f"{server.base}{url}")
        if picker == "#photo":
            page.click("#photo-box summary")
        photo = {"name": "bilde.jpg", "mimeType": "image/jpeg", "buffer": jpeg}
        page.set_input_files(picker, photo)
        if picker == "#road_photo":
            page.click("#new-game button[type=submit]")
        page.wait_for_function(  # part of the photo sent, not all
            f"""(at) => {{ const said = ({PERCENT_SAID_JS})(at);
              return said !== null && said[0] === {words!r} && said[1] > 0 && said[1] < 100; }}""",
            arg=at,
            timeout=LIVE_MS,
        )
        page.locator(at).scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"photo-sending-{picker[1:]}-nb.png"))
        page.wait_for_selector(answer, timeout=LIVE_MS)
        assert "%" not in page.inner_text(at)
    page.close()
    assert [e for e in errors if "400 (BAD REQUEST)" not in e] == [], errors


def test_a_photo_sent_from_a_page_says_at_once_that_it_goes(browser, server):
    """A player's photo of their hand, and a picture sent from a phone's camera app to a
    table whose camera is that phone, showed nothing while they went and were read
    (seconds). Each says so at once (here in nb), its picker greyed, until the answer. A hand's
    photo says how much has gone: on a busy machine the whole photo may be sent (its answer
    held) before the test reads the line, which then says it is being read."""
    import cv2
    import numpy as np

    held = []  # the photos sent, answered when the test has looked at the page meanwhile

    def hold(route):
        if route.request.method == "POST":
            held.append(route)
        else:
            route.continue_()

    status, sten = server.post("/api/tables", {"game": "sten", "players": 2, "deal": "table"})
    assert status == 201
    status, cam = server.post("/api/tables", {"game": "sten", "players": 2, "source": "phone"})
    assert status == 201
    grey = cv2.imencode(".jpg", np.full((480, 640, 3), 120, np.uint8))[1].tobytes()
    photo = {"name": "photo.jpg", "mimeType": "image/jpeg", "buffer": grey}
    page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": "nb"})
    errors = watch_errors(page)
    for url, picker, said, at in [
        (sten["players"][0]["url"], "#photo", r"Sender bildet: \d+ %|Leser bildet…", "#photo-msg"),
        (cam["url"], "#phone-snap", "Sender bildet…", "#phone-rate"),
    ]:
        page.goto(f"{server.base}{url}")
        page.route(re.compile(r".*/(photo|frame\?still=1)$"), hold)
        if picker == "#photo":
            page.click("#photo-box summary")
        page.set_input_files(picker, photo)
        page.wait_for_function(f"document.querySelector('{picker}').disabled", timeout=LIVE_MS)
        assert re.fullmatch(said, page.inner_text(at)), page.inner_text(at)
        if picker == "#photo":
            page.screenshot(path=str(ARTIFACTS / "hand-photo-reading-nb.png"))
        held.pop().continue_()
        page.unroute(re.compile(r".*/(photo|frame\?still=1)$"))
        page.wait_for_function(f"!document.querySelector('{picker}').disabled", timeout=LIVE_MS)
        assert not re.fullmatch(said, page.inner_text(at)), page.inner_text(at)
    page.close()
    assert [e for e in errors if "400 (BAD REQUEST)" not in e] == [], errors


@pytest.mark.parametrize(
    ("lang", "form_said", "hand_said"),
    [
        ("nb", "Ikke sendt: ingen forbindelse med Kortbord.",
         "Ikke sendt: ingen forbindelse med bordet."),
        ("sv", "Inte skickat: ingen anslutning till Kortbord.",
         "Inte skickat: ingen anslutning till bordet."),
    ],
)  # fmt: skip
def test_a_photo_cut_off_on_its_way_says_so_in_the_pages_language(
    browser, server, lang, form_said, hand_said
):
    """A road photo (the new-game form) or a photo of a hand whose upload the network cut
    (the server gone, the connection lost) said "TypeError: the photo could not be sent", in
    English whatever the page's language. Each says it was not sent in the page's language
    now (the upload aborted by the browser), and may be sent again."""
    import cv2
    import numpy as np

    status, sten = server.post("/api/tables", {"game": "sten", "players": 2, "deal": "table"})
    assert status == 201
    grey = cv2.imencode(".jpg", np.full((480, 640, 3), 120, np.uint8))[1].tobytes()
    photo = {"name": "bilde.jpg", "mimeType": "image/jpeg", "buffer": grey}
    page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": lang})
    errors = watch_errors(page)
    cut = re.compile(r".*/(new|photo)$")
    page.route(cut, lambda route: route.abort("connectionreset"))
    for url, picker, at, said, again in [
        ("/new?game=stigespill", "#road_photo", "#start-status", form_said,
         "#new-game button[type=submit]:enabled"),
        (sten["players"][0]["url"], "#photo", "#photo-msg", hand_said, "#photo:enabled"),
    ]:  # fmt: skip
        page.goto(f"{server.base}{url}")
        if picker == "#photo":
            page.click("#photo-box summary")
        page.set_input_files(picker, photo)
        if picker == "#road_photo":
            page.click("#new-game button[type=submit]")
        page.wait_for_function(
            "([at, said]) => document.querySelector(at).textContent.startsWith(said)",
            arg=[at, said],
            timeout=LIVE_MS,
        )
        assert "Error" not in page.inner_text(at), page.inner_text(at)
        page.wait_for_selector(again, timeout=LIVE_MS)  # it may be sent again
        page.locator(at).scroll_into_view_if_needed()
        page.screenshot(path=str(ARTIFACTS / f"photo-not-sent-{picker[1:]}-{lang}.png"))
    page.unroute(cut)
    page.close()
    # the browser's own line for the request cut off
    assert [e for e in errors if "ERR_CONNECTION_RESET" not in e] == [], errors


def test_a_skipbo_player_plays_by_keyboard_and_keeps_the_focus(browser, server):
    """Enter on a hand card chooses it (and says so), Tab reaches a discard pile named for
    what it is, Enter discards there; the focus is never dropped by the page's redraws."""
    _, page, errors = on_turns_phone(
        browser, server, {"game": "skipbo", "players": 2, "names": "Anna, Bo", "stock": 5}
    )
    page.wait_for_selector("#hand button.card")
    first = page.locator("#hand button.card").first
    code = first.get_attribute("data-code")
    first.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector(f"#hand button.card[aria-pressed='true'][data-code='{code}']")
    assert page.evaluate("document.activeElement.dataset.code") == code  # kept through the redraw
    on_pile = "document.activeElement.matches('button.fan.target')"
    for _ in range(60):
        page.keyboard.press("Tab")
        if page.evaluate(on_pile):
            break
    else:
        raise AssertionError("no discard pile reached with Tab")
    name = page.evaluate("document.activeElement.getAttribute('aria-label')")
    assert ("Anna" in name or "Bo" in name) and "discard pile" in name, name
    before = moves_made(page)
    page.keyboard.press("Enter")
    page.wait_for_function(f"document.body.dataset.moves > {before}")
    assert page.evaluate("document.activeElement !== document.body")
    page.close()
    assert not errors, errors


def test_a_road_typed_where_the_camera_cannot_read_it(browser, server):
    """A camera Stigespill table shows the road's places until its road is known; typed on
    the page, the road fills the board and the game can begin."""
    status, t = server.post(
        "/api/tables",
        {"game": "stigespill", "players": 2, "deal": "table", "source": "phone", "name": "Road"},
    )
    assert status == 201
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
    page.wait_for_selector(".road .tile")
    unread = "[...document.querySelectorAll('.road .tile-big')].filter(e => e.textContent === '?')"
    assert page.evaluate(f"{unread}.length") == 28
    page.click(".road-typed summary")
    road = "7S 8S 9S 10S JS QS KS 7H 8H 9H 10H JH QH KH 7D 8D 9D 10D JD QD KD 7C 8C 9C 10C JC QC KC"
    page.fill("#road-typed", road)
    page.click("#road-use")
    page.wait_for_function(f"{unread}.length === 0")
    assert page.locator(".pile-do button.card").count() > 0  # the first draw is offered
    # said, and the focus goes on from the turn (the road box is drawn anew, closed)
    page.wait_for_function("document.activeElement.id === 'turn-chip'")
    assert page.inner_text("#toast") == "The road is set: the board shows it."
    # typed wrong (two cards swapped): put right before the first move, from the road shown
    page.click("#road-fix summary")
    page.click("#road-fix .road-typed summary")
    assert page.input_value("#road-fix #road-typed") == road
    page.fill("#road-fix #road-typed", road.replace("7S 8S", "8S 7S"))
    # a redraw meanwhile (here a refused move's notice) keeps what is typed
    version = page.evaluate("document.body.dataset.version")
    move = {"kind": "reveal", "card": "3H"}  # before any draw: refused, told to every page
    status, _ = server.post(f"/api/tables/{t['id']}/moves", {"moves": [move]})
    assert status == 409
    page.wait_for_function(f"document.body.dataset.version > {version}")
    assert page.input_value("#road-fix #road-typed") == road.replace("7S 8S", "8S 7S")
    page.click("#road-fix #road-use")
    first = "document.querySelector(\".road g[data-pos='1'] .tile-rank\").textContent"
    page.wait_for_function(f"{first} === '8'")
    assert page.is_visible("#road-again")  # a camera table may have it read again instead
    page.locator("#play-panel").screenshot(path=str(ARTIFACTS / "road-fix-phone.png"))
    settled(page)
    page.locator(".pile-do button.card").first.click()  # the first draw: the road stays
    page.wait_for_function("document.body.dataset.moves > 0")
    assert page.is_hidden("#road-fix")
    page.close()
    assert not errors, errors


def test_the_camera_reads_the_road_again_as_the_family_says_it_runs(browser, server):
    """Before the first move a camera table's road may be read again, as a snake or like
    text: the family knows how they laid it, where small cards hide the grid from the
    camera. The shape chosen is kept for the next reading and shown."""
    from referee.stigespill import ROAD_CARDS

    status, t = server.post(
        "/api/tables",
        {"game": "stigespill", "players": 2, "deal": "table", "source": "phone", "name": "Rows"},
    )
    assert status == 201
    road = " ".join(c.code for c in ROAD_CARDS)
    assert server.post(f"/api/tables/{t['id']}/road", {"road": road})[0] == 200
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
    page.click("#road-fix summary")
    assert page.input_value("#road-again-shape") == "auto"
    snake = "like a snake: each row turns back"
    assert page.inner_text("#road-again-shape option:checked") == snake
    page.select_option("#road-again-shape", "rows")
    # a redraw meanwhile (here a refused move's notice) keeps the shape chosen
    version = page.evaluate("document.body.dataset.version")
    move = {"kind": "reveal", "card": "3H"}  # before any draw: refused, told to every page
    assert server.post(f"/api/tables/{t['id']}/moves", {"moves": [move]})[0] == 409
    page.wait_for_function(f"document.body.dataset.version > {version}")
    assert page.input_value("#road-again-shape") == "rows"
    page.click("#road-again")
    unread = "[...document.querySelectorAll('.road .tile-big')].filter(e => e.textContent === '?')"
    page.wait_for_function(f"{unread}.length === 28")  # the board waits for the camera again
    assert server.post(f"/api/tables/{t['id']}/road", {"road": road})[0] == 200
    page.wait_for_function(f"{unread}.length === 0")
    assert page.input_value("#road-again-shape") == "rows"
    page.reload()  # not this page's choice only: the table keeps it
    page.click("#road-fix summary")
    assert page.input_value("#road-again-shape") == "rows"
    page.close()
    assert not errors, errors


def test_a_road_box_tapped_open_as_an_update_comes_stays_open(browser, server):
    """A tap opens a box at once but its "toggle" event comes a moment later: an update drawn
    in between (a camera's picture, the live connection's first snapshot) drew the road's
    boxes closed again, so a tap on "put the road right" now and then did nothing."""
    from referee.stigespill import ROAD_CARDS

    body = {"game": "stigespill", "players": 2, "deal": "table", "source": "phone"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    road = " ".join(c.code for c in ROAD_CARDS)
    assert server.post(f"/api/tables/{t['id']}/road", {"road": road})[0] == 200
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.add_init_script(TEST_EVENTS)
    page.goto(f"{server.base}{t['url']}", wait_until="domcontentloaded")
    snap = server.get(f"/api/tables/{t['id']}")
    page.evaluate("s => sendSnapshot(s)", snap)  # the connection's first snapshot
    versions = iter(range(snap["version"] + 1, snap["version"] + 10))

    def tap_as_an_update_comes(summary: str) -> None:
        page.evaluate(
            "([summary, s]) => { document.querySelector(summary).click(); sendSnapshot(s); }",
            [summary, {**snap, "version": next(versions)}],
        )

    def is_open(box: str) -> bool:
        return page.evaluate(f"document.querySelector('{box}').open")

    tap_as_an_update_comes("#road-fix summary")
    assert is_open("#road-fix .road-fix-box")
    snake = "like a snake: each row turns back"  # shown: a closed box's text reads empty
    assert page.inner_text("#road-again-shape option:checked") == snake
    tap_as_an_update_comes("#road-fix .road-typed summary")
    assert is_open("#road-fix .road-typed") and is_open("#road-fix .road-fix-box")
    tap_as_an_update_comes("#road-fix .road-fix-box > summary")  # closed as it was tapped
    assert not is_open("#road-fix .road-fix-box")
    page.close()
    assert not errors, errors


def test_before_7h_no_phone_marks_a_player_on_turn_and_each_hint_reads_its_notes(browser, server):
    """Whoever holds 7♥ starts: the first seat's row in the players' list was marked on turn
    (on every phone), and only the first seat's hint spoke of the cards its phone noted."""
    status, t = server.post(
        "/api/tables", {"game": "sten", "players": 3, "names": "Anna, Bo, Cy", "deal": "table"}
    )
    assert status == 201
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['players'][1]['url']}")  # not the first seat's phone
    assert page.inner_text("#turn-chip") == "Who has 7♥? Lay it to start."
    assert page.locator("#players li").count() == 3
    assert page.locator("#players li.on-turn").count() == 0
    page.click("#picker summary")
    page.click("#picker-grid button.card[data-code='8H']")
    page.wait_for_selector("#hand .card[data-code='8H']")
    assert "None of your cards fits." in page.inner_text("#hint")
    page.click("#picker-grid button.card[data-code='7H']")
    page.wait_for_function("document.getElementById('hint').textContent.includes('7♥')")
    assert "Of your cards these fit: 7♥" in page.inner_text("#hint")
    page.click("#hand button.card[data-code='7H']")
    page.wait_for_function("document.body.dataset.moves == 1")
    page.wait_for_selector("#players li.on-turn")  # the game has begun: someone's turn
    assert page.locator("#players li.on-turn").inner_text().startswith("Cy")
    page.close()
    assert not errors, errors


def test_a_sten_phone_at_a_real_table_goes_by_the_hand_it_noted(browser, server):
    """The referee does not know the hand: the phone's notes decide what it offers first and
    what its hint says; the notes outlive an undo (a laid card comes back)."""
    t, page, errors = on_turns_phone(
        browser, server, {"game": "sten", "players": 2, "names": "Anna, Bo", "deal": "table"}
    )
    # nobody knows who holds 7♥: every page asks, none says whose turn it is
    assert page.inner_text("#turn-chip") == "Who has 7♥? Lay it to start."
    page.click("#picker summary")
    page.click("#picker-grid button.card[data-code='8H']")
    page.wait_for_selector("#hand button.card[data-code='8H'], #hand span.card[data-code='8H']")
    # 7♥ fits but was not noted: whoever holds it lays it (a big button on every phone),
    # and the hint speaks of the noted cards
    assert page.locator("#moves button.move[data-kind='lay']").count() == 1
    assert "None of your cards fits." in page.inner_text("#hint")
    page.click("#picker-grid button.card[data-code='7H']")
    page.wait_for_function("document.getElementById('hint').textContent.includes('7♥')")
    assert page.locator("#hand .card").evaluate_all("cs => cs.map(c => c.dataset.code)") == [
        "7H",
        "8H",
    ]  # in suit and rank order, as tapped the other way
    page.click("#hand button.card[data-code='7H']")
    page.wait_for_function("document.body.dataset.moves == 1")
    assert "7♥" not in page.inner_text("#turn-chip")  # the game has begun: someone's turn
    # the next player noted a card that does not fit: Sten first, the cards that fit apart
    # (they may be someone else's), the hint from the notes
    seat = server.get(f"/api/tables/{t['id']}")["to_move"]
    other = browser.new_page(viewport=PHONE)
    other.goto(f"{server.base}{t['players'][seat]['url']}")
    other.click("#picker summary")
    other.click("#picker-grid button.card[data-code='9S']")
    other.wait_for_selector(".other-fits button[data-kind='lay']", state="attached")
    assert other.locator(".other-fits button[data-kind='lay']").count() == 5  # 6♥ 8♥, 7♠ 7♦ 7♣
    assert other.locator("#moves button.move[data-kind='sten']").count() == 1
    assert "say Sten" in other.inner_text("#hint")
    other.close()
    assert page.locator("#hand .card[data-code='7H']").count() == 0  # on the table now
    server.post(f"/api/tables/{t['id']}/undo")
    page.wait_for_function("document.body.dataset.moves == 0")
    page.wait_for_selector("#hand .card[data-code='7H']")  # back in the hand after the undo
    # going out in one turn: an order that lays every noted card, when there is one
    rows = "[{suit: 'S'}, {suit: 'H'}, {suit: 'D'}, {suit: 'C'}]"
    before = page.evaluate(f"Board.stenOrder({rows}, ['8H', '7H', '7S', '6S'])")
    assert before == ["7H", "8H", "7S", "6S"]
    hearts = (
        "[{suit: 'S'}, {suit: 'H', seven_down: true, low: '5H', high: '9H'}, {suit: 'D'},"
        " {suit: 'C'}]"
    )
    assert page.evaluate(f"Board.stenOrder({hearts}, ['3H', '4H', '10H'])") == ["4H", "3H", "10H"]
    assert page.evaluate(f"Board.stenOrder({hearts}, ['3H', '10H'])") is None  # 4♥ missing
    page.close()
    assert not errors, errors


def note_on_phone(page, codes: list[str]) -> None:
    """Give a Sten phone page these noted cards, as its player's taps would, and open it
    again. They are written from another page of the site, one that runs no script: the
    phone page itself might render a live update between the writing and a reload, and take
    them in before it reloads."""
    url = urlsplit(page.url)
    page.goto(f"{url.scheme}://{url.netloc}/static/icon.svg")
    key = f"kortbord-notes-{url.path}-1"
    page.evaluate(
        "([key, codes]) => localStorage.setItem(key, JSON.stringify(codes))", [key, codes]
    )
    page.goto(urlunsplit(url))
    page.wait_for_selector("#hand .card")


def test_a_sten_phone_whose_whole_noted_hand_says_otherwise_asks_or_steps_back(browser, server):
    """A phone whose noted hand is whole and lacks 7♥ does not offer "Bo lays 7♥" as the way
    to start; one whose noted cards fit asks before it says "Sten" (the referee takes it on
    trust at a real table); one whose noted card another player laid takes it out."""
    body = {"game": "sten", "players": 2, "names": "Anna, Bo", "deal": "table"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    pages = {}
    for seat, suits in ((0, "HD"), (1, "SC")):
        page = browser.new_page(viewport=PHONE)
        pages[seat] = page
        page.goto(f"{server.base}{t['players'][seat]['url']}")
        note_on_phone(page, [r + s for s in suits for r in ranks])
    anna, bo = pages[0], pages[1]
    errors = watch_errors(anna) + watch_errors(bo)
    assert bo.locator("#moves button.move[data-kind='lay']").count() == 0
    assert bo.locator(".other-fits button[data-kind='lay']").count() == 1  # if notes are wrong
    anna.click("#moves button.move[data-kind='lay']")  # "Anna lays 7♥"
    bo.wait_for_function("document.body.dataset.moves == 1")
    # Bo's 7♠ and 7♣ fit: "Sten" asks first, and goes only when tapped again
    sten = bo.locator("#moves button[data-kind='sten']")  # with the moves that lay 7♠, 7♣
    sten.click()
    asked = "These noted cards fit: 7♠, 7♣. Tap again to say Sten anyway."
    assert sten.inner_text() == asked and sten.get_attribute("aria-label") == asked
    assert server.get(f"/api/tables/{t['id']}")["moves_made"] == 1
    sten.scroll_into_view_if_needed()
    bo.screenshot(path=str(ARTIFACTS / "sten-asks-before-sten-phone.png"))
    sten.click()
    bo.wait_for_function("document.body.dataset.moves == 2")
    assert "Bo said Sten" in bo.inner_text("#last")
    # Bo lays 8♥, which Anna tapped in: her phone takes it out of her cards, and says so
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    for seat, card in ((0, "6H"), (1, "8H")):
        move = {"move": {"kind": "lay", "card": card}}
        assert server.post(f"/api/p/{tokens[seat]}/moves", move)[0] == 200
    anna.wait_for_selector("#toast.bad")
    assert anna.inner_text("#toast [aria-hidden]") == (
        "Laid by Bo: 8♥. Taken out of the cards you tapped in; check them against your hand."
    )
    kept = anna.evaluate(
        "JSON.parse(localStorage.getItem(`kortbord-notes-${location.pathname}-1`))"
    )
    assert "8H" not in kept and {"7H", "6H", "9H"} <= set(kept)  # what she laid, and holds
    for page in pages.values():
        page.close()
    assert not errors, errors


def test_cards_tapped_in_that_others_laid_are_said_player_by_player(browser, server):
    body = {"game": "sten", "players": 3, "names": "Anna, Bo, Cy", "deal": "table"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    for seat, card in ((0, "7H"), (1, "8H"), (2, "6H")):
        move = {"kind": "lay", "card": card, **({"seat": 0} if seat == 0 else {})}
        assert server.post(f"/api/p/{tokens[seat]}/moves", {"move": move})[0] == 200
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['players'][0]['url']}")
    note_on_phone(page, ["7H", "8H", "6H", "2S"])  # Bo's 8♥ and Cy's 6♥ tapped in by mistake
    page.wait_for_selector("#toast.bad")
    assert page.inner_text("#toast [aria-hidden]") == (
        "Laid by Bo: 8♥. Taken out of the cards you tapped in; check them against your hand."
        " Laid by Cy: 6♥. Taken out of the cards you tapped in; check them against your hand."
    )
    page.close()
    assert not errors, errors


def test_a_sten_phone_goes_out_in_one_turn_with_its_noted_hand(browser, server):
    """Real cards: when the cards noted are all the cards left and can all be laid now, the
    phone offers going out with them in one turn, in an order that lays."""
    status, t = server.post(
        "/api/tables", {"game": "sten", "players": 2, "names": "Anna, Bo", "deal": "table"}
    )
    assert status == 201
    url = f"/api/tables/{t['id']}"
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    for _ in range(200):  # each turn the first card that fits, until Anna holds two
        snap = server.get(url)
        if snap["view"]["hand_sizes"][0] == 2 and snap["to_move"] == 0:
            break
        seat = 0 if not snap["view"]["started"] else snap["to_move"]
        moves = server.get(f"/api/p/{tokens[seat]}")["moves"]
        lay = next(m["move"] for m in moves if m["move"]["kind"] == "lay")
        status, _ = server.post(f"/api/p/{tokens[seat]}/moves", {"move": lay})
        assert status == 200
    else:
        raise AssertionError("Anna never came down to two cards")
    # two cards that lay one after the other: the next two below or above a suit's pile
    rank = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    two = None
    for row in snap["view"]["board"]:
        if not row["seven_down"]:
            continue
        low, high = rank.index(row["low"][:-1]), rank.index(row["high"][:-1])
        if low >= 2:
            two = [rank[low - 2] + row["suit"], rank[low - 1] + row["suit"]]  # the far one first
        elif high <= 10:
            two = [rank[high + 2] + row["suit"], rank[high + 1] + row["suit"]]
        if two:
            break
    assert two, snap["view"]["board"]
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['players'][0]['url']}")
    page.click("#picker summary")
    for code in two:
        page.click(f"#picker-grid button.card[data-code='{code}']")
    page.click("#moves button.move[data-kind='go_out']")
    page.wait_for_function("Kortbord.snapshot().over")
    final = server.get(url)
    assert final["over"] and final["winner_names"] == ["Anna"]
    page.close()
    assert not errors, errors


def test_one_device_for_everyone_covers_each_hand_until_its_player_taps(browser, server):
    status, t = server.post(
        "/api/tables", {"game": "sten", "players": 2, "names": "Anna, Bo", "open": True}
    )
    assert status == 201
    page = browser.new_page(viewport=LAPTOP)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("#show-hand")
    first = server.get(f"/api/tables/{t['id']}")["to_move_name"]
    assert first in page.inner_text("#show-hand") and first in page.inner_text("#moves")
    assert page.locator("#hand .card").count() == 0 and page.locator("#moves button").count() == 0
    assert page.locator("#board button").count() == 0  # no playable slot tells the hand either
    assert not page.locator("#hint").is_visible()
    page.click("#show-hand")
    page.wait_for_selector("#hand button.card")
    page.click("#hand button.card.fits, #moves button[data-kind='sten'] >> nth=0")
    page.wait_for_function("document.body.dataset.moves >= 1")
    page.wait_for_selector("#show-hand")  # the next player's hand is covered again
    assert server.get(f"/api/tables/{t['id']}")["to_move_name"] in page.inner_text("#show-hand")
    page.close()
    assert not errors, errors


def test_skipbo_teams_show_who_partners_whom(browser, server):
    names = ["Anna", "Bo", "Cecilie", "Dag"]
    status, t = server.post(
        "/api/tables",
        {"game": "skipbo", "players": 4, "teams": True, "names": ", ".join(names), "stock": 5},
    )
    assert status == 201
    partners = {
        p["seat"]: p["partner"] for p in server.get(f"/api/tables/{t['id']}")["view"]["players"]
    }
    page = browser.new_page(viewport=LAPTOP)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector(".sb-player")
    for row in page.locator(".sb-player").all():
        seat = int(row.get_attribute("data-seat"))
        assert f"team with {names[partners[seat]]}" in row.inner_text()
    page.close()
    # On a phone, in each language's longer words ("NÆSTE: 1", "TRÆKTALON"), the four
    # building piles and the draw pile share one row.
    for lang in ("en", "nb", "da", "sv"):
        page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": lang})
        page.goto(f"{server.base}{t['url']}")
        page.wait_for_selector(".sb-build")
        tops = page.evaluate(
            "[...document.querySelectorAll('.sb-build .pile')].map((e) => e.offsetTop)"
        )
        assert len(tops) == 5 and len(set(tops)) == 1, (lang, tops)
        page.close()


def test_a_tap_made_twice_on_a_slow_network_is_one_move(browser, server):
    """While a change is on its way a second tap sends nothing; and what the page sends
    names the position it showed, so a copy that arrives anyway never becomes another move."""
    status, t = server.post("/api/tables", {"game": "stigespill", "players": 2, "deal": "app"})
    assert status == 201
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    sent = []

    def slowly(route):  # a phone on a slow network: each change is answered after 1.5 s
        sent.append(route.request.post_data_json)
        time.sleep(1.5)
        route.continue_()

    page.route("**/api/tables/*/moves", slowly)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("button.move[data-kind=draw]")
    # impatient: the second tap comes while the first is on its way
    page.evaluate("""() => {
      const draw = document.querySelector("button.move[data-kind=draw]");
      draw.click();
      draw.click();
    }""")
    assert wait_for_the_app_draw(page, server, t["id"]).count("draw") == 1
    assert len(sent) == 1 and sent[0]["position"].startswith("1.0.")
    # the copy a browser might send again is refused, in the page's words
    status, body = server.post(f"/api/tables/{t['id']}/moves", sent[0])
    assert status == 409 and "moved on" in body["error"]
    assert not page.locator("#toast.bad").count() and not errors, errors
    page.close()


def test_a_phone_draws_by_tapping_the_die_pile_under_the_board(browser, server):
    """The die pile, in sight under the board, draws when the app deals, as the move's button
    beside it does; at a real table it is only a picture."""
    status, t = server.post("/api/tables", {"game": "stigespill", "players": 2, "deal": "app"})
    assert status == 201
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    pile = page.locator("#board .pile button.card.back")
    # measured in the page, at one moment: the live connection's first snapshot draws the
    # board anew, and a locator measured across it found no box (the button was replaced)
    page.wait_for_function(
        """() => {
        const r = document.querySelector("#board .pile button.card.back")
            ?.getBoundingClientRect();
        return r && r.height > 0 && r.bottom <= innerHeight;
    }""",
        timeout=LIVE_MS,
    )
    assert pile.get_attribute("aria-label").startswith("Draw a die card (Die pile: 25 cards")
    assert page.locator(".join-box[open]").count() == 0  # no phone needed: the pages stay folded
    pile.click()
    assert wait_for_the_app_draw(page, server, t["id"]).count("draw") == 1
    # a real table's die card is said by a tap on it: the pile draws nothing
    status, real = server.post("/api/tables", {"game": "stigespill", "players": 2, "deal": "table"})
    page.goto(f"{server.base}{real['url']}")
    page.wait_for_selector(".pile-do button.card[data-code='5H']")
    assert page.locator("#board .pile button").count() == 0
    assert not errors, errors
    page.close()


HIDE_JS, SHOW_JS = (
    f"""() => {{  // what a browser does to a tab sent to the background, or shown again
  Object.defineProperty(document, "hidden", {{ value: {hidden}, configurable: true }});
  document.dispatchEvent(new Event("visibilitychange"));
}}"""
    for hidden in ("true", "false")
)


def test_tabs_in_the_background_leave_the_connections_to_the_tab_in_use(browser, server):
    """A browser keeps six connections to a server, and each page's live updates hold one: a
    table page and five players' pages in one browser made the table page's taps wait. A
    hidden tab lets go of its connection, and catches up when it is shown again."""
    status, t = server.post("/api/tables", {"game": "stigespill", "players": 5, "deal": "app"})
    assert status == 201
    ctx = browser.new_context(viewport=PHONE)
    players = []
    for p in t["players"]:
        page = ctx.new_page()
        page.goto(f"{server.base}{p['url']}")
        page.evaluate(HIDE_JS)
        players.append(page)
    table = ctx.new_page()
    errors = watch_errors(table)
    table.goto(f"{server.base}{t['url']}", timeout=LIVE_MS)
    table.locator("button.move[data-kind=draw]").click()
    made = len(wait_for_the_app_draw(table, server, t["id"]))
    # shown again, a player's tab reconnects and shows the draw made meanwhile
    shown = players[0]
    shown.evaluate(SHOW_JS)
    shown.wait_for_function(f"document.body.dataset.moves == {made}", timeout=LIVE_MS)
    assert not errors, errors
    ctx.close()


def test_a_camera_table_page_open_across_a_server_restart_starts_its_camera_again(
    browser, tmp_path
):
    """The server is killed and started again (without --source, so no new table): the table's
    page, not reloaded, opens its camera picture again when it is back, which starts the
    camera, and the table follows the video again (the page had kept a dead picture, and the
    camera never started)."""
    with camera_video_server(tmp_path, "stigespill", 2, 7, max_moves=16) as (server, table):
        page = browser.new_page(viewport=LAPTOP)
        page.goto(f"{server.base}/t/{table['id']}")
        page.wait_for_function("document.body.dataset.moves >= 2", timeout=CAMERA_MS)
        server.kill9()
        page.wait_for_selector("#offline:not([hidden])", timeout=LIVE_MS)
        server.extra = []
        server.start()
        page.wait_for_selector("#offline", state="hidden", timeout=LIVE_MS)
        camera = polled(
            lambda: server.get(f"/api/tables/{table['id']}/camera"),
            lambda c: c["frames"],
            CAMERA_MS / 1000,
        )
        assert camera["frames"] > 0, camera
        page.close()


def test_a_page_cut_off_from_the_table_says_so_and_catches_up(browser, server):
    status, t = server.post("/api/tables", {"game": "stigespill", "players": 2, "deal": "app"})
    assert status == 201
    page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": "nb"})
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("button.move[data-kind=draw]")
    page.route("**/api/tables/*/events", lambda route: route.abort())
    page.route("**/api/tables/*/moves", lambda route: route.abort())
    page.evaluate(HIDE_JS)  # the phone sleeps; it wakes with no network
    page.evaluate(SHOW_JS)
    page.wait_for_selector("#offline:not([hidden])", timeout=LIVE_MS)
    assert page.inner_text("#offline") == "Ingen forbindelse med bordet: kobler til igjen …"
    page.locator("button.move[data-kind=draw]").click()
    page.wait_for_selector("#toast.bad")
    assert page.inner_text("#toast").startswith("Ikke sendt: ingen forbindelse med bordet")
    # another device draws meanwhile; the network comes back, and the page catches up
    seen = server.get(f"/api/tables/{t['id']}")
    draw = next(m["move"] for m in seen["moves"] if m["move"]["kind"] == "draw")
    assert server.post(f"/api/tables/{t['id']}/moves", {"move": draw})[0] == 200
    page.unroute("**/api/tables/*/events")
    page.wait_for_selector("#offline", state="hidden", timeout=LIVE_MS)
    wait_for_the_app_draw(page, server, t["id"])
    assert not [e for e in errors if "net::ERR_FAILED" not in e], errors
    page.close()


def test_a_camera_that_cannot_open_is_not_said_to_be_watching(browser, server):
    """A dead stream (or a video that ended, or a lost camera): the next-move box said
    "the camera is watching" under the camera's own "cannot open …"; it says where the
    move is made instead."""
    status, t = server.post(
        "/api/tables",
        {
            "game": "sten",
            "players": 2,
            "source": "stream",
            "stream_url": "http://127.0.0.1:9/x.mjpg",
        },
    )
    assert status == 201
    page = browser.new_page(viewport=LAPTOP)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_function(
        "document.getElementById('camera-state').textContent.includes('cannot open')",
        timeout=LIVE_MS,
    )
    moves = page.inner_text("#moves")
    assert "the camera is watching" not in moves and "own phone page" in moves
    page.close()


# Counts the changes to a live region from now on (what a screen reader would say again).
COUNT_CHANGES_JS = """(id) => { const node = document.getElementById(id); window.changes = 0;
  new MutationObserver(() => { window.changes += 1; })
    .observe(node, { childList: true, subtree: true, characterData: true }); }"""


def test_the_last_move_and_the_hint_are_said_with_cards_in_words(browser, server):
    """The last-move line is a live region: a screen reader given "7♥" says "7 black heart
    suit" (a red card called black), in English whatever the page's language; it is shown
    as it is and said in the page's words."""
    status, t = server.post("/api/tables", {"game": "sten", "players": 2, "names": "Anna, Bo"})
    assert status == 201
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    holder = server.get(f"/api/tables/{t['id']}")["to_move"]  # whoever holds 7♥ lays it
    mine = server.get(f"/api/p/{tokens[holder]}")
    status, _ = server.post(f"/api/p/{tokens[holder]}/moves", {"move": mine["hint"]["move"]})
    assert status == 200
    name = ["Anna", "Bo"][holder]
    for lang, said in (("en", f"{name} laid 7 of hearts"), ("nb", f"{name} la hjerter 7")):
        page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": lang})
        errors = watch_errors(page)
        page.goto(f"{server.base}/p/{tokens[1 - holder]}")
        page.wait_for_selector(".sten-grid")
        assert "7♥" in page.inner_text("#last")  # shown with its symbol
        spoken = page.locator("#last").aria_snapshot()
        assert said in spoken and not set("♥▸") & set(spoken), spoken
        hint = page.locator("#hint").aria_snapshot()  # a card to lay, or Sten: never a symbol
        assert not set("♠♥♦♣") & set(hint), hint
        page.close()
        assert not errors, errors


def test_the_camera_line_is_said_once_not_on_every_update(browser, server):
    """The camera's line is a status region: written again on every update (each move, each
    camera picture) with the same words, a screen reader said it again each time."""
    t, page, errors = phone_camera_table(browser, server, LAPTOP)
    page.wait_for_selector("#camera-state:not([hidden])")
    page.evaluate(COUNT_CHANGES_JS, "camera-state")
    for _ in range(2):  # updates that leave the camera as it was
        before = moves_made(page)
        status, _ = server.post(f"/api/tables/{t['id']}/moves", {"move": {"kind": "draw"}})
        assert status == 200
        page.wait_for_function(f"document.body.dataset.moves > {before}")
    assert page.evaluate("window.changes") == 0
    assert page.inner_text("#camera-state").startswith("No picture yet")
    page.close()
    assert not errors, errors


@pytest.mark.parametrize(
    "viewport", [PHONE, NARROW_PHONE, LAPTOP], ids=["phone", "narrow-phone", "laptop"]
)
def test_ten_tokens_on_the_start_stand_apart_and_leave_its_word_readable(browser, server, viewport):
    """A solo player's ten tokens (the most a game has) stood on the start in rows that
    overlapped each other and covered the word "Start". They stand apart above it now, each
    letter ("10" too) inside its token, made only as small as the square needs; on a phone
    their letters were 7 px, and now stay readable (10 px), the crowd standing out over the
    gaps beside the square where it must, onto no other square. On a phone 320 px wide the
    tokens may grow no larger, and their letters were 8.7 px: a letter there is larger in
    its token."""
    body = {"game": "stigespill", "players": 1, "tokens": 10, "names": "Anna", "deal": "table"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    page = browser.new_page(viewport=viewport)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector(".road .token")
    clear = page.evaluate(TOKENS_CLEAR_JS)
    assert clear["tokens"] == 10, clear
    assert clear["tokens_on_start_label"] == 0 and clear["tokens_touching"] == 0, clear
    assert clear["tokens_on_other_squares"] == 0 and clear["letters_sticking_out"] == 0, clear
    assert clear["smallest_letter_px"] >= 10, clear
    if viewport is LAPTOP:  # room enough on the square
        assert clear["tokens_off_start"] == 0, clear
    # as small as the board's own small print: a card's place number
    number = page.evaluate(
        """() => { const n = document.querySelector('.road .tile-pos');
          return parseFloat(getComputedStyle(n).fontSize) * n.getScreenCTM().a; }"""
    )
    assert clear["smallest_letter_px"] >= 0.7 * number, (clear, number)
    shown = {PHONE["width"]: "phone", NARROW_PHONE["width"]: "narrow-phone"}
    shot(page, f"stigespill-ten-tokens-{shown.get(viewport['width'], 'laptop')}")
    page.close()
    assert not errors, errors


# Each token on a card that covers that card's place number (bottom right, small print): its
# seat and the number, measured as drawn, a token's white rim included.
TOKENS_ON_NUMBERS_JS = """() => {
  const out = [];
  for (const g of document.querySelectorAll('.road .token')) {
    const c = g.querySelector('circle'), box = c.getBoundingClientRect();
    const rim = parseFloat(getComputedStyle(c).strokeWidth) / 2 * c.getScreenCTM().a;
    const x = box.x + box.width / 2, y = box.y + box.height / 2, r = box.width / 2 + rim;
    for (const n of document.querySelectorAll('.road .tile-pos')) {
      const b = n.getBoundingClientRect();
      const dx = x - Math.max(b.left, Math.min(x, b.right));
      const dy = y - Math.max(b.top, Math.min(y, b.bottom));
      if (Math.hypot(dx, dy) < r) out.push([+g.dataset.seat, n.textContent]);
    }
  }
  return out;
}"""


@pytest.mark.parametrize("viewport", [PHONE, LAPTOP], ids=["phone", "laptop"])
def test_tokens_on_a_card_leave_its_place_number_readable(browser, server, viewport):
    """Two tokens on a card stood side by side on its place number ("B C13": card 13 behind
    them), three on one card covered it whole. The tokens on a card now stand clear of its
    number, no smaller than before."""
    road = "7S 8S 9S 10S 7H 8H 9H 10H 7D 8D 9D 10D 7C 8C 9C 10C JS QS KS JH QH KH JD QD KD JC QC KC"
    body = {"game": "stigespill", "players": 5, "deal": "table", "names": "Anna, Bo, Cy, Di, Eva"}
    status, t = server.post("/api/tables", {**body, "road": road})
    assert status == 201
    # three tokens on card 10, two on card 11 (no ladder on the way)
    for card in "4S 6H 5S 5D 6C 6S 4H 5H 6D 5C".split():
        move = {"moves": [{"kind": "draw"}, {"kind": "reveal", "card": card}]}
        assert server.post(f"/api/tables/{t['id']}/moves", move)[0] == 200
    page = browser.new_page(viewport=viewport)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_function("document.querySelectorAll('.road .token').length == 5")
    assert page.evaluate(TOKENS_ON_NUMBERS_JS) == []
    sizes = page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('.road .token')].map((g) =>
          [g.dataset.seat, g.transform.baseVal.consolidate().matrix.a]))"""
    )
    # no smaller than they stood before: two on a card at their usual size, three at 0.87
    assert [sizes[s] for s in "34"] == pytest.approx([1, 1]), sizes
    assert min(sizes[s] for s in "012") >= 0.86, sizes
    clear = page.evaluate(TOKENS_CLEAR_JS)
    assert clear["tokens_touching"] == 0 and clear["letters_sticking_out"] == 0, clear
    assert clear["smallest_letter_px"] >= 10, clear
    shot(page, f"stigespill-tokens-on-cards-{'phone' if viewport is PHONE else 'laptop'}")
    page.close()
    assert not errors, errors


# The road's small print as drawn: each card's place number and the start's and goal's
# word, their size on the screen, any that stands out of its square, and the numbers a
# ladder or snake is drawn over (the topmost shape at a point of the number's box).
ROAD_PRINT_JS = """() => {
  const out = { px: {}, outside: [], under_jumps: [] };
  const hit = document.createElement('style');  // the shapes that take no pointer too
  hit.textContent = '.road * { pointer-events: visiblePainted !important; }';
  document.head.append(hit);
  for (const n of document.querySelectorAll('.road .tile :is(.tile-pos, .tile-small)')) {
    const px = parseFloat(getComputedStyle(n).fontSize) * n.getScreenCTM().a;
    const kind = n.classList.contains('tile-pos') ? 'number' : 'word';
    out.px[kind] = Math.min(out.px[kind] || 99, px);
    const b = n.getBoundingClientRect();
    const r = n.closest('.tile').querySelector('rect').getBoundingClientRect();
    if (b.left < r.left || b.right > r.right || b.top < r.top || b.bottom > r.bottom)
      out.outside.push(n.textContent);
    const points = [0.2, 0.5, 0.8].flatMap((fx) => [0.3, 0.5, 0.7].map((fy) =>
      document.elementFromPoint(b.left + fx * b.width, b.top + fy * b.height)));
    if (points.some((e) => e && e.matches('.jump'))) out.under_jumps.push(n.textContent);
  }
  hit.remove();
  return out;
}"""


@pytest.mark.parametrize("viewport", [SMALL_PHONE, PHONE], ids=["360", "390"])
def test_a_phones_road_says_its_places_in_readable_print(browser, server, viewport):
    """On a 360 px phone the road's place numbers were drawn 8.3 px and "Start" and "Goal"
    8.8 px (9.1 and 9.6 on a 390 px phone): too small to read at a table. They are 12 px
    now, inside their squares, and tokens still stand clear of them: three and two on a
    card, a solo player's ten on the start. A ladder or snake crossing a card passes under
    its number, as under its rank: the larger numbers were half hidden by the arrows."""
    road = "7S 8S 9S 10S 7H 8H 9H 10H 7D 8D 9D 10D 7C 8C 9C 10C JS QS KS JH QH KH JD QD KD JC QC KC"
    body = {"game": "stigespill", "players": 5, "deal": "table", "names": "Anna, Bo, Cy, Di, Eva"}
    status, t = server.post("/api/tables", {**body, "road": road})
    assert status == 201
    for card in "4S 6H 5S 5D 6C 6S 4H 5H 6D 5C".split():  # three tokens on card 10, two on 11
        move = {"moves": [{"kind": "draw"}, {"kind": "reveal", "card": card}]}
        assert server.post(f"/api/tables/{t['id']}/moves", move)[0] == 200
    solo = {"game": "stigespill", "players": 1, "tokens": 10, "names": "Anna", "deal": "table"}
    status, ten = server.post("/api/tables", solo)
    assert status == 201
    page = browser.new_page(viewport=viewport, has_touch=True, is_mobile=True)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_function("document.querySelectorAll('.road .token').length == 5")
    printed = page.evaluate(ROAD_PRINT_JS)
    assert min(printed["px"].values()) >= 12 and not printed["outside"], printed
    assert not printed["under_jumps"], printed
    assert page.evaluate(TOKENS_ON_NUMBERS_JS) == []
    page.goto(f"{server.base}{ten['url']}")
    page.wait_for_function("document.querySelectorAll('.road .token').length == 10")
    printed = page.evaluate(ROAD_PRINT_JS)
    assert min(printed["px"].values()) >= 12 and not printed["outside"], printed
    clear = page.evaluate(TOKENS_CLEAR_JS)
    assert clear["tokens_on_start_label"] == 0 and clear["tokens_touching"] == 0, clear
    assert clear["tokens_on_other_squares"] == 0 and clear["smallest_letter_px"] >= 10, clear
    page.close()
    assert not errors, errors


def test_a_tokens_letter_is_readable_in_any_players_colour(browser, server):
    """A token's letter was always white: on a teal, orange or white token (the default
    palette's seventh and eighth, or chosen) it was hard to read. It is black where black
    reads better."""
    from tests.webui.test_tables import _contrast

    body = {"game": "stigespill", "players": 3, "names": "Anna, Bo, Cy"}
    status, t = server.post("/api/tables", {**body, "colours": "teal, white, blue"})
    assert status == 201
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector(".road .token")
    colours = page.evaluate(
        """() => [...document.querySelectorAll('.road .token')].map((g) => [
          g.querySelector('circle').getAttribute('fill'),
          getComputedStyle(g.querySelector('text')).fill.match(/\\d+/g).map(Number)])"""
    )
    assert len(colours) == 3, colours
    for circle, rgb in colours:
        letter = "#" + "".join(f"{v:02x}" for v in rgb)
        assert _contrast(circle, letter) >= 4.5, (circle, letter)
    page.close()
    assert not errors, errors


# Each Sten card off the table: the opacity it is drawn with (its own and its boxes'), the
# colours of its rank and suit, and those of its background (a gradient's every colour).
GONE_CARDS_JS = """() => [...document.querySelectorAll('.sten-grid .card.gone')].map((c) => {
  let opacity = 1;
  for (let e = c; e; e = e.parentElement) opacity *= +getComputedStyle(e).opacity;
  const style = getComputedStyle(c);
  const colours = (text) => text.match(/rgba?\\([^)]*\\)/g) || [];
  return { opacity, text: [...c.children].map((e) => getComputedStyle(e).color),
           back: [...colours(style.backgroundImage), ...colours(style.backgroundColor)]
             .filter((rgb) => !/, 0\\)$/.test(rgb)) };
})"""


def hex_of(rgb: str) -> str:
    """Return a CSS ``rgb(…)`` colour as #rrggbb."""
    return "#" + "".join(f"{int(v):02x}" for v in re.findall(r"\d+", rgb)[:3])


def test_sten_cards_off_the_table_look_so_and_stay_readable(browser, server):
    """A pile that left the table was drawn at 35% opacity: its ranks and suits at about
    3:1 against the felt. Such cards are muted and striped now, their text at WCAG AA."""
    from tests.webui.test_tables import _contrast

    _, t = server.post("/api/tables", {"game": "sten", "players": 2, "names": "Anna, Bo"})
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    for _ in range(300):  # lay aces and kings first, till a red and a black pile leave
        snap = server.get(f"/api/tables/{t['id']}")
        board = snap["view"]["board"]
        red = {r["suit"] in "HD" for r in board if r["lower_pile_left"] or r["upper_pile_left"]}
        if red == {True, False}:
            break
        mine = server.get(f"/api/p/{tokens[snap['to_move']]}")
        moves = [m["move"] for m in mine["moves"]]
        move = min(moves, key=lambda m: m.get("card", "")[:1] not in ("A", "K"))
        server.post(f"/api/p/{tokens[snap['to_move']]}/moves", {"move": move})
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector(".sten-grid .card.gone")
    gone = page.evaluate(GONE_CARDS_JS)
    assert len(gone) >= 12 and len({tuple(card["text"]) for card in gone}) == 2, gone
    for card in gone:
        assert card["opacity"] == 1 and card["back"], card
        assert all(hex_of(b) != "#ffffff" for b in card["back"]), card  # not a card still down
        for text in card["text"]:
            for back in card["back"]:
                assert _contrast(hex_of(text), hex_of(back)) >= 4.5, (text, back)
    shot(page, "sten-off-the-table-phone")
    page.close()
    assert not errors, errors


# A Sten board as a phone shows it: its smallest card text (CSS px), how far its cards reach
# past its panel and the page across, and its panel's height against the screen under the top bar.
STEN_BOARD_JS = """() => {
  const grid = document.querySelector('.sten-grid');
  const panel = grid.closest('.board-panel').getBoundingClientRect();
  const cards = [...grid.querySelectorAll('.card')].map((c) => c.getBoundingClientRect());
  const sizes = [...grid.querySelectorAll('.card span')]
    .map((s) => parseFloat(getComputedStyle(s).fontSize));
  return {
    smallest_text: Math.min(...sizes),
    past_board: Math.max(...cards.map((c) => c.right)) - panel.right,
    past_page: document.documentElement.scrollWidth - window.innerWidth,
    board_height: panel.height,
    screen: window.innerHeight - document.querySelector('.topbar').getBoundingClientRect().height,
  };
}"""


def sten_to_lay_on(server) -> tuple[dict, list[str], int]:
    """A two-player Sten table on the phones with six moves or more made and its player on
    turn able to lay a card: ``(table, the players' tokens, the seat on turn)``. In 2% of
    deals the player on turn after six moves had none (only "Sten"): no place to tap."""
    status, t = server.post("/api/tables", {"game": "sten", "players": 2, "names": "Anna, Bo"})
    assert status == 201
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    for made in range(60):
        seat = server.get(f"/api/tables/{t['id']}")["to_move"]
        moves = [m["move"] for m in server.get(f"/api/p/{tokens[seat]}")["moves"]]
        if made >= 6 and any(m["kind"] == "lay" for m in moves):
            return t, tokens, seat
        assert server.post(f"/api/p/{tokens[seat]}/moves", {"move": moves[0]})[0] == 200
    raise AssertionError("no player on turn had a card to lay")


@pytest.mark.parametrize("viewport", [SMALL_PHONE, PHONE], ids=["360", "390"])
def test_a_phones_sten_board_is_read_and_tapped_with_a_finger(browser, server, viewport):
    """On a 360 px phone a Sten board's places were 23 × 33 px, its laid cards' rank and
    suit 9.6 px: too small to read, and to tap a place to lay a card. Each suit takes two
    lines of seven now (A–6 after its sign, 7–K under them): every place a finger wide and
    tall, its card readable, the board on one screen and nothing past the page's edge."""
    _, tokens, seat = sten_to_lay_on(server)
    page = browser.new_page(viewport=viewport, has_touch=True, is_mobile=True)
    errors = watch_errors(page)
    page.goto(f"{server.base}/p/{tokens[seat]}")  # the board whose places lay a card
    page.wait_for_selector(".sten-grid button.card.playable")
    board = page.evaluate(STEN_BOARD_JS)
    assert board["smallest_text"] >= 12, board
    assert board["past_board"] <= 0 and board["past_page"] <= 0, board
    assert board["board_height"] <= board["screen"], board
    places = page.evaluate(TAP_BOX_JS, ".sten-grid button.card")
    small = [box for box in places if min(box[1:]) < 44]
    assert places and not small, places
    page.close()
    assert not errors, errors


# The words shown on a page (not a drawing's, which scale with it) under 12 CSS px: each
# with its size, its own and those its ::before adds.
SMALL_WORDS_JS = """() => {
  const out = [];
  for (const e of document.querySelectorAll('body *')) {
    if (e.closest('svg, .sr-only') || !e.getClientRects().length) continue;
    const own = [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const px = parseFloat(getComputedStyle(e).fontSize);
    if (own && px < 12) out.push(`${e.className}: ${e.textContent.trim()} (${px} px)`);
    const before = getComputedStyle(e, '::before');
    if (before.content.startsWith('counter') && parseFloat(before.fontSize) < 12)
      out.push(`${e.className}::before (${before.fontSize})`);
  }
  return out;
}"""


def test_no_word_on_a_phone_is_under_12_px(browser, server):
    """A game's badge ("SKIP-BO"), the piles' labels ("NEXT: 1", "DRAW PILE", "STOCK 5"), the
    count on a pile and the places of a road spread evenly were 11.2–11.5 px on a phone: under
    the 12 px a page's smallest words need. None is now, on a table, a player's page, home."""
    from referee.stigespill import ROAD_CARDS

    # the face cards laid all at the end: the page offers the road spread evenly
    clustered = sorted((c.code for c in ROAD_CARDS), key=lambda code: code[0] in "JQK")
    body = {"game": "skipbo", "players": 2, "names": "Anna, Bo"}
    status, skipbo = server.post("/api/tables", body)
    status_2, road = server.post(
        "/api/tables",
        {"game": "stigespill", "players": 2, "deal": "table", "road": " ".join(clustered)},
    )
    assert status == status_2 == 201
    page = browser.new_page(viewport=SMALL_PHONE, has_touch=True, is_mobile=True)
    errors = watch_errors(page)
    small = []
    for url, ready in (
        (skipbo["url"], ".sb-build .pile-label"),
        (skipbo["players"][0]["url"], ".sb-build .pile-label"),
        (road["url"], ".road-even li"),
        ("/", ".game-badge"),
    ):
        page.goto(f"{server.base}{url}")
        page.wait_for_selector(ready)
        small += page.evaluate(SMALL_WORDS_JS)
    assert not small, small
    page.close()
    assert not errors, errors


# Skip-Bo's piles as drawn: how far below the first building pile each building pile's and
# the draw pile's card stands (one line: 0 each), how far they reach past the board's right
# edge, how many of their labels overlap, and on how many lines each player's discard piles lie.
SKIPBO_ROW_JS = """() => {
  const cards = [...document.querySelectorAll('.sb-build .pile > .card')]
    .map((c) => c.getBoundingClientRect());
  const board = document.querySelector('.sb-build').getBoundingClientRect();
  const labels = [...document.querySelectorAll('.sb-build .pile-label')]
    .map((l) => l.getBoundingClientRect());
  const overlaps = labels.filter((a, i) => labels.some((b, j) => i < j
    && a.right > b.left && b.right > a.left && a.bottom > b.top && b.bottom > a.top));
  const fans = [...document.querySelectorAll('.sb-discards')].map((d) =>
    new Set([...d.querySelectorAll('.fan')].map((f) => Math.round(f.getBoundingClientRect().top))));
  return {
    below_first: cards.map((c) => Math.round(c.top - cards[0].top)),
    discard_lines: fans.map((tops) => tops.size),
    past_board: Math.max(...cards.map((c) => c.right), ...labels.map((l) => l.right)) - board.right,
    labels_overlapping: overlaps.length,
  };
}"""


def test_skipbo_piles_stay_on_one_line_as_they_grow(browser, server):
    """On a 360 px phone the draw pile dropped to a line of its own once a building pile's
    label read "NESTE: 10" (in Danish from the first card): the board jumped mid-game; and
    beside "GRUNNBUNKE 30" a player's fourth discard pile took a line of its own. The four
    building piles and the draw pile keep one line in every language and at any count, as do
    each player's discard piles, a label too wide for its card taking two lines under it."""
    status, t = server.post("/api/tables", {"game": "skipbo", "players": 2, "names": "Anna, Bo"})
    assert status == 201
    tokens = [p["url"].rsplit("/", 1)[1] for p in t["players"]]
    page = browser.new_page(viewport=SMALL_PHONE, has_touch=True, is_mobile=True)
    errors = watch_errors(page)
    rows = {}
    for grown in (False, True):
        while grown:  # stock first, then any play, else discard: till a pile says "next: 10"
            snap = server.get(f"/api/tables/{t['id']}")
            if max(p["count"] for p in snap["view"]["building"]) >= 9:
                break
            assert not snap["over"]
            seat = snap["to_move"]
            moves = [m["move"] for m in server.get(f"/api/p/{tokens[seat]}")["moves"]]
            plays = [m for m in moves if m["kind"] == "play"]
            pick = [m for m in plays if m["source"] == "stock"] or plays or moves
            assert server.post(f"/api/p/{tokens[seat]}/moves", {"move": pick[0]})[0] == 200
        for lang in ("en", "nb", "da", "sv"):
            page.goto(f"{server.base}/lang/{lang}?next={t['url']}")
            page.wait_for_selector(".sb-build .pile.draw")
            rows[grown, lang] = page.evaluate(SKIPBO_ROW_JS)
    bad = {
        key: row
        for key, row in rows.items()
        if any(row["below_first"])
        or row["past_board"] > 0
        or row["labels_overlapping"]
        or row["discard_lines"] != [1, 1]
    }
    assert not bad, bad
    page.close()
    assert not errors, errors


def test_a_hand_shown_by_keyboard_takes_the_focus(browser, server):
    """One device for everyone: the button that shows the hand goes once pressed; the focus
    went back to the turn line at the top, and the hand was a long way on by Tab."""
    body = {"game": "sten", "players": 2, "names": "Anna, Bo", "open": True}
    status, t = server.post("/api/tables", body)
    assert status == 201
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.locator("#show-hand").focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#hand button.card")
    focused = page.evaluate(
        "(() => { const e = document.activeElement, box = e.closest('#hand, #moves');"
        " return [e.tagName, box ? box.id : null] })()"
    )
    assert focused == ["BUTTON", "hand"], focused  # 7♥'s holder: the card that starts
    page.close()
    assert not errors, errors


def test_a_clustered_road_is_offered_an_even_order_to_take_or_keep(browser, server):
    """The face cards laid all at the end: before the first move the table's page shows the
    road spread out card by card, the cards to move marked, in the page's language; "keep"
    leaves the family's road, "use" puts the spread one on the board."""
    from referee.stigespill import ROAD_CARDS, layout_advice

    road = [c.code for c in ROAD_CARDS if not c.is_face] + [c.code for c in ROAD_CARDS if c.is_face]
    even = layout_advice(road)["proposed_road"]
    body = {"game": "stigespill", "players": 1, "deal": "table", "road": " ".join(road)}
    pages = []
    for action in ("keep", "use"):
        status, t = server.post("/api/tables", body)
        assert status == 201
        page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": "nb"})
        errors = watch_errors(page)
        page.goto(f"{server.base}{t['url']}")
        advice = page.locator("#road-advice")
        assert "12 bildekort på rad" in advice.inner_text()
        assert "ved å flytte 21 kort, de merkede" in advice.inner_text()
        cards = page.locator("ol.road-even li")
        shown = [text.split()[0] for text in cards.all_inner_texts()]  # less "(flytt det)"
        assert shown[:6] == ["7♠", "8♠", "9♠", "10♠", "J♠", "7♥"]
        # the cards to move are marked (a border, and said), the ones that stay are not
        classes = cards.evaluate_all("ls => ls.map(l => l.className)")
        marked = [i + 1 for i, cls in enumerate(classes) if "moved" in cls]
        assert marked == [to for _, _, to in layout_advice(road)["moved"]] and marked[0] == 5
        assert "(flytt det)" in cards.nth(4).text_content()
        if action == "keep":
            shot(page, "stigespill-road-advice-phone-nb")
            page.click("#road-keep")
            assert not advice.count()
            kept = [x["code"] for x in server.get(f"/api/tables/{t['id']}")["view"]["road"]]
            assert kept == road
        else:
            page.click("#road-even-use")
            page.wait_for_selector("#road-advice", state="detached")
            taken = [x["code"] for x in server.get(f"/api/tables/{t['id']}")["view"]["road"]]
            assert taken == even
        assert not errors, errors
        pages.append(page)
    for page in pages:
        page.close()


def test_a_road_in_rows_is_asked_which_way_it_runs_before_it_is_advised_on(tmp_path, browser):
    """A road photo's straight rows read as a snake, the face cards bunched on that reading:
    the table's page showed the advice ("spread it out by moving N cards", worked out on the
    snake) above the question whether the rows run like text, a reading the family may be
    about to put aside. The question comes alone; the advice follows the answer, on the
    road the answer leaves: the snake kept, or the rows read again like text."""
    from referee.stigespill import ROAD_CARDS, layout_advice
    from webui.db import EventStore
    from webui.tables import ROAD_AS_TEXT, ROAD_GRID, ROAD_PHOTO

    numbers = [c.code for c in ROAD_CARDS if not c.is_face]
    faces = [c.code for c in ROAD_CARDS if c.is_face]
    snake, as_text = numbers + faces, faces + numbers  # both bunched, each its own advice
    server = Server(tmp_path / "data").start()
    body = {"game": "stigespill", "players": 1, "deal": "table", "road": " ".join(snake)}
    tables = [server.post("/api/tables", body)[1] for _ in range(2)]
    server.stop()
    # as a photo's road in rows leaves its table (the form's reading needs the models)
    store = EventStore(tmp_path / "data" / "kortbord.sqlite3")
    for t in tables:
        options = store.table(t["id"])["options"]
        store.set_options(
            t["id"], {**options, ROAD_PHOTO: True, ROAD_GRID: True, ROAD_AS_TEXT: as_text}
        )
    server.start()
    try:
        answers = [
            ("#road-as-snake", "Den går som en slange: behold den", snake),
            ("#road-as-text", "Les den på nytt som tekst", as_text),
        ]
        for t, (answer, said, road) in zip(tables, answers, strict=True):
            page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": "nb"})
            errors = watch_errors(page)
            page.goto(f"{server.base}{t['url']}")
            question = page.locator(".road-grid")
            assert "Går den som tekst" in question.inner_text()
            assert not page.locator("#road-advice").count()  # nothing advised on it yet
            if answer == "#road-as-snake":
                shot(page, "stigespill-road-rows-asked-phone-nb")
            assert page.locator(answer).inner_text() == said
            page.click(answer)
            page.wait_for_selector("#road-advice", timeout=LIVE_MS)
            assert not question.count()
            on_board = [x["code"] for x in server.get(f"/api/tables/{t['id']}")["view"]["road"]]
            assert on_board == road
            even = layout_advice(road)["proposed_road"]
            cards = page.locator("ol.road-even li").all_inner_texts()
            suits = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
            assert [text.split()[0] for text in cards] == [c[:-1] + suits[c[-1]] for c in even]
            page.close()
            assert not errors, errors
    finally:
        server.stop()


ROAD_HINT_JS = """() => { const box = (s) => document.querySelector(s).getBoundingClientRect();
  const hint = box('#road-codes'), field = box('textarea[name=road]');
  const next = box('label[for=road_photo]');
  const note = document.querySelector('#road-read');
  return {above: hint.top - (note ? note.getBoundingClientRect() : field).bottom,
          below: next.top - hint.bottom}; }"""


def test_a_road_photos_note_keeps_the_road_boxs_hint_under_it(browser, server):
    """A road photo read but for a card: the form came back with a note under the road box,
    and the box's codes hint stood ~30 px under the note and 26 px over the next field (a
    paragraph's own margins), where without the note it stands 6 px under the box and 16 px
    over the next field. It keeps its place under the note now."""
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}/new?game=stigespill")
    plain = page.evaluate(ROAD_HINT_JS)
    page.fill("input[name=names]", "Mormor, Jens")
    page.fill("textarea[name=road]", "7S 8S 9S")  # as a photo read (too few, to come back)
    page.evaluate(
        "() => { const i = document.createElement('input'); i.type = 'hidden';"
        " i.name = 'road_read'; i.value = '1';"
        " document.querySelector('textarea[name=road]').form.append(i); }"
    )
    page.locator("form button[type=submit]").last.click()
    page.wait_for_selector("#road-read")
    noted = page.evaluate(ROAD_HINT_JS)
    assert noted["above"] < 10 and abs(noted["below"] - plain["below"]) < 1, (plain, noted)
    page.close()
    assert not [e for e in errors if "400 (BAD REQUEST)" not in e], errors  # the form back


def test_a_name_ending_in_s_is_said_without_a_second_s(browser, server):
    """The page's own sentences too: a Danish Skip-Bo page named "Jenss grundbunke"."""
    body = {"game": "skipbo", "players": 2, "names": "Jens, Anna"}
    status, t = server.post("/api/tables", body)
    assert status == 201
    page = browser.new_page(viewport=PHONE, extra_http_headers={"Accept-Language": "da"})
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    page.wait_for_selector("[data-key^='stock:']")
    labels = page.locator("[data-key^='stock:']").evaluate_all(
        "ls => ls.map(l => l.getAttribute('aria-label'))"
    )
    assert any(label.startswith("Jens' grundbunke") for label in labels), labels
    assert any(label.startswith("Annas grundbunke") for label in labels), labels
    page.close()
    assert not errors, errors


def test_a_long_table_name_leaves_the_game_badge_on_one_line(browser, server):
    """On a phone a table named after its six players squeezed the badge beside its name:
    "SKIP-BO" broke at its hyphen onto two lines. The badge keeps one line; the name wraps."""
    names = "Bestemor Ingeborg, Ola-Johan, Kari, Sigurd, Åse, Øystein"
    status, t = server.post("/api/tables", {"game": "skipbo", "players": 6, "names": names})
    assert status == 201
    page = browser.new_page(viewport=PHONE)
    errors = watch_errors(page)
    page.goto(f"{server.base}{t['url']}")
    badge = page.wait_for_selector(".table-title .game-badge")
    lines = badge.evaluate(
        "(b) => { const r = document.createRange(); r.selectNodeContents(b);"
        " return new Set([...r.getClientRects()].map((q) => Math.round(q.top))).size; }"
    )
    assert lines == 1, lines
    title = page.evaluate("document.querySelector('.table-title').getBoundingClientRect().right")
    assert title <= PHONE["width"]  # the name wraps rather than runs off the page
    page.close()
    assert not errors, errors


# Each row of the home page's lists that may be removed: its width, its link's (the table's
# name and state) and its "Remove" control's box, and the gap between them.
HOME_ROWS_JS = """() => [...document.querySelectorAll('.table-list li')]
  .filter((li) => li.querySelector('a.row-remove') && li.getClientRects().length)
  .map((li) => {
    const row = li.querySelector('.table-row').getBoundingClientRect();
    const x = li.querySelector('a.row-remove').getBoundingClientRect();
    return { li: li.getBoundingClientRect().width, row: row.width, gap: x.left - row.right,
             remove: [x.width, x.height] };
  })"""


@pytest.mark.parametrize("viewport", [SMALL_PHONE, PHONE], ids=["360", "390"])
def test_a_phones_home_list_reads_each_table_first_and_keeps_remove_apart(
    browser, server, viewport
):
    """On a phone each table's row on the home page gave a quarter of its width to its
    "Remove" (82 px of 316 on a 360 px phone), its name and state squeezed into three lines.
    The row reads across the list now, its remove a cross a finger wide (44 px) and a gap
    apart from it, named for a screen reader, and it still leads to the page that asks."""
    status, t = server.post(
        "/api/tables", {"game": "sten", "players": 3, "names": "Astrid, Bjørn, Cecilie"}
    )
    assert status == 201
    page = browser.new_page(viewport=viewport, has_touch=True, is_mobile=True)
    errors = watch_errors(page)
    page.goto(f"{server.base}/")
    rows = page.evaluate(HOME_ROWS_JS)
    assert rows
    for row in rows:
        assert row["row"] >= 0.82 * row["li"], row
        assert 44 <= min(row["remove"]) and max(row["remove"]) <= 48, row
        assert row["gap"] >= 8, row
    remove = page.locator(f"a.row-remove[href='/t/{t['id']}/remove']")
    assert (
        remove.get_attribute("aria-label") == "Remove Sten · Astrid, Bjørn, Cecilie from the list"
    )
    remove.tap()
    page.wait_for_selector("#remove-yes")
    page.close()
    assert not errors, errors


# The home page's tables in progress, as shown: each visible row's table name, the fold's line
# (null where there is none) and where the "Finished" panel begins (the page's own px).
HOME_FOLD_JS = """() => {
  const heads = [...document.querySelectorAll('section.panel h2')];
  const playing = heads.find((h) => h.textContent.trim() === 'In progress').parentNode;
  const shown = [...playing.querySelectorAll('.table-row')].filter((a) => a.checkVisibility());
  const fold = playing.querySelector('details.more-tables > summary');
  const done = heads.find((h) => h.textContent.trim() === 'Finished');
  return { shown: shown.map((a) => a.querySelector('.table-name').textContent.trim()),
           fold: fold && fold.textContent.trim(),
           finished: done ? done.getBoundingClientRect().top + scrollY : null };
}"""


@pytest.mark.parametrize("viewport", [{"width": 1366, "height": 768}, PHONE], ids=["1366", "390"])
def test_the_home_page_folds_away_all_but_the_newest_tables_in_progress(
    tmp_path, browser, viewport
):
    """The home page listed every table in progress, abandoned ones too, with nothing folded:
    with 14 tables the finished ones began 1,000 px down on a laptop, 2,600 on a phone. The
    newest five are listed, the others fold away behind a counted "More tables (9)" that a
    tap opens, and the finished ones follow within the first screen or two."""
    server = Server(tmp_path / "data").start()
    try:
        status, done = server.post("/api/tables", {"game": "stigespill", "players": 1})
        assert status == 201
        while not server.get(f"/api/tables/{done['id']}")["over"]:
            move = {"move": {"kind": "draw"}}
            assert server.post(f"/api/tables/{done['id']}/moves", move)[0] == 200
        for n in range(14):
            body = {"game": "sten", "players": 3, "name": f"Evening {n + 1}"}
            assert server.post("/api/tables", body)[0] == 201
        rows = [r for r in server.get("/api/tables")["tables"] if not r["finished"]]
        playing = [r["name"] for r in rows]
        assert len(playing) == 14
        page = browser.new_page(viewport=viewport, has_touch=True)
        errors = watch_errors(page)
        page.goto(f"{server.base}/")
        home = page.evaluate(HOME_FOLD_JS)
        assert home["shown"] == playing[:5], home  # the newest first
        assert home["fold"] == "More tables (9)"
        assert home["finished"] < 2 * viewport["height"], home
        shot(page, f"home-fold-{viewport['width']}")
        page.locator("details.more-tables > summary").tap()
        assert page.evaluate(HOME_FOLD_JS)["shown"] == playing
        page.locator("details.more-tables .table-row").last.tap()  # the oldest, folded away
        page.wait_for_url(f"**/t/{rows[-1]['id']}", timeout=LIVE_MS)
        page.close()
        assert not errors, errors
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("lang", "matches", "new", "heading"),
    [
        ("nb", "Kamper", "Ny Skip-Bo-kamp", "Skip-Bo-kamper"),
        ("da", "Kampe", "Ny Skip-Bo-kamp", "Skip-Bo-kampe"),
        ("sv", "Matcher", "Ny Skip-Bo-match", "Skip-Bo-matcher"),
    ],
)
def test_a_phone_calls_a_skipbo_match_a_match_not_a_tournament(
    browser, server, lang, matches, new, heading
):
    """Norwegian and Danish pages called a Skip-Bo match (games played to 500 points) a
    "turnering", a tournament: the top bar's "Turneringer", "Ny Skip-Bo-turnering". They
    say "kamp" now, as Swedish says "match"."""
    page = browser.new_page(viewport=SMALL_PHONE, has_touch=True, is_mobile=True)
    errors = watch_errors(page)
    page.context.add_cookies([{"name": "lang", "value": lang, "url": server.base}])
    page.goto(f"{server.base}/")
    assert page.locator(".topnav > a[href='/matches']").inner_text() == matches
    assert page.locator(".hero-actions a").first.inner_text() == new
    page.locator(".topnav > a[href='/matches']").tap()
    page.wait_for_url(f"{server.base}/matches")  # the home page's heading was read as it left
    assert page.locator("h1").inner_text() == heading
    assert page.title().startswith(matches)
    page.close()
    assert not errors, errors

"""A family's tables on a shared network: what a guest on the wifi, or a web page in a
family member's browser, may not do (from an audit of LAN mode)."""

from __future__ import annotations

import re
import socket
import time

import cv2
import numpy as np
import pytest

from tests.webui.conftest import new_table, token
from tests.webui.server import WAIT_S
from webui import access


def _err(r, status):
    assert r.status_code == status, (r.status_code, r.get_data(as_text=True)[:300])
    return r.get_json()["error"]


def guest_of(app, addr: str = "203.0.113.23"):
    """A client on another device of the network (the host computer's is 127.0.0.1)."""
    client = app.test_client()
    client.environ_base["REMOTE_ADDR"] = addr
    return client


@pytest.mark.parametrize(
    "source",
    [{"source": "webcam"}, {"source": "stream", "stream_url": "http://127.0.0.1:8080/cam.mjpg"}],
)
def test_only_the_host_computer_gives_a_table_its_webcam_or_a_stream(lan_app, source):
    """A guest could have the laptop's webcam (or a camera only the laptop reaches) opened
    and watch it through its own new table."""
    guest = guest_of(lan_app)
    said = _err(guest.post("/api/tables", json={"game": "sten", **source}), 400)
    assert "chosen on the computer Kortbord runs on" in said
    t = new_table(guest, "sten", source="phone")  # a phone may be the camera itself
    r = guest.post(f"/api/tables/{t['id']}/source", json=source)
    assert "chosen on the computer" in _err(r, 400)
    r = guest.post("/new", data={"game": "sten", "players": "2", **source})
    assert r.status_code == 400 and "chosen on the computer" in r.get_data(as_text=True)
    host = lan_app.test_client()  # at the computer itself
    assert host.post("/api/tables", json={"game": "sten", **source}).status_code == 201


def test_join_codes_cannot_be_guessed_one_after_another(lan_app):
    t = new_table(lan_app.test_client(), "sten")
    guest = guest_of(lan_app)
    wrong = [c for c in (f"{n:06d}" for n in range(20)) if c != t["join_code"]]
    for code in wrong[: access.WRONG_CODES]:
        _err(guest.get(f"/api/tables/{t['id']}", headers={"X-Join-Code": code}), 403)
    # then even the right code waits, by the form, the header or the link
    said = _err(guest.get(f"/api/tables/{t['id']}", headers={"X-Join-Code": t["join_code"]}), 429)
    assert said == "too many wrong join codes from this device: wait a few minutes"
    assert guest.post(f"/t/{t['id']}/join", data={"code": t["join_code"]}).status_code == 429
    # nor is it kept out of a table it had joined before
    joined = new_table(lan_app.test_client(), "sten")
    guest.set_cookie(access.join_cookie(joined["id"]), joined["join_code"])
    assert guest.get(f"/api/tables/{joined['id']}").status_code == 200
    # another device of the family is not held up
    other = guest_of(lan_app, "203.0.113.40")
    assert (
        other.get(f"/api/tables/{t['id']}", headers={"X-Join-Code": t["join_code"]}).status_code
        == 200
    )


@pytest.mark.parametrize(
    ("host", "ok"),
    [
        ("localhost", True),
        ("127.0.0.1:5000", True),
        ("192.168.1.5:5000", True),
        ("[::1]:5000", True),
        (f"{socket.gethostname().split('.')[0]}.local:5000", True),
        (f"{socket.gethostname().split('.')[0]}.fritz.box", True),
        ("rebind.attacker.example:5000", False),
        (f"{socket.gethostname().split('.')[0]}.attacker.example", False),
        ("localhost.attacker.example", False),
    ],
)
def test_a_page_that_points_its_own_name_at_this_computer_is_refused(client, host, ok):
    """DNS rebinding: a web page whose name now leads here would be this computer's own
    page (every hand, off the LAN); only this computer's addresses and names are served."""
    r = client.get("/api/tables", headers={"Host": host})
    if ok:
        assert r.status_code == 200
    else:
        assert _err(r, 400) == "open Kortbord by this computer's address or name"


def test_changes_come_only_from_kortbords_own_pages(client, make_table):
    """A page on another site, or on another port of this computer (cookies do not tell
    ports apart), changes nothing; programs (no Origin) and the app's pages do."""
    t = make_table("stigespill", deal="app")
    url = f"/api/tables/{t['id']}"
    draw = next(m["move"] for m in client.get(url).get_json()["moves"])
    for headers in (
        {"Origin": "http://localhost:5001"},
        {"Origin": "http://evil.example"},
        {"Sec-Fetch-Site": "same-site"},
        {"Sec-Fetch-Site": "cross-site"},
    ):
        said = _err(client.post(f"{url}/moves", json={"move": draw}, headers=headers), 403)
        assert said == "a change must come from Kortbord's own pages"
        assert client.post("/new", data={"game": "sten"}, headers=headers).status_code == 403
    assert client.get(url).get_json()["moves_made"] == 0
    # the app's own page; behind an https proxy the app sees http, and the Origin says https
    own = {"Origin": "https://localhost", "Sec-Fetch-Site": "same-origin"}
    assert client.post(f"{url}/moves", json={"move": draw}, headers=own).status_code == 200
    assert (
        client.post(f"{url}/undo", json={}, headers={"Origin": "http://localhost:80"}).status_code
        == 200
    )


def test_a_name_given_in_the_settings_is_served(tmp_path):
    from webui import create_app

    app = create_app(
        {
            "TESTING": True,
            "DATA_DIR": str(tmp_path),
            "CAMERA": False,
            "HOSTS": {"kortbord.example.org"},
        }
    )
    client = app.test_client()
    assert client.get("/api/tables", headers={"Host": "kortbord.example.org"}).status_code == 200
    assert client.get("/api/tables", headers={"Host": "other.example.org"}).status_code == 400


def test_every_answer_carries_protective_headers(client, make_table):
    t = make_table("sten")
    for path in ("/", t["url"], f"/api/tables/{t['id']}", "/static/live.js"):
        h = client.get(path).headers
        assert h["X-Content-Type-Options"] == "nosniff" and h["X-Frame-Options"] == "DENY"
        assert "frame-ancestors 'none'" in h["Content-Security-Policy"]
        assert h["Referrer-Policy"] in ("same-origin", "no-referrer")
    assert client.get(t["players"][0]["url"]).headers["Referrer-Policy"] == "no-referrer"


def test_pages_run_only_kortbords_own_script_files(client, make_table):
    """The pages hold no inline script (the policy forbids it: a name slipped past escaping
    could run nothing): every script is a file of ours or data."""
    t = make_table("sten")
    policy = client.get("/").headers["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";"))
    assert directives["script-src"] == "'self'" and directives["default-src"] == "'self'"
    pages = [
        client.get(path)
        for path in ("/", "/new?game=sten", "/new?game=stigespill", "/matches", "/no-such-page")
    ]
    pages += [client.get(t["url"]), client.get(t["players"][0]["url"])]
    # A refused form, and a refused post's answer with its button back to the form.
    pages.append(client.post("/new", data={"game": "sten", "players": "1"}))
    pages.append(client.post("/new", data={"game": "sten"}, headers={"Origin": "http://evil"}))
    assert [p.status_code for p in pages[-4:]] == [200, 200, 400, 403]
    assert "data-back" in pages[-1].get_data(as_text=True)
    for page in pages:
        html = page.get_data(as_text=True)
        scripts = re.findall(r"<script\b([^>]*)>", html)
        for attrs in scripts:
            assert "src=" in attrs or 'type="application/json"' in attrs, attrs
        assert not re.search(r"\son[a-z]+=", html), "an inline event handler"
        assert "javascript:" not in html


def test_a_picture_whose_size_its_header_does_not_give_is_not_decoded(client, make_table):
    """A 10 KB WebP of 16383×16383 cost the server about 1 GB; a JPEG with a stray byte
    before its size hid 144 million pixels from the check."""
    t = make_table("sten", source="phone")
    url = f"/api/tables/{t['id']}/frame"
    small = np.full((32, 32, 3), 120, np.uint8)
    webp = cv2.imencode(".webp", small)[1].tobytes()
    jpeg = cv2.imencode(".jpg", small)[1].tobytes()
    sof = jpeg.index(b"\xff\xc0")
    stray = jpeg[:sof] + b"\x00" + jpeg[sof:]
    from webui.camera import NOT_A_PICTURE, decode_picture

    for data in (webp, stray):  # a road photo, a hand photo
        assert decode_picture(data) == (None, NOT_A_PICTURE)
    said = _err(client.post(url, data=stray, content_type="image/jpeg"), 400)  # a camera frame
    assert said == NOT_A_PICTURE
    _err(client.post(url, data=jpeg, content_type="image/jpeg"), 503)  # read, had no camera


def test_the_deal_comes_from_a_seed_too_large_to_search(app, make_table):
    """A 31-bit seed was found again from one player's own hand in hours, and with it every
    other hand and the draws to come."""
    for _ in range(12):
        make_table("skipbo")
    seeds = [
        g["seed"]
        for g in app.extensions["kortbord.hub"].store._conn().execute("SELECT seed FROM games")
    ]
    assert max(seeds) > 2**40 and all(0 <= s < 2**63 for s in seeds)


def test_a_guest_on_the_lan_sees_no_names_in_the_lists(lan_app):
    host = lan_app.test_client()
    t = new_table(host, "skipbo", match_target=100)
    guest = guest_of(lan_app)
    assert "Anna" in host.get("/").get_data(as_text=True)
    assert "Anna" not in guest.get("/").get_data(as_text=True)
    assert "Anna" not in guest.get("/matches").get_data(as_text=True)
    guest.post(f"/t/{t['id']}/join", data={"code": t["join_code"]})  # one of the family
    assert "Anna" in guest.get("/").get_data(as_text=True)
    assert "Anna" in guest.get("/matches").get_data(as_text=True)
    assert token(t, 0) not in guest.get("/").get_data(as_text=True)


def test_a_guest_on_the_lan_gets_no_names_on_a_form_filled_in_as_a_table(lan_app):
    """A new match with the same players fills the form in with their names: not for a guest
    who may not see who plays at that table (a blank form), as for one who joined it."""
    host = lan_app.test_client()
    t = new_table(host, "skipbo", names="Mor, Ida", match_target=100)
    url = f"/new?game=skipbo&again={t['id']}"
    assert 'value="Mor, Ida"' in host.get(url).get_data(as_text=True)
    guest = guest_of(lan_app)
    assert "Mor" not in guest.get(url).get_data(as_text=True)
    guest.post(f"/t/{t['id']}/join", data={"code": t["join_code"]})  # one of the family
    assert 'value="Mor, Ida"' in guest.get(url).get_data(as_text=True)


def test_on_the_lan_only_this_computer_or_the_tables_host_removes_it_from_the_list(lan_app):
    """A guest who joined a table plays at it, but may not take it off the family's list;
    this computer may, and so may the phone that started the table (its host)."""
    host = lan_app.test_client()
    t = new_table(host, "sten")
    guest = guest_of(lan_app)
    guest.post(f"/t/{t['id']}/join", data={"code": t["join_code"]})
    assert f"/t/{t['id']}/remove" not in guest.get("/").get_data(as_text=True)
    for r in (guest.get(f"/t/{t['id']}/remove"), guest.post(f"/t/{t['id']}/remove")):
        assert r.status_code == 403
    assert f'href="/t/{t["id"]}"' in host.get("/").get_data(as_text=True)
    assert f"/t/{t['id']}/remove" in host.get("/").get_data(as_text=True)
    phone = guest_of(lan_app, "203.0.113.40")
    own = new_table(phone, "sten")  # this phone is its host
    assert f"/t/{own['id']}/remove" in phone.get("/").get_data(as_text=True)
    assert phone.post(f"/t/{own['id']}/remove").status_code == 302
    assert "Removed tables (1)" in phone.get("/").get_data(as_text=True)
    assert "Removed tables" not in guest.get("/").get_data(as_text=True)  # none it may put back
    assert guest.post(f"/t/{own['id']}/restore").status_code == 403
    assert phone.post(f"/t/{own['id']}/restore").status_code == 302
    assert host.post(f"/t/{t['id']}/remove").status_code == 302
    assert f'href="/t/{t["id"]}"' not in guest.get("/").get_data(as_text=True)


def test_a_malformed_stream_address_is_named_not_a_server_error(client):
    for url in ("http://[::1", "http://host:99999/x", "rtsp://"):
        said = _err(
            client.post(
                "/api/tables", json={"game": "sten", "source": "stream", "stream_url": url}
            ),
            400,
        )
        assert "a network stream needs" in said


def test_one_device_cannot_hold_every_connection(app):
    """About 1,100 half-sent requests from one guest left the server no files to answer
    anyone with; now a device holds a few connections, and more are closed unanswered."""
    import threading

    from werkzeug.serving import make_server

    from webui.cli import request_handler

    handler = request_handler(per_device=2, trust_this_computer=False)
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_port

    def get() -> bytes:
        with socket.create_connection(("127.0.0.1", port), timeout=WAIT_S) as s:
            s.sendall(f"GET /api/tables HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode())
            return s.recv(64)

    try:
        idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(2)]
        for s in idle:
            s.sendall(b"GET / HTTP/1.1\r\n")  # and then nothing
        deadline = time.monotonic() + WAIT_S  # each connection is counted in its own thread
        while handler.connections.get("127.0.0.1", 0) < 2 and time.monotonic() < deadline:
            time.sleep(0.01)
        assert get() == b""  # a third connection of the device: closed unanswered
        idle.pop().close()
        # the server notices the closed one once its thread ends (it answers the half-sent
        # request first: on a busy machine that took longer than 50 tries in a row)
        deadline = time.monotonic() + WAIT_S
        while not (answer := get()) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert answer.startswith(b"HTTP/1.1 200")
        for s in idle:
            s.close()
    finally:
        server.shutdown()


def test_a_guest_cannot_start_tables_without_end(lan_app):
    guest = guest_of(lan_app)
    for _ in range(access.NEW_TABLES):
        assert guest.post("/api/tables", json={"game": "sten"}).status_code == 201
    said = _err(guest.post("/api/tables", json={"game": "sten"}), 429)
    assert said == "too many new tables from this device: wait a few minutes"
    assert lan_app.test_client().post("/api/tables", json={"game": "sten"}).status_code == 201


def test_this_computer_is_itself_at_its_lan_address_and_not_behind_a_proxy(lan_app):
    """The host computer opening the LAN address it printed is still this computer (it may
    choose its webcam); a request passed on by a proxy is not, even from 127.0.0.1."""
    from webui.cli import lan_address

    webcam = {"game": "sten", "source": "webcam"}
    at_home = guest_of(lan_app, lan_address())
    assert at_home.post("/api/tables", json=webcam).status_code == 201
    assert guest_of(lan_app, "::ffff:127.0.0.1").post("/api/tables", json=webcam).status_code == 201
    proxied = lan_app.test_client().post(
        "/api/tables", json=webcam, headers={"X-Forwarded-For": "203.0.113.23"}
    )
    assert "chosen on the computer" in _err(proxied, 400)


def test_a_players_page_on_the_network_shows_its_match_chart(lan_app):
    """A phone that opened its player's link (and no join code) sees the match's race
    chart on its page; the match page itself still needs the join code."""
    host = lan_app.test_client()
    t = new_table(host, "skipbo", match_target=200)
    guest = guest_of(lan_app)
    page = guest.get(t["players"][0]["url"]).get_data(as_text=True)
    chart = f"/api/p/{token(t, 0)}/chart.svg"
    assert chart in page
    r = guest.get(chart)
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    assert r.get_data(as_text=True).startswith("<svg")
    _err(guest.get(f"/matches/{t['id']}/chart.svg", headers={"Accept": "application/json"}), 403)
    _err(guest.get("/api/p/not-a-token/chart.svg"), 404)
    sten = new_table(host, "sten")  # no match: no chart
    _err(guest.get(f"/api/p/{token(sten, 0)}/chart.svg"), 404)


def test_the_address_printed_for_a_table_made_at_the_start_opens_it(lan_app):
    """`kortbord run --lan` makes the demo table (or `--source` a camera's) with no browser
    as its host: the address it prints, and its QR code, carry the join code."""
    from webui.cli import _opened

    t = new_table(lan_app.test_client(), "sten")
    path = _opened(lan_app, t["url"])
    assert path.startswith(t["url"] + "?code=")
    guest = guest_of(lan_app)
    assert guest.get(t["url"]).status_code == 403  # the join page
    assert guest.get(path).status_code == 200
    assert guest.get(f"/api/tables/{t['id']}").status_code == 200  # joined: the page's API
    assert _opened(lan_app, "/") == "/"


def test_a_join_code_typed_as_it_was_read_out_joins(lan_app):
    """ "133 320": the code with a space (as the host reads it out) joins, not only "133320"."""
    t = new_table(lan_app.test_client(), "sten")
    guest = guest_of(lan_app)
    code = t["join_code"]
    page = guest.get(t["url"]).get_data(as_text=True)
    assert "Join code" in page and 'placeholder="123 456"' in page  # a label one can see
    r = guest.post(f"/t/{t['id']}/join", data={"code": f" {code[:3]} {code[3:]} "})
    assert r.status_code == 302
    assert guest.get(f"/api/tables/{t['id']}").status_code == 200


def test_a_guests_table_page_points_to_no_players_pages_it_lacks(lan_app):
    """Only the host's table page lists the players' own pages: a guest's says where a
    player moves without pointing to them."""
    import json

    host = lan_app.test_client()
    t = new_table(host, "sten")
    guest = guest_of(lan_app)
    guest.post(f"/t/{t['id']}/join", data={"code": t["join_code"]})

    def words(client) -> dict:
        page = client.get(t["url"]).get_data(as_text=True)
        found = re.search(r'<script type="application/json" id="i18n">(.*?)</script>', page, re.S)
        return json.loads(found.group(1))

    mine, theirs = words(host), words(guest)
    assert "see Players' own pages" in mine["own_page"] and "see" in mine["card_on_phone"]
    for key in ("own_page", "card_on_phone", "deal_on_phones"):
        assert "Players' own pages" not in theirs[key], key
    assert theirs["own_page"] == "{name} moves on their own phone page."
    assert theirs["hint"] == mine["hint"]  # the rest as on the host's page


def test_a_long_list_of_zones_is_refused_at_once(lan_app):
    """A whole table's map has a few dozen zones; each of 20,000 was counted among all the
    others (a megabyte of JSON kept a core busy for 25 s, the 8 MB a request may hold for
    most of an hour), and a guest may send it to a Skip-Bo table of its own."""
    pytest.importorskip("vision.layouts.skipbo")
    guest = guest_of(lan_app)
    t = new_table(guest, "skipbo", source="phone")
    zone = {"kind": "building", "center": [1, 1], "index": 0}
    body = {"zones": {"players": 2, "zones": [zone] * 20_000}}
    start = time.process_time()  # CPU time: a busy machine's waits do not count
    said = _err(guest.post(f"/api/tables/{t['id']}/zones", json=body), 400)
    assert time.process_time() - start < 5
    assert said.startswith("bad zones: building pile 1 twice; no building pile 2")


def test_the_lists_tell_no_guesser_whether_its_join_code_is_right(lan_app):
    """The home and match lists name a table's players to a device whose join cookie holds
    the code: a guest setting that cookie tried codes there at about 250 a second, never
    counted as wrong (all million in about an hour)."""
    t = new_table(lan_app.test_client(), "skipbo", match_target=100)
    guest = guest_of(lan_app)
    wrong = [c for c in (f"{n:06d}" for n in range(20)) if c != t["join_code"]]
    for code in wrong[: access.WRONG_CODES]:
        guest.set_cookie(access.join_cookie(t["id"]), code)
        assert "Anna" not in guest.get("/").get_data(as_text=True)
    guest.set_cookie(access.join_cookie(t["id"]), t["join_code"])
    for path in ("/", "/matches"):  # the right code, once guessing, says nothing either
        r = guest.get(path)
        assert r.status_code == 200 and "Anna" not in r.get_data(as_text=True), path
    _err(guest.get(f"/api/tables/{t['id']}"), 429)
    joined = guest_of(lan_app, "203.0.113.40")  # one of the family, its code in its cookie
    joined.set_cookie(access.join_cookie(t["id"]), t["join_code"])
    assert "Anna" in joined.get("/").get_data(as_text=True)
    assert "Anna" in joined.get("/matches").get_data(as_text=True)


def test_names_keep_no_control_characters_and_the_chart_stays_valid(client):
    """A stray control character pasted into a name made the match chart's SVG invalid (it
    drew nothing), and a bidirectional override turned the text around a name."""
    from xml.etree import ElementTree

    body = {"game": "skipbo", "players": 2, "names": ["An\x01na", "B\u202eo\u200d"],
            "name": "Fam\x00ily"}  # fmt: skip
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.get_json()
    t = r.get_json()
    assert [p["name"] for p in t["players"]] == ["Anna", "Bo\u200d"]  # an emoji joiner stays
    assert client.get(f"/api/tables/{t['id']}").get_json()["table"]["name"] == "Family"
    chart = client.get(f"/matches/{t['id']}/chart.svg")
    assert chart.status_code == 200
    ElementTree.fromstring(chart.data)  # well-formed

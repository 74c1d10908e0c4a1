"""Every route of the app walked with malformed requests: a clear 4xx (JSON on the API),
never a 500, nothing changed, and the table plays on after. A route added without its
inputs listed in ``ROUTES`` fails here until they are."""

from __future__ import annotations

import io
import json
import tempfile
from typing import Any

import pytest

from tests.webui.conftest import error_said as _err
from tests.webui.conftest import new_table, token, zone_map
from webui import create_app

# The table each route is walked on (its URL's table or player), and the JSON fields it
# reads: each is sent malformed. Tables: "stige" a Stigespill table with real cards and a
# phone's camera (its road waits to be typed or read); "skipbo" an open Skip-Bo table with
# a phone's camera; "sten" a Sten table with real cards (a deal waits for its die cards).
ROUTES: dict[str, tuple[str, tuple[str, ...]]] = {
    "favicon": ("stige", ()),
    "static": ("stige", ()),
    "home.index": ("stige", ()),
    "home.new_form": ("stige", ()),
    "home.new_submit": ("stige", ()),  # a form, not JSON: its fields are api_create's
    "home.api_list": ("stige", ()),
    "home.api_create": ("stige", ("game", "players", "names", "deal", "source", "webcam_index")),
    "home.remove_form": ("stige", ()),
    "home.remove": ("stige", ()),
    "home.restore": ("stige", ()),
    "home.set_language": ("stige", ()),
    "home.set_letters": ("stige", ()),
    "table.page": ("stige", ()),
    "table.join": ("stige", ()),
    "table.state": ("stige", ()),
    "table.log": ("stige", ()),
    "table.events": ("stige", ()),
    "table.play": ("skipbo", ("move", "moves", "position")),
    "table.set_road": ("stige", ("road",)),
    "table.read_road_again": ("stige", ("shape",)),
    "table.draw": ("stige", ("position",)),
    "table.undo": ("skipbo", ("position",)),
    "table.redo": ("skipbo", ("position",)),
    "table.next_game": ("skipbo", ("position",)),
    "table.answer_prompt": ("stige", ("choice", "dismiss", "position")),
    "table.table_qr": ("stige", ()),
    "table.player_qr": ("stige", ()),
    "player.page": ("stige", ()),
    "player.state": ("stige", ()),
    "player.events": ("stige", ()),
    "player.play": ("skipbo", ("move", "moves", "position")),
    "player.deal": ("sten", ("note", "drop")),
    "player.undo": ("skipbo", ("position",)),
    "player.draw": ("stige", ("position",)),
    "player.chart": ("skipbo", ()),
    "player.photo": ("sten", ()),
    "matches.index": ("skipbo", ()),
    "matches.page": ("skipbo", ()),
    "matches.api": ("skipbo", ()),
    "matches.chart": ("skipbo", ()),
    "camera.stream": ("stige", ()),
    "camera.status": ("stige", ()),
    "camera.push_frame": ("stige", ()),
    "camera.confirm_zones": ("skipbo", ("zones", "frame")),
    "camera.set_source": ("skipbo", ("source", "webcam_index", "stream_url")),
}

# the rest of a body each malformed field is sent in, where a field is read only with others
BASES: dict[str, dict[str, Any]] = {
    "home.api_create": {"game": "stigespill", "players": 2, "deal": "table"},
    "camera.set_source": {"source": "webcam"},
}
# the camera's question the "stige" table waits on (the prompt route answers it)
PROMPT = {"message": "5♥ or 5♦?", "candidates": [{"label": "5♥", "moves": [{"kind": "draw"}]}]}

SETUPS = {
    "stige": {"game": "stigespill", "deal": "table", "source": "phone"},
    "skipbo": {"game": "skipbo", "open": True, "source": "phone", "match_target": 100},
    "sten": {"game": "sten", "deal": "table"},
}

# values no field takes: wrong types, numbers out of any range, card codes that are none
JUNK: list[Any] = [None, True, -1, 10**30, 1e308, "", "²", "ZZ", "11H", "qs", [], {}, ["ZZ"],
                   [-1], {"kind": "draw", "seat": "0"}, "x" * 3000, ["7S"] * 1000]  # fmt: skip

MALFORMED: list[dict[str, Any]] = [
    {},
    {"data": b"", "content_type": "application/json"},
    {"data": b"{", "content_type": "application/json"},
    {"data": b'{"choice": NaN, "position": Infinity}', "content_type": "application/json"},
    {"data": b'{"a": 1e999}', "content_type": "application/json"},
    {"data": b"\xff\xfe", "content_type": "application/json"},
    {"data": b"x", "content_type": "text/plain"},
    {"json": [{"move": {"kind": "draw"}}]},
    {"json": "draw"},
    {"json": None},
    {"data": {"code": "1", "game": "zz"}},
    {"data": b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", "content_type": "image/jpeg"},
    {"data": b"x" * (9 * 1024 * 1024), "content_type": "application/json"},
]
QUERY = "frames=x&still=%ff&next=//evil.example&code=&game=zz&removed=nope&lang=zz"
# what a Host header of a name no URL is built for looks like (a label of 64 letters)
BAD_HOST = {"Host": "x" * 64 + ".lan"}


def _url(rule, tables: dict[str, dict[str, Any]], kind: str) -> str:
    """Fill a rule's arguments from the table of its kind."""
    known = {"table_id": tables[kind]["id"], "token": token(tables[kind], 0), "seat": 1,
             "code": "nb", "filename": "app.css"}  # fmt: skip
    missing = set(rule.arguments) - set(known)
    assert not missing, f"{rule.rule}: say in _url how to fill {sorted(missing)}"
    return rule.build({k: known[k] for k in rule.arguments})[1]


def _state(app, client, table_id: str) -> str:
    """What a rejected request must leave as it was: the table's page, log, camera and
    listing; the number of tables."""
    snap = client.get(f"/api/tables/{table_id}").get_json()
    for volatile in ("version", "notice"):  # a refused move's reason is shown a while
        snap.pop(volatile, None)
    log = client.get(f"/api/tables/{table_id}/log").get_json()
    hub = app.extensions["kortbord.hub"]
    row = hub.store.table(table_id)
    rt = hub.get(table_id)
    kept = [row["source"], row["options"], hub.store.is_removed(table_id), rt.noted, rt.prompt]
    count = len(hub.store.list_tables()) + len(hub.store.list_tables(True))
    return json.dumps([snap, log, kept, count], sort_keys=True, default=str)


def _requests(rule, method: str, fields: tuple[str, ...], base: dict[str, Any]):
    """Yield ``(what, kwargs)`` of the malformed requests for one rule and method."""
    yield "bad Host", {"method": method, "headers": BAD_HOST}
    for wrong in ("GET", "POST", "PUT", "DELETE", "PATCH"):
        if wrong not in rule.methods:
            yield f"{wrong} (not allowed)", {"method": wrong}
    if method == "GET":
        yield "junk query", {"method": "GET", "query_string": QUERY}
        return
    for i, body in enumerate(MALFORMED):
        yield f"malformed body {i}", {"method": method, **body}
    yield "not a picture", {"method": method, "data": {"photo": (io.BytesIO(b"GIF89a"), "a.gif")}}
    for field in fields:
        for value in JUNK:
            body = {**base, field: value}
            yield f"{field}={json.dumps(value)[:30]}", {"method": method, "json": body}


def _routes() -> list[tuple[str, str, str]]:
    """Return every ``(endpoint, rule, method)`` the app answers."""
    with tempfile.TemporaryDirectory() as data:
        app = create_app({"TESTING": True, "DATA_DIR": data, "CAMERA": False})
        rules = list(app.url_map.iter_rules())
    return sorted((r.endpoint, r.rule, m) for r in rules for m in r.methods - {"HEAD", "OPTIONS"})


def test_every_route_is_listed_with_its_inputs(app):
    endpoints = {r.endpoint for r in app.url_map.iter_rules()}
    assert endpoints - set(ROUTES) == set(), "list the new route's table and JSON fields"
    assert set(ROUTES) - endpoints == set(), "a listed route is gone"


def _still_plays(client, t: dict[str, Any]) -> None:
    """Make one good change at the table: it is accepted and kept."""
    from referee.stigespill import ROAD_CARDS

    url = f"/api/tables/{t['id']}"
    snap = client.get(url).get_json()
    if snap.get("road_pending"):
        road = " ".join(c.code for c in ROAD_CARDS)
        snap = client.post(f"{url}/road", json={"road": road}).get_json()
    made = snap["moves_made"]
    r = client.post(f"{url}/moves", json={"move": snap["moves"][0]["move"]})
    assert r.status_code == 200, r.get_json()
    assert client.get(url).get_json()["moves_made"] == made + 1


@pytest.mark.parametrize(("endpoint", "path", "method"), _routes())
def test_malformed_requests_get_a_clear_error_and_change_nothing(
    app, client, endpoint, path, method
):
    kind, fields = ROUTES[endpoint]
    base = BASES.get(endpoint, {})
    rule = next(r for r in app.url_map.iter_rules() if r.rule == path and r.endpoint == endpoint)
    tables = {k: new_table(client, **setup) for k, setup in SETUPS.items()}
    app.extensions["kortbord.hub"].set_prompt(tables["stige"]["id"], PROMPT)
    url = _url(rule, tables, kind)
    watched = tables[kind]["id"]
    before = _state(app, client, watched)
    for what, kwargs in _requests(rule, method, fields, base):
        r = client.open(url, buffered=False, **kwargs)
        status = r.status_code
        assert status < 500, (what, status, r.get_data(as_text=True)[:300])
        if status < 400:
            r.close()  # an event stream or a camera's is not read to its end
            # accepted: a route that reads no body, a field that does not apply here
            before = _state(app, client, watched)
            continue
        body = r.get_json(silent=True)
        text = r.get_data(as_text=True)[:300]
        r.close()
        if url.startswith("/api/") or what == "bad Host":
            assert isinstance(body, dict) and isinstance(body.get("error"), str), (what, text)
            assert len(body["error"]) < 500, (what, text)  # a long field is not said back whole
        assert _state(app, client, watched) == before, (what, status, text)
    _still_plays(client, tables[kind])


# ---- the bugs the walk found ---------------------------------------------------------------


@pytest.mark.parametrize("index", ["²", "٣", "１", pytest.param("1" * 5000, id="5000 digits")])
def test_a_webcam_index_of_other_digits_is_refused_not_a_server_error(app, client, index):
    """``"²".isdigit()`` is true and ``int("²")`` fails, as ``int`` does for 5000 digits: a
    new table, the new-game form and a table's camera answered 500."""
    hub = app.extensions["kortbord.hub"]
    form = {"game": "sten", "players": 2, "source": "webcam", "webcam_index": index}
    assert "webcam index must be 0–16" in _err(client.post("/api/tables", json=form), 400)
    page = client.post("/new", data={**form, "players": "2"})
    said = page.get_data(as_text=True).lower()  # the form's alert, as a sentence
    assert page.status_code == 400 and "webcam index must be 0–16" in said
    assert hub.store.list_tables() == []
    t = new_table(client, "sten")
    source = {"source": "webcam", "webcam_index": index}
    _err(client.post(f"/api/tables/{t['id']}/source", json=source), 400)
    assert hub.store.table(t["id"])["source"] == "none"
    # the same with a plain digit is taken
    source["webcam_index"] = "1"
    assert client.post(f"/api/tables/{t['id']}/source", json=source).status_code == 200
    assert hub.store.table(t["id"])["source"] == "webcam:1"


@pytest.mark.parametrize(
    "body", [{}, {"source": None}, {"source": ""}, {"road": None, "players": 1e308}]
)
def test_a_camera_change_naming_no_camera_is_refused_not_read_as_none(app, client, body):
    """A body that names no camera (``source`` missing, null or empty) turned a table's camera
    off and answered 200: no page sends one (the new-game form's empty choice is a table's
    first camera, not a change), so it is malformed and changes nothing."""
    hub = app.extensions["kortbord.hub"]
    t = new_table(client, "skipbo", source="phone")
    said = _err(client.post(f"/api/tables/{t['id']}/source", json=body), 400)
    assert said == "say which camera: 'source' is one of none, webcam, stream, phone"
    assert hub.store.table(t["id"])["source"] == "phone"
    # naming it turns it off
    r = client.post(f"/api/tables/{t['id']}/source", json={"source": "none"})
    assert r.status_code == 200 and hub.store.table(t["id"])["source"] == "none"


@pytest.mark.parametrize(
    ("game", "field", "value"),
    [
        ("sten", "players", "٣"),
        ("sten", "players", " 3 "),
        ("sten", "players", "+3"),
        ("sten", "dealer", "2\n"),
        ("stigespill", "tokens", "４"),
        ("skipbo", "match_target", "1_000"),
        ("skipbo", "stock", "1_0"),
    ],
)
def test_a_number_field_takes_plain_ascii_digits_only(app, client, game, field, value):
    """Python's ``int`` read "1_000" as 1000 and " 3 ", "+3" and "٣" as 3: a table was made
    of numbers no page's number field sends; each is refused as no whole number."""
    players = "1" if field == "tokens" else "3"
    form = {"game": game, "players": players, "source": "phone", field: value}
    said = _err(client.post("/api/tables", json=form), 400)
    shown = value.replace("\n", "\\n")  # a line break written out
    assert said == f"{field} must be a whole number, not “{shown}”"  # in English marks
    page = client.post("/new", data=form)
    assert page.status_code == 400 and "must be a whole number" in page.get_data(as_text=True)
    assert app.extensions["kortbord.hub"].store.list_tables() == []
    # the same in plain digits (as int() read it) is taken; a minus is read, the range refuses it
    plain = str(int(value))
    assert client.post("/api/tables", json={**form, field: plain}).status_code == 201
    said = _err(client.post("/api/tables", json={**form, field: "-" + plain}), 400)
    assert said.startswith(f"{field} must be between ") and said.endswith(f", not -{plain}")


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"card_size": 10**30}, "'card_size' must be a card's size in pixels, 1–100000"),
        ({"zone": {"center": [10**30, 5]}}, "zone 0: 'center' must be [x, y] in pixels"),
    ],
)
def test_a_zone_of_a_number_past_64_bits_is_named(app, client, change, words):
    """A whole number past 64 bits was said back as numpy's "ufunc 'isfinite' not supported
    for the input types…", naming neither the field nor what it must be."""
    t = new_table(client, "skipbo", source="phone")
    url = f"/api/tables/{t['id']}"
    zones = zone_map(2)
    bad = {**zones, **{k: v for k, v in change.items() if k != "zone"}}
    if "zone" in change:
        bad["zones"] = [{**zones["zones"][0], **change["zone"]}, *zones["zones"][1:]]
    assert _err(client.post(f"{url}/zones", json={"zones": bad}), 400) == f"bad zones: {words}"
    assert "zones" not in app.extensions["kortbord.hub"].store.table(t["id"])["options"]
    assert client.post(f"{url}/zones", json={"zones": zones}).status_code == 200


def test_a_prompt_is_not_dismissed_by_a_malformed_request(app, client):
    """A dismissal read no ``position``: one that was no snapshot's was taken, and the
    camera's question dropped."""
    t = new_table(client, "stigespill", deal="table")
    url = f"/api/tables/{t['id']}"
    app.extensions["kortbord.hub"].set_prompt(t["id"], PROMPT)
    for position in (5, ["x"], "x" * 100):
        body = {"dismiss": True, "position": position}
        assert "'position'" in _err(client.post(f"{url}/prompt", json=body), 400)
        assert client.get(url).get_json()["prompt"]["message"] == "5♥ or 5♦?"
    snap = client.post(f"{url}/prompt", json={"dismiss": True}).get_json()
    assert snap["prompt"] is None


@pytest.mark.parametrize("path", ["/", "/t/nope", "/nowhere"])
def test_a_host_name_no_address_is_made_for_gets_a_clear_error(tmp_path, path):
    """A Host with a 64-letter name: Flask makes no URLs for it, and the error page, whose
    links are URLs, broke (500, a traceback in the log)."""
    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})  # not TESTING: as served
    r = app.test_client().get(path, headers=BAD_HOST)
    assert _err(r, 400) == "open Kortbord by this computer's address or name"
    assert app.test_client().get(path).status_code in (200, 404)


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("deal", "x" * 5000, "deal must be 'app' or 'table', not “xxxxx"),
        ("road", "7S " * 5000, "bad road: the road has 5000 cards, not 28"),
        ("road", ["ZZ"] * 5000, "bad road: the road has 5000 cards, not 28"),
    ],
)
def test_a_new_tables_problem_does_not_say_a_long_field_back_whole(client, field, value, words):
    """A 5000-letter deal was said back whole, and a road of 5000 cards gave each card's
    problem (59 KB for 10,000)."""
    body = {"game": "stigespill", "players": 2, "deal": "table", field: value}
    said = _err(client.post("/api/tables", json=body), 400)
    assert said.startswith(words) and len(said) < 100
    t = new_table(client, "stigespill", deal="table", source="phone")
    if field == "road":
        said = _err(client.post(f"/api/tables/{t['id']}/road", json={"road": value}), 400)
        assert said == words


def test_a_cut_off_or_damaged_picture_is_refused_not_read_garbled(client, make_table):
    """A phone's frame or hand photo damaged in the middle decoded garbled and was read as
    the table (its cards other than they lie); one cut off was "not a picture"."""
    import cv2
    import numpy as np

    from webui.camera import DAMAGED_PICTURE

    picture = np.random.default_rng(1).integers(0, 255, (240, 320, 3), np.uint8)
    data = cv2.imencode(".jpg", picture)[1].tobytes()
    half = len(data) // 2
    t = make_table("sten", source="phone")
    frame, photo = f"/api/tables/{t['id']}/frame", f"/api/p/{token(t, 0)}/photo"
    for bad in (data[:half], data[:half] + bytes(300) + data[half + 300 :]):
        said = _err(client.post(frame, data=bad, content_type="image/jpeg"), 400)
        assert said == DAMAGED_PICTURE
        hand = {"photo": (io.BytesIO(bad), "hand.jpg")}
        assert _err(client.post(photo, data=hand), 400) == DAMAGED_PICTURE
    _err(client.post(frame, data=data, content_type="image/jpeg"), 503)  # read: no camera here

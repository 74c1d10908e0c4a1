"""Malformed requests that broke the app: each gets a clear 4xx (JSON on the API) and
changes nothing."""

from __future__ import annotations

import pytest

from tests.webui.conftest import error_said as _err
from tests.webui.conftest import new_table, zone_map
from webui import create_app

# a question of the camera's, waiting on a table's page
PROMPT = {"message": "5♥ or 5♦?", "candidates": [{"label": "5♥", "moves": [{"kind": "draw"}]}]}
# what a Host header of a name no URL is built for looks like (a label of 64 letters)
BAD_HOST = {"Host": "x" * 64 + ".lan"}


@pytest.mark.parametrize("index", ["²", "٣", "１"])
def test_a_webcam_index_of_other_digits_is_refused_not_a_server_error(app, client, index):
    """``"²".isdigit()`` is true and ``int("²")`` fails: a new table, the new-game form and a
    table's camera answered 500."""
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


@pytest.mark.parametrize("path", ["/", "/t/nope", "/nowhere"])
def test_a_host_name_no_address_is_made_for_gets_a_clear_error(tmp_path, path):
    """A Host with a 64-letter name: Flask makes no URLs for it, and the error page, whose
    links are URLs, broke (500, a traceback in the log)."""
    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})  # not TESTING: as served
    r = app.test_client().get(path, headers=BAD_HOST)
    assert _err(r, 400) == "open Kortbord by this computer's address or name"
    assert app.test_client().get(path).status_code in (200, 404)


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


@pytest.mark.parametrize(
    ("field", "value", "words"),
    [
        ("deal", "x" * 5000, "deal must be 'app' or 'table', not 'xxxxx"),
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

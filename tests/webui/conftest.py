"""Fixtures for the web app: an app on a temporary data folder, its test client, builders."""

from __future__ import annotations

from typing import Any

import pytest

from webui import create_app


@pytest.fixture
def app(tmp_path):
    app = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "CAMERA": False})
    yield app
    app.extensions["kortbord.cameras"].stop_all()


@pytest.fixture
def lan_app(tmp_path):
    return create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "CAMERA": False, "LAN": True})


@pytest.fixture
def client(app):
    return app.test_client()


def new_table(client, game: str = "sten", **form: Any) -> dict[str, Any]:
    """Create a table through the API; return the JSON reply (id, url, players' links)."""
    body = {"game": game, "players": 2, "names": "Anna, Bo", **form}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()


def error_said(r, status: int) -> str:
    """Check that ``r`` is the JSON error ``status``; return what it says."""
    assert r.status_code == status, (r.status_code, r.get_data(as_text=True)[:300])
    body = r.get_json()
    assert isinstance(body, dict) and body["error"] and body["status"] == status
    return body["error"]


def token(created: dict[str, Any], seat: int) -> str:
    return created["players"][seat]["url"].rsplit("/", 1)[1]


@pytest.fixture
def make_table(client):
    def make(game: str = "sten", **form: Any) -> dict[str, Any]:
        return new_table(client, game, **form)

    return make


def zone_map(players: int) -> dict[str, Any]:
    """Return a whole Skip-Bo zone map for ``players`` on a 640 × 400 picture."""
    zones = [{"kind": "building", "center": [300 + 60 * k, 200], "index": k} for k in range(4)]
    for seat in range(players):
        y = 80 if seat else 330
        zones.append({"kind": "stock", "center": [200, y], "owner": seat})
        zones += [{"kind": "discard", "center": [270 + 60 * k, y], "owner": seat, "index": k}
                  for k in range(4)]  # fmt: skip
    return {"players": players, "card_size": 50.0, "zones": zones}

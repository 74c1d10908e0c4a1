"""Small helpers every blueprint uses: JSON bodies, snapshots cached per version."""

from __future__ import annotations

import json
import math
from typing import Any

from flask import abort, current_app, request
from flask.json.provider import DefaultJSONProvider

from webui import games, i18n
from webui.camera import CameraHub, camera_check, cameras, say_camera
from webui.snapshot import snapshot
from webui.speech import name_seats
from webui.tables import Runtime, TableHub, hub


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def _finite(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e400 reads as infinity
        raise ValueError(f"{text[:20]} is too large a number")
    return value


def _whole(text: str) -> int:
    try:
        return int(text)
    except ValueError:  # Python's own words ask to call sys.set_int_max_str_digits()
        raise ValueError(f"{text[:20]}… is too long a number") from None


class FiniteJSON(DefaultJSONProvider):
    """Flask's JSON provider, reading only finite numbers: Python's ``json`` takes NaN and
    Infinity, which would be stored and then break every page that shows them."""

    def loads(self, s: str | bytes, **kwargs: Any) -> Any:
        kwargs.setdefault("parse_constant", _no_constant)
        kwargs.setdefault("parse_float", _finite)
        kwargs.setdefault("parse_int", _whole)
        return json.loads(s, **kwargs)


def json_body() -> dict[str, Any]:
    """Return the request's JSON object, or abort 400/415 naming what is wrong."""
    if not request.is_json:
        abort(415, "send JSON (Content-Type: application/json)")
    try:
        data = current_app.json.loads(request.get_data())
    except RecursionError:
        abort(400, "the JSON body is nested too deeply")
    except UnicodeDecodeError:
        abort(400, "the body must be a JSON object in UTF-8")
    except ValueError as e:  # not JSON, NaN or Infinity, a number of thousands of digits
        abort(400, i18n.t("the body must be a JSON object: {problem}", problem=e))
    if not isinstance(data, dict):
        abort(400, "the body must be a JSON object")
    return data


def optional_json_body() -> dict[str, Any]:
    """Return the request's JSON object, or ``{}`` for a request without a body."""
    return json_body() if request.get_data() else {}


def position_from_body(data: dict[str, Any]) -> str | None:
    """Return the position a page's change was made on (its snapshot's ``position``), if
    sent; 400 if it is not such a text. The table refuses the change if it has moved on."""
    position = data.get("position")
    if position is not None and not (isinstance(position, str) and len(position) <= 64):
        abort(400, "'position' must be the text of a snapshot's 'position'")
    return position


def moves_from_body(data: dict[str, Any]) -> list[dict[str, Any]]:
    """Return the moves of ``{"move": {...}}`` or ``{"moves": [{...}, ...]}``; 400 otherwise."""
    if "moves" in data:
        moves = data["moves"]
        if not isinstance(moves, list) or not all(isinstance(m, dict) for m in moves):
            abort(400, "'moves' must be a list of move objects")
        return moves
    move = data.get("move")
    if not isinstance(move, dict):
        abort(400, "give 'move' (an object with a 'kind') or 'moves' (a list of them)")
    return [move]


def page_snapshot(
    rt: Runtime,
    seat: int | None,
    lang: str | None = None,
    table_hub: TableHub | None = None,
    camera_hub: CameraHub | None = None,
    letters: str | None = None,
) -> dict[str, Any]:
    """Return the snapshot for a page, computed once per table version, seat, language,
    card letters and camera state (the table's page shows its camera's).

    Pass ``lang``, ``letters``, ``table_hub`` and ``camera_hub`` when calling outside a
    request (a stream's generator).
    """
    lang = lang or i18n.current_language()
    letters = letters or i18n.current_letters()
    table_hub = table_hub or hub()
    camera = None
    if seat is None and rt.table["source"] != "none":
        camera = (camera_hub or cameras()).view(rt.table["id"])
    key = (rt.version, seat, lang, letters, camera and tuple(camera.values()))
    cache = rt.__dict__.setdefault("_snapshots", {})
    with rt.lock:
        hit = cache.get(key)
        if hit is None:
            if len(cache) > 64 or any(k[0] != rt.version for k in cache):
                cache.clear()
            t = i18n.translator(lang, letters)
            if camera is not None:
                check = camera_check(camera.get("message", ""), t)
                camera = {
                    k: say_camera(name_seats(v, games.shown_names(rt.names, t)), t)
                    if k != "state"
                    else v
                    for k, v in camera.items()
                }
                if check:
                    camera["message"] = f"{camera['message']} {check}"
            hit = snapshot(rt, seat, t, table_hub, camera)
            cache[key] = hit
        return hit

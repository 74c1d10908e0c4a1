"""A player's private page on their own phone: their hand, their moves, private hints.

The page and its API are reached only through the player's secret token; everything it shows
comes from the referee's ``view(state, seat)`` for that seat.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request

from webui import ErrorReply, error, games, i18n
from webui.common import (
    json_body,
    moves_from_body,
    optional_json_body,
    page_snapshot,
    position_from_body,
)
from webui.matches import chart_response
from webui.tables import hub

bp = Blueprint("player", __name__, template_folder="templates")

TOKEN_MAX = 64
# A link cut short, or one from another data folder: the player's way back is their code,
# which only the table's host shows (a guest's list of tables is empty).
NO_PAGE = (
    "no such player page: ask the table's host to show your code again "
    "(the table's page, Players' own pages)"
)


def _player(token: str) -> dict:
    if not isinstance(token, str) or len(token) > TOKEN_MAX:
        abort(404, NO_PAGE)
    player = hub().store.player_by_token(token)
    if player is None:
        abort(404, NO_PAGE)
    return player


def _reply(player: dict) -> Response:
    """Answer with the player's snapshot of their table as it is now."""
    return jsonify(page_snapshot(hub().get(player["table_id"]), player["seat"]))


@bp.get("/p/<token>")
def page(token: str) -> Response:
    """Show the player's own page."""
    player = _player(token)
    rt = hub().get(player["table_id"])
    resp = current_app.make_response(
        render_template(
            "player/player.html",
            rt=rt,
            player=player,
            player_name=games.shown_names(rt.names, i18n.t)[player["seat"]],
            table_name=games.table_name(rt.table, i18n.t),
            token=token,
            snap=page_snapshot(rt, player["seat"]),
        )
    )
    # The token is in the address: keep it out of other sites' Referer headers and caches.
    resp.headers["Referrer-Policy"] = "no-referrer"
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/api/p/<token>")
def state(token: str) -> Response:
    """Return the player's snapshot as JSON."""
    player = _player(token)
    return _reply(player)


@bp.get("/api/p/<token>/events")
def events(token: str) -> Response:
    """Stream this player's snapshot on every change of the table."""
    from webui.table import _stream

    player = _player(token)
    return _stream(hub().get(player["table_id"]), player["seat"])


@bp.post("/api/p/<token>/moves")
def play(token: str) -> Response:
    """Make the player's own move(s)."""
    player = _player(token)
    data = json_body()
    moves = moves_from_body(data)
    position = position_from_body(data)
    hub().play(player["table_id"], moves, source="tap", seat=player["seat"], position=position)
    return _reply(player)


@bp.post("/api/p/<token>/deal")
def deal(token: str) -> Response:
    """Note the die cards this player was dealt at a real table, ``{"note": ["4C", ...]}``,
    or take back cards noted by mistake, ``{"drop": [...]}``: each noted card is entered
    when the deal reaches the player's seat."""
    player = _player(token)
    data = json_body()
    hub().note_deal(player["table_id"], player["seat"], data.get("note", []), data.get("drop", []))
    return _reply(player)


@bp.post("/api/p/<token>/undo")
def undo(token: str) -> Response:
    """Take back this player's own last move (a tap by mistake), at a real table."""
    player = _player(token)
    position = position_from_body(optional_json_body())
    hub().undo(player["table_id"], position=position, seat=player["seat"])
    return _reply(player)


@bp.post("/api/p/<token>/draw")
def draw(token: str) -> Response:
    """Let the app draw the card(s) this player is owed (a virtual deck)."""
    player = _player(token)
    position = position_from_body(optional_json_body())
    hub().resolve_chance(player["table_id"], seat=player["seat"], position=position)
    return _reply(player)


@bp.get("/api/p/<token>/chart.svg")
def chart(token: str) -> Response:
    """Return the match's race chart for the player's page: the player's link lets it see
    the chart without the table's join code (a phone on the network has only its link)."""
    player = _player(token)
    match = hub().match(player["table_id"])
    if match is None:
        abort(404, "this table plays no match")
    return chart_response(hub().get(player["table_id"]), match)


@bp.post("/api/p/<token>/photo")
def photo(token: str) -> Response | ErrorReply:
    """Read the cards in a photo of the player's hand, if a recognizer is installed."""
    _player(token)
    upload = request.files.get("photo")
    if upload is None:
        abort(400, "send the photo as a form file named 'photo'")
    from webui.camera import recognize_photo

    codes, problem = recognize_photo(upload.read())
    if problem:
        return error(503 if "recognizer" in problem else 400, problem, codes=[])
    return jsonify({"codes": codes})

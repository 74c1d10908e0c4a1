"""The live table: its page, its JSON API (moves, draws, undo, redo, next game, prompts), its
server-sent events, and the QR codes that let players join."""

from __future__ import annotations

import io

import segno
from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)

from referee import IllegalMove, RulesError
from webui import access, games, i18n
from webui.camera import cameras
from webui.common import (
    json_body,
    moves_from_body,
    optional_json_body,
    page_snapshot,
    position_from_body,
)
from webui.live import sse_stream
from webui.tables import ROAD_AS_TEXT, Runtime, hub

bp = Blueprint("table", __name__, template_folder="templates")


def _runtime(table_id: str) -> Runtime:
    rt = hub().get(table_id)
    access.require_view(rt.table)
    return rt


@bp.get("/t/<table_id>")
def page(table_id: str) -> Response | tuple[str, int]:
    """Show the live table (or ask for the join code in LAN mode)."""
    rt = hub().get(table_id)
    if not access.may_view(rt.table):
        # a code in the link was checked (and counted) as a typed one is: say it was wrong
        linked = request.args.get("code") or ""
        return _join_page(rt, wrong=bool(linked), link=True, typed=linked)
    names = games.shown_names(rt.names, i18n.t)
    resp = make_response(
        render_template(
            "table/table.html",
            rt=rt,
            heading=games.heading(rt.table, names, i18n.t),
            names=names,
            snap=page_snapshot(rt, None),
            owner=access.is_owner(rt.table),
            lan=access.lan(),
        )
    )
    code = request.args.get("code")
    if access.lan() and code is not None and code == rt.table["join_code"]:
        resp.set_cookie(access.join_cookie(table_id), code, httponly=True, samesite="Lax")
    return resp


def _join_page(rt: Runtime, wrong: bool, link: bool = False, typed: str = "") -> tuple[str, int]:
    """Ask for the table's join code (``wrong``: the code typed, or with ``link`` the code in
    the page's address, was not it; ``typed``: that code, kept in the field to be corrected
    rather than typed again whole)."""
    name = games.table_name(rt.table, i18n.t)
    page = render_template(
        "table/join.html",
        table=rt.table,
        table_name=name,
        wrong=wrong,
        link=link,
        typed=typed[:12],  # the field's length
    )
    return page, 403


@bp.post("/t/<table_id>/join")
def join(table_id: str) -> Response | tuple[str, int]:
    """Check a typed join code; remember it in a cookie."""
    rt = hub().get(table_id)
    code = "".join((request.form.get("code") or "").split())  # "133 320", as it was read out
    if not access.join_code_is(rt.table, code):
        return _join_page(rt, wrong=True, typed=request.form.get("code") or "")
    resp = make_response(redirect(url_for("table.page", table_id=table_id)))
    resp.set_cookie(access.join_cookie(table_id), code, httponly=True, samesite="Lax")
    return resp


@bp.get("/api/tables/<table_id>")
def state(table_id: str) -> Response:
    """Return the table page's snapshot as JSON."""
    return jsonify(page_snapshot(_runtime(table_id), None))


@bp.get("/api/tables/<table_id>/log")
def log(table_id: str) -> Response:
    """Return the current game's log (game, config, initial state, moves).

    The log holds every hand (and a dealt deck's order): on the LAN it opens only when the
    game is over, so no phone can read another player's cards from it, and the game it was
    read of stays over (no undo goes on with the hands known).
    """
    _runtime(table_id)
    game = hub().game_log(table_id, when_over=access.lan())
    if game is None:
        abort(403, "the game's log opens when the game is over (it shows every hand)")
    return jsonify(game)


@bp.get("/api/tables/<table_id>/events")
def events(table_id: str) -> Response:
    """Stream the table page's snapshot on every change (server-sent events)."""
    rt = _runtime(table_id)
    return _stream(rt, None)


def _stream(rt: Runtime, seat: int | None) -> Response:
    lang, letters = i18n.current_language(), i18n.current_letters()
    table_hub, camera_hub = hub(), cameras()
    gen = sse_stream(
        current_app.extensions["kortbord.broadcaster"],
        rt.table["id"],
        lambda: page_snapshot(
            table_hub.get(rt.table["id"]), seat, lang, table_hub, camera_hub, letters
        ),
        heartbeat_s=current_app.config["SSE_HEARTBEAT_S"],
    )
    return Response(
        gen,
        mimetype="text/event-stream",
        headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"},
    )


def _reply(rt: Runtime) -> Response:
    return jsonify(page_snapshot(hub().get(rt.table["id"]), None))


@bp.post("/api/tables/<table_id>/moves")
def play(table_id: str) -> Response:
    """Make one move, or several at once (all or none), from the table's page."""
    rt = _runtime(table_id)
    data = json_body()
    moves = moves_from_body(data)
    hub().play(table_id, moves, source="tap", seat=None, position=position_from_body(data))
    return _reply(rt)


def _has_a_road(rt: Runtime) -> None:
    """Refuse a road's change at a table of another game (only the API sends one)."""
    if rt.rules.name != "stigespill":
        said = i18n.t(
            "only a Stigespill table has a road; this one plays {game}", game=rt.rules.name
        )
        abort(409, said)


@bp.post("/api/tables/<table_id>/road")
def set_road(table_id: str) -> Response:
    """Type the road of a Stigespill table waiting for its camera to read it: ``{"road":
    "7S 8H …"}`` (the 28 cards 7–K in road order) — for a road the camera cannot read, or
    one laid out on the table other than the app's, or read or typed wrong; before the
    first move, and only at a table with a road laid out (real cards, or a camera)."""
    rt = _runtime(table_id)
    _has_a_road(rt)
    if not rt.real_road:  # no page offers it: the phones play on the road the app dealt
        raise IllegalMove("the road of a game dealt on the phones is the app's: none is typed")
    data = json_body()
    try:
        road = games.road_codes(data.get("road"))
        taken = hub().set_road(table_id, road)
    except (games.SetupError, RulesError) as e:
        raise games.SetupError(str(e)) from None
    if not taken:
        raise IllegalMove("the road is set: it changes only before the first move")
    return _reply(rt)


@bp.post("/api/tables/<table_id>/road/again")
def read_road_again(table_id: str) -> Response:
    """Let the camera read the road again, before the first move (it read it wrong, or the
    cards were laid out anew): the moves wait for it as at the start. Without a camera, a
    road photo's straight rows read as a snake are taken as read like text (``shape``
    ``rows``)."""
    rt = _runtime(table_id)
    _has_a_road(rt)
    shape = optional_json_body().get("shape")
    as_text = rt.table["options"].get(ROAD_AS_TEXT)
    if rt.table["source"] == "none" and as_text and shape == "rows":
        if not hub().set_road(table_id, as_text):  # a photo's rows, read like text then
            raise IllegalMove("the road is set: it changes only before the first move")
        return _reply(rt)
    if rt.table["source"] == "none":
        abort(409, "this table has no camera to read its road: type the road instead")
    if shape is not None and shape not in games.ROAD_SHAPES:
        shapes = ", ".join(games.ROAD_SHAPES)
        abort(400, i18n.t("'shape' must be one of {shapes}", shapes=shapes))
    if not hub().read_road_again(table_id, shape):
        raise IllegalMove("the camera reads the road again only before the first move")
    return _reply(rt)


@bp.post("/api/tables/<table_id>/draw")
def draw(table_id: str) -> Response:
    """Let the app draw the pending card(s) for the table (a virtual deck)."""
    rt = _runtime(table_id)
    position = position_from_body(optional_json_body())
    hub().resolve_chance(table_id, seat=None, position=position)
    return _reply(rt)


@bp.post("/api/tables/<table_id>/undo")
def undo(table_id: str) -> Response:
    """Take back the last action (onto the redo stack)."""
    rt = _runtime(table_id)
    hub().undo(table_id, position=position_from_body(optional_json_body()))
    return _reply(rt)


@bp.post("/api/tables/<table_id>/redo")
def redo(table_id: str) -> Response:
    """Re-apply the last undone action."""
    rt = _runtime(table_id)
    hub().redo(table_id, position=position_from_body(optional_json_body()))
    return _reply(rt)


@bp.post("/api/tables/<table_id>/next")
def next_game(table_id: str) -> Response:
    """Start the next game at this table (the next game of a Skip-Bo match)."""
    rt = _runtime(table_id)
    hub().next_game(table_id, position=position_from_body(optional_json_body()))
    return _reply(rt)


@bp.post("/api/tables/<table_id>/prompt")
def answer_prompt(table_id: str) -> Response:
    """Answer an "out of sync" prompt: ``{"choice": i}`` plays candidate i, or dismiss it."""
    rt = _runtime(table_id)
    data = json_body()
    position = position_from_body(data)  # checked before a dismissal too, which ignores it
    prompt = rt.prompt
    if prompt is None:
        raise IllegalMove("there is nothing to confirm")
    if data.get("dismiss") is True:
        hub().set_prompt(table_id, None)
        return _reply(rt)
    choice = data.get("choice")
    candidates = prompt.get("candidates", [])
    if isinstance(choice, bool) or not isinstance(choice, int) or not 0 <= choice < len(candidates):
        said = i18n.t("'choice' must be a candidate number 0–{last}", last=len(candidates) - 1)
        abort(400, said)
    cand = candidates[choice]
    moves = cand.get("moves") or [cand["move"]]
    if cand.get("retracted"):  # the camera read its last moves again: they are replaced
        hub().correct(table_id, cand["retracted"], moves, position=position)
    else:
        hub().play(table_id, moves, source="confirm", seat=None, position=position)
    return _reply(rt)


@bp.get("/t/<table_id>/qr.svg")
def table_qr(table_id: str) -> Response:
    """Return a QR code that opens this table (with its join code in LAN mode)."""
    rt = _runtime(table_id)
    url = url_for("table.page", table_id=table_id, _external=True)
    if access.lan():
        access.require_owner(rt.table)
        url += f"?code={rt.table['join_code']}"
    return _svg(url)


@bp.get("/t/<table_id>/players/<int:seat>/qr.svg")
def player_qr(table_id: str, seat: int) -> Response:
    """Return the QR code of a player's private page (the table's host only)."""
    rt = _runtime(table_id)
    access.require_owner(rt.table)
    players = rt.table["players"]
    if not 0 <= seat < len(players):
        abort(404, i18n.t("no seat {seat}", seat=seat))
    return _svg(url_for("player.page", token=players[seat]["token"], _external=True))


# The light margin round a code, in modules: the standard's 4 took a fifth of each side of a
# player's 76-91 px code on a laptop, leaving its modules under 2 px and blurred, which two
# QR readers (OpenCV's) mostly failed to read; the card round it is light, as a margin must be.
QR_MARGIN = 1


def _svg(url: str) -> Response:
    buf = io.BytesIO()
    code = segno.make(url, error="m")
    code.save(buf, kind="svg", scale=4, dark="#111", light="#fff", border=QR_MARGIN)
    return Response(buf.getvalue(), mimetype="image/svg+xml", headers={"Cache-Control": "no-store"})

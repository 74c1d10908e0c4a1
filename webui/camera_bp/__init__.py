"""The camera's routes: the annotated MJPEG stream, frames pushed from a phone, the source."""

from __future__ import annotations

from collections.abc import Iterator

from flask import Blueprint, Response, abort, jsonify, request

from webui import access, i18n
from webui.camera import (
    MAX_FRAME_PIXELS,
    NO_PICTURES,
    NO_RECOGNIZER,
    NOT_A_PICTURE,
    TableCamera,
    cameras,
    decode_picture,
    shown_source,
)
from webui.common import json_body, page_snapshot
from webui.home import _source
from webui.tables import hub

bp = Blueprint("camera", __name__)

MJPEG_IDLE_S = 30.0
MAX_FRAME_BYTES = 4 * 1024 * 1024
_PART = b"--frame\r\nContent-Type: image/jpeg\r\n\r\n"  # a part's boundary and headers


def _mjpeg(cam: TableCamera, max_frames: int | None = None) -> Iterator[bytes]:
    """Yield the camera's newest JPEG as multipart parts (a thin generator per viewer).

    The stream ends when the camera stops or its source is lost: the page says why (the
    snapshot's ``camera``) and opens the viewer again when pictures come back. While the
    camera starts, the viewer waits for its first picture; an idle one gets the last picture
    again every ``MJPEG_IDLE_S``, so the connection stays open.

    Each picture is followed by the next part's boundary and headers: a browser draws a part
    once the next one has begun, which would otherwise be only with the next picture (a
    phone sending single pictures: up to ``MJPEG_IDLE_S`` later).
    """
    seen, sent = 0, 0
    while max_frames is None or sent < max_frames:
        frame_no, jpeg = cam.wait_frame(seen, MJPEG_IDLE_S)
        if frame_no == seen and (cam.done or cam.state in NO_PICTURES):
            return
        seen = frame_no
        if jpeg is None:
            continue
        yield (b"" if sent else _PART) + jpeg + b"\r\n" + _PART
        sent += 1
        if not cam.thread.is_alive():
            return


@bp.get("/t/<table_id>/camera.mjpg")
def stream(table_id: str) -> Response:
    """Stream the table's camera with the recognized cards outlined and labelled."""
    rt = hub().get(table_id)
    access.require_view(rt.table)
    cam = cameras().ensure(table_id)
    if cam is None:
        failure = cameras().view(table_id)
        if failure["state"] == "error":
            abort(503, failure["message"])
        abort(404, "this table has no camera")
    frames = request.args.get("frames", type=int)
    return Response(
        _mjpeg(cam, frames if frames and frames > 0 else None),
        mimetype="multipart/x-mixed-replace; boundary=frame",
        headers={"Cache-Control": "no-cache"},
    )


@bp.get("/api/tables/<table_id>/camera")
def status(table_id: str) -> Response:
    """Return whether the table's camera runs, its source's state and message (lost,
    reconnecting…), the reader's status and the frame count."""
    rt = hub().get(table_id)
    access.require_view(rt.table)
    cam = cameras().get(table_id)
    return jsonify(
        {
            "source": shown_source(rt.table["source"]),
            "running": bool(cam and cam.thread.is_alive()),
            **cameras().view(table_id),
            "status": cam.status if cam else "off",
            "frames": cam.frame_no if cam else 0,
        }
    )


STILL_FRAMES = 3  # the tracker's sightings before a card counts (vision.tracker: confirm_hits)


@bp.post("/api/tables/<table_id>/frame")
def push_frame(table_id: str) -> Response:
    """Take one JPEG from a phone's camera (the table's source must be "phone")."""
    rt = hub().get(table_id)
    access.require_view(rt.table)
    if rt.table["source"] != "phone":
        abort(409, "this table's camera is not a phone: choose 'this phone's camera' first")
    data = request.get_data(cache=False)
    if not data:
        abort(400, "send one JPEG picture as the request body")
    if len(data) > MAX_FRAME_BYTES:
        abort(413, "the picture is larger than 4 MB")
    if not (data[:3] == b"\xff\xd8\xff" or data[:8] == b"\x89PNG\r\n\x1a\n"):
        abort(400, NOT_A_PICTURE)
    # here, so a corrupt frame is refused, not dropped; it waits for the camera no larger
    # than a phone's photo
    image, problem = decode_picture(data, MAX_FRAME_PIXELS)
    if problem not in (None, NO_RECOGNIZER):
        abort(400, problem)
    cam = cameras().ensure(table_id) if image is not None else None
    if cam is None or cam.push is None:
        abort(503, "the camera pipeline is not available on this server")
    # A picture taken on purpose (a phone without live video) holds still: it counts as a
    # camera's few steady frames, so the table follows each picture, not every third.
    for _ in range(STILL_FRAMES if request.args.get("still") == "1" else 1):
        cam.push(image)
    # pictures sent faster than the camera reads them wait in a short queue, the oldest
    # dropped: the phone slows down when this count grows
    return jsonify({"ok": True, "frames": cam.frame_no, "dropped": cam.dropped()})


@bp.post("/api/tables/<table_id>/zones")
def confirm_zones(table_id: str) -> Response:
    """Confirm (or correct) the Skip-Bo zones the camera proposed: ``{"zones": map, "frame":
    [w, h]}``; the pipeline reads the piles through them from the next frame on."""
    rt = hub().get(table_id)
    access.require_view(rt.table)
    if rt.rules.name != "skipbo":
        abort(409, "only Skip-Bo tables have camera zones")
    data = json_body()
    try:
        from vision.layouts.skipbo import MAX_SIDE, ZoneError, ZoneMap, whole_number
    except ImportError:
        abort(503, "the camera pipeline is not installed on this server")
    frame = data.get("frame")
    if frame is not None and not (
        isinstance(frame, list)
        and len(frame) == 2
        and all(whole_number(v, 1, MAX_SIDE) for v in frame)
    ):
        abort(400, "'frame' must be [width, height] in pixels")
    zones = data.get("zones")
    try:
        zmap = ZoneMap.from_json(zones)
    except (ZoneError, TypeError, ValueError) as e:
        abort(400, i18n.t("bad zones: {problems}", problems=e))
    if zmap.players != rt.rules.players:
        said = i18n.t(
            "the zones are for {zones} players, the table has {players}",
            zones=zmap.players,
            players=rt.rules.players,
        )
        abort(400, said)
    problems = zmap.problems(None if frame is None else (frame[0], frame[1]))
    if problems:
        abort(400, i18n.t("bad zones: {problems}", problems="; ".join(problems[:4])))
    hub().confirm_zones(table_id, zmap.to_json(), frame)
    return jsonify(page_snapshot(hub().get(table_id), None))


@bp.post("/api/tables/<table_id>/source")
def set_source(table_id: str) -> Response:
    """Change the table's camera: none, webcam, network stream, or this phone's camera."""
    rt = hub().get(table_id)
    access.require_owner(rt.table)
    body = json_body()
    # a change names its camera: a body without one is malformed (the new-game form's empty
    # choice is "none", but no page sends this without a source), so it turns nothing off
    if not isinstance(body.get("source"), str) or not body["source"]:
        abort(400, "say which camera: 'source' is one of none, webcam, stream, phone")
    source = _source(body)
    hub().store.set_source(table_id, source)
    rt.table["source"] = source
    cameras().stop(table_id)  # after the change: a camera opening for the old source is dropped
    hub().touch(table_id)
    return jsonify({"source": source})

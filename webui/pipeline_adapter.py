"""The only place the web app knows the vision layer's API: the recognizer for photos of a
hand or a Stigespill road, and the camera pipeline for a table's camera. Both are optional:
when the models or the pipeline are missing, :func:`recognize`, :func:`read_road` and
:func:`pipeline_reader` return ``None``, and the app falls back to tapping.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from webui.camera import Reading

log = logging.getLogger("kortbord.web.vision")
DEFAULT_OUT_OF_SYNC = "the table does not match the game"  # an out-of-sync event that says nothing
WARMUP = 1.0  # seconds of the first frames that show the table whole before a move is read
WAITING = "camera: "  # a reading's status while the game's reader waits for the table
ON_PHONE = "enters their card on their own phone"  # …after a seat's name: the camera waits
# A camera knocked aside no longer shows some lying cards: what is laid on them goes unseen.
OUT_OF_VIEW_ONE = "a card lies outside the picture: turn the camera back to the whole table"
OUT_OF_VIEW = "{n} cards lie outside the picture: turn the camera back to the whole table"

_recognizer: Any = None
_recognizer_error: str | None = None
_lock = threading.Lock()


def _get_recognizer() -> Any:
    global _recognizer, _recognizer_error
    with _lock:
        if _recognizer is None and _recognizer_error is None:
            try:
                from vision.recognizer import Recognizer

                _recognizer = Recognizer(threads=1)
            except Exception as e:  # no models shipped, no onnxruntime: tapping still works
                _recognizer_error = str(e)
                log.info("no card recognizer: %s", e)
        return _recognizer


def recognize(image: Any) -> list[str] | None:
    """Return the card codes seen in a BGR ``image`` (left to right), or ``None`` without models."""
    rec = _get_recognizer()
    if rec is None:
        return None
    result = rec.recognize(image)
    det = result.detections
    if not len(det.codes):
        return []
    xs = det.corners[:, :, 0].mean(axis=1)
    order = sorted(range(len(det.codes)), key=lambda i: float(xs[i]))
    seen: list[str] = []
    for i in order:
        if det.codes[i] not in seen:
            seen.append(det.codes[i])
    return seen


def read_road(image: Any, shape: str = "auto") -> dict[str, Any] | None:
    """Return the Stigespill road read from a BGR photo of it (``{"road", "goal",
    "problems", "ok", "checks", "as_text"}``, the road in road order; ``checks``: the cards
    read by elimination, for the user to look at; ``as_text``: straight rows read as a
    snake, the same rows read like text, else ``None``; ``gaps``: where the road's missing
    cards likely lie, each the index of the card read before one), or ``None`` without models.
    ``shape``: the road reader's (``rows``: a grid whose rows all run the same way, like
    text)."""
    rec = _get_recognizer()
    if rec is None:
        return None
    from vision.layouts.road import RoadError, RoadReader, road_detections

    det, checks = road_detections(rec, image)
    try:
        reading = RoadReader(shape=shape).read(det)
    except RoadError as e:
        return {"road": [], "goal": None, "problems": [str(e)], "ok": False, "checks": checks}
    as_text = None
    if reading.ok and reading.grid:  # only the family knows which way the rows run
        rows = RoadReader(shape="rows").read(det)
        as_text = rows.road if rows.ok else None
    gaps = _gaps(reading.centers, 28 - len(reading.road)) if not reading.ok else []
    return {
        **reading.to_json(),
        "ok": reading.ok,
        "checks": checks,
        "as_text": as_text,
        "gaps": gaps,
    }


# A step along the road that is twice the step before or after it (within this share) spans
# a card not read: over the road benchmark's scenes 0-29, with the 10th or the 18th card
# painted out, 24 of 38 gaps were placed so and none wrongly (14 not placed: a turn beside
# them); on the 24 roads read whole, no step was taken for one. A step merely long is no
# sign: a spiral's or a curve's steps reach 2.9 times the usual one.
GAP_TOLERANCE = 0.25


def _gaps(centers: Any, missing: int) -> list[int]:
    """Return where the ``missing`` cards of a road read in order lie (``centers``: the cards'
    centres in road order, ``(n, 2)``), each the index of the card before one; ``[]`` unless
    exactly that many steps are twice a neighbouring step, in length and direction."""
    import numpy as np

    steps = np.diff(np.asarray(centers, float).reshape(-1, 2), axis=0)
    if missing <= 0 or len(steps) < 2:
        return []
    gaps = [
        i
        for i in range(len(steps))
        if any(
            np.linalg.norm(steps[i] - 2 * steps[j]) < GAP_TOLERANCE * 2 * np.linalg.norm(steps[j])
            for j in (i - 1, i + 1)
            if 0 <= j < len(steps)
        )
    ]
    return gaps if len(gaps) == missing else []


def available() -> bool:
    """Return whether the camera pipeline (``vision.pipeline``) is installed."""
    try:
        import vision.pipeline
        import vision.tracker  # noqa: F401
    except ImportError:
        return False
    return True


def make_recognizer(source: str) -> Any:
    """Return the frame recognizer for ``source``: a rendered video's ground-truth labels
    (the demo), else the shipped models; ``None`` when neither is there."""
    from pathlib import Path

    path = Path(source.split(":", 1)[1]) if source.startswith("video:") else None
    if path is not None:
        folder = path if path.is_dir() else path.parent
        for labels in (folder / "labels.jsonl", folder.parent / "labels.jsonl"):
            if labels.is_file():
                from vision.pipeline import GroundTruthRecognizer

                return GroundTruthRecognizer(str(labels))
    rec = _get_recognizer()
    if rec is None:
        return None
    from vision.pipeline import VideoRecognizer

    return VideoRecognizer(rec)


def draw_detections(image: Any, detections: Any) -> Any:
    """Return a copy of ``image`` with each card outlined and labelled (for the MJPEG view)."""
    import cv2
    import numpy as np

    from referee.cards import parse_card

    out = image.copy()
    w = out.shape[1]
    thick = max(2, w // 400)
    for quad, code in zip(detections.corners, detections.codes, strict=True):
        pts = np.round(quad).astype(np.int32).reshape(-1, 1, 2)
        cv2.polylines(out, [pts], True, (40, 200, 255), thick, cv2.LINE_AA)
        try:
            label = parse_card(code).code
        except ValueError:
            label = code
        x, y = int(quad[:, 0].min()), int(quad[:, 1].min())
        scale = max(0.5, w / 1600)
        (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
        cv2.rectangle(
            out, (x, max(0, y - th - 8)), (x + tw + 8, max(th + 8, y)), (40, 200, 255), -1
        )
        cv2.putText(
            out,
            label,
            (x + 4, max(th + 4, y - 4)),
            cv2.FONT_HERSHEY_SIMPLEX,
            scale,
            (20, 20, 20),
            2,
            cv2.LINE_AA,
        )
    return out


def pipeline_reader(
    rules: Any,
    source: str = "",
    current: Callable[[], Any] | None = None,
    options: Callable[[], dict[str, Any]] | None = None,
    on_zones: Callable[[dict[str, Any], tuple[int, int]], None] | None = None,
    on_road: Callable[[list[str], bool], Any] | None = None,
    current_rules: Callable[[], Any] | None = None,
    starts_at: float = 0.0,
    undos: Callable[[], int] | None = None,
    past: Callable[[int], list[tuple[Any, Any]]] | None = None,
) -> Callable[[Any], Reading] | None:
    """Return a frame → Reading function driven by the vision pipeline, or ``None``.

    ``current()`` returns the table's present referee state, so taps and corrections made on
    the page are what the pipeline compares the next frames with. For Skip-Bo, ``options()``
    holds the zones the user confirmed (``"zones"``); until then the pipeline proposes a map
    and hands it to ``on_zones(map, (width, height))`` for the page to show. A Stigespill
    table given no road (``options()["road_from_camera"]``) waits for the camera to read the
    laid-out road and hands it to ``on_road(codes, grid)`` (``grid``: straight rows read as
    a serpentine, which may run like text instead); ``current_rules()`` then gives the
    rules with that road. ``starts_at``: the frame time its first frame comes at (a recorded
    video going on from where the game followed it). ``undos()``: how many actions the page has
    undone, so a move undone is not read again from the very view it was undone on (the
    camera waits for the table to change: the card put back, or another laid; or for a redo
    back to the game it followed). Moves the pipeline reads again (a card misread until the
    true one showed) are asked about: the prompt's candidate names the game's last moves it
    replaces (``retracted``). ``past(n)``: the game's last ``n`` moves, each with the state it
    was made in, among which a move the camera could not see is looked for (a Skip-Bo wild
    laid onto a wild, then the turn ended): the candidate puts it before the moves it
    replaces, which it holds again, and names who made it (``by``).
    """
    if not available() or current is None:
        return None
    recognizer = make_recognizer(source)
    if recognizer is None:
        return None
    from vision.pipeline import RECALL, Guard, _recognize, reader_for, tracker_for
    from webui.camera import Reading, encode_jpeg

    tracker = tracker_for(rules)
    # the guard, the zones the user confirmed, the rules it follows, the camera's view the
    # page's zones were shown for
    box: dict[str, Any] = {"guard": None, "zones": None, "rules": rules, "view": (1, 0)}
    # the page's undos last seen, the camera's view a move was undone on, and the game the
    # camera followed then (a redo back to it ends the wait)
    box.update(undos=undos() if undos else 0, held=None, followed=None)
    warmup = starts_at + WARMUP

    def confirmed_zones() -> Any:
        zones = (options() if options else {}).get("zones")
        if zones is None or zones == box["zones"]:
            return None
        from vision.layouts.skipbo import SkipBoReader, ZoneMap

        box["zones"] = zones
        box["view"] = tracker.view
        # placed on the camera's picture as it showed then; the reader reads the table as
        # the tracker first saw it (a bumped camera taken out)
        shown = ZoneMap.from_json(zones)
        zoom = abs(tracker.view[0])
        return SkipBoReader(shown.moved(tracker.to_table, 1 / zoom), rules.codes())

    def show_zones(reader: Any, frame: Any) -> None:
        """Show the page the reader's zones where their piles show in the camera's picture."""
        box["view"] = tracker.view
        if on_zones is not None:
            h, w = frame.image.shape[:2]
            zones = reader.zones.moved(tracker.to_view, abs(tracker.view[0]))
            on_zones(zones.to_json(), (int(w), int(h)))

    def read(frame: Any) -> Reading:
        detections = _recognize(recognizer, frame)
        tracker.update(detections, frame.time, frame.image)
        state = current()
        reading = Reading(
            jpeg=_small_jpeg(draw_detections(frame.image, detections), encode_jpeg), status="camera"
        )
        guard = box["guard"]
        opts = options() if options else {}
        if (
            guard is not None
            and box["rules"].name == "stigespill"
            and _road_changed(opts, box, current_rules)
        ):
            guard = box["guard"] = None  # the road is read again, or typed: follow the new one
        if guard is None:
            if frame.time < warmup or not tracker.state.cards:
                return reading
            if opts.get("road_from_camera") and on_road is not None:
                problem = _read_road(tracker.state, opts.get("road_shape", "auto"), on_road)
                if problem:
                    reading.status = f"{WAITING}the road cannot be read yet: {problem}"
                return reading  # the game starts on the road read, from the next frame
            # the rules of the game the guard follows (a road read by the camera changes them)
            rules = box["rules"] = current_rules() if current_rules else box["rules"]
            reader = confirmed_zones() if rules.name == "skipbo" else None
            if reader is None:
                try:
                    reader = reader_for(rules.name, rules, state, tracker.state)
                except ValueError as e:  # e.g. not every stock card is in sight yet
                    reading.status = f"{WAITING}{e}"
                    return reading
                if rules.name == "skipbo":
                    show_zones(reader, frame)
            # the page's game: moves read again are asked about, not made
            recent = (lambda: past(RECALL)) if past else None
            guard = box["guard"] = Guard(rules, state, reader, ask_corrections=True, past=recent)
        elif box["rules"].name == "skipbo":
            reader = confirmed_zones()
            if reader is not None:
                guard.reader = reader  # the user moved the zones: read through the new map
            elif tracker.view != box["view"]:
                show_zones(guard.reader, frame)  # the camera was bumped: the piles show elsewhere
        followed = guard.state
        if guard.state is not state:
            # the guard's moves as the game took them, or a change made on the page (a tap,
            # an undo) that it follows: moves it reads again never go back past that
            guard.state = state
        undone = undos() if undos else 0
        if undone != box["undos"]:
            # undone on the page: the cards it moved still lie as the camera saw them
            if box["held"] is None:
                box["followed"] = followed
            box["undos"], box["held"] = undone, guard.reader.observe(tracker.state)
        if box["held"] is not None and state == box["followed"]:
            box["held"] = None  # redone: the game is back where the camera followed it
        if box["held"] is not None:
            seen = guard.reader.observe(tracker.state)
            shown = guard.reader.mismatch(guard.reader.expect(guard.rules, state), seen) == 0
            if guard.same_view(seen, box["held"]) and not shown:
                return reading  # until the table changes (the page says what to put back)
            box["held"] = None  # (or shows the game: the undone card entered again, say)
        owner = _phone_card(box["rules"], state)
        if owner is not None:
            # a card only a player's phone may say (a hand draw, a card dealt): the camera
            # cannot see it, and nothing on the table moves until it is entered
            reading.status = f"{WAITING}seat {owner} {ON_PHONE}"  # named on the page
            return reading
        for event in guard.update(tracker.state, frame.time):
            if event.kind == "move":
                reading.moves += [m.to_json() for m in event.moves]
            elif event.kind == "out_of_sync":
                reading.game = state
                by = event.by  # who made a move put before the game's last moves
                reading.prompt = {
                    "message": event.message or DEFAULT_OUT_OF_SYNC,
                    "candidates": [
                        {
                            "label": candidate_label(box["rules"], seq, event.retracted, by),
                            "moves": [m.to_json() for m in seq],
                        }
                        for seq in event.candidates
                    ],
                }
                if event.retracted:  # the game's last moves, replaced: one candidate
                    retracted = [m.to_json() for m in event.retracted]
                    reading.prompt["candidates"][0].update(retracted=retracted, by=by)
        if not reading.moves and reading.prompt is None:
            h, w = frame.image.shape[:2]
            unseen = len(tracker.out_of_view(w, h))
            if unseen:
                said = OUT_OF_VIEW_ONE if unseen == 1 else OUT_OF_VIEW.format(n=unseen)
                reading.status = f"{WAITING}{said}"
        return reading

    return read


def _phone_card(rules: Any, state: Any) -> int | None:
    """Return the seat whose phone enters the card the game waits for, else ``None``."""
    from webui.games import chance_owner, chance_pending

    return chance_owner(rules, state) if chance_pending(rules, state) else None


def _road_changed(opts: dict[str, Any], box: dict[str, Any], current_rules: Any) -> bool:
    """Whether a Stigespill game the guard follows waits for its road again, or has another
    road than the guard's (typed on the page before the first move)."""
    if opts.get("road_from_camera"):
        return True
    road = current_rules().config.get("road") if current_rules else None
    return road is not None and road != box["rules"].config.get("road")


def _read_road(table: Any, shape: str, on_road: Callable[[list[str], bool], Any]) -> str:
    """Read the Stigespill road from the table's stable cards and hand it to ``on_road``;
    return what keeps it from being read ("" once read)."""
    from vision.layouts.road import RoadError, RoadReader

    try:
        # Only a road read whole is used: no reading again to place a card not seen (a second
        # or more per frame).
        reading = RoadReader(shape=shape, fill_missing=False).read(table)
    except RoadError as e:
        return str(e)
    if not reading.ok:
        return "; ".join(reading.problems)
    on_road(reading.road, reading.grid)
    return ""


def candidate_label(rules: Any, seq: Any, retracted: Any = (), by: int | None = None) -> str:
    """Return an English label for a candidate sequence of moves, naming the moves it
    replaces (``retracted``) if any, or the move put before them that the camera could not
    see, made by seat ``by`` (each page says it in its own language:
    :func:`webui.games.candidate_label`)."""
    from webui.games import candidate_label as label
    from webui.i18n import english

    candidate = {"moves": [m.to_json() for m in seq], "retracted": [m.to_json() for m in retracted]}
    return label(rules, {**candidate, "by": by}, english)


def _small_jpeg(image: Any, encode) -> bytes | None:
    import cv2

    h, w = image.shape[:2]
    if w > 960:
        image = cv2.resize(image, (960, round(h * 960 / w)), interpolation=cv2.INTER_AREA)
    return encode(image)

"""Home: tables in progress, finished games and matches, and "new game"; the language choice."""

from __future__ import annotations

import json
import re
from datetime import date, datetime, timedelta
from typing import Any
from urllib.parse import urlparse

from flask import (
    Blueprint,
    Response,
    abort,
    jsonify,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response as BaseResponse  # what redirect() returns

from vision.sources import webcam_index
from webui import access, games, i18n, speech
from webui.common import json_body
from webui.tables import ROAD_AS_TEXT, ROAD_GRID, ROAD_PHOTO, hub

bp = Blueprint("home", __name__, template_folder="templates")

SOURCES = ("none", "webcam", "stream", "phone")
SAFE_NEXT = re.compile(r"/[A-Za-z0-9/_.~%?=&+-]{0,300}")


def when(ts: float, today: date | None = None) -> str:
    """Say when a table was started, as this computer's clock has it: "today 19:05",
    "yesterday 20:15", "6 Dec" (this year) or "6 Dec 2025"."""
    t = i18n.t
    started = datetime.fromtimestamp(ts)
    today = today or date.today()
    clock = started.strftime("%H:%M")
    if started.date() == today:
        return t("today {time}", time=clock)
    if started.date() == today - timedelta(days=1):
        return t("yesterday {time}", time=clock)
    month = t("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec").split()[started.month - 1]
    if started.year == today.year:
        return t("{day} {month}", day=started.day, month=month)
    return t("{day} {month} {year}", day=started.day, month=month, year=started.year)


def _named(row: dict[str, Any]) -> dict[str, Any]:
    """Give a table's row (``name``, ``game``, ``created``, ``player_names``) what names it
    in a list: ``title`` (its game), ``given_name``, ``when``, ``who_plays`` (said under a
    name given) and ``heading``: the name given, else who plays, else (to a guest, who may
    not see them) when it began. ``label`` says both (``Skip-Bo · Mor, Ida``);
    ``may_remove``: whether this request may take it off the list."""
    row["title"] = games.GAME_TITLES.get(row["game"], row["game"])
    row["given_name"] = games.given_name(row, i18n.t)
    row["when"] = when(row["created"])  # tells tonight's table from last week's
    if not access.may_list(row):  # a guest on the LAN: not who plays, nor who won
        row["player_names"] = []
    row["player_names"] = games.shown_names(row["player_names"], i18n.t)
    row["heading"] = games.heading(row, row["player_names"], i18n.t) or row["when"]
    row["who_plays"] = games.who_plays(row, row["player_names"], i18n.t)
    row["label"] = f"{row['title']} · {row['heading']}"
    row["may_remove"] = access.may_remove(row)
    return row


def _summaries(removed: bool = False) -> list[dict[str, Any]]:
    """Each table's row (``removed``: of those taken off the lists), ``finished`` and
    ``winner_names`` saying how its play ended: a Skip-Bo match's, not its last game's (a
    game of a match ends; the match goes on)."""
    out = []
    for row in hub().store.list_tables(removed):
        names = _named(row)["player_names"]  # who plays tells one family's tables apart
        row["winner_names"] = []
        winners = json.loads(row["result"]).get("winners", []) if row["result"] else []
        match = hub().match(row["id"]) if row["match_target"] and row["finished"] else None
        row["next_waits"] = match is not None and not match["over"]  # a match's game ended
        if match is not None:
            winners = match["winners"]
            if not match["over"]:
                row["finished"] = None
        if winners and row["finished"]:
            row["winner_names"] = [names[s] for s in winners if s < len(names)]
        out.append(row)
    return out


# Tables in progress listed before the fold: a family's tables pile up (abandoned ones too),
# and with 14 listed the finished ones began 1,000 px down on a laptop, 2,600 on a phone
PLAYING_SHOWN = 5


@bp.get("/")
def index() -> str:
    """List tables in progress and finished ones (and, just after one was removed from the
    list, a way to put it back), and apart, those removed that this request may put back."""
    tables = _summaries()
    return render_template(
        "home/index.html",
        playing=[r for r in tables if not r["finished"]],
        shown=PLAYING_SHOWN,
        finished=[r for r in tables if r["finished"]],
        removed=_just_removed(request.args.get("removed")),
        removed_rows=[r for r in _summaries(removed=True) if r["may_remove"]],
        lan=access.lan(),
    )


def _just_removed(table_id: str | None) -> dict[str, Any] | None:
    """Return the row of the table just taken off the list, to undo that (``None`` where
    there is none, or this request may not put it back)."""
    table = hub().store.table(table_id) if table_id else None
    if table is None or not hub().store.is_removed(table["id"]) or not access.may_remove(table):
        return None
    return _named({**table, "player_names": [p["name"] for p in table["players"]]})


def _removable(table_id: str) -> None:
    """Abort unless the table is there (404) and this request may take it off the lists or
    put it back (403)."""
    table = hub().get(table_id).table
    if not access.may_remove(table):
        abort(403, "only this computer or the table's host may remove it from the list")


@bp.get("/t/<table_id>/remove")
def remove_form(table_id: str) -> BaseResponse | str:
    """Ask before a table leaves the list, saying what it holds (a game not over, a match)."""
    _removable(table_id)
    row = next((r for r in _summaries() if r["id"] == table_id), None)
    if row is None:  # off the list already
        return redirect(url_for("home.index"))
    return render_template("home/remove.html", r=row)


@bp.post("/t/<table_id>/remove")
def remove(table_id: str) -> BaseResponse:
    """Take a table off the lists (home, matches), keeping everything of it; go home, where
    it may be put back."""
    _removable(table_id)
    hub().store.set_removed(table_id, True)
    return redirect(url_for("home.index", removed=table_id))


@bp.post("/t/<table_id>/restore")
def restore(table_id: str) -> BaseResponse:
    """Put a table taken off the lists back on them."""
    _removable(table_id)
    hub().store.set_removed(table_id, False)
    return redirect(url_for("home.index"))


@bp.get("/new")
def new_form() -> str:
    """Show the new-game form for one game; ``again``: a table's id, the form filled in as
    that table was set up (a match again with the same players)."""
    again = _set_up_like(request.args.get("again"))
    return _form_page(again.pop("game", None) or request.args.get("game", "skipbo"), again)


def _set_up_like(table_id: str | None) -> dict[str, Any]:
    """Return the form's fields (``game`` among them) as table ``table_id`` was set up, its
    camera too; nothing where there is no such table, or this request may not see who plays
    at it."""
    table = hub().store.table(table_id) if table_id else None
    if table is None or not access.may_list(table):
        return {}
    form = {"game": table["game"], **games.form_of(table, i18n.t)}
    source = table["source"]
    if source.startswith("webcam:"):
        form |= {"source": "webcam", "webcam_index": source.removeprefix("webcam:")}
    elif re.match(r"(rtsp|https?)://", source):
        form |= {"source": "stream", "stream_url": source}
    elif source in SOURCES:
        form["source"] = source
    return form


# The form field a set-up problem is about, by its words (first match wins: "3 names for 2
# players" is about the names)
_PROBLEM_FIELDS = [
    (r"^road photo", "road_photo"),
    (r"^(bad )?road\b", "road"),
    (r"\bnames?\b|every player needs", "names"),
    (r"colour", "colours"),
    (r"^tokens\b|solo player", "tokens"),
    (r"stock", "stock"),
    (r"^match_target", "match_target"),
    (r"^dealer", "dealer"),
    (r"^webcam index", "webcam_index"),
    (r"^a network stream", "stream_url"),
    (r"camera source", "source"),
    (r"players|^sten is played|strategy variant", "players"),
]


def _field_of(problem: str) -> str | None:
    """Return the form field a set-up problem is about, if any (marked invalid on the form)."""
    for pattern, name in _PROBLEM_FIELDS:
        if re.search(pattern, problem.lower()):
            return name
    return None


def _form_page(
    game: Any,
    typed: dict[str, Any] | None = None,
    error: str | None = None,
    field=None,
    doubled: list[tuple[str, str]] | None = None,
    gaps: list[tuple[str, str, int]] | None = None,
) -> str:
    """Render the new-game form, filled in with what was ``typed`` and saying ``error``
    (``field``: the input it is about, marked invalid; ``doubled``: a road photo's cards
    read twice and their places; ``gaps``: the cards, and the place of the first, that a
    card missing from it likely lies between)."""
    if game not in games.GAME_TITLES:
        game = "skipbo"
    return render_template(
        "home/new.html",
        game=game,
        titles=games.GAME_TITLES,
        stocks=games.SKIPBO_STOCKS,
        seats=games.PLAYERS[game],
        name_separators=games.NAME_SEPARATORS,
        sources=SOURCES,
        typed=typed or {},
        error=error,
        invalid=field,
        doubled=doubled or [],
        gaps=gaps or [],
    )


def _source(form: dict[str, Any]) -> str:
    """Return the camera a new table asked for; raise :class:`games.SetupError` (the form
    comes back filled in, saying why)."""
    kind = form.get("source") or "none"
    if kind not in SOURCES:
        shown = games.said_back(kind, 40)
        raise games.SetupError(
            f"unknown camera source {shown}; expected one of {', '.join(SOURCES)}"
        )
    if kind in ("webcam", "stream") and not access.may_choose_camera():
        raise games.SetupError(
            "a webcam or network stream is chosen on the computer Kortbord runs on; "
            "from a phone, choose this phone's camera"
        )
    if kind == "webcam":
        return webcam_source(str(form.get("webcam_index") or "0"))
    if kind == "stream":
        return stream_url(str(form.get("stream_url") or ""))
    return kind


def webcam_source(index: str) -> str:
    """Return webcam ``index``'s source (``webcam:0``); raise :class:`games.SetupError`
    unless it is 0–16, written in ASCII digits."""
    n = webcam_index(index)
    if n is None or n > 16:
        raise games.SetupError(f"webcam index must be 0–16, not {index[:20]!r}")
    return f"webcam:{index}"


def stream_url(url: str) -> str:
    """Return a network stream's address; raise :class:`games.SetupError` unless it is an
    rtsp:// or http(s):// address with a host (and a port that is one)."""
    try:
        parsed = urlparse(url)
        parsed.port  # noqa: B018 (reading it checks it: "http://[::1" or a port of 99999)
    except ValueError:
        parsed = urlparse("")
    if parsed.scheme not in ("rtsp", "http", "https") or not parsed.netloc:
        raise games.SetupError(
            f"a network stream needs an rtsp:// or http(s):// address, not {url[:200]!r}"
        )
    return url


def _create(
    form: dict[str, Any], road_photo: bool = False, as_text: list[str] | None = None
) -> dict[str, Any]:
    """Create a table from a new game's form; ``road_photo``: its road read from a photo,
    ``as_text``: that photo's straight rows read like text (read as a snake)."""
    if not isinstance(form.get("name") or "", str):
        abort(400, "the table name must be text")
    setup = games.parse_setup(form.get("game"), form, i18n.current_translator())
    if road_photo:  # a road laid out on a real table: put right on its page before play
        setup.options[ROAD_PHOTO] = True
    if as_text and as_text != setup.config.get("road"):  # its page asks which way they run
        setup.options |= {ROAD_GRID: True, ROAD_AS_TEXT: as_text}
    source = _source(form)
    access.count_new_table()
    table = hub().create(setup, source=source, name=form.get("name"))
    return table


@bp.post("/new")
def new_submit() -> Response | tuple[str, int]:
    """Create a table from the form and open its page."""
    form = request.form.to_dict()
    photo = request.files.get("road_photo")
    checks: list[str] = []
    doubled: list[tuple[str, str]] = []
    gaps: list[tuple[str, str, int]] = []
    # the road read from the photo, or read and put right in the form it came back in
    read = bool(form.get("road_read") and (form.get("road") or "").strip())
    as_text: list[str] | None = None
    try:
        if form.get("game") == "stigespill" and photo and photo.filename:
            if not (form.get("road") or "").strip():
                shape = form.get("road_shape") or "auto"
                road, checks, as_text = _road_from_photo(photo.read(), shape)
                form["road"], read = " ".join(road), True
        table = _create(form, road_photo=read, as_text=as_text)
    except games.SetupError as e:  # the form again, as typed, saying what is wrong
        said = speech.say_setup(str(e), i18n.current_translator())
        typed, field = request.form.to_dict(), _field_of(str(e))
        if isinstance(e, RoadPhotoError) and e.road:  # put right in the box, not typed anew
            typed |= {"road": " ".join(e.road), "road_read": "1"}
            field = "road"
            doubled = _doubled_places(e.road)
            gaps = [(speech.pretty(e.road[i]), speech.pretty(e.road[i + 1]), i + 1) for i in e.gaps]
        return _form_page(form.get("game"), typed, said, field, doubled, gaps), 400
    if checks:  # cards the photo's reader inferred: shown on the table until the first move
        hub().notify(table["id"], "; ".join(checks))
    resp = make_response(redirect(url_for("table.page", table_id=table["id"])))
    _set_owner(resp, table)
    return resp


# A road photo read with this many of its 28 cards or more is given back in the road's box to
# put right (a card or two unread or misread); with fewer, it is not a photo of the whole road.
ROAD_KEPT = 24
# said after "no road found": a blurred photo, or one of a few cards, said only how many it saw
PHOTO_AGAIN = (
    "take the photo again from straight above, closer and in focus, with the whole road in "
    "the picture"
)


class RoadPhotoError(games.SetupError):
    """A road photo that cannot start a game; ``road``: the cards read, in road order, for
    the user to put right (empty when too few were read to be worth it)."""

    def __init__(self, message: str, road: list[str] | None = None, gaps: list[int] | None = None):
        super().__init__(message)
        self.road = road or []
        self.gaps = gaps or []  # where missing cards likely lie: the index of the card before


def _road_from_photo(
    data: bytes, shape: str = "auto"
) -> tuple[list[str], list[str], list[str] | None]:
    """Return the road read from a photo of it, the cards read by elimination and, for
    straight rows read as a snake, the rows read like text (else ``None``); a photo
    that cannot be read is a :class:`RoadPhotoError` naming why (cards missing, doubled,
    the order unclear), with the cards read when most of the road was. ``shape``: one of
    ``ROAD_SHAPES``: a grid of straight rows reads as a snake or as text alike, and only
    the user knows which."""
    from webui.camera import read_road_photo

    if shape not in games.ROAD_SHAPES:
        raise games.SetupError(f"road photo: unknown road shape {shape!r}")
    read = read_road_photo(data, shape)
    road, problem = read.road, read.problem
    if problem and len(road) >= ROAD_KEPT:
        raise RoadPhotoError(f"road photo: {problem}", road, read.gaps)
    missing = re.match(r"missing: ([^;]*)", problem or "")
    if missing and len(missing[1].split()) > 28 - ROAD_KEPT:  # a list of 20 cards says less
        problem = f"no road found: {len(road)} of the 28 road cards (7–K) seen"
    if problem and problem.startswith("no road found"):  # blurred, too far, cut off: what to do
        problem = f"{problem}; {PHOTO_AGAIN}"
    if problem:
        raise RoadPhotoError(f"road photo: {problem}")
    return road, read.checks, read.as_text


def _doubled_places(road: list[str]) -> list[tuple[str, str]]:
    """Return each card read more than once in ``road`` as players write it (``Q♣``) and
    its places, counted from 1 (``"17, 25"``): the family looks there for the card misread."""
    places: dict[str, list[int]] = {}
    for i, code in enumerate(road, 1):
        places.setdefault(code, []).append(i)
    return [
        (speech.pretty(code), ", ".join(map(str, at))) for code, at in places.items() if len(at) > 1
    ]


def _set_owner(resp, table: dict[str, Any]) -> None:
    resp.set_cookie(
        access.owner_cookie(table["id"]),
        table["owner_token"],
        max_age=60 * 60 * 24 * 365,
        httponly=True,
        samesite="Lax",
    )


@bp.get("/api/tables")
def api_list() -> Response:
    """List tables as JSON (ids, games, whether finished)."""
    rows = _summaries()
    keep = ("id", "name", "game", "number", "moves", "finished", "match_target", "winner_names")
    return jsonify({"tables": [{k: r[k] for k in keep} for r in rows]})


@bp.post("/api/tables")
def api_create() -> Response:
    """Create a table from JSON ``{"game", "players", "names", ...}``; return its links."""
    body = json_body()
    unknown = sorted(set(body) - set(games.SETUP_FIELDS))
    if unknown:  # a misspelt field would otherwise be a default taken in silence
        fields = ", ".join(games.SETUP_FIELDS)
        abort(
            400,
            i18n.t(
                "unknown field {field}; the fields: {fields}",
                field=_quoted(unknown[0], 40),
                fields=fields,
            ),
        )
    table = _create(body)
    body = {
        "id": table["id"],
        "url": url_for("table.page", table_id=table["id"]),
        "join_code": table["join_code"],
        "players": [
            {"seat": p["seat"], "name": p["name"], "url": url_for("player.page", token=p["token"])}
            for p in table["players"]
        ],
    }
    resp = make_response(jsonify(body), 201)
    _set_owner(resp, table)
    return resp


def _quoted(text: str, most: int = 20) -> i18n.Quoted:
    """Return ``text`` quoted as an error names it (in the page language's quotation marks),
    cut to ``most`` characters and "…" (a path of thousands of characters is not said back
    whole)."""
    return i18n.Quoted(text if len(text) <= most else text[:most] + "…")


@bp.get("/lang/<code>")
def set_language(code: str) -> Response:
    """Remember the chosen language and go back."""
    if code not in i18n.LANGUAGES:
        expected = ", ".join(i18n.LANGUAGES)
        said = i18n.t(
            "unknown language {code}; expected one of {expected}",
            code=_quoted(code),
            expected=expected,
        )
        abort(404, said)
    return _remembered("lang", code)


@bp.get("/letters/<code>")
def set_letters(code: str) -> Response:
    """Remember the letters the family's deck shows (J Q K A, Kn D K E, B D K E), go back."""
    if code not in i18n.LETTERS:
        expected = ", ".join(i18n.LETTERS)
        said = i18n.t(
            "unknown card letters {code}; expected one of {expected}",
            code=_quoted(code),
            expected=expected,
        )
        abort(404, said)
    return _remembered("letters", code)


def _remembered(cookie: str, value: str) -> Response:
    """Return a redirect back to the page the choice was made on, keeping the choice."""
    back = request.args.get("next") or "/"
    if not SAFE_NEXT.fullmatch(back) or back.startswith("//"):
        back = "/"  # only plain local paths: never an open redirect or a header injection
    resp = make_response(redirect(back))
    resp.set_cookie(cookie, value, max_age=60 * 60 * 24 * 365, samesite="Lax")
    return resp

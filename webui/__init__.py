"""Kortbord's web app: the live table, the players' own pages, match scores.

``create_app(test_config=None)`` builds the app (the flaskr pattern): SQLite through
:mod:`webui.db`, tables through :mod:`webui.tables`, the camera through :mod:`webui.camera`,
one blueprint per feature with its templates beside it.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

from flask import Flask, Response, jsonify, redirect, render_template, request, url_for
from markupsafe import Markup, escape
from werkzeug.exceptions import BadHost, HTTPException, NotFound
from werkzeug.wrappers import Response as BaseResponse  # what redirect() returns

from referee import IllegalMove, RulesError

log = logging.getLogger("kortbord.web")

# an error as JSON (the API) or as a page, with its status
ErrorReply = tuple[Response | str, int]
# what a database damaged while the server runs is answered with (said in the page's language)
DATABASE_DAMAGED = (
    "the database is damaged ({problem}); nothing was changed: put back a copy of it on the"
    " computer Kortbord runs on"
)

# a word with a hyphen inside it ("Åse-Marie,"): a name, mostly; or a command's option
# ("ARGS=--lan,", "--lan)")
HYPHENATED = re.compile(r"\S*(?:\w-\w|--\w)\S*")


def hyphens_whole(text: Any) -> Markup:
    """Return ``text`` escaped, each hyphenated word in it ("Åse-Marie") in a span that keeps
    it on one line (app.css: .one-line): a narrow phone broke "Åse-" / "Marie", a laptop
    "make run ARGS=--" / "lan"."""
    kept = r'<span class="one-line">\g<0></span>'
    return Markup(HYPHENATED.sub(kept, str(escape(text))))


def default_data_dir() -> Path:
    """Return where the app keeps its database: ``$KORTBORD_DATA`` or ``./data``."""
    return Path(os.environ.get("KORTBORD_DATA", "data"))


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Create and configure the app."""
    from webui.common import FiniteJSON

    app = Flask(__name__)
    app.json = FiniteJSON(app)
    data_dir = Path((test_config or {}).get("DATA_DIR", default_data_dir()))
    app.config.from_mapping(
        SECRET_KEY=os.environ.get("KORTBORD_SECRET", os.urandom(16).hex()),
        DATA_DIR=str(data_dir),
        DATABASE=str(data_dir / "kortbord.sqlite3"),
        LAN=False,
        MAX_CONTENT_LENGTH=8 * 1024 * 1024,  # a phone photo; nothing larger is accepted
        SSE_HEARTBEAT_S=10.0,  # a page that hears nothing for 2.5 of these reconnects
        CAMERA=True,
        # further names this computer is reached by (a reverse proxy's), besides its addresses
        HOSTS={
            n.strip().lower() for n in os.environ.get("KORTBORD_HOSTS", "").split(",") if n.strip()
        },
    )
    if test_config:
        app.config.update(test_config)
    app.add_template_filter(hyphens_whole, "whole")
    Path(app.config["DATA_DIR"]).mkdir(parents=True, exist_ok=True)

    from webui import access, camera, db, i18n, tables

    access.init_app(app)
    db.init_app(app)
    tables.init_app(app)
    i18n.init_app(app)
    camera.init_app(app)

    from webui.camera_bp import bp as camera_bp
    from webui.home import bp as home_bp
    from webui.matches import bp as matches_bp
    from webui.player import bp as player_bp
    from webui.table import bp as table_bp

    for bp in (home_bp, table_bp, player_bp, matches_bp, camera_bp):
        app.register_blueprint(bp)

    @app.get("/favicon.ico")
    def favicon() -> BaseResponse:
        # browsers ask for it wherever no page names an icon: the JSON API, a picture
        return redirect(url_for("static", filename="icon.svg"))

    _register_errors(app)
    return app


def wants_json() -> bool:
    """Return whether this request should get a JSON error (the API, or asked for)."""
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


def error(status: int, message: str, **more: Any) -> ErrorReply:
    """Return a JSON or HTML error response naming what was wrong, in the page's language
    where the sentence has a translation (``more``: further fields of the JSON)."""
    from webui.i18n import t

    # a Host no address is made for (a name of 64 letters) has no page: its links cannot be
    if wants_json() or isinstance(request.routing_exception, BadHost):
        return jsonify({"error": t(message), "status": status, **more}), status
    return render_template("error.html", status=status, message=t(message)), status


def _register_errors(app: Flask) -> None:
    from webui import i18n, speech
    from webui.games import SetupError
    from webui.tables import MalformedMove, Moved, Refusal, TableNotFound

    @app.errorhandler(HTTPException)
    def http_error(e: HTTPException) -> ErrorReply:
        """Answer an HTTP error (404, 405, 413…) as JSON or a page."""
        if isinstance(e, NotFound) and e.description == NotFound.description:
            return error(404, "There is no such page here.")  # Werkzeug's words are for admins
        return error(e.code or 500, e.description or e.name)

    @app.errorhandler(IllegalMove)
    def illegal(e: IllegalMove) -> ErrorReply:
        """Answer a move the referee refused with 409 and its reason, in the page's language."""
        if isinstance(e, Refusal):
            return error(409, e.say(i18n.current_translator()))
        return error(409, str(e))

    @app.errorhandler(Moved)
    def moved(e: Moved) -> ErrorReply:
        """Answer a change made on a position the table has left with 409 and
        ``"moved": true``: not judged, so a page may send it again on the table as it is."""
        return error(409, str(e), moved=True)

    @app.errorhandler(MalformedMove)
    def malformed(e: MalformedMove) -> ErrorReply:
        """Answer a move the referee cannot read with 400 (no page sends one: what is wrong
        with it in the referee's English)."""
        return error(400, i18n.t("malformed move: {problem}", problem=e))

    @app.errorhandler(RulesError)
    @app.errorhandler(SetupError)
    def bad_setup(e: ValueError) -> ErrorReply:
        """Answer a bad game set-up with 400 and what is wrong, in the page's language."""
        return error(400, speech.say_setup(str(e), i18n.current_translator()))

    @app.errorhandler(TableNotFound)
    def no_table(e: TableNotFound) -> ErrorReply:
        """Answer an unknown table with 404."""
        return error(404, "no such table")

    @app.errorhandler(sqlite3.OperationalError)
    def cannot_store(e: sqlite3.OperationalError) -> ErrorReply:
        """Answer 503 when the data folder cannot be written (read-only, disk full): the
        store is written before memory, so nothing was changed."""
        log.warning("cannot use the database on %s %s: %s", request.method, request.path, e)
        return error(
            503, i18n.t("cannot save the table's data ({problem}); nothing was changed", problem=e)
        )

    @app.errorhandler(sqlite3.DatabaseError)
    def damaged(e: sqlite3.DatabaseError) -> ErrorReply:
        """Answer 503 when the database file was damaged while the server ran (start-up
        checks it): say so, as ``serve`` would (the file's place only in the log). A broken
        constraint (``IntegrityError``) is a bug, not a damaged file."""
        if type(e) is not sqlite3.DatabaseError:
            return unexpected(e)
        log.error("the database %s is damaged (%s): put back a copy", app.config["DATABASE"], e)
        return error(503, i18n.t(DATABASE_DAMAGED, problem=e))

    @app.errorhandler(Exception)
    def unexpected(e: Exception) -> ErrorReply:
        """Log a bug and answer 500 without a traceback; nothing was written."""
        log.exception("unexpected error on %s %s", request.method, request.path)
        kind = type(e).__name__
        return error(500, i18n.t("internal error ({kind}); the game was not changed", kind=kind))

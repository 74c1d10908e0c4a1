"""``kortbord serve`` and ``kortbord run`` (what ``make run`` calls): start the web app."""

from __future__ import annotations

import argparse
import errno
import io
import os
import socket
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from kortbord.cli import Number
from referee.cli import PLAYERS

if TYPE_CHECKING:
    from werkzeug.serving import WSGIRequestHandler

DEFAULT_PORT = 5000


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``serve`` and ``run`` to the ``kortbord`` command."""
    p = sub.add_parser("serve", help="start the web app (live tables, players' pages, scores)")
    _common(p)
    p.add_argument("--demo", action="store_true", help="also open the demo table")
    p.set_defaults(func=_serve)
    r = sub.add_parser("run", help="start the web app with the demo table (what `make run` does)")
    _common(r)
    r.set_defaults(func=_run)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--host",
        default=None,
        help="address to listen on (default 127.0.0.1, this computer only; with --lan 0.0.0.0)",
    )
    p.add_argument(
        "--port",
        type=Number(int, 1, 65535),
        default=DEFAULT_PORT,
        help=f"port to listen on (default {DEFAULT_PORT})",
    )
    p.add_argument(
        "--source",
        default=None,
        help="a camera's table: webcam index, stream URL, video file or image folder (the "
        "game in progress on it goes on; a new table when there is none)",
    )
    p.add_argument(
        "--new-table",
        action="store_true",
        help="with --source: a new table even when a game on that camera is in progress",
    )
    p.add_argument(
        "--game",
        choices=("stigespill", "sten", "skipbo"),
        default=None,
        help="game of the --source table (default stigespill; a generated video's own)",
    )
    p.add_argument(
        "--players",
        type=PLAYERS,
        default=None,
        help="players of the --source table (default 2; a generated video's own)",
    )
    p.add_argument(
        "--data",
        metavar="DIR",
        default=None,
        help="data folder, one SQLite database (default $KORTBORD_DATA, else ./data)",
    )
    p.add_argument(
        "--lan",
        action="store_true",
        help="listen on the local network; tables need join codes, players their own links",
    )


def _run(args: argparse.Namespace) -> int:
    args.demo = True
    return _serve(args)


def lan_address() -> str:
    """Return this machine's address on the local network (no packet is sent)."""
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("10.255.255.255", 1))
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


PER_DEVICE = 48  # connections one other device may hold open (a browser keeps at most six)


def request_handler(
    per_device: int = PER_DEVICE, trust_this_computer: bool = True
) -> type[WSGIRequestHandler]:
    """Return the server's request handler class: a connection silent for 30 s is closed,
    a request is logged only when a server error answered it, and one device (an address
    other than this computer's) holds at most ``per_device`` connections; more are closed
    unanswered. A guest's half-sent requests otherwise held a thread and a file each until
    the server could open no more and answered nobody."""
    from werkzeug.serving import WSGIRequestHandler

    from webui.access import is_loopback

    held: dict[str, int] = {}
    lock = threading.Lock()

    class Handler(WSGIRequestHandler):
        timeout = 30
        connections = held  # open connections by device (the tests wait on it)

        def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
            # A line per request scrolled the address to open, and the phones' QR code, out
            # of the terminal within a few taps: only a server error is said.
            if str(code).startswith("5"):
                super().log_request(code, size)

        def handle(self) -> None:
            device = self.client_address[0]
            with lock:
                held[device] = n = held.get(device, 0) + 1
            try:
                if n <= per_device or (trust_this_computer and is_loopback(device)):
                    super().handle()
            finally:
                with lock:
                    held[device] -= 1
                    if not held[device]:
                        del held[device]

    return Handler


def _serve(args: argparse.Namespace) -> int:
    from werkzeug.serving import make_server

    from kortbord.cli import CommandError, folder_option
    from vision.images import os_reason
    from webui import create_app, default_data_dir
    from webui.db import StoreError

    host = args.host or ("0.0.0.0" if args.lan else "127.0.0.1")
    data = default_data_dir() if args.data is None else folder_option("--data", args.data)
    if data.exists() and not data.is_dir():
        raise CommandError(f"--data {str(data)!r} is a file, not a folder")
    try:
        data.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise CommandError(f"cannot use data folder {str(data)!r}: {os_reason(e)}") from None
    try:
        app = create_app({"DATA_DIR": str(data), "LAN": bool(args.lan)})
    except StoreError as e:
        raise CommandError(str(e)) from None
    # Everything given is checked before the server may listen, and it may listen before a
    # table is made: a port in use had the demo rendered and stored, and a --source table
    # too (one more at each try), before it was refused.
    planned = None if args.source is None else _source_plan(app, args)
    try:  # werkzeug would print the resolver's words alone and exit
        socket.getaddrinfo(host, args.port)
    except OSError as e:
        raise CommandError(f"--host {host!r}: {os_reason(e)}") from None
    problem = _listen_problem(host, args.port)
    if problem:  # werkzeug would print its own words alone and exit 1
        raise CommandError(f"cannot listen on --host {host} --port {args.port}: {problem}")
    path = "/"
    if planned is not None:
        path = _make_source_table(app, args, planned)
    if getattr(args, "demo", False):
        from webui.demo import demo_video_ready, ensure_demo

        if not demo_video_ready(data):  # said at each start, it promised a wait that never came
            _say("Preparing the demo table (the first start renders a short game video)…")
        demo_id = ensure_demo(app)
        if args.source is None:
            path = f"/t/{demo_id}"
    try:
        server = make_server(host, args.port, app, threaded=True, request_handler=request_handler())
    except OSError as e:  # a port in use, a --host that is no address here
        raise CommandError(
            f"cannot listen on --host {host} --port {args.port}: {os_reason(e)}"
        ) from None
    shown = lan_address() if host in ("0.0.0.0", "::") else host
    url = f"http://{shown}:{server.server_port}{_opened(app, path)}"
    _say(f"Kortbord is running: open {url}")
    _say(f"  data: {data.resolve()}")
    if args.lan:
        import segno

        qr = io.StringIO()
        segno.make(url).terminal(out=qr, compact=True)
        _say("  LAN mode: scan this code with a phone on the same network:\n" + qr.getvalue())
    else:
        # two lines within 80 columns: a terminal broke the one line inside "(m|ake run"
        _say("  only this computer can open it; for the players' phones start it with --lan")
        _say("  (make run ARGS=--lan, or kortbord run --lan)")
    _say("  Ctrl+C stops it")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        app.extensions["kortbord.cameras"].stop_all()
        server.server_close()
    return 0


def _say(text: str) -> None:
    """Print ``text`` and its newline in one write: ``print`` writes them apart, and a
    camera's warning on stderr (the same terminal or log) landed between them, running the
    address to open into its words ("…/t/geuKXxRrcamera 7: cannot open camera 7")."""
    sys.stdout.write(text if text.endswith("\n") else text + "\n")
    sys.stdout.flush()


def _listen_problem(host: str, port: int) -> str | None:
    """Return why the server could not listen on ``host``'s ``port`` (another program
    listens there; an address that is not this computer's, "cannot assign requested
    address"), or None."""
    from vision.images import os_reason

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
        try:
            s.bind((host, port))
        except OSError as e:
            if e.errno == errno.EADDRINUSE:
                return "the port is in use (is Kortbord running already? --port picks another)"
            return os_reason(e)
    return None


def _in_progress(app, source: str, game: str, setup: Any) -> dict | None:
    """Return the newest table watching ``source`` whose game of ``game`` is not over, with
    as many players as ``setup`` (a summary: ``id``, ``name``, ``moves``), or ``None``."""
    for row in app.extensions["kortbord.hub"].store.list_tables():  # newest first
        if (
            row["source"] == source
            and row["game"] == game
            and not row["finished"]
            and len(row["player_names"]) == len(setup.names)
        ):
            return row
    return None


def _recorded_game(path: Path) -> dict | None:
    """Return the ``events.json`` of a generator video (a folder, or a file in one), if any;
    raise :class:`CommandError` naming one that is no recording's (beside a video file it
    was passed over, or ended the command in a traceback)."""
    from kortbord.cli import CommandError
    from vision.images import os_reason
    from vision.pipeline import read_json, recorded_game

    folder = path if path.is_dir() else path.parent
    events = folder / "events.json"
    if not events.is_file():
        return None
    try:
        data = read_json(events)
        recorded_game(data)
    except (OSError, ValueError) as e:
        why = os_reason(e) if isinstance(e, OSError) else e
        raise CommandError(
            f"--source {str(path)!r}: {events} is no recording's events: {why}"
        ) from None
    return data


def _first_picture(spec: str) -> None:
    """Refuse a video file or folder the camera could not play (a text file, a folder without
    pictures) before a table is made for it, as the camera would open it."""
    from kortbord.cli import CommandError

    try:
        from vision.sources import SourceError
        from webui.camera import open_video
    except ImportError:  # no vision layer: the table runs without its camera, and says so
        return
    try:
        frames = open_video(spec).frames()
        try:
            next(frames)
        finally:
            frames.close()
    except StopIteration:
        raise CommandError(f"--source {spec!r}: no picture in it") from None
    except (SourceError, OSError, ValueError) as e:
        raise CommandError(f"--source {spec!r}: {e}") from None


def _opened(app, path: str) -> str:
    """Return the path to print (and put in the QR code): in LAN mode a table made here (the
    demo, a camera's) carries its join code, as its host page's QR codes do — no browser is
    its host, and without the code this computer and the phones would meet the join page."""
    if not app.config.get("LAN") or not path.startswith("/t/"):
        return path
    table = app.extensions["kortbord.hub"].get(path.removeprefix("/t/")).table
    return f"{path}?code={table['join_code']}"


class _SourcePlan(NamedTuple):
    """What ``--source`` asks for, checked: the camera's source, the game's setup, a
    recording's first position, and the table in progress on it (None: a new one)."""

    source: str
    setup: Any
    initial: Any
    going: dict | None


def _source_table(app, args: argparse.Namespace) -> str:
    """Return the path of the table ``--source`` names, made or gone on with, its camera on."""
    return _make_source_table(app, args, _source_plan(app, args))


def _source_plan(app, args: argparse.Namespace) -> _SourcePlan:
    """Check what ``--source`` (with ``--game``, ``--players``) asks for; make nothing."""
    from kortbord.cli import CommandError
    from vision.sources import webcam_index
    from webui import games
    from webui.home import stream_url, webcam_source

    spec = args.source
    initial = None
    form = {"players": 2 if args.players is None else args.players, "deal": "table"}
    game = args.game or "stigespill"
    if webcam_index(spec) is not None or "://" in spec:
        try:
            source = stream_url(spec) if "://" in spec else webcam_source(spec)
        except games.SetupError as e:
            raise CommandError(f"--source: {e}") from None
    elif os.path.exists(spec):
        source = f"video:{os.path.abspath(spec)}"
        _first_picture(spec)
        events = _recorded_game(Path(spec))
        if events is not None:
            # a video rendered by the generator: play the game it shows, from its first picture
            game, initial = events["game"], events["initial"]
            players = events["config"].get("players")
            asked = players if args.players is None else args.players
            if args.game not in (None, game) or asked != players:
                raise CommandError(
                    f"--source {spec!r} shows a {game} game of {players} players, not "
                    f"{args.game or game} of {asked}: leave --game and --players out"
                )
            # Sten and Skip-Bo videos start from a dealt simulation (hands known, nothing to
            # draw); a Stigespill video's draws are seen by the camera, never made up.
            deal = "table" if game == "stigespill" else "app"
            form = {**{k: v for k, v in events["config"].items() if k != "names"}, "deal": deal}
    else:
        raise CommandError(f"--source {spec!r}: not a webcam index, stream URL, file or folder")
    try:
        setup = games.parse_setup(game, form)
    except games.SetupError as e:
        raise CommandError(str(e)) from None
    going = None if args.new_table else _in_progress(app, source, game, setup)
    return _SourcePlan(source, setup, initial, going)


def _make_source_table(app, args: argparse.Namespace, plan: _SourcePlan) -> str:
    """Make the table ``plan`` asks for, or go on with the one in progress; start its camera
    and return its path."""
    from webui import games

    going, spec = plan.going, args.source
    if going is not None:  # the family's game, after a crash or an evening's pause
        print(
            f"Going on with {going['name']!r} ({going['moves']} "
            f"{'move' if going['moves'] == 1 else 'moves'} made); "
            "--new-table starts another",
            flush=True,
        )
        app.extensions["kortbord.cameras"].ensure(going["id"])
        return f"/t/{going['id']}"
    table = app.extensions["kortbord.hub"].create(
        plan.setup,
        source=plan.source,
        name=games.CAMERA_TABLE.format(source=Path(spec).name or spec),
        initial=plan.initial,
    )
    app.extensions["kortbord.cameras"].ensure(table["id"])
    return f"/t/{table['id']}"

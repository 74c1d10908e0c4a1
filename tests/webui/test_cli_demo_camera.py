"""The commands (serve, run), the demo table without a video, and a camera fed by a phone."""

from __future__ import annotations

import argparse
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
from contextlib import contextmanager

import pytest

from kortbord.cli import main
from tests.webui.conftest import zone_map
from tests.webui.server import ROOT, WAIT_S, free_port
from webui import create_app
from webui.demo import AutoPlayer, VideoLoop, ensure_demo


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["serve", "--source", "/no/such/video.mp4", "--port", "1"], "--source"),
        (["serve", "--source", "0", "--game", "sten", "--players", "1", "--port", "1"], "Sten"),
        (["serve", "--host", "999.1.1.1", "--port", "5099"], "--host '999.1.1.1': "),
        # an address that is not this computer's: werkzeug's bare words, exit 1
        (
            ["serve", "--host", "192.0.2.1", "--port", "5099"],
            "kortbord serve: cannot listen on --host 192.0.2.1 --port 5099: cannot assign "
            "requested address\n",
        ),
    ],
)
def test_serve_refuses_bad_options_with_a_message(argv, words, tmp_path, capsys):
    assert main([*argv, "--data", str(tmp_path)]) == 2
    assert words in capsys.readouterr().err


def test_serve_on_a_port_in_use_says_so(tmp_path, capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--data", str(tmp_path), "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert f"cannot listen on --host 127.0.0.1 --port {port}: the port is in use" in err


def test_run_on_a_port_in_use_makes_no_table_first(tmp_path, capsys):
    """The port was checked last: the demo was rendered and stored, and a --source table
    too (one more at each try), before the port was said to be in use."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = str(taken.getsockname()[1])
        argv = ["run", "--data", str(tmp_path), "--port", port, "--source", "7", "--new-table"]
        assert main(argv) == 2
    assert "the port is in use" in capsys.readouterr().err
    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    assert app.extensions["kortbord.hub"].store.list_tables() == []


def test_serve_with_a_camera_goes_on_with_the_game_in_progress_on_it(tmp_path, capsys):
    """The family starts the server again on the same camera (after a crash, the next
    evening): the game in progress on it goes on; a new table only when none is, or asked."""
    from webui.cli import _common, _source_table

    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    parser = argparse.ArgumentParser()
    _common(parser)

    def serve(*argv: str) -> str:
        return _source_table(app, parser.parse_args(["--source", "7", "--game", "sten", *argv]))

    first = serve("--players", "3")
    assert serve("--players", "3") == first
    assert "Going on with 'Camera 7' (0 moves made)" in capsys.readouterr().out
    assert serve("--players", "4") != first  # another game: another table
    assert serve("--players", "3", "--new-table") not in (first, serve("--players", "4"))
    assert len(app.extensions["kortbord.hub"].store.list_tables()) == 3


def test_serve_says_one_move_made_in_the_singular(tmp_path, capsys):
    """Going on with a camera's game after its first move said "(1 moves made)"."""
    from webui.cli import _common, _source_table

    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    parser = argparse.ArgumentParser()
    _common(parser)
    argv = ["--source", "7", "--game", "sten", "--players", "3"]
    table_id = _source_table(app, parser.parse_args(argv)).rsplit("/", 1)[1]
    client = app.test_client()
    move = client.get(f"/api/tables/{table_id}").get_json()["moves"][0]["move"]
    assert client.post(f"/api/tables/{table_id}/moves", json={"move": move}).status_code == 200
    capsys.readouterr()
    _source_table(app, parser.parse_args(argv))
    assert "Going on with 'Camera 7' (1 move made)" in capsys.readouterr().out


def test_players_a_command_line_left_unnamed_are_named_in_the_pages_language(tmp_path):
    """A table started with ``--source`` (no page, so no language) kept its players as
    "Player 1", "Player 2": a Norwegian page said "Player 1 sin tur". They are named in the
    page's language when shown ("Spiller 1"); names a family typed stay as they are."""
    from webui.cli import _common, _source_table

    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    parser = argparse.ArgumentParser()
    _common(parser)
    url = _source_table(app, parser.parse_args(["--source", "7", "--game", "stigespill"]))
    solo = _source_table(app, parser.parse_args(["--source", "8", "--players", "1"]))
    client = app.test_client()
    named = client.post("/api/tables", json={"game": "stigespill", "names": "Player 2, Bo"})
    norwegian = {"Accept-Language": "nb"}
    snap = client.get(f"/api/tables/{url.removeprefix('/t/')}", headers=norwegian).get_json()
    assert snap["to_move_name"] == "Spiller 1"
    assert [p["name"] for p in snap["table"]["players"]] == ["Spiller 1", "Spiller 2"]
    page = client.get(url, headers=norwegian).get_data(as_text=True)
    assert re.findall(r"</i><span>(.+?)</span>", page) == ["Spiller 1", "Spiller 2"]  # own pages
    seats = app.extensions["kortbord.hub"].get(url.removeprefix("/t/")).table["players"]
    own = client.get(f"/p/{seats[1]['token']}", headers=norwegian).get_data(as_text=True)
    assert "<title>Spiller 2 · Kortbord</title>" in own, own[:400]
    home = client.get("/", headers=norwegian).get_data(as_text=True)
    assert "Spiller 1, Spiller 2" in home and "Player 1" not in home
    snap = client.get(f"/api/tables/{solo.removeprefix('/t/')}", headers=norwegian).get_json()
    assert [p["name"] for p in snap["table"]["players"]] == ["Brikke 1", "Brikke 2"]
    snap = client.get(f"/api/tables/{named.get_json()['id']}", headers=norwegian).get_json()
    assert [p["name"] for p in snap["table"]["players"]] == ["Player 2", "Bo"]  # as typed
    english = client.get(f"/api/tables/{url.removeprefix('/t/')}").get_json()
    assert english["to_move_name"] == "Player 1"


@pytest.mark.parametrize(("lang", "said"), [("nb", "Kamera"), ("da", "Kamera"), ("sv", "Kamera")])
def test_a_camera_table_the_command_line_named_is_named_in_the_pages_language(tmp_path, lang, said):
    """A table started with ``--source game.mp4`` was headed "Camera game.mp4" on every page,
    in English whatever the page's language. Each page says it in its own words, as it does
    the players left unnamed; a name a family typed stays as they typed it."""
    from webui.cli import _common, _source_table

    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    parser = argparse.ArgumentParser()
    _common(parser)
    url = _source_table(app, parser.parse_args(["--source", "7", "--game", "skipbo"]))
    table = app.extensions["kortbord.hub"].get(url.removeprefix("/t/")).table
    client = app.test_client()
    typed = client.post("/api/tables", json={"game": "sten", "name": "Camera obscura"})
    page = {"Accept-Language": lang}
    shown = f"{said} 7"
    heading = re.compile(r'<h1 class="table-title">.*?</span> <span>(.*?)</span></h1>', re.S)
    assert heading.findall(client.get(url, headers=page).get_data(as_text=True)) == [shown]
    home = client.get("/", headers=page).get_data(as_text=True)
    assert f'<span class="table-name">{shown}</span>' in home and "Camera 7" not in home
    own = client.get(f"/p/{table['players'][0]['token']}", headers=page).get_data(as_text=True)
    assert f"Skip-Bo · {shown} · " in own and "Camera 7" not in own
    match = client.get(f"/matches/{table['id']}", headers=page).get_data(as_text=True)
    match_heading = re.search(r"<h1>(.*?)</h1>", match, re.S)
    assert match_heading and "Camera 7" not in match
    assert re.sub(r"<[^>]+>", "", match_heading.group(1)).endswith(f"· {shown}")
    matches = client.get("/matches", headers=page).get_data(as_text=True)
    assert f'<span class="table-name">{shown}</span>' in matches
    typed_page = client.get(typed.get_json()["url"], headers=page).get_data(as_text=True)
    assert heading.findall(typed_page) == ["Camera obscura"]  # a family's own name
    english = client.get(url).get_data(as_text=True)
    assert heading.findall(english) == ["Camera 7"]


STREAM = "--source: a network stream needs an rtsp:// or http(s):// address, not "


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        *((["--source", url], STREAM + repr(url))
          for url in ("rtsp://", "http://", "zz://camera", "http://[::1", "rtsp://a:99999")),
        # other digits made a camera's table: "²"'s camera failed (int() refuses it), "٣"'s
        # watched camera 3; the web form refuses them, and indexes over 16, alike
        *((["--source", index], f"--source {index!r}: not a webcam index, stream URL, file or "
           "folder") for index in ("²", "٣", "１")),
        (["--source", "17"], "--source: webcam index must be 0–16, not '17'"),
    ],
)  # fmt: skip
def test_serve_refuses_a_camera_table_it_cannot_make(tmp_path, argv, says):
    """A stream address without a host (or with no port that is one) was taken: the table's
    camera tried it again every few seconds for ever."""
    from kortbord.cli import CommandError
    from webui.cli import _common, _source_table

    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    parser = argparse.ArgumentParser()
    _common(parser)
    with pytest.raises(CommandError) as e:
        _source_table(app, parser.parse_args(argv))
    assert str(e.value) == says
    assert app.extensions["kortbord.hub"].store.list_tables() == []


def test_serve_refuses_a_source_its_camera_could_not_play(tmp_path, capsys):
    """A text file, a folder without pictures, or a generated video with another game named:
    refused before a table is made for it (the camera would fail, the table stay blind)."""
    import json
    import random

    import cv2
    import numpy as np

    from referee import make_rules

    text = tmp_path / "notes.mp4"
    text.write_text("not a video\n" * 50)
    empty = tmp_path / "empty"
    empty.mkdir()
    video = tmp_path / "video"
    (video / "frames").mkdir(parents=True)
    cv2.imwrite(str(video / "frames" / "000000.jpg"), np.full((90, 160, 3), 80, np.uint8))
    rules = make_rules("sten", players=3)
    initial = rules.state_to_json(rules.initial_state(random.Random(1)))
    events = {"game": "sten", "config": {"players": 3}, "initial": initial}
    (video / "events.json").write_text(json.dumps(events))
    data = ["--data", str(tmp_path / "data"), "--port", "1"]
    for argv, words in (
        (["--source", str(text)], "not a readable video file"),
        (["--source", str(empty)], "no images (.jpg"),  # a folder of pictures, but empty
        (["--source", str(video), "--game", "skipbo"], "shows a sten game of 3 players"),
        (["--source", str(video), "--players", "4"], "leave --game and --players out"),
        (["--source", str(video), "--players", "5"], "of 3 players, not sten of 5"),
    ):
        assert main(["serve", *argv, *data]) == 2
        err = capsys.readouterr().err
        assert words in err and "Traceback" not in err
    tables = create_app({"DATA_DIR": str(tmp_path / "data"), "CAMERA": False}).test_client()
    assert tables.get("/api/tables").get_json()["tables"] == []  # no blind table was made


@pytest.mark.parametrize(
    ("events", "says"),
    [
        ("{", "not JSON (line 1, column 2)"),
        ('{"game": "sten", "config": 5, "initial": {}}', "config must be an object of settings"),
        ('{"game": "sten", "config": {"players": 2}, "initial": {}}', "not a Sten state"),
    ],
)
def test_serve_names_the_events_beside_a_video_file_that_are_no_recordings(tmp_path, events, says):
    """Beside a video file (not a generated video's folder) they were passed over, the
    video's game taken for a new one, or ended the command in a traceback."""
    import cv2
    import numpy as np

    from kortbord.cli import CommandError
    from webui.cli import _common, _source_table

    video = tmp_path / "video.avi"
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter_fourcc(*"MJPG"), 8, (64, 36))
    writer.write(np.full((36, 64, 3), 80, np.uint8))
    writer.release()
    (tmp_path / "events.json").write_text(events)
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "CAMERA": False})
    parser = argparse.ArgumentParser()
    _common(parser)
    with pytest.raises(CommandError) as e:
        _source_table(app, parser.parse_args(["--source", str(video)]))
    assert str(e.value).startswith(
        f"--source {str(video)!r}: {tmp_path / 'events.json'} is no recording's events: "
    )
    assert says in str(e.value)
    assert app.extensions["kortbord.hub"].store.list_tables() == []


@contextmanager
def serving(data, *options: str, stderr=subprocess.DEVNULL):
    """Run ``kortbord serve`` with ``options`` on a free port and ``data`` as its data folder,
    its output piped: ``(process, port)``; it is stopped at the end."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "kortbord", "serve", *options, "--port", str(port),
         "--data", str(data)],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=stderr, text=True,
    )  # fmt: skip
    try:
        yield proc, port
    finally:
        proc.terminate()
        proc.wait(10)


def test_lan_mode_prints_the_address_and_a_qr_code(tmp_path):
    with serving(tmp_path, "--lan") as (proc, port):
        lines = [proc.stdout.readline() for _ in range(5)]
    assert lines[0].startswith("Kortbord is running: open http://")
    assert f":{port}/" in lines[0]
    assert "LAN mode" in "".join(lines)
    assert any("█" in line or "▀" in line or "▄" in line for line in lines)


def test_a_server_for_this_computer_says_how_to_let_phones_in_and_how_to_stop(tmp_path):
    """A newcomer ran ``make run``: the way in for the phones is said as a make command, in
    lines an 80-column terminal shows whole (it broke the command as "(m" / "ake run")."""
    lines: list[str] = []
    with serving(tmp_path) as (proc, _):
        # the port listens before the lines are printed: read up to the last one (or the end)
        while not lines or lines[-1] != "  Ctrl+C stops it":
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.rstrip("\n"))
    assert lines[0].startswith("Kortbord is running: open http://127.0.0.1:")
    assert lines[2].endswith("phones start it with --lan")
    assert lines[3] == "  (make run ARGS=--lan, or kortbord run --lan)"
    assert lines[4] == "  Ctrl+C stops it"
    assert all(len(line) < 80 for line in lines[2:]), lines  # not the address nor the data path


@pytest.mark.parametrize("lan", [[], ["--lan"]])
def test_the_servers_lines_are_written_whole(tmp_path, monkeypatch, lan):
    """``print`` wrote each line's words and its newline apart: a camera's warning on stderr,
    in the same terminal or log, landed between them ("open http://…/t/geuKXxRrcamera 7:
    cannot open camera 7; …"), and the address to open was wrong. Each line (the QR code's
    too) is one write now."""
    import werkzeug.serving

    class Stopped:
        server_port = 5123

        def serve_forever(self):
            raise KeyboardInterrupt

        def server_close(self):
            pass

    class Writes:
        def __init__(self):
            self.writes: list[str] = []

        def write(self, text):
            self.writes.append(text)
            return len(text)

        def flush(self):
            pass

    out = Writes()
    monkeypatch.setattr(werkzeug.serving, "make_server", lambda *a, **k: Stopped())
    monkeypatch.setattr(sys, "stdout", out)
    assert main(["serve", "--data", str(tmp_path), "--port", str(free_port()), *lan]) == 0
    assert out.writes[0].startswith("Kortbord is running: open http://")
    assert all(w.endswith("\n") for w in out.writes), out.writes


@pytest.mark.parametrize(
    ("command", "says"),
    [
        ("run", "Start the web app with the demo table (what `make run` does)."),
        ("serve", "Start the web app (live tables, players' pages, scores)."),
        ("simulate", "Play seeded simulated games and print statistics (JSON)."),
        ("dataset build", "Render a YOLO dataset with JSON ground truth."),
        ("dataset video", "Render a seeded simulated game: frames + events.json."),
        ("dataset preview", "Write a contact sheet: one scene of every layout, labels drawn."),
    ],
)
def test_each_commands_help_says_what_it_does(command, says, capsys):
    """``kortbord run --help`` began at "usage:", not a word of what the command does: the
    line ``kortbord --help`` lists for it opens its own help now, and ``dataset ACTION --help``
    the line ``dataset --help`` lists."""
    with pytest.raises(SystemExit):
        main([*command.split(), "--help"])
    assert capsys.readouterr().out.split("\n\n")[1].replace("\n", " ") == says


def test_the_server_does_not_bury_its_address_under_a_line_per_request(tmp_path):
    """``make run`` printed the address to open, then a line for every request ("127.0.0.1 - -
    [...] "GET /api/tables/… HTTP/1.1" 200 -"): an open page or a few taps scrolled the
    address, and with --lan the phones' QR code, out of the terminal. Requests answered are
    not logged; what the server says stays on the screen."""
    import http.client

    with serving(tmp_path, stderr=subprocess.PIPE) as (proc, port):
        while proc.stdout.readline().rstrip("\n") != "  Ctrl+C stops it":
            assert proc.poll() is None
        statuses = []
        for path in ("/", "/api/tables", "/no-such-page", "/api/tables", "/matches"):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", path)
            statuses.append(conn.getresponse().status)
            conn.close()
        assert statuses == [200, 200, 404, 200, 200]
    err = proc.stderr.read()
    assert "GET / HTTP" not in err and "GET /api/tables HTTP" not in err, err


def test_a_demo_rendered_already_is_not_said_to_be_prepared_again(tmp_path):
    """Every start of ``make run`` said "Preparing the demo table (the first start renders a
    short game video)…", though only the first renders anything: a newcomer waited for a
    render that never came. Once the video is there, the address is the first line."""
    try:
        from vision.synth.video import VideoSettings, make_video
    except ImportError:
        pytest.skip("the scene generator (vision.synth) is not installed")
    settings = VideoSettings(size=(320, 180), jpeg=70, hold=0.5)
    make_video("stigespill", 3, 7, tmp_path / "demo", max_moves=4, settings=settings)
    with serving(tmp_path, "--demo") as (proc, _):
        first = proc.stdout.readline()
    assert first.startswith("Kortbord is running: open http://127.0.0.1:"), first


def test_make_run_passes_its_args_on_to_kortbord_run():
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    out = subprocess.run(
        # (under `make test` make says where it is: --no-print-directory keeps it quiet)
        ["make", "-n", "--no-print-directory", "run", "ARGS=--lan --port 5001"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert out.splitlines()[-1] == ".venv/bin/kortbord run --lan --port 5001"


def test_a_demo_removed_from_the_list_stays_removed_at_the_next_start(tmp_path):
    """A family removed the demo table from the home page's list; the next ``make run`` made
    a new "Demo" table, listed it and printed its address, one more in "Removed tables" at
    each start. The demo removed is found again: it stays off the lists, its link opens it."""
    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    store = app.extensions["kortbord.hub"].store
    table_id = ensure_demo(app, video=False)
    app.extensions["kortbord.demo"].stop.set()
    store.set_removed(table_id, True)
    tomorrow = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    try:
        assert ensure_demo(tomorrow, video=False) == table_id
    finally:
        tomorrow.extensions["kortbord.demo"].stop.set()
    assert store.list_tables() == []
    assert [row["id"] for row in store.list_tables(removed=True)] == [table_id]
    assert tomorrow.test_client().get(f"/t/{table_id}").status_code == 200


def test_the_demo_plays_itself_without_a_video(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    hub = app.extensions["kortbord.hub"]
    table_id = ensure_demo(app, video=False)
    assert ensure_demo(app, video=False) == table_id  # one demo table, found again
    app.extensions["kortbord.demo"].stop.set()  # step by hand instead of waiting for it
    player = AutoPlayer(app, table_id)
    for _ in range(400):
        player.step()
        if hub.get(table_id).number > 1:
            break
    assert hub.get(table_id).number == 2  # the first game ended, the next began
    games = hub.store.games(table_id)
    assert games[0]["result"]["winners"]


def test_the_demo_video_waits_for_a_page_to_watch_it(tmp_path):
    """Reading the demo's video costs a tenth of a core: nobody watching, it is not read."""
    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    hub = app.extensions["kortbord.hub"]
    table_id = ensure_demo(app, video=False)
    app.extensions["kortbord.demo"].stop.set()
    started = threading.Event()

    class Cameras:
        def ensure(self, table_id):
            started.set()
            return None  # no camera: the loop ends

    app.extensions["kortbord.cameras"] = Cameras()
    loop = VideoLoop(app, table_id, initial={}).start()
    assert not started.wait(1.5)  # no page: the video is not started
    page = hub.broadcaster.subscribe(table_id)  # a page opens the table
    try:
        assert started.wait(WAIT_S)
    finally:
        hub.broadcaster.unsubscribe(page)
        loop.stop.set()
    loop.thread.join(WAIT_S)
    assert not loop.thread.is_alive()


def test_a_picture_sent_from_a_phone_without_live_video_counts_as_a_steady_view(tmp_path):
    """A phone over http sends a picture at a time: each is read as the few steady frames a
    card needs to count, so the table follows every picture (it had needed three)."""
    cv2 = pytest.importorskip("cv2")
    np = pytest.importorskip("numpy")
    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": True})
    client = app.test_client()
    t = client.post("/api/tables", json={"game": "stigespill", "source": "phone"}).get_json()
    jpeg = cv2.imencode(".jpg", np.full((120, 160, 3), 60, np.uint8))[1].tobytes()
    url = f"/api/tables/{t['id']}"
    try:
        r = client.post(f"{url}/frame?still=1", data=jpeg, content_type="image/jpeg")
        assert r.status_code == 200
        deadline, frames = time.monotonic() + WAIT_S, 0
        while time.monotonic() < deadline and frames < 3:
            frames = client.get(f"{url}/camera").get_json()["frames"]
            time.sleep(0.05)
        assert frames == 3
    finally:
        app.extensions["kortbord.cameras"].stop_all()


def test_a_phone_camera_streams_through_the_page(tmp_path):
    cv2 = pytest.importorskip("cv2")
    np = pytest.importorskip("numpy")
    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": True})
    client = app.test_client()
    t = client.post("/api/tables", json={"game": "stigespill", "source": "phone"}).get_json()
    image = np.full((120, 160, 3), 60, np.uint8)
    cv2.rectangle(image, (40, 30), (90, 100), (255, 255, 255), -1)
    jpeg = cv2.imencode(".jpg", image)[1].tobytes()
    try:
        # A burst faster than the camera reads (its worker loads the recognizer first, for
        # seconds): the queue keeps the newest pictures and the replies count those dropped,
        # which the page slows down by.
        dropped = []
        for _ in range(12):
            r = client.post(f"/api/tables/{t['id']}/frame", data=jpeg, content_type="image/jpeg")
            assert r.status_code == 200
            dropped.append(r.get_json()["dropped"])
        assert dropped == sorted(dropped) and dropped[-1] >= 12 - 4 - 2, dropped
        deadline = time.monotonic() + WAIT_S
        status = {}
        while time.monotonic() < deadline:
            status = client.get(f"/api/tables/{t['id']}/camera").get_json()
            if status["frames"]:
                break
            time.sleep(0.05)
        assert status["running"] and status["frames"] >= 1
        r = client.get(f"/t/{t['id']}/camera.mjpg?frames=1")
        assert r.mimetype == "multipart/x-mixed-replace"
        body = r.get_data()
        assert body.startswith(b"--frame\r\n") and b"\xff\xd8\xff" in body
        # the next part begins at once: a browser draws the picture now, not when the
        # phone's next picture comes
        assert body.endswith(b"\xff\xd9\r\n--frame\r\nContent-Type: image/jpeg\r\n\r\n")
        page = client.get(t["url"]).get_data(as_text=True)
        assert "camera.mjpg" in page and "phone-start" in page
    finally:
        app.extensions["kortbord.cameras"].stop_all()


def test_camera_readings_go_through_the_referee(tmp_path):
    """A finite fake source and reader: moves are played, bad or unclear ones become prompts."""
    from webui.camera import Reading, TableCamera

    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    client = app.test_client()
    t = client.post("/api/tables", json={"game": "stigespill", "deal": "table"}).get_json()
    cams = app.extensions["kortbord.cameras"]
    readings = [
        Reading(jpeg=b"\xff\xd8\xff1", moves=[{"kind": "draw"}, {"kind": "reveal", "card": "4S"}]),
        Reading(jpeg=b"\xff\xd8\xff2", moves=[{"kind": "reveal", "card": "5S"}]),  # no draw
        Reading(prompt={"message": "5♠ or 5♣?", "candidates": [
            {"label": "5♣", "moves": [{"kind": "draw"}, {"kind": "reveal", "card": "5C"}]}]}),
    ]  # fmt: skip
    cam = TableCamera(t["id"], lambda: iter(range(3)), lambda i: readings[i], cams._on_reading)
    cam.start().thread.join(WAIT_S)
    assert cam.frame_no == 2 and cam.jpeg == b"\xff\xd8\xff2" and cam.status == "ended"
    snap = client.get(f"/api/tables/{t['id']}").get_json()
    assert snap["moves_made"] == 2  # the good reading only
    assert snap["prompt"]["message"] == "5♠ or 5♣?"
    log = client.get(f"/api/tables/{t['id']}/log").get_json()
    assert log["sources"] == ["camera", "camera"]
    r = client.post(f"/api/tables/{t['id']}/prompt", json={"choice": 0})
    assert r.get_json()["moves_made"] == 4 and r.get_json()["prompt"] is None


def _until(get, timeout: float = WAIT_S):
    """Return ``get()`` once its camera waits for something (or at the timeout)."""
    deadline = time.monotonic() + timeout
    while True:
        got = get()
        if got["camera"]["waiting"] or time.monotonic() > deadline:
            return got
        time.sleep(0.02)


def _camera_reader(hub, table_id: str, monkeypatch, recognizer, **callbacks):
    """Return the pipeline's frame reader for a table whose camera ``recognizer`` reads."""
    from webui import pipeline_adapter

    monkeypatch.setattr(pipeline_adapter, "make_recognizer", lambda source: recognizer)
    return pipeline_adapter.pipeline_reader(
        hub.get(table_id).rules,
        "webcam:0",
        lambda: hub.get(table_id).state,
        options=lambda: hub.get(table_id).table["options"],
        **callbacks,
    )


def test_a_skipbo_camera_says_what_it_waits_for(tmp_path, monkeypatch):
    """Until every seat's stock card is in sight the camera cannot place the piles: the table
    page says so (in its language), and no longer once they are."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("vision.pipeline")
    from vision.detections import Detections
    from vision.sources import Frame
    from webui.camera import TableCamera

    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    client = app.test_client()
    t = client.post("/api/tables", json={"game": "skipbo", "source": "webcam"}).get_json()
    hub, cams = app.extensions["kortbord.hub"], app.extensions["kortbord.cameras"]
    tops = [s[-1].code for s in hub.get(t["id"]).state.stocks]
    box = np.array([[0, 0], [50, 0], [50, 70], [0, 70]], np.float32)
    seen = {"codes": tops[:1]}  # one of the two stock cards in sight, then both

    def recognizer(image):
        n = len(seen["codes"])
        corners = np.stack([box + np.float32([300, 60 + 250 * k]) for k in range(n)])
        return Detections(corners, tuple(seen["codes"]), np.full(n, 0.95, np.float32))

    read = _camera_reader(hub, t["id"], monkeypatch, recognizer)
    image = np.zeros((400, 640, 3), np.uint8)
    readings = [read(Frame(0.1 * k, image, k)) for k in range(30)]
    seen["codes"] = tops
    readings += [read(Frame(0.1 * k, image, k)) for k in range(30, 60)]
    halfway, done = threading.Event(), threading.Event()

    def frames():
        yield from range(30)
        halfway.set()
        done.wait(WAIT_S)
        yield from range(30, 60)

    cam = TableCamera(t["id"], frames, lambda i: readings[i], lambda *a: None)
    cams.cameras[t["id"]] = cam
    cam.start()
    assert halfway.wait(WAIT_S)
    url = f"/api/tables/{t['id']}"
    waiting = _until(lambda: client.get(url, headers={"Accept-Language": "nb"}).get_json())
    assert waiting["camera"]["waiting"] == (
        "ventet 2 grunnbunkekort med forsiden opp ved start, så 1"
    )
    done.set()
    cam.thread.join(WAIT_S)
    assert readings[-1].status == "camera"  # both in sight: the reader follows the game
    cams.stop_all()


def test_skipbo_zones_follow_a_bumped_camera_on_the_page(tmp_path, monkeypatch):
    """The camera's stand knocked after the piles were placed: the page shows the zones where
    the piles show now, and zones confirmed there are read where the table first lay (the
    camera's tracker keeps the table as first seen)."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("vision.pipeline")
    from vision.detections import Detections
    from vision.layouts import skipbo
    from vision.sources import Frame

    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    client = app.test_client()
    t = client.post("/api/tables", json={"game": "skipbo", "source": "webcam"}).get_json()
    hub, url = app.extensions["kortbord.hub"], f"/api/tables/{t['id']}"
    tops = tuple(s[-1].code for s in hub.get(t["id"]).state.stocks)
    box = np.array([[0, 0], [50, 0], [50, 70], [0, 70]], np.float32)
    places = np.stack([box + np.float32([300, 60 + 250 * k]) for k in range(2)])
    shift = {"by": np.zeros(2, np.float32)}
    readers: list = []

    class Reader(skipbo.SkipBoReader):
        def __init__(self, zones, codes):
            super().__init__(zones, codes)
            readers.append(self)

    def recognizer(image):
        return Detections(places + shift["by"], tops, np.full(2, 0.95, np.float32))

    def by_place(centres) -> np.ndarray:
        # Two stocks with the same top card are told apart by place alone: in either order.
        return np.array(sorted(map(tuple, centres)))

    def stocks() -> np.ndarray:
        zones = client.get(url).get_json()["zones"]["map"]["zones"]
        return by_place([z["center"] for z in zones if z["kind"] == "stock"])

    monkeypatch.setattr(skipbo, "SkipBoReader", Reader)
    read = _camera_reader(
        hub,
        t["id"],
        monkeypatch,
        recognizer,
        on_zones=lambda zones, frame: hub.propose_zones(t["id"], zones, frame),
    )
    image = np.zeros((400, 640, 3), np.uint8)
    for k in range(30):
        read(Frame(0.1 * k, image, k))
    first = stocks()
    assert np.allclose(first, by_place(places.mean(axis=1)), atol=1)
    shift["by"] = np.float32([90, 30])  # more than a card's width
    readings = [read(Frame(0.1 * k, image, k)) for k in range(30, 50)]
    assert not any(r.moves or r.prompt for r in readings)
    assert np.allclose(stocks(), first + shift["by"], atol=1)  # the page shows them there
    shown = client.get(url).get_json()["zones"]
    r = client.post(f"{url}/zones", json={"zones": shown["map"], "frame": shown["frame"]})
    assert r.status_code == 200
    read(Frame(5.0, image, 50))
    assert client.get(url).get_json()["zones"]["confirmed"]
    read_at = by_place([z.center for z in readers[-1].zones.zones if z.kind == "stock"])
    assert np.allclose(read_at, first, atol=1)  # where the stable state has the piles
    shift["by"] = np.float32([-60, 20])  # knocked again: the confirmed zones follow
    readings = [read(Frame(0.1 * k, image, k)) for k in range(51, 71)]
    assert not any(r.moves or r.prompt for r in readings)
    assert np.allclose(stocks(), first + shift["by"], atol=1)
    assert client.get(url).get_json()["zones"]["confirmed"]


@pytest.mark.parametrize(
    ("game", "moves", "label"),
    [
        ("stigespill", [{"kind": "draw"}, {"kind": "reveal", "card": "5H"}], "5♥"),
        ("sten", [{"kind": "lay", "card": "8S"}], "Lay 8♠"),
        ("skipbo", [{"kind": "play", "source": "stock", "card": "SB3", "pile": 1}],
         "3 from stock → pile 2"),
    ],
)  # fmt: skip
def test_out_of_sync_candidates_read_as_moves(game, moves, label):
    from referee import make_rules
    from webui.pipeline_adapter import candidate_label

    rules = make_rules(game, players=2)
    assert candidate_label(rules, [rules.move_from_json(m) for m in moves]) == label


def test_skipbo_camera_zones_are_confirmed_and_kept(tmp_path):
    pytest.importorskip("vision.layouts.skipbo")
    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    client = app.test_client()
    t = client.post("/api/tables", json={"game": "skipbo", "source": "webcam"}).get_json()
    url = f"/api/tables/{t['id']}"
    assert "zones" not in client.get(url).get_json()
    # the pipeline proposes a map: the page shows it, unconfirmed
    app.extensions["kortbord.hub"].propose_zones(t["id"], zone_map(2), (640, 400))
    shown = client.get(url).get_json()["zones"]
    assert shown["frame"] == [640, 400] and not shown["confirmed"]
    for bad, words in (
        ({"zones": {"zones": [{"kind": "moon", "center": [1, 2]}]}}, "kind"),
        ({"zones": "everywhere"}, "zones"),
        ({"zones": zone_map(3)}, "3 players"),
        ({"zones": zone_map(2), "frame": [640]}, "frame"),
    ):
        r = client.post(f"{url}/zones", json=bad)
        assert r.status_code == 400 and words in r.get_json()["error"]
    moved = zone_map(2)
    moved["zones"][0]["center"] = [310.0, 190.0]
    r = client.post(f"{url}/zones", json={"zones": moved, "frame": [640, 400]})
    assert r.status_code == 200
    again = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False}).test_client()
    kept = again.get(url).get_json()["zones"]
    assert kept["confirmed"] and kept["map"]["zones"][0]["center"] == [310.0, 190.0]
    assert kept["frame"] == [640, 400]
    s = client.post("/api/tables", json={"game": "sten"}).get_json()
    assert client.post(f"/api/tables/{s['id']}/zones", json={"zones": moved}).status_code == 409


def _with(field: str, value, zone: int | None = None) -> dict:
    """Return a 2-player zone map with ``field`` (of the map, or of zone ``zone``) set."""
    zmap = zone_map(2)
    (zmap if zone is None else zmap["zones"][zone])[field] = value
    return zmap


NAN_MAP = (
    '{"players": 2, "zones": [{"kind": "stock", "center": [NaN, Infinity], "owner": 0},'
    ' {"kind": "stock", "center": [1, 1], "owner": 1}]}'
)


@pytest.mark.parametrize(
    ("zones", "words"),
    [
        (NAN_MAP, "NaN"),
        ({"players": 2, "zones": []}, "no zones"),
        (_with("owner", 99, zone=4), "zone 4: a stock zone needs an 'owner' seat 0–1"),
        (_with("owner", -5, zone=4), "zone 4: a stock zone needs an 'owner' seat 0–1"),
        (_with("owner", True, zone=4), "zone 4: a stock zone needs an 'owner' seat 0–1"),
        (_with("index", True, zone=1), "zone 1: 'index'"),
        (_with("center", [1e308, 5], zone=0), "zone 0: 'center'"),
        (_with("card_size", -1), "card_size"),
        (_with("card_size", 0), "card_size"),
        (_with("card_size", 1e308), "card_size"),
        (_with("card_size", "big"), "card_size"),
        (_with("players", "2"), "'players' must be a whole number"),
        (_with("players", 99), "99 players"),
        # a whole table's piles, each once, on the picture
        (_with("index", 0, zone=1), "building pile 1 twice; no building pile 2"),
        ({**zone_map(2), "zones": zone_map(2)["zones"][:4]}, "no seat 0's stock"),
        (_with("center", [-5000, 99999], zone=4), "seat 0's stock lies far outside the picture"),
    ],
)
def test_bad_zone_maps_are_refused_and_not_stored(tmp_path, zones, words):
    pytest.importorskip("vision.layouts.skipbo")
    import json

    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    client = app.test_client()
    t = client.post("/api/tables", json={"game": "skipbo", "source": "phone"}).get_json()
    url = f"/api/tables/{t['id']}"
    body = zones if isinstance(zones, str) else json.dumps(zones)
    sent = f'{{"zones": {body}, "frame": [640, 400]}}'
    r = client.post(f"{url}/zones", data=sent, content_type="application/json")
    assert r.status_code == 400 and words in r.get_json()["error"], r.get_json()
    assert "zones" not in client.get(url).get_json()
    again = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False}).test_client()
    assert "zones" not in again.get(url).get_json()
    # the same table takes a sound map
    assert client.post(f"{url}/zones", json={"zones": zone_map(2)}).status_code == 200


def test_serve_refuses_a_file_that_is_not_its_database(tmp_path, capsys):
    (tmp_path / "kortbord.sqlite3").write_text("garbage\n")
    assert main(["serve", "--data", str(tmp_path), "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kortbord serve: ") and "is not a Kortbord database" in err
    assert len(err.strip().splitlines()) == 1


def serve_refused(data, capsys) -> str:
    """Run ``kortbord serve`` on ``data``, its port taken (a server that got past the
    database could not listen); assert it is refused, and return what it said."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--data", str(data), "--port", str(port)]) == 2
    return capsys.readouterr().err


def test_serve_refuses_an_emptied_database_rather_than_start_with_no_tables(tmp_path, capsys):
    """A database of 0 bytes (a failed copy, a sync gone wrong) held a family's games: it is
    named and left as it is, not taken for a new, empty one."""
    db = tmp_path / "kortbord.sqlite3"
    db.write_bytes(b"")
    err = serve_refused(tmp_path, capsys)
    assert err.startswith(f"kortbord serve: {db} is empty (0 bytes)"), err
    assert len(err.strip().splitlines()) == 1
    assert db.stat().st_size == 0


@pytest.mark.parametrize("keep", [0.5, 4096 + 100])
def test_serve_refuses_a_truncated_database_even_beside_its_wal(tmp_path, capsys, keep):
    """A database cut short (a copy that stopped half-way) is refused, naming it, also when
    its WAL lies beside it (as after any server stopped without closing it): pages from the
    WAL had made it look whole, and the server started with no tables, or fell over."""
    import shutil

    from tests.webui.conftest import new_table

    app = create_app({"DATA_DIR": str(tmp_path / "home"), "CAMERA": False})
    client = app.test_client()
    for _ in range(8):
        new_table(client, "sten", players=4)
    data = tmp_path / "copy"
    shutil.copytree(tmp_path / "home", data)  # the WAL too: the app above holds it open
    db = data / "kortbord.sqlite3"
    assert (data / "kortbord.sqlite3-wal").exists()
    with open(db, "r+b") as f:
        f.truncate(int(db.stat().st_size * keep) if keep < 1 else keep)
    err = serve_refused(data, capsys)
    assert err.startswith(f"kortbord serve: {db} is damaged"), err
    assert len(err.strip().splitlines()) == 1


def test_serve_says_a_data_path_that_is_a_file_is_no_folder(tmp_path, capsys):
    data = tmp_path / "data"
    data.write_text("notes\n")
    assert main(["serve", "--data", str(data), "--port", "1"]) == 2
    assert capsys.readouterr().err == f"kortbord serve: --data '{data}' is a file, not a folder\n"


def test_serve_refuses_an_empty_data_path(tmp_path, capsys, monkeypatch):
    """``--data ''`` (a blank a script left) served the default ./data, as if left out; it is
    refused by name, as every folder option's empty path is, and no data folder is made."""
    import werkzeug.serving

    def no_server(*args, **kwargs):
        raise AssertionError("a server was started")

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("KORTBORD_DATA", raising=False)
    monkeypatch.setattr(werkzeug.serving, "make_server", no_server)
    assert main(["serve", "--data", "", "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert err == "kortbord serve: --data needs a folder, not an empty path\n"
    assert list(tmp_path.iterdir()) == []


def _camera_road_table(tmp_path, monkeypatch, laid: dict, **table):
    """Make a Stigespill table with real cards and a webcam that sees ``laid["cards"]``
    ((code, quad) pairs, read surely, or (code, quad, confidence)); return (app, table,
    roads, read): the roads the camera handed the table, and ``read(k)`` reading frame ``k``
    (at 0.1 s a frame)."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("vision.pipeline")
    from vision.detections import Detections
    from vision.sources import Frame

    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    body = {"game": "stigespill", "players": 2, "deal": "table", "source": "webcam", **table}
    t = app.test_client().post("/api/tables", json=body).get_json()
    hub = app.extensions["kortbord.hub"]

    def recognizer(image):
        codes = tuple(card[0] for card in laid["cards"])
        corners = np.stack([card[1] + 400 for card in laid["cards"]]).astype(np.float32)
        sure = [card[2] if len(card) > 2 else 0.95 for card in laid["cards"]]
        return Detections(corners, codes, np.array(sure, np.float32))

    def on_road(road, grid):
        roads.append(road)
        hub.set_road(t["id"], road, by_camera=True, grid=grid)

    roads: list[list[str]] = []
    reader = _camera_reader(
        hub,
        t["id"],
        monkeypatch,
        recognizer,
        on_road=on_road,
        current_rules=lambda: hub.get(t["id"]).rules,
        undos=lambda: hub.get(t["id"]).undos,
    )
    image = np.zeros((1400, 1400, 3), np.uint8)
    return app, t, roads, lambda k: reader(Frame(0.1 * k, image, k))


def test_a_camera_knocked_aside_says_the_cards_it_no_longer_shows(tmp_path, monkeypatch):
    """The camera's stand knocked so that the road's leftmost cards lie outside the picture:
    the camera says so (a card laid there would go unseen), in the page's language, and no
    longer once it shows the whole table again."""
    np = pytest.importorskip("numpy")
    from tests.vision.test_road import lay_road
    from webui import i18n
    from webui.camera import say_camera

    cards, truth = lay_road("serpentine", 3)
    laid = {"cards": cards}
    _, _, roads, read = _camera_road_table(tmp_path, monkeypatch, laid)
    assert [read(k).status for k in range(30)][-1] == "camera" and roads == [truth]
    # where the camera shows them: their right edges, their middles
    right = np.array([q[:, 0].max() for _, q in cards]) + 400
    middle = np.array([q[:, 0].mean() for _, q in cards]) + 400
    shift = np.float32([-right.min() - 5, 0])  # the leftmost column out of sight
    seen = right + shift[0] >= 0  # a card partly in the picture is still read
    laid["cards"] = [(c, q + shift) for (c, q), keep in zip(cards, seen, strict=True) if keep]
    n = int((middle + shift[0] < 0).sum())
    assert 0 < (~seen).sum() <= n < 29 / 2
    readings = [read(k) for k in range(30, 60)]
    assert not any(r.moves or r.prompt for r in readings)
    said = f"{n} cards lie outside the picture" if n > 1 else "a card lies outside the picture"
    assert readings[-1].status.startswith(f"camera: {said}: turn the camera back"), readings[-1]
    waiting = readings[-1].status.removeprefix("camera: ")
    assert say_camera(waiting, i18n.translator("nb")).startswith(
        f"{n} kort ligger utenfor bildet" if n > 1 else "et kort ligger utenfor bildet"
    )
    laid["cards"] = cards  # turned back to the whole table
    assert [read(k).status for k in range(60, 80)][-1] == "camera"


def test_a_stigespill_camera_table_given_no_road_reads_it_from_the_camera(tmp_path, monkeypatch):
    """Real cards, a camera, no road typed: the board shows the road's places until the camera
    has read the laid-out road, says what is missing meanwhile, then plays on the road read."""
    pytest.importorskip("numpy")
    from tests.vision.test_road import lay_road

    cards, truth = lay_road("uturn", 5)
    laid = {"cards": [(c, q) for c, q in cards if c != "QH"]}  # one card not laid yet
    app, t, roads, read = _camera_road_table(tmp_path, monkeypatch, laid)
    client, hub = app.test_client(), app.extensions["kortbord.hub"]
    url = f"/api/tables/{t['id']}"
    pending = client.get(url).get_json()
    assert pending["road_pending"] and not pending["moves"] and "hint" not in pending
    # a tap now would fix the app's stand-in road for good: refused until the road is read
    r = client.post(f"{url}/moves", json={"moves": [{"kind": "draw"}]})
    assert r.status_code == 409 and "road" in r.get_json()["error"]
    waiting = [read(k).status for k in range(20)]
    assert waiting[-1] == "camera: the road cannot be read yet: missing: QH" and not roads
    laid["cards"] = cards
    for k in range(20, 40):
        read(k)
    assert roads == [truth]
    snap = client.get(url).get_json()
    assert [tile["code"] for tile in snap["view"]["road"]] == truth
    assert "road_pending" not in snap and snap["moves_made"] == 0
    again = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False}).test_client()
    assert [tile["code"] for tile in again.get(url).get_json()["view"]["road"]] == truth
    assert not hub.set_road(t["id"], list(reversed(truth)), by_camera=True)  # read once
    # read wrong (two cards swapped), the family asks for the road to be read again
    misread = {truth[0]: truth[1], truth[1]: truth[0]}
    laid["cards"] = [(misread.get(c, c), q) for c, q in cards]
    for k in range(40, 60):
        read(k)
    assert roads == [truth] and hub.read_road_again(t["id"])
    assert client.get(url).get_json()["road_pending"]
    for k in range(60, 80):
        read(k)
    assert roads[1:] == [[misread.get(c, c) for c in truth]]
    assert [tile["code"] for tile in client.get(url).get_json()["view"]["road"]] == roads[1]
    # the page says what the camera waits for in its language
    from webui import i18n
    from webui.camera import say_camera

    said = say_camera(waiting[-1][len("camera: ") :], i18n.translator("nb"))
    assert said == "veien kan ikke leses ennå: mangler: Q♥"  # as the board shows cards


def test_a_road_in_straight_rows_read_as_a_snake_is_offered_again_like_text(tmp_path, monkeypatch):
    """A grid of straight rows may run like a snake or like text: the camera reads the snake,
    and the table's page offers to read it again like text, which then holds."""
    pytest.importorskip("numpy")
    from tests.vision.test_road import lay_road

    cards, truth = lay_road("rows", 3)  # like text: every row from the same side
    app, t, _, read = _camera_road_table(tmp_path, monkeypatch, {"cards": cards})
    client, url = app.test_client(), f"/api/tables/{t['id']}"
    for k in range(20):
        read(k)
    snap = client.get(url).get_json()
    assert snap["road_grid"] and [tile["code"] for tile in snap["view"]["road"]] != truth
    r = client.post(f"{url}/road/again", json={"shape": "spiral"})
    assert r.status_code == 400
    r = client.post(f"{url}/road/again", json={"shape": "rows"})
    assert r.status_code == 200 and r.get_json()["road_pending"]
    for k in range(20, 40):
        read(k)
    snap = client.get(url).get_json()
    assert [tile["code"] for tile in snap["view"]["road"]] == truth and "road_grid" not in snap


def test_a_road_read_before_is_read_again_past_an_outline_kept_across_two(tmp_path, monkeypatch):
    """Small cards (a 640×360 camera): an outline across two road cards now and then reads
    surely as a third card, which the tracker keeps. "Read the road again" still reads the
    road it read before, not that card's code doubled."""
    pytest.importorskip("numpy")
    from tests.vision.test_road import lay_road, outline_across

    cards, truth = lay_road("serpentine", 3)
    laid = {"cards": cards}
    app, t, roads, read = _camera_road_table(tmp_path, monkeypatch, laid)
    client, url = app.test_client(), f"/api/tables/{t['id']}"
    for k in range(20):
        read(k)
    assert roads == [truth]
    across = outline_across(cards, truth[2], truth[3])
    laid["cards"] = [*cards, (truth[8], across, 0.55)]  # read surely for a moment…
    for k in range(20, 25):
        read(k)
    laid["cards"] = [*cards, (truth[8], across, 0.35)]  # …and unsurely from then on
    for k in range(25, 40):
        read(k)
    r = client.post(f"{url}/road/again")
    assert r.status_code == 200 and r.get_json()["road_pending"]
    waiting = [read(k).status for k in range(40, 60)]
    assert roads == [truth, truth], waiting[-1]
    assert [tile["code"] for tile in client.get(url).get_json()["view"]["road"]] == truth


def test_a_camera_waits_quietly_for_a_card_only_a_phone_may_say(tmp_path, monkeypatch):
    """A strategy deal at a camera table: the dealt cards are secret, entered on the phones.
    The camera says whose phone it waits for, instead of "out of sync" with no choices."""
    pytest.importorskip("numpy")
    from tests.vision.test_road import lay_road
    from webui import i18n
    from webui.camera import say_camera
    from webui.speech import name_seats

    cards, truth = lay_road("uturn", 5)
    _, _, roads, read = _camera_road_table(
        tmp_path, monkeypatch, {"cards": cards}, variant="strategy", names="Mor, Far"
    )
    readings = [read(k) for k in range(40)]
    assert roads == [truth]  # the road first; then the deal waits for Mor's phone
    assert readings[-1].status == "camera: seat 0 enters their card on their own phone"
    assert all(r.prompt is None and not r.moves for r in readings)
    said = say_camera(
        name_seats(readings[-1].status[len("camera: ") :], ["Mor", "Far"]), i18n.translator("nb")
    )
    assert said == "Mor taster inn kortet sitt på sin egen telefon"


def test_a_skipbo_camera_waits_for_a_hand_draw_entered_on_a_phone(tmp_path, monkeypatch):
    """At a real Skip-Bo table the cards a player draws are entered on their phone: once the
    piles are placed the camera says so, frame after frame (it once failed on every frame
    there, asking the Skip-Bo rules for a Stigespill seat's name)."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("vision.pipeline")
    from vision.detections import Detections
    from vision.sources import Frame
    from webui import games

    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    client = app.test_client()
    body = {"game": "skipbo", "deal": "table", "source": "webcam", "names": "Mor, Far"}
    t = client.post("/api/tables", json=body).get_json()
    url = f"/api/tables/{t['id']}"
    for _ in range(2):  # each stock's first card, said on the table's page
        turned_up = client.get(url).get_json()["moves"][0]["move"]
        assert client.post(f"{url}/moves", json={"move": turned_up}).status_code == 200
    hub = app.extensions["kortbord.hub"]
    rt = hub.get(t["id"])
    owner = games.chance_owner(rt.rules, rt.state)
    assert owner == 0  # Mor's hand draw: only her phone may say the cards
    tops = tuple(stock[-1].code for stock in rt.state.stocks)
    box = np.array([[0, 0], [50, 0], [50, 70], [0, 70]], np.float32)
    stocks = np.stack([box + np.float32([300, 60 + 250 * k]) for k in range(len(tops))])
    seen = Detections(stocks, tops, np.full(len(tops), 0.95, np.float32))  # the piles placed
    read = _camera_reader(hub, t["id"], monkeypatch, lambda image: seen)
    image = np.zeros((400, 640, 3), np.uint8)
    readings = [read(Frame(0.1 * k, image, k)) for k in range(20)]  # a second to lie still
    waiting = f"camera: seat {owner} enters their card on their own phone"
    assert [r.status for r in readings[-5:]] == [waiting] * 5
    assert all(r.prompt is None and not r.moves for r in readings)


# How long a camera is given to follow a generated video of a dozen moves to its end, in
# seconds: the recognizer reads every picture, a few seconds' work on an idle machine and
# more than a minute's on a busy one.
VIDEO_S = 120.0


def test_a_recorded_game_goes_on_from_where_its_camera_stopped(tmp_path):
    """A table following a recorded video, its server stopped mid-game and started again (and
    its page opened again after the video's end), goes on from the last frame that made moves:
    played from its first frame again, the video's draws were taken for new ones."""
    pytest.importorskip("cv2")
    from vision.synth.video import VideoSettings, make_video
    from webui import games

    settings = VideoSettings(size=(320, 180), jpeg=70, hold=1.0)
    events = make_video("stigespill", 2, 7, tmp_path / "video", max_moves=12, settings=settings)
    data = tmp_path / "data"
    setup = games.parse_setup("stigespill", {"players": 2, "deal": "table"})

    def server():  # one run of the server: the app on the same data folder
        app = create_app({"DATA_DIR": str(data), "CAMERA": True})
        return app.extensions["kortbord.hub"], app.extensions["kortbord.cameras"]

    def table(hub) -> str:
        return hub.create(setup, source=f"video:{tmp_path / 'video'}", initial=events["initial"])[
            "id"
        ]

    def moves(hub, table_id: str) -> list[dict]:
        return [m["move"] for m in hub.get(table_id).moves]

    def follow(cams, table_id: str) -> None:
        """Follow the table's video to its end (the recognizer reads every picture)."""
        camera = cams.ensure(table_id).thread
        camera.join(VIDEO_S)
        assert not camera.is_alive(), f"the camera still reads the video after {VIDEO_S} s"

    hub, cams = server()
    whole, cut = table(hub), table(hub)
    follow(cams, whole)  # the video followed in one go
    followed = moves(hub, whole)
    assert len(followed) >= 6
    cams.ensure(cut)
    deadline = time.monotonic() + VIDEO_S
    while len(moves(hub, cut)) < 3 and time.monotonic() < deadline:
        time.sleep(0.02)
    cams.stop_all()  # the server stopped mid-game
    assert 3 <= len(moves(hub, cut)) < len(followed)
    for _ in range(2):  # started again, and its page opened again after the video's end
        hub, cams = server()
        follow(cams, cut)
        assert moves(hub, cut) == followed
        assert hub.get(cut).prompt is None  # nothing seen that the game did not explain
        cams.stop_all()


def test_a_move_undone_at_a_camera_table_is_not_read_again_from_the_same_view(tmp_path):
    """Undo on the table's page while the drawn card still lies on the discard pile: the
    page says which card to put back, and the camera waits for the table to change, instead
    of reading the same card as the same draw at once (the undo undone within a frame, the
    page's "put back" notice gone: a camera table's undo did nothing)."""
    pytest.importorskip("vision.pipeline")
    from vision.sources import open_source
    from vision.synth.video import VideoSettings, make_video
    from webui import games
    from webui.camera import Reading

    video = tmp_path / "video"
    settings = VideoSettings(size=(640, 360), jpeg=75, hold=1.0)
    events = make_video("stigespill", 2, 7, video, max_moves=4, settings=settings)
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "CAMERA": True})
    hub, cams = app.extensions["kortbord.hub"], app.extensions["kortbord.cameras"]
    setup = games.parse_setup("stigespill", {**events["config"], "deal": "table"})
    t = hub.create(setup, source=f"video:{video}", initial=events["initial"])
    reader = cams._open(t["id"], f"video:{video}", hub.get(t["id"]).rules)._reader
    frames = list(open_source(str(video / "frames"), fps=events["fps"]).frames())
    seen = None
    for frame in frames:  # up to the first draw
        reading: Reading = reader(frame)
        cams._on_reading(t["id"], reading)
        if hub.get(t["id"]).moves:
            seen = frame
            break
    assert seen is not None and len(hub.get(t["id"]).moves) == 2  # draw and reveal
    hub.undo(t["id"])
    assert hub.get(t["id"]).notice is not None  # "put back …"
    for k in range(1, 40):  # the same view for 4 s: nobody has put the card back yet
        cams._on_reading(t["id"], reader(type(seen)(seen.time + 0.1 * k, seen.image, seen.index)))
    rt = hub.get(t["id"])
    assert not rt.moves and rt.notice is not None and rt.prompt is None
    # the card taken off the discard pile (the video's first frame shows the table so), the
    # camera follows again: the same draw, laid again, is read
    for k, frame in enumerate([frames[0]] * 12 + [seen] * 12):
        cams._on_reading(
            t["id"], reader(type(seen)(seen.time + 5 + 0.1 * k, frame.image, frame.index))
        )
    assert len(hub.get(t["id"]).moves) == 2


def _stigespill_camera_table(tmp_path, monkeypatch):
    """Return (hub, table id, lay, watch) for a Stigespill camera table whose road is read:
    ``lay(code)`` lays a die card on the discard pile beside the road, ``watch(seconds)``
    lets the camera follow that long (its moves and prompts reach the table)."""
    np = pytest.importorskip("numpy")
    from tests.vision.test_road import lay_road

    cards, _ = lay_road("serpentine", 3)
    laid = {"cards": list(cards)}
    app, t, roads, read = _camera_road_table(tmp_path, monkeypatch, laid)
    cams = app.extensions["kortbord.cameras"]
    quads = np.array([q for _, q in cards])
    pile = quads[0] - quads[0].mean(axis=0) + [quads[..., 0].min() - 150, quads[..., 1].mean()]
    frames = iter(range(100_000))

    def lay(code: str) -> None:
        turn = len(laid["cards"]) - len(cards)  # each card a little askew on the one below
        laid["cards"].append((code, pile + np.array([3 * (turn % 3), 2 * (turn % 2)])))

    def watch(seconds: float) -> None:
        for _ in range(round(10 * seconds)):
            cams._on_reading(t["id"], read(next(frames)))

    watch(3)
    assert roads, "the road is read"
    return app.extensions["kortbord.hub"], t["id"], lay, watch


def _drawn(hub, table_id: str) -> list[str]:
    return [m["move"]["card"] for m in hub.get(table_id).moves if m["move"]["kind"] == "reveal"]


def test_a_stigespill_camera_asks_when_the_games_top_card_does_not_lie_on_the_pile(
    tmp_path, monkeypatch
):
    """The game's top card never lay on the discard pile: a draw entered by hand with another
    card than the one laid, or a draw undone with its card left lying. The camera asks
    before it takes the next card laid for the next draw; it took it silently, and from then
    on the game's discard pile and the table's differed while every new card was accepted."""
    hub, table, lay, watch = _stigespill_camera_table(tmp_path, monkeypatch)
    lay("5H")  # Anna draws 5♥: followed
    watch(2)
    assert _drawn(hub, table) == ["5H"] and hub.get(table).prompt is None
    # (a) Bo's draw entered by hand as 4♦ while he lays 3♣
    hub.play(table, [{"kind": "draw"}, {"kind": "reveal", "card": "4D"}], source="tap")
    lay("3C")
    watch(2)
    assert _drawn(hub, table) == ["5H", "4D"]  # not "Anna drew 3♣"
    prompt = hub.get(table).prompt
    assert prompt is not None and prompt["message"].startswith("out of sync — please confirm")
    assert [[m.get("card") for m in c["moves"]] for c in prompt["candidates"]] == [[None, "3C"]]
    hub.undo(table)  # the hand entry put right: Bo drew 3♣
    hub.play(table, [{"kind": "draw"}, {"kind": "reveal", "card": "3C"}], source="tap")
    watch(1)
    assert hub.get(table).prompt is None  # the table shows the game again
    lay("6D")  # and Anna's next draw is followed
    watch(2)
    assert _drawn(hub, table) == ["5H", "3C", "6D"] and hub.get(table).prompt is None
    # (b) Anna's draw undone on the page, its card left lying; then Bo draws
    hub.undo(table)
    watch(2)
    lay("2S")
    watch(2)
    assert _drawn(hub, table) == ["5H", "3C"]  # not "Anna drew 2♠" onto the 6♦
    prompt = hub.get(table).prompt
    assert prompt is not None
    assert [[m.get("card") for m in c["moves"]] for c in prompt["candidates"]] == [[None, "2S"]]
    hub.play(table, prompt["candidates"][0]["moves"], source="confirm")  # one tap
    lay("4C")  # the table's top is the game's again: the next draw is followed
    watch(2)
    assert _drawn(hub, table) == ["5H", "3C", "2S", "4C"] and hub.get(table).prompt is None


def test_an_undo_takes_back_the_camera_prompt_asked_of_the_game_before(tmp_path, monkeypatch):
    """A camera prompt pending when the page undoes (the hand entry it was about put right)
    was asked of the game before: it stayed offered, and its candidate (Anna's draw, now Bo's
    turn) was refused with a reason when tapped. Now the undo takes it back, also one the
    camera was making as the undo came (read against the game before the undo), and a
    redo."""
    from webui.camera import CameraHub

    hub, table, lay, watch = _stigespill_camera_table(tmp_path, monkeypatch)
    lay("5H")  # Anna draws 5♥: followed
    watch(2)
    hub.play(table, [{"kind": "draw"}, {"kind": "reveal", "card": "4D"}], source="tap")
    lay("3C")  # Bo's draw entered by hand as 4♦ while he lays 3♣: asked
    watch(2)
    assert hub.get(table).prompt is not None
    hub.undo(table)
    assert hub.get(table).prompt is None
    watch(2)  # (the camera waits for the table to change after an undo)
    assert hub.get(table).prompt is None and _drawn(hub, table) == ["5H"]
    hub.play(table, [{"kind": "draw"}, {"kind": "reveal", "card": "3C"}], source="tap")
    watch(1)
    # Anna's draw entered by hand as 6♦ while she lays 2♠; the page undoes it while the
    # camera reads the frame it asks about
    hub.play(table, [{"kind": "draw"}, {"kind": "reveal", "card": "6D"}], source="tap")
    lay("2S")
    on_reading = CameraHub._on_reading
    asked = []

    def undone_meanwhile(cams, table_id, reading):
        if reading.prompt is not None and not asked:
            asked.append(reading.prompt)
            hub.undo(table_id)
        on_reading(cams, table_id, reading)

    monkeypatch.setattr(CameraHub, "_on_reading", undone_meanwhile)
    watch(2)
    assert asked and _drawn(hub, table) == ["5H", "3C"] and hub.get(table).prompt is None
    hub.play(table, [{"kind": "draw"}, {"kind": "reveal", "card": "2S"}], source="tap")
    watch(1)
    hub.undo(table)  # Anna's 2♠ undone but left lying, and a 4♥ laid on it: asked as Anna's
    lay("4H")
    watch(2)
    prompt = hub.get(table).prompt
    assert prompt is not None and prompt["candidates"][0]["moves"][0] == {"kind": "draw", "seat": 0}
    hub.redo(table)  # a redo takes the question back too: the 4♥ is Bo's draw now
    assert hub.get(table).prompt is None
    watch(2)
    assert _drawn(hub, table) == ["5H", "3C", "2S", "4H"] and hub.get(table).prompt is None


def test_a_redo_ends_the_cameras_wait_after_an_undo(tmp_path, monkeypatch):
    """After an undo the camera waits for the table to change; a redo brings the game back
    to where the camera followed it, so the camera reads on. It went on waiting: Bo's draw
    entered by hand as 4♦ while he laid 3♣, undone and redone, was asked about no more, and
    the game stayed off the table unsaid."""
    hub, table, lay, watch = _stigespill_camera_table(tmp_path, monkeypatch)
    lay("5H")  # Anna draws 5♥: followed
    watch(2)
    hub.play(table, [{"kind": "draw"}, {"kind": "reveal", "card": "4D"}], source="tap")
    lay("3C")
    watch(2)
    asked = hub.get(table).prompt
    assert asked is not None
    hub.undo(table)
    watch(1)
    assert hub.get(table).prompt is None  # (waits for the table to change)
    hub.redo(table)
    watch(2)
    prompt = hub.get(table).prompt
    assert _drawn(hub, table) == ["5H", "4D"]
    assert prompt is not None and prompt["candidates"] == asked["candidates"]


def test_a_card_put_right_by_hand_lets_the_next_draw_be_followed(tmp_path, monkeypatch):
    """The camera reads Anna's 5♥ as 6♥, and the page puts it right (the draw undone, 5♥
    entered). The camera still reads the card as 6♥: the game's top card "never showed", and
    Bo's next draw cost a prompt ("the pile does not show the game's top card"). The card
    put right now counts as the table's, and the next draw is followed."""
    hub, table, lay, watch = _stigespill_camera_table(tmp_path, monkeypatch)
    lay("6H")  # Anna's 5♥, read as 6♥
    watch(2)
    assert _drawn(hub, table) == ["6H"]
    hub.undo(table)
    watch(1)
    hub.play(table, [{"kind": "draw"}, {"kind": "reveal", "card": "5H"}], source="tap")
    watch(2)
    assert _drawn(hub, table) == ["5H"] and hub.get(table).prompt is None
    lay("3C")  # Bo's draw
    watch(2)
    assert _drawn(hub, table) == ["5H", "3C"] and hub.get(table).prompt is None


def _sten_camera_table(tmp_path, monkeypatch):
    """Return (app, table id, laid, watch) for a Sten camera table the app dealt (a fixed
    deal), played on until the player on turn has more than one card to lay, 7♥ down. Its
    camera sees ``laid`` (card codes, each in its suit's column, fanned out from its 7);
    ``watch(seconds)`` lets it follow that long (its moves and prompts reach the table)."""
    import random

    np = pytest.importorskip("numpy")
    pytest.importorskip("vision.pipeline")
    from referee import make_rules
    from referee.cards import RANKS, SUITS, Card, parse_card
    from vision.detections import Detections
    from webui import games

    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    hub, cams = app.extensions["kortbord.hub"], app.extensions["kortbord.cameras"]
    setup = games.parse_setup("sten", {"players": 2, "deal": "app"})
    rules = make_rules(setup.game, **setup.config)
    initial = rules.state_to_json(rules.initial_state(random.Random(0)))
    table = hub.create(setup, source="webcam", initial=initial)["id"]
    pick = random.Random(0)
    while True:
        state = hub.get(table).state
        lays = [m for m in rules.legal_moves(state) if m.kind == "lay"]
        if len(lays) >= 2 and state.board[1] is not None:
            break
        hub.play(table, [pick.choice(rules.legal_moves(state)).to_json()], source="demo")
    laid = [
        Card("std", RANKS[r - 1], SUITS[si]).code
        for si, pile in enumerate(state.board)
        if pile is not None
        for r in range(pile[0], pile[1] + 1)
    ]
    box = np.float32([[-30, -42], [30, -42], [30, 42], [-30, 42]])

    def place(code: str):
        card = parse_card(code)
        r = card.rank_value
        away = 0 if r == 7 else (88 + 12 * abs(r - 7)) * (1 if r > 7 else -1)
        return box + np.float32([200 + 150 * SUITS.index(card.suit), 600 + away])

    def recognizer(image):
        corners = np.stack([place(code) for code in laid])
        return Detections(corners, tuple(laid), np.full(len(laid), 0.95, np.float32))

    read = _camera_reader(hub, table, monkeypatch, recognizer)
    watch = _watching(cams, table, read, np.zeros((1200, 1000, 3), np.uint8))
    watch(2)
    return app, table, laid, watch


def _watching(cams, table: str, read, image):
    """Return ``watch(seconds)``: the camera's frame reader ``read`` follows a still
    ``image`` that long, ten frames a second (its moves and prompts reach the table)."""
    from vision.sources import Frame

    frames = iter(range(100_000))

    def watch(seconds: float) -> None:
        for _ in range(round(10 * seconds)):
            k = next(frames)
            cams._on_reading(table, read(Frame(0.1 * k, image, k)))

    return watch


def test_a_card_the_camera_misread_is_put_right_with_one_tap(tmp_path, monkeypatch):
    """A Sten card read as another (7♠ for 6♥) until the true card shows: the camera reads its
    last move again. It did so unseen and the page dropped it: the game kept the 7♠, and the
    page said "out of sync" with nothing to confirm. Now the page offers the card the table
    shows in place of the camera's last move, and one tap puts the game right."""
    app, table, laid, watch = _sten_camera_table(tmp_path, monkeypatch)
    hub, client = app.extensions["kortbord.hub"], app.test_client()
    rt = hub.get(table)
    before = [m["move"] for m in rt.moves]
    wrong, right = [m.to_json() for m in rt.rules.legal_moves(rt.state) if m.kind == "lay"][:2]
    laid.append(wrong["card"])
    watch(2)
    assert [m["move"] for m in hub.get(table).moves] == [*before, wrong]  # read, misread
    laid[-1] = right["card"]  # the true card shows
    watch(8)
    prompt = hub.get(table).prompt
    assert prompt is not None and prompt["message"].endswith("reads the last moves otherwise")
    assert [(c["moves"], c.get("retracted")) for c in prompt["candidates"]] == [([right], [wrong])]
    said = client.get(f"/api/tables/{table}", headers={"Accept-Language": "nb"}).get_json()
    assert said["prompt"]["message"] == "kameraet leser de siste trekkene annerledes"
    r = client.post(f"/api/tables/{table}/prompt", json={"choice": 0})
    assert r.status_code == 200 and r.get_json()["prompt"] is None
    rt = hub.get(table)
    assert [m["move"] for m in rt.moves] == [*before, right]
    assert [m["source"] for m in rt.moves][-1] == "confirm"
    watch(3)  # the table shows the game: nothing more to read, nothing to ask
    assert len(hub.get(table).moves) == len(before) + 1 and hub.get(table).prompt is None
    hub.forget(table)  # as written: the 7♠ is gone from the store too
    assert [m["move"] for m in hub.get(table).moves] == [*before, right]
    from referee import IllegalMove

    with pytest.raises(IllegalMove, match="no longer the game's last"):
        hub.correct(table, [right], [wrong])  # a move made on the page is not the camera's


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "Lay {right} (replaces: Lay {wrong})"),
        ("nb", "Legg {right} (erstatter: Legg {wrong})"),
        ("da", "Læg {right} (erstatter: Læg {wrong})"),
        ("sv", "Lägg {right} (ersätter: Lägg {wrong})"),
    ],
)
def test_the_moves_the_camera_reads_again_name_the_moves_they_replace(
    tmp_path, monkeypatch, lang, said
):
    """A re-reading offered on the page (the camera misread 6♥ as 7♠) named only the new
    move, "Lay 6♥": nothing said that the tap takes back the 7♠ the game has. Its choice
    now names the moves it replaces too, in the page's language."""
    from webui.games import pretty

    app, table, laid, watch = _sten_camera_table(tmp_path, monkeypatch)
    hub = app.extensions["kortbord.hub"]
    rt = hub.get(table)
    wrong, right = [m.to_json() for m in rt.rules.legal_moves(rt.state) if m.kind == "lay"][:2]
    laid.append(wrong["card"])
    watch(2)
    laid[-1] = right["card"]
    watch(8)
    url = f"/api/tables/{table}"
    prompt = app.test_client().get(url, headers={"Accept-Language": lang}).get_json()["prompt"]
    named = said.format(right=pretty(right["card"]), wrong=pretty(wrong["card"]))
    assert [c["label"] for c in prompt["candidates"]] == [named]
    english = f"Lay {pretty(right['card'])} (replaces: Lay {pretty(wrong['card'])})"
    assert [c["label"] for c in hub.get(table).prompt["candidates"]] == [english]  # as asked


def _skipbo_camera_table(tmp_path, monkeypatch, seed: int, k: int):
    """Return (app, table id, moves, lay, watch) for a Skip-Bo camera table (Mor and Far) on
    the set-up of the referee's seeded game, played on the page to its move ``k``. Its camera
    sees that game's cards staged on a table (each pile where its confirmed zone lies);
    ``lay(move, seen=True)`` makes the next move there (``seen=False``: the table looks as
    it did); ``watch(seconds)`` lets the camera follow that long."""
    np = pytest.importorskip("numpy")
    pytest.importorskip("vision.pipeline")
    from vision.detections import Detections
    from vision.synth.faces import SkipBoDeck
    from vision.synth.video import SkipBoStager, play_script
    from webui import games

    rules, state, moves = play_script("skipbo", 2, seed, max_moves=k + 3)
    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": False})
    hub, cams = app.extensions["kortbord.hub"], app.extensions["kortbord.cameras"]
    form = {"players": 2, "stock": 5, "deal": "app", "names": "Mor, Far"}
    setup = games.parse_setup("skipbo", form)
    table = hub.create(setup, source="webcam", initial=rules.state_to_json(state))["id"]
    stager = SkipBoStager(np.random.default_rng(seed), SkipBoDeck(0), 2)
    low, high = stager.extent()

    def px(mm):  # two pixels a millimetre
        return (np.asarray(mm) - low) * 2

    game = {"state": state, "table": stager.setup(rules, state)[0]}

    def lay(move, seen: bool = True) -> None:
        after = rules.apply(game["state"], move)
        if seen:
            steps = stager.stage(rules, game["state"], move, after, game["table"])
            game["table"] = list(steps)[-1][0]
        game["state"] = after

    for move in moves[:k]:
        lay(move)
        hub.play(table, [move.to_json()], source="demo")
    zones = [{**z, "center": px(z["center"]).tolist()} for z in stager.zones_mm()]
    hub.confirm_zones(table, {"players": 2, "card_size": 2 * stager.w, "zones": zones})

    def recognizer(image):
        cards = [c for _, c in game["table"].cards if c.face.code is not None]
        # a building pile shows its top card alone
        shown = [
            c
            for i, c in enumerate(cards)
            if not any(np.hypot(*(d.center - np.asarray(c.center))) < 10 for d in cards[i + 1 :])
        ]
        corners = np.stack([px(c.quad()) for c in shown]).astype(np.float32)
        codes = tuple(c.face.code for c in shown)
        return Detections(corners, codes, np.full(len(shown), 0.95, np.float32))

    read = _camera_reader(hub, table, monkeypatch, recognizer, past=lambda n: hub.recent(table, n))
    width, height = px(high).astype(int) + 1
    watch = _watching(cams, table, read, np.zeros((height, width, 3), np.uint8))
    watch(2)
    return app, table, moves, lay, watch


@pytest.mark.parametrize("discarded_on", ["camera", "phone"])
def test_a_skipbo_wild_the_camera_missed_a_turn_before_is_put_in_with_one_tap(
    tmp_path, monkeypatch, discarded_on
):
    """Mor lays a wild squarely onto a building pile's wild (the camera sees nothing change)
    and ends her turn with a discard; Far lays the pile's next number onto it. The page said
    "no legal move fits" with nothing to tap. Now it offers Mor's unseen wild before her
    discard, then Far's card, and one tap puts the game right (her discard kept as it was
    made: read by the camera, or entered on her phone)."""
    k = 12  # Skip-Bo 2p-263: Mor's wild onto pile 4's wild, her discard, Far's 3 onto it
    app, table, moves, lay, watch = _skipbo_camera_table(tmp_path, monkeypatch, 263, k)
    hub, client = app.extensions["kortbord.hub"], app.test_client()
    wild, discard, card = (m.to_json() for m in moves[k : k + 3])
    assert hub.get(table).prompt is None and len(hub.get(table).moves) == k
    lay(moves[k], seen=False)
    lay(moves[k + 1])
    if discarded_on == "phone":
        hub.play(table, [discard], source="tap", seat=0)
    watch(3)
    lay(moves[k + 2])
    watch(8)
    rt = hub.get(table)
    assert [m["move"] for m in rt.moves[k:]] == [discard]  # the game waits for the page
    assert rt.prompt["message"].endswith(": an earlier move the camera missed explains it")
    offered = [(c["moves"], c["retracted"]) for c in rt.prompt["candidates"]]
    assert offered == [([wild, discard, card], [discard])]
    said = client.get(f"/api/tables/{table}", headers={"Accept-Language": "nb"}).get_json()
    assert said["prompt"]["message"] == "et tidligere trekk som kameraet ikke så, forklarer det"
    assert [c["label"] for c in said["prompt"]["candidates"]] == [
        "Mor (ikke sett): Skip-Bo fra hånd → bunke 4; deretter 3 fra grunnbunke → bunke 4"
    ]
    r = client.post(f"/api/tables/{table}/prompt", json={"choice": 0})
    assert r.status_code == 200 and r.get_json()["prompt"] is None
    rt = hub.get(table)
    assert [m["move"] for m in rt.moves] == [m.to_json() for m in moves[: k + 3]]
    source = "camera" if discarded_on == "camera" else "tap"
    assert [m["source"] for m in rt.moves[k:]] == ["confirm", source, "confirm"]
    watch(3)  # the table shows the game: nothing more to read, nothing to ask
    assert len(hub.get(table).moves) == k + 3 and hub.get(table).prompt is None

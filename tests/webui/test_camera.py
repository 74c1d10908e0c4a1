"""The table's camera: what a lost, reconnecting or ended source says reaches the table's
page, the viewer never hangs on a camera that gives no pictures, and one table has one
camera thread however many requests start it at once."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.webui.server import WAIT_S
from webui import create_app, games, i18n
from webui.camera import Reading, TableCamera, camera_check

np = pytest.importorskip("numpy")
sources = pytest.importorskip("vision.sources")

STREAM = "http://127.0.0.1:9/x.mjpg"


class FakeCapture:
    """A cv2.VideoCapture stand-in: reads ``script`` (an image, or ``None`` for a failed read),
    then, when ``endless``, a new picture every ``pace`` seconds."""

    def __init__(self, script: list, props: dict | None = None, endless: bool = False):
        self.script = list(script)
        self.props = props or {}
        self.endless = endless

    def isOpened(self) -> bool:
        return True

    def read(self):
        if self.script:
            item = self.script.pop(0)
            return item is not None, item
        if self.endless:
            time.sleep(0.02)
            return True, _image()
        return False, None

    def release(self) -> None:
        pass

    def get(self, prop):
        return float(self.props.get(prop, 0.0))


def _image() -> Any:
    return np.full((24, 32, 3), 90, np.uint8)


@pytest.fixture
def camera_app(tmp_path, monkeypatch):
    """An app with cameras on and a plain reader, so no recognizer has to load."""
    import webui.camera as camera

    def plain(*args, **kwargs) -> Callable[[Any], Reading]:
        return lambda frame: Reading(jpeg=b"\xff\xd8\xff" + bytes([frame.index % 256]))

    monkeypatch.setattr(camera, "make_reader", plain)
    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": True})
    yield app
    app.extensions["kortbord.cameras"].stop_all()


def _opener(monkeypatch, captures: list) -> None:
    """Make every source the app opens read ``captures`` in turn (``None``: the camera is
    not there), with reconnection back-offs of hundredths of a second."""
    real = sources.open_source

    def open_source(spec, **kw):
        kw.update(opener=lambda target: captures.pop(0) if captures else None)
        if str(spec).startswith("http"):
            kw.update(backoff=0.01, max_backoff=0.05)
        return real(spec, **kw)

    monkeypatch.setattr(sources, "open_source", open_source)


def _wait(poll: Callable[[], Any], until: Callable[[Any], bool], seconds: float = WAIT_S) -> Any:
    deadline = time.monotonic() + seconds
    value = poll()
    while not until(value) and time.monotonic() < deadline:
        time.sleep(0.02)
        value = poll()
    return value


def _view(client, table_id: str, seconds: float = WAIT_S) -> bytes | None:
    """Read the table's MJPEG viewer to its end; ``None`` if it is still open after
    ``seconds`` (a viewer that hangs)."""
    box: dict[str, bytes] = {}

    def read() -> None:
        box["body"] = client.get(f"/t/{table_id}/camera.mjpg").get_data()

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(seconds)
    return box.get("body")


def _table(client, source: str = "stream", **form: Any) -> str:
    body = {"game": "sten", "players": 2, "source": source, "stream_url": STREAM, **form}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.get_json()
    return r.get_json()["id"]


def _video_table(app, source: str) -> str:
    setup = games.parse_setup("sten", {"players": 2})
    return app.extensions["kortbord.hub"].create(setup, source=source)["id"]


def test_a_stream_that_never_answers_is_said_on_the_page(camera_app, monkeypatch):
    _opener(monkeypatch, [])
    client = camera_app.test_client()
    table_id = _table(client)
    url = f"/api/tables/{table_id}"
    page = camera_app.extensions["kortbord.broadcaster"].subscribe(table_id)
    assert _view(client, table_id) == b""  # no picture ever came: the viewer ends, empty
    cam = _wait(
        lambda: client.get(f"{url}/camera").get_json(), lambda c: "(attempt 3)" in c["message"]
    )
    assert cam["running"] and cam["state"] == "reconnecting" and cam["frames"] == 0
    assert cam["message"].startswith(f"cannot open {STREAM}; trying again in ")
    snap = client.get(url).get_json()
    assert snap["camera"]["state"] == "reconnecting" and STREAM in snap["camera"]["message"]
    woken = []
    while not page.queue.empty():
        woken.append(page.queue.get_nowait())
    assert woken[-1] == snap["version"]  # the page was woken to show it (server-sent events)
    assert "Camera: {message}" in client.get(f"/t/{table_id}").get_data(as_text=True)


def test_a_stream_that_cannot_be_reached_says_what_to_check(camera_app, monkeypatch):
    """A stream that would not open said "Camera: cannot open rtsp://…; trying again …" in
    red, and nothing of what to do. The table's page says what to check after it, in its
    language: the camera (or the phone's camera app) on, and on the computer's network. A
    video's end says nothing more."""
    _opener(monkeypatch, [])
    client = camera_app.test_client()
    table_id = _table(client)
    url = f"/api/tables/{table_id}"
    camera_app.extensions["kortbord.cameras"].ensure(table_id)
    _wait(lambda: client.get(f"{url}/camera").get_json(), lambda c: "(attempt 2)" in c["message"])
    checks = {
        "en": "Check that the camera (or the phone's camera app) is on, and on the same network",
        "nb": "Sjekk at kameraet (eller kamera-appen på telefonen) er på, og på samme nettverk",
        "da": "Tjek at kameraet (eller kamera-appen på telefonen) er tændt og på samme netværk",
        "sv": "Kontrollera att kameran (eller kameraappen i telefonen) är på och på samma nätverk",
    }
    for lang, check in checks.items():
        said = client.get(url, headers={"Accept-Language": lang}).get_json()["camera"]
        assert said["state"] == "reconnecting", said
        assert said["message"].startswith(
            {"en": "cannot open", "nb": "kan ikke åpne"}.get(lang, "")
        )
        assert STREAM in said["message"] and check in said["message"], (lang, said)
    # a video that ends, a stream back: nothing to check
    english = i18n.translator("en")
    for said in ("end of clip.mp4 after 60 frames", f"reconnected to {STREAM}"):
        assert camera_check(said, english) == "", said
    assert camera_check(f"lost {STREAM}; will reconnect", english).startswith("Check that")
    # a webcam that never opened: no network to check, but the cable and its number
    assert camera_check("cannot open camera 7; trying again in 1.0 s (attempt 2)", english) == (
        "Check that the webcam is plugged in and its number (the first one is 0). "
        "Until it opens, tap the moves in on the table's page."
    )


def test_a_webcam_unplugged_mid_game_is_said_once_with_what_to_do_and_its_return(
    camera_app, monkeypatch, caplog
):
    """A webcam unplugged mid-game: the page said "reconnecting to camera 0…" (the loss
    itself for half a second), nothing of what to do; the terminal a line at every try, every
    8 s for ever (the address and the phones' QR code scrolled away), and nothing once it was
    back. The page now says it was lost, what to check and that the moves may be tapped
    meanwhile, for as long as it lasts; the terminal says that once, naming the table, and
    once that it is back. A move tapped meanwhile is taken."""
    plugged = threading.Event()
    captures = [FakeCapture([_image()] * 3)]  # three pictures, then the cable is pulled
    real = sources.open_source

    def open_source(spec, **kw):
        def opener(target):
            if captures:
                return captures.pop(0)
            return FakeCapture([], endless=True) if plugged.is_set() else None

        return real(spec, opener=opener, backoff=0.01, max_backoff=0.02, **kw)

    monkeypatch.setattr(sources, "open_source", open_source)
    caplog.set_level("DEBUG", logger="kortbord")
    client = camera_app.test_client()
    setup = games.parse_setup("sten", {"players": 2, "deal": "table"})  # cards seen laid
    hub = camera_app.extensions["kortbord.hub"]
    table_id = hub.create(setup, source="webcam:0", name="Kitchen")["id"]
    url = f"/api/tables/{table_id}"
    camera_app.extensions["kortbord.cameras"].ensure(table_id)
    _wait(lambda: client.get(f"{url}/camera").get_json(), lambda c: "(attempt 5)" in c["message"])
    said = {
        lang: client.get(url, headers={"Accept-Language": lang}).get_json()["camera"]
        for lang in ("en", "nb")
    }
    assert said["en"]["state"] == "reconnecting"
    assert said["en"]["message"] == (
        "lost camera 0; reconnecting… Check that the webcam is plugged in and that no other "
        "program uses it. Until it is back, tap the moves in on the table's page: those made "
        "so far are kept."
    )
    assert said["nb"]["message"].startswith("mistet kamera 0; kobler til igjen …")
    assert "Sjekk at webkameraet er koblet til" in said["nb"]["message"]
    # the family goes on by hand
    moves = client.get(url).get_json()["moves"]
    r = client.post(f"{url}/moves", json={"moves": [moves[0]["move"]]})
    assert r.status_code == 200, r.get_json()
    plugged.set()
    back = _wait(lambda: client.get(f"{url}/camera").get_json(), lambda c: c["frames"] > 5)
    assert back["state"] == "open" and back["message"] == "reconnected to camera 0"
    told = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert told == [
        "camera of table 'Kitchen': lost camera 0; reconnecting… Check that the webcam is "
        "plugged in and that no other program uses it. Until it is back, tap the moves in on "
        "the table's page: those made so far are kept.",
        "camera of table 'Kitchen': reconnected to camera 0",
    ], told


def test_a_lost_stream_is_said_and_its_return_seen(camera_app, monkeypatch):
    _opener(monkeypatch, [FakeCapture([_image()] * 3), None, None, FakeCapture([], endless=True)])
    client = camera_app.test_client()
    table_id = _table(client)
    url = f"/api/tables/{table_id}/camera"
    camera_app.extensions["kortbord.cameras"].ensure(table_id)
    back = _wait(lambda: client.get(url).get_json(), lambda c: c["frames"] > 5)
    assert back["state"] == "open" and back["message"] == f"reconnected to {STREAM}"
    assert client.get(f"/api/tables/{table_id}").get_json()["camera"]["state"] == "open"
    assert _view(client, table_id, 0.5) is None  # pictures come: the viewer stays open


def test_a_lost_stream_ends_the_viewer_and_tells_why(camera_app, monkeypatch):
    _opener(monkeypatch, [FakeCapture([_image()] * 3)])
    client = camera_app.test_client()
    table_id = _table(client)
    cam = camera_app.extensions["kortbord.cameras"].ensure(table_id)
    shown = _wait(
        lambda: client.get(f"/api/tables/{table_id}/camera").get_json(),
        lambda c: c["state"] == "reconnecting",
    )
    assert shown["frames"] == 3 and shown["running"]
    body = _view(client, table_id)
    assert body is not None and body.count(b"\xff\xd8\xff") <= 1  # the last picture, the end
    assert cam.thread.is_alive()  # the camera itself keeps trying
    snap = client.get(f"/api/tables/{table_id}").get_json()
    assert snap["camera"]["state"] == "reconnecting"


def test_a_video_that_ends_damaged_says_how_much_was_read(camera_app, monkeypatch, tmp_path):
    cv2 = pytest.importorskip("cv2")
    video = tmp_path / "clip.avi"
    video.write_bytes(b"not read: the capture is a stand-in")
    script = [_image(), _image(), None, _image(), None]
    _opener(monkeypatch, [FakeCapture(script, {cv2.CAP_PROP_FRAME_COUNT: 4})])
    client = camera_app.test_client()
    table_id = _video_table(camera_app, f"video:{video}")
    cam = camera_app.extensions["kortbord.cameras"].ensure(table_id)
    cam.thread.join(WAIT_S)
    shown = client.get(f"/api/tables/{table_id}/camera").get_json()
    assert shown["state"] == "ended" and not shown["running"] and shown["frames"] == 3
    assert shown["message"] == f"end of {video} after 4 frames (1 could not be read)"
    # the page names the video by its file, not its path
    assert client.get(f"/api/tables/{table_id}").get_json()["camera"] == {
        "state": "ended",
        "message": "end of clip.avi after 4 frames (1 could not be read)",
        "waiting": "",
        "unreadable": "",
    }


def test_a_missing_video_is_said_not_just_off(camera_app, tmp_path):
    client = camera_app.test_client()
    gone = tmp_path / "gone.avi"
    table_id = _video_table(camera_app, f"video:{gone}")
    r = client.get(f"/t/{table_id}/camera.mjpg", headers={"Accept": "application/json"})
    assert r.status_code == 503 and "no such file" in r.get_json()["error"]
    shown = client.get(f"/api/tables/{table_id}/camera").get_json()
    assert shown["state"] == "error" and not shown["running"]
    assert shown["message"] == f"cannot open video {str(gone)!r}: no such file"
    assert client.get(f"/api/tables/{table_id}").get_json()["camera"]["state"] == "error"


def test_a_video_whose_pictures_vanish_mid_game_is_not_said_to_have_just_ended(
    camera_app, monkeypatch, tmp_path
):
    """The folder of a table's video deleted (or renamed) while it plays: the page says how
    many pictures could not be read, not a plain end; and the page opened again says the
    video is gone, not the old camera's end (its stream answered 404, "no camera")."""
    import shutil

    import webui.camera as camera

    cv2 = pytest.importorskip("cv2")
    folder = tmp_path / "game"
    folder.mkdir()
    for k in range(4):
        cv2.imwrite(str(folder / f"f{k}.png"), _image())

    def vanishing(*args, **kwargs) -> Callable[[Any], Reading]:
        def read(frame) -> Reading:
            shutil.rmtree(folder, ignore_errors=True)  # gone after its first picture
            return Reading(jpeg=b"\xff\xd8\xff")

        return read

    monkeypatch.setattr(camera, "make_reader", vanishing)
    client = camera_app.test_client()
    table_id = _video_table(camera_app, f"video:{folder}")
    cam = camera_app.extensions["kortbord.cameras"].ensure(table_id)
    cam.thread.join(WAIT_S)
    shown = client.get(f"/api/tables/{table_id}").get_json()["camera"]
    assert shown["state"] == "ended"
    assert shown["message"] == "end of game after 4 frames (3 could not be read)"
    # the page opened again: its picture asked for
    r = client.get(f"/t/{table_id}/camera.mjpg", headers={"Accept": "application/json"})
    assert r.status_code == 503 and "no such file" in r.get_json()["error"]
    shown = client.get(f"/api/tables/{table_id}").get_json()["camera"]
    assert shown["state"] == "error" and "no such file" in shown["message"]


def test_a_camera_table_without_a_camera_yet_shows_it_off(camera_app):
    client = camera_app.test_client()
    table_id = _table(client, "phone")
    assert client.get(f"/api/tables/{table_id}").get_json()["camera"] == {
        "state": "off",
        "message": "",
        "waiting": "",
        "unreadable": "",
    }
    none = _table(client, "none")
    assert "camera" not in client.get(f"/api/tables/{none}").get_json()


def _jpeg(image: Any) -> bytes:
    cv2 = pytest.importorskip("cv2")
    return cv2.imencode(".jpg", image)[1].tobytes()


def test_what_the_camera_waits_for_is_shown_as_soon_as_it_changes(camera_app, monkeypatch):
    """The camera line says what the camera waits to see (the road's missing cards, a stock
    card): the pages are woken when that changes, not at some later change of the game."""
    import webui.camera as camera
    from webui.pipeline_adapter import WAITING

    def waits(*args, **kwargs) -> Callable[[Any], Reading]:
        # What it waits for follows the picture: a white card in its left or right half.
        def read(frame) -> Reading:
            side = "left" if frame.image[:, :80].mean() > frame.image[:, 80:].mean() else "right"
            return Reading(jpeg=b"\xff\xd8\xff", status=f"{WAITING}the card on the {side}")

        return read

    monkeypatch.setattr(camera, "make_reader", waits)
    client = camera_app.test_client()
    table_id = _table(client, "phone")
    url = f"/api/tables/{table_id}"
    page = camera_app.extensions["kortbord.broadcaster"].subscribe(table_id)
    for side, columns in (("left", slice(10, 60)), ("right", slice(100, 150))):
        picture = np.full((120, 160, 3), 60, np.uint8)
        picture[30:100, columns] = 240
        while not page.queue.empty():
            page.queue.get_nowait()
        r = client.post(f"{url}/frame?still=1", data=_jpeg(picture), content_type="image/jpeg")
        assert r.status_code == 200
        shown = _wait(
            lambda: client.get(url).get_json()["camera"], lambda c, side=side: side in c["waiting"]
        )
        assert shown["waiting"] == f"the card on the {side}"
        assert _wait(lambda: not page.queue.empty(), bool), "the page was not woken"


def test_a_picture_too_dark_to_read_is_said_on_the_page_until_the_light_is_back(
    camera_app, monkeypatch
):
    """Pictures too dark to read a card in (the light off, the lens covered) are said on the
    table's page, in its language, once they have come for a second; the page is woken to
    show it, every picture is still read, and the first good picture ends it."""
    from vision.exposure import TOO_DARK
    from webui import i18n

    # the pictures' times are the test's: a busy machine may take a second between two
    now = [0.0]
    queue_source = sources.QueueSource
    monkeypatch.setattr(
        sources, "QueueSource", lambda **kw: queue_source(clock=lambda: now[0], **kw)
    )
    client = camera_app.test_client()
    table_id = _table(client, "phone")
    url = f"/api/tables/{table_id}"
    lit = np.full((120, 160, 3), 60, np.uint8)
    lit[30:100, 40:90] = 240  # a card on the cloth
    dark = _jpeg(np.zeros((120, 160, 3), np.uint8))
    page = camera_app.extensions["kortbord.broadcaster"].subscribe(table_id)

    def push(jpeg: bytes, until: Callable[[dict], bool], lang: str = "en") -> dict:
        """Send the picture (as a phone does, a steady view each) till the page shows it."""
        deadline = time.monotonic() + WAIT_S
        while True:
            r = client.post(f"{url}/frame?still=1", data=jpeg, content_type="image/jpeg")
            assert r.status_code == 200
            snap = client.get(url, headers={"Accept-Language": lang}).get_json()
            if until(snap["camera"]) or time.monotonic() > deadline:
                return snap
            time.sleep(0.1)

    def wakeups() -> list[int]:
        woken = []
        while not page.queue.empty():
            woken.append(page.queue.get_nowait())
        return woken

    def woken() -> list[int]:
        """Return the wake-ups, waited for: the camera wakes the pages a moment after the
        change a snapshot already shows."""
        _wait(lambda: not page.queue.empty(), bool)
        return wakeups()

    def read(jpeg: bytes, frames: int) -> dict:
        """Send one picture; return the camera's status once it has read ``frames`` in all."""
        assert client.post(f"{url}/frame?still=1", data=jpeg).status_code == 200
        return _wait(
            lambda: client.get(f"{url}/camera").get_json(), lambda c: c["frames"] == frames
        )

    assert read(_jpeg(lit), 3)["state"] == "open"
    wakeups()
    # one dark picture (a hand passing, a flicker) is read, and not said
    now[0] = 0.9
    assert read(dark, 6)["frames"] == 6
    assert client.get(url).get_json()["camera"]["unreadable"] == ""
    now[0] = 1.0  # dark for a second
    said = push(dark, lambda cam: cam["unreadable"] != "", "nb")
    assert said["camera"]["unreadable"] == (
        "Bildet er for mørkt til å lese kortene: slå på et lys eller ta bort det som dekker "
        "kameraet."
    )
    assert woken()  # the page was woken to show it (server-sent events)
    for lang in i18n.LANGUAGES:
        camera = client.get(url, headers={"Accept-Language": lang}).get_json()["camera"]
        assert camera["unreadable"] == i18n.translator(lang)(TOO_DARK)
        assert (camera["unreadable"] == TOO_DARK) == (lang == "en")
    shown = client.get(f"{url}/camera").get_json()
    assert shown["unreadable"] == TOO_DARK and shown["state"] == "open"
    assert shown["frames"] > 6  # the dark pictures were read all the same
    # the light is back: said no more, at the first good picture
    back = push(_jpeg(lit), lambda cam: cam["unreadable"] == "")
    assert back["camera"]["unreadable"] == ""
    assert woken()


def _camera_threads(table_id: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == f"camera-{table_id}" and t.is_alive()]


def test_one_camera_thread_however_many_start_it_at_once(camera_app, monkeypatch):
    client = camera_app.test_client()
    table_id = _table(client, "phone")
    cams = camera_app.extensions["kortbord.cameras"]
    start = TableCamera.start

    def slow_start(cam: TableCamera) -> TableCamera:
        time.sleep(0.02)  # a busy server: the thread starts a moment after it is registered
        return start(cam)

    monkeypatch.setattr(TableCamera, "start", slow_start)
    barrier = threading.Barrier(8)
    got: list[TableCamera | None] = []

    def ask() -> None:
        barrier.wait()
        got.append(cams.ensure(table_id))

    askers = [threading.Thread(target=ask) for _ in range(8)]
    for t in askers:
        t.start()
    for t in askers:
        t.join(WAIT_S)
    threads = _camera_threads(table_id)
    assert len(threads) == 1
    assert len(got) == 8 and all(cam is cams.get(table_id) for cam in got)
    assert client.post(f"/api/tables/{table_id}/source", json={"source": "none"}).status_code == 200
    threads[0].join(WAIT_S)
    assert _camera_threads(table_id) == []


def test_a_camera_opened_as_the_source_changes_is_not_kept(camera_app, monkeypatch):
    client = camera_app.test_client()
    table_id = _table(client, "phone")
    cams = camera_app.extensions["kortbord.cameras"]
    opened = cams._open

    def open_while_switched_off(*args) -> TableCamera:
        cam = opened(*args)
        r = client.post(f"/api/tables/{table_id}/source", json={"source": "none"})
        assert r.status_code == 200
        return cam

    monkeypatch.setattr(cams, "_open", open_while_switched_off)
    assert cams.ensure(table_id) is None
    assert _camera_threads(table_id) == [] and cams.get(table_id) is None


def test_a_folder_of_pictures_plays_as_a_camera(tmp_path):
    """A folder of photos is a camera source as the README says, not only a rendered video's
    folder beside its events.json."""
    np = pytest.importorskip("numpy")
    cv2 = pytest.importorskip("cv2")
    from webui.camera import open_video

    for k in range(3):
        cv2.imwrite(str(tmp_path / f"table-{k}.jpg"), np.full((40, 60, 3), 40 * k, np.uint8))
    frames = list(open_video(str(tmp_path)).frames())
    assert len(frames) == 3 and frames[0].image.shape == (40, 60, 3)
    assert [f.time for f in frames] == [0.0, 0.1, 0.2]  # a folder's default 10 frames/s


def test_a_generated_video_plays_at_its_own_frame_rate(tmp_path):
    """A rendered video's events.json gives its frame rate (8 frames/s); its table's camera
    played it at a folder's 10, as ``kortbord replay`` does not."""
    import json
    import random

    cv2 = pytest.importorskip("cv2")
    from referee import make_rules
    from webui.camera import open_video

    (tmp_path / "frames").mkdir()
    for k in range(3):
        cv2.imwrite(str(tmp_path / "frames" / f"{k:06d}.jpg"), np.full((40, 60, 3), 9, np.uint8))
    rules = make_rules("sten", players=2)
    initial = rules.state_to_json(rules.initial_state(random.Random(1)))
    events = {"game": "sten", "config": {"players": 2}, "initial": initial, "fps": 8}
    (tmp_path / "events.json").write_text(json.dumps(events))
    frames = list(open_video(str(tmp_path)).frames())
    assert [f.time for f in frames] == [0.0, 0.125, 0.25]


def test_a_streams_password_reaches_no_page(tmp_path, monkeypatch):
    """A network camera's address often holds its password (``rtsp://admin:pw@…``, or
    ``?pwd=`` in an IP webcam's query); the pages need only which camera it is, and a guest
    who joined with the code, or a phone with its player's link, got the whole address in
    every snapshot and in the camera's 'cannot open …' messages."""
    import webui.camera as camera

    monkeypatch.setattr(camera, "make_reader", lambda *a, **kw: lambda frame: Reading())
    app = create_app({"DATA_DIR": str(tmp_path), "CAMERA": True, "LAN": True})
    _opener(monkeypatch, [])
    secret = "http://admin:S3cret@10.0.0.7:8080/video.mjpg?user=admin&pwd=S3cret2"
    host = app.test_client()
    body = {"game": "sten", "players": 2, "source": "stream", "stream_url": secret}
    made = host.post("/api/tables", json=body).get_json()
    table_id, code = made["id"], made["join_code"]
    guest = app.test_client()
    guest.environ_base["REMOTE_ADDR"] = "203.0.113.23"
    guest.set_cookie(f"kb_join_{table_id}", code)
    try:
        app.extensions["kortbord.cameras"].ensure(table_id)
        url = f"/api/tables/{table_id}"
        cam = _wait(
            lambda: guest.get(f"{url}/camera").get_json(), lambda c: "attempt" in c["message"]
        )
        assert "cannot open http://10.0.0.7:8080/video.mjpg;" in cam["message"]  # which camera
        for answer in (
            guest.get(url),
            guest.get(f"{url}/camera"),
            guest.get(f"/t/{table_id}"),
            guest.get(made["players"][0]["url"]),
            guest.get(made["players"][0]["url"].replace("/p/", "/api/p/")),
            host.get(url),
        ):
            assert answer.status_code == 200
            text = answer.get_data(as_text=True)
            assert "S3cret" not in text and "admin" not in text, text[:300]
        assert guest.get(url).get_json()["table"]["source"] == "http://10.0.0.7:8080/video.mjpg"
    finally:
        app.extensions["kortbord.cameras"].stop_all()


def test_a_huge_picture_from_a_phone_waits_for_the_camera_shrunk(camera_app, monkeypatch):
    """A PNG of 100 million pixels is a few hundred kilobytes and 300 MB decoded: each
    phone table's camera kept up to five such pictures waiting, and a guest may start 20
    tables: gigabytes. A picture larger than a phone's photo waits shrunk to that size."""
    import cv2

    from webui.camera import MAX_FRAME_PIXELS

    pushed = []
    real = sources.QueueSource.push
    monkeypatch.setattr(
        sources.QueueSource,
        "push",
        lambda self, data, time=None: (pushed.append(data.shape), real(self, data, time))[1],
    )
    client = camera_app.test_client()
    table_id = _table(client, source="phone")
    url = f"/api/tables/{table_id}/frame"
    for w, h in ((4032, 3024), (6000, 4000)):  # a 12 MP phone photo as it is; 24 MP shrunk
        png = cv2.imencode(".png", np.full((h, w, 3), 90, np.uint8))[1].tobytes()
        assert client.post(url, data=png, content_type="image/png").status_code == 200
    assert pushed[0] == (3024, 4032, 3)
    h, w, _ = pushed[1]
    assert h * w <= MAX_FRAME_PIXELS and abs(w / h - 1.5) < 0.01

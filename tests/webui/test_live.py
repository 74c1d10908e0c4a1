"""Live updates and durability against a real server process: SSE, and kill -9 mid-play."""

from __future__ import annotations

import http.client
import threading
import time

import pytest

from tests.webui.server import WAIT_S, EventReader, Server
from webui.live import Broadcaster, sse_stream


# ---- the broadcaster, without a server ---------------------------------------------------
def test_each_page_gets_its_own_wake_up_and_leaves_cleanly():
    b = Broadcaster()
    renders = iter(range(100))
    gen = sse_stream(b, "t1", lambda: {"n": next(renders)}, heartbeat_s=5, max_events=3)
    assert '"n":0' in next(gen)
    assert b.watchers("t1") == 1
    b.publish("t1", 1)
    b.publish("t2", 1)  # another table: not this page's business
    assert '"n":1' in next(gen)
    # a burst of changes becomes one render of the newest state
    for v in range(2, 10):
        b.publish("t1", v)
    assert '"n":2' in next(gen)
    with pytest.raises(StopIteration):
        next(gen)
    assert b.watchers("t1") == 0


def test_a_quiet_stream_sends_keep_alives_a_page_sees():
    b = Broadcaster()
    gen = sse_stream(b, "t", lambda: {}, heartbeat_s=0.01, max_events=2)
    next(gen)
    # an event (a comment would reach no script): a page that hears nothing knows it is cut off
    assert next(gen).startswith("event: ping\n")
    gen.close()
    assert b.watchers("t") == 0


def test_a_stalled_page_keeps_only_recent_wake_ups():
    b = Broadcaster()
    sub = b.subscribe("t")
    for v in range(500):
        b.publish("t", v)
    assert sub.queue.qsize() <= 64 and list(sub.queue.queue)[-1] == 499


# ---- a real server ---------------------------------------------------------------------
@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path / "data").start()
    yield s
    s.stop()


def test_every_open_page_gets_a_move_pushed_on_its_open_stream(server):
    """Three pages of a table and a player's private page each get the move pushed on the
    event stream they opened before it, as its own next snapshot: no page asks again (the
    stream is one response, read on), and the server renders a snapshot only when woken by a
    change (between changes it sends keep-alives only). How soon: ``bench/bench_live.py``
    (issue 6: every open page within 1 s)."""
    status, t = server.post("/api/tables", {"game": "stigespill", "players": 3, "deal": "app"})
    assert status == 201
    token = t["players"][1]["url"].rsplit("/", 1)[1]
    pages = [EventReader(server.port, f"/api/tables/{t['id']}/events") for _ in range(3)]
    pages.append(EventReader(server.port, f"/api/p/{token}/events"))
    try:
        for p in pages:
            assert p.next()["moves_made"] == 0
        status, reply = server.post(f"/api/tables/{t['id']}/moves", {"move": {"kind": "draw"}})
        assert status == 200 and reply["moves_made"] >= 2  # the draw, the card(s) revealed
        for p in pages:  # each waits up to WAIT_S for its push (TimeoutError without one)
            snap = p.next()
            assert snap["moves_made"] == reply["moves_made"]
            assert snap["table"]["number"] == reply["table"]["number"]
        assert snap["seat"] == 1 and snap["to_move"] == 1 and "drew" in snap["last"]
    finally:
        for p in pages:
            p.close()


def test_kill_9_mid_play_loses_no_accepted_move(tmp_path):
    server = Server(tmp_path / "data").start()
    try:
        status, t = server.post("/api/tables", {"game": "stigespill", "players": 4, "deal": "app"})
        tid = t["id"]
        for cycle in range(3):
            acked: list[tuple[int, int]] = []  # (game number, moves made) the server confirmed
            stop = threading.Event()

            def play(acked=acked, stop=stop):
                # keep playing until the server dies under us; remember what it confirmed
                while not stop.is_set():
                    try:
                        status, snap = server.post(
                            f"/api/tables/{tid}/moves", {"move": {"kind": "draw"}}
                        )
                        if status == 409:  # the game ended: start the next one
                            server.post(f"/api/tables/{tid}/next")
                    except (OSError, http.client.HTTPException):  # refused, or cut short
                        return
                    if status == 200:
                        acked.append((snap["table"]["number"], snap["moves_made"]))

            players = [threading.Thread(target=play) for _ in range(2)]
            for p in players:
                p.start()
            deadline = time.monotonic() + WAIT_S
            while len(acked) < 15 + 7 * cycle and time.monotonic() < deadline:
                time.sleep(0.005)
            server.kill9()  # while both players are still sending moves
            stop.set()
            for p in players:
                p.join(WAIT_S)
            assert len(acked) >= 15, f"cycle {cycle}: only {len(acked)} moves confirmed"
            server.start()
            snap = server.get(f"/api/tables/{tid}")  # rebuilt by replaying the log
            log = server.get(f"/api/tables/{tid}/log")
            number = snap["table"]["number"]
            assert number >= max(n for n, _ in acked)
            confirmed = [m for n, m in acked if n == number]
            assert len(log["moves"]) == snap["moves_made"] >= max(confirmed, default=0)
        status, _ = server.post(f"/api/tables/{tid}/moves", {"move": {"kind": "draw"}})
        assert status in (200, 409)  # play goes on after the restarts
    finally:
        server.stop()

"""The demo table that ``make run`` opens: a game that plays itself, so a newcomer sees the
live page move without a camera or any set-up.

With the vision stack and the scene generator installed, the demo is a rendered game video
watched by the camera pipeline (rendered once into the data folder). Without them it is a
simulated game: a producer thread makes the referee's greedy moves at a gentle pace and
starts a new game a little after each one ends.
"""

from __future__ import annotations

import json
import logging
import os
import random
import threading
from pathlib import Path
from typing import Any

from flask import Flask

from referee import CHANCE, IllegalMove
from webui import games, pipeline_adapter

log = logging.getLogger("kortbord.web.demo")

DEMO_NAME = "Demo"
DEMO_NAMES = ["Anna", "Bo", "Cecilie"]
DEMO_SEED = 7
DEMO_MOVES = 60  # a video of about a minute and a half
WATCH_POLL_S = 0.5  # how often the demo video, unwatched, looks for a page opening its table


def find_demo(app: Flask) -> str | None:
    """Return the id of the demo table, if there is one, on the lists or taken off them (a
    demo removed from the list stays removed: a new one was made at each start)."""
    store = app.extensions["kortbord.hub"].store
    for row in [*store.list_tables(), *store.list_tables(removed=True)]:
        if row["name"] == DEMO_NAME:
            return row["id"]
    return None


def demo_video_ready(data_dir: Path) -> bool:
    """Return whether the demo's video is rendered in ``data_dir/demo`` already."""
    out = data_dir / "demo"
    return (out / "events.json").is_file() and (out / "frames").is_dir()


def render_demo_video(data_dir: Path) -> Path | None:
    """Return the folder of a rendered Stigespill game video in ``data_dir/demo`` (rendered
    on first use: frames, labels, events.json), or ``None`` without the generator."""
    out = data_dir / "demo"
    if demo_video_ready(data_dir):
        return out
    try:
        from vision.synth.video import VideoSettings, make_video
    except ImportError:
        return None
    try:
        log.info("rendering the demo video into %s (once)", out)
        settings = VideoSettings(size=(960, 540), jpeg=80)
        make_video(
            "stigespill", len(DEMO_NAMES), DEMO_SEED, out, settings=settings, max_moves=DEMO_MOVES
        )
        return out
    except Exception as e:  # a broken generator must not stop the app from starting
        log.warning("could not render the demo video: %s", e)
        return None


def ensure_demo(app: Flask, video: bool = True) -> str:
    """Create the demo table if missing; start what drives it; return its id.

    With the video stack: a table watching the rendered video through the camera pipeline,
    replayed from the start a little after it ends. Without: a game that plays itself.
    """
    hub = app.extensions["kortbord.hub"]
    table_id = find_demo(app)
    folder = render_demo_video(Path(app.config["DATA_DIR"])) if video else None
    events = None
    if folder is not None and pipeline_adapter.available():
        events = json.loads((folder / "events.json").read_text())
    if table_id is None:
        form = {"players": len(DEMO_NAMES), "names": DEMO_NAMES, "deal": "table"}
        setup = games.parse_setup("stigespill", form)
        if events is not None:
            table_id = hub.create(
                setup, source=f"video:{folder}", name=DEMO_NAME, initial=events["initial"]
            )["id"]
        else:
            table_id = hub.create(setup, name=DEMO_NAME)["id"]
    rt = hub.get(table_id)
    old = app.extensions.get("kortbord.demo")
    if old is not None and old.thread.is_alive():
        return table_id
    if rt.table["source"].startswith("video:") and events is not None:
        driver: VideoLoop | AutoPlayer = VideoLoop(app, table_id, events["initial"])
    else:
        pace = float(os.environ.get("KORTBORD_DEMO_PACE", "1.6"))
        driver = AutoPlayer(app, table_id, pace_s=pace, pause_s=max(2.0, 5 * pace))
    app.extensions["kortbord.demo"] = driver.start()
    return table_id


class VideoLoop:
    """Keeps the demo video playing: when it ends, a new game from the video's start. Each
    pass waits for a page to watch the demo table: reading a video nobody sees cost a tenth
    of a core, and whoever opens the table then sees the game from its first picture."""

    def __init__(self, app: Flask, table_id: str, initial: dict[str, Any], pause_s: float = 8.0):
        self.app = app
        self.table_id = table_id
        self.initial = initial
        self.pause_s = pause_s
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name=f"demo-video-{table_id}", daemon=True)

    def start(self) -> VideoLoop:
        """Start the driver thread; return self."""
        self.thread.start()
        return self

    def _run(self) -> None:
        cameras = self.app.extensions["kortbord.cameras"]
        hub = self.app.extensions["kortbord.hub"]
        while not self.stop.is_set():
            if hub.get(self.table_id).moves:
                # The video always starts from its first picture: so does the game (and,
                # unwatched, the demo waits as a game in progress, not one won long ago).
                hub.restart(self.table_id, self.initial)
            while not hub.broadcaster.watchers(self.table_id):
                if self.stop.wait(WATCH_POLL_S):
                    return
            cam = cameras.ensure(self.table_id)
            if cam is None:
                return
            cam.thread.join()
            if self.stop.wait(self.pause_s):
                return


class AutoPlayer:
    """Plays a table by itself: the greedy move, chance from a seeded generator."""

    def __init__(self, app: Flask, table_id: str, pace_s: float = 1.6, pause_s: float = 8.0):
        self.app = app
        self.table_id = table_id
        self.pace_s = pace_s
        self.pause_s = pause_s
        self.stop = threading.Event()
        self.rng = random.Random(table_id)
        self.thread = threading.Thread(target=self._run, name=f"demo-{table_id}", daemon=True)

    def start(self) -> AutoPlayer:
        """Start the driver thread; return self."""
        self.thread.start()
        return self

    def step(self) -> bool:
        """Make one move (or start the next game); return whether something changed."""
        hub = self.app.extensions["kortbord.hub"]
        rt = hub.get(self.table_id)
        rules, state = rt.rules, rt.state
        if rules.is_over(state):
            hub.next_game(self.table_id)
            return True
        seat = rules.to_move(state)
        move = (
            rules.chance_move(state, self.rng)
            if seat == CHANCE
            else rules.greedy_move(state, self.rng)
        )
        moves: list[dict[str, Any]] = [move.to_json()]
        try:
            hub.play(self.table_id, moves, source="demo")
        except IllegalMove as e:  # someone tapped in between: try again next tick
            log.info("demo move refused: %s", e)
            return False
        return True

    def _run(self) -> None:
        while not self.stop.is_set():
            hub = self.app.extensions["kortbord.hub"]
            over = hub.get(self.table_id).rules.is_over(hub.get(self.table_id).state)
            if self.stop.wait(self.pause_s if over else self.pace_s):
                return
            try:
                self.step()
            except Exception:
                log.exception("demo player stopped on table %s", self.table_id)
                return

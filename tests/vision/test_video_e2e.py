"""End to end: a generated game video, replayed through the pipeline, gives the true moves.

Small videos (640×360, a dozen moves) keep this quick; ``bench/bench_pipeline.py`` runs
the full games at 1280×720.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from vision.pipeline import GroundTruthRecognizer, recorded_game, replay_events, tracker_for
from vision.sources import FolderSource
from vision.synth.video import VideoSettings, make_video

SMALL = VideoSettings(size=(640, 360), fps=8.0)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("game", "players", "seed", "moves"),
    [("stigespill", 2, 3, 14), ("sten", 3, 2, 12), ("skipbo", 2, 5, 12)],
)
def test_replayed_video_gives_the_true_moves(tmp_path, game, players, seed, moves):
    events = make_video(game, players, seed, tmp_path, settings=SMALL, max_moves=moves)
    assert (tmp_path / "labels.jsonl").is_file()
    assert events["frames"] == len(list((tmp_path / "frames").glob("*.jpg")))
    transcript = replay_events(
        events,
        FolderSource(tmp_path / "frames", fps=events["fps"]).frames(),
        GroundTruthRecognizer(str(tmp_path / "labels.jsonl")),
    )
    assert transcript.moves == events["moves"]
    laid = [e for e in transcript.lines if e.get("event") == "laid"]
    assert laid, "the tracker reported no laid cards"
    # Every card laid during the game became a "laid" event within half a second.
    for truth in events["table_events"]:
        first = min(
            (e["time"] for e in laid if e["code"] == truth["code"] and e["time"] >= truth["time"]),
            default=None,
        )
        assert first is not None and first - truth["time"] <= 0.5, truth


@pytest.mark.slow
@pytest.mark.parametrize(("game", "seed"), [("skipbo", 3), ("stigespill", 9)])
def test_a_small_videos_camera_shake_is_no_camera_move(tmp_path, game, seed):
    """The browser tests' videos: 640×360, cards 19 to 27 px wide, a camera shaking 1.5 px.
    These the tracker read as knocked there and back, or sagged, each a shake: the camera
    kept still, and the view does."""
    settings = VideoSettings(size=(640, 360), jpeg=75, hold=1.0)
    events = make_video(game, 2, seed, tmp_path, settings=settings, max_moves=10)
    tracker = tracker_for(recorded_game(events)[0])
    truth = GroundTruthRecognizer(str(tmp_path / "labels.jsonl"))
    for frame in FolderSource(tmp_path / "frames", fps=events["fps"]).frames():
        tracker.update(truth(frame), frame.time, frame.image)
        assert tracker.view == (1, 0j), f"moved at {frame.time} s"


@pytest.mark.slow
def test_dataset_video_and_replay_commands(tmp_path):
    def run(*a: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "kortbord", *a], capture_output=True, text=True, timeout=300
        )

    done = run(
        "dataset",
        "video",
        "--game",
        "sten",
        "--players",
        "2",
        "--seed",
        "9",
        "--out",
        str(tmp_path),
        "--size",
        "640x360",
        "--max-moves",
        "6",
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["moves"] == 6
    done = run("replay", str(tmp_path), "--game", "sten", "--truth", "--json")
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["matches_recording"] is True and len(out["moves"]) == 6
    done = run("replay", str(tmp_path), "--game", "skipbo", "--truth")
    assert done.returncode == 2 and "sten game, not skipbo" in done.stderr


@pytest.fixture
def frames(tmp_path):
    """A folder of two table frames and their (empty) ground-truth labels: no recording."""
    import cv2
    import numpy as np

    folder = tmp_path / "frames"
    folder.mkdir()
    for i in range(2):
        cv2.imwrite(str(folder / f"{i:03d}.png"), np.full((36, 64, 3), 60, np.uint8))
    labels = folder / "labels.jsonl"
    labels.write_text("".join(json.dumps({"frame": i, "cards": []}) + "\n" for i in range(2)))
    return folder


@pytest.mark.parametrize("command", ["replay", "watch"])
@pytest.mark.parametrize(
    ("options", "says"),
    [
        (["--game", "skipbo", "--players", "7"], "Skip-Bo is for 2–6 players (4, 6 or 8 as"),
        (
            ["--game", "sten", "--players", "1"],
            "error: argument --players: expected a whole number 2–10 for Sten, not 1",
        ),
        (
            ["--game", "stigespill", "--players", "0"],
            "error: argument --players: expected a whole number 1–10, not 0",
        ),
    ],
)
def test_replay_and_watch_refuse_bad_options_before_reading_frames(
    frames, capsys, command, options, says
):
    from kortbord.cli import main

    try:
        code = main([command, str(frames), "--truth", *options])
    except SystemExit as e:  # argparse's refusal, as of any bad value
        code = e.code
    assert code == 2
    assert f"kortbord {command}: {says}" in capsys.readouterr().err


@pytest.mark.parametrize("command", ["replay", "watch"])
@pytest.mark.parametrize(
    ("events", "says"),
    [
        ("{", "not JSON (line 1, column 2)"),
        ("[1]", "not an object with the game's set-up"),
        ("[" * 100_000 + "]" * 100_000, "its JSON is nested too deeply"),
        ('{"fps": 8}', "no 'game' in it"),
        ('{"game": "sten", "config": 5, "initial": {}}', "config must be an object of settings"),
        ('{"game": "sten", "config": {"players": 2}, "initial": {}}', "not a Sten state"),
        ('{"game": "sten", "config": {}, "initial": {}, "fps": "x"}', "fps must be a number"),
        ('{"game": "zz", "config": {}, "initial": {}}', "unknown game 'zz'"),
    ],
)
def test_a_recordings_events_that_are_no_game_are_named(frames, capsys, command, events, says):
    from kortbord.cli import main

    (frames / "events.json").write_text(events)
    assert main([command, str(frames), "--game", "sten", "--truth"]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"kortbord {command}: {frames / 'events.json'} is no recording's events:")
    assert says in err and err.count("\n") == 1


def test_a_missing_video_is_named_before_its_labels(tmp_path, capsys):
    """``--truth`` looks for the labels beside the video: a mistyped video's name was lost
    behind "no ground-truth labels at …"."""
    from kortbord.cli import main

    video = tmp_path / "gmae.mp4"
    assert main(["replay", str(video), "--game", "sten", "--truth"]) == 2
    err = capsys.readouterr().err
    assert str(video) in err and "no such file or folder" in err and "labels" not in err


def test_watch_into_a_reader_that_went_away_stops_without_a_word(frames):
    """``kortbord watch … | head -1``: the lines it could not write end it quietly, exit 0."""
    import os

    read, write = os.pipe()
    os.close(read)  # the reader went away before the first line
    try:
        done = subprocess.run(
            [sys.executable, "-m", "kortbord", "watch", str(frames), "--game", "sten", "--truth"],
            stdout=write,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
        )
    finally:
        os.close(write)
    assert (done.returncode, done.stderr) == (0, "")


def test_replay_says_when_no_move_was_read(frames, capsys):
    from kortbord.cli import main

    assert main(["replay", str(frames), "--game", "sten", "--truth"]) == 0
    assert capsys.readouterr().out.strip() == "no moves were read"


@pytest.mark.parametrize(
    ("line", "says"),
    [
        ("not json", "line 2: not JSON (column 1)"),
        ('{"frame": 1}', 'line 2: not {"frame", "cards"}: no \'cards\''),
        ('{"frame": 1, "cards": [{"code": "ZZ", "corners": []}]}', "unknown card code 'ZZ'"),
        ("[" * 100_000 + "]" * 100_000, 'line 2: not {"frame", "cards"}: its JSON is nested'),
        ("[1]", 'line 2: not {"frame", "cards"}: a list, not an object'),
        # compared with a number only as the frame is read: a traceback there
        (
            '{"frame": 1, "cards": [{"code": "7S", "corners": [[0, 0], [1, 0], [1, 1], [0, 1]], '
            '"visible": "x"}]}',
            'line 2: not {"frame", "cards"}: \'visible\' must be a number',
        ),
    ],
)
def test_replay_names_a_bad_line_of_ground_truth_labels(frames, capsys, line, says):
    from kortbord.cli import main

    labels = frames / "labels.jsonl"
    labels.write_text(labels.read_text().splitlines()[0] + "\n" + line + "\n")
    assert main(["replay", str(frames), "--game", "sten", "--truth"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kortbord replay: bad ground-truth labels:") and says in err


def test_dataset_video_refuses_a_move_limit_below_one(tmp_path, capsys):
    from kortbord.cli import main

    with pytest.raises(SystemExit) as done:
        main(["dataset", "video", "--game", "sten", "--max-moves", "-1", "--out", str(tmp_path)])
    assert done.value.code == 2
    err = capsys.readouterr().err
    assert "argument --max-moves: expected a whole number 1 or more, not -1" in err
    assert not list(tmp_path.iterdir())


def test_dataset_video_refused_for_its_players_leaves_no_frames_folder(tmp_path, capsys):
    from kortbord.cli import main

    out = tmp_path / "video"
    with pytest.raises(SystemExit) as done:  # refused as argparse refuses a bad value
        main(["dataset", "video", "--game", "sten", "--players", "1", "--out", str(out)])
    assert done.value.code == 2
    assert "--players: expected a whole number 2–10 for Sten, not 1" in capsys.readouterr().err
    assert not (out / "frames").exists()


def test_dataset_video_into_a_folder_named_not_in_utf8_writes_its_frames_and_mp4(tmp_path):
    """``dataset video --out v\xe6 --mp4`` crashed in OpenCV ("Segmentation fault") at the
    first frame; run apart, as the crash took the whole process."""
    import os

    import cv2

    out = tmp_path / os.fsdecode(b"v\xe6")
    run = subprocess.run(
        [sys.executable, "-m", "kortbord", "dataset", "video", "--game", "sten", "--out",
         os.fsencode(out), "--size", "96x64", "--fps", "4", "--max-moves", "1", "--mp4"],
        capture_output=True, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    frames = len(list((out / "frames").glob("*.jpg")))
    (out / "video.mp4").rename(tmp_path / "video.mp4")  # for OpenCV to open
    video = cv2.VideoCapture(str(tmp_path / "video.mp4"))
    assert frames > 0 and video.get(cv2.CAP_PROP_FRAME_COUNT) == frames
    assert video.read()[1].shape == (64, 96, 3)


def test_replay_of_a_recording_reads_its_zones_option(tmp_path, capsys):
    """A generated video's set-up once made ``--zones`` unread: a missing file passed, and
    the zone map given was never used."""
    from kortbord.cli import main
    from referee import make_rules
    from vision.layouts.skipbo import Zone, ZoneMap
    from vision.pipeline import reader_for

    events = make_video("skipbo", 2, 5, tmp_path, settings=VideoSettings((320, 180)), max_moves=1)
    missing = tmp_path / "zones.json"
    assert main(["replay", str(tmp_path), "--game", "skipbo", "--truth", "--zones", str(missing)])
    assert f"bad --zones {str(missing)!r}" in capsys.readouterr().err
    # the zone map given is the one read through (not proposed from the stock cards)
    rules = make_rules("skipbo", **events["config"])
    state = rules.state_from_json(events["initial"])
    zones = ZoneMap((Zone("building", (100.0, 90.0)),), players=2, card_size=40.0)
    assert reader_for("skipbo", rules, state, zones=zones).zones is zones


def test_replay_names_ground_truth_labels_that_are_not_text(frames, capsys):
    from kortbord.cli import main

    labels = frames / "labels.jsonl"
    labels.write_bytes(b"\x89PNG\r\n")
    assert main(["replay", str(frames), "--game", "sten", "--truth"]) == 2
    err = capsys.readouterr().err
    assert err.strip() == f"kortbord replay: bad ground-truth labels: {labels} is not text (UTF-8)"


def test_replay_names_the_pictures_it_skipped_and_reads_the_others(frames, capsys):
    """A folder of frames with a picture that would not read was replayed without a word of
    it, and exit 0: the transcript may lack the moves that picture showed."""
    from kortbord.cli import main

    (frames / "002.png").write_text("not a picture")
    assert main(["replay", str(frames), "--game", "sten", "--truth", "--json"]) == 1
    out, err = capsys.readouterr()
    assert json.loads(out)["moves"] == []
    assert err.strip() == f"kortbord replay: {frames}: skipped 002.png: not a readable image"
    (frames / "002.png").unlink()
    assert main(["replay", str(frames), "--game", "sten", "--truth"]) == 0
    assert capsys.readouterr().err == ""

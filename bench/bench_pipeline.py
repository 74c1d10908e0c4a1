"""Camera pipeline benchmark: exact transcripts, event latency and frame rate on generated videos.

For each game type, renders ``--games`` seeded videos (kept in ``--cache``, so a second run
only replays), runs the pipeline over each one with the generator's ground-truth detections
(``--recognizer truth``) or the real recognizer (``model``), and prints one JSON object:
per game type the share of games whose transcript equals the true move list exactly, the
p50/p95 latency from a card landing on the table to its event (video time: ``laid``, or
``moved`` for a card taken from one pile to another, as Skip-Bo plays from a discard or
stock pile onto a building pile), and
processed frames per second (pipeline alone, and with JPEG decoding).

    python -m bench.bench_pipeline --games 20 [--recognizer truth|model] [--cache DIR]
        [--camera-move turn5 --camera-move zoom0.92 … [--move-over SECONDS]]

``--camera-move`` follows each video again with the camera moved halfway through the game
(knocked aside, or over ``--move-over`` seconds like a drooping holder) and counts the games
still exact.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from bench import percentile
from bench.camera_moves import MOVES, moved_copy
from kortbord.cli import SEED, Number, size

if TYPE_CHECKING:
    import numpy as np

    from vision import pipeline
    from vision.detections import Detections
    from vision.synth import Deck

GAMES = ("stigespill", "sten", "skipbo")
# The options' numbers, checked as every kortbord command checks its own (--fps as `video`'s):
# --games 0 ended in a ZeroDivisionError, --roads -2 printed no roads, exit 0.
GAMES_COUNT = Number(int, 1)
ROADS = Number(int, 0)
FPS = Number(float, 1, 60)
MOVE_OVER = Number(float, 0)


def _latencies(truth_events: list[dict], lines: list[dict]) -> list[float]:
    """Return, per true laid card, the delay to the first later event that lays a card of
    its code: ``laid``, or ``moved`` (the card left one pile and landed on another)."""
    laid = [(e["time"], e["code"]) for e in lines if e.get("event") in ("laid", "moved")]
    used: set[int] = set()
    out = []
    for ev in truth_events:
        t0, code = ev["time"], ev["code"]
        for i, (t, c) in enumerate(laid):
            if i not in used and c == code and t >= t0 - 1e-6:
                used.add(i)
                out.append(t - t0)
                break
    return out


class Noisy:
    """Ground truth made imperfect like a recognizer: missed cards, misread codes, jitter.

    Per card and frame: ``miss`` chance to be left out, ``misread`` chance to get another
    code of the same game; corners move by ``jitter`` pixels.
    """

    wants_frame = True

    def __init__(self, base, miss: float, misread: float, jitter: float, seed: int) -> None:
        import numpy as np

        self.base, self.miss, self.misread, self.jitter = base, miss, misread, jitter
        self.rng = np.random.default_rng(seed)

    def __call__(self, frame):
        import numpy as np

        from vision.detections import Detections

        det = self.base(frame)
        keep, codes = [], []
        pool = sorted(set(det.codes)) or ["AS"]
        for i, code in enumerate(det.codes):
            if self.rng.random() < self.miss:
                continue
            if self.rng.random() < self.misread:
                code = str(self.rng.choice(pool))
            keep.append(i)
            codes.append(code)
        corners = det.corners[keep] + self.rng.normal(0, self.jitter, (len(keep), 4, 2))
        return Detections(corners.astype(np.float32), tuple(codes), np.ones(len(keep), np.float32))


def _equivalent(events: dict, moves: list[dict]) -> bool:
    """Return whether ``moves`` pass through the same positions as the true moves.

    Some different moves are the same at the table (laying one's last Sten card, or going
    out with it): narration aside, the positions agree.
    """
    from referee import make_rules

    rules = make_rules(events["game"], **events["config"])

    def positions(ms: list[dict]) -> list[dict]:
        state, out = rules.state_from_json(events["initial"]), []
        for m in ms:
            state = rules.apply(state, rules.move_from_json(m))
            out.append({k: v for k, v in rules.state_to_json(state).items() if k != "last"})
        return out

    try:
        return len(moves) == len(events["moves"]) and positions(moves) == positions(events["moves"])
    except Exception:
        return False


def run(
    games: int,
    recognizer: str,
    cache: Path,
    seed0: int,
    game_types: Sequence[str],
    size: tuple[int, int],
    fps: float,
    noise: tuple[float, float, float] | None = None,
    camera_moves: Sequence[str] = (),
    move_over: float = 0.0,
) -> dict:
    from vision.pipeline import GroundTruthRecognizer, VideoRecognizer, replay_events
    from vision.sources import FolderSource
    from vision.synth.video import VideoSettings, make_video

    settings = VideoSettings(size=size, fps=fps)
    model = None
    if recognizer == "model":
        from vision.recognizer import Recognizer

        model = Recognizer()
    result: dict = {"recognizer": recognizer, "size": list(size), "fps": fps, "games": {}}
    if noise is not None:
        result["noise"] = dict(zip(("miss", "misread", "jitter_px"), noise, strict=True))

    def follow(folder: Path, events: dict, seed: int):
        """Replay one video folder with a recognizer of its own (it follows the last frame's
        cards)."""
        rec: pipeline.Recognizer = (
            GroundTruthRecognizer(str(folder / "labels.jsonl"))
            if model is None
            else VideoRecognizer(model)
        )
        if noise is not None and model is None:
            rec = Noisy(rec, *noise, seed=seed)
        frames = FolderSource(folder / "frames", fps=events["fps"]).frames()
        return replay_events(events, frames, rec)

    for game in game_types:
        exact, same, failures, lat, frames, busy, wall = 0, 0, [], [], 0, 0.0, 0.0
        moved_tally: dict = {}  # camera move → exact games (and those exact unmoved too)
        render_s = 0.0
        for k in range(games):
            seed = seed0 + k
            players = 2 + k % 2
            folder = cache / f"{game}-{players}p-{seed}-{size[0]}x{size[1]}"
            events_path = folder / "events.json"
            if events_path.is_file():
                events = json.loads(events_path.read_text())
            else:
                t = time.perf_counter()
                events = make_video(game, players, seed, folder, settings=settings)
                render_s += time.perf_counter() - t
            t = time.perf_counter()
            tr = follow(folder, events, seed)
            wall += time.perf_counter() - t
            busy += tr.seconds
            frames += tr.frames
            ok = tr.moves == events["moves"]
            exact += ok
            same += ok or _equivalent(events, tr.moves)
            if not ok:
                i = next(
                    (
                        i
                        for i, (a, b) in enumerate(zip(tr.moves, events["moves"], strict=False))
                        if a != b
                    ),
                    min(len(tr.moves), len(events["moves"])),
                )
                failures.append(
                    {
                        "seed": seed,
                        "players": players,
                        "moves": len(events["moves"]),
                        "read": len(tr.moves),
                        "first_difference": i,
                    }
                )
            lat += _latencies(events["table_events"], tr.lines)
            print(
                f"{game} seed {seed}: {'exact' if ok else 'DIFFERS'} "
                f"({len(events['moves'])} moves, {tr.frames} frames)",
                file=sys.stderr,
                flush=True,
            )
            for kind in camera_moves:
                moved = cache / f"{folder.name}-{kind}-{move_over:g}s"
                if (moved / "events.json").is_file():
                    moved_events = json.loads((moved / "events.json").read_text())
                else:
                    moved_events = moved_copy(folder, moved, kind, move_over)
                moved_ok = follow(moved, moved_events, seed).moves == events["moves"]
                row = moved_tally.setdefault(kind, {"exact": 0, "unmoved_exact": 0, "lost": []})
                row["exact"] += moved_ok
                row["unmoved_exact"] += moved_ok and ok
                if not moved_ok:
                    row["lost"].append(seed)
                print(f"{game} seed {seed}, camera {kind}: {'exact' if moved_ok else 'DIFFERS'}",
                      file=sys.stderr, flush=True)  # fmt: skip
        result["games"][game] = {
            "games": games,
            "exact": exact,
            "exact_share": round(exact / games, 3),
            "equivalent": same,
            "failures": failures,
            "laid_events": len(lat),
            "latency_p50_s": round(percentile(lat, 0.5), 3) if lat else None,
            "latency_p95_s": round(percentile(lat, 0.95), 3) if lat else None,
            "frames": frames,
            "pipeline_fps": round(frames / busy, 1) if busy else None,
            "fps_with_decoding": round(frames / wall, 1) if wall else None,
            "render_seconds": round(render_s, 1),
        }
        if camera_moves:
            result["games"][game]["camera_moves"] = moved_tally
    return result


def roads(
    n: int,
    seed: int,
    size: tuple[int, int] = (1280, 720),
    recognizer: Callable[[np.ndarray], Detections] | None = None,
    decks: Sequence[Deck] = (),
) -> dict:
    """Read ``n`` rendered road scenes; per layout shape, count exact, flagged and wrong reads.

    With ground truth (the default) detections are the labels of cards at least 30% visible;
    rows are also read with the ``rows`` shape hint, since a grid of straight rows reads as
    text or as a serpentine equally well. ``decks``: real-art decks (``ImageDeck``) the
    scenes take in turn instead of a procedural deck (the same scenes otherwise).
    """
    import numpy as np

    from vision.detections import Detections
    from vision.layouts.road import RoadError, RoadReader
    from vision.synth import ProceduralDeck, SkipBoDeck, render
    from vision.synth.scene import sample_scene

    out: dict = {}
    for i in range(n):
        rng = np.random.default_rng([seed, i])
        deck: Deck = ProceduralDeck(int(rng.integers(40)))
        if decks:
            deck = decks[i % len(decks)]
        spec = sample_scene(rng, "road", [deck], SkipBoDeck(0), size)
        scene = render(spec)
        shape = spec.layout.info.get("shape", "?")
        road = sorted(
            (
                lab
                for lab in scene.labels
                if lab.role.get("role") == "road" and lab.code not in (None, "JK")
            ),
            key=lambda lab: lab.role["position"],
        )
        truth = [lab.code for lab in road]
        # Readable: every road card and the goal at least 30% in sight (not under a hand,
        # not outside the picture).
        readable = all(lab.visible >= 0.3 for lab in scene.labels if lab.role.get("role") == "road")
        if recognizer is None:
            det = Detections.from_list(
                [
                    {"code": lab.code, "corners": lab.corners.tolist()}
                    for lab in scene.labels
                    if lab.code and lab.visible >= 0.3
                ]
            )
        else:
            det = recognizer(scene.jpeg_image())
        for hint in ("auto", "rows") if shape == "rows" else ("auto",):
            key = shape if hint == "auto" else "rows (shape rows)"
            row = out.setdefault(
                key,
                {
                    "scenes": 0,
                    "exact": 0,
                    "flagged": 0,
                    "wrong": 0,
                    "readable": 0,
                    "readable_exact": 0,
                },
            )
            row["scenes"] += 1
            row["readable"] += readable
            try:
                reading = RoadReader(shape=hint).read(det)
            except RoadError:
                row["flagged"] += 1
                continue
            if not reading.ok:
                row["flagged"] += 1
            elif reading.road == truth:
                row["exact"] += 1
                row["readable_exact"] += readable
            else:
                row["wrong"] += 1
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print its JSON."""
    p = argparse.ArgumentParser(prog="bench_pipeline", description=__doc__.splitlines()[0])
    p.add_argument("--games", type=GAMES_COUNT, default=20, help="games per game type (default 20)")
    p.add_argument(
        "--recognizer",
        choices=("truth", "model"),
        default="truth",
        help="the generator's ground-truth detections (default) or the shipped recognizer",
    )
    p.add_argument(
        "--cache",
        type=Path,
        default=Path("runs/bench_videos"),
        help="where the rendered videos are kept for the next run (default runs/bench_videos)",
    )
    p.add_argument(
        "--seed",
        type=SEED,
        default=1000,
        help="seed of the first game (the next count up) and of the road scenes (default 1000)",
    )
    p.add_argument("--game", action="append", choices=GAMES, help="only these games")
    p.add_argument(
        "--size",
        type=size,
        default=(1280, 720),
        help="size WxH of the videos and road scenes (default 1280x720)",
    )
    p.add_argument("--fps", type=FPS, default=8.0, help="the videos' frame rate (default 8)")
    p.add_argument("--roads", type=ROADS, default=0, help="also read N rendered road scenes")
    p.add_argument(
        "--noise",
        default=None,
        metavar="MISS,MISREAD,JITTER",
        help="spoil the ground truth like a recognizer, e.g. 0.1,0.02,2",
    )
    p.add_argument("--roads-only", action="store_true", help="only the road scenes")
    p.add_argument(
        "--camera-move",
        action="append",
        default=[],
        choices=sorted(MOVES),
        help="also follow each video with the camera moved halfway (bench/camera_moves.py)",
    )
    p.add_argument(
        "--move-over",
        type=MOVE_OVER,
        default=0.0,
        metavar="SECONDS",
        help="the camera moves over this long (default 0: knocked, at once)",
    )
    p.add_argument(
        "--road-decks",
        nargs="+",
        type=Path,
        default=(),
        metavar="DIR",
        help="draw the road scenes with these real-art decks in turn (e.g. ../shared/decks/*/)",
    )
    args = p.parse_args(argv)
    w, h = args.size
    result: dict = {}
    if not args.roads_only:
        noise = None
        if args.noise:
            try:
                miss, misread, jitter = (float(v) for v in args.noise.split(","))
            except ValueError:  # not a number, or not three
                print(f"bad --noise {args.noise!r}: expected MISS,MISREAD,JITTER", file=sys.stderr)
                return 2
            noise = (miss, misread, jitter)
        result = run(
            args.games,
            args.recognizer,
            args.cache,
            args.seed,
            args.game or GAMES,
            (w, h),
            args.fps,
            noise,
            args.camera_move,
            args.move_over,
        )
    if args.roads:
        rec = None
        if args.recognizer == "model":
            from vision.layouts.road import road_detections
            from vision.recognizer import Recognizer

            model = Recognizer()
            rec = lambda image: road_detections(model, image)[0]  # noqa: E731
        from vision.synth import DeckError, ImageDeck

        try:
            decks = [ImageDeck(d) for d in args.road_decks]
        except DeckError as e:
            print(f"bad --road-decks: {e}", file=sys.stderr)
            return 2
        result["roads"] = roads(args.roads, args.seed, (w, h), rec, decks)
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

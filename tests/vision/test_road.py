"""Reading a Stigespill road: order along any reasonable layout, problems named clearly."""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys

import numpy as np
import pytest

from vision.layouts.road import ROAD_CODES, RoadError, RoadReader, StigespillReader
from vision.synth.layouts import road_slots
from vision.tracker import TableState, TrackedCard

W, H = 63.0, 88.0


def lay_road(shape: str, seed: int, angle: float = 0.0, squash: float = 1.0):
    """Return (cards as (code, quad) in random order, true road codes) for a road shape."""
    rng = np.random.default_rng(seed)
    slots = road_slots(rng, shape, 29, W, H)
    codes = [ROAD_CODES[i] for i in rng.permutation(28)] + ["JK"]
    a = math.radians(angle)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])
    cards = []
    for (x, y, deg), code in zip(slots, codes, strict=True):
        t = math.radians(deg + rng.normal(0, 2))
        r = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        box = np.array([[-W / 2, -H / 2], [W / 2, -H / 2], [W / 2, H / 2], [-W / 2, H / 2]])
        q = (box @ r.T + [x + rng.normal(0, 1.5), y + rng.normal(0, 1.5)]) @ rot.T
        q[:, 1] *= squash  # a tilted camera shortens one direction
        cards.append((code, q))
    order = rng.permutation(29)
    return [cards[i] for i in order], codes[:28]


@pytest.mark.parametrize(
    ("shape", "seed", "angle", "squash"),
    [
        ("serpentine", 1, 30, 0.8),
        ("uturn", 2, 200, 0.7),
        ("curve", 4, 95, 0.9),
        ("serpentine", 7, -60, 1.0),
    ],
)
def test_road_is_read_in_order_for_chain_layouts(shape, seed, angle, squash):
    cards, truth = lay_road(shape, seed, angle, squash)
    reading = RoadReader().read(cards)
    assert reading.ok, reading.problems
    assert reading.road == truth
    assert reading.goal == "JK"


def test_rows_read_like_text_with_the_rows_shape_and_flagged_in_auto():
    cards, truth = lay_road("rows", 3, 15)
    assert RoadReader(shape="rows").read(cards).road == truth
    auto = RoadReader().read(cards)
    assert any("shape rows" in n for n in auto.notes)  # a serpentine reading, said so


@pytest.mark.parametrize("angle", [90, 180])
def test_rows_whose_goal_lies_alone_in_the_first_row_counted_are_flagged_in_auto(angle):
    # 28 cards in rows of 7: the goal joker is a row of its own, counted first or last as the
    # picture is turned; either way the rows may run like text.
    cards, truth = lay_road("rows", 0, angle)
    auto = RoadReader().read(cards)
    assert auto.road != truth and auto.grid


@pytest.mark.parametrize("seed", [0, 1])
def test_rows_at_a_slant_read_as_a_snake_in_auto_are_flagged(seed):
    cards, _ = lay_road("rows", seed, 15)
    auto = RoadReader().read(_slanted(cards))
    assert auto.grid and any("shape rows" in n for n in auto.notes)


def _slanted(cards: list[tuple[str, np.ndarray]]) -> list[tuple[str, np.ndarray]]:
    """Return the cards as a phone held low at one corner sees them (rows converge)."""
    import cv2

    pts = np.concatenate([q for _, q in cards])
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    src = np.float32([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    dx, dy = (x1 - x0) * 0.35, (y1 - y0) * 0.2
    dst = np.float32([[x0 + dx, y0 + dy], [x1 - dx, y0], [x1, y1], [x0, y1]])
    h = cv2.getPerspectiveTransform(src, dst)
    return [(c, cv2.perspectiveTransform(q.reshape(1, 4, 2), h)[0]) for c, q in cards]


@pytest.mark.parametrize(("seed", "angle", "squash"), [(5, 0, 1.0), (6, 170, 0.8), (8, 40, 0.9)])
def test_a_spiral_is_read_winding_clockwise_unless_told_otherwise(seed, angle, squash):
    # On a grid, snakes through the same places are as short: only "one way round" tells.
    cards, truth = lay_road("spiral", seed, angle, squash)
    reading = RoadReader().read(cards)
    assert reading.ok, reading.problems
    assert reading.road == truth
    # The same road winding back: places mirrored, each card's corners still clockwise.
    mirrored = [(code, (q * [-1.0, 1.0])[[1, 0, 3, 2]]) for code, q in cards]
    assert RoadReader().read(mirrored).road != truth
    assert RoadReader(spiral="anticlockwise").read(mirrored).road == truth


def test_a_camera_game_starts_on_the_road_read_the_way_the_user_said_it_winds():
    from vision.pipeline import table_game

    cards, truth = lay_road("spiral", 5)
    mirrored = [(code, (q * [-1.0, 1.0])[[1, 0, 3, 2]]) for code, q in cards]
    table = TableState(
        0.0, tuple(TrackedCard(i, c, q, 0.0, 0.0) for i, (c, q) in enumerate(mirrored))
    )
    rules, _, _ = table_game("stigespill", 2, table, spiral="anticlockwise")
    assert [c.code for c in rules.road] == truth
    rules, _, _ = table_game("stigespill", 2, table)
    assert [c.code for c in rules.road] != truth


@pytest.mark.parametrize("seed", [15, 23])
def test_a_goal_near_a_tilted_camera_is_still_at_the_road(seed):
    # Under a steep camera near cards look big: distances count in local card sizes.
    import cv2

    cards, truth = lay_road("rows", seed)
    pts = np.concatenate([q for _, q in cards])
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    goal_low = dict(cards)["JK"].mean(axis=0)[1] > (y0 + y1) / 2
    near, far = (y1, y0) if goal_low else (y0, y1)  # widen the goal's side four times
    src = np.float32([[x0, far], [x1, far], [x1, near], [x0, near]])
    mid, half = (x0 + x1) / 2, (x1 - x0) / 2
    dst = np.float32([[mid - half / 4, far], [mid + half / 4, far], [x1, near], [x0, near]])
    h = cv2.getPerspectiveTransform(src, dst)
    tilted = [(c, cv2.perspectiveTransform(q.reshape(1, 4, 2), h)[0]) for c, q in cards]
    reading = RoadReader(shape="rows").read(tilted)
    assert reading.ok, reading.problems
    assert reading.goal == "JK" and reading.road == truth


@pytest.mark.parametrize("seed", [3, 15])
def test_rows_seen_at_a_slant_are_split_on_the_table_not_in_the_picture(seed):
    # A phone held low at one corner of the table: rows turned 30° converge towards the far
    # side, so across the picture they no longer lie a row's spacing apart.
    cards, truth = lay_road("rows", seed, 30)
    reading = RoadReader(shape="rows").read(_slanted(cards))
    assert reading.ok, reading.problems
    assert reading.road == truth


@pytest.mark.parametrize(("seed", "angle"), [(3, 0), (15, 10), (8, -5)])
def test_rows_seen_so_low_that_cards_look_wider_than_tall_are_still_rows(seed, angle):
    # A phone held low: every card looks wider than it is tall. Its outline still starts at
    # its index corner, on a short side, and that, not how its sides look, says which is which.
    cards, truth = lay_road("rows", seed, angle, squash=0.55)
    reading = RoadReader(shape="rows").read(cards)
    assert reading.ok, reading.problems
    assert reading.road == truth


def test_missing_and_doubled_cards_are_named():
    cards, _ = lay_road("uturn", 5)
    without = [(c, q) for c, q in cards if c != "QH"]
    reading = RoadReader().read(without)
    assert not reading.ok
    assert "missing: QH" in reading.problems
    doubled = [*without, ("9C", without[0][1] + [0, 400])]
    problems = RoadReader().read(doubled).problems
    assert any(p.startswith("doubled: 9C") for p in problems)


@pytest.mark.parametrize(
    ("shape", "seed", "places"),
    [
        ("uturn", 0, (17,)),
        ("spiral", 4, (17,)),
        ("uturn", 1, (9, 10)),
        ("uturn", 0, (17, 23)),
        ("spiral", 1, (17, 23)),
    ],
)
def test_a_road_with_cards_not_seen_is_read_in_order_or_said_to_be_unclear(shape, seed, places):
    """The gaps cards not seen leave led the chain elsewhere: the cards read in a wrong order
    and nothing said so (two cards not seen, side by side or apart, were not looked at). Read
    again with the cards put in the empty places beside the road each way they can lie, the
    U-turns' readings all agree, and that is their order; the spirals' differ, and the
    reading says where."""
    cards, truth = lay_road(shape, seed)
    gone = sorted((truth[k] for k in places), key=ROAD_CODES.index)
    reading = RoadReader().read([(c, q) for c, q in cards if c not in gone])
    assert not reading.ok and f"missing: {' '.join(gone)}" in reading.problems
    unclear = [p for p in reading.problems if p.startswith("ambiguous order")]
    if shape == "uturn":
        assert reading.road == [c for c in truth if c not in gone] and not unclear
    else:
        assert len(unclear) == 1 and "differ first at road card" in unclear[0]


def test_a_road_of_small_cards_that_cannot_be_read_says_a_closer_camera_helps():
    cards, _ = lay_road("serpentine", 3)
    hint = (
        "the cards are about 30 px wide in the picture: "
        "a camera closer to the table reads them better"
    )
    for scale in (1.0, 30 / W):  # the cards 63 px wide in the picture, then 30
        without_qh = [(c, q * scale) for c, q in cards if c != "QH"]
        problems = RoadReader().read(without_qh).problems
        assert (hint in problems) == (scale < 1), problems
        # a road read whole says nothing of the cards' size
        whole = RoadReader().read([(c, q * scale) for c, q in cards])
        assert whole.ok and whole.problems == []


def lay_ring() -> list[tuple[str, np.ndarray]]:
    """Return the road and its goal joker laid in a circle, as (code, quad)."""
    codes = [*ROAD_CODES, "JK"]
    radius = len(codes) * 80 / (2 * math.pi)
    box = np.array([[-W / 2, -H / 2], [W / 2, -H / 2], [W / 2, H / 2], [-W / 2, H / 2]])
    cards = []
    for k, code in enumerate(codes):
        t = 2 * math.pi * k / len(codes)
        turn = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
        cards.append((code, box @ turn.T + [radius * math.cos(t), radius * math.sin(t)]))
    return cards


def test_a_ring_of_cards_walkable_either_way_from_the_goal_is_ambiguous():
    """Laid in a circle, the road may start on either side of the goal joker: the reader
    says so, naming the two cards the readings start at, and does not guess."""
    reading = RoadReader().read(lay_ring())
    assert not reading.ok
    (problem,) = [p for p in reading.problems if p.startswith("ambiguous order")]
    assert "road card 1" in problem
    assert {ROAD_CODES[0], ROAD_CODES[-1]} == set(problem.split("(")[1].rstrip(")").split(" or "))


def test_no_goal_joker_is_a_problem():
    cards, _ = lay_road("uturn", 6)
    reading = RoadReader().read([(c, q) for c, q in cards if c != "JK"])
    assert not reading.ok
    assert any("no goal joker" in p for p in reading.problems)


def test_die_and_discard_cards_are_not_road_cards():
    cards, truth = lay_road("serpentine", 8)
    far = np.array([[-900, 0], [-837, 0], [-837, 88], [-900, 88]], float)
    cards += [("5H", far), ("JK", far + np.array([0.0, 200.0]))]  # discard pile and a drawn joker
    reading = RoadReader().read(cards)
    assert reading.ok and reading.road == truth
    assert [p["code"] for p in reading.piles] == ["5H"]


def test_no_road_at_all_is_an_error():
    with pytest.raises(RoadError, match="no road found"):
        RoadReader().read([("5H", np.zeros((4, 2)))])


def test_discard_reader_tells_the_goal_from_a_drawn_joker():
    cards, _ = lay_road("uturn", 9)
    tracked = [TrackedCard(i, c, q, 0.0, 0.0) for i, (c, q) in enumerate(cards)]
    reader = StigespillReader()
    assert reader.observe(TableState(0.0, tuple(tracked))) == {"discard": None, "also": ()}
    far = np.array([[-900, 0], [-837, 0], [-837, 88], [-900, 88]], float)
    tracked += [TrackedCard(100, "4C", far, 1.0, 1.0), TrackedCard(101, "JK", far, 2.0, 2.0)]
    assert reader.observe(TableState(2.0, tuple(tracked))) == {"discard": "JK", "also": ()}


def test_discard_reader_ignores_a_card_read_on_the_road_itself():
    cards, _ = lay_road("rows", 9)
    tracked = [TrackedCard(i, c, q, 0.0, 0.0) for i, (c, q) in enumerate(cards)]
    reader = StigespillReader()
    far = np.array([[-900, 0], [-837, 0], [-837, 88], [-900, 88]], float)
    tracked.append(TrackedCard(100, "3D", far, 1.0, 1.0))
    # An outline half on one road card and half beside it, read as a 4♣.
    on_road = next(q for c, q in cards if c in ROAD_CODES)
    phantom = on_road + np.array([W / 2, 0.0])
    tracked.append(TrackedCard(101, "4C", phantom, 2.0, 2.0))
    assert reader.observe(TableState(2.0, tuple(tracked))) == {"discard": "3D", "also": ()}


def test_a_camera_started_mid_game_takes_the_games_top_card_for_the_piles_top():
    """A camera started during a game (the server started again) sees the discard pile's
    cards all at once, in no order: the game's own top card is taken to lie on the others,
    not a lower card, which left the table out of sync until the next draw."""
    from referee import make_rules
    from referee.core import CHANCE
    from vision.pipeline import Guard

    cards, road = lay_road("uturn", 9)
    rules = make_rules("stigespill", players=2, road=road)
    state = rules.initial_state(random.Random(0))
    for card in ("2S", "3S"):  # two draws: 3♠ lies on 2♠
        while rules.to_move(state) != CHANCE:
            state = rules.apply(state, rules.legal_moves(state)[0])
        state = rules.apply(state, rules.move_from_json({"kind": "reveal", "card": card}))
    tracked = [TrackedCard(i, c, q, 0.0, 0.0) for i, (c, q) in enumerate(cards)]
    pile = np.array([[-900, 0], [-837, 0], [-837, 88], [-900, 88]], float)
    # confirmed in the same frame, the lower card last
    tracked += [TrackedCard(100, "3S", pile, 1.0, 1.0), TrackedCard(101, "2S", pile + 9, 1.0, 1.0)]
    table = TableState(1.0, tuple(tracked))
    guard = Guard(rules, state, StigespillReader())
    assert guard.update(table, 1.0) == [] and guard.finish(table, 9.0) == []
    # Without the game's word, seen together: either may lie on top.
    assert StigespillReader().observe(table) == {"discard": "2S", "also": ("3S",)}


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "kortbord", *args], capture_output=True, text=True, timeout=120
    )


def test_road_command_reads_a_rendered_road_scene(tmp_path):
    from vision.synth import ProceduralDeck, render
    from vision.synth.scene import sample_scene

    rng = np.random.default_rng(11)
    spec = sample_scene(rng, "road", [ProceduralDeck(0)], None)
    spec.layout.info["shape"] = spec.layout.info.get("shape")
    scene = render(spec)
    image = tmp_path / "road.jpg"
    image.write_bytes(scene.jpeg())
    (tmp_path / "road.json").write_text(json.dumps(scene.truth()))
    truth = [
        lab.code
        for lab in sorted(
            (lab for lab in scene.labels if lab.role.get("role") == "road" and lab.code != "JK"),
            key=lambda lab: lab.role["position"],
        )
    ]
    shape = spec.layout.info["shape"]
    args = ["road", str(image), "--json", "--truth"]
    if shape == "rows":
        args += ["--shape", "rows"]
    done = _cli(*args)
    assert done.returncode == 0, done.stdout + done.stderr
    out = json.loads(done.stdout)
    assert out["road"] == truth and out["goal"] == "JK"
    # Take a card away: a non-zero exit with a JSON error naming it.
    data = scene.truth()
    data["cards"] = [c for c in data["cards"] if c["code"] != truth[5]]
    (tmp_path / "road.json").write_text(json.dumps(data))
    done = _cli(*args)
    assert done.returncode == 1
    err = json.loads(done.stdout)
    assert f"missing: {truth[5]}" in err["error"]


def _readings(cards: list[tuple[str, np.ndarray, float, dict[str, float]]]):
    """Return (detections, code probabilities, code names) for (code, quad, confidence,
    {code: probability}) cards."""
    from vision.detections import Detections
    from vision.recognizer import CLASS_NAMES

    names = CLASS_NAMES[:-1]
    probs = np.zeros((len(cards), len(names)))
    for row, (_, _, _, p) in zip(probs, cards, strict=True):
        for code, v in p.items():
            row[names.index(code)] = v
    det = Detections(
        np.array([q for _, q, _, _ in cards]),
        tuple(c for c, _, _, _ in cards),
        np.array([conf for _, _, conf, _ in cards]),
    )
    return det, probs, names


def _beside(k: int) -> np.ndarray:
    return np.array([[0, 0], [W, 0], [W, H], [0, H]], float) + np.array([k * (W + 10), 0])


def test_a_spade_read_as_a_club_whose_club_reads_surely_is_the_spade():
    from vision.layouts.road import settle_road_codes

    det, probs, names = _readings(
        [
            ("QC", _beside(0), 0.95, {"QC": 0.95, "QS": 0.02}),
            ("QC", _beside(1), 0.7, {"QC": 0.6, "QS": 0.3, "JC": 0.05}),
            ("5D", _beside(2), 0.8, {"5D": 0.8, "8D": 0.15}),  # an 8♦ read as a 5♦
            ("KC", _beside(3), 0.8, {"KC": 0.9, "KS": 0.03}),  # KS too unsure to be taken
        ]
    )
    settled, notes = settle_road_codes(det, probs, names)
    assert settled.codes == ("QC", "QS", "8D", "KC")
    assert notes == [
        "QS read by elimination: that card looks most like QC",
        "8D read by elimination: that card looks most like 5D",
    ]
    # It took 8D as no card read it; with the 8D read surely it is a die card, a 5♦.
    det, probs, names = _readings(
        [
            ("5D", _beside(0), 0.8, {"5D": 0.8, "8D": 0.15}),
            ("8D", _beside(1), 0.9, {"8D": 0.95}),
        ]
    )
    assert settle_road_codes(det, probs, names)[0].codes == ("5D", "8D")


def test_of_two_cards_reading_one_code_alike_neither_is_guessed_the_other_code():
    from vision.layouts.road import settle_road_codes

    def settle(second: dict[str, float]):
        det, probs, names = _readings(
            [
                ("KC", _beside(0), 0.9, {"KC": 0.8, "KS": 0.2}),
                ("KC", _beside(1), 0.8, second),
            ]
        )
        return settle_road_codes(det, probs, names)

    # The second as K♠ is 2.7 times as likely as the first as K♠: it is the K♠.
    settled, notes = settle({"KC": 0.6, "KS": 0.4})
    assert settled.codes == ("KC", "KS") and len(notes) == 1
    # At 1.33 times it is a toss-up: both stay K♣, and the road reports K♣ doubled.
    settled, notes = settle({"KC": 0.75, "KS": 0.25})
    assert settled.codes == ("KC", "KC") and notes == []


def test_settled_codes_leave_out_unsure_doubles_and_keep_sure_ones_for_the_road_to_report():
    from vision.layouts.road import settle_road_codes

    det, probs, names = _readings(
        [
            ("9H", _beside(0), 0.9, {"9H": 0.9}),
            ("9H", _beside(1), 0.3, {"9H": 0.4, "AC": 0.3}),  # an unsure phantom: left out
            ("JS", _beside(2), 0.9, {"JS": 0.9}),
            ("JS", _beside(3), 0.8, {"JS": 0.85}),  # two sure readings: two cards
            ("JK", _beside(4), 0.9, {"JK": 0.9}),
        ]
    )
    settled, notes = settle_road_codes(det, probs, names)
    assert settled.codes == ("9H", "JS", "JS", "JK") and notes == []
    assert np.allclose(settled.corners[1], _beside(2))
    # One card read twice, under two codes (two outlines of it), is one card: the surer.
    det, probs, names = _readings(
        [
            ("10S", _beside(0), 0.6, {"10S": 0.6, "10C": 0.3}),
            ("10C", _beside(0) + 3, 0.8, {"10C": 0.8, "10S": 0.1}),
        ]
    )
    settled, _ = settle_road_codes(det, probs, names)
    assert settled.codes == ("10C",) and np.allclose(settled.corners[0], _beside(0) + 3)


def test_an_outline_drawn_round_two_road_cards_is_no_third_card():
    from vision.layouts.road import settle_road_codes

    # The detector's outline round the 3rd and 4th cards, read (0.55) as the 9th card's code.
    cards, truth = lay_road("serpentine", 3)
    where = dict(cards)
    a, b = where[truth[2]], where[truth[3]]
    pts = np.concatenate([a, b])
    (x0, y0), (x1, y1) = pts.min(axis=0), pts.max(axis=0)
    round_two = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]])
    (det, probs, names), _ = _road_readings({}, extra=[(truth[8], round_two)])
    probs[-1, names.index(truth[8])] = 0.55
    det.confidence[-1] = 0.55
    settled, notes = settle_road_codes(det, probs, names)
    reading = RoadReader().read(settled)
    assert reading.ok, reading.problems
    assert reading.road == truth and notes == []
    # A card of that code lying on its own, surer than the road's, is a card: the road reports
    # it doubled (less sure, off the road, it is a misreading: see the test below).
    apart = round_two + np.array([0, 6 * H])
    (det, probs, names), _ = _road_readings({}, extra=[(truth[8], apart)])
    det.confidence[-1] = 0.95
    assert "doubled" in " ".join(
        RoadReader().read(settle_road_codes(det, probs, names)[0]).problems
    )


def outline_across(cards: list[tuple[str, np.ndarray]], a: str, b: str) -> np.ndarray:
    """Return an outline ``(4, 2)`` across the neighbouring cards of codes ``a`` and ``b``,
    holding neither whole: 1.4 times a card, centred between them (as a 640×360 frame's)."""
    where = dict(cards)
    quad = where[a]
    return (quad - quad.mean(axis=0)) * 1.4 + (quad.mean(axis=0) + where[b].mean(axis=0)) / 2


def test_an_outline_a_tracker_kept_on_road_cards_is_no_card():
    """A camera's tracker keeps an outline it read surely once (small cards: one across two,
    or a card read now and then as another) for good; the card of its code lying on its own
    is the road's."""
    cards, truth = lay_road("serpentine", 3)
    across = outline_across(cards, truth[2], truth[3])
    twin = dict(cards)[truth[5]] + [1.5, -1.0]  # the 6th card read as the 12th
    for misread in ((truth[8], across), (truth[11], twin)):
        laid = [*cards, misread]
        tracked = (TrackedCard(i, c, q, 0.0, 0.0) for i, (c, q) in enumerate(laid))
        reading = RoadReader().read(TableState(9.0, tuple(tracked)))
        assert reading.ok, reading.problems
        assert reading.road == truth
    # Two cards of one code lying on their own stay two: the road reports the code doubled.
    apart = across + np.array([0, 6 * H])
    assert "doubled: " + truth[8] in RoadReader().read([*cards, (truth[8], apart)]).problems


def _road_readings(swap: dict[int, str], conf: float = 0.9, extra=()):
    """Readings of a serpentine road (27 codes read surely, one card per road code) in which
    the cards at the indices of ``swap`` read other codes, and ``extra`` (code, quad) cards."""
    cards, truth = lay_road("serpentine", 3)
    where = {code: quad for code, quad in cards}
    rows = []
    for k, code in enumerate(truth):
        read = swap.get(k, code)
        rows.append((read, where[code], conf, {code: 0.02, read: conf}))
    rows.append(("JK", where["JK"], 0.9, {"JK": 0.9}))
    rows += [(code, quad, 0.9, {code: 0.9}) for code, quad in extra]
    return _readings(rows), truth


def test_a_lone_card_in_the_road_reading_a_die_code_is_the_one_road_code_left():
    from vision.layouts.road import settle_road_codes

    pile = _beside(0) - np.array([0, 3 * H])  # the discard pile, off the road: two cards
    discard = [("3C", pile), ("4D", pile + np.array([20, 25]))]
    (det, probs, names), truth = _road_readings({9: "5H"}, extra=discard)
    settled, notes = settle_road_codes(det, probs, names)
    assert notes == [f"{truth[9]} read by elimination: that card looks most like 5H"]
    assert RoadReader().read(settled).road == truth
    assert sorted(c for c in settled.codes if c not in ROAD_CODES) == ["3C", "4D", "JK"]

    # Not when a road card reads unsurely: it may be the misread one.
    (det, probs, names), _ = _road_readings({9: "5H"}, conf=0.45, extra=discard)
    assert "5H" in settle_road_codes(det, probs, names)[0].codes
    # Not when two such cards lie in the road: which one is the road card is unknown.
    x, y, _ = road_slots(np.random.default_rng(3), "serpentine", 30, W, H)[29]  # a free place
    card = np.array([[-W / 2, -H / 2], [W / 2, -H / 2], [W / 2, H / 2], [-W / 2, H / 2]])
    die = card + np.array([x, y])
    (det, probs, names), _ = _road_readings({9: "5H"}, extra=[("6S", die)])
    assert "5H" in settle_road_codes(det, probs, names)[0].codes
    # (That place is in the road: were the 5♥ not seen, the 6♠ would take the code left.)
    seen = [i for i, c in enumerate(det.codes) if c != "5H"]
    probs[det.codes.index("6S"), names.index(truth[9])] = 0.001  # a network's reading is never 0
    settled, _ = settle_road_codes(det[seen], probs[seen], names)
    assert truth[9] in settled.codes and "6S" not in settled.codes
    # Not a card alone beside the road, where the generator lays the discard pile (two card
    # widths from the first card), with a road card unseen.
    beside = card - np.array([2 * W, 0])
    (det, probs, names), truth = _road_readings({9: "5H"}, extra=[("2H", beside)])
    seen = [i for i, c in enumerate(det.codes) if c != "5H"]
    settled, notes = settle_road_codes(det[seen], probs[seen], names)
    assert notes == [] and "2H" in settled.codes and truth[9] not in settled.codes


def test_the_one_card_in_the_road_that_read_nothing_is_the_one_road_code_left():
    from vision.layouts.road import settle_road_codes

    cards, truth = lay_road("serpentine", 3)
    where = dict(cards)
    (det, probs, names), _ = _road_readings({})
    seen = [i for i, c in enumerate(det.codes) if c != truth[12]]
    unread = where[truth[12]][None]  # found by the detector, its index unreadable
    settled, notes = settle_road_codes(det[seen], probs[seen], names, unread)
    assert RoadReader().read(settled).road == truth
    assert notes == [f"{truth[12]} read by elimination: that card could not be read"]
    # It lies where the unread outline lies, as big as its neighbours (that outline may be
    # drawn round part of it), and its confidence says it was not read.
    k = settled.codes.index(truth[12])
    assert np.allclose(settled.corners[k].mean(axis=0), unread[0].mean(axis=0))
    assert np.allclose(np.ptp(settled.corners[k], axis=0), (W, H), rtol=0.1)
    assert settled.confidence[k] == 0

    # A card read unsurely as a code a surer card took is left out, and is that card too.
    (det2, probs2, _), _ = _road_readings({12: truth[11]})
    det2.confidence[12] = 0.3
    probs2[12, names.index(truth[11])] = 0.4
    settled, notes = settle_road_codes(det2, probs2, names)
    assert RoadReader().read(settled).road == truth
    assert notes == [f"{truth[12]} read by elimination: that card could not be read"]

    def fill(unread, seen=seen):
        return truth[12] in settle_road_codes(det[seen], probs[seen], names, unread)[0].codes

    # Not an unread outline off the road (a die card on the discard pile) ...
    assert not fill(unread + np.array([0, 8 * H]))
    # ... nor one lying on a read card (drawn round part of it), nor one of two in the road.
    assert not fill(where[truth[11]][None] + np.array([W / 3, 0]))
    x, y, _ = road_slots(np.random.default_rng(3), "serpentine", 30, W, H)[29]  # a free place
    card = np.array([[-W / 2, -H / 2], [W / 2, -H / 2], [W / 2, H / 2], [-W / 2, H / 2]])
    assert not fill(np.stack([unread[0], card + np.array([x, y])]))
    # Not when two road codes are left, nor when a road card may be the code left, read as
    # another: then the unread card may be that other code.
    assert not fill(unread, [i for i in seen if det.codes[i] != truth[13]])
    probs[seen[0], names.index(truth[12])] = probs[seen[0]].max() / 4
    assert not fill(unread)
    probs[seen[0], names.index(truth[12])] = probs[seen[0]].max() / 6
    assert fill(unread)


def test_an_unread_outline_beside_the_road_but_at_no_empty_place_is_not_the_card_not_seen():
    from vision.layouts.road import settle_road_codes

    cards, truth = lay_road("serpentine", 3)
    where = dict(cards)
    (det, probs, names), _ = _road_readings({})
    for k in (4, 17):
        seen = [i for i, c in enumerate(det.codes) if c != truth[k]]
        a, b = where[truth[k - 1]].mean(axis=0), where[truth[k + 1]].mean(axis=0)
        along = (b - a) / np.linalg.norm(b - a)
        # An outline a card's width off the road's side (another card, a card's shadow): the
        # card not seen lies in the road's gap, so the road there read no code in its place
        # (it read ok in a wrong order, the code put off the road's side).
        off = where[truth[k + 1 if k == 17 else k - 1]] - np.array([-along[1], along[0]]) * (W + 10)
        settled, _ = settle_road_codes(det[seen], probs[seen], names, off[None])
        assert truth[k] not in settled.codes
        reading = RoadReader().read(settled)
        assert not reading.ok and f"missing: {truth[k]}" in reading.problems
        # The outline in the gap is that card.
        settled, _ = settle_road_codes(det[seen], probs[seen], names, where[truth[k]][None])
        assert RoadReader().read(settled).road == truth


def test_what_an_unread_card_read_says_whether_it_or_a_road_card_is_the_code_left():
    from vision.layouts.road import settle_road_codes

    cards, truth = lay_road("serpentine", 3)
    (det, probs, names), _ = _road_readings({})
    seen = [i for i, c in enumerate(det.codes) if c != truth[12]]
    unread = dict(cards)[truth[12]][None]  # found by the detector, its index unreadable
    other = 11  # the card of truth[11] may be the code left too: by its reading, either may be
    probs[other, names.index(truth[12])] = probs[other].max() / 4
    read = np.zeros((1, len(names)))  # what the unread card's crops said, too unsure to count

    def settle(said: dict[str, float]):
        read[0] = 0
        for code, p in said.items():
            read[0, names.index(code)] = p
        return settle_road_codes(det[seen], probs[seen], names, unread, read)

    # It read the code left rather than the other card's code: it is the code left.
    settled, notes = settle({truth[12]: 0.2, truth[11]: 0.01})
    assert RoadReader().read(settled).road == truth
    assert notes == [f"{truth[12]} read by elimination: that card could not be read"]
    # It read the other card's code: that card is the code left, and it is that card's code.
    settled, notes = settle({truth[12]: 0.01, truth[11]: 0.2})
    assert settled.codes[seen.index(other)] == truth[12] and settled.codes[-1] == truth[11]
    assert notes == [
        f"{truth[12]} read by elimination: that card looks most like {truth[11]}",
        f"{truth[11]} read by elimination: that card could not be read",
    ]
    # Read alike, neither way is clearly likelier: the code stays missing.
    settled, notes = settle({truth[12]: 0.1, truth[11]: 0.1})
    assert truth[12] not in settled.codes and notes == []


def test_with_every_road_code_read_the_one_card_at_the_road_that_read_nothing_is_the_goal():
    from vision.layouts.road import settle_road_codes

    cards, truth = lay_road("serpentine", 3)
    goal = dict(cards)["JK"][None]  # a joker of a design the classifier never saw
    (det, probs, names), _ = _road_readings({})
    seen = [i for i, c in enumerate(det.codes) if c != "JK"]
    assert RoadReader().read(det[seen]).goal is None
    settled, notes = settle_road_codes(det[seen], probs[seen], names, goal)
    reading = RoadReader().read(settled)
    assert reading.ok and reading.road == truth and reading.goal == "JK"
    assert notes == ["JK read by elimination: that card could not be read"]

    def goal_found(unread, seen=seen):
        return "JK" in settle_road_codes(det[seen], probs[seen], names, unread)[0].codes

    # Not when a road code is unread too (which card is which is unknown), nor with two such
    # cards, nor when a road card may be the joker, nor for an outline away from the road.
    assert not goal_found(goal, [i for i in seen if det.codes[i] != truth[5]])
    x, y, _ = road_slots(np.random.default_rng(3), "serpentine", 30, W, H)[29]  # a free place
    card = np.array([[-W / 2, -H / 2], [W / 2, -H / 2], [W / 2, H / 2], [-W / 2, H / 2]])
    assert not goal_found(np.concatenate([goal, (card + np.array([x, y]))[None]]))
    assert not goal_found(goal + np.array([0, 8 * H]))
    probs[seen[3], names.index("JK")] = probs[seen[3]].max() / 4
    assert not goal_found(goal)


def test_an_unsure_joker_beside_the_sure_goal_joker_is_a_misread_discard():
    from vision.layouts.road import settle_road_codes

    cards, truth = lay_road("serpentine", 3)
    beside = dict(cards)["JK"] + np.array([0, 1.3 * H])  # a discard read JK, by the goal
    (det, probs, names), _ = _road_readings({}, extra=[("JK", beside)])
    det.confidence[-1] = 0.38
    assert "two jokers" in " ".join(RoadReader().read(det).problems)
    settled, _ = settle_road_codes(det, probs, names)
    reading = RoadReader().read(settled)
    assert reading.ok and reading.road == truth and settled.codes.count("JK") == 1
    # With the goal joker read unsurely too, which one is the goal is not known.
    det.confidence[det.codes.index("JK")] = 0.45
    assert not RoadReader().read(settle_road_codes(det, probs, names)[0]).ok


def test_of_two_cards_reading_one_code_the_one_likelier_the_code_left_takes_it():
    from vision.layouts.road import settle_road_codes

    twin = lay_road("serpentine", 3)[1][10]
    (det, probs, names), truth = _road_readings({9: twin})  # the 9th card read as the 10th
    settled, notes = settle_road_codes(det, probs, names)
    assert notes == [f"{truth[9]} read by elimination: that card looks most like {twin}"]
    assert RoadReader().read(settled).road == truth
    # Not when the other card is nearly as likely the code left: which one it is is unknown.
    other = next(i for i, c in enumerate(det.codes) if c == twin and i != 9)
    probs[other, names.index(truth[9])] = 0.01
    settled, notes = settle_road_codes(det, probs, names)
    assert notes == [] and settled.codes.count(twin) == 2


def test_two_codes_left_go_to_two_doubled_readings_when_one_way_is_clearly_likeliest():
    from vision.layouts.road import settle_road_codes

    truth = lay_road("serpentine", 3)[1]
    # The 4th card read as the 5th and the 10th as the 11th: two codes left, two doubled.
    (det, probs, names), _ = _road_readings({3: truth[4], 9: truth[10]})
    settled, notes = settle_road_codes(det, probs, names)
    assert RoadReader().read(settled).road == truth
    assert sorted(notes) == sorted(
        f"{truth[k]} read by elimination: that card looks most like {truth[k + 1]}" for k in (3, 9)
    )
    # Not when either pair is a toss-up: then neither is guessed.
    probs[10, names.index(truth[9])] = 0.01
    settled, notes = settle_road_codes(det, probs, names)
    assert notes == []
    assert settled.codes.count(truth[4]) == 2 and settled.codes.count(truth[10]) == 2


def test_a_gap_in_the_road_makes_the_reading_unusable():
    cards, truth = lay_road("uturn", 2)
    assert RoadReader().read(cards).ok
    # The road's second half slides far off: every card is there, but where the road goes
    # on from its 14th card is a guess.
    far = set(truth[14:]) | {"JK"}
    moved = [(c, q + np.array([0.0, 4 * H]) if c in far else q) for c, q in cards]
    reading = RoadReader().read(moved)
    assert not reading.ok
    assert any(p.startswith("gap in the road between") for p in reading.problems)


def _covered(quad: np.ndarray, shows: float, side: str) -> np.ndarray:
    """The outline of the part of a card that shows when it is covered from ``side``
    ("below" or "right", in the card's own frame) up to ``shows`` of its length."""
    q = np.asarray(quad, float).copy()
    top_left, top_right, bottom_right, bottom_left = quad
    if side == "below":
        q[3] = top_left + (bottom_left - top_left) * shows
        q[2] = top_right + (bottom_right - top_right) * shows
    else:
        q[1] = top_left + (top_right - top_left) * shows
        q[2] = bottom_left + (bottom_right - bottom_left) * shows
    return q


def test_a_covered_cards_short_outline_measures_steps_like_its_neighbours():
    from vision.layouts.road import _step_geometry

    row = np.array([[[x, 0.0], [x + W, 0.0], [x + W, H], [x, H]] for x in np.arange(5) * (W + 12)])
    whole, _ = _step_geometry(row)
    half = row.copy()
    half[2] = _covered(row[2], 0.5, "right")
    cut, _ = _step_geometry(half)
    # Measured in the half card's own frame and from the middle of its visible half, the
    # step to the neighbour under the cover came out over twice as long.
    assert cut[2, 3] == pytest.approx(whole[2, 3], rel=0.15)
    # Which side is covered is not known: no step from it comes out longer.
    assert cut[2, 1] <= whole[2, 1]


def test_cards_made_smaller_by_a_tilted_camera_are_not_taken_for_covered_ones():
    from vision.layouts.road import _step_geometry

    # A row going away from the camera: each card and gap a fifth smaller than the last.
    quads, x = [], 0.0
    for k in range(7):
        w, h = W * 0.8**k, H * 0.8**k
        quads.append(np.array([[x, 0.0], [x + w, 0.0], [x + w, h], [x, h]]))
        x += w + 12 * 0.8**k
    dist, _ = _step_geometry(np.array(quads))
    steps = [dist[k, k + 1] for k in range(6)]
    assert steps == pytest.approx([1.0] * 6, rel=0.05)


@pytest.mark.parametrize(("shape", "seed"), [("uturn", 2), ("uturn", 3), ("spiral", 6)])
def test_a_road_card_outlined_only_where_it_shows_leaves_the_road_as_it_is(shape, seed):
    # A hand or a chip over a card: the recognizer's outline is often its visible part.
    cards, truth = lay_road(shape, seed)
    for k, code in enumerate(truth):
        at = next(i for i, (c, _) in enumerate(cards) if c == code)
        covered = list(cards)
        covered[at] = (code, _covered(cards[at][1], 0.55, ("below", "right")[k % 2]))
        reading = RoadReader().read(covered)
        assert reading.ok and reading.road == truth, (code, reading.problems)


def test_two_cards_get_the_codes_that_make_both_readings_likelier_together():
    from vision.layouts.road import settle_road_codes

    det, probs, names = _readings(
        [
            ("KC", _beside(0), 0.7, {"KC": 0.5, "KS": 0.45}),
            ("KC", _beside(1), 0.6, {"KC": 0.45, "KS": 0.1}),
        ]
    )
    settled, notes = settle_road_codes(det, probs, names)
    assert settled.codes == ("KS", "KC")
    assert notes == ["KS read by elimination: that card looks most like KC"]


def test_a_phone_sized_road_photo_is_also_looked_at_at_a_larger_size():
    """The detector sees a phone's photo at 1920 px as well as 1280: a card half under a
    hand then shows to it as at 1280 px in a 720p photo. A smaller photo costs no more."""
    from types import SimpleNamespace

    from vision.detections import Detections
    from vision.layouts.road import BIG_PHOTO, BIG_PHOTO_SIZE, PHOTO_SIZE, road_detections

    asked = []

    class Recognizer:
        def recognize(self, image, min_confidence, *, sizes, **kw):
            asked.append(sizes)
            assert kw["far"] and kw["retry_unread"]
            return SimpleNamespace(
                detections=Detections.empty(),
                code_probs=np.zeros((0, 1)),
                code_names=("AS",),
                unread=np.zeros((0, 4, 2)),
                unread_probs=np.zeros((0, 1)),
            )

    for h, w in ((720, 1280), (BIG_PHOTO * 3 // 4, BIG_PHOTO), (3024, 4032)):
        road_detections(Recognizer(), np.zeros((h, w, 3), np.uint8))
    assert asked == [(PHOTO_SIZE,), (PHOTO_SIZE, BIG_PHOTO_SIZE), (PHOTO_SIZE, BIG_PHOTO_SIZE)]


def test_a_road_photos_codes_are_settled_once_when_no_gap_is_looked_in(monkeypatch):
    """The look for cards in the road's gaps settled the road's codes in each of its rounds,
    and road_detections settled them once more after it, on the same readings: a photo whose
    road misses no code the recognizer knows (no gap looked in) settles them once, and
    returns that settling (a 7♠ read twice, the less sure one as 8♠ by elimination)."""
    from vision import layouts
    from vision.detections import Detections
    from vision.layouts.road import road_detections, settle_road_codes
    from vision.recognizer import Recognition

    corners = np.array([[[x, 0], [x + 50, 0], [x + 50, 70], [x, 70]] for x in (0, 60, 120)])
    rec = Recognition(
        Detections(corners.astype(np.float32), ("7S", "7S", "9S"), np.float32([0.9, 0.6, 0.9])),
        code_probs=np.float32([[0.9, 0.05, 0.05], [0.55, 0.4, 0.05], [0.0, 0.1, 0.9]]),
        code_names=("7S", "8S", "9S"),
    )

    class Recognizer:
        def recognize(self, image, min_confidence, **kw):
            return rec

    settled = []

    def settle(*a, **kw):
        settled.append(settle_road_codes(*a, **kw))
        return settled[-1]

    monkeypatch.setattr(layouts.road, "settle_road_codes", settle)
    det, notes = road_detections(Recognizer(), np.zeros((720, 1280, 3), np.uint8))
    assert len(settled) == 1
    assert det.codes == ("7S", "8S", "9S") == settled[0][0].codes
    assert notes == ["8S read by elimination: that card looks most like 7S"] == settled[0][1]


def test_a_road_code_read_off_the_road_beside_a_surer_one_in_it_is_a_misreading():
    """The deck holds each road code once: a less sure reading of a road card's code on the
    die pile is something else misread, and the road reads whole. Surer than the road card,
    or in the road, it stays, and the road reports the code doubled."""
    from vision.layouts.road import settle_road_codes

    cards, truth = lay_road("serpentine", 3)
    off = dict(cards)[truth[5]] - np.array([0, 4 * H])  # below the road, on the table

    def road(conf: float, where: np.ndarray = off):
        (det, probs, names), _ = _road_readings({}, extra=[(truth[5], where)])
        det.confidence[-1] = conf
        return RoadReader().read(settle_road_codes(det, probs, names)[0])

    reading = road(0.6)
    assert reading.ok and reading.road == truth
    assert any(f"doubled: {truth[5]}" in p for p in road(0.95).problems)
    x, y, _ = road_slots(np.random.default_rng(3), "serpentine", 30, W, H)[29]  # a free place
    card = np.array([[-W / 2, -H / 2], [W / 2, -H / 2], [W / 2, H / 2], [-W / 2, H / 2]])
    assert any(f"doubled: {truth[5]}" in p for p in road(0.6, card + np.array([x, y])).problems)


def test_a_missing_truth_file_is_named_plainly(tmp_path):
    from kortbord.cli import CommandError
    from vision.cli import _image_truth

    with pytest.raises(CommandError) as e:
        _image_truth(str(tmp_path / "road.jpg"), "auto")  # its truth: road.json beside it
    assert str(e.value) == (
        f"cannot read ground truth {str(tmp_path / 'road.json')!r}: no such file or directory"
    )

"""The tracker: debounced presence, evidence-based removal, events with frame times."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.detections import Detections
from vision.relay import RelayWatch, _shake
from vision.tracker import TableModel, Tracker, card_size

TABLE = (40, 110, 30)  # BGR green felt
SKIN = (120, 160, 220)


def quad(cx: float, cy: float, w: float = 60, h: float = 90) -> np.ndarray:
    return np.array(
        [
            [cx - w / 2, cy - h / 2],
            [cx + w / 2, cy - h / 2],
            [cx + w / 2, cy + h / 2],
            [cx - w / 2, cy + h / 2],
        ],
        np.float32,
    )


def scene(cards: list[np.ndarray], hand: tuple[int, int] | None = None, seed: int = 0):
    rng = np.random.default_rng(seed)
    img = np.empty((360, 640, 3), np.uint8)
    img[:] = TABLE
    img = np.clip(img + rng.normal(0, 4, img.shape), 0, 255).astype(np.uint8)
    for q in cards:
        cv2.fillConvexPoly(img, q.astype(np.int32), (235, 235, 235))
    if hand is not None:
        cv2.ellipse(img, hand, (80, 60), 0, 0, 360, SKIN, -1)
    return img


def dets(*cards: tuple[str, np.ndarray]) -> Detections:
    return Detections.from_list([{"code": c, "corners": q.tolist()} for c, q in cards])


def read(*cards: tuple[str, np.ndarray, float]) -> Detections:
    """Return one frame's detections: (code, corners, confidence) per card."""
    return Detections(
        np.stack([q for _, q, _ in cards]),
        tuple(c for c, _, _ in cards),
        np.array([p for _, _, p in cards], np.float32),
    )


A = quad(150, 150)
B = quad(400, 150)


def run(tracker, frames, t0=0.0, dt=0.1):
    events = []
    for i, (d, img) in enumerate(frames):
        events += tracker.update(d, t0 + i * dt, img)
    return events


def test_card_becomes_present_only_after_consistent_sightings():
    tr = Tracker(confirm_hits=3, window=5)
    img = scene([A])
    assert tr.update(dets(("QS", A)), 0.0, img) == []
    assert tr.update(dets(("QS", A)), 0.1, img) == []
    events = tr.update(dets(("QS", A)), 0.2, img)
    assert [(e.kind, e.code, e.time) for e in events] == [("laid", "QS", 0.2)]
    assert tr.state.codes() == ["QS"]


def test_one_misread_frame_neither_creates_nor_removes():
    tr = Tracker()
    img = scene([A])
    run(tr, [(dets(("QS", A)), img)] * 4)
    # One frame reads the card as 9S (a misread), and one frame misses it entirely.
    events = run(tr, [(dets(("9S", A)), img), (dets(), img)] + [(dets(("QS", A)), img)] * 6, t0=1.0)
    assert events == []
    assert tr.state.codes() == ["QS"]


def test_hand_over_the_card_hides_it_without_removing_it():
    tr = Tracker()
    run(tr, [(dets(("QS", A), ("KH", B)), scene([A, B]))] * 4)
    hidden = scene([A, B], hand=(150, 150))
    events = run(tr, [(dets(("KH", B)), hidden)] * 15, t0=1.0)
    assert events == []
    assert sorted(tr.state.codes()) == ["KH", "QS"]


def test_card_taken_away_is_removed_once_its_place_is_visible():
    tr = Tracker(remove_frames=3)
    run(tr, [(dets(("QS", A), ("KH", B)), scene([A, B]))] * 4)
    gone = scene([B], seed=1)
    events = run(tr, [(dets(("KH", B)), gone)] * 5, t0=1.0)
    assert [(e.kind, e.code) for e in events] == [("removed", "QS")]
    assert events[0].time == 1.2  # third frame with the place visible
    assert "visible" in events[0].reason
    assert tr.state.codes() == ["KH"]


def test_card_laid_on_top_covers_the_one_below():
    tr = Tracker()
    run(tr, [(dets(("5H", A)), scene([A]))] * 4)
    top = quad(153, 152)
    events = run(tr, [(dets(("3C", top)), scene([top]))] * 8, t0=1.0)
    kinds = [(e.kind, e.code) for e in events]
    assert kinds == [("laid", "3C"), ("removed", "5H")]
    assert events[1].reason == "covered by 3C"
    assert tr.state.codes() == ["3C"]


def test_card_laid_a_little_turned_on_a_pile_covers_the_one_below():
    # Hands lay a pile's cards a few degrees and pixels off each other (and a recognizer's
    # outlines are a few pixels off): the lower card is still squarely under the new one.
    tr = Tracker()
    run(tr, [(dets(("5H", A)), scene([A]))] * 4)
    top = turned(A, 7.0) + np.float32([3.0, -2.0])
    events = run(tr, [(dets(("3C", top)), scene([top]))] * 8, t0=1.0)
    assert [(e.kind, e.code, e.reason) for e in events] == [
        ("laid", "3C", ""),
        ("removed", "5H", "covered by 3C"),
    ]


def test_a_hand_passing_over_a_covered_card_does_not_restart_the_evidence():
    tr = Tracker()
    run(tr, [(dets(("5H", A)), scene([A]))] * 4)
    top = quad(153, 152)
    # A card laid on the pile while hands keep passing: every other frame shows nothing there.
    hand = (dets(), scene([top], hand=(153, 152)))
    events = run(tr, [(dets(("3C", top)), scene([top])), hand] * 8, t0=1.0)
    assert [(e.kind, e.code, e.reason) for e in events] == [
        ("laid", "3C", ""),
        ("removed", "5H", "covered by 3C"),
    ]
    assert tr.state.codes() == ["3C"]


def test_card_moved_in_one_go_is_a_move_event():
    tr = Tracker()
    run(tr, [(dets(("QS", A)), scene([A]))] * 4)
    events = run(tr, [(dets(("QS", B)), scene([B]))] * 4, t0=1.0)
    assert [(e.kind, e.code) for e in events] == [("moved", "QS")]
    assert np.allclose(events[0].previous, A) and np.allclose(events[0].corners, B)


def test_card_in_motion_is_not_laid_until_it_rests():
    tr = Tracker()
    events = []
    for i in range(5):  # sliding across the table, 40 px per frame
        q = quad(100 + 40 * i, 200)
        events += tr.update(dets(("7D", q)), i * 0.1, scene([q]))
    assert events == []
    rest = quad(300, 200)
    events = run(tr, [(dets(("7D", rest)), scene([rest]))] * 3, t0=0.5)
    assert [(e.kind, e.code) for e in events] == [("laid", "7D")]


def test_card_read_in_every_other_frame_is_laid():
    # An unsure reading comes and goes between frames; the card lies still all along.
    tr = Tracker(confirm_hits=3, window=5)
    seen = (dets(("2D", A)), scene([A]))
    unseen = (dets(), scene([A]))
    events = run(tr, [seen, unseen, seen, unseen, seen, unseen])
    assert [(e.kind, e.code, round(e.time, 1)) for e in events] == [("laid", "2D", 0.4)]


def test_a_card_only_ever_read_unsurely_is_not_laid():
    tr = Tracker(min_confidence=0.3, sure_confidence=0.5)
    img = scene([A])

    def read(code, conf):
        return Detections(A[None], (code,), np.array([conf], np.float32))

    assert run(tr, [(read("JC", 0.4), img)] * 6) == []
    # The same card read surely once, then unsurely: present.
    events = run(tr, [(read("3C", 0.7), img)] + [(read("3C", 0.35), img)] * 3, t0=1.0)
    assert [(e.kind, e.code) for e in events] == [("laid", "3C")]


def test_a_lying_card_read_now_and_then_as_another_code_is_not_a_card_laid_on_it():
    tr = Tracker()
    img = scene([A])

    run(tr, [(read(("SB2", A, 0.71)), img)] * 4)
    # The 2 is read surely in every frame; a second outline a few pixels off reads it as a
    # 3 now and then, less surely: a misreading, not a 3 laid on the 2.
    both = read(("SB2", A, 0.71), ("SB3", A + 4.0, 0.55))
    events = run(tr, [(both, img), (read(("SB2", A, 0.7)), img)] * 4, t0=1.0)
    assert events == [] and tr.state.codes() == ["SB2"]
    # A 3 laid on the 2 is its top card and reads as surely: laid.
    events = run(tr, [(read(("SB2", A, 0.5), ("SB3", A + 4.0, 0.7)), img)] * 3, t0=2.0)
    assert [(e.kind, e.code) for e in events] == [("laid", "SB3")]


def test_a_lying_card_read_unsurely_round_more_than_itself_keeps_its_place():
    tr = Tracker()
    seven, nine = quad(150, 150), quad(215, 150)  # two piles side by side
    img = scene([seven, nine])

    plain = read(("SB7", seven, 0.7), ("SB9", nine, 0.7))
    run(tr, [(plain, img)] * 4)
    # For one frame the 7 is read, unsurely, in an outline drawn round it and most of the 9.
    wide = read(("SB7", quad(190, 150, 140, 95), 0.41), ("SB9", nine, 0.7))
    events = run(tr, [(wide, img)] + [(plain, img)] * 5, t0=1.0)
    # The 7 stays where it lies, and its own outline, read again, is not a second 7.
    assert events == [] and sorted(tr.state.codes()) == ["SB7", "SB9"]
    (lying,) = [c for c in tr.state.cards if c.code == "SB7"]
    assert np.allclose(lying.corners, seven)


def test_a_card_read_only_now_and_then_but_always_surely_is_laid():
    tr = Tracker()
    six, wild = quad(150, 150), quad(142, 162)  # a wild laid over most of a 6
    img = scene([six])

    run(tr, [(read(("SB6", six, 0.9)), img)] * 4)
    # The detector mostly draws one outline round both, read as the 6; the wild's own
    # outline shows in one frame of six, read unsurely: a misreading, never laid...
    unsure = [(read(("SB6", six, 0.6), ("SBW", wild, 0.6)), img)]
    unsure += [(read(("SB6", six, 0.6)), img)] * 5
    assert run(tr, unsure * 4, t0=1.0) == []
    # ... read surely each time: a card mostly hidden in the outline of the card below.
    sure = [(read(("SB6", six, 0.6), ("SBW", wild, 0.85)), img)]
    sure += [(read(("SB6", six, 0.6)), img)] * 5
    events = run(tr, sure * 3, t0=4.0)
    assert [(e.kind, e.code) for e in events] == [("laid", "SBW")]


def test_a_code_the_game_has_no_card_of_is_a_misreading():
    # A Sten game has no Skip-Bo cards: a 6♣ read as SB6 for a while neither becomes a card
    # nor covers the 6♣.
    tr = Tracker(codes=frozenset({"6C", "7C"}))
    img = scene([A])
    run(tr, [(dets(("6C", A)), img)] * 4)
    events = run(tr, [(dets(("SB6", A)), img)] * 6, t0=1.0)
    assert events == [] and tr.state.codes() == ["6C"]
    # Without the game's codes, the same readings lay an SB6 on the 6♣.
    tr = Tracker()
    run(tr, [(dets(("6C", A)), img)] * 4)
    events = run(tr, [(dets(("SB6", A)), img)] * 6, t0=1.0)
    assert [(e.kind, e.code) for e in events] == [("laid", "SB6"), ("removed", "6C")]


def test_a_card_laid_onto_a_card_outlined_small_is_laid():
    # The 8's outline was drawn short of its card, and it has not been seen since the 9 came
    # to lie on it: the 9's outline holds it, but the 8 lies under the 9, not beside it.
    tr = Tracker()
    small = quad(150, 150, 44, 66)
    run(tr, [(dets(("8D", small)), scene([A]))] * 4)
    events = run(tr, [(dets(), scene([A]))] * 6 + [(dets(("9D", A)), scene([A]))] * 8, t0=1.0)
    assert [(e.kind, e.code) for e in events] == [("laid", "9D"), ("removed", "8D")]


def test_two_cards_with_the_same_code_are_two_cards():
    tr = Tracker()
    events = run(tr, [(dets(("SB7", A), ("SB7", B)), scene([A, B]))] * 3)
    assert [e.code for e in events] == ["SB7", "SB7"]
    assert len(tr.state.cards) == 2


def test_table_model_tells_table_from_hand_and_card():
    model = TableModel()
    img = scene([B], hand=(400, 300))
    model.new_frame(img, [B])
    assert model.visible(A)  # bare table
    assert not model.visible(B)  # a card lies there
    assert not model.visible(quad(400, 300))  # a hand lies there


def test_seeded_cards_are_present_without_events():
    tr = Tracker()
    tr.seed([("QS", A)])
    assert tr.state.codes() == ["QS"]
    assert run(tr, [(dets(("QS", A)), scene([A]))] * 3) == []


def test_removal_still_works_after_the_light_dims():
    tr = Tracker()
    run(tr, [(dets(("QS", A), ("KH", B)), scene([A, B]))] * 4)
    dim = lambda img: (img * 0.6).astype(np.uint8)  # noqa: E731
    hidden = dim(scene([A, B], hand=(150, 150)))
    assert run(tr, [(dets(("KH", B)), hidden)] * 6, t0=1.0) == []
    gone = dim(scene([B], seed=2))
    events = run(tr, [(dets(("KH", B)), gone)] * 4, t0=2.0)
    assert [(e.kind, e.code) for e in events] == [("removed", "QS")]


def turned(q: np.ndarray, degrees: float) -> np.ndarray:
    c = q.mean(axis=0)
    a = np.radians(degrees)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    return ((q - c) @ rot.T + c).astype(np.float32)


def test_a_card_laid_squarely_on_one_of_its_own_code_is_seen():
    # Skip-Bo: a wild on a wild. Same code, same place; but no two cards land alike.
    tr = Tracker()
    run(tr, [(dets(("SBW", A), ("KH", B)), scene([A, B]))] * 4)
    on_top = turned(A, 3.0)
    events = run(tr, [(dets(("SBW", on_top), ("KH", B)), scene([on_top, B]))] * 4, t0=1.0)
    assert [(e.kind, e.code, e.reason) for e in events] == [("laid", "SBW", "onto a SBW")]
    # The table's cards come in the order they were laid: the wild laid last is last.
    assert [(c.code, c.relaid) for c in tr.state.cards] == [("KH", 0), ("SBW", 1)]


@pytest.mark.parametrize(("code", "hidden"), [("SB6", 1), ("SB9", 0)])
def test_a_card_covered_by_one_of_its_own_code_still_counts_under_it(code, hidden):
    # Skip-Bo: a discard laid near squarely on a card of its code. Seen beside it first, the
    # new card is a card of its own; once it covers the lower one, the pair shows as one
    # card, and the lower card counts as lying under it, as if laid onto it unseen. A card
    # of another code covering it hides nothing of its own code.
    tr = Tracker()
    run(tr, [(dets(("SB6", A), ("KH", B)), scene([A, B]))] * 4)
    top = A + np.float32([0.0, 8.0])
    run(tr, [(dets(("SB6", A), (code, top), ("KH", B)), scene([A, top, B]))] * 3, t0=1.0)
    assert [(c.code, c.relaid) for c in tr.state.cards] == [("SB6", 0), ("KH", 0), (code, 0)]
    events = run(tr, [(dets((code, top), ("KH", B)), scene([top, B]))] * 8, t0=2.0)
    assert [(e.kind, e.code, e.reason) for e in events] == [
        ("removed", "SB6", f"covered by {code}")
    ]
    assert [(c.code, c.relaid) for c in tr.state.cards] == [("KH", 0), (code, hidden)]


def test_camera_shake_is_not_a_card_laid_again():
    tr = Tracker()
    rng = np.random.default_rng(3)
    events = []
    for i in range(40):
        shake = rng.normal(0, 2.0, 2).astype(np.float32)  # the whole picture moves
        a, b = A + shake, B + shake
        events += tr.update(dets(("SBW", a), ("KH", b)), i * 0.1, scene([a, b]))
    assert [(e.kind, e.code) for e in events] == [("laid", "SBW"), ("laid", "KH")]
    assert all(c.relaid == 0 for c in tr.state.cards)


def bumped(q: np.ndarray, shift=(0.0, 0.0), degrees: float = 0.0, zoom: float = 1.0):
    """Return where a camera turned and zoomed about the picture's middle, then shifted,
    shows ``q``."""
    a = np.radians(degrees)
    rot = zoom * np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]], np.float32)
    middle = np.float32([320, 180])
    return ((q - middle) @ rot.T + middle + np.float32(shift)).astype(np.float32)


# Skip-Bo cards on a table: two 5s, a wild.
SKIPBO_TABLE = [
    ("SB5", quad(120, 100)),
    ("SBW", quad(240, 110)),
    ("SB5", quad(380, 120)),
    ("SB9", quad(180, 250)),
    ("SB2", quad(330, 260)),
]


def assert_as_first_seen(tr: Tracker, first) -> None:
    """The same cards lie where they were first seen, none laid again or laid onto."""
    assert tr.state.codes() == first.codes()
    for card, was in zip(tr.state.cards, first.cards, strict=True):
        assert card.id == was.id and card.relaid == 0
        assert np.allclose(card.corners, was.corners, atol=0.5)


@pytest.mark.parametrize(
    "bump",
    [
        {"shift": (70, 0)},  # a card's width: no card is found where it lay
        {"degrees": 4.0},
        {"zoom": 1.07},
        {"shift": (-40, 25), "degrees": -3.0, "zoom": 0.95},
    ],
)
def test_a_bumped_camera_carries_the_cards_along(bump):
    # The phone stand knocked: the whole view moves at once and stays so. No card was laid,
    # taken away or laid onto (Skip-Bo: two 5s, a wild); the table stays as first seen.
    table = SKIPBO_TABLE
    tr = Tracker()
    run(tr, [(dets(*table), scene([q for _, q in table]))] * 4)
    first = tr.state
    now = [(c, bumped(q, **bump)) for c, q in table]
    assert run(tr, [(dets(*now), scene([q for _, q in now]))] * 10, t0=1.0) == []
    assert_as_first_seen(tr, first)
    # What the page draws over the picture goes by the view now (Skip-Bo's zones).
    assert np.allclose(tr.to_view(first.cards[1].corners), now[1][1], atol=0.5)
    assert np.allclose(tr.to_table(now[1][1]), first.cards[1].corners, atol=0.5)
    # A card laid since lies, in the table as first seen, where it lies among the others.
    new = ("SB3", quad(470, 250))
    now.append((new[0], bumped(new[1], **bump)))
    events = run(tr, [(dets(*now), scene([q for _, q in now]))] * 4, t0=2.0)
    assert [(e.kind, e.code) for e in events] == [("laid", "SB3")]
    assert np.allclose(tr.state.cards[-1].corners, new[1], atol=0.5)


def knocked(cards: list, share: float = 1.0) -> list:
    """Return ``cards`` as a camera knocked aside (shifted, turned 4°, zoomed 5%) shows them,
    ``share`` of the way there."""
    move = {"shift": (-60.0 * share, 30.0 * share), "degrees": 4.0 * share}
    return [(c, bumped(q, **move, zoom=1 + 0.05 * share)) for c, q in cards]


def knock_changes_nothing(on_the_way: list) -> tuple[Tracker, list]:
    """Lay ``SKIPBO_TABLE``, knock the camera (``on_the_way``: the frames while it moves),
    let the view rest, and check that no card was laid or taken away and the table stays
    as first seen. Return the tracker and the cards as the knocked camera shows them."""
    table = SKIPBO_TABLE
    tr = Tracker()
    run(tr, [(dets(*table), scene([q for _, q in table]))] * 4)
    first = tr.state
    now = knocked(table)
    frames = on_the_way + [(dets(*now), scene([q for _, q in now]))] * 10
    assert run(tr, frames, t0=1.0) == []
    assert_as_first_seen(tr, first)
    return tr, now


def test_a_knocked_camera_is_followed_from_where_the_cards_lay_not_from_its_smeared_frames():
    # A knock takes half a second: its smeared frames show some cards part of the way
    # there, each smeared a different way (the rest are a blur, one misread as a 12), then
    # the view rests where it was knocked to. No card was laid or laid onto.
    frames = []
    smear = np.float32([[0, 8], [8, -6], [-8, 0]])
    for share in (0.35, 0.6, 0.85):
        shown = knocked(SKIPBO_TABLE, share)
        smeared = [(c, q + d) for (c, q), d in zip(shown[1:4], smear, strict=True)]
        frames.append((dets(*smeared, ("SB12", quad(520, 300))), scene([q for _, q in shown])))
    tr, now = knock_changes_nothing(frames)
    # Once it has come to rest, a wild laid onto the wild is seen again.
    onto = [(c, turned(q, 6.0) if c == "SBW" else q) for c, q in now]
    events = run(tr, [(dets(*onto), scene([q for _, q in onto]))] * 6, t0=3.0)
    assert [(e.kind, e.code, e.reason) for e in events] == [("laid", "SBW", "onto a SBW")]


@pytest.mark.parametrize("shares", [(0.1, 0.2, 0.55, 0.6), (0.15, 0.3, 0.6)])
def test_a_card_misread_while_a_knock_starts_is_not_laid_once_the_view_rests(shares):
    # A knock's first frames move the view less than a shake could: not yet seen as on its
    # way. There the smeared 9 is read as a 6, found again frame after frame as it moves,
    # until the view rests and it reads right. Found in no one view, the 6 is no card:
    # whether the knock is carried at one go (the first shares) or in steps each less than
    # a shake moves the view (the second).
    frames = []
    for share in shares:
        shown = knocked(SKIPBO_TABLE, share)
        misread = [("SB6" if c == "SB9" else c, q) for c, q in shown]
        frames.append((dets(*misread), scene([q for _, q in shown])))
    knock_changes_nothing(frames)


def test_cards_a_bumped_camera_no_longer_shows_are_kept_and_named():
    # Knocked 160 px to the left: the card at the left edge lies outside the picture now.
    # It stays on the table (its place cannot be seen bare), and is named as out of view.
    table = [("QS", quad(100, 120)), ("KH", quad(330, 150)), ("7D", quad(450, 260))]
    tr = Tracker()
    run(tr, [(dets(*table), scene([q for _, q in table]))] * 4)
    assert tr.out_of_view(640, 360) == []
    now = [(c, q - np.float32([160, 0])) for c, q in table[1:]]
    assert run(tr, [(dets(*now), scene([q for _, q in now]))] * 30, t0=1.0) == []
    assert tr.state.codes() == ["QS", "KH", "7D"]
    assert [c.code for c in tr.out_of_view(640, 360)] == ["QS"]
    # Turned back to the whole table, it shows again.
    assert run(tr, [(dets(*table), scene([q for _, q in table]))] * 10, t0=5.0) == []
    assert tr.out_of_view(640, 360) == []


def test_a_camera_sagging_slowly_carries_the_cards_along():
    # Two pixels a frame, about the camera's shake from one frame to the next, for 20 frames;
    # then it stays. A card laid since lies, in the table as first seen, where it lies, give
    # or take what a shake would move it (``still``).
    table = [("QS", A), ("KH", B), ("7D", quad(270, 280))]
    tr = Tracker()
    run(tr, [(dets(*table), scene([q for _, q in table]))] * 4)
    events = []
    for i in range(1, 31):
        sag = np.float32([0, 2 * min(i, 20)])
        now = [(c, q + sag) for c, q in table]
        events += tr.update(dets(*now), 1.0 + 0.1 * i, scene([q for _, q in now]))
    assert events == []
    new = quad(520, 150)
    now.append(("5H", new + sag))
    events = run(tr, [(dets(*now), scene([q for _, q in now]))] * 4, t0=5.0)
    assert [(e.kind, e.code) for e in events] == [("laid", "5H")]
    off = np.linalg.norm(tr.state.cards[-1].corners - new, axis=1).max()
    assert off < tr.still * card_size(new)


@pytest.mark.parametrize("bump", [{"degrees": 3.0}, {"zoom": 0.95}])
def test_a_camera_turning_or_zooming_slowly_is_no_card_laid(bump):
    # A phone on a drooping holder: the view turns 3 degrees, or zooms out 5%, over 6 s,
    # a little each frame (a turn no shake explains, but too small to tell from one frame).
    # No card is laid onto its place again; the table stays as first seen.
    table = [("SB5", quad(120, 100)), ("SBW", quad(520, 110)), ("SB9", quad(180, 280)),
             ("SB2", quad(470, 260))]  # fmt: skip
    tr = Tracker()
    run(tr, [(dets(*table), scene([q for _, q in table]))] * 4)
    first = tr.state
    events = []
    for i in range(1, 71):
        share = min(i, 60) / 60
        step = {k: v * share if k == "degrees" else 1 + (v - 1) * share for k, v in bump.items()}
        now = [(c, bumped(q, **step)) for c, q in table]
        events += tr.update(dets(*now), 1.0 + 0.1 * i, scene([q for _, q in now]))
    assert events == []
    for card, was in zip(tr.state.cards, first.cards, strict=True):
        assert card.id == was.id and card.relaid == 0
        assert np.abs(card.corners - was.corners).max() < 0.1 * card_size(was.corners)


def test_a_wild_laid_on_a_wild_while_the_camera_turns_slowly_is_seen():
    # The drooping holder's turn is the camera's; a wild laid on a wild meanwhile, 3 degrees
    # off it, is still a card laid (the turn fitted to the places is not that card's).
    table = [("SB5", quad(120, 100)), ("SBW", quad(520, 110)), ("SB9", quad(180, 280)),
             ("SB2", quad(470, 260)), ("SB7", quad(320, 90))]  # fmt: skip
    tr = Tracker()
    run(tr, [(dets(*table), scene([q for _, q in table]))] * 4)
    events = []
    for i in range(1, 61):
        now = [(c, bumped(turned(q, 3.0) if c == "SBW" and i > 30 else q, degrees=3.0 * i / 60))
               for c, q in table]  # fmt: skip
        events += tr.update(dets(*now), 1.0 + 0.1 * i, scene([q for _, q in now]))
    assert [(e.kind, e.code, e.reason) for e in events] == [("laid", "SBW", "onto a SBW")]
    assert [c.relaid for c in tr.state.cards if c.code == "SBW"] == [1]


def test_outlines_wobbling_on_a_still_camera_are_no_turn():
    # A recognizer's outlines wobble a pixel or two each frame, and the camera shakes: no
    # camera move, no card laid onto its own place.
    rng = np.random.default_rng(3)
    table = [(c, quad(80 + 110 * k, 100 + 150 * (k % 2))) for k, c in enumerate(
        ("SB1", "SB4", "SBW", "SB8", "SB11", "SB3"))]  # fmt: skip
    tr = Tracker()
    events = []
    for i in range(120):
        shake = rng.normal(0, 2.0, 2).astype(np.float32)
        now = [(c, q + shake + rng.normal(0, 1.0, (4, 2)).astype(np.float32)) for c, q in table]
        events += tr.update(dets(*now), 0.1 * i, scene([q for _, q in now]))
    assert [(e.kind, e.code) for e in events] == [("laid", c) for c, _ in table]
    assert tr.view == (1, 0j)
    assert all(c.relaid == 0 for c in tr.state.cards)


@pytest.mark.parametrize(
    ("width", "first", "later"),
    [
        (22, (2.5, 3), (-3.5, -3)),  # 27 px cards: 4 px one way, then 5 px the other
        (14, (0.5, 0.5), (-2, 5.5)),  # 17 px cards: 6 px, a third of a card
    ],
)
def test_a_camera_shaking_over_small_cards_is_no_knock(width, first, later):
    # Skip-Bo cards as small as a 640×360 picture shows them, a camera shaking a pixel or
    # two each frame. The frame the cards' places are first taken from shook ``first``, a
    # later frame ``later``: a third of a card off their places, as far as a knock moves
    # them (27 px cards: 8.5 px, both shakes; 17 px cards: 6 px, the later one's mostly).
    # The camera kept still: no move is carried, no card laid again.
    rng = np.random.default_rng(7)
    codes = ("SB1", "SB5", "SBW", "SB9")
    table = [
        (c, quad(200 + 40 * k, 160 + 50 * (k % 2), width, 1.5 * width)) for k, c in enumerate(codes)
    ]
    shakes = rng.normal(0, 1.5, (80, 2)).astype(np.float32)
    shakes[:4] = [(0.5, -1), (-1, 0.5), (1, 1), first]  # laid; then their places taken
    shakes[40] = later
    tr = Tracker()
    events = []
    for i, shake in enumerate(shakes):
        now = [(c, q + shake) for c, q in table]
        events += tr.update(dets(*now), i / 8, scene([q for _, q in now]))
        assert tr.view == (1, 0j), f"carried a move at frame {i}"
    assert [(e.kind, e.code) for e in events] == [("laid", c) for c in codes]


def test_one_of_two_small_cards_outlined_a_few_pixels_off_is_no_camera_move():
    # The two Skip-Bo stock cards, 27 px across, a camera shaking a pixel or two each frame;
    # one frame the recognizer draws one card's outline 4 px off. Half of the lying cards
    # moved, and a turn and zoom of the view would take both where they show; but the
    # camera kept still.
    rng = np.random.default_rng(7)
    table = [("SB4", quad(200, 160, 22, 33)), ("SB10", quad(440, 200, 22, 33))]
    tr = Tracker()
    events = []
    for i, shake in enumerate(rng.normal(0, 1.5, (60, 2)).astype(np.float32)):
        off = np.float32([-3.5, 2]) if i == 40 else 0
        now = [("SB4", table[0][1] + shake), ("SB10", table[1][1] + shake + off)]
        events += tr.update(dets(*now), i / 8, scene([q for _, q in now]))
        assert tr.view == (1, 0j), f"carried a move at frame {i}"
    assert [(e.kind, e.code) for e in events] == [("laid", "SB4"), ("laid", "SB10")]


def test_one_card_moved_among_still_ones_is_no_camera_move():
    # A card taken to another place moves alone: the camera kept still.
    table = [("QS", A), ("KH", B), ("7D", quad(270, 280))]
    tr = Tracker()
    run(tr, [(dets(*table), scene([q for _, q in table]))] * 4)
    pushed = [("QS", A + np.float32([0, 80])), *table[1:]]
    events = run(tr, [(dets(*pushed), scene([q for _, q in pushed]))] * 6, t0=1.0)
    assert [(e.kind, e.code) for e in events] == [("moved", "QS")]
    assert np.allclose(tr.state.cards[-1].corners, pushed[0][1])
    assert [c.code for c in tr.state.cards if np.allclose(c.corners, B)] == ["KH"]


def test_a_wobbly_reading_is_not_a_card_laid_again_but_a_new_card_is():
    # A recognizer's outline of a lying card wobbles a little from frame to frame (each
    # corner a pixel or two); a wild laid onto the wild moves it clearly more.
    tr = Tracker()
    rng = np.random.default_rng(5)

    def wobbly(q):
        return (q + rng.normal(0, 1.5, (4, 2))).astype(np.float32)

    events = []
    for i in range(40):
        a = wobbly(A)
        events += tr.update(dets(("SBW", a)), i * 0.1, scene([A]))
    assert [(e.kind, e.code) for e in events] == [("laid", "SBW")]
    on_top = turned(A, 8.0) + np.float32(9.0)
    events = run(tr, [(dets(("SBW", wobbly(on_top))), scene([on_top]))] * 4, t0=5.0)
    assert [(e.kind, e.reason) for e in events] == [("laid", "onto a SBW")]


def test_an_outline_drifting_a_pixel_for_a_few_frames_is_not_a_card_laid_again():
    # A recognizer's outline of a lying card holds still to a fraction of a pixel, then
    # drifts a pixel for a few frames (a hand laying a card on the next pile, the camera's
    # shake taken out unevenly): a card laid onto it moves it more than that.
    tr = Tracker()
    C = quad(400, 290)
    still = [("KH", B), ("QS", C)]
    run(tr, [(dets(("SBW", A), *still), scene([A, B, C]))] * 20)
    drift = A + np.float32([0.0, 0.0175 * card_size(A)])
    frames = [(dets(("SBW", drift), *still), scene([drift, B, C]))] * 4
    assert run(tr, frames + [(dets(("SBW", A), *still), scene([A, B, C]))] * 4, t0=2.0) == []
    assert tr.state.cards[0].relaid == 0


def test_a_hand_bending_the_outline_for_two_frames_is_not_a_card_laid_again():
    tr = Tracker()
    run(tr, [(dets(("SBW", A)), scene([A]))] * 6)
    # A hand over one side: the recognizer's outline of the card shrinks, differently each
    # frame; then the hand is gone and the card lies where it lay.
    bent1, bent2 = A.copy(), A.copy()
    bent1[1:3, 0] -= 18
    bent2[1:3, 0] -= 9
    frames = [(dets(("SBW", q)), scene([A])) for q in (bent1, bent2, A, A, A)]
    assert run(tr, frames, t0=1.0) == []
    assert tr.state.cards[0].relaid == 0


def test_an_outline_drawn_now_and_then_round_part_of_the_pile_is_not_a_card_laid_again():
    # The top card of a fanned Skip-Bo pile: for seconds at a time the recognizer draws its
    # far edge a little further on, over the card below (outline 8% longer, its other two
    # corners where they were). No card laid onto it moves only one edge.
    tr = Tracker()
    run(tr, [(dets(("SB11", A)), scene([A]))] * 6)
    longer = A.copy()
    longer[2:, 1] += 7
    frames = [(dets(("SB11", q)), scene([A])) for q in [longer] * 4 + [A] * 4 + [longer] * 4]
    assert run(tr, frames, t0=1.0) == []
    assert tr.state.cards[0].relaid == 0
    # A wild laid onto it, a few degrees turned, moves every corner: it is seen.
    on_top = turned(A, 4.0)
    events = run(tr, [(dets(("SB11", on_top)), scene([on_top]))] * 4, t0=3.0)
    assert [(e.kind, e.reason) for e in events] == [("laid", "onto a SB11")]


def test_an_outline_round_two_cards_side_by_side_is_not_a_card():
    # The 2 lies beside the 3, touching; the detector now and then draws one outline round
    # both and reads it as a third card.
    three, two = quad(150, 150), quad(150, 240)
    both = np.array([three[0], three[1], two[2], two[3]], np.float32)
    tr = Tracker()
    img = scene([three, two])
    run(tr, [(dets(("SB3", three), ("SB2", two)), img)] * 4)
    events = run(tr, [(dets(("SB3", three), ("SB2", two), ("SB1", both)), img)] * 6, t0=1.0)
    assert events == []
    assert sorted(tr.state.codes()) == ["SB2", "SB3"]
    # A card laid on a pile (its own size) still is one.
    top = quad(155, 156)
    events = run(tr, [(dets(("SB4", top), ("SB2", two)), scene([top, two]))] * 8, t0=2.0)
    assert ("laid", "SB4") in [(e.kind, e.code) for e in events]


def test_an_outline_round_a_pile_neither_drags_its_lower_card_nor_doubles_it():
    # A fanned Skip-Bo pile: the 6 below, the 8 over it a third of a card further on. Now
    # and then the detector draws the 6's outline round both and reads it as the 6.
    six, eight = quad(150, 150), quad(150, 180)
    both = quad(150, 165, 70, 110)
    stock = ("SB2", B)  # another card on the table, which lies still
    img = scene([six, eight, B])
    tr = Tracker()
    run(tr, [(dets(("SB6", six), ("SB8", eight), stock), img)] * 4)
    frames = [(dets(("SB6", both), ("SB8", eight), stock), img)] * 3
    frames += [(dets(("SB6", six), ("SB6", both), ("SB8", eight), stock), img)] * 6
    assert run(tr, frames, t0=1.0) == []
    assert sorted(tr.state.codes()) == ["SB2", "SB6", "SB8"]
    (lying,) = [c for c in tr.state.cards if c.code == "SB6"]
    assert np.allclose(lying.corners, six)
    # A second 8 fanned over the first is its own size: it is a card.
    eight2 = quad(150, 210)
    img = scene([six, eight, eight2, B])
    frames = [(dets(("SB6", six), ("SB8", eight), ("SB8", eight2), stock), img)] * 4
    events = run(tr, frames, t0=2.0)
    assert [(e.kind, e.code) for e in events] == [("laid", "SB8")]


def test_the_lower_card_of_a_fanned_pile_is_not_laid_onto_however_its_strip_jumps():
    # Skip-Bo 2p-13, the camera shifting slowly: a wild fanned a third of a card over a 2;
    # the 2's outline, round the strip the wild leaves showing, jumps a few pixels and lies
    # there three frames alike. A 2 laid onto the 2 would lie over the wild too.
    two, wild = quad(150, 150), quad(150, 180)
    stock = ("SB9", B)
    img = scene([two, wild, B])
    tr = Tracker()
    run(tr, [(dets(("SB2", two), stock), img)] * 4)
    run(tr, [(dets(("SB2", two), ("SBW", wild), stock), img)] * 4, t0=1.0)
    jumped = turned(quad(154, 147), 2.0)
    frames = [(dets(("SB2", jumped), ("SBW", wild), stock), img)] * 4
    assert run(tr, frames, t0=2.0) == []
    assert tr.state.cards[0].relaid == 0
    # The wild played away, the 2 is the pile's top again: a 2 laid onto it, a step on down
    # the fan, is seen — also while the 2 below, read as a 5 (centred on it), is a card.
    img = scene([two, B])
    events = run(tr, [(dets(("SB2", jumped), stock), img)] * 4, t0=3.0)
    frames = [(read(("SB2", jumped, 0.6), ("SB5", two, 0.9), ("SB9", B, 0.9)), img)] * 4
    events += run(tr, frames, t0=4.0)
    on_top = turned(quad(150, 162), 4.0)
    img = scene([two, on_top, B])
    frames = [(read(("SB2", on_top, 0.9), ("SB5", two, 0.9), ("SB9", B, 0.9)), img)] * 4
    events += run(tr, frames, t0=5.0)
    assert [(e.kind, e.code, e.reason) for e in events] == [
        ("removed", "SBW", "its place is visible without it"),
        ("laid", "SB5", ""),
        ("laid", "SB2", "onto a SB2"),
    ]


def test_a_lying_card_outlined_only_in_part_is_not_a_second_card():
    # A hand over the 4 leaves a corner showing; the detector outlines that part steadily.
    part = quad(405, 160, 40, 60)
    img = scene([B])
    tr = Tracker()
    run(tr, [(dets(("SB4", B)), img)] * 4)
    events = run(tr, [(dets(("SB4", part)), img)] * 6, t0=1.0)
    events += run(tr, [(dets(("SB4", B)), img)] * 3, t0=2.0)
    assert events == []
    assert tr.state.codes() == ["SB4"]


def test_a_strip_of_a_fanned_pile_outlined_a_little_small_is_not_a_second_card():
    # Skip-Bo 1011: an 11 fanned over a 4; for a while the detector outlines the 4's strip
    # some 15% small, a little down the fan, then 12% small. A second 4 laid there would be
    # whole, as large as the first.
    four, eleven = quad(400, 150), quad(400, 175)
    img = scene([four, eleven])
    tr = Tracker()
    run(tr, [(dets(("SB4", four), ("SB11", eleven)), img)] * 4)
    frames = [
        (dets(("SB4", quad(400, 160, 60 * s, 90 * s)), ("SB11", eleven)), img)
        for s in [0.84] * 4 + [0.875] * 8
    ]
    assert run(tr, frames, t0=1.0) == []
    assert sorted(tr.state.codes()) == ["SB11", "SB4"]


def test_a_card_outlined_in_two_places_in_turn_is_not_a_second_card():
    # Skip-Bo 1018 live: a fanned 5's strip outlined twice in one frame, then only in the
    # second place for two frames. A 5 laid there would show beside the first.
    five = quad(400, 150)
    img = scene([five])
    tr = Tracker()
    run(tr, [(dets(("SB5", five)), img)] * 4)
    there = quad(407, 146, 56, 84)
    frames = [(dets(("SB5", five), ("SB5", there)), img)]
    frames += [(dets(("SB5", there)), img)] * 2 + [(dets(("SB5", five)), img)] * 4
    assert run(tr, frames, t0=1.0) == []
    assert tr.state.codes() == ["SB5"]


def test_a_card_first_seen_half_under_the_hand_laying_it_stays_one_card():
    half = quad(400, 172.5, 60, 45)  # the hand still hides its upper half
    img = scene([])  # a white card on a pale table: its place alone does not tell
    tr = Tracker()
    events = run(tr, [(dets(("2H", half)), img)] * 4)
    events += run(tr, [(dets(("2H", B)), img)] * 6, t0=1.0)
    assert [(e.kind, e.code) for e in events] == [("laid", "2H")]
    assert tr.state.codes() == ["2H"]


# ---- a card laid squarely onto one of its code, seen in the picture (vision.relay) --------
C, D = quad(150, 280), quad(400, 280)


def printed_scene(
    wild: np.ndarray, *, upside_down: bool = False, seed: int = 0, hand=None, gain=1.0
) -> np.ndarray:
    """A table with a printed wild at ``wild`` and three plain cards round it (B, C, D),
    as a camera sees it: a little blurred, with fresh noise in each frame."""
    img = scene([B, C, D], hand=None, seed=seed)
    face = np.full((90, 60, 3), 235, np.uint8)
    cv2.putText(face, "W", (12, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.6, (40, 120, 230), 4)
    cv2.circle(face, (10, 10), 5, (40, 120, 230), -1)
    if upside_down:
        face = cv2.rotate(face, cv2.ROTATE_180)
    src = np.float32([[0, 0], [60, 0], [60, 90], [0, 90]])
    warp = cv2.getPerspectiveTransform(src, wild.astype(np.float32))
    ink = cv2.warpPerspective(face, warp, (640, 360), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full((90, 60), 255, np.uint8), warp, (640, 360)) > 127
    img[mask] = ink[mask]
    if hand is not None:
        cv2.ellipse(img, hand, (60, 45), 0, 0, 360, SKIN, -1)
    img = cv2.GaussianBlur(img, (3, 3), 0) * gain
    noise = np.random.default_rng(seed + 100).normal(0, 3, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def table_with_wild(wild: np.ndarray, shift=(0.0, 0.0)) -> Detections:
    s = np.float32(shift)
    return dets(("SBW", wild + s), ("KH", B + s), ("2S", C + s), ("9D", D + s))


def test_a_wild_laid_squarely_onto_a_wild_is_seen_in_the_picture():
    # The recognizer's outline stays where it was (within its wobble); the card's print
    # does not: the new wild lies the other way round.
    for watching in (True, False):
        tr = Tracker(watch={"SBW"} if watching else ())
        run(tr, [(table_with_wild(A), printed_scene(A, seed=i)) for i in range(8)])
        frames = [
            (table_with_wild(A), printed_scene(A, upside_down=True, seed=10 + i)) for i in range(6)
        ]
        events = run(tr, frames, t0=1.0)
        if watching:
            assert [(e.kind, e.code, e.reason) for e in events] == [("laid", "SBW", "onto a SBW")]
            assert [c.relaid for c in tr.state.cards if c.code == "SBW"] == [1]
        else:
            assert events == []


def test_a_wild_laid_a_degree_off_the_wild_below_is_seen_in_the_picture():
    tr = Tracker(watch={"SBW"})
    run(tr, [(table_with_wild(A), printed_scene(A, seed=i)) for i in range(8)])
    on_top = turned(A, 1.2) + np.float32([1.0, 0.5])
    frames = [(table_with_wild(A), printed_scene(on_top, seed=10 + i)) for i in range(6)]
    assert [e.reason for e in run(tr, frames, t0=1.0)] == ["onto a SBW"]


def test_a_watched_wild_under_shake_light_and_a_passing_hand_is_not_laid_again():
    tr = Tracker(watch={"SBW"})
    rng = np.random.default_rng(7)
    events = []
    for i in range(40):
        shift = rng.normal(0, 1.5, 2)
        hand = (150 + 20 * (i - 20), 160) if 18 <= i < 22 else None  # passes over it
        img = printed_scene(A, seed=i, hand=hand, gain=1.0 - 0.01 * i)
        img = cv2.warpAffine(img, np.float32([[1, 0, shift[0]], [0, 1, shift[1]]]), (640, 360))
        d = table_with_wild(A, shift)
        if hand is not None:
            d = d[np.array([c != "SBW" for c in d.codes])]  # hidden under the hand
        events += tr.update(d, i * 0.1, img)
    assert [e.code for e in events if e.kind == "laid"] == ["SBW", "KH", "2S", "9D"]
    assert all(c.relaid == 0 for c in tr.state.cards)


E = quad(560, 280)


def printed_table(seed: int, wild: str = "W") -> np.ndarray:
    """A Skip-Bo table: a wild at A amid four printed cards, a little blurred and noisy."""
    img = scene([B, C, D, E], seed=seed)
    for q, text, colour in (
        (B, "7", (30, 30, 200)),
        (C, "3", (200, 60, 30)),
        (D, "9", (30, 150, 30)),
        (E, "12", (30, 30, 200)),
        (A, wild, (40, 120, 230)),
    ):
        face = np.full((90, 60, 3), 235, np.uint8)
        cv2.putText(face, text, (8, 60), cv2.FONT_HERSHEY_SIMPLEX, 1.4, colour, 3)
        src = np.float32([[0, 0], [60, 0], [60, 90], [0, 90]])
        warp = cv2.getPerspectiveTransform(src, q.astype(np.float32))
        ink = cv2.warpPerspective(face, warp, (640, 360))
        mask = cv2.warpPerspective(np.full((90, 60), 255, np.uint8), warp, (640, 360)) > 127
        img[mask] = ink[mask]
    img = cv2.GaussianBlur(img, (3, 3), 0)
    noise = np.random.default_rng(seed + 100).normal(0, 3, img.shape)
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def watch_while_zooming(zoom_by: float, frames: int, relaid_at: int | None = None) -> list[int]:
    """Watch the wild while the camera, shaking, zooms out by ``zoom_by`` over ``frames``
    frames about the view's middle (a phone on a sagging holder): far cards move more, each
    its own way. Return the frames in which a card was seen laid onto the wild."""
    watch, middle, seen = RelayWatch(), np.float32([320, 180]), []
    rng = np.random.default_rng(5)
    for i in range(frames + 16):
        zoom = 1 - zoom_by * min(max(i - 8, 0), frames) / frames
        shake = rng.normal(0, 1.5, 2).astype(np.float32)
        m = np.hstack([np.eye(2) * zoom, ((1 - zoom) * middle + shake)[:, None]])
        wild = "M" if relaid_at is not None and i >= relaid_at else "W"
        img = cv2.warpAffine(printed_table(i, wild), m.astype(np.float32), (640, 360))
        gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        places = [(q - middle) * zoom + middle + shake for q in (A, B, C, D, E)]
        if watch.check(gray, 1, places[0], places[1:]):
            seen.append(i)
    return seen


@pytest.mark.parametrize("zoom_by, frames", [(0.08, 24), (0.15, 48)])
def test_a_watched_wild_under_a_camera_slowly_zooming_out_is_not_laid_again(zoom_by, frames):
    # Taken back by its neighbours' median shift, the wild lay pixels off its reference, alike
    # frame after frame: a card laid onto it, seen in frames 11 and 15.
    assert watch_while_zooming(zoom_by, frames) == []


def test_a_wild_laid_onto_the_wild_while_the_camera_zooms_is_seen():
    assert watch_while_zooming(0.08, 48, relaid_at=20) in ([22], [23], [24])


def test_the_camera_move_is_fitted_from_the_neighbours_unless_one_moved_its_own_way():
    centres = np.float32([[400, 150], [150, 280], [400, 280], [560, 280]])
    zoom = np.float32([[0.98, -0.01, 5.0], [0.01, 0.98, 2.0]])
    shifts = centres @ zoom[:, :2].T + zoom[:, 2] - centres
    np.testing.assert_allclose(_shake(shifts, centres), zoom, atol=1e-4)
    shifts[1] += [3, 2]  # a hand moved that card
    np.testing.assert_allclose(_shake(shifts, centres)[:, 2], np.median(shifts, axis=0))
    np.testing.assert_allclose(_shake(shifts, centres)[:, :2], np.eye(2))


def test_a_frame_a_few_pixels_thin_is_looked_at_without_failing():
    """A picture whose scaled copy would be zero pixels wide (a broken frame in a folder)."""
    model = TableModel(scale=0.1)
    model.new_frame(np.full((4, 4000, 3), TABLE, np.uint8), [])
    assert not model.visible(quad(150, 2))


@pytest.mark.parametrize("sightings", [1, 2, 5, 6, 15, 20])
def test_a_cards_size_is_the_median_of_its_recent_outlines(sightings):
    # Every frame asks each lying card's size; it must stay numpy's median of the sizes
    # remembered (the mean of the middle two for an even count), however it is computed.
    rng = np.random.default_rng(sightings)
    tracker = Tracker()
    sides = rng.uniform(58, 62, sightings)
    for i, w in enumerate(sides):
        tracker.update(read(("5H", quad(300, 200, w, 1.4 * w), 0.9)), i * 0.1)
    (track,) = tracker._tracks
    assert len(track.sizes) == min(sightings, 15)
    assert track.size == float(np.median(track.sizes))
    outlines = [quad(300, 200, w, 1.4 * w) for w in sides[-15:]]
    assert track.size == float(np.median([card_size(q) for q in outlines]))

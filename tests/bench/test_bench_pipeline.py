"""The camera pipeline benchmark's latency: from a card landing to the event that lays it."""

import pytest

from bench.bench_pipeline import _latencies
from vision.shared import DECKS


def test_a_card_played_from_a_pile_onto_another_lands_with_its_moved_event():
    truth = [
        {"event": "laid", "code": "SB3", "time": 1.0},  # discarded from the hand
        {"event": "laid", "code": "SB3", "time": 5.0},  # played from that discard pile on
    ]
    lines = [
        {"event": "laid", "code": "SB3", "time": 1.25},
        {"event": "move", "time": 2.0},
        {"event": "moved", "code": "SB3", "time": 5.375},
        {"event": "laid", "code": "SB3", "time": 9.0},  # another 3, later
    ]
    assert _latencies(truth, lines) == [0.25, 0.375]


def test_a_card_never_laid_waits_for_the_next_card_of_its_code():
    truth = [{"event": "laid", "code": "SBW", "time": 1.0}]
    lines = [
        {"event": "laid", "code": "SB1", "time": 1.1},
        {"event": "laid", "code": "SBW", "time": 4.0},
    ]
    assert _latencies(truth, lines) == [3.0]


@pytest.mark.skipif(not DECKS.is_dir(), reason=f"shared decks not found at {DECKS}")
def test_road_scenes_take_real_art_decks_in_turn(monkeypatch):
    import vision.synth.scene as scene_mod
    from bench.bench_pipeline import roads
    from vision.synth import ImageDeck

    decks = [ImageDeck(d) for d in sorted(p for p in DECKS.iterdir() if p.is_dir())[:2]]
    drawn = []
    sample = scene_mod.sample_scene

    def spy(rng, layout, standard, *args, **kw):
        drawn.append(standard[0])
        return sample(rng, layout, standard, *args, **kw)

    monkeypatch.setattr(scene_mod, "sample_scene", spy)
    out = roads(3, 1000, (640, 360), decks=decks)
    assert drawn == [decks[0], decks[1], decks[0]]
    assert sum(r["scenes"] for k, r in out.items() if k != "rows (shape rows)") == 3


def test_a_road_deck_that_is_no_deck_is_a_clear_error(tmp_path, capsys):
    from bench.bench_pipeline import main

    assert main(["--roads-only", "--roads", "1", "--road-decks", str(tmp_path / "nope")]) == 2
    assert "nope" in capsys.readouterr().err

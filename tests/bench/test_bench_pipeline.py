"""The camera pipeline benchmark's latency: from a card landing to the event that lays it."""

from bench.bench_pipeline import _latencies


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

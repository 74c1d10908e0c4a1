"""The event store and the table hub: moves written before they are shown, replay, undo/redo."""

from __future__ import annotations

import random
import re
import sqlite3
import threading
from pathlib import Path

import pytest

from referee import IllegalMove
from referee.stigespill import layout_advice
from tests.webui.conftest import token
from tests.webui.server import WAIT_S
from webui import create_app


def _rt(app, table_id):
    return app.extensions["kortbord.hub"].get(table_id)


def _moves_in_db(app, table_id):
    conn = sqlite3.connect(app.config["DATABASE"])
    try:
        return [
            r[0]
            for r in conn.execute(
                "SELECT m.move FROM moves m JOIN games g ON g.id = m.game_id"
                " WHERE g.table_id = ? ORDER BY g.number, m.idx",
                (table_id,),
            )
        ]
    finally:
        conn.close()


def test_accepted_move_is_committed_before_the_reply(app, client, make_table):
    t = make_table("stigespill", deal="table")
    r = client.post(f"/api/tables/{t['id']}/moves", json={"move": {"kind": "draw"}})
    assert r.status_code == 200
    assert len(_moves_in_db(app, t["id"])) == 1
    assert r.get_json()["moves_made"] == 1


def test_restart_rebuilds_the_state_by_replay(app, client, make_table, tmp_path):
    t = make_table("stigespill", deal="table")
    for card in ("5H", "3S"):
        client.post(
            f"/api/tables/{t['id']}/moves",
            json={"moves": [{"kind": "draw"}, {"kind": "reveal", "card": card}]},
        )
    before = client.get(f"/api/tables/{t['id']}").get_json()
    again = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "CAMERA": False})
    after = again.test_client().get(f"/api/tables/{t['id']}").get_json()
    assert after["view"] == before["view"]
    assert after["moves_made"] == 4
    assert [tok["position"] for tok in after["view"]["tokens"]] != [0, 0]


def test_illegal_move_is_refused_with_a_reason_and_changes_nothing(app, client, make_table):
    t = make_table("stigespill", deal="table")
    r = client.post(f"/api/tables/{t['id']}/moves", json={"move": {"kind": "reveal", "card": "5H"}})
    assert r.status_code == 409
    assert "no card is being drawn" in r.get_json()["error"]
    assert _moves_in_db(app, t["id"]) == []
    snap = client.get(f"/api/tables/{t['id']}").get_json()
    assert snap["moves_made"] == 0
    assert "no card is being drawn" in snap["notice"]["error"]


def test_a_batch_is_all_or_nothing(app, client, make_table):
    t = make_table("stigespill", deal="table")
    bad = [{"kind": "draw"}, {"kind": "reveal", "card": "9H"}]  # 9♥ is a road card, not a die card
    r = client.post(f"/api/tables/{t['id']}/moves", json={"moves": bad})
    assert r.status_code == 409
    assert _moves_in_db(app, t["id"]) == []


def test_undo_and_redo_are_persisted(app, client, make_table, tmp_path):
    t = make_table("stigespill", deal="table")
    url = f"/api/tables/{t['id']}"
    client.post(
        f"{url}/moves", json={"moves": [{"kind": "draw"}, {"kind": "reveal", "card": "4D"}]}
    )
    pos = client.get(url).get_json()["view"]["tokens"][0]["position"]
    r = client.post(f"{url}/undo", json={})
    # the drawn card goes back with the draw that asked for it
    assert r.status_code == 200 and r.get_json()["can_redo"]
    assert len(_moves_in_db(app, t["id"])) == 0
    # a restart keeps the redo stack
    again = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "CAMERA": False}).test_client()
    snap = again.get(url).get_json()
    assert snap["can_redo"] and snap["moves_made"] == 0
    r = again.post(f"{url}/redo", json={})
    assert r.status_code == 200 and r.get_json()["moves_made"] == 2
    assert r.get_json()["view"]["tokens"][0]["position"] == pos
    assert not r.get_json()["can_redo"]
    assert again.post(f"{url}/redo", json={}).status_code == 409


def test_undo_of_only_entered_cards_takes_back_one_card(client, make_table):
    t = make_table("skipbo", deal="table", stock=5)  # the game starts with stocks turning up
    url = f"/api/tables/{t['id']}"
    first = client.get(url).get_json()["moves"][0]["move"]
    client.post(f"{url}/moves", json={"move": first})
    r = client.post(f"{url}/undo", json={}).get_json()
    assert r["moves_made"] == 0 and r["can_redo"]
    assert client.post(f"{url}/redo", json={}).get_json()["moves_made"] == 1


def test_a_new_move_clears_the_redo_stack(client, make_table):
    t = make_table("stigespill", deal="table")
    url = f"/api/tables/{t['id']}"
    client.post(f"{url}/moves", json={"move": {"kind": "draw"}})
    client.post(f"{url}/undo", json={})
    assert client.get(url).get_json()["can_redo"]
    client.post(f"{url}/moves", json={"move": {"kind": "draw"}})
    assert not client.get(url).get_json()["can_redo"]


def test_when_the_app_deals_undo_takes_back_the_move_and_its_draw(client, make_table):
    t = make_table("stigespill")  # deal=app: the app reveals the drawn card at once
    url = f"/api/tables/{t['id']}"
    r = client.post(f"{url}/moves", json={"move": {"kind": "draw"}}).get_json()
    made = r["moves_made"]  # the draw and the card revealed (more after a joker)
    assert made >= 2 and r["to_move"] == 1
    r = client.post(f"{url}/undo", json={}).get_json()
    assert r["moves_made"] == 0 and r["to_move"] == 0
    r = client.post(f"{url}/redo", json={}).get_json()
    assert r["moves_made"] == made and r["to_move"] == 1
    assert client.post(f"{url}/undo", json={}).status_code == 200
    assert client.post(f"{url}/undo", json={}).status_code == 409  # nothing left


def test_draw_for_me_resolves_the_pending_card(client, make_table):
    t = make_table("stigespill", deal="table")
    url = f"/api/tables/{t['id']}"
    client.post(f"{url}/moves", json={"move": {"kind": "draw"}})
    snap = client.get(url).get_json()
    assert snap["to_move"] == -1 and snap["chance"]["mine"]
    assert client.post(f"{url}/draw", json={}).get_json()["to_move"] in (0, 1)
    assert client.post(f"{url}/draw", json={}).status_code == 409


def test_hands_stay_on_their_own_pages(client, make_table):
    t = make_table("sten")  # the app deals: hands are known to the referee
    table = client.get(f"/api/tables/{t['id']}").get_json()
    assert "hand" not in table["view"]
    assert table["moves"] == []  # every Sten move names a hand card
    seat = table["to_move"]
    mine = client.get(f"/api/p/{token(t, seat)}").get_json()
    other = client.get(f"/api/p/{token(t, 1 - seat)}").get_json()
    assert "7H" in mine["view"]["hand"] and "7H" not in other["view"]["hand"]
    assert set(mine["view"]["hand"]).isdisjoint(other["view"]["hand"])
    assert [m["move"]["card"] for m in mine["moves"]] == ["7H"]
    assert other["moves"] == []
    assert "hint" in mine and "hint" not in table
    # the table's page may not make a hand move, the other player may not either
    lay = {"move": {"kind": "lay", "card": "7H"}}
    r = client.post(f"/api/tables/{t['id']}/moves", json=lay)
    assert r.status_code == 409 and "own page" in r.get_json()["error"]
    assert client.post(f"/api/p/{token(t, 1 - seat)}/moves", json=lay).status_code == 409
    r = client.post(f"/api/p/{token(t, seat)}/moves", json=lay)
    assert r.status_code == 200 and r.get_json()["moves_made"] == 1


def test_skipbo_draws_at_a_real_table_are_entered_privately(client, make_table):
    t = make_table("skipbo", deal="table", stock=5)
    table = client.get(f"/api/tables/{t['id']}").get_json()
    assert table["to_move"] == -1
    # the stocks turn up first: that is public, entered on the table's page
    assert table["chance"]["mine"] and table["chance"]["seat"] is None
    client.post(f"/api/tables/{t['id']}/draw", json={})
    table = client.get(f"/api/tables/{t['id']}").get_json()
    assert table["chance"]["seat"] == 0 and not table["chance"]["mine"]
    assert table["moves"] == []
    r = client.post(f"/api/tables/{t['id']}/draw", json={})
    assert r.status_code == 409
    mine = client.get(f"/api/p/{token(t, 0)}").get_json()
    assert mine["chance"]["mine"] and {m["move"]["kind"] for m in mine["moves"]} == {"reveal"}
    r = client.post(f"/api/p/{token(t, 0)}/moves", json={"move": mine["moves"][0]["move"]})
    assert r.status_code == 200
    table = client.get(f"/api/tables/{t['id']}").get_json()
    assert "draws a card" in table["last"]  # the card itself is not named on the table's page
    assert mine["moves"][0]["move"]["card"] not in table["last"]
    other = client.get(f"/api/p/{token(t, 1)}").get_json()
    assert "draws a card" in other["last"]  # nor on another player's page
    drawn = mine["moves"][0]["move"]["card"]
    assert drawn in client.get(f"/api/p/{token(t, 0)}").get_json()["view"]["hand"]


def _play_to_end(app, client, t, rng, limit=3000):
    """Play the table's game to the end through the players' pages, greedily."""
    hub = app.extensions["kortbord.hub"]
    for _ in range(limit):
        rt = hub.get(t["id"])
        if rt.rules.is_over(rt.state):
            return
        seat = rt.rules.to_move(rt.state)
        move = rt.rules.greedy_move(rt.state, rng).to_json()
        r = client.post(f"/api/p/{token(t, seat)}/moves", json={"move": move})
        assert r.status_code == 200, r.get_json()
    raise AssertionError("the game did not end")


def test_a_sten_game_plays_to_the_end_and_is_listed_as_finished(app, client, make_table):
    t = make_table("sten", names="Anna, Bo")
    _play_to_end(app, client, t, random.Random(1))
    snap = client.get(f"/api/tables/{t['id']}").get_json()
    assert snap["over"] and snap["winner_names"]
    listed = client.get("/api/tables").get_json()["tables"]
    assert listed[0]["finished"] and listed[0]["winner_names"] == snap["winner_names"]
    assert snap["winner_names"][0] in client.get("/").get_data(as_text=True)


def test_a_sten_tables_games_so_far_say_who_won_and_who_lost_with_the_stone(
    app, client, make_table, tmp_path
):
    """After three games of Sten a table said "Game 4" and nothing more: who won each game
    and who lost with the stone, the evening's point, was said nowhere once the next game
    began (a Skip-Bo match adds its games up; Sten and Stigespill kept no record on the
    pages). Every page's snapshot lists the table's finished games, kept across a restart."""
    t = make_table("sten", names="Anna, Bo, Cy", players=3)
    url = f"/api/tables/{t['id']}"
    assert "record" not in client.get(url).get_json()  # nothing to list before a game ends
    rng = random.Random(2)
    hub = app.extensions["kortbord.hub"]
    results = []
    for number in (1, 2, 3):
        _play_to_end(app, client, t, rng)
        rt = hub.get(t["id"])
        results.append({"number": number, **{k: v for k, v in rt.rules.scores(rt.state).items()
                                               if k in ("winners", "loser")}})  # fmt: skip
        assert client.get(url).get_json()["record"] == results  # the game just ended, too
        position = client.get(url).get_json()["position"]
        assert client.post(f"{url}/next", json={"position": position}).status_code == 200
    assert client.get(url).get_json()["record"] == results
    assert any(r["loser"] is not None for r in results)  # (the seed's games have a loser)
    assert client.get(f"/api/p/{token(t, 1)}").get_json()["record"] == results
    tomorrow = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "CAMERA": False})
    assert tomorrow.test_client().get(url).get_json()["record"] == results
    skipbo = make_table("skipbo", stock=5)
    _play_to_end(app, client, skipbo, rng)  # a match's games are the match's
    assert "record" not in client.get(f"/api/tables/{skipbo['id']}").get_json()


def test_a_skipbo_match_adds_up_over_games_to_its_target(app, client, make_table, tmp_path):
    t = make_table("skipbo", stock=5, match_target=60)
    rng = random.Random(3)
    url = f"/api/tables/{t['id']}"
    for game in range(1, 8):
        _play_to_end(app, client, t, rng)
        match = client.get(f"/api/matches/{t['id']}").get_json()
        # another day: the server restarts, the match is still there
        tomorrow = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "CAMERA": False})
        assert tomorrow.test_client().get(f"/api/matches/{t['id']}").get_json() == match
        assert len(match["games"]) == game
        assert all(p >= 25 or p == 0 for p in match["games"][-1]["points"])
        # the home page lists the table as finished when the match is, not each game
        listed = {r["id"]: r for r in client.get("/api/tables").get_json()["tables"]}[t["id"]]
        assert bool(listed["finished"]) == match["over"]
        if match["over"]:
            names = ["Anna", "Bo"]
            assert listed["winner_names"] == [names[s] for s in match["winners"]]
            break
        assert client.post(f"{url}/next", json={}).status_code == 200
    else:
        raise AssertionError("the match did not reach 60")
    assert max(match["totals"]) >= 60 and match["winners"]
    assert client.post(f"{url}/next", json={}).status_code == 409  # the match is over
    svg = client.get(f"/matches/{t['id']}/chart.svg").get_data(as_text=True)
    assert svg.count("<polyline") == 2 and ">60<" in svg
    page = client.get(f"/matches/{t['id']}").get_data(as_text=True)
    assert "won the match" in page


def test_a_team_match_is_scored_by_team(app, client, make_table):
    """Partners score alike: the match's table, chart and live page show a team once."""
    t = make_table(
        "skipbo", players=4, teams="on", names="Anna, Bo, Cy, Di", stock=5, match_target=100
    )
    _play_to_end(app, client, t, random.Random(5))
    match = client.get(f"/api/matches/{t['id']}").get_json()
    assert match["sides"] == [[0, 2], [1, 3]]
    points = match["games"][0]["points"]
    assert points[0] == points[2] and points[1] == points[3] and max(points) >= 25
    page = client.get(f"/matches/{t['id']}").get_data(as_text=True)
    assert "<th>Anna &amp; Cy</th><th>Bo &amp; Di</th>" in page
    svg = client.get(f"/matches/{t['id']}/chart.svg").get_data(as_text=True)
    assert svg.count("<polyline") == 2 and f"Anna &amp; Cy {points[0]}<" in svg
    nb = client.get(f"/matches/{t['id']}/chart.svg", headers={"Accept-Language": "nb"})
    assert 'aria-label="Først til 100"' in nb.get_data(as_text=True)
    listed = client.get("/matches").get_data(as_text=True)
    assert f"Anna &amp; Cy {points[0]} · Bo &amp; Di {points[1]} / 100" in listed
    home = client.get("/").get_data(as_text=True)  # who plays, and what the table waits for
    assert re.search(
        r'"table-name">Anna, Bo, Cy, Di</span>\s*<span class="muted">\w+ \d\d:\d\d · game 1 ·'
        r" the next game waits",
        home,
    )


@pytest.mark.parametrize("game", ["stigespill", "sten", "skipbo"])
def test_every_game_can_be_started_in_both_deal_modes(client, make_table, game):
    for deal in ("app", "table"):
        t = make_table(game, deal=deal)
        page = client.get(t["url"])
        assert page.status_code == 200
        assert client.get(f"/api/tables/{t['id']}").get_json()["table"]["deal"] == deal


def test_sten_at_a_real_table_whoever_holds_7h_starts(client, make_table):
    t = make_table("sten", deal="table", players=3, names="Anna, Bo, Cy")
    url = f"/api/tables/{t['id']}"
    table = client.get(url).get_json()
    assert [m["label"] for m in table["moves"]] == ["Anna lays 7♥", "Bo lays 7♥", "Cy lays 7♥"]
    bo = client.get(f"/api/p/{token(t, 1)}").get_json()
    assert "hand" not in bo["view"]  # the referee does not know real hands
    assert [m["move"] for m in bo["moves"]] == [{"kind": "lay", "card": "7H", "seat": 1}]
    r = client.post(f"/api/p/{token(t, 0)}/moves", json={"move": bo["moves"][0]["move"]})
    assert r.status_code == 409  # Anna may not say that Bo laid it
    r = client.post(f"/api/p/{token(t, 1)}/moves", json={"move": bo["moves"][0]["move"]})
    assert r.status_code == 200 and r.get_json()["to_move"] == 2
    assert client.get(url).get_json()["last"].startswith("Bo laid 7♥")


@pytest.mark.parametrize(
    ("colours", "expected"),
    [
        ("rød, Blue, #123abc", ["#d62828", "#1d4ed8", "#123abc"]),
        ("", ["#d62828", "#1d4ed8", "#15803d"]),
        ("green", ["#15803d", "#d62828", "#1d4ed8"]),
    ],
)
def test_token_colours(client, make_table, colours, expected):
    t = make_table("stigespill", players=3, names="A, B, C", colours=colours)
    players = client.get(f"/api/tables/{t['id']}").get_json()["table"]["players"]
    assert [p["colour"] for p in players] == expected


@pytest.mark.parametrize("colours", ["mauve", "red, red", "red, blue, green, teal", "#12345"])
def test_bad_token_colours(client, colours):
    r = client.post("/api/tables", json={"game": "stigespill", "players": 3, "colours": colours})
    assert r.status_code == 400 and "colour" in r.get_json()["error"]


def test_one_device_for_everyone_shows_the_hand_on_turn(client, make_table):
    t = make_table("skipbo", open="1", stock=5)
    snap = client.get(f"/api/tables/{t['id']}").get_json()
    seat = snap["to_move"]
    mine = client.get(f"/api/p/{token(t, seat)}").get_json()
    assert snap["view"]["hand"] == mine["view"]["hand"] and snap["hint"]
    kinds = {m["move"]["kind"] for m in snap["moves"]}
    assert "discard" in kinds  # hand moves are on the table's page too
    discard = next(m["move"] for m in snap["moves"] if m["move"]["kind"] == "discard")
    after = client.post(f"/api/tables/{t['id']}/moves", json={"move": discard}).get_json()
    assert after["to_move"] == 1 - seat and after["view"]["hand"] != snap["view"]["hand"]


def test_a_refused_private_move_is_not_shown_to_the_table(client, make_table):
    t = make_table("skipbo", stock=5)
    seat = client.get(f"/api/tables/{t['id']}").get_json()["to_move"]
    hand = client.get(f"/api/p/{token(t, seat)}").get_json()["view"]["hand"]
    card = next(c for c in hand if c not in ("SB1", "SBW"))  # no empty pile takes it
    bad = {"kind": "play", "source": "hand", "card": card, "pile": 0}
    r = client.post(f"/api/p/{token(t, seat)}/moves", json={"move": bad})
    assert r.status_code == 409
    assert client.get(f"/api/tables/{t['id']}").get_json()["notice"] is None
    # a move the referee cannot read is a bad request, told to no page either (the table's)
    r = client.post(f"/api/tables/{t['id']}/moves", json={"move": {**bad, "pile": 9}})
    assert r.status_code == 400 and r.get_json()["error"].startswith("malformed move: pile")
    assert client.get(f"/api/p/{token(t, 1 - seat)}").get_json()["notice"] is None


def test_the_race_chart_keeps_players_with_equal_totals_legible():
    import re

    from webui.matches import LABEL_GAP, race_svg

    match = {
        "target": 500,
        "sides": [[0], [1], [2]],
        "games": [{"totals": [0, 120, 0]}, {"totals": [95, 120, 95]}],
    }
    svg = race_svg(["Anna", "Bo", "Cecilie"], ["#c22", "#23c", "#2a2"], match)
    label = r'<text[^>]*y="([\d.]+)"[^>]*data-seat="(\d)">([^<]*)<'
    labels = {int(seat): (float(y), text) for y, seat, text in re.findall(label, svg)}
    assert [labels[s][1] for s in range(3)] == ["Anna 95", "Bo 120", "Cecilie 95"]
    tied = sorted([labels[0][0], labels[2][0]])
    assert tied[1] - tied[0] >= LABEL_GAP  # one above the other, not printed over it
    assert labels[1][0] < tied[0]  # the leader's label stays highest


def test_the_race_charts_labels_are_nudged_apart_around_their_own_heights():
    """Labels wanted closer than a label's height are set one under the other around the
    mean of their heights (not all lifted over the lowest), inside the chart; a player's name
    too long for the chart's margin is cut short, its points kept."""
    import re

    from webui.matches import LABEL_GAP, race_svg, spread, text_width

    assert spread([100, 100], 20, 0, 300) == [90, 110]
    assert spread([50, 100, 104], 20, 0, 300) == [50, 92, 112]
    assert spread([5, 6, 7], 20, 10, 300) == [10, 30, 50]  # kept inside the chart
    assert spread([290, 295], 20, 0, 300) == [280, 300]
    match = {"target": 500, "sides": [[0], [1]], "games": [{"totals": [250, 240]}]}
    svg = race_svg(["Margrethe-Kristine", "Sebastian"], ["#c22", "#23c"], match)
    labels = re.findall(r'<text[^>]*y="([\d.]+)"[^>]*data-seat="\d">([^<]*)<', svg)
    assert [text for _, text in labels] == ["Margrethe… 250", "Sebastian 240"]
    assert all(text_width(text) <= 420 * 0.45 - 22 for _, text in labels)
    assert float(labels[1][0]) - float(labels[0][0]) >= LABEL_GAP


def _chart_labels(svg: str) -> dict[int, tuple[list[str], list[float], str | None]]:
    """Each side's label on a race chart, by its first seat: its lines, their baselines and
    its tooltip (None without one)."""
    import xml.etree.ElementTree as ET

    ns = "{http://www.w3.org/2000/svg}"
    root = ET.fromstring(svg)
    tips = {id(g.find(f"{ns}text")): g.findtext(f"{ns}title") for g in root.iter(f"{ns}g")}
    labels = {}
    for text in root.iter(f"{ns}text"):
        if text.get("class") != "who":
            continue
        lines = list(text.iter(f"{ns}tspan")) or [text]
        labels[int(text.get("data-seat"))] = (
            [line.text or "" for line in lines],
            [float(line.get("y")) for line in lines],
            tips.get(id(text)),
        )
    return labels


def test_a_teams_label_on_the_race_chart_names_every_partner():
    """A team's name too long for the chart's margin was cut from its end ("Bestefar O…
    240"): the second partner never showed. Its partners stand one a line now ("Bestefar Ole
    &", "Mormor Kari 250"), a partner's name too long for a line told by their given name
    ("Åse-Marie" for Åse-Marie Bø), the whole name in the label's tooltip; a team whose name
    fits is drawn as before. No label runs into another or out of the chart."""
    import itertools

    from webui.matches import LABEL_GAP, LABEL_LINE, LABEL_SIZE, race_svg, text_width

    names = ["Bestefar Ole", "Oddbjørn", "Anna", "Mormor Kari", "Åse-Marie Bø", "Bo"]
    colours = ["#c22", "#23c", "#2a2", "#a70", "#777", "#0aa"]
    for totals in ([250, 240, 245], [480, 120, 100], [100, 100, 100]):
        games = [{"totals": [t // 2 for t in totals] * 2}, {"totals": totals * 2}]
        match = {"target": 500, "sides": [[0, 3], [1, 4], [2, 5]], "games": games}
        svg = race_svg(names, colours, match)
        labels = _chart_labels(svg)
        assert labels[0][0] == ["Bestefar Ole &", f"Mormor Kari {totals[0]}"], labels
        assert labels[1][0] == ["Oddbjørn &", f"Åse-Marie {totals[1]}"], labels
        assert labels[0][2] == f"Bestefar Ole & Mormor Kari {totals[0]}"
        assert labels[1][2] == f"Oddbjørn & Åse-Marie Bø {totals[1]}"
        # a team whose name fits: one line, no tooltip, written as it was
        assert labels[2] == ([f"Anna & Bo {totals[2]}"], labels[2][1], None)
        assert re.search(rf'class="who" fill="#2a2" data-seat="2">Anna &amp; Bo {totals[2]}<', svg)
        # every line inside the chart, clear of the lines' ends and of each other
        x = float(re.search(r'<text x="([\d.]+)"[^>]*class="who"', svg).group(1))
        ends = max(float(cx) for cx in re.findall(r'<circle cx="([\d.]+)"', svg))
        assert x > ends + 4  # the dots' radius
        lines = sorted((y, seat) for seat, (texts, ys, _) in labels.items() for y in ys)
        for text in (t for texts, _, _ in labels.values() for t in texts):
            assert x + text_width(text) <= 420, text
        for (above, a), (below, b) in itertools.pairwise(lines):
            assert below - above >= (LABEL_LINE if a == b else LABEL_GAP), (lines, totals)
        assert lines[0][0] - LABEL_SIZE >= 0 and lines[-1][0] + 0.3 * LABEL_SIZE <= 260


@pytest.mark.parametrize(
    ("partners", "lines"),
    [
        (["Anna", "Bo"], ["Anna & Bo 240"]),  # fits: as it was
        (["Bestefar Ole", "Mormor Kari"], ["Bestefar Ole &", "Mormor Kari 240"]),
        (["Bestefar Oddbjørn", "Mormor Kari"], ["Oddbjørn &", "Mormor Kari 240"]),
        (["Bedstemor Ellen Sørensen", "Morfar Åke"], ["Ellen &", "Morfar Åke 240"]),  # da
        (["Mormor Kerstin Öberg", "Moffa Göran"], ["Kerstin &", "Moffa Göran 240"]),  # sv
        (["Margrethe-Kristine", "Sebastian"], ["Margrethe-K… &", "Sebastian 240"]),
        (["Farmor Ingrid Hansen"], ["Ingrid 240"]),  # a player alone: the given name
        (["Margrethe-Kristine"], ["Margrethe… 240"]),  # one word: cut short as before
    ],
)
def test_a_sides_label_names_each_partner_in_the_charts_margin(partners, lines):
    """A side's label is its name and points on one line where they fit the margin (167 px
    of the chart's 420), else one line a partner, a name too long for its line told by its
    given name (the first word that is no family title: "Bestefar", "Bedstemor", "Mormor"),
    cut short with … where even that is too long."""
    from webui.matches import label_lines, text_width

    assert label_lines(partners, 240, 167, partners) == lines
    assert all(text_width(line) <= 167 for line in lines)


def test_a_partner_is_not_told_by_a_given_name_another_player_has():
    """Two players of the chart named Oddbjørn: a partner too long for a line is cut short
    ("Bestefar Od… &"), not shortened to an "Oddbjørn" that names either."""
    from webui.matches import label_lines

    everyone = ["Bestefar Oddbjørn", "Mormor Kari", "Oddbjørn", "Ida"]
    assert label_lines(everyone[:2], 240, 167, everyone) == ["Bestefar Od… &", "Mormor Kari 240"]
    assert label_lines(everyone[:2], 240, 167, everyone[:2]) == ["Oddbjørn &", "Mormor Kari 240"]


@pytest.mark.parametrize(
    ("name", "short"),
    [
        ("Bestefar Ole", "Ole"),
        ("Kari Nordmann", "Kari"),
        ("Tante Åse-Marie", "Åse-Marie"),
        ("bedstemor Ellen", "Ellen"),
        ("Moffa Göran", "Göran"),
        ("Kusine Maja Nilsen", "Maja"),  # cousins, as an eight-seat table names them
        ("Fetter Emil Hansen", "Emil"),
        ("Fætter Anders", "Anders"),
        ("Kusin Lova", "Lova"),
        ("Svigermor Randi", "Randi"),
        ("Mormor", "Mormor"),  # a title alone is the name
        ("Mamma Pappa", "Mamma Pappa"),
        ("Sebastian", "Sebastian"),
        # titles the list lacked (a name too long for its line was told by its title)
        ("Tippoldemor Gerd", "Gerd"),
        ("Grandtante Eli", "Eli"),
        ("Bonuspappa Geir", "Geir"),
        ("Svigerdatter Lene", "Lene"),
        ("Bedste Inger", "Inger"),
        ("Svigerinde Pia", "Pia"),
        ("Stedfar Bent", "Bent"),
        ("Oma Grethe", "Grethe"),
        ("Faffa Sven", "Sven"),
        ("Tant Agda", "Agda"),
        ("Gammelmormor Ester", "Ester"),
        ("Svägerska Lena", "Lena"),
        ("Grandmother Rose", "Rose"),
        ("Great Aunt Mary", "Mary"),
        ("Great-grandpa Joe", "Joe"),
        ("Daddy Tom", "Tom"),
        ("Godmother Ann", "Ann"),
    ],
)
def test_a_players_short_name_is_their_first_word_that_is_no_family_title(name, short):
    from webui.matches import short_name

    assert short_name(name) == short


# The family titles a family writes most, in each language the pages speak and English
COMMON_TITLES = {
    "nb": "bestefar bestemor besta oldefar oldemor morfar mormor farfar farmor tante onkel "
    "moster faster morbror farbror kusine fetter svigermor svigerfar",
    "da": "bedstefar bedstemor oldefar oldemor morfar mormor farfar farmor tante onkel moster "
    "faster morbror farbror kusine fætter svigermor svigerfar",
    "sv": "morfar mormor farfar farmor moffa mommo faster moster morbror farbror kusin "
    "svärmor svärfar",
    "en": "grandma grandpa grandmother grandfather granny nana uncle aunt cousin",
}


@pytest.mark.parametrize("lang", COMMON_TITLES)
def test_the_family_titles_are_kept_by_language_each_with_its_common_ones(lang):
    """The family titles were one list of words from four languages, each title checked
    only by a handful of names; common ones were missing ("Oldemor" stood, "Tippoldemor",
    "Bonuspappa", "Svigerinde", "Tant", "Grandmother" did not). They are kept by language
    now, each with its common titles, the short names made from all of them."""
    from webui.matches import FAMILY_TITLES, FAMILY_TITLES_SAID

    listed = FAMILY_TITLES_SAID[lang].split()
    assert set(COMMON_TITLES[lang].split()) <= set(listed)
    assert len(listed) == len(set(listed)) and set(listed) <= FAMILY_TITLES


def test_labels_of_two_lines_are_spread_by_their_whole_height():
    """A label of two lines (``taller`` by its second line) keeps its neighbours clear of
    both lines, and stays inside the chart by both."""
    from webui.matches import spread

    assert spread([100, 100], 20, 0, 300, [20, 0]) == [85, 115]
    assert spread([100, 100, 100], 20, 0, 300, [0, 20, 0]) == [70, 100, 130]
    assert spread([5], 20, 10, 300, [20]) == [20]
    assert spread([300, 300], 20, 0, 300, [0, 20]) == [260, 290]
    assert spread([50, 100, 104], 20, 0, 300, [0, 0, 0]) == [50, 92, 112]  # as one-line labels


def _contrast(a: str, b: str) -> float:
    """WCAG's contrast ratio of two #rrggbb colours."""

    def luminance(colour: str) -> float:
        def channel(v: int) -> float:
            c = v / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

        r, g, b = (channel(int(colour[i : i + 2], 16)) for i in (1, 3, 5))
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_race_charts_names_are_readable_in_any_players_colour():
    """A player's name and points at the end of their line are written in their colour: a
    light one (white, or the default palette's pink, teal and orange) was hard to read on the
    chart's pale plot. The name takes a darker shade of it; the line keeps the colour."""
    import re

    from webui.matches import race_svg

    colours = ["#db2777", "#0891b2", "#ea580c", "#e5e7eb", "#1d4ed8"]
    match = {"target": 500, "sides": [[s] for s in range(5)], "games": [{"totals": [5] * 5}]}
    svg = race_svg(["Anna", "Bo", "Cy", "Di", "Ed"], colours, match)
    fills = dict(re.findall(r'class="who"[^>]*fill="(#[0-9a-f]{6})" data-seat="(\d)"', svg))
    fills = {int(seat): fill for fill, seat in fills.items()}
    assert len(fills) == 5, svg
    plot = "#fbfcfb"  # app.css: .race .plot
    for seat, colour in enumerate(colours):
        assert _contrast(fills[seat], plot) >= 4.5, (colour, fills[seat])
        assert f'stroke="{colour}"' in svg  # the line is drawn in the player's own colour
    assert fills[4] == "#1d4ed8"  # a colour dark enough already stays as it is


@pytest.mark.parametrize("change", ["play", "undo"])
def test_a_change_held_up_by_a_new_game_goes_to_the_new_game(app, make_table, monkeypatch, change):
    """Two taps at once: a move (or undo) and the start of a new game. The move, waiting for
    the table while the new game starts, must not change the game left behind."""
    import threading

    t = make_table("stigespill", deal="table")
    hub = app.extensions["kortbord.hub"]
    hub.play(t["id"], [{"kind": "draw"}])
    old = hub.get(t["id"])
    fetched = threading.Event()
    get = hub.get

    def get_and_tell(table_id):
        rt = get(table_id)
        fetched.set()
        return rt

    results = []

    def act():
        try:
            if change == "play":
                results.append(hub.play(t["id"], [{"kind": "draw"}]))
            else:
                results.append(hub.undo(t["id"]))
        except IllegalMove as e:
            results.append(str(e))

    with old.lock:
        monkeypatch.setattr(hub, "get", get_and_tell)
        waiting = threading.Thread(target=act)
        waiting.start()
        assert fetched.wait(WAIT_S)  # it holds the old game's runtime and waits for its lock
        monkeypatch.setattr(hub, "get", get)
        hub.restart(t["id"], old.rules.state_to_json(old.states[0]))
    waiting.join(WAIT_S)
    new = hub.get(t["id"])
    # the new game has nothing to undo yet
    assert results == ([new] if change == "play" else ["nothing to undo"])
    assert [m["move"]["kind"] for m in old.moves] == ["draw"]  # the old game as it was
    assert _moves_in_db(app, t["id"])[:1] == ['{"kind": "draw", "seat": null}']
    assert len(new.moves) == (1 if change == "play" else 0)


def test_a_data_folder_that_cannot_be_written_refuses_changes_clearly(
    app, client, make_table, monkeypatch
):
    """Read-only or full: the change is refused with 503 and why; pages still read."""
    import webui.db

    t = make_table("stigespill", deal="table")
    url = f"/api/tables/{t['id']}"
    before = client.get(url).get_json()
    connect = webui.db.connect

    def read_only(path):
        conn = connect(path)
        conn.execute("PRAGMA query_only = ON")  # writes fail as on a read-only disk
        return conn

    monkeypatch.setattr(webui.db, "connect", read_only)
    r = client.post(f"{url}/moves", json={"move": {"kind": "draw"}})
    assert r.status_code == 503
    assert r.get_json()["error"].startswith("cannot save the table's data (attempt to write")
    assert client.get(url).get_json()["moves_made"] == before["moves_made"] == 0
    assert client.get("/api/tables").status_code == 200
    monkeypatch.setattr(webui.db, "connect", connect)
    assert client.post(f"{url}/moves", json={"move": {"kind": "draw"}}).status_code == 200


def test_a_database_damaged_while_the_server_runs_is_said_so(app, client, make_table):
    """The start-up check passed, then the file was damaged (a failing disk, a sync tool
    writing over it): every page and change says the database is damaged and to put back a
    copy, as ``serve`` does at start, not "internal error (DatabaseError)"."""
    t = make_table("skipbo", stock=20, players=4)
    for _ in range(6):
        make_table("skipbo", stock=20, players=4)
    path = Path(app.config["DATABASE"])
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # every page in the file, none in the WAL
    conn.close()
    size = path.stat().st_size
    with path.open("r+b") as f:  # its header stays: it opens, and its pages read as damaged
        for page in range(4096, size, 4096):
            f.seek(page + 100)
            f.write(bytes(random.Random(page).randrange(256) for _ in range(3000)))
    for r in (
        client.get("/"),
        client.get("/api/tables"),
        client.get(t["players"][0]["url"]),
        client.post("/api/tables", json={"game": "sten", "players": 2}),
    ):
        said = r.get_json()["error"] if r.is_json else r.get_data(as_text=True)
        assert r.status_code == 503, said
        assert "database is damaged" in said and "put back a copy" in said, said
        assert "internal error" not in said.lower() and str(path) not in said


def test_a_database_in_a_read_only_folder_is_said_so(tmp_path, monkeypatch):
    """SQLite says only "unable to open database file" where it cannot write beside the
    database (a read-only mount, where even root may not)."""
    import sqlite3

    import webui.db

    def cannot(path):
        raise sqlite3.OperationalError("unable to open database file")

    monkeypatch.setattr(webui.db, "connect", cannot)
    monkeypatch.setattr(webui.db.os, "access", lambda path, mode: path != tmp_path)
    with pytest.raises(webui.db.StoreError, match=r"its folder .* is read-only"):
        webui.db.init_db(tmp_path / "kortbord.sqlite")


FULL_DISK = """
import json, subprocess, sys
from pathlib import Path
from webui import create_app

mnt = Path(sys.argv[1])
if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)]).returncode:
    sys.exit(77)  # no mounting here
app = create_app({"TESTING": True, "DATA_DIR": str(mnt / "data"), "CAMERA": False})
client = app.test_client()
t = client.post("/api/tables", json={"game": "sten", "players": 2}).get_json()
token = t["players"][0]["url"].rsplit("/", 1)[1]
with open(mnt / "filler", "wb", buffering=0) as f:  # the disk fills up, to the last byte
    for size in (65536, 4096, 1):
        try:
            while True:
                f.write(bytes(size))
        except OSError:
            pass
out = {}
for name, url in {
    "phone": f"/api/p/{token}",
    "phone page": f"/p/{token}",
    "table": f"/api/tables/{t['id']}",
    "list": "/api/tables",
}.items():
    r = client.get(url)
    out[name] = [r.status_code, (r.get_json(silent=True) or {}).get("error")]
# Changes go on while the files have room (each one kept), then are refused, saying why.
made = 0
for _ in range(1000):
    r = client.post("/api/tables", json={"game": "sten", "players": 8})
    if r.status_code != 201:
        out["change"] = [r.status_code, r.get_json()["error"]]
        break
    made += 1
out["made"] = made
out["tables"] = len(client.get("/api/tables").get_json()["tables"])
print(json.dumps(out))
"""


def test_a_full_disk_refuses_changes_and_the_phones_pages_still_read(tmp_path):
    """On a full disk every new connection failed to make the WAL's files, so a phone could
    not even open its page ('cannot save the table's data (disk I/O error)' on a read).
    Changes go on while the WAL has room, then are refused with the reason."""
    import json
    import os
    import shutil
    import subprocess
    import sys

    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("a small full disk needs root (unshare -m, a tmpfs)")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    root = str(Path(__file__).resolve().parents[2])
    run = subprocess.run(
        ["unshare", "-m", sys.executable, "-c", FULL_DISK, str(mnt)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=root,
        env={**os.environ, "PYTHONPATH": root},
    )
    if run.returncode == 77 or "unshare failed" in run.stderr:
        pytest.skip("no private mount here")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout.strip().splitlines()[-1])
    for read in ("phone", "phone page", "table", "list"):
        assert out[read][0] == 200, (read, out[read])
    assert out["change"][0] == 503 and "disk is full" in out["change"][1], out
    assert out["tables"] == 1 + out["made"]  # each table answered 201 is kept, no other


def test_the_database_file_alone_holds_every_accepted_move(app, client, make_table, tmp_path):
    """The WAL is held open (pages read on a full disk), and every change is copied into the
    database file too: a copy of that file alone, a family's backup, misses no move."""
    import shutil

    t = make_table("stigespill", deal="table")
    for card in ("5H", "3S", "4C"):
        r = client.post(
            f"/api/tables/{t['id']}/moves",
            json={"moves": [{"kind": "draw"}, {"kind": "reveal", "card": card}]},
        )
        assert r.status_code == 200
    copy = tmp_path / "backup" / "kortbord.sqlite3"
    copy.parent.mkdir()
    shutil.copy(app.config["DATABASE"], copy)
    conn = sqlite3.connect(copy)
    try:
        assert conn.execute("SELECT COUNT(*) FROM moves").fetchone()[0] == 6
    finally:
        conn.close()


class Killed(BaseException):
    """The server killed (no handler of the app catches it)."""


@pytest.mark.parametrize("change", ["new table", "next game"])
def test_a_deal_cut_off_by_a_kill_is_dealt_when_the_table_is_loaded(
    app, client, make_table, tmp_path, monkeypatch, change
):
    """Killed between a new game's write and the app's deal (two commits), a table where
    the app deals came back waiting for dealt cards nobody draws: each phone was asked
    which card it was dealt, as at a real table."""
    from webui.tables import TableHub

    def killed(*args, **kwargs):
        raise Killed

    if change == "new table":
        monkeypatch.setattr(TableHub, "_commit", killed)
        with pytest.raises(Killed):
            client.post("/api/tables", json={"game": "stigespill", "variant": "strategy"})
        table_id = client.get("/api/tables").get_json()["tables"][0]["id"]
    else:
        t = make_table("stigespill", variant="strategy", tokens=2, names="Anna")
        table_id = t["id"]
        hub = app.extensions["kortbord.hub"]
        rt = hub.get(table_id)
        while not rt.rules.is_over(rt.state):  # the app plays the game to its end
            rng = random.Random(len(rt.moves))
            hub.play(table_id, [rt.rules.greedy_move(rt.state, rng).to_json()], source="demo")
        monkeypatch.setattr(TableHub, "_commit", killed)
        with pytest.raises(Killed):
            client.post(f"/api/tables/{table_id}/next", json={})
    monkeypatch.undo()
    again = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "CAMERA": False})
    snap = again.test_client().get(f"/api/tables/{table_id}").get_json()
    assert "chance" not in snap  # nobody is asked for a card the app deals
    assert snap["moves_made"] == 6 and snap["to_move"] >= 0
    third = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "CAMERA": False})
    later = third.test_client().get(f"/api/tables/{table_id}").get_json()
    assert later["position"] == snap["position"]  # dealt once, and written


def test_a_table_loaded_while_its_next_game_begins_shows_the_new_game(
    app, make_table, tmp_path, monkeypatch
):
    """Just after a restart, a page's first look at a table (replaying its log) and a tap on
    "next game" can meet: the look finished its replay of the old game after the next game
    began, and its copy became the table's, the old game shown and played on for good."""
    from webui.tables import TableHub

    t = make_table("stigespill", variant="strategy", tokens=2, names="Anna")
    hub = app.extensions["kortbord.hub"]
    rt = hub.get(t["id"])
    while not rt.rules.is_over(rt.state):  # the app plays the game to its end
        rng = random.Random(len(rt.moves))
        hub.play(t["id"], [rt.rules.greedy_move(rt.state, rng).to_json()], source="demo")
    restarted = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "CAMERA": False})
    hub = restarted.extensions["kortbord.hub"]

    load, forget = TableHub._load, TableHub.forget
    replayed, go_on = threading.Event(), threading.Event()
    looks: list = []

    def slow_load(self, table):  # the page's look replays slowly
        rt = load(self, table)
        if threading.current_thread() is look:
            replayed.set()
            go_on.wait(WAIT_S)
        return rt

    def forget_while_the_look_ends(self, table_id):
        forget(self, table_id)
        go_on.set()
        look.join(WAIT_S)

    look = threading.Thread(target=lambda: looks.append(hub.get(t["id"])))
    monkeypatch.setattr(TableHub, "_load", slow_load)
    look.start()
    assert replayed.wait(WAIT_S)
    monkeypatch.setattr(TableHub, "forget", forget_while_the_look_ends)
    started = hub.next_game(t["id"])
    monkeypatch.undo()
    assert looks[0].number == 2 and started.number == 2
    assert hub.get(t["id"]).number == 2
    assert not hub.get(t["id"]).rules.is_over(hub.get(t["id"]).state)


def test_a_team_plays_labels_say_whose_pile():
    """Own stock and the partner's may show the same card: the buttons must differ."""
    from referee import make_rules
    from webui import games, i18n

    rules = make_rules("skipbo", players=4, teams=True)
    names = ["Anna", "Bo", "Cy", "Di"]
    play = {"kind": "play", "source": "stock", "card": "SBW", "pile": 0}
    en, da = i18n.translator("en"), i18n.translator("da")
    assert games.move_label(rules, play, en, names) == "Skip-Bo from stock → pile 1"
    partner = {**play, "owner": 2}
    assert games.move_label(rules, partner, en, names) == "Skip-Bo from the stock of Cy → pile 1"
    assert games.move_label(rules, partner, da, names) == "Skip-Bo fra Cys grundbunke → bunke 1"
    fan = {**partner, "source": "discard", "index": 1}
    assert games.move_label(rules, fan, en, names) == "Skip-Bo from discard pile 2 of Cy → pile 1"
    discard = {"kind": "discard", "card": "SB7", "pile": 3}
    assert games.move_label(rules, discard, da, names) == "Læg 7 på aflægningsbunke 4"


# ---- a Stigespill deal with real cards, noted ahead on the players' phones ---------------
def _real_deal(make_table, players: int = 3):
    names = ", ".join(["Anna", "Bo", "Cy", "Di"][:players])
    return make_table("stigespill", players=players, names=names, variant="strategy", deal="table")


def _note(client, t, seat, note=(), drop=()):
    return client.post(
        f"/api/p/{token(t, seat)}/deal", json={"note": list(note), "drop": list(drop)}
    )


def _hand(client, t, seat):
    return sorted(client.get(f"/api/p/{token(t, seat)}").get_json()["view"]["hand"])


def test_a_deal_noted_ahead_is_entered_seat_by_seat_while_the_phones_sleep(client, make_table):
    """Each phone notes its three cards once, in any order; the table enters each as the deal
    comes round to its seat, with no phone awake to send it then."""
    t = _real_deal(make_table)
    dealt = {2: ["AS", "5H", "3C"], 1: ["2D", "6S", "AH"], 0: ["4C", "4D", "6H"]}
    for seat in (2, 1):  # the deal starts at Anna: Cy's and Bo's cards wait on the table
        r = _note(client, t, seat, dealt[seat])
        assert r.status_code == 200, r.get_json()
        assert r.get_json()["deal"] == {"noted": dealt[seat], "refused": []}
        assert r.get_json()["moves_made"] == 0
    # every page sees how many each phone noted, never which
    table = client.get(f"/api/tables/{t['id']}").get_json()
    assert table["deal_noted"] == [0, 3, 3] and "deal" not in table
    # Anna taps hers: her first card goes in, then one card per seat round by round
    r = _note(client, t, 0, dealt[0]).get_json()
    assert r["moves_made"] == 9 and r["view"]["waiting_for"] is None and "deal" not in r
    order = [m["move"]["card"] for m in _rt(client.application, t["id"]).moves]
    assert order == ["4C", "2D", "AS", "4D", "6S", "5H", "6H", "AH", "3C"]
    for seat, cards in dealt.items():
        assert _hand(client, t, seat) == sorted(cards)


def test_noted_cards_outlast_a_restart(app, client, make_table, tmp_path):
    t = _real_deal(make_table, players=2)
    assert _note(client, t, 1, ["2D", "6S", "AH"]).status_code == 200
    again = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "CAMERA": False})
    c2 = again.test_client()
    assert c2.get(f"/api/p/{token(t, 1)}").get_json()["deal"]["noted"] == ["2D", "6S", "AH"]
    assert _note(c2, t, 0, ["4C", "4D", "6H"]).get_json()["view"]["waiting_for"] is None
    assert _hand(c2, t, 1) == ["2D", "6S", "AH"]


def test_what_the_pages_say_until_the_next_change_outlasts_a_restart(
    app, client, make_table, tmp_path
):
    """The cards to put back after an undo, and a phone's dealt card that went to another
    player, are said until the next change: a restart in between does not hush them."""
    t = _real_deal(make_table, players=2)
    _note(client, t, 1, ["2D", "6S", "AH"])
    _note(client, t, 0, ["4C", "2D"])  # Anna noted Bo's 2♦: refused, and she hears why
    u = make_table("stigespill", deal="table")
    url = f"/api/tables/{u['id']}"
    client.post(
        f"{url}/moves", json={"moves": [{"kind": "draw"}, {"kind": "reveal", "card": "5H"}]}
    )
    check = client.post(f"{url}/undo", json={}).get_json()["notice"]["check"]
    again = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "CAMERA": False})
    c2 = again.test_client()
    assert c2.get(url).get_json()["notice"]["check"] == check
    refused = c2.get(f"/api/p/{token(t, 0)}").get_json()["deal"]["refused"]
    assert [x["card"] for x in refused] == ["2D"]
    assert refused[0]["reason"].startswith("2♦ went to another player")
    # the next change ends them, and a restart after it brings none back
    c2.post(f"{url}/moves", json={"moves": [{"kind": "draw"}, {"kind": "reveal", "card": "3S"}]})
    c2.post(f"/api/tables/{t['id']}/undo", json={})
    third = create_app({"TESTING": True, "DATA_DIR": str(tmp_path), "CAMERA": False})
    c3 = third.test_client()
    assert c3.get(url).get_json()["notice"] is None
    assert c3.get(f"/api/p/{token(t, 0)}").get_json()["deal"]["refused"] == []


def test_a_card_noted_by_two_phones_goes_to_the_first_dealt_and_the_other_hears_why(
    client, make_table
):
    t = _real_deal(make_table, players=2)
    assert _note(client, t, 1, ["2D", "6S", "AH"]).status_code == 200
    # Anna notes Bo's 2♦ by mistake: her first card goes in, then Bo's 2♦; her second is 2♦
    r = _note(client, t, 0, ["4C", "2D"]).get_json()
    assert r["deal"]["noted"] == []
    assert [x["card"] for x in r["deal"]["refused"]] == ["2D"]
    assert _hand(client, t, 0) == ["4C"] and _hand(client, t, 1) == ["2D"]
    # noted again while the deal is at Anna, it is refused again at once
    r = _note(client, t, 0, ["2D"]).get_json()
    assert [x["card"] for x in r["deal"]["refused"]] == ["2D"]
    # an undo (of Bo's 2♦) may bring the card back: the refusal goes with it
    client.post(f"/api/tables/{t['id']}/undo", json={})
    assert client.get(f"/api/p/{token(t, 0)}").get_json()["deal"]["refused"] == []


def test_noting_cards_tells_a_phone_nothing_of_the_other_hands(client, make_table):
    """A phone learns that a card is in another hand only when the deal reaches it (its own
    card is lost then), never by noting every die card to see which are refused."""
    t = _real_deal(make_table, players=2)
    _note(client, t, 1, ["2D", "6S", "AH"])
    _note(client, t, 0, ["4C"])  # 4♣ to Anna, then Bo's 2♦: the deal is at Anna again
    die = [r + s for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6")]
    refused = _note(client, t, 1, die).get_json()["deal"]["refused"]
    assert len(refused) == 21  # all but the three in Bo's hand or notes
    assert all(x["reason"].endswith("your 3 cards are noted already") for x in refused)
    # Anna's page is offered Bo's cards among the die cards she may have been dealt
    anna = client.get(f"/api/p/{token(t, 0)}").get_json()
    offered = {m["move"]["card"] for m in anna["moves"] if m["move"]["kind"] == "reveal"}
    assert {"2D", "6S", "AH"} <= offered and "4C" not in offered


@pytest.mark.parametrize(
    "seats",
    [{"players": 2, "names": "Anna, Bo", "open": "1"}, {"players": 1, "names": "Anna"}],
    ids=["one-device", "solo"],
)
def test_one_device_offers_only_the_die_cards_that_can_be_drawn(client, make_table, seats):
    """One device for a real-cards strategy game: the table's page serves every player and
    knows every hand, yet it offered the die cards already dealt (each tap on one refused, "A♠
    is not in the die pile"). It offers the die pile's cards now, the hands' cards not. A solo
    player's two tokens are one device's too: their table's page offered no die card to deal
    at all, and one tried was refused ("that move belongs on the player's own page")."""
    t = make_table("stigespill", variant="strategy", deal="table", **seats)
    url = f"/api/tables/{t['id']}"

    def offered() -> set[str]:
        snap = client.get(url).get_json()
        return {m["move"]["card"] for m in snap["moves"] if m["move"]["kind"] == "reveal"}

    dealt = ["AS", "AH", "2S", "2H", "3S", "3H"]  # Anna's, Bo's, in turn
    for k, card in enumerate(dealt):
        assert card in offered() and not set(dealt[:k]) & offered(), k
        r = client.post(f"{url}/moves", json={"move": {"kind": "reveal", "card": card}})
        assert r.status_code == 200, r.get_json()
    hand = client.get(url).get_json()["view"]["hand"]
    assert sorted(hand) == ["2S", "3S", "AS"]  # Anna's, on turn
    assert client.post(f"{url}/moves", json={"move": {"kind": "draw"}}).status_code == 200
    drawable = offered()
    assert len(drawable) == 25 - len(dealt) and "JK" in drawable and not set(dealt) & drawable
    r = client.post(f"{url}/moves", json={"move": {"kind": "reveal", "card": "AD"}})
    assert r.status_code == 200, r.get_json()


def test_a_redo_that_brings_the_deal_to_a_noted_seat_enters_its_cards(client, make_table):
    t = _real_deal(make_table, players=2)
    _note(client, t, 1, ["2D", "6S"])
    _note(client, t, 0, ["4C", "4D"])  # 4♣, 2♦, 4♦, 6♠
    assert client.get(f"/api/tables/{t['id']}").get_json()["moves_made"] == 4
    client.post(f"/api/tables/{t['id']}/undo", json={})  # 6♠ onto the redo stack
    _note(client, t, 0, ["6H"])  # Anna's third waits: the deal is at Bo
    r = client.post(f"/api/tables/{t['id']}/redo", json={}).get_json()
    # 6♠ again, and the deal is at Anna, whose 6♥ goes in; then it waits for Bo's third
    assert r["moves_made"] == 5 and r["deal_noted"] == [0, 0]
    assert _hand(client, t, 0) == ["4C", "4D", "6H"]


def test_a_noted_card_is_taken_back_and_a_fourth_is_refused(client, make_table):
    t = _real_deal(make_table, players=2)
    url = f"/api/p/{token(t, 1)}"
    r = _note(client, t, 1, ["2D", "6S", "AH", "3H"]).get_json()
    assert r["deal"]["noted"] == ["2D", "6S", "AH"]
    assert r["deal"]["refused"] == [
        {"card": "3H", "reason": "3♥ was not noted: your 3 cards are noted already"}
    ]
    r = _note(client, t, 1, note=["3H"], drop=["6S"]).get_json()
    assert r["deal"] == {"noted": ["2D", "AH", "3H"], "refused": []}
    # the same again changes nothing (a phone that sends twice)
    assert _note(client, t, 1, note=["3H"], drop=["6S"]).get_json()["deal"]["noted"] == [
        "2D",
        "AH",
        "3H",
    ]
    assert client.get(f"/api/p/{token(t, 0)}").get_json()["deal"]["noted"] == []
    assert client.get(url).get_json()["moves_made"] == 0


@pytest.mark.parametrize(
    "body",
    [
        {"note": ["7S"]},
        {"note": ["JK"]},
        {"note": ["XX"]},
        {"note": "4C"},
        {"drop": [4]},
        {"note": ["4C"] * 25},
    ],
)
def test_a_deal_note_that_names_no_die_card_is_a_bad_request(client, make_table, body):
    t = _real_deal(make_table, players=2)
    r = client.post(f"/api/p/{token(t, 0)}/deal", json=body)
    assert r.status_code == 400 and r.get_json()["error"]
    assert client.get(f"/api/p/{token(t, 0)}").get_json()["deal"]["noted"] == []


def test_cards_are_noted_only_while_a_real_table_deals(client, make_table):
    app_dealt = make_table("stigespill", variant="strategy", deal="app")
    r = client.post(f"/api/p/{token(app_dealt, 0)}/deal", json={"note": ["4C"]})
    assert r.status_code == 409 and "no deal is waiting" in r.get_json()["error"]
    t = _real_deal(make_table, players=2)
    _note(client, t, 1, ["2D", "6S", "AH"])
    _note(client, t, 0, ["4C", "4D", "6H"])
    r = _note(client, t, 0, ["5C"])
    assert r.status_code == 409 and "no deal is waiting" in r.get_json()["error"]


def test_an_undone_deal_card_is_not_entered_again_by_the_notes(client, make_table):
    """The table's undo takes back the last card entered; the notes wait for the next change
    rather than put a card straight back where the undo made room."""
    t = _real_deal(make_table, players=2)
    _note(client, t, 1, ["2D", "6S", "AH"])
    assert _note(client, t, 0, ["4C"]).get_json()["moves_made"] == 2  # 4♣, then Bo's 2♦
    r = client.post(f"/api/tables/{t['id']}/undo", json={}).get_json()
    assert r["moves_made"] == 1 and _hand(client, t, 1) == []
    assert client.get(f"/api/p/{token(t, 1)}").get_json()["deal"]["noted"] == ["6S", "AH"]
    # the next change (Bo's phone notes the 2♦ again) enters Bo's next noted card
    r = _note(client, t, 1, ["2D"]).get_json()
    assert r["moves_made"] == 2 and r["view"]["hand"] == ["6S"]
    assert r["deal"]["noted"] == ["AH", "2D"]


def test_each_stock_card_turning_up_is_asked_on_its_owners_phone(client, make_table):
    """At a real Skip-Bo table each stock's top card is turned up at the start: the phone of
    the player whose stock it is asks for it (it had asked the player on turn for both)."""
    t = make_table("skipbo", players=2, names="Mor, Far", deal="table")
    for seat in (0, 1):
        snaps = [client.get(f"/api/p/{token(t, s)}").get_json() for s in (0, 1)]
        assert [s["chance"]["mine"] for s in snaps] == [seat == 0, seat == 1]
        assert snaps[seat]["chance"]["kind"] == "turn_up"
        assert snaps[seat]["chance"]["about"] == seat
        reveal = next(m["move"] for m in snaps[seat]["moves"] if m["move"]["kind"] == "reveal")
        r = client.post(f"/api/p/{token(t, seat)}/moves", json={"move": reveal})
        assert r.status_code == 200, r.get_json()
    # then Mor draws her hand: hers alone to say
    snaps = [client.get(f"/api/p/{token(t, s)}").get_json()["chance"] for s in (0, 1)]
    assert [c["kind"] for c in snaps] == ["draw", "draw"]
    assert [c["mine"] for c in snaps] == [True, False]


def _play_stigespill_to_the_end(client, url: str) -> None:
    # the cards drawn at random: always the first could walk a token in and out of the goal
    rng = random.Random(7)
    for _ in range(5000):
        snap = client.get(url).get_json()
        if snap["over"]:
            return
        move = rng.choice(snap["moves"])["move"]  # the draw, then a card drawn
        assert client.post(f"{url}/moves", json={"move": move}).status_code == 200
    raise AssertionError("the game did not end")


def test_a_real_tables_next_stigespill_game_keeps_its_road_and_the_next_seat_begins(
    client, make_table
):
    """The road laid out with real cards stays on the table: the next game is played on it
    (it was a new proposal to lay out again), begun by the next seat."""
    t = make_table("stigespill", players=2, deal="table")
    url = f"/api/tables/{t['id']}"
    first = client.get(url).get_json()
    assert first["road_proposed"] and first["to_move"] == 0
    road = [tile["code"] for tile in first["view"]["road"]]
    # the road proposed to lay out spreads its ladders and snakes evenly
    assert layout_advice(road)["unevenness"] == layout_advice(road)["even_unevenness"]
    _play_stigespill_to_the_end(client, url)
    r = client.post(f"{url}/next", json={})
    assert r.status_code == 200, r.get_json()
    second = client.get(url).get_json()
    assert [tile["code"] for tile in second["view"]["road"]] == road
    assert second["to_move"] == 1 and "road_proposed" not in second
    assert "Bo begins" in second["last"]


def test_an_undo_at_a_real_table_says_which_move_to_put_back(client, make_table):
    """The real cards do not go back by themselves: every page says what was undone (as the
    table's page said it, so no hand card is named), until the next change."""
    t = make_table("stigespill", deal="table")
    url = f"/api/tables/{t['id']}"
    client.post(
        f"{url}/moves", json={"moves": [{"kind": "draw"}, {"kind": "reveal", "card": "5H"}]}
    )
    r = client.post(f"{url}/undo", json={}).get_json()
    check = r["notice"]["check"]
    assert check.startswith("Undone: Anna drew 5♥") and check.endswith(
        "Put the cards on the table back as they were."
    )
    assert client.get(f"/api/p/{token(t, 1)}").get_json()["notice"]["check"] == check
    client.post(
        f"{url}/moves", json={"moves": [{"kind": "draw"}, {"kind": "reveal", "card": "3S"}]}
    )
    assert client.get(url).get_json()["notice"] is None
    # a hand card drawn at a real Skip-Bo table is said as the table's page said it
    sb = make_table("skipbo", players=2, names="Mor, Far", deal="table", stock=5)
    for seat in (0, 1, 0):  # the two stocks turn up, then Mor draws her first card
        mine = client.get(f"/api/p/{token(sb, seat)}").get_json()
        reveal = next(m["move"] for m in mine["moves"] if m["move"]["kind"] == "reveal")
        assert (
            client.post(f"/api/p/{token(sb, seat)}/moves", json={"move": reveal}).status_code == 200
        )
    r = client.post(f"/api/tables/{sb['id']}/undo", json={}).get_json()
    assert r["notice"]["check"] == (
        "Undone: Mor draws a card. Put the cards on the table back as they were."
    )
    # where the app deals there is nothing to put back
    app_dealt = make_table("stigespill")
    u = f"/api/tables/{app_dealt['id']}"
    client.post(f"{u}/moves", json={"move": {"kind": "draw"}})
    assert client.post(f"{u}/undo", json={}).get_json()["notice"] is None


def test_an_undo_names_no_card_the_app_picked_at_a_real_table(client, make_table):
    """At a real table with no real card for a draw, the page lets the app pick one: that
    card never lay on the table, and its undo said "Undone: Anna drew 5♥ …. Put the cards
    on the table back as they were." Now an undo says only what lay on the table."""
    t = make_table("stigespill", deal="table")
    url = f"/api/tables/{t['id']}"
    client.post(f"{url}/moves", json={"move": {"kind": "draw"}})  # tapped on the page
    assert client.post(f"{url}/draw", json={}).status_code == 200  # "let the app pick one"
    r = client.post(f"{url}/undo", json={}).get_json()
    assert r["moves_made"] == 0 and r["notice"] is None
    # a Skip-Bo discard lies on the table, the next player's cards the app picked do not
    sb, u = _mor_discards(client, make_table)
    assert client.post(f"/api/p/{token(sb, 1)}/draw", json={}).status_code == 200
    check = client.post(f"{u}/undo", json={}).get_json()["notice"]["check"]
    assert check.startswith("Undone: Mor discards") and "Far" not in check


def test_a_phone_takes_back_its_own_last_move_at_a_real_table(client, make_table):
    """A tap by mistake on a phone is taken back there, while it is the table's last move;
    another player's move, and any move where the app deals, stay for the table's page."""
    t = make_table("stigespill", deal="table")
    anna, bo = (f"/api/p/{token(t, s)}" for s in (0, 1))
    move = {"moves": [{"kind": "draw"}, {"kind": "reveal", "card": "5H"}]}
    assert client.post(f"{anna}/moves", json=move).status_code == 200
    assert client.get(anna).get_json()["can_undo"] and not client.get(bo).get_json()["can_undo"]
    r = client.post(f"{bo}/undo", json={})
    assert r.status_code == 409 and "only its own last move" in r.get_json()["error"]
    r = client.post(f"{anna}/undo", json={})
    assert r.status_code == 200 and r.get_json()["moves_made"] == 0
    assert not r.get_json()["can_undo"]  # nothing of hers is left to take back
    app_dealt = make_table("stigespill")
    mine = f"/api/p/{token(app_dealt, 0)}"
    assert client.post(f"{mine}/moves", json={"move": {"kind": "draw"}}).status_code == 200
    assert not client.get(mine).get_json()["can_undo"]  # else a drawn card could be drawn again
    assert client.post(f"{mine}/undo", json={}).status_code == 409


def test_the_app_picks_no_card_another_phone_noted_at_a_real_deal(client, make_table):
    names = "A, B, C, D, E, F, G, H"
    t = make_table("stigespill", players=8, names=names, variant="strategy", deal="table")
    die = [r + s for s in "SHDC" for r in ("A", "2", "3", "4", "5", "6")]
    for seat in range(1, 8):  # seven phones note 21 of the 24 die cards
        assert _note(client, t, seat, die[3 * seat : 3 * seat + 3]).status_code == 200
    r = client.post(f"/api/p/{token(t, 0)}/draw", json={}).get_json()  # seat 0: "pick one"
    assert r["view"]["hand"][0] in die[:3]


def _enter_cards(client, t, url: str) -> dict:
    """Enter every pending Skip-Bo card on the phone that says it; return the snapshot."""
    for _ in range(60):
        snap = client.get(url).get_json()
        if snap["to_move"] != -1:
            return snap
        seat = snap["chance"]["seat"]
        seat = snap["chance"]["about"] if seat is None else seat
        mine = client.get(f"/api/p/{token(t, seat)}").get_json()
        reveal = next(m["move"] for m in mine["moves"] if m["move"]["kind"] == "reveal")
        assert (
            client.post(f"/api/p/{token(t, seat)}/moves", json={"move": reveal}).status_code == 200
        )
    raise AssertionError("the cards did not end")


def _mor_discards(client, make_table) -> tuple[dict, str]:
    """Return (table, its url) of a real Skip-Bo table, Mor and Far, where Mor discarded on
    her phone after the cards were entered (Far's hand is yet to be drawn)."""
    t = make_table("skipbo", players=2, names="Mor, Far", deal="table", stock=5)
    url = f"/api/tables/{t['id']}"
    _enter_cards(client, t, url)
    mor = client.get(f"/api/p/{token(t, 0)}").get_json()
    discard = next(m["move"] for m in mor["moves"] if m["move"]["kind"] == "discard")
    assert client.post(f"/api/p/{token(t, 0)}/moves", json={"move": discard}).status_code == 200
    return t, url


def test_a_phone_takes_back_nothing_another_player_entered_or_the_table_gave(client, make_table):
    """Mor discards on her phone, then Far enters the five cards she draws on hers: the two
    go together on the table's undo, so neither phone takes them back (Mor's would have
    emptied Far's hand). A penalty the table gave is the table's to take back."""
    t, url = _mor_discards(client, make_table)
    assert client.get(f"/api/p/{token(t, 0)}").get_json()["can_undo"]  # nothing drawn yet
    _enter_cards(client, t, url)
    assert not any(client.get(f"/api/p/{token(t, s)}").get_json()["can_undo"] for s in (0, 1))
    r = client.post(f"{url}/undo", json={}).get_json()
    # the notice says the move as well as the last card drawn after it
    assert r["notice"]["check"].startswith("Undone: Mor discards")
    assert "; Far draws a card. Put the cards" in r["notice"]["check"]
    team = make_table("skipbo", players=4, names="A, B, C, D", teams=True, deal="table")
    u = f"/api/tables/{team['id']}"
    _enter_cards(client, team, u)
    assert (
        client.post(f"{u}/moves", json={"move": {"kind": "penalty", "seat": 2}}).status_code == 200
    )
    _enter_cards(client, team, u)
    assert not client.get(f"/api/p/{token(team, 2)}").get_json()["can_undo"]
    assert client.post(f"/api/p/{token(team, 2)}/undo", json={}).status_code == 409


def test_a_correction_the_referee_refuses_changes_nothing(app, make_table):
    """The table's page confirms the camera's moves read again; a reading the referee refuses
    is refused with its reason, and the camera's moves stay the game's, in memory and stored."""
    from webui.tables import Refusal

    t = make_table("stigespill", deal="table")
    hub = app.extensions["kortbord.hub"]
    hub.play(t["id"], [{"kind": "draw"}, {"kind": "reveal", "card": "5H"}], source="camera")
    seen, stored = [e["move"] for e in _rt(app, t["id"]).moves], _moves_in_db(app, t["id"])
    misread = [seen[0], {"kind": "reveal", "card": "9H"}]  # a road card, no die card
    with pytest.raises(Refusal, match="9♥ is not in the die pile"):
        hub.correct(t["id"], seen, misread)
    assert [e["move"] for e in _rt(app, t["id"]).moves] == seen
    assert _moves_in_db(app, t["id"]) == stored

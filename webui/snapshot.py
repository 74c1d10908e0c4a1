"""What one page is sent: the referee's view for that page's seat, plus the moves it may make.

The table's page gets ``view(state, None)`` and only public moves; a player's page gets
``view(state, seat)`` and that player's moves. Nothing here reads a hand for another seat.
"""

from __future__ import annotations

import time
from typing import Any

from referee import CHANCE, RulesError
from referee.stigespill import HAND_SIZE, layout_advice
from webui import games, speech
from webui.camera import shown_source
from webui.i18n import Translator
from webui.tables import ROAD_FROM_CAMERA, ROAD_GRID, ROAD_PROPOSED, RUN, Runtime, TableHub

UNDONE = "Undone: {move}. Put the cards on the table back as they were."
REFUSAL_SHOWN_S = 60  # a refused move's reason is news for a minute, not until the next move
HINT_GAMES_PUBLIC = ("stigespill",)  # classic Stigespill has no hidden cards: hints are public


def snapshot(
    rt: Runtime,
    seat: int | None,
    t: Translator,
    hub: TableHub | None = None,
    camera: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Return the JSON a page renders; ``t`` translates; ``seat`` None is the table's page,
    which also shows ``camera``: what the table's camera does (``{"state", "message"}``)."""
    rules, state = rt.rules, rt.state
    view_seat = seat
    on = rules.to_move(state)
    if seat is None and rt.one_device and on != CHANCE and not rules.is_over(state):
        view_seat = on  # one device for everyone: show the hand of the player on turn
    view = rules.view(state, view_seat)
    over = rules.is_over(state)
    road_pending = bool(rt.table["options"].get(ROAD_FROM_CAMERA))  # no move until it is read
    moves = games.moves_for(rules, state, seat, rt.one_device)
    if road_pending:
        moves = []
    moves = games.reveals_seen_from(rules, state, seat, moves, rt.one_device)
    names = games.shown_names(rt.names, t)
    out: dict[str, Any] = {
        "table": {
            "id": rt.table["id"],
            "name": games.table_name(rt.table, t),
            "game": rules.name,
            "title": games.GAME_TITLES[rules.name],
            "players": [
                {"seat": p["seat"], "name": names[p["seat"]], "colour": p["colour"]}
                for p in rt.table["players"]
            ],
            "source": shown_source(rt.table["source"]),
            "deal": rt.table["options"].get("deal", "app"),
            "open": rt.open_table,
            "number": rt.number,
            "match_target": rt.table.get("match_target"),
        },
        "seat": seat,
        "version": rt.version,
        "run": RUN,  # versions are ordered within one run of the server
        "position": rt.position,  # sent back with a change: it is made on this position
        "moves_made": len(rt.moves),
        "view": view,
        "to_move": on,
        "to_move_name": None if on == CHANCE else names[on],
        "over": over,
        "last": _joker_first(rt, t) + games.last_move_text(rules, view, names, t),
        "moves": [
            {"move": m.to_json(), "label": games.move_label(rules, m.to_json(), t, names)}
            for m in moves
        ],
        "can_undo": rt.last_action() is not None if seat is None else rt.undoable_by() == seat,
        "can_redo": bool(rt.redo) and seat is None,
        "notice": _notice(rt, t),
        "prompt": _prompt(rt, t) if seat is None else None,
    }
    if road_pending:
        out["road_pending"] = True  # the board shows the road's places until the camera reads it
    elif rt.table["options"].get(ROAD_PROPOSED) and not rt.moves:
        out["road_proposed"] = True  # the app's road: lay it out so, or type the one laid out
    elif rules.name == "stigespill" and seat is None and not rt.moves and rt.real_road:
        out["road_editable"] = True  # a road typed or read wrong may be put right till play
        out["road_shape"] = rt.table["options"].get("road_shape", "auto")  # as the camera reads it
        if rt.table["options"].get(ROAD_GRID):
            out["road_grid"] = True  # straight rows read as a snake: they may run like text
        advice = layout_advice([c.code for c in state.road])
        # for a family that just laid its road; a recorded video's road was laid and played
        # long ago (the demo's showed for the 2 s before the video's first move)
        if advice["clustered"] and not rt.table["source"].startswith("video:"):
            # the face cards bunch: the road spread out with the fewest cards moved (the same
            # cards, both orders kept) to lay out and take, or to leave
            out["road_advice"] = {
                "road": advice["proposed_road"],
                "moved": [to for _, _, to in advice["moved"]],  # the places of cards to move
                "run": advice["longest_face_run"],
                "gap": advice["largest_gap"],
            }
    if seat is None and camera is not None:
        out["camera"] = camera
    if seat is None and rules.name == "skipbo" and rt.table["source"] != "none":
        confirmed = rt.table["options"].get("zones")
        proposed = rt.zones
        if proposed is not None or confirmed is not None:
            out["zones"] = {
                # what the camera shows now: proposed, confirmed, or moved by a bumped camera
                "map": (proposed or {}).get("map") or confirmed,
                "frame": rt.table["options"].get("zones_frame") or (proposed or {}).get("frame"),
                "confirmed": confirmed is not None,
            }
    if games.chance_pending(rules, state) and not road_pending:
        owner = games.chance_owner(rules, state)
        kind, about = games.chance_about(rules, state)
        # a public card (a Stigespill draw, a stock turning up) is said on the table's page or
        # on the phone of the player it belongs to, whichever is at hand
        mine = (
            owner == seat
            or (seat is None and (owner is None or rt.one_device))
            or (owner is None and seat is not None and seat == about)
        )
        out["chance"] = {
            "question": games.describe_chance(rules, state, names, t, seat),
            "mine": mine,
            "seat": owner,  # whose phone alone may say it (a hand's card), else None
            "kind": kind,
            "about": about,
        }
    if seat is not None and rules.name == "sten" and not view.get("known_hands", True):
        # who laid what: a phone takes another player's card out of the cards tapped in
        out["laid_by"] = games.sten_laid_by(rules, rt.states, rt.moves)
    deal = None if road_pending or rt.app_deals else games.dealing_to(rules, state)
    if deal is not None:  # how many cards each phone has noted (each seat gets as many)
        out["deal_noted"] = [len(rt.noted.get(s, [])) for s in range(len(names))]
    if seat is not None and deal is not None:
        # a real table's deal: the cards this phone noted, entered as the deal reaches them
        out["deal"] = {
            "noted": rt.noted.get(seat, []),
            "refused": [
                {"card": code, "reason": t(reason, card=games.pretty(code), n=HAND_SIZE)}
                for reason, code in rt.deal_refused.get(seat, [])
            ],
        }
    if over:
        out["scores"] = rules.scores(state)
        winners = out["scores"].get("winners", [])
        out["winner_names"] = [names[s] for s in winners if 0 <= s < len(names)]
    hint_seat = seat if seat is not None else (on if on != CHANCE else None)
    public_hint = rt.one_device or (
        rules.name in HINT_GAMES_PUBLIC and rules.config.get("variant", "classic") == "classic"
    )
    if (
        hint_seat is not None
        and not over
        and not road_pending
        and (on == hint_seat or _seven_first(rules, view))
        and (seat is not None or public_hint)
    ):
        try:
            h = rules.hint(state, hint_seat)
            out["hint"] = {
                "text": _say(rt, h.reason, t),
                "move": h.move.to_json() if h.move else None,
            }
        except (RulesError, ValueError) as e:
            out["hint"] = {"text": str(e), "move": None}
    if hub is not None and rt.table.get("match_target") and rules.name == "skipbo":
        out["match"] = hub.match(rt.table["id"])
    elif hub is not None and rules.name != "skipbo" and (rt.number > 1 or over):
        # a Skip-Bo match adds its games up; the other games' evenings are kept as a list
        # (who won each game, who lost with the stone): none before the first game ends
        out["record"] = hub.record(rt.table["id"])
    return out


def _seven_first(rules, view: dict[str, Any]) -> bool:
    """Return whether a real Sten table waits for 7♥: whoever holds it starts, so every
    phone is as much on turn as the first seat (each gets its hint)."""
    return rules.name == "sten" and view.get("known_hands") is False and not view.get("started")


def _stale(notice: dict[str, Any] | None) -> bool:
    """Whether a notice is a refused move's reason shown long enough (cards to check stay)."""
    return bool(notice and notice.get("error") and time.time() - notice["at"] > REFUSAL_SHOWN_S)


def _notice(rt: Runtime, t: Translator) -> dict[str, Any] | None:
    """Return the table's notice in the page's language: a refused move's reason, or the
    cards to check (again, once the reason shown over them is stale)."""
    notice = rt.notice
    if notice is not None and _stale(notice):
        notice = notice.get("under")
    if notice is None:
        return None
    if notice.get("error"):
        return {"error": _say(rt, notice["error"], t), "at": notice["at"]}
    if notice.get("undone"):  # said as a card to check: the real cards go back too
        said = "; ".join(_say(rt, text, t) for text in notice["undone"])
        return {"check": t(UNDONE, move=said), "at": notice["at"]}
    return {**notice, "check": speech.say_checks(notice["check"], t)}


def _prompt(rt: Runtime, t: Translator) -> dict[str, Any] | None:
    """Return the camera's "out of sync" prompt with its message in the page's language."""
    if rt.prompt is None:
        return None
    candidates = [
        {**c, "label": games.candidate_label(rt.rules, c, t, games.shown_names(rt.names, t))}
        for c in rt.prompt.get("candidates", [])
    ]
    # the page heads the prompt "Out of sync — please confirm": the message says only why
    message = rt.prompt["message"]
    why = speech.OUT_OF_SYNC.fullmatch(message)
    said = _say(rt, why["why"] if why else message, t)
    return {**rt.prompt, "message": said, "candidates": candidates}


def _say(rt: Runtime, text: str, t: Translator) -> str:
    return speech.say_named(rt.rules.name, text, t, games.shown_names(rt.names, t))


def _joker_first(rt: Runtime, t: Translator) -> str:
    """Return the sentence of a Stigespill joker the app drew just before the last move (the
    piles reshuffled, then a draw again), to say before it; else "". One tap may make the
    draw, the joker and the card after it, and the last move alone would hide the joker."""
    n = len(rt.moves)
    if rt.rules.name != "stigespill" or n < 2 or rt.moves[-1]["source"] != "app":
        return ""
    for k in range(n - 2, -1, -1):
        said = rt.rules.view(rt.states[k + 1], None).get("last_move") or ""
        if "drew the joker" in said:
            return _say(rt, said, t) + ". "
        if rt.moves[k]["source"] != "app":
            break
    return ""

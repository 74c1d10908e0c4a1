"""Tables at run time: each table's game rebuilt by replaying its log, changed only through
the referee, written to the event store before anyone is told.

One :class:`TableHub` per app (``init_app``). A change takes the table's lock, checks the
move with the referee, commits it, updates the in-memory states, then wakes every page.
"""

from __future__ import annotations

import json
import logging
import random
import secrets
import sqlite3
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, current_app

from referee import CHANCE, IllegalMove, Rules, RulesError, make_rules
from referee.core import Move
from referee.skipbo import Match, SkipBo
from referee.stigespill import HAND_SIZE, ROAD_CARDS, Reveal, even_order
from webui import games, speech
from webui.db import EventStore
from webui.i18n import Translator
from webui.live import Broadcaster

log = logging.getLogger("kortbord.web.tables")


class Refusal(IllegalMove):
    """A move a table refused. ``str()`` is the referee's reason with the players' names;
    ``say(t)`` says it in a page's language."""

    def __init__(self, reason: str, game: str, names: list[str]) -> None:
        super().__init__(speech.name_seats(reason, names))
        self.reason, self.game, self.names = reason, game, names

    def say(self, t: Translator) -> str:
        """Return the reason said with ``t``, with the players' names."""
        return speech.say_named(self.game, self.reason, t, games.shown_names(self.names, t))


ROAD_FROM_CAMERA = "road_from_camera"  # a Stigespill table's option: no road given yet
ROAD_GRID = "road_grid"  # …the camera read straight rows as a serpentine: perhaps like text
ROAD_PHOTO = "road_photo"  # the road was read from a photo of it laid out on the table
ROAD_AS_TEXT = "road_as_text"  # …its straight rows read as a snake: the rows read like text
ROAD_PROPOSED = "road_proposed"  # …and no camera: the app's road until one is typed or played
VIDEO_READ = "video_read"  # a recorded video's table: {"game", "time"} its game followed it to
LOG_SHOWN = "log_shown"  # the game (its id) whose log, every hand in it, was handed out
# This run of the server: a page tells a restarted server's versions (its clock perhaps
# behind, so lower) from an older snapshot of this run's, which it must not go back to.
RUN = secrets.token_hex(8)
MAX_BATCH = 60  # moves in one request (a Sten go-out names at most 26 cards)
MAX_AUTO = 400  # chance moves the app resolves in one go (a Skip-Bo deal is far fewer)


def _road_read(rt: Runtime) -> None:
    """Refuse a move while the camera has yet to read the table's road: the game is played on
    the road laid out, and a move would fix the app's stand-in road for good."""
    if rt.table["options"].get(ROAD_FROM_CAMERA):
        raise IllegalMove("the camera has not read the road yet: lay it out where it sees it")


def _said(rules: Rules, state: Any) -> str:
    """Return the referee's sentence for the move that led to ``state``, as the table's page
    shows it (no hand card named)."""
    shown = rules.view(state, None)
    return shown.get("last_move") or shown.get("last") or ""


def _app_card(rt: Runtime, state: Any, rng: random.Random) -> Move:
    """Return the card the app picks for a page: at a real table's deal, none that another
    phone noted (that player holds it)."""
    noted = {code for cards in rt.noted.values() for code in cards}
    if noted and games.dealing_to(rt.rules, state) is not None:
        moves = rt.rules.legal_moves(state)  # a deal's: one reveal per card
        free = [m for m in moves if isinstance(m, Reveal) and m.card.code not in noted]
        if free:
            return rng.choice(free)
    return rt.rules.chance_move(state, rng)


def _still_in_die(rules: Rules, state: Any, noted: dict[int, list[str]]) -> dict[int, list[str]]:
    """Return the noted cards a deal has yet to enter (a card entered another way, or the
    deal's end, leaves them)."""
    if games.dealing_to(rules, state) is None:
        return {}
    return {s: [c for c in cards if games.in_die_pile(state, c)] for s, cards in noted.items()}


class Moved(IllegalMove):
    """A page's change made on a position the table has left (another device moved first, or
    a tap arrived twice): refused, told only to its sender."""


MOVED = "the table moved on before your tap arrived: look at the board and tap again"
NOT_YOURS = "a phone takes back only its own last move: the table's page undoes the others"
LOG_READ = (
    "the game's log was read after it ended and shows every hand: the game stays over (start"
    " the next one)"
)
# Why a phone's noted dealt card was not taken (said in the page's language)
DEALT_ELSEWHERE = (
    "{card} went to another player: if it is in your hand, their phone tapped it by mistake. "
    "Tell the table."
)
HAND_FULL = "{card} was not noted: your {n} cards are noted already"


class TableNotFound(LookupError):
    """No table with that id."""


class MalformedMove(IllegalMove):
    """A move the referee cannot even read (an unknown kind, a card code that is none, a
    seat that is no number): a bad request (400), not a game's refusal, so no page is told.
    Still an :class:`IllegalMove` where moves are refused alike (the camera's)."""


# What the referee raises for a move it cannot read or that breaks it (not a refusal)
_UNREADABLE = (RulesError, TypeError, ValueError, AttributeError, KeyError)


def _parsed(rules: Rules, moves: list[dict[str, Any]]) -> list[Move]:
    """Read every move of a request before any is tried; raise :class:`MalformedMove`."""
    try:
        return [rules.move_from_json(data) for data in moves]
    except _UNREADABLE as e:
        raise MalformedMove(str(e)) from None


def _applied(
    rt: Runtime, state: Any, moves: list[Move], check: Callable[[Any, Move], None] | None = None
) -> list[tuple[Move, Any]]:
    """Return each of ``moves`` with the state it leads to from ``state``, each first passed
    by ``check(state, move)`` where given. Raise :class:`Refusal` with the referee's reason (or
    ``check``'s), and :class:`IllegalMove` for a move that passed parsing but still broke the
    engine."""
    accepted = []
    try:
        for move in moves:
            if check is not None:
                check(state, move)
            state = rt.rules.apply(state, move)
            accepted.append((move, state))
    except IllegalMove as e:
        raise Refusal(str(e), rt.rules.name, rt.names) from None
    except _UNREADABLE as e:
        raise IllegalMove(f"malformed move: {e}") from None
    return accepted


@dataclass
class Runtime:
    """One table in memory: its rules, every state of the current game, its redo stack."""

    table: dict[str, Any]
    rules: Rules
    game_id: int
    number: int
    seed: int
    states: list[Any]
    moves: list[dict[str, Any]]  # {"move": json, "source": str}
    redo: list[dict[str, Any]]
    # Each change wakes the pages with a higher version; it starts from the clock (µs), so a
    # page open across a server restart never takes an older snapshot for a newer one.
    version: int = field(default_factory=lambda: time.time_ns() // 1000)
    prompt: dict[str, Any] | None = None  # "out of sync — please confirm", from the camera
    # The last refused move ({"error"}) or what to check ({"check"}), shown until the next change
    notice: dict[str, Any] | None = None
    zones: dict[str, Any] | None = None  # Skip-Bo camera zones proposed by the pipeline
    # A Stigespill deal with real cards: per seat, the cards its phone noted and the deal has
    # yet to reach (kept in the store), and the cards it could not note, with the reason
    noted: dict[int, list[str]] = field(default_factory=dict)
    deal_refused: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    kept: dict[str, Any] = field(default_factory=dict)  # the notices as the store keeps them
    undos: int = 0  # actions undone since loaded: the camera reads no undone card again
    lock: threading.RLock = field(default_factory=threading.RLock)

    @property
    def state(self) -> Any:
        return self.states[-1]

    @property
    def position(self) -> str:
        """Name the position of the game: a page sends the one it showed with a change."""
        last = json.dumps(self.moves[-1]["move"], sort_keys=True) if self.moves else ""
        return f"{self.number}.{len(self.moves)}.{zlib.crc32(last.encode()):08x}"

    def expect(self, position: str | None) -> None:
        """Refuse a change made on another position than this (``None``: no check)."""
        if position is not None and position != self.position:
            raise Moved(MOVED)

    def last_action(self) -> int | None:
        """Return where the last action starts in the moves (a move and the cards drawn
        after it, which belong to it), or ``None`` when there is none to take back (no move,
        or only the app's deal)."""
        if not self.moves:
            return None
        k = len(self.moves) - 1
        while k > 0 and self.rules.to_move(self.states[k]) == CHANCE:
            k -= 1
        if self.rules.to_move(self.states[k]) == CHANCE:
            if self.app_deals:
                return None
            k = len(self.moves) - 1  # only cards were entered so far: take back the last one
        return k

    def undoable_by(self) -> int | None:
        """Return the seat whose phone may take back the last action, else ``None`` (the
        table's page undoes any): at a real table, an action whose every move that seat's
        phone made or entered (not a penalty the table gave, not another player's cards
        drawn after it)."""
        k = self.last_action()
        if k is None or self.app_deals:
            return None
        seats = {
            games.entered_by(self.rules, self.states[i], self.rules.move_from_json(e["move"]))
            for i, e in enumerate(self.moves[k:], start=k)
        }
        return seats.pop() if len(seats) == 1 else None

    @property
    def lasting_notice(self) -> dict[str, Any] | None:
        """Return what the pages say until the next change (the cards to put back after an
        undo, what to check), also while a refused move's reason is shown over it: a refusal
        changes nothing, and it is said again when the reason has been shown."""
        notice = self.notice
        return notice.get("under") if notice and notice.get("error") else notice

    @property
    def names(self) -> list[str]:
        return [p["name"] for p in self.table["players"]]

    @property
    def real_road(self) -> bool:
        """Whether the road lies on a real table (real cards, a camera watching, or a road
        read from a photo of it): a game played on phones has only the app's road, or one
        typed, nothing to put right."""
        options = self.table["options"]
        return (
            options.get("deal") == "table"
            or self.table["source"] != "none"
            or bool(options.get(ROAD_PHOTO))
        )

    @property
    def open_table(self) -> bool:
        """Whether the players pass one device round ("One device for everyone"): each hand
        shows when its player taps."""
        return bool(self.table["options"].get("open"))

    @property
    def one_device(self) -> bool:
        """Whether one device serves every player (no player needs a page of their own): a
        table chosen so ("One device for everyone"), or a solo Stigespill player's tokens."""
        return self.open_table or (self.rules.name == "stigespill" and self.rules.players == 1)

    @property
    def app_deals(self) -> bool:
        return self.table["options"].get("deal", "app") == "app"


class TableHub:
    """Creates, loads and changes tables; the only writer of moves."""

    def __init__(self, store: EventStore, broadcaster: Broadcaster):
        self.store = store
        self.broadcaster = broadcaster
        self._tables: dict[str, Runtime] = {}
        self._forgotten: dict[str, int] = {}  # table id → times its copy was dropped
        self._lock = threading.Lock()
        self.listeners: list = []  # callables(table_id) told after every change (camera, demo)

    # ---- creating and loading ---------------------------------------------------------
    def create(
        self,
        setup: games.Setup,
        source: str = "none",
        name: str | None = None,
        initial: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Create a table with its players and first game; return the table record.

        ``initial`` starts from a given state (JSON), e.g. a recorded video's set-up.
        """
        rules = make_rules(setup.game, **setup.config)
        seed = secrets.randbits(63)
        options = setup.options
        if (
            setup.game == "stigespill"
            and "road" not in setup.config
            and options.get("deal") == "table"
            and initial is None
        ):
            # real cards and no road given: a camera reads the laid-out road; without one the
            # app's road is a proposal, to lay out like the board or to replace by typing
            options = {**options, ROAD_FROM_CAMERA if source != "none" else ROAD_PROPOSED: True}
            if source == "none":
                # the proposal spreads the ladders and snakes evenly (a shuffle clumps them)
                road = list(ROAD_CARDS)
                random.Random(seed).shuffle(road)
                rules = make_rules(setup.game, **{**setup.config, "road": even_order(road)})
        if initial is not None:
            state = rules.state_from_json(initial)
        else:
            state = games.start_state(rules, random.Random(seed), options)
        table_id = secrets.token_urlsafe(6).replace("-", "x").replace("_", "y")
        table = {
            "id": table_id,
            "name": games.printable(name or "").strip()[:40] or games.GAME_TITLES[setup.game],
            "game": setup.game,
            "config": setup.config,
            "options": options,
            "join_code": f"{secrets.randbelow(10**6):06d}",
            "owner_token": secrets.token_urlsafe(16),
            "source": source,
            "match_target": setup.match_target,
        }
        colours = setup.colours or games.COLOURS
        players = [
            {
                "seat": s,
                "name": n,
                "colour": colours[s % len(colours)],
                "token": secrets.token_urlsafe(16),
            }
            for s, n in enumerate(setup.names)
        ]
        first = {
            "game": setup.game,
            "config": setup.config,
            "initial": rules.state_to_json(state),
            "seed": seed,
        }
        self.store.create_table(table, players, first)
        with self._locked(table_id) as rt:
            if rt.app_deals:
                self._commit(rt, [], "app")
        made = self.store.table(table_id)
        if made is None:  # removed the moment it was made
            raise TableNotFound(table_id)
        return made

    def get(self, table_id: str) -> Runtime:
        """Return the table's runtime, replaying its log on first use."""
        while True:
            with self._lock:
                rt = self._tables.get(table_id)
                forgotten = self._forgotten.get(table_id, 0)
            if rt is not None:
                return rt
            if not isinstance(table_id, str) or not table_id.isascii() or len(table_id) > 32:
                raise TableNotFound(table_id)
            table = self.store.table(table_id)
            if table is None:
                raise TableNotFound(table_id)
            rt = self._load(table)
            with self._lock:
                if self._forgotten.get(table_id, 0) != forgotten:
                    # A next game began while this replayed the one before: read it again.
                    continue
                rt = self._tables.setdefault(table_id, rt)
            self._deal_cut_off(rt)
            return rt

    def _deal_cut_off(self, rt: Runtime) -> None:
        """Draw the cards the app deals that a server killed between writing a new game and
        writing its deal (two commits) left undrawn: the table would wait for them for good,
        asking the phones which cards they were dealt."""
        with rt.lock:
            state = rt.state
            if rt.app_deals and games.chance_pending(rt.rules, state):
                try:
                    self._commit(rt, [], "app")
                except sqlite3.OperationalError as e:  # read-only, full: the next load deals
                    log.warning("table %s: cannot write its deal: %s", rt.table["id"], e)

    def _load(self, table: dict[str, Any]) -> Runtime:
        game = self.store.current_game(table["id"])
        rules = make_rules(game["game"], **game["config"])
        states = [rules.state_from_json(game["initial"])]
        for entry in game["moves"]:
            states.append(rules.apply(states[-1], rules.move_from_json(entry["move"])))
        return Runtime(
            table=table,
            rules=rules,
            game_id=game["id"],
            number=game["number"],
            seed=game["seed"],
            states=states,
            moves=game["moves"],
            redo=game["redo"],
            noted=_still_in_die(rules, states[-1], game["noted"]),
            notice=game["notices"].get("notice"),
            deal_refused={
                int(seat): [(reason, code) for reason, code in refused]
                for seat, refused in game["notices"].get("deal_refused", {}).items()
            },
            kept=game["notices"],
        )

    @contextmanager
    def _locked(self, table_id: str) -> Iterator[Runtime]:
        """Hold the table's lock and yield its runtime: the current one. A request that
        waited for the lock while the table moved on to a new game (next game, restart)
        would otherwise change the game left behind."""
        while True:
            rt = self.get(table_id)
            with rt.lock:
                with self._lock:
                    current = self._tables.get(table_id) is rt
                if current:
                    yield rt
                    return

    def forget(self, table_id: str) -> None:
        """Drop the in-memory copy (the next ``get`` replays from the store)."""
        with self._lock:
            self._tables.pop(table_id, None)
            self._forgotten[table_id] = self._forgotten.get(table_id, 0) + 1

    # ---- changing -------------------------------------------------------------------------
    def play(
        self,
        table_id: str,
        moves: list[dict[str, Any]],
        source: str = "tap",
        seat: int | None = None,
        position: str | None = None,
    ) -> Runtime:
        """Apply moves (JSON) made by a page (``seat`` None: the table's page) all or none,
        on the ``position`` the page showed (``None``: whatever the table shows now).

        Raises :class:`IllegalMove` with the referee's reason; nothing is written then.
        """
        if not moves:
            raise IllegalMove("no move given")
        if len(moves) > MAX_BATCH:
            raise IllegalMove(f"at most {MAX_BATCH} moves at once, not {len(moves)}")
        with self._locked(table_id) as rt:
            rt.expect(position)
            _road_read(rt)
            parsed = _parsed(rt.rules, moves)

            def page_may_make(state: Any, move: Move) -> None:
                """Refuse a move this page may not make (the camera's and the demo's are the
                table's own)."""
                if source not in ("camera", "demo") and not games.may_make(
                    rt.rules, state, move, seat, rt.one_device
                ):
                    if seat is None:
                        raise IllegalMove("that move belongs on the player's own page")
                    raise IllegalMove("it is not your move")

            try:
                accepted = _applied(rt, rt.state, parsed, page_may_make)
            except Refusal as e:
                if seat is None:
                    # Shown on every page; a player's own refused move may name a hand card,
                    # so only its sender hears about it.
                    rt.notice = {"error": e.reason, "at": time.time(), "under": rt.lasting_notice}
                    self._publish(rt)
                raise
            self._commit(rt, accepted, source)
            return rt

    def correct(
        self,
        table_id: str,
        retracted: list[dict[str, Any]],
        moves: list[dict[str, Any]],
        position: str | None = None,
    ) -> Runtime:
        """Replace the game's last moves ``retracted`` (JSON), the camera's, by ``moves``: the
        camera read them again (a card misread until the true one showed), and the table's
        page confirmed it (on the ``position`` it showed). Or ``moves`` put a move the camera
        could not see before them (a Skip-Bo wild laid onto a wild, then the turn ended), and
        hold them again unchanged: then they may be anyone's, and each keeps its source.
        Raises :class:`IllegalMove` when they are no longer the game's last, each the
        camera's or held again, or as :meth:`play` does."""
        with self._locked(table_id) as rt:
            rt.expect(position)
            keep = len(rt.moves) - len(retracted)
            last = rt.moves[keep:] if retracted and keep >= 0 else []
            again = games.held_again(moves, retracted)
            if (
                not last
                or [e["move"] for e in last] != retracted
                or (again is None and any(e["source"] != "camera" for e in last))
            ):
                raise IllegalMove("the camera's last moves are no longer the game's last")
            sources = ["confirm"] * len(moves)
            if again is not None:  # the moves held again keep who made them
                sources[again : again + len(last)] = [e["source"] for e in last]
            accepted = _applied(rt, rt.states[keep], _parsed(rt.rules, moves))
            kept = rt.moves[keep:], rt.states[keep + 1 :]
            del rt.moves[keep:], rt.states[keep + 1 :]
            try:
                self._commit(rt, accepted, sources, replacing=True)
            except Exception:  # not written: the game stays as it was
                rt.moves.extend(kept[0])
                rt.states.extend(kept[1])
                raise
            return rt

    def _commit(
        self,
        rt: Runtime,
        accepted: list[tuple[Move, Any]],
        source: str | list[str],
        noted: dict[int, list[str]] | None = None,
        replacing: bool = False,
    ) -> bool:
        """Resolve chance if the app deals, enter the cards phones noted of a deal (``noted``:
        the notes as changed by a phone, else the table's), write everything, then update
        memory and wake pages; return whether a move was made. ``source``: the moves', or
        each move's. ``replacing``: the store's moves from the game's length on are dropped
        first (see :meth:`correct`)."""
        sources = [source] * len(accepted) if isinstance(source, str) else source
        entries = [(m.to_json(), s) for (m, _), s in zip(accepted, sources, strict=True)]
        states = [s for _, s in accepted]
        state = states[-1] if states else rt.state
        if rt.app_deals:
            rng = random.Random(f"{rt.seed}:{len(rt.moves) + len(entries)}")
            for _ in range(MAX_AUTO):
                if not games.chance_pending(rt.rules, state):
                    break
                move = rt.rules.chance_move(state, rng)
                state = rt.rules.apply(state, move)
                entries.append((move.to_json(), "app"))
                states.append(state)
        elif rt.noted or noted:
            noted = {seat: list(cards) for seat, cards in (noted or rt.noted).items()}
            for move, entered in self._noted_cards(rt, state, noted):
                entries.append((move.to_json(), "tap"))
                states.append(entered)
                state = entered
            if noted == rt.noted:
                noted = None  # none entered, none dropped
        if not entries:
            if noted is not None:
                self.store.set_noted(rt.game_id, noted)
                rt.noted = noted
            return False
        result = rt.rules.scores(state) if rt.rules.is_over(state) else None
        self.store.append_moves(
            rt.game_id, len(rt.moves), entries, result=result, noted=noted, replacing=replacing
        )
        if noted is not None:
            rt.noted = noted
        rt.moves.extend({"move": m, "source": s} for m, s in entries)
        rt.states.extend(states)
        rt.redo.clear()
        rt.notice = None
        rt.prompt = None
        self._publish(rt)
        return True

    @staticmethod
    def _noted_cards(
        rt: Runtime, state: Any, noted: dict[int, list[str]]
    ) -> Iterator[tuple[Move, Any]]:
        """Enter the cards the phones noted, each as the deal reaches its seat; ``noted`` loses
        them. A card dealt to another seat meanwhile (two phones noted it) is dropped, and its
        phone told why."""
        while not rt.rules.is_over(state):
            seat = games.dealing_to(rt.rules, state)
            if seat is None:
                noted.clear()  # the deal is done
                return
            if not noted.get(seat):
                return
            code = noted[seat].pop(0)
            move = rt.rules.move_from_json({"kind": "reveal", "card": code})
            try:
                state = rt.rules.apply(state, move)
            except IllegalMove:
                rt.deal_refused.setdefault(seat, []).append((DEALT_ELSEWHERE, code))
                continue
            yield move, state

    def note_deal(self, table_id: str, seat: int, note: list[str], drop: list[str]) -> Runtime:
        """Note die cards dealt to ``seat`` (a phone at a real table taps its whole hand at
        once), or ``drop`` cards noted by mistake. Each is entered when the deal reaches the
        seat, whether or not its phone is awake then. A card that cannot be noted is refused
        on that phone's page, with the reason; codes that are no die cards raise
        :class:`MalformedMove`."""
        try:
            note, drop = games.die_card_codes(note), games.die_card_codes(drop)
        except ValueError as e:
            raise MalformedMove(str(e)) from None
        with self._locked(table_id) as rt:
            _road_read(rt)
            state = rt.state
            if rt.app_deals or games.dealing_to(rt.rules, state) is None:
                raise IllegalMove("no deal is waiting for cards: the cards are dealt")
            hand = games.hand_codes(state, seat)
            noted = [c for c in rt.noted.get(seat, []) if c not in drop]
            refused = []
            # Whether a card is still in the die pile is not said here: that would tell any
            # phone the other hands. A card another player holds is refused when the deal
            # reaches it.
            for code in note:
                if code in noted or code in hand:
                    continue
                if len(hand) + len(noted) >= HAND_SIZE:
                    refused.append((HAND_FULL, code))
                else:
                    noted.append(code)
            rt.deal_refused[seat] = refused
            # enters what the deal has reached, and writes the notes with those moves
            if not self._commit(rt, [], "tap", noted={**rt.noted, seat: noted}):
                self._publish(rt)
            return rt

    def resolve_chance(
        self, table_id: str, seat: int | None = None, position: str | None = None
    ) -> Runtime:
        """Let the app draw the pending chance cards (a virtual deck), as the page may."""
        with self._locked(table_id) as rt:
            rt.expect(position)
            _road_read(rt)
            state = rt.state
            if not games.chance_pending(rt.rules, state):
                raise IllegalMove("no card is waiting to be drawn")
            owner = games.chance_owner(rt.rules, state)
            if owner is not None and seat != owner and not rt.one_device:
                raise IllegalMove("that card is drawn on the player's own page")
            rng = random.Random(f"{rt.seed}:{len(rt.moves)}")
            accepted = []
            for _ in range(MAX_AUTO):
                if not games.chance_pending(rt.rules, state):
                    break
                if games.chance_owner(rt.rules, state) != owner:
                    break
                move = _app_card(rt, state, rng)
                state = rt.rules.apply(state, move)
                accepted.append((move, state))
            self._commit(rt, accepted, "app")
            return rt

    def undo(self, table_id: str, position: str | None = None, seat: int | None = None) -> Runtime:
        """Take back the last action: the last player's move and the cards drawn after it.
        A player's page (``seat``) takes back only its own, at a real table."""
        with self._locked(table_id) as rt:
            rt.expect(position)
            if not rt.moves:
                raise IllegalMove("nothing to undo")
            k = rt.last_action()
            if k is None:
                raise IllegalMove("nothing to undo: the deal is the start of the game")
            if seat is not None and rt.undoable_by() != seat:
                raise IllegalMove(NOT_YOURS)
            if rt.table["options"].get(LOG_SHOWN) == rt.game_id:  # the hands are known
                raise IllegalMove(LOG_READ)
            self.store.undo(rt.game_id, k)
            # what the table's page said of the move and of the last card drawn after it (a
            # draw is said by its card): at a real table, the cards to put back; not a card
            # the app picked (there was no real card: none lay on the table)
            said = [
                _said(rt.rules, rt.states[i + 1]) if rt.moves[i]["source"] != "app" else ""
                for i in (k, len(rt.moves) - 1)
            ]
            if rt.moves[k]["move"].get("kind") == "draw":
                said = said[1:]
            said = [text for i, text in enumerate(said) if text and text not in said[:i]]
            undone = rt.moves[k:]
            del rt.moves[k:]
            del rt.states[k + 1 :]
            rt.redo.extend(reversed(undone))
            rt.undos += 1
            rt.prompt = None  # asked of the game before: its moves may no longer be taken
            rt.notice = None if rt.app_deals or not said else {"undone": said, "at": time.time()}
            rt.deal_refused.clear()  # a card refused may be back in the die pile
            self._publish(rt)
            return rt

    def redo(self, table_id: str, position: str | None = None) -> Runtime:
        """Re-apply the last undone action (a move and the cards drawn after it)."""
        with self._locked(table_id) as rt:
            rt.expect(position)
            if not rt.redo:
                raise IllegalMove("nothing to redo")
            state = rt.state
            batch: list[dict[str, Any]] = []
            states = []
            while len(batch) < len(rt.redo):
                if batch and not games.chance_pending(rt.rules, state):
                    break
                entry = rt.redo[-1 - len(batch)]
                state = rt.rules.apply(state, rt.rules.move_from_json(entry["move"]))
                batch.append(entry)
                states.append(state)
            result = rt.rules.scores(state) if rt.rules.is_over(state) else None
            self.store.append_moves(
                rt.game_id,
                len(rt.moves),
                [(e["move"], e["source"]) for e in batch],
                keep_redo=True,
                result=result,
            )
            del rt.redo[len(rt.redo) - len(batch) :]
            rt.moves.extend(batch)
            rt.states.extend(states)
            rt.notice = None
            rt.prompt = None
            rt.deal_refused.clear()
            # the deal may have come round to a seat whose phone noted its cards
            if not self._commit(rt, [], "tap"):
                self._publish(rt)
            return rt

    def next_game(
        self,
        table_id: str,
        initial: dict[str, Any] | None = None,
        position: str | None = None,
    ) -> Runtime:
        """Start the table's next game (the next game of the match for Skip-Bo).

        ``initial`` starts it from a given state (JSON) instead of a fresh deal.
        """
        with self._locked(table_id) as rt:
            rt.expect(position)
            if not rt.rules.is_over(rt.state):
                raise IllegalMove("finish this game first (or undo back to its start)")
            match = self.match(table_id)
            if match is not None and match["over"]:
                raise IllegalMove("the match is over")
            seed = secrets.randbits(63)
            options = rt.table["options"]
            rules = (
                rt.rules if initial is not None else games.next_rules(rt.rules, rt.state, options)
            )
            if options.get(ROAD_PROPOSED) and "road" in rules.config:
                # the app's proposed road was laid out and played on: it is the table's road now
                options = {k: v for k, v in options.items() if k != ROAD_PROPOSED}
                self.store.set_options(table_id, options)
            if initial is not None:
                state = rules.state_from_json(initial)
            else:
                state = games.start_state(rules, random.Random(seed), options)
            self.store.new_game(
                table_id,
                {
                    "game": rules.name,
                    "config": rules.config,
                    "initial": rules.state_to_json(state),
                    "seed": seed,
                },
            )
            self.forget(table_id)
        return self._reload(table_id, rt, deal=True)

    def restart(self, table_id: str, initial: dict[str, Any]) -> Runtime:
        """Start a new game from ``initial`` now, whether or not the current one is over."""
        with self._locked(table_id) as rt:
            self.store.new_game(
                table_id,
                {
                    "game": rt.rules.name,
                    "config": rt.rules.config,
                    "initial": initial,
                    "seed": secrets.randbits(63),
                },
            )
            self.forget(table_id)
        return self._reload(table_id, rt)

    def set_road(
        self, table_id: str, road: list[str], by_camera: bool = False, grid: bool = False
    ) -> bool:
        """Set a Stigespill table's road before its first move: the one the camera read
        (``by_camera``: only while the table waits for it; ``grid``: straight rows it read
        as a serpentine, which the page offers to read like text) or one the user typed (a
        road the camera could not read, or read wrong); return whether it was taken. The
        pages show it."""
        with self._locked(table_id) as rt:
            options = rt.table["options"]
            waiting = options.get(ROAD_FROM_CAMERA)
            if rt.rules.name != "stigespill" or rt.moves or (by_camera and not waiting):
                return False
            config = {**rt.rules.config, "road": list(road)}
            rules = make_rules(rt.rules.name, **config)
            state = games.start_state(rules, random.Random(rt.seed), options)
            options = {
                k: v
                for k, v in options.items()
                if k not in (ROAD_FROM_CAMERA, ROAD_PROPOSED, ROAD_GRID, ROAD_AS_TEXT)
            }
            if by_camera and grid:
                options[ROAD_GRID] = True
            self.store.replace_setup(
                table_id, rt.game_id, config, rules.state_to_json(state), options
            )
            rt.notice = None  # a photo's cards to check: the road is another now
            self._keep_notices(rt)
            self.forget(table_id)
        self._reload(table_id, rt)
        return True

    def read_road_again(self, table_id: str, shape: str | None = None) -> bool:
        """Let the camera read a Stigespill table's road again (it read it wrong, or the
        family laid it out anew), before the first move, as ``shape`` (one of
        ``games.ROAD_SHAPES``) if given; return whether it waits for it now."""
        with self._locked(table_id) as rt:
            options = rt.table["options"]
            if rt.rules.name != "stigespill" or rt.table["source"] == "none" or rt.moves:
                return False
            options = {k: v for k, v in options.items() if k != ROAD_GRID}
            if shape is not None:
                options["road_shape"] = shape
            self.store.set_options(table_id, {**options, ROAD_FROM_CAMERA: True})
            self.forget(table_id)
        self._reload(table_id, rt)
        return True

    def note_video_read(self, table_id: str, frame_time: float) -> None:
        """Keep how far the table's game has followed its recorded video (frame time)."""
        with self._locked(table_id) as rt:
            options = {**rt.table["options"], VIDEO_READ: {"game": rt.game_id, "time": frame_time}}
            self.store.set_options(table_id, options)
            rt.table["options"] = options

    def game_log(self, table_id: str, when_over: bool = False) -> dict[str, Any] | None:
        """Return the current game's log (game, config, initial state, moves, sources): every
        hand and a dealt deck's order. ``when_over``: only a finished game's (else ``None``),
        which then stays finished, for an undo would go on with every hand known."""
        with self._locked(table_id) as rt:
            if when_over:
                if not rt.rules.is_over(rt.state):
                    return None
                if rt.table["options"].get(LOG_SHOWN) != rt.game_id:
                    options = {**rt.table["options"], LOG_SHOWN: rt.game_id}
                    self.store.set_options(table_id, options)
                    rt.table["options"] = options
            game = self.store.current_game(table_id)
            return {
                "game": game["game"],
                "config": game["config"],
                "initial": game["initial"],
                "moves": [e["move"] for e in rt.moves],
                "sources": [e["source"] for e in rt.moves],
            }

    def video_read(self, table_id: str) -> float | None:
        """Return how far the current game followed the table's recorded video (frame time),
        or ``None`` when it has not (a new game starts the video from its first frame)."""
        rt = self.get(table_id)
        read = rt.table["options"].get(VIDEO_READ)
        return read["time"] if isinstance(read, dict) and read.get("game") == rt.game_id else None

    def propose_zones(self, table_id: str, zones: dict[str, Any], frame: tuple[int, int]) -> None:
        """Show the camera's proposed Skip-Bo zones on the table's pages, for confirming."""
        with self._locked(table_id) as rt:
            rt.zones = {"map": zones, "frame": list(frame)}
            self._publish(rt)

    def confirm_zones(
        self, table_id: str, zones: dict[str, Any], frame: list[int] | None = None
    ) -> None:
        """Store the zones the user confirmed (or dragged into place) with the table."""
        with self._locked(table_id) as rt:
            options = {**rt.table["options"], "zones": zones, "zones_frame": frame}
            self.store.set_options(table_id, options)
            rt.table["options"] = options
            if rt.zones is not None:
                rt.zones = {**rt.zones, "map": zones}
            self._publish(rt)

    def recent(self, table_id: str, n: int) -> list[tuple[Any, Move]]:
        """Return the game's last ``n`` moves, each with the state it was made in (oldest
        first): the camera plays them again to put in a move it could not see."""
        with self._locked(table_id) as rt:
            k = max(0, len(rt.moves) - n)
            parse = rt.rules.move_from_json
            return [(rt.states[i], parse(e["move"])) for i, e in enumerate(rt.moves[k:], k)]

    def set_prompt(self, table_id: str, prompt: dict[str, Any] | None, game: Any = None) -> None:
        """Show (or clear) an "out of sync — please confirm" prompt on the table's pages.
        ``game``: the state the camera asked about; a prompt made against a game the page has
        changed since (an undo while the camera read its frame) is not shown: its moves may
        no longer be taken, and the camera asks again about the game as it stands."""
        with self._locked(table_id) as rt:
            if game is not None and rt.state is not game and rt.state != game:
                return
            rt.prompt = prompt
            self._publish(rt)

    def touch(self, table_id: str) -> None:
        """Wake the table's pages without a change (a new camera frame, a prompt)."""
        with self._locked(table_id) as rt:
            self._publish(rt)

    def notify(self, table_id: str, check: str) -> None:
        """Show every page of a table something to check (say, cards a photo's reader
        inferred) until the next change."""
        with self._locked(table_id) as rt:
            rt.notice = {"check": check, "at": time.time()}
            self._publish(rt)

    def _reload(self, table_id: str, old: Runtime, deal: bool = False) -> Runtime:
        """Return the table loaded again from the store (after :meth:`forget`) and tell its
        pages; its version goes on from ``old``'s, so that a page never sees one go back.
        ``deal``: the app first deals the new game where it deals (a virtual deck)."""
        with self._locked(table_id) as new:
            new.version = max(new.version, old.version)
            if deal and new.app_deals:
                self._commit(new, [], "app")
            self._publish(new)
        return new

    def _publish(self, rt: Runtime) -> None:
        self._keep_notices(rt)
        rt.version += 1
        self.broadcaster.publish(rt.table["id"], rt.version)
        for listener in list(self.listeners):
            listener(rt.table["id"])

    def _keep_notices(self, rt: Runtime) -> None:
        """Keep over a restart what the pages say until the next change: the cards to put
        back after an undo, what to check, a phone's dealt card that went to another player
        (a refused move's reason shows for seconds only, and is not kept)."""
        notices: dict[str, Any] = {}
        if rt.lasting_notice:
            notices["notice"] = rt.lasting_notice
        if rt.deal_refused:
            notices["deal_refused"] = {
                str(seat): [list(r) for r in refused] for seat, refused in rt.deal_refused.items()
            }
        if notices == rt.kept:
            return
        try:
            self.store.set_notices(rt.game_id, notices)
        except sqlite3.OperationalError as e:  # read-only, full: shown, but not kept
            log.warning("table %s: cannot keep its notices: %s", rt.table["id"], e)
        rt.kept = notices

    # ---- matches, and the games a table has played -------------------------------------------
    def record(self, table_id: str) -> list[dict[str, Any]]:
        """Return a table's finished games, oldest first: each one's number, its winners and
        (Sten) the seat that lost with the stone, or None."""
        return [
            {
                "number": g["number"],
                "winners": list(g["result"].get("winners", [])),
                "loser": g["result"].get("loser"),
            }
            for g in self.store.games(table_id)
            if g["result"] is not None
        ]

    def match(self, table_id: str) -> dict[str, Any] | None:
        """Return a Skip-Bo table's match: points per game, totals, the race, the winner."""
        rt = self.get(table_id)
        rules, target = rt.rules, rt.table.get("match_target")
        if not isinstance(rules, SkipBo) or not target:
            return None
        match = Match(players=rules.players, target=target)
        rows = []
        for g in self.store.games(table_id):
            if g["result"] is None or match.is_over:
                continue
            match = match.add(g["result"])
            rows.append(
                {
                    "number": g["number"],
                    "points": list(match.games[-1]),
                    "totals": list(match.totals),
                    "finished": g["finished"],
                }
            )
        data = match.to_json()
        return {
            "target": target,
            # who scores together: partners alike (each partner's points are the team's)
            "sides": rules.teams_list(),
            "games": rows,
            "totals": data["totals"],
            "winners": data["winners"],
            "over": bool(data["winners"]),
        }


def init_app(app: Flask) -> None:
    """Register the table hub and the broadcaster on the app."""
    broadcaster = Broadcaster()
    hub = TableHub(EventStore(app.config["DATABASE"]), broadcaster)
    app.extensions["kortbord.hub"] = hub
    app.extensions["kortbord.broadcaster"] = broadcaster


def hub() -> TableHub:
    """Return the current app's table hub."""
    return current_app.extensions["kortbord.hub"]

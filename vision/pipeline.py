"""The camera pipeline, guarded by the rules: frames → detections → stable table → moves.

The referee's legal moves are the only hypotheses. After each change of the stable table,
:class:`Guard` asks the game's layout reader what the table shows (an *observation*, a
small JSON-like view: the discard pile's top card, each Sten suit's pile tops, each Skip-Bo
zone's cards) and searches short sequences of legal moves from the current state (forced
moves are free; chance outcomes such as "the revealed die card is 5♥" are hypotheses like
any other), comparing the view each sequence predicts with what is seen:

* exactly one sequence fits → its moves are applied and reported;
* one fits but a longer one is still under way (a player going out card by card, a Skip-Bo
  pile of 12 about to be set aside) → wait up to ``patience`` seconds for more;
* no short sequence fits for a while, but one longer one does, each of its moves showing
  on the table (cards found late: three or more moves show at once) → it is accepted;
* none fits for longer still, but one sequence comes clearly closest (a phantom card lies
  on the table, and a move was made meanwhile) → it is accepted;
* none fits, or two with different outcomes fit → "out of sync — please confirm", with the
  candidates; the game does not change;
* one fits, but it lays cards on a game the table never showed (the page changed it: a card
  entered by hand, an undo) → the same, with that one as the candidate (:meth:`Guard._doubted`);
* none fits, but a move the camera could not see, made before the game's last moves, explains
  the table (a Skip-Bo wild laid squarely onto a wild, then the turn ended) → the same, with
  that move put in before them as the candidate (:meth:`Guard._missed`).

:class:`Pipeline` strings the stages together; every stage keeps the one-method shape.
"""

from __future__ import annotations

import time as _time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from itertools import pairwise
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from referee.core import CHANCE, IllegalMove, Move, Rules
from referee.skipbo import SkipBo
from vision.detections import Detections
from vision.geometry import card_widths
from vision.sources import Frame, FrameSource
from vision.tracker import MIN_CONFIDENCE as TRACKER_MIN_CONFIDENCE
from vision.tracker import TableEvent, TableState, Tracker

if TYPE_CHECKING:
    from vision.recognizer import Recognition

Observation = dict[str, Any]
QUIET = 0.5  # seconds a view must hold before the guard reports it out of sync
DEEP_TRIES = 3  # longer searches per position while the table stays unexplained
# Frames a view seen on the way must hold to count in full as evidence; a view of one frame
# counts half (it may be a card caught mid-move: shown where it lands before the place it
# left shows bare).
HELD = 2
# The game's last moves searched for a move the camera could not see (see Guard._missed): at
# a real table a Skip-Bo turn takes a card or two and up to five draws.
RECALL = 30


class GameReader(Protocol):
    """What a game's layout reader gives the guard (see ``vision.layouts``)."""

    def observe(self, table: TableState) -> Observation:
        """Return what the table shows, in the same form as :meth:`expect`."""

    def expect(self, rules: Rules, state: Any) -> Observation:
        """Return what the table should show in referee state ``state``."""

    def transients(self, rules: Rules, before: Any, move: Move, after: Any) -> list[Observation]:
        """Return views seen briefly while ``move`` happens (before its final view)."""

    def mismatch(self, expected: Observation, observed: Observation) -> float:
        """Return how badly an expected view disagrees with the observed one (0: fits)."""

    def parts(self, view: Observation) -> dict[Any, Any]:
        """Return a view's parts (a pile, a suit) by name: a move changes a few of them."""

    # Optional: ``touches(state, move)``, the parts a move will change (None: not known),
    # which spares the search playing moves that would change parts the camera sees unchanged;
    # and ``reachable(state, move, seen)``, whether the parts a move changes can still come
    # to show what is seen (``seen``: the seen view's parts), which prunes the long search;
    # and ``evidence(rules, before, move, after)``, views the camera must have seen for
    # ``move`` to be believed (a drawn joker, gathered away with the piles, leaves no trace);
    # and ``rests_on(rules, state, moves)``, whether ``moves`` lay their cards on the game's
    # view as it stands, which the camera then must have seen (see :meth:`Guard._doubted`);
    # and ``renames(rules, shown, state, moves)``, whether the game is the view ``shown`` but
    # for a card the page named otherwise, which ``moves`` do not lay again (the same).


@dataclass
class Hypothesis:
    """A sequence of legal moves from the current state, with the views it passes through."""

    moves: list[Move]
    state: Any
    branching: int
    views: list[Observation] = field(default_factory=list)  # intermediate views, in order


@dataclass(frozen=True)
class GuardEvent:
    """What the guard decided: ``kind`` is ``move``, ``out_of_sync``, ``in_sync`` or
    ``corrected`` (``moves`` replace the ``retracted`` ones); an ``out_of_sync`` event with
    ``retracted`` asks to replace those by its one candidate (see ``ask_corrections``), whose
    first move, where the camera could not see it, the seat ``by`` made (:meth:`Guard._missed`)."""

    kind: str
    time: float
    moves: tuple[Move, ...] = ()
    candidates: tuple[tuple[Move, ...], ...] = ()
    observed: Observation | None = None
    message: str = ""
    retracted: tuple[Move, ...] = ()
    by: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"event": self.kind, "time": round(self.time, 3)}
        if self.moves:
            out["moves"] = [m.to_json() for m in self.moves]
        if self.retracted:
            out["retracted"] = [m.to_json() for m in self.retracted]
        if self.candidates:
            out["candidates"] = [[m.to_json() for m in seq] for seq in self.candidates]
        if self.observed is not None:
            out["observed"] = self.observed
        if self.message:
            out["message"] = self.message
        return out


class Guard:
    """Accept only legal moves that clearly explain the stable table.

    Settings: ``max_branching`` choices (moves with more than one legal alternative) per
    explanation; ``patience`` seconds to wait for a change still under way before settling;
    ``settle`` seconds a new view must hold before a move is read from it (a card taken
    from one pile may still show there for a few frames while it lands on another);
    ``limit`` hypotheses per search, so a confused table cannot stall the loop;
    ``tolerance``: how far off (the reader's mismatch) the view of the one clearly best
    explanation may be when nothing fits exactly and the table has disagreed a while;
    ``deep_branching`` choices for an explanation whose every move shows (see :meth:`_deep`),
    searched through at most ``deep_limit`` hypotheses per number of choices;
    ``last_resort`` seconds the table must disagree before accepted moves are read again
    (:meth:`_correct`) or an inexact explanation is taken (:meth:`_nearest`);
    ``memory`` seconds a view seen stays evidence for a move the reader says must show;
    ``ask_corrections``: moves read again (:meth:`_correct`) are asked about instead of
    replacing the accepted ones, for a game a person also changes and confirms (the web
    page's), where those moves are no transcript's to rewrite;
    ``past``: the game's last moves, each with the state it was made in (oldest first), for a
    game changed from outside too (the web page's: draws entered on phones); without it, the
    guard's own moves since the game was last changed from outside. A move the camera could
    not see is looked for among them (:meth:`_missed`).
    """

    def __init__(
        self,
        rules: Rules,
        state: Any,
        reader: GameReader,
        *,
        max_branching: int = 2,
        patience: float = 2.5,
        settle: float = 0.6,
        limit: int = 20000,
        tolerance: float = 2.0,
        deep_branching: int = 7,
        deep_limit: int = 3000,
        last_resort: float = 5.0,
        memory: float = 10.0,
        ask_corrections: bool = False,
        past: Callable[[], Sequence[tuple[Any, Move]]] | None = None,
    ) -> None:
        self.rules = rules
        self._state = state
        self.reader = reader
        self.max_branching = max_branching
        self.patience = patience
        self.settle = settle
        self.limit = limit
        self.tolerance = tolerance
        self.deep_branching = deep_branching
        self.deep_limit = deep_limit
        self.last_resort = last_resort
        self.memory = memory
        self.ask_corrections = ask_corrections
        self.past = past
        self.history: list[Move] = []
        self._past: list[tuple[Any, Move]] = []  # the guard's last moves, with their states
        self._observed: Observation | None = None
        self._since = 0.0
        self._reported: Observation | None = None
        self._changes = 0  # changes of the game from outside (see :attr:`state`)
        self._reported_in = 0  # …how many there were when ``_reported`` was reported
        self._trail: list[Observation] = []  # unexplained views seen since the last move
        self._trail_frames: list[int] = []  # frames each of those views was seen in
        self._unexplained: float | None = None  # when the table stopped matching the game
        self._cache: tuple | None = None  # the last search, reused while nothing changed
        self._checkpoints: list[tuple[Any, int]] = []  # (state, history length) before moves
        self._uncorrectable: tuple | None = None  # the last view _correct could not explain
        self._asked: tuple | None = None  # …or asked about (``ask_corrections``)
        self._missed_last: tuple | None = None  # the last view _missed searched…
        self._asked_missed: tuple | None = None  # …and the last it asked about
        self._near_cache: tuple | None = None  # the last _nearest search and its answer
        self._deep_last: tuple | None = None  # (state id, time, view, tries) of the last _deep
        self._sightings: list[tuple[float, Observation]] = []  # (time, view) seen lately
        self._unsure = False  # the reader: a card that may have moved is out of sight now
        # the game's view the table last showed, or the guard's moves made (as given counts)
        self._shown: Observation = reader.expect(rules, state)

    @property
    def state(self) -> Any:
        """The referee state the table is compared with."""
        return self._state

    @state.setter
    def state(self, state: Any) -> None:
        # Set from outside, the game was changed there (a move made on the page, an undo)
        # unless it is the guard's own position over again: the moves read again
        # (:meth:`_correct`) start after that change, never before it, so none is lost; and
        # a view reported out of sync is asked about again, against this game (the page
        # drops a question asked of the game before).
        if state is not self._state and state != self._state:
            self._checkpoints = []
            self._past = []
            self._changes += 1
        self._state = state

    def update(self, table: TableState, time: float | None = None) -> list[GuardEvent]:
        """Compare the stable table at ``time`` with the game; return what was decided."""
        now = table.time if time is None else time
        observed = self.reader.observe(table)
        align = getattr(self.reader, "align", None)  # optional: the table first seen is the game
        if self._observed is None and align is not None:
            align(table, self.reader.expect(self.rules, self.state))
            observed = self.reader.observe(table)
        if not self.same_view(observed, self._observed):
            self._since = now
            self._sightings.append((now, observed))
        # The view seen last stays evidence however long it has lain.
        *older, last = self._sightings or [(now, observed)]
        self._sightings = [s for s in older if now - s[0] <= self.memory] + [last]
        self._observed = observed
        # optional: whether a card that may have moved is out of sight
        unsure = getattr(self.reader, "unsure", None)
        self._unsure = bool(unsure and unsure(table))
        events = self._decide(observed, now, final=False)
        if not any(e.kind == "move" for e in events) and not self._unsure:
            self._note_on_trail(observed)  # (a view with a card out of sight is no evidence)
        return events

    def _note_on_trail(self, observed: Observation) -> None:
        """Count a frame of ``observed`` on the trail, if the game does not explain it."""
        if observed in self._trail:
            self._trail_frames[self._trail.index(observed)] += 1
        elif not self._fits(self.reader.expect(self.rules, self.state), observed):
            self._trail.append(observed)
            self._trail_frames.append(1)

    def _clear_trail(self) -> None:
        self._trail, self._trail_frames = [], []

    def _trail_weights(self, observed: Observation) -> list[tuple[Observation, float]]:
        """Return the views seen on the way, other than ``observed``, each with its weight
        as evidence (1 once it held ``HELD`` frames)."""
        return [
            (v, min(n, HELD) / HELD)
            for v, n in zip(self._trail, self._trail_frames, strict=True)
            if v != observed
        ]

    def _fits(self, expected: Observation, observed: Observation) -> bool:
        return self.reader.mismatch(expected, observed) == 0

    def same_view(self, a: Observation, b: Observation | None) -> bool:
        """Return whether two views show the same (each fits the other: the reader may
        leave some wobble uncompared, such as lower cards' order in a Skip-Bo fan)."""
        if b is None or a == b:
            return a == b
        return self._fits(a, b) and self._fits(b, a)

    def finish(self, table: TableState, time: float | None = None) -> list[GuardEvent]:
        """Settle what is still waiting (the video ended): accept a lone fit, else report."""
        now = table.time if time is None else time
        return self._decide(self.reader.observe(table), now, final=True)

    # ---- deciding ------------------------------------------------------------------------
    def _decide(self, observed: Observation, now: float, final: bool) -> list[GuardEvent]:
        expected = self.reader.expect(self.rules, self.state)
        off = self.reader.mismatch(expected, observed)
        if off == 0:
            if self._trail and self._unexplained is not None:
                self._forget_misreads(expected)
            self._shown = expected
            self._unexplained = None
            if self._reported is not None:
                self._reported = None
                return [GuardEvent("in_sync", now, message="the table matches the game again")]
            return []
        if self.rules.is_over(self.state):
            return self._report(observed, now, (), "the game is over, but the table changed")
        if self._unexplained is None:
            self._unexplained = now
        if not final and now - self._since < min(self.settle, QUIET):
            return []  # nothing is decided on a view this young: spare the search
        key = (
            id(self.state),
            repr(observed),
            tuple(min(n, HELD) for n in self._trail_frames),
            tuple(t for t, _ in self._sightings),
        )
        if self._cache is not None and self._cache[0] == key:
            full, partial = self._cache[1]
        else:
            full, partial = self._search(observed)
            self._cache = (key, (full, partial))
        if len(full) > 1 and self._trail:
            # What was seen on the way (a drawn joker shown, a card soon covered) decides,
            # also the order of moves that end alike (a wild played, then a 1 on another pile).
            full = self._most_seen(full, observed)
        waited = final or now - self._since >= self.patience
        # Out of sync once the table has disagreed for a while and the latest view has
        # settled, even if it keeps changing (cards laid one after another).
        stuck = final or (now - self._unexplained >= self.patience and now - self._since >= QUIET)
        outcomes = _distinct(self.rules, full)
        settled = final or now - self._since >= self.settle
        # A card out of sight that may have moved (see the reader's ``unsure``) waits to show
        # where it went, or for the patience to run out.
        if (
            len(outcomes) == 1
            and settled
            and (not partial or waited)
            and (waited or not self._unsure)
        ):
            # Moves that end alike in another order: the order nearest what was seen on the
            # way (a wild on one pile seen before a 1 on another, its pile still hidden).
            best = min(full, key=lambda h: (len(h.moves), self._order_off(h), h.branching))
            return self._take(best, observed, now)
        if len(outcomes) > 1 and stuck:
            shortest = min(len(h.moves) for h in full)
            cands = tuple(tuple(h.moves) for h in full if len(h.moves) == shortest)[:8]
            return self._report(observed, now, cands, "two or more moves fit what the camera sees")
        if not full and not partial and stuck:
            deep = self._deep(observed, now, final)
            if deep is not None:
                return self._take(deep, observed, now)
            # Re-reading accepted moves or taking an inexact fit waits longer: a card found
            # late may yet show, and make the table fit the moves as they were made.
            if final or now - self._unexplained >= self.last_resort:
                corrected = self._correct(observed, now)
                if corrected or self._asked == self._uncorrectable:
                    return corrected  # (asked: the page's answer is waited for)
                # a move the camera could not see, made earlier, explains the table exactly:
                # asked before an inexact fit is taken (it took the next player's discard)
                missed = self._missed(observed, now)
                if missed or self._missed_last == self._asked_missed:
                    return missed  # (asked: the page's answer is waited for)
                nearest = self._nearest(observed, off)
                if nearest is not None:
                    return self._take(nearest, observed, now)
            return self._report(observed, now, (), "no legal move fits what the camera sees")
        return []

    def _forget_misreads(self, expected: Observation) -> None:
        """Forget the views seen since the table stopped showing the game, now that it shows
        the game ``expected`` again without a move: misreads (a top card read as another for
        a moment) and views a hand blocked. Kept, they made a later move pass through them
        and bring a phantom move along. Views a move ending as the game's view began shows on
        its way stay (a joker drawn onto an empty discard pile, the pile gathered at once)."""
        ends = self._walk(expected, 1, past_fits=True)
        on_way = [v for h, off in ends if off == 0 for v in h.views]

        def misread(view: Observation) -> bool:
            return not any(self._fits(w, view) for w in on_way)

        trail = zip(self._trail, self._trail_frames, strict=True)
        kept = [(v, n) for v, n in trail if not misread(v)]
        self._trail, self._trail_frames = [v for v, _ in kept], [n for _, n in kept]
        *older, last = self._sightings
        since = self._unexplained
        assert since is not None, "called while the table is unexplained"
        self._sightings = [s for s in older if s[0] < since or not misread(s[1])] + [last]

    def _most_seen(self, hs: list[Hypothesis], observed: Observation) -> list[Hypothesis]:
        """Keep the hypotheses that pass through the most views seen since the last move."""
        score = {id(h): self._trail_score(h, observed) for h in hs}
        most = max(score.values(), default=0)
        return [h for h in hs if score[id(h)] == most]

    def _trail_score(self, h: Hypothesis, observed: Observation) -> float:
        """Return how much of what was seen since the last move ``h`` passes through."""
        return sum(
            weight
            for v, weight in self._trail_weights(observed)
            if any(self._fits(w, v) for w in h.views)
        )

    def _order_off(self, h: Hypothesis) -> int:
        """Return how many pairs of ``h``'s moves the camera showed the other way round: each
        move shows when a pile it changes (the reader's ``parts``) was first seen as it
        leaves it (0: in ``h``'s order, or not known)."""
        parts = getattr(self.reader, "parts", None)
        if parts is None or len(h.moves) < 2:
            return 0
        start, final = (self.reader.expect(self.rules, s) for s in (self.state, h.state))
        views = [parts(v) for v in (start, *h.views, final)]
        seen = [(t, parts(v)) for t, v in self._sightings]
        shown = []
        for before, after in pairwise(views):
            changed = [(k, v) for k, v in after.items() if before.get(k) != v]
            times = [t for t, p in seen if any(p.get(k) == v for k, v in changed)]
            if times:
                shown.append(min(times))
        return sum(a > b for i, a in enumerate(shown) for b in shown[i + 1 :])

    def _correct(self, observed: Observation, now: float) -> list[GuardEvent]:
        """Re-read the last accepted moves when only a different reading explains the table.

        A card misread for long enough can be taken for another legal card; when the true
        card shows and nothing fits any more, the moves since an earlier position are
        searched again, and replaced if exactly one explanation fits from there. The earlier
        positions are the guard's own since the game was last changed from outside (see
        :attr:`state`): the moves retracted are the game's last, each of them the guard's.
        """
        key = (id(self.state), repr(observed), len(self.history))
        if key == self._uncorrectable:
            return []  # searched already, in vain
        self._uncorrectable = key
        for state, keep in reversed(self._checkpoints):
            saved, self._state = self._state, state
            try:
                full, partial = self._search(observed)
            finally:
                self._state = saved
            outcomes = _distinct(self.rules, full)
            if len(outcomes) == 1 and not partial:
                best = min(full, key=lambda h: (len(h.moves), h.branching))
                retracted = tuple(self.history[keep:])
                if self.ask_corrections:
                    self._asked = key
                    return self._ask(observed, now, best.moves, retracted)
                self._checkpoints = [c for c in self._checkpoints if c[1] < keep]
                gone = len(self.history) - keep
                self._past = self._past[: len(self._past) - gone] if gone < len(self._past) else []
                self._record(state, best.moves)
                self.history = self.history[:keep]
                self._checkpoints.append((state, keep))
                self._state = best.state
                self._shown = self.reader.expect(self.rules, best.state)
                self.history += best.moves
                self._clear_trail()
                self._unexplained, self._reported = None, None
                return [
                    GuardEvent(
                        "corrected",
                        now,
                        moves=tuple(best.moves),
                        retracted=retracted,
                        message="corrected: the last moves were read again",
                    )
                ]
        return []

    def _ask(
        self, observed: Observation, now: float, moves: list[Move], retracted: tuple[Move, ...]
    ) -> list[GuardEvent]:
        """Ask to replace the accepted moves ``retracted`` by ``moves`` (``ask_corrections``)."""
        self._reported = None  # a new question, though "no legal move fits" was asked of this view
        cands = (tuple(moves),)
        asked = self._report(observed, now, cands, "the camera reads the last moves otherwise")
        return [replace(e, retracted=retracted) for e in asked]

    def _missed(self, observed: Observation, now: float) -> list[GuardEvent]:
        """Ask to put in a move the camera could not see, made before the game's last moves,
        when it alone explains the table.

        A move may change nothing the camera sees: a Skip-Bo wild laid squarely onto a
        building pile's wild. The search finds it with a card laid onto it in the same turn;
        but once the turn has ended (a discard read), the next player's card on that pile
        fits no legal move. The game's last moves (``past``) are played again with one such
        move put in before one of them, a move after which the same player is on turn; where
        they all stay legal, and exactly one outcome from there fits the table, the page is
        asked to put it in: the moves from there on (``retracted``) are replaced by the move,
        the same moves again, and what fits the table. Never taken: a reading that fits no
        legal move never changes the game.
        """
        key = (id(self.state), repr(observed))
        if key == self._missed_last:
            return []  # searched already (or asked)
        self._missed_last = key
        past = list(self.past() if self.past is not None else self._past)[-RECALL:]
        found = self._put_in(observed, past)
        if found is None:
            return []
        k, move, h = found
        self._asked_missed = key
        retracted = tuple(m for _, m in past[k:])
        self._reported = None  # a new question, though "no legal move fits" was asked of this view
        cands = ((move, *retracted, *h.moves),)
        asked = self._report(observed, now, cands, "an earlier move the camera missed explains it")
        by = self.rules.to_move(past[k][0])
        return [replace(e, retracted=retracted, by=by) for e in asked]

    def _put_in(
        self, observed: Observation, past: list[tuple[Any, Move]]
    ) -> tuple[int, Move, Hypothesis] | None:
        """Return where in ``past`` (before its ``k``-th move) which unseen move to put in,
        with the explanation from the game so played again, else ``None`` (see
        :meth:`_missed`). The fewest choices win, then the latest turn: where draws are
        known, not entered, the same wild laid a turn earlier fits as well. Within that
        turn the latest place is taken; two outcomes there give ``None``."""
        rules, reader = self.rules, self.reader
        if not past or rules.apply(*past[-1]) != self.state:
            return None  # (not this game's moves: changed meanwhile)
        # (choices, turns back, k, move, explanation)
        found: list[tuple[int, int, int, Move, Hypothesis]] = []
        played: set[int] = set()  # the games played again (a move put in at two places)
        saved, turns, last = self._state, 0, None
        for k in range(len(past) - 1, -1, -1):
            before = past[k][0]
            seat = rules.to_move(before)
            if seat == CHANCE or rules.is_over(before):
                continue
            turns += last is not None and seat != last
            last = seat
            shown = reader.expect(rules, before)
            for move in rules.legal_moves(before):
                after = rules.apply(before, move)
                unseen = self._fits(reader.expect(rules, after), shown)
                if not unseen or rules.to_move(after) != seat:
                    continue  # it shows, or it ends the turn
                state = _replayed(rules, after, [m for _, m in past[k:]])
                if state is None or hash(state) in played:
                    continue
                played.add(hash(state))
                self._state = state
                try:
                    full, _ = self._search(observed)
                finally:
                    self._state = saved
                found += [(h.branching, turns, k, move, h) for h in full]
        if not found:
            return None
        best = min(found, key=lambda f: f[:2])
        if len({_outcome(rules, f[-1]) for f in found if f[:2] == best[:2]}) > 1:
            return None  # two explanations: nothing to offer in one tap
        return best[2:]

    def _nearest(self, observed: Observation, now_off: float) -> Hypothesis | None:
        """Return the one explanation that clearly fits best, when none fits exactly.

        A card misread for good (a phantom card on a pile, a strip read as another card)
        leaves the table off the game by a little for as long as it lies. Moves made
        meanwhile still show: the sequence whose view is off by the least — by at most
        ``tolerance``, and by less than the game as it stands — wins, when it is the only
        outcome that close with the fewest choices.
        """
        key = (id(self.state), repr(observed))
        if self._near_cache is not None and self._near_cache[0] == key:
            return self._near_cache[1]
        close: list[tuple[float, int, Hypothesis]] = []
        for h, off in self._walk(observed, self.max_branching):
            if off < now_off and off <= self.tolerance:
                close.append((off, h.branching, h))
        best = None
        if close:
            least = min((off, b) for off, b, _ in close)
            group = [h for off, b, h in close if (off, b) == least]
            if len(_distinct(self.rules, group)) == 1:
                best = min(group, key=lambda h: len(h.moves))
        self._near_cache = (key, best)
        return best

    def _deep(self, observed: Observation, now: float, final: bool) -> Hypothesis | None:
        """Return the one longer explanation in which every move shows, when none is short.

        A card found late (small, far off, or under a hand for seconds) lets three or more
        moves show at once. Longer sequences are searched only through moves that change
        parts of the view (piles) where the table differs from the game: the search stays
        small, and a part that already fits is taken as unchanged. Still it is costly (up to
        a second or two): while the table stays unexplained it runs only every ``patience``
        seconds, ``DEEP_TRIES`` times (and once more when the video ends).
        """
        last = self._deep_last
        # the last search, if it searched from this position
        here = last if last is not None and last[0] == id(self.state) else None
        if here is not None and not final:
            if now - here[1] < self.patience or self.same_view(observed, here[2]):
                return None
            if here[3] >= DEEP_TRIES:
                return None  # the table stays off the game: a misread, not a late card
        tries = here[3] + 1 if here is not None else 1
        best = None
        for depth in range(self.max_branching + 1, self.deep_branching + 1):
            full = [h for h, off in self._walk(observed, depth, True) if off == 0]
            if full:  # the fewest choices first, then what was seen on the way
                full = self._most_seen(full, observed)
                if len(_distinct(self.rules, full)) == 1:
                    best = min(full, key=lambda h: (len(h.moves), self._order_off(h)))
                break
        self._deep_last = (id(self.state), now, observed, tries)
        return best

    def _take(self, h: Hypothesis, observed: Observation, now: float) -> list[GuardEvent]:
        """Accept ``h``, unless it rests on a game the table never showed: then ask."""
        if self._doubted(h):
            cands = (tuple(h.moves),)
            return self._report(observed, now, cands, "the pile does not show the game's top card")
        return self._accept(h, now)

    def _doubted(self, h: Hypothesis) -> bool:
        """Return whether ``h`` lays cards on the game's view as it stands (the reader's
        ``rests_on``) while the table never showed that view since the game came to it.

        The page changes the game too (a draw entered by hand, an undo), and what it says
        may not lie on the table: another card than the one laid, or an undone draw's card
        left lying. A reader that compares only a pile's top card then takes each new card for
        the next draw, and the game drifts from the table unseen. The guard's own moves were
        seen; a view reached otherwise counts once the table has shown it (the card misread
        for a moment, or entered before it was laid, shows then), or when it is the view the
        table showed but for a card the page named otherwise (the reader's ``renames``: a
        misread card put right, which the camera goes on misreading).
        """
        rests_on = getattr(self.reader, "rests_on", None)
        if rests_on is None or self.reader.expect(self.rules, self.state) == self._shown:
            return False  # (a card entered on a phone alone, a hand card, changes no view)
        renames = getattr(self.reader, "renames", None)  # a misread card put right on the page
        if renames is not None and renames(self.rules, self._shown, self.state, h.moves):
            return False
        return rests_on(self.rules, self.state, h.moves)

    def _accept(self, h: Hypothesis, now: float) -> list[GuardEvent]:
        self._use_evidence(h.moves)
        self._record(self.state, h.moves)
        self._checkpoints = [*self._checkpoints, (self.state, len(self.history))][-3:]
        self._shown = self.reader.expect(self.rules, h.state)
        self._state = h.state
        self.history += h.moves
        self._clear_trail()
        self._unexplained = None
        self._reported = None
        return [GuardEvent("move", now, moves=tuple(h.moves), message=_last(h.state))]

    def _record(self, state: Any, moves: list[Move]) -> None:
        """Keep the guard's ``moves`` made from ``state``, each with the state it was made in."""
        for move in moves:
            self._past.append((state, move))
            state = self.rules.apply(state, move)
        del self._past[:-RECALL]

    def _use_evidence(self, moves: list[Move]) -> None:
        """Forget the views that made ``moves`` believable: each shows one move only."""
        evidence = getattr(self.reader, "evidence", None)
        if evidence is None:
            return
        state = self.state
        for move in moves:
            after = self.rules.apply(state, move)
            for view in evidence(self.rules, state, move, after):
                self._sightings = [s for s in self._sightings if not self._fits(view, s[1])]
            state = after

    def _was_seen(self, view: Observation) -> bool:
        return any(self._fits(view, seen) for _, seen in self._sightings)

    def _report(self, observed, now, candidates, why) -> list[GuardEvent]:
        if self._reported == observed and self._reported_in == self._changes:
            return []
        self._reported, self._reported_in = observed, self._changes
        return [
            GuardEvent(
                "out_of_sync",
                now,
                candidates=candidates,
                observed=observed,
                message=f"out of sync — please confirm: {why}",
            )
        ]

    def _search(self, observed: Observation) -> tuple[list[Hypothesis], list[Hypothesis]]:
        """Return (sequences whose final view fits, sequences under way through a fitting view).

        Iterative deepening on the number of real choices: the first depth that explains
        the table wins (the shortest explanation). A sequence is not extended past a fit,
        so trailing forced moves wait until something shows that they happened.
        """
        for depth in range(1, self.max_branching + 1):
            full, partial = self._search_at(observed, depth)
            if full and self._trail and depth < self.max_branching:
                here = max(self._trail_score(h, observed) for h in full)
                if here < sum(weight for _, weight in self._trail_weights(observed)):
                    # A longer explanation may pass through more of what was seen.
                    deeper = self._search_at(observed, depth + 1)
                    if deeper[0] and max(self._trail_score(h, observed) for h in deeper[0]) > here:
                        return deeper
            if full or partial:
                return _dedupe(full), _dedupe(partial)
        return [], []

    def _search_at(self, observed: Observation, depth: int):
        """Return (full, partial) hypotheses with at most ``depth`` real choices."""
        full: list[Hypothesis] = []
        partial: list[Hypothesis] = []
        for h, off in self._walk(observed, depth):
            if off == 0:
                full.append(h)
            elif any(self._fits(v, observed) for v in h.views):
                partial.append(h)
        return _dedupe(full), _dedupe(partial)

    def _walk(
        self, observed: Observation, depth: int, shown_only: bool = False, past_fits: bool = False
    ) -> Iterator[tuple[Hypothesis, float]]:
        """Yield each sequence of legal moves with at most ``depth`` real choices, with how
        far its final view is off ``observed``. A sequence is not extended past a fit, so
        trailing forced moves wait until something shows that they happened.

        ``shown_only``: only moves that change no part of the view which fits ``observed``
        (see :meth:`_deep`), and no position again with more choices than before (moves in
        another order meet there, but with as many choices they stay: the order they pass
        what was seen on the way may differ). ``past_fits``: sequences are extended past a fit
        too (moves that show only on the way, see :meth:`_forget_misreads`)."""
        rules, reader = self.rules, self.reader
        count = 0
        stack = [Hypothesis([], self.state, 0)]
        seen_parts = reader.parts(observed) if shown_only else {}
        reached: dict[Any, int] = {}  # shown_only: position → fewest choices it was reached with
        touches = getattr(reader, "touches", None)  # optional: a move's parts, before playing it
        reachable = getattr(reader, "reachable", None)  # optional: can a part still become seen
        evidence = getattr(reader, "evidence", None)  # optional: views a move must have shown
        limit = self.deep_limit if shown_only else self.limit
        while stack and count < limit:
            h = stack.pop()
            if rules.is_over(h.state):
                continue
            moves = rules.legal_moves(h.state)
            forced = len(moves) == 1 and rules.to_move(h.state) != CHANCE
            fitting = set()
            if shown_only:
                current = reader.parts(reader.expect(rules, h.state))
                fitting = {k for k, v in current.items() if seen_parts.get(k) == v}
            for move in moves:
                b = h.branching + (0 if forced else 1)
                if b > depth:
                    continue
                if (
                    shown_only
                    and touches is not None
                    and fitting & (touches(h.state, move) or set())
                ):
                    continue  # it would change a pile the camera sees unchanged
                if shown_only and reachable and not reachable(h.state, move, seen_parts):
                    continue  # it would leave a pile as it cannot show in the end
                count += 1
                after = rules.apply(h.state, move)
                final = reader.expect(rules, after)
                if shown_only:
                    parts = reader.parts(final)
                    if any(parts.get(k) != current[k] for k in fitting):
                        continue  # it would change a pile the camera sees unchanged
                    position = hash(after)  # hashed once: hashing a position is slow
                    if reached.get(position, depth + 1) < b:
                        continue
                    reached[position] = b
                if evidence and not all(
                    self._was_seen(v) for v in evidence(rules, h.state, move, after)
                ):
                    continue  # a move that must show, unseen
                views = [*h.views, *reader.transients(rules, h.state, move, after)]
                child = Hypothesis([*h.moves, move], after, b, views)
                off = reader.mismatch(final, observed)
                yield child, off
                if off == 0 and not past_fits:
                    continue
                if len(child.moves) < 12 and (b < depth or _forced_next(rules, after)):
                    stack.append(Hypothesis(child.moves, after, b, [*views, final]))


def _forced_next(rules: Rules, state: Any) -> bool:
    if rules.is_over(state) or rules.to_move(state) == CHANCE:
        return False
    return len(rules.legal_moves(state)) == 1


def _dedupe(hs: list[Hypothesis]) -> list[Hypothesis]:
    seen: set[tuple] = set()
    out = []
    for h in hs:
        key = tuple(repr(m) for m in h.moves)
        if key not in seen:
            seen.add(key)
            out.append(h)
    return out


def _distinct(rules: Rules, hs: list[Hypothesis]) -> list[Hypothesis]:
    """Keep one hypothesis per distinct resulting state (equivalent explanations agree)."""
    out: dict[str, Hypothesis] = {}
    for h in hs:
        out.setdefault(_outcome(rules, h), h)
    return list(out.values())


def _outcome(rules: Rules, h: Hypothesis) -> str:
    """Return the position ``h`` ends in, as a key (equivalent explanations share it)."""
    try:
        data = rules.state_to_json(h.state)
    except Exception:  # a state the referee cannot serialise counts as its own outcome
        return str(id(h))
    # The narration differs between equivalent moves (laying the last card, or going out
    # with it); the position is what counts.
    return repr({k: v for k, v in data.items() if k not in ("last", "message")})


def _replayed(rules: Rules, state: Any, moves: list[Move]) -> Any:
    """Return ``state`` after ``moves``, or ``None`` where one of them is not legal."""
    for move in moves:
        try:
            state = rules.apply(state, move)
        except IllegalMove:
            return None
    return state


def _last(state: Any) -> str:
    return str(getattr(state, "last", "") or "")


# ---- the whole pipeline -----------------------------------------------------------------------
# an image's cards, or a frame's where the recognizer says ``wants_frame`` (ground truth)
Recognizer = Callable[[np.ndarray], Detections] | Callable[[Frame], Detections]


@dataclass(frozen=True)
class PipelineOutput:
    """What one frame produced: tracker events, guard events, and the frame time."""

    time: float
    table_events: list[TableEvent]
    guard_events: list[GuardEvent]
    seconds: float  # processing time of this frame

    def lines(self) -> Iterator[dict[str, Any]]:
        """Yield one JSON object per event (tracker events first)."""
        for e in self.table_events:
            yield e.to_json()
        for g in self.guard_events:
            yield g.to_json()


class Pipeline:
    """Recognizer → tracker → guard, fed one frame at a time by :meth:`process`.

    ``recognizer`` maps a BGR image to detections (the real recognizer, or a
    ground-truth adapter). The guard is optional: without it only table events come out.
    """

    def __init__(
        self, recognizer: Recognizer, tracker: Tracker | None = None, guard: Guard | None = None
    ) -> None:
        self.recognizer = recognizer
        self.tracker = tracker or Tracker()
        self.guard = guard

    def process(self, frame: Frame) -> PipelineOutput:
        """Run one frame through every stage."""
        t0 = _time.perf_counter()
        detections = _recognize(self.recognizer, frame)
        table_events = self.tracker.update(detections, frame.time, frame.image)
        guard_events = self.guard.update(self.tracker.state, frame.time) if self.guard else []
        return PipelineOutput(frame.time, table_events, guard_events, _time.perf_counter() - t0)

    def run(self, frames: Iterable[Frame]) -> Iterator[PipelineOutput]:
        """Process every frame; at the end, let the guard settle what is still waiting."""
        last_time = 0.0
        for frame in frames:
            last_time = frame.time
            yield self.process(frame)
        if self.guard is not None:
            events = self.guard.finish(self.tracker.state, last_time)
            if events:
                yield PipelineOutput(last_time, [], events, 0.0)


class VideoRecognizer:
    """The recognizer (:class:`vision.recognizer.Recognizer`) as a video's frames are read.

    The tracker confirms a card only after several sightings with one code, so each frame
    passes readings below the single-photo floor, down to the tracker's. The cards of the
    last frame are proposed again, so a card once found is followed where the detector alone
    is unsure of it. Every ``survey_every`` frames the detector also looks at ``survey_size``,
    where small far cards show (Skip-Bo stock cards 32 px wide across the table: 2 of 3 at
    800 px, all at 1024; a fanned Skip-Bo discard pile's top card scores about 0.2 at 1024
    and 0.55 at 1280), and at the model's extra sizes for large cards; between surveys it
    runs at its main size alone, to keep up. Frames are read as a video's
    (``recognize(..., video=True)``): a small card read whole counts as fewer index corners
    than in a photo, as a card that flickers between two codes is lost to the tracker.
    """

    def __init__(
        self,
        recognizer: Any,
        *,
        survey_size: int = 1280,
        survey_every: int = 8,
        margin: float = 2.0,
    ):
        self.recognizer = recognizer
        self.survey_size = survey_size
        self.survey_every = survey_every
        self.margin = margin
        self._frames = 0
        self._last: Recognition | None = None
        self._surveyed: Recognition | None = None  # the cards found by the last survey

    def region(self, shape: tuple[int, ...]) -> tuple[int, int, int, int] | None:
        """Return the part of the frame where cards lie (those of the last survey and of the
        last frame, widened by ``margin`` card widths), or None for the whole frame.

        The detector looks there alone between surveys: a table's cards often fill a small
        part of the view, and there the detector sees them larger for no more than its pass
        over the whole frame costs (the more cards it finds, the more there are to read).
        """
        found = [
            r.detections.corners
            for r in (self._surveyed, self._last)
            if r is not None and len(r.detections)
        ]
        if not found:
            return None
        quads = np.concatenate(found)
        pts = quads.reshape(-1, 2)
        pad = self.margin * float(np.median(card_widths(quads)))
        h, w = shape[:2]
        x0, y0 = np.maximum(pts.min(axis=0) - pad, 0).astype(int)
        x1, y1 = np.minimum(pts.max(axis=0) + pad, (w, h)).astype(int)
        if (x1 - x0) * (y1 - y0) > 0.8 * w * h:
            return None
        return int(x0), int(y0), int(x1), int(y1)

    def __call__(self, image: np.ndarray) -> Detections:
        survey = self.survey_every > 0 and self._frames % self.survey_every == 0
        rec = self.recognizer.recognize(
            image,
            TRACKER_MIN_CONFIDENCE,
            sizes=(self.survey_size,) if survey else (),
            proposals=self._last,
            extra=survey,
            region=None if survey else self.region(image.shape),
            video=True,
        )
        self._frames += 1
        self._last = rec
        if survey:
            self._surveyed = rec
        return rec.detections


def _recognize(recognizer: Any, frame: Frame) -> Detections:
    """Call a recognizer that takes a frame (ground truth) or an image (the model)."""
    if getattr(recognizer, "wants_frame", False):
        return recognizer(frame)
    return recognizer(frame.image)


# ---- ground truth and replays -------------------------------------------------------------------
def check_truth_cards(cards: Any, shares: tuple[str, ...] = ("visible", "index")) -> None:
    """Raise ``ValueError`` unless ``cards`` is a list of generator ground-truth cards, objects
    whose ``shares`` seen are numbers (a video's labels: ``visible`` and ``index``; a scene's
    truth: ``visible``, its ``index`` being the index corners): they are compared with
    numbers as frames are read, and text there ended a replay in a traceback. The codes and
    corners are :meth:`Detections.from_list`'s to check."""
    if not isinstance(cards, list) or not all(isinstance(c, dict) for c in cards):
        raise ValueError(f"cards must be a list of objects, not {cards!r:.30}")
    for card in cards:
        for key in shares:
            share = card.get(key, 0.0)
            if isinstance(share, bool) or not isinstance(share, int | float):
                raise ValueError(f"{key!r} must be a number, not {share!r:.20}")


class GroundTruthRecognizer:
    """Detections from a generated video's ``labels.jsonl`` instead of the model.

    A card counts as seen when at least ``min_visible`` of it shows, or one of its index
    corners shows at least ``min_index`` (what a good recognizer needs).
    """

    wants_frame = True

    def __init__(self, labels_path: str, *, min_visible: float = 0.4, min_index: float = 0.6):
        import json

        from vision.images import check_file

        self.frames: dict[int, list[dict]] = {}
        check_file(labels_path)
        try:
            lines = Path(labels_path).read_text(encoding="utf-8").splitlines()
        except UnicodeDecodeError:
            raise ValueError(f"{labels_path} is not text (UTF-8)") from None
        for n, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
                if not isinstance(rec, dict):
                    raise ValueError(f"a {type(rec).__name__}, not an object")
                check_truth_cards(rec["cards"])
                Detections.from_list(rec["cards"])  # each card's code and corners
                self.frames[int(rec["frame"])] = rec["cards"]
            except json.JSONDecodeError as e:  # as load_json says it, of this line
                raise ValueError(f"{labels_path} line {n}: not JSON (column {e.colno})") from None
            except (KeyError, TypeError, ValueError, RecursionError) as e:
                why = f"no {e}" if isinstance(e, KeyError) else str(e)
                if isinstance(e, RecursionError):
                    why = "its JSON is nested too deeply"
                raise ValueError(f'{labels_path} line {n}: not {{"frame", "cards"}}: {why}') from e
        self.min_visible = min_visible
        self.min_index = min_index

    def __call__(self, frame: Frame) -> Detections:
        cards = [
            c
            for c in self.frames.get(frame.index, [])
            if c.get("visible", 1.0) >= self.min_visible or c.get("index", 0.0) >= self.min_index
        ]
        return Detections.from_list(cards)


def tracker_for(rules: Rules) -> Tracker:
    """Return a tracker of the game's cards. In Skip-Bo a wild may be laid squarely onto a
    wild, its outline barely moving: the tracker watches the wilds' pictures too."""
    watch = rules.wild_codes() if isinstance(rules, SkipBo) else frozenset()
    return Tracker(codes=rules.codes(), watch=watch)


def reader_for(
    game: str, rules: Rules, state: Any, table: TableState | None = None, *, zones: Any = None
) -> GameReader:
    """Return the layout reader of ``game`` (Skip-Bo reads through ``zones``, a ZoneMap, or
    proposes its zones from ``table``)."""
    from vision.layouts.road import StigespillReader
    from vision.layouts.skipbo import SkipBoReader, propose_zones
    from vision.layouts.sten import StenReader

    if game == "stigespill":
        return StigespillReader()
    if game == "sten":
        return StenReader()
    if game == "skipbo":
        if zones is None:
            hidden = getattr(state, "hidden", False)
            tops = [s[-1].code for s in state.stocks] if not hidden else None
            zones = propose_zones(table or TableState(0.0), rules.players, tops)
        return SkipBoReader(zones, rules.codes())
    raise ValueError(f"unknown game {game!r}")


@dataclass
class Transcript:
    """A replayed video: the moves the pipeline accepted, every event, and timing figures."""

    moves: list[dict[str, Any]]
    lines: list[dict[str, Any]]
    frames: int
    seconds: float  # time spent in the pipeline (recognizer, tracker, guard)

    def to_json(self) -> dict[str, Any]:
        return {
            "moves": self.moves,
            "frames": self.frames,
            "seconds": round(self.seconds, 3),
            "events": self.lines,
        }


def replay_events(
    events: dict[str, Any],
    frames: Iterable[Frame],
    recognizer: Recognizer,
    *,
    warmup: float = 1.0,
    on_line: Callable[[dict[str, Any]], None] | None = None,
    zones: Any = None,
) -> Transcript:
    """Run the pipeline over ``frames`` of a game whose set-up is ``events`` (events.json);
    ``zones``: a Skip-Bo ZoneMap to read through (None: proposed from the stock cards)."""
    rules, state = recorded_game(events)
    pipeline = Pipeline(recognizer, tracker_for(rules))
    lines: list[dict[str, Any]] = []
    n = 0
    busy = 0.0
    last_time = 0.0

    def emit(obj: dict[str, Any]) -> None:
        lines.append(obj)
        if on_line is not None:
            on_line(obj)

    problem = ""

    def start() -> None:
        nonlocal problem
        try:
            reader = reader_for(events["game"], rules, state, pipeline.tracker.state, zones=zones)
        except ValueError as e:  # e.g. not every Skip-Bo stock card in sight yet
            if str(e) != problem:
                problem = str(e)
                emit({"event": "waiting", "time": round(last_time, 3), "message": problem})
            return
        pipeline.guard = Guard(rules, state, reader)

    for frame in frames:
        n += 1
        last_time = frame.time
        if pipeline.guard is None and frame.time >= warmup and pipeline.tracker.state.cards:
            start()
        out = pipeline.process(frame)
        busy += out.seconds
        for obj in out.lines():
            emit(obj)
    if pipeline.guard is None:
        start()
    if pipeline.guard is None:
        return Transcript([], lines, n, busy)
    for g in pipeline.guard.finish(pipeline.tracker.state, last_time):
        emit(g.to_json())
    moves = [m.to_json() for m in pipeline.guard.history]
    return Transcript(moves, lines, n, busy)


def read_json(path: str | Path) -> Any:
    """Return a JSON file's content (a recording's events, a zone map, ground truth); raise
    ``ValueError`` naming what is wrong with it (not JSON, not UTF-8 text, nested too deeply:
    Python's own words for that are "maximum recursion depth exceeded"), ``OSError`` for a
    file that cannot be read."""
    from kortbord.cli import load_json
    from vision.images import check_file

    check_file(path)
    return load_json(Path(path).read_text(encoding="utf-8"))


def recorded_game(events: Any) -> tuple[Rules, Any]:
    """Return the rules and first state of a recording's events (events.json); raise
    ``ValueError`` naming what is wrong with them."""
    from referee import RulesError, make_rules

    if not isinstance(events, dict):
        raise ValueError("not an object with the game's set-up")
    fps, config = events.get("fps"), events.get("config", {})
    if fps is not None and (isinstance(fps, bool) or not isinstance(fps, int | float)):
        raise ValueError(f"fps must be a number, not {fps!r:.20}")
    if not isinstance(config, dict):
        raise ValueError(f"config must be an object of settings, not {config!r:.20}")
    try:
        rules = make_rules(events["game"], **events["config"])
        return rules, rules.state_from_json(events["initial"])
    except KeyError as e:
        raise ValueError(f"no {e} in it") from None
    except (RulesError, TypeError, AttributeError) as e:  # config not an object, …
        raise ValueError(f"not a game's set-up: {e}") from None


def load_events(path: str) -> tuple[dict[str, Any], str]:
    """Return (events.json content, frames source) for a video folder, file or events file;
    raise ``ValueError`` naming an events.json that is no recording's."""
    p = Path(path)
    if p.is_dir():
        folder = p
    elif p.name == "events.json":
        folder = p.parent
    else:
        folder = p.parent
    events_path = folder / "events.json"
    if not events_path.is_file():
        raise FileNotFoundError(f"no events.json beside {path!r}")
    try:
        events = read_json(events_path)
        recorded_game(events)
    except ValueError as e:
        raise ValueError(f"{events_path} is no recording's events: {e}") from None
    if p.is_file() and p.name != "events.json":
        source = str(p)
    elif (folder / "frames").is_dir():
        source = str(folder / "frames")
    elif (folder / "video.mp4").is_file():
        source = str(folder / "video.mp4")
    else:
        raise FileNotFoundError(f"no frames/ or video.mp4 in {str(folder)!r}")
    return events, source


def open_recording(
    source: str, events: dict[str, Any] | None, *, fps: float | None = None, **kw: Any
) -> FrameSource:
    """Open ``source`` (a :func:`load_events` frames source, or any other) at ``fps``, else at
    its recording's own frame rate (``events``' ``fps``), else at the source's default."""
    from vision.sources import open_source

    if fps is None and events is not None:
        fps = events.get("fps")
    return open_source(source, fps=fps, **kw)


def table_game(
    game: str,
    players: int,
    table: TableState,
    *,
    road_shape: str = "auto",
    spiral: str = "clockwise",
    zones: Any = None,
) -> tuple[Rules, Any, GameReader]:
    """Set up a real-table game from the first stable table (no set-up file).

    Stigespill reads the road; Sten starts with unknown hands; Skip-Bo starts a real-table
    state (unseen cards are revealed as chance moves) with the given or proposed zones.
    Raises ``ValueError`` with a reason a user understands when the table is not ready.
    """
    import random

    from referee import make_rules
    from vision.layouts.road import RoadReader, StigespillReader
    from vision.layouts.skipbo import SkipBoReader, ZoneMap, propose_zones
    from vision.layouts.sten import StenReader

    if game == "stigespill":
        # A road read with a card missing is not used: no reading again to place the card.
        reading = RoadReader(shape=road_shape, spiral=spiral, fill_missing=False).read(table)
        if not reading.ok:
            raise ValueError("the road cannot be read yet: " + "; ".join(reading.problems))
        rules = make_rules("stigespill", players=players, road=reading.road)
        return rules, rules.initial_state(random.Random(0)), StigespillReader()
    if game == "sten":
        rules = make_rules("sten", players=players, known_hands=False)
        return rules, rules.initial_state(random.Random(0)), StenReader()
    if game == "skipbo":
        rules = make_rules("skipbo", players=players)
        assert isinstance(rules, SkipBo), "the Skip-Bo rules"
        zmap = zones if isinstance(zones, ZoneMap) else propose_zones(table, players)
        return rules, rules.table_state(random.Random(0)), SkipBoReader(zmap, rules.codes())
    raise ValueError(f"unknown game {game!r}; expected stigespill, sten or skipbo")

"""Skip-Bo turn planner: search the sequences of plays open to a seat, pick the best.

The planner sees only what the seat may see: the building piles, its hand, its own (and a
partner's) discard piles and stock top, and the next player's face-up stock card. It runs a
bounded depth-first search with memoization over abstract positions (pile values, cards
left) and scores each reachable end of turn:

* every stock card played is worth far more than anything else (stock first; emptying the
  stock wins);
* wilds from the hand or a discard pile cost more than a few ordinary plays, and are only
  tried on piles still below the stock card, so they are spent where they free stock cards;
* hand and discard cards played earn a little (the hand refills, discard piles open up);
* a plan that leaves a pile one below the next player's stock top is a gift and costs;
* the turn's discard is chosen to build discard piles downwards (a card onto one higher or
  the same), high cards onto empty piles, never a wild, and not a card needed to reach the
  stock.

Once the stock's top is played the next card is unknown, so the plan stops using the stock;
the hint is recomputed after every move, with the new card in view.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from referee.core import CHANCE, Hint

if TYPE_CHECKING:
    from referee.skipbo import Discard, Play, SkipBo, SkipBoState

STOCK = 1000.0
WIN = 100_000.0
HAND_PLAY = 4.0
DISCARD_PLAY = 8.0
WILD_COST = 40.0
HAND_EMPTIED = 20.0
COMPLETE = 2.0
GIFT = 60.0
NODE_BUDGET = 3000


def plan_hint(rules: SkipBo, state: SkipBoState, seat: int) -> Hint:
    """Return the best plan's first move for ``seat``, with the plan and the closing discard."""
    from referee.skipbo import EndTurn

    if state.phase == "over":
        return Hint(None, "the game is over")
    if rules.to_move(state) == CHANCE:
        return Hint(None, "waiting for the drawn or turned-up card")
    if seat != state.turn:
        return Hint(None, f"it is seat {state.turn}'s turn")
    planner = _Planner(rules, state, seat)
    gain, plan, discard = planner.best()
    plan_json = [m.to_json() for m in plan]
    details: dict[str, Any] = {
        "plan": plan_json,
        "discard": discard.to_json() if discard else None,
        "score": round(gain, 1),
        "nodes": planner.nodes,
    }
    if plan:
        stock_plays = sum(1 for m in plan if m.source == "stock")
        first = plan[0]
        # what the count is: the plan this first play opens (a bare "4 plays" puzzled)
        why = (
            f"the first of {len(plan)} plays"
            + (f", {stock_plays} of them from the stock" if stock_plays else "")
            if len(plan) > 1
            else "the one play this turn"
        )
        return Hint(
            first,
            f"play {first.card} from {_source(first, seat)} onto building pile {first.pile + 1}:"
            f" {why}",
            details,
        )
    if discard is not None:
        return Hint(
            discard,
            f"no play helps; discard {discard.card} onto discard pile {discard.pile + 1}",
            details,
        )
    return Hint(EndTurn(), "nothing to play and an empty hand: end the turn", details)


def _source(play: Any, seat: int) -> str:
    """Return the pile a hinted play takes its card from, named as its move's sentence names
    it: which discard pile, and a partner's stock or discard pile as theirs."""
    whose = "" if play.owner in (None, seat) else f"seat {play.owner}'s "
    if play.source == "hand":
        return "the hand"
    if play.source == "stock":
        return f"{whose}stock" if whose else "the stock"
    return f"{whose}discard pile {play.index + 1}"


class _Planner:
    def __init__(self, rules: SkipBo, state: SkipBoState, seat: int):
        from referee.skipbo import value

        self.rules = rules
        self.value = value
        self.seat = seat
        owners = rules.team(seat) if rules.teams else (seat,)
        # stock tops the seat can play from: (owner, card, value, stock size)
        self.stocks = [
            (o, state.stocks[o][-1], value(state.stocks[o][-1]), len(state.stocks[o]))
            for o in owners
            if state.stocks[o]
        ]
        # discard piles the seat can play from: (owner, index, cards)
        self.dpiles = [
            (o, i, state.discards[o][i]) for o in owners for i in range(4) if state.discards[o][i]
        ]
        self.own_piles = state.discards[seat]
        nxt = (seat + 1) % rules.players
        stock_next = state.stocks[nxt]
        self.gift_value = (
            value(stock_next[-1]) if stock_next and nxt not in self.stocks_owners() else 0
        )
        self.team_left = sum(len(state.stocks[o]) for o in owners)
        self.memo: dict[tuple, tuple[float, tuple]] = {}
        self.nodes = 0
        self.hand0 = tuple(sorted(state.hands[seat], key=value))
        self.piles0 = tuple(len(p) for p in state.building)

    def stocks_owners(self) -> set[int]:
        return {o for o, *_ in self.stocks}

    def best(self) -> tuple[float, list[Play], Discard | None]:
        """Return (gain, plays, closing discard or None)."""
        from referee.skipbo import Discard, Play

        stocks_left = tuple(True for _ in self.stocks)
        dlens = tuple(len(c) for _o, _i, c in self.dpiles)
        gain, steps = self._search(self.piles0, self.hand0, stocks_left, dlens, 0)
        plan = [m for m in steps if isinstance(m, Play)]  # the steps are plays and a discard
        discard = next((m for m in steps if isinstance(m, Discard)), None)
        return gain, plan, discard

    # The search returns the best additional gain from a position and the moves to it.
    def _search(self, piles, hand, stocks_left, dlens, stock_played) -> tuple[float, tuple]:
        key = (piles, tuple(self.value(c) for c in hand), stocks_left, dlens, stock_played)
        got = self.memo.get(key)
        if got is not None:
            return got
        self.nodes += 1
        best_gain, best_steps = self._terminal(piles, hand, stocks_left)
        if self.nodes > NODE_BUDGET:
            self.memo[key] = (best_gain, best_steps)
            return best_gain, best_steps
        for gain, move, nxt in self._children(piles, hand, stocks_left, dlens, stock_played):
            sub_gain, sub_steps = self._search(*nxt)
            if gain + sub_gain > best_gain + 1e-9:
                best_gain, best_steps = gain + sub_gain, (move, *sub_steps)
        self.memo[key] = (best_gain, best_steps)
        return best_gain, best_steps

    def _target(self, stocks_left) -> int:
        """Return the lowest stock value still known and unplayed (13: none)."""
        vals = [
            v for (_o, _c, v, _n), left in zip(self.stocks, stocks_left, strict=True) if left and v
        ]
        return min(vals) if vals else 13

    def _children(self, piles, hand, stocks_left, dlens, stock_played):
        from referee.skipbo import Play

        value = self.value
        target = self._target(stocks_left)
        wild_stock = any(
            left and v == 0 for (_o, _c, v, _n), left in zip(self.stocks, stocks_left, strict=True)
        )

        def targets(v: int, wild_ok: Callable[[int], bool]):
            seen = set()
            for p, n in enumerate(piles):
                if n in seen:
                    continue
                if v == n + 1 or (v == 0 and wild_ok(n)):
                    seen.add(n)
                    yield p

        def place(p: int) -> tuple[tuple, float]:
            n = piles[p] + 1
            extra = 0.0
            if n == 12:
                n, extra = 0, COMPLETE
            return (*piles[:p], n, *piles[p + 1 :]), extra

        def useful_wild(n: int) -> bool:
            # a wild spent from hand or discard must bring a pile closer to a stock card
            return wild_stock or n + 2 <= target <= 12

        # stock first
        for k, ((owner, card, v, size), left) in enumerate(
            zip(self.stocks, stocks_left, strict=True)
        ):
            if not left:
                continue
            for p in targets(v, lambda n: True):
                new_piles, extra = place(p)
                gain = STOCK + extra
                if size == 1 and self.team_left - stock_played - 1 == 0:
                    gain += WIN
                new_left = (*stocks_left[:k], False, *stocks_left[k + 1 :])
                move = Play("stock", card, p, 0, None if owner == self.seat else owner)
                yield gain, move, (new_piles, hand, new_left, dlens, stock_played + 1)
        # then discard-pile tops
        for k, (owner, i, cards) in enumerate(self.dpiles):
            if not dlens[k]:
                continue
            card = cards[dlens[k] - 1]
            v = value(card)
            for p in targets(v, useful_wild):
                new_piles, extra = place(p)
                gain = DISCARD_PLAY + extra - (WILD_COST if v == 0 else 0)
                new_d = (*dlens[:k], dlens[k] - 1, *dlens[k + 1 :])
                move = Play("discard", card, p, i, None if owner == self.seat else owner)
                yield gain, move, (new_piles, hand, stocks_left, new_d, stock_played)
        # then hand cards (one of each value)
        tried = set()
        for j, card in enumerate(hand):
            v = value(card)
            if v in tried:
                continue
            tried.add(v)
            for p in targets(v, useful_wild):
                new_piles, extra = place(p)
                new_hand = hand[:j] + hand[j + 1 :]
                gain = HAND_PLAY + extra - (WILD_COST if v == 0 else 0)
                if not new_hand:
                    gain += HAND_EMPTIED
                move = Play("hand", card, p)
                yield gain, move, (new_piles, new_hand, stocks_left, dlens, stock_played)

    def _terminal(self, piles, hand, stocks_left) -> tuple[float, tuple]:
        """Score stopping here: gift to the next player, closeness to the stock, the discard."""
        score = 0.0
        g = self.gift_value
        if g and any(n == g - 1 for n in piles):
            score -= GIFT
        target = self._target(stocks_left)
        if target <= 12:
            below = [target - 1 - n for n in piles if n <= target - 1]
            score -= min(below) if below else 12
        if not hand:
            return score, ()
        d_score, move = self._discard(piles, hand, target)
        return score + d_score, (move,)

    def _discard(self, piles, hand, target) -> tuple[float, Discard]:
        """Return the best closing discard: build downwards, keep wilds and needed cards."""
        from referee.skipbo import Discard

        value = self.value
        tops = [value(p[-1]) if p else None for p in self.own_piles]
        needed: set[int] = set()
        if target <= 12:
            for n in piles:
                if n < target - 1:
                    needed.update(range(n + 1, target))
        counts: dict[int, int] = {}
        for c in hand:
            counts[value(c)] = counts.get(value(c), 0) + 1
        best: tuple[float, Discard] | None = None
        tried = set()
        for c in hand:
            v = value(c)
            if v in tried:
                continue
            tried.add(v)
            base = v / 6.0
            if v == 0:
                base -= 100.0
            if v in needed and counts[v] == 1:
                base -= 3.0
            for i, t in enumerate(tops):
                if t is None:
                    s = 3.0 + v / 4.0
                elif t == 0:
                    s = -4.0  # never bury a wild
                elif t == v + 1:
                    s = 12.0
                elif t == v:
                    s = 7.0
                elif v > t:
                    s = -2.0 - (v - t)
                else:
                    s = 4.0 - (t - 1 - v) / 3.0
                total = base + s
                if best is None or total > best[0] + 1e-9:
                    best = (total, Discard(c, i))
        assert best is not None
        return best

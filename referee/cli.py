"""``kortbord simulate``: seeded playouts with statistics as JSON."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from kortbord.cli import SEED, Number, exit_statuses
from referee import GAMES, skipbo, sten, stigespill
from referee.simulate import POLICIES

# Players of each game, as its rules count them (Skip-Bo refuses 7 of the 2–8 itself)
GAME_PLAYERS = {
    "stigespill": Number(int, stigespill.MIN_PLAYERS, stigespill.MAX_SEATS, note=" for Stigespill"),
    "sten": Number(int, sten.MIN_PLAYERS, sten.MAX_PLAYERS, note=" for Sten"),
    "skipbo": Number(
        int,
        skipbo.MIN_PLAYERS,
        max(skipbo.TEAM_PLAYERS),
        note=" for Skip-Bo (4, 6 or 8 as teams of two)",
    ),
}
# --players of a command that may not know its game yet: what some game is played by
PLAYERS = Number(
    int,
    min(n.least for n in GAME_PLAYERS.values() if n.least is not None),
    max(n.most for n in GAME_PLAYERS.values() if n.most is not None),
)


def players_checked(
    parser: argparse.ArgumentParser, func: Callable[[argparse.Namespace], int]
) -> Callable[[argparse.Namespace], int]:
    """Return ``func`` run once ``args.players`` is checked against ``args.game``'s limits:
    refused as argparse refuses a bad value ("argument --players: expected a whole number
    2–10 for Sten, not 11", exit status 2), not in the rules' words of their own."""

    def run(args: argparse.Namespace) -> int:
        try:
            GAME_PLAYERS[args.game].check(args.players)
        except ValueError as e:
            parser.error(f"argument --players: {e}")
        return func(args)

    return run


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``simulate`` to the ``kortbord`` parser."""
    p = sub.add_parser(
        "simulate",
        help="play seeded simulated games and print statistics (JSON)",
        epilog=exit_statuses("a game broke a rule or an invariant (invariant_violations)"),
    )
    p.add_argument("game", choices=sorted(GAMES), help="the game to play")
    p.add_argument("--players", type=PLAYERS, default=2, help="players (default 2)")
    p.add_argument("--games", type=Number(int, 1), default=100, help="games to play (default 100)")
    p.add_argument("--seed", type=SEED, default=0, help="seed of the first game (default 0)")
    p.add_argument(
        "--variant",
        default=None,
        metavar="{classic,strategy}",
        help="Stigespill: classic (default) or strategy",
    )
    p.add_argument("--teams", action="store_true", help="Skip-Bo: teams of two (4, 6 or 8 players)")
    p.add_argument(
        "--policy", choices=POLICIES, default="random", help="how every seat plays (default random)"
    )
    p.add_argument(
        "--against",
        choices=POLICIES,
        default=None,
        help="one seat (a different one each game) plays --policy, the others this; "
        "wins.by_policy compares them",
    )
    p.set_defaults(func=players_checked(p, _simulate))


def _simulate(args: argparse.Namespace) -> int:
    from kortbord.cli import CommandError
    from referee.core import RulesError
    from referee.simulate import simulate

    if args.teams and args.game != "skipbo":
        raise CommandError(f"--teams is for Skip-Bo; {args.game} has no teams")
    try:
        result = simulate(
            args.game,
            args.players,
            args.games,
            args.seed,
            args.policy,
            args.against,
            args.variant,
            teams=args.teams,
        )
    except RulesError as e:
        raise CommandError(str(e)) from None
    print(json.dumps(result))
    return 1 if result["invariant_violations"] else 0

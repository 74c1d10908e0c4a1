"""``kortbord simulate``: seeded playouts with statistics as JSON."""

from __future__ import annotations

import argparse
import json

from kortbord.cli import SEED, Number, exit_statuses
from referee import GAMES
from referee.simulate import POLICIES


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``simulate`` to the ``kortbord`` parser."""
    p = sub.add_parser(
        "simulate",
        help="play seeded simulated games and print statistics (JSON)",
        epilog=exit_statuses("a game broke a rule or an invariant (invariant_violations)"),
    )
    p.add_argument("game", choices=sorted(GAMES), help="the game to play")
    p.add_argument("--players", type=int, default=2, help="players (default 2)")
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
    p.set_defaults(func=_simulate)


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

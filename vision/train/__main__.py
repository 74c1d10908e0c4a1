"""`python -m vision.train COMMAND …`: the vision commands without the rest of the CLI.

For hosts that have the training stack but not the web layer's dependencies (a GPU box).
"""

import argparse
import sys

from kortbord.cli import CommandError
from vision.cli import register

parser = argparse.ArgumentParser(prog="python -m vision.train")
register(parser.add_subparsers(dest="command", metavar="COMMAND", required=True))
args = parser.parse_args()
try:
    sys.exit(int(args.func(args) or 0))
except CommandError as e:
    print(f"{args.command}: {e}", file=sys.stderr)
    sys.exit(2)

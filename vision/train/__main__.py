"""`python -m vision.train COMMAND …`: the vision commands without the rest of the CLI.

For hosts that have the training stack but not the web layer's dependencies (a GPU box).
"""

import argparse
import sys

from kortbord.cli import CommandError, describe, said
from vision.cli import register

parser = argparse.ArgumentParser(prog="python -m vision.train")
commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
register(commands)
describe(commands)  # each command's help opens with its line and ends with its exit statuses
args = parser.parse_args()
try:
    sys.exit(int(args.func(args) or 0))
except CommandError as e:
    print(said(f"{args.command}: {e}"), file=sys.stderr)
    sys.exit(2)

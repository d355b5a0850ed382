"""``vgau-data info DIR``: what a built or generated folder holds, as a table."""

from __future__ import annotations

import argparse

from vgau_data.cli.args import say

EPILOG = """examples:
  vgau-data info vgau_puzzles   # a vgau-data build folder: rows per family and difficulty, lengths
  vgau-data info train_data     # a vgau-data generate folder: also per band yield, test-set drops, versions
"""


def add_parser(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser(
        "info",
        help="summarise a built or generated dataset folder",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("folder", help="folder written by `vgau-data build` or `vgau-data generate`")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from vgau_data.training.folder_info import folder_info

    info = folder_info(args.folder)
    say(f"{args.folder}: written by `{info.kind}`")
    for line in info.table():
        say(line)
    return 0

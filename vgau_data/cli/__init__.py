"""The ``vgau-data`` command: one module per subcommand, each with ``add_parser`` and ``run``.

Subcommand modules import nothing heavy at module top, so ``vgau-data --help`` is fast
and works without the optional extras.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from collections.abc import Sequence

from vgau_data.cli.args import OneLineErrorParser
from vgau_data.errors import VgauError
from vgau_data.terminal import terminal_safe

SUBCOMMANDS: tuple[str, ...] = ("build", "generate", "decontam", "push", "score", "baseline", "convert",
                               "publish-metric", "run", "merge", "lmms-eval-tasks", "export", "export-training",
                               "leaderboard", "diagnose", "serve-reward", "info")
"""Modules under ``vgau_data.cli``, in the order ``--help`` lists them."""


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(prog="vgau-data", description="The VGAU-Diag visual planning benchmark.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log debug messages")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in SUBCOMMANDS:
        module = importlib.import_module(f"vgau_data.cli.{name.replace('-', '_')}")
        module.add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit status (tests call ``main([...])``): 2 for bad arguments."""
    try:
        args = build_parser().parse_args(argv)
    except SystemExit as exit_:  # argparse has printed its one-line error (or --help)
        return exit_.code if isinstance(exit_.code, int) else 2
    handler = logging.StreamHandler()
    handler.setFormatter(_TerminalSafeFormatter("%(levelname)s %(name)s: %(message)s"))
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, handlers=[handler])
    try:
        return int(args.handler(args))
    except (VgauError, OSError) as error:  # user errors, and files that cannot be read or written
        print(terminal_safe(f"vgau-data {args.command}: error: {error}"), file=sys.stderr)
        return 2


class _TerminalSafeFormatter(logging.Formatter):
    """Log lines carry text from files and servers: escape its control characters."""

    def format(self, record: logging.LogRecord) -> str:
        return terminal_safe(super().format(record))

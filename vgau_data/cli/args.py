"""What every subcommand shares about its arguments and its terminal output.

Arguments are checked once, at parse time, by the ``type=`` helpers below: a bad value
is a one-line error with exit status 2 (``OneLineErrorParser``), never a traceback
later. Text that may hold parts from a file, a server or a model is printed with
``say``, which escapes control characters (``vgau_data.terminal``).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import NoReturn

from vgau_data.terminal import terminal_safe


class OneLineErrorParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose usage errors are one line (exit status 2), naming ``--help``."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {terminal_safe(message)} (see {self.prog} --help)\n")


def say(text: str, *, err: bool = False) -> None:
    """Print ``text`` (which may hold untrusted parts) to stdout, or stderr when ``err``."""
    print(terminal_safe(text), file=sys.stderr if err else sys.stdout)


def _number(text: str, kind: type[int] | type[float]) -> int | float:
    try:
        value = kind(text)
    except ValueError:
        noun = "an integer" if kind is int else "a number"
        raise argparse.ArgumentTypeError(f"expected {noun}, got {text!r}") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """An integer >= 1 (counts of workers, runs, tokens, ...).

    Example:
        >>> positive_int("3")
        3
    """
    value = int(_number(text, int))
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def non_negative_int(text: str) -> int:
    """An integer >= 0 (seeds, row counts, retries)."""
    value = int(_number(text, int))
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value}")
    return value


def non_negative_float(text: str) -> float:
    """A finite number >= 0 (temperatures); NaN and infinities are refused."""
    value = float(_number(text, float))
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be 0 or more, got {value:g}")
    return value


def positive_float(text: str) -> float:
    """A finite number > 0 (timeouts)."""
    value = float(_number(text, float))
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be more than 0, got {value:g}")
    return value


def fraction(text: str) -> float:
    """A number in (0, 1] (top-p, GPU memory share)."""
    value = float(_number(text, float))
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"must be more than 0 and at most 1, got {value:g}")
    return value


def output_dir(text: str) -> str:
    """A folder to write into: it may exist, but must not be a file."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a file, not a folder; choose a folder")
    _check_parents(path, text)
    return text


def output_file(text: str) -> str:
    """A file to write: it may exist, but must not be a folder."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is a folder; give a file name")
    _check_parents(path, text)
    return text


def _check_parents(path: Path, text: str) -> None:
    for parent in path.parents:
        if parent.exists():
            if not parent.is_dir():
                raise argparse.ArgumentTypeError(f"{text!r} lies under {str(parent)!r}, which is a file")
            return

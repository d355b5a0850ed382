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
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

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


def _checked(kind: type[Any], accept: Callable[[Any], bool], requirement: str, doc: str) -> Callable[[str], Any]:
    """An argparse ``type=`` reading a ``kind`` (finite, for floats) that ``accept`` must allow."""

    def check(text: str) -> Any:
        value = _number(text, kind)
        if not accept(value):
            shown = f"{value:g}" if isinstance(value, float) else str(value)
            raise argparse.ArgumentTypeError(f"must be {requirement}, got {shown}")
        return value

    check.__doc__ = doc
    return check


positive_int = _checked(int, lambda v: v >= 1, "at least 1", "An integer >= 1 (counts of workers, runs, tokens, ...).")
non_negative_int = _checked(int, lambda v: v >= 0, "0 or more", "An integer >= 0 (seeds, row counts, retries).")
non_negative_float = _checked(float, lambda v: v >= 0, "0 or more", "A finite number >= 0 (temperatures).")
positive_float = _checked(float, lambda v: v > 0, "more than 0", "A finite number > 0 (timeouts).")
fraction = _checked(float, lambda v: 0 < v <= 1, "more than 0 and at most 1", "A number in (0, 1] (top-p, GPU share).")


def int_between(low: int, high: int) -> Callable[[str], int]:
    """An argparse ``type=`` for an integer in ``[low, high]``."""
    return _checked(int, lambda v: low <= v <= high, f"{low} to {high}", f"An integer in [{low}, {high}].")


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


def reader_choices() -> list[str]:
    """The registered answer readers (``vgau_data.readers``), for ``--reader``."""
    from vgau_data.readers import reader_names

    return reader_names()

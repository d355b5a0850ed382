"""The ``authors`` reader: answers read, and interactive episodes ended, as the authors' released code does.

It reproduces ``zyb1029/VGAU-Diag`` at ``b250b81`` (the lmms-eval fork behind the paper's
numbers) family by family: each family's ``puzzles/<family>/authors_reader.py`` (the
capability ``FamilySpec.authors_reader``) holds what that family's ``utils.py`` and
``step_adapter.py`` do, ``puzzles/authors_reading.py`` what they share and the step runners of
``step_protocol.py``. Illegal moves are judged by our own rules, which agree with theirs
on every board we build. ``docs/readers.md`` lists every difference from ``ours``.
"""

from __future__ import annotations

import logging
from typing import Any

from vgau_data.answers import MAX_ANSWER_CHARS
from vgau_data.puzzles.authors_reading import AuthorsEpisode, AuthorsFamily, judge_answer
from vgau_data.puzzles.base import FamilySpec
from vgau_data.readers.base import Reader, ReaderError, Reading, unread

logger = logging.getLogger(__name__)

def family_reader(family: FamilySpec) -> AuthorsFamily:
    """The family's ``authors_reader`` capability."""
    if family.authors_reader is None:
        raise ReaderError(f"the authors' code has no reader for family {family.name!r}; use reader 'ours'")
    return family.authors_reader


def judge(family: FamilySpec, state: Any, optimal_length: int, text: object) -> Reading:
    """Read and replay a final answer the authors' way; never raises on the text."""
    reader = family_reader(family)
    if not isinstance(text, str):
        return unread("no_answer")
    if len(text) > MAX_ANSWER_CHARS:
        return unread("bad_format")
    try:
        return judge_answer(family, state, reader.read_answer(text))
    except (ValueError, TypeError, OverflowError, RecursionError, MemoryError) as error:
        logger.warning("%s authors reader failed on %r: %r", family.name, text[:80], error)
        return unread("bad_format")


def episode(family: FamilySpec, state: Any, optimal_length: int, budget: str, cap: int) -> AuthorsEpisode:
    return family_reader(family).episode(family, state, optimal_length, budget)


READER = Reader(
    name="authors",
    summary="reproduces the authors' released code (zyb1029/VGAU-Diag): their answer parsing, and episodes "
    "that end once the goal is out of reach within the optimum",
    judge=judge,
    episode=episode,
)

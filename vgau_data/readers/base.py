"""What an answer reader is: how raw model text becomes steps, and where an episode ends.

A ``Reader`` answers three questions for every family:

- ``judge``: a final answer text -> a ``Reading`` (was an answer found, and its replay);
- ``episode``: the ``EpisodeRules`` of one interactive episode: how a step reply and a
  steps-left reply are read, after which step the episode ends, and what it answers;
- ``summary``: one line for help texts.

``vgau_data.readers`` registers them; ``score_answer(..., reader=...)`` and the
interactive protocols (``ProtocolConfig.reader``) use them. ``Reading`` and
``EpisodeRules`` are defined with the families (``puzzles.reading``),
since each family's ``authors_reader`` speaks them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vgau_data.errors import VgauError
from vgau_data.puzzles.reading import EpisodeRules, Reading, unread

__all__ = ["EpisodeRules", "Reader", "ReaderError", "Reading", "unread"]

if TYPE_CHECKING:
    from vgau_data.puzzles.base import FamilySpec


class ReaderError(VgauError, ValueError):
    """An unknown reader name."""


@dataclass(frozen=True, slots=True)
class Reader:
    """One way of reading model text.

    ``judge(family, state, optimal_length, text)`` reads a final answer;
    ``episode(family, state, optimal_length, budget, cap)`` makes an episode's rules
    (``cap``: the ``fixed`` budget's step cap of ``ProtocolConfig.step_cap``).
    """

    name: str
    summary: str
    judge: Callable[[FamilySpec, Any, int, object], Reading]
    episode: Callable[[FamilySpec, Any, int, str, int], EpisodeRules]

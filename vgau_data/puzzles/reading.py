"""What a reader returns: the verdict of one final answer, and the rules of one interactive episode.

The vocabulary of ``vgau_data.readers`` (``Reader``), spoken by the families' own
``authors_reader`` capability too, so it lives with the families.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vgau_data.puzzles.base import Replay


@dataclass(frozen=True, slots=True)
class Reading:
    """How a reader judged one final answer: ``parsed`` (an answer was found and read) and its replay."""

    parsed: bool
    replay: Replay


def unread(code: str) -> Reading:
    """The reading of a text with no usable answer (``code``: ``no_answer`` or ``bad_format``)."""
    return Reading(False, Replay(False, 0, code, None))


class EpisodeRules:
    """How one interactive episode is read and ended; one object per episode (it may keep memory).

    The episode calls, in order: ``read_step`` on each step reply (raising ``AnswerError``
    when there is no step), ``env_step`` to get what the environment applies, then, after a
    legal step, ``after_step``; under the ``fixed`` budget ``read_remaining`` and
    ``after_count`` on each steps-left reply; finally ``output`` with how it ended.
    """

    max_steps: int
    """The most steps the episode takes (the ``optimal`` budget's rounds, the ``fixed`` budget's cap)."""
    ends_at_goal: bool = True
    """Under the ``optimal`` budget the episode ends as soon as the goal is reached."""

    def read_step(self, text: str) -> Any:
        raise NotImplementedError

    def env_step(self, step: Any) -> Any:
        """What the environment applies for a read step (default: the step itself)."""
        return step

    def after_step(self, state: Any, steps: int) -> str | None:
        """After a legal step: the end it causes (None: play on)."""
        return None

    def read_remaining(self, text: str) -> int | None:
        raise NotImplementedError

    def after_count(self, remaining: int, steps: int, state: Any) -> str | None:
        """After a readable steps-left count: the end it causes (None: ask for the next step)."""
        raise NotImplementedError

    def output(self, end: str, steps: Sequence[Any], state: Any) -> str:
        """The episode's answer text, scored by the same reader."""
        raise NotImplementedError

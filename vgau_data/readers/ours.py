"""Our reader (the default): the families' own parsers and replay, and episodes as the paper describes them.

Final answers: the last complete tagged answer, read leniently (prose, fences, case,
single quotes, trailing commas, ``u d l r``), replayed on the true state. Interactive
episodes (A.2.3, A.2.6, section 4.4): under the ``optimal`` budget at most
``optimal_length`` rounds, ending at the goal; under ``fixed`` the model says when it is
done (``<answer>0</answer>``), up to ``ProtocolConfig.step_cap`` steps, and a detour
that reaches the goal is feasible but not optimal.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import Any

from vgau_data.puzzles import prompts
from vgau_data.puzzles.base import AnswerError, FamilySpec
from vgau_data.readers.base import EpisodeRules, Reader, Reading, unread

logger = logging.getLogger(__name__)

NO_ANSWER_ENDS: frozenset[str] = frozenset({"unparseable_count", "cap"})
"""Endings that are failures whatever the board shows: the model never said it was done."""


def read_with(parser: Callable[[str], Any], text: object, family: str) -> tuple[Any, str | None]:
    """``(parser(text), None)``, or ``(None, reason code)`` for no text, an ``AnswerError`` or a parser bug."""
    if not isinstance(text, str) or not text.strip():
        return None, "no_answer"
    try:
        return parser(text), None
    except AnswerError as error:
        return None, error.code
    except (ValueError, TypeError, OverflowError, RecursionError, MemoryError) as error:
        # A parser bug must not lose the whole scoring run; the fuzz tests hunt these down.
        logger.warning("%s parser failed on %r: %r", family, text[:80], error)
        return None, "bad_format"


def judge(family: FamilySpec, state: Any, optimal_length: int, text: object) -> Reading:
    """``family.parse_answer`` then ``family.replay``; never raises on the text."""
    answer, error = read_with(family.parse_answer, text, family.name)
    if error is not None:
        return unread(error)
    return Reading(True, family.replay(state, answer))


class OurEpisode(EpisodeRules):
    """The paper's episode (see the module docstring)."""

    def __init__(self, family: FamilySpec, budget: str, cap: int) -> None:
        self.family = family
        self.budget = budget
        self.max_steps = cap

    def read_step(self, text: str) -> Any:
        return self.family.parse_step(text)

    def read_remaining(self, text: str) -> int | None:
        return prompts.parse_remaining(text)

    def after_count(self, remaining: int, steps: int, state: Any) -> str | None:
        if remaining == 0:
            return "stopped"
        return "cap" if steps >= self.max_steps else None

    def output(self, end: str, steps: Sequence[Any], state: Any) -> str:
        """The steps taken as the answer, or no answer when nothing was committed."""
        fixed_failure = self.budget == "fixed" and end == "unparseable"
        if not steps or end in NO_ANSWER_ENDS or fixed_failure:
            return ""
        return self.family.format_answer(tuple(steps))


def episode(family: FamilySpec, state: Any, optimal_length: int, budget: str, cap: int) -> OurEpisode:
    return OurEpisode(family, budget, cap)


READER = Reader(
    name="ours",
    summary="follows the paper's text: the last tagged answer, read leniently; episodes end at the goal or "
    "when the model says it is done",
    judge=judge,
    episode=episode,
)

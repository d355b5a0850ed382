"""The paper's protocols as episode drivers (SPEC §5), independent of any backend.

An episode holds one instance under one protocol. The driver asks it for the
``conversation()`` to send, hands back the model's ``Completion`` with ``advance()``, and
repeats until ``done``; ``outcome()`` then says what the model answered.

Protocols:
    direct           board + the family's ``direct`` question; one turn.
    text_cot         board + the ``text_cot`` question; one turn.
    oracle_gta       board + oracle aid (grid lines and ``(r,c)`` labels) + ``text_cot``; one turn.
    oracle_vcot      interactive: one step per turn; the environment renders the next board.
    oracle_aug_vcot  interactive: the aid first, then grid-annotated boards.

Interactive turn format (documented to the model in the first message): the reply ends
with exactly ONE step in the family's answer format holding a single step (for path:
one direction of the marker, ``<ANSWER_JSON>["right"]</ANSWER_JSON>``); under the
``fixed`` budget it also states the steps still needed after this one as
``<remaining>K</remaining>``. The episode ends at the goal, at an illegal step, at a
reply that does not hold exactly one readable step, or at the budget:

    optimal  at most ``optimal_length`` steps, and the model is told so (the paper's
             setting, which leaks the optimum);
    fixed    the model says how many steps remain; the episode stops when it says 0,
             or at the cap ``cap_factor * optimal_length + cap_extra`` (2x + 4), which
             the model is not told.

The episode's answer is the sequence of steps taken (an illegal last step included),
turned into the family's answer text with ``episode_answer`` + ``format_answer``, so
every protocol is scored by the same replay scorer. An episode whose first reply holds
no readable step answers the empty string (scored ``no_answer``, not parsed).
"""

from __future__ import annotations

import logging
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from vgau_data.answers import last_tagged
from vgau_data.errors import VgauError
from vgau_data.puzzles.base import AnswerError
from vgau_data.runners.environment import PuzzleEnv
from vgau_data.runners.messages import Conversation, ImagePart, Message, assistant, image_digest, keep_last_images, user

if TYPE_CHECKING:
    from vgau_data.runners.backends.base import Completion
    from vgau_data.runners.instances import Instance

logger = logging.getLogger(__name__)

PROMPT_VERSION = "1"
"""Bump whenever a prompt below changes: it is part of every record key."""

PROTOCOLS: tuple[str, ...] = ("direct", "text_cot", "oracle_gta", "oracle_vcot", "oracle_aug_vcot")
INTERACTIVE: frozenset[str] = frozenset({"oracle_vcot", "oracle_aug_vcot"})
BudgetMode = Literal["optimal", "fixed"]
BUDGET_MODES: tuple[str, ...] = ("optimal", "fixed")

REMAINING_TAG = "remaining"

AID_NOTE = (
    "The second image is the same board with red grid lines and a black (r,c) label at the centre of every "
    "cell, to help you locate cells."
)
AUG_NOTE = "Every board I show you carries the same red grid lines and (r,c) labels."


class ProtocolError(VgauError, ValueError):
    """A protocol configuration that does not make sense (raised at setup, never mid-run)."""


@dataclass(frozen=True, kw_only=True, slots=True)
class ProtocolConfig:
    """A protocol and its options; ``variant`` names it in records and submissions.

    Args:
        name: one of ``PROTOCOLS``.
        budget: ``optimal`` or ``fixed`` (interactive protocols only).
        history: keep only the last ``history`` images of a conversation (None: all).
        cap_factor / cap_extra: the ``fixed`` cap is ``cap_factor * optimal_length + cap_extra``.
    """

    name: str
    budget: BudgetMode = "optimal"
    history: int | None = None
    cap_factor: int = 2
    cap_extra: int = 4

    def __post_init__(self) -> None:
        if self.name not in PROTOCOLS:
            raise ProtocolError(f"unknown protocol {self.name!r}; choose from {', '.join(PROTOCOLS)}")
        if self.budget not in BUDGET_MODES:
            raise ProtocolError(f"budget must be one of {BUDGET_MODES}, got {self.budget!r}")
        if self.budget == "fixed" and not self.interactive:
            raise ProtocolError(f"--budget fixed applies to interactive protocols only, not {self.name!r}")
        if self.history is not None and self.history < 1:
            raise ProtocolError(f"history must keep at least 1 image, got {self.history}")
        if self.cap_factor < 1 or self.cap_extra < 0:
            raise ProtocolError(f"need cap_factor >= 1 and cap_extra >= 0, got {self.cap_factor}, {self.cap_extra}")

    @property
    def interactive(self) -> bool:
        return self.name in INTERACTIVE

    @property
    def variant(self) -> str:
        """``oracle_vcot_fixed``, ``oracle_aug_vcot_last2``...: the name records and submissions use.

        Example:
            >>> ProtocolConfig(name="oracle_vcot", budget="fixed").variant
            'oracle_vcot_fixed'
        """
        name = self.name + ("_fixed" if self.budget == "fixed" else "")
        return name + (f"_last{self.history}" if self.history is not None else "")

    def step_budget(self, optimal_length: int) -> int:
        """Most steps an episode may take."""
        if self.budget == "optimal":
            return optimal_length
        return self.cap_factor * optimal_length + self.cap_extra

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "prompt_version": PROMPT_VERSION}


@dataclass(slots=True)
class Turn:
    """One model turn as recorded: what was sent (image digests), said, parsed and answered."""

    text: str
    images_sent: list[str]
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_s: float = 0.0
    finish_reason: str | None = None
    step: str | None = None
    remaining: int | None = None
    feedback: str | None = None
    parse_error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class Outcome:
    """How an episode ended.

    ``output`` is the text scored (None when a backend error stopped the episode);
    ``end`` is ``answered`` (single turn), ``goal``, ``illegal``, ``unparseable``,
    ``budget``, ``stopped`` (said 0 remaining), ``cap`` or ``backend_error``.
    """

    output: str | None
    end: str
    error: str | None
    turns: list[Turn] = field(default_factory=list)
    steps: int = 0


class Episode:
    """Shared machinery: the message history and the turn log."""

    def __init__(self, instance: Instance, config: ProtocolConfig, run: int) -> None:
        self.instance = instance
        self.config = config
        self.run = run
        self.session_id = f"{instance.id}/{config.variant}/run{run}"
        self.messages: list[Message] = []
        self.turns: list[Turn] = []
        self.done = False
        self._outcome: Outcome | None = None

    def conversation(self) -> Conversation:
        """What to send now (history option applied)."""
        if self.done:
            raise RuntimeError(f"episode {self.session_id} is finished")
        return Conversation(keep_last_images(self.messages, self.config.history), self.session_id)

    def advance(self, completion: Completion) -> None:
        raise NotImplementedError

    def outcome(self) -> Outcome:
        if self._outcome is None:
            raise RuntimeError(f"episode {self.session_id} is not finished")
        return self._outcome

    def _record_turn(self, completion: Completion) -> Turn:
        sent = [image_digest(part.image) for part in self._last_user_images()]
        turn = Turn(
            text=completion.text,
            images_sent=sent,
            prompt_tokens=completion.prompt_tokens,
            completion_tokens=completion.completion_tokens,
            latency_s=round(completion.latency_s, 4),
            finish_reason=completion.finish_reason,
        )
        self.turns.append(turn)
        return turn

    def _last_user_images(self) -> list[ImagePart]:
        for message in reversed(self.messages):
            if message.role == "user":
                return [part for part in message.parts if isinstance(part, ImagePart)]
        return []

    def _finish(self, output: str | None, end: str, error: str | None = None, steps: int = 0) -> None:
        self.done = True
        self._outcome = Outcome(output, end, error, self.turns, steps)


class SingleTurnEpisode(Episode):
    """``direct``, ``text_cot`` and ``oracle_gta``: one question, one answer."""

    def __init__(self, instance: Instance, config: ProtocolConfig, run: int) -> None:
        super().__init__(instance, config, run)
        family = instance.family
        state = instance.initial_state()
        if config.name == "direct":
            self.messages = [user(instance.image, family.question(state, "direct"))]
        elif config.name == "text_cot":
            self.messages = [user(instance.image, family.question(state, "text_cot"))]
        else:  # oracle_gta
            self.messages = [
                user(instance.image, instance.aid(), AID_NOTE + "\n\n" + family.question(state, "text_cot"))
            ]

    def advance(self, completion: Completion) -> None:
        self._record_turn(completion)
        if not completion.ok:
            self._finish(None, "backend_error", completion.error)
            return
        self.messages.append(assistant(completion.text))
        self._finish(completion.text, "answered")


class InteractiveEpisode(Episode):
    """``oracle_vcot`` and ``oracle_aug_vcot``: one step per turn against a ``PuzzleEnv``."""

    def __init__(self, instance: Instance, config: ProtocolConfig, run: int) -> None:
        super().__init__(instance, config, run)
        self.family = instance.family
        augmented = config.name == "oracle_aug_vcot"
        self.env = PuzzleEnv(self.family, instance.initial_state(), annotate=augmented)
        self.env.reset()
        self.budget = config.step_budget(instance.optimal_length)
        first: list[Any] = [instance.image]
        if augmented:
            first.append(instance.aid())
        first.append(self._instructions(augmented))
        self.messages = [user(*first)]

    def _instructions(self, augmented: bool) -> str:
        family = self.family
        what, example = family.step_description, family.step_example
        parts = []
        if augmented:
            parts.append(AID_NOTE + " " + AUG_NOTE)
        parts.append(family.question(self.env.initial_state, "text_cot"))
        parts.append(
            "This is an interactive session: do not give the whole solution at once. Each turn, you may think "
            f"first, then end your reply with exactly ONE step: {what}. Write it in the answer format holding a "
            f"single step, for example:\n{example}\n"
            "After each step I apply it and show you the new board. The session ends when the goal is reached, "
            "when a step is illegal or cannot be read, or when the step budget is used up."
        )
        if self.config.budget == "optimal":
            parts.append(f"You have at most {self.budget} steps.")
        else:
            parts.append(
                "After your step, also state how many more steps you expect to need after this one, as "
                f"<{REMAINING_TAG}>K</{REMAINING_TAG}>. Write <{REMAINING_TAG}>0</{REMAINING_TAG}> together with "
                "the step you expect to reach the goal: the session stops when you say 0."
            )
        return "\n\n".join(parts)

    def advance(self, completion: Completion) -> None:
        turn = self._record_turn(completion)
        if not completion.ok:
            self._finish(None, "backend_error", completion.error, len(self.env.steps))
            return
        self.messages.append(assistant(completion.text))
        try:
            steps = self.family.parse_steps(completion.text)
        except AnswerError as error:
            turn.parse_error = error.code
            self._finish_scored("unparseable")
            return
        except (ValueError, TypeError, OverflowError, RecursionError) as error:
            # A parser bug must not stop a whole run; score_answer treats it the same way.
            logger.warning("%s parse_steps failed on %r: %r", self.family.name, completion.text[:80], error)
            turn.parse_error = "bad_format"
            self._finish_scored("unparseable")
            return
        if len(steps) != 1:
            turn.parse_error = "bad_format"
            turn.feedback = f"expected exactly one step, got {len(steps)}"
            self._finish_scored("unparseable")
            return
        turn.step = self.family.format_steps(steps)
        if self.config.budget == "fixed":
            turn.remaining = parse_remaining(completion.text)
        result = self.env.step(steps[0])
        turn.feedback = result.feedback
        if result.done:
            self._finish_scored("goal" if result.goal else "illegal")
            return
        taken = len(self.env.steps)
        if self.config.budget == "fixed" and turn.remaining == 0:
            self._finish_scored("stopped")
            return
        if taken >= self.budget:
            self._finish_scored("budget" if self.config.budget == "optimal" else "cap")
            return
        if self.config.budget == "optimal":
            ask = f"Give the next step. You have {self.budget - taken} steps left."
        else:
            ask = f"Give the next step, then the steps still needed after it as <{REMAINING_TAG}>K</{REMAINING_TAG}>."
        self.messages.append(user(result.feedback, result.image, ask))

    def _finish_scored(self, end: str) -> None:
        """Finish with the steps taken as the answer; no readable step at all is no answer."""
        if not self.env.steps:
            self._finish("", end, None, 0)
            return
        answer = self.env.episode_answer()
        self._finish(self.family.format_answer(answer), end, None, len(self.env.steps))


def parse_remaining(text: str) -> int | None:
    """The last ``<remaining>K</remaining>`` count in ``text``, or None.

    Example:
        >>> parse_remaining("step... <remaining> 3 </remaining>")
        3
        >>> parse_remaining("no count") is None
        True
    """
    payload = last_tagged(text, REMAINING_TAG)
    if payload is None:
        return None
    payload = payload.strip()
    if not payload.isdigit() or len(payload) > 6:
        return None
    return int(payload)


def make_episode(instance: Instance, config: ProtocolConfig, run: int) -> Episode:
    """The episode driver for ``config`` on ``instance``."""
    if config.interactive:
        return InteractiveEpisode(instance, config, run)
    return SingleTurnEpisode(instance, config, run)

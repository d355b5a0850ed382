"""Interactive protocols: one step per round against a ``PuzzleEnv`` (A.2.6, A.2.7, section 4.4).

Round ``i``: the model is asked for step ``i`` in its family's per-step format and gives
exactly one (the last one in its reply counts); the environment applies it; the model
is shown the board after it. The model is never told how many steps it may take.

Budgets:
    optimal  at most ``optimal_length`` rounds (the paper's setting). The episode ends at
             the goal, at an illegal or unreadable step, or after the last round.
    fixed    no optimum (section 4.4): after each round a separate question, which is not
             kept in the conversation, asks how many steps remain (``<answer>N</answer>``).
             The episode ends when the model says 0, and is solved only if the goal is
             reached at that moment; an illegal step ends it too. An unreadable step or
             count, or reaching the cap (``ProtocolConfig.step_cap``, 2x the optimum) before
             saying 0, ends it as a failure with no answer (``end`` names which).

Scoring: the episode's answer is its steps, written with the family's ``format_answer``
(an illegal last step included, so replay names it); the same replay scorer as every
other protocol judges it. Path's steps are marker moves with declared labels, so an
episode that does not reach the destination is never solved, whoever scores the text.
A first reply without a readable step answers nothing (scored ``no_answer``).

The reader (``ProtocolConfig.reader``, ``vgau_data.readers``) reads every reply and says
where the episode ends and what it answers: the above is ``ours``. ``authors`` plays the
authors' step runners instead (``puzzles/authors_reading.AuthorsEpisode``): both budgets
stop at the optimum, a step that puts the goal out of reach within it ends the episode
(``off_optimum``), ``fixed`` succeeds only on a 0 said at exactly that step
(``stopped_early`` / ``stopped_late`` otherwise), and a failed episode answers their
empty answer.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, ClassVar

from vgau_data.puzzles import prompts
from vgau_data.puzzles.base import AnswerError
from vgau_data.readers import get_reader
from vgau_data.runners.environment import PuzzleEnv
from vgau_data.runners.messages import Asks, Message, assistant, user
from vgau_data.runners.protocols.base import Episode, ProtocolConfig, Turn, register

if TYPE_CHECKING:
    from vgau_data.runners.instances import Instance

logger = logging.getLogger(__name__)


class InteractiveEpisode(Episode):
    """A step-by-step episode; ``images`` says who supplies the board after each step."""

    interactive = True
    images: ClassVar[prompts.Images] = "shown"

    def __init__(self, instance: Instance, config: ProtocolConfig, run: int) -> None:
        super().__init__(instance, config, run)
        state = instance.initial_state()
        self.env = PuzzleEnv(
            self.family, state, annotate=self.images == "shown_annotated", observe=self.images != "drawn"
        )
        self.env.reset()
        self.rules = get_reader(config.reader).episode(
            self.family, state, instance.optimal_length, config.budget, config.step_cap(instance.optimal_length)
        )
        """How replies are read and where the episode ends (the config's reader)."""
        first: list[Any] = [instance.image]
        if self.images == "shown_annotated":
            first.append(instance.aid())
        intro = prompts.vcot_intro(self.family, state, images=self.images)
        first.append(f"{intro}\n\n{prompts.step_request(self.family, 1)}")
        self._ask: Asks = "step"
        self._request_parts: list[Any] = first
        """The parts of the next user message; a count question is never kept in ``messages``."""

    @property
    def steps_taken(self) -> int:
        return len(self.env.steps)

    def _pending(self) -> tuple[list[Message], Asks]:
        return [*self.messages, user(*self._request_parts)], self._ask

    def _reply(self, turn: Turn, text: str) -> None:
        if self._ask == "remaining":
            self._count_reply(turn, text)
        else:
            self.messages += [user(*self._request_parts), assistant(text)]
            self._step_reply(turn, text)

    def _step_reply(self, turn: Turn, text: str) -> None:
        try:
            step = self.rules.read_step(text)
        except AnswerError as error:
            turn.parse_error = error.code
            self._end("unparseable")
            return
        except (ValueError, TypeError, OverflowError, RecursionError) as error:
            # A parser bug must not stop a whole run; score_answer treats it the same way.
            logger.warning("%s parse_step failed on %r: %r", self.family.name, text[:80], error)
            turn.parse_error = "bad_format"
            self._end("unparseable")
            return
        turn.step = self.family.format_step(step)
        result = self.env.step(self.rules.env_step(step))
        turn.feedback = result.feedback
        if result.illegal is not None:
            self._end("illegal")
        elif (end := self.rules.after_step(self.env.state, self.steps_taken)) is not None:
            self._end(end)
        elif self.config.budget == "fixed":
            self._show(result.image, prompts.REMAINING_QUESTION, "remaining")
        elif result.goal and self.rules.ends_at_goal:
            self._end("goal")
        elif self.steps_taken >= self.rules.max_steps:
            self._end("budget")
        else:
            self._show(result.image, prompts.step_request(self.family, self.steps_taken + 1), "step")

    def _count_reply(self, turn: Turn, text: str) -> None:
        turn.remaining = self.rules.read_remaining(text)
        if turn.remaining is None:
            turn.parse_error = "bad_format"
            self._end("unparseable_count")
        elif (end := self.rules.after_count(turn.remaining, self.steps_taken, self.env.state)) is not None:
            self._end(end)
        else:
            self._request_parts[-1] = prompts.step_request(self.family, self.steps_taken + 1)
            self._ask = "step"

    def _show(self, board: Any, question: str, asks: Asks) -> None:
        """The next request: the board after the last step (``board``), then ``question``, asking ``asks``.

        The one place a round's board enters the conversation: a protocol in which the
        model draws the board overrides it to ask for the drawing first.
        """
        self._request_parts = [prompts.board_after(self.steps_taken), board, question]
        self._ask = asks

    def _end(self, end: str) -> None:
        """Finish with the answer the reader gives for this ending."""
        self._finish(self.rules.output(end, tuple(self.env.steps), self.env.state), end, None, self.steps_taken)


@register
class OracleVCoT(InteractiveEpisode):
    name = "oracle_vcot"
    images = "shown"


@register
class OracleAugVCoT(InteractiveEpisode):
    name = "oracle_aug_vcot"
    images = "shown_annotated"

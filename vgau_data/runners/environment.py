"""A gymnasium-style environment over one puzzle instance, for the interactive protocols.

``reset()`` returns the board image; ``step(step)`` applies one parsed step with the
family's own rules and returns the next board image, a feedback sentence and whether
the episode is over (goal reached or illegal step). An illegal step is a value (its
SPEC §3 code), never clamped into a no-op and never an exception. Step budgets and
parsing live in the protocols, not here.

Example:
    >>> from vgau_data.registry import get_family
    >>> from vgau_data.seeding import rng_for
    >>> maze = get_family("maze")
    >>> state = maze.generate("easy", rng_for(0))
    >>> env = PuzzleEnv(maze, state)
    >>> env.reset().size == maze.geometry.size
    True
    >>> [env.step(step).done for step in maze.solve(state).answer][-1]
    True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from vgau_data.puzzles.base import Illegal

if TYPE_CHECKING:
    from PIL import Image

    from vgau_data.puzzles.base import FamilySpec


@dataclass(frozen=True, slots=True)
class StepResult:
    """What one step did.

    ``image`` is the board after the step (None after an illegal step: the board did not
    change). ``illegal`` is the SPEC §3 reason code of a rejected step.
    """

    image: Image.Image | None
    feedback: str
    done: bool
    goal: bool
    illegal: str | None = None


class PuzzleEnv:
    """One episode on one instance.

    Args:
        family: the instance's family.
        initial_state: the parsed initial state.
        annotate: draw the oracle grid annotation (red grid lines and ``(r,c)`` labels) on
            every returned image (Oracle-Aug-VCoT).
    """

    def __init__(self, family: FamilySpec, initial_state: Any, *, annotate: bool = False) -> None:
        self.family = family
        self.initial_state = initial_state
        self.annotate = annotate
        self.state = initial_state
        self.steps: list[Any] = []
        self.done = False

    def reset(self) -> Image.Image:
        self.state = self.initial_state
        self.steps = []
        self.done = False
        return self.render()

    def render(self) -> Image.Image:
        image = self.family.render(self.state)
        if self.annotate:
            from vgau_data.oracle_aids import annotate

            image = annotate(self.family, image)
        return image

    def step(self, step: Any) -> StepResult:
        """Apply ``step`` (one element of what ``family.parse_steps`` returns)."""
        if self.done:
            raise RuntimeError("step() called on a finished episode; call reset() first")
        number = len(self.steps) + 1
        self.steps.append(step)
        shown = self.family.format_steps([step])
        nxt = self.family.apply_step(self.state, step)
        if isinstance(nxt, Illegal):
            self.done = True
            return StepResult(
                None, f"Step {number} {shown} is illegal ({nxt.code}); the episode ends.", True, False, nxt.code
            )
        self.state = nxt
        if self.family.is_goal(nxt):
            self.done = True
            return StepResult(self.render(), f"Step {number} {shown} reached the goal.", True, True)
        return StepResult(self.render(), f"Step {number} {shown} was applied. This is the board now.", False, False)

    def episode_answer(self) -> tuple[Any, ...]:
        """The answer the steps so far amount to (what ``family.replay`` judges).

        An illegal final step is included, so replay reports its code at its index.
        """
        return tuple(self.family.episode_answer(self.initial_state, self.steps))

"""A gymnasium-style environment over one puzzle instance, for the interactive protocols.

``reset()`` returns the board image; ``step(step)`` applies one parsed step with the
family's own rules and returns the next board image, whether the goal is reached and,
for a step the rules reject, its reason code (docs/contract/reason-codes.md). An illegal step is a value, never
clamped into a no-op and never an exception, and it ends the episode. Reaching the goal
does not: the protocol decides (the ``fixed`` budget plays on until the model says it is
done). Budgets and parsing live in the protocols, not here.

Example:
    >>> from vgau_data.registry import get_family
    >>> from vgau_data.seeding import rng_for
    >>> maze = get_family("maze")
    >>> state = maze.generate("easy", rng_for(0))
    >>> env = PuzzleEnv(maze, state)
    >>> env.reset().size == maze.geometry.size
    True
    >>> [env.step(step).goal for step in maze.oracle_steps(state)][-1]
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
    change, or when the environment does not ``observe``); ``illegal`` is the reason code of a rejected step; ``feedback`` says it in
    words, for records.
    """

    image: Image.Image | None
    feedback: str
    goal: bool
    illegal: str | None = None


class PuzzleEnv:
    """One episode on one instance.

    Args:
        family: the instance's family.
        initial_state: the parsed initial state.
        annotate: draw the oracle grid annotation (red grid lines and ``(r,c)`` labels) on
            every returned image (Oracle-Aug-VCoT).
        observe: render the board after each step; False when nobody looks at it (Self-VCoT,
            where the model draws the board itself), and ``StepResult.image`` is None.
    """

    def __init__(self, family: FamilySpec, initial_state: Any, *, annotate: bool = False, observe: bool = True) -> None:
        self.family = family
        self.initial_state = initial_state
        self.annotate = annotate
        self.observe = observe
        self.state = initial_state
        self.steps: list[Any] = []
        self.over = False
        """True after an illegal step: the episode cannot go on."""

    def reset(self) -> Image.Image:
        self.state = self.initial_state
        self.steps = []
        self.over = False
        return self.render()

    def render(self) -> Image.Image:
        image = self.family.render(self.state)
        if self.annotate:
            from vgau_data.oracle_aids import annotate

            image = annotate(self.family, image, self.state)
        return image

    @property
    def goal(self) -> bool:
        return bool(self.family.is_goal(self.state))

    def step(self, step: Any) -> StepResult:
        """Apply ``step`` (what ``family.parse_step`` returns)."""
        if self.over:
            raise RuntimeError("step() called after an illegal step; call reset() first")
        number = len(self.steps) + 1
        self.steps.append(step)
        shown = self.family.format_step(step)
        nxt = self.family.apply_step(self.state, step)
        if isinstance(nxt, Illegal):
            self.over = True
            return StepResult(None, f"step {number} {shown} is illegal ({nxt.code})", False, nxt.code)
        self.state = nxt
        image = self.render() if self.observe else None
        if self.goal:
            return StepResult(image, f"step {number} {shown} reached the goal", True)
        return StepResult(image, f"step {number} {shown} was applied", False)

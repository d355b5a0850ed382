"""One family's interactive protocol as a ``gymnasium.Env``, on the package's ``PuzzleEnv``.

Why these spaces: the observation is what the paper's Oracle-VCoT shows the model, the
rendered board (``Box`` uint8, height x width x 3; the board size is fixed per family),
and the action is what the model writes, one step in the family's per-turn format
(``Text``: ``"Next, move one step up."``, ``<STEP_JSON>{"car":"R","direction":"right"}</STEP_JSON>``),
read by the family's own tolerant parser. Only maze and sokoban have a fixed move
vocabulary; one text action for all six keeps reading the step part of what is measured,
as in the benchmark, and lets one agent play every family. An unreadable or illegal step
ends the episode with its reason code in ``info["reason"]`` (docs/contract/reason-codes.md).
"""

from __future__ import annotations

import string
from typing import Any, ClassVar

import gymnasium
import numpy as np
from gymnasium import spaces

from vgau_data.puzzles.prompts import vcot_intro
from vgau_data.registry import get_family
from vgau_data.runners.environment import PuzzleEnv
from vgau_data.types import AnswerError

PROTOCOLS: tuple[str, ...] = ("oracle_vcot", "oracle_aug_vcot")
"""The interactive protocols whose boards the environment shows (Aug-VCoT: with the oracle aid)."""
BUDGETS: tuple[str, ...] = ("optimal", "none")
"""``optimal``: truncated after ``optimal_length`` steps (the paper's budget); ``none``: never truncated here."""
MAX_ACTION_CHARS = 1024
"""The longest step text the action space holds (a step is a sentence or a short JSON object)."""


def env_id(family: str) -> str:
    """The gymnasium id of ``family``.

    Example:
        >>> env_id("onet")
        'vgau/Onet-v0'
    """
    return f"vgau/{family.capitalize()}-v0"


class PuzzleGymEnv(gymnasium.Env):
    """Oracle-VCoT (or Oracle-Aug-VCoT) on freshly generated instances of one family.

    Args:
        family: the family name (``maze`` ... ``klotski``).
        difficulty: the bucket instances are drawn from (``easy``, ``medium``, ``hard``);
            ``reset(options={"difficulty": ...})`` changes it for that episode.
        protocol: ``oracle_vcot`` (the plain board) or ``oracle_aug_vcot`` (the board with
            the oracle grid lines and ``(r,c)`` labels).
        budget: ``optimal`` truncates after ``optimal_length`` steps, ``none`` never does.
        render_mode: ``rgb_array`` or None.

    Reward is 1.0 on the step that reaches the goal, else 0.0. ``info`` carries the
    family, difficulty, ``optimal_length``, the step ``feedback``, the ``reason`` code of a
    step that ended the episode (None otherwise) and, on reset, the protocol's
    ``instructions`` and the instance's ``state`` (the dataset's canonical JSON column, for the scorer). ``reset(seed=s)`` draws the same instance for the same ``s``.
    """

    metadata: ClassVar[dict[str, Any]] = {"render_modes": ["rgb_array"], "render_fps": 2}

    def __init__(
        self,
        family: str,
        *,
        difficulty: str = "easy",
        protocol: str = "oracle_vcot",
        budget: str = "optimal",
        render_mode: str | None = None,
    ) -> None:
        self.family = get_family(family)
        self.difficulty = self._checked_difficulty(difficulty)
        if protocol not in PROTOCOLS:
            raise ValueError(f"protocol must be one of {', '.join(PROTOCOLS)}, got {protocol!r}")
        if budget not in BUDGETS:
            raise ValueError(f"budget must be one of {', '.join(BUDGETS)}, got {budget!r}")
        if render_mode not in (None, *self.metadata["render_modes"]):
            raise ValueError(f"render_mode must be 'rgb_array' or None, got {render_mode!r}")
        self.protocol = protocol
        self.budget = budget
        self.render_mode = render_mode
        width, height = self.family.geometry.size
        self.observation_space = spaces.Box(0, 255, shape=(height, width, 3), dtype=np.uint8)
        self.action_space = spaces.Text(MAX_ACTION_CHARS, min_length=1, charset=string.printable)
        self._env: PuzzleEnv | None = None
        self._optimal_length = 0
        self._episode_difficulty = self.difficulty

    def _checked_difficulty(self, difficulty: object) -> str:
        if difficulty not in self.family.buckets:
            raise ValueError(f"difficulty must be one of {', '.join(self.family.buckets)}, got {difficulty!r}")
        return str(difficulty)

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        super().reset(seed=seed)
        options = options or {}
        self._episode_difficulty = self._checked_difficulty(options.get("difficulty", self.difficulty))
        state = self.family.generate(self._episode_difficulty, self.np_random)
        self._optimal_length = len(self.family.oracle_steps(state))
        annotated = self.protocol == "oracle_aug_vcot"
        self._env = PuzzleEnv(self.family, state, annotate=annotated)
        images = "shown_annotated" if annotated else "shown"
        info = self._info(feedback="", reason=None)
        info["instructions"] = vcot_intro(self.family, state, images=images)
        info["state"] = self.family.to_json(state)
        return _pixels(self._env.reset()), info

    def step(self, action: str) -> tuple[np.ndarray, float, bool, bool, dict[str, Any]]:
        env = self._require_env()
        if env.over or (env.steps and env.goal):
            raise RuntimeError("step() after the episode ended; call reset() first")
        try:
            step = self.family.parse_step(str(action)[:MAX_ACTION_CHARS])
        except AnswerError as error:
            return (
                self._observe(),
                0.0,
                True,
                False,
                self._info(f"step {len(env.steps) + 1} could not be read", error.code),
            )
        result = env.step(step)
        if result.illegal is not None:
            return self._observe(), 0.0, True, False, self._info(result.feedback, result.illegal)
        truncated = not result.goal and self.budget == "optimal" and len(env.steps) >= self._optimal_length
        image = _pixels(result.image) if result.image is not None else self._observe()
        return image, float(result.goal), result.goal, truncated, self._info(result.feedback, None)

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array":
            return None
        return self._observe()

    def _observe(self) -> np.ndarray:
        return _pixels(self._require_env().render())

    def _info(self, feedback: str, reason: str | None) -> dict[str, Any]:
        env = self._require_env()
        return {
            "family": self.family.name,
            "difficulty": self._episode_difficulty,
            "protocol": self.protocol,
            "optimal_length": self._optimal_length,
            "steps": len(env.steps),
            "feedback": feedback,
            "reason": reason,
        }

    def _require_env(self) -> PuzzleEnv:
        if self._env is None:
            raise RuntimeError("call reset() before step() or render()")
        return self._env


def _pixels(image: Any) -> np.ndarray:
    return np.asarray(image.convert("RGB"), dtype=np.uint8)

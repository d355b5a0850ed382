"""verl adapters: ``compute_score`` (and a batch variant), a multi-turn step tool and an interaction.

verl calls a custom reward function with the row's ``data_source``, the decoded response
(``solution_str``), ``reward_model.ground_truth`` and ``extra_info`` (read from its naive
reward manager, identical in verl 0.8.0 and 0.9.1). Our rows (the training-data export)
carry ``data_source = "vgau/<family>"`` and the state JSON as ground truth, so
``compute_score`` needs nothing else; ``extra_info["optimal_length"]`` spares a solve.
It returns a dict of numbers: ``score`` (the ``optimal`` reward unless the config's
``reward_kwargs`` choose another ``kind``) and the reward kinds beside it, which verl
logs; ``progress`` only when the kind is ``progress`` (it is the one kind that searches,
so an ``optimal`` run never pays for it). A ``data_source`` that is not ours raises, naming ours.

Config (both keys are read by verl 0.7.1 to 0.9.1; the top-level one is the legacy layout
that verl migrates). verl's ``load_extern_object`` imports a ``pkg://`` path as a module;
a file path it executes under a made-up module name that is not in ``sys.modules``, which
this file survives too (it defines no dataclass, nothing that looks itself up there)::

    reward.custom_reward_function.path=pkg://vgau_data.rewards.verl
    reward.custom_reward_function.name=compute_score
    +reward.custom_reward_function.reward_kwargs.kind=progress     # optional

Multi-turn rollouts: verl 0.8 and 0.9 dropped ``verl.interactions``; their ``ToolAgentLoop``
calls tools, so ``PuzzleStepTool`` is a ``BaseTool``-shaped tool that plays the
interactive protocols (the board after each step comes back as the tool's image), and
``compute_score`` scores the steps it recorded. ``PuzzleInteraction`` is the same episode
for verl 0.7's interaction system (text feedback only: its interactions carry no images).
``multi_turn_extra_info`` adds the keys both read from a row's ``extra_info``. With the
tool, ``compute_score`` scores the steps the tool recorded; with a verl 0.7 interaction
(whose steps never reach the reward worker), ``score`` is the interaction's last turn
score, and the kinds beside it are those of the response text.

Rewards for drawn images (verl-omni's ``VisualRewardManager``) are ``compute_image_score``:
``extra_info["purpose"]`` is ``next_state`` (with ``extra_info["step"]``), ``drawn_step``
(a pure image policy: no step stated, the legal step drawn is found) or ``aid``. It imports
Pillow when first called; the text rewards never do.

A row of a training export drawn in a render style carries it as ``extra_info["render_style"]``
(docs/render-styles.md): ``compute_image_score`` reads the drawing in that style, and
``multi_turn_extra_info`` passes it on, so the step tool draws every later board (and the
Aug-VCoT annotation) in the look of the row's first board.
"""

from __future__ import annotations

import functools
import uuid
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Any

from vgau_data.registry import FAMILIES
from vgau_data.render_styles import STYLE_COLUMN, parse_render_style
from vgau_data.rewards import (
    DATA_SOURCE_PREFIX,
    REWARD_KINDS,
    RewardError,
    RewardKind,
    Score,
    data_source,
    family_of,
    get_kind,
    read_step,
    score,
    score_steps,
)

STEPS_FIELD = "vgau_steps"
"""The ``extra_info`` key (verl's tool extra fields) holding the steps a multi-turn episode played."""
TOOL_NAME = "vgau_step"
"""The name ``PuzzleStepTool`` is called by (its OpenAI schema), and the ``tools_kwargs`` key of a row."""
INTERACTION_NAME = "vgau_puzzle"
"""The ``interaction_kwargs.name`` of a row played by ``PuzzleInteraction``."""
MAX_OPEN_EPISODES = 65_536
"""Episodes an interaction keeps (verl 0.7 never calls ``finalize_interaction``); the oldest go first."""
MULTI_TURN_PROTOCOLS: tuple[str, ...] = ("oracle_vcot", "oracle_aug_vcot")


def _family_name(source: object) -> str:
    """The family of a verl ``data_source``; refuses, naming ours, any that is not ``vgau/<family>``."""
    if isinstance(source, str):
        return _known_family(source)
    return _known_family("")


@functools.lru_cache(maxsize=256)
def _known_family(source: str) -> str:
    """``_family_name`` of a string (a run has a few data sources: each is read once)."""
    key = source.strip().lower()
    if not key.startswith(DATA_SOURCE_PREFIX) or key.removeprefix(DATA_SOURCE_PREFIX) not in FAMILIES:
        ours = ", ".join(data_source(name) for name in FAMILIES)
        raise RewardError(f"Reward function is not implemented for data_source={source!r:.80}: "
                          f"vgau_data.rewards.verl scores only {ours}")  # fmt: skip
    return key.removeprefix(DATA_SOURCE_PREFIX)


def _extra(extra_info: object) -> Mapping[str, Any]:
    return extra_info if isinstance(extra_info, Mapping) else {}


def score_record(
    data_source: str, solution_str: object, ground_truth: str, extra_info: object = None, *, progress: bool = True
) -> Score:
    """The ``Score`` of one verl sample: its recorded episode steps if it has some, else its response text."""
    family = _family_name(data_source)
    extra = _extra(extra_info)
    optimum = extra.get("optimal_length")
    if optimum is not None and (isinstance(optimum, bool) or not isinstance(optimum, int) or optimum < 0):
        raise RewardError(f"{_row_name(extra)}: extra_info.optimal_length must be an int >= 0, got {optimum!r:.40}")
    if not isinstance(ground_truth, str):
        raise RewardError(f"{_row_name(extra)}: reward_model.ground_truth must be the state JSON string, "
                          f"got {type(ground_truth).__name__}")  # fmt: skip
    steps = extra.get(STEPS_FIELD)
    if isinstance(steps, Sequence) and not isinstance(steps, str) and len(steps) > 0:
        parsed = _parse_steps(family, steps)
        return score_steps(parsed, ground_truth, family=family, optimal_length=optimum, progress=progress)
    return score(solution_str, ground_truth, family=family, optimal_length=optimum, progress=progress)


def _parse_steps(family: str, steps: Sequence[Any]) -> tuple[Any, ...]:
    """Recorded step texts back into steps (an unreadable one ended the episode there)."""
    spec = family_of(family)
    parsed = []
    for text in steps:
        step, _ = read_step(spec, text)
        if step is None:
            break
        parsed.append(step)
    return tuple(parsed)


def compute_score(
    data_source: str,
    solution_str: object,
    ground_truth: str,
    extra_info: Mapping[str, Any] | None = None,
    kind: str = "optimal",
    **kwargs: Any,
) -> dict[str, float]:
    """verl's custom reward function: ``score`` (the ``kind`` reward) and the reward kinds, as floats.

    ``progress`` is computed, and returned, only when ``kind`` is ``progress``: the other
    kinds never search, so a wrong answer costs its replay alone.

    Example:
        >>> from vgau_data.registry import get_family
        >>> from vgau_data.seeding import rng_for
        >>> maze = get_family("maze")
        >>> state = maze.generate("easy", rng_for(0))
        >>> result = compute_score("vgau/maze", maze.format_answer(maze.solve(state).answer), maze.to_json(state))
        >>> result["score"], result["feasible"]
        (1.0, 1.0)
    """
    chosen, reported = _reported_kinds(kind if isinstance(kind, str) else get_kind(kind).name)
    record = score_record(data_source, solution_str, ground_truth, extra_info, progress=chosen.needs_progress)
    result = {"score": chosen(record)}
    for name, reward in reported:
        result[name] = reward(record)
    extra = _extra(extra_info)
    turn_scores = extra.get("turn_scores")
    ours = _extra(extra.get("interaction_kwargs")).get("name") == INTERACTION_NAME
    if ours and STEPS_FIELD not in extra and isinstance(turn_scores, Sequence) and len(turn_scores) > 0:
        result["score"] = float(turn_scores[-1])  # verl 0.7: the interaction scored the episode's steps
    return result


@functools.lru_cache(maxsize=64)
def _reported_kinds(kind: str) -> tuple[RewardKind, tuple[tuple[str, RewardKind], ...]]:
    """The kind ``kind`` names and the kinds ``compute_score`` reports beside it (``progress`` only when it is asked)."""
    chosen = get_kind(kind)
    return chosen, tuple((name, reward) for name, reward in REWARD_KINDS.items()
                         if chosen.needs_progress or not reward.needs_progress)  # fmt: skip


def compute_score_batch(
    data_sources: Sequence[str],
    solution_strs: Sequence[object],
    ground_truths: Sequence[str],
    extra_infos: Sequence[Mapping[str, Any] | None] | None = None,
    kind: str = "optimal",
    **kwargs: Any,
) -> list[dict[str, float]]:
    """The batch form verl's ``batch`` reward manager calls (``compute_score(data_sources=..., ...)``)."""
    extras = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    if not len(data_sources) == len(solution_strs) == len(ground_truths) == len(extras):
        raise RewardError(f"{len(data_sources)} data_sources, {len(solution_strs)} solution_strs, "
                          f"{len(ground_truths)} ground_truths and {len(extras)} extra_infos: one each per sample")  # fmt: skip
    return [
        compute_score(source, text, truth, extra, kind=kind)
        for source, text, truth, extra in zip(data_sources, solution_strs, ground_truths, extras)
    ]


def compute_image_score(
    data_source: str,
    solution_image: Any,
    ground_truth: str,
    extra_info: Mapping[str, Any] | None = None,
    kind: str | None = None,
    **kwargs: Any,
) -> dict[str, float]:
    """verl-omni's ``VisualRewardManager`` reward: a drawn image decoded and checked against the state.

    ``extra_info["purpose"]`` says what the image is: ``"next_state"`` (a Self-VCoT step
    image: ``ground_truth`` is the state before the step and ``extra_info["step"]`` the step
    the policy took, in the per-step format), ``"drawn_step"`` (a pure image policy's next
    board, no step stated: the legal step it shows is found) or ``"aid"`` (a Self-GtA aid
    of the state).
    ``solution_image`` is what the manager passes: a uint8 ``(C, H, W)`` tensor (or an
    array, PIL image or PNG bytes). ``extra_info["render_style"]`` (a styled row's) is the look
    the drawing is read in. See ``vgau_data.rewards.images`` for the kinds.
    """
    from vgau_data.rewards.images import image_rewards

    family = _family_name(data_source)
    extra = _extra(extra_info)
    style = parse_render_style(extra.get(STYLE_COLUMN), _row_name(extra))
    return image_rewards(solution_image, ground_truth, family=family, purpose=str(extra.get("purpose", "next_state")),
                         step=extra.get("step"), kind=kind, optimal_length=extra.get("optimal_length"),
                         render_style=style)  # fmt: skip


def _row_name(extra: Mapping[str, Any]) -> str:
    """``row 'maze-train-...'``, from ``extra_info["id"]`` (an export's), for an error to name."""
    return f"row {extra.get('id')!r:.60}" if extra.get("id") is not None else "the row's extra_info"


# ---------------------------------------------------------------------------- multi-turn rows


def multi_turn_extra_info(
    data_source: str, ground_truth: str, extra_info: Mapping[str, Any] | None = None, protocol: str = "oracle_vcot"
) -> dict[str, Any]:
    """A row's ``extra_info`` with what ``PuzzleStepTool`` and ``PuzzleInteraction`` read from it.

    Adds ``tools_kwargs[TOOL_NAME].create_kwargs`` and ``interaction_kwargs`` (name
    ``INTERACTION_NAME``), both holding the family, the state JSON, the optimum (when
    ``extra_info`` has it) and the protocol, and the row's ``render_style`` when it has one.
    """
    if protocol not in MULTI_TURN_PROTOCOLS:
        raise RewardError(f"protocol must be one of {', '.join(MULTI_TURN_PROTOCOLS)}, got {protocol!r}")
    extra = dict(_extra(extra_info))
    row = {"family": _family_name(data_source), "state": ground_truth, "protocol": protocol,
           "optimal_length": extra.get("optimal_length")}  # fmt: skip
    style = parse_render_style(extra.get(STYLE_COLUMN), _row_name(extra))
    if style is not None:
        row[STYLE_COLUMN] = style.to_json()
    extra["tools_kwargs"] = {**extra.get("tools_kwargs", {}), TOOL_NAME: {"create_kwargs": row}}
    extra["interaction_kwargs"] = {"name": INTERACTION_NAME, **row}
    return extra


MAX_STEP_CHARS = 4_000
"""Longest step text recorded (an unreadable step is kept, cut to this, as the end of its episode)."""


class _Game:
    """One episode replayed from its recorded step texts: the board now and whether it may go on.

    As in the interactive protocols, the episode ends at the goal, at an illegal or
    unreadable step, or after ``optimal_length`` steps. Boards are drawn in the row's
    ``render_style`` when it has one.
    """

    def __init__(self, row: Mapping[str, Any], steps: Sequence[str]) -> None:
        from vgau_data.runners.environment import PuzzleEnv

        self.family = family_of(row.get("family"))
        style = parse_render_style(row.get(STYLE_COLUMN), "the row's create_kwargs")
        if style is not None:
            self.family = self.family.styled(style)
        state_json = row.get("state")
        if not isinstance(state_json, str):
            raise RewardError("the row's create_kwargs / interaction_kwargs lack the state JSON ('state')")
        protocol = str(row.get("protocol") or "oracle_vcot")
        initial = self.family.from_json(state_json)
        optimum = row.get("optimal_length")
        if optimum is None:
            solution = self.family.solve(initial)
            optimum = 0 if solution is None else solution.optimal_length
        self.budget = int(optimum)
        self.env = PuzzleEnv(self.family, initial, annotate=protocol == "oracle_aug_vcot", observe=False)
        self.ended = self.budget == 0
        for text in steps:
            if self.ended:
                break
            self._apply(text)

    def _apply(self, text: object) -> str:
        step, error = read_step(self.family, text)
        if step is None:
            self.ended = True
            return f"step {len(self.env.steps) + 1} could not be read ({error})"
        result = self.env.step(step)
        self.ended = result.illegal is not None or result.goal or len(self.env.steps) >= self.budget
        return result.feedback

    def play(self, move: object) -> tuple[str, str | None]:
        """Apply one step text; return the feedback and the text to record (None when nothing was played)."""
        from vgau_data.puzzles import prompts

        if self.ended:
            return "The episode is over: no more steps are taken.", None
        text = str(move)[:MAX_STEP_CHARS]
        feedback = self._apply(text)
        if self.ended:
            return f"{feedback}. The episode is over.", text
        return f"{feedback}. {prompts.step_request(self.family, len(self.env.steps) + 1)}", text


TOOL_SCHEMA: Mapping[str, Any] = {
    "type": "function",
    "function": {
        "name": TOOL_NAME,
        "description": "Play one step of the puzzle and see the board after it.",
        "parameters": {
            "type": "object",
            "properties": {"move": {"type": "string", "description": "one step, written exactly as the puzzle asks"}},
            "required": ["move"],
        },
    },
}
"""``PuzzleStepTool``'s OpenAI function schema (verl validates it into its ``OpenAIFunctionToolSchema``)."""


class StepResponse:
    """What a tool call returns: verl's agent loop reads ``text``, ``image`` and ``video`` into its ``ToolResponse``.

    A plain class, not a dataclass: verl may execute this file under a module name that is
    not in ``sys.modules``, where ``dataclasses`` fails to resolve the annotations.
    """

    __slots__ = ("image", "text", "video")

    def __init__(self, text: str, image: list[Any], video: list[Any] | None = None) -> None:
        self.text, self.image, self.video = text, image, video

    def __repr__(self) -> str:
        return f"StepResponse(text={self.text!r}, image=<{len(self.image)} images>, video={self.video!r})"


class PuzzleStepTool:
    """A verl 0.8/0.9 tool (``BaseTool``'s interface) that plays one step of the row's puzzle.

    Declare it in the rollout's ``multi_turn.tool_config_path`` YAML with ``class_name:
    vgau_data.rewards.verl.PuzzleStepTool`` and ``config: {type: native}``; rows need
    ``multi_turn_extra_info``. verl creates and releases a tool instance around every call,
    so the episode lives in the trajectory's ``agent_data.extra_fields[STEPS_FIELD]`` (the
    step texts), which verl hands to ``compute_score`` as ``extra_info``.
    """

    def __init__(self, config: Mapping[str, Any] | None = None, tool_schema: Any = None) -> None:
        self.config = dict(config or {})
        self.tool_schema = tool_schema if tool_schema is not None else self.get_openai_tool_schema()
        self.name = self.tool_schema.function.name
        self._rows: dict[str, Mapping[str, Any]] = {}

    def get_openai_tool_schema(self) -> Any:
        """``TOOL_SCHEMA`` as verl's pydantic ``OpenAIFunctionToolSchema`` (verl's tool parsers read it)."""
        if getattr(self, "tool_schema", None) is not None:
            return self.tool_schema
        from verl.tools.schemas import OpenAIFunctionToolSchema

        return OpenAIFunctionToolSchema.model_validate(TOOL_SCHEMA)

    async def create(self, instance_id: str | None = None, **kwargs: Any) -> tuple[str, None]:
        instance_id = instance_id or uuid.uuid4().hex
        self._rows[instance_id] = dict(kwargs.get("create_kwargs") or {})
        return instance_id, None  # verl ignores the creation response

    async def execute(self, instance_id: str, parameters: Mapping[str, Any], **kwargs: Any) -> tuple[StepResponse, float, dict]:
        agent_data = kwargs.get("agent_data")
        fields = agent_data.extra_fields if agent_data is not None else {}
        steps = fields.setdefault(STEPS_FIELD, [])
        game = _Game(self._rows.get(instance_id, {}), steps)
        move = parameters.get("move", "") if isinstance(parameters, Mapping) else ""
        feedback, played = game.play(move)
        if played is not None:
            steps.append(played)
        return StepResponse(text=feedback, image=[game.env.render()]), 0.0, {"steps": len(steps)}

    async def calc_reward(self, instance_id: str, **kwargs: Any) -> float:
        return 0.0  # the episode is scored once, by compute_score on the recorded steps

    async def release(self, instance_id: str, **kwargs: Any) -> None:
        self._rows.pop(instance_id, None)


class PuzzleInteraction:
    """verl 0.7's ``BaseInteraction`` interface: the model gives one step per turn, we answer in text.

    Select it with ``extra_info.interaction_kwargs.name = INTERACTION_NAME`` (see
    ``multi_turn_extra_info``) and an interaction config naming
    ``vgau_data.rewards.verl.PuzzleInteraction``. Each turn's score is the ``kind`` reward
    of the steps so far (``config["kind"]``, default ``optimal``).
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        self.config = dict(config or {})
        self.name = self.config.get("name", INTERACTION_NAME)
        self._kind = get_kind(self.config.get("kind", "optimal"))
        self._episodes: OrderedDict[str, tuple[Mapping[str, Any], list[str]]] = OrderedDict()

    async def start_interaction(self, instance_id: str | None = None, **kwargs: Any) -> str:
        instance_id = instance_id or uuid.uuid4().hex
        self._episodes[instance_id] = (dict(kwargs), [])
        while len(self._episodes) > MAX_OPEN_EPISODES:
            self._episodes.popitem(last=False)
        return instance_id

    async def generate_response(
        self, instance_id: str, messages: Sequence[Mapping[str, Any]], **kwargs: Any
    ) -> tuple[bool, str, float, dict[str, Any]]:
        row, steps = self._episode(instance_id)
        reply = next((m.get("content") for m in reversed(messages) if m.get("role") == "assistant"), "")
        game = _Game(row, steps)
        feedback, played = game.play(reply if isinstance(reply, str) else "")
        if played is not None:
            steps.append(played)
        return game.ended, feedback, await self.calculate_score(instance_id), {"steps": len(steps)}

    async def calculate_score(self, instance_id: str, **kwargs: Any) -> float:
        row, steps = self._episode(instance_id)
        family = family_of(row.get("family")).name
        record = score_steps(_parse_steps(family, steps), str(row.get("state")), family=family,
                             optimal_length=row.get("optimal_length"), progress=self._kind.needs_progress)  # fmt: skip
        return self._kind(record)

    async def finalize_interaction(self, instance_id: str, **kwargs: Any) -> None:
        self._episodes.pop(instance_id, None)

    def _episode(self, instance_id: str) -> tuple[Mapping[str, Any], list[str]]:
        if instance_id not in self._episodes:
            raise RewardError(f"no interaction {instance_id!r} was started (or it was finalized)")
        return self._episodes[instance_id]

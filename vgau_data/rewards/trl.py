"""TRL adapters: reward functions, a conversational multimodal dataset and an environment for ``GRPOTrainer``.

Reward functions follow TRL's calling convention (read from ``GRPOTrainer._calculate_rewards``
in TRL 1.16): ``reward(prompts=..., completions=..., completion_ids=..., **columns)`` with
every dataset column as a keyword (one value per completion), plus ``trainer_state``,
``log_extra``, ``log_metric`` and, with ``environment_factory``, ``environments``. They
read the row's ``state`` column (and ``task`` or ``family``, ``optimal_length`` when
present) and return one float per completion, or None for rows of other tasks so they
mix with other rewards (TRL ignores None).

``conversational_dataset`` turns our benchmark dataset (or any rows with ``state`` and
``image`` columns) into TRL's conversational multimodal format: ``prompt`` messages whose
content lists image placeholders and text (no chat template applied) and an ``images``
column, plus the columns the rewards read.

``PuzzleEnvironment`` plays the interactive protocols (``oracle_vcot``,
``oracle_aug_vcot``) for ``environment_factory``: ``reset(**columns)`` returns the first
board and instructions, the ``step`` tool applies one step and returns the next board and
the feedback, ``get_reward`` scores the episode's steps with the replay scorer. A row with a
``render_style`` (a training export of styled rows) has every board drawn in its style.

``make_image_reward(kind, purpose=...)`` pays the drawings a ``rollout_func`` returns
(``vgau_data.rewards.images``): ``next_state`` reads the step from the completion text,
``drawn_step`` (a pure image policy) reads no text and finds the legal step the drawing
shows, ``aid`` checks a Self-GtA aid. Importing this module loads neither TRL nor Pillow;
each is imported where it is needed.

Example (a GRPO run; TRL, transformers and torch installed):
    >>> from trl import GRPOConfig, GRPOTrainer  # doctest: +SKIP
    >>> from vgau_data.rewards.trl import conversational_dataset, optimal_reward  # doctest: +SKIP
    >>> dataset = conversational_dataset("vgau/puzzles", families=["maze"], difficulties=["easy"])  # doctest: +SKIP
    >>> GRPOTrainer(model, reward_funcs=optimal_reward, train_dataset=dataset, args=GRPOConfig(...))  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from vgau_data.errors import MissingDependencyError
from vgau_data.render_styles import STYLE_COLUMN, parse_render_style
from vgau_data.rewards import REWARD_KINDS, RewardError, Score, family_of, get_kind, score, score_steps

if TYPE_CHECKING:
    from datasets import Dataset

    from vgau_data.runners.instances import Instance
    from vgau_data.runners.protocols.interactive import InteractiveEpisode

FAMILY_COLUMNS: tuple[str, ...] = ("task", "family")
"""Where a row names its family: ``task`` in the benchmark dataset, ``family`` in training rows."""
SINGLE_TURN_PROTOCOLS: tuple[str, ...] = ("text_cot", "direct", "oracle_gta")
"""Protocols whose whole prompt is one user message (``conversational_dataset``'s choices)."""
INTERACTIVE_PROTOCOLS: tuple[str, ...] = ("oracle_vcot", "oracle_aug_vcot")
"""Protocols ``PuzzleEnvironment`` plays: one step per tool call, our board shown after each."""
TOOL_NOTE = "Play the puzzle below with the step tool: call it once per step, with one step written as asked."
"""The dataset prompt of an environment row; ``reset`` appends the board and the instructions."""


# ---------------------------------------------------------------------------- reward functions


def completion_text(completion: object) -> str | None:
    """The answer text of a TRL completion: a string, or the last assistant message of a conversation.

    Example:
        >>> completion_text([{"role": "assistant", "content": "up"}])
        'up'
        >>> completion_text([{"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}])
        'a\\nb'
    """
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Sequence):
        for message in reversed(completion):
            if isinstance(message, Mapping) and message.get("role") == "assistant":
                return _content_text(message.get("content"))
    return None


def _content_text(content: object) -> str | None:
    if isinstance(content, str):
        return content
    if isinstance(content, Sequence):
        texts = [part.get("text") for part in content if isinstance(part, Mapping) and part.get("type") == "text"]
        return "\n".join(text for text in texts if isinstance(text, str))
    return None


def _row_family(index: int, columns: Mapping[str, Any]) -> str | None:
    """The family a row names (``task`` or ``family`` column), "" when it names another task, None when it names none."""
    for column in FAMILY_COLUMNS:
        values = columns.get(column)
        if values is not None and values[index] is not None:
            try:
                return family_of(values[index]).name
            except RewardError:
                return ""
    return None


def _row_name(index: int, columns: Mapping[str, Any]) -> str:
    """``row 'maze-train-...'`` (its ``id`` column), else its place in the batch: what an error names."""
    ids = columns.get("id")
    return f"row {ids[index]!r:.60}" if ids is not None and ids[index] is not None else f"row {index} of the batch"


def row_scores(
    completions: Sequence[object], columns: Mapping[str, Any], *, progress: bool = False
) -> list[Score | None]:
    """The ``Score`` of each completion against its row (None for rows of other tasks).

    ``columns`` are the keyword arguments TRL passes: ``state`` (required), and ``task`` or
    ``family`` and ``optimal_length`` when the dataset has them.
    """
    states = columns.get("state")
    if states is None:
        raise RewardError("the dataset has no 'state' column; vgau_data rewards read each row's state JSON from it")
    _check_columns(completions, columns)
    optima = columns.get("optimal_length")
    scores: list[Score | None] = []
    for index, completion in enumerate(completions):
        family = _row_family(index, columns)
        state = states[index]
        if family == "" or state is None:
            scores.append(None)
            continue
        if not isinstance(state, str):
            raise RewardError(f"{_row_name(index, columns)}: 'state' must be the state JSON string, "
                              f"got {type(state).__name__}")  # fmt: skip
        optimum = optima[index] if optima is not None else None
        if optimum is not None and (isinstance(optimum, bool) or not isinstance(optimum, int) or optimum < 0):
            raise RewardError(f"{_row_name(index, columns)}: 'optimal_length' must be an int >= 0, got {optimum!r:.40}")
        scores.append(score(completion_text(completion), state, family=family, optimal_length=optimum,
                            progress=progress))  # fmt: skip
    return scores


READ_COLUMNS: tuple[str, ...] = ("state", "optimal_length", "id", STYLE_COLUMN, "drawings", *FAMILY_COLUMNS)
"""The dataset columns the reward functions read: each must hold one value per completion."""


def _check_columns(completions: Sequence[object], columns: Mapping[str, Any]) -> None:
    """Refuse, naming the first row without one, a column that does not hold one value per completion."""
    for name in READ_COLUMNS:
        values = columns.get(name)
        if values is None:
            continue
        if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
            raise RewardError(f"column {name!r} must hold one value per completion, got {type(values).__name__}")
        if len(values) != len(completions):
            first = min(len(values), len(completions))
            raise RewardError(f"column {name!r} has {len(values)} values for {len(completions)} completions: "
                              f"row {first} of the batch has none")  # fmt: skip


def make_reward(kind: str = "optimal") -> Callable[..., list[float | None]]:
    """A TRL reward function for a reward kind (``REWARD_KINDS``), named ``vgau_<kind>`` in TRL's logs.

    It logs, through TRL's ``log_metric``, the share of answers that parsed, were feasible
    and optimal (``vgau/parsed``, ``vgau/feasible``, ``vgau/optimal``) beside the reward itself.
    """
    chosen = get_kind(kind)

    def reward_function(
        prompts: Sequence[object] | None = None,
        completions: Sequence[object] = (),
        completion_ids: Sequence[object] | None = None,
        log_metric: Callable[[str, float], None] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        scores = row_scores(completions, columns, progress=chosen.needs_progress)
        ours = [record for record in scores if record is not None]
        if log_metric is not None and ours:
            for field in ("parsed", "feasible", "optimal"):
                log_metric(f"vgau/{field}", sum(getattr(record, field) for record in ours) / len(ours))
        return [None if record is None else chosen(record) for record in scores]

    reward_function.__name__ = reward_function.__qualname__ = f"vgau_{chosen.name}"
    reward_function.__doc__ = f"TRL reward: {chosen.summary} (None for rows of other tasks)."
    return reward_function


REWARD_FUNCTIONS: Mapping[str, Callable[..., list[float | None]]] = {kind: make_reward(kind) for kind in REWARD_KINDS}
"""A TRL reward function per reward kind."""
optimal_reward = REWARD_FUNCTIONS["optimal"]
feasible_reward = REWARD_FUNCTIONS["feasible"]
progress_reward = REWARD_FUNCTIONS["progress"]
format_reward = REWARD_FUNCTIONS["format"]


def make_image_reward(
    kind: str | None = None, *, purpose: str = "next_state", image_key: str = "drawn_images"
) -> Callable[..., list[float | None]]:
    """A TRL reward function for drawings (``vgau_data.rewards.images``), named ``vgau_image_<kind>``.

    GRPOTrainer forwards every extra field a ``rollout_func`` returns to the rewards, so a
    rollout that draws returns its images under ``image_key`` (one per completion: PIL,
    PNG bytes, an array or a tensor). For ``next_state`` the step is the one the completion
    states, in the per-step format (Self-VCoT: the step, then the drawing of the board
    after it); for ``drawn_step`` (a pure image policy) no text is read and the legal step
    the drawing shows is found. The row's ``state`` is the board before it; a row with a
    ``render_style`` (a training export of styled rows) is read in that style. Rows of other
    tasks get None.
    """
    from vgau_data.rewards.images import DEFAULT_KIND, IMAGE_REWARD_KINDS, image_rewards

    chosen = kind or DEFAULT_KIND.get(purpose, "next_state")
    if chosen not in IMAGE_REWARD_KINDS:
        raise RewardError(f"unknown image reward kind {chosen!r}; choose from {', '.join(IMAGE_REWARD_KINDS)}")

    def reward_function(
        prompts: Sequence[object] | None = None,
        completions: Sequence[object] = (),
        completion_ids: Sequence[object] | None = None,
        **columns: Any,
    ) -> list[float | None]:
        images = columns.get(image_key)
        if images is None:
            raise RewardError(f"no {image_key!r} among the reward's keywords: the rollout must return the drawings there")
        states, optima, styles = columns.get("state"), columns.get("optimal_length"), columns.get(STYLE_COLUMN)
        if states is None:
            raise RewardError("the dataset has no 'state' column; vgau_data rewards read each row's state JSON from it")
        _check_columns(completions, {**columns, "drawings": images})
        rewards: list[float | None] = []
        for index, completion in enumerate(completions):
            family = _row_family(index, columns)
            if family == "" or states[index] is None:
                rewards.append(None)
                continue
            step = completion_text(completion) if purpose == "next_state" else None
            style = None if styles is None else parse_render_style(styles[index], _row_name(index, columns))
            optimum = None if optima is None else optima[index]
            result = image_rewards(images[index], states[index], purpose=purpose, step=step, kind=chosen,
                                   family=family, optimal_length=optimum, render_style=style)  # fmt: skip
            rewards.append(result["score"])
        return rewards

    reward_function.__name__ = reward_function.__qualname__ = f"vgau_image_{chosen}"
    reward_function.__doc__ = f"TRL reward for drawings: {IMAGE_REWARD_KINDS[chosen].summary}."
    return reward_function


# ---------------------------------------------------------------------------- rows -> instances


def instance_from_columns(columns: Mapping[str, Any]) -> Instance:
    """An ``Instance`` from one row's columns (benchmark or training rows).

    The family comes from ``task`` or ``family``; ``id``, ``difficulty`` and
    ``optimal_length`` are taken when present (else named, bucketed or solved); the board
    from ``image`` or the first of ``images`` (PNG bytes, ``{"bytes": ...}`` or PIL), else
    rendered from the state; the look from ``render_style`` (a training export's style
    JSON; absent or null: the benchmark's), so later boards and aids are drawn in it too.
    """
    from vgau_data.runners.instances import instance_from_row

    family_name = next((columns[c] for c in FAMILY_COLUMNS if columns.get(c) is not None), None)
    if family_name is None:
        raise RewardError(f"the row names no family (a 'task' or 'family' column); it has {sorted(columns)}")
    family = family_of(family_name)
    state = columns.get("state")
    if not isinstance(state, str):
        raise RewardError("the row has no 'state' column (the state JSON)")
    optimum = columns.get("optimal_length")
    if optimum is None:
        solution = family.solve(family.from_json(state))
        if solution is None:
            raise RewardError(f"the {family.name} state of row {columns.get('id')!r} has no solution")
        optimum = solution.optimal_length
    image = columns.get("image")
    if image is None and columns.get("images"):
        image = columns["images"][0]
    row = {
        "id": columns.get("id") or f"{family.name}-row",
        "task": family.name,
        "difficulty": columns.get("difficulty") or family.bucket_of(int(optimum)) or "train",
        "optimal_length": int(optimum),
        "state": state,
        "image": image,
        "oracle_aid": columns.get("oracle_aid"),
        "render_style": columns.get(STYLE_COLUMN),
    }
    return instance_from_row(row)


# ---------------------------------------------------------------------------- the dataset


def conversational_dataset(
    source: str | Iterable[Mapping[str, Any]],
    *,
    protocol: str = "text_cot",
    families: Sequence[str] | None = None,
    difficulties: Sequence[str] | None = None,
    limit: int | None = None,
) -> Dataset:
    """TRL's conversational multimodal dataset of a protocol's prompts.

    Args:
        source: a dataset built by ``vgau-data build`` (folder) or its Hub repo id, or rows
            (a ``datasets.Dataset``, a list of dicts) with ``state`` and ``task``/``family``
            columns and, optionally, ``image``.
        protocol: a single-turn protocol (``SINGLE_TURN_PROTOCOLS``): the prompt is its one
            user message, images first; or an interactive one (``INTERACTIVE_PROTOCOLS``)
            for ``PuzzleEnvironment``: the prompt is ``TOOL_NOTE`` and ``reset`` adds the
            board and the instructions, so the rows carry no images.
        families, difficulties, limit: select rows of a built dataset (as ``vgau-data run``).

    Returns:
        A ``datasets.Dataset`` with ``prompt`` (``[{"role": "user", "content": [{"type":
        "image"}, ..., {"type": "text", "text": ...}]}]``), ``images`` (single-turn only),
        and ``id``, ``task``, ``difficulty``, ``optimal_length``, ``state`` and
        ``reference`` (the reference JSON of docs/contract/records.md: the state with its family and optimum, a
        label OpenRLHF can pass whole); rows with a ``render_style`` add that column (the style's JSON,
        null for a row without one), which ``PuzzleEnvironment`` and the image rewards draw and read in.
    """
    try:
        import datasets
    except ImportError:
        raise MissingDependencyError("conversational_dataset needs datasets: pip install 'vgau-data[rl]'") from None
    if protocol not in SINGLE_TURN_PROTOCOLS + INTERACTIVE_PROTOCOLS:
        raise RewardError(f"protocol must be one of {', '.join(SINGLE_TURN_PROTOCOLS + INTERACTIVE_PROTOCOLS)}, "
                          f"got {protocol!r}")  # fmt: skip
    instances = _instances(source, families, difficulties, limit)
    interactive = protocol in INTERACTIVE_PROTOCOLS
    columns: dict[str, list[Any]] = {name: [] for name in ("prompt", "images", "id", "task", "difficulty",
                                                            "optimal_length", "state", "reference")}  # fmt: skip
    for instance in instances:
        if interactive:
            columns["prompt"].append([{"role": "user", "content": [{"type": "text", "text": TOOL_NOTE}]}])
        else:
            content, images = _first_message(instance, protocol)
            columns["prompt"].append([{"role": "user", "content": content}])
            columns["images"].append(images)
        for name in ("id", "task", "difficulty", "optimal_length", "state"):
            columns[name].append(getattr(instance, name))
        columns["reference"].append(instance.reference)
    features = {
        "prompt": datasets.List({"role": datasets.Value("string"), "content": datasets.List(
            {"type": datasets.Value("string"), "text": datasets.Value("string")})}),
        "images": datasets.List(datasets.Image()),
        "id": datasets.Value("string"),
        "task": datasets.Value("string"),
        "difficulty": datasets.Value("string"),
        "optimal_length": datasets.Value("int32"),
        "state": datasets.Value("string"),
        "reference": datasets.Value("string"),
    }  # fmt: skip
    if interactive:
        del columns["images"], features["images"]
    if any(instance.render_style is not None for instance in instances):
        columns[STYLE_COLUMN] = [None if i.render_style is None else i.render_style.to_json() for i in instances]
        features[STYLE_COLUMN] = datasets.Value("string")
    return datasets.Dataset.from_dict(columns, features=datasets.Features(features))


def _instances(
    source: str | Iterable[Mapping[str, Any]],
    families: Sequence[str] | None,
    difficulties: Sequence[str] | None,
    limit: int | None,
) -> list[Instance]:
    if isinstance(source, str):
        from vgau_data.runners.instances import load_instances

        return load_instances(source, families=families, difficulties=difficulties, limit=limit)
    if families or difficulties or limit:
        raise RewardError("families, difficulties and limit select rows of a built dataset; filter rows yourself")
    return [instance_from_columns(row) for row in source]


def _first_message(instance: Instance, protocol: str) -> tuple[list[dict[str, Any]], list[Any]]:
    """The protocol's one user message as TRL content (image placeholders, text) and its images."""
    from vgau_data.runners.messages import ImagePart
    from vgau_data.runners.protocols import ProtocolConfig, make_episode

    message = make_episode(instance, ProtocolConfig(name=protocol)).request().messages[-1]
    content: list[dict[str, Any]] = []
    images = []
    for part in message.parts:
        if isinstance(part, ImagePart):
            content.append({"type": "image", "text": None})
            images.append(part.image)
        else:
            content.append({"type": "text", "text": part.text})
    return content, images


# ---------------------------------------------------------------------------- the environment


class PuzzleEnvironment:
    """One interactive episode per rollout, for ``GRPOTrainer(environment_factory=...)``.

    Args:
        protocol: ``oracle_vcot`` (the board after each step) or ``oracle_aug_vcot`` (the
            board with the oracle grid annotation).
        kind: the reward kind ``get_reward`` returns (``REWARD_KINDS``; default ``optimal``).

    The episode is the protocol's, with the paper's budget (at most ``optimal_length``
    steps): it ends at the goal, at an illegal or unreadable step, or when the budget is
    spent; a step after the end changes nothing. Every board (and Aug-VCoT's annotation) is
    drawn in the row's ``render_style`` when it has one, at the styled board's size, as its
    first board is. Use ``functools.partial(PuzzleEnvironment,
    protocol=...)`` as the factory to choose. TRL turns every public method into a tool,
    so ``step`` is the only one besides ``reset`` and ``get_reward``.
    """

    def __init__(self, protocol: str = "oracle_vcot", kind: str = "optimal") -> None:
        if protocol not in INTERACTIVE_PROTOCOLS:
            raise RewardError(f"PuzzleEnvironment plays {' or '.join(INTERACTIVE_PROTOCOLS)}, not {protocol!r}")
        self._protocol = protocol
        self._kind = get_kind(kind)
        self._episode: InteractiveEpisode | None = None

    def reset(self, **columns: Any) -> list[dict[str, Any]]:
        """Start an episode on the row: the first board(s) and the instructions, as content parts."""
        from vgau_data.runners.protocols import ProtocolConfig, make_episode

        episode = make_episode(instance_from_columns(columns), ProtocolConfig(name=self._protocol))
        self._episode = episode  # type: ignore[assignment]
        return _content(episode.request().messages[-1].parts)

    def step(self, move: str) -> list[dict[str, Any]]:
        """Play one step of the puzzle and see the board after it.

        Args:
            move: one step, written exactly as the puzzle's instructions ask.

        Returns:
            What the step did, and the board after it with the request for the next step.
        """
        from vgau_data.runners.backends.base import Completion

        episode = self._require_episode()
        if episode.done:
            return [{"type": "text", "text": "The episode is over: no more steps are taken. The board:"},
                    {"type": "image", "image": episode.env.render()}]  # fmt: skip
        episode.advance(Completion(text=str(move)))
        turn = episode.turns[-1]
        said = turn.feedback or f"step {len(episode.turns)} could not be read ({turn.parse_error})"
        if episode.done:
            return [{"type": "text", "text": f"{said}. The episode is over ({episode.outcome().end}). The board:"},
                    {"type": "image", "image": episode.env.render()}]  # fmt: skip
        return [{"type": "text", "text": f"{said}."}, *_content(episode.request().messages[-1].parts)]

    def get_reward(self) -> float:
        """The episode's steps scored by the replay scorer (the ``kind`` reward)."""
        episode = self._require_episode()
        instance = episode.instance
        record = score_steps(tuple(episode.env.steps), instance.state, family=instance.task,
                             optimal_length=instance.optimal_length, progress=self._kind.needs_progress)  # fmt: skip
        return self._kind(record)

    def _require_episode(self) -> InteractiveEpisode:
        if self._episode is None:
            raise RuntimeError("PuzzleEnvironment: call reset(**row) before playing")
        return self._episode


def _content(parts: Sequence[Any]) -> list[dict[str, Any]]:
    """Our message parts as TRL content parts (images inline, as tools return them)."""
    from vgau_data.runners.messages import ImagePart

    return [
        {"type": "image", "image": part.image} if isinstance(part, ImagePart) else {"type": "text", "text": part.text}
        for part in parts
    ]

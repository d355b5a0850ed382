"""The functions the shipped lmms-eval task files name with ``!function``.

Single-turn protocols (``direct``, ``text_cot``, ``oracle_gta``): the prompt and images are
the first message of the package's own episode for that protocol. Interactive protocols
(``oracle_vcot``, ``oracle_aug_vcot``) run through lmms-eval's ``generate_until_agentic``:
each round is one fresh single-turn call, so ``agentic_doc_to_text`` steps our episode
with the model's reply and sends the whole conversation so far (every image, then the
transcript with ``<image k>`` markers where they belong). When the episode ends, its final
output is a JSON object ``{"vgau_episode": 1, "answer": ..., "end": ..., "steps": ...}``
whose ``answer`` is the steps taken in the family's answer format (lmms-eval keeps a final
output that starts with ``{`` as the response; see ``episode_answer_text``).

Every task keeps each of the ``-n/--repeats K`` responses of a row (``KeepResponses``, its
filter: lmms-eval's default one keeps the first only), so the samples log holds K outputs per
row, which the converter turns into runs 0..K-1. ``process_results`` scores each with
``score_answer`` and reports ``optimal_accuracy`` / ``feasible_accuracy`` / ``parse_rate``
per row (1.0 or 0.0, or the mean over the K responses),
plus ``<difficulty>_optimal`` / ``<difficulty>_feasible`` keys (None on rows of other
difficulties, averaged by ``mean_of_rows``): the per-difficulty cells of Table 1.
``doc_to_target`` is the row id, which lmms-eval logs as ``target`` and the converter reads.

``DATASET_PATH`` (read when lmms-eval loads a task file) is ``$VGAU_PUZZLES`` when set (a
local ``vgau-data build`` folder), else the Hub dataset ``vgau/puzzles``.

``$VGAU_READER`` (``vgau_data.readers``: ``ours``, the default, or ``authors``) picks how
answers are read and scored and where interactive episodes end; the episode JSON names
it (``reader``), so ``vgau-data convert`` files those episodes under the reader's variant.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from vgau_data import safe_json
from vgau_data.integrations.prompts import first_message, protocol_episode
from vgau_data.metrics.scoring import Verdict, make_reference, score_answer
from vgau_data.puzzles.base import DIFFICULTIES
from vgau_data.readers import DEFAULT_READER, env_reader
from vgau_data.runners.instances import DEFAULT_DATASET

DATASET_ENV = "VGAU_PUZZLES"
EPISODE_KEY = "vgau_episode"
REQUEST_FAILED = "[LMMS_EVAL_REQUEST_FAILED"
"""How lmms-eval marks a request it gave up on (in place of the model's text)."""
MAX_PAYLOAD_CHARS = 1_000_000
"""Longest final agentic output read back as JSON (an episode answer is a few KB)."""


def __getattr__(name: str) -> Any:
    """``DATASET_PATH``, ``LMMS_EVAL_VERSION`` and the ``visual_<protocol>`` functions, made when a task file names them.

    ``DATASET_PATH`` is read from the environment each time a task file is loaded;
    ``visual_<protocol>(doc)`` returns the images of that protocol's first message
    (lmms-eval calls ``doc_to_visual`` with the row alone).
    """
    if name == "DATASET_PATH":
        return os.environ.get(DATASET_ENV) or DEFAULT_DATASET
    if name == "LMMS_EVAL_VERSION":  # its results.json records a git branch@commit only ("unknown@unknown" when pip-installed)
        from importlib.metadata import PackageNotFoundError, version

        try:
            return version("lmms-eval")
        except PackageNotFoundError:
            return "not installed"
    if name.startswith("visual_") and name.removeprefix("visual_") in _protocols():
        protocol = name.removeprefix("visual_")

        def visual(doc: Mapping[str, Any]) -> list[Any]:
            return first_message(doc, protocol)[0]

        visual.__name__ = name
        return visual
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _protocols() -> tuple[str, ...]:
    from vgau_data.runners.protocols import protocol_names

    return tuple(protocol_names())


def _protocol(kwargs: Mapping[str, Any] | None) -> str:
    protocol = (kwargs or {}).get("protocol")
    if protocol not in _protocols():
        raise ValueError(f"task file sets protocol {protocol!r}; expected one of {_protocols()}")
    return str(protocol)


def flatten_conversation(messages: Sequence[Any]) -> tuple[list[Any], str]:
    """Every image of a conversation, and its text with ``<image k>`` where each image was.

    Example:
        >>> from PIL import Image
        >>> from vgau_data.runners.messages import assistant, user
        >>> board = Image.new("RGB", (2, 2))
        >>> images, text = flatten_conversation([user(board, "Go."), assistant("up"), user("Moved.", board)])
        >>> len(images), text.splitlines()
        (2, ['<image 1>', 'Go.', '', 'Your reply:', 'up', '', 'Moved.', '<image 2>'])
    """
    from vgau_data.runners.messages import ImagePart

    images: list[Any] = []
    blocks: list[str] = []
    for message in messages:
        lines = []
        for part in message.parts:
            if isinstance(part, ImagePart):
                images.append(part.image)
                lines.append(f"<image {len(images)}>")
            elif message.role == "assistant":
                lines.append(f"Your reply:\n{part.text}")
            else:
                lines.append(part.text)
        blocks.append("\n".join(lines))
    return images, "\n\n".join(blocks)


def doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Mapping[str, Any] | None = None) -> str:
    """The text of the protocol's first message (single-turn protocols)."""
    return first_message(doc, _protocol(lmms_eval_specific_kwargs))[1]


def doc_to_target(doc: Mapping[str, Any]) -> str:
    """The row id: lmms-eval logs it as ``target``, so converted rows are matched by id."""
    return str(doc["id"])


def episode_answer_text(outcome: Any, reader: str = DEFAULT_READER) -> str:
    """The final agentic output: a JSON object holding the episode's answer text.

    A failed request ends the episode with ``end: "backend_error"`` and lmms-eval's marker
    in ``error``; the converter keeps it as a failed record, as it does failed single-turn requests.
    """
    payload = {EPISODE_KEY: 1, "answer": outcome.output or "", "end": outcome.end, "steps": outcome.steps}
    if reader != DEFAULT_READER:
        payload["reader"] = reader
    if outcome.error:
        payload["error"] = outcome.error
    return json.dumps(payload, ensure_ascii=False)


def agentic_doc_to_text(
    doc: Mapping[str, Any],
    lmms_eval_specific_kwargs: Mapping[str, Any] | None = None,
    previous_output: Sequence[str] | None = None,
    round_idx: int | None = None,
    previous_round_info: Mapping[str, Any] | None = None,
) -> Any:
    """Round 0: the episode's first prompt. Round k: apply reply k, then the next prompt or the end.

    Returns lmms-eval's 5-tuple ``(visuals, text, terminal, outputs, round_info)`` after round 0.
    """
    from vgau_data.runners.backends.base import Completion

    protocol = _protocol(lmms_eval_specific_kwargs)
    reader = env_reader()
    if round_idx is None:
        return flatten_conversation(protocol_episode(doc, protocol, reader).request().messages)[1]
    info = dict(previous_round_info or {})
    episode = info.get("episode") or protocol_episode(doc, protocol, reader)
    outputs = list(previous_output or [])
    reply = outputs[-1] if outputs else ""
    if reply.startswith(REQUEST_FAILED):  # lmms-eval gave up on the request: not a model reply
        episode.advance(Completion(error=reply[:500]))
    else:
        episode.advance(Completion(text=reply))
    if episode.done:
        return None, None, True, [*outputs, episode_answer_text(episode.outcome(), episode.config.reader)], None
    images, text = flatten_conversation(episode.request().messages)
    return images, text, False, outputs, {"episode": episode, "state": {"steps": len(episode.turns)}}


def read_episode(output: str) -> dict[str, Any] | None:
    """The episode JSON of a final agentic output, or None when ``output`` is not one.

    Example:
        >>> read_episode('{"vgau_episode": 1, "answer": "<answer>A,C</answer>", "end": "goal"}')["answer"]
        '<answer>A,C</answer>'
        >>> read_episode("up") is None
        True
    """
    if not output.lstrip().startswith("{") or len(output) > MAX_PAYLOAD_CHARS:
        return None
    try:
        payload = safe_json.loads(output)
    except safe_json.JsonInputError:  # not JSON, NaN, or nested deeper than any episode
        return None
    if not isinstance(payload, dict) or payload.get(EPISODE_KEY) != 1 or not isinstance(payload.get("answer"), str):
        return None
    return payload


def _verdict_metrics(verdicts: Sequence[Verdict], difficulty: str) -> dict[str, float | None]:
    n = max(len(verdicts), 1)
    optimal = sum(v.optimal for v in verdicts) / n
    feasible = sum(v.feasible for v in verdicts) / n
    metrics: dict[str, float | None] = {
        "optimal_accuracy": optimal,
        "feasible_accuracy": feasible,
        "parse_rate": sum(v.parsed for v in verdicts) / n,
    }
    for level in DIFFICULTIES:
        metrics[f"{level}_optimal"] = optimal if level == difficulty else None
        metrics[f"{level}_feasible"] = feasible if level == difficulty else None
    return metrics


def mean_of_rows(values: Sequence[float | None]) -> float:
    """Aggregation of the per-difficulty metrics: the mean over the rows of that difficulty.

    Every row reports every key (None for the other difficulties) because lmms-eval takes a
    task's sample count from whichever metric it aggregates last.

    Example:
        >>> mean_of_rows([1.0, None, 0.0, None])
        0.5
    """
    present = [value for value in values if value is not None]
    return sum(present) / len(present) if present else float("nan")


class KeepResponses:
    """lmms-eval filter that keeps every response of a row (``-n/--repeats K``).

    lmms-eval's default filter (``take_first``) keeps the first of the K responses and drops
    the rest before ``process_results`` and the samples log. This one leaves one response as
    the string ``take_first`` would, and K > 1 as the list of all K.

    Example:
        >>> list(KeepResponses().apply([["a"], ["b", "c"], []], docs=None))
        ['a', ['b', 'c'], '']
    """

    def __init__(self, **kwargs: Any) -> None:
        if kwargs:
            raise ValueError(f"KeepResponses takes no options, got {sorted(kwargs)}")

    def apply(self, resps: Iterable[Sequence[Any]], docs: Any) -> list[Any]:
        return [list(r) if len(r) > 1 else (r[0] if r else "") for r in map(list, resps)]


def process_results(doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, float | None]:
    """Replay-score the output(s) of one row (K with ``--repeats K``: the mean of their verdicts), read by
    ``$VGAU_READER``."""
    reference, reader = make_reference(doc), env_reader()
    outputs = _outputs(results)
    return _verdict_metrics([score_answer(output, reference, reader) for output in outputs], str(doc["difficulty"]))


def agentic_process_results(doc: Mapping[str, Any], results: Sequence[Any]) -> dict[str, float | None]:
    """Score the answer inside each final episode output (anything else counts as no answer), read by the
    reader the episode was played under."""
    reference = make_reference(doc)
    verdicts = [
        score_answer(str(e["answer"]), reference, str(e.get("reader", DEFAULT_READER)))
        if e else score_answer("", reference, env_reader())
        for e in map(read_episode, _outputs(results))
    ]
    return _verdict_metrics(verdicts, str(doc["difficulty"]))


def _outputs(results: Sequence[Any]) -> list[str]:
    """Every response in ``results``: one entry per request, each a string or (``KeepResponses``) a list."""
    outputs: list[str] = []
    for result in results:
        for item in result if isinstance(result, (list, tuple)) else [result]:
            outputs.append(item if isinstance(item, str) else "")
    return outputs or [""]


OVERALL_METRICS: tuple[str, ...] = ("optimal_accuracy", "feasible_accuracy", "parse_rate")
METRICS: tuple[str, ...] = (
    *OVERALL_METRICS,
    *(f"{level}_{kind}" for level in DIFFICULTIES for kind in ("optimal", "feasible")),
)
"""Metric keys ``process_results`` returns, in the order the task files list them. lmms-eval's
group tables match metric names by substring, so no name may contain another."""

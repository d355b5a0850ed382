"""Scoring by replay: raw model text + reference -> a verdict, and verdicts -> accuracies.

Every entry point (the Python API, the ``evaluate`` module, ``vgau-data score``, the
runners) goes through ``score_answer``, so a verdict means the same thing everywhere.
"""

from __future__ import annotations

import functools
import json
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from vgau_data import safe_json
from vgau_data.errors import VgauError
from vgau_data.puzzles.base import DIFFICULTIES, FamilySpec
from vgau_data.readers import DEFAULT_READER, get_reader
from vgau_data.readers.ours import read_with
from vgau_data.registry import FAMILIES, get_family

REFERENCE_KEYS: tuple[str, ...] = ("id", "task", "difficulty", "optimal_length", "state")


class ReferenceError(VgauError, ValueError):
    """A reference that is not the row subset of docs/contract/records.md (References)."""


@dataclass(frozen=True, slots=True)
class Verdict:
    """How one answer fared on its instance.

    ``parsed``: an answer was found and read; ``feasible``: every step legal and the goal
    reached; ``optimal``: feasible with ``length == optimal_length``; ``error``: a reason code
    reason code (None when feasible); ``first_invalid_step``: 0-based index of the step
    that failed (``length`` when the answer ended unsolved).
    """

    id: str
    task: str
    difficulty: str
    parsed: bool
    feasible: bool
    optimal: bool
    length: int
    error: str | None
    first_invalid_step: int | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class Reference:
    """The reference, read and checked once."""

    id: str
    task: str
    difficulty: str
    optimal_length: int
    state: str


def make_reference(row: Mapping[str, Any]) -> str:
    """The reference JSON string (docs/contract/records.md) of a dataset row (extra columns are ignored).

    Example:
        >>> make_reference({"id": "maze-easy-0000", "task": "maze", "difficulty": "easy",
        ...                 "optimal_length": 3, "state": "{}", "image": None})[:22]
        '{"difficulty":"easy","'
    """
    missing = [key for key in REFERENCE_KEYS if key not in row]
    if missing:
        raise ReferenceError(f"row lacks the reference columns {missing}; it has {sorted(row)}")
    return json.dumps({key: row[key] for key in REFERENCE_KEYS}, sort_keys=True, separators=(",", ":"))


def read_reference(reference: str | Mapping[str, Any]) -> Reference:
    """Check a reference (JSON string or dict; strict JSON of bounded depth) and return it typed."""
    if isinstance(reference, str):
        try:
            reference = safe_json.loads(reference, "reference")
        except safe_json.JsonInputError as error:
            raise ReferenceError(str(error)) from None
    if not isinstance(reference, Mapping):
        raise ReferenceError(f"reference must be a JSON object, got {type(reference).__name__}")
    missing = [key for key in REFERENCE_KEYS if key not in reference]
    if missing:
        raise ReferenceError(f"reference lacks {missing}; expected keys {list(REFERENCE_KEYS)}")
    optimal_length = reference["optimal_length"]
    if not isinstance(optimal_length, int) or isinstance(optimal_length, bool) or optimal_length < 0:
        raise ReferenceError(f"reference optimal_length must be a non-negative int, got {str(optimal_length)[:40]}")
    odd = [key for key in ("id", "task", "difficulty", "state") if not isinstance(reference[key], str)]
    if odd:
        raise ReferenceError(f"reference {odd[0]} must be a string, got {type(reference[odd[0]]).__name__}")
    return Reference(
        id=reference["id"],
        task=get_family(reference["task"]).name,
        difficulty=reference["difficulty"],
        optimal_length=optimal_length,
        state=reference["state"],
    )


@functools.lru_cache(maxsize=4096)
def _state(task: str, state_json: str) -> Any:
    """Parsed states are cached: runs score the same 600 references many times."""
    return FAMILIES[task].from_json(state_json)


def parse_output(family: FamilySpec, output: object) -> tuple[tuple[Any, ...] | None, str | None]:
    """``(answer, None)`` read from a model's text, or ``(None, reason code)``; never raises.

    Example:
        >>> from vgau_data.registry import get_family
        >>> parse_output(get_family("maze"), "")
        (None, 'no_answer')
    """
    return read_with(family.parse_answer, output, family.name)


def score_answer(
    output: str | None, reference: str | Mapping[str, Any] | Reference, reader: str = DEFAULT_READER
) -> Verdict:
    """Parse ``output`` as the family's answer and replay it on the reference's state.

    ``reader`` names how the text is read (``vgau_data.readers``): ``ours`` (the paper's
    text) or ``authors`` (the authors' released code). Never raises on the output (any
    text, None included); raises ``ReferenceError`` or ``StateError`` when the reference
    itself is broken, ``ReaderError`` for an unknown reader.
    """
    judge = get_reader(reader).judge
    ref = reference if isinstance(reference, Reference) else read_reference(reference)
    reading = judge(FAMILIES[ref.task], _state(ref.task, ref.state), ref.optimal_length, output)
    replay = reading.replay
    optimal = replay.feasible and replay.length == ref.optimal_length
    return Verdict(
        ref.id, ref.task, ref.difficulty, reading.parsed, replay.feasible, optimal, replay.length, replay.error,
        replay.first_invalid_step,
    )


def score_batch(
    predictions: Sequence[str | None],
    references: Sequence[str | Mapping[str, Any]],
    *,
    return_details: bool = False,
    reader: str = DEFAULT_READER,
) -> dict[str, Any]:
    """Score parallel lists and aggregate; the ``evaluate`` module forwards here.

    Raises:
        ValueError: the lists differ in length, or ``return_details`` is not a boolean
            (``"no"`` would otherwise count as true).
    """
    if not isinstance(return_details, bool):  # a ValueError like evaluate's own argument errors
        raise ValueError(f"return_details must be True or False, got {return_details!r:.40}")  # noqa: TRY004
    if len(predictions) != len(references):
        raise ValueError(f"{len(predictions)} predictions but {len(references)} references; they must pair up")
    get_reader(reader)
    verdicts = [score_answer(p, r, reader) for p, r in zip(predictions, references)]
    result = aggregate(verdicts)
    if return_details:
        result["details"] = [v.to_dict() for v in verdicts]
    return result


def _rates(verdicts: Sequence[Verdict]) -> dict[str, Any]:
    n = len(verdicts)
    if n == 0:
        return {"n": 0, "optimal_accuracy": 0.0, "feasible_accuracy": 0.0, "parse_rate": 0.0}
    return {
        "n": n,
        "optimal_accuracy": sum(v.optimal for v in verdicts) / n,
        "feasible_accuracy": sum(v.feasible for v in verdicts) / n,
        "parse_rate": sum(v.parsed for v in verdicts) / n,
    }


def aggregate(verdicts: Iterable[Verdict]) -> dict[str, Any]:
    """Overall, per-family and per family x difficulty accuracies plus an error histogram.

    Keys: ``optimal_accuracy``, ``feasible_accuracy``, ``parse_rate``, ``n``,
    ``per_family`` ({family: rates}), ``per_family_difficulty`` ({family: {difficulty:
    rates}}), ``errors`` ({code: count}). Families and difficulties appear in registry order
    and only when present. Values are plain floats and ints.
    """
    verdicts = list(verdicts)
    by_family: dict[str, list[Verdict]] = defaultdict(list)
    by_cell: dict[tuple[str, str], list[Verdict]] = defaultdict(list)
    for v in verdicts:
        by_family[v.task].append(v)
        by_cell[(v.task, v.difficulty)].append(v)
    result = _rates(verdicts)
    result["per_family"] = {f: _rates(by_family[f]) for f in FAMILIES if f in by_family}
    result["per_family_difficulty"] = {
        f: {d: _rates(by_cell[(f, d)]) for d in DIFFICULTIES if (f, d) in by_cell} for f in FAMILIES if f in by_family
    }
    errors = Counter(v.error for v in verdicts if v.error is not None)
    result["errors"] = dict(sorted(errors.items(), key=lambda item: (-item[1], item[0])))
    return result


def mean_over_runs(results: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Average several runs' ``aggregate`` results (the paper averages 3 runs for unified models).

    Every rate becomes its mean (an int equal in every run, such as ``n``, stays as is);
    ``errors`` becomes the total count over runs; ``<rate>_std`` (population std over
    runs) is added beside each of the three rates: overall always, and over several runs
    per family and per family and difficulty too (the plots' error bars; a one-run result
    is the metric's ``aggregate``, key for key); ``runs`` and ``per_run`` (the overall
    rates of each run) at the top level.
    """
    if not results:
        raise ValueError("mean_over_runs needs at least one run")

    def mean_of(dicts: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
        merged: dict[str, Any] = {}
        for key, value in dicts[0].items():
            values = [d.get(key) for d in dicts]
            if isinstance(value, bool) or key == "errors":
                merged[key] = value if key != "errors" else dict(sum((Counter(v or {}) for v in values), Counter()))
            elif isinstance(value, int) and all(type(v) is int and v == value for v in values):
                merged[key] = value  # counts such as ``n`` that every run shares stay ints
            elif isinstance(value, (int, float)):
                merged[key] = sum(float(v or 0) for v in values) / len(values)
            elif isinstance(value, Mapping):
                merged[key] = mean_of([v if isinstance(v, Mapping) else {} for v in values])
        for key in _SPREAD_RATES:
            if key in merged and len(dicts) > 1:
                spread = [float(d.get(key) or 0) for d in dicts]
                merged[f"{key}_std"] = math.sqrt(sum((x - merged[key]) ** 2 for x in spread) / len(spread))
        return merged

    merged = mean_of(results)
    for key in _SPREAD_RATES:  # the overall spread is always there (0 for one run); a cell's only over runs
        merged.setdefault(f"{key}_std", 0.0)
    merged["runs"] = len(results)
    merged["per_run"] = [{key: r[key] for key in _SPREAD_RATES} for r in results]
    return merged


_SPREAD_RATES = ("optimal_accuracy", "feasible_accuracy", "parse_rate")
"""The rates ``mean_over_runs`` gives a spread over runs, at every level."""

"""A worker's answer to one request body: checked, parsed, scored sample by sample within budgets.

Runs in a worker process (``vgau_data.rewards.server.workers``), never on the server's
event loop. The body's values are counted before it is parsed (``body.too_many_values``);
each sample is scored with the core's ``SolveBudget`` (``solve_positions``, and
``solve_seconds`` or what is left of the request's deadline, if less) under a timer of the
same seconds (checked every 0.1 s): a label whose solve runs out of either, or out of the
worker's memory, pays 0 with ``vgau_over_budget`` 1 in ``extra_logs``, and so does every later sample of that label in the request (the solve
would only run out again). The alarm interrupts pure-Python search between bytecodes;
anything slower to stop meets the parent's kill at the deadline.
"""

from __future__ import annotations

import math
import signal
import time
from dataclasses import dataclass
from typing import Any

import orjson

from vgau_data import safe_json
from vgau_data.errors import SearchLimitError, VgauError
from vgau_data.rewards import Score, SolveBudget, get_kind, score
from vgau_data.rewards.openrlhf import LOGGED, read_label, response_text
from vgau_data.rewards.server.body import too_many_values
from vgau_data.rewards.server.limits import ServerLimits

OVER_BUDGET_LOG = "vgau_over_budget"
"""``extra_logs`` key: 1 for a sample whose label's solve ran out of its budget (its reward is 0)."""


class Refusal(Exception):
    """A request answered with an error status and ``{"error": message}``."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class _OutOfTime(Exception):
    """Raised by the alarm inside a sample's scoring."""


@dataclass(slots=True)
class Answer:
    """What the worker sends back: the status, the JSON reply, and whether it should be replaced after it."""

    status: int
    body: bytes
    recycle: bool = False


def answer(body: bytes, seconds_left: float, kind: str, limits: ServerLimits) -> Answer:
    """The reply to one request body (``seconds_left`` of its deadline remain)."""
    deadline = time.monotonic() + seconds_left
    try:
        queries, prompts, labels = _read(body, limits)
        del body
        reply, recycle = _score_all(queries, prompts, labels, kind, limits, deadline)
    except Refusal as refusal:
        return Answer(refusal.status, error_body(str(refusal)))
    return Answer(200, orjson.dumps(reply), recycle)


def error_body(message: str) -> bytes:
    return orjson.dumps({"error": message[:500]})


def _read(body: bytes, limits: ServerLimits) -> tuple[list[Any], list[Any], list[Any]]:
    if too_many_values(body, limits.max_elements):
        raise Refusal(413, f"the body holds more than {limits.max_elements} JSON values "
                           f"({limits.max_samples} samples at most)")  # fmt: skip
    try:
        payload = orjson.loads(body)  # 4x json's speed on OpenRLHF's bodies (labels are JSON in JSON strings)
    except orjson.JSONDecodeError as error:  # not JSON (NaN and Infinity included), not UTF-8, past 1024 levels
        reason = str(error)
        if reason.startswith("depth limit"):
            raise Refusal(400, f"the body: nested more than {safe_json.MAX_DEPTH} levels deep") from None
        raise Refusal(400, f"the body: not valid JSON ({reason[:160]})") from None
    except MemoryError:
        raise Refusal(413, "the body needs more memory to parse than a worker has") from None
    if safe_json.depth(payload) > safe_json.MAX_DEPTH:  # what later code walks stays shallow, as safe_json.loads keeps it
        raise Refusal(400, f"the body: nested more than {safe_json.MAX_DEPTH} levels deep")
    if not isinstance(payload, dict):
        raise Refusal(400, 'the body must be a JSON object {"query": [...], "prompts": [...], "labels": [...]}')
    queries, prompts, labels = payload.get("query"), payload.get("prompts"), payload.get("labels")
    if not (isinstance(queries, list) and isinstance(prompts, list) and isinstance(labels, list)):
        raise Refusal(400, "query, prompts and labels must each be a list")
    if len(queries) > limits.max_samples:
        raise Refusal(413, f"{len(queries)} samples; at most {limits.max_samples} per request")
    if not len(queries) == len(prompts) == len(labels):
        raise Refusal(422, f"{len(queries)} queries, {len(prompts)} prompts and {len(labels)} labels: one each per sample")
    return queries, prompts, labels


def _score_all(
    queries: list[Any], prompts: list[Any], labels: list[Any], kind: str, limits: ServerLimits, deadline: float
) -> tuple[dict[str, Any], bool]:
    """OpenRLHF's reply (``rewards``, ``scores``, ``extra_logs``) and whether the worker ran out of memory.

    Each sample is scored by the core within its label's ``SolveBudget``: a search that meets
    it comes back as ``Score.budget_exceeded``; ``_Alarm`` stops anything slower to notice,
    and the parent's kill anything slower than that. Every sample with ``solve_seconds``
    left before the deadline is scored with one budget, equal in every request: the core
    caches searches per budget.
    """
    chosen = get_kind(kind)
    full = SolveBudget(limits.solve_positions, limits.solve_seconds)
    records: list[Score | None] = []  # None: the label's solve ran out of its budget
    spent: set[tuple[str, str | None, int | None]] = set()  # labels whose solve ran out in this request
    out_of_memory = False
    previous = signal.signal(signal.SIGALRM, _ALARM.ring)
    signal.setitimer(signal.ITIMER_REAL, _Alarm.TICK_S, _Alarm.TICK_S)
    try:
        for query, prompt, label in zip(queries, prompts, labels):
            now = time.monotonic()
            if now >= deadline:
                raise Refusal(504, "the request's work ran past its deadline")
            try:
                key = truth, family, optimum = read_label(label)
            except VgauError as error:
                raise Refusal(422, str(error)) from None
            record = None
            if key not in spent:
                left = deadline - now
                budget = full if left >= full.seconds else SolveBudget(full.positions, max(left, 1e-3))
                _ALARM.ends = now + budget.seconds
                try:
                    record = score(response_text(query, prompt), truth, family=family, optimal_length=optimum,
                                   progress=chosen.needs_progress, budget=budget)  # fmt: skip
                    if record.budget_exceeded:
                        spent.add(key)
                        record = None
                        if time.monotonic() >= deadline:  # the budget was what was left of the request's
                            raise Refusal(504, "the request's work ran past its deadline")
                except (_OutOfTime, SearchLimitError):
                    spent.add(key)
                except MemoryError:
                    spent.add(key)
                    out_of_memory = True
                except VgauError as error:  # a label that is none of ours, or a broken state
                    raise Refusal(422, str(error)) from None
                finally:
                    _ALARM.ends = math.inf
            records.append(record)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    rewards = [0.0 if record is None else chosen(record) for record in records]
    logs = {f"vgau_{field}": [0.0 if record is None else float(getattr(record, field)) for record in records]
            for field in LOGGED}  # fmt: skip
    logs[OVER_BUDGET_LOG] = [1.0 if record is None else 0.0 for record in records]
    return {"rewards": rewards, "scores": rewards, "extra_logs": logs}, out_of_memory


class _Alarm:
    """A SIGALRM every ``TICK_S`` while a request is scored (a worker's main thread only): it raises
    ``_OutOfTime`` in a sample scored past ``ends``, and never between samples (``ends`` is then infinite).
    A tick rather than a timer per sample: two system calls a request instead of two a sample. One
    instance (``_ALARM``): writing a class attribute twice a sample would void the interpreter's type caches."""

    TICK_S = 0.1
    __slots__ = ("ends",)

    def __init__(self) -> None:
        self.ends = math.inf

    def ring(self, signum: int, frame: Any) -> None:
        if time.monotonic() > self.ends:
            self.ends = math.inf
            raise _OutOfTime


_ALARM = _Alarm()

"""Every verdict the reward core gives on a broad, fixed answer set is the recorded one.

The family-side parse and replay paths (``from_json``, ``parse_answer``, ``replay``) are
tuned for speed; this holds them to the verdicts they gave before, answer by answer. Per
family, the fixture ``tests/data/rewards/verdicts.jsonl`` stores states (two generated per
bucket, and the state one oracle step later: path's carries the marker) with their oracle
answers and each verdict. The answers are rebuilt here, seeded by the state: the oracle
answers, their halves and each with one more candidate step, random walks over the
family's candidate steps (legal and not), the oracle answer mutated as text (characters
deleted, doubled, swapped, replaced, inserted, the text cut, its case changed, wrapped in
prose and fences, quoted with single quotes), and hostile texts (deep nesting, NaN, huge
numbers, lone surrogates, thousands of steps, no text at all). A verdict is ``score``'s
record (parsed, feasible, optimal, moves, first illegal move, reason code), the same with
the family found from the state, and a digest of the parsed answer. Each state's JSON is
also mutated (keys dropped and added, values replaced by other types and ranges, list
items swapped, the text cut) and what
``from_json`` makes of each (a digest of the state, or of its ``StateError`` message) is
recorded too, with the family the reward core finds for it when none is named.

``VGAU_RECORD_VERDICTS=1 python -m pytest tests/rewards/test_verdicts.py`` rewrites the
fixture: only for a change meant to alter verdicts, named in its commit.
"""

from __future__ import annotations

import hashlib
import json
import os
import zlib
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from tests.families import PAPER_FAMILIES
from vgau_data.errors import StateError
from vgau_data.metrics.scoring import parse_output
from vgau_data.puzzles.base import FamilySpec, Illegal
from vgau_data.registry import FAMILIES
from vgau_data.rewards import RewardError, _entry, score
from vgau_data.seeding import instance_seed, rng_for

FIXTURE = Path(__file__).resolve().parents[1] / "data" / "rewards" / "verdicts.jsonl"
RECORD = os.environ.get("VGAU_RECORD_VERDICTS") == "1"
PER_BUCKET = 2
WALKS, MUTANTS, STATE_MUTANTS = 8, 24, 24
JUNK = "[]{}(),:;\"' \n<>/xA09-_"
REPLACEMENTS: tuple[Any, ...] = (True, 1.5, -1, 99, 10**30, "x", "", None, [], {}, [0, 0], "up")


def _digest(value: object) -> str:
    return hashlib.sha256(repr(value).encode()).hexdigest()[:8]


def _rng(state_json: str, salt: int) -> np.random.Generator:
    return np.random.default_rng([zlib.crc32(state_json.encode()), salt])


def _wrap(spec: FamilySpec, payload: str) -> str:
    return f"<{spec.answer_tag}>{payload}</{spec.answer_tag}>" if spec.answer_tag else f'{{"solution": {payload}}}'


def _walk(spec: FamilySpec, state: Any, rng: np.random.Generator) -> tuple[Any, ...]:
    steps = []
    for _ in range(int(rng.integers(1, 13))):
        candidates = list(spec.candidate_steps(state))
        if not candidates:
            break
        step = candidates[int(rng.integers(len(candidates)))]
        steps.append(step)
        after = spec.apply_step(state, step)
        state = state if isinstance(after, Illegal) else after
    return tuple(steps)


def _mutant(text: str, rng: np.random.Generator) -> str:
    for _ in range(int(rng.integers(1, 4))):
        i = int(rng.integers(len(text))) if text else 0
        junk = JUNK[int(rng.integers(len(JUNK)))]
        kind = int(rng.integers(9))
        if kind == 0:
            text = text[:i] + text[i + 1 :]
        elif kind == 1:
            text = text[:i] + text[i : i + 1] * 2 + text[i + 1 :]
        elif kind == 2:
            text = text[:i] + text[i + 1 : i + 2] + text[i : i + 1] + text[i + 2 :]
        elif kind == 3:
            text = text[:i] + junk + text[i + 1 :]
        elif kind == 4:
            text = text[:i] + junk + text[i:]
        elif kind == 5:
            text = text[:i]
        elif kind == 6:
            text = text.upper() if rng.random() < 0.5 else text.lower()
        elif kind == 7:
            digits = [k for k, char in enumerate(text) if char.isdigit()]
            if digits:
                k = digits[int(rng.integers(len(digits)))]
                text = text[:k] + str(int(rng.integers(10))) + text[k + 1 :]
        else:
            text = text.replace('"', "'")
    return text


def _hostile(spec: FamilySpec, oracle: str) -> list[object]:
    payload = _payload_of(spec, oracle)
    first = _first_item(payload)
    payloads = [
        "[" * 5000, "[" * 20 + "]" * 20, "[]", "null", "NaN", "[NaN]", "[Infinity, -Infinity]", "[1e400]",
        "[" + "9" * 30 + "]", '["\\ud800"]', "\x00[\x00]", "{}", '"up"', "[true, false, null]", "[[[0,0],[0,1]]]",
        '[{"car":"R","direction":"right"}]', '[{"from":[0,0],"direction":"UP"}]', '["A","B","C"]',
        "[" + ",".join([first] * 1500) + "]", "[" + ",".join([first] * 999) + "]", payload + payload,
        payload.replace(",", ",,"), payload[: len(payload) // 2], "```json\n" + payload + "\n```",
    ]  # fmt: skip
    texts: list[object] = [_wrap(spec, p) for p in payloads]
    texts += [None, 12, "", "   \n", "\u0130" * 1000 + oracle, "a" * 200_000, oracle + "\x00", "\ud800" + oracle,
              f"<{spec.answer_tag or 'solution'}>", oracle.replace("<", "< "), oracle * 3]  # fmt: skip
    return texts


def _payload_of(spec: FamilySpec, text: str) -> str:
    answer, _ = parse_output(spec, text)
    return spec.answer_payload(answer or ())


def _first_item(payload: str) -> str:
    items = json.loads(payload)
    if isinstance(items, dict):  # klotski's {"solution": [...]}
        items = next((value for value in items.values() if isinstance(value, list)), [])
    return json.dumps(items[0], separators=(",", ":")) if items else "0"


def answers(spec: FamilySpec, state: Any, state_json: str, oracles: list[str]) -> list[object]:
    """The answer set of one state (see the module docstring), the same on every run."""
    rng = _rng(state_json, 0)
    texts: list[object] = list(oracles)
    for oracle in oracles:
        steps, _ = parse_output(spec, oracle)
        steps = spec.answer_steps(state, tuple(steps or ()))  # path's letters: the walk that names them
        candidates = list(spec.candidate_steps(state))
        texts += [spec.format_answer(steps[: len(steps) // 2]), spec.format_answer(steps[1:])]
        texts += [spec.format_answer((*steps, step)) for step in candidates[:6]]
        texts += [spec.format_answer((step,)) for step in candidates[:6]]
    texts += [spec.format_answer(_walk(spec, state, rng)) for _ in range(WALKS)]
    texts += [_mutant(oracles[0], rng) for _ in range(MUTANTS)]
    mutant = texts[-1]
    texts += [f"Let me think step by step.\n{oracles[0]}\nThat is my answer.", f"```\n{oracles[0]}\n```"]
    texts += [f"{oracles[0]} or maybe {mutant}", f"{mutant}\n{oracles[0]}", oracles[0].replace('"', "'")]
    return texts + _hostile(spec, oracles[0])


def verdict(spec: FamilySpec, text: object, state_json: str, optimal_length: int) -> str:
    record = score(text, state_json, family=spec.name, optimal_length=optimal_length)
    assert score(text, state_json, optimal_length=optimal_length) == record  # the family found from the state
    parsed = parse_output(spec, text)
    return (f"{record.parsed:d}{record.feasible:d}{record.optimal:d} {record.n_moves} {record.first_illegal} "
            f"{record.error} {_digest(parsed)}")  # fmt: skip


def state_mutants(state_json: str) -> list[object]:
    """Broken and odd forms of a state JSON, the same on every run."""
    rng = _rng(state_json, 1)
    obj = json.loads(state_json)
    places: list[tuple[Any, ...]] = []  # the key path of every value inside the object

    def visit(node: Any, path: tuple[Any, ...]) -> None:
        for key in range(len(node)) if isinstance(node, list) else sorted(node):
            places.append((*path, key))
            if isinstance(node[key], (list, dict)):
                visit(node[key], (*path, key))

    visit(obj, ())
    texts: list[object] = [state_json[: len(state_json) // 2], state_json + "x", "[]", "null", "", b"{}", None]
    texts += [json.dumps({k: v for k, v in obj.items() if k != key}) for key in obj]
    texts.append(json.dumps({**obj, "extra": 1}))
    for _ in range(STATE_MUTANTS):
        copy = json.loads(state_json)
        *path, key = places[int(rng.integers(len(places)))]
        parent = copy
        for step in path:
            parent = parent[step]
        if rng.random() < 0.25 and isinstance(parent, list) and len(parent) > 1:
            i, j = rng.choice(len(parent), 2, replace=False).tolist()
            parent[i], parent[j] = parent[j], parent[i]
        else:
            parent[key] = REPLACEMENTS[int(rng.integers(len(REPLACEMENTS)))]
        texts.append(json.dumps(copy, separators=(",", ":"), sort_keys=bool(rng.random() < 0.5)))
    return texts


def parsed_state(spec: FamilySpec, text: object) -> str:
    """What ``from_json`` makes of ``text``, and which family the reward core finds for it with none named."""
    try:
        found = _entry(text, None).family.name if isinstance(text, str) else "-"  # type: ignore[arg-type]
    except (RewardError, StateError) as error:
        found = f"{type(error).__name__} {_digest(str(error))}"
    try:
        return f"{found} ok {_digest(spec.from_json(text))}"  # type: ignore[arg-type]
    except StateError as error:
        return f"{found} StateError {_digest(str(error))}"
    except Exception as error:  # noqa: BLE001 - recorded so that a fix shows up as a change
        return f"{found} raised {type(error).__name__}"


def _from_json_outcome(spec: FamilySpec, text: object) -> str:
    try:
        return f"parsed as {spec.from_json(text)!r:.200}"  # type: ignore[arg-type]
    except Exception as error:  # noqa: BLE001 - shown beside a changed outcome
        return f"{type(error).__name__}: {error}"


def _states(spec: FamilySpec) -> list[tuple[str, list[str], int]]:
    """(state JSON, oracle answer texts, optimum) of the recorded states: generated ones and one step into each."""
    rows = []
    for difficulty in spec.buckets:
        for index in range(PER_BUCKET):
            state = spec.generate(difficulty, rng_for(instance_seed(7, spec.name, difficulty, index)))
            solution = spec.solve(state)
            steps = spec.oracle_steps(state, solution.answer)
            rows.append((spec.to_json(state), [spec.format_answer(solution.answer), spec.format_answer(steps)],
                         solution.optimal_length))  # fmt: skip
            if index == 0:
                after = spec.apply_step(state, steps[0])
                rows.append((spec.to_json(after), [spec.format_answer(steps[1:])], len(steps) - 1))
    return rows


def _record() -> None:
    lines = []
    for spec in FAMILIES.values():
        for state_json, oracles, optimum in _states(spec):
            texts = answers(spec, spec.from_json(state_json), state_json, oracles)
            lines.append(json.dumps({
                "family": spec.name, "state": state_json, "oracles": oracles, "optimal_length": optimum,
                "verdicts": [verdict(spec, text, state_json, optimum) for text in texts],
                "states": [parsed_state(spec, text) for text in state_mutants(state_json)],
            }, ensure_ascii=True, separators=(",", ":")))  # fmt: skip
    FIXTURE.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _cases() -> list[dict[str, Any]]:
    if RECORD:
        _record()
    return [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


CASES = _cases()


def test_the_fixture_holds_every_family() -> None:
    assert set(PAPER_FAMILIES) <= {case["family"] for case in CASES} <= set(FAMILIES)
    assert sum(len(case["verdicts"]) for case in CASES) > 4000


@pytest.mark.parametrize("case", CASES, ids=lambda case: f"{case['family']}-{_digest(case['state'])}")
def test_every_verdict__is_the_recorded_one(case: dict[str, Any]) -> None:
    spec = FAMILIES[case["family"]]
    state_json = case["state"]
    texts = answers(spec, spec.from_json(state_json), state_json, case["oracles"])
    assert len(texts) == len(case["verdicts"])
    for text, recorded in zip(texts, case["verdicts"]):
        assert verdict(spec, text, state_json, case["optimal_length"]) == recorded, f"answer {text!r:.300}"
    for text, recorded in zip(state_mutants(state_json), case["states"], strict=True):
        assert parsed_state(spec, text) == recorded, f"state {text!r:.300}: {_from_json_outcome(spec, text)}"

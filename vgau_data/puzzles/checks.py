"""``check_family``: the contract every registered family honours, as one callable check.

The tests run it once per family, and a new family's author can run it while writing
one (``python -c "from vgau_data.puzzles.checks import check_family; ..."``). It
generates a few instances per bucket and checks what the rest of the package relies on:

- buckets are disjoint, ordered ranges; the length mix has a bucket's rows (``BUCKET_SIZES``)
  at lengths inside it; every generated state's true optimum lies in its bucket, a state
  generated for a slot has exactly the slot's optimum, the same seed gives the same state
  and an unknown difficulty is refused;
- states round-trip through their canonical JSON, and so does every state along the
  solution (records name the board each interactive step shows by it);
- the solver's answer replays feasibly at the optimal length, its trajectory ends in
  the goal, and the initial state is not already solved;
- the oracle's interactive steps (``oracle_steps``) replay as an optimal answer, and the
  fast ``replay`` agrees with stepping ``apply_step`` + ``is_goal`` (feasibility, reason
  code, first invalid step) on them, their prefixes, random walks, walks with a step
  appended and (where answer steps are environment steps) random answers. For path
  this walks the marker and checks its declared labels;
- answers round-trip through ``format_answer``/``parse_answer``, payloads through
  ``answer_payload``/``answer_from_payload``, steps through the per-turn format (also
  after reasoning text), and an episode's steps through ``format_answer``;
- the board renders to an RGB image of the declared size, the same bytes every time;
- both question styles exist and differ, an unknown style is refused, and no prompt
  of any protocol asks for a shortest or optimal solution.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from vgau_data.errors import VgauError
from vgau_data.puzzles import prompts
from vgau_data.puzzles.base import BUCKET_SIZES, DIFFICULTIES, FamilySpec, replay_steps
from vgau_data.seeding import instance_seed, rng_for


class FamilyCheckError(VgauError, AssertionError):
    """A family that breaks the contract; the message lists every failed check."""


def check_family(spec: FamilySpec, *, seed: int = 0, per_bucket: int = 2) -> None:
    """Run every contract check on ``spec``; raise ``FamilyCheckError`` listing the failures.

    ``per_bucket`` instances are generated per difficulty from ``seed``.

    Example:
        >>> from vgau_data.registry import get_family
        >>> check_family(get_family("maze"), per_bucket=1)
    """
    failures: list[str] = []

    def expect(ok: object, what: str) -> None:
        if not ok:
            failures.append(what)

    _check_buckets(spec, expect)
    for difficulty in spec.buckets:
        slot = spec.slot(difficulty, 0)
        if spec.bucket_of(slot.length) == difficulty:  # else the length_mix check above reports it
            state = spec.generate(difficulty, rng_for(instance_seed(seed, spec.name, difficulty, 0)), slot)
            solution = spec.solve(state)
            got = solution.optimal_length if solution else None
            expect(got == slot.length, f"{spec.name}/{difficulty}: generated for length {slot.length}, optimum is {got}")
        for index in range(per_bucket):
            where = f"{spec.name}/{difficulty}/{index}"
            state = spec.generate(difficulty, rng_for(instance_seed(seed, spec.name, difficulty, index)))
            again = spec.generate(difficulty, rng_for(instance_seed(seed, spec.name, difficulty, index)))
            expect(spec.to_json(again) == spec.to_json(state), f"{where}: the same seed gave another state")
            _check_instance(spec, state, where, np.random.default_rng([seed, index]), expect)
    try:
        spec.generate("extreme", np.random.default_rng(0))
    except ValueError:
        pass
    else:
        failures.append(f"{spec.name}: generate('extreme') did not raise ValueError")
    if failures:
        raise FamilyCheckError(f"{spec.name} breaks {len(failures)} check(s):\n- " + "\n- ".join(failures))


def _check_buckets(spec: FamilySpec, expect: Any) -> None:
    ranges = [spec.buckets[d] for d in DIFFICULTIES]
    expect(list(spec.buckets) == list(DIFFICULTIES), f"{spec.name}: buckets must be easy, medium, hard in order")
    expect(all(1 <= low <= high for low, high in ranges), f"{spec.name}: bucket ranges must be 1 <= low <= high")
    expect(all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])), f"{spec.name}: bucket ranges must rise, disjoint")
    expect(list(spec.length_mix) == list(DIFFICULTIES), f"{spec.name}: length_mix must cover easy, medium, hard")
    for difficulty, mix in spec.length_mix.items():
        low, high = spec.buckets.get(difficulty, (1, 0))
        expect(
            sum(mix.values()) == BUCKET_SIZES.get(difficulty) and all(low <= n <= high and k > 0 for n, k in mix.items()),
            f"{spec.name}: length_mix[{difficulty!r}] must hold {BUCKET_SIZES.get(difficulty)} rows at lengths {low}-{high}",
        )


def _check_instance(spec: FamilySpec, state: Any, where: str, rng: np.random.Generator, expect: Any) -> None:
    text = spec.to_json(state)
    expect(spec.from_json(text) == state, f"{where}: from_json(to_json(state)) != state")
    canonical = json.dumps(json.loads(text), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    expect(text == canonical, f"{where}: to_json is not canonical JSON")
    expect(not spec.is_goal(state), f"{where}: the generated state is already solved")

    solution = spec.solve(state)
    if solution is None:
        expect(False, f"{where}: solve found no solution")
        return
    answer = tuple(solution.answer)
    expect(spec.bucket_of(solution.optimal_length) is not None, f"{where}: optimum {solution.optimal_length} in no bucket")
    replayed = spec.replay(state, answer)
    expect(replayed.feasible and replayed.error is None, f"{where}: the solution does not replay: {replayed}")
    states = spec.trajectory(state, answer)
    expect(len(states) == solution.optimal_length, f"{where}: trajectory length != optimal_length")
    expect(states and spec.is_goal(states[-1]), f"{where}: the trajectory does not end in the goal")
    for k, step_state in enumerate(states):
        expect(spec.from_json(spec.to_json(step_state)) == step_state, f"{where}: state after step {k + 1} loses "
               "something in from_json(to_json(...))")  # fmt: skip

    randoms = [spec.random_answer(state, rng) for _ in range(5)]
    for candidate in (answer, *randoms):
        expect(spec.parse_answer(spec.format_answer(candidate)) == candidate, f"{where}: answer text round trip")
        payload = spec.answer_payload(candidate)
        json.loads(payload)
        expect(spec.answer_from_payload(payload) == candidate, f"{where}: payload round trip")

    try:
        steps = spec.oracle_steps(state, answer)
    except ValueError as error:
        expect(False, f"{where}: {error}")
    else:
        _check_steps(spec, state, (answer, solution.optimal_length), steps, randoms, where, rng, expect)

    image = spec.render(state)
    expect(image.mode == "RGB" and image.size == spec.geometry.size, f"{where}: render is not RGB {spec.geometry.size}")
    expect(spec.render(state).tobytes() == image.tobytes(), f"{where}: render is not deterministic")
    styles = {style: spec.question(state, style) for style in ("text_cot", "direct")}
    expect(styles["text_cot"] != styles["direct"], f"{where}: the two question styles are the same text")
    try:
        spec.question(state, "visual")  # type: ignore[arg-type]
    except ValueError:
        pass
    else:
        expect(False, f"{where}: question accepted the unknown style 'visual'")
    for text in _every_prompt(spec, state):
        expect(not _LEAKS.search(text), f"{where}: a prompt asks for a shortest solution: {text!r:.80}")


_LEAKS = re.compile(r"shortest|fewest|as few|minimal|minimum number|optimal", re.IGNORECASE)


def _every_prompt(spec: FamilySpec, state: Any) -> list[str]:
    """The text of every protocol's prompts for ``state`` (``puzzles/prompts.py``)."""
    return [
        prompts.text_cot(spec, state),
        prompts.direct(spec, state),
        prompts.with_aid(spec, state),
        prompts.with_aid(spec, state, drawn_by_model=True),
        prompts.with_solution_drawing(spec, state),
        prompts.with_solution_drawing(spec, state, drawn_by_model=False),
        prompts.aid_edit(spec, state),
        prompts.solution_edit(spec, state),
        *(prompts.vcot_intro(spec, state, images=images) for images in ("shown", "shown_annotated", "drawn")),
        prompts.step_request(spec, 1),
        prompts.step_edit(spec, 1, "the step"),
        prompts.refine_request(prompts.aid_edit(spec, state)),
        prompts.REMAINING_QUESTION,
    ]


def _check_steps(
    spec: FamilySpec,
    state: Any,
    solved: tuple[tuple[Any, ...], int],
    steps: tuple[Any, ...],
    randoms: list[tuple[Any, ...]],
    where: str,
    rng: np.random.Generator,
    expect: Any,
) -> None:
    """The oracle's interactive steps: per-turn text, their answer text, and fast == step-by-step replay."""
    answer, optimal_length = solved
    for step in steps:
        text = spec.format_step(step)
        expect(spec.parse_step(text) == step, f"{where}: per-turn step text round trip of {text!r:.60}")
        expect(spec.parse_step(f"Thinking it over.\n{text}") == step, f"{where}: a step after reasoning")
    expect(spec.parse_answer(spec.format_answer(steps)) == steps, f"{where}: an episode's answer text round trip")
    played = spec.replay(state, steps)
    expect(played.feasible and played.length == optimal_length, f"{where}: the oracle's steps replay as {played}")
    walks = [tuple(spec.random_step(state, rng) for _ in range(int(rng.integers(1, 12)))) for _ in range(4)]
    cases = [steps, steps[: len(steps) // 2], *walks, (*steps, spec.random_step(state, rng))]
    if steps == answer:  # the answer's steps are environment steps: random answers are walks too
        cases += randoms
    for case in cases:
        if any(step is None for step in case):
            continue
        fast, slow = spec.replay(state, case), replay_steps(state, case, spec.apply_step, spec.is_goal)
        expect(fast == slow, f"{where}: replay {fast} != step-by-step {slow} on {case!r:.80}")

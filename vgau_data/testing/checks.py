"""``check_family``: the contract every registered family honours, as one callable check.

The tests run it once per registered family, and a new family's author runs it while
writing one (``python -c "from vgau_data.testing import check_family; ..."``). It reads
every field of ``FamilySpec`` (a test proves it) and generates a few instances per
bucket. What it checks:

- the buckets and the length mix (disjoint ordered ranges; ``bucket_of`` is None exactly
  in the gaps; each bucket's rows at lengths inside it), the name and the traits;
- generation: a state's true optimum lies in its bucket and equals its slot's, the same
  seed gives the same state, an unknown difficulty is refused, the state is not solved;
- states round-trip through their canonical JSON, along the solution too; ``from_json``
  refuses impossible boards, each rule every observed board keeps broken once (a row one
  cell short, an unknown character, ``-1``, a field dropped, a tile twice: ``impossible``);
- the solver's answer replays feasibly at the optimum, its trajectory ends in the goal,
  and the oracle's interactive steps replay as an optimal answer;
- ``replay`` agrees with stepping ``apply_step`` + ``is_goal`` on prefixes, random walks
  and random answers, and on steps built from the rules (``probes``): off every edge,
  into walls and other pieces, unknown words; every reason code is in ``ILLEGAL_CODES``
  and ``first_invalid_step`` is the illegal step's position; a legal step changes the
  state and keeps it valid; some step off the board is ``out_of_bounds``;
- ``candidate_steps`` (``step_checks``): stable, each legal or carrying a step's reason code,
  read back through the per-step format, and every legal step of the family's step
  vocabulary leads where a candidate leads (or to a board drawn the same), brute-forced
  from each instance's start, the middle of its solution and the palette;
- ``unique_length``: set exactly when no feasible answer is longer than the optimum;
- a step's JSON in ``<STEP_JSON>`` is a list or an object, never a bare string or number;
- answers, payloads and steps round-trip through their texts (``answer_tag`` around the
  payload); the parsers read hostile texts, junk cut from real answers and non-text
  only into ``AnswerError`` with its three codes, in bounded time, and refuse answers
  over ``MAX_ANSWER_CHARS`` characters or ``MAX_ANSWER_STEPS`` steps (``texts``);
- different states draw different boards (a renderer that drops the tiles' numbers does
  not: ``boards``);
- the board renders as RGB of the declared size, the same bytes every time, and its
  oracle aid (``look``) has grid lines on the cell boundaries as ``aid`` says and the ``(r,c)``
  labels exactly on ``aid.labelled_cells``;
- prompts: both question styles exist, differ and show the answer format; an unknown
  style is refused; no prompt of any protocol asks for a shortest solution;
- each optional capability the family declares (``capability_checks``): fidelity decodes
  its own boards and every instance's aid to its own labels (so aid labels over the pieces fail) and perturbs by exactly k cells; the drawn
  solution's red route reads back as a feasible optimal answer; the authors' record
  format round-trips our instances; structure statistics measure every instance.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from vgau_data.answers import STEP_TAG, last_tagged
from vgau_data.errors import StateError, VgauError
from vgau_data.puzzles import prompts
from vgau_data.puzzles.base import BUCKET_SIZES, DIFFICULTIES, AnswerError, FamilySpec, canonical_json, replay_steps
from vgau_data.rendering import AidStyle
from vgau_data.seeding import instance_seed, rng_for
from vgau_data.testing.boards import check_boards
from vgau_data.testing.capability_checks import check_capabilities
from vgau_data.testing.impossible import check_impossible_states
from vgau_data.testing.look import check_look
from vgau_data.testing.probes import ProbeStart, detour, probe_pool, probe_steps, step_variants, words_of
from vgau_data.testing.step_checks import check_candidate_steps
from vgau_data.testing.texts import check_texts

_NAME = re.compile(r"[a-z][a-z0-9_]*")
_LEAKS = re.compile(r"shortest|fewest|as few|minimal|minimum number|optimal", re.IGNORECASE)
PROBE_STARTS = 6
"""States along each solution that steps are probed from (evenly spaced, the first and last included)."""


class FamilyCheckError(VgauError, AssertionError):
    """A family that breaks the contract; the message lists every failed check."""


@dataclass
class Instance:
    """One generated instance and what the checks learnt of it."""

    where: str
    state: Any
    answer: tuple[Any, ...]
    optimal_length: int
    steps: tuple[Any, ...]
    trajectory: list[Any] = field(default_factory=list)
    randoms: list[tuple[Any, ...]] = field(default_factory=list)
    pool: list[Any] = field(default_factory=list)
    """The probe steps built from the instance's own steps (``probes.probe_pool``)."""
    legal_at_start: list[tuple[Any, Any]] = field(default_factory=list)
    """The legal probes from the instance's state, with the state after each."""


def check_family(spec: FamilySpec, *, seed: int = 0, per_bucket: int = 2) -> None:
    """Run every contract check on ``spec``; raise ``FamilyCheckError`` listing the failures.

    ``per_bucket`` instances are generated per difficulty from ``seed``, row ``i`` for the
    length ``spec.slot(difficulty, i)`` gives it, as a build would.

    Example:
        >>> from vgau_data.registry import get_family
        >>> check_family(get_family("maze"), per_bucket=1)
    """
    failures: list[str] = []

    def expect(ok: object, what: str) -> None:
        if not ok:
            failures.append(what)

    def guarded(what: str, check: Callable[..., Any], *args: Any) -> Any:
        """One check; if the family raises in it, that is a failure naming what it raised, and the rest still run."""
        try:
            return check(*args)
        except Exception as error:  # noqa: BLE001 - what the family raises is the finding
            failures.append(f"{what} raised {type(error).__name__}: {error!s:.300}")
            return None

    guarded(f"{spec.name}: the spec's fields", _check_spec, spec, expect)
    instances: list[Instance] = []
    codes: set[str] = set()
    for difficulty in spec.buckets:
        for index in range(per_bucket):
            where = f"{spec.name}/{difficulty}/{index}"
            rng = np.random.default_rng([seed, index])
            instance = guarded(f"{where}: checking the instance", _generated, spec, difficulty, index, seed, rng, expect)
            if instance is not None:
                instances.append(instance)
                guarded(f"{where}: probing steps", _probe, spec, instance, np.random.default_rng([seed, index, 1]), expect, codes)
    guarded(f"{spec.name}: generating without a slot", _check_unslotted, spec, seed, expect)
    if instances:
        guarded(f"{spec.name}: probing from the palette", _probe_palette, spec, instances, np.random.default_rng([seed, 2]),
                expect, codes)  # fmt: skip
        expect(
            "out_of_bounds" in codes,
            f"{spec.name}: no step off the board was out_of_bounds (codes met: {sorted(codes)}); a step "
            "leaving the board must be refused as out_of_bounds, never clamped to the edge",
        )
        guarded(f"{spec.name}: unique_length", _check_unique_length, spec, instances[0], expect)
        guarded(f"{spec.name}: the parsers", check_texts, spec, instances, expect)
        guarded(f"{spec.name}: the candidate steps", check_candidate_steps, spec, _step_states(spec, instances), expect)
        guarded(f"{spec.name}: the oracle aid", check_look, spec, instances[0].state, instances[0].answer, expect)
        states = _observed_states(spec, instances)
        guarded(f"{spec.name}: impossible boards", check_impossible_states, spec, states, expect)
        guarded(f"{spec.name}: boards telling states apart", check_boards, spec, states, expect)
        guarded(f"{spec.name}: the capabilities", check_capabilities, spec, instances, expect)
    if failures:
        raise FamilyCheckError(f"{spec.name} breaks {len(failures)} check(s):\n- " + "\n- ".join(failures))


def _generated(
    spec: FamilySpec, difficulty: str, index: int, seed: int, rng: np.random.Generator, expect: Callable[[object, str], None]
) -> Instance | None:
    """Row ``index`` of a bucket, generated for its slot as a build would, and checked."""
    where = f"{spec.name}/{difficulty}/{index}"
    slot = spec.slot(difficulty, index)
    if spec.bucket_of(slot.length) != difficulty:  # the length_mix check reports it
        return None
    state = spec.generate(difficulty, rng_for(instance_seed(seed, spec.name, difficulty, index)), slot)
    if index == 0:
        again = spec.generate(difficulty, rng_for(instance_seed(seed, spec.name, difficulty, index)), slot)
        expect(spec.to_json(again) == spec.to_json(state), f"{where}: the same seed gave another state")
    instance = _check_instance(spec, state, where, rng, expect)
    if instance is not None:
        expect(instance.optimal_length == slot.length, f"{where}: generated for length {slot.length}, "
               f"optimum is {instance.optimal_length}")  # fmt: skip
    return instance


def _check_unslotted(spec: FamilySpec, seed: int, expect: Callable[[object, str], None]) -> None:
    """Without a slot, ``generate`` draws one from ``length_mix``; an unknown difficulty is refused."""
    drawn = spec.generate(DIFFICULTIES[0], np.random.default_rng(seed))
    solution = spec.solve(drawn)
    got = solution.optimal_length if solution else None
    expect(spec.bucket_of(got or 0) == DIFFICULTIES[0], f"{spec.name}: generated without a slot, the optimum {got} "
           f"is outside {DIFFICULTIES[0]}")  # fmt: skip
    try:
        spec.generate("extreme", np.random.default_rng(0))
    except ValueError:
        pass
    else:
        expect(False, f"{spec.name}: generate('extreme') did not raise ValueError")


def _check_spec(spec: FamilySpec, expect: Callable[[object, str], None]) -> None:
    """The name, the buckets, the length mix and the traits, before any instance."""
    name = spec.name
    expect(_NAME.fullmatch(name), f"{name!r}: a family name is a lowercase identifier (config name, id prefix)")
    ranges = [spec.buckets[d] for d in DIFFICULTIES if d in spec.buckets]
    expect(list(spec.buckets) == list(DIFFICULTIES), f"{name}: buckets must be easy, medium, hard in order")
    expect(all(1 <= low <= high for low, high in ranges), f"{name}: bucket ranges must be 1 <= low <= high")
    expect(all(a[1] < b[0] for a, b in itertools.pairwise(ranges)), f"{name}: bucket ranges must rise, disjoint")
    top = max((high for _, high in ranges), default=0)
    for n in range(top + 3):
        holders = [d for d, (low, high) in spec.buckets.items() if low <= n <= high]
        expect(spec.bucket_of(n) == (holders[0] if holders else None), f"{name}: bucket_of({n}) is {spec.bucket_of(n)!r}")
    expect(list(spec.length_mix) == list(DIFFICULTIES), f"{name}: length_mix must cover easy, medium, hard")
    for difficulty, mix in spec.length_mix.items():
        low, high = spec.buckets.get(difficulty, (1, 0))
        expect(
            sum(mix.values()) == BUCKET_SIZES.get(difficulty) and all(low <= n <= high and k > 0 for n, k in mix.items()),
            f"{name}: length_mix[{difficulty!r}] must hold {BUCKET_SIZES.get(difficulty)} rows at lengths {low}-{high}",
        )
    weight = spec.generation_weight
    expect(
        isinstance(weight, int | float) and math.isfinite(weight) and weight > 0,
        f"{name}: generation_weight must be a positive number, got {weight!r}",
    )
    expect(isinstance(spec.unique_length, bool) and isinstance(spec.aid, AidStyle), f"{name}: traits are booleans and an AidStyle")
    expect(spec.answer_tag is None or (isinstance(spec.answer_tag, str) and spec.answer_tag.strip()), f"{name}: answer_tag")


def _check_instance(
    spec: FamilySpec, state: Any, where: str, rng: np.random.Generator, expect: Callable[[object, str], None]
) -> Instance | None:
    text = spec.to_json(state)
    expect(spec.from_json(text) == state, f"{where}: from_json(to_json(state)) != state")
    expect(text == _canonical(text), f"{where}: to_json is not canonical JSON")
    expect(not spec.is_goal(state), f"{where}: the generated state is already solved")

    solution = spec.solve(state)
    if solution is None:
        expect(False, f"{where}: solve found no solution")
        return None
    answer = tuple(solution.answer)
    expect(spec.bucket_of(solution.optimal_length) is not None, f"{where}: optimum {solution.optimal_length} in no bucket")
    replayed = spec.replay(state, answer)
    expect(
        replayed.feasible and replayed.error is None and replayed.length == solution.optimal_length,
        f"{where}: the solution does not replay at its optimum {solution.optimal_length}: {replayed}",
    )
    states = spec.trajectory(state, answer)
    expect(len(states) == solution.optimal_length, f"{where}: trajectory length != optimal_length")
    expect(states and spec.is_goal(states[-1]), f"{where}: the trajectory does not end in the goal")
    for k, step_state in enumerate(states):
        expect(spec.from_json(spec.to_json(step_state)) == step_state, f"{where}: state after step {k + 1} loses "
               "something in from_json(to_json(...))")  # fmt: skip
    randoms = [spec.random_answer(state, rng) for _ in range(5)]
    same_seed = [spec.random_answer(state, np.random.default_rng(3)) for _ in range(2)]
    expect(same_seed[0] == same_seed[1], f"{where}: random_answer gave two answers for one seed (it must draw from rng)")
    for candidate in (answer, *randoms):
        text, payload, tag = spec.format_answer(candidate), spec.answer_payload(candidate), spec.answer_tag
        expect(tag is None or f"<{tag}>".lower() in text.lower(), f"{where}: format_answer writes no <{tag}> tag")
        expect(tag is not None or text == payload, f"{where}: without an answer_tag the payload is the answer text")
        expect(_read(spec.parse_answer, text) == candidate, f"{where}: answer text round trip of {text!r:.60}")
        expect(_canonical(payload) is not None, f"{where}: answer_payload is not JSON: {payload!r:.60}")
        expect(_read(spec.answer_from_payload, payload) == candidate, f"{where}: payload round trip of {payload!r:.60}")
    try:
        steps = spec.oracle_steps(state, answer)
    except ValueError as error:
        expect(False, f"{where}: {error}")
        return None
    instance = Instance(where, state, answer, solution.optimal_length, tuple(steps), states, randoms)
    _check_steps(spec, instance, rng, expect)
    _check_render_and_prompts(spec, state, where, expect)
    return instance


def _read(parse: Callable[[str], Any], text: str) -> Any:
    """``parse(text)``, or the ``AnswerError`` it raised (equal to no answer)."""
    try:
        return parse(text)
    except AnswerError as error:
        return error


def _bare_step_json(text: str) -> bool:
    """``text`` holds ``<STEP_JSON>`` around a JSON string or number, which no step reader reads back."""
    payload = last_tagged(text, STEP_TAG) if isinstance(text, str) else None
    try:
        return payload is not None and not isinstance(json.loads(payload), list | dict)
    except ValueError:
        return False


def _canonical(text: str) -> str | None:
    """``text`` re-encoded as canonical JSON, None if it is not JSON."""
    try:
        return canonical_json(json.loads(text))
    except ValueError:
        return None


def _check_steps(spec: FamilySpec, instance: Instance, rng: np.random.Generator, expect: Callable[[object, str], None]) -> None:
    """The oracle's interactive steps: per-turn text, their answer text, and fast == step-by-step replay."""
    state, steps, where = instance.state, instance.steps, instance.where
    texts = [spec.format_step(step) for step in steps]
    bare = next((text for text in texts if _bare_step_json(text)), None)
    expect(bare is None, f"{where}: format_step writes {bare!r:.60}: a step's JSON must be a list or an object, not a "
           'bare string or number (the step readers read only [...] or {...}; docs/contract/answers.md): ["up"]')
    for step, text in zip(steps, texts) if bare is None else ():
        expect(_read(spec.parse_step, text) == step, f"{where}: per-turn step text round trip of {text!r:.60}")
        expect(_read(spec.parse_step, f"Thinking it over.\n{text}") == step, f"{where}: a step after reasoning")
    expect(_read(spec.parse_answer, spec.format_answer(steps)) == steps, f"{where}: an episode's answer text round trip")
    played = spec.replay(state, steps)
    expect(
        played.feasible and played.length == instance.optimal_length, f"{where}: the oracle's steps replay as {played}"
    )
    walks = [tuple(spec.random_step(state, rng) for _ in range(int(rng.integers(1, 12)))) for _ in range(4)]
    cases = [steps, steps[: len(steps) // 2], *walks, (*steps, spec.random_step(state, rng))]
    if steps == instance.answer:  # the answer's steps are environment steps: random answers are walks too
        cases += instance.randoms
    for case in cases:
        if any(step is None for step in case):
            continue
        fast, slow = spec.replay(state, case), replay_steps(state, case, spec.apply_step, spec.is_goal)
        expect(fast == slow, f"{where}: replay {fast} != step-by-step {slow} on {case!r:.80}")


def _check_render_and_prompts(spec: FamilySpec, state: Any, where: str, expect: Callable[[object, str], None]) -> None:
    image = spec.render(state)
    expect(image.mode == "RGB" and image.size == spec.geometry.size, f"{where}: render is not RGB {spec.geometry.size}")
    expect(spec.render(state).tobytes() == image.tobytes(), f"{where}: render is not deterministic")
    styles = {style: spec.question(state, style) for style in ("text_cot", "direct")}
    expect(styles["text_cot"] != styles["direct"], f"{where}: the two question styles are the same text")
    opening = answer_opening(spec)
    for style, question in styles.items():
        expect(opening in _squeezed(question), f"{where}: the {style} question does not show the answer format {opening}")
    try:
        spec.question(state, "visual")  # type: ignore[arg-type]
    except ValueError:
        pass
    else:
        expect(False, f"{where}: question accepted the unknown style 'visual'")
    for text in _every_prompt(spec, state):
        expect(not _LEAKS.search(text), f"{where}: a prompt asks for a shortest solution: {text!r:.80}")


def _squeezed(text: str) -> str:
    return "".join(text.split()).lower()


def answer_opening(spec: FamilySpec) -> str:
    """What an answer text starts with before its steps, squeezed (``<answer_json>[``, ``{"solution":[``)."""
    empty = _squeezed(spec.format_answer(()))
    cut = empty.index("[]") + 1 if "[]" in empty else empty.index("></") + 1
    return empty[:cut]


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


def _probe(
    spec: FamilySpec, instance: Instance, rng: np.random.Generator, expect: Callable[[object, str], None], codes: set[str]
) -> None:
    """Steps built from the rules, from states along the solution's episode; keeps the pool and the first start's legal steps."""
    steps = instance.steps
    states = [instance.state]
    for step in steps:  # the episode's states (for path, the marker's walk)
        states.append(spec.apply_step(states[-1], step))
    positions = sorted({round(i * len(steps) / (PROBE_STARTS - 1)) for i in range(PROBE_STARTS)})
    starts = [ProbeStart(states[k], steps[:k]) for k in positions]
    seen = [*steps, *(spec.random_step(instance.state, rng) for _ in range(12))]
    instance.pool = probe_pool(spec, [step for step in seen if step is not None])
    instance.legal_at_start = probe_steps(spec, instance.state, starts, instance.pool, rng, instance.where, expect, codes)[0]


def _probe_palette(
    spec: FamilySpec, instances: list[Instance], rng: np.random.Generator, expect: Callable[[object, str], None], codes: set[str]
) -> None:
    """The same probes from the states fidelity draws its palette from that are puzzles (their JSON reads
    back): they put pieces on the border, where generated boards often keep a wall."""
    if spec.fidelity is None:
        return
    pool = probe_pool(spec, [step for instance in instances for step in instance.steps])
    starts = [ProbeStart(state, None) for state in spec.fidelity.palette_states() if _is_puzzle(spec, state)]
    probe_steps(spec, None, starts, pool, rng, f"{spec.name}/palette", expect, codes)


def _is_puzzle(spec: FamilySpec, state: Any) -> bool:
    try:
        return spec.from_json(spec.to_json(state)) == state
    except StateError:
        return False


def _step_states(spec: FamilySpec, instances: list[Instance]) -> list[Any]:
    """Where the candidate steps are brute-forced: each instance's start and the middle of its
    solution, and the palette states that are puzzles (pieces on the border)."""
    states = []
    for instance in instances:
        states += [instance.state, *instance.trajectory[len(instance.trajectory) // 2 :][:1]]
    if spec.fidelity is not None:
        states += [state for state in spec.fidelity.palette_states() if _is_puzzle(spec, state)]
    return states


def _observed_states(spec: FamilySpec, instances: list[Instance]) -> list[Any]:
    """Every state the checks met that is a puzzle: each instance's start and trajectory, and the palette's puzzles."""
    states = [state for instance in instances for state in (instance.state, *instance.trajectory)]
    if spec.fidelity is not None:
        states += [state for state in spec.fidelity.palette_states() if _is_puzzle(spec, state)]
    return states


def _check_unique_length(spec: FamilySpec, instance: Instance, expect: Callable[[object, str], None]) -> None:
    """``unique_length`` is set exactly when no feasible answer is longer than the optimum.

    Longer candidates: the solution after a detour (a legal step and one that undoes it,
    where the answer's steps are the episode's), and the solution with one more element,
    a variant of its first or last, inserted anywhere.
    """
    state, answer = instance.state, instance.answer
    candidates = []
    if instance.steps == answer:
        there_and_back = detour(spec, state, instance.legal_at_start, instance.pool)
        if there_and_back is not None:
            candidates.append((*there_and_back, *answer))
    words = words_of(answer)
    for element in dict.fromkeys(answer[:1] + answer[-1:]):
        for variant in step_variants(element, spec.geometry, words):
            candidates += [(*answer[:k], variant, *answer[k:]) for k in range(len(answer) + 1)]
    lengths = {replay.length for replay in (spec.replay(state, c) for c in candidates) if replay.feasible}
    longer = sorted(n for n in lengths if n != instance.optimal_length)
    if spec.unique_length:
        expect(not longer, f"{instance.where}: unique_length is set but feasible answers of length {longer} replay "
               f"(the optimum is {instance.optimal_length})")  # fmt: skip
    else:
        expect(longer, f"{instance.where}: no feasible answer longer than the optimum was found (not even a detour); "
               "if every feasible answer has the optimal length, set unique_length=True")  # fmt: skip

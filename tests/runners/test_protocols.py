"""Protocol episodes and the lock-step driver, with scripted policies."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from vgau_data.metrics.scoring import score_answer
from vgau_data.puzzles.base import DELTAS, DIRECTIONS, Illegal
from vgau_data.registry import FAMILIES, get_family
from vgau_data.runners.backends.base import Completion, GenParams
from vgau_data.runners.backends.scripted import ScriptedBackend
from vgau_data.runners.driver import drive
from vgau_data.runners.messages import Conversation, ImagePart
from vgau_data.runners.policies import make_policy
from vgau_data.runners.protocols import Episode, ProtocolConfig, ProtocolError, make_episode

GEN = GenParams(max_new_tokens=64)
ALL_CONFIGS = [
    ProtocolConfig(name="direct"),
    ProtocolConfig(name="text_cot"),
    ProtocolConfig(name="oracle_gta"),
    ProtocolConfig(name="oracle_vcot"),
    ProtocolConfig(name="oracle_vcot", budget="fixed"),
    ProtocolConfig(name="oracle_aug_vcot"),
    ProtocolConfig(name="oracle_aug_vcot", budget="fixed"),
]


class CountingBackend(ScriptedBackend):
    """A scripted backend that remembers how many conversations each call carried."""

    def __init__(self, fn: Callable[[Conversation], str | Completion]) -> None:
        super().__init__(fn, policy="counting")
        self.batch_sizes: list[int] = []

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]:
        self.batch_sizes.append(len(conversations))
        return super().chat(conversations, gen)


def _run(instances, config: ProtocolConfig, fn, batch_size: int = 16) -> list[Episode]:
    episodes = [make_episode(instance, config, 0) for instance in instances]
    drive(ScriptedBackend(fn, policy="test"), episodes, GEN, batch_size=batch_size)
    return episodes


@pytest.mark.parametrize("config", ALL_CONFIGS, ids=lambda c: c.variant)
def test_oracle__scores_100_percent_optimal_under_every_protocol_and_budget(config: ProtocolConfig, instances) -> None:
    episodes = _run(instances, config, make_policy("oracle", instances))
    verdicts = [score_answer(e.outcome().output, e.instance.reference) for e in episodes]
    assert {v.task for v in verdicts} == set(FAMILIES)
    assert all(v.optimal for v in verdicts), [(v.id, v.error) for v in verdicts if not v.optimal]
    if config.interactive:
        assert {e.outcome().end for e in episodes} == {"goal"}
        assert all(e.outcome().steps == e.instance.optimal_length for e in episodes)


@pytest.mark.parametrize("name", ["oracle_vcot", "oracle_aug_vcot"])
def test_stop_early__scores_infeasible_under_the_fixed_budget(name: str, instances) -> None:
    config = ProtocolConfig(name=name, budget="fixed")
    episodes = _run(instances, config, make_policy("oracle-stop-early", instances))
    for episode in episodes:
        verdict = score_answer(episode.outcome().output, episode.instance.reference)
        if episode.instance.optimal_length == 1:
            assert episode.outcome().end == "goal" and verdict.optimal
            continue
        assert episode.outcome().end == "stopped" and episode.outcome().steps == 1
        if episode.instance.task != "path":
            assert not verdict.feasible
        # Path scores the letters walked over: stopping early is infeasible only if a letter is still missing.
    assert any(e.instance.optimal_length > 1 and e.instance.task != "path" for e in episodes)


def _back_and_forth(instance) -> tuple[str, str]:
    """A legal maze move from the start and the move straight back."""
    state = instance.initial_state()
    for direction in DIRECTIONS:
        if not isinstance(instance.family.apply_step(state, direction), Illegal):
            dr, dc = DELTAS[direction]
            back = next(d for d in DIRECTIONS if DELTAS[d] == (-dr, -dc))
            return direction, back
    raise AssertionError("no legal move")


@pytest.mark.parametrize(("budget", "end"), [("optimal", "budget"), ("fixed", "cap")])
def test_budget__a_walker_that_never_arrives_stops_at_the_budget(budget: str, end: str, instances) -> None:
    instance = next(i for i in instances if i.task == "maze" and i.optimal_length >= 3)
    there, back = _back_and_forth(instance)
    family = instance.family

    def shuttle(conversation: Conversation) -> str:
        return family.format_steps([there if conversation.n_assistant_turns % 2 == 0 else back])

    config = ProtocolConfig(name="oracle_vcot", budget=budget)  # type: ignore[arg-type]
    (episode,) = _run([instance], config, shuttle)
    expected_steps = instance.optimal_length if budget == "optimal" else 2 * instance.optimal_length + 4
    assert (episode.outcome().end, episode.outcome().steps) == (end, expected_steps)
    assert len(episode.outcome().turns) == expected_steps
    assert not score_answer(episode.outcome().output, instance.reference).feasible


def test_interactive__unreadable_or_multi_step_replies_end_the_episode(instances) -> None:
    maze = next(i for i in instances if i.task == "maze" and i.optimal_length >= 2)
    config = ProtocolConfig(name="oracle_vcot")
    (silent,) = _run([maze], config, lambda conv: "I am not sure.")
    assert silent.outcome().end == "unparseable" and silent.outcome().turns[0].parse_error == "no_answer"
    silent_verdict = score_answer(silent.outcome().output, maze.reference)
    assert (silent.outcome().output, silent_verdict.parsed, silent_verdict.error) == ("", False, "no_answer")
    steps = maze.family.oracle_steps(maze.initial_state())
    (greedy,) = _run([maze], config, lambda conv: maze.family.format_steps(steps[:2]))
    assert greedy.outcome().end == "unparseable" and greedy.outcome().turns[0].parse_error == "bad_format"
    assert greedy.outcome().steps == 0

    def one_good_step(conversation: Conversation) -> str:
        return maze.family.format_steps(steps[:1]) if conversation.n_assistant_turns == 0 else "lost"

    (partial,) = _run([maze], config, one_good_step)
    verdict = score_answer(partial.outcome().output, maze.reference)
    assert (partial.outcome().end, partial.outcome().steps) == ("unparseable", 1)
    assert (verdict.parsed, verdict.feasible, verdict.error, verdict.length) == (True, False, "not_solved", 1)


def test_interactive__an_illegal_step_is_kept_in_the_answer_so_replay_names_it(instances) -> None:
    maze, blocked = next(
        (i, d)
        for i in instances
        if i.task == "maze"
        for d in DIRECTIONS
        if isinstance(i.family.apply_step(i.initial_state(), d), Illegal)
    )
    state = maze.initial_state()
    code = maze.family.apply_step(state, blocked).code
    (episode,) = _run([maze], ProtocolConfig(name="oracle_vcot"), lambda conv: maze.family.format_steps([blocked]))
    assert episode.outcome().end == "illegal"
    verdict = score_answer(episode.outcome().output, maze.reference)
    assert (verdict.parsed, verdict.feasible, verdict.error, verdict.first_invalid_step) == (True, False, code, 0)


def test_backend_error__ends_the_episode_without_an_output(instances) -> None:
    (episode,) = _run(instances[:1], ProtocolConfig(name="oracle_vcot"), lambda conv: Completion(error="HTTP 503"))
    outcome = episode.outcome()
    assert (outcome.output, outcome.end, outcome.error) == (None, "backend_error", "HTTP 503")


def test_lock_step__one_call_per_turn_for_all_live_episodes(instances) -> None:
    chosen = [i for i in instances if i.task in ("maze", "sokoban")]
    lengths = [i.optimal_length for i in chosen]
    backend = CountingBackend(make_policy("oracle", chosen))
    episodes = [make_episode(i, ProtocolConfig(name="oracle_vcot"), 0) for i in chosen]
    stats = drive(backend, episodes, GEN, batch_size=16)
    assert stats.calls == max(lengths) == len(backend.batch_sizes)
    assert backend.batch_sizes == [sum(length > turn for length in lengths) for turn in range(max(lengths))]
    assert stats.turns == sum(lengths) and stats.episodes == len(chosen)


def test_lock_step__finished_episodes_make_room_for_pending_ones(instances) -> None:
    chosen = [i for i in instances if i.task in ("maze", "sokoban")]
    backend = CountingBackend(make_policy("oracle", chosen))
    episodes = [make_episode(i, ProtocolConfig(name="oracle_vcot"), 0) for i in chosen]
    stats = drive(backend, episodes, GEN, batch_size=2)
    assert max(backend.batch_sizes) == 2
    assert stats.turns == sum(i.optimal_length for i in chosen)
    assert all(e.done for e in episodes)
    single = CountingBackend(make_policy("oracle", chosen))
    drive(single, [make_episode(i, ProtocolConfig(name="oracle_vcot"), 0) for i in chosen], GEN, batch_size=1)
    assert len(single.batch_sizes) == stats.turns


def _images(conversation: Conversation) -> list:
    return [p.image for m in conversation.messages for p in m.parts if isinstance(p, ImagePart)]


def test_prompts__what_each_protocol_shows_first(instances) -> None:
    maze = next(i for i in instances if i.task == "maze")
    direct = make_episode(maze, ProtocolConfig(name="direct"), 0).conversation()
    gta = make_episode(maze, ProtocolConfig(name="oracle_gta"), 0).conversation()
    vcot = make_episode(maze, ProtocolConfig(name="oracle_vcot"), 0).conversation()
    aug = make_episode(maze, ProtocolConfig(name="oracle_aug_vcot", budget="fixed"), 0).conversation()
    assert [len(_images(c)) for c in (direct, gta, vcot, aug)] == [1, 2, 1, 2]
    assert _images(gta)[1].tobytes() == maze.aid().tobytes()
    assert maze.family.question(maze.initial_state(), "direct") in direct.messages[0].text
    assert f"at most {maze.optimal_length} steps" in vcot.messages[0].text
    assert "<remaining>" in aug.messages[0].text and f"at most {maze.optimal_length}" not in aug.messages[0].text
    assert get_family("maze").step_example in vcot.messages[0].text


def test_prompts__aug_vcot_shows_annotated_boards_of_the_stored_solution(instances, dataset_dir) -> None:
    from datasets import load_dataset

    maze = next(i for i in instances if i.task == "maze" and i.optimal_length >= 3)
    row = next(r for r in load_dataset(str(dataset_dir), "maze", split="test") if r["id"] == maze.id)
    sent: list = []

    def oracle_watching(conversation: Conversation) -> str:
        if conversation.n_assistant_turns:
            sent.append(_images(conversation)[-1])
        return policy(conversation)

    policy = make_policy("oracle", [maze])
    _run([maze], ProtocolConfig(name="oracle_aug_vcot"), oracle_watching)
    # The maze path is unique, so the oracle walks the stored solution; the goal board is never sent.
    expected = row["oracle_aug_states"][: maze.optimal_length - 1]
    assert [image.tobytes() for image in sent] == [image.convert("RGB").tobytes() for image in expected]


@pytest.mark.parametrize("family", list(FAMILIES))
def test_step_examples__parse_as_exactly_one_step(family: str) -> None:
    spec = FAMILIES[family]
    assert len(spec.parse_steps(get_family(family).step_example)) == 1


def test_protocol_config__checks_and_names_variants() -> None:
    assert ProtocolConfig(name="oracle_aug_vcot", budget="fixed", history=2).variant == "oracle_aug_vcot_fixed_last2"
    assert ProtocolConfig(name="direct").variant == "direct"
    assert ProtocolConfig(name="oracle_vcot", budget="fixed").step_budget(5) == 14
    with pytest.raises(ProtocolError, match="unknown protocol"):
        ProtocolConfig(name="self_vcot")
    with pytest.raises(ProtocolError, match="interactive"):
        ProtocolConfig(name="direct", budget="fixed")
    with pytest.raises(ProtocolError, match="history"):
        ProtocolConfig(name="oracle_vcot", history=0)

"""Protocol episodes and the lock-step driver, with scripted policies (path first)."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence

import pytest

from tests.families import SHIPPED, plays
from vgau_data.metrics.scoring import score_answer
from vgau_data.puzzles import prompts
from vgau_data.puzzles.base import DELTAS, DIRECTIONS, Illegal
from vgau_data.puzzles.path.state import PathStep
from vgau_data.runners.backends.base import Completion, GenParams
from vgau_data.runners.backends.decoupled import DecoupledPair
from vgau_data.runners.backends.scripted import ScriptedBackend
from vgau_data.runners.backends.scripted_images import ScriptedImageGenerator
from vgau_data.runners.driver import drive
from vgau_data.runners.messages import Conversation, ImagePart
from vgau_data.runners.policies import make_policy
from vgau_data.runners.protocols import (
    Episode,
    ProtocolConfig,
    ProtocolError,
    budget_variants,
    make_episode,
    protocol_class,
    protocol_names,
)

GEN = GenParams(max_new_tokens=64)
LEAK = re.compile(r"\bsteps (?:left|remaining)\b|at most \d+ (?:steps|moves|rounds)|budget|shortest|fewest")
ALL_CONFIGS = [
    ProtocolConfig(name=name, budget=budget)  # type: ignore[arg-type]
    for name in protocol_names()
    for budget in protocol_class(name).budgets
]
INTERACTIVE = [name for name in protocol_names() if "fixed" in protocol_class(name).budgets]


class CountingBackend(ScriptedBackend):
    """A scripted backend that remembers how many conversations each call carried."""

    def __init__(self, fn: Callable[[Conversation], str | Completion]) -> None:
        super().__init__(fn, policy="counting")
        self.batch_sizes: list[int] = []

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]:
        self.batch_sizes.append(len(conversations))
        return super().chat(conversations, gen)


def _run(instances, config: ProtocolConfig, fn, batch_size: int = 16) -> list[Episode]:
    """Drive ``config`` over ``instances`` with ``fn`` answering; protocols that draw get our oracle images."""
    episodes = [make_episode(instance, config, 0) for instance in instances]
    answerer = ScriptedBackend(fn, policy="test")
    drive(DecoupledPair(generator=ScriptedImageGenerator("oracle", answerer=None), answerer=answerer), episodes, GEN,
          batch_size=batch_size)  # fmt: skip
    return episodes


def _verdict(episode: Episode):
    return score_answer(episode.outcome().output, episode.instance.reference)


def _images(conversation: Conversation) -> list:
    return [p.image for m in conversation.messages for p in m.parts if isinstance(p, ImagePart)]


def _boards_shown_to_the_oracle(instance, config: ProtocolConfig) -> list:
    """The board shown after each step while the oracle plays ``instance`` under ``config``."""
    policy = make_policy("oracle", [instance])
    sent: list = []

    def watching(conversation: Conversation) -> str:
        if conversation.n_assistant_turns:
            sent.append(_images(conversation)[-1])
        return policy(conversation)

    _run([instance], config, watching)
    return sent


# ------------------------------------------------------------------ path: the marker, declared labels, never short


def _path_walker(instance, *, then: str) -> Callable[[Conversation], str] | None:
    """The oracle's steps until every on-path letter is declared, then ``then``: an illegal move or "lost".

    Asked for a count, it says 0 once every letter is declared (short of the destination:
    the destination never carries a letter). None when no move from there is illegal.
    """
    family, state = instance.family, instance.initial_state()
    walk = family.oracle_steps(state)
    last_label = max(index for index, step in enumerate(walk) if step.hit_labels)
    assert last_label < len(walk) - 1
    position = state
    for step in walk[: last_label + 1]:
        position = family.apply_step(position, step)
    blocked = [d for d in DIRECTIONS if isinstance(family.apply_step(position, PathStep(d)), Illegal)]
    if not blocked:
        return None

    def fn(conversation: Conversation) -> str:
        taken = conversation.n_assistant_turns
        if conversation.asks == "remaining":
            return "<answer>0</answer>" if taken == last_label + 1 else "<answer>5</answer>"
        if taken <= last_label:
            return family.format_step(walk[taken])
        return family.format_step(PathStep(blocked[0])) if then == "illegal" else "lost"

    return fn


def _short_walker(instances, then: str):
    for instance in instances:
        if instance.task == "path" and (fn := _path_walker(instance, then=then)) is not None:
            return instance, fn
    raise AssertionError("no path instance with a blocked move after its last label")


def test_path__all_letters_declared_then_an_illegal_move_is_never_feasible(instances) -> None:
    instance, walker = _short_walker(instances, then="illegal")
    (episode,) = _run([instance], ProtocolConfig(name="oracle_vcot"), walker)
    verdict = _verdict(episode)
    assert episode.outcome().end == "illegal"
    assert "<answer>" not in episode.outcome().output  # the walk, not the letters, is what is scored
    assert not verdict.feasible and not verdict.optimal
    assert verdict.error in ("wall", "out_of_bounds") and verdict.first_invalid_step == episode.outcome().steps - 1


def test_path__stopping_short_under_the_fixed_budget_is_never_feasible(instances) -> None:
    instance, walker = _short_walker(instances, then="illegal")
    (episode,) = _run([instance], ProtocolConfig(name="oracle_vcot", budget="fixed"), walker)
    verdict = _verdict(episode)
    assert episode.outcome().end == "stopped"
    assert (verdict.parsed, verdict.feasible, verdict.error) == (True, False, "not_solved")


def test_path__walking_the_route_without_declaring_is_not_solved(instances) -> None:
    instance = next(i for i in instances if i.task == "path")
    walk = instance.family.oracle_steps(instance.initial_state())
    (episode,) = _run(
        [instance],
        ProtocolConfig(name="oracle_vcot"),
        lambda conv: instance.family.format_step(PathStep(walk[conv.n_assistant_turns].move)),
    )
    assert (episode.outcome().end, episode.outcome().steps) == ("budget", instance.optimal_length)
    assert _verdict(episode).error == "not_solved"


def test_path__a_wrong_declaration_is_an_illegal_step(instances) -> None:
    instance = next(i for i in instances if i.task == "path")
    state = instance.initial_state()
    walk = instance.family.oracle_steps(state)
    off_path = next(letter for letter, _ in state.labels if letter not in instance.family.solve(state).answer)
    wrong = PathStep(walk[0].move, (off_path,))
    (episode,) = _run([instance], ProtocolConfig(name="oracle_vcot"), lambda conv: instance.family.format_step(wrong))
    verdict = _verdict(episode)
    assert episode.outcome().end == "illegal" and (verdict.error, verdict.first_invalid_step) == ("wrong_label", 0)


def test_path__the_marker_shown_is_the_start_triangle_moving(instances) -> None:
    instance = next(i for i in instances if i.task == "path" and i.optimal_length >= 2)
    sent = _boards_shown_to_the_oracle(instance, ProtocolConfig(name="oracle_vcot"))
    states = instance.family.trajectory(instance.initial_state(), ())
    assert [image.tobytes() for image in sent] == [instance.family.render(s).tobytes() for s in states[:-1]]
    start_cell = instance.initial_state().start
    x, y = instance.family.geometry.center(start_cell)
    assert sent[0].getpixel((x, y)) != instance.image.getpixel((x, y))  # the triangle left the start cell


# ------------------------------------------------------------------ every protocol and budget


@pytest.mark.parametrize("config", ALL_CONFIGS, ids=lambda c: c.variant)
def test_oracle__scores_100_percent_optimal_under_every_protocol_and_budget(config: ProtocolConfig, instances) -> None:
    instances = [i for i in instances if plays(i.family, config.name)]
    episodes = _run(instances, config, make_policy("oracle", instances))
    verdicts = [_verdict(e) for e in episodes]
    assert {v.task for v in verdicts} == {i.task for i in instances} and instances
    assert all(v.optimal for v in verdicts), [(v.id, v.error) for v in verdicts if not v.optimal]
    if config.name in INTERACTIVE:
        assert {e.outcome().end for e in episodes} == ({"goal"} if config.budget == "optimal" else {"stopped"})
        assert all(e.outcome().steps == e.instance.optimal_length for e in episodes)


@pytest.mark.parametrize("config", ALL_CONFIGS, ids=lambda c: c.variant)
def test_random__runs_every_protocol_to_an_end(config: ProtocolConfig, instances) -> None:
    instances = [i for i in instances if plays(i.family, config.name)]
    episodes = _run(instances, config, make_policy("random", instances))
    assert all(e.done and e.outcome().output is not None for e in episodes)
    assert sum(_verdict(e).optimal for e in episodes) < len(episodes)


@pytest.mark.parametrize("name", INTERACTIVE)
def test_no_prompt_depends_on_the_optimum_or_names_a_budget(name: str, instances) -> None:
    """Every request of an episode is the same whatever ``optimal_length`` is: nothing leaks it."""
    for budget in ("optimal", "fixed"):
        config = ProtocolConfig(name=name, budget=budget)  # type: ignore[arg-type]
        for instance in (i for i in instances if i.optimal_length >= 2):
            texts = []
            for length in (instance.optimal_length, instance.optimal_length + 7):
                seen: list[str] = []
                policy = make_policy("oracle", [instance])

                def recording(conversation: Conversation, seen=seen, policy=policy) -> str:
                    seen.append("\n".join(m.text for m in conversation.messages))
                    return policy(conversation)

                _run([dataclasses.replace(instance, optimal_length=length)], config, recording)
                texts.append(seen)
            assert texts[0] == texts[1][: len(texts[0])]
            assert not [m.group() for text in texts[0] if (m := LEAK.search(text))]


def test_fixed__the_count_is_a_separate_question_not_kept_in_the_conversation(instances) -> None:
    instance = next(i for i in instances if i.task == "maze" and i.optimal_length >= 2)
    seen: list[Conversation] = []
    policy = make_policy("oracle", [instance])

    def recording(conversation: Conversation) -> str:
        seen.append(conversation)
        return policy(conversation)

    (episode,) = _run([instance], ProtocolConfig(name="oracle_vcot", budget="fixed"), recording)
    n = instance.optimal_length
    assert [c.asks for c in seen] == ["step", "remaining"] * n
    assert [t.remaining for t in episode.outcome().turns if t.asks == "remaining"] == list(range(n - 1, -1, -1))
    for conversation in seen:
        earlier = conversation.messages[:-1]
        assert not any(prompts.REMAINING_QUESTION in m.text for m in earlier)
        if conversation.asks == "remaining":
            last = conversation.messages[-1]
            assert last.text.endswith(prompts.REMAINING_QUESTION) and _images(Conversation((last,)))
    assert not any(prompts.REMAINING_QUESTION in m.text for m in episode.messages)


def test_fixed__an_unreadable_count_fails_even_at_the_goal(instances) -> None:
    instance = next(i for i in instances if i.task == "maze")
    policy = make_policy("oracle", [instance])
    n = instance.optimal_length

    def vague_at_the_end(conversation: Conversation) -> str:
        if conversation.asks == "remaining" and conversation.n_assistant_turns == n:
            return "I believe we are there."
        return policy(conversation)

    (episode,) = _run([instance], ProtocolConfig(name="oracle_vcot", budget="fixed"), vague_at_the_end)
    outcome = episode.outcome()
    assert episode.env.goal  # the board is solved, but the model never said so
    assert (outcome.end, outcome.steps, outcome.output) == ("unparseable_count", n, "")
    assert outcome.turns[-1].parse_error == "bad_format"
    assert (_verdict(episode).parsed, _verdict(episode).error) == (False, "no_answer")


def test_fixed__reaching_the_goal_without_saying_0_and_leaving_it_is_not_solved(instances) -> None:
    instance = next(i for i in instances if i.task == "maze" and i.optimal_length >= 1)
    family = instance.family
    steps = family.oracle_steps(instance.initial_state())
    back = next(d for d in DIRECTIONS if DELTAS[d] == tuple(-x for x in DELTAS[steps[-1]]))
    script = [*steps, back]

    def overshoot(conversation: Conversation) -> str:
        taken = conversation.n_assistant_turns
        if conversation.asks == "remaining":
            return "<answer>0</answer>" if taken == len(script) else "<answer>1</answer>"
        return family.format_step(script[taken])

    (episode,) = _run([instance], ProtocolConfig(name="oracle_vcot", budget="fixed"), overshoot)
    assert (episode.outcome().end, episode.outcome().steps) == ("stopped", len(script))
    assert (_verdict(episode).feasible, _verdict(episode).error) == (False, "not_solved")


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
def test_budget__a_walker_that_never_arrives_stops_at_the_budget_or_the_cap(budget: str, end: str, instances) -> None:
    instance = next(i for i in instances if i.task == "maze" and i.optimal_length >= 3)
    there, back = _back_and_forth(instance)
    family = instance.family

    def shuttle(conversation: Conversation) -> str:
        if conversation.asks == "remaining":
            return "<answer>3</answer>"
        return family.format_step(there if conversation.n_assistant_turns % 2 == 0 else back)

    config = ProtocolConfig(name="oracle_vcot", budget=budget)  # type: ignore[arg-type]
    (episode,) = _run([instance], config, shuttle)
    expected_steps = instance.optimal_length if budget == "optimal" else 2 * instance.optimal_length
    assert (episode.outcome().end, episode.outcome().steps) == (end, expected_steps)
    assert sum(t.asks == "step" for t in episode.outcome().turns) == expected_steps
    assert not _verdict(episode).feasible
    assert (episode.outcome().output == "") == (budget == "fixed")  # the cap is a failure with no answer


def test_interactive__unreadable_replies_end_the_episode(instances) -> None:
    maze = next(i for i in instances if i.task == "maze" and i.optimal_length >= 2)
    config = ProtocolConfig(name="oracle_vcot")
    (silent,) = _run([maze], config, lambda conv: "I am not sure.")
    assert silent.outcome().end == "unparseable" and silent.outcome().turns[0].parse_error == "no_answer"
    silent_verdict = _verdict(silent)
    assert (silent.outcome().output, silent_verdict.parsed, silent_verdict.error) == ("", False, "no_answer")
    steps = maze.family.oracle_steps(maze.initial_state())

    def one_good_step(conversation: Conversation) -> str:
        return maze.family.format_step(steps[0]) if conversation.n_assistant_turns == 0 else "lost"

    (partial,) = _run([maze], config, one_good_step)
    verdict = _verdict(partial)
    assert (partial.outcome().end, partial.outcome().steps) == ("unparseable", 1)
    assert (verdict.parsed, verdict.feasible, verdict.error, verdict.length) == (True, False, "not_solved", 1)


def test_interactive__the_last_step_of_a_reply_counts(instances) -> None:
    maze = next(i for i in instances if i.task == "maze" and i.optimal_length >= 2)
    steps = maze.family.oracle_steps(maze.initial_state())
    wrong = next(d for d in DIRECTIONS if d != steps[0])

    def reasoning(conversation: Conversation) -> str:
        step = steps[conversation.n_assistant_turns]
        return f"Not 'Next, move one step {wrong}.', that is wrong.\nNext, move one step {step}."

    (episode,) = _run([maze], ProtocolConfig(name="oracle_vcot"), reasoning)
    assert episode.outcome().end == "goal" and _verdict(episode).optimal


def test_interactive__an_illegal_step_is_kept_in_the_answer_so_replay_names_it(instances) -> None:
    maze, blocked = next(
        (i, d)
        for i in instances
        if i.task == "maze"
        for d in DIRECTIONS
        if isinstance(i.family.apply_step(i.initial_state(), d), Illegal)
    )
    code = maze.family.apply_step(maze.initial_state(), blocked).code
    (episode,) = _run([maze], ProtocolConfig(name="oracle_vcot"), lambda conv: maze.family.format_step(blocked))
    assert episode.outcome().end == "illegal"
    verdict = _verdict(episode)
    assert (verdict.parsed, verdict.feasible, verdict.error, verdict.first_invalid_step) == (True, False, code, 0)


def test_backend_error__ends_the_episode_without_an_output(instances) -> None:
    (episode,) = _run(instances[:1], ProtocolConfig(name="oracle_vcot"), lambda conv: Completion(error="HTTP 503"))
    outcome = episode.outcome()
    assert (outcome.output, outcome.end, outcome.error) == (None, "backend_error", "HTTP 503")


# ------------------------------------------------------------------ the lock-step driver


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


# ------------------------------------------------------------------ what the model is shown


def test_prompts__what_each_protocol_shows_first(instances) -> None:
    maze = next(i for i in instances if i.task == "maze")
    state = maze.initial_state()
    first = {
        name: make_episode(maze, ProtocolConfig(name=name), 0).request()
        for name in ("direct", "text_cot", "oracle_gta", "oracle_vcot", "oracle_aug_vcot")
    }
    assert [len(_images(first[n])) for n in first] == [1, 1, 2, 1, 2]
    assert _images(first["oracle_gta"])[1].tobytes() == maze.aid().tobytes()
    assert first["direct"].messages[0].text == prompts.direct(maze.family, state)
    assert first["text_cot"].messages[0].text == maze.family.question(state, "text_cot")
    assert "two images" in first["oracle_gta"].messages[0].text
    assert "Next, move one step" in first["oracle_vcot"].messages[0].text
    assert "Step 1:" in first["oracle_aug_vcot"].messages[0].text
    assert {c.asks for c in first.values()} == {"answer", "step"}


@pytest.mark.parametrize("family", SHIPPED)  # the families of the runners' dataset (conftest.py)
def test_prompts__each_family_asks_for_its_own_per_step_format(family: str, instances) -> None:
    instance = next(i for i in instances if i.task == family)
    text = make_episode(instance, ProtocolConfig(name="oracle_vcot"), 0).request().messages[0].text
    expected = {"maze": "Next, move one step", "sokoban": "Next, move one step"}.get(family, "<STEP_JSON>")
    assert expected in text
    if family == "path":
        assert '"hit_labels"' in text


def test_prompts__aug_vcot_shows_annotated_boards_of_the_stored_solution(instances, dataset_dir) -> None:
    from datasets import load_dataset

    maze = next(i for i in instances if i.task == "maze" and i.optimal_length >= 3)
    row = next(r for r in load_dataset(str(dataset_dir), "maze", split="test") if r["id"] == maze.id)
    sent = _boards_shown_to_the_oracle(maze, ProtocolConfig(name="oracle_aug_vcot"))
    # The maze path is unique, so the oracle walks the stored solution; the goal board is never sent.
    expected = row["oracle_aug_states"][: maze.optimal_length - 1]
    assert [image.tobytes() for image in sent] == [image.convert("RGB").tobytes() for image in expected]


# ------------------------------------------------------------------ configuration and the registry


def test_protocol_config__checks_and_names_variants() -> None:
    assert ProtocolConfig(name="oracle_aug_vcot", budget="fixed", history=2).variant == "oracle_aug_vcot_fixed_last2"
    assert ProtocolConfig(name="direct").variant == "direct"
    assert ProtocolConfig(name="oracle_vcot", budget="fixed").step_cap(5) == 10
    assert ProtocolConfig(name="oracle_vcot", budget="fixed").step_cap(1) == 2
    assert ProtocolConfig(name="oracle_vcot").step_cap(5) == 5
    with pytest.raises(ProtocolError, match="unknown protocol"):
        ProtocolConfig(name="telepathy")
    with pytest.raises(ProtocolError, match="takes the budget optimal"):
        ProtocolConfig(name="direct", budget="fixed")
    with pytest.raises(ProtocolError, match="history"):
        ProtocolConfig(name="oracle_vcot", history=0)


def test_registry__a_new_protocol_runs_through_the_driver_unchanged(instances, monkeypatch) -> None:
    """A new protocol is its entry in ``vgau_data.protocols`` and one registered class."""
    from vgau_data import protocols
    from vgau_data.runners.driver import register_sender
    from vgau_data.runners.protocols import base, register
    from vgau_data.runners.protocols.single import TextCoT

    info = protocols.ProtocolInfo("shout_then_answer", 999, "test only: one request of a new kind, then Text-CoT")
    monkeypatch.setitem(protocols._PROTOCOLS, info.name, info)

    class Shout:
        """A request of a new kind (as an image request will be), with its own sender."""

        def __init__(self, text: str) -> None:
            self.text = text

    @register
    class ShoutThenAnswer(TextCoT):
        name = "shout_then_answer"

        def request(self):  # type: ignore[override]
            return Shout(self.instance.id) if not self.turns else super().request()

        def advance(self, completion: Completion) -> None:
            if not self.turns and not self.done:
                self.turns.append(base.Turn(asks="shout", text=completion.text, images_sent=[]))
                return
            super().advance(completion)

    try:
        register_sender(Shout, lambda backend, shouts, gen: [Completion(text=s.text.upper()) for s in shouts])
        assert "shout_then_answer" in protocol_names() and ShoutThenAnswer.rank == 999
        assert "shout_then_answer" in budget_variants()  # scoring knows it without importing the runners
        episodes = _run(instances, ProtocolConfig(name="shout_then_answer"), make_policy("oracle", instances))
        assert all(_verdict(e).optimal and e.outcome().turns[0].text == e.instance.id.upper() for e in episodes)
        with pytest.raises(ProtocolError, match="already registered"):

            @register
            class Impostor(TextCoT):
                name = "shout_then_answer"
    finally:
        del base._REGISTRY["shout_then_answer"]


def test_registry__refuses_a_class_without_an_entry_or_of_another_kind(monkeypatch) -> None:
    from vgau_data import protocols
    from vgau_data.runners.protocols import register
    from vgau_data.runners.protocols.single import TextCoT

    with pytest.raises(ProtocolError, match="no entry in vgau_data/protocols.py"):

        @register
        class Unlisted(TextCoT):
            name = "unlisted"

    monkeypatch.setitem(protocols._PROTOCOLS, "stepwise", protocols.ProtocolInfo("stepwise", 998, "test", interactive=True))
    with pytest.raises(ProtocolError, match="interactive=False, draws=False; its entry .* says interactive=True"):

        @register
        class NotStepwise(TextCoT):
            name = "stepwise"


@pytest.mark.parametrize("name", ["oracle_aug_vcot", "self_gta"])
def test_history__records_name_only_the_images_the_model_was_sent(name: str, instances) -> None:
    sent: list[int] = []
    oracle = make_policy("oracle", instances)

    def counting(conversation: Conversation) -> str:
        sent.append(len(_images(conversation)))
        return oracle(conversation)

    episodes = _run(instances, ProtocolConfig(name=name, history=1), counting)
    recorded = [len(turn.images_sent) for e in episodes for turn in e.outcome().turns if turn.asks != "remaining"]
    assert max(sent) == 1 and max(recorded) == 1  # the full last message holds two images

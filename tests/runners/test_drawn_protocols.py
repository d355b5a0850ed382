"""The protocols in which the model draws: its own images go back in, each one recorded with its truth.

Every protocol and budget is also played by the oracle and the random policy over every
family in ``test_protocols.py`` (with our oracle images drawn for it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest
from PIL import Image

from vgau_data.oracle_aids import oracle_image
from vgau_data.puzzles import prompts
from vgau_data.runners.backends.base import Completion, GeneratedImage, GenParams, ImageRequest
from vgau_data.runners.backends.decoupled import DecoupledPair
from vgau_data.runners.backends.scripted import ScriptedBackend
from vgau_data.runners.backends.scripted_images import ScriptedImageGenerator
from vgau_data.runners.driver import drive, fit_history
from vgau_data.runners.messages import Conversation, ImagePart
from vgau_data.runners.policies import REWRITTEN_EDIT, make_policy
from vgau_data.runners.protocols import ProtocolConfig, ProtocolError, make_episode
from vgau_data.runners.protocols.drawn import DrawingEpisode

GEN = GenParams(max_new_tokens=64, seed=5)
DRAWN = ("self_gta", "self_vcot", "self_vr")


class Recording:
    """Wraps a generator and keeps every request it got and every image it made."""

    def __init__(self, generator: ScriptedImageGenerator) -> None:
        self.generator = generator
        self.name = generator.name
        self.capabilities = generator.capabilities
        self.image_source = generator.image_source
        self.requests: list[ImageRequest] = []
        self.made: list[GeneratedImage] = []

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        made = self.generator.generate(requests, gen)
        self.requests += requests
        self.made += made
        return made

    def fingerprint(self) -> str:
        return self.generator.fingerprint()

    def describe(self) -> dict:
        return self.generator.describe()


class Unified:
    """A unified model in miniature: the oracle policy answers, our oracle images are its own drawings."""

    name = "unified"
    capabilities = frozenset({"chat", "image_edit"})

    def __init__(self, instances) -> None:
        self.answers = ScriptedBackend(model="oracle", instances=instances)
        self.drawer = ScriptedImageGenerator("oracle", answerer=None)

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]:
        return self.answers.chat(conversations, gen)

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        return self.drawer.generate(requests, gen)

    def fingerprint(self) -> str:
        return "unified"

    def describe(self) -> dict:
        return {"backend": self.name, "model": "/models/Unified-7B/"}


def _images(conversation: Conversation) -> list[Image.Image]:
    return [p.image for m in conversation.messages for p in m.parts if isinstance(p, ImagePart)]


def _play(
    instances, config: ProtocolConfig, generator: str = "oracle", answer: Callable[[Conversation], str] | None = None
) -> tuple[list[DrawingEpisode], Recording, list[Conversation]]:
    """Drive ``config`` with ``answer`` (default: the oracle policy) and a recorded scripted ``generator``."""
    recording = Recording(ScriptedImageGenerator(generator, instances=instances, answerer=None))
    policy = answer or make_policy("oracle", instances)
    seen: list[Conversation] = []

    def watching(conversation: Conversation) -> str:
        seen.append(conversation)
        return policy(conversation)

    episodes = [make_episode(instance, config, 0) for instance in instances]
    drive(DecoupledPair(generator=recording, answerer=ScriptedBackend(watching, policy="watching")), episodes, GEN)
    return episodes, recording, seen  # type: ignore[return-value]


def _long_maze(instances):
    return next(i for i in instances if i.task == "maze" and i.optimal_length >= 3)


# ------------------------------------------------------------------ self_vcot: the model's own boards


@pytest.mark.parametrize("budget", ["optimal", "fixed"])
def test_self_vcot__the_model_is_shown_its_own_drawings_never_ours(budget: str, instances) -> None:
    maze = _long_maze(instances)
    (episode,), recording, seen = _play([maze], ProtocolConfig(name="self_vcot", budget=budget), "noise")
    drawn = [made.image.tobytes() for made in recording.made]
    steps = [c for c in seen if c.asks == "step"]
    assert len(drawn) == maze.optimal_length - (budget == "optimal")  # no drawing after the goal under optimal
    assert _images(steps[0]) == [maze.image]
    for index, conversation in enumerate(steps[1:]):
        shown = [image.tobytes() for image in _images(conversation)]
        assert shown[1:] == drawn[: index + 1], "every board after the first is the model's own drawing, in order"
        assert f"Your drawing of the board after step {index + 1}:" in conversation.messages[-1].text
    walk = maze.family.trajectory(maze.initial_state(), maze.family.solve(maze.initial_state()).answer)
    assert not {maze.family.render(s).tobytes() for s in walk} & {i.tobytes() for c in seen for i in _images(c)}
    assert episode.outcome().end == ("goal" if budget == "optimal" else "stopped")
    assert episode.outcome().steps == maze.optimal_length, "scoring follows the true state, not the drawings"


def test_self_vcot__each_image_request_holds_the_last_board_and_the_truth_after_the_step(instances) -> None:
    maze = _long_maze(instances)
    (episode,), recording, _ = _play([maze], ProtocolConfig(name="self_vcot", budget="fixed"))
    family, state = maze.family, maze.initial_state()
    solution = family.solve(state).answer
    truths = family.trajectory(state, solution)
    boards = [maze.image] + [made.image for made in recording.made]
    for round_, request in enumerate(recording.requests, start=1):
        assert (request.purpose, request.step, request.family, request.difficulty) == (
            "next_state", round_, "maze", maze.difficulty,
        )  # fmt: skip
        assert request.oracle_state == truths[round_ - 1]
        assert request.images[0].tobytes() == boards[round_ - 1].tobytes()
        assert request.instruction == prompts.step_edit(family, round_, family.format_step(solution[round_ - 1]))
        assert request.seed == GEN.seed, "the driver stamps the run's seed"
    records = episode.record_fields()["images"]
    assert [r["round"] for r in records] == list(range(1, maze.optimal_length + 1))
    assert [r["state"] for r in records] == [family.to_json(t) for t in truths]
    assert {(r["source"], r["generator"], r["context"]) for r in records} == {
        ("oracle", "scripted-image:oracle", "reasoning")
    }


# ------------------------------------------------------------------ self_gta, self_vr: draw, then answer


@pytest.mark.parametrize(("name", "purpose"), [("self_gta", "aid"), ("self_vr", "vr")])
def test_draw_then_answer__answers_given_the_board_and_its_own_drawing(name: str, purpose: str, instances) -> None:
    chosen = [next(i for i in instances if i.task == family) for family in ("maze", "klotski")]
    episodes, recording, seen = _play(chosen, ProtocolConfig(name=name), "perturbed-2")
    for instance, request, made, answer in zip(chosen, recording.requests, recording.made, seen):
        state = instance.initial_state()
        edit = prompts.aid_edit if name == "self_gta" else prompts.solution_edit
        assert (request.purpose, request.step, request.instruction) == (purpose, 0, edit(instance.family, state))
        assert request.images[0].tobytes() == instance.image.tobytes() and request.conversation is None
        assert [i.tobytes() for i in _images(answer)] == [instance.image.tobytes(), made.image.tobytes()]
        assert "your" in answer.messages[0].text and answer.asks == "answer"
    if name == "self_gta":
        assert "dashed" in recording.requests[1].instruction, "klotski's grid is drawn dashed"
    for episode in episodes:
        (record,) = episode.record_fields()["images"]
        assert (record["source"], record["meta"]) == ("perturbed-2", {"cells_wrong": 2})
        assert record["state"] == episode.instance.state
        assert episode.outcome().end == "answered" and episode.outcome().output


# ------------------------------------------------------------------ generation contexts (UReason)


def test_contexts__reasoning_sends_the_conversation_direct_sends_the_bare_instruction(instances) -> None:
    maze = _long_maze(instances)
    _, reasoning, _ = _play([maze], ProtocolConfig(name="self_vcot"))
    _, direct, _ = _play([maze], ProtocolConfig(name="self_vcot", generation_context="direct"))
    assert [r.instruction for r in reasoning.requests] == [r.instruction for r in direct.requests]
    assert all(r.conversation is None for r in direct.requests)
    last = reasoning.requests[-1].conversation
    solution = maze.family.solve(maze.initial_state()).answer
    assert last is not None and last.messages[-1].role == "assistant"
    assert last.messages[-1].text == maze.family.format_step(solution[len(reasoning.requests) - 1])
    _, gta, _ = _play([maze], ProtocolConfig(name="self_gta"))
    assert gta.requests[0].conversation is None, "GtA draws before the model said anything"


@pytest.mark.parametrize("name", DRAWN)
def test_contexts__decontextualized_sends_only_the_model_rewrite(name: str, instances) -> None:
    maze = _long_maze(instances)
    config = ProtocolConfig(name=name, generation_context="decontextualized")
    (episode,), recording, seen = _play([maze], config)
    rewrites = [c for c in seen if c.asks == "refine"]
    assert len(rewrites) == len(recording.requests) >= 1
    assert all(r.instruction == REWRITTEN_EDIT and r.conversation is None for r in recording.requests)
    assert all("<edit></edit>" in c.messages[-1].text for c in rewrites)
    answering = [c for c in seen if c.asks != "refine"]
    assert not any("image editor" in m.text for c in answering for m in c.messages), "the question is not kept"
    if name == "self_vcot":
        assert rewrites[0].messages[-2].role == "assistant", "the model rewrites after its step, in its conversation"
    else:
        assert _images(rewrites[0]) == [maze.image] and "maze" in rewrites[0].messages[0].text
    assert [t.asks for t in episode.outcome().turns].count("refine") == len(rewrites)
    assert episode.outcome().end in ("goal", "answered")
    assert {r["context"] for r in episode.record_fields()["images"]} == {"decontextualized"}


def test_contexts__a_rewrite_without_edit_tags_sends_the_whole_reply(instances) -> None:
    maze = _long_maze(instances)
    oracle = make_policy("oracle", [maze])

    def answer(conversation: Conversation) -> str:
        return "  just draw the grid  " if conversation.asks == "refine" else oracle(conversation)

    (episode,), recording, _ = _play([maze], ProtocolConfig(name="self_gta", generation_context="decontextualized"),
                                     answer=answer)  # fmt: skip
    assert recording.requests[0].instruction == "just draw the grid"
    assert episode.outcome().turns[0].parse_error == "no_edit_tag"


def test_contexts__configs_name_their_variants_and_only_drawing_protocols_take_one() -> None:
    assert ProtocolConfig(name="self_gta", generation_context="direct").variant == "self_gta_direct"
    assert ProtocolConfig(name="self_vr", history=1).variant == "self_vr_last1"
    assert "generation_context" not in ProtocolConfig(name="oracle_vcot").to_dict(), "old keys stay as they were"
    assert ProtocolConfig(name="self_vcot").to_dict()["generation_context"] == "reasoning"
    with pytest.raises(ProtocolError, match="draws nothing"):
        ProtocolConfig(name="text_cot", generation_context="direct")
    with pytest.raises(ProtocolError, match="generation_context must be one of"):
        ProtocolConfig(name="self_gta", generation_context="telepathic")  # type: ignore[arg-type]


# ------------------------------------------------------------------ one image per request (A.4)


def test_history__a_backend_that_reads_one_image_gets_only_the_last_drawing(instances) -> None:
    maze = _long_maze(instances)

    class OneImage(ScriptedBackend):
        max_images = 1

    (config,) = fit_history([ProtocolConfig(name="self_vcot")], OneImage(str))
    assert config.variant == "self_vcot_last1"
    assert fit_history([ProtocolConfig(name="self_vcot", history=3)], ScriptedBackend(str))[0].history == 3
    _, recording, seen = _play([maze], config, "noise")
    steps = [c for c in seen if c.asks == "step"]
    assert all(len(_images(c)) == 1 for c in steps)
    assert [_images(c)[0].tobytes() for c in steps[1:]] == [m.image.tobytes() for m in recording.made[: len(steps) - 1]]
    assert all(len(_images(r.conversation)) <= 1 for r in recording.requests if r.conversation is not None)


# ------------------------------------------------------------------ who drew it, failures


def test_sources__self_for_a_unified_model_external_for_a_pair_the_script_for_a_control(instances) -> None:
    chosen = instances[:1]

    def source(backend) -> tuple[str, str]:
        episode = make_episode(chosen[0], ProtocolConfig(name="self_gta"), 0)
        drive(backend, [episode], GEN)
        (record,) = episode.record_fields()["images"]
        return record["source"], record["generator"]

    answerer = ScriptedBackend(model="oracle", instances=chosen)
    assert source(Unified(chosen)) == ("self", "unified:Unified-7B")
    assert source(DecoupledPair(generator=Unified(chosen), answerer=answerer)) == ("external", "unified:Unified-7B")
    easy = [instance for instance in instances if instance.difficulty == "easy"]
    mismatch = ScriptedImageGenerator("mismatch", instances=easy, answerer=None)
    assert source(DecoupledPair(generator=mismatch, answerer=answerer)) == ("mismatch", "scripted-image:mismatch")


def test_mismatch__records_the_instance_its_image_came_from(instances) -> None:
    chosen = [i for i in instances if i.task == "sokoban" and i.difficulty == "easy"]
    episodes, recording, _ = _play(chosen, ProtocolConfig(name="self_vr"), "mismatch")
    for episode, made in zip(episodes, recording.made):
        (record,) = episode.record_fields()["images"]
        assert record["substitute"] == made.meta["substitute"] != episode.instance.id
        assert record["source"] == "mismatch" and record["state"] == episode.instance.state


@pytest.mark.parametrize("name", DRAWN)
def test_failures__a_failed_image_or_rewrite_ends_the_episode_as_a_backend_error(name: str, instances) -> None:
    maze = _long_maze(instances)

    class Failing(ScriptedImageGenerator):
        def generate(self, requests, gen):
            return [GeneratedImage(error="HTTP 500: out of memory") for _ in requests]

    episode = make_episode(maze, ProtocolConfig(name=name), 0)
    pair = DecoupledPair(
        generator=Failing("oracle", answerer=None), answerer=ScriptedBackend(model="oracle", instances=[maze])
    )
    drive(pair, [episode], GEN)
    outcome = episode.outcome()
    assert (outcome.output, outcome.end, outcome.error) == (None, "backend_error", "HTTP 500: out of memory")
    (record,) = episode.record_fields()["images"]
    assert (record["error"], record["sha256"], record["size"]) == ("HTTP 500: out of memory", None, None)
    if name == "self_vcot":
        assert outcome.steps == 1
    rewrite = make_episode(maze, ProtocolConfig(name=name, generation_context="decontextualized"), 0)
    failing_chat = DecoupledPair(generator=ScriptedImageGenerator("oracle", answerer=None),
                                 answerer=ScriptedBackend(lambda c: Completion(error="HTTP 503") if c.asks == "refine"
                                                          else make_policy("oracle", [maze])(c), policy="x"))  # fmt: skip
    drive(failing_chat, [rewrite], GEN)
    assert (rewrite.outcome().end, rewrite.outcome().error, rewrite.record_fields()["images"]) == (
        "backend_error", "HTTP 503", [],
    )  # fmt: skip


# ------------------------------------------------------------------ oracle_vr


def test_oracle_vr__shows_our_drawing_of_an_optimal_solution(instances) -> None:
    drawn = {instance.task: instance for instance in reversed(instances) if instance.family.vr}  # each family's first
    for instance in drawn.values():
        request = make_episode(instance, ProtocolConfig(name="oracle_vr"), 0).request()
        board, drawing = _images(request)
        assert board.tobytes() == instance.image.tobytes()
        expected = oracle_image(instance.family, instance.initial_state(), "vr")
        assert drawing.tobytes() == expected.tobytes() == instance.vr_drawing().tobytes()
        assert "a copy of it showing" in request.messages[0].text and "your" not in request.messages[0].text
        assert instance.oracle_vr_data is not None, "read from the dataset's oracle_vr column"

"""Scripted image generators (oracle, noise, mismatch, perturbed-K) and the decoupled pair."""

from __future__ import annotations

import numpy as np
import pytest

from vgau_data.fidelity import OVERLAY_OF_PURPOSE, cell_agreement
from vgau_data.oracle_aids import PURPOSES, oracle_image
from vgau_data.puzzles.base import Slot
from vgau_data.registry import FAMILIES
from vgau_data.runners.backends import BackendError, GenParams, ImageRequest, capabilities_of, load_backend
from vgau_data.runners.backends.decoupled import DecoupledPair
from vgau_data.runners.backends.scripted import ScriptedBackend
from vgau_data.runners.backends.scripted_images import ScriptedImageGenerator
from vgau_data.runners.instances import Instance
from vgau_data.runners.messages import Conversation, user
from vgau_data.seeding import instance_seed, rng_for

FAMILY_NAMES = [name for name, spec in FAMILIES.items() if spec.fidelity and spec.vr]
"""Families whose images of every purpose (the solution drawing too) are drawn and decoded
(``tests/toy_family/test_lights.py`` runs the scripted oracle on a family without)."""


def _instances(name: str, n: int = 3) -> list[Instance]:
    family = FAMILIES[name]
    rows = []
    for index in range(n):
        slot = Slot(max(family.length_mix["easy"]), 0.5)  # long enough for next_state requests after 2 steps
        state = family.generate("easy", rng_for(instance_seed(4, name, "easy", index)), slot)
        rows.append(
            Instance(
                id=f"{name}-easy-{index:04d}", task=name, difficulty="easy",
                optimal_length=family.solve(state).optimal_length, state=family.to_json(state),
                image_data=family.render(state),
            )
        )  # fmt: skip
    return rows


def _request(instance: Instance, purpose: str, step: int | None = None, run: int = 0) -> ImageRequest:
    """A request for ``purpose``; a ``next_state`` one after ``step`` steps of the solution (default 1)."""
    family = instance.family
    state = instance.initial_state()
    step = step if step is not None else int(purpose == "next_state")
    if purpose == "next_state":
        state = family.trajectory(state, family.solve(state).answer)[step - 1]
    return ImageRequest(
        session_id=f"{instance.id}/self/run{run}", purpose=purpose, instruction="draw", images=(instance.image,),
        family=instance.task, difficulty=instance.difficulty, oracle_state=state, step=step, seed=run,
    )  # fmt: skip


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_oracle_generator__draws_the_oracle_image_of_every_purpose(name: str) -> None:
    instance = _instances(name, 1)[0]
    generator = load_backend("scripted-image", model="oracle")
    requests = [_request(instance, purpose) for purpose in PURPOSES]
    for request, made in zip(requests, generator.generate(requests, GenParams())):
        assert made.ok
        assert made.image.tobytes() == oracle_image(FAMILIES[name], request.oracle_state, request.purpose).tobytes()
        overlay = OVERLAY_OF_PURPOSE[request.purpose]
        assert cell_agreement(FAMILIES[name], made.image, request.oracle_state, overlay).exact


@pytest.mark.parametrize("name", [name for name, spec in FAMILIES.items() if spec.fidelity and spec.fidelity.perturb])
def test_perturbed_generator__gets_exactly_k_cells_wrong(name: str) -> None:
    instance = _instances(name, 1)[0]
    family = FAMILIES[name]
    generator = ScriptedImageGenerator("perturbed-3")
    requests = [_request(instance, purpose) for purpose in PURPOSES if purpose != "vr" or family.vr]  # vr: a drawing
    made = generator.generate(requests, GenParams())
    again = generator.generate(requests, GenParams())
    cells = len(family.fidelity.cell_labels(instance.initial_state()))
    for request, image, repeat in zip(requests, made, again):
        result = cell_agreement(family, image.image, request.oracle_state, OVERLAY_OF_PURPOSE[request.purpose])
        assert result.agreement == pytest.approx(1 - 3 / cells)
        assert image.image.tobytes() == repeat.image.tobytes()


def test_noise_generator__is_seeded_per_session_and_keeps_the_board_size() -> None:
    instance = _instances("parking", 1)[0]
    generator = ScriptedImageGenerator("noise")
    first, same, other_run = generator.generate(
        [_request(instance, "aid"), _request(instance, "aid"), _request(instance, "aid", run=1)], GenParams()
    )
    assert first.image.size == instance.image.size
    assert first.image.tobytes() == same.image.tobytes() != other_run.image.tobytes()
    pixels = np.asarray(first.image, dtype=np.float64)
    assert abs(pixels.mean() - 127.5) < 3 and 50 < pixels.std() < 70
    assert cell_agreement(FAMILIES["parking"], first.image, instance.initial_state()).agreement <= 0.1


def test_mismatch_generator__substitutes_another_instance_of_the_bucket() -> None:
    pool = _instances("maze", 3) + _instances("sokoban", 2)
    generator = ScriptedImageGenerator("mismatch", instances=pool)
    target = pool[0]
    made = generator.generate([_request(target, "aid"), _request(target, "aid", run=2)], GenParams())
    substitute = made[0].meta["substitute"]
    assert substitute in {"maze-easy-0001", "maze-easy-0002"} and made[1].meta["substitute"] == substitute
    chosen = next(item for item in pool if item.id == substitute)
    assert made[0].image.tobytes() == oracle_image(FAMILIES["maze"], chosen.initial_state(), "aid").tobytes()
    family = FAMILIES["maze"]
    walk = family.trajectory(chosen.initial_state(), family.solve(chosen.initial_state()).answer)
    for step in (1, 2):  # the substitute's state after as many steps as the target took
        made = generator.generate([_request(target, "next_state", step=step)], GenParams())[0]
        assert made.image.tobytes() == family.render(walk[step - 1]).tobytes()
    with pytest.raises(BackendError, match="maze/easy has only one; select more rows"):
        ScriptedImageGenerator("mismatch", instances=[*pool[:1], *pool[3:]])
    stranger = _instances("parking", 1)[0]
    unknown = generator.generate([_request(stranger, "aid")], GenParams())[0]
    assert not unknown.ok and "no other parking/easy instance" in unknown.error


def test_scripted_image__bad_names_and_missing_truth() -> None:
    for model in ("perfect", "perturbed-0", "perturbed-x"):
        with pytest.raises(BackendError):
            ScriptedImageGenerator(model)
    with pytest.raises(BackendError, match="needs the run's instances"):
        ScriptedImageGenerator("mismatch")
    request = ImageRequest(session_id="maze-easy-0000/x/run0", purpose="aid", instruction="", family="maze")
    failed = ScriptedImageGenerator("oracle").generate([request], GenParams())[0]
    assert not failed.ok and "no oracle_state" in failed.error
    assert ScriptedImageGenerator("oracle").fingerprint() != ScriptedImageGenerator("noise").fingerprint()


def test_pair__routes_chat_and_images_and_fingerprints_both_sides() -> None:
    generator = ScriptedImageGenerator("oracle")
    pair = DecoupledPair(generator=generator, answerer=ScriptedBackend(lambda conv: "up", policy="up"))
    assert capabilities_of(pair) == {"chat", "image_edit"}
    assert pair.chat([Conversation((user("go"),))], GenParams())[0].text == "up"
    instance = _instances("maze", 1)[0]
    assert pair.generate([_request(instance, "aid")], GenParams())[0].ok
    other_answerer = DecoupledPair(generator=generator, answerer=ScriptedBackend(lambda conv: "up", policy="down"))
    other_generator = DecoupledPair(generator=ScriptedImageGenerator("noise"), answerer=pair.answerer)
    assert len({pair.fingerprint(), other_answerer.fingerprint(), other_generator.fingerprint()}) == 3
    assert pair.describe()["generator"]["model"] == "oracle"
    by_name = load_backend("pair", generator="scripted-image", generator_model="noise", answerer="scripted",
                           answerer_options={"fn": str, "policy": "echo"})  # fmt: skip
    assert by_name.describe()["answerer"]["model"] == "echo"
    with pytest.raises(BackendError, match="makes no images"):
        DecoupledPair(generator=pair.answerer, answerer=pair.answerer)  # type: ignore[arg-type]
    with pytest.raises(BackendError, match="cannot chat"):
        mute = ScriptedImageGenerator("oracle", answerer=None)
        DecoupledPair(generator=mute, answerer=mute)  # type: ignore[arg-type]

"""A family that declares none of the optional capabilities goes through every consumer of them.

``bare`` is maze with ``fidelity``, ``vr``, ``paper`` and ``structure`` removed (registered for
the test only): each consumer builds, skips or refuses by name, never with a ``TypeError``
or a ``KeyError`` after the work is done.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from vgau_data import registry
from vgau_data.builders import build_dataset, structure
from vgau_data.builders.from_paper import build_from_paper
from vgau_data.errors import PaperDataError
from vgau_data.fidelity import image_fidelity, read_cells
from vgau_data.oracle_aids import oracle_image
from vgau_data.oracle_aids.vr import oracle_vr
from vgau_data.puzzles.capabilities import EpisodeSteps, Fidelity, SolutionSketch, Structure
from vgau_data.puzzles.paper_records import PaperFormat
from vgau_data.registry import FAMILIES
from vgau_data.runners.backends.base import GenParams, ImageRequest
from vgau_data.runners.backends.scripted_images import ScriptedImageGenerator
from vgau_data.runners.driver import check_families
from vgau_data.runners.instances import Instance
from vgau_data.runners.protocols import ProtocolConfig, ProtocolError, protocol_names

GROUPS = {"episode_steps": EpisodeSteps, "fidelity": Fidelity, "vr": SolutionSketch, "paper": PaperFormat,
          "structure": Structure}  # fmt: skip


@pytest.fixture
def bare(monkeypatch: pytest.MonkeyPatch):
    spec = dataclasses.replace(FAMILIES["maze"], name="bare", fidelity=None, vr=None, paper=None, structure=None)
    monkeypatch.setitem(registry._FAMILIES, "bare", spec)
    return spec


@pytest.fixture
def state(bare):
    return bare.generate("easy", np.random.default_rng(0))


@pytest.mark.parametrize("name", list(FAMILIES))
def test_capabilities__each_declared_one_is_its_group(name: str) -> None:
    spec = FAMILIES[name]
    for field, group in GROUPS.items():
        value = getattr(spec, field)
        assert value is None or isinstance(value, group), field


def test_build__writes_a_family_without_capabilities(bare, tmp_path: Path) -> None:
    out = tmp_path / "built"
    build_dataset(out, families=["bare"], counts={"easy": 2, "medium": 0, "hard": 0}, progress=False)
    table = pq.read_table(out / "bare" / "test-00000-of-00001.parquet")
    assert table.num_rows == 2
    assert table.column("oracle_vr").to_pylist() == [None, None]  # no solution drawing: no oracle_vr
    assert all(table.column("oracle_aid").to_pylist())
    card = (out / "README.md").read_text()
    assert "(not measured for this build)" in card  # no structure statistics: no comparison table


def test_structure__leaves_out_a_family_without_statistics(bare, state) -> None:
    row = {"task": "bare", "state": bare.to_json(state), "solution": bare.answer_payload(bare.solve(state).answer)}
    assert structure.measure_row(row) is None
    with pytest.raises(ValueError, match="'bare' declares no structure statistics"):
        structure.measure("bare", state, ())
    assert "bare" not in structure.authors_means()
    assert {row.family for row in structure.compare({"bare": {"easy": {"walkable": 1.0}}})} == set()


def test_from_paper__refuses_a_family_without_published_records(bare, tmp_path: Path) -> None:
    with pytest.raises(PaperDataError, match="'bare' declares no published records"):
        build_from_paper(tmp_path, tmp_path / "out", families=["bare"], progress=False)


def test_fidelity__measures_what_it_can_without_decoding(bare, state) -> None:
    image = bare.render(state)
    record = image_fidelity(bare, image, state, "vr", oracle=image)
    assert (record["cell_agreement"], record["cells_exact"], record["ssim"]) == (None, None, 1.0)
    assert "route_feasible" not in record  # no solution drawing: no route to read
    with pytest.raises(ValueError, match="'bare' has no cell decoding"):
        read_cells(bare, image)


def test_vr__no_drawing_no_oracle_vr_and_no_protocol(bare, state) -> None:
    with pytest.raises(ValueError, match="'bare' has no solution drawing"):
        oracle_vr(bare, state, bare.solve(state).answer)
    with pytest.raises(ValueError, match="no solution drawing"):
        oracle_image(bare, state, "vr")
    instance = Instance(id="bare-easy-0000", task="bare", difficulty="easy", optimal_length=1,
                        state=bare.to_json(state), image_data=bare.render(state))  # fmt: skip
    with pytest.raises(ProtocolError, match="'oracle_vr' needs FamilySpec.vr, which bare does not declare"):
        check_families([ProtocolConfig(name="oracle_vr")], [instance])
    others = [ProtocolConfig(name=name) for name in protocol_names() if name != "oracle_vr"]
    check_families(others, [instance])  # every other protocol runs on it, with a model that draws


def _instance(spec, state) -> Instance:
    return Instance(id=f"{spec.name}-easy-0000", task=spec.name, difficulty="easy", optimal_length=1,
                    state=spec.to_json(state), image_data=spec.render(state))  # fmt: skip


@pytest.mark.parametrize("model", ["oracle", "mismatch"])
def test_scripted_images__a_solution_drawing_from_the_truth_needs_vr_and_is_refused_before_any_call(
    bare, state, model: str
) -> None:
    instance = _instance(bare, state)
    generator = ScriptedImageGenerator(model, instances=[instance, dataclasses.replace(instance, id="bare-easy-0001")])
    with pytest.raises(ProtocolError, match="'self_vr' drawn by 'scripted-image-.*' needs FamilySpec.vr, which bare"):
        check_families([ProtocolConfig(name="self_vr")], [instance], generator)
    check_families([ProtocolConfig(name="self_gta"), ProtocolConfig(name="self_vcot")], [instance], generator)
    check_families([ProtocolConfig(name="self_vr")], [instance], ScriptedImageGenerator("noise"))


def test_scripted_images__perturbed_boards_need_a_perturbation_before_any_call(bare, state) -> None:
    instance = _instance(bare, state)
    with pytest.raises(ProtocolError, match="'self_gta' drawn by .* needs FamilySpec.fidelity.perturb, which bare"):
        check_families([ProtocolConfig(name="self_gta")], [instance], ScriptedImageGenerator("perturbed-2"))
    maze = FAMILIES["maze"]
    check_families([ProtocolConfig(name="self_vr")], [_instance(maze, state)], ScriptedImageGenerator("perturbed-2"))


def test_scripted_images__perturbed_images_need_a_perturbation(bare, state) -> None:
    request = ImageRequest(
        session_id="bare-easy-0000/self_gta/run0", purpose="aid", instruction="draw", images=(bare.render(state),),
        family="bare", difficulty="easy", oracle_state=state, step=0, seed=0,
    )  # fmt: skip
    (made,) = ScriptedImageGenerator("perturbed-2").generate([request], GenParams())
    assert not made.ok and "bare has no perturbation" in made.error

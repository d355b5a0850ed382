"""Fixtures for the reward tests: real rows with their oracle answers, a small built dataset, tiny models.

``reward_rows`` are the 24 rows of ``tests/data/harness_outputs/references.jsonl`` (every
family and difficulty, as a real build wrote them), each with its oracle answer text.
``styled_export(format)`` is a training export of ``styled_folder``: ``vgau-data generate`` of
every family with ``--render-variety`` (train), in the benchmark style (validation, whose
rows have a null ``render_style`` beside the styled ones) and in the held-out style
(validation_ood).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.families import SHIPPED
from vgau_data.puzzles.base import FamilySpec
from vgau_data.registry import FAMILIES

collect_ignore = ["verl_loader.py", "verl_tool_loop.py", "openrlhf_flags.py", "openrlhf_remote.py"]  # run in the trainers' venvs by test_trainer_commands.py
DATA = Path(__file__).resolve().parents[1] / "data"
CALLS = DATA / "rewards"
"""Fixtures of the exact arguments each trainer passes (written from their runs and source)."""


@pytest.fixture(scope="session")
def reward_rows() -> list[dict[str, Any]]:
    rows = []
    for line in (DATA / "harness_outputs" / "references.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        family = FAMILIES[row["task"]]
        row["answer"] = family.format_answer(family.answer_from_payload(row["solution"]))
        rows.append(row)
    return rows


@pytest.fixture(scope="session")
def calls() -> Callable[[str], Any]:
    """``calls(name)``: a trainer-call fixture from ``tests/data/rewards``."""
    return lambda name: json.loads((CALLS / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="session")
def maze_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two easy maze rows, built with images (the GRPO runs train on them)."""
    from vgau_data.builders import build_dataset

    out = tmp_path_factory.mktemp("maze_dataset")
    build_dataset(out, seed=0, families=["maze"], counts={"easy": 2, "medium": 0, "hard": 0}, workers=1, progress=False)
    return out


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """``tiny_model(reply)``: a tiny Qwen2-VL folder that always answers ``reply`` (built once per reply)."""
    from vgau_data.testing.tiny_models import build_tiny_vlm

    built: dict[str, Path] = {}

    def make(reply: str) -> Path:
        if reply not in built:
            built[reply] = build_tiny_vlm("qwen2_vl", tmp_path_factory.mktemp("tiny-qwen2-vl"), reply=reply)
        return built[reply]

    return make


@pytest.fixture(scope="session")
def styled_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every styled family's rows in training styles, the benchmark style and the held-out style (about a second)."""
    from vgau_data.cli import main

    out = tmp_path_factory.mktemp("styled") / "rows"
    # --render-variety refuses the others; the package's only: generate refuses a family the held-out keys lack
    styled = [name for name in SHIPPED if FAMILIES[name].styles]
    common = ["--families", *styled, "--lengths", "2-4", "--workers", "1", "--no-progress", "--out", str(out)]
    for extra in (["--n", "2", "--render-variety"], ["--n", "1", "--split", "validation"],
                  ["--n", "1", "--split", "validation_ood"]):  # fmt: skip
        assert main(["generate", *common, *extra]) == 0
    return out


@pytest.fixture(scope="session")
def styled_export(
    styled_folder: Path, tmp_path_factory: pytest.TempPathFactory
) -> Callable[[str], list[dict[str, Any]]]:
    """``styled_export(format)``: every row of the ``trl`` (text_cot) or ``verl`` (text_cot) export of
    ``styled_folder``, as ``datasets`` reads them back (images decoded), exported once per format."""
    import datasets

    from vgau_data.training.exporters import export_training, get_exporter

    exported: dict[str, list[dict[str, Any]]] = {}

    def rows(name: str) -> list[dict[str, Any]]:
        if name not in exported:
            out = tmp_path_factory.mktemp(f"styled-{name}")
            export_training(styled_folder, get_exporter(name), out, protocol="text_cot" if name == "verl" else None,
                            progress=False)  # fmt: skip
            files = sorted(str(path) for path in out.glob("*/*/*.parquet"))
            exported[name] = list(datasets.Dataset.from_parquet(files))
        return exported[name]

    return rows


def row_spec(family: str, render_style: str | None) -> FamilySpec:
    """The family of an exported row as its images are drawn: in its ``render_style``, else the benchmark's."""
    from vgau_data.render_styles import RenderStyle

    spec = FAMILIES[family]
    return spec if render_style is None else spec.styled(RenderStyle.from_json(render_style))


def assert_board(spec: FamilySpec, image: Any, state: Any, *, annotated: bool = False) -> None:
    """``image`` is the board of ``state`` as ``spec`` draws it (annotated with the oracle grid when asked):
    its size, every cell read back with the styled decoder, and every pixel."""
    import numpy as np

    from vgau_data.fidelity.cells import read_cells
    from vgau_data.oracle_aids import annotate

    assert image.size == spec.geometry.size
    assert read_cells(spec, image.convert("RGB"), "grid" if annotated else "none") == spec.fidelity.cell_labels(state)
    board = spec.render(state)
    expected = annotate(spec, board, state) if annotated else board
    assert np.array_equal(np.asarray(image.convert("RGB")), np.asarray(expected.convert("RGB")))

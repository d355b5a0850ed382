"""Table 3 in both layouts, the fidelity, route and generation-context tables, on a hand-made diagnosis."""

from __future__ import annotations

import re

import pytest

from vgau_data.cli.diagnose import LAYOUTS as CLI_LAYOUTS
from vgau_data.cli.diagnose import MEASURES as CLI_MEASURES
from vgau_data.diagnosis.collect import ALL, Accuracy, Diagnosis, Fidelity
from vgau_data.diagnosis.conditions import TEXT, Condition, Source
from vgau_data.diagnosis.grid import Row, render_grid
from vgau_data.diagnosis.tables import (
    LAYOUTS,
    MEASURES,
    accuracy_cell,
    context_table,
    diagnosis_tables,
    models_table,
    route_table,
    sources_table,
)

NOISE, ORACLE, EDIT = Source("noise"), Source("oracle"), Source("external", "Qwen-Image-Edit")


def _acc(value: float, n: int = 20) -> dict[str, Accuracy]:
    return {"maze": Accuracy(value, value, n, 3), ALL: Accuracy(value, value, n, 3)}


def _fid(agreement: float, lpips: float | None = None) -> dict[str, Fidelity]:
    summary = Fidelity(images=5, cell_agreement=agreement, exact=agreement, ssim=agreement, lpips=lpips)
    return {"maze": summary, ALL: summary}


@pytest.fixture
def diagnosis() -> Diagnosis:
    found = Diagnosis(("easy",), ["maze"])
    for answerer, text_cot in (("Qwen3.5-9B", 0.25), ("Qwen3.5-27B", 0.60)):
        found.accuracy[Condition(answerer, TEXT, "text_cot")] = _acc(text_cot)
    found.accuracy[Condition("Qwen3.5-9B", NOISE, "gta")] = _acc(0.083)
    found.fidelity[Condition("Qwen3.5-9B", NOISE, "gta")] = _fid(0.02, 0.81)
    found.accuracy[Condition("Qwen3.5-9B", EDIT, "gta")] = _acc(0.266)
    found.fidelity[Condition("Qwen3.5-9B", EDIT, "gta")] = _fid(0.7, 0.3)
    found.accuracy[Condition("Qwen3.5-9B", ORACLE, "gta")] = _acc(0.9)
    found.accuracy[Condition("Qwen3.5-9B", ORACLE, "vcot")] = _acc(0.25)
    found.accuracy[Condition("Qwen3.5-27B", NOISE, "vr")] = _acc(0.183)
    found.fidelity[Condition("Qwen3.5-27B", NOISE, "vr")] = {
        "maze": Fidelity(4, 0.01, 0.0, 0.1, routes=4, route_feasible=0.0, route_optimal=0.0, answer_feasible=0.5)
    }
    return found


def test_accuracy_cell__as_the_paper_prints_it() -> None:
    assert accuracy_cell(Accuracy(0.083, 0.1, 20, 3), Accuracy(0.25, 0.3, 20, 3)) == "8.3 (-16.7)"
    assert accuracy_cell(Accuracy(0.25, 0.3, 20, 3), Accuracy(0.25, 0.3, 20, 3)) == "25.0 (+0.0)"
    assert accuracy_cell(Accuracy(0.5, 0.75, 20, 3), Accuracy(0.25, 0.5, 20, 3), feasible=True) == "75.0 (+25.0)"
    assert accuracy_cell(None, Accuracy(0.25, 0.3, 20, 3)) == "-"


def _row(text: str, label: str) -> list[str]:
    """The cells of the first row labelled ``label``, in order."""
    line = next(line for line in text.splitlines() if line.startswith(label + " "))
    return re.findall(r"\d+\.\d+ \([+-]\d+\.\d+\)|\d+\.\d+|(?<=\s)-(?=\s|$)", line[len(label) :])


def test_sources_table__rows_are_sources_columns_family_by_paradigm(diagnosis: Diagnosis) -> None:
    text = sources_table(diagnosis, "Qwen3.5-9B", "accuracy")
    assert text.splitlines()[0].startswith("Qwen3.5-9B: optimal accuracy (%), (delta to Text-CoT); easy rows")
    labels = [line.split("|")[0].strip() for line in text.splitlines()[4:]]
    assert labels[:4] == [
        "Text-CoT",
        "Vision: Gaussian noise",
        "Vision generator: Qwen-Image-Edit",
        "Oracle generation",
    ]
    assert re.search(r"GtA\s+VCoT", text.splitlines()[2])
    assert _row(text, "Vision: Gaussian noise")[:2] == ["8.3 (-16.7)", "-"]
    assert _row(text, "Oracle generation")[:2] == ["90.0 (+65.0)", "25.0 (+0.0)"]
    assert _row(text, "Text-CoT")[:2] == ["25.0", "25.0"]


def test_models_table__the_papers_page_layout(diagnosis: Diagnosis) -> None:
    text = models_table(diagnosis, "maze", "accuracy")
    lines = text.splitlines()
    assert re.search(r"Qwen3.5-9B\s+Qwen3.5-27B", lines[2])
    labels = [line.split("|")[0].rstrip() for line in lines[4:]]
    assert labels == ["Text-CoT", "Vision: Gaussian noise", "  Self-GtA", "  Self-VR",
                      "Vision generator: Qwen-Image-Edit", "  Self-GtA", "Oracle generation", "  Oracle-GtA",
                      "  Oracle-VCoT"]  # fmt: skip
    assert _row(text, "Text-CoT") == ["25.0", "60.0"]
    assert _row(text, "  Self-VR") == ["-", "18.3 (-41.7)"]


def test_fidelity_tables__no_text_cot_row_and_their_own_format(diagnosis: Diagnosis) -> None:
    text = sources_table(diagnosis, "Qwen3.5-9B", "cells")
    assert "Text-CoT" not in text.split("\n", 1)[1]
    assert _row(text, "Vision: Gaussian noise")[0] == "0.02"
    assert _row(sources_table(diagnosis, "Qwen3.5-9B", "lpips"), "Vision generator: Qwen-Image-Edit")[0] == "0.300"


def test_diagnosis_tables__lpips_without_weights_says_so(diagnosis: Diagnosis) -> None:
    text = diagnosis_tables(diagnosis, ["accuracy", "lpips"])
    assert "LPIPS: not computed; pass --lpips-weights" in text
    diagnosis.lpips = {"trunk_sha256": "t", "heads_sha256": "h"}
    assert "LPIPS against the oracle image" in diagnosis_tables(diagnosis, ["lpips"], "models")


def test_route_table__drawn_route_beside_the_stated_answer(diagnosis: Diagnosis) -> None:
    text = route_table(diagnosis)
    assert text is not None
    assert _row(text, "Qwen3.5-27B: Vision: Gaussian noise") == ["0.0", "0.0", "50.0"]
    assert "note:" not in text


def test_context_table__gain_over_the_previous_context(diagnosis: Diagnosis) -> None:
    assert context_table(diagnosis) is None
    for context, value in (("direct", 0.05), ("reasoning", 0.10), ("decontextualized", 0.30)):
        diagnosis.accuracy[Condition("Qwen3.5-9B", Source("self"), "gta", context)] = _acc(value)
    text = context_table(diagnosis)
    assert text is not None and re.search(r"direct\s+reasoning\s+decontext\.", text)
    assert _row(text, "Qwen3.5-9B: Self-GtA")[:3] == ["5.0", "10.0 (+5.0)", "30.0 (+20.0)"]


def test_grid__wraps_groups_to_the_width() -> None:
    rows = [Row("a", ["1"] * 6)]
    groups = [(name, ["x", "y"]) for name in ("maze", "sokoban", "path")]
    narrow = render_grid("T", rows, groups, width=30)
    assert narrow.count("maze") == 1 and len(narrow.split("\n\n")) == 3
    assert max(len(line) for line in narrow.splitlines()) <= 30
    assert len(render_grid("T", rows, groups, width=200).split("\n\n")) == 1
    with pytest.raises(ValueError, match="cells"):
        render_grid("T", [Row("a", ["1"])], groups)


def test_grid__escapes_names_from_files() -> None:
    text = render_grid("T", [Row("model\x1b[2J", ["1"])], [("g", ["c"])])
    assert "\x1b" not in text and "\\x1b[2J" in text


def test_cli__names_the_layouts_and_measures_of_the_tables() -> None:
    assert CLI_LAYOUTS == LAYOUTS and tuple(MEASURES) == CLI_MEASURES

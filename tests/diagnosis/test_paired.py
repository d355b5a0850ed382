"""UniG2U's paired deltas: a unified model's Direct and GtA against its base VLM's Direct."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from vgau_data.diagnosis.collect import DiagnosisError
from vgau_data.diagnosis.paired import load_results, paired_table


def _result(maze: float, sokoban: float, n: int = 20) -> dict:
    def cell(acc: float) -> dict:
        return {"optimal_accuracy": acc, "feasible_accuracy": acc, "parse_rate": 1.0, "n": n}

    return {"runs": 3, "per_family_difficulty": {"maze": {"easy": cell(maze), "hard": cell(0.0)},
                                                 "sokoban": {"easy": cell(sokoban)}}}  # fmt: skip


UNIFIED = ("Janus-Pro", {"direct": _result(0.10, 0.05), "self_gta": _result(0.25, 0.0)})
BASE = ("deepseek-vl", {"direct": _result(0.15, 0.05), "text_cot": _result(0.5, 0.5)})


def _cells(text: str, label: str) -> list[str]:
    line = next(line for line in text.splitlines() if line.startswith(label + " "))
    return re.findall(r"\d+\.\d+ \([+-]\d+\.\d+\)|\d+\.\d+|(?<=\s)-(?=\s|$)", line[len(label) :])


def test_paired_table__deltas_against_the_base_direct() -> None:
    text = paired_table(UNIFIED, BASE)
    assert "Janus-Pro against its base VLM deepseek-vl" in text.splitlines()[0]
    assert "ΔDirect" in text and "ΔGtA" in text
    assert _cells(text, "maze") == ["15.0", "10.0 (-5.0)", "25.0 (+10.0)"]
    assert _cells(text, "sokoban") == ["5.0", "5.0 (+0.0)", "0.0 (-5.0)"]
    assert _cells(text, "all families") == ["10.0", "7.5 (-2.5)", "12.5 (+2.5)"]


def test_paired_table__difficulties_pool_rows() -> None:
    text = paired_table(UNIFIED, BASE, difficulties=("easy", "hard"), families=["maze"])
    assert _cells(text, "maze") == ["7.5", "5.0 (-2.5)", "12.5 (+5.0)"]
    assert "sokoban" not in text


def test_paired_table__what_is_missing_is_named() -> None:
    with pytest.raises(DiagnosisError, match="base VLM 'deepseek-vl' has no direct"):
        paired_table(UNIFIED, ("deepseek-vl", {"text_cot": _result(0.5, 0.5)}))
    with pytest.raises(DiagnosisError, match="neither direct nor self_gta"):
        paired_table(("Janus-Pro", {"text_cot": _result(0.1, 0.1)}), BASE)
    only_direct = paired_table(("Janus-Pro", {"direct": _result(0.1, 0.1)}), BASE)
    assert _cells(only_direct, "maze") == ["15.0", "10.0 (-5.0)", "-"]


def test_load_results__a_file_a_folder_or_a_name_under_runs(runs_dir: Path, tmp_path: Path) -> None:
    path = tmp_path / "results.json"
    path.write_text(json.dumps({"Janus-Pro": {"META": {}, **UNIFIED[1]}}))
    assert load_results(path) == UNIFIED
    (folder,) = [p for p in runs_dir.iterdir() if p.name.startswith("oracle-")]
    model, protocols = load_results(folder)
    assert model == "oracle" and protocols["direct"]["optimal_accuracy"] == 1.0
    assert load_results(folder.name, runs_dir)[0] == "oracle"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "not valid JSON"),
        ("[]", "one model"),
        ('{"a": {}, "b": {}}', "one model"),
        ('{"a": 3}', "not an object"),
        ('{"a": {"direct": {"per_family_difficulty": []}}}', "a/direct: 'per_family_difficulty' must be an object"),
        ('{"a": {"direct": {"per_family_difficulty": {"maze": {"easy": {"n": "2"}}}}}}', "must be an integer"),
        ('{"a": {"direct": {"optimal_accuracy": 1e400}}}', "'optimal_accuracy' must be a number in"),
        ('{"a": {"direct": {"runs": ' + "9" * 400 + "}}}", "'runs' must be between 0 and 1000000"),
        ("[" * 3000 + "]" * 3000, "nested more than 64"),
    ],
)
def test_load_results__refuses_what_is_not_results(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "results.json"
    path.write_text(content)
    with pytest.raises(DiagnosisError, match=message):
        load_results(path)
    with pytest.raises(DiagnosisError, match="neither a results.json nor a model folder"):
        load_results(tmp_path / "absent", tmp_path)

"""Which condition a records file holds, and the order and titles of the paper's rows."""

from __future__ import annotations

import pytest

from vgau_data.diagnosis.conditions import SOURCE_KINDS, Condition, Source, classify


def _header(name: str, budget: str = "optimal", **extra: object) -> dict:
    return {"model": "qwen", "protocol": {"name": name, "budget": budget, "history": None, **extra}}


@pytest.mark.parametrize(
    ("name", "budget", "source", "paradigm"),
    [
        ("text_cot", "optimal", "text", "text_cot"),
        ("oracle_gta", "optimal", "oracle", "gta"),
        ("oracle_vcot", "optimal", "oracle", "vcot"),
        ("oracle_vcot", "fixed", "oracle", "vcot_fixed"),
        ("self_gta", "optimal", "self", "gta"),
        ("self_vcot", "fixed", "self", "vcot_fixed"),
        ("self_vr", "optimal", "self", "vr"),
    ],
)
def test_classify__paper_protocols(name: str, budget: str, source: str, paradigm: str) -> None:
    condition = classify(_header(name, budget), name)
    assert condition is not None
    assert (condition.answerer, condition.source.kind, condition.paradigm) == ("qwen", source, paradigm)


@pytest.mark.parametrize("name", ["direct", "oracle_aug_vcot", "probe"])
def test_classify__protocols_outside_the_diagnosis(name: str) -> None:
    assert classify(_header(name), name) is None


def test_classify__history_variants_are_left_out() -> None:
    assert (
        classify(_header("oracle_vcot", history=2) | {"protocol": {"name": "oracle_vcot", "history": 2}}, "x") is None
    )


def test_source__groups_run_from_no_image_to_assistance() -> None:
    sources = [Source("self"), Source("oracle"), Source("external", "B"), Source("perturbed", "10"),
               Source("perturbed", "2"), Source("mismatch"), Source("noise"), Source("external", "A")]  # fmt: skip
    ordered = sorted(sources, key=Source.sort_key)
    assert [(s.kind, s.name) for s in ordered] == [
        ("noise", ""), ("mismatch", ""), ("perturbed", "2"), ("perturbed", "10"),
        ("external", "A"), ("external", "B"), ("oracle", ""), ("self", ""),
    ]  # fmt: skip
    assert [s.title for s in ordered[:2]] == ["Vision: Gaussian noise", "Vision: Mismatch image"]
    with pytest.raises(ValueError, match="unknown image source"):
        Source("banana")
    assert SOURCE_KINDS[0] == "text"


def test_condition__row_titles_are_the_papers() -> None:
    assert Condition("m", Source("noise"), "vcot").row_title == "Self-VCoT"
    assert Condition("m", Source("oracle"), "gta").row_title == "Oracle-GtA"
    assert Condition("m", Source("text"), "text_cot").row_title == "Text-CoT"
    assert Condition("m", Source("external", "Qwen-Image"), "vcot_fixed").row_title == "Self-VCoT-fixed"

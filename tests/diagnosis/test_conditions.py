"""Which condition a records file holds, and the order and titles of the paper's rows."""

from __future__ import annotations

import pytest

from vgau_data.diagnosis.conditions import SOURCE_KINDS, Condition, Source, classify, source_of


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
        ("oracle_vr", "optimal", "oracle", "vr"),
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


def test_classify__a_history_limit_is_the_same_condition() -> None:
    """Models that read one image run Self-VCoT with history 1 (the paper's A.4): still Self-VCoT."""
    limited = classify(_header("self_vcot", history=1), "self_vcot_last1")
    assert limited == classify(_header("self_vcot"), "self_vcot")


def test_classify__who_drew_and_who_answered() -> None:
    pair = {
        "model": "Qwen3.5-9B+Qwen-Image-Edit",
        "backend": {"backend": "pair", "answerer": {"backend": "hf", "model": "/models/Qwen3.5-9B/"},
                    "generator": {"backend": "diffusers", "model": "/models/Qwen-Image-Edit"}},
        "protocol": {"name": "self_vcot", "budget": "fixed", "generation_context": "decontextualized"},
        "images": {"source": "external", "generator": "diffusers:Qwen-Image-Edit"},
    }  # fmt: skip
    assert classify(pair, "self_vcot_fixed_decontextualized") == Condition(
        "Qwen3.5-9B", Source("external", "Qwen-Image-Edit"), "vcot_fixed", "decontextualized"
    )
    noise = {"model": "scripted-image-noise", "backend": {"backend": "scripted-image", "model": "noise",
             "answerer": "oracle"}, "protocol": {"name": "self_gta"}, "images": {"source": "noise",
             "generator": "scripted-image:noise"}}  # fmt: skip
    assert classify(noise, "self_gta") == Condition("oracle", Source("noise"), "gta", "reasoning")
    janus = {"model": "models/Janus-Pro-7B", "backend": {"backend": "janus", "model": "models/Janus-Pro-7B"},
             "protocol": {"name": "self_vr", "generation_context": "direct"},
             "images": {"source": "self", "generator": "janus:Janus-Pro-7B"}}  # fmt: skip
    assert classify(janus, "self_vr_direct") == Condition("Janus-Pro-7B", Source("self"), "vr", "direct")
    assert classify({"model": "m", "protocol": {"name": "oracle_vr"}}, "oracle_vr") == Condition(
        "m", Source("oracle"), "vr"
    )


def test_source_of__every_kind_a_run_records() -> None:
    assert source_of("perturbed-3", "scripted-image:perturbed-3") == Source("perturbed", "3")
    assert source_of("oracle", "scripted-image:oracle").title == "Vision: oracle image (scripted-image)"
    assert source_of("mismatch", "scripted-image:mismatch") == Source("mismatch")
    with pytest.raises(ValueError, match="unknown image source"):
        source_of("banana", "")


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

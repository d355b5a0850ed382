"""The Contract pages list exactly what the code registers, and their examples run.

Each test names the registry a page describes; a failure says what the page lacks or has
too much, so adding a family, code, column or protocol fails here until its page says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.docs.conftest import Written
from tests.docs.pages import blocks, code_names, page, section, table, titled_block
from tests.families import PAPER_FAMILIES
from vgau_data.registry import FAMILIES

FAMILY_NAMES = [row[0] for row in table(page("contract/families.md"), "family")]
"""The families the contract documents: every family of the paper's benchmark (those whose authors published
records, ``paper``), in registry order; a family of one's own may be registered without a page entry."""


def example_json(family: str) -> Any:
    """The example state of ``family`` on the State schemas page, as a JSON object."""
    return json.loads(blocks(section(page("contract/states.md"), family), "json")[0][1])


def example_state(family: str) -> Any:
    return FAMILIES[family].from_json(json.dumps(example_json(family)))


def example_reference(family: str) -> str:
    spec = FAMILIES[family]
    state = example_state(family)
    solution = spec.solve(state)
    assert solution is not None
    fields = {"id": f"{family}-easy-0000", "task": family, "difficulty": "easy"}
    return json.dumps({**fields, "optimal_length": solution.optimal_length, "state": spec.to_json(state)})


# ---------------------------------------------------------------------------- families and rules


def test_families_page__lists_every_family_with_its_buckets() -> None:
    rows = table(page("contract/families.md"), "family")
    assert [name for name in FAMILIES if name in FAMILY_NAMES] == FAMILY_NAMES
    assert set(PAPER_FAMILIES) <= set(FAMILY_NAMES)
    for name, *_, easy, medium, hard in rows:
        buckets = {d: f"{low}-{high}" for d, (low, high) in FAMILIES[name].buckets.items()}
        assert {"easy": easy, "medium": medium, "hard": hard} == buckets, name


def test_families_page__has_the_rules_of_every_family() -> None:
    rules = section(page("contract/families.md"), "Rules, family by family")
    for name in FAMILY_NAMES:
        assert section(rules, name).strip(), name


def test_families_page__capability_table_is_the_optional_groups() -> None:
    from vgau_data.puzzles.base import CAPABILITIES

    rows = table(page("contract/families.md"), "capability")
    assert sorted(code_names(row[0])[0] for row in rows) == sorted(CAPABILITIES)


# ---------------------------------------------------------------------------- states and answers


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_states_page__example_is_a_valid_canonical_state(family: str) -> None:
    spec = FAMILIES[family]
    assert json.loads(spec.to_json(example_state(family))) == example_json(family), "not in the canonical form"


@pytest.mark.parametrize("family", FAMILY_NAMES)
def test_answers_page__example_answer_is_optimal_and_the_step_is_its_first(family: str) -> None:
    from vgau_data.metrics.scoring import score_answer

    spec = FAMILIES[family]
    examples = section(section(page("contract/answers.md"), "Examples"), family)
    answer_text = titled_block(examples, "answer").strip()
    verdict = score_answer(answer_text, example_reference(family))
    assert verdict.optimal, verdict
    state = example_state(family)
    first = spec.answer_steps(state, spec.parse_answer(answer_text))[0]
    assert spec.parse_step(titled_block(examples, "step")) == first


def test_answers_page__format_table_names_each_family_tag() -> None:
    rows = {row[0]: row for row in table(page("contract/answers.md"), "family")}
    assert list(rows) == FAMILY_NAMES
    for name in FAMILY_NAMES:
        spec = FAMILIES[name]
        _, answer, step = rows[name]
        if spec.answer_tag is None:
            assert "no tag" in answer, name
        else:
            assert f"<{spec.answer_tag}>" in answer, name
        first = spec.oracle_steps(example_state(name))[0]
        assert ("<STEP_JSON>" in step) == ("<STEP_JSON>" in spec.format_step(first)), name


def test_answers_page__tolerated_reply_reads_as_the_answer() -> None:
    text = page("contract/answers.md")
    maze = FAMILIES["maze"]
    tolerated = titled_block(section(text, "How an answer is read"), "tolerated")
    canonical = titled_block(section(section(text, "Examples"), "maze"), "answer")
    assert maze.parse_answer(tolerated) == maze.parse_answer(canonical)


# ---------------------------------------------------------------------------- reason codes and columns


def test_reason_codes_page__lists_exactly_the_known_codes() -> None:
    from vgau_data.metrics.results import MISSING
    from vgau_data.puzzles.base import ILLEGAL_CODES

    listed = [code_names(row[0])[0] for row in table(page("contract/reason-codes.md"), "code")]
    assert len(listed) == len(set(listed))
    assert set(listed) == ILLEGAL_CODES | {MISSING}


def _feature_type(feature: Any) -> str:
    from datasets import Image, List, Value

    if isinstance(feature, Value):
        return feature.dtype
    if isinstance(feature, Image):
        return "image"
    if isinstance(feature, List):
        return f"list of {_feature_type(feature.feature)}"
    raise AssertionError(f"no documented spelling for {feature!r}")


def test_columns_page__lists_the_features_in_order_with_their_types() -> None:
    from vgau_data.builders.hub_folder import features

    rows = table(page("contract/columns.md"), "column")
    documented = [(code_names(row[0])[0], row[1]) for row in rows]
    assert documented == [(name, _feature_type(feature)) for name, feature in features().items()]


# ---------------------------------------------------------------------------- protocols


def test_protocols_page__table_is_the_registry() -> None:
    from vgau_data.runners.protocols import protocol_class, protocol_names

    rows = table(page("contract/protocols.md"), "protocol")
    assert [code_names(row[0])[0] for row in rows] == protocol_names()
    for cell, summary, turns, budgets, runs in rows:
        cls = protocol_class(code_names(cell)[0])
        assert summary.replace("`", "") == cls.summary
        assert budgets == ", ".join(cls.budgets)
        assert int(runs) == cls.default_runs
        assert turns == ("many" if "fixed" in cls.budgets else "2" if cls.draws else "1"), cls.name


def test_protocols_page__variant_list_and_option_tables_are_the_registry() -> None:
    from vgau_data.runners.protocols import BUDGET_MODES, GENERATION_CONTEXTS, budget_variants

    text = page("contract/protocols.md")
    listed = section(text, "Variant names").split("The protocols with their budgets are:")[1].split("\n\n")[1]
    assert code_names(listed) == budget_variants()
    assert [code_names(row[0])[0] for row in table(text, "budget")] == list(BUDGET_MODES)
    assert [code_names(row[0])[0] for row in table(text, "context")] == list(GENERATION_CONTEXTS)


# ---------------------------------------------------------------------------- record formats


def _documented_fields(heading: str, first_header: str = "field") -> set[str]:
    """The field names in the first column of the table under ``heading`` on the Record formats page."""
    rows = table(section(page("contract/records.md"), heading), first_header)
    return {name for row in rows for name in code_names(row[0])}


def test_records_page__submission_fields_are_the_schema() -> None:
    from vgau_data.metrics import submission_schema_path

    schema = json.loads(Path(submission_schema_path()).read_text(encoding="utf-8"))["$defs"]
    for part, heading in (("header", "The header"), ("record", "Record lines")):
        rows = table(section(page("contract/records.md"), heading), "field")
        assert {code_names(row[0])[0] for row in rows} == set(schema[part]["properties"]), part
        required = {code_names(row[0])[0] for row in rows if row[1] == "yes"}
        assert required == set(schema[part]["required"]), part


def test_records_page__results_fields_are_what_score_and_run_write(written: Written) -> None:
    scored = json.loads(written.results.read_text())
    ran = json.loads((written.model_dir / "results.json").read_text())
    models = [next(iter(results.values())) for results in (scored, ran)]
    assert _documented_fields("`META`") == set().union(*(model["META"] for model in models))
    entries = [entry for model in models for key, entry in model.items() if key != "META"]
    assert _documented_fields("Protocol entries") == set().union(*entries)


def test_records_page__details_fields_are_what_score_writes(written: Written) -> None:
    fields = section(page("contract/records.md"), "Details").split("per verdict:")[1]
    assert set(code_names(fields)) == set().union(*written.lines(written.details))


def test_records_page__run_record_fields_are_what_run_writes(written: Written) -> None:
    files = sorted((written.model_dir / "records").glob("*/run-*.jsonl"))
    assert len(files) == 2  # a protocol that draws and one that does not
    lines = [line for path in files for line in written.lines(path)]
    headers = [line for line in lines if line["type"] == "header"]
    episodes = [line for line in lines if line["type"] == "episode"]
    assert _documented_fields("Records header") == set().union(*headers)
    assert _documented_fields("Episode lines") == set().union(*episodes)
    assert _documented_fields("Turns") == set().union(*(turn for episode in episodes for turn in episode["turns"]))
    images = [image for episode in episodes for image in episode.get("images", [])]
    assert images, "the protocol that draws recorded no image"
    assert _documented_fields("Images") == set().union(*images)


def test_records_page__image_index_and_requests_fields_are_what_run_writes(written: Written) -> None:
    index = written.lines(written.model_dir / "images" / "generated.jsonl")
    assert _documented_fields("The image index") == set().union(*index)
    requested = written.lines(written.model_dir / "records" / "requested.jsonl")
    assert _documented_fields("Requests") == set().union(*requested)

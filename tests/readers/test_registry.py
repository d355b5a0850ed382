"""The reader registry, and what every family's two readers must share."""

from __future__ import annotations

import numpy as np
import pytest

from tests.readers.test_fixtures import play
from vgau_data.errors import VgauError
from vgau_data.metrics.scoring import make_reference, score_answer, score_batch
from vgau_data.readers import READERS, ReaderError, env_reader, get_reader, reader_of_variant
from vgau_data.registry import FAMILIES
from vgau_data.runners.instances import Instance
from vgau_data.runners.protocols import ProtocolConfig, ProtocolError
from vgau_data.seeding import instance_seed, rng_for

FAMILY_NAMES = [name for name, spec in FAMILIES.items() if spec.authors_reader]
"""The families the authors' code reads (``authors_reader``); the ``authors`` reader refuses the others."""


def _instances(name: str, count: int = 2) -> list[Instance]:
    family = FAMILIES[name]
    rows = []
    for index in range(count):
        state = family.generate("easy", rng_for(instance_seed(41, name, "easy", index)), family.slot("easy", index))
        rows.append(Instance(id=f"{name}-easy-{index:04d}", task=name, difficulty="easy",
                             optimal_length=family.solve(state).optimal_length, state=family.to_json(state),
                             image_data=family.render(state)))  # fmt: skip
    return rows


def test_registry__names_lookup_and_variants(monkeypatch: pytest.MonkeyPatch) -> None:
    assert list(READERS) == ["ours", "authors"] and get_reader("authors").name == "authors"
    with pytest.raises(ReaderError, match="unknown reader 'theirs'; choose from ours, authors"):
        get_reader("theirs")
    assert isinstance(ReaderError("x"), VgauError)  # the CLI turns it into a one-line error
    assert reader_of_variant("self_vcot_fixed_direct_last1_authors") == "authors"
    assert reader_of_variant("oracle_aug_vcot_last2") == "ours"
    monkeypatch.delenv("VGAU_READER", raising=False)
    assert env_reader() == "ours"
    monkeypatch.setenv("VGAU_READER", " authors ")
    assert env_reader() == "authors"


def test_registry__every_family_of_the_paper_declares_an_authors_reader_and_one_without_is_refused() -> None:
    import dataclasses

    assert all(FAMILIES[name].authors_reader.family == name for name in FAMILY_NAMES)
    assert {name for name, spec in FAMILIES.items() if spec.paper} <= set(FAMILY_NAMES)  # every family of the paper
    bare = dataclasses.replace(FAMILIES["maze"], authors_reader=None)
    with pytest.raises(ReaderError, match="no reader for family 'maze'"):
        get_reader("authors").judge(bare, bare.from_json(_instances("maze", 1)[0].state), 1, "x")


def test_protocol_config__the_reader_names_the_variant_and_only_a_non_default_one_the_key() -> None:
    ours, theirs = (
        ProtocolConfig(name="oracle_vcot", budget="fixed"),
        ProtocolConfig(name="oracle_vcot", budget="fixed", reader="authors"),
    )
    assert (ours.variant, theirs.variant) == ("oracle_vcot_fixed", "oracle_vcot_fixed_authors")
    assert "reader" not in ours.to_dict() and theirs.to_dict()["reader"] == "authors"
    with pytest.raises(ProtocolError, match="reader must be one of"):
        ProtocolConfig(name="direct", reader="theirs")


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_both_readers__agree_on_canonical_answers(name: str) -> None:
    """Canonical, suboptimal-free, illegal and random answers in our format read the same under both."""
    family = FAMILIES[name]
    rng = np.random.default_rng(7)
    for instance in _instances(name):
        state = instance.initial_state()
        answers = [family.solve(state).answer] + [family.random_answer(state, rng) for _ in range(6)]
        for answer in answers:
            text = family.format_answer(answer)
            mine, theirs = score_answer(text, instance.reference), score_answer(text, instance.reference, "authors")
            assert (mine.feasible, mine.optimal) == (theirs.feasible, theirs.optimal), text
        assert score_answer(family.format_answer(answers[0]), instance.reference, "authors").optimal


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_authors_episodes__the_oracle_succeeds_except_path_under_the_fixed_budget(name: str) -> None:
    """Their path runner stops one move short of the destination, so an honest count (1 left) fails there."""
    family = FAMILIES[name]
    for instance in _instances(name, 1):
        steps = [family.format_step(step) for step in family.oracle_steps(instance.initial_state())]
        counts = [f"<answer>{len(steps) - k}</answer>" for k in range(1, len(steps) + 1)]
        for budget in ("optimal", "fixed"):
            outcome = play(instance, budget, steps, counts, "authors")
            solved = score_answer(outcome.output, instance.reference, "authors").optimal
            assert solved is not (name == "path" and budget == "fixed"), (budget, outcome.end)
            assert outcome.steps == len(steps) - (name == "path")


def test_score_answer__readers_are_checked_and_never_raise_on_text() -> None:
    instance = _instances("maze", 1)[0]
    with pytest.raises(ReaderError):
        score_answer("x", instance.reference, "theirs")
    for text in (None, "", " ", 123, "\x00" * 10):
        assert not score_answer(text, instance.reference, "authors").parsed  # type: ignore[arg-type]
    batch = score_batch(['["up"]'] * 2, [instance.reference] * 2, reader="authors", return_details=True)
    assert batch["parse_rate"] == 1.0 and all(d["parsed"] for d in batch["details"])
    row = {"id": instance.id, "task": "maze", "difficulty": "easy", "optimal_length": 1, "state": instance.state}
    assert score_answer("", make_reference(row), "authors").error == "no_answer"

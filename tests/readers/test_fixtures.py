"""Our readers on the hand-worked fixtures: every verdict and episode end as traced through the authors' code."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.readers.conftest import ANSWERS, EPISODES
from vgau_data.metrics.scoring import score_answer
from vgau_data.runners.backends.base import Completion
from vgau_data.runners.instances import Instance
from vgau_data.runners.protocols import ProtocolConfig, make_episode

DOCS = Path(__file__).parents[2] / "docs" / "readers.md"


@pytest.mark.parametrize("item", ANSWERS, ids=lambda item: f"{item['board']}-{item['class']}")
@pytest.mark.parametrize("reader", ["authors", "ours"])
def test_answers__verdicts_as_traced(item: dict[str, Any], reader: str, boards: dict[str, Instance]) -> None:
    verdict = score_answer(item["text"], boards[item["board"]].reference, reader)
    assert [verdict.feasible, verdict.optimal] == item[reader], item["trace"]


def play(instance: Instance, budget: str, steps: list[str], counts: list[str], reader: str) -> Any:
    """An Oracle-VCoT episode fed scripted step and steps-left replies (an empty reply once they run out)."""
    episode = make_episode(instance, ProtocolConfig(name="oracle_vcot", budget=budget, reader=reader))
    step_replies, count_replies = iter(steps), iter(counts)
    while not episode.done:
        replies = count_replies if episode.request().asks == "remaining" else step_replies
        episode.advance(Completion(text=next(replies, "")))
    return episode.outcome()


@pytest.mark.parametrize("item", EPISODES, ids=lambda item: f"{item['board']}-{item['class']}-{item['budget']}")
def test_episodes__end_where_the_authors_runner_ends(item: dict[str, Any], boards: dict[str, Instance]) -> None:
    instance = boards[item["board"]]
    expected = item["authors"]
    outcome = play(instance, item["budget"], item["steps"], item["counts"], "authors")
    accepted = outcome.steps - (outcome.end in ("illegal", "off_optimum", "wrong_label"))
    assert (outcome.end, accepted) == (expected["end"], expected["accepted"]), item["trace"]
    assert score_answer(outcome.output, instance.reference, "authors").feasible is expected["solved"]


@pytest.mark.parametrize("item", EPISODES, ids=lambda item: f"{item['board']}-{item['class']}-{item['budget']}")
def test_episodes__our_reader_ends_them_as_before(item: dict[str, Any], boards: dict[str, Instance]) -> None:
    instance = boards[item["board"]]
    outcome = play(instance, item["budget"], item["steps"], item["counts"], "ours")
    assert outcome.end == item["ours"]["end"]
    assert score_answer(outcome.output, instance.reference).feasible is item["ours"]["solved"]


def test_fixtures__every_difference_class_in_the_docs_has_one() -> None:
    """docs/readers.md names each difference's fixture class; each is in the fixtures, with the readers differing."""
    classes = set(re.findall(r"`fixture: ([a-z_]+)`", DOCS.read_text(encoding="utf-8")))
    assert len(classes) >= 25
    differing = {item["class"] for item in ANSWERS if item["authors"] != item["ours"]}
    differing |= {item["class"] for item in EPISODES if item["authors"]["solved"] != item["ours"]["solved"]
                  or item["authors"]["end"] != item["ours"]["end"]}  # fmt: skip
    assert classes <= differing, sorted(classes - differing)

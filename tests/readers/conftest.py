"""The hand-worked fixtures of the ``authors`` reader (``tests/data/authors_reader``).

``boards.json``: one small board per family (our state JSON). ``answers.jsonl``: final
answers written the ways models write them, each with the verdict ``[feasible, optimal]``
traced by hand through the authors' code (``trace``) and ours. ``episodes.jsonl``:
scripted step and steps-left replies, with where the authors' runner ends the episode
(``accepted`` moves, our name for the ``end``) and whether it is solved, and ours.
``benchmarks/authors_agreement.py --fixtures`` checks the authors' columns against their
actual code; these tests check our readers against both columns.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vgau_data.registry import FAMILIES
from vgau_data.runners.instances import Instance

FIXTURES = Path(__file__).parents[1] / "data" / "authors_reader"


def _lines(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines() if line.strip()]


ANSWERS = _lines("answers.jsonl")
EPISODES = _lines("episodes.jsonl")


def board_instance(name: str) -> Instance:
    """The fixture board ``name`` as a dataset row (its image drawn now)."""
    board = json.loads((FIXTURES / "boards.json").read_text(encoding="utf-8"))[name]
    family = FAMILIES[board["family"]]
    state = family.from_json(json.dumps(board["state"]))
    return Instance(
        id=f"{board['family']}-easy-0000", task=board["family"], difficulty="easy",
        optimal_length=board["optimal_length"], state=family.to_json(state), image_data=family.render(state),
    )  # fmt: skip


@pytest.fixture(scope="session")
def boards() -> dict[str, Instance]:
    names = json.loads((FIXTURES / "boards.json").read_text(encoding="utf-8"))
    return {name: board_instance(name) for name in names}

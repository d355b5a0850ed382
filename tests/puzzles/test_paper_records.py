"""The readers of the authors' record formats, on records we write in those formats."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest

from tests.families import PAPER_FAMILIES
from vgau_data.builders.from_paper import paper_formats
from vgau_data.builders.paper_images import open_board_image
from vgau_data.errors import PaperDataError
from vgau_data.puzzles.base import canonical_json
from vgau_data.puzzles.klotski.paper import read_record as read_klotski
from vgau_data.puzzles.maze.paper import read_record as read_maze
from vgau_data.puzzles.onet.paper import our_fruits
from vgau_data.puzzles.parking.paper import read_record as read_parking
from vgau_data.registry import FAMILIES

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "paper" / "data"
FORMATS = paper_formats()


def fixture_records(family: str) -> list[dict]:
    """The records of the authors' files recorded for ``family``; the calling test is skipped for a family the
    package does not ship that has none (its records are not the paper's: ``check_family`` reads its own back)."""
    path = FIXTURES / FORMATS[family].manifest
    if not path.is_file() and family not in PAPER_FAMILIES:
        pytest.skip(f"{family} has no recorded records of the authors ({path.relative_to(FIXTURES.parents[2])})")
    if path.suffix == ".jsonl":
        return [json.loads(line) for line in path.read_text().splitlines()]
    return json.loads(path.read_text())


def read(family: str, record: dict):
    image = None
    if FORMATS[family].walls_in_image:
        image = open_board_image((FIXTURES / family / record[FORMATS[family].image_key]).read_bytes(), "fixture")
    return FORMATS[family].read(record, image)


@pytest.mark.parametrize("family", list(FORMATS))
def test_readers__give_states_our_family_accepts_with_their_ids_and_labels(family: str) -> None:
    for record in fixture_records(family):
        converted = read(family, record)
        FAMILIES[family].from_json(canonical_json(converted.state))  # raises if our rules reject it
        label = record.get("difficulty", record.get("level"))
        assert converted.difficulty == {"easy": "easy", "middle": "medium", "hard": "hard"}[label]
        assert converted.task_id == record.get("task_id", f"maze_{record.get('id', 0):04d}")
        FAMILIES[family].parse_answer(converted.stored_answer)  # their solution reads in our format


def test_fixtures__every_paper_family_of_the_package_has_its_recorded_records() -> None:
    """``fixture_records`` skips only families the package does not ship."""
    assert PAPER_FAMILIES and all((FIXTURES / FORMATS[family].manifest).is_file() for family in PAPER_FAMILIES)


@pytest.mark.parametrize("family", list(FORMATS))
def test_readers__name_the_record_when_a_field_is_missing(family: str) -> None:
    """Every field the reader needs, dropped from a real record, is named with the record; the board's fields are among them."""
    first = fixture_records(family)[0]
    record_id = first.get("task_id") or f"maze_{first['id']:04d}"
    needed = []
    for field in sorted(set(first) - {FORMATS[family].image_key}):  # the image is opened before the reader runs
        record = {key: copy.deepcopy(value) for key, value in first.items() if key != field}
        try:
            read(family, record)
        except PaperDataError as error:
            named = "?" if field == FORMATS[family].id_key else record_id  # a record without its id is named "?"
            assert str(error).startswith(f"{family} record {named}: no field '{field}'"), error
            needed.append(field)
    assert needed, f"{family}: the reader needs no field of the record"
    assert {"maze": "walkable", "sokoban": "walls", "path": "labeled_points", "onet": "tile_legend",
            "parking": "cars", "klotski": "initial_state"}.get(family, needed[0]) in needed  # fmt: skip


def test_read_maze__an_integer_id_becomes_its_image_stem() -> None:
    record = dict(fixture_records("maze")[0], id=7)
    assert read_maze(record, None).task_id == "maze_0007"


@pytest.mark.parametrize("bad_id", ["../../etc", "", "a b", True, ["x"]])
def test_task_ids__must_be_plain_names(bad_id: object) -> None:
    record = dict(fixture_records("parking")[0], task_id=bad_id)
    with pytest.raises(PaperDataError, match="task_id must be a short name"):
        read_parking(record, None)


def test_read_parking__exit_row_is_one_based() -> None:
    record = copy.deepcopy(fixture_records("parking")[0])
    red = next(car for car in record["cars"] if car["id"] == "R")
    assert record["exit_row"] == red["row"] + 1  # how they write it: their prompt names exit_row - 1
    state = read_parking(record, None).state
    assert state["exit_row"] == red["row"]
    assert {v["orientation"] for v in state["vehicles"]} <= {"h", "v"}


def test_read_klotski__maps_t_vs_hs_ss_to_our_block_kinds() -> None:
    record = fixture_records("klotski")[0]
    blocks = read_klotski(record, None).state["blocks"]
    kinds = [block["kind"] for block in blocks]
    assert kinds.count("target") == 1 and kinds.count("vertical") == len(record["initial_state"]["Vs"])
    target = next(block for block in blocks if block["kind"] == "target")
    assert [target["row"], target["col"]] == record["initial_state"]["T"]
    assert (target["height"], target["width"]) == (2, 2)


def test_read_klotski__another_goal_is_an_error() -> None:
    record = dict(fixture_records("klotski")[0], goal_t_pos=[0, 0])
    with pytest.raises(PaperDataError, match=r"goal_t_pos is \[0, 0\]"):
        read_klotski(record, None)


def test_readers__an_unknown_difficulty_label_is_an_error() -> None:
    record = dict(fixture_records("maze")[0], difficulty="expert")
    with pytest.raises(PaperDataError, match="difficulty 'expert' is none of"):
        read_maze(record, None)


def test_read_maze__a_cell_off_the_board_is_an_error() -> None:
    record = dict(fixture_records("maze")[0], start=[3, 10])
    with pytest.raises(PaperDataError, match=r"start \[3, 10\] is outside the 10x10 board"):
        read_maze(record, None)


def test_our_fruits__keeps_ours_maps_aliases_and_gives_the_rest_distinct_fruits() -> None:
    mapping = our_fruits(["banana", "tomato", "apple_red", "grapes", "mango"])
    assert mapping["banana"] == "banana" and mapping["apple_red"] == "apple" and mapping["grapes"] == "grape"
    assert len(set(mapping.values())) == len(mapping) == 5
    assert our_fruits(["apple_red", "apple"]) == {"apple": "apple", "apple_red": "avocado"}  # ours first


def test_read_onet__a_tile_missing_from_the_legend_is_an_error() -> None:
    record = copy.deepcopy(fixture_records("onet")[0])
    record["tile_legend"].pop(sorted(record["tile_legend"])[0])
    with pytest.raises(PaperDataError, match="not letters of tile_legend"):
        read("onet", record)


@pytest.mark.parametrize("family", list(FORMATS))
def test_writers__write_the_fields_of_the_records_in_their_files(family: str) -> None:
    """``PaperFormat.write`` (what ``check_family`` reads back) keeps their layout: the keys and types of their records."""
    spec = FAMILIES[family]
    state = spec.generate("medium", np.random.default_rng(0))
    record, image = FORMATS[family].write(state, spec.solve(state).answer, "medium", 3)
    theirs = fixture_records(family)[0]
    assert {key: type(value) for key, value in record.items()} == {key: type(value) for key, value in theirs.items()}
    assert (image is not None) == FORMATS[family].walls_in_image

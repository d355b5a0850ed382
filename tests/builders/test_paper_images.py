"""Reading path walls back from boards in the authors' style, and loading their images safely."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from vgau_data.builders import paper_images
from vgau_data.builders.paper_images import load_board_image, open_board_image
from vgau_data.errors import PaperDataError
from vgau_data.puzzles.path.paper import THEIR_WALL as WALL
from vgau_data.puzzles.path.paper import draw_their_board, read_road_grid

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "paper" / "data"
FIXTURE_MAPS = {
    "path_labels_on_route_000": (
        "#.##.#..##", ".......#.#", ".###.#....", "#.....#.#.", ".#.#.#...#",
        "...#.##.#.", "#.###.....", "#######.#.", "######..##", "#######.##",
    ),
    "path_labels_on_route_001": (
        "#..#.#.##.", "##........", "###.#.###.", "####....#.", "#####.##.#",
        "#........#", "##.#.#.#..", "#########.", "########..", "#########.",
    ),
}
"""The road maps we drew the fixture images from (tests/fixtures/paper/data/path/images)."""
SMALL = ("#.#", "...", "#.#")


def _known(record: dict) -> set[tuple[int, int]]:
    cells = [record["start"], record["goal"], *record["labeled_points"].values()]
    return {(r, c) for r, c in cells}


@pytest.mark.parametrize("record", json.loads((FIXTURES / "path" / "dataset_manifest.json").read_text()),
                         ids=lambda record: record["task_id"])
def test_read_road_grid__recovers_the_map_of_a_fixture_image(record: dict) -> None:
    data = (FIXTURES / "path" / record["image_path"]).read_bytes()
    image = open_board_image(data, "fixture")
    assert read_road_grid(image, 10, known_open=_known(record), at="fixture") == FIXTURE_MAPS[record["task_id"]]


def test_read_road_grid__does_not_sample_cells_under_markers_and_letters() -> None:
    image = draw_their_board(SMALL, (1, 0), (1, 2), {"A": (1, 1)}, cell_px=20)
    ImageDraw.Draw(image).rectangle((20, 20, 39, 39), fill=WALL)  # the letter's cell drawn all dark
    assert read_road_grid(image, 3, known_open={(1, 0), (1, 2), (1, 1)}, at="r") == SMALL


def test_read_road_grid__names_the_record_and_cell_when_a_cell_is_ambiguous() -> None:
    image = draw_their_board(SMALL, (1, 0), (1, 2), {}, cell_px=20)
    ImageDraw.Draw(image).rectangle((20, 0, 29, 19), fill=WALL)  # cell (0, 1): half wall, half road
    with pytest.raises(PaperDataError, match=r"path record p7: cell \[0, 1\] .* neither a wall nor a road"):
        read_road_grid(image, 3, known_open={(1, 0), (1, 2)}, at="path record p7")


def test_read_road_grid__rejects_a_colour_that_is_neither_dark_nor_light() -> None:
    image = draw_their_board(SMALL, (1, 0), (1, 2), {}, cell_px=20)
    ImageDraw.Draw(image).rectangle((0, 0, 19, 19), fill=(200, 30, 30))  # a red cell
    with pytest.raises(PaperDataError, match=r"cell \[0, 0\]"):
        read_road_grid(image, 3, known_open=set(), at="path record p7")


def test_read_road_grid__rejects_an_image_too_small_for_the_grid() -> None:
    with pytest.raises(PaperDataError, match="too small for 10x10"):
        read_road_grid(Image.new("RGB", (30, 30)), 10, known_open=set(), at="path record p7")


def test_load_board_image__absent_is_none_and_garbage_is_an_error(tmp_path: Path) -> None:
    assert load_board_image(tmp_path / "nothing.png", "r") is None
    (tmp_path / "bad.png").write_bytes(b"\x89PNG not really")
    with pytest.raises(PaperDataError, match="maze record 3: image .*bad.png is not a PNG, WebP or JPEG image"):
        load_board_image(tmp_path / "bad.png", "maze record 3")


def test_load_board_image__refuses_large_files_and_huge_dimensions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "board.png"
    Image.new("RGB", (64, 8)).save(path)
    assert load_board_image(path, "r") == path.read_bytes()
    monkeypatch.setattr(paper_images, "MAX_IMAGE_SIDE", 32)
    with pytest.raises(PaperDataError, match="at most 32 a side"):
        load_board_image(path, "r")
    monkeypatch.setattr(paper_images, "MAX_IMAGE_BYTES", 10)
    with pytest.raises(PaperDataError, match="over the limit of 10 bytes$"):
        load_board_image(path, "r")

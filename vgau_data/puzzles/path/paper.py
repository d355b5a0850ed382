"""The authors' path records, read in our terms (``FamilySpec.paper``), walls read from their images.

``path/dataset_manifest.json`` of their ``data/``: ``task_id``, ``difficulty``,
``grid_size``, ``start``, ``goal``, ``labeled_points`` {letter: cell}, ``answer``
(``"B,E,D"``), ``distance`` (moves), ``answer_path``, ``image_path``. No walls: the road
map exists only in the image.

Their path boards are drawn edge to edge as ``size`` x ``size`` equal cells (their own
reader takes ``cell = width / size``): walls black, roads light gray, an orange start
triangle, a blue destination triangle and black letters on labelled cells. So
``read_road_grid`` samples a lattice of points around each cell's centre: a cell is a
wall when nearly all of them are dark, a road when nearly all are light, and anything in
between is an error naming the record and the cell. Cells under a marker or a letter are
roads by definition and are not sampled.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from vgau_data.errors import PaperDataError
from vgau_data.puzzles.paper_records import (
    THEIR_DIFFICULTY,
    PaperFormat,
    PaperRecord,
    _cell,
    _cell_field,
    _cells_field,
    _get,
    _int_field,
    _size,
    difficulty,
    task_id,
    where,
)
from vgau_data.puzzles.path.rules import route
from vgau_data.puzzles.path.state import PathState
from vgau_data.types import Cell

if TYPE_CHECKING:
    from PIL import Image

MIN_CELL_PX: Final = 4
SAMPLE_OFFSETS: Final = (0.3, 0.4, 0.5, 0.6, 0.7)
"""Where, as fractions of a cell's side, the lattice samples each cell (5 x 5 points)."""
DARK_BELOW: Final = 60
"""Luminance under which a sample is wall-dark (their own reader's threshold)."""
LIGHT_ABOVE: Final = 140
"""Luminance over which a sample is road-light (their roads are light gray)."""
AGREEMENT: Final = 0.9
"""Fraction of a cell's samples that must agree for the cell to be read."""


@dataclass(frozen=True, slots=True)
class PathRoute:
    """What a path record says without its image: the route (start to goal), the labels, the answer."""

    task_id: str
    difficulty: str
    side: int
    route: tuple[Cell, ...]
    labels: dict[str, Cell]
    answer: str
    distance: int


def read_route(record: Mapping[str, Any]) -> PathRoute:
    """A path record's fields, the route checked against them (no walls: those are in the image).

    Raises:
        PaperDataError: a field is absent or malformed, or the route does not run from
            ``start`` to ``goal`` by neighbouring cells.
    """
    at = where("path", record, "task_id")
    side = _size(record, "grid_size", 10, at)
    size = (side, side)
    points = _get(record, "labeled_points", at)
    if not isinstance(points, dict) or len(points) > 26:
        raise PaperDataError(f"{at}: labeled_points must be an object {{letter: [r, c]}}, got {points!r:.60}")
    labels = {str(letter)[:5]: _cell(cell, f"label {letter!s:.5}", at, size) for letter, cell in points.items()}
    start = _cell_field(record, "start", at, size)
    goal = _cell_field(record, "goal", at, size)
    cells = tuple(_cells_field(record, "answer_path", at, size))
    answer = _get(record, "answer", at)
    if not isinstance(answer, str) or len(answer) > 100:
        raise PaperDataError(f"{at}: answer must be a short string like 'B,E,D', got {answer!r:.40}")
    if not cells or cells[0] != start or cells[-1] != goal or any(
        abs(r0 - r1) + abs(c0 - c1) != 1 for (r0, c0), (r1, c1) in itertools.pairwise(cells)
    ):
        raise PaperDataError(f"{at}: answer_path must run from start to goal through neighbouring cells")
    return PathRoute(task_id(record, "task_id", at, "path"), difficulty(record, "difficulty", at), side, cells,
                     labels, answer, _int_field(record, "distance", at))


def read_record(record: Mapping[str, Any], image: Image.Image | None) -> PaperRecord:
    """A path record, its walls read from its image (``read_road_grid``)."""
    at = where("path", record, "task_id")
    fields = read_route(record)
    if image is None:
        raise PaperDataError(f"{at}: path records keep their walls only in the image, and there is none")
    start, goal = fields.route[0], fields.route[-1]
    grid = read_road_grid(image, fields.side, known_open={start, goal, *fields.labels.values()}, at=at)
    walls_on_route = [list(cell) for cell in fields.route if grid[cell[0]][cell[1]] != "."]
    if walls_on_route:
        raise PaperDataError(
            f"{at}: its image shows walls at {walls_on_route[:5]} on the stored answer_path; "
            "the image does not belong to this record or is not in the authors' style"
        )
    return PaperRecord(
        task_id=fields.task_id,
        difficulty=fields.difficulty,
        state={"grid": grid, "start": start, "end": goal, "labels": fields.labels},
        stored_answer=f"<answer>{fields.answer}</answer>",
        stored_optimum=fields.distance,
    )


def read_road_grid(image: Image.Image, size: int, *, known_open: Collection[Cell], at: str) -> tuple[str, ...]:
    """The ``#``/``.`` rows of a path board drawn in the authors' style.

    Raises:
        PaperDataError: the image is too small for ``size`` cells, or a cell is neither
            clearly dark nor clearly light (named with its samples' verdict).
    """
    width, height = image.size
    if min(width, height) < size * MIN_CELL_PX:
        raise PaperDataError(f"{at}: its image is {width}x{height} px, too small for {size}x{size} cells")
    luminance = np.asarray(image.convert("L"), dtype=np.uint8)
    fractions = np.array(SAMPLE_OFFSETS)
    rows = []
    for r in range(size):
        ys = ((r + fractions) * height / size).astype(int)
        row = []
        for c in range(size):
            if (r, c) in known_open:
                row.append(".")
                continue
            xs = ((c + fractions) * width / size).astype(int)
            samples = luminance[np.ix_(ys, xs)]
            dark = float(np.mean(samples < DARK_BELOW))
            light = float(np.mean(samples > LIGHT_ABOVE))
            if dark >= AGREEMENT:
                row.append("#")
            elif light >= AGREEMENT:
                row.append(".")
            else:
                raise PaperDataError(
                    f"{at}: cell [{r}, {c}] of its image is neither a wall nor a road "
                    f"({dark:.0%} of the samples dark, {light:.0%} light); is the image in the authors' style?"
                )
        rows.append("".join(row))
    return tuple(rows)


THEIR_WALL: Final = (0, 0, 0)
THEIR_ROAD: Final = (205, 205, 205)
THEIR_START: Final = (255, 140, 0)
THEIR_GOAL: Final = (40, 90, 220)
THEIR_LETTER: Final = (10, 10, 10)
"""The colours their path prompts describe: black walls, light-gray roads, orange start, blue destination."""


def draw_their_board(
    rows: Sequence[str], start: Sequence[int], goal: Sequence[int], labels: Mapping[str, Sequence[int]], cell_px: int = 32
) -> Image.Image:
    """``rows`` of ``#``/``.`` drawn in the style of their path images (edge-to-edge cells, our own code)."""
    from PIL import Image, ImageDraw, ImageFont  # Pillow where the family draws, not at import

    size = len(rows)
    image = Image.new("RGB", (size * cell_px, size * cell_px), THEIR_ROAD)
    draw = ImageDraw.Draw(image)
    for r, row in enumerate(rows):
        for c, char in enumerate(row):
            if char == "#":
                draw.rectangle((c * cell_px, r * cell_px, (c + 1) * cell_px - 1, (r + 1) * cell_px - 1), fill=THEIR_WALL)
    for (r, c), colour in ((start, THEIR_START), (goal, THEIR_GOAL)):
        x0, y0, inset = c * cell_px, r * cell_px, cell_px // 6
        draw.polygon([(x0 + cell_px // 2, y0 + inset), (x0 + inset, y0 + cell_px - inset),
                      (x0 + cell_px - inset, y0 + cell_px - inset)], fill=colour)  # fmt: skip
    font = ImageFont.load_default(size=int(cell_px * 0.7))
    for letter, (r, c) in labels.items():
        draw.text((c * cell_px + cell_px // 2, r * cell_px + cell_px // 2), letter, font=font, fill=THEIR_LETTER, anchor="mm")
    return image


def write_record(state: PathState, answer: Sequence[str], level: str, index: int) -> tuple[dict[str, Any], Image.Image]:
    """Our instance as one record of their manifest, with its image: the walls are only in the image."""
    cells = route(state) or ()
    labels = {letter: list(cell) for letter, cell in state.labels}
    record = {
        "task_id": f"path_labels_on_route_{index:03d}",
        "image_path": f"images/path_labels_on_route_{index:04d}.png",
        "difficulty": THEIR_DIFFICULTY[level],
        "distance": len(cells) - 1,
        "grid_size": len(state.grid),
        "start": list(state.start),
        "goal": list(state.end),
        "labeled_points": labels,
        "on_path_labels": list(answer),
        "answer_path": [list(cell) for cell in cells],
        "answer": ",".join(answer),
    }
    return record, draw_their_board(state.grid, state.start, state.end, labels)


CARD_NOTE: Final = "- Path records hold no walls; they were read from each image by sampling cell centres.\n"
PAPER = PaperFormat(
    "path/dataset_manifest.json", "image_path", "task_id", read_record, write_record, walls_in_image=True,
    card_note=CARD_NOTE,
)
"""Where the authors' path records are and how one is read."""

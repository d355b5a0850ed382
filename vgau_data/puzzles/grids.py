"""Pieces shared by the 10x10 grid families (maze, sokoban, path).

These families agree on more than the board size: maze and sokoban answer with the same
direction list, ``<ANSWER_JSON>["up","left",...]</ANSWER_JSON>``, and the same interactive
step, the sentence "Next, move one step up."; maze and path both store a 10x10 grid of ``#`` and
``.`` rows, validate it the same way, grow their open cells as an induced tree and draw
them as flat-coloured cells. This module holds one copy of each, so a fix to the answer
parser or the state validation reaches every family that uses it.

Direction-list answers:
    ``parse_direction_answer`` reads the last tagged list (tolerating prose, fences,
    case, single quotes, trailing commas, ``u d l r`` and a bracket-less word list);
    ``direction_payload`` is the compact JSON list stored in the ``solution`` column;
    ``format_direction_answer`` wraps that payload in the tags. ``parse_move_sentence``
    and ``format_move_sentence`` are the per-turn step of maze and sokoban.

Grid helpers:
    ``load_state_object``, ``grid_from_json`` and ``cell_from_json`` validate state JSON
    (raising ``StateError``); ``NEIGHBOURS``, ``induced_path`` and ``grow_tree`` work on
    flat cell indices ``r*10+c``; ``cells_image`` draws the cell area and ``open_cells``
    names the cells of a state the oracle aids label (every cell that is not a wall).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from vgau_data.answers import MAX_ANSWER_STEPS, MAX_PAYLOAD_CHARS, answer_text, last_tagged, load_lenient, strip_fences
from vgau_data.errors import StateError
from vgau_data.puzzles.base import AnswerError, Cell, Direction, canonical_json, parse_direction
from vgau_data.rendering import BoardGeometry

if TYPE_CHECKING:
    from PIL import Image

# --------------------------------------------------------------------------- constants

SIZE: Final = 10
WALL: Final = "#"
OPEN: Final = "."
GEOMETRY: Final = BoardGeometry(rows=SIZE, cols=SIZE, cell_px=52)

DIRECTION_TAG: Final = "ANSWER_JSON"
"""The tag around a direction-list answer."""

NEIGHBOURS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(
        (r + dr) * SIZE + (c + dc)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
        if 0 <= r + dr < SIZE and 0 <= c + dc < SIZE
    )
    for r in range(SIZE)
    for c in range(SIZE)
)
"""Flat-index neighbours of every cell of the 10x10 board (generator only)."""

# --------------------------------------------------------------------------- direction-list answers

_WORD_SPLIT = re.compile(r"[\s,;]+")


def parse_direction_answer(text: str) -> tuple[Direction, ...]:
    """The last ``<ANSWER_JSON>[...]</ANSWER_JSON>`` list of directions in ``text``.

    Tolerates prose, fences, case, single quotes, trailing commas, ``u d l r`` and a
    bracket-less word list. Raises ``AnswerError`` (``no_answer``, ``bad_format``,
    ``unknown_action``) and nothing else.

    Example:
        >>> parse_direction_answer("so: <answer_json>['Up', 'l',]</answer_json>")
        ('up', 'left')
        >>> parse_direction_answer("<ANSWER_JSON>down, R</ANSWER_JSON>")
        ('down', 'right')
    """
    text = answer_text(text)
    payload = last_tagged(text, DIRECTION_TAG)
    if payload is None:
        raise AnswerError("no_answer", f"no <{DIRECTION_TAG}>...</{DIRECTION_TAG}> found")
    if len(payload) > MAX_PAYLOAD_CHARS:
        raise AnswerError("bad_format", f"payload of {len(payload)} characters")
    if "[" in payload or "{" in payload:
        value = load_lenient(payload)
        if not isinstance(value, list):
            raise AnswerError("bad_format", f"expected a list of directions, got {type(value).__name__}")
    else:  # tolerate a bare word list: up, left, down
        value = [word.strip("\"'`") for word in _WORD_SPLIT.split(strip_fences(payload)) if word.strip("\"'`")]
        if not value:
            raise AnswerError("bad_format", "empty payload")
    if len(value) > MAX_ANSWER_STEPS:
        raise AnswerError("bad_format", f"{len(value)} steps (more than {MAX_ANSWER_STEPS})")
    steps = []
    for item in value:
        if not isinstance(item, str):
            raise AnswerError("bad_format", f"a step must be a direction string, got {item!r:.40}")
        steps.append(parse_direction(item))
    return tuple(steps)


def direction_payload(answer: Sequence[Direction]) -> str:
    """Compact JSON list, e.g. ``["up","left"]`` (the dataset's ``solution`` column).

    Example:
        >>> direction_payload(("up", "left"))
        '["up","left"]'
    """
    return canonical_json(list(answer))


def format_direction_answer(answer: Sequence[Direction]) -> str:
    """The full answer text: ``<ANSWER_JSON>["up","left"]</ANSWER_JSON>``.

    Example:
        >>> format_direction_answer(("down",))
        '<ANSWER_JSON>["down"]</ANSWER_JSON>'
    """
    return f"<{DIRECTION_TAG}>{direction_payload(answer)}</{DIRECTION_TAG}>"


_MOVE_SENTENCE = re.compile(r"\bmove\W+(?:one\W+(?:step|cell)\W+)?(up|down|left|right)\b", re.IGNORECASE)
MOVE_SENTENCE_FORMAT: Final = (
    'the sentence "Next, move one step <direction>." with <direction> one of up, down, left, right'
)
"""How maze and sokoban write one interactive step (the authors' per-step form)."""


def parse_move_sentence(text: str) -> Direction:
    """The direction of the last "move (one step) <direction>" in a reply.

    Raises ``AnswerError("no_answer")`` when there is none.

    Example:
        >>> parse_move_sentence("Not left: a wall. Next, move one step Down.")
        'down'
    """
    last = None
    for last in _MOVE_SENTENCE.finditer(answer_text(text)[-MAX_PAYLOAD_CHARS:]):  # noqa: B007 - keeps the last match
        pass
    if last is None:
        raise AnswerError("no_answer", 'no "Next, move one step <direction>." found')
    return last.group(1).lower()  # type: ignore[return-value]


def format_move_sentence(step: Direction) -> str:
    """One step as the sentence maze and sokoban turns end with.

    Example:
        >>> format_move_sentence("left")
        'Next, move one step left.'
    """
    return f"Next, move one step {step}."


# --------------------------------------------------------------------------- state JSON


def load_state_object(text: str) -> dict[str, Any]:
    """``json.loads`` a state string into a dict, or raise ``StateError`` (shared with path)."""
    if not isinstance(text, str):
        raise StateError(f"state must be a JSON string, got {type(text).__name__}")
    try:
        obj = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise StateError(f"state is not valid JSON: {e}") from e
    if not isinstance(obj, dict):
        raise StateError(f"state must be a JSON object, got {type(obj).__name__}")
    return obj


def grid_from_json(value: object, size: int) -> tuple[str, ...]:
    """Validate a ``size`` x ``size`` list of ``#``/``.`` rows (shared with path)."""
    if not isinstance(value, list) or len(value) != size:
        raise StateError(f"grid must be a list of {size} strings")
    for index, row in enumerate(value):
        if not isinstance(row, str) or len(row) != size or set(row) - {WALL, OPEN}:
            raise StateError(f"grid row {index} must be a string of {size} '#'/'.' characters, got {row!r:.40}")
    return tuple(value)


def cell_from_json(value: object, name: str, grid: tuple[str, ...]) -> Cell:
    """Validate ``[r, c]`` as an open cell of ``grid`` (shared with path)."""
    fast = type(value) is list and len(value) == 2 and type(value[0]) is int and type(value[1]) is int
    if not fast and (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise StateError(f"{name} must be [r, c] with integer r and c, got {value!r:.40}")
    r, c = value
    if not (0 <= r < len(grid) and 0 <= c < len(grid[0])):
        raise StateError(f"{name} {value} is outside the {len(grid)}x{len(grid[0])} board")
    if grid[r][c] != OPEN:
        raise StateError(f"{name} {value} is on a wall; it must be an open cell")
    return (r, c)


# --------------------------------------------------------------------------- generator


EVERYWHERE: Final = bytes([1]) * (SIZE * SIZE)
"""Cell mask of the whole board (flat indices ``r*10+c``)."""
INTERIOR: Final = bytes(int(0 < r < SIZE - 1 and 0 < c < SIZE - 1) for r in range(SIZE) for c in range(SIZE))
"""Cell mask of rows and columns 1-8: open cells there leave a wall border, as the authors' mazes."""


def induced_path(
    rng: np.random.Generator,
    moves: int,
    inside: bytes = EVERYWHERE,
    *,
    progress: float = 0.0,
    turn: float = 0.0,
    budget: int = 4000,
) -> list[int] | None:
    """A random simple path of ``moves`` moves by randomized depth-first search, or None.

    Cells are flat indices inside the ``inside`` mask. Each new cell touches no path cell
    but its predecessor (an *induced* path), so growing leaves around it later can never
    shorten or duplicate it. The search tries a cell's neighbours in random order, shifted
    towards those leading away from the start (``progress``) and those that turn
    (``turn``): each adds its weight to a uniform [0, 1) key. It backtracks out of dead
    ends and gives up (None) after ``budget`` steps; callers draw a new start then.
    """
    cells = [i for i in range(SIZE * SIZE) if inside[i]]
    start = cells[int(rng.integers(len(cells)))]
    row, col = divmod(start, SIZE)

    def order(cell: int, previous: int | None) -> list[int]:
        """``cell``'s neighbours inside the mask, the one to try first last."""
        here = abs(cell // SIZE - row) + abs(cell % SIZE - col)
        options = [nb for nb in NEIGHBOURS[cell] if inside[nb]]
        keys = rng.random(len(options)).tolist()
        for k, nb in enumerate(options):
            keys[k] += progress * (abs(nb // SIZE - row) + abs(nb % SIZE - col) > here)
            keys[k] += turn * (previous is not None and nb - cell != cell - previous)
        return [nb for _, nb in sorted(zip(keys, options))]

    on_path = bytearray(SIZE * SIZE)
    on_path[start] = 1
    path = [start]
    options = [order(start, None)]
    for _ in range(budget):
        if len(path) == moves + 1:
            return path
        if not options[-1]:
            on_path[path.pop()] = 0
            options.pop()
            if not path:
                return None
            continue
        cell = options[-1].pop()
        if on_path[cell] or sum(on_path[nb] for nb in NEIGHBOURS[cell]) != 1:
            continue
        on_path[cell] = 1
        path.append(cell)
        options.append(order(cell, path[-2]))
    return path if len(path) == moves + 1 else None


def grow_tree(
    rng: np.random.Generator,
    seed_cells: Sequence[int],
    size: int,
    inside: bytes = EVERYWHERE,
    corridor_weight: float = 1.0,
) -> bytearray:
    """Grow the open cells ``seed_cells`` (an induced tree) by leaf cells until ``size`` are open.

    A leaf cell is a closed cell inside ``inside`` that touches exactly one open cell, so
    the open cells stay an induced tree (connected, acyclic: one simple path between any
    two). Each step picks the cell to sprout from uniformly among the open cells that have
    a leaf cell next to them, a corridor cell (two open neighbours) counting
    ``corridor_weight`` times, then one of its leaf cells. Stops early when no leaf cell
    is left. Returns the open-cell mask (flat indices ``r*10+c``).
    """
    is_open = bytearray(SIZE * SIZE)
    touching = bytearray(SIZE * SIZE)  # open neighbours of each cell
    opened = list(seed_cells)
    for cell in opened:
        is_open[cell] = 1
        for nb in NEIGHBOURS[cell]:
            touching[nb] += 1
    while len(opened) < size:
        sprouts, weights = [], []
        for cell in opened:
            spots = [nb for nb in NEIGHBOURS[cell] if inside[nb] and not is_open[nb] and touching[nb] == 1]
            if spots:
                sprouts.append(spots)
                weights.append(corridor_weight if touching[cell] == 2 else 1.0)
        if not sprouts:
            break
        pick = rng.random() * sum(weights)
        k = 0
        while k < len(weights) - 1 and pick >= weights[k]:
            pick -= weights[k]
            k += 1
        cell = sprouts[k][int(rng.integers(len(sprouts[k])))]
        is_open[cell] = 1
        opened.append(cell)
        for nb in NEIGHBOURS[cell]:
            touching[nb] += 1
    return is_open


# --------------------------------------------------------------------------- renderer


def open_cells(state: Any) -> frozenset[Cell]:
    """The cells of ``state.grid`` that are not walls: those the aids of maze, sokoban and path label.

    Example:
        >>> from types import SimpleNamespace
        >>> sorted(open_cells(SimpleNamespace(grid=("#.", ".#"))))
        [(0, 1), (1, 0)]
    """
    return frozenset((r, c) for r, row in enumerate(state.grid) for c, char in enumerate(row) if char != WALL)


def cells_image(
    grid: tuple[str, ...], colours: dict[str, tuple[int, int, int]], cell_px: int = GEOMETRY.cell_px
) -> Image.Image:
    """The cell area: one flat colour per grid character, each cell ``cell_px`` square.

    Drawn as a 1-pixel-per-cell image scaled up by an integer factor (nearest neighbour),
    about 20x faster than one rectangle per cell. Shared with the path family.
    """
    from PIL import Image

    pixels = b"".join(bytes(colours[char]) for row in grid for char in row)
    small = Image.frombytes("RGB", (len(grid[0]), len(grid)), pixels)
    return small.resize((len(grid[0]) * cell_px, len(grid) * cell_px), Image.Resampling.NEAREST)

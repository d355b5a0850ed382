"""Onet: clear a 6x6 board of fruit tiles by removing connectable identical pairs.

Board:
    6x6 cells; each cell holds a fruit tile or is empty. Every fruit on the board appears
    exactly twice. Fruits are drawn from ``FRUITS`` (18 kinds); which ones appear is random.

Step:
    ``((r1, c1), (r2, c2))`` removes the two tiles at those cells. It is legal when both
    cells are on the board (else ``out_of_bounds``), are different cells (``same_cell``),
    both hold a tile (``empty_cell``), show the same fruit (``not_identical``), and are
    joined by an orthogonal path with at most two turns whose inner cells are all empty
    (``not_connectable``). The path stays INSIDE the 6x6 board: it may not run around the
    outside edge (a fixed rule of this benchmark; it changes which boards are solvable).
    Codes are checked in that order.

Goal:
    An empty board. Removal only frees cells, so a connectable pair stays connectable;
    with two tiles per fruit there is never a choice of partner, so greedy removal is a
    complete solver and every complete answer has one step per pair.

Buckets:
    ``optimal_length`` = number of pairs: easy 4-6, medium 7-10, hard 12-16.

Answer:
    ``<answer_json>[[[r1,c1],[r2,c2]],...]</answer_json>`` (tag case-insensitive; the
    last tagged answer in the text counts). One interactive step is
    ``<STEP_JSON>[[r1,c1],[r2,c2]]</STEP_JSON>``.

Drawing (the fruit tiles, drawn in code) is ``onet_render``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np

from vgau_data.answers import (
    MAX_PAYLOAD_CHARS,
    answer_text,
    last_step_value,
    last_tagged,
    load_lenient,
    step_text,
)
from vgau_data.errors import GenerationError, StateError
from vgau_data.puzzles.base import (
    AnswerError,
    Cell,
    FamilySpec,
    Illegal,
    Replay,
    Sketch,
    Slot,
    Solution,
    canonical_json,
    draw_slot,
    pick_edits,
    walk,
)
from vgau_data.puzzles.onet.render import GEOMETRY, render
from vgau_data.puzzles.prompts import FamilyPrompts

# --------------------------------------------------------------------------- constants

NAME: Final = "onet"
SIZE: Final = 6
BUCKETS: Final[dict[str, tuple[int, int]]] = {"easy": (4, 6), "medium": (7, 10), "hard": (12, 16)}
LENGTH_MIX: Final[dict[str, dict[int, int]]] = {
    "easy": {4: 7, 5: 7, 6: 6},
    "medium": {7: 10, 8: 6, 9: 7, 10: 7},
    "hard": {12: 15, 13: 5, 14: 13, 15: 11, 16: 6},
}
"""Rows per pairs in the authors' 100 published instances (their ``one_solution_steps``, counted once)."""
ADJACENT_SHARE: Final[dict[str, float]] = {"easy": 0.58, "medium": 0.0, "hard": 0.055}
"""Share of a bucket's pairs placed side by side (the authors': 2.85 of 4.95, 0 of 8.37, 0.76 of 13.76)."""
REMOVABLE_SHARE: Final[dict[str, float]] = {"easy": 0.99, "medium": 0.62, "hard": 0.18}
"""Share of the pairs removable on the full board (the authors': 4.9 of 4.95, 5.17 of 8.37, 2.48 of 13.76)."""
EDGE_SHARE: Final[dict[str, float]] = {"easy": 0.5, "medium": 0.48, "hard": 0.57}
"""Share of the tiles on the board's outer ring (the authors': 5.0 of 9.9, 7.97 of 16.7, 15.56 of 27.5)."""
BOARD_CANDIDATES: Final = 8
MAX_ANSWER_STEPS: Final = 1000
"""Longer parsed answers are ``bad_format`` (an honest answer has at most 18 steps)."""

FRUIT_LETTERS: Final[dict[str, str]] = {
    "apple": "A",
    "avocado": "V",
    "banana": "B",
    "blueberry": "U",
    "cherry": "C",
    "coconut": "N",
    "dragonfruit": "D",
    "grape": "G",
    "kiwi": "K",
    "lemon": "L",
    "lime": "I",
    "orange": "O",
    "peach": "H",
    "pear": "P",
    "pineapple": "E",
    "plum": "M",
    "strawberry": "S",
    "watermelon": "W",
}
"""Every fruit kind and its letter in ``to_ascii`` ('.' is an empty cell)."""
FRUITS: Final[tuple[str, ...]] = tuple(FRUIT_LETTERS)
_LETTER_FRUITS: Final = {letter: fruit for fruit, letter in FRUIT_LETTERS.items()}


# --------------------------------------------------------------------------- state

Step = tuple[Cell, Cell]
"""One removal: the two cells of a pair, ``((r1, c1), (r2, c2))``."""


@dataclass(frozen=True, slots=True)
class OnetState:
    """A 6x6 board: ``board[r][c]`` is a fruit name from ``FRUITS`` or None (empty)."""

    board: tuple[tuple[str | None, ...], ...]


# --------------------------------------------------------------------------- (de)serialisation


def _validated(rows: Any, source: str) -> OnetState:
    """Check shape, fruit names and pair counts; return the state or raise StateError."""
    if not isinstance(rows, (list, tuple)) or len(rows) != SIZE:
        raise StateError(f"onet {source}: board must be a list of {SIZE} rows, got {rows!r:.80}")
    counts: dict[str, int] = {}
    board = []
    for r, row in enumerate(rows):
        if not isinstance(row, (list, tuple)) or len(row) != SIZE:
            raise StateError(f"onet {source}: row {r} must be a list of {SIZE} cells, got {row!r:.80}")
        for c, cell in enumerate(row):
            if cell is None:
                continue
            if not isinstance(cell, str) or cell not in FRUIT_LETTERS:
                raise StateError(
                    f"onet {source}: cell ({r},{c}) is {cell!r:.40}; use null or one of {', '.join(FRUITS)}"
                )
            counts[cell] = counts.get(cell, 0) + 1
        board.append(tuple(row))
    odd = sorted(fruit for fruit, count in counts.items() if count != 2)
    if odd:
        raise StateError(
            f"onet {source}: every fruit must appear exactly twice; "
            + ", ".join(f"{fruit} x{counts[fruit]}" for fruit in odd)
        )
    return OnetState(tuple(board))


def to_json(state: OnetState) -> str:
    """The canonical ``state`` column.

    Example:
        >>> to_json(from_ascii(["AA....", *["......"] * 5]))[:40]
        '{"board":[["apple","apple",null,null,nul'
    """
    return canonical_json({"size": SIZE, "board": [list(row) for row in state.board]})


def from_json(text: str) -> OnetState:
    """Parse and fully validate a ``state`` string; raise StateError on anything malformed.

    Example:
        >>> from_json(to_json(from_ascii(["AA....", *["......"] * 5]))).board[0][1]
        'apple'
    """
    if not isinstance(text, (str, bytes, bytearray)):
        raise StateError(f"onet state must be a JSON string, got {type(text).__name__}")
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise StateError(f"onet state is not valid JSON: {e}") from e
    if not isinstance(data, dict) or set(data) != {"size", "board"}:
        raise StateError(f'onet state must be an object with keys "size" and "board", got {data!r:.80}')
    size = data["size"]
    if isinstance(size, bool) or size != SIZE:
        raise StateError(f"onet state: size must be {SIZE}, got {size!r:.20}")
    return _validated(data["board"], "state")


def to_ascii(state: OnetState) -> list[str]:
    """One string per row, a letter per fruit (``FRUIT_LETTERS``) and '.' for empty."""
    return ["".join("." if cell is None else FRUIT_LETTERS[cell] for cell in row) for row in state.board]


def from_ascii(rows: Sequence[str] | str) -> OnetState:
    """Inverse of ``to_ascii``; also takes one string with newlines (blank lines ignored).

    Example:
        >>> to_ascii(from_ascii("AB....\\nBA....\\n" + "......\\n" * 4))[1]
        'BA....'
    """
    lines = rows.split() if isinstance(rows, str) else list(rows)
    grid = []
    for r, line in enumerate(lines):
        if not isinstance(line, str):
            raise StateError(f"onet ascii: row {r} is not a string")
        unknown = sorted(set(line) - set(_LETTER_FRUITS) - {"."})
        if unknown:
            raise StateError(f"onet ascii: row {r} has unknown letters {unknown}; use {sorted(_LETTER_FRUITS)} or '.'")
        grid.append([None if ch == "." else _LETTER_FRUITS[ch] for ch in line])
    return _validated(grid, "ascii")


# --------------------------------------------------------------------------- rules

_BITS: Final = tuple(1 << i for i in range(SIZE * SIZE))


def _span(r0: int, c0: int, r1: int, c1: int) -> int:
    """Bit mask of the straight segment between two cells of one row or column (inclusive)."""
    mask = 0
    for r in range(min(r0, r1), max(r0, r1) + 1):
        for c in range(min(c0, c1), max(c0, c1) + 1):
            mask |= _BITS[r * SIZE + c]
    return mask


def _routes(i: int, j: int) -> tuple[int, ...]:
    """Cell masks of every <=2-turn route between cells ``i`` and ``j`` inside the board.

    A route with at most two turns is vertical-horizontal-vertical through some row ``k``
    or horizontal-vertical-horizontal through some column ``k`` (segments may be empty),
    so 12 masks cover all of them. Masks include both end cells.
    """
    (ar, ac), (br, bc) = divmod(i, SIZE), divmod(j, SIZE)
    masks = set()
    for k in range(SIZE):
        masks.add(_span(ar, ac, k, ac) | _span(k, ac, k, bc) | _span(k, bc, br, bc))
        masks.add(_span(ar, ac, ar, k) | _span(ar, k, br, k) | _span(br, k, br, bc))
    return tuple(sorted(masks, key=lambda m: (bin(m).count("1"), m)))


_ROUTE_TABLE: Final[list[tuple[int, ...] | None]] = [None] * (SIZE * SIZE) ** 2
"""``_routes(i, j)`` at index ``i * 36 + j``, filled on first use."""


def _connectable(occupied: int, i: int, j: int) -> bool:
    """Tiles at cells ``i`` and ``j`` are joined by a <=2-turn route of empty cells."""
    routes = _ROUTE_TABLE[i * SIZE * SIZE + j]
    if routes is None:
        routes = _ROUTE_TABLE[i * SIZE * SIZE + j] = _routes(i, j)
    others = occupied & ~(_BITS[i] | _BITS[j])
    for route in routes:
        if not others & route:
            return True
    return False


def _flatten(state: OnetState) -> tuple[list[str | None], int]:
    """The board as a flat list of 36 cells and the bit mask of occupied cells."""
    flat = [cell for row in state.board for cell in row]
    occupied = 0
    for index, cell in enumerate(flat):
        if cell is not None:
            occupied |= _BITS[index]
    return flat, occupied


def _cell_index(cell: Any) -> int | None:
    """``r * 6 + c`` for an on-board ``(r, c)``; None when off the board."""
    r, c = cell
    if 0 <= r < SIZE and 0 <= c < SIZE:
        return r * SIZE + c
    return None


def _check(flat: list[str | None], occupied: int, step: Step) -> tuple[str | None, int, int]:
    """The illegal code of ``step`` (None when legal) and its two flat indices."""
    i, j = _cell_index(step[0]), _cell_index(step[1])
    if i is None or j is None:
        return "out_of_bounds", -1, -1
    if i == j:
        return "same_cell", i, j
    if flat[i] is None or flat[j] is None:
        return "empty_cell", i, j
    if flat[i] != flat[j]:
        return "not_identical", i, j
    if not _connectable(occupied, i, j):
        return "not_connectable", i, j
    return None, i, j


def apply_step(state: OnetState, step: Step) -> OnetState | Illegal:
    """Remove the pair ``step`` names, or say why it cannot be removed.

    Example:
        >>> board = from_ascii(["ACDDCA", "B.....", "B.....", "......", "......", "......"])
        >>> to_ascii(apply_step(board, ((0, 2), (0, 3))))[0]
        'AC..CA'
        >>> apply_step(board, ((0, 0), (0, 5))).code  # only a route around the outside
        'not_connectable'
    """
    flat, occupied = _flatten(state)
    code, i, j = _check(flat, occupied, step)
    if code is not None:
        return Illegal(code, 0)
    flat[i] = flat[j] = None
    return OnetState(tuple(tuple(flat[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)))


def is_goal(state: OnetState) -> bool:
    """The board is empty."""
    return all(cell is None for row in state.board for cell in row)


def replay(state: OnetState, answer: Sequence[Step]) -> Replay:
    """Play ``answer`` on ``state``; stop at the first illegal step.

    Example:
        >>> board = from_ascii(["A.A...", *["......"] * 5])
        >>> replay(board, [((0, 2), (0, 0))]).feasible
        True
        >>> replay(board, []).error
        'not_solved'
    """
    flat, occupied = _flatten(state)
    for index, step in enumerate(answer):
        code, i, j = _check(flat, occupied, step)
        if code is not None:
            return Replay(False, len(answer), code, index)
        flat[i] = flat[j] = None
        occupied &= ~(_BITS[i] | _BITS[j])
    if occupied:
        return Replay(False, len(answer), "not_solved", len(answer))
    return Replay(True, len(answer))



# --------------------------------------------------------------------------- solver


def _pairs(flat: list[str | None]) -> list[tuple[int, int]]:
    """The two flat indices of each fruit, ordered by their first cell."""
    where: dict[str, list[int]] = {}
    for index, cell in enumerate(flat):
        if cell is not None:
            where.setdefault(cell, []).append(index)
    pairs = []
    for fruit, cells in where.items():
        if len(cells) != 2:
            raise StateError(f"onet: {fruit} appears {len(cells)} times; every fruit must appear exactly twice")
        pairs.append((cells[0], cells[1]))
    return sorted(pairs)


def removable_pairs(state: OnetState) -> list[Step]:
    """The pairs that could be removed first, ordered by their first cell.

    Example:
        >>> removable_pairs(from_ascii(["AB.A..", "B.....", *["......"] * 4]))
        [((0, 1), (1, 0))]
    """
    flat, occupied = _flatten(state)
    return [(divmod(i, SIZE), divmod(j, SIZE)) for i, j in _pairs(flat) if _connectable(occupied, i, j)]


def solve(state: OnetState) -> Solution | None:
    """Clear the board greedily; None when it cannot be cleared.

    Greedy is exact here: removing tiles only frees cells, so a removable pair stays
    removable. If greedy stalls on a non-empty set ``S`` while some full answer exists,
    the first pair of that answer lying in ``S`` was removable on a superset of ``S``'s
    tiles, hence is removable on ``S``: a contradiction. Every full answer has one step
    per pair, so the greedy answer is optimal.

    Example:
        >>> solve(from_ascii(["ACDDCA", "B.....", "B.....", *["......"] * 3])).answer
        (((0, 1), (0, 4)), ((0, 2), (0, 3)), ((1, 0), (2, 0)), ((0, 0), (0, 5)))
        >>> solve(from_ascii(["AB....", "BA....", *["......"] * 4])) is None
        True
    """
    flat, occupied = _flatten(state)
    remaining = _pairs(flat)
    answer: list[Step] = []
    while remaining:
        stuck = []
        for i, j in remaining:
            if _connectable(occupied, i, j):
                occupied &= ~(_BITS[i] | _BITS[j])
                answer.append((divmod(i, SIZE), divmod(j, SIZE)))
            else:
                stuck.append((i, j))
        if len(stuck) == len(remaining):
            return None
        remaining = stuck
    return Solution(answer=tuple(answer), optimal_length=len(answer))


# --------------------------------------------------------------------------- generator


def _neighbours(i: int) -> tuple[int, ...]:
    r, c = divmod(i, SIZE)
    near = ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
    return tuple(nr * SIZE + nc for nr, nc in near if 0 <= nr < SIZE and 0 <= nc < SIZE)


_NEIGHBOURS: Final = tuple(_neighbours(i) for i in range(SIZE * SIZE))
"""Flat indices of the cells touching each cell."""


def _random_board(n_pairs: int, n_adjacent: int, rng: np.random.Generator) -> list[str | None] | None:
    """``n_pairs`` fruits at random cells, exactly ``n_adjacent`` pairs side by side; None if it jams."""
    fruits = [FRUITS[k] for k in rng.choice(len(FRUITS), size=n_pairs, replace=False).tolist()]
    flat: list[str | None] = [None] * (SIZE * SIZE)
    for number, fruit in enumerate(fruits):
        empty = [i for i in range(SIZE * SIZE) if flat[i] is None]
        if number < n_adjacent:
            spots = [(a, b) for a in empty for b in _NEIGHBOURS[a] if a < b and flat[b] is None]
        else:
            spots = [(a, b) for a in empty for b in empty if a < b and b not in _NEIGHBOURS[a]]
        if not spots:
            return None
        a, b = spots[int(rng.integers(len(spots)))]
        flat[a] = flat[b] = fruit
    return flat


def generate(
    difficulty: str, rng: np.random.Generator, slot: Slot | None = None, *, max_attempts: int = 400
) -> OnetState:
    """A solvable board of ``slot.length`` pairs, built like the authors' (appendix A.1.5).

    Candidate boards put the pairs on random cells, a bucket-dependent share of them side
    by side (``ADJACENT_SHARE``: most easy pairs, no medium pair, few hard ones), and are
    kept only if the solver clears them. Of ``BOARD_CANDIDATES`` solvable boards the one
    nearest ``REMOVABLE_SHARE`` of the pairs removable at the start and ``EDGE_SHARE`` of
    the tiles on the outer ring is returned; every target is rounded down or up by
    ``slot.quantile``.

    Example:
        >>> state = generate("easy", np.random.default_rng(0))
        >>> 4 <= solve(state).optimal_length <= 6
        True
    """
    if difficulty not in BUCKETS:
        raise ValueError(f"onet: unknown difficulty {difficulty!r}; choose from {list(BUCKETS)}")
    slot = slot or draw_slot(LENGTH_MIX, difficulty, rng)
    low, high = BUCKETS[difficulty]
    if not low <= slot.length <= high:
        raise ValueError(f"onet/{difficulty}: {slot.length} pairs is outside {low}-{high}")
    n_adjacent = int(ADJACENT_SHARE[difficulty] * slot.length + slot.quantile)
    removable = int(REMOVABLE_SHARE[difficulty] * slot.length + (slot.quantile + 1 / 3) % 1.0)
    on_edge = int(EDGE_SHARE[difficulty] * 2 * slot.length + (slot.quantile + 2 / 3) % 1.0)
    boards: list[OnetState] = []
    for _ in range(max_attempts):
        flat = _random_board(slot.length, n_adjacent, rng)
        if flat is None:
            continue
        state = OnetState(tuple(tuple(flat[r * SIZE : (r + 1) * SIZE]) for r in range(SIZE)))
        if solve(state) is not None:
            boards.append(state)
            if len(boards) == BOARD_CANDIDATES:
                break
    if not boards:
        raise GenerationError(f"onet/{difficulty}: no solvable board of {slot.length} pairs in {max_attempts} tries")

    def miss(board: OnetState) -> int:
        return 2 * abs(len(removable_pairs(board)) - removable) + abs(_edge_tiles(board) - on_edge)

    return min(boards, key=miss)


def _edge_tiles(state: OnetState) -> int:
    last = SIZE - 1
    return sum(
        fruit is not None and (r in (0, last) or c in (0, last))
        for r, row in enumerate(state.board)
        for c, fruit in enumerate(row)
    )


# --------------------------------------------------------------------------- answers


_PARENS_TO_BRACKETS: Final = str.maketrans("()", "[]")
"""Cells written as Python tuples, ``[(0,0),(0,2)]``, read as lists."""


def _cell(value: Any) -> Cell:
    if (
        not isinstance(value, list)
        or len(value) != 2
        or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)
    ):
        raise AnswerError("bad_format", f"a cell must be [r, c] with integers, got {value!r:.40}")
    return (value[0], value[1])


def parse_answer(text: str) -> tuple[Step, ...]:
    """The last ``<answer_json>`` list of cell pairs in ``text``.

    Tolerates prose, fences, tag case, single quotes, trailing commas and cells written
    as tuples ``(r, c)``.

    Raises:
        AnswerError: ``no_answer`` without a tagged answer, ``bad_format`` when it is not
            a list of ``[[r1, c1], [r2, c2]]`` pairs of integers.

    Example:
        >>> parse_answer("so: <ANSWER_JSON>[[[0,0],[0,2]], [[1,0],[3,0]],]</answer_json>")
        (((0, 0), (0, 2)), ((1, 0), (3, 0)))
    """
    text = answer_text(text)
    payload = last_tagged(text, "answer_json")
    if payload is None:
        raise AnswerError("no_answer", "no <answer_json>...</answer_json>")
    if len(payload) > MAX_PAYLOAD_CHARS:
        raise AnswerError("bad_format", f"payload of {len(payload)} characters")
    try:  # fast path: well-formed JSON (C scanner); anything else goes to the lenient reader
        value = json.loads(payload)
    except (ValueError, RecursionError):
        value = load_lenient(payload.translate(_PARENS_TO_BRACKETS))
    if not isinstance(value, list):
        raise AnswerError("bad_format", "the answer must be a list of cell pairs")
    if len(value) > MAX_ANSWER_STEPS:
        raise AnswerError("bad_format", f"{len(value)} steps (at most {MAX_ANSWER_STEPS})")
    return tuple(_step_of(item) for item in value)


def _step_of(item: Any) -> Step:
    if not isinstance(item, list) or len(item) != 2:
        raise AnswerError("bad_format", f"a step must be [[r1, c1], [r2, c2]], got {item!r:.60}")
    return (_cell(item[0]), _cell(item[1]))


def parse_step(text: str) -> Step:
    """The pair in the last ``<STEP_JSON>[[r1,c1],[r2,c2]]</STEP_JSON>`` of a reply.

    Example:
        >>> parse_step("the apples: <STEP_JSON>[[0, 1], [2, 1]]</STEP_JSON>")
        ((0, 1), (2, 1))
    """
    return _step_of(last_step_value(text))


def format_step(step: Step) -> str:
    """One removal in the per-turn format.

    Example:
        >>> format_step(((0, 1), (2, 1)))
        '<STEP_JSON>[[0,1],[2,1]]</STEP_JSON>'
    """
    (r1, c1), (r2, c2) = step
    return step_text([[int(r1), int(c1)], [int(r2), int(c2)]])


def answer_payload(answer: Sequence[Step]) -> str:
    """The answer's JSON list (the ``solution`` column).

    Example:
        >>> answer_payload([((0, 0), (0, 2))])
        '[[[0,0],[0,2]]]'
    """
    return canonical_json([[[int(a[0]), int(a[1])], [int(b[0]), int(b[1])]] for a, b in answer])


def format_answer(answer: Sequence[Step]) -> str:
    """The full answer text, tags included.

    Example:
        >>> format_answer([((0, 0), (0, 2))])
        '<answer_json>[[[0,0],[0,2]]]</answer_json>'
    """
    return f"<answer_json>{answer_payload(answer)}</answer_json>"


# --------------------------------------------------------------------------- prompts
# Table 16 (Text-CoT), 22 (Self-GtA), 27 (Self-VCoT) and 34 (Self-VR), in our own words.
# One fact the paper's table leaves out is stated: links stay inside the board (our rule).

PROMPTS: Final = FamilyPrompts(
    legend=(
        f"The image shows an Onet puzzle on a {SIZE}x{SIZE} board. Each cell holds a fruit tile (a white "
        "rounded square with a fruit on it) or is empty."
    ),
    rules=(
        "Coordinates: 0-based; (r,c) is row r, column c; (0,0) is the top-left cell; r increases downward "
        "and c increases to the right.\n"
        "Goal: clear the whole board. Each step removes one pair of identical fruits that can be linked: "
        "the link is made of horizontal and vertical segments with at most 2 turns, passes through no other "
        "fruit, and runs through cells of the board only (it cannot go around the outside of the board)."
    ),
    reasoning="find the matching pairs, check which can be linked, and plan an order of removals that "
    "clears the board.",
    answer_format="Give the final removals as one JSON list of cell pairs inside answer_json tags, for "
    "example <answer_json>[[[r1,c1],[r2,c2]],[[r3,c3],[r4,c4]]]</answer_json>.",
    step="removal of one pair",
    step_format="<STEP_JSON>[[r1,c1],[r2,c2]]</STEP_JSON> with the two cells of the pair.",
    image_change="only the two removed fruits are gone, their cells drawn empty",
    labelled_cells="every cell",
    solution_drawing=(
        "For each pair of identical fruits in a removal order that clears the board, draw a solid line, "
        "about a tenth of a cell wide, from the centre of one fruit's cell to the centre of the other's, "
        "along a valid link (horizontal and vertical segments, at most 2 turns, through no other fruit, "
        "inside the board). Give every pair its own bright colour."
    ),
    solution_shows="coloured lines linking the fruit pairs of a clearing order",
)


def random_answer(state: OnetState, rng: np.random.Generator) -> tuple[Step, ...]:
    """The occupied cells paired at random: a player who sees where fruit lies, not which.

    Pairing identical fruits instead would read the board perfectly: with the fruits
    known, a random removal order clears about half the medium boards, which is no
    baseline. That measures ordering alone and is left to diagnostics.
    """
    flat, _ = _flatten(state)
    occupied = [index for index, fruit in enumerate(flat) if fruit is not None]
    order = [occupied[k] for k in rng.permutation(len(occupied)).tolist()]
    return tuple((divmod(i, SIZE), divmod(j, SIZE)) for i, j in zip(order[::2], order[1::2]))


# --------------------------------------------------------------------------- fidelity


def cell_labels(state: OnetState) -> tuple[str, ...]:
    """Row-major: the fruit on each cell, or ``empty``."""
    return tuple("empty" if cell is None else cell for row in state.board for cell in row)


def palette_states() -> tuple[OnetState, ...]:
    """Every fruit (each twice fills the board exactly) and an empty board."""
    letters = "".join(FRUIT_LETTERS[fruit] for fruit in FRUITS) * 2
    full = from_ascii([letters[r * SIZE : (r + 1) * SIZE] for r in range(SIZE)])
    return (full, OnetState(((None,) * SIZE,) * SIZE))


def perturb(state: OnetState, k: int, rng: np.random.Generator) -> OnetState:
    """``state`` with ``k`` cells changed: a tile becomes another fruit or empty, an empty cell gets a tile."""
    choices: tuple[str | None, ...] = (*FRUITS, None)
    options = [
        [(1, (r, c, other)) for other in choices if other != cell]
        for r, row in enumerate(state.board)
        for c, cell in enumerate(row)
    ]
    board = [list(row) for row in state.board]
    for r, c, fruit in pick_edits(options, k, rng):
        board[r][c] = fruit
    return OnetState(tuple(tuple(row) for row in board))


def connection(state: OnetState, step: Step) -> tuple[Cell, ...]:
    """The corners of the shortest <=2-turn route of empty cells joining a legal pair (ends included).

    Example:
        >>> connection(from_ascii(["A.....", "B.....", "A.....", *["B....."] + ["......"] * 2]), ((0, 0), (2, 0)))
        ((0, 0), (0, 1), (2, 1), (2, 0))
    """
    (ar, ac), (br, bc) = step
    _, occupied = _flatten(state)
    others = occupied & ~(_BITS[ar * SIZE + ac] | _BITS[br * SIZE + bc])
    best: tuple[int, tuple[Cell, ...]] | None = None
    for k in range(SIZE):
        for corners in (((ar, ac), (k, ac), (k, bc), (br, bc)), ((ar, ac), (ar, k), (br, k), (br, bc))):
            mask = _span(*corners[0], *corners[1]) | _span(*corners[1], *corners[2]) | _span(*corners[2], *corners[3])
            cells = mask.bit_count()
            if not mask & others and (best is None or cells < best[0]):
                best = (cells, corners)
    if best is None:
        raise ValueError(f"no route joins {step[0]} and {step[1]}")
    route = [best[1][0]]
    for corner in best[1][1:]:
        if corner != route[-1]:
            route.append(corner)
    return tuple(route)


def sketch(state: OnetState, answer: Sequence[Step]) -> Sketch:
    """One route per removed pair, in removal order, on the board as it is before that removal (Table 34)."""
    boards = [state, *walk(state, answer, apply_step)]
    return Sketch(routes=tuple(connection(board, step) for board, step in zip(boards, answer)))


SPEC = FamilySpec(
    name=NAME,
    buckets=BUCKETS,
    geometry=GEOMETRY,
    unique_length=True,
    from_json=from_json,
    to_json=to_json,
    generate=generate,
    length_mix=LENGTH_MIX,
    solve=solve,
    replay=replay,
    render=render,
    parse_answer=parse_answer,
    format_answer=format_answer,
    answer_payload=answer_payload,
    prompts=PROMPTS,
    random_answer=random_answer,
    apply_step=apply_step,
    is_goal=is_goal,
    answer_tag="answer_json",
    parse_step=parse_step,
    format_step=format_step,
    cell_labels=cell_labels,
    palette_states=palette_states,
    perturb=perturb,
    sketch=sketch,
)

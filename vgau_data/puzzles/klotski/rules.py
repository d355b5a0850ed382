"""One slide of one block, the slides to try and the legal ones, the goal and the replay."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from vgau_data.puzzles.base import DELTAS, DIRECTIONS, Illegal, Replay
from vgau_data.puzzles.klotski.state import (
    _CODES,
    _GOAL_INDEX,
    _KIND_OF_TOP_LEFT,
    KINDS,
    SHAPES,
    SIZE,
    KlotskiState,
    Step,
)


def _build_step_table() -> dict[tuple[str, int, str], tuple[tuple[int, ...], tuple[tuple[int, str], ...]] | None]:
    """For (top-left code, top-left index, direction): None if the block would leave the
    board, else (cells it moves into, (index, new code) writes that perform the slide)."""
    table: dict[tuple[str, int, str], tuple[tuple[int, ...], tuple[tuple[int, str], ...]] | None] = {}
    for kind in KINDS:
        height, width = SHAPES[kind]
        codes = _CODES[kind]
        for row in range(SIZE - height + 1):
            for col in range(SIZE - width + 1):
                old = [(row + dr) * SIZE + col + dc for dr in range(height) for dc in range(width)]
                for direction, (dr, dc) in DELTAS.items():
                    r, c = row + dr, col + dc
                    if not (0 <= r <= SIZE - height and 0 <= c <= SIZE - width):
                        table[codes[0], old[0], direction] = None
                        continue
                    new = [(r + i) * SIZE + c + j for i in range(height) for j in range(width)]
                    entering = tuple(i for i in new if i not in old)
                    writes = tuple((i, ".") for i in old if i not in new) + tuple(zip(new, codes))
                    table[codes[0], old[0], direction] = (entering, writes)
    return table


_STEP_TABLE: Final = _build_step_table()


def apply_step(state: KlotskiState, step: Step) -> KlotskiState | Illegal:
    """Slide the block whose top-left is ``step[0]`` one cell toward ``step[1]``.

    A direct check of the one or two cells the block moves into; ``step_index`` is 0.

    Example:
        >>> from vgau_data.puzzles.klotski.state import EXAMPLE
        >>> apply_step(EXAMPLE, ((3, 2), "down")).target
        (4, 2)
        >>> apply_step(EXAMPLE, ((3, 3), "down"))
        Illegal(code='no_block_at', step_index=0)
    """
    writes = _slide(state.cells, step)
    if isinstance(writes, str):
        return Illegal(writes, 0)
    chars = list(state.cells)
    for i, char in writes:
        chars[i] = char
    return KlotskiState("".join(chars))


def _slide(cells: str | list[str], step: Step) -> tuple[tuple[int, str], ...] | str:
    """The ``(index, code)`` writes that perform ``step`` on ``cells``, or the reason code it is illegal."""
    (r, c), direction = step
    if not (0 <= r < SIZE and 0 <= c < SIZE):
        return "no_block_at"
    index = r * SIZE + c
    code = cells[index]
    if code not in _KIND_OF_TOP_LEFT:
        return "no_block_at"
    if direction not in DELTAS:
        return "unknown_action"
    move = _STEP_TABLE[code, index, direction]
    if move is None:
        return "out_of_bounds"
    entering, writes = move
    for i in entering:
        if cells[i] != ".":
            return "blocked"
    return writes


def is_goal(state: KlotskiState) -> bool:
    """The target's top-left cell is ``GOAL`` (4, 2)."""
    return state.cells[_GOAL_INDEX] == "A"


def candidate_steps(state: KlotskiState) -> tuple[Step, ...]:
    """Each block, named by its top-left cell, one cell in each direction: every slide there is.

    In block order (kind, row, column), then direction order.

    Example:
        >>> from vgau_data.puzzles.klotski.state import EXAMPLE
        >>> candidate_steps(EXAMPLE)[:2]
        (((3, 2), 'up'), ((3, 2), 'down'))
    """
    return tuple(((block.row, block.col), direction) for block in state.blocks for direction in DIRECTIONS)


def legal_steps(state: KlotskiState) -> list[Step]:
    """Every legal step, in the order of ``candidate_steps``."""
    return [step for step in candidate_steps(state) if not isinstance(apply_step(state, step), Illegal)]


def replay(state: KlotskiState, answer: Sequence[Step]) -> Replay:
    """Play ``answer`` on ``state``; stop at the first illegal step (``apply_step``'s slides, on one list of codes).

    Example:
        >>> from vgau_data.puzzles.klotski.state import EXAMPLE
        >>> replay(EXAMPLE, [((3, 2), "down")]).feasible
        True
        >>> replay(EXAMPLE, []).error
        'not_solved'
    """
    chars = list(state.cells)
    n = len(answer)
    for index, step in enumerate(answer):
        writes = _slide(chars, step)
        if isinstance(writes, str):
            return Replay(False, n, writes, index)
        for i, char in writes:
            chars[i] = char
    if chars[_GOAL_INDEX] != "A":
        return Replay(False, n, "not_solved", n)
    return Replay(True, n)

"""Stratified, solver-verified instances and their dataset rows.

A row is fully determined by ``(master_seed, family, difficulty, index, attempt)``:
the seed is hashed from those coordinates, the index picks the row's slot (its exact
optimum from the family's ``length_mix``, so a bucket's length histogram is the
authors'), the family generates a state from both, the exhaustive solver re-derives
the optimum (the generator's own bookkeeping is never trusted), and the renderer draws
the images. ``attempt`` only moves past an instance that duplicates an earlier row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from PIL import Image

from vgau_data.errors import GenerationError
from vgau_data.oracle_aids import grid_layer
from vgau_data.oracle_aids.vr import oracle_vr
from vgau_data.puzzles.base import Slot
from vgau_data.registry import FAMILIES
from vgau_data.rendering import ImageCodec, encode_image
from vgau_data.seeding import instance_seed, rng_for


@dataclass(frozen=True, slots=True)
class RowTask:
    """The coordinates of one row (picklable, for worker processes)."""

    family: str
    difficulty: str
    index: int
    master_seed: int
    attempt: int = 0

    @property
    def row_id(self) -> str:
        return f"{self.family}-{self.difficulty}-{self.index:04d}"

    @property
    def seed(self) -> int:
        return instance_seed(self.master_seed, self.family, self.difficulty, self.index, self.attempt)

    @property
    def slot(self) -> Slot:
        return FAMILIES[self.family].slot(self.difficulty, self.index)


def generate_verified(family_name: str, difficulty: str, seed: int, slot: Slot) -> tuple[Any, Any]:
    """Generate the instance of ``seed`` for ``slot`` and verify it with the exhaustive solver.

    Returns ``(state, solution)``. Raises ``GenerationError`` when the generator's state
    is unsolvable, misses the slot's optimum, or its solution does not replay: that is a
    generator bug, never something to paper over with another seed.
    """
    family = FAMILIES[family_name]
    state = family.generate(difficulty, rng_for(seed), slot)
    solution = family.solve(state)
    where = f"{family_name}/{difficulty} seed={seed}"
    if solution is None:
        raise GenerationError(f"{where}: generated state is unsolvable")
    if solution.optimal_length != slot.length or family.bucket_of(solution.optimal_length) != difficulty:
        raise GenerationError(f"{where}: optimum {solution.optimal_length}, but the row's slot is {slot.length}")
    replayed = family.replay(state, solution.answer)
    if not (replayed.feasible and replayed.length == solution.optimal_length):
        raise GenerationError(f"{where}: solver answer does not replay ({replayed.error})")
    return state, solution


COLUMN_CODECS: dict[str, ImageCodec] = {
    "image": "png",
    "oracle_states": "png",
    "oracle_aid": "webp",
    "oracle_aug_states": "webp",
    "oracle_vr": "png",
}
"""Image codec per column. Lossless WebP stores the grid-annotated boards (their ``(r,c)``
labels are most of the bytes) in 45% of our PNG's bytes; the plain boards, where WebP saves
less per CPU second, stay PNG to keep the full build near its one-minute budget. The full
build was 1.74x smaller than all-PNG when measured with zlib's PNG (727 -> 417 MB; 345 MB
now, with the authors' aids, whose labels have no halo, and their sparser parking boards); all-WebP was 2.05x (338 MB) for about 10% more build CPU (``benchmarks/build.py``, ``benchmarks/encoding.py``). Both codecs
decode to the same pixels everywhere (``datasets``, browsers, lmms-eval, VLMEvalKit)."""


def _image(image: Any, column: str) -> dict[str, Any]:
    return {"bytes": encode_image(image, COLUMN_CODECS[column]), "path": None}


def make_row(task: RowTask) -> dict[str, Any]:
    """Build one dataset row (the columns of docs/contract/columns.md, images embedded as ``COLUMN_CODECS`` bytes)."""
    state, solution = generate_verified(task.family, task.difficulty, task.seed, task.slot)
    return assemble_row(
        task.family, task.row_id, task.difficulty, state, solution.answer, solution.optimal_length, task.seed
    )


def assemble_row(
    family_name: str,
    row_id: str,
    difficulty: str,
    state: Any,
    answer: Sequence[Any],
    optimal_length: int,
    seed: int,
    image: bytes | None = None,
) -> dict[str, Any]:
    """The dataset row (docs/contract/columns.md) of a verified state and an optimal answer, with our renderings.

    ``image`` replaces our rendering of the board (the authors' own image of a published
    instance); the aid and step images are always ours. A family that draws no solution
    (``FamilySpec.vr`` is None) has no ``oracle_vr`` image: the cell is null.
    """
    family = FAMILIES[family_name]
    states = family.trajectory(state, answer)
    if len(states) != optimal_length:
        raise GenerationError(f"{row_id}: {len(states)} oracle states for optimum {optimal_length}")
    board = family.render(state)
    plain = _image(board, "image") if image is None else {"bytes": image, "path": None}
    drawn = _image(oracle_vr(family, state, answer), "oracle_vr") if family.vr is not None else None
    steps, annotated_steps = [], []
    for step_state in states:  # each board is encoded plain, then annotated in place
        step = family.render(step_state)
        steps.append(_image(step, "oracle_states"))
        annotated_steps.append(_image(_annotated(step, grid_layer(family, step_state)), "oracle_aug_states"))
    return {
        "id": row_id,
        "task": family_name,
        "difficulty": difficulty,
        "optimal_length": optimal_length,
        "image": plain,
        "oracle_aid": _image(_annotated(board, grid_layer(family, state)), "oracle_aid"),
        "oracle_states": steps,
        "oracle_aug_states": annotated_steps,
        "oracle_vr": drawn,
        "state": family.to_json(state),
        "solution": family.answer_payload(answer),
        "question": family.question(state, "text_cot"),
        "seed": seed,
    }


def _annotated(board: Image.Image, layer: tuple[Image.Image, Image.Image]) -> Image.Image:
    """``board`` itself with the grid layer pasted on (``annotate`` without its copy)."""
    colours, coverage = layer
    board.paste(colours, (0, 0), coverage)
    return board

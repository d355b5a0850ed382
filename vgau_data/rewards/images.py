"""Rewards for drawn images: a step image or an aid a policy drew, decoded into a board and checked.

We own the renderer and the cell decoder (``vgau_data.fidelity.cells``), so a drawing can
be verified exactly: every cell of the image is read back into what it shows and compared
with the true board. Three drawings are rewarded:

next_state  a Self-VCoT step image: the board after the step the policy took. The
            ``state`` is the board before it and ``step`` the step, in the family's
            per-step format. ``next_state`` pays 1 when every cell shows the board the
            step really leads to (so the step must be legal); ``move``, separately, pays 1
            when the step is legal and one of the moves of an optimal solution (it brings
            the goal one move closer).
drawn_step  a pure image policy's move: it draws the next board and states no step. The
            step it took is the legal step whose board the drawing shows, found among the
            family's ``candidate_steps`` (which cover every legal step); ``next_state``
            pays 1 when there is one, ``move`` when one of those is optimal.
aid         a Self-GtA aid: the board with red grid lines and ``(r,c)`` labels. ``aid``
            pays 1 when the board under the drawing is intact (every cell, with the
            annotation's pixels masked out) and the annotation is there: at least
            ``GRID_MIN_SHARE`` of the pixels an annotation changes look like it, ours
            (the oracle aid, drawn as the authors' code draws it) or the one the prompt
            asks for (labels at the cells' centres, ``oracle_aids.prompted_layer``).

``cells`` is partial credit, only when asked for: the share of cells read right above what
a board of one kind of cell gets (so a blank, black or noise image earns nothing). Image
rewards are registered in ``IMAGE_REWARD_KINDS``; ``image_rewards`` returns all of them
(the verl and TRL adapters call it). A row drawn in a render style (a training row's
``render_style``, docs/render-styles.md) is drawn and read in that style: its boards, its
aid and the cell decoder's references are the styled family's. Needs numpy and Pillow
(imported with this module, never with the reward core).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from types import MappingProxyType
from typing import Any, Final

import numpy as np
from PIL import Image

from vgau_data import image_gate
from vgau_data.fidelity.cells import read_cells
from vgau_data.oracle_aids import grid_layer, prompted_layer
from vgau_data.puzzles.base import FamilySpec, Illegal
from vgau_data.render_styles import RenderStyle, parse_render_style
from vgau_data.rewards import DEFAULT_BUDGET, RewardError, _distance, _Entry, _optimal_length, _resolve, read_step
from vgau_data.rewards.budget import SolveBudgetExceeded

PURPOSES: Final[tuple[str, ...]] = ("next_state", "drawn_step", "aid")
GRID_MIN_SHARE: Final = 0.8
"""Share of the annotation's pixels that must look like ours for an aid to count as annotated."""
MAX_IMAGE_PIXELS: Final = 4096 * 4096
"""Largest image decoded (a PNG bomb is refused before its pixels are read)."""
_VISIBLE: Final = 60
"""Summed RGB difference at which a pixel of our annotation visibly differs from the bare board."""


@dataclass(frozen=True, slots=True)
class DrawnScore:
    """How one drawing fared.

    Attributes:
        family: the puzzle family.
        purpose: ``next_state``, ``drawn_step`` or ``aid``.
        cells: share of cells that show the true board (the board after the step, the
            state itself for an aid; the unchanged board after an illegal step; for
            ``drawn_step`` the nearest board a legal step leads to, or the state itself
            when no step is legal).
        board_exact: every cell does.
        step_read: the step was found and read (``next_state``), or a legal step's board
            is the drawing (``drawn_step``); True for aids.
        step_legal: the step is legal (``next_state``; for ``drawn_step`` as ``step_read``).
        step_optimal: the step is legal and brings the goal one move closer.
        grid: share of our annotation's pixels that the drawing shows (``aid`` only, else 0).
        step: the step in the per-step format: the one read, or the one whose board the
            drawing shows (an optimal one first); None when there is none.
        cell_credit: ``cells`` above chance: ``(cells - b) / (1 - b)``, at least 0, where ``b``
            is the share of the true board's commonest cell label (what a drawing of that
            one label everywhere, a blank or black image, would read right); 1 only when exact.
    """

    family: str
    purpose: str
    cells: float
    board_exact: bool
    step_read: bool
    step_legal: bool
    step_optimal: bool
    grid: float
    step: str | None = None
    cell_credit: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def load_drawing(image: Any) -> Image.Image:
    """An RGB PIL image from what trainers hand over: PIL, PNG/JPEG bytes (or ``{"bytes": ...}``),
    a uint8 array or tensor in ``(H, W, C)`` or ``(C, H, W)`` (the last of a batch ``(N, C, H, W)``).

    Raises ``RewardError`` for anything else, and for images above ``MAX_IMAGE_PIXELS``.
    """
    if isinstance(image, Mapping) and isinstance(image.get("bytes"), (bytes, bytearray)):
        image = bytes(image["bytes"])
    if isinstance(image, (bytes, bytearray)):  # PNG, WebP or JPEG only, its size checked before decoding
        try:
            image = image_gate.decode(bytes(image), at="the drawing", max_pixels=MAX_IMAGE_PIXELS)
        except image_gate.ImageRejected as error:
            raise RewardError(str(error)) from None
    if isinstance(image, Image.Image):
        _check_size(image.size)
        return image if image.mode == "RGB" else image.convert("RGB")
    if hasattr(image, "detach") and hasattr(image, "cpu"):  # a torch tensor, without importing torch
        image = image.detach().cpu().numpy()
    if isinstance(image, np.ndarray):
        array = image
        if array.ndim == 4:
            array = array[-1]
        if array.ndim == 3 and array.shape[0] in (1, 3, 4) and array.shape[-1] not in (1, 3, 4):
            array = array.transpose(1, 2, 0)
        if array.ndim != 3 or array.shape[-1] not in (1, 3, 4):
            raise RewardError(f"the drawing array has shape {image.shape}; expected (H, W, C) or (C, H, W)")
        _check_size((array.shape[1], array.shape[0]))
        if array.dtype != np.uint8:
            array = np.clip(array * (255.0 if array.dtype.kind == "f" and array.max() <= 1.0 else 1.0), 0, 255)
        array = np.ascontiguousarray(array.astype(np.uint8))
        if array.shape[-1] == 1:
            array = np.repeat(array, 3, axis=-1)
        return Image.fromarray(array[..., :3], "RGB")
    raise RewardError(f"the drawing must be an image (PIL, bytes, array or tensor), got {type(image).__name__}")


def _check_size(size: tuple[int, int]) -> None:
    if size[0] < 1 or size[1] < 1 or size[0] * size[1] > MAX_IMAGE_PIXELS:
        raise RewardError(f"the drawing is {size[0]}x{size[1]} pixels (at most {MAX_IMAGE_PIXELS} pixels)")


def score_drawing(
    image: Any,
    state: str,
    *,
    purpose: str = "next_state",
    step: object = None,
    family: str | None = None,
    optimal_length: int | None = None,
    render_style: RenderStyle | str | None = None,
) -> DrawnScore:
    """Decode a drawing and check it against the state (see the module doc for the two purposes).

    Args:
        image: the drawing (anything ``load_drawing`` reads).
        state: the state JSON before the step (``next_state``, ``drawn_step``) or of the
            aid's board (``aid``).
        purpose: ``next_state``, ``drawn_step`` or ``aid``.
        step: the step the policy took, in the per-step format (``next_state`` only).
        family: the row's family (found from the state when None).
        optimal_length: the state's optimum (solved when None and needed).
        render_style: the row's look (its ``render_style`` JSON, or a ``RenderStyle``); None:
            the benchmark's. The drawing is read, and the aid's annotation drawn, in it.
    """
    if purpose not in PURPOSES:
        raise RewardError(f"purpose must be one of {', '.join(PURPOSES)}, got {purpose!r:.40}")
    entry = _resolve(state, family, optimal_length)
    style = parse_render_style(render_style, "render_style")
    spec, truth = (entry.family if style is None else entry.family.styled(style)), entry.state
    drawing = load_drawing(image)
    if purpose == "aid":
        cells, exact, credit = _cells(spec, drawing, truth, "grid")
        return DrawnScore(spec.name, purpose, cells, exact, True, False, False, _grid_share(spec, drawing, truth),
                          cell_credit=credit)  # fmt: skip
    if purpose == "drawn_step":
        return _drawn_step(entry, spec, drawing)
    parsed, _ = read_step(spec, step)
    after = None if parsed is None else spec.apply_step(truth, parsed)
    legal = after is not None and not isinstance(after, Illegal)
    shown = after if legal else truth
    cells, exact, credit = _cells(spec, drawing, shown, "none")
    optimal_move = legal and _one_closer(entry, shown)
    shown_step = None if parsed is None else spec.format_step(parsed)
    return DrawnScore(spec.name, purpose, cells, exact, parsed is not None, legal, optimal_move, 0.0, shown_step,
                      credit)  # fmt: skip


def _one_closer(entry: _Entry, after: Any) -> bool:
    """``after`` (a state one legal step from the entry's) is one move closer to the goal than the entry's state.

    The searches are bounded (``DEFAULT_BUDGET``): a step whose distance the budget cannot settle is not paid.
    """
    try:
        before = _optimal_length(entry, DEFAULT_BUDGET)
        if before is None or before < 1:
            return False
        left = _distance(entry.family.name, after, DEFAULT_BUDGET, before - 1)
    except SolveBudgetExceeded:
        return False
    return left == before - 1


def _drawn_step(entry: _Entry, spec: FamilySpec, drawing: Image.Image) -> DrawnScore:
    """A drawing with no stated step (``spec``: the entry's family in the row's style): the legal candidate
    steps whose board it shows, an optimal one first."""
    state = entry.state
    decoded = _decoded(spec, drawing, "none")
    boards = []
    for step in spec.candidate_steps(state):
        after = spec.apply_step(state, step)
        if not isinstance(after, Illegal):
            boards.append((step, after, spec.fidelity.cell_labels(after)))  # type: ignore[union-attr]
    shown = [(step, after) for step, after, labels in boards if labels == decoded]
    if not shown:
        nearest = [labels for _, _, labels in boards] or [spec.fidelity.cell_labels(state)]  # type: ignore[union-attr]
        cells = max(_share(decoded, labels) for labels in nearest)
        credit = max(_credit(_share(decoded, labels), labels) for labels in nearest)
        return DrawnScore(spec.name, "drawn_step", cells, False, False, False, False, 0.0, cell_credit=credit)
    best = next(((step, True) for step, after in shown if _one_closer(entry, after)), (shown[0][0], False))
    return DrawnScore(spec.name, "drawn_step", 1.0, True, True, True, best[1], 0.0, spec.format_step(best[0]), 1.0)


def _decoded(spec: FamilySpec, drawing: Image.Image, overlay: str) -> tuple[str, ...]:
    if spec.fidelity is None:
        raise RewardError(f"family {spec.name!r} has no cell decoding, so its drawings cannot be checked")
    return read_cells(spec, drawing, overlay)  # type: ignore[arg-type]


def _share(decoded: tuple[str, ...], truth: tuple[str, ...]) -> float:
    return sum(a == b for a, b in zip(decoded, truth)) / len(truth)


def _credit(share: float, truth: tuple[str, ...]) -> float:
    """``share`` above what one label drawn everywhere reads right (the commonest label's share of ``truth``)."""
    if share == 1.0:
        return 1.0
    chance = max(truth.count(label) for label in set(truth)) / len(truth)
    return 0.0 if chance >= 1.0 else max(0.0, (share - chance) / (1.0 - chance))


def _cells(spec: FamilySpec, drawing: Image.Image, state: Any, overlay: str) -> tuple[float, bool, float]:
    """The share of cells read right, whether all are, and the share above chance (``_credit``)."""
    decoded = _decoded(spec, drawing, overlay)
    truth = spec.fidelity.cell_labels(state)  # type: ignore[union-attr]
    share = _share(decoded, truth)
    return share, share == 1.0, _credit(share, truth)


def _grid_share(spec: FamilySpec, drawing: Image.Image, state: Any) -> float:
    """Share of the pixels an annotation visibly changes that are nearer it than the bare board:
    the better of our oracle aid and the look the Self-GtA prompt asks for."""
    board = spec.render(state)
    plain = np.asarray(board.convert("RGB"), dtype=np.int16)
    if drawing.size != spec.geometry.size:
        drawing = drawing.resize(spec.geometry.size, Image.Resampling.BILINEAR)
    drawn = np.asarray(drawing, dtype=np.int16)
    shares = []
    for colours, coverage in (grid_layer(spec, state), prompted_layer(spec, state)):
        annotated = board.copy()
        annotated.paste(colours, (0, 0), coverage)
        aid = np.asarray(annotated, dtype=np.int16)
        changed = (np.asarray(coverage) > 127) & (np.abs(aid - plain).sum(axis=2) >= _VISIBLE)
        nearer = np.abs(drawn - aid).sum(axis=2) < np.abs(drawn - plain).sum(axis=2)
        shares.append(float(nearer[changed].mean()) if changed.any() else 0.0)
    return max(shares)


# ---------------------------------------------------------------------------- image reward kinds


@dataclass(frozen=True, slots=True)
class ImageRewardKind:
    """One way to turn a ``DrawnScore`` into a reward, for drawings made for ``purpose`` (purposes
    separated by spaces, or ``any``)."""

    name: str
    function: Callable[[DrawnScore], float]
    purpose: str
    summary: str

    def __call__(self, record: DrawnScore) -> float:
        return self.function(record)


_KINDS: dict[str, ImageRewardKind] = {}
IMAGE_REWARD_KINDS: Mapping[str, ImageRewardKind] = MappingProxyType(_KINDS)
"""Every image reward kind by name (``image_reward_kind`` registers one)."""
DEFAULT_KIND: Final = {"next_state": "next_state", "drawn_step": "next_state", "aid": "aid"}
"""The kind ``image_rewards`` scores by when none is chosen."""


def image_reward_kind(name: str, purpose: str, summary: str) -> Callable[[Callable[[DrawnScore], float]], ImageRewardKind]:
    """Decorator: register ``function(drawn_score) -> float`` as the image reward kind ``name``."""

    def register(function: Callable[[DrawnScore], float]) -> ImageRewardKind:
        if name in _KINDS:
            raise ValueError(f"image reward kind {name!r} is already registered")
        _KINDS[name] = ImageRewardKind(name, function, purpose, summary)
        return _KINDS[name]

    return register


@image_reward_kind("next_state", "next_state drawn_step",
                   "1 when the drawing shows exactly the board the (legal) step leads to")  # fmt: skip
def next_state(record: DrawnScore) -> float:
    return 1.0 if record.step_legal and record.board_exact else 0.0


@image_reward_kind("move", "next_state drawn_step",
                   "1 when the drawing shows exactly the board a legal step on an optimal solution leads to")  # fmt: skip
def move(record: DrawnScore) -> float:
    return 1.0 if record.step_optimal and record.board_exact else 0.0


@image_reward_kind("aid", "aid", "1 when the board under the annotation is intact and the annotation is drawn")
def aid(record: DrawnScore) -> float:
    return 1.0 if record.board_exact and record.grid >= GRID_MIN_SHARE else 0.0


@image_reward_kind("cells", "any", "share of cells that show the true board, above what one label everywhere gets")
def cells(record: DrawnScore) -> float:
    return record.cell_credit


def image_rewards(
    image: Any,
    state: str,
    *,
    purpose: str = "next_state",
    step: object = None,
    kind: str | None = None,
    family: str | None = None,
    optimal_length: int | None = None,
    render_style: RenderStyle | str | None = None,
) -> dict[str, float]:
    """``score`` (the ``kind`` reward; by default the purpose's own) and every image reward kind, as floats.

    Example:
        >>> from vgau_data.registry import get_family
        >>> maze = get_family("maze")
        >>> state = maze.fidelity.palette_states()[0]
        >>> step = maze.oracle_steps(state)[0]
        >>> board = maze.render(maze.apply_step(state, step))
        >>> image_rewards(board, maze.to_json(state), step=maze.format_step(step))["score"]
        1.0
    """
    chosen = kind or DEFAULT_KIND.get(purpose, "next_state")
    if chosen not in _KINDS:
        raise RewardError(f"unknown image reward kind {chosen!r:.40}; choose from {', '.join(_KINDS)}")
    record = score_drawing(image, state, purpose=purpose, step=step, family=family, optimal_length=optimal_length,
                           render_style=render_style)  # fmt: skip
    result = {"score": _KINDS[chosen](record)}
    result.update({name: reward(record) for name, reward in _KINDS.items()})
    result["grid"] = record.grid
    return result

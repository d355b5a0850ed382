"""Prompt pieces every family states once, and how each protocol composes them.

The paper has one prompt per family and protocol (Tables 12-35). Here a family states its
facts once, in a ``FamilyPrompts`` on its ``FamilySpec``: what the image shows, the rules
and goal, how to write the final answer and one interactive step, and what a drawing of
the board must keep or show. The functions below assemble those pieces into the text of
each protocol, so every protocol gives a model the same facts and asks for the same
formats. No prompt names the optimum or the number of steps, or asks for a shortest
solution: the paper's prompts never do.

Pieces for the self-generation protocols (``aid_edit``, ``solution_edit``,
``vcot_intro(..., images="drawn")``, ``image_request``, ``step_edit``, ``refine_request``)
are here too, for the protocols that have a model draw.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from vgau_data.answers import last_tagged

if TYPE_CHECKING:
    from vgau_data.rendering import AidStyle, BoardGeometry

PROMPT_VERSION = "3"
"""Bump whenever a prompt changes: it is part of every record key. 2: the paper's content and formats;
3: nothing the paper's tables lack (docs/prompts.md), and the aid described as drawn."""

StateText = str | Callable[[Any], str]
"""A piece of prompt text, fixed or depending on the state (parking's exit row)."""

Images = Literal["shown", "shown_annotated", "drawn"]
"""Who supplies the board after each interactive step: us (plain or annotated), or the model."""

REMAINING_TAG = "answer"
"""The tag of the remaining-steps count (the authors' probe reads ``<answer>N</answer>``)."""
MAX_REMAINING_DIGITS = 6


class PromptedFamily(Protocol):
    """What the prompts read of a family (a ``FamilySpec`` is one): its pieces and the board's shape."""

    @property
    def prompts(self) -> FamilyPrompts: ...

    @property
    def geometry(self) -> BoardGeometry: ...

    @property
    def aid(self) -> AidStyle: ...


@dataclass(frozen=True, kw_only=True, slots=True)
class FamilyPrompts:
    """A family's prompt pieces (the facts of Tables 12-35, in our own words).

    Args:
        legend: what the image shows (also what an edited copy must keep unchanged).
        rules: legal moves, the goal and any coordinate convention the answer needs.
        reasoning: what a brief Text-CoT reasoning covers ("identify the start ..."), where
            the paper's table says; '' where it asks only for brief reasoning.
        answer_format: how to write the final answer, with an example of the format.
        step: one interactive step in words ("move of the agent").
        step_format: how to write one step in a turn (the per-step format), with an example.
        image_change: what differs in the board drawn after one step (Self-VCoT).
        labelled_cells: which cells the Self-GtA aid labels ("every cell, walls included").
        aid_note: anything else the Self-GtA edit must respect ('' when nothing).
        solution_drawing: what a Self-VR drawing adds to the board, precisely.
        solution_shows: a few words for that drawing ("a red line along a route").
    """

    legend: StateText
    rules: StateText
    reasoning: str = ""
    answer_format: str
    step: str
    step_format: str
    image_change: str
    labelled_cells: str
    aid_note: str = ""
    solution_drawing: str
    solution_shows: str


def _text(piece: StateText, state: Any) -> str:
    return piece(state) if callable(piece) else piece


def task(spec: PromptedFamily, state: Any) -> str:
    """The facts every protocol gives: what the image shows, the rules and the goal."""
    prompts = spec.prompts
    return f"{_text(prompts.legend, state)}\n{_text(prompts.rules, state)}"


def _reason_then_answer(spec: PromptedFamily) -> str:
    prompts = spec.prompts
    reasoning = f"Reason briefly: {prompts.reasoning}" if prompts.reasoning else "Reason briefly."
    return f"Output format:\n1) {reasoning}\n2) {prompts.answer_format}"


def _lines(spec: PromptedFamily) -> str:
    return "red dashed lines" if spec.aid.dash is not None else "red lines"


def aid_description(spec: PromptedFamily, *, drawn_by_model: bool = False) -> str:
    """What an annotated board shows: our oracle aid as drawn (``AidStyle``), or the one ``aid_edit`` asks for."""
    if drawn_by_model:
        where = f"at the centre of {spec.prompts.labelled_cells}"
    elif spec.aid.label_anchor == "top_left":
        where = f"near the top-left corner of {spec.aid.labelled}"
    else:
        where = f"at the centre of {spec.aid.labelled}"
    return (
        f"{_lines(spec)} on the cell boundaries and the coordinate (r,c) written {where}, where (0,0) is the "
        "top-left cell, r counts rows downward and c counts columns rightward"
    )


def text_cot(spec: PromptedFamily, state: Any) -> str:
    """Text-CoT (Tables 12-17): the facts, a brief reasoning, then the final answer."""
    return f"{task(spec, state)}\n\n{_reason_then_answer(spec)}"


def direct(spec: PromptedFamily, state: Any) -> str:
    """Direct: the facts and the answer format; the answer alone, no reasoning."""
    return f"{task(spec, state)}\n\nReply with the final answer only. {spec.prompts.answer_format}"


def with_aid(spec: PromptedFamily, state: Any, *, drawn_by_model: bool = False) -> str:
    """GtA's answering turn: the board, then its grid-annotated copy (ours, or the model's own)."""
    source = "your annotated copy of it" if drawn_by_model else "the same board annotated"
    return (
        f"{task(spec, state)}\n\nYou are given two images: the board, and {source}, with "
        f"{aid_description(spec, drawn_by_model=drawn_by_model)}.\n\n{_reason_then_answer(spec)}"
    )


def with_solution_drawing(spec: PromptedFamily, state: Any, *, drawn_by_model: bool = True) -> str:
    """VR's answering turn: the board and a drawing of a solution on it (the model's own, or ours for Oracle-VR)."""
    source = "your edited copy of it" if drawn_by_model else "a copy of it"
    return (
        f"{task(spec, state)}\n\nYou are given two images: the board, and {source} showing "
        f"{spec.prompts.solution_shows}. Use the drawing as a hint, but check every step against the board "
        f"itself.\n\n{_reason_then_answer(spec)}"
    )


def aid_edit(spec: PromptedFamily, state: Any) -> str:
    """Self-GtA's first stage (Tables 18-23): draw the grid and the cell coordinates on the board."""
    prompts, geometry = spec.prompts, spec.geometry
    lines = f"thin {_lines(spec)}"
    note = f" {prompts.aid_note}" if prompts.aid_note else ""
    return (
        "Edit the input image to make exactly one annotated copy of it.\n"
        f"{_text(prompts.legend, state)} All of this stays exactly as it is.\n"
        "What to do:\n"
        f"1. Keep the board's size, layout, colours and every piece in its place.{note}\n"
        f"2. Draw {lines} on the boundaries between cells, so that they split the board into {geometry.rows} "
        f"rows and {geometry.cols} columns aligned with its cells.\n"
        f"3. Write each cell's coordinate as (r,c) in black text at the centre of {prompts.labelled_cells}: "
        "(0,0) is the top-left cell, r counts rows downward and c counts columns rightward.\n"
        "4. Add nothing else: no arrows, path lines, legend, caption, title or other marks."
    )


def solution_edit(spec: PromptedFamily, state: Any) -> str:
    """Self-VR's first stage (Tables 30-35): draw a solution on the board."""
    prompts = spec.prompts
    return (
        f"Edit the input image to make exactly one annotated copy of it that shows {prompts.solution_shows}.\n"
        f"{_text(prompts.legend, state)} All of this stays exactly as it is.\n"
        "What to do:\n"
        "1. Keep the board's size, layout, colours and every piece in its place.\n"
        f"2. {prompts.solution_drawing}\n"
        "3. Add nothing else: no grid lines, coordinates, legend, caption, title or other marks."
    )


def vcot_intro(spec: PromptedFamily, state: Any, *, images: Images) -> str:
    """The first turn of an interactive protocol (Tables 24-29): the facts and the round structure.

    ``images`` says who supplies the board after each step: ``shown`` (Oracle-VCoT),
    ``shown_annotated`` (Oracle-Aug-VCoT: the second image is the annotated board) or
    ``drawn`` (Self-VCoT: the model draws it).
    """
    prompts = spec.prompts
    parts = [task(spec, state)]
    if images == "shown_annotated":
        parts.append(f"The second image is the same board with {aid_description(spec)}.")
    parts.append(
        f"Solve it one step at a time, starting from the board shown. In each round you give exactly one "
        f"{prompts.step}, written as {prompts.step_format}"
    )
    if images == "drawn":
        parts.append(
            "After each step you draw the board as it is after that step: one separate image per step, not the "
            f"board before it, with the same layout, colours and scale as the input, where {prompts.image_change}. "
            "No collage or several boards in one image, and no arrows, captions or other marks."
        )
    else:
        annotated = " with the same annotation" if images == "shown_annotated" else ""
        parts.append(f"After each step you are shown the board as it is after that step{annotated}.")
    return "\n\n".join(parts)


def step_request(spec: PromptedFamily, index: int) -> str:
    """The request of round ``index`` (1-based) for one step in the per-step format."""
    return f"Step {index}: give exactly one {spec.prompts.step}, written as {spec.prompts.step_format}"


def board_after(index: int, *, drawn: bool = False) -> str:
    """What precedes the board after step ``index``: ours, or the model's own drawing (Self-VCoT)."""
    return f"Your drawing of the board after step {index}:" if drawn else f"The board after step {index}:"


def image_request(index: int) -> str:
    """Self-VCoT: ask the model to draw the board after step ``index``."""
    return f"Now draw the board as it is after step {index}."


def step_edit(spec: PromptedFamily, index: int, step: str) -> str:
    """Self-VCoT's image stage: the request of ``image_request`` with the step itself, so it stands alone.

    A generator that sees no conversation (a decoupled pair's, Table 3) learns the step from it.
    """
    return (
        f"{image_request(index)} Step {index} is: {step}\n"
        f"Edit the input image, the board before this step, so that {spec.prompts.image_change}; keep the "
        "layout, colours and scale, and add no arrows, captions or other marks."
    )


EDIT_TAG = "edit"
"""The tag around the instruction a model rewrites for de-contextualized generation (UReason)."""
MAX_EDIT_CHARS = 8000


def refine_request(instruction: str) -> str:
    """De-contextualized generation (UReason): the model rewrites an edit instruction for an editor that sees nothing else."""
    return (
        "An image editor will now make this image. It sees only the input board and the instruction you "
        "write, nothing of this conversation. Think about what the image must show, then write the complete "
        f"instruction for the editor inside <{EDIT_TAG}></{EDIT_TAG}> tags.\nThe edit to make:\n{instruction}"
    )


def parse_edit(text: str) -> str | None:
    """The instruction in the last ``<edit>...</edit>`` of ``text`` (at most ``MAX_EDIT_CHARS``), or None.

    Example:
        >>> parse_edit("I will move the agent. <edit> Move the blue square up one cell. </edit>")
        'Move the blue square up one cell.'
    """
    payload = last_tagged(text, EDIT_TAG) if isinstance(text, str) else None
    if payload is None or not payload.strip():
        return None
    return payload.strip()[:MAX_EDIT_CHARS]


REMAINING_QUESTION = (
    "How many more steps are needed to finish the puzzle from the current board? Reply with one "
    f"non-negative integer inside <{REMAINING_TAG}></{REMAINING_TAG}> tags, for example "
    f"<{REMAINING_TAG}>2</{REMAINING_TAG}>."
)
"""The separate question after each round of a ``fixed``-budget episode (section 4.4)."""


def parse_remaining(text: str) -> int | None:
    """The count in the last ``<answer>N</answer>`` of ``text``, or None when it is not a bare integer.

    Example:
        >>> parse_remaining("about... <answer> 3 </answer>")
        3
        >>> parse_remaining("<answer>three</answer>") is None
        True
    """
    if not isinstance(text, str):
        return None
    payload = last_tagged(text, REMAINING_TAG)
    if payload is None:
        return None
    payload = payload.strip()
    if not payload.isascii() or not payload.isdigit() or len(payload) > MAX_REMAINING_DIGITS:
        return None
    return int(payload)


QUESTION_STYLES: dict[str, Callable[[PromptedFamily, Any], str]] = {"text_cot": text_cot, "direct": direct}
"""The two single-turn questions a dataset row can carry (``question`` holds Text-CoT)."""

"""Views of a row that several formats share: a trace record flattened or chained, a protocol's prompt.

``flat_text`` writes one message as a string with an ``<image>`` tag where each image
was (LLaMA-Factory, verl and OpenRLHF count those tags against the images).

``protocol_prompt`` is the first message of a single-turn protocol as RL formats need it
(verl, OpenRLHF): PNG images and a text with one ``<image>`` per image in front.

``Chain`` reads a record as a model that thinks in text and images would produce it: the
question (the first user message), then links of what the model says and the board
after it, then the final answer. Later user text (the protocol's requests, "The board
after step 2:") is the environment talking and is dropped; the boards it shows become
the model's own images, which is how unified-model trainers (BAGEL, ThinkMorph, MVoT)
train a model to draw each state. The final answer is the family's answer text: for a
single-turn record (Text-CoT: one question, replies, no later user turn) the answer its
last reply ends with; for an interactive record the answer its steps make
(``format_answer`` of every step, as the interactive protocols score).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from vgau_data.puzzles.base import AnswerError, FamilySpec
from vgau_data.rendering import png_bytes
from vgau_data.training.traces.record import TraceError

if TYPE_CHECKING:
    from vgau_data.training.exporters.source import SourceRow

IMAGE_TAG = "<image>"


def texts(message: Mapping[str, Any]) -> list[str]:
    return [part["text"] for part in message["content"] if part["type"] == "text"]


def images(message: Mapping[str, Any]) -> list[int]:
    return [part["index"] for part in message["content"] if part["type"] == "image"]


def flat_text(message: Mapping[str, Any], tag: str = IMAGE_TAG) -> str:
    """A message as one string: parts in order, images as ``tag``, joined by newlines.

    Raises:
        TraceError: a text part already holds ``tag`` (its count would no longer match the images).

    Example:
        >>> flat_text({"content": [{"type": "image", "index": 0}, {"type": "text", "text": "Solve it."}]})
        '<image>\\nSolve it.'
    """
    pieces = []
    for part in message["content"]:
        if part["type"] == "image":
            pieces.append(tag)
        elif tag in part["text"]:
            raise TraceError(f"a trace text holds the image tag {tag!r}; it would be read as an image")
        else:
            pieces.append(part["text"])
    return "\n".join(pieces)


@dataclass(slots=True)
class Link:
    """What the model says at one point of the chain, and the board it then shows (None: text only)."""

    text: str
    image: int | None = None


@dataclass(slots=True)
class Chain:
    """A record read as question, links of text and board, final answer (see the module docstring)."""

    question: str
    question_images: list[int]
    links: list[Link] = field(default_factory=list)
    answer: str = ""

    @property
    def has_step_images(self) -> bool:
        return any(link.image is not None for link in self.links)


def chain(spec: FamilySpec, messages: Sequence[Mapping[str, Any]]) -> Chain:
    """The ``Chain`` view of a checked record's messages.

    Raises:
        TraceError: the record does not open with a user message, has no assistant reply,
            or its replies do not parse as the family's answer or steps.
    """
    if messages[0]["role"] != "user":
        raise TraceError("a trace record opens with the user's question")
    view = Chain("\n\n".join(texts(messages[0])), images(messages[0]))
    replies = []
    for message in messages[1:]:
        if message["role"] == "assistant":
            if images(message):
                raise TraceError("an assistant message of a trace holds an image; only the user shows boards")
            replies.append("\n".join(texts(message)))
            view.links.append(Link(replies[-1]))
        elif view.links:
            for index in images(message):
                if view.links[-1].image is None:
                    view.links[-1].image = index
                else:
                    view.links.append(Link("", index))
    if not replies:
        raise TraceError("a trace record has no assistant reply")
    interactive = any(message["role"] == "user" for message in messages[1:])
    try:
        if interactive:
            view.answer = spec.format_answer(tuple(spec.parse_step(reply) for reply in replies))
        else:
            view.answer = spec.format_answer(spec.parse_answer(replies[-1]))
            if view.links[-1].text.endswith(view.answer):
                view.links[-1].text = view.links[-1].text[: -len(view.answer)].rstrip()
    except AnswerError as error:
        raise TraceError(f"a {spec.name} trace's replies do not read as its answer: {error}") from None
    return view


def protocol_prompt(row: SourceRow, protocol: str) -> tuple[list[bytes], str]:
    """(PNG images, text with one ``<image>`` per image first) of ``protocol``'s first message on ``row``."""
    from vgau_data.integrations.prompts import first_message

    pictures, text = first_message(row.instance_row(), protocol)
    if IMAGE_TAG in text:
        raise TraceError(f"row {row.id}: the prompt text holds the image tag {IMAGE_TAG!r}")
    return [png_bytes(picture) for picture in pictures], IMAGE_TAG * len(pictures) + text


def drawing_question(row: SourceRow, view: Chain, kind: str) -> str:
    """The question for a format whose model draws the boards: the kind's ``drawn_question``, else the record's."""
    from vgau_data.training.traces import get_trace_kind

    drawn = getattr(get_trace_kind(kind), "drawn_question", None)
    return drawn(row.spec, row.initial_state()) if drawn is not None else view.question

"""Self-generation protocols: the model draws, and its own drawing is what it sees (A.2.2-A.2.4).

self_gta    stage 1: the model draws red grid lines (dashed for klotski) and ``(r,c)`` labels
            on the board (Tables 18-23); stage 2: given the board and its drawing, it answers
            Text-CoT's question.
self_vcot   each round: one step in the family's per-step format, then the model draws the
            board after it (Tables 24-29), and that drawing, never ours, is the board it is
            shown next. Budgets as ``oracle_vcot`` (``optimal``, ``fixed``). Our environment
            still tracks the true state, for scoring and for the truth each drawing is
            recorded against; the model never sees it.
self_vr     the model draws its solution on the board (Tables 30-35), then answers given the
            board and its drawing. The stated answer is scored; the drawing is kept for
            ``diagnose`` (its red route can be read and replayed).

Who draws is the backend's business: a unified model draws for itself (``self``); a
``pair`` has another model draw (``external``), or a scripted generator substitute noise,
another instance's image, our oracle image or a k-cell perturbation. The protocol is the
same in every case, so these are the paper's diagnostics (Table 3) for any answering
model: the condition is part of the model's identity (its fingerprint and folder), not of
the protocol's name. The oracle condition needs no generator: ``oracle_gta``,
``oracle_vcot`` and ``oracle_vr``.

An image stage is one ``ImageRequest``. The generation context (``ProtocolConfig``, after
UReason) decides what reaches it besides the board to edit:

reasoning           (default) the conversation so far, in which the model reasoned and gave
                    its step, then the edit instruction: the paper's in-conversation Self-VCoT.
                    Self-GtA and Self-VR draw before the model has said anything, so for
                    them it is the bare instruction, as in the paper.
direct              the bare edit instruction (for Self-VCoT it names the step just given).
decontextualized    a separate question, not kept in the conversation, has the model
                    rewrite the instruction for an editor that sees nothing else, inside
                    ``<edit></edit>``; only that instruction reaches the image stage.

Every instruction stands alone (Self-VCoT's names the step), so a generator that reads no
conversation, a pair's, can follow it. A failed generation ends the episode as a backend
error (recorded, retried by the next run), like a failed chat turn.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from vgau_data.puzzles import prompts
from vgau_data.runners.backends.base import GeneratedImage, ImageRequest
from vgau_data.runners.messages import Conversation, ImagePart, Message, keep_last_images, user
from vgau_data.runners.protocols.base import Episode, ProtocolConfig, register
from vgau_data.runners.protocols.interactive import InteractiveEpisode
from vgau_data.runners.protocols.single import SingleTurnEpisode

if TYPE_CHECKING:
    from PIL import Image

    from vgau_data.oracle_aids import Purpose
    from vgau_data.puzzles.base import FamilySpec
    from vgau_data.runners.backends.base import Completion
    from vgau_data.runners.instances import Instance
    from vgau_data.runners.messages import Asks


@dataclass(slots=True)
class ImageRecord:
    """One generated (or substituted) image, as an episode record's ``images`` lists it.

    Attributes:
        purpose: ``aid`` (GtA), ``next_state`` (VCoT) or ``vr`` (VR).
        round: steps taken when it was drawn (Self-VCoT: 1 after the first step); 0 for GtA and VR.
        source: who drew it: ``self``, ``external``, ``oracle``, ``noise``, ``mismatch``, ``perturbed-K``.
        generator: the model or script that drew it (``janus:Janus-Pro-7B``, ``scripted-image:noise``).
        context: the generation context (``reasoning``, ``direct``, ``decontextualized``).
        instruction: the edit instruction the image stage got (the model's own when de-contextualized).
        state: the true state the image should show, in the family's state JSON: the initial
            state for GtA and VR, the state after the step for VCoT (fidelity needs no dataset).
        sha256: sha256 of the PNG file ``images/<sha[:2]>/<sha>.png`` beside the records
            (None when the episode ran without an image store, or the generation failed).
        size: ``[width, height]`` of the image.
        latency_s: the generation's wall time (for a batched backend, the batch's).
        error: why no image came back (then the episode ended as a backend error).
        substitute: the instance whose image a ``mismatch`` generator substituted.
        meta: anything else the generator reported (JSON-able).
    """

    purpose: str
    round: int
    source: str
    generator: str
    context: str
    instruction: str
    state: str
    sha256: str | None = None
    size: list[int] | None = None
    latency_s: float = 0.0
    error: str | None = None
    substitute: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(slots=True)
class _Drawing:
    """An image stage in progress: what to draw on which board, and what to do with the image."""

    purpose: Purpose
    round: int
    board: Image.Image
    instruction: str
    state: Any
    then: Callable[[Image.Image], None]
    context: list[Message] | None = None
    """What the image stage sees besides the instruction (reasoning context), else None."""
    refine: list[Message] | None = None
    """The rewrite question while it is unanswered (decontextualized context), else None."""


class DrawingEpisode(Episode):
    """Base of the protocols that draw: interleaves image stages with the protocol's text turns.

    A protocol calls ``_draw`` when it needs an image; until the image arrives, ``request``
    returns the image stage's requests (the rewrite question, then the ``ImageRequest``) and
    ``advance`` takes their replies, then hands the image to the drawing's ``then``.
    """

    draws = True
    default_runs = 3
    purpose: ClassVar[Purpose]
    """What the model draws: ``aid`` (GtA), ``next_state`` (VCoT) or ``vr`` (VR)."""

    def __init__(self, instance: Instance, config: ProtocolConfig, run: int) -> None:
        super().__init__(instance, config, run)
        self.drawings: list[ImageRecord] = []
        self._drawing: _Drawing | None = None

    def _draw(
        self,
        purpose: Purpose,
        board: Image.Image,
        instruction: str,
        state: Any,
        round_: int,
        then: Callable[[Image.Image], None],
        conversation: list[Message] | None = None,
    ) -> None:
        """Ask for an image of ``state`` made from ``board``; ``conversation``: what the model said so far."""
        drawing = _Drawing(purpose, round_, board, instruction, state, then)
        context = self.config.generation_context
        if context == "reasoning" and conversation:
            drawing.context = list(conversation)
        elif context == "decontextualized":
            question = prompts.refine_request(instruction)
            if conversation:
                drawing.refine = [*conversation, user(question)]
            else:
                drawing.refine = [
                    user(board, f"{prompts.task(self.family, self.instance.initial_state())}\n\n{question}")
                ]
        self._drawing = drawing

    def request(self) -> Conversation | ImageRequest:  # type: ignore[override]
        drawing = self._drawing
        if drawing is None:
            return super().request()
        if drawing.refine is not None:
            return Conversation(keep_last_images(drawing.refine, self.config.history), self.session_id, "refine")
        context = None
        if drawing.context is not None:
            context = Conversation(keep_last_images(drawing.context, self.config.history), self.session_id)
        return ImageRequest(
            session_id=self.session_id,
            purpose=drawing.purpose,
            instruction=drawing.instruction,
            images=(drawing.board,),
            conversation=context,
            family=self.family.name,
            difficulty=self.instance.difficulty,
            oracle_state=drawing.state,
            step=drawing.round,
        )

    def advance(self, reply: Completion | GeneratedImage) -> None:  # type: ignore[override]
        drawing = self._drawing
        if drawing is None:
            super().advance(reply)  # type: ignore[arg-type]
            return
        if self.done:
            raise RuntimeError(f"episode {self.session_id} is finished")
        if drawing.refine is not None:
            self._rewritten(drawing, reply)  # type: ignore[arg-type]
            return
        if not isinstance(reply, GeneratedImage):
            raise TypeError(f"episode {self.session_id} asked for an image, got a {type(reply).__name__}")
        self._drawing = None
        self.drawings.append(self._image_record(drawing, reply))
        if not reply.ok:
            self._finish(None, "backend_error", reply.error or "the generator returned no image", self._steps_so_far())
            return
        image = reply.image
        drawing.then(image if image.mode == "RGB" else image.convert("RGB"))  # type: ignore[union-attr]

    def _rewritten(self, drawing: _Drawing, completion: Completion) -> None:
        """The model's rewrite of the instruction: its ``<edit>`` block, else its whole reply, goes to the image stage."""
        turn = self._record_turn("refine", drawing.refine or [], completion)
        if not completion.ok:
            self._drawing = None
            self._finish(None, "backend_error", completion.error, self._steps_so_far())
            return
        refined = prompts.parse_edit(completion.text)
        if refined is None:
            turn.parse_error = "no_edit_tag"
            refined = completion.text.strip()[: prompts.MAX_EDIT_CHARS]
        drawing.instruction = refined
        drawing.refine = None

    def _image_record(self, drawing: _Drawing, reply: GeneratedImage) -> ImageRecord:
        meta = dict(reply.meta)
        image = reply.image if reply.ok else None
        return ImageRecord(
            purpose=drawing.purpose,
            round=drawing.round,
            source=str(meta.pop("source", "self")),
            generator=str(meta.pop("generator", "")),
            context=self.config.generation_context,
            instruction=drawing.instruction,
            state=self.family.to_json(drawing.state),
            sha256=meta.pop("sha256", None),
            size=list(image.size) if image is not None else None,
            latency_s=round(reply.latency_s, 4),
            error=None if image is not None else reply.error or "the generator returned no image",
            substitute=meta.pop("substitute", None),
            meta=meta,
        )

    def _steps_so_far(self) -> int:
        return 0

    def record_fields(self) -> dict[str, Any]:
        return {"images": [drawing.to_dict() for drawing in self.drawings]}


class DrawThenAnswer(DrawingEpisode, SingleTurnEpisode):
    """Draw on the board first (``purpose``, from ``edit(spec, state)``), then answer ``question(spec, state)``."""

    edit: ClassVar[Callable[[FamilySpec, Any], str]]
    question: ClassVar[Callable[[FamilySpec, Any], str]]

    def __init__(self, instance: Instance, config: ProtocolConfig, run: int) -> None:
        super().__init__(instance, config, run)
        self._drawn: Image.Image | None = None
        state = self._state()
        self._draw(self.purpose, instance.image, type(self).edit(self.family, state), state, 0, self._keep)

    def _keep(self, drawing: Image.Image) -> None:
        self._drawn = drawing

    def first_message(self) -> Message:
        return user(self.instance.image, self._drawn, type(self).question(self.family, self._state()))


@register
class SelfGtA(DrawThenAnswer):
    name = "self_gta"
    purpose = "aid"
    edit = prompts.aid_edit
    question = functools.partial(prompts.with_aid, drawn_by_model=True)


@register
class SelfVCoT(DrawingEpisode, InteractiveEpisode):
    name = "self_vcot"
    purpose = "next_state"
    images = "drawn"

    def __init__(self, instance: Instance, config: ProtocolConfig, run: int) -> None:
        super().__init__(instance, config, run)
        self._board = instance.image
        """The latest board the model has: the original, then its own drawings."""

    def _show(self, board: Any, question: str, asks: Asks) -> None:
        """Have the model draw the board after the last step; its drawing, not ``board`` (ours), is shown next."""
        index = self.steps_taken
        step = self.family.format_step(self.env.steps[-1])

        def show(drawing: Image.Image) -> None:
            self._board = drawing
            # One part for the request and the conversation kept, so its digest is computed once.
            self._request_parts = [prompts.board_after(index, drawn=True), ImagePart(drawing), question]
            self._ask = asks

        instruction = prompts.step_edit(self.family, index, step)
        self._draw(self.purpose, self._board, instruction, self.env.state, index, show, self.messages)

    def _steps_so_far(self) -> int:
        return self.steps_taken


@register
class SelfVR(DrawThenAnswer):
    name = "self_vr"
    purpose = "vr"
    edit = prompts.solution_edit
    question = prompts.with_solution_drawing

"""Scripted image generators: the oracle, the paper's controls and our perturbed aid.

``--backend scripted-image --model NAME`` with NAME one of:

- ``oracle``: our rendering of what the request asks for (the aid, the true next state,
  the drawn optimal solution), so a protocol's ceiling can be measured;
- ``noise``: seeded Gaussian noise of the input board's size (paper: interference);
- ``mismatch``: the same kind of image made from another instance of the same family and
  bucket, chosen deterministically from ``instances`` (paper: misleading guidance);
- ``perturbed-K``: the true image with exactly K cells wrong (``FamilySpec.fidelity.perturb``),
  rendered by our renderer: plausible but wrong (a family without a perturbation, or a
  self-VR image of one without a solution drawing, gets an error image result).

Each image depends only on the request (its session, step and seed), so a rerun makes
the same bytes. No torch, no model.

Alone (``--backend scripted-image``) it is a whole scripted model: the scripted policy
``answerer`` (default ``oracle``, see ``policies.py``) answers the text turns, so the
self-generation protocols run end to end with no model. The policies read no images: the
accuracy of such a run says nothing about the images, their fidelity does. Inside a
``pair`` it only draws.
"""

from __future__ import annotations

import hashlib
import time
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

import numpy as np
from PIL import Image

from vgau_data.errors import VgauError
from vgau_data.oracle_aids import annotate, oracle_image
from vgau_data.oracle_aids.vr import draw_sketch
from vgau_data.registry import get_family
from vgau_data.runners.backends.base import (
    BackendError,
    Completion,
    GeneratedImage,
    GenParams,
    ImageRequest,
    ImageSource,
)

if TYPE_CHECKING:
    from vgau_data.puzzles.base import FamilySpec
    from vgau_data.runners.instances import Instance
    from vgau_data.runners.messages import Conversation

KINDS: Final = ("oracle", "noise", "mismatch", "perturbed-K")
NOISE_MEAN: Final = 127.5
NOISE_STD: Final = 64.0


def _rng(request: ImageRequest, salt: str) -> np.random.Generator:
    words = [zlib.crc32(part.encode("utf-8")) for part in (salt, request.session_id)]
    return np.random.default_rng(np.random.SeedSequence([request.seed & (2**63 - 1), request.step, *words]))


def _state(family: FamilySpec, value: Any) -> Any:
    if value is None:
        raise ValueError("the request carries no oracle_state")
    return family.from_json(value) if isinstance(value, str) else value


def _check_partners(instances: Sequence[Instance]) -> None:
    """Every instance needs another of its family and bucket for ``mismatch`` to substitute."""
    if not instances:
        raise BackendError(
            "the mismatch generator needs the run's instances (instances=...) to draw another instance from"
        )
    sizes: dict[tuple[str, str], int] = {}
    for instance in instances:
        sizes[(instance.task, instance.difficulty)] = sizes.get((instance.task, instance.difficulty), 0) + 1
    alone = sorted(f"{task}/{level}" for (task, level), size in sizes.items() if size < 2)
    if alone:
        raise BackendError(
            f"the mismatch generator substitutes another instance of the same family and bucket, and {', '.join(alone)} "
            f"{'has' if len(alone) == 1 else 'have'} only one; select more rows (--limit) or leave those buckets out "
            "(--difficulty)"
        )


class ScriptedImageGenerator:
    """Images made by script from the request's truth; ``model`` names the script.

    Args:
        model: ``oracle``, ``noise``, ``mismatch`` or ``perturbed-K``.
        instances: the run's instances (``mismatch`` draws its substitutes from them; the
            answering policy plays them).
        answerer: the scripted policy that answers text turns, or None for a generator only.
    """

    name = "scripted-image"
    default_batch_size = 64

    def __init__(
        self, model: str = "oracle", *, instances: Sequence[Instance] = (), answerer: str | None = "oracle"
    ) -> None:
        self.model = model
        self.k = 0
        if model.startswith("perturbed-"):
            try:
                self.k = int(model.removeprefix("perturbed-"))
            except ValueError:
                self.k = -1
            if self.k < 1:
                raise BackendError(f"--model {model!r}: write perturbed-K with a whole number K >= 1, e.g. perturbed-3")
        elif model not in KINDS:
            raise BackendError(f"unknown scripted image generator {model!r}; choose from {', '.join(KINDS)}")
        self.instances = tuple(instances)
        if model == "mismatch":
            _check_partners(self.instances)
        self.answerer = answerer
        self._chat = None
        if answerer is not None:
            from vgau_data.runners.backends.scripted import ScriptedBackend

            self._chat = ScriptedBackend(model=answerer, instances=self.instances)
        self.capabilities = frozenset({"image_edit"} | ({"chat"} if answerer is not None else set()))
        self.image_source = ImageSource(f"perturbed-{self.k}" if self.k else model, f"{self.name}:{model}")
        self.display_name = f"{self.name}-{model}"
        """The model's name in folders and submissions when it runs alone."""

    def family_needs(self, purpose: str) -> tuple[str, ...]:
        """What a family must declare for this script to draw ``purpose`` (``backends.base.family_needs``)."""
        if self.model == "noise":
            return ()
        changes_cells = ("fidelity.perturb",) if self.k else ()
        return changes_cells + (("vr",) if purpose == "vr" else ())

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]:
        if self._chat is None:
            raise BackendError(f"{self.display_name} was built without an answerer and cannot chat")
        return self._chat.chat(conversations, gen)

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        results = []
        for request in requests:
            start = time.perf_counter()
            try:
                image, meta = self._make(request)
            except (VgauError, ValueError) as error:
                results.append(
                    GeneratedImage(error=f"{type(error).__name__}: {error}", latency_s=time.perf_counter() - start)
                )
                continue
            results.append(GeneratedImage(image=image, latency_s=time.perf_counter() - start, meta=meta))
        return results

    def _make(self, request: ImageRequest) -> tuple[Image.Image, dict[str, Any]]:
        family = get_family(request.family)
        if self.model == "noise":
            size = request.images[0].size if request.images else family.geometry.size
            pixels = _rng(request, "noise").normal(NOISE_MEAN, NOISE_STD, (size[1], size[0], 3))
            return Image.fromarray(pixels.clip(0, 255).astype(np.uint8)), {"size": list(size)}
        state = _state(family, request.oracle_state)
        if self.model == "oracle":
            return oracle_image(family, state, request.purpose), {}
        if self.model == "mismatch":
            return self._mismatch(family, request)
        if family.fidelity is None or family.fidelity.perturb is None:
            raise ValueError(f"{family.name} has no perturbation (FamilySpec.fidelity.perturb)")
        perturbed = family.fidelity.perturb(state, self.k, _rng(request, "perturb"))
        if request.purpose == "vr":
            solution = family.solve(state)
            if solution is None or family.vr is None:
                raise ValueError(f"{family.name}: no solution drawing for this state")
            sketch = family.vr.sketch(state, solution.answer)
            return draw_sketch(family.render(perturbed), family.geometry, sketch), {"cells_wrong": self.k}
        board = family.render(perturbed)
        return (annotate(family, board, perturbed) if request.purpose == "aid" else board), {"cells_wrong": self.k}

    def _mismatch(self, family: FamilySpec, request: ImageRequest) -> tuple[Image.Image, dict[str, Any]]:
        """The same kind of image from another instance of the family and bucket, picked by the request's id."""
        others = sorted(
            (item for item in self.instances if item.task == family.name and item.difficulty == request.difficulty
             and item.id != request.instance_id),
            key=lambda item: item.id,
        )  # fmt: skip
        if not others:
            raise ValueError(f"no other {family.name}/{request.difficulty} instance in the run to substitute")
        other = others[zlib.crc32(request.instance_id.encode("utf-8")) % len(others)]
        state = other.initial_state()
        if request.purpose == "next_state":
            solution = family.solve(state)
            if solution is None:
                raise ValueError(f"{other.id} has no solution")
            steps = family.trajectory(state, solution.answer)
            state = steps[min(max(request.step, 1), len(steps)) - 1]  # step k: the state after k steps
        return oracle_image(family, state, request.purpose), {"substitute": other.id}

    def fingerprint(self) -> str:
        answers = f":answers:{self.answerer}" if self.answerer is not None else ""
        return hashlib.sha256(f"scripted-image:{self.model}{answers}".encode()).hexdigest()

    def describe(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "model": self.model,
            "answerer": self.answerer,
            "capabilities": sorted(self.capabilities),
        }

"""What each set of records is in the paper's diagnosis: an answering model, a vision source, a paradigm.

Section 4.3 of the paper crosses an answering model (Table 3's columns) with where the
intermediate image comes from (its row groups: Gaussian noise, a mismatched image, each
external generator, the oracle; a unified model's own generation in Table 2) and the
paradigm that uses it (GtA, VCoT, VR). A ``Condition`` is one such cell;
``classify`` reads it off a records file's header and variant name, the one place that
knows how runs name their conditions. Text-CoT, the reference every delta is taken
against, is the condition with source ``text``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

PARADIGMS: Final[tuple[str, ...]] = ("gta", "vcot", "vcot_fixed", "vr")
"""Table order: Self-GtA, Self-VCoT, Self-VCoT-fixed (section 4.4), Self-VR."""
PARADIGM_TITLES: Final[Mapping[str, str]] = {"gta": "GtA", "vcot": "VCoT", "vcot_fixed": "VCoT-fixed", "vr": "VR"}
PURPOSE_OF_PARADIGM: Final[Mapping[str, str]] = {
    "gta": "aid",
    "vcot": "next_state",
    "vcot_fixed": "next_state",
    "vr": "vr",
}
"""What the paradigm's images are for (``vgau_data.oracle_aids.PURPOSES``)."""
REFERENCE: Final = "text_cot"
"""The paradigm of the reference row: every delta is taken against the answerer's Text-CoT."""
SOURCE_KINDS: Final[tuple[str, ...]] = ("text", "noise", "mismatch", "perturbed", "external", "oracle", "self")
"""Row-group order, from no image through interference and misleading images to assistance (Insight 3)."""
CONTEXTS: Final[tuple[str, ...]] = ("direct", "reasoning", "decontextualized")
"""UReason's generation contexts, in its table order (each delta is over the one before)."""


@dataclass(frozen=True, slots=True)
class Source:
    """Where a condition's images come from: a kind of ``SOURCE_KINDS`` and, for an
    external generator, its name (for ``perturbed``, the number of wrong cells); ``self``
    is the answering model's own generation."""

    kind: str
    name: str = ""

    def __post_init__(self) -> None:
        if self.kind not in SOURCE_KINDS:
            raise ValueError(f"unknown image source {self.kind!r}; choose from {', '.join(SOURCE_KINDS)}")

    @property
    def title(self) -> str:
        """The row group's heading, worded as the paper's Table 3.

        Example:
            >>> Source("external", "Qwen-Image-Edit").title, Source("perturbed", "2").title
            ('Vision generator: Qwen-Image-Edit', 'Vision: perturbed image (2 cells wrong)')
        """
        titles = {
            "text": "Text-CoT",
            "noise": "Vision: Gaussian noise",
            "mismatch": "Vision: Mismatch image",
            "perturbed": f"Vision: perturbed image ({self.name} cells wrong)",
            "external": f"Vision generator: {self.name}",
            "oracle": "Oracle generation",
            "self": "Self generation",
        }
        return titles[self.kind]

    def sort_key(self) -> tuple[int, int, str]:
        cells = int(self.name) if self.kind == "perturbed" and self.name.isdigit() else 0
        return (SOURCE_KINDS.index(self.kind), cells, self.name)


TEXT: Final = Source("text")


@dataclass(frozen=True, slots=True)
class Condition:
    """One cell of the diagnosis: who answers, where the image comes from, how it is used.

    ``context`` is the UReason generation context the images were made in.
    """

    answerer: str
    source: Source
    paradigm: str
    context: str = "direct"

    @property
    def is_reference(self) -> bool:
        return self.source.kind == "text"

    @property
    def row_title(self) -> str:
        """``Self-GtA``, ``Oracle-VCoT``... as the paper's rows (every non-oracle source is a
        self-generation protocol with its image replaced)."""
        if self.is_reference:
            return "Text-CoT"
        prefix = "Oracle" if self.source.kind == "oracle" else "Self"
        return f"{prefix}-{PARADIGM_TITLES[self.paradigm]}"

    def sort_key(self) -> tuple[Any, ...]:
        order = PARADIGMS.index(self.paradigm) if self.paradigm in PARADIGMS else -1
        context = CONTEXTS.index(self.context) if self.context in CONTEXTS else len(CONTEXTS)
        return (self.source.sort_key(), order, context, self.answerer)


_ORACLE_PARADIGMS: Final[Mapping[str, str]] = {"oracle_gta": "gta", "oracle_vcot": "vcot"}
_SELF_PARADIGMS: Final[Mapping[str, str]] = {"self_gta": "gta", "self_vcot": "vcot", "self_vr": "vr"}


def classify(header: Mapping[str, Any], variant: str) -> Condition | None:
    """The condition a records file holds, from its header; None when it is not part of the diagnosis.

    ``header["protocol"]`` gives the protocol's name and budget (a ``fixed`` VCoT is
    ``vcot_fixed``); variants that keep only some images (``history``) and the
    oracle-augmented VCoT are left out, as the paper's diagnosis has neither.

    Example:
        >>> classify({"model": "qwen", "protocol": {"name": "oracle_vcot", "budget": "fixed"}}, "oracle_vcot_fixed")
        Condition(answerer='qwen', source=Source(kind='oracle', name=''), paradigm='vcot_fixed', context='direct')
        >>> classify({"model": "qwen", "protocol": {"name": "direct"}}, "direct") is None
        True
    """
    protocol = header.get("protocol") or {}
    name = str(protocol.get("name") or variant)
    if protocol.get("history") is not None:
        return None
    answerer = str(header.get("model") or "model")
    fixed = protocol.get("budget") == "fixed"
    if name == REFERENCE:
        return Condition(answerer, TEXT, REFERENCE)
    if name in _ORACLE_PARADIGMS:
        paradigm = _ORACLE_PARADIGMS[name] + ("_fixed" if fixed else "")
        return Condition(answerer, Source("oracle"), paradigm)
    if name in _SELF_PARADIGMS:
        paradigm = _SELF_PARADIGMS[name] + ("_fixed" if fixed else "")
        return Condition(answerer, Source("self"), paradigm, str(protocol.get("generation_context") or "direct"))
    return None

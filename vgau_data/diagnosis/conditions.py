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

from vgau_data.readers import DEFAULT_READER

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
"""UReason's generation contexts, in its table order (each delta is over the one before);
a condition without a generation stage (Text-CoT, the oracle protocols) has context ``""``."""


@dataclass(frozen=True, slots=True)
class Source:
    """Where a condition's images come from: a kind of ``SOURCE_KINDS`` and, for an
    external generator, its name (for ``perturbed``, the number of wrong cells; for
    ``oracle``, empty for the oracle protocols, else the script that drew it inside a
    self-generation protocol); ``self`` is the answering model's own generation."""

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
            "oracle": f"Vision: oracle image ({self.name})" if self.name else "Oracle generation",
            "self": "Self generation",
        }
        return titles[self.kind]

    def sort_key(self) -> tuple[int, int, str]:
        cells = int(self.name) if self.kind == "perturbed" and self.name.isdigit() else 0
        return (SOURCE_KINDS.index(self.kind), cells, self.name)


TEXT: Final = Source("text")
ORACLE: Final = Source("oracle")
"""The oracle protocols' source: our renderings, shown by the protocol."""


@dataclass(frozen=True, slots=True)
class Condition:
    """One cell of the diagnosis: who answers, where the image comes from, how it is used.

    ``context`` is the UReason generation context the images were made in (``""`` when
    there is no generation stage).
    """

    answerer: str
    source: Source
    paradigm: str
    context: str = ""

    @property
    def is_reference(self) -> bool:
        return self.source.kind == "text"

    @property
    def row_title(self) -> str:
        """``Self-GtA``, ``Oracle-VCoT``... as the paper's rows (every source but the oracle
        protocols' is a self-generation protocol, with the image drawn or replaced)."""
        if self.is_reference:
            return "Text-CoT"
        prefix = "Oracle" if self.source == ORACLE else "Self"
        return f"{prefix}-{PARADIGM_TITLES[self.paradigm]}"

    def sort_key(self) -> tuple[Any, ...]:
        order = PARADIGMS.index(self.paradigm) if self.paradigm in PARADIGMS else -1
        context = CONTEXTS.index(self.context) if self.context in CONTEXTS else -1
        return (self.source.sort_key(), context, order, self.answerer)


_PARADIGMS: Final[Mapping[str, tuple[str, str]]] = {
    "oracle_gta": ("oracle", "gta"),
    "oracle_vcot": ("oracle", "vcot"),
    "oracle_vr": ("oracle", "vr"),
    "self_gta": ("self", "gta"),
    "self_vcot": ("self", "vcot"),
    "self_vr": ("self", "vr"),
}
"""Protocol -> (who makes its images, paradigm); the self ones say who drew in their header."""


def classify(header: Mapping[str, Any], variant: str) -> Condition | None:
    """The condition a records file holds, from its header; None when it is not part of the diagnosis.

    ``header["protocol"]`` gives the protocol's name, budget (a ``fixed`` VCoT is
    ``vcot_fixed``), generation context and reader; ``header["images"]`` who drew. Protocols
    outside the paper's diagnosis (Direct, the oracle-augmented VCoT) give None. Records
    read by another reader than the default answer as their own column, ``model (reader)``,
    so every delta is taken within one reader.

    Example:
        >>> classify({"model": "qwen", "protocol": {"name": "oracle_vcot", "budget": "fixed"}}, "oracle_vcot_fixed")
        Condition(answerer='qwen', source=Source(kind='oracle', name=''), paradigm='vcot_fixed', context='')
        >>> header = {"backend": {"backend": "pair", "answerer": {"backend": "hf", "model": "/m/Qwen3.5-9B"}},
        ...           "protocol": {"name": "self_gta", "generation_context": "reasoning"},
        ...           "images": {"source": "external", "generator": "diffusers:Qwen-Image-Edit"}}
        >>> classify(header, "self_gta")
        Condition(answerer='Qwen3.5-9B', source=Source(kind='external', name='Qwen-Image-Edit'), paradigm='gta', context='reasoning')
        >>> classify({"model": "qwen", "protocol": {"name": "direct"}}, "direct") is None
        True
        >>> header = {"model": "qwen", "protocol": {"name": "text_cot", "reader": "authors"}}
        >>> classify(header, "text_cot_authors").answerer
        'qwen (authors)'
    """
    protocol = header.get("protocol") or {}
    name = str(protocol.get("name") or variant)
    answerer = answerer_of(header)
    if protocol.get("reader") not in (None, DEFAULT_READER):
        answerer = f"{answerer} ({protocol['reader']})"
    if name == REFERENCE:
        return Condition(answerer, TEXT, REFERENCE)
    if name not in _PARADIGMS:
        return None
    kind, paradigm = _PARADIGMS[name]
    paradigm += "_fixed" if protocol.get("budget") == "fixed" else ""
    if kind == "oracle":
        return Condition(answerer, ORACLE, paradigm)
    drawn_by = header.get("images") or {}
    context = str(protocol.get("generation_context") or CONTEXTS[1])
    return Condition(answerer, source_of(str(drawn_by.get("source") or "self"), str(drawn_by.get("generator") or "")),
                     paradigm, context)  # fmt: skip


def source_of(kind: str, generator: str) -> Source:
    """A ``Source`` from a record's ``source`` and ``generator`` (``perturbed-2``, ``diffusers:Qwen-Image-Edit``).

    Example:
        >>> source_of("perturbed-2", "scripted-image:perturbed-2"), source_of("oracle", "scripted-image:oracle")
        (Source(kind='perturbed', name='2'), Source(kind='oracle', name='scripted-image'))
    """
    backend, _, model = generator.partition(":")
    if kind.startswith("perturbed-"):
        return Source("perturbed", kind.removeprefix("perturbed-"))
    if kind == "external":
        return Source("external", model or backend or "generator")
    if kind == "oracle":
        return Source("oracle", backend or "generator")
    if kind in ("noise", "mismatch", "self"):
        return Source(kind)
    raise ValueError(f"unknown image source {kind!r} in a records header")


def answerer_of(header: Mapping[str, Any]) -> str:
    """The model that answers in a run: a pair's answerer, a lone scripted generator's
    policy, else the run's model (its last path component).

    Example:
        >>> answerer_of({"model": "scripted-image-noise", "backend": {"backend": "scripted-image", "answerer": "oracle"}})
        'oracle'
    """
    backend = header.get("backend") or {}
    if backend.get("backend") == "pair" and isinstance(backend.get("answerer"), Mapping):
        return _model_name(backend["answerer"]) or str(header.get("model") or "model")
    if backend.get("backend") == "scripted-image" and backend.get("answerer"):
        return str(backend["answerer"])
    return _model_name({"model": header.get("model")}) or _model_name(backend) or "model"


def answerer_fingerprint(header: Mapping[str, Any]) -> str | None:
    """The answering model's fingerprint, where the header records it (a pair names its
    answerer's; a lone scripted generator answers with a policy it does not fingerprint).

    Example:
        >>> answerer_fingerprint({"model_fingerprint": "ab", "backend": {"backend": "pair", "answerer_fingerprint": "cd"}})
        'cd'
    """
    backend = header.get("backend") or {}
    if backend.get("backend") == "pair":
        return str(backend.get("answerer_fingerprint") or "") or None
    if backend.get("backend") == "scripted-image":
        return None
    return str(header.get("model_fingerprint") or "") or None


def _model_name(description: Mapping[str, Any]) -> str:
    model = description.get("model") or description.get("backend")
    return str(model).rstrip("/").rsplit("/", 1)[-1] if model else ""

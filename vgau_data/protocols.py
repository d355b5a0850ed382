"""The paper's protocols by name: what each one is, below every layer that names them.

Scoring lists and orders protocols, and the harness bridges ask which ones step an
environment, without importing the runners that play them: this table is what they read.
``vgau_data.runners.protocols`` plays each one with a registered ``Episode`` class of the
same name, and ``register`` refuses a class whose name is not in this table or whose kind
(interactive, draws) differs from its entry. A new protocol is one entry here and its
class.

Example:
    >>> protocol_names()[:3]
    ['direct', 'text_cot', 'self_gta']
    >>> is_interactive("oracle_vcot"), is_interactive("text_cot")
    (True, False)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

BUDGET_MODES: tuple[str, ...] = ("optimal", "fixed")
"""``optimal``: at most ``optimal_length`` rounds (the paper's setting); ``fixed``: the model
says when it is done, in a separate question after each round (section 4.4)."""


@dataclass(frozen=True, slots=True)
class ProtocolInfo:
    """One protocol: its name, its place in tables, a one-line summary and its kind.

    ``interactive``: it steps an environment turn by turn (and so also takes the ``fixed``
    budget); ``draws``: the model makes images (its backend needs an image capability).
    """

    name: str
    rank: int
    summary: str
    interactive: bool = False
    draws: bool = False

    @property
    def budgets(self) -> tuple[str, ...]:
        """The step budgets it accepts: single-turn protocols take only ``optimal``."""
        return BUDGET_MODES if self.interactive else BUDGET_MODES[:1]


_PROTOCOLS: dict[str, ProtocolInfo] = {
    info.name: info
    for info in (
        ProtocolInfo("direct", 10, "board + the question; the answer alone, no reasoning"),
        ProtocolInfo("text_cot", 20, "board + the question (Tables 12-17); reason briefly, then answer"),
        ProtocolInfo(
            "self_gta", 30, "board; the model draws red grid lines and (r,c) labels on it (Tables 18-23), then answers "
            "given both", draws=True,
        ),
        ProtocolInfo(
            "self_vcot", 40, "board; one step per round, then the model draws the board after it (Tables 24-29) and is "
            "shown its drawing", interactive=True, draws=True,
        ),
        ProtocolInfo(
            "self_vr", 50, "board; the model draws its solution on it (Tables 30-35), then answers given both", draws=True
        ),
        ProtocolInfo("oracle_gta", 60, "board + our oracle aid (red grid lines, (r,c) labels) + the question"),
        ProtocolInfo(
            "oracle_vcot", 70, "board; one step per round, then we show the board after it", interactive=True
        ),
        ProtocolInfo(
            "oracle_aug_vcot", 80, "board + oracle aid; one step per round, then we show the annotated board after it",
            interactive=True,
        ),
        ProtocolInfo(
            "oracle_vr", 90, "board + our drawing of an optimal solution on it (the dataset's oracle_vr) + the question"
        ),
    )
}
PROTOCOLS: Mapping[str, ProtocolInfo] = MappingProxyType(_PROTOCOLS)
"""Every protocol by name (a read-only view; ``protocol_names()`` gives table order)."""


def protocol_names() -> list[str]:
    """Every protocol in table order (by ``rank``)."""
    return sorted(_PROTOCOLS, key=lambda name: (_PROTOCOLS[name].rank, name))


def budget_variant(name: str, budget: str) -> str:
    """The name of ``name`` under ``budget`` in records and submissions (``oracle_vcot_fixed``).

    Example:
        >>> budget_variant("oracle_vcot", "fixed"), budget_variant("direct", "optimal")
        ('oracle_vcot_fixed', 'direct')
    """
    return name + ("_fixed" if budget == "fixed" else "")


def budget_variants() -> list[str]:
    """Every protocol and budget as a variant name, in table order (``oracle_vcot``, ``oracle_vcot_fixed``, ...)."""
    return [budget_variant(name, budget) for name in protocol_names() for budget in _PROTOCOLS[name].budgets]


def is_interactive(name: str) -> bool:
    """Whether protocol ``name`` steps an environment turn by turn (False for a name that is none)."""
    info = _PROTOCOLS.get(name)
    return info is not None and info.interactive

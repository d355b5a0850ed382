"""The paper's protocols, one registered ``Episode`` class each (what each one is: ``vgau_data.protocols``).

``base.py`` says how a protocol is played and holds the registry; ``single.py`` holds the
single-turn protocols, ``interactive.py`` the step-by-step ones, ``drawn.py`` those in
which the model draws (the self-generation protocols). Importing this package
imports every module that registers protocols (add a new module to the list below), and
nothing heavy: no torch, no model library.

Example:
    >>> protocol_names()
    ['direct', 'text_cot', 'self_gta', 'self_vcot', 'self_vr', 'oracle_gta', 'oracle_vcot', 'oracle_aug_vcot', 'oracle_vr']
    >>> ProtocolConfig(name="oracle_aug_vcot", budget="fixed", history=2).variant
    'oracle_aug_vcot_fixed_last2'
"""

from __future__ import annotations

from vgau_data.protocols import BUDGET_MODES, budget_variants
from vgau_data.puzzles.prompts import PROMPT_VERSION
from vgau_data.runners.protocols import drawn, interactive, single  # noqa: F401  (each registers its protocols)
from vgau_data.runners.protocols.base import (
    GENERATION_CONTEXTS,
    PROTOCOLS,
    Episode,
    Outcome,
    ProtocolConfig,
    ProtocolError,
    Turn,
    make_episode,
    protocol_class,
    protocol_names,
    register,
)

__all__ = [
    "BUDGET_MODES",
    "GENERATION_CONTEXTS",
    "PROMPT_VERSION",
    "PROTOCOLS",
    "Episode",
    "Outcome",
    "ProtocolConfig",
    "ProtocolError",
    "Turn",
    "budget_variants",
    "make_episode",
    "protocol_class",
    "protocol_names",
    "register",
]

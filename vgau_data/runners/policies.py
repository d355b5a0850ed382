"""Scripted policies for the scripted backend: the oracle and random baselines, and test doubles.

A policy is ``fn(conversation) -> str``. It knows which instance and protocol it is
answering from the conversation's ``session_id`` (``<id>/<variant>/run<k>``, set by the
episode) and which turn from the number of assistant messages so far.

    oracle              an optimal answer; interactively, the next optimal step (and the
                        true remaining count under the fixed budget).
    oracle-stop-early   the oracle's first step, then claims 0 steps remain (fixed budget:
                        the episode stops unsolved).
    random              the family's random answer; interactively, one of its steps.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from vgau_data.runners.protocols import INTERACTIVE, REMAINING_TAG

if TYPE_CHECKING:
    from vgau_data.puzzles.base import FamilySpec
    from vgau_data.runners.instances import Instance
    from vgau_data.runners.messages import Conversation

POLICIES: tuple[str, ...] = ("oracle", "oracle-stop-early", "random")


def split_session_id(session_id: str) -> tuple[str, str, int]:
    """``"maze-easy-0000/oracle_vcot_fixed/run2"`` -> ``("maze-easy-0000", "oracle_vcot_fixed", 2)``."""
    instance_id, variant, run = session_id.rsplit("/", 2)
    return instance_id, variant, int(run.removeprefix("run"))


def base_protocol(variant: str) -> str:
    """The protocol a variant name belongs to (``oracle_aug_vcot_fixed_last2`` -> ``oracle_aug_vcot``)."""
    for name in sorted(INTERACTIVE | {"direct", "text_cot", "oracle_gta"}, key=len, reverse=True):
        if variant == name or variant.startswith(name + "_"):
            return name
    raise ValueError(f"unknown protocol variant {variant!r}")


def make_policy(name: str, instances: Sequence[Instance]) -> Callable[[Conversation], str]:
    """The policy ``name`` (one of ``POLICIES``) over ``instances``."""
    if name not in POLICIES:
        raise ValueError(f"unknown scripted policy {name!r}; choose from {', '.join(POLICIES)}")
    by_id = {instance.id: instance for instance in instances}

    @functools.cache
    def solved(instance_id: str) -> tuple[tuple[Any, ...], tuple[Any, ...]]:
        instance = by_id[instance_id]
        state = instance.initial_state()
        solution = instance.family.solve(state)
        if solution is None:
            raise ValueError(f"{instance_id} has no solution")
        return tuple(solution.answer), instance.family.oracle_steps(state, solution.answer)

    def policy(conversation: Conversation) -> str:
        instance_id, variant, _run = split_session_id(conversation.session_id)
        if instance_id not in by_id:
            raise KeyError(f"scripted policy {name!r} has no instance {instance_id!r}")
        instance = by_id[instance_id]
        family = instance.family
        interactive = base_protocol(variant) in INTERACTIVE
        fixed = "_fixed" in variant
        turn = conversation.n_assistant_turns
        if name == "random":
            return _random_text(family, instance, interactive, turn, conversation.session_id)
        answer, steps = solved(instance_id)
        if not interactive:
            return f"Reasoning done.\n{family.format_answer(answer)}"
        text = family.format_steps([steps[turn]])
        if fixed:
            remaining = 0 if name == "oracle-stop-early" else len(steps) - turn - 1
            text += f"\n<{REMAINING_TAG}>{remaining}</{REMAINING_TAG}>"
        return text

    policy.__qualname__ = f"policy:{name}"
    return policy


def _random_text(family: FamilySpec, instance: Instance, interactive: bool, turn: int, session_id: str) -> str:
    seed = int.from_bytes(hashlib.sha256(f"{session_id}/{turn}".encode()).digest()[:8], "little")
    rng = np.random.default_rng(seed)
    state = instance.initial_state()
    if not interactive:
        return family.format_answer(family.random_answer(state, rng))
    step = family.random_step(state, rng)
    return "no move" if step is None else family.format_steps([step])

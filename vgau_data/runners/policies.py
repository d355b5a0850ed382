"""Scripted policies for the scripted backend: the oracle and random baselines, and test doubles.

A policy is ``fn(conversation) -> str``. It knows which instance it is answering from the
conversation's ``session_id`` (``<id>/<variant>/run<k>``, set by the episode), what kind of
reply is wanted from its ``asks`` (``answer``, ``step``, ``remaining``), and how many steps
were taken from the number of assistant messages so far (a count question is never kept
in the conversation, so every assistant message is a step).

    oracle              an optimal answer; interactively, the next optimal step, and the
                        true number of steps left when asked.
    oracle-stop-early   the oracle, except that it says 0 steps remain after its first step
                        (under the ``fixed`` budget the episode stops unsolved).
    random              the family's random answer; interactively, a random step, and a
                        random count of steps left (0-3).

Asked to rewrite an edit instruction (``refine``, de-contextualized generation), every
policy returns ``REWRITTEN_EDIT`` in ``<edit>`` tags: scripted image generators draw from
the request's truth, not its words.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from vgau_data.puzzles.prompts import EDIT_TAG, REMAINING_TAG

if TYPE_CHECKING:
    from vgau_data.runners.instances import Instance
    from vgau_data.runners.messages import Conversation

POLICIES: tuple[str, ...] = ("oracle", "oracle-stop-early", "random")
REWRITTEN_EDIT = "Redraw the input board exactly as the request describes, changing nothing else."


def split_session_id(session_id: str) -> tuple[str, str, int]:
    """``"maze-easy-0000/oracle_vcot_fixed/run2"`` -> ``("maze-easy-0000", "oracle_vcot_fixed", 2)``."""
    instance_id, variant, run = session_id.rsplit("/", 2)
    return instance_id, variant, int(run.removeprefix("run"))


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
        instance_id, _variant, _run = split_session_id(conversation.session_id)
        if instance_id not in by_id:
            raise KeyError(f"scripted policy {name!r} has no instance {instance_id!r}")
        family = by_id[instance_id].family
        taken = conversation.n_assistant_turns
        if conversation.asks == "refine":
            return f"<{EDIT_TAG}>{REWRITTEN_EDIT}</{EDIT_TAG}>"
        if name == "random":
            return _random_text(by_id[instance_id], conversation)
        answer, steps = solved(instance_id)
        if conversation.asks == "answer":
            return f"Reasoning done.\n{family.format_answer(answer)}"
        if conversation.asks == "remaining":
            left = 0 if name == "oracle-stop-early" else len(steps) - taken
            return _count(left)
        return family.format_step(steps[taken])

    policy.__qualname__ = f"policy:{name}"
    return policy


def _random_text(instance: Instance, conversation: Conversation) -> str:
    key = f"{conversation.session_id}/{conversation.n_assistant_turns}/{conversation.asks}"
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "little"))
    family, state = instance.family, instance.initial_state()
    if conversation.asks == "answer":
        return family.format_answer(family.random_answer(state, rng))
    if conversation.asks == "remaining":
        return _count(int(rng.integers(4)))
    step = family.random_step(state, rng)
    return "no move" if step is None else family.format_step(step)


def _count(steps_left: int) -> str:
    return f"<{REMAINING_TAG}>{steps_left}</{REMAINING_TAG}>"

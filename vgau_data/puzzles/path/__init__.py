"""Path: name the labelled cells on the one road from the start to the destination.

Board:
    10x10 cells, each blocked (``#``, drawn black) or road (``.``, drawn light gray). The
    road cells form a tree (connected, no cycle), so exactly one simple path joins any two
    of them. An orange triangle marks ``start``, a blue triangle ``end``; five road cells
    other than those two carry the letters A-E (``labels``, sorted by letter). At least one
    label lies on the start-end path and at least one off it; letters are assigned at
    random, so their alphabetical order says nothing about the path.

Step:
    An answer step is a label letter (``"A"``-``"E"``). In the interactive environment a
    step is a ``PathStep(move, hit_labels)``, the paper's per-step format (Table 26): the
    current-position marker (the orange start triangle, ``position``; None means at
    ``start``) moves one cell ``"up"``/``"down"``/``"left"``/``"right"``
    (``out_of_bounds``, ``wall``), and the model declares the labels it newly passes on
    that move. Declarations add up (``declared``); one that stops being a prefix of the
    true on-path letters is ``wrong_label``, as in the authors' environment.
    ``position`` and ``declared`` are not part of the JSON state.

Goal:
    The answer equals the on-path letters in traversal order from ``start`` to ``end``.
    A wrong letter is ``wrong_label`` at its index; a strict prefix of the truth is
    ``not_solved``. For the marker, the goal is standing on ``end`` having declared
    exactly those letters: the answer of an episode is what it declared, and an episode
    that does not reach the destination is never solved.

Buckets:
    ``optimal_length`` = moves of the start-end path: easy 2-5, medium 8-14, hard 18-25.
    Every right answer has that length (``unique_length``); a wrong one has ``len(answer)``.

Answer:
    ``<answer>A,C</answer>``: comma-separated letters A-E (case and spaces tolerated;
    ``<answer></answer>`` is the empty answer, "no label"). ``answer_payload`` is the
    compact JSON list of letters, e.g. ``["A","C"]``. An interactive episode answers with
    its walk instead: one ``<STEP_JSON>{"move":"up","hit_labels":["A"]}</STEP_JSON>`` per
    step and no ``<answer>`` tag. ``replay`` judges such a walk by moving the marker and
    comparing the declared letters, so the text itself says whether the destination was
    reached, for every consumer (records, submissions, ``score``). A text with an
    ``<answer>`` tag is judged by its letters.
"""

from __future__ import annotations

from vgau_data.puzzles.base import FamilySpec
from vgau_data.puzzles.capabilities import EpisodeSteps
from vgau_data.puzzles.path import rules, solver

__all__ = ["SPEC"]

SPEC = FamilySpec.from_package(
    __name__,
    unique_length=True,
    episode_steps=EpisodeSteps(
        answer_steps=rules.answer_steps, trajectory=rules.trajectory, random_step=solver.random_step
    ),
)

"""Path as the authors' code reads it (``lmms_eval/tasks/path``: ``utils.py``, ``step_adapter.py``).

Final answer: the letters A-E of the last ``<answer>...</answer>``; when that content
reads as no letters (or there is no tag), the last line of the text that does, then the
whole text. A piece of text reads as letters when, upper-cased and stripped of quotes
and brackets, it is 1-5 letters run together (``BED``), else its stand-alone letters
(``B and D``, ``A path to C``), else letters separated only by ``,``, ``-``, ``>`` and spaces.
Correct when the letters equal the on-path letters in order.

Step reply: the last ``<STEP_JSON>{...}</STEP_JSON>`` (or the whole reply) as strict JSON
``{"move": ..., "hit_labels": [...]}``; failing that, the first direction word of the reply
and the letters of a ``hit_labels: [...]`` in it. The labels a model declares add up;
with repeats in a row counted once they must stay a prefix of the on-path letters.
The answer of an episode is the labels the marker actually stepped on, and the episode
takes one step fewer than the path's moves (their ``resolve_max_steps``): it never
stands on the destination, and under the ``fixed`` budget the model must say 0 one move
before it.
The capability ``FamilySpec.authors_reader`` (reader ``authors``, ``vgau_data.readers``).
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from collections.abc import Sequence
from typing import Any

from vgau_data.answers import lower_aligned
from vgau_data.puzzles.authors_reading import (
    DIRECTIONS,
    Answer,
    AuthorsEpisode,
    AuthorsFamily,
    first_direction,
    last_between,
    last_enclosed,
    loads,
    result_text,
)
from vgau_data.puzzles.base import DELTAS, Cell
from vgau_data.puzzles.path.state import WALL, PathState, PathStep

LETTERS = frozenset("ABCDE")
ROUNDS_WITHOUT_ROUTE = 64
"""Their step budget when the route has fewer than 2 moves (their default ``max_steps``)."""
MAX_LINES_READ = 10_000
"""Lines read back from the end of an untagged answer (theirs reads every line): an honest
answer has a few hundred, and this bounds the cost of a text of a million lines."""
_RUN = re.compile(r"[A-E]{1,5}")
_ALONE = re.compile(r"\b([A-E])\b")
_ANY = re.compile(r"[A-E]")
_SEPARATED = re.compile(r"[A-E,\-\s>]+")
_EDGES = "`\"'[](){}<> \n\t"
_HAS_LETTER = re.compile("[A-Ea-e\u1e9a]")
"""A line without one reads as no letters (only these upper-case to A-E), so it is skipped unread."""


def letter_sequence(text: str) -> list[str] | None:
    """The letters a piece of text names, or None (see the module docstring).

    Example:
        >>> letter_sequence(" bed "), letter_sequence("B and D"), letter_sequence("B->D"), letter_sequence("none")
        (['B', 'E', 'D'], ['B', 'D'], ['B', 'D'], None)
    """
    cleaned = text.strip().upper().strip(_EDGES)
    if _RUN.fullmatch(cleaned):
        return list(cleaned)
    alone = _ALONE.findall(cleaned)
    if alone:
        return alone
    if not _SEPARATED.fullmatch(cleaned):  # tested before listing the letters: a long text fails it at once
        return None
    return _ANY.findall(cleaned) or None


def read_labels(text: str) -> list[str] | None:
    """The letters of a final answer (see the module docstring)."""
    stripped = result_text(text).strip()
    content = last_between(stripped, "answer")
    if content is not None and (letters := letter_sequence(content)):
        return letters
    lines = stripped.splitlines()
    for line in itertools.islice(filter(_HAS_LETTER.search, reversed(lines)), MAX_LINES_READ):
        if letters := letter_sequence(line):
            return letters
    return None if len(lines) <= 1 else letter_sequence(stripped)  # one line: already read


def _labels_of(raw: Any) -> tuple[str, ...]:
    """Declared labels: the letters of a string, or the items of a list that are letters."""
    if isinstance(raw, str):
        return tuple(_ANY.findall(raw.upper()))
    if isinstance(raw, list):
        return tuple(label for label in (str(item).strip().upper() for item in raw) if label in LETTERS)
    return ()


def _labels_after_key(text: str) -> str | None:
    """The text inside the brackets of the first ``hit_labels: [...]``
    (their ``re.search(r"hit_labels\\s*[:=]\\s*\\[(.*?)\\]", text, re.I | re.S)``)."""
    lowered = lower_aligned(text)
    position = 0
    while (key := lowered.find("hit_labels", position)) >= 0:
        at = key + len("hit_labels")
        while at < len(text) and text[at].isspace():
            at += 1
        if at < len(text) and text[at] in ":=":
            at += 1
            while at < len(text) and text[at].isspace():
                at += 1
            if at < len(text) and text[at] == "[":
                close = text.find("]", at + 1)
                return None if close < 0 else text[at + 1 : close]
        position = key + 1
    return None


def read_step(text: str) -> PathStep | None:
    """One step reply (see the module docstring)."""
    if not text:
        return None
    payload = text.strip()
    tagged = last_enclosed(payload, "STEP_JSON", "{")
    ok, value = loads(tagged if tagged is not None else payload)
    if ok and isinstance(value, dict):
        move = str(value.get("move", "")).strip().lower()
        return PathStep(move, _labels_of(value.get("hit_labels"))) if move in DIRECTIONS else None  # type: ignore[arg-type]
    move = first_direction(text)
    if move is None:
        return None
    listed = _labels_after_key(text)
    return PathStep(move, _labels_of(listed) if listed is not None else ())  # type: ignore[arg-type]


def _collapsed(labels: Sequence[str]) -> list[str]:
    """Repeats in a row counted once: ``A A B`` -> ``A B``."""
    return [label for index, label in enumerate(labels) if index == 0 or labels[index - 1] != label]


def _distance(grid: tuple[str, ...], here: Cell, goal: Cell) -> int | None:
    """Moves from ``here`` to ``goal`` over road cells (BFS), None when unreachable."""
    seen = {here: 0}
    queue = deque([here])
    while queue:
        cell = queue.popleft()
        if cell == goal:
            return seen[cell]
        for dr, dc in DELTAS.values():
            r, c = cell[0] + dr, cell[1] + dc
            if 0 <= r < len(grid) and 0 <= c < len(grid[0]) and grid[r][c] != WALL and (r, c) not in seen:
                seen[(r, c)] = seen[cell] + 1
                queue.append((r, c))
    return None


class PathEpisode(AuthorsEpisode):
    """Their path adapter: the marker walks, labels are checked as declared, the answer is what it stepped on."""

    def __init__(self, spec: AuthorsFamily, family: Any, state: PathState, optimal_length: int, budget: str) -> None:
        super().__init__(spec, family, optimal_length, budget)
        solution = family.solve(state)
        self.truth = list(solution.answer) if solution is not None else []
        """The on-path letters in order (their ``on_path_labels``)."""
        self.letter_at = {cell: letter for letter, cell in state.labels}
        self.declared: list[str] = []
        self.stepped: list[str] = []
        self.pending: tuple[str, ...] = ()

    def rounds(self, optimal_length: int) -> int:
        return optimal_length - 1 if optimal_length >= 2 else ROUNDS_WITHOUT_ROUTE

    def read_step(self, text: str) -> Any:
        step = super().read_step(text)
        self.pending = step.hit_labels
        return step

    def env_step(self, step: Any) -> Any:
        return PathStep(step.move)  # the environment moves the marker; the labels are checked here

    def after_step(self, state: Any, steps: int) -> str | None:
        here = state.start if state.position is None else state.position
        declared = self.declared + list(self.pending)
        wanted = _collapsed(declared)
        if wanted != self.truth[: len(wanted)] or len(wanted) > len(self.truth):
            return "wrong_label"
        self.declared = declared
        letter = self.letter_at.get(here)
        if letter is not None and letter not in self.stepped:
            self.stepped.append(letter)
        rest = _distance(state.grid, here, state.end)
        if rest is None or steps + rest > self.optimal_length:
            return "off_optimum"
        return None

    def solved(self, state: Any) -> bool:
        return True  # their path runner scores the labels stepped on, wherever the marker stands

    def output(self, end: str, steps: Sequence[Any], state: Any) -> str:
        finished = end in ("stopped", "budget")
        return f"<answer>{','.join(self.stepped)}</answer>" if finished else self.spec.empty_answer


class PathReader(AuthorsFamily):
    family = "path"
    empty_answer = "<answer></answer>"

    def read_answer(self, text: str) -> Answer | str:
        letters = read_labels(text)
        return "no_answer" if letters is None else Answer(tuple(letters), len(letters))

    def read_step(self, text: str) -> Any:
        return read_step(text)

    def episode(self, family: Any, state: Any, optimal_length: int, budget: str) -> PathEpisode:
        return PathEpisode(self, family, state, optimal_length, budget)


AUTHORS_READER = PathReader()

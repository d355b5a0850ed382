"""Pieces every family's ``authors`` reader shares: how the authors' code finds an answer in text.

Each family declares its reader in ``puzzles/<family>/authors_reader.py``
(``FamilySpec.authors_reader``); this module holds what they share.

The authors' evaluation (``zyb1029/VGAU-Diag`` at ``b250b81``, an lmms-eval fork, read
per family in ``lmms_eval/tasks/<family>/utils.py`` and ``step_adapter.py`` and in
``lmms_eval/models/model_utils/step_protocol.py``) finds answers with regular
expressions and strict ``json.loads``. The scanners here give the same result as those
expressions but in one linear pass, so hostile text costs no more than with our own
reader (a lazy ``.*?`` regex re-scans the text once per opening tag). Each scanner's
docstring names the expression it stands for.

Their behaviour kept here, family-independent:

- ``result_text``: an output that is one JSON object with a ``"text"`` field is read as
  that field (their runners wrap step-by-step answers that way).
- tags are matched case-insensitively; the last match wins, where "match" means the
  whole expression matched (a later tag whose content does not fit is skipped).
- JSON is strict: no single quotes, trailing commas, comments or fences.
- the steps-left answer is the last ``<answer>N</answer>`` whose content is digits.

Where their code raises on a text (a recursion or integer-size error their ``except``
does not catch), we score no answer; payloads over ``MAX_PAYLOAD_CHARS`` are not read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from vgau_data.answers import MAX_PAYLOAD_CHARS, lower_aligned
from vgau_data.puzzles.base import AnswerError, Replay
from vgau_data.puzzles.reading import EpisodeRules, Reading, unread

if TYPE_CHECKING:
    from vgau_data.puzzles.base import FamilySpec

MAX_REPEATS = 16
"""A parking step's ``"steps": n`` is expanded to at most this many moves: no vehicle slides
more than 6 cells on an 8x8 board, so a longer repeat is illegal at the same move."""
_CLOSER = {"[": "]", "{": "}"}
_JSON_SPACE = " \t\n\r"
_DIRECTION_WORD = re.compile(r"\b(up|down|left|right)\b")
_STEPS_LEFT = re.compile(r"<answer>\s*(\d+)\s*</answer>", re.IGNORECASE)
DIRECTIONS = ("up", "down", "left", "right")
T = TypeVar("T")


# --------------------------------------------------------------------------- scanning text


def result_text(text: str) -> str:
    """``text``, or its ``"text"`` field when the whole of it is one JSON object that has one.

    Example:
        >>> result_text('{"text": "<answer>A</answer>", "images": []}')
        '<answer>A</answer>'
        >>> result_text("<answer>A</answer>")
        '<answer>A</answer>'
    """
    if not text.lstrip(_JSON_SPACE).startswith("{") or ('"text"' not in text and "\\" not in text):
        return text  # only an object can have the field, spelt out or with an escape: nothing to decode
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return text
    if isinstance(value, dict) and "text" in value:
        return str(value["text"])
    return text


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def last_enclosed(text: str, tag: str, openers: str = "[") -> str | None:
    """The bracketed payload of the last ``<tag>\\s*(\\[.*?\\])\\s*</tag>`` match (case-insensitive, dot-all).

    With ``openers="[{"`` the payload may also be ``{...}`` (``(\\[.*?\\]|\\{.*?\\})``). A
    match opens at a tag whose next non-space character is an opener and ends at the first
    closing tag whose last non-space character before it is the matching closer.

    Example:
        >>> last_enclosed('<ANSWER_JSON>["up"]</ANSWER_JSON> <answer_json> none </answer_json>', "ANSWER_JSON")
        '["up"]'
        >>> last_enclosed("<answer_json>[1, 2] </answer_json", "answer_json") is None
        True
    """
    lowered = lower_aligned(text)
    opening, closing = f"<{tag.lower()}>", f"</{tag.lower()}>"
    first = lowered.find(opening)
    if first < 0:
        return None
    ends: dict[str, list[tuple[int, int]]] = {_CLOSER[o]: [] for o in openers}
    closers = "".join(re.escape(c) for c in ends)
    for match in re.compile(f"([{closers}])\\s*{re.escape(closing)}").finditer(lowered, first):
        ends[match.group(1)].append((match.start(), match.end() - len(closing)))
    cursor = dict.fromkeys(ends, 0)
    live = {closer for closer, found in ends.items() if found}
    found = None
    position = first
    while live and (start := lowered.find(opening, position)) >= 0:
        payload = _skip_space(text, start + len(opening))
        opener = text[payload] if payload < len(text) else ""
        if opener and opener in openers and (closer := _CLOSER[opener]) in live:
            candidates, index = ends[closer], cursor[closer]
            while index < len(candidates) and candidates[index][0] <= payload:
                index += 1
            cursor[closer] = index
            if index < len(candidates):
                last, close = candidates[index]
                found = text[payload : last + 1]
                position = close + len(closing)
                continue
            live.discard(closer)  # no later tag can close with it either
        position = start + 1
    return found


def last_between(text: str, tag: str) -> str | None:
    """The content of the last ``<tag>(.*?)</tag>`` match (case-insensitive, dot-all): each
    opening tag pairs with the first closing tag after it, and scanning resumes after that.

    Example:
        >>> last_between("<answer>A</answer> <answer>B <answer>C</answer>", "answer")
        'B <answer>C'
    """
    lowered = lower_aligned(text)
    opening, closing = f"<{tag.lower()}>", f"</{tag.lower()}>"
    found = None
    position = 0
    while (start := lowered.find(opening, position)) >= 0:
        close = lowered.find(closing, start + len(opening))
        if close < 0:
            break  # no later opening tag has a closing tag after it either
        found = text[start + len(opening) : close]
        position = close + len(closing)
    return found


def step_or_listed(text: str, read: Callable[[str], T | None]) -> tuple[T | None, tuple[bool, Any] | None]:
    """Their onet and klotski step parsers' first two tries: ``read`` of the last
    ``<STEP_JSON>`` content, else of the whole reply; failing that, ``loads`` of the content
    of the last ``<answer_json>`` tags (None where there are none) for the caller's fallback."""
    payload = text.strip()
    tagged = last_between(payload, "STEP_JSON")
    step = read(tagged.strip() if tagged is not None else payload)
    if step is not None:
        return step, None
    listed = last_between(text, "answer_json")
    return None, None if listed is None else loads(listed.strip())


def open_at_end(text: str, tag: str) -> str | None:
    """The payload of ``re.search(r"<tag>\\s*(\\[[\\s\\S]*\\])\\s*$", text, re.I)``: an unclosed
    tag whose list runs to the end of the text (the leftmost such tag).

    Example:
        >>> open_at_end("so <answer_json>[[[0,0],[0,1]]]\\n", "answer_json")
        '[[[0,0],[0,1]]]'
    """
    last = len(text) - 1
    while last >= 0 and text[last].isspace():
        last -= 1
    if last < 0 or text[last] != "]":
        return None
    lowered = lower_aligned(text)
    opening = f"<{tag.lower()}>"
    position = 0
    while 0 <= (start := lowered.find(opening, position)) < last:
        payload = _skip_space(text, start + len(opening))
        if payload < last and text[payload] == "[":
            return text[payload : last + 1]
        position = start + 1
    return None


def whole_value(text: str, openers: str = "[") -> str | None:
    """The whole text, stripped, when it starts with an opener and ends with its closer.

    Example:
        >>> whole_value(' ["up"] ')
        '["up"]'
    """
    stripped = text.strip()
    if stripped and stripped[0] in openers and stripped.endswith(_CLOSER[stripped[0]]):
        return stripped
    return None


def loads(payload: str) -> tuple[bool, Any]:
    """``(True, value)`` when ``payload`` is strict JSON, else ``(False, None)``."""
    if len(payload) > MAX_PAYLOAD_CHARS:
        return False, None
    try:
        return True, json.loads(payload)
    except (ValueError, RecursionError):
        return False, None


def to_int(value: Any) -> int | None:
    """``int(value)`` as their coordinate readers call it (strings, floats, booleans), else None."""
    try:
        return int(value)
    except (TypeError, ValueError, OverflowError):
        return None


def first_direction(text: str) -> str | None:
    """The first whole word up/down/left/right of a reply, in any case (maze, sokoban, path).

    Example:
        >>> first_direction("I cannot go Left (a wall), so: Next, move one step up.")
        'left'
    """
    match = _DIRECTION_WORD.search(text.strip().lower())
    return match.group(1) if match else None


def read_steps_left(text: str) -> int | None:
    """The count in the last ``<answer>N</answer>`` whose content is digits (None: no such tag).

    Example:
        >>> read_steps_left("<answer>2</answer> then <answer>none</answer>")
        2
    """
    if not isinstance(text, str) or not text:
        return None
    matches = _STEPS_LEFT.findall(text)
    return to_int(matches[-1]) if matches else None


# --------------------------------------------------------------------------- judging answers


@dataclass(frozen=True, slots=True)
class Answer:
    """A final answer as the authors' code reads it, in our steps.

    ``steps`` are the items up to the first one their simulation rejects before any move
    (an unknown direction, a malformed step), which is ``bad``: ``(index, code)``;
    ``length`` is the number of moves they count.
    """

    steps: tuple[Any, ...]
    length: int
    bad: tuple[int, str] | None = None


def judge_answer(family: FamilySpec, state: Any, answer: Answer | str) -> Reading:
    """Replay an ``Answer`` (a ``str`` is the code of a text without one) with the family's rules."""
    if isinstance(answer, str):
        return unread(answer)
    replay = family.replay(state, answer.steps)
    if answer.bad is None:
        return Reading(True, replay)
    if replay.error not in (None, "not_solved"):  # an illegal move before the bad item
        return Reading(True, Replay(False, answer.length, replay.error, replay.first_invalid_step))
    index, code = answer.bad
    return Reading(True, Replay(False, answer.length, code, index))


def direction_steps(items: Sequence[Any]) -> Answer:
    """A list of moves as maze and sokoban read it: ``str(item).strip().lower()`` must be a direction."""
    steps = []
    for index, item in enumerate(items):
        word = str(item).strip().lower()
        if word not in DIRECTIONS:
            return Answer(tuple(steps), len(items), (index, "unknown_action"))
        steps.append(word)
    return Answer(tuple(steps), len(items))


def read_direction_list(text: str) -> Answer | str:
    """The move list of a maze or sokoban answer: the last ``<ANSWER_JSON>[...]</ANSWER_JSON>``,
    else the whole text when it is one ``[...]``; strict JSON.

    Example:
        >>> read_direction_list("<ANSWER_JSON>['up']</ANSWER_JSON>")
        'bad_format'
        >>> read_direction_list(' ["Up", "LEFT"] ').steps
        ('up', 'left')
    """
    text = result_text(text)
    payload = last_enclosed(text, "ANSWER_JSON") or whole_value(text)
    if payload is None:
        return "no_answer"
    ok, value = loads(payload)
    if not ok or not isinstance(value, list):
        return "bad_format"
    return direction_steps(value)


def read_move(text: str) -> str | None:
    """A maze or sokoban step reply: its first direction word, else a JSON list (its first item) or string."""
    if not text:
        return None
    word = first_direction(text)
    if word is not None:
        return word
    ok, value = loads(text.strip().lower())
    if ok and isinstance(value, list) and value:
        word = str(value[0]).strip().lower()
        return word if word in DIRECTIONS else None
    return value if ok and isinstance(value, str) and value in DIRECTIONS else None


# --------------------------------------------------------------------------- episodes


class AuthorsFamily:
    """One family as the authors' code reads it: each family's ``authors_reader`` module
    declares one as ``AUTHORS_READER`` (``FamilySpec.authors_reader``).

    ``read_answer(text)`` -> ``Answer`` or the code of a text without one; ``read_step(text)``
    -> one interactive step or None; ``answer_text(steps)`` / ``empty_answer``: what their
    step runner answers after a finished / failed episode. ``bounded``: after each step
    their adapter ends the episode unless the goal can still be reached within the optimum.
    """

    family: ClassVar[str]
    empty_answer: ClassVar[str]
    bounded: ClassVar[bool] = True

    def read_answer(self, text: str) -> Answer | str:
        raise NotImplementedError

    def read_step(self, text: str) -> Any:
        raise NotImplementedError

    def answer_text(self, steps: Sequence[Any]) -> str:
        raise NotImplementedError

    def episode(self, family: FamilySpec, state: Any, optimal_length: int, budget: str) -> AuthorsEpisode:
        return AuthorsEpisode(self, family, optimal_length, budget)


class DirectionListReader(AuthorsFamily):
    """Maze and sokoban: a tagged JSON list of moves; a step reply's first direction word."""

    empty_answer = "<ANSWER_JSON>[]</ANSWER_JSON>"

    def __init__(self, family: str) -> None:
        self.family = family  # type: ignore[misc]

    def read_answer(self, text: str) -> Answer | str:
        return read_direction_list(text)

    def read_step(self, text: str) -> Any:
        return read_move(text)

    def answer_text(self, steps: Sequence[Any]) -> str:
        return f"<ANSWER_JSON>{json.dumps(list(steps))}</ANSWER_JSON>"


class AuthorsEpisode(EpisodeRules):
    """The authors' step runners (``step_protocol.py``) with a family's adapter.

    Both budgets take at most ``max_steps`` steps, the optimum (``resolve_max_steps``).
    ``optimal`` (their ``run_step_protocol_old``): every round is played; an unreadable or
    illegal step, or one after which the goal is out of reach within the optimum
    (``off_optimum``), ends the episode as a failure; after the last round it is solved
    if the goal is reached. ``fixed`` (their ``run_step_protocol``, section 4.4): after
    each step the steps-left question; a count that is not ``<answer>N</answer>`` ends it
    (``unparseable_count``), 0 ends it solved only at exactly ``max_steps`` steps with the
    goal reached (else ``stopped_early``), and any other count at ``max_steps`` steps ends
    it (``stopped_late``). A failed episode answers ``empty_answer``.
    """

    ends_at_goal = False

    def __init__(self, spec: AuthorsFamily, family: FamilySpec, optimal_length: int, budget: str) -> None:
        self.spec = spec
        self.family = family
        self.optimal_length = optimal_length
        self.budget = budget
        self.max_steps = self.rounds(optimal_length)

    def rounds(self, optimal_length: int) -> int:
        return optimal_length

    def read_step(self, text: str) -> Any:
        step = self.spec.read_step(text) if isinstance(text, str) else None
        if step is None:
            raise AnswerError("no_answer", "no step the authors' adapter can read")
        return step

    def after_step(self, state: Any, steps: int) -> str | None:
        if self.spec.bounded and not self.within_optimum(state, steps):
            return "off_optimum"
        return None

    def within_optimum(self, state: Any, steps: int) -> bool:
        """The goal is still reachable in ``optimal_length - steps`` more steps."""
        rest = self.family.solve(state)
        return rest is not None and steps + rest.optimal_length <= self.optimal_length

    def solved(self, state: Any) -> bool:
        return bool(self.family.is_goal(state))

    def read_remaining(self, text: str) -> int | None:
        return read_steps_left(text)

    def after_count(self, remaining: int, steps: int, state: Any) -> str | None:
        if remaining == 0:
            return "stopped" if steps == self.max_steps and self.solved(state) else "stopped_early"
        return "stopped_late" if steps >= self.max_steps else None

    def output(self, end: str, steps: Sequence[Any], state: Any) -> str:
        finished = end == "stopped" or (end == "budget" and self.solved(state))
        return self.spec.answer_text(steps) if finished else self.spec.empty_answer

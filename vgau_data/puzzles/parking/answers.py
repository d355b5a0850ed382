"""The answer format ``<ANSWER_JSON>[{"car":"A","direction":"up"},...]</ANSWER_JSON>``, and one step's ``<STEP_JSON>``.

Car ids are case-insensitive and directions may be ``u d l r``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from vgau_data.answers import last_step_value, last_tagged_list, step_text
from vgau_data.puzzles.base import AnswerError, canonical_json, parse_direction
from vgau_data.puzzles.parking.state import Step

ANSWER_TAG: Final = "ANSWER_JSON"
_CARS: Final = {form: letter for letter in map(chr, range(ord("A"), ord("Z") + 1)) for form in (letter, letter.lower())}
"""A car id as answers write it -> the id."""


def parse_answer(text: str) -> tuple[Step, ...]:
    """The steps of the last ``<ANSWER_JSON>[...]</ANSWER_JSON>`` in ``text``.

    Each step is an object ``{"car": id, "direction": d}`` (keys case-insensitive, extra
    keys ignored); ids are one letter, any case; directions take the ``u d l r`` forms.

    Raises:
        AnswerError: ``no_answer`` (no tagged answer), ``bad_format`` (not a list of such
            objects, a car that is not one letter, or more than 1000 steps),
            ``unknown_action`` (not a direction).

    Example:
        >>> parse_answer("<answer_json>[{'car': 'a', 'direction': 'U'},]</answer_json>")
        (('A', 'up'),)
    """
    return tuple(_step_of(item) for item in last_tagged_list(text, ANSWER_TAG))


def _step_of(item: object) -> Step:
    """One ``{"car": id, "direction": d}`` object as a step (keys case-insensitive)."""
    if type(item) is dict and len(item) == 2:  # fast path: the two keys as the format writes them
        car, direction = item.get("car"), item.get("direction")
        car = _CARS.get(car) if type(car) is str else None
        if car is not None and type(direction) is str:
            return (car, parse_direction(direction))
    if not isinstance(item, dict):
        raise AnswerError("bad_format", 'every step must be an object {"car": ..., "direction": ...}')
    fields = {str(key).strip().lower(): field for key, field in item.items()}
    car, direction = fields.get("car"), fields.get("direction")
    if not isinstance(car, str) or not isinstance(direction, str):
        raise AnswerError("bad_format", 'every step needs a string "car" and a string "direction"')
    car = car.strip().upper()
    if len(car) != 1 or not ("A" <= car <= "Z"):
        raise AnswerError("bad_format", f"a car is one letter A-Z, got {car!r:.20}")
    return (car, parse_direction(direction))


def parse_step(text: str) -> Step:
    """The step in the last ``<STEP_JSON>{"car": ..., "direction": ...}</STEP_JSON>`` of a reply.

    Example:
        >>> parse_step('Free the way. <STEP_JSON>{"car":"b","direction":"Up"}</STEP_JSON>')
        ('B', 'up')
    """
    return _step_of(last_step_value(text))


def format_step(step: Step) -> str:
    """One step in the per-turn format.

    Example:
        >>> format_step(("R", "right"))
        '<STEP_JSON>{"car":"R","direction":"right"}</STEP_JSON>'
    """
    car, direction = step
    return step_text({"car": car, "direction": direction})


def answer_payload(answer: Sequence[Step]) -> str:
    """The JSON list stored in the dataset's ``solution`` column.

    Example:
        >>> answer_payload([("A", "up"), ("R", "right")])
        '[{"car":"A","direction":"up"},{"car":"R","direction":"right"}]'
    """
    return canonical_json([{"car": car, "direction": direction} for car, direction in answer])


def format_answer(answer: Sequence[Step]) -> str:
    """The answer in the family's answer format (docs/contract/answers.md), tags included.

    Example:
        >>> format_answer([("B", "down")])
        '<ANSWER_JSON>[{"car":"B","direction":"down"}]</ANSWER_JSON>'
    """
    return f"<{ANSWER_TAG}>{answer_payload(answer)}</{ANSWER_TAG}>"

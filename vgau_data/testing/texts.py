"""What the readers of strangers' text must survive: hostile texts, junk cut from real ones, non-text, the caps.

``parse_answer`` and ``parse_step`` read text a model wrote. Whatever it is they return
steps or raise ``AnswerError`` with one of its three codes (``ANSWER_CODES``; non-text is
``no_answer``), never anything else, and read each text in time linear in its length:
``hostile.hostile_texts`` at ``HOSTILE_CHARS`` characters take milliseconds to a linear
parser and minutes to a quadratic one, so ``PARSE_SECONDS`` a text separates them on any
machine. An answer text over ``MAX_ANSWER_CHARS`` characters, or of more than
``MAX_ANSWER_STEPS`` steps, is ``bad_format``. ``from_json`` reads a ``state`` cell of a
dataset someone else may have made: on junk it raises ``StateError`` and nothing else.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from vgau_data.answers import MAX_ANSWER_CHARS, MAX_ANSWER_STEPS
from vgau_data.errors import StateError
from vgau_data.puzzles.base import ILLEGAL_CODES, FamilySpec, Illegal
from vgau_data.testing.hostile import hostile_texts
from vgau_data.types import ANSWER_CODES, AnswerError

if TYPE_CHECKING:
    from vgau_data.testing.checks import Instance

HOSTILE_CHARS = 50_000
"""Characters per hostile text."""
PARSE_SECONDS = 1.0
"""Most seconds one parser may take on one hostile text (a linear one takes a few milliseconds)."""
JUNK_CHARACTERS = '[]{}",\'\\\x00\ud800<'
"""What junk edits put into a real text: the characters its syntax is made of, and worse."""
JUNK_POSITIONS = 120
"""Most positions of one text that junk edits touch (evenly spread)."""
DEEP = ("[" * 100_000, "{" * 100_000, '{"a":' * 50_000)
"""Nesting far deeper than any reader's stack."""
NOT_TEXT: tuple[object, ...] = (None, 7, b"<answer>A</answer>", ["up"], {"solution": []})


def junk_texts(text: str, most: int = JUNK_POSITIONS) -> Iterator[str]:
    """``text`` cut, with a character dropped, and with a character changed to junk, at up to ``most`` positions.

    Example:
        >>> sorted(set(junk_texts("ab")))[:4]
        ['', '\\x00b', '"b', "'b"]
    """
    for i in range(0, len(text), max(1, len(text) // most)):
        yield text[:i]
        yield text[:i] + text[i + 1 :]
        for junk in JUNK_CHARACTERS:
            if junk != text[i]:
                yield text[:i] + junk + text[i + 1 :]


def check_texts(spec: FamilySpec, instances: Sequence[Instance], expect: Callable[[object, str], None]) -> None:
    """The parsers on hostile texts, junk, non-text and text over the caps."""
    parsers = {"parse_answer": spec.parse_answer, "parse_step": spec.parse_step}
    for name, text in hostile_texts(spec, HOSTILE_CHARS):
        for parser_name, parse in parsers.items():
            began = time.perf_counter()
            _read(parse, text, f"{spec.name}: {parser_name} on the hostile text {name}", expect)
            seconds = time.perf_counter() - began
            expect(seconds < PARSE_SECONDS, f"{spec.name}: {parser_name} took {seconds:.1f} s on the hostile text {name} "
                   f"of {len(text)} characters (not linear in its length?)")  # fmt: skip
    instance = instances[0]
    answer_text = spec.format_answer(instance.answer)
    step_text = spec.format_step(instance.steps[0]) if instance.steps else ""
    for source, text in (("an answer", answer_text), ("a step", step_text)):
        for junk in junk_texts(text):
            where = f"{spec.name}: {source} text spoiled as {junk!r:.80}"
            answer = _read(spec.parse_answer, junk, f"{where}, parse_answer", expect)
            if answer is not None:  # what a parser reads, the rules judge without raising
                verdict = _judged(f"{where}, replay of {answer!r:.60}", expect, spec.replay, instance.state, answer)
                expect(verdict is None or verdict.error in {None, *ILLEGAL_CODES}, f"{where}: replay gives {verdict}")
            step = _read(spec.parse_step, junk, f"{where}, parse_step", expect)
            if step is not None:
                after = _judged(f"{where}, apply_step of {step!r:.60}", expect, spec.apply_step, instance.state, step)
                expect(not isinstance(after, Illegal) or after.code in ILLEGAL_CODES, f"{where}: apply_step gives {after}")
    for value in NOT_TEXT:
        for parser_name, parse in parsers.items():
            code = _code(parse, value)
            expect(code == "no_answer", f"{spec.name}: {parser_name} on the non-text {value!r} gives {code}, not no_answer")
    _check_caps(spec, instances, answer_text, step_text, expect)
    _check_state_texts(spec, spec.to_json(instance.state), expect)


def _check_state_texts(spec: FamilySpec, text: str, expect: Callable[[object, str], None]) -> None:
    """``from_json`` on junk cut from a real state, non-text and deep nesting: a state or ``StateError``."""
    for junk in (*junk_texts(text), *NOT_TEXT, *DEEP):
        try:
            spec.from_json(junk)  # type: ignore[arg-type]
        except StateError:
            pass
        except Exception as error:  # noqa: BLE001 - anything but StateError is the finding
            expect(False, f"{spec.name}: from_json on {junk!r:.60} raised {type(error).__name__}, not StateError")


def _read(parse: Callable[[Any], Any], text: object, what: str, expect: Callable[[object, str], None]) -> Any:
    """``parse(text)``: what it reads, or None when it raised ``AnswerError`` with one of ``ANSWER_CODES`` (or failed)."""
    try:
        return parse(text)
    except AnswerError as error:
        expect(error.code in ANSWER_CODES, f"{what}: AnswerError code {error.code!r} is not one of {sorted(ANSWER_CODES)}")
    except Exception as error:  # noqa: BLE001 - anything but AnswerError is the finding
        expect(False, f"{what}: raised {type(error).__name__} ({error!s:.60}), not AnswerError")
    return None


def _judged(what: str, expect: Callable[[object, str], None], judge: Callable[..., Any], *args: Any) -> Any:
    """``judge(*args)``, or None when it raised (a failure: the rules judge any parsed answer)."""
    try:
        return judge(*args)
    except Exception as error:  # noqa: BLE001 - the rules must not raise on what the parsers read
        expect(False, f"{what} raised {type(error).__name__} ({error!s:.60})")
    return None


def _check_caps(
    spec: FamilySpec, instances: Sequence[Instance], answer_text: str, step_text: str, expect: Callable[[object, str], None]
) -> None:
    """Texts over ``MAX_ANSWER_CHARS`` and answers over ``MAX_ANSWER_STEPS`` steps are ``bad_format``."""
    answer = instances[0].answer
    padded = " " * (MAX_ANSWER_CHARS - len(answer_text)) + answer_text
    expect(_code(spec.parse_answer, padded) is None, f"{spec.name}: an answer of exactly {MAX_ANSWER_CHARS} characters "
           "(padded with spaces) is not read")  # fmt: skip
    for parser_name, parse, text in (("parse_answer", spec.parse_answer, answer_text), ("parse_step", spec.parse_step, step_text)):
        code = _code(parse, " " * (MAX_ANSWER_CHARS + 1 - len(text)) + text)
        expect(code == "bad_format", f"{spec.name}: {parser_name} on a text of {MAX_ANSWER_CHARS + 1} characters "
               f"gives {code or 'steps'}, not bad_format")  # fmt: skip
    for kind, steps in (("answer", answer), ("episode", instances[0].steps)):
        if steps:
            many = (tuple(steps) * (MAX_ANSWER_STEPS // len(steps) + 1))[: MAX_ANSWER_STEPS + 1]
            code = _code(spec.parse_answer, spec.format_answer(many))
            expect(code == "bad_format", f"{spec.name}: an {kind} of {MAX_ANSWER_STEPS + 1} steps gives {code or 'steps'}, "
                   "not bad_format")  # fmt: skip


def _code(parse: Callable[[str], Any], text: str) -> str | None:
    """The ``AnswerError`` code of ``parse(text)`` (or what else it raised), None when it reads steps."""
    try:
        parse(text)
    except AnswerError as error:
        return error.code
    except Exception as error:  # noqa: BLE001 - reported as what it is
        return type(error).__name__
    return None

"""Hostile answer texts: inputs that make careless parsers slow (backtracking, rescans).

Every family's ``parse_answer`` and ``parse_step`` must read each of these in time
linear in its length. ``check_family`` runs them at fifty kilobytes (``texts``);
``benchmarks/score.py`` times them at several sizes and prints the worst seconds per megabyte.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from vgau_data.puzzles.base import FamilySpec

HOSTILE_BODIES: Mapping[str, Callable[[int], str]] = {
    "pair_then_spaces": lambda n: "from: [1, 2]" + " " * n + "x",
    "pair_comma_spaces": lambda n: "from: [1, 2] ," + " " * n + "direction",
    "pair_runs": lambda n: "from:[1,2],direction:u," * (n // 23),
    "from_spaces": lambda n: "from:" + " " * n + "[1",
    "key_spaces": lambda n: '"solution"' + " " * n + "x",
    "keys": lambda n: "solution:[" * (n // 10),
    "open_brackets": lambda n: "[" * n,
    "open_braces": lambda n: "{'a':" * (n // 5),
    "commas": lambda n: "[" + " ," * (n // 2),
    "backslashes": lambda n: '["' + "\\" * n,
    "unicode_escapes": lambda n: '["' + "\\u" * (n // 2),
    "digits": lambda n: "[" + "1" * n,
    "words": lambda n: "[" + "a" * n,
    "numbers": lambda n: "[" + "1e" * (n // 2),
    "exponent": lambda n: "[1e" + "9" * n + "]",
    "nul": lambda n: "[" + "\x00" * n,
    "two_char_lowering": lambda n: "\u0130" * n + '"solution": [',
    "opening_tags": lambda n: "<answer_json><answer>" * (n // 21),
    "closing_tags": lambda n: "</answer_json></answer>" * (n // 23),
    "fences": lambda n: "```" * (n // 3),
    "surrogates": lambda n: "\ud800" * n,
    "step_openings": lambda n: "<STEP_JSON>{" * (n // 12),
    "step_pairs": lambda n: '<STEP_JSON>{"move":"up"}</STEP_JSON>' * (n // 36),
    "move_words": lambda n: "Next, move one step " * (n // 20),
}
"""Name -> a function making that body at about ``n`` characters."""


def hostile_texts(spec: FamilySpec, size: int) -> Iterator[tuple[str, str]]:
    """``(name, text)``: every hostile body of about ``size`` characters, bare and inside
    ``spec``'s answer wrapper (between its tags, or after klotski's ``"solution":``)."""
    empty = spec.format_answer(())
    cut = empty.index("[]") + 1 if "[]" in empty else empty.index("></") + 1
    for name, make in HOSTILE_BODIES.items():
        body = make(size)
        yield name, body
        yield f"{name}_wrapped", empty[:cut] + body + empty[cut:]

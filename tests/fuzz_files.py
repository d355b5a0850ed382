"""Hypothesis strategies that spoil real files the way a careless or hostile writer would.

``spoil_json_lines`` changes one field of one line of a JSON-lines file to another JSON
value (or deletes it, or breaks the line); ``spoil_bytes`` cuts, inserts or overwrites
bytes; ``spoil_kind`` turns the file into a FIFO, a link to ``/dev/zero``, a folder or
an empty file. ``SMOKE`` runs a handful of examples (the default suite); ``LONG``, for
``--run-slow``, runs ``VGAU_FUZZ_EXAMPLES`` (default 200).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

SMOKE = settings(max_examples=8, deadline=None, database=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])  # fmt: skip
LONG = settings(max_examples=int(os.environ.get("VGAU_FUZZ_EXAMPLES", "200")), deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])  # fmt: skip

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
    | st.sampled_from(["maze-easy-0000", "", "../x", "\u202e", "a" * 5000]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=8,
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value[:4]):
            found += _paths(item, (*prefix, index))
    return found


@st.composite
def spoil_json_lines(draw: st.DrawFn, path: Path) -> str:
    """Change one field of one line of ``path`` (in place); returns what was done."""
    lines = path.read_text(encoding="utf-8").splitlines()
    number = draw(st.integers(0, len(lines) - 1))
    try:
        obj = json.loads(lines[number])
    except ValueError:
        obj = None
    action = draw(st.sampled_from(["set", "set", "delete", "break", "deep", "nan"]))
    places = _paths(obj)
    if action in ("set", "delete") and places:
        where = draw(st.sampled_from(places))
        parent = obj
        for step in where[:-1]:
            parent = parent[step]
        if action == "delete" and isinstance(parent, dict):
            del parent[where[-1]]
        else:
            parent[where[-1]] = draw(json_values)
        lines[number] = json.dumps(obj)
    elif action == "deep":
        lines[number] = "[" * 5000 + "]" * 5000
    elif action == "nan":
        lines[number] = lines[number].replace("0", "NaN", 1)
    else:
        lines[number] = lines[number][: draw(st.integers(0, max(0, len(lines[number]) - 1)))]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return f"{action} line {number + 1} of {path.name}"


@st.composite
def spoil_bytes(draw: st.DrawFn, path: Path) -> str:
    """Cut, insert or overwrite bytes of ``path`` (in place)."""
    data = bytearray(path.read_bytes())
    action = draw(st.sampled_from(["cut", "insert", "overwrite"]))
    at = draw(st.integers(0, max(0, len(data) - 1)))
    junk = draw(st.binary(min_size=1, max_size=64))
    if action == "cut":
        data = data[:at]
    elif action == "insert":
        data[at:at] = junk
    else:
        data[at : at + len(junk)] = junk
    path.write_bytes(bytes(data))
    return f"{action} {len(junk)} bytes at {at} of {path.name}"


@st.composite
def spoil_kind(draw: st.DrawFn, path: Path) -> str:
    """Make ``path`` something that is not a plain file of its folder."""
    action = draw(st.sampled_from(["fifo", "dev-zero", "folder", "empty"]))
    path.unlink()
    if action == "fifo":
        os.mkfifo(path)
    elif action == "dev-zero":
        path.symlink_to("/dev/zero")
    elif action == "folder":
        path.mkdir()
    else:
        path.write_bytes(b"")
    return f"{path.name} made {action}"

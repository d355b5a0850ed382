"""``from_json`` refuses impossible boards: states that break what every board of the family keeps.

What a family's boards keep is learnt from its own states (generated, along their solutions,
and the palette): a list or string whose length never varies (a 3x3 board's rows, a tile
list of 9), a string's characters (``#`` and ``.``), integers that are never negative
(cells, sizes), the fields every record has (not keys that are data, as path's
letters), and values that are always a permutation of the
same ones (an 8-puzzle's tiles 0-8). Each is broken in one place of a real state's JSON
(a row one cell short or long, an unknown character, ``-1``, a key dropped, a tile twice),
and ``from_json`` must raise ``StateError`` on it: a board it accepts is scored, rendered
and keyed as if it were a puzzle.
"""

from __future__ import annotations

import copy
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from vgau_data.errors import StateError
from vgau_data.puzzles.base import FamilySpec, canonical_json

Path = tuple[Any, ...]
"""Where a value sits in a state's JSON: keys and list indices."""
MUTANTS_PER_RULE = 2
"""How many places of the sample state each learnt rule is broken at."""
STRANGERS = "?~x0Z "
"""Characters tried, in order, as one outside a string's alphabet."""


def check_impossible_states(spec: FamilySpec, states: Sequence[Any], expect: Callable[[object, str], None]) -> None:
    """Break each rule every state of ``states`` keeps, in the first state's JSON; ``from_json`` must refuse each."""
    values = [json.loads(spec.to_json(state)) for state in states]
    if not values:
        return
    rules = _learn(values)
    for what, mutant in _mutants(values[0], rules):
        text = canonical_json(mutant)
        try:
            spec.from_json(text)
        except StateError:
            continue
        except Exception as error:  # noqa: BLE001 - anything but StateError is the finding
            expect(False, f"{spec.name}: from_json on a board with {what} raised {type(error).__name__}, not StateError")
            continue
        expect(False, f"{spec.name}: from_json accepted a board with {what}, which no board of the family has "
               f"({text:.120}); an impossible board must raise StateError")  # fmt: skip


def _walk(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _walk(item, (*path, index))


def _shape(path: Path) -> Path:
    """The path with list indices replaced by ``*``: the same place in every board."""
    return tuple("*" if isinstance(part, int) else part for part in path)


class _Rules:
    """What every observed state keeps, per place (``_shape``)."""

    def __init__(self) -> None:
        self.lengths: dict[Path, set[int]] = defaultdict(set)
        self.alphabets: dict[Path, set[str]] = defaultdict(set)
        self.negative: set[Path] = set()
        self.ints: set[Path] = set()
        self.keys: dict[Path, set[str] | None] = {}
        self.contents: dict[Path, set[tuple[Any, ...]]] = defaultdict(set)
        self.kinds: dict[Path, set[type]] = defaultdict(set)


def _learn(values: Sequence[Any]) -> _Rules:
    rules = _Rules()
    for value in values:
        leaves: dict[Path, list[Any]] = defaultdict(list)
        for path, item in _walk(value):
            shape = _shape(path)
            rules.kinds[shape].add(type(item))
            if isinstance(item, list | str):
                rules.lengths[shape].add(len(item))
            if isinstance(item, str):
                rules.alphabets[shape] |= set(item)
                leaves[shape].append(item)
            if isinstance(item, int) and not isinstance(item, bool):
                rules.ints.add(shape)
                leaves[shape].append(item)
                if item < 0:
                    rules.negative.add(shape)
            if isinstance(item, dict):
                known = rules.keys.get(shape)
                rules.keys[shape] = set(item) if known is None else known & set(item)
        for shape, items in leaves.items():
            rules.contents[shape].add(tuple(sorted(items, key=repr)))
    return rules


def _mutants(value: Any, rules: _Rules) -> Iterator[tuple[str, Any]]:
    """``(what is broken, the mutated JSON value)`` for each rule, at up to ``MUTANTS_PER_RULE`` places."""
    made: Counter[tuple[str, Path]] = Counter()

    def room(rule: str, shape: Path) -> bool:
        made[rule, shape] += 1
        return made[rule, shape] <= MUTANTS_PER_RULE

    for path, item in list(_walk(value)):
        shape = _shape(path)
        if len(rules.kinds[shape]) != 1:  # a place holding several kinds (null or a name): nothing to learn
            continue
        where = "/".join(str(part) for part in path) or "the top"
        if isinstance(item, list | str) and len(rules.lengths[shape]) == 1 and item and room("length", shape):
            yield f"{where} one item short", _replaced(value, path, item[:-1])
            yield f"{where} one item long", _replaced(value, path, item + item[-1:])
        if isinstance(item, str) and item and room("alphabet", shape):
            stranger = next((c for c in STRANGERS if c not in rules.alphabets[shape]), None)
            if stranger is not None:
                yield f"{stranger!r} in {where}", _replaced(value, path, stranger + item[1:])
        if shape in rules.ints and shape not in rules.negative and isinstance(item, int) and room("sign", shape):
            yield f"{where} = -1", _replaced(value, path, -1)
        if isinstance(item, dict) and rules.keys.get(shape) and _is_record(item) and room("keys", shape):
            for key in sorted(rules.keys[shape]):
                yield f"no {key!r} in {where}", _replaced(value, path, {k: v for k, v in item.items() if k != key})
    yield from _twice(value, rules)


def _is_record(item: dict[str, Any]) -> bool:
    """An object whose keys are its fields (one key, or values of several kinds), not data (path's letters)."""
    return len(item) == 1 or len({type(v) for v in item.values()}) > 1


def _twice(value: Any, rules: _Rules) -> Iterator[tuple[str, Any]]:
    """A value of a place whose values are always a permutation of the same ones, written over another."""
    for shape, contents in rules.contents.items():
        if len(contents) != 1 or len(set(next(iter(contents)))) < 2 or len(rules.kinds[shape]) != 1:
            continue
        places = [path for path, _ in _walk(value) if _shape(path) == shape]
        first, other = places[0], next(p for p in places if _at(value, p) != _at(value, places[0]))
        yield f"{'/'.join(map(str, other))} a copy of {_at(value, first)!r}", _replaced(value, other, _at(value, first))


def _at(value: Any, path: Path) -> Any:
    for part in path:
        value = value[part]
    return value


def _replaced(value: Any, path: Path, new: Any) -> Any:
    if not path:
        return new
    copied = copy.deepcopy(value)
    _at(copied, path[:-1])[path[-1]] = new
    return copied

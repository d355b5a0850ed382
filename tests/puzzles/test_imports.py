"""The families form a layer of their own: no import cycle, nothing imported from above.

Every import counts, those under ``TYPE_CHECKING`` and inside functions too (a type-only
cycle is still a cycle a reader has to untangle).
"""

from __future__ import annotations

import ast
from pathlib import Path

import vgau_data

PACKAGE = Path(vgau_data.__file__).parent
PUZZLES = PACKAGE / "puzzles"
BELOW = ("vgau_data.puzzles", "vgau_data.types", "vgau_data.errors", "vgau_data.answers", "vgau_data.rendering")
"""What the families may import from ``vgau_data`` (``seeding`` only in ``checks``, which generates instances)."""


def _module(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """The ``vgau_data`` modules ``path`` imports (a name from a package counts as its submodule, if one)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("vgau_data")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("vgau_data"):
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                is_module = (PACKAGE.parent / candidate.replace(".", "/")).with_suffix(".py").is_file() or (
                    PACKAGE.parent / candidate.replace(".", "/") / "__init__.py"
                ).is_file()
                found.add(candidate if is_module else node.module)
    return found


GRAPH = {_module(path): _imports(path) for path in PUZZLES.rglob("*.py")}


def test_puzzles__import_nothing_from_the_layers_above() -> None:
    allowed = {("vgau_data.puzzles.checks", "vgau_data.seeding")}
    upward = {
        (module, imported)
        for module, imports in GRAPH.items()
        for imported in imports
        if not imported.startswith(BELOW) and (module, imported) not in allowed
    }
    assert upward == set()


def test_puzzles__no_import_cycle() -> None:
    cycles = []

    def visit(module: str, path: list[str]) -> None:
        for imported in GRAPH.get(module, ()):
            if imported in path:
                cycles.append(path[path.index(imported) :] + [imported])
            elif imported in GRAPH and imported not in done:
                visit(imported, [*path, imported])
        done.add(module)

    done: set[str] = set()
    for module in GRAPH:
        visit(module, [module])
    assert cycles == []


def test_families__state_modules_import_nothing_of_their_family_but_engines() -> None:
    for state in PUZZLES.glob("*/state.py"):
        family = _module(state.parent)
        siblings = {m for m in GRAPH[_module(state)] if m.startswith(f"{family}.")}
        assert siblings <= {f"{family}.search"}, state  # parking's board size comes with its search engine

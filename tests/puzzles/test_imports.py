"""The families form a layer of their own: no import cycle, nothing imported from above.

Every import counts, those under ``TYPE_CHECKING`` and inside functions too (a type-only
cycle is still a cycle a reader has to untangle).
"""

from __future__ import annotations

from tests.test_imports import GRAPH as PACKAGE_GRAPH
from tests.test_imports import PACKAGE, module_name

PUZZLES = PACKAGE / "puzzles"
BELOW = ("vgau_data.puzzles", "vgau_data.types", "vgau_data.errors", "vgau_data.answers", "vgau_data.rendering",
         "vgau_data.render_styles")
"""What the families may import from ``vgau_data`` (narrower than their layer: not ``seeding``)."""
GRAPH = {module: imports for module, imports in PACKAGE_GRAPH.items() if module.startswith("vgau_data.puzzles")}


def test_puzzles__import_nothing_from_the_layers_above() -> None:
    upward = {(module, imported) for module, imports in GRAPH.items() for imported in imports if not imported.startswith(BELOW)}
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
        family = module_name(state.parent)
        siblings = {m for m in GRAPH[module_name(state)] if m.startswith(f"{family}.")}
        assert siblings <= {f"{family}.search"}, state  # parking's board size comes with its search engine

"""The package is layered: no module imports from a layer above its own.

Every import counts: at module level, under ``TYPE_CHECKING`` and inside functions (a lazy
import keeps ``import`` cheap, it does not make an upward dependency acceptable). A layer
may import its own layer and those below it; a package's modules are in its layer.
"""

from __future__ import annotations

import ast
from pathlib import Path

import vgau_data

PACKAGE = Path(vgau_data.__file__).parent
LAYERS: tuple[tuple[str, ...], ...] = (
    ("vgau_data", "types", "errors", "seeding", "terminal", "protocols",
     "safe_io", "safe_json", "safe_tables", "schema", "signing", "image_gate"),
    ("answers", "rendering", "render_styles"),
    ("puzzles",),
    ("registry", "readers"),
    ("oracle_aids",),
    ("fidelity",),
    ("builders",),
    ("metrics",),
    ("runners",),
    ("diagnosis", "envs", "integrations", "rewards", "training"),
    ("cli", "__main__", "testing"),
)
"""Bottom to top, by the first name under ``vgau_data`` (``vgau_data`` itself: the root's ``__version__``)."""
def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path) -> set[str]:
    """The ``vgau_data`` modules ``path`` imports (a name from a package counts as its submodule, if one)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.split(".")[0] == "vgau_data"}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "vgau_data":
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                as_path = PACKAGE.parent / candidate.replace(".", "/")
                is_module = as_path.with_suffix(".py").is_file() or (as_path / "__init__.py").is_file()
                found.add(candidate if is_module else node.module)
    return found


GRAPH = {module_name(path): imports_of(path) for path in PACKAGE.rglob("*.py")}


def layer(module: str) -> int:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "vgau_data"
    return next(i for i, names in enumerate(LAYERS) if top in names)


def test_layers__name_every_module_of_the_package() -> None:
    tops = {module.split(".")[1] if "." in module else "vgau_data" for module in GRAPH}
    assert tops == {name for names in LAYERS for name in names}


def test_layers__no_module_imports_from_a_layer_above_its_own() -> None:
    upward = {
        (module, ".".join(imported.split(".")[:2]))
        for module, imports in GRAPH.items()
        for imported in imports
        if layer(imported) > layer(module)
    }
    assert upward == set()


def test_layers__the_check_sees_function_local_and_type_checking_imports(tmp_path: Path) -> None:
    """``known_protocols`` once imported the runners inside a function; the graph would have seen it."""
    path = tmp_path / "lazy.py"
    path.write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from vgau_data.builders import build_dataset\n"
        "def known():\n    from vgau_data.runners.protocols import budget_variants\n"
    )
    assert imports_of(path) == {"vgau_data.builders", "vgau_data.runners.protocols"}

"""The other pages: the backend and command tables are the registries, every command shown parses,
every page is in the nav, and every relative link goes to a page that exists."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from tests.docs.pages import DOCS, ROOT, code_names, links, nav_pages, page, pages, table, vgau_commands

EXTENSION_PAGES = ("adding-a-protocol.md", "adding-a-backend.md")
"""Pages whose commands use what the page adds; tests/docs/test_extending.py parses those after adding it."""


def test_running_page__backend_tables_are_the_registry() -> None:
    from vgau_data.runners.backends import BACKENDS, backend_class, backend_options, default_batch_size

    text = page("running.md")
    assert [code_names(row[0])[0] for row in table(text, "backend")] == list(BACKENDS)
    options = table(text[text.index("**Options.**") :], "backend")
    assert [code_names(row[0])[0] for row in options] == list(BACKENDS)
    for cell, batch, names in options:
        cls = backend_class(code_names(cell)[0])
        assert int(batch) == default_batch_size(cls), cell
        assert code_names(names) == sorted(backend_options(cls) or {}), cell


def test_unified_page__image_backends_are_registered() -> None:
    from vgau_data.runners.backends import BACKENDS

    listed = [name for row in table(page("unified.md"), "backend") for name in code_names(row[0])]
    assert set(listed) <= set(BACKENDS)


def test_cli_page__lists_every_command_in_help_order() -> None:
    from vgau_data.cli import SUBCOMMANDS

    assert [code_names(row[0])[0] for row in table(page("cli.md"), "command")] == list(SUBCOMMANDS)


@pytest.mark.parametrize("name", sorted(set(pages()) - set(EXTENSION_PAGES)))
def test_page__every_vgau_data_command_parses(name: str) -> None:
    from vgau_data.cli import build_parser

    parser = build_parser()
    for command in vgau_commands(page(name)):
        try:
            parser.parse_args(shlex.split(command)[1:])
        except SystemExit:
            pytest.fail(f"{name}: `{command}` does not parse")


def test_site__every_page_is_in_the_nav_and_every_nav_entry_exists() -> None:
    listed = nav_pages()
    assert len(listed) == len(set(listed))
    assert sorted(listed) == sorted(pages()), "add a new page to the nav of mkdocs.yml (or remove a stale entry)"


@pytest.mark.parametrize("name", sorted(pages()))
def test_page__relative_links_reach_existing_pages(name: str) -> None:
    for target in links(page(name)):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        path = target.split("#", 1)[0]
        assert (DOCS / name).parent.joinpath(path).resolve().is_file(), f"{name}: broken link {target}"


def test_code__cites_the_docs_not_spec_sections() -> None:
    """The contract lives in docs/contract/; no docstring or comment points at the old SPEC.md."""
    stale = []
    for folder in ("vgau_data", "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path == Path(__file__):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if re.search(r"(?<![.\w])SPEC(?:'s| ?§| [a-z])|SPEC\.md", line):
                    stale.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not stale, "cite the docs page instead:\n" + "\n".join(stale)


def test_scoring_page__submission_limits_are_the_defaults_and_flags() -> None:
    from dataclasses import fields

    from vgau_data.metrics.submission import DEFAULT_LIMITS

    rows = table(page("scoring.md"), "limit")
    documented = {code_names(flag)[0]: int(default.split()[0].replace(",", "")) for _, default, flag in rows}
    actual = {
        "--" + field.name.replace("_", "-"): getattr(DEFAULT_LIMITS, field.name) for field in fields(DEFAULT_LIMITS)
    }
    assert documented == actual


def test_render_styles_page__tables_are_the_style_registry() -> None:
    from vgau_data.render_styles import (
        OOD_STYLE,
        PALETTES,
        TRAINING_CELL_SCALES,
        TRAINING_LINE_SCALES,
        TRAINING_PALETTES,
    )

    text = page("render-styles.md")
    settings = {row[0].strip("`"): row for row in table(text, "setting")}
    assert code_names(settings["palette"][2]) == list(TRAINING_PALETTES)
    assert code_names(settings["palette"][3]) == [OOD_STYLE.palette]
    for name, values in (("line_scale", TRAINING_LINE_SCALES), ("cell_scale", TRAINING_CELL_SCALES)):
        assert [float(v) for v in settings[name][2].split(", ")] == list(values), name
        assert float(settings[name][3]) == getattr(OOD_STYLE, name), name
    assert [code_names(row[0])[0] for row in table(text, "palette")] == list(PALETTES)

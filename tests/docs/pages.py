"""Reading the documentation pages as data: sections, tables, code blocks, commands, the nav.

The docs tests compare what the pages list with the registries they describe, so these
helpers parse just the Markdown the pages use: ATX headings, pipe tables, fenced blocks
(``` or ~~~, with an optional ``title="..."``) and relative links.
"""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"

_HEADING = re.compile(r"^(#{1,6}) +(.*?) *$", flags=re.MULTILINE)
_FENCE = re.compile(
    r"^(?P<indent> *)(?P<fence>```|~~~)(?P<info>[^\n]*)\n(?P<body>.*?)^(?P=indent)(?P=fence)[ \t]*$",
    flags=re.MULTILINE | re.DOTALL,
)
_TITLE = re.compile(r'title="([^"]*)"')
_CODE_NAME = re.compile(r"`([^`]+)`")


def page(name: str) -> str:
    """The text of ``docs/<name>``."""
    return (DOCS / name).read_text(encoding="utf-8")


def pages() -> dict[str, str]:
    """Every page under docs/, by its path relative to docs/."""
    return {path.relative_to(DOCS).as_posix(): path.read_text(encoding="utf-8") for path in sorted(DOCS.rglob("*.md"))}


def without_code(text: str) -> str:
    """``text`` with its fenced blocks blanked out, same length (a ``#`` comment in a block is no heading)."""
    return _FENCE.sub(lambda match: re.sub(r"[^\n]", " ", match.group()), text)


def section(text: str, heading: str) -> str:
    """The part of ``text`` under the heading ``heading`` (any level), up to the next heading of its level or above."""
    plain = without_code(text)
    for match in _HEADING.finditer(plain):
        if match.group(2) == heading:
            level = len(match.group(1))
            end = len(text)
            for later in _HEADING.finditer(plain, match.end()):
                if len(later.group(1)) <= level:
                    end = later.start()
                    break
            return text[match.end() : end]
    raise AssertionError(f"no heading {heading!r}")


def table(text: str, first_header: str) -> list[list[str]]:
    """The body rows (cells stripped) of the first pipe table whose header row starts with ``first_header``."""
    lines = text.splitlines()
    for index, line in enumerate(lines):
        cells = _cells(line)
        if cells and cells[0] == first_header:
            rows = []
            for row in lines[index + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append(_cells(row))
            return rows
    raise AssertionError(f"no table with a first column {first_header!r}")


def _cells(line: str) -> list[str]:
    if not line.startswith("|"):
        return []
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def code_names(cell: str) -> list[str]:
    """The names in backticks in a table cell or a sentence, in order."""
    return _CODE_NAME.findall(cell)


def blocks(text: str, language: str | None = None) -> list[tuple[str, str]]:
    """``(title, body)`` of every fenced block of ``language`` (any language when None), in order."""
    found = []
    for match in _FENCE.finditer(text):
        info = match.group("info").strip()
        if language is None or info.split(" ", 1)[0] == language:
            title = _TITLE.search(info)
            found.append((title.group(1) if title else "", match.group("body")))
    return found


def titled_block(text: str, title: str) -> str:
    """The body of the one fenced block titled ``title`` in ``text``."""
    bodies = [body for name, body in blocks(text) if name == title]
    assert len(bodies) == 1, f"expected one block titled {title!r}, found {len(bodies)}"
    return bodies[0]


def vgau_commands(text: str) -> list[str]:
    """Every ``vgau-data ...`` command in the bash blocks of ``text``, continuation lines joined.

    Commands with placeholders (``...``, ``[``, ``<``) are not concrete, so they are left out.
    """
    commands = []
    for _, body in blocks(text, "bash"):
        for line in body.replace("\\\n", " ").splitlines():
            for match in re.finditer(r"vgau-data [^&;#|]*", line):
                command = match.group().replace("$i", "0").strip()
                if not any(mark in command for mark in ("...", "[", "<")):
                    commands.append(command)
    return commands


def links(text: str) -> list[str]:
    """The targets of the Markdown links in ``text`` (outside code)."""
    return re.findall(r"\]\(([^)\s]+)\)", without_code(text))


def nav_pages() -> list[str]:
    """Every page the site's nav lists, in order."""
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))

    def walk(node: object) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, list):
            return [name for item in node for name in walk(item)]
        if isinstance(node, dict):
            return [name for value in node.values() for name in walk(value)]
        return []

    return walk(config["nav"])

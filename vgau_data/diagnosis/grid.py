"""A plain-text table with a label column and grouped value columns, wrapped to a width.

Labels and cells may hold model names from records files: they are escaped
(``terminal_safe``) before the columns are measured, so the table stays aligned.

The diagnosis tables are wide (six families x three paradigms), so column groups that do
not fit are continued in further blocks below, each repeating the row labels.

Example:
    >>> print(render_grid("T", [Row("a", ["1", "2"]), Row("group")], [("maze", ["GtA", "VR"])]))
    T
    setting |    maze
            |   GtA    VR
    --------+-------------
    a       |     1     2
    group   |
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from vgau_data.terminal import terminal_safe

MIN_CELL = 5


@dataclass(frozen=True, slots=True)
class Row:
    """A labelled row; a row without cells is a group heading."""

    label: str
    cells: Sequence[str] = field(default_factory=tuple)


def render_grid(
    title: str,
    rows: Sequence[Row],
    groups: Sequence[tuple[str, Sequence[str]]],
    *,
    corner: str = "setting",
    width: int = 160,
) -> str:
    """``title``, then the table in as many blocks as ``width`` needs.

    Args:
        rows: the rows; each non-heading row has one cell per column of every group, in order.
        groups: ``(group title, column titles)`` per group of columns.
        corner: the label column's heading.
        width: the widest a line may be (a single group wider than that is still shown whole).
    """
    rows = [Row(terminal_safe(r.label), tuple(terminal_safe(c) for c in r.cells)) for r in rows]
    groups = [(terminal_safe(g), tuple(terminal_safe(t) for t in titles)) for g, titles in groups]
    columns = [(g, c) for g, titles in groups for c in titles]
    for row in rows:
        if row.cells and len(row.cells) != len(columns):
            raise ValueError(f"row {row.label!r} has {len(row.cells)} cells for {len(columns)} columns")
    cell_width = max(
        [
            MIN_CELL,
            *(len(c) for _, c in columns),
            *(len(x) for r in rows for x in r.cells),
            *(-(-(len(g) + 1) // max(len(titles), 1)) - 1 for g, titles in groups),
        ]
    )  # group titles fit
    label_width = max([len(corner), *(len(r.label) for r in rows)])
    blocks: list[list[int]] = [[]]
    used = label_width + 1
    for index, (_, titles) in enumerate(groups):
        need = 2 + len(titles) * (cell_width + 1)
        if blocks[-1] and used + need > width:
            blocks.append([])
            used = label_width + 1
        blocks[-1].append(index)
        used += need
    lines = [terminal_safe(title)]
    for number, block in enumerate(blocks):
        if number:
            lines.append("")
        lines.extend(_block(rows, groups, block, corner, label_width, cell_width))
    return "\n".join(lines)


def _block(
    rows: Sequence[Row],
    groups: Sequence[tuple[str, Sequence[str]]],
    block: Sequence[int],
    corner: str,
    label_width: int,
    cell_width: int,
) -> list[str]:
    starts = [sum(len(groups[i][1]) for i in range(index)) for index in range(len(groups))]
    top = [f"{corner:<{label_width}} "]
    sub = [" " * (label_width + 1)]
    for index in block:
        title, titles = groups[index]
        span = len(titles) * (cell_width + 1) + 1
        top.append(f"{title:^{span}}")
        sub.append(_cells(titles, cell_width))
    lines = ["|".join(top).rstrip(), "|".join(sub).rstrip(), "+".join("-" * len(part) for part in sub)]
    for row in rows:
        parts = [f"{row.label:<{label_width}} "]
        if row.cells:
            for index in block:
                cells = row.cells[starts[index] : starts[index] + len(groups[index][1])]
                parts.append(_cells(cells, cell_width))
        lines.append("|".join(parts).rstrip() if row.cells else f"{parts[0]}|")
    return lines


def _cells(cells: Sequence[str], cell_width: int) -> str:
    return "".join(f" {c:>{cell_width}}" for c in cells) + " "

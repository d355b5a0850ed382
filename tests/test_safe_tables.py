"""``safe_tables``: the row count of an xlsx sheet is taken on the inflating stream, exactly, before openpyxl parses it."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from vgau_data import safe_tables


def _sheet(path: Path, rows: int, prefix: str = "") -> Path:
    """A zip holding one worksheet of ``rows`` padded rows (over 3 MB, so tags straddle the 1 MB reads)."""
    tag = f"{prefix}:row" if prefix else "row"
    body = "".join(f'<{tag} r="{n}">{"x" * (n % 97)}</{tag}><rowBreaks/>' for n in range(1, rows + 1))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("xl/worksheets/sheet1.xml", f"<worksheet><sheetData>{body}</sheetData></worksheet>")
    return path


@pytest.mark.parametrize("prefix", ["", "x"])
def test_refuse_long_sheet__counts_every_row_tag_across_reads(tmp_path: Path, monkeypatch, prefix: str) -> None:
    path = _sheet(tmp_path / "s.xlsx", 50_000, prefix)
    assert path.stat().st_size > 0
    with zipfile.ZipFile(path) as archive:
        member = archive.getinfo("xl/worksheets/sheet1.xml")
        assert member.file_size > 3 << 20
        monkeypatch.setattr(safe_tables, "MAX_ROWS", 50_000 - 1)  # a header and 49,999 rows: allowed
        safe_tables._refuse_long_sheet(path, archive, member)
        monkeypatch.setattr(safe_tables, "MAX_ROWS", 50_000 - 2)
        with pytest.raises(safe_tables.TableError, match="holds more than 49,998 rows"):
            safe_tables._refuse_long_sheet(path, archive, member)

"""Tables other tools wrote (CSV, TSV, Excel), read within bounds and never silently short.

- CSV/TSV: UTF-8 with or without a byte-order mark; an unclosed quote, or a row with
  more cells than the header, is an error naming the line (Python's ``csv`` would
  otherwise fold the rest of the file into one cell and return fewer rows).
- ``.xlsx`` is a zip of XML: before ``openpyxl`` opens it, the sizes its zip directory
  declares (which bound what ``zipfile`` will ever inflate) must stay under
  ``MAX_UNPACKED_BYTES`` in all, so a 2 MB file whose one cell inflates to
  gigabytes is refused unopened; the worksheets' ``<row>`` elements are then counted
  on the inflating stream (a sheet of more than ``MAX_ROWS`` is refused before openpyxl
  parses a row: its parse costs about 20 µs a row), and rows are streamed (read-only
  mode) up to ``MAX_ROWS``, within ``MAX_SECONDS``.

Every refusal is a ``TableError`` naming the file.
"""

from __future__ import annotations

import csv
import importlib.util
import io
import re
import time
import zipfile
from pathlib import Path
from typing import Any, Final

from vgau_data import safe_io
from vgau_data.errors import InputFileError, MissingDependencyError, VgauError

MAX_FILE_BYTES: Final = 256 * 1024 * 1024
"""Largest table file read (as large as a submission may be)."""
MAX_UNPACKED_BYTES: Final = 256 * 1024 * 1024
MAX_ROWS: Final = 200_000
MAX_COLUMNS: Final = 256
MAX_SECONDS: Final = 60.0
MAX_CELL_CHARS: Final = 64 << 20


class TableError(VgauError, ValueError):
    """A table file that cannot be read whole within the bounds (the message names it and why)."""


def read_delimited(path: str | Path, *, delimiter: str) -> list[dict[str, str | None]]:
    """The rows of a CSV (``,``) or TSV (``\\t``) file with a header line, as dicts; empty cells are None.

    Raises:
        TableError: not a regular file, too large, not UTF-8, an unclosed quote, a row
            longer than the header, or more than ``MAX_ROWS`` rows.
    """
    path = Path(path)
    try:
        text = safe_io.read_text(path, limit=MAX_FILE_BYTES, what="table")
    except InputFileError as error:
        raise TableError(str(error)) from None
    csv.field_size_limit(MAX_CELL_CHARS)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows: list[dict[str, str | None]] = []
    header: list[str] | None = None
    while True:
        first_line = reader.line_num + 1
        try:
            cells = next(reader, None)
        except csv.Error as error:
            raise TableError(
                f"{path}: line {first_line}: not a readable table ({error}; a quote opened in this row never closes?)"
            ) from None
        if cells is None:
            return rows
        if header is None:
            header = cells
            if len(header) > MAX_COLUMNS or len(set(header)) != len(header):
                raise TableError(f"{path}: line 1: the header must name at most {MAX_COLUMNS} distinct columns")
            continue
        if not cells:
            continue
        if len(cells) > len(header):
            raise TableError(f"{path}: line {first_line}: {len(cells)} cells under a header of {len(header)} columns")
        if len(rows) >= MAX_ROWS:
            raise TableError(f"{path}: line {first_line}: more than {MAX_ROWS:,} rows")
        cells += [""] * (len(header) - len(cells))
        rows.append({name: (value if value != "" else None) for name, value in zip(header, cells)})


def read_xlsx(path: str | Path) -> list[dict[str, Any]]:
    """The rows of the first sheet of an ``.xlsx`` file with a header row, as dicts; empty cells are None.

    Raises:
        MissingDependencyError: openpyxl is not installed.
        TableError: not a regular file, too large, not a zip of an xlsx, declaring more
            than ``MAX_UNPACKED_BYTES`` unpacked, more than ``MAX_ROWS`` rows, or slower
            than ``MAX_SECONDS`` to read.
    """
    if importlib.util.find_spec("openpyxl") is None:
        raise MissingDependencyError("reading .xlsx needs openpyxl: pip install openpyxl (or set PRED_FORMAT=tsv)")
    import openpyxl

    path = Path(path)
    try:
        data = safe_io.read_bytes(path, limit=MAX_FILE_BYTES, what="table")
    except InputFileError as error:
        raise TableError(str(error)) from None
    start = time.monotonic()
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            members = archive.infolist()
            unpacked = sum(member.file_size for member in members)
            largest = max((member.file_size for member in members), default=0)
            if unpacked > MAX_UNPACKED_BYTES or len(members) > 10_000:
                raise TableError(
                    f"{path}: the xlsx declares {unpacked:,} bytes unpacked in {len(members)} parts "
                    f"(largest {largest:,}); at most {MAX_UNPACKED_BYTES:,} are read"
                )
            for member in members:
                if member.filename.startswith("xl/worksheets/") and member.filename.endswith(".xml"):
                    _refuse_long_sheet(path, archive, member)
            workbook = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
            try:
                rows = _sheet_rows(path, workbook.worksheets[0], start) if workbook.worksheets else []
            finally:
                workbook.close()
    except TableError:
        raise
    except Exception as error:  # noqa: BLE001 (openpyxl's zip and XML layers raise what they like on a broken file)
        raise TableError(f"{path}: not a readable .xlsx file ({type(error).__name__}: {str(error)[:160]})") from None
    return rows


_ROW_TAG = re.compile(rb"<(?:[A-Za-z_][\w.-]{0,15}:)?row[\s/>]")
"""A worksheet's ``<row>`` start tag, with or without a namespace prefix (never ``<rowBreaks``)."""
_ROW_TAG_MAX = 22
"""The longest text ``_ROW_TAG`` matches; a chunk's last bytes are carried into the next."""


def _refuse_long_sheet(path: Path, archive: zipfile.ZipFile, member: zipfile.ZipInfo) -> None:
    """Count ``member``'s row tags as it inflates; more than a header and ``MAX_ROWS`` rows is refused."""
    count, carry = 0, b""
    with archive.open(member) as stream:
        while chunk := stream.read(1 << 20):
            buffer = carry + chunk
            scan_end = len(buffer) - _ROW_TAG_MAX  # a tag starting later may run into the next chunk
            count += sum(1 for match in _ROW_TAG.finditer(buffer) if match.start() < scan_end)
            carry = buffer[max(scan_end, 0) :]
            if count > MAX_ROWS + 1:
                break
        else:
            count += sum(1 for match in _ROW_TAG.finditer(carry))
    if count > MAX_ROWS + 1:
        raise TableError(f"{path}: {member.filename} holds more than {MAX_ROWS:,} rows")


def _sheet_rows(path: Path, sheet: Any, start: float) -> list[dict[str, Any]]:
    sheet.reset_dimensions()  # read every row there is, not the ones the sheet's <dimension> claims
    rows: list[dict[str, Any]] = []
    header: list[str] | None = None
    for number, values in enumerate(sheet.iter_rows(values_only=True), start=1):
        if number % 1024 == 0 and time.monotonic() - start > MAX_SECONDS:
            raise TableError(f"{path}: row {number}: not read within {MAX_SECONDS:g} s")
        if header is None:
            header = ["" if value is None else str(value) for value in values[: MAX_COLUMNS + 1]]
            if len(header) > MAX_COLUMNS:
                raise TableError(f"{path}: row 1: more than {MAX_COLUMNS} columns")
            continue
        if all(value is None for value in values):
            continue
        if len(rows) >= MAX_ROWS:
            raise TableError(f"{path}: row {number}: more than {MAX_ROWS:,} rows")
        rows.append({name: value for name, value in zip(header, values) if name})
    return rows

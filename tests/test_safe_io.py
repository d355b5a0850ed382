"""The bounded reader and the atomic writer every module uses for files."""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path

import pytest

from vgau_data import safe_io
from vgau_data.errors import InputFileError, WriteError


def test_read__regular_files_inside_the_folder_are_read(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    target = tmp_path / "sub" / "a.txt"
    target.write_bytes(b"\xef\xbb\xbfhello")
    (tmp_path / "link.txt").symlink_to(target)  # a link that stays inside is followed
    assert safe_io.read_text(tmp_path / "link.txt", limit=100, inside=tmp_path) == "hello"
    assert safe_io.read_bytes(target, limit=8) == b"\xef\xbb\xbfhello"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda p: p.symlink_to("/dev/zero"), "leads outside"),
        (lambda p: os.mkfifo(p), r"not a regular file \(a FIFO\)"),
        (lambda p: p.mkdir(), r"not a regular file \(a folder\)"),
        (lambda p: p.symlink_to(p), "cannot resolve"),
        (lambda p: None, "no such file"),
    ],
    ids=["dev-zero", "fifo", "folder", "loop", "absent"],
)
def test_read__special_files_and_links_out_are_refused_without_blocking(tmp_path: Path, make, message: str) -> None:
    path = tmp_path / "x"
    make(path)
    start = time.perf_counter()
    with pytest.raises(InputFileError, match=message):
        safe_io.read_bytes(path, limit=10, inside=tmp_path)
    assert time.perf_counter() - start < 1


def test_read__devices_are_refused_even_without_a_folder(tmp_path: Path) -> None:
    with pytest.raises(InputFileError, match="a character device"):
        safe_io.read_bytes("/dev/zero", limit=10)


def test_read__sizes_are_checked_before_reading_and_lines_are_capped(tmp_path: Path) -> None:
    path = tmp_path / "big"
    with path.open("wb") as handle:
        handle.truncate(10 << 30)  # 10 GiB, sparse: never read
    with pytest.raises(InputFileError, match="10,737,418,240 bytes, over the limit of 1,000"):
        safe_io.read_bytes(path, limit=1000)
    path.write_bytes(b"a\n" + b"b" * 50 + b"\nc")
    lines = safe_io.iter_lines(path, max_line=10, max_bytes=1000)
    assert next(lines) == (1, b"a\n")
    with pytest.raises(InputFileError, match="line 2 of the file is longer than the limit of 10"):
        next(lines)
    assert list(safe_io.iter_lines(path, max_line=60, max_bytes=1000))[-1] == (3, b"c")
    many = tmp_path / "many"
    many.write_bytes(b"x\n" * 1000)
    with pytest.raises(InputFileError, match="2,000 bytes, over the limit of 1,000"):
        list(safe_io.iter_lines(many, max_line=60, max_bytes=1000))


def test_read__text_must_be_utf8(tmp_path: Path) -> None:
    path = tmp_path / "latin1"
    path.write_bytes(b"caf\xe9")
    with pytest.raises(InputFileError, match="not UTF-8 text \\(byte 3\\)"):
        safe_io.read_text(path, limit=100)


def test_write__replaces_whole_and_keeps_the_mode(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    path.write_text("old")
    path.chmod(0o640)
    safe_io.write_text(path, "new")
    assert path.read_text() == "new" and (path.stat().st_mode & 0o777) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_write__a_full_disk_leaves_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "results.json"
    path.write_text('{"old": true}')
    real_fsync = os.fsync

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(WriteError, match="No space left on device.*the previous file, if any, is unchanged"):
        safe_io.write_text(path, '{"new": true}' * 1000)
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert path.read_text() == '{"old": true}'
    assert [p.name for p in tmp_path.iterdir()] == ["results.json"]


def test_write__an_error_in_the_block_keeps_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_text("old")
    with pytest.raises(KeyError), safe_io.atomic_writer(path) as handle:
        handle.write(b"partial")
        raise KeyError("boom")
    assert path.read_text() == "old" and len(list(tmp_path.iterdir())) == 1


def test_remove_stale_temps__removes_a_dead_writers_file_at_once_and_leaves_live_ones(tmp_path: Path) -> None:
    dead = tmp_path / f".a.png.xyz{safe_io.TEMP_SUFFIX}"
    dead.write_bytes(b"partial")  # just written by a process killed since: no lock on it
    with safe_io.atomic_writer(tmp_path / "c.png") as handle:
        handle.write(b"live")
        (live,) = [p for p in tmp_path.iterdir() if p.name.startswith(".c.png.")]
        assert safe_io.remove_stale_temps(tmp_path) == 1
        assert live.exists() and not dead.exists()
    assert (tmp_path / "c.png").read_bytes() == b"live"
    assert not [p for p in tmp_path.iterdir() if safe_io.is_temporary(p)]
    assert safe_io.is_temporary(live) and not safe_io.is_temporary(tmp_path / "c.png")


def test_atomic_writer__a_temporary_removed_before_its_lock_is_made_again(tmp_path: Path, monkeypatch) -> None:
    """The race a cleaner and a new writer can run: the cleaner wins, the writer takes another file."""
    real_mkstemp = safe_io.tempfile.mkstemp
    made: list[str] = []

    def mkstemp_then_clean(**options):
        fd, name = real_mkstemp(**options)
        made.append(name)
        if len(made) == 1:
            safe_io.remove_stale_temps(tmp_path)  # between creation and lock
        return fd, name

    monkeypatch.setattr(safe_io.tempfile, "mkstemp", mkstemp_then_clean)
    safe_io.write_text(tmp_path / "out.txt", "whole")
    assert len(made) == 2 and (tmp_path / "out.txt").read_text() == "whole"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_atomic_folder__replaces_an_old_folder_whole_with_synced_files_and_mkdir_s_mode(tmp_path: Path) -> None:
    target = tmp_path / "images"
    target.mkdir()
    (target / "old.png").write_bytes(b"old")
    with safe_io.atomic_folder(target) as folder:
        assert safe_io.is_temporary(folder) and folder.parent == tmp_path and folder.is_dir()
        (folder / "a.png").write_bytes(b"a")
        assert (target / "old.png").read_bytes() == b"old", "the old folder stays until the block ends"
    assert sorted(p.name for p in target.iterdir()) == ["a.png"]
    assert [p.name for p in tmp_path.iterdir()] == ["images"]
    assert target.stat().st_mode & 0o777 == 0o777 & ~safe_io._umask()


def test_atomic_folder__an_error_in_the_block_keeps_the_old_folder_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "images"
    target.mkdir()
    (target / "old.png").write_bytes(b"old")
    with pytest.raises(KeyError), safe_io.atomic_folder(target) as folder:
        (folder / "a.png").write_bytes(b"partial")
        raise KeyError("boom")
    assert [p.name for p in target.iterdir()] == ["old.png"] and [p.name for p in tmp_path.iterdir()] == ["images"]


def test_remove_stale_temps__removes_a_dead_writers_folder_and_leaves_a_live_one(tmp_path: Path) -> None:
    nested = tmp_path / "shard" / "images"
    dead = nested / f".s.xyz{safe_io.TEMP_SUFFIX}"
    dead.mkdir(parents=True)  # a killed writer's folder: no lock on it
    (dead / "0.png").write_bytes(b"partial")
    assert safe_io.remove_stale_temps(tmp_path) == 0, "not below the folder unless recursive"
    with safe_io.atomic_folder(nested / "s") as live:
        (live / "1.png").write_bytes(b"live")
        assert safe_io.remove_stale_temps(tmp_path, recursive=True) == 1
        assert not dead.exists() and (live / "1.png").exists()
    assert [p.name for p in nested.iterdir()] == ["s"] and [p.name for p in (nested / "s").iterdir()] == ["1.png"]


def test_atomic_folder__a_temporary_removed_before_its_lock_is_made_again(tmp_path: Path, monkeypatch) -> None:
    real_mkdtemp = safe_io.tempfile.mkdtemp
    made: list[str] = []

    def mkdtemp_then_clean(**options):
        made.append(real_mkdtemp(**options))
        if len(made) == 1:
            safe_io.remove_stale_temps(tmp_path)  # between creation and lock
        return made[-1]

    monkeypatch.setattr(safe_io.tempfile, "mkdtemp", mkdtemp_then_clean)
    with safe_io.atomic_folder(tmp_path / "images") as folder:
        (folder / "a.png").write_bytes(b"a")
    assert len(made) == 2 and [p.name for p in tmp_path.iterdir()] == ["images"]

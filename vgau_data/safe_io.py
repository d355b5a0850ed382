"""Every file we read from a place we do not control, and every file we write.

Reading (``open_regular``, ``read_bytes``, ``read_text``, ``iter_lines``, ``sha256_of``): the path must
name a regular file (a FIFO would block, ``/dev/zero`` never ends), and with ``inside``
its real location, symlinks followed, must lie inside that folder, so a run folder or a
clone cannot point us at files elsewhere. The size is checked before anything is read
and again while reading (a file may grow), and ``iter_lines`` streams with a cap on each
line and on the total. Every refusal is an ``InputFileError`` naming the file and the limit.

Writing (``atomic_writer``, ``write_bytes``, ``write_text``): the new content goes to a
temporary file in the same folder (``.<name>.<random>.vgau-tmp``, held locked while it is
written), is flushed and fsynced, then renamed over the target, and the folder is
fsynced: a reader sees the old file or the whole new one, never a part. A failed write
(a full disk) removes the temporary file and raises ``WriteError``; the old file is
unchanged. ``atomic_folder`` does the same for a folder of files (written into a
temporary folder of the same kind of name). ``remove_stale_temps`` deletes temporary
files and folders a killed writer left behind (it can tell: a live writer still holds
the lock on its file or folder).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import io
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Final

from vgau_data.errors import InputFileError, WriteError

TEMP_SUFFIX: Final = ".vgau-tmp"
"""The suffix of every temporary file we write (readers skip such names)."""
TEMP_ATTEMPTS: Final = 5
"""Temporary files tried in turn when a cleaner removes one between its creation and its lock."""
CHUNK: Final = 1 << 20


# ---------------------------------------------------------------- reading


def _within(path: Path, inside: Path) -> bool:
    try:
        path.relative_to(inside)
    except ValueError:
        return False
    return True


def checked_path(
    path: str | os.PathLike[str], *, inside: str | os.PathLike[str] | None = None, what: str = "file"
) -> Path:
    """``path`` resolved (symlinks followed), refused unless it is a regular file inside ``inside``.

    Raises:
        InputFileError: absent, not a regular file (a folder, FIFO, device, socket), or
            resolving outside ``inside``.
    """
    path = Path(path)
    try:
        real = path.resolve(strict=True)
    except FileNotFoundError:
        raise InputFileError(f"{path}: no such {what}") from None
    except (OSError, RuntimeError) as error:  # a symlink loop, a path we may not read
        raise InputFileError(f"{path}: cannot resolve the {what} ({error})") from None
    if inside is not None:
        root = Path(inside).resolve()
        if not _within(real, root):
            raise InputFileError(
                f"{path}: the {what} leads outside {root} (to {real}); links out of the folder are not followed"
            )
    try:
        mode = os.stat(real).st_mode
    except OSError as error:
        raise InputFileError(f"{path}: cannot read the {what} ({error.strerror})") from None
    if not stat.S_ISREG(mode):
        raise InputFileError(f"{path}: not a regular file ({_kind(mode)}); a {what} must be a plain file")
    return real


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):  # fmt: skip
        if test(mode):
            return name
    return "not a plain file"


def open_regular(
    path: str | os.PathLike[str], *, inside: str | os.PathLike[str] | None = None, what: str = "file"
) -> IO[bytes]:
    """A binary handle on a regular file (see ``checked_path``), opened without following a late symlink."""
    real = checked_path(path, inside=inside, what=what)
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as error:
        raise InputFileError(f"{path}: cannot open the {what} ({error.strerror})") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):  # swapped between the check and the open
        os.close(fd)
        raise InputFileError(f"{path}: not a regular file; a {what} must be a plain file")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def _too_big(path: str | os.PathLike[str], what: str, limit: int, size: int | None = None) -> InputFileError:
    shown = "more than" if size is None else f"{size:,} bytes,"
    return InputFileError(f"{path}: the {what} is {shown} over the limit of {limit:,} bytes")


def read_bytes(
    path: str | os.PathLike[str], *, limit: int, inside: str | os.PathLike[str] | None = None, what: str = "file"
) -> bytes:
    """The whole content of a regular file of at most ``limit`` bytes.

    Raises:
        InputFileError: see ``checked_path``; or the file holds more than ``limit`` bytes.
    """
    with open_regular(path, inside=inside, what=what) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise _too_big(path, what, limit, size)
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise _too_big(path, what, limit)
    return data


def read_text(
    path: str | os.PathLike[str], *, limit: int, inside: str | os.PathLike[str] | None = None, what: str = "file"
) -> str:
    """``read_bytes`` decoded as UTF-8 (a leading byte-order mark dropped).

    Raises:
        InputFileError: as ``read_bytes``, or the bytes are not UTF-8 (the offset is named).
    """
    data = read_bytes(path, limit=limit, inside=inside, what=what)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise InputFileError(
            f"{path}: the {what} is not UTF-8 text (byte {error.start}); is it the right file?"
        ) from None


def iter_lines(
    path: str | os.PathLike[str],
    *,
    max_line: int,
    max_bytes: int,
    inside: str | os.PathLike[str] | None = None,
    what: str = "file",
) -> Iterator[tuple[int, bytes]]:
    """``(number, line)`` of a regular file, streamed; each line keeps its ``\\n`` (the last may lack it).

    Raises:
        InputFileError: see ``checked_path``; a line longer than ``max_line`` bytes, or
            more than ``max_bytes`` in all (each named by line number).
    """
    with open_regular(path, inside=inside, what=what) as handle:
        size = os.fstat(handle.fileno()).st_size
        if size > max_bytes:
            raise _too_big(path, what, max_bytes, size)
        total = 0
        number = 0
        while line := handle.readline(max_line + 1):
            number += 1
            total += len(line)
            if len(line) - line.endswith(b"\n") > max_line:
                raise InputFileError(
                    f"{path}: line {number} of the {what} is longer than the limit of {max_line:,} bytes"
                )
            if total > max_bytes:
                raise InputFileError(
                    f"{path}: line {number}: the {what} holds more than the limit of {max_bytes:,} bytes"
                )
            yield number, line


def sha256_of(path: str | os.PathLike[str], *, inside: str | os.PathLike[str] | None = None) -> str:
    """The hex sha256 of a regular file (see ``open_regular``), streamed ``CHUNK`` bytes at a time.

    The one file hasher: manifests record it, reruns and uploads compare it.
    """
    digest = hashlib.sha256()
    with open_regular(path, inside=inside) as handle:
        while block := handle.read(CHUNK):
            digest.update(block)
    return digest.hexdigest()


# ---------------------------------------------------------------- writing


def _fsync_folder(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as error:  # some filesystems cannot fsync a folder; the rename is still done
        if error.errno not in (errno.EINVAL, errno.ENOTSUP, errno.EBADF):
            raise
    finally:
        os.close(fd)


def _umask() -> int:
    """The process's umask, read without changing it (``/proc``), else by setting it back at once."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except OSError:
        pass
    current = os.umask(0o022)
    os.umask(current)
    return current


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """A binary handle whose content replaces ``path`` whole when the block ends without error.

    Raises:
        WriteError: the temporary file could not be written, synced or renamed (a full
            disk, a read-only folder); it is removed and ``path`` is left as it was.
    """
    path = Path(path)
    with _renamed_into_place(path, folder=False) as (fd, _):
        try:
            mode = stat.S_IMODE(os.stat(path).st_mode)
        except OSError:
            mode = 0o666 & ~_umask()  # what open() would have made (mkstemp makes 0600)
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb", closefd=False) as handle:
            yield handle
            handle.flush()
            os.fsync(fd)


@contextlib.contextmanager
def atomic_folder(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A new, empty temporary folder whose files replace the folder ``path`` when the block ends without error.

    Write plain files straight into the folder yielded (no subfolders). On success each is
    fsynced, then the folder; a folder already at ``path`` is removed, the temporary one
    renamed onto it and the parent fsynced. On an error the temporary folder goes and
    ``path`` is left as it was. Replacing an old folder takes two steps (remove, rename):
    a reader that must never see ``path`` missing needs a file renamed into place after it
    (an exporter's shard, written once its image folder is in place).

    Raises:
        WriteError: the folder could not be made, synced or renamed.
    """
    path = Path(path)
    with _renamed_into_place(path, folder=True) as (fd, temporary):
        os.fchmod(fd, 0o777 & ~_umask())  # what mkdir would have made (mkdtemp makes 0700)
        yield temporary
        with os.scandir(temporary) as entries:
            for entry in entries:
                with open(entry.path, "rb") as handle:
                    os.fsync(handle.fileno())
        os.fsync(fd)
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)


@contextlib.contextmanager
def _renamed_into_place(path: Path, *, folder: bool) -> Iterator[tuple[int, Path]]:
    """The locked temporary file or folder of ``path`` (``_locked_temporary``), renamed onto
    ``path`` (then the parent fsynced) when the block, which syncs what it wrote, ends without
    error, and removed otherwise; an ``OSError`` on the way is a ``WriteError``."""
    what, previous = ("the folder", "one") if folder else ("it", "file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, name = _locked_temporary(path, folder=folder)
    except OSError as error:
        raise WriteError(f"{path}: cannot write{' the folder' if folder else ''} ({error.strerror or error})") from None
    temporary = Path(name)
    done = False
    try:
        yield fd, temporary
        os.replace(temporary, path)
        done = True
        _fsync_folder(path.parent)
    except OSError as error:
        raise WriteError(
            f"{path}: could not write {what} whole ({error.strerror or error}); the previous {previous}, if any, "
            "is unchanged"
        ) from None
    finally:
        os.close(fd)
        if not done and folder:
            shutil.rmtree(temporary, ignore_errors=True)
        elif not done:
            with contextlib.suppress(OSError):
                os.unlink(temporary)


def _locked_temporary(path: Path, *, folder: bool = False) -> tuple[int, str]:
    """A new temporary file (or empty folder) beside ``path``, locked (which tells
    ``remove_stale_temps`` it has a live writer); made again if a cleaner removed it before
    the lock was taken."""
    names = {"dir": path.parent, "prefix": f".{path.name[:80]}.", "suffix": TEMP_SUFFIX}
    for _ in range(TEMP_ATTEMPTS):
        if folder:
            temporary = tempfile.mkdtemp(**names)
            try:
                fd = os.open(temporary, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            except FileNotFoundError:
                continue
        else:
            fd, temporary = tempfile.mkstemp(**names)
        fcntl.flock(fd, fcntl.LOCK_EX)
        try:
            if os.stat(temporary).st_ino == os.fstat(fd).st_ino:
                return fd, temporary
        except FileNotFoundError:
            pass
        os.close(fd)
    raise OSError(f"{TEMP_ATTEMPTS} temporary files were removed before they could be locked")


def write_bytes(path: str | os.PathLike[str], data: bytes) -> Path:
    """Replace ``path`` with ``data`` atomically (see ``atomic_writer``); returns the path."""
    with atomic_writer(path) as handle:
        handle.write(data)
    return Path(path)


def write_text(path: str | os.PathLike[str], text: str) -> Path:
    """Replace ``path`` with ``text`` as UTF-8, atomically."""
    return write_bytes(path, text.encode("utf-8"))


def copy_file(source: str | os.PathLike[str], target: str | os.PathLike[str]) -> Path:
    """Replace ``target`` with a copy of the regular file ``source``, atomically (streamed)."""
    with open_regular(source) as reader, atomic_writer(target) as writer:
        shutil.copyfileobj(reader, writer, CHUNK)
    return Path(target)


@contextlib.contextmanager
def atomic_text_writer(path: str | os.PathLike[str]) -> Iterator[IO[str]]:
    """``atomic_writer`` as a UTF-8 text handle (for writing line by line)."""
    with atomic_writer(path) as raw:
        text = io.TextIOWrapper(raw, encoding="utf-8", newline="")
        yield text
        text.flush()
        text.detach()  # the raw handle is atomic_writer's to close


def is_temporary(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is one of our temporary files or folders (readers skip these)."""
    return Path(path).name.endswith(TEMP_SUFFIX)


def remove_stale_temps(folder: str | os.PathLike[str], *, recursive: bool = False) -> int:
    """Delete the temporary files and folders in ``folder`` whose writer is gone (killed); returns how many.

    A temporary file or folder still being written is locked by its writer and is left alone
    (a writer whose file is removed before it could lock it makes another, ``_locked_temporary``).
    """
    removed = 0
    for path in _temporaries(Path(folder), recursive):
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            continue  # a live writer
        else:
            with contextlib.suppress(OSError):
                if stat.S_ISDIR(os.fstat(fd).st_mode):
                    shutil.rmtree(path)
                else:
                    path.unlink()
                removed += 1
        finally:
            os.close(fd)
    return removed


def _temporaries(folder: Path, recursive: bool) -> list[Path]:
    """The names in ``folder`` (and below it, not inside a temporary folder) that ``is_temporary`` takes."""
    found: list[Path] = []
    for parent, folders, files in os.walk(folder):  # links are not followed; a folder gone meanwhile is skipped
        found += [Path(parent, name) for name in (*folders, *files) if name.endswith(TEMP_SUFFIX)]
        if not recursive:
            break
        folders[:] = [name for name in folders if not name.endswith(TEMP_SUFFIX)]
    return found

"""Helpers of the hostile-input probes: ``vgau-data`` in a child under a memory cap, gzip and zip bombs.

The child gets ``RLIMIT_AS`` of ``memory`` bytes (a run past it dies with MemoryError).
Its cost in time is the CPU seconds it used, start-up included: on a machine shared by
several jobs the wall time says more about the neighbours than about the probe. A probe
that blocks (a FIFO read) uses no CPU, so the wall time is bounded too, at four times
the bound (then the call fails with ``TimeoutExpired``). The child's peak resident
memory is reported too (``Finished.peak_mb``); with ``$VGAU_PROBE_LOG`` set, every probe
appends its figures to that file as a JSON line (for the tables of a report).
"""

from __future__ import annotations

import gzip
import json
import os
import resource
import struct
import subprocess
import sys
import tempfile
import time
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

MEMORY_BYTES = 1 << 30
"""The issue's bound: every probe stays under 1 GB."""
SECONDS = 5.0
"""The issue's bound: every probe ends within 5 s."""
_LAUNCHER = """\
import atexit, json, os, runpy, sys
def report():  # VmHWM: this process's own peak (ru_maxrss would carry the parent's over fork and exec)
    with open("/proc/self/status") as status:
        peak = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
    with open(os.environ["VGAU_PROBE_USAGE"], "w") as out:
        json.dump({"peak_kb": peak}, out)
atexit.register(report)
sys.argv = ["vgau-data", *sys.argv[1:]]
runpy.run_module("vgau_data", run_name="__main__", alter_sys=True)
"""
"""``python -m vgau_data``, writing the process's peak resident memory to ``$VGAU_PROBE_USAGE`` at exit."""


@dataclass(frozen=True)
class Finished:
    returncode: int
    stdout: str
    stderr: str
    seconds: float
    """CPU seconds (user and system) the child used."""
    wall_seconds: float = 0.0
    peak_mb: float | None = None
    """The child's peak resident memory (None when it died before saying)."""

    def assert_one_line_error(self, *fragments: str) -> None:
        """Exit status 2, and stderr is one ``error:`` line holding every fragment."""
        assert self.returncode == 2, (self.returncode, self.stderr[-2000:])
        assert "Traceback" not in self.stderr, self.stderr[-2000:]
        lines = self.stderr.strip().splitlines()
        assert len(lines) == 1 and ": error: " in lines[0], self.stderr[-2000:]
        for fragment in fragments:
            assert fragment in lines[0], (fragment, lines[0])


def run_cli_bounded(args: Sequence[str], *, memory: int = MEMORY_BYTES, seconds: float = SECONDS) -> Finished:
    """``python -m vgau_data *args`` with at most ``memory`` bytes; asserts it used under ``seconds`` of CPU."""

    def cap_memory() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    with tempfile.TemporaryDirectory(prefix="vgau-probe-") as scratch:
        usage_file = Path(scratch) / "usage.json"
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        try:
            done = subprocess.run(
                [sys.executable, "-c", _LAUNCHER, *args],
                capture_output=True,
                text=True,
                errors="replace",
                timeout=4 * seconds,
                preexec_fn=cap_memory,
                check=False,
                env={**os.environ, "VGAU_PROBE_USAGE": str(usage_file)},
            )
        except subprocess.TimeoutExpired:
            _log(args, rc="timeout", cpu=None, wall=time.perf_counter() - start, peak=None, stderr="")
            raise
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        peak = json.loads(usage_file.read_text())["peak_kb"] / 1024 if usage_file.is_file() else None
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    finished = Finished(done.returncode, done.stdout, done.stderr, cpu, wall, peak)
    _log(args, rc=done.returncode, cpu=cpu, wall=wall, peak=peak, stderr=done.stderr)
    assert cpu < seconds, f"vgau-data {' '.join(args)[:200]} used {cpu:.1f} s of CPU (bound {seconds} s)"
    return finished


def _log(args: Sequence[str], *, rc: int | str, cpu: float | None, wall: float, peak: float | None, stderr: str) -> None:
    """One JSON line of a probe's figures in ``$VGAU_PROBE_LOG``, when it is set."""
    if not os.environ.get("VGAU_PROBE_LOG"):
        return
    with open(os.environ["VGAU_PROBE_LOG"], "a", encoding="utf-8") as log:
        log.write(json.dumps({"test": os.environ.get("PYTEST_CURRENT_TEST", "").split(" ")[0], "args": list(args)[:4],
                              "rc": rc, "cpu_s": cpu and round(cpu, 2), "wall_s": round(wall, 2),
                              "peak_mb": peak and round(peak), "stderr": stderr.strip()[-160:]}) + "\n")  # fmt: skip


def gzip_bomb(path: Path, *members: bytes, repeat: int = 1, level: int = 9) -> Path:
    """Concatenated gzip members, each compressed once and repeated: megabytes that decompress to gigabytes."""
    path.write_bytes(b"".join(gzip.compress(member, level) for member in members) * repeat)
    return path


def _deflated(prefix: bytes, chunk: bytes, repeat: int, suffix: bytes) -> tuple[bytes, int, int]:
    """Raw deflate of ``prefix + chunk * repeat + suffix`` made in time linear in the *output*:
    after a full flush the compressor starts afresh, so every copy of ``chunk`` compresses to
    the same bytes. Returns the data, the CRC-32 and the size of what it inflates to."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    head = compressor.compress(prefix) + compressor.flush(zlib.Z_FULL_FLUSH)
    block = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    again = compressor.compress(chunk) + compressor.flush(zlib.Z_FULL_FLUSH)
    assert block == again and repeat >= 2
    tail = compressor.compress(suffix) + compressor.flush()
    crc = zlib.crc32(prefix)
    for _ in range(repeat):
        crc = zlib.crc32(chunk, crc)
    crc = zlib.crc32(suffix, crc)
    return head + block * repeat + tail, crc & 0xFFFFFFFF, len(prefix) + len(chunk) * repeat + len(suffix)


def zip_bomb(path: Path, members: dict[str, bytes], bomb: str, prefix: bytes, chunk: bytes, repeat: int,
             suffix: bytes) -> Path:
    """A zip holding ``members`` as they are and ``bomb`` as ``prefix + chunk * repeat + suffix``,
    deflated, with true sizes and CRCs in its directory (so ``zipfile`` inflates it all)."""
    entries = [(name, zlib.compress(data, 9)[2:-4], zlib.crc32(data), len(data)) for name, data in members.items()]
    entries.append((bomb, *_deflated(prefix, chunk, repeat, suffix)))
    out, directory = bytearray(), bytearray()
    for name, data, crc, size in entries:
        encoded = name.encode()
        offset = len(out)
        out += struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0, crc, len(data), size, len(encoded), 0)
        out += encoded + data
        directory += struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0, crc, len(data), size,
                                 len(encoded), 0, 0, 0, 0, 0, offset) + encoded  # fmt: skip
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(directory), len(out), 0)
    path.write_bytes(bytes(out + directory + end))
    return path

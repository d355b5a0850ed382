"""A ``vgau-data serve-reward`` child process on a free loopback port, stopped on exit (tests, benchmarks, scripts)."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

START_TIMEOUT_S = 120.0
"""How long the server may take to start its workers and say its URL (a loaded machine)."""


class LaunchError(RuntimeError):
    """The server did not start (its exit status and what it printed are in the message)."""


@dataclass(frozen=True, slots=True)
class Launched:
    url: str
    """``http://127.0.0.1:PORT/get_reward``."""
    process: subprocess.Popen[str]

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1].split("/")[0])


@contextmanager
def launched(*options: str, python: str | None = None, env: dict[str, str] | None = None) -> Iterator[Launched]:
    """``vgau-data serve-reward --port 0 OPTIONS`` as a child process, once it is serving; SIGTERM then SIGKILL on exit."""
    command = [python or sys.executable, "-m", "vgau_data", "serve-reward", "--port", "0", *options]
    with tempfile.TemporaryFile() as errors:  # a file, not a pipe: nobody reads it while the server runs
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=errors, text=True,
                                   env={**os.environ, **(env or {})})  # fmt: skip
        try:
            line = _first_line(process)
            if "http://" not in line:
                process.kill()
                process.wait()
                errors.seek(0)
                said = errors.read()[-2000:].decode(errors="replace")
                raise LaunchError(f"serve-reward did not start (exit {process.returncode}): {line}{said}")
            yield Launched("http://" + line.split("http://", 1)[1].split()[0], process)
        finally:
            _stop(process)


def _stop(process: subprocess.Popen[str]) -> None:
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    if process.stdout is not None:
        process.stdout.close()

def _first_line(process: subprocess.Popen[str]) -> str:
    if process.stdout is None:
        raise LaunchError("serve-reward's output is not readable")
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        end = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < end and process.poll() is None:
            if selector.select(timeout=0.5):
                return process.stdout.readline()
    return ""


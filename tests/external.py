"""Tools outside the test venv (a second `datasets`, Chromium) that `.ci/run` installs.

Locally a missing tool skips its test with the command that installs it; under CI
(``CI=true``, as `.ci/run` runs) a missing tool fails the test, so CI cannot go green
without having run it.
"""

from __future__ import annotations

import os
import shutil

import pytest


def require_tool(env_var: str, *, fallback: str | None = None, install: str) -> str:
    """The executable named by ``$env_var`` (or ``fallback`` on PATH); skip or fail without it."""
    path = os.environ.get(env_var) or (shutil.which(fallback) if fallback else None)
    if path and os.access(path, os.X_OK):
        return path
    message = f"${env_var} is not set to an executable; install it with: {install}"
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(message)
    pytest.skip(message)

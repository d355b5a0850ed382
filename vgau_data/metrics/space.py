"""The Hub Space folder of the ``solver_accuracy`` evaluate module, ready for upload.

The Space ``vgau/solver_accuracy`` holds the same script as the package data
(``solver_accuracy.py``: file name = Space name, as ``evaluate.load`` requires), the
metric card (``README.md`` with the Space YAML), ``app.py`` (evaluate's gradio widget over
the Space's own copy of the script), a wheel of this ``vgau_data`` (the scorer the script
imports; ``vgau-data`` is not on the package index) and ``requirements.txt``.

The Space build installs ``requirements.txt`` on its own, before the repository's files
are there, so the wheel is named by its URL in the Space repo
(``vgau-data @ https://huggingface.co/spaces/<repo>/resolve/main/<wheel>``, ``repo`` being
``vgau/solver_accuracy`` or a fork's ``--repo``; the script is then ``<name>.py``, as
``evaluate.load("<repo>")`` fetches it).
evaluate's widget is written for gradio 3 (``gr.inputs``), the card's ``sdk_version``
3.19.1. Today's resolver pairs it with libraries it predates: starlette >= 1.0 crashes
it, and under pydantic 2 (with fastapi >= 0.100) every call is refused with HTTP 422 for
missing ``session_hash``/``event_id`` fields; ``RUNTIME_PINS`` holds the three pins that
make the widget build and compute (checked by installing the folder's requirements and
calling ``/run/predict``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from vgau_data import safe_io
from vgau_data.errors import VgauError
from vgau_data.metrics import METRIC_NAME, solver_accuracy_path

SPACE_ID = f"vgau/{METRIC_NAME}"
_SPACE_REPO = re.compile(r"(?P<owner>[A-Za-z0-9][A-Za-z0-9._-]{0,95})/(?P<name>[A-Za-z_][A-Za-z0-9_]{0,95})")


def space_url(repo: str = SPACE_ID) -> str:
    """The Space's web address; files of its ``main`` branch are under ``<url>/resolve/main/``.

    Example:
        >>> space_url("alice/solver_accuracy")
        'https://huggingface.co/spaces/alice/solver_accuracy'
    """
    return f"https://huggingface.co/spaces/{repo}"


SPACE_URL = space_url()
RUNTIME_PINS: tuple[str, ...] = ("starlette<1.0", "fastapi<0.100", "pydantic<2")
"""Pins the Space's gradio (the card's ``sdk_version``) needs beside the metric's requirements."""
APP_PY = """from pathlib import Path

import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load(str(Path(__file__).with_name("{script}")))
launch_gradio_widget(module)
"""
SPACE_FILES: tuple[str, ...] = (f"{METRIC_NAME}.py", "README.md", "requirements.txt", "app.py")
"""The files of the ``vgau/solver_accuracy`` Space (a fork's script is named after its repo)."""


class SpaceError(VgauError, RuntimeError):
    """The Space folder cannot be written (no wheel to ship and no requirement given)."""


def source_checkout() -> Path | None:
    """The repository this ``vgau_data`` runs from, when it is a source checkout (editable install)."""
    root = Path(__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").is_file() and (root / "vgau_data").is_dir() else None


def build_wheel(out_dir: Path) -> Path:
    """Build this package's wheel from its source checkout into ``out_dir``.

    The sources are copied to a temporary folder first: setuptools keeps a ``build/``
    folder beside the sources, whose stale files would end up in later wheels.
    """
    root = source_checkout()
    if root is None:
        raise SpaceError(
            "vgau_data is not running from a source checkout, so no wheel can be built; pass --wheel "
            "(a built vgau_data wheel) or --requirement (e.g. 'vgau-data @ git+https://...')"
        )
    with tempfile.TemporaryDirectory(prefix="vgau-wheel-") as tmp:
        staged = Path(tmp) / "src"
        shutil.copytree(root / "vgau_data", staged / "vgau_data", ignore=shutil.ignore_patterns("__pycache__"))
        for name in ("pyproject.toml", "README.md"):
            shutil.copyfile(root / name, staged / name)
        done = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "--wheel-dir", str(out_dir), str(staged)],
            capture_output=True, text=True, check=False,
        )
    wheels = sorted(out_dir.glob("vgau_data-*.whl"))
    if done.returncode != 0 or not wheels:
        raise SpaceError(f"building the vgau_data wheel failed: {done.stderr.strip()[-300:]}")
    return wheels[-1]


def write_metric_space(
    out_dir: str | Path, *, requirement: str | None = None, wheel: str | Path | None = None, repo: str = SPACE_ID
) -> list[Path]:
    """Write the Space files into ``out_dir`` (created; other files there are left alone).

    Args:
        requirement: the pip requirement that installs ``vgau_data`` in the Space; no wheel
            is shipped then.
        wheel: a built ``vgau_data`` wheel to ship (default: built from the source checkout).
        repo: the Space repo id the folder is for (``owner/name``): the shipped wheel's URL,
            the script's file name (``<name>.py``) and the card's ``evaluate.load`` follow it.

    Returns:
        The written paths: the script, ``README.md``, ``requirements.txt``, ``app.py``, then
        the wheel when one is shipped.

    Raises:
        SpaceError: ``repo`` is not ``owner/name`` with ``name`` a Python identifier.
    """
    match = _SPACE_REPO.fullmatch(repo)
    if match is None:
        raise SpaceError(f"--repo must be a Space id OWNER/NAME with NAME a Python identifier, got {repo!r:.120}")
    script = f"{match['name']}.py"
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    source = Path(solver_accuracy_path())
    safe_io.copy_file(source / f"{METRIC_NAME}.py", out / script)
    card = (source / "README.md").read_text(encoding="utf-8")
    safe_io.write_text(out / "README.md", card.replace(f'evaluate.load("{SPACE_ID}")', f'evaluate.load("{repo}")'))
    shipped: list[Path] = []
    if requirement is None:
        for stale in out.glob("vgau_data-*.whl"):
            stale.unlink()
        if wheel is None:
            built = build_wheel(out)
        else:
            built = out / Path(wheel).name
            safe_io.copy_file(wheel, built)
        shipped = [built]
        requirement = f"vgau-data @ {space_url(repo)}/resolve/main/{built.name}"
    lines = (source / "requirements.txt").read_text(encoding="utf-8").splitlines()
    pinned = [requirement if line.strip() == "vgau-data" else line for line in lines]
    safe_io.write_text(out / "requirements.txt", "\n".join([*pinned, *RUNTIME_PINS]) + "\n")
    safe_io.write_text(out / "app.py", APP_PY.format(script=script))
    return [out / name for name in (script, *SPACE_FILES[1:])] + shipped

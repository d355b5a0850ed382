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
``app.py`` is plain gradio, not evaluate's ``launch_gradio_widget``: that widget is written
for gradio 3 (``gr.inputs``/``gr.outputs``, gone since gradio 4), and gradio 3 does not run
on today's Python packaging (no ``pkg_resources`` under setuptools >= 81) nor today's
Starlette. The card's ``sdk_version`` is ``GRADIO_VERSION``, the gradio Hub Spaces run
today; the app answers on gradio's HTTP API at ``/gradio_api/call/compute`` (what
``gradio_client.Client(...).predict(table, api_name="/compute")`` calls). CI boots it in a
fresh venv installed from the requirements (tests/metrics/test_space_boot.py).
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
GRADIO_VERSION = "6.31.0"
"""The gradio the Space runs: the card's ``sdk_version`` (Spaces install it themselves, not from requirements)."""
APP_PY = '''"""The solver_accuracy metric as a gradio app: a table of (prediction, reference) rows in, the scores out."""

from pathlib import Path

import evaluate
import gradio as gr

HERE = Path(__file__).parent
MAX_ROWS = 5000
module = evaluate.load(str(HERE / "{script}"))
card = (HERE / "README.md").read_text(encoding="utf-8").split("---", 2)[-1]


def compute(table):
    """Score the rows that are not blank; one ``reference`` is a row's ``reference_json()``."""
    rows = [[str(cell) for cell in row] for row in table or [] if any(str(cell).strip() for cell in row)]
    if not rows:
        raise gr.Error("give at least one row: a model output and its reference (the row's reference JSON)")
    if len(rows) > MAX_ROWS:
        raise gr.Error(f"at most {{MAX_ROWS}} rows per request, got {{len(rows)}}")
    if any(len(row) != 2 for row in rows):
        raise gr.Error("every row has two cells: prediction, reference")
    return module.compute(predictions=[row[0] for row in rows], references=[row[1] for row in rows])


demo = gr.Interface(
    fn=compute,
    inputs=gr.Dataframe(
        headers=["prediction", "reference"], datatype=["str", "str"], column_count=2,
        row_count=1, type="array", label="model outputs and their references",
    ),
    outputs=gr.JSON(label="{script_name}"),
    title="Metric: {script_name}",
    article=card,
    api_name="compute",
    flagging_mode="never",
)

if __name__ == "__main__":
    demo.launch()
'''
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
    safe_io.write_text(out / "requirements.txt", "\n".join(pinned) + "\n")
    safe_io.write_text(out / "app.py", APP_PY.format(script=script, script_name=match["name"]))
    return [out / name for name in (script, *SPACE_FILES[1:])] + shipped

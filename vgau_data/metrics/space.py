"""The Hub Space folder of the ``solver_accuracy`` evaluate module, ready for upload.

The Space ``vgau/solver_accuracy`` holds the same script as the package data
(``solver_accuracy.py``: file name = Space name, as ``evaluate.load`` requires), the
metric card (``README.md`` with the Space YAML), ``requirements.txt`` (installs
``vgau-data``, whose scorer the script imports) and evaluate's standard gradio
``app.py``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from vgau_data import __version__
from vgau_data.metrics import METRIC_NAME, solver_accuracy_path

SPACE_ID = f"vgau/{METRIC_NAME}"
APP_PY = f"""import evaluate
from evaluate.utils import launch_gradio_widget

module = evaluate.load("{SPACE_ID}")
launch_gradio_widget(module)
"""
SPACE_FILES: tuple[str, ...] = (f"{METRIC_NAME}.py", "README.md", "requirements.txt", "app.py")


def default_requirement() -> str:
    """The pip requirement that installs this version of the scorer in the Space."""
    return f"vgau-data=={__version__}"


def write_metric_space(out_dir: str | Path, *, requirement: str | None = None) -> list[Path]:
    """Write the Space files into ``out_dir`` (created; other files there are left alone).

    Args:
        requirement: the line that installs ``vgau_data`` in the Space (default: this
            version from PyPI; a ``git+https://...`` URL works too).

    Returns:
        The written paths, in ``SPACE_FILES`` order.
    """
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    source = Path(solver_accuracy_path())
    shutil.copyfile(source / f"{METRIC_NAME}.py", out / f"{METRIC_NAME}.py")
    shutil.copyfile(source / "README.md", out / "README.md")
    lines = (source / "requirements.txt").read_text(encoding="utf-8").splitlines()
    wanted = requirement or default_requirement()
    pinned = [wanted if line.strip() == "vgau-data" else line for line in lines]
    (out / "requirements.txt").write_text("\n".join(pinned) + "\n", encoding="utf-8")
    (out / "app.py").write_text(APP_PY, encoding="utf-8")
    return [out / name for name in SPACE_FILES]

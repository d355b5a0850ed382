"""The site builds with ``mkdocs build --strict``, and what it builds fetches nothing from the web.

mkdocs and its Material theme live in a venv of their own, which ``.ci/run`` installs
(``$VGAU_MKDOCS``, see tests/external.py): the test venv does not need them.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from tests.docs.pages import ROOT, nav_pages
from tests.external import require_tool

INSTALL = (
    'python3 -m venv .venv-docs && .venv-docs/bin/pip install -e ".[docs]" (then VGAU_MKDOCS=.venv-docs/bin/mkdocs)'
)


def test_site__builds_strict_and_loads_nothing_from_the_web(tmp_path: Path) -> None:
    mkdocs = require_tool("VGAU_MKDOCS", fallback="mkdocs", install=INSTALL)
    site = tmp_path / "site"
    result = subprocess.run(
        [mkdocs, "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"), "--site-dir", str(site)],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    for name in nav_pages():
        html = (site / name.removesuffix(".md") / "index.html") if name != "index.md" else site / "index.html"
        text = html.read_text(encoding="utf-8")
        remote = re.findall(r'<(?:link|script|img)[^>]+(?:href|src)="(https?:[^"]+)"', text)
        assert not remote, f"{name} loads {remote} from the web"
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text, name

"""The README is the short entry point: CI runs its two commands, its commands parse, its links work."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAX_LINES = 200
"""The README stays an entry point; the details live in docs/ (issue 15)."""


def readme_commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", README, flags=re.S)
    return [line for block in blocks[:2] for line in block.splitlines() if line and not line.startswith("#")]


def test_readme__first_command_installs_and_builds() -> None:
    first = readme_commands()[0]
    assert "pip install ." in first and "vgau-data build --out" in first


def test_readme__ci_runs_the_readme_test_command_verbatim() -> None:
    test_command = readme_commands()[1]
    assert "pytest" in test_command
    assert test_command in (ROOT / ".ci" / "run").read_text().splitlines()


def test_readme__every_documented_vgau_data_command_parses() -> None:
    from tests.docs.pages import vgau_commands
    from vgau_data.cli import build_parser

    parser = build_parser()
    used = {parser.parse_args(shlex.split(command)[1:]).command for command in vgau_commands(README)}
    assert {"build", "push", "score", "baseline", "run", "merge", "diagnose", "convert", "export-training"} <= used


def test_readme__is_short_and_links_to_existing_docs() -> None:
    assert len(README.splitlines()) < MAX_LINES, "move the details into a docs/ page and link it"
    targets = re.findall(r"\]\(([^)\s]+)\)", README)
    local = [target.split("#", 1)[0] for target in targets if not re.match(r"[a-z]+:", target)]
    assert local and all((ROOT / target).is_file() for target in local), local

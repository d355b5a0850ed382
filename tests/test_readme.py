"""The README's two commands are the ones CI runs (so a green CI means the README works)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def readme_commands() -> list[str]:
    blocks = re.findall(r"```bash\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    return [line for block in blocks[:2] for line in block.splitlines() if line and not line.startswith("#")]


def test_readme__first_command_installs_and_builds() -> None:
    first = readme_commands()[0]
    assert "pip install ." in first and "vgau-data build --out" in first


def test_readme__ci_runs_the_readme_test_command_verbatim() -> None:
    test_command = readme_commands()[1]
    assert "pytest" in test_command
    assert test_command in (ROOT / ".ci" / "run").read_text().splitlines()


def test_readme__every_documented_vgau_data_command_parses() -> None:
    import shlex

    from vgau_data.cli import build_parser

    text = (ROOT / "README.md").read_text()
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, flags=re.S):
        for line in block.replace("\\\n", " ").splitlines():
            for match in re.finditer(r"vgau-data [^&;#|]*", line):
                if "..." not in match.group():
                    commands.append(match.group().replace("$i", "0").strip())
    parser = build_parser()
    used = {parser.parse_args(shlex.split(command)[1:]).command for command in commands}
    assert {"build", "push", "score", "baseline", "convert", "run", "merge"} <= used


def test_readme__protocol_lists_are_the_registry() -> None:
    from vgau_data.runners.protocols import budget_variants, protocol_class, protocol_names

    text = (ROOT / "README.md").read_text()
    listed = text[text.index("- `protocol`: one of the registered protocols") :].split("\n- `run`")[0]
    assert re.findall(r"`([a-z_]+)`", listed)[1 : len(budget_variants()) + 1] == budget_variants()
    section = text[text.index("| protocol | what the model gets | turns |") :].split("\n\n")[0]
    table = re.findall(r"^\| `([a-z_]+)` \| (.*?) \|", section, flags=re.MULTILINE)
    assert [name for name, _ in table] == protocol_names()
    assert [summary.replace("`", "") for _, summary in table] == [protocol_class(n).summary for n, _ in table]

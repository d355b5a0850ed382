"""The README's trainer commands, run through each trainer's own loader and parser at its pinned version.

Each command of the README's "Training data and rewards" block is tied, in ``COMMANDS``, to
the test here that runs it, so the two cannot drift apart: the verl command's
``key=value`` arguments are read by verl 0.9.1 (``verl_loader.py`` in its venv), which
loads the reward exactly as written and scores every row of a training export; the
OpenRLHF command's flags are parsed by OpenRLHF 0.11.2's own parser (``openrlhf_flags.py``
in its venv), and the file it names is loaded as its agent loads a ``.py`` reward.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.external import require_tool
from tests.training.conftest import TRAINING_STATES, training_row, write_training_folder
from tests.training.exporters.readers import INSTALL
from vgau_data.registry import FAMILIES
from vgau_data.training.exporters import export_training, get_exporter

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).parent
GARBAGE = ("I think the answer is 7.", "[]", "")


def _block() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("## Training data and rewards") :]
    return section[: section.index("\n## ", 4)]


def _commands() -> dict[str, list[str]]:
    """Each shell command of the block (continuation lines joined), by its program, as its arguments."""
    found: dict[str, list[str]] = {}
    for fence in re.findall(r"```bash\n(.*?)```", _block(), flags=re.DOTALL):
        for command in fence.replace("\\\n", " ").splitlines():
            command = command.split("  #")[0].strip()
            if command.startswith("python3 -m "):
                command = re.sub(SUBSTITUTION, lambda match: _file_of(match.group(1)), command)
                words = shlex.split(command, posix=True)
                found[words[2]] = words[3:]
    return found


SUBSTITUTION = r'"\$\(python -c "import (vgau_data[\w.]+) as m; print\(m\.__file__\)"\)"'
"""The README's shell substitution of a module's file path (what the shell would put there)."""


def _file_of(module: str) -> str:
    return shlex.quote(importlib.util.find_spec(module).origin)


COMMANDS = {
    "verl.trainer.main_ppo": "test_readme_verl_command__loads_with_verls_own_loader_and_pays_every_export_row",
    "openrlhf.cli.train_ppo_ray": "test_readme_openrlhf_command__parses_with_openrlhfs_own_parser_and_loads_the_file",
}
"""Each trainer command of the README, and the test that runs it."""


def test_every_trainer_command_in_the_readme__has_the_test_that_runs_it() -> None:
    assert set(_commands()) == set(COMMANDS)
    for test in COMMANDS.values():
        assert callable(globals().get(test)), test
    assert "GRPOTrainer(" in _block()  # TRL's snippet: tests/rewards/test_learning_signal.py trains with it


@pytest.fixture(scope="module")
def export(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The README's exports of a training folder (one fixed row per family): verl and openrlhf."""
    rows = {family: [training_row(family, state, 0)] for family, state in TRAINING_STATES.items()}  # read in fresh processes
    folder = write_training_folder(tmp_path_factory.mktemp("training") / "train_data", rows, ())
    out = tmp_path_factory.mktemp("exports")
    export_training(folder, get_exporter("verl"), out / "verl_rows", protocol="text_cot", progress=False)
    export_training(folder, get_exporter("openrlhf"), out / "orlhf_rows", progress=False)
    return {"verl": out / "verl_rows", "openrlhf": out / "orlhf_rows"}


INSTALL_HERE = {**INSTALL, "VGAU_VERL_PYTHON": INSTALL["VGAU_VERL_PYTHON"].replace("qwen-vl-utils", "qwen-vl-utils cachetools uvicorn fastapi")}
"""The tool venvs, as ``.ci/run`` installs them (verl's agent loop also imports packages verl does not require)."""


def _run(env_var: str, script: str, out: Path, *args: str) -> dict[str, Any]:
    python = require_tool(env_var, install=INSTALL_HERE[env_var])
    result = subprocess.run([python, str(HERE / script), str(out), *args], capture_output=True, text=True,
                            timeout=600, check=False, cwd=ROOT, env=_env())  # fmt: skip
    assert result.returncode == 0, result.stderr[-3000:]
    return json.loads(out.read_text(encoding="utf-8"))


def _env() -> dict[str, str]:
    """The tool venv's environment, with this checkout importable (a user installs vgau-data beside the trainer)."""
    import os

    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


def test_readme_verl_command__loads_with_verls_own_loader_and_pays_every_export_row(
    export: dict[str, Path], tmp_path: Path
) -> None:
    """verl 0.9.1's ``get_custom_reward_fn`` loads the README's path (and the module's file path), its naive and batch
    managers score every exported row: the oracle answer 1, garbage (text, ``[]``, nothing) 0."""
    overrides = [word for word in _commands()["verl.trainer.main_ppo"] if "=" in word]
    assert "reward.custom_reward_function.path=pkg://vgau_data.rewards.verl" in overrides
    answers = {}
    files = []
    for family, state_json in TRAINING_STATES.items():
        spec = FAMILIES[family]
        (file,) = sorted((export["verl"] / family).glob("train/*.parquet"))
        files.append(str(file))
        row_id = _row_ids(file)[0]
        answers[row_id] = {"oracle": spec.format_answer(spec.solve(spec.from_json(state_json)).answer),
                           **{f"garbage{i}": text for i, text in enumerate(GARBAGE)}}  # fmt: skip
    (tmp_path / "answers.json").write_text(json.dumps(answers), encoding="utf-8")
    (tmp_path / "overrides.json").write_text(json.dumps(overrides), encoding="utf-8")
    read = _run("VGAU_VERL_PYTHON", "verl_loader.py", tmp_path / "out.json", str(tmp_path / "answers.json"),
                str(tmp_path / "overrides.json"), *files)  # fmt: skip
    assert read["problems"] == []
    assert read["readme"]["module"] == "vgau_data.rewards.verl"
    assert read["file"]["module"].startswith("custom_module_")  # a made-up name, not in sys.modules: it loads there too
    for label in ("readme", "file"):
        naive = read[label]["naive"]
        assert len(naive) == len(TRAINING_STATES) * (1 + len(GARBAGE))
        for key, result in naive.items():
            expected = 1.0 if key.endswith("/oracle") else 0.0
            assert result["score"] == expected and result["optimal"] == expected, (label, key, result)
            assert "progress" not in result  # the optimal kind never searches
        assert [result["score"] for result in read[label]["batch"]] == [
            1.0 if i % (1 + len(GARBAGE)) == 0 else 0.0 for i in range(len(naive))]


def _row_ids(file: Path) -> list[str]:
    import pyarrow.parquet as pq

    return [extra["id"] for extra in pq.read_table(file, columns=["extra_info"]).column("extra_info").to_pylist()]


def test_readme_openrlhf_command__parses_with_openrlhfs_own_parser_and_loads_the_file(
    export: dict[str, Path], tmp_path: Path
) -> None:
    """Every flag the README passes is one OpenRLHF 0.11.2's parser takes, reading what the README means; the file
    it reads is what the README's export wrote; the reward file loads as OpenRLHF's agent loads it and pays."""
    import vgau_data.rewards.openrlhf as ours

    arguments = _commands()["openrlhf.cli.train_ppo_ray"]
    read = _run("VGAU_OPENRLHF_PYTHON", "openrlhf_flags.py", tmp_path / "out.json", *arguments)
    assert read["error"] is None, read["error"]
    data = read["read"]["data"]
    assert (data["input_key"], data["label_key"], data["image_key"], data["apply_chat_template"]) == (
        "prompt", "label", "images", True)
    assert read["read"]["remote_url"] == ours.__file__
    relative = Path(data["prompt_dataset"])
    assert relative.parts[0] == "orlhf_rows" and (export["openrlhf"] / relative.relative_to("orlhf_rows")).is_file()
    # OpenRLHF's agent (openrlhf/utils/agent.py, 0.11.2) loads a .py remote_url so, under the name "reward_func":
    spec = importlib.util.spec_from_file_location("reward_func", read["read"]["remote_url"])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    row = json.loads((export["openrlhf"] / relative.relative_to("orlhf_rows")).read_text(encoding="utf-8").splitlines()[0])
    family = json.loads(row["label"])["family"]
    oracle = FAMILIES[family].format_answer(FAMILIES[family].solve(FAMILIES[family].from_json(TRAINING_STATES[family])).answer)
    paid = module.reward_func(["P" + oracle, "P[]"], ["P", "P"], [row["label"]] * 2)
    assert [float(value) for value in paid["rewards"]] == [1.0, 0.0]


def _docs_tools_yaml() -> str:
    """The tool declaration docs/rewards.md prints (its ``# tools.yaml`` block), verbatim."""
    text = (ROOT / "docs" / "rewards.md").read_text(encoding="utf-8")
    (block,) = [fence for fence in re.findall(r"```yaml\n(.*?)```", text, flags=re.DOTALL) if "# tools.yaml" in fence]
    return block


def test_docs_verl_step_tool__loads_through_verls_tool_registry_and_its_episodes_score(
    export: dict[str, Path], tmp_path: Path
) -> None:
    """verl 0.9.1's ``load_all_tools`` builds the tool from the docs' YAML; ``ToolAgentLoop._call_tool`` plays each
    exported row's oracle episode (score 1) and an episode broken after one step (score 0), boards as images."""
    import pyarrow.parquet as pq

    from vgau_data.rewards.verl import TOOL_NAME, multi_turn_extra_info

    episodes, lengths = [], []
    for family in TRAINING_STATES:
        (file,) = sorted((export["verl"] / family).glob("train/*.parquet"))
        row = pq.read_table(file).to_pylist()[0]
        spec, truth = FAMILIES[family], row["reward_model"]["ground_truth"]
        state = spec.from_json(truth)
        moves = [spec.format_step(step) for step in spec.oracle_steps(state, spec.solve(state).answer)]
        extra = multi_turn_extra_info(row["data_source"], truth, dict(row["extra_info"]), protocol="oracle_vcot")
        for played in (moves, [moves[0], "move the red car", *moves[1:]]):
            episodes.append({"data_source": row["data_source"], "ground_truth": truth, "extra_info": extra, "moves": played})
        lengths.append(len(moves))
    (tmp_path / "tools.yaml").write_text(_docs_tools_yaml(), encoding="utf-8")
    (tmp_path / "episodes.json").write_text(json.dumps(episodes), encoding="utf-8")
    read = _run("VGAU_VERL_PYTHON", "verl_tool_loop.py", tmp_path / "out.json", str(tmp_path / "tools.yaml"),
                str(tmp_path / "episodes.json"))  # fmt: skip
    assert read["names"] == [TOOL_NAME] and read["schemas"][0]["function"]["name"] == TOOL_NAME
    for i, length in enumerate(lengths):
        oracle, broken = read["episodes"][2 * i], read["episodes"][2 * i + 1]
        assert oracle["score"]["score"] == 1.0 and broken["score"]["score"] == 0.0, (i, oracle["score"], broken["score"])
        assert all(len(turn["images"]) == 1 for turn in oracle["turns"]), "each step answers with the board after it"
        assert "episode is over" in oracle["turns"][-1]["text"] and len(oracle["turns"]) == length
        assert "could not be read" in broken["turns"][1]["text"]

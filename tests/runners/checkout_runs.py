"""Run a checkout adapter through ``vgau-data run`` on the two easy maze rows, every protocol in which it draws."""

from __future__ import annotations

import json
from pathlib import Path

from vgau_data.cli import main

DRAWING_PROTOCOLS = ("self_gta", "self_vcot", "self_vr")


def run_drawing_protocols(backend: str, checkpoint: Path, backend_args: dict[str, object], dataset_dir: Path,
                          out: Path) -> tuple[Path, dict[str, list[dict]]]:  # fmt: skip
    """The model folder and each protocol variant's records, after a run that must succeed.

    The second row takes two moves, so Self-VCoT draws a next state before its last step.
    """
    args = ["run", "--dataset", str(dataset_dir), "--out", str(out), "--no-progress", "--backend", backend,
            "--model", str(checkpoint), "--protocol", *DRAWING_PROTOCOLS, "--runs", "1", "--families", "maze",
            "--difficulty", "easy", "--limit", "2", "--max-new-tokens", "64"]  # fmt: skip
    for key, value in backend_args.items():
        args += ["--backend-arg", f"{key}={value}"]
    assert main(args) == 0
    (model_dir,) = [p for p in out.iterdir() if p.is_dir()]
    records = {}
    for variant in sorted(p for p in (model_dir / "records").iterdir() if p.is_dir()):
        lines = (variant / "run-0.jsonl").read_text().splitlines()
        header = json.loads(lines[0])
        assert header["backend"]["backend"] == backend and header["images"]["source"] == "self"
        records[variant.name] = [json.loads(line) for line in lines[1:]]
    return model_dir, records

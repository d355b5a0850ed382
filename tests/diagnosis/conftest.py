"""Images written as a run writes them (content-addressed PNGs), and the truths they are judged against."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from vgau_data.diagnosis.fidelity_cache import ImageEntry
from vgau_data.oracle_aids import oracle_image
from vgau_data.registry import get_family
from vgau_data.seeding import instance_seed, rng_for


def save_png(folder: Path, image: Image.Image) -> tuple[Path, str]:
    """``image`` as ``folder/<sha256>.png``; returns the path and the sha256."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    data = buffer.getvalue()
    digest = hashlib.sha256(data).hexdigest()
    path = folder / f"{digest}.png"
    path.write_bytes(data)
    return path, digest


def entry_for(folder: Path, image: Image.Image, family: str, purpose: str, state: object) -> ImageEntry:
    path, digest = save_png(folder, image)
    return ImageEntry(path, digest, family, purpose, get_family(family).to_json(state))


@pytest.fixture(scope="session")
def maze_state() -> object:
    maze = get_family("maze")
    return maze.generate("easy", rng_for(instance_seed(5, "maze", "easy", 0)))


@pytest.fixture
def maze_images(tmp_path: Path, maze_state: object) -> dict[str, ImageEntry]:
    """The oracle aid, a 2-cell perturbed aid and a noise image of one maze, saved as PNGs."""
    maze = get_family("maze")
    perturbed = maze.fidelity.perturb(maze_state, 2, np.random.default_rng(0))
    noise = np.random.default_rng(1).normal(127.5, 64.0, (552, 552, 3)).clip(0, 255).astype(np.uint8)
    return {
        "oracle": entry_for(tmp_path, oracle_image(maze, maze_state, "aid"), "maze", "aid", maze_state),
        "perturbed": entry_for(tmp_path, oracle_image(maze, perturbed, "aid"), "maze", "aid", maze_state),
        "noise": entry_for(tmp_path, Image.fromarray(noise), "maze", "aid", maze_state),
    }


@pytest.fixture(scope="session")
def dataset_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """maze, sokoban and klotski, 2 easy + 1 medium rows each."""
    from vgau_data.builders import build_dataset

    out = tmp_path_factory.mktemp("dataset")
    build_dataset(out, seed=0, families=["maze", "sokoban", "klotski"], counts={"easy": 2, "medium": 1, "hard": 0},
                  workers=1, progress=False)  # fmt: skip
    return out


@pytest.fixture(scope="session")
def runs_dir(dataset_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Scripted oracle and random answerers under Text-CoT, Oracle-GtA and Oracle-VCoT (both budgets)."""
    from vgau_data.cli import main

    out = tmp_path_factory.mktemp("runs")
    for model in ("oracle", "random"):
        code = main(["run", "--backend", "scripted", "--model", model, "--dataset", str(dataset_dir), "--out", str(out),
                     "--protocol", "text_cot", "oracle_gta", "oracle_vcot", "direct", "--budget", "optimal", "fixed",
                     "--no-progress"])  # fmt: skip
        assert code == 0
    return out


@pytest.fixture(scope="module")
def image_runs(dataset_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The scripted oracle's Text-CoT and the scripted oracle generator's Self-GtA on easy maze rows."""
    from vgau_data.cli import main

    out = tmp_path_factory.mktemp("image_runs")
    common = ["--dataset", str(dataset_dir), "--out", str(out), "--difficulty", "easy", "--families", "maze",
              "--runs", "1", "--no-progress"]  # fmt: skip
    assert main(["run", "--backend", "scripted", "--model", "oracle", "--protocol", "text_cot", *common]) == 0
    assert main(["run", "--backend", "scripted-image", "--model", "oracle", "--protocol", "self_gta", *common]) == 0
    return out

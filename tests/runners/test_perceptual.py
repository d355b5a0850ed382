"""LPIPS plumbing: our network reproduces the lpips package on the same (random) weights,
and missing weights fail with a message that names the file.

The expected values were produced by lpips 0.1.4 itself (torchvision 0.28's AlexNet, in a
scratch venv) with ``LPIPS(net="alex", model_path=heads)`` and this trunk loaded into its
slices, on the images of ``tests/fidelity/test_ssim.py``. Random weights: plumbing only,
not the metric.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from tests.fidelity.test_ssim import _pairs
from vgau_data.runners.perceptual import TRUNK_FILE, Lpips, MissingWeightsError

LPIPS_0_1_4 = {
    "maze_perturbed": 0.02600499615073204,
    "maze_prompted_aid": 0.058190733194351196,
    "maze_noise": 0.13837583363056183,
    "onet_perturbed": 0.006587860640138388,
}
SHAPES = {
    "features.0": (64, 3, 11, 11),
    "features.3": (192, 64, 5, 5),
    "features.6": (384, 192, 3, 3),
    "features.8": (256, 384, 3, 3),
    "features.10": (256, 256, 3, 3),
}


@pytest.fixture(scope="module")
def weights(tmp_path_factory) -> tuple[Path, Path]:
    """A seeded random trunk (torchvision's key layout) and random heads, saved as files."""
    generator = torch.Generator().manual_seed(1234)
    trunk = {}
    for name, shape in SHAPES.items():
        fan_in = shape[1] * shape[2] * shape[3]
        trunk[f"{name}.weight"] = torch.randn(shape, generator=generator) / fan_in**0.5
        trunk[f"{name}.bias"] = torch.randn(shape[0], generator=generator) * 0.01
    trunk["classifier.1.weight"] = torch.zeros(4, 9216)
    heads = {
        f"lin{k}.model.1.weight": torch.rand((1, c, 1, 1), generator=generator) * 0.1
        for k, c in enumerate((64, 192, 384, 256, 256))
    }
    folder = tmp_path_factory.mktemp("lpips")
    torch.save(trunk, folder / TRUNK_FILE)
    torch.save(heads, folder / "alex.pth")
    return folder / TRUNK_FILE, folder / "alex.pth"


def test_lpips__matches_the_lpips_package(weights) -> None:
    scorer = Lpips(weights[0], heads_path=weights[1])
    pairs = _pairs()
    got = scorer.distances([pairs[k][0] for k in LPIPS_0_1_4], [pairs[k][1] for k in LPIPS_0_1_4])
    assert got == pytest.approx(list(LPIPS_0_1_4.values()), abs=1e-6)
    image, reference = pairs["maze_prompted_aid"]
    assert scorer.distances([reference], [reference]) == [0.0]
    assert scorer.distances([image.resize((1024, 1024))], [reference])[0] == pytest.approx(
        LPIPS_0_1_4["maze_prompted_aid"], abs=0.02
    )


def test_lpips__records_which_weights(weights) -> None:
    described = Lpips(weights[0], heads_path=weights[1]).describe()
    assert len(described["trunk_sha256"]) == 64 and described["official_trunk"] is False
    assert (described["net"], described["version"]) == ("alex", "0.1")


def test_lpips__missing_trunk_names_the_file(tmp_path, weights) -> None:
    with pytest.raises(MissingWeightsError, match=TRUNK_FILE) as error:
        Lpips(tmp_path / TRUNK_FILE, heads_path=weights[1])
    assert str(tmp_path) in str(error.value) and "nothing is downloaded" in str(error.value)


def test_lpips__wrong_files_are_refused(tmp_path, weights) -> None:
    torch.save({"features.0.weight": torch.zeros(1)}, tmp_path / "bad.pth")
    with pytest.raises(MissingWeightsError, match="not a torchvision AlexNet"):
        Lpips(tmp_path / "bad.pth", heads_path=weights[1])
    with pytest.raises(MissingWeightsError, match="not an lpips alex heads"):
        Lpips(weights[0], heads_path=tmp_path / "bad.pth")
    with pytest.raises(MissingWeightsError, match="does not exist"):
        Lpips(weights[0], heads_path=tmp_path / "none.pth")

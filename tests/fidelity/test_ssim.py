"""SSIM agrees with scikit-image's structural_similarity.

The expected values were computed by scikit-image 0.26.0 (scratch venv, not a project
dependency) as ``structural_similarity(a, b, channel_axis=-1, data_range=255,
gaussian_weights=True, sigma=1.5, use_sample_covariance=False)`` on exactly these images.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from vgau_data.fidelity.ssim import ssim
from vgau_data.oracle_aids import PROMPTED_LOOK, _labelled_layer, oracle_aid
from vgau_data.registry import FAMILIES

SKIMAGE_0_26 = {
    "maze_perturbed": 0.9099632702182334,
    "maze_prompted_aid": 0.48027249551644885,
    "maze_aid": 0.6209495077256074,
    "maze_noise": 0.0118359526614832,
    "onet_perturbed": 0.9507671079112406,
}


def _prompted_aid(board: Image.Image) -> Image.Image:
    """A maze board annotated in ``PROMPTED_LOOK`` (our aids before they followed the authors' code)."""
    colours, coverage = _labelled_layer(FAMILIES["maze"].geometry, PROMPTED_LOOK, None)
    annotated = board.copy()
    annotated.paste(colours, (0, 0), coverage)
    return annotated


def _pairs() -> dict[str, tuple[Image.Image, Image.Image]]:
    maze, onet = FAMILIES["maze"], FAMILIES["onet"]
    board, fruit = maze.fidelity.palette_states()[0], onet.fidelity.palette_states()[0]
    noise = np.random.default_rng(0).normal(128, 64, (552, 552, 3)).clip(0, 255).astype(np.uint8)
    return {
        "maze_perturbed": (maze.render(maze.fidelity.perturb(board, 9, np.random.default_rng(1))), maze.render(board)),
        "maze_prompted_aid": (_prompted_aid(maze.render(board)), maze.render(board)),
        "maze_aid": (oracle_aid(maze, board), maze.render(board)),
        "maze_noise": (Image.fromarray(noise), maze.render(board)),
        "onet_perturbed": (onet.render(onet.fidelity.perturb(fruit, 5, np.random.default_rng(2))), onet.render(fruit)),
    }


@pytest.mark.parametrize("case", list(SKIMAGE_0_26))
def test_ssim__matches_scikit_image(case: str) -> None:
    image, reference = _pairs()[case]
    assert ssim(image, reference) == pytest.approx(SKIMAGE_0_26[case], abs=1e-6)


def test_ssim__identical_is_one_and_resizes_first() -> None:
    maze = FAMILIES["maze"]
    board = maze.render(maze.fidelity.palette_states()[0])
    assert ssim(board, board) == 1.0
    assert ssim(board.resize((1024, 1024), Image.Resampling.BILINEAR), board) > 0.9


def test_ssim__tiny_images_are_refused() -> None:
    with pytest.raises(ValueError, match="larger than 11 px"):
        ssim(Image.new("RGB", (8, 8)), Image.new("RGB", (8, 8)))

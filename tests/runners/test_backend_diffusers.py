"""A tiny diffusers edit pipeline built from random components runs the edit path."""

from __future__ import annotations

import json

import pytest
from PIL import Image

from vgau_data.runners.backends import BackendError, GenParams, ImageRequest, capabilities_of, load_backend
from vgau_data.testing.tiny_generators import build_tiny_edit_pipeline


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return build_tiny_edit_pipeline(tmp_path_factory.mktemp("pix2pix"))


@pytest.fixture(scope="module")
def generator(folder):
    return load_backend("diffusers", model=str(folder), device="cpu", num_inference_steps=1)


def _request(seed: int = 0, images: tuple[Image.Image, ...] | None = None) -> ImageRequest:
    board = Image.new("RGB", (32, 32), (240, 240, 230))
    return ImageRequest(session_id="maze-easy-0000/self_vcot/run0", purpose="next_state", instruction="Move the agent up.",
                        images=(board,) if images is None else images, family="maze", seed=seed)  # fmt: skip


def test_diffusers__edits_the_board(generator) -> None:
    assert capabilities_of(generator) == {"image_edit"}
    made = generator.generate([_request(), _request(seed=1)], GenParams())
    assert all(image.ok for image in made)
    assert made[0].image.mode == "RGB" and made[0].image.size == (32, 32)
    again = generator.generate([_request()], GenParams())[0]
    assert again.image.tobytes() == made[0].image.tobytes() != made[1].image.tobytes()


def test_diffusers__a_request_without_a_board_fails_as_a_value(generator) -> None:
    failed = generator.generate([_request(images=())], GenParams())[0]
    assert not failed.ok and "needs the board" in failed.error


def test_diffusers__describes_the_pipeline_and_fingerprints_the_folder(generator, folder) -> None:
    described = generator.describe()
    assert described["pipeline"] == "StableDiffusionInstructPix2PixPipeline"
    assert described["call_options"] == {"num_inference_steps": 1}
    assert generator.fingerprint() == load_backend("diffusers", model=str(folder), device="cpu").fingerprint()


def test_diffusers__refuses_bad_folders_and_options(tmp_path, folder) -> None:
    with pytest.raises(BackendError, match="model_index.json"):
        load_backend("diffusers", model=str(tmp_path))
    with pytest.raises(BackendError, match="takes no true_cfg_scale"):
        load_backend("diffusers", model=str(folder), device="cpu", true_cfg_scale=4.0)
    assert json.loads((folder / "model_index.json").read_text())["_class_name"] == "StableDiffusionInstructPix2PixPipeline"


def test_diffusers__pairs_with_a_chat_model(folder) -> None:
    pair = load_backend("pair", generator="diffusers", generator_model=str(folder),
                        generator_options={"device": "cpu", "num_inference_steps": 1},
                        answerer="scripted", answerer_options={"fn": lambda conversation: "up", "policy": "up"})  # fmt: skip
    assert capabilities_of(pair) == {"chat", "image_edit"}
    assert pair.generate([_request()], GenParams())[0].ok

"""The Show-o2 adapter against a stand-in ``show-o2`` folder that mimics its scripts' parts (commit 45a5a2d)."""

from __future__ import annotations

import json
import sys

import pytest
from PIL import Image

from tests.runners.fake_checkouts import showo2 as fake
from vgau_data.cli import main
from vgau_data.runners.backends import BackendError, GenParams, ImageRequest, capabilities_of, load_backend
from vgau_data.runners.backends.base import image_limit
from vgau_data.runners.messages import Conversation, assistant, user

CHECKOUT_MODULES = ("models", "utils", "transport")


def _forget_checkout_modules() -> None:
    for name in [m for m in sys.modules if m.split(".")[0] in CHECKOUT_MODULES]:
        del sys.modules[name]


@pytest.fixture
def checkout(tmp_path, monkeypatch):
    """A fake Show-o clone, a checkpoint naming local Qwen2.5 / SigLIP folders; sys.path and modules restored."""
    monkeypatch.setattr(sys, "path", list(sys.path))
    for name in [m for m in sys.modules if m.split(".")[0] in CHECKOUT_MODULES]:
        monkeypatch.delitem(sys.modules, name)
    llm, siglip = fake.write_side_models(tmp_path / "side")
    repo = fake.write(tmp_path / "Show-o")
    checkpoint = fake.write_checkpoint(tmp_path / "show-o2-7B", llm=str(llm), siglip=str(siglip))
    yield repo, checkpoint
    _forget_checkout_modules()


def _load(repo, checkpoint, **options):
    return load_backend("showo2", model=str(checkpoint), repo=str(repo), device="cpu", **options)


def _calls(module: str) -> list:
    return sys.modules[module].CALLS


def test_showo2__loads_as_the_demo_scripts_do(checkout) -> None:
    repo, checkpoint = checkout
    model = _load(repo, checkpoint)
    assert capabilities_of(model) == {"chat", "text_to_image"} and image_limit(model) == 1
    llm, siglip = (
        str(checkpoint.parent / "side" / name) for name in ("Qwen2.5-7B-Instruct", "siglip-so400m-patch14-384")
    )
    assert _calls("models.modeling_showo2_qwen2_5") == [("from_pretrained", str(checkpoint), False, llm, siglip)]
    assert _calls("models.misc")[0] == ("get_text_tokenizer", llm, True, "qwen2_5")
    assert _calls("models.wan21_vae") == [("WanVAE", str(repo / "show-o2" / "Wan2.1_VAE.pth"), "torch.bfloat16", "cpu")]
    assert _calls("transport")[0] == ("create_transport", "Linear", "lognorm", True, 5), "4 image tokens + time"
    described = model.describe()
    assert described["resolution"] == 16 and described["image_settings"] == {
        "guidance_scale": 7.5,
        "num_inference_steps": 50,
    }
    # and the checkout's ``datasets`` package, whose __init__ cannot import here, was never imported


def test_showo2__answers_about_the_last_image_in_the_scripts_layout(checkout) -> None:
    repo, checkpoint = checkout
    model = _load(repo, checkpoint, dtype="float32")
    first, last = Image.new("RGB", (24, 16), (255, 0, 0)), Image.new("RGB", (16, 16), (0, 0, 255))
    conversation = Conversation((user(first, "Solve the maze."), assistant("Drawn."), user(last, "Answer now.")))
    answer = model.chat([conversation], GenParams(max_new_tokens=99))[0]
    assert answer.text == fake.REPLY and answer.finish_reason == "stop"
    assert answer.completion_tokens == len(fake.REPLY) + 1
    _, embeds, mask, budget, top_k = _calls("models.modeling_showo2_qwen2_5")[-1]
    assert budget == 99 and top_k == 1, "greedy is top_k=1, as inference_mmu.py"

    tokenizer = model.tokenizer
    head = [model.hyper["bos_id"], *tokenizer("system\nYou are a helpful assistant.<|im_end|>")["input_ids"],
            *tokenizer("\n<|im_start|>user\n")["input_ids"]]  # fmt: skip
    question = tokenizer("Solve the maze.\n\nDrawn.\n\nAnswer now.\n<|im_start|>assistant\n")["input_ids"]
    image_tokens = 5  # the time embedding and 2x2 patches
    assert embeds.shape[1] == len(head) + 1 + image_tokens + 1 + len(question)
    boi = len(head)
    embed = model.model.showo.model.embed_tokens.weight
    assert embeds[0, boi].equal(embed[model.hyper["boi_id"]]) and embeds[0, boi + 1 + image_tokens].equal(
        embed[model.hyper["eoi_id"]]
    )
    allowed = mask[0, 0] == 0
    assert allowed[boi + 2, boi + 5] and not allowed[boi + 2, boi + 6 + 1], (
        "the image block sees itself, not the text after"
    )
    assert not allowed[boi, boi + 1], "text before the image is causal"
    assert allowed[boi + 2, boi + 6] and not allowed[boi + 1, boi + 2], (
        "inference_mmu.py's span: one past the time embedding"
    )

    other = Conversation((user(first, "Solve the maze."), assistant("Drawn."), user(first, "Answer now.")))
    model.chat([other], GenParams(max_new_tokens=99))
    changed = _calls("models.modeling_showo2_qwen2_5")[-1][1]
    assert not changed[0, boi + 2].equal(embeds[0, boi + 2]), "the image that reaches the model is the last one"


def test_showo2__a_text_only_conversation_and_the_token_budget(checkout) -> None:
    repo, checkpoint = checkout
    model = _load(repo, checkpoint)
    answer = model.chat([Conversation((user("Hello."),))], GenParams(max_new_tokens=3))[0]
    assert answer.text == fake.REPLY[:3] and answer.finish_reason == "length"
    mask = _calls("models.modeling_showo2_qwen2_5")[-1][2]
    assert (mask[0, 0] == 0).equal(mask.new_ones(mask.shape[-2:]).tril().bool()), "no image: causal throughout"


def test_showo2__draws_from_text_with_guidance_and_seeds(checkout) -> None:
    repo, checkpoint = checkout
    model = _load(repo, checkpoint, num_inference_steps=3)
    board = Image.new("RGB", (16, 16))
    requests = [
        ImageRequest(session_id="maze-easy-0000/self_gta/run0", purpose="aid", instruction="Add a red grid.",
                     images=(board,), seed=1),
        ImageRequest(session_id="maze-easy-0001/self_gta/run0", purpose="aid", instruction="Add a red grid.",
                     images=(board,), conversation=Conversation((user(board, "Solve it."), assistant("Grid first."))),
                     seed=2),
    ]  # fmt: skip
    made = model.generate(requests, GenParams())
    assert all(m.ok and m.image.size == (16, 16) and m.image.mode == "RGB" for m in made)
    assert [m.meta["seed"] for m in made] == [1, 2]
    prompts = [call for call in _calls("models.misc") if call[0] == "prepare_gen_input"][-1][1]
    assert prompts == ["Add a red grid.", "Solve it.\n\nGrid first.\n\nAdd a red grid."], (
        "text only: the board is dropped"
    )
    assert ("sample_ode", "euler", 3, False, 3.0) in _calls("transport")
    assert _calls("models.modeling_showo2_qwen2_5")[-1] == ("t2i_generate", 4, 7.5), "each prompt and its empty twin"
    again = model.generate(requests[:1], GenParams())[0]
    assert again.image.tobytes() == made[0].image.tobytes(), "same seed, same bytes"
    reseeded = model.generate(requests[:1], GenParams(seed=9))[0]
    assert reseeded.image.tobytes() != made[0].image.tobytes()


def test_showo2__a_long_prompt_keeps_its_instruction(checkout) -> None:
    repo, checkpoint = checkout
    model = _load(repo, checkpoint, guidance_scale=0.0, num_inference_steps=1)
    long = Conversation((user("x" * 500),))
    request = ImageRequest(session_id="s", purpose="aid", instruction="Draw the grid.", conversation=long)
    prompt = model.image_prompt(request)
    assert prompt.endswith("\n\nDraw the grid.") and len(prompt) == model.hyper["max_text_len"] == 87
    assert model.generate([request], GenParams())[0].ok
    assert _calls("models.modeling_showo2_qwen2_5")[-1] == ("t2i_generate", 1, 0.0), "no guidance: no empty twin"


def test_showo2__names_what_is_missing(checkout, tmp_path) -> None:
    repo, checkpoint = checkout
    with pytest.raises(BackendError, match="missing config.json"):
        _load(repo, tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "config.json").write_text("{}")
    with pytest.raises(BackendError, match=r"missing pytorch_model\*\.bin"):
        _load(repo, tmp_path / "empty")
    with pytest.raises(
        BackendError, match="not a checkout of showlab/Show-o .*missing models/modeling_showo2_qwen2_5.py"
    ):
        _load(tmp_path, checkpoint)
    with pytest.raises(BackendError, match="missing the Wan2.1 VAE weights .*nope.pth"):
        _load(repo, checkpoint, vae=str(tmp_path / "nope.pth"))
    with pytest.raises(BackendError, match="missing the Show-o2 config .*showo2_1.5b_demo_512x512.yaml"):
        _load(repo, checkpoint, config="configs/showo2_1.5b_demo_512x512.yaml")
    released = fake.write_checkpoint(tmp_path / "released")  # names Hub ids, as the published config.json does
    with pytest.raises(
        BackendError, match="names 'Qwen/Qwen2.5-7B-Instruct' as its llm model, which is not a local folder"
    ):
        _load(repo, released)
    with pytest.raises(BackendError, match="not a local llm folder: missing config.json, tokenizer_config.json"):
        _load(repo, released, llm=str(tmp_path))
    with pytest.raises(BackendError, match="dtype must be one of"):
        _load(repo, checkpoint, dtype="int8")


def test_showo2__a_clashing_module_is_refused(checkout, tmp_path, monkeypatch) -> None:
    repo, checkpoint = checkout
    other = tmp_path / "elsewhere"
    (other / "utils.py").parent.mkdir()
    (other / "utils.py").write_text("OmegaConf = None\n")
    monkeypatch.syspath_prepend(str(other))
    import utils  # noqa: F401  (another project's ``utils``, imported first)

    with pytest.raises(BackendError, match="'utils' is already imported from .*elsewhere"):
        _load(repo, checkpoint)


def test_showo2__fingerprint_follows_the_weights_and_the_config(checkout) -> None:
    repo, checkpoint = checkout
    first = _load(repo, checkpoint).fingerprint()
    config = repo / "show-o2" / "configs" / "showo2_7b_demo_432x432.yaml"
    config.write_text(config.read_text().replace("time_shifting_factor: 3.0", "time_shifting_factor: 2.0"))
    second = _load(repo, checkpoint).fingerprint()
    (checkpoint / "pytorch_model.bin").write_bytes(b"other weights")
    assert len({first, second, _load(repo, checkpoint).fingerprint()}) == 3


def test_showo2__vgau_data_run_completes_self_gta(checkout, dataset_dir, tmp_path, capsys) -> None:
    repo, checkpoint = checkout
    out = tmp_path / "runs"
    args = ["run", "--dataset", str(dataset_dir), "--out", str(out), "--no-progress", "--backend", "showo2",
            "--model", str(checkpoint), "--backend-arg", f"repo={repo}", "--backend-arg", "num_inference_steps=2",
            "--device", "cpu", "--protocol", "self_gta", "--runs", "1", "--families", "maze", "--limit", "1"]  # fmt: skip
    assert main(args) == 0
    assert "self_gta -> self_gta_last1" in capsys.readouterr().err, "one image per request"
    (model_dir,) = [p for p in out.iterdir() if p.is_dir()]
    assert model_dir.name.startswith("show-o2-7B-")
    lines = (model_dir / "records" / "self_gta_last1" / "run-0.jsonl").read_text().splitlines()
    header, (record,) = json.loads(lines[0]), [json.loads(line) for line in lines[1:]]
    assert header["backend"]["backend"] == "showo2" and header["images"]["source"] == "self"
    assert record["end"] == "answered" and record["turns"][-1]["text"] == fake.REPLY and record["verdict"]["parsed"]
    (drawing,) = record["images"]
    assert drawing["purpose"] == "aid" and drawing["size"] == [16, 16]
    assert (model_dir / "images" / drawing["sha256"][:2] / f"{drawing['sha256']}.png").is_file()
    prompt = [c for c in sys.modules["models.misc"].CALLS if c[0] == "prepare_gen_input"][-1][1][0]
    assert prompt.endswith(drawing["instruction"][-40:]), "the instruction survives the prompt limit"
    assert "self_gta_last1" in next(iter(json.loads((model_dir / "results.json").read_text()).values()))

"""A stand-in for the ``show-o2`` folder of a showlab/Show-o checkout (commit 45a5a2d): the
modules, classes and functions the ``showo2`` backend calls, with the same import paths,
names and signatures, built from tiny torch layers, recording what they get.

Sizes are shrunk (16x16 pixels, a 4x downsampling VAE, 2x2 patches: 4 image tokens, plus
one for the time embedding); the token layout, masks, guidance batching and decoding
follow the real code. ``datasets/__init__.py`` imports training code that is absent, as
the real one needs a training environment, so only ``datasets/utils.py`` may be loaded.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.runners.fake_checkouts import write_files

REPLY = '<ANSWER_JSON>["up"]</ANSWER_JSON>'

FILES = {
    "inference_mmu.py": "# the understanding demo script (not imported by the backend)\n",
    "inference_t2i.py": "# the text-to-image demo script (not imported by the backend)\n",
    "configs/showo2_7b_demo_432x432.yaml": """
model:
    weight_type: "bfloat16"
    vae_model:
        type: "wan21"
        pretrained_model_path: "Wan2.1_VAE.pth"
    showo:
        load_from_showo: True
        image_latent_dim: 4
        image_latent_height: 2
        image_latent_width: 2
        patch_size: 2
        add_time_embeds: True
dataset:
    preprocessing:
        max_seq_length: 96
        resolution: 16
        num_t2i_image_tokens: 4
        num_mmu_image_tokens: 4
        num_video_tokens: 20
        latent_height: ${model.showo.image_latent_height}
        latent_width: ${model.showo.image_latent_width}
transport:
    path_type: "Linear"
    prediction: "velocity"
    loss_weight: null
    train_eps: null
    sample_eps: null
    snr_type: "lognorm"
    sampling_method: "euler"
    guidance_scale: 5.0
    num_inference_steps: 50
    atol: 1e-6
    rtol: 1e-3
    reverse: False
    do_shift: True
    time_shifting_factor: 3.0
""",
    "utils.py": """
import numpy as np
import torch
from omegaconf import DictConfig, ListConfig, OmegaConf


def denorm(images):
    images = ((images + 1.0) / 2.0).clamp(0.0, 1.0).float() * 255.0
    return images.permute(0, 2, 3, 1).cpu().numpy().astype(np.uint8)


def get_hyper_params(config, text_tokenizer, showo_token_ids, is_video=False, is_hq=False):
    pre = config.dataset.preprocessing
    max_seq_len = pre.max_seq_length
    max_text_len = max_seq_len - pre.num_t2i_image_tokens - 4
    ids = showo_token_ids
    return (pre.num_t2i_image_tokens, pre.num_mmu_image_tokens, pre.num_video_tokens, max_seq_len, max_text_len,
            config.model.showo.image_latent_dim, config.model.showo.patch_size, pre.latent_width, pre.latent_height,
            text_tokenizer.pad_token_id, ids["bos_id"], ids["eos_id"], ids["boi_id"], ids["eoi_id"], ids["bov_id"],
            ids["eov_id"], ids["img_pad_id"], ids["vid_pad_id"], config.transport.guidance_scale)
""",
    "datasets/__init__.py": "from .mixed_dataloader import MixedDataLoader  # training code, absent here\n",
    "datasets/utils.py": """
import numpy as np
import torch
from PIL import Image


def image_transform(image, resolution=256, normalize=True, mean=[0.5, 0.5, 0.5], std=[0.5, 0.5, 0.5],
                    y0_centercrop=False):
    scale = resolution / min(image.size)
    width, height = max(resolution, round(image.width * scale)), max(resolution, round(image.height * scale))
    image = image.resize((width, height), Image.BICUBIC)
    left, top = (width - resolution) // 2, (height - resolution) // 2
    image = image.crop((left, top, left + resolution, top + resolution))
    pixels = torch.from_numpy(np.asarray(image, dtype=np.float32) / 255.0).permute(2, 0, 1)
    if normalize:
        pixels = (pixels - torch.tensor(mean).view(3, 1, 1)) / torch.tensor(std).view(3, 1, 1)
    return pixels
""",
    "transport/__init__.py": """
import torch

CALLS = []


def create_transport(path_type="Linear", prediction="velocity", loss_weight=None, train_eps=None, sample_eps=None,
                     snr_type="uniform", do_shift=True, seq_len=1024):
    CALLS.append(("create_transport", path_type, snr_type, do_shift, seq_len))
    return {"seq_len": seq_len}


class Sampler:
    def __init__(self, transport):
        self.transport = transport

    def sample_ode(self, *, sampling_method="dopri5", num_steps=50, atol=1e-6, rtol=1e-3, reverse=False,
                   do_shift=False, time_shifting_factor=None):
        CALLS.append(("sample_ode", sampling_method, num_steps, reverse, time_shifting_factor))

        def sample(x, model, **model_kwargs):  # Euler from noise (t=0) to data (t=1)
            states = [x]
            for step in range(num_steps):
                t = torch.full((x.shape[0],), step / num_steps)
                x = x + model(x, t, **model_kwargs) / num_steps
                states.append(x)
            return states

        return sample
""",
    "models/__init__.py": """
from .modeling_showo2_qwen2_5 import Showo2Qwen2_5
from .omni_attention import omni_attn_mask_naive
from .wan21_vae import WanVAE
""",
    "models/omni_attention.py": """
import torch


def omni_attn_mask_naive(B, LEN, modalities, device, inverted=True):
    allowed = torch.tril(torch.ones((B, 1, LEN, LEN), dtype=torch.long)).to(device)
    for b in range(B):
        for offset, length in modalities[b]:
            allowed[b, :, offset:offset + length, offset:offset + length] = 1
    if not inverted:
        return allowed
    return (1 - allowed).masked_fill((1 - allowed).bool(), torch.iinfo(torch.long).min)
""",
    "models/wan21_vae.py": '''
import torch
import torch.nn.functional as F

CALLS = []


class WanVAE:
    """Latents are 4x smaller, with a fourth channel; ``sample`` draws from a narrow posterior."""

    def __init__(self, z_dim=16, vae_pth="", dtype=torch.float, device="cuda"):
        CALLS.append(("WanVAE", vae_pth, str(dtype), device))
        self.dtype, self.device = dtype, device

    def sample(self, videos, deterministic=False, return_features=False):
        assert videos.dim() == 5 and videos.shape[2] == 1, videos.shape
        pooled = F.avg_pool3d(videos.float(), (1, 4, 4))
        latents = torch.cat([pooled, pooled.mean(dim=1, keepdim=True)], dim=1)
        return latents if deterministic else latents + 0.01 * torch.randn_like(latents)

    def batch_decode(self, zs):
        pixels = zs[:, :3].float().repeat_interleave(4, dim=3).repeat_interleave(4, dim=4)
        return pixels.clamp(-1, 1)
''',
    "models/misc.py": '''
import re

import torch

CALLS = []
SPECIAL = ["<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>", "<|video_pad|>",
           "[PAD]", "<image>", "<|vid_start|>", "<|vid_end|>"]


class _Encoding(dict):
    __getattr__ = dict.__getitem__


class CharTokenizer:
    """One id per character (code point mod 256), special tokens from 256."""

    def __init__(self):
        self.vocab = {token: 256 + i for i, token in enumerate(SPECIAL)}
        self.eos_token_id = self.vocab["<|im_end|>"]
        self.pad_token_id = self.vocab["[PAD]"]

    def __len__(self):
        return 256 + len(SPECIAL)

    def get_vocab(self):
        return dict(self.vocab)

    def __call__(self, text, add_special_tokens=True):
        ids = []
        for piece in re.split("(" + "|".join(map(re.escape, SPECIAL)) + ")", text):
            ids += [self.vocab[piece]] if piece in self.vocab else [ord(c) % 256 for c in piece]
        return _Encoding(input_ids=ids)

    def decode(self, ids, skip_special_tokens=False):
        names = {i: token for token, i in self.vocab.items()}
        return "".join(("" if skip_special_tokens else names[i]) if i >= 256 else chr(i) for i in map(int, ids))

    def batch_decode(self, rows, skip_special_tokens=False):
        return [self.decode(row, skip_special_tokens) for row in rows]


def get_text_tokenizer(model_path, add_showo_tokens=True, return_showo_token_ids=False, llm_name="qwen2_5"):
    CALLS.append(("get_text_tokenizer", model_path, add_showo_tokens, llm_name))
    if llm_name != "qwen2_5":
        raise NotImplementedError(llm_name)
    tokenizer = CharTokenizer()
    vocab = tokenizer.get_vocab()
    ids = {"bos_id": vocab["<|im_start|>"], "eos_id": tokenizer.eos_token_id, "boi_id": vocab["<|vision_start|>"],
           "eoi_id": vocab["<|vision_end|>"], "bov_id": vocab["<|vid_start|>"], "eov_id": vocab["<|vid_end|>"],
           "img_pad_id": vocab["<|image_pad|>"], "vid_pad_id": vocab["<|video_pad|>"], "img_id": vocab["<image>"]}
    return (tokenizer, ids) if return_showo_token_ids else tokenizer


def prepare_gen_input(prompts, text_tokenizer, num_image_tokens, bos_id, eos_id, boi_id, eoi_id, pad_id, img_pad_id,
                      max_text_len, device):
    CALLS.append(("prepare_gen_input", list(prompts), num_image_tokens, max_text_len))

    def layout(text_ids):
        row = [bos_id, *text_ids, boi_id, *[img_pad_id] * num_image_tokens, eoi_id, eos_id]
        return torch.tensor(row + [pad_id] * (max_text_len - len(text_ids))), torch.tensor([[len(text_ids) + 2, num_image_tokens]])

    rows = [layout(text_tokenizer(p, add_special_tokens=False)["input_ids"][:max_text_len]) for p in prompts]
    nulls = [layout([]) for _ in prompts]
    stack = lambda pairs, i: torch.stack([pair[i] for pair in pairs]).to(device)
    return stack(rows, 0), stack(nulls, 0), stack(rows, 1), stack(nulls, 1)
''',
    "models/modeling_showo2_qwen2_5.py": """
import json
import os

import torch
from torch import nn

CALLS = []


class PatchEmbed(nn.Module):
    def __init__(self, in_chans, embed_dim, patch_size=2):
        super().__init__()
        self.proj = nn.Conv2d(in_chans, embed_dim, patch_size, stride=patch_size)

    def forward(self, x):
        return self.proj(x).flatten(2).transpose(1, 2)


class _Encoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.layer = nn.Linear(dim, dim)

    def forward(self, x):
        return {"last_hidden_state": self.layer(x)}


class _TimeEmbedder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.mlp = nn.Linear(1, dim)

    def forward(self, t, dtype):
        return self.mlp(t.to(dtype).unsqueeze(-1))


class _Language(nn.Module):
    def __init__(self, vocab, hidden):
        super().__init__()
        self.model = nn.Module()
        self.model.embed_tokens = nn.Embedding(vocab, hidden)


class Showo2Qwen2_5(nn.Module):
    def __init__(self, llm_vocab_size=266, llm_model_path="", image_latent_dim=4, image_latent_height=2,
                 image_latent_width=2, patch_size=2, hidden_size=8, clip_latent_dim=6, reply="",
                 clip_pretrained_model_path="", **kwargs):
        super().__init__()
        for path in (llm_model_path, clip_pretrained_model_path):  # the real one loads both with from_pretrained
            if not os.path.isdir(path):
                raise OSError(f"{path} is not a local folder (offline)")
        self.reply = reply
        self.showo = _Language(llm_vocab_size, hidden_size)
        self.image_embedder_und = PatchEmbed(image_latent_dim, clip_latent_dim, patch_size)
        self.image_embedder_gen = PatchEmbed(image_latent_dim, hidden_size, patch_size)
        self.position_embedding = nn.Embedding(image_latent_height * image_latent_width, clip_latent_dim)
        self.und_trans = _Encoder(clip_latent_dim)
        self.register_buffer("image_position_ids", torch.arange(image_latent_height * image_latent_width)[None],
                             persistent=False)
        self.fusion_proj = nn.Linear(clip_latent_dim + hidden_size, hidden_size)
        self.time_embed = _TimeEmbedder(6)
        self.time_embed_proj = nn.Linear(6, hidden_size)

    @classmethod
    def from_pretrained(cls, pretrained_model_name_or_path, use_safetensors=None, **kwargs):
        with open(os.path.join(pretrained_model_name_or_path, "config.json")) as handle:
            config = {k: v for k, v in json.load(handle).items() if not k.startswith("_")}
        config.update(kwargs)
        CALLS.append(("from_pretrained", pretrained_model_name_or_path, use_safetensors,
                      config["llm_model_path"], config["clip_pretrained_model_path"]))
        torch.manual_seed(0)
        return cls(**config)

    @torch.no_grad()
    def t2i_generate(self, image_latents=None, t=None, text_tokens=None, attention_mask=None, modality_positions=None,
                     first_frame_as_cond=False, only_denoise_last_image=False, max_seq_len=None, guidance_scale=0.0,
                     **kwargs):
        batch = text_tokens.shape[0]
        assert text_tokens.shape == (batch, max_seq_len) and attention_mask.shape == (batch, 1, max_seq_len, max_seq_len)
        assert image_latents.shape[0] == batch and t.shape == (batch,)
        target = torch.tanh(self.showo.model.embed_tokens(text_tokens).mean(dim=(1, 2)))
        v = target.view(-1, 1, 1, 1) - image_latents.float()
        CALLS.append(("t2i_generate", batch, guidance_scale))
        if guidance_scale > 0.0:
            v_cond, v_uncond = torch.chunk(v, 2)
            v = v_uncond + guidance_scale * (v_cond - v_uncond)
            return torch.cat([v, v], dim=0)
        return v

    @torch.no_grad()
    def mmu_generate(self, input_embeds=None, attention_mask=None, max_new_tokens=100, temperature=1.0, top_k=None,
                     eos_token=None):
        length = input_embeds.shape[1]
        assert input_embeds.shape[0] == 1 and attention_mask.shape == (1, 1, length, length)
        CALLS.append(("mmu_generate", input_embeds.clone(), attention_mask.clone(), max_new_tokens, top_k))
        tokens = [torch.tensor(ord(c)) for c in self.reply] + [torch.tensor(eos_token)]
        return tokens[:max_new_tokens]
""",
}


def write(folder: Path) -> Path:
    """The ``show-o2`` folder inside a Show-o clone at ``folder``, with a VAE file where the README puts it."""
    write_files(folder / "show-o2", FILES)
    (folder / "show-o2" / "Wan2.1_VAE.pth").write_bytes(b"vae weights")
    return folder


def write_checkpoint(folder: Path, llm: str = "Qwen/Qwen2.5-7B-Instruct",
                     siglip: str = "google/siglip-so400m-patch14-384", reply: str = REPLY) -> Path:  # fmt: skip
    """A checkpoint folder whose config names ``llm`` and ``siglip`` (Hub ids, as released, by default)."""
    folder.mkdir(parents=True, exist_ok=True)
    config = {"_class_name": "Showo2Qwen2_5", "llm_model_path": llm, "clip_pretrained_model_path": siglip,
              "hidden_size": 8, "reply": reply}  # fmt: skip
    (folder / "config.json").write_text(json.dumps(config))
    (folder / "pytorch_model.bin").write_bytes(b"weights")
    return folder


def write_side_models(folder: Path) -> tuple[Path, Path]:
    """Local Qwen2.5 and SigLIP folders (their config and tokenizer files)."""
    llm, siglip = folder / "Qwen2.5-7B-Instruct", folder / "siglip-so400m-patch14-384"
    write_files(llm, {"config.json": "{}", "tokenizer_config.json": "{}"})
    write_files(siglip, {"config.json": "{}"})
    return llm, siglip

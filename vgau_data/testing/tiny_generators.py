"""Tiny random image-generating models, built offline, for tests and benchmarks.

- ``build_tiny_janus(out_dir)``: a Janus (transformers' native ``JanusForConditionalGeneration``)
  of a few hundred thousand parameters, with its processor, saved so that the Janus
  backend's real ``from_pretrained(dir)`` path loads it. 16 image tokens decode to an
  8x8 image.
- ``build_tiny_edit_pipeline(out_dir)``: a diffusers ``StableDiffusionInstructPix2PixPipeline``
  (an image-edit pipeline) from random components, saved the same way.

The images are noise (random weights); they exercise the generation plumbing only.
Needs torch and transformers (and diffusers for the pipeline), imported when called.
"""

from __future__ import annotations

from pathlib import Path

from vgau_data.runners.backends.base import require
from vgau_data.testing.tiny_models import TINY_TEXT_CONFIG, tiny_tokenizer

JANUS_SPECIAL_TOKENS: tuple[str, ...] = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<image_placeholder>",
    "<begin_of_image>",
    "<end_of_image>",
    "<pad>",
)
JANUS_CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}<image_placeholder>{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
"""ChatML with Janus's image placeholder (the real checkpoints ship their own template)."""


def build_tiny_janus(out_dir: str | Path, *, seed: int = 0) -> Path:
    """Build, save and return the folder of a tiny random Janus (understanding and generation)."""
    torch = require("torch", "hf")
    transformers = require("transformers", "hf")
    from transformers.models.janus.image_processing_pil_janus import JanusImageProcessorPil

    out = Path(out_dir)
    tokenizer = tiny_tokenizer(
        transformers,
        JANUS_SPECIAL_TOKENS,
        chat_template=JANUS_CHAT_TEMPLATE,
        bos_token="<|endoftext|>",
        pad_token="<pad>",
        extra_special_tokens={"image_token": "<image_placeholder>", "boi_token": "<begin_of_image>", "eoi_token": "<end_of_image>"},
    )
    ids = {token: tokenizer.convert_tokens_to_ids(token) for token in JANUS_SPECIAL_TOKENS}
    text = {
        "model_type": "llama",
        "vocab_size": len(tokenizer),
        **TINY_TEXT_CONFIG,
        "bos_token_id": ids["<|endoftext|>"],
        "eos_token_id": ids["<|im_end|>"],
        "pad_token_id": ids["<pad>"],
    }
    vision = {
        "hidden_size": 32,
        "num_hidden_layers": 1,
        "num_attention_heads": 2,
        "image_size": 32,
        "patch_size": 8,
        "projection_dim": 64,
        "depth": 1,
        "num_image_tokens": 16,
        "mlp_ratio": 2,
    }
    vq = {  # channel counts are multiples of 32 (GroupNorm)
        "embed_dim": 8,
        "num_embeddings": 32,
        "latent_channels": 32,
        "base_channels": 32,
        "channel_multiplier": [1, 1],
        "num_res_blocks": 1,
        "num_patches": 4,
        "projection_dim": 64,
        "image_token_embed_dim": 64,
        "num_hidden_layers": 1,
    }
    config = transformers.JanusConfig(
        text_config=text, vision_config=vision, vq_config=vq, image_token_id=ids["<image_placeholder>"]
    )
    torch.manual_seed(seed)
    model = transformers.JanusForConditionalGeneration(config).eval()
    model.generation_config.generation_kwargs = {"boi_token_id": ids["<begin_of_image>"]}
    model.generation_config.bos_token_id = ids["<|endoftext|>"]
    model.generation_config.pad_token_id = ids["<pad>"]
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.save_pretrained(out)
    image_processor = JanusImageProcessorPil(size={"height": 32, "width": 32})
    processor = transformers.JanusProcessor(
        image_processor=image_processor, tokenizer=tokenizer, num_image_tokens=16, chat_template=JANUS_CHAT_TEMPLATE
    )
    processor.save_pretrained(out)
    return out


def build_tiny_edit_pipeline(out_dir: str | Path, *, seed: int = 0) -> Path:
    """Build, save and return the folder of a tiny random InstructPix2Pix pipeline (32x32 images)."""
    torch = require("torch", "diffusers")
    transformers = require("transformers", "diffusers")
    diffusers = require("diffusers", "diffusers")
    out = Path(out_dir)
    torch.manual_seed(seed)
    unet = diffusers.UNet2DConditionModel(
        block_out_channels=(32, 64),
        layers_per_block=1,
        sample_size=16,
        in_channels=8,  # InstructPix2Pix: the noisy latents and the input image's latents
        out_channels=4,
        down_block_types=("DownBlock2D", "CrossAttnDownBlock2D"),
        up_block_types=("CrossAttnUpBlock2D", "UpBlock2D"),
        cross_attention_dim=32,
        norm_num_groups=32,
    )
    vae = diffusers.AutoencoderKL(
        block_out_channels=(32,),
        in_channels=3,
        out_channels=3,
        down_block_types=("DownEncoderBlock2D",),
        up_block_types=("UpDecoderBlock2D",),
        latent_channels=4,
        norm_num_groups=32,
        sample_size=32,
    )
    tokenizer = tiny_tokenizer(transformers, ("<|endoftext|>",), pad_token="<|endoftext|>", eos_token="<|endoftext|>",
                               bos_token="<|endoftext|>", model_max_length=16)  # fmt: skip
    text_encoder = transformers.CLIPTextModel(
        transformers.CLIPTextConfig(
            vocab_size=len(tokenizer),
            hidden_size=32,
            intermediate_size=64,
            num_hidden_layers=1,
            num_attention_heads=2,
            max_position_embeddings=16,
            bos_token_id=0,
            eos_token_id=0,
            pad_token_id=0,
        )
    )
    scheduler = diffusers.EulerAncestralDiscreteScheduler(beta_start=0.00085, beta_end=0.012, beta_schedule="scaled_linear")
    pipeline = diffusers.StableDiffusionInstructPix2PixPipeline(
        unet=unet,
        vae=vae,
        text_encoder=text_encoder,
        tokenizer=tokenizer,
        scheduler=scheduler,
        safety_checker=None,
        feature_extractor=None,
        requires_safety_checker=False,
    )
    pipeline.save_pretrained(out)
    return out

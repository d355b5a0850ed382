"""BAGEL (ByteDance-Seed/Bagel) from the user's checkout and checkpoint folder.

Read from the repository at commit 056b5fd: the model is assembled from
``modeling.bagel`` (Qwen2 language model with MoT layers, SigLIP vision tower, the
``ae.safetensors`` autoencoder) and dispatched over the GPUs with accelerate, then
``inferencer.InterleaveInferencer.interleave_inference(inputs, understanding_output=...)``
runs one interleaved list of texts and images: it answers in text
(``understanding_output=True``) or draws one image conditioned on everything before it.
Both are this backend's: ``chat`` flattens a conversation into that list; ``generate``
appends the request's instruction to the conversation (or to the board and nothing
else) and draws, with the editing settings of BAGEL's own demo by default.

Example::

    git clone https://github.com/ByteDance-Seed/Bagel ~/src/Bagel   # and its requirements
    huggingface-cli download ByteDance-Seed/BAGEL-7B-MoT --local-dir ~/models/BAGEL-7B-MoT
    load_backend("bagel", model="~/models/BAGEL-7B-MoT", repo="~/src/Bagel")
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PIL import Image

from vgau_data.runners.backends.base import Completion, GeneratedImage, GenParams, ImageRequest, require
from vgau_data.runners.backends.checkouts import (
    describe_checkout,
    import_from_checkout,
    interleaved,
    require_paths,
    returned_image,
)
from vgau_data.runners.backends.local_model import hash_samples

if TYPE_CHECKING:
    from vgau_data.runners.messages import Conversation

CHECKPOINT_FILES = ("llm_config.json", "vit_config.json", "ae.safetensors", "ema.safetensors")
REPO_FILES = ("inferencer.py", "modeling/bagel", "data/data_utils.py", "data/transforms.py")
SHARED_DEVICE_MODULES = (
    "language_model.model.embed_tokens",
    "time_embedder",
    "latent_pos_embed",
    "vae2llm",
    "llm2vae",
    "connector",
    "vit_pos_embed",
)
"""Modules BAGEL needs on the device of its token embeddings."""


class BagelBackend:
    """BAGEL as one unified model: ``chat`` and ``generate`` share the weights.

    Args:
        model: the checkpoint folder (``llm_config.json``, ``vit_config.json``,
            ``ae.safetensors``, ``ema.safetensors``, tokenizer files).
        repo: the user's clone of ByteDance-Seed/Bagel (its requirements installed).
        max_memory_gib: per-GPU memory for the device map.
        think: let BAGEL write its reasoning before answering or drawing.
        cfg_text_scale, cfg_img_scale, cfg_interval, timestep_shift, num_timesteps,
        cfg_renorm_type, cfg_renorm_min: image settings (defaults: BAGEL's editing demo).
    """

    name = "bagel"
    capabilities = frozenset({"chat", "image_edit"})

    def __init__(
        self,
        model: str,
        *,
        repo: str,
        max_memory_gib: int = 80,
        think: bool = False,
        cfg_text_scale: float = 4.0,
        cfg_img_scale: float = 2.0,
        cfg_interval: float = 0.0,
        timestep_shift: float = 3.0,
        num_timesteps: int = 50,
        cfg_renorm_type: str = "text_channel",
        cfg_renorm_min: float = 0.0,
    ) -> None:
        self.checkpoint = require_paths(model, CHECKPOINT_FILES, "a BAGEL checkpoint folder",
                                        "huggingface-cli download ByteDance-Seed/BAGEL-7B-MoT --local-dir DIR")  # fmt: skip
        self.repo = require_paths(repo, REPO_FILES, "a checkout of ByteDance-Seed/Bagel",
                                  "git clone https://github.com/ByteDance-Seed/Bagel")  # fmt: skip
        self.torch = require("torch", "hf")
        self.think = think
        self.image_settings = {
            "cfg_text_scale": cfg_text_scale,
            "cfg_img_scale": cfg_img_scale,
            "cfg_interval": [cfg_interval, 1.0],
            "timestep_shift": timestep_shift,
            "num_timesteps": num_timesteps,
            "cfg_renorm_type": cfg_renorm_type,
            "cfg_renorm_min": cfg_renorm_min,
        }
        self.inferencer = self._load(max_memory_gib)
        self._fingerprint = _checkpoint_fingerprint(self.checkpoint)

    def _load(self, max_memory_gib: int) -> Any:
        """Assemble the model as BAGEL's demo does, dispatch it, and wrap it in its inferencer."""
        accelerate = require("accelerate", "hf")
        inferencer, bagel, autoencoder, qwen2, data_utils, transforms = import_from_checkout(
            self.repo, "inferencer", "modeling.bagel", "modeling.autoencoder", "modeling.qwen2", "data.data_utils",
            "data.transforms",
        )  # fmt: skip
        folder = self.checkpoint
        llm_config = bagel.Qwen2Config.from_json_file(str(folder / "llm_config.json"))
        llm_config.qk_norm = True
        llm_config.tie_word_embeddings = False
        llm_config.layer_module = "Qwen2MoTDecoderLayer"
        vit_config = bagel.SiglipVisionConfig.from_json_file(str(folder / "vit_config.json"))
        vit_config.rope = False
        vit_config.num_hidden_layers -= 1
        vae_model, vae_config = autoencoder.load_ae(local_path=str(folder / "ae.safetensors"))
        config = bagel.BagelConfig(
            visual_gen=True, visual_und=True, llm_config=llm_config, vit_config=vit_config, vae_config=vae_config,
            vit_max_num_patch_per_side=70, connector_act="gelu_pytorch_tanh", latent_patch_size=2, max_latent_size=64,
        )  # fmt: skip
        with accelerate.init_empty_weights():
            model = bagel.Bagel(bagel.Qwen2ForCausalLM(llm_config), bagel.SiglipVisionModel(vit_config), config)
            model.vit_model.vision_model.embeddings.convert_conv2d_to_linear(vit_config, meta=True)
        tokenizer, new_token_ids, _ = data_utils.add_special_tokens(qwen2.Qwen2Tokenizer.from_pretrained(str(folder)))
        gpus = self.torch.cuda.device_count()
        device_map = accelerate.infer_auto_device_map(
            model,
            max_memory={i: f"{max_memory_gib}GiB" for i in range(gpus)},
            no_split_module_classes=["Bagel", "Qwen2MoTDecoderLayer"],
        )
        first = device_map.get(SHARED_DEVICE_MODULES[0], "cuda:0")
        for name in SHARED_DEVICE_MODULES:
            if name in device_map or gpus <= 1:
                device_map[name] = first
        model = accelerate.load_checkpoint_and_dispatch(
            model, checkpoint=str(folder / "ema.safetensors"), device_map=device_map, offload_buffers=True,
            offload_folder=str(folder / "offload"), dtype=self.torch.bfloat16, force_hooks=True,
        ).eval()  # fmt: skip
        return inferencer.InterleaveInferencer(
            model=model, vae_model=vae_model, tokenizer=tokenizer, vae_transform=transforms.ImageTransform(1024, 512, 16),
            vit_transform=transforms.ImageTransform(980, 224, 14), new_token_ids=new_token_ids,
        )  # fmt: skip

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]:
        completions = []
        for conversation in conversations:
            start = time.perf_counter()
            outputs = self.inferencer.interleave_inference(
                interleaved(conversation.messages), think=self.think, understanding_output=True,
                max_think_token_n=gen.max_new_tokens, do_sample=not gen.greedy, text_temperature=gen.temperature,
            )  # fmt: skip
            text = next((item for item in outputs if isinstance(item, str)), "")
            completions.append(Completion(text=text, latency_s=time.perf_counter() - start, finish_reason="stop"))
        return completions

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        results = []
        for request in requests:
            start = time.perf_counter()
            context = interleaved(request.conversation.messages) if request.conversation else list(request.images)
            self.torch.manual_seed((request.seed if gen.seed is None else gen.seed) + request.step)
            try:
                outputs = self.inferencer.interleave_inference(
                    [*context, request.instruction], think=self.think, understanding_output=False,
                    do_sample=not gen.greedy, text_temperature=gen.temperature, **self.image_settings,
                )  # fmt: skip
            except (RuntimeError, ValueError) as error:
                results.append(GeneratedImage(error=f"{type(error).__name__}: {error}", latency_s=time.perf_counter() - start))
                continue
            image = next((item for item in outputs if isinstance(item, Image.Image)), None)
            thought = "".join(item for item in outputs if isinstance(item, str))
            results.append(returned_image(image, "BAGEL", start, thought))
        return results

    def fingerprint(self) -> str:
        return self._fingerprint

    def describe(self) -> dict[str, Any]:
        return describe_checkout(self, think=self.think, image_settings=self.image_settings)



def _checkpoint_fingerprint(folder: Path) -> str:
    """sha256 over the configs and samples of the weights (as ``local_model`` does for HF folders)."""
    digest = hashlib.sha256(b"bagel-v1")
    hash_samples(digest, [folder / name for name in CHECKPOINT_FILES])
    return digest.hexdigest()

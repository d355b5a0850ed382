"""Show-o2 (showlab/Show-o, folder ``show-o2``) from the user's checkout and checkpoint folder.

Read from the repository at commit 45a5a2d. Show-o2 ships no pipeline object: its
``inference_mmu.py`` (understanding) and ``inference_t2i.py`` (text-to-image) scripts
load the parts and run them inline. This backend loads the same parts once, as those
scripts do, and runs the same steps per request:

- load: the YAML config (``configs/showo2_7b_demo_432x432.yaml`` by default) with
  OmegaConf; ``models.WanVAE`` from ``Wan2.1_VAE.pth``; ``models.misc.get_text_tokenizer``
  on the Qwen2.5 folder; ``models.Showo2Qwen2_5.from_pretrained(checkpoint,
  use_safetensors=False)``; ``utils.get_hyper_params``; ``transport.create_transport`` and
  ``Sampler`` with the config's ``transport`` settings.
- chat (``inference_mmu.py``): the image, resized and centre-cropped to the config's
  resolution by ``datasets/utils.py``'s ``image_transform``, is encoded by the VAE and
  fused from the understanding and generation embedders; the sequence is
  ``<|im_start|>system...<|im_end|>\\n<|im_start|>user\\n`` + ``<|vision_start|>`` time
  embedding and image ``<|vision_end|>`` + question + ``\\n<|im_start|>assistant\\n``, under
  ``omni_attn_mask_naive``; ``mmu_generate`` answers (``top_k=1`` when greedy, as the script).
  It keeps no KV cache (each new token re-reads the whole sequence), so ``--max-new-tokens``
  bounds an answer's cost.
- generate (``inference_t2i.py``): ``prepare_gen_input`` builds the prompt and its empty
  twin for classifier-free guidance, ``sample_ode`` integrates ``t2i_generate`` from
  seeded noise, the VAE decodes and ``utils.denorm`` makes pixels. Defaults are the
  README's demo command (guidance 7.5, 50 steps); the resolution is the config's.

Show-o2 reads one image per request (the paper's A.4), so ``max_images = 1``: the driver
keeps only a conversation's last image. Its image generation is conditioned on text
alone, so it cannot edit the board (``text_to_image``, like Janus): it draws from the
instruction and, with ``--generation-context reasoning``, the conversation's text. The
prompt holds at most ``max_text_len`` tokens (about 290 at 432x432), so a longer one keeps
its end, where the instruction is. A conversation is flattened into the one user turn the
script builds: its texts joined by blank lines.

The checkout's ``datasets`` package shares its name with Hugging Face ``datasets`` (and
its ``__init__`` imports training code), so ``datasets/utils.py`` is loaded from its file.
The model's constructor loads Qwen2.5's config and SigLIP's weights from the paths its
``config.json`` names (Hub ids in the demo configs); ``llm`` and ``siglip`` point those at
local folders, so nothing is downloaded.

Example::

    git clone https://github.com/showlab/Show-o ~/src/Show-o   # then show-o2/build_env.sh
    wget -P ~/src/Show-o/show-o2 https://huggingface.co/Wan-AI/Wan2.1-T2V-14B/resolve/main/Wan2.1_VAE.pth
    huggingface-cli download showlab/show-o2-7B --local-dir ~/models/show-o2-7B
    huggingface-cli download Qwen/Qwen2.5-7B-Instruct --local-dir ~/models/Qwen2.5-7B-Instruct
    huggingface-cli download google/siglip-so400m-patch14-384 --local-dir ~/models/siglip-so400m-patch14-384
    load_backend("showo2", model="~/models/show-o2-7B", repo="~/src/Show-o",
                 llm="~/models/Qwen2.5-7B-Instruct", siglip="~/models/siglip-so400m-patch14-384")
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from PIL import Image

from vgau_data.runners.backends.base import BackendError, Completion, GeneratedImage, GenParams, ImageRequest
from vgau_data.runners.backends.checkouts import (
    describe_checkout,
    import_from_checkout,
    interleaved,
    require_paths,
    torch_on,
)
from vgau_data.runners.backends.local_model import hash_samples

if TYPE_CHECKING:
    from vgau_data.runners.messages import Conversation, Message

REPO_FILES = (
    "models/modeling_showo2_qwen2_5.py",
    "models/wan21_vae.py",
    "models/misc.py",
    "transport/__init__.py",
    "datasets/utils.py",
    "utils.py",
)
DEFAULT_CONFIG = "configs/showo2_7b_demo_432x432.yaml"
SYSTEM_PROMPT = "system\nYou are a helpful assistant.<|im_end|>"
USER_TURN = "\n<|im_start|>user\n"
ASSISTANT_TURN = "\n<|im_start|>assistant\n"
HYPER_PARAMS = (
    "num_t2i_image_tokens", "num_mmu_image_tokens", "num_video_tokens", "max_seq_len", "max_text_len",
    "image_latent_dim", "patch_size", "latent_width", "latent_height", "pad_id", "bos_id", "eos_id", "boi_id",
    "eoi_id", "bov_id", "eov_id", "img_pad_id", "vid_pad_id", "guidance_scale",
)  # fmt: skip
"""The names of what ``utils.get_hyper_params`` returns, in its order."""


def code_folder(repo: str | Path) -> Path:
    """The ``show-o2`` folder: given itself or the Show-o clone that holds it."""
    folder = Path(repo).expanduser()
    inner = folder / "show-o2"
    return inner if (inner / "models").is_dir() else folder


def flatten(messages: Sequence[Message]) -> tuple[str, Image.Image | None]:
    """A conversation's texts joined by blank lines, and its last image (Show-o2 reads one)."""
    items = interleaved(messages)
    images = [item for item in items if isinstance(item, Image.Image)]
    return "\n\n".join(item for item in items if isinstance(item, str)), (images[-1] if images else None)


def load_file(path: Path, name: str) -> ModuleType:
    """Import one source file under ``name`` (for a module whose package name is taken)."""
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise BackendError(f"cannot load {path} as a Python module")
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError as error:
        raise BackendError(f"importing {path} failed: {error}; install Show-o2's requirements") from error
    return module


def local_folder(given: str | None, named: str, option: str, files: Sequence[str]) -> Path:
    """``given``, else the path the checkpoint's config names, as a local folder holding ``files``."""
    path = Path(given if given is not None else named).expanduser()
    if given is None and not path.is_dir():
        raise BackendError(
            f"the checkpoint's config.json names {named!r} as its {option} model, which is not a local folder; "
            f"download it (huggingface-cli download {named} --local-dir DIR) and pass {option}=DIR"
        )
    return require_paths(path, files, f"a local {option} folder", f"huggingface-cli download {named} --local-dir DIR")


class Showo2Backend:
    """Show-o2 as one unified model: it answers about one image and draws from text.

    Args:
        model: the checkpoint folder (``config.json`` and ``pytorch_model*.bin``).
        repo: the user's clone of showlab/Show-o (or its ``show-o2`` folder), requirements installed.
        config: the demo YAML the scripts take (relative to ``show-o2``, or a path); it sets
            the resolution (432 for the 7B demo config) and the flow sampler.
        vae: ``Wan2.1_VAE.pth`` (default: in the ``show-o2`` folder, as its README puts it).
        llm, siglip: local Qwen2.5-Instruct and SigLIP folders (default: the paths the
            checkpoint's ``config.json`` names, when they are local folders).
        dtype: ``bfloat16`` (default, the t2i demo's) , ``float16`` or ``float32`` (the mmu demo's).
        device: ``auto`` (cuda if available), ``cpu``, ``cuda:1`` ...
        guidance_scale, num_inference_steps: image settings (defaults: the README's t2i demo).

    Sampled answers use ``temperature`` only: ``mmu_generate`` has no ``top_p``.
    """

    name = "showo2"
    capabilities = frozenset({"chat", "text_to_image"})
    max_images = 1
    default_batch_size = 4
    """The t2i demo's batch; understanding runs one conversation at a time, as ``mmu_generate`` does."""

    def __init__(
        self,
        model: str,
        *,
        repo: str,
        config: str = DEFAULT_CONFIG,
        vae: str | None = None,
        llm: str | None = None,
        siglip: str | None = None,
        dtype: str = "bfloat16",
        device: str = "auto",
        guidance_scale: float = 7.5,
        num_inference_steps: int = 50,
    ) -> None:
        self.checkpoint = require_paths(model, ("config.json",), "a Show-o2 checkpoint folder",
                                        "huggingface-cli download showlab/show-o2-7B --local-dir DIR")  # fmt: skip
        self.weights = sorted(self.checkpoint.glob("pytorch_model*.bin"))
        if not self.weights:
            raise BackendError(f"{self.checkpoint} is not a Show-o2 checkpoint folder: missing pytorch_model*.bin")
        self.repo = require_paths(code_folder(repo), REPO_FILES, "a checkout of showlab/Show-o (its show-o2 folder)",
                                  "git clone https://github.com/showlab/Show-o")  # fmt: skip
        self.config_path = self.repo / Path(config).expanduser()  # an absolute path stays itself
        if not self.config_path.is_file():
            raise BackendError(
                f"missing the Show-o2 config {self.config_path} (pass config=PATH, e.g. {DEFAULT_CONFIG})"
            )
        self.vae_path = Path(vae).expanduser() if vae else self.repo / "Wan2.1_VAE.pth"
        if not self.vae_path.is_file():
            raise BackendError(f"missing the Wan2.1 VAE weights {self.vae_path} (Wan2.1_VAE.pth; pass vae=PATH)")
        saved = json.loads((self.checkpoint / "config.json").read_text(encoding="utf-8"))
        self.llm = local_folder(
            llm, str(saved.get("llm_model_path", "")), "llm", ("config.json", "tokenizer_config.json")
        )
        self.siglip = local_folder(siglip, str(saved.get("clip_pretrained_model_path", "")), "siglip", ("config.json",))
        if num_inference_steps < 1 or guidance_scale < 0:
            raise BackendError("num_inference_steps must be >= 1 and guidance_scale >= 0")
        self.torch, self.device = torch_on(device, dtype)
        self.dtype = dtype
        self.guidance_scale = float(guidance_scale)
        self.num_inference_steps = int(num_inference_steps)
        self._load()
        self._fingerprint = self._fingerprint_files()

    def _load(self) -> None:
        """Build the parts as both demo scripts do."""
        torch = self.torch
        models, misc, utils, transport = import_from_checkout(self.repo, "models", "models.misc", "utils", "transport")
        self.image_transform = load_file(self.repo / "datasets" / "utils.py", "showo2_datasets_utils").image_transform
        self.utils, self.misc, self.omni_mask = utils, misc, models.omni_attn_mask_naive
        config = utils.OmegaConf.load(str(self.config_path))
        weight_type = getattr(torch, self.dtype)
        self.weight_type = weight_type
        self.vae = models.WanVAE(vae_pth=str(self.vae_path), dtype=weight_type, device=self.device)
        self.tokenizer, token_ids = misc.get_text_tokenizer(
            str(self.llm), add_showo_tokens=True, return_showo_token_ids=True, llm_name="qwen2_5"
        )
        self.model = models.Showo2Qwen2_5.from_pretrained(
            str(self.checkpoint), use_safetensors=False, llm_model_path=str(self.llm),
            clip_pretrained_model_path=str(self.siglip),
        ).to(self.device)  # fmt: skip
        self.model.to(weight_type)
        self.model.eval()
        self.time_embeds = bool(config.model.showo.add_time_embeds)
        if self.time_embeds:  # the time embedding is one more token in front of the image's
            preprocessing = config.dataset.preprocessing
            preprocessing.num_t2i_image_tokens += 1
            preprocessing.num_mmu_image_tokens += 1
            preprocessing.num_video_tokens += 1
        self.hyper = dict(zip(HYPER_PARAMS, utils.get_hyper_params(config, self.tokenizer, token_ids), strict=True))
        self.resolution = int(config.dataset.preprocessing.resolution)
        settings = config.transport
        self.sampler = transport.Sampler(transport.create_transport(
            path_type=settings.path_type, prediction=settings.prediction, loss_weight=settings.loss_weight,
            train_eps=settings.train_eps, sample_eps=settings.sample_eps, snr_type=settings.snr_type,
            do_shift=settings.do_shift, seq_len=self.hyper["num_t2i_image_tokens"],
        ))  # fmt: skip
        self.ode = {
            "sampling_method": settings.sampling_method, "atol": settings.atol, "rtol": settings.rtol,
            "reverse": settings.reverse, "time_shifting_factor": settings.time_shifting_factor,
        }  # fmt: skip
        self.prefix_ids = [token_ids["bos_id"], *self._ids(SYSTEM_PROMPT), *self._ids(USER_TURN)]

    def _ids(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def _image_embeds(self, image: Image.Image) -> Any:
        """The fused understanding + generation embedding of one image (``inference_mmu.py``)."""
        model, torch = self.model, self.torch
        pixels = self.image_transform(image.convert("RGB"), resolution=self.resolution).to(self.device)[None]
        latents = self.vae.sample(pixels.unsqueeze(2)).squeeze(2).to(self.weight_type)
        semantic = model.image_embedder_und(latents) + model.position_embedding(model.image_position_ids)
        semantic = model.und_trans(semantic)["last_hidden_state"]
        embeds = model.fusion_proj(torch.cat([semantic, model.image_embedder_gen(latents)], dim=-1))
        if not self.time_embeds:
            return embeds
        time = model.time_embed(torch.Tensor([[1.0]]).to(self.device), embeds.dtype)
        if hasattr(model, "time_embed_proj"):
            time = model.time_embed_proj(time)
        return torch.cat([time, embeds], dim=1)

    def _answer(self, conversation: Conversation, gen: GenParams) -> Completion:
        torch, model, hyper = self.torch, self.model, self.hyper
        text, image = flatten(conversation.messages)
        embed = model.showo.model.embed_tokens
        head = embed(torch.tensor([self.prefix_ids], device=self.device))
        question = embed(torch.tensor([[*self._ids(text), *self._ids(ASSISTANT_TURN)]], device=self.device))
        parts, image_span = [head], [0, 0]
        if image is not None:
            torch.manual_seed(0 if gen.seed is None else gen.seed)  # the VAE samples its posterior
            image_embeds = self._image_embeds(image)
            # the script's span: from one past the time embedding, as long as time + image
            image_span = [head.shape[1] + (2 if self.time_embeds else 1), hyper["num_mmu_image_tokens"]]
            boi, eoi = embed(torch.tensor([[hyper["boi_id"], hyper["eoi_id"]]], device=self.device)).split(1, dim=1)
            parts += [boi, image_embeds, eoi]
        inputs = torch.cat([*parts, question], dim=1).to(self.weight_type)
        mask = self.omni_mask(B=1, LEN=inputs.shape[1], modalities=torch.tensor([[image_span]], device=self.device),
                              device=self.device, inverted=True).to(inputs.dtype)  # fmt: skip
        tokens = model.mmu_generate(
            input_embeds=inputs, attention_mask=mask, max_new_tokens=gen.max_new_tokens,
            temperature=1.0 if gen.greedy else max(gen.temperature, 1e-5), top_k=1 if gen.greedy else None,
            eos_token=self.tokenizer.eos_token_id,
        )  # fmt: skip
        ids = [int(token) for token in tokens]
        stopped = bool(ids) and ids[-1] == self.tokenizer.eos_token_id
        answer = self.tokenizer.batch_decode([ids], skip_special_tokens=True)[0]
        return Completion(text=answer, prompt_tokens=int(inputs.shape[1]), completion_tokens=len(ids),
                          finish_reason="stop" if stopped else "length")  # fmt: skip

    def chat(self, conversations: Sequence[Conversation], gen: GenParams) -> list[Completion]:
        completions = []
        for conversation in conversations:
            start = time.perf_counter()
            with self.torch.inference_mode():
                completion = self._answer(conversation, gen)
            completions.append(replace(completion, latency_s=time.perf_counter() - start))
        return completions

    def image_prompt(self, request: ImageRequest) -> str:
        """The request's text (its conversation's, then the instruction), its end kept within ``max_text_len``."""
        history = flatten(request.conversation.messages)[0] if request.conversation is not None else ""
        prompt = f"{history}\n\n{request.instruction}" if history else request.instruction
        ids = self._ids(prompt)
        limit = self.hyper["max_text_len"]
        return prompt if len(ids) <= limit else self.tokenizer.decode(ids[-limit:])

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        """Draw one image per request, all in one batch as ``inference_t2i.py`` does."""
        if not requests:
            return []
        start = time.perf_counter()
        prompts = [self.image_prompt(request) for request in requests]
        seeds = [(request.seed if gen.seed is None else gen.seed) + request.step for request in requests]
        try:
            with self.torch.inference_mode():
                images = self._draw(prompts, seeds)
        except (RuntimeError, ValueError) as error:  # torch raises RuntimeError for OOM and shape errors
            failed = f"{type(error).__name__}: {error}"
            return [GeneratedImage(error=failed, latency_s=time.perf_counter() - start) for _ in requests]
        latency = time.perf_counter() - start
        return [GeneratedImage(image=image, latency_s=latency, meta={"seed": seed}) for image, seed in images]

    def _draw(self, prompts: list[str], seeds: list[int]) -> list[tuple[Image.Image, int]]:
        torch, hyper = self.torch, self.hyper
        tokens, null_tokens, positions, null_positions = self.misc.prepare_gen_input(
            prompts, self.tokenizer, hyper["num_t2i_image_tokens"], hyper["bos_id"], hyper["eos_id"], hyper["boi_id"],
            hyper["eoi_id"], hyper["pad_id"], hyper["img_pad_id"], hyper["max_text_len"], self.device,
        )  # fmt: skip
        side = (hyper["latent_height"] * hyper["patch_size"], hyper["latent_width"] * hyper["patch_size"])
        noise = [
            torch.randn((1, hyper["image_latent_dim"], *side), generator=torch.Generator().manual_seed(seed))
            for seed in seeds
        ]
        z = torch.cat(noise).to(self.weight_type).to(self.device)
        guided = self.guidance_scale > 0
        if guided:  # the prompt and its empty twin in one batch
            z, tokens, positions = (
                torch.cat([z, z]),
                torch.cat([tokens, null_tokens]),
                torch.cat([positions, null_positions]),
            )
        mask = self.omni_mask(tokens.size(0), hyper["max_seq_len"], positions, self.device).to(self.weight_type)
        sample = self.sampler.sample_ode(num_steps=self.num_inference_steps, **self.ode)
        latents = sample(
            z, self.model.t2i_generate, text_tokens=tokens, attention_mask=mask, modality_positions=positions,
            output_hidden_states=True, max_seq_len=hyper["max_seq_len"], guidance_scale=self.guidance_scale,
        )[-1]  # fmt: skip
        if guided:
            latents = torch.chunk(latents, 2)[0]
        pixels = self.utils.denorm(self.vae.batch_decode(latents.unsqueeze(2)).squeeze(2))
        return [(Image.fromarray(row).convert("RGB"), seed) for row, seed in zip(pixels, seeds)]

    def _fingerprint_files(self) -> str:
        """sha256 over the checkpoint, the VAE and the config (the config sets resolution and sampler)."""
        digest = hashlib.sha256(b"showo2-v1")
        hash_samples(digest, [self.checkpoint / "config.json", *self.weights, self.vae_path, self.config_path])
        return digest.hexdigest()

    def fingerprint(self) -> str:
        return self._fingerprint

    def describe(self) -> dict[str, Any]:
        return describe_checkout(
            self, config=str(self.config_path), llm=str(self.llm), siglip=str(self.siglip), dtype=self.dtype,
            device=self.device, resolution=self.resolution,
            image_settings={"guidance_scale": self.guidance_scale, "num_inference_steps": self.num_inference_steps},
        )  # fmt: skip

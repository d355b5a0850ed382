"""Tiny random Qwen-family vision-language models, built offline, for tests and benchmarks.

``build_tiny_vlm(kind, out_dir)`` trains a byte-level BPE tokenizer on the fly, builds
a model of a few hundred thousand parameters from a config, and saves model, tokenizer,
image processor and chat template to ``out_dir``, so the real ``from_pretrained(dir)``
path loads it back. The answers are garbage (random weights); protocol logic is
tested with the scripted backend.

``reply="..."`` instead wires the weights so the model always answers exactly that text
(one added token, then end of turn) while still running every layer on the real
inputs: attention and MLP outputs are zeroed, so the next token depends only on the
current one, and the embeddings and LM head encode "anything -> reply -> end". That
drives multi-turn episodes through the real generate path (e.g. a maze walker that
always says up).

Needs torch, transformers and tokenizers (imported when called).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from vgau_data.runners.backends.base import BackendError, require

TINY_KINDS: tuple[str, ...] = ("qwen2_vl", "qwen2_5_vl", "qwen3_vl", "qwen3_5")
VOCAB_SIZE = 1000
TINY_TEXT_CONFIG: dict[str, int] = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "max_position_embeddings": 4096,
}
"""The language model of every tiny model (a few hundred thousand parameters)."""

SPECIAL_TOKENS: tuple[str, ...] = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|image_pad|>",
    "<|video_pad|>",
)

CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{% if message['content'] is string %}{{ message['content'] }}"
    "{% else %}{% for part in message['content'] %}"
    "{% if part['type'] == 'image' %}<|vision_start|><|image_pad|><|vision_end|>"
    "{% elif part['type'] == 'text' %}{{ part['text'] }}{% endif %}"
    "{% endfor %}{% endif %}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
"""A minimal ChatML template with Qwen's image placeholder."""

_CORPUS = (
    '<ANSWER_JSON>["up","down","left","right"]</ANSWER_JSON> <answer>A,B,C</answer> '
    '<answer_json>[[[0,1],[2,3]]]</answer_json> {"solution":[{"from":[4,5],"direction":"UP"}]} '
    '{"car":"R","direction":"right"} <remaining>3</remaining> step board maze sokoban path onet parking klotski '
    "The board after your step. Give exactly one step. 0123456789"
)


def build_tiny_vlm(kind: str, out_dir: str | Path, *, seed: int = 0, reply: str | None = None) -> Path:
    """Build, save and return the folder of a tiny random ``kind`` model.

    Args:
        kind: one of ``TINY_KINDS``.
        out_dir: folder to write (created).
        seed: torch seed for the random weights.
        reply: make the model answer exactly this text to everything (see module doc).
    """
    if kind not in TINY_KINDS:
        raise BackendError(f"unknown tiny model kind {kind!r}; choose from {TINY_KINDS}")
    torch = require("torch", "hf")
    transformers = require("transformers", "hf")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = tiny_tokenizer(transformers)
    if reply is not None:
        tokenizer.add_tokens([reply])
    ids = {token: tokenizer.convert_tokens_to_ids(token) for token in SPECIAL_TOKENS}
    config = _tiny_config(transformers, kind, len(tokenizer), ids)
    torch.manual_seed(seed)
    model = transformers.AutoModelForImageTextToText.from_config(config).eval()
    if reply is not None:
        _wire_constant_reply(torch, model, tokenizer.convert_tokens_to_ids(reply), ids["<|im_end|>"])
    patch_size = 14 if kind in ("qwen2_vl", "qwen2_5_vl") else 16
    unit = (patch_size * 2) ** 2
    image_processor = transformers.Qwen2VLImageProcessorPil(
        min_pixels=unit * 4, max_pixels=unit * 16, patch_size=patch_size, merge_size=2, temporal_patch_size=2
    )
    model.save_pretrained(str(out))
    tokenizer.save_pretrained(str(out))
    image_processor.save_pretrained(str(out))
    return out


def _wire_constant_reply(torch: Any, model: Any, reply_id: int, end_id: int) -> None:
    """Make greedy decoding emit ``reply_id`` after any token and ``end_id`` after it."""
    with torch.no_grad():
        for name, parameter in model.named_parameters():
            if "language_model" in name and name.endswith(("o_proj.weight", "down_proj.weight", "out_proj.weight")):
                parameter.zero_()
        embeddings = model.get_input_embeddings().weight
        hidden = embeddings.shape[1]
        anything = torch.zeros(hidden)
        anything[: hidden // 2] = 1.0
        after_reply = torch.zeros(hidden)
        after_reply[hidden // 2 :] = 1.0
        embeddings[:] = anything
        embeddings[reply_id] = after_reply
        head = model.get_output_embeddings().weight
        head.zero_()
        head[reply_id] = 4 * anything
        head[end_id] = 4 * after_reply


def training_texts() -> list[str]:
    """What the tokenizer learns from: answer formats plus every family's and protocol's prompts.

    Learning the real prompts keeps them short in tokens (a few hundred), as with a real
    tokenizer, so attention cost does not dwarf everything else in CPU benchmarks.
    """
    from vgau_data.puzzles import prompts
    from vgau_data.registry import FAMILIES
    from vgau_data.seeding import rng_for

    texts = [_CORPUS, prompts.REMAINING_QUESTION]
    for family in FAMILIES.values():
        state = family.generate("easy", rng_for(1))
        step = family.oracle_steps(state)[0]
        texts += [
            family.question(state, "text_cot"),
            family.question(state, "direct"),
            prompts.with_aid(family, state),
            prompts.vcot_intro(family, state, images="shown_annotated"),
            prompts.step_request(family, 1),
            family.format_step(step),
        ]
    return texts * 2


def tiny_tokenizer(transformers: Any, special_tokens: tuple[str, ...] = SPECIAL_TOKENS, **options: Any) -> Any:
    """A byte-level BPE tokenizer trained on ``training_texts`` (``options`` go to the fast tokenizer)."""
    tokenizers = require("tokenizers", "hf")
    bpe = tokenizers.Tokenizer(tokenizers.models.BPE())
    bpe.pre_tokenizer = tokenizers.pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = tokenizers.decoders.ByteLevel()
    trainer = tokenizers.trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=list(special_tokens),
        initial_alphabet=tokenizers.pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    bpe.train_from_iterator(training_texts(), trainer)
    settings = {"chat_template": CHAT_TEMPLATE, "eos_token": "<|im_end|>", "pad_token": "<|endoftext|>"} | options
    return transformers.PreTrainedTokenizerFast(
        tokenizer_object=bpe, model_input_names=["input_ids", "attention_mask"], **settings
    )


def _tiny_config(transformers: Any, kind: str, vocab_size: int, ids: dict[str, int]) -> Any:
    text: dict[str, Any] = {
        "vocab_size": vocab_size,
        **TINY_TEXT_CONFIG,
        "bos_token_id": ids["<|endoftext|>"],
        "eos_token_id": ids["<|im_end|>"],
        "pad_token_id": ids["<|endoftext|>"],
    }
    tokens = {
        "image_token_id": ids["<|image_pad|>"],
        "video_token_id": ids["<|video_pad|>"],
        "vision_start_token_id": ids["<|vision_start|>"],
        "vision_end_token_id": ids["<|vision_end|>"],
    }
    if kind == "qwen2_vl":
        text["rope_parameters"] = {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 2, 4]}
        vision = {"depth": 2, "embed_dim": 32, "hidden_size": 64, "num_heads": 2, "mlp_ratio": 2}
        return transformers.Qwen2VLConfig(text_config=text, vision_config=vision, **tokens)
    if kind == "qwen2_5_vl":
        text["rope_parameters"] = {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": [2, 2, 4]}
        vision = {
            "depth": 2,
            "hidden_size": 32,
            "intermediate_size": 64,
            "num_heads": 2,
            "out_hidden_size": 64,
            "fullatt_block_indexes": [1],
        }
        return transformers.Qwen2_5_VLConfig(text_config=text, vision_config=vision, **tokens)
    vision = {
        "depth": 2,
        "hidden_size": 32,
        "intermediate_size": 64,
        "num_heads": 2,
        "out_hidden_size": 64,
        "num_position_embeddings": 64,
    }
    text["head_dim"] = 16
    if kind == "qwen3_vl":
        text["rope_parameters"] = {
            "rope_type": "default",
            "rope_theta": 10000.0,
            "mrope_section": [2, 3, 3],
            "mrope_interleaved": True,
        }
        vision["deepstack_visual_indexes"] = [1]
        return transformers.Qwen3VLConfig(text_config=text, vision_config=vision, **tokens)
    # qwen3_5: hybrid linear (gated delta) + full attention layers.
    text.update(
        num_hidden_layers=2,
        layer_types=["linear_attention", "full_attention"],
        linear_key_head_dim=8,
        linear_value_head_dim=8,
        linear_num_key_heads=2,
        linear_num_value_heads=4,
        rope_parameters={
            "rope_type": "default",
            "rope_theta": 10000.0,
            "mrope_section": [1, 1, 2],
            "mrope_interleaved": True,
            "partial_rotary_factor": 0.5,
        },
    )
    return transformers.Qwen3_5Config(text_config=text, vision_config=vision, **tokens)

"""A local model folder: its identity (fingerprint) and its chat template.

Shared by the hf and vllm backends; reads files only, imports no model library.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vgau_data.runners.backends.base import BackendError

FINGERPRINT_SAMPLE_BYTES = 1 << 20
"""Bytes hashed at each end of every weight file (hashing 15 GB of weights would take minutes)."""


def require_model_folder(model: str, backend: str) -> Path:
    """``model`` as a folder holding ``config.json``, or an actionable error."""
    path = Path(model).expanduser()
    if not (path / "config.json").is_file():
        raise BackendError(
            f"--model {model!r} is not a local model folder with config.json; the {backend} backend loads local "
            "folders only (download with: huggingface-cli download REPO --local-dir DIR)"
        )
    return path


def read_chat_template(path: Path) -> str | None:
    """The processor-level chat template (``chat_template.jinja`` or ``chat_template.json``)."""
    jinja = path / "chat_template.jinja"
    if jinja.is_file():
        return jinja.read_text(encoding="utf-8")
    as_json = path / "chat_template.json"
    if as_json.is_file():
        template = json.loads(as_json.read_text(encoding="utf-8")).get("chat_template")
        return template if isinstance(template, str) else None
    return None


def model_fingerprint(path: Path) -> str:
    """sha256 over the config, generation config, chat template and weight samples.

    Independent of where the folder lives; two fine-tunes of one architecture differ
    because the sampled weight bytes differ.
    """
    digest = hashlib.sha256(b"hf-model-v1")
    for name in (
        "config.json",
        "generation_config.json",
        "chat_template.jinja",
        "chat_template.json",
        "tokenizer_config.json",
    ):
        file = path / name
        if file.is_file():
            digest.update(name.encode())
            digest.update(file.read_bytes())
    weights = sorted(p for p in path.iterdir() if p.suffix in (".safetensors", ".bin", ".pt", ".pth"))
    if not weights:
        raise BackendError(f"no weight files (*.safetensors, *.bin) in {path}")
    hash_samples(digest, weights)
    return digest.hexdigest()


def hash_samples(digest: Any, files: Sequence[Path]) -> None:
    """Feed each file's name, size and its first and last ``FINGERPRINT_SAMPLE_BYTES`` to ``digest``."""
    for file in files:
        size = file.stat().st_size
        digest.update(f"{file.name}:{size}".encode())
        with file.open("rb") as handle:
            if size <= 2 * FINGERPRINT_SAMPLE_BYTES:
                digest.update(handle.read())
                continue
            digest.update(handle.read(FINGERPRINT_SAMPLE_BYTES))
            handle.seek(size - FINGERPRINT_SAMPLE_BYTES)
            digest.update(handle.read(FINGERPRINT_SAMPLE_BYTES))

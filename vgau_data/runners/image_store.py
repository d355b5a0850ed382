"""Generated images on disk, and the driver's image sender.

Layout under a model folder (beside ``records/``)::

    images/<sha[:2]>/<sha>.png      every generated (or substituted) image, content-addressed
    images/generated.jsonl          one line per image generated: its request key, session, purpose,
                                    round and file

A file is named by the sha256 of its PNG bytes and written whole (``safe_io.atomic_writer``:
a ``.vgau-tmp`` file renamed into place; a run removes the ones a killed run left behind)
before the index line, and both before the record line that references it,
so a run can be inspected, resumed and re-scored without regenerating. The index is the
generation cache: a request whose key (model fingerprint, generation settings, session,
purpose, round, instruction, input images and conversation) is already there gets the
stored image back instead of a new generation. A resumed run replays an unfinished
episode's turns; with a deterministic model they repeat, and so no image is generated
twice. Shards of one run append to the same index under a lock.

``send_images`` is what the driver calls for a batch of ``ImageRequest``s: it stamps the
run's seed, asks the backend, and marks each image with who drew it (``image_source``).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vgau_data import image_gate, safe_io
from vgau_data.errors import InputFileError
from vgau_data.runners.backends.base import BackendError, GeneratedImage, GenParams, ImageRequest, image_source
from vgau_data.runners.messages import ImagePart, image_bytes, image_digest

if TYPE_CHECKING:
    from PIL import Image

logger = logging.getLogger(__name__)

IMAGES_DIR = "images"
INDEX_NAME = "generated.jsonl"
MAX_STORED_PNG_BYTES = 64 * 1024 * 1024
"""A stored file larger than this is not read back (regenerated instead)."""
MEMO_SIZE = 4096
"""Pixel digests remembered per store, so an image drawn again (another run, the oracle) is not re-encoded."""


def image_path(model_dir: Path, sha256: str) -> Path:
    """Where the image with PNG sha256 ``sha256`` lives under a model folder."""
    return Path(model_dir) / IMAGES_DIR / sha256[:2] / f"{sha256}.png"


def png_and_sha256(image: Image.Image) -> tuple[bytes, str]:
    """The image as PNG bytes (our fixed settings, so the same pixels give the same bytes) and their sha256."""
    data = image_bytes(image, "PNG")
    return data, hashlib.sha256(data).hexdigest()


def request_key(
    fingerprint: str, request: ImageRequest, gen: GenParams, digest: Callable[[Image.Image], str] = image_digest
) -> str:
    """sha256 of everything that decides a generated image (the instance's truth excluded: it is not sent)."""
    conversation = None
    if request.conversation is not None:
        conversation = [
            [message.role, [part.digest() if isinstance(part, ImagePart) else part.text for part in message.parts]]
            for message in request.conversation.messages
        ]
    payload = {
        "model_fingerprint": fingerprint,
        "gen": gen.to_dict(),
        "session": request.session_id,
        "purpose": request.purpose,
        "round": request.step,
        "seed": request.seed,
        "instruction": request.instruction,
        "images": [digest(image) for image in request.images],
        "conversation": conversation,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, separators=(",", ":")).encode()).hexdigest()


class ImageStore:
    """The image files and generation index of one model folder."""

    def __init__(self, model_dir: Path) -> None:
        self.model_dir = Path(model_dir)
        self.root = self.model_dir / IMAGES_DIR
        self.index_path = self.root / INDEX_NAME
        self._index: dict[str, dict[str, Any]] | None = None
        self._stored: dict[str, str] = {}
        """Pixel digest -> PNG sha256 of images this store wrote or found."""
        self._digests: dict[int, tuple[Image.Image, str]] = {}
        """id -> (image, pixel digest) of the images this store handed out lately: they come back as the next
        round's board, so their pixels are hashed once (the image is held, so its id stays its own)."""

    def digest(self, image: Image.Image) -> str:
        """``image_digest`` of ``image``, remembered for the images this store put or handed out."""
        known = self._digests.get(id(image))
        if known is not None and known[0] is image:
            return known[1]
        return image_digest(image)

    def _remember_digest(self, image: Image.Image, pixels: str) -> None:
        if len(self._digests) >= MEMO_SIZE:
            self._digests.clear()
        self._digests[id(image)] = (image, pixels)

    def put(self, image: Image.Image) -> str:
        """Write ``image`` as PNG unless its file exists; return its sha256."""
        pixels = self.digest(image)
        self._remember_digest(image, pixels)
        known = self._stored.get(pixels)
        if known is not None and image_path(self.model_dir, known).is_file():
            return known
        data, sha256 = png_and_sha256(image)
        if len(self._stored) >= MEMO_SIZE:
            self._stored.clear()
        self._stored[pixels] = sha256
        path = image_path(self.model_dir, sha256)
        if not path.is_file():
            safe_io.write_bytes(path, data)
        return sha256

    def remove_leftovers(self) -> int:
        """Delete the temporary image files a killed run left (a live shard's are kept); returns how many."""
        return safe_io.remove_stale_temps(self.root, recursive=True)

    def get(self, sha256: str) -> Image.Image | None:
        """The stored image, or None when its file is missing, too large or not what its name says."""
        path = image_path(self.model_dir, sha256)
        if not path.is_file():
            return None
        try:
            data, image = image_gate.read_file(path, inside=self.model_dir, max_bytes=MAX_STORED_PNG_BYTES)
        except (InputFileError, image_gate.ImageRejected) as error:
            logger.warning("%s; generating it again", error)
            return None
        if hashlib.sha256(data).hexdigest() != sha256:
            logger.warning("%s does not match its name; generating it again", path)
            return None
        self._remember_digest(image, image_digest(image))
        return image

    def _entries(self) -> dict[str, dict[str, Any]]:
        if self._index is None:
            self._index = {}
            if self.index_path.is_file():
                from vgau_data.runners.records import iter_lines

                for _, entry in iter_lines(self.index_path, inside=self.model_dir):
                    if isinstance(entry.get("key"), str) and isinstance(entry.get("sha256"), str):
                        self._index[entry["key"]] = entry
        return self._index

    def lookup(self, key: str) -> GeneratedImage | None:
        """The image generated before for request ``key``, or None."""
        entry = self._entries().get(key)
        if entry is None:
            return None
        image = self.get(entry["sha256"])
        if image is None:
            return None
        meta = entry.get("meta") if isinstance(entry.get("meta"), dict) else {}
        latency = entry.get("latency_s")
        return GeneratedImage(
            image=image,
            latency_s=float(latency) if isinstance(latency, (int, float)) else 0.0,
            text=str(entry.get("text") or ""),
            meta={**meta, "sha256": entry["sha256"], "cached": True},
        )

    def remember(self, key: str, request: ImageRequest, made: GeneratedImage) -> GeneratedImage:
        """Store a newly generated image and index it under ``key``; return it with its ``sha256`` in ``meta``."""
        if made.image is None:
            return made
        sha256 = self.put(made.image)
        entry = {"key": key, "sha256": sha256, "session": request.session_id, "purpose": request.purpose,
                 "round": request.step, "latency_s": round(made.latency_s, 4), "text": made.text, "meta": made.meta}  # fmt: skip
        line = json.dumps(entry, ensure_ascii=True, separators=(",", ":"), default=str) + "\n"
        self.root.mkdir(parents=True, exist_ok=True)
        with self.index_path.open("ab") as handle:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)  # shards append side by side
            handle.write(line.encode("ascii"))
            handle.flush()
            os.fsync(handle.fileno())
        self._entries()[key] = entry
        return replace(made, meta={**made.meta, "sha256": sha256})


class StoringBackend:
    """A backend whose images are stored and cached in an ``ImageStore``; everything else is the backend's."""

    def __init__(self, backend: Any, store: ImageStore) -> None:
        self.backend = backend
        self.store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self.backend, name)

    def generate(self, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
        fingerprint = self.backend.fingerprint()
        keys = [request_key(fingerprint, request, gen, self.store.digest) for request in requests]
        results: list[GeneratedImage | None] = [self.store.lookup(key) for key in keys]
        missing = [index for index, result in enumerate(results) if result is None]
        if missing:
            made = self.backend.generate([requests[index] for index in missing], gen)
            if len(made) != len(missing):
                raise BackendError(
                    f"backend {self.backend.name!r} returned {len(made)} images for {len(missing)} requests"
                )
            for index, image in zip(missing, made):
                results[index] = self.store.remember(keys[index], requests[index], image) if image.ok else image
        return results  # type: ignore[return-value]


def send_images(backend: Any, requests: Sequence[ImageRequest], gen: GenParams) -> list[GeneratedImage]:
    """The driver's sender for ``ImageRequest``s: one ``generate`` call, each image marked with who drew it."""
    if not callable(getattr(backend, "generate", None)):
        raise BackendError(f"backend {backend.name!r} makes no images, and a protocol asked it to draw")
    seed = gen.seed or 0
    made = backend.generate([replace(request, seed=seed) for request in requests], gen)
    drawn_by = image_source(backend)
    return [replace(image, meta={"source": drawn_by.source, "generator": drawn_by.generator, **image.meta})
            for image in made]  # fmt: skip

"""LPIPS (Zhang et al. 2018) as the paper uses it: AlexNet trunk, linear heads v0.1.

The network is the ``lpips`` package's ``LPIPS(net="alex", version="0.1")``, written here
in plain torch because the package imports torchvision, which does not load beside
every torch build (it does not beside the CPU torch this project tests with). Values
agree with the package to 1e-6 (checked in the tests against numbers it produced).

Weights are never downloaded:

- the trunk is torchvision's ImageNet AlexNet, ``alexnet-owt-7be5be79.pth``, a file the
  user supplies (``trunk_path``); its sha256 is recorded, and ``official_trunk`` says
  whether it is torchvision's release (whose name carries its sha256 prefix);
- the linear heads are the ``lpips`` package's ``weights/v0.1/alex.pth``, read from an
  installed ``lpips`` (``pip install --no-deps lpips``: the file only, no torchvision) or
  from ``heads_path``.

Example (with the files in place)::

    scorer = Lpips("~/weights/alexnet-owt-7be5be79.pth")
    scorer.distances([generated], [oracle])   # [0.41...]
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from vgau_data.errors import MissingDependencyError, VgauError
from vgau_data.runners.backends.base import require
from vgau_data.safe_io import sha256_of

if TYPE_CHECKING:
    from PIL import Image

TRUNK_FILE: Final = "alexnet-owt-7be5be79.pth"
"""torchvision's ImageNet AlexNet weights; the name carries the first 8 hex digits of its sha256."""
TRUNK_SHA256_PREFIX: Final = "7be5be79"
HEADS_FILE: Final = "weights/v0.1/alex.pth"
"""The linear heads inside the ``lpips`` package."""
CHANNELS: Final = (64, 192, 384, 256, 256)
TAPS: Final = (1, 4, 7, 9, 11)
"""Indices in AlexNet's ``features`` after which LPIPS reads a layer (relu1 ... relu5)."""
SHIFT: Final = (-0.030, -0.088, -0.188)
SCALE: Final = (0.458, 0.448, 0.450)
"""LPIPS's input scaling layer (inputs in [-1, 1])."""


class MissingWeightsError(VgauError, FileNotFoundError):
    """A weight file that LPIPS needs is not where it was said to be."""


def packaged_heads() -> Path:
    """The heads file of an installed ``lpips`` package, found without importing it."""
    spec = importlib.util.find_spec("lpips")
    if spec is None or not spec.submodule_search_locations:
        raise MissingDependencyError(
            "LPIPS needs the lpips package's linear heads: pip install --no-deps lpips (or pass heads_path)"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / HEADS_FILE
    if not path.is_file():
        raise MissingWeightsError(f"the installed lpips package has no {HEADS_FILE} (looked at {path})")
    return path


def alexnet_features(torch: Any) -> Any:
    """AlexNet's convolutional ``features``, laid out as torchvision's (so its weights load by name)."""
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(3, 64, kernel_size=11, stride=4, padding=2),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(kernel_size=3, stride=2),
        nn.Conv2d(64, 192, kernel_size=5, padding=2),
        nn.ReLU(inplace=True),
        nn.MaxPool2d(kernel_size=3, stride=2),
        nn.Conv2d(192, 384, kernel_size=3, padding=1),
        nn.ReLU(inplace=True),
        nn.Conv2d(384, 256, kernel_size=3, padding=1),
        nn.ReLU(inplace=True),
        nn.Conv2d(256, 256, kernel_size=3, padding=1),
        nn.ReLU(inplace=True),
    )


class Lpips:
    """LPIPS distances between images (lower is closer; 0 for identical images).

    Args:
        trunk_path: torchvision's ``alexnet-owt-7be5be79.pth`` (or another AlexNet state
            dict with its ``features.*`` keys).
        heads_path: the lpips heads (default: the installed ``lpips`` package's file).
        device: a torch device.

    Raises:
        MissingWeightsError: a weight file is missing; the message names what goes where.
        MissingDependencyError: torch, or the lpips package when ``heads_path`` is not given.
    """

    def __init__(self, trunk_path: str | Path, *, heads_path: str | Path | None = None, device: str = "cpu") -> None:
        trunk = Path(trunk_path).expanduser()
        if not trunk.is_file():
            raise MissingWeightsError(
                f"LPIPS needs torchvision's ImageNet AlexNet weights at {trunk}: copy {TRUNK_FILE} there "
                "(it is what torchvision.models.alexnet(weights='IMAGENET1K_V1') downloads into "
                "$TORCH_HOME/hub/checkpoints/); nothing is downloaded here"
            )
        heads = Path(heads_path).expanduser() if heads_path is not None else packaged_heads()
        if not heads.is_file():
            raise MissingWeightsError(f"LPIPS heads file {heads} does not exist (it is {HEADS_FILE} of the lpips package)")
        torch = require("torch", "hf")
        self._torch = torch
        self.device = device
        self.trunk_path, self.heads_path = trunk, heads
        self.trunk_sha256, self.heads_sha256 = sha256_of(trunk), sha256_of(heads)
        self.features = alexnet_features(torch)
        state = torch.load(trunk, map_location="cpu", weights_only=True)
        features = {key.removeprefix("features."): value for key, value in state.items() if key.startswith("features.")}
        try:
            self.features.load_state_dict(features, strict=True)
        except RuntimeError as error:
            raise MissingWeightsError(f"{trunk} is not a torchvision AlexNet state dict: {error}") from error
        self.features.to(device).eval()
        heads_state = torch.load(heads, map_location="cpu", weights_only=True)
        try:
            self.heads = [heads_state[f"lin{k}.model.1.weight"].to(device) for k in range(len(CHANNELS))]
        except KeyError as error:
            raise MissingWeightsError(f"{heads} is not an lpips alex heads file (missing {error})") from error
        self.shift = torch.tensor(SHIFT, device=device).view(1, 3, 1, 1)
        self.scale = torch.tensor(SCALE, device=device).view(1, 3, 1, 1)

    def _tensor(self, images: Sequence[Image.Image], size: tuple[int, int]) -> Any:
        arrays = [np.asarray((im if im.size == size else im.resize(size)).convert("RGB"), dtype=np.float32) for im in images]
        batch = self._torch.from_numpy(np.stack(arrays)).permute(0, 3, 1, 2).to(self.device)
        return (batch / 127.5 - 1.0 - self.shift) / self.scale

    def _layers(self, batch: Any) -> list[Any]:
        outputs = []
        for index, layer in enumerate(self.features):
            batch = layer(batch)
            if index in TAPS:
                norm = self._torch.sqrt((batch * batch).sum(dim=1, keepdim=True))
                outputs.append(batch / (norm + 1e-10))
        return outputs

    def distances(self, images: Sequence[Image.Image], references: Sequence[Image.Image]) -> list[float]:
        """LPIPS of each image against its reference (images are resized to the reference's size).

        Pairs are batched by reference size.
        """
        if len(images) != len(references):
            raise ValueError(f"{len(images)} images for {len(references)} references")
        result: list[float] = [0.0] * len(images)
        by_size: dict[tuple[int, int], list[int]] = {}
        for index, reference in enumerate(references):
            by_size.setdefault(reference.size, []).append(index)
        with self._torch.inference_mode():
            for size, indices in by_size.items():
                first = self._layers(self._tensor([images[i] for i in indices], size))
                second = self._layers(self._tensor([references[i] for i in indices], size))
                total = 0
                for head, a, b in zip(self.heads, first, second):
                    total = total + self._torch.nn.functional.conv2d((a - b) ** 2, head).mean(dim=(1, 2, 3))
                for position, value in zip(indices, total.tolist()):
                    result[position] = float(value)
        return result

    def describe(self) -> dict[str, Any]:
        """What produced the numbers: recorded beside every LPIPS figure."""
        return {
            "metric": "lpips",
            "net": "alex",
            "version": "0.1",
            "trunk_path": str(self.trunk_path),
            "trunk_sha256": self.trunk_sha256,
            "official_trunk": self.trunk_sha256.startswith(TRUNK_SHA256_PREFIX),
            "heads_sha256": self.heads_sha256,
        }

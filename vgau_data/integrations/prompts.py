"""A protocol's prompt for one dataset row, taken from the package's own episode drivers.

Both harness bridges call these, so lmms-eval tasks, VLMEvalKit TSVs and ``vgau-data run``
send the same images and text.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def protocol_episode(row: Mapping[str, Any], protocol: str, reader: str = "ours") -> Any:
    """A fresh episode of ``protocol`` on a dataset row (raw Parquet cells or decoded ``datasets`` rows)."""
    from vgau_data.runners.instances import instance_from_row
    from vgau_data.runners.protocols import ProtocolConfig, make_episode

    return make_episode(instance_from_row(dict(row)), ProtocolConfig(name=protocol, reader=reader), run=0)


def first_message(row: Mapping[str, Any], protocol: str) -> tuple[list[Any], str]:
    """(images, text) of the first message ``protocol`` sends for ``row``."""
    from vgau_data.runners.messages import ImagePart

    message = protocol_episode(row, protocol).request().messages[0]
    return [part.image for part in message.parts if isinstance(part, ImagePart)], message.text

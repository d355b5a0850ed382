"""Gymnasium environments for the six families, registered as ``vgau/<Family>-v0`` on import.

``import vgau_data.envs`` (or ``gymnasium.make("vgau_data.envs:vgau/Maze-v0")``, which
imports it) makes ``gymnasium.make("vgau/Maze-v0")`` and the other five work. Needs the
``gymnasium`` extra. See docs/environments.md.
"""

from __future__ import annotations

try:
    import gymnasium
except ImportError as error:  # an optional extra: say how to get it
    raise ImportError("vgau_data.envs needs gymnasium: pip install 'vgau-data[gymnasium]'") from error

from vgau_data.envs.puzzle import PuzzleGymEnv, env_id
from vgau_data.registry import FAMILIES

__all__ = ["ENV_IDS", "PuzzleGymEnv", "env_id"]

ENV_IDS: tuple[str, ...] = tuple(env_id(name) for name in FAMILIES)
"""Every registered id, in family order (``vgau/Maze-v0``, ...)."""

for _name in FAMILIES:
    if env_id(_name) not in gymnasium.registry:  # importing twice (a reload) registers once
        gymnasium.register(id=env_id(_name), entry_point=PuzzleGymEnv, kwargs={"family": _name})

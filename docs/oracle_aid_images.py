"""Write one picture of each family's oracle aid into docs/images/ (the pictures of docs/oracle-aids.md).

    python docs/oracle_aid_images.py [--out docs/images]

Each picture is the aid of the first medium row of the seed-0 build (the same instance the
published dataset holds), saved as an optimised palette PNG to keep the docs small.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from vgau_data.builders.instances import RowTask, generate_verified
from vgau_data.oracle_aids import oracle_aid
from vgau_data.registry import FAMILIES

ROW = ("medium", 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--out", type=Path, default=Path(__file__).parent / "images")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, family in FAMILIES.items():
        task = RowTask(name, *ROW, master_seed=0)
        state, _ = generate_verified(name, task.difficulty, task.seed, task.slot)
        path = args.out / f"oracle-aid-{name}.png"
        oracle_aid(family, state).quantize(colors=64).save(path, optimize=True)
        print(f"{path} ({path.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()

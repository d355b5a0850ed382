"""The keys of the test set that training rows must not share, and the script that computes them.

The test set is the benchmark as two sources publish it: ours (the seed-0 build, 600
rows) and the authors' (the paper's 600 instances, public repo ``zyb1029/VGAU-Diag``).
For each test instance the package ships (``data/heldout_keys.json``) its exact key and the
canonical keys of its optimal trajectory, start first (``vgau_data.training.keys``): the
numbers only, none of the authors' files.

A training row is banned (``HeldOutKeys.banned``) when any state it passes through before
its goal, its start included, has the canonical key of a test instance's start or of a
state on a test instance's optimal trajectory at least ``MIN_SUFFIX`` steps from that
instance's goal: a training answer through such a state gives away the test answer from
there on. States nearer the goal are left out, on purpose: every onet board ends in one
of about 80 two-tile boards (up to symmetry), so banning those would ban nearly every
onet row for a one-step suffix that gives nothing away.

The authors' path records hold no walls (the map is only in their images), but they hold
the route (``answer_path``) and the labels, which is all the path key reads
(``puzzles/path/symmetry.py``, its ``record_forms``), so their path instances are keyed
like every other; they have no exact key (their state JSON would need the walls).

Recompute the file after a change to a generator that changes the seed-0 build (a test,
``tests/training/test_heldout.py``, fails and says so), from a checkout with an editable
install: this builds the seed-0 dataset in a temporary folder (about 4 minutes on 2
cores), keys our 600 again and keeps the authors' 600 as they are::

    python -m vgau_data.training.heldout --keep-paper

After a change to the keys themselves (a family's ``symmetry.py``), key the authors' 600
again too, from a clone of their repository (``--ours DIR`` reuses a seed-0 build)::

    python -m vgau_data.training.heldout --paper VGAU-Diag
"""

from __future__ import annotations

import functools
import json
import os
import sys
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Final

from vgau_data.errors import PaperDataError, VgauError
from vgau_data.registry import FAMILIES, get_family
from vgau_data.training.keys import exact_key, hash_form, key_hex, trajectory_keys

MIN_SUFFIX: Final = 2
"""Test trajectory states at least this many steps from the goal are banned (see the module docstring)."""
DATA_FILE: Final = "heldout_keys.json"
SHIPPED_FILE: Final = Path(__file__).resolve().parent / "data" / DATA_FILE
"""Where the package's copy lives (``--out``'s default: in a checkout, the file git tracks)."""
FORMAT: Final = 1
SOURCES: Final = ("ours", "paper")


@dataclass(frozen=True, slots=True)
class HeldOutInstance:
    """One test instance: its source, id, exact key (None when unknown) and trajectory keys, start first."""

    source: str
    id: str
    exact: int | None
    trajectory: tuple[int, ...]

    @property
    def key(self) -> int:
        """The canonical key of the instance's start."""
        return self.trajectory[0]

    @property
    def name(self) -> str:
        """``ours:maze-easy-0003`` or ``paper:sokoban_017``: how reports name the instance."""
        return f"{self.source}:{self.id}"


@dataclass
class FamilyHeldOut:
    """One family's test instances, indexed by key."""

    instances: list[HeldOutInstance] = field(default_factory=list)
    by_exact: dict[int, list[HeldOutInstance]] = field(default_factory=lambda: defaultdict(list))
    by_start: dict[int, list[HeldOutInstance]] = field(default_factory=lambda: defaultdict(list))
    by_state: dict[int, list[tuple[HeldOutInstance, int]]] = field(default_factory=lambda: defaultdict(list))
    banned: frozenset[int] = frozenset()

    def add(self, instance: HeldOutInstance) -> None:
        self.instances.append(instance)
        if instance.exact is not None:
            self.by_exact[instance.exact].append(instance)
        self.by_start[instance.key].append(instance)
        steps = len(instance.trajectory)
        for position, key in enumerate(instance.trajectory):
            self.by_state[key].append((instance, steps - position))

    def seal(self) -> None:
        """Fix ``banned``: every start, and every trajectory state ``MIN_SUFFIX`` or more steps from the goal."""
        self.banned = frozenset(self.by_start) | frozenset(
            key for key, hits in self.by_state.items() if any(remaining >= MIN_SUFFIX for _, remaining in hits)
        )


@dataclass
class HeldOutKeys:
    """The whole test set's keys (``load_heldout_keys``), with where they came from."""

    families: dict[str, FamilyHeldOut]
    sources: dict[str, Any]

    def family(self, name: str) -> FamilyHeldOut:
        """The family's test keys; a family the file holds none of is an error (its rows would be checked against nothing)."""
        keys = self.families.get(name)
        if keys is None:
            raise VgauError(f"the test keys hold no {name} instances, so its rows cannot be checked against the test set; "
                            "regenerate them: python -m vgau_data.training.heldout --keep-paper (docs/adding-a-family.md)")
        return keys

    def banned_by(self, family: str, keys: Sequence[int]) -> int | None:
        """The first of ``keys`` (a row's trajectory keys) that the test set bans, or None."""
        banned = self.family(family).banned
        return next((key for key in keys if key in banned), None)


def parse_heldout_keys(data: dict[str, Any]) -> HeldOutKeys:
    """``HeldOutKeys`` of a file's JSON object (``compute_heldout_keys`` writes it).

    Raises:
        VgauError: not this format.
    """
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("families"), dict):
        raise VgauError(f"a test-keys file must be a JSON object of format {FORMAT} with 'families'")
    families = {}
    for name, entries in data["families"].items():
        keys = FamilyHeldOut()
        for entry in entries:
            exact = entry.get("exact")
            keys.add(HeldOutInstance(entry["source"], entry["id"], None if exact is None else int(exact, 16),
                                  tuple(int(key, 16) for key in entry["trajectory"])))
        keys.seal()
        families[get_family(name).name] = keys
    return HeldOutKeys(families, data.get("sources", {}))


@functools.cache
def load_heldout_keys() -> HeldOutKeys:
    """The shipped test keys (``data/heldout_keys.json``), read once per process."""
    text = resources.files("vgau_data.training").joinpath("data").joinpath(DATA_FILE).read_text(encoding="utf-8")
    return parse_heldout_keys(json.loads(text))


# ---------------------------------------------------------------------------- computing them


def _entry(source: str, row_id: str, exact: int | None, trajectory: Sequence[int]) -> dict[str, Any]:
    return {"source": source, "id": row_id, "exact": None if exact is None else key_hex(exact),
            "trajectory": [key_hex(key) for key in trajectory]}


def our_entries(build_dir: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    """``(family, entry)`` for every row of a seed-0 build folder (``vgau-data build --seed 0``).

    Raises:
        VgauError: the folder is not a build, or a build of another seed.
    """
    from vgau_data.builders.build import built_settings
    from vgau_data.builders.load import read_config_columns

    settings = built_settings(build_dir) if build_dir.is_dir() else None
    if settings is None or settings[0] != 0:
        raise VgauError(f"{build_dir} is not a seed-0 build; make one with `vgau-data build --out {build_dir} --seed 0`")
    for name, spec in FAMILIES.items():
        for row in read_config_columns(build_dir, name, ["id", "state", "solution"]):
            state = spec.from_json(row["state"])
            answer = spec.answer_from_payload(row["solution"])
            yield name, _entry("ours", row["id"], exact_key(name, state), trajectory_keys(name, state, answer))


def paper_entries(clone: Path) -> Iterator[tuple[str, dict[str, Any] | str]]:
    """``(family, entry)`` for every instance of the authors' data, or ``(family, message)`` for
    one our rules cannot read (the caller reports it).

    Boards are read and verified as ``vgau-data build --from-paper`` reads them (their solution
    when it replays as an optimal answer, else our solver's); a family whose records hold no
    board without their images (path) is keyed from the record alone, by its symmetry's
    ``record_forms``.
    """
    from vgau_data.builders.from_paper import locate_data, paper_formats, read_manifest, verify_record
    from vgau_data.puzzles.paper_records import where
    from vgau_data.training.keys import symmetry_of

    data_dir = locate_data(clone)
    for name, fmt in paper_formats().items():
        path = data_dir / fmt.manifest
        if not path.is_file():
            yield name, f"{path} is absent"
            continue
        record_forms = symmetry_of(name).record_forms
        for raw in read_manifest(path):
            try:
                if record_forms is not None:
                    task, forms = record_forms(raw)
                    yield name, _entry("paper", task, None, [hash_form(form) for form in forms])
                    continue
                verified = verify_record(name, fmt.read(raw, None))
                spec = FAMILIES[name]
                state = spec.from_json(verified.state)
                yield name, _entry("paper", verified.task_id, exact_key(name, state),
                                   trajectory_keys(name, state, verified.answer))
            except PaperDataError as error:
                yield name, f"{where(name, raw, fmt.id_key)}: {error}"


def compute_heldout_keys(build_dir: Path, clone: Path | None = None,
                         kept: dict[str, Any] | None = None) -> tuple[dict[str, Any], list[str]]:
    """The test-keys file's JSON object and the messages of instances that could not be keyed.

    Our entries come from ``build_dir``; the paper's from ``clone``, or, with ``kept`` (a
    test-keys file's JSON object), are copied from it with its record of where they came
    from (their instances do not change when our generators do).
    """
    from vgau_data import __version__
    from vgau_data.builders.from_paper import PAPER_REPO, clone_commit, locate_data
    from vgau_data.builders.hub_folder import dataset_fingerprint

    families: dict[str, list[dict[str, Any]]] = {name: [] for name in FAMILIES}
    problems: list[str] = []
    for name, entry in our_entries(build_dir):
        families[name].append(entry)
    sources: dict[str, Any] = {
        "ours": {"build": "vgau-data build --seed 0", "vgau_data": __version__,
                 "fingerprint": dataset_fingerprint(build_dir)},
    }
    if clone is not None:
        for name, entry in paper_entries(clone):
            if isinstance(entry, str):
                problems.append(entry)
            else:
                families[name].append(entry)
        sources["paper"] = {"repo": PAPER_REPO, "commit": clone_commit(locate_data(clone)), "unkeyed": problems}
    elif kept is not None:
        parse_heldout_keys(kept)  # refuses a file of another format
        for name, entries in kept["families"].items():
            families[get_family(name).name] += [entry for entry in entries if entry["source"] == "paper"]
        if "paper" in kept.get("sources", {}):
            sources["paper"] = kept["sources"]["paper"]
    counts = {source: sum(e["source"] == source for entries in families.values() for e in entries) for source in SOURCES}
    sources["instances"] = counts
    return {"format": FORMAT, "sources": sources, "families": families}, problems


def dump_heldout_keys(data: dict[str, Any]) -> str:
    """The file's text: one test instance a line, so a regenerated file diffs instance by instance."""
    compact = functools.partial(json.dumps, sort_keys=True, separators=(",", ":"))
    families = ",\n".join(
        f"{compact(name)}:[\n" + ",\n".join(compact(entry) for entry in entries) + "\n]"
        for name, entries in data["families"].items()
    )
    return (f'{{"format":{compact(data["format"])},\n"sources":{compact(data["sources"])},\n'
            f'"families":{{\n{families}\n}}}}\n')


def read_kept(path: Path) -> dict[str, Any]:
    """A test-keys file whose paper entries ``--keep-paper`` keeps.

    Raises:
        VgauError: the file is missing, not JSON, or not a test-keys file.
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        parse_heldout_keys(data)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, VgauError) as error:
        raise VgauError(f"--keep-paper reads {path}, which is not a test-keys file ({str(error)[:100]})") from None
    return data


def main(argv: Sequence[str] | None = None) -> int:
    import argparse
    import tempfile

    from vgau_data.safe_io import write_bytes

    parser = argparse.ArgumentParser(prog="python -m vgau_data.training.heldout",
                                     description="Compute the test keys that generated training rows must avoid.")
    parser.add_argument("--ours", type=Path, default=None,
                        help="a seed-0 build folder (vgau-data build --seed 0); default: build one in a temporary "
                             "folder")
    paper = parser.add_mutually_exclusive_group(required=True)
    paper.add_argument("--paper", type=Path, help="a clone of zyb1029/VGAU-Diag (or its data/): key their 600 again")
    paper.add_argument("--keep-paper", action="store_true", help="keep the paper's keys of the file --out replaces")
    parser.add_argument("--out", type=Path, default=SHIPPED_FILE,
                        help="the JSON file to write (default: the shipped one)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                        help="processes for the seed-0 build (default: all cores)")
    args = parser.parse_args(argv)
    if args.workers < 1:
        parser.error(f"--workers must be >= 1, got {args.workers}")
    try:
        kept = read_kept(args.out) if args.keep_paper else None
        with tempfile.TemporaryDirectory(prefix="vgau-seed0-") as scratch:
            ours = args.ours
            if ours is None:
                from vgau_data.builders.build import build_dataset

                ours = Path(scratch) / "seed0"
                build_dataset(ours, seed=0, workers=args.workers)
            data, problems = compute_heldout_keys(ours, args.paper, kept)
    except VgauError as error:
        print(f"heldout: error: {error}", file=sys.stderr)
        return 2
    write_bytes(args.out, dump_heldout_keys(data).encode("utf-8"))
    for problem in problems:
        print(f"not keyed: {problem}", file=sys.stderr)
    print(f"wrote {args.out}: {data['sources']['instances']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The shipped test keys: where they come from, that they match the boards, and what they ban."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.families import PAPER_FAMILIES, SHIPPED
from tests.toy_family import unshipped_spec
from vgau_data import registry
from vgau_data.builders.from_paper import read_family
from vgau_data.builders.instances import RowTask, generate_verified
from vgau_data.errors import VgauError
from vgau_data.registry import FAMILIES
from vgau_data.training.heldout import (
    MIN_SUFFIX,
    FamilyHeldOut,
    HeldOutInstance,
    dump_heldout_keys,
    load_heldout_keys,
    paper_entries,
    parse_heldout_keys,
)
from vgau_data.training.keys import canonical_key, exact_key, key_hex, trajectory_keys

PAPER_FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "paper"
REGENERATE = (
    "the seed-0 {family} boards are not those the shipped test keys were computed from (a generator changed); "
    "regenerate vgau_data/training/data/heldout_keys.json with `python -m vgau_data.training.heldout --keep-paper` "
    "and commit it (see that module's docstring)"
)


def test_the_shipped_keys_cover_our_600_and_the_papers_600() -> None:
    shipped = load_heldout_keys()
    assert shipped.sources["instances"] == {"ours": 100 * len(SHIPPED), "paper": 600}
    for family in SHIPPED:
        by_source = [i.source for i in shipped.family(family).instances]
        assert by_source.count("ours") == 100 and by_source.count("paper") == 100 * (family in PAPER_FAMILIES)


def test_a_family_the_shipped_keys_lack_is_refused_where_they_are_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bare toy under a new name stands for a new family before the keys are regenerated."""
    monkeypatch.setitem(registry._FAMILIES, "unshipped", unshipped_spec())
    with pytest.raises(VgauError, match="hold no unshipped instances"):
        load_heldout_keys().banned_by("unshipped", [1])


@pytest.mark.parametrize("family", SHIPPED)
def test_our_shipped_keys_are_those_of_the_seed_0_boards(family: str) -> None:
    """Regenerates the first row of each bucket (the full check is the command ``REGENERATE`` names)."""
    entries = {i.id: i for i in load_heldout_keys().family(family).instances if i.source == "ours"}
    for difficulty in ("easy", "medium", "hard"):
        task = RowTask(family, difficulty, 0, 0)
        state, solution = generate_verified(family, difficulty, task.seed, task.slot)
        shipped = entries[task.row_id]
        assert shipped.exact == exact_key(family, state), REGENERATE.format(family=family)
        assert shipped.trajectory == tuple(trajectory_keys(family, state, solution.answer)), REGENERATE.format(
            family=family
        )


def test_the_paper_keys_are_computed_from_their_records_path_by_its_route() -> None:
    entries = [(family, entry) for family, entry in paper_entries(PAPER_FIXTURE) if family in PAPER_FAMILIES]
    assert not [entry for _, entry in entries if isinstance(entry, str)]
    assert sorted({family for family, _ in entries}) == sorted(PAPER_FAMILIES)  # the families the fixture clone holds
    path_entries = [entry for family, entry in entries if family == "path"]
    assert all(entry["exact"] is None for entry in path_entries)
    tasks, failures = read_family(PAPER_FIXTURE / "data", "path")  # the fixture has its images: read the walls
    assert not failures
    spec = FAMILIES["path"]
    for task, entry in zip(tasks, path_entries):
        state = spec.from_json(json.dumps(task.record.state))
        assert entry["id"] == task.record.task_id
        assert entry["trajectory"] == [key_hex(k) for k in trajectory_keys("path", state, spec.solve(state).answer)]


def test_a_broken_paper_record_is_reported_not_keyed(tmp_path: Path) -> None:
    import shutil

    shutil.copytree(PAPER_FIXTURE, tmp_path / "clone")
    manifest = tmp_path / "clone/data/path/dataset_manifest.json"
    records = json.loads(manifest.read_text())
    records[0]["answer_path"] = records[0]["answer_path"][::-1]
    manifest.write_text(json.dumps(records))
    found = [entry for family, entry in paper_entries(tmp_path / "clone") if family == "path"]
    assert isinstance(found[0], str) and "answer_path must run from start to goal" in found[0]
    assert isinstance(found[1], dict)


def test_starts_are_banned_and_trajectory_states_only_far_enough_from_the_goal() -> None:
    keys = FamilyHeldOut()
    keys.add(HeldOutInstance("ours", "a", None, (10, 11, 12, 13)))  # 13 is one step from the goal
    keys.add(HeldOutInstance("paper", "b", None, (13,)))  # ... but it is b's start
    keys.add(HeldOutInstance("paper", "c", None, (20, 21)))
    keys.seal()
    assert MIN_SUFFIX == 2
    assert keys.banned == {10, 11, 12, 13, 20}


def test_the_file_round_trips_one_instance_a_line() -> None:
    data = {"format": 1, "sources": {"instances": {"ours": 1, "paper": 0}},
            "families": {"maze": [{"source": "ours", "id": "m", "exact": "00000000000000ff", "trajectory": ["0a"]}]}}
    text = dump_heldout_keys(data)
    assert json.loads(text) == data and len(text.splitlines()) == 7
    parsed = parse_heldout_keys(json.loads(text))
    assert parsed.family("maze").instances == [HeldOutInstance("ours", "m", 255, (10,))]
    assert parsed.banned_by("maze", [3, 10]) == 10 and parsed.banned_by("maze", [3]) is None
    with pytest.raises(VgauError, match="hold no sokoban instances.*python -m vgau_data.training.heldout --keep-paper"):
        parsed.banned_by("sokoban", [10])  # a family the file lacks is checked against nothing: refused


def test_every_shipped_start_is_the_key_of_its_board() -> None:
    """Ours: the key of the regenerated board equals the instance's first trajectory key."""
    task = RowTask("onet", "hard", 1, 0)
    state, _ = generate_verified("onet", "hard", task.seed, task.slot)
    instance = next(i for i in load_heldout_keys().family("onet").instances if i.id == task.row_id)
    assert instance.key == canonical_key("onet", state), REGENERATE.format(family="onet")


def test_keep_paper_keys_ours_again_and_keeps_the_papers_entries(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from vgau_data.builders.build import build_dataset
    from vgau_data.training.heldout import SHIPPED_FILE, main

    build_dataset(tmp_path / "seed0", families=SHIPPED, counts={"easy": 1, "medium": 0, "hard": 0}, progress=False)
    out = tmp_path / "keys.json"
    out.write_bytes(SHIPPED_FILE.read_bytes())
    assert main(["--ours", str(tmp_path / "seed0"), "--keep-paper", "--out", str(out)]) == 0
    shipped, made = (json.loads(path.read_text()) for path in (SHIPPED_FILE, out))
    assert made["sources"]["instances"] == {"ours": len(SHIPPED), "paper": 600}
    assert made["sources"]["paper"] == shipped["sources"]["paper"]
    for family in SHIPPED:
        ours = [e for e in made["families"][family] if e["source"] == "ours"]
        assert [e["id"] for e in ours] == [f"{family}-easy-0000"]
        assert ours[0] in shipped["families"][family]  # the first easy row of the seed-0 build, keyed as shipped
        assert [e for e in made["families"][family] if e["source"] == "paper"] == [
            e for e in shipped["families"][family] if e["source"] == "paper"]
    (tmp_path / "broken.json").write_text("{}")
    assert main(["--ours", str(tmp_path / "seed0"), "--keep-paper", "--out", str(tmp_path / "broken.json")]) == 2
    assert "is not a test-keys file" in capsys.readouterr().err

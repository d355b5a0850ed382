"""The per-image fidelity cache: right measures, computed once, resumable, bounded on hostile files."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from tests.diagnosis.conftest import entry_for
from tests.runners.test_perceptual import weights  # noqa: F401  (the random LPIPS weights fixture)
from vgau_data.diagnosis import fidelity_cache
from vgau_data.diagnosis.fidelity_cache import FidelityCache, FidelityError, ImageEntry, measure
from vgau_data.errors import InputFileError
from vgau_data.image_gate import ImageRejected
from vgau_data.oracle_aids import oracle_image
from vgau_data.registry import get_family


def _cells(state: object) -> int:
    return len(get_family("maze").fidelity.cell_labels(state))


def test_measure__oracle_perturbed_and_noise(maze_images, maze_state, tmp_path: Path) -> None:
    found = measure(list(maze_images.values()), tmp_path / "fidelity.jsonl", progress=False)
    by_name = {name: found.records[entry.key] for name, entry in maze_images.items()}
    assert by_name["oracle"]["cell_agreement"] == 1.0 and by_name["oracle"]["cells_exact"] is True
    assert by_name["oracle"]["ssim"] == pytest.approx(1.0)
    assert by_name["perturbed"]["cell_agreement"] == pytest.approx(1 - 2 / _cells(maze_state))
    assert by_name["perturbed"]["cells_exact"] is False
    assert by_name["noise"]["cell_agreement"] < 0.1
    assert found.computed == 3 and not found.problems


def test_measure__a_rerun_reads_the_cache_and_computes_nothing(maze_images, tmp_path: Path, monkeypatch) -> None:
    cache = tmp_path / "fidelity.jsonl"
    first = measure(list(maze_images.values()), cache, progress=False)
    monkeypatch.setattr(fidelity_cache, "image_fidelity", _must_not_run)
    again = measure(list(maze_images.values()), cache, progress=False)
    assert again.computed == 0 and again.records == first.records


def _must_not_run(*args: object) -> None:
    raise AssertionError("measured again")


def test_measure__a_killed_run_resumes_where_it_stopped(maze_images, tmp_path: Path, monkeypatch) -> None:
    cache = tmp_path / "fidelity.jsonl"
    entries = list(maze_images.values())
    monkeypatch.setattr(fidelity_cache, "BATCH", 1)
    real = fidelity_cache.image_fidelity
    calls: list[object] = []

    def dies_on_the_third(*args: object) -> object:
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(fidelity_cache, "image_fidelity", dies_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        measure(entries, cache, progress=False)
    assert len(cache.read_text().splitlines()) == 2
    with cache.open("ab") as handle:  # and a torn line, as from a kill mid-write
        handle.write(b'{"key": "abc", "cell_agr')
    monkeypatch.setattr(fidelity_cache, "image_fidelity", real)
    resumed = measure(entries, cache, progress=False)
    assert resumed.computed == 1 and len(resumed.records) == 3
    assert all(json.loads(line)["key"] for line in cache.read_text().splitlines())


def test_measure__one_image_judged_against_two_truths_is_two_entries(maze_images, tmp_path: Path) -> None:
    """A mismatch substitute is another instance's oracle image: the same bytes, another truth."""
    maze = get_family("maze")
    oracle = maze_images["oracle"]
    other_state = maze.fidelity.palette_states()[0]
    as_substitute = dataclasses.replace(oracle, state=maze.to_json(other_state))
    found = measure([oracle, as_substitute], tmp_path / "fidelity.jsonl", progress=False)
    assert oracle.key != as_substitute.key
    assert found.records[oracle.key]["cell_agreement"] == 1.0
    assert found.records[as_substitute.key]["cell_agreement"] < 1.0


def test_measure__duplicates_are_measured_once(maze_images, tmp_path: Path) -> None:
    found = measure([maze_images["oracle"]] * 3, tmp_path / "fidelity.jsonl", progress=False)
    assert found.computed == 1 and len((tmp_path / "fidelity.jsonl").read_text().splitlines()) == 1


def test_measure__unreadable_images_are_reported_not_cached(maze_images, maze_state, tmp_path: Path) -> None:
    altered = maze_images["oracle"]
    altered.path.write_bytes(maze_images["noise"].path.read_bytes())
    missing = dataclasses.replace(maze_images["perturbed"], path=tmp_path / "gone.png")
    not_png = tmp_path / "junk.png"
    not_png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\0" * 64)
    junk = ImageEntry(not_png, fidelity_cache.hashlib.sha256(not_png.read_bytes()).hexdigest(), "maze", "aid",
                      altered.state)  # fmt: skip
    found = measure([altered, missing, junk], tmp_path / "fidelity.jsonl", progress=False)
    assert set(found.problems) == {altered.key, missing.key, junk.key} and not found.records
    assert "do not hash to" in found.problems[altered.key]
    assert "not a readable image" in found.problems[junk.key] or "cannot identify" in found.problems[junk.key]
    assert not (tmp_path / "fidelity.jsonl").read_text()


def test_load_image__refuses_oversized_images(maze_images, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(fidelity_cache, "MAX_IMAGE_PIXELS", 100 * 100)
    with pytest.raises(ImageRejected, match="552x552 pixels"):
        fidelity_cache.load_image(maze_images["oracle"])
    monkeypatch.setattr(fidelity_cache, "MAX_IMAGE_BYTES", 10)
    with pytest.raises(InputFileError, match="bytes"):
        fidelity_cache.load_image(maze_images["oracle"])


def test_measure__vr_drawings_are_read_as_routes(tmp_path: Path, maze_state) -> None:
    maze = get_family("maze")
    entry = entry_for(tmp_path, oracle_image(maze, maze_state, "vr"), "maze", "vr", maze_state)
    record = measure([entry], tmp_path / "fidelity.jsonl", progress=False).records[entry.key]
    assert record["route_feasible"] is True
    assert record["route_length"] == maze.solve(maze_state).optimal_length


def test_cache__one_writer_at_a_time(tmp_path: Path) -> None:
    with FidelityCache(tmp_path / "fidelity.jsonl"), pytest.raises(FidelityError, match="another"):
        FidelityCache(tmp_path / "fidelity.jsonl")


def test_cache__forged_mistyped_and_corrupt_lines_are_measured_again(maze_images, tmp_path: Path) -> None:
    """A run folder may come from anyone: only lines this machine sealed, of the right shape, count."""
    oracle = maze_images["oracle"]
    path = tmp_path / "fidelity.jsonl"
    measure([oracle], path, progress=False)
    (sealed,) = [json.loads(line) for line in path.read_text().splitlines()]
    forged = {**sealed, "cell_agreement": 0.123}  # the seal no longer matches
    unsealed = {k: v for k, v in forged.items() if k != "seal"}
    mistyped = {**sealed, "cell_agreement": "0.123"}
    path.write_text("\n".join([json.dumps(forged), "not json", json.dumps(unsealed), json.dumps(mistyped),
                               json.dumps([1, 2]), "[" * 200 + "]" * 200]) + "\n")  # fmt: skip
    found = measure([oracle], path, progress=False)
    assert found.records[oracle.key]["cell_agreement"] == 1.0
    assert found.computed == 1 and found.ignored == 6


def test_cache__a_line_sealed_elsewhere_or_for_another_image_is_measured_again(
    maze_images, tmp_path: Path, monkeypatch
) -> None:
    oracle, noise = maze_images["oracle"], maze_images["noise"]
    path = tmp_path / "fidelity.jsonl"
    monkeypatch.setenv("VGAU_DATA_CACHE_DIR", str(tmp_path / "another-machine"))
    measure([oracle], path, progress=False)
    monkeypatch.undo()
    assert measure([oracle], path, progress=False).computed == 1  # another key: not ours
    # the noise image's bytes filed under the oracle's line: its own sha and measures are used, not the oracle's
    substitute = dataclasses.replace(oracle, sha256=noise.sha256, path=noise.path)
    assert measure([substitute], path, progress=False).records[substitute.key]["cell_agreement"] < 0.1
    oracle.path.write_bytes(noise.path.read_bytes())  # the file changed since it was measured
    found = measure([oracle], path, progress=False)
    assert oracle.key in found.problems and oracle.key not in found.records


def test_cache__a_cache_that_is_not_a_regular_file_is_one_error(tmp_path: Path) -> None:
    path = tmp_path / "fidelity.jsonl"
    path.symlink_to("/dev/zero")
    with pytest.raises(FidelityError, match="leads outside"):
        FidelityCache(path)


def test_measure__lpips_is_cached_with_its_weights(maze_images, tmp_path: Path, weights) -> None:  # noqa: F811
    from vgau_data.runners.perceptual import Lpips

    cache = tmp_path / "fidelity.jsonl"
    entries = list(maze_images.values())
    measure(entries, cache, progress=False)  # measures without LPIPS first
    scorer = Lpips(weights[0], heads_path=weights[1])
    found = measure(entries, cache, lpips=scorer, progress=False)
    oracle = found.records[maze_images["oracle"].key]
    assert oracle["lpips"] == 0.0 and oracle["lpips_trunk_sha256"] == scorer.trunk_sha256
    assert found.records[maze_images["noise"].key]["lpips"] > found.records[maze_images["perturbed"].key]["lpips"] > 0
    assert found.computed == 0  # the cell measures came from the cache; only LPIPS lines were added
    lines = cache.read_text().splitlines()
    assert len(lines) == 6
    assert len(measure(entries, cache, lpips=scorer, progress=False).records) == 3
    assert len(cache.read_text().splitlines()) == 6


def test_measure__workers_give_the_same_numbers(maze_images, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(fidelity_cache, "BATCH", 1)
    entries = list(maze_images.values())
    alone = measure(entries, tmp_path / "one.jsonl", progress=False)
    pooled = measure(entries, tmp_path / "two.jsonl", workers=2, progress=False)
    assert pooled.records == alone.records

"""Records: keys, append-only writing, torn lines, resume, model separation, shard merging."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from vgau_data.runners.backends.base import Completion, GenParams
from vgau_data.runners.backends.scripted import ScriptedBackend
from vgau_data.runners.driver import RunPlan, run_benchmark
from vgau_data.runners.instances import resolve_dataset, shard_instances
from vgau_data.runners.policies import make_policy
from vgau_data.runners.protocols import ProtocolConfig
from vgau_data.runners.records import (
    RecordsError,
    RecordWriter,
    RunRequest,
    episode_key,
    expected_work,
    final_records,
    finished_keys,
    folder_lock,
    merge_shards,
    model_slug,
    read_records,
    read_requests,
    record_request,
)
from vgau_data.runners.report import collect_records, score_records, write_report

BASE_KEY = {
    "model_fingerprint": "m" * 64,
    "backend": "hf",
    "protocol": {"name": "oracle_vcot", "budget": "optimal", "prompt_version": "1"},
    "instance_id": "maze-easy-0000",
    "run": 0,
    "gen": {"max_new_tokens": 8192, "greedy": True},
}
HEADER = {
    "model_fingerprint": "f" * 64,
    "backend_name": "scripted",
    "protocol": {"name": "direct"},
    "gen": {"seed": 0},
    "dataset_fingerprint": "d" * 64,
}
EPISODE = {"id": "maze-easy-0000", "reference": "{}"}
"""The fields every episode line has besides its key (what readers need to score it)."""


@pytest.mark.parametrize(
    "change",
    [
        {"model_fingerprint": "n" * 64},
        {"backend": "vllm"},
        {"protocol": {"name": "oracle_vcot", "budget": "fixed", "prompt_version": "1"}},
        {"protocol": {"name": "oracle_vcot", "budget": "optimal", "prompt_version": "2"}},
        {"instance_id": "maze-easy-0001"},
        {"run": 1},
        {"gen": {"max_new_tokens": 8, "greedy": True}},
    ],
)
def test_episode_key__changes_with_every_component(change: dict) -> None:
    assert episode_key(**{**BASE_KEY, **change}) != episode_key(**BASE_KEY)
    assert episode_key(**BASE_KEY) == episode_key(**dict(BASE_KEY))


def test_model_slug__is_a_safe_folder_name_with_the_fingerprint() -> None:
    assert model_slug("/m/Qwen2.5-VL-7B/", "0123456789") == "Qwen2.5-VL-7B-01234567"
    assert model_slug("gpt 5.4 / mini?", "ab" * 8) == "mini-abababab"
    assert "/" not in model_slug("a/b c:d", "00000000")


def test_writer__writes_header_then_whole_lines_and_reopens_with_the_same_settings(tmp_path: Path) -> None:
    path = tmp_path / "r" / "run-0.jsonl"
    with RecordWriter(path, HEADER) as writer:
        writer.append({**EPISODE, "key": "a", "error": None, "output": "x"})
    with RecordWriter(path, HEADER) as writer:
        writer.append({**EPISODE, "key": "b", "error": "HTTP 503", "output": None})
    header, episodes = read_records(path)
    assert header is not None and header["type"] == "header" and header["dataset_fingerprint"] == "d" * 64
    assert [e["key"] for e in episodes] == ["a", "b"]
    assert path.read_bytes().endswith(b"\n") and path.read_bytes().count(b"\n") == 3
    assert finished_keys([path]) == {"a"}


@pytest.mark.parametrize("field", ["model_fingerprint", "dataset_fingerprint", "gen", "protocol"])
def test_writer__refuses_to_mix_settings_in_one_file(tmp_path: Path, field: str) -> None:
    path = tmp_path / "run-0.jsonl"
    RecordWriter(path, HEADER).close()
    with pytest.raises(RecordsError, match=field):
        RecordWriter(path, {**HEADER, field: "something else"})


def test_writer__one_writer_per_file(tmp_path: Path) -> None:
    path = tmp_path / "run-0.jsonl"
    with RecordWriter(path, HEADER), pytest.raises(RecordsError, match="another process"):
        RecordWriter(path, HEADER)


def test_torn_last_line__is_ignored_when_read_and_cut_before_the_next_append(tmp_path: Path) -> None:
    path = tmp_path / "run-0.jsonl"
    with RecordWriter(path, HEADER) as writer:
        writer.append({**EPISODE, "key": "a", "error": None})
    with path.open("ab") as handle:
        handle.write(b'{"key":"b","error":nu')
    assert [e["key"] for e in read_records(path)[1]] == ["a"]
    with RecordWriter(path, HEADER) as writer:
        writer.append({**EPISODE, "key": "c", "error": None})
    assert [e["key"] for e in read_records(path)[1]] == ["a", "c"]
    assert all(json.loads(line) for line in path.read_text().splitlines())


def test_corrupt_middle_line__is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "run-0.jsonl"
    path.write_text('{"type":"header"}\nnot json\n{"type":"episode","key":"a"}\n')
    with pytest.raises(RecordsError, match="line 2"):
        read_records(path)


def test_final_records__error_free_lines_win_over_errors_in_any_order() -> None:
    lines = [
        {"key": "a", "error": "x", "n": 1},
        {"key": "b", "error": None, "n": 2},
        {"key": "a", "error": None, "n": 3},
        {"key": "b", "error": "late", "n": 4},
        {"key": "c", "error": "x", "n": 5},
        {"key": "c", "error": "y", "n": 6},
    ]
    final = final_records(lines)
    assert {key: record["n"] for key, record in final.items()} == {"a": 3, "b": 2, "c": 6}


def _plan(out: Path, *configs: ProtocolConfig, shard: tuple[int, int] | None = None, runs: int = 1) -> RunPlan:
    return RunPlan(
        out_dir=out,
        protocols=configs or (ProtocolConfig(name="direct"),),
        gen=GenParams(max_new_tokens=16),
        runs=runs,
        batch_size=4,
        shard=shard,
        model_name="oracle",
    )


def test_resume__skips_finished_episodes_and_retries_only_errored_ones(tmp_path: Path, instances, dataset_dir) -> None:
    dataset = resolve_dataset(str(dataset_dir))
    oracle = make_policy("oracle", instances)
    flaky_ids = {instances[0].id, instances[3].id}

    def flaky(conversation):
        if conversation.session_id.split("/")[0] in flaky_ids:
            return Completion(error="HTTP 503: overloaded")
        return oracle(conversation)

    plan = _plan(tmp_path, ProtocolConfig(name="direct"), ProtocolConfig(name="oracle_vcot"))
    first = run_benchmark(ScriptedBackend(flaky, policy="oracle"), instances, dataset, plan)
    assert (first.finished, first.errors, first.skipped) == (2 * len(instances), 4, 0)
    report = write_report(first.model_dir)
    assert report.n_errors == 4
    assert not [p.name for p in first.model_dir.iterdir() if p.name.endswith(".tmp")]  # staged, then renamed
    submitted = [json.loads(line) for line in report.submission_path.read_text().splitlines()[1:]]
    assert not flaky_ids & {line["id"] for line in submitted}
    assert "backend errors" in report.text

    seen: list[str] = []

    def healthy(conversation):
        seen.append(conversation.session_id.split("/")[0])
        return oracle(conversation)

    second = run_benchmark(ScriptedBackend(healthy, policy="oracle"), instances, dataset, plan)
    assert second.model_dir == first.model_dir
    assert (second.finished, second.errors, second.skipped) == (4, 0, 2 * len(instances) - 4)
    assert set(seen) == flaky_ids
    final = write_report(second.model_dir)
    assert final.n_errors == 0
    ((_, body),) = final.results.items()
    assert body["direct"]["optimal_accuracy"] == 1.0 and body["oracle_vcot"]["optimal_accuracy"] == 1.0
    third = run_benchmark(ScriptedBackend(healthy, policy="oracle"), instances, dataset, plan)
    assert third.finished == 0 and third.skipped == 2 * len(instances)


def test_resume__a_different_model_never_reuses_another_models_records(tmp_path: Path, instances, dataset_dir) -> None:
    dataset = resolve_dataset(str(dataset_dir))
    first = run_benchmark(
        ScriptedBackend(make_policy("oracle", instances), policy="oracle"), instances, dataset, _plan(tmp_path)
    )
    other = run_benchmark(
        ScriptedBackend(make_policy("random", instances), policy="random"), instances, dataset, _plan(tmp_path)
    )
    assert other.skipped == 0 and other.finished == len(instances)
    assert other.model_dir != first.model_dir
    oracle_records = collect_records(first.model_dir).records
    random_records = collect_records(other.model_dir).records
    assert not {r["key"] for r in oracle_records} & {r["key"] for r in random_records}


def test_shards__partition_the_instances_and_merge_into_one_run(tmp_path: Path, instances, dataset_dir) -> None:
    dataset = resolve_dataset(str(dataset_dir))
    configs = (ProtocolConfig(name="text_cot"), ProtocolConfig(name="oracle_vcot", budget="fixed"))
    backend = ScriptedBackend(make_policy("oracle", instances), policy="oracle")
    parts = [shard_instances(instances, index, 3) for index in range(3)]
    assert sorted(i.id for part in parts for i in part) == sorted(i.id for i in instances)
    for index in (0, 2):
        run_benchmark(backend, parts[index], dataset, _plan(tmp_path / "sharded", *configs, shard=(index, 3)))
    model_dir = next((tmp_path / "sharded").iterdir())
    reports = merge_shards(model_dir)
    assert {r.missing_shards for r in reports} == {(1,)}
    run_benchmark(backend, parts[1], dataset, _plan(tmp_path / "sharded", *configs, shard=(1, 3)))
    reports = merge_shards(model_dir)
    assert {r.missing_shards for r in reports} == {()}
    assert {r.episodes for r in reports} == {len(instances)}
    again = merge_shards(model_dir)
    assert [r.episodes for r in again] == [r.episodes for r in reports]
    merged_header, merged = read_records(model_dir / "records" / "text_cot" / "run-0.jsonl")
    assert merged_header is not None and len(merged_header["merged_from"]) == 4
    assert len({e["key"] for e in merged}) == len(merged) == len(instances)
    run_benchmark(backend, instances, dataset, _plan(tmp_path / "whole", *configs))
    whole = write_report(next((tmp_path / "whole").iterdir()))
    sharded = write_report(model_dir)
    assert _scores(sharded.results) == _scores(whole.results)


def _scores(results: dict) -> dict:
    ((_, body),) = results.items()
    return {p: (r["optimal_accuracy"], r["feasible_accuracy"], r["n"]) for p, r in body.items() if p != "META"}


# ---------------------------------------------------------------- incomplete runs (issue 10)


def test_folder_lock__runs_share_it_and_merge_needs_it_alone(tmp_path: Path) -> None:
    with (
        folder_lock(tmp_path, exclusive=False),
        folder_lock(tmp_path, exclusive=False),
        pytest.raises(RecordsError, match="still writing records here"),
        folder_lock(tmp_path, exclusive=True),
    ):
        pass
    with (
        folder_lock(tmp_path, exclusive=True),
        pytest.raises(RecordsError, match="merge. is rewriting"),
        folder_lock(tmp_path, exclusive=False),
    ):
        pass
    with folder_lock(tmp_path, exclusive=True):
        pass  # released on exit


def test_requests__logged_once_per_distinct_request_and_summed_per_variant(tmp_path: Path) -> None:
    first = RunRequest(("direct", "text_cot"), 2, (("maze-easy-0000", "maze", "easy"), ("maze_0007", "maze", "hard")), (0, 3))
    second = RunRequest(("direct",), 3, (("path-easy-0002", "path", "easy"),), (2, 3))
    for request in (first, first, second):
        record_request(tmp_path, request)
    assert read_requests(tmp_path) == [first, second]
    expected = expected_work(read_requests(tmp_path))
    assert expected["direct"].rows == {
        "maze-easy-0000": ("maze", "easy"), "maze_0007": ("maze", "hard"), "path-easy-0002": ("path", "easy")
    }
    assert (expected["direct"].runs, expected["text_cot"].runs) == (3, 2)
    assert expected["direct"].missing_shards == ((1, 3),)
    assert expected["text_cot"].missing_shards == ((1, 3), (2, 3))


def test_report__a_protocol_never_started_and_a_shard_never_run_are_incomplete(
    tmp_path: Path, instances, dataset_dir
) -> None:
    dataset = resolve_dataset(str(dataset_dir))
    backend = ScriptedBackend(make_policy("oracle", instances), policy="oracle")
    configs = (ProtocolConfig(name="direct"), ProtocolConfig(name="text_cot"))
    part = shard_instances(instances, 0, 2)
    summary = run_benchmark(backend, part, dataset, _plan(tmp_path, *configs, shard=(0, 2), runs=2))
    for path in (summary.model_dir / "records" / "text_cot").iterdir():
        path.unlink()  # as if killed before text_cot started
    merge_shards(summary.model_dir)
    report = write_report(summary.model_dir)
    ((_, body),) = report.results.items()
    rest = len(instances) - len(part)  # shard 1's rows, and text_cot's every row: scored as failed, as `score` does
    assert body["text_cot"]["missing"] == [len(instances)] * 2 and body["text_cot"]["optimal_accuracy"] == 0.0
    assert body["text_cot"]["coverage"] == {"answered": [0, 0], "rows": len(instances), "complete": False}
    assert body["direct"]["missing"] == [rest, rest]
    assert body["direct"]["optimal_accuracy"] == pytest.approx(len(part) / len(instances))
    assert body["direct"]["coverage"] == {"answered": [len(part)] * 2, "rows": len(instances), "complete": False}
    assert [line.split(":")[1].strip() for line in report.incomplete] == ["direct", "text_cot"]
    assert all("shard(s) 1/2 never started: their rows score as failed" in line for line in report.incomplete)
    assert "text_cot" in report.text and f"{len(part)}/{len(instances)}" in report.text
    _, _, unfinished = score_records(collect_records(summary.model_dir))  # the diagnosis' scope: rows asked for
    assert all("their rows are not counted" in line for line in unfinished)


def test_run__refuses_to_start_while_merge_holds_the_folder(tmp_path: Path, instances, dataset_dir) -> None:
    dataset = resolve_dataset(str(dataset_dir))
    backend = ScriptedBackend(make_policy("oracle", instances), policy="oracle")
    summary = run_benchmark(backend, instances[:1], dataset, _plan(tmp_path))
    with folder_lock(summary.model_dir, exclusive=True), pytest.raises(RecordsError, match="rerun when it has finished"):
        run_benchmark(backend, instances, dataset, _plan(tmp_path))

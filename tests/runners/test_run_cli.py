"""``vgau-data run`` and ``vgau-data merge`` end to end: tiny HF models, a loopback server, scripted baselines."""

from __future__ import annotations

import hashlib
import json
import urllib.parse
from pathlib import Path

import pytest

from tests.runners.conftest import completion_payload, echo_headers, redirect_to, reply_bytes, reply_json
from vgau_data.cli import main
from vgau_data.metrics.references import load_references
from vgau_data.metrics.submission import read_submission
from vgau_data.runners.backends.credentials import basic_authorization

ALL_VARIANTS = {
    "direct",
    "text_cot",
    "oracle_gta",
    "oracle_vcot",
    "oracle_vcot_fixed",
    "oracle_aug_vcot",
    "oracle_aug_vcot_fixed",
    "oracle_vr",
}
"""What ``--protocol all`` runs on a model that cannot draw."""
STEP_UP = "Next, move one step up."


def _run(dataset_dir: Path, out: Path, *args: str) -> int:
    return main(["run", "--dataset", str(dataset_dir), "--out", str(out), "--no-progress", *args])


def _only_model_dir(out: Path) -> Path:
    (model_dir,) = [p for p in out.iterdir() if p.is_dir()]
    return model_dir


def _results(model_dir: Path) -> dict:
    ((_, body),) = json.loads((model_dir / "results.json").read_text()).items()
    return {protocol: result for protocol, result in body.items() if protocol != "META"}


def _records(model_dir: Path) -> list[dict]:
    lines = []
    for path in sorted((model_dir / "records").glob("*/run-*.jsonl")):
        lines += [json.loads(line) for line in path.read_text().splitlines()[1:]]
    return lines


@pytest.mark.parametrize(("kind", "reply"), [("qwen2_5_vl", STEP_UP), ("qwen2_vl", None), ("qwen3_vl", None)])
def test_run__tiny_hf_model_produces_a_scored_submission_for_all_five_protocols(
    kind: str, reply: str | None, tiny_model_dirs, dataset_dir: Path, tmp_path: Path, capsys
) -> None:
    model = tiny_model_dirs(kind, reply=reply)
    families = ["maze", "sokoban", "klotski"] if reply else ["maze"]
    rc = _run(
        dataset_dir,
        tmp_path,
        "--backend",
        "hf",
        "--model",
        str(model),
        "--protocol",
        "all",
        "--budget",
        "optimal",
        "fixed",
        "--families",
        *families,
        "--limit",
        "1",
        "--max-new-tokens",
        "8",
        "--batch-size",
        "4",
    )
    assert rc == 0
    model_dir = _only_model_dir(tmp_path)
    submission = read_submission(model_dir / "submission.jsonl")
    assert set(submission.protocols()) == ALL_VARIANTS
    assert len(submission.records) == len(ALL_VARIANTS) * len(families)
    assert submission.header.model == str(model)
    assert set(_results(model_dir)) == ALL_VARIANTS
    printed = capsys.readouterr().out
    assert "optimal accuracy" in printed and "oracle_aug_vcot_fixed" in printed
    records = _records(model_dir)
    assert all(r["turns"][0]["prompt_tokens"] for r in records)
    if reply:
        # The reply model always says "up": mazes walk up turn after turn until a wall or the edge;
        # under the fixed budget its answer to the count question is no count, which ends the episode.
        walks = [r for r in records if r["task"] == "maze" and "vcot" in r["protocol"]]
        assert all(t["text"] == STEP_UP for r in walks for t in r["turns"])
        assert max(len(r["turns"]) for r in walks) >= 2
        assert {r["end"] for r in walks if "fixed" not in r["protocol"]} <= {"illegal", "budget", "goal"}
        assert {r["end"] for r in walks if "fixed" in r["protocol"]} <= {"illegal", "unparseable_count"}
        klotski = [r for r in records if r["task"] == "klotski" and r["protocol"] == "oracle_vcot"]
        assert [r["end"] for r in klotski] == ["unparseable"]


def test_run__loopback_server_oracle_scores_100_percent_on_every_protocol(oracle_server, dataset_dir, tmp_path) -> None:
    server = oracle_server()
    rc = _run(
        dataset_dir,
        tmp_path,
        "--backend",
        "openai",
        "--base-url",
        server.url,
        "--model",
        "served-oracle",
        "--protocol",
        "all",
        "--budget",
        "optimal",
        "fixed",
        "--concurrency",
        "4",
    )
    assert rc == 0
    results = _results(_only_model_dir(tmp_path))
    assert set(results) == ALL_VARIANTS
    assert {protocol: r["optimal_accuracy"] for protocol, r in results.items()} == dict.fromkeys(ALL_VARIANTS, 1.0)
    assert all(r["n"] == 18 for r in results.values())


def test_run__failed_requests_are_recorded_scored_as_missing_and_retried_by_a_rerun(
    fake_server, oracle_server, dataset_dir, tmp_path, capsys
) -> None:
    server = oracle_server(fail_next=[503] * 3)
    args = (
        "--backend",
        "openai",
        "--base-url",
        server.url,
        "--model",
        "served",
        "--protocol",
        "direct",
        "--families",
        "maze",
        "--max-retries",
        "1",
        "--batch-size",
        "1",
        "--concurrency",
        "1",
    )
    assert _run(dataset_dir, tmp_path, *args) == 1
    model_dir = _only_model_dir(tmp_path)
    errored = [r for r in _records(model_dir) if r["error"]]
    assert len(errored) == 1 and errored[0]["output"] is None and "HTTP 503" in errored[0]["error"]
    submission = read_submission(model_dir / "submission.jsonl")
    assert errored[0]["id"] not in {r.id for r in submission.records} and len(submission.records) == 2
    out = capsys.readouterr().out
    assert "incomplete: direct: 1 requested row(s) unfinished over 1 run(s)" in out and "backend errors" in out
    direct = _results(model_dir)["direct"]
    rows = len(load_references(dataset_dir).rows)  # every dataset row counts, as `vgau-data score` counts the submission
    assert (direct["n"], direct["missing"], direct["n_error"]) == (rows, [rows - 2], 1)
    assert direct["optimal_accuracy"] == pytest.approx(2 / rows)
    assert direct["per_family"]["maze"]["optimal_accuracy"] == pytest.approx(2 / 3)
    assert direct["coverage"] == {"answered": [2], "rows": rows, "complete": False} and f"2/{rows}" in out
    server.requests.clear()
    assert _run(dataset_dir, tmp_path, *args) == 0
    assert len(server.requests) == 1
    assert {r.id for r in read_submission(model_dir / "submission.jsonl").records} == {
        f"maze-{d}" for d in ("easy-0000", "easy-0001", "medium-0000")
    }
    assert _results(model_dir)["direct"]["per_family"]["maze"]["optimal_accuracy"] == 1.0


def test_run__scripted_oracle_submission_passes_vgau_data_score(dataset_dir, tmp_path, capsys) -> None:
    assert (
        _run(dataset_dir, tmp_path, "--backend", "scripted", "--model", "oracle", "--protocol", "direct,oracle_vcot")
        == 0
    )
    submission = _only_model_dir(tmp_path) / "submission.jsonl"
    capsys.readouterr()
    assert main(["score", str(submission), "--dataset", str(dataset_dir), "--out", str(tmp_path / "scored.json")]) == 0
    ((_, body),) = json.loads((tmp_path / "scored.json").read_text()).items()
    assert body["direct"]["optimal_accuracy"] == 1.0 and body["oracle_vcot"]["optimal_accuracy"] == 1.0


def test_run__limit_prints_the_numbers_and_coverage_score_gives_for_its_submission(
    dataset_dir, tmp_path, capsys
) -> None:
    args = ("--backend", "scripted", "--model", "oracle", "--protocol", "direct", "oracle_vcot", "--limit", "2")
    assert _run(dataset_dir, tmp_path, *args) == 0
    printed = capsys.readouterr().out
    model_dir = _only_model_dir(tmp_path)
    assert main(["score", str(model_dir / "submission.jsonl"), "--dataset", str(dataset_dir),
                 "--out", str(tmp_path / "scored.json")]) == 0
    scored = capsys.readouterr().out
    rows = len(load_references(dataset_dir).rows)
    tables = scored.split("\nwarning:")[0]
    assert tables in printed and f"12/{rows}" in tables  # the same tables, byte for byte, with the coverage
    ((_, body),) = json.loads((tmp_path / "scored.json").read_text()).items()
    run_results = _results(model_dir)
    for protocol in ("direct", "oracle_vcot"):
        assert run_results[protocol]["optimal_accuracy"] == body[protocol]["optimal_accuracy"] == pytest.approx(12 / rows)
        assert run_results[protocol]["coverage"] == body[protocol]["coverage"]
    assert "--subset" in printed
    assert main(["leaderboard", str(model_dir / "results.json"), "--out", str(tmp_path / "space")]) == 0
    for row in json.loads((tmp_path / "space" / "leaderboard.json").read_text()):  # what the page shows
        assert row["cells"]["optimal"]["overall"] == body[row["protocol"]]["optimal_accuracy"]
        assert row["coverage"] == {"answered": [12], "rows": rows} and row["status"] == "incomplete"


def test_run__stop_early_scores_below_the_oracle_under_fixed(dataset_dir, tmp_path) -> None:
    args = (
        "--backend",
        "scripted",
        "--protocol",
        "oracle_vcot",
        "--budget",
        "optimal",
        "fixed",
        "--families",
        "maze",
        "sokoban",
    )
    assert _run(dataset_dir, tmp_path / "stop", "--model", "oracle-stop-early", *args) == 0
    results = _results(_only_model_dir(tmp_path / "stop"))
    for family in ("maze", "sokoban"):  # the optimal budget ignores remaining counts
        assert results["oracle_vcot"]["per_family"][family]["optimal_accuracy"] == 1.0
    assert results["oracle_vcot_fixed"]["feasible_accuracy"] < results["oracle_vcot"]["feasible_accuracy"]


def test_merge__a_model_path_leaving_the_out_folder_is_refused(dataset_dir, tmp_path, capsys) -> None:
    """``merge --out A --model ../B/<model>`` would rewrite another folder's reports."""
    from tests.bounded import run_cli_bounded

    assert _run(dataset_dir, tmp_path / "B", "--backend", "scripted", "--model", "oracle", "--protocol", "direct") == 0
    other = _only_model_dir(tmp_path / "B")
    before = {p.name: p.read_bytes() for p in other.iterdir() if p.is_file()}
    (tmp_path / "A").mkdir()
    for model in (f"../B/{other.name}", str(other), "..", "."):
        run_cli_bounded(["merge", "--out", str(tmp_path / "A"), "--model", model]).assert_one_line_error(
            "--model must name one model folder directly under"
        )
    (tmp_path / "A" / "linked").symlink_to(other)  # a link out of A is no model folder of A either
    run_cli_bounded(["merge", "--out", str(tmp_path / "A"), "--model", "linked"]).assert_one_line_error("--model")
    everything = run_cli_bounded(["merge", "--out", str(tmp_path / "A")])
    assert everything.returncode == 2 and "Traceback" not in everything.stderr
    assert "linked leads outside" in everything.stderr and "no model folders with records" in everything.stderr
    assert {p.name: p.read_bytes() for p in other.iterdir() if p.is_file()} == before


def test_run__more_runs_than_a_folder_may_request_is_a_usage_error(dataset_dir, tmp_path) -> None:
    assert _run(dataset_dir, tmp_path, "--backend", "scripted", "--model", "oracle", "--runs", "101") == 2


def test_run_and_merge__shards_merge_into_the_same_scores(dataset_dir, tmp_path, capsys) -> None:
    args = ("--backend", "scripted", "--model", "random", "--protocol", "text_cot", "oracle_aug_vcot", "--runs", "2")
    for index in range(2):
        assert _run(dataset_dir, tmp_path / "sharded", *args, "--shard", f"{index}/2") == 0
    model_dir = _only_model_dir(tmp_path / "sharded")
    assert not (model_dir / "submission.jsonl").exists()
    assert main(["merge", "--out", str(tmp_path / "sharded"), "--dataset", str(tmp_path / "moved")]) == 2
    assert "cannot load the dataset" in capsys.readouterr().err
    assert main(["merge", "--out", str(tmp_path / "sharded")]) == 0  # the folder the records name
    assert "optimal accuracy" in capsys.readouterr().out
    assert _run(dataset_dir, tmp_path / "whole", *args) == 0
    sharded, whole = _results(model_dir), _results(_only_model_dir(tmp_path / "whole"))
    assert {p: (r["optimal_accuracy"], r["feasible_accuracy"], r["runs"]) for p, r in sharded.items()} == {
        p: (r["optimal_accuracy"], r["feasible_accuracy"], r["runs"]) for p, r in whole.items()
    }
    assert all(r["runs"] == 2 for r in sharded.values())


def test_run__bad_arguments_fail_with_a_message(dataset_dir, tmp_path, capsys) -> None:
    assert _run(dataset_dir, tmp_path, "--backend", "scripted", "--model", "oracle", "--protocol", "telepathy") == 2
    assert "unknown protocol" in capsys.readouterr().err
    assert _run(dataset_dir, tmp_path, "--backend", "scripted", "--model", "oracle", "--protocol", "self_vr") == 2
    assert "'self_vr' has the model draw, and backend 'scripted' makes no images" in capsys.readouterr().err
    other_protocols = ["--backend", "scripted", "--model", "oracle", "--protocol", "text_cot"]
    assert _run(dataset_dir, tmp_path, *other_protocols, "--generation-context", "direct") == 0, (
        "a generation context applies to the protocols that draw, and leaves the others as they are"
    )
    assert (
        _run(
            dataset_dir,
            tmp_path,
            "--backend",
            "scripted",
            "--model",
            "oracle",
            "--protocol",
            "direct",
            "--shard",
            "2/2",
        )
        == 2
    )
    assert "--shard" in capsys.readouterr().err
    assert _run(dataset_dir, tmp_path, "--backend", "hf", "--model", str(tmp_path), "--protocol", "direct") == 2
    assert "config.json" in capsys.readouterr().err


def test_run__odd_replies_and_key_echoes_never_crash_the_run_or_reach_a_file(
    fake_server, dataset_dir, tmp_path, monkeypatch, capsys
) -> None:
    key, password = "sk-live-abcdef0123456789", "urlpass-secret"
    elsewhere = fake_server(lambda body, headers: STEP_UP)
    faults = [
        reply_json(completion_payload({"text": STEP_UP})),
        reply_json({"choices": [{"message": "str"}]}),
        reply_json({**completion_payload(STEP_UP), "usage": 5}),
        reply_json(completion_payload(7)),
        redirect_to(elsewhere.url + "/chat/completions"),
        echo_headers(400),
        echo_headers(500),
        reply_bytes(lambda headers: json.dumps(completion_payload(f"{headers} {STEP_UP}")).encode()),
    ]
    counter = iter(range(10_000))

    def rotate(handler, headers) -> None:
        faults[next(counter) % len(faults)](handler, headers)

    server = fake_server(lambda body, headers: "never", fault=rotate)
    monkeypatch.setenv("TEST_RUN_KEY", key)
    url = server.url.replace("http://", f"http://alice:{password}@")
    args = (
        "--backend",
        "openai",
        "--base-url",
        url,
        "--api-key-env",
        "TEST_RUN_KEY",
        "--model",
        "served",
        "--protocol",
        "direct",
        "oracle_vcot",
        "--max-retries",
        "0",
        "--concurrency",
        "1",
        "--batch-size",
        "1",
    )
    assert _run(dataset_dir, tmp_path, *args) == 1
    assert elsewhere.requests == []
    model_dir = _only_model_dir(tmp_path)
    records = _records(model_dir)
    assert len(records) == 2 * 18 and all(isinstance(r["output"], (str, type(None))) for r in records)
    assert sum(r["error"] is not None for r in records) >= 18
    leaks = [key, password, basic_authorization(("alice", password)).split()[1]]
    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not [leak for leak in leaks if leak.encode() in data], path
    assert main(["score", str(model_dir / "submission.jsonl"), "--dataset", str(dataset_dir)]) == 0
    assert key not in capsys.readouterr().out


def test_run__a_key_in_the_base_url_query_reaches_the_server_and_no_file(
    fake_server, dataset_dir, tmp_path, capsys
) -> None:
    secret = "gw-secret-0123456789/+x"
    server = fake_server(lambda body, headers: STEP_UP, fail_next=[500])
    encoded = urllib.parse.quote(secret, safe="")
    url = f"{server.url}?key={encoded}&api-version=2024-10#frag-{secret[:12]}"
    args = ("--backend", "openai", "--base-url", url, "--model", "served", "--protocol", "direct",
            "--families", "maze", "--max-retries", "0", "--concurrency", "1")  # fmt: skip
    assert _run(dataset_dir, tmp_path, *args) in (0, 1)  # the injected 500 leaves one episode errored
    assert server.paths and all(path.endswith(f"?key={encoded}&api-version=2024-10") for path in server.paths)
    leaks = [secret, encoded, encoded.lower(), "frag-", "2024-10"]
    for path in tmp_path.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not [leak for leak in leaks if leak.encode() in data], path
    captured = capsys.readouterr()
    assert not [leak for leak in leaks if leak in captured.out + captured.err]
    header = json.loads((_only_model_dir(tmp_path) / "submission.jsonl").read_text().splitlines()[0])
    assert header["settings"]["backend"]["base_url"] == server.url


def test_run__backend_args_reach_the_backend_and_unknown_ones_are_refused(dataset_dir, tmp_path, capsys) -> None:
    base = ("--backend", "scripted", "--model", "oracle", "--protocol", "direct", "--families", "maze")
    assert _run(dataset_dir, tmp_path / "named", *base, "--backend-arg", "policy=oracle-as-named") == 0
    header = json.loads((_only_model_dir(tmp_path / "named") / "submission.jsonl").read_text().splitlines()[0])
    assert header["settings"]["backend"]["model"] == "oracle-as-named"
    capsys.readouterr()
    assert _run(dataset_dir, tmp_path / "bad", *base, "--backend-arg", "temperature_of_mars=3") == 2
    err = capsys.readouterr().err
    assert "does not take temperature_of_mars" in err and "policy" in err and "Traceback" not in err
    assert _run(dataset_dir, tmp_path / "bad", *base, "--base-url", "http://127.0.0.1:1/v1") == 2
    assert "does not take base_url" in capsys.readouterr().err
    assert _run(dataset_dir, tmp_path / "bad", *base, "--backend-arg", "no-equals-sign") == 2
    assert "KEY=VALUE" in capsys.readouterr().err


def test_report__episodes_stopped_by_the_cap_are_counted_and_named(dataset_dir, instances, tmp_path) -> None:
    from vgau_data.puzzles.base import DELTAS, DIRECTIONS, Illegal
    from vgau_data.runners.backends.base import GenParams
    from vgau_data.runners.backends.scripted import ScriptedBackend
    from vgau_data.runners.driver import RunPlan, run_benchmark
    from vgau_data.runners.instances import resolve_dataset
    from vgau_data.runners.protocols import ProtocolConfig
    from vgau_data.runners.report import write_report

    mazes = [i for i in instances if i.task == "maze"]

    def shuttle(conversation) -> str:  # back and forth, never done
        if conversation.asks == "remaining":
            return "<answer>2</answer>"
        maze = next(i for i in mazes if conversation.session_id.startswith(i.id))
        state = maze.initial_state()
        there = next(d for d in DIRECTIONS if not isinstance(maze.family.apply_step(state, d), Illegal))
        back = next(d for d in DIRECTIONS if DELTAS[d] == tuple(-x for x in DELTAS[there]))
        return maze.family.format_step(there if conversation.n_assistant_turns % 2 == 0 else back)

    plan = RunPlan(
        out_dir=tmp_path, protocols=[ProtocolConfig(name="oracle_vcot", budget="fixed")], gen=GenParams(), runs=1
    )
    summary = run_benchmark(ScriptedBackend(shuttle, policy="shuttle"), mazes, resolve_dataset(str(dataset_dir)), plan)
    report = write_report(summary.model_dir)
    ((_, body),) = report.results.items()
    assert body["oracle_vcot_fixed"]["episode_ends"] == {"cap": len(mazes)}
    assert body["oracle_vcot_fixed"]["optimal_accuracy"] == 0.0
    assert any("step cap" in warning for warning in body["META"]["warnings"])
    assert "step cap" in report.text


# ------------------------------------------------------------------ protocols that draw


SELF_VARIANTS = ["self_gta", "self_vcot", "self_vcot_fixed", "self_vr"]


def _image_records(model_dir: Path) -> list[dict]:
    return [image for record in _records(model_dir) for image in record.get("images", [])]


def test_run__scripted_image_oracle_scores_100_percent_under_every_self_protocol(dataset_dir, tmp_path, capsys) -> None:
    args = ["--backend", "scripted-image", "--model", "oracle", "--protocol", *SELF_VARIANTS]
    assert _run(dataset_dir, tmp_path, *args) == 0
    model_dir = _only_model_dir(tmp_path)
    assert model_dir.name.startswith("scripted-image-oracle-")
    results = _results(model_dir)
    assert sorted(results) == sorted(SELF_VARIANTS)
    assert all(r["optimal_accuracy"] == 1.0 and r["runs"] == 3 for r in results.values()), results
    images = _image_records(model_dir)
    assert {(i["source"], i["generator"]) for i in images} == {("oracle", "scripted-image:oracle")}
    assert {i["purpose"] for i in images} == {"aid", "next_state", "vr"}
    for image in images:
        data = (model_dir / "images" / image["sha256"][:2] / f"{image['sha256']}.png").read_bytes()
        assert hashlib.sha256(data).hexdigest() == image["sha256"]
    headers = [json.loads(p.read_text().splitlines()[0]) for p in (model_dir / "records").glob("*/run-*.jsonl")]
    assert {h["images"]["source"] for h in headers} == {"oracle"}
    assert "self_vcot_fixed x3" in capsys.readouterr().err
    index = (model_dir / "images" / "generated.jsonl").read_text().splitlines()
    assert _run(dataset_dir, tmp_path, *args) == 0, "a rerun resumes"
    assert (model_dir / "images" / "generated.jsonl").read_text().splitlines() == index, "and generates nothing"


@pytest.mark.parametrize("model", ["noise", "mismatch", "perturbed-2"])
def test_run__scripted_image_controls_run_end_to_end(model: str, dataset_dir, tmp_path) -> None:
    args = ["--backend", "scripted-image", "--model", model, "--protocol", *SELF_VARIANTS, "--runs", "1"]
    assert _run(dataset_dir, tmp_path, *args, "--families", "maze", "onet", "--difficulty", "easy") == 0
    model_dir = _only_model_dir(tmp_path)
    images = _image_records(model_dir)
    assert {i["source"] for i in images} == {model} and all(i["sha256"] for i in images)
    if model == "mismatch":
        assert all(i["substitute"].startswith(("maze-", "onet-")) for i in images)
    assert set(_results(model_dir)) == set(SELF_VARIANTS)


def test_run__pairs_with_two_generators_are_two_models(dataset_dir, tmp_path) -> None:
    folders, answerers = [], set()
    for generator_model in ("noise", "mismatch"):
        out = tmp_path / generator_model
        args = ["--backend", "pair", "--generator", "scripted-image", "--generator-model", generator_model,
                "--backend-arg", "answerer=scripted", "--model", "oracle", "--protocol", "self_gta", "--runs", "1",
                "--difficulty", "easy", "--families", "maze"]  # fmt: skip
        assert _run(dataset_dir, out, *args) == 0
        folders.append(_only_model_dir(out))
        submission = read_submission(folders[-1] / "submission.jsonl")
        assert submission.header.model == f"oracle+scripted-image-{generator_model}"
        header = json.loads((folders[-1] / "records" / "self_gta" / "run-0.jsonl").read_text().splitlines()[0])
        assert header["images"] == {"source": generator_model, "generator": f"scripted-image:{generator_model}"}
        answerers.add(header["backend"]["answerer_fingerprint"])
    assert folders[0].name.split("-")[-1] != folders[1].name.split("-")[-1], "fingerprints differ"
    assert len(answerers) == 1, "the answerer's own fingerprint joins the pairs of one answering model"
    assert [p.name.rsplit("-", 1)[0] for p in folders] == [
        "oracle+scripted-image-noise",
        "oracle+scripted-image-mismatch",
    ]


def test_run__generation_contexts_are_variants_with_their_own_keys(dataset_dir, tmp_path) -> None:
    args = ["--backend", "scripted-image", "--model", "oracle", "--protocol", "self_vcot", "all", "--runs", "1",
            "--limit", "1", "--families", "maze", "--generation-context", "reasoning", "decontextualized"]  # fmt: skip
    assert _run(dataset_dir, tmp_path, *args) == 0
    results = _results(_only_model_dir(tmp_path))
    assert {"self_vcot", "self_vcot_decontextualized", "self_gta_decontextualized", "text_cot", "oracle_vr"} <= set(
        results
    ), "all: every protocol the backend plays, each drawing one in both contexts"
    assert "text_cot_decontextualized" not in results
    records = _records(_only_model_dir(tmp_path))
    contexts = {r["protocol"]: {i["context"] for i in r.get("images", [])} for r in records}
    assert contexts["self_vr_decontextualized"] == {"decontextualized"} and contexts["self_vr"] == {"reasoning"}
    keys = [r["key"] for r in records]
    assert len(keys) == len(set(keys))


def test_run__reader_authors_plays_and_scores_episodes_the_authors_way(dataset_dir, tmp_path, capsys) -> None:
    """Scripted oracle: their runners solve every optimal episode; under the fixed budget their path
    runner wants 0 one move before the destination, so the honest count fails every path row."""
    args = ("--backend", "scripted", "--model", "oracle", "--protocol", "text_cot", "oracle_vcot", "--budget",
            "optimal", "fixed", "--reader", "authors")  # fmt: skip
    assert _run(dataset_dir, tmp_path, *args) == 0
    model_dir = _only_model_dir(tmp_path)
    results = _results(model_dir)
    assert set(results) == {"text_cot_authors", "oracle_vcot_authors", "oracle_vcot_fixed_authors"}
    assert all(result["reader"] == "authors" for result in results.values())
    assert results["oracle_vcot_authors"]["optimal_accuracy"] == 1.0
    fixed = results["oracle_vcot_fixed_authors"]["per_family"]
    assert fixed["path"]["optimal_accuracy"] == 0.0
    assert all(cell["optimal_accuracy"] == 1.0 for family, cell in fixed.items() if family != "path")
    assert results["oracle_vcot_fixed_authors"]["episode_ends"]["stopped_late"] == fixed["path"]["n"]
    ((_, body),) = json.loads((model_dir / "results.json").read_text()).items()
    assert body["META"]["reader"] == "authors"
    headers = [json.loads(p.read_text().splitlines()[0]) for p in (model_dir / "records").glob("*/run-*.jsonl")]
    assert headers and all(h["reader"] == "authors" and h["protocol"]["reader"] == "authors" for h in headers)
    # the same outputs read by both readers: the difference is printed per cell
    capsys.readouterr()
    out = tmp_path / "scored.json"
    assert main(["score", str(model_dir / "submission.jsonl"), "--dataset", str(dataset_dir), "--reader", "both",
                 "--out", str(out)]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    assert "text_cot_authors [ours]" in printed and "oracle_vcot_fixed_authors [authors-ours]" in printed
    for reader in ("ours", "authors"):
        ((_, scored),) = json.loads(out.with_name(f"scored.{reader}.json").read_text()).items()
        assert scored["META"]["reader"] == reader and scored["text_cot_authors"]["optimal_accuracy"] == 1.0
    assert "its episodes were played under the 'authors' reader" in printed


def test_run__reader_ours_keeps_records_keys_and_names(dataset_dir, tmp_path) -> None:
    assert _run(dataset_dir, tmp_path, "--backend", "scripted", "--model", "oracle", "--protocol", "direct") == 0
    model_dir = _only_model_dir(tmp_path)
    (path,) = (model_dir / "records").glob("*/run-*.jsonl")
    header = json.loads(path.read_text().splitlines()[0])
    assert path.parent.name == "direct" and header["reader"] == "ours" and "reader" not in header["protocol"]

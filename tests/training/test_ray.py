"""``--engine ray`` on a real two-node Ray cluster on 127.0.0.1 (``ray.cluster_utils.Cluster``).

Ray shards are byte-identical to one process's; a node removed mid-run loses and
duplicates nothing (Ray retries its tasks, which write whole files or none); a rerun makes
only what is missing. Loopback only: ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` keeps every
socket on 127.0.0.1 (scale-out notes), usage stats are off.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from tests.training.test_generate import make, shard_digests

pytestmark = pytest.mark.distributed

os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"
NODE = {"num_cpus": 1, "object_store_memory": 100 * 2**20}
ROOT = Path(__file__).resolve().parents[2]


def _ray():
    try:
        import ray
    except ImportError:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail("ray is in the test extra but is not installed")
        pytest.skip('ray is not installed: pip install "vgau-data[ray]"')
    return ray


@pytest.fixture(scope="module")
def cluster():
    ray = _ray()
    from ray.cluster_utils import Cluster

    saved = os.environ.get("PYTHONPATH")
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), saved]))  # workers import tests.training.ray_spy
    try:
        two = Cluster(initialize_head=True, head_node_args=NODE | {"include_dashboard": False})
        worker = two.add_node(**NODE)
    finally:
        if saved is None:
            os.environ.pop("PYTHONPATH")
        else:
            os.environ["PYTHONPATH"] = saved
    ray.init(address=two.address, logging_level="WARNING", log_to_driver=False)
    two.wait_for_nodes()
    _warm(ray, [two.head_node.node_id, worker.node_id])
    yield two, worker
    ray.shutdown()
    two.shutdown()


def _warm(ray, node_ids: list[str]) -> None:
    """A worker process on each node that has imported what the shards need, before any test runs.

    On a loaded machine a node's first worker process can take longer to start and import
    than the other node takes to build every shard; the node-removal test then finds no
    shard running on the node it removes."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    @ray.remote(num_cpus=1)
    def imported() -> str:
        import tests.training.ray_spy  # noqa: F401  (what logged_build_shard imports)

        return ray.get_runtime_context().get_node_id()

    calls = [imported.options(scheduling_strategy=NodeAffinitySchedulingStrategy(node, soft=False)).remote()
             for node in node_ids]
    assert ray.get(calls, timeout=120) == node_ids


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """Digests of the shards one process writes for the same arguments."""
    out = tmp_path_factory.mktemp("local") / "out"
    make(out, n=16)
    return shard_digests(out)


def test_ray_tasks_on_two_nodes_write_the_same_bytes_as_one_process(cluster, reference, tmp_path: Path) -> None:
    ray = _ray()
    assert len([node for node in ray.nodes() if node["Alive"]]) == 2
    report = make(tmp_path / "ray", n=16, engine="ray", workers=None)
    assert report.shards_made == len(reference)
    assert shard_digests(tmp_path / "ray") == reference
    (tmp_path / "ray/klotski/train-00001-of-00008.parquet").unlink()
    rerun = make(tmp_path / "ray", n=16, engine="ray", workers=None)
    assert (rerun.shards_made, rerun.shards_skipped, rerun.chunks_made) == (1, 7, 0)  # maze is complete: not even read
    assert shard_digests(tmp_path / "ray") == reference


def test_a_node_removed_mid_run_loses_and_duplicates_nothing(cluster, reference, tmp_path: Path, monkeypatch) -> None:
    """The worker node is removed while it runs a shard: Ray runs that shard again on the head node."""
    from tests.training import ray_spy
    from vgau_data.training import generate

    two, worker = cluster
    out = tmp_path / "lossy"
    log = tmp_path / "tries.log"
    monkeypatch.setattr(generate, "build_shard", ray_spy.logged_build_shard)
    finished_before: list[bool] = []

    def remove_while_it_runs_a_shard() -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (log.is_file() and f" {worker.node_id}" in log.read_text()):
            time.sleep(0.005)
        two.remove_node(worker)
        finished_before.append((out / "README.md").exists())

    remover = threading.Thread(target=remove_while_it_runs_a_shard)
    remover.start()
    report = make(out, n=16, engine="ray", workers=None)
    remover.join()
    assert finished_before == [False]
    tries = [line.split() for line in log.read_text().splitlines()]
    lost = {path for event, path, node in tries if node == worker.node_id and event == "start"} - {
        path for event, path, node in tries if node == worker.node_id and event == "end"}
    assert lost, "no shard was running on the removed node"
    assert all(["end", path, node] in tries for path in lost for node in {n for _, _, n in tries} - {worker.node_id})
    assert sum(shard["rows"] for part in report.parts.values() for shard in part["shards"]) == 2 * 2 * 16
    assert shard_digests(out) == reference

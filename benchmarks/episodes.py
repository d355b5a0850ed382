"""Episodes per second with lock-step batching vs one episode at a time, on a tiny CPU model.

Builds a tiny random Qwen VLM (or uses --model) and a small dataset (or uses --dataset),
then drives the same episodes with ``batch_size=B`` and with ``batch_size=1`` and prints
both rates and their ratio. ``--reply`` wires the tiny model to always answer one step,
so interactive protocols run several turns per episode.

    PYTHONPATH=. python benchmarks/episodes.py                       # direct, 64 new tokens, batch 16
    PYTHONPATH=. python benchmarks/episodes.py --max-new-tokens 8
    PYTHONPATH=. python benchmarks/episodes.py --protocol oracle_vcot --families maze sokoban \
        --reply 'Next, move one step up.'

What to expect on CPU: batching amortizes the per-step cost of ``generate``, so the
speed-up grows with the tokens generated (~1.7x at 8, ~4x at 64 on 2 cores). Image
preprocessing and the padded prefill cost the same per row batched or not, so short
replies over long multi-image prompts gain little here; on a GPU they batch too.
"""

from __future__ import annotations

import argparse
import logging
import tempfile
import time
from pathlib import Path

from vgau_data.runners.backends import load_backend
from vgau_data.runners.backends.base import GenParams
from vgau_data.runners.driver import drive
from vgau_data.runners.instances import load_instances
from vgau_data.runners.protocols import ProtocolConfig, make_episode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default=None, help="model folder (default: build a tiny one)")
    parser.add_argument("--kind", default="qwen2_5_vl", help="tiny model kind when --model is not given")
    parser.add_argument("--reply", default=None, help="tiny model that always answers this text")
    parser.add_argument("--dataset", default=None, help="built dataset folder (default: build a small one)")
    parser.add_argument("--families", nargs="+", default=["maze", "sokoban", "path", "onet", "parking", "klotski"])
    parser.add_argument("--protocol", default="direct")
    parser.add_argument("--episodes", type=int, default=48)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--max-new-tokens", type=int, default=64)
    parser.add_argument("--threads", type=int, default=1, help="torch CPU threads (1 is steadiest on a shared box)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.ERROR)

    scratch = Path(tempfile.mkdtemp(prefix="vgau-bench-"))
    model = args.model
    if model is None:
        from vgau_data.testing.tiny_models import build_tiny_vlm

        model = str(build_tiny_vlm(args.kind, scratch / "model", reply=args.reply))
    dataset = args.dataset
    if dataset is None:
        from vgau_data.builders import build_dataset

        dataset = str(scratch / "dataset")
        build_dataset(dataset, families=args.families, counts={"easy": 4, "medium": 0, "hard": 0}, progress=False)
    pool = load_instances(dataset, families=args.families)
    # Family-major order, as a real run drives them (batches then hold prompts of similar length).
    instances = [pool[i * len(pool) // args.episodes] for i in range(args.episodes)]
    import torch

    torch.set_num_threads(args.threads)
    backend = load_backend("hf", model=model, device="cpu")
    config = ProtocolConfig(name=args.protocol)
    gen = GenParams(max_new_tokens=args.max_new_tokens)
    drive(backend, [make_episode(instances[0], config, 0)], gen, batch_size=1)  # warm-up

    rates = {}
    for batch_size in (args.batch_size, 1):
        episodes = [make_episode(instance, config, 0) for instance in instances]
        start = time.perf_counter()
        stats = drive(backend, episodes, gen, batch_size=batch_size)
        seconds = time.perf_counter() - start
        rates[batch_size] = len(episodes) / seconds
        print(
            f"batch {batch_size:>3}: {len(episodes)} episodes, {stats.turns} turns, {stats.calls} calls "
            f"in {seconds:.2f} s -> {rates[batch_size]:.2f} episodes/s"
        )
    info = backend.describe()
    print(
        f"model {info['model_type']} ({info['processor']} processor), protocol {config.variant}, "
        f"max_new_tokens {args.max_new_tokens}, {args.threads} thread(s), torch {info['torch']}, "
        f"transformers {info['transformers']}"
    )
    print(f"lock-step speed-up at batch {args.batch_size}: {rates[args.batch_size] / rates[1]:.1f}x")


if __name__ == "__main__":
    main()

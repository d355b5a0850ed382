"""What a lent GPU should measure, in one unattended run: episodes/s, images/s and peak memory per backend.

Each case drives a few episodes of one protocol through one backend, on ``cuda`` and on
``cpu`` (the ratio is the GPU's gain), in its own process (checkout stand-ins import
modules with generic names; a crash or a hang costs one case, not the run):

- ``hf``: a tiny random Qwen2.5-VL built from its config, always answering one move;
- ``vllm``: the same folder through vLLM (cuda only; skipped when vllm does not import);
- ``janus``: a tiny random Janus that answers and draws (text to image);
- ``pair`` with ``diffusers``: a tiny random InstructPix2Pix editing the board for the tiny Qwen
  (on CPU its VAE's attention over a whole board takes minutes: that case records a timeout);
- every checkout adapter on its test stand-in (``tests/runners/fake_checkouts``): these
  measure the adapter and driver around the model, not a model.

Figures go to one JSON file (``--out``, default ``gpu-figures.json``); a case that fails or
runs out of time is recorded with its error. The whole run is bounded by ``--budget-s``
(default 450 s, under 8 minutes with the dataset build); cases left when it is spent are
recorded as skipped.

    PYTHONPATH=. python benchmarks/gpu.py --dry-run     # the plan, on any machine (CI runs this)
    PYTHONPATH=. python benchmarks/gpu.py --out gpu-figures.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REPLY = "Next, move one step up. <ANSWER_JSON>[\"up\"]</ANSWER_JSON>"
DRAWING = ("self_gta", "self_vcot", "self_vr")
BOTH, CUDA_ONLY, CPU_ONLY = ("cuda", "cpu"), ("cuda",), ("cpu",)


@dataclass(frozen=True)
class Case:
    """One backend on one device, through ``protocols``, ``episodes`` each, within ``timeout_s``."""

    name: str
    backend: str
    protocols: tuple[str, ...]
    device: str
    episodes: int = 8
    timeout_s: int = 60


def plan() -> list[Case]:
    """Every case, GPU first per backend so a short budget still measures the GPU."""
    specs = [
        ("hf", "hf", ("direct", "oracle_vcot"), BOTH),
        ("vllm", "vllm", ("direct", "oracle_vcot"), CUDA_ONLY),
        ("janus", "janus", DRAWING, BOTH),
        ("diffusers", "pair", ("self_gta", "self_vr"), BOTH),
        *((f"stand-in:{name}", name, DRAWING, BOTH) for name in ("showo2", "llada2-uni", "star", "mammothmoda2", "omnigen2")),
        *((f"stand-in:{name}", name, DRAWING, CPU_ONLY) for name in ("bagel", "longcat-next")),
    ]
    return [
        Case(name, backend, protocols, device, timeout_s=90 if name == "vllm" else 40 if name.startswith("stand") else 60)
        for name, backend, protocols, devices in specs for device in devices
    ]  # fmt: skip


# ---------------------------------------------------------------- one case, in its own process


def _stand_in(backend: str, scratch: Path, device: str) -> tuple[str, dict[str, Any]]:
    """The stand-in checkout and checkpoint of ``backend`` under ``scratch``: (model, options)."""
    from tests.runners import fake_checkouts
    from tests.runners.fake_checkouts import bagel, llada2_uni, longcat_next, mammothmoda2, omnigen2, showo2, star

    on = {"device": device}
    if backend == "showo2":
        llm, siglip = showo2.write_side_models(scratch / "side")
        return str(showo2.write_checkpoint(scratch / "ckpt", llm=str(llm), siglip=str(siglip))), {
            "repo": str(showo2.write(scratch / "repo")), "num_inference_steps": 2, **on}
    if backend == "llada2-uni":
        sys.modules["transformers"] = fake_checkouts.FakeTransformers()  # type: ignore[assignment]
        return str(llada2_uni.write_checkpoint(scratch / "ckpt")), {"repo": str(llada2_uni.write(scratch / "repo")), **on}
    if backend == "star":
        repo = star.write(scratch / "repo")
        return str(star.write_checkpoint(repo / "checkpoints" / "STAR-7B.pt")), {"repo": str(repo), **on}
    if backend == "mammothmoda2":
        return str(mammothmoda2.write_checkpoint(scratch / "ckpt")), {
            "repo": str(mammothmoda2.write(scratch / "repo")), "height": 64, "width": 64, **on}
    if backend == "omnigen2":
        return str(omnigen2.write_checkpoint(scratch / "ckpt")), {
            "repo": str(omnigen2.write(scratch / "repo")), "num_inference_steps": 2, **on}
    if backend == "bagel":
        sys.modules["accelerate"] = bagel.FakeAccelerate()  # type: ignore[assignment]
        return str(bagel.write_checkpoint(scratch / "ckpt")), {"repo": str(bagel.write(scratch / "repo"))}
    if backend == "longcat-next":
        return str(longcat_next.write_checkpoint(scratch / "ckpt")), {
            "repo": str(longcat_next.write(scratch / "repo")), "image_tokens": 4}
    raise ValueError(f"no stand-in for {backend}")


def _model(case: Case, scratch: Path) -> tuple[str, dict[str, Any]]:
    from vgau_data.testing.tiny_generators import build_tiny_edit_pipeline, build_tiny_janus
    from vgau_data.testing.tiny_models import build_tiny_vlm

    if case.name.startswith("stand-in:"):
        return _stand_in(case.backend, scratch, case.device)
    if case.backend == "janus":
        return str(build_tiny_janus(scratch / "janus")), {"device": case.device}
    tiny = str(build_tiny_vlm("qwen2_5_vl", scratch / "qwen", reply=REPLY))
    if case.backend == "vllm":
        return tiny, {"gpu_memory_utilization": 0.3, "max_model_len": 4096}
    if case.backend == "pair":
        pipeline = str(build_tiny_edit_pipeline(scratch / "pix2pix"))
        return tiny, {"generator": "diffusers", "generator_model": pipeline, "generator_options": {"device": case.device, "num_inference_steps": 2},
                      "answerer_options": {"device": case.device}}  # fmt: skip
    return tiny, {"device": case.device}


def run_case(case: Case, dataset: str) -> dict[str, Any]:
    """Drive ``case``: per protocol, episodes/s, images/s and (on cuda) peak memory."""
    import torch

    from vgau_data.runners.backends import load_backend
    from vgau_data.runners.backends.base import GenParams, image_limit
    from vgau_data.runners.driver import drive
    from vgau_data.runners.instances import load_instances
    from vgau_data.runners.protocols import ProtocolConfig, make_episode

    scratch = Path(tempfile.mkdtemp(prefix="vgau-gpu-"))
    model, options = _model(case, scratch)
    backend = load_backend(case.backend, model=model, **options)
    drawn = [0]
    if callable(getattr(backend, "generate", None)):
        original = backend.generate

        def counted(requests: Any, gen: Any) -> Any:
            made = original(requests, gen)
            drawn[0] += sum(1 for image in made if image.ok)
            return made

        backend.generate = counted  # type: ignore[method-assign]
    instances = load_instances(dataset)
    gen = GenParams(max_new_tokens=32)
    figures = {}
    for protocol in case.protocols:
        config = ProtocolConfig(name=protocol, history=image_limit(backend))
        drive(backend, [make_episode(instances[0], config, 0)], gen, batch_size=1)  # warm-up
        if case.device == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        drawn[0] = 0
        episodes = [make_episode(instances[i % len(instances)], config, 0) for i in range(case.episodes)]
        start = time.perf_counter()
        stats = drive(backend, episodes, gen, batch_size=case.episodes)
        if case.device == "cuda":
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        figures[protocol] = {
            "episodes": len(episodes), "turns": stats.turns, "calls": stats.calls, "images": drawn[0],
            "seconds": round(seconds, 4), "episodes_per_s": round(len(episodes) / seconds, 3),
            "images_per_s": round(drawn[0] / seconds, 3),
            "peak_gpu_memory_mib": round(torch.cuda.max_memory_allocated() / 2**20, 1) if case.device == "cuda" else None,
        }  # fmt: skip
    return {"protocols": figures, "torch": torch.__version__}


# ---------------------------------------------------------------- the run


def _build_dataset(folder: Path) -> str:
    from vgau_data.builders import build_dataset

    build_dataset(folder, families=["maze", "sokoban"], counts={"easy": 4, "medium": 0, "hard": 0}, progress=False)
    return str(folder)


def _child(case: Case, dataset: str, deadline: float) -> dict[str, Any]:
    """``case`` in a fresh process, within its timeout and what is left of the budget."""
    left = deadline - time.monotonic()
    if left < 5:
        return {"status": "skipped", "error": "the run's time budget is spent"}
    command = [sys.executable, __file__, "--case", json.dumps(asdict(case)), "--dataset", dataset]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=min(case.timeout_s, left), env=env, check=False)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "error": f"over {min(case.timeout_s, left):.0f} s"}
    if done.returncode != 0:
        return {"status": "failed", "error": (done.stderr or done.stdout)[-1500:]}
    return {"status": "ok", **json.loads(done.stdout.strip().splitlines()[-1])}


def _ratios(results: list[dict[str, Any]]) -> dict[str, dict[str, float]]:
    """GPU over CPU episodes/s per case name and protocol, where both ran."""
    by = {(r["name"], r["device"]): r for r in results if r["status"] == "ok"}
    ratios: dict[str, dict[str, float]] = {}
    for (name, device), gpu in by.items():
        cpu = by.get((name, "cpu"))
        if device != "cuda" or cpu is None:
            continue
        ratios[name] = {p: round(f["episodes_per_s"] / cpu["protocols"][p]["episodes_per_s"], 2)
                        for p, f in gpu["protocols"].items() if cpu["protocols"][p]["episodes_per_s"]}  # fmt: skip
    return ratios


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dry-run", action="store_true", help="print the plan and check it, run nothing")
    parser.add_argument("--out", default="gpu-figures.json", help="the JSON file of figures")
    parser.add_argument("--budget-s", type=float, default=450.0, help="the whole run's time (default 450)")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--dataset", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:  # a child: one case, its figures as the last line of stdout
        print(json.dumps(run_case(Case(**{**json.loads(args.case), "protocols": tuple(json.loads(args.case)["protocols"])}),
                                  args.dataset)))  # fmt: skip
        return
    cases = plan()
    if args.dry_run:
        from vgau_data.runners.backends import BACKENDS

        unknown = sorted({case.backend for case in cases} - set(BACKENDS))
        if unknown:
            raise SystemExit(f"the plan names unregistered backends: {unknown}")
        for case in cases:
            print(f"{case.name:<24} {case.backend:<13} {case.device:<5} {' '.join(case.protocols):<34} "
                  f"{case.episodes} episodes, <= {case.timeout_s} s")  # fmt: skip
        print(f"{len(cases)} cases, <= {sum(c.timeout_s for c in cases)} s of case time within a {args.budget_s:.0f} s "
              f"budget; figures to {args.out}")  # fmt: skip
        return
    import torch

    deadline = time.monotonic() + args.budget_s
    dataset = _build_dataset(Path(tempfile.mkdtemp(prefix="vgau-gpu-data-")))
    results = []
    for case in cases:
        if case.device == "cuda" and not torch.cuda.is_available():
            outcome: dict[str, Any] = {"status": "skipped", "error": "no CUDA device"}
        else:
            outcome = _child(case, dataset, deadline)
        results.append({**asdict(case), **outcome})
        print(f"{case.name:<24} {case.device:<5} {outcome['status']}", flush=True)
    figures = {
        "device": torch.cuda.get_device_name(0) if torch.cuda.is_available() else None,
        "torch": torch.__version__, "budget_s": args.budget_s, "cases": results, "gpu_over_cpu": _ratios(results),
    }  # fmt: skip
    Path(args.out).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

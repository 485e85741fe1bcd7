"""Zoo runs traced with the CUDA activity only: the GPU's timeline, and the host's launch calls,
at close to the host's pace without the CPU profiler.

    python benchmarks/zoo/cuda_only.py --out DIR gpt2_clip_sync:bad qwen2_checkpointing_unneeded:fixed:patched ...

The zoo's traces record every CPU op (record_shapes, profile_memory), which slows the host, and
the analyzer takes the profiler's cost out by estimate (facts.PROFILER_SHARE_OF_HOST_OP; the sync
replay in bottleneck_lab/replay.py builds on it). A trace of the CUDA activity alone records no
CPU op, only kernels, copies and the runtime calls that launched them: what the GPU and the
launching thread did at nearly their unprofiled pace. Set beside the zoo's trace of the same run,
it shows where that estimate goes wrong. Each NAME:VARIANT runs in its own process: built
(benchmarks/zoo/scenarios.py), warmed up, then traced over ACTIVE steps, each step opened by a
one-cycle spin kernel (torch.cuda._sleep) that marks it on both timelines. A third field
`patched` answers transformers' per-forward mask checks without reading the GPU, as
hf_check_cost.py does. Writes DIR/<name>/<variant>[_patched].cuda.json.gz and prints each run's
median step (marker to marker) and GPU busy time a step.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

ACTIVE = 6
MARKER = "spin"  # the name of the kernel torch.cuda._sleep launches contains it


def _patch_hf_checks() -> None:
    """transformers' packed-sequence and padding-mask checks answered without a host read (the
    answers hf_check_cost.py gives: no packing, keep the mask)."""
    from transformers import masking_utils

    masking_utils.find_packed_sequence_indices = lambda position_ids: None
    masking_utils._ignore_bidirectional_mask_sdpa = lambda *args, **kwargs: False


def capture(name: str, variant: str, patched: bool, out: Path) -> dict:
    import scenarios
    import torch
    from torch.profiler import ProfilerActivity, profile

    if patched:
        _patch_hf_checks()
    built = scenarios.BUILDERS[name](variant)
    for _ in range(built.warmup_steps):
        built.step()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        for _ in range(ACTIVE):
            torch.cuda._sleep(1)
            built.step()
        torch.cuda.synchronize()
    path = out / name / f"{variant}{'_patched' if patched else ''}.cuda.json.gz"
    path.parent.mkdir(parents=True, exist_ok=True)
    prof.export_chrome_trace(str(path))
    return {"run": f"{name}/{variant}", "patched": patched, "trace": str(path), **_steps(path)}


def _steps(path: Path) -> dict:
    """Median step (µs between markers) and GPU busy µs a step (kernels and copies, merged)."""
    import gzip

    import numpy as np

    from bottleneck_lab.trace import intervals as iv

    events = json.loads(gzip.open(path).read())["traceEvents"]
    gpu = [
        e for e in events if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and "dur" in e
    ]
    starts = np.array([e["ts"] for e in gpu], dtype=float)
    busy_s, busy_e = iv.union(starts, starts + np.array([e["dur"] for e in gpu], dtype=float))
    marks = np.sort(
        [e["ts"] for e in events if e.get("cat") == "kernel" and MARKER in e.get("name", "")]
    )
    steps = np.diff(marks)
    busy = iv.overlap_with(busy_s, busy_e, marks[:-1], marks[1:])
    return {
        "step_us": round(float(np.median(steps)), 1) if len(steps) else None,
        "gpu_busy_us": round(float(np.median(busy)), 1) if len(busy) else None,
    }


def main() -> int:
    if len(sys.argv) == 6 and sys.argv[1] == "--one":
        name, variant, patched, out = sys.argv[2:]
        print("RESULT " + json.dumps(capture(name, variant, patched == "1", Path(out))), flush=True)
        return 0
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("runs", nargs="+", help="NAME:VARIANT[:patched]")
    args = p.parse_args()
    from isolated import result_of

    rows = []
    for arg in args.runs:
        name, variant, *rest = arg.split(":")
        argv = [name, variant, "1" if rest else "0", str(args.out)]
        row = result_of(__file__, argv, arg, timeout=300)
        if row is not None:
            rows.append(row)
    print(f"\n{'run':<48}{'step ms':>9}{'GPU busy ms':>13}")
    for r in rows:
        label = r["run"] + (" (patched)" if r["patched"] else "")
        print(f"{label:<48}{r['step_us'] / 1e3:>9.2f}{r['gpu_busy_us'] / 1e3:>13.2f}")
    return 0 if len(rows) == len(args.runs) else 1


if __name__ == "__main__":
    sys.exit(main())

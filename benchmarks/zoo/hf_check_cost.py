"""What HF transformers' own per-forward host reads cost: the measured answer for sync_stall
findings whose only syncs are the library's mask checks.

    python benchmarks/zoo/hf_check_cost.py qwen2_checkpointing_unneeded:fixed ...

transformers 5.x reads a GPU tensor on the host in every forward of many models: decoders
without an attention mask check whether their position ids pack several sequences
(masking_utils.find_packed_sequence_indices: `.all()` on a GPU tensor, then `if`), and encoders
with a padding mask check whether it is all ones before handing it to SDPA
(masking_utils._ignore_bidirectional_mask_sdpa). Each is a blocking read (aten::is_nonzero in
the trace). For each NAME[:VARIANT], in its own process: build the run's step
(benchmarks/zoo/scenarios.py), time it outside the profiler as the capture sidecars do, then
with both checks answered without reading the GPU (the packed check: no packing, the answer it
gives for these inputs; the padding check: keep the mask, the answer it gives where there is
padding), so the same kernels run minus the check's own, then as built again. Prints one JSON
line per run and a table last. Only for runs whose checks give those answers (no packed
sequences; padding in every batch that passes a mask): elsewhere the patched run would run other
kernels.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]


def measure(name: str, variant: str) -> dict:
    import scenarios
    import torch
    from transformers import masking_utils

    from bottleneck_lab.capture import TimingSettings, time_steps

    built = scenarios.BUILDERS[name](variant)
    timing = TimingSettings(min_seconds=1.0)
    for _ in range(3):
        built.step()

    def timed() -> float:
        return time_steps(built.step, "cuda", built.timed_steps, timing)["step_time_ms"]["median"]

    before = timed()
    packed, padding = (
        masking_utils.find_packed_sequence_indices,
        masking_utils._ignore_bidirectional_mask_sdpa,
    )
    calls = {"packed": 0, "padding": 0}

    def no_packing(position_ids):
        calls["packed"] += 1
        return None

    def keep_mask(*args, **kwargs):
        calls["padding"] += 1
        return False

    masking_utils.find_packed_sequence_indices = no_packing
    masking_utils._ignore_bidirectional_mask_sdpa = keep_mask
    patched = timed()
    masking_utils.find_packed_sequence_indices, masking_utils._ignore_bidirectional_mask_sdpa = (
        packed,
        padding,
    )
    after = timed()
    base = (before + after) / 2
    return {
        "run": f"{name}/{variant}",
        "as_built_ms": [round(before, 3), round(after, 3)],
        "checks_patched_ms": round(patched, 3),
        "saving_pct": round(100 * (1 - patched / base), 1),
        "patched_calls": calls,
        "transformers": __import__("transformers").__version__,
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(),
    }


def main() -> int:
    import labels
    from isolated import result_of

    if len(sys.argv) == 4 and sys.argv[1] == "--one":
        print("RESULT " + json.dumps(measure(sys.argv[2], sys.argv[3])), flush=True)
        return 0
    rows = []
    for arg in sys.argv[1:]:
        name, _, variant = arg.partition(":")
        variant = variant or next(iter(labels.BY_NAME[name].runs))
        row = result_of(__file__, [name, variant], arg, timeout=300)
        if row is not None:
            rows.append(row)
    print(f"\n{'run':<40}{'as built ms':>16}{'patched ms':>12}{'saving':>8}")
    for r in rows:
        built = "/".join(f"{x:.2f}" for x in r["as_built_ms"])
        print(f"{r['run']:<40}{built:>16}{r['checks_patched_ms']:>12.2f}{r['saving_pct']:>7.1f}%")
    return 0 if len(rows) == len(sys.argv) - 1 else 1


if __name__ == "__main__":
    sys.exit(main())

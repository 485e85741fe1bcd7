"""Time per sample against batch size: does a run's batch still leave throughput on the table?

    python benchmarks/zoo/batch_sweep.py lstm_lm 256 512 1024

Builds scenarios.<NAME>(batch) for each batch in its own process, times it outside the
profiler as the capture sidecars do (3 warm-up steps, then blocks of steps between
synchronisations, at least 1 s), and prints one JSON line per batch and a table last: ms per
step, ms per sample, and the saving per sample against the first batch.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]


def measure(name: str, batch: int) -> dict:
    import scenarios
    import torch

    from bottleneck_lab.capture import TimingSettings, time_steps

    built = getattr(scenarios, name)(batch)
    for _ in range(built.warmup_steps):
        built.step()
    ms = time_steps(built.step, "cuda", built.timed_steps, TimingSettings(min_seconds=1.0))
    step_ms = ms["step_time_ms"]["median"]
    return {
        "run": name,
        "batch": batch,
        "step_ms": round(step_ms, 3),
        "ms_per_sample": round(step_ms / batch, 5),
        "max_memory_allocated_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2),
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(),
    }


def main() -> int:
    from isolated import result_of

    if len(sys.argv) == 4 and sys.argv[1] == "--one":
        print("RESULT " + json.dumps(measure(sys.argv[2], int(sys.argv[3]))), flush=True)
        return 0
    name, batches = sys.argv[1], [int(b) for b in sys.argv[2:]]
    rows = []
    for b in batches:
        row = result_of(__file__, [name, str(b)], f"{name} batch {b}")
        if row is not None:
            rows.append(row)
    if rows:
        base = rows[0]["ms_per_sample"]
        print(f"\n{'batch':>6} {'step ms':>9} {'ms/sample':>10} {'saving/sample':>14}")
        for r in rows:
            saving = 100 * (1 - r["ms_per_sample"] / base)
            print(
                f"{r['batch']:>6} {r['step_ms']:>9.2f} {r['ms_per_sample']:>10.4f} {saving:>13.1f}%"
            )
    return 0 if len(rows) == len(batches) else 1


if __name__ == "__main__":
    sys.exit(main())

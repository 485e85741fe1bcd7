"""What autocast adds to the host, on the zoo's FP32 -> BF16 autocast pairs, and what precision's
promise would be if it knew.

    python benchmarks/autocast_host_ops.py

For each precision pair whose fix is BF16 autocast: recorded ops a step in the FP32 (bad) and
BF16 (fixed) captures and their ratio, the saving measured by the sidecars, precision's promise,
and that promise worked out again as max(host x ratio, GPU time - GPU time saved) against the
step without the profiler, with the host's work taken at the profiler's low and median shares.
The ratio is the BF16 capture's own (an oracle the FP32 trace alone does not have): where even
that does not bring the promise near the measurement, no model of the casts from the FP32 trace
would. A study, not a test: the thirty-ninth session's reading is in traces/README.md (holdout
61).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks" / "zoo")]

import labels  # noqa: E402

from bottleneck_lab import facts  # noqa: E402
from bottleneck_lab.analyze import diagnose  # noqa: E402
from bottleneck_lab.trace import load_trace  # noqa: E402

# precision pairs whose fix is not FP32 -> BF16 autocast (TF32, a layout, a padded vocabulary,
# one head, autocast's backward)
NOT_AUTOCAST = {
    "convnext_channels_last",
    "roberta_tf32_precision",
    "fnet_tf32",
    "llama_added_pad_token",
    "qwen2_fp32_lm_head",
    "reformer_autocast_backward",
}


def ops_per_step(frame) -> float:
    ops = frame.cpu_ops
    return float((ops["step"] >= 0).sum()) / max(len(frame.steps), 1)


def step_ms(path: Path) -> float:
    return json.loads(path.with_name(path.name.replace(".json.gz", ".meta.json")).read_text())[
        "step_time_ms"
    ]["median"]


def promise(frame, ratio: float, gpu_after_us: float, share: float) -> float:
    """The step saved, in %, with the host's work (taken at `share`) `ratio` times as long."""
    host = facts.host_time_us(frame, share) * ratio
    step = facts.step_time_without_profiler_us(frame)
    return max(0.0, 100 * (1 - max(host, gpu_after_us) / step))


def main() -> int:
    print(
        f"{'pair':<30}{'ops FP32':>9}{'ops BF16':>9}{'ratio':>6}{'measured':>9}{'promise':>8}"
        f"{'low x r':>8}{'med x r':>8}"
    )
    for s in labels.ALL:
        if s.fix_kind != "precision" or not s.is_pair or s.name in NOT_AUTOCAST:
            continue
        bad, fixed = (ROOT / "traces" / "zoo" / s.name / f"{v}.json.gz" for v in ("bad", "fixed"))
        frames = load_trace(bad)
        frame = frames[0]
        found = next(
            (f for f in diagnose(frames, path=str(bad)).findings if f.kind == "precision"), None
        )
        n_fp32, n_bf16 = ops_per_step(frame), ops_per_step(load_trace(fixed)[0])
        ratio = n_bf16 / n_fp32
        gpu_after = facts.gpu_time_us(frame) - (
            found.evidence["gpu_time_saved_us_per_step"] if found else 0.0
        )
        measured = 100 * (1 - step_ms(fixed) / step_ms(bad))
        print(
            f"{s.name:<30}{n_fp32:>9.0f}{n_bf16:>9.0f}"
            f"{ratio:>6.2f}{measured:>8.1f}%{(found.share_pct if found else 0.0):>7.1f}%"
            f"{promise(frame, ratio, gpu_after, facts.PROFILER_SHARE_OF_HOST_OP_LOW):>7.1f}%"
            f"{promise(frame, ratio, gpu_after, facts.PROFILER_SHARE_OF_HOST_OP):>7.1f}%"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""FLOPs of every shipped trace with grouped or depthwise convolutions: the analyzer's count
against FlopCounterMode's way of counting, which leaves the groups out of a grouped convolution's
weight gradient (flops/conv.py), and the MFU each gives.

    python benchmarks/grouped_conv_flops.py
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT)]

from bottleneck_lab.analyze import diagnose  # noqa: E402
from bottleneck_lab.op_flops import op_costs  # noqa: E402
from bottleneck_lab.trace import load_trace  # noqa: E402


def excess_per_step(frame) -> float:
    """What FlopCounterMode would count beyond the analyzer on this trace's convolutions."""
    return float(op_costs(frame)["flopcountermode_extra"].sum()) / max(len(frame.steps), 1)


def main() -> int:
    print(f"{'trace':<58}{'TFLOP/step':>11}{'as FCM':>9}{'fewer':>7}{'MFU %':>8}{'as FCM':>8}")
    for path in sorted((ROOT / "traces").glob("*/*/*.json.gz")):
        frames = load_trace(path)
        excess = excess_per_step(frames[0])
        if excess <= 0:
            continue
        s = diagnose(frames, path=str(path)).summary
        fcm = s.flops_per_step + excess
        print(
            f"{str(path.relative_to(ROOT / 'traces')):<58}{s.flops_per_step / 1e12:>11.3f}"
            f"{fcm / 1e12:>9.3f}{100 * excess / fcm:>6.1f}%{s.mfu_pct:>8.2f}"
            f"{s.mfu_pct * fcm / s.flops_per_step:>8.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What BF16 did to the GPU's kernels on every labelled FP32 -> BF16 pair: the facts behind
precision's GPU-side estimate (HALF_PEAK_REACHED, FP32_PEAK_REACHED, _activations_stay_fp32).

    python benchmarks/precision_kernels.py

A pair is taken where most of the bad run's matmul/convolution FLOPs are FP32 (or TF32) and most
of the fixed run's BF16/FP16, read from the traces. For each it prints:
  peak16   the share of the dense half-precision datasheet peak that the fixed run's
           matmul, convolution and attention kernels reached (their FLOPs over their time)
  peak32   the share of the FP32 datasheet peak that the bad run's plain-FP32 (not TF32)
           matrix kernels reached ("-" where they are under a tenth of its matrix time; above 1
           where FP32 ops ran part of their work on TF32 kernels, left out of the median)
  mb x     the fixed run's elementwise + norm + reduction kernel time over the bad run's
  fp32 act whether precision takes the activations to stay FP32 under autocast (norms autocast
           keeps in FP32 outnumber batch norms)
  gpu saved  GPU busy time per step, bad minus fixed (measured), and precision's estimate
           (gpu_time_saved_us_per_step), in ms
  no shapes  that estimate from the bad trace without its recorded shapes (kernel names and
           times: accuracy.without_shapes)
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "benchmarks" / "zoo"), str(ROOT)]

import accuracy  # noqa: E402
import labels  # noqa: E402

from bottleneck_lab import facts  # noqa: E402
from bottleneck_lab.detectors import precision  # noqa: E402
from bottleneck_lab.efficiency import device_peak, kernel_flops, memory_bound_kernels  # noqa: E402
from bottleneck_lab.trace.load import load_frame  # noqa: E402


def _compute(frame) -> tuple[float, float, str]:
    """FLOPs and kernel µs of the steps' matmul/conv/attention kernels, and their main dtype."""
    k = kernel_flops(frame)
    k = k.loc[(k["flops"] > 0) & (k["step"] >= 0)]
    by = k.groupby("dtype")["flops"].sum()
    return float(k["flops"].sum()), float(k["dur"].sum()), str(by.idxmax()) if len(by) else "-"


def _fp32_peak_reached(frame) -> float | None:
    """FLOPs over time of the plain-FP32 matrix kernels, as a share of the FP32 peak."""
    k = kernel_flops(frame)
    k = k.loc[(k["flops"] > 0) & (k["step"] >= 0)]
    fp32 = k.loc[k["dtype"] == "fp32"]
    peak = device_peak(frame)
    if not peak or fp32["dur"].sum() < 0.1 * k["dur"].sum():
        return None
    return float(fp32["flops"].sum() / (fp32["dur"].sum() * 1e6) / peak.peak_for("fp32"))


def _gpu_saved_ms(frame) -> float | None:
    found = precision.detect(frame, precision.Config())
    est = found[0].evidence.get("gpu_time_saved_us_per_step") if found else None
    return est / 1e3 if est is not None else None


def _ms(x: float | None) -> str:
    return f"{x:.1f}" if x is not None else "-"


def _memory_bound_us(frame) -> float:
    mb = memory_bound_kernels(frame)
    return float(mb.loc[mb["device"] == facts.main_device(frame), "dur"].sum())


def main() -> int:
    print(
        f"{'pair':<30}{'peak16':>7}{'peak32':>7}{'mb x':>6}{'fp32 act':>9}{'gpu saved':>11}"
        f"{'estimate':>9}{'no shapes':>10}"
    )
    fractions, fp32_fractions = [], []
    for scenario in labels.ALL:
        if not scenario.is_pair or scenario.gpus > 1:
            continue
        paths = [accuracy.trace_path(scenario, v) for v in ("bad", "fixed")]
        if not all(p.is_file() for p in paths):
            continue
        bad, fixed = (load_frame(p) for p in paths)
        (_, _, dt_bad), (f16, us16, dt_fixed) = _compute(bad), _compute(fixed)
        if dt_bad not in precision.FP32 or dt_fixed not in precision.HALF:
            continue
        peak = device_peak(fixed)
        half_peak = peak.peak_for(dt_fixed) if peak else None
        reached = f16 / (us16 * 1e6) / half_peak if half_peak and us16 else float("nan")
        fractions.append(reached)
        n_bad, n_fixed = max(len(bad.steps), 1), max(len(fixed.steps), 1)
        mb = (_memory_bound_us(fixed) / n_fixed) / max(_memory_bound_us(bad) / n_bad, 1e-9)
        reached32 = _fp32_peak_reached(bad)
        if reached32 is not None:
            fp32_fractions.append(reached32)
        measured = (facts.gpu_time_us(bad) - facts.gpu_time_us(fixed)) / 1e3
        est = _gpu_saved_ms(bad)
        unshaped = _gpu_saved_ms(accuracy.without_shapes([load_frame(paths[0])])[0])
        print(
            f"{scenario.name:<30}{reached:>7.2f}"
            f"{(f'{reached32:.2f}' if reached32 is not None else '-'):>7}{mb:>6.2f}"
            f"{'yes' if precision._activations_stay_fp32(bad) else 'no':>9}"
            f"{measured:>11.1f}{_ms(est):>9}{_ms(unshaped):>10}"
        )
    if fractions:
        print(
            f"\nhalf-precision kernels reached {min(fractions):.2f}-{max(fractions):.2f} of the "
            f"datasheet peak, median {statistics.median(fractions):.2f}, over {len(fractions)} pairs"
        )
    # above 1 where an FP32 op ran part of its work on faster TF32 kernels (its FLOPs split
    # over its kernels by time): left out
    plain = [x for x in fp32_fractions if x <= 1.0]
    if plain:
        print(
            f"plain-FP32 matrix kernels reached {min(plain):.2f}-{max(plain):.2f} of the FP32 "
            f"peak, median {statistics.median(plain):.2f}, over {len(plain)} pairs "
            f"({len(fp32_fractions) - len(plain)} above 1 left out)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

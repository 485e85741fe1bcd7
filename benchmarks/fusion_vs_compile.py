"""Fusion's promise against what torch.compile(model) measured, on every run where it was measured.

    python benchmarks/fusion_vs_compile.py > benchmarks/fusion_vs_compile.txt
    python benchmarks/fusion_vs_compile.py --no-shapes   # as if captured without record_shapes

The fusion finding names torch.compile as its fix, so its share_pct is a promise about what
compiling the model saves. labels.COMPILE_SAVING_PCT holds each measurement (1 - compiled/eager
synchronised step time; several where a run was measured in several leases). For each run this
prints the measurements, the fusion finding's severity and share (none: 0%), and the promise
minus the median measurement in points. Last, two lines: on runs where compile measured >= 10%
every time (labels.COMPILES_FASTER), how far the promise falls from the median measurement; on
the others, whether any got a fusion finding of severity >= medium (that would be a false alarm).
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "benchmarks" / "zoo"), str(ROOT)]

import accuracy  # noqa: E402
import labels  # noqa: E402

from bottleneck_lab.analyze import diagnose  # noqa: E402
from bottleneck_lab.detectors import fusion  # noqa: E402
from bottleneck_lab.trace.load import load_trace  # noqa: E402


def fusion_promise(path: Path, shapes: bool = True) -> tuple[str, float]:
    """The fusion finding's severity and share_pct ("-" and 0.0 where there is none): what
    torch.compile is held to (eager-attention, of the same kind, promises SDPA instead)."""
    frames = load_trace(path)
    d = diagnose(frames if shapes else accuracy.without_shapes(frames), path=str(path))
    f = next((f for f in d.findings if f.code == fusion.CODE), None)
    return (f.severity, float(f.share_pct or 0.0)) if f else ("-", 0.0)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument(
        "--no-shapes", action="store_true", help="drop recorded shapes before the analysis"
    )
    args = p.parse_args()
    print(
        f"{'run':<40}{'compile measured %':<22}{'median':>7}{'fusion':>9}{'promise':>9}{'error':>7}"
    )
    faster_errors, alarms, slower = [], [], 0
    for run, measured in labels.COMPILE_SAVING_PCT.items():
        name, variant = run.split("/")
        path = accuracy.trace_path(labels.BY_NAME[name], variant)
        if not path.exists():
            continue
        severity, share = fusion_promise(path, shapes=not args.no_shapes)
        median = statistics.median(measured)
        error = share - median
        print(
            f"{run:<40}{', '.join(f'{m:g}' for m in measured):<22}{median:>7.1f}"
            f"{severity:>9}{share:>9.1f}{error:>+7.1f}"
        )
        if min(measured) >= labels.CONDITIONAL_MIN_SAVING_PCT:
            faster_errors.append(error)
            continue
        slower += 1
        if severity in accuracy.SERIOUS:
            alarms.append(run)
    within = sum(abs(e) <= 15 for e in faster_errors)
    print(
        f"\ncompile >= {labels.CONDITIONAL_MIN_SAVING_PCT:g}% every time: {len(faster_errors)} runs, "
        f"promise - median {statistics.mean(faster_errors):+.1f} points on average "
        f"(mean |error| {statistics.mean(abs(e) for e in faster_errors):.1f}), "
        f"{within} within 15 points"
    )
    print(
        f"compile < {labels.CONDITIONAL_MIN_SAVING_PCT:g}% at least once: "
        f"{slower} runs, fusion >= medium on "
        f"{len(alarms)}{': ' + ', '.join(alarms) if alarms else ''}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

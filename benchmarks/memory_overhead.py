"""What memory analysis adds to the analysis of a trace (issue: < 20% on the 54 MB V100 trace).

Runs the whole in-process analysis (load + diagnose) N times with every detector, and N times
with the memory detectors and the peak-memory summary switched off, alternating, and prints the
medians.

    python benchmarks/memory_overhead.py [TRACE] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from unittest import mock

from bottleneck_lab import analyze, detectors, rank_analysis
from bottleneck_lab.trace import load_trace

DEFAULT = (
    Path(__file__).resolve().parents[2] / "shared/external-traces/v100_ddp2_sgd_profile_memory"
)
MEMORY_CODES = ("activation-memory", "recompute", "memory-capacity")


def run(path: Path, with_memory: bool) -> float:
    t = time.perf_counter()
    frames = load_trace(path)
    if with_memory:
        analyze.diagnose(frames)
    else:
        registry = {c: d for c, d in detectors.REGISTRY.items() if c not in MEMORY_CODES}
        with (
            mock.patch.dict(detectors.REGISTRY, registry, clear=True),
            mock.patch.object(rank_analysis, "peak_memory_bytes", lambda frame: None),
            mock.patch.object(rank_analysis, "memory_curve", lambda frame: None),
        ):
            analyze.diagnose(frames)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace", nargs="?", type=Path, default=DEFAULT)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    run(a.trace, True)  # warm the page cache and imports
    on, off = [], []
    for _ in range(a.repeat):
        off.append(run(a.trace, False))
        on.append(run(a.trace, True))
    m_on, m_off = statistics.median(on), statistics.median(off)
    print(
        f"{a.trace}: without memory analysis {m_off:.3f} s, with {m_on:.3f} s "
        f"(median of {a.repeat}): +{100 * (m_on / m_off - 1):.1f}%"
    )


if __name__ == "__main__":
    main()

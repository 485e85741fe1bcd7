"""Print Holistic Trace Analysis' idle-time breakdown per rank and CUDA stream as JSON.

    python benchmarks/hta_idle.py TRACE_DIR [--consecutive-kernel-delay 30] [--interval-stats]

Reference numbers to compare our idle times against. What HTA's columns mean (HTA 0.5.0,
hta/analyzers/breakdown_analysis.py):

- per CUDA stream (the kernel's `args.stream`), per rank; one rank = one trace file. Devices are
  not separated: a stream is a stream number, whatever `args.device` says.
- busy = events of cat kernel/Kernel, gpu_memcpy/Memcpy, gpu_memset/Memset on that stream, kept
  only if their launch happened before the start of the last ProfilerStep (HTA drops the last step
  when a trace has 2+ steps).
- idle_time (us) of a kernel = its ts - end of the previous kernel on the same stream (no
  interval merging; the first kernel of a stream has none). Gaps between steps count too.
- idle_category: host_wait if the launching runtime call started after the previous kernel ended;
  else kernel_wait if the gap < consecutive_kernel_delay (compared in microseconds, although HTA's
  docstring says ns); else other (this includes kernels whose launch is not in the trace).
- idle_time_ratio = share of that stream's idle time (sums to 1 per stream). Both rounded to 2 dp.
- float (ns-resolution) traces are rounded inward to whole us first: ts = ceil(ts),
  end = floor(ts + dur), unless HTA_DISABLE_NS_ROUNDING=1.

"temporal" is HTA's device-level view (all streams merged) from get_temporal_breakdown().
"""

from __future__ import annotations

import argparse
import json
import logging
from importlib.metadata import version


def idle_breakdown(trace_dir: str, consecutive_kernel_delay: int, interval_stats: bool) -> dict:
    from hta.configs.config import logger as hta_logger
    from hta.trace_analysis import TraceAnalysis

    hta_logger.setLevel(logging.ERROR)
    analyzer = TraceAnalysis(trace_dir=trace_dir)
    ranks = analyzer.t.get_ranks()
    idle, stats = analyzer.get_idle_time_breakdown(
        ranks=ranks,
        visualize=False,
        show_idle_interval_stats=interval_stats,
        consecutive_kernel_delay=consecutive_kernel_delay,
    )
    temporal = analyzer.get_temporal_breakdown(visualize=False)
    out = {
        "tool": f"HolisticTraceAnalysis {version('HolisticTraceAnalysis')}",
        "trace_dir": trace_dir,
        "consecutive_kernel_delay_us": consecutive_kernel_delay,
        "units": {"idle_time": "us", "idle_time_ratio": "fraction of the stream's idle time"},
        "idle": json.loads(idle.to_json(orient="records")),
        "temporal": json.loads(temporal.to_json(orient="records")),
    }
    if stats is not None:
        # index = idle_category; columns: rank, stream, count, mean, std, min, 25%, 50%, 75%, max
        out["interval_stats"] = json.loads(
            stats.reset_index(names="idle_category").to_json(orient="records")
        )
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace_dir")
    ap.add_argument("--consecutive-kernel-delay", type=int, default=30, help="HTA default: 30")
    ap.add_argument("--interval-stats", action="store_true", help="add per-category gap statistics")
    a = ap.parse_args()
    print(
        json.dumps(
            idle_breakdown(a.trace_dir, a.consecutive_kernel_delay, a.interval_stats), indent=1
        )
    )


if __name__ == "__main__":
    main()

"""HTA's side of the benchmark: load a trace directory and run the analyses we compare against.

    python benchmarks/hta_side.py TRACE_DIR

Runs Holistic Trace Analysis' load (`TraceAnalysis(trace_dir=...)`) plus the temporal, idle-time
and GPU-kernel breakdowns and the kernel launch stats, all with `visualize=False`, for every rank
found in the directory (HTA's idle and launch functions default to rank 0 only, which would do
nothing on a rank-1 trace). Prints one short summary line; the work is what we time.
"""

from __future__ import annotations

import logging
import sys
import time


def run(trace_dir: str) -> str:
    from hta.configs.config import logger as hta_logger
    from hta.trace_analysis import TraceAnalysis

    hta_logger.setLevel(logging.ERROR)  # HTA logs every rank map and warning at INFO/WARNING

    t0 = time.perf_counter()
    analyzer = TraceAnalysis(trace_dir=trace_dir)
    t_load = time.perf_counter() - t0
    ranks = analyzer.t.get_ranks()
    n_events = sum(len(df) for df in analyzer.t.traces.values())

    temporal = analyzer.get_temporal_breakdown(visualize=False)
    idle, _ = analyzer.get_idle_time_breakdown(ranks=ranks, visualize=False)
    kernel_types, kernels = analyzer.get_gpu_kernel_breakdown(visualize=False)
    launch = analyzer.get_cuda_kernel_launch_stats(ranks=ranks, visualize=False)
    t_total = time.perf_counter() - t0

    return (
        f"hta ranks={ranks} rows={n_events} load_s={t_load:.2f} total_s={t_total:.2f} "
        f"temporal={len(temporal)} idle={len(idle)} kernel_types={len(kernel_types)} "
        f"kernels={len(kernels)} launch_rows={sum(len(df) for df in launch.values())}"
    )


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(f"usage: {sys.argv[0]} TRACE_DIR")
    print(run(sys.argv[1]))


if __name__ == "__main__":
    main()

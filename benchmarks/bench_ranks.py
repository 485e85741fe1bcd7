"""Time and peak memory of `bottleneck-lab analyze DIR` against the number of ranks and --jobs.

    python benchmarks/bench_ranks.py [--ranks 8 16 32 64] [--jobs 1 2] [--repeat 1] [--json out.json]

Builds each synthetic job with make_ranks.py under /tmp/bl_ranks<N> (the real ddp_slow_rank/bad
ranks copied, one slow and one skewed rank), then runs the CLI on it as a child process per
(ranks, jobs) and measures from outside: wall time from spawn to exit, and peak RSS of the whole
process tree (the CLI, the forkserver and its workers), sampled every 20 ms with psutil and summed
over the processes alive at each sample, as PSS (each shared page split between the processes
sharing it: the memory the job really takes) and as RSS (shared pages counted once per process,
an upper bound). Also printed: the largest RSS of a single process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_ranks import make_ranks  # noqa: E402

REPO = Path(__file__).resolve().parents[1]


def run_once(path: Path, jobs: int) -> dict:
    out = Path(tempfile.mkstemp(suffix=".json")[1])
    cmd = [sys.executable, "-m", "bottleneck_lab", "analyze", str(path)]
    cmd += ["--format", "json", "-o", str(out), "--jobs", str(jobs)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env)
    me = psutil.Process(proc.pid)
    peak_pss = peak_sum = peak_one = 0
    while proc.poll() is None:
        try:
            tree = [me, *me.children(recursive=True)]
        except psutil.Error:
            tree = []
        rss, pss = [], []
        for p in tree:
            try:
                m = p.memory_full_info()
            except psutil.Error:
                continue
            rss.append(m.rss)
            pss.append(m.pss)
        peak_pss, peak_sum = max(peak_pss, sum(pss)), max(peak_sum, sum(rss))
        peak_one = max(peak_one, max(rss, default=0))
        time.sleep(0.02)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {proc.returncode}")
    view = json.loads(out.read_text())["summary"]["ranks"]
    out.unlink()
    return {
        "wall_s": wall,
        "peak_pss_mb": peak_pss / 2**20,
        "peak_rss_mb": peak_sum / 2**20,
        "peak_rss_one_process_mb": peak_one / 2**20,
        "stragglers": [s["rank"] for s in view["stragglers"]],
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--ranks", type=int, nargs="+", default=[8, 16, 32, 64])
    p.add_argument("--jobs", type=int, nargs="+", default=[1, 2])
    p.add_argument("--repeat", type=int, default=1, help="runs per cell; the median is shown")
    p.add_argument("--json", type=Path, default=None, help="also write the rows here")
    a = p.parse_args(argv)
    rows = []
    print(f"cpu cores: {os.cpu_count()}, python {sys.version.split()[0]}", flush=True)
    print(
        "| ranks | --jobs | wall s | s per rank | peak PSS MB (tree) | peak RSS MB (tree) "
        "| largest process RSS MB | stragglers |\n|---:|---:|---:|---:|---:|---:|---:|---|",
        flush=True,
    )
    for n in a.ranks:
        path = make_ranks(Path(f"/tmp/bl_ranks{n}"), n)
        for jobs in a.jobs:
            runs = [run_once(path, jobs) for _ in range(a.repeat)]
            row = {
                "ranks": n,
                "jobs": jobs,
                **{
                    k: statistics.median(r[k] for r in runs)
                    for k in ("wall_s", "peak_pss_mb", "peak_rss_mb", "peak_rss_one_process_mb")
                },
                "stragglers": runs[0]["stragglers"],
            }
            rows.append(row)
            print(
                f"| {n} | {jobs} | {row['wall_s']:.1f} | {row['wall_s'] / n:.2f} | "
                f"{row['peak_pss_mb']:.0f} | {row['peak_rss_mb']:.0f} | "
                f"{row['peak_rss_one_process_mb']:.0f} | "
                f"{', '.join(map(str, row['stragglers'])) or 'none'} |",
                flush=True,
            )
    if a.json:
        a.json.write_text(json.dumps(rows, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

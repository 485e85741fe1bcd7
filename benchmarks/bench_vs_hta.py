"""Side-by-side speed and memory benchmark: bottleneck-lab against Holistic Trace Analysis (HTA).

    python benchmarks/bench_vs_hta.py [--repeat 3] [--traces A.json.gz B.json ...] [--json out.json]
                                      [--ours "{python} -m bottleneck_lab analyze {path} ..."]

Each side runs as its own process on the same trace, one after the other, and is measured from
outside: wall time from spawn to exit, and peak RSS from the rusage that os.wait4 returns for that
child (Linux reports the largest of the child and its own waited-for children, not their sum).
HTA's side is benchmarks/hta_side.py: load plus temporal, idle-time and kernel breakdowns and
launch stats. HTA wants a directory, so each trace file gets one in benchmarks/.cache/hta_dirs/
holding a symlink to it. Default traces: the largest external trace (54 MB of JSON) and a 10x
tiling of it (~470 MB), made with tile_trace.py into benchmarks/.cache/ on first use (~30 s).

Command templates accept {python} (this interpreter), {path} (the trace file or directory) and
{dir} (the directory given to HTA).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "benchmarks" / ".cache"
ORIGINAL = (
    ROOT.parent / "shared/external-traces/v100_ddp2_sgd_profile_memory/df_index_resolver.json.gz"
).resolve()
TILED = CACHE / "v100_ddp2_sgd_profile_memory_x10" / "rank-1.json"

OURS_CMD = "{python} -m bottleneck_lab analyze {path} --format json -o /dev/null"
HTA_CMD = "{python} benchmarks/hta_side.py {dir}"

MB = 1e6


# --- inputs -------------------------------------------------------------------------------------


def ensure_tiled() -> Path:
    if not TILED.exists():
        print(f"making {TILED} (10x tiling of {ORIGINAL.name}, ~30 s)", file=sys.stderr)
        cmd = [sys.executable, str(ROOT / "benchmarks/tile_trace.py"), str(ORIGINAL), str(TILED)]
        subprocess.run(cmd + ["--times", "10"], check=True, stdout=sys.stderr)
    return TILED


def hta_dir_for(trace: Path) -> Path:
    """A directory that holds only this trace (HTA reads every .json/.gz file of a directory)."""
    if trace.is_dir():
        return trace
    d = CACHE / "hta_dirs" / f"{trace.parent.name}__{trace.name}"
    d.mkdir(parents=True, exist_ok=True)
    link = d / trace.name
    if not link.is_symlink() or link.resolve() != trace:
        link.unlink(missing_ok=True)
        link.symlink_to(trace)
    return d


_FACTS_CODE = """
import gzip, json, sys
p = sys.argv[1]
raw = (gzip.open if p.endswith(".gz") else open)(p, "rb").read()
print(json.dumps({"events": len(json.loads(raw)["traceEvents"]), "raw_bytes": len(raw)}))
"""


def trace_facts(trace: Path) -> dict:
    """Event count and uncompressed size of a trace file (or directory), cached by size and mtime."""
    files = sorted(trace.glob("*.json*")) if trace.is_dir() else [trace]
    facts_file = CACHE / "trace_facts.json"
    cache = json.loads(facts_file.read_text()) if facts_file.exists() else {}
    total = {"events": 0, "raw_bytes": 0}
    for f in files:
        st = f.stat()
        key = f"{f.resolve()}|{st.st_size}|{st.st_mtime_ns}"
        if key not in cache:  # parse in a child so this process stays small
            out = subprocess.run(
                [sys.executable, "-c", _FACTS_CODE, str(f)],
                check=True,
                capture_output=True,
                text=True,
            )
            cache[key] = json.loads(out.stdout)
        total["events"] += cache[key]["events"]
        total["raw_bytes"] += cache[key]["raw_bytes"]
    CACHE.mkdir(parents=True, exist_ok=True)
    facts_file.write_text(json.dumps(cache, indent=1))
    return total


def warm_page_cache(trace: Path) -> None:
    for f in sorted(trace.glob("*")) if trace.is_dir() else [trace]:
        with open(f, "rb") as fh:
            while fh.read(1 << 24):
                pass


# --- measuring ----------------------------------------------------------------------------------


def command(template: str, trace: Path, hta_dir: Path) -> list[str]:
    subs = {"{python}": sys.executable, "{path}": str(trace), "{dir}": str(hta_dir)}
    argv = []
    for token in shlex.split(template):
        for key, value in subs.items():
            token = token.replace(key, value)
        argv.append(token)
    return argv


def measure(argv: list[str]) -> dict:
    """Run one child to completion; its own wall time, peak RSS and exit code."""
    with tempfile.TemporaryFile() as log:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall_s = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, tell Popen
        log.seek(0)
        tail = log.read().decode(errors="replace")[-2000:]
    maxrss_bytes = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    run = {
        "rc": proc.returncode,
        "wall_s": round(wall_s, 3),
        "peak_rss_mb": round(maxrss_bytes / MB, 1),
        "user_s": round(usage.ru_utime, 3),
        "sys_s": round(usage.ru_stime, 3),
        "last_line": tail.strip().splitlines()[-1][:300] if tail.strip() else "",
    }
    if proc.returncode != 0:
        run["output_tail"] = tail
    return run


def summarize(runs: list[dict]) -> dict:
    ok = [r for r in runs if r["rc"] == 0]
    if not ok:
        return {"ok": False, "runs": runs}
    return {
        "ok": True,
        "wall_s": round(statistics.median(r["wall_s"] for r in ok), 3),
        "peak_rss_mb": round(statistics.median(r["peak_rss_mb"] for r in ok), 1),
        "runs": runs,
    }


def bench_trace(trace: Path, repeat: int, hta_template: str, ours_template: str) -> dict:
    hta_dir = hta_dir_for(trace)
    facts = trace_facts(trace)
    warm_page_cache(trace)
    sides = {
        "hta": command(hta_template, trace, hta_dir),
        "ours": command(ours_template, trace, hta_dir),
    }
    runs: dict[str, list[dict]] = {"hta": [], "ours": []}
    for i in range(repeat):
        for side, argv in sides.items():
            run = measure(argv)
            runs[side].append(run)
            status = "ok" if run["rc"] == 0 else f"FAILED rc={run['rc']}"
            print(
                f"  [{i + 1}/{repeat}] {side:4s} {run['wall_s']:8.2f} s {run['peak_rss_mb']:8.0f} MB  {status}",
                file=sys.stderr,
            )
            if run["rc"] != 0:
                print("    " + run["output_tail"].strip().replace("\n", "\n    "), file=sys.stderr)
    hta, ours = summarize(runs["hta"]), summarize(runs["ours"])
    both = hta["ok"] and ours["ok"]
    return {
        "trace": label(trace),
        "path": str(trace),
        "hta_dir": str(hta_dir),
        "events": facts["events"],
        "size_mb": round(facts["raw_bytes"] / MB, 1),
        "on_disk_mb": round(sum(f.stat().st_size for f in _files(trace)) / MB, 1),
        "commands": {side: shlex.join(argv) for side, argv in sides.items()},
        "hta": hta,
        "ours": ours,
        "speedup": round(hta["wall_s"] / ours["wall_s"], 2) if both else None,
        "rss_ratio": round(hta["peak_rss_mb"] / ours["peak_rss_mb"], 2) if both else None,
    }


def _files(trace: Path) -> list[Path]:
    return sorted(trace.glob("*.json*")) if trace.is_dir() else [trace]


def label(trace: Path) -> str:
    return trace.name if trace.is_dir() else f"{trace.parent.name}/{trace.name}"


# --- reporting ----------------------------------------------------------------------------------


def _version(dist: str) -> str:
    try:
        return version(dist)
    except PackageNotFoundError:
        return "not installed"


def machine() -> dict:
    cpu_model = ""
    mem_total_gb = None
    if Path("/proc/cpuinfo").exists():
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu_model = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                mem_total_gb = round(int(line.split()[1]) * 1024 / 1e9, 1)
    return {
        "platform": platform.platform(),
        "cpu": cpu_model or platform.processor(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "memory_gb": mem_total_gb,
        "python": platform.python_version(),
        "HolisticTraceAnalysis": _version("HolisticTraceAnalysis"),
        "pandas": _version("pandas"),
        "numpy": _version("numpy"),
        "bottleneck-lab": _version("bottleneck-lab"),
    }


def _cell(summary: dict, key: str, fmt: str) -> str:
    return format(summary[key], fmt) if summary["ok"] else "failed"


def markdown(rows: list[dict]) -> str:
    lines = [
        "| trace | events | size MB | HTA s | HTA peak RSS MB | bottleneck-lab s "
        "| bottleneck-lab peak RSS MB | speedup | RSS ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        speedup = f"{r['speedup']:.1f}x" if r["speedup"] is not None else "-"
        rss_ratio = f"{r['rss_ratio']:.1f}x" if r["rss_ratio"] is not None else "-"
        lines.append(
            f"| {r['trace']} | {r['events']:,} | {r['size_mb']:.0f} "
            f"| {_cell(r['hta'], 'wall_s', '.2f')} | {_cell(r['hta'], 'peak_rss_mb', '.0f')} "
            f"| {_cell(r['ours'], 'wall_s', '.2f')} | {_cell(r['ours'], 'peak_rss_mb', '.0f')} "
            f"| {speedup} | {rss_ratio} |"
        )
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--repeat", type=int, default=1, help="runs per side and trace; the median is reported"
    )
    ap.add_argument("--traces", nargs="+", type=Path, help="trace files or per-rank directories")
    ap.add_argument("--json", type=Path, help="also write the results here")
    ap.add_argument("--ours", default=OURS_CMD, help=f"our command (default: {OURS_CMD!r})")
    ap.add_argument("--hta", default=HTA_CMD, help=f"HTA's command (default: {HTA_CMD!r})")
    a = ap.parse_args()

    traces = [t.resolve() for t in a.traces] if a.traces else [ORIGINAL, ensure_tiled()]
    info = machine()
    print(
        f"machine: {info['cpu']}, {info['cpu_count']} CPUs ({info['cpus_usable']} usable), "
        f"{info['memory_gb']} GB RAM, {info['platform']}\n"
        f"python {info['python']}, HTA {info['HolisticTraceAnalysis']}, pandas {info['pandas']}, "
        f"numpy {info['numpy']}, bottleneck-lab {info['bottleneck-lab']}\n"
    )
    rows = []
    for trace in traces:
        print(f"{label(trace)}:", file=sys.stderr)
        rows.append(bench_trace(trace, a.repeat, a.hta, a.ours))

    print(markdown(rows))
    print(
        f"\nmedian of {a.repeat} run(s) per cell; whole process: start-up, imports, parse, analysis. "
        "size MB = uncompressed JSON. speedup = HTA s / bottleneck-lab s, "
        "RSS ratio = HTA RSS / bottleneck-lab RSS (above 1: bottleneck-lab is faster / smaller)."
    )
    if a.json:
        a.json.parent.mkdir(parents=True, exist_ok=True)
        payload = {"machine": info, "repeat": a.repeat, "results": rows}
        a.json.write_text(json.dumps(payload, indent=1) + "\n")


if __name__ == "__main__":
    main()

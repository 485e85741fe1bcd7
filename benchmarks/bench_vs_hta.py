"""Side-by-side speed and memory benchmark: bottleneck-lab against Holistic Trace Analysis (HTA).

    python benchmarks/bench_vs_hta.py [--repeat 3] [--scales 1 2 5 10 20] [--json results.json]
    python benchmarks/bench_vs_hta.py --traces A.json.gz B.json ...   # given traces instead
                                      [--ours "{python} -m bottleneck_lab analyze {path} ..."]

Each side runs as its own process on the same trace, one after the other, and is measured from
outside: wall time from spawn to exit, and peak RSS from the rusage that os.wait4 returns for that
child (Linux reports the largest of the child and its own waited-for children, not their sum).
HTA's side is benchmarks/hta_side.py: load plus temporal, idle-time and kernel breakdowns and
launch stats. HTA wants a directory, so each trace file gets one in CACHE/hta_dirs/ holding a
symlink to it.

By default it gives a scaling table: the largest external trace (54 MB of JSON) tiled 1, 2, 5, 10
and 20 times along time with tile_trace.py (made into CACHE, $TMPDIR/bottleneck-lab-bench, on
first use: ~5 s per 50 MB written), both sides on each, and our cost per million events to show
it grows linearly. HTA is skipped on a size where, extrapolated linearly from its last run, it
would need more than 80% of the memory now available or more than --hta-max-s seconds; the
reason is printed and kept in the results. Results go to benchmarks/results.json.

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
CACHE = Path(tempfile.gettempdir()) / "bottleneck-lab-bench"  # GBs of tiles: not in the repo
ORIGINAL = (
    ROOT.parent / "shared/external-traces/v100_ddp2_sgd_profile_memory/df_index_resolver.json.gz"
).resolve()
SCALES = (1, 2, 5, 10, 20)
RESULTS = ROOT / "benchmarks" / "results.json"

OURS_CMD = "{python} -m bottleneck_lab analyze {path} --format json -o /dev/null"
HTA_CMD = "{python} benchmarks/hta_side.py {dir}"

MB = 1e6


# --- inputs -------------------------------------------------------------------------------------


def ensure_tiled(times: int) -> Path:
    """ORIGINAL tiled `times` times (1 = the same events as plain JSON, like the others)."""
    out = CACHE / f"{ORIGINAL.parent.name}_x{times}" / "rank-1.json"
    if not out.exists():
        print(f"making {out} ({times}x tiling of {ORIGINAL.name})", file=sys.stderr)
        cmd = [sys.executable, str(ROOT / "benchmarks/tile_trace.py"), str(ORIGINAL), str(out)]
        subprocess.run(cmd + ["--times", str(times)], check=True, stdout=sys.stderr)
    return out


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
import gzip, json, msgspec, sys
p = sys.argv[1]
raw = (gzip.open if p.endswith(".gz") else open)(p, "rb").read()
events = msgspec.json.decode(raw, type=dict[str, msgspec.Raw])["traceEvents"]
n = len(msgspec.json.decode(events, type=list[msgspec.Raw]))
print(json.dumps({"events": n, "raw_bytes": len(raw)}))
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


def bench_trace(
    trace: Path, repeat: int, hta_template: str, ours_template: str, skip_hta: str | None = None
) -> dict:
    """Both sides on one trace, `repeat` times each, alternating; HTA not at all when skip_hta
    says why."""
    hta_dir = hta_dir_for(trace)
    facts = trace_facts(trace)
    warm_page_cache(trace)
    sides = {
        "hta": command(hta_template, trace, hta_dir),
        "ours": command(ours_template, trace, hta_dir),
    }
    if skip_hta:
        print(f"  hta skipped: {skip_hta}", file=sys.stderr)
    runs: dict[str, list[dict]] = {"hta": [], "ours": []}
    for i in range(repeat):
        for side, argv in sides.items():
            if side == "hta" and skip_hta:
                continue
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
    if skip_hta:
        hta["skipped"] = skip_hta
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
        "rss_ratio": round(ours["peak_rss_mb"] / hta["peak_rss_mb"], 3) if both else None,
    }


def available_mb() -> float | None:
    """MemAvailable from /proc/meminfo (None where there is none)."""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        for line in meminfo.read_text().splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024 / MB
    return None


def hta_skip_reason(last: dict | None, events: int, max_s: float) -> str | None:
    """Why HTA should not run on a trace of `events` events, extrapolating linearly from its
    last run (`last`: a bench_trace row), or None to run it."""
    if last is None:
        return None
    hta = last["hta"]
    if not hta["ok"]:
        why = hta.get("skipped") or "failed"
        return f"skipped at {last['events']:,} events already ({why})"
    grow = events / last["events"]
    rss_mb, wall_s = hta["peak_rss_mb"] * grow, hta["wall_s"] * grow
    free = available_mb()
    if free is not None and rss_mb > 0.8 * free:
        return f"would need ~{rss_mb:,.0f} MB RSS, more than 80% of the {free:,.0f} MB available"
    if wall_s > max_s:
        return f"would take ~{wall_s:,.0f} s per run, over --hta-max-s {max_s:,.0f}"
    return None


def scaling(rows: list[dict]) -> list[dict]:
    """Our cost per million events at each size, whole and marginal (the extra seconds per extra
    event from the size before): a flat marginal cost is linear growth; the whole cost falls
    with size because start-up is paid once."""
    out, prev = [], None
    for r in rows:
        if not r["ours"]["ok"]:
            continue
        m_events, wall, rss = r["events"] / 1e6, r["ours"]["wall_s"], r["ours"]["peak_rss_mb"]
        marginal = None
        if prev is not None and r["events"] > prev["events"]:
            extra = m_events - prev["events"] / 1e6
            marginal = {
                "s_per_million_events": round((wall - prev["ours"]["wall_s"]) / extra, 3),
                "rss_mb_per_million_events": round((rss - prev["ours"]["peak_rss_mb"]) / extra, 1),
            }
        out.append(
            {
                "times": r.get("times"),
                "events": r["events"],
                "s_per_million_events": round(wall / m_events, 3),
                "rss_mb_per_million_events": round(rss / m_events, 1),
                "marginal": marginal,
            }
        )
        prev = r
    return out


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
    if summary.get("skipped"):
        return "skipped"
    return format(summary[key], fmt) if summary["ok"] else "failed"


def _md_table(header: list[str], rows: list[list[str]]) -> str:
    """A markdown table, first column left-aligned and the rest (numbers) right-aligned."""
    lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 1)]
    return "\n".join(lines + ["| " + " | ".join(r) + " |" for r in rows])


def markdown(rows: list[dict]) -> str:
    header = ["trace", "events", "JSON MB", "HTA s", "HTA peak RSS MB", "bottleneck-lab s"]
    header += ["bottleneck-lab peak RSS MB", "speedup", "RSS ratio"]
    cells = []
    for r in rows:
        cells.append(
            [
                r.get("name", r["trace"]),
                f"{r['events']:,}",
                f"{r['size_mb']:.0f}",
                _cell(r["hta"], "wall_s", ".2f"),
                _cell(r["hta"], "peak_rss_mb", ".0f"),
                _cell(r["ours"], "wall_s", ".2f"),
                _cell(r["ours"], "peak_rss_mb", ".0f"),
                f"{r['speedup']:.1f}x" if r["speedup"] is not None else "-",
                f"{r['rss_ratio']:.2f}x" if r["rss_ratio"] is not None else "-",
            ]
        )
    return _md_table(header, cells)


def scaling_markdown(table: list[dict]) -> str:
    header = ["tiling", "events", "s per M events", "marginal s per M events"]
    header += ["peak RSS MB per M events", "marginal MB per M events"]
    cells = []
    for s in table:
        m = s["marginal"] or {}
        cells.append(
            [
                f"{s['times']}x",
                f"{s['events']:,}",
                f"{s['s_per_million_events']:.2f}",
                str(m.get("s_per_million_events", "-")),
                f"{s['rss_mb_per_million_events']:.0f}",
                str(m.get("rss_mb_per_million_events", "-")),
            ]
        )
    return _md_table(header, cells)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--repeat", type=int, default=1, help="runs per side and trace; the median is reported"
    )
    ap.add_argument(
        "--scales", type=int, nargs="+", default=list(SCALES), help="tilings of the V100 trace"
    )
    ap.add_argument("--traces", nargs="+", type=Path, help="trace files or per-rank directories")
    ap.add_argument("--json", type=Path, default=RESULTS, help=f"results file (default {RESULTS})")
    ap.add_argument("--ours", default=OURS_CMD, help=f"our command (default: {OURS_CMD!r})")
    ap.add_argument("--hta", default=HTA_CMD, help=f"HTA's command (default: {HTA_CMD!r})")
    ap.add_argument(
        "--hta-max-s", type=float, default=600.0, help="skip HTA where one run would take longer"
    )
    a = ap.parse_args()

    info = machine()
    print(
        f"machine: {info['cpu']}, {info['cpu_count']} CPUs ({info['cpus_usable']} usable), "
        f"{info['memory_gb']} GB RAM, {info['platform']}\n"
        f"python {info['python']}, HTA {info['HolisticTraceAnalysis']}, pandas {info['pandas']}, "
        f"numpy {info['numpy']}, bottleneck-lab {info['bottleneck-lab']}\n"
    )
    if a.traces:
        inputs = [(None, t.resolve()) for t in a.traces]
    else:
        inputs = [(times, ensure_tiled(times)) for times in sorted(a.scales)]
    rows: list[dict] = []
    last_hta = None
    for times, trace in inputs:
        name = label(trace) if times is None else f"V100 trace x{times}"
        print(f"{name}:", file=sys.stderr)
        skip = hta_skip_reason(last_hta, trace_facts(trace)["events"], a.hta_max_s)
        row = bench_trace(trace, a.repeat, a.hta, a.ours, skip)
        row["name"], row["times"] = name, times
        rows.append(row)
        last_hta = row

    print(markdown(rows))
    print(
        f"\nmedian of {a.repeat} run(s) per cell; whole process: start-up, imports, parse, analysis. "
        "JSON MB = uncompressed JSON. speedup = HTA s / bottleneck-lab s, "
        "RSS ratio = bottleneck-lab peak RSS / HTA peak RSS (below 1: bottleneck-lab is smaller)."
    )
    table = scaling(rows) if not a.traces else []
    if table:
        print("\n" + scaling_markdown(table))
        print(
            "\nbottleneck-lab only; marginal = (this size - the size before) / extra events: "
            "flat when the cost is linear in events (start-up is paid once)."
        )
    for r in rows:
        if r["hta"].get("skipped"):
            print(f"HTA skipped on {r['name']}: {r['hta']['skipped']}")
    a.json.parent.mkdir(parents=True, exist_ok=True)
    payload = {"machine": info, "repeat": a.repeat, "results": rows, "scaling": table}
    a.json.write_text(json.dumps(payload, indent=1) + "\n")
    print(f"\nwritten: {a.json}")


if __name__ == "__main__":
    main()

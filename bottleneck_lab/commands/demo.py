"""`bottleneck-lab demo NAME`: run the bad and fixed variants, analyse both, show them side by side."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from .. import demos
from . import UsageError


def _cuda_available() -> bool:
    """Ask a child interpreter, so this process never imports torch."""
    try:
        out = subprocess.run(
            [sys.executable, "-c", "import torch; print(torch.cuda.is_available())"],
            capture_output=True,
            text=True,
            timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.stdout.strip() == "True"


def _with_progress(label: str, fn, *args, **kwargs):
    """Run fn while drawing an elapsed-time bar on stderr (demos take tens of seconds)."""
    done = threading.Event()
    start = time.monotonic()

    def draw() -> None:
        width = 24
        while not done.wait(0.5):
            t = time.monotonic() - start
            pos = int(t * 2) % (2 * width)
            pos = pos if pos < width else 2 * width - pos - 1
            bar = "".join("#" if i == pos else "-" for i in range(width))
            sys.stderr.write(f"\r  {label:<28} [{bar}] {t:5.0f} s")
            sys.stderr.flush()

    tty = sys.stderr.isatty()
    thread = threading.Thread(target=draw, daemon=True)
    if tty:
        thread.start()
    try:
        return fn(*args, **kwargs)
    finally:
        done.set()
        if tty:
            thread.join()
            sys.stderr.write("\r" + " " * 72 + "\r")
        sys.stderr.write(f"  {label:<28} done in {time.monotonic() - start:.0f} s\n")


def _fmt(v: Any, unit: str = "", nd: int = 2) -> str:
    if v is None:
        return "n/a"
    return f"{v:,.{nd}f}{unit}"


def side_by_side(
    name: str, metas: dict[str, dict], diags: dict[str, Any], device: str = "cuda"
) -> str:
    """The comparison table, then what the analyzer said about each variant."""
    b, f = metas["bad"], metas["fixed"]

    def ms(m: dict) -> float | None:
        return (m.get("step_time_ms") or {}).get("median") or (m.get("timing") or {}).get(
            "step_time_ms", {}
        ).get("median")

    def mem(m: dict) -> float | None:
        v = m.get("max_memory_allocated_bytes")
        return v / 2**20 if v else None

    def busy(m: dict) -> float | None:
        return ((m.get("nvml") or {}).get("gpu_util_pct") or {}).get("mean")

    def mfu(d) -> float | None:
        return d.summary.mfu_pct

    def ratio(x: float | None, y: float | None) -> str:
        return f"{x / y:.2f}x" if x and y else ""

    rows = [
        ("step time (ms)", _fmt(ms(b)), _fmt(ms(f)), ratio(ms(b), ms(f))),
        (
            "steps/s",
            _fmt(b.get("steps_per_s")),
            _fmt(f.get("steps_per_s")),
            ratio(f.get("steps_per_s"), b.get("steps_per_s")),
        ),
        (
            "samples/s",
            _fmt(b.get("samples_per_s"), nd=0),
            _fmt(f.get("samples_per_s"), nd=0),
            ratio(f.get("samples_per_s"), b.get("samples_per_s")),
        ),
        ("MFU (trace FLOPs)", _fmt(mfu(diags["bad"]), "%"), _fmt(mfu(diags["fixed"]), "%"), ""),
        (
            "GPU busy (trace)",
            _fmt(diags["bad"].summary.gpu_busy_pct, "%", 1),
            _fmt(diags["fixed"].summary.gpu_busy_pct, "%", 1),
            "",
        ),
        ("GPU busy (NVML)", _fmt(busy(b), "%", 0), _fmt(busy(f), "%", 0), ""),
        ("peak memory (MiB)", _fmt(mem(b), nd=0), _fmt(mem(f), nd=0), ratio(mem(b), mem(f))),
    ]
    w = max(len(r[0]) for r in rows)
    out = [
        f"demo {name}: {demos.get(name).description}",
        "",
        f"  {'':<{w}}  {'bad':>12}  {'fixed':>12}  {'gain':>7}",
    ]
    out += [f"  {r[0]:<{w}}  {r[1]:>12}  {r[2]:>12}  {r[3]:>7}" for r in rows]
    cmp_ = demos.compare(name, b, f)
    out += [
        "",
        f"  target ({demos.get(name).target}): {cmp_.summary}"
        + ("" if cmp_.met is None else (" - met" if cmp_.met else " - missed")),
    ]
    if device != "cuda":
        out += [
            f"  (targets are for an H100; this ran on the CPU at small sizes, where training and "
            f"loading share {os.cpu_count()} cores, so the effect is smaller: see traces/README.md "
            "for the GPU runs)"
        ]

    from ..compare import serious_findings

    sb, sf = serious_findings(diags["bad"]), serious_findings(diags["fixed"])
    out += ["", "  findings (medium/high) in bad:" + ("" if sb else " none")]
    out += [f"    - {t}" for t in sb.values()]
    gone = [c for c in sb if c not in sf]
    out += ["  gone in fixed: " + (", ".join(gone) if gone else "none")]
    still = [f"    - {t}" for t in sf.values()]
    out += ["  still in fixed:" + ("" if still else " none")] + still
    return "\n".join(out) + "\n"


def run_demo_command(args) -> int:
    if args.list or not args.name:
        if not args.list:
            raise UsageError("demo: give a demo NAME (see `bottleneck-lab demo --list`)")
        w = max(len(n) for n in demos.DEMOS)
        for n, d in demos.DEMOS.items():
            sys.stdout.write(f"{n:<{w}}  {d.kind:<17} {d.description}\n")
        return 0
    try:
        demos.get(args.name)
    except demos.DemoError as exc:
        raise UsageError(str(exc)) from None
    device = args.device
    if device == "auto":
        device = "cuda" if _cuda_available() else "cpu"
    out = (
        Path(args.out)
        if args.out
        else Path(tempfile.mkdtemp(prefix=f"bottleneck-lab-{args.name}-"))
    )
    sys.stderr.write(f"demo {args.name} on {device}; traces in {out}\n")

    from ..analyze import diagnose
    from ..trace import load_trace

    metas, diags = {}, {}
    for variant in demos.VARIANTS:
        try:
            trace = _with_progress(
                f"{variant}: run and capture",
                demos.run_demo,
                args.name,
                variant,
                device,
                args.steps,
                out,
            )
        except demos.DemoError as exc:
            raise UsageError(str(exc)) from None
        metas[variant] = demos.load_meta(trace)
        diags[variant] = diagnose(load_trace(trace), path=str(trace))
    sys.stdout.write("\n" + side_by_side(args.name, metas, diags, device))
    sys.stdout.write(
        f"\nFull reports: bottleneck-lab analyze {out / 'bad.json.gz'}  (and fixed.json.gz)\n"
    )
    return 0

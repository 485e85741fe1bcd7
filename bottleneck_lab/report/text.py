"""Terminal text and Markdown: the verdict first, then findings with evidence and fix, then numbers."""

from __future__ import annotations

import textwrap
from typing import Any

from ..diagnosis import Diagnosis, Finding


def _fmt_us(us: float | None) -> str:
    if us is None:
        return "n/a"
    return f"{us / 1000:.2f} ms" if us >= 1000 else f"{us:.0f} µs"


def _fmt_value(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:,.2f}".rstrip("0").rstrip(".") if abs(v) < 1e6 else f"{v:,.0f}"
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_fmt_value(x)}" for k, x in v.items())
    if isinstance(v, list):
        return "; ".join(_fmt_value(x) for x in v)
    return str(v)


def verdict(d: Diagnosis) -> str:
    s = d.summary
    if not d.trace.has_gpu:
        return ("This trace has no GPU activity (CPU-only or captured without CUDA activities), so "
                "there is no GPU time to explain. Capture with ProfilerActivity.CUDA to diagnose GPU steps.")
    head = (f"Median step {_fmt_us(s.step_time_us)} over {s.steps} step(s); "
            f"the GPU is busy {s.gpu_busy_pct:.1f}% of it." if s.gpu_busy_pct is not None else "")
    v = d.verdict
    if v is None:
        return head + (" No finding of severity medium or high: nothing here stands out as the "
                       "bottleneck.")
    cost = ""
    if v.time_lost_us_per_step is not None and v.share_pct is not None:
        cost = f" It costs about {_fmt_us(v.time_lost_us_per_step)} per step ({v.share_pct:.0f}%)."
    return f"{head} Main bottleneck: {v.title}.{cost} Fix: {v.fix}"


def _finding_lines(i: int, f: Finding, width: int) -> list[str]:
    lines = [f"{i}. [{f.severity.upper()}] {f.title}",
             f"   {f.kind} · {f.code} · lost {_fmt_us(f.time_lost_us_per_step)}/step"
             + (f" ({f.share_pct:.1f}%)" if f.share_pct is not None else "")]
    for k, v in f.evidence.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            lines.append(f"   {k}:")
            for item in v[:5]:
                lines.extend(textwrap.wrap(_fmt_value(item), width, initial_indent="     - ",
                                           subsequent_indent="       "))
        else:
            lines.extend(textwrap.wrap(f"{k}: {_fmt_value(v)}", width, initial_indent="   ",
                                       subsequent_indent="     "))
    if f.efficiency:
        lines.append(f"   efficiency: {_fmt_value(f.efficiency)}")
    lines.extend(textwrap.wrap(f"Fix: {f.fix}", width, initial_indent="   ", subsequent_indent="   "))
    return lines


def _summary_lines(d: Diagnosis) -> list[str]:
    s = d.summary
    dev = d.trace.device or {}
    rows = [
        ("trace", d.trace.path), ("ranks", ", ".join(map(str, d.trace.ranks))),
        ("device", dev.get("name") or "none"), ("events", f"{d.trace.events:,}"),
        ("steps", s.steps), ("median step time", _fmt_us(s.step_time_us)),
        ("GPU busy", f"{s.gpu_busy_pct:.1f}%" if s.gpu_busy_pct is not None else "n/a"),
    ]
    if s.flops_per_step is not None:
        rows.append(("FLOPs per step", f"{s.flops_per_step:.3g}"))
    if s.achieved_tflops is not None:
        rows.append(("achieved", f"{s.achieved_tflops:.1f} TFLOP/s"))
    if s.mfu_pct is not None:
        nvml = s.extra.get("nvml") or {}
        beside = (f"; NVML says the GPU was busy {nvml['gpu_busy_pct']:.0f}% of the time"
                  if nvml.get("gpu_busy_pct") is not None else "")
        rows.append(("MFU", f"{s.mfu_pct:.1f}% of {s.peak_tflops:.0f} TFLOP/s{beside}"))
        rows.append(("peak source", s.peak_source))
    if s.peak_memory_bytes is not None:
        rows.append(("peak memory", f"{s.peak_memory_bytes / 2**30:.2f} GiB"))
    tables = []
    for k, v in s.extra.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            tables.append((k.replace("_", " "), v))  # rendered as rows below the key-value lines
        else:
            rows.append((k.replace("_", " "), _fmt_value(v)))
    w = max(len(k) for k, _ in rows)
    out = [f"  {k:<{w}}  {v}" for k, v in rows]
    for title, items in tables:
        out.append(f"  {title}:")
        out.extend(f"    - {_fmt_value(item)}" for item in items)
    return out


def render_text(d: Diagnosis, width: int = 100) -> str:
    out = ["bottleneck-lab diagnosis", "=" * 24, ""]
    out.extend(textwrap.wrap(verdict(d), width))
    out.append("")
    shown = [f for f in d.findings]
    out.append(f"Findings ({len(shown)})" if shown else "Findings: none")
    for i, f in enumerate(shown, 1):
        out.append("")
        out.extend(_finding_lines(i, f, width))
    out += ["", "Summary"]
    out.extend(_summary_lines(d))
    if d.skipped:
        out += ["", "Detectors skipped"]
        out.extend(f"  {c}: {why}" for c, why in d.skipped.items())
    if d.errors:
        out += ["", "Detector errors (the rest of the report stands)"]
        out.extend(f"  {c}: {msg}" for c, msg in d.errors.items())
    if d.trace.warnings:
        out += ["", "Trace warnings"]
        out.extend(f"  {w}" for w in d.trace.warnings)
    if d.hta is not None:
        from ..hta_bridge import render_hta_text

        out += ["", render_hta_text(d.hta, width).rstrip("\n")]
    return "\n".join(out) + "\n"


def render_markdown(d: Diagnosis) -> str:
    out = ["# bottleneck-lab diagnosis", "", verdict(d), ""]
    for i, f in enumerate(d.findings, 1):
        out.append(f"## {i}. {f.title}")
        out.append(f"*{f.severity}* · `{f.kind}` · `{f.code}` · lost {_fmt_us(f.time_lost_us_per_step)}/step")
        out.append("")
        for k, v in f.evidence.items():
            out.append(f"- **{k}**: {_fmt_value(v)}")
        out += ["", f"**Fix:** {f.fix}", ""]
    out += ["## Summary", "", "```"] + _summary_lines(d) + ["```", ""]
    if d.hta is not None:
        from ..hta_bridge import render_hta_text

        out += ["## Holistic Trace Analysis (HTA), for comparison", "", "```text",
                render_hta_text(d.hta).rstrip("\n"), "```", ""]
    return "\n".join(out)

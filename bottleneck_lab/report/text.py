"""Terminal text and Markdown. No analysis happens here: everything comes from the Diagnosis.

The text report, by default: the verdict, one entry per finding (severity, kind, time lost per
step, the title, the fix), the summary table and the top kernels. `verbose` adds each finding's
evidence and every summary fact. Lines fit `width` (100) columns; colour (ANSI) only when asked.
"""

from __future__ import annotations

import textwrap
from typing import Any

from ..diagnosis import Diagnosis, Finding
from .format import (
    OWNER_LABELS,
    fmt_bytes,
    fmt_flop,
    fmt_pct,
    fmt_rate,
    fmt_us,
    fmt_value,
    short_kernel,
)

# Summary facts that are drawn, not read (the HTML report plots them): left out of the text.
PLOT_DATA = ("timeline", "memory_curve", "roofline_roofs")
# Summary facts the concise report shows in its own rows or tables.
SHOWN_APART = (
    "idle_us_per_step_by_cause",
    "idle_us_per_step_by_owner",
    "top_kernels",
    "nvml",
    "kernel_efficiency",
    "roofline",
    "findings_on_other_ranks",
    "step_time_us_by_rank",
    "summary_rank",
    "kernels_per_step",
    "ranks",
)

_fmt_us, _fmt_value = fmt_us, fmt_value  # older names, kept for importers


class Style:
    """ANSI styles, or none. Only the renderer's own decoration is styled, never data."""

    CODES = {"bold": "1", "dim": "2", "high": "1;31", "medium": "1;33", "low": "36", "info": "2"}

    def __init__(self, color: bool) -> None:
        self.color = color

    def __call__(self, text: str, style: str) -> str:
        if not self.color or not text:
            return text
        return f"\033[{self.CODES[style]}m{text}\033[0m"


def _without_profiler(s: Any) -> dict:
    """The summary's estimates without the profiler, where it slowed the step by 5% or more;
    {} otherwise (then the profiled figures stand alone)."""
    overhead = (s.extra or {}).get("profiler_overhead") or {}
    real = overhead.get("step_time_us_without_profiler_est")
    return overhead if real and s.step_time_us and real < 0.95 * s.step_time_us else {}


def _tflops(t: float) -> str:
    return f"{t:.3g} TFLOP/s" if t >= 0.1 else f"{t * 1e3:.3g} GFLOP/s"


def verdict(d: Diagnosis, with_fix: bool = True) -> str:
    s = d.summary
    if not d.trace.has_gpu:
        return (
            "This trace has no GPU activity (CPU-only or captured without CUDA activities), so "
            "there is no GPU time to explain. Capture with ProfilerActivity.CUDA to diagnose GPU steps."
        )
    head = (
        f"Median step {fmt_us(s.step_time_us)} over {s.steps} step(s); "
        f"the GPU is busy {s.gpu_busy_pct:.1f}% of it."
        if s.gpu_busy_pct is not None
        else ""
    )
    real = _without_profiler(s).get("step_time_us_without_profiler_est")
    if head and real:
        head += (
            f" The profiler slowed the host: about {fmt_us(real)} per step without it, and the "
            "shares below are of that."
        )
    v = d.verdict
    if v is None:
        return head + (
            " No finding of severity medium or high: nothing here stands out as the bottleneck."
        )
    cost = ""
    if v.time_lost_us_per_step is not None and v.share_pct is not None:
        cost = f" It costs about {fmt_us(v.time_lost_us_per_step)} per step ({v.share_pct:.0f}%)."
    fix = f" Fix: {v.fix}" if with_fix else ""
    return f"{head} Main bottleneck: {v.title}.{cost}{fix}".strip()


def _wrap(text: str, width: int, indent: str, hang: str | None = None) -> list[str]:
    return textwrap.wrap(
        text,
        width,
        initial_indent=indent,
        subsequent_indent=indent if hang is None else hang,
        break_on_hyphens=False,
    ) or [indent.rstrip()]


def _evidence_value(v: Any) -> str:
    """Evidence values as text, kernel names shortened (the full names are in the JSON)."""
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_evidence_value(x)}" for k, x in v.items())
    if isinstance(v, list):
        return "; ".join(_evidence_value(x) for x in v)
    if isinstance(v, str) and len(v) > 60 and ("<" in v or "(" in v):
        return short_kernel(v)
    return fmt_value(v)


def _evidence_lines(f: Finding, width: int) -> list[str]:
    lines: list[str] = []
    for k, v in f.evidence.items():
        if isinstance(v, list) and v and isinstance(v[0], dict):
            lines.append(f"     {k}:")
            for item in v[:5]:
                lines.extend(_wrap(_evidence_value(item), width, "       - ", "         "))
        else:
            lines.extend(_wrap(f"{k}: {_evidence_value(v)}", width, "     ", "       "))
    if f.efficiency:
        lines.extend(
            _wrap(f"efficiency: {_evidence_value(f.efficiency)}", width, "     ", "       ")
        )
    return lines


def _finding_head(i: int, f: Finding, width: int, st: Style) -> list[str]:
    """` 1. HIGH   sync_stall          6.61 ms  33.3%  title`, the title wrapped under itself."""
    lost = fmt_us(f.time_lost_us_per_step) if f.time_lost_us_per_step is not None else "-"
    share = f"{f.share_pct:.1f}%" if f.share_pct is not None else "-"
    prefix = f"{i:>2}. {f.severity.upper():<6} {f.kind:<17} {lost:>9} {share:>6}  "
    lines = _wrap(f.title, width, prefix, " " * len(prefix))
    sev = f"{f.severity.upper():<6}"
    lines[0] = lines[0].replace(sev, st(sev, f.severity), 1)
    return lines


def _finding_lines(i: int, f: Finding, width: int, st: Style, verbose: bool) -> list[str]:
    lines = _finding_head(i, f, width, st)
    if verbose:
        lines.append(f"     code: {f.code}")
        lines.extend(_evidence_lines(f, width))
    fix = _wrap(f"fix: {f.fix}", width, "     ", "          ")
    fix[0] = fix[0].replace(
        "fix:", st("fix:", "bold"), 1
    )  # styled after wrapping: codes take no columns
    return lines + fix


def _kernel_rows(items: list[dict], width: int) -> list[str]:
    """Top kernels as an aligned table: short name, calls and time per step, share, the median
    grid in thread blocks (starred where it leaves a tenth of the SMs or more idle, with a line
    that says what that means), FLOP rate."""
    name_w = min(max(len(short_kernel(k["kernel"], 38)) for k in items), 38)
    head = (
        f"    {'kernel':<{name_w}}  {'calls/step':>10}  {'time/step':>10}  {'% time':>6}  "
        f"{'blocks':>7}  {'TFLOP/s':>7}  {'% peak':>6}"
    )
    out = [head[:width]]
    sms = next((k["sm_count"] for k in items if k.get("sm_count")), None)
    starred = False
    for k in items:
        tf = fmt_rate(k.get("tflops"))
        pk = k.get("pct_of_peak")
        pk = "-" if pk is None else "<1%" if pk < 1 else f"{pk:.0f}%"
        share = f"{k['pct_of_kernel_time']:.1f}" if k.get("pct_of_kernel_time") is not None else "-"
        blocks = k.get("median_grid_blocks")
        under = bool(k.get("underfills_sms"))
        starred |= under
        grid = "-" if blocks is None else f"{blocks:,}{'*' if under else ''}"
        out.append(
            f"    {short_kernel(k['kernel'], 38):<{name_w}}  {k['calls_per_step']:>10,.1f}  "
            f"{fmt_us(k['us_per_step']):>10}  {share:>6}  {grid:>7}  {tf:>7}  {pk:>6}"[:width]
        )
    if starred:
        out.extend(
            _wrap(
                f"* a launch (median) gives a tenth or more of the GPU's {sms} SMs no thread "
                "block: while such a kernel runs alone, those SMs have nothing to do",
                width,
                "    ",
                "      ",
            )
        )
    return out


def _summary_rows(
    d: Diagnosis, verbose: bool
) -> tuple[list[tuple[str, str]], list[tuple[str, list]]]:
    s = d.summary
    dev = d.trace.device or {}
    rows: list[tuple[str, str]] = [
        ("trace", d.trace.path),
        ("ranks", ", ".join(map(str, d.trace.ranks))),
        ("device", dev.get("name") or "none"),
        ("events", f"{d.trace.events:,}"),
        ("steps", str(s.steps)),
        ("median step time", fmt_us(s.step_time_us)),
        ("GPU busy", f"{s.gpu_busy_pct:.1f}%" if s.gpu_busy_pct is not None else "n/a"),
    ]
    x = s.extra
    # Idle by the finding that reports it (so the numbers match the findings), older
    # diagnoses by raw cause; the profiler's own share, which no finding counts, said apart.
    idle_by = x.get("idle_us_per_step_by_owner", x.get("idle_us_per_step_by_cause"))
    if idle_by is not None:
        # under half a µs would print as "0 µs"
        idle = sorted(((k, v) for k, v in idle_by.items() if v >= 0.5), key=lambda kv: -kv[1])
        parts = [f"{OWNER_LABELS.get(k, k)} {fmt_us(v)}" for k, v in idle]
        overhead = x.get("profiler_overhead") or {}
        profiler = overhead.get("idle_us_per_step") or 0
        if profiler >= 1:
            parts.append(f"the profiler's own recording {fmt_us(profiler)}")
        slowed = overhead.get("slowed_host_idle_us_per_step") or 0
        if slowed >= 1:
            parts.append(f"steps whose host ran the same ops slower {fmt_us(slowed)}")
        if parts or x.get("idle_us_per_step_by_cause"):
            rows.append(("idle per step", ", ".join(parts) or "none"))
    if x.get("kernels_per_step") is not None:
        rows.append(("kernels per step", fmt_value(x["kernels_per_step"])))
    if s.flops_per_step is not None:
        rows.append(("FLOPs per step", fmt_flop(s.flops_per_step)))
    # FLOPs over the profiled step, and over the step without the profiler where it slowed the
    # host (the step the findings' shares are of)
    free = _without_profiler(s)
    if s.achieved_tflops is not None:
        t, t_free = s.achieved_tflops, free.get("achieved_tflops_without_profiler_est")
        after = f"; about {_tflops(t_free)} without the profiler" if t_free else ""
        rows.append(("achieved", f"{_tflops(t)}{' in the profiled steps' if after else ''}{after}"))
    if s.mfu_pct is not None:
        nvml = x.get("nvml") or {}
        beside = (
            f"; NVML says the GPU was busy {nvml['gpu_busy_pct']:.0f}% of the time"
            if nvml.get("gpu_busy_pct") is not None
            else ""
        )
        m_free = free.get("mfu_pct_without_profiler_est")
        if m_free is not None:
            beside = f" (about {fmt_pct(m_free)} without the profiler){beside}"
        rows.append(("MFU", f"{fmt_pct(s.mfu_pct)} of {s.peak_tflops:.0f} TFLOP/s{beside}"))
        rows.append(("peak source", s.peak_source or "n/a"))
    if s.peak_memory_bytes is not None:
        rows.append(("peak memory", fmt_bytes(s.peak_memory_bytes)))
    if "summary_rank" in x:
        rows.append(("summary rank", f"{x['summary_rank']} (the slowest; it sets the job's pace)"))
    if x.get("step_time_us_by_rank"):
        rows.append(
            (
                "step time by rank",
                ", ".join(f"{r}: {fmt_us(v)}" for r, v in x["step_time_us_by_rank"].items()),
            )
        )
    tables: list[tuple[str, list]] = []
    if x.get("findings_on_other_ranks"):
        tables.append(("findings on other ranks", x["findings_on_other_ranks"]))
    if verbose:
        for k, v in x.items():
            if k in PLOT_DATA or k in (
                "idle_us_per_step_by_owner",
                "idle_us_per_step_by_cause",  # the row above, before owners were assigned
                "kernels_per_step",
                "top_kernels",
                "summary_rank",
                "step_time_us_by_rank",
                "findings_on_other_ranks",
                "ranks",
            ):
                continue
            if isinstance(v, list) and v and isinstance(v[0], dict):
                tables.append((k.replace("_", " "), v))
            else:
                rows.append((k.replace("_", " "), _evidence_value(v)))
    return rows, tables


def _summary_lines(d: Diagnosis, width: int = 100, verbose: bool = True) -> list[str]:
    rows, tables = _summary_rows(d, verbose)
    w = max(len(k) for k, _ in rows)
    out: list[str] = []
    for k, v in rows:
        out.extend(_wrap(f"{k:<{w}}  {v}", width, "  ", "  " + " " * (w + 2)))
    for title, items in tables:
        out.append(f"  {title}:")
        for item in items:
            out.extend(_wrap(_evidence_value(item), width, "    - ", "      "))
    return out


def render_text(d: Diagnosis, width: int = 100, verbose: bool = False, color: bool = False) -> str:
    st = Style(color)
    out = [st("bottleneck-lab diagnosis", "bold"), "=" * 24, ""]
    out.extend(_wrap(verdict(d, with_fix=False), width, ""))
    out.append("")
    if d.findings:
        out.append(st(f"Findings ({len(d.findings)}), most costly first", "bold"))
        out.append(
            st(f"    {'sev.':<6} {'kind':<17} {'lost/step':>9} {'share':>6}  finding", "dim")
        )
        for i, f in enumerate(d.findings, 1):
            if verbose and i > 1:
                out.append("")
            out.extend(_finding_lines(i, f, width, st, verbose))
    else:
        out.append(st("Findings: none", "bold"))
    out += ["", st("Summary", "bold")]
    out.extend(_summary_lines(d, width, verbose))
    if d.summary.extra.get("ranks"):
        from .ranks_view import text_lines

        head, *rest = text_lines(d.summary.extra["ranks"], width)
        out += ["", st(head, "bold"), *rest]
    top = d.summary.extra.get("top_kernels")
    if top:
        out += ["", st("Top kernels by GPU time", "bold")]
        out.extend(_kernel_rows(top if verbose else top[:5], width))
    if d.skipped:
        out += ["", st("Detectors skipped", "bold")]
        for c, why in d.skipped.items():
            out.extend(_wrap(f"{c}: {why}", width, "  ", "    "))
    if d.errors:
        out += ["", st("Detector errors (the rest of the report stands)", "bold")]
        for c, msg in d.errors.items():
            out.extend(_wrap(f"{c}: {msg}", width, "  ", "    "))
    if d.trace.warnings:
        out += ["", st("Trace warnings", "bold")]
        for w in d.trace.warnings:
            out.extend(_wrap(w, width, "  ", "    "))
    if not verbose and any(f.evidence for f in d.findings):
        out += [
            "",
            st(
                "(--verbose shows each finding's evidence; --format html draws the timeline)", "dim"
            ),
        ]
    if d.hta is not None:
        from ..hta_bridge import render_hta_text

        out += ["", render_hta_text(d.hta, width).rstrip("\n")]
    return "\n".join(out) + "\n"


def render_markdown(d: Diagnosis) -> str:
    out = ["# bottleneck-lab diagnosis", "", verdict(d), ""]
    for i, f in enumerate(d.findings, 1):
        out.append(f"## {i}. {f.title}")
        out.append(
            f"*{f.severity}* · `{f.kind}` · `{f.code}` · lost {fmt_us(f.time_lost_us_per_step)}/step"
        )
        out.append("")
        for k, v in f.evidence.items():
            out.append(f"- **{k}**: {fmt_value(v)}")
        out += ["", f"**Fix:** {f.fix}", ""]
    out += ["## Summary", "", "```"] + _summary_lines(d) + ["```", ""]
    if d.hta is not None:
        from ..hta_bridge import render_hta_text

        out += [
            "## Holistic Trace Analysis (HTA), for comparison",
            "",
            "```text",
            render_hta_text(d.hta).rstrip("\n"),
            "```",
            "",
        ]
    return "\n".join(out)

"""Text rendering of a Comparison (no analysis here)."""

from __future__ import annotations

from ..compare import Comparison
from .format import fmt_metric


def render_comparison(c: Comparison) -> str:
    w = max(len(r["label"]) for r in c.rows)
    out = [
        f"before: {c.before}",
        f"after:  {c.after}",
        "",
        f"  {'':<{w}}  {'before':>12}  {'after':>12}  {'after/before':>12}",
    ]
    for r in c.rows:
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] is not None else ""
        out.append(
            f"  {r['label']:<{w}}  {fmt_metric(r['field'], r['before']):>12}  "
            f"{fmt_metric(r['field'], r['after']):>12}  {ratio:>12}"
        )
    out += ["", "Findings (medium/high) gone after:" + ("" if c.gone else " none")]
    out += [f"  - {g['code']}: {g['title']}" for g in c.gone]
    out += ["New after:" + ("" if c.new else " none")]
    out += [f"  - {g['code']}: {g['title']}" for g in c.new]
    if c.checkpointing:
        k = c.checkpointing
        cost = (
            f"{k['recompute_us_per_step'] / 1000:.2f} ms of recompute per step"
            if k["recompute_us_per_step"] is not None
            else "recompute time unknown"
        )
        delta = (
            f", median step {k['step_time_delta_us'] / 1000:+.2f} ms"
            if k["step_time_delta_us"] is not None
            else ""
        )
        out += [
            "",
            f"Activation checkpointing ({k['checkpointed']}) saved {k['saved_bytes'] / 2**30:.2f} GiB "
            f"of peak memory ({k['saved_pct']:.0f}%) for {cost}{delta}.",
        ]
    return "\n".join(out) + "\n"

"""`bottleneck-lab compare BEFORE AFTER`: two traces of the same training step, side by side.

What changed (step time, GPU busy, FLOPs, MFU, peak memory), which findings went away or
appeared, and, when exactly one of the two checkpoints activations, the memory that saved and
the recompute it cost (memory.compare_checkpointing).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from .diagnosis import Diagnosis
from .memory import compare_checkpointing, recompute
from .trace import TraceFrame

METRICS = (  # (label, summary field, better when); the field says the unit
    ("median step time", "step_time_us", "lower"),
    ("GPU busy", "gpu_busy_pct", "higher"),
    ("FLOPs per step", "flops_per_step", "same"),
    ("achieved TFLOP/s", "achieved_tflops", "higher"),
    ("MFU", "mfu_pct", "higher"),
    # MFU is against each run's own peak: a run moved to BF16 can be faster at a lower MFU
    ("peak TFLOP/s (MFU is of this)", "peak_tflops", "same"),
    ("peak memory", "peak_memory_bytes", "lower"),
)


@dataclass(frozen=True)
class Comparison:
    before: str
    after: str
    rows: list[dict[str, Any]]  # label, field, before, after, ratio (after / before), better
    gone: list[dict[str, str]]  # medium/high findings of before that after no longer has
    new: list[dict[str, str]]  # medium/high findings only after has
    checkpointing: dict[str, Any] | None

    def to_dict(self) -> dict[str, Any]:
        return {"schema": "bottleneck-lab/compare/1", **asdict(self)}


def serious_findings(d: Diagnosis) -> dict[str, str]:
    """Code -> title of the findings of severity medium or high."""
    return {f.code: f.title for f in d.findings if f.severity in ("medium", "high")}


def _has_recompute(frames: list[TraceFrame]) -> bool:
    return any(recompute(f).present for f in frames if len(f.cpu_ops))


def compare(
    before: tuple[list[TraceFrame], Diagnosis], after: tuple[list[TraceFrame], Diagnosis]
) -> Comparison:
    (fb, db), (fa, da) = before, after
    rows = []
    for label, field, better in METRICS:
        b, a = getattr(db.summary, field), getattr(da.summary, field)
        rows.append(
            {
                "label": label,
                "field": field,
                "before": b,
                "after": a,
                "ratio": round(a / b, 3) if a is not None and b else None,
                "better": better,
            }
        )
    sb, sa = serious_findings(db), serious_findings(da)
    ckpt = None
    if _has_recompute(fa) != _has_recompute(fb):
        checkpointed, baseline = (fa[0], fb[0]) if _has_recompute(fa) else (fb[0], fa[0])
        c = compare_checkpointing(checkpointed, baseline)
        if c is not None:
            ckpt = {"checkpointed": "after" if checkpointed is fa[0] else "before", **asdict(c)}
    return Comparison(
        before=db.trace.path,
        after=da.trace.path,
        rows=rows,
        gone=[{"code": c, "title": t} for c, t in sb.items() if c not in sa],
        new=[{"code": c, "title": t} for c, t in sa.items() if c not in sb],
        checkpointing=ckpt,
    )

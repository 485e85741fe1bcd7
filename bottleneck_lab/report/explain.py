"""`bottleneck-lab explain CODE`: a detector's docstring, then its positive example: what the
tiny trace shows and the finding it yields, and what its negative example yields."""

from __future__ import annotations

import inspect
import textwrap

from ..detectors import Detector
from ..diagnosis import Diagnosis
from ..trace import TraceFrame
from .format import fmt_us


def _trace_line(frame: TraceFrame) -> str:
    kernels = int((frame.gpu_ops["kind"] == "kernel").sum())
    memory = f"{len(frame.memory)} [memory] events" if len(frame.memory) else "no [memory] events"
    return (
        f"{len(frame.steps)} steps, {len(frame.cpu_ops)} CPU ops, {len(frame.runtime)} runtime "
        f"calls, {kernels} kernels, {memory}"
    )


def render_explanation(
    det: Detector, frame: TraceFrame, positive: Diagnosis, negative: Diagnosis, width: int = 100
) -> str:
    """The docstring, then the positive example (its frame and diagnosis) and the negative's."""
    path = det.module.replace(".", "/") + ".py"
    wrap = lambda text, indent: textwrap.fill(  # noqa: E731
        " ".join(text.split()), width, initial_indent=indent, subsequent_indent=indent
    )
    lines = [f"{det.code} ({det.kind})", "", det.doc, "", f"Example: example(bad=True) in {path}"]
    lines += [wrap(inspect.cleandoc(det.example.__doc__), "  "), ""]
    lines += [wrap(f"The trace: {_trace_line(frame)}.", "  ")]
    found = [f for f in positive.findings if f.code == det.code]
    for f in found:
        cost = (
            f", {fmt_us(f.time_lost_us_per_step)} per step ({f.share_pct:.1f}% of the step)"
            if f.time_lost_us_per_step is not None and f.share_pct is not None
            else ""
        )
        lines += [f"  It yields: {f.severity}{cost}", wrap(f.title, "    ")]
    if not found:
        lines += [f"  It yields no {det.code} finding."]
    missed = [f for f in negative.findings if f.code == det.code]
    lines += [
        "",
        "The negative, example(bad=False), yields "
        + (f"a {missed[0].severity} {det.code} finding." if missed else f"no {det.code} finding."),
    ]
    return "\n".join(lines) + "\n"

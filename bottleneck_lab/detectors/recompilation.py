"""torch.compile compiling inside the training steps (recompilation).

Symptom: Dynamo/Inductor compile spans (`entire_frame_compile`, `_compile.compile_inner`,
`backend_compile`, `compile_fx_inner`) inside profiled steps, compiled regions numbered
`Torch-Compiled Region: F/N` with N > 0 (frame F compiled for the N-th time), the GPU idle while
the host compiles, and host syncs from Inductor's autotuning in the middle of it.
Likely cause: input shapes (sequence length, batch size of the last batch), dtypes or Python
values the compiled function depends on change from step to step, so Dynamo's guards fail and
it compiles again; with `dynamic=False` every new shape costs a full compile.
Fix: pad or bucket inputs to a few fixed shapes; or mark the changing dimension dynamic
(`torch._dynamo.mark_dynamic(x, 1)` or `torch.compile(dynamic=True)`); run
`TORCH_LOGS=recompiles` to see which guard failed.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import facts
from ..diagnosis import Finding, severity_for_share
from ..trace import TraceFrame
from ..trace.frame import name_mask
from ..trace.synth import TraceBuilder
from ._common import cost, gap_evidence, shape_changes, when
from ._examples import launch, steps

CODE = "recompilation"
KIND = "host_bound"
REQUIRES = {"steps", "cpu_ops"}


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0


def detect(frame: TraceFrame, cfg: Config):
    cs, ce = facts.compile_spans(frame)
    if not len(cs):
        return []
    total = facts.idle_by_owner(frame)["recompilation"]
    per_step, share = cost(frame, total)
    if share < cfg.min_share_pct:
        return []
    n_steps = max(len(frame.steps), 1)
    ops = frame.cpu_ops
    regions = ops.loc[
        name_mask(ops["name"], facts.COMPILED_REGION) & (ops["step"] >= 0), "name"
    ].astype(str)
    recompiled = sorted({r.split(": ", 1)[1] for r in regions if not r.endswith("/0")})
    changes = shape_changes(frame)
    evidence = {
        "compile_us_per_step": round(float((ce - cs).sum()) / n_steps, 1),
        "gpu_idle_while_compiling_us_per_step": per_step,
        "compile_spans": int(len(cs)),
        "first_compile": when(frame, float(cs[0])),
        "recompiled_regions": recompiled[:8],
        "input_shapes_changing_between_steps": changes,
        "largest_gaps": gap_evidence(frame, "recompilation"),
    }
    cause = (
        f"input shapes change between steps ({changes[0]['op']})"
        if changes
        else "guards failing (see TORCH_LOGS=recompiles)"
    )
    title = (
        f"torch.compile recompiles inside the steps: {share:.0f}% of the step the GPU waits "
        f"for compilation; cause: {cause}"
    )
    fix = (
        "Stop the recompiles: pad or bucket inputs to a few fixed shapes, or mark the changing "
        "dimension dynamic (torch._dynamo.mark_dynamic(x, dim) or torch.compile(dynamic=True)). "
        "TORCH_LOGS=recompiles names the guard that failed."
    )
    return [Finding(CODE, KIND, severity_for_share(share), title, per_step, share, evidence, fix)]


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# the GPU waits while torch.compile compiles again inside the step


def example(bad: bool) -> TraceBuilder:
    """k1 runs 10-200. When bad, the host then recompiles (`entire_frame_compile` 60-560, in a
    `Torch-Compiled Region: 0/1`, the frame's second compile) and only then launches k2 (~570):
    the GPU idles 200-570 waiting for the compiler. When good, nothing compiles and k2 is
    queued at ~22 behind k1."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=600 if bad else 30):
        launch(b, t0, t0 + 10, 190, kernel="gemm_a")
        if bad:
            b.cpu_op("Torch-Compiled Region: 0/1", t0 + 55, 520)
            b.cpu_op("entire_frame_compile", t0 + 60, 500)
            launch(b, t0 + 560, t0 + 570, 330, kernel="gemm_b")
        else:
            launch(b, t0 + 20, t0 + 200, 330, kernel="gemm_b")
    return b

"""Chains of memory-bound elementwise kernels that one fused kernel would replace.

Symptom: runs of three or more back-to-back elementwise/reduction kernels (mul, add, pow, mean,
rsqrt, tanh, ...) with no matrix work between them, each reading and writing whole tensors in
memory: hand-written RMSNorm, GELU or softmax, residual adds and scalings, in forward and
backward. Each kernel moves the tensor through HBM again, so the chain moves several times the
bytes a single kernel needs.
Likely cause: normalisation and activation written as Python arithmetic on tensors in eager mode.
Fix: `torch.compile` the model (Inductor fuses such chains into one kernel), or use the fused
ops: `F.rms_norm`, `F.layer_norm`, `F.gelu(approximate="tanh")`, `F.silu`, `F.softmax`,
`F.scaled_dot_product_attention`.

Estimate: each chain at the bandwidth it reached, moving only the bytes of its largest kernel (a
fused kernel reads the chain's input and writes its output once); the difference is the saving.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import facts
from ..diagnosis import Finding, severity_for_share
from ..efficiency import memory_bound_kernels
from ..trace import TraceFrame
from ..trace.frame import name_mask, nearest_ancestor
from ..trace.synth import TraceBuilder
from ._common import cost, when
from ._examples import launch, mm_args, steps

CODE = "unfused-elementwise"
KIND = "fusion"
REQUIRES = {"kernels", "steps", "shapes"}


# Bookkeeping, not arithmetic a fused kernel would absorb: gradient zeroing and fresh tensors.
# They end a chain (so does any optimizer kernel: memory_bound_kernels leaves those out, since
# launch-overhead's finding names the fused optimizer). Dtype casts and copies between
# elementwise ops do not (CASTS): a fused kernel converts in registers (HF Llama's RMSNorm
# upcasts to FP32 and back around its arithmetic; torch.compile took that eager step from 41.7
# to 22.7 ms), but they neither start nor end a chain.
CASTS = frozenset({"aten::copy_", "aten::_to_copy", "aten::to", "aten::clone", "aten::contiguous"})
NOT_FUSIBLE = frozenset(
    {
        "aten::fill_",
        "aten::zero_",
        "aten::zeros_like",
        "aten::ones_like",
        "aten::empty_like",
        "aten::full_like",
    }
)


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0
    min_chain_kernels_count: int = 3


def _elementwise_kernels(frame: TraceFrame) -> pd.DataFrame:
    """Kernels of the main device inside the steps, in stream order, with `bytes` of the
    elementwise op that launched them (efficiency.memory_bound_kernels; NaN: any other kernel,
    which ends a chain)."""
    g = frame.gpu_ops
    dev = facts.main_device(frame)
    k = g.loc[
        (g["kind"] == "kernel") & (g["device"] == dev) & (g["step"] >= 0),
        ["ts", "dur", "stream", "step"],
    ].copy()
    mb = memory_bound_kernels(frame)
    names = frame.cpu_ops["name"].astype(object).to_numpy()
    mb = mb.loc[
        (mb["category"] == "elementwise").to_numpy()
        & ~np.isin(names[mb["owner"].to_numpy()], list(NOT_FUSIBLE))
    ]
    k["owner"] = mb["owner"].reindex(k.index).fillna(-1).astype(np.int64)
    k["bytes"] = mb["bytes"].reindex(k.index)
    k["cast"] = np.isin(names[np.maximum(k["owner"].to_numpy(), 0)], list(CASTS)) & (
        k["owner"].to_numpy() >= 0
    )
    return k.sort_values(["stream", "ts"], kind="stable")


def _chains(k: pd.DataFrame, min_len: int) -> list[pd.DataFrame]:
    """Maximal runs of consecutive elementwise kernels on one stream within one step."""
    is_ew = np.isfinite(k["bytes"].to_numpy())
    stream, step = k["stream"].to_numpy(), k["step"].to_numpy()
    brk = ~is_ew | np.r_[True, (stream[1:] != stream[:-1]) | (step[1:] != step[:-1])]
    run_id = np.cumsum(brk)
    out = []
    for _, run in k.loc[is_ew].groupby(run_id[is_ew]):
        # casts ride along inside a chain but do not make one: autocast's weight casts beside
        # each matmul are no arithmetic to fuse
        arithmetic = np.flatnonzero(~run["cast"].to_numpy())
        if len(arithmetic) >= min_len:
            out.append(run.iloc[arithmetic[0] : arithmetic[-1] + 1])
    return out


AUTOGRAD_NODE = re.compile(r"^autograd::engine::evaluate_function: ")


def _host_us_of_removed_ops(frame: TraceFrame, chains: list[pd.DataFrame]) -> float:
    """Host µs that dispatching every chain kernel but the longest took: each kernel's op, or in
    backward the autograd node that ran it (its bookkeeping goes too), counted once, less the
    profiler's share of host time."""
    gone = [run["owner"].to_numpy()[np.argsort(run["dur"].to_numpy())[:-1]] for run in chains]
    owners = np.concatenate(gone) if gone else np.zeros(0, dtype=np.int64)
    if not len(owners):
        return 0.0
    ops = frame.cpu_ops
    node = nearest_ancestor(ops["parent"].to_numpy(), owners, name_mask(ops["name"], AUTOGRAD_NODE))
    spans = np.unique(np.where(node >= 0, node, owners))
    recorded = float(ops["dur"].to_numpy()[spans].sum())
    return recorded * (1.0 - facts.PROFILER_SHARE_OF_HOST_OP)


def detect(frame: TraceFrame, cfg: Config):
    k = _elementwise_kernels(frame)
    chains = _chains(k, cfg.min_chain_kernels_count)
    if not chains:
        return []
    saved = 0.0
    rows = []
    names = frame.cpu_ops["name"].astype(object).to_numpy()
    for run in chains:
        moved = float(run["bytes"].sum())
        t = float(run["dur"].sum())
        if moved <= 0 or t <= 0:
            continue
        fused_bytes = float(run["bytes"].max())
        # the fused kernel moves one kernel's bytes at the chain's bandwidth, and takes no less
        # than the chain's longest kernel (tiny kernels are latency-bound, not bandwidth-bound)
        s = t - max(t * fused_bytes / moved, float(run["dur"].max()))
        saved += s
        rows.append((s, run, moved, fused_bytes, t))
    n_steps = max(len(frame.steps), 1)
    # A fused chain is also one op to dispatch instead of many: the host saves the recorded
    # time of the ops behind the kernels that go. The step shortens by whichever side sets
    # its length.
    host_saved = _host_us_of_removed_ops(frame, [r[1] for r in rows]) / n_steps
    per_step, share = cost(
        frame, facts.step_saving_us(frame, saved / n_steps, host_saved) * n_steps
    )
    if share < cfg.min_share_pct:
        return []
    rows.sort(key=lambda r: -r[0])
    top = []
    for s, run, moved, fused_bytes, t in rows[:3]:
        ops = [str(names[o]) for o in run["owner"].to_numpy()[:8]]
        top.append(
            {
                **when(frame, float(run["ts"].iloc[0])),
                "kernels": int(len(run)),
                "ops": ops,
                "us": round(t, 1),
                "bytes_moved": int(moved),
                "bytes_if_fused": int(fused_bytes),
                "gb_per_s": round(moved / t / 1e3, 1),
                "saving_us": round(s, 1),
            }
        )
    in_chains = sum(len(r[1]) for r in rows)
    moved_total = sum(r[2] for r in rows)
    fused_total = sum(r[3] for r in rows)
    evidence = {
        "chains_per_step": round(len(rows) / n_steps, 1),
        "kernels_in_chains_per_step": round(in_chains / n_steps, 1),
        "chain_kernel_us_per_step": round(sum(r[4] for r in rows) / n_steps, 1),
        "gpu_time_saved_us_per_step": round(saved / n_steps, 1),
        "host_time_saved_us_per_step": round(host_saved, 1),
        "host_time_us_per_step": round(facts.host_time_us(frame), 1),
        "bytes_moved_per_step": int(moved_total / n_steps),
        "bytes_if_fused_per_step": int(fused_total / n_steps),
        "largest_chains": top,
    }
    title = (
        f"{in_chains / n_steps:.0f} elementwise kernels per step in {len(rows) / n_steps:.0f} unfused "
        f"chains move {moved_total / max(fused_total, 1):.1f}x the bytes fused kernels would; "
        f"fusing saves ~{share:.0f}% of the step"
    )
    fix = (
        "Fuse the chains: torch.compile the model (or the block), or replace hand-written "
        "normalisation/activation arithmetic with fused ops (F.rms_norm, F.layer_norm, "
        "F.gelu(approximate='tanh'), F.silu, F.scaled_dot_product_attention)."
    )
    return [Finding(CODE, KIND, severity_for_share(share), title, per_step, share, evidence, fix)]


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# a hand-written GELU: four elementwise kernels where one would do


def example(bad: bool) -> TraceBuilder:
    """A 300 µs matmul, then GELU on a 16M-element FP32 tensor, queued back to back on the GPU.
    Bad: written as arithmetic, four elementwise ops (mul, tanh, add, mul), each a 100 µs kernel
    reading and writing the whole tensor. Good: one fused aten::gelu kernel of 100 µs."""
    n = 1 << 24
    unary = {"Input Dims": [[n]], "Input type": ["float"], "Concrete Inputs": [""]}
    binary = {"Input Dims": [[n], [n]], "Input type": ["float"] * 2, "Concrete Inputs": ["", ""]}
    chain = [("aten::mul", binary), ("aten::tanh", unary), ("aten::add", binary)]
    ops = chain + [("aten::mul", binary)] if bad else [("aten::gelu", unary)]
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=60):
        launch(b, t0, t0 + 10, 300, name="aten::mm", kernel="gemm_a", op_args=mm_args(4096))
        for i, (op, args) in enumerate(ops):
            launch(b, t0 + 10 + 8 * i, t0 + 310 + 100 * i, 100, name=op, op_args=args)
    return b

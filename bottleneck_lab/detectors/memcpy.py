"""Host-device copies that cost step time.

Symptom: Memcpy HtoD/DtoH take a large share of the step, copies come from pageable host memory
("Pageable" in the copy's name), or the host blocks in synchronous copies.
Likely cause: batches built in ordinary (pageable) host memory are staged through a bounce buffer
at a fraction of PCIe/NVLink bandwidth, and `.to(device)` without `non_blocking=True` blocks the
host.
Fix: `DataLoader(pin_memory=True)` or `tensor.pin_memory()`, then `.to(device, non_blocking=True)`
so copies run at full bandwidth and overlap with compute; avoid copies back to the host in the
step.

Also: round trips (facts.round_trips), a tensor copied to the host and back within a step with no
GPU work between (numpy mixup or augmentation of a GPU batch). Moving that work onto the GPU
removes both copies and the GPU's wait for the host in between: the estimate counts all three
(pinning would only shorten the copies).

Also: tensors autograd saved for the backward, moved to the host as they are saved and brought
back when the backward reads them (torch.autograd.graph.save_on_cpu, activation offloading): the
copy's aten::to runs inside the forward op that saves the tensor and inside the backward node
that reads it. Where the device's memory holds the step's peak and those tensors both (under
OFFLOAD_FITS of it), keeping them on the GPU removes the copies and the host's time in them,
which is the estimate; else pinning them is (save_on_cpu(pin_memory=True)). A ConvNeXt-T with
its forward under save_on_cpu() measured 98.3% faster without it (holdout 51), where pinning's
estimate said 77%.

Also: an optimizer run on the CPU (its Optimizer.step does tensor work and launches no GPU work
while the model trains on the GPU), whose gradients and weights these copies carry: the fix says
to run it on the GPU, which removes the copies and its host time together (holdout 49's GPT-2
with AdamW offloaded by hand: 85.6% measured, where the copies alone are priced at 54.6%).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import facts, memory
from ..diagnosis import Finding, severity_for_share
from ..trace import TraceFrame
from ..trace import intervals as iv
from ..trace.frame import name_mask, nearest_ancestor
from ..trace.synth import TraceBuilder
from ._common import cost, when
from ._examples import launch, steps

CODE = "memcpy"
KIND = "memcpy"
REQUIRES = {"kernels", "steps"}

# Pinned copies run at least twice as fast as pageable ones (the pageable_memcpy demo measured
# 10.4 vs 54.7 GB/s on an H100 host, 5.3x; traces/README.md). Where a copy's bytes are known, the
# time it would take pinned is bytes at PINNED_GB_PER_S (below the 54.7 measured, so the
# estimate leans low); else the conservative 2x.
PINNED_SPEEDUP = 2.0
PINNED_GB_PER_S = 45.0


# The ops a copy to or from the host is made of; the first op above them is the copy's caller.
COPY_OPS = re.compile(
    r"^aten::(to|_to_copy|copy_|empty|empty_strided|empty_like|pin_memory|_pin_memory)$"
)
# An autograd backward node as the trace records it (the engine's span, or the node's own).
BACKWARD_NODE = re.compile(rf"({facts.ENGINE_NODE.pattern}|Backward\d*$)")
# Saved tensors kept on the GPU must fit beside the step's peak in this share of its memory.
OFFLOAD_FITS = 0.8


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0


def detect(frame: TraceFrame, cfg: Config):
    g = frame.gpu_ops
    copies = g.loc[
        (g["kind"] == "memcpy") & g["copy_kind"].isin(["HtoD", "DtoH"]) & (g["step"] >= 0)
    ]
    if not len(copies):
        return []
    k = facts.kernels(frame)
    ks, ke = iv.union(k["ts"].to_numpy(), k["end"].to_numpy())
    cs, ce = copies["ts"].to_numpy(), copies["end"].to_numpy()
    exposed = copies["dur"].to_numpy() - iv.overlap_with(ks, ke, cs, ce)
    pageable = copies["pageable"].to_numpy()
    pageable_us = float(copies.loc[pageable, "dur"].sum())
    # A round trip's copies go whole once the work stays on the GPU (what kernels did not hide of
    # them); pinning speeds up the others.
    trips = facts.round_trips(frame)
    in_trip = copies.index.isin(trips["down"]) | copies.index.isin(trips["up"])
    trip_copy_us = float(exposed[in_trip].sum())
    pc = copies.loc[pageable & ~in_trip]
    nbytes = pc["bytes"].to_numpy(dtype=float)
    pinned_us = np.where(
        np.isfinite(nbytes) & (nbytes > 0),
        nbytes / (PINNED_GB_PER_S * 1e3),
        pc["dur"].to_numpy() / PINNED_SPEEDUP,
    )
    pinning_saves = float(np.maximum(pc["dur"].to_numpy() - pinned_us, 0.0).sum())
    # GPU idle while the host sat in blocking host-to-device copies (one .to() after another) or
    # worked on a tensor between its copies down and back (facts.gap_owners)
    owned_idle = facts.idle_by_owner(frame)["memcpy"]
    gaps = facts.idle_gaps(frame)
    in_trip_gap = gaps["in_round_trip"].to_numpy(dtype=bool)
    mine = in_trip_gap & (facts.gap_owners(frame) == "memcpy")
    trip_idle = float(gaps.loc[mine, "exposed_us"].sum())
    blocked_idle = max(owned_idle - trip_idle, 0.0)
    # Without the trip the step loses its copies on the GPU and the host's work between them (less
    # what another finding owns there: waiting on the DataLoader), but is still no shorter than
    # the GPU's other work or the host's (the model's kernels remain).
    # Per step, as the median step it is set against (a median of whole steps' GPU time less a
    # mean of their copies had left ViT-S 16 of its 25.5 ms of kernels). gpu_ops and trips number
    # steps by position, gaps by ProfilerStep number.
    n_steps = max(len(frame.steps), 1)
    position = pd.Index(frame.steps["step"]).get_indexer(gaps["step"])
    others = pd.Series(gaps["dur"].to_numpy(), index=position)[in_trip_gap & ~mine]
    host = (trips["host_end"] - trips["host_start"]).groupby(trips["step"].to_numpy()).sum()
    host = host.sub(others.groupby(level=0).sum(), fill_value=0.0).clip(lower=0.0)
    gpu = pd.Series(exposed[in_trip], index=copies["step"].to_numpy()[in_trip])
    positions = np.arange(n_steps)
    trip_saving = n_steps * facts.step_saving_us(
        frame,
        float(np.median(gpu.groupby(level=0).sum().reindex(positions, fill_value=0.0))),
        float(np.median(host.reindex(positions, fill_value=0.0))),
    )
    recoverable = pinning_saves + blocked_idle + trip_saving
    saved = _saved_tensor_copies(frame, copies)
    saved_down = copies.loc[saved & (copies["copy_kind"] == "DtoH").to_numpy(), "bytes"]
    offload = (
        _offload_saving_us(frame, copies.loc[saved], exposed[saved], saved_down)
        if saved.any()
        else None
    )
    if offload is not None:
        recoverable = max(recoverable, offload)
    per_step, share = cost(frame, recoverable)
    _, copy_share = cost(frame, float(copies["dur"].sum()))
    exposed_per_step, exposed_share = cost(frame, float(exposed.sum()))
    if max(share, exposed_share) < cfg.min_share_pct:
        return []
    by_kind = copies.groupby("copy_kind")["dur"].sum()
    largest = [
        {
            **when(frame, c.ts),
            "name": str(c.name),
            "us": round(c.dur, 1),
            "bytes": None if c.bytes != c.bytes else int(c.bytes),
            "gb_per_s": None if not c.bytes or c.dur <= 0 else round(c.bytes / c.dur / 1e3, 2),
        }
        for c in copies.nlargest(5, "dur").itertuples()
    ]
    evidence = {
        "copy_us_per_step": round(float(copies["dur"].sum()) / n_steps, 1),
        "copy_share_pct": copy_share,
        "exposed_copy_us_per_step": exposed_per_step,
        "copy_us_per_step_by_direction": {k_: round(v / n_steps, 1) for k_, v in by_kind.items()},
        "pageable_copies_per_step": round(int(pageable.sum()) / n_steps, 1),
        "pageable_us_per_step": round(pageable_us / n_steps, 1),
        "gpu_idle_in_blocking_h2d_copies_us_per_step": round(blocked_idle / n_steps, 1),
        "h2d_copies_per_step": round(int((copies["copy_kind"] == "HtoD").sum()) / n_steps, 1),
        "blocking_copy_calls_per_step": round(
            int(name_mask(facts.sync_calls(frame)["name"], "Memcpy").sum()) / n_steps, 1
        ),
        "largest_copies": largest,
        "round_trips_per_step": round(len(trips) / n_steps, 1),
        "round_trip_copy_us_per_step": round(trip_copy_us / n_steps, 1),
        "gpu_idle_in_round_trips_us_per_step": round(trip_idle / n_steps, 1),
        "round_trips": [
            {
                **when(frame, float(t.start)),
                "bytes_down": int(t.bytes_down),
                "bytes_up": int(t.bytes_up),
                "down_us": round(float(t.host_start - t.start), 1),
                "host_us": round(float(t.host_end - t.host_start), 1),
                "up_us": round(float(t.end - t.host_end), 1),
                "host_ops": facts.host_ops_in(frame, float(t.host_start), float(t.host_end)),
            }
            for t in trips.nlargest(3, "bytes_down").itertuples()
        ],
    }
    evidence["saved_tensor_copies_per_step"] = round(int(saved.sum()) / n_steps, 1)
    if saved.any():
        evidence["saved_tensor_bytes_to_host_per_step"] = int(saved_down.fillna(0).sum() / n_steps)
        evidence["saved_tensors_fit_on_gpu"] = offload is not None
    if saved.any() and saved.sum() >= 0.5 * len(copies):
        severity = severity_for_share(share)
        down_bytes = evidence["saved_tensor_bytes_to_host_per_step"]
        size = (
            f"{down_bytes / 2**30:.2f} GiB"
            if down_bytes >= 2**30
            else f"{down_bytes / 2**20:.0f} MiB"
        )
        title = (
            f"Autograd's saved tensors go to the host and back ({size} down per step, "
            f"{int(saved.sum()) / n_steps:.0f} copies): about {share:.0f}% of the step "
            "recoverable"
        )
        fix = (
            "The forward saves its activations to host memory and the backward copies them "
            "back (torch.autograd.graph.save_on_cpu, or an activation-offloading wrapper). "
        )
        if offload is not None:
            peak = memory.peak_memory_bytes(frame) or 0
            fix += (
                f"The step's peak is {peak / 2**30:.2f} GiB, so the GPU has room to keep them: "
                "drop the offloading and the copies and the host's time in them go. "
            )
        fix += (
            "If memory is why they were moved, pin them (save_on_cpu(pin_memory=True)) so the "
            "copies run at full bandwidth, or checkpoint the repeated blocks instead "
            "(torch.utils.checkpoint), which recomputes activations on the GPU rather than "
            "moving them."
        )
        lost = per_step
    elif len(trips):
        severity = severity_for_share(share)
        mb = float(trips["bytes_down"].median()) / 2**20
        host_ms = float((trips["host_end"] - trips["host_start"]).sum()) / n_steps / 1e3
        per = len(trips) / n_steps
        title = (
            f"A tensor goes to the host and back ({per:.3g} per step: {mb:.0f} MiB down, the GPU "
            f"idle {host_ms:.1f} ms per step until it comes back up): about {share:.0f}% of the "
            "step recoverable"
        )
        fix = (
            "Do that work on the GPU: torch ops on the CUDA tensor (torch.randperm(n, "
            "device=...), lerp, where, torchvision.transforms.v2 on GPU tensors) in place of "
            "numpy or PIL, so the tensor never leaves the device; the copies, the sync and the "
            "host's wait all go. The torch ops recorded in the wait are listed under "
            "round_trips; numpy and PIL record none, so profile with with_stack=True to see the "
            "Python lines that took the rest. Work that must run on the host belongs in the "
            "DataLoader workers, before the batch's first copy."
        )
        lost = per_step
    elif pageable_us > 0 or blocked_idle > 0:
        severity = severity_for_share(share)
        n_h2d = evidence["h2d_copies_per_step"]
        n_d2h = round(int((copies["copy_kind"] == "DtoH").sum()) / n_steps, 1)
        title = (
            f"Blocking copies from pageable host memory ({n_h2d:.0f} host-to-device, "
            f"{n_d2h:.0f} device-to-host per step): about {share:.0f}% of the step recoverable"
        )
        fix = (
            "Pin the host buffers (DataLoader(pin_memory=True) or tensor.pin_memory()) and copy "
            "with .to(device, non_blocking=True) so copies run at full bandwidth and overlap "
            "compute."
        )
        if by_kind.get("DtoH", 0.0) > by_kind.get("HtoD", 0.0):
            # outputs brought back whole (logits, feature maps) for a metric computed on the host
            fix = (
                "Most of it is device-to-host: bring back less. Reduce on the GPU first (the "
                "argmax, a metric's running sums) and copy the result; HF Trainer's "
                "preprocess_logits_for_metrics does this for logits. Where whole tensors must "
                "come back, copy them into a pinned buffer (torch.empty(..., pin_memory=True)"
                ".copy_(t, non_blocking=True)) and synchronise once, when they are read."
            )
        if n_h2d >= 16:
            fix += (
                f" {n_h2d:.0f} separate copies per step: collate the tensors into one pinned "
                "buffer on the host and copy it once."
            )
        cpu_optimizer_us = _cpu_optimizer_us(frame) / n_steps
        evidence["cpu_optimizer_us_per_step"] = round(cpu_optimizer_us, 1)
        if cpu_optimizer_us > 0:
            fix = (
                f"The optimizer runs on the CPU: Optimizer.step took {cpu_optimizer_us / 1e3:.1f} "
                "ms a step on the host and launched no GPU work, so these copies likely carry "
                "its gradients down and its weights back up. Run it on the GPU "
                "(torch.optim.AdamW(model.parameters(), fused=True) on the CUDA parameters): "
                "the copies and its host time go together, more than this finding's share (a "
                "hand-offloaded GPT-2 measured 85.6% faster where the copies alone read 54.6%). "
                "If it was moved to save GPU memory, an optimizer with smaller state (8-bit "
                "Adam, Adafactor) or sharding it across GPUs (FSDP) keeps it there. " + fix
            )
        lost = per_step
    else:
        # Already pinned: what is left is bandwidth; overlapping it is a smaller, harder win.
        severity = "low" if exposed_share >= cfg.min_share_pct else "info"
        title = f"Pinned host-device copies take {copy_share:.0f}% of the step ({exposed_share:.0f}% not overlapped)"
        fix = (
            "Copies are already pinned. Overlap them with compute (non_blocking=True and prefetch "
            "the next batch on a side stream) or move less data per step."
        )
        lost, share = exposed_per_step, exposed_share
    return [Finding(CODE, KIND, severity, title, lost, share, evidence, fix)]


def _saved_tensor_copies(frame: TraceFrame, copies: pd.DataFrame) -> np.ndarray:
    """Which copies move a tensor autograd saved: to the host inside the forward op that saves
    it (an op with an autograd sequence number: a convolution, a norm), back to the device
    inside the backward node that reads it. A .item() or .cpu() of the user's runs under no
    such op."""
    ops = frame.cpu_ops
    if not len(ops) or "op" not in copies:
        return np.zeros(len(copies), dtype=bool)
    start = copies["op"].fillna(-1).to_numpy(dtype=np.int64)
    caller = nearest_ancestor(ops["parent"].to_numpy(), start, ~name_mask(ops["name"], COPY_OPS))
    found = caller >= 0
    at = np.maximum(caller, 0)
    backward = found & name_mask(ops["name"], BACKWARD_NODE)[at]
    saves = found & (ops["seq"].to_numpy()[at] >= 0) & ~backward
    kind = copies["copy_kind"].to_numpy()
    saved = ((kind == "HtoD") & backward) | ((kind == "DtoH") & saves)
    # both halves must be there: tensors saved to the host and read back by the backward
    if not (saved & (kind == "HtoD")).any() or not (saved & (kind == "DtoH")).any():
        return np.zeros(len(copies), dtype=bool)
    return saved


def _offload_saving_us(
    frame: TraceFrame, saved: pd.DataFrame, exposed: np.ndarray, down: pd.Series
) -> float | None:
    """What keeping the saved tensors on the GPU saves over the profiled steps: their copies'
    (`saved`, `exposed` µs of each) exposed time on the GPU and the host's time in the calls
    that made them (a pageable copy blocks its call), bounded as any fix is by the step's
    remaining work; None where the step's peak memory and the bytes sent down (`down`, of the
    device-to-host copies) together would not fit in OFFLOAD_FITS of the device's memory (or
    either is unknown)."""
    peak = memory.peak_memory_bytes(frame)
    total = memory.capacity_bytes(frame, memory.CUDA, facts.main_device(frame))
    n_steps = max(len(frame.steps), 1)
    if peak is None or not total or down.isna().all():
        return None
    if peak + float(down.sum()) / n_steps > OFFLOAD_FITS * float(total):
        return None
    ops = frame.cpu_ops
    start = saved["op"].fillna(-1).to_numpy(dtype=np.int64)
    outer = nearest_ancestor(
        ops["parent"].to_numpy(), start, (ops["name"] == "aten::to").to_numpy()
    )
    outer = np.unique(outer[outer >= 0])
    host_us = float(ops["dur"].to_numpy()[outer].sum()) / n_steps
    gpu_us = float(exposed.sum()) / n_steps
    return n_steps * facts.step_saving_us(frame, gpu_us, host_us)


def _cpu_optimizer_us(frame: TraceFrame) -> float:
    """µs of Optimizer.step spans in the steps where the optimizer ran on the CPU: tensor ops
    (aten::) on whole tensors inside the spans and not one GPU op launched from them. Where
    shapes are recorded an op on a tensor of one or more dimensions must be among them (TorchRec
    fuses its sparse updates into the backward kernels, and its Optimizer.step only bumps 0-dim
    step counters on the host); without shapes the spans must hold CPU_OPTIMIZER_MIN_SHARE of
    the step. 0 elsewhere (no optimizer in the trace, or one that launched GPU work)."""
    start, end = facts.optimizer_spans(frame)
    if not len(start):
        return 0.0
    ops = frame.cpu_ops
    tensor_work = facts.ops_in_optimizer(frame) & name_mask(ops["name"], r"^aten::")
    if not tensor_work.any() or facts.launched_in_optimizer(frame, frame.gpu_ops).any():
        return 0.0
    ws, we = facts.step_windows(frame)
    us = float(iv.overlap_with(ws, we, start, end).sum())
    dims = ops["input_dims"].to_numpy()[tensor_work]
    if any(isinstance(d, list) for d in dims):
        whole = (isinstance(d, list) and any(isinstance(x, list) and x for x in d) for d in dims)
        return us if any(whole) else 0.0
    step = facts.step_stats(frame)
    return us if step and us >= CPU_OPTIMIZER_MIN_SHARE * step.total_us else 0.0


# Without recorded shapes, the share of the step an optimizer that launched no GPU work must take
# to be read as one running on the CPU: the hand-offloaded GPT-2's took 27%; TorchRec's step-counter
# bumps, 0.6% and 3.4% of theirs.
CPU_OPTIMIZER_MIN_SHARE = 0.10


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# batches copied from pageable host memory


def example(bad: bool) -> TraceBuilder:
    """Each step copies a batch HtoD, then runs a 300 µs kernel. Bad: a 400 µs copy from pageable
    memory (2 MiB, ~5 GB/s). Good: a 5 µs copy from pinned memory (128 KiB, ~26 GB/s)."""
    b = TraceBuilder()
    copy_us = 400.0 if bad else 5.0
    for t0 in steps(b, cpu_us=30):
        ext = b.cpu_op("aten::copy_", t0 + 1, 10)
        corr = b.runtime("cudaMemcpyAsync", t0 + 2, 6, external_id=ext)
        b.memcpy(
            t0 + 5,
            copy_us,
            correlation=corr,
            external_id=ext,
            src="Pageable" if bad else "Pinned",
            nbytes=(2 << 20) if bad else (128 << 10),
        )
        launch(b, t0 + 12, t0 + 6 + copy_us, 300, kernel="gemm_a")
    return b

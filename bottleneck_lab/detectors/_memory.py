"""Helpers the memory detectors share: the analysed device's peak as evidence, capacity checks."""

from __future__ import annotations

from .. import memory
from ..trace import TraceFrame
from ._common import when

GIB = float(1 << 30)


def gib(nbytes: float | None) -> float | None:
    return None if nbytes is None else round(nbytes / GIB, 3)


def human(nbytes: float | None) -> str:
    """Bytes for a title: GiB from 1 GiB up, MiB below."""
    if nbytes is None:
        return "n/a"
    return f"{nbytes / GIB:.2f} GiB" if abs(nbytes) >= GIB else f"{nbytes / (1 << 20):.1f} MiB"


def capacity_pct(report: memory.MemoryReport, nbytes: float) -> float | None:
    """nbytes as a share of the device's memory (None when the trace does not give it)."""
    if not report.capacity_bytes:
        return None
    return round(100.0 * nbytes / report.capacity_bytes, 2)


def peak_evidence(frame: TraceFrame, report: memory.MemoryReport) -> dict:
    """Where the peak is: bytes, share of capacity, step, phase and the op running at it."""
    s = report.peak_step
    ev = {
        "device": {
            "type": "cuda" if report.device_type == memory.CUDA else "cpu",
            "id": report.device_id,
        },
        "peak_allocated_bytes": report.peak_bytes,
        "peak_allocated_gib": gib(report.peak_bytes),
        "peak_reserved_bytes": report.reserved_peak_bytes,
        "capacity_bytes": report.capacity_bytes,
        "peak_pct_of_capacity": capacity_pct(report, report.peak_bytes),
    }
    if s is not None:
        ev.update(
            {
                "peak_step": s.step,
                "peak_phase": s.peak_phase,
                "peak_op": s.peak_op,
                "peak_op_stack": list(s.peak_op_stack[-4:]),
                "peak_at": when(frame, s.peak_ts),
                "baseline_bytes": s.baseline_bytes,
            }
        )
    return ev

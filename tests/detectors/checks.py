"""Invariants every diagnosis must satisfy, on hand-written and on real traces alike."""

from __future__ import annotations

from bottleneck_lab import facts
from bottleneck_lab.diagnosis import Diagnosis
from bottleneck_lab.trace import TraceFrame
from bottleneck_lab.trace import intervals as iv

# Finding code -> the owner (facts.gap_owners) whose idle it reports as lost. With a small batch,
# small-batch owns the launch-bound gaps and the short host-bound ones.
IDLE_OWNER = {
    "gpu-idle": "gpu_idle",
    "host-bound": "host_bound",
    "data-loading": "data_loading",
    "sync-stall": "sync_stall",
    "launch-overhead": "launch_overhead",
    "small-batch": "small_batch",
    "memcpy": "memcpy",
    "recompilation": "recompilation",
}
ROUNDING_US = 0.1  # findings round µs per step to one decimal


def idle_claimed(d: Diagnosis) -> dict[str, float]:
    """µs of GPU idle per step that each idle-attributed finding reports as lost (small-batch:
    the host idle part of its cost, not the unused-SM part)."""
    out = {}
    for f in d.findings:
        if f.code == "small-batch":
            out[f.code] = f.evidence["host_idle_us_per_step"]
        elif f.code == "memcpy":  # its cost adds the copies it saves to the idle it owns
            ev = f.evidence
            out[f.code] = ev.get("gpu_idle_in_blocking_h2d_copies_us_per_step", 0.0) + ev.get(
                "gpu_idle_in_round_trips_us_per_step", 0.0
            )
        elif f.code == "launch-overhead":  # where launching is what the GPU mostly waits for,
            # its cost is a CUDA graph's step saving (host dispatch too), beyond the idle it owns
            out[f.code] = f.evidence["idle_us_per_step"]
        elif f.code == "sync-stall":  # its cost adds the host's blocked time the fix gives back
            out[f.code] = f.evidence["gpu_idle_after_sync_us_per_step"]
        elif f.code in IDLE_OWNER and f.time_lost_us_per_step is not None:
            out[f.code] = f.time_lost_us_per_step
    return out


def idle_per_step(frame: TraceFrame) -> float:
    return float(facts.idle_gaps(frame)["dur"].sum()) / max(len(frame.steps), 1)


def assert_idle_partitioned(frame: TraceFrame) -> None:
    """The idle gaps are exactly the step windows minus GPU busy time, each with one cause."""
    gaps = facts.idle_gaps(frame)
    assert set(gaps["cause"]) <= set(facts.CAUSES)
    assert (gaps["dur"] > 0).all()
    dev = facts.main_device(frame)
    ws, we = facts.step_windows(frame)
    bs, be = frame.busy_intervals(dev)
    busy = float(iv.overlap_with(bs, be, ws, we).sum())
    window = iv.total(ws, we)
    tol = 1e-3 * (len(gaps) + 1)  # float error of µs timestamps near 1e12
    assert abs(float(gaps["dur"].sum()) + busy - window) <= tol
    assert abs(sum(facts.idle_by_cause(frame).values()) - float(gaps["dur"].sum())) <= tol


def assert_no_idle_counted_twice(d: Diagnosis, frame: TraceFrame) -> None:
    """Each idle finding reports exactly its cause's idle (host-bound, launch-overhead and
    gpu-idle promise only part of it: the idle left at the profiler's highest share, the gaps
    longer than a kernel switch; data-loading the wait of the steps after those served from the
    loader's buffer); together they never exceed the idle but for that. `d` must be the
    diagnosis of `frame` alone."""
    if not frame.has_gpu:
        return  # no GPU idle: data-loading then reports the step's time in __next__
    claimed = idle_claimed(d)
    steps = max(len(frame.steps), 1)
    by_owner = facts.idle_by_owner(frame)
    # data-loading promises the steady steps' wait: steps that ran on batches from the loader's
    # buffer are left out, so it may claim more per step than its gaps hold over all steps
    loader = next((f for f in d.findings if f.code == "data-loading"), None)
    steady = None
    if loader is not None:
        waits = loader.evidence["wait_us_by_step"][loader.evidence["steps_served_from_buffer"] :]
        steady = sum(waits) / len(waits)
    beyond = claimed.get("data-loading", 0.0) - by_owner["data_loading"] / steps
    # the owners' idle, the idle only the profiler's host cost made and the idle of steps whose
    # host was slowed add up to all the idle
    total = sum(by_owner.values()) + facts.profiler_overhead_us(frame) + facts.slowed_host_us(frame)
    assert abs(total - float(facts.idle_gaps(frame)["dur"].sum())) <= 1e-3 * (len(by_owner) + 1)
    for code, us in claimed.items():
        expected = steady if code == "data-loading" else by_owner[IDLE_OWNER[code]] / steps
        if code in ("host-bound", "launch-overhead", "gpu-idle"):
            assert us <= expected + ROUNDING_US, (code, us, by_owner)
        else:
            assert abs(us - expected) <= ROUNDING_US, (code, us, by_owner)
    assert sum(claimed.values()) <= idle_per_step(frame) + beyond + ROUNDING_US * len(claimed), (
        claimed
    )


def assert_ranked(d: Diagnosis) -> None:
    """Most costly first (a finding without an estimate never before one with a positive cost);
    the verdict is the first medium or high finding."""
    costs = [f.time_lost_us_per_step for f in d.findings]
    assert [c or 0.0 for c in costs] == sorted((c or 0.0 for c in costs), reverse=True), costs
    first_none = next((i for i, c in enumerate(costs) if c is None), len(costs))
    assert all(not c for c in costs[first_none:]), costs
    serious = [f for f in d.findings if f.severity in ("medium", "high")]
    assert d.verdict is (serious[0] if serious else None)

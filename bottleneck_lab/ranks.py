"""Many ranks: analyse each rank's file on its own, bring back a small summary per rank, and
reduce the summaries to one Diagnosis with a cross-rank view.

    map     analyze_file(path) -> RankResult    one file, one process; never a TraceFrame back
    reduce  reduce_ranks(results) -> Diagnosis  the Diagnosis diagnose(frames) gives, plus
                                                 summary.extra["ranks"] (cross_rank_view)

The map runs in this process (`jobs=1`), in worker processes (`jobs=N`, one rank's working set
per worker at a time), or on a Dask cluster (`scheduler="tcp://host:port"` or "local"), whose
workers read the files from a path they can all see.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np

from .diagnosis import Diagnosis, Finding, Summary, TraceInfo, rank_findings, severity_for_share
from .trace import TraceError, TraceFrame


class SchedulerError(ValueError):
    """--scheduler cannot be used: dask is missing or the scheduler cannot be reached."""


@dataclass
class RankResult:
    """What the reduce needs from one rank: its summary and findings (as diagnose computes them)
    and the step and collective timings the cross-rank view compares. Plain values only: this is
    what travels from a worker process or a Dask worker."""

    path: str
    rank: int
    summary: Summary
    findings: list[Finding]
    skipped: dict[str, str]
    errors: dict[str, str]
    warnings: list[str]
    has_gpu: bool
    events: int
    device: dict[str, Any] | None
    memory_events: int
    step_us: dict[int, float] = field(default_factory=dict)  # step number -> duration
    # step number -> [(kernel name, µs, µs not overlapped by other kernels)] of the main device's
    # NCCL/RCCL kernels, in start order
    collectives: dict[int, list[tuple[str, float, float]]] = field(default_factory=dict)


def _timings(
    frame: TraceFrame,
) -> tuple[dict[int, float], dict[int, list[tuple[str, float, float]]]]:
    from . import facts
    from .trace import intervals as iv

    s = frame.steps
    step_us = {int(n): float(d) for n, d in zip(s["step"], s["dur"])}
    dev = facts.main_device(frame)
    if dev is None:
        return step_us, {}
    k, ks, ke = facts.collectives_and_compute(frame, dev)
    k = k.sort_values("ts", kind="stable")
    # the part of each collective no compute kernel overlaps: there the GPU only communicates
    hidden = iv.overlap_with(ks, ke, k["ts"].to_numpy(), k["end"].to_numpy())
    exposed = np.maximum(k["dur"].to_numpy() - hidden, 0.0)
    number = s["step"].to_numpy()  # a kernel's "step" is the index of its step in frame.steps
    coll: dict[int, list[tuple[str, float, float]]] = {}
    for i, name, d, e in zip(k["step"], k["name"].astype(object), k["dur"], exposed):
        coll.setdefault(int(number[i]), []).append((str(name), float(d), float(e)))
    return step_us, coll


def analyze_frame(frame: TraceFrame, cfgs: dict[str, Any], peak=None) -> RankResult:
    """One rank's summary and findings, exactly as diagnose() computes them for that rank."""
    from .efficiency import efficiency
    from .rank_analysis import _device_info, _run_detectors, _with_efficiency, summarize

    summary = summarize(frame, peak)
    skipped: dict[str, str] = {}
    errors: dict[str, str] = {}
    eff = efficiency(frame, peak)
    found = [
        _with_efficiency(x, eff, frame, peak) for x in _run_detectors(frame, cfgs, skipped, errors)
    ]
    step_us, coll = _timings(frame)
    return RankResult(
        path=frame.path,
        rank=frame.rank,
        summary=summary,
        findings=found,
        skipped=skipped,
        errors=errors,
        warnings=list(frame.warnings),
        has_gpu=frame.has_gpu,
        events=frame.events,
        device=_device_info(frame),
        memory_events=len(frame.memory),
        step_us=step_us,
        collectives=coll,
    )


def analyze_file(path: str, overrides: dict[str, dict[str, Any]] | None, peak=None):
    """The map step: load ONE rank file and analyse it. A file that is not a trace gives the
    line load_trace would warn with (a string), so one stray file does not sink the job."""
    from .detectors import configs
    from .trace import load_frame

    try:
        frame = load_frame(path)
    except TraceError as exc:
        return f"skipped {exc}"
    return analyze_frame(frame, configs(overrides), peak)


def default_jobs() -> int:
    """All the cores this process may use."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def _map_processes(files: list[Path], jobs: int, task: Callable, keep: Callable) -> list:
    """`task` over the files in `jobs` worker processes, each holding one rank at a time (its
    frame is freed before the next: 64 ranks in one process peak within 6 MB of 8 ranks, see
    the README). The forkserver forks workers from a process that has already imported the
    analyzer. Workers are reused: max_tasks_per_child=1 hung a test run on Python 3.11."""
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    if "forkserver" in mp.get_all_start_methods():
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["bottleneck_lab.analyze", "bottleneck_lab.ranks"])
    else:  # Windows
        ctx = mp.get_context("spawn")
    try:
        with ProcessPoolExecutor(jobs, mp_context=ctx) as pool:
            return [keep(r) for r in pool.map(task, files)]
    except BrokenProcessPool:
        raise TraceError(
            files[0].parent,
            f"a worker process died while analysing a rank (out of memory?); try --jobs "
            f"{max(jobs // 2, 1)}",
        ) from None


def _map_dask(files: list[Path], scheduler: str, jobs: int, task: Callable, keep: Callable) -> list:
    """`task` over the files on a Dask cluster: `scheduler` is "tcp://host:port" of a running
    dask-scheduler, or "local" for a LocalCluster of `jobs` single-threaded worker processes on
    127.0.0.1. Workers open the files by the path given here (absolute), so the files must be on
    a filesystem every worker sees; only RankResults come back."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise SchedulerError(
            "--scheduler needs dask: pip install 'bottleneck-lab[dask]' (dask[distributed])"
        ) from None
    paths = [str(f.resolve()) for f in files]
    if scheduler == "local":
        with (
            LocalCluster(
                n_workers=jobs,
                threads_per_worker=1,
                host="127.0.0.1",
                dashboard_address=None,
                silence_logs=40,
            ) as cluster,
            Client(cluster) as client,
        ):
            return _gather(client, task, paths, keep)
    try:
        client = Client(scheduler, timeout="10s")
    except (OSError, TimeoutError, ValueError) as exc:
        raise SchedulerError(
            f"--scheduler {scheduler}: cannot reach the scheduler ({exc})"
        ) from None
    with client:
        return _gather(client, task, paths, keep)


def _gather(client, task: Callable, paths: list[str], keep: Callable) -> list:
    """Results in file order, each passed through `keep` as it arrives."""
    from distributed import as_completed

    futures = client.map(task, paths, pure=False)
    where = {f.key: i for i, f in enumerate(futures)}
    out: list = [None] * len(futures)
    for fut, result in as_completed(futures, with_results=True):
        out[where[fut.key]] = keep(result)
    return out


class _Task:
    """analyze_file with the options bound: picklable (a module-level class), unlike a lambda."""

    def __init__(self, overrides, peak) -> None:
        self.overrides, self.peak = overrides, peak

    def __call__(self, path) -> RankResult | str:
        return analyze_file(str(path), self.overrides, self.peak)


# Summary facts only the summary rank's report shows (plots and kernel tables): the largest part
# of a RankResult (78 of 88 KB pickled for a ddp_slow_rank rank).
LEAD_ONLY = ("timeline", "memory_curve", "top_kernels", "kernel_efficiency", "roofline")


class _SlowestPlots:
    """Called on each RankResult as it arrives: drops LEAD_ONLY facts from every rank that can no
    longer be the slowest (the summary rank), so the parent holds one rank's plots, not all."""

    def __init__(self) -> None:
        self.top, self.held = -1.0, []

    def __call__(self, r):
        if isinstance(r, str):
            return r
        t = r.summary.step_time_us or 0.0
        if t > self.top:
            for old in self.held:
                _drop(old)
            self.top, self.held = t, [r]
        elif t == self.top:  # a tie: the lower rank wins later, so keep both for now
            self.held.append(r)
        else:
            _drop(r)
        return r


def _drop(r: RankResult) -> None:
    for key in LEAD_ONLY:
        r.summary.extra.pop(key, None)


def analyze_ranks(
    path: str | Path,
    overrides: dict[str, dict[str, Any]] | None = None,
    peak=None,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
) -> tuple[list[RankResult], Diagnosis]:
    """Map analyze_file over the rank files of the directory `path` (in this process for
    jobs=1, else in worker processes, or on Dask with `scheduler`) and reduce. Raises TraceError
    like load_trace, ValueError for a bad option."""
    from .trace.load import directory_warnings, trace_files

    if jobs is not None and jobs < 1:
        raise ValueError("--jobs must be at least 1")
    files = trace_files(path)
    jobs = min(jobs or default_jobs(), len(files))
    task, keep = _Task(overrides, peak), _SlowestPlots()
    if scheduler:
        out = _map_dask(files, scheduler, jobs, task, keep)
    elif jobs > 1:
        out = _map_processes(files, jobs, task, keep)
    else:
        out = [keep(task(f)) for f in files]
    results = sorted((r for r in out if not isinstance(r, str)), key=lambda r: (r.rank, r.path))
    shared = directory_warnings(
        path, [r.rank for r in results], [s for s in out if isinstance(s, str)]
    )
    for r in results:
        r.warnings.extend(shared)
    return results, reduce_ranks(results, str(path))


def reduce_ranks(results: list[RankResult], path: str | None = None) -> Diagnosis:
    """One Diagnosis from the ranks: the summary and findings of the slowest rank (it sets the
    job's pace), each finding noting which ranks show it, and the cross-rank view."""
    from .rank_analysis import _merge_ranks, _other_rank_findings, sidecar_nvml

    skipped: dict[str, str] = {}
    errors: dict[str, str] = {}
    for r in results:  # the order diagnose() met them in: first reason kept, last error kept
        for code, why in r.skipped.items():
            skipped.setdefault(code, why)
        errors.update(r.errors)
    slowest = int(np.argmax([r.summary.step_time_us or 0.0 for r in results]))
    per_rank = [r.findings for r in results]
    findings = _merge_ranks(results, per_rank, slowest)
    lead = results[slowest]
    summary = lead.summary
    if len(results) > 1:
        summary.extra["summary_rank"] = lead.rank
        others = _other_rank_findings(results, per_rank, slowest)
        if others:
            summary.extra["findings_on_other_ranks"] = others
        summary.extra["step_time_us_by_rank"] = {r.rank: r.summary.step_time_us for r in results}
        summary.extra["ranks"] = cross_rank_view(results)
        findings = straggler_findings(findings, summary.extra["ranks"], lead)
    nvml = sidecar_nvml(path or lead.path)
    if nvml:
        summary.extra["nvml"] = nvml
    info = TraceInfo(
        path=path or lead.path,
        ranks=[r.rank for r in results],
        device=lead.device,
        has_gpu=any(r.has_gpu for r in results),
        events=sum(r.events for r in results),
        warnings=list(dict.fromkeys(w for r in results for w in r.warnings)),
    )
    return Diagnosis(info, summary, rank_findings(findings), skipped, errors)


# A rank is a straggler when the typical (median) rank waits at least this share of the median
# step longer in collectives than it does, beyond what the profiler's own cost on that rank
# explains: the others sit in NCCL until it arrives. Without collectives to compare, when its
# step (estimated without the profiler) is this much longer than the typical rank's.
STRAGGLER_MIN_SHARE_PCT = 5.0
MAX_SKEW_STEPS = 1000  # per-step skew rows kept in the JSON (the largest beyond it)


def _renumbered(results: list[RankResult]) -> tuple[list[dict], list[dict], str]:
    """Steps matched across ranks by step number, or by position when the ranks share none."""
    steps = [r.step_us for r in results]
    colls = [r.collectives for r in results]
    if set.intersection(*(set(s) for s in steps)) or not all(steps):
        return steps, colls, "step number"
    pos = [{n: i for i, n in enumerate(sorted(s))} for s in steps]
    return (
        [{p[n]: d for n, d in s.items()} for p, s in zip(pos, steps)],
        [{p[n]: c for n, c in cs.items() if n in p} for p, cs in zip(pos, colls)],
        "step position (the ranks share no step number)",
    )


def _aligned(colls: list[dict], steps: list[int]) -> tuple[list[tuple], np.ndarray, np.ndarray]:
    """The collectives every rank ran, keyed (step, kernel name, k-th of that name in the step),
    and their durations and exposed (not overlapped) durations as ranks x collectives matrices."""
    keyed = []
    for c in colls:
        d: dict[tuple, tuple[float, float]] = {}
        for step in steps:
            seen: dict[str, int] = {}
            for name, dur, exposed in c.get(step, ()):
                k = seen[name] = seen.get(name, -1) + 1
                d[(step, name, k)] = (dur, exposed)
        keyed.append(d)
    common = set(keyed[0]).intersection(*keyed[1:]) if keyed else set()
    keys = sorted(common)
    both = np.array([[d[k] for k in keys] for d in keyed], dtype=float).reshape(
        len(keyed), len(keys), 2
    )
    return keys, both[:, :, 0], both[:, :, 1]


def cross_rank_view(results: list[RankResult]) -> dict[str, Any]:
    """Step time per rank, collective wait vs transfer per rank, stragglers and why, and the
    skew of each step across ranks.

    Collectives are aligned by step, then kernel name and order within the step. A collective
    cannot finish on any rank before the last rank joins it, so its shortest duration across
    ranks is the transfer itself and each rank's excess over that is time spent waiting for the
    slowest peer."""
    ranks = [r.rank for r in results]
    steps, colls, matched_by = _renumbered(results)
    common_steps = sorted(set.intersection(*(set(s) for s in steps)))
    n_steps = max(len(common_steps), 1)
    keys, dur, exposed = _aligned(colls, common_steps)
    transfer = dur.min(axis=0) if dur.size else np.zeros(0)
    wait = dur - transfer
    # waiting that idles the GPU: with prefetching (FSDP's all-gathers on their own stream) a
    # rank's collective can wait long while its compute runs on; only the exposed part costs
    exposed_wait = np.minimum(wait, exposed)
    median_step = [r.summary.step_time_us for r in results]
    typical_step = float(np.median([m for m in median_step if m is not None] or [0.0]))
    last = np.zeros(len(results), dtype=int)
    if dur.size:  # who arrived last: the rank whose kernel was shortest
        np.add.at(last, dur.argmin(axis=0), 1)
    per_rank = []
    # the exposed part of each collective beyond its wait: the transfer the GPU sat through
    exposed_transfer = np.maximum(exposed - wait, 0.0)
    for i, r in enumerate(results):
        own = _own_findings(r)
        all_coll = sum(d for step in common_steps for _, d, _ in colls[i].get(step, ()))
        # collectives no other rank ran (so nothing to compare them with) count as transfer
        unmatched = sum(e for step in common_steps for _, _, e in colls[i].get(step, ()))
        unmatched -= float(exposed[i].sum()) if dur.size else 0.0
        row: dict[str, Any] = {
            "rank": r.rank,
            "step_time_us": median_step[i],
            "steps": r.summary.steps,
            "collective_us_per_step": round(all_coll / n_steps, 1),
            "collective_wait_us_per_step": round(float(wait[i].sum()) / n_steps, 1)
            if dur.size
            else None,
            "collective_exposed_wait_us_per_step": round(float(exposed_wait[i].sum()) / n_steps, 1)
            if dur.size
            else None,
            "collective_transfer_us_per_step": round(float(transfer.sum()) / n_steps, 1)
            if dur.size
            else None,
            "collective_exposed_transfer_us_per_step": round(
                (float(exposed_transfer[i].sum()) + max(unmatched, 0.0)) / n_steps, 1
            )
            if dur.size
            else None,
            "last_to_arrive": int(last[i]) if dur.size else None,
            "top_finding": own[0] if own else None,
            "profiler_idle_us_per_step": _profiler_idle_us(r),
            "step_time_us_without_profiler_est": (
                r.summary.extra.get("profiler_overhead") or {}
            ).get("step_time_us_without_profiler_est"),
        }
        if dur.size and median_step[i]:
            row["collective_wait_pct_of_step"] = round(
                100.0 * row["collective_wait_us_per_step"] / median_step[i], 1
            )
        per_rank.append(row)
    stragglers = _stragglers(results, per_rank, typical_step, bool(dur.size), len(keys))
    skew = []
    for step in common_steps:
        d = np.array([s[step] for s in steps])
        skew.append(
            {
                "step": step,
                "min_us": round(float(d.min()), 1),
                "max_us": round(float(d.max()), 1),
                "skew_us": round(float(d.max() - d.min()), 1),
                "slowest_rank": ranks[int(d.argmax())],
            }
        )
    skews = [s["skew_us"] for s in skew]
    if len(skew) > MAX_SKEW_STEPS:
        skew = sorted(
            sorted(skew, key=lambda s: -s["skew_us"])[:MAX_SKEW_STEPS], key=lambda s: s["step"]
        )
    return {
        "count": len(results),
        "steps_compared": len(common_steps),
        "steps_matched_by": matched_by,
        "collectives_compared_per_step": round(len(keys) / n_steps, 1),
        "collectives_matched_by": "step, kernel name and order within the step",
        "wait_model": "per collective, the shortest duration across ranks is the transfer; each "
        "rank's excess over it is waiting for the slowest peer",
        "step_time_us_median": round(typical_step, 1),
        "skew_us_median": round(float(np.median(skews)), 1) if skews else None,
        "skew_us_max": max(skews) if skews else None,
        "stragglers": stragglers,
        "straggler_min_share_pct": STRAGGLER_MIN_SHARE_PCT,
        "per_rank": per_rank,
        "skew_by_step": skew,
    }


def _profiler_idle_us(r: RankResult) -> float:
    """The most idle per step on rank `r` that the profiler could have made, its slowed steps'
    included: at the profiler's highest measured share of host time, not its median. A rank late
    by less than that may be late only under the profiler (holdout 78: rank 0 late by 41 ms a
    step, 32 ms of it the profiler's at the median share, 43 at the high; without DDP its step
    measured 2.4 ms longer than its peer's)."""
    o = r.summary.extra.get("profiler_overhead") or {}
    if "idle_us_per_step_at_high_share" in o:
        return float(o["idle_us_per_step_at_high_share"])
    return float(o.get("idle_us_per_step", 0.0)) + float(o.get("slowed_host_idle_us_per_step", 0.0))


def _own_findings(r: RankResult) -> list[dict[str, Any]]:
    """A rank's own findings, most costly first, leaving out communication (waiting for the
    others is the symptom, not the cause) and info."""
    return [
        {"code": f.code, "kind": f.kind, "severity": f.severity, "share_pct": f.share_pct}
        for f in rank_findings(r.findings)
        if f.kind != "communication" and f.severity != "info"
    ]


def _stragglers(
    results: list[RankResult],
    per_rank: list[dict],
    typical_step: float,
    have_collectives: bool,
    n_collectives: int,
) -> list[dict[str, Any]]:
    """The ranks the others wait for, each with its own findings as the likely why."""
    if len(results) < 2 or not typical_step:
        return []
    out = []
    floor = typical_step * STRAGGLER_MIN_SHARE_PCT / 100.0
    # Under the profiler a rank can arrive late only because recording its ops slowed its host:
    # the idle that only the profiler made on that rank is not counted as straggling.
    profiler = [_profiler_idle_us(r) for r in results]
    if have_collectives:
        # exposed waits: a rank whose peers wait for it only while their compute runs on sets
        # nobody's pace (FSDP prefetch under a profiler that slows every host alike)
        waits = np.array([row["collective_exposed_wait_us_per_step"] for row in per_rank])
        # how long the other ranks typically wait (the median of the others, so that with two
        # ranks the one that waits is compared with the one it waits for, not with their mean)
        others_wait = [float(np.median(np.delete(waits, i))) for i in range(len(results))]
        slow = [i for i in range(len(results)) if others_wait[i] - waits[i] - profiler[i] >= floor]
    else:
        est = [
            (r.summary.extra.get("profiler_overhead") or {}).get(
                "step_time_us_without_profiler_est", row["step_time_us"] or 0.0
            )
            for r, row in zip(results, per_rank)
        ]
        slow = [i for i in range(len(results)) if est[i] - float(np.median(est)) >= floor]
    for i in slow:
        r, row = results[i], per_rank[i]
        others = [j for j in range(len(results)) if j not in slow]
        own = _own_findings(r)[:3]
        entry: dict[str, Any] = {"rank": r.rank, "step_time_us": row["step_time_us"]}
        if have_collectives:
            others_wait = float(np.mean(waits[others])) if others else 0.0
            entry.update(
                basis="collective_wait",
                profiler_idle_us_per_step=profiler[i],
                own_wait_us_per_step=row["collective_exposed_wait_us_per_step"],
                others_wait_us_per_step=round(others_wait, 1),
                last_to_arrive=f"{row['last_to_arrive']} of {n_collectives} collectives",
            )
            why = (
                f"rank {r.rank} reaches the collectives last: the other ranks wait "
                f"{others_wait / 1000:.2f} ms per step in NCCL for it with no compute to run (it "
                f"waits {row['collective_exposed_wait_us_per_step'] / 1000:.2f} ms; the profiler "
                "explains at "
                f"most {profiler[i] / 1000:.2f} ms of its lateness)"
            )
        else:
            entry.update(basis="step_time")
            why = (
                f"rank {r.rank}'s median step is {(row['step_time_us'] - typical_step) / 1000:.2f}"
                f" ms longer than the typical rank's"
            )
        if own:
            why += "; its own findings: " + ", ".join(
                f"{f['kind']} {f['share_pct']:.0f}%" if f["share_pct"] is not None else f["kind"]
                for f in own
            )
        entry["own_findings"] = own
        entry["why"] = why
        out.append(entry)
    return out


STRAGGLER_CODE = "straggler"


def straggler_findings(findings: list[Finding], view: dict, lead: RankResult) -> list[Finding]:
    """Other ranks wait in collectives for one slow rank: a straggler.

    Symptom: in a directory of rank traces, the summary rank's exposed collective time is mostly
    waiting: each collective runs longer on it than on the rank that joins last.
    Likely cause: the straggler's own work; its findings (a slow host, data loading, a larger
    shard) say where its time goes.
    Fix: make the straggler keep pace. Overlapping communication with compute cannot help: the
    time is spent waiting, not transferring.

    Estimate: the summary rank's wait per step less the most the profiler's cost on the
    straggler explains (what made it late only under the profiler goes away without it), never
    more than the exposed communication (waiting behind compute costs nothing).

    The communication finding keeps only the exposed time beyond the wait, and no more than the
    exposed transfers: also where no rank is late often enough to be named (ranks late in turn,
    or late only by the profiler's uneven cost), waiting for a peer is not time that overlapping
    or bucketing the transfers could save. It is dropped under its min_share_pct."""
    from .detectors.communication import Config, exposed_title

    min_share = Config().min_share_pct  # carved from the communication finding: its bar
    late = [s for s in view.get("stragglers", []) if s.get("basis") == "collective_wait"]
    comm = next((f for f in findings if f.code == "communication"), None)
    row = next((r for r in view.get("per_rank", []) if r["rank"] == lead.rank), None)
    if comm is None or row is None or row.get("collective_exposed_transfer_us_per_step") is None:
        return findings
    step = (lead.summary.extra.get("profiler_overhead") or {}).get(
        "step_time_us_without_profiler_est", lead.summary.step_time_us
    ) or 0.0
    if step <= 0:
        return findings
    # waiting counts up to all the collectives' exposed time, held-up compute or not: a late
    # rank's wait shows as its peers' exposed NCCL time whatever their hosts were doing
    exposed = max(
        comm.evidence.get("exposed_us_per_step") or 0.0, comm.time_lost_us_per_step or 0.0
    )
    held = comm.time_lost_us_per_step or 0.0
    kept = [f for f in findings if f is not comm]
    if late and not any(s["rank"] == lead.rank for s in late):
        names = ", ".join(str(s["rank"]) for s in late)
        who = f"rank {names}" if len(late) == 1 else f"ranks {names}"
        # all its waiting, not only the exposed part: a collective that waited behind compute
        # still finished late, and the exposed transfer after it grew (ddp_slow_rank: 38.7%
        # predicted this way, 46.2% measured; the exposed waits alone give 38.2%)
        wait = min(row["collective_wait_us_per_step"] or 0.0, exposed)
        kept.insert(0, _straggler(comm, late, who, wait, exposed, step, lead, min_share))
    else:
        who = "the other ranks"
        wait = min(row["collective_exposed_wait_us_per_step"] or 0.0, exposed)
    rest = min(held, exposed - wait, row["collective_exposed_transfer_us_per_step"])
    # the reducer's own work in rounds no_sync removes is the rank's, not waiting for a peer
    rest = max(rest, comm.evidence.get("no_sync_saving_us_per_step") or 0.0)
    if rest >= held:
        return [*kept, comm]
    rest_share = round(100.0 * rest / step, 2)
    if rest_share >= min_share:
        kept.append(
            replace(
                comm,
                severity=severity_for_share(rest_share),
                title=exposed_title(
                    rest_share,
                    f", beyond waiting for {who}",
                    comm.evidence.get("gradient_sync_rounds_per_step"),
                ),
                time_lost_us_per_step=round(rest, 1),
                share_pct=rest_share,
                evidence={**comm.evidence, "peer_wait_us_per_step": round(wait, 1)},
                efficiency=_efficiency_if_saved(comm, held, rest, step),
            )
        )
    return kept


def _straggler(
    comm: Finding,
    late: list[dict],
    who: str,
    wait: float,
    exposed: float,
    step: float,
    lead: RankResult,
    min_share: float,
) -> Finding:
    from .detectors.communication import no_sync_fix, rounds_note

    profiler = max(s["profiler_idle_us_per_step"] for s in late)
    saved = max(wait - profiler, 0.0)
    rounds = comm.evidence.get("gradient_sync_rounds_per_step")
    share = round(100.0 * saved / step, 2)
    own = [f for s in late for f in s.get("own_findings", [])]
    causes = ", ".join(
        f"{f['kind']} {f['share_pct']:.0f}%" if f["share_pct"] is not None else f["kind"]
        for f in own
    )
    return Finding(
        STRAGGLER_CODE,
        "communication",
        severity_for_share(share) if share >= min_share else "info",
        f"Waiting for a straggler: rank {lead.rank} waits {wait / 1000:.2f} ms per step in "
        f"collectives for {who}"
        + (f" ({rounds_note(rounds)})" if rounds else "")
        + f"; making it keep pace saves ~{share:.0f}% of the step",
        round(saved, 1),
        share,
        {
            "rank": lead.rank,
            "stragglers": [s["rank"] for s in late],
            "collective_wait_us_per_step": round(wait, 1),
            "exposed_communication_us_per_step": round(exposed, 1),
            "straggler_profiler_idle_us_per_step": round(profiler, 1),
            "straggler_own_findings": own,
            "why": [s["why"] for s in late],
            "gradient_sync_rounds_per_step": rounds,
        },
        (no_sync_fix(rounds) if rounds else "")
        + f"Make {who} keep pace with the others"
        + (f"; its own findings say where its time goes: {causes}" if causes else "")
        + f". Overlapping communication with compute cannot help: rank {lead.rank} is waiting "
        f"for {who} to reach each collective, not transferring data.",
        _efficiency_if_saved(comm, comm.time_lost_us_per_step or 0.0, saved, step),
    )


def _efficiency_if_saved(f: Finding, f_saved: float, saved: float, step: float) -> dict | None:
    """f's efficiency, with the MFU had `saved` µs per step been recovered instead of f's own
    `f_saved`: the same FLOPs over a step of step - saved."""
    eff = dict(f.efficiency or {})
    before = eff.get("mfu_pct_if_recovered")
    if not eff or before is None or before >= 100.0 or step - saved <= 0:
        return f.efficiency and {**eff, "mfu_pct_if_recovered": None}
    eff["mfu_pct_if_recovered"] = round(min(100.0, before * (step - f_saved) / (step - saved)), 2)
    return eff


def sources_memory_frame(sources: Iterable) -> TraceFrame:
    """The frame with the most [memory] events (what --memory-plot draws): loaded again when
    the ranks were analysed elsewhere and only their RankResults are here."""
    from .trace import load_frame

    best = max(
        sources, key=lambda s: len(s.memory) if isinstance(s, TraceFrame) else s.memory_events
    )
    return best if isinstance(best, TraceFrame) else load_frame(best.path)

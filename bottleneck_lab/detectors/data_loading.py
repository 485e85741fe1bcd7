"""The GPU waits on the input pipeline.

Symptom: DataLoader `__next__` spans take a large share of the step, and the GPU is idle while
they run.
Likely cause: too few DataLoader workers for the per-sample CPU work (decoding, augmentation),
`num_workers=0` doing everything in the training process, or slow storage.
Fix: raise `num_workers` (start at the number of CPU cores per GPU), set `pin_memory=True`,
`persistent_workers=True` and a `prefetch_factor` of 2-4. More workers do not help when the
loader is already parallel and each batch still takes longer than a step (then the per-sample
work or the storage is the limit: cache decoded data, move augmentation to the GPU).
Where the loop waits on worker processes a tenth of its steady steps or more, they set its pace:
the profiler slows the loop, not them, so the saving is their pace (the profiled step) less the
step's own work without the profiler, more than the waits the trace shows.
Where the loop never waited on its worker processes but the profiler slowed the steps (1.3x the
estimate without it or more), the workers had that much longer to fill their queue: an info
finding says the trace cannot show whether they keep up at full speed, and how to check.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import facts
from ..diagnosis import Finding, severity_for_share
from ..trace import TraceFrame
from ..trace import intervals as iv
from ..trace.frame import name_mask
from ..trace.synth import TraceBuilder
from ._common import cost, gap_evidence
from ._examples import launch, steps

CODE = "data-loading"
KIND = "data_loading"
REQUIRES = {"steps", "dataloader"}


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0


def detect(frame: TraceFrame, cfg: Config):
    dl = facts.dataloader_spans(frame)
    stats = facts.step_stats(frame)
    ds, de = iv.union(dl["ts"].to_numpy(), dl["end"].to_numpy())
    ws, we = facts.step_windows(frame)
    in_steps = float(iv.overlap_with(ds, de, ws, we).sum())
    dl_share = 100.0 * in_steps / stats.total_us if stats.total_us else 0.0
    waits = _wait_per_step(frame, dl)
    first_steady = _first_steady_step(waits)
    # what the steady steps wait, as a total over all steps (cost() spreads it over them)
    steady = waits[first_steady:]
    idle = float(steady.mean() * len(waits)) if len(waits) else 0.0
    per_step, share = cost(frame, idle)
    # A pool of workers hands over batches in bursts: a few steps wait long, the rest not at all
    # (ShuffleNet-V2 on two workers, holdout 28: 0, 143 and 0 ms). The median step, which cost()
    # takes the share of, shows none of that wait; the step the loader holds back is the median
    # step plus the waits it does not show.
    unseen = float(steady.mean() - np.median(steady)) if len(steady) else 0.0
    without = facts.step_time_without_profiler_us(frame)
    step_with_waits = without + max(unseen, 0.0)
    detail = ""
    if unseen > 0:
        per_step = round(min(idle / max(stats.count, 1), step_with_waits), 1)
        share = round(100.0 * per_step / step_with_waits, 2)
        detail = (
            f"; the waits come in bursts, so the share is of the average step with them, "
            f"{step_with_waits / 1000:.2f} ms"
        )
    multi = bool(name_mask(dl["name"], "MultiProcessing").any())
    if share < cfg.min_share_pct:
        if not multi:
            return []
        return _hidden_by_profiler(dl, in_steps / max(stats.count, 1), stats.median_us, without)
    pace = _workers_pace(frame, waits, first_steady) if multi else None
    if pace is not None:
        loader_us, own_us = pace
        per_step = round(loader_us - own_us, 1)
        share = round(100.0 * per_step / loader_us, 2)
        detail = ""
    evidence = {
        "dataloader_us_per_step": round(in_steps / stats.count, 1),
        "dataloader_share_pct": round(dl_share, 2),
        "gpu_idle_caused_us_per_step": per_step,
        "calls": int(len(dl)),
        "loader": "multi-process" if multi else "single-process (num_workers=0)",
        "median_next_us": round(float(np.median(dl["dur"])), 1),
        "wait_us_by_step": [round(float(w), 1) for w in waits],
        "steps_served_from_buffer": first_steady,
        "step_with_waits_us": round(step_with_waits, 1),
        "largest_gaps": gap_evidence(frame, "data_loading") if frame.has_gpu else [],
    }
    if pace is not None:
        evidence["workers_pace_us"] = round(pace[0], 1)
        evidence["own_work_without_profiler_us"] = round(pace[1], 1)
    if multi:
        fix = (
            "The loader already uses worker processes and the GPU still waits: raise num_workers "
            "if CPU cores are free, set pin_memory=True, persistent_workers=True and "
            "prefetch_factor=4. If every core is busy, more workers will not help: cut the "
            "per-sample CPU work (cache decoded data, augment on the GPU) or use faster storage."
        )
    else:
        fix = (
            "DataLoader(num_workers=0) does all loading in the training process. Set num_workers "
            "to the CPU cores available per GPU (e.g. 8), pin_memory=True, "
            "persistent_workers=True, prefetch_factor=2-4."
        )
    waiter = "GPU waits" if frame.has_gpu else "Step waits"
    steady = ""
    if first_steady:
        served = (
            "the first step's batch was"
            if first_steady == 1
            else f"the first {first_steady} steps' batches were"
        )
        step = int(frame.steps["step"].iloc[first_steady])
        steady = f", from step {step} on: {served} already buffered"
    lost = f"{per_step / 1000:.2f} ms per step idle while the loop is in __next__"
    if pace is not None:
        # the profiler slowed the loop, not the workers: without it the loop waits the longer
        lost = (
            f"its workers deliver a batch every {pace[0] / 1000:.2f} ms and the step's own work "
            f"takes about {pace[1] / 1000:.2f} ms without the profiler, so "
            f"{per_step / 1000:.2f} ms a step goes to waiting for batches"
        )
    title = f"{waiter} on the DataLoader: {share:.1f}% of the step ({lost}{steady}{detail})"
    return [Finding(CODE, KIND, severity_for_share(share), title, per_step, share, evidence, fix)]


# Profiled steps this many times the estimate without the profiler leave worker processes, which
# the profiler does not slow, that much more time to fill the prefetch queue.
HIDDEN_BY_PROFILER_RATIO = 1.3


def _hidden_by_profiler(
    dl, next_us_per_step: float, profiled: float, without: float
) -> list[Finding]:
    """An info finding where the loop never waited on its worker processes but the profiler
    slowed the steps enough to hide a loader that cannot keep up at full speed: holdout 34's
    RegNetY-1.6GF on 3 workers doing RandAugment took ~190 ms a profiled step (about 109 ms
    without the profiler by the trace), long enough for the workers to keep the queue full, and
    14 workers measured 10.7% faster. profiled: the median profiled step; without: the step
    without the profiler's host cost (facts.step_time_without_profiler_us)."""
    if not profiled or not without or profiled < HIDDEN_BY_PROFILER_RATIO * without:
        return []
    title = (
        f"The DataLoader's workers kept up with the profiled steps ({next_us_per_step / 1000:.2f} "
        f"ms a step in __next__), but the profiler slowed those to {profiled / 1000:.1f} ms "
        f"against about {without / 1000:.1f} ms without it: whether they keep up at full speed "
        "this trace cannot show"
    )
    fix = (
        "Workers that deliver a batch every profiled step may not deliver one every "
        f"{without / 1000:.1f} ms. Time it without the profiler: iterate the DataLoader alone "
        "for a few hundred batches and compare its time per batch with the training step's "
        "(or train on one cached batch and see whether the step gets faster). If the loader is "
        "slower, raise num_workers while CPU cores are free, or cut the per-sample CPU work."
    )
    evidence = {
        "dataloader_us_per_step": round(next_us_per_step, 1),
        "loader": "multi-process",
        "profiled_step_us": round(profiled, 1),
        "step_without_profiler_us": round(without, 1),
        "calls": int(len(dl)),
    }
    return [Finding(CODE, KIND, "info", title, None, None, evidence, fix)]


# Where the loop waits on worker processes this share of its steady steps or more, in at least
# half of them, they set its pace: a hand-over, or one long wait among steps that wait for
# nothing (an epoch's first batch), says nothing of how fast the workers keep up.
WORKERS_PACE_MIN_WAIT_SHARE = 0.10


def _workers_pace(frame: TraceFrame, waits: np.ndarray, first: int) -> tuple[float, float] | None:
    """(µs a step the workers take to deliver a batch, µs a step of the loop's own work without
    the profiler) where the loop's waits show that worker processes set its pace: the steady steps
    wait on them WORKERS_PACE_MIN_WAIT_SHARE of their time or more, on average, and at least half
    of them wait (a tenth of the longest wait or more). The profiler slows the loop, not the
    workers, so a profiled step that waits on them lasts as long as they take, and without the
    profiler the loop waits the longer: the fix saves the workers' pace less the loop's own work
    without the profiler, more than the waits the trace shows. timm EfficientNet-B0 on two
    augmenting workers (holdout 55, captured again): waits of 229, 0 and 212 ms in profiled steps
    of 294, 93 and 289 ms; 14 workers measured 73.5% faster, where the waits' share of the step
    without the profiler promised 50.9%."""
    dur = frame.steps["dur"].to_numpy(dtype=float)[first:]
    steady = waits[first:]
    if not len(dur) or steady.mean() < WORKERS_PACE_MIN_WAIT_SHARE * dur.mean():
        return None
    if _waited(steady).mean() < 0.5:
        return None
    own = dur - facts.profiler_idle_by_step_us(frame)[first:] - steady
    return float(dur.mean()), float(max(own.mean(), 0.0))


def _wait_per_step(frame: TraceFrame, dl) -> np.ndarray:
    """µs of each step, in step order, that a loader which never kept the loop waiting would
    save: the loop's time in __next__, less the part of it the GPU's work would still fill
    (the step cannot get shorter than its GPU time). Not only the GPU's idle while the loop
    waits: in a host-bound loop the GPU work still queued when the loop starts waiting would run
    under the next step's host work instead (HF BERT-base MLM fed by one tokenising worker:
    29.4 ms a step of GPU idle in __next__, 48.0 ms a step in __next__, a GPU busy 20.5 ms a step;
    twelve workers measured 61.5% faster, holdout 21). Without a GPU: the loader's own time."""
    ds, de = iv.union(dl["ts"].to_numpy(), dl["end"].to_numpy())
    s = frame.steps
    starts, ends = s["ts"].to_numpy(), s["end"].to_numpy()
    waited = iv.overlap_with(ds, de, starts, ends)
    if not frame.has_gpu or facts.main_device(frame) is None:
        return waited
    gaps = facts.idle_gaps(frame)
    mine = gaps.loc[facts.gap_owners(frame) == "data_loading"]
    idle = mine.groupby("step")["exposed_us"].sum()
    idle = idle.reindex(s["step"], fill_value=0.0).to_numpy(dtype=float)
    beside_gpu = np.maximum(ends - starts - facts.gpu_busy_by_step(frame), 0.0)
    # only where the GPU did wait on the loader in the step (a ready batch's hand-over is no
    # wait more workers remove), and never less than that idle
    return np.where(idle > 0, np.maximum(np.minimum(waited, beside_gpu), idle), 0.0)


def _waited(waits: np.ndarray) -> np.ndarray:
    """Which steps waited on the loader: a tenth of the longest wait or more (less is a ready
    batch's hand-over, not a wait)."""
    return waits >= 0.1 * waits.max()


def _first_steady_step(waits: np.ndarray) -> int:
    """Index of the first step that shows the loader's steady pace. A loader slower than the
    step waits in every step once its prefetch queue is empty; steps before that (next to no
    wait, under a tenth of the longest, then a wait in every step to the end, at least two) ran
    on batches the workers had buffered while the loop was held up, by the profiler starting or
    the loop's own set-up, and are no sign of the steady pace. Anything else (waits now and then,
    one at an epoch's start) counts every step."""
    if not len(waits) or waits.max() <= 0:
        return 0
    waited = _waited(waits)
    first = int(np.argmax(waited))
    return first if first > 0 and waited[first:].all() and len(waits) - first >= 2 else 0


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# the GPU idles while the host waits in DataLoader __next__


MULTI_WORKER_NEXT = "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__"


def example(bad: bool, workers: bool = False) -> TraceBuilder:
    """Each step fetches a batch (500 µs when bad, 5 µs when good), then launches a 400 µs kernel.
    workers=True names the span as a DataLoader with worker processes does."""
    b = TraceBuilder()
    fetch = 500.0 if bad else 5.0
    for t0 in steps(b, cpu_us=fetch + 20):
        if workers:
            b.annotation(MULTI_WORKER_NEXT, t0, fetch)
        else:
            b.dataloader(t0, fetch)
        launch(b, t0 + fetch + 1, t0 + fetch + 8, 400, kernel="gemm_a")
    return b

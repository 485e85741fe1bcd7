"""Generation without a KV cache: each new token runs the whole sequence again (prefix-recompute).

Symptom: in a step with no backward pass, the same weight matrices are multiplied, pass after
pass, by activations whose row count grows by the same amount each pass (batch x 1 token):
every pass recomputes the keys, values and activations of all the tokens before the new one.
With a KV cache, every pass after the first multiplies a batch's worth of rows.
Likely cause: a model config left at use_cache=False (training with gradient checkpointing sets
it, and HF generate then honours it), generate(..., use_cache=False), or a hand-written sampling
loop that feeds the sequence so far back into the model (nanoGPT's generate, the "Let's build
GPT" lecture's).
Fix: turn the cache on: model.generate(..., use_cache=True) or model.config.use_cache = True;
in a hand-written loop keep each layer's keys and values (HF past_key_values, or a
preallocated cache) and feed only the new token with its position.
Estimate: each pass's kernel time is fitted as a + b n + c n^2 over the passes (n the tokens a
sequence holds at that pass); with a cache a pass after the first takes a + b + c n (one new
token, attention over n keys). Kernels shortened by that much are replayed with the host's work
as the trace shows it, at the profiler's median share: the cache adds almost no host work (HF
GPT-2's cached run recorded 1.5% more ops), unlike autocast, whose casts are why precision takes
the host at its slowest. Where the host sets the step (small models, short sequences), little
of the kernel time is step time.
Not modelled: the cache's own upkeep. HF's DynamicCache concatenates each layer's keys and
values anew every pass: the cached GPT-2 run (holdout 60) had 359 ms of kernels a step, 176 of
them those concatenations, where the estimate put the cached passes at 59 (the host set that
step either way); a cached run whose GPU sets its step saves less than promised.
Not caught: a profile that marks a step per new token (one pass a step: a sweep over sequence
lengths, one length a step, would look the same across steps), or a loop that recomputes only
a window of fixed length (nanoGPT once the sequence outgrows block_size).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import facts
from ..diagnosis import Finding, severity_for_share
from ..trace import TraceFrame
from ..trace.frame import name_mask
from ..trace.synth import TraceBuilder
from ._common import cost, forward_matmuls, kernel_step_saving_us, shape_text, when
from ._examples import BF16, BF16_GEMM, launch, steps

CODE = "prefix-recompute"
KIND = "recompute"
REQUIRES = {"kernels", "steps", "shapes"}


# A cache that removes this share of the step's kernel time or more comes before any finding
# priced on those kernels: their savings are mostly the same time, not added to it.
GOES_FIRST_SHARE = 0.5


@dataclass(frozen=True)
class Config:
    # passes whose row count grows by one constant step, in a row: a generation loop; a model
    # run once or twice a step (prefill, an encoder and a decoder) or at sizes that change at
    # random (dynamic padding) never lines up this many
    min_passes_count: int = 8


def _growing_passes(mm: pd.DataFrame, cfg: Config) -> list[pd.DataFrame]:
    """Each step's longest run of passes on one thread: for one weight shape, its products' row
    counts in time order, equal counts merged (the model's layers share weight shapes), rising
    by one constant step at least min_passes_count - 1 times in a row. Each pass: its start (the
    weight's first product at that count), its rows, the step and the rise."""
    best_of_step: dict = {}
    for (step, _, weight), g in mm.groupby(["step", "tid", "weight"], sort=False):
        best = best_of_step.get(step)
        rows, ts = g["rows"].to_numpy(), g["ts"].to_numpy()
        first = np.r_[True, rows[1:] != rows[:-1]]
        counts, starts = rows[first], ts[first]
        lo = 0
        for hi in range(1, len(counts) + 1):
            # passes lo..hi-1 rise by one constant step; the run ends where the next differs
            if (
                hi < len(counts)
                and counts[hi] - counts[hi - 1] > 0
                and (hi - lo < 2 or counts[hi] - counts[hi - 1] == counts[lo + 1] - counts[lo])
            ):
                continue
            n = hi - lo
            if n >= cfg.min_passes_count and (best is None or n > len(best)):
                best = pd.DataFrame(
                    {
                        "ts": starts[lo:hi],
                        "rows": counts[lo:hi],
                        "step": step,
                        "weight": [weight] * n,
                        "rise": int(counts[lo + 1] - counts[lo]),
                        "row": g["row"].to_numpy()[first][lo:hi],
                    }
                )
            # the pass that broke the run may start the next one
            lo = hi - 1 if hi < len(counts) and counts[hi] > counts[hi - 1] else hi
        if best is not None:
            best_of_step[step] = best
    return list(best_of_step.values())


def _fit(n: np.ndarray, t: np.ndarray) -> tuple[float, float, float]:
    """(a, b, c) >= 0 of t ~ a + b n + c n^2, least squares over the terms' subsets (the best
    fit whose coefficients are all non-negative)."""
    cols = np.stack([np.ones_like(n), n, n * n], axis=1)
    best, best_err = (float(np.median(t)), 0.0, 0.0), np.inf
    for k in (1, 2, 3):
        for terms in itertools.combinations(range(3), k):
            coef, *_ = np.linalg.lstsq(cols[:, terms], t, rcond=None)
            if (coef < 0).any():
                continue
            err = float(((cols[:, terms] @ coef - t) ** 2).sum())
            if err < best_err:
                full = [0.0, 0.0, 0.0]
                for i, c in zip(terms, coef):
                    full[i] = float(c)
                best, best_err = tuple(full), err
    return best


def detect(frame: TraceFrame, cfg: Config):
    ops = frame.cpu_ops
    is_node = name_mask(ops["name"], facts.ENGINE_NODE)
    training = (is_node & (ops["step"].to_numpy() >= 0)).any()
    if training:  # a cache serves generation only
        return []
    mm = forward_matmuls(frame)
    runs = _growing_passes(mm, cfg) if len(mm) else []
    if not runs:
        return []
    g = frame.gpu_ops
    kernels = np.flatnonzero(
        (g["kind"] == "kernel").to_numpy()
        & (g["device"] == facts.main_device(frame)).to_numpy()
        & (g["op"].to_numpy() >= 0)
    )
    launched = ops["ts"].to_numpy()[g["op"].to_numpy()[kernels]]
    dur_all = g["dur"].to_numpy()
    # each run's kernels by pass (launched from its start to the next's; the last pass as long
    # as the run's median one) and the tokens a sequence holds at each pass
    passes = []
    for run in runs:
        starts = run["ts"].to_numpy(dtype=float)
        bounds = np.r_[starts, starts[-1] + float(np.median(np.diff(starts)))]
        which = np.searchsorted(bounds, launched, side="right") - 1
        inside = (which >= 0) & (which < len(run))
        k, w = kernels[inside], which[inside]
        per_pass = np.bincount(w, weights=dur_all[k], minlength=len(run))
        passes.append((k, w, per_pass, run["rows"].to_numpy() / float(run["rise"].iat[0])))
    a, b, c = _fit(np.concatenate([p[3] for p in passes]), np.concatenate([p[2] for p in passes]))
    parts, cached_us, pass_us = [], 0.0, 0.0
    for k, w, per_pass, tokens in passes:
        cached = np.minimum(a + b + c * tokens, per_pass)
        cached[0] = per_pass[0]  # the first pass (prefill) runs the prompt either way
        keep = np.divide(cached, per_pass, out=np.ones_like(per_pass), where=per_pass > 0)
        parts.append(pd.Series(dur_all[k] * (1.0 - keep[w]), index=g.index[k]))
        cached_us, pass_us = cached_us + float(cached.sum()), pass_us + float(per_pass.sum())
    shorter = pd.concat(parts)
    n_steps = max(len(frame.steps), 1)
    gpu_saved = float(shorter.sum()) / n_steps
    # the host's work stays as it is (the cache's few ops aside), so its best estimate, the
    # median share, bounds the step; the low share's saving is said beside it. Measured (holdout
    # 60, HF GPT-2 at gpt2-medium sizes): 52.7% saved, 43% at the median, 25% at the low share
    step_saved, replayed = kernel_step_saving_us(
        frame, gpu_saved, shorter, facts.PROFILER_SHARE_OF_HOST_OP
    )
    slowest, _ = kernel_step_saving_us(
        frame, gpu_saved, shorter, facts.PROFILER_SHARE_OF_HOST_OP_LOW
    )
    per_step, share = cost(frame, step_saved * n_steps)
    run = max(runs, key=len)
    rise = int(run["rise"].iat[0])
    first, last = int(run["rows"].iat[0]) // rise, int(run["rows"].iat[-1]) // rise
    evidence = {
        **when(frame, float(run["ts"].iat[0])),
        "passes_per_step": round(sum(len(r) for r in runs) / n_steps, 1),
        "tokens_per_sequence": [first, last],
        "rows_added_per_pass": rise,
        "op": str(ops["name"].iat[int(run["row"].iat[0])]),
        "weight_shape": shape_text(run["weight"].iat[0]),
        "pass_kernel_us_per_step": round(pass_us / n_steps, 1),
        "cached_kernel_us_per_step_est": round(cached_us / n_steps, 1),
        "gpu_time_saved_us_per_step": round(gpu_saved, 1),
        "step_saving_us_host_at_slowest": round(slowest, 1),
        "fit_us": {"a": round(a, 2), "b": round(b, 3), "c": round(c, 5)},
    }
    if replayed is not None:
        evidence["replay_step_saving_us"] = round(replayed, 1)
    passes_said = f"{len(run)} passes a step" if len(runs) >= n_steps else f"{len(run)} passes"
    title = (
        f"Generation without a KV cache: {passes_said} run the whole sequence again "
        f"({first:,} to {last:,} tokens a sequence, {rise:,} row{'s' * (rise != 1)} more each "
        f"pass); caching keys and values would save ~{share:.0f}% of the step"
    )
    if gpu_saved > 0 and step_saved < 0.5 * gpu_saved:
        title += (
            f" (of {gpu_saved / 1000:.2f} ms of kernel time a step: without it the host sets "
            "the step)"
        )
    fix = (
        "Turn the KV cache on: model.generate(..., use_cache=True), or model.config.use_cache = "
        "True (training with gradient checkpointing sets it to False and generate honours it). "
        "In a hand-written sampling loop keep each layer's keys and values (HF past_key_values, "
        "or a preallocated cache) and feed the model only the new token and its position. The "
        "saving grows with the sequence: each pass without a cache costs as much as the whole "
        "sequence so far."
    )
    gpu_us = facts.gpu_time_us(frame)
    if gpu_us > 0 and gpu_saved >= GOES_FIRST_SHARE * gpu_us:
        # other findings priced on these kernels (fusion, precision) shrink with them
        fix += (
            f" Do this first: it removes {100 * gpu_saved / gpu_us:.0f}% of the step's kernel "
            "time, and what other findings promise from those kernels goes with it."
        )
    return [Finding(CODE, KIND, severity_for_share(share), title, per_step, share, evidence, fix)]


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
PASSES = 12
PROMPT = 16
WEIGHT = (3072, 1024)


def _gemm_us(tokens: int) -> float:
    """The example's GEMM time: 20 µs to read the weight, 2 µs a token."""
    return 20.0 + 2.0 * tokens


def example(bad: bool) -> TraceBuilder:
    """One generate call per step, PASSES passes of one aten::linear each on a [rows, 1024] x
    [3072, 1024]^T weight, launched 10 µs apart (_gemm_us: 20 µs + 2 µs a token). Bad: no
    cache, each pass multiplies the whole sequence (PROMPT + k tokens). Good: the cache, the
    first pass the prompt and every later one the new token alone."""
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=40.0 + 10.0 * PASSES):
        t = gpu_free = t0 + 10
        for k in range(PASSES):
            tokens = PROMPT + k if bad or k == 0 else 1
            args = {
                "Input Dims": [[tokens, WEIGHT[1]], list(WEIGHT), []],
                "Input type": [BF16, BF16, ""],
                "Concrete Inputs": ["", "", ""],
            }
            start = max(t + 4, gpu_free)
            us = _gemm_us(tokens)
            launch(b, t, start, us, name="aten::linear", kernel=BF16_GEMM, op_args=args)
            gpu_free = start + us
            t += 10
    return b

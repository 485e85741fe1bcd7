"""The demo registry: which scripts exist, what each teaches, and how to run and judge a pair.

Imports no torch: the scripts run in a subprocess (`run_demo`), and `compare` reads their
sidecars (`<variant>.meta.json`, written by `bottleneck_lab.capture`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEMOS_DIR = Path(__file__).resolve().parent.parent / "demos"
VARIANTS = ("bad", "fixed")


@dataclass(frozen=True)
class Demo:
    name: str
    kind: str  # the diagnosis kind the bad variant shows (see DESIGN.md)
    description: str  # one line
    metric: str  # "steps_per_s" | "samples_per_s" | "peak_memory" | "copy_time"
    target: str  # the H100 target, in words
    target_gain: float  # fixed over bad on `metric` (checkpointing: memory, plus <= 40% slower)

    @property
    def script(self) -> Path:
        return DEMOS_DIR / f"{self.name}.py"


_ALL = (
    Demo(
        "dataloader",
        "data_loading",
        "num_workers=0 decoding in the training process vs worker processes with pinned memory",
        "steps_per_s",
        ">= 3x steps/s",
        3.0,
    ),
    Demo(
        "batch_size",
        "small_batch",
        "16-sample batches that leave the GPU empty vs 2048-sample batches",
        "samples_per_s",
        ">= 5x samples/s",
        5.0,
    ),
    Demo(
        "precision",
        "precision",
        "FP32 with TF32 off vs BF16 autocast on a stack of transformer blocks",
        "steps_per_s",
        ">= 3x step speed",
        3.0,
    ),
    Demo(
        "checkpointing",
        "activation_memory",
        "all activations kept vs activation checkpointing per transformer block",
        "peak_memory",
        ">= 40% lower peak memory for <= 40% more step time",
        1 / 0.6,
    ),
    Demo(
        "sync",
        "sync_stall",
        ".item()/.cpu()/nonzero and per-layer NaN guards in the step vs the same logic on the GPU",
        "steps_per_s",
        ">= 1.5x steps/s",
        1.5,
    ),
    Demo(
        "launch_overhead",
        "launch_overhead",
        "a deep narrow model run eagerly with a per-tensor optimizer vs one CUDA graph with a fused optimizer",
        "steps_per_s",
        ">= 2x steps/s",
        2.0,
    ),
    Demo(
        "pageable_memcpy",
        "memcpy",
        "blocking copies from pageable memory vs non_blocking copies from pinned memory",
        "copy_time",
        "copy time per step >= 2x lower",
        2.0,
    ),
)
DEMOS: dict[str, Demo] = {d.name: d for d in _ALL}


class DemoError(RuntimeError):
    """A demo name that does not exist, or a demo run that failed (the message says which)."""


def get(name: str) -> Demo:
    try:
        return DEMOS[name]
    except KeyError:
        raise DemoError(f"unknown demo {name!r}; known: {', '.join(DEMOS)}") from None


def run_demo(
    name: str,
    variant: str,
    device: str,
    steps: int | None,
    out_dir: str | Path,
    *,
    timeout_s: float | None = None,
    quiet: bool = True,
) -> Path:
    """Run `demos/<name>.py` in a subprocess; return the trace path (`out_dir/<variant>.json.gz`).

    `steps=None` uses the script's default for the device. With `quiet`, the script's output is
    kept and shown only if it fails.
    """
    demo = get(name)
    if variant not in VARIANTS:
        raise DemoError(f"unknown variant {variant!r}; use one of {', '.join(VARIANTS)}")
    if not demo.script.is_file():
        raise DemoError(
            f"demo script {demo.script} is missing (the demos ship with a source checkout)"
        )
    out = Path(out_dir)
    cmd = [
        sys.executable,
        str(demo.script),
        "--variant",
        variant,
        "--device",
        device,
        "--out",
        str(out),
    ]
    if steps is not None:
        cmd += ["--steps", str(steps)]
    env = dict(os.environ)
    root = str(DEMOS_DIR.parent)
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    try:
        proc = subprocess.run(
            cmd,
            env=env,
            timeout=timeout_s,
            stdout=subprocess.PIPE if quiet else None,
            stderr=subprocess.STDOUT if quiet else None,
            text=True,
        )
    except subprocess.TimeoutExpired:
        raise DemoError(f"demo {name} ({variant}, {device}) ran past {timeout_s} s") from None
    trace = out / f"{variant}.json.gz"
    if proc.returncode != 0:
        tail = "\n".join((proc.stdout or "").strip().splitlines()[-15:])
        raise DemoError(
            f"demo {name} ({variant}, {device}) failed with exit code {proc.returncode}"
            + (f":\n{tail}" if tail else "")
        )
    if not trace.is_file() or not (out / f"{variant}.meta.json").is_file():
        raise DemoError(f"demo {name} ({variant}, {device}) exited 0 but wrote no {trace}")
    return trace


def sidecar_path(trace: str | Path) -> Path:
    """The capture sidecar beside a trace: `X.meta.json` for `X.json.gz` or `X.json`."""
    p = Path(trace)
    if p.name.endswith(".meta.json"):
        return p
    return p.with_name(p.name.removesuffix(".gz").removesuffix(".json") + ".meta.json")


def load_meta(path: str | Path) -> dict[str, Any]:
    """Read a sidecar; `path` may be the trace (`bad.json.gz`) or the sidecar itself."""
    return json.loads(sidecar_path(path).read_text())


def metric_value(meta: Mapping[str, Any], metric: str) -> float | None:
    """The number behind a registry metric: rates higher-better, memory and copy time lower-better."""
    if metric == "steps_per_s":
        return meta.get("steps_per_s")
    if metric == "samples_per_s":
        return meta.get("samples_per_s")
    if metric == "peak_memory":
        return meta.get("max_memory_allocated_bytes")
    if metric == "copy_time":
        stats = (meta.get("metrics") or {}).get("copy_ms_per_step") or {}
        return stats.get("median")
    raise DemoError(f"unknown metric {metric!r}")


@dataclass(frozen=True)
class Comparison:
    demo: str
    metric: str
    bad: float | None
    fixed: float | None
    gain: float | None  # how many times better fixed is on the metric (x)
    met: bool | None  # None: the numbers needed are missing (e.g. a CPU run has no peak memory)
    summary: str


def compare(name: str, bad: Mapping[str, Any], fixed: Mapping[str, Any]) -> Comparison:
    """Judge a bad/fixed pair of sidecars against the demo's target."""
    demo = get(name)
    b, f = metric_value(bad, demo.metric), metric_value(fixed, demo.metric)
    if not b or not f:
        return Comparison(name, demo.metric, b, f, None, None, f"{demo.metric}: not measured")
    if name == "checkpointing":
        saved = 1.0 - f / b
        slower = bad["steps_per_s"] / fixed["steps_per_s"] - 1.0
        return Comparison(
            name,
            demo.metric,
            b,
            f,
            b / f,
            b / f >= demo.target_gain and slower <= 0.40,
            f"peak memory {saved:.0%} lower for {slower:+.0%} step time",
        )
    lower_better = demo.metric in ("peak_memory", "copy_time")
    gain = b / f if lower_better else f / b
    return Comparison(
        name,
        demo.metric,
        b,
        f,
        gain,
        gain >= demo.target_gain,
        f"{demo.metric} {gain:.2f}x (target {demo.target_gain:g}x)",
    )

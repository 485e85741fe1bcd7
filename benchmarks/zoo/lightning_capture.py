"""Zoo runs trained by PyTorch Lightning's Trainer.fit and profiled by Lightning's own
PyTorchProfiler, the trace a Lightning user gets, with the capture sidecar beside it.

    PYTHONPATH=. python benchmarks/zoo/lightning_capture.py --out traces/zoo --only NAME[,NAME]
    PYTHONPATH=. python benchmarks/zoo/lightning_capture.py --compile NAME:VARIANT ...
    PYTHONPATH=. python benchmarks/zoo/lightning_capture.py --time-run NAME:VARIANT[:after]

A Lightning trace differs from bottleneck_lab.capture's: `Trainer(profiler=PyTorchProfiler(...))`
profiles the fit's first steps under its default schedule (wait=1, warmup=1, active=3) without
shapes or memory events, wraps every module's forward in a `[pl][module]` record_function and
every hook in `[pl][profile]`, and calls `prof.step()` when each `training_step` returns, so its
ProfilerStep spans run from one forward's end to the next (backward, optimizer, the next batch
and forward). Each run, in a process of its own (--timeout each):

1. a fresh fit of 6 steps with `PyTorchProfiler(dirpath, filename="fit")`, its Chrome trace
   gzipped to OUT/NAME/VARIANT.json.gz: the fit's steps 2 to 4 of a fresh process;
2. a second fit on the same model, no profiler: FLOPs of one step (FlopCounterMode from
   on_train_batch_start to on_train_batch_end), max_memory_allocated over another, then blocks of
   10 steps between synchronisations at on_train_batch_start (8 steps' warm-up first), whose
   per-step medians make the sidecar's step_time_ms, as bottleneck_lab.capture times a step.

--compile NAME:VARIANT times the second fit eagerly and again with torch.compile(model) on the
module's `model` (more warm-up: that compiles), each in a fresh Trainer, and prints the saving.
--time-run NAME:VARIANT[:after] times the second fit alone in this process (after the profiled
fit with :after), to tell the host's pace between processes from the profiler's after-effects.
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parents[1])]

PROFILED_FIT_STEPS = 6  # Lightning's default schedule records steps 2-4 and exports after 5
WARMUP_STEPS = 8
BLOCK_STEPS = 10
BLOCKS = 6


def _batches(make, n: int = 100_000):
    """A map-style dataset of `n` copies of one pinned batch (an in-memory dataset that hands the
    DataLoader whole batches, batch_size=None): the input pipeline costs nothing, so the step is
    the model's."""
    import torch

    pinned = torch.cuda.is_available()  # pinned: the copy to the GPU runs async
    batch = tuple(t.pin_memory() if pinned else t for t in make())

    class Batches(torch.utils.data.Dataset):
        def __len__(self):
            return n

        def __getitem__(self, i):
            return batch

    return torch.utils.data.DataLoader(Batches(), batch_size=None, shuffle=False)


def _module(model, loss_fn, optimizer_fn):
    import pytorch_lightning as pl

    class LitModel(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = model

        def training_step(self, batch, batch_idx):
            loss = loss_fn(self.model, batch)
            self.log("train_loss", loss, prog_bar=True)  # what Lightning's examples do
            return loss

        def configure_optimizers(self):
            return optimizer_fn(self.model.parameters())

    return LitModel()


def lightning_resnet50_precision(variant: str):
    """torchvision ResNet-50, batch 128 of 224 x 224, SGD with momentum: Lightning's default
    precision="32-true" (bad) vs "bf16-mixed" (fixed); bf16_channels_last adds channels_last to
    the fixed run (model and input), what the precision finding's fix says."""
    import torch
    import torch.nn.functional as F
    import torchvision

    model = torchvision.models.resnet50(num_classes=1000)
    batch = 128

    def make():
        return torch.randn(batch, 3, 224, 224), torch.randint(0, 1000, (batch,))

    def loss_fn(m, b):
        return F.cross_entropy(m(b[0]), b[1])

    def opt(params):
        return torch.optim.SGD(params, lr=0.1, momentum=0.9, weight_decay=1e-4)

    precision = "32-true" if variant == "bad" else "bf16-mixed"
    if variant == "bf16_channels_last":  # a study variant, not labelled: precision's full fix
        model = model.to(memory_format=torch.channels_last)
        make_nchw = make

        def make():
            x, y = make_nchw()
            return x.contiguous(memory_format=torch.channels_last), y

    config = {"model": "torchvision resnet50", "precision": precision, "optimizer": "SGD"}
    return _module(model, loss_fn, opt), _batches(make), batch, {"precision": precision}, config


def lightning_smollm_healthy(variant: str):
    """HF Llama at SmolLM-135M sizes (30 x 576, 9 heads, 3 KV heads, 49,152-token vocabulary,
    tied embeddings), causal LM on 8 x 1024 tokens, bf16-mixed, AdamW (torch's default, foreach)."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(
        vocab_size=49152,
        hidden_size=576,
        intermediate_size=1536,
        num_hidden_layers=30,
        num_attention_heads=9,
        num_key_value_heads=3,
        max_position_embeddings=2048,
        tie_word_embeddings=True,
        attn_implementation="sdpa",
    )
    model = LlamaForCausalLM(cfg)
    batch = 8

    def make():
        ids = torch.randint(0, cfg.vocab_size, (batch, 1024))
        return (ids,)

    def loss_fn(m, b):
        return m(input_ids=b[0], labels=b[0]).loss

    def opt(params):
        return torch.optim.AdamW(params, lr=3e-4, weight_decay=0.1)

    config = {"model": "HF Llama, SmolLM-135M sizes", "precision": "bf16-mixed", "seq": 1024}
    return _module(model, loss_fn, opt), _batches(make), batch, {"precision": "bf16-mixed"}, config


BUILDERS = {
    "lightning_resnet50_precision": (lightning_resnet50_precision, ("bad", "fixed")),
    "lightning_smollm_healthy": (lightning_smollm_healthy, ("healthy",)),
}


def _sync() -> None:
    import torch

    if torch.cuda.is_available():  # a CPU smoke test runs the same code
        torch.cuda.synchronize()


def _probe(flops_at: int, peak_at: int, first_timed: int):
    """A callback measuring, in one fit: FLOPs of step `flops_at`, peak memory over step
    `peak_at`, and per-step ms of blocks of BLOCK_STEPS steps from `first_timed` on (the time
    between two synchronised on_train_batch_start calls BLOCK_STEPS apart)."""
    import pytorch_lightning as pl
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    class Counter(FlopCounterMode):
        """FlopCounterMode whose formulas may fail without failing the step (torch 2.11's SDPA
        formula raises on grouped-query attention): the count is then dropped, as
        bottleneck_lab.capture drops it, and the sidecar says why."""

        failed: str | None = None

        def _count_flops(self, func_packet, out, args, kwargs):
            try:
                return super()._count_flops(func_packet, out, args, kwargs)
            except Exception as e:  # noqa: BLE001 - any formula's failure, reported
                self.failed = self.failed or f"{type(e).__name__}: {str(e)[:200]}"
                return out

    class Probe(pl.Callback):
        def __init__(self):
            self.flops, self.flops_by_op, self.peak, self.block_ms = None, {}, None, []
            self.not_counted = None
            self._counter, self._t0 = None, None

        def on_train_batch_start(self, trainer, module, batch, batch_idx):
            step = trainer.global_step
            if step == flops_at:
                self._counter = Counter(display=False)
                self._counter.__enter__()
            if step == peak_at and torch.cuda.is_available():
                torch.cuda.synchronize()
                torch.cuda.reset_peak_memory_stats()
            if step >= first_timed and (step - first_timed) % BLOCK_STEPS == 0:
                _sync()
                now = time.perf_counter()
                if self._t0 is not None:
                    self.block_ms.append((now - self._t0) * 1e3 / BLOCK_STEPS)
                self._t0 = now

        def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
            step = trainer.global_step - 1  # the optimizer step just taken
            if step == flops_at and self._counter is not None:
                self._counter.__exit__(None, None, None)
                counts = self._counter.get_flop_counts().get("Global", {})
                if self._counter.failed:
                    self.not_counted = f"not counted: FlopCounterMode raised {self._counter.failed}"
                else:
                    self.flops = int(self._counter.get_total_flops())
                    self.flops_by_op = {str(k): int(v) for k, v in sorted(counts.items(), key=str)}
                self._counter = None
            if step == peak_at and torch.cuda.is_available():
                torch.cuda.synchronize()
                self.peak = int(torch.cuda.max_memory_allocated())

    return Probe()


def _trainer(root: str, fit_kwargs: dict, max_steps: int, **extra):
    import pytorch_lightning as pl

    return pl.Trainer(
        accelerator="auto",
        devices=1,
        max_steps=max_steps,
        default_root_dir=root,
        enable_model_summary=False,
        **fit_kwargs,
        **extra,
    )


def _timed_fit(module, loader, fit_kwargs: dict, root: str, warmup: int = WARMUP_STEPS):
    probe = _probe(flops_at=warmup - 2, peak_at=warmup - 1, first_timed=warmup)
    last = warmup + BLOCK_STEPS * BLOCKS
    _trainer(root, fit_kwargs, last + 1, callbacks=[probe]).fit(module, loader)
    return probe


def _profiled_fit(module, loader, fit_kwargs: dict, root: str) -> list[Path]:
    """A fit of PROFILED_FIT_STEPS steps under PyTorchProfiler at its defaults; its traces."""
    from pytorch_lightning.profilers import PyTorchProfiler

    prof_dir = Path(root) / "profiler"
    profiler = PyTorchProfiler(dirpath=str(prof_dir), filename="fit")
    _trainer(root, fit_kwargs, PROFILED_FIT_STEPS, profiler=profiler).fit(module, loader)
    return sorted(prof_dir.rglob("*.pt.trace.json"))


def capture_run(name: str, variant: str, out: Path) -> None:
    import torch

    from bottleneck_lab.capture import backend_flags, sidecar_head

    device = "cuda" if torch.cuda.is_available() else "cpu"

    build, _ = BUILDERS[name]
    module, loader, batch_size, fit_kwargs, config = build(variant)
    root = tempfile.mkdtemp(prefix="zoo_lightning_")
    traces = _profiled_fit(module, loader, fit_kwargs, root)
    if not traces:
        raise SystemExit(f"{name}/{variant}: Lightning's profiler wrote no trace in {root}")
    dest = out / name
    dest.mkdir(parents=True, exist_ok=True)
    trace_path = dest / f"{variant}.json.gz"
    with open(traces[-1], "rb") as src, gzip.open(trace_path, "wb") as dst:
        shutil.copyfileobj(src, dst)

    probe = _timed_fit(module, loader, fit_kwargs, root)
    ms = probe.block_ms
    mean_s = statistics.fmean(ms) / 1e3
    meta = {
        **sidecar_head(name, variant, trace_path, device),
        "batch_size": batch_size,
        "steps_profiled": 3,
        "profiler": {
            "activities": ["CPU", "CUDA"] if device == "cuda" else ["CPU"],
            "schedule": {"wait": 1, "warmup": 1, "active": 3},
            "record_shapes": False,
            "profile_memory": False,
            "with_stack": False,
            "export": "pytorch_lightning PyTorchProfiler(dirpath, filename='fit') defaults, "
            f"the fit's first {PROFILED_FIT_STEPS} steps in a fresh process; {traces[-1].name}",
        },
        "timing": {
            "warmup_steps": WARMUP_STEPS,
            "method": f"a second fit: synchronize at on_train_batch_start every {BLOCK_STEPS} "
            "steps; per-step ms of each block",
        },
        "backend_flags": backend_flags(),
        "step_time_ms": {
            "median": statistics.median(ms),
            "mean": statistics.fmean(ms),
            "min": min(ms),
            "max": max(ms),
            "n": len(ms),
        },
        "timed_steps": BLOCK_STEPS * len(ms),
        "timed_blocks": len(ms),
        "steps_per_s": 1.0 / mean_s,
        "samples_per_s": batch_size / mean_s,
        "flops_per_step": probe.flops,
        "flops_by_op": probe.flops_by_op,
        "flops_source": probe.not_counted
        or "FlopCounterMode from on_train_batch_start to on_train_batch_end of one step of the "
        "second fit",
        "achieved_tflops": probe.flops / mean_s / 1e12 if probe.flops else None,
        "max_memory_allocated_bytes": probe.peak,
        "config": {**config, "loop": "pytorch_lightning Trainer.fit", **fit_kwargs},
    }
    (dest / f"{variant}.meta.json").write_text(json.dumps(meta, indent=2) + "\n")
    print(json.dumps({"run": f"{name}/{variant}", "step_ms": meta["step_time_ms"]["median"]}))


def time_run(name: str, variant: str, after_profile: bool) -> None:
    """The sidecar's timing alone in a fresh process, after the profiled fit or without it."""
    build, _ = BUILDERS[name]
    module, loader, _, fit_kwargs, _ = build(variant)
    root = tempfile.mkdtemp(prefix="zoo_lightning_")
    if after_profile:
        _profiled_fit(module, loader, fit_kwargs, root)
    ms = _timed_fit(module, loader, fit_kwargs, root).block_ms
    print(
        json.dumps(
            {
                "run": f"{name}/{variant}",
                "after_profile": after_profile,
                "median_ms": round(statistics.median(ms), 2),
                "blocks_ms": [round(x, 1) for x in ms],
            }
        )
    )


def compile_run(name: str, variant: str) -> None:
    import torch

    build, _ = BUILDERS[name]
    module, loader, _, fit_kwargs, _ = build(variant)
    root = tempfile.mkdtemp(prefix="zoo_lightning_")
    eager = statistics.median(_timed_fit(module, loader, fit_kwargs, root).block_ms)
    module.model = torch.compile(module.model)
    t0 = time.perf_counter()
    compiled = statistics.median(_timed_fit(module, loader, fit_kwargs, root, warmup=20).block_ms)
    saving = 100 * (1 - compiled / eager)
    print(
        json.dumps(
            {
                "run": f"{name}/{variant}",
                "eager_ms": round(eager, 2),
                "compiled_ms": round(compiled, 2),
                "saving_pct": round(saving, 1),
                "compiled_fit_s": round(time.perf_counter() - t0, 1),
            }
        )
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=Path("traces/zoo"))
    ap.add_argument("--only", default=",".join(BUILDERS))
    ap.add_argument("--compile", nargs="*", metavar="NAME:VARIANT")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--run", help=argparse.SUPPRESS)  # NAME:VARIANT, in this process
    ap.add_argument("--compile-run", help=argparse.SUPPRESS)
    ap.add_argument("--time-run", metavar="NAME:VARIANT[:after]")
    args = ap.parse_args()
    if args.run:
        capture_run(*args.run.split(":"), args.out)
        return 0
    if args.time_run:
        name, variant, *after = args.time_run.split(":")
        time_run(name, variant, bool(after))
        return 0
    if args.compile_run:
        compile_run(*args.compile_run.split(":"))
        return 0
    if args.compile is not None:
        jobs = [["--compile-run", r] for r in args.compile]
    else:
        jobs = [
            ["--run", f"{n}:{v}", "--out", str(args.out)]
            for n in args.only.split(",")
            for v in BUILDERS[n][1]
        ]
    failed = 0
    for job in jobs:
        try:
            rc = subprocess.run(
                [sys.executable, __file__, *job], timeout=args.timeout, check=False
            ).returncode
        except subprocess.TimeoutExpired:
            rc = "timeout"
        if rc != 0:
            failed += 1
            print(f"{' '.join(job)}: failed ({rc})", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

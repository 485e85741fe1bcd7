"""What torch.compile saves on the transformer demos (precision fixed, checkpointing bad and
fixed): the measured answer their fusion findings are held to.

    python benchmarks/demo_compile_savings.py          # on a GPU machine

Each demo's model (demos/_common.TinyLM at the demo's CUDA sizes) and step, built as the demo
script builds them, timed eagerly outside the profiler (3 warm-up steps, then blocks of steps
between synchronisations, as the capture sidecars do), then with the model's loss wrapped in
torch.compile (default mode: TinyLM has no forward, so its loss method is what a user would
compile), warmed up and timed again. Prints one JSON line per run and a table last, as
benchmarks/zoo/compile_savings.py does for the zoo.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "demos"), str(ROOT)]

# (run, (vocab, dim, heads, layers, batch, seq), bf16 autocast, checkpoint each block)
RUNS = (
    ("precision/fixed", (8192, 1024, 16, 8, 8, 1024), True, False),
    ("checkpointing/bad", (4096, 1024, 16, 12, 8, 2048), True, False),
    ("checkpointing/fixed", (4096, 1024, 16, 12, 8, 2048), True, True),
)


def measure(run: str, sizes: tuple, bf16: bool, checkpointed: bool) -> dict:
    import torch
    from _common import TinyLM, random_tokens
    from torch.utils.checkpoint import checkpoint

    from bottleneck_lab.capture import TimingSettings, time_steps

    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    vocab, dim, heads, layers, batch, seq = sizes
    model = TinyLM(vocab, dim, heads, layers).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids, targets = random_tokens(vocab, batch, seq, "cuda")

    def run_block(block, x):
        return checkpoint(block, x, use_reentrant=False) if checkpointed else block(x)

    def make_step(loss_fn):
        def step():
            with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=bf16):
                loss = loss_fn(ids, targets, run_block)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()

        return step

    timing = TimingSettings(min_seconds=1.0)
    times = {}
    for label, loss_fn in (("eager", model.loss), ("compiled", torch.compile(model.loss))):
        step = make_step(loss_fn)
        for _ in range(3):
            step()
        torch.cuda.synchronize()
        times[label] = time_steps(step, "cuda", 5, timing)["step_time_ms"]["median"]
    return {
        "run": run,
        "eager_ms": round(times["eager"], 3),
        "compiled_ms": round(times["compiled"], 3),
        "saving_pct": round(100 * (1 - times["compiled"] / times["eager"]), 1),
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(),
    }


def main() -> int:
    rows = []
    for run, sizes, bf16, checkpointed in RUNS:
        row = measure(run, sizes, bf16, checkpointed)
        print(json.dumps(row), flush=True)
        rows.append(row)
    print(f"\n{'run':<24}{'eager ms':>10}{'compiled ms':>13}{'saving':>8}")
    for r in rows:
        print(
            f"{r['run']:<24}{r['eager_ms']:>10.2f}{r['compiled_ms']:>13.2f}{r['saving_pct']:>7.1f}%"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

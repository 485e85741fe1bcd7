"""Time two zoo runs in one process, their blocks interleaved: a fix's saving on a step whose
time moves between processes by more than the fix can save.

    python benchmarks/zoo/ab_time.py gpt2_eval_logits_to_host:fixed gpt2_eval_logits_to_host:on_gpu
    python benchmarks/zoo/ab_time.py bert_eager_attention:fixed --pad-vocab

Builds A, then B (with --pad-vocab, B is A's run with every HF vocabulary padded to a multiple
of 64, as benchmarks/zoo/pad_vocab_savings.py builds it), warms each up (Built.warmup_steps, 3
for most runs), then times blocks of steps between synchronisations, A and B in turn (ABAB...),
`--blocks` of each; a worker-fed side runs its warm-up steps beyond 3 untimed again before each
of its blocks, since its DataLoader decodes ahead while the other side runs. A host that runs
slower in one process than in another (the GPT-2 evaluation's 10 ms step took 7.7 to
14.4 ms a step over twelve processes) then slows both sides alike. Prints each side's median ms
a step and the saving 1 - B/A (per sample where their batch sizes differ), with the range of
the savings of each A block against the B block after it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]


def block_ms(step, steps: int) -> float:
    import torch

    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(steps):
        step()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / steps


def main() -> int:
    import statistics

    import pad_vocab_savings
    import scenarios

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("a", help="NAME:VARIANT")
    p.add_argument("b", nargs="?", help="NAME:VARIANT (default: A, with --pad-vocab)")
    p.add_argument("--pad-vocab", action="store_true")
    p.add_argument("--blocks", type=int, default=20)
    args = p.parse_args()
    a = scenarios.BUILDERS[args.a.split(":")[0]](args.a.split(":")[1])
    if args.pad_vocab:
        pad_vocab_savings.pad_every_vocabulary()
    b_name = args.b or args.a
    b = scenarios.BUILDERS[b_name.split(":")[0]](b_name.split(":")[1])
    for built in (a, b):
        for _ in range(built.warmup_steps):
            built.step()
    ms_a, ms_b = [], []
    for _ in range(args.blocks):
        for built, ms in ((a, ms_a), (b, ms_b)):
            # a worker-fed side's workers decode ahead while the other side runs: drain that
            # again before each block (warmup_steps beyond the usual 3), or it times the head start
            for _ in range(built.warmup_steps - scenarios.WARMUP_STEPS):
                built.step()
            ms.append(block_ms(built.step, built.timed_steps))
    med_a, med_b = statistics.median(ms_a), statistics.median(ms_b)
    # runs of different batch sizes (a small_batch pair) save time per sample
    per = b.batch_size / a.batch_size
    paired = sorted(100 * (1 - y / per / x) for x, y in zip(ms_a, ms_b))
    b_label = f"{b_name}{' padded' if args.pad_vocab else ''}"
    print(f"A {args.a}: median {med_a:.2f} ms (min {min(ms_a):.2f}, max {max(ms_a):.2f})")
    print(f"B {b_label}: median {med_b:.2f} ms (min {min(ms_b):.2f}, max {max(ms_b):.2f})")
    print(
        f"saving 1 - B/A{' per sample' if per != 1 else ''}: {100 * (1 - med_b / per / med_a):.1f}% "
        f"(paired blocks {paired[0]:.1f}% to {paired[-1]:.1f}%, median "
        f"{statistics.median(paired):.1f}%, {args.blocks} blocks each)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

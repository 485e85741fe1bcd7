"""How an FSDP2 step's time depends on the size of its units: the zoo's two FSDP2 GPT-2 runs
timed (outside the profiler, synchronised) with fully_shard on groups of k blocks, then the root.

    torchrun --nproc_per_node 2 benchmarks/zoo/fsdp_units.py

Prints one `RESULT {json}` line per rank and layout: k = 1 is one unit per block (the zoo's
per-block runs), "root" the whole model as one unit (holdout 79's bad run), "1, kept" one unit
per block with reshard_after_forward=False (the backward's all-gathers go). It checks the host
finding's price for FSDP2's per-unit hooks (detectors/host_bound.py) against measured fixes.
"""

from __future__ import annotations

import json
import os
import sys

import torch
import torch.distributed as dist
from multi_gpu import FIXED_BLOCKS, SAVINGS_WARMUP, TIMED_STEPS  # benchmarks/zoo

from bottleneck_lab.capture import time_steps

# (name, layers, width, heads, sequences of 1024 tokens a GPU): the zoo's fsdp2_gpt2 and
# gpt2_fsdp2_root_only
MODELS = (("gpt2-medium", 24, 1024, 16, 8), ("gpt2-large", 36, 1280, 20, 4))
LAYOUTS = ((1, True), (2, True), (4, True), ("root", True), (1, False))


def build(layers: int, width: int, heads: int, batch: int, group, reshard: bool):
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(n_layer=layers, n_embd=width, n_head=heads, vocab_size=50304)
    model = GPT2LMHeadModel(cfg).cuda()
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    if group != "root":
        blocks = list(model.transformer.h)
        for i in range(0, len(blocks), group):
            unit = blocks[i : i + group]
            fully_shard(unit if group > 1 else unit[0], mp_policy=mp, reshard_after_forward=reshard)
    fully_shard(model, mp_policy=mp)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    ids = torch.randint(0, cfg.vocab_size, (batch, 1024), device="cuda")

    def step():
        loss = model(input_ids=ids, labels=ids).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return step


def main() -> int:
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl")
    torch.manual_seed(rank)
    for name, layers, width, heads, batch in MODELS:
        for group, reshard in LAYOUTS:
            step = build(layers, width, heads, batch, group, reshard)
            for _ in range(SAVINGS_WARMUP):
                step()
            torch.cuda.synchronize()
            t = time_steps(step, f"cuda:{rank}", TIMED_STEPS, FIXED_BLOCKS)["step_time_ms"]
            row = {"model": name, "blocks_per_unit": group, "reshard_after_forward": reshard}
            print("RESULT " + json.dumps(row | {"rank": rank, "ms": round(t["median"], 2)}))
            del step
            torch.cuda.empty_cache()
            dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

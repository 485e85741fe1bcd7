"""The zoo's multi-GPU scenarios, one process per GPU (torchrun), captured per rank.

    torchrun --nproc_per_node 2 benchmarks/zoo/multi_gpu.py --scenario ddp_slow_rank --variant bad --out traces/zoo

Writes OUT/<scenario>/<variant>/rank<N>.json.gz and rank<N>.meta.json: a directory of per-rank
traces, as `bottleneck-lab analyze DIR` reads them. Every rank runs the same fixed number of
timed blocks (a time-based stop could leave one rank waiting in a collective for ever).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch
import torch.distributed as dist

from bottleneck_lab.capture import TimingSettings, capture


def ddp_slow_rank(variant: str, rank: int):
    import torchvision
    from torch.nn.parallel import DistributedDataParallel as DDP

    model = torchvision.models.resnet50(weights=None).cuda().to(memory_format=torch.channels_last)
    model = DDP(model, device_ids=[rank])
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, foreach=True)
    x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (64,), device="cuda")
    slow = variant == "bad" and rank == 1

    def step():
        if slow:
            time.sleep(
                0.030
            )  # this rank's host is slow (a busy data pipeline, logging, a noisy node)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return (
        step,
        64,
        {
            "model": "resnet50 DDP",
            "slow_rank": 1 if variant == "bad" else None,
            "sleep_ms": 30 if slow else 0,
        },
    )


def fsdp2_gpt2(variant: str, rank: int):
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(n_layer=24, n_embd=1024, n_head=16, vocab_size=50304)
    model = GPT2LMHeadModel(cfg).cuda()
    mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
    for block in model.transformer.h:
        fully_shard(block, mp_policy=mp)
    fully_shard(model, mp_policy=mp)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")

    def step():
        loss = model(input_ids=ids, labels=ids).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return step, 8, {"model": "gpt2-medium FSDP2", "mixed_precision": "bf16 params, fp32 reduce"}


SCENARIOS = {"ddp_slow_rank": ddp_slow_rank, "fsdp2_gpt2": fsdp2_gpt2}


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--scenario", choices=SCENARIOS, required=True)
    p.add_argument("--variant", required=True)
    p.add_argument("--out", type=Path, default=Path("traces/zoo"))
    args = p.parse_args()
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl")
    torch.manual_seed(rank)
    step, batch, config = SCENARIOS[args.scenario](args.variant, rank)
    capture(
        step,
        demo=args.scenario,
        variant=f"rank{rank}",
        device=f"cuda:{rank}",
        out_dir=args.out / args.scenario / args.variant,
        batch_size=batch,
        timed_steps=5,
        config=config | {"world_size": dist.get_world_size()},
        timing=TimingSettings(min_blocks=3, max_blocks=3, min_seconds=0.0),
    )
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The zoo's multi-GPU scenarios, one process per GPU (torchrun), captured per rank.

    torchrun --nproc_per_node 2 benchmarks/zoo/multi_gpu.py --scenario ddp_slow_rank --variant bad --out traces/zoo
    torchrun --nproc_per_node 2 benchmarks/zoo/multi_gpu.py --scenario vit_ddp_healthy --variant healthy --savings

Writes OUT/<scenario>/<variant>/rank<N>.json.gz and rank<N>.meta.json: a directory of per-rank
traces, as `bottleneck-lab analyze DIR` reads them. Every rank runs the same fixed number of
timed blocks (a time-based stop could leave one rank waiting in a collective for ever).

--savings captures nothing: it times the run's step as captured (DDP), then the same step on each
rank without DDP (no gradient all-reduce: what perfect communication would cost), then the DDP
step with torch.compile(model), and prints one JSON line per rank. Only the builders that take
`ddp` and `compiled` support it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import torch
import torch.distributed as dist

# the zoo's single-GPU training step (BF16 autocast, zero_grad, backward, optimizer step)
from scenarios import _train_step  # benchmarks/zoo: this script's own folder

from bottleneck_lab.capture import TimingSettings, capture, time_steps

FIXED_BLOCKS = TimingSettings(min_blocks=3, max_blocks=3, min_seconds=0.0)


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


def _wrap(model, rank: int, ddp: bool, compiled: bool, **ddp_kwargs):
    """The model as the step runs it: DDP-wrapped (or not: --savings' no-communication side),
    with DDP's keyword arguments where given, then torch.compile'd where asked (--savings'
    compiled side)."""
    from torch.nn.parallel import DistributedDataParallel as DDP

    if ddp:
        model = DDP(model, device_ids=[rank], **ddp_kwargs)
    return torch.compile(model) if compiled else model


def gpt2_ddp_accum_no_sync(variant: str, rank: int, ddp: bool = True, compiled: bool = False):
    """GPT-2 medium, DDP, 4 micro-batches of 2 x 1024 tokens a step. bad: every micro-batch's
    backward all-reduces the gradients; fixed: model.no_sync() on the first three, so only the
    last one does (what DDP's docs say to do when accumulating gradients)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(n_layer=24, n_embd=1024, n_head=16, vocab_size=50304)
    model = _wrap(GPT2LMHeadModel(cfg).cuda(), rank, ddp, compiled)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    accum = 4
    ids = torch.randint(0, cfg.vocab_size, (accum, 2, 1024), device="cuda")

    def step():
        for i in range(accum):
            skip_sync = ddp and variant == "fixed" and i < accum - 1
            with model.no_sync() if skip_sync else contextlib.nullcontext():
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    loss = model(input_ids=ids[i], labels=ids[i]).loss / accum
                loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)

    return (
        step,
        2 * accum,
        {
            "model": "gpt2-medium DDP",
            "micro_batches": accum,
            "micro_batch": "2 x 1024 tokens",
            "no_sync": variant == "fixed",
        },
    )


def _timm_ddp(
    arch: str, batch: int, channels_last: bool, rank: int, ddp: bool, compiled: bool, **ddp_kwargs
):
    import timm

    fmt = torch.channels_last if channels_last else torch.contiguous_format
    model = timm.create_model(arch).cuda().to(memory_format=fmt)
    model = _wrap(model, rank, ddp, compiled, **ddp_kwargs)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(batch, 3, 224, 224, device="cuda").to(memory_format=fmt)
    y = torch.randint(0, 1000, (batch,), device="cuda")
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(model(x), y))
    return step, batch, {"model": f"timm {arch} DDP", "bf16_autocast": True}


def vit_ddp_healthy(variant: str, rank: int, ddp: bool = True, compiled: bool = False):
    """timm ViT-B/16, DDP, batch 64 a GPU, BF16 autocast, fused AdamW."""
    return _timm_ddp("vit_base_patch16_224", 64, False, rank, ddp, compiled)


def vit_ddp_p2p_disabled(variant: str, rank: int, ddp: bool = True, compiled: bool = False):
    """vit_ddp_healthy's run with NCCL_P2P_DISABLE=1 left in the environment (bad: a workaround
    for hangs on consumer GPUs, copied into a launch script; NCCL then moves data through host
    shared memory instead of NVLink) vs unset (fixed). main() sets it before NCCL starts."""
    return _timm_ddp("vit_base_patch16_224", 64, False, rank, ddp, compiled)


def vit_ddp_socket_transport(variant: str, rank: int, ddp: bool = True, compiled: bool = False):
    """vit_ddp_healthy's run with NCCL_P2P_DISABLE=1, NCCL_SHM_DISABLE=1 and NCCL_IB_DISABLE=1 in
    its environment (bad: NCCL falls back to TCP sockets over loopback, as on a node whose GPUs
    it cannot connect directly) vs unset (fixed)."""
    return _timm_ddp("vit_base_patch16_224", 64, False, rank, ddp, compiled)


def convnext_ddp_healthy(variant: str, rank: int, ddp: bool = True, compiled: bool = False):
    """timm ConvNeXt-T, DDP, batch 128 a GPU, BF16 autocast + channels_last, fused AdamW."""
    return _timm_ddp("convnext_tiny", 128, True, rank, ddp, compiled)


def resnet50_ddp_syncbn(variant: str, rank: int, ddp: bool = True, compiled: bool = False):
    """torchvision ResNet-50, DDP, batch 64 a GPU, BF16 autocast + channels_last, SGD with
    momentum (foreach). bad: nn.SyncBatchNorm.convert_sync_batchnorm(model) before DDP, as
    detection and segmentation recipes do, though each GPU's batch is large enough for its own
    statistics: every batch norm gathers its statistics from all ranks in the forward and
    reduces its gradients' sums in the backward; fixed: plain BatchNorm2d. ddp=False (--savings'
    side without communication) builds plain batch norm: SyncBatchNorm communicates without
    DDP."""
    import torchvision

    model = torchvision.models.resnet50(weights=None)
    if variant == "bad" and ddp:
        model = torch.nn.SyncBatchNorm.convert_sync_batchnorm(model)
    model = model.cuda().to(memory_format=torch.channels_last)
    model = _wrap(model, rank, ddp, compiled)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, foreach=True)
    x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (64,), device="cuda")
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(model(x), y))
    config = {"model": "torchvision resnet50 DDP", "sync_batchnorm": variant == "bad"}
    return step, 64, config | {"bf16_autocast": True, "channels_last": True}


def vit_ddp_find_unused(variant: str, rank: int, ddp: bool = True, compiled: bool = False):
    """vit_ddp_healthy's run (timm ViT-B/16, batch 64 a GPU) with DDP's
    find_unused_parameters=True (bad: copied from code whose model skipped parameters; DDP then
    walks the autograd graph after every forward to find parameters it will not get gradients
    for) vs the default False (fixed). Every parameter is used in both."""
    return _timm_ddp(
        "vit_base_patch16_224",
        64,
        False,
        rank,
        ddp,
        compiled,
        find_unused_parameters=variant == "bad",
    )


def gpt2_fsdp2_root_only(variant: str, rank: int, ddp: bool = True, compiled: bool = False):
    """HF GPT-2 large (36 x 1280) under FSDP2, BF16 parameters and FP32 gradient reduction,
    4 x 1024 tokens a GPU, AdamW (foreach). bad: fully_shard on the root module only, so the
    whole model is one unit: every parameter is all-gathered before the forward and every
    gradient reduce-scattered after the backward, with nothing to overlap either with. fixed:
    fully_shard on each transformer block, then the root (the order PyTorch's FSDP2 tutorial
    gives), so one block's all-gather runs under the previous block's compute. ddp=False
    (--savings' side without communication): the same model on each rank unsharded, under BF16
    autocast."""
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(n_layer=36, n_embd=1280, n_head=20, vocab_size=50304)
    model = GPT2LMHeadModel(cfg).cuda()
    if ddp:
        mp = MixedPrecisionPolicy(param_dtype=torch.bfloat16, reduce_dtype=torch.float32)
        if variant == "fixed":
            for block in model.transformer.h:
                fully_shard(block, mp_policy=mp)
        fully_shard(model, mp_policy=mp)
    if compiled:
        model = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    ids = torch.randint(0, cfg.vocab_size, (4, 1024), device="cuda")
    cast = contextlib.nullcontext if ddp else lambda: torch.autocast("cuda", dtype=torch.bfloat16)

    def step():
        with cast():
            loss = model(input_ids=ids, labels=ids).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return (
        step,
        4,
        {
            "model": "gpt2-large FSDP2",
            "mixed_precision": "bf16 params, fp32 reduce",
            "sharded": "root only" if variant == "bad" else "each block, then the root",
        },
    )


SCENARIOS = {
    "ddp_slow_rank": ddp_slow_rank,
    "fsdp2_gpt2": fsdp2_gpt2,
    "gpt2_ddp_accum_no_sync": gpt2_ddp_accum_no_sync,
    "vit_ddp_healthy": vit_ddp_healthy,
    "convnext_ddp_healthy": convnext_ddp_healthy,
    "vit_ddp_p2p_disabled": vit_ddp_p2p_disabled,
    "vit_ddp_socket_transport": vit_ddp_socket_transport,
    "gpt2_fsdp2_root_only": gpt2_fsdp2_root_only,
    "resnet50_ddp_syncbn": resnet50_ddp_syncbn,
    "vit_ddp_find_unused": vit_ddp_find_unused,
}
# the environment a run starts NCCL with: (scenario, variant) -> variables
NCCL_ENV = {
    ("vit_ddp_p2p_disabled", "bad"): {"NCCL_P2P_DISABLE": "1"},
    ("vit_ddp_socket_transport", "bad"): {
        "NCCL_P2P_DISABLE": "1",
        "NCCL_SHM_DISABLE": "1",
        "NCCL_IB_DISABLE": "1",
        "NCCL_SOCKET_IFNAME": "lo",
    },
}
# --savings' warm-up steps before each timing: 3 left NCCL's host-memory transport still warming
# up (holdout 77: 58.23 ms a step after 3, 35.19 and 34.96 after 30 in fresh processes)
SAVINGS_WARMUP = 10
TIMED_STEPS = 5


def savings(scenario: str, variant: str, rank: int) -> dict:
    """Step times outside the profiler: as captured (DDP), without DDP, and DDP compiled."""
    row = {"run": f"{scenario}/{variant}", "rank": rank}
    for side, kwargs in (
        ("ddp_ms", {}),
        ("no_ddp_ms", {"ddp": False}),
        ("ddp_compiled_ms", {"compiled": True}),
    ):
        step = SCENARIOS[scenario](variant, rank, **kwargs)[0]
        t0 = time.perf_counter()
        for _ in range(SAVINGS_WARMUP):
            step()
        torch.cuda.synchronize()
        row[side.replace("_ms", "_warmup_s")] = round(time.perf_counter() - t0, 1)
        ms = time_steps(step, f"cuda:{rank}", TIMED_STEPS, FIXED_BLOCKS)["step_time_ms"]["median"]
        row[side] = round(ms, 3)
        del step
        torch.cuda.empty_cache()
        dist.barrier()
    row["communication_pct"] = round(100 * (1 - row["no_ddp_ms"] / row["ddp_ms"]), 1)
    row["compile_saving_pct"] = round(100 * (1 - row["ddp_compiled_ms"] / row["ddp_ms"]), 1)
    return row


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--scenario", choices=SCENARIOS, required=True)
    p.add_argument("--variant", required=True)
    p.add_argument("--out", type=Path, default=Path("traces/zoo"))
    p.add_argument("--savings", action="store_true", help="time, do not capture (see above)")
    args = p.parse_args()
    rank = int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(rank)
    os.environ.update(NCCL_ENV.get((args.scenario, args.variant), {}))
    dist.init_process_group("nccl")
    torch.manual_seed(rank)
    if args.savings:
        print("RESULT " + json.dumps(savings(args.scenario, args.variant, rank)), flush=True)
        dist.destroy_process_group()
        return 0
    step, batch, config = SCENARIOS[args.scenario](args.variant, rank)
    capture(
        step,
        demo=args.scenario,
        variant=f"rank{rank}",
        device=f"cuda:{rank}",
        out_dir=args.out / args.scenario / args.variant,
        batch_size=batch,
        timed_steps=TIMED_STEPS,
        config=config
        | {
            "world_size": dist.get_world_size(),
            "nccl_env": NCCL_ENV.get((args.scenario, args.variant), {}),
        },
        timing=FIXED_BLOCKS,
    )
    dist.barrier()
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())

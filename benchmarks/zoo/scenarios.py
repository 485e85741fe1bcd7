"""The zoo: real architectures (torchvision, HF transformers, built from configs with random
weights) trained or served the way people do, each bad/fixed pair differing in one thing.

    python benchmarks/zoo/scenarios.py --out traces/zoo                  # every 1-GPU scenario
    python benchmarks/zoo/scenarios.py --out traces/zoo --only jpeg_loader,fusion_mlp
    python benchmarks/zoo/scenarios.py --one resnet50_precision --variant bad --out traces/zoo

Each run is its own process (compile caches, DataLoader workers and allocator state never leak
from one run into the next) and goes through `bottleneck_lab.capture`, which writes
OUT/<scenario>/<variant>.json.gz and the sidecar with synchronised step time, FlopCounterMode
FLOPs and max_memory_allocated. The labels (what each run really is) are in labels.py.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]

import labels  # noqa: E402

# Steps every timing runs before it starts (the first compile and cuDNN's choices among them)
WARMUP_STEPS = 3


@dataclass
class Built:
    step: Callable[[], Any]
    batch_size: int
    config: dict[str, Any]
    timed_steps: int = 5
    flop_step: Callable[[], Any] | None = None
    flops_note: str | None = None
    quick: bool = False  # few warm-up/timed/profiled steps (each step compiles anew)
    profiled_steps: int | None = None  # fewer active profiler steps where one makes a big trace
    cleanup: Callable[[], None] | None = None
    # steps run before any timing: a DataLoader's workers decode batches ahead while the model is
    # built, and steps timed on that head start measure it, not the loader's pace
    warmup_steps: int = WARMUP_STEPS


def _drain_steps(workers: int, prefetch: int = 2) -> int:
    """Warm-up steps (Built.warmup_steps) for a run fed by `workers` DataLoader workers that
    decode `prefetch` batches each ahead: WARMUP_STEPS, and that head start drained twice over."""
    return WARMUP_STEPS + 2 * workers * prefetch


def _torch():
    import torch

    torch.manual_seed(0)
    return torch


def _train_step(
    torch,
    opt,
    loss_of: Callable[[], Any],
    bf16: bool = True,
    then: Callable[[Any], None] | None = None,
) -> Callable[[], None]:
    """The training step most runs take: the forward and loss under BF16 autocast (unless bf16
    is False), then zero_grad(set_to_none=True), backward and the optimizer step; then(loss),
    where given, after it (what the loop does with the loss or the step: logging, timing)."""

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16):
            loss = loss_of()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if then is not None:
            then(loss)

    return step


def _clipped_step(torch, model, opt, loss_of: Callable[[], Any], **clip) -> Callable[[], None]:
    """_train_step's step (BF16 autocast) with the gradients clipped to norm 1.0 between the
    backward and the optimizer step (clip: clip_grad_norm_'s keyword arguments)."""

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = loss_of()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, **clip)
        opt.step()

    return step


def _loss_logger(torch, read: bool) -> Callable[[Any], None]:
    """What a loop does with each step's loss: read it with loss.item() into a list (read: the
    read waits for the step's GPU work, so the next step starts from an empty queue) or sum it on
    the GPU, read once per logging interval outside the profiled steps."""
    logged: list[float] = []
    running = torch.zeros((), device="cuda")

    def log(loss) -> None:
        if read:
            logged.append(loss.item())
        else:
            running.add_(loss.detach())

    return log


def _inference_step(torch, run: Callable[..., Any], *args, **kwargs) -> Callable[[], None]:
    """The step of an inference run: run(*args, **kwargs) under inference_mode and BF16
    autocast."""

    def step():
        with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16):
            run(*args, **kwargs)

    return step


def _cast_once_step(torch, run: Callable[..., Any], *args, **kwargs) -> Callable[[], None]:
    """The step of an inference run whose model was cast to BF16 once (the study variants
    bf16_weights): run(*args, **kwargs) under inference_mode, no autocast."""

    def step():
        with torch.inference_mode():
            run(*args, **kwargs)

    return step


# compile_savings.py --model-only sets this: the plain builders then call torch.compile(model) in
# their step, so what compiling the model alone saves is measured on the very step we captured.
COMPILE_MODEL = False


# compile_savings.py --blocks sets this: the builders then compile, in place, every submodule
# outside attention (the MLPs, norms, embeddings) and leave each attention module eager, so the
# model's own forward (and the attention mask it hands SDPA) stays as it runs eagerly.
COMPILE_BLOCKS = False


# compile_savings.py --layers sets this: the builders then compile, in place, each layer of the
# model's outermost layer lists (a decoder's layers, attention inside them), so the model's own
# forward, and the attention mask it builds, stays eager.
COMPILE_LAYERS = False


def _as_run(torch, model):
    """The model as the step calls it: torch.compile(model) under COMPILE_MODEL, its blocks
    around attention compiled under COMPILE_BLOCKS, its layers under COMPILE_LAYERS, else
    itself."""
    if COMPILE_BLOCKS:
        _compile_around_attention(model)
        return model
    if COMPILE_LAYERS:
        _compile_layers(torch, model)
        return model
    return torch.compile(model) if COMPILE_MODEL else model


def _compile_layers(torch, model) -> None:
    """Compile (in place) each entry of every nn.ModuleList not inside another one."""
    lists = [(n, m) for n, m in model.named_modules() if isinstance(m, torch.nn.ModuleList)]
    outer = [m for n, m in lists if not any(n.startswith(o + ".") for o, _ in lists if o != n)]
    for layers in outer:
        for layer in layers:
            layer.compile()


def _compile_for_generate(model) -> None:
    """A model its generate() calls, compiled in place under compile_savings.py's modes
    (COMPILE_MODEL: the whole model; COMPILE_BLOCKS: around attention)."""
    if COMPILE_BLOCKS:
        _compile_around_attention(model)
    elif COMPILE_MODEL:
        model.compile()


def _compile_around_attention(module) -> None:
    """Compile (nn.Module.compile, in place) the largest submodules with no attention module in
    them; an attention module with no attention module inside it (BertSelfAttention,
    LlamaAttention) stays eager, its projections included."""

    def is_attention(m) -> bool:
        return "Attention" in type(m).__name__

    def holds_attention(m) -> bool:
        return any(is_attention(d) for d in m.modules())

    if not holds_attention(module):
        module.compile()
        return
    inner = [c for c in module.children() if holds_attention(c)]
    if is_attention(module) and not inner:
        return
    for child in module.children():
        _compile_around_attention(child)


def _hf_train(
    torch,
    model,
    loss_of: Callable[[Any], Any],
    batch: int,
    config: dict,
    bf16: bool = True,
    then: Callable[[Any], None] | None = None,
) -> Built:
    """A HF model trained with fused AdamW under BF16 autocast (unless bf16 is False: FP32 with
    default flags); loss_of(model) is the loss; then(loss) as _train_step runs it."""
    model = model.cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: loss_of(run), bf16, then)
    autocast = "bf16" if bf16 else None
    return Built(step, batch, {**config, "autocast": autocast, "optimizer": "AdamW(fused)"})


def _hf_classifier_train(
    torch, model, batch: int, name: str, bf16: bool = True, channels_last: bool = False
) -> Built:
    """A HF image classifier trained on `batch` random 224 x 224 images of 1000 classes, as
    _hf_train trains (bf16 False: FP32 with default flags); channels_last puts the model and
    the images in that layout."""
    fmt = torch.channels_last if channels_last else torch.contiguous_format
    x = torch.randn(batch, 3, 224, 224, device="cuda").to(memory_format=fmt)
    y = torch.randint(0, 1000, (batch,), device="cuda")
    config = {"model": name, "images": f"{batch} x 224 x 224"}
    if channels_last:
        model, config = model.to(memory_format=fmt), {**config, "channels_last": True}
    loss_of = lambda m: m(pixel_values=x, labels=y).loss  # noqa: E731
    return _hf_train(torch, model, loss_of, batch, config, bf16=bf16)


def _causal_lm_train(torch, model, batch: int, tokens: int, name: str) -> Built:
    """A HF causal LM trained on random token ids, `batch` x `tokens`, as _hf_train trains;
    `name` is the config's model entry."""
    ids = torch.randint(0, model.config.vocab_size, (batch, tokens), device="cuda")
    config = {"model": name, "tokens": f"{batch} x {tokens}"}
    return _hf_train(torch, model, lambda m: m(input_ids=ids, labels=ids).loss, batch, config)


# ---- scenarios ----------------------------------------------------------------------------------


def resnet50_precision(variant: str) -> Built:
    torch = _torch()
    import torchvision

    model = torchvision.models.resnet50(weights=None)
    return _image_train(torch, model, "resnet50", 64, fixed=variant == "fixed", fused_adamw=False)


def _gpt2(n_layer: int = 12, n_embd: int = 768, n_head: int = 12, n_positions: int = 1024):
    torch = _torch()
    from transformers import GPT2Config, GPT2LMHeadModel

    cfg = GPT2Config(
        n_layer=n_layer, n_embd=n_embd, n_head=n_head, n_positions=n_positions, vocab_size=50304
    )
    return GPT2LMHeadModel(cfg).cuda(), cfg, torch


def gpt2_adamw_foreach(variant: str) -> Built:
    model, cfg, torch = _gpt2()
    opt = (
        torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        if variant == "fixed"
        else torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=False)
    )
    ids = torch.randint(0, cfg.vocab_size, (8, 512), device="cuda")

    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: run(input_ids=ids, labels=ids).loss)

    return Built(
        step,
        8,
        {
            "model": "gpt2-124M",
            "optimizer": "AdamW(fused=True)" if variant == "fixed" else "AdamW(foreach=False)",
            "tokens": 8 * 512,
            "autocast": "bf16",
        },
    )


def gpt2_gelu_fusion(variant: str) -> Built:
    torch = _torch()
    from transformers import GPT2Config, GPT2LMHeadModel

    # HF GPT-2's default activation "gelu_new" is tanh-GELU written as tensor arithmetic (one
    # kernel per operation); "gelu_pytorch_tanh" is the same function as one fused kernel.
    act = "gelu_pytorch_tanh" if variant == "fixed" else "gelu_new"
    cfg = GPT2Config(vocab_size=50304, activation_function=act)
    model = GPT2LMHeadModel(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (8, 512), device="cuda")

    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: run(input_ids=ids, labels=ids).loss)

    return Built(
        step,
        8,
        {
            "model": "gpt2-124M",
            "activation_function": act,
            "tokens": 8 * 512,
            "autocast": "bf16",
            "optimizer": "AdamW(fused=True)",
        },
    )


def resnet18_small_batch(variant: str) -> Built:
    return _torchvision_batch_pair("resnet18", variant)


def _torchvision_batch_pair(name: str, variant: str) -> Built:
    """A torchvision classifier trained at batch 8 (bad) vs 256 (fixed), BF16 + channels_last,
    SGD; the saving is per sample."""
    torch = _torch()
    import torchvision

    return _batch_pair(torch, getattr(torchvision.models, name)(weights=None), name, variant)


def _batch_pair(torch, model, name: str, variant: str) -> Built:
    """`model` trained at batch 8 (bad) vs 256 (fixed), BF16 + channels_last, SGD."""
    batch = 256 if variant == "fixed" else 8
    built = _image_train(torch, model, name, batch, fixed=True, fused_adamw=False)
    return replace(built, timed_steps=20)


def small_h2d_copies(variant: str) -> Built:
    torch = _torch()
    n_feat, rows, width = 128, 256, 64
    feats = [torch.randn(rows, width) for _ in range(n_feat)]  # pageable, as a collate leaves them
    pinned = torch.empty(rows, n_feat * width).pin_memory()
    model = torch.nn.Sequential(
        torch.nn.Linear(n_feat * width, 4096),
        torch.nn.GELU(),
        torch.nn.Linear(4096, 4096),
        torch.nn.GELU(),
        torch.nn.Linear(4096, 1),
    ).cuda()
    opt = torch.optim.AdamW(model.parameters(), fused=True)

    def step():
        if variant == "fixed":  # collate on the host into pinned memory, one async copy
            torch.cat(feats, dim=1, out=pinned)
            x = pinned.to("cuda", non_blocking=True)
        else:  # one blocking pageable copy per feature
            x = torch.cat([f.to("cuda") for f in feats], dim=1)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(x).float().pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return Built(
        step,
        rows,
        {
            "features": n_feat,
            "feature_shape": [rows, width],
            "copy": "pinned collated non_blocking"
            if variant == "fixed"
            else "pageable, one .to() per feature",
        },
        timed_steps=20,
    )


def gpt2_generate_b1(variant: str) -> Built:
    """GPT-2 (124M) greedy generation under BF16 autocast, 16 new tokens after a 64-token
    prompt: batch 1 (bad) vs 32 (fixed). Variant bf16_weights (a study): batch 1 with the model
    cast to BF16 once and no autocast."""
    model, cfg, torch = _gpt2()
    model.eval()
    batch = 32 if variant == "fixed" else 1
    prompt = torch.randint(0, cfg.vocab_size, (batch, 64), device="cuda")
    mask = torch.ones_like(prompt)
    cast_once = variant == "bf16_weights"
    if cast_once:
        model.to(torch.bfloat16)
    step = (_cast_once_step if cast_once else _inference_step)(
        torch,
        model.generate,
        input_ids=prompt,
        attention_mask=mask,
        max_new_tokens=16,
        min_new_tokens=16,
        do_sample=False,
        pad_token_id=0,
    )

    return Built(
        step,
        batch,
        {
            "model": "gpt2-124M",
            "prompt": 64,
            "new_tokens": 16,
            "autocast": None if cast_once else "bf16",
            **({"weights": "bf16"} if cast_once else {}),
            "kv_cache": True,
        },
        timed_steps=3,
    )


_JPEG_DIR = Path("/tmp/zoo_jpegs")


def _endless(loader) -> Callable[[], Any]:
    """A function returning the loader's next batch, starting a new epoch when one ends."""
    it = iter(())

    def next_batch():
        nonlocal it
        try:
            return next(it)
        except StopIteration:
            it = iter(loader)
            return next(it)

    return next_batch


def _make_jpegs(n: int = 1024, size: int = 256) -> list[Path]:
    import numpy as np
    from PIL import Image

    _JPEG_DIR.mkdir(exist_ok=True)
    paths = [_JPEG_DIR / f"{i:05d}.jpg" for i in range(n)]
    if all(p.exists() for p in paths):
        return paths
    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:size, 0:size]
    for i, p in enumerate(paths):  # smooth colour fields plus noise: photo-like JPEG sizes
        base = np.stack([(xx * (i % 7 + 1) + yy * (c + 1)) % 256 for c in range(3)], -1)
        img = np.clip(base + rng.normal(0, 24, base.shape), 0, 255).astype(np.uint8)
        Image.fromarray(img).save(p, quality=90)
    return paths


class _JpegDataset:
    """Decode, random crop and flip on the CPU; uint8 out (normalised on the GPU, 4x fewer bytes)."""

    def __init__(self, paths):
        from torchvision import transforms

        self.paths = paths
        self.tf = transforms.Compose(
            [
                transforms.RandomResizedCrop(224),
                transforms.RandomHorizontalFlip(),
                transforms.PILToTensor(),
            ]
        )

    def __len__(self):  # an epoch of 100 batches: prefetching never stalls at an epoch's end
        return 100 * 128

    def __getitem__(self, i):
        from PIL import Image

        with Image.open(self.paths[i % len(self.paths)]) as im:
            return self.tf(im.convert("RGB")), i % 1000


def jpeg_loader(variant: str) -> Built:
    torch = _torch()
    import torchvision

    fixed = variant == "fixed"
    ds = _JpegDataset(_make_jpegs())
    loader = torch.utils.data.DataLoader(
        ds,
        batch_size=128,
        shuffle=True,
        drop_last=True,
        num_workers=12 if fixed else 0,
        pin_memory=fixed,
        persistent_workers=fixed,
        prefetch_factor=4 if fixed else None,
    )
    model = torchvision.models.resnet50(weights=None).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, foreach=True)
    mean = torch.tensor([0.485, 0.456, 0.406], device="cuda").view(1, 3, 1, 1) * 255
    std = torch.tensor([0.229, 0.224, 0.225], device="cuda").view(1, 3, 1, 1) * 255
    next_batch = _endless(loader)

    def step():
        x, y = next_batch()
        x = x.to("cuda", non_blocking=True).to(memory_format=torch.channels_last)
        x = (x.float() - mean) / std
        y = y.to("cuda", non_blocking=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    return Built(
        step,
        128,
        {
            "model": "resnet50",
            "num_workers": 12 if fixed else 0,
            "pin_memory": fixed,
            "files": len(ds.paths),
            "epoch": len(ds),
            "decode": "PIL JPEG, crop, flip on the CPU (uint8); normalise on the GPU",
        },
        timed_steps=4,
        warmup_steps=_drain_steps(12 if fixed else 0, 4),
    )


def _rms_norm(x, w, eps=1e-6):  # by hand, as many codebases write it
    return x * (x.float().pow(2).mean(-1, keepdim=True) + eps).rsqrt().to(x.dtype) * w


def _gelu_tanh(x):  # by hand
    return 0.5 * x * (1.0 + (0.7978845608 * (x + 0.044715 * x * x * x)).tanh())


def _mlp_stack(torch, dim: int, layers: int):
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(torch.ones(dim))
            self.up = nn.Linear(dim, 4 * dim, bias=False)
            self.down = nn.Linear(4 * dim, dim, bias=False)

        def forward(self, x):
            return x + self.down(_gelu_tanh(self.up(_rms_norm(x, self.w))))

    return nn.Sequential(*[Block() for _ in range(layers)])


def fusion_mlp(variant: str) -> Built:
    torch = _torch()
    dim, layers, tokens = 1024, 8, 16384
    model = _mlp_stack(torch, dim, layers).cuda().to(torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    run = torch.compile(model) if variant == "fixed" else model
    x = torch.randn(tokens, dim, device="cuda", dtype=torch.bfloat16)

    def step():
        loss = run(x).float().pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    def eager_step():
        loss = model(x).float().pow(2).mean()
        loss.backward()
        model.zero_grad(set_to_none=True)

    return Built(
        step,
        tokens,
        {
            "dim": dim,
            "layers": layers,
            "tokens": tokens,
            "dtype": "bf16",
            "compiled": variant == "fixed",
        },
        timed_steps=10,
        flop_step=eager_step if variant == "fixed" else None,
        flops_note="FlopCounterMode over the same step run eagerly (a compiled step hides its ops)"
        if variant == "fixed"
        else None,
    )


def compile_dynamic_shapes(variant: str) -> Built:
    model, cfg, torch = _gpt2(n_layer=2, n_embd=512, n_head=8)
    import torch._dynamo  # noqa: F811  (the same torch, with its _dynamo submodule loaded)

    for knob in ("cache_size_limit", "recompile_limit"):
        if hasattr(torch._dynamo.config, knob):
            setattr(torch._dynamo.config, knob, 256)
    compiled = torch.compile(model, dynamic=False)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    batch, max_len = 16, 512
    n = 0

    def batch_ids():
        nonlocal n
        n += 1
        length = 128 + 8 * (n % 48)  # a new sequence length every step, as unpadded text gives
        ids = torch.randint(0, cfg.vocab_size, (batch, length), device="cuda")
        if variant == "fixed":  # pad every batch to one length: one graph, compiled once
            ids = torch.nn.functional.pad(ids, (0, max_len - length), value=0)
        return ids

    def step():
        ids = batch_ids()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = compiled(input_ids=ids, labels=ids).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    def eager_step():
        ids = torch.randint(
            0, cfg.vocab_size, (batch, 320 if variant == "bad" else max_len), device="cuda"
        )
        with torch.autocast("cuda", dtype=torch.bfloat16):
            model(input_ids=ids, labels=ids).loss.backward()
        model.zero_grad(set_to_none=True)

    return Built(
        step,
        batch,
        {
            "model": "gpt2 2x512",
            "dynamic": False,
            "seq_len": "128..504 changing every step"
            if variant == "bad"
            else f"padded to {max_len}",
        },
        timed_steps=1 if variant == "bad" else 10,
        flop_step=eager_step,
        quick=variant == "bad",
        flops_note="FlopCounterMode over one eager step at the mean length (bad: lengths "
        "change every step, so trace FLOPs differ per step)",
    )


def near_capacity_memory(variant: str) -> Built:
    model, cfg, torch = _gpt2(n_layer=24, n_embd=1024, n_head=16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    seq = 1024

    def run(batch):
        ids = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = model(input_ids=ids, labels=ids).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    def peak(batch):
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        run(batch)
        torch.cuda.synchronize()
        return torch.cuda.max_memory_allocated()

    # Size the batch so the un-checkpointed step peaks near 90% of the device (both variants use
    # the same batch; only the fixed one checkpoints).
    total = torch.cuda.get_device_properties(0).total_memory
    peak(2)  # the first step allocates optimizer state and library workspaces
    p2, p4 = peak(2), peak(4)
    batch = max(2, int(2 + (0.90 * total - p2) / max((p4 - p2) / 2, 1)))
    if variant == "fixed":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
    model.train()
    ids = torch.randint(0, cfg.vocab_size, (batch, seq), device="cuda")

    step = _train_step(torch, opt, lambda: model(input_ids=ids, labels=ids).loss)

    return Built(
        step,
        batch,
        {
            "model": "gpt2-medium (config)",
            "seq": seq,
            "batch": batch,
            "checkpointing": variant == "fixed",
            "sized_for_pct_of_memory": 90,
        },
        timed_steps=2,
    )


def vit_b16_healthy(variant: str, read_loss: bool = True) -> Built:
    """torchvision ViT-B/16 training, batch 64, BF16 autocast, fused AdamW, the loss read with
    .item() every step (read_loss False: not read, to time what the read costs)."""
    torch = _torch()
    import torchvision

    model = torchvision.models.vit_b_16(weights=None).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(64, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (64,), device="cuda")
    log = []
    run = _as_run(torch, model)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(run(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if read_loss:
            log.append(loss.item())  # what nearly every training loop does

    return Built(
        step,
        64,
        {
            "model": "vit_b_16",
            "autocast": "bf16",
            "optimizer": "AdamW(fused)",
            "loss_item_every_step": True,
        },
    )


def bert_inference_healthy(variant: str) -> Built:
    torch = _torch()
    from transformers import BertConfig, BertForMaskedLM

    model = BertForMaskedLM(BertConfig()).cuda().eval()
    ids = torch.randint(0, 30522, (64, 256), device="cuda")
    mask = torch.ones_like(ids)
    run = _as_run(torch, model)
    step = _inference_step(torch, run, input_ids=ids, attention_mask=mask)
    return Built(
        step,
        64,
        {
            "model": "bert-base (config)",
            "tokens": 64 * 256,
            "autocast": "bf16",
            "mode": "inference",
        },
        timed_steps=10,
    )


# ---- holdout: written and labelled after the analyzer's rules, never used to tune them ---------


def _image_train(torch, model, name: str, batch: int, fixed: bool, fused_adamw: bool) -> Built:
    """An image classifier trained on random 224x224 images: default flags (FP32, cuDNN TF32,
    NCHW) or, fixed, BF16 autocast + channels_last."""
    model = model.cuda()
    fmt = torch.channels_last if fixed else torch.contiguous_format
    model = model.to(memory_format=fmt)
    opt = (
        torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        if fused_adamw
        else torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    )
    x = torch.randn(batch, 3, 224, 224, device="cuda").to(memory_format=fmt)
    y = torch.randint(0, 1000, (batch,), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y), bf16=fixed)

    return Built(
        step,
        batch,
        {
            "model": name,
            "autocast": "bf16" if fixed else None,
            "channels_last": fixed,
            "optimizer": "AdamW(fused)" if fused_adamw else "SGD(momentum)",
            "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
            "matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        },
    )


def _timm(torch, name: str, batch: int, fixed: bool, fused_adamw: bool) -> Built:
    import timm

    model = timm.create_model(name, pretrained=False)
    return _image_train(torch, model, f"timm {name}", batch, fixed, fused_adamw)


def convnext_tiny_healthy(variant: str) -> Built:
    return _timm(_torch(), "convnext_tiny", 128, fixed=True, fused_adamw=True)


def efficientnet_precision(variant: str) -> Built:
    return _timm(_torch(), "efficientnet_b0", 128, fixed=variant == "fixed", fused_adamw=False)


# The Llama-family decoder the zoo builds (HF Llama, Qwen2): 8 layers x 1024, SwiGLU 2816.
DECODER_8X1024 = {
    "hidden_size": 1024,
    "intermediate_size": 2816,
    "num_hidden_layers": 8,
    "num_attention_heads": 16,
    # no GQA: FlopCounterMode (torch 2.11) rejects SDPA with fewer key/value heads
    "num_key_value_heads": 16,
    "vocab_size": 32000,
    "max_position_embeddings": 2048,
}


def _llama(torch):
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(**DECODER_8X1024)
    return LlamaForCausalLM(cfg).cuda(), cfg


def llama_compile(variant: str) -> Built:
    torch = _torch()
    model, cfg = _llama(torch)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    return _compiled_pair(
        torch,
        model,
        variant == "fixed",
        lambda m: m(input_ids=ids, labels=ids).loss,
        8,
        {"model": "llama (config: 8 x 1024)", "tokens": 8 * 1024, "attention": "sdpa"},
    )


# ---- holdout 2: models no rule was written against (labels fixed before capture) ---------------


def bert_large_healthy(variant: str) -> Built:
    torch = _torch()
    from transformers import BertConfig, BertForMaskedLM

    cfg = BertConfig(
        hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096
    )
    ids = torch.randint(0, cfg.vocab_size, (16, 512), device="cuda")
    return _hf_train(
        torch,
        BertForMaskedLM(cfg),
        lambda m: m(input_ids=ids, labels=ids).loss,
        16,
        {"model": "bert-large (config)", "tokens": 16 * 512},
    )


def _compiled_pair(torch, model, compiled: bool, make_loss, batch: int, config: dict) -> Built:
    """Eager vs torch.compile(model) on the same step; FLOPs counted on the eager step."""
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    run = torch.compile(model) if compiled else model

    def eager_step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = make_loss(model)
        loss.backward()
        model.zero_grad(set_to_none=True)

    return Built(
        _train_step(torch, opt, lambda: make_loss(run)),
        batch,
        {**config, "autocast": "bf16", "optimizer": "AdamW(fused)", "compiled": compiled},
        flop_step=eager_step if compiled else None,
        flops_note="FlopCounterMode over the same step run eagerly (a compiled step hides its ops)"
        if compiled
        else None,
    )


def swin_t_compile(variant: str) -> Built:
    torch = _torch()
    import torchvision

    model = torchvision.models.swin_t(weights=None).cuda()
    x = torch.randn(128, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (128,), device="cuda")
    return _compiled_pair(
        torch,
        model,
        variant == "fixed",
        lambda m: torch.nn.functional.cross_entropy(m(x), y),
        128,
        {"model": "swin_t"},
    )


def _t5_small():
    """HF T5ForConditionalGeneration at t5-small sizes (config, random weights) on the GPU, and
    its config. decoder_start_token_id: the first capture failed without it (labels shift right
    from it)."""
    from transformers import T5Config, T5ForConditionalGeneration

    cfg = T5Config(
        d_model=512, d_kv=64, d_ff=2048, num_layers=6, num_heads=8, decoder_start_token_id=0
    )
    return T5ForConditionalGeneration(cfg).cuda(), cfg


def t5_compile(variant: str) -> Built:
    torch = _torch()
    model, cfg = _t5_small()
    src = torch.randint(0, cfg.vocab_size, (32, 512), device="cuda")
    tgt = torch.randint(0, cfg.vocab_size, (32, 128), device="cuda")
    return _compiled_pair(
        torch,
        model,
        variant == "fixed",
        lambda m: m(input_ids=src, labels=tgt).loss,
        32,
        {"model": "t5-small (config)", "tokens": 32 * (512 + 128)},
    )


def opt_precision(variant: str) -> Built:
    torch = _torch()
    from transformers import OPTConfig, OPTForCausalLM

    cfg = OPTConfig(
        hidden_size=1024,
        num_hidden_layers=12,
        ffn_dim=4096,
        num_attention_heads=16,
        word_embed_proj_dim=1024,
    )
    model = OPTForCausalLM(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (8, 512), device="cuda")
    bf16 = variant == "fixed"
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: run(input_ids=ids, labels=ids).loss, bf16=bf16)

    return Built(
        step,
        8,
        {
            "model": "OPT (config: 12 x 1024)",
            "tokens": 8 * 512,
            "autocast": "bf16" if bf16 else None,
            "optimizer": "AdamW(fused)",
            "matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
        },
    )


def resnet50_infer_b1(variant: str) -> Built:
    torch = _torch()
    import torchvision

    model = torchvision.models.resnet50(weights=None).cuda().eval()
    model = model.to(memory_format=torch.channels_last)
    batch = 256 if variant == "fixed" else 1
    x = torch.randn(batch, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    run = _as_run(torch, model)
    step = _inference_step(torch, run, x)
    return Built(
        step,
        batch,
        {"model": "resnet50 inference", "autocast": "bf16", "channels_last": True},
        timed_steps=5 if batch > 1 else 50,
    )


def lstm_lm_batch(variant: str) -> Built:
    return lstm_lm(256 if variant == "fixed" else 32)


def lstm_lm(batch: int) -> Built:
    """lstm_lm_batch's model and step at any batch (benchmarks/zoo/batch_sweep.py)."""
    return _recurrent_lm("LSTM", hidden=1024, layers=2, tokens=256, batch=batch)


def _recurrent_lm(cell: str, hidden: int, layers: int, tokens: int, batch: int) -> Built:
    """A cuDNN LSTM or GRU language model (8000-token vocabulary) trained on random token ids,
    batch x tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    nn = torch.nn

    class RecurrentLM(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(8000, hidden)
            self.rnn = getattr(nn, cell)(hidden, hidden, num_layers=layers, batch_first=True)
            self.head = nn.Linear(hidden, 8000)

        def forward(self, ids):
            return self.head(self.rnn(self.emb(ids))[0])

    model = RecurrentLM().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, 8000, (batch, tokens), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(
        torch, opt, lambda: nn.functional.cross_entropy(run(ids).flatten(0, 1), ids.flatten())
    )
    return Built(
        step,
        batch,
        {
            "model": f"{layers}-layer {cell} LM (cuDNN), {hidden} hidden, {tokens} tokens",
            "autocast": "bf16",
            "optimizer": "AdamW(fused)",
        },
    )


# ---- holdout 3: more models no rule was written against (labels fixed before capture) ----------


def mobilenet_v3_precision(variant: str) -> Built:
    torch = _torch()
    import torchvision

    model = torchvision.models.mobilenet_v3_large(weights=None)
    return _image_train(
        torch, model, "mobilenet_v3_large", 256, fixed=variant == "fixed", fused_adamw=False
    )


def _hf_classifier(
    torch,
    model_cls,
    cfg,
    batch: int,
    tokens: int,
    name: str,
    bf16: bool = True,
    then: Callable[[Any], None] | None = None,
) -> Built:
    """A HF sequence classifier (4 labels) trained on random token ids, batch x tokens."""
    ids = torch.randint(5, cfg.vocab_size, (batch, tokens), device="cuda")
    y = torch.randint(0, 4, (batch,), device="cuda")
    return _hf_train(
        torch,
        model_cls(cfg),
        lambda m: m(input_ids=ids, labels=y).loss,
        batch,
        {"model": name, "tokens": batch * tokens},
        bf16,
        then,
    )


def roberta_healthy(variant: str) -> Built:
    torch = _torch()
    from transformers import RobertaConfig, RobertaForSequenceClassification

    cfg = RobertaConfig(num_labels=4)
    return _hf_classifier(
        torch, RobertaForSequenceClassification, cfg, 32, 256, "roberta-base (config)"
    )


def gpt2_eager_attention(variant: str) -> Built:
    from transformers import GPT2Config, GPT2LMHeadModel

    return _hf_attention(
        variant, GPT2LMHeadModel, GPT2Config(vocab_size=50304), 8, 1024, "gpt2-124M"
    )


def _hf_attention(
    variant: str, model_cls, cfg, batch: int, tokens: int, name: str, padded_from: int = 0
) -> Built:
    """A HF LM trained on random token ids (batch x tokens, the second half of the batch padded
    from position padded_from where given) with attn_implementation="eager" (bad) or "sdpa"
    (fixed), BF16 autocast, fused AdamW."""
    torch = _torch()
    attn = "sdpa" if variant == "fixed" else "eager"
    model = model_cls._from_config(cfg, attn_implementation=attn)
    assert model.config._attn_implementation == attn
    ids = torch.randint(0, cfg.vocab_size, (batch, tokens), device="cuda")
    extra = {}
    if padded_from:
        mask = torch.ones_like(ids)
        mask[batch // 2 :, padded_from:] = 0
        extra["attention_mask"] = mask
    return _hf_train(
        torch,
        model,
        lambda m: m(input_ids=ids, labels=ids, **extra).loss,
        batch,
        {"model": name, "attn_implementation": attn, "tokens": batch * tokens},
    )


def gpt2_item_per_microbatch(variant: str) -> Built:
    model, cfg, torch = _gpt2()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    micro = [torch.randint(0, cfg.vocab_size, (4, 512), device="cuda") for _ in range(4)]
    per_micro = variant == "bad"
    logged: list[float] = []

    def step():
        opt.zero_grad(set_to_none=True)
        total = torch.zeros((), device="cuda")
        for ids in micro:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = model(input_ids=ids, labels=ids).loss / len(micro)
            loss.backward()
            if per_micro:
                logged.append(loss.item())  # logging each micro-batch: waits for the GPU
            else:
                total += loss.detach()
        opt.step()
        if not per_micro:
            logged.append(total.item())  # once per step

    return Built(
        step,
        16,
        {
            "model": "gpt2-124M",
            "micro_batches": "4 x (4 x 512 tokens)",
            "loss_read": "per micro-batch" if per_micro else "per step",
            "autocast": "bf16",
            "optimizer": "AdamW(fused)",
        },
    )


def bart_healthy(variant: str) -> Built:
    torch = _torch()
    from transformers import BartConfig, BartForConditionalGeneration

    cfg = BartConfig()  # bart-base sizes: 6 + 6 layers x 768
    src = torch.randint(5, cfg.vocab_size, (16, 512), device="cuda")
    tgt = torch.randint(5, cfg.vocab_size, (16, 128), device="cuda")
    return _hf_train(
        torch,
        BartForConditionalGeneration(cfg),
        lambda m: m(input_ids=src, labels=tgt).loss,
        16,
        {"model": "bart-base (config)", "tokens": 16 * (512 + 128)},
    )


def regnet_healthy(variant: str) -> Built:
    return _timm(_torch(), "regnety_032", 128, fixed=True, fused_adamw=True)


def densenet_healthy(variant: str) -> Built:
    torch = _torch()
    import torchvision

    model = torchvision.models.densenet121(weights=None)
    return _image_train(torch, model, "densenet121", 128, fixed=True, fused_adamw=True)


# ---- holdout 4: labels in labels.py committed before these were first captured ------------------


def deit_small_precision(variant: str) -> Built:
    return _timm(
        _torch(), "deit_small_patch16_224", 256, fixed=variant == "fixed", fused_adamw=True
    )


def wide_resnet50_healthy(variant: str) -> Built:
    torch = _torch()
    import torchvision

    model = torchvision.models.wide_resnet50_2(weights=None)
    return _image_train(torch, model, "wide_resnet50_2", 64, fixed=True, fused_adamw=True)


def distilbert_healthy(variant: str) -> Built:
    torch = _torch()
    from transformers import DistilBertConfig, DistilBertForSequenceClassification

    cfg = DistilBertConfig(num_labels=4)
    return _hf_classifier(
        torch, DistilBertForSequenceClassification, cfg, 32, 256, "distilbert-base (config)"
    )


def bert_small_batch(variant: str) -> Built:
    torch = _torch()
    from transformers import BertConfig, BertForSequenceClassification

    batch = 2 if variant == "bad" else 32
    cfg = BertConfig(num_labels=4)
    return _hf_classifier(
        torch, BertForSequenceClassification, cfg, batch, 128, "bert-base (config)"
    )


# ---- holdout 5: more models no rule was written against (labels fixed before capture) ----------


def gru_lm_batch(variant: str) -> Built:
    return gru_lm(128 if variant == "fixed" else 16)


def gru_lm(batch: int) -> Built:
    """gru_lm_batch's model and step at any batch (benchmarks/zoo/batch_sweep.py)."""
    return _recurrent_lm("GRU", hidden=768, layers=1, tokens=128, batch=batch)


def albert_healthy(variant: str) -> Built:
    torch = _torch()
    from transformers import AlbertConfig, AlbertForSequenceClassification

    cfg = AlbertConfig(num_labels=4)  # the defaults are ALBERT-xxlarge's; base sizes below
    cfg.update({"hidden_size": 768, "num_attention_heads": 12, "intermediate_size": 3072})
    return _hf_classifier(
        torch, AlbertForSequenceClassification, cfg, 32, 256, "albert-base (config)"
    )


def resnet50d_healthy(variant: str) -> Built:
    return _timm(_torch(), "resnet50d", 128, fixed=True, fused_adamw=True)


# ---- holdout 6: labels in labels.py committed before these were first captured ------------------


def mixer_healthy(variant: str) -> Built:
    return _timm(_torch(), "mixer_b16_224", 128, fixed=True, fused_adamw=True)


def maxvit_healthy(variant: str) -> Built:
    return _timm(_torch(), "maxvit_tiny_tf_224", 64, fixed=True, fused_adamw=True)


def resnext_healthy(variant: str) -> Built:
    return _timm(_torch(), "resnext50_32x4d", 128, fixed=True, fused_adamw=True)


# ---- holdout 7: labels in labels.py committed before these were first captured ------------------


def resnet50_pageable_input(variant: str) -> Built:
    """ResNet-50 fed a FP32 batch from host memory each step, as a DataLoader without
    pin_memory hands it over: bad, pageable and a blocking .cuda(); fixed, pinned (as
    pin_memory=True leaves it) and .cuda(non_blocking=True)."""
    torch = _torch()
    import torchvision

    batch = 256
    model = torchvision.models.resnet50(weights=None).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    host_x = torch.randn(batch, 3, 224, 224)
    if variant == "fixed":
        host_x = host_x.pin_memory()
    y = torch.randint(0, 1000, (batch,), device="cuda")
    run = _as_run(torch, model)

    def loss():
        x = host_x.cuda(non_blocking=variant == "fixed").to(memory_format=torch.channels_last)
        return torch.nn.functional.cross_entropy(run(x), y)

    step = _train_step(torch, opt, loss)
    return Built(
        step,
        batch,
        {
            "model": "resnet50",
            "autocast": "bf16",
            "channels_last": True,
            "optimizer": "AdamW(fused)",
            "input": "pinned, non_blocking" if variant == "fixed" else "pageable, blocking",
        },
    )


def convnext_checkpointing(variant: str) -> Built:
    """timm ConvNeXt-S with activation checkpointing on (bad) or off (fixed), at a batch whose
    activations fit the GPU many times over."""
    torch = _torch()
    import timm

    model = timm.create_model("convnext_small", pretrained=False)
    model.set_grad_checkpointing(variant == "bad")
    built = _image_train(torch, model, "timm convnext_small", 128, fixed=True, fused_adamw=True)
    built.config["grad_checkpointing"] = variant == "bad"
    return built


def bert_large_checkpointing(variant: str) -> Built:
    """HF BERT-large masked-LM training with gradient_checkpointing_enable() (bad) or without
    (fixed), 16 x 512 tokens: the activations fit an 80 GB GPU either way."""
    torch = _torch()
    from transformers import BertConfig, BertForMaskedLM

    cfg = BertConfig(
        hidden_size=1024, num_hidden_layers=24, num_attention_heads=16, intermediate_size=4096
    )
    model = BertForMaskedLM(cfg)
    if variant == "bad":
        model.gradient_checkpointing_enable()
    model.train()
    ids = torch.randint(0, cfg.vocab_size, (16, 512), device="cuda")
    built = _hf_train(
        torch,
        model,
        lambda m: m(input_ids=ids, labels=ids).loss,
        16,
        {"model": "bert-large (config)", "tokens": 16 * 512},
    )
    built.config["gradient_checkpointing"] = variant == "bad"
    return built


def vit_infer_healthy(variant: str) -> Built:
    """timm ViT-B/16 inference, batch 256, BF16 autocast under inference_mode."""
    torch = _torch()
    import timm

    model = timm.create_model("vit_base_patch16_224", pretrained=False).cuda().eval()
    x = torch.randn(256, 3, 224, 224, device="cuda")
    run = _as_run(torch, model)
    step = _inference_step(torch, run, x)
    return Built(
        step,
        256,
        {"model": "timm vit_base_patch16_224", "autocast": "bf16", "mode": "inference"},
        timed_steps=10,
    )


# ---- holdout 8: compiled code as users ship it; labels committed before the first capture -------


def _compiled_for_capture(torch, step: Callable[[], Any], batch: int, config: dict) -> Built:
    """A step that calls compiled code, compiled (and its CUDA graphs recorded) before capture()
    sees it; FLOPs are not counted: FlopCounterMode's global module hooks make Dynamo recompile
    or fall back to eager (see run_one)."""
    for _ in range(4):
        step()
    torch.cuda.synchronize()
    return Built(
        step,
        batch,
        config,
        timed_steps=20,
        flop_step=lambda: None,
        flops_note="not counted (compiled step)",
    )


def resnet50_infer_cudagraphs(variant: str) -> Built:
    """torchvision ResNet-50 inference, batch 128, BF16 + channels_last, torch.compile(mode=
    "reduce-overhead"): the forward replays as CUDA graphs."""
    torch = _torch()
    import torchvision

    model = torchvision.models.resnet50(weights=None).cuda().eval()
    model = model.to(memory_format=torch.channels_last)
    run = torch.compile(model, mode="reduce-overhead")
    x = torch.randn(128, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    step = _inference_step(torch, run, x)
    cfg = {"model": "resnet50", "autocast": "bf16", "channels_last": True, "mode": "inference"}
    return _compiled_for_capture(
        torch, step, 128, {**cfg, "compile": "reduce-overhead", "cuda_graph": True}
    )


def _compiled_lm_train(torch, model, run, batch: int, tokens: int, config: dict) -> Built:
    """A causal LM trained through `run` (the model compiled whole, or in parts in place) on
    `batch` x `tokens` random token ids, BF16 autocast, fused AdamW; compiled before capture
    (_compiled_for_capture)."""
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, model.config.vocab_size, (batch, tokens), device="cuda")
    step = _train_step(torch, opt, lambda: run(input_ids=ids, labels=ids).loss)
    full = {**config, "autocast": "bf16", "optimizer": "AdamW(fused)"}
    return _compiled_for_capture(torch, step, batch, full)


def gpt2_compiled_train(variant: str) -> Built:
    """HF GPT-2 (124M) training, 8 x 1024 tokens, BF16 autocast, fused AdamW, the model under
    torch.compile (default mode)."""
    model, _, torch = _gpt2()
    config = {"model": "gpt2-124M", "tokens": 8 * 1024, "compile": "default"}
    return _compiled_lm_train(torch, model, torch.compile(model), 8, 1024, config)


def qwen2_lora_healthy(variant: str) -> Built:
    """HF Qwen2 (config: 8 layers x 1024) fine-tuned with peft LoRA (r=16 on the attention
    projections): BF16 base weights frozen, FP32 adapters, BF16 autocast, fused AdamW over the
    adapters, 8 x 1024 tokens."""
    torch = _torch()
    from peft import LoraConfig, get_peft_model
    from transformers import Qwen2Config, Qwen2ForCausalLM

    cfg = Qwen2Config(**DECODER_8X1024)
    base = Qwen2ForCausalLM(cfg).to(torch.bfloat16)
    lora = LoraConfig(
        r=16,
        lora_alpha=32,
        lora_dropout=0.05,
        target_modules=["q_proj", "k_proj", "v_proj", "o_proj"],
    )
    model = get_peft_model(base, lora).cuda()
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: run(input_ids=ids, labels=ids).loss)
    config = {"model": "qwen2 8x1024 (config) + LoRA r=16", "tokens": 8 * 1024, "autocast": "bf16"}
    return Built(step, 8, {**config, "optimizer": "AdamW(fused, adapters only)"})


def wav2vec2_healthy(variant: str) -> Built:
    """torchaudio wav2vec2_base with a 32-symbol CTC head, trained on 8 x 10 s of random 16 kHz
    audio, BF16 autocast, fused AdamW; CTC lengths as host integers (CPU length tensors take a
    device-mismatch error under FlopCounterMode)."""
    torch = _torch()
    import torchaudio

    model = torchaudio.models.wav2vec2_base(aux_num_out=32).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    wave = torch.randn(8, 160_000, device="cuda")
    targets = torch.randint(1, 32, (8, 200), device="cuda")
    target_lengths = (200,) * 8
    run = _as_run(torch, model)

    def loss_of():
        logits, _ = run(wave)
        logp = logits.float().log_softmax(-1).transpose(0, 1)
        frames = (logp.shape[0],) * 8
        return torch.nn.functional.ctc_loss(logp, targets, frames, target_lengths)

    step = _train_step(torch, opt, loss_of)
    config = {"model": "torchaudio wav2vec2_base + CTC head", "audio_s": 8 * 10, "autocast": "bf16"}
    return Built(step, 8, {**config, "optimizer": "AdamW(fused)"})


def gcn_healthy(variant: str) -> Built:
    """torch_geometric 3-layer GCN (256 hidden, dropout 0.5), full-batch node classification on a
    random graph of 200k nodes and 4M edges with 256 features, BF16 autocast, fused AdamW."""
    torch = _torch()
    from torch_geometric.nn import GCNConv

    nodes, edges, features, classes = 200_000, 4_000_000, 256, 16

    class GCN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            dims = [features, 256, 256, classes]
            self.convs = torch.nn.ModuleList(GCNConv(a, b) for a, b in zip(dims, dims[1:]))

        def forward(self, x, edge_index):
            for i, conv in enumerate(self.convs):
                x = conv(x, edge_index)
                if i < len(self.convs) - 1:
                    x = torch.nn.functional.dropout(x.relu(), 0.5, self.training)
            return x

    model = GCN().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    x = torch.randn(nodes, features, device="cuda")
    edge_index = torch.randint(0, nodes, (2, edges), device="cuda")
    y = torch.randint(0, classes, (nodes,), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(
        torch, opt, lambda: torch.nn.functional.cross_entropy(run(x, edge_index).float(), y)
    )
    config = {"model": "pyg GCN 3x256", "nodes": nodes, "edges": edges, "autocast": "bf16"}
    return Built(step, nodes, {**config, "optimizer": "AdamW(fused)"})


def gpt2_clip_sync(variant: str) -> Built:
    """HF GPT-2 (124M) training, 8 x 1024 tokens, BF16 autocast, fused AdamW, gradients clipped
    to norm 1.0: clip_grad_norm_(error_if_nonfinite=True), which reads the norm on the host
    mid-step (a sync between backward and the optimizer), vs the default that does not."""
    model, cfg, torch = _gpt2()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    check = variant == "bad"
    run = _as_run(torch, model)
    step = _clipped_step(torch, model, opt, lambda: run(input_ids=ids, labels=ids).loss,
                         error_if_nonfinite=check)  # fmt: skip

    config = {"model": "gpt2-124M", "tokens": 8 * 1024, "autocast": "bf16"}
    return Built(step, 8, {**config, "optimizer": "AdamW(fused)", "error_if_nonfinite": check})


# ---- holdout 10 ---------------------------------------------------------------------------------


def bert_fp16_gradscaler(variant: str) -> Built:
    """HF BERT-base sequence classifier, 32 x 256 tokens, PyTorch's default AdamW (foreach):
    FP16 autocast with a GradScaler (bad: scaler.step reads found_inf on the host before the
    optimizer runs, a sync every step, since a foreach optimizer cannot take the scale itself)
    vs BF16 autocast and no scaler (fixed)."""
    torch = _torch()
    from transformers import BertConfig, BertForSequenceClassification

    cfg = BertConfig(num_labels=4)
    model = BertForSequenceClassification(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(5, cfg.vocab_size, (32, 256), device="cuda")
    y = torch.randint(0, 4, (32,), device="cuda")
    fp16 = variant == "bad"
    scaler = torch.amp.GradScaler("cuda", enabled=fp16)
    run = _as_run(torch, model)

    def step():
        with torch.autocast("cuda", dtype=torch.float16 if fp16 else torch.bfloat16):
            loss = run(input_ids=ids, labels=y).loss
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()

    config = {"model": "bert-base (config)", "tokens": 32 * 256, "optimizer": "AdamW(foreach)"}
    return Built(step, 32, {**config, "autocast": "fp16 + GradScaler" if fp16 else "bf16"})


def deeplabv3_healthy(variant: str) -> Built:
    """torchvision DeepLabV3-ResNet50 (output stride 8, aux head) semantic segmentation training
    as torchvision's reference recipe does it (SGD with momentum and weight decay, aux loss at
    0.5), 8 x 512 x 512 images, 21 classes, BF16 autocast + channels_last."""
    torch = _torch()
    import torchvision

    model = torchvision.models.segmentation.deeplabv3_resnet50(
        weights=None, weights_backbone=None, num_classes=21, aux_loss=True
    )
    model = model.cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=1e-4)
    x = torch.randn(8, 3, 512, 512, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 21, (8, 512, 512), device="cuda")
    run = _as_run(torch, model)
    ce = torch.nn.functional.cross_entropy

    def loss_of():
        out = run(x)
        return ce(out["out"], y, ignore_index=255) + 0.5 * ce(out["aux"], y, ignore_index=255)

    step = _train_step(torch, opt, loss_of)
    config = {"model": "deeplabv3_resnet50 + aux", "image": "8x3x512x512", "autocast": "bf16"}
    return Built(step, 8, {**config, "channels_last": True, "optimizer": "SGD(momentum)"})


class _ClipDataset:
    """2 s clips of 16 kHz audio from a bank held in memory (as a cached dataset serves them);
    with mel_on_cpu, each becomes a 128-band log-mel spectrogram in __getitem__, on the CPU."""

    def __init__(self, mel_on_cpu: bool):
        import torch

        g = torch.Generator().manual_seed(0)
        self.bank = torch.randn(512, 32_000, generator=g)
        self.mel = _log_mel() if mel_on_cpu else None

    def __len__(self):  # an epoch of 100 batches: prefetching never stalls at an epoch's end
        return 100 * 256

    def __getitem__(self, i):
        wave = self.bank[i % len(self.bank)]
        return (wave if self.mel is None else self.mel(wave)), i % 35


def _log_mel():
    import torch
    import torchaudio

    mel = torchaudio.transforms.MelSpectrogram(16_000, n_fft=1024, hop_length=160, n_mels=128)
    return torch.nn.Sequential(mel, torchaudio.transforms.AmplitudeToDB())


def audio_mel_loader(variant: str) -> Built:
    """A ResNet-18 keyword classifier (1-channel input, 35 classes) trained on log-mel
    spectrograms of 2 s clips, batch 256, BF16 autocast + channels_last, 4 DataLoader workers
    (pinned, persistent) in both variants: the spectrogram computed per clip on the CPU in the
    Dataset (bad) vs the workers handing over raw audio and the spectrogram computed for the
    whole batch on the GPU (fixed)."""
    torch = _torch()
    import torchvision

    fixed = variant == "fixed"
    loader = torch.utils.data.DataLoader(
        _ClipDataset(mel_on_cpu=not fixed),
        batch_size=256,
        shuffle=True,
        drop_last=True,
        num_workers=4,
        pin_memory=True,
        persistent_workers=True,
    )
    model = torchvision.models.resnet18(weights=None, num_classes=35)
    model.conv1 = torch.nn.Conv2d(1, 64, 7, 2, 3, bias=False)
    model = model.cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    gpu_mel = _log_mel().cuda() if fixed else None
    run = _as_run(torch, model)
    next_batch = _endless(loader)

    def step():
        x, y = next_batch()
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        if gpu_mel is not None:
            x = gpu_mel(x)
        x = x.unsqueeze(1).contiguous(memory_format=torch.channels_last)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(run(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    config = {
        "model": "resnet18 (1-channel) on 128-band log-mel, 2 s clips at 16 kHz",
        "num_workers": 4,
        "log_mel": "GPU, per batch" if fixed else "CPU, per clip in the Dataset",
        "autocast": "bf16",
    }
    config = {**config, "optimizer": "AdamW(fused)"}
    return Built(step, 256, config, timed_steps=4, warmup_steps=_drain_steps(4))


def convnext_linear_probe_healthy(variant: str) -> Built:
    """A linear probe: timm ConvNeXt-S with its backbone frozen (requires_grad=False), the
    classifier head trained, batch 256, BF16 autocast + channels_last, fused AdamW over the
    head."""
    torch = _torch()
    import timm

    model = timm.create_model("convnext_small", pretrained=False, num_classes=100)
    model = model.cuda().to(memory_format=torch.channels_last)
    model.requires_grad_(False)
    head = model.get_classifier()
    head.requires_grad_(True)
    opt = torch.optim.AdamW(head.parameters(), lr=1e-3, fused=True)
    x = torch.randn(256, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 100, (256,), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y))
    config = {"model": "timm convnext_small, backbone frozen", "autocast": "bf16"}
    return Built(step, 256, {**config, "channels_last": True, "optimizer": "AdamW(fused, head)"})


# ---- holdout 11 ---------------------------------------------------------------------------------


def vit_s_grad_accumulation(variant: str) -> Built:
    """timm ViT-S/16 training, 128 images a step, BF16 autocast, fused AdamW: 8 micro-batches of
    16 with gradient accumulation (bad) vs one batch of 128 (fixed)."""
    torch = _torch()
    import timm

    model = timm.create_model("vit_small_patch16_224", pretrained=False).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    micro = 8 if variant == "bad" else 1
    xs = [torch.randn(128 // micro, 3, 224, 224, device="cuda") for _ in range(micro)]
    ys = [torch.randint(0, 1000, (128 // micro,), device="cuda") for _ in range(micro)]
    run = _as_run(torch, model)

    def step():
        opt.zero_grad(set_to_none=True)
        for x, y in zip(xs, ys):
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = torch.nn.functional.cross_entropy(run(x), y) / micro
            loss.backward()
        opt.step()

    config = {"model": "timm vit_small_patch16_224", "micro_batches": f"{micro} x {128 // micro}"}
    return Built(step, 128, {**config, "autocast": "bf16", "optimizer": "AdamW(fused)"})


def effnetv2_eval_host_preds(variant: str) -> Built:
    """torchvision EfficientNet-V2-S evaluation, batch 64 at 384 x 384, BF16 autocast +
    channels_last under inference_mode: each batch's predicted classes copied to the host as
    they come (bad: .cpu() waits for the GPU every batch) vs kept on the GPU (fixed)."""
    torch = _torch()
    import torchvision

    model = torchvision.models.efficientnet_v2_s(weights=None).cuda().eval()
    model = model.to(memory_format=torch.channels_last)
    x = torch.randn(64, 3, 384, 384, device="cuda").to(memory_format=torch.channels_last)
    to_host = variant == "bad"
    preds: list = []
    run = _as_run(torch, model)

    def step():
        with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16):
            p = run(x).argmax(-1)
        preds.append(p.cpu() if to_host else p)
        if len(preds) >= 100:  # an evaluation epoch's worth, then the metric
            preds.clear()

    config = {"model": "efficientnet_v2_s eval", "image": "64x3x384x384", "autocast": "bf16"}
    return Built(step, 64, {**config, "predictions": "to host per batch" if to_host else "on GPU"})


def convnext_channels_last(variant: str) -> Built:
    """torchvision ConvNeXt-S training, batch 64, BF16 autocast, fused AdamW: the default memory
    format, NCHW (bad) vs channels_last for the model and its input (fixed)."""
    torch = _torch()
    import torchvision

    fmt = torch.channels_last if variant == "fixed" else torch.contiguous_format
    model = torchvision.models.convnext_small(weights=None).cuda().to(memory_format=fmt)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=fmt)
    y = torch.randint(0, 1000, (64,), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y))
    config = {"model": "torchvision convnext_small", "channels_last": variant == "fixed"}
    return Built(step, 64, {**config, "autocast": "bf16", "optimizer": "AdamW(fused)"})


# ---- holdout 12 ---------------------------------------------------------------------------------


def _hf_moe_experts(model_cls, cfg, variant: str, config: dict, inference: bool = False) -> Built:
    """An HF mixture-of-experts causal LM built from `cfg`, in BF16 weights on 8 x 1024 tokens,
    trained with fused AdamW (inference: a forward pass under torch.inference_mode, in eval
    mode): transformers' eager experts backend (variant "bad": a Python loop over the experts
    the router picked, reading each one's token indices from the GPU) vs
    experts_implementation="grouped_mm" (one grouped GEMM per projection)."""
    torch = _torch()
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")

    def train_step(impl: str) -> Callable[[], None]:
        # a config of its own: the experts read their backend from the config object at every
        # forward, and _from_config sets it on the object it is given (a shared one let the
        # eager FLOP twin, built second, switch the grouped_mm model back to the loop)
        model = model_cls._from_config(copy.deepcopy(cfg), experts_implementation=impl)
        assert getattr(model.config, "_experts_implementation", impl) == impl
        model = model.to(torch.bfloat16).cuda()
        run = _as_run(torch, model)
        if inference:
            model.eval()

            def forward():
                with torch.inference_mode():
                    run(input_ids=ids)

            return forward
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)

        def step():
            loss = run(input_ids=ids, labels=ids).loss
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()

        return step

    impl = "grouped_mm" if variant == "fixed" else "eager"
    config = {**config, "tokens": 8 * 1024}
    config |= {"dtype": "bf16 weights", "experts": impl}
    config |= {"mode": "inference"} if inference else {"optimizer": "AdamW(fused)"}
    if impl == "eager":
        return Built(train_step(impl), 8, config)
    # FlopCounterMode has no formula for aten::_grouped_mm: count the eager backend on the same
    # config (every token still goes through its top-k experts, whatever the router picks)
    note = "FlopCounterMode on the eager experts backend, same config (no _grouped_mm formula)"
    step, twin = train_step(impl), train_step("eager")
    return Built(step, 8, config, flop_step=twin, flops_note=note)


# Mixtral's mixture of experts at DECODER_8X1024's widths: 8 experts of 1792, a token's top 2
# (PhiMoE takes the same keys)
MIXTRAL_8X1024 = {
    **DECODER_8X1024,
    "intermediate_size": 1792,
    "num_local_experts": 8,
    "num_experts_per_tok": 2,
}


def mixtral_moe_experts(variant: str) -> Built:
    """HF Mixtral (config: 8 layers x 1024, 8 experts, top-2) trained in BF16 weights with fused
    AdamW, 8 x 1024 tokens: transformers' eager experts backend, a Python loop over the experts
    the router picked (one nonzero per layer and one torch.where per expert: host reads of
    device values), vs experts_implementation="grouped_mm" (one grouped GEMM per projection)."""
    from transformers import MixtralConfig, MixtralForCausalLM

    cfg = MixtralConfig(**MIXTRAL_8X1024)
    config = {"model": "mixtral 8x1024 (config), 8 experts top-2"}
    return _hf_moe_experts(MixtralForCausalLM, cfg, variant, config)


def nn_transformer_healthy(variant: str) -> Built:
    """A plain PyTorch nn.TransformerEncoder (12 pre-norm layers, d_model 1024, 16 heads, GELU,
    batch_first) trained on 16 x 512 random embeddings with a regression loss, BF16 autocast,
    fused AdamW: no HF, no timm."""
    torch = _torch()
    layer = torch.nn.TransformerEncoderLayer(
        1024, 16, 4096, dropout=0.1, activation="gelu", batch_first=True, norm_first=True
    )
    model = torch.nn.TransformerEncoder(layer, 12, enable_nested_tensor=False).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(16, 512, 1024, device="cuda")
    target = torch.randn(16, 512, 1024, device="cuda")
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: torch.nn.functional.mse_loss(run(x).float(), target))
    config = {"model": "nn.TransformerEncoder 12 x 1024 pre-norm", "tokens": 16 * 512}
    return Built(step, 16, {**config, "autocast": "bf16", "optimizer": "AdamW(fused)"})


def r3d_video_precision(variant: str) -> Built:
    """torchvision R3D-18 video classifier (3D convolutions) trained on 16 clips of 16 x 112 x 112
    frames, SGD with momentum: default flags (FP32, cuDNN TF32, NCDHW) vs BF16 autocast +
    channels_last_3d."""
    torch = _torch()
    import torchvision

    fixed = variant == "fixed"
    fmt = torch.channels_last_3d if fixed else torch.contiguous_format
    model = torchvision.models.video.r3d_18(weights=None, num_classes=400).cuda()
    model = model.to(memory_format=fmt)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(16, 3, 16, 112, 112, device="cuda").to(memory_format=fmt)
    y = torch.randint(0, 400, (16,), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y), bf16=fixed)
    config = {"model": "torchvision r3d_18", "clip": "16x3x16x112x112", "optimizer": "SGD"}
    return Built(
        step, 16, {**config, "autocast": "bf16" if fixed else None, "channels_last": fixed}
    )


# ---- holdout 13 ---------------------------------------------------------------------------------


def gpt2_empty_cache(variant: str) -> Built:
    """HF GPT-2 (124M) training, 8 x 512 tokens, BF16 autocast, fused AdamW: torch.cuda.
    empty_cache() after every step, as code does "to avoid OOM" (bad; the caching allocator
    hands its blocks back and the next step allocates them again), vs not (fixed)."""
    model, cfg, torch = _gpt2()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (8, 512), device="cuda")
    empty = variant == "bad"
    run = _as_run(torch, model)
    train = _train_step(torch, opt, lambda: run(input_ids=ids, labels=ids).loss)

    def step():
        train()
        if empty:
            torch.cuda.empty_cache()

    config = {"model": "gpt2-124M", "tokens": 8 * 512, "autocast": "bf16"}
    return Built(step, 8, {**config, "optimizer": "AdamW(fused)", "empty_cache_each_step": empty})


def vit_ema_loop(variant: str) -> Built:
    """timm ViT-B/16 training, batch 64, BF16 autocast, fused AdamW, with an exponential moving
    average of the weights updated after every step: a Python loop over the parameters (bad; two
    kernels per parameter, as older EMA helpers do) vs one torch._foreach_lerp_ (fixed)."""
    torch = _torch()
    import timm

    model = timm.create_model("vit_base_patch16_224", pretrained=False).cuda()
    ema = [p.detach().clone() for p in model.parameters()]
    params = [p.detach() for p in model.parameters()]
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(64, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (64,), device="cuda")
    run = _as_run(torch, model)
    train = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y))
    loop = variant == "bad"

    def step():
        train()
        with torch.no_grad():
            if loop:
                for e, p in zip(ema, params):
                    e.mul_(0.999).add_(p, alpha=0.001)
            else:
                torch._foreach_lerp_(ema, params, 0.001)

    config = {"model": "timm vit_base_patch16_224", "autocast": "bf16", "optimizer": "AdamW(fused)"}
    return Built(step, 64, {**config, "ema": "python loop" if loop else "foreach_lerp_"})


def whisper_healthy(variant: str) -> Built:
    """HF Whisper (config: whisper-base sizes, 6 + 6 layers, d_model 512) speech-to-text training
    on 16 x 30 s of random 80-band log-mel features and 128-token transcripts, BF16 autocast,
    fused AdamW."""
    return _whisper_train(None)


def _whisper_train(attn: str | None) -> Built:
    """whisper_healthy's run, with attn_implementation=attn where given (else the default)."""
    torch = _torch()
    from transformers import WhisperConfig, WhisperForConditionalGeneration

    cfg = WhisperConfig(
        d_model=512,
        encoder_layers=6,
        decoder_layers=6,
        encoder_attention_heads=8,
        decoder_attention_heads=8,
        encoder_ffn_dim=2048,
        decoder_ffn_dim=2048,
    )
    if attn is None:
        model = WhisperForConditionalGeneration(cfg)
    else:
        model = WhisperForConditionalGeneration._from_config(cfg, attn_implementation=attn)
        assert model.config._attn_implementation == attn
    feats = torch.randn(16, 80, 3000, device="cuda")
    labels = torch.randint(0, cfg.vocab_size, (16, 128), device="cuda")
    config = {"model": "whisper-base (config)", "audio_s": 16 * 30, "tokens": 16 * 128}
    return _hf_train(
        torch,
        model,
        lambda m: m(input_features=feats, labels=labels).loss,
        16,
        config if attn is None else {**config, "attn_implementation": attn},
    )


# ---- holdout 14 ---------------------------------------------------------------------------------


def resnet50_host_mixup(variant: str) -> Built:
    """torchvision ResNet-50 training, batch 128, BF16 autocast + channels_last, fused AdamW,
    with mixup (a Beta(0.4, 0.4) blend of the batch with a shuffled copy of itself): done in
    numpy on the host, the batch copied down and back every step (bad), vs in torch on the GPU
    (fixed)."""
    torch = _torch()
    import numpy as np
    import torchvision

    model = torchvision.models.resnet50(weights=None).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(128, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (128,), device="cuda")
    rng = np.random.default_rng(0)
    on_host = variant == "bad"
    run = _as_run(torch, model)

    def mixed():
        lam = float(rng.beta(0.4, 0.4))
        if on_host:
            xb = x.cpu().numpy()
            perm = rng.permutation(len(xb))
            out = torch.from_numpy(lam * xb + (1 - lam) * xb[perm]).cuda()
        else:
            perm = torch.randperm(len(x), device="cuda")
            out = lam * x + (1 - lam) * x[perm]
        return out.contiguous(memory_format=torch.channels_last), lam, perm

    def loss_of():
        xm, lam, perm = mixed()
        logits = run(xm)
        ce = torch.nn.functional.cross_entropy
        perm = torch.as_tensor(perm, device="cuda")
        return lam * ce(logits, y) + (1 - lam) * ce(logits, y[perm])

    step = _train_step(torch, opt, loss_of)
    config = {"model": "resnet50", "autocast": "bf16", "channels_last": True}
    return Built(step, 128, {**config, "mixup": "numpy on the host" if on_host else "torch on GPU"})


def vit_host_augment(variant: str) -> Built:
    """timm ViT-S/16 training, batch 128, BF16 autocast, fused AdamW, with a random crop (4-pixel
    reflect pad, one shift per batch) and a per-sample horizontal flip each step: in numpy on
    the host, the batch coming back as uint8 and rescaled on the GPU (bad), vs in torch on the
    GPU (fixed)."""
    torch = _torch()
    import numpy as np
    import timm

    model = timm.create_model("vit_small_patch16_224", pretrained=False).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.rand(128, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (128,), device="cuda")
    rng = np.random.default_rng(0)
    on_host = variant == "bad"
    run = _as_run(torch, model)

    def augmented():
        dy, dx = (int(v) for v in rng.integers(0, 9, 2))
        flip = rng.random(len(x)) < 0.5
        if on_host:
            xb = x.cpu().numpy()
            xb = np.pad(xb, ((0, 0), (0, 0), (4, 4), (4, 4)), mode="reflect")
            xb = xb[:, :, dy : dy + 224, dx : dx + 224]
            xb = np.where(flip[:, None, None, None], xb[..., ::-1], xb)
            u8 = torch.from_numpy(np.ascontiguousarray(xb * 255).astype(np.uint8)).cuda()
            return u8.float() / 255
        xp = torch.nn.functional.pad(x, (4, 4, 4, 4), mode="reflect")[
            :, :, dy : dy + 224, dx : dx + 224
        ]
        mask = torch.from_numpy(flip).to("cuda", non_blocking=True)[:, None, None, None]
        return torch.where(mask, xp.flip(3), xp)

    def loss_of():
        return torch.nn.functional.cross_entropy(run(augmented()), y)

    step = _train_step(torch, opt, loss_of)
    config = {"model": "timm vit_small_patch16_224", "autocast": "bf16"}
    where = "numpy on the host, back as uint8" if on_host else "torch on GPU"
    return Built(step, 128, {**config, "augmentation": where})


def resnet50_ohem_host_topk(variant: str) -> Built:
    """torchvision ResNet-50 training, batch 128, BF16 + channels_last, fused AdamW, with online
    hard-example mining: the per-sample losses ranked and the hardest half kept, by numpy on the
    host (the 128 losses copied down, the chosen indices copied back: a sync each step) (bad),
    vs torch.topk on the GPU (fixed)."""
    torch = _torch()
    import numpy as np
    import torchvision

    model = torchvision.models.resnet50(weights=None).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(128, 3, 224, 224, device="cuda").contiguous(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (128,), device="cuda")
    on_host = variant == "bad"
    run = _as_run(torch, model)

    def loss_of():
        losses = torch.nn.functional.cross_entropy(run(x), y, reduction="none")
        if on_host:
            hardest = np.argsort(-losses.detach().float().cpu().numpy())[:64]
            keep = torch.from_numpy(hardest).cuda()
        else:
            keep = torch.topk(losses.detach(), 64).indices
        return losses[keep].mean()

    step = _train_step(torch, opt, loss_of)
    config = {"model": "resnet50", "autocast": "bf16", "channels_last": True}
    where = "numpy argsort on the host" if on_host else "torch.topk on GPU"
    return Built(step, 128, {**config, "hard_example_mining": where})


def _dcgan(torch, nz: int = 100):
    """DCGAN's generator and discriminator for 64 x 64 RGB images (Radford et al.)."""
    nn = torch.nn
    g = nn.Sequential(
        nn.ConvTranspose2d(nz, 512, 4, 1, 0, bias=False), nn.BatchNorm2d(512), nn.ReLU(True),
        nn.ConvTranspose2d(512, 256, 4, 2, 1, bias=False), nn.BatchNorm2d(256), nn.ReLU(True),
        nn.ConvTranspose2d(256, 128, 4, 2, 1, bias=False), nn.BatchNorm2d(128), nn.ReLU(True),
        nn.ConvTranspose2d(128, 64, 4, 2, 1, bias=False), nn.BatchNorm2d(64), nn.ReLU(True),
        nn.ConvTranspose2d(64, 3, 4, 2, 1, bias=False), nn.Tanh(),
    )  # fmt: skip
    d = nn.Sequential(
        nn.Conv2d(3, 64, 4, 2, 1, bias=False), nn.LeakyReLU(0.2, True),
        nn.Conv2d(64, 128, 4, 2, 1, bias=False), nn.BatchNorm2d(128), nn.LeakyReLU(0.2, True),
        nn.Conv2d(128, 256, 4, 2, 1, bias=False), nn.BatchNorm2d(256), nn.LeakyReLU(0.2, True),
        nn.Conv2d(256, 512, 4, 2, 1, bias=False), nn.BatchNorm2d(512), nn.LeakyReLU(0.2, True),
        nn.Conv2d(512, 1, 4, 1, 0, bias=False), nn.Flatten(),
    )  # fmt: skip
    return g.cuda(), d.cuda()


def dcgan_small_batch(variant: str) -> Built:
    """DCGAN on 64 x 64 images, the discriminator and then the generator updated each step with
    Adam (betas 0.5, 0.999, PyTorch's default foreach), BF16 autocast: batch 64 as the paper's
    recipe (bad) vs batch 512 (fixed)."""
    torch = _torch()
    batch = 512 if variant == "fixed" else 64
    g, d = _dcgan(torch)
    opt_g = torch.optim.Adam(g.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(d.parameters(), lr=2e-4, betas=(0.5, 0.999))
    real = torch.rand(batch, 3, 64, 64, device="cuda") * 2 - 1
    ones = torch.ones(batch, 1, device="cuda")
    zeros = torch.zeros(batch, 1, device="cuda")
    bce = torch.nn.functional.binary_cross_entropy_with_logits

    def step():
        z = torch.randn(batch, 100, 1, 1, device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            fake = g(z)
            loss_d = bce(d(real), ones) + bce(d(fake.detach()), zeros)
        opt_d.zero_grad(set_to_none=True)
        loss_d.backward()
        opt_d.step()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss_g = bce(d(fake), ones)
        opt_g.zero_grad(set_to_none=True)
        loss_g.backward()
        opt_g.step()

    config = {"model": "DCGAN 64x64 (G + D)", "autocast": "bf16", "optimizer": "Adam(foreach)"}
    return Built(step, batch, config)


def distillation_healthy(variant: str) -> Built:
    """Knowledge distillation: a torchvision ResNet-50 teacher in eval under no_grad and a
    ResNet-18 student trained on the teacher's softened logits (KL at temperature 4) plus the
    labels, batch 128, BF16 autocast + channels_last, fused AdamW on the student."""
    torch = _torch()
    import torchvision

    cl = torch.channels_last
    teacher = torchvision.models.resnet50(weights=None).cuda().eval().to(memory_format=cl)
    student = torchvision.models.resnet18(weights=None).cuda().to(memory_format=cl)
    opt = torch.optim.AdamW(student.parameters(), lr=1e-4, fused=True)
    x = torch.randn(128, 3, 224, 224, device="cuda").to(memory_format=cl)
    y = torch.randint(0, 1000, (128,), device="cuda")
    run, teach = _as_run(torch, student), _as_run(torch, teacher)
    f = torch.nn.functional

    def loss_of():
        with torch.no_grad():
            soft = f.log_softmax(teach(x).float() / 4, -1)
        logits = run(x).float()
        kd = f.kl_div(f.log_softmax(logits / 4, -1), soft, log_target=True, reduction="batchmean")
        return 16 * kd + f.cross_entropy(logits, y)

    step = _train_step(torch, opt, loss_of)
    config = {"model": "resnet50 teacher -> resnet18 student", "autocast": "bf16"}
    return Built(step, 128, {**config, "channels_last": True, "optimizer": "AdamW(fused)"})


# ---- holdout 16 ---------------------------------------------------------------------------------


def gpt2_loss_item(variant: str) -> Built:
    """HF GPT-2 (124M) training, 8 x 1024 tokens, BF16 autocast, fused AdamW, the loss logged
    every step: loss.item() appended to a list after the optimizer step (bad: the read waits for
    the step's GPU work, so the next step starts from an empty queue) vs loss.detach() summed on
    the GPU and read once per logging interval, outside the profiled steps (fixed)."""
    model, cfg, torch = _gpt2()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    run = _as_run(torch, model)
    read = variant == "bad"
    log = _loss_logger(torch, read)
    step = _train_step(torch, opt, lambda: run(input_ids=ids, labels=ids).loss, then=log)
    config = {"model": "gpt2-124M", "tokens": 8 * 1024, "autocast": "bf16"}
    how = "loss.item() every step" if read else "summed on the GPU, read per interval"
    return Built(step, 8, {**config, "optimizer": "AdamW(fused)", "loss_logging": how})


def bert_mlm_masked_select(variant: str) -> Built:
    """HF BERT-base masked-LM training, 32 x 256 tokens with 15% of positions masked, BF16
    autocast, fused AdamW: the 30522-way prediction head and the loss on the masked positions
    only, picked by boolean indexing (bad: hidden[labels != -100] needs the count on the host, a
    sync every step, but runs the head on 15% of the positions) vs the head on every position and
    cross_entropy's ignore_index (fixed: no sync, 6.7x the head's work)."""
    torch = _torch()
    from transformers import BertConfig, BertForMaskedLM

    cfg = BertConfig()
    model = BertForMaskedLM(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (32, 256), device="cuda")
    masked = torch.rand(32, 256, device="cuda") < 0.15
    labels = torch.where(masked, ids, -100)
    encoder, head = _as_run(torch, model.bert), _as_run(torch, model.cls)
    select = variant == "bad"
    cross_entropy = torch.nn.functional.cross_entropy

    def loss_of():
        hidden = encoder(input_ids=ids).last_hidden_state
        if select:
            keep = labels != -100
            return cross_entropy(head(hidden[keep]), labels[keep])
        return cross_entropy(head(hidden).flatten(0, 1), labels.flatten(), ignore_index=-100)

    step = _train_step(torch, opt, loss_of)
    config = {"model": "bert-base MLM (config)", "tokens": 32 * 256, "autocast": "bf16"}
    how = "masked positions (boolean index)" if select else "every position (ignore_index)"
    return Built(step, 32, {**config, "optimizer": "AdamW(fused)", "head_on": how})


def llama_long_context_healthy(variant: str) -> Built:
    """HF Llama (config: 8 layers x 1024, SwiGLU 2816, 16 heads) trained on 2 sequences of 8192
    tokens, SDPA attention (causal), BF16 autocast, fused AdamW: at this context attention's
    matmuls are a large share of the step's FLOPs."""
    torch = _torch()
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(**{**DECODER_8X1024, "max_position_embeddings": 8192})
    ids = torch.randint(0, cfg.vocab_size, (2, 8192), device="cuda")
    return _hf_train(
        torch,
        LlamaForCausalLM(cfg),
        lambda m: m(input_ids=ids, labels=ids).loss,
        2,
        {"model": "llama (config: 8 x 1024)", "tokens": 2 * 8192, "attention": "sdpa"},
    )


# ---- holdout 17: common host reads on models no rule was written from (labels before capture) --


def resnet50_loss_item(variant: str) -> Built:
    """torchvision ResNet-50 training, batch 128, BF16 autocast + channels_last, SGD with
    momentum, the loss logged every step: loss.item() after the optimizer step (bad) vs the loss
    summed on the GPU and read once per logging interval, outside the profiled steps (fixed)."""
    torch = _torch()
    import torchvision

    model = torchvision.models.resnet50(weights=None).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    x = torch.randn(128, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (128,), device="cuda")
    run = _as_run(torch, model)
    read = variant == "bad"
    log = _loss_logger(torch, read)
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y), then=log)
    how = "loss.item() every step" if read else "summed on the GPU, read per interval"
    config = {"model": "resnet50", "autocast": "bf16", "channels_last": True}
    return Built(step, 128, {**config, "optimizer": "SGD(momentum)", "loss_logging": how})


def vit_step_timer_sync(variant: str) -> Built:
    """timm ViT-S/16 training, batch 128, BF16 autocast, fused AdamW, with a throughput logger:
    torch.cuda.synchronize() and time.perf_counter() after every step (bad) vs CUDA events
    recorded around the step and read once per logging interval (fixed)."""
    torch = _torch()
    import time

    import timm

    model = timm.create_model("vit_small_patch16_224", pretrained=False).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(128, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (128,), device="cuda")
    run = _as_run(torch, model)
    synced = variant == "bad"
    times: list[float] = []
    events: list = []

    def timer(_loss) -> None:
        if synced:
            torch.cuda.synchronize()
            times.append(time.perf_counter())
        else:
            end = torch.cuda.Event(enable_timing=True)
            end.record()
            events.append(end)
            del events[:-2]  # a real logger reads the pair per interval; keep two

    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y), then=timer)

    how = "cuda.synchronize + perf_counter per step" if synced else "CUDA events, read per interval"
    config = {"model": "vit_small_patch16_224", "autocast": "bf16", "optimizer": "AdamW(fused)"}
    return Built(step, 128, {**config, "step_timer": how})


def roberta_skip_nonfinite(variant: str) -> Built:
    """HF RoBERTa-base sequence classification fine-tuning, 32 x 256 tokens, BF16 autocast, fused
    AdamW, gradients clipped to 1.0; bad: the step is skipped when the gradient norm is not
    finite, read on the host between backward and the optimizer (if not norm.isfinite(): a sync
    mid-step); fixed: the same clip with no read (a non-finite norm would be caught by checking
    the loss per logging interval)."""
    torch = _torch()
    from transformers import RobertaConfig, RobertaForSequenceClassification

    cfg = RobertaConfig(num_labels=3)
    model = RobertaForSequenceClassification(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5, fused=True)
    ids = torch.randint(3, cfg.vocab_size, (32, 256), device="cuda")
    labels = torch.randint(0, 3, (32,), device="cuda")
    run = _as_run(torch, model)
    check = variant == "bad"

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = run(input_ids=ids, labels=labels).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        if check and not torch.isfinite(norm):
            return
        opt.step()

    config = {"model": "roberta-base seq-cls (config)", "tokens": 32 * 256, "autocast": "bf16"}
    how = "host check of the norm each step" if check else "no host check"
    return Built(step, 32, {**config, "optimizer": "AdamW(fused)", "nonfinite_check": how})


# ---- holdout 18: debugging reads that cost more, on models no rule was written from -------------


def vit_activation_monitor(variant: str) -> Built:
    """timm ViT-S/16 training, batch 128, BF16 autocast, fused AdamW, with an activation monitor:
    a forward hook on each of the 12 blocks. Bad: the hook logs the block output's abs-max with
    .item() (12 host reads in the forward, each draining the GPU); fixed: it stacks the same
    statistic on the GPU, read once per logging interval outside the profiled steps."""
    read = variant == "bad"
    step, config = _vit_s_monitored(128, read, bf16=True)
    return Built(step, 128, {**config, "autocast": "bf16"})


def _vit_s_monitored(batch: int, read: bool, bf16: bool) -> tuple[Callable[[], None], dict]:
    """timm ViT-S/16 training at `batch`, fused AdamW, a forward hook on each of the 12 blocks
    logging its output's abs-max: with .item() (read) or stacked on the GPU. The step (BF16
    autocast where bf16) and its config."""
    torch = _torch()
    import timm

    model = timm.create_model("vit_small_patch16_224", pretrained=False).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(batch, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (batch,), device="cuda")
    logged: list = []

    def monitor(_module, _inputs, out):
        stat = out.detach().abs().amax()
        logged.append(stat.item() if read else stat)
        del logged[:-64]

    for block in model.blocks:
        block.register_forward_hook(monitor)
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y), bf16)
    how = "abs-max .item() per block" if read else "abs-max kept on the GPU"
    return step, {
        "model": "vit_small_patch16_224",
        "optimizer": "AdamW(fused)",
        "activation_monitor": how,
    }


def gpt2_grad_norm_logging(variant: str) -> Built:
    """HF GPT-2 (124M) training, 8 x 1024 tokens, BF16 autocast, fused AdamW, logging every
    parameter's gradient norm after backward. Bad: p.grad.norm().item() per parameter tensor (148
    host reads a step); fixed: torch._foreach_norm over the gradients, stacked on the GPU and read
    once per logging interval outside the profiled steps."""
    model, cfg, torch = _gpt2()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    run = _as_run(torch, model)
    params = [p for p in model.parameters() if p.requires_grad]
    read = variant == "bad"
    logged: list = []

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = run(input_ids=ids, labels=ids).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if read:
            logged.append([p.grad.norm().item() for p in params])
        else:
            logged.append(torch.stack(torch._foreach_norm([p.grad for p in params])))
        del logged[:-8]
        opt.step()

    config = {"model": "gpt2-124M", "tokens": 8 * 1024, "autocast": "bf16"}
    how = "p.grad.norm().item() per tensor" if read else "_foreach_norm kept on the GPU"
    return Built(step, 8, {**config, "optimizer": "AdamW(fused)", "grad_norm_logging": how})


# ---- holdout 19 ---------------------------------------------------------------------------------
# FP32 training whose host reads the GPU inside the step, so the host and the GPU take turns:
# does precision's promise hold there? Each builder takes "bad" (FP32, default flags, the reads),
# "fixed" (the same reads under BF16 autocast) and "unread" (FP32 without the reads: timed only,
# to tell whether the reads cost enough that sync_stall is a diagnosis too).


def vit_fp32_activation_monitor(variant: str) -> Built:
    """timm ViT-S/16 training, batch 64, fused AdamW, a forward hook on each of the 12 blocks
    logging its output's abs-max with .item(): FP32 (default flags) vs BF16 autocast."""
    fixed = variant == "fixed"
    step, config = _vit_s_monitored(64, read=variant != "unread", bf16=fixed)
    return Built(step, 64, {**config, "autocast": "bf16" if fixed else None})


def bert_fp32_loss_checks(variant: str) -> Built:
    """HF BERT-base sequence classifier, 32 x 128 tokens, fused AdamW, the loss checked for
    non-finite values (`if not torch.isfinite(loss)`) and logged with .item() after each step:
    FP32 (default flags) vs BF16 autocast."""
    torch = _torch()
    from transformers import BertConfig, BertForSequenceClassification

    read = variant != "unread"
    logged: list[float] = []

    def check_and_log(loss) -> None:
        if not read:
            return
        if not torch.isfinite(loss):
            raise FloatingPointError("loss is not finite")
        logged.append(loss.item())
        del logged[:-64]

    name, bf16 = "bert-base (config)", variant == "fixed"
    model_cls, cfg = BertForSequenceClassification, BertConfig(num_labels=4)
    built = _hf_classifier(torch, model_cls, cfg, 32, 128, name, bf16, check_and_log)
    built.config["loss_reads"] = "isfinite check + loss.item()" if read else None
    return built


def resnet18_fp32_metrics(variant: str) -> Built:
    """torchvision ResNet-18 training, batch 32, SGD with momentum, the loss and the batch's
    accuracy read with .item() after each step (a progress bar's numbers): default flags (FP32,
    cuDNN TF32, NCHW) vs BF16 autocast + channels_last."""
    torch = _torch()
    import torchvision

    fixed = variant == "fixed"
    fmt = torch.channels_last if fixed else torch.contiguous_format
    model = torchvision.models.resnet18(weights=None).cuda().to(memory_format=fmt)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(32, 3, 224, 224, device="cuda").to(memory_format=fmt)
    y = torch.randint(0, 1000, (32,), device="cuda")
    run = _as_run(torch, model)
    read = variant != "unread"
    shown: list[tuple[float, float]] = []

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16, enabled=fixed):
            logits = run(x)
            loss = torch.nn.functional.cross_entropy(logits, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        hits = (logits.argmax(1) == y).sum()
        shown.append((loss.item(), hits.item()) if read else (loss.detach(), hits))
        del shown[:-64]

    config = {"model": "torchvision resnet18", "optimizer": "SGD(momentum)"}
    reads = "loss.item() + accuracy .item()" if read else None
    return Built(
        step,
        32,
        {**config, "autocast": "bf16" if fixed else None, "channels_last": fixed, "reads": reads},
    )


# ---- holdout 20 ---------------------------------------------------------------------------------
# FP32 training with default flags against BF16 autocast (+ channels_last for the CNNs), no host
# reads: where does BF16's measured saving fall against precision's promise (the host at the
# profiler's low share) and its saving at the median share?


def gpt2_fp32_precision(variant: str) -> Built:
    """HF GPT-2 (124M) training, 8 x 512 tokens, fused AdamW: FP32 vs BF16 autocast."""
    model, cfg, torch = _gpt2()
    ids = torch.randint(0, cfg.vocab_size, (8, 512), device="cuda")
    loss_of = lambda m: m(input_ids=ids, labels=ids).loss  # noqa: E731
    config = {"model": "gpt2-124M", "tokens": 8 * 512}
    return _hf_train(torch, model, loss_of, 8, config, bf16=variant == "fixed")


def distilbert_fp32_precision(variant: str) -> Built:
    """HF DistilBERT sequence classifier, 16 x 128 tokens, fused AdamW: FP32 vs BF16 autocast.
    "bad_b64" and "fixed_b64" (timed only) run 64 sequences a step, to tell whether the batch is
    small."""
    torch = _torch()
    from transformers import DistilBertConfig, DistilBertForSequenceClassification

    cfg = DistilBertConfig(num_labels=4)
    name = "distilbert-base (config)"
    model_cls = DistilBertForSequenceClassification
    batch = 64 if variant.endswith("_b64") else 16
    bf16 = variant.startswith("fixed")
    return _hf_classifier(torch, model_cls, cfg, batch, 128, name, bf16=bf16)


def swin_t_fp32_precision(variant: str) -> Built:
    """torchvision Swin-T training, batch 64, fused AdamW: default flags (FP32, cuDNN TF32, NCHW)
    vs BF16 autocast + channels_last."""
    torch = _torch()
    import torchvision

    model = torchvision.models.swin_t(weights=None)
    return _image_train(torch, model, "torchvision swin_t", 64, variant == "fixed", True)


def convnext_tiny_fp32_precision(variant: str) -> Built:
    """timm ConvNeXt-T training, batch 64, fused AdamW: default flags (FP32, cuDNN TF32, NCHW)
    vs BF16 autocast + channels_last."""
    return _timm(_torch(), "convnext_tiny", 64, fixed=variant == "fixed", fused_adamw=True)


# ---- holdout 21 ---------------------------------------------------------------------------------
# Three kinds on models no rule was written against, after precision's GPU-side estimate moved to
# BF16 kernels at 0.4 of the datasheet peak and no elementwise saving behind LayerNorm/RMSNorm:
# a Llama decoder (hand-written RMSNorm) in FP32, text tokenised by the slow (pure Python)
# BertTokenizer in too few DataLoader workers, and a SegFormer segmentation run at a normal size.


def llama_fp32_precision(variant: str) -> Built:
    """HF Llama (config: 8 layers x 1024, SwiGLU 2816, 16 heads), 4 x 512 tokens, fused AdamW:
    FP32 (default flags) vs BF16 autocast."""
    torch = _torch()
    model, cfg = _llama(torch)
    ids = torch.randint(0, cfg.vocab_size, (4, 512), device="cuda")
    loss_of = lambda m: m(input_ids=ids, labels=ids).loss  # noqa: E731
    config = {"model": "llama (config: 8 x 1024)", "tokens": 4 * 512, "attention": "sdpa"}
    return _hf_train(torch, model, loss_of, 4, config, bf16=variant == "fixed")


def _word_vocab(path: Path, words: int = 20_000) -> list[str]:
    """A WordPiece vocabulary file of BERT's special tokens, `words` made-up lowercase words and
    each as a ##suffix (so two words run together split into two pieces); returns the words."""
    import random

    rng = random.Random(0)
    letters = "abcdefghijklmnopqrstuvwxyz"
    found: set[str] = set()
    while len(found) < words:
        found.add("".join(rng.choice(letters) for _ in range(rng.randint(3, 9))))
    vocab = sorted(found)
    special = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    path.write_text("\n".join(special + vocab + ["##" + w for w in vocab]) + "\n")
    return vocab


class _TextDataset:
    """Made-up English-like documents (about 150 words, a few run together, capitalised and
    punctuated), tokenised in __getitem__ by transformers' slow BertTokenizer: the per-sample
    Python work a DataLoader's workers do when text is tokenised on the fly."""

    def __init__(self, vocab_file: Path, vocab: list[str], max_length: int):
        import random

        try:  # transformers 5: the pure-Python tokenizer kept as BertTokenizerLegacy
            from transformers.models.bert.tokenization_bert_legacy import (
                BertTokenizerLegacy as BertTokenizer,
            )
        except ImportError:  # transformers 4: BertTokenizer is the pure-Python one
            from transformers import BertTokenizer

        self.tok = BertTokenizer(str(vocab_file), do_lower_case=True)
        self.max_length = max_length
        rng = random.Random(1)
        self.docs = []
        for _ in range(512):
            words = []
            for _ in range(150):
                w = rng.choice(vocab)
                if rng.random() < 0.1:
                    w += rng.choice(vocab)
                if rng.random() < 0.1:
                    w = w.capitalize()
                words.append(w + ("," if rng.random() < 0.08 else ""))
            self.docs.append(" ".join(words) + ".")

    def __len__(self):  # 100 batches of 32 an epoch: prefetching never stalls at an epoch's end
        return 100 * 32

    def __getitem__(self, i):
        enc = self.tok(self.docs[i % len(self.docs)], truncation=True, max_length=self.max_length)
        return {"input_ids": enc["input_ids"]}


def bert_tokenize_loader(variant: str) -> Built:
    """HF BERT-base masked-LM training, 32 x 128 tokens, BF16 autocast, fused AdamW, on text the
    Dataset tokenises with the slow BertTokenizer, masked by DataCollatorForLanguageModeling
    (15%): 1 DataLoader worker (bad) vs 12 (fixed), pinned and persistent in both."""
    torch = _torch()
    import tempfile

    from transformers import BertConfig, BertForMaskedLM, DataCollatorForLanguageModeling

    vocab_file = Path(tempfile.mkdtemp()) / "vocab.txt"
    vocab = _word_vocab(vocab_file)
    data = _TextDataset(vocab_file, vocab, max_length=128)
    workers = 12 if variant == "fixed" else 1
    loader = torch.utils.data.DataLoader(
        data,
        batch_size=32,
        shuffle=True,
        drop_last=True,
        num_workers=workers,
        pin_memory=True,
        persistent_workers=True,
        collate_fn=DataCollatorForLanguageModeling(data.tok, mlm_probability=0.15),
    )
    cfg = BertConfig(vocab_size=len(data.tok.vocab))
    model = BertForMaskedLM(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    run = _as_run(torch, model)
    next_batch = _endless(loader)

    def loss_of():
        b = next_batch()
        ids = b["input_ids"].cuda(non_blocking=True)
        labels = b["labels"].cuda(non_blocking=True)
        return run(input_ids=ids, labels=labels).loss

    step = _train_step(torch, opt, loss_of)
    config = {
        "model": "bert-base MLM (config)",
        "tokens": "32 x <=128 (padded to the batch's longest)",
        "tokenizer": "BertTokenizer (slow, in the Dataset)",
        "num_workers": workers,
        "autocast": "bf16",
        "optimizer": "AdamW(fused)",
    }
    return Built(step, 32, config, timed_steps=4, warmup_steps=_drain_steps(workers))


def segformer_healthy(variant: str) -> Built:
    """HF SegFormer (config: mit-b2 sizes) semantic segmentation training, 8 images at 512 x 512,
    150 classes, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import SegformerConfig, SegformerForSemanticSegmentation

    cfg = SegformerConfig(
        depths=[3, 4, 6, 3],
        hidden_sizes=[64, 128, 320, 512],
        decoder_hidden_size=768,
        num_labels=150,
    )
    model = SegformerForSemanticSegmentation(cfg)
    x = torch.randn(8, 3, 512, 512, device="cuda")
    y = torch.randint(0, 150, (8, 512, 512), device="cuda")
    loss_of = lambda m: m(pixel_values=x, labels=y).loss  # noqa: E731
    config = {"model": "segformer (config: mit-b2 sizes)", "image": "8x3x512x512"}
    return _hf_train(torch, model, loss_of, 8, config)


# ---- holdout 22 ---------------------------------------------------------------------------------
# Host- and launch-bound steps on code no rule was written from: a small MLP (an RL policy or
# tabular model) trained eagerly vs replayed as one CUDA graph, and a ResNet-18 whose loss is
# computed sample by sample in a Python loop vs in one call.


def _mlp_policy(torch):
    """4 x 256 tanh MLP from 64 features to 8 outputs (a PPO-sized policy/value network)."""
    layers, d_in = [], 64
    for _ in range(4):
        layers += [torch.nn.Linear(d_in, 256), torch.nn.Tanh()]
        d_in = 256
    return torch.nn.Sequential(*layers, torch.nn.Linear(256, 8)).cuda()


def mlp_policy_cudagraph(variant: str) -> Built:
    """A 4 x 256 MLP regressed on 512 random samples a step, FP32, Adam: eager (bad; "bad_b8192"
    times 8192 samples a step, to tell whether the batch is small) vs the whole step (forward,
    backward, capturable Adam) captured once in a CUDA graph and replayed (fixed), as PyTorch's
    CUDA-graph docs capture a whole network."""
    torch = _torch()
    batch = 8192 if variant == "bad_b8192" else 512
    model = _mlp_policy(torch)
    graphed = variant == "fixed"
    opt = torch.optim.Adam(model.parameters(), lr=3e-4, capturable=graphed)
    x = torch.randn(batch, 64, device="cuda")
    y = torch.randn(batch, 8, device="cuda")
    run = _as_run(torch, model)

    def eager_step():
        loss = torch.nn.functional.mse_loss(run(x), y)
        opt.zero_grad(set_to_none=False)
        loss.backward()
        opt.step()

    config = {"model": "MLP 64-256x4-8 (tanh)", "optimizer": "Adam", "precision": "fp32"}
    if not graphed:
        return Built(eager_step, batch, {**config, "cuda_graph": False})
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm up on a side stream before capture, as the docs do
        for _ in range(3):
            eager_step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        eager_step()
    return Built(graph.replay, batch, {**config, "cuda_graph": True}, flop_step=eager_step)


def resnet18_per_sample_loss(variant: str) -> Built:
    """torchvision ResNet-18 training, batch 64, BF16 autocast + channels_last, fused AdamW, with
    a label-smoothed cross-entropy computed sample by sample in a Python loop and averaged (bad)
    vs in one call over the batch (fixed)."""
    torch = _torch()
    import torchvision

    model = torchvision.models.resnet18(weights=None).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (64,), device="cuda")
    ce = torch.nn.functional.cross_entropy
    run = _as_run(torch, model)

    def per_sample():
        logits = run(x)
        return sum(ce(logits[i : i + 1], y[i : i + 1], label_smoothing=0.1) for i in range(64)) / 64

    def batched():
        return ce(run(x), y, label_smoothing=0.1)

    step = _train_step(torch, opt, batched if variant == "fixed" else per_sample)
    config = {
        "model": "resnet18",
        "loss": "one call" if variant == "fixed" else "per sample, Python loop",
        "autocast": "bf16",
        "channels_last": True,
        "optimizer": "AdamW(fused)",
    }
    return Built(step, 64, config)


def fasterrcnn_healthy(variant: str) -> Built:
    """torchvision Faster R-CNN (ResNet-50 FPN v2, random weights) training on 4 random 640 x 640
    images (resized to 800 by the model's transform) with 12 random boxes each, BF16 autocast,
    SGD with momentum and weight decay as torchvision's detection reference trains it."""
    return _detection_train("fasterrcnn_resnet50_fpn_v2", images=4, boxes=12)


def _detection_train(name: str, images: int, boxes: int, masks: bool = False) -> Built:
    """A torchvision detector (random weights) trained on `images` random 640 x 640 images with
    `boxes` random boxes each (and, with masks, each box's rectangle as its instance mask), BF16
    autocast, SGD with momentum and weight decay as torchvision's detection reference trains
    it."""
    torch = _torch()
    import torchvision

    detection = torchvision.models.detection
    model = getattr(detection, name)(weights=None, weights_backbone=None).cuda()
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.SGD(params, lr=0.02, momentum=0.9, weight_decay=1e-4)
    pixels = [torch.rand(3, 640, 640, device="cuda") for _ in range(images)]
    targets = []
    for _ in range(images):
        corner = torch.rand(boxes, 2, device="cuda") * 480
        size = 32 + torch.rand(boxes, 2, device="cuda") * 128
        box = torch.cat([corner, corner + size], dim=1)
        target = {"boxes": box, "labels": torch.randint(1, 91, (boxes,), device="cuda")}
        if masks:
            grid = torch.arange(640, device="cuda")
            x0, y0, x1, y1 = (box[:, i, None] for i in range(4))
            cols = (grid >= x0) & (grid < x1)
            rows = (grid >= y0) & (grid < y1)
            target["masks"] = (rows[:, :, None] & cols[:, None, :]).to(torch.uint8)
        targets.append(target)
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: sum(run(pixels, targets).values()))
    config = {
        "model": f"torchvision {name}",
        "images": f"{images} x 640 x 640, {boxes} boxes each",
        "autocast": "bf16",
        "optimizer": "SGD(momentum, weight decay)",
    }
    return Built(step, images, config)


def clip_healthy(variant: str) -> Built:
    """HF CLIP (config: ViT-B/32 image tower, 12-layer text tower) contrastive training on 256
    random images and 77-token captions, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import CLIPConfig, CLIPModel

    cfg = CLIPConfig()
    ids = torch.randint(0, cfg.text_config.vocab_size, (256, 77), device="cuda")
    pixels = torch.randn(256, 3, 224, 224, device="cuda")
    return _hf_train(
        torch,
        CLIPModel(cfg),
        lambda m: m(input_ids=ids, pixel_values=pixels, return_loss=True).loss,
        256,
        {"model": "HF CLIP ViT-B/32 (config)", "batch": "256 images, 256 x 77 tokens"},
    )


def _resnet50_adamw(torch, then: Callable[[Any], None] | None = None) -> tuple[Any, Callable]:
    """(model, step): torchvision ResNet-50 trained on 64 random 224 x 224 images, BF16 autocast
    + channels_last, fused AdamW; then(loss) as _train_step runs it."""
    import torchvision

    model = torchvision.models.resnet50(weights=None).cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (64,), device="cuda")
    run = _as_run(torch, model)

    def loss_of():
        return torch.nn.functional.cross_entropy(run(x), y)

    return model, _train_step(torch, opt, loss_of, then=then)


def resnet50_detect_anomaly(variant: str) -> Built:
    """torchvision ResNet-50 training, batch 64, BF16 autocast + channels_last, fused AdamW, with
    autograd's anomaly detection left on (bad: torch.autograd.set_detect_anomaly(True), as a
    debugging session leaves it; it checks every backward node's output for NaN on the host)
    vs off (fixed)."""
    torch = _torch()
    _, step = _resnet50_adamw(torch)
    anomaly = variant == "bad"
    torch.autograd.set_detect_anomaly(anomaly)
    config = {
        "model": "resnet50",
        "autocast": "bf16",
        "channels_last": True,
        "optimizer": "AdamW(fused)",
        "detect_anomaly": anomaly,
    }
    return Built(step, 64, config)


# ---- holdout 24 ---------------------------------------------------------------------------------


def qwen3_moe_experts(variant: str) -> Built:
    """HF Qwen3-MoE (config: 8 layers x 1024, 16 experts of width 512, top-4, 16 heads)
    trained in BF16 weights with fused AdamW, 8 x 1024 tokens: the eager experts loop vs
    experts_implementation="grouped_mm"."""
    from transformers import Qwen3MoeConfig, Qwen3MoeForCausalLM

    # DECODER_8X1024 has no grouped-query attention: with 4 key/value heads the first capture
    # failed in FlopCounterMode's SDPA formula
    cfg = Qwen3MoeConfig(
        **DECODER_8X1024,
        moe_intermediate_size=512,
        head_dim=64,
        num_experts=16,
        num_experts_per_tok=4,
        decoder_sparse_step=1,
        mlp_only_layers=[],
    )
    config = {"model": "qwen3-moe 8x1024 (config), 16 experts of 512, top-4"}
    return _hf_moe_experts(Qwen3MoeForCausalLM, cfg, variant, config)


def moe_split_loop(variant: str) -> Built:
    """A hand-written mixture-of-experts stack in plain PyTorch (no HF): 8 residual layers of
    RMSNorm + a SwiGLU MoE FFN (d_model 1024, 8 experts of width 2048, top-2, weights stacked as
    [experts, in, out] BF16 parameters) on 8,192 random tokens, an MSE loss, fused AdamW. Tokens
    are sorted by expert; the bad variant reads the per-expert counts with .tolist() (one sync
    a layer) and runs each expert's slice as its own matmuls in a Python loop (torchtitan's
    for-loop reference); the fixed one runs each projection as one torch._grouped_mm over the
    sorted tokens, the counts staying on the GPU as offsets."""
    torch = _torch()
    F = torch.nn.functional
    d, width, experts, top, layers = 1024, 2048, 8, 2, 8

    class MoE(torch.nn.Module):
        def __init__(self, grouped: bool):
            super().__init__()
            self.grouped = grouped
            self.router = torch.nn.Linear(d, experts, bias=False)
            self.w1 = torch.nn.Parameter(torch.randn(experts, d, width) * d**-0.5)
            self.w3 = torch.nn.Parameter(torch.randn(experts, d, width) * d**-0.5)
            self.w2 = torch.nn.Parameter(torch.randn(experts, width, d) * width**-0.5)

        def forward(self, x):
            probs = self.router(x).float().softmax(-1)
            weight, chosen = probs.topk(top, dim=-1)
            chosen = chosen.flatten()
            order = chosen.argsort()
            token = order // top
            xs = x[token]
            counts = torch.bincount(chosen, minlength=experts)
            if self.grouped:
                offs = counts.cumsum(0).to(torch.int32)
                h = F.silu(torch._grouped_mm(xs, self.w1, offs=offs))
                h = h * torch._grouped_mm(xs, self.w3, offs=offs)
                ys = torch._grouped_mm(h, self.w2, offs=offs)
            else:
                outs = []
                for e, xe in enumerate(torch.split(xs, counts.tolist())):
                    outs.append((F.silu(xe @ self.w1[e]) * (xe @ self.w3[e])) @ self.w2[e])
                ys = torch.cat(outs)
            ys = ys * weight.flatten()[order].unsqueeze(-1).to(ys.dtype)
            return torch.zeros_like(x).index_add_(0, token, ys)

    class Stack(torch.nn.Module):
        def __init__(self, grouped: bool):
            super().__init__()
            self.norms = torch.nn.ModuleList(torch.nn.RMSNorm(d) for _ in range(layers))
            self.moes = torch.nn.ModuleList(MoE(grouped) for _ in range(layers))

        def forward(self, x):
            for norm, moe in zip(self.norms, self.moes):
                x = x + moe(norm(x))
            return x

    x = torch.randn(8192, d, device="cuda", dtype=torch.bfloat16)
    target = torch.randn(8192, d, device="cuda", dtype=torch.bfloat16)

    def train_step(grouped: bool) -> Callable[[], None]:
        model = Stack(grouped).to(torch.bfloat16).cuda()
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        run = _as_run(torch, model)
        return _train_step(torch, opt, lambda: F.mse_loss(run(x).float(), target.float()), False)

    impl = "torch._grouped_mm" if variant == "fixed" else "per-expert loop, counts.tolist()"
    config = {"model": "hand-written MoE stack, 8 x (RMSNorm + SwiGLU MoE 8x2048 top-2)"}
    config |= {"tokens": 8192, "dtype": "bf16 weights", "optimizer": "AdamW(fused)"}
    config["experts"] = impl
    if variant != "fixed":
        return Built(train_step(False), 8192, config)
    # FlopCounterMode has no formula for aten::_grouped_mm (holdout 24's capture counted only
    # the router's mm): count the loop on the same model, whose FLOPs the routing does not change
    note = "FlopCounterMode on the per-expert loop variant, same model and tokens (no _grouped_mm formula)"
    return Built(train_step(True), 8192, config, flop_step=train_step(False), flops_note=note)


# ---- holdout 25 ---------------------------------------------------------------------------------


def _pythia_160m_config():
    """GPT-NeoX at Pythia-160M's sizes: 12 layers x 768, 12 heads, rotary embeddings on a quarter
    of each head, parallel attention and MLP."""
    from transformers import GPTNeoXConfig

    return GPTNeoXConfig(
        hidden_size=768,
        num_hidden_layers=12,
        num_attention_heads=12,
        intermediate_size=3072,
        vocab_size=50304,
        max_position_embeddings=2048,
        rotary_pct=0.25,
        use_parallel_residual=True,
    )


def pythia_grad_accum_healthy(variant: str) -> Built:
    """HF GPT-NeoX at Pythia-160M sizes (12 x 768, partial rotary, parallel residual) trained as
    an HF Trainer step does it: 4 micro-batches of 8 x 512 tokens accumulated under BF16
    autocast, clip_grad_norm_(1.0), fused AdamW, a cosine learning-rate schedule stepped each
    step; the loss summed on the GPU and never read inside the step."""
    torch = _torch()
    from transformers import GPTNeoXForCausalLM

    model = GPTNeoXForCausalLM._from_config(_pythia_160m_config()).cuda()
    run = _as_run(torch, model)
    opt = torch.optim.AdamW(model.parameters(), lr=6e-4, fused=True)
    schedule = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10_000)
    micro = [torch.randint(0, model.config.vocab_size, (8, 512), device="cuda") for _ in range(4)]
    running = torch.zeros((), device="cuda")

    def step():
        for ids in micro:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = run(input_ids=ids, labels=ids).loss / len(micro)
            loss.backward()
            running.add_(loss.detach())
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        schedule.step()
        opt.zero_grad(set_to_none=True)

    config = {"model": "gpt-neox at pythia-160m sizes (config)", "micro_batches": "4 x (8 x 512)"}
    config |= {"autocast": "bf16", "optimizer": "AdamW(fused)", "clip_grad_norm": 1.0}
    return Built(step, 32, {**config, "lr_schedule": "cosine"})


def caformer_healthy(variant: str) -> Built:
    """timm CAFormer-S18 (MetaFormer: separable-conv token mixers, then attention; StarReLU)
    trained on 224 x 224 images, batch 128, BF16 autocast + channels_last, fused AdamW."""
    return _timm(_torch(), "caformer_s18", 128, fixed=True, fused_adamw=True)


def deberta_v3_healthy(variant: str) -> Built:
    """HF DeBERTa-v3 (base sizes: 12 x 768, relative position buckets, disentangled attention)
    sequence classifier trained on 16 x 512 tokens, BF16 autocast, fused AdamW."""
    return _deberta_v3_train(bf16=True)


def _deberta_v3_train(bf16: bool) -> Built:
    """deberta_v3_healthy's model and batch, under BF16 autocast or (not bf16) in FP32 with
    default flags."""
    torch = _torch()
    from transformers import DebertaV2Config, DebertaV2ForSequenceClassification

    cfg = DebertaV2Config(
        hidden_size=768,
        num_hidden_layers=12,
        num_attention_heads=12,
        intermediate_size=3072,
        vocab_size=128100,
        max_position_embeddings=512,
        relative_attention=True,
        position_buckets=256,
        max_relative_positions=-1,
        pos_att_type=["p2c", "c2p"],
        norm_rel_ebd="layer_norm",
        share_att_key=True,
        position_biased_input=False,
        num_labels=2,
    )
    model = DebertaV2ForSequenceClassification._from_config(cfg).cuda()
    run = _as_run(torch, model)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (16, 512), device="cuda")
    labels = torch.randint(0, 2, (16,), device="cuda")
    step = _train_step(torch, opt, lambda: run(input_ids=ids, labels=labels).loss, bf16)
    config = {"model": "deberta-v3-base sizes (config)", "tokens": "16 x 512"}
    autocast = "bf16" if bf16 else None
    return Built(step, 16, {**config, "autocast": autocast, "optimizer": "AdamW(fused)"})


# ---- holdout 26 ---------------------------------------------------------------------------------


def qwen2_moe_eval_experts(variant: str) -> Built:
    """HF Qwen2-MoE (config: 8 layers x 1024, 8 routed experts of width 704, top-2, and a shared
    expert of width 2816 beside them) in inference: a forward pass over 8 x 1024 tokens under
    torch.inference_mode, BF16 weights: the eager experts loop vs grouped_mm."""
    from transformers import Qwen2MoeConfig, Qwen2MoeForCausalLM

    cfg = Qwen2MoeConfig(
        **DECODER_8X1024,
        moe_intermediate_size=704,
        shared_expert_intermediate_size=2816,
        num_experts=8,
        num_experts_per_tok=2,
        decoder_sparse_step=1,
        mlp_only_layers=[],
    )
    config = {"model": "qwen2-moe 8x1024 (config), 8 experts of 704 top-2 + shared expert"}
    return _hf_moe_experts(Qwen2MoeForCausalLM, cfg, variant, config, inference=True)


# OLMoE's mixture of experts at DECODER_8X1024's widths: 32 experts of 512, a token's top 4
OLMOE_8X1024 = {
    **DECODER_8X1024,
    "intermediate_size": 512,
    "num_experts": 32,
    "num_experts_per_tok": 4,
}


def olmoe_experts(variant: str) -> Built:
    """HF OLMoE (config: 8 layers x 1024, 32 experts of width 512, top-4) trained in BF16
    weights with fused AdamW, 8 x 1024 tokens: the eager experts loop vs grouped_mm."""
    from transformers import OlmoeConfig, OlmoeForCausalLM

    cfg = OlmoeConfig(**OLMOE_8X1024)
    config = {"model": "olmoe 8x1024 (config), 32 experts of 512 top-4"}
    return _hf_moe_experts(OlmoeForCausalLM, cfg, variant, config)


# ---- holdout 27 ---------------------------------------------------------------------------------


def mobilevit_healthy(variant: str) -> Built:
    """timm MobileViT-S (MobileNetV2 blocks, then transformer blocks over unfolded patches)
    trained on 256 x 256 images, batch 128, BF16 autocast + channels_last, fused AdamW."""
    torch = _torch()
    import timm

    model = timm.create_model("mobilevit_s", pretrained=False).cuda()
    model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(128, 3, 256, 256, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (128,), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y))
    config = {"model": "timm mobilevit_s", "image": 256, "autocast": "bf16"}
    return Built(step, 128, {**config, "channels_last": True, "optimizer": "AdamW(fused)"})


def mistral_prefill_healthy(variant: str) -> Built:
    """HF Mistral (config: 8 layers x 1024, SwiGLU 2816, 16 heads, sliding window 4096) in
    inference: one forward pass over 4 x 2048 tokens (a prefill) under torch.inference_mode, BF16
    weights, SDPA attention."""
    torch = _torch()
    from transformers import MistralConfig, MistralForCausalLM

    cfg = MistralConfig(**{**DECODER_8X1024, "max_position_embeddings": 4096}, sliding_window=4096)
    model = MistralForCausalLM(cfg).to(torch.bfloat16).cuda().eval()
    ids = torch.randint(0, cfg.vocab_size, (4, 2048), device="cuda")
    run = _as_run(torch, model)
    step = _inference_step(torch, run, input_ids=ids)
    config = {"model": "mistral 8x1024 (config)", "tokens": "4 x 2048", "dtype": "bf16 weights"}
    return Built(step, 4, {**config, "mode": "inference", "attention": "sdpa"}, timed_steps=10)


def gpt2_reduce_overhead_healthy(variant: str) -> Built:
    """HF GPT-2 (124M) training on 8 x 512 tokens, BF16 autocast, fused AdamW, the model under
    torch.compile(mode="reduce-overhead"): its forward and backward replay as CUDA graphs."""
    model, cfg, torch = _gpt2()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    run = torch.compile(model, mode="reduce-overhead")
    ids = torch.randint(0, cfg.vocab_size, (8, 512), device="cuda")
    step = _train_step(torch, opt, lambda: run(input_ids=ids, labels=ids).loss)
    config = {"model": "gpt2-124M", "tokens": 8 * 512, "autocast": "bf16"}
    return _compiled_for_capture(
        torch, step, 8, {**config, "optimizer": "AdamW(fused)", "compile": "reduce-overhead"}
    )


def bert_per_sample_embed(variant: str) -> Built:
    """HF BERT-base encoder (BertModel) embedding 64 sentences of 128 tokens for retrieval, BF16
    autocast, inference mode: one sentence at a time in a Python loop (bad, as code written for
    one query ends up called per item) vs the 64 as one batch (fixed). Same work per step."""
    torch = _torch()
    from transformers import BertConfig, BertModel

    model = BertModel(BertConfig()).cuda().eval()
    ids = torch.randint(0, 30522, (64, 128), device="cuda")
    run = _as_run(torch, model)

    def embed_each():
        return [run(input_ids=ids[i : i + 1]).last_hidden_state[:, 0] for i in range(len(ids))]

    def embed_batch():
        return run(input_ids=ids).last_hidden_state[:, 0]

    step = _inference_step(torch, embed_each if variant == "bad" else embed_batch)
    how = "one sentence per call, 64 calls" if variant == "bad" else "one call of 64"
    config = {"model": "bert-base encoder (config)", "sentences": "64 x 128 tokens", "calls": how}
    return Built(step, 64, {**config, "autocast": "bf16", "mode": "inference"}, timed_steps=10)


def vit_l_fp32_inference(variant: str) -> Built:
    """torchvision ViT-L/16 inference on 64 images of 224 x 224: default flags (FP32, matmuls
    without TF32) vs BF16 autocast."""
    torch = _torch()
    import torchvision

    model = torchvision.models.vit_l_16(weights=None).cuda().eval()
    x = torch.randn(64, 3, 224, 224, device="cuda")
    run = _as_run(torch, model)
    bf16 = variant == "fixed"

    def step():
        with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16):
            run(x)

    config = {
        "model": "torchvision vit_l_16",
        "mode": "inference",
        "autocast": "bf16" if bf16 else None,
    }
    config["matmul_allow_tf32"] = torch.backends.cuda.matmul.allow_tf32
    return Built(step, 64, config, timed_steps=10)


# ---- holdout 28 ---------------------------------------------------------------------------------


def shufflenet_loader_workers(variant: str) -> Built:
    """torchvision ShuffleNet-V2 (x1.0) trained on real JPEGs (decode, random resized crop and
    flip in the DataLoader's workers; uint8 batches, normalised on the GPU), batch 128, BF16 +
    channels_last, SGD: 2 workers (bad) vs 12 (fixed), pinned memory and persistent workers on
    both."""
    torch = _torch()
    import torchvision

    ds = _JpegDataset(_make_jpegs())
    model = torchvision.models.shufflenet_v2_x1_0(weights=None)
    return _worker_fed_train(
        torch,
        ds,
        model,
        12 if variant == "fixed" else 2,
        {"model": "torchvision shufflenet_v2_x1_0"},
        {"decode": "PIL JPEG, crop, flip in the workers (uint8)"},
    )


def _worker_fed_train(torch, ds, model, workers: int, name: dict, how: dict) -> Built:
    """An image classifier trained on `ds`'s uint8 batches of 128 from `workers` DataLoader
    workers (pinned memory, persistent workers, prefetch 4; 0 loads in the main process),
    normalised on the GPU, BF16 autocast
    + channels_last, SGD with momentum (foreach); `name` and `how` go into the config around the
    loader's settings."""
    loader = torch.utils.data.DataLoader(
        ds,
        batch_size=128,
        shuffle=True,
        drop_last=True,
        num_workers=workers,
        pin_memory=True,
        persistent_workers=workers > 0,  # 0: loaded in the main process, which takes neither
        prefetch_factor=4 if workers else None,
    )
    model = model.cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, foreach=True)
    mean = torch.tensor([0.485, 0.456, 0.406], device="cuda").view(1, 3, 1, 1) * 255
    std = torch.tensor([0.229, 0.224, 0.225], device="cuda").view(1, 3, 1, 1) * 255
    next_batch = _endless(loader)
    run = _as_run(torch, model)

    def loss_of():
        x, y = next_batch()
        x = x.to("cuda", non_blocking=True).to(memory_format=torch.channels_last)
        x = (x.float() - mean) / std
        return torch.nn.functional.cross_entropy(run(x), y.to("cuda", non_blocking=True))

    step = _train_step(torch, opt, loss_of)
    config = {**name, "num_workers": workers, "pin_memory": True, **how}
    config = {**config, "autocast": "bf16", "channels_last": True}
    return Built(step, 128, config, timed_steps=4, warmup_steps=_drain_steps(workers, 4))


def _jpeg_fed_train(torch, model, workers: int, name: str) -> Built:
    """_worker_fed_train on the real JPEGs (_make_jpegs), each decoded, cropped and flipped per
    sample by `workers` DataLoader workers (0: in the main process); `name` is the config's
    model entry."""
    how = {"decode": "PIL JPEG, crop, flip (uint8)"}
    return _worker_fed_train(
        torch, _JpegDataset(_make_jpegs()), model, workers, {"model": name}, how
    )


def roberta_tf32_precision(variant: str) -> Built:
    """HF RoBERTa (base sizes, config) masked-LM training on 16 x 256 tokens, fused AdamW: FP32
    with TF32 matmuls allowed (torch.set_float32_matmul_precision("high"), as many scripts set
    it) (bad) vs BF16 autocast (fixed)."""
    torch = _torch()
    from transformers import RobertaConfig, RobertaForMaskedLM

    fixed = variant == "fixed"
    if not fixed:
        torch.set_float32_matmul_precision("high")
    model = RobertaForMaskedLM(RobertaConfig(vocab_size=50265)).cuda()
    ids = torch.randint(0, 50265, (16, 256), device="cuda")
    built = _hf_train(
        torch,
        model,
        lambda m: m(input_ids=ids, labels=ids).loss,
        16,
        {"model": "roberta-base sizes (config)", "tokens": "16 x 256"},
        bf16=fixed,
    )
    built.config["matmul_allow_tf32"] = torch.backends.cuda.matmul.allow_tf32
    return built


def fcn_host_miou(variant: str) -> Built:
    """torchvision FCN-ResNet50 (21 classes) segmentation training, batch 8 at 512 x 512, BF16 +
    channels_last, SGD, with a running confusion matrix for mIoU updated every step: the
    predictions' argmax copied to the host and counted with numpy against host-side targets
    (bad), vs counted on the GPU with scatter_add_ (fixed)."""
    torch = _torch()
    import numpy as np
    import torchvision

    classes = 21
    model = torchvision.models.segmentation.fcn_resnet50(
        weights=None, weights_backbone=None, num_classes=classes, aux_loss=False
    ).cuda()
    model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, foreach=True)
    x = torch.randn(8, 3, 512, 512, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, classes, (8, 512, 512), device="cuda")
    y_host = y.cpu().numpy()
    on_host = variant == "bad"
    hist_host = np.zeros(classes * classes, dtype=np.int64)
    hist = torch.zeros(classes * classes, dtype=torch.int64, device="cuda")
    run = _as_run(torch, model)

    def count(out) -> None:
        nonlocal hist_host
        if on_host:
            pred = out.argmax(1).cpu().numpy()
            hist_host += np.bincount(classes * y_host.ravel() + pred.ravel(), minlength=classes**2)
        else:  # scatter_add_: torch.bincount on CUDA reads the input's max on the host
            idx = (classes * y + out.argmax(1)).flatten()
            hist.scatter_add_(0, idx, torch.ones_like(idx))

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            out = run(x)["out"]
            loss = torch.nn.functional.cross_entropy(out, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        count(out.detach())

    where = "argmax to the host, numpy bincount" if on_host else "scatter_add_ on the GPU"
    config = {"model": "torchvision fcn_resnet50, 21 classes", "image": "8 x 512 x 512"}
    config |= {"autocast": "bf16", "channels_last": True, "confusion_matrix": where}
    return Built(step, 8, config)


def vitmae_healthy(variant: str) -> Built:
    """HF ViTMAE (base sizes, config) masked-autoencoder pre-training: 75% of each image's
    patches dropped at random (argsort of noise, gather), batch 64 at 224 x 224, BF16 autocast,
    fused AdamW."""
    torch = _torch()
    from transformers import ViTMAEConfig, ViTMAEForPreTraining

    x = torch.randn(64, 3, 224, 224, device="cuda")
    return _hf_train(
        torch,
        ViTMAEForPreTraining(ViTMAEConfig()),
        lambda m: m(pixel_values=x).loss,
        64,
        {"model": "vit-mae-base sizes (config)", "mask_ratio": 0.75},
    )


# ---- holdout 29 ---------------------------------------------------------------------------------


def mobilenet_v3_small_batch(variant: str) -> Built:
    """torchvision MobileNet-V3-Small training on 224 x 224 images, BF16 + channels_last, SGD:
    batch 8 (bad) vs 256 (fixed); the saving is per sample."""
    return _torchvision_batch_pair("mobilenet_v3_small", variant)


def t5_per_example_copies(variant: str) -> Built:
    """HF T5-small (config) seq2seq training, 32 examples of 256 input and 64 target tokens,
    BF16 autocast, fused AdamW. The batch arrives as 32 CPU examples: each example's input ids,
    attention mask and labels copied to the GPU one by one from pageable memory and stacked
    there (bad, 96 copies a step), vs stacked on the host into pinned buffers and copied once
    each, non_blocking (fixed)."""
    torch = _torch()
    model, cfg = _t5_small()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    examples = [
        (
            torch.randint(0, cfg.vocab_size, (256,)),
            torch.ones(256, dtype=torch.int64),
            torch.randint(0, cfg.vocab_size, (64,)),
        )
        for _ in range(32)
    ]
    pinned = [torch.empty(32, n, dtype=torch.int64).pin_memory() for n in (256, 256, 64)]
    run = _as_run(torch, model)

    def batch():
        if variant == "bad":
            return [torch.stack([ex[i].to("cuda") for ex in examples]) for i in range(3)]
        out = []
        for i, buf in enumerate(pinned):
            torch.stack([ex[i] for ex in examples], out=buf)
            out.append(buf.to("cuda", non_blocking=True))
        return out

    def loss_of():
        ids, mask, labels = batch()
        return run(input_ids=ids, attention_mask=mask, labels=labels).loss

    step = _train_step(torch, opt, loss_of)
    how = "96 pageable copies, one per example and field" if variant == "bad" else "3 pinned"
    config = {"model": "t5-small sizes (config)", "tokens": "32 x (256 -> 64)", "copies": how}
    return Built(step, 32, {**config, "autocast": "bf16", "optimizer": "AdamW(fused)"})


def swin_b_healthy(variant: str) -> Built:
    """timm Swin-B (window 7) training on 224 x 224 images, batch 64, BF16 autocast, fused
    AdamW."""
    return _timm(_torch(), "swin_base_patch4_window7_224", 64, fixed=True, fused_adamw=True)


# ---- holdout 30 ---------------------------------------------------------------------------------


def efficientnet_b0_healthy(variant: str) -> Built:
    """timm EfficientNet-B0 training at batch 256, BF16 autocast + channels_last, fused AdamW."""
    return _timm(_torch(), "efficientnet_b0", 256, fixed=True, fused_adamw=True)


def gpt2_grad_checkpointing(variant: str) -> Built:
    """HF GPT-2 (124M) training, 8 x 1024 tokens, BF16 autocast, fused AdamW, with memory to
    spare: gradient_checkpointing_enable() (bad) vs off (fixed)."""
    model, cfg, torch = _gpt2()
    checkpointed = variant == "bad"
    if checkpointed:
        model.gradient_checkpointing_enable()
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    return _hf_train(
        torch,
        model,
        lambda m: m(input_ids=ids, labels=ids, use_cache=False).loss,
        8,
        {"model": "gpt2-124M", "tokens": 8 * 1024, "gradient_checkpointing": checkpointed},
    )


def vit_b16_eager_attention(variant: str) -> Built:
    """timm ViT-B/16 training, batch 64, BF16 autocast, fused AdamW: attention as matmul,
    softmax, matmul (timm's fused_attn off in every block) (bad) vs
    F.scaled_dot_product_attention (fixed)."""
    return _timm_fused_attn_pair(variant, "vit_base_patch16_224", 64)


def _timm_fused_attn_pair(variant: str, name: str, batch: int) -> Built:
    """A timm ViT trained as _image_train does (BF16 + channels_last, fused AdamW), its attention
    as matmul, softmax, matmul (bad) or F.scaled_dot_product_attention (fixed)."""
    torch = _torch()
    import timm

    model = timm.create_model(name, pretrained=False)
    fused = variant == "fixed"
    _set_fused_attn(model, fused)
    built = _image_train(torch, model, f"timm {name}", batch, True, True)
    return replace(built, config={**built.config, "fused_attn": fused})


def _set_fused_attn(model, fused: bool) -> None:
    """timm's attention as F.scaled_dot_product_attention (fused) or matmul, softmax, matmul."""
    blocks = [m for m in model.modules() if hasattr(m, "fused_attn")]
    assert blocks, "timm's Attention has no fused_attn switch here"
    for m in blocks:
        m.fused_attn = fused


# ---- holdout 31: eager attention on models the eager-attention rule was not written from -------


def bert_eager_attention(variant: str) -> Built:
    """HF BERT-base MLM training, 32 x 512 tokens, the last quarter of half the sequences
    padded (attention_mask), BF16 autocast, fused AdamW: attn_implementation="eager" (bad) vs
    "sdpa" (fixed)."""
    from transformers import BertConfig, BertForMaskedLM

    return _hf_attention(variant, BertForMaskedLM, BertConfig(), 32, 512, "bert-base", 384)


def qwen2_eager_attention(variant: str) -> Built:
    """HF Qwen2 (config: 8 layers x 1024, 16 heads) training, 8 x 1024 tokens, BF16 autocast,
    fused AdamW: attn_implementation="eager" (bad) vs "sdpa" (fixed)."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    cfg = Qwen2Config(**DECODER_8X1024)
    return _hf_attention(variant, Qwen2ForCausalLM, cfg, 8, 1024, "qwen2 8x1024 (config)")


def deit_eager_inference(variant: str) -> Built:
    """timm DeiT-S/16 inference, batch 256, BF16 autocast under inference_mode: attention as
    matmul, softmax, matmul (fused_attn off, bad) vs scaled_dot_product_attention (fixed)."""
    torch = _torch()
    import timm

    model = timm.create_model("deit_small_patch16_224", pretrained=False).cuda().eval()
    fused = variant == "fixed"
    _set_fused_attn(model, fused)
    x = torch.randn(256, 3, 224, 224, device="cuda")
    step = _inference_step(torch, _as_run(torch, model), x)
    config = {"model": "timm deit_small_patch16_224", "autocast": "bf16", "mode": "inference"}
    return Built(step, 256, {**config, "fused_attn": fused}, timed_steps=10)


# ---- holdout 32: eager attention where it may not pay, and cross-attention ---------------------


def vit_s32_eager_attention(variant: str) -> Built:
    """timm ViT-S/32 training on 224 x 224 images (50 tokens), batch 256, BF16 autocast +
    channels_last, fused AdamW: attention as matmul, softmax, matmul (fused_attn off, bad) vs
    scaled_dot_product_attention (fixed)."""
    return _timm_fused_attn_pair(variant, "vit_small_patch32_224", 256)


def whisper_eager_attention(variant: str) -> Built:
    """whisper_healthy's run (encoder self-attention over 1,500 frames, decoder self- and
    cross-attention over 128 tokens) with attn_implementation="eager" (bad) vs "sdpa"
    (fixed)."""
    return _whisper_train("sdpa" if variant == "fixed" else "eager")


# ---- holdout 33: setups no rule was written from ----------------------------------------------


def mha_need_weights(variant: str) -> Built:
    """A pre-norm transformer encoder written with nn.MultiheadAttention (12 layers x 768, 12
    heads, batch_first), masked-token training on 32 x 256 tokens (vocab 8192), BF16 autocast,
    fused AdamW. The attention call as most code writes it, attn(h, h, h), which returns the
    head-averaged attention weights (need_weights defaults to True) and so runs matmul, softmax,
    matmul (bad), vs attn(h, h, h, need_weights=False), which runs
    scaled_dot_product_attention (fixed)."""
    torch = _torch()
    nn = torch.nn
    weights = variant == "bad"

    class Block(nn.Module):
        def __init__(self, d: int, heads: int):
            super().__init__()
            self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
            self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
            self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

        def forward(self, x):
            h = self.norm1(x)
            x = x + self.attn(h, h, h, need_weights=weights)[0]
            return x + self.mlp(self.norm2(x))

    class Encoder(nn.Module):
        def __init__(self, vocab: int = 8192, d: int = 768, layers: int = 12, tokens: int = 256):
            super().__init__()
            self.embed = nn.Embedding(vocab, d)
            self.pos = nn.Parameter(torch.zeros(1, tokens, d))
            self.blocks = nn.ModuleList(Block(d, 12) for _ in range(layers))
            self.norm = nn.LayerNorm(d)
            self.head = nn.Linear(d, vocab)

        def forward(self, ids):
            x = self.embed(ids) + self.pos
            for block in self.blocks:
                x = block(x)
            return self.head(self.norm(x))

    model = Encoder().cuda()
    ids = torch.randint(0, 8192, (32, 256), device="cuda")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    run = _as_run(torch, model)
    step = _train_step(
        torch, opt, lambda: nn.functional.cross_entropy(run(ids).flatten(0, 1), ids.flatten())
    )
    config = {
        "model": "nn.MultiheadAttention encoder 12 x 768",
        "tokens": 32 * 256,
        "need_weights": weights,
        "autocast": "bf16",
        "optimizer": "AdamW(fused)",
    }
    return Built(step, 32, config)


def dlrm_small_batch(variant: str) -> Built:
    """A DLRM-style click model: 26 EmbeddingBag tables (50,000 x 64, 4 ids a bag, summed), a
    bottom MLP over 13 dense features, pairwise dot-product interaction, a top MLP and a logistic
    loss; BF16 autocast, fused AdamW. Batch 256 (bad) vs 4096 (fixed); the saving is per
    sample."""
    torch = _torch()
    nn = torch.nn
    tables, rows, dim, hot = 26, 50_000, 64, 4
    batch = 4096 if variant == "fixed" else 256

    def mlp(*widths: int) -> nn.Sequential:
        layers: list = []
        for a, b in zip(widths, widths[1:]):
            layers += [nn.Linear(a, b), nn.ReLU()]
        return nn.Sequential(*layers[:-1])

    class DLRM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embeddings = nn.ModuleList(
                nn.EmbeddingBag(rows, dim, mode="sum") for _ in range(tables)
            )
            self.bottom = mlp(13, 512, 256, dim)
            pairs = (tables + 1) * tables // 2
            self.top = mlp(dim + pairs, 1024, 1024, 512, 256, 1)
            self.register_buffer("upper", torch.triu_indices(tables + 1, tables + 1, offset=1))

        def forward(self, dense, sparse):
            vectors = [self.bottom(dense)]
            vectors += [emb(sparse[:, i]) for i, emb in enumerate(self.embeddings)]
            t = torch.stack(vectors, dim=1)
            dots = torch.bmm(t, t.transpose(1, 2))[:, self.upper[0], self.upper[1]]
            return self.top(torch.cat([vectors[0], dots], dim=1)).squeeze(1)

    model = DLRM().cuda()
    dense = torch.randn(batch, 13, device="cuda")
    sparse = torch.randint(0, rows, (batch, tables, hot), device="cuda")
    clicks = torch.randint(0, 2, (batch,), device="cuda").float()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    run = _as_run(torch, model)
    loss = nn.functional.binary_cross_entropy_with_logits
    step = _train_step(torch, opt, lambda: loss(run(dense, sparse).float(), clicks))
    config = {
        "model": f"DLRM-style: {tables} EmbeddingBag {rows} x {dim}, MLPs 13-512-256-64 / "
        "415-1024-1024-512-256-1",
        "autocast": "bf16",
        "optimizer": "AdamW(fused)",
    }
    return Built(step, batch, config, timed_steps=20)


def vit_compiled_item_hook(variant: str) -> Built:
    """timm ViT-S/16 training, batch 128, BF16 autocast, fused AdamW, the model under
    torch.compile, with a forward hook on each of the 12 blocks logging its output's abs-max:
    read with .item() (bad: a graph break and a host read in every block) vs written into a
    GPU buffer (fixed: one graph)."""
    torch = _torch()
    import timm

    model = timm.create_model("vit_small_patch16_224", pretrained=False).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(128, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (128,), device="cuda")
    read = variant == "bad"
    logged: list[float] = []
    stats = torch.zeros(len(model.blocks), device="cuda")

    def monitor(i: int):
        def hook(_module, _inputs, out):
            stat = out.detach().abs().amax()
            if read:
                logged.append(stat.item())
            else:
                stats[i].copy_(stat)

        return hook

    for i, block in enumerate(model.blocks):
        block.register_forward_hook(monitor(i))
    run = torch.compile(model)
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y))
    how = "abs-max .item() per block" if read else "abs-max into a GPU buffer"
    config = {
        "model": "vit_small_patch16_224",
        "optimizer": "AdamW(fused)",
        "autocast": "bf16",
        "activation_monitor": how,
        "compile": "default",
    }
    return _compiled_for_capture(torch, step, 128, config)


def bert_dynamic_padding_healthy(variant: str) -> Built:
    """HF BERT-base sequence classification, batch 32, BF16 autocast, fused AdamW, each batch
    padded to its own longest sequence (a new length every step, 64 to 512 tokens, multiples of
    8), as a collator with dynamic padding gives."""
    torch = _torch()
    from transformers import BertConfig, BertForSequenceClassification

    cfg = BertConfig(num_labels=4)
    gen = torch.Generator().manual_seed(0)
    lengths = (torch.randint(8, 65, (64,), generator=gen) * 8).tolist()
    n = 0

    def loss_of(model):
        nonlocal n
        length = lengths[n % len(lengths)]
        n += 1
        ids = torch.randint(0, cfg.vocab_size, (32, length), device="cuda")
        mask = torch.ones_like(ids)
        mask[16:, length // 2 :] = 0  # half the batch shorter, padded
        labels = torch.randint(0, 4, (32,), device="cuda")
        return model(input_ids=ids, attention_mask=mask, labels=labels).loss

    config = {"model": "bert-base (config) classifier", "tokens": "32 x 64..512 (dynamic)"}
    built = _hf_train(torch, BertForSequenceClassification(cfg), loss_of, 32, config)
    note = (
        "FlopCounterMode over one step at the first length (lengths change every step, so "
        "trace FLOPs differ per step)"
    )
    return replace(built, timed_steps=16, flops_note=note)


# ---- holdout 34: more models no rule was written against (labels fixed before capture) ---------


class _CachedImageDataset:
    """Pre-decoded images held in memory as uint8 (a decoded cache: no JPEG decode), each sample
    augmented on the CPU as ImageNet recipes do: RandomResizedCrop, flip and RandAugment
    (torchvision.transforms.v2 on uint8 tensors); uint8 out, normalised on the GPU."""

    def __init__(self, n: int = 512, size: int = 288):
        import torch
        from torchvision.transforms import v2

        g = torch.Generator().manual_seed(0)
        self.images = torch.randint(0, 256, (n, 3, size, size), dtype=torch.uint8, generator=g)
        self.tf = v2.Compose(
            [v2.RandomResizedCrop(224), v2.RandomHorizontalFlip(), v2.RandAugment(2, 9)]
        )

    def __len__(self):  # an epoch of 100 batches: prefetching never stalls at an epoch's end
        return 100 * 128

    def __getitem__(self, i):
        return self.tf(self.images[i % len(self.images)]), i % 1000


def regnet_loader_augment(variant: str) -> Built:
    """torchvision RegNetY-1.6GF trained on in-memory uint8 images augmented per sample in the
    DataLoader's workers (RandomResizedCrop, flip, RandAugment), batch 128, BF16 autocast +
    channels_last, SGD with momentum: 3 workers (bad) vs 14 (fixed), pinned memory and
    persistent workers on both."""
    torch = _torch()
    import torchvision

    ds = _CachedImageDataset()
    model = torchvision.models.regnet_y_1_6gf(weights=None)
    return _worker_fed_train(
        torch,
        ds,
        model,
        14 if variant == "fixed" else 3,
        {"model": "torchvision regnet_y_1_6gf"},
        {"augment": "RandomResizedCrop, flip, RandAugment(2, 9) on uint8 in the workers"},
    )


def lstmcell_python_loop(variant: str) -> Built:
    """A 1-layer LSTM language model (512 hidden, 8000-token vocabulary) trained on 64 x 64
    tokens, BF16 autocast, fused AdamW: the recurrence written as a Python loop over
    nn.LSTMCell, one call per time step (bad), vs nn.LSTM over the whole sequence (cuDNN)
    (fixed)."""
    torch = _torch()
    nn = torch.nn
    hidden, vocab, batch, tokens = 512, 8000, 64, 64
    looped = variant == "bad"

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, hidden)
            if looped:
                self.cell = nn.LSTMCell(hidden, hidden)
            else:
                self.rnn = nn.LSTM(hidden, hidden, batch_first=True)
            self.head = nn.Linear(hidden, vocab)

        def forward(self, ids):
            x = self.emb(ids)
            if not looped:
                return self.head(self.rnn(x)[0])
            h = c = x.new_zeros(x.shape[0], hidden)
            outs = []
            for t in range(x.shape[1]):
                h, c = self.cell(x[:, t], (h, c))
                outs.append(h)
            return self.head(torch.stack(outs, dim=1))

    model = LM().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    ids = torch.randint(0, vocab, (batch, tokens), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(
        torch, opt, lambda: nn.functional.cross_entropy(run(ids).flatten(0, 1), ids.flatten())
    )
    how = "Python loop over nn.LSTMCell" if looped else "nn.LSTM (cuDNN)"
    config = {"model": f"1-layer LSTM LM, {hidden} hidden", "tokens": f"{batch} x {tokens}"}
    return Built(step, batch, {**config, "recurrence": how, "autocast": "bf16"}, timed_steps=10)


def hf_vit_small_batch(variant: str) -> Built:
    """HF ViTForImageClassification (base sizes, config, 1000 classes) training on 224 x 224
    images, BF16 autocast, fused AdamW: batch 4 (bad) vs 128 (fixed); the saving is per
    sample."""
    torch = _torch()
    from transformers import ViTConfig, ViTForImageClassification

    batch = 128 if variant == "fixed" else 4
    pixels = torch.randn(batch, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (batch,), device="cuda")
    built = _hf_train(
        torch,
        ViTForImageClassification(ViTConfig(num_labels=1000)),
        lambda m: m(pixel_values=pixels, labels=y).loss,
        batch,
        {"model": "HF ViT-base (config)", "images": batch},
    )
    return replace(built, timed_steps=20 if batch == 4 else 5)


def phi_healthy(variant: str) -> Built:
    """HF Phi (config: 12 layers x 1024, 16 heads, partial rotary, attention and MLP in
    parallel) causal-LM training on 8 x 1024 tokens, BF16 autocast, fused AdamW, SDPA."""
    torch = _torch()
    from transformers import PhiConfig, PhiForCausalLM

    cfg = PhiConfig(
        vocab_size=51200,
        hidden_size=1024,
        intermediate_size=4096,
        num_hidden_layers=12,
        num_attention_heads=16,
        max_position_embeddings=2048,
    )
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    model = PhiForCausalLM(cfg)
    config = {"model": "phi (config: 12 x 1024)", "tokens": "8 x 1024"}
    return _hf_train(torch, model, lambda m: m(input_ids=ids, labels=ids).loss, 8, config)


def gpt2_eval_logits_to_host(variant: str) -> Built:
    """HF GPT-2 (124M, the 50,257-token vocabulary) evaluation on 8 x 256 tokens, BF16 autocast
    under inference_mode, gathering predictions for a metric computed at the end: each batch's
    logits copied to the host as they come (bad: what a Trainer evaluation loop with
    eval_accumulation_steps=1 does, 206 MB a batch) vs the argmax taken on the GPU and the token
    ids copied (fixed: what preprocess_logits_for_metrics does). on_gpu (no capture, for
    benchmarks/zoo/ab_time.py): the ids kept on the GPU, no copy and no sync a batch."""
    torch = _torch()
    from transformers import GPT2Config, GPT2LMHeadModel

    model = GPT2LMHeadModel(GPT2Config()).cuda().eval()
    ids = torch.randint(0, model.config.vocab_size, (8, 256), device="cuda")
    whole = variant == "bad"
    gathered: list = []
    run = _as_run(torch, model)

    def step():
        with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16):
            logits = run(input_ids=ids).logits
        if whole:
            gathered.append(logits.cpu())
        else:
            top = logits.argmax(-1)
            gathered.append(top if variant == "on_gpu" else top.cpu())
        if len(gathered) >= 20:  # an evaluation's worth, then the metric
            gathered.clear()

    how = "logits to the host per batch" if whole else "argmax on the GPU, ids to the host"
    config = {"model": "gpt2-124M eval (vocab 50257)", "tokens": "8 x 256", "autocast": "bf16"}
    return Built(step, 8, {**config, "gathered": how})


def llama_added_pad_token(variant: str) -> Built:
    """HF Llama (config: 8 layers x 1024, SwiGLU 2816, 16 heads, 32,000 tokens) causal-LM
    training on 8 x 1024 tokens, BF16 autocast, fused AdamW, after adding a pad token to the
    tokenizer: resize_token_embeddings(32001) (bad: an embedding and LM head of 32,001 rows) vs
    resize_token_embeddings(32001, pad_to_multiple_of=64) (fixed: 32,064 rows)."""
    torch = _torch()
    model, cfg = _llama(torch)
    model.resize_token_embeddings(32001, pad_to_multiple_of=64 if variant == "fixed" else None)
    ids = torch.randint(0, 32001, (8, 1024), device="cuda")
    loss_of = lambda m: m(input_ids=ids, labels=ids).loss  # noqa: E731
    rows = model.get_input_embeddings().weight.shape[0]
    config = {"model": "llama (config: 8 x 1024)", "tokens": 8 * 1024, "vocab_rows": rows}
    return _hf_train(torch, model, loss_of, 8, config)


def raft_healthy(variant: str) -> Built:
    """torchvision RAFT-large optical-flow training as its recipe does it (12 flow updates, the
    sequence loss weighted by 0.8 per update, AdamW, gradient clipping at 1), 8 image pairs at
    368 x 496 (the FlyingChairs crop), BF16 autocast (the original RAFT's mixed precision)."""
    torch = _torch()
    from torchvision.models.optical_flow import raft_large

    model = raft_large(weights=None).cuda().train()
    opt = torch.optim.AdamW(model.parameters(), lr=4e-4, weight_decay=1e-4, eps=1e-8, fused=True)
    img1 = torch.randn(8, 3, 368, 496, device="cuda")
    img2 = torch.randn(8, 3, 368, 496, device="cuda")
    flow_gt = torch.randn(8, 2, 368, 496, device="cuda") * 10
    run = _as_run(torch, model)
    updates = 12
    weights = 0.8 ** torch.arange(updates - 1, -1, -1, device="cuda")

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            preds = torch.stack(run(img1, img2, num_flow_updates=updates))
            loss = ((preds.float() - flow_gt).abs().mean(dim=(1, 2, 3, 4)) * weights).sum()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

    config = {"model": "torchvision raft_large", "pairs": "8 x 3 x 368 x 496"}
    config |= {"flow_updates": updates, "autocast": "bf16", "optimizer": "AdamW(fused)"}
    return Built(step, 8, config)


def deeplab_batch_class_weights(variant: str) -> Built:
    """torchvision DeepLabV3-MobileNetV3-Large (21 classes) segmentation training, batch 16 at
    512 x 512, BF16 autocast + channels_last, SGD, with the cross-entropy weighted by each
    batch's inverse class frequencies: counted with torch.unique(return_counts=True) (bad: its
    output's size depends on the data, so the host waits for the GPU) vs scatter_add_ into a
    fixed 21-bin count on the GPU (fixed)."""
    torch = _torch()
    import torchvision

    classes = 21
    model = torchvision.models.segmentation.deeplabv3_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=classes, aux_loss=False
    )
    model = model.cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9, weight_decay=1e-4)
    x = torch.randn(16, 3, 512, 512, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, classes, (16, 512, 512), device="cuda")
    run = _as_run(torch, model)
    by_unique = variant == "bad"

    def class_counts():
        if by_unique:
            present, n = torch.unique(y, return_counts=True)
            return torch.zeros(classes, device="cuda").index_put_((present,), n.float())
        flat = y.flatten()
        return torch.zeros(classes, device="cuda").scatter_add_(
            0, flat, torch.ones_like(flat, dtype=torch.float)
        )

    def loss_of():
        out = run(x)["out"]
        counts = class_counts()
        w = counts.sum() / (classes * counts.clamp(min=1))
        return torch.nn.functional.cross_entropy(out, y, weight=w)

    step = _train_step(torch, opt, loss_of)
    how = "torch.unique(return_counts=True)" if by_unique else "scatter_add_ on the GPU"
    config = {"model": "deeplabv3_mobilenet_v3_large", "image": "16 x 3 x 512 x 512"}
    config |= {"autocast": "bf16", "channels_last": True, "class_counts": how}
    return Built(step, 16, config)


def t5_adafactor_foreach(variant: str) -> Built:
    """HF T5 (t5-small sizes, config) seq2seq training on 32 x 256 source and 32 x 64 target
    tokens, BF16 autocast, with Adafactor as T5 fine-tuning recipes use it (fixed learning rate,
    no parameter scaling): transformers' Adafactor, a Python loop over the parameters (bad), vs
    torch.optim.Adafactor with foreach=True (fixed)."""
    torch = _torch()
    from transformers.optimization import Adafactor

    model, cfg = _t5_small()
    params = model.parameters()
    if variant == "fixed":
        opt = torch.optim.Adafactor(params, lr=1e-3, foreach=True)
        how = "torch.optim.Adafactor(foreach=True)"
    else:
        opt = Adafactor(params, lr=1e-3, scale_parameter=False, relative_step=False)
        how = "transformers Adafactor (per-parameter loop)"
    src = torch.randint(0, cfg.vocab_size, (32, 256), device="cuda")
    tgt = torch.randint(0, cfg.vocab_size, (32, 64), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: run(input_ids=src, labels=tgt).loss)
    config = {"model": "t5-small (config)", "tokens": 32 * (256 + 64), "autocast": "bf16"}
    return Built(step, 32, {**config, "optimizer": how})


def fastvit_healthy(variant: str) -> Built:
    """timm FastViT-T8 (RepMixer token mixing, reparameterisable conv branches, large-kernel
    attention-free stages) trained on 224 x 224 images, batch 128, BF16 autocast +
    channels_last, fused AdamW."""
    return _timm(_torch(), "fastvit_t8", 128, fixed=True, fused_adamw=True)


def falcon_healthy(variant: str) -> Built:
    """HF Falcon (config: 12 layers x 1024, 16 heads, parallel attention and MLP, multi-query
    attention off, ALiBi off: rotary) causal-LM training on 8 x 1024 tokens, BF16 autocast,
    fused AdamW, SDPA."""
    torch = _torch()
    from transformers import FalconConfig, FalconForCausalLM

    cfg = FalconConfig(
        vocab_size=65024,
        hidden_size=1024,
        num_hidden_layers=12,
        num_attention_heads=16,
        multi_query=False,
        new_decoder_architecture=False,
        parallel_attn=True,
        alibi=False,
        max_position_embeddings=2048,
    )
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    model = FalconForCausalLM(cfg)
    config = {"model": "falcon (config: 12 x 1024)", "tokens": "8 x 1024"}
    return _hf_train(torch, model, lambda m: m(input_ids=ids, labels=ids).loss, 8, config)


# ---- holdout 37: more models no rule was written against (labels fixed before capture) ---------


def retinanet_healthy(variant: str) -> Built:
    """torchvision RetinaNet (ResNet-50 FPN, random weights) training on 8 random 640 x 640 images
    (resized to 800 by the model's transform) with 8 random boxes each, BF16 autocast, SGD with
    momentum and weight decay: a one-stage detector whose loss matches anchors per image."""
    return _detection_train("retinanet_resnet50_fpn", images=8, boxes=8)


def convnext_eval_grad_enabled(variant: str) -> Built:
    """timm ConvNeXt-S evaluation (model.eval()) on 128 images of 224 x 224, BF16 autocast +
    channels_last: autograd left on, as a validation loop that forgets torch.no_grad() runs it
    (bad), vs under torch.inference_mode() (fixed)."""
    torch = _torch()
    import timm

    model = timm.create_model("convnext_small", pretrained=False).cuda().eval()
    model = model.to(memory_format=torch.channels_last)
    x = torch.randn(128, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    run = _as_run(torch, model)
    if variant == "fixed":
        step = _inference_step(torch, run, x)
    else:

        def step():
            with torch.autocast("cuda", dtype=torch.bfloat16):
                run(x)

    how = "torch.inference_mode()" if variant == "fixed" else "autograd on (no torch.no_grad())"
    config = {"model": "timm convnext_small (eval)", "autocast": "bf16", "channels_last": True}
    return Built(step, 128, {**config, "grad_mode": how})


def regnet_cudnn_benchmark(variant: str) -> Built:
    """torchvision RegNetY-3.2GF (grouped convolutions, squeeze-excitation) training on 224 x 224
    images, batch 128, BF16 autocast + channels_last, SGD with momentum: cuDNN's heuristic choice
    of algorithms (torch.backends.cudnn.benchmark=False, the default) (bad) vs benchmark=True,
    cuDNN timing its algorithms on the first step of each shape (fixed)."""
    torch = _torch()
    import torchvision

    torch.backends.cudnn.benchmark = variant == "fixed"  # each run is its own process
    model = torchvision.models.regnet_y_3_2gf(weights=None)
    built = _image_train(torch, model, "torchvision regnet_y_3_2gf", 128, True, False)
    return replace(built, config={**built.config, "cudnn_benchmark": variant == "fixed"})


class _PandasRowDataset:
    """A tabular dataset written against pandas: 200 float features and a class label per row of
    a DataFrame, each sample read with df.iloc[i] and its features turned into a tensor."""

    def __init__(self, rows: int = 200_000, features: int = 200):
        import numpy as np
        import pandas as pd

        rng = np.random.default_rng(0)
        self.columns = [f"f{i}" for i in range(features)]
        values = rng.standard_normal((rows, features), dtype=np.float32)
        self.df = pd.DataFrame(values, columns=self.columns)
        self.df["label"] = rng.integers(0, 10, rows)

    def __len__(self):
        return len(self.df)

    def __getitem__(self, i):
        import torch

        row = self.df.iloc[i]  # the features, then the label
        return torch.tensor(row.iloc[:-1].to_numpy("float32")), int(row.iloc[-1])


def tabular_pandas_loader(variant: str) -> Built:
    """An MLP classifier (200 features, 3 hidden layers of 2048, 10 classes) trained on a
    200,000-row pandas DataFrame, batch 1024, BF16 autocast, fused AdamW: a DataLoader reading
    one row at a time with df.iloc in the main process (bad), vs the frame turned into GPU tensors
    once and each batch indexed there (fixed)."""
    torch = _torch()
    nn = torch.nn
    ds = _PandasRowDataset()
    width, batch = 2048, 1024
    model = nn.Sequential(
        nn.Linear(len(ds.columns), width),
        nn.ReLU(),
        nn.Linear(width, width),
        nn.ReLU(),
        nn.Linear(width, width),
        nn.ReLU(),
        nn.Linear(width, 10),
    ).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    run = _as_run(torch, model)
    if variant == "fixed":
        x_all = torch.tensor(ds.df[ds.columns].to_numpy("float32"), device="cuda")
        y_all = torch.tensor(ds.df["label"].to_numpy(), device="cuda")

        def next_batch():
            idx = torch.randint(0, len(ds), (batch,), device="cuda")
            return x_all[idx], y_all[idx]

        how = "frame turned into GPU tensors once, batches indexed on the GPU"
    else:
        loader = torch.utils.data.DataLoader(ds, batch_size=batch, shuffle=True, drop_last=True)
        next_batch = _endless(loader)
        how = "DataLoader, df.iloc per row, num_workers=0"

    def loss_of():
        x, y = next_batch()
        x, y = x.to("cuda", non_blocking=True), y.to("cuda", non_blocking=True)
        return nn.functional.cross_entropy(run(x), y)

    step = _train_step(torch, opt, loss_of)
    config = {"model": f"MLP 200 -> 3 x {width} -> 10", "autocast": "bf16", "data": how}
    return Built(step, batch, config, timed_steps=4 if variant == "bad" else 20)


# ---- holdout 38: more models no rule was written against (labels fixed before capture) ---------


def mlp_float64(variant: str) -> Built:
    """A regression MLP (64 features, 3 hidden layers of 4096, one output) trained on data that
    came from NumPy as float64, batch 8192, AdamW: the model made float64 to match it
    (model.double(), bad) vs the data cast to float32 once and the forward under BF16 autocast
    (fixed)."""
    torch = _torch()
    nn = torch.nn
    import numpy as np

    rng = np.random.default_rng(0)
    x_np = rng.standard_normal((8192, 64))  # float64, NumPy's default
    y_np = x_np[:, :1] * 0.5 + rng.standard_normal((8192, 1)) * 0.1
    width = 4096
    model = nn.Sequential(
        nn.Linear(64, width),
        nn.GELU(),
        nn.Linear(width, width),
        nn.GELU(),
        nn.Linear(width, width),
        nn.GELU(),
        nn.Linear(width, 1),
    ).cuda()
    fp64 = variant == "bad"
    if fp64:
        model = model.double()
    x, y = (torch.from_numpy(a).cuda() for a in (x_np, y_np))
    if not fp64:
        x, y = x.float(), y.float()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: nn.functional.mse_loss(run(x), y), bf16=not fp64)
    how = "float64 (model.double())" if fp64 else "float32 data, BF16 autocast"
    return Built(step, 8192, {"model": f"MLP 64 -> 3 x {width} -> 1", "precision": how})


def detr_healthy(variant: str) -> Built:
    """HF DETR (ResNet-50 backbone from timm, random weights; 6 + 6 transformer layers, 100
    queries) object-detection training on 8 random 640 x 640 images with 10 random boxes each,
    BF16 autocast, AdamW as its recipe (lr 1e-4, backbone 1e-5), gradients clipped to 0.1: its
    loss matches queries to boxes with the Hungarian algorithm (SciPy) on the host each step."""
    torch = _torch()
    from transformers import DetrConfig, DetrForObjectDetection

    cfg = DetrConfig(use_pretrained_backbone=False, num_labels=91)
    model = DetrForObjectDetection(cfg).cuda()
    backbone = [p for n, p in model.named_parameters() if "backbone" in n]
    rest = [p for n, p in model.named_parameters() if "backbone" not in n]
    opt = torch.optim.AdamW(
        [{"params": rest}, {"params": backbone, "lr": 1e-5}], lr=1e-4, weight_decay=1e-4
    )
    pixels = torch.rand(8, 3, 640, 640, device="cuda")
    labels = []
    for _ in range(8):
        centre = 0.2 + torch.rand(10, 2, device="cuda") * 0.6
        size = 0.05 + torch.rand(10, 2, device="cuda") * 0.3
        labels.append(
            {
                "class_labels": torch.randint(0, 91, (10,), device="cuda"),
                "boxes": torch.cat([centre, size], dim=1),
            }
        )
    run = _as_run(torch, model)

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = run(pixel_values=pixels, labels=labels).loss
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 0.1)
        opt.step()

    config = {"model": "HF DETR-ResNet-50 (config)", "images": "8 x 640 x 640, 10 boxes each"}
    return Built(step, 8, {**config, "autocast": "bf16", "optimizer": "AdamW, clip 0.1"})


def convnext_grad_nan_check(variant: str) -> Built:
    """timm ConvNeXt-T training, batch 128, BF16 autocast + channels_last, fused AdamW; bad:
    before the optimizer, every parameter's gradient is checked for NaN/Inf in a Python loop
    (`if not torch.isfinite(p.grad).all()`: a read of the GPU per parameter), the step skipped on
    a hit; fixed: no per-step check (a non-finite loss is caught per logging interval)."""
    torch = _torch()
    import timm

    model = timm.create_model("convnext_tiny", pretrained=False).cuda()
    model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(128, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (128,), device="cuda")
    run = _as_run(torch, model)
    check = variant == "bad"

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(run(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if check:
            for p in model.parameters():
                if p.grad is not None and not torch.isfinite(p.grad).all():
                    return
        opt.step()

    how = "every gradient checked on the host" if check else "no per-step check"
    config = {"model": "timm convnext_tiny", "autocast": "bf16", "channels_last": True}
    return Built(step, 128, {**config, "optimizer": "AdamW(fused)", "nonfinite_check": how})


def gemma_healthy(variant: str) -> Built:
    """HF Gemma (config: 8 layers x 1024, GeGLU 4096, 8 heads of 128, its 256,000-token
    vocabulary, tied embeddings) causal-LM training on 8 x 1024 tokens, BF16 autocast, fused
    AdamW, SDPA."""
    from transformers import GemmaConfig, GemmaForCausalLM

    return _gemma_train(GemmaConfig, GemmaForCausalLM, "gemma")


def _gemma_train(config_cls, model_cls, name: str, **extra) -> Built:
    """A Gemma-family causal LM (config: 8 layers x 1024, GeGLU 4096, 8 heads of 128, the
    256,000-token vocabulary; `extra` config fields beside) trained on 8 x 1024 tokens, BF16
    autocast, fused AdamW."""
    label = f"{name} (config: 8 x 1024, 256k vocabulary)"
    gemma = {"vocab_size": 256000, "head_dim": 128}
    return _decoder_lm_8x1024(config_cls, model_cls, label, heads=8, **gemma, **extra)


def _decoder_lm_8x1024(config_cls, model_cls, name: str, heads: int = 16, **extra) -> Built:
    """A causal LM of config_cls (8 layers x 1024, MLP 4096, `heads` heads with as many
    key/value heads; `extra` config fields beside) trained on 8 x 1024 tokens, BF16 autocast,
    fused AdamW; `name` is the config's model entry."""
    torch = _torch()
    cfg = config_cls(
        hidden_size=1024,
        intermediate_size=4096,
        num_hidden_layers=8,
        num_attention_heads=heads,
        num_key_value_heads=heads,  # no GQA: FlopCounterMode (torch 2.11) rejects it in SDPA
        max_position_embeddings=2048,
        **extra,
    )
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    config = {"model": name, "tokens": "8 x 1024"}
    model = model_cls(cfg)
    return _hf_train(torch, model, lambda m: m(input_ids=ids, labels=ids).loss, 8, config)


# ---- holdout 39: more models no rule was written against (labels fixed before capture) ---------


def bert_gc_collect(variant: str) -> Built:
    """HF BERT-base sequence classification fine-tuning, 32 x 256 tokens, BF16 autocast, fused
    AdamW; bad: gc.collect() after every optimizer step, as loops fighting a memory leak do;
    fixed: the garbage collector left to itself."""
    torch = _torch()
    import gc

    from transformers import BertConfig, BertForSequenceClassification

    cfg = BertConfig(num_labels=3)
    model = BertForSequenceClassification(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=2e-5, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (32, 256), device="cuda")
    labels = torch.randint(0, 3, (32,), device="cuda")
    run = _as_run(torch, model)
    collect = variant == "bad"
    step = _train_step(
        torch,
        opt,
        lambda: run(input_ids=ids, labels=labels).loss,
        then=(lambda loss: gc.collect()) if collect else None,
    )
    config = {"model": "bert-base seq-cls (config)", "tokens": 32 * 256, "autocast": "bf16"}
    return Built(step, 32, {**config, "gc_collect_each_step": collect})


def resnet50_gpu_augment_loop(variant: str) -> Built:
    """timm ResNet-50 training, batch 128, BF16 autocast + channels_last, SGD with momentum, on
    256 x 256 images held on the GPU, augmented each step with a random 224 crop, a horizontal
    flip and a brightness factor per image: in a Python loop over the batch, one image at a time
    (bad), vs for the whole batch at once (gather of each image's crop window, flip and
    brightness as batched tensor ops; fixed)."""
    torch = _torch()
    import timm

    model = timm.create_model("resnet50", pretrained=False).cuda()
    model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, foreach=True)
    n, size, crop = 128, 256, 224
    images = torch.rand(n, 3, size, size, device="cuda")
    y = torch.randint(0, 1000, (n,), device="cuda")
    g = torch.Generator(device="cuda").manual_seed(0)
    looped = variant == "bad"
    run = _as_run(torch, model)

    def augmented():
        top = torch.randint(0, size - crop + 1, (n,), device="cuda", generator=g)
        left = torch.randint(0, size - crop + 1, (n,), device="cuda", generator=g)
        flip = torch.rand(n, device="cuda", generator=g) < 0.5
        bright = 0.8 + 0.4 * torch.rand(n, device="cuda", generator=g)
        if looped:  # the offsets read on the host, one image at a time
            out = []
            for i, (dy, dx, f) in enumerate(zip(top.tolist(), left.tolist(), flip.tolist())):
                img = images[i, :, dy : dy + crop, dx : dx + crop]
                if f:
                    img = img.flip(-1)
                out.append(img * bright[i])
            return torch.stack(out)
        rows = top[:, None] + torch.arange(crop, device="cuda")
        cols = left[:, None] + torch.arange(crop, device="cuda")
        cols = torch.where(flip[:, None], cols.flip(-1), cols)
        x = images.gather(2, rows[:, None, :, None].expand(n, 3, crop, size))
        x = x.gather(3, cols[:, None, None, :].expand(n, 3, crop, crop))
        return x * bright[:, None, None, None]

    def loss_of():
        x = augmented().contiguous(memory_format=torch.channels_last)
        return torch.nn.functional.cross_entropy(run(x), y)

    step = _train_step(torch, opt, loss_of)
    how = "Python loop over the batch" if looped else "batched gather, flip and scale"
    config = {"model": "timm resnet50", "autocast": "bf16", "channels_last": True}
    return Built(step, n, {**config, "augment": how})


def convnextv2_healthy(variant: str) -> Built:
    """timm ConvNeXt-V2-T (global response normalisation) training on 224 x 224 images, batch
    128, BF16 autocast + channels_last, fused AdamW."""
    return _timm(_torch(), "convnextv2_tiny", 128, fixed=True, fused_adamw=True)


# ---- holdout 40: more models no rule was written against (labels fixed before capture) ---------


def vit_llrd_param_groups(variant: str) -> Built:
    """timm ViT-B/16 fine-tuning, batch 64, BF16 autocast, AdamW (PyTorch's default foreach
    implementation), with layer-wise learning-rate decay (0.75 a block, as BEiT and MAE
    fine-tune): bad: one parameter group per parameter (152 groups, as a per-parameter loop
    builds them), so the optimizer's foreach kernels run group by group; fixed: one group per
    depth and weight-decay setting (28 groups)."""
    torch = _torch()
    import timm

    model = timm.create_model("vit_base_patch16_224", pretrained=False).cuda()
    depth = len(model.blocks)

    def layer_of(name: str) -> int:
        if name.startswith(("cls_token", "pos_embed", "patch_embed")):
            return 0
        if name.startswith("blocks."):
            return int(name.split(".")[1]) + 1
        return depth + 1

    groups: dict[tuple, dict] = {}
    per_parameter = variant == "bad"
    for name, p in model.named_parameters():
        layer = layer_of(name)
        decay = 0.0 if p.ndim == 1 or name.endswith(("cls_token", "pos_embed")) else 0.05
        key = (name,) if per_parameter else (layer, decay)
        group = groups.setdefault(
            key, {"params": [], "lr": 1e-3 * 0.75 ** (depth + 1 - layer), "weight_decay": decay}
        )
        group["params"].append(p)
    opt = torch.optim.AdamW(list(groups.values()))
    x = torch.randn(64, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (64,), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y))
    config = {"model": "timm vit_base_patch16_224", "autocast": "bf16", "optimizer": "AdamW"}
    return Built(step, 64, {**config, "param_groups": len(groups)})


def eva02_healthy(variant: str) -> Built:
    """timm EVA-02-S (rotary position embeddings, SwiGLU) training on 224 x 224 images, batch
    128, BF16 autocast, fused AdamW."""
    torch = _torch()
    import timm

    # the EVA-02 ImageNet-sized configs are MIM-pretraining ones (no head): give it 1000 classes
    model = timm.create_model("eva02_small_patch14_224", pretrained=False, num_classes=1000)
    return _image_train(torch, model, "timm eva02_small_patch14_224", 128, True, True)


def maskrcnn_healthy(variant: str) -> Built:
    """torchvision Mask R-CNN (ResNet-50 FPN v2, random weights) training on 4 random 640 x 640
    images with 12 random boxes and instance masks each, BF16 autocast, SGD with momentum."""
    return _detection_train("maskrcnn_resnet50_fpn_v2", images=4, boxes=12, masks=True)


def efficientnet_b3_infer_healthy(variant: str) -> Built:
    """timm EfficientNet-B3 inference, batch 256 of 288 x 288 images (its training resolution),
    BF16 autocast + channels_last under inference_mode."""
    torch = _torch()
    import timm

    model = timm.create_model("efficientnet_b3", pretrained=False).cuda().eval()
    model = model.to(memory_format=torch.channels_last)
    x = torch.randn(256, 3, 288, 288, device="cuda").to(memory_format=torch.channels_last)
    run = _as_run(torch, model)
    step = _inference_step(torch, run, x)
    config = {"model": "timm efficientnet_b3", "autocast": "bf16", "channels_last": True}
    return Built(step, 256, {**config, "mode": "inference"}, timed_steps=10)


# ---- holdout 41: more models no rule was written against (labels fixed before capture) ---------


def ppo_validate_args(variant: str) -> Built:
    """A PPO update on one minibatch of 4096 transitions: policy and value MLPs (64 -> 1024 x 2 ->
    16 actions / 1 value, tanh), FP32 as RL code trains them, fused Adam; the policy a Normal
    distribution whose loss takes the clipped ratio, the value error and the entropy. bad:
    torch.distributions' default argument validation (on unless Python runs with -O: each check
    is read on the host); fixed: Normal(..., validate_args=False)."""
    torch = _torch()
    from torch import nn
    from torch.distributions import Normal

    obs_dim, acts, hidden, batch = 64, 16, 1024, 4096

    def mlp(out: int):
        layers = [nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh()]
        return nn.Sequential(*layers, nn.Linear(hidden, out)).cuda()

    policy, value = mlp(acts), mlp(1)
    log_std = nn.Parameter(torch.zeros(acts, device="cuda"))
    opt = torch.optim.Adam([*policy.parameters(), *value.parameters(), log_std], 3e-4, fused=True)
    obs = torch.randn(batch, obs_dim, device="cuda")
    actions = torch.randn(batch, acts, device="cuda")
    old_logp = torch.randn(batch, device="cuda")
    advantage = torch.randn(batch, device="cuda")
    returns = torch.randn(batch, device="cuda")
    validate = None if variant == "bad" else False  # None: the library's default
    run_policy, run_value = _as_run(torch, policy), _as_run(torch, value)

    def loss_of():
        dist = Normal(run_policy(obs), log_std.exp(), validate_args=validate)
        ratio = (dist.log_prob(actions).sum(-1) - old_logp).exp()
        clipped = ratio.clamp(0.8, 1.2)
        pg = -torch.min(ratio * advantage, clipped * advantage).mean()
        v = (run_value(obs).squeeze(-1) - returns).pow(2).mean()
        return pg + 0.5 * v - 0.01 * dist.entropy().sum(-1).mean()

    step = _train_step(torch, opt, loss_of, bf16=False)
    config = {"model": "PPO policy + value MLPs 64-1024x2 (tanh)", "precision": "fp32"}
    return Built(step, batch, {**config, "validate_args": validate is None})


def dinov2_healthy(variant: str) -> Built:
    """HF DINOv2 (config: ViT-B/14) image classification on 64 random 224 x 224 images (256
    patches), BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import Dinov2Config, Dinov2ForImageClassification

    cfg = Dinov2Config(image_size=224, num_labels=1000)
    pixels = torch.randn(64, 3, 224, 224, device="cuda")
    labels_ = torch.randint(0, 1000, (64,), device="cuda")
    return _hf_train(
        torch,
        Dinov2ForImageClassification(cfg),
        lambda m: m(pixel_values=pixels, labels=labels_).loss,
        64,
        {"model": "HF dinov2 ViT-B/14 (config)", "images": "64 x 224 x 224"},
    )


def xlnet_healthy(variant: str) -> Built:
    """HF XLNet-base (config: 12 layers x 768, two-stream relative attention written with einsum)
    language-model training on 8 x 512 tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import XLNetConfig, XLNetLMHeadModel

    cfg = XLNetConfig(d_model=768, n_layer=12, n_head=12, d_inner=3072)
    ids = torch.randint(0, cfg.vocab_size, (8, 512), device="cuda")
    return _hf_train(
        torch,
        XLNetLMHeadModel(cfg),
        lambda m: m(input_ids=ids, labels=ids).loss,
        8,
        {"model": "HF xlnet-base (config)", "tokens": "8 x 512"},
    )


# ---- holdout 42: more models no rule was written against (labels fixed before capture) ---------


def vit_checkpointing_unneeded(variant: str) -> Built:
    """timm ViT-B/16 training, batch 64, BF16 autocast + channels_last, fused AdamW, with memory
    to spare (about 10 of 80 GB): timm's set_grad_checkpointing(True), every block recomputed in
    backward (bad), vs off (fixed)."""
    return _timm_checkpointing("vit_base_patch16_224", 64, variant == "bad")


def _timm_checkpointing(name: str, batch: int, checkpointed: bool) -> Built:
    """A timm model trained as _image_train does (BF16 + channels_last, fused AdamW), with timm's
    set_grad_checkpointing on or off."""
    torch = _torch()
    import timm

    model = timm.create_model(name, pretrained=False)
    model.set_grad_checkpointing(checkpointed)
    built = _image_train(torch, model, f"timm {name}", batch, True, True)
    built.config["grad_checkpointing"] = checkpointed
    return built


def resnet50_state_dict_to_cpu(variant: str) -> Built:
    """torchvision ResNet-50 training, batch 64, BF16 autocast + channels_last, fused AdamW; bad:
    after every step the weights are copied to host memory as a "last good weights" snapshot
    ({k: v.detach().cpu() for k, v in model.state_dict().items()}, as loops that guard against a
    diverging step keep them); fixed: no per-step snapshot (taken once per epoch, outside the
    profiled steps)."""
    torch = _torch()
    kept: dict[str, Any] = {}

    def snapshot(loss) -> None:  # model: bound below, before the first step runs
        kept.update({k: v.detach().cpu() for k, v in model.state_dict().items()})

    each_step = variant == "bad"
    model, step = _resnet50_adamw(torch, then=snapshot if each_step else None)
    config = {"model": "torchvision resnet50", "autocast": "bf16", "channels_last": True}
    return Built(step, 64, {**config, "state_dict_to_cpu_each_step": each_step})


def mobilebert_healthy(variant: str) -> Built:
    """HF MobileBERT (config: 24 bottleneck layers of 128, no LayerNorm) sequence
    classification fine-tuning on 32 x 128 tokens, BF16 autocast, fused AdamW."""
    return mobilebert_batch(32)


def mobilebert_batch(batch: int) -> Built:
    """mobilebert_healthy at `batch` sequences of 128 tokens (batch_sweep.py mobilebert_batch)."""
    torch = _torch()
    from transformers import MobileBertConfig, MobileBertForSequenceClassification

    cfg = MobileBertConfig(num_labels=2)
    ids = torch.randint(0, cfg.vocab_size, (batch, 128), device="cuda")
    labels_ = torch.randint(0, 2, (batch,), device="cuda")
    return _hf_train(
        torch,
        MobileBertForSequenceClassification(cfg),
        lambda m: m(input_ids=ids, labels=labels_).loss,
        batch,
        {"model": "HF mobilebert (config)", "tokens": f"{batch} x 128"},
    )


# ---- holdout 43: more models no rule was written against (labels fixed before capture) ---------


def vit_clip_grad_per_param(variant: str) -> Built:
    """timm ViT-B/16 training, batch 64, BF16 autocast + channels_last, fused AdamW, gradients
    clipped to norm 1.0 before each step: clip_grad_norm_(foreach=False), a norm and a scale
    per parameter (bad), vs its default (foreach kernels over all gradients at once: fixed)."""
    torch = _torch()
    import timm

    model = timm.create_model("vit_base_patch16_224", pretrained=False).cuda()
    model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (64,), device="cuda")
    run = _as_run(torch, model)
    foreach = False if variant == "bad" else None  # None: the library's default

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = torch.nn.functional.cross_entropy(run(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, foreach=foreach)
        opt.step()

    config = {"model": "timm vit_base_patch16_224", "autocast": "bf16", "channels_last": True}
    return Built(step, 64, {**config, "optimizer": "AdamW(fused)", "clip_foreach": foreach})


def lstm_pack_lengths_on_gpu(variant: str) -> Built:
    """A 2-layer cuDNN LSTM (1024 hidden) classifying 64 padded sequences of up to 256 tokens
    through pack_padded_sequence(lengths.cpu(), enforce_sorted=False), BF16 autocast, fused
    AdamW. Bad: the lengths tensor lives on the GPU (moved there with the batch), so .cpu()
    copies it back to the host and waits for the GPU each step; fixed: the lengths stay on the
    host, as the DataLoader made them."""
    return lstm_pack_batch(64, lengths_on_gpu=variant == "bad")


def lstm_pack_batch(batch: int, lengths_on_gpu: bool = False) -> Built:
    """lstm_pack_lengths_on_gpu at `batch` sequences (batch_sweep.py lstm_pack_batch; the lengths
    on the host unless lengths_on_gpu)."""
    torch = _torch()
    nn = torch.nn
    from torch.nn.utils.rnn import pack_padded_sequence

    class Classifier(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.emb = nn.Embedding(8000, 1024)
            self.rnn = nn.LSTM(1024, 1024, num_layers=2, batch_first=True)
            self.head = nn.Linear(1024, 10)

        def forward(self, ids, lengths):
            # packing takes host lengths only (torch 2.11 raises on CUDA ones); .cpu() is what
            # code does about that error, and a no-op on a host tensor
            packed = pack_padded_sequence(
                self.emb(ids), lengths.cpu(), batch_first=True, enforce_sorted=False
            )
            _, (h, _) = self.rnn(packed)
            return self.head(h[-1])

    model = Classifier().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    lengths = torch.randint(32, 257, (batch,))
    ids = torch.randint(0, 8000, (batch, 256), device="cuda")
    y = torch.randint(0, 10, (batch,), device="cuda")
    if lengths_on_gpu:
        lengths = lengths.cuda()
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: nn.functional.cross_entropy(run(ids, lengths), y))
    config = {
        "model": f"2-layer LSTM classifier (cuDNN), 1024 hidden, packed {batch} x <=256 tokens"
    }
    return Built(step, batch, {**config, "autocast": "bf16", "lengths_on_gpu": lengths_on_gpu})


def lstm_pack_gpu_lengths_batch(batch: int) -> Built:
    """lstm_pack_lengths_on_gpu's bad run at `batch` sequences (batch_sweep.py)."""
    return lstm_pack_batch(batch, lengths_on_gpu=True)


def hrnet_healthy(variant: str) -> Built:
    """timm HRNet-W18-small-v2 (four parallel resolutions, fused by many small convolutions and
    upsamplings) training, batch 64, BF16 autocast + channels_last, fused AdamW."""
    return _timm(_torch(), "hrnet_w18_small_v2", 64, fixed=True, fused_adamw=True)


def bloom_healthy(variant: str) -> Built:
    """HF BLOOM (config: bloom-560m's 24 layers of 1024, 16 heads, its 250,880-token vocabulary;
    ALiBi attention biases) causal-LM training on 8 x 512 tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import BloomConfig, BloomForCausalLM

    cfg = BloomConfig(n_layer=24, hidden_size=1024, n_head=16)
    ids = torch.randint(0, cfg.vocab_size, (8, 512), device="cuda")
    return _hf_train(
        torch,
        BloomForCausalLM(cfg),
        lambda m: m(input_ids=ids, labels=ids).loss,
        8,
        {"model": "HF bloom-560m (config)", "tokens": "8 x 512"},
    )


# ---- holdout 44: more models no rule was written against (labels fixed before capture) ---------


def vit_layer_timing_hooks(variant: str) -> Built:
    """timm ViT-B/16 training, batch 64, BF16 autocast + channels_last, fused AdamW. Bad: per-block
    timing left in from a profiling session: forward hooks on each of the 12 blocks record CUDA
    events around it and read the elapsed time at once (end.synchronize(), elapsed_time), as
    per-layer timing code does; fixed: no hooks."""
    torch = _torch()
    import timm

    model = timm.create_model("vit_base_patch16_224", pretrained=False)
    timings: list[float] = []
    if variant == "bad":
        for block in model.blocks:
            start = torch.cuda.Event(enable_timing=True)
            end = torch.cuda.Event(enable_timing=True)

            def before(module, args, start=start):
                start.record()

            def after(module, args, output, start=start, end=end):
                end.record()
                end.synchronize()
                timings.append(start.elapsed_time(end))

            block.register_forward_pre_hook(before)
            block.register_forward_hook(after)
    built = _image_train(torch, model, "timm vit_base_patch16_224", 64, True, True)
    built.config["block_timing_hooks"] = variant == "bad"
    return built


def levit_healthy(variant: str) -> Built:
    """timm LeViT-256 (convolutional stem, attention stages with BatchNorm'd linear layers)
    training, batch 256, BF16 autocast + channels_last, fused AdamW."""
    return _timm(_torch(), "levit_256", 256, fixed=True, fused_adamw=True)


def marian_healthy(variant: str) -> Built:
    """HF Marian (config: opus-mt-en-de's sizes, 6 + 6 layers of 512, 8 heads, 58,101-token
    vocabulary) translation training on 32 pairs of 128 tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import MarianConfig, MarianMTModel

    cfg = MarianConfig(
        vocab_size=58101,
        d_model=512,
        encoder_layers=6,
        decoder_layers=6,
        encoder_attention_heads=8,
        decoder_attention_heads=8,
        encoder_ffn_dim=2048,
        decoder_ffn_dim=2048,
        pad_token_id=58100,
        decoder_start_token_id=58100,
    )
    src = torch.randint(0, 58100, (32, 128), device="cuda")
    tgt = torch.randint(0, 58100, (32, 128), device="cuda")
    return _hf_train(
        torch,
        MarianMTModel(cfg),
        lambda m: m(input_ids=src, labels=tgt).loss,
        32,
        {"model": "HF marian opus-mt-en-de (config)", "tokens": "32 x (128 + 128)"},
    )


def ssd_healthy(variant: str) -> Built:
    """torchvision SSD300 (VGG-16, random weights) training on 8 random 640 x 640 images (resized
    to 300 by the model's transform) with 8 random boxes each, BF16 autocast, SGD with momentum:
    a one-stage detector that matches default boxes and mines hard negatives per image."""
    return _detection_train("ssd300_vgg16", images=8, boxes=8)


# ---- holdout 45: more models no rule was written against (labels fixed before capture) ---------


def gpt2_manual_label_smoothing(variant: str) -> Built:
    """HF GPT-2 (124M) training, 8 x 1024 tokens, BF16 autocast, fused AdamW, cross-entropy with
    label smoothing 0.1 over its 50,304-token vocabulary. Bad: written by hand, as code from
    before F.cross_entropy took label_smoothing does it (a one-hot target smoothed in FP32, times
    the FP32 log-softmax, summed); fixed: F.cross_entropy(label_smoothing=0.1)."""
    model, cfg, torch = _gpt2()
    F = torch.nn.functional
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    run = _as_run(torch, model)
    eps = 0.1

    def loss_of():
        logits = run(input_ids=ids).logits[:, :-1].flatten(0, 1).float()
        target = ids[:, 1:].flatten()
        if variant == "fixed":
            return F.cross_entropy(logits, target, label_smoothing=eps)
        smooth = F.one_hot(target, cfg.vocab_size).float() * (1 - eps) + eps / cfg.vocab_size
        return -(smooth * F.log_softmax(logits, dim=-1)).sum(-1).mean()

    step = _train_step(torch, opt, loss_of)
    config = {"model": "gpt2-124M", "tokens": 8 * 1024, "autocast": "bf16"}
    how = "F.cross_entropy(label_smoothing)" if variant == "fixed" else "one-hot by hand"
    return Built(step, 8, {**config, "optimizer": "AdamW(fused)", "label_smoothing": how})


def convmixer_healthy(variant: str) -> Built:
    """timm ConvMixer-768/32 (a 7 x 7 patch stem, then 32 blocks of 7 x 7 depthwise and
    pointwise convolutions at one resolution) training, batch 64, BF16 autocast + channels_last,
    fused AdamW."""
    return _timm(_torch(), "convmixer_768_32", 64, fixed=True, fused_adamw=True)


def electra_healthy(variant: str) -> Built:
    """HF ELECTRA discriminator (config: electra-base sizes, 12 layers of 768) replaced-token
    detection training on 32 x 256 tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import ElectraConfig, ElectraForPreTraining

    cfg = ElectraConfig(
        embedding_size=768, hidden_size=768, num_hidden_layers=12, num_attention_heads=12,
        intermediate_size=3072,
    )  # fmt: skip
    ids = torch.randint(0, cfg.vocab_size, (32, 256), device="cuda")
    replaced = torch.randint(0, 2, (32, 256), device="cuda")
    return _hf_train(
        torch,
        ElectraForPreTraining(cfg),
        lambda m: m(input_ids=ids, labels=replaced).loss,
        32,
        {"model": "HF electra-base discriminator (config)", "tokens": "32 x 256"},
    )


# ---- holdout 46: more models no rule was written against (labels fixed before capture) ---------


def efficientnet_adamw_loop(variant: str) -> Built:
    """timm EfficientNet-B0 training, batch 128, BF16 autocast + channels_last. Bad: AdamW with
    foreach=False (a Python loop over its 213 parameters, a handful of kernels each); fixed:
    AdamW(fused=True)."""
    return _timm_adamw_loop("efficientnet_b0", variant)


def _timm_adamw_loop(name: str, variant: str) -> Built:
    """timm `name` trained at batch 128, BF16 autocast + channels_last, with AdamW(foreach=False)
    (bad) vs AdamW(fused=True) (fixed)."""
    torch = _torch()
    import timm

    model = timm.create_model(name, pretrained=False).cuda()
    model = model.to(memory_format=torch.channels_last)
    opt = (
        torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        if variant == "fixed"
        else torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=False)
    )
    x = torch.randn(128, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (128,), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y))
    optimizer = "AdamW(fused)" if variant == "fixed" else "AdamW(foreach=False)"
    config = {"model": f"timm {name}", "autocast": "bf16", "channels_last": True}
    return Built(step, 128, {**config, "optimizer": optimizer})


def mamba_batch(batch: int) -> Built:
    """HF Mamba (config: 4 layers of 512, state 16) causal-LM training on `batch` x 128 tokens,
    BF16 autocast, fused AdamW (batch_sweep.py mamba_batch). Without the mamba-ssm and
    causal-conv1d kernels (not installed) HF runs its slow path: the selective scan as a Python
    loop over the 128 positions in every layer."""
    torch = _torch()
    from transformers import MambaConfig, MambaForCausalLM
    from transformers.models.mamba import modeling_mamba

    cfg = MambaConfig(vocab_size=32000, hidden_size=512, state_size=16, num_hidden_layers=4)
    ids = torch.randint(0, cfg.vocab_size, (batch, 128), device="cuda")
    fast = bool(getattr(modeling_mamba, "is_fast_path_available", False))
    return _hf_train(
        torch,
        MambaForCausalLM(cfg),
        lambda m: m(input_ids=ids, labels=ids).loss,
        batch,
        {"model": "HF Mamba (config: 4 x 512)", "tokens": f"{batch} x 128", "fast_path": fast},
    )


def mamba_scan_batch(variant: str) -> Built:
    """mamba_batch at 2 sequences a step (bad) vs 16 (fixed)."""
    return mamba_batch(16 if variant == "fixed" else 2)


def nfnet_healthy(variant: str) -> Built:
    """timm NFNet-L0 (normaliser-free: weights standardised in every forward, scaled
    activations, no BatchNorm) training, batch 64, BF16 autocast + channels_last, fused AdamW."""
    return _timm(_torch(), "nfnet_l0", 64, fixed=True, fused_adamw=True)


def longformer_healthy(variant: str) -> Built:
    """HF Longformer (config: longformer-base sizes, 12 layers of 768, attention window 256)
    masked-LM training on 4 x 1024 tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import LongformerConfig, LongformerForMaskedLM

    cfg = LongformerConfig(attention_window=256, max_position_embeddings=1026)
    ids = torch.randint(3, cfg.vocab_size, (4, 1024), device="cuda")
    return _hf_train(
        torch,
        LongformerForMaskedLM(cfg),
        lambda m: m(input_ids=ids, labels=ids).loss,
        4,
        {"model": "HF longformer-base (config, window 256)", "tokens": "4 x 1024"},
    )


# ---- holdout 47: more models no rule was written against (labels fixed before capture) ---------


def gpt2_all_ones_mask(variant: str) -> Built:
    """HF GPT-2 (124M) training, 8 x 1024 tokens, BF16 autocast, fused AdamW. Bad: the
    tokenizer's attention_mask (all ones: no padding) passed to the model, as a loop that hands
    the whole tokenizer output to the model does; fixed: no mask, attention causal alone."""
    model, cfg, torch = _gpt2()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    mask = torch.ones_like(ids)
    run = _as_run(torch, model)

    def loss_of():
        if variant == "fixed":
            return run(input_ids=ids, labels=ids).loss
        return run(input_ids=ids, attention_mask=mask, labels=ids).loss

    step = _train_step(torch, opt, loss_of)
    config = {"model": "gpt2-124M", "tokens": 8 * 1024, "autocast": "bf16"}
    how = "none" if variant == "fixed" else "all ones, passed"
    return Built(step, 8, {**config, "optimizer": "AdamW(fused)", "attention_mask": how})


def squeezebert_healthy(variant: str) -> Built:
    """HF SqueezeBERT (config: squeezebert-uncased sizes, 12 layers of 768, its projections
    grouped 1-D convolutions) masked-LM training on 32 x 256 tokens, BF16 autocast, fused
    AdamW."""
    torch = _torch()
    from transformers import SqueezeBertConfig, SqueezeBertForMaskedLM

    cfg = SqueezeBertConfig()
    ids = torch.randint(0, cfg.vocab_size, (32, 256), device="cuda")
    return _hf_train(
        torch,
        SqueezeBertForMaskedLM(cfg),
        lambda m: m(input_ids=ids, labels=ids).loss,
        32,
        {"model": "HF squeezebert-uncased (config)", "tokens": "32 x 256"},
    )


def funnel_healthy(variant: str) -> Built:
    """HF Funnel Transformer (config: funnel-transformer/small sizes, blocks of 4 layers of 768
    pooled between them, relative attention) masked-LM training on 16 x 512 tokens, BF16
    autocast, fused AdamW."""
    torch = _torch()
    from transformers import FunnelConfig, FunnelForMaskedLM

    cfg = FunnelConfig()
    ids = torch.randint(0, cfg.vocab_size, (16, 512), device="cuda")
    return _hf_train(
        torch,
        FunnelForMaskedLM(cfg),
        lambda m: m(input_ids=ids, labels=ids).loss,
        16,
        {"model": "HF funnel-transformer/small (config)", "tokens": "16 x 512"},
    )


def fcos_healthy(variant: str) -> Built:
    """torchvision FCOS (ResNet-50 FPN, random weights) training on 8 random 640 x 640 images
    (resized to 800 by the model's transform) with 8 random boxes each, BF16 autocast, SGD with
    momentum and weight decay: an anchor-free detector that assigns locations to boxes per
    image."""
    return _detection_train("fcos_resnet50_fpn", images=8, boxes=8)


# ---- holdout 48: more models no rule was written against (labels fixed before capture) ---------


def qwen2_checkpointing_unneeded(variant: str) -> Built:
    """HF Qwen2 (config: 8 layers x 1024) causal-LM training on 8 x 1024 tokens, BF16 autocast,
    fused AdamW, memory to spare: gradient_checkpointing_enable() (bad) vs off (fixed)."""
    from transformers import Qwen2Config, Qwen2ForCausalLM

    return _hf_decoder_checkpointing(Qwen2Config, Qwen2ForCausalLM, "qwen2", variant == "bad")


def _hf_decoder_checkpointing(config_cls, model_cls, name: str, checkpointed: bool) -> Built:
    """An HF causal LM (DECODER_8X1024) trained on 8 x 1024 tokens as _hf_train does, with
    gradient_checkpointing_enable() (transformers' default arguments) or without."""
    torch = _torch()
    cfg = config_cls(**DECODER_8X1024)
    model = model_cls(cfg)
    if checkpointed:
        model.gradient_checkpointing_enable()
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    return _hf_train(
        torch,
        model,
        lambda m: m(input_ids=ids, labels=ids, use_cache=False).loss,
        8,
        {
            "model": f"{name} 8x1024 (config)",
            "tokens": 8 * 1024,
            "gradient_checkpointing": checkpointed,
        },
    )


def bert_trim_padding_sync(variant: str) -> Built:
    """HF BERT-base masked-LM training, BF16 autocast, fused AdamW, on batches of 32 sequences
    padded to 512 whose real lengths vary (each batch's longest 128 to 512 tokens); every step
    trims the padding to the batch's longest sequence. Bad: that length read from the mask on
    the GPU (mask.sum(1).max().item(), a host read every step); fixed: from the lengths the
    loader already holds on the host. Both run the same kernels on the same shapes."""
    torch = _torch()
    from transformers import BertConfig, BertForMaskedLM

    cfg = BertConfig()
    gen = torch.Generator().manual_seed(0)
    n_batches = 16
    longest = torch.randint(16, 65, (n_batches, 1), generator=gen) * 8
    lengths = (torch.rand(n_batches, 32, generator=gen) * longest).long().clamp(min=8)
    lengths[:, 0] = longest[:, 0]  # one sequence of each batch is its longest
    ids = torch.randint(5, cfg.vocab_size, (n_batches, 32, 512), generator=gen).cuda()
    masks = (torch.arange(512) < lengths[..., None]).long().cuda()
    from_host = variant == "fixed"
    n = 0

    def loss_of(model):
        nonlocal n
        i = n % n_batches
        n += 1
        mask = masks[i]
        length = int(lengths[i].max()) if from_host else int(mask.sum(1).max().item())
        x, m = ids[i, :, :length], mask[:, :length]
        labels = x.masked_fill(m == 0, -100)
        return model(input_ids=x, attention_mask=m, labels=labels).loss

    config = {
        "model": "bert-base (config) MLM",
        "tokens": "32 x 128..512 (trimmed per batch)",
        "length_read": "host lengths" if from_host else "mask.sum(1).max().item()",
    }
    built = _hf_train(torch, BertForMaskedLM(cfg), loss_of, 32, config)
    note = (
        "FlopCounterMode over one step at the first batch's length (lengths change every step, "
        "so trace FLOPs differ per step)"
    )
    return replace(built, timed_steps=16, flops_note=note)


def swinv2_healthy(variant: str) -> Built:
    """torchvision Swin V2-T (cosine attention, log-spaced continuous position bias) training,
    batch 64, 224 x 224, BF16 autocast + channels_last, fused AdamW."""
    torch = _torch()
    import torchvision

    model = torchvision.models.swin_v2_t(weights=None)
    return _image_train(torch, model, "swin_v2_t", 64, fixed=True, fused_adamw=True)


def esm_healthy(variant: str) -> Built:
    """HF ESM-2 (config: esm2_t30_150M sizes, 30 layers of 640, rotary positions, token dropout)
    masked-LM training on 16 protein sequences of 512 residues, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import EsmConfig, EsmForMaskedLM

    cfg = EsmConfig(
        vocab_size=33,
        mask_token_id=32,
        pad_token_id=1,
        hidden_size=640,
        num_hidden_layers=30,
        num_attention_heads=20,
        intermediate_size=2560,
        position_embedding_type="rotary",
        max_position_embeddings=1026,
        token_dropout=True,
        emb_layer_norm_before=False,
    )
    ids = torch.randint(4, 24, (16, 512), device="cuda")
    return _hf_train(
        torch,
        EsmForMaskedLM(cfg),
        lambda m: m(input_ids=ids, labels=ids).loss,
        16,
        {"model": "HF esm2_t30_150M (config)", "tokens": "16 x 512"},
    )


def patchtst_batch(batch: int) -> Built:
    """HF PatchTST forecasting (7 channels, 512 past steps in patches of 16, 96 predicted; 3
    layers of 128) trained on `batch` random windows, BF16 autocast, fused AdamW
    (batch_sweep.py patchtst_batch)."""
    torch = _torch()
    from transformers import PatchTSTConfig, PatchTSTForPrediction

    cfg = PatchTSTConfig(
        num_input_channels=7,
        context_length=512,
        patch_length=16,
        patch_stride=16,
        prediction_length=96,
        d_model=128,
        num_attention_heads=16,
        num_hidden_layers=3,
        ffn_dim=256,
        dropout=0.2,
    )
    past = torch.randn(batch, 512, 7, device="cuda")
    future = torch.randn(batch, 96, 7, device="cuda")
    return _hf_train(
        torch,
        PatchTSTForPrediction(cfg),
        lambda m: m(past_values=past, future_values=future).loss,
        batch,
        {"model": "HF PatchTST (config: 3 x 128)", "windows": f"{batch} x 512 x 7"},
    )


def patchtst_healthy(variant: str) -> Built:
    """patchtst_batch at 128 windows a step, a common setting for the ETT benchmarks."""
    return patchtst_batch(128)


# ---- holdout 49: more models no rule was written against (labels fixed before capture) ---------


def deberta_v3_fp32_precision(variant: str) -> Built:
    """deberta_v3_healthy's classifier in FP32 with default flags (no autocast, FP32 matmuls)
    (bad) vs BF16 autocast (fixed)."""
    return _deberta_v3_train(bf16=variant == "fixed")


def gpt2_cpu_offload_adam(variant: str) -> Built:
    """HF GPT-2 (124M) training, 8 x 1024 tokens, BF16 autocast. Bad: the optimizer offloaded by
    hand, as a loop written to save GPU memory does: FP32 master weights in host memory, each
    step the gradients copied to the host, AdamW (foreach) run on the CPU and the weights copied
    back; fixed: fused AdamW on the GPU."""
    model, cfg, torch = _gpt2()
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    run = _as_run(torch, model)
    params = list(model.parameters())
    offload = variant == "bad"
    if offload:
        master = [p.detach().to("cpu").requires_grad_(True) for p in params]
        cpu_opt = torch.optim.AdamW(master, lr=1e-4, foreach=True)

        def opt_step():
            for p, m in zip(params, master):
                m.grad = p.grad.to("cpu")
            cpu_opt.step()
            with torch.no_grad():
                for p, m in zip(params, master):
                    p.copy_(m)

    else:
        gpu_opt = torch.optim.AdamW(params, lr=1e-4, fused=True)
        opt_step = gpu_opt.step

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = run(input_ids=ids, labels=ids).loss
        for p in params:
            p.grad = None
        loss.backward()
        opt_step()

    how = "AdamW(foreach) on the CPU, weights copied each step" if offload else "AdamW(fused)"
    config = {"model": "gpt2-124M", "tokens": 8 * 1024, "autocast": "bf16", "optimizer": how}
    return Built(step, 8, config)


def pvt_v2_healthy(variant: str) -> Built:
    """timm PVT-v2-B2 (pyramid vision transformer: attention over spatially reduced keys and
    values, depthwise convolutions in its MLPs) training, batch 64, BF16 autocast +
    channels_last, fused AdamW."""
    return _timm(_torch(), "pvt_v2_b2", 64, fixed=True, fused_adamw=True)


def mvit_video_healthy(variant: str) -> Built:
    """torchvision MViT-v2-S video classifier (pooling attention over space and time) trained on
    4 clips of 16 frames at 224 x 224, BF16 autocast, fused AdamW."""
    torch = _torch()
    import torchvision

    model = torchvision.models.video.mvit_v2_s(weights=None).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(4, 3, 16, 224, 224, device="cuda")
    y = torch.randint(0, 400, (4,), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y))
    config = {"model": "torchvision mvit_v2_s", "clips": "4 x 16 x 224 x 224"}
    return Built(step, 4, {**config, "autocast": "bf16", "optimizer": "AdamW(fused)"})


def gemma2_healthy(variant: str) -> Built:
    """HF Gemma 2 (config: 8 layers x 1024, 8 heads of 128, attention logit soft-capping,
    sliding-window layers alternating with global ones, its 256,000-token vocabulary) causal-LM
    training on 8 x 1024 tokens, BF16 autocast, fused AdamW."""
    from transformers import Gemma2Config, Gemma2ForCausalLM

    return _gemma_train(Gemma2Config, Gemma2ForCausalLM, "gemma2", sliding_window=512)


# ---- holdout 50: more models no rule was written against (labels fixed before capture) ---------


def _unet(torch):
    """A diffusion-style UNet written by hand (the machine has no diffusers): residual blocks of
    GroupNorm(32) + SiLU + 3x3 convolution with the timestep's embedding added, 128-256-512
    channels over 64 -> 32 -> 16 pixels, self-attention (SDPA, 8 heads) at 16 x 16, skips."""
    nn = torch.nn
    F = nn.functional

    class ResBlock(nn.Module):
        def __init__(self, cin: int, cout: int, tdim: int):
            super().__init__()
            self.n1, self.c1 = nn.GroupNorm(32, cin), nn.Conv2d(cin, cout, 3, padding=1)
            self.t = nn.Linear(tdim, cout)
            self.n2, self.c2 = nn.GroupNorm(32, cout), nn.Conv2d(cout, cout, 3, padding=1)
            self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

        def forward(self, x, temb):
            h = self.c1(F.silu(self.n1(x))) + self.t(F.silu(temb))[:, :, None, None]
            return self.c2(F.silu(self.n2(h))) + self.skip(x)

    class Attention(nn.Module):
        def __init__(self, c: int, heads: int = 8):
            super().__init__()
            self.heads, self.norm = heads, nn.GroupNorm(32, c)
            self.qkv, self.out = nn.Conv2d(c, 3 * c, 1), nn.Conv2d(c, c, 1)

        def forward(self, x):
            b, c, h, w = x.shape
            qkv = self.qkv(self.norm(x)).reshape(b, 3, self.heads, c // self.heads, h * w)
            q, k, v = qkv.transpose(-1, -2).unbind(1)
            o = F.scaled_dot_product_attention(q, k, v).transpose(-1, -2)
            return x + self.out(o.reshape(b, c, h, w))

    class UNet(nn.Module):
        def __init__(self, chans=(128, 256, 512), tdim: int = 512):
            super().__init__()
            self.base = chans[0]
            self.temb = nn.Sequential(nn.Linear(chans[0], tdim), nn.SiLU(), nn.Linear(tdim, tdim))
            self.inp = nn.Conv2d(3, chans[0], 3, padding=1)
            self.down, self.up = nn.ModuleList(), nn.ModuleList()
            c = chans[0]
            for co in chans:
                self.down.append(nn.ModuleList([ResBlock(c, co, tdim), ResBlock(co, co, tdim)]))
                c = co
            self.pools = nn.ModuleList(
                nn.Conv2d(co, co, 3, stride=2, padding=1) for co in chans[:-1]
            )
            self.mid1, self.attn, self.mid2 = (
                ResBlock(c, c, tdim),
                Attention(c),
                ResBlock(c, c, tdim),
            )
            for co in reversed(chans):
                self.up.append(nn.ModuleList([ResBlock(c + co, co, tdim), ResBlock(co, co, tdim)]))
                c = co
            self.out = nn.Sequential(nn.GroupNorm(32, c), nn.SiLU(), nn.Conv2d(c, 3, 3, padding=1))

        def forward(self, x, t):
            half = self.base // 2
            freqs = torch.exp(-9.21 * torch.arange(half, device=x.device) / half)  # log(1e4)
            angles = t[:, None].float() * freqs[None]
            temb = self.temb(torch.cat([angles.cos(), angles.sin()], dim=1))
            h, skips = self.inp(x), []
            for i, blocks in enumerate(self.down):
                for block in blocks:
                    h = block(h, temb)
                skips.append(h)
                if i < len(self.pools):
                    h = self.pools[i](h)
            h = self.mid2(self.attn(self.mid1(h, temb)), temb)
            for i, blocks in enumerate(self.up):
                h = blocks[0](torch.cat([h, skips.pop()], dim=1), temb)
                h = blocks[1](h, temb)
                if i < len(self.up) - 1:
                    h = F.interpolate(h, scale_factor=2.0, mode="nearest")
            return self.out(h)

    return UNet()


def unet_fp32_precision(variant: str) -> Built:
    """The hand-written diffusion UNet (_unet) trained to predict the noise added to 64 x 64
    images at a random timestep, batch 32, fused AdamW: FP32 with default flags, NCHW (bad) vs
    BF16 autocast + channels_last (fixed)."""
    torch = _torch()
    fixed = variant == "fixed"
    fmt = torch.channels_last if fixed else torch.contiguous_format
    model = _unet(torch).cuda().to(memory_format=fmt)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    alphas = torch.cumprod(1 - torch.linspace(1e-4, 0.02, 1000, device="cuda"), 0)
    images = torch.randn(32, 3, 64, 64, device="cuda").to(memory_format=fmt)
    run = _as_run(torch, model)

    def loss_of():
        t = torch.randint(0, 1000, (32,), device="cuda")
        noise = torch.randn_like(images)
        a = alphas[t][:, None, None, None]
        noisy = a.sqrt() * images + (1 - a).sqrt() * noise
        return torch.nn.functional.mse_loss(run(noisy, t).float(), noise)

    step = _train_step(torch, opt, loss_of, bf16=fixed)
    config = {"model": "hand-written diffusion UNet 128-256-512, attention at 16x16"}
    config |= {"images": "32 x 3 x 64 x 64", "autocast": "bf16" if fixed else None}
    return Built(step, 32, {**config, "channels_last": fixed, "optimizer": "AdamW(fused)"})


def qwen2_fp32_lm_head(variant: str) -> Built:
    """HF Qwen2 (config: 8 layers x 1024, its 151,936-token vocabulary, untied head) trained on
    8 x 1024 tokens, BF16 autocast, fused AdamW, the loss on FP32 logits. Bad: the LM head run
    outside autocast on FP32 hidden states (logits "in full precision for stability"); fixed:
    the head under autocast like the rest, its logits cast to FP32 for the loss."""
    torch = _torch()
    F = torch.nn.functional
    from transformers import Qwen2Config, Qwen2ForCausalLM

    cfg = Qwen2Config(**{**DECODER_8X1024, "vocab_size": 151936}, tie_word_embeddings=False)
    model = Qwen2ForCausalLM(cfg).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    body = _as_run(torch, model.model)
    fp32_head = variant != "fixed"

    def loss_of():
        hidden = body(input_ids=ids).last_hidden_state
        with torch.autocast("cuda", enabled=not fp32_head):
            logits = model.lm_head(hidden.float() if fp32_head else hidden)
        return F.cross_entropy(logits[:, :-1].float().flatten(0, 1), ids[:, 1:].flatten())

    step = _train_step(torch, opt, loss_of)
    config = {"model": "qwen2 8x1024 (config), vocabulary 151,936", "tokens": "8 x 1024"}
    config["lm_head"] = "fp32, outside autocast" if fp32_head else "bf16 autocast"
    return Built(step, 8, {**config, "autocast": "bf16", "optimizer": "AdamW(fused)"})


def mpnet_loop_adamw_clip(variant: str) -> Built:
    """HF MPNet (base sizes: 12 x 768, relative position buckets) masked-LM training on 32 x 128
    tokens, BF16 autocast, gradients clipped to norm 1.0. Bad: AdamW(foreach=False) and
    clip_grad_norm_(foreach=False), a loop over the ~200 parameters each; fixed: AdamW(fused=True)
    and clip_grad_norm_'s default (foreach)."""
    torch = _torch()
    from transformers import MPNetConfig, MPNetForMaskedLM

    model = MPNetForMaskedLM(MPNetConfig()).cuda()
    loop = variant != "fixed"
    opt = (
        torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=False)
        if loop
        else torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    )
    ids = torch.randint(0, model.config.vocab_size, (32, 128), device="cuda")
    run = _as_run(torch, model)
    step = _clipped_step(torch, model, opt, lambda: run(input_ids=ids, labels=ids).loss,
                         foreach=False if loop else None)  # fmt: skip

    config = {"model": "mpnet-base sizes (config)", "tokens": "32 x 128", "autocast": "bf16"}
    config["optimizer"] = "AdamW(foreach=False)" if loop else "AdamW(fused)"
    config["clip_grad_norm"] = "foreach=False" if loop else "default (foreach)"
    return Built(step, 32, config)


def xcit_healthy(variant: str) -> Built:
    """timm XCiT-S12/16 (cross-covariance attention over channels, local patch interaction
    convolutions, class-attention layers) trained on 224 x 224 images, batch 128, BF16 autocast,
    fused AdamW."""
    return _timm(_torch(), "xcit_small_12_p16_224", 128, fixed=True, fused_adamw=True)


def olmo2_healthy(variant: str) -> Built:
    """HF OLMo 2 (config: 8 layers x 1024, RMSNorm after each sublayer, RMSNorm on queries and
    keys) causal-LM training on 8 x 1024 tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import Olmo2Config, Olmo2ForCausalLM

    cfg = Olmo2Config(**{**DECODER_8X1024, "vocab_size": 100352})
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    config = {"model": "olmo2 8x1024 (config), vocabulary 100,352", "tokens": "8 x 1024"}
    model = Olmo2ForCausalLM(cfg)
    return _hf_train(torch, model, lambda m: m(input_ids=ids, labels=ids).loss, 8, config)


def modernbert_healthy(variant: str) -> Built:
    """HF ModernBERT (config: 12 layers x 768, GeGLU 1152, local attention over 128 tokens with
    a global layer every third, rotary embeddings) masked-LM training on 16 x 512 tokens, BF16
    autocast, fused AdamW, SDPA attention."""
    torch = _torch()
    from transformers import ModernBertConfig, ModernBertForMaskedLM

    cfg = ModernBertConfig(
        hidden_size=768,
        intermediate_size=1152,
        num_hidden_layers=12,
        num_attention_heads=12,
        global_attn_every_n_layers=3,
        local_attention=128,
        reference_compile=False,  # transformers 4.x compiled its MLPs by itself unless told not to
    )
    model = ModernBertForMaskedLM(cfg)
    ids = torch.randint(0, cfg.vocab_size, (16, 512), device="cuda")
    config = {"model": "modernbert 12x768 (config)", "tokens": "16 x 512", "attention": "sdpa"}
    return _hf_train(torch, model, lambda m: m(input_ids=ids, labels=ids).loss, 16, config)


# ---- holdout 51: more models no rule was written against (labels fixed before capture) ---------


def convnext_save_on_cpu(variant: str) -> Built:
    """torchvision ConvNeXt-T trained on 32 images of 224 x 224, BF16 autocast + channels_last,
    fused AdamW, with plenty of GPU memory to spare. Bad: the forward under
    torch.autograd.graph.save_on_cpu() (its default: pageable host memory), which copies every
    saved activation to the host and back for the backward, as a loop written to save memory
    does; fixed: activations kept on the GPU."""
    torch = _torch()
    import torchvision

    model = torchvision.models.convnext_tiny(weights=None).cuda()
    model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(32, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (32,), device="cuda")
    run = _as_run(torch, model)
    offload = variant != "fixed"

    def loss_of():
        if not offload:
            return torch.nn.functional.cross_entropy(run(x), y)
        with torch.autograd.graph.save_on_cpu():
            return torch.nn.functional.cross_entropy(run(x), y)

    step = _train_step(torch, opt, loss_of)
    config = {"model": "torchvision convnext_tiny", "autocast": "bf16", "channels_last": True}
    config["saved_activations"] = "save_on_cpu() (pageable)" if offload else "on the GPU"
    return Built(step, 32, {**config, "optimizer": "AdamW(fused)"})


def hiera_healthy(variant: str) -> Built:
    """timm Hiera-S (hierarchical ViT: mask-unit attention in its first stages, pooled queries
    between stages) trained on 224 x 224 images, batch 128, BF16 autocast, fused AdamW."""
    return _timm(_torch(), "hiera_small_224", 128, fixed=True, fused_adamw=True)


def gptj_healthy(variant: str) -> Built:
    """HF GPT-J (config: 8 layers x 1024, 16 heads, rotary embeddings on 64 dimensions of each
    head, attention and MLP in parallel off one LayerNorm) causal-LM training on 8 x 1024 tokens,
    BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import GPTJConfig, GPTJForCausalLM

    cfg = GPTJConfig(n_embd=1024, n_layer=8, n_head=16, rotary_dim=64, n_positions=2048)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    config = {"model": "gpt-j 8x1024 (config)", "tokens": "8 x 1024"}
    model = GPTJForCausalLM(cfg)
    return _hf_train(torch, model, lambda m: m(input_ids=ids, labels=ids).loss, 8, config)


# ---- holdout 52: more models no rule was written against (labels fixed before capture) ---------


def resnet50_cpu_normalize(variant: str) -> Built:
    """torchvision ResNet-50 trained on batches of 128 uint8 images (224 x 224) that the loop
    holds on the host, BF16 autocast + channels_last, fused AdamW. Bad: each batch made float and
    normalised on the CPU, then copied with .cuda() (four bytes a pixel, from pageable memory);
    fixed: the uint8 batch pinned, copied with non_blocking=True and normalised on the GPU."""
    torch = _torch()
    import torchvision

    model = torchvision.models.resnet50(weights=None).cuda()
    model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    on_host = variant != "fixed"
    images = torch.randint(0, 256, (128, 3, 224, 224), dtype=torch.uint8)
    images = images if on_host else images.pin_memory()
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1) * 255
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1) * 255
    mean_gpu, std_gpu = mean.cuda(), std.cuda()
    y = torch.randint(0, 1000, (128,), device="cuda")
    run = _as_run(torch, model)

    def batch():
        if on_host:
            x = ((images.float() - mean) / std).cuda()
        else:
            x = (images.cuda(non_blocking=True).float() - mean_gpu) / std_gpu
        return x.contiguous(memory_format=torch.channels_last)

    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(batch()), y))
    config = {"model": "torchvision resnet50", "autocast": "bf16", "channels_last": True}
    config["input"] = (
        "uint8 normalised on the CPU, .cuda() of float32 (pageable)"
        if on_host
        else "uint8 pinned, .cuda(non_blocking=True), normalised on the GPU"
    )
    return Built(step, 128, {**config, "optimizer": "AdamW(fused)"})


def beit_loss_threshold_check(variant: str) -> Built:
    """HF BEiT (base sizes, relative position bias in every layer) image classifier trained on
    64 images of 224 x 224, BF16 autocast, fused AdamW. Bad: after each step the loop tests the
    loss against a stopping threshold (`if loss.detach() < 1e-3`), a Python truth test of a GPU
    tensor; fixed: no test."""
    torch = _torch()
    from transformers import BeitConfig, BeitForImageClassification

    cfg = BeitConfig(use_relative_position_bias=True, num_labels=1000)
    model = BeitForImageClassification(cfg)
    x = torch.randn(64, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (64,), device="cuda")
    stopped: list[bool] = []

    def check(loss) -> None:
        if loss.detach() < 1e-3:
            stopped.append(True)

    config = {"model": "beit-base sizes (config), relative position bias", "images": 64}
    config["stop_check"] = "if loss < 1e-3 every step" if variant != "fixed" else None
    then = check if variant != "fixed" else None
    return _hf_train(
        torch, model, lambda m: m(pixel_values=x, labels=y).loss, 64, config, then=then
    )


def siglip_healthy(variant: str) -> Built:
    """HF SigLIP (config: ViT-B/16 image tower at 224 x 224, 12 x 768 text tower over 64
    tokens) trained contrastively with its sigmoid loss on 64 image-text pairs, BF16 autocast,
    fused AdamW."""
    torch = _torch()
    from transformers import SiglipConfig, SiglipModel

    cfg = SiglipConfig(
        text_config={"max_position_embeddings": 64},
        vision_config={"image_size": 224, "patch_size": 16},
    )
    model = SiglipModel(cfg)
    ids = torch.randint(0, cfg.text_config.vocab_size, (64, 64), device="cuda")
    x = torch.randn(64, 3, 224, 224, device="cuda")
    config = {"model": "siglip base sizes (config)", "pairs": 64, "text_tokens": 64}
    loss_of = lambda m: m(input_ids=ids, pixel_values=x, return_loss=True).loss  # noqa: E731
    return _hf_train(torch, model, loss_of, 64, config)


def tinyvit_healthy(variant: str) -> Built:
    """timm TinyViT-21M (convolutional first stage, then windowed attention with attention
    biases and depthwise convolutions between) trained on 224 x 224 images, batch 128, BF16
    autocast + channels_last, fused AdamW."""
    return _timm(_torch(), "tiny_vit_21m_224", 128, fixed=True, fused_adamw=True)


# ---- holdout 53 ---------------------------------------------------------------------------------


def unet_sampler_b1(variant: str) -> Built:
    """Sampling from the hand-written diffusion UNet (_unet, eval, BF16 autocast +
    channels_last): ten DDIM-style denoising steps of 64 x 64 images a step, one image at a time
    (bad) vs 16 at once (fixed); the saving is per image."""
    torch = _torch()
    batch = 16 if variant == "fixed" else 1
    model = _unet(torch).cuda().eval().to(memory_format=torch.channels_last)
    # the schedule on the host, as samplers keep it: Python numbers, no reads of the GPU
    alphas = torch.cumprod(1 - torch.linspace(1e-4, 0.02, 1000), 0).tolist()
    times = [999 - 111 * i for i in range(10)]
    run = _as_run(torch, model)

    def step():
        with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16):
            x = torch.randn(batch, 3, 64, 64, device="cuda").to(memory_format=torch.channels_last)
            for i, t in enumerate(times):
                a, a_next = alphas[t], alphas[times[i + 1]] if i + 1 < len(times) else 1.0
                eps = run(x, torch.full((batch,), t, device="cuda")).float()
                x0 = (x - (1 - a) ** 0.5 * eps) / a**0.5
                x = a_next**0.5 * x0 + (1 - a_next) ** 0.5 * eps

    config = {"model": "hand-written diffusion UNet 128-256-512, eval", "denoising_steps": 10}
    return Built(step, batch, {**config, "images": f"{batch} x 3 x 64 x 64", "autocast": "bf16"})


def resnet50_sgd_per_param(variant: str) -> Built:
    """torchvision ResNet-50 trained at batch 64, BF16 autocast + channels_last, SGD with
    momentum 0.9 and weight decay 1e-4: foreach=False, a loop over the 161 parameters (bad), vs
    PyTorch's default multi-tensor (foreach) implementation (fixed)."""
    torch = _torch()
    import torchvision

    model = torchvision.models.resnet50(weights=None).cuda()
    model = model.to(memory_format=torch.channels_last)
    foreach = variant == "fixed"
    opt = torch.optim.SGD(
        model.parameters(), lr=0.1, momentum=0.9, weight_decay=1e-4, foreach=foreach
    )
    x = torch.randn(64, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (64,), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y))
    config = {"model": "torchvision resnet50", "autocast": "bf16", "channels_last": True}
    return Built(step, 64, {**config, "optimizer": f"SGD(momentum, foreach={foreach})"})


def wgan_gp_healthy(variant: str) -> Built:
    """WGAN-GP on 64 x 64 images, batch 256: DCGAN's generator (_dcgan) and a critic of strided
    convolutions and LeakyReLU (no BatchNorm: the gradient penalty is per sample),
    one critic and one generator update a step with Adam (betas 0.0, 0.9), the critic's
    gradient penalty through torch.autograd.grad(create_graph=True), BF16 autocast."""
    torch = _torch()
    nn = torch.nn
    g, _ = _dcgan(torch)
    critic = nn.Sequential(
        nn.Conv2d(3, 64, 4, 2, 1), nn.LeakyReLU(0.2),
        nn.Conv2d(64, 128, 4, 2, 1), nn.LeakyReLU(0.2),
        nn.Conv2d(128, 256, 4, 2, 1), nn.LeakyReLU(0.2),
        nn.Conv2d(256, 512, 4, 2, 1), nn.LeakyReLU(0.2),
        nn.Conv2d(512, 1, 4, 1, 0), nn.Flatten(),
    ).cuda()  # fmt: skip
    opt_g = torch.optim.Adam(g.parameters(), lr=1e-4, betas=(0.0, 0.9))
    opt_c = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.9))
    batch = 256
    # compile_savings.py compiles the generator only: torch.compile has no double backward
    gen = _as_run(torch, g)
    real = torch.rand(batch, 3, 64, 64, device="cuda") * 2 - 1

    def step():
        z = torch.randn(batch, 100, 1, 1, device="cuda")
        with torch.autocast("cuda", dtype=torch.bfloat16):
            fake = gen(z)
            eps = torch.rand(batch, 1, 1, 1, device="cuda")
            mixed = (eps * real + (1 - eps) * fake.detach()).requires_grad_(True)
            # a view, not the leaf: FlopCounterMode's module hooks reject autograd.grad of a leaf
            mixed = mixed.view_as(mixed)
            grad = torch.autograd.grad(critic(mixed).sum(), mixed, create_graph=True)[0]
            penalty = ((grad.float().flatten(1).norm(dim=1) - 1) ** 2).mean()
            loss_c = critic(fake.detach()).float().mean() - critic(real).float().mean()
            loss_c = loss_c + 10 * penalty
        opt_c.zero_grad(set_to_none=True)
        loss_c.backward()
        opt_c.step()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss_g = -critic(fake).float().mean()
        opt_g.zero_grad(set_to_none=True)
        loss_g.backward()
        opt_g.step()

    config = {"model": "WGAN-GP 64x64 (DCGAN G + conv critic)", "autocast": "bf16"}
    return Built(step, batch, {**config, "optimizer": "Adam(foreach)", "gradient_penalty": 10})


def starcoder2_healthy(variant: str) -> Built:
    """HF Starcoder2 (config: 8 layers x 1024, 16 heads, LayerNorm, GELU MLP 4096, biases, its
    49,152-token vocabulary) trained on 8 x 1024 tokens, BF16 autocast, fused AdamW."""
    from transformers import Starcoder2Config, Starcoder2ForCausalLM

    return _decoder_lm_8x1024(
        Starcoder2Config, Starcoder2ForCausalLM, "starcoder2 8 x 1024 (config)", sliding_window=None
    )


def vit_sdpa_math_backend(variant: str) -> Built:
    """HF ViTForImageClassification (base sizes, config, 1000 classes) training at batch 64,
    BF16 autocast, fused AdamW. Bad: every step under sdpa_kernel(SDPBackend.MATH) (what a run
    pinned to the math backend for determinism or debugging keeps: attention as matmul,
    softmax, matmul); fixed: SDPA picks its fused kernel."""
    torch = _torch()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from transformers import ViTConfig, ViTForImageClassification

    model = ViTForImageClassification(ViTConfig(num_labels=1000))  # SDPA, transformers' default
    pixels = torch.randn(64, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (64,), device="cuda")
    math = variant != "fixed"
    config = {
        "model": "HF ViT-base (config)",
        "images": 64,
        "sdpa_backend": "math" if math else None,
    }
    built = _hf_train(torch, model, lambda m: m(pixel_values=pixels, labels=y).loss, 64, config)
    if not math:
        return built

    def step():
        with sdpa_kernel(SDPBackend.MATH):
            built.step()

    return replace(built, step=step)


def bigbird_healthy(variant: str) -> Built:
    """HF BigBird (config: RoBERTa-base sizes, block-sparse attention, blocks of 64, three random
    blocks) masked-LM training on 8 x 1024 tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import BigBirdConfig, BigBirdForMaskedLM

    cfg = BigBirdConfig(attention_type="block_sparse", max_position_embeddings=1024)
    model = BigBirdForMaskedLM(cfg)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    config = {"model": "bigbird-roberta-base sizes (config), block_sparse", "tokens": "8 x 1024"}
    return _hf_train(torch, model, lambda m: m(input_ids=ids, labels=ids).loss, 8, config)


# ---- holdout 54 ---------------------------------------------------------------------------------


def t5_generate_b1(variant: str) -> Built:
    """HF T5 at t5-small sizes (_t5_small, eval) generating 32 tokens greedily from 128-token
    inputs with its KV cache, BF16 autocast: one input at a time (bad) vs 32 at once (fixed);
    the saving is per input."""
    torch = _torch()
    model, cfg = _t5_small()
    model.eval()
    _compile_for_generate(model)
    batch = 32 if variant == "fixed" else 1
    src = torch.randint(2, cfg.vocab_size, (batch, 128), device="cuda")
    step = _inference_step(
        torch,
        model.generate,
        input_ids=src,
        attention_mask=torch.ones_like(src),
        max_new_tokens=32,
        min_new_tokens=32,
        do_sample=False,
    )
    config = {"model": "t5-small (config)", "input_tokens": 128, "new_tokens": 32}
    return Built(step, batch, {**config, "autocast": "bf16", "kv_cache": True}, timed_steps=3)


def sam_encoder(batch: int) -> Built:
    """HF SAM's image encoder (SamVisionModel, ViT-B config: 12 layers x 768 over 64 x 64 patches
    of a 1024 x 1024 image, 14 x 14 windowed attention with global attention in 4 layers, a
    convolutional neck) in inference, `batch` images, BF16 autocast (batch_sweep.py)."""
    torch = _torch()
    from transformers import SamVisionConfig, SamVisionModel

    model = SamVisionModel(SamVisionConfig()).cuda().eval()
    x = torch.randn(batch, 3, 1024, 1024, device="cuda")
    run = _as_run(torch, model)
    config = {"model": "SAM ViT-B image encoder (config)", "image": "1024 x 1024"}
    return Built(_inference_step(torch, run, pixel_values=x), batch, {**config, "autocast": "bf16"})


def sam_encoder_b1_healthy(variant: str) -> Built:
    """sam_encoder at batch 1, as interactive segmentation runs it: one image per call."""
    return sam_encoder(1)


def llama_fp32_inference(variant: str) -> Built:
    """HF Llama (config: 8 layers x 1024) scoring 8 x 1024 tokens in inference (a forward for
    the logits, no cache): default flags (FP32, matmuls without TF32) vs BF16 autocast."""
    torch = _torch()
    model, cfg = _llama(torch)
    model.eval()
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    run = _as_run(torch, model)
    bf16 = variant == "fixed"

    def step():
        with torch.inference_mode(), torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16):
            run(input_ids=ids)

    config = {"model": "llama 8 x 1024 (config)", "mode": "inference", "tokens": "8 x 1024"}
    config["autocast"] = "bf16" if bf16 else None
    config["matmul_allow_tf32"] = torch.backends.cuda.matmul.allow_tf32
    return Built(step, 8, config, timed_steps=10)


def coatnet_healthy(variant: str) -> Built:
    """timm CoAtNet-0 (coatnet_0_rw_224: MBConv stages, then relative-position transformer
    stages) trained on 224 x 224 images, batch 128, BF16 autocast + channels_last, fused
    AdamW."""
    return _timm(_torch(), "coatnet_0_rw_224", 128, fixed=True, fused_adamw=True)


# ---- holdout 55 ---------------------------------------------------------------------------------


def efficientnet_loader_workers(variant: str) -> Built:
    """timm EfficientNet-B0 trained on in-memory uint8 images augmented per sample in the
    DataLoader's workers (RandomResizedCrop, flip, RandAugment: _CachedImageDataset), batch 128,
    BF16 autocast + channels_last, SGD with momentum: 2 workers (bad) vs 14 (fixed), pinned
    memory and persistent workers on both."""
    torch = _torch()
    import timm

    model = timm.create_model("efficientnet_b0", pretrained=False)
    return _worker_fed_train(
        torch,
        _CachedImageDataset(),
        model,
        14 if variant == "fixed" else 2,
        {"model": "timm efficientnet_b0"},
        {"augment": "RandomResizedCrop, flip, RandAugment(2, 9) on uint8 in the workers"},
    )


def cohere_healthy(variant: str) -> Built:
    """HF Cohere (config: 8 layers x 1024, 16 heads, LayerNorm, attention and SwiGLU MLP in
    parallel, its 256,000-token vocabulary, tied embeddings, scaled logits) causal-LM training on
    8 x 1024 tokens, BF16 autocast, fused AdamW."""
    from transformers import CohereConfig, CohereForCausalLM

    name = "cohere 8 x 1024 (config), 256k vocabulary"
    return _decoder_lm_8x1024(CohereConfig, CohereForCausalLM, name)


# ---- holdout 56 ---------------------------------------------------------------------------------


def _lecture_gpt(torch, head_modules: bool, vocab: int = 65):
    """The character-level GPT of Karpathy's "Let's build GPT" lecture (6 layers x 384, 6 heads,
    256-token context, dropout 0.2, 65 characters), with its attention as the lecture writes it
    (head_modules: a Head module per head, each with its own key, query and value Linear, a
    tril mask filled with -inf, softmax, dropout, then torch.cat of the heads) or as nanoGPT's
    CausalSelfAttention (one Linear for q, k and v, scaled_dot_product_attention with
    is_causal)."""
    nn, F = torch.nn, torch.nn.functional
    n_embd, n_head, block, dropout = 384, 6, 256, 0.2
    size = n_embd // n_head

    class Head(nn.Module):
        def __init__(self):
            super().__init__()
            self.key = nn.Linear(n_embd, size, bias=False)
            self.query = nn.Linear(n_embd, size, bias=False)
            self.value = nn.Linear(n_embd, size, bias=False)
            self.register_buffer("tril", torch.tril(torch.ones(block, block)))
            self.dropout = nn.Dropout(dropout)

        def forward(self, x):
            t = x.shape[1]
            k, q = self.key(x), self.query(x)
            wei = q @ k.transpose(-2, -1) * k.shape[-1] ** -0.5
            wei = wei.masked_fill(self.tril[:t, :t] == 0, float("-inf"))
            wei = self.dropout(F.softmax(wei, dim=-1))
            return wei @ self.value(x)

    class HeadModules(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = nn.ModuleList([Head() for _ in range(n_head)])
            self.proj = nn.Linear(n_embd, n_embd)
            self.dropout = nn.Dropout(dropout)

        def forward(self, x):
            return self.dropout(self.proj(torch.cat([h(x) for h in self.heads], dim=-1)))

    class CausalSelfAttention(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv = nn.Linear(n_embd, 3 * n_embd, bias=False)
            self.proj = nn.Linear(n_embd, n_embd)
            self.dropout = nn.Dropout(dropout)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = (
                z.view(b, t, n_head, size).transpose(1, 2) for z in self.qkv(x).split(c, dim=2)
            )
            p = dropout if self.training else 0.0
            y = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
            return self.dropout(self.proj(y.transpose(1, 2).reshape(b, t, c)))

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.sa = HeadModules() if head_modules else CausalSelfAttention()
            self.ffwd = nn.Sequential(
                nn.Linear(n_embd, 4 * n_embd),
                nn.ReLU(),
                nn.Linear(4 * n_embd, n_embd),
                nn.Dropout(dropout),
            )
            self.ln1, self.ln2 = nn.LayerNorm(n_embd), nn.LayerNorm(n_embd)

        def forward(self, x):
            x = x + self.sa(self.ln1(x))
            return x + self.ffwd(self.ln2(x))

    class GPT(nn.Module):
        block_size = block

        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, n_embd)
            self.pos = nn.Embedding(block, n_embd)
            self.blocks = nn.Sequential(*[Block() for _ in range(6)])
            self.ln_f = nn.LayerNorm(n_embd)
            self.lm_head = nn.Linear(n_embd, vocab)

        def forward(self, idx):
            t = idx.shape[1]
            x = self.tok(idx) + self.pos(torch.arange(t, device=idx.device))
            return self.lm_head(self.ln_f(self.blocks(x)))

    return GPT().cuda()


def gpt_head_modules(variant: str) -> Built:
    """_lecture_gpt trained as the lecture does (batch 64 x 256 characters, AdamW lr 3e-4), here
    under BF16 autocast: attention as per-head Head modules (bad) vs one qkv Linear and
    scaled_dot_product_attention (fixed)."""
    torch = _torch()
    model = _lecture_gpt(torch, head_modules=variant != "fixed")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
    x = torch.randint(0, 65, (64, 256), device="cuda")
    y = torch.randint(0, 65, (64, 256), device="cuda")
    run = _as_run(torch, model)
    F = torch.nn.functional
    step = _train_step(torch, opt, lambda: F.cross_entropy(run(x).view(-1, 65), y.view(-1)))
    attention = "Head modules" if variant != "fixed" else "fused qkv + SDPA"
    config = {"model": "lecture GPT 6 x 384 (char-level)", "tokens": "64 x 256"}
    return Built(step, 64, {**config, "attention": attention, "autocast": "bf16"})


def nanogpt_generate(batch: int, read: bool = False) -> Built:
    """_lecture_gpt (SDPA attention, eval) sampling 128 characters one at a time for `batch`
    1-character prompts, the lecture's generate loop (no KV cache: the last 256 characters go
    through the model for each new one, softmax of the last logits, torch.multinomial,
    torch.cat), BF16 autocast. With `read`, the loop stops at a newline, so each new character
    is read with .item() to test it (never before 128 characters: the lengths stay equal)."""
    torch = _torch()
    model = _lecture_gpt(torch, head_modules=False).eval()
    F = torch.nn.functional
    newline = 0

    def generate():
        idx = torch.zeros((batch, 1), dtype=torch.long, device="cuda")
        for _ in range(128):
            logits = model(idx[:, -model.block_size :])[:, -1, :]
            nxt = torch.multinomial(F.softmax(logits.float(), dim=-1), num_samples=1)
            idx = torch.cat((idx, nxt), dim=1)
            if read and nxt[0, 0].item() == newline and idx.shape[1] > 128:
                break

    step = _inference_step(torch, generate)
    config = {"model": "lecture GPT 6 x 384 (char-level)", "new_tokens": 128}
    config["per_token_item"] = read
    return Built(step, batch, {**config, "autocast": "bf16", "kv_cache": False}, timed_steps=3)


def nanogpt_generate_eos_item(variant: str) -> Built:
    """nanogpt_generate for one prompt: reading each new character to test for a newline (bad)
    vs no test (fixed)."""
    return nanogpt_generate(1, read=variant != "fixed")


def convnext_compiled_healthy(variant: str) -> Built:
    """timm ConvNeXt-T trained on 224 x 224 images, batch 128, BF16 autocast + channels_last,
    fused AdamW, the model under torch.compile (default mode)."""
    torch = _torch()
    import timm

    model = timm.create_model("convnext_tiny", pretrained=False).cuda()
    model = model.to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    run = torch.compile(model)
    x = torch.randn(128, 3, 224, 224, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (128,), device="cuda")
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y))
    config = {"model": "timm convnext_tiny", "autocast": "bf16", "channels_last": True}
    return _compiled_for_capture(
        torch, step, 128, {**config, "optimizer": "AdamW(fused)", "compile": "default"}
    )


def reformer_healthy(variant: str) -> Built:
    """HF Reformer causal LM (config: 6 layers x 512, 8 heads, local and LSH attention in turn
    over chunks of 64, one hash, reversible residual layers that recompute their forward in the
    backward, axial position embeddings 64 x 64) trained on 8 x 4096 tokens, BF16 autocast,
    fused AdamW."""
    return _reformer(_torch())


def reformer_autocast_backward(variant: str) -> Built:
    """reformer_healthy as it runs (bad: the reversible layers' autograd Function recomputes
    each layer's forward, and takes its gradients, outside autocast: in FP32) vs that Function
    decorated with torch.amp.custom_fwd / custom_bwd (fixed: its backward runs under the
    forward's autocast state, BF16). Written after holdout 56 showed the FP32 backward."""
    torch = _torch()
    if variant == "fixed":
        from transformers.models.reformer import modeling_reformer

        fn = modeling_reformer._ReversibleFunction
        fn.forward = staticmethod(torch.amp.custom_fwd(fn.forward, device_type="cuda"))
        fn.backward = staticmethod(torch.amp.custom_bwd(fn.backward, device_type="cuda"))
    built = _reformer(torch)
    return replace(built, config={**built.config, "backward_autocast": variant == "fixed"})


def _reformer(torch) -> Built:
    """reformer_healthy's model, tokens and training step."""
    from transformers import ReformerConfig, ReformerModelWithLMHead

    cfg = ReformerConfig(
        is_decoder=True,
        hidden_size=512,
        num_attention_heads=8,
        attention_head_size=64,
        feed_forward_size=2048,
        attn_layers=["local", "lsh"] * 3,
        num_hashes=1,
        num_buckets=128,
        max_position_embeddings=4096,
        axial_pos_shape=(64, 64),
        axial_pos_embds_dim=(128, 384),
        vocab_size=320,
    )
    model = ReformerModelWithLMHead(cfg)
    ids = torch.randint(0, cfg.vocab_size, (8, 4096), device="cuda")
    config = {"model": "reformer 6 x 512 (config), local + LSH attention", "tokens": "8 x 4096"}
    built = _hf_train(torch, model, lambda m: m(input_ids=ids, labels=ids).loss, 8, config)
    # FlopCounterMode's module tracker hooks each module's inputs for the backward, and inside
    # the reversible layers' autograd Function they have no grad_fn: it raises
    note = "not counted (FlopCounterMode fails inside Reformer's reversible autograd Function)"
    return replace(built, flop_step=lambda: None, flops_note=note)


def nystromformer_healthy(variant: str) -> Built:
    """HF Nystromformer (config: BERT-base sizes, Nystrom attention with 64 landmarks and a
    six-iteration pseudo-inverse, its depthwise convolution on values) masked-LM training on
    8 x 1024 tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import NystromformerConfig, NystromformerForMaskedLM

    cfg = NystromformerConfig(
        segment_means_seq_len=1024, max_position_embeddings=1026, num_landmarks=64
    )
    model = NystromformerForMaskedLM(cfg)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    config = {"model": "nystromformer-base sizes (config), 64 landmarks", "tokens": "8 x 1024"}
    return _hf_train(torch, model, lambda m: m(input_ids=ids, labels=ids).loss, 8, config)


# ---- holdout 57 ---------------------------------------------------------------------------------


def swin2sr_healthy(variant: str) -> Built:
    """HF Swin2SR (config: x2 super-resolution of 64 x 64 patches, its default stages of Swin V2
    blocks 180 wide, windows of 8, a pixel-shuffle upsampler) trained with an L1 loss against
    128 x 128 targets, 16 patches a step, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import Swin2SRConfig, Swin2SRForImageSuperResolution

    model = Swin2SRForImageSuperResolution(Swin2SRConfig(upscale=2, image_size=64))
    low = torch.randn(16, 3, 64, 64, device="cuda")
    high = torch.randn(16, 3, 128, 128, device="cuda")
    F = torch.nn.functional
    config = {"model": "swin2sr x2 (config)", "patches": "16 x 64 x 64 -> 128 x 128"}
    return _hf_train(
        torch, model, lambda m: F.l1_loss(m(pixel_values=low).reconstruction, high), 16, config
    )


def wav2vec2_conformer_healthy(variant: str) -> Built:
    """HF Wav2Vec2-Conformer (config: 12 layers x 768, relative position attention, depthwise
    convolutions of 31, its convolutional feature encoder) trained with CTC on 8 clips of 5 s
    of 16 kHz audio (random), 50 labels each from 32 characters, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import Wav2Vec2ConformerConfig, Wav2Vec2ConformerForCTC

    model = Wav2Vec2ConformerForCTC(Wav2Vec2ConformerConfig(vocab_size=32, ctc_zero_infinity=True))
    audio = torch.randn(8, 80000, device="cuda")
    labels = torch.randint(1, 32, (8, 50), device="cuda")
    config = {"model": "wav2vec2-conformer 12 x 768 (config), CTC", "audio": "8 x 5 s at 16 kHz"}
    return _hf_train(torch, model, lambda m: m(input_values=audio, labels=labels).loss, 8, config)


# ---- holdout 58 ---------------------------------------------------------------------------------


def _simclr_loss_loop(torch, z):
    """NT-Xent written anchor by anchor, as tutorials write it: for each of the 2N embeddings its
    similarities to all others, the positive (the other view of its image) against a logsumexp
    over all but itself."""
    n = z.shape[0] // 2
    total = 0.0
    for i in range(2 * n):
        sims = (z[i : i + 1] @ z.T).squeeze(0) / 0.1
        positive = sims[(i + n) % (2 * n)]
        others = torch.cat([sims[:i], sims[i + 1 :]])
        total = total + torch.logsumexp(others, 0) - positive
    return total / (2 * n)


def _simclr_loss(torch, z):
    """NT-Xent over the batch at once: one similarity matrix, the diagonal masked, cross-entropy
    against each embedding's other view."""
    n = z.shape[0] // 2
    sims = (z @ z.T) / 0.1
    sims = sims.masked_fill(torch.eye(2 * n, dtype=torch.bool, device=z.device), float("-inf"))
    targets = torch.cat([torch.arange(n, 2 * n), torch.arange(0, n)]).to(z.device)
    return torch.nn.functional.cross_entropy(sims, targets)


def simclr_ntxent_loop(variant: str) -> Built:
    """SimCLR pre-training: torchvision ResNet-50 with a 2048-2048-128 projection head on two
    augmented views of 128 images (160 x 160, augmented before the step), BF16 autocast +
    channels_last, fused AdamW; the NT-Xent loss over the 256 embeddings written anchor by anchor
    in a Python loop (bad) vs as one similarity matrix and a cross-entropy (fixed)."""
    torch = _torch()
    import torchvision

    nn = torch.nn
    model = torchvision.models.resnet50(weights=None)
    model.fc = nn.Sequential(nn.Linear(2048, 2048), nn.ReLU(inplace=True), nn.Linear(2048, 128))
    model = model.cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)
    views = torch.randn(256, 3, 160, 160, device="cuda").to(memory_format=torch.channels_last)
    run = _as_run(torch, model)
    loss = _simclr_loss if variant == "fixed" else _simclr_loss_loop

    def loss_of():
        z = torch.nn.functional.normalize(run(views).float(), dim=1)
        return loss(torch, z)

    config = {
        "model": "resnet50 + projection head (SimCLR)",
        "views": "2 x 128 at 160 x 160",
        "loss": "one matrix" if variant == "fixed" else "per anchor, Python loop",
        "autocast": "bf16",
        "channels_last": True,
        "optimizer": "AdamW(fused)",
    }
    return Built(_train_step(torch, opt, loss_of), 128, config)


def fnet_tf32(variant: str) -> Built:
    """HF FNet (config: 12 layers x 768, token mixing by a 2-D FFT instead of attention, cuFFT
    kernels) masked-LM training on 16 x 512 tokens, fused AdamW, in FP32: its FFT has no BF16
    kernel, so BF16 autocast fails (cuFFT: "Unsupported dtype BFloat16"). Default flags (bad: FP32
    matmuls) vs TF32 matmuls allowed (fixed: torch.set_float32_matmul_precision("high"))."""
    torch = _torch()
    from transformers import FNetConfig, FNetForMaskedLM

    torch.backends.cuda.matmul.allow_tf32 = variant == "fixed"
    cfg = FNetConfig()
    model = FNetForMaskedLM(cfg)
    ids = torch.randint(0, cfg.vocab_size, (16, 512), device="cuda")
    config = {
        "model": "fnet-base sizes (config)",
        "tokens": "16 x 512",
        "matmul_allow_tf32": torch.backends.cuda.matmul.allow_tf32,
    }
    return _hf_train(
        torch, model, lambda m: m(input_ids=ids, labels=ids).loss, 16, config, bf16=False
    )


def videomae_healthy(variant: str) -> Built:
    """HF VideoMAE (config: ViT-B over 16 frames at 224 x 224 in tubelets of 2, 1,568 tokens a
    clip) video classification training, 4 clips a step, 400 classes, BF16 autocast, fused
    AdamW."""
    torch = _torch()
    from transformers import VideoMAEConfig, VideoMAEForVideoClassification

    model = VideoMAEForVideoClassification(VideoMAEConfig(num_labels=400))
    clips = torch.randn(4, 16, 3, 224, 224, device="cuda")
    labels = torch.randint(0, 400, (4,), device="cuda")
    config = {"model": "videomae-base sizes (config)", "clips": "4 x 16 x 224 x 224"}
    return _hf_train(torch, model, lambda m: m(pixel_values=clips, labels=labels).loss, 4, config)


def upernet_convnext_healthy(variant: str) -> Built:
    """HF UperNet (pyramid pooling + FPN decoder, an FCN auxiliary head) on a ConvNeXt-T backbone
    (config) trained for semantic segmentation of 8 images of 512 x 512 into 150 classes (ADE20K's
    sizes), BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import ConvNextConfig, UperNetConfig, UperNetForSemanticSegmentation

    # sizes as lists: transformers 5.17's defaults are tuples, which its ConvNeXt backbone
    # cannot concatenate to a list
    backbone = ConvNextConfig(
        hidden_sizes=[96, 192, 384, 768],
        depths=[3, 3, 9, 3],
        out_features=["stage1", "stage2", "stage3", "stage4"],
    )
    model = UperNetForSemanticSegmentation(UperNetConfig(backbone_config=backbone, num_labels=150))
    images = torch.randn(8, 3, 512, 512, device="cuda")
    labels = torch.randint(0, 150, (8, 512, 512), device="cuda")
    config = {"model": "upernet + convnext-tiny (config)", "images": "8 x 512 x 512, 150 classes"}
    return _hf_train(torch, model, lambda m: m(pixel_values=images, labels=labels).loss, 8, config)


def _bert_crf(torch, n_tags: int = 9):
    """BERT-base (config) with a linear emission layer and a linear-chain CRF whose loss is
    pytorch-crf's: the gold path's score in one pass, the partition function by the forward
    algorithm, one position at a time (logsumexp over the previous tag, masked by length)."""
    from transformers import BertConfig, BertModel

    nn = torch.nn

    class BertCrf(nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = BertModel(BertConfig(), add_pooling_layer=False)
            self.emit = nn.Linear(768, n_tags)
            self.trans = nn.Parameter(0.1 * torch.randn(n_tags, n_tags))
            self.start = nn.Parameter(0.1 * torch.randn(n_tags))
            self.end = nn.Parameter(0.1 * torch.randn(n_tags))

        def forward(self, ids, mask, tags):
            hidden = self.bert(input_ids=ids, attention_mask=mask).last_hidden_state
            em = self.emit(hidden).float()
            m = mask.bool()
            gold = self.start[tags[:, 0]] + em[:, 0].gather(1, tags[:, :1]).squeeze(1)
            steps = self.trans[tags[:, :-1], tags[:, 1:]]
            steps = steps + em[:, 1:].gather(2, tags[:, 1:, None]).squeeze(2)
            gold = gold + (steps * m[:, 1:]).sum(1)
            last = tags.gather(1, (m.sum(1) - 1)[:, None]).squeeze(1)
            gold = gold + self.end[last]
            alpha = self.start + em[:, 0]
            for t in range(1, em.shape[1]):
                nxt = torch.logsumexp(alpha[:, :, None] + self.trans + em[:, t, None, :], dim=1)
                alpha = torch.where(m[:, t, None], nxt, alpha)
            return (torch.logsumexp(alpha + self.end, dim=1) - gold).mean()

    return BertCrf()


def bert_crf_ner_healthy(variant: str) -> Built:
    """Named-entity tagging as BERT-CRF taggers train: BERT-base (config) + a CRF (_bert_crf,
    9 tags) on 32 sentences padded to 128 tokens (lengths 64-128), BF16 autocast, fused AdamW."""
    torch = _torch()
    model = _bert_crf(torch).cuda()
    ids = torch.randint(0, 30522, (32, 128), device="cuda")
    lengths = torch.randint(64, 129, (32, 1), device="cuda")
    mask = (torch.arange(128, device="cuda")[None, :] < lengths).long()
    tags = torch.randint(0, 9, (32, 128), device="cuda")
    config = {"model": "bert-base (config) + CRF, 9 tags", "tokens": "32 x 128 (64-128 real)"}
    return _hf_train(torch, model, lambda m: m(ids, mask, tags), 32, config)


# ---- holdout 59 ---------------------------------------------------------------------------------


def _unet3d(torch, channels=(32, 64, 128, 256), classes: int = 4):
    """A 3-D U-Net as volumetric segmentation writes it by hand: per level two Conv3d 3x3x3 +
    BatchNorm3d + ReLU, max-pooling down, transposed convolutions up, skip connections
    concatenated, a 1x1x1 head."""
    nn = torch.nn

    def block(cin: int, cout: int):
        return nn.Sequential(
            nn.Conv3d(cin, cout, 3, padding=1, bias=False),
            nn.BatchNorm3d(cout),
            nn.ReLU(inplace=True),
            nn.Conv3d(cout, cout, 3, padding=1, bias=False),
            nn.BatchNorm3d(cout),
            nn.ReLU(inplace=True),
        )

    class UNet3d(nn.Module):
        def __init__(self):
            super().__init__()
            ins = (1, *channels[:-1])
            self.down = nn.ModuleList(block(i, o) for i, o in zip(ins, channels))
            self.pool = nn.MaxPool3d(2)
            levels = list(reversed(range(len(channels) - 1)))
            self.up = nn.ModuleList(
                nn.ConvTranspose3d(channels[i + 1], channels[i], 2, stride=2) for i in levels
            )
            self.dec = nn.ModuleList(block(2 * channels[i], channels[i]) for i in levels)
            self.head = nn.Conv3d(channels[0], classes, 1)

        def forward(self, x):
            skips = []
            for i, down in enumerate(self.down):
                x = down(x)
                if i < len(self.down) - 1:
                    skips.append(x)
                    x = self.pool(x)
            for up, dec in zip(self.up, self.dec):
                x = dec(torch.cat([up(x), skips.pop()], 1))
            return self.head(x)

    return UNet3d()


def unet3d_fp32_precision(variant: str) -> Built:
    """_unet3d (32-256 channels, 4 classes) trained on 2 volumes of 128 x 128 x 128 voxels, fused
    AdamW: default flags (bad: FP32, cuDNN's TF32 convolutions, NCDHW) vs BF16 autocast +
    channels_last_3d (fixed)."""
    torch = _torch()
    fixed = variant == "fixed"
    fmt = torch.channels_last_3d if fixed else torch.contiguous_format
    model = _unet3d(torch).cuda().to(memory_format=fmt)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(2, 1, 128, 128, 128, device="cuda").to(memory_format=fmt)
    y = torch.randint(0, 4, (2, 128, 128, 128), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y), bf16=fixed)
    config = {
        "model": "3-D U-Net 32-256 channels (hand-written)",
        "volumes": "2 x 128^3",
        "autocast": "bf16" if fixed else None,
        "channels_last_3d": fixed,
        "optimizer": "AdamW(fused)",
        "cudnn_allow_tf32": torch.backends.cudnn.allow_tf32,
    }
    return Built(step, 2, config)


def convbert_healthy(variant: str) -> Built:
    """HF ConvBERT (config: base sizes, span-based dynamic convolution heads beside attention)
    masked-LM training on 16 x 512 tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import ConvBertConfig, ConvBertForMaskedLM

    cfg = ConvBertConfig()
    model = ConvBertForMaskedLM(cfg)
    ids = torch.randint(0, cfg.vocab_size, (16, 512), device="cuda")
    config = {"model": "convbert-base sizes (config)", "tokens": "16 x 512"}
    return _hf_train(torch, model, lambda m: m(input_ids=ids, labels=ids).loss, 16, config)


def resnest_healthy(variant: str) -> Built:
    """timm ResNeSt-50d (split attention in every bottleneck) training, batch 128, BF16
    autocast + channels_last, fused AdamW."""
    return _timm(_torch(), "resnest50d", 128, fixed=True, fused_adamw=True)


def dpt_healthy(variant: str) -> Built:
    """HF DPT (config: ViT-B/16 at 384 x 384, reassemble and fusion stages, a depth head)
    trained for monocular depth with an L1 loss against random depth maps, 8 images a step,
    BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import DPTConfig, DPTForDepthEstimation

    model = DPTForDepthEstimation(DPTConfig(image_size=384))
    images = torch.randn(8, 3, 384, 384, device="cuda")
    depth = torch.rand(8, 384, 384, device="cuda")
    F = torch.nn.functional
    config = {"model": "dpt vit-b/16 (config)", "images": "8 x 384 x 384"}
    return _hf_train(
        torch,
        model,
        lambda m: F.l1_loss(m(pixel_values=images).predicted_depth.float(), depth),
        8,
        config,
    )


def mamba2_healthy(variant: str) -> Built:
    """HF Mamba2 (config: 12 layers x 768, 24 heads of 64, state 128, chunks of 256) causal-LM
    training on 8 x 1024 tokens, BF16 autocast, fused AdamW, as it runs without the mamba_ssm and
    causal_conv1d packages: transformers' PyTorch reference of the chunked scan."""
    torch = _torch()
    from transformers import Mamba2Config, Mamba2ForCausalLM

    cfg = Mamba2Config(
        num_hidden_layers=12,
        hidden_size=768,
        num_heads=24,
        head_dim=64,
        state_size=128,
        n_groups=1,
        vocab_size=50304,
        chunk_size=256,
    )
    model = Mamba2ForCausalLM(cfg)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    config = {"model": "mamba2 12 x 768 (config), PyTorch scan", "tokens": "8 x 1024"}
    return _hf_train(torch, model, lambda m: m(input_ids=ids, labels=ids).loss, 8, config)


# ---- holdout 60 ---------------------------------------------------------------------------------


def gpt2_generate_no_cache(
    variant: str, batch: int = 16, prompt: int = 512, new_tokens: int = 64, **sizes
) -> Built:
    """HF GPT-2 at gpt2-medium sizes (24 layers x 1024, 16 heads) in eval, BF16 autocast,
    generating `new_tokens` greedily for `batch` prompts of `prompt` tokens: the model's config
    left at use_cache=False, as a model trained with gradient checkpointing carries it (HF sets
    it so and warns), every new token running the whole sequence through the model again (bad),
    vs use_cache=True, the KV cache (fixed)."""
    model, cfg, torch = _gpt2(**{"n_layer": 24, "n_embd": 1024, "n_head": 16, **sizes})
    model.eval()
    _compile_for_generate(model)
    cache = variant == "fixed"
    model.config.use_cache = cache
    ids = torch.randint(0, cfg.vocab_size, (batch, prompt), device="cuda")
    step = _inference_step(
        torch,
        model.generate,
        input_ids=ids,
        attention_mask=torch.ones_like(ids),
        max_new_tokens=new_tokens,
        min_new_tokens=new_tokens,
        do_sample=False,
        use_cache=cache,
        pad_token_id=0,
    )
    config = {"model": "gpt2-medium sizes (config)", "prompt": prompt, "new_tokens": new_tokens}
    # one profiled step: three (each 64 generate passes) made a 32 MB trace
    return Built(
        step,
        batch,
        {**config, "autocast": "bf16", "kv_cache": cache},
        timed_steps=3,
        profiled_steps=1,
    )


def ast_fp32_precision(variant: str, batch: int = 16, frames: int = 1024) -> Built:
    """HF Audio Spectrogram Transformer (config: ViT-B, 128 mel bins x `frames` frames, patches
    of 16 at stride 10: 1,212 tokens) trained for 527-way audio tagging with a multi-label
    BCE loss, fused AdamW: default flags (bad: FP32) vs BF16 autocast (fixed)."""
    torch = _torch()
    from transformers import ASTConfig, ASTForAudioClassification

    cfg = ASTConfig(max_length=frames, num_labels=527)
    model = ASTForAudioClassification(cfg)
    x = torch.randn(batch, frames, cfg.num_mel_bins, device="cuda")
    y = (torch.rand(batch, 527, device="cuda") < 0.02).float()
    F = torch.nn.functional
    config = {"model": "ast vit-b (config)", "spectrograms": f"{batch} x {frames} x 128"}
    return _hf_train(
        torch,
        model,
        lambda m: F.binary_cross_entropy_with_logits(m(input_values=x).logits.float(), y),
        batch,
        config,
        bf16=variant == "fixed",
    )


def inception_v3_healthy(variant: str) -> Built:
    """torchvision Inception v3 trained on 299 x 299 images with its auxiliary classifier (loss
    + 0.4 x the auxiliary loss), batch 128, BF16 autocast + channels_last, fused AdamW."""
    torch = _torch()
    import torchvision

    model = torchvision.models.inception_v3(weights=None, aux_logits=True, init_weights=True)
    model = model.cuda().to(memory_format=torch.channels_last)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(128, 3, 299, 299, device="cuda").to(memory_format=torch.channels_last)
    y = torch.randint(0, 1000, (128,), device="cuda")
    run = _as_run(torch, model)
    F = torch.nn.functional

    def loss():
        out = run(x)
        return F.cross_entropy(out.logits, y) + 0.4 * F.cross_entropy(out.aux_logits, y)

    step = _train_step(torch, opt, loss, bf16=True)
    config = {"model": "torchvision inception_v3 (aux logits)", "images": "128 x 299 x 299"}
    return Built(
        step,
        128,
        {**config, "autocast": "bf16", "channels_last": True, "optimizer": "AdamW(fused)"},
    )


def gptneo_healthy(variant: str, batch: int = 8, tokens: int = 2048, **sizes) -> Built:
    """HF GPT-Neo at 125M sizes (12 layers x 768, global and local attention in turn, a window
    of 256; its own eager attention, which upcasts queries and keys to FP32) causal-LM training
    on `batch` x `tokens` tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import GPTNeoConfig, GPTNeoForCausalLM

    layers = sizes.pop("num_layers", 12)
    cfg = GPTNeoConfig(
        num_layers=layers,
        attention_types=[[["global", "local"], layers // 2]],
        hidden_size=sizes.pop("hidden_size", 768),
        num_heads=sizes.pop("num_heads", 12),
        window_size=256,
        max_position_embeddings=2048,
        vocab_size=50304,
        **sizes,
    )
    return _causal_lm_train(
        torch, GPTNeoForCausalLM(cfg), batch, tokens, "gpt-neo 125M sizes (config)"
    )


def timesformer_healthy(variant: str, batch: int = 4, **sizes) -> Built:
    """HF TimeSformer (config: ViT-B, 8 frames of 224 x 224, divided space-time attention, its
    own eager attention) video classification training, `batch` clips a step, 400 classes, BF16
    autocast, fused AdamW."""
    torch = _torch()
    from transformers import TimesformerConfig, TimesformerForVideoClassification

    cfg = TimesformerConfig(num_labels=400, **sizes)
    model = TimesformerForVideoClassification(cfg)
    clips = torch.randn(batch, cfg.num_frames, 3, cfg.image_size, cfg.image_size, device="cuda")
    y = torch.randint(0, 400, (batch,), device="cuda")
    config = {"model": "timesformer vit-b (config)", "clips": f"{batch} x 8 x 224 x 224"}
    return _hf_train(torch, model, lambda m: m(pixel_values=clips, labels=y).loss, batch, config)


# ---- holdout 61 ---------------------------------------------------------------------------------


def pvt_v2_fp32_precision(variant: str, batch: int = 64, **sizes) -> Built:
    """HF PVTv2 (config: b2 sizes, spatial-reduction attention over overlapping patch
    embeddings) image classification on `batch` images of 224 x 224, 1000 classes, fused AdamW:
    default flags (bad: FP32) vs BF16 autocast (fixed)."""
    torch = _torch()
    from transformers import PvtV2Config, PvtV2ForImageClassification

    cfg = PvtV2Config(
        **{
            "depths": [3, 4, 6, 3],
            "hidden_sizes": [64, 128, 320, 512],
            "num_attention_heads": [1, 2, 5, 8],
            "num_labels": 1000,
            **sizes,
        }
    )
    model = PvtV2ForImageClassification(cfg)
    name = "pvt_v2 b2 sizes (config)"
    return _hf_classifier_train(torch, model, batch, name, bf16=variant == "fixed")


def ernie_grad_norm_log(variant: str, batch: int = 16, tokens: int = 128, **sizes) -> Built:
    """HF ERNIE (config: ernie-3.0-base sizes, 12 layers x 768, task-type embeddings) masked-LM
    fine-tuning on `batch` x `tokens` tokens, BF16 autocast, fused AdamW, logging every
    parameter's gradient norm each step for a dashboard: each norm read with .item() in a loop
    over the parameters (bad: a host-device sync per parameter, about 200 a step) vs the norms
    stacked on the GPU and read once with .tolist() (fixed)."""
    torch = _torch()
    from transformers import ErnieConfig, ErnieForMaskedLM

    cfg = ErnieConfig(**{"vocab_size": 40000, "use_task_id": True, **sizes})
    model = ErnieForMaskedLM(cfg)
    ids = torch.randint(0, cfg.vocab_size, (batch, tokens), device="cuda")
    named = list(model.named_parameters())
    logged: list[dict] = []

    def log_norms(loss) -> None:
        if variant == "bad":
            logged.append({n: p.grad.norm().item() for n, p in named if p.grad is not None})
        else:
            having = [(n, p.grad) for n, p in named if p.grad is not None]
            norms = torch.stack([g.norm() for _, g in having]).tolist()
            logged.append(dict(zip((n for n, _ in having), norms)))
        del logged[:-1]

    config = {"model": "ernie 3.0 base sizes (config)", "tokens": f"{batch} x {tokens}"}
    return _hf_train(
        torch,
        model,
        lambda m: m(input_ids=ids, labels=ids).loss,
        batch,
        {**config, "grad_norms_read": "one .item() each" if variant == "bad" else "once"},
        then=log_norms,
    )


def edgenext_healthy(variant: str) -> Built:
    """timm EdgeNeXt-S (depth-wise convolutions, split depth-wise transposed attention, LayerNorm
    in channels-last permutes) trained on 128 images of 224 x 224, BF16 autocast + channels_last,
    fused AdamW."""
    return _timm(_torch(), "edgenext_small", 128, fixed=True, fused_adamw=True)


def pegasus_healthy(
    variant: str, batch: int = 8, source: int = 512, target: int = 128, **sizes
) -> Built:
    """HF Pegasus (config: 12 + 12 layers x 768, pegasus-large's 96,103-token vocabulary,
    sinusoidal positions) summarisation training on `batch` documents of `source` tokens with
    summaries of `target`, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import PegasusConfig, PegasusForConditionalGeneration

    cfg = PegasusConfig(
        **{
            "d_model": 768,
            "encoder_layers": 12,
            "decoder_layers": 12,
            "encoder_attention_heads": 12,
            "decoder_attention_heads": 12,
            "encoder_ffn_dim": 3072,
            "decoder_ffn_dim": 3072,
            "max_position_embeddings": 1024,
            "vocab_size": 96103,
            **sizes,
        }
    )
    model = PegasusForConditionalGeneration(cfg)
    src = torch.randint(0, cfg.vocab_size, (batch, source), device="cuda")
    tgt = torch.randint(0, cfg.vocab_size, (batch, target), device="cuda")
    config = {"model": "pegasus 12+12 x 768 (config)", "tokens": f"{batch} x {source} -> {target}"}
    return _hf_train(torch, model, lambda m: m(input_ids=src, labels=tgt).loss, batch, config)


def stablelm_healthy(variant: str, batch: int = 4, tokens: int = 2048, **sizes) -> Built:
    """HF StableLM (config: StableLM 2 1.6B sizes, 24 layers x 2048, 32 heads, rotary on a
    quarter of each head, LayerNorm, a 100,352-token vocabulary) causal-LM training on `batch`
    x `tokens` tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import StableLmConfig, StableLmForCausalLM

    cfg = StableLmConfig(
        **{
            "hidden_size": 2048,
            "intermediate_size": 5632,
            "num_hidden_layers": 24,
            "num_attention_heads": 32,
            "num_key_value_heads": 32,
            "partial_rotary_factor": 0.25,
            "vocab_size": 100352,
            "max_position_embeddings": 4096,
            **sizes,
        }
    )
    return _causal_lm_train(
        torch, StableLmForCausalLM(cfg), batch, tokens, "stablelm 2 1.6b sizes (config)"
    )


# ---- holdout 62 ---------------------------------------------------------------------------------


def gpt_bigcode_eager_attention(variant: str, batch: int = 8, tokens: int = 2048, **sizes) -> Built:
    """HF GPTBigCode (config: 12 layers x 1024, 16 query heads sharing one key/value head, as
    SantaCoder and StarCoder attend, a 49,152-token vocabulary) causal-LM training on `batch` x
    `tokens` tokens, BF16 autocast, fused AdamW: attn_implementation="eager" (bad) vs "sdpa"
    (fixed)."""
    from transformers import GPTBigCodeConfig, GPTBigCodeForCausalLM

    cfg = GPTBigCodeConfig(
        **{
            "n_embd": 1024,
            "n_layer": 12,
            "n_head": 16,
            "multi_query": True,
            "n_positions": tokens,
            "vocab_size": 49152,
            "bos_token_id": 0,
            "eos_token_id": 0,
            **sizes,
        }
    )
    name = "gpt_bigcode 12 x 1024 multi-query (config)"
    return _hf_attention(variant, GPTBigCodeForCausalLM, cfg, batch, tokens, name)


def gemma3_healthy(variant: str, batch: int = 4, tokens: int = 1024, **sizes) -> Built:
    """HF Gemma 3 text model (config: Gemma 3 1B sizes, 26 layers x 1152, 4 heads of 256, five
    sliding-window layers of 512 to each global one, RMSNorm on queries and keys, its
    262,144-token vocabulary; as many key/value heads as query heads, since FlopCounterMode
    rejects grouped SDPA) causal-LM training on `batch` x `tokens` tokens, BF16 autocast, fused
    AdamW."""
    torch = _torch()
    from transformers import Gemma3ForCausalLM, Gemma3TextConfig

    cfg = Gemma3TextConfig(
        **{
            "hidden_size": 1152,
            "intermediate_size": 6912,
            "num_hidden_layers": 26,
            "num_attention_heads": 4,
            "num_key_value_heads": 4,
            "head_dim": 256,
            "sliding_window": 512,
            "vocab_size": 262144,
            "max_position_embeddings": 4096,
            **sizes,
        }
    )
    return _causal_lm_train(
        torch, Gemma3ForCausalLM(cfg), batch, tokens, "gemma3 1b sizes (config)"
    )


def qwen3_healthy(variant: str, batch: int = 8, tokens: int = 1024, **sizes) -> Built:
    """HF Qwen3 (config: Qwen3 0.6B sizes, 28 layers x 1024, 16 heads of 128 with RMSNorm on
    queries and keys, tied embeddings, its 151,936-token vocabulary; as many key/value heads as
    query heads, since FlopCounterMode rejects grouped SDPA) causal-LM training on `batch` x
    `tokens` tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import Qwen3Config, Qwen3ForCausalLM

    cfg = Qwen3Config(
        **{
            "hidden_size": 1024,
            "intermediate_size": 3072,
            "num_hidden_layers": 28,
            "num_attention_heads": 16,
            "num_key_value_heads": 16,
            "head_dim": 128,
            "tie_word_embeddings": True,
            "vocab_size": 151936,
            "max_position_embeddings": 4096,
            **sizes,
        }
    )
    return _causal_lm_train(
        torch, Qwen3ForCausalLM(cfg), batch, tokens, "qwen3 0.6b sizes (config)"
    )


def canine_healthy(variant: str, batch: int = 16, chars: int = 2048, **sizes) -> Built:
    """HF CANINE (config: canine-s sizes, 12 layers x 768 over characters downsampled 4x by a
    strided convolution, local attention in the character encoder) sequence classification on
    `batch` texts of `chars` Unicode code points, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import CanineConfig, CanineForSequenceClassification

    cfg = CanineConfig(**{"num_labels": 4, "max_position_embeddings": chars, **sizes})
    model = CanineForSequenceClassification(cfg)
    ids = torch.randint(32, 20000, (batch, chars), device="cuda")
    y = torch.randint(0, 4, (batch,), device="cuda")
    config = {"model": "canine-s sizes (config)", "chars": f"{batch} x {chars}"}
    return _hf_train(torch, model, lambda m: m(input_ids=ids, labels=y).loss, batch, config)


# ---- holdout 63 ---------------------------------------------------------------------------------


def segformer_infer_b1(variant: str, batch: int | None = None, **sizes) -> Built:
    """HF SegFormer (config: mit-b2 sizes, 150 classes) semantic segmentation inference on 512 x
    512 images under inference_mode and BF16 autocast: one image a call (bad) vs 16 (fixed).
    Variant bf16_weights (a study): one image a call with the model cast to BF16 once and no
    autocast (copies, autocast's casts among them, are 427 of the 781 kernels a call at batch 1)."""
    torch = _torch()
    from transformers import SegformerConfig, SegformerForSemanticSegmentation

    cfg = SegformerConfig(
        **{
            "depths": [3, 4, 6, 3],
            "hidden_sizes": [64, 128, 320, 512],
            "decoder_hidden_size": 768,
            "num_labels": 150,
            **sizes,
        }
    )
    model = SegformerForSemanticSegmentation(cfg).cuda().eval()
    batch = batch or (16 if variant == "fixed" else 1)
    x = torch.randn(batch, 3, 512, 512, device="cuda")
    config = {"model": "segformer mit-b2 sizes (config)", "autocast": "bf16", "mode": "inference"}
    if variant == "bf16_weights":  # for study, not the zoo: weights cast once, no autocast
        run, x = _as_run(torch, model.to(torch.bfloat16)), x.to(torch.bfloat16)
        step = _cast_once_step(torch, run, pixel_values=x)
        config = {**config, "autocast": None, "weights": "bf16"}
    else:
        step = _inference_step(torch, _as_run(torch, model), pixel_values=x)
    return Built(step, batch, {**config, "images": f"{batch} x 512 x 512"}, timed_steps=40)


def focalnet_healthy(variant: str, batch: int = 128, **sizes) -> Built:
    """HF FocalNet (config: focalnet-tiny sizes, focal modulation of depth-wise convolutions and
    gates in place of attention) image classification training on `batch` images of 224 x 224,
    1000 classes, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import FocalNetConfig, FocalNetForImageClassification

    cfg = FocalNetConfig(**{"embed_dim": 96, "depths": [2, 2, 6, 2], "num_labels": 1000, **sizes})
    model = FocalNetForImageClassification(cfg)
    return _hf_classifier_train(torch, model, batch, "focalnet-tiny sizes (config)")


def bit_healthy(variant: str, batch: int = 64, **sizes) -> Built:
    """HF BiT (config: ResNetV2-50x1, pre-activation bottlenecks, weight-standardised
    convolutions, GroupNorm) image classification training on `batch` images of 224 x 224,
    1000 classes, BF16 autocast + channels_last, fused AdamW."""
    torch = _torch()
    from transformers import BitConfig, BitForImageClassification

    cfg = BitConfig(**{"num_labels": 1000, **sizes})
    model = BitForImageClassification(cfg)
    name = "bit resnetv2-50x1 (config)"
    return _hf_classifier_train(torch, model, batch, name, channels_last=True)


def nemotron_healthy(variant: str, batch: int = 4, tokens: int = 2048, **sizes) -> Built:
    """HF Nemotron (config: 16 layers x 2048, 16 heads of 128 with rotary on half of each, a
    squared-ReLU MLP of 8192, LayerNorm with a 1 + weight scale, its 256,000-token vocabulary)
    causal-LM training on `batch` x `tokens` tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import NemotronConfig, NemotronForCausalLM

    cfg = NemotronConfig(
        **{
            "hidden_size": 2048,
            "intermediate_size": 8192,
            "num_hidden_layers": 16,
            "num_attention_heads": 16,
            "num_key_value_heads": 16,  # no GQA: FlopCounterMode (torch 2.11) rejects it in SDPA
            "head_dim": 128,
            "max_position_embeddings": 4096,
            **sizes,
        }
    )
    name = "nemotron 16 x 2048 (config)"
    return _causal_lm_train(torch, NemotronForCausalLM(cfg), batch, tokens, name)


# ---- holdout 64 ---------------------------------------------------------------------------------


def granite_microbatch1(variant: str, batch: int | None = None, tokens: int = 1024, **sizes):
    """HF Granite (config: 24 layers x 1024, 16 heads, SwiGLU MLP of 4096, the embedding,
    residual, attention and logit multipliers of Granite 3.0, its 49,155-token vocabulary)
    causal-LM training, BF16 autocast, fused AdamW: 1 x `tokens` tokens a step (bad) vs 8
    (fixed)."""
    torch = _torch()
    from transformers import GraniteConfig, GraniteForCausalLM

    cfg = GraniteConfig(
        **{
            "vocab_size": 49155,
            "hidden_size": 1024,
            "intermediate_size": 4096,
            "num_hidden_layers": 24,
            "num_attention_heads": 16,
            "num_key_value_heads": 16,  # no GQA: FlopCounterMode (torch 2.11) rejects it in SDPA
            "max_position_embeddings": 4096,
            "embedding_multiplier": 12.0,
            "residual_multiplier": 0.22,
            "attention_multiplier": 0.015625,
            "logits_scaling": 8.0,
            "tie_word_embeddings": True,
            **sizes,
        }
    )
    batch = batch or (8 if variant == "fixed" else 1)
    name = "granite 24 x 1024 (config)"
    return _causal_lm_train(torch, GraniteForCausalLM(cfg), batch, tokens, name)


def mobilenetv2_loader_workers0(variant: str, workers: int | None = None) -> Built:
    """HF MobileNetV2 (config: width 1.0, 224 x 224, 1000 classes) trained on real JPEGs
    (decode, random resized crop and flip per sample), batch 128, BF16 autocast + channels_last,
    SGD with momentum, pinned memory: loaded in the main process (num_workers=0, the DataLoader's
    default; bad) vs 12 workers (fixed)."""
    torch = _torch()
    from transformers import MobileNetV2Config, MobileNetV2ForImageClassification

    class Logits(torch.nn.Module):  # the loader helper calls model(images) for logits
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, x):
            return self.m(pixel_values=x).logits

    model = Logits(MobileNetV2ForImageClassification(MobileNetV2Config(num_labels=1000)))
    if workers is None:
        workers = 12 if variant == "fixed" else 0
    return _jpeg_fed_train(torch, model, workers, "HF mobilenet_v2 1.0 224 (config)")


def poolformer_healthy(variant: str, batch: int = 128, **sizes) -> Built:
    """HF PoolFormer (config: s24 sizes, average pooling as the token mixer, GroupNorm with one
    group) image classification training on `batch` images of 224 x 224, 1000 classes, BF16
    autocast, fused AdamW."""
    torch = _torch()
    from transformers import PoolFormerConfig, PoolFormerForImageClassification

    cfg = PoolFormerConfig(
        **{"depths": [4, 4, 12, 4], "hidden_sizes": [64, 128, 320, 512], "num_labels": 1000} | sizes
    )
    model = PoolFormerForImageClassification(cfg)
    return _hf_classifier_train(torch, model, batch, "poolformer-s24 sizes (config)")


def biogpt_healthy(variant: str, batch: int = 8, tokens: int = 1024, **sizes) -> Built:
    """HF BioGPT (config: 24 layers x 1024, 16 heads, GELU MLP of 4096, learned positions,
    scaled embeddings, its 42,384-token vocabulary) causal-LM training on `batch` x `tokens`
    tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import BioGptConfig, BioGptForCausalLM

    cfg = BioGptConfig(**{"max_position_embeddings": max(tokens, 1024), **sizes})
    return _causal_lm_train(torch, BioGptForCausalLM(cfg), batch, tokens, "biogpt (config)")


def swiftformer_healthy(variant: str, batch: int = 128, **sizes) -> Built:
    """HF SwiftFormer (config: its default XS sizes, convolutional stages with efficient
    additive attention in the last block of each) image classification training on `batch`
    images of 224 x 224, 1000 classes, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import SwiftFormerConfig, SwiftFormerForImageClassification

    model = SwiftFormerForImageClassification(SwiftFormerConfig(**{"num_labels": 1000, **sizes}))
    return _hf_classifier_train(torch, model, batch, "swiftformer-xs sizes (config)")


def hubert_fp32_precision(variant: str, batch: int = 16, samples: int = 64000, **sizes) -> Built:
    """HF HuBERT (config: base sizes, 12 layers x 768, a 7-layer convolutional feature encoder
    with GroupNorm, a convolutional position embedding) trained with CTC on `batch` clips of
    `samples` 16 kHz samples (4 s: 199 frames) against transcripts of 40 labels from 32 symbols,
    fused AdamW: default flags (bad: FP32) vs BF16 autocast (fixed)."""
    torch = _torch()
    from transformers import HubertConfig, HubertForCTC

    cfg = HubertConfig(**{"vocab_size": 32, "ctc_loss_reduction": "mean", **sizes})
    model = HubertForCTC(cfg)
    x = torch.randn(batch, samples, device="cuda")
    labels = torch.randint(1, cfg.vocab_size, (batch, 40), device="cuda")
    config = {"model": "hubert base (config), CTC", "audio": f"{batch} x {samples} samples"}
    loss_of = lambda m: m(input_values=x, labels=labels).loss  # noqa: E731
    return _hf_train(torch, model, loss_of, batch, config, bf16=variant == "fixed")


def xglm_healthy(variant: str, batch: int = 8, tokens: int = 1024, **sizes) -> Built:
    """HF XGLM (config: 24 layers x 1024, 16 heads, GELU MLP of 4096, sinusoidal positions,
    scaled embeddings, its 256,008-token vocabulary) causal-LM training on `batch` x `tokens`
    tokens, BF16 autocast, fused AdamW. XGLM's attention in transformers 5.17 is eager only
    (bmm, softmax, bmm); variant sdpa (a study, not the zoo) swaps each attention module's
    forward for one F.scaled_dot_product_attention call (causal, no padding here), what the
    eager-attention finding's fix tells a user of a model with no SDPA path to do."""
    torch = _torch()
    from transformers import XGLMConfig, XGLMForCausalLM

    cfg = XGLMConfig(**{"max_position_embeddings": max(tokens, 2048), **sizes})
    model = XGLMForCausalLM(cfg)
    name = "xglm 24 x 1024 (config)"
    if variant == "sdpa":
        for layer in model.model.layers:
            layer.self_attn.forward = _causal_sdpa_forward(torch, layer.self_attn)
        name += ", attention through SDPA"
    return _causal_lm_train(torch, model, batch, tokens, name)


def _causal_sdpa_forward(torch, attn) -> Callable[..., Any]:
    """A forward for a BART-style self-attention module (q/k/v/out_proj, num_heads, head_dim,
    dropout) that runs causal F.scaled_dot_product_attention: for training on unpadded
    sequences, no cache."""
    F = torch.nn.functional

    def forward(hidden_states, *args, **kwargs):
        b, t, _ = hidden_states.shape

        def heads(x):
            return x.view(b, t, attn.num_heads, attn.head_dim).transpose(1, 2)

        q, k, v = (heads(p(hidden_states)) for p in (attn.q_proj, attn.k_proj, attn.v_proj))
        p = attn.dropout if attn.training else 0.0
        out = F.scaled_dot_product_attention(q, k, v, dropout_p=p, is_causal=True)
        return attn.out_proj(out.transpose(1, 2).reshape(b, t, -1)), None

    return forward


def m2m100_healthy(
    variant: str, batch: int = 8, source: int = 512, target: int = 512, **sizes
) -> Built:
    """HF M2M100 (config: its default 12 + 12 layers x 1024, 16 heads, FFN 4096, sinusoidal
    positions, 128,112-token vocabulary) translation training on `batch` sentences of `source`
    tokens into `target`, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import M2M100Config, M2M100ForConditionalGeneration

    cfg = M2M100Config(**{"max_position_embeddings": max(source, target, 1024), **sizes})
    model = M2M100ForConditionalGeneration(cfg)
    src = torch.randint(4, cfg.vocab_size, (batch, source), device="cuda")
    tgt = torch.randint(4, cfg.vocab_size, (batch, target), device="cuda")
    config = {"model": "m2m100 12+12 x 1024 (config)", "tokens": f"{batch} x {source} -> {target}"}
    return _hf_train(torch, model, lambda m: m(input_ids=src, labels=tgt).loss, batch, config)


def data2vec_vision_healthy(variant: str, batch: int = 64, **sizes) -> Built:
    """HF Data2Vec-Vision (config: base sizes, 12 layers x 768, relative position bias in every
    layer, layer scale, mean-pooled head) image classification training on `batch` images of
    224 x 224, 1000 classes, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import Data2VecVisionConfig, Data2VecVisionForImageClassification

    cfg = Data2VecVisionConfig(
        **{"use_relative_position_bias": True, "use_mean_pooling": True, "num_labels": 1000} | sizes
    )
    model = Data2VecVisionForImageClassification(cfg)
    return _hf_classifier_train(torch, model, batch, "data2vec-vision base (config)")


def megatron_bert_eager_only(variant: str, batch: int = 16, tokens: int = 512, **sizes) -> Built:
    """HF Megatron-BERT (config: its default 24 layers x 1024, 16 heads, pre-LayerNorm,
    29,056-token vocabulary) masked-LM training on `batch` x `tokens` tokens (15% masked), BF16
    autocast, fused AdamW. Its attention in transformers 5.17 is eager only (matmul, softmax,
    matmul; no SDPA path): as built (bad) vs each self-attention module's forward swapped for
    one F.scaled_dot_product_attention call with the model's additive mask (fixed), what the
    eager-attention finding's fix tells a user of such a model to do."""
    torch = _torch()
    from transformers import MegatronBertConfig, MegatronBertForMaskedLM

    model = MegatronBertForMaskedLM(MegatronBertConfig(**sizes))
    name = "megatron-bert 24 x 1024 (config)"
    if variant == "fixed":
        for layer in model.bert.encoder.layer:
            layer.attention.self.forward = _bidirectional_sdpa_forward(torch, layer.attention.self)
        name += ", attention through SDPA"
    ids = torch.randint(5, model.config.vocab_size, (batch, tokens), device="cuda")
    labels = torch.where(torch.rand(batch, tokens, device="cuda") < 0.15, ids, -100)
    config = {"model": name, "tokens": f"{batch} x {tokens}"}
    return _hf_train(torch, model, lambda m: m(input_ids=ids, labels=labels).loss, batch, config)


def _bidirectional_sdpa_forward(torch, attn) -> Callable[..., Any]:
    """A forward for a BERT-style self-attention module (query/key/value, attention_head_size,
    dropout) that runs F.scaled_dot_product_attention with the model's additive mask: for
    training without cross-attention or a cache."""
    F = torch.nn.functional

    def forward(hidden_states, attention_mask=None, *args, **kwargs):
        b, t, _ = hidden_states.shape

        def heads(x):
            return x.view(b, t, -1, attn.attention_head_size).transpose(1, 2)

        q, k, v = (heads(p(hidden_states)) for p in (attn.query, attn.key, attn.value))
        mask = None if attention_mask is None else attention_mask.to(q.dtype)
        p = attn.dropout.p if attn.training else 0.0
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
        return out.transpose(1, 2).reshape(b, t, -1), None

    return forward


def vivit_healthy(variant: str, batch: int = 4, **sizes) -> Built:
    """HF ViViT (config: its default base sizes, 32 frames of 224 x 224 in tubelets of 2 x 16 x
    16: 3,136 tokens a clip) video classification training on `batch` clips, 400 classes, BF16
    autocast, fused AdamW. Its config's activation is gelu_fast, tanh GELU written out in
    elementwise ops; variant gelu_tanh (a study, not the zoo) sets gelu_pytorch_tanh, the same
    function as one kernel (F.gelu(approximate='tanh')), a fix the fusion finding names."""
    torch = _torch()
    from transformers import VivitConfig, VivitForVideoClassification

    act = {"hidden_act": "gelu_pytorch_tanh"} if variant == "gelu_tanh" else {}
    cfg = VivitConfig(**{"num_labels": 400, **act, **sizes})
    model = VivitForVideoClassification(cfg)
    x = torch.randn(batch, cfg.num_frames, 3, cfg.image_size, cfg.image_size, device="cuda")
    y = torch.randint(0, 400, (batch,), device="cuda")
    frames = f"{batch} x {cfg.num_frames} x {cfg.image_size} x {cfg.image_size}"
    config = {"model": "vivit base (config)", "clips": frames}
    return _hf_train(torch, model, lambda m: m(pixel_values=x, labels=y).loss, batch, config)


def persimmon_healthy(variant: str, batch: int = 4, tokens: int = 2048, **sizes) -> Built:
    """HF Persimmon (config: 24 layers x 2048, 32 heads, squared-ReLU MLP of 8192, query/key
    LayerNorm, half-rotary positions, its 262,144-token vocabulary) causal-LM training on
    `batch` x `tokens` tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import PersimmonConfig, PersimmonForCausalLM

    cfg = PersimmonConfig(
        **{
            "hidden_size": 2048,
            "num_hidden_layers": 24,
            "num_attention_heads": 32,
            "intermediate_size": 8192,
            **sizes,
        }
    )
    return _causal_lm_train(torch, PersimmonForCausalLM(cfg), batch, tokens, "persimmon (config)")


def efficientnet_hf_healthy(variant: str, batch: int = 128, **sizes) -> Built:
    """HF EfficientNet (config: B3's width 1.2 and depth 1.4, at 224 x 224) image classification
    training on `batch` images, 1000 classes, BF16 autocast + channels_last, fused AdamW."""
    torch = _torch()
    from transformers import EfficientNetConfig, EfficientNetForImageClassification

    cfg = EfficientNetConfig(
        **{
            "width_coefficient": 1.2,
            "depth_coefficient": 1.4,
            "image_size": 224,
            "hidden_dim": 1536,
            "dropout_rate": 0.3,
            "num_labels": 1000,
            **sizes,
        }
    )
    model = EfficientNetForImageClassification(cfg)
    return _hf_classifier_train(torch, model, batch, "efficientnet-b3 sizes (config)", True, True)


# ---- holdout 67: labels in labels.py committed before these were first captured -----------------


def mt5_gelu_new(
    variant: str, batch: int = 16, source: int = 512, target: int = 128, **sizes
) -> Built:
    """HF mT5 (config: base sizes, 12 + 12 layers x 768, 12 heads, gated-GELU FFN of 2048,
    T5's relative position bias and hand-written RMS norm, its 250,112-token vocabulary)
    trained on `batch` sequences of `source` tokens into `target`, BF16 autocast, fused AdamW:
    the config's gated-gelu as built (gelu_new, tanh GELU written out in elementwise ops; bad)
    vs the same function as one kernel (dense_act_fn gelu_pytorch_tanh; fixed)."""
    torch = _torch()
    from transformers import MT5Config, MT5ForConditionalGeneration

    base = {"d_model": 768, "d_ff": 2048, "num_layers": 12, "num_decoder_layers": 12}
    cfg = MT5Config(**{**base, "num_heads": 12, "d_kv": 64, **sizes})
    cfg.dense_act_fn = "gelu_pytorch_tanh" if variant == "fixed" else "gelu_new"
    model = MT5ForConditionalGeneration(cfg)
    src = torch.randint(0, cfg.vocab_size, (batch, source), device="cuda")
    tgt = torch.randint(0, cfg.vocab_size, (batch, target), device="cuda")
    config = {
        "model": f"mt5 12+12 x 768 (config), {cfg.dense_act_fn}",
        "tokens": f"{batch} x {source} -> {target}",
    }
    return _hf_train(torch, model, lambda m: m(input_ids=src, labels=tgt).loss, batch, config)


def helium_healthy(variant: str, batch: int = 4, tokens: int = 2048, **sizes) -> Built:
    """HF Helium (config: its default 24 layers x 2560, 20 heads, SiLU-gated MLP of 7040, RMS
    norm, its 48,000-token vocabulary) causal-LM training on `batch` x `tokens` tokens, BF16
    autocast, fused AdamW."""
    torch = _torch()
    from transformers import HeliumConfig, HeliumForCausalLM

    model = HeliumForCausalLM(HeliumConfig(**sizes))
    return _causal_lm_train(torch, model, batch, tokens, "helium 24 x 2560 (config)")


def hgnetv2_healthy(variant: str, batch: int = 128, **sizes) -> Built:
    """HF HGNetV2 (config: its default stages, 128 to 2048 channels out, light blocks of 5 x 5
    depthwise convolutions in the last two) image classification training on `batch` images of 224 x 224, 1000 classes, BF16 autocast
    + channels_last, fused AdamW."""
    torch = _torch()
    from transformers import HGNetV2Config, HGNetV2ForImageClassification

    model = HGNetV2ForImageClassification(HGNetV2Config(**{"num_labels": 1000, **sizes}))
    return _hf_classifier_train(torch, model, batch, "hgnetv2 (config)", True, True)


def arcee_healthy(variant: str, batch: int = 8, tokens: int = 2048, **sizes) -> Built:
    """HF Arcee (config: 24 layers x 2048, 16 heads of 128, 4 key/value heads, a squared-ReLU
    MLP of 8192 without gating, RMS norm, its 32,000-token vocabulary) causal-LM training on
    `batch` x `tokens` tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import ArceeConfig, ArceeForCausalLM

    cfg = ArceeConfig(
        **{
            "hidden_size": 2048,
            "num_hidden_layers": 24,
            "num_attention_heads": 16,
            "num_key_value_heads": 4,
            "head_dim": 128,
            "intermediate_size": 8192,
            **sizes,
        }
    )
    return _causal_lm_train(torch, ArceeForCausalLM(cfg), batch, tokens, "arcee 24 x 2048 (config)")


def depth_anything_infer_b1(variant: str, batch: int | None = None, **sizes) -> Built:
    """HF Depth Anything (config: its default small sizes, a DINOv2 ViT-S/14 backbone of 12 x 384
    and a DPT head) monocular depth inference on 518 x 518 images (1,369 patches) under
    inference_mode and BF16 autocast: one image a call (bad) vs 16 (fixed)."""
    torch = _torch()
    from transformers import DepthAnythingConfig, DepthAnythingForDepthEstimation

    model = DepthAnythingForDepthEstimation(DepthAnythingConfig(**sizes)).cuda().eval()
    batch = batch or (16 if variant == "fixed" else 1)
    x = torch.randn(batch, 3, 518, 518, device="cuda")
    step = _inference_step(torch, _as_run(torch, model), pixel_values=x)
    config = {
        "model": "depth anything small sizes (config)",
        "autocast": "bf16",
        "mode": "inference",
        "images": f"{batch} x 518 x 518",
    }
    return Built(step, batch, config, timed_steps=40)


# LFM2-1.2B's layout: attention in 6 of 16 layers, gated short convolutions in the rest
LFM2_ATTENTION_LAYERS = (2, 5, 8, 10, 12, 14)


def lfm2_healthy(variant: str, batch: int = 8, tokens: int = 2048, **sizes) -> Built:
    """HF LFM2 (config: LFM2-1.2B sizes, 16 layers x 2048, 6 of them attention with 8 key/value
    heads of 32 query heads, 10 gated short convolutions of kernel 3 run by transformers' own
    PyTorch causal_conv1d reference (the causal_conv1d package is not installed, as on most
    machines), a 65,536-token vocabulary) causal-LM training on `batch` x `tokens` tokens, BF16
    autocast, fused AdamW."""
    torch = _torch()
    from transformers import Lfm2Config, Lfm2ForCausalLM

    layers = ["full_attention" if i in LFM2_ATTENTION_LAYERS else "conv" for i in range(16)]
    cfg = Lfm2Config(
        **{
            "hidden_size": 2048,
            "num_hidden_layers": 16,
            "num_attention_heads": 32,
            "num_key_value_heads": 8,
            "intermediate_size": 12288,
            "layer_types": layers,
            **sizes,
        }
    )
    return _causal_lm_train(torch, Lfm2ForCausalLM(cfg), batch, tokens, "lfm2 1.2b sizes (config)")


def repvit_healthy(variant: str) -> Built:
    """timm RepViT-M1.5 (a MobileNetV3-style CNN with ViT-style token and channel mixers, its
    conv branches unfused as in training) trained on 224 x 224 images, batch 256, BF16 autocast
    + channels_last, fused AdamW."""
    return _timm(_torch(), "repvit_m1_5", 256, fixed=True, fused_adamw=True)


def davit_healthy(variant: str) -> Built:
    """timm DaViT-S (dual attention: spatial window and channel-group attention, 4 stages)
    trained on 224 x 224 images, batch 128, BF16 autocast + channels_last, fused AdamW."""
    return _timm(_torch(), "davit_small", 128, fixed=True, fused_adamw=True)


def roformer_fp32_precision(variant: str, batch: int = 16, tokens: int = 512, **sizes) -> Built:
    """HF RoFormer (config: base sizes, 12 layers x 768, rotary position embeddings applied
    in each attention layer, its 50,000-token vocabulary) masked-LM training on `batch` x
    `tokens` tokens, fused AdamW: default flags (bad: FP32) vs BF16 autocast (fixed)."""
    torch = _torch()
    from transformers import RoFormerConfig, RoFormerForMaskedLM

    cfg = RoFormerConfig(**{"max_position_embeddings": max(tokens, 1536), **sizes})
    model = RoFormerForMaskedLM(cfg)
    ids = torch.randint(0, cfg.vocab_size, (batch, tokens), device="cuda")
    config = {"model": "roformer base sizes (config)", "tokens": f"{batch} x {tokens}"}
    loss_of = lambda m: m(input_ids=ids, labels=ids).loss  # noqa: E731
    return _hf_train(torch, model, loss_of, batch, config, bf16=variant == "fixed")


def cspdarknet_loader_workers2(variant: str, workers: int | None = None) -> Built:
    """timm CSPDarkNet-53 trained on real JPEGs (decode, random resized crop and flip per
    sample), batch 128, BF16 autocast + channels_last, SGD with momentum, pinned memory: two
    DataLoader workers (bad) vs 12 (fixed)."""
    import timm

    torch = _torch()
    if workers is None:
        workers = 12 if variant == "fixed" else 2
    model = timm.create_model("cspdarknet53", pretrained=False)
    return _jpeg_fed_train(torch, model, workers, "timm cspdarknet53")


def phi3_healthy(variant: str, batch: int = 8, tokens: int = 2048, **sizes) -> Built:
    """HF Phi-3 (config: Phi-3-mini's widths, 3072 hidden, 32 heads with as many key/value
    heads, fused qkv and gate-up projections, SwiGLU of 8192, its 32,064-token vocabulary,
    halved to 16 layers) causal-LM training on `batch` x `tokens` tokens, BF16 autocast, fused
    AdamW."""
    torch = _torch()
    from transformers import Phi3Config, Phi3ForCausalLM

    cfg = Phi3Config(**{"num_hidden_layers": 16, **sizes})
    return _causal_lm_train(torch, Phi3ForCausalLM(cfg), batch, tokens, "phi-3 16 x 3072 (config)")


def ghostnetv2_healthy(variant: str) -> Built:
    """timm GhostNetV2-1.0 (ghost modules: a cheap depthwise half beside each pointwise conv,
    with DFC attention) trained on 224 x 224 images, batch 256, BF16 autocast +
    channels_last, fused AdamW."""
    return _timm(_torch(), "ghostnetv2_100", 256, fixed=True, fused_adamw=True)


def dinov2reg_pageable_input(variant: str, batch: int = 256, **sizes) -> Built:
    """HF DINOv2 with registers (config: ViT-S/14 sizes, 12 layers x 384, 6 heads, 4 register
    tokens) image classification training on `batch` 224 x 224 images of 1000 classes, BF16
    autocast, fused AdamW, fed a FP32 batch from host memory each step: pageable and a blocking
    .cuda() (bad, as a DataLoader without pin_memory hands it over) vs pinned and
    .cuda(non_blocking=True) (fixed)."""
    torch = _torch()
    from transformers import Dinov2WithRegistersConfig, Dinov2WithRegistersForImageClassification

    sizes = {"hidden_size": 384, "num_attention_heads": 6, "num_labels": 1000, **sizes}
    model = Dinov2WithRegistersForImageClassification(Dinov2WithRegistersConfig(**sizes))
    fixed = variant == "fixed"
    host_x = torch.randn(batch, 3, 224, 224)
    if fixed:
        host_x = host_x.pin_memory()
    y = torch.randint(0, 1000, (batch,), device="cuda")
    config = {
        "model": "dinov2 with registers, vit-s/14 sizes (config)",
        "images": f"{batch} x 224 x 224",
        "input": "pinned, non_blocking" if fixed else "pageable, blocking",
    }
    loss_of = lambda m: m(pixel_values=host_x.cuda(non_blocking=fixed), labels=y).loss  # noqa: E731
    return _hf_train(torch, model, loss_of, batch, config)


def ernie45_clip_nonfinite(variant: str, batch: int = 8, tokens: int = 1024, **sizes) -> Built:
    """HF ERNIE 4.5 (config: its 0.3B sizes, 18 layers x 1024, 16 query heads over 2 key/value
    heads, a tied 103,424-token vocabulary) causal-LM training on `batch` x `tokens` tokens, BF16
    autocast, fused AdamW, gradients clipped to norm 1.0: clip_grad_norm_(error_if_nonfinite=True)
    (bad: it reads the norm on the host between the backward and the optimizer) vs the default
    (fixed)."""
    torch = _torch()
    from transformers import Ernie4_5Config, Ernie4_5ForCausalLM

    model = Ernie4_5ForCausalLM(Ernie4_5Config(**sizes)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, model.config.vocab_size, (batch, tokens), device="cuda")
    check = variant == "bad"
    run = _as_run(torch, model)
    step = _clipped_step(torch, model, opt, lambda: run(input_ids=ids, labels=ids).loss,
                         error_if_nonfinite=check)  # fmt: skip
    config = {"model": "ernie 4.5 0.3b sizes (config)", "tokens": f"{batch} x {tokens}"}
    config |= {"autocast": "bf16", "optimizer": "AdamW(fused)", "error_if_nonfinite": check}
    return Built(step, batch, config)


def smollm3_healthy(variant: str, batch: int = 8, tokens: int = 2048, **sizes) -> Built:
    """HF SmolLM3 (config: its 3B widths, 2048 hidden, 16 query heads over 4 key/value heads,
    rotary embeddings left out of every fourth layer, SwiGLU of 11008, a 128,256-token
    vocabulary; halved to 18 layers) causal-LM training on `batch` x `tokens` tokens, BF16
    autocast, fused AdamW."""
    torch = _torch()
    from transformers import SmolLM3Config, SmolLM3ForCausalLM

    cfg = SmolLM3Config(**{"num_hidden_layers": 18, **sizes})
    name = "smollm3 18 x 2048 (config)"
    return _causal_lm_train(torch, SmolLM3ForCausalLM(cfg), batch, tokens, name)


def mambaout_healthy(variant: str) -> Built:
    """timm MambaOut-Small (gated CNN blocks: a depthwise 7 x 7 convolution gating an MLP, the
    Mamba block without its state-space model) trained on 224 x 224 images, batch 128, BF16
    autocast + channels_last, fused AdamW."""
    return _timm(_torch(), "mambaout_small", 128, fixed=True, fused_adamw=True)


def regnety008_loader_workers4(variant: str, workers: int | None = None) -> Built:
    """timm RegNetY-800MF trained on real JPEGs (decode, random resized crop and flip per
    sample), batch 128, BF16 autocast + channels_last, SGD with momentum, pinned memory: four
    DataLoader workers (bad) vs 14 (fixed)."""
    import timm

    torch = _torch()
    if workers is None:
        workers = 14 if variant == "fixed" else 4
    model = timm.create_model("regnety_008", pretrained=False)
    return _jpeg_fed_train(torch, model, workers, "timm regnety_008")


def xlmr_fp32_precision(variant: str, batch: int = 16, tokens: int = 256, **sizes) -> Built:
    """HF XLM-RoBERTa (config: base sizes, 12 layers x 768, its 250,002-token vocabulary)
    masked-LM training on `batch` x `tokens` tokens, fused AdamW: default flags (bad: FP32) vs
    BF16 autocast (fixed)."""
    torch = _torch()
    from transformers import XLMRobertaConfig, XLMRobertaForMaskedLM

    base = {"vocab_size": 250002, "max_position_embeddings": 514, "type_vocab_size": 1}
    model = XLMRobertaForMaskedLM(XLMRobertaConfig(**{**base, **sizes}))
    ids = torch.randint(5, 250002, (batch, tokens), device="cuda")
    config = {"model": "xlm-roberta base sizes (config)", "tokens": f"{batch} x {tokens}"}
    loss_of = lambda m: m(input_ids=ids, labels=ids).loss  # noqa: E731
    return _hf_train(torch, model, loss_of, batch, config, bf16=variant == "fixed")


def glm4_healthy(variant: str, batch: int = 4, tokens: int = 2048, **sizes) -> Built:
    """HF GLM-4 (config: GLM-4-9B's widths, 4096 hidden, 32 query heads over 2 key/value heads,
    rotary embeddings on half of each head, a gated MLP of 13,696, a 151,552-token vocabulary;
    cut to 6 layers) causal-LM training on `batch` x `tokens` tokens, BF16 autocast, fused
    AdamW."""
    torch = _torch()
    from transformers import Glm4Config, Glm4ForCausalLM

    cfg = Glm4Config(**{"num_hidden_layers": 6, **sizes})
    return _causal_lm_train(torch, Glm4ForCausalLM(cfg), batch, tokens, "glm-4 6 x 4096 (config)")


def inceptionnext_healthy(variant: str) -> Built:
    """timm InceptionNeXt-S (ConvNeXt blocks whose depthwise 7 x 7 is split into a 3 x 3, a 1 x
    11 and an 11 x 1 band and an identity branch) trained on 224 x 224 images, batch 128, BF16
    autocast + channels_last, fused AdamW."""
    return _timm(_torch(), "inception_next_small", 128, fixed=True, fused_adamw=True)


def vit_tiny_adamw_loop(variant: str) -> Built:
    """timm ViT-Tiny/16 (12 blocks of 192, 152 parameter tensors) trained on 224 x 224 images,
    batch 128, BF16 autocast: AdamW(foreach=False), a Python loop over the parameters (bad), vs
    AdamW(fused=True) (fixed)."""
    return _timm_adamw_loop("vit_tiny_patch16_224", variant)


def mobilenetv4_small_batch(variant: str) -> Built:
    """timm MobileNetV4-Conv-Medium training on 224 x 224 images, BF16 + channels_last, SGD:
    batch 8 (bad) vs 256 (fixed); the saving is per sample."""
    torch = _torch()
    import timm

    model = timm.create_model("mobilenetv4_conv_medium", pretrained=False)
    return _batch_pair(torch, model, "timm mobilenetv4_conv_medium", variant)


def apertus_healthy(variant: str, batch: int = 4, tokens: int = 2048, **sizes) -> Built:
    """HF Apertus (config: its 8B widths, 4096 hidden, 32 heads with as many key/value heads, a
    non-gated MLP of 14,336 with the xIELU activation, QK-norm, a 131,072-token vocabulary; cut
    to 6 layers) causal-LM training on `batch` x `tokens` tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import ApertusConfig, ApertusForCausalLM

    cfg = ApertusConfig(**{"num_hidden_layers": 6, **sizes})
    return _causal_lm_train(
        torch, ApertusForCausalLM(cfg), batch, tokens, "apertus 6 x 4096 (config)"
    )


def nextvit_healthy(variant: str) -> Built:
    """timm Next-ViT-S (convolution blocks with multi-head convolutional attention, then
    transformer blocks with spatially reduced attention) trained on 224 x 224 images, batch 128,
    BF16 autocast + channels_last, fused AdamW."""
    return _timm(_torch(), "nextvit_small", 128, fixed=True, fused_adamw=True)


# ---- holdout 73: compiled decoders, after the dense-causal-mask finding (labels before capture) -


def qwen3_compiled_causal_mask(variant: str, batch: int = 2, tokens: int = 4096) -> Built:
    """HF Qwen3 (config: 8 layers x 1024, 16 heads of 64 with as many key/value heads, q/k
    norms, SwiGLU 2816) causal-LM training on `batch` x `tokens` tokens, BF16 autocast, fused
    AdamW: torch.compile(model) (bad: traced, transformers builds the causal mask as a tensor and
    SDPA runs is_causal=False) vs each decoder layer compiled in place (fixed: the mask is
    decided eagerly, none, and SDPA runs is_causal=True). FLOPs are not counted (compiled
    steps)."""
    torch = _torch()
    from transformers import Qwen3Config, Qwen3ForCausalLM

    sizes = {**DECODER_8X1024, "head_dim": 64, "max_position_embeddings": tokens}
    model = Qwen3ForCausalLM(Qwen3Config(**sizes)).cuda()
    if variant == "fixed":
        _compile_layers(torch, model)
        run, how = model, "each decoder layer"
    else:
        run, how = torch.compile(model), "the whole model"
    config = {"model": "qwen3 8 x 1024 (config)", "tokens": f"{batch} x {tokens}", "compiled": how}
    return _compiled_lm_train(torch, model, run, batch, tokens, config)


def pythia_compiled_healthy(variant: str) -> Built:
    """HF GPT-NeoX (config: Pythia-160M's sizes, 12 layers x 768, 12 heads, rotary embeddings on
    a quarter of each head, parallel attention and MLP) causal-LM training on 8 x 1,024 tokens,
    BF16 autocast, fused AdamW, the model under torch.compile (default mode)."""
    torch = _torch()
    from transformers import GPTNeoXForCausalLM

    model = GPTNeoXForCausalLM(_pythia_160m_config()).cuda()
    config = {"model": "pythia-160m (config)", "tokens": 8 * 1024, "compile": "default"}
    return _compiled_lm_train(torch, model, torch.compile(model), 8, 1024, config)


# ---- holdout 74: a vision-language model, a class-attention ViT, TResNet (labels before capture) -


def llava_healthy(variant: str, batch: int = 8, text_tokens: int = 448, **vision) -> Built:
    """HF LLaVA (config: a CLIP vision tower of ViT-B/14 sizes at 336 x 336, 576 patch tokens,
    its second-to-last layer's features through the two-layer GELU projector, into the zoo's
    Llama decoder of 8 layers x 1024) trained on `batch` samples of one image and `text_tokens`
    text tokens each (1,024 tokens in all), the loss on the text only, BF16 autocast, fused
    AdamW."""
    torch = _torch()
    from transformers import (
        CLIPVisionConfig,
        LlamaConfig,
        LlavaConfig,
        LlavaForConditionalGeneration,
    )

    sizes = {"hidden_size": 768, "intermediate_size": 3072, "num_hidden_layers": 12}
    sizes |= {"num_attention_heads": 12, "image_size": 336, "patch_size": 14, **vision}
    patches = (sizes["image_size"] // sizes["patch_size"]) ** 2
    image_token = 32000
    cfg = LlavaConfig(
        vision_config=CLIPVisionConfig(**sizes),
        text_config=LlamaConfig(**{**DECODER_8X1024, "vocab_size": 32064}),
        image_token_index=image_token,
        image_seq_length=patches,
    )
    model = LlavaForConditionalGeneration(cfg)
    text = torch.randint(0, image_token, (batch, text_tokens), device="cuda")
    ids = torch.cat([torch.full((batch, patches), image_token, device="cuda"), text], dim=1)
    labels = torch.cat([torch.full((batch, patches), -100, device="cuda"), text], dim=1)
    pixels = torch.randn(batch, 3, sizes["image_size"], sizes["image_size"], device="cuda")
    config = {"model": "llava: clip vit-b/14-336 + llama 8 x 1024 (config)"}
    config |= {"tokens": f"{batch} x ({patches} image + {text_tokens} text)"}
    loss_of = lambda m: m(input_ids=ids, pixel_values=pixels, labels=labels).loss  # noqa: E731
    return _hf_train(torch, model, loss_of, batch, config)


def cait_fp32_precision(variant: str) -> Built:
    """timm CaiT-S24 (24 self-attention blocks of 384 with LayerScale and talking heads, then two
    class-attention blocks) trained on 224 x 224 images, batch 64, fused AdamW: default flags
    (bad: FP32, NCHW) vs BF16 autocast + channels_last (fixed)."""
    return _timm(_torch(), "cait_s24_224", 64, fixed=variant == "fixed", fused_adamw=True)


def tresnet_healthy(variant: str) -> Built:
    """timm TResNet-M (space-to-depth stem, anti-aliased downsampling, squeeze-excitation, leaky
    ReLU batch norm) trained on 224 x 224 images, batch 128, BF16 autocast + channels_last, fused
    AdamW."""
    return _timm(_torch(), "tresnet_m", 128, fixed=True, fused_adamw=True)


# ---- holdout 75: launches left blocking, MLA + MoE, Res2Net (labels before capture) -------------


def twins_launch_blocking(variant: str) -> Built:
    """timm Twins-SVT-S (locally grouped and global sub-sampled attention, convolutional position
    encodings) trained on 224 x 224 images, batch 128, BF16 autocast + channels_last, fused AdamW:
    with CUDA_LAUNCH_BLOCKING=1 left in the environment (bad: as after debugging a device-side
    assert, every kernel launch returns only when its kernel has finished) vs without it
    (fixed). Each run is its own process, so the variable is the bad run's alone."""
    if variant == "bad":
        os.environ["CUDA_LAUNCH_BLOCKING"] = "1"  # read once, when CUDA initialises (below)
    built = _timm(_torch(), "twins_svt_small", 128, fixed=True, fused_adamw=True)
    built.config["CUDA_LAUNCH_BLOCKING"] = os.environ.get("CUDA_LAUNCH_BLOCKING", "unset")
    return built


def deepseek_v3_healthy(variant: str) -> Built:
    """HF DeepSeek-V3 (config: 8 layers x 1024; multi-head latent attention, 16 heads with
    queries through a rank-512 and keys/values through a rank-256 projection, 64 + 32 rotary
    query/key dims and 64 value dims; the first layer a dense SwiGLU MLP of 2816, the rest 32
    routed experts of 512, top-4 in group-limited routing (8 groups, 4 picked), plus one shared
    expert) causal-LM training on 8 x 1024 tokens, BF16 weights, fused AdamW, transformers'
    grouped_mm experts."""
    from transformers import DeepseekV3Config, DeepseekV3ForCausalLM

    cfg = DeepseekV3Config(
        **{**DECODER_8X1024, "moe_intermediate_size": 512},
        n_routed_experts=32,
        num_experts_per_tok=4,
        n_group=8,
        topk_group=4,
        n_shared_experts=1,
        first_k_dense_replace=1,
        q_lora_rank=512,
        kv_lora_rank=256,
        qk_nope_head_dim=64,
        qk_rope_head_dim=32,
        v_head_dim=64,
    )
    config = {"model": "deepseek-v3 8x1024 (config), MLA, 32 experts of 512 top-4 + 1 shared"}
    return _hf_moe_experts(DeepseekV3ForCausalLM, cfg, "fixed", config)


def res2net_healthy(variant: str) -> Built:
    """timm Res2Net-50 (26w x 4s: each bottleneck's 3 x 3 split into four hierarchical groups)
    trained on 224 x 224 images, batch 128, BF16 autocast + channels_last, fused AdamW."""
    return _timm(_torch(), "res2net50_26w_4s", 128, fixed=True, fused_adamw=True)


# ---- holdout 80: model families the rules were not written from -----------------------------


def sequencer2d_healthy(variant: str) -> Built:
    """timm Sequencer2D-S (bidirectional LSTMs run along the rows and the columns of each
    feature map in place of attention) trained on 224 x 224 images, batch 128, BF16 autocast +
    channels_last, fused AdamW."""
    return _timm(_torch(), "sequencer2d_s", 128, fixed=True, fused_adamw=True)


def volo_fp32_precision(variant: str) -> Built:
    """timm VOLO-D1 (outlook attention over unfolded 3 x 3 neighbourhoods, then class attention)
    trained on 224 x 224 images, batch 64, fused AdamW: default precision flags, FP32 NCHW (bad)
    vs BF16 autocast + channels_last (fixed)."""
    return _timm(_torch(), "volo_d1_224", 64, fixed=variant == "fixed", fused_adamw=True)


# ---- holdout 81 ----------------------------------------------------------------------------------


def efficientvit_checkpointing(variant: str) -> Built:
    """timm EfficientViT-B2 (MIT's: ReLU linear attention over multi-scale tokens, MBConv blocks)
    trained on 224 x 224 images, batch 128, BF16 autocast + channels_last, fused AdamW, with
    memory to spare: timm's set_grad_checkpointing(True), its stages recomputed in backward
    (bad), vs off (fixed)."""
    return _timm_checkpointing("efficientvit_b2", 128, variant == "bad")


def starcoder2_checkpointing(variant: str) -> Built:
    """HF Starcoder2 (config: 8 layers x 1024; LayerNorm with biases, a GELU MLP) causal-LM
    training on 8 x 1024 tokens, BF16 autocast, fused AdamW, with memory to spare:
    gradient_checkpointing_enable() (bad) vs off (fixed)."""
    from transformers import Starcoder2Config, Starcoder2ForCausalLM

    return _hf_decoder_checkpointing(
        Starcoder2Config, Starcoder2ForCausalLM, "starcoder2", variant == "bad"
    )


def maxvit_checkpointing(variant: str) -> Built:
    """timm MaxViT-T (MBConv, then block and grid attention in every stage) trained on 224 x 224
    images, batch 64, BF16 autocast + channels_last, fused AdamW, with memory to spare: timm's
    set_grad_checkpointing(True) (bad) vs off (fixed)."""
    return _timm_checkpointing("maxvit_tiny_tf_224", 64, variant == "bad")


# ---- holdout 83: healthy runs of families the rules were not written from ----------------------


def vgg16bn_healthy(variant: str) -> Built:
    """torchvision VGG-16 with batch norm trained on 224 x 224 images, batch 64, BF16 autocast +
    channels_last, fused AdamW."""
    torch = _torch()
    import torchvision

    model = torchvision.models.vgg16_bn(weights=None)
    return _image_train(torch, model, "torchvision vgg16_bn", 64, fixed=True, fused_adamw=True)


def dla34_healthy(variant: str) -> Built:
    """timm DLA-34 (deep layer aggregation: trees of residual blocks whose outputs are merged by
    aggregation nodes at every depth) trained on 224 x 224 images, batch 128, BF16 autocast +
    channels_last, fused AdamW."""
    return _timm(_torch(), "dla34", 128, fixed=True, fused_adamw=True)


def rexnet_healthy(variant: str) -> Built:
    """timm ReXNet-1.0 (inverted residuals whose channels grow linearly block by block, SiLU and
    ReLU6, squeeze-excitation) trained on 224 x 224 images, batch 128, BF16 autocast +
    channels_last, fused AdamW."""
    return _timm(_torch(), "rexnet_100", 128, fixed=True, fused_adamw=True)


def olmo_healthy(variant: str) -> Built:
    """HF OLMo (v1; config: DECODER_8X1024, LayerNorm without weights, SwiGLU) causal-LM
    training on 8 x 1024 tokens, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import OlmoConfig, OlmoForCausalLM

    model = OlmoForCausalLM(OlmoConfig(**DECODER_8X1024))
    return _causal_lm_train(torch, model, 8, 1024, "olmo 8 x 1024 (config)")


def _stablelm_generate(variant: str, batch: int, sample: bool) -> Built:
    """HF StableLM (config: StableLM-2-1.6B's widths, 2048 hidden, 32 heads, SwiGLU 5632,
    partial rotary, LayerNorm, its 100,352-token vocabulary; 12 layers) generating 32 tokens
    after a 128-token prompt, weights cast to BF16 once, inference_mode: the default dynamic KV
    cache, eager (variant bad), or cache_implementation="static", under which generate()
    compiles the decoding forward itself (CUDA graphs, mode "reduce-overhead"). sample: top-p
    sampling instead of greedy decoding."""
    torch = _torch()
    from transformers import StableLmConfig, StableLmForCausalLM

    cfg = StableLmConfig(
        hidden_size=2048,
        intermediate_size=5632,
        num_hidden_layers=12,
        num_attention_heads=32,
        num_key_value_heads=32,
        vocab_size=100352,
        max_position_embeddings=4096,
    )
    model = StableLmForCausalLM(cfg).to(torch.bfloat16).cuda().eval()
    static = variant != "bad"
    prompt = torch.randint(0, cfg.vocab_size, (batch, 128), device="cuda")
    kwargs = {"do_sample": True, "top_p": 0.9, "top_k": 0} if sample else {"do_sample": False}
    step = _cast_once_step(
        torch,
        model.generate,
        input_ids=prompt,
        attention_mask=torch.ones_like(prompt),
        max_new_tokens=32,
        min_new_tokens=32,
        pad_token_id=0,
        **({"cache_implementation": "static"} if static else {}),
        **kwargs,
    )
    config = {
        "model": "stablelm 12 x 2048 (config)",
        "prompt": 128,
        "new_tokens": 32,
        "weights": "bf16",
        "decoding": "top-p 0.9" if sample else "greedy",
        "kv_cache": "static" if static else "dynamic",
    }
    if not static:
        return Built(step, batch, config, timed_steps=3)
    import torch._dynamo.utils as dynamo_utils

    built = _compiled_for_capture(torch, step, batch, config)
    # whether generate() did compile the decoding forward (transformers does so only where the
    # model and cache allow): the sidecar says
    built.config["compiled_graphs"] = int(dynamo_utils.counters["stats"]["unique_graphs"])
    return built


def stablelm_static_greedy(batch: int) -> Built:
    """_stablelm_generate's compiled static-cache greedy decode at `batch` prompts
    (batch_sweep.py)."""
    return _stablelm_generate("fixed", batch, sample=False)


def stablelm_static_sampled(batch: int) -> Built:
    """_stablelm_generate's compiled static-cache top-p decode at `batch` prompts
    (batch_sweep.py)."""
    return _stablelm_generate("static", batch, sample=True)


def stablelm_generate_static(variant: str) -> Built:
    """_stablelm_generate for one prompt, greedy: eager with the dynamic cache (bad) vs the
    static cache generate() compiles (fixed)."""
    return _stablelm_generate(variant, 1, sample=False)


def stablelm_sample_static_b16(variant: str) -> Built:
    """_stablelm_generate for 16 prompts at once, top-p sampling, static cache (compiled by
    generate()): a serving-style decode."""
    return stablelm_static_sampled(16)


def s3d_healthy(variant: str) -> Built:
    """torchvision S3D (separable 3D convolutions) video classification training on 16 clips of
    16 x 224 x 224 frames, 400 classes, BF16 autocast + channels_last_3d, fused AdamW."""
    torch = _torch()
    import torchvision

    fmt = torch.channels_last_3d
    model = torchvision.models.video.s3d(weights=None, num_classes=400).cuda().to(memory_format=fmt)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    x = torch.randn(16, 3, 16, 224, 224, device="cuda").to(memory_format=fmt)
    y = torch.randint(0, 400, (16,), device="cuda")
    run = _as_run(torch, model)
    step = _train_step(torch, opt, lambda: torch.nn.functional.cross_entropy(run(x), y))
    config = {"model": "torchvision s3d", "clip": "16x3x16x224x224", "optimizer": "AdamW(fused)"}
    return Built(step, 16, {**config, "autocast": "bf16", "channels_last": True})


def granitemoe_healthy(variant: str) -> Built:
    """HF GraniteMoE (config: 8 layers x 1024, 16 heads, 8 experts of 512 a token's top 2, run
    as batched expert matmuls, its 49,152-token vocabulary) causal-LM training on 8 x 1024
    tokens, BF16 autocast, fused AdamW. Variant bf16_experts (a study, after holdout 85's
    score): the experts' weights cast to BF16, so torch._grouped_mm (which autocast does not
    cover; transformers casts its input to the weights' dtype) runs its BF16 kernel instead of
    the FP32 fallback that reads the group offsets to the host."""
    torch = _torch()
    from transformers import GraniteMoeConfig, GraniteMoeForCausalLM

    cfg = GraniteMoeConfig(
        hidden_size=1024,
        intermediate_size=512,
        num_hidden_layers=8,
        num_attention_heads=16,
        num_key_value_heads=16,
        num_local_experts=8,
        num_experts_per_tok=2,
        vocab_size=49152,
        max_position_embeddings=2048,
    )
    model = GraniteMoeForCausalLM(cfg)
    if variant == "bf16_experts":
        for layer in model.model.layers:
            layer.block_sparse_moe.experts.to(torch.bfloat16)
    return _causal_lm_train(torch, model, 8, 1024, "granitemoe 8 x 1024")


def cvt_healthy(variant: str) -> Built:
    """HF CvT-13 (config: convolutional token embeddings and projections, three stages) image
    classification training on 64 images of 224 x 224, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import CvtConfig, CvtForImageClassification

    model = CvtForImageClassification(CvtConfig(num_labels=1000))
    x = torch.randn(64, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (64,), device="cuda")
    config = {"model": "cvt-13 (config)", "images": "64 x 224 x 224"}
    return _hf_train(torch, model, lambda m: m(pixel_values=x, labels=y).loss, 64, config)


def codegen_healthy(variant: str) -> Built:
    """HF CodeGen (config: 12 layers x 1024, 16 heads, rotary on 32 of each head's 64 dims,
    parallel attention and MLP, 51,200-token vocabulary) causal-LM training on 8 x 1024 tokens,
    BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import CodeGenConfig, CodeGenForCausalLM

    cfg = CodeGenConfig(
        n_layer=12, n_embd=1024, n_head=16, rotary_dim=32, n_positions=2048, vocab_size=51200
    )
    return _causal_lm_train(torch, CodeGenForCausalLM(cfg), 8, 1024, "codegen 12 x 1024")


# ---- holdout 86 ---------------------------------------------------------------------------------


def _moe_fp32_master(model, variant: str, name: str) -> Built:
    """An HF mixture-of-experts causal LM trained as mixed precision usually is: FP32 weights,
    BF16 autocast, fused AdamW, 8 x 1024 tokens, with transformers' default experts backend
    (grouped_mm since 5.x). Variant "fixed": the experts' weights cast to BF16 (torch's grouped
    matmul is no autocast op; transformers casts its input to the weights' dtype)."""
    torch = _torch()
    if variant == "fixed":
        for module in model.modules():
            if type(module).__name__.endswith("Experts"):
                module.to(torch.bfloat16)
    built = _causal_lm_train(torch, model, 8, 1024, name)
    experts = "bf16" if variant == "fixed" else "fp32"
    impl = getattr(model.config, "_experts_implementation", None)
    built.config.update({"weights": "fp32", "experts_weights": experts, "experts": impl})
    return built


def mixtral_fp32_experts(variant: str) -> Built:
    """_moe_fp32_master on HF Mixtral (config: 8 layers x 1024, 8 experts of 1792, top 2)."""
    from transformers import MixtralConfig, MixtralForCausalLM

    model = MixtralForCausalLM(MixtralConfig(**MIXTRAL_8X1024))
    return _moe_fp32_master(model, variant, "mixtral 8x1024 (config), 8 top-2")


def olmoe_fp32_experts(variant: str) -> Built:
    """_moe_fp32_master on HF OLMoE (config: 8 layers x 1024, 32 experts of 512, top 4)."""
    from transformers import OlmoeConfig, OlmoeForCausalLM

    model = OlmoeForCausalLM(OlmoeConfig(**OLMOE_8X1024))
    return _moe_fp32_master(model, variant, "olmoe 8x1024 (config), 32 top-4")


def phimoe_bf16_healthy(variant: str) -> Built:
    """HF PhiMoE (config: 8 layers x 1024, 8 experts of 1792, top 2 by sparsemixer routing)
    trained in BF16 weights with fused AdamW on 8 x 1024 tokens, experts as grouped_mm."""
    from transformers import PhimoeConfig, PhimoeForCausalLM

    cfg = PhimoeConfig(**MIXTRAL_8X1024)
    config = {"model": "phimoe 8x1024 (config), 8 experts top-2"}
    return _hf_moe_experts(PhimoeForCausalLM, cfg, "fixed", config)


def efficientnetv2_s_healthy(variant: str) -> Built:
    """torchvision EfficientNetV2-S (fused MBConv, squeeze-excitation, SiLU) image classification
    training on 224 x 224 images, batch 64, BF16 autocast + channels_last, SGD with momentum."""
    torch = _torch()
    import torchvision

    model = torchvision.models.efficientnet_v2_s(weights=None)
    return _image_train(torch, model, "torchvision efficientnet_v2_s", 64, True, False)


def resnet50_deterministic(variant: str) -> Built:
    """torchvision ResNet-50 training on 224 x 224 images, batch 128, BF16 autocast +
    channels_last, SGD with momentum: the reproducibility block many training scripts start with
    (cudnn.deterministic=True, cudnn.benchmark=False, torch.use_deterministic_algorithms(True,
    warn_only=True), and the CUBLAS_WORKSPACE_CONFIG it asks for) (bad) vs PyTorch's defaults
    (fixed). Each run is its own process, so the settings reach only the bad run."""
    import os

    bad = variant == "bad"
    if bad:  # read when cuBLAS makes its first handle, so set before any CUDA work
        os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
    torch = _torch()
    import torchvision

    if bad:
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        torch.use_deterministic_algorithms(True, warn_only=True)
    model = torchvision.models.resnet50(weights=None)
    built = _image_train(torch, model, "torchvision resnet50", 128, True, False)
    return replace(built, config={**built.config, "deterministic_algorithms": bad})


def llama32_1b_healthy(variant: str) -> Built:
    """HF Llama (config: Llama 3.2 1B sizes, 16 layers x 2048, 32 heads of 64, SwiGLU of 8192,
    tied embeddings, its 128,256-token vocabulary; as many key/value heads as query heads, since
    FlopCounterMode rejects grouped SDPA) causal-LM training on 4 x 1024 tokens, BF16 autocast,
    fused AdamW: the size of model most single-GPU fine-tuning runs train."""
    torch = _torch()
    from transformers import LlamaConfig, LlamaForCausalLM

    cfg = LlamaConfig(
        hidden_size=2048,
        intermediate_size=8192,
        num_hidden_layers=16,
        num_attention_heads=32,
        num_key_value_heads=32,
        head_dim=64,
        vocab_size=128256,
        tie_word_embeddings=True,
        rope_theta=500000.0,
        max_position_embeddings=4096,
    )
    return _causal_lm_train(torch, LlamaForCausalLM(cfg), 4, 1024, "llama 3.2 1b sizes (config)")


class _CifarLikeDataset:
    """50,000 random 32 x 32 RGB images and labels held in memory as uint8, each returned as
    torchvision.datasets.CIFAR10 returns it (a PIL image through `transform`) with its label."""

    def __init__(self, transform):
        import numpy as np

        rng = np.random.default_rng(0)
        self.images = rng.integers(0, 256, (50_000, 32, 32, 3), dtype=np.uint8)
        self.labels = rng.integers(0, 10, 50_000)
        self.transform = transform

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        from PIL import Image

        return self.transform(Image.fromarray(self.images[i])), int(self.labels[i])


def cifar_resnet18_precision(variant: str) -> Built:
    """cifar_resnet18 at the tutorial's batch, 128."""
    return cifar_resnet18(128, variant)


def cifar_resnet18_fp32(batch: int) -> Built:
    """cifar_resnet18's bad run at `batch` (batch_sweep.py)."""
    return cifar_resnet18(batch, "bad")


def cifar_resnet18(batch: int, variant: str = "fixed") -> Built:
    """The CIFAR-10 tutorial's training loop (kuangliu/pytorch-cifar's main.py): ResNet-18 with a
    3 x 3 stride-1 stem and no max pool (torchvision resnet18, 10 classes), batch `batch` of 32 x
    32 images from a DataLoader with 2 workers (shuffle; per sample RandomCrop(32, padding=4),
    RandomHorizontalFlip, ToTensor, Normalize on the CPU), copied with .to(device), SGD (lr 0.1,
    momentum 0.9, weight decay 5e-4). bad: FP32 NCHW, as the tutorial runs; fixed: BF16
    autocast + channels_last. A variant ending in _resident keeps one batch from the loader on
    the GPU and trains on it every step (no loader): the loader's cost, timed beside it."""
    torch = _torch()
    import torchvision
    from torchvision import transforms as T

    fixed = variant.startswith("fixed")
    model = torchvision.models.resnet18(weights=None, num_classes=10)
    model.conv1 = torch.nn.Conv2d(3, 64, 3, 1, 1, bias=False)
    model.maxpool = torch.nn.Identity()
    fmt = torch.channels_last if fixed else torch.contiguous_format
    model = model.cuda().to(memory_format=fmt)
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, weight_decay=5e-4)
    transform = T.Compose(
        [
            T.RandomCrop(32, padding=4),
            T.RandomHorizontalFlip(),
            T.ToTensor(),
            T.Normalize((0.4914, 0.4822, 0.4465), (0.2023, 0.1994, 0.2010)),
        ]
    )
    workers = 2
    loader = torch.utils.data.DataLoader(
        _CifarLikeDataset(transform), batch_size=batch, shuffle=True, num_workers=workers
    )
    next_batch = _endless(loader)
    if variant.endswith("_resident"):
        kept = [t.to("cuda") for t in next_batch()]
        next_batch = lambda: kept  # noqa: E731
    run = _as_run(torch, model)

    def loss_of():
        x, y = next_batch()
        x, y = x.to("cuda"), y.to("cuda")
        return torch.nn.functional.cross_entropy(run(x.to(memory_format=fmt)), y)

    step = _train_step(torch, opt, loss_of, bf16=fixed)
    config = {"model": "torchvision resnet18, CIFAR stem (3x3, no max pool)", "image": "32x32"}
    config |= {"num_workers": workers, "pin_memory": False, "transforms": "crop, flip on CPU"}
    config |= {"autocast": "bf16" if fixed else None, "channels_last": fixed}
    config |= {"loader": not variant.endswith("_resident")}
    return Built(step, batch, config, warmup_steps=_drain_steps(workers))


def bart_summarize(batch: int, variant: str = "fixed") -> Built:
    """HF BART at bart-base sizes (config: 6 + 6 layers x 768, 12 heads, random weights, eval)
    summarising `batch` inputs of 512 tokens with beam search, 4 beams, 64 new tokens (min and
    max, so every step generates as many), KV cache, BF16 autocast, length_penalty 2.0 as
    bart-large-cnn's generation config sets. bad: that config's no_repeat_ngram_size=3, whose
    logits processor (NoRepeatNGramLogitsProcessor) gathers each hypothesis's n-grams on the host
    at every token; fixed: no_repeat_ngram_size=0."""
    torch = _torch()
    from transformers import BartConfig, BartForConditionalGeneration

    cfg = BartConfig(
        d_model=768,
        encoder_layers=6,
        decoder_layers=6,
        encoder_attention_heads=12,
        decoder_attention_heads=12,
        encoder_ffn_dim=3072,
        decoder_ffn_dim=3072,
    )
    model = BartForConditionalGeneration(cfg).cuda().eval()
    ngram = 3 if variant == "bad" else 0
    src = torch.randint(4, cfg.vocab_size, (batch, 512), device="cuda")
    step = _inference_step(
        torch,
        model.generate,
        input_ids=src,
        attention_mask=torch.ones_like(src),
        num_beams=4,
        max_new_tokens=64,
        min_new_tokens=64,
        length_penalty=2.0,
        no_repeat_ngram_size=ngram,
        do_sample=False,
    )
    config = {"model": "bart-base sizes (config)", "input_tokens": 512, "new_tokens": 64}
    config |= {"num_beams": 4, "no_repeat_ngram_size": ngram, "autocast": "bf16"}
    return Built(step, batch, config, timed_steps=3)


def bart_beam_ngram(variant: str) -> Built:
    """bart_summarize at batch 8."""
    return bart_summarize(8, variant)


def bart_beam_fixed(batch: int) -> Built:
    """bart_summarize's fixed run at `batch` (batch_sweep.py)."""
    return bart_summarize(batch, "fixed")


def bart_beam_bad(batch: int) -> Built:
    """bart_summarize's bad run at `batch` (batch_sweep.py)."""
    return bart_summarize(batch, "bad")


def gpt2_zero_grad_keep(variant: str) -> Built:
    """HF GPT-2 (124M) causal-LM training on 8 x 1024 tokens, BF16 autocast, fused AdamW, as
    _train_step trains, except that the bad run zeroes the gradients in place
    (optimizer.zero_grad(set_to_none=False), as code written before PyTorch 2.0 and some
    trainers still do: a memset per gradient, and backward then adds into them) where the fixed
    run sets them to None (the default since 2.0)."""
    model, cfg, torch = _gpt2()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    ids = torch.randint(0, cfg.vocab_size, (8, 1024), device="cuda")
    run = _as_run(torch, model)
    keep = variant == "bad"

    def step():
        with torch.autocast("cuda", dtype=torch.bfloat16):
            loss = run(input_ids=ids, labels=ids).loss
        opt.zero_grad(set_to_none=not keep)
        loss.backward()
        opt.step()

    config = {"model": "gpt2-124M", "tokens": "8 x 1024", "autocast": "bf16"}
    config |= {"optimizer": "AdamW(fused)", "zero_grad_set_to_none": not keep}
    return Built(step, 8, config)


def vit_distill_fp32_teacher(variant: str) -> Built:
    """DeiT-style knowledge distillation: a timm ViT-B/16 teacher in eval under no_grad and a
    ViT-S/16 student trained on the teacher's softened logits (KL at temperature 4) plus the
    labels, batch 128 of 224 x 224 images, fused AdamW on the student, the student's forward and
    loss under BF16 autocast. bad: the teacher's forward runs before the autocast block, so in
    FP32 (matmuls without TF32, the default), as loops that compute the soft targets first are
    written; fixed: inside it. Under COMPILE_MODEL the student is compiled."""
    torch = _torch()
    import timm

    teacher = timm.create_model("vit_base_patch16_224", pretrained=False).cuda().eval()
    student = timm.create_model("vit_small_patch16_224", pretrained=False).cuda()
    opt = torch.optim.AdamW(student.parameters(), lr=1e-4, fused=True)
    x = torch.randn(128, 3, 224, 224, device="cuda")
    y = torch.randint(0, 1000, (128,), device="cuda")
    run = _as_run(torch, student)
    f = torch.nn.functional
    early = variant == "bad"

    def soft_targets():
        with torch.no_grad():
            return f.log_softmax(teacher(x).float() / 4, -1)

    def step():
        soft = soft_targets() if early else None
        with torch.autocast("cuda", dtype=torch.bfloat16):
            soft = soft if early else soft_targets()
            logits = run(x).float()
            kd = f.kl_div(
                f.log_softmax(logits / 4, -1), soft, log_target=True, reduction="batchmean"
            )
            loss = 16 * kd + f.cross_entropy(logits, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    config = {"model": "timm vit_base_patch16_224 teacher -> vit_small_patch16_224 student"}
    config |= {"autocast": "bf16", "teacher_autocast": not early, "optimizer": "AdamW(fused)"}
    return Built(step, 128, config)


def trocr_healthy(variant: str) -> Built:
    """A TrOCR-style printed-text recogniser: HF VisionEncoderDecoderModel (config: a ViT-B/16
    encoder on 384 x 384 images, TrOCR's decoder at its defaults, 12 layers x 1024), trained on
    16 images and 64-token label sequences, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import (
        TrOCRConfig,
        VisionEncoderDecoderConfig,
        VisionEncoderDecoderModel,
        ViTConfig,
    )

    cfg = VisionEncoderDecoderConfig.from_encoder_decoder_configs(
        ViTConfig(image_size=384), TrOCRConfig()
    )
    cfg.decoder_start_token_id, cfg.pad_token_id = 2, 1
    model = VisionEncoderDecoderModel(cfg)
    x = torch.randn(16, 3, 384, 384, device="cuda")
    labels = torch.randint(4, cfg.decoder.vocab_size, (16, 64), device="cuda")
    config = {"model": "ViT-B/16 (384) encoder + TrOCR decoder (config)", "labels": "16 x 64"}
    return _hf_train(torch, model, lambda m: m(pixel_values=x, labels=labels).loss, 16, config)


def switch_moe_healthy(variant: str) -> Built:
    """HF SwitchTransformers at switch-base-8 sizes (config: 12 + 12 layers x 768, 8 experts in
    every other layer, top-1 routing, expert capacity 64) trained span-corruption style on 8 x
    512 input tokens and 8 x 128 targets, BF16 autocast, fused AdamW."""
    torch = _torch()
    from transformers import SwitchTransformersConfig, SwitchTransformersForConditionalGeneration

    cfg = SwitchTransformersConfig()
    cfg.decoder_start_token_id = 0  # T5's pad id; labels are shifted right from it
    model = SwitchTransformersForConditionalGeneration(cfg)
    src = torch.randint(2, cfg.vocab_size, (8, 512), device="cuda")
    tgt = torch.randint(2, cfg.vocab_size, (8, 128), device="cuda")
    config = {"model": "switch-base-8 sizes (config)", "tokens": "8 x 512 -> 8 x 128"}
    return _hf_train(torch, model, lambda m: m(input_ids=src, labels=tgt).loss, 8, config)


def _trainer_train(
    torch, model, rows, batch: int, config: dict, warmup_steps: int = WARMUP_STEPS, **training_args
) -> Built:
    """`model` trained by transformers' Trainer on the dicts `rows` (default collator, its own
    DataLoader: no workers, pinned memory), `batch` rows a step, with TrainingArguments' defaults
    but for `training_args` (under COMPILE_MODEL also torch_compile=True, the Trainer's own
    compile switch). Trainer.train() runs its loop to the end, so each step here runs one
    optimizer step as Trainer._run_epoch does it in transformers 5.17 with no gradient
    accumulation (the micro-step hooks and loggers are no-ops without callbacks): its batch and
    item count, training_step (autocast, if any, from the accelerator's wrapper of the model),
    the loss's non-finite test (logging_nan_inf_filter, on by default: a read of the loss on the
    host), gradient clipping to max_grad_norm, the optimizer and LR scheduler steps and
    model.zero_grad()."""
    import tempfile

    from transformers import Trainer, TrainingArguments

    if COMPILE_MODEL:
        training_args["torch_compile"] = True
    args = TrainingArguments(
        output_dir=tempfile.mkdtemp(prefix="zoo_trainer_"),
        per_device_train_batch_size=batch,
        max_steps=100_000,
        report_to=[],
        disable_tqdm=True,
        save_strategy="no",
        logging_strategy="no",
        **training_args,
    )
    trainer = Trainer(model=model, args=args, train_dataset=rows)
    loader = trainer.get_train_dataloader()
    wrapped, loader = trainer._prepare_for_training(args.max_steps, loader, None)
    trainer._tr_loss = torch.tensor(0.0, device=args.device)
    wrapped.zero_grad()
    next_batch = _endless(loader)

    def step():
        batches, n_items = trainer.get_batch_samples(iter([next_batch()]), 1, args.device)
        trainer.current_gradient_accumulation_steps = 1
        loss = trainer.training_step(wrapped, batches[0], n_items)
        if args.logging_nan_inf_filter and (torch.isnan(loss) or torch.isinf(loss)):
            trainer._tr_loss += trainer._tr_loss / 2
        else:
            trainer._tr_loss += loss
        if args.max_grad_norm > 0:
            trainer._clip_grad_norm(wrapped)
        trainer.optimizer.step()
        if not trainer.accelerator.optimizer_step_was_skipped:
            trainer.lr_scheduler.step()
        wrapped.zero_grad()
        trainer.state.global_step += 1

    config = {**config, "loop": "transformers.Trainer (its step, as _run_epoch runs it)"}
    config |= {
        "optim": str(getattr(args.optim, "value", args.optim)),
        "bf16": args.bf16,
        **training_args,
    }
    return Built(step, batch, config, warmup_steps=warmup_steps)


def _token_rows(torch, n: int, length: int, vocab: int) -> list[dict]:
    """`n` rows of `length` random token ids (input_ids, labels the same) in host memory, as a
    tokenised dataset hands them to the Trainer's collator."""
    ids = torch.randint(0, vocab, (n, length))
    return [{"input_ids": r, "labels": r.clone()} for r in ids]


def trainer_bert_fp32(variant: str) -> Built:
    """HF BERT (config: bert-base sizes) masked-LM training through transformers' Trainer, 16 x
    512 tokens a step: TrainingArguments' defaults, so FP32 (bad), vs bf16=True (fixed)."""
    torch = _torch()
    from transformers import BertConfig, BertForMaskedLM

    model = BertForMaskedLM(BertConfig())
    rows = _token_rows(torch, 1024, 512, BertConfig().vocab_size)
    config = {"model": "bert-base sizes (config)", "tokens": "16 x 512"}
    return _trainer_train(torch, model, rows, 16, config, bf16=variant == "fixed")


class _JpegPixelDataset(_JpegDataset):
    """_JpegDataset's decode, crop and flip, then what a HF image processor does on the CPU:
    scale to [0, 1] and normalise in FP32, as {"pixel_values", "labels"} rows for a Trainer."""

    def __getitem__(self, i):
        import torch

        img, label = super().__getitem__(i)
        mean = torch.tensor([0.5, 0.5, 0.5]).view(3, 1, 1)
        pixels = (img.float() / 255 - mean) / 0.5
        return {"pixel_values": pixels, "labels": label}


def trainer_vit_jpeg_workers(variant: str) -> Built:
    """HF ViT (config: vit-base-patch16-224 sizes, 1000 classes) image classification through
    transformers' Trainer with bf16=True, batch 64 of real JPEGs decoded, cropped, flipped and
    normalised per sample on the CPU: TrainingArguments' dataloader_num_workers at its default,
    0, so in the training process (bad), vs 8 workers, kept alive across epochs (fixed)."""
    torch = _torch()
    from transformers import ViTConfig, ViTForImageClassification

    workers = 8 if variant == "fixed" else 0
    model = ViTForImageClassification(ViTConfig(num_labels=1000))
    rows = _JpegPixelDataset(_make_jpegs())
    config = {"model": "vit-base-patch16-224 sizes (config)", "images": "64 x 224 x 224"}
    config["decode"] = "PIL JPEG, crop, flip, normalise in FP32 (CPU)"
    return _trainer_train(
        torch,
        model,
        rows,
        64,
        config,
        warmup_steps=_drain_steps(workers),
        bf16=True,
        dataloader_num_workers=workers,
        dataloader_persistent_workers=workers > 0,
    )


def trainer_gpt2_nan_filter(variant: str) -> Built:
    """HF GPT-2 (124M, config) causal-LM training through transformers' Trainer with bf16=True,
    8 x 1024 tokens a step: logging_nan_inf_filter at its default, True, which tests each step's
    loss for NaN or inf on the host (bad), vs False (fixed)."""
    torch = _torch()
    from transformers import GPT2Config, GPT2LMHeadModel

    model = GPT2LMHeadModel(GPT2Config())
    rows = _token_rows(torch, 512, 1024, GPT2Config().vocab_size)
    config = {"model": "gpt2 (config)", "tokens": "8 x 1024"}
    return _trainer_train(
        torch, model, rows, 8, config, bf16=True, logging_nan_inf_filter=variant == "bad"
    )


BUILDERS: dict[str, Callable[[str], Built]] = {
    f.__name__: f
    for f in (
        resnet50_precision,
        gpt2_adamw_foreach,
        gpt2_gelu_fusion,
        resnet18_small_batch,
        small_h2d_copies,
        gpt2_generate_b1,
        jpeg_loader,
        fusion_mlp,
        compile_dynamic_shapes,
        near_capacity_memory,
        vit_b16_healthy,
        bert_inference_healthy,
        convnext_tiny_healthy,
        efficientnet_precision,
        llama_compile,
        bert_large_healthy,
        swin_t_compile,
        t5_compile,
        opt_precision,
        resnet50_infer_b1,
        lstm_lm_batch,
        mobilenet_v3_precision,
        roberta_healthy,
        gpt2_eager_attention,
        gpt2_item_per_microbatch,
        bart_healthy,
        regnet_healthy,
        densenet_healthy,
        deit_small_precision,
        wide_resnet50_healthy,
        distilbert_healthy,
        bert_small_batch,
        gru_lm_batch,
        albert_healthy,
        resnet50d_healthy,
        mixer_healthy,
        maxvit_healthy,
        resnext_healthy,
        resnet50_pageable_input,
        convnext_checkpointing,
        bert_large_checkpointing,
        vit_infer_healthy,
        resnet50_infer_cudagraphs,
        gpt2_compiled_train,
        qwen2_lora_healthy,
        wav2vec2_healthy,
        gcn_healthy,
        gpt2_clip_sync,
        bert_fp16_gradscaler,
        deeplabv3_healthy,
        audio_mel_loader,
        convnext_linear_probe_healthy,
        vit_s_grad_accumulation,
        effnetv2_eval_host_preds,
        convnext_channels_last,
        mixtral_moe_experts,
        nn_transformer_healthy,
        r3d_video_precision,
        gpt2_empty_cache,
        vit_ema_loop,
        whisper_healthy,
        resnet50_host_mixup,
        dcgan_small_batch,
        distillation_healthy,
        vit_host_augment,
        resnet50_ohem_host_topk,
        gpt2_loss_item,
        bert_mlm_masked_select,
        llama_long_context_healthy,
        resnet50_loss_item,
        vit_step_timer_sync,
        roberta_skip_nonfinite,
        vit_activation_monitor,
        gpt2_grad_norm_logging,
        vit_fp32_activation_monitor,
        bert_fp32_loss_checks,
        resnet18_fp32_metrics,
        gpt2_fp32_precision,
        distilbert_fp32_precision,
        swin_t_fp32_precision,
        convnext_tiny_fp32_precision,
        llama_fp32_precision,
        bert_tokenize_loader,
        segformer_healthy,
        mlp_policy_cudagraph,
        resnet18_per_sample_loss,
        fasterrcnn_healthy,
        clip_healthy,
        resnet50_detect_anomaly,
        qwen3_moe_experts,
        moe_split_loop,
        pythia_grad_accum_healthy,
        caformer_healthy,
        deberta_v3_healthy,
        qwen2_moe_eval_experts,
        olmoe_experts,
        mobilevit_healthy,
        mistral_prefill_healthy,
        gpt2_reduce_overhead_healthy,
        bert_per_sample_embed,
        vit_l_fp32_inference,
        shufflenet_loader_workers,
        roberta_tf32_precision,
        fcn_host_miou,
        vitmae_healthy,
        mobilenet_v3_small_batch,
        t5_per_example_copies,
        swin_b_healthy,
        efficientnet_b0_healthy,
        gpt2_grad_checkpointing,
        vit_b16_eager_attention,
        bert_eager_attention,
        qwen2_eager_attention,
        deit_eager_inference,
        vit_s32_eager_attention,
        whisper_eager_attention,
        mha_need_weights,
        dlrm_small_batch,
        vit_compiled_item_hook,
        bert_dynamic_padding_healthy,
        regnet_loader_augment,
        lstmcell_python_loop,
        hf_vit_small_batch,
        phi_healthy,
        gpt2_eval_logits_to_host,
        llama_added_pad_token,
        raft_healthy,
        deeplab_batch_class_weights,
        t5_adafactor_foreach,
        fastvit_healthy,
        falcon_healthy,
        retinanet_healthy,
        convnext_eval_grad_enabled,
        regnet_cudnn_benchmark,
        tabular_pandas_loader,
        mlp_float64,
        detr_healthy,
        convnext_grad_nan_check,
        gemma_healthy,
        bert_gc_collect,
        resnet50_gpu_augment_loop,
        convnextv2_healthy,
        vit_llrd_param_groups,
        eva02_healthy,
        maskrcnn_healthy,
        efficientnet_b3_infer_healthy,
        ppo_validate_args,
        dinov2_healthy,
        xlnet_healthy,
        vit_checkpointing_unneeded,
        resnet50_state_dict_to_cpu,
        mobilebert_healthy,
        vit_clip_grad_per_param,
        lstm_pack_lengths_on_gpu,
        hrnet_healthy,
        bloom_healthy,
        vit_layer_timing_hooks,
        levit_healthy,
        marian_healthy,
        ssd_healthy,
        gpt2_manual_label_smoothing,
        convmixer_healthy,
        electra_healthy,
        efficientnet_adamw_loop,
        mamba_scan_batch,
        nfnet_healthy,
        longformer_healthy,
        gpt2_all_ones_mask,
        squeezebert_healthy,
        funnel_healthy,
        fcos_healthy,
        qwen2_checkpointing_unneeded,
        bert_trim_padding_sync,
        swinv2_healthy,
        esm_healthy,
        patchtst_healthy,
        deberta_v3_fp32_precision,
        gpt2_cpu_offload_adam,
        pvt_v2_healthy,
        mvit_video_healthy,
        gemma2_healthy,
        unet_fp32_precision,
        qwen2_fp32_lm_head,
        mpnet_loop_adamw_clip,
        xcit_healthy,
        olmo2_healthy,
        modernbert_healthy,
        convnext_save_on_cpu,
        hiera_healthy,
        gptj_healthy,
        resnet50_cpu_normalize,
        beit_loss_threshold_check,
        siglip_healthy,
        tinyvit_healthy,
        unet_sampler_b1,
        resnet50_sgd_per_param,
        wgan_gp_healthy,
        starcoder2_healthy,
        vit_sdpa_math_backend,
        bigbird_healthy,
        t5_generate_b1,
        sam_encoder_b1_healthy,
        llama_fp32_inference,
        coatnet_healthy,
        efficientnet_loader_workers,
        cohere_healthy,
        gpt_head_modules,
        nanogpt_generate_eos_item,
        convnext_compiled_healthy,
        reformer_healthy,
        nystromformer_healthy,
        reformer_autocast_backward,
        swin2sr_healthy,
        wav2vec2_conformer_healthy,
        simclr_ntxent_loop,
        fnet_tf32,
        videomae_healthy,
        upernet_convnext_healthy,
        bert_crf_ner_healthy,
        unet3d_fp32_precision,
        convbert_healthy,
        resnest_healthy,
        dpt_healthy,
        mamba2_healthy,
        gpt2_generate_no_cache,
        ast_fp32_precision,
        inception_v3_healthy,
        gptneo_healthy,
        timesformer_healthy,
        pvt_v2_fp32_precision,
        ernie_grad_norm_log,
        edgenext_healthy,
        pegasus_healthy,
        stablelm_healthy,
        gpt_bigcode_eager_attention,
        gemma3_healthy,
        qwen3_healthy,
        canine_healthy,
        segformer_infer_b1,
        focalnet_healthy,
        bit_healthy,
        nemotron_healthy,
        granite_microbatch1,
        mobilenetv2_loader_workers0,
        poolformer_healthy,
        biogpt_healthy,
        swiftformer_healthy,
        hubert_fp32_precision,
        xglm_healthy,
        m2m100_healthy,
        data2vec_vision_healthy,
        megatron_bert_eager_only,
        vivit_healthy,
        persimmon_healthy,
        efficientnet_hf_healthy,
        mt5_gelu_new,
        helium_healthy,
        hgnetv2_healthy,
        arcee_healthy,
        depth_anything_infer_b1,
        lfm2_healthy,
        repvit_healthy,
        davit_healthy,
        roformer_fp32_precision,
        cspdarknet_loader_workers2,
        phi3_healthy,
        ghostnetv2_healthy,
        dinov2reg_pageable_input,
        ernie45_clip_nonfinite,
        smollm3_healthy,
        mambaout_healthy,
        regnety008_loader_workers4,
        xlmr_fp32_precision,
        glm4_healthy,
        inceptionnext_healthy,
        vit_tiny_adamw_loop,
        mobilenetv4_small_batch,
        apertus_healthy,
        nextvit_healthy,
        qwen3_compiled_causal_mask,
        pythia_compiled_healthy,
        llava_healthy,
        cait_fp32_precision,
        tresnet_healthy,
        twins_launch_blocking,
        deepseek_v3_healthy,
        res2net_healthy,
        sequencer2d_healthy,
        volo_fp32_precision,
        efficientvit_checkpointing,
        starcoder2_checkpointing,
        maxvit_checkpointing,
        vgg16bn_healthy,
        dla34_healthy,
        rexnet_healthy,
        olmo_healthy,
        stablelm_generate_static,
        stablelm_sample_static_b16,
        s3d_healthy,
        granitemoe_healthy,
        cvt_healthy,
        codegen_healthy,
        mixtral_fp32_experts,
        olmoe_fp32_experts,
        phimoe_bf16_healthy,
        efficientnetv2_s_healthy,
        resnet50_deterministic,
        llama32_1b_healthy,
        cifar_resnet18_precision,
        bart_beam_ngram,
        gpt2_zero_grad_keep,
        vit_distill_fp32_teacher,
        trocr_healthy,
        switch_moe_healthy,
        trainer_bert_fp32,
        trainer_gpt2_nan_filter,
        trainer_vit_jpeg_workers,
    )
}


# ---- running ------------------------------------------------------------------------------------


def run_one(
    name: str,
    variant: str,
    out: Path,
    compile_model: bool = False,
    shapes: bool = True,
    stack: bool = False,
    memory: bool = True,
) -> None:
    """Capture one run. compile_model: the step calls torch.compile(model) (COMPILE_MODEL), is
    compiled before the capture, and its FLOPs are not counted (FlopCounterMode's global module
    hooks made Dynamo fall back to eager for the whole capture: no Triton kernel ran). shapes:
    record_shapes (off: a trace as captured without it, for study, not the zoo). stack:
    with_stack, the Python tracer on as the PyTorch profiler recipe and TensorBoard tutorial have
    it (a trace as many users capture theirs, for study, not the zoo). memory: profile_memory
    (off with shapes off: the profiler's defaults, as `torch.profiler.profile(activities=...)`
    records a trace with nothing else asked for)."""
    from bottleneck_lab.capture import ProfileSettings

    global COMPILE_MODEL
    COMPILE_MODEL = compile_model
    built = BUILDERS[name](variant)
    if compile_model:
        for _ in range(WARMUP_STEPS):
            built.step()
    settings = ProfileSettings(wait=0, warmup=1, active=2) if built.quick else ProfileSettings()
    settings = replace(settings, record_shapes=shapes, with_stack=stack, profile_memory=memory)
    capture_built(built, name, variant, out / name, settings, compile_model)


def capture_built(
    built: Built,
    name: str,
    variant: str,
    out_dir: Path,
    settings=None,
    compile_model: bool = False,
) -> None:
    """Capture a built run into out_dir/<variant>.json.gz with its sidecar, timed and profiled as
    every zoo run is (settings: the profiler's, ProfileSettings() unless given)."""
    from bottleneck_lab.capture import ProfileSettings, TimingSettings, capture

    settings = ProfileSettings() if settings is None else settings
    if built.profiled_steps:
        settings = replace(settings, active=built.profiled_steps)
    timing = (
        TimingSettings(warmup_steps=1, min_blocks=2, min_seconds=0.0)
        if built.quick
        else TimingSettings(warmup_steps=built.warmup_steps, min_seconds=1.0)
    )
    capture(
        built.step,
        demo=name,
        variant=variant,
        device="cuda",
        out_dir=out_dir,
        batch_size=built.batch_size,
        timed_steps=built.timed_steps,
        flop_step=(lambda: None) if compile_model else built.flop_step,
        flops_note="not counted (compiled step)" if compile_model else built.flops_note,
        config=built.config,
        settings=settings,
        timing=timing,
    )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, default=Path("traces/zoo"))
    p.add_argument("--only", default=None, help="comma-separated scenario names")
    p.add_argument("--one", default=None, help="run one scenario in this process")
    p.add_argument("--variant", default=None)
    p.add_argument("--timeout", type=float, default=300.0)
    p.add_argument(
        "--compile-model",
        action="store_true",
        help="with --one: capture the run with torch.compile(model), for study (not the zoo)",
    )
    p.add_argument(
        "--no-shapes",
        action="store_true",
        help="capture without record_shapes, for study (not the zoo)",
    )
    p.add_argument(
        "--defaults",
        action="store_true",
        help="capture with the profiler's defaults (no record_shapes, no profile_memory), for "
        "study (not the zoo)",
    )
    p.add_argument(
        "--with-stack",
        action="store_true",
        help="capture with with_stack=True (the Python tracer), for study (not the zoo)",
    )
    args = p.parse_args()
    if args.one:
        run_one(
            args.one,
            args.variant,
            args.out,
            args.compile_model,
            not (args.no_shapes or args.defaults),
            args.with_stack,
            not args.defaults,
        )
        sys.stdout.flush()
        os._exit(0)  # persistent DataLoader workers otherwise hold the exit for seconds each
    names = args.only.split(",") if args.only else list(BUILDERS)
    rows = []
    for name in names:
        for variant in labels.BY_NAME[name].runs:
            t0 = time.time()
            try:
                proc = subprocess.run(
                    [
                        sys.executable,
                        __file__,
                        "--one",
                        name,
                        "--variant",
                        variant,
                        "--out",
                        str(args.out),
                        *(["--no-shapes"] if args.no_shapes else []),
                        *(["--with-stack"] if args.with_stack else []),
                        *(["--defaults"] if args.defaults else []),
                    ],
                    timeout=args.timeout,
                    capture_output=True,
                    text=True,
                )
                ok = proc.returncode == 0
                if not ok:
                    print(f"--- {name}/{variant} failed:\n{proc.stderr[-3000:]}", flush=True)
            except subprocess.TimeoutExpired:
                ok = False
                print(f"--- {name}/{variant} timed out after {args.timeout:.0f} s", flush=True)
            meta_path = args.out / name / f"{variant}.meta.json"
            meta = json.loads(meta_path.read_text()) if ok and meta_path.exists() else {}
            rows.append((name, variant, ok, time.time() - t0, meta))
            print(
                f"{name}/{variant}: {'ok' if ok else 'FAILED'} in {time.time() - t0:.0f} s",
                flush=True,
            )
    print(
        f"\n{'scenario':<26}{'variant':<9}{'ok':<4}{'wall s':>7}{'step ms':>10}{'batch':>7}"
        f"{'peak MiB':>10}{'TFLOP/s':>9}{'MB':>6}"
    )
    for name, variant, ok, wall, meta in rows:
        step_ms = (meta.get("step_time_ms") or {}).get("median")
        peak = meta.get("max_memory_allocated_bytes")
        print(
            f"{name:<26}{variant:<9}{'y' if ok else 'N':<4}{wall:>7.0f}"
            f"{step_ms if step_ms is not None else float('nan'):>10.2f}{meta.get('batch_size', 0):>7}"
            f"{(peak or 0) / 2**20:>10.0f}{meta.get('achieved_tflops') or 0:>9.1f}"
            f"{meta.get('trace_bytes', 0) / 1e6:>6.1f}"
        )
    return 0 if all(r[2] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

"""What every demo shares: its command line, size choice by device, and the capture call.

Each demo script keeps its model, data and training step in plain sight; this module only
parses `--variant bad|fixed --device cuda|cpu --steps N --out DIR` and hands the step to
`bottleneck_lab.capture.capture`, which writes DIR/<variant>.json.gz and DIR/<variant>.meta.json.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

try:
    import bottleneck_lab  # noqa: F401
except ImportError:  # run from a checkout without installing: python demos/<name>.py
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import torch

from bottleneck_lab.capture import ProfileSettings, SpanTimer, capture, is_cuda

T = TypeVar("T")

__all__ = ["SpanTimer", "by_device", "parse_args", "run", "is_cuda"]


def parse_args(
    doc: str | None,
    *,
    steps_cuda: int,
    steps_cpu: int = 2,
    extra: Callable[[argparse.ArgumentParser], None] | None = None,
) -> argparse.Namespace:
    """The shared command line. `--steps` is the number of timed steps per block; `extra` may
    add a demo's own options."""
    name = Path(sys.argv[0]).stem
    p = argparse.ArgumentParser(
        prog=f"demos/{name}.py",
        description=(doc or "").strip().splitlines()[0] if doc else None,
    )
    p.add_argument("--variant", choices=("bad", "fixed"), required=True)
    p.add_argument(
        "--device",
        choices=("cuda", "cpu"),
        default="cuda" if torch.cuda.is_available() else "cpu",
        help="cuda (default when a GPU is present) or cpu (small sizes, for tests)",
    )
    p.add_argument("--steps", type=int, default=None, help="timed steps per block")
    p.add_argument("--profile-steps", type=int, default=3, help="active profiled steps")
    p.add_argument("--out", type=Path, default=Path("demo-out") / name, help="output folder")
    if extra is not None:
        extra(p)
    args = p.parse_args()
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: no CUDA device is available (use --device cpu)")
    if args.steps is None:
        args.steps = steps_cuda if args.device == "cuda" else steps_cpu
    if args.steps < 1 or args.profile_steps < 1:
        p.error("--steps and --profile-steps must be at least 1")
    args.demo = name
    torch.manual_seed(0)
    return args


def by_device(args: argparse.Namespace, *, cuda: T, cpu: T) -> T:
    """Pick the GPU size or the small CPU size."""
    return cuda if args.device == "cuda" else cpu


def run(
    args: argparse.Namespace,
    step: Callable[[], Any],
    *,
    batch_size: int,
    config: dict[str, Any],
    **kwargs: Any,
) -> Path:
    """Capture `step` (one whole training step) and print where the files went."""
    trace = capture(
        step,
        demo=args.demo,
        variant=args.variant,
        device=args.device,
        out_dir=args.out,
        batch_size=batch_size,
        timed_steps=args.steps,
        settings=ProfileSettings(active=args.profile_steps),
        config=config,
        **kwargs,
    )
    print(
        f"{args.demo} {args.variant}: wrote {trace} and {trace.with_name(args.variant + '.meta.json').name}"
    )
    return trace


# ---- models shared by several demos ------------------------------------------------------------


def convnet(num_classes: int, width: int = 32, depth: int = 0) -> torch.nn.Module:
    """An image classifier: 4x4 patchify conv, `depth` 3x3 conv layers, two strided convs, pool, linear."""
    nn = torch.nn

    def conv(cin: int, cout: int, **kw: int) -> list[torch.nn.Module]:
        return [nn.Conv2d(cin, cout, bias=False, **kw), nn.BatchNorm2d(cout), nn.ReLU()]

    layers = conv(3, width, kernel_size=4, stride=4)
    for _ in range(depth):
        layers += conv(width, width, kernel_size=3, padding=1)
    layers += conv(width, 2 * width, kernel_size=3, stride=2, padding=1)
    layers += conv(2 * width, 4 * width, kernel_size=3, stride=2, padding=1)
    return nn.Sequential(
        *layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4 * width, num_classes)
    )


class TransformerBlock(torch.nn.Module):
    """Pre-norm causal self-attention block with a 4x MLP (what an LLM stacks)."""

    def __init__(self, dim: int, heads: int):
        super().__init__()
        nn = torch.nn
        self.heads = heads
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        F = torch.nn.functional
        b, t, d = x.shape
        q, k, v = (
            self.qkv(self.norm1(x))
            .view(b, t, 3, self.heads, d // self.heads)
            .permute(2, 0, 3, 1, 4)
        )
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(attn.transpose(1, 2).reshape(b, t, d))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class TinyLM(torch.nn.Module):
    """Token embedding, a stack of TransformerBlocks, final norm and vocabulary head."""

    def __init__(self, vocab: int, dim: int, heads: int, layers: int):
        super().__init__()
        nn = torch.nn
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(TransformerBlock(dim, heads) for _ in range(layers))
        self.norm = nn.LayerNorm(dim)
        self.head = nn.Linear(dim, vocab)

    def loss(
        self, ids: torch.Tensor, targets: torch.Tensor, run_block: Callable[..., Any] | None = None
    ):
        """Next-token cross-entropy; `run_block(block, x)` runs each block (default: `block(x)`)."""
        x = self.embed(ids)
        for block in self.blocks:
            x = run_block(block, x) if run_block else block(x)
        logits = self.head(self.norm(x))
        return torch.nn.functional.cross_entropy(logits.flatten(0, 1).float(), targets.flatten())


def random_tokens(
    vocab: int, batch: int, seq: int, device: str
) -> tuple[torch.Tensor, torch.Tensor]:
    """A batch of token ids and next-token targets, already on the device."""
    ids = torch.randint(0, vocab, (batch, seq + 1), device=device)
    return ids[:, :-1].contiguous(), ids[:, 1:].contiguous()

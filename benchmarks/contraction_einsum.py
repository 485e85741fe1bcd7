"""A contraction written as a broadcast multiply and a sum against torch.einsum, forward and
backward, at the three shapes HF Mamba2's PyTorch reference scan runs in holdout 59
(traces/zoo/mamba2_healthy: batch 8, 4 chunks of 256, 24 heads of 64, state 128), BF16.

    python benchmarks/contraction_einsum.py            # on a GPU
    python benchmarks/contraction_einsum.py --small    # a quick check of the arithmetic on a CPU

Prints ms per forward + backward for each and checks the two agree (the fusion finding's advice:
fusion.CONTRACTION_MIN_EXPANSION).
"""

from __future__ import annotations

import argparse
import time

import torch

# (broadcast form: a's view, b's view, summed dim; einsum form: equation, a's shape, b's shape)
B, C, L, H, P, N = 8, 4, 256, 24, 64, 128


def cases(small: bool):
    b, c, length, h, p, n = (2, 2, 16, 3, 8, 16) if small else (B, C, L, H, P, N)
    return [
        # G = (C[..., None, :, :] * B[..., None, :, :, :]).sum(-1): l x s scores per chunk and head
        (
            "CB scores",
            (b, c, length, h, n),
            (b, c, length, h, n),
            "bclhn,bcshn->bclsh",
            lambda x, y: (x[:, :, :, None] * y[:, :, None]).sum(-1),
        ),
        # Y_diag = (M[..., None] * x[:, :, None]).sum(3): scores times inputs over s
        (
            "diagonal output",
            (b, c, length, length, h),
            (b, c, length, h, p),
            "bclsh,bcshp->bclhp",
            lambda m, x: (m[..., None] * x[:, :, None]).sum(3),
        ),
        # (C[..., None, :] * states[:, :, None]).sum(-1): outputs from the chunk states
        (
            "state output",
            (b, c, length, h, n),
            (b, c, h, p, n),
            "bclhn,bchpn->bclhp",
            lambda x, s: (x[..., None, :] * s[:, :, None]).sum(-1),
        ),
    ]


def timed(fn, x, y, iters: int, device: str) -> float:
    def once():
        x.grad = y.grad = None
        fn(x, y).float().sum().backward()

    for _ in range(2):
        once()
    if device == "cuda":
        torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(iters):
        once()
    if device == "cuda":
        torch.cuda.synchronize()
    return 1e3 * (time.perf_counter() - t0) / iters


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--small", action="store_true", help="tiny shapes (a CPU check)")
    args = p.parse_args()
    device = "cuda" if torch.cuda.is_available() and not args.small else "cpu"
    dtype = torch.bfloat16 if device == "cuda" else torch.float32
    print(f"{'contraction':<18}{'broadcast ms':>14}{'einsum ms':>11}{'saved':>8}")
    for name, sa, sb, eq, broadcast in cases(args.small):
        x = torch.randn(sa, device=device, dtype=dtype, requires_grad=True)
        y = torch.randn(sb, device=device, dtype=dtype, requires_grad=True)
        ref = broadcast(x, y).float()
        got = torch.einsum(eq, x, y).float()
        assert ref.shape == got.shape, (ref.shape, got.shape)
        assert torch.allclose(ref, got, rtol=0.05, atol=0.05 * ref.abs().max().item()), name
        iters = 3 if args.small else 10
        slow = timed(broadcast, x, y, iters, device)
        fast = timed(lambda a, b, eq=eq: torch.einsum(eq, a, b), x, y, iters, device)
        print(f"{name:<18}{slow:>14.2f}{fast:>11.2f}{100 * (1 - fast / slow):>7.1f}%")
        del x, y, ref, got
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

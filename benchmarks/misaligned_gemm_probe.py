"""How much slower a BF16 LM head runs when its vocabulary is not a multiple of 8: the kernel
fact behind precision's padded-vocabulary estimate.

    python benchmarks/misaligned_gemm_probe.py      # on a GPU

For GPT-2's (50,257), BERT's (30,522), a Llama with one added token (32,001) and Whisper's
(51,865) vocabularies against the same padded to a multiple of 64, at the token counts of the zoo
runs that carry them: F.linear forward, and forward plus backward, each timed with CUDA events
over repeated calls after warm-up. Prints one row per shape.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

SHAPES = (  # tokens, hidden, (vocabulary, padded)
    (2048, 768, (50257, 50304)),
    (16384, 768, (30522, 30528)),
    (8192, 1024, (32001, 32064)),
    (8192, 768, (51865, 51904)),
)


def ms_per_call(fn, calls: int = 50) -> float:
    for _ in range(5):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(calls):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / calls


def head_ms(tokens: int, hidden: int, vocab: int) -> tuple[float, float]:
    """(forward, forward + backward) ms of one LM head of `vocab` rows over `tokens` tokens."""
    x = torch.randn(tokens, hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    w = torch.randn(vocab, hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)

    def both():
        y = F.linear(x, w)
        y.backward(torch.ones_like(y))

    return ms_per_call(lambda: F.linear(x, w)), ms_per_call(both, 20)


def main() -> None:
    print(f"{'tokens':>7}{'hidden':>7}{'vocab':>7}{'fwd ms':>8}{'fwd+bwd ms':>11}")
    for tokens, hidden, vocabs in SHAPES:
        for vocab in vocabs:
            fwd, fwd_bwd = head_ms(tokens, hidden, vocab)
            print(f"{tokens:>7}{hidden:>7}{vocab:>7}{fwd:>8.3f}{fwd_bwd:>11.3f}")


if __name__ == "__main__":
    main()

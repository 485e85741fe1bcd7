"""Which attention calls keep a fused SDPA kernel under torch.compile, and which Inductor runs as
matmuls and softmax (needs a GPU, and transformers for the HF models):

    python benchmarks/sdpa_compile_probe.py

First bare F.scaled_dot_product_attention calls (8 x 12 heads x 64, 197 or 256 tokens, with and
without a float mask, an explicit scale, is_causal), then 2-layer HF ViT, BERT and GPT-2, each
compiled, run forward and backward under BF16 autocast and profiled once; prints whether an
aten::_scaled_dot_product_*_attention op ran and how many aten::bmm did. On an H100 with torch
2.11 (twenty-sixth session): every bare call kept its fused kernel; HF ViT and BERT ran none (12
bmm each), GPT-2 kept cuDNN's. Eager, all three run cuDNN's SDPA.
"""

import itertools

import torch
import torch.nn.functional as F

torch._dynamo.config.cache_size_limit = 64


def run(seq, causal, scale, mask):
    B, H, D = 8, 12, 64
    lin = torch.nn.Linear(H * D, 3 * H * D, device="cuda")
    x = torch.randn(B, seq, H * D, device="cuda", requires_grad=True)
    m = torch.zeros(B, 1, seq, seq, device="cuda") if mask else None

    def f(x):
        q, k, v = lin(x).view(B, seq, 3, H, D).permute(2, 0, 3, 1, 4)
        kw = {}
        if scale:
            kw["scale"] = D**-0.5
        o = F.scaled_dot_product_attention(
            q, k, v, attn_mask=m, dropout_p=0.0, is_causal=causal, **kw
        )
        return o.transpose(1, 2).reshape(B, seq, H * D).sum()

    g = torch.compile(f)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        for _ in range(2):
            g(x).backward()
        with torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CUDA, torch.profiler.ProfilerActivity.CPU]
        ) as p:
            g(x).backward()
            torch.cuda.synchronize()
    names = {e.name for e in p.events()}
    fused = any(
        "scaled_dot_product" in n and ("cudnn" in n or "flash" in n or "efficient" in n)
        for n in names
    )
    bmm = sum(1 for e in p.events() if e.name == "aten::bmm")
    return fused, bmm


def hf(name):
    from transformers import BertConfig, BertModel, GPT2Config, GPT2Model, ViTConfig, ViTModel

    if name == "vit":
        m = ViTModel(ViTConfig(num_hidden_layers=2)).cuda()
        inp = {"pixel_values": torch.randn(8, 3, 224, 224, device="cuda")}
    elif name == "bert":
        m = BertModel(BertConfig(num_hidden_layers=2)).cuda()
        inp = {"input_ids": torch.randint(0, 1000, (8, 256), device="cuda")}
    else:
        m = GPT2Model(GPT2Config(n_layer=2)).cuda()
        inp = {"input_ids": torch.randint(0, 1000, (8, 256), device="cuda")}
    print(name, "attn impl", m.config._attn_implementation)
    g = torch.compile(m)
    with torch.autocast("cuda", dtype=torch.bfloat16):
        for _ in range(2):
            g(**inp).last_hidden_state.float().sum().backward()
        with torch.profiler.profile(
            activities=[torch.profiler.ProfilerActivity.CUDA, torch.profiler.ProfilerActivity.CPU]
        ) as p:
            g(**inp).last_hidden_state.float().sum().backward()
            torch.cuda.synchronize()
    names = {e.name for e in p.events()}
    fused = sorted(n for n in names if "scaled_dot_product" in n)
    print(
        name,
        "sdpa ops:",
        fused,
        "bmm:",
        sum(1 for e in p.events() if e.name == "aten::bmm"),
        flush=True,
    )
    # what does eager run?
    with torch.autocast("cuda", dtype=torch.bfloat16):
        with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU]) as p:
            m(**inp).last_hidden_state.float().sum().backward()
    ev = [e for e in p.events() if "scaled_dot_product" in e.name]
    print(name, "eager sdpa ops:", sorted({e.name for e in ev}), flush=True)


def main() -> None:
    print(torch.__version__)
    for seq, causal, scale, mask in itertools.product(
        (197, 256), (False, True), (False, True), (False, True)
    ):
        if causal and mask:
            continue
        try:
            fused, bmm = run(seq, causal, scale, mask)
            print(
                f"seq {seq} causal {causal} scale {scale} mask {mask}: fused={fused} bmm={bmm}",
                flush=True,
            )
        except Exception as e:
            print(
                f"seq {seq} causal {causal} scale {scale} mask {mask}: ERROR "
                f"{type(e).__name__} {str(e)[:150]}",
                flush=True,
            )
    for n in ("vit", "bert", "gpt2"):
        try:
            torch._dynamo.reset()
            hf(n)
        except Exception as e:
            print(n, "ERROR", type(e).__name__, str(e)[:200], flush=True)


if __name__ == "__main__":
    main()

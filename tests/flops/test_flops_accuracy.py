"""Accuracy against the ground truth: FLOPs summed from a profiler trace of one training step
must be within 2% of torch.utils.flop_counter.FlopCounterMode counted around the same step."""

import contextlib
import json

import pytest

torch = pytest.importorskip("torch")
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402
from torch.utils import flop_counter  # noqa: E402
from torch.utils.checkpoint import checkpoint  # noqa: E402

from bottleneck_lab.flops.models import count_step_flops, op_cost  # noqa: E402

TOLERANCE = 0.02


# FlopCounterMode registers no formula for the CPU flash-attention kernel, so on CPU it would
# count SDPA as zero. Give it torch's own formula for that op; nothing else is added.
def _cpu_sdpa(query, key, value, *args, out_shape=None, **kwargs):
    return flop_counter.sdpa_flop_count(query, key, value)


def _cpu_sdpa_backward(grad_out, query, key, value, *args, out_shape=None, **kwargs):
    return flop_counter.sdpa_backward_flop_count(grad_out, query, key, value)


CPU_ATTENTION = {
    torch.ops.aten._scaled_dot_product_flash_attention_for_cpu: _cpu_sdpa,
    torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward: _cpu_sdpa_backward,
}


class MLP(nn.Module):
    def __init__(self, width=128):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(64, width),
            nn.ReLU(),
            nn.LayerNorm(width),
            nn.Linear(width, width),
            nn.GELU(),
            nn.Linear(width, 10),
        )

    def forward(self, x):
        return self.net(x)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            nn.Conv2d(16, 32, 3, stride=2, groups=2),
            nn.GroupNorm(4, 32),
            nn.SiLU(),
            nn.Conv2d(32, 32, 3, padding=2, dilation=2, bias=False),
            nn.ConvTranspose2d(32, 8, 2, stride=2),
        )
        self.head = nn.Linear(8 * 30 * 30, 10)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


class Block(nn.Module):
    def __init__(self, dim=64, heads=4):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = (
            self.qkv(self.ln1(x)).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        )
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(attn.transpose(1, 2).reshape(b, t, d))
        return x + self.mlp(self.ln2(x))


class Transformer(nn.Module):
    def __init__(self, vocab=100, dim=64, layers=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList(Block(dim) for _ in range(layers))
        self.head = nn.Linear(dim, vocab)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(x)


class CheckpointedMLP(nn.Module):
    """Activation checkpointing: the forward of each block runs again during backward."""

    def __init__(self, width=128, blocks=3, **checkpoint_kwargs):
        super().__init__()
        self.checkpoint_kwargs = checkpoint_kwargs  # empty: no checkpointing
        self.inp = nn.Linear(64, width)
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Linear(width, width))
            for _ in range(blocks)
        )

    def forward(self, x):
        x = self.inp(x)
        for block in self.blocks:
            x = x + (
                checkpoint(block, x, **self.checkpoint_kwargs)
                if self.checkpoint_kwargs
                else block(x)
            )
        return x


def _train_step(model, inputs):
    model.zero_grad(set_to_none=True)
    model(inputs).float().pow(2).mean().backward()


def _trace_ops(path):
    with open(path) as f:
        events = json.load(f)["traceEvents"]
    return [
        (
            e["name"],
            e["ts"],
            e["dur"],
            e["tid"],
            e["args"].get("Input Dims"),
            e["args"].get("Input type"),
            e["args"].get("Concrete Inputs"),
        )
        for e in events
        if e.get("cat") == "cpu_op" and e.get("ph") == "X"
    ]


def measure(model, inputs, tmp_path, sdpa_backend=None):
    """(our FLOPs from the trace, FlopCounterMode FLOPs, our totals) for one training step."""
    torch.manual_seed(0)
    _train_step(model, inputs)  # warm-up outside both counters
    backend = (
        torch.nn.attention.sdpa_kernel(sdpa_backend)
        if sdpa_backend is not None
        else contextlib.nullcontext()
    )
    with backend:
        with flop_counter.FlopCounterMode(display=False, custom_mapping=CPU_ATTENTION) as counter:
            _train_step(model, inputs)
        with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
            _train_step(model, inputs)
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    totals = count_step_flops(_trace_ops(path))
    return totals.flopcountermode_flops, counter.get_total_flops(), totals


CASES = {
    "mlp": lambda: (MLP(), torch.randn(32, 64), None),
    "mlp_bf16": lambda: (MLP().to(torch.bfloat16), torch.randn(32, 64, dtype=torch.bfloat16), None),
    "cnn": lambda: (SmallCNN(), torch.randn(4, 3, 32, 32), None),
    "transformer_sdpa": lambda: (Transformer(), torch.randint(0, 100, (2, 32)), None),
    "transformer_math_sdpa": lambda: (
        Transformer(),
        torch.randint(0, 100, (2, 32)),
        torch.nn.attention.SDPBackend.MATH,
    ),
    "checkpoint_reentrant": lambda: (
        CheckpointedMLP(use_reentrant=True),
        torch.randn(32, 64),
        None,
    ),
    "checkpoint_no_early_stop": lambda: (
        CheckpointedMLP(use_reentrant=False, early_stop=False),
        torch.randn(32, 64),
        None,
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_trace_flops_match_flop_counter_mode(case, tmp_path):
    model, inputs, backend = CASES[case]()
    ours, truth, totals = measure(model, inputs, tmp_path, backend)
    print(
        f"\n{case}: trace {ours:.0f} FLOPs, FlopCounterMode {truth} FLOPs, ratio {ours / truth:.4f}, "
        f"by category {totals.flops_by_category}"
    )
    assert truth > 0
    assert ours == pytest.approx(truth, rel=TOLERANCE)
    assert totals.total_bytes > 0


def test_bf16_model_reports_bf16_flops(tmp_path):
    model, inputs, _ = CASES["mlp_bf16"]()
    _, _, totals = measure(model, inputs, tmp_path)
    assert set(totals.compute_flops_by_dtype) == {"bf16"}


BLOCK_LINEAR_FLOPS = 2 * 32 * 128 * 128  # one 128x128 linear on a batch of 32


def test_checkpointing_recompute_is_counted(tmp_path):
    plain, _, _ = measure(CheckpointedMLP(), torch.randn(32, 64), tmp_path)
    recomputed, _, _ = measure(CheckpointedMLP(use_reentrant=True), torch.randn(32, 64), tmp_path)
    assert recomputed - plain == 3 * 2 * BLOCK_LINEAR_FLOPS  # each block's two linears run again


def test_early_stop_leaves_an_aborted_op_in_cpu_traces(tmp_path):
    """Non-reentrant checkpointing stops recomputing once the last saved tensor is back. That
    raises inside the block's last linear after the profiler has opened its record, so the trace
    holds one aten::addmm per block that never ran, and FlopCounterMode does not count it. A GPU
    trace can drop it (it launched no kernel: see counted_op_costs); a CPU-only trace cannot."""
    ours, truth, _ = measure(CheckpointedMLP(use_reentrant=False), torch.randn(32, 64), tmp_path)
    assert ours - truth == 3 * BLOCK_LINEAR_FLOPS


# --- single ops against torch's own formulas, for argument combinations the models miss ------

CONV_CONFIGS = [
    # (dims, in_ch, out_ch, kernel, stride, padding, dilation, groups, transposed, output_padding)
    (1, 4, 8, 3, 1, 0, 1, 1, False, 0),
    (1, 4, 8, 5, 2, 2, 1, 2, True, 1),
    (2, 6, 12, 3, 2, 1, 2, 3, False, 0),
    (2, 4, 4, 3, 1, 1, 1, 4, False, 0),  # depthwise
    (2, 8, 4, 3, 2, 1, 1, 1, True, 1),
    (3, 2, 4, 3, 1, 1, 1, 1, False, 0),
]


@pytest.mark.parametrize("config", CONV_CONFIGS)
@pytest.mark.parametrize("input_grad", [True, False])
def test_convolution_formulas_match_flop_counter_mode(config, input_grad):
    nd, cin, cout, k, stride, padding, dilation, groups, transposed, out_pad = config
    x = torch.randn(2, cin, *([9] * nd), requires_grad=input_grad)
    w_shape = (
        (cin, cout // groups, *([k] * nd)) if transposed else (cout, cin // groups, *([k] * nd))
    )
    w = torch.randn(w_shape, requires_grad=True)
    rep = lambda v: [v] * nd  # noqa: E731
    conv_args = (
        rep(stride),
        rep(padding),
        rep(dilation),
        transposed,
        rep(out_pad if transposed else 0),
        groups,
    )

    with flop_counter.FlopCounterMode(display=False) as counter:
        out = torch.ops.aten.convolution(x, w, None, *conv_args)
    fwd = op_cost(
        "aten::convolution",
        [list(x.shape), list(w.shape), [], [], [], [], [], [], []],
        [
            "float",
            "float",
            "",
            "ScalarList",
            "ScalarList",
            "ScalarList",
            "Scalar",
            "ScalarList",
            "Scalar",
        ],
        ["", "", ""] + [str(a) for a in conv_args],
    )
    assert fwd.flops == counter.get_total_flops()

    mask = [input_grad, True, False]
    with flop_counter.FlopCounterMode(display=False) as counter:
        torch.ops.aten.convolution_backward(torch.ones_like(out), x, w, None, *conv_args, mask)
    bwd = op_cost(
        "aten::convolution_backward",
        [list(out.shape), list(x.shape), list(w.shape)] + [[]] * 8,
        ["float"] * 3
        + [
            "",
            "ScalarList",
            "ScalarList",
            "ScalarList",
            "Scalar",
            "ScalarList",
            "Scalar",
            "ScalarList",
        ],
        ["", "", "", ""] + [str(a) for a in conv_args] + [str(mask)],
    )
    # FlopCounterMode counts a grouped weight gradient `groups` times over (flops/conv.py)
    assert bwd.flops + bwd.flopcountermode_extra == counter.get_total_flops()
    assert (bwd.flopcountermode_extra > 0) is (groups > 1)

    # the work itself: the same products as one ungrouped convolution per group, which
    # FlopCounterMode counts right
    per_group = 0
    for g in range(groups):
        xs = x[:, g * cin // groups : (g + 1) * cin // groups]
        cut = slice(g * w.shape[0] // groups, (g + 1) * w.shape[0] // groups)
        ws = w[cut]
        out_g = torch.ops.aten.convolution(xs, ws, None, *conv_args[:-1], 1)
        with flop_counter.FlopCounterMode(display=False) as counter:
            torch.ops.aten.convolution_backward(
                torch.ones_like(out_g), xs, ws, None, *conv_args[:-1], 1, mask
            )
        per_group += counter.get_total_flops()
    assert bwd.flops == per_group

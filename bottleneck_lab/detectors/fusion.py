"""Memory-bound kernels that fused kernels would replace: elementwise chains and layout copies.

Symptom: runs of back-to-back memory-bound kernels from two or more ops, at least one of them
arithmetic (mul, add, pow, mean, rsqrt, tanh, softmax, dropout, a layer norm, ...; casts, copies
and concatenations ride along), with nothing else between them, each reading and writing whole
tensors in memory: hand-written RMSNorm, GELU, rotary embeddings or attention, residual adds and
scalings around a norm, in forward and backward. Each kernel moves the tensor through HBM
again, so the chain moves several times the bytes a single kernel needs.
Likely cause: normalisation and activation written as Python arithmetic on tensors in eager mode.
Fix: `torch.compile` the model (Inductor fuses such chains into one kernel), or use the fused
ops: `F.rms_norm`, `F.layer_norm`, `F.gelu(approximate="tanh")`, `F.silu`, `F.softmax`,
`F.scaled_dot_product_attention`.

Also: layout copies (a same-dtype `copy_`: `.contiguous()` or `reshape` of a permuted tensor,
Swin's window partition, attention's head split) beside a memory-bound kernel. They move a whole
tensor only to change its strides; a fused neighbour reads or writes that layout directly
(torch.compile took Swin-T's 15.3 ms of copies per step to 0.3 ms, ViT-B/16's 7.2 to 0.1).

What one fused kernel replaces is what torch.compile fuses: every such run, ended by any other
kernel (matrix work, a collective, an optimizer or fill kernel), casts, copies and norms over
the last dimension (layer norm, RMS norm) included, and batch norm in eval mode (a per-channel
scale and shift); batch norm in training, whose statistics need a pass of their own, ends one.

Estimate: each chain at the bandwidth it reached, moving only the bytes of its largest op (a
fused kernel reads the chain's input and writes its output once), and no faster than its longest
kernel; the difference is the saving. A layout copy outside the chains saves its whole time. On
the host, only hand-written arithmetic (three or more arithmetic ops in a row, no norm among
them, trimmed to the first and last) and layout copies count: replacing them by hand removes
their dispatch. Where the GPU is busy through the step, the GPU's saving is the step's; elsewhere
the host's work bounds it. Chains beside fused attention (rotary embeddings, head reshapes)
count only where they save more than compiled attention, 2.3x slower as measured on HF Llama,
would cost: else the promise is what compiling the modules around attention gives, which leaves
them eager. Where most of the promise is host dispatch, the fix says compiled code has a host
cost of its own per graph, and to compile the chains' code (loss included) and time it. Held to
what torch.compile measured (`python benchmarks/fusion_vs_compile.py`: 138 runs).

A contraction written by hand, a multiply whose broadcast product is 8x or more the size of
either input, read next by a sum of that shape (HF Mamba2's PyTorch reference scan), is named
with its shapes where it takes a tenth of the GPU's time or more: torch.einsum or matmul computes
it without the product, on tensor cores (at Mamba2's three shapes, forward and backward in BF16
on an H200, 95-99% less time: `python benchmarks/contraction_einsum.py`). The estimate stays the
chains' bytes: no model with its contractions rewritten has been timed.

Tanh GELU written out (tanh with mul and add: HF's gelu_new and gelu_fast) is counted apart where
its chains hold a quarter of the saving or more: the fix prices them alone and names the
one-kernel F.gelu(approximate="tanh"), which leaves attention eager (TANH below).

Attention written as matmul, softmax, matmul (detectors/eager_attention.py, from recorded
shapes) is left to that
finding: scaled_dot_product_attention, not a fused chain, replaces its kernels (its softmax,
masks, dropout and casts end a chain here).

Without recorded shapes (record_shapes=False) the ops are known by name (the same nesting rule
decides which count), each kernel's time stands for its bytes (a chain at one bandwidth, as
data movement already is), a layout copy is PyTorch's same-dtype copy kernel
(gpu_kernel_impl_nocast), and attention is its ops by name; the evidence's bytes_source says
which, and gives no bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import facts
from ..diagnosis import Finding, severity_for_share
from ..efficiency import memory_bound_kernels
from ..flops.models import ATTENTION_OPS
from ..op_flops import compute_ops, matrix_owner, op_costs
from ..trace import TraceFrame
from ..trace.frame import name_mask, nearest_ancestor
from ..trace.synth import TraceBuilder
from ._attention import eager_attention, with_backward_nodes
from ._common import cost, fused_step_saving_us, host_us_of_kernels, shape_text, when
from ._examples import launch, mm_args, steps

CODE = "unfused-elementwise"
KIND = "fusion"
REQUIRES = {"kernels", "steps", "cpu_ops"}


# Bookkeeping, not arithmetic a fused kernel would absorb: gradient zeroing and fresh tensors.
# They end a chain (so does any optimizer kernel: memory_bound_kernels leaves those out, since
# launch-overhead's finding names the fused optimizer). Dtype casts and copies between
# elementwise ops do not (CASTS): a fused kernel converts in registers (HF Llama's RMSNorm
# upcasts to FP32 and back around its arithmetic; torch.compile took that eager step from 41.7
# to 22.7 ms), but they neither start nor end a hand-written chain. Pure data movement (MOVES:
# RoPE's rotate_half concatenates, Swin rolls and pads) rides along the same way; its bytes are
# not recorded, so it is taken to move them at its chain's bandwidth.
# PyTorch's kernel for a copy between tensors of one dtype (gpu_kernel_impl_nocast): a layout
# copy where a trace has no recorded input types to tell it from a cast.
NO_CAST_COPY = re.compile(r"gpu_kernel_impl_nocast<at::native::direct_copy_kernel")
CASTS = frozenset({"aten::copy_", "aten::_to_copy", "aten::to", "aten::clone", "aten::contiguous"})
MOVES = frozenset(
    {"aten::cat", "aten::stack", "aten::roll", "aten::constant_pad_nd", "aten::slice_backward"}
)
NOT_FUSIBLE = frozenset(
    {
        "aten::fill_",
        "aten::zero_",
        "aten::zeros_like",
        "aten::ones_like",
        "aten::empty_like",
        "aten::full_like",
    }
)
# Chain members besides elementwise arithmetic: the reductions and softmax/dropout of
# hand-written norms and eager attention (pow, mean, add, rsqrt, mul is one RMSNorm; a mean
# that ended the chain split it in two). Norm kernels are fused ops already: by hand they end
# a chain (ROW_NORMS below).
MEMBER_CATEGORIES = ("elementwise", "other")
# Norms over the last dimension join a chain too, but only one torch.compile fuses: a fused
# kernel holds a row in registers, so the residual add, dropout and cast around a layer norm
# become one pass (Inductor's persistent reduction). By hand there is no such op, so they end a
# hand-written chain. Batch norm in training reduces over the batch, a whole extra pass, and
# stays out (in eval mode it is elementwise: flops.norm).
ROW_NORMS = frozenset(
    {
        "aten::layer_norm",
        "aten::native_layer_norm",
        "aten::native_layer_norm_backward",
        "aten::rms_norm",
        "aten::_fused_rms_norm",
        "aten::_fused_rms_norm_backward",
    }
)
# The loss: where it is computed outside the model, torch.compile(model) does not reach a chain
# in it (an LSTM LM's log_softmax and FP32 cast of its logits: compiling the model measured
# -0.6%, the whole step 11.5%); a HF model given labels computes it in its forward, which
# compiling the model does reach. The trace does not say which.
LOSS_OP = re.compile(
    r"^aten::(cross_entropy_loss|nll_loss(2d|_nd)?|mse_loss|l1_loss|smooth_l1_loss|huber_loss"
    r"|kl_div|binary_cross_entropy(_with_logits)?)$"
    # and their backward, run by the autograd engine (cross-entropy's is log_softmax's and
    # nll_loss's)
    r"|^autograd::engine::evaluate_function: (NllLoss(2D)?|LogSoftmax|MseLoss|L1Loss|SmoothL1Loss"
    r"|HuberLoss|KlDiv|BinaryCrossEntropy(WithLogits)?)Backward"
)
# How much longer compiled attention has taken than eager fused SDPA, measured (the extra
# time, as a multiple of the eager time): HF Llama's cuDNN attention at 2 x 8192 tokens went from
# 21.9 to 72.1 ms a step under torch.compile(model), 3.3x (2.3x at 8 x 1024), since compiled,
# HF passes the causal mask explicitly. Compiling the modules around attention instead (benchmarks/
# zoo/compile_savings.py --blocks) measured 91.99 -> 77.61 ms on that Llama, 34.71 -> 52.63 ms on
# BERT-base MLM (whose whole-model compile had measured -18.9%).
COMPILED_ATTENTION_SLOWDOWN_MAX_X = 3.3 - 1.0
# The least of those slowdowns (Llama at 8 x 1024), the extra time as a multiple of the eager time.
COMPILED_ATTENTION_SLOWDOWN_MIN_X = 2.3 - 1.0
# A multiply whose broadcast output is this many times the larger of its inputs, read next by a
# sum of that shape, is a contraction written by hand: the product exists only to be reduced
# (HF Mamba2's PyTorch reference scan: 36 a step, products 64-256x their inputs, with their sums
# and backward 96% of the GPU's time), which torch.einsum or matmul computes without materialising.
CONTRACTION_MIN_EXPANSION = 8
# Tanh GELU written out as tensor arithmetic (HF's gelu_new and gelu_fast, Bloom's GELU, MLPs
# written by hand): a chain holding tanh (forward) or tanh_backward with a mul and an add.
# F.gelu(approximate="tanh") computes the same function as one kernel each way and leaves
# attention alone, where compiling the model can slow it: HF ViViT's gelu_fast swapped for
# gelu_pytorch_tanh measured 21.2% less time a step (ab_time.py, its tanh-GELU chains priced at
# 22.7%), where torch.compile(model) ran 2.5x as long; GPT-2's gelu_new, 10.8%. A chain that also
# holds a sigmoid (LSTM and GRU gates), a sub or neg (a GRU's update, RAFT's), a div (Gemma 2's
# logit soft-capping) or an exp is some other function (every chain with tanh in traces/).
TANH = frozenset({"aten::tanh", "aten::tanh_backward"})
ADD = frozenset({"aten::add", "aten::add_"})
NOT_TANH_GELU = frozenset(
    {
        "aten::sigmoid",
        "aten::sigmoid_backward",
        "aten::sub",
        "aten::sub_",
        "aten::rsub",
        "aten::neg",
        "aten::div",
        "aten::div_",
        "aten::exp",
    }
)


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0
    min_chain_kernels_count: int = 3


def _member_kernels(frame: TraceFrame) -> pd.DataFrame:
    """Kernels of the main device inside the steps, in stream order, with the `owner` op that
    launched a chain member (efficiency.memory_bound_kernels, or a data-movement op; -1: any
    other kernel, which ends a chain), its `bytes` (NaN where not recorded), `rides` (a cast or
    data movement: part of a chain, but no arithmetic of its own) and `row_norm` (a norm over
    the last dimension: ROW_NORMS)."""
    g = frame.gpu_ops
    dev = facts.main_device(frame)
    k = g.loc[
        (g["kind"] == "kernel") & (g["device"] == dev) & (g["step"] >= 0),
        ["ts", "dur", "stream", "step", "op", "name"],
    ].copy()
    ops = frame.cpu_ops
    mb = memory_bound_kernels(frame)
    not_fusible = ops["name"].isin(NOT_FUSIBLE).to_numpy()
    # gradient accumulation into a leaf's .grad (the autograd engine's AccumulateGrad, behind
    # zero_grad(set_to_none=False) or micro-batches) runs after a compiled backward returns:
    # no compiled graph fuses it (an eager MLP's chains were mostly these add_; torch.compile
    # measured it 22.1% slower as a model, 7.6% as a whole step, holdout 22)
    accumulating = nearest_ancestor(
        ops["parent"].to_numpy(), np.arange(len(ops)), _accumulates_grad(ops)
    )
    not_fusible = not_fusible | (accumulating >= 0)
    row_norm = ops["name"].isin(ROW_NORMS).to_numpy()
    mb = mb.loc[
        (mb["category"].isin(MEMBER_CATEGORIES).to_numpy() | row_norm[mb["owner"].to_numpy()])
        & ~not_fusible[mb["owner"].to_numpy()]
    ]
    owner = mb["owner"].reindex(k.index).fillna(-1).astype(np.int64).to_numpy()
    moves = ops["name"].isin(MOVES).to_numpy() & ~facts.ops_in_optimizer(frame)
    mover = nearest_ancestor(ops["parent"].to_numpy(), k["op"].to_numpy(), moves)
    owner = np.where(owner >= 0, owner, mover)
    attention = eager_attention(frame)
    if attention is not None:  # SDPA replaces these, not a fused chain: eager_attention's
        owner[attention.kernels[frame.gpu_ops.index.get_indexer(k.index)]] = -1
    k["owner"] = owner
    # Without recorded shapes a kernel's time stands for its bytes: the chain's kernels taken at
    # one bandwidth, as data movement is with them (on every fourth zoo trace, 40 in all, the
    # share so estimated stayed within 2.3 points of the one from the bytes; two runs without a
    # finding gained a low one)
    k["bytes"] = mb["bytes"].reindex(k.index) if _shaped(frame) else k["dur"].where(owner >= 0)
    rides = ops["name"].isin(CASTS | MOVES).to_numpy()
    k["rides"] = rides[np.maximum(owner, 0)] & (owner >= 0)
    k["row_norm"] = row_norm[np.maximum(owner, 0)] & (owner >= 0)
    return k.drop(columns="op").sort_values(["stream", "ts"], kind="stable")


def _shaped(frame: TraceFrame) -> bool:
    """Whether the trace recorded shapes (record_shapes=True): ops with bytes and dtypes."""
    return bool(len(op_costs(frame)))


def _chains(
    k: pd.DataFrame, hand_written: int | None = None, norms_end: bool = False
) -> pd.DataFrame:
    """The kernels of k in chains, numbered by `chain`: maximal runs of at least two consecutive
    members on one stream within one step, at least one of them arithmetic: what torch.compile
    fuses into one kernel, norms over the last dimension, casts and copies included. With
    `norms_end`, row norms end a chain (what compiling module by module fuses). With
    `hand_written`, the chains a hand fix removes instead: row norms end them, they hold at least
    that many arithmetic kernels, and they are trimmed to their first and last (casts and copies
    ride along inside but do not make one: autocast's weight casts beside each matmul are no
    arithmetic to fuse). `bytes` is filled in for data movement at the chain's bandwidth; chains
    without recorded bytes and time to give that bandwidth are left out."""
    owner = k["owner"].to_numpy()
    member = owner >= 0
    if hand_written is not None or norms_end:
        member &= ~k["row_norm"].to_numpy()
    stream, step = k["stream"].to_numpy(), k["step"].to_numpy()
    brk = ~member | np.r_[True, (stream[1:] != stream[:-1]) | (step[1:] != step[:-1])]
    run = np.cumsum(brk) - 1
    arith = member & ~k["rides"].to_numpy()
    n_runs = int(run[-1]) + 1 if len(k) else 0
    # ops, not kernels: one op that launches several kernels is no chain (a large aten::mul
    # split in four)
    arith_ops = _distinct(run[arith], owner[arith], n_runs)
    if hand_written is None:
        long_enough = (arith_ops >= 1) & (_distinct(run[member], owner[member], n_runs) >= 2)
        keep = member & long_enough[run]
    else:
        pos = np.arange(len(k))
        first = np.full(n_runs, len(k))
        last = np.full(n_runs, -1)
        np.minimum.at(first, run[arith], pos[arith])
        np.maximum.at(last, run[arith], pos[arith])
        long_enough = arith_ops >= hand_written
        keep = member & long_enough[run] & (pos >= first[run]) & (pos <= last[run])
    c = k.loc[keep].copy()
    c["chain"] = run[keep]
    b, dur = c["bytes"].to_numpy(), c["dur"].to_numpy()
    known = np.isfinite(b)
    known_bytes = c.assign(b=np.where(known, b, 0.0), d=np.where(known, dur, 0.0))
    per = known_bytes.groupby("chain")[["b", "d"]].transform("sum")
    bw = (per["b"] / per["d"].replace(0.0, np.nan)).to_numpy()
    c["bytes"] = np.where(known, b, dur * bw)
    c = c.loc[np.isfinite(bw) & (bw > 0)]
    c["chain"] = pd.factorize(c["chain"])[0]
    return c


def _distinct(group: np.ndarray, value: np.ndarray, n: int) -> np.ndarray:
    """For each group 0..n-1, how many distinct values it holds (values >= -1)."""
    if not len(group):
        return np.zeros(n, dtype=np.int64)
    width = int(value.max()) + 2  # one int64 key per (group, value) pair: a flat unique is fast
    keys = np.unique(group.astype(np.int64) * width + (value.astype(np.int64) + 1))
    return np.bincount(keys // width, minlength=n)


def _layout_copies(frame: TraceFrame, k: pd.DataFrame) -> pd.DataFrame:
    """The kernels of k that copy a tensor to a tensor of the same dtype (a layout change, not a
    cast), next on their stream in the same step to a memory-bound kernel
    (efficiency.memory_bound_kernels: arithmetic, a norm, a cast) that could read or write the
    other layout itself. Autocast's casts are not layout copies: their bytes shrink or grow.
    Those inside a chain are the chain's: callers leave them out."""
    ops = frame.cpu_ops
    owner = k["owner"].to_numpy()
    row = np.maximum(owner, 0)
    if _shaped(frame):
        types = ops["input_type"].to_numpy()[row]
        same_dtype = np.fromiter(
            (isinstance(t, list) and len(t) >= 2 and t[0] == t[1] for t in types), bool, len(k)
        )
    else:  # PyTorch's copy kernel for a same-dtype (strided) copy says so
        same_dtype = name_mask(k["name"], NO_CAST_COPY)
    copy = (owner >= 0) & (ops["name"].to_numpy()[row] == "aten::copy_") & same_dtype
    fusible = k.index.isin(memory_bound_kernels(frame).index) & ~copy
    s, st = k["stream"].to_numpy(), k["step"].to_numpy()
    same_run = (s[1:] == s[:-1]) & (st[1:] == st[:-1])
    beside = np.r_[False, fusible[:-1] & same_run] | np.r_[fusible[1:] & same_run, False]
    return k.loc[copy & beside]


def _caller(frame: TraceFrame, op: int) -> str | None:
    """The op that asked for a copy: the first ancestor past aten::clone and aten::copy_
    (aten::reshape, aten::contiguous, an autograd node such as SliceBackward0)."""
    ops = frame.cpu_ops
    parent = int(ops["parent"].iat[op])
    while parent >= 0 and ops["name"].iat[parent] in ("aten::clone", "aten::copy_"):
        parent = int(ops["parent"].iat[parent])
    return str(ops["name"].iat[parent]) if parent >= 0 else None


def _dims(input_dims) -> list:
    """The first input's dimensions (a copy's destination), [] where not recorded."""
    first = input_dims[0] if isinstance(input_dims, list) and input_dims else []
    return first if isinstance(first, list) else []


def _accumulates_grad(ops: pd.DataFrame) -> np.ndarray:
    """Which cpu_ops are the autograd engine's AccumulateGrad (the node or its function)."""
    return name_mask(ops["name"], r"torch::autograd::AccumulateGrad$")


def _per_chain(c: pd.DataFrame) -> pd.DataFrame:
    """Each chain of c (by number): the bytes it `moved`, its kernel time `t`, its `longest`
    kernel, `kernels`, first `ts`, the bytes one `fused` kernel would move and the `saving`."""
    per = c.groupby("chain").agg(
        moved=("bytes", "sum"),
        t=("dur", "sum"),
        longest=("dur", "max"),
        kernels=("dur", "size"),
        ts=("ts", "first"),
    )
    # an op's bytes over all its kernels: the largest op's are what the fused kernel moves
    per["fused"] = c.groupby(["chain", "owner"])["bytes"].sum().groupby(level="chain").max()
    # the fused kernel moves one op's bytes at the chain's bandwidth, and takes no less
    # than the chain's longest kernel (tiny kernels are latency-bound, not bandwidth-bound)
    per["saving"] = per["t"] - np.maximum(per["t"] * per["fused"] / per["moved"], per["longest"])
    return per


def _tanh_gelu_chains(frame: TraceFrame, chains: pd.DataFrame) -> np.ndarray:
    """The numbers of the chains (_chains) that are tanh GELU written out (TANH)."""
    if not len(chains):
        return np.zeros(0, dtype=np.int64)
    names = frame.cpu_ops["name"].to_numpy()[chains["owner"].to_numpy()]
    ops = pd.Series(names).groupby(chains["chain"].to_numpy()).agg(frozenset)
    return np.array(
        [
            chain
            for chain, s in ops.items()
            if s & TANH and "aten::mul" in s and s & ADD and not s & NOT_TANH_GELU
        ],
        dtype=np.int64,
    )


def _removed_kernels(chains: pd.DataFrame, copies: pd.DataFrame) -> pd.DataFrame:
    """The kernels fusing removes: every chain kernel but the longest, and the layout copies."""
    by_length = chains.sort_values(["chain", "dur"], kind="stable")
    longest = ~by_length["chain"].duplicated(keep="last").to_numpy()
    return pd.concat([by_length.loc[~longest, ["owner"]], copies[["owner"]]])


def _attention_kernels(frame: TraceFrame) -> np.ndarray:
    """For each GPU op (row of frame.gpu_ops), whether an attention op launched it
    (compute_ops' category "attention": fused SDPA, forward and backward)."""
    if not _shaped(frame):  # attention ops by name, their kernels under them
        names = frame.cpu_ops["name"]
        is_attention = names.isin(ATTENTION_OPS).to_numpy()
        parent = frame.cpu_ops["parent"].to_numpy()
        return nearest_ancestor(parent, frame.gpu_ops["op"].to_numpy(), is_attention) >= 0
    ops = compute_ops(frame)
    attention = ops["row"].to_numpy(dtype=np.int64)[(ops["category"] == "attention").to_numpy()]
    return np.isin(matrix_owner(frame), attention)


def _attention_us(frame: TraceFrame, attention: np.ndarray) -> float:
    """µs of main-device kernels in the steps that are `attention` (_attention_kernels)."""
    g = frame.gpu_ops
    k = (g["kind"] == "kernel").to_numpy() & (g["step"] >= 0).to_numpy()
    k &= (g["device"] == facts.main_device(frame)).to_numpy()
    return float(g["dur"].to_numpy()[k & attention].sum())


def _beside_attention(
    frame: TraceFrame, k: pd.DataFrame, c: pd.DataFrame, attention: np.ndarray
) -> np.ndarray:
    """The chains of c (by number) that an `attention` kernel (_attention_kernels) starts or
    ends on their stream: rotary embeddings and head reshapes between the projections and
    attention, forward and backward. Compiling the modules around attention leaves them eager."""
    if not len(c):
        return np.zeros(0, dtype=np.int64)
    attention = attention[frame.gpu_ops.index.get_indexer(k.index)]
    stream = k["stream"].to_numpy()
    at = k.index.get_indexer(c.index)
    first = pd.Series(at).groupby(c["chain"].to_numpy()).min()
    last = pd.Series(at).groupby(c["chain"].to_numpy()).max()
    before, after = first.to_numpy() - 1, last.to_numpy() + 1
    n = len(k)
    step = k["step"].to_numpy()

    def same_lane(a: np.ndarray, b: np.ndarray) -> np.ndarray:  # same stream, same step
        return (stream[a] == stream[b]) & (step[a] == step[b])

    before_at, after_at = np.clip(before, 0, n - 1), np.clip(after, 0, n - 1)
    hit_before = (before >= 0) & attention[before_at] & same_lane(before_at, first.to_numpy())
    hit_after = (after < n) & attention[after_at] & same_lane(after_at, last.to_numpy())
    return first.index.to_numpy()[hit_before | hit_after]


def _broadcast_contractions(frame: TraceFrame) -> tuple[float, list[dict]]:
    """µs over all steps of the kernels of hand-written contractions (CONTRACTION_MIN_EXPANSION)
    in the forward, the multiply and the sum that reads it next, and of their backward nodes
    (the same sequence numbers); and, by their shapes, the three that take the most forward
    kernel time."""
    ops = frame.cpu_ops
    if not _shaped(frame) or len(ops) < 2:
        return 0.0, []
    names, parent, tid = ops["name"].to_numpy(), ops["parent"].to_numpy(), ops["tid"].to_numpy()
    # candidates: a forward multiply whose next recorded op on its thread, beside it, is a sum
    r = np.flatnonzero((names[:-1] == "aten::mul") & (ops["step"].to_numpy()[:-1] >= 0))
    r = r[(names[r + 1] == "aten::sum") & (parent[r + 1] == parent[r]) & (tid[r + 1] == tid[r])]
    dims = ops["input_dims"].to_numpy()
    found: dict[int, dict] = {}
    for row in r:
        inputs, summed = dims[row], dims[row + 1]
        if not (isinstance(inputs, list) and isinstance(summed, list) and summed):
            continue
        a, b = (inputs + [[], []])[:2]
        if not (isinstance(a, list) and isinstance(b, list) and a and b):
            continue
        try:
            shape = list(np.broadcast_shapes(tuple(a), tuple(b)))
        except ValueError:
            continue
        larger = max(int(np.prod(a)), int(np.prod(b)))
        expansion = int(np.prod(shape)) // larger if larger > 0 else 0  # empty tensors: none
        if summed[0] == shape and expansion >= CONTRACTION_MIN_EXPANSION:
            found[int(row)] = {
                "inputs": f"{shape_text(a)} * {shape_text(b)}",
                "product": shape_text(shape),
                "expansion_x": expansion,
            }
    if not found:
        return 0.0, []
    rows = np.array(sorted(found))
    forward = np.zeros(len(ops), dtype=bool)
    forward[rows] = forward[rows + 1] = True
    every = np.arange(len(ops))
    region = with_backward_nodes(ops, every, nearest_ancestor(parent, every, forward) >= 0)
    g = frame.gpu_ops
    op = g["op"].to_numpy()
    at = np.flatnonzero(
        (g["kind"] == "kernel").to_numpy()
        & (g["step"] >= 0).to_numpy()
        & (op >= 0)
        & region[np.maximum(op, 0)]
    )
    dur = g["dur"].to_numpy()[at]
    own = nearest_ancestor(parent, op[at], forward)  # the forward multiply or sum; -1: backward
    ahead = own >= 0
    mul_of = np.where(names[own] == "aten::sum", own - 1, own)  # a sum's multiply: the row before
    per_mul = pd.Series(dur[ahead]).groupby(mul_of[ahead]).sum()
    shapes = pd.DataFrame([{**found[int(row)], "us": us} for row, us in per_mul.items()])
    n_steps = max(len(frame.steps), 1)
    by_shape = shapes.groupby(["inputs", "product", "expansion_x"], as_index=False).agg(
        calls=("us", "size"), us=("us", "sum")
    )
    largest = [
        {
            "inputs": r.inputs,
            "product": r.product,
            "expansion_x": int(r.expansion_x),
            "calls_per_step": round(float(r.calls) / n_steps, 1),
            "forward_us_per_step": round(float(r.us) / n_steps, 1),
        }
        for r in by_shape.nlargest(3, "us").itertuples()
    ]
    return float(dur.sum()), largest


def detect(frame: TraceFrame, cfg: Config):
    k = _member_kernels(frame)
    c = _chains(k)
    layout = _layout_copies(frame, k)
    copies = layout.loc[~layout.index.isin(c.index)]
    if not len(c) and not len(copies):
        return []
    per = _per_chain(c)
    n_steps = max(len(frame.steps), 1)
    copy_us = float(copies["dur"].sum())
    # Compiled, attention may not keep its eager kernels (COMPILED_ATTENTION_SLOWDOWN_MAX_X);
    # compiling only the modules around it cannot slow it, but leaves the chains beside it
    # eager. The chains beside attention count only where fusing them saves more than
    # compiled attention would cost at the least slowdown measured (2.3x): only there could
    # compiling the whole model beat compiling around it. Elsewhere the promise is what
    # compiling around attention gives (HF Llama on 2 x 8192 tokens: those chains' 14.3 ms a
    # step against 23.9 ms more attention; compiling around attention measured 15.6%, the whole
    # model 0.6%). Where they do count, no slowdown is charged: most compiled models measured
    # keep their attention kernels (a flat charge over 45 runs cut those within 15 points).
    attention = _attention_kernels(frame)
    attention_us = _attention_us(frame, attention)
    beside = per.index.isin(_beside_attention(frame, k, c, attention))
    beside_us = float(per.loc[beside, "saving"].sum())
    around_attention = 0 < beside_us < COMPILED_ATTENTION_SLOWDOWN_MIN_X * attention_us
    if around_attention:
        # Compiled module by module, a norm module is a graph of its own: the residual add,
        # dropout and casts around it run in its parent's forward, which holds attention and
        # stays eager, so a norm ends a chain there (pre-norm transformers: HF ViViT's promise
        # went from 34.2% to 26.4% of the step, 20.9% measured compiling around attention;
        # HF AST's from 19.7% to 6.6%, GPTBigCode's from 18.8% to 9.6%, which measured 32.2%
        # and 0.3% slower). Post-norm blocks (BERT's output modules add and norm inside one
        # module without attention) are under-counted: compiling around attention measured
        # BERT-base 51.6% slower, so nothing measured is lost.
        c = _chains(k, norms_end=True)
        per = _per_chain(c)
        beside = per.index.isin(_beside_attention(frame, k, c, attention))
        beside_us = float(per.loc[beside, "saving"].sum())
    saved = float(per.loc[~beside, "saving"].sum()) + copy_us
    if not around_attention:
        saved += beside_us
    # A fused chain is also one op to dispatch instead of many: the host saves the recorded
    # time of the ops behind the kernels that go, counted only for the chains a hand fix
    # removes. torch.compile swaps the dispatch of all it fuses for its own (guards, wrappers,
    # a launch per generated kernel): on host-bound HF models it measured -4% to 27% faster
    # where the dispatch of every fused op promised more. The step shortens by whichever side
    # sets its length.
    hand = _chains(k, cfg.min_chain_kernels_count)
    if around_attention:  # those chains stay eager, their dispatch too
        hand = hand.loc[~hand["chain"].isin(_beside_attention(frame, k, hand, attention))]
    hand_copies = layout.loc[~layout.index.isin(hand.index)]
    host_saved = host_us_of_kernels(frame, _removed_kernels(hand, hand_copies)) / n_steps
    step_saved = fused_step_saving_us(frame, saved / n_steps, host_saved)
    per_step, share = cost(frame, step_saved * n_steps)
    if share < cfg.min_share_pct:
        return []
    names = frame.cpu_ops["name"]
    owners = c.groupby("chain")["owner"]
    # chains with an op inside the loss, and what fusing them saves
    in_loss = nearest_ancestor(
        frame.cpu_ops["parent"].to_numpy(), c["owner"].to_numpy(), name_mask(names, LOSS_OP)
    )
    loss_chains = np.unique(c["chain"].to_numpy()[in_loss >= 0])
    loss_us = float(per["saving"].reindex(loss_chains).sum())
    shaped = _shaped(frame)  # else the bytes are kernel time: not said as bytes
    top = []
    for chain, r in per.sort_values("saving", ascending=False, kind="stable").head(3).iterrows():
        top.append(
            {
                **when(frame, float(r["ts"])),
                "kernels": int(r["kernels"]),
                "ops": [str(names.iat[o]) for o in owners.get_group(chain).to_numpy()[:8]],
                "us": round(float(r["t"]), 1),
                "bytes_moved": int(r["moved"]) if shaped else None,
                "bytes_if_fused": int(r["fused"]) if shaped else None,
                "gb_per_s": round(float(r["moved"] / r["t"]) / 1e3, 1) if shaped else None,
                "saving_us": round(float(r["saving"]), 1),
            }
        )
    largest_copies = [
        {
            **when(frame, float(r.ts)),
            "called_from": _caller(frame, r.owner),
            "shape": shape_text(_dims(frame.cpu_ops["input_dims"].iat[r.owner])),
            "us": round(float(r.dur), 1),
        }
        for r in copies.nlargest(3, "dur").itertuples()
    ]
    in_chains = len(c)
    moved_total, fused_total = float(per["moved"].sum()), float(per["fused"].sum())
    evidence = {
        "chains_per_step": round(len(per) / n_steps, 1),
        "kernels_in_chains_per_step": round(in_chains / n_steps, 1),
        "chain_kernel_us_per_step": round(float(per["t"].sum()) / n_steps, 1),
        "gpu_time_saved_us_per_step": round(saved / n_steps, 1),
        "host_time_saved_us_per_step": round(host_saved, 1),
        "host_time_us_per_step": round(facts.host_time_us(frame), 1),
        # without recorded shapes each kernel's time stands for its bytes
        "bytes_source": "recorded shapes" if shaped else "kernel time (no recorded shapes)",
        "bytes_moved_per_step": int(moved_total / n_steps) if shaped else None,
        "bytes_if_fused_per_step": int(fused_total / n_steps) if shaped else None,
        "layout_copies_per_step": round(len(copies) / n_steps, 1),
        "layout_copy_us_per_step": round(copy_us / n_steps, 1),
        "loss_chain_saving_us_per_step": round(loss_us / n_steps, 1),
        "largest_chains": top,
        "largest_layout_copies": largest_copies,
    }
    # what the saving comes from: chains, layout copies or both; title and fix name each
    from_chains, from_copies = saved - copy_us >= 0.25 * saved, copy_us >= 0.25 * saved
    parts, fixes = [], []
    if from_chains:
        parts.append(
            f"{_count(in_chains / n_steps)} memory-bound kernels per step in "
            f"{_count(len(per) / n_steps)} "
            + (
                f"unfused chains move {moved_total / max(fused_total, 1):.1f}x the bytes fused "
                "kernels would"
                if shaped
                else f"unfused chains take {moved_total / max(fused_total, 1):.1f}x the time fused "
                "kernels would (each kernel's time read as its bytes: no recorded shapes)"
            )
        )
        fixes.append(
            "Fuse the chains: torch.compile the model (or the block), or replace hand-written "
            "normalisation/activation arithmetic with fused ops (F.rms_norm, F.layer_norm, "
            "F.gelu(approximate='tanh'), F.silu, F.scaled_dot_product_attention)."
        )
    if from_copies:
        parts.append(
            f"{_count(len(copies) / n_steps)} layout copies per step "
            f"({copy_us / n_steps / 1e3:.2f} ms) only reorder tensors a fused neighbour could "
            "read in place"
        )
        fixes.append(
            "Layout copies (.contiguous() or reshape of a permuted or sliced tensor) go under "
            "torch.compile, which folds the permutation into the neighbouring kernel's indexing; "
            "by hand, skip .contiguous() where the next op accepts strided input."
        )
    if saved > 0 and loss_us >= 0.25 * saved:
        fixes.append(
            f"{100 * loss_us / saved:.0f}% of the kernel time saved is in the loss, which "
            "torch.compile(model) reaches only where the model's forward computes it (HF models "
            "given labels do): where it is computed outside, compile the function that computes "
            "the loss as well, or the whole training step."
        )
    # tanh GELU written out: what one fused kernel for it alone saves, the step's share priced
    # as the whole finding is (host dispatch of the ops it removes included)
    gelu = per.index.isin(_tanh_gelu_chains(frame, c))
    if around_attention:
        gelu &= ~beside
    gelu_gpu_us = float(per.loc[gelu, "saving"].sum()) / n_steps
    gelu_hand = hand.loc[hand["chain"].isin(_tanh_gelu_chains(frame, hand))]
    gelu_host_us = host_us_of_kernels(frame, _removed_kernels(gelu_hand, copies.iloc[:0])) / n_steps
    gelu_us, gelu_share = cost(
        frame, fused_step_saving_us(frame, gelu_gpu_us, gelu_host_us) * n_steps
    )
    evidence["tanh_gelu_chains_per_step"] = round(float(gelu.sum()) / n_steps, 1)
    evidence["tanh_gelu_saving_us_per_step"] = gelu_us
    evidence["tanh_gelu_share_pct"] = gelu_share
    if saved > 0 and gelu_gpu_us * n_steps >= 0.25 * saved and gelu_share >= cfg.min_share_pct:
        fixes.append(
            f"{evidence['tanh_gelu_chains_per_step']:g} of the chains a step are tanh GELU "
            "written out (tanh with mul and add: HF's gelu_new or gelu_fast, or by hand), "
            f"~{gelu_share:.0f}% of the step on their own: F.gelu(x, approximate='tanh') is the "
            "same function in one kernel each way (in HF, set the config's activation, "
            "hidden_act or activation_function, to 'gelu_pytorch_tanh'). It leaves attention "
            "as it is, so it is the fix to try where compiling slows the model."
        )
    contraction_us, contractions = _broadcast_contractions(frame)
    contraction_us /= n_steps
    evidence["broadcast_contraction_us_per_step"] = round(contraction_us, 1)
    evidence["broadcast_contractions"] = contractions
    gpu_us = facts.gpu_time_us(frame)
    if contractions and gpu_us > 0 and contraction_us >= 0.1 * gpu_us:
        # advice, not a promise: the estimate above prices these kernels' bytes, as for any chain
        top = contractions[0]
        fixes.append(
            f"{contraction_us / 1e3:,.1f} ms a step of GPU time "
            f"({min(100.0, 100 * contraction_us / gpu_us):.0f}% "
            "of it, forward and backward) are contractions written by hand: a multiply "
            f"materialises a product {top['expansion_x']}x the size of its larger input "
            f"({top['inputs']} -> {top['product']}, {top['calls_per_step']:g} a step) only "
            "for a sum to reduce it (broadcast_contractions). torch.einsum or torch.matmul "
            "computes such a contraction without the product, on tensor cores."
        )
    attention_us /= n_steps
    evidence["attention_us_per_step"] = round(attention_us, 1)
    evidence["beside_attention_saving_us_per_step"] = round(beside_us / n_steps, 1)
    if around_attention:
        fixes.append(
            f"Compile around attention here: the chains beside the attention kernels (rotary "
            f"embeddings, head reshapes: {beside_us / n_steps / 1e3:.2f} ms a step of saving) are "
            "left out of the estimate, since compiled attention as little as "
            f"{1 + COMPILED_ATTENTION_SLOWDOWN_MIN_X:.1f}x slower would cost "
            f"{COMPILED_ATTENTION_SLOWDOWN_MIN_X * attention_us / 1e3:.2f} ms more a step. "
            "So are the residual adds and casts beside each norm: a norm module compiled on its "
            "own leaves them in the block's eager forward."
        )
    if attention_us > 0:
        extra_ms = COMPILED_ATTENTION_SLOWDOWN_MAX_X * attention_us / 1e3
        # measured on torch 2.11: compiled HF Llama handed SDPA an explicit mask (2.3-3.3x the
        # kernel time), HF BERT and ViT lost SDPA to FP32 matmuls and softmax, GPT-2 kept it;
        # compiling around attention measured 15.6% faster on that Llama (the whole model 0.6%)
        # and 51.6% slower on that BERT; the whole model compiled with SDPA given no mask, 43.5%
        # faster than compiled with it on the long-context Llama (detectors/dense_causal_mask.py)
        fixes.append(
            f"Attention here runs as fused SDPA kernels, {attention_us / 1e3:.2f} ms a step, and "
            "a compiled model can lose them (some HF models compiled ran them 2.3-3.3x as long, "
            f"or as FP32 matmuls and softmax: at 3.3x, {extra_ms:.2f} ms more a step here). Check "
            "a compiled trace. Where the graph hands SDPA a dense causal mask (an HF decoder; "
            "the dense-causal-mask finding reads it there), give attention no mask (explain "
            "dense-causal-mask says how); where attention got slower otherwise, compile only the "
            "modules around it (module.compile() on each MLP and norm, attention left eager). "
            "Time it before keeping it."
        )
    if host_saved >= saved / n_steps:
        # holdout 41's PPO update: 1.69 of the 1.71 ms promised was dispatch; compiling its two
        # MLPs measured 21-43% slower, the whole step 33-35% faster
        fixes.append(
            f"Most of this saving is the host's: {host_saved / 1e3:.2f} ms a step of dispatching "
            f"the ops fused away, against {saved / n_steps / 1e3:.2f} ms of kernel time. Compiled "
            "code has a host cost of its own for each graph it runs (guards, wrappers, its "
            "kernels' launches), which on a short step can outweigh it: compile the code the "
            "chains are in, loss included, as few graphs as it allows, and time the step."
        )
    title = "; ".join(parts) + f"; fusing saves ~{share:.0f}% of the step"
    fix = " ".join(fixes)
    return [Finding(CODE, KIND, severity_for_share(share), title, per_step, share, evidence, fix)]


def _count(per_step: float) -> str:
    """A count per step as a title says it: 1,700 rather than 1.7e+03 (Swin-B's chains)."""
    return f"{per_step:,.0f}" if per_step >= 100 else f"{per_step:.3g}"


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# a hand-written GELU: four elementwise kernels where one would do


def example(bad: bool) -> TraceBuilder:
    """A 300 µs matmul, then GELU on a 16M-element FP32 tensor, queued back to back on the GPU.
    Bad: written as arithmetic, four elementwise ops (mul, tanh, add, mul), each a 100 µs kernel
    reading and writing the whole tensor. Good: one fused aten::gelu kernel of 100 µs."""
    n = 1 << 24
    unary = {"Input Dims": [[n]], "Input type": ["float"], "Concrete Inputs": [""]}
    binary = {"Input Dims": [[n], [n]], "Input type": ["float"] * 2, "Concrete Inputs": ["", ""]}
    chain = [("aten::mul", binary), ("aten::tanh", unary), ("aten::add", binary)]
    ops = chain + [("aten::mul", binary)] if bad else [("aten::gelu", unary)]
    b = TraceBuilder()
    for t0 in steps(b, cpu_us=60):
        launch(b, t0, t0 + 10, 300, name="aten::mm", kernel="gemm_a", op_args=mm_args(4096))
        for i, (op, args) in enumerate(ops):
            launch(b, t0 + 10 + 8 * i, t0 + 310 + 100 * i, 100, name=op, op_args=args)
    return b

"""FP32 (or TF32) math where BF16/FP16 tensor cores would run it several times faster.

Symptom: matrix products, convolutions and attention carry most of the step's FLOPs in FP32;
their kernels are SIMT FP32 kernels (sgemm, "f32" without tensor-op) or TF32 tensor-core kernels,
running far below the device's BF16 peak.
Likely cause: training without mixed precision; `torch.backends.cuda.matmul.allow_tf32 = False`
(the default for matmuls) so FP32 GEMMs do not even use TF32.
Fix: wrap the forward pass and loss in `torch.autocast("cuda", dtype=torch.bfloat16)` (on
Volta/Turing use float16 with `torch.amp.GradScaler`). As a smaller step, allow TF32 with
`torch.set_float32_matmul_precision("high")`. Keep matrix dimensions multiples of 8 so half-
precision kernels can use tensor cores fully.
Estimate: the FP32 kernels' time less their FLOPs at the share of the half-precision peak that
real steps' kernels reach (0.4) is the GPU time saved, with half the bytes of elementwise work
where the activations turn BF16 (not behind LayerNorm, which autocast keeps in FP32); the step
saves it only down to the host's own work (taken at its slowest plausible speed), and, where
syncs make the host and the GPU take turns, only what a replay of the step with shorter kernels
gives. Where the host's real speed, which the profiler hides, would change the answer by 10
points or more, the title gives the saving at its typical speed too.
Where cuDNN converts NCHW tensors around convolutions, the fix adds channels_last (the estimate
counts the conversions as gone), and says why batch norm needs it: in BF16 on NCHW tensors it
ran PyTorch's slow NCHW kernels (Lightning's bf16-mixed alone on ResNet-50: 9% faster; with
channels_last 50%, holdout 95).
In a half-precision step whose batch norm runs PyTorch's NCHW kernels for a tenth of the GPU's
kernel time or more, an info finding says so and to time channels_last: no estimate, since on
five nets it measured 4.1-45.1%, in an order those kernels' time did not predict.
FP64 math (a model made .double() to match NumPy's float64 data) is priced as plain FP32 is,
its fix first making model and data float32 (measured: 81.4% promised, 90.7% saved on an MLP).
Without recorded shapes (record_shapes=False) the same estimate reads the precision from kernel
names (sgemm/ffma/"float" is FP32, tf32/s1688 TF32, bf16/f16 half) under ops known by name to be
matrix and elementwise work, and takes an FP32 kernel's FLOPs as its time at the share of the
FP32 peak such kernels reach (0.65); the evidence's flops_source says which.
FP32 matmuls that run inside the backward of a custom autograd Function while the step's other
matmuls run in half precision are that Function's backward running outside autocast (it does,
unless the Function is decorated with torch.amp.custom_bwd): where they are at least half the
FP32 kernel time, the title names the Function and the fix is custom_fwd/custom_bwd (HF
Reformer's reversible layers: 74% of its FLOPs, 47.4% measured once decorated, holdout 56).
Where the step's half-precision matmuls carry a tenth of its FLOPs or more beside the FP32 ones,
autocast covers only part of it: the title says part of the step runs outside autocast and the fix
says where to look (a teacher called before the autocast block, a head applied after it: holdout
91's distillation, 67.5% promised, 69.6% measured).
In a half-precision step, BF16/FP16 matmuls with a dimension off a multiple of 8 are named;
where that dimension is the vocabulary (the largest embedding table's rows: an LM head of
32,001 after a pad token was added), their kernels' time beyond what the step's aligned matmuls
reach is the saving padding it to a multiple of 64 promises (measured: 20.6% promised, 19.3%
saved on a Llama; 15.1% promised, 19.0% and 15.1% saved on HF BERT-base inference).
Where the step runs FFTs (aten::_fft_*: FNet's token mixing, Autoformer's auto-correlation), the
BF16 fix says to give them float32 inputs: torch.fft has no BF16 kernel and autocast does not
cast their inputs, so an FFT fed by a matmul or convolution under BF16 autocast raises
(Autoformer's auto-correlation, holdout 62).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .. import facts
from ..diagnosis import SEVERITIES, Finding, severity_for_share
from ..efficiency import compute_ops, device_peak, kernel_flops, memory_bound_kernels
from ..op_flops import named_matrix_kernels
from ..trace import TraceFrame
from ..trace.frame import name_mask, nearest_ancestor
from ..trace.synth import TraceBuilder
from ._common import cost, kernel_step_saving_us, when
from ._examples import BF16, BF16_GEMM, STEPS, launch, mm_args

CODE = "precision"
KIND = "precision"
REQUIRES = {"kernels", "steps", "cpu_ops"}

# Names of kernels that use tensor cores (for the evidence), old and new naming; xmma/sm80_
# kernels are tensor-core kernels unless their name says FFMA/SIMT (plain FP32 on CUDA cores).
TENSOR_CORE_KERNEL = re.compile(
    r"^(?!.*(ffma|simt|sgemm|dgemm|gemv)).*(tensorop|xmma|gmma|hmma|s1688|s16816|h1688|h16816|bf16|"
    r"f16|nvjet|flash|fmha|tf32|i8816|imma)",
    re.IGNORECASE,
)
# cuDNN's layout conversions around convolutions of NCHW tensors: channels_last removes them.
LAYOUT_KERNEL = re.compile(r"nchwToNhwc|nhwcToNchw", re.IGNORECASE)
# Batch norm's kernels, cuDNN's (bn_fw_tr_1C11_kernel_NCHW, bn_bw_1C11_kernel_new) or PyTorch's.
BATCH_NORM_KERNEL = re.compile(r"batch_norm|\bbn_(fw|bw)", re.IGNORECASE)
# PyTorch's batch-norm kernels for NCHW tensors in BF16/FP16 (their channels_last versions are
# named *_channels_last_kernel).
NCHW_HALF_BATCH_NORM_KERNEL = re.compile(
    r"at::native::batch_norm_(backward|backward_reduce|backward_elemt|collect_statistics|"
    r"transform_input)_kernel<[^>]*c10::(BFloat16|Half)"
)
# Share of the GPU's kernel time in those kernels (cuDNN's layout conversions are reported
# beside it, not counted) from which a half-precision step is told about channels_last, at
# info: no estimate is given.
NCHW_NOTE_MIN_PCT = 10.0
# Ops that CUDA autocast runs in float32 (PyTorch's AMP op reference, "CUDA Ops that can
# autocast to float32"), as aten names, forward and backward.
AUTOCAST_FP32 = re.compile(
    r"^aten::(_?(native_)?(layer_norm|group_norm|softmax|log_softmax)|pow|sum|prod|cumsum|cumprod"
    r"|exp|expm1|log|log2|log10|log1p|reciprocal|rsqrt|acos|asin|cosh|sinh|tan|erfinv|softplus"
    r"|norm|linalg_vector_norm|renorm|logsumexp|dist|cdist|pdist|cosine_similarity|mse_loss"
    r"|l1_loss|smooth_l1_loss|huber_loss|nll_loss|nll_loss2d|nll_loss_nd|kl_div|cross_entropy_loss"
    r"|binary_cross_entropy_with_logits|poisson_nll_loss|margin_ranking_loss|soft_margin_loss"
    r"|multilabel_margin_loss|multi_margin_loss|hinge_embedding_loss|triplet_margin_loss)"
    r"(_backward|_backward_data)?$"
)
HALF = ("bf16", "fp16")
FP32 = ("fp32", "tf32")
# float64 math (a model made .double() to match NumPy's float64 data): on a datacenter GPU its
# peak is the FP32 one or lower (H100: 67 TFLOP/s against 989 BF16), on a consumer GPU 1/64 of it
WIDE = (*FP32, "fp64")
# Norms autocast runs in FP32: their outputs, and the elementwise work downstream of them up to
# the next matmul (residual adds, activations), stay FP32 under autocast. batch_norm is not among
# them: a BatchNorm network's activations are BF16 from one convolution to the next. RMSNorm
# written by hand (HF Llama, Mistral, Qwen2) shows as its rsqrt, which autocast keeps in FP32 too.
FP32_NORM = re.compile(
    r"^aten::((native_)?(layer_norm|group_norm|rms_norm)|_fused_rms_norm|rsqrt)$"
)
BATCH_NORM = re.compile(r"^aten::(native_|cudnn_|miopen_)?batch_norm$")
# The share of the datasheet's dense half-precision peak that the half-precision matmul,
# convolution and attention kernels of real training steps reach: 0.17 to 0.70, median 0.39,
# over the BF16 runs of fifteen FP32/BF16 pairs (zoo and demo) on an H100 (`python
# benchmarks/precision_kernels.py`). Two more, EfficientNet-B0 and MobileNetV3, reach 0.03 now
# that grouped convolutions are counted per group: their depthwise convolutions are memory
# bound, which no FLOP rate describes (0.33 is the median with them). At the full peak,
# precision had promised GPU time savings up to 14 ms a step larger than measured (DeiT-S,
# Swin-T, GPT-2).
HALF_PEAK_REACHED = 0.4
# A step whose half-precision matmuls carry this share of its FLOPs or more runs autocast over
# part of it: the FP32 rest runs outside it, and the fix is to bring that part in.
PARTLY_AUTOCAST_MIN_HALF_PCT = 10.0
# The share of the datasheet's FP32 peak that plain-FP32 (SIMT) matmul and convolution kernels
# reach: 0.28 to 0.96, median 0.65, over the FP32 runs of twelve of those pairs (`python
# benchmarks/precision_kernels.py`). Used only where a trace has no recorded shapes: their FLOPs
# are then their time at this rate.
FP32_PEAK_REACHED = 0.65


# Below min_share_pct at the host's slowest plausible speed, the finding is still reported (low)
# where the median profiler share puts the saving at this share or more: HF BERT-base's FP32 step
# (holdout 19) was promised 1.3% with its profiled host filling the step, 22% at the median
# share, and BF16 measured 32.1%.
REPORT_ON_UPPER_PCT = 10.0
# A title names both savings (host at its slowest plausible and at its typical speed) where they
# lie this many points apart. Neither bounds the truth: BF16 measured 32.1% and 45.8% on holdout
# 19's FP32 BERT-base and ViT-S, promised 1.3% and 23.5%, 22% and 43% at the median share.
RANGE_PTS = 10.0


@dataclass(frozen=True)
class Config:
    min_share_pct: float = 3.0
    # below this share of the matrix FLOPs and of the matrix kernels' time, FP32 is not worth a
    # finding. The time counts too: plain FP32 runs 10-25x slower per FLOP than BF16 tensor cores
    # (HF GraniteMoE's FP32 experts under autocast, holdout 85: 19.6% of the FLOPs, 42.5% saved)
    min_fp32_flops_pct: float = 20.0


def _dims(d) -> list[list[int]]:
    """The tensor shapes of rank 2 or more among an op's recorded input dims."""
    return [
        s for s in d if isinstance(s, list) and len(s) >= 2 and all(isinstance(x, int) for x in s)
    ]


def _half_gemm_alignment(frame: TraceFrame) -> tuple[np.ndarray, np.ndarray, pd.Series]:
    """The cpu_ops rows of BF16/FP16 matrix products with a dimension that is not a multiple of
    8, those of the rest, and the odd dimensions (a tuple per misaligned op)."""
    ops = compute_ops(frame)
    half = ops.loc[ops["dtype"].isin(HALF) & (ops["category"] == "gemm")]
    rows = half["row"].to_numpy(dtype=np.int64)
    odd = [
        tuple(sorted({x for s in _dims(d)[:2] for x in s[-2:] if x % 8}))
        for d in frame.cpu_ops["input_dims"].to_numpy()[rows]
    ]
    off = np.array([bool(o) for o in odd], dtype=bool)
    kept = pd.Series([o for o in odd if o], index=rows[off], dtype=object)
    return rows[off], rows[~off], kept


def _odd_vocabulary(frame: TraceFrame) -> int | None:
    """The vocabulary, where it is not a multiple of 8: the row count of the largest embedding
    table (aten::embedding's weight; positions and token types are smaller), whose LM head or
    tied output projection then multiplies off alignment."""
    ops = frame.cpu_ops
    emb = ops.loc[ops["name"].astype(object) == "aten::embedding", "input_dims"]
    rows = [s[0][0] for s in map(_dims, emb) if s]
    return max(rows) if rows and max(rows) % 8 else None


def _misaligned_saving(
    frame: TraceFrame, k: pd.DataFrame, alignment: tuple[np.ndarray, np.ndarray, pd.Series]
) -> tuple[pd.Series, dict]:
    """Per kernel of a BF16/FP16 matmul with a vocabulary off a multiple of 8 as a dimension,
    the time it would save at the rate the step's aligned BF16/FP16 matmul kernels of at most 4x
    its FLOPs reach (FLOP-weighted). cuBLAS runs such a matmul with kernels that cannot use
    16-byte loads (CUTLASS "align1"/"align2" kernels: 2.7-7.4x slower forward and backward on
    an H100 for GPT-2's, BERT's, Whisper's and a 32,001-row LM head, `python
    benchmarks/misaligned_gemm_probe.py`). Measuring against kernels at most 4x larger keeps
    small matmuls, slow for their size, from being priced as slow for their alignment. Only
    vocabularies: padding one costs a resize; an odd token count (197 patches, 1,500 audio
    frames) or hidden size is the model's, and stays information. alignment:
    _half_gemm_alignment's answer."""
    bad, good, odd = alignment
    vocab = _odd_vocabulary(frame)
    none = pd.Series(dtype=float), {}
    if not len(bad) or vocab is None or "owner" not in k:
        return none
    priced = odd.index[[vocab in o for o in odd]]
    mis = k.loc[k["owner"].isin(priced)]
    ref = k.loc[k["owner"].isin(good)].sort_values("flops")
    if not len(mis) or not len(ref):
        return none
    flops = ref["flops"].to_numpy()
    cum_flops, cum_us = np.cumsum(flops), np.cumsum(ref["dur"].to_numpy())
    i = np.searchsorted(flops, 4 * mis["flops"].to_numpy(), side="right")
    last = np.maximum(i - 1, 0)  # the largest reference kernel within 4x
    rate = np.where(i > 0, cum_flops[last] / np.maximum(cum_us[last], 1e-9), 0)
    ideal = np.divide(mis["flops"].to_numpy(), rate, out=np.zeros(len(mis)), where=rate > 0)
    saved = np.where(rate > 0, np.maximum(mis["dur"].to_numpy() - ideal, 0.0), 0.0)
    n_steps = max(len(frame.steps), 1)
    return pd.Series(saved, index=mis.index), {
        "vocab_rows": vocab,
        "vocab_matmul_kernel_us_per_step": round(float(mis["dur"].sum()) / n_steps, 1),
        "vocab_matmul_tflops": round(
            float(mis["flops"].sum() / max(mis["dur"].sum(), 1e-9)) / 1e6, 1
        ),
        "aligned_matmul_tflops": round(float(cum_flops[-1] / max(cum_us[-1], 1e-9)) / 1e6, 1),
    }


def _activations_stay_fp32(frame: TraceFrame) -> bool:
    """Whether the network normalises with norms autocast keeps in FP32 (LayerNorm, GroupNorm,
    RMSNorm, by hand or not) more often than with BatchNorm: then its activations between
    matmuls stay FP32 under autocast, and BF16 halves no elementwise bytes (measured: the
    elementwise, norm and reduction kernels of nine such pairs took 0.95-1.39x their FP32 time
    in BF16, the casts autocast adds included; 0.37-0.72x in five BatchNorm CNNs:
    benchmarks/precision_kernels.py)."""
    names = frame.cpu_ops["name"]
    return int(name_mask(names, FP32_NORM).sum()) > int(name_mask(names, BATCH_NORM).sum())


def _custom_backward(frame: TraceFrame, k: pd.DataFrame, k32: pd.DataFrame) -> tuple[str, float]:
    """The custom autograd Function (facts.CUSTOM_FUNCTION_NODE) whose backward ran the most of
    the FP32 matrix kernels k32, and its share of their time, where the step's matrix kernels k
    also ran in half precision (autocast was on, yet the Function's backward ran outside it:
    HF Reformer's reversible layers recompute each layer there); ("", 0.0) elsewhere."""
    if not len(k32) or "owner" not in k32 or not k["dtype"].isin(HALF).any():
        return "", 0.0
    op = k32["owner"].to_numpy()  # the matrix op that launched each kernel
    dur = k32["dur"].to_numpy()
    total = facts.by_custom_function(frame, op[op >= 0], dur[op >= 0])
    if not len(total):
        return "", 0.0
    return str(total.idxmax()), float(total.max() / max(dur.sum(), 1e-9))


def _grouped_calls(frame: TraceFrame, k32: pd.DataFrame) -> np.ndarray:
    """For each FP32 matrix kernel of k32, the cpu_ops row of the grouped matmul
    (facts.GROUPED_MM) its op ran under; -1 outside one, or where kernels have no owning op."""
    if "owner" not in k32:
        return np.full(len(k32), -1)
    ops = frame.cpu_ops
    grouped = name_mask(ops["name"], facts.GROUPED_MM)
    return nearest_ancestor(ops["parent"].to_numpy(), k32["owner"].to_numpy(), grouped)


def _fallback_host_us(frame: TraceFrame, calls: np.ndarray, profiler_share: float) -> float:
    """Host µs per step (without the profiler, at `profiler_share`) inside the grouped matmuls
    `calls` (_grouped_calls) that launched FP32 matrix kernels, less one op's host time per
    call: in FP32, PyTorch runs a grouped matmul as a fallback that reads the group offsets to
    the host and launches one product per expert, all of which one BF16 grouped kernel replaces
    (HF OLMoE, holdout 86: 61.5 ms of the FP32 step's 123.4 ms of host work inside them, at the
    profiler's low share)."""
    calls = np.unique(calls[calls >= 0])
    if not len(calls):
        return 0.0
    ops = frame.cpu_ops
    starts, ends = ops["ts"].to_numpy()[calls], ops["end"].to_numpy()[calls]
    work = float(facts.host_work_in_us(frame, starts, ends, profiler_share).sum())
    n_steps = max(len(frame.steps), 1)
    per_op = facts.host_time_us(frame, profiler_share) * n_steps / max(facts.ops_in_steps(frame), 1)
    return max(work - len(calls) * per_op, 0.0) / n_steps


def _grouped_share(k: pd.DataFrame, k32: pd.DataFrame, calls: np.ndarray) -> float:
    """The share of the FP32 matrix kernels k32's time launched inside grouped matmuls (`calls`,
    _grouped_calls), where the step's matrix kernels k also ran in half precision (autocast was
    on); 0 elsewhere."""
    if not len(k32) or not k["dtype"].isin(HALF).any():
        return 0.0
    dur = k32["dur"].to_numpy()
    return float(dur[calls >= 0].sum() / max(dur.sum(), 1e-9))


def _matrix_kernels(frame: TraceFrame, peak) -> tuple[pd.DataFrame, pd.Series]:
    """The steps' matrix kernels (name, dur, step, dtype, flops) and the matrix FLOPs by dtype:
    from recorded shapes (efficiency.kernel_flops), else estimated from kernel names and times
    (op_flops.named_matrix_kernels): a kernel's time at the share of its dtype's peak such
    kernels reach (FP32_PEAK_REACHED, HALF_PEAK_REACHED; TF32 taken as half precision)."""
    ops = compute_ops(frame)
    if len(ops):
        k = kernel_flops(frame)
        return k.loc[(k["flops"] > 0) & (k["step"] >= 0)], ops.groupby("dtype")["flops"].sum()
    k = named_matrix_kernels(frame).dropna(subset=["dtype"])
    if peak is None or not len(k):
        return k.iloc[:0].assign(flops=0.0), pd.Series(dtype=float)
    rate = {d: (peak.peak_for(d) or 0.0) * HALF_PEAK_REACHED for d in k["dtype"].unique()}
    rate["fp32"] = (peak.peak_for("fp32") or 0.0) * FP32_PEAK_REACHED
    # no pair measured FP64 kernels without shapes: the FP32 share (holdout 38's reached 0.42-0.84)
    rate["fp64"] = (peak.peak_for("fp64") or 0.0) * FP32_PEAK_REACHED
    k = k.assign(flops=k["dur"] * k["dtype"].map(rate).fillna(0.0) * 1e6)
    return k, k.groupby("dtype")["flops"].sum()


PAD_FIX = (
    "Pad the odd dimension to a multiple of 64 (8 at least) so cuBLAS can pick its fast "
    "kernels: a vocabulary with model.resize_token_embeddings(n, pad_to_multiple_of=64) (HF) or "
    "vocab_size rounded up (nanoGPT's 50,304 for GPT-2's 50,257); hidden and head sizes, and "
    "batch x sequence, rounded up the same way. The extra rows cost their FLOPs and nothing else."
)


def _nchw_batch_norm(frame: TraceFrame) -> list[Finding]:
    """A half-precision conv net whose batch norm runs PyTorch's NCHW kernels, said at info with
    no estimate: channels_last measured 4.1% to 45.1% on five such nets (holdout 95), in an
    order their kernel times do not predict."""
    g = facts.kernels(frame, facts.main_device(frame))
    total = float(g["dur"].sum())
    if not total:
        return []
    bn_us = float(g.loc[name_mask(g["name"], NCHW_HALF_BATCH_NORM_KERNEL), "dur"].sum())
    layout_us = float(g.loc[name_mask(g["name"], LAYOUT_KERNEL), "dur"].sum())
    bn_pct, layout_pct = 100 * bn_us / total, 100 * layout_us / total
    if bn_pct < NCHW_NOTE_MIN_PCT:
        return []
    n_steps = max(len(frame.steps), 1)
    evidence = {
        "nchw_batch_norm_us_per_step": round(bn_us / n_steps, 1),
        "nchw_batch_norm_kernel_time_pct": round(bn_pct, 1),
        "layout_conversion_us_per_step": round(layout_us / n_steps, 1),
        "layout_conversion_kernel_time_pct": round(layout_pct, 1),
    }
    title = (
        f"Batch norm runs PyTorch's NCHW kernels in half precision: {bn_pct:.0f}% of the GPU's "
        f"kernel time (cuDNN's layout conversions {layout_pct:.0f}% more); channels_last may cut "
        "it, by an amount only a timed run tells"
    )
    fix = (
        "Convert the model and its inputs to channels_last (model.to(memory_format="
        "torch.channels_last), x.to(memory_format=torch.channels_last); channels_last_3d for 3-D "
        "convolutions) and time the step both ways. On five conv nets in BF16 (H200) it measured "
        "45.1% faster (ResNet-50, batch 128), 17.2% (DCGAN), 10.2% (FCOS), 9.1% (SwiftFormer) and "
        "4.1% (WGAN-GP); these kernels' share did not predict which."
    )
    return [Finding(CODE, KIND, "info", title, None, None, evidence, fix)]


def _misaligned_finding(
    frame: TraceFrame,
    k: pd.DataFrame,
    alignment: tuple[np.ndarray, np.ndarray, pd.Series],
    evidence: dict,
    cfg: Config,
):
    """Half-precision matmuls with a dimension off a multiple of 8: priced where the dimension
    is a vocabulary and the step's aligned matmuls show what its kernels would reach
    (_misaligned_saving), else information. Padding adds no host work, so where the GPU sets
    the step the kernel time saved is step time saved (as fusion's); elsewhere the host's work,
    at its slowest plausible, and the replay bound it, as for FP32."""
    n = evidence["half_gemms_not_multiple_of_8"]
    if not n:
        return []
    shorter, seen = _misaligned_saving(frame, k, alignment)
    n_steps = max(len(frame.steps), 1)
    gpu_saved = float(shorter.sum()) / n_steps
    evidence |= seen
    share = 0.0
    if gpu_saved > 0:
        saved = gpu_saved
        if not facts.gpu_sets_step(frame):
            saved, replayed = kernel_step_saving_us(
                frame, gpu_saved, shorter, facts.PROFILER_SHARE_OF_HOST_OP_LOW
            )
            evidence["replay_step_saving_us"] = round(replayed or 0.0, 1)
        per_step, share = cost(frame, saved * n_steps)
        evidence["gpu_time_saved_us_per_step"] = round(gpu_saved, 1)
    if share < cfg.min_share_pct:
        title = f"{n} BF16/FP16 matmuls have dimensions that are not multiples of 8"
        return [Finding(CODE, KIND, "info", title, None, None, evidence, PAD_FIX)]
    rows = seen["vocab_rows"]
    title = (
        f"A vocabulary of {rows:,} rows, not a multiple of 8, puts its BF16/FP16 matmuls (the LM "
        f"head) on slow kernels: {seen['vocab_matmul_tflops']:.0f} TFLOP/s against "
        f"{seen['aligned_matmul_tflops']:.0f} for the step's aligned matmuls; padding it to "
        f"{-(-rows // 64) * 64:,} could save ~{share:.0f}% of the step"
    )
    return [
        Finding(CODE, KIND, severity_for_share(share), title, per_step, share, evidence, PAD_FIX)
    ]


def detect(frame: TraceFrame, cfg: Config):
    peak = device_peak(frame)
    k, flops_by_dtype = _matrix_kernels(frame, peak)
    if not len(k):
        return []
    shaped = bool(len(compute_ops(frame)))
    total_flops = float(flops_by_dtype.sum())
    fp32_flops = float(flops_by_dtype[flops_by_dtype.index.isin(FP32)].sum())
    fp32_pct = 100.0 * fp32_flops / total_flops if total_flops else 0.0
    half_flops = float(flops_by_dtype[flops_by_dtype.index.isin(HALF)].sum())
    half_pct = 100.0 * half_flops / total_flops if total_flops else 0.0
    fp64_pct = 100.0 * float(flops_by_dtype.get("fp64", 0.0)) / total_flops if total_flops else 0.0
    is_tc = name_mask(k["name"], TENSOR_CORE_KERNEL)
    is_tf32 = (k["dtype"] == "tf32").to_numpy()  # efficiency.compute_ops tells TF32 by kernel name
    fp32 = k["dtype"].isin(FP32).to_numpy()
    wide = k["dtype"].isin(WIDE).to_numpy()
    n_steps = max(len(frame.steps), 1)
    time_by_dtype = k.groupby("dtype")["dur"].sum()
    alignment = _half_gemm_alignment(frame)
    evidence = {
        # without recorded shapes, FLOPs are kernel time at the share of peak such kernels reach
        "flops_source": "recorded shapes" if shaped else "kernel names and times (no shapes)",
        "flops_by_dtype_per_step": {
            d: float(f"{v / n_steps:.4g}") for d, v in flops_by_dtype.items()
        },
        "kernel_us_by_dtype_per_step": {d: round(v / n_steps, 1) for d, v in time_by_dtype.items()},
        "fp32_flops_pct": round(fp32_pct, 1),  # FP32 tensors, whether the math ran as FP32 or TF32
        "fp64_flops_pct": round(fp64_pct, 1),
        "fp32_kernels_on_tensor_cores_pct": round(
            100 * float(k.loc[fp32 & is_tf32, "dur"].sum() / max(k.loc[fp32, "dur"].sum(), 1e-9)), 1
        ),
        "tensor_core_kernel_time_pct": round(
            100 * float(k.loc[is_tc, "dur"].sum() / max(k["dur"].sum(), 1e-9)), 1
        ),
        "half_gemms_not_multiple_of_8": len(alignment[0]),
    }
    wide_time_pct = 100 * float(k.loc[wide, "dur"].sum() / max(k["dur"].sum(), 1e-9))
    evidence["fp32_kernel_time_pct"] = round(wide_time_pct, 1)
    if max(fp32_pct + fp64_pct, wide_time_pct) < cfg.min_fp32_flops_pct:
        return _misaligned_finding(frame, k, alignment, evidence, cfg) + _nchw_batch_norm(frame)
    props = frame.device_props(facts.main_device(frame)) or {}
    major = props.get("computeMajor", 0) or 0
    target = "bf16" if major >= 8 or peak is None or peak.peak_for("bf16") else "fp16"
    target_peak = peak.peak_for(target) if peak else None
    if not target_peak:
        return []
    # Plain FP32 (and FP64): the time the kernels would take at the half-precision peak, against
    # what they took. TF32 already runs on tensor cores, so its own, smaller estimate: the same
    # kernels at the same fraction of peak, scaled by the TF32-to-half peak ratio.
    k32 = k.loc[wide]
    tf32 = is_tf32[wide]
    ideal_us = k32["flops"].to_numpy() / (target_peak * 1e6)
    half_us = ideal_us / HALF_PEAK_REACHED
    dur = k32["dur"].to_numpy()
    tf32_peak = peak.peak_for("tf32")
    tf32_saving = (1.0 - tf32_peak / target_peak) if tf32_peak and tf32_peak < target_peak else 0.0
    saved = np.where(tf32, dur * tf32_saving, np.maximum(dur - half_us, 0.0))
    # The same switch halves the bytes of FP32 activations that norms and elementwise kernels
    # move (they are memory-bound: about half their time), and bf16 + channels_last convolutions
    # need no NCHW<->NHWC conversion kernels.
    layout = name_mask(k32["name"], LAYOUT_KERNEL)
    saved = np.where(layout, dur, saved)
    mb = memory_bound_kernels(frame)
    mb = mb.loc[
        mb["dtype"].isin(WIDE)
        & (mb["device"] == facts.main_device(frame))
        & mb["category"].isin(("elementwise", "norm"))
    ]
    # ops autocast runs in FP32 whatever their input (norms, softmax, pow, sums, losses) keep
    # their bytes, and pay a cast besides: they save nothing; FP64 work halves its bytes in FP32
    stays = name_mask(frame.cpu_ops["name"], AUTOCAST_FP32)[mb["owner"].to_numpy()]
    if _activations_stay_fp32(frame):
        stays[:] = True
    stays &= (mb["dtype"] != "fp64").to_numpy()
    halved = mb.loc[~stays, "dur"] * 0.5
    n_steps = max(len(frame.steps), 1)
    gpu_saved = (float(saved.sum()) + float(halved.sum())) / n_steps
    shorter = pd.concat([pd.Series(saved, index=k32.index), halved])

    in_fp64 = fp64_pct >= fp32_pct
    function, in_function = _custom_backward(frame, k, k32)
    custom = in_function >= 0.5 and not in_fp64
    calls = _grouped_calls(frame, k32)
    in_grouped = _grouped_share(k, k32, calls)
    experts = in_grouped >= 0.5 and not in_fp64 and not custom

    # The host's real speed, which the profiler hides, decides how much of that the step sees.
    # The promise takes the host at its slowest plausible (PROFILER_SHARE_OF_HOST_OP_LOW);
    # at the median share is the upper end, said beside it. FP32 grouped matmuls also give back
    # the host work of their per-expert fallback, of which a faster host has less: the promise
    # is then the smaller of the two.
    low_share, median_share = facts.PROFILER_SHARE_OF_HOST_OP_LOW, facts.PROFILER_SHARE_OF_HOST_OP
    fallback = {
        at: _fallback_host_us(frame, calls, at) if experts else 0.0
        for at in (low_share, median_share)
    }
    step_saved, replayed = kernel_step_saving_us(
        frame, gpu_saved, shorter, low_share, fallback[low_share]
    )
    median, _ = kernel_step_saving_us(
        frame, gpu_saved, shorter, median_share, fallback[median_share]
    )
    per_step, share = cost(frame, step_saved * n_steps)
    _, at_median = cost(frame, median * n_steps)
    upper, slow, typical = at_median, "slowest plausible", "typical"
    if experts and median < step_saved:
        per_step, share = cost(frame, median * n_steps)
        upper, slow, typical = cost(frame, step_saved * n_steps)[1], typical, slow
    if share < cfg.min_share_pct and upper < REPORT_ON_UPPER_PCT:
        return []
    tf32_share = float(k32.loc[tf32, "dur"].sum() / max(k32["dur"].sum(), 1e-9))
    severity = max(severity_for_share(share), "low", key=SEVERITIES.index)
    saves = f"could save ~{share:.0f}% of the step"
    if upper - share >= RANGE_PTS:
        saves = (
            f"could save ~{share:.0f}% of the step with the host at its {slow} speed, "
            f"~{upper:.0f}% at its {typical} speed (the profiler hides which)"
        )
    flops = "FLOPs" if shaped else "FLOPs (told by kernel names: no recorded shapes)"
    if in_fp64:
        title = (
            f"{fp64_pct:.0f}% of {flops} run in FP64 (float64 tensors); float32 with "
            f"{target.upper()} autocast {saves}"
        )
    elif tf32_share >= 0.5:  # already on tensor cores: a smaller, surer-to-be-overestimated win
        severity = SEVERITIES[max(SEVERITIES.index(severity) - 1, 0)]
        title = (
            f"{fp32_pct:.0f}% of {flops} in FP32 running as TF32; {target.upper()} autocast {saves}"
        )
    else:
        title = (
            f"{fp32_pct:.0f}% of {flops} run in plain FP32 (no tensor cores); {target.upper()} "
            f"autocast {saves}"
        )
    evidence["fp32_kernel_time_in_custom_function_backward_pct"] = round(100 * in_function, 1)
    evidence["custom_function"] = function or None
    evidence["fp32_kernel_time_in_grouped_matmuls_pct"] = round(100 * in_grouped, 1)
    if experts:
        evidence["host_time_in_fp32_grouped_matmuls_us_per_step"] = round(fallback[low_share], 1)
        title = (
            f"{fp32_pct:.0f}% of {flops} run in FP32 though the step runs half-precision "
            f"matmuls: {100 * in_grouped:.0f}% of that FP32 kernel time is in grouped matmuls "
            "(torch._grouped_mm: a mixture-of-experts layer's experts), which autocast does not "
            f"cover; in BF16 they {saves}"
        )
    # Half-precision matmuls beside the FP32 ones: autocast is on for part of the step, and the
    # rest runs outside it (a teacher called before the autocast block: holdout 91's ViT-B,
    # 56% of FLOPs in FP32 beside the student's BF16, 69.6% measured once inside it)
    outside = half_pct >= PARTLY_AUTOCAST_MIN_HALF_PCT and not (in_fp64 or custom or experts)
    evidence["half_flops_pct"] = round(half_pct, 1)
    if outside:
        title = (
            f"{fp32_pct:.0f}% of {flops} run in FP32 though {half_pct:.0f}% run in "
            f"{target.upper()}: part of the step runs outside autocast; brought under it, it {saves}"
        )
    if custom:
        title = (
            f"{fp32_pct:.0f}% of {flops} run in FP32 though the step runs half-precision "
            f"matmuls: {100 * in_function:.0f}% of that FP32 kernel time is in the backward of the "
            f"autograd Function {function}, which runs outside autocast; under autocast it {saves}"
        )
    evidence["target_dtype"] = target
    evidence["target_peak_tflops"] = target_peak
    evidence["fp32_kernel_us_per_step"] = round(float(k32["dur"].sum()) / n_steps, 1)
    evidence["fp32_kernel_us_per_step_at_target_peak"] = round(float(ideal_us.sum()) / n_steps, 1)
    evidence["fp32_kernel_us_per_step_in_target_dtype"] = round(float(half_us.sum()) / n_steps, 1)
    evidence["gpu_time_saved_us_per_step"] = round(gpu_saved, 1)
    evidence["host_time_us_per_step"] = round(facts.host_time_us(frame), 1)
    evidence["step_saving_pct_at_median_profiler_share"] = at_median
    if replayed is not None:
        evidence["replay_step_saving_us"] = round(replayed, 1)
    evidence["layout_conversion_us_per_step"] = round(float(dur[layout].sum()) / n_steps, 1)
    evidence["fp32_memory_bound_us_per_step"] = round(float(mb["dur"].sum()) / n_steps, 1)
    g = frame.gpu_ops
    evidence["slowest_fp32_kernels"] = [
        {
            "kernel": str(n)[:100],
            "us_per_step": round(v / n_steps, 1),
            "first": when(
                frame, float(g.loc[k32.index[k32["name"].astype(object) == n], "ts"].min())
            ),
        }
        for n, v in k32.groupby(k32["name"].astype(object))["dur"].sum().nlargest(3).items()
    ]
    if target == "bf16":
        fix = (
            "Run forward and loss under torch.autocast('cuda', dtype=torch.bfloat16) (no GradScaler "
            "needed)."
        )
        if tf32_share < 0.5 and not in_fp64:
            fix += " At least allow TF32: torch.set_float32_matmul_precision('high')."
        if layout.any():
            fix += (
                " Convert convolutional models and inputs to channels_last "
                "(model.to(memory_format=torch.channels_last)) as well: the estimate counts "
                "cuDNN's NCHW<->NHWC conversion kernels as gone."
            )
            if name_mask(g["name"], BATCH_NORM_KERNEL).any():
                # holdout 95: Lightning's precision="bf16-mixed" alone on ResNet-50 left batch
                # norm on PyTorch's NCHW kernels, 55% of the GPU time
                fix += (
                    " Do not skip it where the model has batch norm: in BF16 on NCHW tensors, "
                    "batch norm ran PyTorch's NCHW kernels rather than cuDNN's (torch 2.11), far "
                    "slower than their channels_last versions; on ResNet-50 at batch 128 (H200), "
                    "BF16 alone measured 9% faster, BF16 with channels_last 50%."
                )
    else:
        fix = (
            "This GPU has no fast BF16: use torch.autocast('cuda', dtype=torch.float16) with "
            "torch.amp.GradScaler to run matmuls on tensor cores."
        )
    if outside:
        fix = (
            f"The step already runs {half_pct:.0f}% of its FLOPs in {target.upper()}, so autocast "
            "covers part of it: find the matrix work outside it and bring it inside the "
            "torch.autocast block. Look for a model called before or after the block (a frozen "
            "teacher or reference model computing targets, a head or metric applied to the "
            "outputs), a region under torch.autocast(enabled=False), or weights kept in FP32 "
            "and called by an op autocast does not cover (slowest_fp32_kernels in the evidence "
            "gives when each first ran)."
        )
    if experts:
        fix = (
            "Keep the experts' weights in BF16 (e.g. experts.to(torch.bfloat16)): "
            "torch._grouped_mm and F.grouped_mm are not autocast ops, so they run in the weights' "
            "dtype (transformers casts their input to it), and in FP32 PyTorch runs them as one "
            "product per expert after reading the group offsets to the host, a sync per call. "
            "transformers (5.x) runs the experts of its mixture-of-experts models this way by "
            "default, so FP32 weights under autocast, the usual mixed-precision recipe, meet it. "
            "On HF GraniteMoE, Mixtral and OLMoE (8 to 32 experts) the experts' weights in BF16 "
            "measured 42.5-64.7% less time a step."
        )
    if custom:
        fix = (
            f"Decorate {function}'s forward with @torch.amp.custom_fwd(device_type='cuda') and its "
            "backward with @torch.amp.custom_bwd(device_type='cuda'): a custom autograd "
            "Function's backward runs outside the autocast region that called its forward, so "
            "what it recomputes and differentiates runs in FP32. For a library's Function, patch "
            "it before training: fn.forward = staticmethod(torch.amp.custom_fwd(fn.forward, "
            "device_type='cuda')), fn.backward likewise with custom_bwd (HF Reformer's "
            "_ReversibleFunction measured 137.6 -> 72.4 ms a step, 47.4%)."
        )
    if in_fp64:
        fix = (
            "Make the model and its inputs float32: model.float() (not model.double()), and "
            "arrays from NumPy, float64 by default, as torch.from_numpy(a).float(); keep float64 "
            "only for the few numerics that need it. Then " + fix[0].lower() + fix[1:]
        )
    ffts = _ffts_per_step(frame)
    evidence["fft_calls_per_step"] = round(ffts, 1)
    if ffts >= 1 and target == "bf16":
        # torch.fft has no BF16 kernel and autocast leaves FFTs' inputs as they come: BF16 from
        # the matmul before, so the first one raises (HF Autoformer under BF16 autocast, torch
        # 2.11 on an H200: "RuntimeError: Unsupported dtype BFloat16" in torch.fft.rfft)
        fix += (
            f" This step runs {ffts:.0f} FFTs (aten::_fft_*): torch.fft has no BF16 kernel and "
            "autocast does not cast their inputs, so under BF16 autocast an FFT fed by a matmul "
            "or convolution (BF16 there) raises 'Unsupported dtype BFloat16'. Give such an FFT a "
            "float32 input (torch.fft.rfft(x.float()), or the FFT under "
            "torch.autocast('cuda', enabled=False)); FP16 works only for power-of-two lengths. "
            "TF32 alone (torch.set_float32_matmul_precision('high')) needs no change to them."
        )
    if upper - share >= RANGE_PTS:
        fix += (
            " Time it before keeping it: autocast adds a cast before each FP32 matmul, host work "
            "a step the host sets pays in full (the sync demo's FP32 MLP ran 12.5% slower)."
        )
    return [Finding(CODE, KIND, severity, title, per_step, share, evidence, fix)]


def _ffts_per_step(frame: TraceFrame) -> float:
    """torch.fft transforms a step (aten::_fft_r2c, _fft_c2c, _fft_c2r in the steps)."""
    ops = frame.cpu_ops
    fft = name_mask(ops["name"], r"^aten::_fft_")
    return float((fft & (ops["step"] >= 0).to_numpy()).sum()) / max(len(frame.steps), 1)


# --- example: positive (bad=True) and negative trace; `bottleneck-lab explain` shows it -------
# a large FP32 matmul on SIMT cores


GEMM_N = 4096  # 2 * 4096**3 = 137 GFLOP: ~440 µs at the A100's 312 TFLOP/s dense BF16 peak
FP32_SIMT_GEMM = "ampere_sgemm_128x64_nn"
TF32_GEMM = "ampere_tf32_s1688gemm_tf32_128x128_nn"


def example(
    bad: bool, kernel: str = FP32_SIMT_GEMM, kernel_us: float = 7000.0, dtype: str = "float"
) -> TraceBuilder:
    """One 4096^3 aten::mm per step (8000 µs apart). Bad: Input type `dtype`, `kernel` for
    kernel_us (7000 µs of ampere_sgemm is 19.6 TFLOP/s, the FP32 SIMT rate). Good: c10::BFloat16
    with an sm80_xmma_gemm_bf16bf16 kernel for 500 µs. The host then waits for the GPU in a
    cudaStreamSynchronize (a loss.item()), so the GPU, not the host, sets the step's length."""
    b = TraceBuilder()
    kernel, dur, dtype = (kernel, kernel_us, dtype) if bad else (BF16_GEMM, 500.0, BF16)
    for i in range(STEPS):
        t0 = i * 8000.0
        b.step(i + 1, t0, 30)
        launch(
            b,
            t0,
            t0 + 10,
            dur,
            name="aten::mm",
            kernel=kernel,
            grid=(32, 32, 1),
            op_args=mm_args(GEMM_N, dtype, GEMM_N, GEMM_N),
        )
        b.runtime("cudaStreamSynchronize", t0 + 12, dur)
    return b

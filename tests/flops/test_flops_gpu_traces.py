"""FLOPs per step from each shipped H100 trace against FlopCounterMode's count in its sidecar.

The capture counted FlopCounterMode around one call of the very step function the profiler
recorded (same model, same batch), so the two must agree within 2%. A CUDA-graph replay records
no ops to read shapes from: that trace has no FLOPs, and the analyzer says none rather than guess.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import xfail_listed

from bottleneck_lab import facts
from bottleneck_lab.analyze import diagnose
from bottleneck_lab.op_flops import op_costs
from bottleneck_lab.trace import load_trace
from bottleneck_lab.trace.frame import name_mask, nearest_ancestor

TRACES = sorted((Path(__file__).resolve().parents[2] / "traces").glob("*/*/*.json.gz"))


def grouped_mm_flops(frames) -> float:
    """FLOPs per step the trace counts in grouped products: the ops themselves, or the
    products they ran as (aten::mm under aten::_grouped_mm, one per expert, on HF GraniteMoE)."""
    frame = frames[0]
    ops = frame.cpu_ops
    oc = op_costs(frame)
    rows = oc["row"].to_numpy(dtype=int)
    grouped = name_mask(ops["name"], facts.GROUPED_MM)  # FlopCounterMode has no formula
    inside = nearest_ancestor(ops["parent"].to_numpy(), rows, grouped) >= 0  # at or above
    return float(oc.loc[inside, "flops"].sum()) / max(len(frame.steps), 1)


def sidecar(trace: Path) -> dict:
    return json.loads(trace.with_name(trace.name.replace(".json.gz", ".meta.json")).read_text())


def recorded_shapes(meta: dict) -> bool:
    """Whether the capture recorded shapes (traces/noshapes/ did not)."""
    return meta.get("profiler", {}).get("record_shapes", True)


# Runs whose own FlopCounterMode count does not hold, and the run of the same model, batch and
# step whose count does. Compiled steps are captured without FlopCounterMode (its global module
# hooks make Dynamo recompile or run eagerly). nn.MultiheadAttention in FP32 inference takes its
# fused fast path, aten::_native_multi_head_attention, which FlopCounterMode has no formula for:
# ViT-L/16 counted 5.10 TFLOP a step, its attention's projections and products left out; under
# autocast the fast path is off and the same model counted 7.88, as the FP32 trace reads.
COUNT_TWIN = {
    "gpt2_compiled_train/healthy": "gpt2_eager_attention/fixed",
    "vit_l_fp32_inference/bad": "vit_l_fp32_inference/fixed",
}


# Runs whose shapes change every step though their sidecar's note does not say so (captured
# before the builder's note was written): FlopCounterMode counted one step at the first length.
# ... or its work does: HF Wav2Vec2-Conformer trains with LayerDrop (its config's default 0.1),
# so the profiled steps ran 9, 11 and 11 of its 12 layers and FlopCounterMode's one call 10
SHAPES_CHANGE_EVERY_STEP = {
    "bert_dynamic_padding_healthy/healthy",
    "wav2vec2_conformer_healthy/healthy",
    # LayerDrop, their configs' default: HuBERT (0.1) ran 8, 9 and 10 of its 12 layers in the
    # three profiled steps, M2M100 (0.05 a side) 33, 36 and 35 of its 36 attention calls
    "hubert_fp32_precision/bad",
    "hubert_fp32_precision/fixed",
    "m2m100_healthy/healthy",
}


def beyond_flopcountermode(frames, meta: dict | None = None) -> float:
    """FLOPs per step the analyzer counts and FlopCounterMode does not: cuDNN's recurrent layers
    (which it counts as zero; flops/rnn.py, checked in test_rnn_flops.py) and mixture-of-experts
    grouped products (torch._grouped_mm, for which it has no formula in torch 2.11 or 2.13;
    checked against a config's arithmetic below), less what it counts beyond a grouped
    convolution's weight gradient (flops/conv.py, checked against one ungrouped convolution per
    group in test_flops_accuracy.py). The sidecar's count plus this is the analyzer's. Where
    the sidecar (meta) holds a count taken on the eager experts instead, the grouped products
    are in it already."""
    oc = op_costs(frames[0])
    rnn = float(oc.loc[oc["category"] == "rnn", "flops"].sum())
    grouped = 0.0
    if "no _grouped_mm formula" not in (meta or {}).get("flops_source", ""):
        grouped = grouped_mm_flops(frames) * max(len(frames[0].steps), 1)
    extra = float(oc["flopcountermode_extra"].sum())
    return (rnn + grouped - extra) / max(len(frames[0].steps), 1)


def counted(trace: Path, meta: dict) -> dict:
    """The sidecar whose FlopCounterMode count the trace is held to: its own, or its twin's
    (COUNT_TWIN); skips where there is none that holds for each step."""
    run = f"{trace.parent.name}/{trace.name.removesuffix('.json.gz')}"
    if run in COUNT_TWIN and trace.parents[1].name == "zoo":
        meta = sidecar(trace.parents[1] / f"{COUNT_TWIN[run]}.json.gz")
    elif meta.get("flops_source", "").startswith("not counted"):
        pytest.skip("no FlopCounterMode count (a compiled step, or it raised) and no twin")
    if "change every step" in meta.get("flops_source", "") or run in SHAPES_CHANGE_EVERY_STEP:
        pytest.skip(
            "shapes change every step: one eager step's FlopCounterMode count is not each step's"
        )
    return meta


@pytest.mark.parametrize(
    "trace", TRACES, ids=lambda p: f"{p.parents[1].name}/{p.parent.name}/{p.name}"
)
def test_trace_flops_match_flopcountermode(trace):
    meta = sidecar(trace)
    if "flops_per_step" not in meta:
        pytest.skip("not a capture() run: no FlopCounterMode count (cold_start profiles 3 steps)")
    frames = load_trace(trace)
    summary = diagnose(frames, path=str(trace)).summary
    if meta["config"].get("cuda_graph") or not recorded_shapes(meta):
        # a graph replay shows no ops; without record_shapes no op has the shapes to count
        assert summary.flops_per_step is None and summary.mfu_pct is None
        return
    meta = counted(trace, meta)
    expected = meta["flops_per_step"] + beyond_flopcountermode(frames, meta)
    assert summary.flops_per_step == pytest.approx(expected, rel=0.02)
    # every GPU trace with shapes carries achieved TFLOP/s and an MFU that names its peak
    assert summary.achieved_tflops > 0 and 0 < summary.mfu_pct < 100
    gpu = meta["device"]["name"].split()[1]  # "NVIDIA H100 80GB HBM3" -> "H100"
    assert summary.peak_tflops > 0 and gpu in summary.peak_source


# Where the profiled host ran slower than the profiler's per-op cost explains, in ways the trace
# cannot tell apart from the loop's own work.
PROFILER_FREE_STEP_OFF = {
    "zoo/bart_beam_ngram/fixed.json.gz": "holdout 90: BART beam search, a host-bound generate() "
    "(GPU busy 113 ms a step): the capture's three timed blocks took 710-1,023 ms a step (median "
    "904.49), the same step 436.43 ms in batch_sweep.py's process on the same lease; the estimate "
    "without the profiler, 530.38 ms, lies between them, 41% under the sidecar's median",
    "zoo/mobilenetv2_loader_workers0/bad.json.gz": "holdout 64: a step the main process's "
    "JPEG decoding sets (GPU busy 6%), whose pace moved between runs: the capture's three timed "
    "blocks took 263-343 ms a step (median 341), the same step interleaved in another process "
    "372-545 ms (median 425), the profiled steps 271-316 ms; the estimate without the profiler, "
    "282 ms, lies inside that spread but 17% under the sidecar's median",
    "zoo/edgenext_healthy/healthy.json.gz": "holdout 61: timm EdgeNeXt-S, host-bound (GPU busy "
    "30.6 of a 51.92 ms synchronised step); the step without the profiler is estimated at 35.57 "
    "ms (80.57 profiled, less 26.5 ms of the profiler's per-op share and 13.2 ms of steps whose "
    "host ran the same ops slower than the fastest step's) against 51.92 ms measured in the same "
    "process and 43.81 ms in another (compile_savings.py's eager timing): the host ran slower "
    "outside the profiler than either allowance assumes",
    # audio_mel_loader/bad's 4 DataLoader workers delivered a batch every ~220 ms under the
    # profiler (182 ms of waiting per step) against 125 ms outside it
    "zoo/audio_mel_loader/bad.json.gz": "holdout 10: the loader's worker processes ran 1.75x slower "
    "under the profiler; the step without it is estimated at 204 ms, 125 ms was measured",
    "zoo/qwen2_lora_healthy/healthy.json.gz": "holdout 9: its synchronised steps took 64-82 ms "
    "(median 75.55) on a host that varied, and a second capture measured 51.4 ms; one of its "
    "three profiled steps ran the same ops 1.31x as long on the host as the fastest, and without "
    "that slowdown and the profiler's cost the step reads 54.9 ms, 27% under the first figure",
    "zoo/resnet18_per_sample_loss/bad.json.gz": "holdout 22: a cross-entropy per sample in a "
    "Python loop, 2,208 kernels a step, a host the profiler slowed more than its highest measured "
    "share allows: profiled steps of 77 ms, the step without the profiler estimated at 43.9 ms, "
    "25.66 ms measured (24.59 and 35.56 in two time_runs.py processes)",
    "zoo/resnet50_detect_anomaly/bad.json.gz": "holdout 23: autograd's anomaly detection on, "
    "its stack capture inside every forward op host time the profiler's callbacks do not grow "
    "with: the step without the profiler is estimated at 59.5 ms against 98.1 profiled and "
    "103.89 measured (70.55 and 76.73 in two time_runs.py processes)",
    "zoo/moe_split_loop/bad.json.gz": "holdout 24: a hand-written MoE's per-expert loop, 192 "
    "small matmuls and their backward a step: profiled steps of 103.3 ms, the step without the "
    "profiler estimated at 59.5 ms, 33.77 measured (43.98 and 33.03 in two time_runs.py "
    "processes)",
    "zoo/swin_b_healthy/healthy.json.gz": "holdout 29: timm Swin-B, 1,179 host-caused gaps a "
    "step under the profiler: profiled steps of about 196 ms, the step without the profiler "
    "estimated at 113 ms at the median share, 72.17 ms measured (89% of it GPU busy): the "
    "profiler took more of this host than the median share says (36% off, the check allows 35)",
    "zoo/shufflenet_loader_workers/bad.json.gz": "holdout 28, captured again in the "
    "forty-fifth session: two DataLoader workers hand over batches in bursts (waits of 0, 265 "
    "and 0 ms in profiled steps of 51.5, 326.8 and 58.0 ms); the median step, which the "
    "summary's figure divides by, shows none of them: 58.05 ms without the profiler against "
    "175.08 ms measured. data_loading's share counts them (the average step with them, 146.4 ms); the "
    "summary's step stays the median",
    "zoo/lstmcell_python_loop/fixed.json.gz": "holdout 34: a cuDNN LSTM language model's 4.34 "
    "ms step (GPU busy 48%) whose host the profiler slowed less than the median share says: "
    "profiled steps of 4.89 ms, the step without the profiler estimated at 2.89 ms (3.75 at the "
    "lowest measured share) against 4.34 measured",
    "zoo/gpt2_eval_logits_to_host/bad.json.gz": "holdout 35: a 206 MB device-to-host copy to "
    "pageable memory every step (190 ms of the 199 ms of GPU time), whose speed moves between "
    "processes: profiled steps of 235.1 ms, the step without the profiler estimated at 213.8 ms, "
    "257.52 ms measured by the sidecar and 198.38 by time_runs.py in another process",
    "zoo/tabular_pandas_loader/bad.json.gz": "holdout 37: a DataLoader reading 1,024 DataFrame "
    "rows with df.iloc in the main process each step, host Python the profiler's per-op cost "
    "does not account for: profiled steps of 319.7 ms, the step without the profiler estimated "
    "at 319.7 ms (317.9 before the loader's unrecorded pandas work was left out of the "
    "profiler's cost) against 179.16 measured (data_loading's share is of that step)",
    "zoo/beit_loss_threshold_check/bad.json.gz": "holdout 52: a per-step truth test of the "
    "loss (one host read a step); profiled steps of 92.5, 71.7 and 76.1 ms, the step without the "
    "profiler estimated at 43.15 ms (about its 39 ms of kernels), 59.36 ms measured: the host "
    "ran slower without the profiler than the median share allows (its miss in the zoo labels)",
    "zoo/efficientnet_loader_workers/bad.json.gz": "holdout 55, captured again in the "
    "forty-fifth session: two augmenting DataLoader workers hand over batches in bursts (waits "
    "of 229, 0 and 212 ms in profiled steps of 294.4, 93.0 and 289.2 ms); the median step, "
    "which the summary's figure divides by, is one of the waiting two: 289.15 ms without the "
    "profiler against 175.75 measured (the other way from shufflenet_loader_workers, whose "
    "median step waited for nothing)",
    "zoo/regnety008_loader_workers4/bad.json.gz": "holdout 71: four JPEG-decoding workers "
    "hand over batches in bursts (waits of 0, 120 and 0 ms in profiled steps of 58.6, 193.1 and "
    "54.6 ms); the median step, which the summary's figure divides by, waited for nothing: "
    "50.33 ms without the profiler against 77.84 measured (its four timed blocks took 40.1 to "
    "81.4 ms a step); data_loading's share counts the waits (the average step with them)",
    "zoo/hgnetv2_healthy/healthy.json.gz": "holdout 67: HF HGNetV2 at batch 128 (1,313 "
    "kernels a step), a host the profiler slowed more than its highest measured share allows: "
    "profiled steps of 88.3 ms, the step without the profiler estimated at 49.9 ms, 31.88 ms "
    "measured (86% of it GPU busy): 36% off, the check allows 35",
    "zoo/cifar_resnet18_precision/fixed.json.gz": "holdout 89: the CIFAR-10 tutorial's loop "
    "in BF16, paced by its two transforming DataLoader workers (one batch kept on the GPU "
    "measured 45.8% shorter): profiled steps of 13.8, 16.9 and 13.8 ms, 14.32 measured outside "
    "the profiler; without the profiler the loop would only wait longer for the loader, but the "
    "estimate takes the profiler's share off the host's work as if that set the step: 8.56 ms",
    "recapture/effnetv2_eval_host_preds/fixed.json.gz": "holdout 11, captured again: in that "
    "lease the run took 26.31 ms synchronised (18.53 on its first capture, and 18.50 for its bad "
    "run the same day) around the same 17.13 ms of kernels; the trace reads 19.2 ms",
}


@pytest.mark.parametrize(
    "trace",
    xfail_listed(
        TRACES, lambda t: f"{t.parents[1].name}/{t.parent.name}/{t.name}", PROFILER_FREE_STEP_OFF
    ),
    ids=lambda p: f"{p.parents[1].name}/{p.parent.name}/{p.name}",
)
def test_achieved_tflops_without_the_profiler_track_the_synchronised_step(trace):
    meta = sidecar(trace)
    step_s = meta.get("step_time_ms", {}).get("median", 0) * 1e-3  # this run's, not a twin's
    if "flops_per_step" not in meta or meta["config"].get("cuda_graph"):
        pytest.skip("no FlopCounterMode count, or a CUDA-graph replay the trace shows no ops of")
    if not recorded_shapes(meta):
        pytest.skip("captured without record_shapes (traces/noshapes): no FLOPs in the trace")
    meta = counted(trace, meta)
    frames = load_trace(trace)
    summary = diagnose(frames, path=str(trace)).summary
    # Against the FLOPs over the synchronised step measured outside the profiler, the figure
    # over the step without the profiler's share is within 35% (the Qwen2 LoRA holdout aside, see
    # PROFILER_FREE_STEP_OFF) and never much further off than the profiled one, which understates by
    # up to 59% here (28% at the median) wherever the profiler slowed the host.
    truth = (meta["flops_per_step"] + beyond_flopcountermode(frames, meta)) / step_s / 1e12
    without = summary.extra["profiler_overhead"]["achieved_tflops_without_profiler_est"]
    profiled_off = abs(summary.achieved_tflops / truth - 1)
    assert abs(without / truth - 1) <= min(0.35, profiled_off + 0.10)


def test_multi_query_sdpa_counts_where_flopcountermode_raised():
    """HF GPTBigCode (holdout 62), 12 layers, 16 query heads sharing one key/value head, 8 x
    2,048 tokens: on the SDPA run FlopCounterMode raised (torch 2.11's SDPA formula refuses a
    key with fewer heads than the query), so its sidecar has no count. The eager-attention run's
    count holds the same products, except that SDPA's backward recomputes the scores (Q @ K^T,
    2·B·H·S²·D a layer), which FlopCounterMode's SDPA formula counts and eager's backward does
    not run."""
    zoo = Path(__file__).resolve().parents[2] / "traces/zoo/gpt_bigcode_eager_attention"
    if not (zoo / "fixed.json.gz").exists():
        pytest.skip("trace not shipped")
    assert sidecar(zoo / "fixed.json.gz")["flops_per_step"] is None
    b, h, s, d, layers = 8, 16, 2048, 64, 12
    recompute = 2 * b * h * s * s * d * layers
    frames = load_trace(zoo / "fixed.json.gz")
    summary = diagnose(frames, path=str(zoo / "fixed.json.gz")).summary
    eager = sidecar(zoo / "bad.json.gz")["flops_per_step"]
    assert summary.flops_per_step == pytest.approx(eager + recompute, rel=0.001)
    assert 0 < summary.mfu_pct < 100


# Grouped-query runs (traces/zoo/NAME/VARIANT) whose sidecar has no count (FlopCounterMode
# raised on their SDPA): each one's matrix weights a token passes through, from its config, and
# its attention as (layers, batch, query heads, tokens, head size).
ERNIE45_03B = (
    18 * (2 * 1024 * 2048 + 2 * 1024 * 256 + 3 * 1024 * 3072) + 1024 * 103424,
    (18, 8, 16, 1024, 128),
)
GQA_CONFIG_ARITHMETIC = {
    # HF Arcee (holdout 67): 24 layers x 2048, 16 query heads over 4 key/value heads of 128, an
    # MLP of 8192 (up and down, no gate), a 32,000-token vocabulary, 8 x 2,048 tokens
    "arcee_healthy/healthy": (
        24 * (2 * 2048 * 2048 + 2 * 2048 * 512 + 2 * 2048 * 8192) + 2048 * 32000,
        (24, 8, 16, 2048, 128),
    ),
    # HF LFM2 (holdout 68): 16 layers x 2048; 10 short-convolution layers (in 2048 -> 6144, out
    # 2048 -> 2048), 6 attention layers (32 query heads over 8 key/value heads of 64); a gated
    # MLP of 8192 in all 16; a 65,536-token vocabulary; 8 x 2,048 tokens
    "lfm2_healthy/healthy": (
        10 * (2048 * 6144 + 2048 * 2048)
        + 6 * (2 * 2048 * 2048 + 2 * 2048 * 512)
        + 16 * 3 * 2048 * 8192
        + 2048 * 65536,
        (6, 8, 32, 2048, 64),
    ),
    # HF SmolLM3 (holdout 70): 18 layers x 2048, 16 query heads over 4 key/value heads of 128, a
    # gated MLP of 11008, a 128,256-token vocabulary, 8 x 2,048 tokens
    "smollm3_healthy/healthy": (
        18 * (2 * 2048 * 2048 + 2 * 2048 * 512 + 3 * 2048 * 11008) + 2048 * 128256,
        (18, 8, 16, 2048, 128),
    ),
    # HF ERNIE 4.5 0.3B (holdout 70): 18 layers x 1024, 16 query heads of 128 (a 2048-wide
    # projection) over 2 key/value heads, a gated MLP of 3072, a 103,424-token vocabulary,
    # 8 x 1,024 tokens; both runs of the pair (their clip differs, not their products)
    "ernie45_clip_nonfinite/bad": ERNIE45_03B,
    "ernie45_clip_nonfinite/fixed": ERNIE45_03B,
    # HF GLM-4 (holdout 71): 6 layers x 4096, 32 query heads over 2 key/value heads of 128 (the
    # projections' biases and the half-width rotary add no products), a gated MLP of 13,696, an
    # untied 151,552-token head, 4 x 2,048 tokens
    "glm4_healthy/healthy": (
        6 * (2 * 4096 * 4096 + 2 * 4096 * 256 + 3 * 4096 * 13696) + 4096 * 151552,
        (6, 4, 32, 2048, 128),
    ),
}


@pytest.mark.parametrize("name", sorted(GQA_CONFIG_ARITHMETIC))
def test_grouped_query_sdpa_counts_the_configs_arithmetic(name):
    """Where FlopCounterMode raised on a grouped-query SDPA (torch 2.11's formula asserts equal
    head counts), the analyzer's count is held to the config: every product three times
    (forward, input and weight gradients) at 2·tokens·in·out, and SDPA at 4·B·Hq·S²·D forward
    and 2.5x that backward (its formula, causal or not)."""
    trace = Path(__file__).resolve().parents[2] / f"traces/zoo/{name}.json.gz"
    if not trace.exists():
        pytest.skip("trace not shipped")
    assert sidecar(trace)["flops_per_step"] is None
    weights, (layers, b, heads, s, d) = GQA_CONFIG_ARITHMETIC[name]
    products = 6 * b * s * weights
    attention = layers * 3.5 * 4 * b * heads * s * s * d
    summary = diagnose(load_trace(trace), path=str(trace)).summary
    # norms, activations, LFM2's depthwise convolutions and the loss add well under 0.1%
    assert summary.flops_per_step == pytest.approx(products + attention, rel=0.001)
    assert 0 < summary.mfu_pct < 100


def test_grouped_expert_products_count_the_configs_arithmetic():
    """HF GraniteMoE (holdout 85: 8 layers x 1024, 8 experts of 512 a token's top 2, 8 x 1,024
    tokens) runs its experts as torch._grouped_mm, which FlopCounterMode does not count: each
    token meets two experts' input (1024 -> 2 x 512) and output (512 -> 1024) products, forward,
    input and weight gradients, whatever the routing."""
    trace = Path(__file__).resolve().parents[2] / "traces/zoo/granitemoe_healthy/healthy.json.gz"
    if not trace.exists():
        pytest.skip("trace not shipped")
    per_step = grouped_mm_flops(load_trace(trace))
    layers, tokens, top_k = 8, 8 * 1024, 2
    per_token = 2 * (1024 * 2 * 512 + 512 * 1024)
    assert per_step == pytest.approx(3 * layers * top_k * tokens * per_token, rel=1e-9)


def test_depthwise_convolutions_count_their_work_not_flopcountermodes():
    """timm ConvMixer-768/32 (holdout 45), batch 64 at 224 x 224: a 7 x 7 stride-7 stem to 768
    channels at 32 x 32, then 32 blocks of a 7 x 7 depthwise and a 1 x 1 convolution, and a
    1000-way head. FlopCounterMode counted 129.0 TFLOP a step (MFU 104%), its depthwise weight
    gradients 768 times over."""
    path = Path(__file__).resolve().parents[2] / "traces/zoo/convmixer_healthy/healthy.json.gz"
    if not path.exists():
        pytest.skip("trace not shipped")
    n, c, hw = 64, 768, 32 * 32
    stem = 2 * n * c * 3 * 7 * 7 * hw
    block = 2 * n * c * 7 * 7 * hw + 2 * n * c * c * hw  # depthwise + pointwise
    head = 2 * n * c * 1000
    # forward; backward: the stem's weight gradient (the images need none), both gradients of
    # each block and of the head
    by_hand = (stem + 32 * block + head) + stem + 2 * (32 * block + head)
    frames = load_trace(path)
    summary = diagnose(frames, path=str(path)).summary
    assert summary.flops_per_step == pytest.approx(by_hand, rel=0.001)
    assert summary.flops_per_step - beyond_flopcountermode(frames) == pytest.approx(
        sidecar(path)["flops_per_step"], rel=0.001
    )
    assert summary.mfu_pct < 10

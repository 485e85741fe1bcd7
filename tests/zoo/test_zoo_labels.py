"""The analyzer against the labels of the model zoo and the demo pairs (benchmarks/zoo/labels.py).

Every captured run: the diagnosis (first finding of severity >= medium) is one of the labelled
kinds, or there is none on a healthy run, and no finding of severity >= medium names a kind the
run does not have. Every bad/fixed pair: the top finding's share of the step is within 15
points of the saving measured on the GPU (sidecars). Known misses are strict xfails, each with
its reason: when one starts passing, the test says so.
"""

from __future__ import annotations

import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT / "benchmarks" / "zoo")]

import accuracy  # noqa: E402
import labels  # noqa: E402
import recapture  # noqa: E402

RUNS = [(s.name, v) for s in labels.ALL for v in s.runs if accuracy.trace_path(s, v).exists()]
PAIRS = [
    s.name
    for s in labels.ALL
    if s.is_pair
    and not s.memory
    and all(accuracy.trace_path(s, v).exists() for v in ("bad", "fixed"))
]

# (scenario, variant) -> why the diagnosis is not yet right
WRONG_TOP: dict[tuple[str, str], str] = {
    ("granitemoe_healthy", "healthy"): "holdout 85: precision high 30.2% on HF GraniteMoE's "
    "FP32 experts (8, top 2; see FALSE_ALARMS), first since holdout 86 taught it the host work "
    "of PyTorch's FP32 grouped-matmul fallback (42.5% measured with the experts in BF16, after "
    "the score); before it, fusion medium 24.8%, its largest chains the loss on FP32 logits "
    "after Granite's logit scaling, where torch.compile(model) measured 8.8% (86.04 -> 78.46 "
    "ms), under the 10% the rule asks",
    ("stablelm_generate_static", "bad"): "holdout 84: small_batch high 96.4% leads a one-prompt "
    "eager decode, launch_overhead high 82.6% second; the rule, written before the run, names "
    "launch_overhead or host_bound as the diagnosis (the fix measured was generate()'s static "
    "cache, its decode as CUDA graphs: 62.0%), small_batch only beside it, though a bigger batch "
    "would save more per prompt (47.6% at 2 prompts, 75.3% at 4, on the static-cache decode)",
    ("bert_eager_attention", "fixed"): "forty-second session: precision medium 10.5% (a false "
    "alarm, see FALSE_ALARMS) is first since fusion fell from medium 18.8% to low 9.8% when a "
    "norm came to end a chain compiled around attention: BERT is post-norm (its output modules "
    "add and norm inside one module without attention, which compiling around attention does "
    "fuse), so the rule under-counts it; torch.compile(model) measured 30.6% on this run",
    ("bert_trim_padding_sync", "bad"): "fifty-sixth session: nothing >= medium, sync_stall "
    "low 18.9% (medium until then): the trace shows 0.2% of the step idle after its reads, so "
    "its cost is the replay's lost lead alone, which the finding now holds low until timed (the "
    "same kind of read in HF Qwen2 measured 2.0% outside the profiler and 19.9% with only the "
    "CUDA activity traced); here transformers' padding check, answered without the read, "
    "measured 11.7-13.4% (hf_check_cost.py), so this one was right. Fusion low 9.0% is under "
    "medium, as on the fixed run",
    ("bert_trim_padding_sync", "fixed"): "forty-second session: nothing >= medium (fusion low "
    "9.6%, sync_stall low 8.6%) where the label wants sync_stall or fusion: fusion was medium "
    "18.2% before a norm came to end a chain compiled around attention, which under-counts "
    "post-norm BERT (torch.compile(model) measured 28.8% on this run; the transformers padding "
    "check's read measured 13.4%)",
    ("vivit_healthy", "healthy"): "holdout 66: fusion high 26.4% (34.2% at first score, before "
    "a norm ended a chain compiled around attention; 813 memory-bound kernels a step in 113 "
    "chains moving 5.8x the bytes fused kernels would) on HF ViViT, where "
    "torch.compile(model) measured 153.8% slower (52.62 -> 133.55 ms), so the rule allows no "
    "fusion. The chains are real: ViViT's config activation is gelu_fast (tanh GELU written out "
    "in elementwise ops); after the score, the modules around attention compiled (what the fix "
    "names where attention runs fused; compile_savings.py --blocks) measured 20.9% and "
    "gelu_pytorch_tanh instead (ab_time.py, study variant gelu_tanh) 21.2%, which the finding "
    "names and prices at 22.7%",
    ("hgnetv2_healthy", "healthy"): "holdout 67: host_bound medium 13.6% (6.76 ms of 506 "
    "short waits a step) on HF HGNetV2 at batch 128, whose synchronised step is 86% GPU busy "
    "(27.38 of 31.88 ms), so the rule allows no host kinds. The profiler slowed this host more "
    "than its highest measured share allows: profiled steps of 88.3 ms, the step without the "
    "profiler estimated at 49.9 ms against 31.88 measured, so the idle left at that share (6.76 "
    "ms) is more than the whole step's idle outside the profiler (4.5 ms)",
    ("pvt_v2_fp32_precision", "bad"): "holdout 61: precision medium 21.5% (41% at the "
    "profiler's median share) on HF PVTv2 in FP32, where BF16 autocast measured 7.0% by the "
    "capture's sidecars (70.88 -> 65.96 ms), under the 10% the rule sets, so the run is labelled "
    "healthy. The BF16 run's host sets its step (GPU busy 58%) and autocast adds 43% more host "
    "ops a step (14,304 against 10,029); the same pair measured 16.2% apart in "
    "compile_savings.py's eager timings and 20-23% the other way interleaved in one process "
    "(ab_time.py, twice): the host's pace, which moved 1.6x between the two captures' "
    "processes, decides it",
    ("ernie_grad_norm_log", "bad"): "holdout 61: host_bound high 41.2% (GPU busy 24%, allowed) "
    "ranks above sync_stall low 8.4% for HF ERNIE's per-parameter .item() (405 syncs a step); "
    "the sidecars measured the stacked read 23.5% faster (42.79 -> 32.74 ms), but interleaved "
    "in one process (ab_time.py, 30 blocks, twice) 8.1% and 8.9%, and in compile_savings.py's "
    "eager timings 2.3%: every host op of the captured bad run ran 1.7x slower than the fixed "
    "run's, the same ops, so the sidecars' gap is mostly the host's pace between processes",
    ("gpt2_generate_no_cache", "bad"): "holdout 60: fusion high 48.0% is first, prefix-recompute "
    "high 43.4% second (24.6% at first score, the host taken at the profiler's low share); both "
    "are true (torch.compile(model) measured 48.3%, the KV cache 52.7%), but the label names "
    "the cache, whose fix removes the very chains fusion would fuse, and findings rank by "
    "promised time alone",
    ("gpt2_ddp_accum_no_sync", "bad"): "fifty-first session: communication low 6.5% first, "
    "where the label wants it medium or high (no_sync measured 11.9%). Its price, the 3 extra "
    "rounds of the DDP reducer's host work, is 50.3 ms a step against 49.2 measured, but the "
    "share is of rank 0's step without the profiler, 768 ms: rank 0 waited in NCCL for rank 1, "
    "whose host the profiler slowed, and that wait stays in its estimate (rank 1's is 493, "
    "the sidecars 414.5)",
    ("vit_ddp_p2p_disabled", "bad"): "holdout 77: fusion medium 10.6%, allowed by the first "
    "--savings reading (compiled 41.6% faster, taken while NCCL's host-memory transport was "
    "still warming up after 3 steps) and not by the second (9.6% slower after 10)",
    ("mamba2_healthy", "healthy"): "holdout 59: fusion high 74.7% where no compile measurement "
    "allows it (see FALSE_ALARMS)",
    ("vit_layer_timing_hooks", "bad"): "holdout 44: per-block CUDA-event timing read in forward "
    "hooks, 12 cudaEventSynchronize a step, measured 17.1% (34.73 -> 28.80 ms); sync_stall, the "
    "fix's kind, says low 9.7% (3.42 ms by replaying the step without the syncs at the median "
    "profiler share, 4.86 at the highest), just under medium: the profiler nearly doubled this "
    "step (62.4 ms profiled) and the replayed host stays at 33.3 ms where the fixed run measured "
    "28.8",
    ("ppo_validate_args", "bad"): "holdout 41: fusion high 33.8% on a PPO update (4.31 ms, GPU "
    "busy 37%) whose label, by its rule, allows fusion only where torch.compile(model) measured "
    ">= 10% faster: compiling the two MLPs measured 21.3% slower. The 11 chains a step are "
    "torch.distributions' Normal log_prob and entropy, the clipped ratio and their backward, "
    "outside the models; compiling the whole step measured 34.9% faster, as fusion says, but "
    "its fix names the model, and nothing in the trace tells the model's ops from the loss's",
    ("ppo_validate_args", "fixed"): "holdout 41: fusion high 36.1% with argument validation off "
    "(3.91 ms); torch.compile(model) measured 43.4% slower, the whole step 33.0% faster: as on "
    "the bad run",
    ("resnet50_gpu_augment_loop", "bad"): "holdout 39: cropping, flipping and scaling 128 "
    "GPU-resident images one at a time in a Python loop (offsets read with .tolist()) measured "
    "20.1% slower than the batched version (43.24 -> 34.54 ms; GPU busy 78%). Under the "
    "profiler the step took 55.5 ms and the idle between the loop's small ops (21.8 ms a step) "
    "is all put down to the profiler's per-op cost, so the step reads 34.8 ms without it and "
    "nothing >= medium is left: fusion low 7.5% comes first",
    ("llama_added_pad_token", "bad"): "holdout 35: padding the 32,001-row vocabulary to 32,064 "
    "measured 19.3% (53.59 -> 43.24 ms) and precision promises 20.6%, but it comes second: "
    "fusion high 34.2% comes first, and torch.compile(model) measured 55.1% faster on this run. "
    "Both are true; the rule names the pair's fix as the top",
    ("regnet_loader_augment", "bad"): "holdout 34: 3 DataLoader workers doing RandAugment per "
    "sample measured 10.7% slower than 14 (96.24 -> 85.90 ms; time_runs.py had the 14-worker run "
    "slower). Under the profiler each step took ~190 ms, long enough for 3 workers to keep the "
    "queue full: __next__ waited 0.1-0.3 ms a step and the loader is invisible. host_bound "
    "medium 20.2% comes first (allowed)",
    ("lstmcell_python_loop", "fixed"): "holdout 34: fusion medium 11.0% on the cuDNN LSTM's 4.3 "
    "ms step (89% of it in the loss); torch.compile measured 14.6% slower on the model and "
    "34.7% slower on the whole step: on a step the host sets (GPU busy 48%) compiling adds "
    "more host time than the fused loss saves",
    ("mha_need_weights", "bad"): "holdout 33: nn.MultiheadAttention called with need_weights "
    "left True runs matmul, softmax, matmul; need_weights=False measured 26.5% (43.76 -> 32.16 "
    "ms; 11.0% by time_runs.py). eager-attention finds it (384x256x256 scores, 9.03 ms of "
    "kernels a step against ~2.57 fused) but says low 9.1% (14% if the GPU set the step): the "
    "step the host may set (GPU busy 71%) bounds the promise",
    ("vit_compiled_item_hook", "bad"): "holdout 33: a compiled ViT-S whose per-block hook reads "
    ".item() (a graph break and a host read in each of 12 blocks); writing a GPU buffer "
    "instead measured 35.1% (46.01 -> 29.88 ms; 31.1% by time_runs.py). host_bound medium 23.2% "
    "comes first (allowed); sync_stall says low 5.7%: the graph breaks' host cost is no sync's",
    ("vit_s32_eager_attention", "bad"): "holdout 32: timm ViT-S/32 (50 tokens) with attention "
    "as matmul, softmax, matmul: SDPA measured 17.0% (25.88 -> 21.49 ms; 29.7% in a second "
    "timing) on a step the host sets (GPU busy 68%). host_bound medium 16.2% comes first "
    "(allowed, not the fix measured); eager-attention gives low 8.6%: 1.25 ms of GPU time and "
    "3.08 ms of host dispatch a step, the host's part counted only up to the idle it leaves at "
    "the profiler's highest share, as fusion counts it",
    ("vit_b16_eager_attention", "bad"): "holdout 30: timm ViT-B/16 with attention as matmul, "
    "softmax, matmul (fused_attn off): scaled_dot_product_attention saved 33.7% of the step "
    "(40.57 -> 26.88 ms). At the first score nothing >= medium (fusion saw 2.3%: no detector "
    "knew the class); eager-attention, written after it, gives low 8.6%: 14.81 ms of attention "
    "kernels a step against ~3.8 ms fused (24.9% of the step if the GPU set it), but the host "
    "read from this capture (77.9 ms traced, 44.3 ms at the profiler's low share, against 40.57 "
    "measured) may set the step, so the promise is what the host allows",
    ("gpt2_grad_checkpointing", "bad"): "holdout 30: fusion high 45.4% comes first (allowed: "
    "torch.compile measured 48.3% on the fixed run) before recompute medium 24.9% (37.5% "
    "measured); the rule written before capture named recompute alone as the diagnosis",
    ("swin_b_healthy", "healthy"): "holdout 29: host_bound medium 13.2% on timm Swin-B, 1,179 "
    "host-caused gaps a step (the largest before the optimizer's step), promised at the "
    "profiler's highest share; the synchronised step measured 72.17 ms around 63.99 of kernels "
    "(89% busy), so at most 11.3% of it was idle at all, and the label rule (busy >= 80%: no "
    "host_bound) makes any host_bound >= medium a false alarm",
    ("mlp_policy_cudagraph", "fixed"): "holdout 22: the graphed MLP (0.306 ms a step, 512 "
    "samples) is labelled small_batch by the rule written before capture (8192 samples ran 16x "
    "faster per sample eagerly); small_batch says ~62% but low: a CUDA graph replay records no "
    "input shapes, and grids under the SM count may be narrow layers rather than a small batch, "
    "so without shapes it stays low by design",
    ("llama_fp32_precision", "bad"): "holdout 21: BF16 autocast saved 35.8% of HF Llama's FP32 "
    "step (49.01 -> 31.47 ms; 42.4% and 40.7% in two time_runs.py processes), and precision is "
    "only low 7.0% (30.3% at the median share): its kernels would lose 34.9 ms a step, but its "
    "host bound takes the host's work at the profiler's low share, 44.9 ms a step against a "
    "step of 48.3 estimated without the profiler, where the BF16 run's whole step measured "
    "31.47. The fourth GPU-bound FP32 run (with BERT-base, ViT-S and Swin-T) whose profiled host "
    "the low share reads too slow",
    ("swin_t_fp32_precision", "bad"): "holdout 20: BF16 autocast + channels_last saved 43.4% of "
    "torchvision Swin-T's FP32 step (77.65 -> 43.95 ms); precision says low 9.1% (31.8% at the "
    "median share), under fusion's medium 11.5%. Its host bound takes the host's work at the "
    "profiler's low share, 71.2 ms a step against a GPU busy 76.4, where the BF16 run's whole "
    "step measured 43.95",
    ("bert_fp32_loss_checks", "bad"): "holdout 19: BF16 autocast saved 32.1% of HF BERT-base's "
    "FP32 step (61.02 -> 41.41 ms), and precision is only low: its kernels would lose 49.6 "
    "ms a step, but its host bound takes the host's work at the profiler's low share (0.24), "
    "where the profiled host fills the step (57.4 ms of work against 58.2 estimated without "
    "the profiler), so it promises 1.3% (reported low, with 22% at the median share as the upper "
    "end). The median share as the promise would put a medium 24% on the sync demo's fixed run, "
    "which BF16 made 12.5% slower",
    ("vit_activation_monitor", "bad"): "holdout 18: a forward hook per ViT-S block reading "
    "abs-max with .item() cost 18.2% (34.14 -> 27.94 ms; 15.4% by time_runs.py); sync_stall "
    "says low 7.4%. The replay with the reads runs 33.14 ms (34.14 measured), without them 30.90 "
    "(27.94 measured, GPU busy 26.11): the host it replays is slower than the real one, which "
    "without the reads kept ahead of the GPU. At the profiler's highest share it says 3.27 ms, "
    "still half the 6.2 ms measured; the code before f33b29b promised the same 2.24 ms",
    ("resnet50_ohem_host_topk", "bad"): "holdout 15: the losses read on the host once a step "
    "(hard-example mining by numpy argsort) cost 13.3% of the step against torch.topk by the "
    "sidecars (7.1% by time_runs.py in the same lease). The replay first priced the read at "
    "0.1 ms a step: it kept the copy of the chosen indices back up, a pageable copy that waits "
    "for the stream as well, as memcpy's. With that copy taken as part of the read "
    "(facts.answer_trips) sync_stall promises 9.0%, low, and nothing reaches medium",
    ("bert_mlm_masked_select", "fixed"): "holdout 16: fusion medium 11.5% (22.1% before a norm "
    "ended a chain compiled around attention; BERT's output modules add and norm inside one "
    "module, so that rule under-counts post-norm blocks), and torch.compile of the encoder and head measured -18.9% (33.00 -> 39.24 ms). A "
    "compiled capture shows 28.66 ms of kernels a step against 28.88 eager: Inductor split "
    "SDPA (an explicit mask when compiled) into FP32 matmuls and softmax kernels, about 5 ms "
    "a step where the fused attention took 1.5, and the compiled step idles more besides",
    ("beit_loss_threshold_check", "bad"): "holdout 52: `if loss.detach() < 1e-3` every step "
    "measured 12.1% (59.36 -> 52.17 ms) and no sync_stall finding is made (2.1 ms of idle a "
    "step after the read): the analyzer puts the step at 43.15 ms without the profiler (76.05 "
    "ms profiled, about 39 ms of kernels), so a host that must refill the queue after the read "
    "reads as fast enough to hide it, where the synchronised step says the host was slower "
    "(the fixed run's GPU busy 79% of 52.17 ms). fusion high 26.1% comes first (compile "
    "measured 15.9%)",
    ("nanogpt_generate_eos_item", "bad"): "holdout 56: reading each sampled character with "
    ".item() measured 11.1% slower than no read in the capture's sidecars (337.78 vs 300.19 ms; "
    "24.6% in a first capture), so the label is sync_stall; the analyzer sees 6.1 ms a step of "
    "idle after the reads and leads with small_batch (allowed: batch 2 measured 49.7% less per "
    "prompt). After the score time_runs.py --repeat 3 measured the read 313.67/354.16/390.52 "
    "ms against 347.25/484.51/479.48 without it: the host's pace from process to process, not "
    "the read, made the label's 11.1%",
    ("reformer_healthy", "healthy"): "holdout 56: precision high 52.2%: 74% of its FLOPs run "
    "FP32 in the backward of Reformer's reversible-layer autograd Function, which runs outside "
    "autocast. Labelled healthy by the rule written before the run; decorating that Function "
    "with torch.amp.custom_fwd/custom_bwd measured 47.4% faster after the score "
    "(reformer_autocast_backward), and the finding now names that fix",
    ("qwen3_compiled_causal_mask", "bad"): "holdout 73: dense-causal-mask medium 23.1% on HF "
    "Qwen3 compiled whole at 2 x 4,096 tokens; the pair's fix (each decoder layer compiled) "
    "measured 7.3% by the sidecars, so by the rule the run is healthy. Interleaved in one process "
    "it measured 21.1%, and the fix the finding leads with (the whole model compiled, SDPA given "
    "no mask) 28.1%: the rule did not let those decide",
    ("nystromformer_healthy", "healthy"): "holdout 56: fusion high 35.8% at first score, eager "
    "attention that was Nystromformer's landmark kernels and their pseudo-inverse (not attention "
    "SDPA computes: now left out); fusion medium 15.7% from its chains remains, and "
    "torch.compile(model) failed on it, so no measurement allows fusion",
    ("lightning_resnet50_precision", "bad"): "holdout 95: precision medium 33.5% on ResNet-50 "
    "in FP32 through Lightning; the pair's fix, Lightning's precision='bf16-mixed' alone, "
    "measured 9.2% (8.7% and 9.0% again), so by the rule the run is healthy. After the score "
    "BF16 with channels_last, which the finding's fix names, measured 49.8% (62.42 -> 31.34 ms, "
    "two fresh processes): a true finding, 16 points under; autocast alone left batch norm on "
    "PyTorch's NCHW kernels (55% of the GPU time), which the fix now says",
}
FALSE_ALARMS: dict[tuple[str, str], str] = {
    ("switch_moe_healthy", "healthy"): "holdout 92: fusion medium 22.1% (its fix says most of it "
    "is host dispatch, 51.7 ms against 16.5 ms of kernel time) on SwitchTransformers at "
    "switch-base-8 sizes, whose experts run in a Python loop over boolean masks that read the GPU "
    "92 times a step (expert-loop, medium 19.7%); torch.compile(model) measured 5.6% slower with "
    "15 graph breaks. By the rule, written before the run, it is a false alarm. Compile measured "
    ">= 10% on 32 of the 36 runs where fusion >= medium was mostly host dispatch, so that alone "
    "is no sign; the FP32 MoE runs (GraniteMoE, Mixtral, OLMoE) are the other fusion alarms on "
    "experts",
    ("granitemoe_healthy", "healthy"): "holdout 85: fusion medium 24.8% (see WRONG_TOP) and "
    "sync_stall medium 11.1% (low since the fifty-sixth session: no GPU idle after them) on "
    "96 reads a step of group offsets to the host, all inside "
    "torch._grouped_mm on FP32 inputs (the experts' weights are FP32 and grouped_mm is no "
    "autocast op, so PyTorch's fallback runs one FP32 product per expert). After the score the "
    "experts cast to BF16 measured 42.5% less time a step (ab_time.py, 86.12 -> 49.52 ms, study "
    "variant bf16_experts), the reads and the FP32 products gone; precision, whose gate then "
    "learnt to count FP32's share of matrix kernel time (80%) beside its share of FLOPs (19.6%), "
    "said medium 16.3% and named the experts, and says high 30.2% since it counts the host work "
    "the fallback's per-expert loop costs (holdout 86). By the rule, written before the run, "
    "both left >= medium are false alarms",
    ("mixtral_fp32_experts", "bad"): "holdout 86: fusion medium 13.9% beside precision high "
    "53.0% (the top, right) on HF Mixtral with FP32 weights under BF16 autocast, where "
    "torch.compile(model) measured 7.2% (154.05 -> 142.89 ms), under the rule's 10%: compiled, "
    "the FP32 experts' fallback (its kernels 67.8% of the GPU time) stays as it is",
    ("olmoe_fp32_experts", "bad"): "holdout 86: fusion medium 19.7% beside precision high 42.1% "
    "(the top, right; fusion was the top at first score, when precision said low 7.5%) on HF "
    "OLMoE with FP32 weights under BF16 autocast, where torch.compile(model) measured 9.95% "
    "(135.23 -> 121.77 ms), under the rule's 10%",
    ("vivit_healthy", "healthy"): WRONG_TOP[("vivit_healthy", "healthy")],
    ("pvt_v2_fp32_precision", "bad"): WRONG_TOP[("pvt_v2_fp32_precision", "bad")],
    ("hgnetv2_healthy", "healthy"): WRONG_TOP[("hgnetv2_healthy", "healthy")],
    ("bert_eager_attention", "fixed"): "twenty-seventh session: precision medium 10.5% for "
    "BERT's 30,522-row vocabulary (5.81 ms of GPU time a step); padding it measured 5.8%, 8.8% "
    "and 9.9% faster in separate processes (pad_vocab_savings.py) and 10.7% interleaved in one "
    "(ab_time.py), a median under the 10% a medium needs. The time promised matches (3.6-6.7 ms "
    "measured); the share is of the step estimated without the profiler (55.6 ms), shorter than "
    "the synchronised one (62.4)",
    ("swin_b_healthy", "healthy"): WRONG_TOP[("swin_b_healthy", "healthy")],
    ("bert_mlm_masked_select", "fixed"): WRONG_TOP[("bert_mlm_masked_select", "fixed")],
    ("lstmcell_python_loop", "fixed"): WRONG_TOP[("lstmcell_python_loop", "fixed")],
    ("ppo_validate_args", "bad"): WRONG_TOP[("ppo_validate_args", "bad")],
    ("ppo_validate_args", "fixed"): WRONG_TOP[("ppo_validate_args", "fixed")],
    ("gpt2_cpu_offload_adam", "bad"): "holdout 49: sync_stall medium 22.6% for the idle after "
    "the gradients' blocking copies to the host, which is the CPU optimizer's own time (AdamW "
    "on 124M FP32 parameters in host memory, 85 ms a step of GPU idle): no read to remove "
    "there, the fix is the optimizer back on the GPU (85.6% measured)",
    ("qwen2_fp32_lm_head", "bad"): "holdout 50: fusion medium 12.7%, 36% of it in the loss on "
    "FP32 logits; the rule's measurement compiled the decoder alone (8.0%, under 10%); the whole "
    "step compiled, loss included, measured 16.8% after the score",
    ("convnext_save_on_cpu", "fixed"): "holdout 51: fusion medium on ConvNeXt-T at batch 32 "
    "(GPU busy 61%), where torch.compile(model) measured 8.4% faster",
    ("bigbird_healthy", "healthy"): "holdout 53: fusion medium 18.6% on HF BigBird's "
    "block-sparse attention (3,047 memory-bound kernels a step in 643 chains, the GPU busy 51% "
    "of the synchronised step), 44.5 ms a step of it the host's dispatch; torch.compile(model) "
    "measured 13.8% slower with 14 graph breaks, which a trace of the eager step cannot show",
    ("reformer_healthy", "healthy"): "holdout 56: precision high on the reversible layers' "
    "FP32 backward (see WRONG_TOP): by the rule a false alarm, by the measurement after the "
    "score (47.4%) a true finding",
    ("nystromformer_healthy", "healthy"): "holdout 56: fusion medium 15.7% where "
    "torch.compile(model) failed (see WRONG_TOP)",
    ("mamba2_healthy", "healthy"): "holdout 59: fusion high 74.7% on HF Mamba2's PyTorch "
    "reference scan (no mamba_ssm), where torch.compile(model) did not finish within the lease, "
    "then failed in Inductor's Triton codegen (InductorError), so no measurement allows it; 92% "
    "of its GPU time is aten::mul and aten::sum, 48 multiplies a step materialising products 64-256x the size of either input only to sum them (what "
    "torch.einsum does without the product)",
    ("qwen3_compiled_causal_mask", "bad"): WRONG_TOP[("qwen3_compiled_causal_mask", "bad")],
    ("vit_ddp_p2p_disabled", "bad"): WRONG_TOP[("vit_ddp_p2p_disabled", "bad")],
    ("gpt2_ddp_accum_no_sync", "fixed"): "holdout 76: fusion medium 16.9% on HF GPT-2 medium "
    "under DDP, host-bound (compute kernels busy 35% of the synchronised step); DDP with "
    "torch.compile(model) measured 1.8% slower (1.3% faster after 10 warm-up steps), so no measurement allows it",
    ("simclr_ntxent_loop", "bad"): "holdout 58: fusion high 34.2% on SimCLR's per-anchor "
    "NT-Xent loop (61.9 of the 67.2 ms a step it promises is the host's dispatch of the loop's "
    "compiling the model does not reach), so no measurement allows it",
    ("trainer_gpt2_nan_filter", "bad"): "holdout 93: precision medium 21.8% for GPT-2's "
    "50,257-wide vocabulary (not a multiple of 8: the LM head's products run on align1 CUTLASS "
    "kernels at 122 TFLOP/s against 680 for the rest), a false alarm by the rule written before "
    "the run (no measurement allowed it); after the score pad_vocab_savings.py measured the "
    "vocabulary padded to 50,304 at 21.6% shorter steps (68.89 -> 54.00 ms): a true finding",
    ("trainer_gpt2_nan_filter", "fixed"): "holdout 93: the same precision medium as the bad "
    "run's; padding measured 17.8% (61.17 -> 50.27 ms) after the score",
    ("lightning_resnet50_precision", "bad"): WRONG_TOP[("lightning_resnet50_precision", "bad")],
}
SAVING_OFF = {
    "stablelm_generate_static": "holdout 84: launch_overhead promises 82.6% (the step as one "
    "CUDA graph would run it, all host dispatch gone) where generate()'s static cache measured "
    "62.0% by the sidecars (69.3% interleaved): its compiled decode graphs the model's forward "
    "only, and the eager prefill and generate()'s loop around the forward (2,004 kernels a step "
    "launched one by one in the fixed trace) stay",
    "maxvit_checkpointing": "holdout 82: recompute promises 58.2% where the sidecars measured "
    "37.4% (179.33 -> 112.18 ms; 20.7 points over). The host sets the step (GPU busy 42%); the "
    "recompute nodes took 108.1 ms of host a profiled step and the fix saved 67.1 ms outside "
    "the profiler (0.62x), where the four non-reentrant calibration models and the other seven "
    "zoo pairs saved 0.76-1.31x (benchmarks/checkpoint_share.py). MaxViT's recompute nodes "
    "record 8,302 ops a step (1,944-5,208 in the other zoo pairs); the trace does not say how much of their "
    "time the profiler added",
    "qwen3_compiled_causal_mask": "holdout 73: dense-causal-mask promises 23.1% where the "
    "sidecars measured 7.3% for compiling each decoder layer (15.7 points; 21.1% interleaved, "
    "2.0 points; see WRONG_TOP)",
    "ernie_grad_norm_log": "holdout 61: sync_stall promises 8.4% where the sidecars measured "
    "23.5% (15.0 points); interleaved in one process the fix measured 8.1% and 8.9% (see "
    "WRONG_TOP)",
    "resnet50_sgd_per_param": "holdout 53: the capture's sidecars measured SGD(foreach=False) "
    "-> foreach 26.96 -> 27.40 ms (1.6% slower), so the rule holds launch_overhead's 23.8% to "
    "0; after the score time_runs.py --repeat 3 measured 30.14 -> 24.00 ms at the median "
    "(20.4%) and a loop without the profiler 33.96 -> 28.00 (17.6%): the host's pace from "
    "process to process, not the analyzer, is off here",
    "gpt2_cpu_offload_adam": "holdout 49: moving a hand-offloaded AdamW back to the GPU measured "
    "85.6% (375.01 -> 53.85 ms); the top finding, memcpy high, prices the 296 blocking pageable "
    "copies a step at 54.6%, and the CPU optimizer's time between them went to sync_stall "
    "(22.6%): memcpy's fix says the optimizer runs on the CPU, but no estimate prices the "
    "copies and the optimizer's host time as one fix",
    "gpt2_all_ones_mask": "holdout 47: dropping GPT-2's all-ones attention_mask measured 5.6%; "
    "its rule holds the pair to the bad run's first finding, fusion high 46.5%, which is what "
    "fusing the whole step promises (torch.compile(model) measured 52.7%), not the mask's cost",
    "gpt2_manual_label_smoothing": "holdout 45: replacing GPT-2's hand-written label smoothing "
    "(an FP32 one-hot over 50,304 tokens times the log-softmax) with "
    "F.cross_entropy(label_smoothing=0.1) measured 8.8% (64.03 -> 58.37 ms); the rules held the "
    "pair to fusion's share, 52.1%, which is the whole step's fusing (torch.compile of the model "
    "alone measured 34.3%): the GPU time it would save drops by 4.8 ms from the bad run to the "
    "fixed one, about the 5.7 ms measured, but only 3.4 ms of it is read as the loss's, since a "
    "hand-written loss has no cross_entropy op to be known by",
    "resnet50_state_dict_to_cpu": "holdout 42: copying ResNet-50's state_dict to host memory "
    "every step measured 37.3% (50.65 -> 31.74 ms); memcpy, the fix's kind, promises 15.9% and "
    "sync_stall, first, 22.3%: the copies' cost split two ways",
    "vit_llrd_param_groups": "holdout 40: giving ViT-B's 152 parameters 28 AdamW groups (one "
    "per depth and weight-decay setting) instead of one each measured 35.9% (65.90 -> 42.21 "
    "ms); launch_overhead, naming the groups, promises 11.5% (the optimizer kernels' excess and "
    "the launch-bound idle at the profiler's highest share), host_bound 14.4%. At the median "
    "profiler share the step reads 64.5 ms with 28.4 ms of host-caused idle; at the highest "
    "share 11.8 ms: the profiler's share of a host this busy decides the promise",
    "resnet50_gpu_augment_loop": WRONG_TOP[("resnet50_gpu_augment_loop", "bad")],
    "shufflenet_loader_workers": "holdout 28, captured again in the forty-fifth session: "
    "twelve DataLoader workers against two measured 79.1% (interleaved 84.3%); data_loading "
    "promises 60.4%, the waits a share of the average step with them (146.4 ms). The two "
    "workers hand over batches in pairs, a long wait every other step, and the three steps held "
    "one (0, 265 and 0 ms), too few to read the workers' pace from, and short of the sidecar's "
    "175.08 ms; the first capture's three held one of 143 ms (71.5% measured, 54.5% "
    "promised)",
    "t5_adafactor_foreach": "holdout 36: launch_overhead promises 25.4% for "
    "torch.optim.Adafactor(foreach=True) against transformers' per-parameter loop; the sidecars "
    "measured 8.8% (99.91 -> 91.09 ms), time_runs.py 28.7% (100.84 -> 71.87) and ab_time.py, "
    "both in one process, 11.2% (paired blocks -9.0% to 23.5%): this host-bound step (GPU busy "
    "31%) moves between processes by more than the fix saves, and the pair is scored on the "
    "sidecars",
    "lstmcell_python_loop": "holdout 34: nn.LSTM measured 86.1% against a Python loop over "
    "nn.LSTMCell; launch_overhead (the fix's kind) promises 25.8% and host_bound 31.4% for the "
    "same per-op host work: the profiler's per-op cost lifts most of the loop's gaps over the "
    "40 µs a launch that tells launching from other host work. Splitting on the time net of "
    "that cost made launch_overhead promise 83.0% here but moved the top finding of 42 other "
    "runs (its CUDA-graph estimate up to 72% on healthy ones; two new false alarms): not kept",
    "mha_need_weights": "holdout 33: eager-attention promises 9.1% where need_weights=False "
    "measured 26.5%; see WRONG_TOP",
    "vit_compiled_item_hook": "holdout 33: sync_stall promises 5.7% where the GPU buffer "
    "measured 35.1%; see WRONG_TOP",
    "vit_b16_eager_attention": "holdout 30: eager-attention promises 8.6% (24.9% if the GPU set "
    "the step) where scaled_dot_product_attention measured 33.7%; see WRONG_TOP",
    "fcn_host_miou": "holdout 28: counting each step's predictions on the host (argmax copied "
    "down through pageable memory, 12.7 ms a step at 1.3 GB/s, then numpy's bincount while the "
    "GPU waits) measured 45.1% against counting on the GPU. One read split two ways: since the "
    "twenty-eighth session's exemption of host stretches of 10 ms or more with no recorded op "
    "(numpy's bincount) from the profiler's per-op cost, sync_stall comes first at 27.9% (the "
    "wait after the copy) and memcpy second at 19.9% (the copy); before it, memcpy 23.0% and "
    "sync_stall 10.6%",
    "llama_fp32_precision": "holdout 21: precision promises 7.0% where BF16 measured 35.8%; see "
    "WRONG_TOP",
    "swin_t_fp32_precision": "holdout 20: precision promises 9.1% where BF16 measured 43.4%; "
    "see WRONG_TOP",
    "bert_fp32_loss_checks": "holdout 19: precision promises 1.3% (low; 22% at the median share) where "
    "BF16 measured 32.1%; see WRONG_TOP",
    "vit_fp32_activation_monitor": "holdout 19: BF16 autocast saved 45.8% of timm ViT-S/16's "
    "FP32 step (62.05 -> 33.61 ms); precision promises 23.5% (medium, first): its host bound "
    "takes the host at the profiler's low share (43.2 ms a step); at the median share it "
    "would promise 43%",
    "gpt2_clip_sync": "holdout 9: dropping clip_grad_norm_'s non-finite check measured 18.9%; "
    "the replay gives 10.1% at the profiler's median share of host time and 3.0% at the "
    "highest, where the host outruns the GPU after the sync, and sync_stall promises the "
    "smaller (on the recapture, 13.4% and 9.5% against 10.1% measured)",
    "t5_compile": "holdout 2: torch.compile saved 47.4% of eager T5; fusion predicts 26.3%. Its "
    "GPU is busy 77% of the step, so the host's work bounds the promise, and only hand-written "
    "chains count on the host; compile's own host saving there is not modelled. Its SDPA with "
    "a position bias runs the math path, whose batched matmuls run in FP32 (3.3 ms a step), "
    "which no fusion estimate covers",
    "moe_split_loop": "holdout 24: torch._grouped_mm saved 40.7% of the hand-written MoE's "
    "per-expert loop by the sidecars (33.77 -> 20.02 ms; 54.0% and 40.6% by time_runs.py); "
    "expert-loop promises 58.0%. The step without the profiler reads 59.5 ms against 33.8-44.0 "
    "measured, and the promise (down to the GPU's 25.0 ms, which grouped GEMMs cut to 17.8) is "
    "a share of that step: the profiler's cost on this loop's ops is above the highest share "
    "measured. First score (before the rule counted gate and up projections on the same rows): "
    "9.9%",
    "lstm_lm_batch": "holdout: batch 8 -> 128 measured 83.3% faster per sample; small_batch "
    "promises 65.7%. Its first profiled step ran the same ops 1.30x as long on the host as the "
    "fastest (facts.SLOWED_HOST_RATIO is 1.25), so the step without the profiler and that "
    "slowdown reads 22.9 ms where 27.1 ms was measured; small_batch's share of a shorter step is "
    "smaller (69.1% before the slowdown was taken out)",
    "swin_t_compile": "holdout 2: torch.compile saved 50.3% of eager Swin-T (GPU time 68.0 -> "
    "33.1 ms a step); fusion predicts 28.1% (29.4 ms of GPU time at each chain's own bandwidth "
    "and no faster than its longest kernel; a fused kernel at the trace's 90th-percentile "
    "bandwidth would give 42%, but over-promised on other runs)",
    "resnet50_detect_anomaly": "holdout 23: turning autograd's anomaly detection off saved "
    "80.8% (103.89 -> 19.97 ms; 77.7% and 74.0% by time_runs.py); host_bound promises 22.3% "
    "(first), sync_stall 21.1% (its fix names anomaly detection), launch_overhead 4.8%: one "
    "cause split three ways, as on mixtral_moe_experts before expert-loop. And the step without the profiler reads "
    "59.5 ms against 98.1 profiled and 70.6-103.9 measured: the profiler's cost is taken as a "
    "share of the host's time per op, and anomaly mode's stack capture inside every forward op "
    "is host time the profiler's callbacks do not grow with",
    "gpt_head_modules": "holdout 56: one projection and SDPA over all heads in place of the "
    "lecture's Head modules measured 78.5% (82.66 -> 17.77 ms; 71.4% in the compile "
    "measurement's eager timings); eager attention, which now recognises heads run one at a "
    "time, promises 51.8% (18.9% at first score): the host's saving is held to the GPU's idle at "
    "the profiler's highest share, and the fix also cut the GPU's kernels from 19.0 to 7.4 ms",
    "simclr_ntxent_loop": "holdout 58: the loss as one similarity matrix measured 78.5% (162.44 "
    "-> 34.94 ms); the rules, written before the run, named host_bound as the pair's fix kind, "
    "whose finding promises 20.1% (the idle between ops the host's other work leaves); the top "
    "finding, launch_overhead high, promises 68.6% for the same fix (9.9 points off)",
    "lightning_resnet50_precision": "holdout 95: Lightning's bf16-mixed alone measured 9.2%; "
    "precision promises 33.5% for BF16 with channels_last, which measured 49.8% after the score "
    "(see WRONG_TOP)",
}


@cache
def scored(name: str, variant: str) -> accuracy.RunScore:
    return accuracy.score_run(labels.BY_NAME[name], variant)


def _mark(key, table):
    return pytest.mark.xfail(strict=True, reason=table[key]) if key in table else ()


@pytest.mark.parametrize(
    "name,variant", [pytest.param(n, v, marks=_mark((n, v), WRONG_TOP)) for n, v in RUNS]
)
def test_top_finding_is_right(name, variant):
    r = scored(name, variant)
    assert r.top_ok, (r.label_top, r.top_kind, r.findings)


@pytest.mark.parametrize(
    "name,variant", [pytest.param(n, v, marks=_mark((n, v), FALSE_ALARMS)) for n, v in RUNS]
)
def test_no_false_alarm(name, variant):
    r = scored(name, variant)
    assert r.false_alarms == [], r.findings


@pytest.mark.parametrize("name", [pytest.param(n, marks=_mark(n, SAVING_OFF)) for n in PAIRS])
def test_predicted_saving_within_15_points_of_measured(name):
    pair = accuracy.score_pair(labels.BY_NAME[name], scored(name, "bad"))
    assert pair.error_points is not None and pair.error_points <= 15, pair


# (scenario, variant) of a recaptured run -> why its diagnosis is not yet right there
RECAPTURE_WRONG = {
    ("resnet50_ohem_host_topk", "bad"): "as on its first capture (WRONG_TOP): sync_stall low "
    "9.4%. torch.topk measured 8.7% faster in this lease (37.51 -> 34.26 ms), under the 10% that "
    "the rule written before the first capture sets for a sync_stall diagnosis: by that rule "
    "this recapture's bad run is healthy, and nothing >= medium is what it should get",
    ("gpt2_adamw_foreach", "bad"): "host_bound medium 11.4%, which its label (written for the "
    "first capture, GPU busy 30 of a 33.15 ms synchronised step) does not allow; in this lease "
    "the same step took 49.95 ms synchronised (40.7 to 60.3 over its blocks) around the same 30 "
    "ms of kernels, so the GPU idled 39% of it, which the zoo's later rule (GPU busy under 80% of "
    "the synchronised step) would label host_bound-allowed",
}
RECAPTURE_SAVING_OFF = {
    "efficientnet_precision": "recaptured: BF16 + channels_last measured 46.3% in this lease "
    "(53.6% on the first capture, promised 47.5% there); precision promises 61.7% (42.1 ms of "
    "GPU time a step), 15.4 points off, since grouped convolutions count per group (49.8% "
    "while FlopCounterMode's overcount made the depthwise convolutions read as compute, so "
    "their FP32 time was judged closer to what BF16 would take). Depthwise convolutions are "
    "memory bound: a FLOP rate prices their BF16 time too low",
    "mha_need_weights": "holdout 33: eager-attention promises 9.1% where need_weights=False "
    "measured 26.5%; see WRONG_TOP",
    "vit_compiled_item_hook": "holdout 33: sync_stall promises 5.7% where the GPU buffer "
    "measured 35.1%; see WRONG_TOP",
    "roberta_skip_nonfinite": "holdout 17, recaptured: the read-free run measured 21.1% faster "
    "in this lease (44.98 -> 35.51 ms) against 7.8% slower on the first capture; time_runs.py "
    "had spread 1.0% to 22.1% over four processes of the first lease. sync_stall sees nothing "
    "(the replay's saving is 0.1 ms): this host-bound step's time moves between processes by "
    "more than the read can cost",
    "lstm_lm_batch": "as on its first capture (SAVING_OFF): small_batch 64.1% against 81.6%",
    "gpt2_empty_cache": "dropping empty_cache measured 38.7% faster in this lease (53.44 -> "
    "32.74 ms) against 19.9% on the first capture (52.89 -> 42.38); memory_capacity promises "
    "16.4% (15.7% on the first)",
}


@pytest.mark.parametrize(
    "name,variant",
    [pytest.param(n, v, marks=_mark((n, v), RECAPTURE_WRONG)) for n, v in recapture.runs()],
)
def test_a_run_captured_again_keeps_its_diagnosis(name, variant):
    """The same runs captured in a later lease (traces/recapture/), with new profiler, host and
    timing noise: the top finding is still right and nothing >= medium names a kind the label
    lacks."""
    r = recapture.score(name, variant)
    assert r.top_ok and r.false_alarms == [], r.findings


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=_mark(n, RECAPTURE_SAVING_OFF)) for n in recapture.pairs()]
)
def test_a_pair_captured_again_is_predicted_within_15_points(name):
    pair = recapture.score_pair(name)
    assert pair.error_points is not None and pair.error_points <= 15, pair


NOSHAPES = recapture.ROOT / "traces" / "noshapes"
# Runs captured without record_shapes (traces/noshapes/, an H200 lease of 2026-11-26) whose
# diagnosis or promise misses, and why.
NOSHAPES_WRONG: dict = {}
NOSHAPES_SAVING_OFF = {
    "mha_need_weights": "holdout 33: eager-attention promises 9.1% where need_weights=False "
    "measured 26.5%; see WRONG_TOP",
    "vit_compiled_item_hook": "holdout 33: sync_stall promises 5.7% where the GPU buffer "
    "measured 35.1%; see WRONG_TOP",
    "llama_fp32_precision": "precision 61.9% against 30.5% measured: the BF16 step is host-bound "
    "(launch_overhead high on the fixed run) and autocast's casts, which the promise does not "
    "price, add host work; with shapes, on an H100, the same pair read 7.0% against 35.8%",
}


WITHSTACK = recapture.ROOT / "traces" / "withstack"
# Runs captured with with_stack=True (traces/withstack/, the Python tracer on as the PyTorch
# profiler recipe has it; an H200 lease of 2026-11-26, scored before any change) whose diagnosis
# or promise misses, and why.
WITHSTACK_WRONG = {
    ("resnet50_precision", "bad"): "nothing >= medium: precision finds no saving, since the "
    "host's own work, read from a traced step of 53.5 ms (the Python tracer's cost in it), comes "
    "to the GPU's 31.4 ms at both the lowest and the median profiler share; BF16 measured 31.0% "
    "faster (32.41 -> 22.38 ms), so the host really did about 21 ms, a profiler share near 0.6. "
    "The FP32 precision misses of the zoo (WRONG_TOP) are the same unknown host",
    ("resnet50_precision", "fixed"): "host_bound medium 13.6%, which its label (written for the "
    "H100 capture, GPU busy 94% of the step) does not allow; on this H200 the BF16 step's "
    "kernels took 15.25 of its 22.38 synchronised ms (68%), which the zoo's later rule (GPU busy "
    "under 80% of the step) would label host_bound-allowed",
}
WITHSTACK_SAVING_OFF = {
    "mha_need_weights": "holdout 33: eager-attention promises 9.1% where need_weights=False "
    "measured 26.5%; see WRONG_TOP",
    "vit_compiled_item_hook": "holdout 33: sync_stall promises 5.7% where the GPU buffer "
    "measured 35.1%; see WRONG_TOP",
    "resnet50_precision": "precision promises nothing against 31.0% measured (WITHSTACK_WRONG)",
    "gpt2_adamw_foreach": "launch_overhead 46.1% at the profiler's median share, 20.9% at its "
    "highest (the title gives both), against 16.0% measured; the first capture measured "
    "12.6%, the recapture 35.2%",
    "vit_step_timer_sync": "dropping the synchronize() measured 17.6% faster in this capture "
    "(29.73 -> 24.51 ms) and 1.6% (25.24 -> 24.83) in one ten minutes before it in the same "
    "lease (its traces lost: too large to bring back in one file); nothing >= medium is "
    "promised, as on the first capture (10.0% measured)",
}
DEFAULTS = recapture.ROOT / "traces" / "defaults"
# Runs captured with the profiler's defaults (traces/defaults/: no record_shapes, no
# profile_memory; two H200s of one lease, 2026-12-01, scored before any change) whose diagnosis
# or promise misses, and why. The profiler's share of host time there: 0.45 at the median over
# the 16 runs whose host sets the step in both captures, 0.48 for the same runs in the zoo
# (`python benchmarks/profiler_share.py --dir traces/defaults`).
DEFAULTS_WRONG = {
    ("gpt2_adamw_foreach", "bad"): "host_bound medium 13.2%, which its label (written for the "
    "first capture, GPU busy 92% of the step) does not allow; in this capture the step took "
    "52.03 ms synchronised around 25.5 ms of kernels (GPU busy 49%), which the zoo's later rule "
    "(GPU busy under 80%) would label host_bound-allowed (as in traces/recapture)",
}
DEFAULTS_SAVING_OFF = {
    "resnet50_precision": "precision 52.9% against 24.9% by the sidecars (32.01 -> 24.05 ms) "
    "and 36.2% interleaved (ab_time.py, 12 blocks: 32.04 -> 20.45 ms, blocks 22.4-46.9%); the "
    "lease's first capture, whose traces did not come back, measured 8.4% (32.07 -> 29.38). "
    "The BF16 + channels_last step is host-bound on this host (GPU busy 63%), with 44% more host "
    "ops a step than the FP32 run (3,618 against 2,506: autocast's casts), which the promise "
    "does not price",
    "gpt2_fp32_precision": "precision 73.8% against 57.3% by the sidecars (86.03 -> 36.77 ms); "
    "interleaved 67.6% (85.94 -> 27.83 ms, blocks 61.8-70.4%), within 15 points: the BF16 run's "
    "synchronised step moved from 25.41 to 36.77 ms between the lease's two captures",
    "gpt2_gelu_fusion": "fusion 13.5% against 33.8% by the sidecars (38.43 -> 25.45 ms); "
    "interleaved 15.2% (30.52 -> 25.87 ms, blocks -2.4% to 46.4%), within 15 points; the bad "
    "run measured 30.13 ms in the lease's first capture",
}
# Labelled runs captured again with other profiler settings, and what each set misses.
OTHER_SETTINGS = {
    "without record_shapes": (NOSHAPES, NOSHAPES_WRONG, NOSHAPES_SAVING_OFF),
    "with with_stack": (WITHSTACK, WITHSTACK_WRONG, WITHSTACK_SAVING_OFF),
    "with the profiler's defaults": (DEFAULTS, DEFAULTS_WRONG, DEFAULTS_SAVING_OFF),
}


@pytest.mark.parametrize(
    "root,name,variant",
    [
        pytest.param(root, n, v, marks=_mark((n, v), wrong), id=f"{root.name}-{n}-{v}")
        for root, wrong, _ in OTHER_SETTINGS.values()
        for n, v in recapture.runs(root)
    ],
)
def test_a_run_captured_with_other_profiler_settings_keeps_its_diagnosis(root, name, variant):
    """Labelled runs captured again without record_shapes (no FLOPs, bytes or input types:
    precision and fusion read kernel names and times), with with_stack (the Python tracer's
    cost in every host span) or with the profiler's defaults (no shapes and no memory events
    either): the diagnosis stays right."""
    r = recapture.score(name, variant, root)
    assert r.top_ok and r.false_alarms == [], r.findings


@pytest.mark.parametrize(
    "root,name",
    [
        pytest.param(root, n, marks=_mark(n, off), id=f"{root.name}-{n}")
        for root, _, off in OTHER_SETTINGS.values()
        for n in recapture.pairs(root)
    ],
)
def test_a_pair_captured_with_other_profiler_settings_is_predicted_within_15_points(root, name):
    pair = recapture.score_pair(name, root)
    assert pair.error_points is not None and pair.error_points <= 15, pair


def test_zoo_has_what_the_issue_asks_for():
    zoo = [s for s in labels.ZOO if any(accuracy.trace_path(s, v).exists() for v in s.runs)]
    assert len(zoo) >= 12
    healthy = [
        (s.name, v) for s in zoo for v, run in s.runs.items() if run.healthy and not run.allowed
    ]
    assert len(healthy) >= 4, healthy


@pytest.mark.parametrize("run", sorted(labels.COMPILE_SAVING_PCT))
def test_compile_measurements_agree_with_the_fusion_labels(run):
    """A run allows fusion exactly where torch.compile(model) measured >= 10% faster every time
    (COMPILES_FASTER); the table names only labelled runs, and a pair built as eager vs compiled
    (llama_compile, swin_t_compile, t5_compile) records the pair's own measured saving."""
    name, variant = run.split("/")
    scenario = labels.BY_NAME[name]
    measured = labels.COMPILE_SAVING_PCT[run]
    fast = min(measured) >= labels.CONDITIONAL_MIN_SAVING_PCT
    assert ("fusion" in scenario.runs[variant].acceptable()) == fast, measured
    if name.endswith("_compile"):
        pair = accuracy.score_pair(scenario, scored(name, "bad"))
        assert measured == (round(pair.measured_saving_pct, 1),), pair

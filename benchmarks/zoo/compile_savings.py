"""What torch.compile saves on zoo runs: the measured answer that fusion's estimate is held to.

    python benchmarks/zoo/compile_savings.py vit_b16_healthy resnet50_precision:fixed ...
    python benchmarks/zoo/compile_savings.py --model-only vit_b16_healthy ...
    python benchmarks/zoo/compile_savings.py --blocks llama_long_context_healthy ...
    python benchmarks/zoo/compile_savings.py --layers llama_long_context_healthy ...
    python benchmarks/zoo/compile_savings.py --causal [--model-only] gpt2_compiled_train ...
    python benchmarks/zoo/compile_savings.py --timeout 560 --model-only mamba_scan_batch:fixed

For each NAME[:VARIANT] (variant defaults to the scenario's first run), in its own process: build
the run's step (benchmarks/zoo/scenarios.py), time it eagerly outside the profiler (3 warm-up
steps, then blocks of steps between synchronisations, as the capture sidecars do), then wrap the
whole step in torch.compile (default mode; the backward and optimizer stay eager or are compiled
as Dynamo decides), warm it up (that compiles) and time it again. Prints one JSON line per run and
a table last. Zoo pairs built as eager vs torch.compile(model) (llama_compile, swin_t_compile,
t5_compile) measure the same thing with the model alone compiled; --model-only measures that
on the other runs: the step is built twice, as captured and with scenarios.COMPILE_MODEL set
(the builders then call torch.compile(model) inside the same step), each timed the same way.
--blocks does the same with scenarios.COMPILE_BLOCKS: every submodule outside attention compiled,
attention left eager (what fusion's fix says to do where compiled attention runs slower).
--layers does the same with scenarios.COMPILE_LAYERS: each layer of the model's layer lists
compiled (attention inside), the model's own forward eager.
--causal times a compiled HF decoder as captured (with --model-only: the whole model compiled),
then again with transformers' SDPA attention handed no mask, so it runs is_causal=True: traced
by Dynamo, transformers materialises the causal mask, and fused attention reads it in full where
is_causal would skip the masked half. Only for runs with no padding, where the mask is causal alone.
--timeout S: seconds each run may take, compiling included (default 400); a run past it is not
measured. HF Funnel took 282 s of compiling alone, and HF Mamba's slow path more than 400.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]


def _sdpa_without_mask() -> None:
    """Leave transformers' "sdpa" attention with no mask function, so it builds no mask and SDPA
    runs with is_causal (the module's own flag: True in a decoder's self-attention): what
    registering sdpa_attention_forward under a name of its own and setting the model's
    attn_implementation to it does (dense-causal-mask's fix)."""
    from transformers.masking_utils import AttentionMaskInterface

    AttentionMaskInterface._global_mapping.pop("sdpa", None)


def measure(name: str, variant: str, how: str) -> dict:
    import scenarios
    import torch

    from bottleneck_lab.capture import TimingSettings, time_steps

    # --causal --model-only: the "before" side is the whole model compiled too
    scenarios.COMPILE_MODEL = how == "model+causal"
    built = scenarios.BUILDERS[name](variant)
    timing = TimingSettings(min_seconds=1.0)
    steps = built.timed_steps
    for _ in range(built.warmup_steps):
        built.step()
    eager = time_steps(built.step, "cuda", steps, timing)["step_time_ms"]["median"]
    if how in ("model", "blocks", "layers", "causal", "model+causal"):
        del built
        torch.cuda.empty_cache()
        if how.endswith("causal"):
            torch._dynamo.reset()
            _sdpa_without_mask()
        else:
            scenarios.COMPILE_MODEL = how == "model"
        scenarios.COMPILE_BLOCKS = how == "blocks"
        scenarios.COMPILE_LAYERS = how == "layers"
        compiled_built = scenarios.BUILDERS[name](variant)
        compiled_step = compiled_built.step
    else:
        compiled_built, compiled_step = built, torch.compile(built.step)
    t0 = time.perf_counter()
    for _ in range(scenarios.WARMUP_STEPS):
        compiled_step()
    torch.cuda.synchronize()
    compile_s = time.perf_counter() - t0
    for _ in range(compiled_built.warmup_steps - scenarios.WARMUP_STEPS):
        compiled_step()
    compiled = time_steps(compiled_step, "cuda", steps, timing)["step_time_ms"]["median"]
    # graph breaks leave eager Python (and its host cost) between compiled graphs
    from torch._dynamo.utils import counters

    breaks = sum(counters["graph_break"].values())
    return {
        "run": f"{name}/{variant}",
        "eager_ms": round(eager, 3),
        "compiled_ms": round(compiled, 3),
        "saving_pct": round(100 * (1 - compiled / eager), 1),
        "compiled": how,
        "compile_s": round(compile_s, 1),
        "graph_breaks": int(breaks),
        "torch": torch.__version__,
        "device": torch.cuda.get_device_name(),
    }


def main() -> int:
    import labels
    from isolated import result_of

    if len(sys.argv) == 5 and sys.argv[1] == "--one":
        row = measure(sys.argv[2], sys.argv[3], sys.argv[4])
        print("RESULT " + json.dumps(row), flush=True)
        return 0
    args = sys.argv[1:]
    modes = {"--model-only": "model", "--blocks": "blocks", "--layers": "layers"}
    how = next((modes[a] for a in args if a in modes), "step")
    if "--causal" in args:
        how = "model+causal" if how == "model" else "causal"
    timeout = 400.0
    if "--timeout" in args:
        at = args.index("--timeout")
        timeout = float(args[at + 1])
        del args[at : at + 2]
    args = [a for a in args if a not in (*modes, "--causal")]
    rows = []
    for arg in args:
        name, _, variant = arg.partition(":")
        variant = variant or next(iter(labels.BY_NAME[name].runs))
        row = result_of(__file__, [name, variant, how], arg, timeout=timeout)
        if row is not None:
            rows.append(row)
    # --causal: "eager" is the run compiled as captured, "compiled" the same with is_causal
    print(f"\n{'run':<36}{'eager ms':>10}{'compiled ms':>13}{'saving':>8}{'compile s':>11}")
    for r in rows:
        print(
            f"{r['run']:<36}{r['eager_ms']:>10.2f}{r['compiled_ms']:>13.2f}"
            f"{r['saving_pct']:>7.1f}%{r['compile_s']:>11.0f}"
        )
    return 0 if len(rows) == len(args) else 1


if __name__ == "__main__":
    sys.exit(main())

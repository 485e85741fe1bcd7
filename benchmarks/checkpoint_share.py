"""How much of activation checkpointing's host cost the profiler adds, on models no label uses.

    python benchmarks/checkpoint_share.py --out DIR       # on a GPU: capture and time
    python benchmarks/checkpoint_share.py --read DIR      # anywhere: the table

The recompute finding prices turning checkpointing off partly from host time the trace records:
the backward nodes that re-ran forward work (memory.recompute's node_host_us) and the forward
ops' extra time under checkpoint's saved-tensor hooks (memory.forward_hook_us). Both are
profiled times. What the profiler added to them is not the median share of ordinary op time
(facts.PROFILER_SHARE_OF_HOST_OP): checkpointing's host cost is mostly Python the profiler records
no op for (pack and unpack hooks, the recompute's bookkeeping).

For each calibration model (none of them a zoo scenario: holdouts calibrate nothing) this builds
the model twice, checkpointed and not, at a batch small enough that the host sets the step;
captures each with bottleneck_lab.capture (sidecar + trace); then times both in one process,
their blocks interleaved (ABAB...), since a host's pace moves between processes by more than
the saving. `--read` prints, per model,

    share = 1 - (unprofiled step, checkpointed - not) / (profiled step, checkpointed - not)

and the unprofiled saving against the host time the recompute finding reads from the
checkpointed trace alone (its node time plus the forward hooks', before any profiler share),
and the time a step that finding now promises. The profiled-step differences are noisy (each
variant is profiled at its own moment), so the ratio, read against interleaved timings, is what
sets the estimate. Measured on an H200 (captures committed in traces/calibration/checkpointing):

    model                   ckpt ms plain ms  unprofiled +ms  node ms fwd hooks saving/read promised ms
    mixer_s16                 27.80    13.82           13.98    11.78      0.15        1.17       12.00
    resnet26d                 40.27    18.46           21.81    11.72      4.89        1.31       16.61
    swin_tiny                 92.73    46.60           46.13    30.85      8.65        1.17       39.52
    roberta_nonreentrant      40.34    22.12           18.21    17.57      2.62        0.90       20.19
    roberta_reentrant         30.23    20.70            9.53    12.14      0.00        0.78        6.96
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks" / "zoo")]

BLOCKS = 12


def _timm(name: str, batch: int):
    def build(checkpointed: bool):
        import scenarios

        return scenarios._timm_checkpointing(name, batch, checkpointed)

    return build


def _roberta(reentrant: bool):
    def build(checkpointed: bool):
        import scenarios
        import torch
        from transformers import RobertaConfig, RobertaForMaskedLM

        torch.manual_seed(0)
        cfg = RobertaConfig(
            hidden_size=512, num_hidden_layers=6, num_attention_heads=8, intermediate_size=2048
        )
        model = RobertaForMaskedLM(cfg)
        if checkpointed:
            model.gradient_checkpointing_enable(
                gradient_checkpointing_kwargs={"use_reentrant": reentrant}
            )
        model.train()
        ids = torch.randint(3, cfg.vocab_size, (8, 128), device="cuda")
        built = scenarios._hf_train(
            torch,
            model,
            lambda m: m(input_ids=ids, labels=ids).loss,
            8,
            {"model": "roberta 6 x 512 (config)", "tokens": 8 * 128},
        )
        built.config["gradient_checkpointing"] = checkpointed
        built.config["use_reentrant"] = reentrant
        return built

    return build


CALIBRATION = {
    "mixer_s16": _timm("mixer_s16_224", 16),
    "resnet26d": _timm("resnet26d", 16),
    "swin_tiny": _timm("swin_tiny_patch4_window7_224", 8),
    "roberta_nonreentrant": _roberta(False),
    "roberta_reentrant": _roberta(True),
}


def capture_all(out: Path, only: list[str]) -> None:
    import scenarios
    import torch
    from ab_time import block_ms

    results = {}
    for name in only:
        runs = {}
        for variant in ("checkpointed", "plain"):
            built = CALIBRATION[name](variant == "checkpointed")
            scenarios.capture_built(built, name, variant, out / name)
            runs[variant] = built
        ms = {v: [] for v in runs}
        for _ in range(BLOCKS):
            for variant, built in runs.items():
                ms[variant].append(block_ms(built.step, 10))
        results[name] = {v: statistics.median(m) for v, m in ms.items()}
        print(name, {v: round(x, 2) for v, x in results[name].items()}, flush=True)
        del runs
        torch.cuda.empty_cache()
    (out / "interleaved.json").write_text(json.dumps(results, indent=1))


def read(out: Path) -> None:
    import numpy as np

    from bottleneck_lab import memory
    from bottleneck_lab.detectors import recompute
    from bottleneck_lab.trace.load import load_trace

    timed = json.loads((out / "interleaved.json").read_text())
    print(
        f"{'model':<22}{'ckpt ms':>9}{'plain ms':>9}{'profiled +ms':>13}{'unprofiled +ms':>15}"
        f"{'share':>7}{'node ms':>9}{'fwd hooks':>10}{'saving/read':>12}{'promised ms':>12}"
    )
    shares = []
    for name, ms in timed.items():
        prof = {}
        for variant in ("checkpointed", "plain"):
            frame = load_trace(out / name / f"{variant}.json.gz")[0]
            prof[variant] = float(np.median(frame.steps["dur"])) / 1e3
            if variant == "checkpointed":
                rc = memory.recompute(frame)
                n = max(len(frame.steps), 1)
                node = sum(s.node_host_us for s in rc.steps) / n / 1e3
                hooks = memory.forward_hook_us(frame) / 1e3
                (finding,) = recompute.detect(frame, recompute.Config())
                promised = finding.time_lost_us_per_step / 1e3
        extra_prof = prof["checkpointed"] - prof["plain"]
        extra = ms["checkpointed"] - ms["plain"]
        share = 1 - extra / extra_prof if extra_prof > 0 else float("nan")
        if name != "roberta_reentrant":
            shares.append(share)
        ratio = extra / (node + hooks) if node + hooks > 0 else float("nan")
        print(
            f"{name:<22}{ms['checkpointed']:>9.2f}{ms['plain']:>9.2f}{extra_prof:>13.2f}"
            f"{extra:>15.2f}{share:>7.2f}{node:>9.2f}{hooks:>10.2f}{ratio:>12.2f}{promised:>12.2f}"
        )
    print(f"\nnon-reentrant models: median share {statistics.median(shares):.2f}")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, help="capture and time into this directory (GPU)")
    p.add_argument("--read", type=Path, help="print the table from a captured directory")
    p.add_argument("--only", default=",".join(CALIBRATION))
    args = p.parse_args()
    if args.out:
        capture_all(args.out, args.only.split(","))
    if args.read:
        read(args.read)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""What padding the vocabulary saves on zoo runs of HF models: the measured answer that
precision's misaligned-matmul estimate is held to.

    python benchmarks/zoo/pad_vocab_savings.py bert_inference_healthy gpt2_eval_logits_to_host:fixed

For each NAME[:VARIANT] (variant defaults to the scenario's first run), in its own process each
way: build the run's step (benchmarks/zoo/scenarios.py) as captured, and again with every HF
model's token embedding (and tied or untied LM head) padded to a multiple of 64 rows as it is
built (resize_token_embeddings(pad_to_multiple_of=64, mean_resizing=False) after each
PreTrainedModel's post_init); time each outside the profiler (3 warm-up steps, then blocks of
steps between synchronisations for at least 2 s, as the capture sidecars do). Prints one JSON
line per run and a table last. The inputs keep their token ids: the extra rows are never
looked up, only computed, as in a padded vocabulary.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]


def pad_every_vocabulary() -> None:
    from transformers import PreTrainedModel

    post_init = PreTrainedModel.post_init

    def padded(self, *args, **kwargs):
        post_init(self, *args, **kwargs)
        try:
            rows = self.get_input_embeddings().weight.shape[0]
        except (NotImplementedError, AttributeError):
            return  # no token embedding (a vision model)
        if rows % 64:
            self.resize_token_embeddings(rows, pad_to_multiple_of=64, mean_resizing=False)

    PreTrainedModel.post_init = padded


def time_one(name: str, variant: str, pad: bool) -> dict:
    import scenarios

    from bottleneck_lab.capture import TimingSettings, time_steps

    if pad:
        pad_every_vocabulary()
    built = scenarios.BUILDERS[name](variant)
    for _ in range(built.warmup_steps):
        built.step()
    ms = time_steps(built.step, "cuda", built.timed_steps, TimingSettings(min_seconds=2.0))
    return {"run": f"{name}/{variant}", "padded": pad, "ms": round(ms["step_time_ms"]["median"], 3)}


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="*", help="NAME[:VARIANT]")
    p.add_argument("--one", default=None, help=argparse.SUPPRESS)
    p.add_argument("--pad", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        print(json.dumps(time_one(*args.one.split(":"), args.pad)), flush=True)
        return 0
    import labels

    rows = []
    for run in args.runs:
        name, _, variant = run.partition(":")
        variant = variant or next(iter(labels.BY_NAME[name].runs))
        ms = {}
        for pad in (False, True):
            cmd = [sys.executable, __file__, "--one", f"{name}:{variant}"] + (
                ["--pad"] if pad else []
            )
            out = subprocess.run(cmd, capture_output=True, text=True, check=False)
            line = next((x for x in out.stdout.splitlines() if x.startswith("{")), None)
            if line is None:
                print(f"--- {name}/{variant} padded={pad} failed:\n{out.stderr[-2000:]}")
                continue
            print(line, flush=True)
            ms[pad] = json.loads(line)["ms"]
        rows.append((f"{name}/{variant}", ms.get(False), ms.get(True)))
    print(f"\n{'run':<40}{'as built ms':>12}{'padded ms':>11}{'saving':>8}")
    for run, plain, padded in rows:
        saving = f"{100 * (1 - padded / plain):.1f}%" if plain and padded else "-"
        print(f"{run:<40}{plain or float('nan'):>12.2f}{padded or float('nan'):>11.2f}{saving:>8}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

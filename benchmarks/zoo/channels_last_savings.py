"""What channels_last saves on zoo runs of convolutional nets: the measured answer that
precision's layout estimate is held to.

    python benchmarks/zoo/channels_last_savings.py NAME[:VARIANT] ...

For each NAME[:VARIANT], each way in its own process: build the run's step
(benchmarks/zoo/scenarios.py) as captured, and again with every module that holds a 2-D
convolution put in channels_last as it is moved to the GPU (Module.to / Module.cuda patched:
the model's 4-D weights channels_last, so cuDNN picks channels_last from the first convolution
on); time each outside the profiler (the builder's warm-up steps, then blocks of steps between
synchronisations for at least 1 s, as the capture sidecars do). Prints one JSON line per run and
a table last.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]


def channels_last_on_move() -> None:
    import torch

    to = torch.nn.Module.to

    def wrap(move):
        def moved(self, *args, **kwargs):
            out = move(self, *args, **kwargs)
            if any(isinstance(m, torch.nn.Conv2d) for m in out.modules()):
                to(out, memory_format=torch.channels_last)
            return out

        return moved

    torch.nn.Module.to = wrap(to)
    torch.nn.Module.cuda = wrap(torch.nn.Module.cuda)


def measure(name: str, variant: str, channels_last: bool) -> float:
    import scenarios

    from bottleneck_lab.capture import TimingSettings, time_steps

    if channels_last:
        channels_last_on_move()
    built = scenarios.BUILDERS[name](variant)
    for _ in range(built.warmup_steps):
        built.step()
    timed = time_steps(built.step, "cuda", built.timed_steps, TimingSettings(min_seconds=1.0))
    return timed["step_time_ms"]["median"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", metavar="NAME[:VARIANT]")
    ap.add_argument("--timeout", type=int, default=200)
    ap.add_argument("--one", help=argparse.SUPPRESS)  # NAME:VARIANT:0|1, in this process
    args = ap.parse_args()
    if args.one:
        name, variant, cl = args.one.split(":")
        print(json.dumps({"ms": measure(name, variant, cl == "1")}))
        return 0
    import labels

    rows = []
    for run in args.runs:
        name, _, variant = run.partition(":")
        variant = variant or next(iter(labels.BY_NAME[name].runs))
        ms = []
        for cl in ("0", "1"):
            try:
                out = subprocess.run(
                    [sys.executable, __file__, "--one", f"{name}:{variant}:{cl}", run],
                    capture_output=True,
                    text=True,
                    timeout=args.timeout,
                    check=True,
                ).stdout
                ms.append(json.loads(out.strip().splitlines()[-1])["ms"])
            except (subprocess.SubprocessError, ValueError, IndexError) as e:
                why = getattr(e, "stderr", "") or ""
                print(
                    f"{name}:{variant} channels_last={cl}: {type(e).__name__} {why[-600:]}",
                    file=sys.stderr,
                )
                ms.append(None)
        saving = 100 * (1 - ms[1] / ms[0]) if None not in ms else None
        row = {
            "run": f"{name}/{variant}",
            "as_captured_ms": ms[0],
            "channels_last_ms": ms[1],
            "saving_pct": None if saving is None else round(saving, 1),
        }
        print(json.dumps(row), flush=True)
        rows.append(row)
    for r in rows:
        print(
            f"{r['run']:45s} {r['as_captured_ms']} -> {r['channels_last_ms']}  {r['saving_pct']}%"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

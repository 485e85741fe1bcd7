"""Time zoo runs outside the profiler, each in its own process, as often as asked: how much a
run's synchronised step varies from process to process (and machine to machine).

    python benchmarks/zoo/time_runs.py gpt2_clip_sync:bad gpt2_clip_sync:fixed --repeat 3

For each NAME:VARIANT, in order, `repeat` times over: build the run's step
(benchmarks/zoo/scenarios.py), 3 warm-up steps, then blocks of steps between synchronisations
for at least 2 s (bottleneck_lab.capture.time_steps, as the capture sidecars do). One line per
run: median, min and max step in ms.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parents[1])]


def time_one(name: str, variant: str) -> None:
    import scenarios

    from bottleneck_lab.capture import TimingSettings, time_steps

    built = scenarios.BUILDERS[name](variant)
    for _ in range(built.warmup_steps):
        built.step()
    ms = time_steps(built.step, "cuda", built.timed_steps, TimingSettings(min_seconds=2.0))
    ms = ms["step_time_ms"]
    print(f"{name}:{variant} median {ms['median']:.2f} min {ms['min']:.2f} max {ms['max']:.2f} ms")


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("runs", nargs="*", help="NAME:VARIANT")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--one", default=None, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.one:
        time_one(*args.one.split(":"))
        return 0
    for _ in range(args.repeat):
        for run in args.runs:
            subprocess.run([sys.executable, __file__, "--one", run], check=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())

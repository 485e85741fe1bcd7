"""Labelled runs captured again in a later lease (traces/recapture/), scored against their labels
exactly as benchmarks/accuracy.py scores the originals: a run captured afresh has new profiler,
host and timing noise, and its pair a newly measured saving, so a rule that held by luck on the
first capture can fail here.

    python benchmarks/recapture.py
    python benchmarks/recapture.py --dir traces/noshapes   # captured without record_shapes

For each run: the top finding (>= medium), whether it is right, any false alarm (a finding
>= medium of a kind the label does not allow), and the step without the profiler against the
sidecar's synchronised median step; for each pair captured whole, the fix's finding's share
against the saving measured in the new capture. They calibrate nothing.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks"), str(ROOT / "benchmarks" / "zoo")]

import accuracy  # noqa: E402
import labels  # noqa: E402

from bottleneck_lab import facts  # noqa: E402
from bottleneck_lab.trace.load import load_trace  # noqa: E402

RECAPTURES = ROOT / "traces" / "recapture"


def runs(root: Path = RECAPTURES) -> list[tuple[str, str]]:
    """(scenario, variant) of every recaptured run."""
    return [
        (p.parent.name, p.name.removesuffix(".json.gz")) for p in sorted(root.glob("*/*.json.gz"))
    ]


def pairs(root: Path = RECAPTURES) -> list[str]:
    """Scenarios whose bad and fixed runs were both recaptured."""
    names = {n for n, _ in runs(root)}
    return sorted(
        n
        for n in names
        if labels.BY_NAME[n].is_pair
        and not labels.BY_NAME[n].memory
        and all((root / n / f"{v}.json.gz").is_file() for v in ("bad", "fixed"))
    )


def score(name: str, variant: str, root: Path = RECAPTURES) -> accuracy.RunScore:
    return accuracy.score_run(labels.BY_NAME[name], variant, root)


def score_pair(name: str, root: Path = RECAPTURES) -> accuracy.PairScore:
    return accuracy.score_pair(labels.BY_NAME[name], score(name, "bad", root), root)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dir", type=Path, default=RECAPTURES, help="the captures to score")
    root = p.parse_args().dir
    print(f"{'run':<38}{'top finding (>= medium)':<32}{'ok':<4}{'false alarms':<22}", end="")
    print(f"{'sync ms':>9}{'est ms':>9}")
    right = alarms = 0
    for name, variant in runs(root):
        r = score(name, variant, root)
        right += r.top_ok
        alarms += len(r.false_alarms)
        path = root / name / f"{variant}.json.gz"
        sync = json.loads(path.with_name(f"{variant}.meta.json").read_text())["step_time_ms"]
        est = facts.step_time_without_profiler_us(load_trace(path)[0]) / 1e3
        top = f"{r.top_kind} {r.top_severity} {r.top_share_pct}" if r.top_kind else "-"
        print(f"{name + '/' + variant:<38}{top:<32}{'y' if r.top_ok else 'N':<4}", end="")
        print(f"{','.join(r.false_alarms) or '-':<22}{sync['median']:>9.2f}{est:>9.2f}")
    print(f"\n{'pair':<26}{'measured saving':>16}{'predicted':>11}{'error pts':>11}")
    within = 0
    for name in pairs(root):
        p = score_pair(name, root)
        within += p.error_points is not None and p.error_points <= 15
        print(f"{name:<26}{p.measured_saving_pct:>15.1f}%{p.predicted_saving_pct:>10.1f}%", end="")
        print(f"{p.error_points:>11.1f}")
    print(
        f"\ntop finding right: {right}/{len(runs(root))} runs; false alarms (>= medium): "
        f"{alarms}; predicted saving within 15 points: {within}/{len(pairs(root))} pairs"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

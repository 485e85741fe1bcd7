"""How right is the analyzer? Scores every labelled run of the zoo and the seven demo pairs.

    python benchmarks/accuracy.py                 # table on stdout
    python benchmarks/accuracy.py --json out.json # also the rows as JSON
    python benchmarks/accuracy.py --no-shapes     # as if captured without record_shapes=True

For each run (labels in benchmarks/zoo/labels.py, traces in traces/zoo and traces/h100):
  top ok       the first finding of severity >= medium has one of the labelled top kinds
               (a healthy run: there is none)
  false alarms findings of severity >= medium whose kind the run does not have
For each bad/fixed pair: the predicted saving (share_pct of the bad run's top finding) against
the measured saving, 1 - fixed/bad synchronised time per sample from the capture sidecars (the
finding of the fix's kind where the label allows several kinds first; no such finding predicts
0%; where the fix measured slower, 0% is the right promise) (memory pairs: peak memory saved,
against no time estimate).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "benchmarks" / "zoo"), str(ROOT)]

import labels  # noqa: E402

from bottleneck_lab.analyze import diagnose  # noqa: E402
from bottleneck_lab.trace.load import load_trace  # noqa: E402

SERIOUS = ("medium", "high")


def trace_path(scenario: labels.Scenario, variant: str, root: Path | None = None) -> Path:
    """The run's trace (a file, or a directory of per-rank files) under traces/zoo or
    traces/h100, or under `root` (a second capture: traces/recapture)."""
    if root is None:
        root = ROOT / "traces" / ("zoo" if scenario.source == "zoo" else "h100")
    base = root / scenario.name
    d = base / variant
    return d if d.is_dir() else base / f"{variant}.json.gz"


def captured_runs():
    """(scenario, variant, label, trace path) for each labelled run whose trace is on disk (a
    file, or a directory of per-rank files)."""
    for scenario in labels.ALL:
        for variant, run in scenario.runs.items():
            path = trace_path(scenario, variant)
            if path.exists():
                yield scenario, variant, run, path


def _metas(path: Path) -> list[dict]:
    files = (
        sorted(path.glob("*.meta.json"))
        if path.is_dir()
        else [path.with_name(path.name.removesuffix(".json.gz") + ".meta.json")]
    )
    return [json.loads(f.read_text()) for f in files if f.is_file()]


def time_per_sample_ms(path: Path) -> float | None:
    """Synchronised step time per sample; over ranks, the slowest (it sets the pace)."""
    vals = [m["step_time_ms"]["median"] / max(m.get("batch_size") or 1, 1) for m in _metas(path)]
    return max(vals) if vals else None


def peak_bytes(path: Path) -> float | None:
    vals = [m.get("max_memory_allocated_bytes") for m in _metas(path)]
    vals = [v for v in vals if v]
    return max(vals) if vals else None


@dataclass
class RunScore:
    scenario: str
    variant: str
    label_top: list[str] | None
    top_kind: str | None
    top_severity: str | None
    top_share_pct: float | None
    top_ok: bool
    false_alarms: list[str]
    findings: list[str]
    fix_share_pct: float | None = None  # share of the first serious finding of the fix's kind


@dataclass
class PairScore:
    scenario: str
    memory: bool
    measured_saving_pct: float | None
    predicted_saving_pct: float | None
    error_points: float | None


def without_shapes(frames: list) -> list:
    """The frames as a capture without record_shapes=True gives them: no input dims, types or
    concrete inputs on any op."""
    for f in frames:
        f.cpu_ops[["input_dims", "input_type", "concrete_inputs"]] = None
    return frames


def score_run(
    scenario: labels.Scenario, variant: str, root: Path | None = None, shapes: bool = True
) -> RunScore:
    label = scenario.runs[variant]
    path = trace_path(scenario, variant, root)
    frames = load_trace(path)
    d = diagnose(frames if shapes else without_shapes(frames), path=str(path))
    serious = [f for f in d.findings if f.severity in SERIOUS]
    top = serious[0] if serious else None
    if label.healthy:
        top_ok = top is None or top.kind in label.allowed
    elif scenario.memory:
        top_ok = any(f.kind in label.top for f in serious)
    else:
        top_ok = top is not None and top.kind in label.top
    alarms = [f"{f.kind}:{f.severity}" for f in serious if f.kind not in label.acceptable()]
    fix = (
        # the fix's own finding, whatever its severity: its share is the prediction for that fix
        # (an info finding gives no time, as data-loading's where the profiler may hide a loader)
        next(
            (f for f in d.findings if f.kind == scenario.fix_kind and f.share_pct is not None),
            None,
        )
        if scenario.fix_kind
        else top
    )
    return RunScore(
        scenario.name,
        variant,
        sorted(label.top) if label.top else None,
        top.kind if top else None,
        top.severity if top else None,
        top.share_pct if top else None,
        top_ok,
        alarms,
        [f"{f.kind}:{f.severity}:{f.share_pct}" for f in d.findings],
        # no finding of the fix's kind promises no saving: that is a prediction of 0%
        (fix.share_pct if fix else 0.0),
    )


def score_pair(scenario: labels.Scenario, bad: RunScore, root: Path | None = None) -> PairScore:
    b, f = trace_path(scenario, "bad", root), trace_path(scenario, "fixed", root)
    if scenario.memory:
        pb, pf = peak_bytes(b), peak_bytes(f)
        saved = 100 * (1 - pf / pb) if pb and pf else None
        return PairScore(scenario.name, True, saved, None, None)
    tb, tf = time_per_sample_ms(b), time_per_sample_ms(f)
    measured = 100 * (1 - tf / tb) if tb and tf else None
    predicted = bad.fix_share_pct
    # a "fix" that measured slower saves nothing, and no finding can promise less than that: a
    # promise of 0% is exactly right there (the error is to max(measured, 0))
    err = (
        abs(predicted - max(measured, 0.0))
        if predicted is not None and measured is not None
        else None
    )
    return PairScore(scenario.name, False, measured, predicted, err)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--json", type=Path, default=None)
    p.add_argument("--only", default=None, help="comma-separated scenario names")
    p.add_argument(
        "--no-shapes", action="store_true", help="drop recorded shapes before the analysis"
    )
    args = p.parse_args()
    chosen = [s for s in labels.ALL if not args.only or s.name in args.only.split(",")]
    runs: list[RunScore] = []
    pairs: list[PairScore] = []
    for s in chosen:
        scored = {
            v: score_run(s, v, shapes=not args.no_shapes)
            for v in s.runs
            if trace_path(s, v).exists()
        }
        runs += scored.values()
        if s.is_pair and "bad" in scored and "fixed" in scored:
            pairs.append(score_pair(s, scored["bad"]))
    w = max([24] + [len(s.name) + 1 for s in chosen])  # the scenario column fits every name
    print(f"{'scenario':<{w}}{'run':<8}{'label top':<34}{'top finding':<28}{'ok':<4}false alarms")
    for r in runs:
        label = ",".join(r.label_top) if r.label_top else "(healthy)"
        got = (
            f"{r.top_kind} {r.top_severity} {r.top_share_pct}" if r.top_kind else "(none >= medium)"
        )
        print(
            f"{r.scenario:<{w}}{r.variant:<8}{label[:33]:<34}{got[:27]:<28}{'y' if r.top_ok else 'N':<4}"
            f"{', '.join(r.false_alarms) or '-'}"
        )
    print(f"\n{'pair':<{w}}{'measured saving':>16}{'predicted':>11}{'error pts':>11}")
    for q in pairs:
        meas = (
            f"{q.measured_saving_pct:.1f}%" + (" mem" if q.memory else "")
            if q.measured_saving_pct is not None
            else "n/a"
        )
        pred = f"{q.predicted_saving_pct:.1f}%" if q.predicted_saving_pct is not None else "-"
        err = f"{q.error_points:.1f}" if q.error_points is not None else "-"
        print(f"{q.scenario:<{w}}{meas:>16}{pred:>11}{err:>11}")
    n_ok = sum(r.top_ok for r in runs)
    n_alarm = sum(len(r.false_alarms) for r in runs)
    # a timed pair whose fix the analyzer put no estimate on counts as a miss
    timed = [q for q in pairs if not q.memory and q.measured_saving_pct is not None]
    within = sum(q.error_points is not None and q.error_points <= 15 for q in timed)
    print(
        f"\ntop finding right: {n_ok}/{len(runs)} runs; false alarms (>= medium): {n_alarm}; "
        f"predicted saving within 15 points: {within}/{len(timed)} pairs"
    )
    if args.json:
        args.json.write_text(
            json.dumps(
                {"runs": [asdict(r) for r in runs], "pairs": [asdict(q) for q in pairs]}, indent=1
            )
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

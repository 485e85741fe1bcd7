"""Run demos bad then fixed, one pair after the other, and print a results table last.

    PYTHONPATH=. python demos/run_all.py --device cuda --out traces/h100
    PYTHONPATH=. python demos/run_all.py --device cpu --out /tmp/demos --demos sync,precision

Writes OUT/<demo>/{bad,fixed}.json.gz and .meta.json. A demo that fails is reported and the
rest still run; the exit code is 1 if any failed.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

try:
    import bottleneck_lab  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bottleneck_lab import demos as registry


def _key_metric(name: str, meta: dict) -> str:
    metric = registry.get(name).metric
    value = registry.metric_value(meta, metric)
    if value is None:
        return f"{metric}=n/a"
    if metric == "peak_memory":
        return f"peak={value / 2**20:.0f}MB"
    if metric == "copy_time":
        return f"copy={value:.2f}ms"
    return f"{metric}={value:,.1f}"


def table(out: Path, names: list[str]) -> list[str]:
    head = f"{'demo':<16} {'variant':<6} {'step ms':>9} {'samples/s':>11} {'peak MB':>8} {'gpu util':>8}  key metric"
    lines = [head, "-" * len(head)]
    verdicts = []
    for name in names:
        metas = {}
        for variant in registry.VARIANTS:
            path = out / name / f"{variant}.meta.json"
            if not path.is_file():
                lines.append(f"{name:<16} {variant:<6} (no sidecar)")
                continue
            m = metas[variant] = registry.load_meta(path)
            peak = m.get("max_memory_allocated_bytes")
            util = ((m.get("nvml") or {}).get("gpu_util_pct") or {}).get("mean")
            lines.append(
                f"{name:<16} {variant:<6} {m['step_time_ms']['median']:>9.3f} {m['samples_per_s']:>11,.0f} "
                f"{'-' if peak is None else f'{peak / 2**20:.0f}':>8} {'-' if util is None else f'{util:.0f}%':>8}  "
                f"{_key_metric(name, m)}"
            )
        if len(metas) == 2:
            c = registry.compare(name, metas["bad"], metas["fixed"])
            verdict = {True: "MET", False: "MISSED", None: "n/a"}[c.met]
            verdicts.append(
                f"{name:<16} {verdict:<6} {c.summary}  [target {registry.get(name).target}]"
            )
    return lines + [""] + verdicts


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=("cuda", "cpu"), required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--demos", default=",".join(registry.DEMOS), help="comma-separated names")
    p.add_argument(
        "--steps", type=int, default=None, help="timed steps per block (default: per demo)"
    )
    p.add_argument("--timeout", type=float, default=240.0, help="seconds per demo run")
    args = p.parse_args()
    names = [n for n in args.demos.split(",") if n]
    for n in names:
        registry.get(n)
    failed = []
    for name in names:
        for variant in registry.VARIANTS:
            t0 = time.perf_counter()
            try:
                registry.run_demo(
                    name,
                    variant,
                    args.device,
                    args.steps,
                    args.out / name,
                    timeout_s=args.timeout,
                    quiet=False,
                )
                print(f"[run_all] {name} {variant}: {time.perf_counter() - t0:.1f} s", flush=True)
            except registry.DemoError as exc:
                failed.append(f"{name} {variant}")
                print(f"[run_all] FAILED {exc}", flush=True)
    print("\n".join(table(args.out, names)))
    if failed:
        print("failed: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

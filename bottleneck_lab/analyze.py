"""Frames or files -> Diagnosis: the entry points. Each rank is analysed by rank_analysis (in
worker processes or on Dask for many ranks: ranks.py) and reduced into one ranked Diagnosis."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .detectors import configs
from .diagnosis import Diagnosis
from .efficiency import PeakChoice
from .ranks import analyze_frame, reduce_ranks
from .trace import TraceFrame


def diagnose(
    frames: list[TraceFrame],
    overrides: dict[str, dict[str, Any]] | None = None,
    path: str | None = None,
    peak: PeakChoice | None = None,
) -> Diagnosis:
    """Analyse every rank; the summary describes the slowest rank, which sets the job's pace
    (ranks.reduce_ranks, the same reduce the parallel and Dask paths use)."""
    cfgs = configs(overrides)
    return reduce_ranks([analyze_frame(f, cfgs, peak) for f in frames], path)


def normalize_overrides(overrides: dict[str, Any] | list[str] | None) -> dict[str, dict[str, Any]]:
    """Detector overrides in any of the forms people write them, checked like `--set`:
    ``{"sync-stall": {"min_share_pct": 1}}``, ``{"sync-stall.min_share_pct": 1}`` or
    ``["sync-stall.min_share_pct=1"]``. Raises ValueError naming the bad one."""
    from .detectors import parse_override

    items: list[str] = []
    if isinstance(overrides, (list, tuple)):
        items = list(overrides)
    elif overrides:
        for key, value in overrides.items():
            if isinstance(value, dict):
                items += [f"{key}.{fld}={v}" for fld, v in value.items()]
            else:
                items.append(f"{key}={value}")
    out: dict[str, dict[str, Any]] = {}
    for text in items:
        code, fld, value = parse_override(text)
        out.setdefault(code, {})[fld] = value
    return out


def load_and_diagnose(
    path: str | Path,
    overrides: dict[str, Any] | list[str] | None = None,
    *,
    peak_tflops: float | None = None,
    peak_dtype: str | None = None,
    peaks_file: str | None = None,
    with_hta: bool = False,
    jobs: int | None = None,
    scheduler: str | None = None,
) -> tuple[list, Diagnosis]:
    """What was read from `path` and its Diagnosis (the CLI needs both): the TraceFrame of a
    file, or for a directory one ranks.RankResult per rank, analysed in `jobs` processes
    (default: all cores; 1: in this process) or on the Dask `scheduler`."""
    from .trace import load_trace

    checked = normalize_overrides(overrides)
    if peak_tflops is not None and peak_tflops <= 0:
        raise ValueError("peak_tflops must be positive")
    if peaks_file is not None and not Path(peaks_file).is_file():
        raise ValueError(
            f"{peaks_file}: no such peaks file (run `bottleneck-lab peak` on the GPU first)"
        )
    peak = PeakChoice(peak_tflops, peak_dtype, peaks_file)
    if Path(path).is_dir():
        from .ranks import analyze_ranks

        frames, d = analyze_ranks(path, checked, peak, jobs=jobs, scheduler=scheduler)
    else:
        frames = load_trace(path)
        d = diagnose(frames, checked, path=str(path), peak=peak)
    if with_hta:
        from .hta_bridge import hta_report

        d.hta = hta_report(str(path), files=[f.path for f in frames])
    return frames, d


def analyze(
    path: str | Path,
    overrides: dict[str, Any] | list[str] | None = None,
    *,
    peak_tflops: float | None = None,
    peak_dtype: str | None = None,
    peaks_file: str | None = None,
    with_hta: bool = False,
    jobs: int | None = None,
    scheduler: str | None = None,
) -> Diagnosis:
    """Read a trace file (or a directory of per-rank traces, `jobs` ranks at a time, or on the
    Dask `scheduler`: see `bottleneck-lab analyze --help`) and diagnose it: the same Diagnosis
    `bottleneck-lab analyze PATH` renders. For notebooks::

        import bottleneck_lab
        d = bottleneck_lab.analyze("trace.json.gz", {"sync-stall.min_share_pct": 1})
        d                     # renders as the HTML report in Jupyter
        d.findings_frame()    # one row per finding, as a pandas DataFrame

    Raises `bottleneck_lab.TraceError` for an unusable trace and ValueError for a bad option."""
    return load_and_diagnose(
        path,
        overrides,
        peak_tflops=peak_tflops,
        peak_dtype=peak_dtype,
        peaks_file=peaks_file,
        with_hta=with_hta,
        jobs=jobs,
        scheduler=scheduler,
    )[1]


class _CallableModule(type(json)):
    """`bottleneck_lab.analyze` is this module (importing a submodule sets the package attribute
    to it, so a function of that name in __init__ would be replaced); calling it runs analyze()."""

    def __call__(
        self, path: str | Path, overrides: dict[str, Any] | list[str] | None = None, **options: Any
    ) -> Diagnosis:
        return analyze(path, overrides, **options)


import sys as _sys  # noqa: E402

_sys.modules[__name__].__class__ = _CallableModule

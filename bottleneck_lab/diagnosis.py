"""Finding, Summary and Diagnosis: the plain values every renderer and tool reads.

Severity follows from the share of the step a finding costs (`severity_for_share`):

    high    >= 25% of the step
    medium  >= 10%
    low     >=  3%
    info    below that, or no time estimate

The first finding of severity medium or high, in the ranked list, is the diagnosis.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

SCHEMA = "bottleneck-lab/diagnosis/1"
SEVERITIES = ("info", "low", "medium", "high")
KINDS = (
    "data_loading",
    "host_bound",
    "gpu_idle",
    "small_batch",
    "launch_overhead",
    "sync_stall",
    "precision",
    "memcpy",
    "activation_memory",
    "recompute",
    "memory_capacity",
    "communication",
    "fusion",
)
SEVERITY_THRESHOLDS_PCT = (("high", 25.0), ("medium", 10.0), ("low", 3.0))
# Diagnosis -> HTML fragment, for Jupyter; set by bottleneck_lab/__init__.py (see _repr_html_).
HTML_RENDERER: Callable[[Diagnosis], str] | None = None


def severity_for_share(share_pct: float | None) -> str:
    if share_pct is None:
        return "info"
    for severity, threshold in SEVERITY_THRESHOLDS_PCT:
        if share_pct >= threshold:
            return severity
    return "info"


@dataclass(frozen=True)
class Finding:
    code: str
    kind: str
    severity: str
    title: str
    time_lost_us_per_step: float | None
    share_pct: float | None
    evidence: dict[str, Any]
    fix: str
    efficiency: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"unknown finding kind {self.kind!r}")
        if self.severity not in SEVERITIES:
            raise ValueError(f"unknown severity {self.severity!r}")


@dataclass(frozen=True)
class Summary:
    steps: int | None = None
    step_time_us: float | None = None
    gpu_busy_pct: float | None = None
    flops_per_step: float | None = None
    achieved_tflops: float | None = None
    peak_tflops: float | None = None
    peak_source: str | None = None
    mfu_pct: float | None = None
    peak_memory_bytes: int | None = None
    extra: dict[str, Any] = field(
        default_factory=dict
    )  # more facts, rendered after the contract fields


@dataclass(frozen=True)
class TraceInfo:
    path: str
    ranks: list[int]
    device: dict[str, Any] | None
    has_gpu: bool
    events: int
    warnings: list[str] = field(default_factory=list)


@dataclass
class Diagnosis:
    trace: TraceInfo
    summary: Summary
    findings: list[Finding]
    skipped: dict[str, str] = field(default_factory=dict)  # detector code -> why it did not run
    errors: dict[str, str] = field(default_factory=dict)  # detector code -> what went wrong
    hta: dict[str, Any] | None = None  # --with-hta: HTA's own breakdowns, labelled as HTA's

    @property
    def verdict(self) -> Finding | None:
        """The first finding of severity medium or high: what to fix first."""
        return next((f for f in self.findings if f.severity in ("medium", "high")), None)

    def to_dict(self) -> dict[str, Any]:
        summary = asdict(self.summary)
        extra = summary.pop("extra")
        summary.update({k: v for k, v in extra.items() if k not in summary})
        out = {
            "schema": SCHEMA,
            "trace": asdict(self.trace),
            "summary": summary,
            "findings": [asdict(f) for f in self.findings],
            "detectors": {"skipped": self.skipped, "errors": self.errors},
        }
        if self.hta is not None:
            out["hta"] = self.hta
        return out

    FRAME_COLUMNS = (
        "code",
        "kind",
        "severity",
        "title",
        "time_lost_us_per_step",
        "share_pct",
        "fix",
    )

    def findings_frame(self):
        """The findings as a pandas DataFrame, one row per finding in ranked order (columns
        FRAME_COLUMNS; severity is an ordered categorical, so sorting by it works)."""
        import pandas as pd

        df = pd.DataFrame(
            [{c: getattr(f, c) for c in self.FRAME_COLUMNS} for f in self.findings],
            columns=list(self.FRAME_COLUMNS),
        )
        df["severity"] = pd.Categorical(df["severity"], categories=SEVERITIES, ordered=True)
        return df.astype({"time_lost_us_per_step": "float64", "share_pct": "float64"})

    def at_or_above(self, severity: str) -> list[Finding]:
        """Findings of this severity or worse (what `analyze --fail-on` counts)."""
        if severity not in SEVERITIES:
            raise ValueError(f"unknown severity {severity!r} (one of {', '.join(SEVERITIES)})")
        floor = SEVERITIES.index(severity)
        return [f for f in self.findings if SEVERITIES.index(f.severity) >= floor]

    def _repr_html_(self) -> str | None:
        """Jupyter shows a Diagnosis as the HTML report (the same renderer as --format html).
        The renderer lives in the report layer above this one, so the package's top layer hands
        it down (HTML_RENDERER) when `bottleneck_lab` is imported."""
        return None if HTML_RENDERER is None else HTML_RENDERER(self)


def rank_findings(findings: list[Finding]) -> list[Finding]:
    """Most costly first; findings without a time estimate after those with one, by severity."""
    order = {s: i for i, s in enumerate(SEVERITIES)}
    return sorted(
        findings, key=lambda f: (-(f.time_lost_us_per_step or 0.0), -order[f.severity], f.code)
    )

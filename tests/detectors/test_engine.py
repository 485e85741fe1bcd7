"""The engine around the detectors: the registry's import-time checks, declared prerequisites,
failures contained per detector, threshold overrides, severity, ranking and idle accounting."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from dataclasses import dataclass
from types import ModuleType

import pytest
import scenarios as sc
from checks import (
    assert_idle_partitioned,
    assert_no_idle_counted_twice,
    assert_ranked,
    idle_claimed,
    idle_per_step,
)
from scenarios import SCENARIOS, diagnose_trace, finding

import bottleneck_lab.detectors as detectors
from bottleneck_lab import diagnosis as dg
from bottleneck_lab.analyze import diagnose
from bottleneck_lab.detectors import (
    PREREQUISITES,
    REGISTRY,
    RegistryError,
    _check,
    configs,
    parse_override,
)
from bottleneck_lab.diagnosis import Finding, rank_findings, severity_for_share
from bottleneck_lab.rank_analysis import PREREQUISITE_CHECKS
from bottleneck_lab.report import render
from bottleneck_lab.trace.synth import load

# --- registry -----------------------------------------------------------------------------------

GOOD_DOC = "Symptom: the GPU idles.\nLikely cause: something.\nFix: change it."
MISSING = object()


@dataclass(frozen=True)
class FrozenConfig:
    min_share_pct: float = 3.0


@dataclass
class MutableConfig:
    min_share_pct: float = 3.0


def fake_detector(name: str = "fake", **attrs) -> ModuleType:
    """A detector module that passes every check, with attrs replaced (MISSING deletes one)."""
    mod = ModuleType(f"bottleneck_lab.detectors.{name}", GOOD_DOC)

    def detect(frame, cfg):
        return []

    def example(bad):
        """Idle GPU when bad, busy when not."""

    mod.__dict__.update(
        CODE=name,
        KIND="gpu_idle",
        REQUIRES={"kernels", "steps"},
        Config=FrozenConfig,
        detect=detect,
        example=example,
    )
    for key, value in attrs.items():
        if value is MISSING:
            delattr(mod, key)
        else:
            setattr(mod, key, value)
    return mod


def test_check_accepts_a_well_formed_detector():
    det = _check(fake_detector())
    assert (det.code, det.kind, det.requires, det.config) == (
        "fake",
        "gpu_idle",
        frozenset({"kernels", "steps"}),
        FrozenConfig,
    )
    assert det.doc == GOOD_DOC and det.detect(None, None) == []


@pytest.mark.parametrize(
    ("attrs", "says"),
    [
        ({"__doc__": None}, "missing docstring"),
        ({"__doc__": "  \n  "}, "missing docstring"),
        ({"detect": lambda trace, config: []}, r"detect must take \(frame, cfg\)"),
        ({"detect": lambda frame: []}, r"detect must take \(frame, cfg\)"),
        ({"detect": lambda frame, cfg, extra=None: []}, r"detect must take \(frame, cfg\)"),
        ({"Config": MutableConfig}, "frozen dataclass"),
        ({"Config": dict}, "frozen dataclass"),
        ({"KIND": "slowness"}, "unknown kind 'slowness'"),
        ({"REQUIRES": {"kernels", "gpus"}}, r"unknown prerequisites \['gpus'\]"),
        ({"CODE": MISSING}, "missing CODE"),
        ({"detect": MISSING}, "missing detect"),
        ({"example": MISSING}, "missing example"),
        ({"example": lambda: None}, "example must take bad first"),
        ({"example": lambda bad: None}, "example needs a docstring"),
    ],
    ids=[
        "no-doc",
        "blank-doc",
        "wrong-names",
        "one-arg",
        "three-args",
        "mutable-config",
        "config-not-dataclass",
        "unknown-kind",
        "unknown-prerequisite",
        "no-code",
        "no-detect",
        "no-example",
        "example-without-bad",
        "example-without-doc",
    ],
)
def test_check_rejects(attrs, says):
    with pytest.raises(RegistryError, match=says):
        _check(fake_detector(**attrs))


def test_registry_rejects_a_duplicate_code(monkeypatch):
    for name in ("fake_a", "fake_b"):
        monkeypatch.setitem(
            sys.modules, f"bottleneck_lab.detectors.{name}", fake_detector(name, CODE="same-code")
        )
    monkeypatch.setattr(detectors, "MODULES", ("fake_a", "fake_b"))
    with pytest.raises(
        RegistryError, match="duplicate detector code 'same-code' in .*fake_b and .*fake_a"
    ):
        detectors._load()


def test_registry_loads_every_module_once():
    assert list(detectors._load()) == list(REGISTRY) and len(REGISTRY) == len(detectors.MODULES)


# A time, a share, a size, or what is counted; "_ratio" says it has no unit.
UNIT_SUFFIXES = (
    "_us",
    "_ms",
    "_pct",
    "_bytes",
    "_calls",
    "_count",
    "_tensors",
    "_steps",
    "_ratio",
    "_per_step",
)


@pytest.mark.parametrize("code", REGISTRY)
def test_registered_detector_follows_the_contract(code):
    det = REGISTRY[code]
    for part in ("Symptom:", "Likely cause:", "Fix:"):
        assert part in det.doc
    for fld in dataclasses.fields(det.config):
        assert fld.name.endswith(UNIT_SUFFIXES), f"{code}.{fld.name}: no unit in the name"
        assert isinstance(getattr(det.config(), fld.name), (int, float, bool, str))


# --- prerequisites ------------------------------------------------------------------------------


def test_every_prerequisite_has_a_check():
    assert set(PREREQUISITE_CHECKS) == PREREQUISITES


def test_cpu_only_trace_skips_every_detector_that_needs_kernels():
    d = diagnose_trace(sc.cpu_only(True))
    needs_kernels = {c for c, det in REGISTRY.items() if "kernels" in det.requires}
    assert needs_kernels and {c: d.skipped.get(c) for c in needs_kernels} == dict.fromkeys(
        needs_kernels, "skipped: trace has no GPU kernels"
    )
    assert "data-loading" not in d.skipped and d.errors == {}
    assert "Detectors skipped" in render(d, "text")


@pytest.mark.parametrize(
    ("scenario", "code", "label"),
    [
        ("gpu-idle", "expert-loop", "recorded shapes (record_shapes=True)"),
        ("gpu-idle", "communication", "NCCL kernels"),
        ("gpu-idle", "data-loading", "DataLoader spans"),
    ],
)
def test_missing_prerequisite_is_said(scenario, code, label):
    assert sc.diagnosed(scenario, True).skipped[code] == f"skipped: trace has no {label}"


def test_trace_without_runtime_calls_skips_the_launch_detectors():
    # What the loader should make of such a trace (see the xfail below): no runtime rows, no links.
    frame = load(sc.gpu_idle(True))
    frame = dataclasses.replace(
        frame, runtime=frame.runtime.iloc[:0], gpu_ops=frame.gpu_ops.assign(launch=-1, op=-1)
    )
    d = diagnose([frame])
    needs_runtime = {c for c, det in REGISTRY.items() if "runtime" in det.requires}
    assert needs_runtime and all(
        d.skipped[c] == "skipped: trace has no CUDA runtime calls" for c in needs_runtime
    )
    assert finding(d, "gpu-idle") is not None and d.errors == {}


def test_kernels_without_runtime_calls_load_and_skip_the_launch_detectors():
    # Crashed the loader (IndexError in build_frame) before frame.py's _follow.
    d = diagnose([load(sc.kernels_without_runtime())])
    assert d.skipped["sync-stall"] == "skipped: trace has no CUDA runtime calls"
    # gpu-idle ran (its only idle, 10 µs at each step's start, is kernel-switch latency: no finding)
    assert d.errors == {} and "gpu-idle" not in d.skipped


# --- failures contained -------------------------------------------------------------------------


def test_a_detector_that_raises_becomes_an_error_entry(monkeypatch):
    def boom(frame, cfg):
        raise RuntimeError("boom")

    monkeypatch.setitem(
        REGISTRY, "sync-stall", dataclasses.replace(REGISTRY["sync-stall"], detect=boom)
    )
    d = diagnose_trace(sc.mixed())
    assert list(d.errors) == ["sync-stall"]
    assert re.fullmatch(r"RuntimeError: boom \(test_engine\.py:\d+\)", d.errors["sync-stall"])
    assert finding(d, "sync-stall") is None
    assert [f.code for f in d.findings] == [
        "data-loading",
        "host-bound",
        "gpu-idle",
        "launch-overhead",
    ]
    assert "  sync-stall: RuntimeError: boom" in render(d, "text")
    assert json.loads(render(d, "json"))["detectors"]["errors"] == d.errors


# --- overrides ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "parsed"),
    [
        ("gpu-idle.min_share_pct=50", ("gpu-idle", "min_share_pct", 50.0)),
        ("sync-stall.top_calls=2", ("sync-stall", "top_calls", 2)),
    ],
)
def test_parse_override_types_the_value(text, parsed):
    assert parse_override(text) == parsed
    assert type(parse_override(text)[2]) is type(parsed[2])


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("nope.x=1", "unknown detector 'nope'"),
        ("gpu-idle.nope=1", "gpu-idle has no field 'nope'"),
        ("gpu-idle.min_share_pct=lots", "'lots' is not a float"),
        ("gpu-idle=1", "expected detector.field=value"),
        ("gpu-idle.min_share_pct", "expected detector.field=value"),
    ],
)
def test_parse_override_rejects(text, says):
    with pytest.raises(ValueError, match=re.escape(says)):
        parse_override(text)


def test_override_changes_one_detector_only():
    cfgs = configs({"gpu-idle": {"min_share_pct": 50.0}})
    assert cfgs["gpu-idle"].min_share_pct == 50.0
    assert all(cfg == REGISTRY[c].config() for c, cfg in cfgs.items() if c != "gpu-idle")


@pytest.mark.parametrize(
    ("min_share_pct", "fires"), [(3.0, True), (33.0, True), (34.0, False), (50.0, False)]
)
def test_override_moves_the_threshold(min_share_pct, fires):
    d = diagnose(
        [load(sc.gpu_idle(True))], overrides={"gpu-idle": {"min_share_pct": min_share_pct}}
    )
    assert (finding(d, "gpu-idle") is not None) == fires  # the gap is 33.3% of the step


# --- severity -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("share", "severity"),
    [
        (None, "info"),
        (0.0, "info"),
        (2.99, "info"),
        (3.0, "low"),
        (9.99, "low"),
        (10.0, "medium"),
        (24.99, "medium"),
        (25.0, "high"),
        (100.0, "high"),
    ],
)
def test_severity_for_share(share, severity):
    assert severity_for_share(share) == severity


def test_severity_thresholds_are_the_documented_ones():
    documented = dict(re.findall(r"^\s+(high|medium|low)\s+>=\s*([\d.]+)%", dg.__doc__, re.M))
    assert {s: float(v) for s, v in documented.items()} == dict(dg.SEVERITY_THRESHOLDS_PCT)


# --- ranking and idle accounting ----------------------------------------------------------------


def make(code: str, severity: str, lost: float | None) -> Finding:
    return Finding(code, "gpu_idle", severity, code, lost, None, {}, "")


def test_rank_findings_by_cost_then_severity_then_code():
    found = [
        make("a", "high", None),
        make("b", "low", 5.0),
        make("c", "info", 50.0),
        make("d", "medium", 5.0),
        make("e", "low", None),
    ]
    assert [f.code for f in rank_findings(found)] == ["c", "d", "b", "a", "e"]


def test_mixed_trace_ranks_each_cause_by_the_idle_it_caused():
    d = diagnose_trace(sc.mixed())
    assert [(f.code, f.severity, f.time_lost_us_per_step) for f in d.findings] == [
        ("data-loading", "medium", 310.0),
        # the host sat 271 µs in the sync (the GPU's 260 µs of idle inside it): removing the
        # sync gives the host that back, 267 µs in the replay, which starts each kernel at its
        # launch plus the trace's median launch latency (5 µs) rather than where the trace has it
        ("sync-stall", "medium", 267.0),
        ("host-bound", "medium", 170.0),
        ("gpu-idle", "low", 120.0),
        ("launch-overhead", "low", 90.0),
    ]
    assert d.verdict.code == "data-loading"
    assert_ranked(d)


TRACES = {
    **{
        f"{code}-{v}": (lambda fn=fn, bad=bad: fn(bad))
        for code, fn in SCENARIOS.items()
        for v, bad in (("bad", True), ("good", False))
    },
    "mixed": sc.mixed,
    "host-bound-python": lambda: sc.host_bound(True, python=True),
}


@pytest.mark.parametrize("name", TRACES)
def test_no_idle_microsecond_is_counted_twice(name):
    frame = load(TRACES[name]())
    d = diagnose([frame])
    assert_idle_partitioned(frame)
    assert_no_idle_counted_twice(d, frame)
    assert_ranked(d)


def test_launch_bound_idle_is_launch_overheads_even_with_a_small_batch():
    """The issue's rule: launch-overhead keeps its finding when the batch is also small; the
    small batch owns no launch-bound gap (its estimate names that idle as a shared cost)."""
    claimed = idle_claimed(sc.diagnosed("small-batch", True))
    assert claimed["launch-overhead"] > 0 and claimed["small-batch"] == 0
    assert set(idle_claimed(sc.diagnosed("launch-overhead", True))) == {"launch-overhead"}


def test_merged_ranks_do_not_claim_more_idle_than_any_rank_has():
    frames = [
        load(sc.split_idle(0, 400, 100), name="rank0.json"),
        load(sc.split_idle(1, 100, 400), name="rank1.json"),
    ]
    assert [round(idle_per_step(f)) for f in frames] == [510, 510]
    d = diagnose(frames)
    assert sum(idle_claimed(d).values()) <= max(idle_per_step(f) for f in frames) + 1


def test_idle_opening_the_window_before_a_kernel_queued_earlier_is_unrecorded_work():
    """The issue's warm-up artefact: the first kernel of the window was launched before the
    window opened (the profiler did not record what the GPU ran before it), so the gap in front
    of it is not idle anyone caused; the same gap in a later step, launched late, is."""
    from scenarios import launch

    from bottleneck_lab import facts
    from bottleneck_lab.trace.synth import TraceBuilder

    b = TraceBuilder()
    b.step(1, 0.0, 1000)
    launch(b, -50.0, 300.0, 500)  # queued before the window: ran once earlier work drained
    b.step(2, 1000.0, 1000)
    launch(b, 1400.0, 1410.0, 500)  # launched late inside step 2: the host made this gap
    frame = load(b)
    gaps = facts.idle_gaps(frame)
    first = gaps.loc[gaps["start"] == 0.0]
    assert list(first["cause"]) == ["unrecorded_work"] and float(first["dur"].iloc[0]) == 300.0
    assert "unrecorded_work" not in set(gaps.loc[gaps["start"] > 0, "cause"])
    d = diagnose([frame])
    assert all(f.kind != "gpu_idle" or f.time_lost_us_per_step < 150 for f in d.findings)
    assert d.summary.extra["idle_us_per_step_by_cause"]["unrecorded_work"] == 150.0

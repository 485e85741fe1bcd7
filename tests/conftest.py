"""Shared fixtures: the unusable inputs the loader and the CLI must reject cleanly, and the
external traces folder (../shared/external-traces, or $BOTTLENECK_LAB_EXTERNAL_TRACES)."""

from __future__ import annotations

import gzip
import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from bottleneck_lab.trace.synth import training_trace, write_text

REPO = Path(__file__).resolve().parents[1]
EXTERNAL_TRACES = Path(
    os.environ.get("BOTTLENECK_LAB_EXTERNAL_TRACES", REPO.parent / "shared" / "external-traces")
)


# Not Kineto traces, on purpose (see MANIFEST.md): these must be refused, everything else read.
NOT_TRACES = {
    "memory_timeline_raw_not_chrome_trace",
    "memory_timeline_raw_not_chrome_trace/memory_timeline.raw.gz",
    "a100_simple_add_with_execution_trace/benchmark_simple_add_et.json.gz",
}


@dataclass(frozen=True)
class ExternalTrace:
    path: Path
    name: str  # path relative to the external traces folder
    is_trace: bool  # False for the files that are deliberately not Kineto traces


def xfail_listed(items: list, key_of: Callable[[object], str], reasons: dict[str, str]) -> list:
    """`items` as parameters, each whose key_of(item) `reasons` lists a strict xfail with that
    reason (a known miss that shows when it is fixed)."""
    return [
        pytest.param(x, marks=pytest.mark.xfail(strict=True, reason=reasons[k]))
        if (k := key_of(x)) in reasons
        else x
        for x in items
    ]


def external_traces(dirs_only: bool = False) -> list[ExternalTrace]:
    """Each external trace directory, then each file in one (empty when the folder is absent)."""
    if not EXTERNAL_TRACES.is_dir():
        return []
    dirs = sorted(p for p in EXTERNAL_TRACES.iterdir() if p.is_dir())
    paths = (
        dirs if dirs_only else dirs + [f for d in dirs for f in sorted(d.iterdir()) if f.is_file()]
    )
    names = [str(p.relative_to(EXTERNAL_TRACES)) for p in paths]
    return [ExternalTrace(p, n, n not in NOT_TRACES) for p, n in zip(paths, names)]


def external_trace_paths() -> list[Path]:
    """Paths of external_traces(): each directory, then each file in one."""
    return [t.path for t in external_traces()]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrize `external_trace` (directories and files) and `external_trace_dir`."""
    for arg, dirs_only in (("external_trace", False), ("external_trace_dir", True)):
        if arg in metafunc.fixturenames:
            found = external_traces(dirs_only)
            params = [pytest.param(t, id=t.name) for t in found] or [
                pytest.param(
                    None, id="absent", marks=pytest.mark.skip(reason=f"{EXTERNAL_TRACES} is absent")
                )
            ]
            metafunc.parametrize(arg, params)


@dataclass(frozen=True)
class Unusable:
    """A path the loader cannot use, and a regex the one-line error should match."""

    label: str
    path: Path
    says: str


def _raw(path: Path, data: bytes) -> Path:
    """Write bytes exactly as given (write_text would gzip them again for a .gz name)."""
    path.write_bytes(data)
    return path


def _valid_text() -> str:
    return training_trace(steps=2).dumps()


def _memory_timeline() -> bytes:
    rows = [[1_700_000_000_000 + i, i % 3, 4096 * i, i % 8] for i in range(50)]
    return json.dumps(rows).encode()


def _execution_trace() -> str:
    return json.dumps(
        {
            "schema": "1.0.1",
            "pid": 7,
            "time": "2024-01-01",
            "start_ts": 1,
            "nodes": [
                {
                    "id": 1,
                    "name": "[pytorch|profiler|execution_trace|process]",
                    "ctrl_deps": 0,
                    "inputs": {},
                    "outputs": {},
                    "attrs": [],
                }
            ],
        }
    )


# label -> (make(tmp_dir) -> path, regex the message must match)
UNUSABLE: dict[str, tuple[Callable[[Path], Path], str]] = {
    "empty file": (lambda d: write_text(d / "empty.json", b""), r"empty"),
    "not JSON": (lambda d: write_text(d / "notes.json", "step time was slow\n"), r"JSON"),
    "truncated gzip": (
        lambda d: _raw(d / "cut.json.gz", gzip.compress(_valid_text().encode())[:200]),
        r"gzip|truncated",
    ),
    "truncated JSON": (
        lambda d: write_text(d / "cut.json", _valid_text()[:1500]),
        r"truncated|JSON",
    ),
    "no traceEvents": (
        lambda d: write_text(
            d / "meta.json", json.dumps({"schemaVersion": 1, "deviceProperties": []})
        ),
        r"traceEvents",
    ),
    "memory timeline": (
        lambda d: _raw(d / "memory_timeline.raw.gz", gzip.compress(_memory_timeline())),
        r"memory_timeline",
    ),
    "execution trace": (
        lambda d: write_text(d / "et.json", _execution_trace()),
        r"execution trace",
    ),
    "empty directory": (lambda d: (d / "ranks").mkdir() or d / "ranks", r"no \.json"),
    "missing path": (lambda d: d / "nowhere" / "trace.json", r"no such"),
}


@pytest.fixture(params=list(UNUSABLE), ids=list(UNUSABLE))
def unusable(request: pytest.FixtureRequest, tmp_path: Path) -> Unusable:
    make, says = UNUSABLE[request.param]
    return Unusable(request.param, make(tmp_path), says)

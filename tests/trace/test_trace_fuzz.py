"""Generated malformed input: load_trace either reads it or raises TraceError, never anything else.

By default each test runs the same 60 examples (derandomized, no example database) so the suite
stays fast and its result stable. To hunt for new failures, run with more random examples:

    BOTTLENECK_LAB_FUZZ_EXAMPLES=3000 python3 -m pytest tests/trace/test_trace_fuzz.py
"""

from __future__ import annotations

import gzip
import json
import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bottleneck_lab.trace import TraceError, TraceFrame, load_trace
from bottleneck_lab.trace.synth import CATEGORIES, training_trace

_HUNT = int(os.environ.get("BOTTLENECK_LAB_FUZZ_EXAMPLES", "0"))
FUZZ = settings(
    max_examples=_HUNT or 60,
    derandomize=not _HUNT,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)

VALID = training_trace(steps=2, kernels_per_step=2).dumps(compact=True)

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats()
    | st.text(max_size=12)
    | st.sampled_from(["0x0", "12", "-1", "1e400", "", "nan"])
)
json_values = st.recursive(
    scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)

CATS = sorted(
    {c for cats in CATEGORIES.values() for c in cats.values()}
    | {"cuda_sync", "gpu_user_annotation", "python_function", "memory", "Trace"}
)
ARG_KEYS = [
    "External id",
    "correlation",
    "device",
    "stream",
    "grid",
    "block",
    "bytes",
    "Input Dims",
    "Input type",
    "Concrete Inputs",
    "Total Allocated",
    "Bytes",
    "Addr",
    "Device Type",
    "Collective name",
    "dtype",
    "Sequence number",
]
EVENT_NAMES = [
    "ProfilerStep#1",
    "ProfilerStep#x",
    "[memory]",
    "cudaLaunchKernel",
    "cudaGraphLaunch",
    "aten::mm",
    "Memcpy HtoD (Pageable -> Device)",
    "",
]

# Events whose fields exist but hold values of any type.
events = st.fixed_dictionaries(
    {},
    optional={
        "ph": st.sampled_from(["X", "i", "s", "f", "M"]) | json_values,
        "cat": st.sampled_from(CATS) | json_values,
        "name": st.sampled_from(EVENT_NAMES) | json_values,
        "pid": st.integers(-3, 3) | json_values,
        "tid": st.integers(-3, 3) | json_values,
        "ts": st.floats(0, 1000) | json_values,
        "dur": st.floats(-10, 1000) | json_values,
        "args": st.dictionaries(st.sampled_from(ARG_KEYS), json_values, max_size=6) | json_values,
    },
)


@pytest.fixture(scope="module")
def scratch(tmp_path_factory):
    return tmp_path_factory.mktemp("fuzz")


def loads_or_refuses(directory, data: bytes, name: str = "trace.json") -> None:
    """The loader's whole contract for bad input: frames, or TraceError naming the file."""
    path = directory / name
    path.write_bytes(data)
    try:
        frames = load_trace(path)
    except TraceError as exc:
        assert str(path) in str(exc) and "\n" not in str(exc)
        return
    assert len(frames) == 1 and isinstance(frames[0], TraceFrame)


def as_trace(evs: list, **top) -> bytes:
    return json.dumps({"schemaVersion": 1, **top, "traceEvents": evs}).encode()


@FUZZ
@given(data=st.binary(max_size=400), gz=st.booleans())
def test_random_bytes(scratch, data, gz):
    loads_or_refuses(scratch, gzip.compress(data) if gz else data)


@FUZZ
@given(cut=st.integers(0, len(VALID) - 1), gz=st.booleans())
def test_truncated_prefixes_of_a_valid_trace(scratch, cut, gz):
    if gz:
        loads_or_refuses(scratch, gzip.compress(VALID.encode())[:cut], "trace.json.gz")
    else:
        loads_or_refuses(scratch, VALID[:cut].encode())


@FUZZ
@given(
    doc=json_values
    | st.dictionaries(
        st.sampled_from(["traceEvents", "deviceProperties", "distributedInfo", "schema", "nodes"]),
        json_values,
        max_size=4,
    )
)
def test_valid_json_of_random_structure(scratch, doc):
    loads_or_refuses(scratch, json.dumps(doc).encode())


@FUZZ
@given(evs=st.lists(events, max_size=12), props=json_values, info=json_values)
def test_events_with_wrong_field_types(scratch, evs, props, info):
    loads_or_refuses(scratch, as_trace(evs, deviceProperties=props, distributedInfo=info))


@FUZZ
@given(data=st.data())
def test_valid_trace_with_some_fields_replaced(scratch, data):
    trace = json.loads(VALID)
    evs = trace["traceEvents"]
    for _ in range(data.draw(st.integers(1, 5))):
        ev = evs[data.draw(st.integers(0, len(evs) - 1))]
        key = data.draw(
            st.sampled_from(
                ["ph", "cat", "name", "pid", "tid", "ts", "dur", "args"]
                + [f"args.{k}" for k in ARG_KEYS]
            )
        )
        value = data.draw(json_values)
        if key.startswith("args.") and isinstance(ev.get("args"), dict):
            ev["args"][key[5:]] = value
        else:
            ev[key] = value
    loads_or_refuses(scratch, json.dumps(trace).encode())

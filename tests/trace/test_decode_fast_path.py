"""decode's fast path (cutting the traceEvents array into pieces by its text) gives exactly what
the general path (splitting the whole file with msgspec first) gives, and hands over to it
whenever the text fools its guesses."""

from __future__ import annotations

import json
import re
import time

import numpy as np
import pytest

from bottleneck_lab.trace import decode as D
from bottleneck_lab.trace.synth import training_trace


def _general(path, monkeypatch) -> D.RawTrace:
    with monkeypatch.context() as m:
        m.setattr(D, "_fast_columns", lambda data, early=None: None)
        return D.decode(path)


def _assert_same(a: D.RawTrace, b: D.RawTrace) -> None:
    assert a.metadata == b.metadata
    assert a.device_properties == b.device_properties
    assert a.distributed_info == b.distributed_info
    assert (a.dropped_events, a.repairs) == (b.dropped_events, b.repairs)
    assert sorted(a.tables) == sorted(b.tables)
    for kind in a.tables:
        ta, tb = a.tables[kind], b.tables[kind]
        assert list(ta) == list(tb)
        for col in ta:
            x, y = ta[col], tb[col]
            assert x.dtype == y.dtype, (kind, col)
            if col == "name":  # codes into `names`, numbered in the order names were met
                assert [a.names[i] for i in x] == [b.names[i] for i in y]
            elif x.dtype == object:
                assert x.tolist() == y.tolist(), (kind, col)
            else:
                np.testing.assert_array_equal(x, y, err_msg=f"{kind} {col}")


def _events() -> list[dict]:
    return json.loads(training_trace().dumps())["traceEvents"]


def _doc(events: list[dict], **extra) -> dict:
    return {"schemaVersion": 1, "traceEvents": events, **extra}


CASES = {
    "compact": lambda: json.dumps(_doc(_events(), traceName="x")),
    "kineto layout": lambda: json.dumps(_doc(_events(), traceName="x"), indent=2),
    "events key first, metadata after": lambda: json.dumps(
        {"traceEvents": _events(), "deviceProperties": [{"id": 0, "numSms": 80}], "z": [1, 2]}
    ),
    "array in the suffix ending in an object": lambda: json.dumps(_doc(_events(), tail=[{"a": 1}])),
    "'}, {' inside a name": lambda: json.dumps(
        _doc([{**e, "name": "f}, {g"} if i == 3 else e for i, e in enumerate(_events())])
    ),
    "'}, {' inside every name": lambda: json.dumps(
        _doc([{**e, "name": e.get("name", "") + "}, {g"} for e in _events()])
    ),
    "traceEvents nested in metadata first": lambda: json.dumps(
        {"meta": {"traceEvents": [{"ph": "X"}]}, "traceEvents": _events()}
    ),
    "empty traceEvents": lambda: json.dumps(_doc([])),
    "string pid and tid on GPU rows": lambda: json.dumps(
        _doc(
            [
                {**e, "pid": "GPU 0", "tid": "stream 7"} if e.get("cat") == "kernel" else e
                for e in _events()
            ]
        )
    ),
    "an event the schema does not fit": lambda: json.dumps(
        _doc([{**e, "pid": 1.5} if i == 5 else e for i, e in enumerate(_events())])
    ),
    "NaN in an event": lambda: re.sub(
        r'"dur": [0-9.]+', '"dur": NaN', json.dumps(_doc(_events())), count=1
    ),
    "bare event array": lambda: json.dumps(_events()),
    # Events are decoded in a union tagged by "ph" (flows keep only cat and name); these must
    # read exactly as untagged events do.
    "a phase outside the tagged union": lambda: json.dumps(
        _doc([{**e, "ph": "Q"} if i == 7 else e for i, e in enumerate(_events())])
    ),
    "an event without a phase": lambda: json.dumps(
        _doc(
            [
                {k: v for k, v in e.items() if k != "ph"} if i == 7 else e
                for i, e in enumerate(_events())
            ]
        )
    ),
    "flow events among the rows": lambda: json.dumps(
        _doc(
            [
                x
                for e in _events()
                for x in (
                    [
                        e,
                        {
                            "ph": "s",
                            "id": 1,
                            "pid": 1,
                            "tid": 2,
                            "ts": e["ts"],
                            "cat": "ac2g",
                            "name": "ac2g",
                        },
                    ]
                    if e.get("cat") == "cuda_runtime"
                    else [e]
                )
            ]
        )
    ),
    "a flow event with a row's category": lambda: json.dumps(
        _doc(
            _events()
            + [{"ph": "f", "id": 1, "pid": 0, "tid": 7, "ts": 5.0, "cat": "kernel", "name": "k"}]
        )
    ),
}


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("piece", [64, 1 << 17])
def test_fast_path_matches_the_general_path(case, piece, tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_text(CASES[case]())
    monkeypatch.setattr(D, "PIECE_BYTES", piece)
    _assert_same(D.decode(path), _general(path, monkeypatch))


def test_fast_path_reads_plain_traces_itself(tmp_path):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_doc(_events()), indent=2))
    assert D._fast_columns(D.read_bytes(path)) is not None


@pytest.mark.parametrize(
    "case", ["'}, {' inside every name", "traceEvents nested in metadata first", "NaN in an event"]
)
def test_fast_path_declines_what_it_cannot_cut(case, tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_text(CASES[case]())
    monkeypatch.setattr(D, "PIECE_BYTES", 64)
    assert D._fast_columns(D.read_bytes(path)) is None


# Two processes: on a large trace a forked child decodes the second half (_decode_in_two). Forced
# here on small traces; the result must be what one process gives, whatever the halves hold.
TWO_PROCESS_CASES = [
    "compact",
    "kineto layout",
    "'}, {' inside a name",
    "string pid and tid on GPU rows",
    "an event the schema does not fit",
    "a phase outside the tagged union",
    "flow events among the rows",
    "a flow event with a row's category",
    "empty traceEvents",
]


@pytest.mark.parametrize("case", TWO_PROCESS_CASES)
@pytest.mark.parametrize("piece", [64, 1 << 17])
def test_two_processes_match_one(case, piece, tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_text(CASES[case]())
    monkeypatch.setattr(D, "PIECE_BYTES", piece)
    monkeypatch.setenv(D.JOBS_ENV, "1")
    one = D.decode(path)
    monkeypatch.delenv(D.JOBS_ENV)
    monkeypatch.setattr(D, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(D, "_cpus", lambda: 2)
    _assert_same(D.decode(path), one)
    _assert_same(D.decode(path), _general(path, monkeypatch))


def _slow_front(monkeypatch):
    """This process waits before each range it takes, so the child surely takes some (on a
    small trace it could otherwise take them all before the child starts)."""
    take = D._Claims.take

    def slow(self, front):
        if front:
            time.sleep(0.05)
        return take(self, front)

    monkeypatch.setattr(D._Claims, "take", slow)


def test_two_processes_are_used_and_join_names(tmp_path, monkeypatch):
    """The child's half really is decoded by the child, and names first met there are added
    after this process's, in the order the child met them."""
    events = _events()
    half = len(events) // 2
    late = [
        {**e, "name": f"late_{i}"} if e.get("cat") == "kernel" else e for i, e in enumerate(events)
    ]
    path = tmp_path / "t.json"
    path.write_text(json.dumps(_doc(events[:half] + late[half:])))
    monkeypatch.setattr(D, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(D, "_cpus", lambda: 2)
    _slow_front(monkeypatch)
    joined = []
    join = D._join
    monkeypatch.setattr(
        D, "_join", lambda acc, other, area: (joined.append(1), join(acc, other, area))
    )
    two = D.decode(path)
    assert joined  # the child decoded ranges, and they were joined
    monkeypatch.setenv(D.JOBS_ENV, "1")
    one = D.decode(path)
    _assert_same(two, one)
    # Names new within one 2,000-event chunk are numbered in set order either way (this trace is
    # one chunk for one process); the child's come after all of this process's.
    assert sorted(two.names) == sorted(one.names)
    early = {e.get("name") for e in events[: half // 2]}  # surely in this process's half
    last_early = max(i for i, n in enumerate(two.names) if n in early)
    assert all(i > last_early for i, n in enumerate(two.names) if n.startswith("late_"))


def test_a_failed_child_gives_the_general_path(tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_text(CASES["compact"]())
    monkeypatch.setattr(D, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(D, "_cpus", lambda: 2)
    _slow_front(monkeypatch)
    monkeypatch.setattr(D, "_child_result", lambda *a: 1 / 0)  # the child raises, sends nothing
    assert D._fast_columns(D.read_bytes(path)) is None
    _assert_same(D.decode(path), _general(path, monkeypatch))


def test_an_early_start_is_picked_up_by_decode(tmp_path, monkeypatch):
    """start_early (the CLI calls it before its imports) forks the child; decode of the same
    file uses it and gives what one process gives; another file's decode leaves it alone."""
    path, other = tmp_path / "t.json", tmp_path / "u.json"
    path.write_text(CASES["kineto layout"]())
    other.write_text(CASES["compact"]())
    monkeypatch.setenv(D.JOBS_ENV, "1")
    one, one_other = D.decode(path), D.decode(other)
    monkeypatch.delenv(D.JOBS_ENV)
    monkeypatch.setattr(D, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(D, "_cpus", lambda: 2)
    try:
        D.start_early(path)
        assert len(D._EARLY) == 1
        _assert_same(D.decode(other), one_other)  # not the early file: decoded as usual
        assert len(D._EARLY) == 1
        _assert_same(D.decode(path), one)
        assert not D._EARLY
        D.start_early(path)
        # changed since: the early one is unused (written beside and moved over, so the child's
        # mapping of the old file stays whole: truncating it under the child is a SIGBUS there)
        changed = tmp_path / "t.json.new"
        changed.write_text(CASES["kineto layout"]() + " ")
        changed.replace(path)
        assert D._take_early(path) is None
    finally:
        D._stop_early()
    assert not D._EARLY


def test_no_early_start_for_gzip_or_small_files(tmp_path, monkeypatch):
    import gzip

    path = tmp_path / "t.json.gz"
    path.write_bytes(gzip.compress(CASES["compact"]().encode()))
    monkeypatch.setattr(D, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(D, "_cpus", lambda: 2)
    D.start_early(path)
    assert not D._EARLY
    monkeypatch.setattr(D, "PARALLEL_MIN_BYTES", 1 << 30)
    D.start_early(tmp_path / "missing.json")
    small = tmp_path / "s.json"
    small.write_text(CASES["compact"]())
    D.start_early(small)
    assert not D._EARLY


def test_columns_that_do_not_fit_the_shared_area_come_through_the_pipe(tmp_path, monkeypatch):
    path = tmp_path / "t.json"
    path.write_text(CASES["kineto layout"]())
    monkeypatch.setenv(D.JOBS_ENV, "1")
    one = D.decode(path)
    monkeypatch.delenv(D.JOBS_ENV)
    monkeypatch.setattr(D, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(D, "_cpus", lambda: 2)
    monkeypatch.setattr(D, "_area_bytes", lambda ranges: 0)  # one page: most columns overflow
    _slow_front(monkeypatch)
    _assert_same(D.decode(path), one)

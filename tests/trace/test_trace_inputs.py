"""Which paths the loader reads (files, directories of rank traces) and how it refuses the
ones it cannot use: always TraceError, one line, naming the file."""

from __future__ import annotations

import json
import re

import pytest

from bottleneck_lab import TraceError as TopLevelTraceError
from bottleneck_lab.trace import TraceError, load_frame, load_trace
from bottleneck_lab.trace.synth import training_trace, write_text


def rank_dir(tmp_path):
    """Three rank files whose names sort differently from their ranks."""
    d = tmp_path / "job"
    d.mkdir()
    training_trace(rank=2, world_size=3).write(d / "a_worker.json.gz", compact=True)
    training_trace(rank=0, world_size=3).write(d / "b_worker.json")
    training_trace(rank=1, world_size=3).write(d / "c_worker.json", compact=True)
    (d / "README.md").write_text("not a trace\n")
    return d


def test_directory_of_rank_files_sorted_by_rank_from_distributed_info(tmp_path):
    d = rank_dir(tmp_path)
    frames = load_trace(d)
    assert [f.rank for f in frames] == [0, 1, 2]
    assert [f.path.rsplit("/", 1)[-1] for f in frames] == [
        "b_worker.json",
        "c_worker.json",
        "a_worker.json.gz",
    ]
    assert all(f.warnings == [] and len(f.steps) == 3 for f in frames)


def test_compact_json_rank_is_read(tmp_path):
    path = training_trace(rank=5, world_size=8).write(tmp_path / "t.json", compact=True)
    assert '"distributedInfo":{"backend":"nccl","rank":5' in path.read_text()
    assert load_frame(path).rank == 5


@pytest.mark.parametrize(
    ("info", "rank"),
    [(None, 0), ({"backend": "gloo"}, 0), ({"rank": "3"}, 3), ({"rank": "first"}, 0)],
)
def test_rank_defaults_to_zero(tmp_path, info, rank):
    trace = training_trace().to_dict()
    if info is not None:
        trace["distributedInfo"] = info
    assert load_frame(write_text(tmp_path / "t.json", json.dumps(trace))).rank == rank


def test_non_trace_json_beside_rank_files_is_skipped_with_a_warning(tmp_path):
    d = rank_dir(tmp_path)
    write_text(d / "execution_trace.json", '{"schema": "1.0.1", "nodes": []}')
    frames = load_trace(d)
    assert [f.rank for f in frames] == [0, 1, 2]
    assert all(any("execution_trace.json" in w for w in f.warnings) for f in frames)


def test_capture_sidecars_beside_rank_files_are_left_out_without_a_warning(tmp_path):
    # bottleneck_lab.capture writes <name>.meta.json beside each trace (traces/zoo/ddp_slow_rank)
    d = rank_dir(tmp_path)
    write_text(d / "a_worker.meta.json", '{"schema": "bottleneck-lab/demo-meta/1"}')
    frames = load_trace(d)
    assert [f.rank for f in frames] == [0, 1, 2]
    assert not any("meta.json" in w for f in frames for w in f.warnings)


def test_directory_of_only_unusable_files_is_an_error(tmp_path):
    write_text(tmp_path / "empty.json", b"")
    write_text(tmp_path / "et.json", '{"schema": "1.0.1", "nodes": []}')
    with pytest.raises(TraceError, match="no readable trace"):
        load_trace(tmp_path)


def test_load_frame_refuses_a_directory(tmp_path):
    with pytest.raises(TraceError, match="directory"):
        load_frame(rank_dir(tmp_path))


def test_trace_error_is_exported_at_top_level():
    assert TopLevelTraceError is TraceError


def test_unusable_input_raises_trace_error_naming_the_file(unusable):
    with pytest.raises(TraceError) as info:
        load_trace(unusable.path)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(str(unusable.path))
    assert info.value.path == str(unusable.path)
    assert re.search(unusable.says, info.value.problem, re.IGNORECASE), message


def test_pid_beyond_int64_is_read_or_refused(tmp_path):
    trace = {
        "traceEvents": [
            {
                "ph": "X",
                "cat": "cpu_op",
                "name": "aten::mm",
                "pid": 2**70,
                "tid": 1,
                "ts": 1.0,
                "dur": 2.0,
            }
        ]
    }
    try:
        load_trace(write_text(tmp_path / "t.json", json.dumps(trace)))
    except TraceError:
        pass


def test_error_stays_one_line_when_keys_hold_newlines(tmp_path):
    path = write_text(tmp_path / "t.json", json.dumps({"bad\nkey": 1}))
    with pytest.raises(TraceError) as info:
        load_trace(path)
    assert "\n" not in str(info.value)

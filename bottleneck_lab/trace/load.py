"""load_trace: a file or a directory of per-rank files -> TraceFrames."""

from __future__ import annotations

from pathlib import Path

from .decode import decode
from .errors import TraceError
from .frame import TraceFrame, build_frame

TRACE_SUFFIXES = (".json", ".json.gz")
# bottleneck_lab.capture writes its sidecar beside each trace: ours, and not a trace to warn about
SIDECAR_SUFFIX = ".meta.json"


def _rank(info: dict) -> int:
    rank = info.get("rank", 0)
    try:
        return int(rank)
    except (TypeError, ValueError):
        return 0


def load_frame(path: str | Path) -> TraceFrame:
    """Read one trace file (.json or .json.gz) into a TraceFrame. Raises TraceError."""
    path = Path(path)
    if path.is_dir():
        raise TraceError(path, "is a directory; use load_trace for a directory of rank traces")
    raw = decode(path)
    return build_frame(raw, _rank(raw.distributed_info))


def trace_files(path: str | Path) -> list[Path]:
    """The files `load_trace` reads: the file itself, or a directory's .json/.json.gz files
    (capture sidecars, *.meta.json, left out), sorted. Raises TraceError when there is nothing
    to read."""
    path = Path(path)
    if not path.exists():
        raise TraceError(path, "no such file or directory")
    if not path.is_dir():
        return [path]
    files = sorted(
        p
        for p in path.iterdir()
        if p.is_file() and p.name.endswith(TRACE_SUFFIXES) and not p.name.endswith(SIDECAR_SUFFIX)
    )
    if not files:
        raise TraceError(path, "directory holds no .json or .json.gz trace files")
    return files


def directory_warnings(path: str | Path, ranks: list[int], skipped: list[str]) -> list[str]:
    """What every rank of a directory is told: the files skipped (`skipped`, one line each) and
    ranks claimed by several files. Raises TraceError when no file was readable (`ranks` empty)."""
    if not ranks:
        raise TraceError(Path(path), f"no readable trace in directory ({skipped[0]})")
    shared = sorted({r for r in ranks if ranks.count(r) > 1})
    if shared:  # e.g. several runs of one process saved by tensorboard_trace_handler
        skipped = skipped + [
            f"several files claim rank {', '.join(map(str, shared))}: each is analysed as "
            "its own trace; analyse one file at a time to compare runs"
        ]
    return skipped


def load_trace(path: str | Path) -> list[TraceFrame]:
    """One TraceFrame per rank, sorted by rank: a single file gives a list of one.

    In a directory every .json/.json.gz file is read; files that are not Kineto traces (an
    execution trace beside the profiler trace, say) are skipped with a warning on the frames,
    and only a directory with no readable trace at all is an error.
    """
    files = trace_files(path)
    if not Path(path).is_dir():
        return [load_frame(files[0])]
    frames, skipped = [], []
    for f in files:
        try:
            frames.append(load_frame(f))
        except TraceError as exc:
            skipped.append(f"skipped {exc}")
    frames.sort(key=lambda fr: (fr.rank, fr.path))
    warnings = directory_warnings(path, [fr.rank for fr in frames], skipped)
    for fr in frames:
        fr.warnings.extend(warnings)
    return frames

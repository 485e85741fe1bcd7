"""Bytes on disk -> flat numpy columns, one row per useful trace event.

This is the only module that knows the Chrome-trace JSON layout. It is built for traces of
hundreds of megabytes: the `traceEvents` array is decoded piece by piece into typed structs
(msgspec), and each chunk is turned into compact numpy columns at once, so the peak memory is the
file's bytes plus the columns, not a list of millions of dicts. The pieces are cut where the text
shows one event ending and the next beginning (`_fast_columns`, checked by decoding); when that
guess fails, msgspec first splits the whole array into raw slices (`_split_top`, `_columns`).

Real traces are messy, so every step has a gentler fallback: NaN/Infinity and invalid string
escapes are repaired in the bytes, and a chunk whose events do not fit the typed schema is
decoded loosely, event by event, dropping (and counting) only what cannot be read at all.
"""

from __future__ import annotations

import atexit
import gc
import gzip
import mmap
import os
import pickle
import re
import signal
import struct
import zlib
from dataclasses import dataclass, field
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import Any, Union

import msgspec
import numpy as np

from .errors import TraceError

CHUNK_EVENTS = 2000  # small chunks stay in cache and recycle the allocator's arenas (measured: 2k-event chunks decode 1.4x faster than 50k)

# Row kinds. Categories drift across PyTorch versions; they all map onto these.
OTHER, KERNEL, MEMCPY, MEMSET, RUNTIME, CPU_OP, ANNOTATION, GPU_ANNOTATION, MEMORY, PYTHON, SYNC = (
    range(11)
)

KIND_OF_CATEGORY = {
    "kernel": KERNEL,
    "gpu_memcpy": MEMCPY,
    "memcpy": MEMCPY,
    "gpu_memset": MEMSET,
    "memset": MEMSET,
    "cuda_runtime": RUNTIME,
    "runtime": RUNTIME,
    "cuda_driver": RUNTIME,
    "cpu_op": CPU_OP,
    "operator": CPU_OP,
    "user_annotation": ANNOTATION,
    "trace": ANNOTATION,  # the profiler's own span, "PyTorch Profiler (0)": its window
    "gpu_user_annotation": GPU_ANNOTATION,
    "python_function": PYTHON,
    "cuda_sync": SYNC,
}


# Numbers in args are sometimes strings (ROCm writes "stream": "0x0"); convert them later.
Num = float | str | None


class Args(
    msgspec.Struct,
    frozen=True,
    gc=False,
    rename={
        "external_id": "External id",
        "input_dims": "Input Dims",
        "input_type": "Input type",
        "concrete_inputs": "Concrete Inputs",
        "seq": "Sequence number",
        "occupancy_pct": "est. achieved occupancy %",
        "total_allocated": "Total Allocated",
        "total_reserved": "Total Reserved",
        "alloc_bytes": "Bytes",
        "addr": "Addr",
        "device_id": "Device Id",
        "device_type": "Device Type",
    },
):
    """The `args` keys the analysis reads; every other key is skipped while decoding."""

    external_id: Num = None
    correlation: Num = None
    device: Num = None
    stream: Num = None
    grid: Any = None
    block: Any = None
    bytes: Num = None
    occupancy_pct: Num = None
    # Shapes stay raw JSON here: they repeat every step, so each distinct one is decoded once
    # (_Columns._objects); building millions of nested lists was 40% of the typed decode.
    input_dims: msgspec.Raw = None
    input_type: msgspec.Raw = None
    concrete_inputs: msgspec.Raw = None
    seq: Num = None
    total_allocated: Num = None
    total_reserved: Num = None
    alloc_bytes: Num = None
    addr: Num = None
    device_id: Num = None
    device_type: Num = None


NO_ARGS = Args()


class Event(msgspec.Struct, gc=False):
    ph: str | None = None
    cat: str | None = None
    name: str | None = None
    pid: int | str | None = None
    tid: int | str | None = None
    ts: Num = None
    dur: Num = None
    args: Args = NO_ARGS


class _Phased(msgspec.Struct, gc=False, tag_field="ph"):
    """Event read in a union tagged by `ph` (the fast path): one class per phase below."""

    cat: str | None = None
    name: str | None = None
    pid: int | str | None = None
    tid: int | str | None = None
    ts: Num = None
    dur: Num = None
    args: Args = NO_ARGS


class _Flow(msgspec.Struct, gc=False, tag_field="ph"):
    """A flow event ("s", "t", "f": a third of a trace) keeps only its category, which
    `_Columns.add` reads of every event: always one that makes no row, or the fast path gives up
    (a row needs the fields skipped here). Skipping the rest, not allocating it, saves ~10% of
    the decode. Its name is not read either (a class attribute, not a field), so a name only
    flows carry ("ac2g") is not in the name table: the table holds names of rows."""

    cat: str | None = None
    name = None  # not decoded


# The Chrome trace format's phases. An event of any other phase, or without one, fails the tagged
# decode; its piece is then decoded untagged, as `Event`s.
_FULL_PHASES = "B E X i I C b n e S T p F P N O D M V v R c ( )".split()


def _phase_class(base: type, ph: str) -> type:
    return msgspec.defstruct(f"{base.__name__}_{ord(ph)}", [], bases=(base,), tag=ph, gc=False)


_PHASED = tuple(_phase_class(_Phased, ph) for ph in _FULL_PHASES)
_FLOWS = tuple(_phase_class(_Flow, ph) for ph in "stf")

_decode_top = msgspec.json.Decoder(dict[str, msgspec.Raw]).decode
_decode_raw_list = msgspec.json.Decoder(list[msgspec.Raw]).decode
_decode_events = msgspec.json.Decoder(list[Event]).decode
_decode_tagged = msgspec.json.Decoder(list[Union[_PHASED + _FLOWS]]).decode  # noqa: UP007
_decode_any = msgspec.json.Decoder().decode


@dataclass
class RawTrace:
    """The decoded file: flat event columns plus the trace's top-level metadata."""

    path: str
    tables: dict[int, dict[str, np.ndarray]]  # row kind -> column name -> values
    names: list[str]  # the "name" columns hold codes into this list
    metadata: dict[str, Any]
    device_properties: list[dict]
    distributed_info: dict
    dropped_events: int = 0
    repairs: list[str] = field(default_factory=list)


def read_bytes(path: Path) -> bytes | mmap.mmap:
    """The file's JSON bytes, gunzipped when it is gzip (by content, not by name).

    Plain JSON is memory-mapped rather than read: the decoder reads the page cache directly,
    which saves copying a file that can be gigabytes.
    """
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size == 0:
                raise TraceError(path, "file is empty")
            if fh.read(2) != b"\x1f\x8b":
                return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
            fh.seek(0)
            compressed = fh.read()
    except FileNotFoundError:
        raise TraceError(path, "no such file") from None
    except IsADirectoryError:
        raise TraceError(path, "is a directory") from None
    except OSError as exc:
        raise TraceError(path, f"cannot read: {exc.strerror or exc}") from None
    try:
        data = gzip.decompress(compressed)
    except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
        raise TraceError(path, f"gzip data is truncated or corrupt ({exc})") from None
    if not data:
        raise TraceError(path, "gzip file holds no data")
    return data


_BAD_NUMBER = re.compile(rb"(?<=[:,\[])(\s*)(-?(?:NaN|nan|Infinity|inf))(?=\s*[,\]}])")
_ESCAPE = re.compile(rb"\\(.)", re.DOTALL)
_VALID_ESCAPES = frozenset(b'"\\/bfnrtu')


def _fix_escape(m: re.Match) -> bytes:
    return m.group(0) if m.group(1)[0] in _VALID_ESCAPES else b"\\\\" + m.group(1)


def repair_json(data: bytes) -> tuple[bytes, list[str]]:
    """Make common non-JSON that profilers emit parseable: NaN/Infinity, invalid escapes."""
    repairs = []
    fixed, n = _BAD_NUMBER.subn(rb"\1null", data)
    if n:
        repairs.append(f"{n} NaN/Infinity values read as null")
    fixed2 = _ESCAPE.sub(_fix_escape, fixed)
    if fixed2 != fixed:
        repairs.append("invalid string escapes read literally")
    return fixed2, repairs


def _json_problem(exc: Exception) -> str:
    msg = str(exc)
    if "truncated" in msg.lower():
        return f"JSON is truncated ({msg})"
    return f"not valid JSON ({msg})"


def _split_top(data: bytes, path: str) -> tuple[dict[str, msgspec.Raw], list[str]]:
    repairs: list[str] = []
    try:
        top = _decode_top(data)
    except msgspec.ValidationError:
        top = None  # valid JSON, but not an object: classified below
    except msgspec.DecodeError as exc:
        data, repairs = repair_json(data)
        try:
            top = _decode_top(data)
        except msgspec.ValidationError:
            top = None
        except msgspec.DecodeError:
            raise TraceError(path, _json_problem(exc)) from None
    if top is None:
        if _is_event_array(data):
            # The Chrome trace format also allows a bare array of events (other tools write it).
            return {"traceEvents": msgspec.Raw(memoryview(data))}, repairs
        raise TraceError(path, _not_a_trace(data))
    return top, repairs


def _is_event_array(data: bytes) -> bool:
    try:
        items = _decode_raw_list(data)
    except (msgspec.ValidationError, msgspec.DecodeError):
        return False
    if not items:
        return False
    try:
        first = _decode_any(items[0])
    except msgspec.DecodeError:
        return False
    return isinstance(first, dict) and "ph" in first


def _not_a_trace(data: bytes) -> str:
    """Say what a JSON document that is not a Kineto trace object seems to be."""
    try:
        doc = _decode_any(data)
    except msgspec.DecodeError:
        return "not a JSON object"
    if isinstance(doc, list) and doc and isinstance(doc[0], list):
        return (
            "looks like a torch.profiler export_memory_timeline file, not a Chrome trace; "
            "capture with profile_memory=True and pass the trace instead"
        )
    if isinstance(doc, list):
        return "JSON array without trace events; expected a Kineto trace object with traceEvents"
    return f"JSON {type(doc).__name__} is not a Kineto trace"


def decode(path: Path) -> RawTrace:
    early = _take_early(path)
    data = early.data if early is not None else read_bytes(path)
    fast = _fast_columns(data, early)
    if fast is not None:
        top, (tables, names, dropped) = fast
        return _raw_trace(path, top, tables, names, dropped, [])
    top, repairs = _split_top(data, str(path))
    if "traceEvents" not in top:
        if "nodes" in top and "schema" in top:
            problem = (
                "is a PyTorch execution trace (ExecutionTraceObserver), not a Kineto trace; "
                "pass the profiler's trace file instead"
            )
        else:
            keys = ", ".join(repr(k)[1:-1] for k in sorted(top)[:5]) or "none"
            problem = f"JSON object has no traceEvents (keys: {keys}); not a Kineto trace"
        raise TraceError(path, problem)
    try:
        raw_events = _decode_raw_list(top.pop("traceEvents"))
    except msgspec.ValidationError:
        raise TraceError(path, "traceEvents is not a list") from None
    tables, names, dropped = _columns(raw_events, data if isinstance(data, mmap.mmap) else None)
    del data
    return _raw_trace(path, top, tables, names, dropped, repairs)


def _raw_trace(
    path: Path,
    top: dict[str, msgspec.Raw],
    tables: dict[int, dict[str, np.ndarray]],
    names: list[str],
    dropped: int,
    repairs: list[str],
) -> RawTrace:
    metadata = {}
    for key, raw in top.items():
        if key == "traceEvents":
            continue
        try:
            metadata[key] = _decode_any(raw)
        except msgspec.DecodeError:
            continue
    props = metadata.pop("deviceProperties", None)
    dist = metadata.pop("distributedInfo", None)
    return RawTrace(
        path=str(path),
        tables=tables,
        names=names,
        metadata=metadata,
        device_properties=[p for p in props if isinstance(p, dict)]
        if isinstance(props, list)
        else [],
        distributed_info=dist if isinstance(dist, dict) else {},
        dropped_events=dropped,
        repairs=repairs,
    )


def _decode_chunk(raws: list[msgspec.Raw]) -> tuple[list[Event], int]:
    """Typed decode of one chunk; on a schema mismatch, event by event and leniently."""
    try:
        return _decode_events(b"[" + b",".join(raws) + b"]"), 0
    except (msgspec.ValidationError, msgspec.DecodeError):
        pass
    events, dropped = [], 0
    for raw in raws:
        try:
            obj = _decode_any(raw)
            if isinstance(obj, dict) and isinstance(obj.get("args"), dict):
                obj["args"] = {
                    k: msgspec.Raw(msgspec.json.encode(v)) if k in _RAW_ARG_KEYS else v
                    for k, v in obj["args"].items()
                    if v is not None
                }
            events.append(msgspec.convert(obj, Event, strict=False))
        except (msgspec.ValidationError, msgspec.DecodeError, TypeError):
            dropped += 1
    return events, dropped


_RAW_ARG_KEYS = frozenset(("Input Dims", "Input type", "Concrete Inputs"))


def _kind(cat: str | None) -> int:
    """Row kind of a category. Flows, metadata and counters have categories we drop."""
    if cat is None:
        return OTHER
    if cat in ("cpu_instant_event", "memory"):
        return MEMORY  # instant events: the frame keeps only the ones named "[memory]"
    kind = KIND_OF_CATEGORY.get(cat)
    return kind if kind is not None else KIND_OF_CATEGORY.get(cat.lower(), OTHER)


# Which args each kind of row needs: reading only these keeps decoding fast.
GPU_ARGS = ("external_id", "correlation", "device", "stream", "bytes", "occupancy_pct")
ARGS_OF_KIND = {
    KERNEL: GPU_ARGS,
    MEMCPY: GPU_ARGS,
    MEMSET: GPU_ARGS,
    SYNC: GPU_ARGS,
    RUNTIME: ("external_id", "correlation"),
    CPU_OP: ("external_id", "seq"),
    ANNOTATION: ("external_id",),
    GPU_ANNOTATION: ("external_id", "device", "stream"),
    PYTHON: (),
    MEMORY: (
        "total_allocated",
        "total_reserved",
        "alloc_bytes",
        "addr",
        "device_id",
        "device_type",
    ),
}
OBJECT_ARGS_OF_KIND = {
    CPU_OP: ("input_dims", "input_type", "concrete_inputs"),
}


def _floats_of(get: Any, items: tuple | list) -> np.ndarray:
    """`_floats` of `get` applied to each item, without a list in between when all are numbers."""
    try:
        return np.fromiter(map(get, items), dtype=np.float64, count=len(items))
    except (TypeError, ValueError, OverflowError):
        return _floats(list(map(get, items)))


def _floats(values: list) -> np.ndarray:
    """Numbers (None -> NaN); strings such as "12" or "0x0" are parsed, anything else is NaN."""
    try:
        return np.fromiter(values, dtype=np.float64, count=len(values))  # fast path: all numbers
    except (TypeError, ValueError, OverflowError):
        pass
    try:
        return np.array(values, dtype=np.float64)  # None -> NaN
    except (TypeError, ValueError, OverflowError):
        return np.array([_parse_number(v) for v in values], dtype=np.float64)


def _parse_number(v: Any) -> float:
    if v is None:
        return float("nan")
    for parse in (float, lambda x: float(int(x, 0))):
        try:
            return parse(v)
        except (TypeError, ValueError, OverflowError):
            continue
    return float("nan")


def _grid_size(g: Any) -> float | None:
    if not isinstance(g, list) or not g:
        return None
    try:
        n = 1.0
        for x in g:
            n *= float(x)
        return n
    except (TypeError, ValueError):
        return None


def _sizes(dims: list) -> np.ndarray:
    """Blocks in each grid (x*y*z); NaN where absent or malformed."""
    if not any(dims):
        return np.full(len(dims), np.nan)
    try:
        arr = np.array(dims, dtype=np.float64)
        if arr.ndim == 2:
            return arr.prod(axis=1)
    except (TypeError, ValueError):
        pass
    return np.array([_grid_size(g) for g in dims], dtype=np.float64)


def _codes(names: tuple, codes: dict[str | None, int]) -> np.ndarray:
    """Each name's index in the shared name table, adding names seen for the first time."""
    for n in set(names).difference(codes):
        codes[n] = len(codes) - 1  # the table starts {"": 0, None: 0}: None is no name of its own
    return np.fromiter(map(codes.__getitem__, names), dtype=np.int32, count=len(names))


_CAT, _TS, _DUR, _NAME, _PID, _TID, _ARGS, _GRID, _BLOCK = map(
    attrgetter, ("cat", "ts", "dur", "name", "pid", "tid", "args", "grid", "block")
)


class _Columns:
    """Accumulates numpy column chunks per row kind."""

    def __init__(self) -> None:
        self.name_codes: dict[str | None, int] = {"": 0, None: 0}
        self.string_ids: dict[Any, int] = {}
        self.kind_of_category: dict[str | None, int] = {}
        self.objects: dict[bytes, Any] = {b"null": None}  # raw JSON -> its decoded value
        self.parts: dict[int, dict[str, list]] = {}

    def _ids(self, get: Any, items: tuple | list) -> np.ndarray:
        """pid/tid (`get` of each item) as ints; the rare string id gets a stable negative code."""
        try:
            return np.fromiter(map(get, items), dtype=np.int64, count=len(items))
        except (TypeError, ValueError, OverflowError):
            values = list(map(get, items))
            extra = self.string_ids
            return np.array(
                [
                    v
                    if type(v) is int and -(2**63) <= v < 2**63
                    else extra.setdefault(v, -1 - len(extra))
                    for v in values
                ],
                dtype=np.int64,
            )

    def _objects(self, values: list) -> np.ndarray:
        """Raw JSON values (None = absent) decoded, each distinct text once; rows with the same
        shapes share one (read-only) list."""
        if values.count(None) == len(values):  # traces recorded without shapes
            return np.empty(len(values), dtype=object)  # all None
        keys = [b"null" if v is None else bytes(v) for v in values]
        known = self.objects
        new = list(set(keys).difference(known))
        if new:
            known.update(zip(new, _decode_any(b"[" + b",".join(new) + b"]")))
        col = np.empty(len(keys), dtype=object)
        col[:] = list(map(known.__getitem__, keys))
        return col

    def add(self, events: list[Event]) -> None:
        # One C-level pass per field (map(attrgetter) fed straight to numpy): far cheaper than
        # a Python step per event, or than transposing per-event tuples.
        n = len(events)
        cats = list(map(_CAT, events))
        kind_of = self.kind_of_category
        for cat in set(cats).difference(kind_of):
            kind_of[cat] = _kind(cat)
        kinds = np.fromiter(map(kind_of.__getitem__, cats), dtype=np.int8, count=n)
        names = _codes(list(map(_NAME, events)), self.name_codes)  # all names, as before
        for kind in np.unique(kinds).tolist():
            if kind == OTHER:  # flows, metadata: a third of a trace, no column needs them
                continue
            rows = np.flatnonzero(kinds == kind)
            picked = itemgetter(*rows.tolist())(events) if len(rows) > 1 else (events[rows[0]],)
            chunk = {
                "ts": _floats_of(_TS, picked),
                "dur": _floats_of(_DUR, picked),
                "name": names[rows],
                "pid": self._ids(_PID, picked),
                "tid": self._ids(_TID, picked),
            }
            args = list(map(_ARGS, picked))
            for f in ARGS_OF_KIND.get(kind, ()):
                chunk[f] = _floats_of(attrgetter(f), args)
            for f in OBJECT_ARGS_OF_KIND.get(kind, ()):
                chunk[f] = self._objects(list(map(attrgetter(f), args)))
            if kind in (KERNEL, RUNTIME):  # ROCm writes grid and block on the launch call
                chunk["grid"] = _sizes(list(map(_GRID, args)))
                chunk["block"] = _sizes(list(map(_BLOCK, args)))
            parts = self.parts.setdefault(kind, {})
            for k, v in chunk.items():
                parts.setdefault(k, []).append(v)

    def finish(self) -> dict[int, dict[str, np.ndarray]]:
        tables = {}
        for kind, parts in self.parts.items():
            cols = {k: np.concatenate(v) for k, v in parts.items()}
            dur = np.nan_to_num(cols["dur"], nan=0.0)
            cols["dur"] = np.maximum(dur, 0.0)  # negative durations are broken events
            tables[kind] = cols
        return tables


RELEASE_EVERY_CHUNKS = 32  # ~64k events: how often the pages already decoded are handed back


def _release(mapped: mmap.mmap | None) -> None:
    """Drop the mapped file's pages from this process (they stay in the page cache, and the
    kernel maps them again if touched): without it the whole file counts in the peak RSS."""
    if mapped is not None and hasattr(mmap, "MADV_DONTNEED"):
        mapped.madvise(mmap.MADV_DONTNEED)


def _columns(
    raw_events: list[msgspec.Raw], mapped: mmap.mmap | None = None
) -> tuple[dict[int, dict[str, np.ndarray]], list[str], int]:
    acc = _Columns()
    dropped_total = 0
    gc_was_on = gc.isenabled()
    gc.disable()  # millions of short-lived containers: collection passes would only cost time
    try:
        _release(mapped)  # splitting the array touched every page
        for i, start in enumerate(range(0, len(raw_events), CHUNK_EVENTS)):
            chunk = raw_events[start : start + CHUNK_EVENTS]
            raw_events[start : start + CHUNK_EVENTS] = [None] * len(chunk)  # consumed: free it
            events, dropped = _decode_chunk(chunk)
            del chunk
            dropped_total += dropped
            if events:
                acc.add(events)
            del events
            if i % RELEASE_EVERY_CHUNKS == RELEASE_EVERY_CHUNKS - 1:
                _release(mapped)
    finally:
        if gc_was_on:
            gc.enable()
    names = [n for n in acc.name_codes if n is not None]  # None shares the code of ""
    return acc.finish(), names, dropped_total


# The fast path: find the `traceEvents` array in the bytes and decode it in pieces of about this
# many bytes, cut where one event ends and the next begins. This skips the two passes of the
# general path that only split the file (the top-level object, then the array into 2 million raw
# slices, 1 s and ~150 MB on a 471 MB trace).
PIECE_BYTES = (
    1 << 17
)  # measured on the 471 MB trace: 64 to 256 KB pieces decode fastest (2.2 s), 2 MB 3.4 s
_EVENTS_KEY = re.compile(rb'"traceEvents"[ \t\n\r]*:[ \t\n\r]*\[')
_BOUNDARY = re.compile(rb"\}[ \t\n\r]*,[ \t\n\r]*\{")  # "}, {" between two events, as JSON allows
_MARKER = b'"bottleneck-lab: traceEvents"'
_LAST_BRACKETS = 64  # candidates for the array's closing "]" tried from the end of the file


def _fast_columns(
    data: bytes | mmap.mmap,
    early: _Early | None = None,
) -> tuple[dict[str, msgspec.Raw], tuple[dict[int, dict[str, np.ndarray]], list[str], int]] | None:
    """Columns of a well-formed trace without splitting it first, or None: then the general path
    (`_split_top`, `_columns`) decodes the file, and gives exactly what it always gave.

    Every guess this path makes about the text is checked by decoding: a cut inside a string or a
    nested value leaves a piece that is not a complete list of values, so the decoder rejects it;
    the rest of the document, with the array replaced by a marker string, must decode as an
    object whose `traceEvents` is that marker. Any JSON error, any event the typed schema does
    not fit (the general path then reads its chunk leniently) and any surprise gives None.
    """
    bounds = early.bounds if early is not None else _array_bounds(data)
    top = _top_without_events(data, bounds)
    if top is None:
        if early is not None:
            early.stop()
        return None
    begin, end = bounds
    mapped = data if isinstance(data, mmap.mmap) else None
    ranges = early.ranges if early is not None else _ranges(data, begin, end)
    if ranges is None:
        acc = _Columns()
        if not _decode_range(data, begin, end, acc, mapped):
            return None
    else:
        acc = _decode_in_two(data, ranges, mapped, early)
        if acc is None:
            return None
    names = [n for n in acc.name_codes if n is not None]
    return top, (acc.finish(), names, 0)


def _array_bounds(data: bytes | mmap.mmap) -> tuple[int, int] | None:
    """Where the traceEvents array's events begin (after its "[") and end (its "]"), guessed
    from the text; `_top_without_events` checks the guess."""
    found = _EVENTS_KEY.search(data)
    if found is None:
        return None
    begin = found.end()  # just after the array's "["
    end = _array_end(data, begin)
    return None if end is None else (begin, end)


def _top_without_events(
    data: bytes | mmap.mmap, bounds: tuple[int, int] | None
) -> dict[str, msgspec.Raw] | None:
    """The document with the array replaced by a marker, decoded; None unless the marker is its
    top-level traceEvents (then the guessed bounds are the array's)."""
    if bounds is None:
        return None
    begin, end = bounds
    try:
        top = _decode_top(data[: begin - 1] + _MARKER + data[end + 1 :])
    except (msgspec.ValidationError, msgspec.DecodeError):
        return None
    raw = top.get("traceEvents")
    return top if raw is not None and bytes(raw) == _MARKER else None


def _decode_range(
    data: bytes | mmap.mmap, pos: int, end: int, acc: _Columns, mapped: mmap.mmap | None
) -> bool:
    """Decode the events between `pos` (an event's "{") and `end` (just after the last one's
    "}") into `acc`; False when a piece does not decode (the caller falls back)."""
    pending: list = []
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        pieces = 0
        while pos < end:
            cut = end
            if end - pos > PIECE_BYTES:
                m = _BOUNDARY.search(data, pos + PIECE_BYTES, end)
                if m is not None:
                    cut = m.start() + 1
            piece = b"[" + data[pos:cut] + b"]"
            try:
                events = _decode_tagged(piece)
            except msgspec.ValidationError:  # a phase not in the union, or none: read untagged
                try:
                    events = _decode_events(piece)
                except (msgspec.ValidationError, msgspec.DecodeError):
                    return False
            except msgspec.DecodeError:
                return False
            del piece
            pos = end if cut == end else m.end() - 1
            # Columns are built from the same 2,000-event chunks as the general path: the codes
            # of string pids/tids are numbered per chunk.
            if pending:
                pending.extend(events)
            else:
                pending = events
            del events
            try:
                while len(pending) >= CHUNK_EVENTS:
                    acc.add(pending[:CHUNK_EVENTS])
                    del pending[:CHUNK_EVENTS]
                if cut == end and pending:
                    acc.add(pending)
            except AttributeError:  # a flow event whose category makes a row: it needs all fields
                return False
            pieces += 1
            if pieces % RELEASE_EVERY_CHUNKS == 0:
                _release(mapped)
    finally:
        if gc_was_on:
            gc.enable()
    return True


# Two processes: on a trace this large, when a second CPU is there, a forked child decodes
# ranges of the event array from its end while this process decodes from its start, until they
# meet; each takes the next range when done with one, so a child slowed by a busy CPU takes fewer.
# 10x trace (471 MB) on the 2-core machine: decode wall ~1.9 s in one process, 1.10-1.15 s in two.
PARALLEL_MIN_BYTES = 64 << 20
PARALLEL_RANGES = (
    64  # ~7 MB each on the 10x trace: the side that finishes first waits at most ~40 ms
)
JOBS_ENV = "BOTTLENECK_LAB_DECODE_JOBS"  # "1": always one process


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _ranges(data: bytes | mmap.mmap, begin: int, end: int) -> list[tuple[int, int]] | None:
    """The event array cut into PARALLEL_RANGES ranges at event boundaries (each from an
    event's "{" to just after an event's "}"), or None when one process decodes it all: a small
    file, one CPU, no fork, or asked for. A cut inside a string fails the decode: fallback."""
    if (
        end - begin < PARALLEL_MIN_BYTES
        or os.environ.get(JOBS_ENV) == "1"
        or not hasattr(os, "fork")
        or _cpus() < 2
    ):
        return None
    out, pos = [], begin
    for i in range(1, PARALLEL_RANGES):
        m = _BOUNDARY.search(data, max(pos, begin + (end - begin) * i // PARALLEL_RANGES), end)
        if m is None:
            break
        out.append((pos, m.start() + 1))
        pos = m.end() - 1
    out.append((pos, end))
    return out if len(out) > 1 else None


class _Claims:
    """Which ranges are taken: the next from the front and from the back, in a shared page,
    behind a one-byte pipe used as a lock (both outlive the fork)."""

    def __init__(self, n: int, area_bytes: int) -> None:
        self.page = mmap.mmap(-1, 16)  # anonymous and shared
        # Where the child leaves its numeric columns: this process reads them in place, with no
        # copy through the pipe (virtual until written; only what is written takes memory).
        self.area = mmap.mmap(-1, max(area_bytes, mmap.PAGESIZE))
        self.page[:16] = struct.pack("<qq", 0, n - 1)
        self.lock_r, self.lock_w = os.pipe()
        os.write(self.lock_w, b"x")

    def take(self, front: bool) -> int | None:
        os.read(self.lock_r, 1)  # blocks while the other process holds it
        try:
            lo, hi = struct.unpack("<qq", self.page[:16])
            if lo > hi:
                return None
            self.page[:16] = (
                struct.pack("<qq", lo + 1, hi) if front else struct.pack("<qq", lo, hi - 1)
            )
            return lo if front else hi
        finally:
            os.write(self.lock_w, b"x")

    def close(self) -> None:
        os.close(self.lock_r)
        os.close(self.lock_w)
        self.page.close()  # (the area stays open while arrays are read from it)


def _decode_in_two(
    data: bytes | mmap.mmap,
    ranges: list[tuple[int, int]],
    mapped: mmap.mmap | None,
    early: _Early | None = None,
) -> _Columns | None:
    """The columns of all `ranges`, this process taking them from the front and a forked child
    from the back; the child's come back through a pipe (numpy buffers out of band) and are
    joined after this process's as one process would have numbered them. None when a range
    needs the fallback."""
    begin, end = ranges[0][0], ranges[-1][1]
    child = early.child if early is not None else _fork_child(data, ranges, mapped)
    if child is None:
        acc = _Columns()
        return acc if _decode_range(data, begin, end, acc, mapped) else None
    claims, r, pid = child
    acc = _Columns()
    ok = True
    try:
        while ok and (i := claims.take(front=True)) is not None:
            ok = _decode_range(data, *ranges[i], acc, mapped)
        theirs = _receive(r)
    finally:
        os.close(r)
        os.waitpid(pid, 0)
        claims.close()
    if not ok or theirs is None:
        return None
    if acc.string_ids or any(other["string_ids"] for _, other in theirs):
        # String pids/tids are numbered by where each first appears, chunk by chunk (2,000
        # events, then kind, then row): the ranges' chunks are not one process's chunks, so a
        # trace with any in its rows (rare: Kineto's own "Spans" and "Traces" events make no
        # rows) is decoded again here, whole, as one process decodes it.
        acc = _Columns()
        return acc if _decode_range(data, begin, end, acc, mapped) else None
    for _, other in sorted(theirs, key=lambda x: x[0]):
        _join(acc, other, claims.area)
    return acc


def _area_bytes(ranges: list[tuple[int, int]]) -> int:
    """Room for the child's numeric columns: they take ~100 bytes per event of ~220 bytes of
    JSON, so half the text holds them even if the child decoded everything (a column that does
    not fit goes through the pipe)."""
    return (ranges[-1][1] - ranges[0][0]) // 2


def _fork_child(
    data: bytes | mmap.mmap, ranges: list[tuple[int, int]], mapped: mmap.mmap | None
) -> tuple[_Claims, int, int] | None:
    """Start the child that takes ranges from the back: (claims, its pipe's read end, its pid),
    or None when it cannot be forked."""
    claims = _Claims(len(ranges), _area_bytes(ranges))
    r, w = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(r)
        os.close(w)
        claims.close()
        return None
    if pid == 0:  # the child: decode, send, and leave without running any cleanup of the parent
        code = 1
        try:
            os.close(r)
            done: list | None = []
            used = [0]  # bytes of claims.area written
            while (i := claims.take(front=False)) is not None:
                part = _Columns()
                if not _decode_range(data, *ranges[i], part, mapped):
                    done = None
                    break
                done.append((i, _child_result(part, claims.area, used)))
            _send(w, done)
            code = 0
        finally:
            os._exit(code)
    os.close(w)
    return claims, r, pid


@dataclass
class _Early:
    """A decode started before the analysis's imports (`start_early`): the child already takes
    ranges from the back while this process imports pandas and the rest."""

    key: tuple
    data: mmap.mmap
    bounds: tuple[int, int]
    ranges: list[tuple[int, int]]
    child: tuple[_Claims, int, int]

    def stop(self) -> None:
        """The early decode is not wanted: end the child and free what it holds."""
        claims, r, pid = self.child
        try:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        except OSError:
            pass
        os.close(r)
        claims.close()


_EARLY: list[_Early] = []


def _file_key(path: str | Path) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (os.path.realpath(path), st.st_ino, st.st_size, st.st_mtime_ns)


def start_early(path: str | Path) -> None:
    """Start decoding a large plain-JSON trace in a child process now, before the imports the
    analysis needs (pandas and the rest, ~0.4 s that the child spends decoding): `decode` of
    the same file picks it up. Does nothing when the two-process decode would not be used (a
    small, gzipped or odd file; one CPU) or a decode is already started; an early decode that
    is never picked up is ended at exit. Best effort: any problem leaves decode() as it was."""
    if _EARLY:
        return
    key = _file_key(path)
    if key is None:
        return
    try:
        with open(path, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b" or key[2] < PARALLEL_MIN_BYTES:
                return
            data = mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return
    bounds = _array_bounds(data)
    ranges = _ranges(data, *bounds) if bounds is not None else None
    child = _fork_child(data, ranges, data) if ranges is not None else None
    if child is None:
        data.close()
        return
    _EARLY.append(_Early(key, data, bounds, ranges, child))
    atexit.register(_stop_early)


def _take_early(path: str | Path) -> _Early | None:
    """The early decode of this very file (same inode, size and mtime), if one was started."""
    if not _EARLY:
        return None
    if _EARLY[0].key != _file_key(path):
        return None
    return _EARLY.pop()


def _stop_early() -> None:
    while _EARLY:
        _EARLY.pop().stop()


def _child_result(acc: _Columns, area: mmap.mmap, used: list[int]) -> dict:
    """What the child sends for one range: numeric columns written into the shared `area` (as
    (offset, dtype, length)), object columns and names in the message itself."""
    parts: dict[int, dict[str, Any]] = {}
    for kind, cols in acc.parts.items():
        parts[kind] = {}
        for c, chunks in cols.items():
            n, dtype = sum(len(x) for x in chunks), chunks[0].dtype
            start = -(-used[0] // 64) * 64
            if dtype.hasobject or start + n * dtype.itemsize > len(area):
                parts[kind][c] = np.concatenate(chunks)
                continue
            out = np.frombuffer(area, dtype=dtype, count=n, offset=start)
            np.concatenate(chunks, out=out)
            parts[kind][c] = (start, dtype.str, n)
            used[0] = start + n * dtype.itemsize
    return {"parts": parts, "names": list(acc.name_codes), "string_ids": acc.string_ids}


def _send(fd: int, obj: Any) -> None:
    buffers: list = []
    head = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append)
    views = [memoryview(b).cast("B") for b in buffers]
    sizes = [len(head)] + [len(v) for v in views]
    with os.fdopen(fd, "wb", buffering=0) as fh:
        fh.write(struct.pack(f"<q{len(sizes)}q", len(sizes), *sizes))
        for part in [memoryview(head), *views]:
            while len(part):
                part = part[fh.write(part) :]


def _receive(fd: int) -> Any:
    with os.fdopen(fd, "rb", buffering=0, closefd=False) as fh:

        def read(n: int) -> bytearray:
            buf = bytearray(n)
            view, got = memoryview(buf), 0
            while got < n:
                k = fh.readinto(view[got:])
                if not k:
                    raise EOFError("decode worker ended early")
                got += k
            return buf

        try:
            (count,) = struct.unpack("<q", read(8))
        except EOFError:
            return None  # the child failed before sending
        sizes = struct.unpack(f"<{count}q", read(8 * count))
        head = read(sizes[0])
        return pickle.loads(head, buffers=[read(n) for n in sizes[1:]])


def _join(acc: _Columns, other: dict, area: mmap.mmap) -> None:
    """Add the child's columns after this process's, with its name codes turned into ours: its
    names that are new to us get the next codes in the order it met them, as in one process
    (names new within one 2,000-event chunk are numbered in set order in either case)."""
    keys = other["names"]  # its name_codes' keys: "" and None (both code 0), then code 1, 2, ...
    code_of = np.zeros(max(len(keys) - 1, 1), dtype=np.int32)
    for code, n in enumerate(keys[2:], start=1):
        if n not in acc.name_codes:
            acc.name_codes[n] = len(acc.name_codes) - 1
        code_of[code] = acc.name_codes[n]
    for kind, cols in other["parts"].items():
        for c, v in cols.items():
            if isinstance(v, tuple):  # in the shared area: read in place
                start, dtype, n = v
                cols[c] = np.frombuffer(area, dtype=np.dtype(dtype), count=n, offset=start)
        cols["name"] = code_of[cols["name"]]
        parts = acc.parts.setdefault(kind, {})
        for c, v in cols.items():
            parts.setdefault(c, []).append(v)


def _array_end(data: bytes | mmap.mmap, begin: int) -> int | None:
    """Where the array that starts at `begin` most likely closes: the last "]" after the last
    event's "}" (or an empty array's "["). Only a guess; the caller checks it by decoding."""
    pos = len(data)
    for _ in range(_LAST_BRACKETS):
        pos = data.rfind(b"]", begin, pos)
        if pos < 0:
            return None
        before = pos - 1
        while before >= begin and data[before : before + 1] in b" \t\n\r":
            before -= 1
        if before < begin or data[before : before + 1] == b"}":
            return pos
    return None

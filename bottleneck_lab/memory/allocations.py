"""The memory curve of each device: allocated and reserved bytes after every allocator event,
its peak, and the device's capacity."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .. import facts
from ..trace import TraceFrame

CPU, CUDA = 0, 1  # `Device Type` of a [memory] event


def _cache(frame: TraceFrame) -> dict:
    return frame.__dict__.setdefault("_memory", {})


@dataclass(frozen=True, eq=False)
class MemoryCurve:
    """Allocator state after each [memory] event of one device, in time order."""

    device_type: int
    device_id: int
    ts: np.ndarray  # µs
    allocated: np.ndarray  # Total Allocated after the event, bytes
    reserved: np.ndarray  # Total Reserved after the event, bytes
    delta: np.ndarray  # the event's Bytes: + allocation, - free
    addr: np.ndarray
    pid: np.ndarray
    tid: np.ndarray
    step: np.ndarray  # steps row (-1 outside every step)

    def __len__(self) -> int:
        return len(self.ts)

    @property
    def initial(self) -> float:
        """Allocated before the first event."""
        return float(self.allocated[0] - self.delta[0]) if len(self) else 0.0

    def before(self, t: float | np.ndarray) -> np.ndarray:
        """Allocated just before time t (events at t not yet applied)."""
        i = np.searchsorted(self.ts, t, side="left") - 1
        return np.where(i >= 0, self.allocated[np.maximum(i, 0)], self.initial)

    def after(self, t: float | np.ndarray) -> np.ndarray:
        """Allocated just after time t (events at t applied)."""
        i = np.searchsorted(self.ts, t, side="right") - 1
        return np.where(i >= 0, self.allocated[np.maximum(i, 0)], self.initial)

    def freed_at(self) -> np.ndarray:
        """For each allocation, when its block was freed (inf if never in the trace; NaN for
        frees). Blocks are matched by address: the next event at the same address frees it."""
        n = len(self)
        order = np.lexsort((np.arange(n), self.addr))
        nxt = np.full(n, -1)
        same = self.addr[order[1:]] == self.addr[order[:-1]]
        nxt[order[:-1][same]] = order[1:][same]
        ok = nxt >= 0
        freed = np.where(
            ok & (self.delta[np.maximum(nxt, 0)] < 0), self.ts[np.maximum(nxt, 0)], np.inf
        )
        return np.where(self.delta > 0, freed, np.nan)


def memory_devices(frame: TraceFrame) -> list[tuple[int, int]]:
    """(device type, device id) of every device with [memory] events, highest peak first."""
    c = _cache(frame)
    if "devices" not in c:  # asked for by every curve(): a groupby over all [memory] events
        m = frame.memory
        if not len(m):
            c["devices"] = []
        else:
            peaks = (
                m.groupby(["device_type", "device_id"])["total_allocated"]
                .max()
                .sort_values(ascending=False)
            )
            c["devices"] = [(int(t), int(d)) for t, d in peaks.index]
    return list(c["devices"])


def default_device(frame: TraceFrame, device_type: int | None = None) -> tuple[int, int] | None:
    """The device the memory analysis describes: the main GPU (else the CUDA device with the
    highest peak); host memory only in a trace with no GPU work, or when asked for it."""
    devs = memory_devices(frame)
    if device_type is None:
        device_type = (
            CUDA if any(t == CUDA for t, _ in devs) else (CPU if not frame.has_gpu else None)
        )
    if device_type is None:
        return None
    of_type = [(t, d) for t, d in devs if t == device_type]
    if not of_type:
        return None
    main = facts.main_device(frame)
    return next(((t, d) for t, d in of_type if d == main), of_type[0])


def curve(
    frame: TraceFrame, device_type: int | None = None, device_id: int | None = None
) -> MemoryCurve | None:
    """The memory curve of one device (default: `default_device`); None without its events.

    `device_type` is 1 for CUDA (also HIP) memory and 0 for host memory, as the trace writes it.
    """
    if device_id is None:
        dev = default_device(frame, device_type)
        if dev is None:
            return None
        device_type, device_id = dev
    elif device_type is None:
        device_type = CUDA
    key = ("curve", device_type, device_id)
    c = _cache(frame)
    if key not in c:
        m = frame.memory
        sel = (m["device_type"].to_numpy() == device_type) & (
            m["device_id"].to_numpy() == device_id
        )
        if not sel.any():
            c[key] = None
        else:

            def col(name: str) -> np.ndarray:
                return m[name].to_numpy()[sel]

            alloc = np.nan_to_num(col("total_allocated"))
            c[key] = MemoryCurve(
                int(device_type),
                int(device_id),
                col("ts"),
                alloc,
                np.nan_to_num(col("total_reserved")),
                np.nan_to_num(col("alloc_bytes")),
                np.nan_to_num(col("addr"), nan=-1.0),
                col("pid"),
                col("tid"),
                col("step"),
            )
    return c[key]


def peak_memory_bytes(frame: TraceFrame) -> int | None:
    """Peak Total Allocated of the analysed device over the trace (what
    `torch.cuda.max_memory_allocated()` reports over the same steps); None without [memory]
    events of a GPU (or, in a trace with no GPU work, of the host: host totals count only blocks
    allocated while a profiler recorded, so they start near zero in a fresh process)."""
    cv = curve(frame)
    return int(cv.allocated.max()) if cv is not None and len(cv) else None


def capacity_bytes(frame: TraceFrame, device_type: int, device_id: int) -> int | None:
    """The device's memory from deviceProperties (None for host memory or when not written)."""
    if device_type != CUDA:
        return None
    props = frame.device_props(device_id) or {}
    mem = props.get("totalGlobalMem")
    return int(mem) if mem else None

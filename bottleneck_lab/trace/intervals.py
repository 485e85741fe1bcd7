"""Interval arithmetic on numpy arrays of [start, end) in microseconds."""

from __future__ import annotations

import numpy as np


def union(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Merge possibly overlapping intervals into sorted disjoint ones."""
    if len(starts) == 0:
        return np.empty(0), np.empty(0)
    order = np.argsort(starts, kind="stable")
    s, e = starts[order], ends[order]
    running_end = np.maximum.accumulate(e)
    # A new block begins where an interval starts after everything before it has ended.
    new_block = np.empty(len(s), dtype=bool)
    new_block[0] = True
    new_block[1:] = s[1:] > running_end[:-1]
    block_starts = np.flatnonzero(new_block)
    block_ends = np.append(block_starts[1:], len(s)) - 1
    return s[block_starts], running_end[block_ends]


def clip(
    starts: np.ndarray, ends: np.ndarray, lo: float, hi: float
) -> tuple[np.ndarray, np.ndarray]:
    """Disjoint sorted intervals cut to [lo, hi]; empty pieces dropped."""
    # Sorted and disjoint, so starts and ends both ascend: only the intervals from the first
    # ending after lo to the last starting before hi can overlap [lo, hi] (one pass per step
    # over a whole trace's busy intervals before).
    i0, i1 = np.searchsorted(ends, lo, side="right"), np.searchsorted(starts, hi, side="left")
    starts, ends = starts[i0:i1], ends[i0:i1]
    s, e = np.maximum(starts, lo), np.minimum(ends, hi)
    keep = e > s
    return s[keep], e[keep]


def total(starts: np.ndarray, ends: np.ndarray) -> float:
    return float(np.sum(ends - starts)) if len(starts) else 0.0


def gaps(
    starts: np.ndarray, ends: np.ndarray, lo: float, hi: float
) -> tuple[np.ndarray, np.ndarray]:
    """The complement of disjoint sorted intervals inside [lo, hi]."""
    s, e = clip(starts, ends, lo, hi)
    gap_s = np.concatenate(([lo], e))
    gap_e = np.concatenate((s, [hi]))
    keep = gap_e > gap_s
    return gap_s[keep], gap_e[keep]


def overlap_with(
    starts: np.ndarray, ends: np.ndarray, qs: np.ndarray, qe: np.ndarray
) -> np.ndarray:
    """For each query [qs, qe), the time it shares with the disjoint sorted intervals."""
    if len(starts) == 0 or len(qs) == 0:
        return np.zeros(len(qs))
    # Prefix sums of covered time make each query two lookups.
    covered = np.concatenate(([0.0], np.cumsum(ends - starts)))

    def covered_before(t: np.ndarray) -> np.ndarray:
        i = np.searchsorted(starts, t, side="right")  # intervals starting at or before t
        full = covered[np.maximum(i - 1, 0)]
        last_s = starts[np.maximum(i - 1, 0)]
        last_e = ends[np.maximum(i - 1, 0)]
        partial = np.clip(t - last_s, 0.0, last_e - last_s)
        return np.where(i > 0, full + partial, 0.0)

    return covered_before(qe) - covered_before(qs)


def intersect(
    starts: np.ndarray, ends: np.ndarray, qs: np.ndarray, qe: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The time two sets of disjoint sorted intervals share, as disjoint sorted intervals."""
    pieces = [clip(starts, ends, a, b) for a, b in zip(qs, qe)]
    if not pieces:
        return np.empty(0), np.empty(0)
    return np.concatenate([p[0] for p in pieces]), np.concatenate([p[1] for p in pieces])

"""FLOP and byte models of aten ops, and device peaks to measure them against."""

from bottleneck_lab.flops.models import (
    CATEGORIES,
    COMPUTE_CATEGORIES,
    FlopTotals,
    OpCost,
    count_step_flops,
    counted_op_costs,
    op_cost,
)
from bottleneck_lab.flops.peaks import DevicePeak, match_device, override_peak, ridge_point

__all__ = [
    "CATEGORIES",
    "COMPUTE_CATEGORIES",
    "DevicePeak",
    "FlopTotals",
    "OpCost",
    "count_step_flops",
    "counted_op_costs",
    "match_device",
    "op_cost",
    "override_peak",
    "ridge_point",
]

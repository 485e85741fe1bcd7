"""What every op model shares: OpCost, the categories, and reading one op's recorded arguments
(Input Dims, Input type, Concrete Inputs) into shapes, dtypes and sizes."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass
from math import prod
from typing import Any, NamedTuple

CATEGORIES = ("gemm", "conv", "attention", "rnn", "norm", "elementwise", "other")


# The matrix work: the categories FlopCounterMode counts, whose sum is comparable with its
# get_total_flops(), and cuDNN's recurrent layers ("rnn"), which it counts as zero.
COMPUTE_CATEGORIES = frozenset({"gemm", "conv", "attention", "rnn"})
FLOPCOUNTERMODE_CATEGORIES = frozenset({"gemm", "conv", "attention"})


@dataclass(frozen=True)
class OpCost:
    flops: float
    bytes: float
    dtype: str | None  # fp64, fp32, bf16, fp16, fp8, int8 or None
    category: str  # one of CATEGORIES
    # what FlopCounterMode counts beyond `flops` (a grouped convolution's weight gradient)
    flopcountermode_extra: float = 0.0


# Kineto "Input type" string -> (normalised dtype, bytes per element). Old traces write
# "long"/"int"/"double" where new ones write "long int"/"int"/"double".
_DTYPES: dict[str, tuple[str | None, int]] = {
    "double": ("fp64", 8),
    "float": ("fp32", 4),
    "c10::BFloat16": ("bf16", 2),
    "c10::Half": ("fp16", 2),
    "c10::Float8_e4m3fn": ("fp8", 1),
    "c10::Float8_e5m2": ("fp8", 1),
    "c10::Float8_e4m3fnuz": ("fp8", 1),
    "c10::Float8_e5m2fnuz": ("fp8", 1),
    "c10::Float8_e8m0fnu": ("fp8", 1),
    "signed char": ("int8", 1),
    "unsigned char": (None, 1),
    "bool": (None, 1),
    "short int": (None, 2),
    "short": (None, 2),
    "int": (None, 4),
    "long int": (None, 8),
    "long": (None, 8),
    "c10::complex<float>": (None, 8),
    "c10::complex<double>": (None, 16),
    "c10::complex<c10::Half>": (None, 4),
}


def dtype_name(input_type: Any) -> str | None:
    """A Kineto "Input type" string as a normalised dtype (fp32, bf16, ...), None if unknown."""
    return _DTYPES.get(input_type, (None, 0))[0] if isinstance(input_type, str) else None


# c10::ScalarType codes, as a ScalarType argument (e.g. _scaled_mm's out_dtype) is recorded.
_SCALAR_TYPE_CODES: dict[int, tuple[str | None, int]] = {
    5: ("fp16", 2),
    6: ("fp32", 4),
    7: ("fp64", 8),
    15: ("bf16", 2),
    23: ("fp8", 1),
    24: ("fp8", 1),
    25: ("fp8", 1),
    26: ("fp8", 1),
}


class _Tensor(NamedTuple):
    shape: tuple[int, ...]
    dtype: str | None
    itemsize: int

    @property
    def numel(self) -> int:
        return prod(self.shape)

    @property
    def nbytes(self) -> int:
        return self.numel * self.itemsize


def _is_shape(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, int) for v in value)


def _parse_concrete(text: Any) -> Any:
    """'[1, 1]' -> [1, 1], 'False' -> False, '1e-05' -> 1e-05, '' or junk -> None."""
    if not isinstance(text, str) or not text:
        return None
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None


class _Args:
    """The recorded arguments of one op, looked up by position."""

    def __init__(self, dims: list | None, types: list | None, concrete: list | None):
        self.dims = dims if isinstance(dims, list) else []
        self.types = types if isinstance(types, list) else []
        self.concrete = concrete if isinstance(concrete, list) else []
        known = [_DTYPES[t] for t in self.types if isinstance(t, str) and t in _DTYPES]
        # TensorList elements have no recorded dtype: borrow the op's first known one.
        self._list_dtype = known[0] if known else (None, 4)

    def tensor(self, i: int) -> _Tensor | None:
        if i >= len(self.dims) or i >= len(self.types):
            return None
        dtype = _DTYPES.get(self.types[i]) if isinstance(self.types[i], str) else None
        if dtype is None or not _is_shape(self.dims[i]):
            return None
        return _Tensor(tuple(self.dims[i]), *dtype)

    def tensor_list(self, i: int) -> list[_Tensor]:
        """The tensors at position i: one tensor, the elements of a TensorList, or none."""
        if i < len(self.types) and self.types[i] == "TensorList" and isinstance(self.dims[i], list):
            return [_Tensor(tuple(d), *self._list_dtype) for d in self.dims[i] if _is_shape(d)]
        t = self.tensor(i)
        return [t] if t is not None else []

    def tensors(self, start: int = 0) -> list[_Tensor]:
        """Every tensor from position ``start`` on, TensorList elements included."""
        return [
            t
            for i in range(start, min(len(self.dims), len(self.types)))
            for t in self.tensor_list(i)
        ]

    def value(self, i: int, default: Any = None) -> Any:
        parsed = _parse_concrete(self.concrete[i]) if i < len(self.concrete) else None
        return default if parsed is None else parsed

    def ints(self, i: int | None, n: int, default: int) -> list[int]:
        """An int-list argument broadcast to n entries (PyTorch expands [2] to [2, 2])."""
        got = self.value(i) if i is not None else None
        if isinstance(got, int):
            got = [got]
        if (
            not isinstance(got, list)
            or len(got) not in (1, n)
            or not all(isinstance(v, int) for v in got)
        ):
            return [default] * n
        return got * n if len(got) == 1 else got

    def bytes_in(self) -> int:
        return _sum_bytes(self.tensors())


def _sum_bytes(tensors: Iterable[_Tensor]) -> int:
    return sum(t.nbytes for t in tensors)

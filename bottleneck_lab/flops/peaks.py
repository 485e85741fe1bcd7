"""Dense peak throughput and memory bandwidth of accelerators, matched from a trace's
``deviceProperties`` entry.

Every figure is DENSE. NVIDIA datasheets since Ampere headline tensor-core numbers "with
sparsity" (marked with an asterisk); those are 2:4 structured-sparsity figures and are halved
here. Where a datasheet gives both a tensor-core and a plain FP64 figure, the tensor-core one is
used, since the FLOPs we measure against it are matmuls and convolutions. "fp32" is plain FP32
(no TF32) on NVIDIA; "tf32" is listed separately because a trace cannot tell whether TF32 was on.
int8 is in TOPS. A dtype missing from ``tflops`` has no fast path on that device.

Bandwidth is GB/s (10^9 bytes per second), as datasheets state it.

AMD MI200 parts hold two GCDs and each shows up as its own device (HIP reports the name
"AMD Radeon Graphics" on older ROCm), so their entries are per GCD: half the package figures.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

DTYPES = ("fp64", "fp32", "tf32", "bf16", "fp16", "fp8", "int8")


@dataclass(frozen=True)
class DevicePeak:
    name: str
    tflops: dict[str, float] = field(hash=False)  # dense TFLOP/s (TOPS for int8) per dtype
    mem_bw_gbps: float | None  # GB/s; None when unknown
    source: str

    def peak_for(self, dtype: str | None) -> float | None:
        """Dense peak TFLOP/s for a dtype, or None when the device has no figure for it."""
        return self.tflops.get(dtype) if dtype else None


def ridge_point(peak: DevicePeak, dtype: str) -> float | None:
    """Arithmetic intensity (FLOP/byte) where the roofline turns: above it an op can be
    compute bound, below it memory bound."""
    tflops = peak.peak_for(dtype)
    if not tflops or not peak.mem_bw_gbps:
        return None
    return tflops * 1e12 / (peak.mem_bw_gbps * 1e9)


def override_peak(
    peak_tflops: float, dtype: str, mem_bw_gbps: float | None = None, name: str = "user override"
) -> DevicePeak:
    """A peak the user gave on the command line, for a device the table does not know or to
    measure against a different number (e.g. a clock-limited part)."""
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; expected one of {', '.join(DTYPES)}")
    if not peak_tflops > 0:
        raise ValueError("peak_tflops must be positive")
    return DevicePeak(name, {dtype: float(peak_tflops)}, mem_bw_gbps, "user override")


def _peak(name: str, bw: float, source: str, **tflops: float) -> DevicePeak:
    return DevicePeak(name, tflops, bw, source)


# --- NVIDIA ------------------------------------------------------------------------------------

_V100_SXM2 = _peak(
    "NVIDIA V100 SXM2", 900, "NVIDIA Tesla V100 datasheet (SXM2)", fp64=7.8, fp32=15.7, fp16=125
)
_V100_PCIE = _peak(
    "NVIDIA V100 PCIe", 900, "NVIDIA Tesla V100 datasheet (PCIe)", fp64=7.0, fp32=14.0, fp16=112
)
_V100S_PCIE = _peak(
    "NVIDIA V100S PCIe", 1134, "NVIDIA Tesla V100S datasheet", fp64=8.2, fp32=16.4, fp16=130
)
_T4 = _peak(
    "NVIDIA T4",
    320,
    "NVIDIA T4 datasheet (FP16/FP32 mixed-precision tensor figure)",
    fp32=8.1,
    fp16=65,
    int8=130,
)
_A10 = _peak(
    "NVIDIA A10",
    600,
    "NVIDIA A10 datasheet (sparse figures halved)",
    fp32=31.2,
    tf32=62.5,
    bf16=125,
    fp16=125,
    int8=250,
)
# AWS's A10G runs FP16/BF16 tensor math with FP32 accumulate at half rate (like GeForce GA102).
_A10G = _peak(
    "NVIDIA A10G",
    600,
    "NVIDIA A10G (AWS G5) specification, dense; no public NVIDIA "
    "datasheet, figures as tabulated in Baseten's 'NVIDIA A10 vs A10G'",
    fp32=35,
    tf32=35,
    bf16=70,
    fp16=70,
    int8=140,
)
_A100_TENSOR = dict(fp64=19.5, fp32=19.5, tf32=156, bf16=312, fp16=312, int8=624)
_A100_SRC = "NVIDIA A100 Tensor Core GPU datasheet (sparse figures halved; FP64 Tensor Core)"
_A100_40_SXM = _peak("NVIDIA A100 40GB SXM4", 1555, _A100_SRC, **_A100_TENSOR)
_A100_80_SXM = _peak("NVIDIA A100 80GB SXM4", 2039, _A100_SRC, **_A100_TENSOR)
_A100_40_PCIE = _peak("NVIDIA A100 40GB PCIe", 1555, _A100_SRC, **_A100_TENSOR)
_A100_80_PCIE = _peak("NVIDIA A100 80GB PCIe", 1935, _A100_SRC, **_A100_TENSOR)
_L4 = _peak(
    "NVIDIA L4",
    300,
    "NVIDIA L4 datasheet (sparse figures halved)",
    fp32=30.3,
    tf32=60,
    bf16=121,
    fp16=121,
    fp8=242.5,
    int8=242.5,
)
_L40S = _peak(
    "NVIDIA L40S",
    864,
    "NVIDIA L40S datasheet (dense column)",
    fp32=91.6,
    tf32=183,
    bf16=362.05,
    fp16=362.05,
    fp8=733,
    int8=733,
)
# H200 has H100's compute with more and faster memory: the two datasheets share these figures.
_HOPPER_SXM = dict(fp64=67, fp32=67, tf32=494.5, bf16=989.5, fp16=989.5, fp8=1979, int8=1979)
_HOPPER_NVL = dict(fp64=60, fp32=60, tf32=417.5, bf16=835.5, fp16=835.5, fp8=1670.5, int8=1670.5)
_H100_SRC = "NVIDIA H100 Tensor Core GPU datasheet (sparse figures halved; FP64 Tensor Core)"
_H100_SXM = _peak("NVIDIA H100 SXM5", 3350, _H100_SRC, **_HOPPER_SXM)
_HOPPER_PCIE = dict(fp64=51, fp32=51, tf32=378, bf16=756.5, fp16=756.5, fp8=1513, int8=1513)
_H100_PCIE = _peak("NVIDIA H100 PCIe", 2000, _H100_SRC, **_HOPPER_PCIE)
_H100_NVL = _peak("NVIDIA H100 NVL", 3900, _H100_SRC, **_HOPPER_NVL)
_H200_SRC = "NVIDIA H200 Tensor Core GPU datasheet (sparse figures halved; FP64 Tensor Core)"
_H200_SXM = _peak("NVIDIA H200 SXM", 4800, _H200_SRC, **_HOPPER_SXM)
_H200_NVL = _peak("NVIDIA H200 NVL", 4800, _H200_SRC, **_HOPPER_NVL)
_B200 = _peak(
    "NVIDIA B200",
    8000,
    "NVIDIA HGX B200 datasheet, 8-GPU totals / 8 (sparse figures halved)",
    fp64=37,
    fp32=75,
    tf32=1125,
    bf16=2250,
    fp16=2250,
    fp8=4500,
    int8=4500,
)
# Workstation, GeForce and export parts that training and fine-tuning runs use. GeForce cards
# (RTX 3090, RTX 4090) run FP16/BF16 tensor math with FP32 accumulate, what autocast's matmuls
# use, at half the rate of their FP16-accumulate headline: these are the FP32-accumulate figures.
_A30 = _peak(
    "NVIDIA A30",
    933,
    "NVIDIA A30 Tensor Core GPU datasheet (sparse figures halved; FP64 Tensor Core)",
    fp64=10.3,
    fp32=10.3,
    tf32=82,
    bf16=165,
    fp16=165,
    int8=330,
)
_A40 = _peak(
    "NVIDIA A40",
    696,
    "NVIDIA A40 datasheet (sparse figures halved)",
    fp32=37.4,
    tf32=74.8,
    bf16=149.7,
    fp16=149.7,
    int8=299.3,
)
_RTX_A6000 = _peak(
    "NVIDIA RTX A6000",
    768,
    "NVIDIA Ampere GA102 GPU architecture whitepaper, RTX A6000 (sparse figures halved)",
    fp32=38.7,
    tf32=77.4,
    bf16=154.8,
    fp16=154.8,
    int8=309.7,
)
_RTX_3090 = _peak(
    "NVIDIA GeForce RTX 3090",
    936,
    "NVIDIA Ampere GA102 GPU architecture whitepaper, GeForce RTX 3090 (FP32 accumulate; "
    "sparse figures halved)",
    fp32=35.6,
    tf32=35.6,
    bf16=71,
    fp16=71,
    int8=284,
)
_RTX_4090 = _peak(
    "NVIDIA GeForce RTX 4090",
    1008,
    "NVIDIA Ada GPU architecture whitepaper, GeForce RTX 4090 (FP32 accumulate; sparse "
    "figures halved)",
    fp32=82.6,
    tf32=82.6,
    bf16=165.2,
    fp16=165.2,
    fp8=330.3,
    int8=660.6,
)
_RTX_6000_ADA = _peak(
    "NVIDIA RTX 6000 Ada Generation",
    960,
    "NVIDIA Ada GPU architecture whitepaper, RTX 6000 Ada (sparse figures halved)",
    fp32=91.1,
    tf32=182.1,
    bf16=364.2,
    fp16=364.2,
    fp8=728.5,
    int8=728.5,
)
_L40 = _peak(
    "NVIDIA L40",
    864,
    "NVIDIA L40 datasheet (sparse figures halved)",
    fp32=90.5,
    tf32=90.5,
    bf16=181.05,
    fp16=181.05,
    fp8=362,
    int8=362,
)
# H800 and A800 are H100 and A100 with NVLink (and, on H800, FP64) cut for export: the same
# tensor figures and memory.
_H800_SRC = "NVIDIA H800 product brief: H100's tensor figures, FP64 cut to 1 (SXM) or 0.8 TFLOP/s"
_H800_SXM = _peak("NVIDIA H800 SXM5", 3350, _H800_SRC, **{**_HOPPER_SXM, "fp64": 1.0})
_H800_PCIE = _peak("NVIDIA H800 PCIe", 2000, _H800_SRC, **{**_HOPPER_PCIE, "fp64": 0.8})
_P100_SXM2 = _peak(
    "NVIDIA P100 SXM2", 732, "NVIDIA Tesla P100 datasheet (SXM2)", fp64=5.3, fp32=10.6, fp16=21.2
)
_P100_PCIE = _peak(
    "NVIDIA P100 PCIe",
    732,
    "NVIDIA Tesla P100 datasheet (PCIe 16GB)",
    fp64=4.7,
    fp32=9.3,
    fp16=18.7,
)
_QUADRO_GP100 = _peak(
    "NVIDIA Quadro GP100", 717, "NVIDIA Quadro GP100 datasheet", fp64=5.2, fp32=10.3, fp16=20.7
)

# (regex on the upper-cased name, minimum memory in GiB or 0, peak). First match wins, so a
# specific variant comes before the family.
_NVIDIA_TABLE: list[tuple[str, float, DevicePeak]] = [
    (r"H200.*NVL", 0, _H200_NVL),
    (r"H200", 0, _H200_SXM),
    (r"H100.*NVL", 0, _H100_NVL),
    (r"H100.*PCIE", 0, _H100_PCIE),
    (r"H100", 0, _H100_SXM),
    (r"H800.*PCIE", 0, _H800_PCIE),
    (r"H800", 0, _H800_SXM),
    (r"\bB200\b", 0, _B200),
    (r"A[18]00.*PCIE", 60, _A100_80_PCIE),  # A800: A100 with NVLink cut for export
    (r"A[18]00.*PCIE", 0, _A100_40_PCIE),
    (r"A[18]00", 60, _A100_80_SXM),
    (r"A[18]00", 0, _A100_40_SXM),  # also "A100-PG509-200", a 40 GB SXM4 board
    (r"\bA10G\b", 0, _A10G),
    (r"\bA10\b", 0, _A10),
    (r"\bA30\b", 0, _A30),
    (r"\bA40\b", 0, _A40),
    (r"\bRTX A6000\b", 0, _RTX_A6000),
    (r"\bRTX 6000 ADA\b", 0, _RTX_6000_ADA),
    # desktop cards only: the laptop parts and the RTX 4090 D have other SM counts and clocks
    (r"\bRTX 4090$", 0, _RTX_4090),
    (r"\bRTX 3090$", 0, _RTX_3090),
    (r"\bL40S\b", 0, _L40S),
    (r"\bL40\b", 0, _L40),
    (r"\bL4\b", 0, _L4),
    (r"\bT4\b", 0, _T4),
    (r"V100S", 0, _V100S_PCIE),
    (r"V100.*PCIE", 0, _V100_PCIE),
    (r"V100", 0, _V100_SXM2),
    (r"GP100", 0, _QUADRO_GP100),
    (r"P100.*PCIE", 0, _P100_PCIE),
    (r"P100", 0, _P100_SXM2),
]

# --- AMD ---------------------------------------------------------------------------------------

_MI250X_GCD = _peak(
    "AMD Instinct MI250X (one GCD)",
    1638.4,
    "AMD Instinct MI250X datasheet, package figures / 2 GCDs (matrix cores)",
    fp64=47.85,
    fp32=47.85,
    bf16=191.5,
    fp16=191.5,
    int8=191.5,
)
_MI250_GCD = _peak(
    "AMD Instinct MI250 (one GCD) / MI210",
    1638.4,
    "AMD Instinct MI250 datasheet, package figures / 2 GCDs (matrix cores); "
    "MI210 has the same figures",
    fp64=45.25,
    fp32=45.25,
    bf16=181.05,
    fp16=181.05,
    int8=181.05,
)
# MI325X has MI300X's compute with more and faster memory.
_CDNA3 = dict(fp64=163.4, fp32=163.4, tf32=653.7, bf16=1307.4, fp16=1307.4, fp8=2614.9, int8=2614.9)
_MI300X = _peak(
    "AMD Instinct MI300X", 5300, "AMD Instinct MI300X datasheet (dense, matrix cores)", **_CDNA3
)
_MI325X = _peak(
    "AMD Instinct MI325X", 6000, "AMD Instinct MI325X datasheet (dense, matrix cores)", **_CDNA3
)

_AMD_BY_NAME: list[tuple[str, DevicePeak]] = [
    (r"MI325X", _MI325X),
    (r"MI300X", _MI300X),
    (r"MI250X", _MI250X_GCD),
    (r"MI250|MI210", _MI250_GCD),
]
# Older ROCm names every part "AMD Radeon Graphics": tell them apart by compute-unit count
# (numSms) and memory.
_AMD_BY_CUS: list[tuple[int, float, DevicePeak]] = [
    (304, 224, _MI325X),
    (304, 0, _MI300X),
    (110, 0, _MI250X_GCD),
    (104, 0, _MI250_GCD),
]

# --- theoretical fallback for NVIDIA GPUs not in the table -------------------------------------

# FP32 lanes per SM by compute capability, and the boost clock assumed when props carry none
# (a typical datacenter part of that architecture).
_FP32_LANES_PER_SM = {
    (3, None): 192,
    (5, None): 128,
    (6, 0): 64,
    (6, None): 128,
    (7, None): 64,
    (8, 0): 64,
    (8, None): 128,
    (9, None): 128,
    (10, None): 128,
    (11, None): 128,
    (12, None): 128,
}
_DEFAULT_CLOCK_MHZ = {
    (3, None): 875,
    (5, None): 1100,
    (6, None): 1480,
    (7, 5): 1590,
    (7, None): 1530,
    (8, 0): 1410,
    (8, 9): 2500,
    (8, None): 1700,
    (9, None): 1980,
    (10, None): 1965,
    (11, None): 1600,
    (12, None): 2400,
}


# Dense FP16 tensor-core FLOP per SM per clock, FP32 accumulate (what autocast's matmuls use),
# by compute capability; BF16 runs at the same rate from sm_80 on, TF32 at half of it, FP8 (sm_89
# and sm_90) at twice. Read off the datasheets in the table above: A100 312 TFLOP/s = 108 SMs x
# 2048 x 1.41 GHz, A10 125 = 72 x 1024 x 1.695, L40S 362 = 142 x 1024 x 2.49, H100 989.5 = 132 x
# 4096 x 1.83, V100 125 = 80 x 1024 x 1.53, T4 65 = 40 x 1024 x 1.59. GeForce cards accumulate
# in FP32 at half that rate (RTX 3090 71 = 82 x 512 x 1.695, RTX 4090 165.2 = 128 x 512 x 2.52).
# Unlisted capabilities (Blackwell's among them) get no tensor figure rather than a guess.
_TENSOR_FLOPS_PER_SM_CLOCK = {
    (7, 0): 1024,
    (7, 5): 1024,
    (8, 0): 2048,
    (8, 6): 1024,
    (8, 9): 1024,
    (9, 0): 4096,
}
_GEFORCE_HALF_RATE = {(7, 5), (8, 6), (8, 9)}


def _by_capability(table: dict[tuple[int, int | None], int], major: int, minor: int) -> int | None:
    return table.get((major, minor), table.get((major, None)))


def _theoretical_nvidia(props: dict[str, Any]) -> DevicePeak | None:
    major, minor, sms = props.get("computeMajor"), props.get("computeMinor", 0), props.get("numSms")
    if (
        not isinstance(major, int)
        or not isinstance(minor, int)
        or not isinstance(sms, int)
        or sms <= 0
    ):
        return None
    lanes = _by_capability(_FP32_LANES_PER_SM, major, minor)
    if lanes is None:
        return None
    clock_khz = props.get("clockRate")  # cudaDeviceProp.clockRate is in kHz
    if isinstance(clock_khz, (int, float)) and clock_khz > 0:
        clock_mhz, clock_note = clock_khz / 1000, "clock from the trace"
    else:
        clock_mhz = _by_capability(_DEFAULT_CLOCK_MHZ, major, minor) or 1500
        clock_note = f"assumed boost clock for sm_{major}{minor}"
    fp32_tflops = sms * lanes * 2 * clock_mhz * 1e6 / 1e12
    tflops = {"fp32": round(fp32_tflops, 2)}
    source = (
        f"theoretical: {sms} SMs x {lanes} FP32 lanes/SM (sm_{major}{minor}) x 2 FLOP/FMA x "
        f"{clock_mhz:.0f} MHz ({clock_note})"
    )
    per_clock = _TENSOR_FLOPS_PER_SM_CLOCK.get((major, minor))
    if per_clock:
        name = str(props.get("name") or "").upper()
        if "GEFORCE" in name and (major, minor) in _GEFORCE_HALF_RATE:
            per_clock //= 2
        half = round(sms * per_clock * clock_mhz * 1e6 / 1e12, 2)
        tflops["fp16"] = half
        if major >= 8:
            tflops.update(bf16=half, tf32=round(half / 2, 2))
        if (major, minor) in ((8, 9), (9, 0)):
            tflops["fp8"] = round(half * 2, 2)
        source += (
            f"; tensor cores {per_clock} FLOP/SM/clock (FP16, FP32 accumulate); no bandwidth figure"
        )
    else:
        source += "; FP32 only, no tensor-core or bandwidth figure"
    return DevicePeak(str(props.get("name") or f"NVIDIA sm_{major}{minor}"), tflops, None, source)


# --- matching ----------------------------------------------------------------------------------


def _memory_gib(props: dict[str, Any]) -> float:
    mem = props.get("totalGlobalMem")
    return mem / 2**30 if isinstance(mem, (int, float)) else 0.0


def _is_amd(name: str, props: dict[str, Any]) -> bool:
    return bool(re.search(r"AMD|RADEON|INSTINCT|\bMI\d{3}", name)) or props.get("warpSize") == 64


def match_device(props: dict[str, Any]) -> DevicePeak | None:
    """The peak of the device one ``deviceProperties`` entry describes, or None if unknown.

    Unknown NVIDIA GPUs get theoretical FP32 and tensor-core figures from SM count and compute
    capability (and the clock, where the trace has it)."""
    if not isinstance(props, dict):
        return None
    name = str(props.get("name") or "").upper().strip()
    mem_gib = _memory_gib(props)
    if _is_amd(name, props):  # before NVIDIA: gfx9 reports computeMajor 9, like Hopper
        for pattern, peak in _AMD_BY_NAME:
            if re.search(pattern, name):
                return peak
        cus = props.get("numSms")
        for count, min_gib, peak in _AMD_BY_CUS:
            if cus == count and mem_gib >= min_gib:
                return peak
        return None
    # a name like "A100-SXM4-80GB" gives the size even when totalGlobalMem is missing
    size_in_name = re.search(r"(\d+)\s*GB", name)
    gib = max(mem_gib, float(size_in_name.group(1)) if size_in_name else 0.0)
    for pattern, min_gib, peak in _NVIDIA_TABLE:
        if re.search(pattern, name) and gib >= min_gib:
            return peak
    if re.search(r"NVIDIA|TESLA|QUADRO|GEFORCE|RTX|TITAN", name) or props.get("warpSize") == 32:
        return _theoretical_nvidia(props)
    return None

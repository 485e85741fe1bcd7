"""Device peak table: matching deviceProperties names, dense figures, fallback, override."""

import pytest

from bottleneck_lab.flops import peaks
from bottleneck_lab.flops.peaks import DTYPES, DevicePeak, match_device, override_peak, ridge_point

GIB = 2**30


@pytest.mark.parametrize(
    "props,expected",
    [
        ({"name": "NVIDIA H100 80GB HBM3"}, "NVIDIA H100 SXM5"),
        ({"name": "NVIDIA H100 PCIe"}, "NVIDIA H100 PCIe"),
        ({"name": "NVIDIA H100 NVL"}, "NVIDIA H100 NVL"),
        ({"name": "NVIDIA H200"}, "NVIDIA H200 SXM"),
        ({"name": "NVIDIA B200"}, "NVIDIA B200"),
        ({"name": "NVIDIA A100-SXM4-80GB", "totalGlobalMem": 84990623744}, "NVIDIA A100 80GB SXM4"),
        ({"name": "NVIDIA A100-SXM4-80GB"}, "NVIDIA A100 80GB SXM4"),  # size read from the name
        ({"name": "NVIDIA A100-SXM4-40GB"}, "NVIDIA A100 40GB SXM4"),
        ({"name": "NVIDIA A100-PG509-200", "totalGlobalMem": 42297524224}, "NVIDIA A100 40GB SXM4"),
        ({"name": "NVIDIA A100 80GB PCIe"}, "NVIDIA A100 80GB PCIe"),
        ({"name": "NVIDIA A100-PCIE-40GB"}, "NVIDIA A100 40GB PCIe"),
        ({"name": "NVIDIA A10G"}, "NVIDIA A10G"),
        ({"name": "NVIDIA A10"}, "NVIDIA A10"),
        ({"name": "NVIDIA L4"}, "NVIDIA L4"),
        ({"name": "NVIDIA L40S"}, "NVIDIA L40S"),
        ({"name": "NVIDIA L40"}, "NVIDIA L40"),
        ({"name": "NVIDIA A40"}, "NVIDIA A40"),
        ({"name": "NVIDIA A30"}, "NVIDIA A30"),
        ({"name": "NVIDIA RTX A6000"}, "NVIDIA RTX A6000"),
        ({"name": "NVIDIA RTX 6000 Ada Generation"}, "NVIDIA RTX 6000 Ada Generation"),
        ({"name": "NVIDIA GeForce RTX 4090"}, "NVIDIA GeForce RTX 4090"),
        ({"name": "NVIDIA GeForce RTX 3090"}, "NVIDIA GeForce RTX 3090"),
        ({"name": "NVIDIA H800"}, "NVIDIA H800 SXM5"),
        ({"name": "NVIDIA H800 PCIe"}, "NVIDIA H800 PCIe"),
        ({"name": "NVIDIA A800-SXM4-80GB"}, "NVIDIA A100 80GB SXM4"),
        ({"name": "NVIDIA A800 80GB PCIe"}, "NVIDIA A100 80GB PCIe"),
        ({"name": "Tesla T4"}, "NVIDIA T4"),
        ({"name": "Tesla V100-SXM2-32GB"}, "NVIDIA V100 SXM2"),
        ({"name": "Tesla V100-PCIE-16GB"}, "NVIDIA V100 PCIe"),
        ({"name": "Quadro GP100"}, "NVIDIA Quadro GP100"),
        ({"name": "AMD Instinct MI300X"}, "AMD Instinct MI300X"),
        ({"name": "AMD Instinct MI250X"}, "AMD Instinct MI250X (one GCD)"),
        # older ROCm calls every part "AMD Radeon Graphics" and reports gfx9 as computeMajor 9
        (
            {
                "name": "AMD Radeon Graphics",
                "computeMajor": 9,
                "numSms": 104,
                "warpSize": 64,
                "totalGlobalMem": 68702699520,
            },
            "AMD Instinct MI250 (one GCD) / MI210",
        ),
        (
            {"name": "AMD Radeon Graphics", "computeMajor": 9, "numSms": 110, "warpSize": 64},
            "AMD Instinct MI250X (one GCD)",
        ),
        (
            {
                "name": "AMD Radeon Graphics",
                "computeMajor": 9,
                "numSms": 304,
                "warpSize": 64,
                "totalGlobalMem": 192 * GIB,
            },
            "AMD Instinct MI300X",
        ),
    ],
)
def test_match_device_by_name(props, expected):
    peak = match_device(props)
    assert peak is not None and peak.name == expected


def test_figures_are_dense_not_sparse_headlines():
    # datasheet headlines "with sparsity": H100 SXM BF16 1979, A100 BF16 624, L4 FP8 485
    assert match_device({"name": "NVIDIA H100 80GB HBM3"}).peak_for("bf16") == 989.5
    assert match_device({"name": "NVIDIA A100-SXM4-80GB"}).peak_for("bf16") == 312
    assert match_device({"name": "NVIDIA L4"}).peak_for("fp8") == 242.5
    assert match_device({"name": "NVIDIA A100-SXM4-80GB"}).peak_for("tf32") == 156


def all_table_peaks():
    nvidia = [peak for _, _, peak in peaks._NVIDIA_TABLE]
    amd = [peak for _, peak in peaks._AMD_BY_NAME]
    return nvidia + amd


@pytest.mark.parametrize("peak", all_table_peaks(), ids=lambda p: p.name)
def test_every_entry_is_well_formed(peak):
    assert peak.source and "theoretical" not in peak.source
    assert set(peak.tflops) <= set(DTYPES)
    assert all(v > 0 for v in peak.tflops.values())
    assert peak.mem_bw_gbps and peak.mem_bw_gbps > 0
    # tensor-core half precision is never slower than plain FP32
    for half in ("bf16", "fp16"):
        if half in peak.tflops:
            assert peak.tflops[half] >= peak.tflops["fp32"]


def test_devices_without_a_dtype_report_none():
    v100 = match_device({"name": "Tesla V100-SXM2-32GB"})
    assert v100.peak_for("bf16") is None  # no BF16 tensor cores on Volta
    assert v100.peak_for(None) is None
    assert ridge_point(v100, "bf16") is None


def test_ridge_point_is_flops_per_byte():
    h100 = match_device({"name": "NVIDIA H100 80GB HBM3"})
    assert ridge_point(h100, "bf16") == pytest.approx(989.5e12 / 3350e9)


def test_theoretical_fallback_for_unknown_nvidia():
    props = {
        "name": "NVIDIA GeForce RTX 4080",
        "computeMajor": 8,
        "computeMinor": 9,
        "numSms": 76,
        "warpSize": 32,
    }
    peak = match_device(props)
    assert peak.source.startswith("theoretical:")
    assert peak.peak_for("fp32") == pytest.approx(76 * 128 * 2 * 2.5e9 / 1e12, rel=1e-3)
    # a GeForce card: FP16/BF16 with FP32 accumulate at half the workstation rate
    assert peak.peak_for("bf16") == pytest.approx(76 * 512 * 2.5e9 / 1e12, rel=1e-3)
    assert peak.peak_for("tf32") == pytest.approx(peak.peak_for("bf16") / 2, rel=1e-3)
    assert peak.peak_for("fp8") == pytest.approx(peak.peak_for("bf16") * 2, rel=1e-3)
    assert peak.mem_bw_gbps is None and peak.peak_for("int8") is None
    with_clock = match_device({**props, "clockRate": 2505000})  # kHz, as cudaDeviceProp has it
    assert with_clock.peak_for("fp32") == pytest.approx(48.74, rel=1e-3)
    assert "clock from the trace" in with_clock.source
    # the same chip's workstation part runs at the full rate
    pro = match_device({**props, "name": "NVIDIA RTX 5000 Ada Generation", "numSms": 100})
    assert pro.peak_for("bf16") == pytest.approx(100 * 1024 * 2.5e9 / 1e12, rel=1e-3)


def test_no_tensor_guess_where_the_rate_is_not_known():
    # Volta and Turing have FP16 tensor cores only; an architecture without a datasheet rate
    # behind it (Blackwell GeForce, sm_120) gets FP32 alone
    volta = match_device({"name": "NVIDIA Mystery", "computeMajor": 7, "numSms": 80})
    assert volta.peak_for("fp16") and volta.peak_for("bf16") is None
    blackwell = match_device(
        {"name": "NVIDIA GeForce RTX 5090", "computeMajor": 12, "computeMinor": 0, "numSms": 170}
    )
    assert set(blackwell.tflops) == {"fp32"} and "FP32 only" in blackwell.source


@pytest.mark.parametrize(
    "name,major,minor,sms,clock_mhz",
    [
        ("NVIDIA A100-SXM4-80GB", 8, 0, 108, 1410),
        ("NVIDIA H100 80GB HBM3", 9, 0, 132, 1830),
        ("Tesla V100-SXM2-32GB", 7, 0, 80, 1530),
        ("Tesla T4", 7, 5, 40, 1590),
        ("NVIDIA A10", 8, 6, 72, 1695),
        ("NVIDIA L4", 8, 9, 58, 2040),
        ("NVIDIA L40S", 8, 9, 142, 2520),
        ("NVIDIA GeForce RTX 3090", 8, 6, 82, 1695),
        ("NVIDIA GeForce RTX 4090", 8, 9, 128, 2520),
    ],
)
def test_tensor_fallback_agrees_with_datasheets_at_their_clock(name, major, minor, sms, clock_mhz):
    table = match_device({"name": name}).peak_for("fp16")
    unlisted = name.replace("RTX 4090", "RTX 40x0").replace("RTX 3090", "RTX 30x0")
    unlisted = unlisted if "GeForce" in name else "NVIDIA Unknown"
    fallback = match_device(
        {
            "name": unlisted,
            "computeMajor": major,
            "computeMinor": minor,
            "numSms": sms,
            "clockRate": clock_mhz * 1000,
        }
    )
    assert fallback.source.startswith("theoretical:")
    assert fallback.peak_for("fp16") == pytest.approx(table, rel=0.02)


@pytest.mark.parametrize(
    "name,major,minor,sms",
    [
        ("NVIDIA A100-SXM4-80GB", 8, 0, 108),
        ("NVIDIA H100 80GB HBM3", 9, 0, 132),
        ("Tesla V100-SXM2-32GB", 7, 0, 80),
        ("NVIDIA L4", 8, 9, 58),
    ],
)
def test_fallback_agrees_with_datasheets_it_could_replace(name, major, minor, sms):
    table = match_device({"name": name}).peak_for("fp32")
    fallback = match_device(
        {"name": "NVIDIA Unknown", "computeMajor": major, "computeMinor": minor, "numSms": sms}
    ).peak_for("fp32")
    if (major, minor) == (8, 9):  # L4 boosts to 2040 MHz, below the Ada default of 2500
        fallback *= 2040 / 2500
    assert fallback == pytest.approx(table, rel=0.02)


@pytest.mark.parametrize(
    "props",
    [
        {},
        {"name": "Some TPU"},
        None,
        "NVIDIA H100",
        {"name": "AMD Radeon Graphics", "numSms": 12, "warpSize": 64},
        {"name": "NVIDIA Mystery", "computeMajor": 99, "numSms": 10},
    ],
)
def test_unknown_devices_give_none(props):
    assert match_device(props) is None


def test_override():
    peak = override_peak(400.0, "bf16", mem_bw_gbps=2000)
    assert isinstance(peak, DevicePeak)
    assert peak.source == "user override"
    assert peak.peak_for("bf16") == 400.0 and peak.peak_for("fp32") is None
    assert ridge_point(peak, "bf16") == pytest.approx(200.0)
    with pytest.raises(ValueError):
        override_peak(400.0, "bfloat16")
    with pytest.raises(ValueError):
        override_peak(0, "bf16")

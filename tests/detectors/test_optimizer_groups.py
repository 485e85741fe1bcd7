"""An optimizer whose parameter groups split its foreach work into calls on one or two tensors
(facts.optimizer_groups_fragmented): on hand-written traces whose answer follows from the calls
they record, and on the GPU traces that showed it (holdout 40's ViT-B fine-tuned with one AdamW
parameter group per parameter, against one group per depth and weight-decay setting)."""

from __future__ import annotations

from pathlib import Path

import pytest

from bottleneck_lab import facts
from bottleneck_lab.analyze import diagnose
from bottleneck_lab.detectors._examples import steps
from bottleneck_lab.trace import load_trace
from bottleneck_lab.trace.synth import TraceBuilder, load

REPO = Path(__file__).resolve().parents[2]
FOREACH = ("aten::_foreach_mul_", "aten::_foreach_add_", "aten::_foreach_lerp_")


def optimizer(groups: int, tensors: int, shapes: bool = True) -> TraceBuilder:
    """Three steps, each with an Optimizer.step span calling every op of FOREACH once per group,
    each call on `tensors` tensors of 768 (their shapes recorded unless shapes=False). A list of
    more than 4 tensors is written [] as the profiler writes a long list."""
    b = TraceBuilder()
    listed = [[768]] * tensors if tensors <= 4 else []
    args = {"Input Dims": [listed, listed, []]} if shapes else None
    for t0 in steps(b, cpu_us=900):
        b.annotation("Optimizer.step#AdamW.step", t0 + 10, 800)
        for g in range(groups):
            for i, name in enumerate(FOREACH):
                b.cpu_op(name, t0 + 20 + g * 30 + i * 8, 6, args=args)
    return b


def test_one_foreach_call_per_group_of_one_tensor_is_fragmented():
    frame = load(optimizer(groups=24, tensors=1))
    assert facts.optimizer_foreach_groups(frame) == (24.0, 1.0)
    assert facts.optimizer_groups_fragmented(frame) == 24.0


@pytest.mark.parametrize(
    ("groups", "tensors", "why"),
    [
        (24, 4, "four tensors a call: the groups batch some work"),
        (24, 40, "a long list, recorded as []"),
        (3, 1, "three groups of one tensor: a small model's few groups"),
    ],
)
def test_groups_that_batch_their_tensors_or_are_few_are_not(groups, tensors, why):
    frame = load(optimizer(groups, tensors))
    assert facts.optimizer_foreach_groups(frame)[0] == groups, why
    assert facts.optimizer_groups_fragmented(frame) == 0.0, why


def test_without_recorded_shapes_nothing_is_said():
    # the tensors a call takes are unknown: the call count alone does not tell groups from chunks
    frame = load(optimizer(groups=24, tensors=1, shapes=False))
    assert facts.optimizer_foreach_groups(frame) == (24.0, None)
    assert facts.optimizer_groups_fragmented(frame) == 0.0


def _llrd(run: str):
    path = REPO / "traces" / "zoo" / "vit_llrd_param_groups" / f"{run}.json.gz"
    if not path.is_file():
        pytest.skip(f"{path.relative_to(REPO)} not captured yet")
    return diagnose(load_trace(path), path=str(path))


def test_a_foreach_optimizer_with_a_group_per_parameter_is_told_to_merge_groups():
    """152 groups of one parameter: each foreach op ran 152 times a step on one tensor, 7.3
    kernels per parameter; 28 groups measured 35.9% faster. launch_overhead names the groups
    and counts the optimizer kernels' excess; host_bound says how much of its wait is in the
    optimizer."""
    d = _llrd("bad")
    (launch,) = [f for f in d.findings if f.kind == "launch_overhead"]
    assert launch.evidence["optimizer_foreach_calls_per_step"] == 152
    assert launch.evidence["optimizer_kernels_per_parameter"] > 5
    assert "one call per parameter group" in launch.fix and "one group" in launch.fix
    assert launch.severity == "medium"
    (host,) = [f for f in d.findings if f.kind == "host_bound"]
    assert host.evidence["idle_in_optimizer_pct"] >= 50
    assert "inside Optimizer.step" in host.title and "parameter group" in host.fix


def test_groups_that_batch_their_tensors_get_no_group_advice():
    d = _llrd("fixed")
    for f in d.findings:
        assert "parameter group" not in f.fix, f.kind
        assert "optimizer_foreach_calls_per_step" not in f.evidence, f.kind

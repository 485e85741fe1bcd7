"""Tiny training traces with [memory] events, built on synth.TraceBuilder.

Each step, on a GPU (device 0) with a forward thread and a backward thread as PyTorch runs them:

    forward    `layers` ops with Sequence numbers on the main thread, each allocating one
               activation of `act_bytes` (kept for backward) and launching one kernel
    backward   one `autograd::engine::evaluate_function: AddmmBackward0` per layer on the
               backward thread, in reverse: it allocates the layer's gradient transient
               (`grad_bytes`), frees it and frees the layer's activation
    optimizer  an `Optimizer.step#AdamW.step` range with one op

With `checkpoint=True` the forward keeps one boundary activation per layer of `act_bytes / 4`
and each backward node first re-runs its layer's forward (`aten::linear` with a Sequence
number, inside the node) which allocates the full activation again. With `backward=False` a
step is an evaluation with autograd left on: the same forward, no backward or optimizer, its
activations freed on the main thread when the output is dropped.

The baseline (parameters, gradients, optimizer state) is `baseline_bytes`, allocated before the
first step. `Totals` knows every number the tests assert, computed independently of the library.
"""

from __future__ import annotations

from dataclasses import dataclass

from .synth import TraceBuilder, device_properties

MAIN, BACKWARD = 100, 101
STEP_US = 10_000.0
EVAL = "autograd::engine::evaluate_function: "


@dataclass
class Totals:
    peak: int = 0
    peak_op: str = ""
    peak_step: int = 0


class MemTrace:
    def __init__(
        self,
        *,
        steps: int = 3,
        layers: int = 6,
        act_bytes: int = 100 << 20,
        grad_bytes: int = 10 << 20,
        baseline_bytes: int = 200 << 20,
        capacity_bytes: int = 80 << 30,
        reserved_bytes: int | None = None,
        checkpoint: bool = False,
        malloc_steps: tuple[int, ...] = (),
        memory_events: bool = True,
        backward: bool = True,
    ) -> None:
        self.b = TraceBuilder(
            pid=MAIN,
            tid=MAIN,
            base_us=1_000_000.0,
            gpus=[device_properties(0, memory_bytes=capacity_bytes)],
        )
        self.allocated = 0
        self.reserved = reserved_bytes
        self.totals = Totals()
        self.memory_events = memory_events
        self.seq = 0
        self.addr = 0x7F0000000000
        self.layers, self.act, self.grad, self.checkpoint = (
            layers,
            act_bytes,
            grad_bytes,
            checkpoint,
        )
        self.backward = backward  # False: an evaluation with autograd on (no backward, no step)
        self._alloc(-1000.0, baseline_bytes, "")
        for i in range(steps):
            self._step(i, i * STEP_US, i in malloc_steps)

    # -- memory --------------------------------------------------------------------------------

    def _alloc(self, ts: float, nbytes: int, op: str, *, tid: int = MAIN, step: int = -1) -> int:
        self.addr += 1 << 32
        self._event(ts, nbytes, self.addr, tid)
        if self.allocated > self.totals.peak:
            self.totals = Totals(self.allocated, op, step)
        return self.addr

    def _free(self, ts: float, nbytes: int, addr: int, *, tid: int = MAIN) -> None:
        self._event(ts, -nbytes, addr, tid)

    def _event(self, ts: float, nbytes: int, addr: int, tid: int) -> None:
        self.allocated += nbytes
        reserved = self.reserved if self.reserved is not None else max(self.allocated, 1 << 30)
        if self.memory_events:
            self.b.memory(
                ts, nbytes, total_allocated=self.allocated, total_reserved=reserved, addr=addr
            )
            self.b.events[-1]["tid"] = tid

    # -- ops -----------------------------------------------------------------------------------

    def _op(
        self,
        name: str,
        ts: float,
        dur: float,
        *,
        tid: int = MAIN,
        seq: int | None = None,
        kernel_us: float | None = None,
    ) -> None:
        args = {} if seq is None else {"Sequence number": seq, "Fwd thread id": 1}
        ext = self.b.cpu_op(name, ts, dur, tid=tid, args=args)
        if kernel_us is not None:
            corr = self.b.runtime(
                "cudaLaunchKernel", ts + dur / 4, dur / 4, tid=tid, external_id=ext
            )
            self.b.kernel(
                f"kernel_{name}", ts + dur / 2, kernel_us, correlation=corr, external_id=ext
            )

    def _step(self, i: int, t0: float, malloc: bool) -> None:
        b = self.b
        b.step(i + 1, t0, STEP_US - 10)
        kept = self.act // 4 if self.checkpoint else self.act
        acts = []
        for k in range(self.layers):  # forward: 100 µs per layer from t0 + 100
            ts = t0 + 100 + 100 * k
            self.seq += 1
            self._op("aten::linear", ts, 80, seq=self.seq, kernel_us=60)
            self._op("aten::addmm", ts + 5, 60, kernel_us=None)
            acts.append(self._alloc(ts + 10, kept, "aten::addmm", step=i))
        if malloc:
            b.runtime("cudaMalloc", t0 + 50, 300, correlation=None)
            b.runtime("cudaFree", t0 + 400, 200, correlation=None)
        bw0 = t0 + 100 + 100 * self.layers + 200
        if not self.backward:  # the output is dropped: autograd's graph and its activations go
            for k in range(self.layers):
                self._free(bw0 + k, kept, acts[k])
            return
        node_us = 400 if self.checkpoint else 200
        for j, k in enumerate(reversed(range(self.layers))):  # backward, on its own thread
            ts = bw0 + node_us * j
            b.cpu_op(
                EVAL + "AddmmBackward0",
                ts,
                node_us - 20,
                tid=BACKWARD,
                args={"Sequence number": k + 1, "Fwd thread id": 1},
            )
            b.cpu_op(
                "AddmmBackward0",
                ts + 2,
                node_us - 24,
                tid=BACKWARD,
                args={"Sequence number": k + 1, "Fwd thread id": 1},
            )
            t = ts + 5
            if self.checkpoint:  # re-run the layer's forward inside the node
                self.seq += 1
                self._op("aten::linear", t, 150, tid=BACKWARD, seq=self.seq, kernel_us=60)
                self._op("aten::addmm", t + 5, 120, tid=BACKWARD, kernel_us=None)
                again = self._alloc(t + 10, self.act, "aten::addmm", tid=BACKWARD, step=i)
                t += 200
            self._op("aten::mm", t, 100, tid=BACKWARD, kernel_us=80)
            g = self._alloc(t + 10, self.grad, "aten::mm", tid=BACKWARD, step=i)
            self._free(t + 90, self.grad, g, tid=BACKWARD)
            if self.checkpoint:
                self._free(t + 95, self.act, again, tid=BACKWARD)
            self._free(t + 96, kept, acts[k], tid=BACKWARD)
        opt0 = bw0 + node_us * self.layers + 100
        b.annotation("Optimizer.step#AdamW.step", opt0, 300)
        self._op("aten::_foreach_add_", opt0 + 10, 200, kernel_us=100)
        self.opt_offset = opt0 - t0  # optimizer start, µs after the step start

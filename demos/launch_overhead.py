"""launch_overhead: hundreds of tiny kernels, each costing more to launch than to run.

bad:   a deep, narrow model run eagerly, and an optimizer that loops over parameters
       (`foreach=False`): a few microseconds of GPU work per kernel, ~10 us of CPU per launch,
       so the GPU idles between kernels.
fixed: the same model, step and data, with the whole step (forward, backward, fused optimizer)
       captured once in a CUDA graph and replayed: one launch per step. On a CPU there are no
       CUDA graphs, so the fixed CPU variant only switches to the fused optimizer.

    python demos/launch_overhead.py --variant bad --device cuda --out traces/h100/launch_overhead
"""

import copy

import _common
import torch
import torch.nn as nn
import torch.nn.functional as F

args = _common.parse_args(
    __doc__,
    steps_cuda=50,
    extra=lambda p: p.add_argument(
        "--no-graph",
        action="store_true",
        help="fixed variant: the fused optimizer alone, no CUDA graph (measures that remedy apart)",
    ),
)
device = args.device
FIXED = args.variant == "fixed"
GRAPH = FIXED and device == "cuda" and not args.no_graph

dim, layers, batch, classes = _common.by_device(args, cuda=(256, 24, 1024, 10), cpu=(32, 4, 8, 10))


def make_block(d):
    return nn.Sequential(nn.Linear(d, d), nn.LayerNorm(d), nn.GELU())


model = nn.Sequential(*[make_block(dim) for _ in range(layers)], nn.Linear(dim, classes)).to(device)


def make_optimizer(m):
    if FIXED:  # FIXED: one fused kernel for all parameters (capturable: can live in a graph)
        return torch.optim.Adam(m.parameters(), lr=1e-3, fused=True, capturable=GRAPH)
    return torch.optim.Adam(m.parameters(), lr=1e-3, foreach=False)  # BAD: ~10 kernels per tensor


opt = make_optimizer(model)
data = [
    (torch.randn(batch, dim, device=device), torch.randint(0, classes, (batch,), device=device))
    for _ in range(8)
]
static_x, static_y = (t.clone() for t in data[0])  # the batch lives here; we copy each new one in
step_no = 0


def eager_step(m, o, x, y):
    loss = F.cross_entropy(m(x), y)
    loss.backward()
    o.step()
    return loss


def next_batch():
    global step_no
    x, y = data[step_no % len(data)]
    step_no += 1
    static_x.copy_(x)
    static_y.copy_(y)


if GRAPH:
    # FIXED: warm up on a side stream (the optimizer state is created here), then capture one
    # whole step. replay() re-runs every captured kernel with a single launch.
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            opt.zero_grad(set_to_none=True)
            eager_step(model, opt, static_x, static_y)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    opt.zero_grad(set_to_none=True)
    with torch.cuda.graph(graph):
        eager_step(model, opt, static_x, static_y)  # backward writes fresh .grad each replay


def train_step():
    next_batch()
    if GRAPH:
        graph.replay()
    else:
        opt.zero_grad(set_to_none=True)
        eager_step(model, opt, static_x, static_y)


flop_step, flops_note = None, None
if GRAPH:  # FlopCounterMode cannot see inside a graph replay: count the same step run eagerly
    shadow = copy.deepcopy(model)
    shadow_opt = torch.optim.Adam(shadow.parameters(), lr=1e-3, fused=True)

    def flop_step():
        shadow_opt.zero_grad(set_to_none=True)
        eager_step(shadow, shadow_opt, static_x, static_y)

    flops_note = "FlopCounterMode around the same step run eagerly on a copy of the model (a graph replay hides its ops)"

_common.run(
    args,
    train_step,
    batch_size=batch,
    flop_step=flop_step,
    flops_note=flops_note,
    config={
        "cuda_graph": GRAPH,
        "optimizer": "Adam(fused=True)" if FIXED else "Adam(foreach=False)",
        "dim": dim,
        "layers": layers,
        "classes": classes,
    },
)

"""The module's top level is read as a function body: tutorials and notebooks write their training
loops there, and every rule must find there exactly what it finds in a function.

Each case is a script in the style tutorials write (imports and classes first, then statements at
the top level). It is linted twice: as written, and with its statements moved into `def main():`.
Both must give the same findings on the same statements, and those findings are the codes the case
expects (so a rule that stops working in both places fails too).

The second half checks module-level names read by functions: a network, a tensor or an in-place
layer built at the top level and used inside a function must be seen there as it is when the same
function builds it itself.
"""

from __future__ import annotations

import textwrap
from collections import Counter
from typing import NamedTuple

import pytest

from torchcopylint.engine import lint_source

TORCH = "import torch\nfrom torch import nn\n"


class Case(NamedTuple):
    name: str
    preamble: str  # imports and definitions that stay at the top in both forms
    body: str  # the statements: top level, or the body of `main()`
    expected: tuple  # the codes found, one per finding


CASES = [
    # -- TCL001 redundant-clone
    Case("tcl001-flagged", TORCH, """\
conv = nn.Conv2d(3, 3, 3, padding=1)
x = torch.randn(1, 3, 8, 8)
y = conv(x)
skip = y.clone()
out = conv(skip) + y
print(out.shape)
""", ("TCL001",)),
    Case("tcl001-clean-written-after", TORCH, """\
conv = nn.Conv2d(3, 3, 3, padding=1)
y = conv(torch.randn(1, 3, 8, 8))
skip = y.clone()
y.relu_()
print((y + skip).shape)
""", ()),
    # -- TCL002 alias-mutated-in-place
    Case("tcl002-flagged", TORCH, """\
relu = nn.ReLU(inplace=True)
conv = nn.Conv2d(3, 3, 3, padding=1)
x = conv(torch.randn(1, 3, 8, 8))
identity = x
x = relu(x)
out = x + identity
print(out.shape)
""", ("TCL002",)),
    Case("tcl002-clean-copy", TORCH, """\
relu = nn.ReLU(inplace=True)
conv = nn.Conv2d(3, 3, 3, padding=1)
x = conv(torch.randn(1, 3, 8, 8))
identity = x.clone()
x = relu(x)
print((x + identity).shape)
""", ()),
    # -- TCL003 and TCL011: a DCGAN-style loop with G and D built as top-level Sequentials
    Case("tcl003-tcl011-tcl007-dcgan", "import torch\nimport torch.nn as nn\nimport torch.optim as optim\n", """\
netG = nn.Sequential(nn.ConvTranspose2d(100, 64, 4, 1, 0), nn.BatchNorm2d(64), nn.ReLU(True),
                     nn.ConvTranspose2d(64, 3, 4, 2, 1), nn.Tanh())
netD = nn.Sequential(nn.Conv2d(3, 64, 4, 2, 1), nn.LeakyReLU(0.2, inplace=True), nn.Conv2d(64, 1, 4, 1, 0),
                     nn.Sigmoid())
criterion = nn.BCELoss()
optimizerD = optim.Adam(netD.parameters(), lr=0.0002, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=0.0002, betas=(0.5, 0.999))
dataloader = [(torch.randn(8, 3, 8, 8), None) for _ in range(2)]
G_losses = []
for epoch in range(2):
    for i, (real, _) in enumerate(dataloader):
        netD.zero_grad()
        label = torch.full((real.size(0),), 1.0)
        errD_real = criterion(netD(real).view(-1), label)
        errD_real.backward()
        fake = netG(torch.randn(real.size(0), 100, 1, 1))
        label.fill_(0.0)
        errD_fake = criterion(netD(fake).view(-1), label)
        errD_fake.backward(retain_graph=True)
        optimizerD.step()
        netG.zero_grad()
        label.fill_(1.0)
        errG = criterion(netD(fake).view(-1), label)
        errG.backward()
        optimizerG.step()
        G_losses.append(errG)
""", ("TCL003", "TCL011", "TCL007")),
    Case("tcl003-clean-detached", TORCH, """\
G = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2))
D = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
for step in range(100):
    fake = G(torch.randn(64, 16))
    opt_d.zero_grad()
    d_loss = bce(D(torch.randn(64, 2)), torch.ones(64, 1)) + bce(D(fake.detach()), torch.zeros(64, 1))
    d_loss.backward()
    opt_d.step()
    opt_g.zero_grad()
    g_loss = bce(D(fake), torch.ones(64, 1))
    g_loss.backward()
    opt_g.step()
""", ()),
    # -- TCL004 inplace-on-leaf: a linear regression written with raw tensors
    Case("tcl004-flagged", "import torch\n", """\
w = torch.randn(3, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
x = torch.randn(16, 3)
y = x @ torch.tensor([[1.0], [2.0], [3.0]])
for epoch in range(100):
    loss = ((x @ w + b - y) ** 2).mean()
    loss.backward()
    w -= 0.1 * w.grad
    b.sub_(0.1 * b.grad)
    w.grad.zero_()
    b.grad.zero_()
""", ("TCL004", "TCL004")),
    Case("tcl004-clean-no-grad", "import torch\n", """\
w = torch.randn(3, 1, requires_grad=True)
x = torch.randn(16, 3)
y = torch.randn(16, 1)
for epoch in range(100):
    loss = ((x @ w - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        w.grad.zero_()
""", ()),
    # -- TCL005 clone-detach-order and TCL006 detached-alias-mutated
    Case("tcl005-tcl006-flagged", TORCH, """\
lin = nn.Linear(4, 4)
h = torch.tanh(lin(torch.randn(2, 4)))
snapshot = h.clone().detach()
view = h.detach()
view.mul_(2)
h.sum().backward()
print(snapshot)
""", ("TCL005", "TCL006")),
    Case("tcl005-tcl006-clean", TORCH, """\
lin = nn.Linear(4, 4)
h = torch.tanh(lin(torch.randn(2, 4)))
snapshot = h.detach().clone()
snapshot.mul_(2)
h.sum().backward()
print(snapshot)
""", ()),
    # -- TCL007 graph-kept-alive: a running total, a dict-held list and a curve of epoch totals
    Case("tcl007-flagged", TORCH, """\
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
history = {"loss": []}
curve = []
for epoch in range(3):
    running = 0.0
    for step in range(10):
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        running += loss
        history["loss"].append(loss)
    curve.append(running / 10)
""", ("TCL007", "TCL007", "TCL007")),
    Case("tcl007-clean", TORCH, """\
model = nn.Linear(4, 2)
model.eval()
with torch.no_grad():
    outputs = []
    for i in range(5):
        outputs.append(model(torch.randn(3, 4)))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
total = 0.0
for step in range(10):
    opt.zero_grad()
    loss = model(torch.randn(3, 4)).pow(2).mean()
    loss.backward()
    opt.step()
    total += loss.item()
""", ()),
    # -- TCL008 tensor-copy-construct
    Case("tcl008-flagged", "import torch\n", """\
t = torch.randn(3)
u = torch.tensor(t)
v = torch.tensor([1.0, 2.0])
print(u, v)
""", ("TCL008",)),
    # -- TCL009 numpy-of-grad-tensor: plotting a network's predictions
    Case("tcl009-flagged", TORCH + "import numpy as np\n", """\
net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
xs = torch.linspace(-1, 1, 50).unsqueeze(1)
pred = net(xs)
curve = pred.numpy()
points = np.asarray(net(xs))
with torch.no_grad():
    fine = net(xs).numpy()
""", ("TCL009", "TCL009")),
    # -- TCL010 data-write-under-autograd
    Case("tcl010-flagged", "import torch\n", """\
w = torch.randn(3, requires_grad=True)
x = torch.randn(3)
loss = (w * w * x).sum()
w.data.mul_(0.5)
loss.backward()
""", ("TCL010",)),
    Case("tcl010-clean-after-backward", "import torch\n", """\
w = torch.randn(4, requires_grad=True)
x = torch.randn(4)
for step in range(10):
    loss = (w * x).pow(2).sum()
    loss.backward()
    w.data -= 0.1 * w.grad.data
    w.grad.data.zero_()
""", ()),
    # -- TCL011 retain-graph-workaround: retain_graph where no later backward needs the graph
    Case("tcl011-flagged", TORCH, """\
net = nn.Linear(4, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(10):
    opt.zero_grad()
    loss = net(torch.randn(2, 4)).pow(2).mean()
    loss.backward(retain_graph=True)
    opt.step()
""", ("TCL011",)),
    # -- TCL012 leaf-lost-by-copy
    Case("tcl012-flagged", "import torch\n", """\
device = "cuda" if torch.cuda.is_available() else "cpu"
w = torch.randn(3, requires_grad=True).to(device)
opt = torch.optim.SGD([w], lr=0.1)
""", ("TCL012",)),
    Case("tcl012-clean", "import torch\n", """\
device = "cuda" if torch.cuda.is_available() else "cpu"
w = torch.randn(3, device=device, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1)
""", ()),
    # -- hand-written backpropagation at the top level of a course notebook: not autograd
    Case("course-numpy-clean", "import numpy as np\n\n\nclass Dense:\n"
         "    def __init__(self, n_in, n_out):\n        self.w = np.random.randn(n_in, n_out)\n\n"
         "    def forward(self, x):\n        self.x = x\n        return x @ self.w\n\n"
         "    def backward(self, grad):\n        self.dw = self.x.T @ grad\n        return grad @ self.w.T\n", """\
layer = Dense(2, 1)
X, Y = np.random.randn(8, 2), np.random.randn(8, 1)
weights = []
for epoch in range(10):
    out = layer.forward(X)
    layer.backward(out - Y)
    layer.w -= 0.1 * layer.dw
    weights.append(layer.w)
""", ()),
]


def _findings(source: str, first_line: int) -> Counter:
    """(code, line within the body, the statement's text) for every finding in the body."""
    lines = source.splitlines()
    return Counter((d.code, d.location.line - first_line, lines[d.location.line - 1].strip())
                   for d in lint_source(source, "script.py"))


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_top_level_reads_like_a_function_body(case: Case):
    top = f"{case.preamble}\n{case.body}"
    inside = f"{case.preamble}\n\ndef main():\n{textwrap.indent(case.body, '    ')}"
    at_top = _findings(top, case.preamble.count("\n") + 1)
    in_function = _findings(inside, case.preamble.count("\n") + 3)
    assert at_top == in_function
    assert sorted(code for code, _, _ in at_top.elements()) == sorted(case.expected)


# --------------------------------------------------------------- module-level names in functions


class GlobalCase(NamedTuple):
    name: str
    imports: str
    definitions: str  # at the top level, or at the start of the function
    body: str  # the function's statements
    expected: tuple


GLOBAL_CASES = [
    GlobalCase("tcl002-inplace-layer", TORCH, """\
relu = nn.ReLU(inplace=True)
conv = nn.Conv2d(3, 3, 3, padding=1)
""", """\
x = conv(torch.randn(1, 3, 8, 8))
identity = x
x = relu(x)
return x + identity
""", ("TCL002",)),
    GlobalCase("tcl003-networks", TORCH, """\
G = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 2))
D = nn.Sequential(nn.Linear(2, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
""", """\
for step in range(100):
    fake = G(torch.randn(64, 16))
    opt_d.zero_grad()
    d_loss = bce(D(torch.randn(64, 2)), torch.ones(64, 1)) + bce(D(fake), torch.zeros(64, 1))
    d_loss.backward()
    opt_d.step()
""", ("TCL003",)),
    GlobalCase("tcl005-tensor", TORCH, """\
lin = nn.Linear(4, 4)
h = lin(torch.randn(2, 4))
""", """\
return h.clone().detach()
""", ("TCL005",)),
    GlobalCase("tcl007-model", TORCH, """\
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
""", """\
losses = []
for step in range(10):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(torch.randn(8, 4)), torch.randn(8, 1))
    loss.backward()
    opt.step()
    losses.append(loss)
return losses
""", ("TCL007",)),
    GlobalCase("tcl008-tensor", "import torch\n", """\
t = torch.randn(3)
""", """\
return torch.tensor(t)
""", ("TCL008",)),
    GlobalCase("tcl009-network", TORCH, """\
model = nn.Linear(4, 2)
x = torch.randn(3, 4)
""", """\
out = model(x)
return out.numpy()
""", ("TCL009",)),
    GlobalCase("tcl010-leaf", "import torch\n", """\
w = torch.randn(3, requires_grad=True)
""", """\
x = torch.randn(3)
loss = (w * w * x).sum()
w.data.mul_(0.5)
loss.backward()
""", ("TCL010",)),
    GlobalCase("tcl012-leaf-for-an-optimizer", "import torch\n", """\
device = "cuda" if torch.cuda.is_available() else "cpu"
w = torch.randn(3, requires_grad=True).to(device)
""", """\
return torch.optim.SGD([w], lr=0.1)
""", ("TCL012",)),
    GlobalCase("tcl009-clean-no-grad", TORCH, """\
model = nn.Linear(4, 2)
""", """\
with torch.no_grad():
    return model(torch.randn(3, 4)).numpy()
""", ()),
]


def _codes_and_statements(source: str) -> Counter:
    lines = source.splitlines()
    return Counter((d.code, lines[d.location.line - 1].strip()) for d in lint_source(source, "script.py"))


@pytest.mark.parametrize("case", GLOBAL_CASES, ids=[case.name for case in GLOBAL_CASES])
def test_a_function_sees_the_networks_and_tensors_the_top_level_built(case: GlobalCase):
    globals_version = f"{case.imports}{case.definitions}\n\ndef main():\n{textwrap.indent(case.body, '    ')}"
    locals_version = f"{case.imports}\n\ndef main():\n{textwrap.indent(case.definitions + case.body, '    ')}"
    found = _codes_and_statements(globals_version)
    assert found == _codes_and_statements(locals_version)
    assert sorted(code for code, _ in found.elements()) == sorted(case.expected)


def test_a_name_the_function_binds_itself_is_not_the_global():
    source = TORCH + """\
model = nn.Linear(4, 2)


def predict(model):
    return model(torch.randn(3, 4)).numpy()


def shadowed():
    model = lambda x: x
    return model(torch.randn(3, 4)).numpy()
"""
    found = [d for d in lint_source(source, "script.py") if d.code == "TCL009"]
    # `predict`'s parameter is not the top-level Linear: it is reported as a network passed in
    # (issue 19: the assumption is stated), never as the global's output; the lambda is no network.
    assert len(found) == 1 and "passed in as `model`" in found[0].message
    assert found[0].location.line == source.splitlines().index("def predict(model):") + 2

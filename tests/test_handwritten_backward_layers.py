"""A course's layers with hand-written `forward`/`backward` static methods, each calling the others'
(`Conv_ReLU_Pool.backward` calls `FastMaxPool.backward`, `ReLU.backward`, ...): not autograd, and each
class's `backward` is read once, however many calls ask about it (no timings asserted here)."""

from __future__ import annotations

from torchcopylint.analysis import training
from torchcopylint.engine import lint_source


def _layers(count: int) -> str:
    lines = ["import torch", "from fully_connected import ReLU, Linear", "",
             "def train(layers, x, w, steps):",
             "    total = 0",
             "    for step in range(steps):",
             "        out, cache = layers[0].forward(x, w)",
             "        loss = out.sum()",
             "        total += loss",
             "        layers[0].backward(loss, cache)",
             "    return total", ""]
    for index in range(count):
        inner = ["ReLU", "Linear"] + [f"Layer{other}" for other in range(max(0, index - 3), index)]
        lines += [f"class Layer{index}(object):",
                  "    @staticmethod",
                  "    def forward(x, w):",
                  *[f"        x, cache = {name}.forward(x, w)" for name in inner],
                  "        return x, cache",
                  "",
                  "    @staticmethod",
                  "    def backward(dout, cache):",
                  "        d = dout",
                  *[f"        d = {name}.backward(d, cache)" for name in reversed(inner)],
                  "        return d",
                  ""]
    return "\n".join(lines)


def test_each_hand_written_backward_is_read_once(monkeypatch):
    source = _layers(12)
    calls = source.count(".backward(") + source.count(".forward(")
    asked = []
    original = training.backpropagated_expression

    def counted(call, function, facts, seen=frozenset()):
        asked.append(call)
        return original(call, function, facts, seen)

    monkeypatch.setattr(training, "backpropagated_expression", counted)
    diagnostics = lint_source(source, "layers.py")
    # Not autograd: the hand-written backward keeps no graph and retains none.
    assert not [d for d in diagnostics if d.code in ("TCL007", "TCL011", "TCL900")], diagnostics
    # Each call is asked about a bounded number of times (the rules that need it, each method once),
    # not once per path through the other classes' methods.
    assert len(asked) <= 10 * calls, (len(asked), calls)

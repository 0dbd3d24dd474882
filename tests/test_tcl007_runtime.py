"""TCL007's two leaks, executed: what the page says each kind of finding keeps alive is what torch keeps.

The page's flagged examples are run with a small model:

- the evaluation loop (`model.eval()` without `no_grad`): the outputs it returns keep every batch's
  graph *with its saved activations* (`AddmmBackward0._saved_mat1` is still a tensor);
- the training loop that appends its losses: each loss keeps its graph nodes, but `backward()` freed
  what they saved (reading a saved tensor raises the freed-graph error).

The fixed versions keep no graph at all.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
nn = torch.nn

from torchcopylint.engine import lint_source  # noqa: E402
from torchcopylint.pages import page_examples  # noqa: E402

EXAMPLES = page_examples("TCL007")
FREED = "Trying to backward through the graph a second time"


def _example(kind: str, marker: str):
    [example] = [e for e in EXAMPLES if e.kind == kind and marker in e.source]
    return example


def _define(example, name: str):
    namespace = {"__name__": "tcl007_example"}
    exec(compile(example.source, f"<TCL007 line {example.line}>", "exec"), namespace)  # noqa: S102
    return namespace[name]


def _model() -> nn.Module:
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))


def _loader(batches: int = 5):
    return [(torch.randn(4, 8), torch.randint(0, 3, (4,))) for _ in range(batches)]


def _addmm_nodes(tensor) -> list:
    """Every AddmmBackward0 node reachable from a tensor's graph."""
    found, pending, seen = [], [tensor.grad_fn], set()
    while pending:
        node = pending.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if type(node).__name__ == "AddmmBackward0":
            found.append(node)
        pending.extend(next_node for next_node, _ in node.next_functions)
    return found


def test_evaluation_loop_keeps_every_batch_saved_activations():
    flagged = _example("flagged", "def predict(")
    assert [d.context["kept"] for d in lint_source(flagged.source, "<x>") if d.code == "TCL007"] == [
        "saved activations"]
    outputs = _define(flagged, "predict")(_model(), _loader(5))
    nodes = _addmm_nodes(outputs)
    assert len(nodes) == 2 * 5  # two linear layers, five batches, all alive
    assert all(isinstance(node._saved_mat1, torch.Tensor) for node in nodes)  # activations kept


def test_fixed_evaluation_loop_keeps_nothing():
    fixed = _example("fixed", "def predict(")
    outputs = _define(fixed, "predict")(_model(), _loader(5))
    assert outputs.grad_fn is None and not outputs.requires_grad


def test_training_loop_keeps_graph_nodes_whose_saved_tensors_are_freed():
    flagged = _example("flagged", "losses.append(loss)\n")
    assert [d.context["kept"] for d in lint_source(flagged.source, "<x>") if d.code == "TCL007"] == [
        "graph nodes"]
    model = _model()
    loader = [(x, nn.functional.one_hot(y, 3).float()) for x, y in _loader(4)]
    losses = _define(flagged, "train")(model, loader, torch.optim.SGD(model.parameters(), lr=0.1))
    assert all(loss.grad_fn is not None for loss in losses)  # every iteration's nodes are alive
    for loss in losses:
        nodes = _addmm_nodes(loss)
        assert len(nodes) == 2
        with pytest.raises(RuntimeError, match=FREED):
            nodes[0]._saved_mat1  # noqa: B018 - reading it is the check: backward() freed it

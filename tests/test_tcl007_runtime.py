"""TCL007's two leaks, executed: what the page says each kind of finding keeps alive is what torch keeps.

The page's flagged examples are run with a small model:

- the evaluation loop (`model.eval()` without `no_grad`): the outputs it returns keep every batch's
  graph *with its saved activations* (`AddmmBackward0._saved_mat1` is still a tensor);
- the training loop that appends its losses: each loss keeps its graph nodes, but `backward()` freed
  what they saved (reading a saved tensor raises the freed-graph error).

The fixed versions keep no graph at all.
"""

from __future__ import annotations

import textwrap

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


# --- containers, running sums and module state ---------------------------------------------


def _graph_nodes(tensors) -> set:
    """Every autograd node reachable from the tensors (ids; the tensors are kept alive by the caller)."""
    seen, pending = set(), [getattr(tensor, "grad_fn", None) for tensor in tensors]
    while pending:
        node = pending.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        pending.extend(next_node for next_node, _ in node.next_functions)
    return seen


def _regression_loader(batches: int = 3):
    return [(torch.randn(4, 8), torch.randn(4, 3)) for _ in range(batches)]


def test_a_run_long_curve_of_epoch_totals_keeps_every_epoch_graphs():
    flagged = _example("flagged", "curve.append(running / steps)")
    diagnostics = [d for d in lint_source(flagged.source, "<x>") if d.code == "TCL007"]
    assert [d.location.line for d in diagnostics] == [15, 17]
    assert "running sum" in diagnostics[1].message and "`curve`" in diagnostics[1].message
    fit = _define(flagged, "fit")
    sizes = []
    for epochs in (1, 2, 3):
        model = _model()
        curve = fit(model, _regression_loader(), torch.optim.SGD(model.parameters(), lr=0.01), epochs)
        sizes.append(len(_graph_nodes(curve)))
    # Every epoch adds its own graph (the parameters' AccumulateGrad nodes are shared).
    assert sizes[0] > 0 and sizes[2] - sizes[1] == sizes[1] - sizes[0] > sizes[0] / 2
    fixed = _example("fixed", "curve.append(running / steps)")
    model = _model()
    curve = _define(fixed, "fit")(model, _regression_loader(), torch.optim.SGD(model.parameters(), lr=0.01), 3)
    assert all(isinstance(point, float) for point in curve)


def test_losses_in_dict_held_lists_keep_their_graphs():
    flagged = _example("flagged", 'log["train"].append(loss)\n')
    model = _model()
    log = _define(flagged, "train")(model, _loader(4), torch.optim.SGD(model.parameters(), lr=0.1), 2)
    assert len(log["train"]) == 8 and all(loss.grad_fn is not None for loss in log["train"])
    assert len(_graph_nodes(log["train"])) > 8 * 3  # each loss keeps its own chain of nodes
    fixed = _example("fixed", 'log["train"].append(loss.detach())')
    model = _model()
    log = _define(fixed, "train")(model, _loader(4), torch.optim.SGD(model.parameters(), lr=0.1), 2)
    assert not _graph_nodes(log["train"])


def test_stacked_outputs_kept_across_iterations_keep_every_forward():
    flagged = _example("flagged", "kept.append(stacked)")
    model = _model()
    loader = [(torch.randn(4, 8), torch.randn(1, 3)) for _ in range(3)]
    kept = _define(flagged, "train")(model, loader, torch.optim.SGD(model.parameters(), lr=0.01))
    assert [len(_addmm_nodes(stacked)) for stacked in kept] == [2 * 4] * 3  # four chunks, two layers, per step
    fixed = _example("fixed", "kept.append(stacked.detach())")
    model = _model()
    kept = _define(fixed, "train")(model, loader, torch.optim.SGD(model.parameters(), lr=0.01))
    assert not _graph_nodes(kept)


def test_a_running_mean_built_on_its_previous_value_chains_every_call():
    flagged = _example("flagged", "self.avg = self.avg * (1 - self.momentum)")
    [diagnostic] = [d for d in lint_source(flagged.source, "<x>") if d.code == "TCL007"]
    assert "`self.avg`" in diagnostic.message
    projection_class = _define(flagged, "CenteredProjection")
    torch.manual_seed(0)
    projection = projection_class(8)
    sizes = []
    for _ in range(3):  # no backward: the chain of graphs grows call after call
        projection(torch.randn(4, 8))
        sizes.append(len(_graph_nodes([projection.avg])))
    assert sizes[0] < sizes[1] < sizes[2]
    projection = projection_class(8)
    optimizer = torch.optim.SGD(projection.parameters(), lr=0.1)
    projection(torch.randn(4, 8)).pow(2).mean().backward()
    optimizer.step()
    with pytest.raises(RuntimeError, match=FREED):  # the second step goes back into the first one's graph
        projection(torch.randn(4, 8)).pow(2).mean().backward()
    fixed = _define(_example("fixed", "self.avg = self.avg.detach() * (1 - self.momentum)"), "CenteredProjection")
    projection = fixed(8)
    optimizer = torch.optim.SGD(projection.parameters(), lr=0.1)
    sizes = []
    for _ in range(3):
        optimizer.zero_grad()
        projection(torch.randn(4, 8)).pow(2).mean().backward()
        optimizer.step()
        sizes.append(len(_graph_nodes([projection.avg])))
    assert sizes[0] == sizes[1] == sizes[2]  # one call's graph at most


@pytest.mark.parametrize("marker", ["class SequenceTrainer", "class SmoothTrainer"])
def test_state_kept_on_self_is_backpropagated_again_in_the_next_step(marker):
    [flagged] = [e for e in EXAMPLES if e.kind == "flagged" and marker in e.source]
    trainer = _define(flagged, marker.split()[1])()
    trainer.step(torch.randn(2, 5, 4) if "Sequence" in marker else torch.randn(2, 4), torch.randn(2, 1))
    with pytest.raises(RuntimeError, match=FREED):
        trainer.step(torch.randn(2, 5, 4) if "Sequence" in marker else torch.randn(2, 4), torch.randn(2, 1))


def test_state_kept_detached_trains_step_after_step():
    [fixed] = [e for e in EXAMPLES if e.kind == "fixed" and "class SmoothTrainer" in e.source]
    [clean] = [e for e in EXAMPLES if e.kind == "clean" and "class SmoothTrainer" in e.source]
    for example in (fixed, clean):
        trainer = _define(example, "SmoothTrainer")()
        losses = [trainer.step(torch.randn(2, 4), torch.randn(2, 1)) for _ in range(3)]
        assert all(isinstance(loss, float) for loss in losses)


def test_the_hand_written_backprop_course_example_runs_without_autograd():
    [clean] = [e for e in EXAMPLES if e.kind == "clean" and "class Dense:" in e.source]
    numpy = pytest.importorskip("numpy")
    snapshots = _define(clean, "train")(numpy.random.randn(16, 2), numpy.random.randn(16, 1), 5)
    assert len(snapshots) == 5 and all(isinstance(w, numpy.ndarray) for w in snapshots)


def test_a_moving_average_of_losses_chains_every_step():
    flagged = _example("flagged", "smooth = 0.98 * smooth + 0.02 * loss\n")
    source = flagged.source.replace("    return float(smooth)", "    return smooth")  # keep the tensor to look at
    namespace: dict = {}
    exec(compile(source, "<TCL007 moving average>", "exec"), namespace)  # noqa: S102
    sizes = []
    for steps in (1, 2, 3):
        model = _model()
        smooth = namespace["train"](model, _loader(steps), torch.optim.SGD(model.parameters(), lr=0.1))
        sizes.append(len(_graph_nodes([smooth])))
    assert sizes[0] < sizes[1] < sizes[2]  # every step's graph is linked into the average


# --- sums across steps, values made under no-grad, evaluation totals, the top level -------------


def _heads_setup():
    torch.manual_seed(0)
    backbone = nn.Linear(8, 16)
    heads = nn.ModuleList([nn.Linear(16, 3) for _ in range(2)])
    optimizer = torch.optim.SGD(list(backbone.parameters()) + list(heads.parameters()), lr=0.1)
    loader = [(torch.randn(4, 8), torch.randint(0, 3, (2, 4))) for _ in range(3)]
    return backbone, heads, loader, optimizer


def test_a_sum_started_before_the_training_loop_fails_on_the_second_step():
    flagged = _example("flagged", "def train_heads(")
    [diagnostic] = [d for d in lint_source(flagged.source, "<x>") if d.code == "TCL007"]
    assert diagnostic.context["kept"] == "graph chain" and "`step_loss.backward()`" in diagnostic.message
    backbone, heads, loader, optimizer = _heads_setup()
    with pytest.raises(RuntimeError, match=FREED):
        _define(flagged, "train_heads")(backbone, heads, loader, optimizer)


def test_a_sum_started_afresh_in_each_step_trains():
    clean = _example("clean", "def train_heads(")
    assert not lint_source(clean.source, "<x>")
    backbone, heads, loader, optimizer = _heads_setup()
    history = _define(clean, "train_heads")(backbone, heads, loader, optimizer)
    assert len(history) == 3 and all(isinstance(loss, float) for loss in history)


def test_state_started_over_in_the_method_keeps_one_call_graph():
    clean = _example("clean", "class NoisyViewsGAN")
    assert not lint_source(clean.source, "<x>")
    torch.manual_seed(0)
    gan = _define(clean, "NoisyViewsGAN")()
    sizes = []
    for _ in range(3):
        assert isinstance(gan.step_g(torch.randn(4, 8)), float)  # no freed-graph error on later steps
        sizes.append(len(_graph_nodes([gan.loss_g])))
    assert sizes[0] == sizes[1] == sizes[2]  # one call's graph, never the previous calls'


def test_values_made_under_no_grad_keep_no_graph():
    clean = _example("clean", 'history = {"train": [], "val": [], "spread": []}')
    assert not lint_source(clean.source, "<x>")
    model = _model()
    history = _define(clean, "fit")(model, _loader(3), torch.randn(6, 8), torch.randint(0, 3, (6,)),
                                    torch.optim.SGD(model.parameters(), lr=0.1), 2)
    kept = history["train"] + history["val"]
    assert len(kept) == 4 and all(not value.requires_grad for value in kept)
    assert not _graph_nodes(kept)


def test_an_evaluation_total_weighted_by_the_batch_size_keeps_every_batch_activations():
    flagged = _example("flagged", "def validate(net")
    source = flagged.source.replace("    return float(total) / seen", "    return total")  # keep the tensor
    namespace: dict = {}
    exec(compile(source, "<TCL007 weighted validation>", "exec"), namespace)  # noqa: S102
    total = namespace["validate"](_model(), _loader(5), nn.CrossEntropyLoss())
    nodes = _addmm_nodes(total)
    assert len(nodes) == 2 * 5  # two linear layers, five batches, all alive
    assert all(isinstance(node._saved_mat1, torch.Tensor) for node in nodes)  # activations kept
    fixed = _example("fixed", "total += (loss * x.size(0)).item()")
    assert isinstance(_define(fixed, "validate")(_model(), _loader(5), nn.CrossEntropyLoss()), float)


def test_a_top_level_curve_of_epoch_totals_keeps_every_epoch_graphs():
    flagged = _example("flagged", "losses.append(cur / len(data))")
    assert [d.location.line for d in lint_source(flagged.source, "<x>") if d.code == "TCL007"] == [17, 18]
    sizes = []
    for epochs in (1, 2, 3):
        namespace: dict = {}
        source = flagged.source.replace("range(3):\n    cur", f"range({epochs}):\n    cur")
        exec(compile(source, "<TCL007 script>", "exec"), namespace)  # noqa: S102
        sizes.append(len(_graph_nodes(namespace["losses"])))
    assert sizes[0] > 0 and sizes[2] - sizes[1] == sizes[1] - sizes[0] > sizes[0] / 2  # one graph per epoch
    fixed = _example("fixed", "cur += loss.item()\n    losses.append(cur / len(data))")
    namespace = {}
    exec(compile(fixed.source, "<TCL007 script fixed>", "exec"), namespace)  # noqa: S102
    assert all(isinstance(point, float) for point in namespace["losses"])


def test_state_started_over_at_the_end_of_each_step_trains_step_after_step():
    clean = _example("clean", "class MultiTargetRegressor")
    assert not lint_source(clean.source, "<x>")
    torch.manual_seed(0)
    regressor = _define(clean, "MultiTargetRegressor")()
    for _ in range(3):  # no freed-graph error: each step's sum starts at 0
        regressor.step(torch.randn(4, 4), [torch.randn(4, 1), torch.randn(4, 1)])
        assert regressor.loss == 0
    flagged = clean.source[: clean.source.rindex("        self.loss = 0")]  # the reset at the end removed
    assert [d.code for d in lint_source(flagged, "<x>")] == ["TCL007"]
    namespace: dict = {}
    exec(compile(flagged, "<TCL007 state kept across steps>", "exec"), namespace)  # noqa: S102
    regressor = namespace["MultiTargetRegressor"]()
    regressor.step(torch.randn(4, 4), [torch.randn(4, 1), torch.randn(4, 1)])
    with pytest.raises(RuntimeError, match=FREED):  # the second step's sum reaches the first step's graph
        regressor.step(torch.randn(4, 4), [torch.randn(4, 1), torch.randn(4, 1)])


# --- values kept across the steps that carry no graph (a number, gradient signs, indices) ---------


def test_a_penalty_summed_across_steps_fails_while_its_annealing_weight_is_a_number():
    flagged = _example("flagged", "penalty += logits.pow(2).mean()")
    [diagnostic] = [d for d in lint_source(flagged.source, "<x>") if d.code == "TCL007"]
    assert diagnostic.location.line == 13 and "`penalty = 0`" in diagnostic.message
    model = _model()
    with pytest.raises(RuntimeError, match=FREED):  # the second step reaches the first step's graph
        _define(flagged, "train")(model, _loader(3), torch.optim.SGD(model.parameters(), lr=0.1), 10)
    # The annealing weight alone (the clean page example) trains step after step: it is a number.
    clean = _example("clean", "beta += 1.0 / warmup_steps")
    assert not lint_source(clean.source, "<x>")

    class TinyVAE(nn.Module):
        def __init__(self):
            super().__init__()
            self.encode, self.decode = nn.Linear(8, 4), nn.Linear(2, 8)

        def forward(self, x):
            mu, logvar = self.encode(x).chunk(2, dim=1)
            return self.decode(mu + torch.randn_like(mu) * (0.5 * logvar).exp()), mu, logvar

    torch.manual_seed(0)
    vae = TinyVAE()
    history = _define(clean, "train_vae")(vae, [torch.randn(4, 8) for _ in range(4)],
                                          torch.optim.SGD(vae.parameters(), lr=0.01), 10)
    assert len(history) == 4 and all(isinstance(loss, float) for loss in history)


def test_momentum_of_gradient_signs_and_a_queue_of_indices_chain_no_graph():
    attack = _example("clean", "def momentum_attack(")
    assert not lint_source(attack.source, "<x>")
    model = _model()
    images, labels = torch.rand(4, 8), torch.randint(0, 3, (4,))
    adv = _define(attack, "momentum_attack")(model, images, labels, 4, 0.01)
    assert not adv.requires_grad and (adv - images).abs().max() <= 4 * 0.01 + 1e-6  # four steps, no error
    queue = _example("clean", "order.extend(np.random.permutation(len(inputs)))")
    assert not lint_source(queue.source, "<x>")
    pytest.importorskip("numpy")
    model = _model()
    inputs, targets = torch.randn(10, 8), torch.randint(0, 3, (10,))
    last = _define(queue, "train")(model, inputs, targets, torch.optim.SGD(model.parameters(), lr=0.1), 6, 4)
    assert isinstance(last, float)


# --- objects that are not autograd's: a hand-written engine, loss modules, hand-written layers -------


def test_a_hand_written_scalar_engine_keeps_python_objects_not_graphs():
    clean = _example("clean", "class Scalar:\n    \"\"\"A scalar")
    assert not lint_source(clean.source, "<x>")
    namespace: dict = {"__name__": "tcl007_nanograd"}
    exec(compile(clean.source[: clean.source.index("print(")], "<TCL007 nanograd>", "exec"), namespace)  # noqa: S102
    history = namespace["fit"]([1.0, 2.0, 3.0], [2.0, 4.0, 6.0], 30)
    assert type(history[0]).__name__ == "Scalar" and not any(isinstance(v, torch.Tensor) for v in history)
    assert history[-1].data < history[0].data  # the engine's own backward trains it


def test_style_loss_modules_summed_in_a_closure_hold_one_call_graph():
    clean = _example("clean", "class StyleLoss(nn.Module)")
    assert not lint_source(clean.source, "<x>")
    namespace: dict = {"__name__": "tcl007_style"}
    exec(compile(clean.source[: clean.source.index("losses = [")], "<TCL007 style>", "exec"), namespace)  # noqa: S102
    StyleLoss = namespace["StyleLoss"]
    losses = [StyleLoss(torch.eye(4) * 0.1, 10.0), StyleLoss(torch.eye(4) * 0.2, 1.0)]
    model = nn.Sequential(*losses)
    scores = []
    original = torch.optim.LBFGS.step

    def recording(self, closure):
        def wrapped():
            score = closure()
            scores.append(score)
            return score
        return original(self, wrapped)

    torch.optim.LBFGS.step = recording
    try:
        image = namespace["stylize"](model, losses, torch.rand(4, 6), steps=3)
    finally:
        torch.optim.LBFGS.step = original
    assert image.shape == (4, 6) and len(scores) >= 3
    # Each call's sum links only that call's graph: two calls share no node but the image's own
    # AccumulateGrad (the leaf being optimized).
    def computed(score):
        seen, pending = {}, [score.grad_fn]
        while pending:
            node = pending.pop()
            if node is None or id(node) in seen:
                continue
            seen[id(node)] = node
            pending.extend(next_node for next_node, _ in node.next_functions)
        return {key for key, node in seen.items() if type(node).__name__ != "AccumulateGrad"}

    first, last = computed(scores[0]), computed(scores[-1])
    assert first and last and not first & last


def test_a_layer_with_a_hand_written_backward_records_no_graph():
    clean = _example("clean", "class ManualLinear(nn.Module)")
    assert not lint_source(clean.source, "<x>")
    namespace: dict = {"__name__": "tcl007_manual"}
    exec(compile(clean.source[: clean.source.index("print(")], "<TCL007 manual>", "exec"), namespace)  # noqa: S102
    layers = [namespace["ManualLinear"](3, 4), namespace["ManualLinear"](4, 1)]
    losses = namespace["train"](layers, torch.randn(8, 3), torch.randn(8, 1), 3)
    assert all(loss.grad_fn is None and not loss.requires_grad for loss in losses)


def test_a_torch_loop_beside_a_hand_written_engine_keeps_its_graphs():
    flagged = _example("flagged", "def fit_torch(")
    [finding] = [d for d in lint_source(flagged.source, "<x>") if d.code == "TCL007"]
    assert finding.location.line == 26
    model = _model()
    loader = [(x, nn.functional.one_hot(y, 3).float()) for x, y in _loader(3)]
    history = _define(flagged, "fit_torch")(model, loader, torch.optim.SGD(model.parameters(), lr=0.1))
    assert all(loss.grad_fn is not None for loss in history)  # every step's graph nodes kept


def test_recurrent_state_set_afresh_before_each_grad_mode_call_trains_update_after_update():
    clean = _example("clean", "class RecurrentActor")
    assert not lint_source(clean.source, "<x>")
    torch.manual_seed(0)
    agent = _define(clean, "Agent")(5, 3)
    for _ in range(3):  # an episode's rollout under no-grad between updates, as the agent is used
        agent.reset_hidden()
        agent.act(torch.randn(5))
        # No freed-graph error: each update starts its sequence from a fresh state.
        assert isinstance(agent.update(torch.randn(2, 6, 5), torch.randint(0, 3, (2, 6)), torch.randn(2, 6)), float)
    assert agent.net.hidden.grad_fn is not None and agent.net.hidden.requires_grad  # the state does carry a graph


def test_recurrent_state_a_method_of_the_network_returns_detached_trains_update_after_update():
    clean = _example("clean", "class RecurrentQ")
    assert not lint_source(clean.source, "<x>")
    torch.manual_seed(0)
    agent = _define(clean, "Agent")(5, 3)
    for _ in range(3):  # no freed-graph error: each update starts from the detached, zeroed state
        assert isinstance(agent.optimize(torch.randn(6, 4, 5), torch.randn(4, 3)), float)
    assert agent.hidden.grad_fn is not None  # the state does carry the last update's graph
    # Without the reset the second update backpropagates into the first one's freed graph.
    chained = clean.source.replace(
        "            self.hidden, self.cell = self.q.reset_states(self.hidden, self.cell)\n", "            pass\n")
    assert [d.code for d in lint_source(chained, "<x>")] == ["TCL007", "TCL007"]
    namespace: dict = {}
    exec(compile(chained, "<TCL007 chained state>", "exec"), namespace)  # noqa: S102
    agent = namespace["Agent"](5, 3)
    agent.optimize(torch.randn(6, 4, 5), torch.randn(4, 3))
    with pytest.raises(RuntimeError, match=FREED):
        agent.optimize(torch.randn(6, 4, 5), torch.randn(4, 3))


def test_recurrent_state_chained_by_calls_without_a_reset_between_is_flagged():
    # The same network, called twice in grad mode after one reset: the second call builds on the first's graph.
    source = _example("clean", "class RecurrentActor").source.replace(
        "        logits = self.net.actor(states)\n",
        "        self.net.actor(states)\n        logits = self.net.actor(states)\n")
    assert [d.code for d in lint_source(source, "<x>")] == ["TCL007"]


def test_a_file_that_never_imports_torch_and_backpropagates_by_hand_keeps_no_autograd_graph():
    # A course's NumPy framework: `mm.Sequential` trained with its own backward, then an evaluation
    # loop summing its losses.
    source = (
        "import numpy as np\nimport modules as mm\n\n"
        "model = mm.Sequential(mm.Linear(4, 8), mm.ReLU(), mm.Linear(8, 1))\ncriterion = mm.MSELoss()\n"
        "for X_batch, y_batch in train_loader:\n    predictions = model(X_batch)\n"
        "    model.backward(X_batch, criterion.backward(predictions, y_batch))\n"
        "test_loss = 0.0\nmodel.eval()\nfor X_batch, y_batch in test_loader:\n"
        "    loss = criterion(model(X_batch), y_batch)\n    test_loss += loss * X_batch.shape[0]\n"
    )
    assert lint_source(source, "<x>") == []
    with_torch = source.replace("import numpy as np\n", "import numpy as np\nimport torch\n")
    # Importing torch does not make it a torch model: a torch module has no `backward(x, grad)` (fresh89's
    # course project trains its own layer stack beside a torch loop in one file).
    assert lint_source(with_torch, "<x>") == []
    trained_by_autograd = with_torch.replace("model.backward(X_batch, criterion.backward(predictions, y_batch))",
                                             "criterion(predictions, y_batch).backward()")
    assert [d.code for d in lint_source(trained_by_autograd, "<x>")] == ["TCL007"]  # the same loop, autograd's
    # A training helper that never imports torch (everything is handed in) is autograd's all the same.
    helper = ("def train(model, optimizer, batches):\n    total = 0\n    for batch in batches:\n"
              "        loss = model(batch).sum()\n        optimizer.zero_grad()\n        loss.backward()\n"
              "        optimizer.step()\n        total += loss\n    return total\n")
    assert [d.code for d in lint_source(helper, "<x>")] == ["TCL007"]


def test_an_autograder_that_imports_torch_runs_a_course_s_own_layers_by_hand():
    # CMU 11-785's autograder: the layers are the student's NumPy classes, star-imported; it imports
    # torch to compare with it. `backward_res = upsample.backward(forward_res)` keeps what the method
    # returns: autograd's backward returns None, so that is a hand-written one, and nothing is a graph.
    source = (
        "import numpy as np\nimport torch\nfrom resampling import *\n\n"
        "def test_upsampling():\n    forward_res_list = []\n    for seed in [1, 2, 3]:\n"
        "        x = np.random.randn(2, 3, 8)\n        upsample = Upsample1d(2)\n"
        "        forward_res = upsample.forward(x)\n        backward_res = upsample.backward(forward_res)\n"
        "        forward_res_list.append(forward_res)\n    return forward_res_list\n"
    )
    assert lint_source(source, "<x>") == []
    # The same loop over torch's own module is autograd's, and keeps every iteration's graph.
    with_torch = source.replace("upsample = Upsample1d(2)", "upsample = torch.nn.Upsample(scale_factor=2)") \
        .replace("backward_res = upsample.backward(forward_res)", "forward_res.sum().backward()") \
        .replace("np.random.randn(2, 3, 8)", "torch.randn(2, 3, 8, requires_grad=True)")
    assert [d.code for d in lint_source(with_torch, "<x>")] == ["TCL007"]


def test_recurrent_state_of_a_class_that_offers_a_reset_is_one_sequence_chain():
    # The training loop is in another file; the class offers `reset()`, which starts the state over.
    example = _example("clean", "class LSTMController")
    assert lint_source(example.source, "<x>") == []
    namespace: dict = {}
    exec(compile(example.source, "<example>", "exec"), namespace)
    controller = namespace["LSTMController"](3, 4)
    optimizer = torch.optim.SGD(controller.parameters(), lr=0.1)
    for _ in range(2):  # as its callers use it: a reset before each sequence, one backward after it
        controller.reset(2)
        loss = sum(controller(torch.randn(2, 3)).sum() for _ in range(3))
        optimizer.zero_grad()
        loss.backward()  # no freed-graph error: the chain is this sequence's
        optimizer.step()
    # Without the offered reset (the state set afresh only in `__init__`) the calls chain for the
    # object's whole life, and the rule reports it.
    without_reset = example.source.replace(
        "    def reset(self, batch_size: int) -> None:\n"
        "        self.state = (self.h0.repeat(batch_size, 1), self.c0.repeat(batch_size, 1))\n\n", "") \
        .replace("        self.c0 = nn.Parameter(torch.zeros(1, hidden_size))\n",
                 "        self.c0 = nn.Parameter(torch.zeros(1, hidden_size))\n"
                 "        self.state = (self.h0.repeat(2, 1), self.c0.repeat(2, 1))\n")
    assert without_reset != example.source
    assert [d.code for d in lint_source(without_reset, "<x>")] == ["TCL007"]
    # And a file that calls the module without resetting it between training steps is judged by its calls.
    called = example.source + (
        "\n\ncontroller = LSTMController(3, 4)\ncontroller.reset(2)\n"
        "for x in torch.randn(5, 2, 3):\n    controller.forward(x).sum().backward()\n")
    assert [d.code for d in lint_source(called, "<x>")] == ["TCL007"]


PARTS_BACKPROPAGATED = """\
import torch


def train(disc, loader, optimizer):
    running = 0
    for real, fake in loader:
        optimizer.zero_grad()
        real_loss = disc(real).mean()
        real_loss.backward()
        fake_loss = -disc(fake).mean()
        fake_loss.backward()
        optimizer.step()
        disc_loss = real_loss + fake_loss
        running = running + disc_loss
    return running
"""


def test_a_sum_of_losses_each_backpropagated_keeps_graph_nodes_whose_saved_tensors_are_freed():
    # Each part had its own backward: what the running sum keeps is the chain of nodes, not activations.
    [found] = [d for d in lint_source(PARTS_BACKPROPAGATED, "<x>") if d.code == "TCL007"]
    assert found.context["kept"] == "graph nodes", found.message
    assert "`disc_loss` is made of `real_loss` and `fake_loss`, each backpropagated" in found.message
    namespace: dict = {}
    exec(compile(PARTS_BACKPROPAGATED, "<parts>", "exec"), namespace)  # noqa: S102
    model = _model()
    running = namespace["train"](model, [(torch.randn(4, 8), torch.randn(4, 8)) for _ in range(3)],
                                 torch.optim.SGD(model.parameters(), lr=0.1))
    nodes = _addmm_nodes(running)
    assert len(nodes) == 2 * 2 * 3  # two layers, two parts, three iterations: all still linked
    for node in nodes:
        with pytest.raises(RuntimeError, match=FREED):
            node._saved_mat1  # noqa: B018 - reading it is the check: each part's backward freed it
    # One part never backpropagated: its activations stay, and the message says so.
    kept = PARTS_BACKPROPAGATED.replace("disc_loss = real_loss + fake_loss",
                                        "disc_loss = real_loss + disc(real).pow(2).mean()")
    [found] = [d for d in lint_source(kept, "<x>") if d.code == "TCL007"]
    assert found.context["kept"] == "saved activations", found.message


RETURNS_IN_THE_LOOP = """\
def train(model, loader, optimizer, epochs):
    history = []
    for epoch in range(epochs):
        for x, y in loader:
            loss = ((model(x) - y) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        history.append(loss)
        return history
"""


def test_an_epoch_loop_that_returns_at_the_end_of_its_first_pass_keeps_one_pass():
    # `return history` one level too deep: the epoch loop never runs a second pass, so nothing is kept
    # across passes (fresh22's pix2pix trainers; its notebook returns after the loop and is reported).
    assert [d for d in lint_source(RETURNS_IN_THE_LOOP, "<x>") if d.code == "TCL007"] == []
    namespace: dict = {}
    exec(compile(RETURNS_IN_THE_LOOP, "<returns in the loop>", "exec"), namespace)  # noqa: S102
    model = nn.Linear(8, 3)
    history = namespace["train"](model, _regression_loader(2), torch.optim.SGD(model.parameters(), lr=0.1), 5)
    assert len(history) == 1  # one pass of five
    after = RETURNS_IN_THE_LOOP.replace("        return history\n", "    return history\n")
    assert [d.code for d in lint_source(after, "<x>") if d.code == "TCL007"] == ["TCL007"]


SAMPLES_READ_DETACHED = """
import torch
from torch import nn


def train(generator, discriminator, g_opt, d_opt, batches):
    samples = torch.zeros(4, 8)
    for real in batches:
        g_opt.zero_grad()
        d_opt.zero_grad()
        fake = generator(torch.randn(4, 2))
        samples[2:] = fake[:2]
        d_loss = (discriminator(real) - 1).pow(2).mean() + discriminator(samples.detach()).pow(2).mean()
        d_loss.backward()
        d_opt.step()
        g_loss = (discriminator(fake) - 1).pow(2).mean()
        g_loss.backward()
        g_opt.step()
    return samples
"""


def test_a_buffer_the_backward_reads_only_detached_is_a_leak_and_no_second_backward():
    # A CycleGAN's history of fakes (fresh53): the discriminator reads `samples.detach()`, so no backward
    # reaches the buffer's old graphs; each in-place write still chains the last one's graph.
    [diagnostic] = [d for d in lint_source(SAMPLES_READ_DETACHED, "<x>") if d.code == "TCL007"]
    assert diagnostic.location.line == 12, diagnostic
    assert "keeps every iteration's autograd graph alive" in diagnostic.message, diagnostic.message
    assert "second time" not in diagnostic.message and "afresh" not in diagnostic.message, diagnostic.message
    namespace: dict = {}
    exec(compile(SAMPLES_READ_DETACHED, "<TCL007 buffer read detached>", "exec"), namespace)  # noqa: S102
    torch.manual_seed(0)
    generator, discriminator = nn.Linear(2, 8), nn.Linear(8, 1)
    samples = namespace["train"](generator, discriminator, torch.optim.SGD(generator.parameters(), lr=0.1),
                                 torch.optim.SGD(discriminator.parameters(), lr=0.1),
                                 [torch.randn(4, 8) for _ in range(3)])  # no freed-graph error
    writes, node = 0, samples.grad_fn
    while node is not None and type(node).__name__ == "CopySlices":
        writes += 1  # each write's node holds the version before it, with that step's graph
        node = node.next_functions[0][0]
    assert writes == 3, writes


STEPWISE_DECODER = """
import torch
from torch import nn


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.LSTMCell(3, 4)
        self.out = nn.Linear(4, 3)

    def initialize_states(self, memory):
        self.hidden = memory.new_zeros(memory.size(0), 4)
        self.state = memory.new_zeros(memory.size(0), 4)

    def decode(self, frame):
        self.hidden, self.state = self.cell(frame, (self.hidden, self.state))
        return self.out(self.hidden)

    def forward(self, memory, steps):
        self.initialize_states(memory)
        frames = [memory]
        while len(frames) <= steps:
            frames.append(self.decode(frames[-1]))
        return torch.stack(frames[1:])
"""


def test_state_reset_before_a_loop_over_a_sequence_s_steps_chains_one_sequence_only():
    # Tacotron's decoder (fresh54): `initialize_decoder_states` before the loop of `decode` calls; each
    # forward starts over, and the chain through the state is that sequence's backpropagation through time.
    assert lint_source(STEPWISE_DECODER, "<x>") == []
    namespace: dict = {}
    exec(compile(STEPWISE_DECODER, "<decoder>", "exec"), namespace)  # noqa: S102
    decoder = namespace["Decoder"]()
    optimizer = torch.optim.SGD(decoder.parameters(), lr=0.1)
    for _ in range(3):  # no freed-graph error: each forward's backward reaches only its own steps
        optimizer.zero_grad()
        decoder(torch.randn(2, 3), 4).pow(2).mean().backward()
        optimizer.step()
    # The reset before a loop that trains, each iteration a backward: one chain over every step.
    trained = STEPWISE_DECODER + (
        "\n\ndef train(decoder, optimizer, frames):\n    decoder.initialize_states(frames[0])\n"
        "    for frame in frames:\n        loss = decoder.decode(frame).pow(2).mean()\n"
        "        optimizer.zero_grad()\n        loss.backward()\n        optimizer.step()\n")
    assert [d.code for d in lint_source(trained, "<x>")] == ["TCL007", "TCL007"]


GRAPH_RNN = """
import torch
from torch import nn
from torch.autograd import Variable


class PlainLSTM(nn.Module):
    def __init__(self, size, hidden_size, num_layers):
        super().__init__()
        self.hidden_size, self.num_layers = hidden_size, num_layers
        self.rnn = nn.LSTM(size, hidden_size, num_layers, batch_first=True)
        self.hidden = None  # set by the caller before each sequence

    def init_hidden(self, batch_size):
        return (Variable(torch.zeros(self.num_layers, batch_size, self.hidden_size)),
                Variable(torch.zeros(self.num_layers, batch_size, self.hidden_size)))

    def forward(self, x):
        output, self.hidden = self.rnn(x, self.hidden)
        return output
"""


def test_recurrent_state_of_a_class_that_returns_a_fresh_state_for_its_callers_is_one_sequence_chain():
    # GraphRNN (fresh54): `init_hidden` returns zeros, and the training loop in another file sets
    # `rnn.hidden = rnn.init_hidden(batch_size)` before each sequence.
    assert lint_source(GRAPH_RNN, "<x>") == []
    namespace: dict = {}
    exec(compile(GRAPH_RNN, "<graph rnn>", "exec"), namespace)  # noqa: S102
    rnn = namespace["PlainLSTM"](3, 4, 1)
    optimizer = torch.optim.SGD(rnn.parameters(), lr=0.1)
    for _ in range(3):  # as its callers use it: no freed-graph error, no chain across sequences
        rnn.hidden = rnn.init_hidden(2)
        optimizer.zero_grad()
        rnn(torch.randn(2, 5, 3)).pow(2).mean().backward()
        optimizer.step()
    # Without the method that gives a fresh state, the state is set afresh only in `__init__`: flagged.
    without = GRAPH_RNN.replace("    def init_hidden(self, batch_size):\n", "    def sizes(self, batch_size):\n") \
        .replace("        return (Variable(torch.zeros(self.num_layers, batch_size, self.hidden_size)),\n"
                 "                Variable(torch.zeros(self.num_layers, batch_size, self.hidden_size)))\n",
                 "        return self.num_layers, batch_size, self.hidden_size\n")
    assert [d.code for d in lint_source(without, "<x>")] == ["TCL007"]


EPISODE_UPDATE = """
import torch
from torch import nn


def train(model, optimizer, episodes, steps):
    for episode in range(episodes):
        values = []
        step = 0
        while True:
            values.append(model(torch.randn(1, 4)))
            step += 1
            if step == steps:
                loss = torch.cat(values).pow(2).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                break
    return loss.item()
"""


def test_a_list_the_loop_s_last_pass_backpropagates_then_leaves_is_one_episode_s_graph():
    # An actor-critic's episode (fresh55): the update runs in `if done: ...; loss.backward(); break`, once
    # per run of the step loop; the list of values, started at each episode, is that episode's loss.
    assert lint_source(EPISODE_UPDATE, "<x>") == []
    namespace: dict = {}
    exec(compile(EPISODE_UPDATE, "<episode update>", "exec"), namespace)  # noqa: S102
    model = nn.Linear(4, 1)
    namespace["train"](model, torch.optim.SGD(model.parameters(), lr=0.1), 3, 5)  # no freed-graph error
    # Updated at every step from the `steps`-th on, without leaving: each backward goes back through
    # the earlier steps' graphs.
    flagged = EPISODE_UPDATE.replace("                break\n", "").replace("while True:", "for _ in range(3):") \
        .replace("if step == steps:", "if step >= steps:")
    assert [d.code for d in lint_source(flagged, "<x>")] == ["TCL007"]
    exec(compile(flagged, "<every step's update>", "exec"), namespace)  # noqa: S102
    with pytest.raises(RuntimeError, match=FREED):
        namespace["train"](model, torch.optim.SGD(model.parameters(), lr=0.1), 1, 1)


def test_a_state_the_forward_s_own_reset_detaches_in_place_links_no_two_calls():
    clean = _example("clean", "class HandLSTM")
    assert not lint_source(clean.source, "<x>")
    torch.manual_seed(0)
    network = _define(clean, "HandLSTM")(3, 4, 2)
    for _ in range(3):  # no freed-graph error: each call's backward reaches only its own graph
        network(torch.randn(2, 5, 3)).sum().backward()
    # Without the reset the second backward runs into the first call's freed graph, as the rule says.
    chained = clean.source.replace("        self.reset()\n", "")
    assert [d.code for d in lint_source(chained, "<x>")] == ["TCL007"]
    namespace: dict = {}
    exec(compile(chained, "<TCL007 chained LSTM>", "exec"), namespace)  # noqa: S102
    network = namespace["HandLSTM"](3, 4, 2)
    network(torch.randn(2, 5, 3)).sum().backward()
    with pytest.raises(RuntimeError, match=FREED):
        network(torch.randn(2, 5, 3)).sum().backward()


def test_a_new_leaf_stored_on_self_keeps_no_graph_for_the_next_call():
    # A basic iterative attack stores each step's image as a new leaf (`torch.tensor(..., requires_grad=
    # True)`, no history): the next call's backward reaches that leaf and stops. (`from utils import *` may
    # bind `torch`: the factory is read by its spelling.)
    source = textwrap.dedent("""\
        import torch
        from utils import *


        class BasicIterativeMethod:
            def attack(self):
                if self.random_start:
                    self.adversarial = torch.tensor(self.image.data + self.start, requires_grad=True)
                output = self.model(self.adversarial)
                loss = self.criterion(output, self.label)
                loss.backward()
                self.adversarial = torch.tensor(self.image.data + self.step, requires_grad=True)
        """)
    assert "TCL007" not in [d.code for d in lint_source(source, "<x>")]
    # Computed from that leaf after the backward, the stored value's small graph is backpropagated once,
    # by the next call, then replaced: no chain grows, and no backward goes through a freed graph.
    fresh = source.replace("torch.tensor(self.image.data + self.step, requires_grad=True)\n",
                           "torch.tensor(self.image.data + self.step, requires_grad=True) * self.scale\n")
    assert "TCL007" not in [d.code for d in lint_source(fresh, "<x>")]
    # Read by two backwards of the next call, that graph is gone by the second one.
    kept = fresh.replace("        loss.backward()\n", "        loss.backward()\n        (self.adversarial ** 2).sum().backward()\n")
    assert kept != fresh and "TCL007" in [d.code for d in lint_source(kept, "<x>")]
    torch.manual_seed(0)
    leaf = torch.tensor(torch.rand(3) + 0.1, requires_grad=True)  # noqa: TCL008 - the construct the case uses
    assert leaf.is_leaf and leaf.grad_fn is None  # what the rule relies on: no history behind it


def test_the_losses_step_functions_return_after_their_backward_keep_their_graph_nodes():
    flagged = _example("flagged", "def train_discriminator(real):")
    assert [d.code for d in lint_source(flagged.source, "<x>")] == ["TCL007"] * 4
    namespace: dict = {}
    exec(compile(flagged.source, "<TCL007 returned losses>", "exec"), namespace)  # noqa: S102
    # Each epoch's sum chains its five steps' graphs, and the list keeps every epoch's chain.
    assert all(total.grad_fn is not None for total in namespace["losses_d"] + namespace["losses_g"])
    # A step function that returns a number (or a loss it never backpropagates) is not this.
    numbers = flagged.source.replace("    return loss\n", "    return loss.item()\n")
    assert "TCL007" not in [d.code for d in lint_source(numbers, "<x>")]
    namespace = {}
    exec(compile(numbers, "<TCL007 returned numbers>", "exec"), namespace)  # noqa: S102
    assert all(isinstance(total, float) for total in namespace["losses_d"])


REDEFINED_LOSS = textwrap.dedent('''\
    import torch
    import torch.nn.functional as F


    def batch_loss(scores, labels):
        return F.cross_entropy(scores, labels)


    @torch.no_grad()
    def batch_loss(scores, labels):
        return F.cross_entropy(scores, labels).item()


    def fit(model, loader, epochs):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        losses = []
        for epoch in range(epochs):
            for x, y in loader:
                optimizer.zero_grad()
                scores = model(x)
                F.cross_entropy(scores, y).backward()
                optimizer.step()
                losses.append(batch_loss(scores, y))
        return losses
''')


def test_a_function_a_later_cell_defines_again_is_the_one_the_loop_calls():
    # A notebook that rewrites a function in a later cell, under no-grad and returning a number
    # (fresh72's deepul homework): the loop's call runs the last definition, which keeps no graph.
    assert not lint_source(REDEFINED_LOSS, "<x>")
    namespace: dict = {}
    exec(compile(REDEFINED_LOSS, "<redefined batch_loss>", "exec"), namespace)  # noqa: S102
    kept = namespace["fit"](_model(), _loader(3), 2)
    assert len(kept) == 6 and all(isinstance(value, float) for value in kept)
    # The other order: the definition the loop calls keeps every batch's graph, and is flagged.
    imports, earlier, later, fit = REDEFINED_LOSS.split("\n\n\n")
    swapped = "\n\n\n".join((imports, later, earlier, fit))
    [finding] = lint_source(swapped, "<x>")
    assert finding.code == "TCL007" and "losses.append" in finding.message
    namespace = {}
    exec(compile(swapped, "<redefined batch_loss, swapped>", "exec"), namespace)  # noqa: S102
    kept = namespace["fit"](_model(), _loader(3), 2)
    assert all(value.requires_grad for value in kept) and _graph_nodes(kept)


PERTURBED_BATCHES = textwrap.dedent("""\
    import torch
    import torch.nn as nn

    model = nn.Linear(4, 2)
    criterion = nn.CrossEntropyLoss()
    loader = [(torch.rand(3, 4), torch.tensor([0, 1, 1]))]
    model.eval()
    for epoch in range(1):
        for batch_idx, data in enumerate(loader, 1):
            inputs = data[0].cuda()
            inputs.requires_grad = True
            adversarial = inputs.clone()
            target = data[1].cuda()
            outputs = model(inputs)
            idx = (outputs.argmax(1) == 1).nonzero().view(-1)
            for i in idx:
                i = i.item()
                loss = criterion(outputs[i:i + 1], target[i:i + 1])
                loss.backward(retain_graph=True)
                step = inputs.grad.data[i]
                adversarial[i] = inputs[i] - 0.03 * step.sign()
            with torch.no_grad():
                print(model(adversarial).argmax(1))
""")


@pytest.mark.parametrize("copied_per_batch, reported", [(True, False), (False, True)])
def test_a_batch_perturbed_sample_by_sample_keeps_a_graph_only_where_the_copy_outlives_the_batch(
        copied_per_batch, reported):
    # fresh88's attack on a detector: the leaf is made in the batch loop, before the loop over its
    # samples, and the copy written is made afresh with each batch: nothing outlives the batch. Made
    # once before the loops, the copy keeps every batch's leaf and the nodes made from it.
    source = PERTURBED_BATCHES if copied_per_batch else PERTURBED_BATCHES.replace(
        "        adversarial = inputs.clone()\n", "").replace(
        "model.eval()\n", "model.eval()\nadversarial = torch.zeros(3, 4)\n")
    found = [d for d in lint_source(source, "example.py") if d.code == "TCL007"]
    assert bool(found) is reported, found


AGENT_LOSS_TALLY = """\
import torch


class Agent:
    def __init__(self, policy, optimizer):
        self.policy = policy
        self.optimizer = optimizer
        self.coord_loss = torch.zeros(1)
        self.ae_loss = torch.zeros(1)

    def take_action(self, observation):
        if not self.training:
            return self.policy.take_action(observation)
        actions, loss = self.policy(observation)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.coord_loss += loss
        return actions.detach()

    def step(self):
        losses = {"coord_loss": float(self.coord_loss), "ae_loss": float(self.ae_loss)}
        {reset}
        return losses
"""


@pytest.mark.parametrize("reset", [
    "self.coord_loss = 0",
    "self.ae_loss = self.coord_loss = 0",
    "self.ae_loss, self.coord_loss = torch.zeros(1), torch.zeros(1)",
])
def test_a_tally_the_class_starts_over_in_another_method_is_one_call_s_graph(reset):
    # fresh110's multi-agent learners: `take_action` adds each backpropagated loss to a tally that `step()`,
    # which the training loop (in another file) calls after every action, reads and sets to zero. The
    # policy's own `take_action`, called on the object the agent holds, is no call of the agent's method.
    source = AGENT_LOSS_TALLY.replace("{reset}", reset)
    assert [d for d in lint_source(source, "<x>") if d.code == "TCL007"] == []
    policy = torch.nn.Linear(3, 2)

    class Policy(torch.nn.Module):
        def forward(self, x):
            out = policy(x)
            return out, out.pow(2).mean()

    namespace: dict = {}
    exec(compile(source, "<example>", "exec"), namespace)
    agent = namespace["Agent"](Policy(), torch.optim.SGD(policy.parameters(), lr=0.1))
    agent.training = True
    for _ in range(3):  # as the loop uses it: an action, then the step that starts the tally over
        agent.take_action(torch.randn(4, 3))
        assert agent.coord_loss.grad_fn is not None  # this call's graph, and only this call's
        agent.step()
        assert not isinstance(agent.coord_loss, torch.Tensor) or agent.coord_loss.grad_fn is None


def test_a_tally_no_method_starts_over_still_chains_the_calls():
    source = AGENT_LOSS_TALLY.replace("{reset}", "pass")
    assert [d.code for d in lint_source(source, "<x>") if d.code == "TCL007"] == ["TCL007"]


DATASET_LOSS = """\
import torch
from torch import nn


def dataset_loss(net, loader):
    criterion = nn.CrossEntropyLoss()
    net.eval()
    total = 0
    count = 0
    for data, target in loader:
        count += len(target)
        total += criterion(net(data), target)
    total /= count
    return total


def gradient_along_path(net, loader):
    loss = dataset_loss(net, loader)
    {use}
    return [p.grad for p in net.parameters()]
"""


def test_a_sum_returned_to_a_caller_that_backpropagates_it_is_meant():
    # fresh111's mode connectivity: the whole set's loss summed over batches, returned, and backpropagated by
    # the caller. The graphs are kept for that backward.
    source = DATASET_LOSS.replace("{use}", "loss.backward()")
    assert [d for d in lint_source(source, "<x>") if d.code == "TCL007"] == []
    namespace: dict = {}
    exec(compile(source, "<example>", "exec"), namespace)
    net = nn.Linear(3, 2)
    batches = [(torch.randn(4, 3), torch.tensor([0, 1, 0, 1])) for _ in range(3)]
    grads = namespace["gradient_along_path"](net, batches)
    assert all(g is not None for g in grads)  # the one backward reached every batch's graph


def test_a_sum_returned_to_a_caller_that_only_reads_it_still_keeps_every_graph():
    source = DATASET_LOSS.replace("{use}", "print(loss.item())")
    assert [d.code for d in lint_source(source, "<x>") if d.code == "TCL007"] == ["TCL007"]

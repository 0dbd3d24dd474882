"""TCL011's unneeded `retain_graph=True` in Grad-CAM, PGD and notebook code, executed.

Each flagged page example is run as written and as the fixer leaves it: the results are the
same, bitwise, and the graph the backward kept still holds saved activations as written and
none once fixed. The clean examples that look alike are run without `retain_graph=True` to show
that a later backward needs the graph there.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
# Grad-CAM's hook sits on a block whose input needs no gradient: torch says so, once per call.
pytestmark = pytest.mark.filterwarnings("ignore:Full backward hook is firing")

from torchcopylint.engine import lint_source  # noqa: E402
from torchcopylint.fix import fix_source  # noqa: E402
from torchcopylint.pages import page_examples  # noqa: E402


def _example(kind: str, marker: str):
    found = [e for e in page_examples("TCL011") if e.kind == kind and marker in e.source]
    assert len(found) == 1, f"{len(found)} {kind} examples contain {marker!r}"
    return found[0]


def _fixed(source: str) -> str:
    relint = lambda text: [d for d in lint_source(text, "example.py") if d.code == "TCL011"]  # noqa: E731
    assert relint(source), "the example has no TCL011 finding"
    outcome = fix_source(source, "example.py", relint, unsafe=True)
    assert outcome.error is None and outcome.fixed != source and "retain_graph" not in outcome.fixed
    return outcome.fixed


def _without_retain(source: str) -> str:
    dropped = source.replace(", retain_graph=True", "").replace("retain_graph=True", "")
    assert dropped != source
    return dropped


def _run(source: str, name: str) -> dict:
    namespace: dict = {"__name__": name}
    exec(compile(source, f"<{name}>", "exec"), namespace)  # noqa: S102
    return namespace


def _held_bytes(output) -> int:
    """Bytes of the activations the graph behind `output` still saves for a backward."""
    total, seen, pending, visited = 0, set(), [output.grad_fn], set()
    while pending:
        node = pending.pop()
        if node is None or node in visited:
            continue
        visited.add(node)
        pending.extend(next_node for next_node, _ in node.next_functions)
        for attribute in dir(node):
            if attribute.startswith("_saved_"):
                try:
                    value = getattr(node, attribute)
                except RuntimeError:  # freed by a backward that did not retain the graph
                    continue
                if isinstance(value, torch.Tensor) and value.grad_fn is not None \
                        and value.untyped_storage().data_ptr() not in seen:
                    seen.add(value.untyped_storage().data_ptr())
                    total += value.untyped_storage().nbytes()
    return total


class _Head(torch.nn.Module):
    """A classifier head that keeps what it returns, so that the test can look at its graph."""

    def __init__(self, channels: int, classes: int):
        super().__init__()
        self.fc = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(channels * 16, 32), torch.nn.Tanh(),
                                      torch.nn.Linear(32, classes))
        self.outputs = []

    def forward(self, x):
        out = self.fc(x)
        self.outputs.append(out)
        return out


def _as_written_and_fixed(example, name: str, experiment) -> list:
    """`experiment(namespace)` on the example as written and with its fix, each loaded as module
    `name` and run from the same seed."""
    results = []
    for source in (example.source, _fixed(example.source)):
        namespace = _run(source, name)
        torch.manual_seed(0)
        results.append(experiment(namespace))
    return results


def test_grad_cam_keeps_the_graph_it_never_uses():
    example = _example("flagged", "class GradCam:")
    [diagnostic] = [d for d in lint_source(example.source, "cam.py") if d.code == "TCL011"]
    assert "until `__call__` returns" in diagnostic.message

    def experiment(namespace):
        features = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU())
        head = _Head(4, 5)
        model = torch.nn.Sequential(features, head)
        cam = namespace["GradCam"](model, features, head)(torch.randn(1, 3, 4, 4))
        return torch.from_numpy(cam), _held_bytes(head.outputs[-1])

    (written, held), (fixed, freed) = _as_written_and_fixed(example, "cam", experiment)
    assert torch.equal(written, fixed)
    assert held > 0, "as written, the graph of the output still saves activations after the backward"
    assert freed == 0


def test_pgd_attack_keeps_each_iterations_graph_for_nothing():
    example = _example("flagged", "def pgd_attack")

    def experiment(namespace):
        head = _Head(3, 4)
        images, labels = torch.rand(2, 3, 4, 4), torch.tensor([0, 3])
        adv = namespace["pgd_attack"](head, images, labels, steps=3)
        return adv, _held_bytes(head.outputs[-1])

    (written, held), (fixed, freed) = _as_written_and_fixed(example, "pgd", experiment)
    assert torch.equal(written, fixed)
    assert held > 0 and freed == 0


@pytest.mark.parametrize("marker, output", [("dy_dx, = torch.autograd.grad", "y"), ('reduction="mean"', "loss")])
def test_top_level_code_keeps_the_graph_for_nothing(marker, output):
    example = _example("flagged", marker)
    results = []
    for source in (example.source, _fixed(example.source)):
        torch.manual_seed(0)
        namespace = _run(source, "notebook")
        results.append((namespace[output].detach(), _held_bytes(namespace[output])))
    (written, held), (fixed, freed) = results
    assert torch.equal(written, fixed)
    assert held > 0 and freed == 0


def test_discriminator_step_handed_the_fake_batch_needs_the_graph():
    """The clean D step: the caller's generator step backpropagates through `fake` afterwards."""
    example = _example("clean", "def discriminator_step")
    for source, fails in ((example.source, False), (_without_retain(example.source), True)):
        namespace = _run(source, "dstep")
        torch.manual_seed(0)
        netG = torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh())
        netD = torch.nn.Sequential(torch.nn.Linear(6, 6), torch.nn.Tanh(), torch.nn.Linear(6, 1))
        opt_d = torch.optim.SGD(netD.parameters(), lr=0.1)
        fake = netG(torch.randn(8, 4))
        namespace["discriminator_step"](netD, opt_d, torch.randn(8, 6), fake)
        generator_loss = fake.pow(2).mean() + netD(fake).mean()  # through the generator's graph again
        if fails:
            with pytest.raises(RuntimeError, match="backward through the graph a second time"):
                generator_loss.backward()
        else:
            generator_loss.backward()


def test_robust_step_backpropagates_after_autograd_grad():
    example = _example("clean", "def robust_step")
    for source, fails in ((example.source, False), (_without_retain(example.source), True)):
        namespace = _run(source, "robust")
        torch.manual_seed(0)
        model = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(12, 3))
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        images, labels = torch.rand(2, 3, 2, 2), torch.tensor([0, 2])
        if fails:
            with pytest.raises(RuntimeError, match="backward through the graph a second time"):
                namespace["robust_step"](model, optimizer, images, labels)
        else:
            namespace["robust_step"](model, optimizer, images, labels)


def test_grad_cam_keeping_the_output_on_self_holds_the_graph_until_the_next_call():
    example = _example("flagged", "class CamOnSelf")
    [diagnostic] = [d for d in lint_source(example.source, "cam.py") if d.code == "TCL011"]
    assert "kept on `self.output`" in diagnostic.message and "next call of `__call__`" in diagnostic.message

    def experiment(namespace):
        model = torch.nn.Module()
        model.features = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU())
        model.head = _Head(4, 5)
        cam = namespace["CamOnSelf"](model)
        heat = cam(torch.randn(1, 3, 4, 4), 2)
        return heat, _held_bytes(cam.output)

    (written, held), (fixed, freed) = _as_written_and_fixed(example, "cam", experiment)
    assert torch.equal(written, fixed)
    assert held > 0 and freed == 0


class _Critic(torch.nn.Module):
    """A critic that keeps its outputs on data (inputs with no graph), to look at their graphs."""

    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
        self.on_data = []

    def forward(self, x):
        out = self.net(x)
        if x.grad_fn is None and not x.requires_grad:
            self.on_data.append(out)
        return out


def test_wgan_gp_critic_loop_keeps_each_critic_graph_for_nothing():
    example = _example("flagged", "def gradient_penalty")

    def experiment(namespace):
        G = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))
        D = _Critic()
        loader = [(torch.randn(4, 2), None) for _ in range(2)]
        namespace["train"](G, D, loader, nz=3, device="cpu", n_critic=2)
        return [p.detach().clone() for p in [*G.parameters(), *D.parameters()]], _held_bytes(D.on_data[-1])

    (written, held), (fixed, freed) = _as_written_and_fixed(example, "wgan", experiment)
    assert all(torch.equal(a, b) for a, b in zip(written, fixed))
    assert held > 0 and freed == 0


def test_infogan_style_discriminator_step_keeps_a_graph_no_later_backward_uses():
    """The generator's step runs the discriminator on a new fake: training is the same without
    `retain_graph=True`, and the discriminator's graph is then freed at its backward."""
    example = _example("flagged", "self.y_real_, self.y_fake_ = self.y_real_.cuda()")

    def experiment(namespace):
        trainer = namespace["Trainer"]()
        history = trainer.train([torch.rand(4, 8) for _ in range(3)])
        return history, [p.detach().clone() for p in [*trainer.G.parameters(), *trainer.D.parameters()]]

    (written_history, written), (fixed_history, fixed) = _as_written_and_fixed(example, "infogan", experiment)
    assert written_history == fixed_history
    assert all(torch.equal(a, b) for a, b in zip(written, fixed))


def test_a_batch_made_by_a_method_from_lists_needs_no_retained_graph_but_one_computed_once_does():
    flagged = _example("flagged", "return torch.tensor(states), torch.tensor(actions)")

    def experiment(namespace):
        agent = namespace["PPO"]()
        agent.data = [([0.1 * i, 0.2, -0.3, 0.4 * i], i % 2, float(i)) for i in range(5)]
        agent.train_net()
        return [p.detach().clone() for p in agent.parameters()]

    assert all(torch.equal(a, b) for a, b in zip(*_as_written_and_fixed(flagged, "ppo", experiment)))
    # The clean one: the batch method's output is computed once, before the epochs.
    clean = _example("clean", "log_probs = self.pi(states)")
    agent = _run(_without_retain(clean.source), "reinforce")["Reinforce"]()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        agent.train_net(torch.randn(5, 4), torch.randint(0, 2, (5, 1)), torch.randn(5))

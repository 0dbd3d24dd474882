"""TCL010 data-write-under-autograd and TCL011 retain-graph-workaround.

The pages' examples are linted by test_rule_pages.py; here:

- the runtime effect each rule claims, executed under torch: a `.data` write
  between forward and backward gives a gradient that differs from the gradient
  of the forward that ran (and the same write without `.data` raises); the
  retain_graph workaround fills the generator's `.grad` in the discriminator
  step and keeps saved tensors alive, and the fix (detach, no retain_graph)
  runs;
- the link between TCL003 and TCL011 on the page's workaround example;
- the fixes: they parse, apply once, and leave nothing to fix;
- precision cases found while building the rules, as regression tests.
"""

from __future__ import annotations

import re
import textwrap

import pytest

from torchcopylint.diagnostic import Applicability
from torchcopylint.engine import lint_source
from torchcopylint.fix import fix_source
from torchcopylint.pages import page_examples, page_text


def diagnostics(source: str, code: str) -> list:
    return [d for d in lint_source(textwrap.dedent(source), "<x>") if d.code == code]


def lines(source: str, code: str) -> list[int]:
    return sorted(d.location.line for d in diagnostics(source, code))


def workaround_example() -> str:
    """The untagged example of TCL011's page: the GAN step that retains the graph instead of detaching."""
    text = page_text("TCL011") or ""
    match = re.search(r"^```python\n(.*?)^```", text, re.S | re.M)
    assert match, "TCL011's page shows the workaround in a plain ```python block"
    return match.group(1)


# --- the link between TCL003 and TCL011 ------------------------------------------------


def test_workaround_reports_both_rules_and_each_names_the_other():
    source = workaround_example()
    found = {d.code: d for d in lint_source(source, "<x>") if d.code in ("TCL003", "TCL011")}
    assert set(found) == {"TCL003", "TCL011"}
    tcl003, tcl011 = found["TCL003"], found["TCL011"]
    assert (tcl003.location.line, tcl011.location.line) == (13, 14)
    assert f"TCL003 at line {tcl003.location.line}" in tcl011.message
    assert f"TCL011 at line {tcl011.location.line}" in tcl003.message
    assert "backward at line 18" in tcl011.message and "backward at line 18" in tcl003.message
    assert tcl011.fix is not None and tcl011.fix.applicability is Applicability.UNSAFE


def test_a_generator_loss_that_reads_the_discriminator_step_s_output_needs_a_call_of_its_own():
    # SRGAN's step (fresh70): `g_loss` reuses `fake_out` of the discriminator's step. Detaching the fake
    # batch alone would cut the generator off that loss: the advice says to call the discriminator again
    # (and TCL011 offers no fix, as TCL003's is unsafe).
    source = """\
        import torch
        from torch import nn


        def train(netG, netD, loader, optimizerG, optimizerD):
            bce = nn.BCELoss()
            for real, low in loader:
                fake_img = netG(low)
                real_out = netD(real)
                fake_out = netD(fake_img)
                d_loss = bce(real_out, torch.ones_like(real_out)) + bce(fake_out, torch.zeros_like(fake_out))
                optimizerD.zero_grad()
                d_loss.backward(retain_graph=True)
                optimizerD.step()
                g_loss = bce(fake_out, torch.ones_like(fake_out)) + (fake_img - real).abs().mean()
                optimizerG.zero_grad()
                g_loss.backward()
                optimizerG.step()
    """
    [found] = diagnostics(source, "TCL011")
    assert "a discriminator call of its own on the undetached batch" in found.message, found.message
    assert found.fix is None
    # The page's workaround, whose generator loss calls the discriminator again: the plain advice.
    [plain] = diagnostics(workaround_example(), "TCL011")
    assert "of its own" not in plain.message and "(TCL003's fix) and drop `retain_graph=True`" in plain.message


def test_tcl003_alone_names_no_tcl011():
    """The same step with a fresh fake batch for the generator: retain_graph serves nothing of TCL003's."""
    source = workaround_example().replace("g_loss = F.softplus(-netD(fake)).mean()",
                                          "g_loss = F.softplus(-netD(netG(torch.randn(real.size(0), nz)))).mean()")
    tcl003 = diagnostics(source, "TCL003")
    assert len(tcl003) == 1 and "TCL011" not in tcl003[0].message
    assert [d.context["kind"] for d in diagnostics(source, "TCL011")] == ["unneeded"]


def test_both_fixes_together_leave_a_clean_step():
    source = workaround_example()
    outcome = fix_source(source, "<x>", lambda text: lint_source(text, "<x>"), unsafe=True)
    assert outcome.error is None, outcome.error
    assert "netD(fake.detach())" in outcome.fixed and "retain_graph" not in outcome.fixed
    assert not [d for d in lint_source(outcome.fixed, "<x>") if d.code in ("TCL003", "TCL011")]


# --- fixes parse, apply once, and are idempotent -------------------------------------


@pytest.mark.parametrize("code", ["TCL010", "TCL011"])
def test_unsafe_fixes_parse_and_are_idempotent(code):
    import ast

    fixed_any = 0
    for example in page_examples(code):
        if example.kind != "flagged":
            continue
        outcome = fix_source(example.source, "<x>", lambda text: lint_source(text, "<x>"), unsafe=True)
        assert outcome.error is None, outcome.error
        ast.parse(outcome.fixed)
        if outcome.fixed != example.source:
            fixed_any += 1
            again = fix_source(outcome.fixed, "<x>", lambda text: lint_source(text, "<x>"), unsafe=True)
            assert again.fixed == outcome.fixed
        assert all(d.fix is None or d.fix.applicability is Applicability.UNSAFE
                   for d in lint_source(example.source, "<x>") if d.code == code)
    assert fixed_any >= 2


def test_tcl010_offers_no_fix_when_the_write_is_not_beside_the_backward():
    source = """
    import torch


    def fit(x, y, steps: int = 10, lr: float = 0.1):
        w = torch.randn(3, requires_grad=True)
        v = torch.randn(3, requires_grad=True)
        for step in range(steps):
            pred = x @ (w * v)
            if step % 2:
                w.data.mul_(0.5)
            loss = ((pred - y) ** 2).mean()
            loss.backward()
        return w, v
    """
    found = diagnostics(source, "TCL010")
    assert [d.location.line for d in found] == [11] and found[0].fix is None


# --- precision -----------------------------------------------------------------------


def test_tcl010_needs_the_forward_before_the_write_and_the_backward_after():
    after_backward = """
    import torch


    def train(model, loader):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in loader:
            loss = (model(x) - y).pow(2).mean()
            optimizer.zero_grad()
            loss.backward()
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-0.1)
    """
    assert lines(after_backward, "TCL010") == []
    between = after_backward.replace("""            optimizer.zero_grad()
            loss.backward()
            for p in model.parameters():
                p.data.add_(p.grad, alpha=-0.1)""", """            for p in model.parameters():
                p.data.add_(p.grad, alpha=-0.1)
            optimizer.zero_grad()
            loss.backward()""")
    assert lines(between, "TCL010") == [10]


def test_tcl010_a_module_s_own_methods_before_the_write_run_no_forward():
    # An EWC Fisher computation (fresh63): `model.cuda()`, `model.train()`, then the parameters zeroed
    # through `.data`, then the forward and its backward. Nothing was saved before the write (it was
    # reported, `model.cuda(...)` read as a submodule's forward).
    source = """
    import torch

    from networks import Model


    def fisher(config, batches):
        model = Model(config)
        model = model.cuda()
        model.train()
        for n, p in model.named_parameters():
            p.data.zero_()
        for batch in batches:
            model(batch)
            loss = model.get_loss(batch)
            loss.backward(retain_graph=True)
    """
    assert lines(source, "TCL010") == []  # (a write between a forward and its backward: the test above)


def test_tcl010_silent_for_a_single_linear_layer_on_data():
    """`nn.Linear` on a data batch saves the input, not the weight: writing the weight changes nothing."""
    source = """
    import torch
    from torch import nn


    def train(loader):
        model = nn.Linear(8, 1)
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in loader:
            loss = (model(x) - y).pow(2).mean()
            for p in model.parameters():
                p.data.clamp_(-1.0, 1.0)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    """
    assert lines(source, "TCL010") == []
    deeper = source.replace("model = nn.Linear(8, 1)", "model = nn.Sequential(nn.Linear(8, 4), nn.Tanh(), nn.Linear(4, 1))")
    assert lines(deeper, "TCL010") == [12]


def test_tcl010_silent_when_the_written_tensor_is_an_argument():
    source = """
    import torch


    def step(w, v, x, y):
        loss = ((x @ (w * v) - y) ** 2).mean()
        w.data.mul_(0.5)
        loss.backward()
    """
    assert lines(source, "TCL010") == []


def test_tcl011_silent_when_the_graph_can_leave_the_function():
    returned = """
    import torch.nn.functional as F


    def forward_backward(model, x, y):
        out = model(x)
        loss = F.mse_loss(out, y)
        loss.backward(retain_graph=True)
        return out
    """
    assert lines(returned, "TCL011") == []
    closure = """
    import torch
    import torch.nn.functional as F


    def fit(model, loader):
        optimizer = torch.optim.LBFGS(model.parameters())
        for x, y in loader:
            out = model(x)
            loss = F.mse_loss(out, y)
            loss.backward(retain_graph=True)
            optimizer.step(lambda: F.mse_loss(out, y))
    """
    assert lines(closure, "TCL011") == []


def test_tcl011_silent_for_a_loss_taken_from_a_list():
    source = """
    import torch


    def per_loss_norms(model, images, targets, criteria):
        outputs = model(images)
        norms = []
        for loss in [criterion(outputs, targets) for criterion in criteria]:
            loss.backward(retain_graph=True)
            norms.append(sum(p.grad.norm().item() for p in model.parameters()))
        return norms
    """
    assert lines(source, "TCL011") == []


LIST_OF_SLICES = """
import torch


class PolicyNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 1)
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.0)

    def optimize(self, x, adv):
        loss = self.fc(x).squeeze(1) * adv
        parts = []
        for batch in range(5):
            parts.append(torch.sum(loss[batch * 2:(batch + 1) * 2]))
        for batch in range(5):
            self.optimizer.zero_grad()
            parts[batch].backward(retain_graph=True)
            self.optimizer.step()
"""


def test_tcl011_silent_for_losses_a_list_holds_from_before_the_loop():
    # Five slices of one loss, made before the loop: each backward runs through the same graph, so
    # the next one needs it (a PPO policy's minibatches); a list of losses built afresh is flagged.
    # (Of a batch the function draws itself: a graph that reaches its arguments may be a caller's,
    # which a later backward there may need.)
    assert lines(LIST_OF_SLICES, "TCL011") == []
    fresh = LIST_OF_SLICES.replace("""        loss = self.fc(x).squeeze(1) * adv
        parts = []
        for batch in range(5):
            parts.append(torch.sum(loss[batch * 2:(batch + 1) * 2]))
        for batch in range(5):
""", """        for batch in range(5):
            loss = self.fc(torch.randn(10, 3)).squeeze(1)
            parts = []
            parts.append(torch.sum(loss[batch * 2:(batch + 1) * 2]))
""").replace("parts[batch].backward", "parts[0].backward")
    assert lines(fresh, "TCL011") == [17]


def test_tcl011_runtime_a_list_of_slices_of_one_loss_needs_the_retained_graph():
    pytest.importorskip("torch")
    namespace = {}
    exec(compile(LIST_OF_SLICES, "<list of slices>", "exec"), namespace)  # noqa: S102
    namespace["PolicyNet"]().optimize(torch.randn(10, 3), torch.randn(10))
    exec(compile(LIST_OF_SLICES.replace("retain_graph=True", ""), "<list of slices>", "exec"), namespace)  # noqa: S102
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        namespace["PolicyNet"]().optimize(torch.randn(10, 3), torch.randn(10))


JACOBIAN_ROWS = """
import torch

x = torch.tensor([2.0, 3.0], requires_grad=True)
k = torch.zeros(2)
k[0] = x[0] ** 2 + 3 * x[1]
k[1] = x[1] ** 2 + 2 * x[0]
rows = torch.zeros(2, 2)
k.backward(torch.tensor([1.0, 0.0]), retain_graph=True)
rows[0] = x.grad
x.grad.zero_()
k.backward(torch.tensor([0.0, 1.0]))
rows[1] = x.grad
"""


def test_tcl011_silent_when_item_writes_attach_the_graph_a_second_backward_needs():
    # A tutorial's Jacobian, row by row: `k` is made as zeros, and its item writes record the graph
    # (CopySlices) the second backward runs through again.
    assert lines(JACOBIAN_ROWS, "TCL011") == []
    namespace: dict = {}
    exec(compile(JACOBIAN_ROWS, "<jacobian>", "exec"), namespace)  # noqa: S102
    assert namespace["rows"].tolist() == [[4.0, 3.0], [2.0, 6.0]]
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        exec(compile(JACOBIAN_ROWS.replace(", retain_graph=True", ""), "<jacobian>", "exec"), {})  # noqa: S102


ACTOR_CRITIC = """
import torch
import torch.nn as nn
from networks import *

policy = PolicyNetwork(4, 2)
critic = ValueNetwork(4)
policy_optimizer = torch.optim.Adam(policy.parameters())
critic_optimizer = torch.optim.Adam(critic.parameters())

for episode in range(10):
    values, log_probs = [], []
    for state in torch.randn(5, 4):
        values.append(critic(state))
        log_probs.append(torch.log_softmax(policy(state), 0)[0])
    values = torch.stack(values).squeeze()
    log_probs = torch.stack(log_probs)
    advantage = torch.ones(5) - values
    policy_loss = -(log_probs * advantage).mean()
    value_loss = nn.MSELoss()(values, torch.ones(5))
    policy_optimizer.zero_grad()
    policy_loss.backward(retain_graph=True)
    policy_optimizer.step()
    critic_optimizer.zero_grad()
    value_loss.backward()
    critic_optimizer.step()
"""


def test_tcl011_silent_when_both_losses_read_what_a_list_was_filled_with():
    # An actor-critic step: the advantage is not detached, so the policy loss's graph runs through the
    # critic's outputs, collected in a list and stacked, and the value loss's backward runs through
    # them again.
    assert lines(ACTOR_CRITIC, "TCL011") == []
    detached = ACTOR_CRITIC.replace("values = torch.stack(values).squeeze()",
                                    "values = torch.stack(values).squeeze()\n    target = values.detach()") \
        .replace("advantage = torch.ones(5) - values", "advantage = torch.ones(5) - target")
    assert lines(detached, "TCL011") == [23]


def test_tcl011_flags_two_backwards_of_unrelated_graphs():
    source = """
    import torch
    import torch.nn.functional as F


    def train(model, loader):
        optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
        for a, b, y in loader:
            loss_a = F.mse_loss(model(a), y)
            loss_a.backward(retain_graph=True)
            loss_b = F.mse_loss(model(b), y)
            loss_b.backward()
            optimizer.step()
    """
    assert lines(source, "TCL011") == [10]
    shared = source.replace("loss_b = F.mse_loss(model(b), y)", "loss_b = F.mse_loss(model(b), y) + loss_a")
    assert lines(shared, "TCL011") == []


WGAN_GP_SCRIPT = """
import torch
from constants import *
from nets import Generator, Critic


def gradient_penalty(critic, real, fake, eps):
    mixed = real * eps + fake * (1 - eps)
    scores = critic(mixed)
    return torch.autograd.grad(inputs=mixed, outputs=scores, grad_outputs=torch.ones_like(scores),
                               create_graph=True, retain_graph=True)[0]


if __name__ == "__main__":
    loader = torch.utils.data.DataLoader(torch.randn(64, 1, 28, 28), batch_size=8)
    generator = Generator().to(DEVICE)
    critic = Critic().to(DEVICE)
    optimizer_g = torch.optim.Adam(generator.parameters())
    optimizer_c = torch.optim.Adam(critic.parameters())
    for real in loader:
        size = len(real)
        for _ in range(5):
            optimizer_c.zero_grad()
            fake = generator(torch.randn(size, 10))
            gp = gradient_penalty(critic, real, fake, torch.rand(size, 1, requires_grad=True))
            crit_loss = -(critic(real).mean() - critic(fake.detach()).mean()) + C_LAMBDA * gp.norm()
            crit_loss.backward(retain_graph=True)
            optimizer_c.step()
        optimizer_g.zero_grad()
        gen_loss = -critic(generator(torch.randn(size, 10))).mean()
        gen_loss.backward()
        optimizer_g.step()
"""


def test_tcl011_flags_a_critic_step_whose_graph_no_later_backward_needs():
    """fresh79's WGAN-GP script: the critic's backward keeps a graph (the penalty's, through the undetached
    fake) that the generator's backward, on a fake of its own, never runs through. What kept the rule
    silent carries no graph: a constant in capitals from `from constants import *`, `len(real)`, the
    critic handed to the penalty function, and `critic(fake.detach())`."""
    assert lines(WGAN_GP_SCRIPT, "TCL011") == [27]
    assert lines(WGAN_GP_SCRIPT, "TCL003") == [25]
    # The generator's backward through this step's fake needs the retained graph: that is the workaround.
    reused = WGAN_GP_SCRIPT.replace("critic(generator(torch.randn(size, 10)))", "critic(fake)")
    assert "no later backward" not in " ".join(d.message for d in lint_source(reused, "gan.py") if d.code == "TCL011")
    # A lower-case global the module does not bind may be anything: silent.
    unknown = WGAN_GP_SCRIPT.replace("C_LAMBDA", "c_lambda")
    assert lines(unknown, "TCL011") == []


def test_tcl011_silent_for_two_losses_one_call_returns():
    # rlpyt's PPO-Lagrangian: `r_loss, c_loss = self.losses(...)` come from one forward inside the
    # method, so the second backward needs the retained graph (the method's code is not followed).
    source = """
    import torch


    class Algo:
        def grad_norms(self, batch):
            self.optimizer.zero_grad()
            r_loss, c_loss = self.losses(batch)
            r_loss.backward(retain_graph=True)
            r_norm = torch.nn.utils.clip_grad_norm_(self.agent.parameters(), 1.0)
            self.optimizer.zero_grad()
            c_loss.backward()
            return r_norm
    """
    assert lines(source, "TCL011") == []
    separate = source.replace("r_loss, c_loss = self.losses(batch)",
                              "r_loss = self.reward_loss(batch)\n            c_loss = self.cost_loss(batch)")
    assert lines(separate, "TCL011") == [10]


# --- the runtime effect ---------------------------------------------------------------

torch = pytest.importorskip("torch")


def _critic_step(clip_between: bool, snapshot: bool, without_data: bool = False):
    """One WGAN critic step; the first layer's weight gradient."""
    from torch import nn

    torch.manual_seed(0)
    critic = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    real, fake = torch.randn(32, 8) + 2.0, torch.randn(32, 8)
    if snapshot:
        with torch.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t):
            loss = critic(fake).mean() - critic(real).mean()
    else:
        loss = critic(fake).mean() - critic(real).mean()
    if clip_between:
        for p in critic.parameters():
            if without_data:
                with torch.no_grad():
                    p.clamp_(-0.01, 0.01)  # noqa: TCL004 - under no_grad (importorskip hides torch)
            else:
                p.data.clamp_(-0.01, 0.01)  # noqa: TCL010 - the bug under test
    loss.backward()
    return critic[0].weight.grad.clone()


def test_tcl010_runtime_the_data_write_gives_a_wrong_gradient_silently():
    as_written = _critic_step(clip_between=True, snapshot=False)
    correct = _critic_step(clip_between=True, snapshot=True)
    no_write = _critic_step(clip_between=False, snapshot=False)
    assert torch.equal(correct, no_write), "the snapshot gives the gradient of the forward that ran"
    largest = (as_written - correct).abs().max().item()
    assert largest > 0.1 * correct.abs().max().item(), f"largest difference {largest}"


def test_tcl010_runtime_the_same_write_without_data_raises():
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        _critic_step(clip_between=True, snapshot=False, without_data=True)


def _gan_step(detach: bool, retain: bool):
    """The page's workaround step, once: (generator parameters with a gradient after the D step,
    activation bytes the D step's graph still holds)."""
    from torch import nn
    import torch.nn.functional as F

    torch.manual_seed(0)
    netG = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
    netD = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4)
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4)
    real = torch.randn(16, 8)
    fake = netG(torch.randn(16, 4))
    optD.zero_grad()
    d_loss = F.softplus(-netD(real)).mean() + F.softplus(netD(fake.detach() if detach else fake)).mean()  # noqa: TCL003 - both forms under test
    d_loss.backward(retain_graph=retain)
    reached = sum(1 for p in netG.parameters() if p.grad is not None and p.grad.abs().sum() > 0)
    held = _held_bytes(d_loss)
    optD.step()
    optG.zero_grad()
    F.softplus(-netD(fake)).mean().backward()
    optG.step()
    return reached, held


def _held_bytes(loss) -> int:
    total, seen, pending, visited = 0, set(), [loss.grad_fn], set()
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
                except RuntimeError:
                    continue
                if isinstance(value, torch.Tensor) and value.grad_fn is not None \
                        and value.untyped_storage().data_ptr() not in seen:
                    seen.add(value.untyped_storage().data_ptr())
                    total += value.untyped_storage().nbytes()
    return total


def test_tcl011_runtime_the_workaround_fills_the_generator_and_keeps_the_graph():
    reached, held = _gan_step(detach=False, retain=True)
    assert reached == 4, "the discriminator step's backward filled every generator parameter's .grad"
    assert held > 0, "the retained graph still holds saved activations after the backward"


def test_tcl011_runtime_without_retain_graph_the_undetached_step_fails():
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        _gan_step(detach=False, retain=False)


def test_tcl011_runtime_the_fix_runs_and_leaves_the_generator_alone():
    reached, held = _gan_step(detach=True, retain=False)
    assert reached == 0 and held == 0


# --- TCL011: unneeded retain_graph outside loops -----------------------------------------------


def _page_example(code: str, kind: str, marker: str):
    examples = page_examples(code)
    for index, example in enumerate(examples):
        if example.kind == kind and marker in example.source:
            return example, (examples[index + 1] if index + 1 < len(examples) else None)
    raise AssertionError(f"no {kind} example with {marker!r}")


class _Recording(torch.nn.Module):
    """A small classifier that keeps its outputs, so a test can look at their graphs afterwards."""

    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(12, 16), torch.nn.Tanh(),
                                       torch.nn.Linear(16, 5))
        self.outputs = []

    def forward(self, x):
        out = self.net(x)
        self.outputs.append(out)
        return out


def test_tcl011_runtime_saliency_map_keeps_the_graph_it_never_uses():
    pytest.importorskip("torch")
    flagged, fixed_example = _page_example("TCL011", "flagged", "def saliency_map")
    [diagnostic] = diagnostics(flagged.source, "TCL011")
    assert "until `saliency_map` returns" in diagnostic.message

    def run(example):
        namespace = {}
        exec(compile(example.source, "<TCL011 example>", "exec"), namespace)  # noqa: S102
        torch.manual_seed(0)
        model = _Recording()
        grad = namespace["saliency_map"](model, torch.randn(3, 2, 2), 3)
        return grad, _held_bytes(model.outputs[-1])

    (grad_retained, held), (grad_freed, freed) = run(flagged), run(fixed_example)
    assert torch.equal(grad_retained, grad_freed)
    assert held > 0, "with retain_graph=True the saved activations outlive the backward"
    assert freed == 0


def test_tcl011_runtime_output_kept_on_self_holds_the_graph_until_the_next_call():
    pytest.importorskip("torch")
    flagged, fixed_example = _page_example("TCL011", "flagged", "class GradientAttribution")
    [diagnostic] = diagnostics(flagged.source, "TCL011")
    assert "kept on `self.output`" in diagnostic.message and "next call of `attribute`" in diagnostic.message

    def run(example):
        namespace = {}
        exec(compile(example.source, "<TCL011 example>", "exec"), namespace)  # noqa: S102
        torch.manual_seed(0)
        attribution = namespace["GradientAttribution"](_Recording())
        grad = attribution.attribute(torch.randn(4, 3, 2, 2), 1)
        return grad, _held_bytes(attribution.output)

    (grad_retained, held), (grad_freed, freed) = run(flagged), run(fixed_example)
    assert torch.equal(grad_retained, grad_freed)
    assert held > 0 and freed == 0


def test_tcl011_runtime_a_second_backward_outside_a_loop_needs_the_graph():
    pytest.importorskip("torch")
    clean, _ = _page_example("TCL011", "clean", "def contrast_map")
    namespace = {}
    exec(compile(clean.source, "<TCL011 example>", "exec"), namespace)  # noqa: S102
    model = _Recording()
    assert namespace["contrast_map"](model, torch.randn(3, 2, 2), 0, 1).shape == (3, 2, 2)
    without = clean.source.replace("backward(retain_graph=True)", "backward()")
    exec(compile(without, "<TCL011 example>", "exec"), namespace)  # noqa: S102
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        namespace["contrast_map"](model, torch.randn(3, 2, 2), 0, 1)


def test_tcl011_an_index_argument_carries_no_graph_but_a_value_argument_may():
    indexed = """
    def score_gradient(model, image, target):
        image = image.detach().requires_grad_(True)
        model(image)[0, target].backward(retain_graph=True)
        return image.grad
    """
    assert lines(indexed, "TCL011") == [4]
    weighted = indexed.replace("model(image)[0, target]", "(model(image)[0] * target).sum()")
    assert lines(weighted, "TCL011") == []  # `target` may be a tensor with the caller's graph


def test_tcl011_a_tensor_whose_grad_is_read_is_a_leaf():
    source = """
    def input_gradient(model, x, target: int):
        out = model(x)
        out[:, target].sum().backward(retain_graph=True)
        return x.grad
    """
    assert lines(source, "TCL011") == [4]
    not_read = source.replace("return x.grad", "return out.detach()")
    assert lines(not_read, "TCL011") == []


def test_tcl003_and_tcl011_import_no_other_rule():
    """A fact two rules need lives in analysis/: TCL011 reads the GAN pairing from analysis/gan_steps.py,
    not from TCL003's check."""
    import ast
    import pathlib

    import torchcopylint.rules as rules_package

    folder = pathlib.Path(rules_package.__file__).parent
    shared = {"base", "edits", "__init__"}
    for path in (folder / "discriminator_without_detach.py", folder / "retain_graph_workaround.py"):
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("torchcopylint.rules"):
                assert node.module.rpartition(".")[2] in shared, f"{path.name} imports {node.module}"


def test_tcl011_names_the_del_that_drops_the_retained_graph():
    source = """
    import torch


    def reversible_step(block, y, grad_y):
        y.requires_grad = True
        with torch.enable_grad():
            out = block(y)
            out.backward(grad_y, retain_graph=True)
        with torch.no_grad():
            x = y - out
            del out
            grad = y.grad
        return x, grad
    """
    [diagnostic] = diagnostics(source, "TCL011")
    assert diagnostic.location.line == 9
    assert "until `del out` at line 12" in diagnostic.message


# --- the last graph use before a return or the end of an iteration; the top level ----------------


def _tcl011_page_example(marker: str):
    return next(e for e in page_examples("TCL011") if e.kind == "flagged" and marker in e.source)


def test_tcl011_last_autograd_grad_before_a_return_changes_nothing_without_retain_graph():
    """The input-gradient page example: the same gradient with and without `retain_graph=True`, and
    as written the graph is still alive after the call's backward (a second one would run)."""
    torch = pytest.importorskip("torch")
    example = _tcl011_page_example("def input_gradient")
    [diagnostic] = diagnostics(example.source, "TCL011")
    assert "no later backward in `input_gradient`" in diagnostic.message
    namespace: dict = {}
    exec(compile(example.source, "<TCL011 example>", "exec"), namespace)  # noqa: S102
    fixed_namespace: dict = {}
    exec(compile(example.source.replace(", retain_graph=True", ""), "<fixed>", "exec"), fixed_namespace)  # noqa: S102
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    images, labels = torch.randn(4, 6), torch.randint(0, 3, (4,))
    assert torch.equal(namespace["input_gradient"](model, images, labels),
                       fixed_namespace["input_gradient"](model, images, labels))


def test_tcl011_arguments_that_bring_the_callers_graph_in_stay_silent():
    caller_graph = """
    import torch


    def grad_of_output(output, x):
        return torch.autograd.grad(output.sum(), x, retain_graph=True)[0]


    def grad_of_loss(loss, params):
        return torch.autograd.grad(loss, params, retain_graph=True)
    """
    assert lines(caller_graph, "TCL011") == []
    soft_targets = """
    import torch.nn.functional as F


    def input_saliency(student, x, teacher_probs):
        x = x.detach().clone().requires_grad_(True)
        loss = F.kl_div(F.log_softmax(student(x), 1), teacher_probs, reduction="batchmean")
        loss.backward(retain_graph=True)
        return x.grad
    """
    assert lines(soft_targets, "TCL011") == []
    # The same with class indices as the target: reported.
    class_indices = soft_targets.replace('F.kl_div(F.log_softmax(student(x), 1), teacher_probs, reduction="batchmean")',
                                         "F.cross_entropy(student(x), teacher_probs)")
    assert class_indices != soft_targets
    assert lines(class_indices, "TCL011") == [8]


def test_tcl011_per_sample_loop_runtime_the_graph_of_each_sample_is_kept_for_nothing():
    torch = pytest.importorskip("torch")
    example = _tcl011_page_example("def per_sample_grad_norms")
    namespace: dict = {}
    exec(compile(example.source, "<TCL011 example>", "exec"), namespace)  # noqa: S102
    fixed_namespace: dict = {}
    exec(compile(example.source.replace(", retain_graph=True", ""), "<fixed>", "exec"), fixed_namespace)  # noqa: S102
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3))
    inputs, targets = torch.randn(5, 6), torch.randint(0, 3, (5,))
    assert namespace["per_sample_grad_norms"](model, inputs, targets) == \
        fixed_namespace["per_sample_grad_norms"](model, inputs, targets)


TOP_LEVEL_WRAPPER_WORKAROUND = """
import torch
import torch.nn as nn

netG = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 8))
netD = nn.Sequential(nn.Linear(8, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1), nn.Sigmoid())
criterion = nn.BCELoss()
optimizerD = torch.optim.Adam(netD.parameters(), lr=2e-4)
optimizerG = torch.optim.Adam(netG.parameters(), lr=2e-4)


def discriminate(x):
    return netD(x).view(-1)


for epoch in range(2):
    real = torch.randn(16, 8)
    netD.zero_grad()
    output = discriminate(real)
    errD_real = criterion(output, torch.ones(16))
    errD_real.backward()
    fake = netG(torch.randn(16, 4))
    output = discriminate(fake)
    errD_fake = criterion(output, torch.zeros(16))
    errD_fake.backward(retain_graph=True)
    optimizerD.step()
    netG.zero_grad()
    output = discriminate(fake)
    errG = criterion(output, torch.ones(16))
    errG.backward()
    optimizerG.step()
"""


def test_tcl011_workaround_at_the_top_level_through_a_wrapper_names_the_tcl003_finding():
    [tcl003] = diagnostics(TOP_LEVEL_WRAPPER_WORKAROUND, "TCL003")
    [tcl011] = diagnostics(TOP_LEVEL_WRAPPER_WORKAROUND, "TCL011")
    assert tcl003.location.line == 23 and "through the function `discriminate`" in tcl003.message
    assert "(TCL011 at line 25)" in tcl003.message
    assert tcl011.location.line == 25 and "(TCL003 at line 23)" in tcl011.message
    assert "backward at line 30" in tcl011.message
    # With both fixes the script runs, and the discriminator's backward leaves the generator alone.
    torch = pytest.importorskip("torch")
    outcome = fix_source(TOP_LEVEL_WRAPPER_WORKAROUND, "<x>", lambda text: lint_source(text, "<x>"), unsafe=True)
    assert "discriminate(fake.detach())" in outcome.fixed and "retain_graph" not in outcome.fixed
    torch.manual_seed(0)
    exec(compile(outcome.fixed, "<fixed>", "exec"), {"__name__": "fixed"})  # noqa: S102


ADVERSARIAL_AUTOENCODER = """
    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader
    from torch.utils.tensorboard import SummaryWriter

    gen = nn.Sequential(nn.Linear(784, 8))
    disc = nn.Sequential(nn.Linear(8, 1), nn.Sigmoid())
    opt_gen = torch.optim.Adam(gen.parameters())
    opt_disc = torch.optim.Adam(disc.parameters())
    bce = nn.BCELoss()
    writer = SummaryWriter()
    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    prior = torch.distributions.MultivariateNormal(torch.zeros(8), 25 * torch.eye(8))
    ones, zeros = torch.ones(64, 1), torch.zeros(64, 1)
    for epoch in range(10):
        for batch_idx, (image, _) in enumerate(loader):
            image = image.to("cpu")
            real = prior.sample((64,))
            fake = gen(image)
            loss_disc = bce(disc(real), ones) + bce(disc(fake{detach}), zeros)
            opt_disc.zero_grad()
            loss_disc.backward(retain_graph=True)
            opt_disc.step()
            writer.add_scalar("disc", loss_disc, batch_idx)

            fake = gen(image)
            loss_gen = bce(disc(fake), ones)
            opt_gen.zero_grad()
            loss_gen.backward({retain})
            opt_gen.step()
"""


def test_tcl011_graphs_meeting_only_in_data_or_an_earlier_backward_are_not_retained_for():
    # fresh33's adversarial autoencoders and outlier GAN: the generator step makes a new fake, so no later
    # backward runs through the discriminator step's graph. What both read is a batch of a DataLoader
    # (data) and a sample of a distribution of constants; a SummaryWriter records the loss as a number.
    source = textwrap.dedent(ADVERSARIAL_AUTOENCODER.format(detach=".detach()", retain="retain_graph=True"))
    assert lines(source, "TCL011") == [line_of(source, "loss_disc.backward"), line_of(source, "loss_gen.backward")]


def test_tcl011_a_later_backward_through_the_same_fake_still_needs_the_graph():
    source = textwrap.dedent(ADVERSARIAL_AUTOENCODER.format(detach="", retain="").replace(
        "            fake = gen(image)\n            loss_gen", "            loss_gen"))
    assert source.count("fake = gen(image)") == 1
    assert "keeps the discriminator step's graph alive" in diagnostics(source, "TCL011")[0].message
    assert lines(source, "TCL011") == [line_of(source, "loss_disc.backward")]


def line_of(source: str, text: str) -> int:
    return next(number for number, line in enumerate(source.splitlines(), 1) if text in line)


def test_tcl011_names_a_gradient_penalty_that_reads_the_fake_too_and_offers_no_fix():
    # WGAN-GP: the penalty (from another file) takes `fake` as it is. Detaching only the critic's
    # input leaves that path into the generator; the critic's backward would then free the
    # generator's graph and the generator's own backward would fail, so no drop of retain_graph.
    source = """
        import torch
        from losses import gradient_penalty

        def train(gen, critic, opt_gen, opt_critic, loader, z_dim):
            for real in loader:
                noise = torch.randn(real.shape[0], z_dim)
                fake = gen(noise)
                critic_real = critic(real).reshape(-1)
                critic_fake = critic(fake).reshape(-1)
                gp = gradient_penalty(critic, real, fake)
                loss_critic = -(critic_real.mean() - critic_fake.mean()) + 10 * gp
                critic.zero_grad()
                loss_critic.backward(retain_graph=True)
                opt_critic.step()
                loss_gen = -critic(fake).mean()
                gen.zero_grad()
                loss_gen.backward()
                opt_gen.step()
    """
    (found,) = diagnostics(source, "TCL011")
    assert "and for `gradient_penalty(critic, real, fake)` (line 11), which reads it too; then drop" \
        in found.message, found.message
    assert found.fix is None
    without_penalty = source.replace("gradient_penalty(critic, real, fake)", "gradient_penalty(critic, real)")
    (found,) = diagnostics(without_penalty, "TCL011")
    assert found.message.endswith("(TCL003's fix) and drop `retain_graph=True`") and found.fix is not None


def test_tcl011_reads_retain_variables_the_spelling_before_pytorch_0_4():
    # Tutorials written for PyTorch 0.3: TCL003 names the TCL011 finding, so TCL011 must report it.
    source = """
        import torch

        def train(G, D, opt_G, opt_D, loader, n_ideas):
            for real in loader:
                fake = G(torch.randn(real.shape[0], n_ideas))
                prob_real, prob_fake = D(real), D(fake)
                D_loss = -torch.mean(torch.log(prob_real) + torch.log(1. - prob_fake))
                G_loss = torch.mean(torch.log(1. - prob_fake))
                opt_D.zero_grad()
                D_loss.backward(retain_variables=True)
                opt_D.step()
                opt_G.zero_grad()
                G_loss.backward()
                opt_G.step()
    """
    (tcl003,) = diagnostics(source, "TCL003")
    (tcl011,) = diagnostics(source, "TCL011")
    assert "(TCL011 at line 11)" in tcl003.message, tcl003.message
    assert tcl011.location.line == 11 and "`D_loss.backward(retain_variables=True)`" in tcl011.message
    # The remedy names the argument as the code spells it (fresh77's Python 2 era adversarial noise).
    assert tcl011.message.endswith("drop `retain_variables=True`") and "retain_graph" not in tcl011.message, \
        tcl011.message
    assert tcl011.fix is None, "the generator's loss reads the same discriminator output: TCL003's fix is unsafe"
    separate = textwrap.dedent(source).replace("torch.mean(torch.log(1. - prob_fake))", "torch.mean(torch.log(1. - D(fake)))")
    fixed = fix_source(separate, "<x>", lambda text: lint_source(text, "<x>"), unsafe=True).fixed
    assert "D_loss.backward()" in fixed and "retain_variables" not in fixed and "D(fake.detach())" in fixed, fixed


def test_tcl011_a_discriminator_run_through_forward_spelled_out_is_the_callee_not_the_graph():
    # fresh64's pix2pix: `discriminator_D.forward(input_x.detach(), out_generator_G.detach())` in the
    # discriminator's loss, then a new `discriminator_D.forward(...)` for the generator's: the module
    # named before `.forward` carries no graph, so no later backward runs through the retained one.
    source = """
    import torch
    import torch.nn as nn
    from torch.autograd import Variable

    generator_G = nn.Linear(4, 4)
    discriminator_D = nn.Bilinear(4, 4, 1)
    bce = nn.BCELoss()
    optimizer_G = torch.optim.Adam(generator_G.parameters())
    optimizer_D = torch.optim.Adam(discriminator_D.parameters())

    for epoch in range(10):
        input_x = Variable(torch.randn(8, 4))
        input_real = Variable(torch.randn(8, 4))
        out_generator_G = generator_G.forward(input_x)
        optimizer_D.zero_grad()
        negative_examples = torch.sigmoid(discriminator_D.forward(input_x.detach(), out_generator_G.detach()))
        positive_examples = torch.sigmoid(discriminator_D.forward(input_x, input_real))
        loss_dis = 0.5 * (bce(positive_examples, torch.ones(8, 1)) + bce(negative_examples, torch.zeros(8, 1)))
        loss_dis.backward(retain_graph=True)
        optimizer_D.step()
        optimizer_G.zero_grad()
        negative_examples = torch.sigmoid(discriminator_D.forward(input_x, out_generator_G))
        loss_gen = bce(negative_examples, torch.ones(8, 1))
        loss_gen.backward()
        optimizer_G.step()
    """
    assert lines(source, "TCL011") == [20]  # `loss_dis.backward(retain_graph=True)`
    assert lines(source.replace(".forward(", "("), "TCL011") == [20]


RECURRENT_TAGGER = """
import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(4, 8)
        self.head = nn.Linear(8, 3)
        self.hidden = (torch.zeros(1, 1, 8), torch.zeros(1, 1, 8))

    def forward(self, x):
        out, self.hidden = self.lstm(x, self.hidden)
        return self.head(out)


model = Tagger()
for step in range(3):
    scores = model(torch.randn(5, 1, 4))
    loss = scores.pow(2).mean()
    model.zero_grad()
    loss.backward(retain_graph=True)
"""


def test_tcl011_a_network_that_hands_its_state_to_the_next_call_needs_the_graph_it_retains():
    # `self.hidden` carries each call's graph into the next: the next iteration's backward runs through
    # this one's graph (TCL007 says so), so the retained graph is needed, not kept for nothing.
    assert [d.code for d in lint_source(RECURRENT_TAGGER, "<x>")] == ["TCL007"]
    stateless = RECURRENT_TAGGER.replace("out, self.hidden = self.lstm(x, self.hidden)", "out, _ = self.lstm(x, self.hidden)")
    assert [d.code for d in lint_source(stateless, "<x>")] == ["TCL011"]
    torch = pytest.importorskip("torch")
    exec(compile(RECURRENT_TAGGER, "<tagger>", "exec"), {})  # noqa: S102 - runs as written
    without = RECURRENT_TAGGER.replace("loss.backward(retain_graph=True)", "loss.backward()")
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        exec(compile(without, "<tagger without retain_graph>", "exec"), {})  # noqa: S102
    assert torch.is_grad_enabled()


@pytest.mark.parametrize("power, flagged", [
    ("a ** 2", False), ("a.pow(2)", False), ("torch.pow(a, 2)", False), ("torch.mul(a, a)", False),
    ("a.exp()", True),  # saves its output, a tensor of its own
])
def test_tcl011_a_power_of_a_leaf_in_any_spelling_saves_only_the_leaf(power, flagged):
    # A notebook's gradient check (fresh89): `b = a.pow(2)`, `torch.autograd.grad(b.sum(), a, retain_graph=True)`
    # keeps a graph that saves `a` alone, which lives anyway; `--verify` refuted it.
    source = textwrap.dedent(f"""\
        import torch

        a = torch.ones(4, 3, 3, requires_grad=True)
        b = {power}
        loss = b.sum()
        z = torch.autograd.grad(loss, a, retain_graph=True)
        print(z)
    """)
    assert bool(lines(source, "TCL011")) is flagged


@pytest.mark.parametrize("create_graph, flagged", [
    ("False", [10]),
    ("torch.is_grad_enabled()", []),  # a score network trained through its gradient may want the graph
    ("self.training", []),
    ("True", []),
])
def test_tcl011_a_create_graph_decided_at_run_time_may_want_the_graph(create_graph, flagged):
    score = f"""
    import torch
    from torch import nn


    class Score(nn.Module):
        def forward(self, x):
            x = x.requires_grad_(True)
            logp = self.net(x).sum()
            score = torch.autograd.grad(logp, x, create_graph={create_graph}, retain_graph=True)[0]
            return score.detach()
    """
    assert lines(score, "TCL011") == flagged


COLLOCATION_PINN = """
    import torch
    from torch import nn


    class Solver:
        def __init__(self, points):
            self.net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 1))
            self.xs = {made}

        def residual(self):
            u = self.net(self.xs)
            du = torch.autograd.grad(u.sum(), self.xs, create_graph=True)[0]
            return (du ** 2).mean()

        def train(self, steps):
            optimizer = torch.optim.Adam(self.net.parameters())
            for _ in range(steps):
                optimizer.zero_grad()
                loss = self.residual()
                loss.backward(retain_graph=True)
                optimizer.step()
"""


def test_a_graph_the_object_made_once_is_run_through_by_every_iteration():
    # fresh111's variational PINNs: the collocation points are computed in `__init__` from a leaf that requires
    # grad, so each iteration's backward runs through that part again: `retain_graph=True` is needed.
    made = "(points.requires_grad_(True) + 1) / 2"
    assert diagnostics(COLLOCATION_PINN.format(made=made), "TCL011") == []
    torch = pytest.importorskip("torch")
    namespace: dict = {}
    exec(compile(textwrap.dedent(COLLOCATION_PINN.format(made=made)), "<pinn>", "exec"), namespace)
    namespace["Solver"](torch.rand(8, 2)).train(2)  # runs, with the flag
    without = textwrap.dedent(COLLOCATION_PINN.format(made=made)).replace("retain_graph=True", "")
    exec(compile(without, "<pinn>", "exec"), namespace)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        namespace["Solver"](torch.rand(8, 2)).train(2)


def test_a_leaf_the_object_keeps_holds_no_graph_to_run_through_again():
    made = "points.clone().requires_grad_(True)"
    assert [d.code for d in diagnostics(COLLOCATION_PINN.format(made=made), "TCL011")] == ["TCL011"]


LOSS_AFTER_THE_LOOP = """
    import torch
    from torch import nn


    def train(model, batches, optimizer):
        for x, y in batches:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward(retain_graph=True)
            optimizer.step()
        {after}
"""


@pytest.mark.parametrize("after, flagged", [
    ('print("last loss: %f" % loss)', True),          # shown as a number: no graph needed
    ("return loss.item()", True),
    ("return hessian_trace(loss, list(model.parameters()))", False),  # a later gradient through its graph
    ("loss.backward()", False),
])
def test_the_loss_read_after_the_loop_needs_the_graph_only_where_its_graph_is_used(after, flagged):
    # fresh111's sharpness measure needs the last batch's graph after the loop; fresh110's SinGAN only prints
    # the last loss there, and its `retain_graph=True` keeps the graph for nothing.
    found = diagnostics(LOSS_AFTER_THE_LOOP.format(after=after), "TCL011")
    assert bool(found) is flagged

"""TCL003 discriminator-without-detach: the fix turns every flagged example of the page clean,
and the rule tells the generator from the discriminator by the optimizers, not by names.

The page's own examples are also run by test_rule_pages.py (exact lines, exact fixed text);
here the fix is applied the way `torchcopylint --fix` applies it (safe fixes only), and the
focused cases below pin down how G and D are found, which backward forms count, and what the
diagnostic carries for `--verify`.

The cases at the end come from linting real GAN code: false positives, false negatives and
fixes that were not safe there, each kept as a regression test.
"""

from __future__ import annotations

import textwrap

import pytest

from torchcopylint.pages import page_examples
from torchcopylint.diagnostic import Applicability
from torchcopylint.engine import lint_source
from torchcopylint.fix import fix_source

CODE = "TCL003"
FLAGGED = [example for example in page_examples(CODE) if example.kind == "flagged"]


def tcl003(source: str) -> list:
    return [d for d in lint_source(textwrap.dedent(source), "<x>") if d.code == CODE]


def lines(source: str) -> list[int]:
    return sorted(d.location.line for d in tcl003(source))


def fixed(source: str) -> str:
    outcome = fix_source(textwrap.dedent(source), "<x>", lambda text: lint_source(text, "<x>"), unsafe=False)
    assert outcome.error is None, outcome.error
    return outcome.fixed


def _discriminator_step(before: str, fake: str = "fake = G(z)", imports: str = "") -> str:
    """A discriminator step on a generator's fake: `before` and `fake` are the lines that make it."""
    return f"""
    import torch
    {imports}


    def d_step(G, D, real, z, mode):
        opt_g = torch.optim.Adam(G.parameters())
        opt_d = torch.optim.Adam(D.parameters())
        {before}
        {fake}
        d_loss = D(fake).mean() - D(real).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        return d_loss.item()
    """


# --- the page ---------------------------------------------------------------------


def test_page_has_the_examples_it_promises():
    kinds = [example.kind for example in page_examples(CODE)]
    assert kinds.count("flagged") >= 12
    assert kinds.count("clean") >= 15


@pytest.mark.parametrize("example", FLAGGED, ids=[f"L{example.line}" for example in FLAGGED])
def test_fix_turns_flagged_example_clean(example):
    before = [d for d in lint_source(example.source, "<x>") if d.code == CODE]
    assert before, "a flagged example must have TCL003 diagnostics"
    assert all(d.fix is not None and d.fix.applicability == Applicability.SAFE for d in before)
    outcome = fix_source(example.source, "<x>", lambda text: lint_source(text, "<x>"), unsafe=False)
    assert outcome.error is None, outcome.error
    assert outcome.fixed != example.source
    assert outcome.fixed.count(".detach()") == example.source.count(".detach()") + len(before)
    after = [d for d in lint_source(outcome.fixed, "<x>") if d.code == CODE]
    assert not after, "\n".join(f"{d.location.line}: {d.message}" for d in after)


# --- G and D come from the optimizers -----------------------------------------------

MODULES_A_AND_B = """
import torch


def train(a, b, loader):
    opt_a = torch.optim.Adam(a.parameters())
    opt_b = torch.optim.Adam(b.parameters())
    for real, z in loader:
        fake = a(z)
        loss_b = b(fake).mean() - b(real).mean()
        opt_b.zero_grad()
        loss_b.backward()
        opt_b.step()
        loss_a = -b(a(z)).mean()
        opt_a.zero_grad()
        loss_a.backward()
        opt_a.step()
"""


@pytest.mark.parametrize("zeroing, said", [
    # Both networks zeroed only at the top of the iteration: G's step adds D's loss gradient to its own.
    ("", True),
    # Anything zeroed between D's backward and G's step: G's step sees only its own loss's gradient.
    ("opt_a.zero_grad()", False),
    ("a.zero_grad()", False),
    # Only the discriminator or its optimizer zeroed there: the generator's `.grad` still holds D's loss
    # gradient (fresh87's VAE-GAN, `netD.zero_grad()` after `optimizerD.step()`; the clause was missing).
    ("b.zero_grad()", True),
    ("opt_b.zero_grad()", True),
    # A function the analysis cannot read, handed the generator: it may zero it (`zero_grad_all(P, Q, D)`).
    ("zero_all(a, b)", False),
])
def test_the_message_says_when_the_generator_steps_on_the_discriminator_s_gradient(zeroing, said):
    source = textwrap.dedent(f"""
        import torch
        from helpers import *


        def train(a, b, loader):
            opt_a = torch.optim.Adam(a.parameters())
            opt_b = torch.optim.Adam(b.parameters())
            for real, z in loader:
                opt_a.zero_grad()
                opt_b.zero_grad()
                fake = a(z)
                loss_b = b(fake).mean() - b(real).mean()
                loss_b.backward()
                opt_b.step()
                {zeroing}
                loss_a = -b(a(z)).mean()
                loss_a.backward()
                opt_a.step()
    """)
    [diagnostic] = tcl003(source)
    assert diagnostic.location.line == line_of(source, "loss_b = b(fake)")
    clause = f"and `opt_a` steps at line {line_of(source, 'opt_a.step()')} before anything zeroes that `.grad`: " \
             f"the generator's update adds this loss's gradient to its own"
    assert (clause in diagnostic.message) == said, diagnostic.message


def test_the_generator_s_step_on_the_other_branch_of_the_discriminator_s_does_not_step_on_its_gradient():
    # fresh66's DiscoGAN: `if it % 3 == 0: loss_D.backward(); d_opt.step()` / `else: loss_G.backward();
    # g_opt.step()`, everything zeroed at the top of each pass: only the waste is said.
    source = textwrap.dedent("""
        import torch


        def train(a, b, loader):
            opt_a = torch.optim.Adam(a.parameters())
            opt_b = torch.optim.Adam(b.parameters())
            for it, (real, z) in enumerate(loader):
                a.zero_grad()
                b.zero_grad()
                fake = a(z)
                loss_b = b(fake).mean() - b(real).mean()
                loss_a = -b(fake).mean()
                if it % 3 == 0:
                    loss_b.backward()
                    opt_b.step()
                else:
                    loss_a.backward()
                    opt_a.step()
    """)
    [diagnostic] = tcl003(source)
    assert diagnostic.location.line == line_of(source, "loss_b = b(fake)")
    assert "runs through the whole generator and fills its `.grad`" in diagnostic.message
    assert "before anything zeroes" not in diagnostic.message, diagnostic.message


def test_a_helper_that_writes_each_parameter_s_grad_zeroes_it_for_the_message():
    # fresh102's conditional GAN (wiseodd's style): `reset_grad()` gives every parameter a zeroed `.grad`
    # between the discriminator's step and the generator's, so the message claims no leak into G's step.
    source = textwrap.dedent("""
        import torch

        Wg = torch.randn(4, 8, requires_grad=True)
        Wd = torch.randn(8, 1, requires_grad=True)
        params = [Wg, Wd]
        G_solver = torch.optim.Adam([Wg])
        D_solver = torch.optim.SGD([Wd], lr=0.1)


        def G(z):
            return torch.tanh(z @ Wg)


        def D(x):
            return torch.sigmoid(x @ Wd)


        def reset_grad():
            for p in params:
                if p.grad is not None:
                    data = p.grad.data
                    p.grad = data.new().resize_as_(data).zero_()


        for it in range(100):
            G_sample = G(torch.randn(16, 4))
            D_loss = -torch.mean(torch.log(D(torch.rand(16, 8))) + torch.log(1 - D(G_sample)))
            D_loss.backward()
            D_solver.step()
            reset_grad()
            G_loss = -torch.mean(torch.log(D(G(torch.randn(16, 4)))))
            G_loss.backward()
            G_solver.step()
            reset_grad()
    """)
    [diagnostic] = tcl003(source)
    assert diagnostic.location.line == line_of(source, "D_loss = -torch.mean")
    assert "runs through the whole generator and fills its `.grad`" in diagnostic.message
    assert "before anything zeroes" not in diagnostic.message, diagnostic.message


def test_a_target_converted_to_the_discriminator_output_s_type_carries_none_of_its_graph():
    # fresh66's EfficientGAN: `label.type_as(d_out)` in the generator's loss takes the dtype of the
    # discriminator's output, none of its values: detaching the fake batch breaks nothing (a safe fix).
    source = textwrap.dedent("""
        import torch
        from torch import nn


        def train(G, D, loader):
            bce = nn.BCEWithLogitsLoss()
            opt_g = torch.optim.Adam(G.parameters())
            opt_d = torch.optim.Adam(D.parameters())
            for real, z in loader:
                fake = G(z)
                d_out_fake = D(fake)
                d_loss = bce(D(real), torch.ones(real.size(0), 1)) + bce(d_out_fake, torch.zeros(real.size(0), 1))
                opt_d.zero_grad()
                d_loss.backward()
                opt_d.step()
                g_out = D(G(z))
                g_loss = bce(g_out, torch.ones(real.size(0), 1).type_as(d_out_fake))
                opt_g.zero_grad()
                g_loss.backward()
                opt_g.step()
    """)
    [diagnostic] = tcl003(source)
    assert diagnostic.location.line == line_of(source, "d_out_fake = D(fake)")
    assert "the fix is unsafe" not in diagnostic.message and diagnostic.fix is not None, diagnostic.message


def test_a_loss_stub_called_with_arguments_it_does_not_take_says_nothing_of_them():
    # fresh64's homework template: `def d_loss(): return  # TODO`, called as `d_loss(D(fake), D(real))`.
    # Its summary (it returns nothing) cannot say which arguments reach the loss: all of them may.
    source = textwrap.dedent("""
        import torch


        def d_loss():
            return  # TODO


        def train(generator, discriminator, loader, noise_dim=20):
            g_optimizer = torch.optim.Adam(generator.parameters())
            d_optimizer = torch.optim.Adam(discriminator.parameters())
            for real in loader:
                data_gen = generator(torch.randn(len(real), noise_dim))
                loss = d_loss(discriminator(data_gen), discriminator(real))
                d_optimizer.zero_grad()
                loss.backward()
                d_optimizer.step()
                loss = -discriminator(generator(torch.randn(len(real), noise_dim))).mean()
                g_optimizer.zero_grad()
                loss.backward()
                g_optimizer.step()
    """)
    assert lines(source) == [line_of(source, "loss = d_loss(")]


def line_of(source: str, text: str) -> int:
    return next(number for number, line in enumerate(source.splitlines(), 1) if text in line)


def test_generator_and_discriminator_found_from_optimizers_without_telling_names():
    [diagnostic] = tcl003(MODULES_A_AND_B)
    assert diagnostic.location.line == 10
    assert "`b(fake)`" in diagnostic.message and "`a(...)`" in diagnostic.message
    assert "`opt_b`" in diagnostic.message


def test_fix_with_modules_a_and_b_detaches_the_discriminator_step_only():
    result = fixed(MODULES_A_AND_B)
    assert "loss_b = b(fake.detach()).mean() - b(real).mean()" in result
    assert "loss_a = -b(a(z)).mean()" in result  # the generator step keeps its gradient
    assert not tcl003(result)


def test_optimizers_override_misleading_names():
    source = """
    import torch


    def train(netD, netG, loader):
        # the names lie: opt_gen trains netD, opt_crit trains netG
        opt_gen = torch.optim.Adam(netD.parameters())
        opt_crit = torch.optim.Adam(netG.parameters())
        for real, z in loader:
            fake = netD(z)
            loss_c = netG(fake).mean() - netG(real).mean()
            opt_crit.zero_grad()
            loss_c.backward()
            opt_crit.step()
    """
    [diagnostic] = tcl003(source)
    assert diagnostic.location.line == 11
    assert "`netG(fake)`" in diagnostic.message and "`netD(...)`" in diagnostic.message


def test_names_break_the_tie_when_only_the_discriminator_optimizer_is_built():
    source = """
    import torch
    import torch.nn.functional as F


    def train_d(netG, netD, loader):
        optD = torch.optim.Adam(netD.parameters())
        for real, z in loader:
            fake = netG(z)
            d_loss = F.softplus(netD(fake)).mean() + F.softplus(-netD(real)).mean()
            optD.zero_grad()
            d_loss.backward()
            optD.step()
    """
    assert lines(source) == [10]


def test_no_tie_break_without_generator_like_names():
    source = """
    import torch
    import torch.nn.functional as F


    def train_d(a, b, loader):
        opt_b = torch.optim.Adam(b.parameters())
        for real, z in loader:
            fake = a(z)
            d_loss = F.softplus(b(fake)).mean() + F.softplus(-b(real)).mean()
            opt_b.zero_grad()
            d_loss.backward()
            opt_b.step()
    """
    assert lines(source) == []


def test_generator_optimizer_over_a_chain_of_two_generators():
    source = """
    import itertools

    import torch


    def step(G_AB, G_BA, D_B, real_A, real_B):
        optimizer_G = torch.optim.Adam(itertools.chain(G_AB.parameters(), G_BA.parameters()))
        optimizer_D_B = torch.optim.Adam(D_B.parameters())
        fake_B = G_AB(real_A)
        loss_D_B = (D_B(fake_B) ** 2).mean() + ((D_B(real_B) - 1) ** 2).mean()
        optimizer_D_B.zero_grad()
        loss_D_B.backward()
        optimizer_D_B.step()
        return loss_D_B.item()
    """
    assert lines(source) == [11]


# --- the step: which backward, which optimizer -------------------------------------


def test_generator_step_is_silent():
    source = """
    import torch


    def generator_step(netG, netD, z):
        optG = torch.optim.Adam(netG.parameters())
        optD = torch.optim.Adam(netD.parameters())
        loss = -netD(netG(z)).mean()
        optG.zero_grad()
        loss.backward()
        optG.step()
        return loss.item()
    """
    assert lines(source) == []


def test_discriminator_output_not_in_the_backward_is_silent():
    source = """
    import torch


    def d_step(netG, netD, real, z):
        optG = torch.optim.Adam(netG.parameters())
        optD = torch.optim.Adam(netD.parameters())
        score_fake = netD(netG(z))  # only logged
        loss = -netD(real).mean()
        optD.zero_grad()
        loss.backward()
        optD.step()
        return loss.item(), score_fake.mean().item()
    """
    assert lines(source) == []


@pytest.mark.parametrize("backward", [
    "fabric.backward(d_loss)",
    "torch.autograd.backward(d_loss)",
    "scaler.scale(d_loss).backward()",
    "d_loss.backward(retain_graph=True)",
])
def test_backward_spellings(backward):
    step = "scaler.step(opt_d)" if "scaler" in backward else "opt_d.step()"
    source = f"""
    import torch


    def d_step(G, D, fabric, scaler, real, z):
        opt_g = torch.optim.Adam(G.parameters())
        opt_d = torch.optim.Adam(D.parameters())
        fake = G(z)
        d_loss = D(fake).mean() - D(real).mean()
        opt_d.zero_grad()
        {backward}
        {step}
        return d_loss.item()
    """
    assert lines(source) == [9]


@pytest.mark.parametrize("context", [
    "torch.no_grad()",
    "torch.inference_mode()",
    "torch.set_grad_enabled(False)",
])
def test_generator_under_no_grad_is_silent(context):
    assert lines(_discriminator_step(f"with {context}:", "    fake = G(z)")) == []


def test_two_discriminator_steps_in_one_function():
    source = """
    import torch


    def two_critic_steps(G, D, real, z1, z2):
        opt_g = torch.optim.Adam(G.parameters())
        opt_d = torch.optim.Adam(D.parameters())
        first = D(G(z1)).mean() - D(real).mean()
        opt_d.zero_grad()
        first.backward()
        opt_d.step()
        second = D(G(z2).detach()).mean() - D(real).mean()
        opt_d.zero_grad()
        second.backward()
        opt_d.step()
        return first.item(), second.item()
    """
    assert lines(source) == [8]


# --- what the diagnostic carries ------------------------------------------------------


def test_diagnostic_context_for_verify():
    [diagnostic] = tcl003(MODULES_A_AND_B)
    context = diagnostic.context
    assert context["generator"] == "a"
    assert context["discriminator"] == "b"
    assert (context["generator_line"], context["backward_line"], context["step_line"]) == (9, 12, 13)
    assert "line 9" in diagnostic.message and "line 12" in diagnostic.message and "line 13" in diagnostic.message
    assert diagnostic.message.endswith("use `fake.detach()`")


def test_the_step_named_is_the_one_of_the_discriminator_fed_when_a_window_steps_two():
    # A CycleGAN's two critics: both backwards, then both steps. Each finding names the optimizer
    # that trains the discriminator it is about, not the window's first.
    source = """
    import torch


    def critic_steps(G_ab, G_ba, D_a, D_b, real_a, real_b):
        opt_d_a = torch.optim.Adam(D_a.parameters())
        opt_d_b = torch.optim.Adam(D_b.parameters())
        opt_g = torch.optim.Adam(list(G_ab.parameters()) + list(G_ba.parameters()))
        fake_a = G_ba(real_b)
        fake_b = G_ab(real_a)
        loss_a = D_a(fake_a).mean() - D_a(real_a).mean()
        loss_b = D_b(fake_b).mean() - D_b(real_b).mean()
        opt_d_a.zero_grad()
        opt_d_b.zero_grad()
        loss_a.backward()
        loss_b.backward()
        opt_d_a.step()
        opt_d_b.step()
    """
    found = sorted(tcl003(source), key=lambda diagnostic: diagnostic.location.line)
    assert [d.location.line for d in found] == [11, 12]
    assert [(d.context["backward_line"], d.context["step_line"]) for d in found] == [(15, 17), (16, 18)]
    assert "for `opt_d_a` (step at line 17)" in found[0].message, found[0].message
    assert "for `opt_d_b` (step at line 18)" in found[1].message, found[1].message


def test_self_attribute_context():
    source = """
    import torch
    from torch import nn


    class Trainer:
        def __init__(self, G: nn.Module, D: nn.Module):
            self.G = G
            self.D = D
            self.opt_g = torch.optim.Adam(self.G.parameters())
            self.opt_d = torch.optim.Adam(self.D.parameters())

        def d_step(self, real, z):
            fake = self.G(z)
            loss = self.D(fake).mean() - self.D(real).mean()
            self.opt_d.zero_grad()
            loss.backward()
            self.opt_d.step()
            return loss.item()
    """
    [diagnostic] = tcl003(source)
    assert diagnostic.location.line == 15
    assert (diagnostic.context["generator"], diagnostic.context["discriminator"]) == ("self.G", "self.D")


# --- cases found on real GAN code: precision and recall ---------------------------------


@pytest.mark.parametrize("noisy, flagged", [
    ("fake.detach() + torch.randn_like(fake) * 0.03", False),
    ("fake.detach() + fake.new_zeros(fake.shape)", False),
    ("fake + torch.randn_like(fake) * 0.03", True),
])
def test_noise_shaped_like_the_fake_carries_none_of_its_graph(noisy, flagged):
    # Instance noise on the discriminator's input (a DCGAN's `fake.detach() + torch.randn_like(fake) * 0.03`):
    # a fresh tensor shaped like the fake holds none of the generator's graph.
    source = f"""
    import torch


    def train(G, D, opt_d, opt_g, loader):
        for real in loader:
            fake = G(torch.randn(real.size(0), 8))
            d_loss = D({noisy}).mean() - D(real).mean()
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            g_loss = -D(fake).mean()
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
    """
    assert lines(source) == ([8] if flagged else [])


@pytest.mark.parametrize("size", ["d_real.shape[0]", "d_real.size(0)", "len(d_real)"])
def test_noise_sized_by_the_discriminators_output_carries_none_of_its_values(size):
    # `z = torch.randn(d_real.shape[0], nz)` after `d_real = D(real)`: the generator is fed a size read
    # off the discriminator's output, not what the discriminator computed, so `D(fake)` in D's loss is
    # the discriminator judging the generator (it was taken for a generator judged by an outside network).
    source = f"""
    import torch


    def train(G, D, opt_d, opt_g, loader, bce):
        for real in loader:
            d_real = D(real)
            z = torch.randn({size}, 8)
            fake = G(z)
            d_loss = bce(d_real, torch.ones_like(d_real)) + bce(D(fake), torch.zeros_like(d_real))
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
            g_loss = bce(D(fake), torch.ones_like(d_real))
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
    """
    assert lines(source) == [10]


FAKE_ONLY_STEP = """
import torch
from torch import nn


def train(loader):
    {gen}, {disc} = nn.Linear(4, 4), nn.Linear(4, 1)
    opt_g = torch.optim.Adam({gen}.parameters())
    opt_d = torch.optim.Adam({disc}.parameters())
    for a, b in loader:
        d_loss = ({disc}({gen}(a)) ** 2).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
"""


@pytest.mark.parametrize("gen, disc", [("genAB", "discB"), ("G_A2B", "D_B"), ("netG_A", "netD_B"),
                                       ("gen_x", "critic_y")])
def test_a_step_of_fakes_alone_is_a_discriminator_step_when_cycle_names_say_so(gen, disc):
    # CycleGAN-style trainers split the discriminator's real and fake steps; in the fake-only one only the
    # names tell a discriminator from a network that cooperates with the generator (domain suffixes kept).
    assert lines(FAKE_ONLY_STEP.format(gen=gen, disc=disc)) == [11]


@pytest.mark.parametrize("gen, disc", [("encoder", "decoder"), ("ga", "da"), ("net_a", "net_b")])
def test_a_step_of_fakes_alone_under_other_names_is_silent(gen, disc):
    assert lines(FAKE_ONLY_STEP.format(gen=gen, disc=disc)) == []


OWN_OUTPUT_METHOD = """
import torch
from torch import nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(8, 4)

    def forward(self, z):
        return self.net(z)

    def {method}(self, n):
        z = torch.randn(n, 8)
        return {returned}


def train(loader):
    generator = Generator()
    discriminator = nn.Linear(4, 1)
    opt_g = torch.optim.Adam(generator.parameters())
    opt_d = torch.optim.Adam(discriminator.parameters())
    for real in loader:
        fake = generator.{method}(real.size(0))
        d_loss = discriminator(fake).mean() - discriminator(real).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
"""


@pytest.mark.parametrize("returned", ["self(z)", "self.forward(z)"])
def test_a_method_of_the_generator_that_returns_its_own_output(returned):
    # `fake = generator.generate_batch(n)` with `return self(z)`: the generator's output, as `generator(z)` is.
    source = OWN_OUTPUT_METHOD.format(method="generate_batch", returned=returned)
    [diagnostic] = [d for d in lint_source(source, "gan.py") if d.code == "TCL003"]
    assert diagnostic.location.line == 26
    assert "through the method `Generator.generate_batch`" in diagnostic.message


@pytest.mark.parametrize("returned", ["z", "self.net.weight.new_zeros(n, 4)", "self(z).detach()"])
def test_a_method_of_the_generator_that_returns_something_else_is_not_its_output(returned):
    # Noise for the generator, a fresh tensor, or its output detached: nothing of its graph.
    source = OWN_OUTPUT_METHOD.format(method="sample", returned=returned)
    assert [d for d in lint_source(source, "gan.py") if d.code == "TCL003"] == []


HELD_OPTIMIZERS = """
import torch
from torch import nn

nets = {networks}
{optimizers}


def train(loader):
    for real in loader:
        fake = nets["G"](torch.randn(real.size(0), 8))
        d_loss = nets["D"](fake).mean() - nets["D"](real).mean()
        optims["D"].zero_grad()
        d_loss.backward()
        optims["D"].step()
"""
TWO_NETWORKS = '{"G": nn.Linear(8, 4), "D": nn.Linear(4, 1)}'


@pytest.mark.parametrize("networks, optimizers", [
    (TWO_NETWORKS, "optims = {k: torch.optim.Adam(v.parameters()) for k, v in nets.items()}"),
    (TWO_NETWORKS, "optims = {k: torch.optim.Adam(nets[k].parameters()) for k in nets}"),
    (TWO_NETWORKS, "optims = {}\nfor name in nets.keys():\n    optims[name] = torch.optim.Adam(nets[name].parameters())"),
    ("dict(G=nn.Linear(8, 4), D=nn.Linear(4, 1))",
     "optims = {}\nfor name, net in nets.items():\n    optims[name] = torch.optim.SGD(net.parameters(), lr=0.1)"),
    (TWO_NETWORKS, 'optims = {"G": torch.optim.Adam(nets["G"].parameters()), '
                   '"D": torch.optim.Adam(nets["D"].parameters())}'),
])
def test_optimizers_held_in_a_dict_beside_a_dict_of_networks(networks, optimizers):
    # StarGAN-v2-style trainers build one optimizer per network, keyed as the networks are: the
    # step of `optims["D"]` trains `nets["D"]` only, so `nets["D"](fake)` in its loss is a D step.
    source = HELD_OPTIMIZERS.format(networks=networks, optimizers=optimizers)
    flagged = [d for d in lint_source(source, "gan.py") if d.code == "TCL003"]
    judged = next(n for n, line in enumerate(source.splitlines(), 1) if 'd_loss = nets["D"](fake)' in line)
    assert [d.location.line for d in flagged] == [judged]
    assert 'for `optims["D"]`' in flagged[0].message


@pytest.mark.parametrize("networks, optimizers", [
    # Keys the analysis cannot list: a dict of networks built by a call, a comprehension over a list.
    ("make_networks()", "optims = {k: torch.optim.Adam(v.parameters()) for k, v in nets.items()}"),
    (TWO_NETWORKS, 'optims = {k: torch.optim.Adam(nets[k].parameters()) for k in ["G", "D"]}'),
    # One optimizer over both networks under every key: a joint step, no discriminator step.
    (TWO_NETWORKS, "optims = {k: torch.optim.Adam(list(nets['G'].parameters()) + list(nets['D'].parameters())) "
                   "for k in nets}"),
])
def test_optimizers_held_in_a_dict_the_analysis_cannot_pair_are_silent(networks, optimizers):
    source = HELD_OPTIMIZERS.format(networks=networks, optimizers=optimizers)
    assert [d for d in lint_source(source, "gan.py") if d.code == "TCL003"] == []


def test_generator_fed_the_discriminators_values_is_judged_outside():
    # The negative beside it: the generator reads what the discriminator computed (`G(d_real)`), so the
    # loss runs D -> G -> D and a detach at `D(fake)` would cut a path back into D itself: silent.
    source = """
    import torch


    def train(G, D, opt_d, opt_g, loader, bce):
        for real in loader:
            d_real = D(real)
            fake = G(d_real)
            d_loss = bce(d_real, torch.ones_like(d_real)) + bce(D(fake), torch.zeros_like(d_real))
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
    """
    assert lines(source) == []


def test_noise_sampled_by_a_method_of_a_generator_of_another_module_is_not_its_output():
    # `Generator` comes from the project's model module: `Generator(...)` builds a network, it does not
    # run one, so `G.sample_noise(n)` (whatever it is) is no output of a network called `Generator`.
    # The critic's step on `G(z)` undetached is still flagged; the generator's own step is not.
    # (A WGAN-GP with an encoder: the generator is also fed the encoder's codes, so it is a network
    # fed both another network's output and something no network made.)
    source = """
    import torch

    from model import Critic, Encoder, Generator


    def train(loader, latent_dim=8):
        G = Generator(latent_dim).to("cpu")
        C = Critic().to("cpu")
        E = Encoder(latent_dim).to("cpu")
        opt_g = torch.optim.Adam(G.parameters())
        opt_c = torch.optim.Adam(C.parameters())
        opt_e = torch.optim.Adam(E.parameters())
        for real in loader:
            z = G.sample_noise(real.size(0))
            c_loss = C(G(z)).mean() - C(real).mean()
            opt_c.zero_grad()
            c_loss.backward()
            opt_c.step()
            z = G.sample_noise(real.size(0))
            z_tilde = E(real)
            e_loss = (real - G(z_tilde)).pow(2).mean() + (z - z_tilde).pow(2).mean()
            E.zero_grad()
            e_loss.backward(retain_graph=True)
            opt_e.step()
            z = G.sample_noise(real.size(0))
            g_loss = C(real).mean() - C(G(z)).mean() + (real - G(E(real))).pow(2).mean()
            G.zero_grad()
            g_loss.backward()
            opt_g.step()
    """
    assert lines(source) == [16]


@pytest.mark.parametrize("call, network", [
    ("Generator(8)", False),            # a class imported from the project's model module: built
    ("generator.Generator(8)", False),  # a class of an imported module: built
    ("G(z)", True),                     # an imported `G` may be a network itself
    ("netG(z)", True),
])
def test_a_call_of_an_imported_class_builds_a_network_it_does_not_run_one(call, network):
    import libcst as cst

    from torchcopylint.analysis.facts import ModuleFacts
    from torchcopylint.analysis.gan_steps import _may_be_network

    source = f"import generator\nfrom model import G, Generator, netG\nout = {call}\n"
    module = cst.parse_module(source)
    facts = ModuleFacts(module, "case.py", source)
    assert _may_be_network(module.body[2].body[0].value, facts, facts.function_facts(facts.module)) is network


def test_joint_optimizer_over_generator_and_discriminator_is_silent():
    source = """
    import itertools
    import torch


    def train(G, D, loader):
        opt = torch.optim.Adam(itertools.chain(G.parameters(), D.parameters()))
        for x in loader:
            recon = D(G(x))
            loss = (recon - x).pow(2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
    """
    assert lines(source) == []


def test_two_optimizers_stepping_after_one_backward_are_silent():
    source = """
    import torch
    import torch.nn.functional as F


    def finetune(backbone, head, loader):
        opt_backbone = torch.optim.SGD(backbone.parameters(), lr=1e-4)
        opt_head = torch.optim.SGD(head.parameters(), lr=1e-2)
        for x, y in loader:
            loss = F.cross_entropy(head(backbone(x)), y)
            opt_backbone.zero_grad()
            opt_head.zero_grad()
            loss.backward()
            opt_head.step()
            opt_backbone.step()
    """
    assert lines(source) == []


def test_detach_in_place_statement_is_silent():
    source = """
    import torch


    def d_step(G, D, real, z):
        opt_g = torch.optim.Adam(G.parameters())
        opt_d = torch.optim.Adam(D.parameters())
        fake = G(z)
        fake.detach_()
        d_loss = D(fake).mean() - D(real).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        return d_loss.item()
    """
    assert lines(source) == []


def test_lightning_toggle_optimizer_is_a_grad_switch():
    source = """
    import torch
    import lightning.pytorch as pl


    class GAN(pl.LightningModule):
        def __init__(self, generator, discriminator):
            super().__init__()
            self.automatic_optimization = False
            self.generator = generator
            self.discriminator = discriminator

        def training_step(self, batch, batch_idx):
            real, z = batch
            opt_g, opt_d = self.optimizers()
            self.toggle_optimizer(opt_d)
            fake = self.generator(z)
            d_loss = self.discriminator(fake).mean() - self.discriminator(real).mean()
            opt_d.zero_grad()
            self.manual_backward(d_loss)
            opt_d.step()
            self.untoggle_optimizer(opt_d)

        def configure_optimizers(self):
            opt_g = torch.optim.Adam(self.generator.parameters())
            opt_d = torch.optim.Adam(self.discriminator.parameters())
            return [opt_g, opt_d]
    """
    assert lines(source) == []


def test_lightning_automatic_optimization_fake_made_in_the_same_call_is_silent():
    source = """
    import torch
    import lightning.pytorch as pl


    class GAN(pl.LightningModule):
        def __init__(self, generator, discriminator):
            super().__init__()
            self.generator = generator
            self.discriminator = discriminator

        def training_step(self, batch, batch_idx, optimizer_idx):
            real, z = batch
            fake = self.generator(z)
            if optimizer_idx == 0:
                return -self.discriminator(fake).mean()
            if optimizer_idx == 1:
                return self.discriminator(fake).mean() - self.discriminator(real).mean()

        def configure_optimizers(self):
            opt_g = torch.optim.Adam(self.generator.parameters())
            opt_d = torch.optim.Adam(self.discriminator.parameters())
            return [opt_g, opt_d]
    """
    assert lines(source) == []


def test_tuple_unpacked_discriminator_output():
    source = """
    import torch


    def d_step(G, D, real, z):
        opt_g = torch.optim.Adam(G.parameters())
        opt_d = torch.optim.Adam(D.parameters())
        fake = G(z)
        validity, aux = D(fake)
        d_loss = validity.mean() - D(real)[0].mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        return d_loss.item()
    """
    assert lines(source) == [9]


def test_tuple_unpacked_generator_output():
    source = """
    import torch


    def d_step(G, D, real, z):
        opt_g = torch.optim.Adam(G.parameters())
        opt_d = torch.optim.Adam(D.parameters())
        fake, aux = G(z)
        d_loss = D(fake).mean() - D(real).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        return d_loss.item()
    """
    assert lines(source) == [9]


def test_optimizer_built_on_the_constructor_argument():
    source = """
    import torch
    from torch import nn


    class Trainer:
        def __init__(self, G: nn.Module, D: nn.Module):
            self.G = G
            self.D = D
            self.opt_g = torch.optim.Adam(G.parameters())
            self.opt_d = torch.optim.Adam(D.parameters())

        def d_step(self, real, z):
            fake = self.G(z)
            loss = self.D(fake).mean() - self.D(real).mean()
            self.opt_d.zero_grad()
            loss.backward()
            self.opt_d.step()
            return loss.item()
    """
    assert lines(source) == [15]


def test_optimizer_built_from_a_parameter_variable():
    source = """
    import torch


    def d_step(vae, discriminator, real):
        vae_params = filter(lambda p: p.requires_grad, vae.parameters())
        disc_params = filter(lambda p: p.requires_grad, discriminator.parameters())
        optimizer = torch.optim.AdamW(vae_params)
        disc_optimizer = torch.optim.AdamW(disc_params)
        reconstructions = vae(real)
        d_loss = discriminator(reconstructions).mean() - discriminator(real).mean()
        disc_optimizer.zero_grad()
        d_loss.backward()
        disc_optimizer.step()
        return d_loss.item()
    """
    assert lines(source) == [11]


def test_fix_is_not_safe_when_the_output_also_feeds_the_generator_loss():
    source = """
    import torch


    def train(generator, discriminator, loader):
        optimizer_G = torch.optim.Adam(generator.parameters())
        optimizer_D = torch.optim.Adam(discriminator.parameters())
        for real, z in loader:
            optimizer_G.zero_grad()
            optimizer_D.zero_grad()
            d_real = discriminator(real)
            d_fake = discriminator(generator(z))
            log_z = torch.logsumexp(torch.cat([-d_real, -d_fake]), dim=0)
            d_loss = d_real.sum() + log_z
            d_loss.backward(retain_graph=True)
            optimizer_D.step()
            g_loss = d_real.sum() + d_fake.sum() + log_z
            g_loss.backward()
            optimizer_G.step()
    """
    diagnostics = tcl003(source)
    assert diagnostics and all(d.fix is None or d.fix.applicability != Applicability.SAFE for d in diagnostics)


def test_fix_is_not_safe_for_an_argument_differentiated_by_autograd_grad():
    source = """
    import torch
    from torch import autograd


    def d_step(G, D, real, z):
        opt_g = torch.optim.Adam(G.parameters())
        opt_d = torch.optim.Adam(D.parameters())
        fake = G(z)
        fake_out = D(fake)
        grad = autograd.grad(fake_out.sum(), fake, create_graph=True)[0]
        d_loss = fake_out.mean() - D(real).mean() + grad.pow(2).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        return d_loss.item()
    """
    diagnostics = tcl003(source)
    assert diagnostics and all(d.fix is None or d.fix.applicability != Applicability.SAFE for d in diagnostics)


def test_optimizer_over_generator_and_discriminator_after_the_gan_steps_is_silent():
    # InfoGAN's information loss: one optimizer over both modules backpropagates through both on
    # purpose. The generator's name, or the class it is built from, must not make it a generator.
    source = """
    import itertools
    import torch


    generator = Generator()
    discriminator = Discriminator()
    optimizer_G = torch.optim.Adam(generator.parameters())
    optimizer_D = torch.optim.Adam(discriminator.parameters())
    optimizer_info = torch.optim.Adam(itertools.chain(generator.parameters(), discriminator.parameters()))

    for z in range(3):
        gen_imgs = generator(z)
        optimizer_D.zero_grad()
        d_loss = discriminator(gen_imgs.detach()).mean()
        d_loss.backward()
        optimizer_D.step()
        optimizer_info.zero_grad()
        gen_imgs = generator(z)
        info_loss = discriminator(gen_imgs).mean()
        info_loss.backward()
        optimizer_info.step()
    """
    assert lines(source) == []


# --- networks and optimizers received as arguments -------------------------------------


def test_arguments_paired_by_structure_when_names_do_not_tell():
    source = """
    import torch


    def step(a, b, opt_x, opt_y, real, z):
        fake = a(z)
        loss = b(fake).mean() - b(real).mean()
        opt_y.zero_grad()
        loss.backward()
        opt_y.step()
        return loss.item()
    """
    [diagnostic] = tcl003(source)
    assert diagnostic.location.line == 7
    assert (diagnostic.context["generator"], diagnostic.context["discriminator"]) == ("a", "b")


def test_arguments_paired_by_name_stems():
    source = """
    import torch


    def d_only(netG, netD, optimizer_D, z):
        loss = netD(netG(z)).mean()
        optimizer_D.zero_grad()
        loss.backward()
        optimizer_D.step()
        return loss.item()
    """
    assert lines(source) == [6]


def test_solver_arguments_are_optimizers_paired_by_their_stems():
    # fresh61: CS231n's GAN notebook and the course templates built on it name the optimizers they are
    # handed `D_solver` and `G_solver`: the discriminator's step on an undetached fake was missed.
    source = """
    import torch


    def run_a_gan(D, G, D_solver, G_solver, loader, noise_size=96):
        for x, _ in loader:
            D_solver.zero_grad()
            fake_images = G(torch.randn(x.size(0), noise_size))
            d_error = D(x).mean() - D(fake_images).mean()
            d_error.backward()
            D_solver.step()
            G_solver.zero_grad()
            g_error = -D(G(torch.randn(x.size(0), noise_size))).mean()
            g_error.backward()
            G_solver.step()
    """
    assert lines(source) == [9]


def test_requires_grad_on_interpolates_that_carry_the_generator_s_graph_does_not_detach_them():
    # fresh61: a WGAN-GP script builds its interpolates from the undetached fake, then calls
    # `x_interpolated.requires_grad_(True)` as penalties on a leaf do. On a tensor that carries a graph
    # the call changes nothing: the penalty's backward still reaches the generator. A leaf made from
    # the detached fake is what cuts it.
    source = """
    import torch


    def train(G, D, loader, k=10):
        opt_d = torch.optim.Adam(D.parameters())
        for real in loader:
            fake = G(torch.randn(real.size(0), 128))
            mu = torch.rand(real.size(0), 1)
            x_interpolated = (1 - mu) * real + mu * fake
            x_interpolated.requires_grad_(True)
            d_interpolated = D(x_interpolated)
            gradients = torch.autograd.grad(d_interpolated, x_interpolated, torch.ones_like(d_interpolated),
                                            create_graph=True)[0]
            d_loss = D(fake.detach()).mean() - D(real).mean() + k * ((gradients.norm(2, dim=1) - 1) ** 2).mean()
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
    """
    assert 12 in lines(source)
    detached = source.replace("mu * fake\n", "mu * fake.detach()\n")
    assert lines(detached) == []


def test_callers_override_misleading_argument_names():
    # The caller passes the optimizer of `D` as `opt_g`: the callers decide, not the names.
    source = """
    import torch


    def step(g, d, opt_g, opt_d, real, z):
        loss = d(g(z)).mean() - d(real).mean()
        opt_g.zero_grad()
        loss.backward()
        opt_g.step()
        return loss.item()


    def fit(G, D, loader):
        optG = torch.optim.Adam(G.parameters())
        optD = torch.optim.Adam(D.parameters())
        for real, z in loader:
            step(G, D, optD, optG, real, z)
    """
    assert lines(source) == [6]


def test_a_scheduler_argument_is_not_an_optimizer():
    source = """
    import torch


    def step(gen, disc, sched_d, real, z):
        loss = disc(gen(z)).mean() - disc(real).mean()
        loss.backward()
        sched_d.step()
        return loss.item()
    """
    assert lines(source) == []


def test_generator_step_with_arguments_is_silent():
    source = """
    import torch


    def g_step(gen, disc, opt_gen, opt_disc, real, z):
        fake = gen(z)
        loss = -disc(fake).mean()
        opt_gen.zero_grad()
        loss.backward()
        opt_gen.step()
        return loss.item()
    """
    assert lines(source) == []


SECOND_BACKWARD = "fails with `RuntimeError: Trying to backward through the graph a second time`"


def test_message_names_the_second_backward_only_when_the_fake_is_reused():
    reused = """
    import torch


    def train_step(gen, disc, opt_gen, opt_disc, real, z):
        fake = gen(z)
        d_loss = disc(fake).mean() - disc(real).mean()
        opt_disc.zero_grad()
        d_loss.backward()
        opt_disc.step()
        g_loss = -disc(fake).mean()
        opt_gen.zero_grad()
        g_loss.backward()
        opt_gen.step()
    """
    [diagnostic] = tcl003(reused)
    assert SECOND_BACKWARD in diagnostic.message and "the backward at line 13 goes through" in diagnostic.message
    assert diagnostic.context["second_backward_line"] == 13
    fresh = reused.replace("g_loss = -disc(fake).mean()", "g_loss = -disc(gen(z)).mean()")
    [diagnostic] = tcl003(fresh)
    assert SECOND_BACKWARD not in diagnostic.message and diagnostic.context["second_backward_line"] is None
    retained = reused.replace("d_loss.backward()", "d_loss.backward(retain_graph=True)")
    [diagnostic] = tcl003(retained)
    assert SECOND_BACKWARD not in diagnostic.message


PENALISED_STEP = """
import torch
from torch import autograd


def penalty(disc, real, fake):
    phi = torch.rand(real.size(0), 1)
    mixed = phi * real + (1 - phi) * fake
    mixed = autograd.Variable(mixed, requires_grad=True)
    out = disc(mixed)
    gradients = autograd.grad(out, mixed, torch.ones_like(out), create_graph=True)[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


def d_step(gen, disc, opt_disc, real, z):
    opt_disc.zero_grad()
    fake = gen(z)
    loss = disc(fake).mean() - disc(real).mean()
    loss.backward()
    (10 * penalty(disc, real, fake)).backward()
    opt_disc.step()
"""


@pytest.mark.parametrize("wrapped", [True, False], ids=["wrapped-in-a-variable", "interpolated-as-it-is"])
def test_a_gradient_penalty_that_wraps_the_fake_in_a_new_leaf_is_no_second_backward(wrapped):
    # fresh87's PGGAN and f-CLSWGAN: `Variable(interpolates, requires_grad=True)` makes a new leaf, so the
    # penalty's backward never reaches the generator whose graph the discriminator's backward freed. The
    # missing detach stays a finding (it still fills the generator's `.grad`); the second-backward failure
    # is claimed only where the penalty reads the fake as it is, and the real run shows which is true.
    torch = pytest.importorskip("torch")
    source = PENALISED_STEP if wrapped else PENALISED_STEP.replace(
        "    mixed = autograd.Variable(mixed, requires_grad=True)\n", "")
    [diagnostic] = [d for d in tcl003(source) if d.message.startswith("`disc(fake)`")]
    assert (SECOND_BACKWARD in diagnostic.message) is not wrapped
    namespace: dict = {}
    exec(compile(source, "<penalised step>", "exec"), namespace)  # noqa: S102
    torch.manual_seed(0)
    gen, disc = torch.nn.Linear(4, 6), torch.nn.Sequential(torch.nn.Linear(6, 6), torch.nn.Tanh(), torch.nn.Linear(6, 1))
    arguments = (gen, disc, torch.optim.SGD(disc.parameters(), lr=0.1), torch.randn(8, 6), torch.randn(8, 4))
    if wrapped:
        namespace["d_step"](*arguments)
    else:
        with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
            namespace["d_step"](*arguments)


def test_a_decoder_run_on_what_the_trained_encoder_made_is_no_generator_to_detach():
    # IntroVAE's encoder step: `decoder(z)` with `z` sampled from the encoder's own output; the
    # reconstruction loss trains the encoder through the decoder, so the backward must pass through
    # it (the safe fix offered before would have stopped the encoder's reconstruction gradient).
    source = """
    import torch
    import torch.nn.functional as F
    from torch import nn

    encoder = nn.Sequential(nn.Linear(8, 4))
    decoder = nn.Sequential(nn.Linear(4, 8))
    encoder_optimizer = torch.optim.Adam(encoder.parameters())
    decoder_optimizer = torch.optim.Adam(decoder.parameters())


    def train(loader):
        for x in loader:
            encoder_optimizer.zero_grad()
            code = encoder(x)
            z = torch.distributions.Normal(code, 1.0).rsample()
            output = decoder(z)
            fake = decoder(torch.randn_like(z))
            reconstruction = F.mse_loss(output, x)
            encoder_loss = encoder(output.detach()).mean() - encoder(fake.detach()).mean() + reconstruction
            encoder_loss.backward()
            encoder_optimizer.step()

            decoder_optimizer.zero_grad()
            decoder_loss = encoder(decoder(z.detach())).mean() + encoder(decoder(torch.randn_like(z))).mean()
            decoder_loss.backward()
            decoder_optimizer.step()
    """
    assert tcl003(source) == []
    # The same step with the code detached first: the decoder is then a generator the encoder's
    # backward runs through for nothing.
    flagged = source.replace("Normal(code, 1.0)", "Normal(code.detach(), 1.0)")
    assert len(tcl003(flagged)) == 1


def test_a_network_every_caller_hands_over_frozen_feeds_no_generator_graph():
    # Mean teacher (U2PL): `main()` switches the teacher's parameters off, then hands it to `train()`.
    source = """
    import torch


    def train(model, model_teacher, optimizer, loader):
        for image_l, image_u in loader:
            supervised = model(image_l)
            pseudo = model_teacher(image_u)
            out = model(torch.cat((image_l, pseudo)))
            loss = out.mean() + supervised.mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()


    def main(model, model_teacher, loader, config):
        optimizer = get_optimizer(config)
        for p in model_teacher.parameters():
            p.requires_grad = False
        train(model, model_teacher, optimizer, loader)
    """
    assert tcl003(source) == []
    trainable = source.replace("        for p in model_teacher.parameters():\n            p.requires_grad = False\n", "")
    assert len(tcl003(trainable)) == 1  # a teacher that is not frozen: its graph is backpropagated


def test_a_generator_backward_in_the_other_arm_of_the_discriminator_s_if_is_no_second_backward():
    # DiscoGAN alternates: one step in three trains the discriminator, the others the generator.
    # The waste through the generator is real; the crash cannot happen, as no run takes both arms.
    source = """
    import torch


    def train_step(step, gen, disc, opt_gen, opt_disc, real, z):
        fake = gen(z)
        d_loss = disc(fake).mean() - disc(real).mean()
        g_loss = -disc(fake).mean()
        if step % 3 == 0:
            d_loss.backward()
            opt_disc.step()
        else:
            g_loss.backward()
            opt_gen.step()
    """
    [diagnostic] = tcl003(source)
    assert SECOND_BACKWARD not in diagnostic.message and diagnostic.context["second_backward_line"] is None
    assert "runs through the whole generator and fills its `.grad`" in diagnostic.message


# --- the runtime effect, executed ------------------------------------------------------


def test_page_example_with_arguments_fails_at_the_generator_backward_and_the_fix_runs():
    torch = pytest.importorskip("torch")
    [flagged] = [e for e in page_examples(CODE) if e.kind == "flagged" and "def train_step(gen, disc" in e.source]
    [fixed_example] = [e for e in page_examples(CODE) if e.kind == "fixed" and "def train_step(gen, disc" in e.source]
    [diagnostic] = tcl003(flagged.source)
    assert SECOND_BACKWARD in diagnostic.message

    def run(example):
        namespace = {"__name__": "tcl003_example"}
        exec(compile(example.source, "<TCL003 example>", "exec"), namespace)  # noqa: S102
        torch.manual_seed(0)
        gen, disc = torch.nn.Linear(4, 6), torch.nn.Linear(6, 1)
        opt_gen = torch.optim.SGD(gen.parameters(), lr=0.1)
        opt_disc = torch.optim.SGD(disc.parameters(), lr=0.1)
        return namespace["train_step"](gen, disc, opt_gen, opt_disc, torch.randn(8, 6), torch.randn(8, 4))

    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        run(flagged)
    d_loss, g_loss = run(fixed_example)
    assert isinstance(d_loss, float) and isinstance(g_loss, float)


# --- networks reached through something (function summaries) ------------------------------


def _page_pair(marker: str):
    """The flagged page example containing `marker`, and the fixed example that follows it."""
    examples = page_examples(CODE)
    for index, example in enumerate(examples):
        if example.kind == "flagged" and marker in example.source:
            following = examples[index + 1]
            assert following.kind == "fixed"
            return example, following
    raise AssertionError(f"no flagged example with {marker!r}")


@pytest.mark.parametrize("marker, through", [
    ("def G(z):\n    return netG(z)", ["through the function `D` at line 15, which calls `netD(...)`",
                                       "through the function `G` at line 11, which calls `netG(...)`"]),
    ("G = lambda z: torch.tanh(netG(z))", ["through the lambda `D` at line 7", "through the lambda `G` at line 6"]),
    ('nets["D"](fake)', ['`nets["D"](fake)`', '`nets["G"](...)`']),
    ('self.nets["disc"](fake)', ['`self.nets["disc"](fake)`', '`self.nets["gen"](...)`']),
    ("def sample(self, n: int)", ["through the method `self.sample` at line 14, which calls `self.G(...)`",
                                  SECOND_BACKWARD]),
    ("def train_D(real, fake)", ["`train_D(real, fake)` hands the output of `netG(...)` (line 23) to the "
                                 "discriminator step in the function `train_D` (line 11)",
                                 "`netD(fake)` (line 14) is backpropagated at line 16 for `optD`", SECOND_BACKWARD]),
    ("G_solver = torch.optim.Adam(G_params", ["`D` computes its output from tensors that `D_solver` trains",
                                              "`G` computes its output from tensors that `G_solver` trains"]),
    ("def xavier_init(size)", ["`discriminator` computes its output from tensors that `opt_d` trains",
                               "`generator` computes its output from tensors that `opt_g` trains"]),
    ("opt_d.step()\n        opt_g.step()", ["`opt_g` steps at line 16 on those gradients",
                                            "trained to help the discriminator"]),
])
def test_message_names_what_the_networks_were_reached_through(marker, through):
    flagged, _ = _page_pair(marker)
    [diagnostic] = tcl003(flagged.source)
    for text in through:
        assert text in diagnostic.message, diagnostic.message


def test_network_passed_to_a_helper_is_named_by_what_the_caller_passes():
    source = """
    import torch


    def sample(G, n, z_dim=4):
        return G(torch.randn(n, z_dim))


    def critic_loss(D, real, fake):
        return D(fake).mean() - D(real).mean()


    def train(G, D, loader):
        opt_g = torch.optim.Adam(G.parameters())
        opt_d = torch.optim.Adam(D.parameters())
        for real in loader:
            fake = sample(G, real.size(0))
            loss = critic_loss(D, real, fake)
            opt_d.zero_grad()
            loss.backward()
            opt_d.step()
    """
    [diagnostic] = tcl003(source)
    assert diagnostic.location.line == 18
    assert "through the function `critic_loss`" in diagnostic.message
    assert "through the function `sample`" in diagnostic.message
    assert "critic_loss(D, real, fake.detach())" in fixed(source)


def test_wrappers_that_cut_the_graph_are_silent():
    source = """
    import torch
    from torch import nn

    netG = nn.Linear(4, 6)
    netD = nn.Linear(6, 1)
    opt_g = torch.optim.Adam(netG.parameters())
    opt_d = torch.optim.Adam(netD.parameters())


    def D_frozen_input(x):
        return netD(x.detach())


    def G_detached(z):
        return netG(z).detach()


    def G_frozen(z):
        with torch.no_grad():
            return netG(z)


    def rescale(x):
        return x.detach() * 2


    for step in range(3):
        real = torch.randn(8, 6)
        fake = netG(torch.randn(8, 4))
        loss = D_frozen_input(fake).mean() + netD(G_detached(torch.randn(8, 4))).mean() \\
            + netD(G_frozen(torch.randn(8, 4))).mean() + netD(rescale(fake)).mean() - netD(real).mean()
        opt_d.zero_grad()
        loss.backward()
        opt_d.step()
    """
    assert lines(source) == []
    attached = source.replace("return x.detach() * 2", "return x * 2")
    assert lines(attached) == [32]  # `netD(rescale(fake))`: the helper keeps the graph


def test_helper_step_fix_is_unsafe_when_the_helper_reads_the_argument_elsewhere():
    source = """
    import torch
    from torch import nn

    netG = nn.Linear(4, 6)
    netD = nn.Linear(6, 1)
    optG = torch.optim.Adam(netG.parameters())
    optD = torch.optim.Adam(netD.parameters())
    log = []


    def train_D(real, fake):
        loss = netD(fake).mean() - netD(real).mean()
        optD.zero_grad()
        loss.backward()
        optD.step()
        log.append(fake.mean())


    for step in range(3):
        fake = netG(torch.randn(8, 4))
        train_D(torch.randn(8, 6), fake)
    """
    [diagnostic] = tcl003(source)
    assert diagnostic.location.line == 22
    assert diagnostic.fix is not None and diagnostic.fix.applicability is Applicability.UNSAFE
    assert "the fix is unsafe here" in diagnostic.message


def test_dict_literal_of_networks_resolves_to_the_optimizers_modules():
    source = """
    import torch


    def train(G, D, loader, z_dim=4):
        nets = {"gen": G, "disc": D}
        opt_g = torch.optim.Adam(G.parameters())
        opt_d = torch.optim.Adam(D.parameters())
        for real in loader:
            fake = nets["gen"](torch.randn(real.size(0), z_dim))
            loss = nets["disc"](fake).mean() - nets["disc"](real).mean()
            opt_d.zero_grad()
            loss.backward()
            opt_d.step()
            g_loss = -nets['disc'](nets['gen'](torch.randn(real.size(0), z_dim))).mean()
            opt_g.zero_grad()
            g_loss.backward()
            opt_g.step()
    """
    [diagnostic] = tcl003(source)
    assert diagnostic.location.line == 11
    assert '`nets["disc"]`, which holds `D`' in diagnostic.message
    assert '`nets["gen"]`, which holds `G`' in diagnostic.message
    assert diagnostic.context["generator"] == "G" and diagnostic.context["discriminator"] == "D"


def test_a_list_of_networks_by_index():
    source = """
    import torch
    from torch import nn


    class Trainer:
        def __init__(self, G: nn.Module, D: nn.Module):
            self.nets = nn.ModuleList([G, D])
            self.opt_g = torch.optim.Adam(self.nets[0].parameters())
            self.opt_d = torch.optim.Adam(self.nets[1].parameters())

        def d_step(self, real, z):
            fake = self.nets[0](z)
            loss = self.nets[1](fake).mean() - self.nets[1](real).mean()
            self.opt_d.zero_grad()
            loss.backward()
            self.opt_d.step()
    """
    assert lines(source) == [14]


def test_recursion_is_bounded_and_unknown_stays_silent():
    source = """
    import torch
    from helpers import make_fake

    netG = torch.nn.Linear(4, 6)
    netD = torch.nn.Linear(6, 1)
    opt_g = torch.optim.Adam(netG.parameters())
    opt_d = torch.optim.Adam(netD.parameters())


    def G(z, depth=3):
        return G(z, depth - 1) if depth else netG(z)


    def ping(x):
        return pong(x)


    def pong(x):
        return ping(x)


    for step in range(3):
        loss = netD(make_fake(netG)).mean() + netD(ping(torch.randn(8, 6))).mean()
        opt_d.zero_grad()
        loss.backward()
        opt_d.step()
        loss = netD(G(torch.randn(8, 4))).mean()
        opt_d.zero_grad()
        loss.backward()
        opt_d.step()
    """
    # `make_fake` is imported (unknown), `ping`/`pong` recurse without a network; `G` calls itself and
    # `netG`: its summary is computed once, its own recursive call answered as unknown.
    assert lines(source) == [28]


# --- the generator's optimizer stepping on the discriminator's loss -------------------------

BIGAN_RETAINED = """
import itertools

import torch
import torch.nn.functional as F


def train_bigan(G, E, D, loader, z_dim: int = 4) -> None:
    opt_ge = torch.optim.Adam(itertools.chain(G.parameters(), E.parameters()), lr=1e-2)
    opt_d = torch.optim.Adam(D.parameters(), lr=1e-2)
    for x in loader:
        z = torch.randn(x.size(0), z_dim)
        d_real = D(torch.cat([x, E(x)], 1))
        d_fake = D(torch.cat([G(z), z], 1))
        d_loss = F.softplus(-d_real).mean() + F.softplus(d_fake).mean()
        ge_loss = F.softplus(d_real).mean() + F.softplus(-d_fake).mean()
        opt_d.zero_grad()
        opt_ge.zero_grad()
        d_loss.backward(retain_graph=True)
        opt_d.step()
        opt_ge.step()
        ge_loss.backward()
        opt_ge.step()
"""

MODIFIED_IN_PLACE = "one of the variables needed for gradient computation has been modified by an inplace operation"


def test_generator_optimizer_on_the_discriminator_loss_names_the_in_place_error_of_the_reused_graph():
    found = [d for d in lint_source(BIGAN_RETAINED, "<x>") if d.code in ("TCL003", "TCL011")]
    tcl003 = sorted((d for d in found if d.code == "TCL003"), key=lambda d: d.location.line)
    assert [d.location.line for d in tcl003] == [13, 14]  # the encoder's and the generator's output
    for diagnostic in tcl003:
        assert "`opt_ge` steps at line 21 on those gradients" in diagnostic.message
        assert MODIFIED_IN_PLACE in diagnostic.message and "backward at line 22" in diagnostic.message
        # `d_fake` feeds both losses: the detach would cut the generator's adversarial gradient.
        assert diagnostic.fix.applicability is Applicability.UNSAFE
    assert [d.location.line for d in found if d.code == "TCL011"] == [19]


def test_generator_optimizer_on_the_discriminator_loss_runtime():
    torch = pytest.importorskip("torch")
    namespace = {"__name__": "bigan"}
    exec(compile(BIGAN_RETAINED, "<bigan>", "exec"), namespace)  # noqa: S102
    torch.manual_seed(0)
    G, E = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 6)), torch.nn.Linear(6, 4)
    D = torch.nn.Sequential(torch.nn.Linear(10, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
    with pytest.raises(RuntimeError, match=MODIFIED_IN_PLACE):
        namespace["train_bigan"](G, E, D, [torch.randn(8, 6)])


def test_generator_helping_the_discriminator_runtime():
    """The page's example: as written, the generator is updated by the discriminator's loss; with the
    detach, the discriminator's update is the same and the generator's is not."""
    torch = pytest.importorskip("torch")
    flagged, fixed_example = _page_pair("opt_d.step()\n        opt_g.step()")

    def run(example):
        namespace = {"__name__": "helping"}
        exec(compile(example.source, "<TCL003 example>", "exec"), namespace)  # noqa: S102
        torch.manual_seed(0)
        generator = torch.nn.Sequential(torch.nn.Linear(16, 12), torch.nn.Tanh(), torch.nn.Linear(12, 8))
        discriminator = torch.nn.Sequential(torch.nn.Linear(8, 12), torch.nn.Tanh(), torch.nn.Linear(12, 1))
        loader = [torch.randn(8, 8)]
        history = namespace["train"](generator, discriminator, loader)
        return history, [p.detach().clone() for p in generator.parameters()]

    (flagged_history, flagged_g), (fixed_history, fixed_g) = run(flagged), run(fixed_example)
    assert flagged_history[0][0] == fixed_history[0][0]  # the discriminator's loss is the same
    assert any(not torch.equal(a, b) for a, b in zip(flagged_g, fixed_g))


def test_joint_objectives_stay_silent():
    infogan, _ = next((e, None) for e in page_examples(CODE) if e.kind == "clean" and "info_loss" in e.source)
    assert tcl003(infogan.source) == []
    # Without its own discriminator step, the same window is the discriminator's step: reported.
    own_step_removed = infogan.source.replace(
        "        opt_d.zero_grad()\n        d_loss.backward()\n        opt_d.step()\n", "")
    assert own_step_removed != infogan.source
    assert len(tcl003(own_step_removed)) == 1


def test_generator_zeroed_between_the_steps_is_silent():
    flagged, _ = _page_pair("opt_d.step()\n        opt_g.step()")
    zeroed = flagged.source.replace("        opt_d.step()\n        opt_g.step()",
                                    "        opt_d.step()\n        opt_g.zero_grad()\n        opt_g.step()")
    assert zeroed != flagged.source
    assert tcl003(zeroed) == []


# --- runtime effects of the page's new shapes ---------------------------------------------------


def _exec_script(source: str, seed: int = 0) -> dict:
    torch = pytest.importorskip("torch")
    torch.manual_seed(seed)
    namespace = {"__name__": "tcl003_script"}
    exec(compile(source, "<TCL003 script>", "exec"), namespace)  # noqa: S102
    return namespace


def test_wrapper_script_fills_the_generator_grad_in_the_discriminator_step():
    torch = pytest.importorskip("torch")
    flagged, fixed_example = _page_pair("def G(z):\n    return netG(z)")
    as_written, detached = _exec_script(flagged.source), _exec_script(fixed_example.source)
    # The discriminator's training is identical; the generator's `.grad` after the loop holds the
    # discriminator step's contribution only as written.
    for a, b in zip(as_written["netD"].parameters(), detached["netD"].parameters()):
        assert torch.equal(a, b)
    assert any(not torch.equal(a.grad, b.grad) for a, b in zip(as_written["netG"].parameters(),
                                                                  detached["netG"].parameters()))


def test_dict_of_networks_warm_up_fills_the_generator_grad():
    torch = pytest.importorskip("torch")
    flagged, fixed_example = _page_pair('nets["D"](fake)')

    def run(example):
        namespace = _exec_script(example.source)
        nets = {"G": torch.nn.Linear(16, 8), "D": torch.nn.Linear(8, 1)}
        namespace["warm_up_discriminator"](nets, [torch.randn(4, 8)])
        return nets["G"].weight.grad

    assert run(flagged) is not None and run(flagged).abs().sum() > 0
    assert run(fixed_example) is None


def test_discriminator_step_in_a_helper_breaks_the_generator_step():
    flagged, fixed_example = _page_pair("def train_D(real, fake)")
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        _exec_script(flagged.source)
    namespace = _exec_script(fixed_example.source)
    assert isinstance(namespace["d_loss"], float)


def test_a_generator_step_every_nth_iteration_breaks_the_discriminator_backward_that_shares_its_graph():
    torch = pytest.importorskip("torch")
    example = next(e for e in page_examples(CODE) if "if i % n_skip == 0:" in e.source)
    namespace = _exec_script(example.source)
    batches = [torch.randn(3, 8) for _ in range(6)]
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        namespace["train"](batches, n_skip=5)  # iteration 0 runs the generator's step
    fixed = fix_source(example.source, "<x>", lambda text: lint_source(text, "<x>"), unsafe=False).fixed
    _exec_script(fixed)["train"](batches, n_skip=5)  # both steps, every iteration, without error


def test_raw_tensor_networks_fill_the_generator_tensors_grad():
    torch = pytest.importorskip("torch")
    flagged, fixed_example = _page_pair("G_solver = torch.optim.Adam(G_params")
    as_written, detached = _exec_script(flagged.source), _exec_script(fixed_example.source)
    assert torch.equal(as_written["D_W1"], detached["D_W1"])
    assert not torch.equal(as_written["G_W1"].grad, detached["G_W1"].grad)


# --- summaries, read directly ------------------------------------------------------------------


def _facts(source: str):
    import libcst as cst

    from torchcopylint.analysis.facts import ModuleFacts

    return ModuleFacts(cst.parse_module(textwrap.dedent(source)))


def test_summary_of_functions_methods_and_lambdas():
    facts = _facts("""
    import torch
    from torch import nn

    netD = nn.Linear(6, 1)
    opt_d = torch.optim.SGD(netD.parameters(), lr=0.1)
    W = torch.randn(6, 1, requires_grad=True)
    scale = torch.ones(6)


    def clip_(t):
        t.clamp_(0, 1)
        return t


    def D(x):
        return netD(x.view(-1, 6))


    def D_cut(x):
        return netD(x.detach())


    def linear(x):
        return x @ W


    def normalise(x):
        return x / scale


    judge = lambda x: torch.sigmoid(D(x))
    """)
    summaries = {name: facts.summary(node) for name, node in facts.module_functions.items()}
    assert summaries["clip_"].returns == "argument" and summaries["clip_"].returned_argument == 0
    assert summaries["clip_"].writes.kind == "writes"  # read from ModuleFacts.function_effect
    [use] = summaries["D"].networks
    assert (use.key, use.inputs, use.returned) == ("netD", frozenset({0}), True)
    assert summaries["D"].returns == "network"
    [cut] = summaries["D_cut"].networks
    assert cut.inputs == frozenset() and cut.returned
    assert summaries["linear"].free_tensors == frozenset({"W"})
    assert summaries["normalise"].free_tensors == frozenset({"scale"})  # a tensor, but no optimizer's
    assert summaries["linear"].free_tensors_requiring_grad == frozenset({"W"})
    assert summaries["normalise"].free_tensors_requiring_grad == frozenset()
    # Whether the result requires grad is ModuleFacts.autograd's answer: `opt_d` trains `netD`.
    assert summaries["D"].requires_grad is not None and summaries["normalise"].requires_grad is None
    module = facts.function_facts(facts.module)
    [binding] = [b for b in module.bindings if b.name == "judge"]
    judge = facts.summary(binding.value, module, "judge")
    assert judge.label == "lambda `judge`"
    [through] = judge.networks
    assert through.key == "netD" and through.via == ("function `D`",) and through.inputs == frozenset({0})


def test_callee_summary_resolves_methods_local_functions_and_aliases():
    import libcst as cst

    facts = _facts("""
    class Trainer:
        def sample(self, n):
            return self.G(n)

        def step(self):
            fake = self.sample(4)

            def local(x):
                return x

            alias = local
            return alias(fake), local(fake), unknown(fake)
    """)
    step = facts.function_facts(facts.classes["Trainer"].methods["step"])
    calls = {facts.code_for(call.func): call for call in step.call_statement}
    assert facts.callee_summary(calls["self.sample"], step).label == "method `self.sample`"
    assert facts.callee_summary(calls["local"], step).name == "local"
    assert facts.callee_summary(calls["alias"], step).name == "local"
    assert facts.callee_summary(calls["unknown"], step) is None
    assert isinstance(facts.callee_summary(calls["self.sample"], step).node, cst.FunctionDef)


def test_summaries_are_not_computed_for_a_file_without_steps(monkeypatch):
    from torchcopylint.analysis import summaries

    made = []
    original = summaries.Summaries.__init__

    def counting(self, facts):
        made.append(facts)
        original(self, facts)

    monkeypatch.setattr(summaries.Summaries, "__init__", counting)
    source = """
    import torch
    from torch import nn

    netG = nn.Linear(4, 6)
    netD = nn.Linear(6, 1)


    def D(x):
        return netD(x)


    out = D(netG(torch.randn(2, 4)))
    out.sum().backward(retain_graph=True)
    """
    lint_source(textwrap.dedent(source), "<x>")
    assert made == []
    lint_source(textwrap.dedent(source) + "opt = torch.optim.SGD(netD.parameters(), lr=0.1)\nopt.step()\n", "<x>")
    assert len(made) == 1


def test_name_tie_break_needs_a_network_behind_a_function_of_the_file():
    source = """
    import torch

    D_W = torch.randn(6, 1, requires_grad=True)
    table = torch.randn(4, 6)


    def G(z):
        return z @ table


    def D(x):
        return x @ D_W


    D_solver = torch.optim.SGD([D_W], lr=0.1)
    for it in range(3):
        loss = D(G(torch.randn(8, 4))).mean() - D(torch.randn(8, 6)).mean()
        D_solver.zero_grad()
        loss.backward()
        D_solver.step()
    """
    # No optimizer trains `G`, and `G` computes from a plain tensor: named like a generator, but no network.
    assert lines(source) == []
    # A tensor that requires grad behind it: with no optimizer for it, the name breaks the tie.
    trained = source.replace("table = torch.randn(4, 6)", "table = torch.randn(4, 6, requires_grad=True)")
    assert trained != source
    assert lines(trained) == [18]


def test_helper_step_receiving_the_networks_and_optimizer_as_arguments():
    source = """
    import torch


    def d_step(D, opt_d, real, fake):
        loss = D(fake).mean() - D(real).mean()
        opt_d.zero_grad()
        loss.backward()
        opt_d.step()


    def train(netG, netD, loader):
        optG = torch.optim.Adam(netG.parameters())
        optD = torch.optim.Adam(netD.parameters())
        for real, z in loader:
            fake = netG(z)
            d_step(netD, optD, real, fake)
            d_step(netD, optD, real, fake.detach())
            d_step(netD, optD, real, torch.randn_like(real))
    """
    [diagnostic] = tcl003(source)
    assert diagnostic.location.line == 17
    assert "the discriminator step in the function `d_step`" in diagnostic.message
    assert diagnostic.context["discriminator"] == "netD" and diagnostic.context["generator"] == "netG"


def test_penalty_helper_on_the_attached_fake_is_reported_with_an_unsafe_fix():
    source = """
    import torch
    from torch import autograd


    def gradient_penalty(D, real, fake):
        alpha = torch.rand(real.size(0), 1)
        interpolates = alpha * real + (1 - alpha) * fake
        grads = autograd.grad(D(interpolates).sum(), interpolates, create_graph=True)[0]
        return ((grads.norm(2, dim=1) - 1) ** 2).mean()


    def critic_terms(D, real, fake):
        return D(fake.detach()).mean() - D(real).mean()


    def train(G, D, loader, z_dim=4):
        opt_g = torch.optim.Adam(G.parameters())
        opt_d = torch.optim.Adam(D.parameters())
        for real in loader:
            fake = G(torch.randn(real.size(0), z_dim))
            loss = critic_terms(D, real, fake) + 10 * gradient_penalty(D, real, fake)
            opt_d.zero_grad()
            loss.backward()
            opt_d.step()
    """
    # `critic_terms` detaches inside; the penalty's interpolates carry the generator's graph, and
    # `autograd.grad` differentiates against them: detaching at the call would break it.
    [diagnostic] = tcl003(source)
    assert diagnostic.location.line == 22 and "through the function `gradient_penalty`" in diagnostic.message
    assert diagnostic.fix.applicability is Applicability.UNSAFE


def test_a_loss_function_given_the_interpolates_and_the_critic_s_output_makes_the_fix_unsafe():
    # fresh61: a course's WGAN-GP trainer takes its loss as an argument, `disc_loss_fn(d_real, d_fake,
    # d_interp, interp, lamb)`, which takes `autograd.grad(d_interp, interp)`. `disc(interp)` carries the
    # generator's graph (a right finding), but `disc(interp.detach())` would break that gradient.
    source = """
    import torch


    def train(gen, disc, loader, disc_loss_fn, lamb=10):
        opt_d = torch.optim.Adam(disc.parameters())
        for real in loader:
            fake = gen(real.shape[0])
            d_real = disc(real)
            d_fake = disc(fake.detach())
            alpha = torch.rand(1)
            interp = alpha * real + (1 - alpha) * fake
            d_interp = disc(interp)
            loss = disc_loss_fn(d_real, d_fake, d_interp, interp, lamb)
            opt_d.zero_grad()
            loss.backward()
            opt_d.step()
    """
    [diagnostic] = [d for d in tcl003(source) if d.location.line == 13]
    assert diagnostic.fix.applicability is Applicability.UNSAFE
    assert "`interp` and the discriminator's output are both passed to `disc_loss_fn` at line 14" \
        in diagnostic.message
    # Given only the output, the loss function cannot differentiate against the input: the fix is safe.
    [plain] = [d for d in tcl003(source.replace("d_interp, interp, lamb", "d_interp, lamb")) if d.location.line == 13]
    assert plain.fix.applicability is Applicability.SAFE


def test_penalty_helper_that_rewraps_its_input_in_variable_cuts_the_generator_off():
    torch = pytest.importorskip("torch")
    source = """
    import numpy as np
    import torch
    from torch.autograd import Variable


    def gradient_penalty(C, x, y):
        a = torch.rand(x.size(0), 1)
        z = a * x + (1 - a) * y
        z = Variable(z, requires_grad=True)
        scores = C(z)
        grads = torch.autograd.grad(scores, z, grad_outputs=torch.ones_like(scores), create_graph=True)[0]
        return ((grads.norm(2, dim=1) - 1) ** 2).mean()


    def train(G, D, loader, z_dim=4):
        opt_g = torch.optim.Adam(G.parameters())
        opt_d = torch.optim.Adam(D.parameters())
        for real in loader:
            fake = G(torch.randn(real.size(0), z_dim))
            penalty = gradient_penalty(D, real, fake)
            loss = D(fake.detach()).mean() - D(real).mean() + 10 * penalty
            opt_d.zero_grad()
            loss.backward()
            opt_d.step()
    """
    # `Variable(z, requires_grad=True)` makes a new leaf: the penalty's graph ends there.
    assert tcl003(source) == []
    G, D = torch.nn.Linear(4, 3), torch.nn.Linear(3, 1)
    namespace: dict = {}
    exec(textwrap.dedent(source), namespace)
    fake = G(torch.randn(2, 4))
    namespace["gradient_penalty"](D, torch.randn(2, 3), fake).backward()
    assert all(p.grad is None for p in G.parameters()) and D.weight.grad is not None
    # Without the rewrap the penalty reaches the generator, and the rule says so.
    assert len(tcl003(source.replace("        z = Variable(z, requires_grad=True)\n", ""))) == 1



def test_penalty_helper_whose_variable_is_moved_and_cast_still_cuts_the_generator_off():
    # fresh64's WGAN-GP: `autograd.Variable(mix, requires_grad=True).to(device).double()`.
    torch = pytest.importorskip("torch")
    source = """
    import torch
    from torch import autograd

    device = "cpu"


    def gradient_penalty(DIS, real, fake):
        a = torch.rand(real.shape).to(device).double()
        mixed = autograd.Variable(a * real + (1 - a) * fake, requires_grad=True).to(device).double()
        output = DIS(mixed)
        gradient = autograd.grad(output, mixed, torch.ones_like(output), create_graph=True)[0]
        return ((gradient.norm(2, dim=1) - 1) ** 2).mean()


    def train(GEN, DIS, loader, z_dim=4):
        optimizer_g = torch.optim.RMSprop(GEN.parameters(), lr=1e-4)
        optimizer_d = torch.optim.RMSprop(DIS.parameters(), lr=1e-4)
        for real in loader:
            noise = GEN(torch.randn(real.size(0), z_dim).double())
            loss = -torch.mean(DIS(real) - DIS(noise.detach())) + 0.001 * gradient_penalty(DIS, real, noise)
            optimizer_d.zero_grad()
            loss.backward()
            optimizer_d.step()
    """
    assert tcl003(source) == []
    G, D = torch.nn.Linear(4, 3).double(), torch.nn.Linear(3, 1).double()
    namespace: dict = {}
    exec(textwrap.dedent(source), namespace)
    fake = G(torch.randn(2, 4).double())
    namespace["gradient_penalty"](D, torch.randn(2, 3).double(), fake).backward()
    assert all(p.grad is None for p in G.parameters()) and D.weight.grad is not None
    assert len(tcl003(source.replace(
        "autograd.Variable(a * real + (1 - a) * fake, requires_grad=True).to(device).double()",
        "(a * real + (1 - a) * fake).to(device).double()"))) == 1


def test_a_penalty_taken_without_create_graph_through_a_loss_helper_keeps_nothing_of_its_input():
    # fresh64's conditional WGAN: `dLoss(interpolates, d_out, d_out_mixed)` adds a penalty whose
    # `torch.autograd.grad` has no `create_graph=True`: the gradients carry no graph, so the
    # discriminator's output on the mixed batch (undetached fakes in it) reaches no backward.
    torch = pytest.importorskip("torch")
    source = """
    import torch


    def penalty(interpolates, scores):
        gradients = torch.autograd.grad(outputs=scores, inputs=interpolates, grad_outputs=torch.ones_like(scores))[0]
        return ((gradients.flatten(1).norm(2, dim=1) - 1) ** 2).mean()


    def d_loss_fn(interpolates, scores, mixed_scores):
        return scores.mean() + 10 * penalty(interpolates, mixed_scores)


    def train(G, D, loader):
        opt_d = torch.optim.Adam(D.parameters())
        for real in loader:
            fake = G(torch.randn(real.size(0), 4))
            scores = D(fake.detach())
            alpha = torch.rand(real.size(0), 1)
            mixed = alpha * real + (1 - alpha) * fake
            mixed_scores = D(mixed)
            loss = d_loss_fn(mixed, scores, mixed_scores)
            opt_d.zero_grad()
            loss.backward()
            opt_d.step()
    """
    assert tcl003(source) == []
    G, D = torch.nn.Linear(4, 3), torch.nn.Linear(3, 1)
    namespace: dict = {}
    exec(textwrap.dedent(source), namespace)
    namespace["train"](G, D, [torch.randn(2, 3)])
    assert all(p.grad is None for p in G.parameters())
    # With `create_graph=True` the penalty's graph runs back through the mixed batch into the generator.
    graphed = source.replace("grad_outputs=torch.ones_like(scores))", "grad_outputs=torch.ones_like(scores),\n"
                             "                                        create_graph=True)")
    assert tcl003(graphed), "the penalty's graph reaches the generator: flagged"


def test_networks_passed_under_the_names_of_their_classes_are_the_networks_run():
    # fresh64's homework: `class G`, `class D`, then `def train(G, D, ...)` runs the networks it is
    # given under those names; `G(seeds)` there is no new generator built from the class.
    source = """
    import torch
    import torch.nn as nn
    import torch.optim as optim


    class G(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(100, 784)

        def forward(self, x):
            return torch.tanh(self.net(x))


    class D(nn.Module):
        def __init__(self):
            super().__init__()
            self.net = nn.Linear(784, 1)

        def forward(self, x):
            return torch.sigmoid(self.net(x))


    def train(G, D, lr, data_loader, epochs):
        criterion = nn.BCELoss()
        optimizer_G = optim.Adam(G.parameters(), lr=lr)
        optimizer_D = optim.Adam(D.parameters(), lr=lr)
        for e in range(epochs):
            for imgs, _ in data_loader:
                labels_real = torch.ones(imgs.size(0))
                generated = G(torch.randn(imgs.size(0), 100))
                D.zero_grad()
                loss = criterion(D(imgs), labels_real) + criterion(D(generated), torch.zeros(imgs.size(0)))
                loss.backward()
                optimizer_D.step()
                G.zero_grad()
                loss = criterion(D(G(torch.randn(imgs.size(0), 100))), labels_real)
                loss.backward()
                optimizer_G.step()


    train(G(), D(), 2e-4, [], 1)
    """
    assert lines(source) == [34]  # `D(generated)` in the discriminator's loss

# --- what a discriminator is, which step a loss belongs to, and networks reached through dicts, targets
# and methods -------------------------------------------------------------------------------------------

SECOND_BACKWARD = "Trying to backward through the graph a second time"


def _count_backwards_into(torch, modules) -> list:
    """A counter that grows each time a backward reaches a parameter of `modules`."""
    count = [0]
    for module in modules:
        for parameter in module.parameters():
            parameter.register_hook(lambda grad: count.__setitem__(0, count[0] + 1) or grad)
    return count


def _clean(marker: str):
    return next(e for e in page_examples(CODE) if e.kind == "clean" and marker in e.source)


def test_ali_wrapper_combining_inputs_reaches_the_encoder_and_the_generator():
    torch = pytest.importorskip("torch")
    flagged, fixed_example = _page_pair("def train_ali(")
    found = tcl003(flagged.source)
    assert [d.location.line for d in found] == [16, 16]
    assert "output of `E(...)`" in found[0].message and "output of `G(...)`" in found[1].message
    assert all("through the function `D` at line 9, which calls `D_net(...)`" in d.message for d in found)

    def run(example):
        namespace = _exec_script(example.source)
        torch.manual_seed(1)
        G = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 6))
        E = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 4))
        D_net = torch.nn.Sequential(torch.nn.Linear(10, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
        into_encoder = _count_backwards_into(torch, [E])
        into_generator = _count_backwards_into(torch, [G])
        namespace["train_ali"](G, E, D_net, [torch.randn(8, 6), torch.randn(8, 6)])
        return into_encoder[0], into_generator[0], [p.detach().clone() for p in D_net.parameters()]

    (e_written, g_written, d_written), (e_fixed, g_fixed, d_fixed) = run(flagged), run(fixed_example)
    # As written the discriminator's backward also runs through both networks at each of the two steps.
    assert e_written == 2 * e_fixed and g_written == 2 * g_fixed and e_fixed > 0
    assert all(torch.equal(a, b) for a, b in zip(d_written, d_fixed))  # the discriminator trains the same


def test_helper_step_handed_both_outputs_reports_each_argument():
    flagged, fixed_example = _page_pair("def train_D(x, z_hat, x_hat, z)")
    found = tcl003(flagged.source)
    assert [(d.location.line, d.location.column) for d in found] == [(28, 25), (28, 32)]
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match=SECOND_BACKWARD):
        _exec_script(flagged.source)
    assert isinstance(_exec_script(fixed_example.source)["d_loss"], float)


def test_wrapper_around_a_shared_trunk_fills_the_generator_grad_in_the_discriminator_step():
    torch = pytest.importorskip("torch")
    flagged, fixed_example = _page_pair("def critic(x):\n    return adv_head(trunk(x))")
    [diagnostic] = tcl003(flagged.source)
    assert "through the function `critic` at line 13" in diagnostic.message

    def count(example):
        original = torch.nn.Sequential.__init__
        counters = []

        def counted(self, *layers):
            original(self, *layers)
            counters.append(_count_backwards_into(torch, [self]))

        torch.nn.Sequential.__init__ = counted
        try:
            _exec_script(example.source)
        finally:
            torch.nn.Sequential.__init__ = original
        return counters[0][0]  # netG is the first Sequential the script builds

    assert count(flagged) == 2 * count(fixed_example) > 0


def test_discriminators_held_in_dicts_of_a_list():
    flagged, fixed_example = _page_pair('discriminators.append({"model": net, "solver"')
    [diagnostic] = tcl003(flagged.source)
    assert 'each dict of `discriminators` holds the network under "model" and its optimizer under "solver"' \
        in diagnostic.message
    assert "when the loop at line 20 runs it again, the same backward" in diagnostic.message
    assert diagnostic.context["discriminator"] == 'D["model"]' and diagnostic.context["generator"] == "G"
    pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match=SECOND_BACKWARD):
        _exec_script(flagged.source)
    _exec_script(fixed_example.source)


def test_began_reconstruction_target_carries_the_generator_graph():
    torch = pytest.importorskip("torch")
    flagged, fixed_example = _page_pair("def train_began(")
    [diagnostic] = tcl003(flagged.source)
    assert diagnostic.location.line == 12 and diagnostic.location.column == 44
    assert "beside `netD(fake.detach())` (line 12), whose input is detached" in diagnostic.message
    # The generator step's `netD(fake) - fake` is the generator's loss: not touched by the fix.
    assert "g_loss = (netD(fake) - fake).abs().mean()" in fixed_example.source

    def run(example):
        namespace = _exec_script(example.source)
        torch.manual_seed(1)
        netG = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 6))
        netD = torch.nn.Sequential(torch.nn.Linear(6, 3), torch.nn.ReLU(), torch.nn.Linear(3, 6))
        into_generator = _count_backwards_into(torch, [netG])
        try:
            namespace["train_began"](netG, netD, [torch.randn(8, 6)])
        except RuntimeError as error:
            return into_generator[0], str(error)
        return into_generator[0], None

    reached, error = run(flagged)
    # The discriminator's backward reached every generator parameter through `fake`, then the
    # generator's own backward found the graph freed.
    assert reached == len(list(torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 6)).parameters()))
    assert SECOND_BACKWARD in error
    assert run(fixed_example)[1] is None


def test_pix2pix_trainer_across_methods():
    flagged, fixed_example = _page_pair("class Pix2PixModel:")
    [diagnostic] = tcl003(flagged.source)
    assert diagnostic.location.line == 22
    for named in ("in the method `self.backward_D` (line 21), called at line 37",
                  "kept on `self.fake_B` by `self.forward()` (line 35)", "the backward at line 32"):
        assert named in diagnostic.message
    assert diagnostic.fix.applicability is Applicability.SAFE
    # Without the `self.forward()` call in the step's function, where `self.fake_B` was set is not in sight.
    unseen = flagged.source.replace("        self.forward()\n", "")
    assert unseen != flagged.source and tcl003(unseen) == []
    torch = pytest.importorskip("torch")

    def run(example):
        namespace = _exec_script(example.source)
        model = namespace["Pix2PixModel"](torch.nn.Linear(6, 6), torch.nn.Sequential(
            torch.nn.Linear(12, 8), torch.nn.LeakyReLU(0.2), torch.nn.Linear(8, 1)))
        model.set_input(torch.randn(4, 6), torch.randn(4, 6))
        model.optimize_parameters()
        return model

    with pytest.raises(RuntimeError, match=SECOND_BACKWARD):
        run(flagged)
    assert run(fixed_example).loss_G.item() > 0


def test_cyclegan_helper_names_the_discriminator_the_caller_passes():
    flagged, fixed_example = _page_pair("class CycleTrainer:")
    [diagnostic] = tcl003(flagged.source)
    assert diagnostic.location.line == 19
    assert "`D`, bound to `self.D_B`" in diagnostic.message
    assert "the backward at line 27 already ran through the same `self.G_AB(...)` output" in diagnostic.message
    torch = pytest.importorskip("torch")

    def run(example):
        namespace = _exec_script(example.source)
        trainer = namespace["CycleTrainer"](torch.nn.Linear(6, 6), torch.nn.Linear(6, 6),
                                            torch.nn.Linear(6, 1), torch.nn.Linear(6, 1))
        trainer.step(torch.randn(4, 6), torch.randn(4, 6))
        return trainer

    with pytest.raises(RuntimeError, match=SECOND_BACKWARD):
        run(flagged)
    assert run(fixed_example).loss_D_A.item() > 0


def test_cooperating_network_is_no_discriminator_until_it_judges_something_else():
    example = _clean("info_loss = F.mse_loss(Q(G(")
    assert tcl003(example.source) == []
    judging_real = example.source.replace("info_loss = F.mse_loss(Q(G(torch.cat([torch.randn(real.size(0), z_dim), c], 1))), c)",
                                          "info_loss = F.mse_loss(Q(G(torch.cat([torch.randn(real.size(0), z_dim), c], 1))), c)"
                                          " + Q(real).pow(2).mean()")
    assert judging_real != example.source
    assert len(tcl003(judging_real)) == 1


def test_generator_loss_before_the_discriminator_step_gets_no_fix_that_would_stop_the_generator():
    """Reported with a safe fix before: detaching `fake` in `g_loss` leaves the generator without any
    adversarial gradient (its parameters stay as they are when nothing else trains it)."""
    torch = pytest.importorskip("torch")
    example = _clean("# The generator's loss first; its step comes after the discriminator's.")
    assert tcl003(example.source) == []
    wrong_fix = example.source.replace("g_loss = F.softplus(-netD(fake)).mean()",
                                       "g_loss = F.softplus(-netD(fake.detach())).mean()")
    assert wrong_fix != example.source

    def generator_moved(source) -> bool:
        namespace = _exec_script(source)
        torch.manual_seed(1)
        netG = torch.nn.Sequential(torch.nn.Linear(16, 8), torch.nn.Tanh(), torch.nn.Linear(8, 6))
        netD = torch.nn.Sequential(torch.nn.Linear(6, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
        before = [p.detach().clone() for p in netG.parameters()]
        namespace["train"](netG, netD, [torch.randn(8, 6)], l2=0.0)
        return any(not torch.equal(a, b) for a, b in zip(before, netG.parameters()))

    assert generator_moved(example.source)
    assert not generator_moved(wrong_fix)


def test_windows_end_at_a_zeroing_and_at_an_unknown_optimizers_step():
    for marker in ("from training_utils import build_optimizer", "penalty = l2 * sum(p.pow(2).sum() for p in"):
        for example in (e for e in page_examples(CODE) if e.kind == "clean" and marker in e.source):
            assert tcl003(example.source) == []
    # Without the discriminator's zeroing between the two backwards, `g_loss` is in the discriminator's
    # step, but it is the generator's own loss (its optimizer steps on it later): still silent.
    example = _clean("# The generator's loss first; its step comes after the discriminator's.")
    moved = example.source.replace("        g_loss.backward()\n        opt_d.zero_grad()\n",
                                   "        opt_d.zero_grad()\n        g_loss.backward()\n")
    assert moved != example.source and tcl003(moved) == []


# --- a loss both networks minimise: the generator decoding an encoder's codes ------------------------


def test_a_joint_encoder_generator_loss_is_no_discriminator_step_and_a_detach_would_starve_the_encoder():
    torch = pytest.importorskip("torch")
    clean = next(e for e in page_examples(CODE) if e.kind == "clean" and "def train_mode_regularized(" in e.source)
    assert tcl003(clean.source) == []
    body = clean.source[: clean.source.index("enc, gen, crit = ")]

    def encoder_after_training(source: str):
        torch.manual_seed(0)
        namespace = {"__name__": "tcl003_joint"}
        exec(compile(source, "<TCL003 joint loss>", "exec"), namespace)  # noqa: S102
        nn = torch.nn
        enc, gen, crit = nn.Linear(8, 4), nn.Linear(4, 8), nn.Linear(8, 1)
        history = namespace["train_mode_regularized"](enc, gen, crit, [torch.randn(5, 8) for _ in range(3)])
        assert len(history) == 3
        return enc.weight.detach().clone()

    # The fix TCL003 used to offer, `encoder(real).detach()` in the joint loss, changes what the
    # encoder learns: that loss is the encoder's own, not a discriminator's.
    detached = body.replace("recon = generator(encoder(real))", "recon = generator(encoder(real).detach())")
    assert detached != body
    assert not torch.equal(encoder_after_training(body), encoder_after_training(detached))


def test_the_discriminator_step_beside_a_mode_regularised_generator_is_still_reported():
    torch = pytest.importorskip("torch")
    flagged = next(e for e in page_examples(CODE) if e.kind == "flagged" and "G_sample_reg = G(E(X))" in e.source)
    [finding] = tcl003(flagged.source)
    assert finding.location.line == 20 and "`D(G_sample)`" in finding.message

    def run(source: str):
        torch.manual_seed(0)
        namespace = {"__name__": "tcl003_mrgan"}
        exec(compile(source, "<TCL003 mode-regularised GAN>", "exec"), namespace)  # noqa: S102
        grads = []
        original = namespace["D_solver"].step

        def step(*args, **kwargs):  # what the discriminator's backward left in the generator
            grads.append(namespace["G"][0].weight.grad)
            return original(*args, **kwargs)

        namespace["D_solver"].step = step
        losses = namespace["train_step"](torch.rand(6, 8))
        return losses, grads[0]

    (losses, g_grad) = run(flagged.source)
    fixed = flagged.source.replace("torch.log(1 - D(G_sample)))", "torch.log(1 - D(G_sample.detach())))")
    assert fixed != flagged.source
    (fixed_losses, fixed_g_grad) = run(fixed)
    assert g_grad is not None and g_grad.abs().sum() > 0  # as written: a backward through the generator
    assert fixed_g_grad is None or fixed_g_grad.abs().sum() == 0  # fixed: none
    assert losses == fixed_losses  # and the same losses


def test_retain_variables_is_the_pre_0_4_spelling_of_retain_graph():
    """Tutorials still write `backward(retain_variables=True)`: the graph is kept, so the second
    backward does not fail with "a second time" (what fails is the weights changed in place)."""
    template = textwrap.dedent("""\
        import torch
        from torch import nn

        G = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8))
        D = nn.Sequential(nn.Linear(8, 1))
        opt_g = torch.optim.Adam(G.parameters())
        opt_d = torch.optim.Adam(D.parameters())


        def step(real):
            fake = G(torch.randn(real.size(0), 4))
            d_fake = D(fake)
            opt_d.zero_grad()
            d_loss = d_fake.mean() - D(real).mean()
            d_loss.backward(KEYWORD)
            opt_d.step()
            opt_g.zero_grad()
            g_loss = -d_fake.mean()
            g_loss.backward()
            opt_g.step()
        """)

    def message(keyword: str) -> str:
        [found] = [d for d in lint_source(template.replace("KEYWORD", keyword), "<x>") if d.code == CODE]
        return found.message

    assert "a second time" in message("")
    assert message("retain_variables=True") == message("retain_graph=True")
    assert "modified by an inplace operation" in message("retain_variables=True") \
        or "changed the weights it saved" in message("retain_variables=True")


@pytest.mark.parametrize("switch, flagged", [
    ("for p in G.parameters():\n        p.requires_grad_(False)", False),  # the method form in the loop
    ("for p in G.parameters():\n        p.requires_grad = False", False),
    ("for p in G.parameters():\n        p.requires_grad_(True)", True),     # switched on: nothing frozen
    # The step's own network frozen: it trains nothing of it, no discriminator's step (fresh74's TimeGAN,
    # whose optimizers are built over each other's networks).
    ("for p in D.parameters():\n        p.requires_grad_(False)", False),
    ("[p.requires_grad_(False) for p in G.parameters()]", False),          # a comprehension (fresh72's WGAN-GP)
    ("[p.requires_grad_(False) for p in D.parameters()]", False),
])
def test_generator_frozen_by_a_loop_over_its_parameters_is_silent(switch, flagged):
    source = (
        "def train_step(G, D, opt_d, z, real):\n"
        f"    {switch}\n"
        "    fake = G(z)\n"
        "    d_loss = D(fake).mean() - D(real).mean()\n"
        "    opt_d.zero_grad()\n"
        "    d_loss.backward()\n"
        "    opt_d.step()\n"
    )
    assert bool(tcl003(source)) is flagged, tcl003(source)


@pytest.mark.parametrize("frozen, flagged", [
    ("G", False),          # the whole network that holds the generator (fresh70's VAE-GAN: `G.decoder`)
    ("G.decoder", False),
    ("G.encoder", True),   # a sibling part: the decoder's parameters stay on
])
def test_a_generator_part_whose_holding_network_a_helper_freezes_is_silent(frozen, flagged):
    source = (
        "import torch\n"
        "\n\n"
        "def frozen_params(module):\n"
        "    for p in module.parameters():\n"
        "        p.requires_grad = False\n"
        "\n\n"
        "def train(G, D, batches):\n"
        "    opt_dec = torch.optim.RMSprop(G.decoder.parameters())\n"
        "    opt_dis = torch.optim.RMSprop(D.parameters())\n"
        "    for noise, real in batches:\n"
        "        fake = G.decoder(noise)\n"
        f"        frozen_params({frozen})\n"
        "        d_loss = D(fake).mean() - D(real).mean()\n"
        "        opt_dis.zero_grad()\n"
        "        d_loss.backward()\n"
        "        opt_dis.step()\n"
        "        g_loss = -D(G.decoder(noise)).mean()\n"
        "        opt_dec.zero_grad()\n"
        "        g_loss.backward()\n"
        "        opt_dec.step()\n"
    )
    assert bool(tcl003(source)) is flagged, tcl003(source)


DETACHED_SCORES = """\
import torch
from torch import nn


class Trainer:
    def __init__(self):
        self.generator = nn.Linear(4, 4)
        self.discriminator = nn.Linear(4, 1)
        self.opt_d = torch.optim.Adam(self.discriminator.parameters())

    def discriminator_step(self, real, z):
        fake = self.generator(z)
        fake_pred = self.discriminator(fake).reshape(-1)
        real_pred = self.discriminator(real).reshape(-1)
        loss_fake = -torch.mean(torch.min(-fake_pred.detach() - 1, torch.zeros_like(fake_pred)))
        loss_real = -torch.mean(torch.min(real_pred - 1, torch.zeros_like(real_pred)))
        d_loss = (loss_fake + loss_real) * 0.5
        self.opt_d.zero_grad()
        d_loss.backward()
        self.opt_d.step()
        return self.generator.weight.grad
"""


def test_a_fake_score_detached_in_the_loss_and_a_target_made_like_it_reach_no_generator():
    # GauGAN's hinge loss as one repository wrote it: the score of the fake is detached where the loss
    # reads it, and `torch.zeros_like(fake_pred)` is a target of its shape, not its values.
    torch = pytest.importorskip("torch")
    assert tcl003(DETACHED_SCORES) == []
    namespace: dict = {}
    exec(compile(DETACHED_SCORES, "<detached scores>", "exec"), namespace)  # noqa: S102
    trainer = namespace["Trainer"]()
    assert trainer.discriminator_step(torch.randn(3, 4), torch.randn(3, 4)) is None  # the generator got nothing
    # The score read as it is: the discriminator's backward reaches the generator, and it is reported.
    undetached = DETACHED_SCORES.replace("-fake_pred.detach() - 1", "-fake_pred - 1")
    assert [finding.location.line for finding in tcl003(undetached)] == [13]
    trainer = {}
    exec(compile(undetached, "<undetached scores>", "exec"), trainer)  # noqa: S102
    assert trainer["Trainer"]().discriminator_step(torch.randn(3, 4), torch.randn(3, 4)).abs().sum() > 0


@pytest.mark.parametrize("source", [
    # fresh25's ESRGAN: the penalty of another module may detach the fake (it does, `fake.detach()`
    # inside); the discriminator's own input is detached.
    """
    import torch
    from utils import gradient_penalty

    def train(loader, gen, disc, opt_gen, opt_disc):
        for low, high in loader:
            fake = gen(low)
            loss = disc(fake.detach()).mean() - disc(high).mean() + 10 * gradient_penalty(disc, high, fake)
            opt_disc.zero_grad()
            loss.backward()
            opt_disc.step()
            g_loss = -disc(fake).mean()
            opt_gen.zero_grad()
            g_loss.backward()
            opt_gen.step()
    """,
    # fresh34's conditional CycleGAN: the pool of another module's class kept on the object, whose
    # `query` hands back detached copies of the fake and the attributes it is given.
    """
    import torch
    from util.image_pool import AttrImagePool

    class Model:
        def __init__(self, netG, netD):
            self.netG, self.netD = netG, netD
            self.fake_pool = AttrImagePool(50)
            self.optimizer_D = torch.optim.Adam(netD.parameters())
            self.optimizer_G = torch.optim.Adam(netG.parameters())

        def backward_D(self, real, attr):
            fake = self.netG(real)
            pooled, pooled_attr = self.fake_pool.query(fake, attr)
            loss = self.netD(pooled.detach(), pooled_attr).mean() - self.netD(real, attr).mean()
            self.optimizer_D.zero_grad()
            loss.backward()
            self.optimizer_D.step()
    """,
    # fresh25's GatedGAN: a replay buffer of another module's class (which keeps `data.data`).
    """
    import torch
    from data import ReplayBuffer

    buffer = ReplayBuffer()

    def train(loader, generator, discriminator, opt_g, opt_d):
        for real, _ in loader:
            fake = buffer.push_and_pop(generator(real))
            d_loss = discriminator(fake).mean() - discriminator(real).mean()
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
    """,
    # fresh27's VAE-GAN: the penalty comes in by `from utils.gradient import *` (it makes a new leaf of
    # the interpolates, `Variable(interpolates, requires_grad=True)`, cut from the generator).
    """
    import torch
    from utils.gradient import *

    def train(loader, netG, netD, optimizerD):
        for real in loader:
            fake = netG(torch.randn(8, 128))
            loss = netD(fake.detach()).mean() - netD(real).mean() + calc_gradient_penalty(netD, real, fake)
            netD.zero_grad()
            loss.backward()
            optimizerD.step()
    """,
], ids=["imported-penalty", "imported-pool-on-the-object", "imported-replay-buffer", "star-imported-penalty"])
def test_a_fake_handed_to_code_of_another_module_is_not_judged(source):
    # What a function or an object of another module returns of the fake batch cannot be read here.
    assert lines(source) == []


def test_a_star_import_leaves_the_file_own_functions_and_builtins_followed():
    # `from utils import *` beside a penalty written in the file: the file's own code is read.
    source = """
    import torch
    from utils import *

    def penalty(D, real, fake):
        return sum([D(real).mean(), D(fake).mean()])

    def train(loader, netG, netD, optimizerD):
        for real in loader:
            fake = netG(torch.randn(8, 128))
            loss = netD(fake.detach()).mean() + penalty(netD, real, fake)
            netD.zero_grad()
            loss.backward()
            optimizerD.step()
    """
    assert len(lines(source)) == 1


def test_a_fake_through_a_replay_buffer_of_the_file_is_still_followed():
    # The same buffer written in the file, keeping the graph: the discriminator's backward reaches G.
    source = """
    import torch

    class ReplayBuffer:
        def __init__(self):
            self.data = []

        def push_and_pop(self, images):
            self.data.append(images)
            return images

    buffer = ReplayBuffer()

    def train(loader, generator, discriminator, opt_g, opt_d):
        for real, _ in loader:
            fake = buffer.push_and_pop(generator(real))
            d_loss = discriminator(fake).mean() - discriminator(real).mean()
            opt_d.zero_grad()
            d_loss.backward()
            opt_d.step()
    """
    assert len(lines(source)) == 1


ADVERSARIAL_PAIRING = """\
import torch
from torch import nn


def epoch_alp(loader, model, attack, opt, weight=0.5):
    for X, y in loader:
        model.eval()
        with torch.no_grad():
            clean = model(X)
        delta = attack(model, X, y)
        model.train()
        prediction = model(X + delta)
        loss = nn.CrossEntropyLoss()(prediction, y) + weight * nn.MSELoss()(prediction, clean)
        opt.zero_grad()
        loss.backward()
        opt.step()
"""


def test_an_attack_handed_the_trained_network_is_no_generator():
    # Adversarial logit pairing: `attack(model, X, y)` computes a perturbation against the network the
    # step trains; there is no generator, and detaching the perturbation changes nothing anyone trains.
    assert lines(ADVERSARIAL_PAIRING) == []
    generator = ADVERSARIAL_PAIRING.replace("attack(model, X, y)", "attack(X, y)")
    assert lines(generator) == [12]  # a callable argument of unknown kind fed to the model: a generator


def test_an_attribute_set_from_itself_is_followed_once():
    # fresh33's prioritized DQN: `self.beta = min(1.0, self.beta + 4e-6)`, read before the backward through
    # `sample = self.buffer.sample(..., beta=self.beta)`. Following `self.beta` back to where it was set
    # found the same assignment again and again: a RecursionError, which lost the whole file (TCL900).
    source = """
        import torch
        import torch.optim as optim


        class Agent:
            def __init__(self, q, beta=0.4):
                self.q = q
                self.beta = beta
                self.optimizer = optim.Adam(self.q.parameters())

            def learn(self):
                sample = self.buffer.sample(32, beta=self.beta)
                self.beta = min(1.0, self.beta + 4e-6)
                obs = torch.Tensor(sample["obs"])
                loss = (torch.Tensor(sample["weights"]) * self.q(obs) ** 2).mean()
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
    """
    assert [d.code for d in lint_source(textwrap.dedent(source), "<x>")] == []


def test_a_network_built_and_handed_to_a_step_that_samples_its_noise_is_no_generator_output():
    # The step calls a method of the generator it is handed (`G.sample_noise(n)`), so what the
    # discriminator judges derives from that argument; the caller hands it the network it built,
    # `Generator(16)`, which is no output of the generator (found writing a --verify fixture). The
    # step's own undetached `D(fake)` is reported, once.
    source = """
    import torch
    from torch import nn


    class Generator(nn.Module):
        def __init__(self, latent_dim):
            super().__init__()
            self.latent_dim = latent_dim
            self.net = nn.Linear(latent_dim, 4)

        def sample_noise(self, count):
            return torch.randn(count, self.latent_dim)

        def forward(self, z):
            return self.net(z)


    def train_step(G, D, real, opt_d):
        fake = G(G.sample_noise(real.size(0)))
        loss = D(real).mean() - D(fake).mean()
        opt_d.zero_grad()
        loss.backward()
        opt_d.step()


    def fit(loader):
        G = Generator(16)
        D = nn.Linear(4, 1)
        opt_d = torch.optim.SGD(D.parameters(), lr=0.1)
        for real in loader:
            train_step(G, D, real, opt_d)
    """
    assert lines(source) == [21]


def test_fakes_detached_one_by_one_in_a_comprehension_handed_to_a_step_helper_are_detached():
    # A multi-scale generator returns a list of images; the discriminator step's helper is handed
    # `[fi.detach() for fi in fakes]` (silent), or the images themselves (reported).
    source = textwrap.dedent("""\
        import torch

        def train_d(net, data):
            pred = net(data)
            err = torch.relu(1 + pred).mean()
            err.backward()

        def train(gen_net, dis_net, loader):
            dis_optimizer = torch.optim.Adam(dis_net.parameters())
            gen_optimizer = torch.optim.Adam(gen_net.parameters())
            for noise in loader:
                fake_images = gen_net(noise)
                dis_net.zero_grad()
                train_d(dis_net, [fi.detach() for fi in fake_images])
                dis_optimizer.step()
                gen_net.zero_grad()
                g_loss = -dis_net(fake_images).mean()
                g_loss.backward()
                gen_optimizer.step()
        """)
    assert lines(source) == []
    assert lines(source.replace("[fi.detach() for fi in fake_images]", "[fi for fi in fake_images]")) == [4]


LIST_FED_DISCRIMINATOR = """
import torch
from torch import nn

generator = nn.Linear(4, 4)


class PairDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 1)

    def forward(self, pair):
        return self.lin(torch.cat(pair, 1))


netD = PairDiscriminator()
optD = torch.optim.Adam(netD.parameters())
optG = torch.optim.Adam(generator.parameters())


def train(real, all_time, epochs):
    for _ in range(epochs):
        fake = generator(torch.randn(2, 4))
        y_fake = netD([fake, all_time])
        y_real = netD([real, all_time])
        loss_d = -(torch.mean(y_real) - torch.mean(y_fake))
        optD.zero_grad()
        loss_d.backward()
        optD.step()
        both = netD((fake, fake * 2))
        both.mean().backward()
        optD.step()
"""


def test_a_discriminator_fed_a_list_gets_the_generator_s_element_detached_never_the_list():
    # A tabular GAN's `discriminator([fake_cat, all_time])` (fresh53): the fix was `([fake_cat,
    # all_time]).detach()`, which a list does not have.
    findings = [d for d in lint_source(LIST_FED_DISCRIMINATOR, "gan.py") if d.code == "TCL003"]
    assert [(d.location.line, d.location.column) for d in findings] == [(25, 24), (31, 22)], findings
    result = fixed(LIST_FED_DISCRIMINATOR)
    assert "y_fake = netD([fake.detach(), all_time])" in result
    assert "both = netD((fake.detach(), (fake * 2).detach()))" in result


def _step_after(call: str) -> str:
    """A discriminator step of a generator's fake, after `call` (a helper imported with `*`)."""
    return _discriminator_step(call, imports="from utils import *")


@pytest.mark.parametrize("switch", [
    "toggle_grad(G, False)",                           # a helper of another module (`from utils import *`)
    "set_requires_grad([G], requires_grad=False)",     # its flag given by keyword
    "toggle_grad(G, False or mode == 'simultaneous')",  # a flag the analysis cannot read: maybe off
    "freeze(G)",                                       # one way always, by its name (fresh74's inversion attack)
    "freeze_params(G)",
    "toggle_grad(D, False)",                           # the step's own network off: no discriminator's step
    "freeze(D)",
])
def test_an_imported_switching_helper_silences_the_step_it_switches_the_generator_off_for(switch):
    # fresh60's time-domain GANs: `toggle_grad(self.G, False)` from a star-imported module, fifteen
    # discriminator steps flagged whose fakes carried no graph at all.
    assert lines(_step_after(switch)) == []


@pytest.mark.parametrize("call", [
    "toggle_grad(G, True)",        # switched on: the fake carries the generator's graph
    "log_grad(G, False)",          # a name that says nothing of switching
    "unfreeze(G)",                 # switched on
    "freeze_bn(G)",                # batch-norm statistics, not parameters
    "freeze_bn(D)",
])
def test_a_helper_that_leaves_the_generator_on_keeps_the_finding(call):
    assert len(lines(_step_after(call))) == 1


@pytest.mark.parametrize("scheduler", [
    "torch.optim.lr_scheduler.ReduceLROnPlateau(opt_d, mode='min')",
    "torch.optim.lr_scheduler.StepLR(opt_d, step_size=10)",
    "CosineLRScheduler(opt_d, t_initial=100)",
])
def test_a_scheduler_of_the_discriminator_s_optimizer_is_no_discriminator_step(scheduler):
    # fresh76's VAE-GAN: the encoder-decoder step reads the discriminator's features of the decoded
    # images (its loss is meant to train the decoder), and `scheduler_disc.step(avg_d_loss)` after the
    # epoch was taken for the discriminator's optimizer stepping on that backward.
    source = f"""
    import torch
    import torch.nn.functional as F


    def train(model, loader, epochs):
        opt_e = torch.optim.Adam(model.encoder.parameters())
        opt_g = torch.optim.Adam(model.decoder.parameters())
        opt_d = torch.optim.Adam(model.discriminator.parameters())
        scheduler_d = {scheduler}
        for epoch in range(epochs):
            for real in loader:
                opt_d.zero_grad()
                fake = model.decoder(model.encoder(real))
                d_loss = model.discriminator(fake.detach()).mean() - model.discriminator(real).mean()
                d_loss.backward()
                opt_d.step()

                opt_g.zero_grad()
                g_loss = -model.discriminator(fake).mean()
                g_loss.backward()
                opt_g.step()

                opt_e.zero_grad()
                opt_g.zero_grad()
                fake = model.decoder(model.encoder(real))
                vae_loss = F.mse_loss(model.discriminator(fake), model.discriminator(real))
                vae_loss.backward()
                opt_e.step()
                opt_g.step()
            scheduler_d.step(d_loss.item())
    """
    assert lines(source) == []  # fd86a9c flagged line 27: "the backward at line 28 for `scheduler_d`"


def test_a_fake_batch_made_of_the_generator_s_argmax_carries_none_of_its_graph():
    # fresh92 HuuTaiNg: a segmentation generator whose class map (`argmax`, integers) is what the
    # discriminator judges; the backward cannot reach the generator, whatever `.float()` follows.
    source = textwrap.dedent("""
        import torch
        from torch import nn


        def train(G, D, loader):
            bce = nn.BCEWithLogitsLoss()
            opt_g = torch.optim.Adam(G.parameters())
            opt_d = torch.optim.Adam(D.parameters())
            for image, mask in loader:
                seg = G(image)
                fake_map = seg.argmax(dim=1, keepdim=True).float()
                d_loss = bce(D(mask), torch.ones(mask.size(0), 1)) + bce(D(fake_map), torch.zeros(mask.size(0), 1))
                opt_d.zero_grad()
                d_loss.backward()
                opt_d.step()
                g_loss = nn.functional.cross_entropy(seg, mask.squeeze(1).long())
                opt_g.zero_grad()
                g_loss.backward()
                opt_g.step()
    """)
    assert tcl003(source) == []
    attached = source.replace("seg.argmax(dim=1, keepdim=True).float()", "seg.softmax(dim=1)[:, 1:]")
    assert [d.location.line for d in tcl003(attached)] == [line_of(attached, "d_loss = bce(")]


GAN_RESHAPED = """
    import torch
    from torch import nn

    G = nn.Linear(4, 4)
    D = nn.Linear(4, 1)
    opt_d = torch.optim.Adam(D.parameters())
    opt_g = torch.optim.Adam(G.parameters())

    def train(z):
        recon = G(z)
        fake = ({fed} * 2 - 1).reshape({sizes})
        d_loss = D(fake).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        g_loss = -D(recon).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
"""


@pytest.mark.parametrize("sizes", ["-1, *recon.shape[-1:]", "recon.size(0), -1", "recon.shape[0], recon.dim() * 4"])
def test_the_generator_output_read_only_for_its_shape_feeds_no_graph(sizes):
    # The detached fake is reshaped to the generator output's own shape: only numbers come from it.
    assert lines(GAN_RESHAPED.format(fed="recon.detach()", sizes=sizes)) == []
    assert lines(GAN_RESHAPED.format(fed="recon", sizes=sizes)) == [13]


def test_a_penalty_that_wraps_its_input_in_a_variable_imported_inside_it_feeds_a_leaf():
    # fresh111's WGAN-GP penalty: `from torch import autograd` inside the function, beside `import torch` at
    # the top; `autograd.Variable(interpolates, requires_grad=True)` is a new leaf, no path to the generator.
    source = """
        import torch
        import torch.nn.functional as F


        def train(generator, discriminator, dataset):
            disc_adam = torch.optim.Adam(discriminator.parameters(), lr=.02)
            gen_adam = torch.optim.Adam(generator.parameters(), lr=.005)
            for images, labels in dataset:
                disc_adam.zero_grad()
                fake = generator(torch.randn(len(images), 8))
                disc_loss = torch.mean(F.softplus(discriminator(fake.detach())))
                disc_loss.backward()
                gp_loss = penalty(discriminator, images, fake)
                gp_loss.backward()
                disc_adam.step()
                gen_adam.zero_grad()
                gen_loss = torch.mean(F.softplus(discriminator(fake)))
                gen_loss.backward()
                gen_adam.step()


        def penalty(discriminator, real_data, fake_data):
            from torch import autograd
            interpolates = torch.cat([real_data, fake_data])
            interpolates = autograd.Variable(interpolates, requires_grad=True)
            out = discriminator(interpolates)
            grads = autograd.grad(outputs=out, inputs=interpolates, grad_outputs=torch.ones_like(out),
                                  create_graph=True)[0]
            return ((grads.norm(2, dim=1) - 1) ** 2).mean()
    """
    assert lines(source) == []
    assert len(lines(source.replace("autograd.Variable(interpolates, requires_grad=True)", "interpolates"))) == 1


def test_reading_the_discriminator_s_own_gradients_after_its_backward_still_reports():
    # The silence is for a study of the generator's gradient (fresh114): a norm of the discriminator's
    # own `.grad` (any training log has one) says nothing of why the backward reaches the generator.
    source = """
    import torch
    from torch import nn

    G, D = nn.Linear(4, 8), nn.Linear(8, 1)
    opt_g = torch.optim.Adam(G.parameters())
    opt_d = torch.optim.SGD(D.parameters(), lr=0.01)
    for step in range(3):
        real, z = torch.randn(16, 8), torch.randn(16, 4)
        fake = G(z)
        d_loss = D(fake).mean() - D(real).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()
        norm = torch.norm(torch.cat([p.grad.view(-1) for p in D.parameters()]))
    """
    assert lines(source) == [11]
    assert lines(source.replace("for p in D.parameters()", "for p in G.parameters()")) == []

"""The shared facts behind TCL005's silences and TCL008's loader batches, asked directly.

- placement.integral_use: what the uses of a name say of its dtype ("sure" / "likely" / None);
- loaders.batch_of / batch_expression: batches of data loaders and their parts, how sure;
- autograd.never_requires_grad with and without `likely`: the sure reading (graphs.py) does not
  take the likely answers (labels by a cross-entropy target, loader batches, a network's output
  under no-grad, callers' arguments);
- facts.call_sites_of: the module's calls of its own functions, None where not all are in sight.
"""

from __future__ import annotations

import textwrap

import pytest

import libcst as cst

from torchcopylint.analysis.facts import ModuleFacts

SOURCE = textwrap.dedent("""
    import itertools

    import torch
    import torch.nn.functional as F
    from torch import nn
    from torch.utils.data import DataLoader

    loss_fn = nn.NLLLoss()


    def uses(x, out, index, hard, soft, compared, cast, moved, other, regression, y):
        picked = x[index]
        hard_loss = F.nll_loss(out, hard)
        soft_loss = F.cross_entropy(out, soft)
        correct = (out.argmax(1) == compared).sum()
        as_long = cast.long()
        moved = moved.to("cpu")
        gathered = x.gather(1, moved)
        module_loss = loss_fn(out, y)
        reg = F.mse_loss(out, regression)
        return picked, hard_loss, soft_loss, correct, as_long, gathered, other, reg, module_loss


    def batches(dataset, train_loader, things, collate):
        built = DataLoader(dataset, batch_size=4)
        for a, b in built:
            pass
        for i, (c, d) in enumerate(train_loader):
            pass
        for e, f in things:
            pass
        for whole in built:
            pass
        g, h = next(iter(train_loader))
        first = whole[0]
        moved = a.to("cpu")
        for n, (cycled, _) in enumerate(itertools.cycle(built)):
            pass
        return a, b, c, d, e, f, whole, g, h, first, moved, cycled


    def no_grad_made(model, x, w):
        with torch.no_grad():
            feats = model(x)
            doubled = x * 2
            row = w[0]
        grads = torch.autograd.grad(x.sum(), w)
        kept, = torch.autograd.grad(x.sum(), w, create_graph=True)
        return feats, doubled, row, grads[0], kept


    def helper(t):
        return t


    def passed_on(t):
        return t


    def escaped(t):
        return t


    def caller(model, x, train_loader):
        helper(x.detach())
        for images, labels in train_loader:
            helper(images)
        passed_on(model(x))
        return map(escaped, [x])
""")


def _facts():
    return ModuleFacts(cst.parse_module(SOURCE), "facts.py", SOURCE)


def _function(facts, name):
    return next(f for f in facts.all_functions() if f.name == name)


def _param(function, name):
    return next(b for b in function.parameters if b.name == name)


def _returned(function):
    """The names of the function's `return a, b, ...`, as read there."""
    statement = next(node for node in function.statement_order if isinstance(node, cst.Return))
    return {element.value.value: element.value for element in statement.value.elements
            if isinstance(element.value, cst.Name)}


def test_integral_use_from_each_kind_of_use():
    facts = _facts()
    function = _function(facts, "uses")
    said = {name: facts.placement.integral_use(_param(function, name), function)
            for name in ("index", "hard", "soft", "compared", "cast", "moved", "other", "regression", "y")}
    assert said == {"index": "sure", "hard": "sure", "soft": "likely", "compared": "likely", "cast": "likely",
                    "moved": "sure", "other": None, "regression": None, "y": "sure"}


def test_loader_batches_and_how_sure():
    facts = _facts()
    function = _function(facts, "batches")
    read = _returned(function)
    batches = {name: facts.loaders.batch_expression(node, function) for name, node in read.items()}
    assert batches["a"].surely_tensor and batches["b"].surely_tensor, "parts of a DataLoader built in sight"
    assert batches["c"] is not None and not batches["c"].surely_tensor, "parts of a loader known by its name"
    assert not batches["c"].loader.sure and batches["c"].loader.shown == "train_loader"
    assert batches["e"] is None and batches["f"] is None, "`things` is not a loader"
    assert batches["whole"].whole and not batches["whole"].surely_tensor
    assert batches["g"] is not None and not batches["g"].whole, "unpacked from next(iter(loader))"
    assert batches["first"].surely_tensor, "a constant subscript of a whole batch"
    assert batches["moved"].surely_tensor, "a tensor method of a part"
    assert batches["cycled"].surely_tensor, "itertools.cycle over a loader yields its batches"


def test_a_file_with_a_collate_of_its_own_says_nothing_of_loaders_known_by_name():
    """A function handed `data_loader` may be handed the file's `DataLoader(..., collate_fn=...)`, whose
    batches hold what the collate makes (labels as a list: fresh79's distillation scripts)."""
    source = textwrap.dedent("""
        from torch.utils.data import DataLoader

        def batches(dataset, train_loader, collate):
            custom = DataLoader(dataset, collate_fn=collate)
            for k, m in custom:
                pass
            for c, d in train_loader:
                pass
            return k, c
    """)
    facts = ModuleFacts(cst.parse_module(source), "collate.py", source)
    function = _function(facts, "batches")
    batches = {name: facts.loaders.batch_expression(node, function) for name, node in _returned(function).items()}
    assert batches["k"] is not None and not batches["k"].surely_tensor, "a collate_fn of its own"
    assert batches["c"] is None, "`train_loader` may be the loader with the collate of its own"


def test_likely_answers_stay_out_of_the_sure_reading():
    facts = _facts()
    uses = _function(facts, "uses")
    autograd = facts.autograd
    soft = _param(uses, "soft")
    hard = _param(uses, "hard")
    assert autograd._binding_never(hard, uses) and autograd._binding_never(hard, uses, True)
    assert not autograd._binding_never(soft, uses) and autograd._binding_never(soft, uses, True)

    batches = _function(facts, "batches")
    names = _returned(batches)
    assert not autograd.never_requires_grad(names["a"], batches)
    assert autograd.never_requires_grad(names["a"], batches, likely=True)
    assert not autograd.never_requires_grad(names["e"], batches, likely=True)

    made = _function(facts, "no_grad_made")
    returned = next(node for node in made.statement_order if isinstance(node, cst.Return))
    feats, doubled, row, grad, kept = (element.value for element in returned.value.elements)
    assert not autograd.never_requires_grad(feats, made) and autograd.never_requires_grad(feats, made, likely=True)
    assert autograd.never_requires_grad(doubled, made), "arithmetic under no-grad: surely a new tensor"
    assert not autograd.never_requires_grad(row, made, likely=True), "a view keeps the flag"
    assert autograd.never_requires_grad(grad, made), "gradients without create_graph"
    assert not autograd.never_requires_grad(kept, made, likely=True), "create_graph=True"


def test_call_sites_and_arguments_passed():
    facts = _facts()
    helper = _function(facts, "helper")
    passed_on = _function(facts, "passed_on")
    escaped = _function(facts, "escaped")
    sites = facts.call_sites_of(helper)
    assert [call.args[0].value for _, call, _ in sites] and len(sites) == 2
    assert facts.call_sites_of(escaped) is None, "handed on to map(): not all calls are in sight"
    assert len(facts.call_sites_of(passed_on)) == 1
    autograd = facts.autograd
    assert autograd._binding_never(_param(helper, "t"), helper, True), "a detached tensor and a loader batch"
    assert not autograd._binding_never(_param(helper, "t"), helper), "other files may call it otherwise"
    assert not autograd._binding_never(_param(passed_on, "t"), passed_on, True), "a network's output"
    assert not autograd._binding_never(_param(escaped, "t"), escaped, True)


def test_a_private_method_is_called_by_its_class_only():
    # fresh33's style transfer: `self.__im_convert(self.__target.data, i)`. A name Python mangles is no
    # dunder that Python calls for the user: its calls in the class are all there are, and what they
    # pass (`.data`) says its argument never requires grad.
    source = textwrap.dedent("""
        import torch


        class Transfer:
            def __convert(self, tensor):
                return tensor.to("cpu").clone().detach()

            def __len__(self):
                return 1

            def run(self, target):
                shown = target.data
                return self.__convert(shown)
    """)
    facts = ModuleFacts(cst.parse_module(source), "private.py", source)
    convert = _function(facts, "__convert")
    assert facts.call_sites_of(convert) is not None and len(facts.call_sites_of(convert)) == 1
    assert facts.autograd._binding_never(_param(convert, "tensor"), convert, True)
    assert facts.call_sites_of(_function(facts, "__len__")) is None, "Python calls a dunder, out of sight"


def test_a_tensor_detached_in_place_on_every_path_before_the_copy_records_nothing():
    from torchcopylint.engine import lint_source

    # An attack's `x_adv.detach_()` after its gradient step: the clone after it records no node. Under
    # an `if`, or before a rebinding that requires grad again, it says nothing of the copy.
    source = textwrap.dedent("""\
        import torch
        import torch.nn.functional as F

        def attack(model, x, y, flag):
            x_adv = x.clone().requires_grad_()
            loss = F.cross_entropy(model(x_adv), y)
            grad = torch.autograd.grad(loss, [x_adv])[0]
            x_adv.detach_()
            kept = x_adv.clone().detach()
            if flag:
                loss.detach_()
            logged = loss.clone().detach()
            x_adv.detach_()
            x_adv = model(x_adv)
            out = x_adv.clone().detach()
            return kept, logged, out, grad
        """)
    flagged = [d.location.line for d in lint_source(source, "attack.py") if d.code == "TCL005"]
    assert flagged == [12, 15], flagged


def test_a_tensor_an_if_found_not_to_require_grad_records_nothing_in_that_branch():
    from torchcopylint.engine import lint_source

    # A PINN's `as_leaf`: the copy in the `else` of `if out.requires_grad:` (or under `if not ...`) is of
    # a tensor the code just saw needs no grad. The other branch, a value the branch binds itself, and a
    # test that is not on `requires_grad` say nothing.
    source = textwrap.dedent("""\
        import torch

        def as_leaf(out, other, flag):
            if out.requires_grad:
                a = out.clone().detach()
            else:
                b = out.clone().detach().requires_grad_(True)
            if not other.requires_grad:
                c = other.clone().detach()
                other = other * torch.ones(2, requires_grad=True)
                d = other.clone().detach()
            if flag:
                pass
            else:
                e = out.clone().detach()
            return a, b, c, d, e

        def use(model, images, flag):
            return as_leaf(model(images), model(images), flag)
        """)
    flagged = [d.location.line for d in lint_source(source, "leaf.py") if d.code == "TCL005"]
    assert flagged == [5, 11, 15], flagged


def test_a_tensor_a_conditional_expression_found_not_to_require_grad_records_nothing_in_that_branch():
    from torchcopylint.engine import lint_source

    # `x if x.requires_grad else x.clone().detach()...`: the copy runs only where `x` needs no grad. The
    # other branch, and a test on another name, say nothing.
    source = textwrap.dedent("""\
        import torch

        def as_leaf(x, y):
            a = x if x.requires_grad else x.clone().detach().requires_grad_(True)
            b = y if not y.requires_grad else y.clone().detach()
            c = x.clone().detach() if x.requires_grad else x
            d = x if y.requires_grad else x.clone().detach()
            e = y.clone().detach() if not y.requires_grad else y
            return a, b, c, d, e

        def use(model, images):
            return as_leaf(model(images), model(images))
        """)
    flagged = [d.location.line for d in lint_source(source, "leaf.py") if d.code == "TCL005"]
    assert flagged == [5, 6, 7], flagged


def test_a_parameter_declared_a_number_is_very_likely_free_of_autograd():
    # `momentum: float = 0.0`, `alpha=0.01`: numbers, in the likely reading (an MI-FGSM loop's
    # `velocity = momentum * velocity + grad` then keeps no graph). A tensor annotation, a default of
    # None or no default at all say nothing; the sure reading never takes an annotation's word.
    source = textwrap.dedent("""\
        import torch

        def step(bare, momentum: float = 0.0, alpha=0.01, count: int = 3, weight: torch.Tensor = None, other=None):
            return momentum, alpha, count, weight, other, bare
        """)
    facts = ModuleFacts(cst.parse_module(source), "step.py", source)
    step = _function(facts, "step")
    likely = {name: facts.autograd._binding_never(_param(step, name), step, True)
              for name in ("momentum", "alpha", "count", "weight", "other", "bare")}
    assert likely == {"momentum": True, "alpha": True, "count": True, "weight": False, "other": False,
                      "bare": False}
    assert not facts.autograd._binding_never(_param(step, "momentum"), step, False)


def test_a_class_built_by_name_in_the_file_passes_its_arguments_to_its_init():
    from torchcopylint.engine import lint_source

    # The neural-style tutorial: the normalisation constants reach `__init__` through two functions and
    # the class's own name; `super(Normalization, self)` names the class, and calls nothing.
    source = textwrap.dedent("""\
        import torch
        from torch import nn

        mean0 = torch.tensor([0.485, 0.456, 0.406])


        class Normalization(nn.Module):
            def __init__(self, mean):
                super(Normalization, self).__init__()
                self.mean = mean.clone().detach().view(-1, 1, 1)


        def build(norm_mean):
            return Normalization(norm_mean)


        model = build(mean0)
        """)
    assert [d.code for d in lint_source(source, "style.py")] == []
    # Built once from a value that requires grad: reported. Extended by another class of the file (whose
    # `super().__init__(...)` calls are not in sight as calls): an argument nothing in sight shows, silent.
    learned = source.replace("model = build(mean0)", "model = build(torch.randn(3, requires_grad=True))")
    assert [d.code for d in lint_source(learned, "style.py")] == ["TCL005"]
    extended = source + "\n\nclass Scaled(Normalization):\n    pass\n"
    assert [d.code for d in lint_source(extended, "style.py")] == []


def test_a_global_made_without_grad_and_handed_to_a_constructor_records_nothing_when_copied():
    from torchcopylint.engine import lint_source

    # The style-transfer tutorial's `Normalization(mean, std)`: every call passes top-level constants
    # (read directly, or handed on by a function the top level calls). A global made to require grad and
    # a global a function rebinds with `global` (to what it computes from an argument) stay reported; an
    # argument no call shows is silent (its own test below), and so is a global rebound to it as it is.
    source = textwrap.dedent("""\
        import torch
        from torch import nn

        mean = torch.tensor([0.485, 0.456, 0.406])
        std = torch.tensor([0.229, 0.224, 0.225])
        weights = torch.ones(3, requires_grad=True)
        scale = torch.ones(3)

        class Normalization(nn.Module):
            def __init__(self, mean, std):
                super().__init__()
                self.mean = mean.clone().detach().view(-1, 1, 1)
                self.std = std.clone().detach().view(-1, 1, 1)

        def build():
            return Normalization(mean, std)

        def build_from(m, s):
            return Normalization(m, s)

        def copies(other):
            global scale
            scale = other * 2
            return weights.clone().detach(), scale.clone().detach(), other.clone().detach()

        model = build_from(mean, std)
        """)
    flagged = [d.location.line for d in lint_source(source, "style.py") if d.code == "TCL005"]
    assert flagged == [24, 24], flagged
    as_passed = source.replace("scale = other * 2", "scale = other")
    assert [d.location.line for d in lint_source(as_passed, "style.py") if d.code == "TCL005"] == [24]


@pytest.mark.parametrize("caller, reported", [
    ("", False),  # the wrappers' callers are in other files: an attack's clean images, out of sight
    ("def run(model, images, labels):\n    return pgd_linf(model, images, labels, 10)\n", False),  # handed on
    ("def run(model, images, labels):\n    return pgd_linf(model, model(images), labels, 10)\n", True),
])
def test_an_argument_handed_on_through_a_wrapper_s_star_args_is_out_of_sight_as_the_wrapper_s_is(caller, reported):
    from torchcopylint.engine import lint_source

    source = textwrap.dedent("""\
        import torch.nn.functional as F


        def pgd_generic(net, orig_ims, labels, steps, mode):
            attack_ims = orig_ims.clone().detach()
            attack_ims.requires_grad = True
            for _ in range(steps):
                loss = F.cross_entropy(net(attack_ims), labels)
                loss.backward()
                attack_ims.data += attack_ims.grad.sign()
            return attack_ims


        def pgd_linf(*args):
            return pgd_generic(*args, mode="linf")
        """) + "\n\n" + caller
    found = [d.location.line for d in lint_source(source, "attacks.py") if d.code == "TCL005"]
    assert found == ([5] if reported else []), found


def test_an_argument_no_call_in_the_file_shows_is_not_judged_and_a_caller_that_shows_one_is_named():
    from torchcopylint.engine import lint_source

    # An attack's clean images (through its own `__call__` wrapper), a normalisation layer's constants
    # built in another file: what they hold is out of sight, usually data. A layer's `forward` input
    # (the previous layer's output), a computed value, and an argument a call in the file passes a
    # value that requires grad (named in the message) or may require grad (the condition) are reported.
    source = textwrap.dedent("""\
        import torch
        from torch import nn

        class Attack:
            def __call__(self, images, labels):
                return self.forward(images, labels)

            def forward(self, images, labels):
                images = images.clone().detach().to("cpu")
                return images

        class Normalization(nn.Module):
            def __init__(self, mean):
                super().__init__()
                self.mean = mean.clone().detach()

        class Block(nn.Module):
            def forward(self, x):
                return x.clone().detach() + (x * 2).clone().detach()

        def keep(t):
            return t.clone().detach()

        def maybe(t):
            return t.clone().detach()

        def run(model, images):
            kept = keep(torch.ones(2, requires_grad=True) * 2)
            return kept, maybe(model(images))
        """)
    found = [d for d in lint_source(source, "attack.py") if d.code == "TCL005"]
    assert [d.location.line for d in found] == [19, 19, 22, 25], [d.location.line for d in found]
    keep, maybe = found[2], found[3]
    assert keep.message.startswith("`t.clone().detach()` records") and \
        "the call at line 28 passes `torch.ones(2, requires_grad=True) * 2`, which requires grad" in keep.message
    assert maybe.message.startswith("if `t` requires grad, ")


def test_what_a_torch_distribution_samples_needs_no_grad_but_what_it_rsamples_may():
    from torchcopylint.engine import lint_source

    source = textwrap.dedent("""\
        from torch.distributions import Normal


        def rollout(model, observations, steps):
            for _ in range(steps):
                mean, std = model(observations)
                dist = Normal(mean, std)
                drawn = dist.sample()
                observations = drawn[:, :-1].clone().detach()
                kept = dist.rsample().clone().detach()
            return observations, kept
        """)
    found = [d.location.line for d in lint_source(source, "rollout.py") if d.code == "TCL005"]
    assert found == [10], found


def test_a_forward_that_makes_a_leaf_of_its_input_takes_data_but_a_layer_s_forward_may_not():
    from torchcopylint.engine import lint_source

    # A PINN's forward (fresh90): `a.clone().detach().requires_grad_(True)` cuts the input off any graph,
    # which would stop the gradient to the layers before: what it is fed is collocation points, data. A
    # block that only keeps a copy of its input is handed the previous layer's output.
    source = textwrap.dedent("""\
        from torch import nn


        class PINN(nn.Module):
            def forward(self, a):
                a = a.clone().detach().requires_grad_(True)
                self.a_in = a
                return self.net(a)


        class Block(nn.Module):
            def forward(self, x):
                kept = x.clone().detach()
                return x * 2, kept
        """)
    found = [d.location.line for d in lint_source(source, "pinn.py") if d.code == "TCL005"]
    assert found == [13], found


@pytest.mark.parametrize("context, enabled", [
    ("np.errstate(divide='ignore') and torch.no_grad()", False),  # `and` gives its last object: no_grad
    ("torch.no_grad() and np.errstate(divide='ignore')", True),   # errstate is what the block enters
    ("np.errstate(divide='ignore')", True),
])
def test_a_context_joined_by_and_is_the_last_one(context, enabled):
    # fresh111's course code: `with np.errstate(...) and torch.no_grad():` runs the block without grad.
    source = textwrap.dedent(f"""\
        import numpy as np
        import torch


        def ratio(model, x):
            with {context}:
                out = model(x)
            return out
        """)
    facts = ModuleFacts(cst.parse_module(source), "r.py", source)
    function = next(f for f in facts.all_functions() if getattr(f.node, "name", None) is not None)
    statement = next(s for s in function.statement_order if facts.code_for(s).strip().startswith("out = model(x)"))
    assert facts.grad_enabled_at(function, statement) is enabled

"""Focused tests for TCL009 (numpy-of-grad-tensor), TCL012 (leaf-lost-by-copy) and the
"requires grad" query they share (analysis/autograd.py): spellings, silences, messages
and fixes that the rule pages do not pin down one by one."""

from __future__ import annotations

import ast
import textwrap

import libcst as cst
import pytest

from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.engine import lint_source
from torchcopylint.fix import fix_source


def _src(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def _found(source: str, code: str) -> list:
    return [d for d in lint_source(_src(source), "example.py") if d.code == code]


def _lines(source: str, code: str) -> list[int]:
    return sorted(d.location.line for d in _found(source, code))


def _fixed(source: str, code: str, unsafe: bool = True) -> str:
    def relint(text: str) -> list:
        return [d for d in lint_source(text, "example.py") if d.code == code]

    outcome = fix_source(_src(source), "example.py", relint, unsafe=unsafe)
    assert outcome.error is None, outcome.error
    return outcome.fixed


# --- the shared query: does a value surely require grad? ---------------------------


QUERY_MODULE = _src("""
    import torch
    import torch.nn.functional as F
    from torch import nn


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(3, 1)
            self.act = nn.ReLU()
            self.scale = nn.Parameter(torch.ones(1))

        def forward(self, x):
            return self.fc(x)


    def step(x, y, frozen, unknown_model):
        net = Net()
        w = torch.randn(3, requires_grad=True)
        plain = torch.randn(3)
        out = net(x)
        loss = F.mse_loss(out, y)
        loss.backward()
        frozen.requires_grad_(False)
        probe = (
            w, plain, out, loss, out.argmax(1), out > 0, out.detach(), out.data, w * 2, plain * 2,
            torch.softmax(out, 1), out.long(), out.to(torch.long), unknown_model(x), x, out.grad,
        )
        with torch.no_grad():
            quiet = out * 2
        return probe, quiet
""")
QUERY_EXPECTED = [True, False, True, True, False, False, False, False, True, False,
                  True, False, False, False, False, False]


def test_requires_grad_query_answers_each_kind_of_value():
    module = cst.parse_module(QUERY_MODULE)
    facts = ModuleFacts(module, "q.py", QUERY_MODULE)
    function = next(f for f in facts.all_functions() if f.name == "step")
    probe = next(b for b in function.bindings if b.name == "probe")
    answers = [facts.autograd.origin(element.value, function, probe.statement) is not None
               for element in probe.value.elements]
    assert answers == QUERY_EXPECTED
    quiet = next(b for b in function.bindings if b.name == "quiet")
    assert facts.autograd.binding_origin(quiet, function) is None, "computed under no_grad"


# --- TCL009 --------------------------------------------------------------------------


NUMPY_SPELLINGS = {
    "method": ("import torch\n", "w.numpy()"),
    "np.asarray": ("import numpy as np\nimport torch\n", "np.asarray(w)"),
    "np.array": ("import numpy as np\nimport torch\n", "np.array(w, dtype=np.float32)"),
    "import numpy": ("import numpy\nimport torch\n", "numpy.asarray(w)"),
    "from numpy import": ("from numpy import asarray\nimport torch\n", "asarray(w)"),
    "torch alias": ("import torch as th\n", "w.numpy()"),
}


@pytest.mark.parametrize("imports, conversion", NUMPY_SPELLINGS.values(), ids=NUMPY_SPELLINGS.keys())
def test_tcl009_conversion_spellings(imports, conversion):
    factory = "th.randn" if "as th" in imports else "torch.randn"
    source = imports + f"\n\ndef f():\n    w = {factory}(3, requires_grad=True)\n    return {conversion}\n"
    assert [d.location.line for d in lint_source(source, "example.py") if d.code == "TCL009"] == [len(source.splitlines())]


SILENT_CONVERSIONS = {
    "force": "w.numpy(force=True)",
    "detach": "w.detach().numpy()",
    "data": "w.data.numpy()",
    "cpu detach": "w.cpu().detach().numpy()",
    "grad": "w.grad.numpy()",
    "argmax": "w.argmax().numpy()",
    "comparison": "(w > 0).numpy()",
    "long": "w.long().numpy()",
    "item": "w.sum().item()",
    "plain factory": "torch.ones(3).numpy()",
    "list to numpy": "np.asarray([1.0, 2.0])",
}


@pytest.mark.parametrize("conversion", SILENT_CONVERSIONS.values(), ids=SILENT_CONVERSIONS.keys())
def test_tcl009_silent_conversions(conversion):
    source = f"""
        import numpy as np
        import torch


        def f():
            w = torch.randn(3, requires_grad=True)
            return {conversion}
    """
    assert _found(source, "TCL009") == []


@pytest.mark.parametrize("guard", ["with torch.no_grad():", "with torch.inference_mode():",
                                   "with torch.set_grad_enabled(False):"])
def test_tcl009_silent_when_grad_mode_is_off(guard):
    source = f"""
        import torch


        def f():
            w = torch.randn(3, requires_grad=True)
            {guard}
                return w.numpy()
    """
    assert _found(source, "TCL009") == []


@pytest.mark.parametrize("other_read, reported", [
    # Read only to call an entry and for its keys: each command runs under the caller's no-grad.
    ("", False),
    # Handed on as well: its commands may be called anywhere, in any grad mode.
    ("register(COMMANDS)", True),
])
def test_tcl009_a_table_of_commands_called_under_no_grad(other_read, reported):
    # A source-separation project's `make.py` (fresh62): `COMMANDS[args.command](args)` inside
    # `with torch.no_grad():` is the only way its commands run.
    source = _src(f"""
        import argparse

        import torch


        def make_log_likelihood(args, model):
            log_p = model(torch.randn(8, 4))
            return log_p.cpu().numpy()


        def main(args):
            model = torch.nn.Linear(4, 1)
            {other_read}
            with torch.no_grad():
                COMMANDS[args.command](args, model)


        COMMANDS = {{"likelihood": make_log_likelihood}}

        if __name__ == "__main__":
            parser = argparse.ArgumentParser()
            parser.add_argument("command", choices=COMMANDS.keys())
            main(parser.parse_args())
        """)
    assert bool(_lines(source, "TCL009")) is reported


@pytest.mark.parametrize("guard, reported", [
    # The network's only caller, a method of the model that holds it, samples under no-grad.
    ("with torch.no_grad():", False),
    # The same call in grad mode: `.numpy()` of the output raises.
    ("if True:", True),
])
def test_tcl009_a_method_called_through_an_attribute_of_another_class(guard, reported):
    # A BiGAN homework (fresh87): `BiGenerator.sample` converts its output; `BiGAN.sample` calls it as
    # `self.g.sample(n)`, `self.g` built as `BiGenerator(...).to(device)` in `__init__`.
    source = _src(f"""
        import torch
        from torch import nn


        class BiGenerator(nn.Module):
            def __init__(self, latent_dim):
                super().__init__()
                self.latent_dim = latent_dim
                self.model = nn.Sequential(nn.Linear(latent_dim, 784), nn.Tanh())

            def sample(self, n):
                x = self.model(torch.randn(n, self.latent_dim))
                return x.reshape(n, 28, 28).cpu().numpy()


        class BiGAN:
            def __init__(self, latent_dim, device):
                self.g = BiGenerator(latent_dim).to(device)

            def sample(self, n):
                self.g.eval()
                {guard}
                    samples = self.g.sample(n)
                return samples
        """)
    assert bool(_lines(source, "TCL009")) is reported


def test_tcl009_enable_grad_inside_no_grad_is_grad_mode():
    source = """
        import torch


        @torch.no_grad()
        def f():
            w = torch.randn(3, requires_grad=True)
            with torch.enable_grad():
                return (w * 2).numpy()
    """
    assert _lines(source, "TCL009") == [8]


def test_tcl009_network_of_unknown_class_is_reported_with_the_assumption():
    """Issue 19: a network passed in, loaded or built by a factory nearly always has trainable
    parameters; the finding says that it assumes so (it was silent before)."""
    source = """
        import torch


        def predict(model, x):
            return model(x).numpy()


        def predict_hub(x):
            model = torch.hub.load("owner/repo", "net")
            return model(x).numpy()


        def predict_built(x):
            backbone = timm.create_model("resnet18").cuda().eval()
            return backbone(x).cpu().numpy()
    """
    found = {d.location.line: d for d in _found(source, "TCL009")}
    assert sorted(found) == [5, 10, 15]
    assert "if `model` has parameters that require grad, as a network passed in as `model` does" in found[5].message
    assert "as a loaded network does" in found[10].message
    assert "as a network built by `timm.create_model(...)` does" in found[15].message
    assert found[5].context["assumption"]


UNKNOWN_NETWORK_SILENT = {
    "no_grad": "with torch.no_grad():\n        return model(x).numpy()",
    "inference_mode": "with torch.inference_mode():\n        return model(x).numpy()",
    "frozen": "model.requires_grad_(False)\n    return model(x).numpy()",
    "frozen parameters": "for p in model.parameters():\n        p.requires_grad = False\n    return model(x).numpy()",
    "detach": "return model(x).detach().numpy()",
    "item": "return model(x).sum().item()",
    "argmax": "return model(x).argmax(1).numpy()",
    "unpacked": "out, hidden = model(x)\n    return out.numpy()",
    "not a network name": "return fn(x).numpy()",
}


@pytest.mark.parametrize("body", UNKNOWN_NETWORK_SILENT.values(), ids=UNKNOWN_NETWORK_SILENT.keys())
def test_tcl009_network_of_unknown_class_silent(body):
    source = "import torch\n\n\ndef predict(model, fn, x):\n    " + body + "\n"
    assert [d for d in lint_source(source, "example.py") if d.code == "TCL009"] == []


def test_tcl009_eval_does_not_stop_grad():
    source = """
        import torch


        def predict(net, x):
            net.eval()
            return net(x).numpy()
    """
    assert _lines(source, "TCL009") == [6]


def test_tcl009_module_trained_in_the_file_is_seen_through_its_name():
    source = """
        import torch
        from torchvision import models


        def train(x):
            model = models.resnet18()
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            scores = model(x)
            print(scores.numpy())
            optimizer.step()
    """
    assert _lines(source, "TCL009") == [9]


def test_tcl009_frozen_module_output_is_silent():
    source = """
        import torch
        from torch import nn


        def features(x):
            backbone = nn.Linear(3, 2)
            for p in backbone.parameters():
                p.requires_grad = False
            return backbone(x).numpy()
    """
    assert _found(source, "TCL009") == []


def test_tcl009_unpacked_values_are_not_guessed():
    source = """
        import torch


        def f(x):
            w = torch.randn(3, requires_grad=True)
            values, indices = (x * w).max(0)
            return values.numpy(), indices.numpy()
    """
    assert _found(source, "TCL009") == []


def test_tcl009_message_names_the_origin_and_the_error():
    source = """
        import torch
        import torch.nn.functional as F


        def step(pred, target):
            loss = F.mse_loss(pred, target)
            loss.backward()
            return loss.numpy()
    """
    (diagnostic,) = _found(source, "TCL009")
    assert "a loss that is backpropagated, line 6" in diagnostic.message
    assert "Can't call numpy() on Tensor that requires grad" in diagnostic.message


WRAPPER = """
    import numpy as np
    import torch


    def to_np(t):
        {conversion}


    def report(model, x):
        {caller}
"""


@pytest.mark.parametrize("conversion, caller", [
    ("return t.cpu().numpy()", "return to_np(model(x))"),
    ("return t.squeeze(0).numpy()", "pred = model(x) * 2\n        return to_np(pred)"),
    ("return t[0].permute(1, 2, 0).cpu().numpy()", "return to_np(t=model(x))"),
])
def test_tcl009_wrapper_handed_a_grad_tensor_by_a_caller(conversion, caller):
    (diagnostic,) = _found(WRAPPER.format(conversion=conversion, caller=caller), "TCL009")
    assert diagnostic.location.line == 6
    assert "the call at line 10 passes" in diagnostic.message or "the call at line 11 passes" in diagnostic.message
    assert diagnostic.context["caller_line"] in (10, 11)


@pytest.mark.parametrize("conversion, caller", [
    # What the caller passes needs no grad: detached, computed under no_grad, or data.
    ("return t.cpu().numpy()", "return to_np(model(x).detach())"),
    ("return t.cpu().numpy()", "with torch.no_grad():\n            return to_np(model(x))"),
    ("return t.cpu().numpy()", "return to_np(x)"),
    # The wrapper cuts the graph itself, or rebinds its parameter first.
    ("return t.detach().cpu().numpy()", "return to_np(model(x))"),
    ("t = t.detach()\n        return t.numpy()", "return to_np(model(x))"),
    # What the wrapper converts is computed from the parameter, not the parameter: not followed.
    ("return (t > 0).numpy()", "return to_np(model(x))"),
    # The wrapper is handed on as a callback too: its calls are not all in sight.
    ("return t.cpu().numpy()", "return list(map(to_np, [x])), to_np(model(x))"),
    # The wrapper converts without a detach only where it found the tensor needs no grad.
    ("return t.detach().numpy() if t.requires_grad else t.cpu().numpy()", "return to_np(model(x))"),
    ("if not t.requires_grad:\n            return t.cpu().numpy()\n        return t.detach().numpy()",
     "return to_np(model(x))"),
    # The wrapper branches on what it is given: the callers' tensor takes the branch written for it
    # (fresh118's `type(tensor) == np.ndarray` / `Image.Image` / `Tensor` dispatch).
    ("if isinstance(t, torch.Tensor):\n            return t.detach().cpu().numpy()\n        return np.array(t)",
     "return to_np(model(x))"),
    ("if type(t) == np.ndarray:\n            return np.array(t)\n        elif type(t) == torch.Tensor:\n"
     "            return t.detach().numpy()", "return to_np(model(x))"),
    ("if torch.is_tensor(t):\n            t = t.detach()\n        else:\n            t = np.asarray(t)\n"
     "        return t", "return to_np(model(x))"),
])
def test_tcl009_wrapper_silent(conversion, caller):
    assert _found(WRAPPER.format(conversion=conversion, caller=caller), "TCL009") == []


FIX_CASES = {
    "method": ("w.numpy()", "w.detach().cpu().numpy()"),
    "cpu first": ("w.cpu().numpy()", "w.detach().cpu().numpy()"),
    "to cpu": ('w.to("cpu").numpy()', 'w.detach().to("cpu").numpy()'),
    "expression": ("(w * 2).numpy()", "(w * 2).detach().cpu().numpy()"),
    "asarray": ("np.asarray(w, dtype=np.float64)", "np.asarray(w.detach().cpu(), dtype=np.float64)"),
}


@pytest.mark.parametrize("written, fixed", FIX_CASES.values(), ids=FIX_CASES.keys())
def test_tcl009_fix_is_safe_idempotent_and_parses(written, fixed):
    template = """
        import numpy as np
        import torch


        def f():
            w = torch.randn(3, requires_grad=True)
            return {}
    """
    result = _fixed(template.format(written), "TCL009", unsafe=False)
    assert result == _src(template.format(fixed))
    ast.parse(result)
    assert _fixed(result, "TCL009") == result
    assert [d for d in lint_source(result, "example.py") if d.code == "TCL009"] == []


# --- TCL012 --------------------------------------------------------------------------


COPIES = {
    "double": "torch.zeros(3, requires_grad=True).double()",
    "to dtype": "torch.zeros(3, requires_grad=True).to(torch.float64)",
    "to cuda": 'torch.zeros(3, requires_grad=True).to("cuda")',
    "cuda": "torch.zeros(3, requires_grad=True).cuda()",
    "scaled": "torch.randn(3, requires_grad=True) * 0.01",
    "divided": "torch.randn(3, requires_grad=True) / 3 ** 0.5",
    "view": "torch.randn(3, 2, requires_grad=True).view(-1)",
    "chain": 'torch.randn(3, requires_grad=True).to("cuda").double()',
    "requires_grad_ first": "torch.zeros(3).requires_grad_().double()",
    "half of float64": "torch.zeros(3, dtype=torch.float64, requires_grad=True).float()",
}


@pytest.mark.parametrize("value", COPIES.values(), ids=COPIES.keys())
def test_tcl012_copies_used_by_an_optimizer(value):
    source = f"""
        import torch


        def f():
            w = {value}
            return torch.optim.SGD([w], lr=0.1)
    """
    assert _lines(source, "TCL012") == [5]


NOT_COPIES = {
    "to cpu": 'torch.zeros(3, requires_grad=True).to("cpu")',
    "float of float32": "torch.zeros(3, requires_grad=True).float()",
    "double of float64": "torch.zeros(3, dtype=torch.float64, requires_grad=True).double()",
    "cuda of a device factory": 'torch.zeros(3, device="cuda", requires_grad=True).cuda()',
    # Made where `content` lives (a style-transfer target from the image already moved to the device):
    # whether `.to(device)` copies is not known.
    "to device of a _like factory": "torch.randn_like(content).requires_grad_(True).to(device)",
    # fresh33's style transfer, with `content` moved by `.cuda()` before: `.cuda()` returns the leaf itself.
    "cuda of a _like factory": "torch.randn_like(content).requires_grad_(True).cuda()",
    "detached": "torch.zeros(3, requires_grad=True).double().detach().requires_grad_()",
    "grad last": "torch.zeros(3).double().requires_grad_()",
    "no requires_grad": "torch.zeros(3).double()",
    "requires_grad False": "torch.zeros(3, requires_grad=False).double()",
}


@pytest.mark.parametrize("value", NOT_COPIES.values(), ids=NOT_COPIES.keys())
def test_tcl012_leaves_are_silent(value):
    source = f"""
        import torch


        def f():
            w = {value}
            return torch.optim.SGD([w], lr=0.1)
    """
    assert _found(source, "TCL012") == []


@pytest.mark.parametrize("use, kind", [
    ("torch.optim.Adam([{'params': [w]}], lr=0.1)", "optimizer"),
    ("torch.optim.SGD(params, lr=0.1)", "optimizer"),
    ("w.grad", "grad"),
    ("w.grad.zero_()", "grad"),
])
def test_tcl012_leaf_uses(use, kind):
    source = f"""
        import torch


        def f():
            w = torch.randn(3, requires_grad=True) * 0.01
            params = [w]
            return {use}
    """
    (diagnostic,) = _found(source, "TCL012")
    assert diagnostic.location.line == 5
    assert ("can't optimize a non-leaf Tensor" in diagnostic.message) == (kind == "optimizer")


def test_tcl012_silent_without_a_leaf_use_or_with_retain_grad():
    source = """
        import torch
        from torch import nn


        def f(x, model):
            noise = torch.randn(3, requires_grad=True) * 0.1
            scale = torch.ones(1, requires_grad=True) * 2
            scale.retain_grad()
            (x * noise * scale).sum().backward()
            optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
            return scale.grad, optimizer
    """
    assert _found(source, "TCL012") == []


def test_tcl012_device_resolution():
    source = """
        import torch

        CPU = torch.device("cpu")
        ANY = torch.device("cuda" if torch.cuda.is_available() else "cpu")


        def f(dev, other):
            a = torch.zeros(3, requires_grad=True).to(CPU)
            b = torch.zeros(3, requires_grad=True).to(ANY)
            c = torch.zeros(3, requires_grad=True).to(dev)
            d = torch.zeros(3, requires_grad=True).to(other.device)
            return torch.optim.SGD([a, b, c, d], lr=0.1)
    """
    found = {d.location.line: d for d in _found(source, "TCL012")}
    assert sorted(found) == [9, 10, 11]
    assert "when `ANY` is not the CPU" in found[9].message
    assert found[9].fix is not None and found[9].fix.applicability.value == "safe"
    assert found[10].fix is not None and found[10].fix.applicability.value == "unsafe", \
        "`dev` may be a dtype: device= cannot be assumed"
    assert found[11].fix.applicability.value == "safe"


def test_tcl012_a_copy_made_under_no_grad_is_said_to_stop_requiring_grad():
    # Under no-grad `w - lr * w.grad` is a leaf too: the message must not call it "not a leaf".
    source = """
        import torch

        def step():
            w = torch.ones(3, requires_grad=True)
            (w * 2).sum().backward()
            with torch.no_grad():
                w = w - 0.1 * w.grad
            return w.grad

        def in_grad_mode():
            w = torch.ones(3, requires_grad=True)
            y = w * 2
            y = y + w
            v = torch.ones(3, requires_grad=True) * 2
            return v.grad
    """
    found = {d.location.line: d for d in _found(source, "TCL012")}
    assert sorted(found) == [7, 14]
    assert found[7].message.startswith("`w` no longer requires grad: `-` makes a new tensor"), found[7].message
    assert "the old leaf `w` it replaces" in found[7].message
    assert "not a leaf" not in found[7].message
    assert found[14].message.startswith("`v` is not a leaf"), found[14].message


def test_tcl012_torch_tensor_of_a_tensor_is_made_where_that_tensor_lives():
    # fresh47's PGD attack: `w` is already on `device`, so `torch.tensor(w, ...)` is made there and
    # `.to(device)` returns the leaf itself (TCL008 stays: it copy-constructs from a tensor); from a
    # NumPy array the leaf is made on the CPU, and `.to(device)` copies when `device` is a GPU.
    source = """
        import numpy as np
        import torch

        device = torch.device("cuda" if torch.cuda.is_available() else "cpu")


        def perturb(embeddings):
            w = torch.tensor(np.stack(embeddings)).to(device)
            w_a = torch.tensor(w, requires_grad=True).to(device)
            return torch.optim.Adam([w_a], lr=0.1)


        def from_numpy(array):
            w_a = torch.tensor(array, requires_grad=True).to(device)
            return torch.optim.Adam([w_a], lr=0.1)
    """
    assert _lines(source, "TCL012") == [14]
    assert _lines(source, "TCL008") == [9]


TCL012_FIXES = {
    "zeros to device (safe)": (
        'torch.zeros(3, requires_grad=True).to("cuda")', 'torch.zeros(3, device="cuda", requires_grad=True)', True),
    "ones double (safe)": (
        "torch.ones(3, requires_grad=True).double()", "torch.ones(3, dtype=torch.float64, requires_grad=True)", True),
    "dtype replaced (safe)": (
        "torch.zeros(3, dtype=torch.float64, requires_grad=True).float()",
        "torch.zeros(3, dtype=torch.float32, requires_grad=True)", True),
    "randn cuda (unsafe)": (
        "torch.randn(3, requires_grad=True).cuda()", 'torch.randn(3, device="cuda", requires_grad=True)', False),
    "scaled (unsafe)": (
        "torch.randn(3, requires_grad=True) * 0.01", "(torch.randn(3) * 0.01).requires_grad_()", False),
}


@pytest.mark.parametrize("written, fixed, safe", TCL012_FIXES.values(), ids=TCL012_FIXES.keys())
def test_tcl012_fix_is_idempotent_and_parses(written, fixed, safe):
    template = """
        import torch


        def f():
            w = {}
            return torch.optim.SGD([w], lr=0.1)
    """
    source = template.format(written)
    assert _fixed(source, "TCL012", unsafe=False) == (_src(template.format(fixed)) if safe else _src(source))
    result = _fixed(source, "TCL012", unsafe=True)
    assert result == _src(template.format(fixed))
    ast.parse(result)
    assert _fixed(result, "TCL012") == result
    assert _found(result, "TCL012") == []


def test_tcl012_no_fix_for_a_leaf_made_elsewhere():
    source = """
        import torch


        def f():
            w = torch.zeros(3, requires_grad=True)
            w = w.double()
            return torch.optim.SGD([w], lr=0.1)
    """
    (diagnostic,) = _found(source, "TCL012")
    assert diagnostic.location.line == 6 and diagnostic.fix is None


def test_tcl012_parameter_copied_in_a_module_is_not_registered():
    source = """
        import torch
        from torch import nn


        class Block(nn.Module):
            def __init__(self, dim, device):
                super().__init__()
                self.a = nn.Parameter(torch.randn(dim)).to(device)
                self.b = nn.Parameter(torch.randn(dim).to(device)).to(device)
                self.c = nn.Parameter(torch.ones(1)) * 0.1
                self.d = nn.Parameter(torch.ones(dim).to(device))
                self.e = torch.randn(dim, requires_grad=True).to(device)


        class Plain:
            def __init__(self, device):
                self.a = nn.Parameter(torch.randn(3)).to(device)
    """
    found = {d.location.line: d for d in _found(source, "TCL012")}
    assert sorted(found) == [8, 10], "b's data may already be on the device; d and e are not parameter copies"
    assert "does not register it" in found[8].message and "when `device` is not the CPU" in found[8].message
    assert _fixed(source, "TCL012").splitlines()[7].strip() == "self.a = nn.Parameter(torch.randn(dim).to(device))"


def test_tcl009_grad_mode_decided_at_run_time_is_not_guessed():
    source = """
        import torch
        from torch import nn


        def run_phase(x, is_train):
            model = nn.Linear(3, 1)
            with torch.set_grad_enabled(is_train):
                out = model(x)
                scores = out.numpy()
            return out.numpy(), scores
    """
    assert _found(source, "TCL009") == []


# --- the facts behind them: grounds of "requires grad", device and dtype ---------------------


GROUNDS_MODULE = _src("""
    import torch
    from torch import nn
    from models import build_layers


    class Local(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = build_layers()

        def forward(self, x):
            return self.body(x)


    def step(model, fn, x, path):
        linear = nn.Linear(3, 1)
        loaded = torch.load(path).eval()
        local = Local()
        probe = (linear(x), model(x), loaded(x), local(x), fn(x))
        return probe
""")


def test_grad_origin_grounds():
    from torchcopylint.analysis.autograd import ASSUMED, POSSIBLE, SEEN

    facts = ModuleFacts(cst.parse_module(GROUNDS_MODULE), "g.py", GROUNDS_MODULE)
    function = next(f for f in facts.all_functions() if f.name == "step")
    probe = next(b for b in function.bindings if b.name == "probe")
    grounds = []
    for element in probe.value.elements:
        origin = facts.autograd.origin(element.value, function, probe.statement, POSSIBLE)
        grounds.append(origin.grounds if origin is not None else None)
    assert grounds == [SEEN, ASSUMED, ASSUMED, POSSIBLE, None]
    model_output = probe.value.elements[1].value
    assert facts.autograd.origin(model_output, function, probe.statement) is None, "SEEN is the default"
    assert "as a network passed in as `model` does" in \
        facts.autograd.origin(model_output, function, probe.statement, ASSUMED).assumption
    # graphs.py reads the same fact, on the weakest grounds
    from torchcopylint.analysis.graphs import requires_grad

    assert [requires_grad(element.value, function, facts, probe.statement) for element in probe.value.elements] \
        == [True, True, True, True, False]


PLACEMENT_MODULE = _src("""
    import torch

    DEVICE = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    CPU = "cpu"
    DTYPE = torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor


    class Holder:
        def __init__(self):
            self.device = torch.device("cuda:0")
            self.precision = torch.float64

        def probe(self, x, other):
            _, pred = x.max(1)
            values, indices = x.sort()
            elementwise = x.max(other)
            probe = (pred, values, indices, x.argmax(1), x.long().view(-1), torch.zeros(3),
                     torch.zeros(3, dtype=torch.float16), x.to(self.precision), (x > 0), elementwise,
                     x.topk(2)[1], x.type(torch.cuda.DoubleTensor))
            devices = (DEVICE, CPU, self.device, x.device, other, "mps")
            types = (DTYPE, torch.DoubleTensor, torch.float64, other)
            return probe, devices, types
""")


def test_placement_dtypes_devices_and_types():
    facts = ModuleFacts(cst.parse_module(PLACEMENT_MODULE), "p.py", PLACEMENT_MODULE)
    function = next(f for f in facts.all_functions() if f.name == "probe")
    placement = facts.placement

    def elements(name):
        return [e.value for e in next(b for b in function.bindings if b.name == name).value.elements]

    assert [placement.dtype_of(e, function) for e in elements("probe")] == [
        "int64", None, "int64", "int64", "int64", "float32", "float16", "float64", "bool", None, "int64",
        "float64"]
    assert [placement.device_kind(e, function) for e in elements("devices")] == [
        "device", "cpu", "gpu", "device", "unknown", "gpu"]
    assert [placement.type_targets(e, function) for e in elements("types")] == [
        {("float32", "gpu"), ("float32", "cpu")}, {("float64", "cpu")}, {("float64", "same")}, None]
    assert facts.surely_integral(elements("probe")[0], function), "ModuleFacts reads the same fact"


def test_never_requires_grad_is_the_one_answer():
    source = _src("""
        import torch
        from torch import nn


        def f(model, x, path):
            linear = nn.Linear(3, 3)
            sd = model.state_dict()
            loaded = torch.load(path)
            probe = (torch.linspace(0, 1, 5).unsqueeze(1) * 2, sd["w"], loaded["w"], linear(x),
                     torch.zeros(3, requires_grad=True), x.detach().pow(2), x.size(0), model.forward(x))
            return probe
    """)
    facts = ModuleFacts(cst.parse_module(source), "n.py", source)
    function = next(f for f in facts.all_functions() if f.name == "f")
    probe = next(b for b in function.bindings if b.name == "probe")
    answers = [facts.autograd.never_requires_grad(e.value, function, probe.statement)
               for e in probe.value.elements]
    assert answers == [True, True, False, False, False, True, True, False]
    from torchcopylint.analysis.graphs import carries_no_graph

    assert [carries_no_graph(e.value, function, facts) for e in probe.value.elements] == answers
    assert [facts.surely_without_grad(e.value, function) for e in probe.value.elements] == answers


def test_tcl012_attribute_copied_in_another_method_and_top_level_leaf():
    source = """
        import torch


        class Model:
            def __init__(self, n, device):
                self.device = device
                self.w = torch.zeros(n, requires_grad=True)
                self.kept = torch.zeros(n, requires_grad=True).to(device)

            def to_device(self):
                self.w = self.w.to(self.device)

            def step(self):
                self.w.grad.zero_()


        w = torch.randn(3, requires_grad=True).cuda()
        b = torch.zeros(3, requires_grad=True).cuda()
        b = b.detach().requires_grad_()


        def train():
            return torch.optim.SGD([w, b], lr=0.1)
    """
    found = {d.location.line: d for d in _found(source, "TCL012")}
    assert sorted(found) == [11, 17], "self.kept is never used as a leaf; b is a leaf again when train() reads it"
    assert "`self.w.grad` in `step()` (line 14) stays None" in found[11].message
    assert "(assigned to `self.w` in `__init__()`, line 7)" in found[11].message
    assert "in `train()` (line 23) raises ValueError" in found[17].message


def test_a_value_computed_from_a_named_leaf_names_that_leaf_in_the_message():
    source = (
        "import torch\n\n\n"
        "def show():\n"
        "    x = torch.ones(2, requires_grad=True)\n"
        "    y = x ** 2 + 4 * x\n"
        "    y.sum().backward()\n"
        "    return y.grad\n"
    )
    [found] = [d for d in lint_source(source, "<x>") if d.code == "TCL012"]
    assert "autograd fills the leaf `x`, not `y`" in found.message
    assert "unnamed" not in found.message


@pytest.mark.parametrize("reads", ["print(x.grad, y.grad)", "optimizer = torch.optim.SGD([x]); print(y.grad)"])
def test_a_value_computed_from_a_leaf_the_code_goes_on_using_as_the_leaf_is_no_lost_leaf(reads):
    # A course notebook's demo: `x` is the leaf and is read as one; `y.grad` is a look at a non-leaf.
    source = f"import torch\n\nx = torch.ones(2, requires_grad=True)\ny = x + 1\ny.sum().backward()\n{reads}\n"
    assert [d.code for d in lint_source(source, "<x>")] == []


def test_an_optimizer_over_the_value_computed_from_a_leaf_is_still_flagged():
    # Even where the leaf is used as one: the optimizer refuses the non-leaf at once.
    source = ("import torch\n\nx = torch.ones(2, requires_grad=True)\ny = x * 0.1\n"
              "optimizer = torch.optim.SGD([x, y])\n")
    assert [d.code for d in lint_source(source, "<x>")] == ["TCL012"]


MULTI_BACKEND = """
    import torch
    import torch.nn as nn


    class MultiBackend(nn.Module):
        def __init__(self, w, pt=True, saved_model=False):
            super().__init__()
            if pt:
                model = torch.jit.load(w)
            elif saved_model:
                import tensorflow as tf
                model = tf.keras.models.load_model(w)
            self.__dict__.update(locals())

        def forward(self, im):
            if self.pt:
                return self.model(im)
            x = im.permute(0, 2, 3, 1).cpu().numpy()
            return torch.tensor(self.model(x, training=False).numpy())
"""


def test_tcl009_another_frameworks_model_is_no_network():
    # fresh33: YOLOv5's multi-backend loader, copied into many projects. Its attributes come from
    # `self.__dict__.update(locals())`; in the TensorFlow branch `self.model` is a Keras model.
    assert _found(MULTI_BACKEND, "TCL009") == []
    # With TorchScript the only backend, the same line is the output of a loaded torch network.
    torch_only = MULTI_BACKEND.replace("""            elif saved_model:
                import tensorflow as tf
                model = tf.keras.models.load_model(w)
""", "")
    flagged = next(number for number, line in enumerate(_src(torch_only).splitlines(), 1) if "training=False" in line)
    assert _lines(torch_only, "TCL009") == [flagged]


def test_tcl009_a_network_of_unknown_class_in_a_module_that_also_imports_tensorflow_is_not_assumed_torch_s():
    # A PINN comparing frameworks: `u_model` is a Keras model passed in, whose output's `.numpy()` is
    # TensorFlow's own. A torch network the file builds stays reported.
    source = textwrap.dedent("""\
        import numpy as np
        import tensorflow as tf
        import torch
        from torch import nn

        def predict_tf(u_model, x):
            return u_model(x).numpy()

        def predict_torch(x):
            net = nn.Linear(2, 1)
            return net(x).numpy()
        """)
    assert [d.location.line for d in lint_source(source, "mixed.py") if d.code == "TCL009"] == [11]
    only_torch = source.replace("import tensorflow as tf\n", "")
    assert [d.location.line for d in lint_source(only_torch, "torch_only.py") if d.code == "TCL009"] == [6, 10]


# A notebook with a torch GAN and a Keras GAN, each trainer taking its networks as `generator` (fresh64's
# GAN coursework): the torch optimizer over one function's `generator` says nothing of another function's
# parameter of that name, nor of `self.generator` in a class unrelated to the one that trains it.
MIXED_FRAMEWORKS = """
    import tensorflow as tf
    import torch


    def train_gan(generator, discriminator, steps=100):
        opt_g = torch.optim.Adam(generator.parameters())
        for _ in range(steps):
            loss = discriminator(generator(torch.randn(8, 4))).mean()
            opt_g.zero_grad()
            loss.backward()
            opt_g.step()


    def train_dcgan(generator, dataset):
        fixed_noise = tf.random.normal((16, 8))
        return generator(fixed_noise, training=False).numpy()


    class Snapshot:
        def __init__(self, generator):
            self.generator = generator

        def take(self, noise):
            return self.generator(noise, training=False).numpy()
"""


def test_tcl009_a_parameter_of_the_name_another_function_trains_is_another_network():
    assert _lines(MIXED_FRAMEWORKS, "TCL009") == []


def test_tcl009_the_trained_network_handed_on_to_another_function_or_held_by_its_trainer_is_still_flagged():
    source = """
        import torch
        import torch.nn as nn


        def show(generator):
            return generator(torch.randn(4, 8)).numpy()


        def train(generator, steps=100):
            opt = torch.optim.Adam(generator.parameters())
            for _ in range(steps):
                loss = generator(torch.randn(4, 8)).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            show(generator)


        class Trainer:
            def __init__(self, generator):
                self.generator = generator
                self.opt = torch.optim.Adam(generator.parameters())

            def sample(self):
                return self.generator(torch.randn(4, 8)).numpy()


        G = nn.Linear(8, 8)
        opt_G = torch.optim.Adam(G.parameters())


        def sample(G):
            return G(torch.randn(4, 8)).numpy()


        train(nn.Linear(8, 8))
        sample(G)
    """
    assert _lines(source, "TCL009") == [6, 25, 33]

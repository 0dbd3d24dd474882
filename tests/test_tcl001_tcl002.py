"""Focused cases for TCL001 redundant-clone and TCL002 alias-mutated-in-place.

The rule pages (rules/TCL001.md, rules/TCL002.md) carry the realistic examples;
these are the small, tricky cases around them: which writes reach which
storage, which values escape, what the fix becomes. Cases where the current
analysis once disagreed with the right answer are kept at the end as regression tests.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from torchcopylint.diagnostic import Applicability
from torchcopylint.engine import lint_source
from torchcopylint.fix import fix_source

HEADER = """\
import torch
import torch as th
import torch.nn.functional as F
from torch import nn


"""


def block(forward_body: str, init_body: str = "self.fc = nn.Linear(dim, dim)", extra: str = "") -> str:
    """A module `Block` whose `forward(self, x)` runs `forward_body`."""
    init = textwrap.indent(textwrap.dedent(init_body).strip("\n"), " " * 8)
    body = textwrap.indent(textwrap.dedent(forward_body).strip("\n"), " " * 8)
    return (
        HEADER
        + "class Block(nn.Module):\n"
        + "    def __init__(self, dim: int):\n"
        + "        super().__init__()\n"
        + init
        + "\n\n    def forward(self, x):\n"
        + body
        + "\n"
        + (("\n\n" + textwrap.dedent(extra).strip("\n") + "\n") if extra else "")
    )


def line_of(source: str, text: str) -> int:
    """The 1-based line of the first line containing `text`."""
    return next(number for number, line in enumerate(source.splitlines(), 1) if text in line)


def lint(source: str, code: str) -> list:
    return [d for d in lint_source(source, "case.py") if d.code == code]


def lines(source: str, code: str) -> list[int]:
    return sorted(d.location.line for d in lint(source, code))


def fixed(source: str, code: str) -> str:
    outcome = fix_source(source, "case.py", lambda text: lint(text, code), unsafe=True)
    assert outcome.error is None
    return outcome.fixed


# --------------------------------------------------------------- TCL001 flagged


def test_residual_clone_is_flagged_with_safe_fix_and_residual_message():
    source = block("""
        identity = x.clone()
        out = self.fc(x)
        out += identity
        return out
    """)
    [diagnostic] = lint(source, "TCL001")
    assert diagnostic.location.line == line_of(source, "identity = x.clone()")
    added_back = line_of(source, "out += identity")
    assert "copies the block input" in diagnostic.message and f"added back at line {added_back}" in diagnostic.message
    assert diagnostic.fix.applicability is Applicability.SAFE
    assert "identity = x\n" in fixed(source, "TCL001")


def test_plain_message_when_the_copy_is_not_added_back():
    source = block("""
        gate = torch.sigmoid(self.fc(x))
        saved = gate.clone()
        return x * saved
    """)
    [diagnostic] = lint(source, "TCL001")
    assert diagnostic.location.line == line_of(source, "saved = gate.clone()")
    last_read = line_of(source, "return x * saved")
    assert "is never needed" in diagnostic.message and f"last read at line {last_read}" in diagnostic.message
    assert "nothing writes `gate` or `saved` in place" in diagnostic.message


def test_a_copy_bound_to_its_own_name_is_named_once_in_the_message():
    source = block("""
        h = torch.relu(self.fc(x))
        h = h.clone()
        return x * h
    """)
    [diagnostic] = lint(source, "TCL001")
    assert "nothing writes `h` in place before `h` is last read" in diagnostic.message


@pytest.mark.parametrize("spelling", [
    "torch.clone(x)",
    "th.clone(x)",
    "x.clone(memory_format=torch.preserve_format)",
])
def test_clone_spellings(spelling):
    source = block(f"""
        identity = {spelling}
        return self.fc(x) + identity
    """)
    assert lines(source, "TCL001") == [line_of(source, spelling)]
    assert "identity = x\n" in fixed(source, "TCL001")


def test_annotated_assignment_is_a_copy_too():
    source = block("""
        identity: torch.Tensor = x.clone()
        return self.fc(x) + identity
    """)
    assert lines(source, "TCL001") == [line_of(source, "x.clone()")]


def test_write_before_the_clone_does_not_make_it_needed():
    source = block("""
        h = self.fc(x)
        h.relu_()
        identity = h.clone()
        return self.fc(h) + identity
    """)
    assert lines(source, "TCL001") == [line_of(source, "h.clone()")]


def test_in_place_write_on_a_fresh_tensor_does_not_make_it_needed():
    source = block("""
        identity = x.clone()
        out = self.act(self.fc(x))
        return out + identity
    """, init_body="""
        self.fc = nn.Linear(dim, dim)
        self.act = nn.ReLU(inplace=True)
    """)
    assert lines(source, "TCL001") == [line_of(source, "x.clone()")]


def test_rebinding_the_source_then_writing_the_new_tensor():
    source = block("""
        identity = x.clone()
        x = self.fc(x)
        x.relu_()
        return x + identity
    """)
    assert lines(source, "TCL001") == [line_of(source, "x.clone()")]


def test_module_subclass_through_a_local_base_class():
    source = HEADER + textwrap.dedent("""\
        class Base(nn.Module):
            pass


        class Block(Base):
            def __init__(self, dim: int):
                super().__init__()
                self.fc = nn.Linear(dim, dim)

            def forward(self, x):
                identity = x.clone()
                return self.fc(x) + identity
        """)
    assert lines(source, "TCL001") == [line_of(source, "x.clone()")]


def test_unknown_layer_between_clone_and_read_makes_the_fix_unsafe():
    source = (
        "import torch\nfrom torch import nn\nfrom somewhere import ConvBlock\n\n\n"
        "class Block(nn.Module):\n"
        "    def __init__(self, dim: int):\n"
        "        super().__init__()\n"
        "        self.body = ConvBlock(dim)\n\n"
        "    def forward(self, x):\n"
        "        identity = x.clone()\n"
        "        return self.body(x) + identity\n"
    )
    [diagnostic] = lint(source, "TCL001")
    assert diagnostic.location.line == line_of(source, "x.clone()")
    assert diagnostic.message.endswith("(assuming self.body() does not write its input in place)")
    assert diagnostic.fix.applicability is Applicability.UNSAFE


# ---------------------------------------------------------------- TCL001 silent


@pytest.mark.parametrize("write", [
    "x.relu_()",
    "x += 1",
    "x[:, 0] = 0",
    "x.data.clamp_(min=0)",
    "F.relu(x, inplace=True)",
    "F.relu(x, True)",
    "torch.relu_(x)",
    "torch.mul(x, 2, out=x)",
    "x.view(-1).mul_(2)",
    "x.detach().zero_()",
])
def test_write_to_the_source_keeps_the_clone(write):
    source = block(f"""
        identity = x.clone()
        {write}
        return self.fc(x) + identity
    """)
    assert lines(source, "TCL001") == []


@pytest.mark.parametrize("identity_read", [
    "print(copy.data_ptr() == x.data_ptr())",
    "same = copy.storage().data_ptr() == x.storage().data_ptr()",
    "print(copy.untyped_storage().data_ptr())",
    "print(copy is x)",
    "print(id(copy) != id(x))",
])
def test_a_read_of_which_memory_the_copy_is_keeps_the_clone(identity_read):
    # A lesson showing that clone() allocates: without the copy, what it prints changes.
    source = block(f"""
        copy = x.clone()
        {identity_read}
        return self.fc(x) + copy
    """)
    assert lines(source, "TCL001") == []


def test_a_read_of_the_copy_s_shape_or_values_is_no_identity_read():
    source = block("""
        copy = x.clone()
        print(copy.shape, copy.size(0), copy is not None)
        return self.fc(x) + copy
    """)
    assert lines(source, "TCL001") == [line_of(source, "copy = x.clone()")]


@pytest.mark.parametrize("init", [
    "self.act = nn.ReLU(inplace=True)",
    "self.act = nn.ReLU(True)",
    "self.act = nn.Dropout(0.1, inplace=True)",
    "self.act = nn.Sequential(nn.ReLU(inplace=True), nn.Linear(dim, dim))",
])
def test_in_place_layer_on_the_source_keeps_the_clone(init):
    source = block("""
        identity = x.clone()
        out = self.act(x)
        return out + identity
    """, init_body=init)
    assert lines(source, "TCL001") == []


def test_local_in_place_module_keeps_the_clone():
    source = block("""
        act = nn.ReLU(inplace=True)
        identity = x.clone()
        return act(x) + identity
    """)
    assert lines(source, "TCL001") == []


def test_local_class_whose_forward_writes_its_input_keeps_the_clone():
    source = block("""
        identity = x.clone()
        return self.act(x) + identity
    """, init_body="self.act = ScaledReLU()", extra="""
        class ScaledReLU(nn.Module):
            def forward(self, x):
                return x.clamp_(min=0).mul_(2.0)
    """)
    assert lines(source, "TCL001") == []


def test_annotated_local_function_writing_its_argument_keeps_the_clone():
    source = block("""
        identity = x.clone()
        return clip_(x) + identity
    """, extra="""
        def clip_(t: torch.Tensor) -> torch.Tensor:
            return t.clamp_(-1.0, 1.0)
    """)
    assert lines(source, "TCL001") == []


@pytest.mark.parametrize("write", [
    "left, right = x.chunk(2, dim=1)\n        right.relu_()",
    "x.chunk(2, dim=1)[0].relu_()",
    "head, tail = x.split([1, 3], dim=1)\n        tail.zero_()",
])
def test_write_through_a_chunk_of_the_source_keeps_the_clone(write):
    # chunk/split/unbind return views of x (autograd forbids writing them in grad
    # mode; under no_grad, or on tensors that do not require grad, the write goes to x).
    source = block(f"""
        identity = x.clone()
        {write}
        return self.fc(x) + identity
    """)
    assert lines(source, "TCL001") == []


def test_write_to_a_view_of_the_source_keeps_the_clone():
    source = block("""
        tokens = x.flatten(1)
        saved = tokens.clone()
        x.relu_()
        return self.fc(x) + saved
    """)
    assert lines(source, "TCL001") == []


def test_write_through_a_view_of_the_copy_keeps_the_clone():
    source = block("""
        saved = x.clone()
        flat = saved.view(-1)
        flat.mul_(0.5)
        return self.fc(x) + saved
    """)
    assert lines(source, "TCL001") == []


def test_write_after_the_last_read_keeps_the_clone():
    # Autograd saved `branch` for the multiplication's backward; without the
    # clone, the in-place ReLU would fail that backward.
    source = block("""
        branch = x.clone()
        scaled = branch * self.gamma
        features = self.act(x)
        return scaled, features
    """, init_body="""
        self.gamma = nn.Parameter(torch.ones(dim))
        self.act = nn.ReLU(inplace=True)
    """)
    assert lines(source, "TCL001") == []


@pytest.mark.parametrize("index", ["i", "int(actions[i])", "actions[i].item()"])
def test_an_item_write_through_a_row_keeps_the_clone(index):
    # A DQN target: `target[i]` is a view of `target` when `i` is an int, so the write reaches it.
    source = block(f"""
        prediction = self.fc(x)
        target = prediction.clone()
        for i in range(len(actions)):
            target[i][{index}] = 1.0
        return ((target - prediction) ** 2).mean()
    """)
    assert lines(source, "TCL001") == []


@pytest.mark.parametrize("index", ["j", "assignment[\"j\"]"])
def test_a_write_through_a_column_of_an_unknown_index_keeps_the_clone(index):
    # fresh95's neuron merging: `merged[:, asn["j"]].add_(...)` with `asn["j"]` an int from `.tolist()` is
    # a view of the copy, so the clone keeps the weight it copies from unchanged. What the index holds,
    # the code does not say: an int makes the write reach the copy.
    source = block(f"""
        merged = x.clone()
        for assignment, j in pairs:
            merged[:, {index}].add_(0.5)
        return self.fc(merged) + x
    """)
    assert lines(source, "TCL001") == []


def test_a_write_through_a_list_index_still_leaves_the_copy_unwritten():
    # `merged[:, [0, 2]]` gathers into new memory: the write goes there, not into the copy.
    source = block("""
        merged = x.clone()
        merged[:, [0, 2]].add_(0.5)
        return self.fc(merged)
    """)
    assert lines(source, "TCL001") != []


def test_loop_carried_write_keeps_the_clone():
    source = block("""
        h = self.fc(x)
        initial = h.clone()
        for _ in range(3):
            h.mul_(0.9).add_(self.fc(initial))
        return h
    """)
    assert lines(source, "TCL001") == []


def test_conditional_write_keeps_the_clone():
    source = block("""
        identity = x.clone()
        if self.training:
            x.mul_(0.5)
        return self.fc(x) + identity
    """)
    assert lines(source, "TCL001") == []


@pytest.mark.parametrize("escape", [
    "return self.fc(x), copy",
    "self.cache = copy\n        return self.fc(x)",
    "self.bank.append(copy)\n        return self.fc(x)",
    "pair = (copy, x)\n        return self.fc(x), pair",
    "torch.save(copy, 'dump.pt')\n        return self.fc(x)",
    "hook(copy)\n        return self.fc(x)",
])
def test_an_escaping_copy_is_not_judged(escape):
    source = block(f"""
        copy = x.clone()
        {escape}
    """)
    assert lines(source, "TCL001") == []


def test_source_passed_to_an_unknown_function_keeps_the_clone():
    source = block("""
        identity = x.clone()
        augment_(x)
        return self.fc(x) + identity
    """)
    assert lines(source, "TCL001") == []


@pytest.mark.parametrize("memory_format", ["torch.channels_last", "torch.contiguous_format"])
def test_layout_changing_clone_is_not_judged(memory_format):
    source = block(f"""
        identity = x.clone(memory_format={memory_format})
        return self.fc(x) + identity
    """)
    assert lines(source, "TCL001") == []


def test_parameter_of_another_function_is_not_an_activation():
    source = HEADER + textwrap.dedent("""\
        def residual(x: torch.Tensor, layer: nn.Module) -> torch.Tensor:
            identity = x.clone()
            return layer(x) + identity
        """)
    assert lines(source, "TCL001") == []


def test_forward_of_a_class_that_is_not_a_module_is_not_judged():
    source = HEADER + textwrap.dedent("""\
        class Helper:
            def forward(self, x):
                identity = x.clone()
                return x * 2 + identity
        """)
    assert lines(source, "TCL001") == []


def test_self_state_and_loop_variables_are_not_activations():
    source = block("""
        negatives = self.queue.clone()
        total = 0
        for feature in x:
            copy = feature.clone()
            total = total + self.fc(copy)
        return total, negatives
    """, init_body="""
        self.fc = nn.Linear(dim, dim)
        self.register_buffer("queue", torch.zeros(4, dim))
    """)
    assert lines(source, "TCL001") == []


def test_copy_that_is_never_read_is_not_judged():
    source = block("""
        unused = x.clone()
        return self.fc(x)
    """)
    assert lines(source, "TCL001") == []


# --------------------------------------------------------------- TCL002 flagged


@pytest.mark.parametrize("write, event", [
    ("x.relu_()", "`x.relu_()`"),
    ("x += 1", "`x += ...`"),
    ("x -= x.mean()", "`x -= ...`"),
    ("x[..., 0] = 0", "line N"),
    ("x[:, :2] += 1", "line N"),
    ("F.relu(x, inplace=True)", "`F.relu(..., inplace=True)`"),
    ("F.relu(x, True)", "`F.relu(..., inplace=True)`"),
    ("torch.relu_(x)", "`torch.relu_()`"),
    ("torch.mul(x, 2, out=x)", "`out=` argument"),
    ("x = x.relu_()", "`x.relu_()`"),
    ("x.data.zero_()", "`x.data.zero_()`"),
    ("x.T.relu_()", "`x.T.relu_()`"),
])
def test_alias_read_after_a_write_through_the_source(write, event):
    source = block(f"""
        identity = x
        {write}
        return self.fc(x) + identity
    """)
    [diagnostic] = lint(source, "TCL002")
    assert diagnostic.location.line == line_of(source, "identity = x")
    assert event.replace("line N", f"line {line_of(source, write)}") in diagnostic.message
    assert diagnostic.message.startswith("`identity` aliases `x`, which ")
    read = line_of(source, "return self.fc(x) + identity")
    assert diagnostic.message.endswith(f"before `identity` is read at line {read}")
    assert diagnostic.fix.applicability is Applicability.UNSAFE
    assert "identity = x.clone()\n" in fixed(source, "TCL002")


@pytest.mark.parametrize("alias", [
    "x.detach()", "x.data", "x.T", "x[:, :2]", "x[-1]", "x[..., None]", "x.view(-1)", "x.reshape(-1)",
    "x.flatten(1)", "x.unsqueeze(0)", "x.squeeze()", "x.permute(1, 0)", "x.transpose(0, 1)", "x.t()",
    "x.expand(4, -1, -1)", "x.narrow(1, 0, 2)", "torch.flatten(x)",
])
def test_views_and_detached_aliases_are_aliases(alias):
    source = block(f"""
        identity = {alias}
        x.relu_()
        return self.fc(x), identity
    """)
    assert lines(source, "TCL002") == [line_of(source, "identity = ")]
    assert f"identity = {alias}.clone()\n" in fixed(source, "TCL002")


def test_conditional_alias_is_parenthesized_by_the_fix():
    source = block("""
        identity = x.flatten(1) if self.training else x
        x.relu_()
        return self.fc(x), identity
    """)
    assert lines(source, "TCL002") == [line_of(source, "identity = ")]
    assert "identity = (x.flatten(1) if self.training else x).clone()\n" in fixed(source, "TCL002")


@pytest.mark.parametrize("init", ["self.act = nn.ReLU(inplace=True)", "self.act = nn.Identity()"])
def test_module_that_returns_its_input_keeps_the_storage(init):
    # `x = self.act(x)` with an in-place (or identity) module is not a rebinding to
    # new storage: the later `x.mul_()` still writes what `identity` holds.
    source = block("""
        identity = x
        x = self.act(x)
        x.mul_(2)
        return x + identity
    """, init_body=init)
    [diagnostic] = lint(source, "TCL002")
    assert diagnostic.location.line == line_of(source, "identity = x")
    assert f"`x.mul_()` (line {line_of(source, 'x.mul_(2)')})" in diagnostic.message \
        or f"self.act (ReLU(inplace=True), line {line_of(source, 'x = self.act(x)')})" in diagnostic.message


def test_write_through_another_alias_of_the_same_storage():
    source = block("""
        identity = x
        out = x
        out.relu_()
        return self.fc(out) + identity
    """)
    [diagnostic] = lint(source, "TCL002")
    assert diagnostic.location.line == line_of(source, "identity = x")
    assert f"`out.relu_()` (line {line_of(source, 'out.relu_()')})" in diagnostic.message


MODULE_THAT_WRITES_ITS_INPUT = """
import torch
from torch import nn


class AddPosition(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = nn.LayerNorm(4)

    def forward(self, x):
        x += 1
        return {returned}


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encode = AddPosition()
        self.decode = AddPosition()

    def forward(self, source):
        memory = self.encode(source)
        out = self.decode(source)
        return memory, out
"""


@pytest.mark.parametrize("returned, flagged", [("x", True), ("x.view(-1, 4)", True), ("self.norm(x)", False)])
def test_a_module_of_the_file_that_writes_its_input_returns_it_only_when_its_forward_does(returned, flagged):
    # When `encode` hands back its input, `memory` is `source`, which `decode` writes again before
    # `memory` is returned. A forward that returns a new value (a transformer's encoder: `x += pe`,
    # then `return self.norm(x)`) hands back no alias for the second write to change.
    # (Either way `source` itself is read by `decode` after `encode` wrote it: flagged on its own.)
    source = MODULE_THAT_WRITES_ITS_INPUT.format(returned=returned)
    messages = [diagnostic.message for diagnostic in lint(source, "TCL002")]
    assert any(message.startswith("`source` is read at line 24 after self.encode") for message in messages)
    assert any(message.startswith("`memory` aliases `self.encode(source)`") for message in messages) == flagged


def test_write_on_one_path_is_enough():
    source = block("""
        identity = x
        if self.training:
            x.relu_()
        return self.fc(x) + identity
    """)
    assert lines(source, "TCL002") == [line_of(source, "identity = x")]


def test_loop_carried_write_reaches_the_read_at_the_top_of_the_body():
    source = block("""
        h = self.fc(x)
        start = h
        for _ in range(3):
            out = self.fc(start)
            h.mul_(0.9)
        return h, out
    """)
    [diagnostic] = lint(source, "TCL002")
    assert diagnostic.location.line == line_of(source, "start = h")
    assert f"`h.mul_()` (line {line_of(source, 'h.mul_(0.9)')})" in diagnostic.message


@pytest.mark.parametrize("entry", ["done = True", "done = False\n            if n > 3:\n                done = True"])
def test_a_while_loop_that_may_not_run_leaves_the_held_tensor_to_the_write(entry):
    # The do-while spelling (`done = False`, then `while not done:`) runs its body at least once and
    # rebinds `v` (TCL002.md's Lanczos example); with the flag set otherwise, or set again in a branch,
    # the loop may not run, and `v -= ...` writes the tensor `V` holds.
    page_example = textwrap.dedent("""\
        import torch


        def lanczos(w, n, steps, buffer=2):
            v = torch.ones(n).to(w.device)
            V = [v]
            for _ in range(steps):
                b = torch.norm(w)
                if b > 0:
                    v = w / b
                else:
                    done = False
                    while not done:
                        v = torch.rand(n).to(w.device)
                        done = torch.norm(v) > 0
                for u in V:
                    v -= v.dot(u.to(v.device)) * u.to(v.device)
                V.append(v)
                if len(V) > buffer:
                    V[-buffer - 1] = V[-buffer - 1].cpu()
                w = w - v
            return V
    """)
    assert lines(page_example, "TCL002") == []
    source = page_example.replace("done = False", entry)
    assert lines(source, "TCL002") == [line_of(source, "V = [v]")]


# ---------------------------------------------------------------- TCL002 silent


LEGACY_ATTACK_LOOP = """\
import torch


def attack(w, target, steps, loss_kind):
    best_loss = 1e10
    for i in range(steps):
        if loss_kind == "l2":
            loss = torch.pow(w - target, 2).sum()
        else:
            loss = torch.clamp((w - target).abs() - 0.1, min=0).sum()
        recons_loss = loss.data[0]
        loss += w.abs().mean()
        adv_loss = loss.data[0] - recons_loss
        loss.backward()
        total_loss = loss.data.cpu()[0]
        if total_loss < best_loss:
            best_loss = total_loss
    return best_loss, adv_loss
"""


def test_an_element_of_last_iteration_s_tensor_is_not_one_of_the_next_and_a_full_reduction_has_no_element():
    # Code written for PyTorch before 0.4: `loss.data[0]` of a 0-dim loss read a number (an IndexError
    # since), so `recons_loss` aliases nothing; and `best_loss` names an element of the loss an earlier
    # iteration made, which the next iteration's `loss = ...` replaces before its `loss += ...`.
    assert lines(LEGACY_ATTACK_LOOP, "TCL002") == []


def test_an_element_of_a_tensor_with_dimensions_is_still_a_view_but_only_of_its_own_iteration():
    # Per-row losses: `loss.data[0]` is a view of the first row, which `loss += ...` overwrites before
    # `recons_loss` is read; `best_loss`, a view of an earlier iteration's row, is not written again.
    source = LEGACY_ATTACK_LOOP.replace(").sum()", ").sum(1)")
    assert lines(source, "TCL002") == [line_of(source, "recons_loss = loss.data[0]")]



@pytest.mark.parametrize("forward", [
    # rebinding before the write
    "identity = x\nx = self.fc(x)\nx.relu_()\nreturn x + identity",
    # the alias is taken after the write
    "x.relu_()\nidentity = x\nreturn self.fc(x) + identity",
    # read only before the write
    "identity = x\nout = self.fc(identity)\nx.relu_()\nreturn out, x",
    # the write is on a path that returns first
    "identity = x\nif self.training:\n    x.relu_()\n    return self.fc(x)\nreturn self.fc(x) + identity",
    # write through the alias itself, or a name derived from it
    "h = self.fc(x)\nout = h\nout.relu_()\nreturn out",
    "h = self.fc(x)\nout = h\nview = out.view(-1)\nview.relu_()\nreturn out + h",
    # advanced indexing copies
    "identity = x[:, [0, 1]]\nx.relu_()\nreturn self.fc(x), identity",
    "identity = x[x > 0]\nx.relu_()\nreturn self.fc(x), identity",
    "identity = x[:, self.index]\nx.relu_()\nreturn self.fc(x), identity",
    # copies
    "identity = x.clone()\nx.relu_()\nreturn self.fc(x) + identity",
    "identity = x * 1\nx.relu_()\nreturn self.fc(x) + identity",
    # a number, not a tensor
    "identity = x\ncount = 0\ncount += 1\nreturn self.fc(x) + identity * count",
    # a write to another tensor
    "identity = x\nself.running.mul_(0.9)\nreturn self.fc(x) + identity",
])
def test_tcl002_silent(forward):
    source = block(forward, init_body="""
        self.fc = nn.Linear(dim, dim)
        self.index = [0, 1]
        self.register_buffer("running", torch.zeros(dim))
    """)
    assert lines(source, "TCL002") == []


@pytest.mark.parametrize("init", [
    "self.act = nn.ReLU()",
    "self.act = nn.ReLU(inplace=False)",
    "self.act = nn.Dropout(0.1)",
])
def test_out_of_place_layers_do_not_write(init):
    source = block("""
        identity = x
        x = self.act(x)
        return x + identity
    """, init_body=init)
    assert lines(source, "TCL002") == []


# -------------------------------------------- cases the page review found (regression tests)


def test_inplace_given_as_a_variable_keeps_the_clone():
    source = HEADER + textwrap.dedent("""\
        class Block(nn.Module):
            def __init__(self, dim: int, inplace: bool = True):
                super().__init__()
                self.fc = nn.Linear(dim, dim)
                self.act = nn.ReLU(inplace=inplace)

            def forward(self, x):
                identity = x.clone()
                return self.fc(self.act(x)) + identity
        """)
    assert lines(source, "TCL001") == []


def test_functional_inplace_given_as_a_variable_keeps_the_clone():
    source = block("""
        identity = x.clone()
        out = F.relu(x, inplace=self.inplace)
        return self.fc(out) + identity
    """, init_body="""
        self.fc = nn.Linear(dim, dim)
        self.inplace = True
    """)
    assert lines(source, "TCL001") == []


def test_write_through_an_unbound_row_of_the_source_keeps_the_clone():
    source = block("""
        identity = x.clone()
        for row in x.unbind(0):
            row.relu_()
        return self.fc(x) + identity
    """)
    assert lines(source, "TCL001") == []


def test_contiguous_may_return_its_receiver():
    source = block("""
        h = x.contiguous()
        saved = h.clone()
        x.relu_()
        return self.fc(x) + saved
    """)
    assert lines(source, "TCL001") == []


def test_local_function_with_unannotated_parameter_writing_it_keeps_the_clone():
    source = block("""
        identity = x.clone()
        return self.fc(clip_(x, 1.0)) + identity
    """, extra="""
        def clip_(t, limit):
            t.clamp_(-limit, limit)
            return t
    """)
    assert lines(source, "TCL001") == []


def test_method_writing_its_argument_keeps_the_clone():
    source = HEADER + textwrap.dedent("""\
        class Block(nn.Module):
            def __init__(self, dim: int):
                super().__init__()
                self.fc = nn.Linear(dim, dim)

            def clip_(self, t, limit):
                return t.clamp_(-limit, limit)

            def forward(self, x):
                identity = x.clone()
                return self.fc(self.clip_(x, 1.0)) + identity
        """)
    assert lines(source, "TCL001") == []


def test_in_place_layer_named_update_is_seen():
    source = block("""
        identity = x
        out = self.update(x)
        return out + identity
    """, init_body="self.update = nn.ReLU(inplace=True)")
    assert lines(source, "TCL002") == [line_of(source, "identity = x")]


def test_yielded_copy_is_not_judged():
    source = block("""
        h = self.fc(x)
        snapshot = h.clone()
        yield snapshot
        yield self.fc(h)
    """)
    assert lines(source, "TCL001") == []


def test_message_names_the_first_write_deterministically():
    source = block("""
        membrane = self.fc(x)
        initial = membrane
        for _ in range(3):
            membrane.mul_(0.9).add_(self.fc(initial))
        return membrane
    """)
    messages = {lint(source, "TCL002")[0].message for _ in range(20)}
    assert len(messages) == 1
    assert f"`membrane.mul_()` (line {line_of(source, 'membrane.mul_(')})" in messages.pop()


# ------------------------------- reductions of findings on torchvision, timm and transformers

PRECISION_DATA = Path(__file__).parent / "data" / "precision"


@pytest.mark.parametrize("name", sorted(p.name for p in PRECISION_DATA.glob("fp*.py")))
def test_false_positives_found_on_real_code_stay_silent(name):
    # Each file reduces a wrong TCL002 seen on real model code: a tuple of subscript targets, an
    # unknown callee next to `out=`, a write on a sibling branch, a store through the alias, a full
    # overwrite through it, `.to(copy=True)`, metadata reads, a buffer copied onto itself in a loop.
    source = (PRECISION_DATA / name).read_text()
    assert [d.code for d in lint_source(source, name)] == []


def test_true_positive_found_on_real_code_is_kept():
    # A layer's MoE jitter (`h *= noise` in training) also rescales the residual taken before it.
    source = (PRECISION_DATA / "tp_minimax.py").read_text()
    [diagnostic] = lint_source(source, "tp_minimax.py")
    assert diagnostic.code == "TCL002" and diagnostic.location.line == 20


def test_the_value_a_loop_starts_from_is_not_called_a_rebinding_of_the_copy():
    source = (
        "import torch\n\n\n"
        "def run(x, steps):\n"
        "    prev = torch.ones_like(x)\n"
        "    total = 0\n"
        "    for _ in range(steps):\n"
        "        cur = torch.relu(x)\n"
        "        total = total + (1 - prev).sum()\n"
        "        prev = cur.clone()\n"
        "    return total\n"
    )
    [found] = [d for d in lint_source(source, "<x>") if d.code == "TCL001"]
    assert "rebound first" not in found.message


@pytest.mark.parametrize("conversion, flagged", [(".long()", False), (".to(torch.int64)", False),
                                                 (".float()", True)])
def test_a_write_through_a_conversion_to_integers_is_no_sure_write_of_the_source(conversion, flagged):
    # YOLO's targets: `gxy.long()` of box coordinates copies them (a float tensor converted), so
    # clamping the grid indices leaves `gxy` as it was; `.float()` of a float tensor is the tensor itself.
    source = HEADER + textwrap.dedent(f"""\
        def build_targets(targets, anchors, gain, layers, indices, boxes):
            targets = torch.cat((targets.repeat(3, 1, 1), anchors[:, :, None]), 2)
            for layer in layers:
                t = targets * gain
                gxy = t[:, 2:4]
                gij = gxy{conversion}
                gi, gj = gij.T
                indices.append((gj.clamp_(0, 15), gi.clamp_(0, 15)))
                boxes.append(torch.cat((gxy - gij, t[:, 4:6]), 1))
    """)
    assert bool(lines(source, "TCL002")) is flagged


@pytest.mark.parametrize("statement, flagged", [("x - self.act(x)", False), ("self.act(x)", False),
                                                ("y = x - self.act(x)", True)])
def test_a_layer_written_in_an_expression_whose_result_is_dropped_is_called_for_its_effect(statement, flagged):
    # `x - self.leaky_relu(x)`, a typo for `x = ...`: the statement does nothing but the in-place write,
    # and the author reads the activated `x` next, as intended.
    source = block(f"""
        x = self.fc(x)
        {statement}
        return self.fc(x)
    """, init_body="""
        self.fc = nn.Linear(dim, dim)
        self.act = nn.LeakyReLU(0.2, inplace=True)
    """)
    assert bool(lines(source, "TCL002")) is flagged


@pytest.mark.parametrize("switch", ["x_2.requires_grad = True", "x_2.requires_grad_()", "x.requires_grad_(True)"])
def test_a_copy_made_a_leaf_of_its_own_keeps_the_clone(switch):
    # fresh33's gradient test: `x_2 = x.clone()`, then both made leaves and their `.grad`s compared.
    # Without the copy they are one tensor: one leaf, one `.grad`, and the test compares it with itself.
    source = textwrap.dedent(f"""
        import torch

        for trial in range(10):
            x = torch.randn(10)
            x_2 = x.clone()
            {switch}
            y = torch.clamp(x_2, min=0).sum()
            y.backward()
    """)
    assert lines(source, "TCL001") == []
    without_switch = source.replace(switch, "pass")
    assert lines(without_switch, "TCL001") == [line_of(without_switch, "x_2 = x.clone()")]


def test_cuts_at_constant_positions_of_one_dimension_are_disjoint_and_cross_those_of_another():
    # A PixelCNN's logistic-mixture sampler (fresh62) clamps channel 0 in place, keeps it, then writes
    # channels 1 and 2 in place: `x[:, :, :, 1]` shares no element with `x[:, :, :, 0]`. A write to the
    # same channel, to the whole, or along another dimension (`x[1]` crosses every column) overwrites it.
    source = HEADER + textwrap.dedent("""\
        def sample_channels(means: torch.Tensor, coeffs: torch.Tensor):
            x = means + torch.randn_like(means)
            x0 = x[:, :, :, 0].clamp_(-1.0, 1.0)
            x1 = x[:, :, :, 1].add_(coeffs[:, :, :, 0] * x0).clamp_(-1.0, 1.0)
            x2 = x[:, :, :, 2].add_(coeffs[:, :, :, 1] * x0 + coeffs[:, :, :, 2] * x1).clamp_(-1.0, 1.0)
            return torch.cat((x0.unsqueeze(1), x1.unsqueeze(1), x2.unsqueeze(1)), dim=1)


        def same_channel(means: torch.Tensor):
            x = means + 1.0
            x0 = x[:, :, 0].relu_()
            x[:, :, 0].mul_(2.0)
            return x0


        def across(means: torch.Tensor):
            x = means + 1.0
            first_column = x[:, 0].clamp_(-1.0, 1.0)
            x[1].add_(1.0)
            return first_column


        def whole(means: torch.Tensor):
            x = means + 1.0
            x0 = x[:, :, 0]
            x.add_(1.0)
            return x0
    """)
    found = sorted((d.location.line, d.message.split(", which")[0]) for d in lint_source(source, "<x>") if d.code == "TCL002")
    assert found == [(line_of(source, "x0 = x[:, :, 0].relu_()"), "`x0` aliases `x[:, :, 0].relu_()`"),
                     (line_of(source, "first_column = x[:, 0]"), "`first_column` aliases `x[:, 0].clamp_(-1.0, 1.0)`"),
                     (line_of(source, "def whole") + 2, "`x0` aliases `x[:, :, 0]`")], found


def test_constant_ranges_of_one_dimension_share_what_they_overlap_and_a_matmul_assignment_rebinds():
    # A YOLO head (fresh76) scales the class scores `x[:, :, 5:]` in place and then reads the boxes
    # `x[:, :, :4]`: disjoint channel ranges. `boxes @= m` is `boxes = boxes @ m` (torch.Tensor has no
    # `__imatmul__`), which writes nothing. Overlapping ranges, or a range along another dimension, do share.
    source = HEADER + textwrap.dedent("""\
        def decode(x: torch.Tensor, m: torch.Tensor):
            x = x + 0.0
            boxes = x[:, :, :4]
            conf = x[:, :, 4:5]
            scores = x[:, :, 5:]
            scores *= conf
            boxes @= m
            return boxes, scores.max(2), conf


        def overlapping(x: torch.Tensor):
            x = x + 0.0
            head = x[:, :4]
            tail = x[:, 2:]
            tail.mul_(2.0)
            return head


        def other_dimension(x: torch.Tensor):
            x = x + 0.0
            rows = x[:2]
            columns = x[:, 1:3]
            columns.zero_()
            return rows


        def after_an_ellipsis(labels: torch.Tensor):
            labels = labels + 0.0
            box = labels[..., 21:25]
            classes = labels[..., 0:20]
            rest = labels[..., 20:]
            last_row = labels[-1]
            box[..., 2:4] = torch.sqrt(box[..., 2:4])
            return classes, rest, last_row
    """)
    found = sorted((d.location.line, d.message.split(", which")[0]) for d in lint_source(source, "<x>") if d.code == "TCL002")
    # After `...` a range counts from the last dimension (fresh98's YOLOv1 loss): it is told apart from
    # another range after `...`, never from one counted from the first dimension.
    assert found == [(line_of(source, "head = x[:, :4]"), "`head` aliases `x[:, :4]`"),
                     (line_of(source, "rows = x[:2]"), "`rows` aliases `x[:2]`"),
                     (line_of(source, "rest = labels[..., 20:]"), "`rest` aliases `labels[..., 20:]`"),
                     (line_of(source, "last_row = labels[-1]"), "`last_row` aliases `labels[-1]`")], found


def test_ranges_split_at_the_same_expression_are_disjoint_and_other_ranges_of_names_are_not():
    # A YOLO loss (fresh91) splits each target row at `5 * B` into boxes (reshaped, written) and class
    # scores (read): `[:e]` and `[e:]` share nothing whatever `e` holds. Ranges that end and start at
    # different names may overlap, and do share as far as the linter knows.
    source = HEADER + textwrap.dedent("""\
        def split(target: torch.Tensor, pred: torch.Tensor, B: int, n: int):
            target = target + 0.0
            boxes = target[:, :5 * B].contiguous().view(-1, 5)
            classes = target[:, 5*B:]
            for i in range(n):
                boxes[i, 4] = 1.0
            return (pred - classes).sum()


        def unrelated(target: torch.Tensor, j: int, k: int):
            target = target + 0.0
            head = target[:, :k]
            tail = target[:, j:]
            tail.mul_(2.0)
            return head
    """)
    found = sorted((d.location.line, d.message.split(", which")[0]) for d in lint_source(source, "<x>") if d.code == "TCL002")
    assert found == [(line_of(source, "head = target[:, :k]"), "`head` aliases `target[:, :k]`")], found


def test_rows_of_a_tensor_are_disjoint_parts_of_it():
    # `gi, gj = gij.T` (fresh45: a YOLO build_targets walkthrough): a write to one row leaves the other
    # as it was, but changes the whole, and whatever else views it.
    source = HEADER + textwrap.dedent("""\
        def grid_cells(centres: torch.Tensor, offsets: torch.Tensor, width: int, height: int):
            cells = (centres - offsets).long()
            flat = cells.view(-1)
            columns, rows = cells.T
            kept_rows = rows.clamp_(0, height - 1)
            columns.clamp_(0, width - 1)
            return kept_rows, flat.tolist()


        def pieces(points):
            base = torch.tensor(points)
            xs, ys = base.unbind(1)
            left = xs.clamp_(min=0)
            ys.clamp_(min=0)
            return left.sum()
    """)
    found = [d.message for d in lint_source(source, "<x>") if d.code == "TCL002"]
    assert len(found) == 1 and found[0].startswith("`flat` aliases `cells.view(-1)`, which"), found


def test_tcl001_a_residual_block_nested_in_a_generator_s_layers_is_judged_whatever_order_facts_come_in():
    # fresh65's StarGAN notebook: the generator's `self.layers` holds the residual blocks it calls in turn.
    # The finding was lost when the question of whether a call builds a network forced the facts of every
    # function while one function's own were being computed (a7a211c; now asked where the call is judged).
    source = """
    import torch.nn as nn

    channel_g, depth_g = 64, 6




    class CNA(nn.Module):
        def __init__(self, in_channels, out_channels, kernel_size, stride, padding, channels_condition, is_conv=True, is_act=True):
            super().__init__()
            if is_conv:
                self.conv = nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, bias=False)
            else:
                self.conv = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride, padding, bias=False)
            self.norm = CIN(out_channels, channels_condition)
            if is_act:
                self.act = nn.ReLU()
            else:
                self.act = nn.Identity()
        def forward(self, x, c):
            x = self.conv(x)
            x = self.norm(x, c)
            x = self.act(x)
            return x


    class ResBlock(nn.Module):
        def __init__(self, channel, channels_condition):
            super().__init__()
            self.layers = nn.ModuleList([CNA(channel, channel, 3, 1, 1, channels_condition, True, True), 
                                         CNA(channel, channel, 3, 1, 1, channels_condition, True, False)])
        def forward(self, x, c):
            y = x.clone()
            for layer in self.layers:
                x = layer(x, c)
            return x + y


    class Generator(nn.Module):
        def __init__(self, channel=channel_g, depth=depth_g, channels_condition=5):
            super().__init__()
            self.conv1 = CNA(3, channel, 7, 1, 3, channels_condition, True)
            self.layers = nn.ModuleList()
            self.layers.append(CNA(channel, channel*2, 4, 2, 1, channels_condition, True))
            self.layers.append(CNA(channel*2, channel*4, 4, 2, 1, channels_condition, True))
            for _ in range(depth):
                self.layers.append(ResBlock(channel*4, channels_condition))
            self.layers.append(CNA(channel*4, channel*2, 4, 2, 1, channels_condition, False))
            self.layers.append(CNA(channel*2, channel, 4, 2, 1, channels_condition, False))
            self.conv2 = nn.Conv2d(channel, 3, 7, 1, 3, bias=False)
        def forward(self, x, c):
            x = self.conv1(x, c)
            # y = x.clone()
            for layer in self.layers:
                x = layer(x, c)
            # x = x + y
            x = self.conv2(x)
            return x
    """
    assert lines(textwrap.dedent(source), "TCL001") == [34]  # `y = x.clone()` of ResBlock.forward


@pytest.mark.parametrize("key", ['"target"', "f\"target_{name}\"", '"tar" "get"'])
def test_a_string_key_fills_a_dict_and_writes_no_tensor(key):
    # `outputs` may be the network's own dict (the `isinstance` branch) or a dict made around its
    # tensor: a tensor takes no string key, so `outputs[<string>] = ...` writes no tensor storage.
    source = HEADER + textwrap.dedent(f"""\
        def step(net, x, name):
            logits = net(x)
            if isinstance(logits, dict):
                outputs = logits
            else:
                outputs = {{"logits": logits}}
            outputs[{key}] = torch.sigmoid(logits)
            return outputs
        """)
    assert lines(source, "TCL002") == []


def test_an_integer_key_through_the_same_alias_is_still_a_tensor_write():
    source = HEADER + textwrap.dedent("""\
        def step(net, x, name):
            logits = net(x)
            if isinstance(logits, dict):
                outputs = logits
            else:
                outputs = {"logits": logits}
            outputs[0] = torch.sigmoid(logits)
            return outputs
        """)
    assert lines(source, "TCL002") == [line_of(source, '{"logits": logits}')]


@pytest.mark.parametrize("holder", [
    "@dataclass(frozen=True)\nclass Diagnostics:\n    kl: torch.Tensor\n    log_var: torch.Tensor\n",
    "class Diagnostics:\n    def __init__(self, kl, log_var):\n        self.kl = kl\n        self.log_var = log_var\n",
])
def test_a_copy_kept_by_an_object_of_a_class_of_the_file_leaves_the_function(holder):
    # fresh110's VAE diagnostics: two fields made from one NaN tensor, returned in a frozen dataclass. Without
    # the copies the two fields would be one tensor, and whoever holds the object may write either.
    source = HEADER + "from dataclasses import dataclass\n\n\n" + holder + textwrap.dedent("""\


        def diagnose(n):
            nan_values = torch.full((n,), float("nan"))
            kl = nan_values.clone()
            log_var = nan_values.clone()
            return Diagnostics(kl=kl, log_var=log_var)
        """)
    assert lines(source, "TCL001") == []


def test_a_copy_handed_to_a_function_of_the_file_that_only_reads_it_is_still_redundant():
    source = HEADER + textwrap.dedent("""\
        def total(kl):
            return kl.sum()


        def diagnose(n):
            nan_values = torch.full((n,), float("nan"))
            kl = nan_values.clone()
            return total(kl)
        """)
    assert lines(source, "TCL001") == [line_of(source, "kl = nan_values.clone()")]

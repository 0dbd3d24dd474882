"""What a call does to what it is handed: the write summaries of the file's functions, methods,
lambdas and module forwards (analysis/effects.py), the catalog's writers, and the aliases local
containers hold (analysis/aliasing.py), read through TCL001, TCL002 and TCL006.

The summary is the one place "this function writes its argument" lives; other analyses read
`ModuleFacts.function_effect(...).writes`, so its shape is tested here too.
"""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest

from torchcopylint.analysis.facts import ModuleFacts
from torchcopylint.engine import lint_source

HEADER = "import torch\nimport torch.distributed as dist\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"


def source_of(body: str) -> str:
    return HEADER + textwrap.dedent(body).strip("\n") + "\n"


def codes(body: str, code: str) -> list[int]:
    source = source_of(body)
    return sorted(d.location.line for d in lint_source(source, "case.py") if d.code == code)


def line_of(body: str, text: str) -> int:
    return next(n for n, line in enumerate(source_of(body).splitlines(), 1) if text in line)


def facts_of(body: str) -> ModuleFacts:
    source = source_of(body)
    return ModuleFacts(cst.parse_module(source), "case.py", source)


def summary(body: str, name: str) -> dict:
    """{parameter: (certainty, through)} of a module-level function's write summary."""
    facts = facts_of(body)
    effect = facts.function_effect(facts.module_functions[name], name)
    return {entry.name: (entry.certainty, entry.through) for entry in effect.writes}


# ------------------------------------------------------------------ the summary's shape


def test_summary_lists_every_parameter_with_what_is_done_to_it():
    found = summary("""
        def helper(a, b, c, d, *rest, scale=1.0, **options):
            a.add_(1)
            if scale != 1.0:
                b.mul_(scale)
            for _ in range(3):
                c.zero_()
            print(d, rest, options)
    """, "helper")
    assert found == {"a": ("sure", ""), "b": ("maybe", ""), "c": ("maybe", ""), "d": ("pure", ""),
                     "rest": ("opaque", ""), "scale": ("pure", ""), "options": ("opaque", "")}


def test_summary_positions_skip_self_and_keyword_only_parameters_have_none():
    facts = facts_of("""
        class Helper:
            def write(self, t, *, out):
                t.add_(1)
                out.zero_()
    """)
    method = facts.classes["Helper"].methods["write"]
    effect = facts.function_effect(method, "helper.write")
    assert effect.kind == "writes" and effect.argument == 0 and not effect.layer
    assert [(e.name, e.position, e.certainty) for e in effect.writes] == [("t", 0, "sure"), ("out", None, "sure")]


def test_summary_says_through_which_named_detached_alias():
    body = """
        def show(t):
            pixels = t.detach().numpy()
            pixels *= 255
            return pixels

        def update(t, s):
            t.data.mul_(s)
    """
    assert summary(body, "show")["t"] == ("sure", "t.detach().numpy()")
    assert summary(body, "update")["t"] == ("sure", "")  # written through the view, not a named alias


def test_augmented_assignment_on_an_untyped_parameter_writes_a_tensor_passed_to_it():
    body = """
        def shift(t):
            t -= 1

        def use(x: torch.Tensor, n: int):
            kept = x
            shift(x)
            count = n
            shift(n)
            return kept, count
    """
    assert summary(body, "shift")["t"] == ("tensor", "")
    assert codes(body, "TCL002") == [line_of(body, "kept = x")]


def test_recursion_and_deep_chains_stay_unknown():
    body = """
        def a(t, n):
            t.add_(1)
            return b(t, n - 1) if n else t

        def b(t, n):
            return a(t, n)

        def use(x: torch.Tensor):
            kept = x
            b(x, 3)
            return kept
    """
    facts = facts_of(body)
    assert facts.function_effect(facts.module_functions["a"], "a").kind == "writes"
    assert facts.function_effect(facts.module_functions["b"], "b").kind in ("opaque", "writes")
    chain = "\n".join(f"def f{i}(t):\n    return f{i + 1}(t)\n" for i in range(40)) + "def f40(t):\n    t.add_(1)\n"
    deep = facts_of(chain + "\ndef use(x: torch.Tensor):\n    kept = x\n    f0(x)\n    return kept\n")
    assert deep.function_effect(deep.module_functions["f0"], "f0").kind == "opaque"  # bounded, not a crash
    assert [d.code for d in lint_source(source_of(chain + "\ndef use(x: torch.Tensor):\n    kept = x\n    f0(x)\n"
                                                  "    return kept\n"), "deep.py")] == []


# ------------------------------------------------------------------ callees of every kind


@pytest.mark.parametrize("helper, call", [
    ("def clip_(t):\n    t.clamp_(0, 1)\n", "clip_(x)"),
    ("def clip_(t):\n    t.detach().clamp_(0, 1)\n", "clip_(x)"),
    ("def clip_(t):\n    t[..., 0] = 0\n", "clip_(x)"),
    ("def clip_(t, lo=0):\n    t.clamp_(lo, 1)\n", "clip_(t=x)"),
    ("clip_ = lambda t: t.clamp_(0, 1)\n", "clip_(x)"),
    ("class Clip:\n    def apply(self, t):\n        t.clamp_(0, 1)\n", "Clip().apply(x)"),
    ("class Base:\n    def apply(self, t):\n        t.clamp_(0, 1)\n\n\nclass Clip(Base):\n    pass\n",
     "Clip().apply(x)"),
])
def test_callees_that_write_their_argument(helper, call):
    body = helper + f"\n\ndef use(x: torch.Tensor):\n    kept = x\n    {call}\n    return kept\n"
    assert codes(body, "TCL002") == [line_of(body, "kept = x")]


@pytest.mark.parametrize("helper, call", [
    ("def clip_(t, lo=0):\n    t.clamp_(lo, 1)\n", "clip_(0, x)"),  # x is not the written parameter
    ("def clip_(t):\n    t.clamp_(0, 1)\n", "clip_(*[x])"),  # which parameter x lands in is unknown
    ("class Clip(SomeBase):\n    pass\n", "Clip().apply(x)"),  # the method may come from elsewhere
    ("def clip_(t):\n    if t.numel() > 4:\n        t.clamp_(0, 1)\n", "clip_(x)"),
    ("def clip_(t):\n    for row in range(2):\n        t.clamp_(0, 1)\n", "clip_(x)"),
    ("def clip_(t):\n    return t.clamp(0, 1)\n", "x = clip_(x)"),
])
def test_callees_not_known_to_write_their_argument(helper, call):
    body = helper + f"\n\ndef use(x: torch.Tensor):\n    kept = x\n    {call}\n    return kept\n"
    assert codes(body, "TCL002") == []


def test_a_function_that_writes_its_argument_does_not_return_it():
    body = """
        def normalize(t):
            t.sub_(t.mean())
            return t.norm()

        def use(x: torch.Tensor):
            norm = normalize(x)
            x.add_(1)
            return norm
    """
    assert codes(body, "TCL002") == []


def test_copy_handed_to_a_helper_that_writes_it_conditionally_is_needed():
    body = """
        def maybe_clip(t, limit):
            if limit is not None:
                t.clamp_(-limit, limit)

        class Block(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.fc = nn.Linear(dim, dim)

            def forward(self, x):
                y = x.clone()
                maybe_clip(y, 1.0)
                return self.fc(x) + y
    """
    assert codes(body, "TCL001") == []


@pytest.mark.parametrize("call", [
    "dist.all_reduce(y)", "dist.broadcast(y, 0)", "dist.all_reduce(tensor=y)", "dist.all_gather([y, z], x)",
    "dist.reduce_scatter(y, [x, x])", "nn.init.normal_(y)", "torch._foreach_mul_([y, z], 2.0)",
    "torch.add(x, 1, out=y)",
])
def test_copy_written_by_a_torch_function_is_needed(call):
    body = f"""
        class Block(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.fc = nn.Linear(dim, dim)

            def forward(self, x):
                y = x.clone()
                z = self.fc(x)
                {call}
                return self.fc(x) + y + z
    """
    assert codes(body, "TCL001") == []


# ------------------------------------------------------------------ module forwards


def test_forward_branch_on_a_self_flag_is_a_sure_write_but_an_input_test_is_not():
    body = """
        class Jitter(nn.Module):
            def forward(self, h):
                if self.training and self.noise > 0:
                    h *= 1.1
                return h

        class Checked(nn.Module):
            def forward(self, h):
                if h.dim() > 2:
                    h *= 1.1
                return h

        class Layer(nn.Module):
            def __init__(self):
                super().__init__()
                self.jitter = Jitter()
                self.checked = Checked()
                self.fc = nn.Linear(4, 4)

            def forward(self, x):
                a = self.fc(x)
                kept = a
                self.jitter(a)
                b = self.fc(x)
                also = b
                self.checked(b)
                return kept, also
    """
    assert codes(body, "TCL002") == [line_of(body, "kept = a")]


def test_loop_over_a_module_list_of_known_blocks():
    body = """
        class Writer(nn.Module):
            def forward(self, x):
                return x.relu_()

        class Net(nn.Module):
            def __init__(self, dim, depth):
                super().__init__()
                self.pure = nn.ModuleList([nn.Linear(dim, dim) for _ in range(depth)])
                self.mixed = nn.Sequential(nn.Linear(dim, dim), Writer())
                self.filled = nn.ModuleList()

            def forward(self, x):
                a = x.clone()
                for block in self.pure:
                    a = block(a)
                b = x.clone()
                for block in self.mixed:
                    b = block(b)
                c = x.clone()
                for i, block in enumerate(self.filled):
                    c = block(c)
                return a + b + c + x
    """
    assert codes(body, "TCL001") == [line_of(body, "a = x.clone()")]


# ------------------------------------------------------------------ containers


def test_container_reads_and_non_reads():
    body = """
        def collect(x: torch.Tensor):
            outs = [x]
            x.add_(1)
            outs.append(x * 2)
            n = len(outs)
            return outs, n
    """
    assert codes(body, "TCL002") == [line_of(body, "outs = [x]")]


@pytest.mark.parametrize("between", [
    "outs = []",  # rebound
    "outs.clear()",
    'outs["k"] = x * 2',  # the constant key is overwritten
])
def test_container_no_longer_holding_the_alias(between):
    body = f"""
        def collect(x: torch.Tensor):
            outs = {{"k": x}} if False else {{}}
            outs = {{"k": x}}
            {between}
            x.add_(1)
            return outs
    """
    assert codes(body, "TCL002") == []


@pytest.mark.parametrize("reshape", ["action.squeeze_(0)", "action.unsqueeze_(0)", "action.t_()",
                                     "action.transpose_(0, 1)"])
def test_a_write_of_the_shape_alone_changes_no_value_an_alias_or_container_reads(reshape):
    # A recurrent policy's rollout: the action is kept, then squeezed in place for the next step
    # (fresh58's Q-learning decoder); every value the list holds is as it was. A value write is flagged.
    body = f"""
        def rollout(decoder, action: torch.Tensor, steps: int):
            kept = [action]
            first = action
            {reshape}
            out = decoder(action)
            return torch.stack(kept), first + 1, out

        def detached_then_squeezed(x: torch.Tensor):
            d = x.detach()
            {reshape.replace("action", "d")}
            return x * 2
    """
    assert codes(body, "TCL002") == []
    assert codes(body, "TCL006") == []
    written = body.replace(reshape, "action.mul_(2)")
    assert codes(written, "TCL002") == [line_of(written, "kept = [action]"), line_of(written, "first = action")]


def test_container_filled_in_a_loop_holds_each_iteration_tensor():
    body = """
        def features(blocks, x: torch.Tensor):
            outs = []
            for block in blocks:
                x = block(x)
                outs.append(x)
                x.relu_()
            return outs

        def rebound_first(blocks, x: torch.Tensor):
            outs = []
            for block in blocks:
                outs.append(x)
                x = block(x)
                x.relu_()
            return outs
    """
    # The first appends the tensor it then rectifies; the second only rectifies new tensors.
    first_append = line_of(body, "outs.append(x)")
    assert first_append < line_of(body, "def rebound_first")
    assert codes(body, "TCL002") == [first_append]


# ------------------------------------------------------------------ first layers from factories


@pytest.mark.parametrize("build, flagged", [
    ('make_act("relu", inplace=True)', True),
    ('make_act("relu")', False),  # the default inplace=False
    ('make_act("silu", True)', True),
    ('make_act(kind, inplace=True)', False),  # a name the analysis cannot know
])
def test_factory_looking_a_class_up_in_a_table(build, flagged):
    body = f"""
        ACTS = {{"relu": nn.ReLU, "silu": nn.SiLU}}

        def make_act(name, inplace=False):
            return ACTS[name](inplace=inplace)

        class Block(nn.Module):
            def __init__(self, dim, kind="relu"):
                super().__init__()
                self.body = nn.Sequential({build}, nn.Linear(dim, dim))

            def forward(self, x):
                return self.body(x) + x
    """
    assert codes(body, "TCL002") == ([line_of(body, "return self.body(x) + x")] if flagged else [])


def test_factory_reassigning_its_flag_is_not_read_from_the_call():
    body = """
        def make_act(inplace=False):
            inplace = not inplace
            return nn.ReLU(inplace=inplace)

        class Block(nn.Module):
            def __init__(self, dim):
                super().__init__()
                self.body = nn.Sequential(make_act(inplace=False), nn.Linear(dim, dim))

            def forward(self, x):
                y = x.clone()
                return self.body(x) + y
    """
    # `inplace` is not False any more when the layer is built: the copy may be needed.
    assert codes(body, "TCL001") == []


def test_default_class_handed_around_by_name_is_not_known():
    body = """
        from functools import partial

        class Unit(nn.Module):
            def __init__(self, dim, act_layer=nn.ReLU):
                super().__init__()
                self.body = nn.Sequential(act_layer(inplace=True), nn.Linear(dim, dim))

            def forward(self, x):
                return self.body(x) + x

        make_unit = partial(Unit, act_layer=nn.GELU)
    """
    assert codes(body, "TCL002") == []


@pytest.mark.parametrize("use", ["return gate * old.clone()", "copy = old.clone()\n    return gate * copy"])
def test_copy_of_a_view_of_a_state_passed_in_is_not_judged(use):
    # A recurrent state handed in may be updated in place by the caller after the step returns.
    body = f"""
def step(state: torch.Tensor, gate: torch.Tensor):
    old = state.to(dtype=torch.float32)
    {use}
"""
    assert codes(body, "TCL001") == []


def test_lambda_writing_only_in_one_branch_of_a_conditional_expression():
    body = """
        def use(x: torch.Tensor, limit):
            clip = lambda t: t.clamp_(-limit, limit) if limit else t
            always = lambda t: t.clamp_(0, 1)
            kept = x
            clip(x)
            first = kept.sum()
            other = x
            always(x)
            return first, other
    """
    assert codes(body, "TCL002") == [line_of(body, "other = x")]

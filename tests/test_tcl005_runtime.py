"""TCL005's silences, executed: the values the rule calls free of autograd really are, and the ones
it still reports really record a CloneBackward node.

Each case builds a tensor the way the code on the page does and checks what `.clone()` records
under grad mode: `grad_fn` None (no node, both orders cost the same: silent) or `CloneBackward0`
(the node `clone().detach()` throws away: reported). The static verdict for the same spelling is
checked next to it, so the two cannot drift apart.
"""

from __future__ import annotations

import copy
import io
import textwrap

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from torchcopylint.engine import lint_source  # noqa: E402

SILENT = {
    # spelling as written in the source -> how to make that value at run time
    "_, pred = out.max(1)": lambda out, model: out.max(1)[1],
    "out.max(1)[1]": lambda out, model: out.max(1)[1],
    "vals, idx = out.topk(2)": lambda out, model: out.topk(2)[1],
    "order = out.sort(dim=1)[1]": lambda out, model: out.sort(dim=1)[1],
    "out.argmax(1)": lambda out, model: out.argmax(1),
    "torch.nonzero(out > 0)": lambda out, model: torch.nonzero(out > 0),
    "model.state_dict()['weight']": lambda out, model: model.state_dict()["weight"],
    "for name, b in model.named_buffers()": lambda out, model: next(model.named_buffers())[1],
    "loaded state dict": lambda out, model: _reloaded(model)["weight"],
    # class labels: an integer tensor, whatever the loss does with it
    "F.cross_entropy(out, labels) target": lambda out, model: _cross_entropy_labels(out),
    # a batch of a data loader: data, not a graph
    "for x, y in loader": lambda out, model: next(iter(_loader()))[0],
    "y of for x, y in loader": lambda out, model: next(iter(_loader()))[1],
    # made under no-grad: a module's output and arithmetic
    "feats = model(x) under no_grad": lambda out, model: _under_no_grad(lambda: model(out)),
    "z = out * 2 under no_grad": lambda out, model: _under_no_grad(lambda: out * 2),
    # gradients without create_graph
    "g, = torch.autograd.grad(loss, w)": lambda out, model: torch.autograd.grad(out.sum(), model.weight)[0],
    # a network whose parameters are switched off, given noise (a WGAN critic step's generator)
    "model(noise) after model.requires_grad_(False)": lambda out, model: _switched_off(model)(torch.randn(4, 3)),
}
REPORTED = {
    "vals, idx = out.topk(2)  (the values)": lambda out, model: out.topk(2)[0],
    "out.max(out)  (element-wise)": lambda out, model: out.max(out),
    "model.state_dict(keep_vars=True)['weight']": lambda out, model: model.state_dict(keep_vars=True)["weight"],
    # under no-grad a view keeps its base's flag, and `.to` of the same device returns the tensor
    "row = model.weight[0] under no_grad": lambda out, model: _under_no_grad(lambda: model.weight[0]),
    "moved = model.weight.to('cpu') under no_grad": lambda out, model: _under_no_grad(lambda: model.weight.to("cpu")),
    "torch.autograd.grad(..., create_graph=True)":
        lambda out, model: torch.autograd.grad((out ** 2).sum(), model.weight, create_graph=True)[0],
    # switched off, but given what requires grad
    "model(out) after model.requires_grad_(False)": lambda out, model: _switched_off(model)(out),
}


def _switched_off(model):
    model.requires_grad_(False)
    return model


def _cross_entropy_labels(out):
    labels = torch.tensor([0, 1, 2, 0])
    torch.nn.functional.cross_entropy(out, labels)  # the use that says these are class labels
    return labels


def _loader():
    from torch.utils.data import DataLoader, TensorDataset

    return DataLoader(TensorDataset(torch.randn(4, 3), torch.randint(0, 3, (4,))), batch_size=2)


def _under_no_grad(make):
    with torch.no_grad():
        return make()


def _reloaded(model):
    buffer = io.BytesIO()
    torch.save(copy.deepcopy(model.state_dict()), buffer)
    buffer.seek(0)
    return torch.load(buffer)


def _make():
    torch.manual_seed(0)
    model = nn.BatchNorm1d(3)
    out = model(torch.randn(4, 3))
    assert out.requires_grad
    return out, model


@pytest.mark.parametrize("make", SILENT.values(), ids=SILENT.keys())
def test_silent_values_record_no_clone_node(make):
    out, model = _make()
    with torch.enable_grad():
        value = make(out, model)
        assert not value.requires_grad
        assert value.clone().grad_fn is None


@pytest.mark.parametrize("make", REPORTED.values(), ids=REPORTED.keys())
def test_reported_values_record_a_clone_node(make):
    out, model = _make()
    with torch.enable_grad():
        value = make(out, model)
        assert value.requires_grad
        assert type(value.clone().grad_fn).__name__ == "CloneBackward0"


STATIC_SILENT = [
    # What another object keeps, with nothing in sight that gives it a graph: masks, buffers, labels
    # (measured over four rounds of unseen repositories, conditional reports of these were wrong 24
    # times in 26: fresh92's `[m.clone().detach() for m in env.masks]` over bool masks).
    "return [m.clone().detach() for m in path.masks]",
    "for m in path.masks:\n        kept = m.clone().detach()\n    return kept",
    "return path.quantizer.eps_out.clone().detach()",
    "return model.get_submodule('q').scale[0].clone().detach()",
    "_, pred = out.max(1)\n    return pred.clone().detach()",
    "return out.max(1)[1].clone().detach()",
    "vals, idx = out.topk(2)\n    return idx.clone().detach()",
    "order = out.sort(dim=1)[1]\n    return order.clone().detach()",
    "return torch.nonzero(out > 0).clone().detach()",
    "return model.state_dict()['weight'].clone().detach()",
    "return [b.clone().detach() for name, b in model.named_buffers()]",
    "return {k: v.clone().detach() for k, v in model.state_dict().items()}",
    "sd = torch.load(path)\n    model.load_state_dict(sd)\n    return sd['weight'].clone().detach()",
    "state_dict = torch.load(path)\n    return [v.clone().detach() for v in state_dict.values()]",
    "labels = path\n    kept = labels.clone().detach()\n    return torch.nn.functional.cross_entropy(out, labels), kept",
    "for x, y in model.loader:\n        return x.clone().detach(), y.clone().detach()",
    "with torch.no_grad():\n        feats = model(out)\n        z = out * 2\n    return feats.clone().detach(), z.clone().detach()",
    # a distiller's teacher: the parts of what a network gives under no-grad
    "with torch.no_grad():\n        logits, _ = model(out)\n    return logits.clone().detach()",
    "g, = torch.autograd.grad(out.sum(), model.weight)\n    return g.clone().detach()",
    # TRPO's flattened gradients
    "grads = torch.autograd.grad(out.sum(), model.parameters())\n"
    "    flat = torch.nn.utils.parameters_to_vector(grads)\n    return flat.clone().detach()",
    "rows = list(out.detach())\n    return [r.clone().detach() for r in rows]",
    "parts = [p for p in out.detach()]\n    return [p.clone().detach() for p in parts]",
    # the labels a dataset keeps (fresh74's backdoor wrappers of torchvision datasets)
    "return path.targets.clone().detach()",
    # a batch of a loader that a function out of sight returns with another (fresh73's purification attack)
    "_, test_loader = get_loaders(path)\n    x, y = next(iter(test_loader))\n    return x.clone().detach()",
    # a network switched off before it runs on noise (fresh72's WGAN-GP: the comprehension form too)
    "model.requires_grad_(False)\n    fake = model(torch.randn(4, 3))\n    return fake.clone().detach()",
    "[p.requires_grad_(False) for p in model.parameters()]\n    fake = model(torch.randn(4, 3))\n"
    "    return fake.clone().detach()",
    # what a Hugging Face processor or tokenizer makes of data (fresh76's FGSM on Florence-2)
    "inputs = path(text='x', images=out, return_tensors='pt')\n"
    "    pixels = inputs.pixel_values.to('cpu', torch.float16)\n    return pixels.clone().detach()",
    "ids = path('a prompt', return_tensors='pt')['input_ids']\n    return ids.clone().detach()",
]
STATIC_REPORTED = [
    "vals, idx = out.topk(2)\n    return vals.clone().detach()",
    "return out.max(out)[1].clone().detach()",
    "return model.state_dict(keep_vars=True)['weight'].clone().detach()",
    "ckpt = torch.load(path)\n    return ckpt['w'].clone().detach()",
    "with torch.no_grad():\n        row = model.weight[0]\n    return row.clone().detach()",
    "with torch.no_grad():\n        moved = model.weight.to('cpu')\n    return moved.clone().detach()",
    "g, = torch.autograd.grad((out ** 2).sum(), model.weight, create_graph=True)\n    return g.clone().detach()",
    # a list made from an argument holds what the argument holds (not an empty list)
    "params = list(path)\n    return [p.clone().detach() for p in params]",
    "flat = torch.nn.utils.parameters_to_vector(model.parameters())\n    return flat.clone().detach()",
    # unpacked from a function out of sight under a name that does not read as a loader
    "_, pairs = get_pairs(path)\n    x, y = next(iter(pairs))\n    return x.clone().detach()",
    # switched off, but given what may require grad; or switched off only after it ran
    "model.requires_grad_(False)\n    fake = model(out)\n    return fake.clone().detach()",
    "fake = model(torch.randn(4, 3))\n    model.requires_grad_(False)\n    return fake.clone().detach()",
    # what a caller hands over and the function computes with: a value it may make with a graph
    "shift = path.bias - path.mean * path.weight\n    return shift.clone().detach()",
    # a layer's parameter, read off another object: no kept state (fresh verify fixture module_state.py)
    "return model.fc.weight.clone().detach()",
    # a network's output, even one given a tokenizer's batch (a field of it is no object's state)
    "inputs = path('a prompt', return_tensors='pt')\n    outputs = model(**inputs)\n"
    "    return outputs.logits.clone().detach()",
]


def _tcl005(body: str) -> list:
    source = "import torch\n\n\ndef f(out, model, path):\n    " + body + "\n"
    return [d for d in lint_source(source, "example.py") if d.code == "TCL005"]


@pytest.mark.parametrize("body", STATIC_SILENT)
def test_static_silence_matches(body):
    assert _tcl005(body) == []


@pytest.mark.parametrize("body", STATIC_REPORTED)
def test_static_report_keeps_the_condition(body):
    (found,) = _tcl005(body)
    assert found.message.startswith("if `"), found.message


POSITIONAL_TABLE = """
import numpy as np
import torch
from torch import nn


def angles(n):
    return np.array([[p / 10000 ** (2 * i / n) for i in range(n)] for p in range(n)])


class PositionalEncoding(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.register_buffer("table", self._table(n))
        self.register_buffer("shift", make_shift(n))

    def _table(self, n):
        return torch.FloatTensor(np.sin(angles(n))).unsqueeze(0)

    def forward(self, x):
        return x + self.table[:, :x.size(1)].clone().detach() + self.shift.clone().detach()


def make_shift(n):
    return torch.zeros(n)
"""


def test_a_buffer_a_method_of_the_file_makes_without_grad_records_no_clone_node():
    # A transformer's sinusoid table: registered from a method that returns `torch.FloatTensor(array)`
    # (a legacy constructor, which takes no `requires_grad`), and from a function returning zeros.
    assert lint_source(POSITIONAL_TABLE, "example.py") == []
    namespace: dict = {}
    exec(compile(POSITIONAL_TABLE, "<positional>", "exec"), namespace)  # noqa: S102
    encoding = namespace["PositionalEncoding"](4)
    with torch.enable_grad():
        assert encoding.table.clone().grad_fn is None and encoding.shift.clone().grad_fn is None
    # Made from a parameter, the buffer requires grad: the finding stays.
    grad_made = POSITIONAL_TABLE.replace("return torch.zeros(n)", "return nn.Parameter(torch.zeros(n)) * 2")
    assert [d.code for d in lint_source(grad_made, "example.py")] == ["TCL005"]


REFERENCE_BATCH = """
import torch
from torch import nn


class Enhancer(nn.Module):
    def __init__(self, example_inputs):
        super().__init__()
        reference = torch.cat(example_inputs, dim=1)
        self.register_buffer("reference", reference)
        self.net = nn.Linear(8, 8)

    def forward(self, x):
        reference = self.reference.clone().detach()
        return self.net(x) + reference.mean()
"""


def test_a_buffer_registered_from_the_constructor_s_arguments_records_no_clone_node():
    # fresh118's speech-enhancement GAN: a reference batch registered from its example inputs (data)
    # was reported "if `self.reference` requires grad".
    assert lint_source(REFERENCE_BATCH, "example.py") == []
    namespace: dict = {}
    exec(compile(REFERENCE_BATCH, "<reference>", "exec"), namespace)  # noqa: S102
    enhancer = namespace["Enhancer"]([torch.rand(2, 4), torch.rand(2, 4)])
    with torch.enable_grad():
        assert enhancer.reference.clone().grad_fn is None
    # Registered from a layer's output, the buffer requires grad: the finding stays.
    from_layer = REFERENCE_BATCH.replace("torch.cat(example_inputs, dim=1)", "nn.Linear(4, 4)(example_inputs[0])")
    assert [d.code for d in lint_source(from_layer, "example.py")] == ["TCL005"]


SNAPSHOTS = """
import torch
from torch import nn


class Snapshots(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(4, 4)
        self.saved = None
        self.outputs = []

    def save(self):
        if self.saved is None:
            self.saved = list()
            for p in self.net.parameters():
                self.saved.append(p.clone().detach())
        else:
            for idx, p in enumerate(self.net.parameters()):
                p.data = self.saved[idx].clone().detach()

    def forward(self, x):
        self.outputs.append(self.net(x))
        return self.outputs[-1].clone().detach()
"""


def test_items_of_a_container_the_class_fills_with_detached_copies_record_no_clone_node():
    # fresh119's few-shot hypernetwork: `self.lengthscales = list()`, then `.append(k.clone().detach())`,
    # and later `self.lengthscales[idx].clone().detach()` reported "if it requires grad" three times.
    found = [(d.code, d.location.line) for d in lint_source(SNAPSHOTS, "example.py")]
    # The parameters copied the wrong way round (line 17), and a network's output put in and taken out
    # (line 24): reported; the detached copies taken out again (line 20): not.
    assert found == [("TCL005", 17), ("TCL005", 24)], found
    namespace: dict = {}
    exec(compile(SNAPSHOTS, "<snapshots>", "exec"), namespace)  # noqa: S102
    snapshots = namespace["Snapshots"]()
    snapshots.save()
    with torch.enable_grad():
        assert snapshots.saved[0].clone().grad_fn is None
        assert snapshots(torch.rand(2, 4)) is not None and snapshots.outputs[-1].clone().grad_fn is not None


def test_cases_are_spelled_as_the_page_says():
    """The page's clean examples for these shapes exist (they are the rule's tests)."""
    from torchcopylint.pages import page_examples

    clean = "\n".join(textwrap.dedent(e.source) for e in page_examples("TCL005") if e.kind == "clean")
    for spelling in ("_, pred = logits.max(1)", ".state_dict().items()", "model.buffers()",
                     "model.named_buffers()", 'checkpoint["model_state_dict"]'):
        assert spelling in clean, spelling


# --- across calls: what the callers pass, as the page's examples run it -------------------------------


def _page_example(kind: str, marker: str):
    from torchcopylint.pages import page_examples

    [example] = [e for e in page_examples("TCL005") if e.kind == kind and marker in e.source]
    return example


def _run(example, prefix: str = "") -> dict:
    namespace: dict = {"__name__": "tcl005_example"}
    source = example.source if not prefix else example.source[: example.source.index(prefix)]
    exec(compile(source, f"<TCL005 line {example.line}>", "exec"), namespace)  # noqa: S102
    return namespace


def _clone_nodes(function):
    """Wrap a one-argument helper: record what `.clone()` of its argument records under grad mode."""
    seen = []

    def wrapper(*args):
        seen.append(type(args[-1].clone().grad_fn).__name__)
        return function(*args)

    return wrapper, seen


def test_a_same_file_function_returning_uint8_feeds_the_helper_integers():
    clean = _page_example("clean", "def to_uint8(")
    assert not [d for d in lint_source(clean.source, "<x>") if d.code == "TCL005"]
    namespace = _run(clean, prefix="print(")
    namespace["keep_copy"], seen = _clone_nodes(namespace["keep_copy"])
    images = torch.rand(2, 3, 4, 4, requires_grad=True)  # even from an image that requires grad
    frames = namespace["export_frames"](images)
    assert [f.dtype for f in frames] == [torch.uint8, torch.uint8] and seen == ["NoneType", "NoneType"]
    flagged = _page_example("flagged", "def standardize(")
    namespace = _run(flagged)
    namespace["keep_copy"], seen = _clone_nodes(namespace["keep_copy"])
    namespace["export_frames"](images)
    assert seen == ["NoneType", "CloneBackward0"]  # the standardized image records the node


def test_labels_of_an_attack_and_of_a_log_record_no_clone_node():
    clean = _page_example("clean", "class RunnerUpAttack")
    assert not [d for d in lint_source(clean.source, "<x>") if d.code == "TCL005"]
    namespace = _run(clean, prefix="attack = ")
    torch.manual_seed(0)
    attack = namespace["RunnerUpAttack"](nn.Linear(6, 4))
    labels = torch.tensor([0, 1, 2])
    with torch.enable_grad():
        assert labels.clone().grad_fn is None  # integer labels: nothing to record, in either order
        with pytest.raises(RuntimeError, match="floating point"):
            labels.float().long().requires_grad_()  # and they could not require grad if asked
    images = torch.rand(3, 6)
    adv = attack.forward(images, labels)
    assert adv.shape == images.shape and not adv.requires_grad
    assert namespace["LabelLog"]().update(labels) == 3


def test_targets_a_metric_computes_with_may_require_grad():
    flagged = _page_example("flagged", "class SquaredError")
    [finding] = [d for d in lint_source(flagged.source, "<x>") if d.code == "TCL005"]
    assert finding.message.startswith("if `targets` requires grad")
    metric = _run(flagged)["SquaredError"]()
    targets = torch.randn(4, requires_grad=True)  # a float target that requires grad: the node is real
    with torch.enable_grad():
        assert type(targets.clone().grad_fn).__name__ == "CloneBackward0"
    assert metric.update(torch.randn(4), targets) > 0


def test_a_feature_bank_fed_under_no_grad_clones_without_a_node():
    clean = _page_example("clean", "class FeatureBank")
    assert not [d for d in lint_source(clean.source, "<x>") if d.code == "TCL005"]
    namespace = _run(clean, prefix="bank = ")
    bank_class = namespace["FeatureBank"]
    bank_class.store, seen = _clone_nodes(bank_class.store)
    torch.manual_seed(0)
    bank = bank_class(nn.Linear(5, 3))
    bank.update(torch.randn(4, 5))
    bank.update_pair(torch.randn(4, 5))
    assert len(bank.rows) == 6 and set(seen) == {"NoneType"}
    flagged = _page_example("flagged", "def update_training(")
    bank_class = _run(flagged)["FeatureBank"]
    bank_class.store, seen = _clone_nodes(bank_class.store)
    bank_class(nn.Linear(5, 3)).update_training(torch.randn(2, 5))
    assert set(seen) == {"CloneBackward0"}  # rows of an output in grad mode record the node


OPTIONAL_LABELS = '''
import torch
from elsewhere import adversarial_loss


class Attack:
    def __init__(self, net):
        self.net = net

    def step(self, images, target_labels{default}):
        if target_labels is not None:
            target_labels = target_labels.clone().detach()
        return adversarial_loss(self.net(images), target_labels)
'''


@pytest.mark.parametrize("default", ["", "=None"])
def test_optional_target_labels_tested_for_none_are_still_labels(default):
    # `if target_labels is not None:` compares the labels with None; it does not compute with them.
    source = OPTIONAL_LABELS.format(default=default)
    assert [d for d in lint_source(source, "example.py") if d.code == "TCL005"] == []
    # Computed with (a float target of a regression), and handed a network's output by a call in the file,
    # the copy is reported again.
    computed = source.replace("if target_labels is not None:", "if (target_labels * 2).sum() > 0:") + \
        "\n\ndef use(net, model, images):\n    attack = Attack(net)\n    return attack.step(images, model(images))\n"
    assert [d.code for d in lint_source(computed, "example.py") if d.code == "TCL005"] == ["TCL005"]


def test_an_attack_s_input_made_a_leaf_and_differentiated_against_is_data_its_callers_hand_over():
    clean = _page_example("clean", "def fgsm(")
    assert not [d for d in lint_source(clean.source, "<x>") if d.code == "TCL005"]
    namespace = _run(clean)
    model = nn.Linear(6, 3)
    images, labels = next(iter(_loader_of(torch.rand(8, 6), torch.tensor([0, 1, 2, 0, 1, 2, 0, 1]))))
    # As its callers use it: a batch of a loader, which records no clone node; the attack runs.
    assert images.clone().grad_fn is None
    assert namespace["fgsm"](model, images, labels, 0.1).shape == images.shape
    assert namespace["pgd"](model, images, labels, 0.1, 0.02, 2).shape == images.shape
    # A caller in the file decides instead: one that hands over a network's output keeps the report.
    called = clean.source + "\n\ndef attack_features(encoder, model, x, y):\n    return fgsm(model, encoder(x), y, 0.1)\n"
    assert [d.location.line for d in lint_source(called, "<x>") if d.code == "TCL005"] == [6]
    # Without a gradient with respect to the copy, nothing says the argument is data, but no call shows
    # what it is either: silent; a call that hands it a network's output brings the conditional report.
    undifferentiated = "import torch\n\n\ndef jitter(images):\n    x = images.clone().detach().requires_grad_(True)\n" \
                       "    return x + 0.01 * torch.randn_like(x)\n"
    assert not [d for d in lint_source(undifferentiated, "<x>") if d.code == "TCL005"]
    [found] = [d for d in lint_source(undifferentiated + "\n\ndef noisy(model, x):\n    return jitter(model(x))\n", "<x>")
               if d.code == "TCL005"]
    assert found.message.startswith("if `images` requires grad")


HANDED_ON = """\
import torch
import torch.nn.functional as F


class OnePixelAtATime:
    def __init__(self, model):
        self.model = model

    def __call__(self, images, labels):
        return self.attack(images, labels)

    def attack(self, images, labels):
        out = []
        for i in range(images.size(0)):
            image = images[i:i + 1]
            out.append(self.attack_one(image, labels[i:i + 1]))
        return torch.cat(out)

    def attack_one(self, image, label):
        x = image.clone().detach()
        x.requires_grad_(True)
        loss = F.cross_entropy(self.model(x), label)
        grad, = torch.autograd.grad(loss, x)
        return (x + 0.1 * grad.sign()).detach()
"""


def test_an_attack_s_input_handed_on_by_its_wrappers_is_data_its_callers_hand_over():
    # `__call__` hands the batch to `attack`, which hands each image to `attack_one`: no call in the
    # file shows more than an argument passed on, so the input is what the wrappers' callers give.
    assert [d for d in lint_source(HANDED_ON, "<x>") if d.code == "TCL005"] == []
    namespace: dict = {}
    exec(compile(HANDED_ON, "<handed on>", "exec"), namespace)
    images, labels = next(iter(_loader_of(torch.rand(8, 6), torch.tensor([0, 1, 2, 0, 1, 2, 0, 1]))))
    assert images.clone().grad_fn is None  # a loader's batch: the clone records nothing
    assert namespace["OnePixelAtATime"](nn.Linear(6, 3))(images, labels).shape == images.shape
    # A wrapper that hands over a network's output shows what the argument is: reported again.
    shown = HANDED_ON + "\n    def attack_features(self, encoder, x, y):\n        return self.attack(encoder(x), y)\n"
    assert [d.location.line for d in lint_source(shown, "<x>") if d.code == "TCL005"] == [20]
    # So does one that passes something other than an argument or an item of one.
    computed = HANDED_ON.replace("image = images[i:i + 1]", "image = images[i:i + 1] * 2")
    assert [d.location.line for d in lint_source(computed, "<x>") if d.code == "TCL005"] == [20]


def _loader_of(x, y):
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=4)


EINOPS_CALLER = textwrap.dedent("""\
    import torch
    from einops import rearrange


    def top(preds):
        prob = rearrange(preds["prob"], "b t -> (b t)")
        return prob.clone().detach()


    def run(model, clips):
        with torch.no_grad():
            preds = model(clips)
        return top(preds)
""")


def test_what_einops_rearranges_requires_grad_only_where_what_it_is_given_does():
    # The only caller hands over a network's output made under no-grad (fresh74's DLCV project, x4).
    assert [d for d in lint_source(EINOPS_CALLER, "example.py") if d.code == "TCL005"] == []
    with_grad = EINOPS_CALLER.replace("    with torch.no_grad():\n        preds = model(clips)\n",
                                      "    preds = model(clips)\n")
    [found] = [d for d in lint_source(with_grad, "example.py") if d.code == "TCL005"]
    assert "requires grad" in found.message


ATTACK_AND_ITS_CALLER = textwrap.dedent("""\
    import torch


    def attack(model, images, eps):
        x = images.clone().detach()
        x.requires_grad_(True)
        model(x).sum().backward()
        return x + eps * x.grad.sign()


    def evaluate(model, dataset, eps):
        for images, labels in dataset.batches():
            adv = attack(model, images, eps)
            print((model(adv).argmax(1) == labels).float().mean())
""")


@pytest.mark.parametrize("passed, reported", [
    ("images", False),                # what the caller's loop iterates: data (fresh74/75's attacks)
    ("images.to('cpu')", False),
    ("model.encode(images)", True),   # what a network's method makes may require grad
    # What a call given a file or a folder returns was read from there (fresh88's attacks on images
    # loaded by `load_image(image_path)`, `preprocess_image(name, img_path, device)`).
    ("load_image(image_path, 'cpu')", False),
    ("preprocess(name, self.files[0])", False),
    ("read('clean/0001.png')", False),
    ("models.preprocess_image(name, img_path)", False),  # a module named `models`: the function says
    ("load_weights('model.pt')", True),  # a checkpoint may hold parameters
    # Tensors saved as data and read back (fresh89: a dataset's precomputed `img1_I0.pt`); `torch.load`
    # restores the flag a tensor was saved with, so weights, or a path of no literal text, may require grad.
    ("torch.load(folder + '/img1_I0.pt')", False),
    ("torch.load(f'{folder}/features.pt')", False),
    ("torch.load('generator_weights.pth')", True),
    ("torch.load(path)", True),
    ("model.encode(images_mean)", True),
])
def test_an_argument_every_caller_hands_data_records_no_clone_node(passed, reported):
    source = ATTACK_AND_ITS_CALLER.replace("adv = attack(model, images, eps)", f"adv = attack(model, {passed}, eps)")
    found = [d for d in lint_source(source, "example.py") if d.code == "TCL005"]
    assert bool(found) is reported, found


@pytest.mark.parametrize("imported, reported", [
    ("from torchvision.datasets import MNIST", False),
    ("from torchvision import datasets\nMNIST = datasets.MNIST", True),  # rebound: not followed
    ("from my_datasets import MNIST", True),  # a class of the project: what its items hold is not in sight
])
def test_an_item_of_a_torchvision_dataset_is_data(imported, reported):
    # `noisy_image, _ = dataset[0]` of `dataset = MNIST(...)`, handed to a denoiser's helper (fresh88).
    source = imported + "\n" + textwrap.dedent("""\
        dataset = MNIST(root="./data", download=True)


        def denoise(score_net, noisy, steps=10):
            x = noisy.clone().detach()
            for _ in range(steps):
                x = x + 0.01 * score_net(x).detach()
            return x


        noisy_image, _ = dataset[0]
        print(denoise(lambda x: -x, noisy_image.unsqueeze(0)))
    """)
    found = [d for d in lint_source(source, "example.py") if d.code == "TCL005"]
    assert bool(found) is reported, found


LOADER_FROM_A_FUNCTION = textwrap.dedent("""\
    import torch
    from torch.utils.data import DataLoader


    def prepare(dataset):
        model = torch.nn.Linear(4, 2)
        return model, DataLoader(dataset, batch_size=8)


    def attack(model, images, eps=0.1):
        x = images.clone().detach()
        x.requires_grad_(True)
        model(x).sum().backward()
        return x + eps * x.grad.sign()


    def main(dataset):
        model, test_loader = prepare(dataset)
        data, target = next(iter(test_loader))
        return attack(model, data)
""")


def test_the_loader_a_function_of_the_file_returns_yields_data():
    # `model, _, test_loader, classes = prepare_cifar10(...)`, then `next(iter(test_loader))` (fresh75's
    # transfer attacks): the function's `return` puts a DataLoader there.
    assert [d for d in lint_source(LOADER_FROM_A_FUNCTION, "example.py") if d.code == "TCL005"] == []
    other = LOADER_FROM_A_FUNCTION.replace("return model, DataLoader(dataset, batch_size=8)",
                                           "return model, dataset.tensors")
    assert [d.code for d in lint_source(other, "example.py") if d.code == "TCL005"] == ["TCL005"]


@pytest.mark.parametrize("switch, reported", [
    ("", False),
    # The class makes it require grad after all: the clone records a node again.
    ("        self.mask.requires_grad_(True)\n", True),
    ("        self.mask.requires_grad = True\n", True),
])
def test_a_parameter_made_not_to_require_grad_clones_without_a_node(switch, reported):
    # fresh87's VAE-GAN: `nn.Parameter(land_mask, requires_grad=False)`, cloned and detached in `forward`.
    source = textwrap.dedent("""
        import torch
        from torch import nn


        class Masked(nn.Module):
            def __init__(self, mask):
                super().__init__()
                self.mask = nn.Parameter(mask, requires_grad=False)

            def forward(self, x):
                return x * self.mask.clone().detach()
        """) + ("\n    def unfreeze(self):\n" + switch if switch else "")
    assert bool([d for d in lint_source(source, "<x>") if d.code == "TCL005"]) is reported
    module = nn.Parameter(torch.ones(3), requires_grad=False)
    assert module.clone().grad_fn is None


ENVIRONMENT_STATE = """
import torch


class Board:
    def __init__(self, n):
        self.n = n
        self.state = None  # set by reset()

    def reset(self):
        self.state = torch.zeros((1, self.n))

    def keep_next(self, observation):
        self.next_state = observation.clone().detach()

    def move(self, i):
        if self.state[0, i] == 0:
            self.state[0, i] = -1
            self.keep_next(self.state)
"""


def test_a_state_set_to_none_then_to_zeros_is_data_its_callers_hand_over():
    # fresh110's tic-tac-toe environment: `None` until `reset()` makes the board; only numbers are written.
    assert [d for d in lint_source(ENVIRONMENT_STATE, "env.py") if d.code == "TCL005"] == []
    board = torch.zeros((1, 9))
    board[0, 4] = -1
    assert board.clone().grad_fn is None


@pytest.mark.parametrize("rearranged", [
    "image = torch.unsqueeze(image, dim=0)",
    "image = torch.cat([row for row in image], dim=2)",
    "image = torch.stack([image[0], image[1]])",
])
def test_an_argument_only_rearranged_is_still_the_argument_out_of_sight(rearranged):
    # fresh110's `save_image_tensor(input_tensor, ...)`, which nothing in the project calls: the value
    # requires grad exactly when the argument does, and nothing in sight says anything of that.
    body = f"{rearranged}\n    return image.clone().detach()"
    source = "import torch\n\n\ndef save(image, filename):\n    " + body + "\n"
    assert [d for d in lint_source(source, "example.py") if d.code == "TCL005"] == []
    leaf = torch.randn(2, 3, 4, requires_grad=True)
    for value in (torch.unsqueeze(leaf, dim=0), torch.cat([row for row in leaf], dim=1),
                  torch.stack([leaf[0], leaf[1]])):
        assert value.requires_grad  # as the argument, no more: a caller handing a graph would be seen


def test_an_argument_joined_with_something_else_is_no_longer_only_the_argument():
    source = "import torch\n\n\ndef save(image, model):\n    image = torch.cat([image, model(image)])\n" \
             "    return image.clone().detach()\n"
    (found,) = [d for d in lint_source(source, "example.py") if d.code == "TCL005"]
    assert found.message.startswith("if `")


REPLAY_SAMPLE = """
import random
from collections import deque
import torch


class ReplayBuffer:
    def __init__(self, n):
        self.buffer = deque(maxlen=n)

    def push(self, state, action):
        self.buffer.append((state, action))

    def sample(self, batch_size):
        batches = {drawn}
        states, actions = zip(*batches)
        return torch.stack([s.clone().detach() for s in states]), actions
"""


@pytest.mark.parametrize("drawn", ["random.sample(self.buffer, batch_size)", "list(self.buffer)[-batch_size:]"])
def test_items_drawn_from_a_kept_buffer_are_kept_state(drawn):
    # fresh110's goal-conditioned replay buffer: a sample of what the object keeps, unpacked by `zip(*...)`,
    # is read as a loop over `self.buffer` is (kept state, measured mostly data).
    assert [d for d in lint_source(REPLAY_SAMPLE.format(drawn=drawn), "buffer.py") if d.code == "TCL005"] == []


def test_items_drawn_from_a_local_list_are_not_kept_state():
    source = REPLAY_SAMPLE.format(drawn="random.sample(batch_size, 2)").replace(
        "def sample(self, batch_size)", "def sample(self, batch_size, pool=None)")
    (found,) = [d for d in lint_source(source, "buffer.py") if d.code == "TCL005"]
    assert found.message.startswith("if `")

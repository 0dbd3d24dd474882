"""TCL008's data-loader examples, executed: the parts of a DataLoader's batch are tensors.

Every example on rules/TCL008.md that iterates a DataLoader is a runnable module. Each is
executed under torch with warnings recorded:

- a `flagged` example gives PyTorch's "To copy construct from a tensor" UserWarning, and at
  every line the example declares (so the batch parts really were tensors);
- its `fixed` example, and every such `clean` example, runs without that warning.

The static side is checked next to it: the rule reports a batch part of a named loader with an
unsafe fix and one of a DataLoader built in the file with a safe fix.
"""

from __future__ import annotations

import warnings

import pytest

torch = pytest.importorskip("torch")

from torchcopylint.diagnostic import Applicability  # noqa: E402
from torchcopylint.engine import lint_source  # noqa: E402
from torchcopylint.pages import Example, page_examples  # noqa: E402

COPY_WARNING = "To copy construct from a tensor"
EXAMPLES = [example for example in page_examples("TCL008") if "DataLoader" in example.source]


def _cases(kind: str) -> list:
    return [pytest.param(example, id=f"TCL008-{kind}-L{example.line}") for example in EXAMPLES if example.kind == kind]


def _filename(example: Example) -> str:
    return f"<TCL008 {example.kind} example, rules/TCL008.md line {example.line}>"


def _copy_warning_lines(example: Example) -> list[int]:
    """Run the example; the lines of the example where PyTorch warned about the copy."""
    compiled = compile(example.source, _filename(example), "exec")
    namespace = {"__name__": f"tcl008_example_L{example.line}", "__builtins__": __builtins__}
    torch.manual_seed(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec(compiled, namespace)  # noqa: S102 - the project's own documentation examples
    return [w.lineno for w in caught if COPY_WARNING in str(w.message) and w.filename == _filename(example)]


def test_the_page_has_loader_examples():
    kinds = [example.kind for example in EXAMPLES]
    assert kinds.count("flagged") >= 2 and kinds.count("clean") >= 1 and kinds.count("fixed") >= 2


@pytest.mark.parametrize("example", _cases("flagged"))
def test_flagged_batch_parts_are_tensors(example):
    warned = _copy_warning_lines(example)
    assert set(example.lines) <= set(warned), f"warned at {sorted(set(warned))}, the page flags {example.lines}"


@pytest.mark.parametrize("example", _cases("clean") + _cases("fixed"))
def test_clean_and_fixed_examples_do_not_copy_construct(example):
    assert _copy_warning_lines(example) == []


def test_named_loader_gets_an_unsafe_fix_and_a_built_one_a_safe_fix():
    source = (
        "import torch\nfrom torch.utils.data import DataLoader\n\n\n"
        "def f(train_loader, dataset):\n"
        "    for x, y in train_loader:\n"
        "        print(torch.tensor(x))\n"
        "    for x, y in DataLoader(dataset):\n"
        "        print(torch.tensor(y))\n"
    )
    found = sorted((d for d in lint_source(source, "example.py") if d.code == "TCL008"), key=lambda d: d.location.line)
    assert [d.location.line for d in found] == [7, 9]
    assert [d.fix.applicability for d in found] == [Applicability.UNSAFE, Applicability.SAFE]
    assert "very likely a `DataLoader` (by its name)" in found[0].message
    assert "a `DataLoader` (line 8)" in found[1].message


def test_a_loader_known_by_its_name_says_nothing_where_the_file_iterates_its_own_loaders():
    # A course notebook's `DataLoader` subclass with its own `__iter__` (batches of NumPy slices): a
    # `self.loader` may be one of those, so its name no longer says the batches are tensors.
    own = ("class LanguageModelLoader(torch.utils.data.DataLoader):\n"
           "    def __iter__(self):\n        yield self.dataset[:4], self.dataset[1:5]\n\n\n")
    source = (
        "import torch\n\n\n{own}class Trainer:\n    def train(self):\n"
        "        for inputs, targets in self.loader:\n            self.model(torch.tensor(inputs))\n"
    )
    assert [d.code for d in lint_source(source.format(own=""), "example.py")] == ["TCL008"]
    assert lint_source(source.format(own=own), "example.py") == []


def test_a_loader_name_bound_to_an_instance_of_another_class_says_nothing_of_its_batches():
    # fresh76's CT-to-MR notebook: `dataloader = UNetDataloader(source, "test")`, a class of the
    # project whose `__next__` slices NumPy arrays; `torch.tensor(mr)` converts an array.
    source = (
        "import torch\n{made}\n\n"
        "mr, ct = dataloader.__next__()\nout = torch.tensor(mr)\n"
        "for x, y in dataloader:\n    out = torch.tensor(x)\n"
    )
    own = "from models.unet.unet_dataloader import UNetDataloader\ndataloader = UNetDataloader('data', 'test')"
    assert [d.code for d in lint_source(source.format(made=own), "example.py")] == []
    built = "from torch.utils.data import DataLoader\ndataloader = DataLoader(data, batch_size=4)"
    assert [d.code for d in lint_source(source.format(made=built), "example.py")] == ["TCL008", "TCL008"]
    subclass = "from my_project.data import CachedDataLoader\ndataloader = CachedDataLoader(data)"
    assert [d.code for d in lint_source(source.format(made=subclass), "example.py")] == ["TCL008", "TCL008"]


def test_whole_batches_and_custom_collates_are_not_reported():
    source = (
        "import torch\nfrom torch.utils.data import DataLoader\n\n\n"
        "def f(dataset, batches, join):\n"
        "    for batch in DataLoader(dataset):\n"
        "        print(torch.tensor(batch))\n"
        "    for x, y in DataLoader(dataset, collate_fn=join):\n"
        "        print(torch.tensor(x))\n"
        "    for x, y in batches:\n"
        "        print(torch.tensor(x))\n"
    )
    assert [d for d in lint_source(source, "example.py") if d.code == "TCL008"] == []


# A file whose loaders may not be the default collate's: the training function's `data_loader`, known by
# its name only, may be one of those, and `torch.tensor(...)` of a part of its batch converts a list or
# an array. Each case with the changes (old text, new text) under which the copy is reported again.
COLLATE_OF_ITS_OWN = (  # the loader `main` builds with `collate_fn=generate_batch`, whose labels are a list
    "import torch\nfrom torch.utils.data import DataLoader\n\n\n"
    "def generate_batch(batch):\n"
    "    return torch.stack([entry[1] for entry in batch]), [entry[0] for entry in batch]\n\n\n"
    "def train(data_loader):\n"
    "    for text, label in data_loader:\n"
    "        label = torch.tensor(label, dtype=torch.long)\n\n\n"
    "def main(dataset):\n"
    "    train(DataLoader(dataset, collate_fn=generate_batch, batch_size=8))\n"
)
LOADER_CLASS_OF_ITS_OWN = (  # fresh82's word2vec: the project's own `DataLoader`, which yields NumPy arrays
    "import torch\nfrom word2vec.common import DataLoader\n\n\n"
    "def train(model, train_dataloader: DataLoader):\n"
    "    for batch in train_dataloader:\n"
    "        X, y = batch['X'], batch['Y']\n"
    "        print(model(torch.tensor(X)), y)\n"
)


@pytest.mark.parametrize("source, reported_again, line", [
    (COLLATE_OF_ITS_OWN, ("collate_fn=generate_batch, ", ""), 11),
    (LOADER_CLASS_OF_ITS_OWN,
     ("from word2vec.common import DataLoader", "from torch.utils.data import DataLoader"), 8),
    # A function of the project that makes loaders (fresh80's `get_cifar10_dataloaders`) is no loader class.
    (LOADER_CLASS_OF_ITS_OWN, ("from word2vec.common import DataLoader", "from utils.data import get_dataloaders"), 8),
], ids=["collate-of-its-own", "loader-class-of-its-own", "loader-making-function"])
def test_a_loader_known_by_name_in_a_file_whose_loaders_may_be_its_own_is_not_assumed_default(source, reported_again,
                                                                                            line):
    assert [d for d in lint_source(source, "example.py") if d.code == "TCL008"] == []
    default = source.replace(*reported_again)
    assert [d.location.line for d in lint_source(default, "example.py") if d.code == "TCL008"] == [line]

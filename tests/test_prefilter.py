"""The prefilter (a byte scan for each rule's triggers, before any parse) changes speed, never findings.

Linting with and without the prefilter can only differ on the files the prefilter skips:
every other file goes through the same parse and the same rules either way. So besides
full on/off comparisons on the examples and on generated tricky files, each corpus found
under bench/corpora/ (timm, transformers, torchvision: `python bench/corpora.py` unpacks
them) and torch's own sources are checked exactly and cheaply: every file the prefilter
would skip must have no finding when linted with the prefilter off.

One difference is by design: a file that does not parse and has no trigger is skipped,
so it gets no TCL900; with the prefilter off it does (test_syntax_error_without_triggers).
"""

from __future__ import annotations

import importlib.util
import time
from pathlib import Path

import pytest

from conftest import EXAMPLES, REPO_ROOT, write
from torchcopylint.config import Settings
from torchcopylint.engine import FILE_ERROR_CODE, could_match, lint_paths, lint_source
from torchcopylint.rules import ALL_RULES, Rule

# name -> (source, the code it must produce with the prefilter off: the case is not vacuous)
TRICKY = {
    # in-place writes spelled with blanks, continuations and comments between the tokens
    "detach_write_space": ("import torch\n\n\ndef f(x):\n    d = x.detach()\n    d.zero_ ()\n    return x\n", "TCL006"),
    "detach_write_continued": ("import torch\n\n\ndef f(x):\n    d = x.detach()\n    d.zero_\\\n()\n    return x\n",
                               "TCL006"),
    "detach_write_comment": ("import torch\n\n\ndef f(x):\n    d = x.detach()\n    (d.zero_  # zero it\n     ())\n"
                             "    return x\n", "TCL006"),
    "detach_setitem_spaces": ("import torch\n\n\ndef f(x):\n    d = x.detach()\n    d[0]  = 0\n    return x\n", "TCL006"),
    "detach_setitem_tab": ("import torch\n\n\ndef f(x):\n    d = x.detach()\n    d[0]\t= 0\n    return x\n", "TCL006"),
    "detach_setitem_continued": ("import torch\n\n\ndef f(x):\n    d = x.detach()\n    d[0]\\\n        = 0\n"
                                 "    return x\n", "TCL006"),
    "out_spaced": ("import torch\n\n\ndef f(a, b):\n    c = torch.zeros(3)\n    d = c\n    torch.add(a, b, out = c)\n"
                   "    return d\n", "TCL002"),
    "relu_true_spaced": ("import torch\nfrom torch import nn\n\n\nclass B(nn.Module):\n    def __init__(self):\n"
                         "        super().__init__()\n        self.act = nn.ReLU(True )\n\n    def forward(self, x):\n"
                         "        identity = x\n        x = self.act(x)\n        return x + identity\n", "TCL002"),
    "leaf_parameters_spaced": ("import torch\n\n\ndef f(model):\n    for p in model.parameters ():\n        p.add_ (1)\n",
                               "TCL004"),
    "leaf_parameters_setitem": ("import torch\n\n\ndef f(model):\n    for p in model.parameters ():\n        p[0]  = 1\n",
                                "TCL004"),
    "leaf_requires_grad": ("import torch\n\n\ndef f():\n    w = torch.ones(3, requires_grad=True)\n    w.add_ (1)\n"
                           "    return w\n", "TCL004"),
    "graph_alive_spaced": ("import torch\n\n\ndef train(model, data, opt):\n    total = 0\n    for x, y in data:\n"
                           "        loss = model(x).sum()\n        loss.backward ()\n        opt.step ()\n"
                           "        total = total + loss\n    return total\n", "TCL007"),
    "tensor_alias": ("import torch as th\n\n\ndef f(x: th.Tensor):\n    return th.tensor(x)\n", "TCL008"),
    "tensor_from_import": ("from torch import tensor as T, Tensor\n\n\ndef f(x: Tensor):\n    return T(x)\n", "TCL008"),
    "clone_detach_spaced": ("import torch\n\n\ndef f():\n    return x.clone ().detach ()\n", "TCL005"),
    "bom_crlf": ("\ufeffimport torch\r\n\r\ndef f():\r\n    return x.clone().detach()\r\n", "TCL005"),
}
# Every augmented assignment but `@=` (a tensor has no `__imatmul__`: `d = d @ m`) writes a tensor in place.
for _name, _operator in {"or": "|=", "mod": "%=", "and": "&=", "xor": "^=", "lshift": "<<=",
                         "rshift": ">>=", "pow": "**=", "floordiv": "//=", "add": "+=", "sub": "-="}.items():
    TRICKY[f"augmented_{_name}"] = (
        f"import torch\n\n\ndef f(x: torch.Tensor, m: torch.Tensor):\n    d = x.detach()\n    d {_operator} m\n"
        "    return x\n", "TCL006")
# Files that must simply come out the same (nothing to find, or not parsed at all).
QUIET = {
    "noqa_file": "# torchcopylint: noqa\nimport torch\n\ndef f():\n    return x.clone().detach()\n",
    "empty": "",
    "no_torch": "def f(a, b):\n    return a + b\n",
    "syntax_error_with_trigger": "def f(x:\n    return x.clone()\n",
    "augmented_matmul": "import torch\n\n\ndef f(x: torch.Tensor, m: torch.Tensor):\n    d = x.detach()\n"
                        "    d @= m\n    return x\n",
}


def _settings(root: Path) -> Settings:
    return Settings(root=root, respect_gitignore=False)


def _outcome(paths, root: Path, prefilter: bool, jobs: int = 1):
    run = lint_paths([str(path) for path in paths], _settings(root), jobs=jobs, prefilter=prefilter)
    return run.diagnostics, run.sources, run.internal_errors, run.files_checked


@pytest.fixture(scope="module")
def tricky_tree(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("tricky")
    for name, (text, _code) in TRICKY.items():
        (root / f"{name}.py").write_bytes(text.encode("utf-8"))
    for name, text in QUIET.items():
        (root / f"{name}.py").write_bytes(text.encode("utf-8"))
    (root / "latin1.py").write_bytes(b"# -*- coding: latin-1 -*-\nx = '\xe9'\n")
    return root


def test_examples_identical_with_and_without_prefilter():
    on = _outcome([EXAMPLES], REPO_ROOT, prefilter=True)
    off = _outcome([EXAMPLES], REPO_ROOT, prefilter=False)
    assert on[0], "the examples have findings"
    assert on == off


def test_tricky_files_identical_with_and_without_prefilter(tricky_tree):
    on = _outcome([tricky_tree], tricky_tree, prefilter=True)
    off = _outcome([tricky_tree], tricky_tree, prefilter=False)
    assert on == off


@pytest.mark.parametrize("name", sorted(TRICKY))
def test_tricky_case_fires_with_the_prefilter(name, tricky_tree):
    """Each case produces its finding (so the comparison above is not vacuous), prefilter on."""
    text, code = TRICKY[name]
    path = str(tricky_tree / f"{name}.py")
    assert code in {d.code for d in lint_source(text.encode("utf-8"), path, prefilter=False)}
    assert code in {d.code for d in lint_source(text.encode("utf-8"), path)}


def test_identical_in_a_pool(tricky_tree, monkeypatch):
    from torchcopylint import engine

    monkeypatch.setattr(engine, "POOL_MIN_BYTES", 0)
    assert _outcome([tricky_tree, EXAMPLES], tricky_tree, prefilter=True, jobs=2) == \
        _outcome([tricky_tree, EXAMPLES], tricky_tree, prefilter=False, jobs=2)


def test_syntax_error_without_triggers(tmp_path):
    """By design: no trigger, no parse, so no TCL900 for a file that does not parse."""
    path = write(tmp_path / "broken.py", "def f(:\n    pass\n")
    assert lint_source(path.read_bytes(), str(path)) == []
    assert [d.code for d in lint_source(path.read_bytes(), str(path), prefilter=False)] == [FILE_ERROR_CODE]


# ---------------------------------------------------------------- could_match itself

@pytest.mark.parametrize("source", [
    b"x.add_(1)", b"x.add_ (1)", b"x.add_\t(1)", b"x.add_\\\n(1)", b"(x.add_  # c\n (1))", b"(x.add_\r\n(1))",
    b"x[0] = 1", b"x[0]=1", b"x[0]   = 1", b"x[0]\\\n  = 1", b"f(a, out=b)", b"f(a, out = b)", b"nn.ReLU(True )",
])
def test_inplace_spellings_match(source):
    rules = [rule for rule in ALL_RULES if rule.code == "TCL002"]
    assert could_match(source, rules)


@pytest.mark.parametrize("source", [b"opt.step ()", b"opt.step\n()", b"model.parameters ()"])
def test_other_spellings_match(source):
    assert could_match(source, ALL_RULES)


def test_no_trigger_no_match():
    assert not could_match(b"def f(a, b):\n    return a + b  # add it\n", ALL_RULES)
    assert not could_match(b"", ALL_RULES)


def test_rule_without_triggers_always_matches():
    class Untriggered(Rule):
        code, name, summary = "TCL999", "untriggered", "no triggers"

    assert could_match(b"x = 1\n", [Untriggered()])


def test_every_rule_declares_byte_triggers():
    for rule in ALL_RULES:
        assert rule.triggers and all(isinstance(trigger, bytes) and trigger for trigger in rule.triggers), rule.code


def test_prefilter_time_is_linear_on_hostile_input():
    """Long runs of blanks, continuations and '#': the squeezing search stays linear."""
    hostile = (b"a_" + b" \\\n" * 1000 + b"#" * 1000) * 250  # 1 MB
    started = time.process_time()
    assert not could_match(hostile, ALL_RULES)
    assert time.process_time() - started < 2.0


# ---------------------------------------------------------------- real code

def _corpora() -> list[Path]:
    found = []
    corpora = REPO_ROOT / "bench" / "corpora"
    if corpora.is_dir():
        for unpacked in sorted(corpora.iterdir()):
            for package in sorted(unpacked.iterdir()) if unpacked.is_dir() else []:
                if package.is_dir() and not package.name.startswith(".") and not package.name.endswith(".partial"):
                    found.append(package)
    spec = importlib.util.find_spec("torch")  # torch's own sources, without importing torch
    if spec is not None and spec.submodule_search_locations:
        found.append(Path(list(spec.submodule_search_locations)[0]))
    return found


@pytest.mark.parametrize("corpus", _corpora(), ids=lambda path: path.name)
def test_files_the_prefilter_skips_have_no_findings(corpus):
    skipped = 0
    for path in sorted(corpus.rglob("*.py")):
        try:
            source = path.read_bytes()
        except OSError:
            continue
        if could_match(source, ALL_RULES):
            continue
        skipped += 1
        found = [d for d in lint_source(source, str(path), prefilter=False)
                 if d.code != FILE_ERROR_CODE or "does not parse" not in d.message]
        assert found == [], f"the prefilter would hide {found[0].code} in {path}: {found[0].message}"
    assert skipped > 0, f"the prefilter skips no file of {corpus}: nothing was compared"

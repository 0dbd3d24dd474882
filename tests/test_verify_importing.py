"""`--verify` imports a file the way its project does, and runs flagged top-level code through its slice.

- The unit tests (no torch) check the import context (verify/importing.py) and the
  backward slice of a top-level statement (verify/slicing.py) on code built here.
- `context_verified`: one `verify()` call over a copy of tests/data/verify/import_context
  (a script folder importing a sibling `utils`, a package with relative imports three
  levels deep, scripts whose top level holds the bugs and a training loop that must not run).
- `configured_run`: the command line on a project whose pyproject.toml names an import folder.
"""

from __future__ import annotations

import ast
import importlib.util
import io
import json
import re
import shutil
import sys
import textwrap
import tokenize
from pathlib import Path

import pytest

from conftest import TESTS_DATA, run_torchcopylint, snapshot

from torchcopylint.engine import lint_source
from torchcopylint.verify.importing import describe_error, describe_failure, import_context
from torchcopylint.verify.slicing import module_level_slice
from torchcopylint.verify.snippet import snippet_source

CONTEXT_FIXTURES = TESTS_DATA / "verify" / "import_context"
MARKER = re.compile(r"#\s*expect:\s*(TCL\d{3}(?:\s*,\s*TCL\d{3})*)\s*$")
needs_torch = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                 reason="--verify needs torch (pip install torchcopylint[verify])")
# Generous per-diagnosis limit: a loaded machine must not turn a verdict into "timed out".
PATIENT_TIMEOUT = 120


# --- import context -------------------------------------------------------------------------


def test_script_folder_puts_its_own_folder_first(tmp_path: Path):
    script = _touch(tmp_path / "gans" / "train.py")
    context = import_context(str(script))
    assert context.package is None and context.module_name is None
    assert context.search_path[0] == str(script.parent)


def test_module_in_a_package_is_known_by_its_dotted_name(tmp_path: Path):
    for folder in ("pkg", "pkg/a", "pkg/a/b", "pkg/a/b/c"):
        _touch(tmp_path / "lib" / folder / "__init__.py")
    module = _touch(tmp_path / "lib" / "pkg" / "a" / "b" / "c" / "blocks.py")
    context = import_context(str(module))
    assert (context.package, context.module_name) == ("pkg.a.b.c", "pkg.a.b.c.blocks")
    # The folder above the top package is searched first; the file's own folder only last.
    assert context.search_path[0] == str(tmp_path / "lib")
    assert context.search_path[-1] == str(module.parent)


def test_package_init_is_the_package_itself(tmp_path: Path):
    init = _touch(tmp_path / "pkg" / "sub" / "__init__.py")
    _touch(tmp_path / "pkg" / "__init__.py")
    context = import_context(str(init))
    assert (context.package, context.module_name) == ("pkg.sub", "pkg.sub")


@pytest.mark.parametrize("imports, depth", [
    ("from utils.utils import get_lr\n", 1),          # absolute, through its own folder's name
    ("from .utils import get_lr\n", 1),               # relative: only a package's module can
    ("from nets.utils.utils import get_lr\n", 2),     # two folders deep
])
def test_a_file_whose_imports_name_its_folder_is_a_module_of_that_namespace_package(
        tmp_path: Path, imports: str, depth: int):
    # bubbliiiing's GAN repositories: `utils/utils_fit.py` (no `__init__.py`) imports `utils.utils`,
    # as it runs from the folder above. With `utils/` on the path, `utils` is `utils/utils.py`.
    _touch(tmp_path / "nets" / "utils" / "utils.py")
    module = tmp_path / "nets" / "utils" / "utils_fit.py"
    module.write_text(f"import torch\n{imports}", encoding="utf-8")
    context = import_context(str(module))
    package = ["nets", "utils"][-depth:]
    assert (context.package, context.module_name) == (".".join(package), ".".join(package + ["utils_fit"]))
    assert context.search_path[0] == str(module.parents[depth])
    assert str(module.parent) not in context.search_path


def test_a_file_importing_its_own_folder_by_name_runs_from_the_folder_above(tmp_path: Path):
    # `src/utils/trainer.py` (no `__init__.py`): `from utils import dcgan, sagan` names its own folder;
    # with a `utils.py` beside it, the name would be that module and the folder stays the script's.
    _touch(tmp_path / "src" / "utils" / "dcgan.py")
    module = tmp_path / "src" / "utils" / "trainer.py"
    module.write_text("import torch\nfrom utils import dcgan, sagan\n", encoding="utf-8")
    context = import_context(str(module))
    assert (context.package, context.module_name) == ("utils", "utils.trainer")
    assert context.search_path[0] == str(tmp_path / "src")
    _touch(tmp_path / "src" / "utils" / "utils.py")
    assert import_context(str(module)).package is None


def test_folders_a_script_puts_on_sys_path_itself_are_searched(tmp_path: Path):
    (tmp_path / "gan" / "utils").mkdir(parents=True)
    script = tmp_path / "gan" / "began.py"
    script.write_text("import os, sys\nsys.path.append('utils')\nsys.path.insert(0, \"../shared\")\nfrom data import *\n",
                      encoding="utf-8")
    context = import_context(str(script))
    assert context.search_path[:2] == (str(script.parent), str(script.parent / "utils")), context.search_path
    assert str(tmp_path / "shared") not in context.search_path  # not there: left out


def test_a_module_the_folder_above_holds_is_imported_from_there(tmp_path: Path):
    # fresh25's SR solver: `net/solver.py` imports `dataset`, which sits beside the `train.py` run from
    # `code/`; `models` is its own folder's, and a name no folder up to the project root holds is not searched.
    _touch(tmp_path / "pyproject.toml")
    _touch(tmp_path / "code" / "dataset.py")
    _touch(tmp_path / "code" / "net" / "models.py")
    _touch(tmp_path / "outside.py")
    _touch(tmp_path.parent / "elsewhere.py")
    module = tmp_path / "code" / "net" / "solver.py"
    module.write_text("import torch\nfrom dataset import get_training_set\nfrom models import Net\nimport elsewhere\n",
                      encoding="utf-8")
    context = import_context(str(module))
    assert context.search_path[0] == str(module.parent)
    assert str(tmp_path / "code") in context.search_path
    assert str(tmp_path.parent) not in context.search_path, context.search_path


def test_a_plain_folder_above_holding_the_module_is_a_namespace_package_imported_from_there(tmp_path: Path):
    # fresh64's GAN tutorials: `GAN/dcgan/model.py` does `from utils.utils import Generator`, where
    # `GAN/utils/` has no __init__.py (Python 3 imports it as a namespace package), run from `GAN/`.
    _touch(tmp_path / ".git" / "HEAD")
    _touch(tmp_path / "GAN" / "utils" / "utils.py")
    _touch(tmp_path / "GAN" / "other" / "helpers.py")
    module = _touch(tmp_path / "GAN" / "dcgan" / "model.py")
    module.write_text("import torch\nfrom utils.utils import Generator\nfrom other.missing import thing\n",
                      encoding="utf-8")
    context = import_context(str(module))
    assert context.search_path[0] == str(module.parent)
    assert str(tmp_path / "GAN") in context.search_path, context.search_path
    # A folder whose namesake holds no such module provides nothing.
    (tmp_path / "GAN" / "utils" / "utils.py").unlink()
    assert str(tmp_path / "GAN") not in import_context(str(module)).search_path


def test_a_script_that_imports_its_siblings_stays_a_script(tmp_path: Path):
    _touch(tmp_path / "gans" / "models.py")
    script = tmp_path / "gans" / "train.py"
    script.write_text("import torch\nfrom models import Generator\nimport os.path\n", encoding="utf-8")
    context = import_context(str(script))
    assert context.package is None and context.search_path[0] == str(script.parent)


def test_project_root_its_src_and_configured_folders_follow(tmp_path: Path):
    _touch(tmp_path / "pyproject.toml")
    (tmp_path / "src").mkdir()
    (tmp_path / "vendor").mkdir()
    script = _touch(tmp_path / "scripts" / "run.py")
    context = import_context(str(script), [str(tmp_path / "vendor"), str(tmp_path / "absent")])
    assert context.search_path == (str(script.parent), str(tmp_path), str(tmp_path / "src"), str(tmp_path / "vendor"))


def test_a_package_that_is_not_installed_is_named(tmp_path: Path):
    script = _touch(tmp_path / "train.py")
    error = ModuleNotFoundError("No module named 'tracker_pkg_absent'", name="tracker_pkg_absent.sdk")
    assert describe_failure(error, str(script)) == "needs `tracker_pkg_absent`, which is not installed"


def test_a_folder_of_the_project_named_as_the_package_does_not_hide_that_it_is_missing(tmp_path: Path, monkeypatch):
    # fresh60: `azureml/train.py` imports `azureml.core.run`; with the project's root on the import path
    # its folder `azureml/` is found as a namespace package, which holds no `core`: the package is
    # missing (and a no-op stand-in may replace it). A namespace folder that holds the module is the project's.
    from torchcopylint.verify.importing import absent_package

    script = _touch(tmp_path / "cloudpkg_absent" / "train.py")
    _touch(tmp_path / "sharedpkg_ns" / "core.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    asked = ModuleNotFoundError("No module named 'cloudpkg_absent.core'", name="cloudpkg_absent.core")
    assert absent_package(asked, str(script)) == "cloudpkg_absent"
    assert describe_failure(asked, str(script)) == "needs `cloudpkg_absent`, which is not installed"
    held = ModuleNotFoundError("No module named 'sharedpkg_ns.core.deep'", name="sharedpkg_ns.core.deep")
    assert absent_package(held, str(script)) is None


def test_a_module_the_project_s_own_package_lacks_is_left_out_an_installed_package_s_is_not(
        tmp_path: Path, monkeypatch):
    from torchcopylint.verify.importing import left_out_module

    _touch(tmp_path / "setup.cfg")
    _touch(tmp_path / "agentpkg_left" / "__init__.py")
    _touch(tmp_path / "agentpkg_left" / "metric.py")
    script = _touch(tmp_path / "agentpkg_left" / "default.py")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "agentpkg_left", raising=False)
    __import__("agentpkg_left")
    lacking = ModuleNotFoundError("No module named 'agentpkg_left.models'", name="agentpkg_left.models")
    assert left_out_module(lacking, str(script)) == "agentpkg_left.models"
    held = ModuleNotFoundError("No module named 'agentpkg_left.metric'", name="agentpkg_left.metric")
    assert left_out_module(held, str(script)) is None  # there: an import path's matter, not a left-out file
    installed = ModuleNotFoundError("No module named 'json.absent_part'", name="json.absent_part")
    assert left_out_module(installed, str(script)) is None


def test_a_package_a_module_requires_in_its_own_words_is_named(tmp_path: Path):
    # `try: import torchvision.transforms` / `except ImportError as e: raise ImportError("`torchvision`
    # is required ...") from e`: the package it was raised from is what is missing.
    script = _touch(tmp_path / "train.py")
    try:
        try:
            raise ModuleNotFoundError("No module named 'vision_pkg_absent'", name="vision_pkg_absent")
        except ImportError as missing:
            raise ImportError("`vision_pkg_absent` is required to craft necessary transforms.") from missing
    except ImportError as error:
        message = describe_failure(error, str(script))
        assert message.startswith("needs `vision_pkg_absent`") and message.endswith("which is not installed"), message
    # Raised on its own, with no missing package behind it, the message is the module's.
    plain = ImportError("`vision_pkg_absent` is required")
    assert describe_failure(plain, str(script)).startswith("could not import what the code needs:")


def test_a_project_module_off_the_import_path_is_pointed_at(tmp_path: Path):
    _touch(tmp_path / "setup.cfg")
    _touch(tmp_path / "third_party" / "helpers_absent_lib.py")
    script = _touch(tmp_path / "scripts" / "train.py")
    error = ModuleNotFoundError("No module named 'helpers_absent_lib'", name="helpers_absent_lib")
    message = describe_failure(error, str(script))
    assert "third_party/helpers_absent_lib.py" in message and "pythonpath" in message, message
    assert "not installed" not in message


def test_a_project_module_spelled_in_other_case_is_found_in_the_project_only(tmp_path: Path):
    from torchcopylint.verify.importing import OtherCaseFinder

    _touch(tmp_path / "resnet.py")
    _touch(tmp_path / "Models" / "__init__.py")
    _touch(tmp_path / "exact.py")
    notes = []
    finder = OtherCaseFinder(str(tmp_path), notes.append)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(sys, "path", [str(tmp_path), str(Path(json.__file__).parent.parent)])
        assert Path(finder.find_spec("ResNet").origin).name == "resnet.py"
        package = finder.find_spec("models")
        assert Path(package.origin).parent.name == "Models" and package.submodule_search_locations
        assert finder.find_spec("exact") is None, "spelled as the file is: the import system's to find"
        assert finder.find_spec("JSON") is None, "outside the project: not looked for"
    assert notes[0].startswith("`ResNet` was imported from resnet.py, spelled in other letter case"), notes


@needs_torch
def test_a_script_importing_its_sibling_in_other_case_is_verified(tmp_path: Path):
    # fresh79's distillation project, written on macOS: `from ResNet import ResNet` of resnet.py.
    (tmp_path / "nets.py").write_text(
        "import torch\n\n\nclass Net(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.fc = torch.nn.Linear(4, 1)\n\n    def forward(self, x):\n        return self.fc(x)\n",
        encoding="utf-8")
    (tmp_path / "train.py").write_text(
        "import torch\nfrom Nets import Net\n\nnet = Net()\noptimizer = torch.optim.SGD(net.parameters(), lr=0.1)\n"
        "losses = []\nfor step in range(100):\n    loss = net(torch.randn(8, 4)).pow(2).mean()\n"
        "    optimizer.zero_grad()\n    loss.backward()\n    optimizer.step()\n    losses.append(loss)\n",
        encoding="utf-8")
    result = run_torchcopylint("check", "--no-cache", "--verify", "--output-format", "json", "train.py",
                               cwd=tmp_path, timeout=300)
    found = [d for d in json.loads(result.stdout) if d["code"] == "TCL007"]
    assert found and found[0]["verdict"]["status"] == "confirmed", result.stdout
    assert "`Nets` was imported from nets.py, spelled in other letter case" in found[0]["verdict"]["evidence"]


def test_an_installed_package_that_fails_inside_is_not_called_missing(tmp_path: Path):
    error = ModuleNotFoundError("No module named 'json.not_a_submodule'", name="json.not_a_submodule")
    message = describe_failure(error, str(_touch(tmp_path / "x.py")))
    assert "not installed" not in message and "json.not_a_submodule" in message, message


def test_a_project_module_that_does_not_parse_here_is_named_with_its_line(tmp_path: Path):
    # A sibling written for Python 3.12 (`type seed_t = int | None`) fails as a bare "SyntaxError:
    # invalid syntax" on 3.11; the user needs the file, the line and the Python it was run on.
    script = _touch(tmp_path / "train.py")
    module = tmp_path / "nets" / "model_resnet.py"
    module.parent.mkdir()
    module.write_text("import torch\n\ntype seed_t = int | None\n", encoding="utf-8")
    try:
        compile(module.read_text(encoding="utf-8"), str(module), "exec")
    except SyntaxError as error:
        message = describe_error(error, str(script))
    else:
        pytest.skip("this Python parses the `type` statement")
    assert message.startswith("nets/model_resnet.py line 3 does not parse on this Python (3."), message
    assert "at `type seed_t = int | None`" in message and message.endswith("it may need a newer one"), message
    assert describe_error(ValueError("bad\nmore"), str(script)) == "ValueError: bad"


def _touch(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("", encoding="utf-8")
    return path


def test_a_stand_in_imports_but_every_use_raises_past_except_exception():
    from torchcopylint.verify.absent import AbsentPackages, AbsentPackageUsed, stand_in_for

    before = list(sys.meta_path)
    try:
        stand_in_for("plotting_pkg_absent_for_test")
        namespace: dict = {}
        exec("import plotting_pkg_absent_for_test.sub as sub\n"
             "from plotting_pkg_absent_for_test import pyplot as plt\n", namespace)
        uses = ["plt.imshow(1)", "class Net(plt.Base): pass\nNet()", "isinstance(1, plt.Figure)", "sub.helper()", "bool(plt.rcParams)",
                "for _ in plt.figures: pass", "try:\n    plt.show()\nexcept Exception:\n    pass",
                "plt.Figure.__name__.lower()", "assert sub.__version__ >= '1.15'"]
        for use in uses:
            with pytest.raises(AbsentPackageUsed, match=r"needs `plotting_pkg_absent_for_test`, which is not installed"):
                exec(use, dict(namespace))
        # Probes for special methods see a plain object, as copy, inspect and numpy expect.
        assert not hasattr(namespace["plt"], "__array__") and not hasattr(namespace["plt"], "__wrapped__")
        # Defining a class on an absent base, or filing one in an absent registry, is not a use: a module
        # the flagged code never uses may do it. Making one with the base's `__init__` is.
        exec("@sub.REGISTRY.register_module()\nclass Boxes(plt.Base):\n    pass\n"
             "@sub.register_model\ndef small():\n    return 1\n", namespace)
        assert isinstance(namespace["Boxes"], type) and namespace["small"]() == 1
        # Nor is naming one in an annotation's union (fresh33: `def load(path) -> Image.Image | None`).
        exec("def shown(figure: plt.Figure | None = None) -> None | plt.Figure:\n    return figure\n", namespace)
        assert namespace["shown"]() is None
        with pytest.raises(AbsentPackageUsed, match=r"the code used `plotting_pkg_absent_for_test.pyplot.Base`"):
            namespace["Boxes"]()
        # A class's own `__init__` that never calls the base's makes one (fresh42's federated clients on
        # flwr's NumPyClient): what the base would give, its `__init__` or an attribute, is a use.
        exec("class Client(plt.Base):\n    def __init__(self, net):\n        self.net = net\n"
             "    def snapshot(self):\n        return [p * 2 for p in self.net]\n"
             "class Calling(plt.Base):\n    def __init__(self):\n        super().__init__()\n", namespace)
        client = namespace["Client"]([1, 2])
        assert client.snapshot() == [2, 4] and not hasattr(client, "__array__")
        with pytest.raises(AbsentPackageUsed, match=r"the code used `plotting_pkg_absent_for_test.pyplot.Base`"):
            client.get_parameters({})
        with pytest.raises(AbsentPackageUsed):
            namespace["Calling"]()
        with pytest.raises(AbsentPackageUsed):
            exec("sub.REGISTRY.build(dict(type='Boxes'))", namespace)  # a lookup is a use
    finally:
        sys.meta_path[:] = before
        for name in [name for name in sys.modules if name.startswith("plotting_pkg_absent_for_test")]:
            del sys.modules[name]
    assert not any(isinstance(finder, AbsentPackages) for finder in sys.meta_path)


# --- the backward slice of a top-level statement -----------------------------------------------


def _kept(source: str, flagged: str, *also: str) -> list[str]:
    """The non-blank lines of the slice for the line holding `flagged` (plus lines holding `also`)."""
    lines = source.splitlines()
    numbers = [next(n for n, text in enumerate(lines, 1) if marker in text) for marker in (flagged, *also)]
    sliced = module_level_slice(source, numbers)
    assert sliced is not None
    assert len(sliced.splitlines()) == len(lines), "the slice must keep the file's line numbers"
    return [text for text in sliced.splitlines() if text.strip()]


SCRIPT = """\
import torch
from torch import nn
import matplotlib.pyplot as plt

w = torch.randn(4, requires_grad=True)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(100):
    loss = model(torch.randn(2, 4)).sum()
    loss.backward()
    opt.step()
plt.plot(w.detach())
torch.save(w, "w.pt")
w.add_(1)  # flagged
print("after")
"""


def test_slice_leaves_out_the_training_loop_and_reads_of_the_flagged_tensor():
    assert _kept(SCRIPT, "# flagged") == ["import torch", "w = torch.randn(4, requires_grad=True)", "w.add_(1)  # flagged"]


def test_slice_keeps_statements_that_change_what_the_flagged_line_reads():
    source = SCRIPT.replace("w.add_(1)  # flagged", "model.weight.add_(1)  # flagged")
    kept = _kept(source, "# flagged")
    # The loop changes the model (opt = SGD(model.parameters()) ... opt.step()): it is part of the slice.
    assert "    opt.step()" in kept and "model = nn.Linear(4, 1)" in kept and "from torch import nn" in kept
    assert not any("plt" in line or "torch.save" in line or "after" in line for line in kept), kept


def test_slice_follows_in_place_writes_aliases_and_the_file_s_functions():
    source = """\
import torch
from torch import nn

a = torch.ones(3, requires_grad=True)
b = torch.ones(3)
view = b.view(-1)
view.mul_(2)
nn.init.zeros_(a)
def reset():
    b.data.zero_()
reset()
c = torch.ones(3)
c.add_(5)
a.add_(b)  # flagged
"""
    kept = _kept(source, "# flagged")
    for statement in ("view = b.view(-1)", "view.mul_(2)", "nn.init.zeros_(a)", "def reset():", "reset()"):
        assert statement in kept, (statement, kept)
    assert "c = torch.ones(3)" not in kept and "c.add_(5)" not in kept, kept


def test_slice_keeps_a_star_import_also_in_a_branch():
    source = """\
import argparse
parser = argparse.ArgumentParser()
parser.add_argument("--dataset", default="cifar10")
opt = parser.parse_args()
if opt.dataset != "timagenet":
    from model import *
else:
    from model_timagenet import *
unused = 1
netE = Encoder(100)  # flagged
"""
    kept = _kept(source, "# flagged")
    # What the star import binds is not in sight (`Encoder`): the branch stays, with the option it reads.
    for statement in ("    from model import *", "opt = parser.parse_args()", "netE = Encoder(100)  # flagged"):
        assert statement in kept, (statement, kept)
    assert "unused = 1" not in kept, kept


def test_slice_opens_the_main_guard_and_stops_at_the_flagged_statement():
    source = """\
import torch

if __name__ == "__main__":
    scores = torch.randn(3, requires_grad=True)
    for epoch in range(100):
        raise SystemExit("training")
    scores.zero_()  # flagged
    raise SystemExit("after")
"""
    assert _kept(source, "# flagged") == ["import torch", "scores = torch.randn(3, requires_grad=True)",
                                          "scores.zero_()  # flagged"]


def test_slice_reaches_the_later_lines_of_the_claim():
    source = """\
import torch

probs = torch.rand(2, 3, requires_grad=True).softmax(dim=1)
targets = probs.detach()  # flagged
unrelated = torch.zeros(1)
targets[targets < 0.3] = 0.0  # write
"""
    assert _kept(source, "# flagged", "# write") == [
        "import torch", "probs = torch.rand(2, 3, requires_grad=True).softmax(dim=1)",
        "targets = probs.detach()  # flagged", "targets[targets < 0.3] = 0.0  # write"]


def test_slice_keeps_the_backward_that_gives_a_gradient_the_claim_reads():
    source = """\
import torch

x = torch.tensor(3.0, requires_grad=True)
y = x * 2  # flagged
z = torch.ones(2, requires_grad=True)
loss = (y - 1) ** 2
other = (z * 3).sum()
other.backward()
loss.backward()
print(y.grad)  # read
"""
    # `loss` was computed from `y`: its backward fills the `.grad` the claim reads; `other`'s does not.
    kept = _kept(source, "# flagged", "# read")
    assert "loss.backward()" in kept and "loss = (y - 1) ** 2" in kept, kept
    assert "other.backward()" not in kept and "z = torch.ones(2, requires_grad=True)" not in kept, kept


def test_slice_does_not_take_a_module_for_data():
    source = """\
import torch
from torch import nn

for step in range(10 ** 9):
    head = nn.Linear(3, 1)(torch.randn(2, 3))
w = torch.randn(3, requires_grad=True)
w.add_(1)  # flagged
"""
    # The loop passes torch.randn(...) to a call: that changes no module, so the loop stays out.
    assert _kept(source, "# flagged") == ["import torch", "w = torch.randn(3, requires_grad=True)",
                                          "w.add_(1)  # flagged"]


def test_slice_needs_no_earlier_binding_of_a_name_the_statement_binds_before_reading_it():
    # A notebook: an earlier cell averaged another model's predictions into `preds` and plotted them;
    # the flagged cell binds `preds` itself before `preds +=`. Neither the earlier loop, its network,
    # nor the plot is part of the slice; the ensemble it evaluates (and trains, by a function whose
    # own locals are not globals) is.
    source = """\
import torch
from torch import nn
import matplotlib.pyplot as plt

def train(net, x):
    image = x * 2
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for step in range(3):
        opt.zero_grad()
        net(image).sum().backward()
        opt.step()
    return net

def show(image):
    plt.imshow(image)

x = torch.randn(4, 8)
y = torch.randn(4, 8)
other = nn.Linear(8, 2)
preds = torch.zeros(4, 2)
for image in [y, y]:
    preds += other(image)
show(preds)
preds = []
nets = [nn.Linear(8, 2) for _ in range(3)]
for net in nets:
    train(net, x)
for image in [x]:
    preds = torch.zeros(4, 2)
    for net in nets:
        preds += net(image)  # flagged
"""
    assert _kept(source, "# flagged") == [
        "import torch", "from torch import nn", "def train(net, x):", "    image = x * 2",
        "    opt = torch.optim.SGD(net.parameters(), lr=0.1)", "    for step in range(3):", "        opt.zero_grad()",
        "        net(image).sum().backward()", "        opt.step()", "    return net", "x = torch.randn(4, 8)",
        "nets = [nn.Linear(8, 2) for _ in range(3)]", "for net in nets:", "    train(net, x)", "for image in [x]:",
        "    preds = torch.zeros(4, 2)", "    for net in nets:", "        preds += net(image)  # flagged"]


def test_a_main_guard_is_one_written_either_way_round():
    from torchcopylint.verify.slicing import is_main_guard

    guards = [ast.parse(text).body[0] for text in ('if __name__ == "__main__":\n    pass\n',
                                                   'if "__main__" == __name__:\n    pass\n')]
    assert all(is_main_guard(guard) for guard in guards)
    assert not is_main_guard(ast.parse("if name == '__main__':\n    pass\n").body[0])


def test_constructor_calls_of_the_top_level_read_names_it_binds_once_to_a_literal():
    from torchcopylint.verify.snippet import literal_calls

    source = textwrap.dedent("""
        class FCN:
            pass

        def build(layers):
            return FCN(layers)  # a parameter: not the module's constant

        widths = [1, 8, 3]
        steps = 2
        steps = 3
        if __name__ == "__main__":
            net = FCN(widths, depth=steps)  # `steps` is bound twice: not a constant
            other = FCN(widths)
    """)
    assert literal_calls(source, "FCN") == [([[1, 8, 3]], {})]


def test_slice_keeps_star_imports():
    source = "from utils import *\nimport torch\n\nw = make_weights()\nw.add_(1)  # flagged\n"
    assert _kept(source, "# flagged") == ["from utils import *", "w = make_weights()", "w.add_(1)  # flagged"]


def test_snippet_keeps_star_imports_and_whole_import_fallbacks():
    source = (
        "import torch\n"
        "from utils import *\n"
        "try:\n    import apex_absent\nexcept ImportError:\n    apex_absent = None\n"
        "try:\n    import numpy as np\nexcept ImportError:\n    print('no numpy')\n    raise\n"
        "def f(x):\n    return helper(x) if apex_absent is None else x\n"
        "def g():\n    return np.zeros(1)\n"
    )
    kept_for_f = [line for line in snippet_source(source, {"f"}).splitlines() if line.strip()]
    assert kept_for_f == ["from utils import *", "try:", "    import apex_absent", "except ImportError:",
                          "    apex_absent = None", "def f(x):", "    return helper(x) if apex_absent is None else x"]
    # A handler that re-raises is no fallback: the import alone is lifted, as before.
    kept_for_g = [line for line in snippet_source(source, {"g"}).splitlines() if line.strip()]
    assert kept_for_g == ["from utils import *", "import numpy as np", "def g():", "    return np.zeros(1)"]


def test_snippet_lifts_a_main_guard_s_import_where_a_kept_statement_reads_it():
    # `if __name__ == "__main__": import argparse; parser = argparse.ArgumentParser(); ...; train(args)`:
    # the guard's statements that make `args` read `argparse`, which only the guard imports.
    source = (
        "import torch\n"
        "def train(args):\n    return torch.zeros(args.n)\n"
        "if __name__ == '__main__':\n    import argparse\n    import json\n"
        "    parser = argparse.ArgumentParser()\n    train(parser.parse_args())\n"
    )
    kept = [line for line in snippet_source(source, {"train", "argparse"}).splitlines() if line.strip()]
    assert kept == ["import torch", "def train(args):", "    return torch.zeros(args.n)", "import argparse"]


def test_snippet_reads_a_function_s_globals_not_its_parameters_or_locals():
    # A notebook binds `x` from a batch in one cell; a later function's own parameter `x` is not that global,
    # and the cell (which would fail without the data) is not carried with the function.
    source = (
        "import torch\n"
        "batch = next(iter(loader))\n"
        "x = batch[0]\n"
        "scale = 2\n"
        "def f(x, factor=scale):\n    y = x * factor\n    return [y for y in (y,)]\n"
    )
    kept = [line for line in snippet_source(source, {"f"}).splitlines() if line.strip()]
    assert kept == ["scale = 2", "def f(x, factor=scale):", "    y = x * factor", "    return [y for y in (y,)]"]


# --- running it: one verify() call over the fixtures --------------------------------------------


def _markers(source: str) -> set[tuple[int, str]]:
    found = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT and MARKER.search(token.string):
            found.update((token.start[0], code.strip()) for code in MARKER.search(token.string).group(1).split(","))
    return found


@pytest.fixture(scope="module")
def context_verified(tmp_path_factory):
    from torchcopylint.verify.runner import VerifyOptions, verify

    directory = tmp_path_factory.mktemp("import-context") / "projects"
    shutil.copytree(CONTEXT_FIXTURES, directory, ignore=shutil.ignore_patterns("configured"))
    before = snapshot(directory)
    sources = {str(path): path.read_text(encoding="utf-8") for path in sorted(directory.rglob("*.py"))}
    diagnostics = []
    for path, source in sources.items():
        found = list(lint_source(source, path))
        # The fixture still holds the bugs it was written for (and nothing else).
        assert {(d.location.line, d.code) for d in found} == _markers(source), path
        diagnostics += found
    verified = verify(diagnostics, sources, VerifyOptions(device="cpu", timeout=PATIENT_TIMEOUT, jobs=2))
    by_key = {(Path(d.path).relative_to(directory).as_posix(), d.location.line, d.code): d.verdict
              for d in verified}
    return {"by_key": by_key, "directory": directory, "before": before, "sources": sources}


def _verdict(verified, relative: str, text: str, code: str):
    source = verified["sources"][str(verified["directory"] / relative)]
    line = next(n for n, content in enumerate(source.splitlines(), 1) if text in content)
    verdict = verified["by_key"].get((relative, line, code))
    assert verdict is not None, f"no verdict for {code} at {relative}:{line}: {sorted(verified['by_key'])}"
    return verdict


@needs_torch
@pytest.mark.parametrize("relative, text, code", [
    # A script importing its sibling `utils` as a script does.
    pytest.param("gan_scripts/train_gan.py", "identity = x.clone()", "TCL001", id="sibling-utils"),
    # A star import of a sibling, and an import fallback, run as in Python.
    pytest.param("gan_scripts/train_wgan.py", "identity = x.clone()", "TCL001", id="star-import-and-fallback"),
    # A package module with relative imports three levels deep.
    pytest.param("library/pkg/a/b/c/blocks.py", "identity = x.clone()", "TCL001", id="relative-imports"),
    # The folder's __init__.py imports a hyphenated folder by name (a syntax error); its scripts import their
    # siblings as scripts do and need nothing of the package, so the file runs alone (fresh84's patch
    # trainers: "the experiment failed: __init__.py line 3 does not parse").
    pytest.param("broken_package/train_patch.py", "ep_loss += loss", "TCL007", id="init-that-does-not-parse"),
])
def test_a_file_imported_as_its_project_imports_it_is_confirmed(context_verified, relative, text, code):
    verdict = _verdict(context_verified, relative, text, code)
    assert verdict.status == "confirmed", verdict


@needs_torch
def test_a_package_that_first_fails_on_a_missing_package_is_imported_afresh_with_its_stand_in(context_verified):
    # The first try imported `library_retry.norms`, then failed; the try with the stand-in must not
    # reuse that module, which Python left bound to the package module it discarded. (The modules
    # of packages still imported stay: the other fixtures' relative imports need them.)
    verdict = _verdict(context_verified, "library_retry/layers/blocks.py", "identity = x.clone()", "TCL001")
    assert verdict.status == "confirmed", verdict
    assert "`not_installed_for_the_retry_test` is not installed: imported as a stand-in" in verdict.evidence


@needs_torch
def test_a_module_the_repository_left_out_of_its_own_package_stands_in_where_the_claim_needs_nothing_of_it(
        context_verified):
    # `import library_left_out.models as models`, a module the repository never committed: its package is
    # the project's, so no installation supplies it; the claim needs nothing of it (it was "could not
    # import what the code needs: No module named ...", fresh83's continual-learning agents).
    # The parameters are stand-ins made to require grad (the agent's network cannot be built): the run
    # measures the clone, and the conditional claim stays unverified, the assumption said.
    verdict = _verdict(context_verified, "library_left_out/regularization.py", "p.clone().detach()", "TCL005")
    assert verdict.status == "unverified", verdict
    assert "as written records CloneBackward0" in verdict.evidence and "a stand-in made to require grad" \
        in verdict.evidence, verdict.evidence
    assert "`library_left_out.models` is not in the project, whose `library_left_out` imports it" in verdict.evidence, \
        verdict.evidence


@needs_torch
def test_a_method_whose_imported_base_class_sets_what_its_helpers_read_is_confirmed(context_verified):
    # `get_logits`, in base.py, reads attributes only `Attack.__init__` sets; the method reads images.
    verdict = _verdict(context_verified, "library/attacks/patches.py", "chosen = images[", "TCL001")
    assert verdict.status == "confirmed", verdict
    assert "`Attack.__init__` (imported) ran on the stand-ins" in verdict.evidence, verdict.evidence
    assert "images = tensor(4, 3, 16, 16)" in verdict.evidence, verdict.evidence
    assert "labels = class indices" in verdict.evidence, verdict.evidence


@needs_torch
def test_an_object_that_is_not_a_module_is_built_by_its_own_constructor(context_verified):
    # NoiseAttack(model, eps=None, device="cuda"): a network for `model`, a number for the `eps` it computes
    # with, the verification device for its `device`.
    verdict = _verdict(context_verified, "library/attacks/noise.py", "kept = noisy[", "TCL001")
    assert verdict.status == "confirmed", verdict
    assert "the object built by its own constructor as NoiseAttack(model, eps) (model = StandInNet" in verdict.evidence, \
        verdict.evidence


@needs_torch
def test_a_class_filed_in_a_registry_by_the_package_import_runs_as_written_for_a_gpu(context_verified):
    # The zoo's __init__.py files FastGradient in a registry that refuses a second filing, and imports a
    # module built on a detector library that is not installed; FastGradient defaults its device to
    # `torch.device(0)`, which raises without a GPU, and `images=None` is used as given. The attack's
    # images are made up (nothing shows what it is given): the run measures the clone of what it computes
    # from them (a clone of the images as passed would not be reported: the rule's silence on arguments
    # out of sight), and the conditional claim stays unverified, the assumption said.
    verdict = _verdict(context_verified, "library/zoo/fgm.py", "adv = images.clamp(0, 1).clone().detach()", "TCL005")
    assert verdict.status == "unverified", verdict
    for part in ("as written records CloneBackward0",
                 "`images.clamp(0, 1)` requires grad here only through `images`, a stand-in made to require grad",
                 "the registration at line 10 ran a second time and was refused (KeyError)",
                 "`detector_lib_not_installed` is not installed: imported as a stand-in the code never used"):
        assert part in verdict.evidence, verdict.evidence
    assert "`torch.device(0)` named the GPU `cuda:0`, whose work ran on the CPU" in verdict.evidence, verdict.evidence


@needs_torch
def test_top_level_inplace_on_leaf_is_confirmed_without_running_the_training_loop(context_verified):
    verdict = _verdict(context_verified, "top_level/leaf_update.py", "bias.add_(1.0)", "TCL004")
    assert verdict.status == "confirmed", verdict
    assert "leaf Variable" in verdict.evidence, verdict
    # The loop (which also needs the package that is not installed) would have written this file.
    assert not (context_verified["directory"] / "top_level" / "training_ran").exists()


@needs_torch
@pytest.mark.parametrize("text, code, evidence", [
    ("features.clone().detach()", "TCL005", "CloneBackward"),
    ("torch.tensor(labels)", "TCL008", "UserWarning"),
    ("targets = probs.detach()", "TCL006", "changed"),
    ("running_loss += loss", "TCL007", "graph"),
    ("scores.zero_()", "TCL004", "leaf Variable"),
])
def test_top_level_bugs_are_confirmed_through_their_slice(context_verified, text, code, evidence):
    verdict = _verdict(context_verified, "top_level/module_rules.py", text, code)
    assert verdict.status == "confirmed", verdict
    assert evidence in verdict.evidence, verdict


@needs_torch
def test_a_missing_package_the_slice_needs_is_named(context_verified):
    verdict = _verdict(context_verified, "top_level/needs_tracker.py", "history.add_(weights)", "TCL004")
    assert verdict.status == "unverified", verdict
    assert verdict.evidence == ("needs `experiment_tracker_not_installed`, which is not installed "
                                "(the code used `experiment_tracker_not_installed.initial_weights`)"), verdict


@needs_torch
def test_packages_imported_but_never_used_stand_in_and_a_use_is_named(context_verified):
    relative = "gan_scripts/train_began.py"
    source = context_verified["sources"][str(context_verified["directory"] / relative)]
    encoder, logging = [n for n, text in enumerate(source.splitlines(), 1) if "identity = x.clone()" in text]
    # heavy_utils imports two packages that are not installed; EncoderBlock uses neither.
    assert context_verified["by_key"][relative, encoder, "TCL001"].status == "confirmed"
    verdict = context_verified["by_key"][relative, logging, "TCL001"]
    assert verdict.status == "unverified", verdict
    # The package is named, and the sibling that imports it (the flagged file does not).
    assert verdict.evidence == ("needs `plotting_lib_not_installed` (imported by heavy_utils.py), which is not "
                                "installed (the code used `plotting_lib_not_installed.pyplot.imshow`)"), verdict


@needs_torch
def test_a_package_that_cannot_be_imported_says_so_for_every_finding(context_verified):
    # brokenpkg/__init__.py imports its subpackage, then fails (it uses a package that is not
    # installed): the second finding must not see the subpackage the first attempt left behind
    # as an importable package.
    relative = "library/brokenpkg/models/blocks.py"
    source = context_verified["sources"][str(context_verified["directory"] / relative)]
    lines = [n for n, text in enumerate(source.splitlines(), 1) if "identity = x.clone()" in text]
    verdicts = [context_verified["by_key"].get((relative, line, "TCL001")) for line in lines]
    assert len(verdicts) == 2
    for verdict in verdicts:
        assert verdict is not None and verdict.status == "unverified", verdicts
        assert verdict.evidence.startswith("needs `plotting_lib_not_installed` (imported by brokenpkg/__init__.py), "
                                           "which is not installed"), verdicts


@needs_torch
def test_a_module_needing_nothing_of_its_unimportable_package_runs_alone(context_verified):
    verdict = _verdict(context_verified, "library/brokenpkg/models/standalone.py", "identity = x.clone()", "TCL001")
    assert verdict.status == "confirmed", verdict


@needs_torch
def test_relative_imports_in_a_folder_without_init_use_a_namespace_package(context_verified):
    verdict = _verdict(context_verified, "namespace/models/net.py", "identity = x.clone()", "TCL001")
    assert verdict.status == "confirmed", verdict


@needs_torch
def test_no_file_is_written(context_verified):
    # Byte for byte, and nothing new: no marker file, no __pycache__ beside an imported sibling.
    assert snapshot(context_verified["directory"]) == context_verified["before"]


def _confirmed_script_evidence(project: Path, tmp_path: Path) -> str:
    """Verify the project's scripts/ from elsewhere: its one TCL001 is confirmed; the evidence."""
    result = run_torchcopylint("--verify", "--verify-timeout", str(PATIENT_TIMEOUT), "--output-format", "json",
                               project / "scripts", cwd=tmp_path, timeout=600)
    records = json.loads(result.stdout)
    assert [(r["code"], r["verdict"]["status"]) for r in records] == [("TCL001", "confirmed")], (records, result.stderr)
    return records[0]["verdict"]["evidence"]


@needs_torch
def test_configured_pythonpath_makes_an_import_work(tmp_path: Path):
    project = tmp_path / "configured"
    shutil.copytree(CONTEXT_FIXTURES / "configured", project)
    # Run from elsewhere: only the configuration (found above the linted folder, its paths relative
    # to it) can put vendor/ on the import path.
    _confirmed_script_evidence(project, tmp_path)


@needs_torch
def test_a_project_module_off_the_import_path_has_its_folder_put_on_it_and_said(tmp_path: Path):
    # The same project without the configuration: `helpers_lib` is the project's vendor/helpers_lib.py,
    # which its scripts import as their runner's PYTHONPATH lets them.
    project = tmp_path / "configured"
    shutil.copytree(CONTEXT_FIXTURES / "configured", project)
    (project / "pyproject.toml").write_text("[project]\nname = 'vendored'\n", encoding="utf-8")
    assert "`helpers_lib` is the project's vendor/helpers_lib.py, off the import path: its folder was put on it" \
        in _confirmed_script_evidence(project, tmp_path)


@needs_torch
def test_of_the_project_s_modules_by_one_name_the_folder_holding_the_submodule_asked_is_put_on_the_path(
        tmp_path: Path):
    # `from helpers_lib.layers import conv3x3`: the project has an older old/helpers_lib.py, found first
    # (nearer the root by name), and vendor/helpers_lib/layers.py, a folder without __init__.py. Only the
    # folder holds what the import asks for.
    project = tmp_path / "split"
    shutil.copytree(CONTEXT_FIXTURES / "configured", project)
    (project / "pyproject.toml").write_text("[project]\nname = 'split'\n", encoding="utf-8")
    (project / "vendor" / "helpers_lib.py").rename(project / "vendor" / "layers.py")  # the folder takes its name
    (project / "vendor" / "helpers_lib").mkdir()
    (project / "vendor" / "layers.py").rename(project / "vendor" / "helpers_lib" / "layers.py")
    (project / "old").mkdir()
    (project / "old" / "helpers_lib.py").write_text("VERSION = 1\n", encoding="utf-8")
    model = project / "scripts" / "model.py"
    model.write_text(model.read_text(encoding="utf-8").replace("from helpers_lib import", "from helpers_lib.layers import"),
                     encoding="utf-8")
    assert "`helpers_lib` is the project's vendor/helpers_lib, off the import path: its folder was put on it" \
        in _confirmed_script_evidence(project, tmp_path)


@needs_torch
def test_a_method_runs_after_what_its_class_s_caller_runs_first(context_verified):
    # `run_once` reads `self.sample_dims` and `self.scale`, which only `setup(x)` sets; `attack` runs
    # `setup(x)` before `run_once(x, y)`: the experiment does too, with the same `x`, and says so.
    verdict = _verdict(context_verified, "library/attacks/restarts.py", "best[index] = candidate[index].clone()",
                       "TCL001")
    assert verdict.status == "confirmed", verdict
    assert "`setup(x)` ran first, as `attack` runs it before" in verdict.evidence, verdict.evidence


@needs_torch
def test_a_package_that_exits_on_import_without_a_package_it_checks_for_runs_with_a_stand_in(context_verified):
    # `__init__.py` tries `__import__(...)` of what it needs inside `except ImportError:` and calls
    # `sys.exit(1)` when one is missing: no ImportError reaches the verifier, the exit does.
    verdict = _verdict(context_verified, "checked_dependencies/fields.py", "kept = values.clone().detach()",
                       "TCL005")
    assert verdict.status == "confirmed", verdict
    assert "a module of the project exits as it is imported without `yaml_not_installed_for_the_exit_test`" \
        in verdict.evidence, verdict.evidence


@needs_torch
def test_a_project_test_module_written_for_pytest_imports_without_it(context_verified):
    # `@pytest.fixture(scope="module")` and `@pytest.mark.parametrize(...)` leave each function as written.
    verdict = _verdict(context_verified, "checked_dependencies/tests/test_fields.py",
                       "kept = (points @ weights).clone().detach()", "TCL005")
    assert verdict.status == "confirmed", verdict


def test_pytest_s_stand_in_leaves_decorated_functions_as_written():
    # Where pytest is not installed (a user's verification environment), its decorators pass through.
    from torchcopylint.verify.noops import NoOpModule, is_no_op

    pytest_stand_in = NoOpModule("pytest")
    assert is_no_op("pytest")

    def points():
        return 3

    assert pytest_stand_in.fixture(points) is points
    assert pytest_stand_in.fixture(scope="module")(points) is points
    assert pytest_stand_in.mark.parametrize("width", [4, 8])(points) is points
    assert pytest_stand_in.mark.slow(points) is points
    with pytest.raises(BaseException):
        pytest_stand_in.approx(1.0)  # anything else is absent: using it says so


def test_a_module_s_source_is_found_without_importing_its_packages(tmp_path: Path, monkeypatch):
    from torchcopylint.verify.samples import module_source

    (tmp_path / "exiting").mkdir()
    (tmp_path / "exiting" / "__init__.py").write_text("raise SystemExit(1)\n", encoding="utf-8")
    (tmp_path / "exiting" / "data.py").write_text("class Pairs:\n    pass\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert module_source("exiting.data") == "class Pairs:\n    pass\n"
    assert "exiting" not in sys.modules
    assert module_source("exiting.missing") is None and module_source("") is None
    assert "JSON (JavaScript Object Notation)" in module_source("json")
    # Namespace packages (folders without `__init__.py`), which the import system reads only through
    # their imported parents: found all the same.
    (tmp_path / "src" / "methods").mkdir(parents=True)
    (tmp_path / "src" / "methods" / "gan.py").write_text("G = 1\n", encoding="utf-8")
    assert module_source("src.methods.gan") == "G = 1\n" and "src" not in sys.modules


def test_a_warning_or_an_error_named_by_an_absent_or_no_op_package_is_a_class_of_that_kind():
    # A tabular GAN's transformer (fresh53): `warnings.filterwarnings("ignore",
    # category=sklearn.exceptions.ConvergenceWarning)` with sklearn stood in: "category must be a Warning subclass".
    import warnings

    from torchcopylint.verify.absent import AbsentModule
    from torchcopylint.verify.noops import NoOp

    for package in (NoOp("sklearn"), AbsentModule("sklearn")):
        warning, error = package.exceptions.ConvergenceWarning, package.exceptions.NotFittedError
        assert issubclass(warning, Warning) and issubclass(error, Exception) and not issubclass(error, Warning)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", category=warning)


def test_a_union_annotation_with_a_stood_in_type_evaluates():
    # fresh108's attribution benchmark: `def f(x: torch.Tensor | h5py.Dataset)` with h5py stood in by no-ops:
    # the annotation, evaluated as the function is defined, failed "unsupported operand type(s) for |".
    from torchcopylint.verify.noops import NoOp

    stood_in = NoOp("h5py").Dataset
    assert (int | stood_in) is stood_in and (stood_in | None) is stood_in


@needs_torch
def test_names_an_installed_package_no_longer_has_stand_in_where_the_package_imports_them(context_verified):
    # A vendored library written for an older torch: its package imports `from torch import rfft` and
    # `torch._six`, neither of which torch 2 has; the flagged block needs the package (a relative
    # import), not those names (fresh72's vendored torchattacks: scipy's `_status_message`, x28).
    verdict = _verdict(context_verified, "library_old_api/attacks/gradient.py", "identity = x.clone()", "TCL001")
    assert verdict.status == "confirmed", verdict
    assert "`torch` of the installed `torch` no longer has `rfft` (code written for an older version)" \
        in verdict.evidence, verdict.evidence


@needs_torch
@pytest.mark.parametrize("statement, removed", [
    ("from torch import rfft", ("torch", "rfft")),                          # removed in torch 1.8
    ("import torch.not_a_module_of_torch", ("torch.not_a_module_of_torch", None)),
    ("from not_installed_anywhere import thing", None),                     # a package that is not installed
    ("from helpers import gone", None),                                      # the project's own module
])
def test_what_an_installed_package_no_longer_has_is_told_from_what_is_missing(tmp_path: Path, statement, removed):
    import runpy

    from torchcopylint.verify.importing import removed_from_installed

    (tmp_path / ".git").mkdir()
    (tmp_path / "helpers.py").write_text("present = 1\n")
    script = tmp_path / "train.py"
    script.write_text(statement + "\n")
    sys.path.insert(0, str(tmp_path))
    try:
        with pytest.raises(ImportError) as raised:
            runpy.run_path(str(script))
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("helpers", None)
    assert removed_from_installed(raised.value, str(script)) == removed


@needs_torch
def test_a_module_that_reads_the_user_s_data_at_import_gets_stand_ins_for_what_it_reads(context_verified):
    verdict = _verdict(context_verified, "scored_molecules/generator.py", "kept = x.clone()", "TCL001")
    assert verdict.status == "confirmed", verdict
    for part in ("`NP_model` (scores.py, line 9) was not read: a value whose first use stops the run",
                 "`SA_model` (scores.py, line 10) was not read"):
        assert part in verdict.evidence, verdict.evidence


def test_only_top_level_reads_of_a_path_written_out_are_guarded_and_lines_hold():
    from torchcopylint.verify.legacy import module_reads_guarded

    source = ('import pickle, numpy as np\nTABLE = pickle.load(open("data/t.pkl",\n                           "rb"))\n'
              'path = make_path()\nOTHER = np.load(path)\nSIZE = 3\n\ndef f():\n    local = np.load("x.npy")\n')
    guarded = module_reads_guarded(source, "m.py")
    assert len(guarded.splitlines()) == len(source.splitlines())
    assert "read_or_unread(lambda: (pickle.load(open(\"data/t.pkl\",\n" in guarded and "'TABLE', 'm.py', 2)" in guarded
    # A path the code computes, a constant, and a read inside a function are left as written.
    assert "OTHER = np.load(path)" in guarded and "SIZE = 3" in guarded and 'local = np.load("x.npy")' in guarded


def test_a_block_is_built_with_the_settings_a_sibling_module_that_imports_it_gives(tmp_path: Path):
    # fresh116's segmentation decoder: `from . import blocks`, then `blocks.ResidualBlock(out_ch,
    # kernel_size=3, padding=1)`. Built with widths for every argument (`ResidualBlock(16, 16, 16)`:
    # a kernel of 16 and padding of 16), no input shape fitted; built as the decoder builds it, it runs.
    from conftest import only_verdict

    package = tmp_path / "model"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "blocks.py").write_text(textwrap.dedent("""\
        import torch
        from torch import nn


        class ResidualBlock(nn.Module):
            def __init__(self, channels, kernel_size, padding, stride=1):
                super().__init__()
                self.relu = nn.ReLU(inplace=True)
                self.bn = nn.BatchNorm2d(channels)
                self.conv = nn.Conv2d(channels, channels, kernel_size, stride=stride, padding=padding)

            def forward(self, x):
                y = self.relu(x)
                y = self.conv(y)
                return torch.add(self.bn(x), y)
    """), encoding="utf-8")
    (package / "decoder.py").write_text(textwrap.dedent("""\
        from torch import nn
        from . import blocks


        class Decoder(nn.Module):
            def __init__(self, out_ch):
                super().__init__()
                self.block = blocks.ResidualBlock(out_ch, kernel_size=3, padding=1)

            def forward(self, x):
                return self.block(x)
    """), encoding="utf-8")
    verdict = only_verdict(tmp_path, "model", "TCL002")
    assert verdict["status"] == "confirmed", verdict
    assert "ResidualBlock(channels=16, kernel_size=3, padding=1) as decoder.py builds it" in verdict["evidence"], verdict


def test_imports_whose_failure_the_module_does_not_see_get_their_no_ops_first():
    # fresh120's GAN homework: `try: from celluloid import Camera` / `except: pass`, then `Camera(fig)` in the
    # training function: the import's failure is swallowed, and only the later NameError would show it.
    from torchcopylint.verify.experiments import _imported_out_of_sight
    from torchcopylint.verify.noops import is_no_op

    source = textwrap.dedent("""\
        import torch
        try:
            from celluloid import Camera
        except:
            pass
        try:
            import wandb
        except ImportError:
            print("no wandb")
        try:
            import tensorflow as tf
        except ImportError:
            tf = None


        def train():
            from torchvision import datasets
    """)
    assert _imported_out_of_sight(source) == ("celluloid", "wandb", "torchvision")
    assert is_no_op("celluloid")  # animations of a figure: a plot

"""`--verify` where what the code needs lives elsewhere in the project or on the author's machine.

- Data made by a function of a sibling module: a DataLoader over what it returned (unpacked), and
  a maker given a transform that says only the channels, take the sample shape from its code; a
  DataLoader over a dataset of a missing torchvision made at run time takes its transform's size.
- A folder of the author's photographs that is not here, read one by one with a missing OpenCV.
- A tensor the script sized for its real images beside the stand-in ones: their side learnt.
- A class the file defines twice: the flagged (earlier) one is the one built.
- Kinds from use: names whose difference is cloned are tensors; `self.MSE` is a loss.
- A missing package's `__version__`, printed by a course script; the `classes` of a known dataset it
  made in a data module the script imports; MedMNIST's datasets; pyDOE's Latin hypercubes.
- torch 1.x's `torch._six`, a `dtype` argument, an object built by its class's own factory.

One `verify()` over a copy of tests/data/verify/project_data; skipped without torch (the `verify`
extra), and, where a test needs a package to be missing (torchvision, OpenCV), where it is installed.
"""

from __future__ import annotations

import ast
import importlib.util
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import TESTS_DATA, lint_marked_fixtures, subprocess_env

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                reason="--verify needs torch (pip install torchcopylint[verify])")

FIXTURES = TESTS_DATA / "verify" / "project_data"
PATIENT_TIMEOUT = 120  # per diagnosis: a loaded machine must not turn a verdict into "timed out"


def line_of(source: str, text: str) -> int:
    found = [number for number, line in enumerate(source.splitlines(), 1) if text in line]
    assert len(found) == 1, f"{text!r} occurs {len(found)} times"
    return found[0]


@pytest.fixture(scope="module")
def project_verified(tmp_path_factory):
    from torchcopylint.verify.runner import VerifyOptions, verify

    directory = tmp_path_factory.mktemp("verify-project-data")
    for path in sorted(FIXTURES.glob("*.py")):
        shutil.copy(path, directory / path.name)
    sources, diagnostics = lint_marked_fixtures(directory)
    verified = verify(diagnostics, sources, VerifyOptions(device="cpu", timeout=PATIENT_TIMEOUT, jobs=2))
    return {"sources": sources, "directory": directory,
            "by_key": {(Path(d.path).name, d.location.line, d.code): d for d in verified}}


def _verdict(verified, name: str, text: str, code: str):
    source = verified["sources"][str(verified["directory"] / name)]
    diagnostic = verified["by_key"].get((name, line_of(source, text), code))
    assert diagnostic is not None and diagnostic.verdict is not None
    return diagnostic.verdict


# (fixture, the flagged line's text, rule, what the evidence must say, what the case needs missing):
# each is confirmed, and its evidence names what made it runnable.
CONFIRMED = [
    # A DataLoader over what a sibling module's data function returned (unpacked) has its samples.
    ("cgan_split.py", "criterion(D(fake, labels), torch.zeros", "TCL003", ["samples 1x64x64"], ("torchvision",)),
    # A loader over MNIST made at run time (torchvision and the DataLoader imported with `*` from a module of
    # the project) has the side its transform's `Resize` gives (fresh68's WGAN-GP notebook, whose critic's
    # instance norm refused 28-pixel images).
    ("star_resized.py", "loss_critic = -(critic(real).mean()", "TCL003", ["samples 1x64x64"], ("torchvision",)),
    # A dataset class from the first of two modules imported with `*`: pairs of images, as its
    # `__getitem__` returns them (before, the last module was read, and the critic got class labels).
    ("sr_pair_train.py", "d_loss = 1 - critic(high).mean()", "TCL003",
     ["as the class's `__getitem__` returns them", "reached"], ()),
    # A transform that says only the channels leaves the size to the maker's dataset.
    ("cgan_maker.py", "d_loss = D(torch.cat((fake", "TCL003", ["samples 1x28x28"], ("torchvision",)),
    # A missing folder of photographs, read one by one with a missing OpenCV.
    ("listed_photos.py", "d_loss = D(fake)", "TCL003",
     ["the folder Dataset/img_align_celeba is not here: 4 image files of random pixels",
      "(OpenCV is not installed) gave 256x256 random pixels"], ("torchvision", "cv2")),
    # A buffer sized for the real images sets the side of the stand-in ones.
    ("buffered_images.py", "torch.tensor(buffer.copy_(images)", "TCL008", ["3x256x256"], ("torchvision",)),
    # The earlier of two definitions of a class is the one built for its line.
    ("redefined.py", "self.anchors = {n: p.clone()", "TCL005", [], ()),
    # Names whose difference is cloned are made as tensors.
    ("pixel_loss.py", "kept = difference.clone()", "TCL001", ["out = tensor(", "original = tensor("], ()),
    # A loss kept under its usual short name stands in as a loss.
    ("cycle_trainer.py", "fake = self.MSE(", "TCL003", ["self.MSE = mean squared difference"], ()),
    # A course script printing a missing package's version runs on.
    ("version_print.py", "total += loss", "TCL007", [], ("torchvision",)),
    # The classes of a known dataset a data module made without torchvision are that dataset's.
    ("course_model.py", "train_loss += loss", "TCL007", ["samples 1x28x28 in [0, 1), labels in 0..9"],
     ("torchvision",)),
    # torch 1.x's torch._six, and a dtype passed in, let a vendored test run.
    ("layer_norm_check.py", "x2 = x.clone().detach()", "TCL005",
     ["`torch._six.string_classes` (removed in torch 2.0) was read as torch 1.x defined it"], ()),
    # A dataset of the MNIST family has MNIST's side and its transform's channels.
    ("medmnist_mlp.py", "total += loss", "TCL007", ["samples 3x28x28"], ("torchvision",)),
    # An object its class builds from nothing is built so, and a noisy batch is shaped for its critic.
    ("trainer_factory.py", "loss = self.disc(g_data)", "TCL003", ["GANTrainer.makenew()"], ()),
    # A data module's function returning three loaders, sliced to two and unpacked by the epoch: a pair of
    # loaders, whose batches the stand-in network (which returns its loss) reads as 784 values (fresh59's
    # VAE homework; how the data module's loaders stand in: test_a_data_function_returning_loaders_...).
    ("vae_splits.py", "train_elbos.append(elbo)", "TCL007",
     ["model = StandInNet(any -> 8 -> Linear -> sigmoid -> mean, a loss)",
      "data = 2 loaders of 4 batches of (4, 784) float32"], ()),
    # A count read from **kwargs whose default runs no loop is passed.
    ("kwargs_runner.py", "total_loss += loss", "TCL007", ["num_epochs = "], ()),
    # The only caller's top level fails outside what may fail (a series read from a CSV that is not here,
    # then `series[0].shape[1]`): the method runs on stand-ins from use (fresh60's TimeGAN trainer).
    ("series_trainer.py", "total += loss", "TCL007", ["stand-ins: ", "batches = 4 batches of"], ()),
]


@pytest.mark.parametrize("name, text, code, said, missing", CONFIRMED, ids=[case[0] for case in CONFIRMED])
def test_confirmed_with_what_stood_in_said(project_verified, name, text, code, said, missing):
    installed = [package for package in missing if importlib.util.find_spec(package) is not None]
    if installed:
        pytest.skip(f"shows what stands in for a missing {installed[0]}")
    verdict = _verdict(project_verified, name, text, code)
    assert verdict.status == "confirmed", verdict.evidence
    for part in said:
        assert part in verdict.evidence, verdict.evidence


# --- the pieces, in process ------------------------------------------------------------------------


def test_later_definitions_of_the_flagged_one_are_blanked_with_lines_kept():
    from torchcopylint.verify.snippet import without_later_definitions

    source = textwrap.dedent("""\
        class A:
            x = 1


        def helper():
            return 2


        @decorated
        class A:
            x = 3
        """)
    kept = without_later_definitions(source, 2)
    assert kept.count("\n") == source.count("\n")
    assert "x = 3" not in kept and "@decorated" not in kept and "def helper" in kept
    assert [node.name for node in ast.parse(kept).body] == ["A", "helper"]
    # A line of the last definition, or of a name defined once: the file as it is.
    assert without_later_definitions(source, 11) == source
    assert without_later_definitions(source, 6) == source


def test_arithmetic_operands_of_a_tensor_are_tensors_but_numbers_that_say_so_stay_numbers():
    from torchcopylint.verify import standins

    function = ast.parse(textwrap.dedent("""\
        def f(out, original, scale, steps, lr):
            difference = (out - original) * scale
            shifted = difference + lr
            for _ in range(steps):
                pass
            if scale > 0.5:
                pass
            return shifted.clone()
        """)).body[0]
    found = standins.uses(function)
    kinds = {name: standins.kind_of(name, found[name]) for name in ("out", "original", "scale", "steps", "lr")}
    assert kinds == {"out": "tensor", "original": "tensor", "scale": "float", "steps": "count", "lr": "float"}


def test_the_value_an_f_string_path_starts_with_is_a_path():
    # A trainer's `model_path = f"{save_path}_{self.base_path}"`, then `os.mkdir(model_path)` (fresh88:
    # "needs `save_path`, and nothing in how the code uses it says what it is"); a later value of the
    # f-string (`{epoch}`) may be a number.
    from torchcopylint.verify import standins

    function = ast.parse(textwrap.dedent("""\
        def train(self, loader, save_path, out_dir, epoch):
            model_path = f"{save_path}_{self.base_path}"
            os.mkdir(model_path)
            torch.save(self.model.state_dict(), f"{out_dir}/model_{epoch}.pt")
            for step in range(epoch):
                pass
        """)).body[0]
    found = standins.uses(function)
    kinds = {name: standins.kind_of(name, found[name]) for name in ("save_path", "out_dir", "epoch")}
    assert kinds["save_path"] == "path" and kinds["out_dir"] == "path" and kinds["epoch"] != "path", kinds


def test_a_tensor_converted_by_type_and_the_type_it_is_given():
    # Old course code (fresh62's WGAN-GP helpers): `real = data.type(data_type)`, where the caller passes
    # `torch.cuda.FloatTensor`: `data` is a tensor, `data_type` a type to convert to (before: nothing
    # said what either was). A device's `.type` is read, never called: no tensor.
    from torchcopylint.verify import standins

    function = ast.parse(textwrap.dedent("""\
        def train_critic(D, data, data_type, device):
            real = data.type(data_type)
            if device.type == "cuda":
                real = real.cuda()
            return D(real).mean()
        """)).body[0]
    found = standins.uses(function)
    kinds = {name: standins.kind_of(name, found[name]) for name in ("data", "data_type", "device")}
    assert kinds["data"] == "tensor" and kinds["data_type"] == "dtype" and kinds["device"] != "tensor", kinds


def test_a_value_moved_to_the_device_is_a_tensor_when_what_it_becomes_is_used_as_one():
    # A DualGAN's discriminator step (fresh62): `x = X.to(device)`, then `torch.cat([y, x], dim=1)`:
    # `X` is a batch (before: "needs `X`, and nothing in how the code uses it says what it is"). A
    # network moved the same way and called is not.
    from torchcopylint.verify import standins

    function = ast.parse(textwrap.dedent("""\
        def d_step(D, G, X, Y, net, device):
            x = X.to(device)
            y = Y.to(device)
            model = net.to(device)
            pair = torch.cat([y, x], dim=1)
            return D(pair).mean() + model(y).mean()
        """)).body[0]
    found = standins.uses(function)
    kinds = {name: standins.kind_of(name, found[name]) for name in ("X", "Y", "net")}
    assert kinds["X"] == kinds["Y"] == "tensor" and kinds["net"] != "tensor", kinds


def test_a_constructor_of_keyword_arguments_is_given_the_keys_it_reads(tmp_path, monkeypatch):
    # A Lightning WGAN's networks (fresh62): `Generator(**kwargs)` reads `kwargs["latent_dim"]`; the
    # call with no arguments fails (KeyError), the one with the keys builds, a rate by its name a fraction.
    import importlib

    from torchcopylint.verify.configurations import configurations
    from torchcopylint.verify.inputs import Factories

    (tmp_path / "keyword_generator.py").write_text(textwrap.dedent("""\
        from torch import nn


        class Generator(nn.Module):
            def __init__(self, *args, **kwargs):
                super().__init__()
                self.fc = nn.Linear(kwargs["latent_dim"], kwargs["channels"] * 4)
                self.lr = kwargs["g_lr"]
                self.scale = kwargs.get("scale", 2)
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    generator = importlib.import_module("keyword_generator").Generator
    first = next(configurations(generator, "", str(tmp_path / "keyword_generator.py"), Factories({})))
    assert first.kwargs == {"latent_dim": 16, "channels": 16, "g_lr": 0.1}, first


def test_a_constructor_given_a_namespace_of_options_is_given_the_options_it_reads(tmp_path, monkeypatch):
    # A deblurring GAN's networks (fresh88): `Generator(args)` reads `args.input_nc` and `args.ngf` for its
    # layers' widths, a rate by its name and a flag it only tests; before, `args` was a width (16), which
    # has no `.ngf`, and stand-in networks took every layer's place.
    import importlib

    from torchcopylint.verify.configurations import configurations
    from torchcopylint.verify.inputs import Factories

    (tmp_path / "options_generator.py").write_text(textwrap.dedent("""\
        from torch import nn


        class Generator(nn.Module):
            def __init__(self, args):
                super().__init__()
                self.ngf = args.ngf
                self.body = nn.Conv2d(args.input_nc, self.ngf * 2, 3)
                self.drop = nn.Dropout(args.drop_rate)
                if args.use_tanh:
                    self.out = nn.Tanh()
        """))
    monkeypatch.syspath_prepend(str(tmp_path))
    generator = importlib.import_module("options_generator").Generator
    first = next(configurations(generator, "", str(tmp_path / "options_generator.py"), Factories({})))
    assert first.description == "Generator(<options ngf=16, input_nc=16, drop_rate=0.1, use_tanh=False>)", first
    built = first.build(generator)
    assert built.body.in_channels == 16 and built.body.out_channels == 32 and not hasattr(built, "out")


def test_a_batch_unpacked_as_a_pair_is_a_batch_whatever_its_annotation_says():
    # `def training_step(self, batch: torch.Tensor, batch_idx)`, then `x, _ = batch` (fresh62): a tensor
    # stand-in unpacks into its rows; the pair a loader gives is what the code takes apart.
    import torch

    from torchcopylint.verify import standins

    function = ast.parse(textwrap.dedent("""\
        def training_step(self, batch, batch_idx):
            x, _ = batch
            return self.D(x).mean()
        """)).body[0]
    found = standins.uses(function)
    assert standins.kind_of("batch", found["batch"], torch.Tensor) == "loader batch"


def test_another_method_s_parameter_of_the_same_name_counts_only_when_it_is_handed_on():
    # `self.compute_gp(x, fake)` gives `compute_gp(self, batch, fake)` another `batch` than the step's;
    # `self.prepare(images, labels)` hands on the step's own `labels`.
    from torchcopylint.verify import standins

    tree = ast.parse(textwrap.dedent("""\
        class Step:
            def training_step(self, batch, labels):
                x, _ = batch
                return self.compute_gp(x, x * 2) + self.prepare(x, labels)

            def compute_gp(self, batch, fake):
                return (batch.size(0) * fake).sum()

            def prepare(self, images, labels):
                return labels.clone().detach()
        """))
    found = standins.uses(standins.method_closure(tree, "Step", "training_step"))
    assert "size" not in found["batch"].methods and found["batch"].assigned_unpacked == 2
    assert "clone" in found["labels"].methods


@pytest.mark.parametrize("name, loss", [("self.MSE", True), ("bce", True), ("self.criterion", True),
                                        ("kld", True), ("self.l1", False), ("self.fc", False)])
def test_usual_short_names_of_losses_are_losses_and_layer_names_are_not(name, loss):
    from torchcopylint.verify import standins

    assert (standins.kind_of(name, standins.Use(called=True)) == "loss") is loss


def test_opencv_stand_ins_read_convert_and_resize_in_opencv_s_layout():
    from torchcopylint.verify import noops

    module = noops.NoOpModule("cv2")
    image = module.imread("photos/a.jpg")
    assert image.shape == (256, 256, 3) and str(image.dtype) == "uint8"
    assert module.imread("photos/a.jpg", 0).shape == (256, 256)
    assert module.cvtColor(image, module.COLOR_BGR2GRAY).shape == (256, 256)
    assert module.cvtColor(image, module.COLOR_BGR2RGB) is image
    assert module.resize(image, (32, 16)).shape == (16, 32, 3)
    assert module.resize(image, (0, 0), fx=0.5, fy=0.25).shape == (64, 128, 3)
    assert module.__version__ == noops.STAND_IN_VERSION


def test_a_latin_hypercube_of_a_missing_pydoe_has_one_point_per_stratum_of_each_dimension():
    from torchcopylint.verify import noops

    points = noops.NoOpModule("pyDOE").lhs(2, 10)
    assert points.shape == (10, 2) and ((points >= 0) & (points < 1)).all()
    for dimension in range(2):
        assert sorted((points[:, dimension] * 10).astype(int).tolist()) == list(range(10))


def test_dive_into_deep_learning_s_downloads_and_plots_do_nothing_and_its_training_loops_stay_absent():
    from torchcopylint.verify import noops
    from torchcopylint.verify.absent import AbsentName

    for module in (noops.NoOpModule("d2l.torch"), noops.NoOpModule("d2l")):
        assert isinstance(module.DATA_URL, noops.NoOp) and isinstance(module.Animator, noops.NoOp)
        assert isinstance(module.train_ch3, AbsentName) and isinstance(module.Accumulator, AbsentName)


def test_old_torch_and_numpy_modules_import_as_they_did(tmp_path: Path):
    pytest.importorskip("numpy")
    code = textwrap.dedent("""\
        from torchcopylint.verify import legacy, script
        legacy.install_old_apis()
        from torch._six import string_classes, container_abcs, inf
        from numpy.lib.polynomial import roots, polyfit
        from numpy.lib.type_check import imag
        from numpy.lib.utils import source  # imported by an editor, unasked; gone from NumPy 2
        print(string_classes, container_abcs.Mapping.__name__, inf, list(roots([1, -3, 2])))
        print("imaginary part:", imag(1 + 2j))
        try:
            source(roots)
        except RuntimeError as error:
            print(error)
        import torch

        class Scaled(torch.autograd.Function):  # before torch 1.3: an instance, its own forward
            def __init__(self, scale):
                super().__init__()
                self.scale = scale

            def forward(self, x):
                self.save_for_backward(x)
                return x * x * self.scale

            def backward(self, grad):
                x, = self.saved_tensors
                return grad * 2 * x * self.scale

        x = torch.ones(3, requires_grad=True)
        Scaled(3.0)(x).sum().backward()
        print("legacy function gradient:", x.grad.tolist())
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                            env=subprocess_env({}), timeout=120)
    assert result.returncode == 0, result.stderr
    import numpy

    assert "imaginary part: 2.0" in result.stdout
    if numpy.__version__ >= "2":
        assert "`numpy.lib.utils.source` is gone from NumPy" in result.stdout
    assert "(<class 'str'>, <class 'bytes'>) Mapping inf [np.float64(2.0), np.float64(1.0)]" in result.stdout or \
        "(<class 'str'>, <class 'bytes'>) Mapping inf [2.0, 1.0]" in result.stdout, result.stdout
    assert "legacy function gradient: [6.0, 6.0, 6.0]" in result.stdout, result.stdout


def test_factories_are_static_or_class_methods_building_the_class_from_nothing():
    from torchcopylint.verify import standins

    tree = ast.parse(textwrap.dedent("""\
        class Trainer:
            @staticmethod
            def makenew():
                return Trainer(1, 2)

            @classmethod
            def default(cls, width=4):
                return cls(width, 2)

            @staticmethod
            def load(path):
                return Trainer(*open(path))

            @staticmethod
            def helper():
                return 3

            def clone(self):
                return Trainer(1, 2)
        """))
    assert standins.factories_of(tree, "Trainer") == ["makenew", "default"]


def test_the_mnist_family_is_known_by_its_name():
    from torchcopylint.verify.datasites import known_dataset

    assert [known_dataset(name) for name in ("CIFAR10", "ChestMNIST", "PathMNIST", "MNIST_loader", "Faces")] == \
        ["CIFAR10", "MNIST", "MNIST", None, None]


def test_a_known_dataset_made_by_a_missing_torchvision_has_its_classes_and_nothing_else_does():
    from torchcopylint.verify import noops

    datasets = noops.NoOpModule("torchvision.datasets")
    assert datasets.FashionMNIST("data").classes[:2] == ["T-shirt/top", "Trouser"]
    assert len(datasets.CIFAR100("data").classes) == 100
    assert isinstance(datasets.ImageFolder, noops.NoOp) and len(datasets.FolderOfMine("data").classes) == 0


def test_a_missing_folder_of_the_project_lists_stand_in_images_and_nothing_else_changes(tmp_path: Path):
    project = tmp_path / "project"
    (project / "present").mkdir(parents=True)
    (project / "present" / "real.png").write_bytes(b"png")
    (project / "train.py").write_text("print('hi')\n", encoding="utf-8")
    code = textwrap.dedent(f"""\
        import glob, os
        from torchcopylint.verify import sandbox
        sandbox.install({str(project)!r}, {str(project / "train.py")!r})
        os.chdir({str(project)!r})
        print("listed:", os.listdir("data/celeba"))
        print("globbed:", glob.glob("data/train/*.png"))
        print("checkpoints:", glob.glob("runs/*.pth"))
        print("present:", os.listdir("present"), glob.glob("present/*.png"))
        try:
            os.listdir({str(tmp_path / "elsewhere")!r})
        except FileNotFoundError:
            print("outside the project: not found")
        with open("data/celeba/" + os.listdir("data/celeba")[0], "rb") as handle:
            print("opened:", handle.read(4))
        print("beside:", os.listdir("../data/anime_faces")[:1])  # the author's data next to the checkout
        # Run from another folder, the script's relative paths are its own folder's.
        os.chdir({str(tmp_path)!r})
        print("from elsewhere:", os.listdir("data/celeba")[:1], open("data/celeba/stand-in-0.jpg", "rb").read(4))
        print("events:", sandbox.events())
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path,
                            env=subprocess_env({}), timeout=120)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "listed: ['stand-in-0.jpg', 'stand-in-1.jpg', 'stand-in-2.jpg', 'stand-in-3.jpg']" in out, out
    assert "globbed: ['data/train/stand-in-0.png'" in out and "'data/train/stand-in-3.png']" in out, out
    assert "checkpoints: []" in out, out  # not images: a listing of checkpoints stays empty
    assert "present: ['real.png'] ['present/real.png']" in out, out
    assert "outside the project: not found" in out, out
    assert "opened: b'\\x89PNG'" in out, out
    assert "beside: ['stand-in-0.jpg']" in out, out
    assert "from elsewhere: ['stand-in-0.jpg'] b'\\x89PNG'" in out, out
    assert "the folder data/celeba is not here: 4 image files of random pixels were listed in it" in out, out


def test_a_clone_seen_without_grad_is_not_refuted_while_the_callers_in_the_file_could_not_run(monkeypatch):
    """fresh46's SyncBatchNorm test: every top-level call of `compare` stopped at a CUDA-only profiler
    call, one of them passing a network's output; a value seen another way refutes nothing they pass."""
    import torch

    from torchcopylint.verify import experiments
    from torchcopylint.verify.inputs import Factories
    from torchcopylint.verify.reach import CannotRun
    from torchcopylint.verify.snippet import Caller

    source = textwrap.dedent("""\
        def compare(first, second):
            return second.clone().detach()
        """)
    job = experiments.Job("compare.py", source, None, "TCL005", 2, {"source": "second"}, "cpu", Factories({}))
    caller = Caller(4, "", True)
    monkeypatch.setattr(experiments, "_sightings_through_callers",
                        lambda job, expression: ([caller], [], ["the top-level call at line 4: the code failed"]))
    monkeypatch.setattr(experiments, "_value_at_line", lambda job, expression, **keywords: experiments.Sighting(
        torch.zeros(3), True, None))
    with pytest.raises(CannotRun, match="the callers in the file could not be run"):
        experiments.clone_detach_order(job)


def test_a_clone_seen_without_grad_is_not_refuted_while_another_caller_s_value_was_made_up(monkeypatch):
    import torch

    from torchcopylint.verify import experiments, standins
    from torchcopylint.verify.inputs import Factories
    from torchcopylint.verify.reach import CannotRun
    from torchcopylint.verify.snippet import Caller

    source = textwrap.dedent("""\
        def compare(first, second):
            return second.clone().detach()
        """)
    job = experiments.Job("compare.py", source, None, "TCL005", 2, {"source": "second"}, "cpu", Factories({}))
    made_up = torch.ones(3, requires_grad=True)
    standins.mark_stand_in(made_up, "`out_sbn` (what a missing package's layer gave)")
    sightings = [experiments.Sighting(torch.zeros(3), True, None, through=Caller(4, "", True)),
                 experiments.Sighting(made_up * 2, True, None, through=Caller(5, "", True))]
    monkeypatch.setattr(experiments, "_sightings_through_callers",
                        lambda job, expression: ([caller.through for caller in sightings], sightings, []))
    with pytest.raises(CannotRun, match="passes was made up"):
        experiments.clone_detach_order(job)


def test_a_dataset_class_returning_more_than_an_image_and_a_label_gets_that_many_items():
    import ast

    from torchcopylint.verify.samples import IMAGE, LABEL, PATH, layout_of_class

    def layout(returned: str):
        source = f"class Data(Dataset):\n    def __getitem__(self, index):\n        return {returned}\n"
        return layout_of_class(ast.parse(source).body[0])

    # Office-31's features, class and domain (`X, Y, S`): the item nothing names is a per-sample number.
    assert layout("X, Y, S").kinds == (IMAGE, LABEL, LABEL)
    assert layout("image, path").kinds == (IMAGE, PATH)
    assert layout("image, label") is None  # the usual pair: the default batches fit
    # A transform bound in the method (`trans = transforms.Compose(...)`) makes images, whatever their names.
    composed = ("class Outpaint(Dataset):\n    def __getitem__(self, index):\n"
                "        trans = transforms.Compose([transforms.ToTensor()])\n"
                "        truth, masked = self.masking(index)\n        return trans(truth), trans(masked)\n")
    assert layout_of_class(ast.parse(composed).body[0]).kinds == (IMAGE, IMAGE)
    assert layout("weird, odd") is None  # nothing says an image is there
    # fresh75's speech dataset: a dict built key by key in a helper the method returns the result of.
    helper = ("class Speech(Dataset):\n    def __getitem__(self, index):\n        features = self._read(index)\n"
              "        return features\n\n    def _read(self, index):\n        features = {}\n"
              "        features['feature'] = self.data['feature'][index]\n"
              "        features['label'] = self.data['label'][index]\n        return features\n")
    read = layout_of_class(ast.parse(helper).body[0])
    assert read is not None and read.keys == ("feature", "label") and read.kinds == (IMAGE, LABEL), read
    # A dict literal bound to a name, then returned (fresh87's CelebA WGAN-GP): its keys, not the name's word.
    bound = ("class Faces(Dataset):\n    def __getitem__(self, idx):\n"
             "        image = PIL.Image.open(os.path.join(self.root_dir, self.names[idx]))\n"
             "        sample = {'image': image, 'label': self.attr[self.names[idx]]}\n        return sample\n")
    faces = layout_of_class(ast.parse(bound).body[0])
    assert faces is not None and faces.keys == ("image", "label") and faces.kinds == (IMAGE, LABEL), faces
    # Bound in each branch of `if self.test:` (fresh101's cartoon faces): the dict of every key either holds.
    branches = ("class Cartoons(Dataset):\n    def __getitem__(self, idx):\n        if self.test:\n"
                "            sample = {'img_id': idx, 'label': self.labels[idx]}\n        else:\n"
                "            sample = {'img_id': idx, 'image': Image.open(self.paths[idx]), 'label': self.labels[idx]}\n"
                "        return sample\n")
    cartoons = layout_of_class(ast.parse(branches).body[0])
    assert cartoons is not None and cartoons.keys == ("img_id", "image", "label"), cartoons
    unlike = branches.replace("{'img_id': idx, 'label'", "{'name': idx, 'label'")
    assert layout_of_class(ast.parse(unlike).body[0]) is None  # neither holds the other's keys: not said
    # What a call given a path reads is an image; `self.data[idx]` is the sample itself.
    assert layout("self.read(self.files[index]), self.data[index]").kinds == (IMAGE, IMAGE)
    assert layout("torch.Tensor(self.data[idx])").single
    # A partition of a dataset it is given (bbclr20's distributed MNIST, fresh96): an item of that dataset,
    # whatever it holds; the loops over the data say (`for data, target in train_set`).
    partition = ("class Partition(object):\n    def __init__(self, data, index):\n        self.data = data\n"
                 "        self.index = index\n    def __getitem__(self, index):\n"
                 "        return self.data[self.index[index]]\n")
    assert layout_of_class(ast.parse(partition).body[0]) is None
    read = partition.replace("self.data = data", "self.data = np.load(data)")
    assert layout_of_class(ast.parse(read).body[0]).single  # the file's own samples: images alone


def test_a_dataset_of_clips_stacks_that_many_frames_in_each_image_item():
    import ast

    import torch

    from torchcopylint.verify.batches import DataPlan
    from torchcopylint.verify.samples import FRAMES, IMAGE, LABEL, layout_of_class

    # A video-prediction course's dataset (fresh85, two repositories): frames and their pose maps, each a
    # list of transformed images stacked; the label maps are images too, whatever their name says.
    source = ("class Dance(Dataset):\n"
              "    def __init__(self, root, transform, video_len=7):\n"
              "        self.transform = transform\n        self.video_len = video_len\n"
              "    def __getitem__(self, index):\n"
              "        imgs = []\n        labels = []\n"
              "        for i in range(self.video_len):\n"
              "            imgs.append(self.transform(imgloader(self.paths[i])))\n"
              "            labels.append(self.transform(imgloader(self.label_paths[i])))\n"
              "        return stack(imgs), stack(labels)\n")
    layout = layout_of_class(ast.parse(source).body[0])
    assert layout is not None and layout.kinds == (IMAGE, IMAGE) and layout.frames == 7, layout
    assert "each image a clip of 7 frames" in layout.describe()
    unknown = layout_of_class(ast.parse(source.replace("video_len=7", "video_len")).body[0])
    assert unknown is not None and unknown.frames == FRAMES
    # A clip and its class (action recognition): the clip only.
    classified = layout_of_class(ast.parse(source.replace("stack(labels)", "int(self.classes[index])")).body[0])
    assert classified is not None and classified.kinds == (IMAGE, LABEL) and classified.frames == 7, classified
    # One image and its class: no clip, the usual pair.
    single = source.replace("return stack(imgs), stack(labels)", "return self.transform(x), int(y)")
    assert layout_of_class(ast.parse(single).body[0]) is None
    batch = DataPlan([]).laid_out(layout, torch.rand(2, 3, 8, 8), torch.zeros(2), [])
    assert [tuple(item.shape) for item in batch] == [(2, 7, 3, 8, 8), (2, 7, 3, 8, 8)]


def test_a_project_dataset_made_for_an_image_size_passed_by_name_gets_images_of_that_size():
    from torchcopylint.verify.datasites import rewrite_data

    # fresh86's course GAN: `SyntheticDataset(opt.img_size)`, whose transforms sit in another module.
    source = ("import torch\nimport dataset\nloader = torch.utils.data.DataLoader(dataset.SyntheticDataset(opt.img_size),"
              " batch_size=8)\n")
    [site] = rewrite_data(source).sites
    assert site.size_text == "opt.img_size", site
    keyword = source.replace("SyntheticDataset(opt.img_size)", "Faces(root, image_size=96)")
    assert rewrite_data(keyword).sites[0].size_text == "96"
    # A size nothing names stays unsaid.
    assert rewrite_data(source.replace("opt.img_size", "opt.depth")).sites[0].size_text == ""


def test_a_data_function_returning_loaders_gives_that_many_each_of_what_its_dataset_class_returns(monkeypatch):
    # `data = binary_digits()[:2]`: the data module's function returns three loaders over a class whose
    # `__getitem__` returns an image alone; stood in before as one loader of (image, label) pairs.
    from torchcopylint.verify.datasites import rewrite_data

    monkeypatch.syspath_prepend(str(FIXTURES))
    source = "from split_loaders import binary_digits\ndata = binary_digits()[:2]\n"
    [site] = rewrite_data(source).sites
    assert (site.kind, site.unpack, site.dataset_import) == ("data", 3, "split_loaders.binary_digits")
    from torchcopylint.verify.batches import DataPlan

    rewritten = rewrite_data(source + "first = next(iter(data[0]))\n")
    plan = DataPlan(rewritten.sites)
    plan.namespace = plan.helpers()
    exec(rewritten.text.replace("from split_loaders import binary_digits\n", ""), plan.namespace)  # noqa: S102
    assert len(plan.namespace["data"]) == 2 and plan.namespace["first"].dim() == 4  # images alone, no labels


def test_an_iterable_whose_items_are_called_is_a_list_of_functions():
    # A port-Hamiltonian simulator's input signals (fresh90): `[torch.tensor(sig(t)) for sig in signal]`;
    # a stand-in tuple of tensors failed with "'tuple' object is not callable". A list of loaders, whose
    # items are iterated, stays one; batches whose items are tensors stay batches.
    from torchcopylint.verify import standins

    function = ast.parse(textwrap.dedent("""\
        def simulate(model, signal, loaders, batches, t):
            u = torch.stack([torch.tensor(sig(t)) for sig in signal]).float()
            for loader in loaders:
                for x, y in loader:
                    model(x)
            for batch in batches:
                batch.clone()
            return u
        """)).body[0]
    found = standins.uses(function)
    kinds = {name: standins.kind_of(name, found[name]) for name in ("signal", "loaders", "batches")}
    assert kinds == {"signal": "functions", "loaders": "loaders", "batches": "loader"}, kinds
    made, described = standins.settings_for(function, ["signal"], {}, "cpu")[0].make()
    assert [function(0.0) for function in made["signal"]] == [0.5, 0.5] and "signal = 2 functions" in described


def test_a_none_default_the_code_tests_is_also_tried_as_a_number():
    # A simulator's `a=None` bound of input noise (fresh90): the lines under `if a is not None:` ran in no
    # configuration. A number is tried too; a None default never tested, or used as a network, is not.
    from torchcopylint.verify import standins

    source = textwrap.dedent("""\
        def forecast(model, x, a=None, clamp=None, encoder=None):
            if a is not None:
                x = x + noise(x, a)
            if encoder is not None:
                x = encoder(x)
            return model(x, clamp)
        """)
    namespace: dict = {}
    exec(source, namespace)  # noqa: S102 - the test's own source
    others = standins.other_defaults(namespace["forecast"], ast.parse(source).body[0])
    assert others == [("a", 0.1)], others

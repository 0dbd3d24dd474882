"""No-op stand-ins for packages a script uses only for data, plots or logging, when they are not installed.

Runs in the verification child process. A claim about a training step does not
depend on `plt.plot(losses)`, `writer.add_scalar(...)`, `wandb.log(...)` or a
`tqdm` progress bar; when such a package is missing, `import` yields a stand-in
whose every use does nothing (a call returns another no-op, iteration yields
two no-ops as `fig, ax = plt.subplots()` unpacks, a truth test is False), and
`tqdm(x)` / `trange(n)` give back `x` / `range(n)`, and `appdirs.user_data_dir(name)` a
folder of the temporary folder. Besides the packages listed, a package or module named for
logging (`tensorboard_logger`, the `logger` module of a missing `k_util`) is one: a logger
records what it is given and gives nothing back that a step computes with; so is a module named for
seeding (`seed_set`), which only sets the random state. Datasets themselves were
stood in by verify/datasites.py before they could run; configuration packages
(configargparse, omegaconf, easydict, simple_parsing) get plain equivalents that hold the
code's own settings (verify/configs.py). Any other missing
package keeps verify/absent.py's stand-in, whose use makes the verdict
`unverified`, naming it.
"""

from __future__ import annotations

import ast
import importlib
import importlib.abc
import importlib.machinery
import inspect
import os
import re
import sys
import types

from torchcopylint.verify import absent, amp, backbones, configs, environments, lightning, transforms, zoos
from torchcopylint.verify.absent import AbsentModule, AbsentName
from torchcopylint.verify.datasites import PROGRESS_BARS
from torchcopylint.verify.importing import WRAPPERS

PACKAGES = frozenset({
    "torchvision", "torchtext", "torchaudio", "matplotlib", "seaborn", "plotly", "tensorboard", "tensorboardX",
    "tqdm", "wandb", "visdom", "mlflow", "comet_ml", "neptune", "PIL", "cv2", "imageio", "skimage", "IPython",
    "tensorflow", "termcolor", "colorama", "progressbar", "rich", "torchinfo", "torchsummary", "torchmetrics",
    # The summary printers' forks (`torchsummaryM.summary(G, (1, 100))`, `torchsummaryX.summary(model, x)`).
    "torchsummaryM", "torchsummaryX", "torch_summary", "pytorch_model_summary",
    "apex", "colorlog", "coloredlogs", "loguru", "appdirs", "platformdirs", "timm", "pkg_resources", "pytorchcv",
    "gym", "gymnasium",
    # A training framework: its LightningModule stands in (verify/lightning.py), its Trainer does nothing.
    "pytorch_lightning", "lightning",
    # Progress bars of other makers (`qqdm(loader)`, a course's; fastprogress' `progress_bar(loader)`).
    "qqdm", "alive_progress", "fastprogress", "barbar",
    # Drawings of a graph (`torchviz.make_dot(loss)`), and a video reader's settings (`decord.bridge.set_bridge`).
    "torchviz", "graphviz", "decord",
    # Printers of tables and summaries (`prettytable.PrettyTable(["Modules", "Parameters"])`, `tabulate(rows)`).
    "prettytable", "tabulate", "texttable",
    # Plotting add-ons (`mlxtend.plotting.plot_confusion_matrix(cm)`, a course's evaluation cell), and
    # animations of a figure's frames (`camera = celluloid.Camera(fig)`, `camera.snap()`).
    "mlxtend", "scikitplot", "yellowbrick", "celluloid",
    # Experiment trackers, which record what a run logs (`test_tube.Experiment(...).log(...)`).
    "test_tube", "sacred", "clearml", "dvclive", "aim", "swanlab", "tensorwatch",
    # Azure ML's run context and its registered datasets (`Run.get_context().log("loss", v)`).
    "azureml",
    # Downloaders of data and weights (`gdown.download(url, "celeba.zip")`, LPIPS's `requests.get(url,
    # stream=True)` of its checkpoint): verification never touches the network.
    "gdown", "wget", "kaggle", "opendatasets", "requests",
    # Image augmentations (`A.Compose([A.Resize(256, 256), ToTensorV2()])`): what they would transform is
    # the data, which stand-in batches replace (verify/datasites.py).
    "albumentations",
    # Unpackers of what was downloaded (`zipfile38.ZipFile(path).extractall(root)`), and the natural
    # sort of its file names: the files they would give are stood in by verify/datasites.py.
    "zipfile38", "zipfile36", "py7zr", "rarfile", "patoolib", "pyunpack", "natsort",
    # Only its metrics, which score predictions for a report (`classification_report(y, pred)`); its data
    # makers, splits and scalers stand in whether it is installed or not (verify/datasites.py).
    "sklearn",
    # Designs of experiments, which draw a physics-informed network's collocation points (`lhs(2, n)`):
    # points of the unit square stand in (`LATIN_HYPERCUBES`).
    "pyDOE", "pyDOE2", "pyDOE3",
    # Configuration packages: what they hold is the code's own settings (verify/configs.py).
    *configs.PACKAGES,
    # Dive into Deep Learning's helpers: only its downloads and plots (NO_OP_NAMES).
    "d2l",
    # A JIT compiler: what it compiles runs as Python (NUMBA_COMPILERS), computing the same values.
    "numba",
    # Readers of recordings (EEG/MEG `mne.io.read_raw_edf(path)`, ECG `wfdb.rdrecord`, audio `librosa.load`,
    # `soundfile.read`, medical images `nibabel.load`, `pydicom.dcmread`, `SimpleITK.ReadImage`), and their
    # log levels: what they would read is the data, which stand-in batches replace (verify/datasites.py).
    "mne", "wfdb", "pyedflib", "librosa", "soundfile", "nibabel", "pydicom", "SimpleITK",
    # HDF5 files, which PyTorch projects read datasets from (`h5py.File(path, "r")["images"]`).
    "h5py",
    # A notebook's widgets (`ipywidgets.ToggleButtons(...)`, a cell that picks what to draw): display only.
    "ipywidgets",
    # Windows an environment renders its frames in (`pygame.font.init()`, `pygame.display.set_mode(...)`).
    "pygame",
    # Writers of results for a 3-D viewer (`pyevtk.hl.pointsToVTK("pred", x, y, z, data={...})`, a physics-
    # informed network's ParaView output): output only, as plots are.
    "pyevtk", "evtk",
    # Locks between processes (`@lockutils.synchronized("name", external=True)`, `with FileLock(path):`):
    # a verification runs one process, which takes every lock at once.
    "oslo_concurrency", "filelock", "portalocker", "fasteners",
    # Settings read from a `.env` file (`dotenv.load_dotenv()`): where the data lies and the trackers' keys,
    # which verification never uses.
    "dotenv",
    # A test framework, for a project's test module: its decorators (`@pytest.fixture`,
    # `@pytest.mark.parametrize(...)`) leave each function as written (TEST_DECORATORS); the rest is absent.
    "pytest",
    # Model zoos: their networks and losses stand in (verify/zoos.py), small and of random weights.
    *zoos.PACKAGES,
})
# Packages of which only some parts are data, plots or logging: their networks (`torchvision.models`)
# are not, and a use of those keeps absent.py's meaning (the verdict names the missing package).
NO_OP_PARTS = {
    "torchvision": frozenset({"datasets", "transforms", "utils", "io"}),
    "torchtext": frozenset({"datasets", "data", "vocab", "transforms"}),
    "torchaudio": frozenset({"datasets", "transforms", "io"}),
    # Its logging too (`tf.compat.v1.logging.set_verbosity(tf.compat.v1.logging.ERROR)`, silencing a PyTorch
    # project's TensorBoard): `compat.v1`/`compat.v2` are read through. And `is_tensor`, which matplotlib
    # asks of every value it plots once `tensorflow` is imported (a no-op's answer is false: nothing here
    # is a TensorFlow tensor).
    "tensorflow": frozenset({"examples", "summary", "keras", "logging", "get_logger", "autograph", "is_tensor"}),
    "apex": frozenset(),  # its `amp` runs in full precision (verify/amp.py); the rest is absent
    "pytorchcv": frozenset({"model_provider"}),  # its maker of classifiers stands in (CLASSIFIER_MAKERS)
    "timm": frozenset(),  # `timm.create_model` stands in (verify/backbones.py); the rest is absent
    # Their networks and losses stand in (verify/zoos.py); the rest is absent.
    **dict.fromkeys(zoos.PACKAGES, frozenset()),
    "sklearn": frozenset({"metrics"}),
    "mlxtend": frozenset({"plotting"}),  # its classifiers and data are not plots
    "numba": frozenset(),  # its compilers leave functions as Python (NUMBA_COMPILERS); the rest is absent
    "pytest": frozenset(),  # its decorators leave functions as written (TEST_DECORATORS); the rest is absent
    **dict.fromkeys(configs.ONLY_THESE, frozenset()),  # verify/configs.py's stand-ins; the rest is absent
}
# `@jit(nopython=True)`, `@njit`, `@cuda.jit` (a soft-DTW loss's kernels): numba is not installed, the
# function runs as the Python it is written in.
NUMBA_COMPILERS = frozenset({"numba.jit", "numba.njit", "numba.cuda.jit"})
TEST_DECORATORS = frozenset({"pytest.fixture", "pytest.yield_fixture"})
# Packages of which only some names are data, plots or logging, wherever they sit (`from d2l import torch
# as d2l`, then `d2l.DATA_URL`): its training loops and metrics are not, and keep absent.py's meaning.
NO_OP_NAMES = {
    "d2l": frozenset({"DATA_HUB", "DATA_URL", "download", "download_extract", "download_all", "Animator", "plot",
                      "set_figsize", "set_axes", "use_svg_display", "show_images", "Timer"}),
}
D2L_FRAMEWORKS = frozenset({"torch", "mxnet", "tensorflow", "jax"})  # `from d2l import torch as d2l`
MODELS = "torchvision.models"
TIMM_CONSTRUCTORS = frozenset({"timm.create_model", "timm.models.create_model"})
# Other zoos' makers of classifiers by name (`ptcv_get_model("xception", pretrained=True)` of a Kaggle kernel).
CLASSIFIER_MAKERS = frozenset({"pytorchcv.model_provider.get_model"})
# Callables that hand back what they wrap: a progress bar over an iterable (by its last name, or whole where
# the last name says nothing: barbar's `Bar(loader)`).
PASS_THROUGH = PROGRESS_BARS
PASS_THROUGH_QUALIFIED = frozenset({"barbar.Bar"})
# tqdm.contrib's bars over what Python's own functions make of their iterables.
ENUMERATING = {"tenumerate": enumerate, "tzip": zip, "tmap": map}
# Packages that name a program's folders (`appdirs.user_data_dir("auto_LiRPA")`, for a cache): a folder
# of the temporary folder, which the sandbox lets a library write to.
FOLDER_NAMERS = frozenset({"appdirs", "platformdirs"})


# A name part that says "logging": `log`, `logs`, `logger(s)`, `logging`, alone or after an underscore.
LOGGING_NAME = re.compile(r"(^|_)(log|logs|loggers?|logging)$")


def is_logging(name: str) -> bool:
    return any(LOGGING_NAME.search(part) for part in name.split("."))


# A module named for seeding (`from seed_set import set_seed`, a helper the repository left out): it sets
# the random state, which changes what a run draws, never what the code computes with what it draws.
SEEDING_NAME = re.compile(r"(^|_)(seed|seeds|seeding)(_|$)")


def is_no_op(package: str) -> bool:
    return package in PACKAGES or is_logging(package) or bool(SEEDING_NAME.search(package))


# A call that says it logs: `log(...)`, `log_hyperparams(...)`, `log_metrics(...)`, `add_scalar(...)`.
LOGGING_CALL = re.compile(r"^(log|log_\w+|\w+_log|add_scalars?|track|track_\w+|report|report_\w+)$")


def logs_only(package: str, text: str) -> bool:
    """Does the code use a package that is not listed only by calls that log (`import lera`, then only
    `lera.log_hyperparams({...})` and `lera.log("loss", v)`), or by calls whose value nothing keeps
    (`hues.info(f"Loss: {loss:>7f}")`, a coloured printer, a statement of its own)? Then it is a
    logger, whatever its name: a no-op stands in, as for the listed ones. What such a call might do
    with what it is given (a printer prints it) is not what a claim about copies and graphs rests on.
    Any other use of it (an attribute read, a call whose value is kept, the module passed along) keeps
    the stand-in that names it when used."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return False
    names = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.Import)
             for alias in node.names if alias.name == package}
    if not names:
        return False
    calls = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    discarded = {id(node.value.func) for node in ast.walk(tree)
                 if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)}
    uses = [node for node in ast.walk(tree) if isinstance(node, ast.Name) and node.id in names
            and isinstance(node.ctx, ast.Load)]
    attributes = {id(node.value): node for node in ast.walk(tree) if isinstance(node, ast.Attribute)}

    def logs(use: ast.Name) -> bool:
        called = attributes.get(id(use))
        return called is not None and id(called) in calls and (
            id(called) in discarded or LOGGING_CALL.match(called.attr) is not None)

    return bool(uses) and all(map(logs, uses))


class NoOp:
    """Anything reached from a no-op package: every use does nothing."""

    def __init__(self, name: str) -> None:
        object.__setattr__(self, "_name", name)

    def __getattr__(self, attribute: str):
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)  # probes (`__array__`, `__deepcopy__`) see a plain object
        if attribute == "classes":
            known = _known_dataset_classes(self._name)
            if known is not None:
                return known
        if absent.EXCEPTION_NAME.search(attribute):
            # `warnings.filterwarnings("ignore", category=sklearn.exceptions.ConvergenceWarning)`, `except
            # sklearn.exceptions.NotFittedError:`: a class of its own, of the kind its name says
            return absent.exception_class(attribute, self._name)
        return NoOp(f"{self._name}.{attribute}")

    def __call__(self, *args, **kwargs):
        last = self._name.rsplit(".", 1)[-1]
        if last in PASS_THROUGH or self._name in PASS_THROUGH_QUALIFIED:
            return ProgressBar(args[0] if args else kwargs.get("iterable"), self._name)
        if last == "trange" and args:
            return ProgressBar(range(*args), self._name)
        if last in ENUMERATING and args:  # `tqdm.contrib.tenumerate(loader)`, `tzip(a, b)`
            return ProgressBar(ENUMERATING[last](*args), self._name)
        if self._name.split(".")[0] in FOLDER_NAMERS and last.endswith(("_dir", "_path")):
            import tempfile

            application = args[0] if args and isinstance(args[0], str) else "application"
            return os.path.join(tempfile.gettempdir(), "torchcopylint-folders", last, application)
        if ".transforms." in f"{self._name}." and args:
            if last == "Compose" and isinstance(args[0], (list, tuple)):
                return Composed(args[0])  # applies each transform, a dtype conversion included
            if last == "ConvertImageDtype":
                return lambda image: _converted(image, args[0])
            if last == "convert_image_dtype" and _is_tensor(args[0]):
                return _converted(args[0], args[1] if len(args) > 1 else kwargs.get("dtype"))
        if ".transforms." in f"{self._name}." and args and last in TO_TENSOR and _is_picture(args[0]):
            # `transforms.ToTensor()(Image.open(path))` (a style-transfer notebook's loader): converted as
            # torchvision converts, so what follows gets the tensor the code expects.
            return _picture_as_tensor(args[0], scaled=TO_TENSOR[last])
        if ".transforms." in f"{self._name}." and args:
            # `Grayscale(1)(frame)`, `Resize((84, 84))(frame)`, `TF.center_crop(image, 224)`: the shape
            # torchvision would give (verify/transforms.py).
            shaped = transforms.reshaped(last, self.__dict__.get("_arguments"), args[0], args, kwargs)
            if shaped is not None:
                return shaped
        if ".transforms." in f"{self._name}." and args and (_is_tensor(args[0]) or _is_picture(args[0])):
            # `TF.rotate(images, angle)`, `transforms.Normalize(...)(x)`, `Resize(400)(image)`: an image
            # transform stands in as the identity on a tensor or a picture, which keeps the batch a batch
            # for the network after it, and the picture one for the conversion after it.
            return args[0]
        if len(args) == 1 and not kwargs and (inspect.isfunction(args[0]) or inspect.isclass(args[0])):
            # A decorator of the package (sacred's `@ex.automain`, `@ex.capture`, a tracker's `@log_run`)
            # leaves the function as the code wrote it: swallowed by the stand-in, its body would never
            # run, and a claim about a line in it would read as not reached.
            return args[0]
        made = NoOp(f"{self._name}()")
        # What it was made with, for what reads it at run time: the `Resize(64)` of a dataset's
        # transform sizes the stand-in batches of a loader over it (verify/batches.py).
        object.__setattr__(made, "_arguments", (args, kwargs))
        return made

    def __setattr__(self, attribute, value):
        return None

    def __or__(self, other):
        return self  # `Tensor | np.ndarray` of an annotation a definition evaluates: a union, stood in

    __ror__ = __or__

    def __array__(self, dtype=None, copy=None):
        # `ax.imshow(make_grid(images).permute(1, 2, 0))` with torchvision stood in: NumPy reads a 1x1
        # image (left to its sequence protocol, it spins on a value whose items are values).
        import numpy

        return numpy.zeros((1, 1), dtype=dtype or float)

    def __iter__(self):
        return iter((NoOp(f"{self._name}[0]"), NoOp(f"{self._name}[1]")))

    def __getitem__(self, key):
        return NoOp(f"{self._name}[...]")

    def __setitem__(self, key, value):
        return None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __bool__(self):
        return False

    def __len__(self):
        return 0

    def __float__(self):
        return 0.0

    def __int__(self):
        return 0

    __index__ = __int__

    def __str__(self):
        return ""

    def __format__(self, spec):
        return ""

    def __fspath__(self):
        # `os.path.join(opt.save_dir, wandb.run.id)`: a path part, named for what it stands for (the
        # sandbox keeps what is written there in memory).
        return self._name.rsplit(".", 1)[-1].strip("()[]") or "no-op"

    def __mro_entries__(self, bases):
        return (NoOpBase,)

    def __instancecheck__(self, instance) -> bool:
        # `isinstance(dataset, datasets.ImageFolder)`: nothing the run makes is one of a no-op package's types.
        return False

    def __subclasscheck__(self, subclass) -> bool:
        return False

    def _same(self, *args, **kwargs):
        return self

    def _false(self, other):
        return False  # `IPython.version_info >= (8,)`: as a truth test is, False

    __lt__ = __le__ = __gt__ = __ge__ = _false

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _same
    __neg__ = __matmul__ = __rmatmul__ = __pow__ = _same

    def __repr__(self) -> str:
        return f"<no-op stand-in: {self._name}>"


def _known_dataset_classes(name: str):
    """`train_data.classes` of `datasets.FashionMNIST(...)` made by a missing torchvision in a module the
    run imports (`class_names = train_data.classes`, then `len(class_names)` outputs): the dataset's
    class names, or as many numbers; None for any other no-op."""
    from torchcopylint.verify.datasites import CLASS_NAMES, KNOWN_DATASETS

    match = re.fullmatch(r"torchvision\.datasets\.(\w+)\(\)", name)
    if match is None or match.group(1) not in KNOWN_DATASETS:
        return None
    known = match.group(1)
    return list(CLASS_NAMES.get(known) or (str(number) for number in range(KNOWN_DATASETS[known][1])))


# torchvision's readers of an image file into a uint8 tensor, C x H x W.
IMAGE_READERS = frozenset({"torchvision.io.read_image", "torchvision.io.decode_image", "torchvision.io.image.read_image"})


def _read_image(path, *args, **kwargs):
    """`read_image(path)` of a missing torchvision: random pixels of a photograph's size, as the image
    the user's file would give (never read), said in the evidence."""
    import torch

    from torchcopylint.verify import images, sandbox

    channels, height, width = images.PHOTO_SIZE
    shown = sandbox.in_project(path) or os.fspath(path)
    sandbox.record(f"`read_image({shown!r})` (torchvision is not installed) gave {height}x{width} random pixels")
    return torch.randint(0, 256, (channels, height, width), dtype=torch.uint8, generator=torch.Generator().manual_seed(0))


def _cv2_read(path, flags=1, *args, **kwargs):
    """`cv2.imread(path)` of a missing OpenCV: random pixels of a photograph's size, as an array in
    OpenCV's layout (height, width, channels; grey for `IMREAD_GRAYSCALE`), said in the evidence."""
    import numpy

    from torchcopylint.verify import images, sandbox

    _, height, width = images.PHOTO_SIZE
    grey = flags == 0 or "GRAY" in getattr(flags, "_name", "")
    shown = sandbox.in_project(path) or os.fspath(path)
    sandbox.record(f"`cv2.imread({shown!r})` (OpenCV is not installed) gave {height}x{width} random pixels")
    shape = (height, width) if grey else (height, width, 3)
    return numpy.random.default_rng(0).integers(0, 256, shape, dtype=numpy.uint8)


def _cv2_convert(image, code, *args, **kwargs):
    """`cv2.cvtColor(image, code)`: the channel order of random pixels does not matter; to or from grey
    changes the channels."""
    import numpy

    name = getattr(code, "_name", "")
    if name.endswith("2GRAY") and getattr(image, "ndim", 0) == 3:
        return image.mean(axis=2).astype(image.dtype)
    if "GRAY2" in name and getattr(image, "ndim", 0) == 2:
        return numpy.stack([image] * 3, axis=2)
    return image


def _cv2_resize(image, size=None, *args, fx=None, fy=None, **kwargs):
    """`cv2.resize(image, (width, height))` (or by `fx`, `fy`): nearest pixels, in OpenCV's order of sizes."""
    import numpy

    height, width = image.shape[:2]
    if size is not None and tuple(size) != (0, 0):
        new_width, new_height = int(size[0]), int(size[1])
    else:
        new_width, new_height = int(round(width * (fx or 1))), int(round(height * (fy or 1)))
    rows = numpy.arange(new_height) * height // max(new_height, 1)
    columns = numpy.arange(new_width) * width // max(new_width, 1)
    return image[rows][:, columns]


def _latin_hypercube(n, samples=None, *args, **kwargs):
    """`lhs(n, samples)` of a missing pyDOE: `samples` points in the unit cube of `n` dimensions (one
    per stratum of each dimension, as a Latin hypercube has), said in the evidence."""
    import numpy

    from torchcopylint.verify import sandbox

    count = int(samples) if samples is not None else int(n)
    generator = numpy.random.default_rng(0)
    points = (numpy.stack([generator.permutation(count) for _ in range(int(n))], axis=1)
              + generator.random((count, int(n)))) / count
    sandbox.record(f"`lhs({n}, {count})` (pyDOE is not installed) gave {count} points of a Latin hypercube")
    return points


LATIN_HYPERCUBES = frozenset({"pyDOE.lhs", "pyDOE2.lhs", "pyDOE3.lhs"})


# OpenCV's image reading, when it is not installed: what the code reads an image into, made up.
CV2_STAND_INS = {"cv2.imread": _cv2_read, "cv2.cvtColor": _cv2_convert, "cv2.resize": _cv2_resize}


class Composed:
    """`transforms.Compose([...])` of a missing torchvision: each transform applied in turn (a no-op's
    is the identity on a tensor; a dtype conversion converts)."""

    def __init__(self, transforms) -> None:
        self.transforms = list(transforms)

    def __call__(self, image):
        for transform in self.transforms:
            image = transform(image)
        return image


def _converted(image, dtype):
    """`ConvertImageDtype(torch.float32)(image)`: as torchvision converts, integers scaled to [0, 1]."""
    if not _is_tensor(image) or dtype is None or not hasattr(dtype, "is_floating_point"):
        return image
    if dtype.is_floating_point and not image.is_floating_point():
        return image.to(dtype) / 255.0
    return image.to(dtype)


# torchvision's conversions of a picture (a PIL image, an H x W (x C) array) into a C x H x W tensor:
# name -> whether it scales integers to [0, 1].
TO_TENSOR = {"ToTensor()": True, "to_tensor": True, "PILToTensor()": False, "pil_to_tensor": False}


def _is_picture(value) -> bool:
    """A PIL image or a NumPy array, where the code hands torchvision a picture."""
    image = sys.modules.get("PIL.Image")
    numpy = sys.modules.get("numpy")
    return (image is not None and isinstance(value, image.Image)) or \
        (numpy is not None and isinstance(value, numpy.ndarray))


def _picture_as_tensor(picture, scaled: bool):
    import numpy
    import torch

    array = numpy.array(picture)
    if array.ndim == 2:
        array = array[:, :, None]
    tensor = torch.from_numpy(array).permute(2, 0, 1).contiguous()
    if scaled and not tensor.is_floating_point():
        tensor = tensor.float() / 255.0
    return tensor


def _is_tensor(value) -> bool:
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(value, torch.Tensor)


class ProgressBar:
    """A progress bar over an iterable: iterating it iterates the iterable; everything else it offers
    (`bar.set_postfix(loss=...)`, `bar.update()`, `with tqdm(total=n) as bar:`) does nothing."""

    def __init__(self, iterable, name: str) -> None:
        self._iterable, self._name = iterable, name

    def __iter__(self):
        return iter(self._iterable if self._iterable is not None else ())

    def __len__(self):
        return len(self._iterable) if self._iterable is not None else 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __getattr__(self, attribute: str):
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return NoOp(f"{self._name}().{attribute}")


class NoOpBase:
    """A base class from a no-op package (`class Logger(SummaryWriter)`): its methods do nothing."""

    def __init__(self, *args, **kwargs):
        pass

    def __call__(self, *args, **kwargs):
        # A transform's subclass (`class NormalizeInverse(transforms.Normalize)`, whose `__call__` ends
        # in `super().__call__(tensor)`): the identity on a tensor, as the no-op transform itself is.
        if args and _is_tensor(args[0]):
            return args[0]
        return NoOp(f"{type(self).__name__}()")

    def __getattr__(self, attribute: str):
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return NoOp(f"{type(self).__name__}.{attribute}")


def _left_as_written(function=None, *args, **kwargs):
    """`@jit`, `@jit(nopython=True)`, `@jit("f8(f8)")`, `@pytest.fixture(scope="module")`: the function
    itself, left as written."""
    if callable(function) and not args and not kwargs:
        return function
    return lambda inner: inner


class _Marks:
    """`pytest.mark`: every mark (`@pytest.mark.slow`, `@pytest.mark.parametrize("n", [1, 2])`) leaves the
    function as written."""

    def __getattr__(self, attribute: str):
        if attribute.startswith("__"):
            raise AttributeError(attribute)
        return _left_as_written


def _is_no_op_part(name: str) -> bool:
    parts = name.split(".")
    if parts[0] in NO_OP_NAMES:
        rest = parts[2:] if len(parts) > 1 and parts[1] in D2L_FRAMEWORKS else parts[1:]
        return not rest or rest[0] in NO_OP_NAMES[parts[0]]
    if parts[0] == "tensorflow" and parts[1:2] == ["compat"]:
        parts = [parts[0], *parts[3:]]  # `tensorflow.compat.v1.logging`: its `logging`
    allowed = NO_OP_PARTS.get(parts[0])
    return allowed is None or len(parts) < 2 or parts[1] in allowed


STAND_IN_VERSION = "0.0.0+standin"


class NoOpModule(types.ModuleType):
    def _wandb_init(self, *args, config=None, **kwargs):
        """`wandb.init(project=..., config={"lr": 1e-3})`: the run does nothing, its config holds those."""
        if config is not None:
            self.config.update(config if isinstance(config, dict) else vars(config))
        return NoOp("wandb.init()")

    def __getattr__(self, attribute: str):
        if attribute == "__version__":
            # Printed or compared by scripts that check their setup (`print(torchvision.__version__)`);
            # a PEP 440 version that says what it is.
            return STAND_IN_VERSION
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        name = f"{self.__name__}.{attribute}"
        if name == amp.NAME:
            return importlib.import_module(name)  # `from apex import amp`
        if name in TIMM_CONSTRUCTORS:
            return backbones.timm_create_model
        if name in CLASSIFIER_MAKERS:
            return backbones.classifier_maker(name)
        if any(maker.startswith(f"{name}.") for maker in CLASSIFIER_MAKERS):
            return NoOpModule(name)  # `pytorchcv.model_provider`, on the way to its maker
        if name in ("timm.list_models", "timm.models.list_models"):
            return backbones.timm_list_models
        zoo_stand_in = zoos.stand_in(name)
        if zoo_stand_in is not None:
            return zoo_stand_in
        if name in lightning.STAND_INS:
            return lightning.STAND_INS[name]
        if name in configs.STAND_INS:
            return configs.STAND_INS[name]
        if name in ("numba.cuda", "gym.vector", "gymnasium.vector") or name in zoos.SUBMODULES:
            return NoOpModule(name)  # `from numba import cuda`, then `@cuda.jit`; `gym.vector.make(...)`
        if name in NUMBA_COMPILERS or name in TEST_DECORATORS:
            return _left_as_written
        if name == "pytest.mark":
            return _Marks()
        if name == "numba.prange":
            return range
        if name == "wandb.config":
            # A run's hyperparameters (`config = wandb.config; config.learning_rate = 1e-3`, then
            # `lr=config.learning_rate`): it holds what the code puts in it, the same one on every read.
            config = configs.AttributeDict()
            setattr(self, "config", config)
            return config
        if name == "wandb.init":
            return self._wandb_init
        if name in ("gym.make", "gymnasium.make"):
            return environments.maker(self.__name__)  # stand-in environments (verify/environments.py)
        if name in ("gym.vector.make", "gymnasium.vector.make", "gymnasium.make_vec"):
            return environments.vector_maker(name.split(".")[0])
        if name in ("gym.spaces.Discrete", "gymnasium.spaces.Discrete"):
            return environments.Discrete
        if name in ("gym.spaces.Box", "gymnasium.spaces.Box"):
            return environments.Box
        if name in IMAGE_READERS:
            return _read_image
        if name in CV2_STAND_INS:
            return CV2_STAND_INS[name]
        if name in LATIN_HYPERCUBES:
            return _latin_hypercube
        # torchvision's image classifiers: small stand-ins of their layout (verify/backbones.py).
        if self.__name__.startswith(MODELS):  # `from torchvision.models import resnet18`
            return getattr(backbones.ModelsNamespace(self.__name__, AbsentName, NoOp), attribute)
        if name == MODELS:  # `torchvision.models.resnet18(...)`
            return backbones.ModelsNamespace(name, AbsentName, NoOp)
        if name == "tensorflow.compat" or name.startswith("tensorflow.compat.") and name.count(".") == 2:
            return NoOpModule(name)  # `tf.compat.v1`: what follows decides, as after `tf.`
        return NoOp(name) if _is_no_op_part(name) else AbsentName(name)


class NoOpPackages(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """A finder, last on sys.meta_path, answering for the no-op packages named to it."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] not in self.names:
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        if spec.name == amp.NAME:
            return amp.AmpModule()
        if spec.name.split(".")[0] in zoos.PACKAGES:
            module = NoOpModule(spec.name)
            module.__dict__.update(zoos.module_names(spec.name))  # `pretrainedmodels.__dict__[name](...)`
            return module
        if _is_no_op_part(spec.name) or spec.name.startswith(MODELS) or spec.name == "timm.models":
            return NoOpModule(spec.name)
        return AbsentModule(spec.name)

    def exec_module(self, module) -> None:
        module.__path__ = []


def stand_in_for(package: str) -> None:
    finder = next((entry for entry in sys.meta_path if type(entry) is NoOpPackages), None)
    if finder is None:
        finder = NoOpPackages()
        sys.meta_path.append(finder)
    finder.names.add(package)
    for wrapper, wrapped in WRAPPERS.items():
        if wrapped == package and not any(isinstance(entry, NoOpWrappers) for entry in sys.meta_path):
            # The installed wrapper (`torch.utils.tensorboard`) would be found first and refuse again.
            sys.meta_path.insert(0, NoOpWrappers({wrapper}))


def stand_in_for_logging_modules(package: str) -> None:
    """From now on, a logging module of the missing `package` (`k_util.logger`) imports as no-ops; its
    other modules are answered by the finder absent.py installed for it."""
    finder = next((entry for entry in sys.meta_path if type(entry) is LoggingModules), None)
    if finder is None:
        finder = LoggingModules()
        sys.meta_path.insert(0, finder)  # before absent.py's finder, which answers for the whole package
    finder.names.add(package)


class LoggingModules(NoOpPackages):
    """A finder answering for the logging modules of missing packages that are otherwise absent."""

    def find_spec(self, fullname, path=None, target=None):
        top, _, rest = fullname.partition(".")
        if top not in self.names or not is_logging(rest):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        return NoOpModule(spec.name)


class NoOpWrappers(NoOpPackages):
    """A finder, first on sys.meta_path, answering for the modules that wrap a no-op package."""

    def __init__(self, names: set) -> None:
        super().__init__()
        self.names = set(names)

    def find_spec(self, fullname, path=None, target=None):
        if not any(fullname == name or fullname.startswith(name + ".") for name in self.names):
            return None
        return importlib.machinery.ModuleSpec(fullname, self, is_package=True)

    def create_module(self, spec):
        return NoOpModule(spec.name)


def cell_no_op(name: str) -> NoOp:
    """A no-op bound in place of a notebook cell that does not parse (`plt`, `tqdm`: verify/documents.py),
    whether or not its package is installed; the evidence names it there, not as a missing package."""
    made = NoOp(name)
    object.__setattr__(made, "_for_cell", True)
    return made


def used_in(namespace: dict) -> list[str]:
    """The no-op packages the namespace holds something of (a module or a name imported from one)."""
    found = []
    for value in list(namespace.values()):
        if isinstance(value, NoOpModule):
            found.append(_package_of(value.__name__))
        elif isinstance(value, NoOp) and not value.__dict__.get("_for_cell"):
            found.append(_package_of(object.__getattribute__(value, "_name")))
        elif configs.package_of(value) is not None:  # `from omegaconf import OmegaConf`
            found.append(configs.package_of(value))
    return sorted(set(found))


def stood_in_as(package: str) -> str:
    """What the evidence says stood in for a missing package the code used."""
    return configs.STOOD_IN if package in configs.PACKAGES else "no-ops"


def imported_by_siblings(namespace: dict) -> list[str]:
    """The no-op packages other modules of the run imported, that the namespace itself holds nothing of."""
    own = set(used_in(namespace))
    found = {_package_of(module.__name__) for module in list(sys.modules.values()) if isinstance(module, NoOpModule)}
    return sorted(found - own)


def _package_of(name: str) -> str:
    """The missing package a no-op stands for: `torch.utils.tensorboard.SummaryWriter` is tensorboard's,
    `k_util.logger.Logger` is the logging module `k_util.logger`'s."""
    wrapped = next((wrapped for wrapper, wrapped in WRAPPERS.items() if name == wrapper or name.startswith(wrapper + ".")),
                   None)
    if wrapped is not None:
        return wrapped
    parts = name.split(".")
    if is_no_op(parts[0]):
        return parts[0]
    depth = next((depth for depth in range(1, len(parts)) if LOGGING_NAME.search(parts[depth])), 0)
    return ".".join(parts[:depth + 1])

"""Where a script reads its data, and the rewrite that stands in for it (static: the syntax tree only).

Verification never reads the user's data. Before any of the user's code runs,
each expression that would make a dataset or a loader over one (a
`torchvision.datasets.MNIST(...)`, an `ImageFolder`, a `DataLoader` over
either, TensorFlow's `input_data.read_data_sets`, a `Dataset` subclass of the
file, an imported `get_loader(...)`, a `pickle.load(...)` a DataLoader iterates)
is replaced by a call of the verifier's
`__tcl_data__`, which makes stand-in batches at run time (verify/batches.py),
shaped from what the code says (the dataset's known sample shape, a
`Resize(64)` or `Grayscale()` in its transforms, the loader's `batch_size`)
and from the networks that consume them. An assignment only those calls read, that
lists the user's files (`train_a, train_b = folder_pairs("train")`, a `glob`), does
not run either: its names are bound to None, which nothing reads.

The replacement keeps the file's line numbers (a multi-line call becomes a call
whose closing parenthesis sits on the original last line), so probes and
tracebacks still point at the user's lines. The expressions the stand-in needs
at run time (the batch size, the image size) are copied in as lambdas, read
where the original call was.

`limit_loops` wraps a script's training loops (`for epoch in range(...)`,
`for x, y in loader`, `while True`) so that they stop after a few iterations:
the flagged iteration runs, never the whole loop.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import functools
import importlib.util
import re
import sys
from dataclasses import dataclass, field
from typing import Callable, Optional

from torchcopylint.verify import samples, tables

DATA_HELPER = "__tcl_data__"
LOOP_HELPER = "__tcl_few__"
WHILE_HELPER = "__tcl_while__"

# Datasets whose samples are known: (channels, height, width) or (features,), and their classes.
KNOWN_DATASETS = {
    "MNIST": ((1, 28, 28), 10), "FashionMNIST": ((1, 28, 28), 10), "KMNIST": ((1, 28, 28), 10),
    "QMNIST": ((1, 28, 28), 10), "EMNIST": ((1, 28, 28), 47), "USPS": ((1, 16, 16), 10),
    "CIFAR10": ((3, 32, 32), 10), "CIFAR100": ((3, 32, 32), 100), "SVHN": ((3, 32, 32), 10),
    "STL10": ((3, 96, 96), 10), "CelebA": ((3, 64, 64), 2), "LSUN": ((3, 64, 64), 10),
    "ImageFolder": ((3, 64, 64), 10), "DatasetFolder": ((3, 64, 64), 10), "ImageNet": ((3, 224, 224), 1000),
    "Omniglot": ((1, 105, 105), 964), "CocoDetection": ((3, 64, 64), 10), "VOCSegmentation": ((3, 64, 64), 21),
}
KNOWN_BY_LOWER_NAME = {name.lower(): name for name in KNOWN_DATASETS}
# The `classes` torchvision's datasets of known samples give, in order.
CLASS_NAMES = {
    "MNIST": tuple(f"{digit} - {name}" for digit, name in enumerate(
        ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"))),
    "FashionMNIST": ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
                     "Ankle boot"),
    "CIFAR10": ("airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck"),
}


def known_dataset(name: str) -> Optional[str]:
    """The KNOWN_DATASETS entry a dataset class's name says: its own, or MNIST's for a class of the
    MNIST family named so (MedMNIST's `ChestMNIST`, `PathMNIST`: 28-pixel images; their channels
    come from the transforms, as any known dataset's may)."""
    if name in KNOWN_DATASETS:
        return name
    family = name.endswith("MNIST") and name.isidentifier() and not MNIST_NETWORK.search(name.removesuffix("MNIST"))
    return "MNIST" if family else None


# What a name of the MNIST family is not: a network made for it (`Encoder_MNIST`, `CNN_MNIST`, `LeNetMNIST`).
MNIST_NETWORK = re.compile(r"_|Net|Encoder|Decoder|Discriminator|Generator|Critic|Classifier|Model|CNN|MLP|GAN|AE$")

def _known_by_name(known: Optional[str], called: str) -> bool:
    """Is the dataset one of torchvision's, called by its own name (`FashionMNIST`, `CIFAR10`; not
    MedMNIST's `PathMNIST`, whose channels its transforms say)? Its images have its own channels."""
    return known is not None and known == called


DATA_PACKAGES = ("torchvision.datasets.", "torchtext.datasets.", "torchaudio.datasets.")
LOADER_CLASSES = {"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"}
MAX_LOOKED = 12  # assignments read back from a loader's call for what its dataset is
# In-memory datasets and wrappers: they read nothing, and run as written.
IN_MEMORY = {"TensorDataset", "ConcatDataset", "Subset", "random_split", "ChainDataset", "StackDataset"}
# An imported callable named for data (`get_loader`, `load_mnist`, `CelebADataset`, a sibling module's
# `train_loader(...)`): its code is in another module, which would read files; it is stood in by its
# name. (A split's name before "loader" only: `model_loader`, `checkpoint_loader` load no data.)
DATA_FUNCTION = re.compile(r"^(get|make|build|load|create|prepare|fetch|read)_?\w*?(loaders?|datasets?|data|"
                           r"mnist|cifar\d*|celeba|batches)$|"
                           r"^(train|training|test|testing|val|valid|validation|eval|data)_?(data)?(loaders?|sets?)$",
                           re.IGNORECASE)
DATA_CLASS = re.compile(r"(Dataset|DataLoader|Loader)$")
# Keras' bundled datasets (`from keras.datasets.mnist import load_data`, `tf.keras.datasets.cifar10.load_data()`):
# NumPy arrays of known shapes, made up by verify/arrays.py.
KERAS_LOADER = re.compile(r"^(keras|tensorflow\.keras|tensorflow\.python\.keras)\.datasets\."
                          r"(mnist|fashion_mnist|cifar10|cifar100)\.load_data$")
# Packages whose classes a DataLoader may iterate that are no project dataset of files (torch's own
# and scikit-learn's are recognised by name elsewhere).
THIRD_PARTY_DATA = frozenset({"torch", "torchvision", "torchaudio", "torchtext", "sklearn", "numpy", "pandas"})
# A value or a keyword named for files: `root`, `dataroot`, `data_dir`, `opt.train_set`, `image_path`.
PATH_NAME = re.compile(r"(?i)(root|dir|path|folder|file|files|set|data)$")
SIZE_TRANSFORMS = {"Resize", "Scale", "CenterCrop", "RandomCrop", "RandomResizedCrop", "RandomSizedCrop"}
CROP_TRANSFORMS = {"CenterCrop", "RandomCrop", "RandomResizedCrop", "RandomSizedCrop"}
# scikit-learn's makers of synthetic arrays and loaders of its bundled toy sets (data the script trains on,
# made up as arrays of the right shape, verify/arrays.py), with their positional parameters; and its
# train_test_split, which splits what it is given (the arrays stood in for, or the script's own).
SKLEARN_ARRAYS = {
    "make_moons": ("n_samples", "shuffle", "noise", "random_state"),
    "make_circles": ("n_samples", "shuffle", "noise", "random_state", "factor"),
    "make_blobs": ("n_samples", "n_features", "centers", "cluster_std"),
    "make_classification": ("n_samples", "n_features", "n_informative", "n_redundant", "n_repeated", "n_classes"),
    "make_regression": ("n_samples", "n_features", "n_informative", "n_targets"),
    "make_swiss_roll": ("n_samples", "noise"), "make_s_curve": ("n_samples", "noise"),
    "load_iris": ("return_X_y",), "load_digits": ("n_class", "return_X_y"), "load_wine": ("return_X_y",),
    "load_breast_cancer": ("return_X_y",), "load_diabetes": ("return_X_y",), "load_boston": ("return_X_y",),
    "fetch_california_housing": ("data_home", "download_if_missing", "return_X_y"),
}
# scikit-learn's scalers and label encoder (`StandardScaler().fit_transform(X)`, `LabelEncoder().fit_transform(
# df["species"])`): they compute on the arrays they are given, made here where scikit-learn is missing
# (verify/arrays.py).
SKLEARN_PREPROCESSORS = frozenset({"StandardScaler", "MinMaxScaler", "LabelEncoder"})
# ...and the helpers a training script calls on its own values: `shuffle(X, y)` of the arrays it has,
# `ParameterGrid({"lr": [...], "hidden": [...]})`, the settings a grid search loops over, and the folds of a
# cross-validation (`for train_index, valid_index in KFold(5).split(dataset)`) (verify/arrays.py).
SKLEARN_HELPERS = frozenset({"sklearn.utils.shuffle", "sklearn.model_selection.ParameterGrid",
                             "sklearn.model_selection.KFold", "sklearn.model_selection.StratifiedKFold"})
ARRAY_HINTS = frozenset({"n_samples", "n_features", "centers", "n_classes", "n_targets", "noise", "factor",
                         "return_X_y", "return_centers", "coef", "n_class"})
# Readers of a file of any content (`pickle.load(open("train_labeled.p", "rb"))`): a dataset where what
# they read is what a DataLoader iterates, and left alone anywhere else (a checkpoint, a vocabulary).
FILE_READERS = frozenset({"pickle.load", "joblib.load", "torch.load", "dill.load"})
JOINING_FUNCTIONS = frozenset({"torch.cat", "torch.concat", "torch.stack", "torch.vstack", "numpy.concatenate",
                               "numpy.stack", "numpy.vstack"})
# Calls that make a tensor (or array) of what they are given first, carrying its samples on.
# A loss by its name: `criterion`, `self.adv_loss`, or a loss's usual short name (`self.MSE = nn.MSELoss()`;
# not `l1`/`l2`, as often a network's layers).
LOSS_NAME = re.compile(r"(loss|criterion|crit)|^(mse|bce|ce|nll|kld?|huber|smooth_?l1|xent)$", re.IGNORECASE)
TENSOR_CONVERSIONS = frozenset({
    "torch.Tensor", "torch.FloatTensor", "torch.LongTensor", "torch.tensor", "torch.as_tensor", "torch.from_numpy",
    "numpy.array", "numpy.asarray", "numpy.moveaxis", "numpy.rollaxis", "numpy.transpose", "numpy.float32",
    "numpy.expand_dims",
})
# NumPy's readers of a text file of numbers: MNIST as a CSV file (Colab's `sample_data/mnist_train_small.csv`,
# one image a row, its label first) is made up as such (verify/arrays.py).
FULL_TEST_ROWS = 10_000  # the test split of MNIST's family and CIFAR's
TEXT_ARRAY_READERS = frozenset({"numpy.loadtxt", "numpy.genfromtxt"})
# NumPy's readers of a data file: what they read is not read (the run goes on, on a value whose use
# stops it, unverified: verify/absent.unread_data).
# MATLAB files, read as a dict of arrays by name (`scio.loadmat(path)["label"]`).
MAT_READERS = frozenset({"scipy.io.loadmat", "scipy.io.matlab.loadmat", "mat73.loadmat", "hdf5storage.loadmat"})
ARRAY_READERS = TEXT_ARRAY_READERS | MAT_READERS | {"numpy.load", "numpy.fromfile"}
MNIST_CSV = re.compile(r"(?i)mnist[^/\\]*\.csv$")
# Calls (by their last name) that read files or the network, in a dataset class of the file.
FILE_READING_CALLS = frozenset({
    "open", "imread", "read_image", "decode_image", "load", "loadtxt", "genfromtxt", "fromfile", "memmap",
    "loadmat", "File", "read_csv", "read_table", "read_excel", "read_json", "read_parquet", "read_feather",
    "read_pickle", "listdir", "scandir", "walk", "glob", "iglob", "rglob", "iterdir", "urlopen", "urlretrieve",
    "download", "download_url", "download_and_extract_archive", "load_dataset", "ImageFolder", "DatasetFolder",
})
# Kinds of site whose data would come from files or the network; arrays made up in memory are not
# (a DataLoader over a TensorDataset of them runs as written).
FILE_KINDS = frozenset({"dataset", "loader", "tf-mnist", "splits", "data"})


@dataclass(frozen=True)
class DataSite:
    """One expression that would make data, and what the code says about its samples."""

    index: int
    line: int
    end_line: int
    callee: str            # as written: "datasets.MNIST", "DataLoader"
    kind: str              # dataset | loader | tf-mnist | splits (a project's function serving splits as
    #                        TensorFlow's MNIST does, each with `next_batch(n)`: a course's
    #                        `cifar10_utils.get_cifar10()`)
    #                        | data | arrays (scikit-learn's) | split (its
    #                        train_test_split and scalers: the function or class, which runs on what it is given)
    #                        | keras (Keras' bundled datasets' `load_data()`) | table (pandas' `read_csv`
    #                        and its kin: verify/tables.py) | unpacked (a file reader's value unpacked
    #                        into names, `x_tr, y_tr, x_te, y_te = torch.load(path)`: verify/arrays.py)
    #                        | mnist-csv (`np.loadtxt` of an MNIST CSV file: verify/arrays.py)
    #                        | unread-array (any other file NumPy reads: a value whose use stops the run)
    #                        | data-tensor (a file reader's tensor or array that a DataLoader iterates
    #                        once the code made a tensor of it: `torch.cat((torch.load(a), torch.load(b)))`,
    #                        `TensorDataset(torch.Tensor(np.load(path)))`: random samples)
    #                        | unread (an assignment only stood-in data reads, `paths = list_images(root)`:
    #                        not run, its names bound to None) | unread-file (`open(path)` of a `with` whose
    #                        file only stood-in data reads: not opened, a context that does nothing)
    target: str = ""       # what the value is bound to: "train_loader", "train_set, test_set"
    known: Optional[str] = None  # a dataset whose sample shape is known: "MNIST" (a Keras loader's: "mnist")
    channels: Optional[int] = None
    one_hot: bool = False
    unpack: int = 0        # the assignment unpacks the result into this many values (0: one value)
    over: str = ""         # a loader's dataset, as written: "datasets.MNIST"
    # How the code reshapes a batch of it (`imgs.view(-1, 784)` -> ("-1", "784")): each dimension's
    # expression, "-1" for the batch's own size (`x.size(0)`), None where it cannot be read.
    reshapes: tuple = ()
    # Counts the code reads it with (`X[:500]`, `len(dataset) // batch_size`, `random_split(ds, [a, b])`):
    # ("at least" | "exactly", an expression of the number of samples it needs), evaluated at run time
    # (verify/batches.py sizes the stand-in from them).
    counts: tuple = ()
    single: bool = False   # a loader whose batches the code takes as one tensor (images without labels)
    whole: bool = False    # a loader whose short batches the code skips: never cut to a small batch
    batch_name: str = ""   # the name its batch size is given by (`batch_size=BATCH_SIZE`), if a plain name
    # What a sample of its dataset holds when the file's own dataset class says it is not an image and a
    # label (verify/samples.py); or, for a class imported from a module, where to read it at run time.
    layout: Optional[samples.SampleLayout] = None
    # What a sample holds as the loops over the data take batches apart (`for image, mask, name in
    # loader`, `batch["image"]`), where the dataset's own code (`layout`, `dataset_import`) does not say.
    layout_in_use: Optional[samples.SampleLayout] = None
    dataset_import: str = ""  # "paired_images.PairedImages" (or a function returning datasets of one class)
    views: int = 1         # images per sample its transform makes of each image (a file's TwoCropsTransform: 2)
    size_text: str = ""    # the side its transforms resize or crop to, as written (`img_size`, `64`)
    table: Optional[tables.TableLayout] = None  # a table's columns, as the code reads them
    # A data-tensor's samples: made as a NumPy array (what `np.load` and `pickle.load` give), with their
    # channels last (the code moves them first: `np.moveaxis(x, 3, 1)`).
    as_array: bool = False
    channels_last: bool = False
    # A data-tensor that holds the targets a TensorDataset pairs with its samples (`TensorDataset(x, y)`,
    # `y` read from a file): class indices, one per sample.
    targets: bool = False
    # Splits whose test split has all the rows of the real one (10,000) because the code names that count
    # (`x_test.reshape(10000, -1)`); else as few as the others: a network run over 10,000 stand-in
    # images on the CPU is a timeout, not a verdict.
    full_test_split: bool = False
    # A data-tensor read as an `.npz` archive (`data = np.load("x.npz")`, then `data["x"]` or
    # `data[data.files[0]]`): each entry the code takes out of it is the data, but for `target_keys`,
    # the entries a dataset pairs with the samples as targets (`dataset(data["Xtr"], data["y"])`).
    archive: bool = False
    target_keys: tuple = ()
    # A data-tensor a loop takes batches of by slicing (`X[i:i + BATCH_SIZE]`, `BATCH_SIZE = 64` at the
    # top level, read once): that batch size, so that the samples make several such batches.
    sliced_batch: int = 0
    # A data-tensor a function of the project reads as a batch of one (`return image.unsqueeze(0)`).
    one_sample: bool = False
    # A data-tensor a function of the project returns unpacked into names that the loaders iterate
    # (`x_train, y_train, x_test, y_test = read_bci_data()`, then `TensorDataset(torch.Tensor(x_train),
    # torch.Tensor(y_train))`): for each name, whether it holds targets (else samples).
    parts: tuple = ()
    # A data function of the project that returns a dataset, not a loader (`return datasets.MNIST(...)`):
    # what it stands in for is indexed and sized as a dataset (`DataLoader(get_mnist_data(), ...)`).
    returns_dataset: bool = False

    @property
    def label(self) -> str:
        called = self.callee if self.kind in ("unread", "unread-file") else f"{self.callee}(...)"  # as written
        shown = f"`{self.target} = {called}`" if self.target else f"`{called}`"
        over = f" over `{self.over}(...)`" if self.over else ""
        return f"{shown}{over} (line {self.line})"


@dataclass
class Rewritten:
    text: str
    sites: list = field(default_factory=list)
    # What a sample of a loader another module of the project makes at run time holds (`from dataset
    # import train_loader`), as this file's loops take its batches apart (`_layout_in_loops`).
    runtime_layout: Optional[samples.SampleLayout] = None


@dataclass(frozen=True)
class Loop:
    index: int
    line: int
    end_line: int
    # Iterations it takes to pass the flagged line more than once, where the line runs only every k-th
    # iteration (`if epoch % 10 == 0: losses.append(loss)`): k + 1 (0 when nothing says).
    sparse_iterations: int = 0
    # A loop over data that neither backpropagates nor steps (`for x, y in loader: inputs.append(x)`):
    # what it gathers, later code indexes by a count of its own, so it runs over all the stand-in batches.
    gathers: bool = False
    # A loop over data (`for i, (x, y) in enumerate(loader)`): where it is sparse, its stand-in loaders
    # yield as many batches as it takes.
    over_data: bool = False


@dataclass
class Limited:
    text: str
    loops: list = field(default_factory=list)


# ------------------------------------------------------------------------------ data sites


# A file none of whose text names data is left as it is, unparsed (most blocks and helpers).
_MAY_MAKE_DATA = re.compile(r"DataLoader|[Dd]ataset|read_data_sets|sklearn|ImageFolder|MNIST|CIFAR|SVHN|STL10|CelebA|LSUN|"
                            r"Omniglot|ImageNet|\.(get|load|read)_\w*(data|mnist|cifar\d*)\w*\(|(pickle|joblib|torch|dill|np|numpy)\.load\(|loadtxt|genfromtxt|fromfile|read_(csv|table|excel|json|parquet|feather)|load_dataset|import[^\n]*(Loader|\b(get|make|build|load|create|prepare|fetch|"
                            r"read)_)|[Ll]oader|\b(train|training|test|testing|val|valid|validation|eval|data)_?(data)?sets?\b")


@functools.lru_cache(maxsize=32)
def rewrite_data(source: str) -> Rewritten:
    """The source with every expression that makes data replaced by a stand-in call; line numbers kept."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return Rewritten(source)
    imported = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                for alias in node.names if _LOADER_LIKE.search(alias.asname or alias.name)}
    runtime_layout = _layout_in_loops(tree, imported, loose=False) if imported else None
    if not _MAY_MAKE_DATA.search(source):
        return Rewritten(source, runtime_layout=runtime_layout)
    imports = _imports(tree)
    defined = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                     ast.ClassDef))}
    dataset_classes = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
                       and _is_dataset_class(node) and _may_read_files(node)}
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    finder = _SiteFinder(tree, imports, defined, dataset_classes, classes)
    if not finder.sites:
        return Rewritten(source, runtime_layout=runtime_layout)
    finder.sites = _with_readings(tree, finder.sites)
    edits = []
    copied: list[ast.AST] = []  # what the stand-ins read at run time, copied from the calls they replace
    for site, call, batch, size in finder.sites:
        if site.kind == "split":  # the call runs, on what it is given: only the function is replaced
            edits.append((call.func, _replacement(site, None, None, call.func)))
        else:
            hints = _array_hints(call, site) or _loader_hints(call, site) or _dataset_class_hints(call, site)
            copied += [node for node in (batch, size, *hints.values()) if node is not None]
            # A maker's arguments are read only for an image size, and one that cannot be read gives none.
            edits.append((call, _replacement(site, batch, size, call, hints or _maker_hints(call, site))))
    sites = [site for site, _, _, _ in finder.sites]
    replaced = [call for site, call, _, _ in finder.sites if site.kind != "split"]
    for statement in _unread_feeders(tree, replaced, copied, imports):
        target, unpack = _target_of(statement.value, statement)
        site = DataSite(len(sites), statement.value.lineno, statement.value.end_lineno or statement.value.lineno,
                        _clipped(ast.unparse(statement.value)), "unread", target, unpack=unpack)
        sites.append(site)
        edits.append((statement.value, _replacement(site, None, None, statement.value)))
    for opened in _files_only_read_for_data(tree, replaced):
        site = DataSite(len(sites), opened.lineno, opened.end_lineno or opened.lineno, _clipped(ast.unparse(opened)),
                        "unread-file")
        sites.append(site)
        edits.append((opened, _replacement(site, None, None, opened)))
    return Rewritten(replace_nodes(source, edits), sites, runtime_layout)


def _files_only_read_for_data(tree: ast.Module, replaced: list) -> list[ast.Call]:
    """The `open(...)` of each `with open(path) as f:` whose file only replaced data
    calls read (`y = pickle.load(f)`, stood in for): it is not opened, since the stand-in reads nothing
    and the sandbox refuses the user's files."""
    hidden = {id(node) for call in replaced for node in ast.walk(call)}
    found = []
    for statement in (node for node in ast.walk(tree) if isinstance(node, ast.With)):
        for item in statement.items:
            opened, handle = item.context_expr, item.optional_vars
            if not (isinstance(opened, ast.Call) and isinstance(opened.func, ast.Name) and opened.func.id == "open"
                    and isinstance(handle, ast.Name)):
                continue
            reads = [node for body in statement.body for node in ast.walk(body)
                     if isinstance(node, ast.Name) and node.id == handle.id]
            if reads and all(id(node) in hidden for node in reads):
                found.append(opened)
    return found


def _unread_feeders(tree: ast.Module, replaced: list, copied: list, imports: dict) -> list[ast.Assign]:
    """Assignments whose names only the replaced data calls read: `train_a, train_b =
    make_datapath_list()` (a listing of the user's image folders), read by nothing but
    `UnpairedDataset(train_a, train_b)`, stood in for. The stand-in never reads them, and running them
    would read the user's files. To a fixed point: `paths = sorted(glob(root))` read only by such an
    assignment is one too. One that reads no files and none of those names (a transform, a folder's
    name) runs as written."""
    kept = {id(node) for expression in copied for node in ast.walk(expression)}  # read at run time
    hidden = {id(node) for call in replaced for node in ast.walk(call)} - kept
    candidates = [node for node in ast.walk(tree) if isinstance(node, ast.Assign) and id(node.value) not in hidden
                  and all(isinstance(name, ast.Name) for target in node.targets
                          for name in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]))]
    feeders: list[ast.Assign] = []
    while True:
        read_outside = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)
                        and isinstance(node.ctx, ast.Load) and id(node) not in hidden}
        read_inside = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)
                       and isinstance(node.ctx, ast.Load) and id(node) in hidden}
        more = [statement for statement in candidates if statement not in feeders
                and (names := {name.id for target in statement.targets for name in ast.walk(target)
                               if isinstance(name, ast.Name)})
                and names <= read_inside and not names & read_outside]
        if not more:
            break
        feeders += more
        hidden |= {id(node) for statement in more for node in ast.walk(statement.value)} - kept
    # Of those, the ones that read files, and then those that read what they bound (which is not there).
    chosen = [statement for statement in feeders if _lists_files(statement.value, imports)]
    while True:
        bound = {name.id for statement in chosen for target in statement.targets for name in ast.walk(target)
                 if isinstance(name, ast.Name)}
        more = [statement for statement in feeders if statement not in chosen and any(
            isinstance(node, ast.Name) and node.id in bound for node in ast.walk(statement.value))]
        if not more:
            return sorted(chosen, key=lambda statement: statement.lineno)
        chosen += more


def _lists_files(expression: ast.expr, imports: dict) -> bool:
    """Does the expression call a reader of files (`glob`, `os.listdir`, `open`), or a function of the
    project that calls one (`folder_pairs("train")`)?"""
    return _may_read_files(expression) or any(
        isinstance(node, ast.Call) and _project_function_reads_files(_qualified(node.func, imports))
        for node in ast.walk(expression))


def _clipped(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ------------------------------------------------------------------------------ how the code reads the data

# Calls that hand back the batch they are given, as far as its shape goes.
_SAME_BATCH_METHODS = frozenset({"to", "cuda", "cpu", "float", "double", "half", "type", "detach", "contiguous",
                                 "requires_grad_", "type_as", "clone"})
_SAME_BATCH_CALLS = frozenset({"Variable", "autograd.Variable", "torch.autograd.Variable"})
# Progress bars that hand back what they wrap (`tqdm(loader)`, a course's `qqdm(loader)`): verify/noops.py
# makes its stand-ins of them so.
PROGRESS_BARS = frozenset({"tqdm", "tqdm_notebook", "qqdm", "progressbar", "progress_bar", "master_bar", "alive_it",
                           "track"})
_BATCH_WRAPPERS = frozenset({"enumerate", "iter", "tqdm.tqdm"}) | PROGRESS_BARS
_LOADER_LIKE = re.compile(r"(?i)(loader|dataset|data$|batches)")
MAX_READ_COUNT_NODES = 25  # a count or a dimension is a short expression of names and numbers


def _with_readings(tree: ast.Module, found: list) -> list:
    """The sites, each with how the code reshapes its batches and the counts it reads it with."""
    image_sites = [site for site, *_ in found if site.kind in FILE_KINDS and site.kind != "tf-mnist"]
    constants = top_level_whole_numbers(tree)
    updated = []
    for site, call, batch, size in found:
        # A name, or an attribute the code keeps it in (`self.dataloader = DataLoader(...)`).
        names = {part.strip() for part in site.target.split(",")
                 if all(word.isidentifier() for word in part.strip().split("."))}
        if site.kind == "table":
            layout = tables.layout_of(tree, names, _keyword(call, "names"), reader=call)
            updated.append((dataclasses.replace(site, table=layout), call, batch, size))
            continue
        if site.kind == "mnist-csv":
            # Read before the code's settings run (`batch_size = 3000` further down): its counts with the
            # whole numbers the module's top level binds once.
            counts = tuple(dict.fromkeys((kind, with_constants(text, constants))
                                         for kind, text in _counts_read(tree, names)))
            updated.append((dataclasses.replace(site, counts=counts), call, batch, size))
            continue
        if site.kind not in FILE_KINDS or site.kind == "tf-mnist":
            updated.append((site, call, batch, size))
            continue
        # A loader passed to the file's functions under another name (`def train(dataloader)`): with one
        # source of image data in the file (a dataset, and loaders over it), every loop over a name that
        # reads like data is over it.
        loose = len([other for other in image_sites if not (other.kind == "loader" and other.over)]) <= 1
        reshapes = tuple(dict.fromkeys(batch_reshapes(tree, names, loose)))
        counts = tuple(dict.fromkeys(_counts_read(tree, names)))
        single = site.kind == "loader" and _single_batches(tree, names, loose)
        whole = site.kind == "loader" and _skips_short_batches(tree, names, loose, site.batch_name)
        in_use = None if single else _layout_in_loops(tree, names, loose)
        updated.append((dataclasses.replace(site, reshapes=reshapes, counts=counts, single=single, whole=whole,
                                            layout_in_use=in_use), call, batch, size))
    return updated


def top_level_whole_numbers(tree: ast.Module) -> dict[str, int]:
    """The names the module's top level binds once, each to a whole number (`batch_size = 3000`), or to a
    product of such numbers (`IMAGE_SIZE = 3 * 32 * 32`, `FLAT = CHANNELS * 28 * 28`)."""
    bound: dict[str, list] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.setdefault(node.id, []).append(node)
    found: dict[str, int] = {}

    def value(node: ast.AST) -> Optional[int]:
        if isinstance(node, ast.Constant) and type(node.value) is int:
            return node.value
        if isinstance(node, ast.Name):
            return found.get(node.id)
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            left, right = value(node.left), value(node.right)
            return left * right if left is not None and right is not None else None
        return None

    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 \
                and isinstance(statement.targets[0], ast.Name) and len(bound[statement.targets[0].id]) == 1:
            number = value(statement.value)
            if number is not None:
                found[statement.targets[0].id] = number
    return found


def with_constants(text: str, constants: dict[str, int]) -> str:
    return re.sub(r"\b[A-Za-z_]\w*\b", lambda match: str(constants.get(match.group(), match.group())), text)


def _peel(node: ast.AST) -> ast.AST:
    """`imgs.to(device).float()`, `Variable(imgs)`: the batch behind calls that keep its shape."""
    while True:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in _SAME_BATCH_METHODS:
            node = node.func.value
        elif isinstance(node, ast.Call) and (_dotted(node.func) or "") in _SAME_BATCH_CALLS and node.args:
            node = node.args[0]
        else:
            return node


def _over_data(tree: ast.Module, names: set, loose: bool) -> Callable[[ast.AST], bool]:
    """Does an iterable go over the data named `names` (`loader`, `enumerate(tqdm(loader))`, or
    `progress_bar` where `progress_bar = tqdm(self.dataloader)`)? With `loose`, any name that reads
    like data does."""
    def over_data(iterable: ast.AST) -> bool:
        iterable = _unwrapped(iterable)
        if _is_zip(iterable):  # `zip(loader_a, loader_b)`: batches of each
            return any(over_data(argument) for argument in iterable.args)
        root = _dotted(iterable) or ""
        return root in names or bool(loose and isinstance(iterable, ast.Name) and _LOADER_LIKE.search(root))

    for node in ast.walk(tree):  # (added to `names`, which a caller may go on adding to)
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) \
                and isinstance(node.value, ast.Call) and (_dotted(node.value.func) or "") in _BATCH_WRAPPERS \
                and over_data(node.value):
            names.add(node.targets[0].id)
    return over_data


def _single_batches(tree: ast.Module, names: set, loose: bool) -> bool:
    """Do the loops over the data take each batch as one tensor (`for images in loader: images.to(dev)`,
    `for i, x in enumerate(loader)`), a dataset that gives images without labels? Only when every such
    loop binds one name, none unpacks or indexes it, and one uses it as a tensor."""
    over_data = _over_data(tree, set(names), loose)
    loops = [node for node in ast.walk(tree) if isinstance(node, ast.For) and over_data(node.iter)]
    used_as_tensor = False
    for loop, target in ((loop, target) for loop in loops for target in _batch_targets(loop, over_data)):
        if not isinstance(target, ast.Name):
            return False
        # The batch under the names the loop gives it (`imgs = data`).
        batch = {target.id} | {node.targets[0].id for node in ast.walk(loop) if isinstance(node, ast.Assign)
                               and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
                               and isinstance(node.value, ast.Name) and node.value.id == target.id}
        for node in ast.walk(loop):
            if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in batch \
                    and not isinstance(node.slice, ast.Slice):
                return False  # `batch[0]`: a pair (`real[:32]` takes samples of one tensor)
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in batch \
                    and any(isinstance(t, (ast.Tuple, ast.List)) for t in node.targets):
                return False  # `x, y = batch`
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in batch \
                    and node.attr in _TENSOR_ATTRIBUTES:
                used_as_tensor = True
    return used_as_tensor


def _unwrapped(iterable: ast.AST) -> ast.AST:
    """The iterable inside `enumerate(...)`, `tqdm(...)` and the like."""
    while isinstance(iterable, ast.Call) and (_dotted(iterable.func) or "") in _BATCH_WRAPPERS and iterable.args:
        iterable = iterable.args[0]
    return iterable


def _is_zip(iterable: ast.AST) -> bool:
    return isinstance(iterable, ast.Call) and _dotted(iterable.func) == "zip" and bool(iterable.args) \
        and not any(isinstance(argument, ast.Starred) for argument in iterable.args)


def _batch_targets(loop: ast.For | ast.comprehension, over_data: Callable[[ast.AST], bool]) -> list[ast.expr]:
    """What a loop over data binds each batch to: `batch` in `for i, batch in enumerate(loader)`; in
    `for (x1, y1), (x2, y2) in zip(loader_a, loader_b)`, each loader's own."""
    target = loop.target
    if isinstance(loop.iter, ast.Call) and _dotted(loop.iter.func) == "enumerate" and \
            isinstance(target, ast.Tuple) and len(target.elts) == 2:
        target = target.elts[1]
    iterable = _unwrapped(loop.iter)
    if _is_zip(iterable) and isinstance(target, (ast.Tuple, ast.List)) and len(target.elts) == len(iterable.args):
        return [element for element, argument in zip(target.elts, iterable.args) if over_data(argument)]
    return [target]


def _layout_in_loops(tree: ast.Module, names: set, loose: bool) -> Optional[samples.SampleLayout]:
    """What a sample holds, as the loops over the data take each batch apart: three or more items
    unpacked (`for image, mask, name in loader`, `x, y, lengths = batch`), or items read by key
    (`batch["image"]`, `batch["mask"]`: a dict). Each item is classed by its name, or its key's
    (verify/samples.py). None where the loops disagree, an item cannot be classed, no item is an
    image, or the batch is unpacked into two names (the usual image and label, or a guess no better)."""
    over_data = _over_data(tree, set(names), loose)
    found: list = []  # in the order of the loops: the first one's order of keys is kept
    loops = [node for node in ast.walk(tree) if isinstance(node, ast.For) and over_data(node.iter)]
    for loop, target in ((loop, target) for loop in loops for target in _batch_targets(loop, over_data)):
        if isinstance(target, (ast.Tuple, ast.List)):
            found.append(_unpacked_layout(target))
            continue
        if not isinstance(target, ast.Name):
            continue
        keys: dict[str, Optional[str]] = {}
        for node in ast.walk(loop):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == target.id \
                    and len(node.targets) == 1 and isinstance(node.targets[0], (ast.Tuple, ast.List)):
                found.append(_unpacked_layout(node.targets[0]))
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                read = _key_read(node.value, target.id)
                if read is not None and keys.get(read) is None:
                    keys[read] = samples.kind_of_name(read) or samples.kind_of_name(node.targets[0].id)
            read = _key_read(node, target.id)
            if read is not None and read not in keys:
                keys[read] = samples.kind_of_name(read)
        if keys:
            found.append(samples.SampleLayout(tuple(keys.values()), tuple(keys)))
    # Loops that read the same keys in another order agree.
    agreeing: dict = {}
    for layout in filter(None, found):
        agreeing.setdefault(tuple(sorted(zip(layout.keys, layout.kinds))) if layout.keys else layout.kinds, layout)
    if len(agreeing) != 1:
        return None
    layout = agreeing.popitem()[1]
    return layout if None not in layout.kinds and samples.IMAGE in layout.kinds else None


def _unpacked_layout(target: ast.expr) -> Optional[samples.SampleLayout]:
    """Three or more names: each item's kind by its name, an item no name classes beside an image a
    label (`for x, u, s in loader`: images, classes, colours)."""
    items = target.elts if isinstance(target, (ast.Tuple, ast.List)) else []
    if len(items) < 3 or not all(isinstance(item, ast.Name) for item in items):
        return None
    kinds = [samples.kind_of_name(item.id) for item in items]
    if samples.IMAGE in kinds:
        kinds = [kind or samples.LABEL for kind in kinds]
    return samples.SampleLayout(tuple(kinds))


def _key_read(node: ast.AST, batch: str) -> Optional[str]:
    """The key of `batch["image"]` (through calls that keep it: `batch["image"].to(device)`), or None."""
    node = _peel(node)
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == batch and \
            isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    return None


_TENSOR_ATTRIBUTES = frozenset({"to", "cuda", "size", "shape", "view", "float", "type", "reshape", "dim", "numel"})


def _skips_short_batches(tree: ast.Module, names: set, loose: bool, batch_name: str = "") -> bool:
    """Does a loop over the data skip or stop at a batch whose size is not the one it asks for
    (`if data.size()[0] != args.batch_size: continue`, `if len(x) < batch_size: break`)? Then its
    stand-in batches must come at that size: smaller ones would never reach the step. A test against
    the top-level setting the loader's batch size reads (`batch_size`) does not count: cutting the
    batches cuts that setting too (verify/batches.py `_shrink_setting`), so they pass it."""
    batches = _batch_names(tree, names, loose)
    for node in ast.walk(tree):
        if not (isinstance(node, ast.If) and isinstance(node.test, ast.Compare) and len(node.test.ops) == 1
                and isinstance(node.test.ops[0], (ast.NotEq, ast.Lt)) and node.body
                and all(isinstance(statement, (ast.Continue, ast.Break)) for statement in node.body)):
            continue
        sides = (node.test.left, node.test.comparators[0])
        for size, against in (sides, sides[::-1]):  # `if x.size(0) != n`, `if n != int(x.size()[0])`
            sized = _sized_batch(size)
            if sized is not None and sized in batches and \
                    not (isinstance(against, ast.Name) and against.id == batch_name):
                return True
    return False


def _sized_batch(size: ast.expr) -> Optional[str]:
    """The name whose batch size an expression reads: `x.size(0)`, `x.size()[0]`, `x.shape[0]`,
    `len(x)`, `int(x.size()[0])`."""
    if isinstance(size, ast.Call) and _dotted(size.func) == "int" and size.args:
        size = size.args[0]
    if isinstance(size, ast.Subscript):  # `x.size()[0]`, `x.shape[0]`
        size = size.value
    if isinstance(size, ast.Call) and isinstance(size.func, ast.Attribute) and size.func.attr == "size":
        size = size.func.value  # `x.size(0)`, `x.size()`
    elif isinstance(size, ast.Attribute) and size.attr == "shape":
        size = size.value
    elif isinstance(size, ast.Call) and _dotted(size.func) == "len" and size.args:
        size = size.args[0]
    return size.id if isinstance(size, ast.Name) else None


def _batch_names(tree: ast.Module, names: set, loose: bool) -> set:
    """The names the code binds a batch of images of the data named `names` to: the first value a loop
    over it unpacks (`for imgs, _ in loader`, `for i, (imgs, _) in enumerate(loader)`), or `next(iter(...))`
    gives, and what those are copied or moved to (`real = imgs.to(device)`, `x = batch[0]`)."""
    iterators = set(names)
    over_data = _over_data(tree, iterators, loose)

    def first_of(target: ast.AST) -> Optional[str]:
        if isinstance(target, (ast.Tuple, ast.List)) and target.elts:
            target = target.elts[0]
        return target.id if isinstance(target, ast.Name) else None

    found: set = set()
    for node in ast.walk(tree):  # `batches = iter(loader)`: its `next(...)` is a batch too
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                (_dotted(node.value.func) or "") == "iter" and node.value.args and over_data(node.value.args[0]):
            iterators |= {target.id for target in node.targets if isinstance(target, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.comprehension)) and over_data(node.iter):
            for target in _batch_targets(node, over_data):
                name = first_of(target)
                if name:
                    found.add(name)
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            call = node.value
            taken = (_dotted(call.func) == "next" and call.args and over_data(call.args[0])) or \
                (isinstance(call.func, ast.Attribute) and call.func.attr in ("next", "__next__")
                 and over_data(call.func.value))
            if taken:
                name = first_of(node.targets[0])
                if name:
                    found.add(name)
    while True:  # what the batch is copied, moved or indexed into
        more = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                value = _peel(node.value)
                if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant) and value.slice.value == 0:
                    value = _peel(value.value)
                if isinstance(value, ast.Name) and value.id in found and node.targets[0].id not in found:
                    more.add(node.targets[0].id)
        if not more:
            return found
        found |= more


def batch_reshapes(tree: ast.Module, names: set, loose: bool) -> list:
    """How the code reshapes a batch of the data named `names` (`imgs.view(-1, 784)` -> ("-1", "784")),
    each dimension as an expression to evaluate (see `_dimension`)."""
    batches = _batch_names(tree, names, loose)
    return reshapes_of(tree, batches) if batches else []


def reshapes_of(tree: ast.AST, names: set) -> list:
    """How the code reshapes the tensors named `names` themselves (`ims.view(-1, 784)` -> ("-1", "784"))."""
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        if isinstance(node.func, ast.Attribute) and node.func.attr in ("view", "reshape", "resize_", "resize"):
            reshaped, dimensions = _peel(node.func.value), list(node.args)
        elif (_dotted(node.func) or "") == "torch.reshape" and len(node.args) == 2:
            reshaped, dimensions = _peel(node.args[0]), [node.args[1]]
        else:
            continue
        if isinstance(reshaped, ast.Subscript) and isinstance(reshaped.slice, ast.Constant) and reshaped.slice.value == 0:
            reshaped = _peel(reshaped.value)  # `batch[0].view(...)`
        if not (isinstance(reshaped, ast.Name) and reshaped.id in names) or node.keywords:
            continue
        if len(dimensions) == 1 and isinstance(dimensions[0], (ast.Tuple, ast.List)):
            dimensions = list(dimensions[0].elts)
        if not dimensions or isinstance(dimensions[0], ast.Starred):
            continue
        found.append(tuple(_dimension(d) for d in dimensions))
    return found


def _dimension(node: ast.expr) -> Optional[str]:
    """A reshape's dimension as an expression to evaluate: "-1" for the batch's own size; "*shape" for
    dimensions unpacked from a tuple (`img.view(img.size(0), *img_shape)`)."""
    if isinstance(node, ast.Starred):
        inner = _plain(node.value)
        return f"*{inner}" if inner is not None else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "size" and \
            len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0:
        return "-1"  # `x.size(0)`
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and node.slice.value == 0 and \
            (isinstance(node.value, ast.Attribute) and node.value.attr == "shape" or
             isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
             and node.value.func.attr == "size"):
        return "-1"  # `x.shape[0]`, `x.size()[0]`
    if isinstance(node, ast.Call) and _dotted(node.func) == "len":
        return "-1"
    return _plain(node)


def _plain(node: ast.expr) -> Optional[str]:
    """The expression's text when it is made only of names, attributes, numbers and arithmetic."""
    nodes = list(ast.walk(node))
    allowed = (ast.Name, ast.Constant, ast.Attribute, ast.BinOp, ast.UnaryOp, ast.Load, ast.operator, ast.unaryop)
    if len(nodes) > MAX_READ_COUNT_NODES or not all(isinstance(sub, allowed) for sub in nodes):
        return None
    if any(isinstance(sub, ast.Constant) and not isinstance(sub.value, (int, float)) for sub in nodes):
        return None
    return ast.unparse(node)


def _counts_read(tree: ast.Module, names: set) -> list:
    """Expressions of the number of samples the code reads the data named `names` with: a slice's end
    (`X[:500]`, `dataset.data[:n]`), a constant index plus one, `len(dataset) // batch_size` (four
    batches' worth), `Subset(dataset, range(n))`, `random_split(dataset, [a, b])` (their sum)."""
    found = []

    def rooted(node: ast.AST) -> bool:
        while isinstance(node, (ast.Attribute, ast.Subscript)):
            node = node.value
        return isinstance(node, ast.Name) and node.id in names

    for node in ast.walk(tree):
        if isinstance(node, ast.Subscript) and rooted(node.value):
            index = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
            if isinstance(index, ast.Slice) and index.upper is not None and \
                    (index.lower is None or isinstance(index.lower, ast.Constant)):
                text = _plain(index.upper)
                if text is not None:
                    found.append(("at least", text))
            elif isinstance(index, ast.Constant) and isinstance(index.value, int) and index.value >= 0:
                found.append(("at least", f"{index.value} + 1"))
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.FloorDiv, ast.Div)) \
                and isinstance(node.left, ast.Call) \
                and _dotted(node.left.func) == "len" and node.left.args and rooted(node.left.args[0]):
            text = _plain(node.right)
            if text is not None:
                found.append(("at least", f"4 * ({text})"))
        elif isinstance(node, ast.Call) and node.args and rooted(node.args[0]) and len(node.args) > 1:
            callee = (_dotted(node.func) or "").rsplit(".", 1)[-1]
            second = node.args[1]
            if callee == "Subset" and isinstance(second, ast.Call) and _dotted(second.func) == "range" \
                    and second.args:
                text = _plain(second.args[-1] if len(second.args) <= 2 else second.args[1])
                if text is not None:
                    found.append(("at least", text))
            elif callee == "random_split" and isinstance(second, (ast.List, ast.Tuple)) and second.elts:
                parts = [_plain(element) for element in second.elts]
                if all(part is not None for part in parts) and not any(
                        isinstance(e, ast.Constant) and isinstance(e.value, float) for e in second.elts):
                    found.append(("exactly", " + ".join(f"({part})" for part in parts)))
    return found


def _mnist_csv(path: Optional[ast.expr]) -> bool:
    """Names the argument an MNIST CSV file, as written (`"sample_data/mnist_train_small.csv"`), or opened
    (`open("...csv", "rb")`)?"""
    if isinstance(path, ast.Call) and _dotted(path.func) == "open" and path.args:
        path = path.args[0]
    return isinstance(path, ast.Constant) and isinstance(path.value, str) and MNIST_CSV.search(path.value) is not None


def _given_a_path(call: ast.Call) -> bool:
    """Is the call given what names files: a string, or a value named for a folder or a file?"""
    for keyword in call.keywords:
        if keyword.arg and PATH_NAME.search(keyword.arg):
            return True
    for value in [*call.args, *(keyword.value for keyword in call.keywords)]:
        if isinstance(value, ast.JoinedStr) or isinstance(value, ast.Constant) and isinstance(value.value, str):
            return True
        if PATH_NAME.search((_dotted(value) or "").rsplit(".", 1)[-1]):
            return True
    return False


def _is_dataset_class(node: ast.ClassDef) -> bool:
    """A dataset class: one extending torch's `Dataset` (or torchvision's `VisionDataset`), or a plain class
    with `__getitem__` and `__len__`, which a DataLoader takes as a map-style dataset all the same."""
    methods = {item.name for item in node.body if isinstance(item, ast.FunctionDef)}
    return any(_is_dataset_base(base) for base in node.bases) or {"__getitem__", "__len__"} <= methods


def _is_dataset_base(base: ast.expr) -> bool:
    name = _dotted(base) or ""
    return name.rsplit(".", 1)[-1] in ("Dataset", "IterableDataset", "VisionDataset")


@functools.lru_cache(maxsize=64)
def _project_function(qualified: Optional[str]) -> Optional[ast.FunctionDef]:
    """The definition of a function imported from a module of the project (`image_folders.folder_pairs`,
    its file found on the import path, not run); None for a package's or the standard library's."""
    module, _, name = (qualified or "").rpartition(".")
    if not module or module.split(".")[0] in THIRD_PARTY_DATA:
        return None
    return samples.project_function(module, name)


def _loaders_returned(qualified: Optional[str]) -> int:
    """How many loaders or datasets a data function of the project returns as one tuple (`return
    trainloader, valloader, testloader`, each made by a DataLoader or dataset class); 0 otherwise."""
    function = _project_function(qualified)
    if function is None:
        return 0
    made = {target.id for node in ast.walk(function) if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            and DATA_CLASS.search((_dotted(node.value.func) or "").rsplit(".", 1)[-1])
            for target in node.targets if isinstance(target, ast.Name)}
    counts = {len(node.value.elts) if isinstance(node.value, ast.Tuple) and all(
        isinstance(element, ast.Name) and element.id in made for element in node.value.elts) else 0
        for node in ast.walk(function) if isinstance(node, ast.Return) and node.value is not None}
    return counts.pop() if len(counts) == 1 and min(counts) > 1 else 0


def _returns_a_dataset(qualified: Optional[str]) -> bool:
    """Does every return of a data function of the project give a dataset (`return datasets.MNIST(...)`,
    `return CustomDataset(...)`, or a name bound to one), not a loader?"""
    function = _project_function(qualified)
    if function is None:
        return False
    bound = {node.targets[0].id: node.value for node in ast.walk(function) if isinstance(node, ast.Assign)
             and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)}

    def a_dataset(value: ast.expr) -> bool:
        if isinstance(value, ast.Name):
            value = bound.get(value.id, value)
        called = (_dotted(value.func) or "").rsplit(".", 1)[-1] if isinstance(value, ast.Call) else ""
        return bool(known_dataset(called) or called.endswith(("Dataset", "Folder")))

    returned = [node.value for node in ast.walk(function) if isinstance(node, ast.Return) and node.value is not None]
    return bool(returned) and all(map(a_dataset, returned))


def _project_function_reads_files(qualified: Optional[str]) -> bool:
    """Does a function imported from a module of the project read files or the network?"""
    function = _project_function(qualified)
    return function is not None and _may_read_files(function)


def _computes_its_samples(qualified: Optional[str]) -> bool:
    """Is the callable a class or function of a module of the project whose code reads no file nor the
    network (found, not run)? Unknown ones (an installed package's, one not found) may read."""
    module, _, name = (qualified or "").rpartition(".")
    if not module or module.split(".")[0] in THIRD_PARTY_DATA:
        return False
    definition = samples.project_definition(module, name)
    return definition is not None and not _may_read_files(definition)


def _imported_dataset_class(qualified: Optional[str]) -> bool:
    """Is the callable a dataset class (`__getitem__` and `__len__`, or a Dataset base) of a module of the
    project (found, not run)?"""
    module, _, name = (qualified or "").rpartition(".")
    if not module or module.split(".")[0] in THIRD_PARTY_DATA:
        return False
    definition = samples.project_definition(module, name)
    return isinstance(definition, ast.ClassDef) and _is_dataset_class(definition)


def _project_loader_from_files(qualified: Optional[str]) -> bool:
    """A function of the project not named for data (`load_profiles()`) that reads files and returns a
    DataLoader or a dataset of them: data, as one named so is. A `load_config()` makes neither, and an
    `inception_score(data)` that batches its images through a DataLoader returns scores."""
    function = _project_function(qualified)
    return function is not None and _may_read_files(function) and _returns_what_it_batches(function)


def _returns_what_it_batches(function: ast.FunctionDef) -> bool:
    """Does the function return a DataLoader or dataset it makes (`return DataLoader(...)`, or a name it
    bound to one, `loaders["train"] = DataLoader(...)` included)?"""
    def makes_data(node: ast.AST) -> bool:
        return isinstance(node, ast.Call) and bool(DATA_CLASS.search((_dotted(node.func) or "").rsplit(".", 1)[-1]))

    made = {name.id for node in ast.walk(function) if isinstance(node, ast.Assign)
            and any(makes_data(part) for part in ast.walk(node.value))
            for target in node.targets for name in ast.walk(target) if isinstance(name, ast.Name)}
    return any(makes_data(part) or isinstance(part, ast.Name) and part.id in made
               for node in ast.walk(function) if isinstance(node, ast.Return) and node.value is not None
               for part in ast.walk(node.value))


def _serves_batches_by_next_batch(qualified: Optional[str]) -> bool:
    """Is the callable a data function of a module of the project whose data class hands out batches
    by `next_batch(n)`, as TensorFlow's MNIST reader does (a course's `cifar10_utils.get_cifar10()`,
    whose `['train'].next_batch(batch_size)` gives images and labels)?"""
    module, _, _ = (qualified or "").rpartition(".")
    if _project_function(qualified) is None:
        return False
    tree = samples.parsed_file(samples.module_file(module))
    return tree is not None and any(isinstance(node, ast.ClassDef) and any(
        isinstance(method, ast.FunctionDef) and method.name == "next_batch" for method in node.body)
        for node in tree.body)


def _one_hot(call: ast.Call, function: Optional[ast.FunctionDef]) -> bool:
    """Does a reader of splits give one-hot labels: the call's `one_hot=`, else the function's default?"""
    given = _keyword(call, "one_hot")
    if given is None and function is not None:
        defaults = dict(zip([a.arg for a in function.args.args][::-1], function.args.defaults[::-1]))
        given = defaults.get("one_hot")
    return isinstance(given, ast.Constant) and bool(given.value)


def _may_read_files(definition: ast.AST) -> bool:
    """Might the dataset class (or function) read files or the network? It takes a parameter named for a
    path (`root`, `data_dir`), or calls a reader (`open`, `Image.open`, `np.load`, `os.listdir`, a dataset
    of torchvision, a data function). A class that only computes its samples (`self.x = torch.arange(-1,
    1, 0.1)`, a course's toy set) or keeps what it is given (`MyDataset(X, y)`) holds them in memory: it
    runs as written."""
    for node in ast.walk(definition):
        if isinstance(node, ast.arg) and node.arg != "self" and PATH_NAME.search(node.arg):
            return True
        if isinstance(node, ast.Call):
            name = (_dotted(node.func) or "").rsplit(".", 1)[-1]
            if name in FILE_READING_CALLS or known_dataset(name) or DATA_FUNCTION.match(name):
                return True
    return False


def _loader_datasets(tree: ast.Module, imports: dict) -> list[ast.expr]:
    """What each DataLoader of the file is given as its dataset."""
    return _loader_arguments(tree, imports, 0, "dataset")


def _loader_batches(tree: ast.Module, imports: dict) -> list[ast.expr]:
    """What each DataLoader of the file is given as its batch size."""
    return _loader_arguments(tree, imports, 1, "batch_size")


def _loader_arguments(tree: ast.Module, imports: dict, position: int, keyword: str) -> list[ast.expr]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (_qualified(node.func, imports) or "").rsplit(".", 1)[-1] == "DataLoader":
            argument = _argument(node, position, keyword)
            found += [argument] if argument is not None else []
    return found


def _carried_from(value: ast.expr, imports: dict, holders: frozenset = frozenset()) -> set[str]:
    """The names whose tensor (or array) `value` carries on: the receiver of a method
    (`data.to(device)`, `x.float()`), what a conversion or a TensorDataset is given first
    (`torch.Tensor(data)`, `np.moveaxis(data, 3, 1)`, `TensorDataset(x, y)`; also a dataset class of
    the file among `holders`, one that holds what it is given: `dataset(Data["Xtr"], Data["y"])`),
    every tensor a joining function is given (`torch.cat((a, b))`), the operands of arithmetic
    (`data / 255`), a slice of it (`data[:1000]`)."""
    if isinstance(value, ast.Name):
        return {value.id}
    if isinstance(value, ast.Subscript):
        return _carried_from(value.value, imports, holders)
    if isinstance(value, ast.BinOp):
        return _carried_from(value.left, imports, holders) | _carried_from(value.right, imports, holders)
    if not isinstance(value, ast.Call):
        return set()
    qualified = _qualified(value.func, imports) or ""
    if qualified in JOINING_FUNCTIONS:
        return {name.id for argument in value.args for name in ast.walk(argument) if isinstance(name, ast.Name)}
    if qualified in TENSOR_CONVERSIONS or _pairs_samples_with_targets(value, qualified, holders):
        return _carried_from(value.args[0], imports, holders) if value.args else set()
    if isinstance(value.func, ast.Attribute) and (_dotted(value.func.value) or "").split(".")[0] not in imports:
        return _carried_from(value.func.value, imports, holders)  # a method of the tensor itself, not of a module
    return set()


def _pairs_samples_with_targets(call: ast.Call, qualified: str, holders: frozenset) -> bool:
    """`TensorDataset(x, y)`, or a dataset class of the file that holds what it is given: samples first."""
    return qualified.rsplit(".", 1)[-1] == "TensorDataset" or isinstance(call.func, ast.Name) and call.func.id in holders


INTEGER_DTYPES = frozenset({"long", "int64", "int32", "int"})
# torch.nn.functional's losses, called on (input, target).
FUNCTIONAL_LOSSES = frozenset({"cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
                               "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div"})


def _fed_whole_to_networks(tree: ast.Module, imports: dict) -> tuple[set[str], set[str]]:
    """(the names the code gives a network of its own whole, the names it gives a loss as the target):
    full-batch training on arrays read from files (`net = nn.Sequential(nn.Linear(300, 4))`, then
    `loss_fn(net(X_train), y_train)`, no DataLoader). A network is a name bound to a `torch.nn` layer or
    to a class of the file; a loss, one bound to a `torch.nn` loss, a functional loss, or a function of
    the file named for one."""
    module_classes = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
                      and any("Module" in (_dotted(base) or "") for base in node.bases)}
    networks: set[str] = set()
    # A function of the file named for a loss (`def loss_fn(pred, label): return nn.CrossEntropyLoss()(...)`).
    losses: set[str] = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)
                        and LOSS_NAME.search(node.name)}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)):
            continue
        qualified = _qualified(node.value.func, imports) or ""
        last = qualified.rsplit(".", 1)[-1]
        made = _dotted(node.value.func) or ""
        names = {target.id for target in node.targets if isinstance(target, ast.Name)}
        if qualified.startswith("torch.nn.") and last.endswith("Loss"):
            losses |= names
        elif qualified.startswith("torch.nn.") and last[:1].isupper() or made in module_classes:
            networks |= names
    samples: set[str] = set()
    targets: set[str] = set()
    for call in (node for node in ast.walk(tree) if isinstance(node, ast.Call)):
        callee = _dotted(call.func) or ""
        functional = (_qualified(call.func, imports) or "").startswith("torch.nn.functional.") \
            and callee.rsplit(".", 1)[-1] in FUNCTIONAL_LOSSES
        if callee.endswith(".forward"):
            callee = callee[:-len(".forward")]  # `net.forward(x_train)`, spelled out
        if callee in networks and call.args and isinstance(call.args[0], ast.Name):
            samples.add(call.args[0].id)
        elif (callee in losses or functional) and len(call.args) > 1 and isinstance(call.args[1], ast.Name):
            targets.add(call.args[1].id)
    return samples, targets


def _made_integers(tree: ast.Module, imports: dict) -> set[str]:
    """The names whose values the code makes a tensor of integers of (`torch.LongTensor(labels)`,
    `labels.long()`, `torch.tensor(labels, dtype=torch.long)`): class indices, not samples."""
    found: set[str] = set()
    for call in (node for node in ast.walk(tree) if isinstance(node, ast.Call)):
        qualified = _qualified(call.func, imports) or ""
        dtype = _keyword(call, "dtype")
        integer_dtype = dtype is not None and (_dotted(dtype) or "").rsplit(".", 1)[-1] in INTEGER_DTYPES
        if qualified in ("torch.LongTensor", "torch.IntTensor") or integer_dtype and qualified in TENSOR_CONVERSIONS:
            found |= _carried_from(call.args[0], imports) if call.args else set()
        elif isinstance(call.func, ast.Attribute) and call.func.attr == "long" and not call.args:
            found |= _carried_from(call.func.value, imports)
    return found


def _sliced_batches(tree: ast.Module) -> dict[str, int]:
    """The names a loop takes batches of by slicing, each with the batch size, a whole number the
    module's top level binds once (`X[i:i + BATCH_SIZE]`, `X[perm[i * bs:(i + 1) * bs]]`). Both names of
    `X[perm[a:b]]` are taken: the data may be either (`onehot[labels[a:b]]`), and only a read of a file
    carried to one of them makes it data."""
    constants = top_level_whole_numbers(tree)
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)):
            continue
        index = node.slice.slice if isinstance(node.slice, ast.Subscript) else node.slice  # `X[perm[a:b]]`
        if isinstance(index, ast.Slice) and isinstance(index.upper, ast.BinOp):
            sizes = [constants[name.id] for name in ast.walk(index.upper)
                     if isinstance(name, ast.Name) and name.id in constants]
            if len(sizes) == 1 and sizes[0] > 1:
                found[node.value.id] = max(found.get(node.value.id, 0), sizes[0])
    return found


def _beneath_conversions(value: ast.expr, imports: dict) -> ast.expr:
    """The call whose result `value` converts, with its methods or a conversion
    (`np.load(path).astype(np.float32)`, `torch.from_numpy(np.load(path)).float()`,
    `np.array(list(...))`: the `np.load` call), or `value` itself."""
    while isinstance(value, ast.Call):
        if isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Call):
            value = value.func.value
        elif (_qualified(value.func, imports) in TENSOR_CONVERSIONS
              or isinstance(value.func, ast.Name) and value.func.id in ("list", "tuple")) and value.args:
            value = value.args[0]  # (`np.array(list(joblib.load(path)))`: the rows the file holds)
        else:
            break
    return value


def _reads_each_item(value: ast.expr) -> bool:
    """A comprehension whose every item reads a file (`[np.array(Image.open(p)) for p in paths]`)."""
    return isinstance(value, (ast.ListComp, ast.GeneratorExp)) and _may_read_files(value.elt)


def _targets_given(value: ast.expr, imports: dict, holders: frozenset = frozenset()) -> set[str]:
    """The names whose tensors a TensorDataset (or a dataset class among `holders`) pairs with its
    samples as targets (`TensorDataset(x, y)`: what `y` carries)."""
    if not (isinstance(value, ast.Call) and _pairs_samples_with_targets(value, _qualified(value.func, imports) or "",
                                                                         holders)):
        return set()
    # A TensorDataset's every later tensor is a target; a dataset class's third argument is a transform.
    tensor_dataset = (_qualified(value.func, imports) or "").rsplit(".", 1)[-1] == "TensorDataset"
    given = value.args[1:] if tensor_dataset else value.args[1:2]
    return {name for argument in given for name in _carried_from(argument, imports, holders)}


def _read_as_archive(call: ast.Call, targets: list[ast.expr], tree: ast.Module) -> bool:
    """Does the code read what `np.load` returned as an `.npz` archive: a path that names one, or the
    name it is bound to taken apart by key (`data["x_train"]`) or through its `.files`?"""
    path = _argument(call, 0, "file")
    if path is not None and any(isinstance(node, ast.Constant) and isinstance(node.value, str) and ".npz" in node.value
                                for node in ast.walk(path)):
        return True
    names = {target.id for target in targets if isinstance(target, ast.Name)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "files" and isinstance(node.value, ast.Name) \
                and node.value.id in names:
            return True
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id in names \
                and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            return True
    return False


@dataclass(frozen=True)
class LoadedRead:
    """A read of a file whose value a DataLoader of the file iterates (`DataSites._reads_carried_to_loaders`)."""

    as_array: bool       # what it reads is a NumPy array
    channels_last: bool  # the samples' channels come last in the file
    targets: bool        # it holds the targets a TensorDataset pairs with the samples, not the samples
    archive: bool        # it is an `.npz` archive the code takes the data out of
    target_keys: tuple = ()  # of an archive, the keys of the entries that hold targets (DataSite's)
    batch_name: str = ""  # the plain name the loaders that iterate it are given as their batch size
    sliced_batch: int = 0  # the batch size a loop slices it by, where one does (DataSite's `sliced_batch`)
    parts: tuple = ()    # unpacked into names: for each, whether it holds targets (DataSite's `parts`)
    one_sample: bool = False  # read by a function of the project that returns a batch of one (DataSite's)


def _returns_one_sample(function: ast.AST) -> bool:
    """Does the function return a batch of one sample, and nothing else (`return image.unsqueeze(0)`,
    `return image[None]`: a style-transfer notebook's `load_image`)?"""
    returned = [node.value for node in ast.walk(function) if isinstance(node, ast.Return)]
    assigned = {}  # the last value the function assigns each plain name (`image = ....unsqueeze(0)`, `return image`)
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.lineno >= assigned.get(node.targets[0].id, (0, None))[0]:
                assigned[node.targets[0].id] = (node.lineno, node.value)

    def one(value) -> bool:
        if isinstance(value, ast.Name) and value.id in assigned:
            value = assigned[value.id][1]
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "to":
            value = value.func.value  # `image.unsqueeze(0).to(device)`
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "unsqueeze":
            return len(value.args) == 1 and isinstance(value.args[0], ast.Constant) and value.args[0].value == 0
        if isinstance(value, ast.Subscript):
            first = value.slice.elts[0] if isinstance(value.slice, ast.Tuple) and value.slice.elts else value.slice
            return isinstance(first, ast.Constant) and first.value is None
        return False

    return bool(returned) and all(one(value) for value in returned)


def _unpacked_names(bound: list) -> list[str]:
    """The names one assignment unpacks a value into (`x_train, y_train = ...`); [] for any other target."""
    if len(bound) == 1 and isinstance(bound[0], (ast.Tuple, ast.List)) and len(bound[0].elts) > 1 \
            and all(isinstance(element, ast.Name) for element in bound[0].elts):
        return [element.id for element in bound[0].elts]
    return []


def _mentions_torch(function: ast.FunctionDef) -> bool:
    """Does a data function name torch anywhere (so that it may return tensors, not NumPy arrays)?"""
    return any(isinstance(node, ast.Name) and node.id == "torch" for node in ast.walk(function))


def _moves_channels_first(value: ast.expr, imports: dict) -> bool:
    """Does the value move the last axis of images to the second (`np.moveaxis(x, 3, 1)`,
    `x.permute(0, 3, 1, 2)`, `np.transpose(x, (0, 3, 1, 2))`): the file holds them channels last?"""
    for call in (node for node in ast.walk(value) if isinstance(node, ast.Call)):
        name = (_qualified(call.func, imports) or _dotted(call.func) or "").rsplit(".", 1)[-1]
        numbers = [node.value for node in ast.walk(call) if isinstance(node, ast.Constant)
                   and isinstance(node.value, int)]
        if name in ("moveaxis", "rollaxis") and numbers[-2:] in ([3, 1], [-1, 1]) or \
                name in ("permute", "transpose") and numbers[-4:] == [0, 3, 1, 2]:
            return True
    return False


class _SiteFinder:
    def __init__(self, tree: ast.Module, imports: dict, defined: set, dataset_classes: dict, classes: dict) -> None:
        self.imports = imports
        self.classes = classes
        self.defined = defined
        self.dataset_classes = dataset_classes
        self.assignments = _assignments(tree)
        # The file's dataset classes that hold what they are given (`dataset(X, Y, transform)`), as a
        # TensorDataset does: what a loader over one iterates is what it was given.
        self.holders = frozenset(name for name, node in classes.items()
                                 if _is_dataset_class(node) and not _may_read_files(node))
        self.functions = {node.name: node for node in tree.body
                          if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.read_for_loaders = self._reads_loaded(tree, imports)
        self.carried_to_loaders = self._reads_carried_to_loaders(tree, imports)
        self.unpacked_reads = {id(value) for targets, value in self.assignments
                               if isinstance(value, ast.Call) and _qualified(value.func, imports) in FILE_READERS
                               and _unpacked_names(targets)}
        self.loaded_classes = self._classes_loaded(tree, imports)
        self.names_a_full_test_split = any(isinstance(node, ast.Constant) and node.value == FULL_TEST_ROWS
                                           for node in ast.walk(tree))
        self.sites: list = []
        self.site_of_name: dict[str, DataSite] = {}
        self.derived: set[str] = set()
        # The file's functions that make data (`def get_dataset(): return datasets.MNIST(...)`): what
        # they return is data too (their bodies are rewritten like the rest of the file).
        self.data_functions: set[str] = set()
        while True:
            more = {name for name, node in self.functions.items() if name not in self.data_functions
                    and any(isinstance(n, ast.Call) and self._kind(n) in FILE_KINDS for n in ast.walk(node))}
            if not more:
                break
            self.data_functions |= more
        # Names bound from data (`train_set = datasets.MNIST(...)`, `a, b = random_split(train_set, ...)`),
        # to a fixed point: a DataLoader over one of them is a loader of data.
        while True:
            before = len(self.derived)
            for targets, value in self.assignments:
                if any(isinstance(n, ast.Call) and (self._kind(n) in FILE_KINDS or self._calls_data_function(n))
                       for n in ast.walk(value)) or \
                        any(isinstance(n, ast.Name) and n.id in self.derived for n in ast.walk(value)):
                    self.derived |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            if len(self.derived) == before:
                break
        self._visit(tree, None)

    def _reads_loaded(self, tree: ast.Module, imports: dict) -> set[int]:
        """The file readers (FILE_READERS) whose value a DataLoader of the file iterates, directly or
        through the name it is bound to: `trainset = pickle.load(...)`, `DataLoader(trainset, ...)`."""
        loaded = {name.id for name in _loader_datasets(tree, imports) if isinstance(name, ast.Name)}
        return {id(value) for targets, value in self.assignments
                if isinstance(value, ast.Call) and _qualified(value.func, imports) in FILE_READERS
                and any(isinstance(t, ast.Name) and t.id in loaded for t in targets)}

    def _reads_carried_to_loaders(self, tree: ast.Module, imports: dict) -> dict[int, LoadedRead]:
        """Reads of a file whose value a DataLoader of the file iterates once the code made a tensor
        of it: converted, moved, scaled, joined with others, a tensor of a TensorDataset
        (`data = np.moveaxis(np.load(path), 3, 1)`, `data = torch.Tensor(data)`,
        `DataLoader(TensorDataset(data, labels))`; `images = read_img.get_file(root)`, a function of
        the project that reads files, then `images.to(device)`): samples, or the targets paired with
        them (`labels` there), then. Each such call by id, with how it is read."""
        datasets = _loader_datasets(tree, imports)
        loaded, targets, channels_last = self._carried_back(
            {name for dataset in datasets for name in _carried_from(dataset, imports, self.holders)},
            {name for dataset in datasets for name in _targets_given(dataset, imports, self.holders)}, imports)
        # Each name a loop slices into batches, with the names whose values reach it and its batch size.
        sliced = [(self._carried_back({name}, set(), imports), size) for name, size in _sliced_batches(tree).items()]
        # What the code gives a network and its loss whole (full-batch training), as sliced batches are:
        # an MNIST CSV file's rows still stand in as the file holds them.
        fed, fed_targets, fed_moved = self._carried_back(*_fed_whole_to_networks(tree, imports), imports)
        # What the code makes a torch tensor of (`test_data = torch.tensor(np.load(path))`, or in two steps):
        # data too, samples of a stand-in shape, where a value whose use stops the run would end it there.
        converted, _, converted_moved = self._carried_back(self._made_tensors(tree, imports), set(), imports)
        channels_last = channels_last or converted_moved
        reached = loaded.union(fed, converted, *(names for (names, _, _), _ in sliced))
        loaders_targets, targets = targets, targets | fed_targets
        channels_last = channels_last or fed_moved or any(moved for (_, _, moved), _ in sliced)
        integers = _made_integers(tree, imports)
        target_keys = self._archive_target_keys(datasets, imports)
        batch_names = {batch.id for batch in _loader_batches(tree, imports) if isinstance(batch, ast.Name)}
        batch_name = next(iter(batch_names)) if len(batch_names) == 1 else ""
        found: dict[int, LoadedRead] = {}
        for bound, value in self.assignments:
            names = {target.id for target in bound if isinstance(target, ast.Name)}
            written = value
            value = _beneath_conversions(value, imports)
            if names & reached and isinstance(written, ast.Call) and _reads_each_item(value):
                # `images = np.array([np.array(Image.open(p).resize((64, 64))) for p in files])`: the
                # samples, read one file at a time, then converted
                found[id(written)] = LoadedRead(True, channels_last, targets=False, archive=False,
                                                batch_name=batch_name)
                continue
            parts = _unpacked_names(bound)
            if parts and set(parts) <= reached | targets and isinstance(value, ast.Call):
                reader = self._project_reader(value, imports)
                if reader is not None:
                    found[id(value)] = LoadedRead(not _mentions_torch(reader), channels_last, targets=False,
                                                  archive=False, batch_name=batch_name,
                                                  parts=tuple(name not in reached or name in integers for name in parts))
                    continue
            if names & (reached | targets) and isinstance(value, ast.Call) and self._reads_a_file(value, imports):
                qualified = _qualified(value.func, imports)
                if _returns_a_dataset(qualified):
                    continue  # a dataset, not a tensor of samples (DataSite.returns_dataset)
                if not names & (loaded | loaders_targets) and qualified in TEXT_ARRAY_READERS \
                        and _mnist_csv(_argument(value, 0, "fname")):
                    continue  # an MNIST CSV file sliced into batches: its rows are sized for them (verify/arrays.py)
                as_array = qualified in ARRAY_READERS | FILE_READERS - {"torch.load"}
                archive = qualified == "numpy.load" and _read_as_archive(value, bound, tree)
                keys = tuple(sorted(key for name in names for key in target_keys.get(name, ()))) if archive else ()
                labels = not names & reached or bool(names & integers)
                batches = [size for (carried, _, _), size in sliced if names & carried]
                reader = self._project_reader(value, imports)
                found[id(value)] = LoadedRead(as_array, channels_last, targets=labels, archive=archive,
                                              target_keys=keys,
                                              batch_name=batch_name, sliced_batch=max(batches, default=0),
                                              one_sample=reader is not None and _returns_one_sample(reader))
        return found

    def _archive_target_keys(self, datasets: list, imports: dict) -> dict[str, set]:
        """The keys under which the code takes a loader's targets out of an archive it read
        (`dataset(Data["Xtr"], Data["y"])`, directly or through a name bound to `Data["y"]`): by the
        archive's name."""
        calls = [node for dataset in datasets for node in [dataset, *(value for name in _carried_from(
            dataset, imports, self.holders) for value in self._values_of(name))] if isinstance(node, ast.Call)]
        found: dict[str, set] = {}
        for call in calls:
            if not _pairs_samples_with_targets(call, _qualified(call.func, imports) or "", self.holders):
                continue
            for given in call.args[1:2]:
                for value in [given, *(self._values_of(given.id) if isinstance(given, ast.Name) else ())]:
                    if isinstance(value, ast.Subscript) and isinstance(value.value, ast.Name) \
                            and isinstance(value.slice, ast.Constant) and isinstance(value.slice.value, str):
                        found.setdefault(value.value.id, set()).add(value.slice.value)
        return found

    def _made_tensors(self, tree: ast.Module, imports: dict) -> set:
        """The names the code binds to a torch tensor made of a NumPy value (`x = torch.tensor(x)`,
        `x = torch.from_numpy(np.load(path)).float()`) and reads as samples: indexed (`x[i]`), or
        its number of rows read (`x.shape[0]`, `len(x)`). (Not a loss's class weights, whose values
        a stand-in would only make up.)"""
        as_samples = {node.value.id for node in ast.walk(tree)
                      if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name)}
        as_samples |= {node.value.id for node in ast.walk(tree) if isinstance(node, ast.Attribute)
                       and node.attr in ("shape", "size") and isinstance(node.value, ast.Name)}
        as_samples |= {node.args[0].id for node in ast.walk(tree) if isinstance(node, ast.Call)
                       and isinstance(node.func, ast.Name) and node.func.id == "len" and len(node.args) == 1
                       and isinstance(node.args[0], ast.Name)}
        made = set()
        for bound, value in self.assignments:
            while isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) \
                    and isinstance(value.func.value, ast.Call):
                value = value.func.value  # `.float()`, `.permute(0, 3, 1, 2)` of the tensor made
            if isinstance(value, ast.Call) and value.args and \
                    (_qualified(value.func, imports) or "").startswith("torch.") and \
                    _qualified(value.func, imports) in TENSOR_CONVERSIONS:
                made |= {target.id for target in bound if isinstance(target, ast.Name) and target.id in as_samples}
        return made

    def _carried_back(self, reached: set, targets: set, imports: dict) -> tuple[set, set, bool]:
        """The names whose values the data names `reached` (and the targets names `targets`) carry on,
        back through the assignments to a fixed point; and whether a step on the way moves images'
        channels first."""
        channels_last = False
        changed = True
        while changed:
            changed = False
            for bound, value in self.assignments:
                names = {target.id for target in bound if isinstance(target, ast.Name)}
                if names & reached:
                    carried = _carried_from(value, imports, self.holders)
                    given = _targets_given(value, imports, self.holders)
                    channels_last = channels_last or (bool(carried) and _moves_channels_first(value, imports))
                    changed = changed or bool(carried - reached) or bool(given - targets)
                    reached |= carried
                    targets |= given
                if names & targets:
                    carried = _carried_from(value, imports, self.holders)
                    changed = changed or bool(carried - targets)
                    targets |= carried
        return reached, targets, channels_last

    def _project_reader(self, call: ast.Call, imports: dict) -> Optional[ast.FunctionDef]:
        """The function of the file or of the project that the call runs, where it reads files (a
        package's reader is not one: what it returns is known, verify/arrays.py makes it)."""
        if isinstance(call.func, ast.Name) and call.func.id in self.functions:
            function = self.functions[call.func.id]
        else:
            qualified = _qualified(call.func, imports)
            function = _project_function(qualified) if qualified and "." in qualified else None
        return function if function is not None and _may_read_files(function) else None

    def _reads_a_file(self, call: ast.Call, imports: dict) -> bool:
        """A reader of a file's data (`np.load`, `torch.load`), or a function that reads files: the
        file's own or one of the project (`read_img.get_file(root)`)."""
        qualified = _qualified(call.func, imports)
        if qualified in FILE_READERS or qualified in ARRAY_READERS:
            return True
        return self._project_reader(call, imports) is not None

    def _classes_loaded(self, tree: ast.Module, imports: dict) -> set[int]:
        """Calls of a class imported from the project that a DataLoader of the file iterates, given a
        path to read (`DataLoader(PairedImages("datasets/facades"))`, `DataLoader(train_set)` after
        `train_set = Pairs(opt.dataroot)`): a dataset of files, whatever its name."""
        datasets = _loader_datasets(tree, imports)
        calls = [node for node in datasets if isinstance(node, ast.Call)]
        for dataset in datasets:
            if isinstance(dataset, ast.Name):
                calls += [value for targets, value in self.assignments if isinstance(value, ast.Call)
                          and any(isinstance(t, ast.Name) and t.id == dataset.id for t in targets)]
        found = set()
        for call in calls:
            qualified = _qualified(call.func, imports) or ""
            module, _, name = qualified.rpartition(".")
            if module and module.split(".")[0] not in THIRD_PARTY_DATA and name[:1].isupper() \
                    and name not in IN_MEMORY and (_dotted(call.func) or "").split(".")[0] in imports \
                    and (_given_a_path(call) or self._given_listed_files(call, imports)):
                found.add(id(call))
        return found

    def _given_listed_files(self, call: ast.Call, imports: dict) -> bool:
        """Is the call given a name bound from a listing of files (`train_a = sorted(glob(...))`, or
        `train_a, train_b = folder_pairs("train")`, a function of the project that reads them), directly
        or through a few names (`train = found[:100]`)?"""
        names = {value.id for value in [*call.args, *(keyword.value for keyword in call.keywords)]
                 if isinstance(value, ast.Name)}
        followed: set[str] = set()
        while names - followed and len(followed) < MAX_LOOKED:
            name = min(names - followed)
            followed.add(name)
            for value in self._values_of(name):
                if _lists_files(value, imports):
                    return True
                names |= {sub.id for sub in ast.walk(value) if isinstance(sub, ast.Name)}
        return False

    def _calls_data_function(self, call: ast.Call) -> bool:
        return isinstance(call.func, ast.Name) and call.func.id in self.data_functions

    def _visit(self, node: ast.AST, statement: Optional[ast.stmt]) -> None:
        if isinstance(node, ast.stmt):
            statement = node
        if isinstance(node, ast.Call):
            kind = self._kind(node)
            if kind:
                self._add(node, kind, statement)
                if kind != "split":
                    return  # its arguments (a transform, the dataset of a loader) never run
        for child in ast.iter_child_nodes(node):
            self._visit(child, statement)

    def _kind(self, call: ast.Call) -> Optional[str]:
        qualified = _qualified(call.func, self.imports)
        if qualified is None:
            return None
        last = qualified.rsplit(".", 1)[-1]
        if last in IN_MEMORY:
            return None
        if qualified in tables.TABLE_READERS:
            return "table"
        if id(call) in self.read_for_loaders or id(call) in self.loaded_classes:
            return "dataset"
        if id(call) in self.carried_to_loaders:
            return "data-tensor"
        if id(call) in self.unpacked_reads:
            return "unpacked"
        if qualified in TEXT_ARRAY_READERS and _mnist_csv(_argument(call, 0, "fname")):
            return "mnist-csv"
        if qualified in ARRAY_READERS:
            return "unread-array"
        if qualified.startswith(DATA_PACKAGES):
            return "dataset"
        if qualified.startswith("sklearn.") and last in SKLEARN_ARRAYS:
            return "arrays"
        if qualified.startswith("sklearn.") and (last == "train_test_split" or last in SKLEARN_PREPROCESSORS) \
                or qualified in SKLEARN_HELPERS:
            return "split"
        if last == "read_data_sets":
            return "tf-mnist"
        if KERAS_LOADER.match(qualified):
            return "keras"
        if qualified in LOADER_CLASSES or (last == "DataLoader" and last not in self.defined):
            dataset = _argument(call, 0, "dataset")
            if dataset is None:
                return None
            data = any(isinstance(n, ast.Call) and (self._kind(n) in FILE_KINDS or self._calls_data_function(n))
                       for n in ast.walk(dataset)) or \
                any(isinstance(n, ast.Name) and n.id in self.derived for n in ast.walk(dataset))
            return "loader" if data else None
        if isinstance(call.func, ast.Name) and call.func.id in self.dataset_classes:
            return "dataset"
        if isinstance(call.func, ast.Name) and call.func.id in self.classes and self._given_unread_arrays(call) \
                and _is_dataset_class(self.classes[call.func.id]):
            return "dataset"  # `CustomTensorDataset(np.load("imgs.npy"))`: a dataset of data that is not read
        if qualified.startswith("torch.") or last in self.defined:
            return None  # torch's own callables, and the file's code (rewritten inside instead)
        head = (_dotted(call.func) or "").split(".", 1)[0]
        if head not in self.imports:
            return None  # a variable, a builtin, `self.load_data()`: not an imported data maker
        if known_dataset(last):
            return "dataset"
        if DATA_FUNCTION.match(last) and _serves_batches_by_next_batch(qualified):
            return "splits"
        if DATA_CLASS.search(last) or DATA_FUNCTION.match(last) or _project_loader_from_files(qualified) \
                or _imported_dataset_class(qualified):
            # A dataset class of the project is data whatever its name (`AnimeData(args.tags, args.imgs)`).
            # One, or a data function of a sibling module, that computes its samples (curves, a toy
            # distribution) reads nothing: it runs as written, as the file's own such classes do.
            if _computes_its_samples(qualified):
                return None
            # A dataset class of the project (`GetDataset()`, then `train_test_split(dataset)` or a
            # DataLoader over it) makes one dataset, indexed and sized as a dataset is.
            return "dataset" if _imported_dataset_class(qualified) else "data"
        return None

    def _add(self, call: ast.Call, kind: str, statement: Optional[ast.stmt]) -> None:
        callee = _dotted(call.func) or ast.unparse(call.func)
        qualified = _qualified(call.func, self.imports) or callee
        target, unpack = _target_of(call, statement)
        if kind == "data-tensor" and isinstance(statement, ast.Assign) \
                and _beneath_conversions(statement.value, self.imports) is call:
            target, unpack = _target_of(statement.value, statement)  # `x = np.load(path).astype(np.float32)`
        if kind == "data" and not unpack:
            # `data = bmnist()[:2]`, `loaders = get_loaders()`: as many loaders as the function returns.
            unpack = _loaders_returned(qualified)
        known, channels, size, over = self._hints(call, qualified)
        if size is None and known is None and kind in ("loader", "dataset"):
            size = _size_given_by_name(call)  # (a data function's own code says more: made_in_module)
        batch = None
        if kind == "loader":
            batch = _argument(call, 1, "batch_size")
        elif kind == "data":
            # `get_loader(..., batch_size=64)`, or positionally `train_loader("mnist", root, args.batch_size)`.
            batch = _keyword(call, "batch_size") or _keyword(call, "bs") or next(
                (argument for argument in call.args if (_dotted(argument) or "").rsplit(".", 1)[-1] == "batch_size"),
                None)
        one_hot = kind in ("tf-mnist", "splits") and _one_hot(call, _project_function(qualified))
        if kind == "tf-mnist":
            known = "MNIST"
        if kind == "splits":
            named = qualified.rsplit(".", 1)[-1].lower()  # `get_cifar10`: the longest name it holds
            known = max((name for lower, name in KNOWN_BY_LOWER_NAME.items() if lower in named), key=len, default=None)
        if kind == "keras":
            known = KERAS_LOADER.match(qualified).group(2)  # "mnist", "cifar10"
        dataset = over if kind == "loader" else callee
        defined = self.dataset_classes.get(dataset) or self.classes.get(dataset)
        layout = samples.layout_of_class(defined) if defined is not None and _is_dataset_class(defined) else None
        head, _, rest = dataset.partition(".")
        imported = self.imports[head] + (f".{rest}" if rest else "") if head in self.imports and known is None else ""
        loaded = self._as_loaded(call)
        site = DataSite(len(self.sites), call.lineno, call.end_lineno or call.lineno, callee, kind, target,
                        known, channels, one_hot, unpack, over if kind == "loader" else "",
                        batch_name=batch.id if isinstance(batch, ast.Name) else loaded.pop("batch_name", ""),
                        layout=layout,
                        dataset_import=imported if "." in imported and kind != "keras" else "",
                        views=self._views(call), size_text=ast.unparse(size) if size is not None else "",
                        full_test_split=kind in ("splits", "tf-mnist") and self.names_a_full_test_split,
                        returns_dataset=kind == "data" and unpack <= 1 and _returns_a_dataset(qualified),
                        **loaded)
        self.sites.append((site, call, batch, size))
        if statement is not None and isinstance(statement, ast.Assign):
            for name in (n.id for t in statement.targets for n in ast.walk(t) if isinstance(n, ast.Name)):
                self.site_of_name[name] = site

    def _as_loaded(self, call: ast.Call) -> dict:
        """How a read a DataLoader iterates is made (DataSite's `as_array` .. `archive`)."""
        read = self.carried_to_loaders.get(id(call))
        return dataclasses.asdict(read) if read is not None else {}

    def _views(self, call: ast.Call) -> int:
        """The views of each image the data's transform makes (`transform=TwoCropsTransform(augment)`,
        given in the call or through a name it reads), when the transform is a class of the file."""
        looked = [call] + [value for sub in ast.walk(call) if isinstance(sub, ast.Name) for value in self._values_of(sub.id)]
        for node in looked[:MAX_LOOKED]:
            for sub in ast.walk(node):
                if isinstance(sub, ast.keyword) and sub.arg == "transform":
                    made = sub.value
                    if isinstance(made, ast.Name):
                        made = next(iter(self._values_of(made.id)), made)
                    if isinstance(made, ast.Call) and isinstance(made.func, ast.Name) and made.func.id in self.classes:
                        views = samples.views_of_class(self.classes[made.func.id])
                        if views > 1:
                            return views
        return 1

    def _given_unread_arrays(self, call: ast.Call) -> bool:
        """Is the call given what a NumPy reader of a data file returns, directly or through the name the
        code bound it to last (`dataset = np.load("imgs.npy")`, then `CustomTensorDataset(dataset)`)?"""
        for argument in [*call.args, *(keyword.value for keyword in call.keywords)]:
            values = self._values_of(argument.id, before=call.lineno) if isinstance(argument, ast.Name) else [argument]
            if any(isinstance(value, ast.Call) and _qualified(value.func, self.imports) in ARRAY_READERS
                   for value in values):
                return True
        return False

    def _values_of(self, name: str, before: Optional[int] = None) -> list:
        """The values assigned to `name`; with `before`, the last one assigned before that line, when
        one is: a script that picks its data by a setting (`if DATASET == "mnist": transform = ...`
        `elif ...`) uses, at each call, the one its own branch just made."""
        values = [value for targets, value in self.assignments
                  if any(isinstance(target, ast.Name) and target.id == name
                         for node in targets for target in ast.walk(node))]
        earlier = [value for value in values if before is not None and value.lineno < before]
        return [max(earlier, key=lambda value: value.lineno)] if earlier else values

    def _hints(self, call: ast.Call, qualified: str):
        """The known dataset, the channels, the image size the call's own code or its transforms say,
        and (for a loader) the dataset it is over."""
        last = qualified.rsplit(".", 1)[-1]
        known = known_dataset(last)
        called = last  # the name the known dataset was called by
        if known is None:
            # An imported maker told which dataset by name: `dataloader.train_loader("mnist", ...)`.
            known = next((KNOWN_BY_LOWER_NAME[argument.value.lower()]
                          for argument in [*call.args, *(keyword.value for keyword in call.keywords)]
                          if isinstance(argument, ast.Constant) and isinstance(argument.value, str)
                          and argument.value.lower() in KNOWN_BY_LOWER_NAME), None)
        channels = size = None
        cropped = False
        over = ""
        looked = [call]
        for sub in ast.walk(call):
            if isinstance(sub, ast.Call) and sub is not call and not over and self._kind(sub):
                over = _dotted(sub.func) or ""
            if isinstance(sub, ast.Name):
                if sub.id in self.site_of_name and known is None:
                    earlier = self.site_of_name[sub.id]
                    known, channels = earlier.known, earlier.channels
                    called = earlier.callee.rsplit(".", 1)[-1]
                    over = over or earlier.callee
                looked += self._values_of(sub.id, call.lineno)
        # Through the names those values read, a few steps back: `trainset, validset =
        # random_split(trainvalid, ...)` over `trainvalid = torchvision.datasets.SVHN(...)`; what is
        # appended is read in turn (`ConcatDataset([train, test])` over `train = datasets.SVHN(...,
        # transform=transforms)`, over `transforms = transforms.Compose([transforms.Resize(64), ...])`).
        followed = {sub.id for sub in ast.walk(call) if isinstance(sub, ast.Name)}
        position = 1
        while position < len(looked) <= MAX_LOOKED:
            position += 1
            for sub in ast.walk(looked[position - 1]):
                if isinstance(sub, ast.Name) and sub.id not in followed:
                    followed.add(sub.id)
                    looked += self._values_of(sub.id, call.lineno)
        sized_in = None  # the list of transforms the size was read from
        for node in looked:
            pipeline_of = {id(step): id(steps) for steps in ast.walk(node) if isinstance(steps, (ast.List, ast.Tuple))
                           for step in steps.elts}
            for sub in ast.walk(node):
                if not isinstance(sub, ast.Call):
                    continue
                name = (_dotted(sub.func) or "").rsplit(".", 1)[-1]
                if known is None and sub is not call:
                    known, called = known_dataset(name), name
                if name in SIZE_TRANSFORMS and (size is None or name in CROP_TRANSFORMS and not cropped
                                                or sized_in is not None and pipeline_of.get(id(sub)) == sized_in):
                    # The last step of a pipeline that sizes the image sets the side of what comes out
                    # (`Resize(IMAGE_SIZE + 2)`, then `CenterCrop(IMAGE_SIZE)`; `CenterCrop(108)`, then
                    # `Scale(64)`); elsewhere a crop does, whatever a `Resize` of another pipeline made.
                    size = _argument(sub, 0, "size")
                    cropped = name in CROP_TRANSFORMS
                    sized_in = pipeline_of.get(id(sub))
                elif name == "Grayscale":
                    wanted = _argument(sub, 0, "num_output_channels")
                    channels = wanted.value if isinstance(wanted, ast.Constant) and wanted.value in (1, 3) else 1
                elif name == "Normalize" and channels is None:
                    # (Not for a dataset of torchvision's: three means for MNIST's one channel, a CIFAR
                    # transform kept, and one mean for CIFAR10's three, broadcast: its images keep
                    # their channels.)
                    mean = _argument(sub, 0, "mean")
                    if isinstance(mean, (ast.Tuple, ast.List)) and len(mean.elts) in (1, 3):
                        channels = KNOWN_DATASETS[known][0][0] if _known_by_name(known, called) else len(mean.elts)
        return known, channels, size, over


IMAGE_SIZE_NAMES = frozenset({"img_size", "image_size", "imsize", "imagesize", "im_size"})


def _size_given_by_name(call: ast.Call) -> Optional[ast.expr]:
    """The image side a dataset of the project is made for, passed by name where no transform says it:
    `SyntheticDataset(opt.img_size)`, `FaceData(root, image_size=64)` (a loader's dataset too)."""
    for sub in ast.walk(call):
        if not isinstance(sub, ast.Call):
            continue
        for keyword in sub.keywords:
            if keyword.arg in IMAGE_SIZE_NAMES:
                return keyword.value
        for argument in sub.args:
            if (_dotted(argument) or "").rsplit(".", 1)[-1] in IMAGE_SIZE_NAMES:
                return argument
    return None


def _replacement(site: DataSite, batch: Optional[ast.expr], size: Optional[ast.expr], call: ast.expr,
                 hints: Optional[dict] = None) -> str:
    batch_text = f"lambda: ({ast.unparse(batch)})" if batch is not None else "None"
    size_text = f"lambda: ({ast.unparse(size)})" if size is not None else "None"
    hints_text = ""
    if hints:
        hints_text = ", {" + ", ".join(f"{name!r}: lambda: ({ast.unparse(value)})" for name, value in hints.items()) + "}"
    lines = (call.end_lineno or call.lineno) - call.lineno
    return f"{DATA_HELPER}({site.index}, {batch_text}, {size_text}{hints_text}" + "\n" * lines + ")"


def _array_hints(call: ast.Call, site: DataSite) -> dict:
    """For a scikit-learn maker, the arguments that shape its arrays (`n_samples`, `n_features`, ...), by name."""
    if site.kind != "arrays":
        return {}
    parameters = SKLEARN_ARRAYS.get(site.callee.rsplit(".", 1)[-1], ())
    found = {name: value for name, value in zip(parameters, call.args) if not isinstance(value, ast.Starred)}
    found.update((keyword.arg, keyword.value) for keyword in call.keywords if keyword.arg)
    return {name: value for name, value in found.items() if name in ARRAY_HINTS}


def _maker_hints(call: ast.Call, site: DataSite) -> dict:
    """For data made by a function of another module (`utils.load_data(args.batch_size, img_size)`),
    its plain arguments by position ("0", "1") and keyword: what that function's transforms may be
    sized by (verify/batches.py reads its code with `made_in_module`)."""
    if site.kind != "data" or not site.dataset_import:
        return {}

    def plain(argument: ast.expr) -> bool:  # names, numbers and arithmetic: evaluating it runs nothing
        return isinstance(argument, (ast.Name, ast.Attribute, ast.Constant, ast.BinOp)) and \
            not any(isinstance(sub, ast.Call) for sub in ast.walk(argument))

    found = {str(position): argument for position, argument in enumerate(call.args) if plain(argument)}
    found.update((keyword.arg, keyword.value) for keyword in call.keywords if keyword.arg and plain(keyword.value))
    return found


@functools.lru_cache(maxsize=16)
def made_in_module(dotted: str) -> Optional[tuple[DataSite, list[str]]]:
    """For a function of another module that makes data (`utils.load_data`), read from its file (found,
    not run): the first dataset or loader it makes that says what its samples are (MNIST, a `Resize`,
    a dataset class whose `__getitem__` returns an image alone), and the function's parameter names, in order."""
    module, _, name = dotted.rpartition(".")
    function = samples.project_function(module, name)
    source = samples.module_source(module) if function is not None else None
    if source is None:
        return None
    inside = [site for site in rewrite_data(source).sites
              if function.lineno <= site.line <= (function.end_lineno or function.lineno)
              and (site.known or site.channels or site.size_text or site.layout)]
    if not inside:
        return None
    parameters = [argument.arg for argument in (*function.args.posonlyargs, *function.args.args)]
    return inside[0], parameters


def _loader_hints(call: ast.Call, site: DataSite) -> dict:
    """For a loader over a name (`DataLoader(trainset, ...)`), that name: at run time it holds the
    stand-in dataset of the branch that ran, whose data the loader then serves."""
    dataset = _argument(call, 0, "dataset") if site.kind == "loader" else None
    return {"dataset": dataset} if isinstance(dataset, ast.Name) else {}


def _dataset_class_hints(call: ast.Call, site: DataSite) -> dict:
    """For a dataset made by a class of the project (`CIFARDataset()`), that class: the stand-in runs the
    methods it adds (`train_set.get_dataloader()`) on its own samples."""
    if site.kind != "dataset" or site.known or not isinstance(call.func, (ast.Name, ast.Attribute)):
        return {}  # torchvision's datasets add no method the code calls
    return {"class": call.func}


def _target_of(call: ast.Call, statement: Optional[ast.stmt]) -> tuple[str, int]:
    if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is call:
        target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
        if isinstance(target, ast.Tuple):  # `X, y = ...`, as written (unparse would add parentheses)
            return ", ".join(ast.unparse(element) for element in target.elts), len(target.elts)
        unpack = len(target.elts) if isinstance(target, ast.List) else 0
        return ast.unparse(target), unpack
    return "", 0


def _argument(call: ast.Call, position: int, keyword: str) -> Optional[ast.expr]:
    found = _keyword(call, keyword)
    if found is not None:
        return found
    positional = [arg for arg in call.args if not isinstance(arg, ast.Starred)]
    return positional[position] if len(positional) > position else None


def _keyword(call: ast.Call, name: str) -> Optional[ast.expr]:
    return next((kw.value for kw in call.keywords if kw.arg == name), None)


def _assignments(tree: ast.Module) -> list[tuple[list, ast.expr]]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            found.append((node.targets, node.value))
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)) and node.value is not None:
            found.append(([node.target], node.value))
        elif isinstance(node, (ast.For, ast.comprehension)):
            found.append(([node.target], node.iter))
    return found


def _imports(tree: ast.Module) -> dict[str, str]:
    """Local name -> the dotted name it was imported as, for every import in the file; a class the file
    calls but never binds, after `from utils import *` of a module of the project, as that module's."""
    names: dict[str, str] = _star_imported_classes(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def _star_imported_classes(tree: ast.Module) -> dict[str, str]:
    """`ImageFolder(args.image_path)` after `from utils import *`: a capitalised name the file calls and
    binds nowhere, read as the project module imported with `*` that defines it, else the last one (an
    installed package's star import, `from torch.nn import *`, is not the project's)."""
    starred = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.module
               and not node.level and any(alias.name == "*" for alias in node.names)
               and node.module.split(".")[0] not in THIRD_PARTY_DATA and not _installed(node.module.split(".")[0])]
    if not starred:
        return {}
    bound = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)}
    bound |= {node.name for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                          ast.ClassDef))}
    bound |= {(alias.asname or alias.name).split(".")[0] for node in ast.walk(tree)
              if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    called = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id[:1].isupper() and node.func.id not in bound and not hasattr(builtins, node.func.id)}
    # The module that defines the class, where one does (`from model import *`, then `from datasets
    # import *`: a dataset class is the second's); else the last.
    return {name: f"{next((m for m in reversed(starred) if samples.project_definition(m, name)), starred[-1])}.{name}"
            for name in called}


def _installed(top: str) -> bool:
    """Is the top-level module Python's own or an installed package's (not a module of the project)?"""
    if top in sys.stdlib_module_names:
        return True
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return False
    return spec is not None and "site-packages" in (spec.origin or "")


def _dotted(node: ast.AST) -> Optional[str]:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _qualified(node: ast.AST, imports: dict) -> Optional[str]:
    dotted = _dotted(node)
    if dotted is None:
        return None
    head, _, rest = dotted.partition(".")
    if head in imports:
        return imports[head] + (f".{rest}" if rest else "")
    return dotted


# ------------------------------------------------------------------------------ training loops


def limit_loops(text: str, flagged_line: int) -> Limited:
    """Wrap the script's loops that enclose the flagged line, and its other training loops (a body
    with a backward, an optimizer step, or data to iterate), so that each runs a few iterations only.
    The training loops of the file's functions too: the slice may call one (`net = train(net, data)`
    for the network the flagged line uses), and its 3000 epochs are not what the claim is about."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return Limited(text)
    loops: list[Loop] = []
    edits = []
    pending: list[tuple[ast.AST, bool]] = [(node, False) for node in tree.body]
    while pending:
        node, in_definition = pending.pop()
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, (ast.For, ast.While)):
            encloses = not in_definition and node.lineno <= flagged_line <= (node.end_lineno or node.lineno)
            if encloses or _trains(node):
                passes = _iterations_to_pass_twice(node, flagged_line, tree) if encloses else 0
                loop = Loop(len(loops), node.lineno, node.end_lineno or node.lineno,
                            min(passes, MAX_SPARSE_ITERATIONS),
                            gathers=not encloses and not _steps(node),
                            over_data=isinstance(node, ast.For) and _iterates_data(node.iter))
                loops.append(loop)
                part = node.iter if isinstance(node, ast.For) else node.test
                helper = LOOP_HELPER if isinstance(node, ast.For) else WHILE_HELPER
                edits.append((part, f"{helper}({loop.index}, {_source_of(text, part)})"))
        inside = in_definition or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        pending.extend((child, inside) for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))
    if not edits:
        return Limited(text, [])
    return Limited(replace_nodes(text, edits), loops)


# An every-500th-iteration log passes twice in this many (batches.SPARSE_SECONDS bounds the time they take).
MAX_SPARSE_ITERATIONS = 501


def _iterations_to_pass_twice(loop: ast.AST, flagged_line: int, tree: ast.Module) -> int:
    """The iterations it takes to run the flagged line twice, where it stands under an `if` of the loop
    that tests its variable modulo k (`if epoch % 10 == 0:` k + 1, `if epoch % 10 == 1:` k + 2, `if (i + 1)
    % log_every == 0:` 2k, with `log_every = 10` in the file; the count of `for i, (x, y) in
    enumerate(loader)`); 0 otherwise. The test is evaluated on the counter alone (with the file's whole-number
    constants); one it cannot be (it reads other names) counts k + 1."""
    if not isinstance(loop, ast.For):
        return 0
    counter = loop.target
    if isinstance(counter, ast.Tuple) and isinstance(loop.iter, ast.Call) and isinstance(loop.iter.func, ast.Name) \
            and loop.iter.func.id == "enumerate" and counter.elts:
        counter = counter.elts[0]
    if not isinstance(counter, ast.Name):
        return 0
    constants = tables.whole_numbers(tree)
    for node in ast.walk(loop):
        if not (isinstance(node, ast.If) and node.body and node.body[0].lineno <= flagged_line
                <= (node.body[-1].end_lineno or node.body[-1].lineno)):
            continue
        for part in ast.walk(node.test):
            if isinstance(part, ast.BinOp) and isinstance(part.op, ast.Mod) and any(
                    isinstance(name, ast.Name) and name.id == counter.id for name in ast.walk(part.left)):
                modulus = part.right.value if isinstance(part.right, ast.Constant) else \
                    constants.get(part.right.id) if isinstance(part.right, ast.Name) else None
                if type(modulus) is int and modulus > 1:
                    return _second_pass(node.test, counter.id, constants) or modulus + 1
    return 0


def _second_pass(test: ast.expr, counter: str, constants: dict) -> int:
    """1 + the second value of the counter for which `test` holds (0..MAX_SPARSE_ITERATIONS), evaluated
    with the counter and the file's whole-number constants only; 0 when it reads anything else."""
    code = compile(ast.Expression(test), "<loop test>", "eval")
    passes = 0
    for value in range(MAX_SPARSE_ITERATIONS):
        try:
            holds = eval(code, {"__builtins__": {}}, {**constants, counter: value})  # noqa: S307 - numbers only
        except Exception:  # noqa: BLE001 - another name, a call: not decided by the counter alone
            return 0
        passes += bool(holds)
        if passes == 2:
            return value + 1
    return 0


def _trains(loop: ast.AST) -> bool:
    if _steps(loop):
        return True
    if any(isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == DATA_HELPER
           for node in ast.walk(loop)):
        return True
    iterable = loop.iter if isinstance(loop, ast.For) else None
    return iterable is not None and _iterates_data(iterable)


def _steps(loop: ast.AST) -> bool:
    """Does the loop's body backpropagate or step an optimizer (an environment's step is no such step)?"""
    episode = _episode_loop(loop)
    return any(isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
               and node.func.attr in ("backward", "step") and not (episode and _environment_step(node))
               for node in ast.walk(loop))


def _environment_step(call: ast.Call) -> bool:
    """`env.step(action)`, `self.envs.step(actions)`: an environment's step, not an optimizer's."""
    return call.func.attr == "step" and bool(re.search(r"(?i)env", _dotted(call.func.value) or ""))


def _episode_loop(loop: ast.AST) -> bool:
    """An episode: `while not done:` whose test reads what an environment's step in it gives (`next_state,
    reward, done, info = env.step(action)`). It ends with the episode; cut short, a rollout gathers too
    little to learn from (fresh60's PPO: each update's batch held no sample). The loops around it, over
    episodes, are cut as before."""
    if not isinstance(loop, ast.While):
        return False
    tested = {node.id for node in ast.walk(loop.test) if isinstance(node, ast.Name)}
    return any(isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Attribute)
               and _environment_step(node.value) and tested & {name.id for target in node.targets
                                                               for name in ast.walk(target) if isinstance(name, ast.Name)}
               for node in ast.walk(loop))


def _iterates_data(iterable: ast.expr) -> bool:
    """`loader`, `enumerate(train_loader)`, `tqdm(dataloader)`: names that read like data. Not
    `range(len(traindata))`, a loop over indices that prepares data (cutting it cuts the data short;
    a training loop over indices has its backward or step in the body)."""
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range":
        return False
    return any(isinstance(n, ast.Name) and re.search(r"(?i)(loader|dataset|data|batches)", n.id)
               for n in ast.walk(iterable))


# ------------------------------------------------------------------------------ text edits


def _source_of(text: str, node: ast.expr) -> str:
    """The expression's own text, on as many lines as it takes (inside the helper's parentheses)."""
    segment = ast.get_source_segment(text, node, padded=False)
    return segment if segment is not None else ast.unparse(node)


def replace_nodes(text: str, edits: list[tuple[ast.AST, str]]) -> str:
    """Replace each node's span with its new text (positions are UTF-8 offsets, as ast gives them)."""
    lines = text.splitlines(keepends=True)
    encoded = [line.encode("utf-8") for line in lines]
    spans = sorted(((node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, new)
                    for node, new in edits), reverse=True)
    for line, column, end_line, end_column, new in spans:
        head = encoded[line - 1][:column]
        tail = encoded[end_line - 1][end_column:]
        replaced = (head + new.encode("utf-8") + tail).splitlines(keepends=True)
        encoded[line - 1:end_line] = replaced
    return b"".join(encoded).decode("utf-8")

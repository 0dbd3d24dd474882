"""Where a script reads its data, and the rewrite that stands in for it (static: the syntax tree only).

Verification never reads the user's data. Before any of the user's code runs,
each expression that would make a dataset or a loader over one (a
`torchvision.datasets.MNIST(...)`, an `ImageFolder`, a `DataLoader` over
either, TensorFlow's `input_data.read_data_sets`, a `Dataset` subclass of the
file, an imported `get_loader(...)`) is replaced by a call of the verifier's
`__tcl_data__`, which makes stand-in batches at run time (verify/batches.py),
shaped from what the code says (the dataset's known sample shape, a
`Resize(64)` or `Grayscale()` in its transforms, the loader's `batch_size`)
and from the networks that consume them.

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
import functools
import re
from dataclasses import dataclass, field
from typing import Optional

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
DATA_PACKAGES = ("torchvision.datasets.", "torchtext.datasets.", "torchaudio.datasets.")
LOADER_CLASSES = {"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"}
# In-memory datasets and wrappers: they read nothing, and run as written.
IN_MEMORY = {"TensorDataset", "ConcatDataset", "Subset", "random_split", "ChainDataset", "StackDataset"}
# An imported callable named for data (`get_loader`, `load_mnist`, `CelebADataset`): its code is
# in another module, which would read files; it is stood in by its name.
DATA_FUNCTION = re.compile(r"^(get|make|build|load|create|prepare|fetch|read)_?\w*?(loaders?|datasets?|data|"
                           r"mnist|cifar\d*|celeba|batches)$", re.IGNORECASE)
DATA_CLASS = re.compile(r"(Dataset|DataLoader|Loader)$")
SIZE_TRANSFORMS = {"Resize", "Scale", "CenterCrop", "RandomCrop", "RandomResizedCrop", "RandomSizedCrop"}


@dataclass(frozen=True)
class DataSite:
    """One expression that would make data, and what the code says about its samples."""

    index: int
    line: int
    end_line: int
    callee: str            # as written: "datasets.MNIST", "DataLoader"
    kind: str              # dataset | loader | tf-mnist | data
    target: str = ""       # what the value is bound to: "train_loader", "(train_set, test_set)"
    known: Optional[str] = None  # a dataset whose sample shape is known: "MNIST"
    channels: Optional[int] = None
    one_hot: bool = False
    unpack: int = 0        # the assignment unpacks the result into this many values (0: one value)
    over: str = ""         # a loader's dataset, as written: "datasets.MNIST"

    @property
    def label(self) -> str:
        shown = f"`{self.target} = {self.callee}(...)`" if self.target else f"`{self.callee}(...)`"
        over = f" over `{self.over}(...)`" if self.over else ""
        return f"{shown}{over} (line {self.line})"


@dataclass
class Rewritten:
    text: str
    sites: list = field(default_factory=list)


@dataclass(frozen=True)
class Loop:
    index: int
    line: int
    end_line: int


@dataclass
class Limited:
    text: str
    loops: list = field(default_factory=list)


# ------------------------------------------------------------------------------ data sites


# A file none of whose text names data is left as it is, unparsed (most blocks and helpers).
_MAY_MAKE_DATA = re.compile(r"DataLoader|[Dd]ataset|read_data_sets|ImageFolder|MNIST|CIFAR|SVHN|STL10|CelebA|LSUN|"
                            r"Omniglot|ImageNet|import[^\n]*(Loader|\b(get|make|build|load|create|prepare|fetch|"
                            r"read)_)")


@functools.lru_cache(maxsize=32)
def rewrite_data(source: str) -> Rewritten:
    """The source with every expression that makes data replaced by a stand-in call; line numbers kept."""
    if not _MAY_MAKE_DATA.search(source):
        return Rewritten(source)
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return Rewritten(source)
    imports = _imports(tree)
    defined = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                     ast.ClassDef))}
    dataset_classes = {node.name for node in ast.walk(tree) if isinstance(node, ast.ClassDef)
                       and any(_is_dataset_base(base) for base in node.bases)}
    finder = _SiteFinder(tree, imports, defined, dataset_classes)
    if not finder.sites:
        return Rewritten(source)
    edits = []
    for site, call, batch, size in finder.sites:
        edits.append((call, _replacement(site, batch, size, call)))
    return Rewritten(_apply(source, edits), [site for site, _, _, _ in finder.sites])


def _is_dataset_base(base: ast.expr) -> bool:
    name = _dotted(base) or ""
    return name.rsplit(".", 1)[-1] in ("Dataset", "IterableDataset", "VisionDataset")


class _SiteFinder:
    def __init__(self, tree: ast.Module, imports: dict, defined: set, dataset_classes: set) -> None:
        self.imports = imports
        self.defined = defined
        self.dataset_classes = dataset_classes
        self.assignments = _assignments(tree)
        self.sites: list = []
        self.site_of_name: dict[str, DataSite] = {}
        self.derived: set[str] = set()
        # The file's functions that make data (`def get_dataset(): return datasets.MNIST(...)`): what
        # they return is data too (their bodies are rewritten like the rest of the file).
        functions = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.data_functions: set[str] = set()
        while True:
            more = {name for name, node in functions.items() if name not in self.data_functions
                    and any(isinstance(n, ast.Call) and self._kind(n) for n in ast.walk(node))}
            if not more:
                break
            self.data_functions |= more
        # Names bound from data (`train_set = datasets.MNIST(...)`, `a, b = random_split(train_set, ...)`),
        # to a fixed point: a DataLoader over one of them is a loader of data.
        while True:
            before = len(self.derived)
            for targets, value in self.assignments:
                if any(isinstance(n, ast.Call) and (self._kind(n) or self._calls_data_function(n))
                       for n in ast.walk(value)) or \
                        any(isinstance(n, ast.Name) and n.id in self.derived for n in ast.walk(value)):
                    self.derived |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
            if len(self.derived) == before:
                break
        self._visit(tree, None)

    def _calls_data_function(self, call: ast.Call) -> bool:
        return isinstance(call.func, ast.Name) and call.func.id in self.data_functions

    def _visit(self, node: ast.AST, statement: Optional[ast.stmt]) -> None:
        if isinstance(node, ast.stmt):
            statement = node
        if isinstance(node, ast.Call):
            kind = self._kind(node)
            if kind:
                self._add(node, kind, statement)
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
        if qualified.startswith(DATA_PACKAGES):
            return "dataset"
        if last == "read_data_sets":
            return "tf-mnist"
        if qualified in LOADER_CLASSES or (last == "DataLoader" and last not in self.defined):
            dataset = _argument(call, 0, "dataset")
            if dataset is None:
                return None
            data = any(isinstance(n, ast.Call) and (self._kind(n) or self._calls_data_function(n))
                       for n in ast.walk(dataset)) or \
                any(isinstance(n, ast.Name) and n.id in self.derived for n in ast.walk(dataset))
            return "loader" if data else None
        if isinstance(call.func, ast.Name) and call.func.id in self.dataset_classes:
            return "dataset"
        if qualified.startswith("torch.") or last in self.defined:
            return None  # torch's own callables, and the file's code (rewritten inside instead)
        head = (_dotted(call.func) or "").split(".", 1)[0]
        if head not in self.imports:
            return None  # a variable, a builtin, `self.load_data()`: not an imported data maker
        if last in KNOWN_DATASETS:
            return "dataset"
        if DATA_CLASS.search(last) or DATA_FUNCTION.match(last):
            return "data"
        return None

    def _add(self, call: ast.Call, kind: str, statement: Optional[ast.stmt]) -> None:
        callee = _dotted(call.func) or ast.unparse(call.func)
        qualified = _qualified(call.func, self.imports) or callee
        target, unpack = _target_of(call, statement)
        known, channels, size, over = self._hints(call, qualified)
        batch = None
        if kind == "loader":
            batch = _argument(call, 1, "batch_size")
        elif kind == "data":
            batch = _keyword(call, "batch_size") or _keyword(call, "bs")
        one_hot = kind == "tf-mnist" and isinstance(_keyword(call, "one_hot"), ast.Constant) and \
            bool(_keyword(call, "one_hot").value)
        if kind == "tf-mnist":
            known = "MNIST"
        site = DataSite(len(self.sites), call.lineno, call.end_lineno or call.lineno, callee, kind, target,
                        known, channels, one_hot, unpack, over if kind == "loader" else "")
        self.sites.append((site, call, batch, size))
        if statement is not None and isinstance(statement, ast.Assign):
            for name in (n.id for t in statement.targets for n in ast.walk(t) if isinstance(n, ast.Name)):
                self.site_of_name[name] = site

    def _hints(self, call: ast.Call, qualified: str):
        """The known dataset, the channels, the image size the call's own code or its transforms say,
        and (for a loader) the dataset it is over."""
        last = qualified.rsplit(".", 1)[-1]
        known = last if last in KNOWN_DATASETS else None
        channels = size = None
        over = ""
        looked = [call]
        for sub in ast.walk(call):
            if isinstance(sub, ast.Call) and sub is not call and not over and self._kind(sub):
                over = _dotted(sub.func) or ""
            if isinstance(sub, ast.Name):
                if sub.id in self.site_of_name and known is None:
                    earlier = self.site_of_name[sub.id]
                    known, channels = earlier.known, earlier.channels
                    over = over or earlier.callee
                looked += [value for targets, value in self.assignments
                           if any(isinstance(t, ast.Name) and t.id == sub.id for t in targets)]
        for node in looked:
            for sub in ast.walk(node):
                if not isinstance(sub, ast.Call):
                    continue
                name = (_dotted(sub.func) or "").rsplit(".", 1)[-1]
                if known is None and name in KNOWN_DATASETS and sub is not call:
                    known = name
                if name in SIZE_TRANSFORMS and size is None:
                    size = _argument(sub, 0, "size")
                elif name == "Grayscale":
                    channels = 1
                elif name == "Normalize" and channels is None:
                    mean = _argument(sub, 0, "mean")
                    if isinstance(mean, (ast.Tuple, ast.List)) and len(mean.elts) in (1, 3):
                        channels = len(mean.elts)
        return known, channels, size, over


def _replacement(site: DataSite, batch: Optional[ast.expr], size: Optional[ast.expr], call: ast.Call) -> str:
    batch_text = f"lambda: ({ast.unparse(batch)})" if batch is not None else "None"
    size_text = f"lambda: ({ast.unparse(size)})" if size is not None else "None"
    lines = (call.end_lineno or call.lineno) - call.lineno
    return f"{DATA_HELPER}({site.index}, {batch_text}, {size_text}" + "\n" * lines + ")"


def _target_of(call: ast.Call, statement: Optional[ast.stmt]) -> tuple[str, int]:
    if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is call:
        target = statement.targets[0] if isinstance(statement, ast.Assign) else statement.target
        unpack = len(target.elts) if isinstance(target, (ast.Tuple, ast.List)) else 0
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
    """Local name -> the dotted name it was imported as, for every import in the file."""
    names: dict[str, str] = {}
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
    with a backward, an optimizer step, or data to iterate), so that each runs a few iterations only."""
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return Limited(text)
    loops: list[Loop] = []
    edits = []
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            continue
        if isinstance(node, (ast.For, ast.While)):
            encloses = node.lineno <= flagged_line <= (node.end_lineno or node.lineno)
            if encloses or _trains(node):
                loop = Loop(len(loops), node.lineno, node.end_lineno or node.lineno)
                loops.append(loop)
                part = node.iter if isinstance(node, ast.For) else node.test
                helper = LOOP_HELPER if isinstance(node, ast.For) else WHILE_HELPER
                edits.append((part, f"{helper}({loop.index}, {_source_of(text, part)})"))
        pending.extend(child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))
    if not edits:
        return Limited(text, [])
    return Limited(_apply(text, edits), loops)


def _trains(loop: ast.AST) -> bool:
    for node in ast.walk(loop):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in ("backward", "step"):
            return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == DATA_HELPER:
            return True
    iterable = loop.iter if isinstance(loop, ast.For) else None
    return iterable is not None and _iterates_data(iterable)


def _iterates_data(iterable: ast.expr) -> bool:
    """`loader`, `enumerate(train_loader)`, `tqdm(dataloader)`: names that read like data."""
    return any(isinstance(n, ast.Name) and re.search(r"(?i)(loader|dataset|data|batches)", n.id)
               for n in ast.walk(iterable))


# ------------------------------------------------------------------------------ text edits


def _source_of(text: str, node: ast.expr) -> str:
    """The expression's own text, on as many lines as it takes (inside the helper's parentheses)."""
    segment = ast.get_source_segment(text, node, padded=False)
    return segment if segment is not None else ast.unparse(node)


def _apply(text: str, edits: list[tuple[ast.AST, str]]) -> str:
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

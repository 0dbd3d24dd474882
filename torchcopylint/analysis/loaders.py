"""Data loaders and their batches: what iterating a `torch.utils.data.DataLoader` gives.

Two rules read this (ModuleFacts.loaders): TCL005 stays silent on a batch (data a loader yields
does not require grad), TCL008 knows the parts of a batch are tensors (the default collate makes
them: numbers and NumPy arrays become tensors, tuples, lists and dicts keep their shape with
tensors inside).

A loader is:

- built in sight: `DataLoader(...)` (`torch.utils.data.DataLoader`, however imported) assigned to
  the name in this function, at the module's top level, or to the `self.` attribute in the class,
  or iterated in place; also an entry of a dict or list of such loaders (`dataloaders["valid"]`
  with `dataloaders = {x: DataLoader(...) for x in ...}`). Without `collate_fn=` (and with a batch size:
  `batch_size=None` only converts) the parts of its batches are tensors (unless the
  dataset yields strings, which stay lists of strings);
- named: a name, argument or attribute that reads as a loader (`loader`, `train_loader`,
  `trainloader`, `val_dl`, `dataloader`), where no assignment in sight says otherwise (one that
  builds an instance of another class, `dataloader = UNetDataloader(root)`, does). Very likely
  a DataLoader, not surely: a rule that rewrites code on it marks the fix unsafe.

A batch is what one iteration yields: `for batch in loader`, `for x, y in loader`,
`for i, (x, y) in enumerate(loader)`, through `tqdm(...)`, `iter(...)` and `zip(...)` of loaders,
and `next(iter(loader))` (or the iterator's own `.next()`). Its parts are the names unpacked from it (`x, y = batch` too) and its
subscripts by a constant (`batch[0]`, `batch["image"]`), and what tensor methods make of those
(`x.to(device)`, `y.long()`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

import libcst as cst

from torchcopylint.analysis.aliasing import Binding, FunctionFacts, position_in_target, returned_parts
from torchcopylint.analysis.memo import Memo
from torchcopylint.analysis.syntax import single_index
from torchcopylint.analysis.tensors import TENSOR_RETURNING_METHODS
from torchcopylint.analysis.torchnames import dotted_name

DATALOADER_CLASSES = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
# Callees that yield the items of their (first) argument: progress bars and iterators (`itertools.cycle`,
# `itertools.islice` over a loader yield its batches).
PASS_THROUGH = frozenset({"iter", "tqdm", "tqdm_notebook", "track", "cycle", "islice"})
# Words that, next to "loader", say it loads something other than a dataset's batches.
NOT_DATA_WORDS = frozenset(
    "model weight weights checkpoint ckpt state config cfg yaml json file image img pil module plugin "
    "loaders".split())
MAX_DEPTH = 10  # hops: `content = next(batches).float()`, `batches = iter(DataLoader(...))` take eight


@dataclass(frozen=True)
class Loader:
    shown: str  # the loader as the code spells it: `train_loader`
    built: Optional[cst.Call] = None  # the `DataLoader(...)` call, when in sight
    default_collate: bool = False  # built without `collate_fn=`

    @property
    def sure(self) -> bool:
        return self.built is not None


@dataclass(frozen=True)
class Batch:
    """A batch of a loader, or part of one."""

    loader: Loader
    whole: bool  # the batch itself (a tuple, list, dict or tensor), not a part of it

    @property
    def surely_tensor(self) -> bool:
        """A part of a batch that the default collate of a DataLoader in sight made."""
        return not self.whole and self.loader.sure and self.loader.default_collate


# What one iteration over an iterable yields: a batch of a loader, a tuple of such shapes
# (`enumerate`, `zip`), or OTHER (an index).
OTHER = "other"


class DataLoaders:
    """The loaders and batches of one module (ModuleFacts.loaders); `facts` is its ModuleFacts."""

    def __init__(self, facts) -> None:
        self.facts = facts
        self.names = facts.names
        self._batches = Memo()  # binding -> Batch or None (None, in a cycle: it proves nothing)
        self._batches_of_its_own: Optional[bool] = None

    def _by_name(self, name: str, shown: str) -> Optional[Loader]:
        """A loader known only by its name (`train_loader`), unless the file makes loaders whose batches
        are not the default collate's: a loader class of its own that iterates as it likes (a DataLoader
        subclass with `__iter__`), a `DataLoader(..., collate_fn=...)`, or a loader class it imports from
        elsewhere than torch: the loader a function is handed may be that one (`train(data_loader)` called
        with the loader of `collate_fn=generate_batch`, whose labels are a list), and a name then says
        nothing of what a batch is."""
        if not _reads_as_loader(name):
            return None
        if self._batches_of_its_own is None:
            module = self.facts.function_facts(self.facts.module)
            self._batches_of_its_own = any(
                "__iter__" in owner.methods and any("loader" in base.lower() for base in [owner.name, *owner.base_names])
                for owner in self.facts.classes.values()) or any(
                not _built(call, "").default_collate for call in self.facts.calls
                if self.names.qualified_name(call.func) in DATALOADER_CLASSES) or any(
                # `from word2vec.common import DataLoader`: a loader class of the project or of another
                # library (a graph library's batches, arrays), which the name may stand for. (A subclass
                # named so, `CachedDataLoader`, is torch's DataLoader still, as when it is built in sight.)
                binding.kind == "import" and binding.name[:1].isupper() and "loader" in binding.name.lower()
                and binding.name not in self.names.aliases
                and (binding.name == "DataLoader" or not binding.name.endswith("DataLoader"))
                for binding in module.bindings)
        return None if self._batches_of_its_own else Loader(shown)

    # ----------------------------------------------------------------- queries

    def batch_of(self, binding: Binding, function: FunctionFacts) -> Optional[Batch]:
        """The batch (or part of one) a name was bound to: a loop variable over a loader, a name
        unpacked from `next(iter(loader))` or from a batch, or assigned a batch expression."""
        # A depth budget of its own, whatever question reached it (see analysis/memo.py).
        return self._batches.answer(binding, lambda: self._binding_batch(binding, function, 0))

    def batch_expression(self, expr, function: FunctionFacts, depth: int = 0) -> Optional[Batch]:
        """The batch (or part) an expression holds: a name every binding of which holds one, a
        constant subscript of a batch (`batch[0]`, `batch["label"]`), a tensor method of a batch or a
        part (`labels.to(device)`)."""
        if expr is None:
            return None
        if depth > MAX_DEPTH:
            self._batches.cut()
            return None
        if type(expr) is cst.Name:
            bindings = function.bindings_at(expr)
            if not bindings:
                return None
            found = [self.batch_of(binding, function) for binding in bindings]
            if None in found:
                return None
            return min(found, key=lambda batch: (batch.surely_tensor, batch.loader.sure, not batch.whole))
        if type(expr) is cst.Subscript:
            inner = self.batch_expression(expr.value, function, depth + 1)
            if inner is None or type(single_index(expr)) not in (cst.Integer, cst.SimpleString):
                return None
            return Batch(inner.loader, whole=False)
        if type(expr) is cst.Call and type(expr.func) is cst.Attribute \
                and expr.func.attr.value in TENSOR_RETURNING_METHODS and self.names.qualified_name(expr.func) is None:
            # A whole batch stays whole (`next(batches).float()`: the dataset yields one tensor, or an
            # object with its own `.to()`), so nothing takes it for a tensor it may not be.
            return self.batch_expression(expr.func.value, function, depth + 1)
        if type(expr) is cst.Call:
            shape = self._next_of(expr, function, depth + 1)
            return Batch(shape, whole=True) if isinstance(shape, Loader) else None
        return None

    def item_part(self, iterable, path: tuple, function: FunctionFacts) -> Optional[Batch]:
        """The batch (or part) at `path` of what iterating `iterable` yields: `x` at (1, 0) in
        `for i, (x, y) in enumerate(loader)`, also in a comprehension."""
        return _part(self._items(iterable, function, 0), path)

    def loader(self, expr, function: FunctionFacts, depth: int = 0) -> Optional[Loader]:
        """Is `expr` a data loader, built in sight or named as one?"""
        if depth > MAX_DEPTH:
            self._batches.cut()
            return None
        if type(expr) is cst.Call:
            if self.names.qualified_name(expr.func) in DATALOADER_CLASSES:
                return _built(expr, self.facts.code_for(expr))
            return None
        if type(expr) is cst.Name:
            return self._named_loader(expr, function, depth)
        if type(expr) is cst.Attribute:
            values = self._self_attribute_values(expr, function)
            if values:
                return self._loader_from_values(values, expr.attr.value, self.facts.code_for(expr))
            return self._by_name(expr.attr.value, self.facts.code_for(expr))
        if type(expr) is cst.Subscript and type(expr.value) is cst.Name:
            return self._entry_of_loaders(expr, function)
        return None

    def _entry_of_loaders(self, entry: cst.Subscript, function: FunctionFacts) -> Optional[Loader]:
        """`dataloaders["valid"]`, where every assignment of `dataloaders` (here or at the top level)
        is a dict or list whose every entry is a `DataLoader(...)` built in sight."""
        container = entry.value
        bindings = function.bindings_at(container)
        if not bindings:
            module = self.facts.function_facts(self.facts.module)
            bindings = [] if function is module else [b for b in module.bindings if b.name == container.value]
        entries = []
        for binding in bindings:
            value = binding.value if binding.kind in ("assign", "walrus") else None
            if type(value) in (cst.DictComp, cst.ListComp):
                entries.append(value.value if type(value) is cst.DictComp else value.elt)
            elif type(value) in (cst.Dict, cst.List) and value.elements:
                entries.extend(element.value for element in value.elements
                               if type(element) in (cst.DictElement, cst.Element))
            else:
                return None
        built = [value for value in entries if type(value) is cst.Call
                 and self.names.qualified_name(value.func) in DATALOADER_CLASSES]
        if not entries or len(built) != len(entries):
            return None
        shown = self.facts.code_for(entry)
        return Loader(shown, built[0], all(_built(value, shown).default_collate for value in built))

    # --------------------------------------------------------------- internals

    def _binding_batch(self, binding: Binding, function: FunctionFacts, depth: int) -> Optional[Batch]:
        statement = binding.statement
        if binding.kind == "loop" and type(statement) is cst.For:
            shape = self._items(statement.iter, function, depth + 1)
            return _part(shape, _path_to(statement.target, binding.target))
        if binding.kind == "unpack" and type(statement) is cst.Assign and binding.value is not None:
            path = next((found for target in statement.targets
                         if (found := _path_to(target.target, binding.target)) is not None), None)
            if path is None:
                return None
            shape = self._next_of(binding.value, function, depth + 1) or self._iterated(binding.value, function, depth + 1)
            if shape is None:
                whole = self.batch_expression(binding.value, function, depth + 1)
                shape = whole.loader if whole is not None and whole.whole else None
            return _part(shape, path)
        if binding.kind in ("assign", "walrus") and binding.value is not None:
            return self.batch_expression(binding.value, function, depth + 1)
        return None

    def _next_of(self, expr, function: FunctionFacts, depth: int):
        """`next(iter(loader))`, `next(batches)` with `batches = iter(loader)`, also the iterator's
        own `batches.next()` (as old tutorials spell it): one item's shape."""
        if type(expr) is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value in ("next", "__next__") \
                and not expr.args:
            return self._items(expr.func.value, function, depth + 1)
        if not (type(expr) is cst.Call and type(expr.func) is cst.Name and expr.func.value == "next"
                and expr.args and expr.args[0].keyword is None):
            return None
        return self._items(expr.args[0].value, function, depth + 1)

    def _iterated(self, expr, function: FunctionFacts, depth: int):
        """What a loop variable holds, where it holds several batches (`data` in `for i, data in
        enumerate(zip(loader1, loader2))`, later unpacked `(x1, y1), (x2, y2) = data`): their shape."""
        if type(expr) is not cst.Name:
            return None
        bindings = function.bindings_at(expr)
        binding = next(iter(bindings)) if len(bindings) == 1 else None
        if binding is None or binding.kind != "loop" or type(binding.statement) is not cst.For:
            return None
        loop = binding.statement
        shape = self._items(loop.iter, function, depth + 1)
        for position in _path_to(loop.target, binding.target) or ():
            shape = shape[position] if isinstance(shape, tuple) and position < len(shape) else None
        return shape if isinstance(shape, tuple) else None

    def _items(self, iterable, function: FunctionFacts, depth: int):
        """What one iteration over `iterable` yields: a Loader (its batch), a tuple of shapes, None."""
        if iterable is None:
            return None
        if depth > MAX_DEPTH:
            self._batches.cut()
            return None
        found = self.loader(iterable, function, depth + 1)
        if found is not None:
            return found
        if type(iterable) is cst.Call:
            callee = (dotted_name(iterable.func) or "").rpartition(".")[2]
            positional = [arg.value for arg in iterable.args if arg.keyword is None and not arg.star]
            if callee == "enumerate" and positional:
                inner = self._items(positional[0], function, depth + 1)
                return (OTHER, inner) if inner is not None else None
            if callee == "zip" and positional:
                parts = tuple(self._items(arg, function, depth + 1) for arg in positional)
                return parts if any(part is not None for part in parts) else None
            if callee in PASS_THROUGH and positional:
                return self._items(positional[0], function, depth + 1)
            return None
        if type(iterable) is cst.Name:
            # `progress = tqdm(train_loader)`, `batches = iter(loader)`: what the name was made from.
            bindings = function.bindings_at(iterable)
            if len(bindings) == 1:
                binding = next(iter(bindings))
                if binding.kind in ("assign", "walrus") and type(binding.value) is cst.Call:
                    return self._items(binding.value, function, depth + 1)
        return None

    def _named_loader(self, name: cst.Name, function: FunctionFacts, depth: int) -> Optional[Loader]:
        bindings = function.bindings_at(name)
        if not bindings:
            # A top-level `train_loader = DataLoader(...)` read in a function (scripts, notebooks).
            module = self.facts.function_facts(self.facts.module)
            bindings = [] if function is module else [b for b in module.bindings if b.name == name.value]
        if not bindings or any(binding.kind == "param" for binding in bindings) \
                or any(binding.kind in ("assign", "walrus") and binding.value is None for binding in bindings):
            return self._by_name(name.value, name.value)
        if any(binding.kind not in ("assign", "walrus", "unpack") for binding in bindings):
            return None  # a loop variable, an import...: not followed
        if any(binding.kind == "unpack" for binding in bindings):
            # `train_loader, test_loader = get_loaders(...)`: what the file's function returns in that place
            # (`return model, train_loader, test_loader`); of a function out of sight, what the name reads as.
            only = next(iter(bindings)) if len(bindings) == 1 else None
            if only is not None and type(only.value) is cst.Call \
                    and dotted_name(only.value.func) in self.facts.module_functions:
                return self._returned_loader(only, depth)
            values = [binding.value for binding in bindings]
            if any(type(value) is not cst.Call or dotted_name(value.func) in self.facts.classes
                   or dotted_name(value.func) in self.facts.module_functions for value in values):
                return None
            return self._by_name(name.value, name.value)
        return self._loader_from_values([binding.value for binding in bindings], name.value, name.value)

    def _returned_loader(self, binding: Binding, depth: int) -> Optional[Loader]:
        """The loader every `return` of the file's function puts where the unpacking takes this name from."""
        callee = self.facts.function_facts(self.facts.module_functions[dotted_name(binding.value.func)])
        found = None
        for _, part in returned_parts(callee, position_in_target(binding)) or ():
            found = self.loader(part, callee, depth + 1)
            if found is None:
                return None
        return found

    def _loader_from_values(self, values: list, name: str, shown: str) -> Optional[Loader]:
        """Every assignment builds a DataLoader: built in sight (the first); an assignment that
        visibly builds something else (a class or function of this file): not a loader; else by name."""
        built = [value for value in values if type(value) is cst.Call
                 and self.names.qualified_name(value.func) in DATALOADER_CLASSES]
        if len(built) == len(values):
            loader = _built(built[0], shown)
            return Loader(shown, loader.built, all(_built(value, shown).default_collate for value in built))
        for value in values:
            callee = dotted_name(value.func) if type(value) is cst.Call else None
            if callee is not None and (callee in self.facts.classes or callee in self.facts.module_functions):
                return None  # made by code in this file that is not a DataLoader
            if callee is not None and callee.rpartition(".")[2][:1].isupper() \
                    and not callee.endswith("DataLoader"):
                return None  # an instance of another class (a project's `UNetDataloader`): its batches are its own
        return self._by_name(name, shown)

    def _self_attribute_values(self, expr: cst.Attribute, function: FunctionFacts) -> list:
        if not (type(expr.value) is cst.Name and expr.value.value == "self"):
            return []
        owner = self.facts.classes.get(function.class_name or "")
        return list(self.facts.attribute_values(owner, expr.attr.value)) if owner is not None else []


def _built(call: cst.Call, shown: str) -> Loader:
    # `batch_size=None`: no batching, so `default_convert` (lists of numbers stay lists), not `default_collate`.
    collate = any(arg.keyword is not None and (arg.keyword.value == "collate_fn" or (
        arg.keyword.value == "batch_size" and type(arg.value) is cst.Name and arg.value.value == "None"))
        for arg in call.args) or any(arg.star == "**" for arg in call.args)
    return Loader(shown, call, default_collate=not collate)


def _reads_as_loader(name: str) -> bool:
    """`loader`, `train_loader`, `trainloader`, `valLoader`, `train_dl`, `dataloader`, also numbered
    (`train_loader1`, `dl2`); not `model_loader`, `image_loader` or a collection of loaders (`loaders`)."""
    words = [word.lower().rstrip("0123456789") for word in re.split(r"_|(?<=[a-z0-9])(?=[A-Z])", name) if word]
    if any(word in NOT_DATA_WORDS for word in words):
        return False
    return any(word.endswith("loader") or word == "dl" for word in words)


def _path_to(target, node) -> Optional[tuple]:
    """The positions leading from an assignment target to `node`: () for the target itself,
    (1, 0) for `x` in `i, (x, y)`; None when `node` is not in it (or under a starred element)."""
    if target is node:
        return ()
    if type(target) in (cst.Tuple, cst.List):
        for position, element in enumerate(target.elements):
            if type(element) is cst.StarredElement:
                continue
            inner = _path_to(element.value, node)
            if inner is not None:
                return (position, *inner)
    return None


def _part(shape, path: Optional[tuple]) -> Optional[Batch]:
    """The batch (or part of one) at `path` of what an iteration yields."""
    if shape is None or path is None:
        return None
    for position in path:
        if isinstance(shape, Loader):
            return Batch(shape, whole=False)  # unpacked from a batch: a part, however deep
        if not isinstance(shape, tuple) or position >= len(shape):
            return None
        shape = shape[position]
    return Batch(shape, whole=True) if isinstance(shape, Loader) else None

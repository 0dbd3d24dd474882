"""What one sample of the project's own dataset class holds, read from the code of its `__getitem__`.

Static: the class's syntax tree, in the flagged file or in the module it is imported from (whose
file is found, never run), so no sample is ever made by it. Stand-in batches are `[images, labels]`
by default; a dataset of image pairs (`return lr_image, hr_image` in a super-resolution set,
`return {"A": a, "B": b, "A_paths": path}` in an image-to-image set) is consumed as two images, a
dataset of images alone (`return image`) as batches of images without labels,
and a label where the code reads an image stops the run before its claim. Each item the method returns is classed as an image, a label or a
path, by what the method makes it with (`self.transform(...)`, `Image.open(...)` for an image;
`int(...)`, `self.labels[index]` for a label; `os.path.join(...)` for a path) or else by its name.
When any item cannot be classed, or the sample is the usual image and label, the layout is None and
the default batches stand in.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import os
import re
import sys
from dataclasses import dataclass
from typing import Optional

IMAGE, LABEL, PATH = "image", "label", "path"

# What makes an image: a transform, an image reader or loader, a conversion of one.
IMAGE_CALL = re.compile(r"transform|preprocess|process|augment|open|imread|read_image|load_image|loader|to_tensor|"
                        r"totensor|crop|resize|normalize|flip|rotate|convert|rgb|gray", re.IGNORECASE)
# Names, split at underscores or case changes: `lr_image`, `imgA`, `hr`, `target_path`, `label`.
IMAGE_WORD = frozenset({"img", "image", "images", "imgs", "im", "photo", "picture", "hr", "lr", "sr", "input",
                        "inputs", "feature", "features", "real", "sketch", "frame", "mask", "depth", "crop", "view", "a", "b", "x",
                        "source", "src", "content", "style", "noisy", "clean", "blur", "sharp", "low", "high", "gt",
                        "data"})  # `return torch.Tensor(self.data[idx])`: the sample itself
LABEL_WORD = frozenset({"label", "labels", "target", "targets", "y", "cls", "class", "classes", "idx", "index",
                        "category", "id", "attr", "attrs"})
PATH_WORD = frozenset({"path", "paths", "file", "files", "filename", "fname", "name", "names"})
WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")


# Frames of a clip whose count the code does not say (`range(self.video_len)` of a length it is given).
FRAMES = 4


@dataclass(frozen=True)
class SampleLayout:
    kinds: tuple               # each item's kind, in the order the method returns them
    keys: Optional[tuple] = None  # a dict's keys, in that order; None for a tuple or list
    single: bool = False       # the sample is the one image itself (`return image`), no tuple around it
    frames: int = 0            # each image item is a clip of this many images stacked (`stack(frames)`); 0: one

    def describe(self) -> str:
        clips = f" (each image a clip of {self.frames} frames)" if self.frames else ""
        if self.single:
            return f"samples of one image each, without labels{clips}"
        if self.keys is None:
            return "samples of " + ", ".join(self.kinds) + clips
        return "samples of {" + ", ".join(f"{key!r}: {kind}" for key, kind in zip(self.keys, self.kinds)) + "}" + clips


def layout_in_source(source: str, name: str) -> Optional[SampleLayout]:
    """The layout of the samples of the class `name` defined at the top of `source`, or of the one
    class whose datasets the function `name` there returns (`def load_dataset(): ... return
    RockDataset(...), RockDataset(...)`)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    if name in classes:
        return layout_of_class(classes[name])
    functions = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == name]
    if len(functions) != 1:
        return None
    made = _classes_returned(functions[0], set(classes))
    return layout_of_class(classes[made.pop()]) if len(made) == 1 and made <= set(classes) else None


def _classes_returned(function: ast.FunctionDef, classes: set) -> set:
    """The module's classes whose objects the function returns, directly, through names it binds or
    through a DataLoader over them."""
    made_by_name = {target.id: node.value.func.id for node in ast.walk(function) if isinstance(node, ast.Assign)
                    and isinstance(node.value, ast.Call) and isinstance(node.value.func, ast.Name)
                    for target in node.targets if isinstance(target, ast.Name)}
    found: set = set()
    for node in ast.walk(function):
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        values = node.value.elts if isinstance(node.value, (ast.Tuple, ast.List)) else [node.value]
        for value in values:
            if isinstance(value, ast.Call) and ast.unparse(value.func).split(".")[-1] == "DataLoader":
                # `return DataLoader(train_data, batch_size=200)`: batches of the dataset's samples.
                value = value.args[0] if value.args else next(
                    (keyword.value for keyword in value.keywords if keyword.arg == "dataset"), value)
            if isinstance(value, ast.Call) and isinstance(value.func, ast.Name):
                found.add(value.func.id)
            elif isinstance(value, ast.Name):
                found.add(made_by_name.get(value.id, ""))
            else:
                found.add("")
    return found if found <= classes else {"", *found}


def layout_in_module(module: str, class_name: str) -> Optional[SampleLayout]:
    """The layout of the samples of `module.class_name`, read from the module's file."""
    source = module_source(module)
    return layout_in_source(source, class_name) if source is not None else None


def module_file(module: str) -> Optional[str]:
    """A module's file, found on the import path, not run: neither the module nor its packages are
    imported (a package's `__init__.py` may do anything, `sys.exit(1)` when a package it checks for is
    missing); None when it is not a Python file here."""
    if not module:
        return None
    parts = module.split(".")
    for folder in sys.path:
        base = os.path.join(folder or os.curdir, *parts)
        for candidate in (base + ".py", os.path.join(base, "__init__.py")):
            if os.path.isfile(candidate):
                return candidate
    return None


def module_source(module: str) -> Optional[str]:
    """The text of a module's file (`module_file`); None when there is none or it cannot be read."""
    file = module_file(module)
    if file is None:
        return None
    try:
        with open(file, encoding="utf-8") as handle:
            return handle.read()
    except (OSError, UnicodeDecodeError):
        return None


@functools.lru_cache(maxsize=64)
def parsed_file(file: Optional[str]) -> Optional[ast.Module]:
    """A file of code, parsed once per run; None where it cannot be read or does not parse."""
    if file is None:
        return None
    try:
        with open(file, encoding="utf-8") as handle:
            return ast.parse(handle.read(), file)
    except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
        return None


def project_function(module: str, name: str) -> Optional[ast.FunctionDef]:
    """The top-level function `name` of a module of the project (`from utils import get_one_hot_labels`),
    read from its file; None for the standard library's or an installed package's."""
    found = project_definition(module, name)
    return found if isinstance(found, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def project_definition(module: str, name: str) -> Optional[ast.AST]:
    """The top-level function or class `name` of a module of the project, read from its file; None for
    the standard library's or an installed package's."""
    file = module_file(module)
    if file is None or module.split(".")[0] in sys.stdlib_module_names \
            or any(part in ("site-packages", "dist-packages") for part in file.split(os.sep)):
        return None
    tree = parsed_file(file)
    return next((node for node in (tree.body if tree is not None else ())
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name),
                None)


def layout_of_class(node: ast.ClassDef) -> Optional[SampleLayout]:
    """The layout of the class's samples when it is not the usual image and label; None otherwise,
    or when the code does not say."""
    method = next((item for item in node.body if isinstance(item, ast.FunctionDef) and item.name == "__getitem__"),
                  None)
    if method is None:
        return None
    methods = {item.name: item for item in node.body if isinstance(item, ast.FunctionDef)}
    layouts = {_layout(value, function) for value, function in _returned_through_helpers(method, methods)}
    if len(layouts) != 1:
        return None
    layout = layouts.pop()
    if layout is None or IMAGE not in layout.kinds or layout.single and _wraps_a_given_dataset(node, methods):
        return None
    clips = [_clip_frames(item, method, node) for item in _returned_items(method, methods)]
    counts = set(clips) - {0}
    if len(counts) == 1 and len(clips) == len(layout.kinds) and all(
            frames or kind != IMAGE for frames, kind in zip(clips, layout.kinds)):
        # `return stack(imgs), stack(labels)`, each a list of `self.transform(...)` images appended in a
        # loop over the clip: those items are clips of images (a video prediction's frames and label maps,
        # or a clip and its class).
        layout = dataclasses.replace(layout, kinds=tuple(IMAGE if frames else kind
                                                         for frames, kind in zip(clips, layout.kinds)),
                                     frames=counts.pop())
    if None in layout.kinds:
        # `return X, Y, S` (features, class, domain): an item nothing names is a per-sample number (a
        # domain, an index, a flag) more often than anything else; as many items as the class returns.
        layout = dataclasses.replace(layout, kinds=tuple(LABEL if kind is None else kind for kind in layout.kinds))
    if layout.keys is None and layout.kinds == (IMAGE, LABEL) and not layout.frames:
        return None  # the usual image and label: the default batches fit
    return layout


def _wraps_a_given_dataset(node: ast.ClassDef, methods: dict) -> bool:
    """Does `__getitem__` return an item of what the constructor was given, as it was given
    (`self.data = data`, then `return self.data[self.index[i]]`)? A subset or a partition of another
    dataset: its samples are that dataset's, which the class's own code does not say."""
    given = {argument.arg for argument in methods["__init__"].args.args[1:]} if "__init__" in methods else set()
    kept = {ast.unparse(target) for statement in ast.walk(methods.get("__init__", node))
            if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Name)
            and statement.value.id in given for target in statement.targets}
    return any(isinstance(value, ast.Subscript) and ast.unparse(value.value) in kept
               for value, _ in _returned_through_helpers(methods["__getitem__"], methods))


def _returned_through_helpers(method: ast.FunctionDef, methods: dict) -> list[tuple[ast.expr, ast.FunctionDef]]:
    """What each `return` of `method` gives, with the function it is read in: of `return
    self._read_features(index)` (or of a name bound once to that), what that method of the class
    returns, one call deep."""
    found = []
    for value in (child.value for child in ast.walk(method) if isinstance(child, ast.Return) and child.value):
        called = value
        if isinstance(value, ast.Name):
            bound = _bound(value.id, method)
            called = bound[0] if len(bound) == 1 else value
        helper = methods.get(called.func.attr) if isinstance(called, ast.Call) \
            and isinstance(called.func, ast.Attribute) and isinstance(called.func.value, ast.Name) \
            and called.func.value.id == "self" else None
        if helper is None or helper is method:
            found.append((value, method))
        else:
            found.extend((inner.value, helper) for inner in ast.walk(helper)
                         if isinstance(inner, ast.Return) and inner.value is not None)
    return found


def _returned_items(method: ast.FunctionDef, methods: dict) -> list[ast.expr]:
    """The items of the tuple or list `__getitem__` returns (of its first `return`); none for another value."""
    returned = _returned_through_helpers(method, methods)
    value = returned[0][0] if returned else None
    return list(value.elts) if isinstance(value, (ast.Tuple, ast.List)) else []


STACKS = ("stack", "torch.stack", "np.stack", "numpy.stack")


def _clip_frames(item: ast.expr, method: ast.FunctionDef, cls: ast.ClassDef) -> int:
    """How many frames an item `stack(imgs)` stacks, where `imgs` starts as an empty list that a loop of
    the method fills with images (`imgs.append(self.transform(imgloader(path)))`): the loop's count
    when the code says it (a number, or a length the constructor takes with a default), else FRAMES;
    0 for any other item."""
    if not (isinstance(item, ast.Call) and ast.unparse(item.func) in STACKS and len(item.args) == 1
            and isinstance(item.args[0], ast.Name)):
        return 0
    name = item.args[0].id
    for loop in (node for node in ast.walk(method) if isinstance(node, ast.For)):
        appended = [node.args[0] for node in ast.walk(loop) if isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute) and node.func.attr == "append"
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == name and len(node.args) == 1]
        if appended and all(_made_kind(value, method, 0) == IMAGE for value in appended):
            return _loop_count(loop.iter, cls) or FRAMES
    return 0


def _loop_count(looped: ast.expr, cls: ast.ClassDef) -> int:
    """The count of `range(7)`, or of `range(self.video_len)` where the constructor sets `self.video_len`
    from a parameter with an int default; 0 when the code does not say."""
    if not (isinstance(looped, ast.Call) and ast.unparse(looped.func) == "range" and len(looped.args) == 1):
        return 0
    count = looped.args[0]
    if isinstance(count, ast.Constant) and type(count.value) is int:
        return count.value if 1 < count.value <= 64 else 0
    init = next((node for node in cls.body if isinstance(node, ast.FunctionDef) and node.name == "__init__"), None)
    if init is None or not (isinstance(count, ast.Attribute) and ast.unparse(count.value) == "self"):
        return 0
    sources = {value.id for value in _assigned(f"self.{count.attr}", init) if isinstance(value, ast.Name)}
    arguments = init.args.args[len(init.args.args) - len(init.args.defaults):]
    defaults = {argument.arg: default for argument, default in zip(arguments, init.args.defaults)}
    found = {defaults[name].value for name in sources if name in defaults and isinstance(defaults[name], ast.Constant)
             and type(defaults[name].value) is int and 1 < defaults[name].value <= 64}
    return found.pop() if len(found) == 1 else 0


def _assigned(target: str, function: ast.AST) -> list[ast.expr]:
    """The values the function assigns to `target` alone (`imgs = []`, `self.video_len = video_len`)."""
    return [node.value for node in ast.walk(function) if isinstance(node, ast.Assign)
            and [ast.unparse(each) for each in node.targets] == [target]]


def _bound(name: str, function: ast.FunctionDef) -> list[ast.expr]:
    """The value `name` holds where the function's body returns it: the one value assigned to it, or,
    bound several times (`data = self.rows[i]`, ..., `data = {"data": data, "label": y}`), the last
    assignment of the body's own statements, where nothing nested in a loop or a branch binds it after."""
    made = _assigned(name, function)
    if len(made) <= 1:
        return made
    last = None
    for statement in function.body:
        if isinstance(statement, ast.Return):
            break
        if isinstance(statement, ast.Assign) and [ast.unparse(each) for each in statement.targets] == [name]:
            last = statement.value
        elif any(isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
                 for node in ast.walk(statement)):
            last = None  # bound in a branch, a loop or by unpacking: which value is returned is not plain
    return [last] if last is not None else made


def _dict_built(name: str, function: ast.FunctionDef) -> Optional[ast.Dict]:
    """`features = {}` then `features["feature"] = ...; features["label"] = ...`: the dict as if written
    out (its string keys, in order, with the values assigned); None for anything else."""
    made = _assigned(name, function)
    if len(made) != 1 or not (isinstance(made[0], ast.Dict) and not made[0].keys):
        return None
    keys, values = [], []
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Subscript) \
                and isinstance(node.targets[0].value, ast.Name) and node.targets[0].value.id == name:
            key = node.targets[0].slice
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                return None
            keys.append(key)
            values.append(node.value)
    return ast.Dict(keys=keys, values=values) if keys else None


def views_of_class(node: ast.ClassDef) -> int:
    """How many views of one image the class, a transform, makes of it: a contrastive method's
    `__call__` that returns `[self.base(x), self.base(x)]` or `[self.base(x) for _ in range(2)]` makes
    two, and a sample is then a list of that many images; 1 for any other class."""
    method = next((item for item in node.body if isinstance(item, ast.FunctionDef) and item.name == "__call__"),
                  None)
    if method is None:
        return 1
    counts = {_views_returned(child.value) for child in ast.walk(method)
              if isinstance(child, ast.Return) and child.value is not None}
    return counts.pop() if len(counts) == 1 and None not in counts else 1


def _views_returned(value: ast.expr) -> Optional[int]:
    if isinstance(value, (ast.List, ast.Tuple)) and len(value.elts) >= 2 and \
            not any(isinstance(item, ast.Starred) for item in value.elts):
        return len(value.elts)
    if isinstance(value, ast.ListComp) and len(value.generators) == 1:
        looped = value.generators[0].iter
        if isinstance(looped, ast.Call) and isinstance(looped.func, ast.Name) and looped.func.id == "range" and \
                len(looped.args) == 1 and isinstance(looped.args[0], ast.Constant) and \
                isinstance(looped.args[0].value, int) and looped.args[0].value >= 2:
            return looped.args[0].value
    return None


def _layout(value: ast.expr, function: ast.FunctionDef) -> Optional[SampleLayout]:
    if isinstance(value, ast.Name):
        # `sample = {"image": image, "label": label}`, then `return sample`: the literal the name is bound to.
        made = _bound(value.id, function)
        literal = made[0] if len(made) == 1 and isinstance(made[0], (ast.Dict, ast.Tuple, ast.List)) else \
            _widest_dict(made)
        value = _dict_built(value.id, function) or literal or value
    if isinstance(value, (ast.Tuple, ast.List)) and not any(isinstance(item, ast.Starred) for item in value.elts):
        return SampleLayout(tuple(_kind(item, function, _name_of(item)) for item in value.elts))
    if isinstance(value, ast.Dict) and all(isinstance(key, ast.Constant) and isinstance(key.value, str)
                                           for key in value.keys):
        keys = tuple(key.value for key in value.keys)
        return SampleLayout(tuple(_kind(item, function, key) for key, item in zip(keys, value.values)), keys)
    if _kind(value, function, _name_of(value)) == IMAGE:
        return SampleLayout((IMAGE,), single=True)  # `return image`: batches of images alone
    return None


def _widest_dict(made: list[ast.expr]) -> Optional[ast.Dict]:
    """Of dicts a name is bound to in branches (`if self.test: sample = {"img_id": ..., "true_vec": ...}`,
    `else: sample = {"img_id": ..., "image": ..., "true_vec": ...}`), the one that holds every key the
    others hold: a stand-in sample with it serves what any branch's reader takes."""
    if len(made) < 2 or not all(isinstance(value, ast.Dict) and None not in value.keys for value in made):
        return None
    keys = [{ast.unparse(key) for key in value.keys} for value in made]
    return next((value for value, own in zip(made, keys) if all(other <= own for other in keys)), None)


def _name_of(item: ast.expr) -> str:
    return item.id if isinstance(item, ast.Name) else ""


def _kind(item: ast.expr, function: ast.FunctionDef, name: str, depth: int = 0) -> Optional[str]:
    made = _made_kind(item, function, depth)
    return made if made is not None else kind_of_name(name)


def kind_of_name(name: str) -> Optional[str]:
    """The kind an item named `name` holds (`lr_image`, `target_path`, `label`), or None."""
    words = {word.lower() for word in WORD.findall(name)}
    if words & PATH_WORD:
        return PATH
    if words & LABEL_WORD:
        return LABEL
    if words & IMAGE_WORD:
        return IMAGE
    return None


def _made_kind(item: ast.expr, function: ast.FunctionDef, depth: int) -> Optional[str]:
    """What the expression, or the last assignments to the name it is, make."""
    if isinstance(item, ast.Constant):
        return PATH if isinstance(item.value, str) else LABEL
    if isinstance(item, ast.JoinedStr):
        return PATH
    if isinstance(item, ast.IfExp) and depth < 4:  # `self.transform(image) if self.transform else image`
        kinds = {_kind(branch, function, _name_of(branch), depth + 1) for branch in (item.body, item.orelse)}
        return kinds.pop() if len(kinds) == 1 else None
    if isinstance(item, ast.Call):
        callee = ast.unparse(item.func)
        if callee in ("int", "float", "long") or callee.endswith(".long"):
            return LABEL
        if callee.startswith("os.path.") or callee in ("str", "basename"):
            return PATH
        if IMAGE_CALL.search(callee.rsplit(".", 1)[-1]) or IMAGE_CALL.search(callee):
            return IMAGE
        if isinstance(item.func, ast.Name) and any(
                isinstance(value, ast.Call) and IMAGE_CALL.search(ast.unparse(value.func))
                for value in _assigned(item.func.id, function)):
            return IMAGE  # `trans = transforms.Compose([...])`, then `trans(ground_truth)`
        # `self.to_tensor(image)`, `.float()` of an image: what it is called on or with
        inner = [item.func.value] if isinstance(item.func, ast.Attribute) else []
        for part in inner + list(item.args):
            kind = _made_kind(part, function, depth + 1) if depth < 4 else None
            if kind == PATH and part is not (inner[0] if inner else None):
                return IMAGE  # `self.read(self.files[index])`, `np.load(path)`: what the file holds
            if kind is not None:
                return kind
        return None
    if isinstance(item, ast.Subscript):
        words = {word.lower() for word in WORD.findall(ast.unparse(item.value))}
        if words & LABEL_WORD:
            return LABEL
        if words & PATH_WORD:
            return PATH
        if words & IMAGE_WORD:
            return IMAGE  # `self.images[index]`
        return _made_kind(item.value, function, depth + 1) if depth < 4 else None
    if isinstance(item, ast.Name) and depth < 4:
        kinds = {_kind(node.value, function, item.id, depth + 1) for node in ast.walk(function)
                 if isinstance(node, ast.Assign) and any(isinstance(target, ast.Name) and target.id == item.id
                                                         for target in node.targets)}
        kinds.discard(None)
        return kinds.pop() if len(kinds) == 1 else None
    return None

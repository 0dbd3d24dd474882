"""Stand-in tables for a script's `pandas.read_csv(...)` (and seaborn's `load_dataset`).

A course notebook trains a classifier on `iris.csv`: the claim under test (a
loss kept in a list, a redundant copy) is about the training step, which needs a
table of the right make, not the user's file, which --verify never reads. So
verify/datasites.py replaces the read by a call of the verifier's data helper,
and this module makes the table the code expects, from what the code says of it
(static part, read off the syntax tree):

- the columns it reads by name (`df["species"]`, `df[["a", "b"]]`,
  `df.drop("target", axis=1)`, `for col in cont_cols: df[col]`, a helper of the
  file handed the table and a column's name), or those `read_csv(names=[...])` gives;
- for each, whether it holds text: the strings the code compares it with
  (`df["species"] == "setosa"`, `.map({"male": 0, ...})`, `.isin([...])`) are its
  values, in turn; any other named column holds the labels 0 and 1, which a
  classifier of two classes or more and a regression read alike; a column the
  code reads with `pd.to_datetime` holds dates;
- as many unnamed numeric feature columns, first, as the images the code reshapes
  rows into hold (`values.reshape(-1, 28, 28)`), or a first layer of the file's
  networks reads (`nn.Linear(4, 64)`): each such width is a candidate, tried in
  order when the network reads another (verify/script.py).

The run (verify/batches.py) gets a pandas DataFrame of `ROWS` rows, and the
evidence names it.
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Any, Optional

ROWS = 120
DEFAULT_WIDTH = 8  # feature columns where no layer of the file says how many it reads
MAX_WIDTHS = 4
MAX_KEPT = 3  # named columns that may stay among the features, each a candidate of one fewer unnamed
MAX_CANDIDATES = 6
# Readers of a table from a file, as imported.
TABLE_READERS = frozenset({"pandas.read_csv", "pandas.read_table", "pandas.read_excel", "pandas.read_json",
                           "pandas.read_parquet", "pandas.read_feather", "seaborn.load_dataset"})
# Methods of a table that name columns in their arguments (`df.drop("target", axis=1)`).
_NAMING_METHODS = frozenset({"drop", "pop", "groupby"})
# Methods of a column whose string arguments are values it holds (`df["sex"].map({"male": 0})`).
_VALUE_METHODS = frozenset({"map", "replace", "isin"})
DEFAULT_TEXTS = ("a", "b")  # a column read through `.str` that the code compares with nothing
DATE_TEXTS = ("2010-04-19 08:17:56 UTC", "2010-04-17 15:43:53 UTC")  # one the code reads with `pd.to_datetime`


@dataclass(frozen=True)
class TableColumn:
    """A column the code reads by name; `texts`: the strings it holds, empty for a column of numbers.
    `attribute`: read only as an attribute (`iris.species`), a column unless a DataFrame has that
    attribute (`df.values`), which only pandas, at run time, can say."""

    name: str
    texts: tuple = ()
    attribute: bool = False


@dataclass(frozen=True)
class TableLayout:
    """What the code says of a table it reads: its named columns, whether they are all of them (given
    by `read_csv(names=[...])`), and the widths the file's first layers read."""

    columns: tuple = ()
    named: bool = False
    layer_widths: tuple = (DEFAULT_WIDTH,)
    # The first and last columns of a range the code reads by label (`df.loc[:, "MSSubClass":"SaleCondition"]`,
    # Kaggle's house prices): the feature columns sit between them.
    span: tuple = ()

    def widths(self, columns: int) -> tuple:
        """The candidate numbers of unnamed feature columns before `columns` named ones. Which named
        columns the code keeps among the features is not known (it drops the label, maps a text
        column to numbers): each layer's width first, then as many fewer as it may keep. A table of
        which the code names no column takes its label by position (`df.iloc[:, :-1]`, `df.columns[-1]`):
        one more column than the layer reads comes second."""
        if self.named:
            return (0,)
        kept = min(columns, MAX_KEPT)
        label = (1,) if columns == 0 else ()
        widths = tuple(dict.fromkeys(width + more for width in self.layer_widths
                                     for more in (0, *label, *range(-1, -kept - 1, -1)) if width + more > 0))
        return widths[:MAX_CANDIDATES]


def layout_of(tree: ast.Module, names: set, given: Optional[ast.expr] = None,
              reader: Optional[ast.Call] = None) -> TableLayout:
    """The layout of the table bound to `names`, or read straight off its `reader` call
    (`pd.read_csv(path)["Smiling"]`); `given`: the column names its reader is given
    (`read_csv(..., names=[...])`), if any."""
    if isinstance(given, (ast.List, ast.Tuple)) and given.elts and all(_text(element) is not None
                                                                         for element in given.elts):
        return TableLayout(tuple(TableColumn(_text(element)) for element in given.elts), named=True)
    tracked = set(names) | ({id(reader)} if reader is not None else set())
    return TableLayout(columns_read(tree, tracked), layer_widths=feature_widths(tree),
                       span=label_span(tree, _derived_names(tree, tracked)))


# ------------------------------------------------------------------------------ what the code reads (static)


def columns_read(tree: ast.Module, names: set) -> tuple:
    """The columns the code reads of the table bound to `names` (and to the names made from those:
    `df = df.dropna()`, `train = df.sample(frac=0.8)`), that the code does not make itself. `names`
    may also hold the `id` of the reader's call, for columns read straight off it."""
    tracked = _derived_names(tree, names)
    named = _column_names(tree)
    for node in ast.walk(tree):
        # `for col in cont_cols: df[col]`: each of the list's names in turn
        if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name) \
                and isinstance(node.iter, ast.Name) and node.iter.id in named:
            named[node.target.id] = list(dict.fromkeys([*named.get(node.target.id, []), *named[node.iter.id]]))
    read: dict[str, set] = {}
    first_read: dict[str, int] = {}
    first_written: dict[str, int] = {}
    by_subscript: set[str] = set()
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}

    def reads(keys: list, line: int, subscript: bool = True) -> None:
        for key in keys:
            read.setdefault(key, set())
            first_read[key] = min(first_read.get(key, line), line)
            if subscript:
                by_subscript.add(key)

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_table(node.value, tracked) and id(node) not in called \
                and not node.attr.startswith("_"):
            if isinstance(node.ctx, ast.Store):
                first_written[node.attr] = min(first_written.get(node.attr, node.lineno), node.lineno)
            else:
                reads([node.attr], node.lineno, subscript=False)
        elif isinstance(node, ast.Subscript) and _is_table(node.value, tracked):
            if isinstance(node.ctx, ast.Store):
                for key in _keys(node.slice, named):
                    first_written[key] = min(first_written.get(key, node.lineno), node.lineno)
            else:
                reads(_keys(node.slice, named), node.lineno)
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and \
                node.value.attr in ("loc", "at") and _is_table(node.value.value, tracked) and \
                isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2:
            columns = node.slice.elts[1]
            bounds = [columns.lower, columns.upper] if isinstance(columns, ast.Slice) else []
            reads(_keys(columns, named) + [key for key in map(_text, bounds) if key is not None], node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions:
            # `haversine_distance(df, "pickup_latitude", ...)`, whose `df[lat1]` reads the column named
            reads(_columns_handed_to(functions[node.func.id], node, tracked), node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in _NAMING_METHODS and _is_table(node.func.value, tracked):
            for argument in [*node.args[:1], *(keyword.value for keyword in node.keywords
                                               if keyword.arg in ("columns", "labels", "by"))]:
                reads(_keys(argument, named), node.lineno)
    for node in ast.walk(tree):
        column = None
        values: list = []
        if isinstance(node, ast.Compare) and all(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
            column = _column_of(node.left, tracked, named)
            values = [_text(comparator) for comparator in node.comparators]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _VALUE_METHODS:
            column = _column_of(node.func.value, tracked, named)
            for argument in node.args[:1]:
                if isinstance(argument, ast.Dict):
                    values = [_text(key) for key in argument.keys if key is not None]
                elif isinstance(argument, (ast.List, ast.Tuple, ast.Set)):
                    values = [_text(element) for element in argument.elts]
                else:
                    values = [_text(argument)]
        elif isinstance(node, ast.Attribute) and node.attr == "str":
            column = _column_of(node.value, tracked, named)
            values = list(DEFAULT_TEXTS)
        if column in read:
            read[column].update(value for value in values if value is not None)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and ast.unparse(node.func).split(".")[-1] == "to_datetime" and node.args:
            # `pd.to_datetime(df["pickup_datetime"].str[:19])`: the column holds dates, not any text
            argument = node.args[0]
            while isinstance(argument, ast.Subscript) or isinstance(argument, ast.Attribute) and argument.attr == "str":
                column = _column_of(argument, tracked, named)
                if column in read:
                    read[column] = set(DATE_TEXTS)
                    break
                argument = argument.value
    # A column the code makes before it reads it (`df["target"] = np.select(...)`) is not the file's.
    return tuple(TableColumn(name, tuple(sorted(read[name])), attribute=name not in by_subscript)
                 for name in sorted(read, key=lambda name: (first_read[name], name))
                 if first_written.get(name, first_read[name] + 1) >= first_read[name])


def label_span(tree: ast.Module, tracked: set) -> tuple:
    """The bounds of the one range of columns the code reads by label (`df.loc[:, "A":"B"]`), if it
    reads one: both named, the features between them."""
    spans = {(_text(columns.lower), _text(columns.upper)) for node in ast.walk(tree)
             if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
             and node.value.attr == "loc" and _is_table(node.value.value, tracked)
             and isinstance(node.slice, ast.Tuple) and len(node.slice.elts) == 2
             and isinstance(columns := node.slice.elts[1], ast.Slice) and columns.step is None}
    return spans.pop() if len(spans) == 1 and None not in next(iter(spans)) else ()


def _columns_handed_to(function: ast.FunctionDef, call: ast.Call, tracked: set) -> list:
    """The strings a call hands a function of the file beside a table, that the function indexes
    that table with (`def haversine_distance(df, lat1, ...): np.radians(df[lat1])`)."""
    parameters = [argument.arg for argument in function.args.args]
    given = dict(zip(parameters, call.args))
    given.update({keyword.arg: keyword.value for keyword in call.keywords if keyword.arg})
    tables = {name for name, value in given.items() if _is_table(value, tracked)}
    indexes = {node.slice.id for node in ast.walk(function) if isinstance(node, ast.Subscript)
               and isinstance(node.value, ast.Name) and node.value.id in tables and isinstance(node.slice, ast.Name)}
    return [text for name, value in given.items() if name in indexes and (text := _text(value)) is not None]


def feature_widths(tree: ast.Module) -> tuple:
    """The widths a row of features may have: first the values of an image the code reshapes rows
    into (`values.reshape(-1, 28, 28)`: 784, a Fashion-MNIST CSV), then the input widths the file's
    first layers read (`nn.Linear(4, 64)`, `nn.Linear(in_features, h1)` with `in_features=4` a
    default or a setting of the file), in the order they are written."""
    numbers = whole_numbers(tree)
    found: list[tuple[int, int]] = [(0, size) for size in _image_sizes_reshaped_to(tree, numbers)]
    for node in ast.walk(tree):
        callee = node.func.attr if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) else \
            node.func.id if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) else None
        if callee == "Linear":
            width = node.args[0] if node.args else next(
                (keyword.value for keyword in node.keywords if keyword.arg == "in_features"), None)
            if isinstance(width, ast.Constant) and type(width.value) is int:
                value: Optional[int] = width.value
            elif isinstance(width, ast.Name):
                value = numbers.get(width.id)
            else:
                value = None
            if value is not None and value > 0:
                found.append((node.lineno, value))
    widths = tuple(dict.fromkeys(value for _, value in sorted(found)))
    return widths[:MAX_WIDTHS] or (DEFAULT_WIDTH,)


def _image_sizes_reshaped_to(tree: ast.Module, numbers: dict) -> list[int]:
    """The values of the images rows are reshaped into: `x.reshape(-1, 28, 28)`, `.reshape((-1, 1, 28, 28))`."""
    sizes = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "reshape"):
            continue
        dimensions = node.args[0].elts if len(node.args) == 1 and isinstance(node.args[0], ast.Tuple) else node.args
        if len(dimensions) < 3 or not (isinstance(dimensions[0], ast.UnaryOp) and ast.unparse(dimensions[0]) == "-1"):
            continue
        values = [dimension.value if isinstance(dimension, ast.Constant) and type(dimension.value) is int else
                  numbers.get(dimension.id) if isinstance(dimension, ast.Name) else None
                  for dimension in dimensions[1:]]
        if all(value is not None and value > 0 for value in values):
            sizes.append(math.prod(values))
    return sizes


def whole_numbers(tree: ast.Module) -> dict:
    """Names given one whole number in the file: settings (`INPUT_SIZE = 4`) and parameter defaults."""
    found: dict[str, set] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name) and \
                isinstance(node.value, ast.Constant) and type(node.value.value) is int:
            found.setdefault(node.targets[0].id, set()).add(node.value.value)
        elif isinstance(node, ast.arguments):
            positional = [*node.posonlyargs, *node.args]
            pairs = list(zip(positional[len(positional) - len(node.defaults):], node.defaults)) + \
                [(argument, default) for argument, default in zip(node.kwonlyargs, node.kw_defaults) if default]
            for argument, default in pairs:
                if isinstance(default, ast.Constant) and type(default.value) is int:
                    found.setdefault(argument.arg, set()).add(default.value)
    for parameter, value in _given_to_classes(tree):
        found.setdefault(parameter, set()).add(value)
    return {name: next(iter(values)) for name, values in found.items() if len(values) == 1}


def _given_to_classes(tree: ast.Module) -> list[tuple[str, int]]:
    """The whole numbers the file's calls of its own classes give their `__init__` parameters
    (`FangNet(331, 1)` for `def __init__(self, input_num, output_num)`)."""
    inits = {node.name: item for node in tree.body if isinstance(node, ast.ClassDef) for item in node.body
             if isinstance(item, ast.FunctionDef) and item.name == "__init__"}
    given = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in inits):
            continue
        parameters = [argument.arg for argument in inits[node.func.id].args.args[1:]]
        pairs = [*zip(parameters, node.args), *((keyword.arg, keyword.value) for keyword in node.keywords)]
        given += [(name, value.value) for name, value in pairs
                  if name and isinstance(value, ast.Constant) and type(value.value) is int]
    return given


def _derived_names(tree: ast.Module, names: set) -> set:
    tracked = set(names)
    while True:
        more = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Assign) and _is_table(_root_value(node.value), tracked):
                more |= {target.id for target in node.targets if isinstance(target, ast.Name)} - tracked
        if not more:
            return tracked
        tracked |= more


def _root_value(node: ast.expr) -> ast.expr:
    """`df` of `df.dropna().reset_index(drop=True)`: through method calls only (not `df["a"]`, a column)."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        node = node.func.value
    return node


def _is_table(node: ast.expr, tracked: set) -> bool:
    return isinstance(node, ast.Name) and node.id in tracked or id(node) in tracked


def _column_of(node: ast.expr, tracked: set, named: dict) -> Optional[str]:
    if isinstance(node, ast.Attribute) and _is_table(node.value, tracked):
        return node.attr
    if isinstance(node, ast.Subscript) and _is_table(node.value, tracked):
        keys = _keys(node.slice, named)
        return keys[0] if len(keys) == 1 else None
    return None


def _keys(node: ast.expr, named: Optional[dict] = None) -> list:
    """The column names an index or an argument gives: `"medv"`, `["a", "b"]`, or a name the file
    binds once to such a value (`target = "medv"`, then `df.drop(target, axis=1)`)."""
    if isinstance(node, ast.Name) and named and node.id in named:
        return list(named[node.id])
    if isinstance(node, (ast.List, ast.Tuple)):
        return [key for key in (_text(element) for element in node.elts) if key is not None]
    key = _text(node)
    return [key] if key is not None else []


def _column_names(tree: ast.Module) -> dict:
    """Top-level names bound once, to a string or a list of strings: column names, where the code
    indexes a table with them (`features = ["lstat", "crim"]`, `target = "medv"`)."""
    assigned: dict = {}
    for node in tree.body:
        for target in (node.targets if isinstance(node, ast.Assign) else []):
            if isinstance(target, ast.Name):
                value = node.value
                texts = [_text(element) for element in value.elts] if isinstance(value, (ast.List, ast.Tuple)) \
                    else [_text(value)]
                assigned.setdefault(target.id, []).append(texts if texts and None not in texts else None)
    return {name: values[0] for name, values in assigned.items() if len(values) == 1 and values[0] is not None}


def _text(node: Optional[ast.expr]) -> Optional[str]:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


# ------------------------------------------------------------------------------ the table (run time)


def made(plan: Any, site: Any) -> Any:
    """The table `site`'s read returns, made up: the plan's candidate number of feature columns, then
    the named ones."""
    import numpy as np

    from torchcopylint.verify.absent import AbsentPackageUsed

    try:
        import pandas as pd
        pd.DataFrame  # a stand-in module of an absent pandas raises here
    except (ImportError, AbsentPackageUsed):
        raise AbsentPackageUsed("pandas", said=f"needs `pandas`, which is not installed (the code reads a table "
                                               f"with `{site.callee}`)") from None
    layout = site.table or TableLayout()
    columns = [column for column in layout.columns if not (column.attribute and hasattr(pd.DataFrame, column.name))]
    widths = layout.widths(len(columns))
    plan.candidate_count = max(plan.candidate_count, len(widths))
    plan.used = True
    width = widths[min(plan.choice, len(widths) - 1)]
    generator = np.random.default_rng(1000 + site.index)
    data: dict = {f"feature_{number}": generator.normal(0.0, 1.0, ROWS) for number in range(width)}
    shown = [f"{width} random feature columns"] if width else []
    if len(layout.span) == 2 and set(layout.span) <= {column.name for column in columns}:
        first, last = layout.span
        data = {first: None, **data, last: None}  # places the range's bounds around the features
        shown[-1:] = [f"{shown[-1]} between `{first}` and `{last}`"] if shown else []
    for column in columns:
        if column.texts:
            data[column.name] = [column.texts[row % len(column.texts)] for row in range(ROWS)]
            shown.append(f"`{column.name}` holding {', '.join(repr(text) for text in column.texts)} in turn")
        elif layout.named:
            data[column.name] = generator.normal(0.0, 1.0, ROWS)
            shown.append(f"`{column.name}` random numbers")
        else:
            data[column.name] = np.arange(ROWS, dtype=np.int64) % 2
            shown.append(f"`{column.name}` 0 and 1 in turn")
    plan.describe(site, f"a table of {ROWS} rows: {'; '.join(shown)} (the file is not read)")
    return pd.DataFrame(data)

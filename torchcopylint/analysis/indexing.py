"""Which subscripts surely copy: advanced indexing, and the clones of what it returns.

`x[idx]` makes a view when every index is an int, a slice, `None` or `...` (basic indexing),
and a new tensor when one of them is a tensor of one dimension or more, a list, or a boolean
mask (advanced indexing): the values are gathered into fresh memory that nothing else shares.
A zero-dimensional integer tensor is taken for an int (`x[torch.tensor(1)]` is a view), so a
name is an advanced index only when what it holds surely has a dimension: a list, a mask made by
a comparison of tensors, `.nonzero()`, `torch.randperm(n)`, a slice of one of those.

`x[idx].clone()` therefore copies a copy (TCL001). The facts here are read after the walk of
the function, from the bindings it recorded, and only for the function's clone calls.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import libcst as cst

from torchcopylint.analysis.aliasing import VIEW_CHAIN_METHODS, FunctionFacts, clone_source, constant_position
from torchcopylint.analysis.torchnames import TorchNames, dotted_name, numpy_name

# torch and NumPy functions whose result is an index tensor (or array) of one dimension or more,
# or a tuple of them (`torch.where(mask)`, `np.nonzero(a)`).
INDEX_FUNCTIONS = frozenset(
    """
    torch.randperm torch.arange torch.nonzero torch.argwhere torch.argsort torch.multinomial
    numpy.arange numpy.nonzero numpy.flatnonzero numpy.argwhere numpy.argsort numpy.random.permutation
    """.split()
)
# `torch.where(mask)` / `np.where(mask)` with the mask alone: a tuple of index tensors.
WHERE_FUNCTIONS = frozenset({"torch.where", "numpy.where"})
# `torch.tensor([...])`: an index when built from a list literal.
FROM_LIST_FUNCTIONS = frozenset({"torch.tensor", "torch.LongTensor", "torch.as_tensor", "numpy.array",
                                 "numpy.asarray", "torch.cuda.LongTensor"})
# Random integers with a size: the position of the size among the positional arguments.
SIZED_FUNCTIONS = {"torch.randint": 2, "numpy.random.randint": 2, "numpy.random.choice": 1}
# Tensor methods whose result is an index tensor of one dimension or more.
INDEX_METHODS = frozenset({"nonzero", "argwhere", "argsort"})
# Methods whose result has one dimension at least whatever the receiver (`t.flatten()`, `t.view(-1)`).
ONE_DIMENSIONAL_METHODS = frozenset({"flatten", "ravel"})
# Tuples whose second part is an index tensor of the input's shape (`values, indices = x.topk(k)`).
INDICES_OF = frozenset({"topk", "sort"})
COMPARISONS = (cst.Equal, cst.NotEqual, cst.LessThan, cst.GreaterThan, cst.LessThanEqual, cst.GreaterThanEqual)
MAX_DEPTH = 4


@dataclass(frozen=True)
class FreshCopy:
    """`x[idx].clone()` (or a clone of a view of it) where `x[idx]` is advanced indexing."""

    clone: cst.Call
    cloned: cst.BaseExpression  # `x[idx]`, or a view of it: what the fix leaves
    subscript: cst.Subscript
    index: str  # how the message names the index: "the mask `keep`", "the list `[0, 2]`"


class Indexing:
    """Advanced indexing in one module: `names` resolves torch, `numpy` NumPy's local names."""

    def __init__(self, names: TorchNames, numpy: dict, code_for) -> None:
        self.names = names
        self.numpy = numpy
        self.code_for = code_for

    def fresh_copies(self, function: FunctionFacts) -> list[FreshCopy]:
        """The clones, in `function`, of what advanced indexing returned. A clone that is then
        detached (`x[idx].clone().detach()`) is left to TCL005, whose fix puts the detach first."""
        clones = [call for call in function.call_statement if _may_be_clone(call)]
        if not clones:
            return []
        detached = {id(call.func.value) for call in function.call_statement
                    if isinstance(call.func, cst.Attribute) and call.func.attr.value == "detach"}
        found = []
        for clone in clones:
            cloned = clone_source(clone, self.names)
            if cloned is None or id(clone) in detached:
                continue
            subscript = self._viewed_subscript(cloned)
            if subscript is None:
                continue
            index = self.advanced_index(subscript, function)
            if index is not None:
                found.append(FreshCopy(clone, cloned, subscript, index))
        return found

    def _viewed_subscript(self, expr) -> Optional[cst.Subscript]:
        """`x[idx]` for `x[idx]` or a view of it (`x[idx].view(-1)`, `x[idx].detach()`)."""
        while isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) \
                and (expr.func.attr.value in VIEW_CHAIN_METHODS or expr.func.attr.value == "detach") \
                and self.names.qualified_name(expr.func) is None:
            expr = expr.func.value
        return expr if isinstance(expr, cst.Subscript) else None

    def advanced_index(self, subscript: cst.Subscript, function: FunctionFacts) -> Optional[str]:
        """How a message names the index that surely makes `subscript` advanced indexing, or None."""
        for element in subscript.slice:
            index = element.slice
            if not isinstance(index, cst.Index):
                continue
            kind = self._index_kind(index.value, function, 0)
            if kind is not None:
                return f"{kind} `{_short(self.code_for(index.value))}`"
        return None

    def _qualified(self, func) -> Optional[str]:
        """torch's or NumPy's name for a callee (`np.where` -> "numpy.where"), else None."""
        return self.names.qualified_name(func) or numpy_name(func, self.numpy)

    def _index_kind(self, expr, function: FunctionFacts, depth: int) -> Optional[str]:
        """"the list", "the mask" or "the index tensor" when `expr` surely is one, of a dimension or more."""
        if depth > MAX_DEPTH:
            return None
        if isinstance(expr, (cst.List, cst.ListComp)):
            return "the list"
        if isinstance(expr, cst.Comparison):
            if len(expr.comparisons) == 1 and isinstance(expr.comparisons[0].operator, COMPARISONS) \
                    and (self._is_tensor(expr.left, function, depth) or
                         self._is_tensor(expr.comparisons[0].comparator, function, depth)):
                return "the mask"
            return None
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.BitInvert):
            return "the mask" if self._index_kind(expr.expression, function, depth + 1) == "the mask" else None
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, (cst.BitAnd, cst.BitOr, cst.BitXor)):
            sides = (self._index_kind(expr.left, function, depth + 1),
                     self._index_kind(expr.right, function, depth + 1))
            return "the mask" if "the mask" in sides else None
        if isinstance(expr, cst.Name):
            bindings = function.bindings_at(expr)
            if not bindings or any(binding.kind not in ("assign", "walrus", "unpack") or binding.value is None
                                   for binding in bindings):
                return None
            kinds = set()
            for binding in bindings:
                if binding.kind == "unpack":
                    # `_, order = scores.sort()`, `rows, cols = torch.where(mask)`
                    position = _unpacked_position(binding)
                    kinds.add("the index tensor" if position is not None
                              and self._index_tuple(binding.value, position) else None)
                    continue
                kind = self._index_kind(binding.value, function, depth + 1)
                if kind == SQUEEZED:
                    # `ind = acc.nonzero().squeeze()` is 0-d for one hit; code that then says
                    # `if len(ind.shape) == 0: ind = ind.unsqueeze(0)` reaches here with it 1-d.
                    kind = "the index tensor" if _guarded_against_zero_dimensions(binding, expr, function) else None
                kinds.add(kind)
            if None in kinds:
                return None
            return next(iter(kinds)) if len(kinds) == 1 else "the index tensor"
        if isinstance(expr, cst.Call):
            return self._call_kind(expr, function, depth)
        if isinstance(expr, cst.Subscript):
            position = constant_position(expr)
            if position is not None and self._index_tuple(expr.value, position):
                return "the index tensor"  # `torch.where(mask)[0]`, `x.topk(k)[1]`
            if all(isinstance(element.slice, cst.Slice) for element in expr.slice):
                kind = self._index_kind(expr.value, function, depth + 1)  # `perm[i:i + batch]`
                return kind if kind in ("the index tensor", "the mask") else None
            return None
        if isinstance(expr, cst.Attribute) and expr.attr.value == "indices" and isinstance(expr.value, cst.Call) \
                and isinstance(expr.value.func, cst.Attribute) and expr.value.func.attr.value in INDICES_OF:
            return "the index tensor"  # `x.topk(k).indices`
        return None

    def _call_kind(self, call: cst.Call, function: FunctionFacts, depth: int) -> Optional[str]:
        qualified = self._qualified(call.func)
        if qualified is not None:
            if qualified in INDEX_FUNCTIONS:
                return "the index tensor"
            positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
            if qualified in FROM_LIST_FUNCTIONS and positional \
                    and self._index_kind(positional[0], function, depth + 1) == "the list":
                return "the index tensor"  # `torch.tensor([2, 5])`, `torch.LongTensor(chosen)`
            if qualified in SIZED_FUNCTIONS:
                # `torch.randint(0, n, (batch,))`, `np.random.choice(n, batch)`: a size makes an array.
                size = _keyword(call, "size")
                if qualified.startswith("torch."):
                    # `torch.randint(n, (b,))` or `torch.randint(0, n, (b,))`: the size is a tuple.
                    sizes = [size] if size is not None else positional[1:]
                    return "the index tensor" if any(isinstance(each, (cst.Tuple, cst.List)) and each.elements
                                                     for each in sizes) else None
                if size is None and len(positional) > SIZED_FUNCTIONS[qualified]:
                    size = positional[SIZED_FUNCTIONS[qualified]]
                return "the index tensor" if size is not None and not (
                    isinstance(size, cst.Name) and size.value == "None") else None
            return None
        if dotted_name(call.func) == "random.sample" and all(
                binding.kind == "import" for binding in function.bindings_at(root_of(call.func))):
            return "the list"  # `random.sample(range(n), k)`
        func = call.func
        if isinstance(func, cst.Name) and func.value in ("list", "sorted") and len(call.args) >= 1 \
                and not call.args[0].star and not function.bindings_at(func):
            return "the list"  # `list(range(n))`, `list(chosen)`, `sorted(keep)`
        if not isinstance(func, cst.Attribute):
            return None
        method = func.attr.value
        if method in INDEX_METHODS and not any(arg.keyword is not None and arg.keyword.value == "as_tuple"
                                               for arg in call.args):
            return "the index tensor"
        if method in ONE_DIMENSIONAL_METHODS or method == "unsqueeze" \
                or (method in ("view", "reshape") and len(call.args) == 1 and _is_minus_one(call.args[0].value)):
            # One dimension at least, whatever it was: a mask stays a mask, anything else is read
            # as indices.
            kind = self._index_kind(func.value, function, depth + 1)
            if kind == SQUEEZED:
                return "the index tensor"
            return kind or ("the index tensor" if self._is_tensor(func.value, function, depth + 1) else None)
        if method in ("long", "to", "cuda", "cpu", "int", "bool"):
            return self._index_kind(func.value, function, depth + 1)
        if method == "squeeze" and self._index_kind(func.value, function, depth + 1) == "the index tensor":
            return SQUEEZED  # one dimension or none
        return None

    def _index_tuple(self, expr, position: int) -> bool:
        """Is part `position` of the tuple `expr` returns an index tensor of a dimension or more:
        `torch.where(mask)`, `np.where(mask)`, `x.nonzero(as_tuple=True)`, `torch.nonzero(x)` (its
        rows); the second part of `x.topk(k)` and `x.sort()`."""
        if not isinstance(expr, cst.Call):
            return False
        qualified = self._qualified(expr.func)
        if qualified in WHERE_FUNCTIONS:
            return len(expr.args) == 1
        if qualified in ("torch.nonzero", "numpy.nonzero"):
            return True
        if qualified in ("torch.topk", "torch.sort"):
            return position == 1
        if qualified is None and isinstance(expr.func, cst.Attribute):
            method = expr.func.attr.value
            if method == "nonzero":
                return True
            if method in INDICES_OF:
                return position == 1
        return False

    def _is_tensor(self, expr, function: FunctionFacts, depth: int) -> bool:
        """Is a side of a comparison surely a tensor (so that the comparison is a mask, not a bool)?"""
        if depth > MAX_DEPTH:
            return False
        if isinstance(expr, cst.Name):
            bindings = function.bindings_at(expr)
            return bool(bindings) and all(binding.tensorness.is_tensor for binding in bindings)
        if isinstance(expr, cst.Call):
            qualified = self.names.qualified_name(expr.func)
            if qualified is not None:
                return qualified.rpartition(".")[0] == "torch" and qualified.rpartition(".")[2][:1].islower() \
                    and qualified not in ("torch.is_tensor", "torch.numel", "torch.is_grad_enabled")
            if isinstance(expr.func, cst.Attribute):
                return expr.func.attr.value in TENSOR_METHODS and self._is_tensor(expr.func.value, function, depth + 1)
            return False
        if isinstance(expr, cst.BinaryOperation):
            return self._is_tensor(expr.left, function, depth + 1) or self._is_tensor(expr.right, function, depth + 1)
        if isinstance(expr, cst.Subscript):
            return self._is_tensor(expr.value, function, depth + 1)
        return False


# An index tensor `.squeeze()`d: of no dimension when it held one index (`x[i]` is then a view).
SQUEEZED = "squeezed"


def _guarded_against_zero_dimensions(binding, use: cst.Name, function: FunctionFacts) -> bool:
    """Is `binding` (`ind = hits.nonzero().squeeze()`) followed, in its own block and before
    `use`, by `if len(ind.shape) == 0:` (or `ind.dim() == 0`, `ind.ndim == 0`) whose body
    rebinds `ind`? Every path from the binding to the use then passes the test, and the binding
    reaches the use only where it had a dimension."""
    line = function.line_of_statement.get(binding.statement)
    use_order = function.order_of(function.reads[use].statement) if use in function.reads else -1
    if line is None or use_order < 0:
        return False
    block = _block_holding(function.node, line)
    if block is None:
        return False
    position = block.index(line)
    for statement in block[position + 1:]:
        if function.order_of(statement) >= use_order:
            return False
        if isinstance(statement, cst.If) and _tests_zero_dimensions(statement.test, binding.name) \
                and _rebinds(statement.body, binding.name):
            return True
    return False


def _block_holding(node, statement) -> Optional[list]:
    """The list of statements (a function's or compound statement's body) that holds `statement`."""
    pending = [node]
    while pending:
        current = pending.pop()
        body = getattr(current, "body", None)
        if isinstance(body, cst.IndentedBlock):
            body = body.body
        if isinstance(body, (list, tuple)):
            if statement in body:
                return list(body)
            pending.extend(child for child in body if isinstance(child, cst.BaseCompoundStatement))
        for part in ("orelse", "handlers", "finalbody"):
            extra = getattr(current, part, None)
            if isinstance(extra, (list, tuple)):
                pending.extend(extra)
            elif extra is not None:
                pending.append(extra)
    return None


def _tests_zero_dimensions(test, name: str) -> bool:
    """`len(name.shape) == 0`, `name.dim() == 0`, `name.ndim == 0`, `name.ndimension() == 0`."""
    if not (isinstance(test, cst.Comparison) and len(test.comparisons) == 1
            and isinstance(test.comparisons[0].operator, cst.Equal)
            and isinstance(test.comparisons[0].comparator, cst.Integer)
            and test.comparisons[0].comparator.value == "0"):
        return False
    left = test.left
    if isinstance(left, cst.Call) and isinstance(left.func, cst.Name) and left.func.value == "len" \
            and len(left.args) == 1:
        shape = left.args[0].value
        return isinstance(shape, cst.Attribute) and shape.attr.value == "shape" \
            and isinstance(shape.value, cst.Name) and shape.value.value == name
    if isinstance(left, cst.Call) and isinstance(left.func, cst.Attribute) and not left.args:
        left = left.func
        if left.attr.value not in ("dim", "ndimension"):
            return False
    elif not (isinstance(left, cst.Attribute) and left.attr.value == "ndim"):
        return False
    return isinstance(left.value, cst.Name) and left.value.value == name


def _rebinds(body, name: str) -> bool:
    statements = body.body if isinstance(body, cst.IndentedBlock) else [body]
    for statement in statements:
        for small in getattr(statement, "body", []):
            if isinstance(small, cst.Assign) and any(
                    isinstance(target.target, cst.Name) and target.target.value == name for target in small.targets):
                return True
    return False


# Methods of a tensor that return a tensor (the comparison of their result is a mask).
TENSOR_METHODS = frozenset({"argmax", "argmin", "sum", "mean", "abs", "norm", "float", "long", "squeeze", "view",
                            "reshape", "flatten", "detach", "cpu", "cuda", "to", "sigmoid", "softmax"})


def _may_be_clone(call: cst.Call) -> bool:
    func = call.func
    return (isinstance(func, cst.Attribute) and func.attr.value == "clone") or \
        (isinstance(func, cst.Name) and func.value == "clone")


def _unpacked_position(binding) -> Optional[int]:
    """Which part of a tuple a binding of kind "unpack" takes (`_, order = scores.sort()`: 1)."""
    statement = binding.statement
    if not isinstance(statement, cst.Assign) or len(statement.targets) != 1:
        return None
    target = statement.targets[0].target
    if not isinstance(target, (cst.Tuple, cst.List)):
        return None
    for position, element in enumerate(target.elements):
        if element.value is binding.target:
            return position
    return None


def _keyword(call: cst.Call, name: str):
    return next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == name), None)


def root_of(expr) -> cst.Name:
    while isinstance(expr, cst.Attribute):
        expr = expr.value
    return expr


def _is_minus_one(expr) -> bool:
    return isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus) \
        and isinstance(expr.expression, cst.Integer) and expr.expression.value == "1"


def _short(text: str, limit: int = 30) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."

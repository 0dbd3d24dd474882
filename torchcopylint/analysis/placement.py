"""Where a tensor lives and what it holds: the device and dtype of an expression, as far as the
source shows them.

These questions are answered here, once for every rule:

- `dtype_of(expr)`: "float32", "float64", "int64", "bool", ... or None when not in sight. Only
  floating-point and complex tensors can require grad, so `surely_integral` is how the autograd
  facts know that `out.argmax(1)` or the indices half of `_, pred = out.max(1)` never do.
- `device_kind(expr)`: "cpu", "gpu" (surely not the CPU), "device" (a device chosen at run time,
  maybe the CPU) or "unknown" (maybe not a device at all), from literals, `torch.device(...)`,
  `x.device`, and the names and `self.` attributes bound to them.
- `integral_use(binding)`: what the uses of a name say of its dtype, where no assignment says it
  (class labels unpacked from a batch, a `target` argument): "sure" when a use needs an integer
  (or bool) tensor (an index `x[y]`, `x.gather(1, y)`, `F.one_hot(y)`, the target of
  `F.nll_loss`/`nn.NLLLoss`, `F.embedding(y, w)`), "likely" when a use is typical of class indices
  but also takes floats (the target of `F.cross_entropy`/`nn.CrossEntropyLoss`, which accept class
  probabilities; compared with `argmax` results; converted with `.long()`). A name handed to a
  same-file function or method is read on inside it, as that function's parameter.
- `named_as_labels(binding)`: a parameter named as class labels (`labels`, `targets`, ...) that the
  function never computes with (only moves, measures, compares for equality, keeps): likely
  integers, for TCL005's "likely" reading.
- `dtype_of` of a call of a same-file function: the dtype all of its returns give.

Names are followed through the function's bindings, then the module's top level (a notebook's
`device = torch.device(...)`), and `self.<attribute>` through what the class assigns it anywhere.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst

from torchcopylint.analysis.aliasing import position_in_target
from torchcopylint.analysis.syntax import child_nodes, is_self_attribute, single_index

# torch.<name> -> the dtype it names.
DTYPE_NAMES = {
    "float": "float32", "float32": "float32", "double": "float64", "float64": "float64",
    "half": "float16", "float16": "float16", "bfloat16": "bfloat16",
    "cfloat": "complex64", "complex64": "complex64", "cdouble": "complex128", "complex128": "complex128",
    "long": "int64", "int64": "int64", "int": "int32", "int32": "int32", "short": "int16", "int16": "int16",
    "int8": "int8", "uint8": "uint8", "uint16": "uint16", "uint32": "uint32", "uint64": "uint64", "bool": "bool",
}
INTEGRAL = frozenset({"int64", "int32", "int16", "int8", "uint8", "uint16", "uint32", "uint64", "bool"})
# The legacy tensor types (`torch.FloatTensor`, `torch.cuda.FloatTensor`, also as strings): a dtype and a device.
LEGACY_TYPES = {
    "FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16", "BFloat16Tensor": "bfloat16",
    "LongTensor": "int64", "IntTensor": "int32", "ShortTensor": "int16", "CharTensor": "int8",
    "ByteTensor": "uint8", "BoolTensor": "bool",
}
# Methods that convert to one dtype.
DTYPE_METHODS = {
    "float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16",
    "long": "int64", "int": "int32", "short": "int16", "char": "int8", "byte": "uint8", "bool": "bool",
}
# torch functions whose result is an integer (or bool) tensor, whatever their input.
INTEGRAL_TORCH_FUNCTIONS = {
    **dict.fromkeys("argmax argmin argsort randint randint_like randperm nonzero argwhere bucketize searchsorted "
                    "multinomial bincount tril_indices triu_indices".split(), "int64"),
    **dict.fromkeys("eq ne gt lt ge le greater less greater_equal less_equal not_equal isnan isinf isfinite "
                    "isposinf isneginf isclose logical_not logical_and logical_or logical_xor".split(), "bool"),
}
INTEGRAL_METHODS = {
    **dict.fromkeys("argmax argmin argsort nonzero argwhere bincount".split(), "int64"),
    **dict.fromkeys("eq ne gt lt ge le isnan isinf isfinite isclose logical_not logical_and logical_or "
                    "logical_xor".split(), "bool"),
}
# (values, indices) pairs: the second part holds integer indices. Always paired:
PAIRED_ALWAYS = frozenset({"sort", "topk", "kthvalue", "mode", "cummax", "cummin"})
# Paired only when given a dimension (`x.max(1)`, `x.max(dim=1)`; `x.max(y)` is element-wise):
PAIRED_WITH_DIM = frozenset({"max", "min", "median", "nanmedian"})
# What keeps the dtype of its (first) tensor: views, copies, moves, selections.
DTYPE_PRESERVING_METHODS = frozenset(
    "clone detach contiguous cpu cuda to view view_as reshape reshape_as flatten squeeze unsqueeze permute "
    "transpose t expand expand_as repeat repeat_interleave narrow select flip roll pin_memory masked_select "
    "index_select gather unfold".split()
)
DTYPE_PRESERVING_FUNCTIONS = frozenset(
    "clone flatten reshape squeeze unsqueeze transpose permute cat stack index_select gather flip roll "
    "masked_select narrow select".split()
)
# Factories that make the default floating dtype unless told otherwise.
FLOAT_FACTORIES = frozenset("randn rand empty zeros ones eye linspace logspace normal".split())
LIKE_FACTORIES = frozenset("zeros_like ones_like empty_like full_like rand_like randn_like".split())
MAX_DEPTH = 8
# The fields of a tokenizer's output (a `BatchEncoding`, or the batch a collator makes of it): token
# ids and masks, integer tensors whatever a network later does with them.
TOKEN_FIELDS = frozenset({"input_ids", "attention_mask", "token_type_ids", "special_tokens_mask"})
# Dictionary entries that hold class indices: a detection model's predictions (`outputs[0]["labels"]`
# beside its float "boxes" and "scores"), a batch's `batch["labels"]`. Data or an argmax, never a
# value that requires grad.
INTEGER_KEYS = TOKEN_FIELDS | {"labels"}
# Where a use needs an integer tensor, by callee: (position, keyword) of the argument, and how sure
# the use makes it ("sure": any other dtype raises; "likely": class indices are usual, floats taken).
INTEGRAL_ARGUMENTS = {
    "torch.nn.functional.nll_loss": (1, "target", "sure"),
    "torch.nn.functional.cross_entropy": (1, "target", "likely"),
    "torch.nn.functional.one_hot": (0, "tensor", "sure"),
    "torch.nn.functional.embedding": (0, "input", "sure"),
    "torch.gather": (2, "index", "sure"),
    "torch.index_select": (2, "index", "sure"),
    "torch.take_along_dim": (1, "indices", "sure"),
    "torch.bincount": (0, "input", "sure"),
}
INTEGRAL_METHOD_ARGUMENTS = {  # tensor.<method>(..., index, ...)
    "gather": (1, "index"), "index_select": (1, "index"), "scatter": (1, "index"), "scatter_": (1, "index"),
    "scatter_add": (1, "index"), "scatter_add_": (1, "index"), "scatter_reduce": (1, "index"),
    "scatter_reduce_": (1, "index"), "index_add": (1, "index"), "index_add_": (1, "index"),
    "index_copy": (1, "index"), "index_copy_": (1, "index"), "index_fill": (1, "index"),
    "index_fill_": (1, "index"), "take_along_dim": (0, "indices"),
}
# Loss modules whose second argument is the target (class indices), by class.
INTEGRAL_TARGET_MODULES = {"NLLLoss": "sure", "CrossEntropyLoss": "likely"}
# Parameter names that say "class labels" (`forward(self, images, labels)` of an attack or a metric).
LABEL_NAMES = frozenset({"labels", "label", "targets", "target_labels", "y_true"})
# Methods that measure a tensor or hand its values over, without computing with them.
MEASURING_METHODS = frozenset({"size", "dim", "numel", "tolist", "numpy", "item", "nelement"})
# Conversions to an integer dtype that say the value held class indices (or whole numbers) before.
INTEGER_CASTS = frozenset({"long", "int"})


class Placement:
    """Device and dtype answers for one module (ModuleFacts.placement); `facts` is its ModuleFacts."""

    def __init__(self, facts) -> None:
        self.facts = facts
        self.names = facts.names
        self._default_dtype_changed: Optional[bool] = None
        self._integral_uses: dict = {}  # binding -> "sure", "likely" or None
        self._parents: dict = {}  # statement -> {id(child): parent} over the statement's own expressions
        self._targets: dict = {}  # function node -> {target node: binding}
        self._returned: dict = {}  # function node -> the dtype its returns give, or None

    # ------------------------------------------------------------------ dtype

    def dtype_named(self, expr) -> Optional[str]:
        """The dtype an expression spells: `torch.float64`, `torch.long`, a legacy type
        (`torch.cuda.FloatTensor`, "torch.FloatTensor"); None otherwise."""
        legacy = self.legacy_type(expr)
        if legacy is not None:
            return legacy[0]
        module, _, name = (self.names.qualified_name(expr) or "").rpartition(".")
        return DTYPE_NAMES.get(name) if module == "torch" else None

    def dtype_value(self, expr, function, depth: int = 0) -> Optional[str]:
        """The dtype an expression holds: spelled (`torch.float64`), or a name or `self.` attribute
        every assignment of which spells the same dtype (`self.precision = torch.float64`)."""
        named = self.dtype_named(expr)
        if named is not None or depth > 4:
            return named
        if type(expr) is cst.Name:
            located = self.values_of(expr, function)
        elif type(expr) is cst.Attribute:
            located = self._attribute_values(expr, function)
        else:
            return None
        found = {self.dtype_value(value, where, depth + 1) for value, where in located}
        return found.pop() if len(found) == 1 else None

    def legacy_type(self, expr) -> Optional[tuple[str, str]]:
        """(dtype, "cpu" or "gpu") for `torch.FloatTensor`, `torch.cuda.LongTensor`, or the same as a string."""
        if type(expr) is cst.SimpleString:
            text = str(expr.evaluated_value)
        else:
            text = self.names.qualified_name(expr) or ""
        module, _, name = text.rpartition(".")
        if name not in LEGACY_TYPES or module not in ("torch", "torch.cuda"):
            return None
        return LEGACY_TYPES[name], "gpu" if module == "torch.cuda" else "cpu"

    def type_targets(self, expr, function, depth: int = 0) -> Optional[set]:
        """What `t.type(expr)` may convert to: {(dtype, device)} with device "cpu", "gpu" or "same"
        (a dtype keeps the device), through names and `a if c else b`; None when not all in sight
        (`dtype = torch.cuda.FloatTensor if use_cuda else torch.FloatTensor` gives two)."""
        if depth > 4:
            return None
        legacy = self.legacy_type(expr)
        if legacy is not None:
            return {legacy}
        named = self.dtype_named(expr)
        if named is not None:
            return {(named, "same")}
        if type(expr) is cst.IfExp:
            found = [self.type_targets(side, function, depth + 1) for side in (expr.body, expr.orelse)]
            return None if None in found else found[0] | found[1]
        if type(expr) is cst.Name:
            located = self.values_of(expr, function)
            found = [self.type_targets(value, where, depth + 1) for value, where in located]
            return None if not found or None in found else set().union(*found)
        return None

    def surely_integral(self, expr, function) -> bool:
        """Is the tensor surely of an integer or bool dtype (so it can never require grad)?"""
        return self.dtype_of(expr, function) in INTEGRAL

    def dtype_of(self, expr, function, depth: int = 0) -> Optional[str]:
        """The dtype of a tensor expression, or None when it is not in sight."""
        if depth > MAX_DEPTH or expr is None:
            return None
        if type(expr) is cst.Comparison:
            plain = not any(type(c.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn) for c in expr.comparisons)
            return "bool" if plain else None
        if self.integral_field(expr):
            return "int64"
        if isinstance(expr, cst.Subscript):
            return self.dtype_of(expr.value, function, depth + 1)
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in ("data", "T", "mT"):
                return self.dtype_of(expr.value, function, depth + 1)
            return None
        if type(expr) is cst.Name:
            bindings = function.bindings_at(expr)
            if not bindings:
                return None
            found = {self._binding_dtype(binding, function, depth) for binding in bindings}
            return found.pop() if len(found) == 1 else None
        if type(expr) is cst.Call:
            return self._call_dtype(expr, function, depth)
        return None

    def integral_field(self, expr) -> bool:
        """A part of a value that holds integers, whatever the value: the indices of a (values,
        indices) pair (`out.max(1)[1]`, `x.topk(k).indices`), the token ids and masks of a
        tokenizer's output (`tokens["input_ids"]`, `encoding.attention_mask`), a "labels" entry
        (`outputs[0]["labels"]` of a detection model). No name is followed:
        cheap enough to ask of every subscript."""
        if isinstance(expr, cst.Subscript):
            return (_index_is(expr, 1) and self.paired_call(expr.value)) or _key_of(expr) in INTEGER_KEYS
        if isinstance(expr, cst.Attribute):
            field = expr.attr.value
            return (field == "indices" and isinstance(expr.value, cst.Call)) or (
                field in TOKEN_FIELDS and not (isinstance(expr.value, cst.Name) and expr.value.value == "self"))
        return False

    def _binding_dtype(self, binding, function, depth: int) -> Optional[str]:
        if binding.value is None:
            return None
        if binding.kind in ("assign", "walrus"):
            return self.dtype_of(binding.value, function, depth + 1)
        if binding.kind == "unpack" and position_in_target(binding) == 1 and self.paired_call(binding.value):
            return "int64"  # `_, pred = out.max(1)`: the indices half
        return None

    # ------------------------------------------------------- dtype from uses

    def integral_use(self, binding, function, depth: int = 0) -> Optional[str]:
        """What the uses of a name's value say of its dtype: "sure" (a use that needs an integer
        or bool tensor), "likely" (a use typical of class indices that also takes floats), or None.
        Followed through device moves, views and reshapes assigned to other names (`labels =
        labels.to(device)` then `F.nll_loss(out, labels)` says the first `labels` held integers too).
        A use in a branch counts for every path (the value has one dtype wherever it is read)."""
        if binding in self._integral_uses:
            return self._integral_uses[binding]
        if depth > 4:
            return None
        self._integral_uses[binding] = None  # a cycle through a loop proves nothing
        found = None
        for read in function.reads_of(binding):
            said = self._use_of(read.node, read.statement, function, depth)
            if said == "sure":
                found = "sure"
                break
            found = found or said
        self._integral_uses[binding] = found
        return found

    def named_as_labels(self, binding, function) -> bool:
        """A parameter named as class labels (`labels`, `label`, `targets`, `target_labels`, `y_true`)
        that the function never computes with: it only moves, copies, measures (`.size(0)`,
        `len(...)`), compares for equality or returns it, also through the names it is assigned to
        (`labels = labels.clone().detach().to(self.device)`). Likely integer class indices, no more
        (a regression's `targets` are floats, and that shows in a use: `(out - targets) ** 2`, a
        float conversion, a loss the file does not know, which are all "computing")."""
        return binding.kind == "param" and binding.name in LABEL_NAMES and not self._computed_with(binding, function)

    def _computed_with(self, binding, function, seen: frozenset = frozenset()) -> bool:
        if binding in seen:
            return False  # `labels = labels.to(device)` in a loop: its uses are being read already
        if len(seen) > 4:
            return True
        seen = seen | {binding}
        for read in function.reads_of(binding):
            parents = self._parents_in(read.statement)
            current = read.node
            while True:
                parent = parents.get(id(current))
                if isinstance(parent, cst.Attribute) and parent.value is current:
                    call = parents.get(id(parent))
                    if not (isinstance(call, cst.Call) and call.func is parent):
                        break  # `labels.shape`, `labels.device`: metadata
                    method = parent.attr.value
                    if method in MEASURING_METHODS or (method in INTEGER_CASTS and not call.args):
                        break
                    if method in ("eq", "ne") or not self._keeps_dtype(call, function):
                        return method not in ("eq", "ne")
                    current = call  # `labels.to(device)`, `labels.clone()`: read on
                    continue
                if isinstance(parent, cst.Subscript) and parent.value is current:
                    current = parent  # `labels[mask]`: the same values
                    continue
                if isinstance(parent, cst.Index):
                    break  # `x[labels]`: an index
                if isinstance(parent, cst.Arg) and parent.value is current:
                    call = parents.get(id(parent))
                    if isinstance(call, cst.Call) and isinstance(call.func, cst.Name) and call.func.value == "len":
                        break
                    if isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) \
                            and call.func.attr.value in ("append", "extend", "insert"):
                        break  # `self.kept.append(labels)`: kept, not computed with
                    if isinstance(call, cst.Call) and self.names.qualified_name(call.func) is None:
                        callee = self._callee_parameter(call, parent, function)
                        if callee is not None:  # `self.perturb(images, labels)`: what the callee does
                            if self._computed_with(callee[0], callee[1], seen):
                                return True
                            break
                        if self._same_file_callee(call.func, function) is None:
                            # `self.get_target_label(images, labels)` of a base class elsewhere: handing
                            # labels on does not make them values computed with here.
                            break
                    return True  # a torch function, or a callee whose parameter is not in sight
                if isinstance(parent, (cst.Comparison, cst.ComparisonTarget)):
                    comparison = parent if isinstance(parent, cst.Comparison) else parents.get(id(parent))
                    if isinstance(comparison, cst.Comparison) and all(
                            isinstance(target.operator, (cst.Equal, cst.NotEqual, cst.Is, cst.IsNot))
                            for target in comparison.comparisons):
                        break  # `labels == preds`, `if target_labels is not None:`: compared, not computed with
                    return True
                if isinstance(parent, cst.Return) or (parent is read.statement and isinstance(parent, cst.Expr)):
                    break
                if parent is read.statement or isinstance(parent, cst.Element):
                    target = self._assigned_to(current, parent, parents, read.statement)
                    inner = self._binding_of_target(target, function) if target is not None else None
                    if inner is None or self._computed_with(inner, function, seen):
                        return True
                    break
                return True  # arithmetic, an augmented assignment, anything else
        return False

    def _use_of(self, name: cst.Name, statement, function, depth: int) -> Optional[str]:
        parents = self._parents_in(statement)
        current = name
        for _ in range(MAX_DEPTH):
            parent = parents.get(id(current))
            if type(parent) is cst.Attribute and parent.value is current and parent.attr.value == "data":
                current = parent  # `labels.data`: the same tensor
                continue
            if type(parent) is cst.Attribute and parent.value is current:
                call = parents.get(id(parent))
                if not (type(call) is cst.Call and call.func is parent):
                    return None
                method = parent.attr.value
                if method in INTEGER_CASTS and not call.args:
                    return "likely"  # `labels.long()`
                if method in ("eq", "ne") and len(call.args) == 1:
                    return self._compared(call.args[0].value, function)
                if not self._keeps_dtype(call, function):
                    return None
                current = call  # `labels.to(device)`, `labels.view(-1)`: the same dtype, read on
                continue
            if type(parent) is cst.Index:
                element = parents.get(id(parent))
                subscript = parents.get(id(element))
                return "sure" if type(subscript) is cst.Subscript and subscript.value is not current else None
            if type(parent) is cst.Subscript and parent.value is current:
                current = parent  # `labels[idx]`: a selection of the same values, the same dtype
                continue
            if type(parent) is cst.IfExp and current is not parent.test:
                current = parent  # `y = y_in.clone() if ... else y_in.clone().unsqueeze(0)`: the value flows on
                continue
            if type(parent) is cst.Arg and parent.value is current:
                call = parents.get(id(parent))
                return self._argument_use(call, parent, current, function, depth) if isinstance(call, cst.Call) \
                    else None
            if isinstance(parent, cst.Comparison) or isinstance(parent, cst.ComparisonTarget):
                comparison = parent if isinstance(parent, cst.Comparison) else parents.get(id(parent))
                if not isinstance(comparison, cst.Comparison) or not all(
                        isinstance(target.operator, (cst.Equal, cst.NotEqual)) for target in comparison.comparisons):
                    return None
                others = [comparison.left] + [target.comparator for target in comparison.comparisons]
                return "likely" if any(other is not current and self._compared(other, function)
                                       for other in others) else None
            if parent is statement or type(parent) is cst.Element:
                target = self._assigned_to(current, parent, parents, statement)
                if target is None:
                    return None
                binding = self._binding_of_target(target, function)
                return self.integral_use(binding, function, depth + 1) if binding is not None else None
            return None
        return None

    def _compared(self, other, function) -> Optional[str]:
        """`pred == labels` with `pred` an integer tensor (`argmax`, the indices of `max(1)`)."""
        return "likely" if self.surely_integral(other, function) else None

    def _argument_use(self, call: cst.Call, arg: cst.Arg, current, function, depth: int) -> Optional[str]:
        position = next((index for index, each in enumerate(call.args) if each is arg), -1)
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword is None and any(each.star for each in call.args[:position + 1]):
            return None

        def matches(expected_position: int, expected_keyword: str) -> bool:
            return keyword == expected_keyword if keyword is not None else position == expected_position

        qualified = self.names.qualified_name(call.func)
        if qualified is not None:
            if qualified in INTEGRAL_ARGUMENTS:
                expected_position, expected_keyword, how = INTEGRAL_ARGUMENTS[qualified]
                return how if matches(expected_position, expected_keyword) else None
            if qualified in ("torch.eq", "torch.ne") and keyword is None and len(call.args) == 2:
                other = call.args[1 - position].value if position in (0, 1) else None
                return self._compared(other, function) if other is not None else None
            return None
        func = call.func
        if type(func) is cst.Attribute:
            method = func.attr.value
            if method in INTEGRAL_METHOD_ARGUMENTS and func.value is not current:
                expected_position, expected_keyword = INTEGRAL_METHOD_ARGUMENTS[method]
                return "sure" if matches(expected_position, expected_keyword) else None
            if method in ("eq", "ne") and func.value is not current and position == 0:
                return self._compared(func.value, function)
        callee = self._callee_parameter(call, arg, function)
        if callee is not None:
            # `self.get_target_label(images, labels)`: what the same-file callee does with its parameter.
            return self.integral_use(callee[0], callee[1], depth + 1)
        if not matches(1, "target"):
            return None
        return self._loss_module_use(func, function)

    def _same_file_callee(self, func, function) -> Optional[tuple]:
        """(definition, whether it is a method) for `helper` (a module-level function the calling
        function does not rebind) or `self.helper` (a method of the class or of a base class of the
        file); None otherwise. Cheap on purpose: no function summaries are built for this."""
        if isinstance(func, cst.Name):
            node = self.facts.module_function_called(func, function)
            return (node, False) if node is not None else None
        if is_self_attribute(func):
            owner = self.facts.classes.get(function.class_name or "")
            node = self.facts.method_of(owner, func.attr.value) if owner is not None else None
            return (node, True) if node is not None else None
        return None

    def _callee_parameter(self, call: cst.Call, arg: cst.Arg, function):
        """(binding, callee's FunctionFacts) of the parameter of a same-file function or `self.`
        method that `arg` is passed for; None when the callee or the parameter is not in sight."""
        resolved = self._same_file_callee(call.func, function)
        if resolved is None:
            return None
        node, method = resolved
        params = node.params
        positional = [*params.posonly_params, *params.params]
        if method and positional and positional[0].name.value in ("self", "cls"):
            positional = positional[1:]
        if arg.keyword is not None:
            param = next((each for each in [*positional, *params.kwonly_params]
                          if each.name.value == arg.keyword.value), None)
        else:
            position = next(index for index, each in enumerate(call.args) if each is arg)
            param = positional[position] if position < len(positional) else None
        if param is None:
            return None
        body = self.facts.function_facts(node)
        binding = next((each for each in body.parameters if each.statement is param), None)
        return (binding, body) if binding is not None else None

    def _loss_module_use(self, func, function) -> Optional[str]:
        """`criterion(out, labels)` where `criterion = nn.NLLLoss()` (or `nn.CrossEntropyLoss()`),
        a local, a top-level name or a `self.` attribute of the class."""
        if type(func) is cst.Name:
            located = self.values_of(func, function)
        elif type(func) is cst.Attribute:
            located = self._attribute_values(func, function)
        elif type(func) is cst.Call:
            located = [(func, function)]  # `nn.NLLLoss()(out, labels)`
        else:
            return None
        kinds = set()
        for value, _ in located:
            # `nn.CrossEntropyLoss().to(device)`: the module itself.
            while type(value) is cst.Call and type(value.func) is cst.Attribute \
                    and value.func.attr.value in ("to", "cuda", "cpu") and type(value.func.value) is cst.Call:
                value = value.func.value
            qualified = self.names.qualified_name(value.func) if type(value) is cst.Call else None
            module, _, name = (qualified or "").rpartition(".")
            kinds.add(INTEGRAL_TARGET_MODULES.get(name) if module == "torch.nn" else None)
        if not kinds or None in kinds:
            return None
        return "likely" if "likely" in kinds else "sure"

    def _keeps_dtype(self, call: cst.Call, function) -> bool:
        """A method that returns the receiver's dtype: a view, a copy, a move to a device (`.to`
        only with devices: `.to(torch.float)` or `.to(other)` converts)."""
        method = call.func.attr.value
        if method != "to":
            return method in DTYPE_PRESERVING_METHODS
        for arg in call.args:
            keyword = arg.keyword.value if arg.keyword is not None else None
            if keyword in ("dtype", "other", "tensor") or arg.star:
                return False
            if keyword is None and (self.dtype_value(arg.value, function) is not None
                                    or self.facts.tensorness(arg.value).is_tensor):
                return False
        return True

    @staticmethod
    def _assigned_to(value, parent, parents: dict, statement):
        """The target a value is assigned to: `y = value`, or its place in `a, y = u, value`."""
        if type(statement) is not cst.Assign or len(statement.targets) != 1:
            return None
        target = statement.targets[0].target
        if parent is statement:
            return target if statement.value is value and type(target) is cst.Name else None
        sequence = parents.get(id(parent))
        if sequence is not statement.value or type(sequence) not in (cst.Tuple, cst.List) \
                or type(target) not in (cst.Tuple, cst.List) or len(target.elements) != len(sequence.elements):
            return None
        position = next(index for index, element in enumerate(sequence.elements) if element is parent)
        found = target.elements[position].value
        return found if type(found) is cst.Name else None

    def _binding_of_target(self, target: cst.Name, function):
        found = self._targets.get(function.node)
        if found is None:
            found = self._targets[function.node] = {binding.target: binding for binding in function.bindings}
        return found.get(target)

    def _parents_in(self, statement) -> dict:
        """Parent of every expression node of a statement's own expressions (an `if`'s test, a `for`
        loop's iterable, not the blocks under them)."""
        found = self._parents.get(statement)
        if found is not None:
            return found
        found = {}
        if type(statement) in (cst.If, cst.While):
            roots = [statement.test]
        elif type(statement) is cst.For:
            roots = [statement.iter]
        elif type(statement) is cst.With:
            roots = [item.item for item in statement.items]
        elif type(statement) in (cst.FunctionDef, cst.ClassDef, cst.Try, cst.Match, cst.Module):
            roots = []
        else:
            roots = [statement]
        stack = list(roots)
        while stack:
            node = stack.pop()
            for child in child_nodes(node):
                found[id(child)] = node
                stack.append(child)
        self._parents[statement] = found
        return found

    def paired_call(self, expr) -> bool:
        """A call that returns (values, indices): `x.sort()`, `x.topk(k)`, `x.max(1)`, `torch.max(x, dim=1)`."""
        if type(expr) is not cst.Call:
            return False
        qualified = self.names.qualified_name(expr.func)
        if qualified is not None:
            module, _, name = qualified.rpartition(".")
            if module != "torch":
                return False
            dimension = expr.args[1] if len(expr.args) > 1 and expr.args[1].keyword is None else None
        elif type(expr.func) is cst.Attribute:
            name = expr.func.attr.value
            dimension = expr.args[0] if expr.args and expr.args[0].keyword is None else None
        else:
            return False
        if name in PAIRED_ALWAYS:
            return True
        if name not in PAIRED_WITH_DIM:
            return False
        if any(arg.keyword is not None and arg.keyword.value == "dim" for arg in expr.args):
            return True
        value = dimension.value if dimension is not None else None
        if type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus:
            value = value.expression
        return type(value) is cst.Integer

    def _call_dtype(self, call: cst.Call, function, depth: int) -> Optional[str]:
        given = _keyword(call, "dtype")
        if given is not None:
            return self.dtype_named(given)
        qualified = self.names.qualified_name(call.func)
        if qualified is not None:
            module, _, name = qualified.rpartition(".")
            if module != "torch":
                return None
            if name in INTEGRAL_TORCH_FUNCTIONS:
                return INTEGRAL_TORCH_FUNCTIONS[name]
            if name in DTYPE_PRESERVING_FUNCTIONS and call.args:
                first = call.args[0].value
                if name in ("cat", "stack") and type(first) in (cst.List, cst.Tuple) and first.elements:
                    first = first.elements[0].value
                return self.dtype_of(first, function, depth + 1)
            if name in LIKE_FACTORIES and call.args:
                return self.dtype_of(call.args[0].value, function, depth + 1)
            if name in FLOAT_FACTORIES or (_keyword_is_true(call, "requires_grad") and name != "tensor"):
                # Only floating tensors can require grad: a factory made so has the default dtype.
                return self.default_float()
            return None
        if not isinstance(call.func, cst.Attribute) or is_self_attribute(call.func):
            return self._returned_dtype(call, function, depth)
        method = call.func.attr.value
        receiver = call.func.value
        if method in INTEGRAL_METHODS:
            return INTEGRAL_METHODS[method]
        if method in DTYPE_METHODS and not call.args:
            return DTYPE_METHODS[method]
        if method in ("to", "type"):
            positional = [arg.value for arg in call.args if arg.keyword is None]
            if method == "type" and not call.args:
                return None  # `x.type()` is the type's name, a string
            for value in positional:
                named = self.dtype_value(value, function)
                if named is not None:
                    return named
                if self.names.qualified_name(value) is not None or self.facts.tensorness(value).is_tensor \
                        or method == "type":
                    return None  # another dtype, a type we do not know, or another tensor's dtype
            return self.dtype_of(receiver, function, depth + 1)
        if method in DTYPE_PRESERVING_METHODS:
            return self.dtype_of(receiver, function, depth + 1)
        return None

    def _returned_dtype(self, call: cst.Call, function, depth: int) -> Optional[str]:
        """`codes = quantize(x)` with `def quantize(x): return (x * 255).round().to(torch.uint8)`: the
        dtype every `return` of a same-file function (or `self.` method) gives, when they agree."""
        if depth > MAX_DEPTH - 2:
            return None
        resolved = self._same_file_callee(call.func, function)
        if resolved is None:
            return None
        node = resolved[0]
        if node in self._returned:
            return self._returned[node]
        self._returned[node] = None  # recursion proves nothing
        body = self.facts.function_facts(node)
        found = {self.dtype_of(statement.value, body, depth + 1) for statement in body.statement_order
                 if isinstance(statement, cst.Return)}
        dtype = found.pop() if len(found) == 1 else None  # a bare `return` adds None: unknown
        self._returned[node] = dtype
        return dtype

    def default_float(self) -> Optional[str]:
        """float32, unless the module changes the default dtype (`torch.set_default_dtype(...)`)."""
        if self._default_dtype_changed is None:
            self._default_dtype_changed = any(
                self.names.qualified_name(call.func) in ("torch.set_default_dtype", "torch.set_default_tensor_type")
                for call in self.facts.method_calls("set_default_dtype") + self.facts.method_calls(
                    "set_default_tensor_type"))
        return None if self._default_dtype_changed else "float32"

    # ----------------------------------------------------------------- device

    def device_kind(self, expr, function, depth: int = 0) -> str:
        """"cpu", "gpu" (surely not the CPU), "device" (a device, maybe the CPU) or "unknown"."""
        if depth > 4 or expr is None:
            return "unknown"
        if type(expr) is cst.SimpleString:
            text = str(expr.evaluated_value)
            return "cpu" if text == "cpu" else ("gpu" if text.split(":")[0] in ("cuda", "mps", "xpu") else "unknown")
        if type(expr) is cst.Call and self.names.qualified_name(expr.func) == "torch.device":
            kind = self.device_kind(expr.args[0].value, function, depth + 1) if expr.args else "unknown"
            return "device" if kind == "unknown" else kind
        if type(expr) is cst.Attribute and expr.attr.value == "device":
            located = self._attribute_values(expr, function)
            # `x.device`: the device of a tensor or a module; `self.device`, what the class assigns it.
            return self._joined(located, depth) if located else "device"
        if type(expr) is cst.Attribute:
            return self._joined(self._attribute_values(expr, function), depth)
        if type(expr) is cst.IfExp:
            return _joined({self.device_kind(expr.body, function, depth + 1),
                            self.device_kind(expr.orelse, function, depth + 1)})
        if type(expr) is cst.Name:
            return self._joined(self.values_of(expr, function), depth)
        return "unknown"

    def _joined(self, located: list, depth: int) -> str:
        if not located:
            return "unknown"
        return _joined({self.device_kind(value, where, depth + 1) for value, where in located})

    def values_of(self, name: cst.Name, function) -> list:
        """(value, the function it is written in) for every assignment that may reach `name`: the
        function's own, or (a global it does not bind) the module's top level (`facts.reaching`).
        [] when one is not an assignment (a parameter, a loop variable, an import)."""
        owner, bindings = self.facts.reaching(name, function)
        if not bindings or any(binding.kind not in ("assign", "walrus") or binding.value is None
                               for binding in bindings):
            return []
        return [(binding.value, owner) for binding in bindings]

    def _attribute_values(self, expr: cst.Attribute, function) -> list:
        """`self.device` -> what the class assigns it, each with the method it is assigned in."""
        if not (type(expr.value) is cst.Name and expr.value.value == "self"):
            return []
        owner = self.facts.classes.get(function.class_name or "")
        if owner is None:
            return []
        located = []
        for value in self.facts.attribute_values(owner, expr.attr.value):
            method = next((c.assigned_in[value] for c in [owner, *self.facts.classes.values()]
                           if value in c.assigned_in), None)
            if method is None:
                return []
            located.append((value, self.facts.function_facts(method)))
        return located


def _joined(kinds: set) -> str:
    if len(kinds) == 1:
        return kinds.pop()
    return "unknown" if "unknown" in kinds or not kinds else "device"


def _keyword(call: cst.Call, keyword: str) -> Optional[cst.BaseExpression]:
    return next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == keyword), None)


def _keyword_is_true(call: cst.Call, keyword: str) -> bool:
    value = _keyword(call, keyword)
    return type(value) is cst.Name and value.value == "True"


def _key_of(subscript: cst.Subscript) -> Optional[str]:
    """The string key of `d["key"]`, or None."""
    value = single_index(subscript)
    return str(value.evaluated_value) if isinstance(value, cst.SimpleString) else None


def _index_is(subscript: cst.Subscript, position: int) -> bool:
    value = single_index(subscript)
    return type(value) is cst.Integer and int(value.value) == position

"""Which values require grad: leaves made so, outputs of trained modules, backpropagated losses,
and what is computed from one of them in grad mode.

The answer is a `GradOrigin` (why, and where that started) or None. None means "not surely":
rules built on it report only what is sure, so every doubt (an unknown callee, a parameter of
the function, a value unpacked from a tuple, a module whose parameters may be frozen) answers
None. Results are cached per binding, so asking about every name of a module stays linear.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Optional

import libcst as cst

from torchcopylint.analysis.aliasing import (
    LEAF_FACTORIES,
    PARAMETER_CLASSES,
    Binding,
    FunctionFacts,
    _keyword_is_true,
    goes_through_detach,
    grad_mode_of_context,
    parameter_requires_grad,
)
from torchcopylint.analysis.syntax import walk
from torchcopylint.analysis.torchnames import dotted_name
from torchcopylint.analysis.training import backward_calls, module_key

if TYPE_CHECKING:
    from torchcopylint.analysis.facts import ModuleFacts

# torch.<name>(...) whose result requires grad when one of its tensor arguments does. Factories,
# integer and boolean results (argmax, comparisons, bucketize) and sampling are left out.
DIFFERENTIABLE_TORCH_FUNCTIONS = frozenset(
    """
    cat concat concatenate stack hstack vstack dstack where matmul mm bmm einsum sum mean prod abs
    exp log log1p sqrt rsqrt sigmoid tanh relu softmax log_softmax clamp clip flatten reshape
    transpose permute squeeze unsqueeze gather index_select masked_select masked_fill outer cumsum
    cumprod pow mul add sub div maximum minimum norm cdist tril triu diag diagonal roll flip
    repeat_interleave tile lerp addmm baddbmm cross dot clone narrow select t square neg reciprocal
    exp2 logsumexp amax amin std var cosine_similarity pairwise_distance tensordot trace movedim
    moveaxis swapaxes swapdims sin cos atan2 erf kron block_diag
    """.split()
)
# torch.nn.functional.<name>: all differentiable in their float arguments (one_hot is not).
DIFFERENTIABLE_FUNCTIONAL = frozenset(
    """
    relu relu6 gelu silu elu selu celu leaky_relu mish hardswish hardsigmoid hardtanh softplus
    softsign tanhshrink sigmoid tanh softmax log_softmax gumbel_softmax glu logsigmoid linear
    bilinear conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d interpolate
    pad normalize dropout dropout1d dropout2d dropout3d layer_norm batch_norm group_norm
    instance_norm rms_norm embedding cross_entropy mse_loss l1_loss smooth_l1_loss huber_loss
    nll_loss kl_div binary_cross_entropy binary_cross_entropy_with_logits cosine_similarity
    pairwise_distance avg_pool1d avg_pool2d avg_pool3d adaptive_avg_pool1d adaptive_avg_pool2d
    adaptive_avg_pool3d max_pool1d max_pool2d max_pool3d pixel_shuffle grid_sample
    scaled_dot_product_attention
    """.split()
)
# tensor.<name>(...) whose result requires grad when the receiver (or an argument) does.
DIFFERENTIABLE_METHODS = frozenset(
    """
    clone contiguous float double half bfloat16 to cuda cpu view view_as reshape reshape_as flatten
    unflatten squeeze unsqueeze permute transpose t expand expand_as repeat repeat_interleave narrow
    select sum mean std var prod norm abs exp log log1p sqrt rsqrt pow sigmoid tanh relu softmax
    log_softmax matmul mm bmm mul add sub div neg clamp clip masked_fill gather index_select cumsum
    cumprod flip roll square diag tril triu amax amin lerp pin_memory movedim swapaxes swapdims
    logsumexp diagonal
    """.split()
)
TENSOR_VIEW_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag"})
ARITHMETIC = (cst.Add, cst.Subtract, cst.Multiply, cst.Divide, cst.MatrixMultiply, cst.Power)
# `.to(torch.long)`: a dtype without gradients ends the grad.
INTEGER_DTYPES = frozenset(
    f"torch.{name}" for name in
    "long int int64 int32 int16 int8 uint8 short bool".split()
)
# torch.nn layers that hold trainable parameters when built with their defaults.
PARAMETRIZED_LAYERS = frozenset(
    """
    Linear Bilinear LazyLinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d
    LazyConv1d LazyConv2d LazyConv3d Embedding EmbeddingBag RNN LSTM GRU RNNCell LSTMCell GRUCell
    MultiheadAttention Transformer TransformerEncoder TransformerDecoder TransformerEncoderLayer
    TransformerDecoderLayer BatchNorm1d BatchNorm2d BatchNorm3d LayerNorm GroupNorm PReLU RMSNorm
    """.split()
)
# The flag that switches a layer's parameters off (`affine=False`), by layer.
AFFINE_FLAGS = {"BatchNorm1d": "affine", "BatchNorm2d": "affine", "BatchNorm3d": "affine",
                "GroupNorm": "affine", "LayerNorm": "elementwise_affine", "RMSNorm": "elementwise_affine"}
LEAF_DESCRIPTIONS = {
    "factory": "a leaf made with `requires_grad=True`",
    "parameter": "an `nn.Parameter`",
    "requires_grad_": "a tensor switched to `requires_grad=True`",
}
MAX_DEPTH = 12
SET_GRAD_ENABLED = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"})


@dataclass(frozen=True)
class GradOrigin:
    """Why a value requires grad: what it is (or is computed from), and the node that made that."""

    description: str
    node: cst.CSTNode
    derived: bool = False  # the value was computed from that origin (not the origin's value itself)


class GradFlow:
    """Answers `origin(expr, function, statement)` for one module; built once (ModuleFacts.autograd)."""

    def __init__(self, facts: "ModuleFacts") -> None:
        self.facts = facts
        self._bindings: dict[Binding, Optional[GradOrigin]] = {}
        self._in_progress: set = set()
        self._backpropagated: dict = {}  # function node -> loss bindings
        self._trained: Optional[frozenset] = None
        self._frozen: Optional[frozenset] = None
        self._uncertain: dict = {}  # function node -> statements whose grad mode is decided at run time

    # ----------------------------------------------------------------- queries

    def origin(self, expr: cst.BaseExpression, function: FunctionFacts,
               statement: cst.CSTNode) -> Optional[GradOrigin]:
        """Does `expr`, evaluated at `statement`, surely require grad? Why, or None."""
        if statement in self._mode_decided_at_run_time(function):
            return None
        return self._of(expr, function, self.facts.grad_enabled_at(function, statement), 0)

    def binding_origin(self, binding: Binding, function: FunctionFacts) -> Optional[GradOrigin]:
        """Does the value a name was bound to surely require grad?"""
        if binding in self._bindings:
            return self._bindings[binding]
        if binding in self._in_progress:
            return None  # `h = h * w` in a loop: the other operand decides
        self._in_progress.add(binding)
        try:
            found = self._binding_origin(binding, function)
        finally:
            self._in_progress.discard(binding)
        self._bindings[binding] = found
        return found

    # ---------------------------------------------------------------- bindings

    def _binding_origin(self, binding: Binding, function: FunctionFacts) -> Optional[GradOrigin]:
        if binding.leaf in LEAF_DESCRIPTIONS and binding.leaf_origin is not None:
            return GradOrigin(LEAF_DESCRIPTIONS[binding.leaf], binding.leaf_origin)
        if binding in self._losses(function):
            return GradOrigin("a loss that is backpropagated", binding.statement)
        if binding.value is None or binding.kind not in ("assign", "walrus"):
            return None  # parameters, loop variables, parts unpacked from a tuple: not known
        if not self.facts.grad_enabled_at(function, binding.statement) \
                or binding.statement in self._mode_decided_at_run_time(function):
            return None
        return self._of(binding.value, function, True, 1)

    def _mode_decided_at_run_time(self, function: FunctionFacts):
        """Statements under `with torch.set_grad_enabled(flag)` (a flag not spelled True/False), or
        every statement after a plain `torch.set_grad_enabled(flag)` call: grad mode is not known."""
        found = self._uncertain.get(function.node)
        if found is not None:
            return found
        found = set()
        for call, statement in function.call_statement.items():
            if self.facts.names.qualified_name(call.func) not in SET_GRAD_ENABLED \
                    or grad_mode_of_context(call, self.facts.names) is not None:
                continue
            if isinstance(statement, cst.With):
                found.update(node for node in walk(statement.body) if node in function.statement_order)
            else:
                position = function.order_of(statement)
                found.update(node for node, order in function.statement_order.items() if order >= position)
        self._uncertain[function.node] = found
        return found

    def _losses(self, function: FunctionFacts) -> set:
        """Bindings of the names this function calls `.backward()` on."""
        found = self._backpropagated.get(function.node)
        if found is None:
            found = set()
            for backward in backward_calls(function, self.facts):
                if isinstance(backward.loss, cst.Name):
                    found |= set(function.bindings_at(backward.loss))
            self._backpropagated[function.node] = found
        return found

    # ------------------------------------------------------------- expressions

    def _of(self, expr, function: FunctionFacts, grad_enabled: bool, depth: int) -> Optional[GradOrigin]:
        if depth > MAX_DEPTH or expr is None:
            return None
        if isinstance(expr, cst.Name):
            owner, bindings = self.facts.reaching(expr, function)  # a global: the top level's
            if not bindings:
                return None
            origins = [self.binding_origin(binding, owner) for binding in bindings]
            return origins[0] if all(origins) else None
        if goes_through_detach(expr):
            return None
        if isinstance(expr, cst.Attribute):
            if expr.attr.value in TENSOR_VIEW_ATTRIBUTES and grad_enabled:
                return self._of(expr.value, function, grad_enabled, depth + 1)
            return self._self_parameter(expr, function)
        if not grad_enabled:
            return None  # below here every value is computed, and grad mode is off
        if isinstance(expr, cst.Subscript):
            return _derived(self._of(expr.value, function, grad_enabled, depth + 1))
        if isinstance(expr, cst.UnaryOperation) and isinstance(expr.operator, cst.Minus):
            return _derived(self._of(expr.expression, function, grad_enabled, depth + 1))
        if isinstance(expr, cst.BinaryOperation) and isinstance(expr.operator, ARITHMETIC):
            return self._any_of((expr.left, expr.right), function, depth)
        if isinstance(expr, cst.Call):
            return self._of_call(expr, function, depth)
        return None

    def _any_of(self, operands, function: FunctionFacts, depth: int) -> Optional[GradOrigin]:
        """The first operand that requires grad makes the result require it (a derived value)."""
        for operand in operands:
            found = self._of(operand, function, True, depth + 1)
            if found is not None:
                return _derived(found)
        return None

    def _of_call(self, call: cst.Call, function: FunctionFacts, depth: int) -> Optional[GradOrigin]:
        qualified = self.facts.names.qualified_name(call.func)
        arguments = [arg.value for arg in call.args if not arg.star]
        if qualified is not None:
            module, _, name = qualified.rpartition(".")
            if qualified in PARAMETER_CLASSES:
                return GradOrigin(LEAF_DESCRIPTIONS["parameter"], call) if parameter_requires_grad(call) else None
            if module == "torch" and name in LEAF_FACTORIES:
                return GradOrigin(LEAF_DESCRIPTIONS["factory"], call) if _keyword_is_true(call, "requires_grad") else None
            if (module == "torch" and name in DIFFERENTIABLE_TORCH_FUNCTIONS) or \
                    (module == "torch.nn.functional" and name in DIFFERENTIABLE_FUNCTIONAL):
                return self._any_of(arguments, function, depth)
            return None
        func = call.func
        if isinstance(func, cst.Attribute) and not _is_self_attribute_call(call):
            method = func.attr.value
            if method == "requires_grad_" and not (call.args and _is_false(call.args[0].value)):
                return GradOrigin(LEAF_DESCRIPTIONS["requires_grad_"], call)
            if method not in DIFFERENTIABLE_METHODS:
                return None
            if method == "to" and any(self.facts.names.qualified_name(arg) in INTEGER_DTYPES for arg in arguments):
                return None
            return self._any_of((func.value, *arguments), function, depth)
        return self._module_output(call, function, arguments, depth)

    def _module_output(self, call: cst.Call, function: FunctionFacts, arguments, depth: int) -> Optional[GradOrigin]:
        """`self.net(x)`, `model(x)`: requires grad when the module surely has trainable parameters;
        a parameterless torch.nn module (a loss, an activation) passes its inputs' grad on."""
        key = module_key(call.func)
        values = self._module_values(call.func, function)
        if key is None or key in self._frozen_modules():
            return None
        if key in self._trained_modules():
            return GradOrigin(f"the output of `{key}`, a module an optimizer in this file trains", call)
        if not values:
            return None
        if all(self._has_parameters(value, frozenset()) for value in values):
            return GradOrigin(f"the output of `{key}`, a module with trainable parameters", call)
        if all(self._is_torch_module(value) for value in values):
            return self._any_of(arguments, function, depth)
        return None

    def _module_values(self, func, function: FunctionFacts) -> list:
        """What the callee was built from: `self.net = ...` in the class, or the name's reaching values."""
        if isinstance(func, cst.Name):
            _, bindings = self.facts.reaching(func, function)  # `model(x)` with `model` built at the top
            return [b.value for b in bindings] if bindings and all(b.value is not None for b in bindings) else []
        if isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self" \
                and function.class_name in self.facts.classes:
            return list(self.facts.classes[function.class_name].attribute_values.get(func.attr.value, []))
        return []

    def _has_parameters(self, value, seen: frozenset) -> bool:
        """Is `value` the construction of a module that holds trainable parameters?"""
        if not isinstance(value, cst.Call):
            return False
        qualified = self.facts.names.qualified_name(value.func)
        if qualified is not None:
            module, _, name = qualified.rpartition(".")
            if module != "torch.nn":
                return False
            if name == "Sequential":
                return any(self._has_parameters(arg.value, seen) for arg in value.args if not arg.star)
            flag = AFFINE_FLAGS.get(name)
            if flag is not None and any(arg.keyword is not None and arg.keyword.value == flag
                                        and _is_false(arg.value) for arg in value.args):
                return False
            return name in PARAMETRIZED_LAYERS
        local = self.facts.classes.get(dotted_name(value.func) or "")
        if local is None or local.name in seen or not self.facts.is_module_class(local):
            return False
        seen = seen | {local.name}
        for values in local.attribute_values.values():
            for attribute_value in values:
                if isinstance(attribute_value, cst.Call) and \
                        self.facts.names.qualified_name(attribute_value.func) in PARAMETER_CLASSES:
                    if parameter_requires_grad(attribute_value):
                        return True
                elif self._has_parameters(attribute_value, seen):
                    return True
        return False

    def _is_torch_module(self, value) -> bool:
        if not isinstance(value, cst.Call):
            return False
        qualified = self.facts.names.qualified_name(value.func) or ""
        module, _, name = qualified.rpartition(".")
        return module == "torch.nn" and name[:1].isupper() and name not in ("ModuleList", "ModuleDict")

    def _self_parameter(self, expr: cst.Attribute, function: FunctionFacts) -> Optional[GradOrigin]:
        """`self.weight` assigned only `nn.Parameter(...)` in the class."""
        if not (isinstance(expr.value, cst.Name) and expr.value.value == "self") \
                or function.class_name not in self.facts.classes:
            return None
        values = self.facts.classes[function.class_name].attribute_values.get(expr.attr.value, [])
        if values and all(isinstance(value, cst.Call)
                          and self.facts.names.qualified_name(value.func) in PARAMETER_CLASSES
                          and parameter_requires_grad(value) for value in values):
            return GradOrigin(LEAF_DESCRIPTIONS["parameter"], values[0])
        return None

    # ----------------------------------------------------------- module-wide

    def _trained_modules(self) -> frozenset:
        if self._trained is None:
            self._trained = frozenset().union(*self.facts.training.optimizers.values())
        return self._trained

    def _frozen_modules(self) -> frozenset:
        """Modules whose parameters are switched off somewhere in the file (`requires_grad_(False)`)."""
        if self._frozen is None:
            frozen: set = set()
            for function in self.facts.all_functions():
                for switch in self.facts.training.grad_switches(function):
                    if not switch.enabled:
                        frozen |= switch.modules
            self._frozen = frozenset(frozen)
        return self._frozen


def _derived(origin: Optional[GradOrigin]) -> Optional[GradOrigin]:
    return replace(origin, derived=True) if origin is not None and not origin.derived else origin


def _is_self_attribute_call(call: cst.Call) -> bool:
    """`self.net(x)`: a layer call, not a tensor method."""
    func = call.func
    return isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value == "self"


def _is_false(expr) -> bool:
    return isinstance(expr, cst.Name) and expr.value == "False"


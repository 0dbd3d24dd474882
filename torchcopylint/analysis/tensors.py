"""Which expressions are tensors, and which are surely not.

The answer is graded: SURE (a torch factory, a tensor method on a sure tensor,
a parameter annotated `Tensor`), LIKELY (a `forward` parameter, a module call),
NOT (numbers, strings, containers, `.item()`, `.shape`), UNKNOWN otherwise.
Rules that rewrite code ask for SURE; rules about aliasing accept LIKELY.

A name is also LIKELY a tensor from its use (`name_used_as_tensor`: a method only
tensors have, the tensor argument of a torch function); the flow walk in
aliasing.py applies that once per function, to every binding the use reaches and
to the names assigned from them. Parts of torch's tuple results (`parts_of`) and
calls of same-file functions that return tensors (the `returns` hook) are typed
here too.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Callable, Optional, Sequence

import libcst as cst

from torchcopylint.analysis.catalog import INPLACE_FUNCTION_ARGUMENT, INPLACE_TENSOR_METHODS, is_inplace_method_name
from torchcopylint.analysis.torchnames import TorchNames, numpy_name


class Tensorness(Enum):
    SURE = "sure"
    LIKELY = "likely"
    NOT = "not"
    UNKNOWN = "unknown"

    @property
    def is_tensor(self) -> bool:
        return self in (Tensorness.SURE, Tensorness.LIKELY)


def combine(values) -> Tensorness:
    """What a name is when any of several assignments may reach it."""
    values = set(values)
    if not values:
        return Tensorness.UNKNOWN
    if values == {Tensorness.SURE}:
        return Tensorness.SURE
    if values <= {Tensorness.SURE, Tensorness.LIKELY}:
        return Tensorness.LIKELY
    if values == {Tensorness.NOT}:
        return Tensorness.NOT
    return Tensorness.UNKNOWN


# torch.<name>(...) that returns a single tensor. Functions returning tuples
# (max with dim, sort, topk, split, chunk...) are left out on purpose.
TORCH_TENSOR_FUNCTIONS = frozenset(
    """
    tensor as_tensor asarray from_numpy frombuffer zeros ones empty full rand randn randint
    randperm arange linspace logspace eye zeros_like ones_like empty_like full_like rand_like
    randn_like randint_like cat concat concatenate stack hstack vstack dstack where matmul mm
    bmm einsum sum mean prod abs exp log log1p sqrt rsqrt sigmoid tanh relu softmax log_softmax
    clamp clip flatten reshape transpose permute squeeze unsqueeze gather index_select
    masked_select masked_fill outer cumsum cumprod pow mul add sub div maximum minimum norm cdist
    tril triu diag diagonal roll flip repeat_interleave tile multinomial bernoulli normal
    complex polar view_as_real view_as_complex erf sin cos atan2 round floor ceil sign lerp
    addmm baddbmm cross dot argmax argmin bucketize searchsorted clone detach narrow select
    t square neg reciprocal exp2 logsumexp amax amin all any isnan isinf isfinite logical_not
    logical_and logical_or eq ne gt lt ge le bitwise_and bitwise_or nan_to_num std var
    cosine_similarity pairwise_distance meshgrid_like atleast_1d atleast_2d atleast_3d
    block_diag cartesian_prod combinations kron tensordot trace fmod remainder floor_divide
    true_divide heaviside hypot logaddexp movedim moveaxis swapaxes swapdims rot90 fliplr flipud
    """.split()
)

# torch functions that return a tuple of tensors (or, for max/min/median/unique/where, a tensor or a
# tuple of tensors, depending on the arguments): their parts and subscripts are tensors.
TORCH_TUPLE_FUNCTIONS = frozenset(
    """
    torch.sort torch.topk torch.kthvalue torch.mode torch.cummax torch.cummin torch.aminmax torch.std_mean
    torch.var_mean torch.frexp torch.split torch.chunk torch.unbind torch.tensor_split torch.hsplit
    torch.vsplit torch.dsplit torch.meshgrid torch.broadcast_tensors torch.svd torch.qr torch.slogdet
    torch.lu_unpack torch.histogram torch.max torch.min torch.median torch.nanmedian torch.unique
    torch.unique_consecutive torch.where torch.nonzero torch.gradient torch.autograd.grad
    torch.linalg.eigh torch.linalg.eig torch.linalg.svd torch.linalg.qr torch.linalg.slogdet
    torch.linalg.lstsq torch.linalg.inv_ex torch.linalg.cholesky_ex torch.linalg.lu torch.linalg.lu_factor
    torch.linalg.lu_factor_ex torch.linalg.ldl_factor torch.linalg.ldl_factor_ex torch.linalg.solve_ex
    """.split()
)
# tensor.<name>(...) that returns a tuple of tensors, or a tensor (`x.max()` without dim).
TENSOR_TUPLE_METHODS = frozenset(
    """
    sort topk kthvalue mode cummax cummin aminmax max min median nanmedian unique unique_consecutive
    split chunk unbind tensor_split hsplit vsplit dsplit svd qr slogdet nonzero
    """.split()
)

# torch.nn.functional.<name> that returns a single tensor.
FUNCTIONAL_TENSOR_FUNCTIONS = frozenset(
    """
    relu relu6 gelu silu elu selu celu leaky_relu mish hardswish hardsigmoid hardtanh softplus
    softsign tanhshrink sigmoid tanh softmax log_softmax gumbel_softmax glu logsigmoid linear
    bilinear conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d interpolate
    upsample pad normalize dropout dropout1d dropout2d dropout3d alpha_dropout layer_norm
    batch_norm group_norm instance_norm rms_norm local_response_norm embedding one_hot
    cross_entropy mse_loss l1_loss smooth_l1_loss huber_loss nll_loss kl_div
    binary_cross_entropy binary_cross_entropy_with_logits cosine_similarity pairwise_distance
    avg_pool1d avg_pool2d avg_pool3d adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d
    pixel_shuffle pixel_unshuffle grid_sample affine_grid scaled_dot_product_attention unfold fold
    margin_ranking_loss hinge_embedding_loss soft_margin_loss triplet_margin_loss
    """.split()
)

# tensor.<name>(...) that returns a tensor when called on a tensor.
TENSOR_RETURNING_METHODS = frozenset(
    """
    clone detach contiguous float double half bfloat16 int long short bool byte char to cuda cpu
    type_as view view_as reshape reshape_as flatten unflatten squeeze unsqueeze permute transpose
    t expand expand_as repeat repeat_interleave narrow select sum mean std var prod norm abs exp
    log log1p sqrt rsqrt pow sigmoid tanh relu softmax log_softmax matmul mm bmm mul add sub div
    neg clamp clip masked_fill gather index_select argmax argmin cumsum cumprod round floor ceil
    sign new_zeros new_ones new_empty new_full new_tensor flip roll all any logical_not eq ne gt
    lt ge le square diag tril triu amax amin lerp where fill_diagonal nan_to_num pin_memory
    movedim swapaxes swapdims logsumexp unfold diagonal
    """.split()
)

# Methods that, on anything, almost surely mean the receiver is a tensor.
TENSOR_ONLY_METHODS = frozenset({"detach", "detach_", "requires_grad_"})

# Attributes of a tensor that are tensors (`.T`, `.data`) or surely not (`.shape`).
TENSOR_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "data", "real", "imag"})
NON_TENSOR_ATTRIBUTES = frozenset(
    {"shape", "dtype", "device", "ndim", "requires_grad", "is_leaf", "is_cuda", "layout", "names"}
)
NON_TENSOR_METHODS = frozenset(
    """
    item tolist size dim ndimension numel nelement element_size data_ptr stride is_contiguous
    is_floating_point is_complex numpy storage_offset untyped_storage get_device __len__ type
    """.split()
)
NON_TENSOR_BUILTINS = frozenset(
    {"len", "int", "float", "bool", "str", "range", "list", "tuple", "dict", "set", "isinstance",
     "enumerate", "zip", "repr", "format", "type", "id", "hash", "sorted", "reversed", "round"}
)

# Tensorness from use: calling one of these on a name says it holds a tensor (lists, NumPy arrays
# and numbers have none of them; `.copy()`, `.mean()`, `.sum()` are shared with NumPy and say nothing).
# `clone`, `detach` and `backward` only without positional arguments (`node.clone(parent)`,
# `accelerator.backward(loss)` are not the tensor's methods).
USE_PROVES_TENSOR_METHODS = frozenset({"clone", "detach", "detach_", "backward"}) | INPLACE_TENSOR_METHODS
# torch functions of TORCH_TENSOR_FUNCTIONS whose first argument is not (or not only) a tensor:
# sizes, data to convert, sequences of tensors, an equation.
NOT_TENSOR_FIRST_ARGUMENT = frozenset(
    """
    tensor as_tensor asarray from_numpy frombuffer zeros ones empty full rand randn randint randperm
    arange linspace logspace eye cat concat concatenate stack hstack vstack dstack einsum meshgrid_like
    block_diag cartesian_prod atleast_1d atleast_2d atleast_3d normal complex polar where
    """.split()
)

NameLookup = Callable[[cst.Name], Tensorness]

# Names that say "a network": `model`, `net`, `netG`, `base_model`, `encoder`, `resnet`, `unet`.
NETWORK_WORDS = frozenset(
    "model net network classifier backbone encoder decoder generator discriminator critic teacher student "
    "policy actor autoencoder vae cnn rnn lstm mlp".split())


# Last words of a name that say it holds something made for or from a network, not the network
# (`model_cam`, a Grad-CAM explainer built over the model; `model_path`, `encoder_outputs`).
NOT_NETWORK_HEADS = frozenset(
    "cam gradcam saliency explainer attack attacker path dir file filename name output outputs out logits loss "
    "losses optimizer optim config cfg args state weights params parameters grad grads scheduler checkpoint ckpt "
    "type kwargs".split())


def reads_as_network(name: str) -> bool:
    """`model`, `net`, `netG`, `base_model`, `encoder`, `resnet`: a name that says "a network"
    (so not a tensor, whatever attributes it is given). One whose last word names what is made for
    or from a network (`model_cam`, `model_path`, `encoder_outputs`) does not."""
    parts = [part for part in re.split(r"_|(?<=[a-z])(?=[A-Z])", name) if part]
    if len(parts) > 1 and parts[-1].lower() in NOT_NETWORK_HEADS:
        return False
    for part in parts:
        part = part.lower().rstrip("0123456789")
        if part in NETWORK_WORDS or (part.endswith("net") and len(part) <= 14) or part.endswith("model"):
            return True
    return False


def name_used_as_tensor(call: cst.Call, qualified: Optional[str]) -> Optional[cst.Name]:
    """The name a call shows to hold a tensor: `x.clone()`, `x.relu_()`, `x.requires_grad_()`,
    `F.relu(x, inplace=True)`, `torch.add(x, y)`. `qualified` is the call's torch name, if any."""
    func = call.func
    if qualified is not None:
        module, _, function = qualified.rpartition(".")
        if module == "torch":
            proves = (function in TORCH_TENSOR_FUNCTIONS and function not in NOT_TENSOR_FIRST_ARGUMENT) \
                or function in INPLACE_TENSOR_METHODS
        elif module == "torch.nn.functional":
            proves = function in FUNCTIONAL_TENSOR_FUNCTIONS or function in INPLACE_FUNCTION_ARGUMENT
        else:
            proves = False
        first = call.args[0] if call.args else None
        if proves and first is not None and first.keyword is None and not first.star \
                and type(first.value) is cst.Name:
            return first.value
        return None
    if type(func) is not cst.Attribute or type(func.value) is not cst.Name:
        return None
    method = func.attr.value
    if method in ("clone", "detach", "backward") and any(arg.keyword is None for arg in call.args):
        return None  # `accelerator.backward(loss)` is not Tensor.backward
    if method == "requires_grad_" and call.args:
        return None  # `model.requires_grad_(False)`: modules have it too
    if method in USE_PROVES_TENSOR_METHODS or method == "requires_grad_":
        return func.value
    return None


TYPE_TESTS = frozenset({"isinstance", "hasattr", "callable", "type", "is_tensor", "torch.is_tensor"})


def tests_type(test: cst.BaseExpression) -> bool:
    """Does a condition ask what something is (`isinstance(x, torch.Tensor)`, `hasattr(x, "clone")`)?
    Under such a test a method call proves nothing about the other branch, or the code around."""
    stack = [test]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call:
            func = node.func
            name = func.value if type(func) is cst.Name else func.attr.value if type(func) is cst.Attribute else ""
            if name in TYPE_TESTS:
                return True
            stack.extend(arg.value for arg in node.args)
        elif type(node) is cst.BooleanOperation:
            stack.extend((node.left, node.right))
        elif type(node) is cst.UnaryOperation:
            stack.append(node.expression)
        elif type(node) is cst.Comparison:
            stack.append(node.left)
            stack.extend(c.comparator for c in node.comparisons)
    return False


# NumPy functions that always make an ndarray, whatever they are given (not those that hand a tensor
# to its own method, as `np.clip(t, 0, 1)` calls `t.clip`).
NUMPY_ARRAY_MAKERS = frozenset(f"numpy.{name}" for name in """
    array asarray stack concatenate append vstack hstack dstack column_stack zeros ones empty full
    zeros_like ones_like empty_like full_like arange linspace eye identity load loadtxt frombuffer fromfile
    random.rand random.randn random.random random.uniform random.normal random.randint random.choice
    random.permutation
""".split())


# Methods an ndarray shares with a tensor that make another of the same kind; on a value that is
# surely not a tensor (an array NumPy made, a list), what they give is not one either.
ARRAY_SHAPING_METHODS = frozenset({"transpose", "reshape", "astype", "flatten", "ravel", "squeeze", "copy",
                                   "swapaxes"})


class TensorTyping:
    """Classifies expressions; names are resolved by the caller's data flow."""

    def __init__(self, names: TorchNames, returns: Optional[Callable[[cst.Call], Tensorness]] = None,
                 numpy: Optional[dict] = None, torchvision: Optional[dict] = None) -> None:
        """`returns`: what a call of a function defined in the module returns (ModuleFacts knows);
        `numpy`, `torchvision`: the module's local names for those libraries (torchnames.library_names)."""
        self.names = names
        self.returns = returns
        self.numpy = numpy or {}
        self.torchvision = torchvision or {}


    def parts_of(self, expr: cst.BaseExpression, lookup: NameLookup) -> Tensorness:
        """What the parts of `expr` are, when it is unpacked or indexed: `vals, vecs = torch.linalg.eigh(m)`,
        `x.max(dim=1)[0]`, `a, b = x` (the rows of a tensor are tensors)."""
        if type(expr) is cst.Call:
            qualified = self.names.qualified_name(expr.func)
            if qualified is not None:
                if qualified in TORCH_TUPLE_FUNCTIONS:
                    return Tensorness.SURE
            elif type(expr.func) is cst.Attribute and expr.func.attr.value in TENSOR_TUPLE_METHODS:
                receiver = self.of(expr.func.value, lookup)
                if receiver.is_tensor:
                    return receiver
        whole = self.of(expr, lookup)
        return whole if whole.is_tensor else Tensorness.UNKNOWN

    def of(self, expr: cst.BaseExpression, lookup: NameLookup) -> Tensorness:
        if type(expr) is cst.Name:
            if expr.value in ("None", "True", "False"):
                return Tensorness.NOT
            return lookup(expr)
        if type(expr) in (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                          cst.FormattedString, cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp,
                          cst.DictComp, cst.SetComp, cst.GeneratorExp, cst.Lambda):
            return Tensorness.NOT
        if type(expr) is cst.Call:
            return self._of_call(expr, lookup)
        if type(expr) is cst.Attribute:
            attribute = expr.attr.value
            if attribute in NON_TENSOR_ATTRIBUTES:
                return Tensorness.NOT
            if attribute in TENSOR_ATTRIBUTES:
                base = self.of(expr.value, lookup)
                return base if base.is_tensor else Tensorness.UNKNOWN
            if attribute in ("values", "indices", "eigenvalues", "eigenvectors", "U", "S", "Vh", "Q", "R"):
                # The fields of the named tuples torch returns (`x.topk(k).values`, `torch.linalg.eigh(m).eigenvalues`).
                if type(expr.value) is cst.Call and self.parts_of(expr.value, lookup) is Tensorness.SURE:
                    return Tensorness.SURE
            return Tensorness.UNKNOWN
        if type(expr) is cst.Subscript:
            return self.parts_of(expr.value, lookup)
        if type(expr) is cst.BinaryOperation:
            return self._of_arithmetic(self.of(expr.left, lookup), self.of(expr.right, lookup))
        if type(expr) is cst.UnaryOperation:
            if type(expr.operator) is cst.Not:
                return Tensorness.NOT
            return self.of(expr.expression, lookup)
        if type(expr) is cst.IfExp:
            return combine([self.of(expr.body, lookup), self.of(expr.orelse, lookup)])
        if type(expr) is cst.Comparison:
            if any(type(c.operator) in (cst.Is, cst.IsNot, cst.In, cst.NotIn) for c in expr.comparisons):
                return Tensorness.NOT
            parts = [self.of(expr.left, lookup)] + [self.of(c.comparator, lookup) for c in expr.comparisons]
            return Tensorness.SURE if Tensorness.SURE in parts else (
                Tensorness.NOT if all(p is Tensorness.NOT for p in parts) else Tensorness.UNKNOWN
            )
        return Tensorness.UNKNOWN

    @staticmethod
    def _of_arithmetic(left: Tensorness, right: Tensorness) -> Tensorness:
        if Tensorness.SURE in (left, right):
            return Tensorness.SURE
        if Tensorness.LIKELY in (left, right):
            return Tensorness.LIKELY
        if left is Tensorness.NOT and right is Tensorness.NOT:
            return Tensorness.NOT
        return Tensorness.UNKNOWN

    def _of_call(self, call: cst.Call, lookup: NameLookup) -> Tensorness:
        qualified = self.names.qualified_name(call.func)
        if qualified in ("torch.max", "torch.min"):
            if not call.args or call.args[0].star or call.args[0].keyword is not None:
                return Tensorness.UNKNOWN
            return self._of_extremum(call.args[1:], lookup)
        if qualified is not None:
            return self._of_torch_call(qualified, call)
        func = call.func
        if numpy_name(func, self.numpy) in NUMPY_ARRAY_MAKERS:
            return Tensorness.NOT
        if numpy_name(func, self.torchvision) in TORCHVISION_TENSOR_MAKERS:
            return Tensorness.SURE  # `read_image(path)`: a uint8 tensor of the image
        if type(func) is cst.Name and func.value in NON_TENSOR_BUILTINS:
            return Tensorness.NOT
        if type(func) is cst.Name and self.returns is not None:
            returned = self.returns(call)
            if returned is not Tensorness.UNKNOWN:
                return returned
        if type(func) is cst.Attribute:
            method = func.attr.value
            if method in NON_TENSOR_METHODS:
                return Tensorness.NOT
            if method in ARRAY_SHAPING_METHODS and self.of(func.value, lookup) is Tensorness.NOT:
                return Tensorness.NOT  # `np.stack(frames).transpose(2, 0, 1)`: still an array
            if method in ("max", "min"):
                receiver = self.of(func.value, lookup)
                if receiver.is_tensor and self._of_extremum(call.args, lookup).is_tensor:
                    return receiver
            if method in TENSOR_RETURNING_METHODS or is_inplace_method_name(method):
                receiver = self.of(func.value, lookup)
                if receiver.is_tensor:
                    return receiver
                if method in TENSOR_ONLY_METHODS:
                    return Tensorness.LIKELY
        return Tensorness.UNKNOWN

    def _of_extremum(self, rest: Sequence[cst.Arg], lookup: NameLookup) -> Tensorness:
        """`torch.max(x)` / `x.max()` (the largest value) and `torch.max(a, b)` / `a.max(b)` with `b` a
        tensor (the elementwise maximum) make one tensor; with a dimension (`torch.max(x, 1)`,
        `dim=1`) they make a (values, indices) pair. `rest`: the arguments after the tensor itself."""
        if any(arg.star or (arg.keyword is not None and arg.keyword.value != "out") for arg in rest):
            return Tensorness.UNKNOWN
        positional = [arg for arg in rest if arg.keyword is None]
        if not positional:
            return Tensorness.SURE
        if len(positional) == 1:
            other = self.of(positional[0].value, lookup)
            return other if other.is_tensor else Tensorness.UNKNOWN
        return Tensorness.UNKNOWN

    def _of_torch_call(self, qualified: str, call: cst.Call) -> Tensorness:
        module, _, function = qualified.rpartition(".")
        if module == "torch" and (function in TORCH_TENSOR_FUNCTIONS or is_inplace_method_name(function)):
            return Tensorness.SURE
        if module == "torch.nn.functional" and function in FUNCTIONAL_TENSOR_FUNCTIONS:
            return Tensorness.SURE
        if module in ("torch", "torch.nn.functional") and function in ("numel", "is_tensor", "is_grad_enabled"):
            return Tensorness.NOT
        return Tensorness.UNKNOWN


# torchvision's functions that always give a tensor, whatever they are given.
TORCHVISION_TENSOR_MAKERS = frozenset({
    "torchvision.io.read_image", "torchvision.io.decode_image", "torchvision.io.decode_jpeg",
    "torchvision.io.decode_png", "torchvision.transforms.functional.to_tensor",
    "torchvision.transforms.functional.pil_to_tensor", "torchvision.utils.make_grid",
})


def annotation_is_tensor(annotation: Optional[cst.Annotation], names: TorchNames) -> bool:
    """`x: torch.Tensor` or `x: Tensor` (imported from torch)."""
    if annotation is None:
        return False
    node = annotation.annotation
    return names.qualified_name(node) == "torch.Tensor"

"""Which values require grad, and which never do: the one place the package answers it.

Two questions, both per module (ModuleFacts.autograd), both cached per binding so that asking
about every name of a module stays linear:

- `origin(expr)`: does the value require grad? A `GradOrigin` (why, and where that started) or
  None. Leaves made so, parameters, losses that are backpropagated, outputs of modules with
  trainable parameters, and what is computed from one of them in grad mode. Each answer has
  grounds: SEEN (the file shows it), ASSUMED (it rests on an assumption the message must state:
  a network of unknown class, loaded with `torch.load`, built by a factory or passed in as
  `model`, has trainable parameters, as nearly every network does) or POSSIBLE (a module class of
  this file whose parameters are not in sight). A rule asks for the grounds it can stand on:
  TCL009 reports an ASSUMED origin with the assumption in its message, graphs.py (TCL010) follows
  a POSSIBLE one, TCL005 words its message on a SEEN one. None means none of these.
- `never_requires_grad(expr)`: is the value surely free of autograd history? Numbers, tensors made
  without `requires_grad=True`, integer and bool tensors (analysis/placement.py says which, also
  from uses: an index, a `gather` index, the target of `nll_loss`), what `.detach()`, `.data`,
  `.grad`, `.item()` give, gradients from `torch.autograd.grad` without `create_graph=True`, the
  entries of a state dict and the module's buffers, what a computation under no-grad makes (not a
  view, nor a method that may return its receiver), and what tensor methods and torch functions
  compute from those alone.
  With `likely=True` it also answers yes where it is very likely, for a rule whose silence is the
  safe side (TCL005): class labels by their uses (the target of `F.cross_entropy`, compared with
  `argmax`, `.long()`ed, also inside a same-file callee), a parameter named as labels that is never
  computed with (placement.named_as_labels), batches of data loaders (analysis/loaders.py), what a
  call of a network or an unknown function returns under no-grad, a function's argument when
  every call of the function in the file passes such a value (another file may call it
  otherwise), and the items of such an argument, or of a list made here of such values.

- `carries_graph(expr)`: does the value hold an autograd graph (TCL007: what an accumulator keeps
  alive)? The same reading as `origin`, and further: what a container holds (a list the function
  appended outputs to, a tuple, a dict: a container does not require grad, but keeps the graphs of
  what it holds), the fields of a network's output (`model(x).logits`), and what a loss function
  of unknown class named as one (`criterion(out, y)`, `loss_fn(...)`) computes from its inputs. A
  leaf that requires grad holds no graph of its own (its `grad_fn` is None): not an answer. On
  POSSIBLE grounds only, a callee the file does not show (`head(features)` with `head` taken from a
  ModuleList) passes on the graph of what it is given (TCL007 asks so where the file shows the
  value backpropagated, so a value that carries no graph at all, a number or gradient signs, is
  told apart).

graphs.py (TCL010, TCL011), TCL007 and the TCL005/TCL009/TCL012 rules read these; nothing else
decides "requires grad".
"""

from __future__ import annotations

import builtins
import re
from dataclasses import dataclass, replace
from typing import Optional

import libcst as cst

from torchcopylint.analysis.aliasing import (
    LEAF_FACTORIES,
    METADATA_ATTRIBUTES,
    PARAMETER_CLASSES,
    PASSED_UNKNOWN,
    SPLITTING_VIEWS,
    VARIABLE_CLASSES,
    Binding,
    FunctionFacts,
    _keyword_is_true,
    detached_in_place,
    goes_through_detach,
    grad_mode_of_context,
    parameter_requires_grad,
    parameter_without_grad,
    passed_for_parameter,
    position_in_target,
    returned_parts,
    runs_before,
    unpacked_part,
)
from torchcopylint.analysis.graphs import DETACHING_BUILTINS, MOVING_METHODS, VIEW_METHODS
from torchcopylint.analysis.keeping import called_definition
from torchcopylint.analysis.memo import Memo
from torchcopylint.analysis.parameters import PARAMETER_NAMES
from torchcopylint.analysis.placement import LEGACY_TYPES
from torchcopylint.analysis.syntax import is_self_attribute, single_index, sum_terms, walk
from torchcopylint.analysis.tensors import NON_TENSOR_METHODS, Tensorness
from torchcopylint.analysis.tensors import reads_as_network as _network_name
from torchcopylint.analysis.torchnames import MODULE_RETURNING_METHODS, dotted_name, loss_function_name, numpy_name
from torchcopylint.analysis.training import (SWITCH_FRAGMENTS, backward_calls, module_key, modules_by_use,
                                             switched_off_at, takes_gradients)

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
MAX_HANDOVERS = 3  # wrappers followed back from a function to see what its argument is
SET_GRAD_ENABLED = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"})
AUTOGRAD_GRAD = frozenset({"torch.autograd.grad"})
# Objects that hold settings (numbers, strings, flags), not tensors: `self.config.hidden_size`.
# (`opt` is left out: it names optimizers as often as options.)
SETTINGS_WORDS = frozenset({"config", "cfg", "conf", "args", "hparams", "hps", "settings", "options"})
# Module-level torch functions that return tensors computed from their arguments (the rest of
# torch, `torch.load`, `torch.nn.*` classes, `torch.optim`, return other things).
TENSOR_FUNCTION_MODULES = frozenset({"torch", "torch.nn.functional", "torch.linalg", "torch.fft", "torch.special"})
# torch functions of other modules that join the tensors they are given into one (a TRPO step flattens
# its gradients): it requires grad only if one of them does.
JOINING_FUNCTIONS = frozenset({"torch.nn.utils.parameters_to_vector",
                               "torch.nn.utils.convert_parameters.parameters_to_vector"})
# What a dataset object keeps its labels in (torchvision's `targets`, older `train_labels`): data, never a graph.
DATASET_LABELS = frozenset({"targets", "labels", "train_labels", "test_labels"})
EINOPS_FUNCTIONS = frozenset({"einops.rearrange", "einops.repeat", "einops.reduce", "einops.einsum", "einops.pack"})
NOT_TENSOR_FUNCTIONS = frozenset({"load", "compile", "no_grad", "enable_grad", "inference_mode", "set_grad_enabled"})
# Keywords of torch functions that take tensors (the others take sizes, dims, dtypes, devices, flags).
TENSOR_KEYWORDS = frozenset({"input", "other", "weight", "bias", "target", "tensor", "tensors", "mat1", "mat2",
                             "vec", "src", "source", "value", "values", "end", "exponent", "self", "x", "y"})
# Loading a network object (not a state dict): `torch.load(path)` called as a module.
LOADERS = frozenset({"torch.load", "torch.jit.load", "torch.hub.load", "torch.jit.script", "torch.jit.trace",
                     "torch.compile"})
WRAPPERS = frozenset({"torch.nn.DataParallel", "torch.nn.parallel.DistributedDataParallel",
                      "torch.nn.parallel.DataParallel"})
# Calls (by the last part of their name) that give the entries of a mapping, and where the tensor is.
MAPPING_ENTRIES = {"items": 1, "values": 0}
# Under no-grad these may return a tensor that requires grad: views of one (they keep its flag) and
# methods that return their receiver when nothing changes (`.to(device)` on that device, `.float()`
# of a float tensor, `.contiguous()`).
KEEPS_FLAG_WITHOUT_GRAD = frozenset(
    """
    view view_as reshape reshape_as flatten unflatten squeeze unsqueeze permute transpose t expand
    expand_as narrow select diagonal movedim moveaxis swapaxes swapdims unfold split chunk unbind
    as_strided contiguous float double half bfloat16 to cuda cpu type type_as requires_grad_
    """.split()
)
# torch.nn.functional functions that may return their input unchanged (dropout when not training).
FUNCTIONAL_MAY_RETURN_INPUT = frozenset({"dropout", "dropout1d", "dropout2d", "dropout3d", "pad", "interpolate"})
# Tensor methods whose result requires grad only if the receiver does: their arguments are devices,
# dtypes, shapes, dims or integer indices (`x.to(device)`, `x.to(other)` takes only other's dtype).
RECEIVER_ONLY_METHODS = frozenset(
    """
    to cuda cpu type type_as view view_as reshape reshape_as expand expand_as repeat permute transpose
    flatten unflatten squeeze unsqueeze narrow select contiguous float double half bfloat16 long int
    bool sum mean std var norm amax amin softmax log_softmax gather index_select roll flip chunk split
    pin_memory clone detach movedim swapaxes swapdims t
    """.split()
)
# Factories that also compute from tensor arguments: `torch.normal(mean, std)` follows `mean`,
# `torch.as_tensor(t)` returns `t` itself.
FACTORIES_OF_TENSORS = frozenset({"normal", "as_tensor"})
BUFFER_ITERATORS = {"named_buffers": 1, "buffers": 0}
COMPREHENSIONS = (cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp)
VARIABLE_CLASSES = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})
# The grounds of an answer, strongest first: the file shows it; it rests on the assumption that a
# network of unknown class has trainable parameters (the message says so); or the callee is a module
# of this file whose parameters are not in sight (enough for following a graph, not for a finding).
SEEN, ASSUMED, POSSIBLE = 2, 1, 0


@dataclass(frozen=True)
class GradOrigin:
    """Why a value requires grad: what it is (or is computed from), and the node that made that."""

    description: str
    node: cst.CSTNode
    derived: bool = False  # the value was computed from that origin (not the origin's value itself)
    grounds: int = SEEN
    # For ASSUMED grounds, the assumption in words, for the message:
    # "if `model` has parameters that require grad, as a loaded network does".
    assumption: str = ""
    # What `carries_graph` went through to it, outermost first: "the list `outs`", "`torch.stack(...)`".
    via: tuple = ()

    @property
    def is_new_leaf(self) -> bool:
        """The value is itself a leaf made to require grad (`torch.tensor(x, requires_grad=True)`, an
        `nn.Parameter`): it has no history, so it holds no graph."""
        return not self.derived and self.description in LEAF_DESCRIPTIONS.values()


class GradFlow:
    """Answers `origin(expr, function, statement)` and `never_requires_grad(expr, function)` for one
    module; built once (ModuleFacts.autograd).

    `facts` is that module's ModuleFacts. It is not imported here: facts.py builds this class, and
    a lower layer never imports a higher one (tests/test_import_cycles.py)."""

    def __init__(self, facts, holders: bool = False) -> None:
        self.facts = facts
        # The `carries_graph` reading: also through containers, output fields and loss functions.
        self.holders = holders
        self._holding: Optional["GradFlow"] = None
        self._origins = Memo()  # binding -> GradOrigin or None (`h = h * w` in a loop: the other operand decides)
        self._backpropagated: dict = {}  # function node -> loss bindings
        self._frozen: Optional[frozenset] = None
        self._uncertain: dict = {}  # function node -> statements whose grad mode is decided at run time
        self._without_grad = Memo()  # (binding, likely) -> answer (False, in a cycle through a loop)
        self._restored: dict = {}  # function node -> names handed to `.load_state_dict(...)`
        self._globals: Optional[frozenset] = None  # names declared `global` in some function
        self._top_level_leaves: Optional[dict] = None  # top-level name -> its bindings, in order
        self._modules_by_use: dict = {}  # function node -> names it calls `.eval()`, `.parameters()` on
        self._backward_receivers_of: dict = {}  # function node -> names it calls `.backward(...)` on
        self._buffers_without_grad: dict = {}  # (class name, attribute) -> answer
        self._inserted_without: dict = {}  # (class name, container attribute) -> answer
        self._switched_on_by: dict = {}  # class name -> the attributes it makes require grad itself
        self._detached_in_place: dict = {}  # function node -> its `x.detach_()` statements (asked of every name read)
        self._tested_without_grad: dict = {}  # function node -> {statement: {name an `if` shows needs no grad: branch}}
        self._tested_expressions: dict = {}  # function node -> [(name, the branch of `a if a.requires_grad else b`)]

    # ----------------------------------------------------------------- queries

    def origin(self, expr: cst.BaseExpression, function: FunctionFacts, statement: Optional[cst.CSTNode],
               grounds: int = SEEN) -> Optional[GradOrigin]:
        """Does `expr`, evaluated at `statement`, require grad, on at least these grounds? Why, or None.
        Without a statement, grad mode is taken as on where the value is read."""
        if statement is not None and statement in self._mode_decided_at_run_time(function):
            return None
        enabled = self.facts.grad_enabled_at(function, statement) if statement is not None else True
        found = self._of(expr, function, enabled, 0)
        return found if found is not None and found.grounds >= grounds else None

    def _tested_names(self, function: FunctionFacts) -> dict:
        """Statements that run only where an `if` found a name not to require grad (the `else` of
        `if out.requires_grad:`, the body of `if not out.requires_grad:`), with that branch: a value
        bound inside it is another one."""
        found = self._tested_without_grad.get(function.node)
        if found is not None:
            return found
        found = self._tested_without_grad[function.node] = {}
        for name, branch in _branches_without_grad(function.node, cst.If):
            if type(branch) is cst.If:
                continue  # `elif`: what it tests decides, not this `if` alone
            for statement in function.statement_order:
                if _within(statement, branch):
                    found.setdefault(statement, {})[name] = branch
        return found

    def _tested_in_expression(self, name: cst.Name, function: FunctionFacts) -> bool:
        """Is `name` read in the branch of a conditional expression that runs only where it needs no
        grad (`x if x.requires_grad else x.clone().detach()`)?"""
        branches = self._tested_expressions.get(function.node)
        if branches is None:
            branches = self._tested_expressions[function.node] = [
                *_branches_without_grad(function.node, cst.IfExp)]
        return any(tested == name.value and _within(name, branch) for tested, branch in branches)

    def _read_where_tested_without_grad(self, expr: cst.BaseExpression, function: FunctionFacts) -> bool:
        """Is `expr` (a name, through views and moves) read only where the function found that name not
        to require grad (`t.detach().numpy() if t.requires_grad else t.numpy()`), whatever callers pass?"""
        name = _accessed_name(expr)
        if name is None:
            return False
        if self._tested_in_expression(name, function):
            return True
        return any(_within(name, names[name.value])
                   for names in self._tested_names(function).values() if name.value in names)

    def origin_from_callers(self, expr: cst.BaseExpression, function: FunctionFacts,
                            grounds: int = SEEN) -> Optional[tuple[cst.Call, cst.BaseExpression, GradOrigin]]:
        """Where `expr` is one of the function's parameters (through views, moves and indexing, not a
        detach): the first call of the function in this file, made in grad mode, that passes a value
        requiring grad for it (on at least these grounds), as (the call, what it passes, why); None when
        no call in sight does, or the calls are not all in sight (`call_sites_of`). A wrapper such as
        `def to_np(t): return t.cpu().numpy()` fails for the caller that hands it a model's output."""
        param = _parameter_of(expr, function)
        if param is None or self._read_where_tested_without_grad(expr, function):
            return None
        definition = function.node
        for caller, call, statement in self.facts.call_sites_of(function) or ():
            if caller is function:
                continue  # recursion: what it passes is a parameter again
            passed = passed_for_parameter(call, definition, param)
            if passed is None or passed is PASSED_UNKNOWN or not self.facts.grad_enabled_at(caller, statement):
                continue
            found = self.origin(passed, caller, statement, grounds)
            if found is not None:
                return call, passed, found
        return None

    def callers_pass_no_graph(self, expr: cst.BaseExpression, function: FunctionFacts) -> bool:
        """Where `expr` is one of the function's parameters (through views, moves and indexing): every call
        of the function is in sight, there is one, and each passes, for it, data: a value that very likely
        needs no grad (a batch of a loader, what a network made under no-grad), or an item of what a loop of
        the caller iterates that nothing in sight gives a graph (`for images, labels in dataset.batches()`).
        What a rule would say of the argument's graph does not happen in this file."""
        param = _parameter_of(expr, function)
        sites = self.facts.call_sites_of(function) if param is not None else None
        if not sites:
            return False
        definition = function.node
        for caller, call, statement in sites:
            passed = passed_for_parameter(call, definition, param)
            if passed is PASSED_UNKNOWN:
                return False
            if passed is None:
                if param.default is not None and not self._never(param.default, function, None, 0, True):
                    return False
                continue
            if not self._passes_data(passed, caller, statement):
                return False
        return True

    def _passes_data(self, passed: cst.BaseExpression, caller: FunctionFacts, statement: cst.CSTNode) -> bool:
        """Is what a call passes very likely data, with no graph: made under no-grad, or something that
        needs no grad (a batch of a loader), or an item of what a loop of the caller iterates that
        nothing in sight gives a graph (`for images, labels in dataset.batches()`)?"""
        if not self.facts.grad_enabled_at(caller, statement) or self._never(passed, caller, statement, 0, True):
            return True
        item = _accessed_name(passed)  # `images`, `images.to(device)`, `images[0]`
        return item is not None and _an_item_of_data(item, caller) \
            and self.origin(passed, caller, statement, POSSIBLE) is None

    def only_an_argument(self, expr: cst.BaseExpression, function: FunctionFacts,
                         statement: Optional[cst.CSTNode] = None) -> bool:
        """Is `expr` one of the function's parameters as it was passed (through views, moves and
        indexing, and the comprehensions of `statement` over it: `[t.clone().detach() for t in x]`)
        that no call in the file shows (`_out_of_sight`: no call, or wrappers that pass on arguments of
        their own)? What it holds is not in sight: usually a batch of data, an attack's clean images, a
        constant. Not the input of a network's `forward`: inside a network, a layer is handed the output
        of the layer before it."""
        name = _accessed_name(expr)
        name = _comprehension_source(name, statement) if name is not None and statement is not None else name
        if name is None or name.value in ("self", "cls"):
            return False
        owner = self.facts.class_of(function.node) if type(function.node) is cst.FunctionDef else None
        if owner is not None and function.node.name.value == "forward" and self.facts.is_module_class(owner) \
                and not self._made_a_leaf_of(name, function):
            return False
        return self._passed_as_it_was(name, function, 0)

    def held_by_an_object(self, expr: cst.BaseExpression, function: FunctionFacts,
                          statement: Optional[cst.CSTNode] = None) -> bool:
        """Is `expr` (through views, moves and indexing) what an object keeps: an attribute read
        (`module.eps_out`, `self.labels[idx]`, `self.buffer[-n:]`), or an item of a loop, or of a
        comprehension of `statement`, over one (`[m.clone() for m in env.masks]`)? Objects mostly keep
        state (masks, labels, buffers, scales); asked where nothing in sight says the value requires grad."""
        if self.requires_grad(expr, function, statement):
            return False  # something in sight may make it require grad (`self.mask.requires_grad_(True)`)
        root = _accessed_root(expr)
        if type(root) is cst.Name and statement is not None:
            source = _comprehension_source(root, statement)
            if source is None:  # an item of a comprehension over something else than a name: over what?
                loops = _comprehension_loops(root, statement)
                return bool(loops) and type(_accessed_root(loops[0].iter)) is cst.Attribute
            root = source
        if type(root) is cst.Attribute:
            if root.attr.value in PARAMETER_NAMES:
                return False  # a layer's `weight` or `bias`: a parameter, not kept state
            owner = self.facts.classes.get(function.class_name or "")
            if type(root.value) is cst.Name and root.value.value == "self" and owner is not None and (
                    owner.attribute_values.get(root.attr.value)
                    or any(self._buffer_registrations(owner, root.attr.value))):
                return False  # the class's own state, whose values are in sight: what they make decides
            # Not a field of what a network returned (`outputs.logits`): an output, not kept state.
            return not self.requires_grad(root.value, function, statement)
        return type(root) is cst.Name and self._drawn_from_an_attribute(root, function, 0)

    def _drawn_from_an_attribute(self, name: cst.Name, function: FunctionFacts, depth: int) -> bool:
        """Is every value of `name` an item of what an object keeps: a loop over `self.buffer`, or what
        `zip(*random.sample(self.buffer, n))` unpacks, directly or through another such name?"""
        bindings = function.bindings_at(name)
        if not bindings or depth > 3:
            return False
        for binding in bindings:
            if binding.kind == "loop":
                source = getattr(binding.statement, "iter", None)
            elif binding.kind in ("assign", "unpack") and binding.value is not None:
                source = self._drawn_through(binding.value)
                if source is binding.value:
                    return False  # not drawn: `row = model.weight[0]` is no item of kept state
            else:
                return False
            root = _accessed_root(self._drawn_through(source))
            if type(root) is cst.Attribute:
                continue
            if type(root) is cst.Name and root.value != name.value \
                    and self._drawn_from_an_attribute(root, function, depth + 1):
                continue
            return False
        return True

    def _drawn_through(self, expr: Optional[cst.BaseExpression]) -> Optional[cst.BaseExpression]:
        """`self.buffer` for `zip(*random.sample(self.buffer, n))`, `list(memory)[-n:]`: what the calls
        and slices draw their items from, keeping them as they are."""
        drawn = expr
        while True:
            if type(drawn) is cst.Subscript:
                drawn = drawn.value  # `list(self.buffer)[-n:]`
            elif type(drawn) is cst.Call and drawn.args and \
                    (self.facts.names.qualified_name(drawn.func) or dotted_name(drawn.func)) in ITEM_DRAWING_CALLS:
                drawn = expr = drawn.args[0].value
            else:
                return expr

    def _made_a_leaf_of(self, name: cst.Name, function: FunctionFacts) -> bool:
        """Does the function make a new leaf of its parameter (`a = a.clone().detach().requires_grad_(True)`,
        a PINN's `forward` that differentiates with respect to its input)? Cutting the input off its graph
        would stop the gradient to the layers before: the input it expects is data, not a layer's output."""
        params = [binding for binding in function.bindings_at(name) if binding.kind == "param"]
        return any(binding.leaf == "requires_grad_" and self._computed_from(binding, param, function, 0)
                   for binding in function.bindings for param in params)

    def _passed_as_it_was(self, name: cst.Name, function: FunctionFacts, depth: int) -> bool:
        """Every binding of `name` is a parameter out of sight, or a copy, view or move of one
        (`x = x.clone()  # avoid influencing`, `net, x, y = net.to(d), x.to(d), y.to(d)`): a copy
        requires grad exactly when what it copies does. A default put in its place that never
        requires grad (`if mean is None: mean = torch.tensor([0.485, 0.456, 0.406])`) says nothing more."""
        bindings = function.bindings_at(name)
        if not bindings or depth > 3:
            return False
        passed = False
        for binding in bindings:
            if binding.kind == "param":
                if not self._out_of_sight(binding, function):
                    return False
                passed = True
                continue
            if self._binding_never(binding, function, likely=True):
                continue
            value = binding.value if binding.kind == "assign" else \
                unpacked_part(binding) if binding.kind == "unpack" else None
            if value is None and binding.kind == "unpack" and type(binding.value) is cst.Name:
                value = binding.value  # `images, labels = data`: an item of the argument, as indexing gives
            if type(value) is cst.Call and type(value.func) is cst.Attribute and value.func.attr.value == "clone" \
                    and not value.args:
                value = value.func.value
            source = _accessed_name(value) if value is not None else None
            if source is None and value is not None:
                source = self._rearranged_source(value, function)
            if source is None or not self._passed_as_it_was(source, function, depth + 1):
                return False
            passed = True
        return passed

    def _rearranged_source(self, value: cst.BaseExpression, function: FunctionFacts) -> Optional[cst.Name]:
        """The name whose values, only joined again, `value` holds: `torch.cat([t for t in x], dim=2)`,
        `torch.stack([x[0], x[1]])`. It requires grad exactly when that name does. None for anything else."""
        if type(value) is not cst.Call:
            return None
        joined = self.facts.containers.of(function).joined(value)
        if type(joined) in (cst.ListComp, cst.GeneratorExp):
            loop = joined.for_in
            item = _accessed_name(joined.elt)
            if loop.inner_for_in is None and not loop.ifs and type(loop.target) is cst.Name \
                    and item is not None and item.value == loop.target.value:
                return _accessed_name(loop.iter)
            return None
        if type(joined) in (cst.List, cst.Tuple) and joined.elements:
            parts = [_accessed_name(element.value) for element in joined.elements]
            if all(part is not None and part.value == parts[0].value for part in parts):
                return parts[0]
        return None

    def binding_origin(self, binding: Binding, function: FunctionFacts,
                       grounds: int = SEEN) -> Optional[GradOrigin]:
        """Does the value a name was bound to require grad, on at least these grounds?"""
        found = self._binding(binding, function)
        return found if found is not None and found.grounds >= grounds else None

    def requires_grad(self, expr: cst.BaseExpression, function: FunctionFacts,
                      statement: Optional[cst.CSTNode] = None) -> bool:
        """Does the value require grad, as the file shows, or as a network would make it (one of
        unknown class, or a module of this file whose parameters are not in sight)? The reading of
        analyses that follow a graph (graphs.py: what a backward saved)."""
        return self.origin(expr, function, statement, POSSIBLE) is not None

    def carries_graph(self, expr: cst.BaseExpression, function: FunctionFacts, statement: Optional[cst.CSTNode],
                      grounds: int = SEEN) -> Optional[GradOrigin]:
        """Does `expr`, evaluated at `statement`, hold an autograd graph, on at least these grounds
        (see the module's docstring)? Why (`via` names the containers it went through), or None."""
        if self.holders:
            found = self.origin(expr, function, statement, grounds)
            return found if found is not None and not found.is_new_leaf else None
        if self._holding is None:
            self._holding = GradFlow(self.facts, holders=True)
        return self._holding.carries_graph(expr, function, statement, grounds)

    def never_requires_grad(self, expr: cst.BaseExpression, function: FunctionFacts,
                            statement: Optional[cst.CSTNode] = None, likely: bool = False) -> bool:
        """Is the value surely free of autograd history (a number, a tensor that does not require
        grad, anything else that carries no graph)? `statement`, where known, lets a name bound by a
        comprehension there be followed to what it iterates. `likely`: answer yes also where it is
        only very likely (see the module's docstring); for rules whose silence is the safe side."""
        return self._never(expr, function, statement, 0, likely)

    def binding_never_requires_grad(self, binding: Binding, function: FunctionFacts, likely: bool = False) -> bool:
        """The same question of what a name was bound to, where the binding says more than its
        value (`s, a = self.make_batch()`: the part each `return` puts there)."""
        return self._binding_never(binding, function, likely)

    # ---------------------------------------------------------------- bindings

    def _binding(self, binding: Binding, function: FunctionFacts) -> Optional[GradOrigin]:
        return self._origins.answer(binding, lambda: self._binding_origin(binding, function))

    def _binding_origin(self, binding: Binding, function: FunctionFacts) -> Optional[GradOrigin]:
        if binding.leaf in LEAF_DESCRIPTIONS and binding.leaf_origin is not None:
            return GradOrigin(LEAF_DESCRIPTIONS[binding.leaf], binding.leaf_origin)
        if self.holders and binding.kind in ("assign", "walrus") and binding.value is not None:
            insertions = self.facts.containers.of(function).insertions(binding)
            if insertions is not None:
                return self._held_in(binding, insertions, function)
        if binding.kind in ("assign", "walrus", "augassign", "unpack") \
                and not self.facts.grad_enabled_at(function, binding.statement):
            return None  # computed under no-grad (a name reused for a validation loss, say)
        if binding in self._losses(function):
            return GradOrigin("a loss that is backpropagated", binding.statement)
        if binding.kind == "unpack" and binding.value is not None:
            return self._unpacked_origin(binding, function)
        if binding.value is None or binding.kind not in ("assign", "walrus"):
            return None  # parameters, loop variables: not known
        if binding.statement in self._mode_decided_at_run_time(function):
            return None
        return self._of(binding.value, function, True, 1)

    def _unpacked_origin(self, binding: Binding, function: FunctionFacts) -> Optional[GradOrigin]:
        """A part unpacked from a tuple written out (`a, b = x * 2, y`) or from what every `return`
        of a function of the file writes out (`total, cls, box = criterion(out, target)`); None
        when that is not in sight."""
        if binding.statement in self._mode_decided_at_run_time(function):
            return None
        part = unpacked_part(binding)
        if part is not None:
            return self._of(part, function, True, 1)
        position = position_in_target(binding)
        value = binding.value
        if position is None or type(value) is not cst.Call:
            return None
        split = _split_tensor(value, self.facts.names.qualified_name(value.func))
        if split is not None:  # `i, f, g, o = gates.chunk(4, dim=1)`: each piece is a view with its graph
            return self._of(split, function, True, 1)
        resolved = called_definition(self.facts, value, function)  # a function, or an object's forward
        if resolved is None or type(resolved[0]) is not cst.FunctionDef:
            return self._loss_term_of_network(binding, value, function)
        callee = self.facts.function_facts(resolved[0])
        parts = returned_parts(callee, position)
        if parts is None:
            return None
        origins = []
        for statement, part in parts:
            found = self._of(part, callee, self.facts.grad_enabled_at(callee, statement), 1)
            if found is None:
                return None
            origins.append(found)
        return min(origins, key=lambda origin: origin.grounds) if origins else None  # as sure as the least sure

    def _loss_term_of_network(self, binding: Binding, call: cst.Call, function: FunctionFacts) -> Optional[GradOrigin]:
        """A part of a network's output whose code the file does not show (`latent, _, kld_loss =
        encoder(word, tense)`) that the function adds into what it backpropagates (`tot_loss = ce_loss +
        kld_loss`, then `tot_loss.backward()`), or hands as it is to the call that computes such a term
        (`result, mu, log_var = vae(x)`, `recon_loss = criterion(result, x)`, `loss = recon_loss + kl`): the
        network computed the loss, or what it judges, so the part holds its graph, on the grounds its
        output has. Any other part may be an index or a count."""
        output = self._module_output(call, function, (), 1)
        if output is None:
            return None
        for loss in self._losses(function):
            terms = self._term_bindings(loss, function)
            if binding in terms:
                return replace(output, description=f"a term of the loss, part of {output.description}")
            if any(self._term_reads(term, binding, function) for term in terms):
                return replace(output, description=f"a part, which a term of the loss is computed from, of "
                                                   f"{output.description}")
        return None

    def _term_bindings(self, loss: Binding, function: FunctionFacts) -> set:
        """The bindings of the names the loss binding sums, as read there (`ce + beta * kld`: a term may
        be weighted)."""
        if loss.kind not in ("assign", "walrus") or loss.value is None:
            return set()
        found: set = set()
        for term in sum_terms(loss.value):
            factors = (term.left, term.right) if type(term) is cst.BinaryOperation \
                and type(term.operator) is cst.Multiply else (term,)
            for factor in factors:
                if type(factor) is cst.Name:
                    found |= set(self.facts.reaching(factor, function)[1])
        return found

    def _term_reads(self, term: Binding, binding: Binding, function: FunctionFacts) -> bool:
        """Is the term computed from the value the name `binding` binds (`criterion(result, x)`, `-0.5 *
        torch.sum(1 + log_var - mu.pow(2))`), not only from its size or as an index (`criterion(out[idx],
        y)`, `x.size(0)` say nothing of `idx` or `x`)?"""
        if term.kind not in ("assign", "walrus") or term.value is None:
            return False
        aside = {id(node) for sub in walk(term.value) if type(sub) is cst.SubscriptElement for node in walk(sub)}
        aside |= {id(sub.value) for sub in walk(term.value)
                  if type(sub) is cst.Attribute and sub.attr.value in ("shape", "size", "dtype", "device")}
        return any(type(node) is cst.Name and node.value == binding.name and id(node) not in aside
                   and binding in self.facts.reaching(node, function)[1] for node in walk(term.value))

    def _held_in(self, binding: Binding, insertions: list, function: FunctionFacts) -> Optional[GradOrigin]:
        """`outs = []` then `outs.append(model(x))`: the container holds the graph of what it holds
        (each element read in the grad mode of the statement that put it there)."""
        kind = "list" if type(binding.value) in (cst.List, cst.ListComp) else (
            "dict" if type(binding.value) in (cst.Dict, cst.DictComp) else "container")
        uncertain = self._mode_decided_at_run_time(function)
        best = self._held([(element, self.facts.grad_enabled_at(function, statement))
                           for element, statement in insertions if statement not in uncertain], function, 1)
        return replace(best, via=(f"the {kind} `{binding.name}`",) + best.via) if best is not None else None

    def _held(self, elements: list, function: FunctionFacts, depth: int) -> Optional[GradOrigin]:
        """What a container of these (element, grad mode) holds: the graph of the element with the
        strongest grounds (a leaf holds none of its own), as a derived value."""
        best = None
        for element, enabled in elements:
            found = self._of(element, function, enabled, depth + 1)
            if found is None or (not found.derived and found.description in LEAF_DESCRIPTIONS.values()):
                continue
            if best is None or found.grounds > best.grounds:
                best = found
        return _derived(best)

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
            if type(statement) is cst.With:
                found.update(node for node in walk(statement.body) if node in function.statement_order)
            else:
                position = function.order_of(statement)
                found.update(node for node, order in function.statement_order.items() if order >= position)
        self._uncertain[function.node] = found
        return found

    def _losses(self, function: FunctionFacts) -> set:
        """Bindings of the names this function calls `.backward()` on, or on whose sum or mean
        (`losses.sum().backward()`, `self.manual_backward(losses.mean())`: per-sample losses)."""
        found = self._backpropagated.get(function.node)
        if found is None:
            found = set()
            for backward in backward_calls(function, self.facts):
                loss = backward.loss
                if type(loss) is cst.Call and type(loss.func) is cst.Attribute and not loss.args \
                        and loss.func.attr.value in ("sum", "mean") and type(loss.func.value) is cst.Name:
                    loss = loss.func.value
                if type(loss) is cst.Name:
                    found |= set(function.bindings_at(loss))
            self._backpropagated[function.node] = found
        return found

    # ------------------------------------------------------------- expressions

    def _of(self, expr, function: FunctionFacts, grad_enabled: bool, depth: int) -> Optional[GradOrigin]:
        if depth > MAX_DEPTH or expr is None:
            return None
        if type(expr) is cst.Name:
            owner, bindings = self.facts.reaching(expr, function)  # a global: the top level's
            if not bindings:
                return self._top_level_leaf(expr, function)
            # In statement order, so that the origin a message names does not depend on set order.
            ordered = sorted(bindings, key=lambda binding: owner.order_of(binding.statement))
            origins = [self._binding(binding, owner) for binding in ordered]
            if not all(origins):
                return None
            return min(origins, key=lambda origin: origin.grounds)  # as sure as the least sure
        if goes_through_detach(expr):
            return None
        if isinstance(expr, (cst.Subscript, cst.Attribute)) and self.facts.placement.integral_field(expr):
            return None  # `tokens["input_ids"]`, `out.max(1)[1]`: integers never require grad
        if self.holders and not isinstance(expr, cst.Name):
            held = self._holder_of(expr, function, grad_enabled, depth)
            if held is not _NOT_A_HOLDER:
                return held
        if type(expr) is cst.Attribute:
            if expr.attr.value in TENSOR_VIEW_ATTRIBUTES and grad_enabled:
                return self._of(expr.value, function, grad_enabled, depth + 1)
            return self._self_parameter(expr, function)
        if not grad_enabled:
            return None  # below here every value is computed, and grad mode is off
        if type(expr) is cst.Subscript:
            return _derived(self._of(expr.value, function, grad_enabled, depth + 1))
        if type(expr) is cst.UnaryOperation and type(expr.operator) is cst.Minus:
            return _derived(self._of(expr.expression, function, grad_enabled, depth + 1))
        if type(expr) is cst.BinaryOperation and isinstance(expr.operator, ARITHMETIC):
            return self._any_of((expr.left, expr.right), function, depth)
        if type(expr) is cst.Call:
            if self.facts.placement.surely_integral(expr, function):
                return None  # `.to(torch.long)`, `argmax`: integer tensors never require grad
            return self._of_call(expr, function, depth)
        return None

    def _top_level_leaf(self, name: cst.Name, function: FunctionFacts) -> Optional[GradOrigin]:
        """A function reading a top-level leaf (`w = torch.randn(3, requires_grad=True)` in a script or
        notebook, `def predict(x): return w * x + b`): every top-level assignment of the name makes
        a leaf that requires grad, or is switched on right after (`w = torch.randn(3)` then
        `w.requires_grad_()`), and no function rebinds it with `global`."""
        module = self.facts.function_facts(self.facts.module)
        if function is module:
            return None
        if self._top_level_leaves is None:
            self._top_level_leaves = {}
            for binding in sorted(module.bindings, key=lambda b: module.order_of(b.statement)):
                self._top_level_leaves.setdefault(binding.name, []).append(binding)
        bindings = self._top_level_leaves.get(name.value, ())
        leaves = [b for b in bindings if b.leaf in LEAF_DESCRIPTIONS and b.leaf_origin is not None]
        if not leaves or name.value in self._declared_global():
            return None
        for binding in bindings:
            if binding in leaves:
                continue
            # `w = torch.zeros(3)`, then `w.requires_grad = True` at the same loop depth.
            if not binding.storages or not any(
                    leaf.kind == "requires_grad" and module.order_of(leaf.statement) > module.order_of(binding.statement)
                    and binding.storages <= leaf.storages and leaf.loops == binding.loops for leaf in leaves):
                return None
        last = leaves[-1]
        return GradOrigin(LEAF_DESCRIPTIONS[last.leaf], last.leaf_origin)

    def _declared_global(self) -> frozenset:
        """Names some function of the module declares `global` (it may rebind them at any time)."""
        if self._globals is None:
            found = set()
            for node in self.facts.function_nodes:
                for inner in walk(node.body):
                    if type(inner) is cst.Global:
                        found.update(item.name.value for item in inner.names)
            self._globals = frozenset(found)
        return self._globals

    def _holder_of(self, expr, function: FunctionFacts, grad_enabled: bool, depth: int):
        """The `carries_graph` reading of what `origin` does not follow: literal containers, a
        field of a network's output, a join of a sequence, a loss function of unknown class.
        _NOT_A_HOLDER for anything else (then `_of` answers as for `origin`)."""
        if type(expr) in (cst.Tuple, cst.List, cst.Set, cst.Dict, cst.ListComp, cst.SetComp, cst.GeneratorExp,
                          cst.DictComp):
            if type(expr) in (cst.Tuple, cst.List, cst.Set):
                elements = [element.value for element in expr.elements]
            elif type(expr) is cst.Dict:
                elements = [element.value for element in expr.elements if type(element) is cst.DictElement]
            else:
                elements = [expr.value if type(expr) is cst.DictComp else expr.elt]
            return self._held([(element, grad_enabled) for element in elements], function, depth)
        if type(expr) is cst.Attribute and not is_self_attribute(expr) \
                and expr.attr.value not in TENSOR_VIEW_ATTRIBUTES | METADATA_ATTRIBUTES | NOT_GRAPH_FIELDS:
            # `model(x).logits`, `out.last_hidden_state`: a field of what a network returned.
            found = self._of(expr.value, function, grad_enabled, depth + 1)
            return _derived(found) if found is not None and found.description not in LEAF_DESCRIPTIONS.values() \
                else None
        if type(expr) is cst.Call and grad_enabled:
            joined = self.facts.containers.of(function).joined(expr)
            if joined is not None:
                found = self._of(joined, function, grad_enabled, depth + 1)
                shown = dotted_name(expr.func) or "torch.cat"
                return replace(found, via=(f"`{shown}(...)`",) + found.via) if found is not None else None
            if loss_function_name(module_key(expr.func)):
                found = self._of_call(expr, function, depth)
                return found if found is not None else self._loss_of(expr, function, depth)
        return _NOT_A_HOLDER

    def _loss_of(self, call: cst.Call, function: FunctionFacts, depth: int) -> Optional[GradOrigin]:
        """`criterion(out, y)` of unknown class: computed from its inputs. A function of this file says
        which of its arguments reach what it returns, and whether that is detached (`.item()`)."""
        arguments = [arg.value for arg in call.args if not arg.star and arg.keyword is None]
        summary = self.facts.callee_summary(call, function)
        if summary is not None:
            if not summary.carries_graph:
                return None
            arguments = [argument for index, argument in enumerate(arguments) if index in summary.returned_arguments]
        return self._any_of(arguments, function, depth)

    def _any_of(self, operands, function: FunctionFacts, depth: int) -> Optional[GradOrigin]:
        """An operand that requires grad makes the result require it (a derived value): the one
        with the strongest grounds (the first seen to, else the first assumed to...)."""
        best = None
        for operand in operands:
            found = self._of(operand, function, True, depth + 1)
            if found is not None and found.grounds == SEEN:
                return _derived(found)
            if found is not None and (best is None or found.grounds > best.grounds):
                best = found
        return _derived(best)

    def _of_call(self, call: cst.Call, function: FunctionFacts, depth: int) -> Optional[GradOrigin]:
        qualified = self.facts.names.qualified_name(call.func)
        arguments = [arg.value for arg in call.args if not arg.star]
        if qualified is not None:
            module, _, name = qualified.rpartition(".")
            if qualified in PARAMETER_CLASSES:
                return GradOrigin(LEAF_DESCRIPTIONS["parameter"], call) if parameter_requires_grad(call) else None
            if (module == "torch" and name in LEAF_FACTORIES) or qualified in VARIABLE_CLASSES:
                return GradOrigin(LEAF_DESCRIPTIONS["factory"], call) if _keyword_is_true(call, "requires_grad") else None
            if (module == "torch" and name in DIFFERENTIABLE_TORCH_FUNCTIONS) or \
                    (module == "torch.nn.functional" and name in DIFFERENTIABLE_FUNCTIONAL):
                return self._any_of(arguments, function, depth)
            return None
        func = call.func
        if type(func) is cst.Attribute and self.facts.bound_by_import(func.value, function):
            return None  # `np.mean(x)`, `math.sqrt(v)`, `metrics.f1_score(...)`: not torch, not a tensor method
        if type(func) is cst.Attribute and not _is_self_attribute_call(call) and func.attr.value != "forward":
            # (`self.critic.forward(x)` calls the module, as `self.critic(x)` does, hooks aside)
            method = func.attr.value
            if method == "requires_grad_" and not (call.args and _is_false(call.args[0].value)):
                return GradOrigin(LEAF_DESCRIPTIONS["requires_grad_"], call)
            if method not in DIFFERENTIABLE_METHODS:
                return None
            return self._any_of((func.value, *arguments), function, depth)
        return self._module_output(call, function, arguments, depth)


    def _module_output(self, call: cst.Call, function: FunctionFacts, arguments, depth: int) -> Optional[GradOrigin]:
        """`self.net(x)`, `model(x)`: requires grad when the module surely has trainable parameters;
        a parameterless torch.nn module (a loss, an activation) passes its inputs' grad on; a
        network of unknown class is assumed to have trainable parameters (ASSUMED grounds)."""
        key = module_key(call.func)
        if key is None:
            return None
        if key in self._frozen_modules():
            # Frozen parameters, but the graph of what it is given runs through it (a perceptual
            # loss's VGG on the generator's output).
            return self._any_of(arguments, function, depth)
        if self.facts.training.trains_module(key, function):
            return GradOrigin(f"the output of `{key}`, a module an optimizer in this file trains", call)
        values = self._module_values(call.func, function)
        if values and all(self._has_parameters(value, frozenset()) for value in values):
            return GradOrigin(f"the output of `{key}`, a module with trainable parameters", call)
        if values and all(self._is_torch_module(value) for value in values):
            return self._any_of(arguments, function, depth)
        if self._unknown_network(call.func, function) is not None or self.facts.calls_a_module(call, function):
            given = self._any_of(arguments, function, depth)
            if given is not None and given.grounds == SEEN:
                return given  # what it is given requires grad: so does its output, whatever its parameters
        why = self._unknown_network(call.func, function)
        if why is not None:
            return GradOrigin(f"the output of `{key}`", call, grounds=ASSUMED,
                              assumption=f"if `{key}` has parameters that require grad, as {why}")
        if self.facts.calls_a_module(call, function):
            return GradOrigin(f"the output of `{key}`", call, grounds=POSSIBLE,
                              assumption=f"if `{key}` has parameters that require grad")
        if self.holders and key not in NO_TENSOR_BUILTINS and not loss_function_name(key):  # (`_holder_of`'s)
            # `carries_graph` only, and only POSSIBLE: a callee the file does not show (a head taken
            # from a ModuleList in a loop, a function of unknown kind) may pass the graph of what it
            # is given on; a function of this file says which arguments reach what it returns.
            func = call.func
            local = is_self_attribute(func) or (isinstance(func, cst.Name) and (
                func.value in self.facts.module_functions or bool(function.bindings_at(func))))
            # Only a callee that may be a function of the file has a summary to read (and to build).
            found = self._loss_of(call, function, depth) if local else self._any_of(
                [arg.value for arg in call.args if not arg.star and arg.keyword is None], function, depth)
            if found is not None:
                return replace(found, grounds=POSSIBLE,
                               assumption=f"if `{key}` passes on the graph of what it is given")
        return None

    def _module_values(self, func, function: FunctionFacts) -> list:
        """What the callee was built from: `self.net = ...` in the class, or the name's reaching values."""
        if type(func) is cst.Name:
            _, bindings = self.facts.reaching(func, function)  # `model(x)` with `model` built at the top
            return [b.value for b in bindings] if bindings and all(b.value is not None for b in bindings) else []
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self" \
                and function.class_name in self.facts.classes:
            return list(self.facts.classes[function.class_name].attribute_values.get(func.attr.value, []))
        return []

    def _backward_receivers(self, function: FunctionFacts) -> frozenset:
        """The names the function calls `.backward(...)` on (`loss`, or a hand-written `model`)."""
        found = self._backward_receivers_of.get(function.node)
        if found is None:
            found = self._backward_receivers_of[function.node] = frozenset(
                call.func.value.value for call in function.call_statement
                if type(call.func) is cst.Attribute and call.func.attr.value == "backward"
                and type(call.func.value) is cst.Name)
        return found

    def _unknown_network(self, func, function: FunctionFacts, depth: int = 0) -> Optional[str]:
        """How a callee is known to be a network of a class the file does not show, in words for
        the message ("a loaded network does"), or None: loaded (`torch.load`, `torch.hub.load`,
        `torch.jit.load`), built by a factory (`models.resnet18()`, `create_model(...)`,
        `AutoModel.from_pretrained(...)`), or passed in as an argument named as a network
        (`model`, `net`, `netG`, `encoder`), also through `.to(device)`, `.eval()` and
        `nn.DataParallel(...)`."""
        if depth > 4:
            return None
        if type(func) is cst.Name and func.value in self._backward_receivers(function):
            # A torch module has no `backward` method: one that does is a course's hand-written layer
            # stack (`model.backward(criterion.backward())`), whose outputs autograd never tracks.
            return None
        if type(func) is cst.Name:
            bindings = function.bindings_at(func)
            if not bindings:
                # A top-level `model = torch.load(...)` read by a function (scripts, notebooks).
                module = self.facts.function_facts(self.facts.module)
                if function is module:
                    return None
                bindings = [binding for binding in module.bindings if binding.name == func.value]
                if not bindings or any(binding.kind not in ("assign", "walrus") for binding in bindings):
                    return None
                function = module
            answers = set()
            for binding in bindings:
                if binding.kind == "param" and (_network_name(binding.name)
                                                or binding.name in self.used_as_modules(function)):
                    answers.add(f"a network passed in as `{binding.name}` does")
                elif binding.kind in ("assign", "walrus") and binding.value is not None:
                    answers.add(self._network_made_by(binding.value, binding.name, function, depth))
                else:
                    return None
            return answers.pop() if len(answers) == 1 and None not in answers else (
                None if None in answers else "a network does")
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self":
            owner = self.facts.classes.get(function.class_name or "")
            values = self.facts.attribute_values(owner, func.attr.value) if owner is not None else []
            if not values:
                return None
            answers = set()
            for value in values:
                method = owner.assigned_in.get(value)
                where = self.facts.function_facts(method) if method is not None else None
                answers.add(self._network_made_by(value, func.attr.value, where, depth) if where else None)
            return answers.pop() if len(answers) == 1 and None not in answers else (
                None if None in answers else "a network does")
        return None

    def used_as_modules(self, function: FunctionFacts) -> frozenset:
        """Names the function calls a module-only method on (`clf.eval()`, `f.parameters()`)."""
        found = self._modules_by_use.get(function.node)
        if found is None:
            found = self._modules_by_use[function.node] = modules_by_use(function)
        return found

    def _network_made_by(self, value, name: str, function: FunctionFacts, depth: int) -> Optional[str]:
        if type(value) is cst.Name:
            return self._unknown_network(value, function, depth + 1) if _network_name(name) or \
                _network_name(value.value) else None
        if type(value) is not cst.Call:
            return None
        qualified = self.facts.names.qualified_name(value.func)
        if qualified in LOADERS:
            return "a loaded network does"
        if qualified in WRAPPERS and value.args:
            return self._network_made_by(value.args[0].value, name, function, depth + 1)
        if qualified is not None:
            return None  # torch's own classes and functions are known (or not networks)
        func = value.func
        if type(func) is cst.Attribute and func.attr.value in MODULE_RETURNING_METHODS:
            if func.attr.value == "requires_grad_" and value.args and _is_false(value.args[0].value):
                return None  # switched off: frozen
            made = self._network_made_by(func.value, name, function, depth + 1)
            built = func.value
            callee = dotted_name(built.func) if type(built) is cst.Call else None
            if made is None and callee and "." in callee and callee.rpartition(".")[2][:1].isupper() \
                    and self.facts.names.qualified_name(built.func) is None and not NOT_NETWORK_CLASS.search(callee):
                # `vgg.VGG16().to(device)`: an instance of a project's class, moved to a device as
                # networks are (a tensor is not built by a class of the project).
                return f"a network built by `{callee}(...)` and moved with `.{func.attr.value}()` does"
            return made
        callee = dotted_name(func)
        if callee is None or callee in self.facts.classes or callee in self.facts.module_functions:
            return None  # a class or factory of this file: what it builds is in sight
        if callee.split(".")[0] in self.facts.foreign_names:
            return None  # `tf.keras.models.load_model(w)`: another framework's model
        if NOT_NETWORK_CLASS.search(callee):
            return None  # `AutoTokenizer.from_pretrained(...)`, `CLIPProcessor(...)`: text and images in, ids out
        owner, _, last = callee.rpartition(".")
        if last == "from_pretrained":
            # Hub classes load tokenizers, configs and schedulers as well as networks: only a class
            # that reads as a model (`AutoModelForCausalLM`, `BertModel`, `T5ForConditionalGeneration`),
            # or one bound to a name that does (`model = Tower.from_pretrained(...)`).
            cls = owner.rpartition(".")[2]
            return f"a network built by `{callee}(...)` does" if PRETRAINED_MODEL_CLASS.search(cls) \
                or _network_name(cls) or _network_name(name) else None
        if _network_name(last) or ("model" in callee.lower() and "." in callee) \
                or last == "create_model" or _network_name(name):
            return f"a network built by `{callee}(...)` does"
        return None

    def _has_parameters(self, value, seen: frozenset) -> bool:
        """Is `value` the construction of a module that holds trainable parameters?"""
        if type(value) is not cst.Call:
            return False
        qualified = self.facts.names.qualified_name(value.func)
        if qualified is not None:
            module, _, name = qualified.rpartition(".")
            if module != "torch.nn":
                return False
            if name in ("Sequential", "ModuleList", "ModuleDict"):
                # `nn.Sequential(nn.Linear(...), ...)`, `nn.ModuleList([nn.Linear(d, d) for _ in range(n)])`
                return any(self._has_parameters(element, seen) for arg in value.args if not arg.star
                           for element in _layers_in(arg.value))
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
                if type(attribute_value) is cst.Call and \
                        self.facts.names.qualified_name(attribute_value.func) in PARAMETER_CLASSES:
                    if parameter_requires_grad(attribute_value):
                        return True
                elif self._has_parameters(attribute_value, seen):
                    return True
        return False

    def _is_torch_module(self, value) -> bool:
        # `nn.MSELoss().to(device)`: moving a module returns it.
        while type(value) is cst.Call and type(value.func) is cst.Attribute \
                and value.func.attr.value in ("to", "cuda", "cpu", "eval", "train") \
                and self.facts.names.qualified_name(value.func) is None:
            value = value.func.value
        if type(value) is not cst.Call:
            return False
        qualified = self.facts.names.qualified_name(value.func) or ""
        module, _, name = qualified.rpartition(".")
        return module == "torch.nn" and name[:1].isupper() and name not in ("ModuleList", "ModuleDict")

    def _self_parameter(self, expr: cst.Attribute, function: FunctionFacts) -> Optional[GradOrigin]:
        """`self.weight` assigned only `nn.Parameter(...)` in the class."""
        if not (type(expr.value) is cst.Name and expr.value.value == "self") \
                or function.class_name not in self.facts.classes:
            return None
        values = self.facts.classes[function.class_name].attribute_values.get(expr.attr.value, [])
        if values and all(type(value) is cst.Call
                          and self.facts.names.qualified_name(value.func) in PARAMETER_CLASSES
                          and parameter_requires_grad(value) for value in values):
            return GradOrigin(LEAF_DESCRIPTIONS["parameter"], values[0])
        return None

    # ----------------------------------------------------------- module-wide

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

    # ------------------------------------------------------- never requires grad

    def _never(self, expr, function: FunctionFacts, statement, depth: int, likely: bool = False) -> bool:
        if expr is None:
            return False
        if depth > 8:
            self._without_grad.cut()
            return False
        if type(expr) in (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                          cst.FormattedString):
            return True
        if type(expr) is cst.Name and expr.value in ("None", "True", "False"):
            return True  # `self.state = None` until `reset()` sets the tensor: that one decides
        if goes_through_detach(expr):
            return True
        if type(expr) is cst.Attribute and expr.attr.value in METADATA_ATTRIBUTES | {"grad"}:
            return True  # `.grad` is a leaf that does not require grad; the others are not tensors
        if self.facts.placement.surely_integral(expr, function):
            return True  # only floating-point and complex tensors can require grad
        if self._state_dict_entry(expr, function, statement, depth):
            return True
        if type(expr) is cst.Name:
            bindings = function.bindings_at(expr)
            if not bindings:
                owner, top_level = self.facts.reaching(expr, function)
                if likely and top_level and owner is not function and expr.value not in self._declared_global():
                    # A global the function reads (`Normalization(cnn_normalization_mean, ...)` after
                    # `cnn_normalization_mean = torch.tensor([0.485, ...])` at the top level).
                    return all(self._binding_never(binding, owner, likely) for binding in top_level)
                return self._comprehension_entry(expr, statement, function, depth, likely)
            if statement is not None and self._detached_in_place_before(expr, bindings, function, statement):
                return True
            branch = self._tested_names(function).get(statement, {}).get(expr.value) if statement is not None \
                else None
            if branch is not None and not any(_within(binding.statement, branch) for binding in bindings):
                return True  # the value the test looked at, not one the branch made
            if self._tested_in_expression(expr, function):
                return True
            return all(self._binding_never(binding, function, likely) for binding in bindings)
        if type(expr) in (cst.Tuple, cst.List):
            return all(self._never(element.value, function, statement, depth + 1, likely)
                       for element in expr.elements)
        if type(expr) is cst.BinaryOperation:
            return self._operand_never(expr.left, function, statement, depth, likely) and \
                self._operand_never(expr.right, function, statement, depth, likely)
        if type(expr) is cst.UnaryOperation:
            return self._operand_never(expr.expression, function, statement, depth, likely)
        if type(expr) is cst.IfExp:  # `"cuda" if torch.cuda.is_available() else "cpu"`
            return self._operand_never(expr.body, function, statement, depth, likely) and \
                self._operand_never(expr.orelse, function, statement, depth, likely)
        if type(expr) is cst.Subscript:
            return self._never(expr.value, function, statement, depth + 1, likely)
        if type(expr) is cst.Attribute and expr.attr.value in TENSOR_VIEW_ATTRIBUTES:
            return self._never(expr.value, function, statement, depth + 1, likely)  # `w.T`: a view of `w`
        if type(expr) is cst.Call:
            return self._call_never(expr, function, statement, depth, likely)
        if type(expr) is cst.Attribute and likely and expr.attr.value in DATASET_LABELS \
                and not (type(expr.value) is cst.Name and expr.value.value == "self"):
            return True  # `dataset.targets`: the labels a dataset holds
        if type(expr) is cst.Attribute and likely and self._preprocessed(expr.value, function):
            return True  # `inputs.pixel_values` of `inputs = processor(images=img, return_tensors="pt")`
        if type(expr) is cst.Attribute and likely:
            return self._setting(expr, function, depth)
        return False

    def _detached_in_place_before(self, name: cst.Name, bindings, function: FunctionFacts, statement) -> bool:
        """`x_adv.detach_()`, after every binding of `x_adv` that reaches `statement` and on every path to
        it: the tensor itself no longer requires grad."""
        if function.node not in self._detached_in_place:
            self._detached_in_place[function.node] = detached_in_place(function)
        for detached, order, detaching in self._detached_in_place[function.node]:
            if detached == name.value and all(function.order_of(binding.statement) <= order for binding in bindings) \
                    and runs_before(function, detaching, statement):
                return True
        return False

    def _setting(self, expr: cst.Attribute, function: FunctionFacts, depth: int) -> bool:
        """Very likely not a tensor that requires grad: a setting (`self.config.hidden_size`,
        `args.scale`), or a `self.` attribute every assignment of which in the class is one (or
        is computed from settings and numbers: `self.head_dim = self.hidden_size // self.heads`)."""
        parts = (dotted_name(expr) or "").split(".")
        if any(part.lower() in SETTINGS_WORDS for part in parts[:-1]):
            return True
        if len(parts) != 2 or parts[0] != "self":
            return False
        owner = self.facts.classes.get(function.class_name or "")
        if owner is not None and self._buffer_never(owner, expr.attr.value, depth):
            return True
        values = self.facts.attribute_values(owner, expr.attr.value) if owner is not None else []
        if not values or expr.attr.value in self._switched_on(owner):
            return False
        for value in values:
            if _empty_container(value):
                # `self.saved = list()`, then `self.saved.append(w.clone().detach())`: what is put in decides.
                if not self._inserted_without_grad(owner, expr.attr.value, depth):
                    return False
                continue
            method = next((c.assigned_in[value] for c in [owner, *self.facts.classes.values()]
                           if value in c.assigned_in), None)
            if method is None or not self._assigned_without_grad(value, self.facts.function_facts(method), depth):
                return False
        return True

    def _inserted_without_grad(self, owner, attribute: str, depth: int) -> bool:
        """Does the class put into its container `self.<attribute>` (`.append(v)`, `.insert(i, v)`, `[k] = v`)
        nothing known to require grad? A value of unknown history (a replay buffer's `state` argument) is
        taken as the data a container of a class mostly keeps, and so is what `.extend(xs)` adds; a
        parameter or a network's output is not (`self.saved.append(self.fc.weight)`). Walked once per
        container: every read of an item asks."""
        key = (owner.name, attribute)
        if key not in self._inserted_without:
            self._inserted_without[key] = True  # an item put back in (`self.saved.append(self.saved[0])`)
            self._inserted_without[key] = self._walk_insertions(owner, attribute, depth)
        return self._inserted_without[key]

    def _walk_insertions(self, owner, attribute: str, depth: int) -> bool:
        for method in (node for node in owner.node.body.body if type(node) is cst.FunctionDef):
            facts = self.facts.function_facts(method)
            for node in walk(method):
                inserted = None
                if type(node) is cst.Call and type(node.func) is cst.Attribute and _is_self_named(node.func.value,
                                                                                               attribute):
                    verb = node.func.attr.value
                    if verb in ("append", "insert", "add") and node.args:
                        inserted = node.args[-1].value
                elif type(node) is cst.Assign and any(type(target.target) is cst.Subscript
                                                      and _is_self_named(target.target.value, attribute)
                                                      for target in node.targets):
                    inserted = node.value
                if inserted is None:
                    continue
                statement = facts.call_statement.get(node) if type(node) is cst.Call else node
                if not self._never(inserted, facts, statement, depth + 1, True) \
                        and self.origin(inserted, facts, statement, ASSUMED) is not None:
                    return False
        return True

    def _assigned_without_grad(self, value: cst.BaseExpression, method: FunctionFacts, depth: int) -> bool:
        """Is what `self.x = value` assigns in `method` free of autograd history: computed under no-grad
        (`self.rho = self.rho + step` in an update under `torch.no_grad()`), or free of it by what it is?"""
        statement = next((node for node in method.statement_order if type(node) in (cst.Assign, cst.AnnAssign)
                          and node.value is value), None)
        if statement is not None and not self.facts.grad_enabled_at(method, statement):
            return True
        return self._never(value, method, None, depth + 1, True)

    def _switched_on(self, owner) -> frozenset:
        """The `self.` attributes the class makes require grad itself (computed once per class)."""
        if owner.name not in self._switched_on_by:
            self._switched_on_by[owner.name] = _attributes_switched_on(owner.node)
        return self._switched_on_by[owner.name]

    def _buffer_never(self, owner, attribute: str, depth: int) -> bool:
        """`self.memory`, a buffer of the class (`self.register_buffer("memory", torch.rand(n, d))`)
        registered with a value free of autograd history, and written in the class only with such
        values or under no-grad (`self.memory.index_copy_(0, y, updated)` in a `no_grad` block,
        `self.params[2] = 1`): a buffer is no parameter, and only what is written into it can make
        it require grad (`self.params[2] = out.mean()` in grad mode does)."""
        key = (owner.name, attribute)
        if key not in self._buffers_without_grad:
            # A write that reads the buffer itself (`self.queue = F.normalize(self.queue, dim=0)`) adds
            # no grad of its own: assumed free of it while its writes are read, as a fixpoint is.
            self._buffers_without_grad[key] = True
            self._buffers_without_grad[key] = self._buffer_registered_without_grad(owner, attribute, depth) \
                and self._buffer_written_without_grad(owner, attribute, depth)
        return self._buffers_without_grad[key]

    def _buffer_registrations(self, owner, attribute: str):
        """(the site, the registered value or None) of each `self.register_buffer("attribute", value)` of the class."""
        for call in self.facts.method_calls("register_buffer"):
            site = self.facts.call_site(call)
            receiver = call.func.value if type(call.func) is cst.Attribute else None
            if site is None or site[0].class_name != owner.name or not (type(receiver) is cst.Name and receiver.value == "self"):
                continue
            arguments = [arg for arg in call.args if arg.keyword is None]
            if not arguments or type(arguments[0].value) is not cst.SimpleString \
                    or arguments[0].value.evaluated_value != attribute:
                continue
            yield site, arguments[1].value if len(arguments) > 1 else None

    def _buffer_registered_without_grad(self, owner, attribute: str, depth: int) -> bool:
        """Is every registration of the buffer with a value free of autograd history? One made by torch's
        functions of the registering method's own arguments counts (`register_buffer("ref",
        torch.cat(example_inputs, dim=1))`, fresh118): a buffer is state a network does not train, and
        what a constructor is handed to register is data, a mask or a statistic."""
        registered = False
        for site, value in self._buffer_registrations(owner, attribute):
            if value is None or not (type(value) is cst.Name and value.value == "None"
                                     or self._never(_made_by(value), site[0], site[1], depth + 1, True)
                                     or self._made_of_arguments(value, site[0])):
                return False
            registered = True
        return registered

    def _made_of_arguments(self, value: cst.BaseExpression, function: FunctionFacts,
                           seen: frozenset = frozenset()) -> bool:
        """`example_inputs`, `torch.cat(example_inputs, dim=1)`: an argument of the function, or torch's
        functions of its arguments and literals (also through its locals); no call of the project's
        (`make_shift(n)`) or of a layer."""
        if type(value) is cst.Name:
            # An argument, or a local made of them (`reference = torch.cat(example_inputs, dim=1)`).
            bindings = function.bindings_at(value)
            return bool(bindings) and all(
                binding.kind == "param" and binding.name not in ("self", "cls")
                or binding.kind == "assign" and binding.value is not None and binding not in seen
                and self._made_of_arguments(binding.value, function, seen | {binding}) for binding in bindings)
        if type(value) in (cst.Integer, cst.Float):
            return True
        if type(value) in (cst.List, cst.Tuple):
            return all(self._made_of_arguments(element.value, function, seen) for element in value.elements)
        if type(value) is not cst.Call or not (self.facts.names.qualified_name(value.func) or "").startswith("torch."):
            return False
        return all(self._made_of_arguments(argument.value, function, seen) for argument in value.args)

    def _buffer_written_without_grad(self, owner, attribute: str, depth: int) -> bool:
        for value in owner.attribute_values.get(attribute, []):
            method = owner.assigned_in.get(value)
            if method is None or not self._assigned_without_grad(value, self.facts.function_facts(method), depth):
                return False
        spelled = f"self.{attribute}"
        for function in self.facts.all_functions():
            if function.class_name != owner.name:
                continue
            for event in function.inplace_events.values():
                if not any(storage.description == spelled for storage in event.storages):
                    continue
                if event.without_grad or not self.facts.grad_enabled_at(function, event.statement):
                    continue
                if event.kind == "method" and type(event.node) is cst.Call:
                    written = [arg.value for arg in event.node.args]
                elif event.kind in ("setitem", "augassign") and type(event.statement) in (cst.Assign, cst.AugAssign):
                    written = [event.statement.value]
                else:
                    return False  # a write whose value is not in sight (an unknown callee's, `out=`)
                if not all(self._never(value, function, event.statement, depth + 1, True) for value in written):
                    return False
        return True

    def _binding_never(self, binding: Binding, function: FunctionFacts, likely: bool = False) -> bool:
        # Each binding's question has a depth budget of its own, whatever question reached it: shared
        # along the chain, a name reached by a longer path ran out of it, and the answer depended on
        # which path a set's order took first. A binding that reaches itself (`x = x * 2` in a loop, on
        # the previous iteration's value) brings no grad in by that path: the question open on the
        # way is answered yes for now, and the other paths (`x = x * w`, a leaf before the loop) decide.
        return self._without_grad.answer((binding, likely),
                                         lambda: self._binding_never_worked_out(binding, function, likely), True)

    def _binding_never_worked_out(self, binding: Binding, function: FunctionFacts, likely: bool) -> bool:
        depth = 0
        if binding.leaf:
            return False  # a leaf that requires grad, or a view of one
        if self._said_by_uses(binding, function, likely):
            return True
        if binding.kind == "loop":
            loop = binding.statement if type(binding.statement) is cst.For else None
            if loop is None:
                return False
            # `for g in torch.autograd.grad(loss, ws)`, `for row in x.detach()`, `for x, h in
            # zip(xs, hs)` with detached items put in `xs`: the items of a value that carries no
            # graph carry none either.
            iterable, position = _through_zip(loop.iter, _position_in(loop.target, binding.target))
            return self._iterated_entry(iterable, position, function, loop, depth) \
                or (position == 0 and iterable is not loop.iter
                    and self._items_never(iterable, function, loop, depth, likely)) \
                or self._items_never(loop.iter, function, loop, depth, likely)
        if binding.kind == "param":
            return likely and (_declared_a_number(binding.statement)
                               or self._every_caller_passes_none(binding, function, depth)
                               or self._input_differentiated_against(binding, function))
        if binding.kind == "unpack" and binding.value is not None:
            # `g, = torch.autograd.grad(loss, w)`, `a, b = x.detach().chunk(2)`: parts of such a value;
            # `x, z = x.cuda(), z.cuda()`: this name's part; `s, a = self.make_batch()`: the part each
            # `return` of the file's function puts there.
            part = unpacked_part(binding) or _converted_element(binding)
            return self._never(part, function, binding.statement, depth + 1, likely) if part is not None else (
                self._never(binding.value, function, binding.statement, depth + 1, likely)
                or self._returned_parts_never(binding, function, depth, likely)
                # `logits_teacher, _ = self.teacher(image)` under no-grad: parts of a result made without a graph
                or self._made_without_grad(binding, function, likely))
        if binding.kind == "augassign" and type(binding.statement) is cst.AugAssign \
                and type(binding.statement.target) is cst.Name:
            # `img -= mean`: free of history when what it held and what is taken from it both are.
            statement = binding.statement
            return self._never(statement.value, function, statement, depth + 1, likely) \
                and self._never(statement.target, function, statement, depth + 1, likely)
        if binding.value is None or binding.kind not in ("assign", "walrus"):
            return False
        insertions = self.facts.containers.of(function).insertions(binding)
        if insertions:
            # `values = []`, then `values.append(critic(s))`: what is put in it decides, as it does for
            # `torch.stack(values)` made from it.
            return all(self._never(value, function, statement, depth + 1, likely) for value, statement in insertions) \
                or self._made_without_grad(binding, function, likely)
        return self._never(binding.value, function, binding.statement, depth + 1, likely) \
            or self._made_without_grad(binding, function, likely)

    def _returns_never(self, call: cst.Call, function: FunctionFacts, depth: int, likely: bool) -> bool:
        """A call of a function (or a method) of the file every `return` of which gives a value free of
        autograd history, as it is written (its arguments aside: a value computed from them is not)."""
        if depth > MAX_DEPTH:
            self._without_grad.cut()
            return False
        # The module's own `def`, or a method of the function's class through `self.`: read without the
        # summaries (which only a file with training steps computes).
        func = call.func
        definition = None
        if type(func) is cst.Name:
            definition = self.facts.module_function_called(func, function)
        elif type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self" \
                and function.class_name in self.facts.classes:
            definition = self.facts.method_of(self.facts.classes[function.class_name], func.attr.value)
        elif type(func) is cst.Attribute:
            # A method of an object of a class of the file (`self.memory.sample()` where the class
            # builds `self.memory = ReplayBuffer(n)`).
            owner = self.facts.built_class(func.value, function)
            definition = self.facts.method_of(owner, func.attr.value) if owner is not None else None
        if type(definition) is not cst.FunctionDef:
            return False
        callee = self.facts.function_facts(definition)
        returns = [statement for statement in callee.statement_order
                   if type(statement) is cst.Return and statement.value is not None]
        return bool(returns) and all(self._never(statement.value, callee, statement, depth + 1, likely)
                                     for statement in returns)

    def _returned_parts_never(self, binding: Binding, function: FunctionFacts, depth: int, likely: bool) -> bool:
        """`s, a = self.make_batch()`: every `return` of the function of the file writes out a tuple
        whose element at this name's position carries no autograd history."""
        position = position_in_target(binding)
        value = binding.value
        if depth > MAX_DEPTH:
            self._without_grad.cut()
            return False
        if position is None or type(value) is not cst.Call:
            return False
        resolved = self.facts.summaries.resolve_callee(value.func, function)
        if resolved is None or type(resolved[0]) is not cst.FunctionDef:
            return False
        callee = self.facts.function_facts(resolved[0])
        returns = [statement for statement in callee.statement_order if type(statement) is cst.Return]
        for statement in returns:
            returned = statement.value
            if type(returned) not in (cst.Tuple, cst.List) or position >= len(returned.elements) \
                    or any(type(element) is cst.StarredElement for element in returned.elements) \
                    or not self._never(returned.elements[position].value, callee, statement, depth + 1, likely):
                return False
        return bool(returns)

    def _items_never(self, iterable, function: FunctionFacts, statement, depth: int, likely: bool) -> bool:
        """Are the items of `iterable` free of autograd history? When the iterable is (a tuple of
        gradients, a detached tensor); not for a list made in the code (`[]`, then `.append(w)`)."""
        if type(iterable) in (cst.List, cst.Tuple, cst.Set, cst.Dict) + COMPREHENSIONS:
            return False
        bindings = function.bindings_at(iterable) if isinstance(iterable, cst.Name) else ()
        if likely and bindings and all(self._items_of_binding_never(binding, function, depth) for binding in bindings):
            return True
        if any(binding.value is None or isinstance(binding.value, (cst.List, cst.Tuple, cst.Set, cst.Dict))
               for binding in bindings):
            return False
        return self._never(iterable, function, statement, depth + 1, likely)

    def _items_of_binding_never(self, binding: Binding, function: FunctionFacts, depth: int) -> bool:
        """Very likely: the items of an argument every caller in the file passes items free of
        autograd history for (`for feats in batch` with `self.store_all(feats)` made under
        no-grad), or of a container made here whose every element, where it is put in, is free of
        it (`parts = [p for p in out.detach()]`, `[a, b]`, `.append(x.detach())`)."""
        if binding.kind == "param":
            return self._every_caller_passes_none(binding, function, depth, items=True)
        if binding.kind not in ("assign", "walrus") or binding.value is None:
            return False
        value = binding.value
        if isinstance(value, cst.Call) and not all(
                arg.keyword is None and not arg.star
                and self._items_never(arg.value, function, binding.statement, depth + 1, True) for arg in value.args):
            return False  # `list(params)`, `deque(xs)`: what they are made from is in them
        insertions = self.facts.containers.of(function).insertions(binding)
        return insertions is not None and all(
            self._never(element, function, statement, depth + 1, True) for element, statement in insertions)

    def _said_by_uses(self, binding: Binding, function: FunctionFacts, likely: bool) -> bool:
        """Class labels by their uses (an index, a loss target, also inside a same-file callee), a
        parameter named as labels that is never computed with, and the batches of data loaders."""
        use = self.facts.placement.integral_use(binding, function)
        if use == "sure":
            return True
        if not likely or self._binding(binding, function) is not None:
            return False  # `soft = teacher(x).softmax(1)` used as a cross-entropy target: it says so
        return use == "likely" or self.facts.loaders.batch_of(binding, function) is not None \
            or self.facts.placement.named_as_labels(binding, function)

    def _made_without_grad(self, binding: Binding, function: FunctionFacts, likely: bool) -> bool:
        """`feats = model(x)` or `z = x * 2` under no-grad: a new tensor, made without a graph. Views
        (`x[0]`, `x.view(-1)`) keep the flag of what they view, and `.to(device)`, `.float()` may
        return their receiver itself; a network or an unknown function may return a tensor it keeps
        (an `nn.Identity`, a cache): likely only."""
        if self.facts.grad_enabled_at(function, binding.statement) \
                or binding.statement in self._mode_decided_at_run_time(function):
            return False
        value = binding.value
        if type(value) is cst.BinaryOperation and isinstance(value.operator, ARITHMETIC):
            return True
        if type(value) is cst.UnaryOperation and type(value.operator) is cst.Minus:
            return True
        if type(value) is not cst.Call:
            return False
        qualified = self.facts.names.qualified_name(value.func)
        if qualified is not None:
            module, _, name = qualified.rpartition(".")
            if module == "torch":
                return name in DIFFERENTIABLE_TORCH_FUNCTIONS and name not in KEEPS_FLAG_WITHOUT_GRAD
            if module == "torch.nn.functional":
                return name in DIFFERENTIABLE_FUNCTIONAL and name not in FUNCTIONAL_MAY_RETURN_INPUT
            return False  # `torch.load` restores the flags it saved; classes are not tensors
        func = value.func
        if type(func) is cst.Attribute and not _is_self_attribute_call(value):
            method = func.attr.value
            if method in KEEPS_FLAG_WITHOUT_GRAD or method.endswith("_"):
                return False
            if method in DIFFERENTIABLE_METHODS:
                return True
        return likely  # a network's output, an unknown function's result

    def _every_caller_passes_none(self, binding: Binding, function: FunctionFacts, depth: int,
                                  items: bool = False) -> bool:
        """Every call of the function in the file passes, for this argument, a value that (very
        likely) does not require grad: a detached tensor, a batch of a loader, class labels
        (`items`: a sequence whose items do not)."""
        sites = self.facts.call_sites_of(function)
        param = binding.statement
        if not sites or type(param) is not cst.Param or type(function.node) is not cst.FunctionDef:
            return False
        params = function.node.params
        if param is params.star_arg or param is params.star_kwarg:
            return False
        for caller, call, statement in sites:
            passed = passed_for_parameter(call, function.node, param)
            if passed is PASSED_UNKNOWN:
                return False
            if passed is None:
                default = param.default
                if default is None or not (type(default) is cst.Name and default.value == "None"
                                           or self._never(default, function, None, depth + 1, True)):
                    return False
                continue
            if type(passed) is cst.Name and passed.value == "None":
                continue  # `_run_fixture(x, w, None)`: no tensor at all (the function tests `b is not None`)
            if items and not self._items_never(passed, caller, statement, depth + 1, True):
                return False
            if not items and not self._never(passed, caller, statement, depth + 1, True):
                return False
        return True

    def _input_differentiated_against(self, param: Binding, function: FunctionFacts) -> bool:
        """Very likely data: an argument the function, whose callers are out of sight, makes a leaf
        from and differentiates against: an attack's or a saliency map's input (`x = images.clone()
        .detach()`, `x.requires_grad = True`, then `loss.backward()` or `torch.autograd.grad(loss,
        x)`). The function wants the gradient with respect to its input, which its callers hand
        over as a batch of data; a caller in the file that shows what it passes decides instead
        (`_every_caller_passes_none`)."""
        if not self._out_of_sight(param, function):
            return False
        if not backward_calls(function, self.facts) and not any(
                takes_gradients(call, self.facts.names) for call in function.call_statement):
            return False
        return any(binding.leaf in ("requires_grad_", "factory")
                   and self._computed_from(binding, param, function, 0) for binding in function.bindings)

    def _out_of_sight(self, param: Binding, function: FunctionFacts, handovers: int = 0) -> bool:
        """Does no call in the file show a graph in the argument? No call of the function, or each call
        passes on an argument of its caller (or an item of one) that is out of sight in the same way
        (the wrappers of an attack: `__call__(self, images)` returning `self.attack(images)`,
        `make_adv(model, images)` calling `fgsm(model, images)`), or passes data (`_passes_data`: an
        evaluation loop's `pgd_attack(model, images, labels)` over its loader's batches)."""
        sites = self.facts.call_sites_of(function)
        if not sites:
            return True
        if handovers >= MAX_HANDOVERS or type(param.statement) is not cst.Param \
                or type(function.node) is not cst.FunctionDef:
            return False
        for caller, call, statement in sites:
            if param.statement is function.node.params.star_arg:
                # The wrapper's own `*args`: each value its callers pass beyond the named parameters.
                if not all(self._passes_data(value, caller, statement) or self._passed_on_out_of_sight(
                        value, caller, handovers) for value in _passed_for_star(call, function.node)):
                    return False
                continue
            passed = passed_for_parameter(call, function.node, param.statement)
            if passed is PASSED_UNKNOWN:
                # A wrapper that hands on its own `*args` (`def pgd_linf(*args): return pgd(*args,
                # mode="linf")`): what it was given, out of sight where the wrapper's callers are.
                if not self._all_out_of_sight(self._star_parameters_passed_on(call, caller), caller, handovers):
                    return False
                continue
            if passed is None:
                return False
            if not self._passes_data(passed, caller, statement) and \
                    not self._passed_on_out_of_sight(passed, caller, handovers):
                return False
        return True

    def _passed_on_out_of_sight(self, passed, caller: FunctionFacts, handovers: int) -> bool:
        """Does `passed` hand on the caller's own parameters (or items of them), each out of sight?"""
        return self._all_out_of_sight(self._parameters_passed_on(passed, caller), caller, handovers)

    def _all_out_of_sight(self, params: list[Binding], caller: FunctionFacts, handovers: int) -> bool:
        """Are there parameters of the caller here, and is each out of sight in its turn?"""
        return bool(params) and all(self._out_of_sight(binding, caller, handovers + 1) for binding in params)

    def _star_parameters_passed_on(self, call: cst.Call, function: FunctionFacts) -> list[Binding]:
        """The function's own `*args` / `**kwargs` that `call` unpacks, when every unpacking it does
        is one of them; [] otherwise."""
        star_params = [param for param in (function.node.params.star_arg, function.node.params.star_kwarg)
                       if type(param) is cst.Param] if type(function.node) is cst.FunctionDef else []
        found: list[Binding] = []
        for arg in call.args:
            if not arg.star:
                continue
            bindings = function.bindings_at(arg.value) if type(arg.value) is cst.Name else ()
            if not bindings or not all(binding.kind == "param" and any(binding.statement is param
                                                                        for param in star_params)
                                       for binding in bindings):
                return []
            found += bindings
        return found

    def _parameters_passed_on(self, expr, function: FunctionFacts, depth: int = 0) -> list[Binding]:
        """The function's own parameters that `expr` passes on as they are, or an item of: `images`,
        `images[i]`, `image_i` after `image_i = images[i:i + 1]`; [] when it is anything else."""
        while type(expr) is cst.Subscript:
            expr = expr.value
        bindings = function.bindings_at(expr) if type(expr) is cst.Name else ()
        found: list[Binding] = []
        for binding in bindings:
            if binding.kind == "param":
                found.append(binding)
                continue
            if binding.kind != "assign" or type(binding.value) not in (cst.Name, cst.Subscript) or depth >= 2:
                return []
            earlier = self._parameters_passed_on(binding.value, function, depth + 1)
            if not earlier:
                return []
            found += earlier
        return found

    def _computed_from(self, binding: Binding, source: Binding, function: FunctionFacts, depth: int) -> bool:
        """Is what `binding` holds computed from what `source` was bound to (through names)? For
        `x.requires_grad = True` / `x.requires_grad_()`, what `x` held before the switch."""
        if depth > 4:
            return False
        node = binding.value if binding.kind != "requires_grad" else binding.statement
        if node is None:
            return False
        for name in walk(node):
            if type(name) is not cst.Name:
                continue
            for earlier in function.bindings_at(name):
                if earlier is source or (earlier is not binding and earlier.kind in ("assign", "requires_grad")
                                         and self._computed_from(earlier, source, function, depth + 1)):
                    return True
        return False

    def _operand_never(self, expr, function: FunctionFacts, statement, depth: int, likely: bool = False) -> bool:
        """A number, a name that is surely not a tensor, or a tensor that surely does not require grad."""
        if type(expr) is cst.Name:
            bindings = function.bindings_at(expr)
            containers = self.facts.containers.of(function)
            # A list is not a tensor, but `torch.stack(values)` is what was put in it.
            if bindings and all(binding.tensorness is Tensorness.NOT and not containers.insertions(binding)
                                for binding in bindings):
                return True
        return self._never(expr, function, statement, depth + 1, likely)

    def _preprocessed(self, expr: cst.BaseExpression, function: FunctionFacts) -> bool:
        """A batch a tokenizer or processor made (`processor(images=img, return_tensors="pt")`, or a name
        every binding of which is one): tensors made from data, never ones that require grad."""
        if type(expr) is cst.Name:
            bindings = function.bindings_at(expr)
            return bool(bindings) and all(binding.kind == "assign" and binding.value is not None
                                          and self._preprocessed(binding.value, function) for binding in bindings)
        return type(expr) is cst.Call and any(arg.keyword is not None and arg.keyword.value == "return_tensors"
                                              for arg in expr.args)

    def _call_never(self, call: cst.Call, function: FunctionFacts, statement, depth: int, likely: bool = False) -> bool:
        if _keyword_is_true(call, "requires_grad"):
            return False
        loads = self.facts.names.qualified_name(call.func) == "torch.load"
        if likely and (self._preprocessed(call, function)
                       or _reads_a_file(call) and not loads
                       or loads and _loads_saved_data(call)
                       or _a_dataset_class(numpy_name(call.func, self.facts.torchvision))):
            return True  # a batch a processor made, what a file held, a dataset (`dataset[0]`): data, very likely
        func = call.func
        if _image_to_tensor(func):
            return True  # a new tensor made from an image or an array: never one that requires grad
        values = self._module_values(func, function)
        if values and all(_converting_pipeline(value) for value in values):
            return True  # `self.preprocess(image)`, a `Compose` that turns the image into a new tensor
        built = [func] if type(func) is cst.Call else values
        if built and all(type(value) is cst.Call and _a_transform(numpy_name(value.func, self.facts.torchvision))
                         for value in built):
            # `T.Resize((n, n))(kernel)`: torchvision's transforms hold no parameters; on a tensor they
            # make one that requires grad only where it did.
            return all(self._operand_never(arg.value, function, statement, depth, likely) for arg in call.args
                       if arg.keyword is None)
        if type(func) is cst.Name and self._legacy_type_alias(func, function):
            return True  # `Tensor(n, 1).fill_(1.0)` after `Tensor = torch.cuda.FloatTensor if cuda else ...`
        qualified = self.facts.names.qualified_name(func)
        if qualified is not None:
            module, _, name = qualified.rpartition(".")
            if module == "torch" and name in (LEAF_FACTORIES | {"from_numpy"}) - FACTORIES_OF_TENSORS:
                return True
            if module in ("torch", "torch.cuda") and (name in LEGACY_TYPES or name == "Tensor"):
                return True  # `torch.FloatTensor(array)`: the legacy constructors take no `requires_grad`
            if qualified in VARIABLE_CLASSES:
                # `Variable(x)` (torch < 0.4's wrapper) returns a new tensor of x's data that requires grad
                # only when told to (`Variable(x, requires_grad=True)`, or `Variable(x, True)`).
                positional = [arg.value for arg in call.args if arg.keyword is None]
                return len(positional) < 2 or _is_false(positional[1])
            if qualified == "torch.as_tensor" and likely:
                return True  # made to convert data; it returns a tensor argument itself, rarely one with grad
            if qualified in JOINING_FUNCTIONS:
                return all(self._operand_never(arg.value, function, statement, depth, likely) for arg in call.args
                           if arg.keyword is None)
            if qualified in AUTOGRAD_GRAD:
                # The gradients: new tensors, outside any graph unless the graph of the derivative
                # is built (`create_graph=True`, or a flag decided at run time).
                return not any(arg.keyword is not None and arg.keyword.value == "create_graph"
                               and not _is_false(arg.value) for arg in call.args)
            if module.startswith("torch.distributions") and name[:1].isupper():
                # A distribution of parameters free of a graph (`MultivariateNormal(mu, cov)` of
                # factories): what it samples and scores from graph-free values carries none.
                return all(self._operand_never(arg.value, function, statement, depth, likely)
                           for arg in call.args if not arg.star)
            if qualified in PARAMETER_CLASSES and parameter_without_grad(call):
                return True  # `nn.Parameter(mask, requires_grad=False)`: a leaf made not to require grad
            if module not in TENSOR_FUNCTION_MODULES or name in NOT_TENSOR_FUNCTIONS or not name[:1].islower():
                return False  # classes (`nn.Parameter`, layers), `torch.load`, optimizers: not known
            return all(self._operand_never(arg.value, function, statement, depth, likely) for arg in call.args
                       if arg.keyword is None or arg.keyword.value in TENSOR_KEYWORDS)
        if type(func) is cst.Name and func.value in DETACHING_BUILTINS and not function.bindings_at(func):
            return True  # `len(real)`, `float(loss)`: a number or a string, whatever it is given
        if self.facts.makes_numpy_array(call):
            return True  # a NumPy array: a tensor that requires grad is not even converted to one
        if (numpy_name(func, self.facts.numpy) or "").startswith("numpy."):
            # `np.split(w, 3)`, `np.squeeze(x)`: an array, or for a tensor what its own methods return
            # (NumPy calls `x.squeeze()`), which requires grad only where `x` does.
            return all(self._operand_never(arg.value, function, statement, depth, likely) for arg in call.args
                       if arg.keyword is None)
        if numpy_name(func, self.facts.einops) in EINOPS_FUNCTIONS:
            # einops's operations of tensors (`rearrange(pred, "b t -> (b t)")`) require grad only where those do.
            return all(self._operand_never(arg.value, function, statement, depth, likely) for arg in call.args
                       if arg.keyword is None and type(arg.value) is not cst.SimpleString)
        if self._returns_never(call, function, depth, likely):
            return True  # `self._sinusoid_table(n, d)`: every `return` of the file's function makes one
        if self._switched_off_network(call, function, depth, likely):
            return True
        if type(func) is not cst.Attribute:
            return False
        method = func.attr.value
        if method == "requires_grad_":
            return False
        if method in ("sample", "sample_n") and self._a_torch_distribution(func.value, function):
            return True  # a distribution draws under no-grad (`rsample` is the one that keeps the graph)
        if method in NON_TENSOR_METHODS and not (method == "type" and call.args):
            return True  # `x.size()`, `x.item()`: not a tensor at all
        if method == "state_dict":
            return not _keyword_is_true(call, "keep_vars")  # a mapping of detached tensors
        # `grid.clone()`, `theta.to(device)`, `x.pow(2)`: a tensor method of tensors that need no
        # grad makes one that needs none either.
        return self._never(func.value, function, statement, depth + 1, likely) and (
            method in RECEIVER_ONLY_METHODS
            or all(self._operand_never(arg.value, function, statement, depth, likely) for arg in call.args))

    def _a_torch_distribution(self, expr: cst.BaseExpression, function: FunctionFacts) -> bool:
        """`Normal(mean, std)` of `torch.distributions`, or a name every binding of which is one."""
        if type(expr) is cst.Name:
            bindings = function.bindings_at(expr)
            return bool(bindings) and all(binding.kind == "assign" and binding.value is not None
                                          and self._a_torch_distribution(binding.value, function)
                                          for binding in bindings)
        if type(expr) is not cst.Call:
            return False
        module, _, name = (self.facts.names.qualified_name(expr.func) or "").rpartition(".")
        return module.startswith("torch.distributions") and name[:1].isupper()

    def _legacy_type_alias(self, name: cst.Name, function: FunctionFacts) -> bool:
        """Is the name bound, wherever a read of it may see, only to the legacy tensor types (`type_tensor =
        torch.cuda.FloatTensor`, `Tensor = torch.cuda.FloatTensor if cuda else torch.FloatTensor`)? They
        take no `requires_grad`: what they make never requires grad."""
        _, bindings = self.facts.reaching(name, function)
        values = [binding.value for binding in bindings if binding.kind == "assign"]
        if not values or len(values) != len(bindings):
            return False
        choices = [part for value in values
                   for part in ((value.body, value.orelse) if type(value) is cst.IfExp else (value,))]
        for choice in choices:
            qualified = self.facts.names.qualified_name(choice) or ""
            module, _, type_name = qualified.rpartition(".")
            if module not in ("torch", "torch.cuda") or type_name not in LEGACY_TYPES:
                return False
        return True

    def _switched_off_network(self, call: cst.Call, function: FunctionFacts, depth: int, likely: bool) -> bool:
        """`fake = netG(z)` after `netG.requires_grad_(False)` (or `p.requires_grad_(False)` over its
        parameters), given inputs that need no grad: nothing in what it computes requires grad."""
        key = module_key(call.func)
        statement = function.call_statement.get(call)
        if key is None or statement is None or not self.facts.text_mentions(SWITCH_FRAGMENTS):
            return False  # (no switch is written: the summaries grad_switches reads are not asked for)
        if not switched_off_at(key, self.facts.training.grad_switches(function), function.order_of(statement)):
            return False
        return all(self._operand_never(arg.value, function, statement, depth, likely)
                   for arg in call.args if not arg.star)

    # ----------------------------------------------------- state dicts, buffers

    def _state_dict_entry(self, expr, function: FunctionFacts, statement, depth: int) -> bool:
        """`sd[k]`, `sd.get(k)`, `model.state_dict()["weight"]`: a tensor of a state dict."""
        if type(expr) is cst.Subscript:
            return self._state_dict(expr.value, function, depth)
        if type(expr) is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value == "get":
            return self._state_dict(expr.func.value, function, depth)
        return False

    def _state_dict(self, expr, function: FunctionFacts, depth: int) -> bool:
        """A mapping of tensors that do not require grad: `model.state_dict()` (not `keep_vars=True`),
        a state dict loaded with `torch.load` (handed to `.load_state_dict(...)`, named so, or read
        under a `"...state_dict"` key), and copies of one (`copy.deepcopy(sd)`, `dict(sd)`)."""
        if depth > 8:
            self._without_grad.cut()
            return False
        if type(expr) is cst.Call:
            func = expr.func
            if type(func) is cst.Attribute and func.attr.value == "state_dict" \
                    and self.facts.names.qualified_name(func) is None:
                return not _keyword_is_true(expr, "keep_vars")
            callee = (dotted_name(func) or "").rpartition(".")[2]
            if callee in ("deepcopy", "copy", "dict", "OrderedDict") and len(expr.args) == 1:
                return self._state_dict(expr.args[0].value, function, depth + 1)
            return False
        key = single_index(expr) if type(expr) is cst.Subscript else None
        if key is not None:
            return type(key) is cst.SimpleString and "state_dict" in str(key.evaluated_value)
        if type(expr) is cst.Name:
            bindings = function.bindings_at(expr)
            if not bindings:
                return False
            for binding in bindings:
                if binding.kind not in ("assign", "walrus") or binding.value is None:
                    return False
                value = binding.value
                if type(value) is cst.Call and self.facts.names.qualified_name(value.func) == "torch.load":
                    if not (_state_dict_name(binding.name) or binding.name in self._restored_names(function)):
                        return False
                elif not self._state_dict(value, function, depth + 1):
                    return False
            return True
        return False

    def _restored_names(self, function: FunctionFacts) -> frozenset:
        """Names this function hands to `.load_state_dict(...)`: they hold state dicts."""
        found = self._restored.get(function.node)
        if found is None:
            found = frozenset(call.args[0].value.value for call in function.call_statement
                              if type(call.func) is cst.Attribute and call.func.attr.value == "load_state_dict"
                              and call.args and type(call.args[0].value) is cst.Name)
            self._restored[function.node] = found
        return found

    def _iterated_entry(self, iterable, position: Optional[int], function: FunctionFacts, statement,
                        depth: int) -> bool:
        """The loop variable at `position` of the target, over `sd.items()`, `sd.values()`,
        `model.named_buffers()`, `model.buffers()`, `model._buffers.items()`: a tensor that does not require
        grad."""
        if position is None or not (type(iterable) is cst.Call and type(iterable.func) is cst.Attribute):
            return False
        method = iterable.func.attr.value
        if BUFFER_ITERATORS.get(method, -1) == position and self.facts.names.qualified_name(iterable.func) is None:
            return True
        owner = iterable.func.value
        if MAPPING_ENTRIES.get(method, -1) == position and type(owner) is cst.Attribute \
                and owner.attr.value == "_buffers":
            return True  # `module._buffers.items()`: the dict `register_buffer` fills (a meta-learning library's copy)
        return MAPPING_ENTRIES.get(method, -1) == position and self._state_dict(iterable.func.value, function, depth)

    def _comprehension_entry(self, name: cst.Name, statement, function: FunctionFacts, depth: int,
                             likely: bool = False) -> bool:
        """`{k: v.clone() for k, v in sd.items()}`: a name bound by a comprehension of the statement
        (and, `likely`, `[x.clone() for x, _ in loader]`: a batch of a data loader)."""
        if statement is None:
            return False
        for node in walk(statement):
            if type(node) not in COMPREHENSIONS or not any(inner is name for inner in walk(node)):
                continue
            loop = node.for_in
            while loop is not None:
                if likely:
                    path = _path_of_name(loop.target, name.value)
                    if path is not None and self.facts.loaders.item_part(loop.iter, path, function) is not None:
                        return True
                position = _position_in(loop.target, None, name.value)
                if position is not None:
                    return self._iterated_entry(loop.iter, position, function, statement, depth) \
                        or self._items_never(loop.iter, function, statement, depth, likely)
                loop = loop.inner_for_in
        return False


def _converted_element(binding: Binding) -> Optional[cst.BaseExpression]:
    """`x, y = [t.to(device) for t in (x, y)]`: the element of the literal the comprehension runs over
    that this name's position gets, moved or converted (which keeps autograd history as it is); None
    for any other value."""
    value = binding.value
    position = position_in_target(binding)
    if type(value) not in (cst.ListComp, cst.GeneratorExp) or position is None or value.for_in.inner_for_in \
            or value.for_in.ifs or type(value.for_in.target) is not cst.Name:
        return None
    iterable = value.for_in.iter
    if type(iterable) not in (cst.Tuple, cst.List) or position >= len(iterable.elements) \
            or any(type(element) is cst.StarredElement for element in iterable.elements):
        return None
    element = value.elt
    while type(element) is cst.Call and type(element.func) is cst.Attribute \
            and element.func.attr.value in MOVING_METHODS:
        element = element.func.value
    if type(element) is not cst.Name or element.value != value.for_in.target.value:
        return None
    return iterable.elements[position].value


def _path_of_name(target, name: str) -> Optional[tuple]:
    """The positions leading from a loop target to the name `name`: () for `x` in `for x in`,
    (1, 0) for `x` in `for i, (x, y) in`; None when absent."""
    if type(target) is cst.Name:
        return () if target.value == name else None
    if type(target) in (cst.Tuple, cst.List):
        for position, element in enumerate(target.elements):
            inner = _path_of_name(element.value, name)
            if inner is not None:
                return (position, *inner)
    return None


def _derived(origin: Optional[GradOrigin]) -> Optional[GradOrigin]:
    return replace(origin, derived=True) if origin is not None and not origin.derived else origin


def _attributes_switched_on(class_node: cst.ClassDef) -> frozenset:
    """The `self.` attributes the class makes require grad itself (`self.mask.requires_grad_()`,
    `self.mask.requires_grad = flag`)."""
    found = set()
    for node in walk(class_node):
        target = node.func.value if type(node) is cst.Call and type(node.func) is cst.Attribute \
            and node.func.attr.value == "requires_grad_" else node.target.value if type(node) is cst.AssignTarget \
            and type(node.target) is cst.Attribute and node.target.attr.value == "requires_grad" else None
        if is_self_attribute(target):
            found.add(target.attr.value)
    return frozenset(found)


def _is_self_attribute_call(call: cst.Call) -> bool:
    """`self.net(x)`: a layer call, not a tensor method."""
    func = call.func
    return type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == "self"


def _passed_for_star(call: cst.Call, definition: cst.FunctionDef) -> list:
    """What a call of `definition` passes into its `*args`: the positional values beyond its named
    parameters (a starred one stands for itself: `f(*rest)` hands on all of `rest`)."""
    named = [*definition.params.posonly_params, *definition.params.params]
    if named and type(call.func) is cst.Attribute and named[0].name.value in ("self", "cls"):
        named = named[1:]
    positional = [arg for arg in call.args if arg.keyword is None]
    return [arg.value for arg in positional[len(named):]]


def _is_false(expr) -> bool:
    return type(expr) is cst.Name and expr.value == "False"


def _state_dict_name(name: str) -> bool:
    return "state_dict" in name or name == "sd"


def _through_zip(iterable, position: Optional[int]) -> tuple:
    """(what the loop variable at `position` is an item of, its position there): `xs` and 0 for `x`
    in `for x, h in zip(xs, hs)` or `for i, x in enumerate(xs)`; the iterable itself otherwise."""
    if position is None or type(iterable) is not cst.Call or type(iterable.func) is not cst.Name \
            or any(arg.star or arg.keyword is not None for arg in iterable.args):
        return iterable, position
    if iterable.func.value == "zip" and position < len(iterable.args):
        return iterable.args[position].value, 0
    if iterable.func.value == "enumerate" and position == 1 and len(iterable.args) == 1:
        return iterable.args[0].value, 0
    return iterable, position


def _position_in(target, node, name: Optional[str] = None) -> Optional[int]:
    """Where `node` (or the name `name`) stands in a loop target: 0 for `v` in `for v in ...`, 1 for
    `v` in `for k, v in ...`; None when it is nested deeper or absent."""
    if type(target) is cst.Name:
        return 0 if target is node or (name is not None and target.value == name) else None
    if type(target) in (cst.Tuple, cst.List):
        for position, element in enumerate(target.elements):
            value = element.value
            if type(value) is cst.Name and (value is node or (name is not None and value.value == name)):
                return position
    return None


# Classes that load or make something other than a network (their outputs are token ids, masks,
# pixel arrays, settings): `AutoTokenizer`, `CLIPProcessor`, `ViTImageProcessor`, `BertConfig`, a
# diffusion scheduler, a pipeline (which runs its networks under no-grad itself).
NOT_NETWORK_CLASS = re.compile(r"Tokenizer|Processor|FeatureExtractor|Config\b|Scheduler|Pipeline")
# A class name that reads as a network for `from_pretrained`: `AutoModel...`, `...Model`, `...For<Task>`.
PRETRAINED_MODEL_CLASS = re.compile(r"^AutoModel|Model$|For[A-Z]")
# Builtins whose result is no tensor (and so carries no graph), whatever they are given.
NO_TENSOR_BUILTINS = frozenset({"len", "int", "float", "bool", "str", "repr", "round", "isinstance", "range",
                                "enumerate", "zip", "print", "hash", "id", "type", "format", "divmod", "callable",
                                "hasattr", "getattr", "sorted", "reversed", "iter", "next", "any", "all"})
_NOT_A_HOLDER = object()  # `_holder_of`: "not one of the shapes only `carries_graph` follows"
# Fields that are not a network output's tensors: gradients, detached data, names.
NOT_GRAPH_FIELDS = frozenset({"grad", "data", "names", "is_cuda", "T_destination"})


def _layers_in(value) -> list:
    """The layers an argument of a container module spells: itself, or a list's (a tuple's, a dict's)
    elements, or a comprehension's element."""
    if type(value) in (cst.List, cst.Tuple):
        return [element.value for element in value.elements if type(element) is not cst.StarredElement]
    if type(value) is cst.Dict:
        return [element.value for element in value.elements if type(element) is cst.DictElement]
    if type(value) in (cst.ListComp, cst.GeneratorExp):
        return [value.elt]
    if type(value) is cst.DictComp:
        return [value.value]
    return [value]


def _is_self_named(node: cst.CSTNode, attribute: str) -> bool:
    """`self.<attribute>`."""
    return is_self_attribute(node) and node.attr.value == attribute


def _empty_container(value: cst.BaseExpression) -> bool:
    """`[]`, `{}`, `list()`, `dict()`: a container made empty, whose items are what is put in later."""
    if type(value) in (cst.List, cst.Dict):
        return not value.elements
    return type(value) is cst.Call and not value.args and dotted_name(value.func) in ("list", "dict", "set", "deque")


def _made_by(value: cst.BaseExpression) -> cst.BaseExpression:
    """The tensor a chain of tensor methods starts from (`torch.rand(n, d).mul_(2 * stdv).add_(-stdv)`
    -> `torch.rand(n, d)`): what a buffer is registered with is that fresh tensor, scaled or shifted
    in place by the constructor's numbers."""
    while type(value) is cst.Call and type(value.func) is cst.Attribute and type(value.func.value) is cst.Call \
            and value.func.attr.value != "requires_grad_":
        value = value.func.value
    return value


# torchvision's conversions of an image (a PIL image, an array) into a new tensor, as a transform
# object called at once (`transforms.ToTensor()(image)`) or as a function (`TF.to_tensor(image)`).
IMAGE_TO_TENSOR_CLASSES = frozenset({"ToTensor", "PILToTensor"})
IMAGE_TO_TENSOR_FUNCTIONS = frozenset({"to_tensor", "pil_to_tensor"})


def _a_transform(name: Optional[str]) -> bool:
    """A class of torchvision's transforms (`torchvision.transforms.Resize`, `...v2.Normalize`)."""
    return name is not None and name.startswith("torchvision.transforms.") and name.rpartition(".")[2][:1].isupper()


def _a_dataset_class(name: Optional[str]) -> bool:
    """torchvision's datasets (`torchvision.datasets.MNIST`, `...folder.ImageFolder`)."""
    return name is not None and name.startswith("torchvision.datasets.") and name.rpartition(".")[2][:1].isupper()


# The last word of a name that names a file or a folder (`img_path`, `image_file`, `self.files[i]`,
# `data_dir`), and the suffixes of data files: a call given one reads data (`load_image(image_path)`,
# `preprocess_image(name, img_path)`). Not `.pt`/`.pth`: a checkpoint may hold parameters.
FILE_WORDS = frozenset({"path", "paths", "file", "files", "filename", "filenames", "fname", "filepath", "dir",
                        "folder", "url"})
DATA_FILE_SUFFIX = re.compile(r"(?i)\.(png|jpe?g|bmp|gif|tiff?|webp|npy|npz|csv|tsv|txt|json|pkl|pickle|h5|hdf5|mat|"
                              r"wav|flac|mp3)$")
# Callees that load what a model is made of (`load_checkpoint(path)`, `restore_weights(file)`,
# `torch.load(path)` too): what they return may hold parameters.
CHECKPOINT_WORDS = re.compile(r"(?i)checkpoint|ckpt|weight|state|model|param|restore|resume")


def _reads_a_file(call: cst.Call) -> bool:
    """Is the call given a file or a folder (`load_image(image_path, device)`, `np.load("x.npy")`,
    `read(self.files[index])`), and not one that loads a model's weights? What it returns was read
    from there: data."""
    if CHECKPOINT_WORDS.search((dotted_name(call.func) or "").rpartition(".")[2]) or \
            type(call.func) is cst.Name and hasattr(builtins, call.func.value):
        return False  # a model's weights; `list(paths)`, `sorted(files)`: the names, not what the files hold
    for arg in call.args:
        value = arg.value
        while type(value) is cst.Subscript:
            value = value.value
        if type(value) is cst.SimpleString and DATA_FILE_SUFFIX.search(value.evaluated_value or ""):
            return True
        name = value.attr.value if type(value) is cst.Attribute else value.value if type(value) is cst.Name else ""
        if name.lower().rsplit("_", 1)[-1] in FILE_WORDS:
            return True
    return False


def _loads_saved_data(call: cst.Call) -> bool:
    """`torch.load(folder + "/img1_I0.pt")`: a tensor read back from a file whose name says nothing of
    weights (`CHECKPOINT_WORDS`); `torch.load` restores the flag it was saved with, and data saved
    as tensors (precomputed images, features) was saved without one. A path of no literal text says
    nothing: not taken as data."""
    texts = [node.evaluated_value for arg in call.args[:1] for node in walk(arg.value)
             if type(node) is cst.SimpleString and isinstance(node.evaluated_value, str)]
    texts += [part.value for arg in call.args[:1] for node in walk(arg.value) if type(node) is cst.FormattedString
              for part in node.parts if type(part) is cst.FormattedStringText]
    return any(DATA_FILE_SUFFIX.search(text) or text.endswith((".pt", ".pth")) for text in texts) \
        and not any(CHECKPOINT_WORDS.search(text) for text in texts)


def _converting_pipeline(value: cst.BaseExpression) -> bool:
    """`transforms.ToTensor()`, or a `transforms.Compose([...])` of a list written out that holds one:
    called, it makes a new tensor of an image (torchvision's `ToTensor` takes no tensor)."""
    if _image_to_tensor(value):
        return True
    if not (type(value) is cst.Call and (dotted_name(value.func) or "").rpartition(".")[2] == "Compose"
            and value.args and type(value.args[0].value) is cst.List):
        return False
    return any(type(element) is cst.Element and _image_to_tensor(element.value)
               for element in value.args[0].value.elements)


def _image_to_tensor(func: cst.BaseExpression) -> bool:
    if type(func) is cst.Call and not func.args:
        return (dotted_name(func.func) or "").rpartition(".")[2] in IMAGE_TO_TENSOR_CLASSES
    return (dotted_name(func) or "").rpartition(".")[2] in IMAGE_TO_TENSOR_FUNCTIONS


def _comprehension_source(name: cst.Name, statement: cst.CSTNode) -> Optional[cst.Name]:
    """The name whose elements `name` goes through when a comprehension of `statement` binds it (`inner`
    in `[[inner.cpu() for inner in outer] for outer in x]`: `x`), else `name` itself."""
    for _ in range(4):
        loops = _comprehension_loops(name, statement)
        if not loops:
            return name
        source = _accessed_name(loops[0].iter)
        if source is None or source.value == name.value:
            return None
        name = source
    return None


def _comprehension_loops(name: cst.Name, statement: cst.CSTNode) -> list:
    """The `for ... in` clauses of the comprehensions of `statement` that bind `name`."""
    return [loop for node in walk(statement) if type(node) in COMPREHENSIONS
            for loop in _for_ins(node.for_in) if type(loop.target) is cst.Name and loop.target.value == name.value]


def _for_ins(loop: Optional[cst.CompFor]):
    while loop is not None:
        yield loop
        loop = loop.inner_for_in


def _parameter_of(expr: cst.BaseExpression, function: FunctionFacts) -> Optional[cst.Param]:
    """The parameter of the function that `expr` is (through views, moves and indexing, not a detach),
    where every binding of it that reaches `expr` is the parameter itself; None otherwise."""
    name = _accessed_name(expr)
    if name is None or type(function.node) is not cst.FunctionDef:
        return None
    bindings = function.bindings_at(name)
    if not bindings or any(binding.kind != "param" for binding in bindings):
        return None
    params = function.node.params
    return next((each for each in (*params.posonly_params, *params.params, *params.kwonly_params)
                 if each.name.value == name.value), None)


def _an_item_of_data(name: cst.Name, function: FunctionFacts, depth: int = 0) -> bool:
    """Is every binding of `name` an item of a loop over data (`_iterates_data`), or a move, view or
    index of one (`data, target = data.to(device), target.to(device)` in the loop's body)?"""
    bindings = function.bindings_at(name)
    if not bindings or depth > 3:
        return False
    for binding in bindings:
        if binding.kind == "loop":
            if not _iterates_data(binding, function):
                return False
            continue
        value = binding.value if binding.kind == "assign" else \
            unpacked_part(binding) if binding.kind == "unpack" else None
        source = _accessed_name(value) if value is not None else None
        if source is None or not _an_item_of_data(source, function, depth + 1):
            return False
    return True


def _iterates_data(loop: Binding, function: FunctionFacts) -> bool:
    """Is the loop that bound a name over what yields data (`dataset.batches()`, `enumerate(loader)`),
    not over an argument of the function itself, whose items are what its callers pass (`for feats in batch`)?"""
    iterated = getattr(loop.statement, "iter", None)
    if iterated is None:
        return False
    return not (type(iterated) is cst.Name
                and any(binding.kind == "param" for binding in function.bindings_at(iterated)))


# Calls whose value holds items of their first argument as they are (a sample of a replay buffer).
ITEM_DRAWING_CALLS = frozenset({"zip", "list", "tuple", "sorted", "reversed", "random.sample", "random.choices",
                                "random.choice"})


def _accessed_root(expr: Optional[cst.BaseExpression]) -> Optional[cst.BaseExpression]:
    """`t` for `t[0].cpu()`, `obj.masks` for `obj.masks[i].squeeze()`: the name or attribute read whose
    values the expression holds as they are; None through anything else."""
    while expr is not None:
        if type(expr) in (cst.Name, cst.Attribute):
            return expr
        if type(expr) is cst.Subscript:
            expr = expr.value
        elif type(expr) is cst.Call and type(expr.func) is cst.Attribute \
                and expr.func.attr.value in VIEW_METHODS | MOVING_METHODS:
            call, expr = expr, expr.func.value
            if type(expr) is cst.Name and expr.value == "torch":
                # `torch.unsqueeze(t, 0)`: the function spelling of the view, of its first argument (not of `torch`)
                positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
                expr = positional[0] if positional else None
        else:
            return None
    return None


def _accessed_name(expr: cst.BaseExpression) -> Optional[cst.Name]:
    """`t` for `t`, `t.cpu()`, `t[0].squeeze()`, `t.permute(1, 2, 0)`: the name whose values (and graph)
    the expression holds as they are; None through anything else (a detach, arithmetic, a call)."""
    root = _accessed_root(expr)
    return root if type(root) is cst.Name else None


def _branches_without_grad(scope: cst.CSTNode, kind: type):
    """(the name an `if` or a conditional expression of `kind` tests, the branch that runs only where that
    name needs no grad): the `else` of `if x.requires_grad`, the body of `if not x.requires_grad`."""
    for node in walk(scope):
        if type(node) is not kind:
            continue
        test, negated = node.test, False
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            test, negated = test.expression, True
        if type(test) is cst.Attribute and test.attr.value == "requires_grad" and type(test.value) is cst.Name:
            branch = node.body if negated else node.orelse
            if branch is not None:
                yield test.value.value, branch


def _within(statement: cst.CSTNode, block: cst.CSTNode) -> bool:
    return any(node is statement for node in walk(block))


# Annotations that declare a Python number (or a flag): `momentum: float = 0.9`.
NUMBER_ANNOTATIONS = frozenset({"float", "int", "bool", "complex"})


def _declared_a_number(param: cst.CSTNode) -> bool:
    """A parameter annotated as a number, or with a number as its only default and no annotation
    (`momentum: float = 0.0`, `alpha=0.01`): very likely a Python number, which carries no graph."""
    if type(param) is not cst.Param:
        return False
    annotation = param.annotation.annotation if param.annotation is not None else None
    if annotation is not None:
        return type(annotation) is cst.Name and annotation.value in NUMBER_ANNOTATIONS
    default = param.default
    if type(default) is cst.UnaryOperation:
        default = default.expression
    return type(default) in (cst.Integer, cst.Float)


def _split_tensor(call: cst.Call, qualified: Optional[str]) -> Optional[cst.BaseExpression]:
    """The tensor a call splits into views (`gates.chunk(4, dim=1)`, `torch.split(x, 2)`), else None."""
    if type(call.func) is cst.Attribute and call.func.attr.value in SPLITTING_VIEWS and qualified is None:
        return call.func.value
    if qualified is not None and qualified.startswith("torch.") and qualified.rpartition(".")[2] in SPLITTING_VIEWS \
            and call.args and call.args[0].keyword is None:
        return call.args[0].value
    return None

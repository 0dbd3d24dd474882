"""Per function: which names share storage, where in-place writes happen, what each read sees.

One forward walk over the function body, statement by statement, along every
path. The state at a point (`FlowState`) is, for each name, the set of
assignments that may reach it (`Binding`s), and for each binding the in-place
events that may have hit its storage since it was made. Branches get a child
state that records only what they change, and merging touches only those
names, so the cost is linear in the size of the function. Loop bodies are
walked twice (the second time with what the first iteration left), up to a
nesting depth, which is enough for the facts the rules need: an event at the
end of a body reaching a read at its start.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Optional, Union

import libcst as cst

from torchcopylint.analysis.catalog import (
    INPLACE_FUNCTION_ARGUMENT,
    INPLACE_TENSOR_METHODS,
    SHAPE_ONLY_METHODS,
    is_inplace_method_name,
    written_arguments,
)
from torchcopylint.analysis.syntax import CHILDLESS, child_nodes, is_expression, name_uses, single_index, walk
from torchcopylint.analysis.tensors import (
    TENSOR_RETURNING_METHODS,
    Tensorness,
    TensorTyping,
    annotation_is_tensor,
    combine,
    name_used_as_tensor,
    reads_as_network,
    tests_type,
)
from torchcopylint.analysis.torchnames import TorchNames, dotted_name

# Methods and torch functions whose result shares storage with the receiver (or first argument).
VIEW_METHODS = frozenset(
    """
    view view_as reshape reshape_as flatten unflatten squeeze unsqueeze permute transpose t
    expand expand_as narrow select detach numpy diagonal unfold as_strided movedim moveaxis
    swapaxes swapdims view_as_real view_as_complex chunk split unbind tensor_split
    """.split()
)
# Views that cut a tensor into pieces that share no element: what each unpacked name gets is a part.
SPLITTING_VIEWS = frozenset("chunk split unbind tensor_split hsplit vsplit dsplit".split())
VIEW_FUNCTIONS = frozenset(
    "reshape flatten squeeze unsqueeze transpose permute narrow t detach select diagonal movedim".split()
)
# Methods that return their receiver itself when there is nothing to convert (`x.float()` of a
# float tensor): the result may share storage, but is not surely an alias.
MAY_ALIAS_METHODS = frozenset(
    "contiguous float double half bfloat16 int long short bool byte char to cuda cpu type type_as".split()
)
# Reductions that, given no dimension, make a 0-dim tensor (`_full_reduction`).
FULL_REDUCTIONS = frozenset({"sum", "mean", "prod", "norm", "max", "min", "amax", "amin", "std", "var", "median"})
# What in-place writes leave unchanged: reading these is not reading the values.
# Attributes and methods of a tensor that read what it is, not its values (so carry no graph).
METADATA_ATTRIBUTES = frozenset({"shape", "dtype", "device", "ndim", "is_cuda", "layout", "requires_grad",
                                 "is_leaf", "grad_fn"})
METADATA_METHODS = frozenset({"size", "dim", "numel", "ndimension", "element_size", "nelement", "get_device"})
# Tensor methods that read only the shape (and dtype) of their argument (`x.view_as(z)`). (Not
# `torch.zeros_like(z)`: what it makes is a tensor whose facts the usual path of a call records.)
SHAPE_TAKERS = frozenset({"view_as", "reshape_as", "expand_as", "type_as"})
# What tells one tensor's memory from another's (`y.data_ptr() == x.data_ptr()`, `y.storage()`): not its
# values, but exactly what a copy changes.
IDENTITY_METHODS = frozenset({"data_ptr", "storage", "untyped_storage", "_typed_storage", "is_set_to"})
# Methods that put values into a container they are called on.
CONTAINER_METHODS = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "put", "put_nowait"})
# Calls on a container that change what it holds without reading its values.
CONTAINER_MUTATORS = CONTAINER_METHODS | {"clear", "remove", "discard"}
# Methods whose result is a fresh copy of the receiver's values.
COPY_METHODS = frozenset({"clone"})
# Views that a copy may pass through before an op consumes it (`x.clone().unsqueeze(0).repeat(n, 1)`).
VIEW_CHAIN_METHODS = frozenset(
    "view view_as reshape reshape_as flatten unflatten squeeze unsqueeze permute transpose t expand expand_as "
    "narrow select diagonal movedim moveaxis swapaxes swapdims".split()
)
# Tensor methods that always return a new tensor, never their receiver nor a view of it: a
# copy fed straight into one (`x.clone().repeat(n, 1)`, `x.clone().mul(s)`) is copied twice.
NEW_TENSOR_METHODS = frozenset(
    """
    repeat repeat_interleave add sub mul div true_divide floor_divide pow neg abs exp log log1p log2
    sqrt rsqrt sigmoid tanh relu softmax log_softmax matmul mm bmm mv sum mean std var norm prod cumsum
    cumprod clamp clip masked_fill index_fill masked_select gather index_select flip roll tril triu lerp
    addcmul addcdiv round floor ceil sign reciprocal square minimum maximum outer
    """.split()
)
# torch functions (and torch.nn.functional ones without `inplace`) that always return a new
# tensor; the cat family takes its inputs in a list or tuple.
NEW_TENSOR_FUNCTIONS = frozenset(
    """
    torch.cat torch.concat torch.concatenate torch.stack torch.hstack torch.vstack torch.dstack
    torch.column_stack torch.add torch.sub torch.mul torch.div torch.matmul torch.mm torch.bmm torch.einsum
    torch.exp torch.log torch.sigmoid torch.tanh torch.relu torch.softmax torch.log_softmax torch.sum
    torch.mean torch.clamp torch.where torch.repeat_interleave torch.flip torch.roll torch.tril torch.triu
    torch.lerp torch.abs torch.neg torch.sqrt torch.pow torch.maximum torch.minimum torch.outer
    torch.nn.functional.relu torch.nn.functional.gelu torch.nn.functional.silu torch.nn.functional.softmax
    torch.nn.functional.log_softmax torch.nn.functional.linear torch.nn.functional.normalize
    torch.nn.functional.layer_norm torch.nn.functional.conv1d torch.nn.functional.conv2d
    torch.nn.functional.conv3d
    """.split()
)
SEQUENCE_FUNCTIONS = frozenset(
    "torch.cat torch.concat torch.concatenate torch.stack torch.hstack torch.vstack torch.dstack "
    "torch.column_stack".split()
)
# Values that make a local container (whose items the walk follows, for the aliases it holds).
CONTAINER_LITERALS = (cst.List, cst.Tuple, cst.Dict, cst.Set, cst.ListComp, cst.DictComp)
AUGMENTED_OPERATORS = {
    "AddAssign": "+=", "SubtractAssign": "-=", "MultiplyAssign": "*=", "DivideAssign": "/=",
    "FloorDivideAssign": "//=", "ModuloAssign": "%=", "PowerAssign": "**=", "MatrixMultiplyAssign": "@=",
    "BitAndAssign": "&=", "BitOrAssign": "|=", "BitXorAssign": "^=", "LeftShiftAssign": "<<=",
    "RightShiftAssign": ">>=",
}
def writes_in_place(statement: cst.AugAssign) -> bool:
    """Whether the augmented assignment writes a tensor's memory: every one does but `a @= b`, since
    torch.Tensor has no `__imatmul__` and Python runs it as `a = a @ b` (a new tensor, rebound)."""
    return type(statement.operator) is not cst.MatrixMultiplyAssign


# Loop depth past which a loop body is walked once only (keeps deep nests linear).
MAX_LOOP_REWALK_DEPTH = 3
# Expressions with a scope of their own (what they bind does not leak out).
_OWN_SCOPE = frozenset({cst.Lambda, cst.ListComp, cst.SetComp, cst.DictComp, cst.GeneratorExp})

FunctionNode = Union[cst.FunctionDef, cst.Module, cst.Lambda]


@dataclass(eq=False)
class Storage:
    """An abstract tensor storage, named after the assignment or expression that made it."""

    origin: cst.CSTNode
    description: str
    # The storages this one is a disjoint part of (`gi, gj = gij.T`: each row is a part of `gij`'s): a
    # write to the part is one to the whole, and a write to the whole one to every part, but a write
    # to one part leaves its siblings as they were.
    within: frozenset = frozenset()
    parts: list = field(default_factory=list)
    # For a cut at a constant position or range (`x[2]`, `x[:, :, 0]`, `x[..., :4]` written `x[:, :, :4]`),
    # its dimension and [start, stop) there (stop None: to the end): cuts along one dimension share
    # what their ranges share, but one along another crosses them all (`x[0]` and `x[:, 1]` share `x[0, 1]`).
    axis: Optional[int] = None
    span: Optional[tuple] = None


@dataclass(eq=False)
class Binding:
    """One assignment of a name: `y = x.clone()`, a parameter, a loop variable."""

    name: str
    target: cst.CSTNode
    value: Optional[cst.BaseExpression]
    kind: str  # "assign", "param", "loop", "with", "augassign", "except", "import", "def", "unpack"
    statement: cst.CSTNode
    tensorness: Tensorness = Tensorness.UNKNOWN
    storages: frozenset = frozenset()
    # For a copy (`y = x.clone()`), the storages it was copied from.
    source_storages: frozenset = frozenset()
    # "alias" (shares an existing storage: `y = x`, a view, `.detach()`), "copy" (`.clone()`),
    # "new" (a new tensor), or "" (not a tensor, or not known).
    made_by: str = ""
    # Why this value is a leaf that requires grad ("" when it is not known to be one):
    # "factory" (`requires_grad=True`), "parameter" (`nn.Parameter`, `.parameters()`),
    # "requires_grad_" (flag switched on), "view" (a view of such a leaf).
    leaf: str = ""
    leaf_origin: Optional[cst.CSTNode] = None
    loops: tuple = ()  # enclosing loop statements, outermost first
    module_output: bool = False  # the value of a call of an nn.Module (a model or criterion)
    # (the function's number in the module, the binding's in the function): what sets of bindings are
    # ordered by. Hashed by identity, their order followed memory addresses, and the first of several
    # answers a rule took changed from run to run.
    serial: tuple = (0, 0)

    def __hash__(self) -> int:
        return hash(self.serial)

    @property
    def watched_storages(self) -> frozenset:
        return self.storages | self.source_storages


@dataclass(eq=False)
class InplaceEvent:
    """A write into existing storage.

    certainty: "sure" (a known in-place op on a known tensor), "maybe" (`+=` on a
    name that may not be a tensor), or "opaque" (an unknown callee received the
    tensor and might write it).
    """

    node: cst.CSTNode
    statement: cst.CSTNode
    storages: frozenset
    kind: str  # "method", "augassign", "setitem", "out", "module", "functional", "callee", "opaque"
    description: str
    certainty: str = "sure"
    target: Optional[cst.BaseExpression] = None
    order: int = 0  # evaluation order within the function (inner calls first)
    # The write happens inside a callee that switches grad mode off around it.
    without_grad: bool = False
    # A callee's write made through a detached alias it names of its argument
    # (`a = t.detach().numpy()`), spelled as in the callee; "" for any other write.
    through: str = ""
    # A callee's every write of this argument goes through `.data` or `.detach()` of it
    # (`def glorot(t): t.data.uniform_(-a, a)`): the storage changes, autograd sees no write.
    through_detach: bool = False
    # The write goes through an index that may gather a copy (`w[:, idx].add_(v)`, `idx` unknown): it
    # reaches the storage only where `idx` is an int.
    through_unknown_index: bool = False

    @property
    def changes_values(self) -> bool:
        """False for a method that only changes the tensor's shape (`x.squeeze_(0)`, `x.t_()`): every
        alias of the storage reads the values it read before."""
        return not (self.kind == "method" and type(self.node) is cst.Call and type(self.node.func) is cst.Attribute
                    and self.node.func.attr.value in SHAPE_ONLY_METHODS)


@dataclass(eq=False)
class Read:
    """A load of a name, with what may reach it and what was written since."""

    node: cst.Name
    statement: cst.CSTNode
    bindings: frozenset
    # binding watching the read's storage -> in-place events since that binding was made
    events_since: dict
    # "value" (the values are used), "metadata" (`x.shape`, `x.dtype`, `x.size()`: unchanged by
    # in-place writes), "identity" (`x.data_ptr()`, `x.storage()`, `x is y`, `id(x)`: which memory
    # it is, not what it holds) or "store" (`x[i] = v`: the name is written through, not read)
    use: str = "value"
    # binding reaching the read -> the events since it was made that hit it while this name held it
    # on a path to the read (events_since also counts writes made after the name was rebound)
    named_events: dict = field(default_factory=dict)
    # For a read of a local container's values (`torch.cat(outs)`, `return outs`): each alias it may
    # hold ("held" binding) -> the writes to its storage since it was put in, while it was held.
    held: dict = field(default_factory=dict)


@dataclass(eq=False)
class Escape:
    """A value leaving the function's sight: returned, stored on self, put in a container, passed to an unknown callee."""

    node: cst.CSTNode
    bindings: frozenset
    how: str


class Callees:
    """What a call does to its tensor arguments. Supplied by ModuleFacts (it knows the classes)."""

    def effect(self, call: cst.Call, state: "FlowState") -> "CallEffect":  # pragma: no cover - interface
        raise NotImplementedError

    def is_module_call(self, call: cst.Call, state: "FlowState") -> bool:  # pragma: no cover - interface
        """Is the callee an nn.Module (so the result is a tensor, most likely)?"""
        raise NotImplementedError

    def is_layer_call(self, call: cst.Call, state: "FlowState") -> bool:  # pragma: no cover - interface
        """Is the callee an object built in __init__ or earlier (`self.body`, `block`), used as a layer?"""
        raise NotImplementedError

    def calls_a_method_of_the_file(self, call: cst.Call, state: "FlowState") -> bool:  # pragma: no cover
        """Is `receiver.method(...)` a method of a class of this file (`helper.norm_(x)`), not a tensor's?"""
        return False

    def constructs_a_class_of_the_file(self, call: cst.Call, state: "FlowState") -> bool:  # pragma: no cover
        """Is `Name(...)` the construction of an object of a class of this file (`Diagnostics(kl=kl)`)?"""
        return False


@dataclass(frozen=True)
class WrittenArgument:
    """One parameter a callee may write in place."""

    position: Optional[int]  # among the positional arguments of a call (after `self`); None: keyword-only
    name: str  # the parameter's name, for a keyword argument (`"" ` when unknown)
    # "sure" (on every path through the callee that returns), "tensor" (surely, when what is passed
    # is a tensor: `t -= m` on a parameter the callee does not show to be one), "maybe" (on some
    # path: under a condition, in a loop that may run zero times), "opaque" (handed to something
    # unknown) or "pure" (left alone)
    certainty: str
    # "tensor": the argument itself; "list": every tensor of the list or tuple passed
    what: str = "tensor"
    # The detached alias the callee names and writes through (`a = t.detach().numpy(); a *= 255`),
    # as its value is spelled there, when every sure write goes through it; "" otherwise.
    through: str = ""
    # Every write of the parameter goes through `.data` / `.detach()` of it, spelled in one
    # expression (`t.data.uniform_()`) or through a detached alias: not an in-place op on a leaf.
    through_detach: bool = False


@dataclass(frozen=True)
class CallEffect:
    kind: str  # "pure", "writes", "maybe-writes" (decided at run time), "identity", "opaque"
    description: str = ""
    argument: int = 0  # which positional argument is written / returned (the first sure one)
    without_grad: bool = False  # the callee makes its write with grad mode off
    layer: bool = True  # the callee is a layer (a module), not a function or method of the file
    # Every parameter the callee may write, when the callee's code was read (a function, method,
    # lambda or module forward of the file): `()` for torch layers, whose one input is `argument`.
    writes: tuple = ()
    # Whether the value the call returns may be the written input (torch's in-place layers return it;
    # a module of the file returns what its forward returns: `x += pe` then `return self.norm(x)` does not).
    returns_input: bool = True

    def written(self) -> tuple:
        """What the call does to each parameter, as WrittenArgument: the callee's whole summary when
        its code was read (certainty "pure" for a parameter left alone), else the layer's input."""
        if self.writes:
            return self.writes
        if self.kind in ("writes", "maybe-writes"):
            return (WrittenArgument(self.argument, "", "sure" if self.kind == "writes" else "maybe"),)
        return ()


PURE = CallEffect("pure")
OPAQUE = CallEffect("opaque")


class FlowState:
    """Reaching bindings and events-since per binding; a child records only its own changes."""

    def __init__(self, parent: Optional["FlowState"] = None) -> None:
        self.parent = parent
        self.names: dict[str, frozenset] = {}
        self.events: dict[Binding, frozenset] = {}
        # Per binding, the events since it was made that hit it while its name held it, on paths
        # where the name still does: a path that rebinds the name forgets them (see `bind`).
        self.named: dict[Binding, frozenset] = {}
        # Local container name -> the "held" bindings of the aliases it may hold (`outs.append(x)`).
        self.held: dict[str, frozenset] = {}
        # Binding -> storages it no longer watches: the statement that made the storage ran again
        # (the next iteration's `h = f(h)` makes a new tensor), and the binding still names the
        # previous one.
        self.retired: dict[Binding, frozenset] = {}
        self.reachable = True

    def lookup(self, name: str) -> frozenset:
        state: Optional[FlowState] = self
        while state is not None:
            if name in state.names:
                return state.names[name]
            state = state.parent
        return frozenset()

    def events_of(self, binding: Binding) -> frozenset:
        state: Optional[FlowState] = self
        while state is not None:
            if binding in state.events:
                return state.events[binding]
            state = state.parent
        return frozenset()

    def knows(self, binding: "Binding") -> bool:
        """Was the binding made on the path leading here?"""
        state: Optional[FlowState] = self
        while state is not None:
            if binding in state.events:
                return True
            state = state.parent
        return False

    def named_events_of(self, binding: Binding) -> frozenset:
        state: Optional[FlowState] = self
        while state is not None:
            if binding in state.named:
                return state.named[binding]
            state = state.parent
        return frozenset()

    def held_of(self, name: str) -> frozenset:
        state: Optional[FlowState] = self
        while state is not None:
            if name in state.held:
                return state.held[name]
            state = state.parent
        return frozenset()

    def retired_of(self, binding: Binding) -> frozenset:
        state: Optional[FlowState] = self
        while state is not None:
            if binding in state.retired:
                return state.retired[binding]
            state = state.parent
        return frozenset()

    def bind(self, name: str, bindings: frozenset) -> None:
        for dropped in self.lookup(name) - bindings:
            self.named[dropped] = frozenset()
        self.names[name] = bindings

    def add_event(self, binding: Binding, event: InplaceEvent) -> None:
        self.events[binding] = self.events_of(binding) | {event}

    def child(self) -> "FlowState":
        return FlowState(self)

    def merge(self, branches: list["FlowState"]) -> None:
        """Make self the join of `branches` (children of self)."""
        live = [branch for branch in branches if branch.reachable]
        if not live:
            self.reachable = False
            return
        for name in set().union(*(branch.names for branch in live)):
            self.names[name] = frozenset().union(*(branch.lookup(name) for branch in live))
        for binding in set().union(*(branch.events for branch in live)):
            self.events[binding] = frozenset().union(*(branch.events_of(binding) for branch in live))
        for binding in set().union(*(branch.named for branch in live)):
            self.named[binding] = frozenset().union(*(branch.named_events_of(binding) for branch in live))
        for name in set().union(*(branch.held for branch in live)):
            self.held[name] = frozenset().union(*(branch.held_of(name) for branch in live))
        # A binding stops watching a storage once the statement that makes it ran again on any path
        # (precision first): after the join, the name that reaches the storage may hold the new
        # tensor on that path, and nothing of the old one on the others (`x = layer(x, x_prev)` on
        # one branch, `x_prev, x = x, layer(x)` on another).
        for binding in set().union(*(branch.retired for branch in live)):
            self.retired[binding] = frozenset().union(*(branch.retired_of(binding) for branch in live))


@dataclass
class FunctionFacts:
    node: FunctionNode
    name: str
    class_name: Optional[str]
    number: int = -1  # its place in the module (the top level 0, then each def in order; -1 a lambda)
    parameters: list[Binding] = field(default_factory=list)
    bindings: list[Binding] = field(default_factory=list)
    reads: dict[cst.Name, Read] = field(default_factory=dict)
    # keyed by (node, target): one call may write several tensors (`f(x, out=y)`)
    inplace_events: dict[tuple, InplaceEvent] = field(default_factory=dict)
    escapes: list[Escape] = field(default_factory=list)
    # binding -> the in-place events that reached it on some path while it was in use
    events_reaching: dict = field(default_factory=dict)
    # statements in walk order
    statement_order: dict[cst.CSTNode, int] = field(default_factory=dict)
    # statement -> False under no_grad/inference_mode, True under enable_grad, None: the function's mode
    grad_mode: dict[cst.CSTNode, Optional[bool]] = field(default_factory=dict)
    # statement -> enclosing loop statements, outermost first
    loops_of: dict[cst.CSTNode, tuple] = field(default_factory=dict)
    # statement -> the tests of the enclosing `if`s that ask what something is (`isinstance(x, Tensor)`)
    type_tests_of: dict[cst.CSTNode, tuple] = field(default_factory=dict)
    # call -> the statement it is evaluated in
    call_statement: dict[cst.Call, cst.CSTNode] = field(default_factory=dict)
    # small statement (`x.add_(1)`) -> the line holding it
    line_of_statement: dict[cst.CSTNode, cst.CSTNode] = field(default_factory=dict)
    # False for functions decorated with @torch.no_grad() / @torch.inference_mode()
    decorated_grad_enabled: Optional[bool] = None
    # Aliases put into local containers (`outs.append(x)`, `outs = [x]`, `d["k"] = x`): bindings of
    # kind "held", named after the container, whose value is the expression put in.
    held: list[Binding] = field(default_factory=list)
    # Copies consumed at once by an op that makes a new tensor anyway (`x.clone() * s`).
    consumed_copies: list["ConsumedCopy"] = field(default_factory=list)
    # Copies assigned into an item of a tensor (`adv[i] = a[j].clone()`).
    stored_copies: list["StoredCopy"] = field(default_factory=list)
    _indexes: Optional["_FunctionIndex"] = field(default=None, repr=False)

    def bindings_at(self, name: Optional[cst.Name]) -> frozenset:
        """The assignments that may reach a name where it is read."""
        read = self.reads.get(name) if name is not None else None
        return read.bindings if read is not None else frozenset()

    def written_through(self, event: InplaceEvent, binding: Binding) -> bool:
        """Was the write made through `binding`'s name, or a name derived from it by aliasing?"""
        return self.derives_from(self.bindings_at(root_name(event.target)), binding)

    def derives_from(self, bindings: Iterable[Binding], binding: Binding) -> bool:
        """Is one of `bindings` the binding itself, or made from it by aliasing (`y = x`, a view, a detach)?"""
        pending = list(bindings)
        seen: set = set()
        while pending:
            candidate = pending.pop()
            if candidate is binding:
                return True
            if candidate in seen or candidate.made_by != "alias":
                continue
            seen.add(candidate)
            if candidate.value is not None:
                pending.extend(self.bindings_at(root_name(candidate.value)))
            elif candidate.kind == "requires_grad":
                pending.extend(b for b in self.bindings if b.name == candidate.name and b is not candidate)
        return False

    # The queries below are answered from indexes built once, after the walk: rules ask them
    # for every binding, and a scan per question would make a long function quadratic.

    def reads_of(self, binding: Binding) -> list[Read]:
        return self._index().reads_by_binding.get(binding, [])

    def escapes_of(self, storages: Iterable[Storage]) -> list[Escape]:
        by_storage = self._index().escapes_by_storage
        found = {id(escape): escape for storage in storages for escape in by_storage.get(storage, ())}
        return list(found.values())

    def reads_of_storage(self, storage: Storage) -> list[Read]:
        return self._index().reads_by_storage.get(storage, [])

    def events_on(self, storages: Iterable[Storage]) -> list[InplaceEvent]:
        by_storage = self._index().events_by_storage
        found = {id(event): event for storage in overlapping(storages) for event in by_storage.get(storage, ())}
        return sorted(found.values(), key=lambda event: event.order)

    def _index(self) -> "_FunctionIndex":
        if self._indexes is None:
            self._indexes = _FunctionIndex.of(self)
        return self._indexes

    @staticmethod
    def replaces_its_source(binding: Binding) -> bool:
        """`x = x.detach()`, `x = x.view(...)`: the name is rebound to an alias of what it named,
        so from here on it names the alias; the old tensor is reachable only through other names."""
        source = root_name(binding.value) if binding.value is not None else None
        return binding.made_by == "alias" and source is not None and source.value == binding.name

    def order_of(self, statement: cst.CSTNode) -> int:
        return self.statement_order.get(statement, -1)


def position_in_target(binding: Binding) -> Optional[int]:
    """Where an unpacked name stands in its target: 1 for `pred` in `_, pred = out.max(1)`."""
    statement = binding.statement
    targets = []
    if type(statement) is cst.Assign:
        targets = [target.target for target in statement.targets]
    elif type(statement) is cst.For:
        targets = [statement.target]
    for target in targets:
        if type(target) in (cst.Tuple, cst.List):
            for position, element in enumerate(target.elements):
                if element.value is binding.target:
                    return position
    return None


def returned_parts(function: FunctionFacts, position: Optional[int]) -> Optional[list]:
    """(return statement, the element it writes out at `position`) for every `return` of the function
    (`return model, train_loader, test_loader`); None where one of them does not write it out."""
    parts = []
    for statement in function.statement_order:
        if type(statement) is not cst.Return:
            continue
        returned = statement.value
        if position is None or type(returned) not in (cst.Tuple, cst.List) or position >= len(returned.elements) \
                or any(type(element) is cst.StarredElement for element in returned.elements):
            return None
        parts.append((statement, returned.elements[position].value))
    return parts


def unpacked_part(binding: Binding):
    """What an unpacked name gets where the value is written out element by element: `z_.cuda()`
    for `z_` in `x_, z_ = x_.cuda(), z_.cuda()`; None when that is not in sight."""
    value = binding.value
    position = position_in_target(binding) if binding.kind == "unpack" else None
    if position is None or type(value) not in (cst.Tuple, cst.List) or position >= len(value.elements) \
            or any(type(element) is cst.StarredElement for element in value.elements):
        return None
    return value.elements[position].value


@dataclass(eq=False)
class ConsumedCopy:
    """`x.clone()` (or `torch.clone(x)`, maybe through views of the copy) fed straight into an op
    that makes a new tensor from it (`*`, `.repeat()`, `torch.cat([...])`): nothing else sees the copy."""

    clone: cst.Call
    source: cst.Name
    consumer: cst.CSTNode  # the operation (a BinaryOperation, UnaryOperation or Call)
    how: str  # the op, for messages: "`*`", "`.repeat()`", "`torch.cat()`"
    statement: cst.CSTNode
    # What the clone copies: `x`, or a view of it (`x.detach()`, `x[0]`): the fix puts it back.
    cloned: Optional[cst.BaseExpression] = None
    # A copy handed to a function, method or class of the file rather than consumed by an op
    # (`gram_matrix(out.clone())`): (position among the positional arguments or None, keyword).
    # Whether that callee leaves the argument alone is for the rule to ask (its summary).
    argument: Optional[tuple] = None


@dataclass(eq=False)
class StoredCopy:
    """`adv[i] = a.clone()` into a tensor: the item assignment copies the values into `adv` at
    once, and the clone, which no name holds, is dropped. `a` and `adv` are known to be distinct
    storages (`buf[1:] = buf[:-1].clone()` needs its copy: the two views overlap)."""

    clone: cst.Call
    cloned: cst.BaseExpression
    target: cst.Subscript
    statement: cst.CSTNode


@dataclass
class _FunctionIndex:
    reads_by_binding: dict
    reads_by_storage: dict
    events_by_storage: dict
    escapes_by_storage: dict

    @classmethod
    def of(cls, facts: "FunctionFacts") -> "_FunctionIndex":
        reads_by_binding: dict = {}
        reads_by_storage: dict = {}
        for read in facts.reads.values():
            storages = set()
            for binding in read.bindings:
                reads_by_binding.setdefault(binding, []).append(read)
                storages |= binding.storages
            for storage in storages:
                reads_by_storage.setdefault(storage, []).append(read)
        events_by_storage: dict = {}
        for event in facts.inplace_events.values():
            for storage in event.storages:
                events_by_storage.setdefault(storage, []).append(event)
        escapes_by_storage: dict = {}
        for escape in facts.escapes:
            for storage in {s for binding in escape.bindings for s in binding.storages}:
                escapes_by_storage.setdefault(storage, []).append(escape)
        return cls(reads_by_binding, reads_by_storage, events_by_storage, escapes_by_storage)


class FunctionWalker:
    """Computes FunctionFacts for one function body."""

    def __init__(self, facts: FunctionFacts, names: TorchNames, typing: TensorTyping, callees: Callees) -> None:
        self.facts = facts
        self.names = names
        self.typing = typing
        self.callees = callees
        self._bindings: dict[cst.CSTNode, Binding] = {}
        self._storages: dict[cst.CSTNode, Storage] = {}
        self._watchers: dict[Storage, list[Binding]] = {}
        self._loops: tuple = ()  # the enclosing loop statements (a tuple: every statement and binding keeps it)
        self._grad: Optional[bool] = None
        self._statement: cst.CSTNode = facts.node
        self._breaks: list[list[FlowState]] = []
        self._attribute_storages: dict[str, Storage] = {}
        # `x[0]`, `x[2]`: the item at a constant position of a tracked value, one per (whole, position)
        self._item_storages: dict[tuple, Storage] = {}
        self._name_uses: Optional[dict] = None  # syntax.name_uses of the function, once a loop asks
        # ids of the `while` loops whose test holds on entry (`done = False`, then `while not done:`)
        self._entered_loops: set = set()
        self._shape_only: set = set()  # ids of the names read for their shape only (`z` of `x.view_as(z)`)
        # Bindings whose value has been read so far in the walk.
        self._read_bindings: set = set()
        # Bindings shown to hold tensors by how they are used (`x.clone()`, `F.relu(x)`).
        self._used_as_tensor: set = set()
        self._type_tests = 0  # depth of branches under `isinstance(...)` and the like
        self._type_test_nodes: list = []  # the tests of those branches, outermost first
        # Local containers: the bindings that made them, the names that may hold aliases, the
        # "held" binding of each expression put in, and the constant key it was put under.
        self._container_bindings: set = set()
        self._held_names: set = set()
        self._held_bindings: dict[cst.CSTNode, Binding] = {}
        self._held_key: dict[Binding, Optional[str]] = {}
        # Container names loaded for something other than their values (`outs.append(v)`, `len(outs)`).
        self._not_values: set = set()

    # ----------------------------------------------------------------- entry

    def run(self, parameters: Iterable[tuple[cst.Param, Tensorness]]) -> FunctionFacts:
        state = FlowState()
        for param, tensorness in parameters:
            binding = self._binding(param.name, param.name.value, None, "param", param, tensorness)
            if tensorness is not Tensorness.NOT:
                # Unknown parameters get a storage too, so that a helper writing its argument
                # in place (`def clip_(t): t.clamp_(...)`) is seen as doing so.
                binding.storages = frozenset({self._storage(param, param.name.value)})
            self._watch(binding)
            state.events[binding] = frozenset()
            self.facts.parameters.append(binding)
            state.bind(param.name.value, frozenset({binding}))
        node = self.facts.node
        if type(node) is cst.Lambda:
            # A lambda is one returned expression, walked as `return <body>` (a statement made
            # here: what it holds are the lambda's own nodes).
            statements = [cst.SimpleStatementLine(body=[cst.Return(value=node.body)])]
        else:
            statements = node.body if type(node) is cst.Module else _block(node.body)
        self._walk_block(statements, state)
        self._tensorness_from_use()
        return self.facts

    # Kinds of binding whose tensorness a use may decide (not imports, definitions, exceptions).
    _USE_DECIDES = frozenset({"param", "assign", "walrus", "unpack", "loop", "with"})

    def _mark_used_as_tensor(self, call: cst.Call, qualified: Optional[str], state: FlowState) -> None:
        if self._type_tests:
            return
        name = name_used_as_tensor(call, qualified)
        if name is None:
            return
        for binding in state.lookup(name.value):
            if binding.tensorness is Tensorness.UNKNOWN and binding.kind in self._USE_DECIDES:
                binding.tensorness = Tensorness.LIKELY
                self._used_as_tensor.add(binding)

    def _tensorness_from_use(self) -> None:
        """After the walk: a name used as a tensor anywhere in the function holds one from its
        assignment on, and so do the names made from it before the use (`skip = x; x.relu_()`);
        so does what a container holds, when the name put in is one."""
        if not self._used_as_tensor:
            return
        for binding in self._used_as_tensor:  # a loop's second pass may have reset them
            if binding.tensorness is Tensorness.UNKNOWN:
                binding.tensorness = Tensorness.LIKELY

        def lookup(name: cst.Name) -> Tensorness:
            bindings = self.facts.bindings_at(name)
            return combine(binding.tensorness for binding in bindings) if bindings else Tensorness.UNKNOWN

        for _ in range(2):  # twice, for values that flow around a loop
            for binding in self.facts.bindings:
                if binding.tensorness is Tensorness.UNKNOWN and binding.value is not None \
                        and binding.kind in ("assign", "walrus"):
                    found = self.typing.of(binding.value, lookup)
                    if found.is_tensor:
                        binding.tensorness = Tensorness.LIKELY
        for held in self.facts.held:
            if held.tensorness is Tensorness.UNKNOWN and self.typing.of(held.value, lookup).is_tensor:
                held.tensorness = Tensorness.LIKELY

    # ------------------------------------------------------------ statements

    def _walk_block(self, statements: Iterable[cst.CSTNode], state: FlowState) -> None:
        previous: list = []
        for statement in statements:
            if not state.reachable:
                return
            if type(statement) is cst.While and _test_holds_on_entry(statement.test, previous):
                self._entered_loops.add(id(statement))
            self._walk_statement(statement, state)
            previous.append(statement)

    def _enter(self, statement: cst.CSTNode) -> None:
        self._statement = statement
        self.facts.statement_order.setdefault(statement, len(self.facts.statement_order))
        self.facts.grad_mode[statement] = self._grad
        self.facts.loops_of[statement] = self._loops
        if self._type_test_nodes:
            self.facts.type_tests_of[statement] = tuple(self._type_test_nodes)

    def _walk_statement(self, statement: cst.CSTNode, state: FlowState) -> None:
        self._enter(statement)
        if type(statement) in (cst.SimpleStatementLine, cst.SimpleStatementSuite):
            for small in statement.body:
                self._enter(small)
                self.facts.line_of_statement[small] = statement
                self._walk_small(small, state)
        elif type(statement) is cst.If:
            self._walk_if(statement, state)
        elif type(statement) in (cst.For, cst.While):
            self._walk_loop(statement, state)
        elif type(statement) is cst.With:
            outer_grad = self._grad
            for item in statement.items:
                self._evaluate(item.item, state)
                mode = grad_mode_of_context(item.item, self.names)
                if mode is not None:
                    self._grad = mode
                if item.asname is not None:
                    self._assign(item.asname.name, None, state, kind="with")
            self._walk_block(_block(statement.body), state)
            self._grad = outer_grad
        elif type(statement) in (cst.Try, cst.TryStar):
            self._walk_try(statement, state)
        elif type(statement) in (cst.FunctionDef, cst.ClassDef):
            for decorator in statement.decorators:
                self._evaluate(decorator.decorator, state)
            self._assign(statement.name, None, state, kind="def")
        elif type(statement) is cst.Match:
            self._evaluate(statement.subject, state)
            branches = []
            for case in statement.cases:
                branch = state.child()
                self._walk_block(_block(case.body), branch)
                branches.append(branch)
            branches.append(state.child())
            state.merge(branches)
        else:
            for child in child_nodes(statement):
                if is_expression(child):
                    self._evaluate(child, state)

    def _walk_small(self, small: cst.CSTNode, state: FlowState) -> None:
        if type(small) is cst.Assign:
            self._evaluate(small.value, state)
            for target in small.targets:
                self._assign(target.target, small.value, state)
        elif type(small) is cst.AnnAssign:
            if small.value is not None:
                self._evaluate(small.value, state)
                self._assign(small.target, small.value, state)
        elif type(small) is cst.AugAssign:
            self._walk_augassign(small, state)
        elif type(small) is cst.Expr:
            self._evaluate(small.value, state)
            if type(small.value) is cst.Call:
                if self.names.qualified_name(small.value.func) == "torch.set_grad_enabled":
                    # The plain-call form switches grad mode for the rest of the function.
                    mode = grad_mode_of_context(small.value, self.names)
                    if mode is not None:
                        self._grad = mode
                self._switch_requires_grad(small.value, state)
        elif type(small) is cst.Return:
            if small.value is not None:
                self._evaluate(small.value, state)
                self._escape(small.value, state, "returned")
            state.reachable = False
        elif type(small) is cst.Raise:
            if small.exc is not None:
                self._evaluate(small.exc, state)
            state.reachable = False
        elif type(small) in (cst.Break, cst.Continue):
            if type(small) is cst.Break and self._breaks:
                snapshot = state.child()
                self._breaks[-1].append(snapshot)
            state.reachable = False
        elif type(small) is cst.Del:
            pass
        elif type(small) in (cst.Import, cst.ImportFrom):
            names = small.names if type(small.names) is not cst.ImportStar else []
            for alias in names:
                local = alias.asname.name if alias.asname is not None else alias.name
                if type(local) is cst.Name:
                    self._assign(local, None, state, kind="import")
        else:
            for child in child_nodes(small):
                if is_expression(child):
                    self._evaluate(child, state)

    def _walk_if(self, statement: cst.If, state: FlowState) -> None:
        self._evaluate(statement.test, state)
        type_test = tests_type(statement.test)
        self._type_tests += type_test
        if type_test:
            self._type_test_nodes.append(statement.test)
        then_state = state.child()
        self._walk_block(_block(statement.body), then_state)
        else_state = state.child()
        if type(statement.orelse) is cst.If:
            self._walk_statement(statement.orelse, else_state)
        elif type(statement.orelse) is cst.Else:
            self._walk_block(_block(statement.orelse.body), else_state)
        self._type_tests -= type_test
        if type_test:
            self._type_test_nodes.pop()
        state.merge([then_state, else_state])

    def _walk_loop(self, statement: Union[cst.For, cst.While], state: FlowState) -> None:
        if type(statement) is cst.For:
            self._evaluate(statement.iter, state)
        self._loops = self._loops + (statement,)
        passes = 2 if len(self._loops) <= MAX_LOOP_REWALK_DEPTH else 1
        head = state.child()
        body_end = head
        breaks: list[FlowState] = []
        for _ in range(passes):
            self._breaks.append(breaks)
            body_state = head.child()
            if type(statement) is cst.For:
                self._assign_loop_target(statement, body_state)
            else:
                self._evaluate(statement.test, body_state)
            self._walk_block(_block(statement.body), body_state)
            self._breaks.pop()
            body_end = body_state
            # The next iteration starts from either the entry or the end of this one.
            head.merge([head.child(), body_end])
            head.reachable = True
        self._loops = self._loops[:-1]
        # The loop is left from its head (no pass at all, or after the last), or by a `break`; a loop
        # the code relies on to run at least once is left after a pass.
        # (Not where a `continue` may end a pass: its state is not followed to the head.)
        after_a_pass = body_end.reachable and self._runs_at_least_once(statement) \
            and not any(type(node) is cst.Continue for node in walk(statement.body))
        exits = [body_end if after_a_pass else head, *breaks]
        if statement.orelse is not None:
            else_state = head.child()
            self._walk_block(_block(statement.orelse.body), else_state)
            exits[0] = else_state
        state.merge([self._adopt(state, exit_state) for exit_state in exits])

    def _runs_at_least_once(self, loop: Union[cst.For, cst.While]) -> bool:
        """Does the code rely on the `for` loop running at least once: a name bound only in its body is
        read outside it (`for _ in range(steps): lolip = ...`, then `best = lolip.detach()`), which
        would fail unbound after a loop that never ran? Then no path leaves the loop without a pass
        (a restart's step loop does not leave the previous restart's `lolip` in place)."""
        if loop.orelse is not None:
            return False
        if type(loop) is cst.While:
            return id(loop) in self._entered_loops
        if self._name_uses is None:
            self._name_uses = name_uses(self.facts.node) if type(self.facts.node) is not cst.Lambda else {}
        inside = {id(node) for node in walk(loop.body)}
        return any(binders and reads and all(id(binder) in inside for binder in binders)
                   and any(id(read) not in inside for read in reads)
                   for binders, reads in self._name_uses.values())

    def _walk_try(self, statement: Union[cst.Try, cst.TryStar], state: FlowState) -> None:
        body_state = state.child()
        self._walk_block(_block(statement.body), body_state)
        if statement.orelse is not None:
            self._walk_block(_block(statement.orelse.body), body_state)
        branches = [body_state]
        for handler in statement.handlers:
            # An exception may leave the body at any point: start from entry and end joined.
            handler_state = state.child()
            handler_state.merge([handler_state.child(), self._adopt(handler_state, body_state)])
            handler_state.reachable = True
            if handler.type is not None:
                self._evaluate(handler.type, handler_state)
            if handler.name is not None:
                self._assign(handler.name.name, None, handler_state, kind="except")
            self._walk_block(_block(handler.body), handler_state)
            branches.append(handler_state)
        state.merge(branches)
        if statement.finalbody is not None:
            was_reachable = state.reachable
            state.reachable = True
            self._walk_block(_block(statement.finalbody.body), state)
            state.reachable = state.reachable and was_reachable

    @staticmethod
    def _adopt(ancestor: FlowState, other: FlowState) -> FlowState:
        """A child of `ancestor` carrying everything `other` changed between them."""
        adopted = ancestor.child()
        adopted.reachable = other.reachable
        chain = []
        state: Optional[FlowState] = other
        while state is not None and state is not ancestor:
            chain.append(state)
            state = state.parent
        for link in reversed(chain):
            adopted.names.update(link.names)
            adopted.events.update(link.events)
            adopted.named.update(link.named)
            adopted.held.update(link.held)
            adopted.retired.update(link.retired)
        return adopted

    def _walk_augassign(self, statement: cst.AugAssign, state: FlowState) -> None:
        self._evaluate(statement.value, state)
        target = statement.target
        if type(target) is cst.Name:
            container = self._is_local_container(target, state)
            if container:
                self._not_values.add(target)  # `outs += [x]` extends the list, reads nothing of it
            self._record_read(target, state)
            tensorness = self._name_tensorness(target, state)
            storages = self._storages_of_name(target.value, state)
            if not writes_in_place(statement):
                self._assign(target, statement, state, kind="augassign")
                return
            if tensorness is Tensorness.NOT and storages:
                # A NumPy view of a tensor (`a = x.numpy()`): `a += 1` writes the tensor's memory.
                tensorness = Tensorness.SURE
            if tensorness is Tensorness.NOT:
                held = state.held_of(target.value)
                self._assign(target, statement, state, kind="augassign")
                if container:
                    # The same list, extended: it keeps what it held, and holds the new items too.
                    self._container_bindings.update(state.lookup(target.value))
                    state.held[target.value] = held
                    if type(statement.value) in (cst.List, cst.Tuple):
                        for element, _ in _container_items(statement.value):
                            self._hold(target, element, state)
                return
            certainty = "sure" if tensorness.is_tensor else "maybe"
            operator = AUGMENTED_OPERATORS.get(type(statement.operator).__name__, "op=")
            self._event(statement, storages, "augassign", f"`{target.value} {operator} ...`",
                        state, certainty=certainty, target=target)
            if not tensorness.is_tensor:
                # If it was a number after all, `+=` made a new value: keep both readings.
                self._assign(target, statement, state, kind="augassign", keep_previous=True)
        elif not writes_in_place(statement):
            self._evaluate(target, state)  # `x[i] @= m`, `x.data @= m`: set to a new tensor, as an assignment is
        elif type(target) is cst.Subscript:
            self._evaluate(target, state)
            self._write_into(target.value, target, "setitem", state)
            self._mark_store(target.value)
        elif type(target) is cst.Attribute:
            self._evaluate(target.value, state)
            if target.attr.value == "data":
                # `x.data -= lr * g` runs `x.data.__isub__(...)`, an in-place write of `x`'s memory (then sets
                # `x.data` to that same tensor), as `x.data.sub_(...)` is: every alias of `x` sees it.
                operator = AUGMENTED_OPERATORS.get(type(statement.operator).__name__, "op=")
                self._write_into(target, statement, "augassign", state,
                                 description=f"`{_code(target)} {operator} ...`",
                                 certainty="sure" if self.typing.of(
                                     target.value, lambda name: self._name_tensorness(name, state)).is_tensor
                                 else "maybe")

    # ----------------------------------------------------------- assignment

    def _assign(self, target: cst.CSTNode, value, state: FlowState, kind: str = "assign",
                keep_previous: bool = False) -> None:
        if type(target) is cst.Name:
            self._bind_name(target, value, state, kind, keep_previous)
        elif type(target) in (cst.Tuple, cst.List):
            values = None
            if type(value) in (cst.Tuple, cst.List) and len(value.elements) == len(target.elements) \
                    and not any(type(e) is cst.StarredElement for e in value.elements) \
                    and not _names_in(target) & _names_in(value):
                values = [element.value for element in value.elements]  # `a, b = x, y`: pairwise
            for position, element in enumerate(target.elements):
                inner = element.value
                if type(inner) is cst.StarredElement:
                    inner = inner.value
                if values is not None:
                    self._assign(inner, values[position], state, kind)
                else:
                    # `fake, aux = G(z)`: each name holds part of the value (a view, for `x.chunk(2)`),
                    # also nested (`(x1, y1), (x2, y2) = data`).
                    part = value if is_expression(value) and kind in ("assign", "unpack") else None
                    self._assign(inner, part, state, kind="unpack" if kind == "assign" else kind)
        elif type(target) is cst.StarredElement:
            self._assign(target.value, None, state, kind)
        elif type(target) is cst.Attribute:
            self._evaluate(target.value, state)
            if target.attr.value == "requires_grad" and type(target.value) is cst.Name \
                    and is_expression(value):
                self._rebind_requires_grad(target.value, value, state)
            elif target.attr.value == "data" and type(target.value) is cst.Name and is_expression(value) \
                    and state.lookup(target.value.value):
                self._rebind_data(target.value, value, state)
            elif value is not None and is_expression(value):
                self._escape(value, state, f"stored on {dotted_name(target) or 'an attribute'}")
        elif type(target) is cst.Subscript:
            self._evaluate(target, state)
            if not _keyed_by_a_string(target):  # a tensor takes no string key: `outputs["q"] = ...` fills a dict
                self._write_into(target.value, target, "setitem", state,
                                 description=f"`{_code(target.value)}[...] = ...`")
            self._mark_store(target.value)
            if value is not None and is_expression(value):
                container = self.typing.of(target.value, lambda name: self._name_tensorness(name, state))
                if not container.is_tensor:
                    self._escape(value, state, "put in a container")
                    if type(target.value) is cst.Name:
                        self._hold(target.value, value, state, _constant_key(target))
                elif type(value) is cst.Call and not self._argument_as_passed(target.value, container, state):
                    self._note_stored_copy(target, value, state)

    def _rebind_data(self, name: cst.Name, value: cst.BaseExpression, state: FlowState) -> None:
        """`adv.data = adv.data + step * g.sign()`: the tensor stays itself (a leaf, with its grad) but
        holds the value's memory from now on, so what aliased its old memory (`adv = img.detach()`) no
        longer sees writes through it, and what aliases the value does."""
        leaves = {(binding.leaf, binding.leaf_origin) for binding in state.lookup(name.value)}
        self._bind_name(name, value, state, "assign", keep_previous=False)
        if len(leaves) == 1:
            leaf, origin = leaves.pop()
            for binding in state.lookup(name.value):
                binding.leaf, binding.leaf_origin = binding.leaf or leaf, binding.leaf_origin or origin

    def _note_stored_copy(self, target: cst.Subscript, value: cst.Call, state: FlowState) -> None:
        """`adv[i] = a[j].clone()` into a tensor whose storage is not the one copied from."""
        clone, cloned = _clone_in_view_chain(value, self.names)
        if clone is None:
            return
        written = self._shared_storages(target.value, state)
        if not written or any(storage.description.startswith("self.") for storage in written):
            return  # `self.buf[i] = ...`, `x.grad[...]`: where the values go is not known here
        source = _viewed_name(cloned, self.names, any_index=True)
        read = self._storages_of_name(source.value, state) if source is not None else frozenset()
        if not read or read & written:
            return  # the same storage (`buf[1:] = buf[:-1].clone()`: overlapping views), or unknown
        # Two arguments may be views of one tensor (`shift(x, x[1:])`): one side must be a tensor
        # this function made, which nothing from outside can alias.
        destination = root_name(target.value)
        if not any(self._made_here(name, state) for name in (source, destination) if name is not None):
            return
        self.facts.stored_copies.append(StoredCopy(clone, cloned, target, self._statement))

    @staticmethod
    def _made_here(name: cst.Name, state: FlowState) -> bool:
        """Does `name` surely hold a tensor this function made (a new one or a copy)?"""
        bindings = state.lookup(name.value)
        return bool(bindings) and all(binding.kind == "assign" and binding.made_by in ("new", "copy")
                                      for binding in bindings)

    def _bind_name(self, target: cst.Name, value, state: FlowState, kind: str, keep_previous: bool) -> None:
        expression = value if is_expression(value) else None
        if expression is not None:
            lookup = lambda name: self._name_tensorness(name, state)  # noqa: E731
            # `vals, vecs = torch.linalg.eigh(m)`: each name holds a part of the value.
            tensorness = self.typing.parts_of(expression, lookup) if kind == "unpack" \
                else self.typing.of(expression, lookup)
            module_output = type(expression) is cst.Call and self.callees.is_module_call(expression, state)
            if tensorness is Tensorness.UNKNOWN and module_output:
                tensorness = Tensorness.LIKELY
        else:
            tensorness = Tensorness.UNKNOWN
        binding = self._binding(target, target.value, expression, kind, self._statement, tensorness)
        if expression is not None:
            storages, copied_from, made_by = self._storages_of_value(expression, target, state, tensorness,
                                                                     part=kind == "unpack")
            binding.storages = binding.storages | storages
            binding.source_storages = binding.source_storages | copied_from
            binding.made_by = made_by
            binding.leaf, binding.leaf_origin = self._leaf_of(expression, made_by, state)
            binding.module_output = module_output
        binding.loops = self._loops
        if expression is not None:
            self._renew(binding, {storage for storage in binding.storages
                                  if storage.origin is expression or storage.origin is target}, state)
        self._watch(binding)
        # A fresh assignment starts with no writes behind it (matters when a loop body is walked again).
        state.events[binding] = frozenset()
        state.named[binding] = frozenset()
        previous = state.lookup(target.value) if keep_previous else frozenset()
        state.bind(target.value, previous | {binding})
        if target.value in self._held_names and not keep_previous:
            state.held[target.value] = frozenset()  # a new container (or none): it holds nothing yet
        if expression is not None and type(expression) in (cst.Tuple, cst.List, cst.Dict, cst.Set):
            self._escape(expression, state, "put in a container")
        if expression is not None and type(expression) in CONTAINER_LITERALS and kind in ("assign", "walrus"):
            self._container_bindings.add(binding)
            for element, key in _container_items(expression):
                self._hold(target, element, state, key)

    def _renew(self, binding: Binding, storages, state: FlowState) -> None:
        """`binding` makes `storages` afresh (again, in a loop's next iteration): whoever still names
        the tensor an earlier run made stops watching them on this path. The walk names a storage
        after the expression that makes it, so without this an alias of the previous iteration's
        `m` (`best = m`) would be taken for one of the next (`m = update(m); m.add_(1)`). The parts of
        what it made are made afresh with it: `best = loss.cpu()[0]` names the earlier `loss`'s element."""
        if state.retired_of(binding):
            state.retired[binding] = frozenset()
        for storage in _with_parts(storages):
            for watcher in self._watchers.get(storage, ()):
                if watcher is not binding and state.knows(watcher) and storage not in state.retired_of(watcher):
                    state.retired[watcher] = state.retired_of(watcher) | {storage}

    # ------------------------------------------------------------ containers

    def _is_local_container(self, name: cst.Name, state: FlowState) -> bool:
        """Does `name` surely hold a list, tuple, dict or set this function made (`outs = []`)?"""
        bindings = state.lookup(name.value)
        return bool(bindings) and all(binding in self._container_bindings for binding in bindings)

    def _hold(self, container: cst.Name, value, state: FlowState, key: Optional[str] = None) -> None:
        """The local container now holds `value`; if that shares a storage with a name (`x`, a view
        of it), a write through the name changes what the container holds. A constant key (`d["k"]`,
        `outs[0]`) replaces what was held under it; anything else accumulates."""
        if not is_expression(value) or not self._is_local_container(container, state):
            return
        if key is not None and container.value in self._held_names:
            # `d["k"] = v`: whatever was held under "k" is gone, whether v is an alias or not.
            state.held[container.value] = frozenset(
                other for other in state.held_of(container.value) if self._held_key.get(other) != key)
        storages = self._shared_storages(value, state)
        if not storages:
            return
        tensorness = self.typing.of(value, lambda name: self._name_tensorness(name, state))
        binding = self._held_bindings.get(value)
        if binding is None:
            binding = Binding(container.value, value, value, "held", self._statement, tensorness,
                              serial=(self.facts.number, -1 - len(self.facts.held)))
            self._held_bindings[value] = binding
            self.facts.held.append(binding)
        else:
            binding.tensorness = combine([binding.tensorness, tensorness])
        binding.storages = binding.storages | storages
        binding.made_by = "alias"
        binding.loops = self._loops
        self._watch(binding)
        state.events[binding] = frozenset()
        state.named[binding] = frozenset()
        if state.retired_of(binding):
            state.retired[binding] = frozenset()
        self._held_key[binding] = key
        held = state.held_of(container.value)
        if key is not None:
            held = frozenset(other for other in held if self._held_key.get(other) != key)
        state.held[container.value] = held | {binding}
        self._held_names.add(container.value)

    def _hold_through_method(self, receiver: cst.Name, method: str, call: cst.Call, state: FlowState) -> None:
        """`outs.append(x)`, `outs.insert(0, x)`, `outs.extend([x, y])`, `seen.add(x)`."""
        positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
        if method in ("append", "add", "put", "put_nowait") and positional:
            self._hold(receiver, positional[0], state)
        elif method == "insert" and len(positional) == 2:
            self._hold(receiver, positional[1], state)
        elif method == "extend" and positional and type(positional[0]) in (cst.List, cst.Tuple):
            for element, _ in _container_items(positional[0]):
                self._hold(receiver, element, state)

    def _leaf_of(self, value: cst.BaseExpression, made_by: str, state: FlowState):
        """(leaf kind, origin node) for a value that is a leaf requiring grad, else ("", None)."""
        if made_by == "alias":
            if goes_through_detach(value):
                return "", None
            root = root_name(value)
            if root is not None:
                bindings = state.lookup(root.value)
                if bindings and all(binding.leaf for binding in bindings):
                    first = next(iter(bindings))
                    # `y = w` is the leaf itself; `w[0]`, `w.view(...)` are views of it.
                    return (first.leaf if type(value) is cst.Name else "view"), first.leaf_origin
            return "", None
        if type(value) is cst.Call:
            func = value.func
            if type(func) is cst.Attribute and func.attr.value == "requires_grad_" and not _keyword_is_false(value, "requires_grad") \
                    and not (value.args and type(value.args[0].value) is cst.Name and value.args[0].value.value == "False"):
                return "requires_grad_", value  # `w = torch.randn(3).requires_grad_()`
            qualified = self.names.qualified_name(value.func)
            if qualified in PARAMETER_CLASSES:
                if parameter_requires_grad(value):
                    return "parameter", value
            elif qualified is not None and (qualified.rpartition(".")[2] in LEAF_FACTORIES or qualified in VARIABLE_CLASSES):
                if _keyword_is_true(value, "requires_grad"):
                    return "factory", value
        return "", None

    def _assign_loop_target(self, statement: cst.For, state: FlowState) -> None:
        """`for p in model.parameters()` / `for name, p in model.named_parameters()`: p is a leaf."""
        iterator = statement.iter
        # `for row in x.unbind(0)`: each row is a view of x.
        splits = type(iterator) is cst.Call and type(iterator.func) is cst.Attribute \
            and iterator.func.attr.value in SPLITTING_VIEWS
        self._assign(statement.target, iterator if splits else None, state, kind="loop")
        if not (type(iterator) is cst.Call and type(iterator.func) is cst.Attribute):
            return
        method = iterator.func.attr.value
        target = statement.target
        if method == "parameters" and type(target) is cst.Name:
            name = target
        elif method == "named_parameters" and type(target) is cst.Tuple and len(target.elements) == 2 \
                and type(target.elements[1].value) is cst.Name:
            name = target.elements[1].value
        else:
            return
        binding = self._bindings[name]
        binding.tensorness = Tensorness.SURE
        binding.storages = frozenset({self._storage(name, name.value)})
        binding.made_by = "new"
        binding.leaf, binding.leaf_origin = "parameter", iterator
        self._renew(binding, binding.storages, state)  # each iteration names another parameter
        self._watch(binding)

    def _switch_requires_grad(self, call: cst.Call, state: FlowState) -> None:
        """`x.requires_grad_()` / `x.requires_grad_(False)` on a name: from here on x is (not) a leaf requiring
        grad. `x.detach_()` makes x a leaf that does not require grad, like `requires_grad_(False)`."""
        func = call.func
        if type(func) is cst.Attribute and func.attr.value == "requires_grad_" and type(func.value) is cst.Name:
            flag = call.args[0].value if call.args else cst.Name("True")
            self._rebind_requires_grad(func.value, flag, state, origin=call)
        elif type(func) is cst.Attribute and func.attr.value == "detach_" and type(func.value) is cst.Name:
            self._rebind_requires_grad(func.value, cst.Name("False"), state, origin=call)

    def _rebind_requires_grad(self, name: cst.Name, flag: cst.BaseExpression, state: FlowState,
                              origin: Optional[cst.CSTNode] = None) -> None:
        previous = state.lookup(name.value)
        switched_on = type(flag) is cst.Name and flag.value == "True"
        switched_off = type(flag) is cst.Name and flag.value == "False"
        if not previous or not (switched_on or switched_off):
            return
        # A leaf the code made (`nn.Parameter(...)`) is a tensor, whatever its typing says.
        if not all(binding.tensorness.is_tensor or binding.leaf or (switched_on and self._takes_the_flag(binding))
                   for binding in previous):
            return
        origin = origin or self._statement
        tensorness = combine(b.tensorness for b in previous)
        if switched_on and not tensorness.is_tensor:
            tensorness = Tensorness.LIKELY  # it took the flag: a tensor (see _takes_the_flag)
        binding = self._binding(origin, name.value, name, "requires_grad", self._statement, tensorness)
        binding.storages = frozenset().union(*(b.storages for b in previous))
        binding.made_by = "alias"
        binding.leaf, binding.leaf_origin = ("requires_grad_", origin) if switched_on else ("", None)
        binding.loops = self._loops
        self._watch(binding)
        state.events[binding] = frozenset()
        state.named[binding] = frozenset()
        state.bind(name.value, frozenset({binding}))

    def _takes_the_flag(self, binding: Binding) -> bool:
        """`x.requires_grad = True` where what `x` holds is not typed (`x = start.clone()` of an
        argument, `torch.FloatTensor(...)`, `Variable(...)`, an argument): only a tensor has the flag,
        so it holds one, unless it may be a module (whose `requires_grad` is a plain attribute):
        a name that reads as a network, or a value built by a class or an unknown factory."""
        if binding.tensorness is not Tensorness.UNKNOWN or reads_as_network(binding.name) \
                or any(word in binding.name.lower() for word in MODULE_WORDS):
            return False
        if binding.kind == "param":
            return True  # loop variables are left out: `for layer in net.children()` is a common one
        value = binding.value
        if binding.kind not in ("assign", "walrus") or value is None:
            return False
        if type(value) in (cst.Subscript, cst.BinaryOperation):
            return True
        if type(value) is not cst.Call:
            return False
        qualified = self.names.qualified_name(value.func)
        if qualified is not None:
            module, _, name = qualified.rpartition(".")
            return qualified in VARIABLE_CLASSES or (module in ("torch", "torch.cuda") and name.endswith("Tensor"))
        if type(value.func) is cst.Attribute and value.func.attr.value in TENSOR_RETURNING_METHODS:
            receiver = root_name(value.func.value)
            return receiver is not None and not reads_as_network(receiver.value) \
                and type(value.func.value) is not cst.Call
        return False

    def _binding(self, target, name, value, kind, statement, tensorness) -> Binding:
        binding = self._bindings.get(target)
        if binding is None:
            binding = Binding(name, target, value, kind, statement, tensorness,
                              serial=(self.facts.number, len(self.facts.bindings)))
            self._bindings[target] = binding
            self.facts.bindings.append(binding)
        else:
            binding.tensorness = combine([binding.tensorness, tensorness])
        return binding

    def _storage(self, origin: cst.CSTNode, description: str) -> Storage:
        storage = self._storages.get(origin)
        if storage is None:
            storage = self._storages[origin] = Storage(origin, description)
        return storage

    def _watch(self, binding: Binding) -> None:
        for storage in binding.watched_storages:
            watchers = self._watchers.setdefault(storage, [])
            if binding not in watchers:
                watchers.append(binding)

    # ------------------------------------------------------------- storages

    def _storages_of_name(self, name: str, state: FlowState) -> frozenset:
        return frozenset().union(*(binding.storages for binding in state.lookup(name)))

    def _storages_of_value(self, expr, target: cst.Name, state: FlowState, tensorness: Tensorness,
                           part: bool = False):
        """(storages the value shares, storages it was copied from, how it was made). `part`: the
        target takes one part of the value (`vals, vecs = torch.linalg.eigh(m)`,
        `rc, gc, bc = (...).unbind(0)`): the parts of a new value are storages of their own (distinct
        tensors, or disjoint views of a tensor nobody names), so a write to one is not one to another."""
        shared = self._shared_storages(expr, state)
        if shared and part and self._splits_into_disjoint_views(expr, state):
            return frozenset({self._part_storage(target, shared)}), frozenset(), \
                "may-alias" if _may_copy(expr) else "alias"
        if shared:
            return shared, frozenset(), "may-alias" if _may_copy(expr) else "alias"
        origin = target if part else expr
        # A view of a value we do not track (`self.head(x).squeeze(-1)`) is a new value here.
        copied = self._copied_storages(expr, state)
        if copied:
            return frozenset({self._storage(origin, target.value)}), copied, "copy"
        if tensorness.is_tensor:
            return frozenset({self._storage(origin, target.value)}), frozenset(), "new"
        if tensorness is Tensorness.UNKNOWN and type(expr) in (cst.BinaryOperation, cst.UnaryOperation):
            # Arithmetic makes a new value, a tensor when its operands are (which the function's
            # use of them may show only after the walk: `h = a * w + b; g = h.clone()`).
            return frozenset({self._storage(origin, target.value)}), frozenset(), "new"
        if tensorness is Tensorness.UNKNOWN and type(expr) in (cst.Call, cst.Subscript, cst.Attribute):
            # Possibly a tensor (`logits = model(x)` with an unknown model): track its storage so
            # that aliases made from it (`logits.detach()`) are seen; rules still ask for tensorness.
            return frozenset({self._storage(origin, target.value)}), frozenset(), ""
        return frozenset(), frozenset(), ""

    def _counts_through_a_range(self, name: cst.Name, state: FlowState) -> bool:
        """Is `name` surely an int: the variable of every loop that binds it is `for n in range(...)`
        (so `x[n]` is a view of `x`, not a copy)?"""
        bindings = state.lookup(name.value)
        return bool(bindings) and all(
            binding.kind == "loop" and type(binding.target) is cst.Name and type(binding.statement) is cst.For
            and binding.statement.target is binding.target and type(binding.statement.iter) is cst.Call
            and self.names.qualified_name(binding.statement.iter.func) in (None, "range")
            and dotted_name(binding.statement.iter.func) == "range"
            for binding in bindings)

    def _splits_into_disjoint_views(self, expr, state: FlowState) -> bool:
        """Are the parts of `expr`, unpacked, views that share no element: the rows of a tensor
        (`gi, gj = gij.T`) or its pieces (`xs, ys = points.unbind(1)`)?"""
        if type(expr) is cst.Call:
            func = expr.func
            qualified = self.names.qualified_name(func)
            if qualified is not None:
                return qualified.startswith("torch.") and qualified.rpartition(".")[2] in SPLITTING_VIEWS
            if type(func) is cst.Attribute and func.attr.value in SPLITTING_VIEWS:
                return True
            if type(func) is cst.Attribute and func.attr.value in VIEW_METHODS:
                return True  # what a view method returns is one tensor (or array), whoever calls it
        if type(expr) is cst.Attribute and expr.attr.value in ("T", "mT", "H", "mH"):
            return True  # a transpose is one tensor (or array)
        return self.typing.of(expr, lambda name: self._name_tensorness(name, state)).is_tensor

    def _part_storage(self, target: cst.Name, wholes: frozenset) -> Storage:
        storage = self._storage(target, target.value)
        if not storage.within:
            storage.within = wholes
            for whole in wholes:
                whole.parts.append(storage)
        return storage

    def _item_storage(self, whole: Storage, cut: tuple[int, int, Optional[int]]) -> Storage:
        """The part of `whole` at a constant position or range of a dimension (`state[0]`, `x[:, :, :, 1]`,
        `x[:, :, :4]`): a write to `state[2][i]` leaves it as it was, since distinct positions of a
        tensor (rows, channels) or of a list (items) share nothing."""
        key = (whole, cut)
        storage = self._item_storages.get(key)
        if storage is None:
            axis, start, stop = cut
            shown = str(start) if type(start) is int and stop == start + 1 else \
                f"{start or ''}:{'' if stop is None else stop}"
            shown = f"{':, ' * axis}{shown}" if axis >= 0 else f"..., {shown}{', :' * (-axis - 1)}"
            storage = self._item_storages[key] = Storage(whole.origin, f"{whole.description}[{shown}]",
                                                         within=frozenset({whole}), axis=axis, span=(start, stop))
            whole.parts.append(storage)
        return storage

    def _shared_storages(self, expr, state: FlowState) -> Optional[frozenset]:
        """The storages `expr` aliases, or None when it makes a new value."""
        if type(expr) is cst.Name:
            return self._storages_of_name(expr.value, state)
        if type(expr) is cst.Attribute and type(expr.value) is cst.Name and expr.value.value == "self" \
                and expr.attr.value not in ("data", "T", "mT", "H", "mH", "real", "imag"):
            # `self.weight`: one storage per attribute, so writes to module state are events too.
            label = f"self.{expr.attr.value}"
            if label not in self._attribute_storages:
                self._attribute_storages[label] = Storage(expr, label)
            return frozenset({self._attribute_storages[label]})
        if type(expr) is cst.Attribute and expr.attr.value in ("data", "T", "mT", "H", "mH", "real", "imag"):
            return self._shared_storages(expr.value, state) or frozenset()
        if type(expr) is cst.Subscript:
            if self._indexes_a_full_reduction(expr, state):
                return None
            if _is_basic_index(expr, lambda name: self._counts_through_a_range(name, state)):
                wholes = self._shared_storages(expr.value, state) or frozenset()
                cut = constant_cut(expr)
                if cut is None or not wholes:
                    return wholes
                return frozenset(self._item_storage(whole, cut) for whole in wholes)
            return None
        if type(expr) is cst.IfExp:
            body = self._shared_storages(expr.body, state)
            orelse = self._shared_storages(expr.orelse, state)
            if body is None and orelse is None:
                return None
            return (body or frozenset()) | (orelse or frozenset())
        if type(expr) is cst.Call:
            func = expr.func
            if type(func) is cst.Attribute and self.names.qualified_name(func) is None:
                method = func.attr.value
                if method in MAY_ALIAS_METHODS and _keyword_is_true(expr, "copy"):
                    return None  # `x.to(dtype, copy=True)` always copies
                if method in VIEW_METHODS or is_inplace_method_name(method) or method in MAY_ALIAS_METHODS:
                    return self._shared_storages(func.value, state) or frozenset()
            qualified = self.names.qualified_name(func)
            if qualified is not None and expr.args:
                module, _, function = qualified.rpartition(".")
                if module == "torch" and (function in VIEW_FUNCTIONS or is_inplace_method_name(function)):
                    return self._shared_storages(expr.args[0].value, state) or frozenset()
            # A layer that writes its input returns it (torch's in-place modules do); a function of
            # the file that writes its argument returns whatever it returns.
            effect = self.callees.effect(expr, state)
            if (effect.kind == "identity" or (effect.kind == "writes" and effect.layer and effect.returns_input)) \
                    and len(expr.args) > effect.argument:
                return self._shared_storages(expr.args[effect.argument].value, state) or frozenset()
        return None

    def _indexes_a_full_reduction(self, subscript: cst.Subscript, state: FlowState) -> bool:
        """`loss.data[0]`, `loss.data.cpu()[0]` where every binding of `loss` on this path is a full
        reduction (`.sum()`, `torch.mean(x)`): PyTorch before 0.4's way to read a number (`.item()`
        since), which gives no view: an integer index of a 0-dim tensor raises an IndexError today."""
        if type(single_index(subscript)) is not cst.Integer:
            return False
        base = subscript.value
        while True:
            if type(base) is cst.Attribute and base.attr.value == "data":
                base = base.value
            elif type(base) is cst.Call and not base.args and type(base.func) is cst.Attribute \
                    and base.func.attr.value in MAY_ALIAS_METHODS:
                base = base.func.value
            else:
                break
        if type(base) is not cst.Name:
            return False
        bindings = [binding for binding in state.lookup(base.value) if binding.kind != "augassign"]
        return bool(bindings) and all(self._full_reduction(binding.value) for binding in bindings)

    def _full_reduction(self, value) -> bool:
        """`x.sum()`, `(a - b).pow(2).mean()`, `torch.sum(x)`: a reduction over every element (no `dim`)."""
        if type(value) is not cst.Call or any(arg.keyword is not None and arg.keyword.value == "dim"
                                               for arg in value.args):
            return False
        if type(value.func) is cst.Attribute and self.names.qualified_name(value.func) is None:
            return value.func.attr.value in FULL_REDUCTIONS and not value.args
        qualified = self.names.qualified_name(value.func) or ""
        module, _, function = qualified.rpartition(".")
        return module == "torch" and function in FULL_REDUCTIONS and len(value.args) == 1

    def _copied_storages(self, expr, state: FlowState) -> frozenset:
        if type(expr) is cst.Call:
            func = expr.func
            qualified = self.names.qualified_name(func)
            if qualified == "torch.clone" and expr.args:
                return self._shared_storages(expr.args[0].value, state) or frozenset()
            if type(func) is cst.Attribute and qualified is None and func.attr.value in COPY_METHODS:
                return self._shared_storages(func.value, state) or frozenset()
        return frozenset()

    # ----------------------------------------------------------- expressions

    def _evaluate(self, expr: cst.CSTNode, state: FlowState) -> None:
        """Record reads and in-place events inside an expression, in evaluation order."""
        # Exact type tests (libcst's classes are ABCs, whose isinstance is slow): this runs on
        # every expression node of every function.
        kind = type(expr)
        if kind is cst.Name:
            if expr.value not in ("True", "False", "None"):
                self._record_read(expr, state, use="metadata" if id(expr) in self._shape_only else "value")
            return
        if kind in CHILDLESS:  # a literal, an operator: nothing below it to read or write
            return
        if kind is cst.Arg:
            self._evaluate(expr.value, state)
            return
        if kind in _OWN_SCOPE:
            self._evaluate_comprehension(expr, state)
            return
        if kind is cst.NamedExpr:
            self._evaluate(expr.value, state)
            self._assign(expr.target, expr.value, state, kind="walrus")
            return
        if kind is cst.Attribute:
            if type(expr.value) is cst.Name and expr.attr.value in METADATA_ATTRIBUTES:
                self._record_read(expr.value, state, use="metadata")
                return
            self._evaluate(expr.value, state)
            return
        if kind is cst.Call and type(expr.func) is cst.Attribute \
                and type(expr.func.value) is cst.Name and expr.func.attr.value in METADATA_METHODS | IDENTITY_METHODS:
            use = "metadata" if expr.func.attr.value in METADATA_METHODS else "identity"
            self._record_read(expr.func.value, state, use=use)
            for arg in expr.args:
                self._evaluate(arg.value, state)
            self.facts.call_statement[expr] = self._statement
            return
        if kind is cst.Call and type(expr.func) is cst.Attribute and expr.func.attr.value in SHAPE_TAKERS \
                and expr.args and type(expr.args[0].value) is cst.Name:
            # `x.view_as(z)`: only the shape (and type) of `z` is read; the call is evaluated as any other.
            self._shape_only.add(id(expr.args[0].value))
        if kind is cst.Call and type(expr.func) is cst.Name and expr.func.value == "id" and len(expr.args) == 1 \
                and type(expr.args[0].value) is cst.Name:
            self._record_read(expr.args[0].value, state, use="identity")
            return
        if kind is cst.Comparison and all(isinstance(target.operator, (cst.Is, cst.IsNot))
                                          for target in expr.comparisons) \
                and all(type(operand) is cst.Name and operand.value != "None"
                        for operand in (expr.left, *(target.comparator for target in expr.comparisons))):
            for operand in (expr.left, *(target.comparator for target in expr.comparisons)):  # `y is x`
                self._record_read(operand, state, use="identity")
            return
        if kind is cst.IfExp and tests_type(expr.test):
            # `x.clone() if isinstance(x, torch.Tensor) else x`: the use proves nothing.
            self._type_tests += 1
            for child in child_nodes(expr):
                self._evaluate(child, state)
            self._type_tests -= 1
            return
        if kind is cst.Yield and is_expression(expr.value):
            self._evaluate(expr.value, state)
            self._escape(expr.value, state, "yielded")
            return
        if kind is cst.Call:
            func = expr.func
            if type(func) is cst.Attribute and type(func.value) is cst.Name and func.attr.value in CONTAINER_MUTATORS:
                self._not_values.add(func.value)  # `outs.append(v)` changes the list, reads none of it
            elif type(func) is cst.Name and func.value == "len" and len(expr.args) == 1 \
                    and type(expr.args[0].value) is cst.Name:
                self._not_values.add(expr.args[0].value)
        for child in child_nodes(expr):
            self._evaluate(child, state)
        if kind is cst.Call:
            self._call(expr, state)
            self._note_consumed_copies(expr, kind)
        elif kind is cst.BinaryOperation or kind is cst.UnaryOperation:
            self._note_consumed_copies(expr, kind)

    def _note_consumed_copies(self, expr, kind) -> None:
        """`x.clone() * s`, `x.clone().unsqueeze(0).repeat(n, 1)`, `torch.cat([x.clone(), y])`: a copy
        that an op turns into a new tensor at once, so that no name ever holds it."""
        # Runs for every operation and call: look for a call among the operands before anything else.
        if kind is cst.BinaryOperation:
            if type(expr.left) is not cst.Call and type(expr.right) is not cst.Call:
                return
            operands = (expr.left, expr.right)
        elif kind is cst.UnaryOperation:
            if type(expr.expression) is not cst.Call or type(expr.operator) not in (cst.Minus, cst.BitInvert):
                return  # `+t` returns t itself
            operands = (expr.expression,)
        else:
            func = expr.func
            if type(func) is cst.Attribute and func.attr.value in NEW_TENSOR_METHODS:
                if type(func.value) is not cst.Call or self.names.qualified_name(func) is not None:
                    return
                operands = (func.value,)
            else:
                qualified = self.names.qualified_name(func) if expr.args else None
                if qualified is None and expr.args and (type(func) is cst.Name or (
                        type(func) is cst.Attribute and type(func.value) in (cst.Name, cst.Attribute))):
                    self._note_passed_copies(expr)  # `f(x.clone())`, `self.loss(x.clone())`, `obj.m(x.clone())`
                    return
                if qualified not in NEW_TENSOR_FUNCTIONS or any(
                        arg.keyword is not None and arg.keyword.value in ("out", "inplace") for arg in expr.args):
                    return
                operands = []
                for arg in expr.args:
                    if arg.keyword is not None or arg.star:
                        continue
                    if qualified in SEQUENCE_FUNCTIONS and type(arg.value) in (cst.List, cst.Tuple):
                        operands.extend(element.value for element in arg.value.elements
                                        if type(element) is not cst.StarredElement)
                    else:
                        operands.append(arg.value)
        for operand in operands:
            if type(operand) is not cst.Call:
                continue
            found = copy_in_view_chain(operand, self.names)
            if found is not None:
                clone, source, cloned = found
                self.facts.consumed_copies.append(
                    ConsumedCopy(clone, source, expr, _consumer_name(expr, kind), self._statement, cloned))

    def _note_passed_copies(self, call: cst.Call) -> None:
        """`gram_matrix(out.clone())`, `StyleLoss(out.clone())`, `self.score(h.clone())`: a copy
        handed straight to a function, class or method that may be the file's (the rule reads its
        summary; a callee it cannot read keeps the copy needed)."""
        position = 0
        for arg in call.args:
            if arg.star:
                return  # which parameter receives what is unknown from here on
            keyword = arg.keyword.value if arg.keyword is not None else None
            if type(arg.value) is cst.Call:
                found = copy_in_view_chain(arg.value, self.names)
                if found is not None and found[0] is arg.value:
                    clone, source, cloned = found
                    self.facts.consumed_copies.append(ConsumedCopy(
                        clone, source, call, f"`{_code(call.func)}()`", self._statement, cloned,
                        argument=(None if keyword else position, keyword)))
            if keyword is None:
                position += 1

    def _evaluate_comprehension(self, expr, state: FlowState) -> None:
        # Comprehensions have their own scope; only the outer names they read matter here.
        local = set()
        for node in walk(expr):
            if type(node) is cst.CompFor:
                for target in walk(node.target):
                    if type(target) is cst.Name:
                        local.add(target.value)
            if type(node) is cst.Param:
                local.add(node.name.value)
        for node in walk(expr):
            if type(node) is cst.Call:
                self.facts.call_statement.setdefault(node, self._statement)
            if type(node) is cst.Name and node.value not in local:
                if node in self.facts.reads or state.lookup(node.value):
                    self._record_read(node, state)

    def _call(self, call: cst.Call, state: FlowState) -> None:
        self.facts.call_statement[call] = self._statement
        func = call.func
        qualified = self.names.qualified_name(func)
        self._mark_used_as_tensor(call, qualified, state)
        for arg in call.args:
            if arg.keyword is not None and arg.keyword.value == "out":
                # torch's own functions write `out=` where autograd sees it; another callee's
                # `out=` is a convention that it may keep under no_grad, or not keep at all.
                self._write_into(arg.value, call, "out", state, description="`out=` argument",
                                 certainty="sure" if qualified is not None else "maybe")
        if qualified is not None:
            self._torch_call(call, qualified, state)
            return
        if type(func) is cst.Attribute and not (
                (func.attr.value in CONTAINER_METHODS or func.attr.value.endswith("_"))
                and self.callees.calls_a_method_of_the_file(call, state)):
            method = func.attr.value
            receiver = func.value
            receiver_tensorness = self.typing.of(receiver, lambda name: self._name_tensorness(name, state))
            if is_inplace_method_name(method) and receiver_tensorness is not Tensorness.NOT:
                # `clamp_`, `add_`...: only tensors have these methods, whatever we knew of the receiver.
                sure = receiver_tensorness.is_tensor or method in INPLACE_TENSOR_METHODS
                self._write_into(receiver, call, "method", state, description=f"`{_code(receiver)}.{method}()`",
                                 certainty="sure" if sure else "maybe")
                return
            if method in CONTAINER_METHODS and not self.callees.is_layer_call(call, state):
                if type(receiver) is cst.Name:
                    self._hold_through_method(receiver, method, call, state)
                for arg in call.args:
                    self._escape(arg.value, state, f"passed to .{method}()")
                return
            if method == "clear" and type(receiver) is cst.Name and receiver.value in self._held_names \
                    and self._is_local_container(receiver, state):
                state.held[receiver.value] = frozenset()
                return
        effect = self.callees.effect(call, state)
        if self.callees.constructs_a_class_of_the_file(call, state):
            # An object of a class of this file (a dataclass of results, a module given its buffer):
            # it keeps what it is given, and whoever holds the object may write it.
            for arg in call.args:
                self._escape(arg.value, state, f"kept by {func.value}()")
        written = effect.written()
        if written and any(arg.star for arg in call.args):
            written = ()  # which argument lands where is unknown: whatever is passed may be written
            effect = OPAQUE
        if written:
            kind = "module" if effect.layer else "callee"
            for entry in written:
                argument = argument_at(call, entry.position, entry.name)
                if argument is None:
                    continue
                certainty = entry.certainty
                if certainty == "pure":
                    continue
                if certainty == "opaque":
                    self._opaque_argument(call, argument, state)
                    continue
                if certainty == "tensor":
                    passed = self.typing.of(argument, lambda name: self._name_tensorness(name, state))
                    certainty = "sure" if passed.is_tensor else "maybe"
                if entry.what == "list":
                    self._write_into_items(argument, call, kind, state, effect.description, certainty)
                else:
                    self._write_into(argument, call, kind, state, description=effect.description,
                                     certainty=certainty, without_grad=effect.without_grad, through=entry.through,
                                     through_detach=entry.through_detach)
        elif effect.kind == "opaque":
            for arg in call.args:
                self._opaque_argument(call, arg.value, state)

    def _opaque_argument(self, call: cst.Call, argument, state: FlowState) -> None:
        """An argument handed to a callee that may do anything with it: write it, keep it."""
        callee = dotted_name(call.func) or "an unknown callee"
        # An unknown layer (`self.body(x)`) is told apart from an unknown function: a
        # function handed a tensor is more often there to change it.
        kind = "opaque-module" if self.callees.is_layer_call(call, state) else "opaque"
        storages = self._shared_storages(argument, state) or frozenset()
        if storages:
            self._event(call, storages, kind, f"{callee}()", state, certainty="opaque", target=argument)
        self._escape(argument, state, f"passed to {callee}()")

    def _torch_call(self, call: cst.Call, qualified: str, state: FlowState) -> None:
        module, _, function = qualified.rpartition(".")
        written = written_arguments(qualified)
        if written:
            # `torch.relu_(x)`, `nn.init.normal_(w)`, `dist.all_reduce(y)`, `torch._foreach_mul_(bufs, m)`.
            kind = "collective" if module.startswith("torch.distributed") else "functional"
            description = f"`{_code(call.func)}()`"
            for position, name, what in written:
                argument = argument_at(call, position, name)
                if argument is None:
                    continue
                if what == "list":
                    self._write_into_items(argument, call, kind, state, description, "sure")
                else:
                    self._write_into(argument, call, kind, state, description=description)
            return
        if not call.args:
            return
        first = call.args[0].value
        if module == "torch.nn.functional" and function in INPLACE_FUNCTION_ARGUMENT:
            position = INPLACE_FUNCTION_ARGUMENT[function]
            if _argument_is_true(call, "inplace", position):
                self._write_into(first, call, "functional", state,
                                 description=f"`F.{function}(..., inplace=True)`")
            elif _argument_is_variable(call, "inplace", position):
                self._write_into(first, call, "functional", state, certainty="maybe",
                                 description=f"`F.{function}(..., inplace=...)`")
        if qualified in ("torch.save",):
            for arg in call.args:
                self._escape(arg.value, state, "passed to torch.save()")

    def _write_into(self, target, node, kind: str, state: FlowState, description: str = "",
                    certainty: str = "sure", without_grad: bool = False, through: str = "",
                    through_detach: bool = False) -> None:
        storages = self._shared_storages(target, state) or frozenset()
        through_unknown_index = False
        if not storages and type(target) is cst.Subscript and not _surely_advanced_index(target):
            # `target[idx][j] = q`, `target[:, idx].add_(v)`: `target[idx]` is a view when `idx` is an
            # int (a loop counter, a dict's entry), a copy when it is a tensor of indices; which, the
            # code does not say, so the write may reach `target`.
            storages = self._shared_storages(target.value, state) or frozenset()
            certainty, through_unknown_index = "maybe", True
        if not storages:
            return
        if certainty == "sure" and self._converted_to_integers(target, state):
            certainty = "maybe"
        label = dotted_name(target) or "a tensor"
        self._event(node, storages, kind, description or f"write into {label}", state,
                    certainty=certainty, target=target, without_grad=without_grad, through=through,
                    through_detach=through_detach, through_unknown_index=through_unknown_index)

    def _converted_to_integers(self, target, state: FlowState, depth: int = 0) -> bool:
        """Does `target` reach the storage it shares only through a conversion to integers (`gij =
        gxy.long()`, then `gi, gj = gij.T`)? That conversion copies a floating-point tensor, which
        coordinates and scores are, and aliases only one that holds integers already."""
        name = root_name(target)
        if name is None or depth > 4:
            return False
        bindings = state.lookup(name.value)
        return bool(bindings) and all(
            binding.made_by in ("alias", "may-alias") and binding.value is not None
            and (_converts_to_integers(binding.value) or self._converted_to_integers(binding.value, state, depth + 1))
            for binding in bindings)

    def _write_into_items(self, container, node, kind: str, state: FlowState, description: str,
                          certainty: str) -> None:
        """A callee writes every tensor of a list it is handed (`dist.all_gather(outs, x)`): the
        items of a list written in place, or the aliases a local container holds."""
        if type(container) in (cst.List, cst.Tuple):
            for element, _ in _container_items(container):
                self._write_into(element, node, kind, state, description=description, certainty=certainty)
        elif type(container) is cst.Name and container.value in self._held_names:
            storages = frozenset().union(*(held.storages for held in state.held_of(container.value)))
            if storages:
                self._event(node, storages, kind, description, state, certainty=certainty, target=container)

    def _event(self, node, storages: frozenset, kind: str, description: str, state: FlowState,
               certainty: str = "sure", target=None, without_grad: bool = False, through: str = "",
               through_detach: bool = False, through_unknown_index: bool = False) -> None:
        key = (node, target, certainty)
        event = self.facts.inplace_events.get(key)
        if event is None:
            event = InplaceEvent(node, self._statement, storages, kind, description, certainty, target,
                                 order=len(self.facts.inplace_events), without_grad=without_grad, through=through,
                                 through_detach=through_detach, through_unknown_index=through_unknown_index)
            self.facts.inplace_events[key] = event
        else:
            event.storages = event.storages | storages
        # Every binding on this path watching the storage learns of the write while its name still
        # holds it, or once its value has been read (autograd may have saved it, another name may
        # hold it); a binding made only on another branch does not. A binding rebound before any
        # read on this path is dead here: `identity = x.clone()` then, on one branch,
        # `identity = self.downsample(x)`, and writes to `x` on that branch concern no one. A
        # container's alias is held until the container is rebound or the key overwritten.
        for storage in overlapping(storages):
            for watcher in self._watchers.get(storage, ()):
                if not state.knows(watcher) or storage in state.retired_of(watcher):
                    continue
                named = watcher in (state.held_of(watcher.name) if watcher.kind == "held"
                                    else state.lookup(watcher.name))
                if watcher in self._read_bindings or (named and (watcher.kind == "held"
                                                                 or not self._rebinds(watcher.name))):
                    state.add_event(watcher, event)
                    self.facts.events_reaching.setdefault(watcher, set()).add(event)
                    if named:
                        state.named[watcher] = state.named_events_of(watcher) | {event}

    def _rebinds(self, name: str) -> bool:
        """Does the statement being walked assign `name` (`identity = self.downsample(x)`)?"""
        statement = self._statement
        if type(statement) is cst.Assign:
            return any(type(target.target) is cst.Name and target.target.value == name for target in statement.targets)
        return False

    def _escape(self, expr, state: FlowState, how: str) -> None:
        """Record the bindings whose storage `expr` hands on as it is (not a value computed from it)."""
        bindings: set = set()
        for name in self._handed_on_names(expr):
            bindings |= state.lookup(name.value)
        if bindings:
            self.facts.escapes.append(Escape(expr, frozenset(bindings), how))

    def _handed_on_names(self, expr) -> Iterator[cst.Name]:
        """`y`, `(y, z)`, `[y]`, `y.view(...)`, `y[0]`: names whose storage the expression is or holds."""
        if type(expr) is cst.Name:
            yield expr
        elif type(expr) in (cst.Tuple, cst.List, cst.Set):
            for element in expr.elements:
                yield from self._handed_on_names(element.value)
        elif type(expr) is cst.Dict:
            for element in expr.elements:
                if type(element) is cst.DictElement:
                    yield from self._handed_on_names(element.value)
        elif type(expr) is cst.StarredElement:
            yield from self._handed_on_names(expr.value)
        elif type(expr) is cst.IfExp:
            yield from self._handed_on_names(expr.body)
            yield from self._handed_on_names(expr.orelse)
        elif type(expr) is cst.Subscript:
            yield from self._handed_on_names(expr.value)
        elif type(expr) is cst.Attribute and expr.attr.value in ("data", "T", "mT"):
            yield from self._handed_on_names(expr.value)
        elif type(expr) is cst.Call and type(expr.func) is cst.Attribute \
                and self.names.qualified_name(expr.func) is None \
                and (expr.func.attr.value in VIEW_METHODS or is_inplace_method_name(expr.func.attr.value)):
            yield from self._handed_on_names(expr.func.value)

    def _mark_store(self, base) -> None:
        """`x[i] = v`: the name x is written through here, not read."""
        if type(base) is cst.Name and base in self.facts.reads:
            self.facts.reads[base].use = "store"

    def _record_read(self, name: cst.Name, state: FlowState, use: str = "value") -> None:
        bindings = state.lookup(name.value)
        self._read_bindings.update(bindings)
        # This runs for every name read in every function: no generators, and one binding
        # (the common case) read without a union (the order of the storages does not matter:
        # they only decide which watchers get an entry).
        events_since = {}
        named_events = {}
        if len(bindings) == 1:
            for binding in bindings:
                storages = binding.storages
        else:
            storages = frozenset().union(*[binding.storages for binding in bindings]) if bindings else frozenset()
        for binding in bindings:
            events_since[binding] = state.events_of(binding)
            named_events[binding] = state.named_events_of(binding)
        if storages:
            watchers = self._watchers
            for storage in storages:
                for watcher in watchers.get(storage, ()):
                    if watcher not in events_since:
                        events_since[watcher] = state.events_of(watcher)
        held_events = {}
        if name.value in self._held_names and use == "value" and name not in self._not_values:
            held_events = {held: state.named_events_of(held) for held in state.held_of(name.value)}
        previous = self.facts.reads.get(name)
        if previous is not None:
            bindings = bindings | previous.bindings
            for watcher, events in previous.events_since.items():
                events_since[watcher] = events_since.get(watcher, frozenset()) | events
            for binding, events in previous.named_events.items():
                named_events[binding] = named_events.get(binding, frozenset()) | events
            for held, events in previous.held.items():
                held_events[held] = held_events.get(held, frozenset()) | events
        self.facts.reads[name] = Read(name, self._statement, bindings, events_since, use, named_events, held_events)

    def _argument_as_passed(self, target: cst.BaseExpression, tensorness: Tensorness, state: FlowState) -> bool:
        """Is `target` an argument, as it was passed, that is only likely a tensor (a network's
        `forward(self, noised_and_cover)`)? It may be a list, whose item assignment keeps the object.
        A clone of one (`adv = x.clone()`) is surely a tensor."""
        return tensorness is not Tensorness.SURE and type(target) is cst.Name and \
            any(binding.kind == "param" for binding in state.lookup(target.value))

    def _name_tensorness(self, name: cst.Name, state: FlowState) -> Tensorness:
        bindings = state.lookup(name.value)
        if not bindings:
            return Tensorness.UNKNOWN
        return combine(binding.tensorness for binding in bindings)


LEAF_FACTORIES = frozenset(
    """
    ones zeros randn rand empty full tensor arange linspace logspace eye randint randperm
    ones_like zeros_like randn_like rand_like empty_like full_like randint_like as_tensor normal
    empty_strided scalar_tensor
    """.split()
)
PARAMETER_CLASSES = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
# The pre-0.4 wrapper: `Variable(data, requires_grad=True)` is a leaf like a factory made so.
VARIABLE_CLASSES = frozenset({"torch.autograd.Variable", "torch.autograd.variable.Variable"})
# Parts of names that say "a module" (whose `requires_grad` attribute is a plain one, not the flag).
MODULE_WORDS = ("module", "layer", "block", "head", "stage", "cell", "model", "net")
GRAD_OFF_CONTEXTS = frozenset({"torch.no_grad", "torch.inference_mode", "torch.autograd.no_grad",
                               "torch.autograd.grad_mode.no_grad", "torch.autograd.inference_mode"})
GRAD_ON_CONTEXTS = frozenset({"torch.enable_grad", "torch.autograd.enable_grad"})


def grad_mode_of_context(expr: cst.BaseExpression, names: TorchNames) -> Optional[bool]:
    """False for `torch.no_grad()` and friends, True for `torch.enable_grad()`, None otherwise."""
    if type(expr) is cst.BooleanOperation and type(expr.operator) is cst.And and type(expr.left) is cst.Call:
        # `with np.errstate(...) and torch.no_grad():`: an object is true, so `and` gives the last one, the
        # only context the block enters.
        return grad_mode_of_context(expr.right, names)
    call = expr if type(expr) is cst.Call else None
    qualified = names.qualified_name(call.func if call is not None else expr)
    if qualified in GRAD_OFF_CONTEXTS:
        if qualified.endswith("inference_mode") and call is not None and call.args \
                and type(call.args[0].value) is cst.Name and call.args[0].value.value == "False":
            return None
        return False
    if qualified in GRAD_ON_CONTEXTS:
        return True
    if qualified in ("torch.set_grad_enabled", "torch.autograd.set_grad_enabled") and call is not None and call.args:
        flag = call.args[0].value
        if type(flag) is cst.Name and flag.value in ("True", "False"):
            return flag.value == "True"
    return None


def _consumer_name(expr, kind) -> str:
    """How a message names the op that consumes a copy: "`*`", "unary `-`", "`.repeat()`", "`torch.cat()`"."""
    if kind is cst.BinaryOperation:
        return f"`{_EMPTY_MODULE.code_for_node(expr.operator).strip()}`"
    if kind is cst.UnaryOperation:
        return f"unary `{_EMPTY_MODULE.code_for_node(expr.operator).strip()}`"
    if type(expr.func) is cst.Attribute and type(expr.func.value) is not cst.Name:
        return f"`.{expr.func.attr.value}()`"
    return f"`{_code(expr.func)}()`"


def clone_source(value, names: TorchNames) -> Optional[cst.BaseExpression]:
    """`x` for `x.clone()` / `torch.clone(x)` with the default memory format, else None (a layout
    change, `memory_format=torch.channels_last`, is a real copy)."""
    if type(value) is not cst.Call:
        return None
    if names.qualified_name(value.func) == "torch.clone":
        positional = [arg for arg in value.args if arg.keyword is None]
        source = positional[0].value if len(positional) == 1 and not positional[0].star else None
    elif type(value.func) is cst.Attribute and value.func.attr.value == "clone" \
            and names.qualified_name(value.func) is None:
        positional = [arg for arg in value.args if arg.keyword is None]
        source = value.func.value if not positional else None
    else:
        return None
    for arg in value.args:
        if arg.keyword is None:
            continue
        if arg.keyword.value != "memory_format" or names.qualified_name(arg.value) != "torch.preserve_format":
            return None
    return source


def copy_in_view_chain(expr, names: TorchNames) -> Optional[tuple]:
    """(the clone call, the name cloned, the expression cloned) for `x.clone()` or a view of it
    (`x.clone().unsqueeze(0)`, `x.clone()[0]`), where what is cloned is `x` or a view of it
    (`x.detach().clone()`, `x[0].clone()`), else None. A `.view()` after the clone of a view is
    left out: the clone made the values contiguous, and `.view()` of the strided view may fail."""
    clone, cloned = _clone_in_view_chain(expr, names)
    if clone is None:
        return None
    if cloned is not expr and _views_after(expr, clone) and not _plain_alias(cloned):
        return None
    source = _viewed_name(cloned, names)
    return (clone, source, cloned) if source is not None else None


def _clone_in_view_chain(expr, names: TorchNames) -> tuple:
    """(the clone call, what it clones) for `c` or a view of `c`, where `c` is `X.clone()` or
    `torch.clone(X)`; (None, None) otherwise."""
    while True:
        source = clone_source(expr, names)
        if source is not None:
            return expr, source
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) \
                and expr.func.attr.value in VIEW_CHAIN_METHODS and names.qualified_name(expr.func) is None:
            expr = expr.func.value
        elif type(expr) is cst.Subscript and _is_basic_index(expr):
            expr = expr.value
        else:
            return None, None


def _views_after(expr, clone) -> bool:
    """Is there a `.view()` / `.view_as()` between the clone and `expr`?"""
    while expr is not clone:
        if isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute):
            if expr.func.attr.value in ("view", "view_as"):
                return True
            expr = expr.func.value
        elif isinstance(expr, cst.Subscript):
            expr = expr.value
        else:
            return False
    return False


def _plain_alias(expr) -> bool:
    """`x`, `x.detach()`, `x.data`: the same strides as `x`."""
    while True:
        if isinstance(expr, cst.Name):
            return True
        if isinstance(expr, cst.Attribute) and expr.attr.value == "data":
            expr = expr.value
        elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) and expr.func.attr.value == "detach" \
                and not expr.args:
            expr = expr.func.value
        else:
            return False


def _viewed_name(expr, names: TorchNames, any_index: bool = False) -> Optional[cst.Name]:
    """`x` for `x`, `x.detach()`, `x.data`, `x[0]`, `x.transpose(0, 1)`: the name a view is taken
    of. `any_index`: through any subscript (`x[idx]`), to find whose values are read."""
    while True:
        if isinstance(expr, cst.Name):
            return expr if expr.value != "self" else None
        if isinstance(expr, cst.Attribute) and expr.attr.value in ("data", "T", "mT"):
            expr = expr.value
        elif isinstance(expr, cst.Call) and isinstance(expr.func, cst.Attribute) \
                and (expr.func.attr.value in VIEW_CHAIN_METHODS or expr.func.attr.value == "detach") \
                and names.qualified_name(expr.func) is None:
            expr = expr.func.value
        elif isinstance(expr, cst.Subscript) and (any_index or _is_basic_index(expr)):
            expr = expr.value
        else:
            return None


def goes_through_detach(expr) -> bool:
    """Does an access path pass through `.detach()`, `.data` or `.numpy()` (leaving autograd)?"""
    while True:
        if type(expr) is cst.Attribute:
            if expr.attr.value == "data":
                return True
            expr = expr.value
        elif type(expr) is cst.Subscript:
            expr = expr.value
        elif type(expr) is cst.Call and type(expr.func) is cst.Attribute:
            if expr.func.attr.value in ("detach", "numpy", "detach_"):
                return True
            expr = expr.func.value
        else:
            return False


def _keyword_is_true(call: cst.Call, keyword: str) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == keyword
               and type(arg.value) is cst.Name and arg.value.value == "True" for arg in call.args)


def makes_a_leaf_requiring_grad(call: cst.Call, names) -> bool:
    """`torch.randn(3, requires_grad=True)`, `Variable(x, requires_grad=True)`: a factory call whose
    value is a fresh leaf that requires grad."""
    qualified = names.qualified_name(call.func) or ""
    module, _, name = qualified.rpartition(".")
    return ((module == "torch" and name in LEAF_FACTORIES) or qualified in VARIABLE_CLASSES) \
        and _keyword_is_true(call, "requires_grad")


def parameter_requires_grad(call: cst.Call) -> bool:
    """Does `nn.Parameter(data, requires_grad)` surely require grad? Only when the flag is left
    out or spelled `True`: a computed flag (`requires_grad=other.requires_grad`) may be False."""
    flag = _parameter_flag(call)
    return flag is None or (type(flag) is cst.Name and flag.value == "True")


def parameter_without_grad(call: cst.Call) -> bool:
    """Is `nn.Parameter(data, requires_grad=False)` made not to require grad (the flag spelled `False`)?"""
    flag = _parameter_flag(call)
    return type(flag) is cst.Name and flag.value == "False"


def _parameter_flag(call: cst.Call) -> Optional[cst.BaseExpression]:
    """The `requires_grad` an `nn.Parameter(data, requires_grad)` call gives, by keyword or second; None if left out."""
    return next((arg.value for position, arg in enumerate(call.args)
                 if (arg.keyword is not None and arg.keyword.value == "requires_grad")
                 or (arg.keyword is None and not arg.star and position == 1)), None)


def _keyword_is_false(call: cst.Call, keyword: str) -> bool:
    return any(arg.keyword is not None and arg.keyword.value == keyword
               and type(arg.value) is cst.Name and arg.value.value == "False" for arg in call.args)


def _with_parts(storages: Iterable[Storage]) -> list[Storage]:
    """`storages` and their parts, and the parts' parts."""
    found: list[Storage] = []
    pending = list(storages)
    while pending:
        storage = pending.pop()
        if storage not in found:
            found.append(storage)
            pending.extend(storage.parts)
    return found


def overlapping(storages: Iterable[Storage]) -> Iterable[Storage]:
    """The storages a write to `storages` writes: themselves, the wholes they are parts of, and their
    parts (never a sibling part cut along the same dimension: the rows of a tensor share no element;
    but a cut along another dimension, which crosses them)."""
    storages = tuple(storages)
    if not any(storage.within or storage.parts for storage in storages):
        return storages  # the common case, on every write and every query: nothing to add
    found: set = set()
    crossing: list = []
    pending = list(storages)
    while pending:  # up: the wholes, and theirs
        storage = pending.pop()
        if storage not in found:
            found.add(storage)
            pending.extend(storage.within)
            crossing.extend(sibling for whole in storage.within for sibling in whole.parts
                            if sibling.axis != storage.axis or _spans_meet(sibling.span, storage.span))
    pending = [*storages, *crossing]
    below: set = set()
    while pending:  # down: the parts, and theirs (each once: `line, buffer = buffer.split(...)` in a loop
        storage = pending.pop()  # makes the new part its own whole's whole)
        if storage in below:
            continue
        below.add(storage)
        found.add(storage)
        pending.extend(storage.parts)
    return found


def root_name(expr) -> Optional[cst.Name]:
    """`x` for `x`, `x.data`, `x[0]`, `x.view(-1)`: the name an access starts from."""
    while True:
        if type(expr) is cst.Name:
            return expr
        if type(expr) in (cst.Attribute, cst.Subscript):
            expr = expr.value
        elif type(expr) is cst.Call and type(expr.func) is cst.Attribute:
            expr = expr.func.value
        else:
            return None


def _argument_is_variable(call: cst.Call, keyword: str, position: int) -> bool:
    """Is the argument given, but not as a literal (`inplace=self.inplace`)?"""
    for index, arg in enumerate(call.args):
        if (arg.keyword is not None and arg.keyword.value == keyword) or (arg.keyword is None and index == position):
            return not (type(arg.value) is cst.Name and arg.value.value in ("True", "False"))
    return False


def _argument_is_true(call: cst.Call, keyword: str, position: int) -> bool:
    for index, arg in enumerate(call.args):
        if arg.keyword is not None:
            if arg.keyword.value == keyword:
                return type(arg.value) is cst.Name and arg.value.value == "True"
        elif index == position:
            return type(arg.value) is cst.Name and arg.value.value == "True"
    return False


def constant_position(subscript: cst.Subscript) -> Optional[int]:
    """The position `x[2]` names, or None: a slice, several indices, a name, or a negative position
    (`x[-1]` may be the same item as `x[2]`)."""
    value = single_index(subscript)
    return int(value.value, 0) if type(value) is cst.Integer else None


@dataclass(frozen=True)
class SymbolicBound:
    """A range's bound written as an expression of names (`x[:, :5 * B]`, `x[:, k:]`): its value is not
    known, but `[:e]` and `[e:]` part a dimension for any `e`, so the two ranges share nothing."""

    code: str

    def __str__(self) -> str:
        return self.code


def _symbolic_bound(bound: cst.BaseExpression) -> Optional[SymbolicBound]:
    """The bound as a `SymbolicBound` when it is written with names, numbers and arithmetic only (no
    call, no indexing, whose value may differ from one reading to the next)."""
    if not all(type(node) in (cst.Name, cst.Integer, cst.BinaryOperation, cst.UnaryOperation, cst.Attribute,
                              cst.Add, cst.Subtract, cst.Multiply, cst.FloorDivide, cst.Minus, cst.Dot)
               for node in walk(bound)):
        return None
    return SymbolicBound(cst.Module([]).code_for_node(bound).replace(" ", ""))


def constant_cut(subscript: cst.Subscript) -> Optional[tuple[int, Any, Any]]:
    """(dimension, start, stop) for `x[2]` (0, 2, 3), `x[:, :, 1]` (2, 1, 2), `x[:, 5:]` (1, 5, None) or
    `x[..., 0:20]` (-1, 0, 20): one non-negative constant position or range of them (no step), every other
    index a whole `:` or one `...`;
    None otherwise. A bound written with names (`x[:, :k]`) is a `SymbolicBound`."""
    elements = [element.slice for element in subscript.slice]
    ellipsis = [type(element) is cst.Index and type(element.value) is cst.Ellipsis for element in elements]
    whole = [type(element) is cst.Slice and element.lower is None and element.upper is None
             and element.step is None or skipped for element, skipped in zip(elements, ellipsis)]
    if whole.count(False) != 1 or ellipsis.count(True) > 1:
        return None
    position = whole.index(False)
    cut = elements[position]
    # After `...` the dimension counts from the end (`x[..., 21:25]`: the last), a different axis from
    # any counted from the start, which the two cuts then share.
    axis = position - len(elements) if any(ellipsis[:position]) else position
    if type(cut) is cst.Index:
        if type(cut.value) is not cst.Integer:
            return None
        position = int(cut.value.value, 0)
        return axis, position, position + 1
    bounds = (cut.lower, cut.upper)
    if cut.step is not None:
        return None
    start, stop = (None if bound is None else int(bound.value, 0) if type(bound) is cst.Integer
                   else _symbolic_bound(bound) for bound in bounds)
    if any(bound is not None and value is None for bound, value in zip(bounds, (start, stop))):
        return None
    return axis, start or 0, stop


def _spans_meet(one: Optional[tuple], other: Optional[tuple]) -> bool:
    """Whether two [start, stop) ranges of one dimension share a position (stop None: to the end); two
    parts without ranges (the rows an unpacking gives) share none."""
    if one is None or other is None:
        return False
    if any(isinstance(bound, SymbolicBound) for bound in (*one, *other)):
        # Only a bound one range ends at and the other starts from tells them apart.
        return not (isinstance(one[1], SymbolicBound) and one[1] == other[0]
                    or isinstance(other[1], SymbolicBound) and other[1] == one[0])
    ends = [stop for stop in (one[1], other[1]) if stop is not None]
    return max(one[0], other[0]) < min(ends, default=max(one[0], other[0]) + 1)


def _is_basic_index(subscript: cst.Subscript, integral: Optional[Callable[[cst.Name], bool]] = None) -> bool:
    """`x[0]`, `x[:, 1:3]`, `x[..., None]`: indexing that returns a view, not a copy. `integral`: says
    whether a name used as an index is surely an int (`x[n]` in `for n in range(k)`); other names may
    hold index tensors or lists, which copy."""
    for element in subscript.slice:
        index = element.slice
        if type(index) is cst.Slice:
            continue
        value = index.value
        if type(value) is cst.UnaryOperation:
            value = value.expression
        if type(value) is cst.Integer:
            continue
        if type(value) is cst.Ellipsis or (type(value) is cst.Name and value.value == "None"):
            continue
        if type(value) is cst.Name and integral is not None and integral(value):
            continue
        return False
    return True


def _surely_advanced_index(subscript: cst.Subscript) -> bool:
    """`x[[0, 2]]`, `x[mask > 0]`, `x[:, [1, 3]]`: an index the code spells as a list or a comparison,
    which gathers into new memory."""
    return any(type(element.slice) is cst.Index
               and (type(element.slice.value) is cst.List or type(element.slice.value) is cst.Comparison)
               for element in subscript.slice)


def _container_items(container) -> list:
    """(item, constant key) of a container literal: list and tuple items keyed by position, dict
    values by a literal key (None for a computed one), set items unkeyed."""
    items = []
    if type(container) in (cst.List, cst.Tuple, cst.Set):
        for position, element in enumerate(container.elements):
            if type(element) is cst.StarredElement:
                continue
            items.append((element.value, None if type(container) is cst.Set else str(position)))
    elif type(container) is cst.Dict:
        for element in container.elements:
            if type(element) is cst.DictElement:
                key = element.key
                items.append((element.value, _EMPTY_MODULE.code_for_node(key)
                              if type(key) in (cst.SimpleString, cst.Integer) else None))
    return items


def _keyed_by_a_string(subscript: cst.Subscript) -> bool:
    """`d["k"]`, `d[f"k{i}"]`: a string key, which no tensor accepts."""
    return type(single_index(subscript)) in (cst.SimpleString, cst.ConcatenatedString, cst.FormattedString)


def _constant_key(subscript: cst.Subscript) -> Optional[str]:
    """`"k"` for `d["k"]`, `0` for `outs[0]`; None for a computed or sliced key."""
    value = single_index(subscript)
    return _EMPTY_MODULE.code_for_node(value) if type(value) in (cst.SimpleString, cst.Integer) else None


def argument_at(call: cst.Call, position: Optional[int], name: str) -> Optional[cst.BaseExpression]:
    """The argument a call passes for a parameter (by position among the positional arguments, or
    by keyword); None when not passed, or hidden behind `*args` / `**kwargs`."""
    index = 0
    for arg in call.args:
        if arg.keyword is not None:
            if name and arg.keyword.value == name:
                return arg.value
            continue
        if arg.star:
            return None
        if position is not None and index == position:
            return arg.value
        index += 1
    return None


def _block(body) -> list:
    if type(body) is cst.IndentedBlock:
        return list(body.body)
    if type(body) is cst.SimpleStatementSuite:
        return [body]  # `if x: y = 1` on one line: walked like a statement line
    return list(getattr(body, "body", []))


_EMPTY_MODULE = cst.Module(body=[])


def _code(node: cst.CSTNode, limit: int = 40) -> str:
    """Source text of a node on one line, for messages."""
    text = _plain_code(node)
    if text is None:
        text = " ".join(_EMPTY_MODULE.code_for_node(node).split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _plain_code(node: cst.CSTNode) -> Optional[str]:
    """The text of a name or attribute chain written without parentheses or blanks (`self.w.data`),
    as code generation would give it; None for anything else. Every in-place event describes
    its target this way, and generating code for it cost more than the rest of the event."""
    parts = []
    while type(node) is cst.Attribute:
        dot = node.dot
        if node.lpar or type(dot.whitespace_before) is not cst.SimpleWhitespace \
                or type(dot.whitespace_after) is not cst.SimpleWhitespace \
                or dot.whitespace_before.value or dot.whitespace_after.value or node.attr.lpar:
            return None
        parts.append(node.attr.value)
        node = node.value
    if type(node) is not cst.Name or node.lpar:
        return None
    parts.append(node.value)
    return ".".join(reversed(parts))


INTEGER_CONVERSIONS = frozenset({"long", "int", "short", "byte", "char", "bool"})
INTEGER_DTYPES = frozenset({"long", "int", "int64", "int32", "int16", "int8", "uint8", "short", "bool"})


def _converts_to_integers(expr) -> bool:
    """`x.long()`, `x.to(torch.int64)`, `x[:, :2].int()`: a conversion to an integer or boolean dtype."""
    if type(expr) is not cst.Call or type(expr.func) is not cst.Attribute:
        return False
    method = expr.func.attr.value
    if method in INTEGER_CONVERSIONS:
        return not expr.args
    if method == "to":
        return any(type(arg.value) is cst.Attribute and arg.value.attr.value in INTEGER_DTYPES
                   and (arg.keyword is None or arg.keyword.value == "dtype") for arg in expr.args)
    return False


def _may_copy(expr) -> bool:
    """`x.float()`, `x.to(device)`: shares storage only when there is nothing to convert."""
    while True:
        if type(expr) is cst.Call and type(expr.func) is cst.Attribute:
            if expr.func.attr.value in MAY_ALIAS_METHODS:
                return True
            expr = expr.func.value
        elif type(expr) in (cst.Attribute, cst.Subscript):
            expr = expr.value
        else:
            return False


def _names_in(node: cst.CSTNode) -> set:
    return {current.value for current in walk(node) if type(current) is cst.Name}


def parameter_tensorness(function: cst.FunctionDef, names: TorchNames, in_module_class: bool):
    """Parameters with how sure we are they hold tensors: annotated `Tensor` is sure; a
    `forward` parameter of an nn.Module is likely; `self`/`cls` and others are unknown."""
    params = function.params
    ordered = [*params.posonly_params, *params.params, *params.kwonly_params]
    if type(params.star_arg) is cst.Param:
        ordered.append(params.star_arg)
    if params.star_kwarg is not None:
        ordered.append(params.star_kwarg)
    result = []
    listed = _used_as_lists(function)
    for index, param in enumerate(ordered):
        if param.name.value in listed:
            tensorness = Tensorness.NOT  # `images += [t1ce, t2]`, `images.append(x)`: a list, whatever its annotation
        elif annotation_is_tensor(param.annotation, names):
            tensorness = Tensorness.SURE
        elif _annotation_is_container(param.annotation):
            tensorness = Tensorness.NOT  # `features: list[torch.Tensor]`: item assignment is not a tensor write
        elif index == 0 and param.name.value in ("self", "cls"):
            tensorness = Tensorness.NOT
        elif in_module_class and function.name.value == "forward" and param.default is None \
                and param is not params.star_kwarg and param is not params.star_arg:
            tensorness = Tensorness.LIKELY
        else:
            tensorness = Tensorness.UNKNOWN
        result.append((param, tensorness))
    return result


LIST_METHODS = frozenset({"append", "extend", "insert"})


def _used_as_lists(function: cst.FunctionDef) -> set:
    """Names the function extends with a list (`xs += [a, b]`) or appends to: lists (a tensor has neither)."""
    found = set()
    for node in walk(function.body):
        if type(node) is cst.AugAssign and type(node.operator) is cst.AddAssign and type(node.target) is cst.Name \
                and type(node.value) in (cst.List, cst.ListComp):
            found.add(node.target.value)
        elif type(node) is cst.Call and type(node.func) is cst.Attribute and type(node.func.value) is cst.Name \
                and node.func.attr.value in LIST_METHODS:
            found.add(node.func.value.value)
    return found


CONTAINER_ANNOTATIONS = frozenset({"list", "tuple", "dict", "set", "List", "Tuple", "Dict", "Set", "Sequence",
                                   "Mapping", "Iterable", "MutableSequence"})


def _annotation_is_container(annotation: Optional[cst.Annotation]) -> bool:
    """`list[torch.Tensor]`, `Tuple[Tensor, ...]`, `dict`: a container of tensors, not a tensor."""
    if annotation is None:
        return False
    node = annotation.annotation
    if type(node) is cst.Subscript:
        node = node.value
    name = node.attr.value if type(node) is cst.Attribute else node.value if type(node) is cst.Name else ""
    return name in CONTAINER_ANNOTATIONS


PASSED_UNKNOWN = object()  # an argument that cannot be matched to the parameter (`*args` at the call)


def passed_for_parameter(call: cst.Call, definition: cst.FunctionDef, param: cst.Param):
    """What a call of `definition` passes for its parameter `param`: the expression, None when not
    passed (the default applies), or PASSED_UNKNOWN (a `*args`/`**kwargs` that may hold it). A call
    spelled `obj.method(...)`, or the class's own name for its `__init__`, passes nothing for the
    method's `self`."""
    positional = [*definition.params.posonly_params, *definition.params.params]
    position = next((index for index, each in enumerate(positional) if each is param), None)
    if position is not None and (type(call.func) is cst.Attribute or definition.name.value == "__init__") \
            and positional and positional[0].name.value in ("self", "cls"):
        position -= 1
    for index, arg in enumerate(call.args):
        if arg.star:
            return PASSED_UNKNOWN
        if arg.keyword is not None:
            if arg.keyword.value == param.name.value:
                return arg.value
        elif position is not None and index == position:
            return arg.value
    return None


def runs_before(function: FunctionFacts, earlier: cst.CSTNode, later: cst.CSTNode) -> bool:
    """Does every path from the function's entry to `later` pass `earlier` first? Yes when the line
    holding `earlier` stands in a block (the body, a loop's or a branch's) and `later` is inside a
    statement after it in that same block."""
    line = function.line_of_statement.get(earlier, earlier)
    for block in walk(function.node):
        if type(block) not in (cst.IndentedBlock, cst.Module):
            continue
        body = list(block.body)
        for position, statement in enumerate(body):
            if statement is line:
                return any(node is later for following in body[position + 1:] for node in walk(following))
            if type(statement) is cst.If and type(statement.body) is cst.IndentedBlock and line in statement.body.body:
                # `if self.mode == "lstm": reset` ... `elif self.mode == "lstm": update`: the same test,
                # read again with nothing it reads assigned between, holds on the later path too.
                test = _EMPTY_MODULE.code_for_node(statement.test)
                between = body[position + 1:]
                for index, following in enumerate(between):
                    if not any(node is later for node in walk(following)):
                        continue
                    guarded = [branch for branch in walk(following) if type(branch) is cst.If
                               and _EMPTY_MODULE.code_for_node(branch.test) == test and any(node is later for node in walk(branch.body))]
                    read = {_EMPTY_MODULE.code_for_node(node) for node in walk(statement.test) if type(node) in (cst.Name, cst.Attribute)}
                    assigned = {_EMPTY_MODULE.code_for_node(target.target) for earlier_statement in [statement.body, *between[:index + 1]]
                                for target in walk(earlier_statement) if type(target) is cst.AssignTarget}
                    return bool(guarded) and not read & assigned
    return False


def detached_in_place(function: FunctionFacts) -> list[tuple[str, int, cst.CSTNode]]:
    """`fake.detach_()` as a statement: (name, statement order, statement)."""
    found = []
    for call, statement in function.call_statement.items():
        func = call.func
        if type(func) is cst.Attribute and func.attr.value == "detach_" and type(func.value) is cst.Name:
            found.append((func.value.value, function.order_of(statement), statement))
    return found


def _test_holds_on_entry(test: cst.BaseExpression, previous: list) -> bool:
    """Does a `while` loop's test hold when the loop is reached, so that it runs at least once: `while True:`,
    or a flag set by the simple statements just before it (`done = False`, `k = 0`, then `while not done:`),
    Python's spelling of a do-while loop?"""
    if type(test) is cst.Name and test.value == "True":
        return True
    negated = type(test) is cst.UnaryOperation and type(test.operator) is cst.Not
    flag = test.expression if negated else test
    if type(flag) is not cst.Name:
        return False
    for statement in reversed(previous):
        if type(statement) is not cst.SimpleStatementLine:
            return False  # a branch or a loop may have set it either way
        for small in reversed(statement.body):
            if type(small) is not cst.Assign:
                continue
            if any(type(target.target) is not cst.Name for target in small.targets):
                return False
            if any(target.target.value == flag.value for target in small.targets):
                return type(small.value) is cst.Name and small.value.value == ("False" if negated else "True")
    return False

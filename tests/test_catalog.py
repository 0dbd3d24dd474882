"""The static tables of analysis/catalog.py against the installed torch, so they cannot drift.

The linter never imports torch; this test does, and is skipped where torch is absent.
"""

from __future__ import annotations

import inspect

import pytest

from torchcopylint.analysis import catalog

torch = pytest.importorskip("torch")
nn = torch.nn
F = torch.nn.functional


def _one_underscore(name: str) -> bool:
    return name.endswith("_") and not name.endswith("__") and not name.startswith("_")


def _inplace_position(function) -> "int | None":
    """Index of `inplace` among the positional parameters (after self for a method), or None."""
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # a builtin without a signature
        return None
    if "inplace" not in signature.parameters:
        return None
    assert signature.parameters["inplace"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD, function
    names = [name for name, parameter in signature.parameters.items()
             if parameter.kind in (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    return names.index("inplace")


def test_inplace_tensor_methods_match_torch():
    in_torch = {name for name in dir(torch.Tensor) if _one_underscore(name)}
    assert catalog.NOT_VALUE_WRITES <= in_torch, catalog.NOT_VALUE_WRITES - in_torch
    expected = in_torch - catalog.NOT_VALUE_WRITES
    assert set(catalog.INPLACE_TENSOR_METHODS) == expected, {
        "missing from the table": sorted(expected - catalog.INPLACE_TENSOR_METHODS),
        "not in torch": sorted(catalog.INPLACE_TENSOR_METHODS - expected),
    }


def test_inplace_modules_match_torch():
    found = {}
    for name in dir(nn):
        value = getattr(nn, name)
        if name.startswith("_") or not inspect.isclass(value) or not issubclass(value, nn.Module):
            continue
        init = value.__init__
        try:
            parameters = list(inspect.signature(init).parameters)
        except (TypeError, ValueError):
            continue
        if "inplace" not in parameters:
            continue
        position = _inplace_position(init)
        assert parameters[0] == "self", name
        found[name] = position - 1  # among the arguments after self
    assert found == catalog.INPLACE_MODULE_ARGUMENT
    assert len(found) == 19  # the design's count for torch 2.13; update with the table


def test_inplace_functions_match_torch():
    found = {}
    for name in dir(F):
        value = getattr(F, name)
        if name.startswith("_") or not callable(value) or inspect.isclass(value):
            continue
        position = _inplace_position(value)
        if position is not None:
            found[name] = position
    assert found == catalog.INPLACE_FUNCTION_ARGUMENT
    assert len(found) == 19


def test_positions_agree_with_a_positional_call():
    # nn.ReLU(True) and F.relu(x, True) really are in place: the positions mean what they say.
    x = torch.ones(3)
    module = nn.ReLU(*([False] * catalog.INPLACE_MODULE_ARGUMENT["ReLU"] + [True]))
    assert module.inplace is True
    y = -torch.ones(3)
    F.relu(y, True)
    assert catalog.INPLACE_FUNCTION_ARGUMENT["relu"] == 1 and bool((y == 0).all())
    assert x.sum() == 3


@pytest.mark.parametrize("name, expected", [
    ("add_", True),
    ("relu_", True),
    ("copy_", True),
    ("masked_fill_", True),
    ("futureop_", True),  # the convention, for methods a newer torch adds
    # A longer name outside the table is no tensor method (torch's own are all in it): a typo for
    # `p.data.clamp_` fails with AttributeError, and writes nothing.
    ("data_clamp_", False),
    ("requires_grad_", False),
    ("share_memory_", False),
    ("detach_", False),
    ("__iadd__", False),
    ("_foo_", False),
    ("add", False),
    ("clone", False),
])
def test_is_inplace_method_name(name, expected):
    assert catalog.is_inplace_method_name(name) is expected


def test_distributed_writes_match_torch():
    """Every collective the table names exists, and writes the parameter it says, at that position."""
    dist = pytest.importorskip("torch.distributed")
    for name, written in catalog.DISTRIBUTED_WRITES.items():
        function = getattr(dist, name, None)
        assert callable(function), f"torch.distributed.{name} is gone"
        parameters = list(inspect.signature(function).parameters)
        for position, parameter, what in written:
            assert parameters[position] == parameter, (name, parameters)
            assert what in ("tensor", "list")
    # The in-place collectives of torch 2.13 that take an output tensor or list are all there.
    expected = {"all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor", "reduce_scatter",
                "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "gather", "scatter", "recv", "irecv"}
    assert expected <= set(catalog.DISTRIBUTED_WRITES)


def test_init_functions_match_torch():
    in_torch = {name for name in dir(nn.init) if _one_underscore(name) and callable(getattr(nn.init, name))}
    assert set(catalog.INIT_FUNCTIONS) == in_torch
    for name in in_torch:
        assert catalog.written_arguments(f"torch.nn.init.{name}") == ((0, "tensor", "tensor"),)
        assert list(inspect.signature(getattr(nn.init, name)).parameters)[0] == "tensor"


def test_foreach_functions_write_their_list():
    foreach = [name for name in dir(torch) if name.startswith("_foreach_") and name.endswith("_")]
    assert foreach, "torch has no _foreach_ in-place functions any more"
    for name in foreach:
        assert catalog.written_arguments(f"torch.{name}") == ((0, "self", "list"),)
    assert catalog.written_arguments("torch._foreach_add") == ()  # the out-of-place form returns new tensors


@pytest.mark.parametrize("qualified, expected", [
    ("torch.distributed.all_reduce", ((0, "tensor", "tensor"),)),
    ("torch.distributed.distributed_c10d.broadcast", ((0, "tensor", "tensor"),)),
    ("torch.distributed.all_gather", ((0, "tensor_list", "list"),)),
    ("torch.distributed.barrier", ()),
    ("torch.relu_", ((0, "input", "tensor"),)),
    ("torch.Tensor.add_", ((0, "input", "tensor"),)),
    ("torch.relu", ()),
    ("torch.nn.functional.relu", ()),  # in place only with inplace=True, read where it is called
])
def test_written_arguments(qualified, expected):
    assert catalog.written_arguments(qualified) == expected


def _collective_writes(rank: int, init: str, results) -> None:
    dist = torch.distributed
    dist.init_process_group("gloo", init_method=init, rank=rank, world_size=2)
    try:
        x = torch.full((3,), float(rank + 1))
        y = x.clone()  # the copy the collective writes: without it, x itself would change
        pointer = y.data_ptr()
        dist.all_reduce(y)
        z = torch.full((3,), float(rank + 1))
        dist.broadcast(z, 0)
        outs = [torch.zeros(3), torch.zeros(3)]
        kept = outs[1]
        dist.all_gather(outs, x)
        results.put((rank, x.tolist(), y.tolist(), y.data_ptr() == pointer, z.tolist(), kept.tolist()))
    finally:
        dist.destroy_process_group()


def test_collectives_write_in_place_at_run_time(tmp_path):
    """The table's claim, on two gloo processes: all_reduce, broadcast and all_gather write the
    tensors they are handed (the same storage gets the result), so a copy handed to them is needed."""
    dist = pytest.importorskip("torch.distributed")
    if not dist.is_available() or not dist.is_gloo_available():
        pytest.skip("torch.distributed with gloo is not built in")
    mp = torch.multiprocessing.get_context("fork")
    results = mp.Queue()
    init = f"file://{tmp_path / 'rendezvous'}"
    processes = [mp.Process(target=_collective_writes, args=(rank, init, results)) for rank in range(2)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=60)
    assert all(process.exitcode == 0 for process in processes)
    found = sorted(results.get(timeout=5) for _ in processes)
    for rank, x, y, same_storage, z, kept in found:
        assert x == [float(rank + 1)] * 3  # the source kept its values
        assert y == [3.0] * 3 and same_storage  # the copy holds the sum, in its own storage
        assert z == [1.0] * 3  # rank 1's tensor was overwritten with rank 0's
        assert kept == [2.0] * 3  # the list's tensor was filled in place

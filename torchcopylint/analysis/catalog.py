"""Static tables of what writes a tensor in place (torch 2.13).

tests/test_catalog.py compares these tables with the installed torch so they cannot drift.
"""

from __future__ import annotations

from typing import Optional

# Any in-place write spells one of these, so a file with none cannot hold one (the prefilter's
# triggers of the rules about in-place writes). The engine matches them token-wise (`x.add_ (1)`,
# `x[0]  = v`, `out = c` match too). Every augmented assignment counts ("**=" and "//=" contain
# "*=" and "/=").
INPLACE_TRIGGERS = (b"_(", b"inplace", b"+=", b"-=", b"*=", b"/=", b"%=", b"@=", b"&=", b"|=", b"^=", b"<<=",
                    b">>=", b"] =", b"out=", b"True)")

# Tensor methods that write their receiver in place: every public method ending in
# one underscore, less those that change autograd flags or sharing, not values.
NOT_VALUE_WRITES = frozenset({"requires_grad_", "share_memory_", "detach_"})
# In-place methods that change how the tensor views its storage (its shape, its strides) and never a
# value: an alias, a view or a container holding the tensor reads the same numbers afterwards. They
# are still in-place operations (on a leaf that requires grad they fail as any other does).
SHAPE_ONLY_METHODS = frozenset({"squeeze_", "unsqueeze_", "t_", "transpose_", "swapaxes_", "swapdims_",
                                "as_strided_"})

INPLACE_TENSOR_METHODS = frozenset({
    "abs_", "absolute_", "acos_", "acosh_", "add_", "addbmm_", "addcdiv_", "addcmul_",
    "addmm_", "addmv_", "addr_", "apply_", "arccos_", "arccosh_", "arcsin_", "arcsinh_",
    "arctan2_", "arctan_", "arctanh_", "as_strided_", "asin_", "asinh_", "atan2_", "atan_",
    "atanh_", "baddbmm_", "bernoulli_", "bitwise_and_", "bitwise_left_shift_", "bitwise_not_",
    "bitwise_or_", "bitwise_right_shift_", "bitwise_xor_", "cauchy_", "ceil_", "clamp_",
    "clamp_max_", "clamp_min_", "clip_", "conj_physical_", "copy_", "copysign_", "cos_",
    "cosh_", "cumprod_", "cumsum_", "deg2rad_", "digamma_", "div_", "divide_", "eq_", "erf_",
    "erfc_", "erfinv_", "exp2_", "exp_", "expm1_", "exponential_", "fill_", "fill_diagonal_",
    "fix_", "float_power_", "floor_", "floor_divide_", "fmod_", "frac_", "gcd_", "ge_",
    "geometric_", "greater_", "greater_equal_", "gt_", "heaviside_", "hypot_", "i0_",
    "igamma_", "igammac_", "index_add_", "index_copy_", "index_fill_", "index_put_",
    "index_reduce_", "lcm_", "ldexp_", "le_", "lerp_", "less_", "less_equal_", "lgamma_",
    "log10_", "log1p_", "log2_", "log_", "log_normal_", "logical_and_", "logical_not_",
    "logical_or_", "logical_xor_", "logit_", "lt_", "map2_", "map_", "masked_fill_",
    "masked_scatter_", "mul_", "multiply_", "mvlgamma_", "nan_to_num_", "ne_", "neg_",
    "negative_", "nextafter_", "normal_", "not_equal_", "polygamma_", "pow_", "put_",
    "rad2deg_", "random_", "reciprocal_", "relu_", "remainder_", "renorm_", "resize_",
    "resize_as_", "resize_as_sparse_", "round_", "rsqrt_", "scatter_", "scatter_add_",
    "scatter_reduce_", "set_", "sgn_", "sigmoid_", "sign_", "sin_", "sinc_", "sinh_",
    "sparse_resize_", "sparse_resize_and_clear_", "sqrt_", "square_", "squeeze_", "sub_",
    "subtract_", "swapaxes_", "swapdims_", "t_", "tan_", "tanh_", "transpose_", "tril_",
    "triu_", "true_divide_", "trunc_", "uniform_", "unsqueeze_", "xlogy_", "zero_",
})

# nn module classes that take `inplace`, with the position of `inplace` among the
# constructor's arguments (after self), so `nn.ReLU(True)` is understood too.
INPLACE_MODULE_ARGUMENT = {
    "AlphaDropout": 1, "CELU": 1, "Dropout": 1, "Dropout1d": 1, "Dropout2d": 1,
    "Dropout3d": 1, "ELU": 1, "FeatureAlphaDropout": 1, "Hardsigmoid": 0, "Hardswish": 0,
    "Hardtanh": 2, "LeakyReLU": 1, "Mish": 0, "RReLU": 2, "ReLU": 0, "ReLU6": 0,
    "SELU": 0, "SiLU": 0, "Threshold": 2,
}

# torch.nn.functional functions that take `inplace`, with its position among the arguments.
INPLACE_FUNCTION_ARGUMENT = {
    "alpha_dropout": 3, "celu": 2, "dropout": 3, "dropout1d": 3, "dropout2d": 3,
    "dropout3d": 3, "elu": 2, "feature_alpha_dropout": 3, "hardsigmoid": 1, "hardswish": 1,
    "hardtanh": 3, "leaky_relu": 2, "mish": 1, "relu": 1, "relu6": 1, "rrelu": 4,
    "selu": 1, "silu": 1, "threshold": 3,
}


def is_inplace_method_name(name: str) -> bool:
    """`add_`, `relu_`, `copy_`...: the naming convention torch follows for in-place ops.

    Names outside the table that follow the convention (a newer torch's methods)
    count too, so the rule keeps working as torch grows; but only one-word ones: a
    longer name outside the table (`p.data_clamp_(...)`, a typo for
    `p.data.clamp_(...)`) is no method of a tensor, and fails rather than writes.
    """
    if name in INPLACE_TENSOR_METHODS:
        return True
    return (
        name.endswith("_")
        and "_" not in name[:-1]
        and name not in NOT_VALUE_WRITES
    )


# Functions that write tensors they are handed, outside the `name_` convention. Each written
# parameter is (its position among the positional arguments, its name, what is written):
# "tensor" (the argument itself) or "list" (every tensor of the list or tuple passed).

# torch.distributed collectives and point-to-point receives: the result lands in an argument (on
# every rank, or on the receiving ones), so a copy handed to them (`y = x.clone();
# dist.all_reduce(y)`) is written, and is needed.
DISTRIBUTED_WRITES = {
    "all_reduce": ((0, "tensor", "tensor"),),
    "all_reduce_coalesced": ((0, "tensors", "list"),),
    "broadcast": ((0, "tensor", "tensor"),),
    "reduce": ((0, "tensor", "tensor"),),
    "all_gather": ((0, "tensor_list", "list"),),
    "all_gather_into_tensor": ((0, "output_tensor", "tensor"),),
    "all_gather_single": ((0, "output_tensor", "tensor"),),
    "_all_gather_base": ((0, "output_tensor", "tensor"),),
    "reduce_scatter": ((0, "output", "tensor"),),
    "reduce_scatter_tensor": ((0, "output", "tensor"),),
    "reduce_scatter_single": ((0, "output", "tensor"),),
    "_reduce_scatter_base": ((0, "output", "tensor"),),
    "all_to_all": ((0, "output_tensor_list", "list"),),
    "all_to_all_single": ((0, "output", "tensor"),),
    "gather": ((1, "gather_list", "list"),),
    "scatter": ((0, "tensor", "tensor"),),
    "recv": ((0, "tensor", "tensor"),),
    "irecv": ((0, "tensor", "tensor"),),
}
# The modules these functions are reached through.
DISTRIBUTED_MODULES = frozenset({"torch.distributed", "torch.distributed.distributed_c10d"})

# torch.nn.init: every public initializer ends in one underscore and fills its first argument.
INIT_FUNCTIONS = frozenset({
    "constant_", "dirac_", "eye_", "kaiming_normal_", "kaiming_uniform_", "normal_", "ones_",
    "orthogonal_", "sparse_", "trunc_normal_", "uniform_", "xavier_normal_", "xavier_uniform_", "zeros_",
})


def writes_without_grad(qualified: Optional[str]) -> bool:
    """`nn.init.normal_(w)`: torch.nn.init's functions fill their tensor under their own no_grad, so
    their write is no in-place op autograd sees (not on a leaf either). Nor is a collective's
    (`dist.broadcast(p, 0)` over `model.parameters()`): c10d registers no autograd kernel, so the
    write neither checks for a leaf nor bumps the version counter (measured, torch 2.13, gloo)."""
    if qualified is None:
        return False
    return qualified.startswith("torch.nn.init.") or qualified.rpartition(".")[0] in DISTRIBUTED_MODULES


def written_arguments(qualified: str) -> tuple:
    """The parameters a torch function writes in place, as DISTRIBUTED_WRITES spells them:
    `dist.all_reduce` its tensor, `nn.init.normal_` its tensor, `torch.add_`-style functions and
    `torch.Tensor.add_(t, ...)` their first argument, `torch._foreach_mul_` every tensor of its
    first argument. `()` for the rest (`out=` is read where the call is, for every function)."""
    module, _, name = qualified.rpartition(".")
    if module in DISTRIBUTED_MODULES:
        return DISTRIBUTED_WRITES.get(name, ())
    if module == "torch" and name.startswith("_foreach_") and name.endswith("_") and not name.endswith("__"):
        return ((0, "self", "list"),)
    if module in ("torch", "torch.nn.functional", "torch.Tensor") and is_inplace_method_name(name):
        return ((0, "input", "tensor"),)
    if module == "torch.nn.init" and (name in INIT_FUNCTIONS or is_inplace_method_name(name)):
        return ((0, "tensor", "tensor"),)
    return ()

"""Stand-ins from use, configurations and reached-or-not, in process (no verification child).

The end-to-end verdicts are in tests/test_verify.py; these check the pieces those verdicts rest on:
what each name becomes from how the code uses it, which constructor configurations are tried,
and how a verdict is decided over several settings.
"""

from __future__ import annotations

import ast
import importlib.util
import textwrap

import pytest

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                reason="--verify needs torch (pip install torchcopylint[verify])")


def _kinds(code: str, names: list[str], roles: dict | None = None) -> dict:
    from torchcopylint.verify.standins import plan, uses

    node = ast.parse(textwrap.dedent(code)).body[0]
    return plan(names, uses(node), {}, roles or {}).kinds


def test_each_argument_is_made_from_how_the_function_uses_it():
    kinds = _kinds("""
        def train(model, loader, opt, scaler, lr, epochs, device, mode, use_amp):
            model.train()
            for epoch in range(epochs):
                for x, y in loader:
                    opt.zero_grad()
                    loss = model(x.to(device)).mean() * lr
                    scaler.scale(loss).backward()
                    scaler.step(opt)
                    scaler.update()
                    if use_amp and mode == "fast":
                        pass
        """, ["model", "loader", "opt", "scaler", "lr", "epochs", "device", "mode", "use_amp"])
    assert kinds == {"model": "module", "loader": "loader", "opt": "optimizer", "scaler": "scaler", "lr": "float",
                     "epochs": "count", "device": "device", "mode": "choice", "use_amp": "bool"}


def test_a_state_dict_updated_and_read_by_keys_is_a_dict_not_a_grad_scaler():
    # fresh114's competitive-gradient optimizers: `self.state.update(state_dict)` and `self.state["lr_max"]`;
    # `update` alone is a dict's method as much as a GradScaler's, which `scale` names.
    kinds = _kinds("""
        def step(self, state, bar):
            state.update({"step": 1})
            lr = state["lr_max"] * 2
            bar.update(1)
    """, ["state", "bar"])
    assert kinds["state"] == "dict" and kinds["bar"] != "scaler", kinds


def test_what_a_deep_copy_is_used_as_the_value_it_copies_is():
    # A pruning function copies its `model` and only the copy's modules are read (fresh95): a network,
    # not a tensor (which deepcopy refuses once it has a graph). A copied tensor stays a tensor.
    kinds = _kinds("""
        def prune(model, masks, x):
            new_model = copy.deepcopy(model)
            for name, module in new_model.named_modules():
                module.weight.data[masks[name]].clone()
            y = copy.deepcopy(x)
            return new_model, y.sum()
    """, ["model", "x"])
    assert kinds == {"model": "module", "x": "tensor"}, kinds


def test_an_optimizer_s_learning_rate_is_a_number_and_a_batch_compared_with_one_holds_one_sample():
    from torchcopylint.verify.standins import make, plan, uses

    code = """
        def setup(weights, meta_lr, step_size, image, model):
            assert image.size(0) == 1, "one image at a time"
            outer = optim.Adam(weights, meta_lr)
            inner = torch.optim.SGD(model.parameters(), lr=step_size)
            return model(image), outer, inner
        """
    node = ast.parse(textwrap.dedent(code)).body[0]
    made_plan = plan(["weights", "meta_lr", "step_size", "image", "model"], uses(node), {}, {})
    # `meta_lr` and `step_size` are learning rates (a tensor made Adam refuse: "Tensor lr must be
    # 1-element"); the image is a batch of one, as its assertion asks.
    assert made_plan.kinds["meta_lr"] == made_plan.kinds["step_size"] == "float"
    assert made_plan.batch == 1 and make(made_plan, "cpu")["image"].shape[0] == 1


def test_numbers_devices_flags_and_tensors_follow_how_the_code_uses_them():
    # `lo`, `hi`, `margin`: compared where Python needs a bool, so numbers (a tensor of several
    # values would raise "Boolean value of Tensor with more than one value is ambiguous"), even
    # though `lo` and `hi` are also passed to torch.clamp; `dev.type` is read: a torch.device;
    # `where` is passed as `device=`: a device; `shuffle` is only branched on: a flag; `w` has
    # arithmetic with a number but also feeds a network: a tensor; `x` is indexed: a tensor.
    kinds = _kinds("""
        def attack(net, x, lo, hi, margin, dev, where, shuffle, w, unused):
            if lo is not None and lo < hi and hi > margin:
                x = torch.clamp(x, lo, hi)
            if dev.type == "cuda":
                pass
            z = torch.zeros(3, device=where)
            if shuffle:
                pass
            return net(w) * 0.5 + w + x[0]
        """, ["net", "x", "lo", "hi", "margin", "dev", "where", "shuffle", "w", "unused"])
    assert kinds == {"net": "module", "x": "tensor", "lo": "float", "hi": "float", "margin": "float",
                     "dev": "torch.device", "where": "device", "shuffle": "bool", "w": "tensor", "unused": "unused"}


def test_a_number_only_in_arithmetic_with_numbers_is_a_number_and_a_tensor_method_makes_a_tensor():
    kinds = _kinds("""
        def f(a, b, c, d):
            e = 1.0 - a + float(d)
            return b.clone() * 2.0 + c * 3
        """, ["a", "b", "c", "d"])
    assert kinds == {"a": "float", "b": "tensor", "c": "float", "d": "float"}


def test_labels_are_read_from_comparisons_with_predictions_and_suffixed_names():
    # `x.argmax(1) != labels`: what a prediction is compared with is class indices; `y_in` is named like
    # labels; `norm not in [np.inf, 1, 2]` is one of those values, not a tensor (the helper it feeds is
    # the file's own, which alone would say "tensor"); `n == 0` is a number; a slice's bound `K` an int.
    kinds = _kinds("""
        def attack(model, x, labels, y_in, norm, n, K):
            if norm not in [np.inf, 1, 2]:
                raise ValueError(norm)
            if n == 0:
                return x
            fooled = model(x).argmax(1) != labels
            kept = model(x).max(1)[1] == y_in.clone()
            nearest = sorted(x.tolist())[0:K]
            return project(x, norm)
        """, ["model", "x", "labels", "y_in", "norm", "n", "K"])
    assert kinds == {"model": "module", "x": "tensor", "labels": "labels", "y_in": "labels", "norm": "choice",
                     "n": "float", "K": "int"}


def test_a_number_a_constructor_gives_stands_where_the_use_reads_like_a_tensor_s():
    from torchcopylint.verify.standins import constructor_defaults, plan, uses

    tree = ast.parse(textwrap.dedent("""
        class Attack:
            def __init__(self, model, seed=0):
                self.seed = seed

            def perturb(self, x):
                torch.manual_seed(self.seed)
                return x + torch.rand_like(x)
        """))
    found = plan(["self.seed"], uses(tree.body[0].body[1]), {}, {}, constructor_defaults(tree, "Attack"))
    assert found.defaults == {"self.seed": 0}


def test_an_empty_container_the_constructor_makes_stands_in_fresh_for_each_run():
    # A DQN agent's `self.costs = []`, which `train_agent` appends each step's loss to: a do-nothing
    # object there would keep nothing, and TCL007's measurement of what the list holds would show nothing.
    from torchcopylint.verify.standins import constructor_defaults, settings_for

    tree = ast.parse(textwrap.dedent("""
        class Agent:
            def __init__(self):
                self.costs = []
                self.seen = {}
                self.name = "dqn"

            def step(self, x):
                self.costs.append(x.sum())
        """))
    defaults = constructor_defaults(tree, "Agent")
    assert defaults == {"self.costs": [], "self.seen": {}, "self.name": "dqn"}, defaults
    [first, *_] = settings_for(tree.body[0].body[1], ["self.costs", "x"], {}, "cpu", None, defaults)
    one, two = first.make()[0], first.make()[0]
    assert one["self.costs"] == [] and one["self.costs"] is not two["self.costs"], (one, two)


def test_constructor_defaults_come_first_for_an_instance_made_of_stand_ins():
    from torchcopylint.verify.standins import constructor_defaults, settings_for

    tree = ast.parse(textwrap.dedent("""
        class Attack:
            def __init__(self, model, eps=0.3, targeted=False, norm="inf", device="cuda", scheduler=None):
                self.model = model
                self.eps = eps
                self.targeted = targeted
                self.norm = norm
                self.device = device
                self.steps = 10

            def perturb(self, x):
                x = x.to(self.device)
                for _ in range(self.steps):
                    if self.targeted and self.norm == "l2":
                        x = x - self.eps
                return self.model(x)
        """))
    defaults = constructor_defaults(tree, "Attack")
    assert defaults == {"self.eps": 0.3, "self.targeted": False, "self.norm": "inf", "self.device": "cuda",
                        "self.steps": 10}
    method = tree.body[0].body[1]
    names = ["self.model", "self.eps", "self.targeted", "self.norm", "self.device", "self.steps", "x"]
    found = settings_for(method, names, {}, "cpu", None, defaults)
    made = [setting.make()[0] for setting in found]
    assert [(m["self.eps"], m["self.steps"], m["self.targeted"], m["self.norm"]) for m in made] == [
        (0.3, 10, False, "inf"), (0.3, 10, True, "inf"), (0.3, 10, False, "l2")] + [(0.3, 10, False, "inf")] * 4
    # Last, the same with one sample a batch, with the tensors as small images, and both: code written for
    # one sample or for images runs on nothing else; then images as a loader gives them, requiring no
    # grad (an attack that makes its own leaf from them fails on any other).
    assert [tuple(m["x"].shape) for m in made] == [(4, 8)] * 3 + [(1, 8), (4, 3, 16, 16), (1, 3, 16, 16),
                                                                  (4, 3, 16, 16)]
    assert [m["x"].requires_grad for m in made] == [True] * 6 + [False]
    # A device default never leaves the verification device.
    assert all(m["self.device"] == "cpu" for m in made)


def test_a_name_nothing_explains_is_not_guessed():
    from torchcopylint.verify.absent import UnknownArgumentUsed
    from torchcopylint.verify.standins import make, plan, uses

    code = "def f(x, config):\n    y = x.clone().detach()\n    name = f\"{config}\"\n    return y, name\n"
    node = ast.parse(code).body[0]
    built = plan(["x", "config"], uses(node), {}, {})
    assert built.kinds == {"x": "tensor", "config": "unknown"}
    made = make(built, "cpu")
    namespace: dict = {}
    exec(code, namespace)
    # The run reaches the line before `config` is used; its use ends the run, saying why.
    with pytest.raises(UnknownArgumentUsed, match=r"needs `config`, and nothing in how the code uses it says what it is"):
        namespace["f"](made["x"], made["config"])
    assert "config = <not made: needs `config`" in built.describe(made)


def test_sizes_and_batch_sizes_are_ints_not_tensors():
    kinds = _kinds("""
        def sample(self):
            z = torch.randn(self.batch_size, self.latent_dim)
            return z.view(self.batch_size, -1)
        """, ["self.batch_size", "self.latent_dim"])
    assert kinds == {"self.batch_size": "batch", "self.latent_dim": "int"}


def test_every_factor_of_a_size_is_an_int():
    # `torch.ones(channels * img_dim**2 // ratio)`: floats there would make a float size, which torch refuses.
    kinds = _kinds("""
        def __init__(self, channels, img_dim, ratio, scale):
            self.singulars = torch.ones(channels * img_dim**2 // ratio) * scale
        """, ["channels", "img_dim", "ratio", "scale"])
    assert kinds == {"channels": "int", "img_dim": "int", "ratio": "int", "scale": "float"}, kinds


def test_optimizer_is_paired_with_its_network_by_name():
    from torchcopylint.verify.standins import pair_optimizer

    assert pair_optimizer("optD", ["netG", "netD"]) == ["netD"]
    assert pair_optimizer("self.opt_gen", ["self.gen", "self.disc"]) == ["self.gen"]
    assert pair_optimizer("self.d_optimizer", ["self.G", "self.D"]) == ["self.D"]
    assert pair_optimizer("opt", ["model"]) == ["model"]


def test_stand_in_networks_return_what_the_code_unpacks():
    import torch

    from torchcopylint.verify.standins import make, plan, uses

    node = ast.parse("def step(G, D, z):\n    fake, attention = G(z)\n    return D(fake)\n").body[0]
    made = make(plan(["G", "D", "z"], uses(node), {}, {"G": "generator", "D": "discriminator"}), "cpu")
    fake, attention = made["G"](made["z"])
    assert fake.shape == (4, 8) and isinstance(attention, torch.Tensor)
    assert made["D"](fake).shape == (4, 1)


def test_a_tensor_whose_shape_the_code_unpacks_has_that_many_dims():
    from torchcopylint.verify.standins import make, plan, uses, with_dims

    # A video model's step (fresh85, two course repositories): `batch_size, k, c, h, w = img.size()`.
    node = ast.parse("def step(img, label, mask):\n    batch_size, k, c, h, w = img.size()\n"
                     "    n, d = mask.shape\n    return img[0, 1] + label[0]\n").body[0]
    made = make(plan(["img", "label", "mask"], uses(node), {}, {}), "cpu")
    assert made["img"].dim() == 5 and made["mask"].dim() == 2 and made["label"].dim() < 5
    assert with_dims((4, 3, 16, 16), 5) == (4, 3, 3, 16, 16)
    assert with_dims((4, 3, 16, 16), 3) == (4, 16, 16)
    assert with_dims((4, 8), 2) == (4, 8)
    # A call's result unpacked is not the shape of what it is called on.
    unpacked = uses(ast.parse("def f(x):\n    a, b = x.size(0), 1\n    c, d = x.chunk(2)\n").body[0])
    assert unpacked["x"].dims == 0


def test_configurations_vary_flags_and_chain_widths_through_the_expansion():
    from torch import nn

    from torchcopylint.verify.configurations import configurations
    from torchcopylint.verify.inputs import Factories

    class Bottleneck(nn.Module):
        expansion = 4

        def __init__(self, inplanes, planes, preact=False):
            super().__init__()
            self.conv = nn.Conv2d(inplanes, planes * self.expansion, 1)

    found = [c.description for c in configurations(Bottleneck, "", "x.py", Factories({}))]
    assert found[:2] == ["Bottleneck(16, 16)", "Bottleneck(64, 16)"]
    assert "Bottleneck(64, 16, preact=True)" in found


def test_a_constructor_argument_used_as_an_array_is_given_a_tensor_and_counts_stay_numbers():
    # cs224n's ParserModel(embeddings, n_features=36): `embeddings.shape[1]` says it is no number
    # (given 16, it failed on `'int' object has no attribute 'shape'`); `hidden`, fed to nn.Linear, stays one.
    import torch
    from torch import nn

    from torchcopylint.verify.configurations import configurations
    from torchcopylint.verify.inputs import Factories

    class Parser(nn.Module):
        def __init__(self, embeddings, hidden, n_features=4):
            super().__init__()
            self.embeddings = nn.Parameter(torch.tensor(embeddings))
            self.hidden = nn.Linear(embeddings.shape[1] * n_features, hidden)

    first = next(configurations(Parser, "", "x.py", Factories({})))
    assert first.description == "Parser(<tensor 16x16>, 16)"
    built = first.build(Parser)
    assert built.embeddings.shape == (16, 16) and built.hidden.out_features == 16


def test_verdict_needs_every_line_of_the_claim_to_have_run():
    from torchcopylint.verify.reach import Run, confirmed, decide, refuted

    class Setting:
        def __init__(self, description):
            self.description = description

    required = {10: "the flagged line", 12: "the in-place write"}
    # The only setting that ran line 12 showed the bug: confirmed, naming that setting.
    runs = {"A()": Run(refuted("no difference"), {10}), "A(flag=True)": Run(confirmed("differs"), {10, 12})}
    outcome = decide([Setting(d) for d in runs], lambda s: runs[s.description], required)
    assert outcome.status == "confirmed" and "A(flag=True)" in outcome.evidence
    # No setting ran line 12: not reached, never refuted.
    runs = {"A()": Run(refuted("no difference"), {10}), "A(flag=True)": Run(refuted("no difference"), {10})}
    outcome = decide([Setting(d) for d in runs], lambda s: runs[s.description], required)
    assert outcome.status == "not reached" and "line 12 (the in-place write) never ran in 2" in outcome.evidence
    # One setting failed before the line: the evidence says the verdict rests on the other, which ended without it.
    runs = {"A()": Run(refuted("no difference"), {10}), "A(flag=True)": Run(None, {10}, "AttributeError: no predict")}
    outcome = decide([Setting(d) for d in runs], lambda s: runs[s.description], required)
    assert outcome.status == "not reached", outcome
    assert "never ran in 2 configurations tried (1 ran to its end without it; 1 failed before it: A(flag=True): " \
           "AttributeError: no predict)" in outcome.evidence, outcome.evidence
    # A universal claim: refuted by one setting that ran everything, whatever the others showed.
    runs = {"A()": Run(confirmed("equal"), {10, 12}), "A(flag=True)": Run(refuted("needed"), {10, 12})}
    outcome = decide([Setting(d) for d in runs], lambda s: runs[s.description], required, universal=True)
    assert outcome.status == "refuted" and "A(flag=True)" in outcome.evidence


def test_runs_that_crashed_are_unverified_not_unreached():
    from torchcopylint.verify.inputs import CannotRun
    from torchcopylint.verify.reach import Run, decide

    class Setting:
        description = "stand-ins"

    with pytest.raises(CannotRun, match="NameError"):
        decide([Setting()], lambda s: Run(None, {3}, "NameError: name 'helper' is not defined"), {10: "the flagged line"})


def test_preparations_are_what_a_caller_in_the_class_runs_before_the_method():
    from torchcopylint.verify.standins import preparations

    tree = ast.parse(textwrap.dedent("""
        class Attack:
            def setup(self, x):
                self.dims = x.dim() - 1

            def log(self, x):
                print(x.shape)

            def reset(self):
                self.history = []

            def step(self, x):
                return x.view(-1, *x.shape[-self.dims:])

            def attack(self, x):
                self.log(x)        # sets nothing: not a preparation
                self.setup(x)
                out = self.step(x)
                self.reset()       # after the call: not a preparation
                return out

        class Other:
            def step(self, x):
                return x

            def run(self, x):
                return self.step(x)
    """))
    assert preparations(tree, "Attack", "step") == [("setup", "as `attack` runs it before")]
    assert preparations(tree, "Attack", "setup") == []
    assert preparations(tree, "Other", "step") == []


def test_a_key_of_a_dict_of_string_keys_is_one_of_its_keys():
    from torchcopylint.verify.standins import settings_for

    tree = ast.parse(textwrap.dedent("""
        STEPS = {"linf": 1, "l2": 2}

        class Store:
            def __init__(self):
                self.count = {"train": 0, "test": 0}

            def take(self, x, mode, norm, index):
                self.count[mode] += x.size(0)
                rows = self.cache[index]
                return x * STEPS[norm] + rows + index
    """))
    method = tree.body[1].body[1]
    found = settings_for(method, ["x", "mode", "norm", "index"], {}, "cpu", tree=tree)
    kinds = found[0].plan.kinds
    assert kinds["mode"] == "choice" and found[0].plan.choices["mode"] == ["train", "test"]
    assert kinds["norm"] == "choice" and found[0].plan.choices["norm"] == ["linf", "l2"]
    # A key of a container the file builds of no string keys says nothing of the kind.
    assert kinds["index"] != "choice"
    made, _ = found[0].make()
    assert made["mode"] == "train" and made["norm"] == "linf"
    # Without the file, nothing says what `mode` is.
    assert settings_for(method, ["x", "mode", "norm", "index"], {}, "cpu")[0].plan.kinds["mode"] == "unknown"


def test_options_read_as_attributes_are_a_namespace_of_values_their_use_says():
    # fresh24's post_train(model, ..., args), called from another file with its parsed options: `args`
    # alone says nothing ("needs `args`"); its attributes do, each as a name would.
    from torchcopylint.verify.standins import settings_for

    tree = ast.parse(textwrap.dedent("""
        def post_train(model, images, args):
            optimizer = torch.optim.SGD(model.parameters(), lr=args.pt_lr)
            history = []
            for _ in range(args.pt_iter):
                if args.pt_data == "ori":
                    data = images
                elif args.pt_data == "train":
                    data = images * 0.5
                loss = model(data).mean() * args.scale
                optimizer.zero_grad()
                loss.backward()
                history.append(loss)
            save(args, history)
            return history
    """))
    settings = settings_for(tree.body[0], ["model", "images", "args"], {}, "cpu")
    plan = settings[0].plan
    assert plan.kinds["args"] == "options"
    assert (plan.kinds["args.pt_lr"], plan.kinds["args.pt_iter"], plan.kinds["args.pt_data"]) == \
        ("float", "count", "choice")
    made, described = settings[0].make()
    assert (made["args"].pt_lr, made["args"].pt_iter, made["args"].pt_data) == (0.1, 2, "ori")
    assert "args = a namespace of the options the code reads (" in described and "pt_data = 'ori'" in described
    # The option's other value is a setting of its own.
    assert any("args.pt_data = 'train'" in setting.description for setting in settings)


def test_options_read_with_a_device_among_them_and_a_class_annotation_are_still_a_namespace():
    # fresh25's `train_GAN(G, D, data_loader, loss_fn, config: GAN_Config)`: `config.device` is what a
    # tensor has too, `config.dlr` is not.
    from torchcopylint.verify.standins import settings_for

    function = ast.parse(textwrap.dedent("""
        def train(G, config: GAN_Config):
            optimizer = torch.optim.Adam(G.parameters(), lr=config.dlr)
            z = torch.randn(config.batch_size, 8).to(config.device)
            return G(z)
    """)).body[0]
    made, described = settings_for(function, ["G", "config"], {"config": "GAN_Config"}, "cpu")[0].make()
    assert (made["config"].dlr, made["config"].device) == (0.1, "cpu"), described


def test_a_progress_bar_of_tqdm_contrib_enumerates_as_python_does():
    # fresh25's `for i, (real, _) in tenumerate(dataloader)` with tqdm missing: pairs, not no-ops.
    from torchcopylint.verify.noops import NoOpModule

    contrib = NoOpModule("tqdm").contrib
    assert list(contrib.tenumerate(["a", "b"])) == [(0, "a"), (1, "b")]
    assert list(contrib.tzip([1, 2], [3, 4])) == [(1, 3), (2, 4)]


@pytest.mark.parametrize("body", [
    "return x.shape[0] + x.size(1)",           # a tensor's attributes only
    "return model.fc.weight.sum()",             # an attribute of an attribute: a module
    "return loader.dataset + loader[0]",        # indexed too
    "return net.encode(x)",                     # a method called
])
def test_a_value_with_attributes_of_its_own_is_no_namespace_of_options(body):
    from torchcopylint.verify.standins import option_uses

    function = ast.parse(f"def f(x, model, loader, net):\n    {body}\n").body[0]
    assert all(option_uses(function, name) == {} for name in ("x", "model", "loader", "net"))


def test_a_value_iterated_by_rows_and_sized_is_a_tensor_not_a_loader():
    from torchcopylint.verify.standins import kind_of, uses

    function = ast.parse(textwrap.dedent("""
        def per_sample(batch, loader):
            out = torch.zeros(batch.size())
            for i, row in enumerate(batch):
                out[i] = row * 2
            for x, y in loader:
                pass
            return out
    """)).body[0]
    found = uses(function)
    assert kind_of("batch", found["batch"]) == "tensor"
    assert kind_of("loader", found["loader"]) == "loader"


def test_numbers_read_one_position_at_a_time_are_a_schedule_and_a_network_updating_its_input_keeps_its_shape():
    import torch

    from torchcopylint.verify.standins import StandInNet, kind_of, make, plan, uses

    function = ast.parse(textwrap.dedent("""
        def anneal(x, score, sigmas, levels, batch, loader, steps: int, idx: int):
            for i, sigma in enumerate(sigmas):
                x += 0.1 * (sigma / sigmas[-1]) ** 2 * score(x, i)
            alpha = levels[idx] ** 2 / levels[-1] ** 2
            first = batch[:, 0] * 2 + batch[-1] * 2
            for data in loader:
                total = data * 2
            return x * alpha + steps
    """)).body[0]
    found = uses(function)
    assert kind_of("sigmas", found["sigmas"]) == "schedule"  # iterated, and read at its last level
    assert kind_of("levels", found["levels"]) == "schedule"  # read at positions only
    assert kind_of("batch", found["batch"]) == "tensor"  # sliced too: a batch's rows
    assert kind_of("loader", found["loader"]) == "loader"  # iterated only: its items may be batches
    assert kind_of("sigmas", found["sigmas"], "int") == "int"  # what the signature says comes first
    made = make(plan(["x", "score", "sigmas"], found, {}, {}), "cpu")
    assert made["sigmas"].tolist() == pytest.approx([1.0, 10 ** -0.5, 0.1, 10 ** -1.5, 0.01])
    assert isinstance(made["score"], StandInNet) and made["score"].like_input
    image = torch.rand(2, 3, 5, 5)
    assert made["score"](image, 0).shape == image.shape


def test_a_network_whose_output_reaches_its_input_s_update_through_locals_gives_its_input_s_shape():
    # fresh116's probability-flow sampler: `score = score_model(x, t)`, `drift = f - g ** 2 * score`,
    # `x = x + drift * dt`: "The size of tensor a (10) must match the size of tensor b (28)".
    from torchcopylint.verify.standins import StandInNet, make, plan, uses

    function = ast.parse(textwrap.dedent("""
        def sample(x, score_model, classifier, criterion, y, steps: int):
            for _ in range(steps):
                score = score_model(x, 0.5)
                drift = -0.5 * score
                x = x + drift * 0.01
            for _ in range(steps):  # an attack's step: the classifier's output is a loss's input
                loss = criterion(classifier(x), y)
                grad = torch.autograd.grad(loss, x)[0]
                x = x + 0.1 * grad.sign()
            return x
    """)).body[0]
    found = uses(function)
    made = make(plan(["x", "score_model", "classifier"], found, {}, {}), "cpu")
    assert isinstance(made["score_model"], StandInNet) and made["score_model"].like_input
    assert not made["classifier"].like_input


def test_class_indices_picked_one_per_row_are_labels_through_a_callee_and_a_tensor_annotation():
    # fresh116's classifier guidance: `log_probs[torch.arange(n), y_target]` in a helper the sampler
    # hands `y_target: torch.Tensor` to ("indexing tensors could not be broadcast together with shapes
    # [4], [4, 8]").
    from torchcopylint.verify.standins import settings_for

    tree = ast.parse(textwrap.dedent("""
        import torch

        def guidance(classifier, x, y_target: torch.Tensor):
            log_probs = classifier(x).log_softmax(-1)
            return log_probs[torch.arange(x.shape[0]), y_target].sum()

        def sampler(classifier, x, y_target: torch.Tensor, scores: torch.Tensor):
            y_target = y_target.long()
            return guidance(classifier, x, y_target) + scores[range(4), 0].sum()
    """))
    function = tree.body[2]
    plan = settings_for(function, ["classifier", "x", "y_target", "scores"],
                        {"y_target": torch_tensor_annotation(), "scores": torch_tensor_annotation()}, "cpu",
                        tree=tree)[0].plan
    assert plan.kinds["y_target"] == "labels", plan.kinds
    assert plan.kinds["scores"] == "tensor", plan.kinds  # indexed by a range and a constant: no class picked


def test_a_value_bound_to_a_local_the_code_rebinds_is_used_as_that_local():
    # fresh119's PINN trainer: `current_failed_ids = initial_failed_ids`, rebound in the loop, then `tid in
    # current_failed_ids`: "needs `initial_failed_ids`, and nothing in how the code uses it says what it is".
    from torchcopylint.verify.standins import kind_of, uses

    function = ast.parse(textwrap.dedent("""
        def polish(model, initial_ids, steps: int):
            current_ids = initial_ids
            for i in range(steps):
                if len(current_ids) == 0:
                    return True
                if 3 in current_ids:
                    current_ids = diagnose(model)
        """)).body[0]
    found = uses(function)
    assert kind_of("initial_ids", found["initial_ids"]) == kind_of("current_ids", found["current_ids"]) != "unknown"
    # A value the code uses itself keeps its own uses.
    function = ast.parse("def f(lr, steps):\n    rate = lr\n    rate = rate * 0.5\n    return lr + 1\n").body[0]
    assert uses(function)["lr"].arithmetic


def torch_tensor_annotation():
    import torch

    return torch.Tensor


def test_what_a_method_hands_whole_to_its_module_s_forward_and_iterates_is_a_tensor():
    from torchcopylint.verify.standins import kind_of, uses

    function = ast.parse(textwrap.dedent("""
        def loss_pde(self, x_pde, loader):
            y_hat = self.forward(x_pde)
            for idx, t in enumerate(x_pde):
                y_hat[idx] = y_hat[idx] * t
            for batch in loader:
                self.step(batch)
            return y_hat
    """)).body[0]
    found = uses(function)
    assert kind_of("x_pde", found["x_pde"]) == "tensor"  # the module's own input, by rows
    assert kind_of("loader", found["loader"]) == "loader"  # handed on item by item


def test_a_count_the_code_divides_is_also_tried_as_ten():
    # `if epoch % int(num_epochs / 10) == ...` (a log every tenth of the run): with two epochs the
    # modulo divides by zero (fresh58's homework GAN); the last settings give counts of ten.
    from torchcopylint.verify.standins import settings_for

    function = ast.parse(textwrap.dedent("""
        def train(model, num_epochs):
            losses = []
            for epoch in range(num_epochs):
                loss = model(torch.randn(4, 2)).mean()
                losses.append(loss)
                if epoch % int(num_epochs / 10) == 0:
                    print(loss)
    """)).body[0]
    found = settings_for(function, ["model", "num_epochs"], {}, "cpu")
    counts = {setting.description: setting.make(seed=0)[0]["num_epochs"] for setting in found}
    assert counts["stand-ins"] == 2 and counts["stand-ins (counts of ten)"] == 10


def test_a_settings_object_a_constructor_keeps_and_reads_options_of_is_a_namespace():
    # An attack class: `self.config = config`, then `self.batch_size = config.batch_size` and more
    # (fresh58: kept, it was taken for a tensor, and `config.batch_size` failed on it).
    from torchcopylint.verify.standins import option_uses

    function = ast.parse(textwrap.dedent("""
        def __init__(self, model, config):
            self.model = model
            self.config = config
            self.device = config.device
            self.batch_size = config.batch_size
            self.confidence = config.CONFIDENCE
    """)).body[0]
    assert set(option_uses(function, "config")) == {"config.device", "config.batch_size", "config.CONFIDENCE"}
    # Computed with, it is no namespace.
    assert option_uses(ast.parse("def f(config):\n    total = config + 1\n    n = config.batch_size\n").body[0],
                       "config") == {}


def test_a_namespace_of_options_keeps_python_s_own_attributes_and_a_stand_in_loss_moves_as_a_module():
    # A GAN class saves its options with `self.args.__dict__` and moves its loss with `.to(device)`
    # (fresh58: "__dict__ must be set to a dictionary", then "'StandInLoss' has no attribute 'to'").
    from torchcopylint.verify.standins import StandInLoss, option_uses, settings_for

    function = ast.parse(textwrap.dedent("""
        def train(self, device, out, y):
            self.bce_loss.to(device)
            for epoch in range(self.args.num_epochs):
                loss = self.bce_loss(out, y)
            for key, value in self.args.__dict__.items():
                print(key, value)
    """)).body[0]
    assert set(option_uses(function, "self.args")) == {"self.args.num_epochs"}
    [setting, *_] = settings_for(function, ["self.bce_loss", "self.args", "device", "out", "y"], {}, "cpu")
    made, _ = setting.make(seed=0)
    assert made["self.args"].num_epochs >= 1 and isinstance(vars(made["self.args"]), dict)
    assert isinstance(made["self.bce_loss"], StandInLoss) and made["self.bce_loss"].to("cpu") is made["self.bce_loss"]


def test_a_list_of_loaders_is_loaders_whose_batches_unpack_as_the_inner_loop_unpacks_them():
    # A continual-learning homework's EWC: `for dataloader in self.dataloaders: for data in dataloader`
    # (fresh57: one loader stood in, so each "loader" was a batch and each "batch" one sample).
    from torchcopylint.verify.standins import kind_of, make, plan, uses

    function = ast.parse(textwrap.dedent("""
        def importance(model, loaders, pairs):
            for loader in loaders:
                for data in loader:
                    model(data[0]).sum().backward()
            for loader in pairs:
                for x, y in loader:
                    model(x)
    """)).body[0]
    found = uses(function)
    assert kind_of("loaders", found["loaders"]) == "loaders" and kind_of("pairs", found["pairs"]) == "loaders"
    made = make(plan(["model", "loaders", "pairs"], found, {}, {}), "cpu")
    assert len(made["loaders"]) == 2 and all(isinstance(loader[0], tuple) for loader in made["loaders"])
    first_batch = made["pairs"][0][0]
    assert len(first_batch) == 2 and first_batch[0].dim() == 2


def test_a_loader_handed_to_a_method_of_the_class_is_a_loader_of_the_batches_that_method_unpacks():
    # pytorch-wgan's trainer: `self.data = self.get_infinite_batches(train_loader)`, which iterates
    # `for i, (images, _) in enumerate(data_loader)` (fresh42: batches of one tensor did not unpack).
    from torchcopylint.verify.standins import _kinds_through_callees, kind_of, uses

    tree = ast.parse(textwrap.dedent("""
        class WGAN:
            def train(self, train_loader):
                self.data = self.get_infinite_batches(train_loader)
                for step in tqdm(enumerate(range(3))):
                    images = self.data.__next__()

            def get_infinite_batches(self, data_loader):
                while True:
                    for i, (images, _) in enumerate(tqdm(data_loader)):
                        yield images
    """))
    found = uses(tree.body[0].body[0])
    _kinds_through_callees(found, tree)
    assert kind_of("train_loader", found["train_loader"]) == "loader" and found["train_loader"].unpacked == 2


def test_a_value_the_code_saves_into_or_reads_from_is_a_path_of_the_project():
    # A CycleGAN trainer's `path_models` was given a tensor (`expected str, bytes or os.PathLike object,
    # not Tensor`, fresh41); a tensor that is also saved stays a tensor.
    from torchcopylint.verify.standins import STAND_IN_FOLDER, kind_of, make, plan, uses

    function = ast.parse(textwrap.dedent("""
        def train(model, path_models, path_b, out, epochs):
            os.makedirs(path_models, exist_ok=True)
            for epoch in range(epochs):
                plt.savefig(path_b + "/batches_{}.png".format(epoch))
                torch.save(model, os.path.join(path_models, "last.pt"))
                torch.save(out.detach(), "out.pt")
    """)).body[0]
    found = uses(function)
    assert kind_of("path_models", found["path_models"]) == "path"
    assert kind_of("path_b", found["path_b"]) == "path"
    assert kind_of("out", found["out"]) == "tensor"
    made = make(plan(["path_models"], found, {}, {}), "cpu")
    assert made["path_models"] == STAND_IN_FOLDER


def test_a_tested_number_added_to_an_int_is_a_flag_that_counts_as_zero():
    kinds = _kinds("""
        def train(self, steps):
            start = self.resume + 1 if self.resume else 0
            for step in range(start, steps):
                pass
            if self.scale:
                x = steps * 0.5 * self.scale
            if self.warmup:
                y = self.warmup + 2
                print(self.warmup * 0.1)
        """, ["self.resume", "self.scale", "self.warmup"])
    # `range(start, n)` needs an int: False is 0 and takes the path without resuming.
    assert kinds["self.resume"] == "bool"
    # Multiplied by a float literal: a float, as before.
    assert kinds["self.scale"] == "float"
    assert kinds["self.warmup"] == "float"


def test_a_class_that_cannot_be_built_names_whole_errors_and_how_many_more():
    from torchcopylint.verify.configurations import _first_errors

    errors = [f"Net({n}): TypeError: {'x' * 70}" for n in range(6)]  # 89 characters each
    text = _first_errors(errors)
    assert text.endswith("(and 3 more)") and text.count("TypeError") == 3, text
    assert all(part in errors for part in text.removesuffix(" (and 3 more)").split("; ")), text
    assert _first_errors(["short"]) == "short"


def test_a_none_default_the_code_uses_as_given_needs_a_stand_in():
    from torchcopylint.verify.standins import missing_parameters

    source = textwrap.dedent("""
        def attack(model, images=None, labels=None, target=None, steps=None, log=None):
            batch = images.shape[0]
            if target is not None:
                labels = target
            for _ in range(steps or 10):
                images = images + model(images).sign()
            if log:
                log.write(batch)
            return images, labels
        """)
    namespace: dict = {}
    exec(source, namespace)
    node = ast.parse(source).body[0]
    # `images` is used as it comes (None would fail at `.shape`); `labels`, `steps` and `log` are only
    # passed along or tested first; `target` is tested against None.
    assert missing_parameters(namespace["attack"], node)[0] == ["model", "images"]
    assert missing_parameters(namespace["attack"])[0] == ["model"]  # without the code: the signature alone


def test_an_argument_read_by_string_keys_is_a_dict_of_those_keys():
    from torchcopylint.verify.standins import settings_for

    node = ast.parse(textwrap.dedent("""
        def training_step(model, batch, step):
            images, labels = batch["image"], batch["label"]
            loss = F.cross_entropy(model(images), labels)
            return {"loss": loss, "step": step}
        """)).body[0]
    found = settings_for(node, ["model", "batch", "step"], {}, "cpu")
    assert found[0].plan.kinds["batch"] == "dict"
    made, text = found[0].make()
    assert set(made["batch"]) == {"image", "label"}
    assert made["batch"]["label"].tolist() == [0, 1, 2, 9] and made["batch"]["image"].shape == (4, 8)
    assert "batch = {'image': (4, 8) float32, 'label': (4,) int64}" in text, text
    # Indexed by strings and computed with, it is a tensor still (a structured array, a dataframe column).
    node = ast.parse("def f(table):\n    return table['x'] * 2 + table.sum()\n").body[0]
    assert settings_for(node, ["table"], {}, "cpu")[0].plan.kinds["table"] == "tensor"


def test_a_dict_whose_values_the_code_uses_as_tensors_is_a_dict_of_tensors():
    from torchcopylint.verify.standins import assumed_through, settings_for

    node = ast.parse(textwrap.dedent("""
        def snapshot(self, params):
            kept = {}
            for name, p in params.items():
                kept[name] = p.clone().detach()
            return kept
        """)).body[0]
    found = settings_for(node, ["params"], {}, "cpu")
    assert found[0].plan.kinds["params"] == "tensors"
    made, text = found[0].make()
    assert len(made["params"]) == 2 and all(value.shape == (4, 8) for value in made["params"].values())
    # Each value requires grad only as a made-up value: a claim resting on it says so.
    assert assumed_through(next(iter(made["params"].values()))) == ["`params['layer0.weight']`, a stand-in"]
    assert "params = {'layer0.weight': (4, 8) float32, 'layer1.weight': (4, 8) float32}" in text, text
    # Values only counted or printed say nothing: no kind is guessed.
    node = ast.parse("def f(counts):\n    for k, v in counts.items():\n        print(k, v)\n").body[0]
    assert settings_for(node, ["counts"], {}, "cpu")[0].plan.kinds["counts"] == "unknown"


def test_a_tensor_the_code_makes_require_grad_is_given_as_a_plain_leaf():
    from torchcopylint.verify.standins import PLAIN_LEAF_MARK, settings_for

    node = ast.parse(textwrap.dedent("""
        def attack(model, x, y):
            x.requires_grad = True
            loss = model(x).sum()
            x = x + loss
            return x
        """)).body[0]
    plan = settings_for(node, ["model", "x", "y"], {}, "cpu")[0].plan
    assert plan.leaves == ("x",)
    made, text = settings_for(node, ["model", "x", "y"], {}, "cpu")[0].make()
    assert made["x"].is_leaf and not made["x"].requires_grad and getattr(made["x"], PLAIN_LEAF_MARK)
    assert "x = tensor(4, 8) (data: a leaf that requires no grad)" in text, text
    # Switched on the code's own copy (`x = x.clone().detach()` first): the argument says nothing.
    node = ast.parse("def attack(model, x):\n    x = x.clone().detach()\n    x.requires_grad = True\n"
                     "    return model(x)\n").body[0]
    assert settings_for(node, ["model", "x"], {}, "cpu")[0].plan.leaves == ()


def test_a_module_the_code_only_hooks_is_a_layer_of_the_network_it_runs():
    from torchcopylint.verify.standins import settings_for

    node = ast.parse(textwrap.dedent("""
        def mid_layer_attack(model, x, y, feature_layer, steps):
            def keep(module, inputs, output):
                global mid
                mid = output
            handle = feature_layer.register_forward_hook(keep)
            out = model(x)
            loss = 0
            for i in range(x.shape[0]):
                loss += out[i][y[i]]
            handle.remove()
            return mid.clone().detach()
        """)).body[0]
    found = settings_for(node, ["model", "x", "y", "feature_layer", "steps"], {}, "cpu")
    kinds = found[0].plan.kinds
    # `y[i]` indexes the scores: its elements are class indices, not values.
    assert kinds["feature_layer"] == "layer" and kinds["model"] == "module" and kinds["y"] == "labels", kinds
    made, text = found[0].make()
    # The hook fires as the network runs: the layer is one of its own.
    assert any(made["feature_layer"] is layer for layer in made["model"].modules()), made
    assert "feature_layer = the linear layer of the stand-in `model`" in text, text
    # A module the code calls is a network of its own, hooked or not.
    node = ast.parse("def f(net, x):\n    net.register_forward_hook(print)\n    return net(x)\n").body[0]
    assert settings_for(node, ["net", "x"], {}, "cpu")[0].plan.kinds["net"] == "module"


def test_a_subclass_of_a_no_op_transform_passes_tensors_through_its_base_call():
    import torch

    from torchcopylint.verify.noops import NoOp

    class Inverse(NoOp("torchvision.transforms.Normalize")):
        def __call__(self, tensor):
            return super().__call__(tensor.clone())

    image = torch.rand(3, 4, 4)
    assert torch.equal(Inverse(mean=(0.5,), std=(0.5,))(image), image)


def test_a_network_one_branch_unpacks_is_also_tried_returning_one_tensor():
    import torch

    from torchcopylint.verify.standins import settings_for

    node = ast.parse(textwrap.dedent("""
        def invert(G, D, z, improved=False):
            fake = G(z)
            if improved:
                _, label = D(fake)
            else:
                label = D(fake)
            return -label.mean()
        """)).body[0]
    found = settings_for(node, ["G", "D", "z"], {}, "cpu")
    assert found[0].plan.returns["D"] == 2
    whole = [s for s in found if s.description == "stand-ins (networks returning one tensor)"]
    assert len(whole) == 1, [s.description for s in found]
    made, _ = whole[0].make()
    assert isinstance(made["D"](torch.rand(4, 8)), torch.Tensor)
    # Nothing unpacked: no such variant.
    node = ast.parse("def f(D, x):\n    return D(x).mean()\n").body[0]
    assert all("one tensor" not in s.description for s in settings_for(node, ["D", "x"], {}, "cpu"))


def test_what_the_code_gives_torch_from_numpy_is_a_numpy_array_with_rows_for_several_batches():
    # A course's homework (fresh87): `batch_data = train_data[j * 40:(j + 1) * 40]`, then
    # `torch.from_numpy(batch_data)`; a tensor stand-in failed with "expected np.ndarray (got Tensor)".
    import numpy as np

    from torchcopylint.verify.standins import ARRAY_ROWS, settings_for

    node = ast.parse(textwrap.dedent("""
        def fit(train_data, test_data, d):
            theta = torch.zeros(d, requires_grad=True)
            losses = []
            for j in range(train_data.shape[0] // 40):
                batch_data = train_data[j * 40:(j + 1) * 40]
                loss = -(theta.mean() * torch.from_numpy(batch_data)).mean()
                loss.backward()
                losses.append(loss)
            return losses, torch.from_numpy(test_data)
        """)).body[0]
    setting = settings_for(node, ["train_data", "test_data", "d"], {}, "cpu")[0]
    assert setting.plan.kinds["train_data"] == "array" and setting.plan.kinds["test_data"] == "array"
    made, _ = setting.make()
    assert isinstance(made["train_data"], np.ndarray) and made["train_data"].shape[0] == ARRAY_ROWS
    assert "train_data = a NumPy array (192," in setting.plan.describe(made)
    # Moved to a device or used with tensor methods only a tensor has, it is a tensor as before.
    moved = ast.parse("def f(x):\n    y = x.to('cpu')\n    return torch.from_numpy(x), y.detach()\n").body[0]
    assert settings_for(moved, ["x"], {}, "cpu")[0].plan.kinds["x"] == "tensor"


def test_a_decorator_of_a_no_op_package_leaves_what_it_decorates():
    # sacred's `@ex.automain` (fresh87's few-shot segmentation scripts): swallowed by the stand-in, the
    # training function was never run, and the claims inside it read as not reached.
    from torchcopylint.verify.noops import NoOp

    ex = NoOp("sacred.Experiment")("few-shot")

    @ex.automain
    def main(epochs):
        return epochs * 2

    @NoOp("wandb.watch")
    class Trainer:
        pass

    assert main(3) == 6 and isinstance(Trainer(), Trainer)
    assert isinstance(NoOp("tqdm.write")("done"), NoOp)  # a call given no function is a no-op as before


def test_nothing_is_an_instance_of_a_no_op_package_s_type():
    import torch

    from torchcopylint.verify.noops import NoOp

    folder = NoOp("torchvision.datasets.ImageFolder")
    assert not isinstance(torch.rand(2), folder) and not isinstance([], (folder, dict))
    assert not issubclass(list, folder)


def test_an_index_told_apart_by_equality_with_integers_is_each_of_them_in_turn():
    from torchcopylint.verify.standins import settings_for

    node = ast.parse(textwrap.dedent("""
        def forward(self, inputs, reconstructions, optimizer_idx, step):
            loss = (inputs - reconstructions).abs().mean()
            if optimizer_idx == 0:
                return loss.clone().detach()
            if optimizer_idx == 1:
                return loss * step
        """)).body[0]
    found = settings_for(node, ["inputs", "reconstructions", "optimizer_idx", "step"], {}, "cpu")
    assert found[0].plan.kinds["optimizer_idx"] == "choice", found[0].plan.kinds
    values = [s.make()[0]["optimizer_idx"] for s in found if "optimizer_idx" in s.description or s is found[0]]
    assert values[:2] == [0, 1], values
    # A number compared with an integer and also computed with is a number, not a choice.
    node = ast.parse("def f(x, scale):\n    if scale == 1:\n        return x\n    return x * scale\n").body[0]
    assert settings_for(node, ["x", "scale"], {}, "cpu")[0].plan.kinds["scale"] == "float"


def test_loaders_load_in_the_verification_process():
    import subprocess
    import sys

    from conftest import subprocess_env

    code = textwrap.dedent("""\
        import torch
        from torch.utils.data import DataLoader, TensorDataset
        from torchcopylint.verify.batches import loaders_in_process
        loaders_in_process()
        data = TensorDataset(torch.arange(8.0))
        workers = DataLoader(data, batch_size=4, num_workers=4, persistent_workers=True, prefetch_factor=4)
        positional = DataLoader(data, 4, False, None, None, 2, lambda batch: len(batch))
        print(workers.num_workers, positional.num_workers, [b for b in positional], len(list(workers)))
    """)
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=subprocess_env(),
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ["0", "0", "[4,", "4]", "2"], result.stdout


def test_a_value_only_passed_to_a_function_of_the_file_is_what_that_function_uses_it_as():
    from torchcopylint.verify.standins import settings_for

    tree = ast.parse(textwrap.dedent("""
        def adopt_weight(weight, global_step, threshold=0, value=0.0):
            if global_step < threshold:
                weight = value
            return weight

        def loss_of(logits, global_step, factor):
            loss = -logits.mean() * adopt_weight(factor, global_step, threshold=100)
            return loss.clone().detach()
        """))
    found = settings_for(tree.body[1], ["logits", "global_step", "factor"], {}, "cpu", tree=tree)
    kinds = found[0].plan.kinds
    assert kinds["global_step"] == "float" and kinds["logits"] == "tensor", kinds
    # Without the file, passing it along says nothing but "a value the file's code takes": a tensor.
    assert settings_for(tree.body[1], ["logits", "global_step", "factor"], {}, "cpu")[0].plan.kinds[
        "global_step"] == "tensor"


def test_a_range_bound_stays_a_whole_number_when_a_function_it_is_passed_to_computes_fractions_of_it():
    # fresh97's APGD attack: `ckpts = _checkpoints(steps)`, which rounds `0.22 * n_iter`, beside
    # `for k in range(steps)`; a float stood in ("'float' object cannot be interpreted as an integer").
    from torchcopylint.verify.standins import settings_for

    tree = ast.parse(textwrap.dedent("""
        def _checkpoints(n_iter):
            return {int(round(f * n_iter)) for f in (0.22, 0.5) if f * n_iter < n_iter}

        def attack(images, budget):
            marks = _checkpoints(budget)
            x = images.clone()
            for k in range(budget):
                x = x * 0.5
            return x
        """))
    kinds = settings_for(tree.body[1], ["images", "budget"], {}, "cpu", tree=tree)[0].plan.kinds
    assert kinds["budget"] == "count" and kinds["images"] == "tensor", kinds


def test_a_value_one_callee_scales_by_and_another_gives_torch_as_a_tensor_is_a_number_tensor():
    # fresh97's APGD attack: `_init_random(x, eps_n)` computes `delta * eps_n`, `_project(x, eps_n)`
    # `torch.min(x, eps_n)`; the float that stood in failed there ("min() received an invalid combination").
    from torchcopylint.verify.standins import make, settings_for

    tree = ast.parse(textwrap.dedent("""
        import torch

        def _init_random(x, eps_n):
            return x + torch.empty_like(x).uniform_(-1, 1) * eps_n

        def _project(x, eps_n):
            return torch.max(torch.min(x, eps_n), -eps_n)

        def attack(images, eps_n):
            x = _init_random(images, eps_n)
            step = 2.0 * eps_n
            return _project(x.clone() + step, eps_n)
        """))
    plan = settings_for(tree.body[3], ["images", "eps_n"], {}, "cpu", tree=tree)[0].plan
    assert plan.kinds["eps_n"] == "number tensor", plan.kinds
    made = make(plan, "cpu")
    assert made["eps_n"].dim() == 0
    # With only the callee that scales by it, a float still stands in.
    tree.body[3].body[2] = ast.parse("return x.clone() + step").body[0]
    assert settings_for(tree.body[3], ["images", "eps_n"], {}, "cpu", tree=tree)[0].plan.kinds["eps_n"] == "float"


def test_an_object_the_code_only_calls_methods_of_gives_tensors_that_follow_what_it_is_given():
    # fresh97's diffusion autoencoder loss: `kl_loss = posteriors.kl()`, a distribution of the project's;
    # "needs `posteriors`, and nothing in how the code uses it says what it is".
    import torch

    from torchcopylint.verify.standins import make, settings_for

    function = ast.parse(textwrap.dedent("""
        def loss_of(reconstruction, posteriors, lookup):
            kl = posteriors.kl()
            return reconstruction.mean() + kl.sum() / kl.shape[0] + lookup.score(reconstruction).sum()
        """)).body[0]
    plan = settings_for(function, ["reconstruction", "posteriors", "lookup"], {}, "cpu")[0].plan
    assert plan.kinds["posteriors"] == plan.kinds["lookup"] == "tensor methods", plan.kinds
    made, again = make(plan, "cpu"), make(plan, "cpu", seed=1)
    kl = made["posteriors"].kl()
    assert kl.shape == made["reconstruction"].shape and not kl.requires_grad
    assert torch.equal(kl, made["posteriors"].kl()) and torch.equal(kl, again["posteriors"].kl())
    # What it is given reaches what it gives: a changed input, and its graph.
    given = torch.ones(2, 3, requires_grad=True)
    assert made["lookup"].score(given).requires_grad and not torch.equal(made["lookup"].score(given),
                                                                        made["lookup"].score(given * 2))
    assert "posteriors = an object whose `kl()` gives stand-in values, a tensor of the shape of the first tensor " \
           "given, else (4, 8)" in plan.describe(made)
    with pytest.raises(AttributeError):
        made["posteriors"].sample  # noqa: B018 - only the methods the code calls
    # Given tensors, the shape of the first: a schedule of the project's read as a number (fresh116's
    # `sde.sigma_t(torch.tensor([t0])).item()`: "a Tensor with 32 elements cannot be converted to Scalar").
    assert made["lookup"].score(torch.ones(1)).shape == (1,)
    assert made["lookup"].score(torch.ones(2, 1, 6, 6), torch.ones(2)).shape == (2, 1, 6, 6)


def test_a_method_whose_result_the_code_takes_apart_gives_that_many_tensors():
    # fresh102's PPO: `s, a, a_logprob, r, s_, dw, done = replay_buffer.numpy_to_tensor()` ("not enough
    # values to unpack (expected 7, got 4)" from one stand-in tensor of four samples).
    from torchcopylint.verify.standins import make, settings_for

    function = ast.parse(textwrap.dedent("""
        def update(replay_buffer):
            s, a, r = replay_buffer.numpy_to_tensor()
            return (s * a + r).sum() + replay_buffer.priorities().sum()
        """)).body[0]
    plan = settings_for(function, ["replay_buffer"], {}, "cpu")[0].plan
    assert plan.kinds["replay_buffer"] == "tensor methods", plan.kinds
    buffer = make(plan, "cpu")["replay_buffer"]
    s, a, r = buffer.numpy_to_tensor()
    assert s.shape == a.shape == r.shape and buffer.priorities().shape == s.shape, (s.shape, buffer.priorities().shape)


def test_a_run_context_of_the_project_s_and_an_iterator_advanced_with_next_get_stand_ins_of_their_kind():
    # fresh97's GAN trainers: `ctx.inc_iter()` beside `torch.zeros(n, device=ctx.device)` ("'Tensor' object
    # has no attribute 'inc_iter'"), and `X_real, _ = next(it)` ("'Tensor' object is not an iterator").
    import torch

    from torchcopylint.verify.standins import make, settings_for

    function = ast.parse(textwrap.dedent("""
        def run_epoch(net, it, ctx):
            ctx.inc_iter()
            X_real, _ = next(it)
            y = torch.zeros((X_real.shape[0], 1), device=ctx.device)
            return net(X_real).clone().detach() - y
        """)).body[0]
    plan = settings_for(function, ["net", "it", "ctx"], {}, "cpu")[0].plan
    assert plan.kinds["ctx"] == "tensor methods" and plan.kinds["it"] == "loader", plan.kinds
    made = make(plan, "cpu")
    assert made["ctx"].device == torch.device("cpu")
    first, second = next(made["it"]), next(made["it"])
    assert len(first) == 2 and not torch.equal(first[0], second[0])
    # A method a tensor has (`x.tolist()`) is never taken for one of the project's.
    other = ast.parse("def f(x):\n    return sorted(x.tolist())").body[0]
    assert settings_for(other, ["x"], {}, "cpu")[0].plan.kinds["x"] != "tensor methods"


def test_a_network_reached_only_through_methods_of_the_project_s_class_answers_them_with_its_forward():
    # fresh97's SSL robustness attacks: `model.get_embedding(x_adv)` on a wrapper of a pretrained network;
    # "needs `model`, and nothing in how the code uses it says what it is".
    import torch

    from torchcopylint.verify.standins import StandInNet, make, settings_for

    function = ast.parse(textwrap.dedent("""
        def attack(model, images):
            x = images.clone().requires_grad_(True)
            emb = model.get_embedding(x)
            return emb.sum()
        """)).body[0]
    plan = settings_for(function, ["model", "images"], {}, "cpu")[0].plan
    assert plan.kinds["model"] == "module" and plan.own_methods["model"] == ("get_embedding",), plan
    network = make(plan, "cpu")["model"]
    batch = torch.ones(2, 8)
    assert isinstance(network, StandInNet) and torch.equal(network.get_embedding(batch), network(batch))
    with pytest.raises(AttributeError):
        network.fit  # noqa: B018 - only the methods the code calls are answered
    # A name the code only indexes, or that is not named for a network, is not made one.
    other = ast.parse("def f(table, images):\n    return table.lookup(images)").body[0]
    assert settings_for(other, ["table", "images"], {}, "cpu")[0].plan.kinds["table"] != "module"


def test_the_sizes_a_tensor_is_resized_or_a_new_one_made_to_are_whole_numbers():
    # fresh65's InfoGAN: `noise.data.resize_(batch_size, self.noise_dim)`; a tensor stood in ("new(): argument
    # 'size' failed to unpack the object at pos 2").
    from torchcopylint.verify.standins import kind_of, uses

    method = ast.parse(textwrap.dedent("""
        def fill(self, noise, rows, n):
            noise.data.resize_(rows, self.noise_dim)
            return noise.new_zeros(n, 3)
    """)).body[0]
    found = uses(method)
    assert [kind_of(name, found[name]) for name in ("self.noise_dim", "rows", "n")] == ["int", "int", "int"]


def test_what_an_optimizer_of_the_file_hands_torch_s_optimizer_is_a_network_s_parameters():
    # fresh64's Ranger: `super().__init__(params, defaults)` in an Optimizer subclass; the stand-in was a
    # tensor ("params argument given to the optimizer should be an iterable of Tensors or dicts").
    from torchcopylint.verify.standins import kind_of, uses

    source = """
        class Ranger(Optimizer):
            def __init__(self, params, lr=1e-3, alpha=0.5, k=6):
                defaults = dict(lr=lr, alpha=alpha, k=k)
                super().__init__(params, defaults)
                self.slow_weights = [[p.clone().detach() for p in group["params"]] for group in self.param_groups]

        class Lookahead(Optimizer):
            def __init__(self, params, base):
                Optimizer.__init__(self, params, {"lr": 0.1})

        def fit(weights, lr):
            return torch.optim.Adam(weights, lr)

        class Layer(nn.Module):
            def __init__(self, size, bias):
                super().__init__(size, bias)
    """
    classes = ast.parse(textwrap.dedent(source)).body
    for definition, name in ((classes[0].body[0], "params"), (classes[1].body[0], "params"), (classes[2], "weights")):
        found = uses(definition)
        assert kind_of(name, found[name]) == "parameters", (name, found[name])
    found = uses(classes[3].body[0])  # `super().__init__(size, bias)` of another base: no optimizer's defaults
    assert kind_of("size", found["size"]) != "parameters"


def test_a_callable_given_a_network_s_parameters_makes_an_optimizer_and_a_peak_lr_is_a_number():
    import torch

    from torchcopylint.verify.standins import settings_for

    node = ast.parse(textwrap.dedent("""
        def fit_cycle(epochs, max_lr, model, loader, opt_fn):
            optimizer = opt_fn(model.parameters(), max_lr, weight_decay=0)
            sched = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr, epochs=epochs, steps_per_epoch=len(loader))
            for x, y in loader:
                loss = model(x).mean()
                loss.backward()
                optimizer.step()
                sched.step()
        """)).body[0]
    found = settings_for(node, ["epochs", "max_lr", "model", "loader", "opt_fn"], {}, "cpu")
    kinds = found[0].plan.kinds
    assert kinds["opt_fn"] == "optimizer class" and kinds["max_lr"] == "float" and kinds["model"] == "module", kinds
    made, text = found[0].make()
    assert isinstance(made["opt_fn"](made["model"].parameters(), made["max_lr"]), torch.optim.SGD)
    assert "opt_fn = torch.optim.SGD" in text, text


def test_the_classes_a_function_s_argument_needs_are_those_with_every_method_it_calls_on_it():
    from torchcopylint.verify.projectnets import classes_for, methods_beyond_a_network

    tree = ast.parse(textwrap.dedent("""
        def fit(model, loader):
            model.train()
            for batch in loader:
                model.training_step(batch).backward()
            model.epoch_end()

        class Base(nn.Module):
            def training_step(self, batch):
                return self(batch[0]).sum()

        class Net(Base):
            def epoch_end(self):
                pass

        class Other(nn.Module):
            def training_step(self, batch):
                return batch
        """))
    function = tree.body[0]
    assert methods_beyond_a_network(function, ["model", "loader"]) == {"model": {"training_step", "epoch_end"}}
    # `train` is nn.Module's own; `Other` lacks `epoch_end`, `Base` too (only its subclass has both).
    assert classes_for(tree, function) == ("Net",)


def test_the_classes_a_function_s_argument_needs_may_come_from_the_project_s_own_modules(tmp_path):
    from torchcopylint.verify.projectnets import classes_for

    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "__init__.py").write_text("from .nets import Net as Net\n")
    (tmp_path / "models" / "nets.py").write_text(textwrap.dedent("""
        class Net(nn.Module):
            def training_step(self, batch):
                return self(batch[0]).sum()

        class Plain(nn.Module):
            pass
        """))
    (tmp_path / "course.py").write_text("class Local(nn.Module):\n    def training_step(self, batch):\n        pass\n")
    train = tmp_path / "train.py"
    train.write_text(textwrap.dedent("""
        from models import Net as Model
        from models.nets import Plain
        from torch.nn import Linear
        try:
            from course import Local
        except ImportError:
            Local = None

        def fit(model, loader):
            for batch in loader:
                model.training_step(batch).backward()
        """))
    tree = ast.parse(train.read_text())
    function = tree.body[-1]
    # Through the package's re-export and under its local name, and from a `try:`; `Plain` lacks the
    # method, `Linear` is no file of the project.
    assert classes_for(tree, function, str(train)) == ("Model", "Local")
    assert classes_for(tree, function) == ()  # without the file's path, only its own classes


def test_a_method_filling_a_container_the_flagged_one_reads_and_init_leaves_empty_runs_first():
    from torchcopylint.verify.standins import preparations

    tree = ast.parse(textwrap.dedent("""
        class Distiller:
            def __init__(self, teacher):
                self.teacher = teacher
                self.anchors = []
                self.log = []

            def train_teacher(self, epochs=2):
                self.log.append("teacher")
                self.anchors.append(self.teacher)

            def train_student(self, epochs=2):
                teacher = self.anchors[0]          # read by index: needs train_teacher first
                self.log.append("student")
                return teacher

            def report(self):
                return len(self.log)               # sized only, and filled by what it reads anyway

        class Keeps:
            def __init__(self):
                self.cache = []

            def fill(self):
                self.cache.append(1)

            def read(self):
                self.fill()                        # fills it itself: nothing to run first
                return self.cache[0]
    """))
    assert preparations(tree, "Distiller", "train_student") == [
        ("train_teacher", "as it fills `self.anchors`, which `train_student` reads, and nothing `train_student` runs does")]
    assert preparations(tree, "Distiller", "report") == []
    assert preparations(tree, "Keeps", "read") == []


def test_a_method_counting_what_a_buffer_stores_runs_before_the_one_that_samples_it():
    # A replay buffer starts with `self.idx = 0`: `sample` draws `randint(0, self.idx)`, which fails until
    # `add` stored something. `train` calls `sample` itself (its caller, not its preparation), and an
    # epsilon schedule only compares its count.
    from torchcopylint.verify.standins import preparations, stored_rows

    tree = ast.parse(textwrap.dedent("""
        from collections import deque
        import numpy as np
        import random

        class Buffer:
            def __init__(self, capacity, obs_shape):
                self.obses = torch.empty((capacity, *obs_shape))
                self.dones = torch.empty((capacity, 1))
                self.idx = 0
                self.full = False

            def reset(self):
                self.idx = 0                      # empties it again: no filler

            def add(self, obs, done):
                self.obses[self.idx] = obs.clone()
                self.dones[self.idx] = 1.0 - done
                self.idx += 1

            def add_batch(self, obs):
                self.obses[self.idx:self.idx + len(obs)] = torch.as_tensor(obs)

            def sample(self, batch_size):
                idxs = np.random.randint(0, self.idx, size=batch_size)
                return self.obses[idxs].clone()

            def train(self):
                self.idx += 1
                return self.sample(4)

        class Agent:
            def __init__(self):
                self.memory = deque(maxlen=100)
                self.steps = 0

            def remember(self, transition):
                self.memory.append(transition)

            def act(self, state):
                self.steps += 1
                if self.steps > 10:               # a schedule compares its count: nothing to fill
                    return 0
                return 1

            def replay(self):
                return random.sample(self.memory, 2)[0]
    """))
    assert preparations(tree, "Buffer", "sample") == [
        ("add", "as it fills `self.idx`, which `sample` reads, and nothing `sample` runs does")]
    assert preparations(tree, "Agent", "replay") == [
        ("remember", "as it fills `self.memory`, which `replay` reads, and nothing `replay` runs does")]
    assert preparations(tree, "Agent", "act") == []
    methods = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    # The row stored and the rows of a slice keep the buffer's shape; `1.0 - done` is `done`'s shape.
    assert stored_rows(methods["add"]) == (("obs", "obses", False), ("done", "dones", False))
    assert stored_rows(methods["add_batch"]) == (("obs", "obses", True),)
    assert stored_rows(methods["sample"]) == ()


def test_what_takes_requires_grad_and_is_used_as_a_tensor_is_a_tensor():
    # fresh107's RL attack: `obs.requires_grad_(True)` (a module's method too) beside `torch.zeros_like(obs)`
    # and `perturbation + obs`: a tensor (before: a stand-in network, which `zeros_like` refused). A network
    # switched off the same way and called stays one.
    kinds = _kinds("""
        def attack(evaluator, obs, critic, epsilon):
            perturbation = torch.nn.Parameter(torch.zeros_like(obs))
            obs.requires_grad_(True)
            critic.requires_grad_(False)
            q = critic(perturbation + obs)
            return q
    """, ["obs", "critic"])
    assert kinds == {"obs": "tensor", "critic": "module"}


def test_a_name_equal_to_arithmetic_with_a_number_is_a_number():
    # bubbliiiing's `fit_one_epoch(..., epoch, epoch_step, gen, Epoch, ...)`: `Epoch` is only printed
    # and compared with `epoch + 1`.
    kinds = _kinds("""
        def fit_one_epoch(epoch, Epoch, save_period):
            print('Epoch:' + str(epoch + 1) + '/' + str(Epoch))
            if (epoch + 1) % save_period == 0 or epoch + 1 == Epoch:
                return True
        """, ["epoch", "Epoch", "save_period"])
    assert kinds["Epoch"] in ("count", "int", "float"), kinds


def test_an_argument_whose_weight_and_bias_are_read_is_a_layer_of_its_own():
    # A pruning helper: `layer.weight.index_select(dim, index)`; no network in the plan to take it from.
    from torch import nn

    from torchcopylint.verify.standins import make, plan, uses

    node = ast.parse(textwrap.dedent("""
        def prune_linear_layer(layer, index, dim=0):
            W = layer.weight.index_select(dim, index).clone().detach()
            b = layer.bias[index].clone().detach() if layer.bias is not None else None
            return W, b
        """)).body[0]
    made_plan = plan(["layer", "index"], uses(node), {}, {})
    assert made_plan.kinds == {"layer": "layer", "index": "labels"}, made_plan.kinds
    made = make(made_plan, "cpu")
    assert isinstance(made["layer"], nn.Linear) and made["layer"].weight.requires_grad


def test_an_optimizer_is_told_from_a_module_by_param_groups_and_step_though_both_have_a_state_dict():
    kinds = _kinds("""
        def find_lr(self):
            saved = self.optimizer.state_dict()
            for group in self.optimizer.param_groups:
                group["lr"] = 0.1
            self.optimizer.step()
            self.optimizer.load_state_dict(saved)
            return self.model.state_dict()
        """, ["self.optimizer", "self.model"])
    assert kinds == {"self.optimizer": "optimizer", "self.model": "module"}, kinds
    # Methods both have, and nothing else: a module, as before (`model.zero_grad()`, `model.state_dict()`).
    assert _kinds("""
        def save(self):
            self.model.zero_grad()
            return self.model.state_dict()
        """, ["self.model"]) == {"self.model": "module"}


def test_a_none_default_the_base_constructor_computes_with_is_made_a_number():
    # AutoAttack's targeted APGD: `eps=None` handed on to the base, whose `eps + 0.` needs a number
    # (before: built with None, every experiment failed with "NoneType + float").
    from torchcopylint.verify.standins import _computed_with_by_the_base

    tree = ast.parse(textwrap.dedent("""
        class Attack:
            def __init__(self, predict, eps=None, norm="Linf", steps=None, seed=0):
                self.eps_orig = eps + 0.
                self.norm = norm
                self.steps = steps

        class TargetedAttack(Attack):
            def __init__(self, predict, eps=None, norm="Linf", steps=None, seed=0):
                super().__init__(predict, eps=eps, norm=norm, steps=steps, seed=seed)

        class Explicit(Attack):
            def __init__(self, predict, radius=None):
                Attack.__init__(self, predict, radius)
        """))
    init = tree.body[1].body[0]
    assert _computed_with_by_the_base(tree, "TargetedAttack", init) == {"eps"}  # `steps` is only kept
    assert _computed_with_by_the_base(tree, "Explicit", tree.body[2].body[0]) == {"radius"}


def test_the_defaults_of_the_script_parser_are_read_plainly():
    from torchcopylint.verify.standins import parser_defaults

    tree = ast.parse(textwrap.dedent("""\
        parser.add_argument("--lr", type=float, default=0.01)
        parser.add_argument("--use-apex", action="store_true")
        parser.add_argument("--no_flip", dest="flip", action="store_false")
        parser.add_argument("--mode", choices=["a", "b"], default="a")
        parser.add_argument("--resume", default=None)
        parser.add_argument("--size", default=computed())
        parser.add_argument("--twice", default=1)
        other.add_argument("--twice", default=2)
    """))
    assert parser_defaults(tree) == {"lr": 0.01, "use_apex": False, "flip": True, "mode": "a"}


def test_an_attribute_read_for_its_options_is_a_namespace_and_a_range_start_is_zero():
    # fresh30's course trainer: `self.params.max_epoch`, `self.params.lr` of a hyperparameter object the
    # constructor stores (made a do-nothing object, `range()` failed on it); and `range(self.init_epoch + 1,
    # ...)`, where a resumed epoch made 2 emptied the loop: a start is 0, as in a run that resumes nothing.
    from torchcopylint.verify.standins import settings_for

    node = ast.parse(textwrap.dedent("""
        def train(self, x):
            for epoch in range(self.init_epoch + 1, self.params.max_epoch):
                loss = self.model(x).mean() * self.params.weight
        """)).body[0]
    found = settings_for(node, ["x", "self.init_epoch", "self.params", "self.model"], {}, "cpu")
    plan = found[0].plan
    assert plan.kinds["self.params"] == "options" and plan.kinds["self.init_epoch"] == "start", plan.kinds
    made, text = found[0].make()
    assert made["self.init_epoch"] == 0 and made["self.params"].max_epoch == 2, made
    assert "self.params = a namespace of the options the code reads (max_epoch = 2, weight = " in text, text


def test_a_number_that_is_the_input_of_a_torch_function_is_a_zero_dim_tensor():
    # fresh33's fixed-point quantization helper: `if m == 0:`, `torch.frexp(m)`, `m / 2.0 ** shift`. A
    # made-up float failed `frexp` ("must be Tensor, not float"); a 0-dim tensor compares and computes
    # as the number does. A number handed to a factory (`torch.full(size, m)`) stays a number.
    import torch

    from torchcopylint.verify.standins import settings_for

    node = ast.parse(textwrap.dedent("""
        def quantize(m, scale, size):
            if m == 0:
                return 0, 0
            q, shift = torch.frexp(m)
            return torch.full((size,), scale) * (m / 2.0 ** shift), q
        """)).body[0]
    made, text = settings_for(node, ["m", "scale", "size"], {}, "cpu")[0].make()
    assert isinstance(made["m"], torch.Tensor) and made["m"].dim() == 0, made
    assert not isinstance(made["scale"], torch.Tensor), made
    assert "m = tensor(0.1000)" in text, text


def test_a_loader_iterated_and_its_dataset_read_is_no_namespace_of_options():
    # `for data, target in enumerate(test_loader)`, then `len(test_loader.dataset)`: a loader, though
    # `dataset` is also what a namespace of options (`args.dataset`) holds.
    code = ("def evaluate(model, test_loader, configs, device):\n"
            "    for batch_idx, (data, target) in enumerate(test_loader):\n"
            "        output = model(torch.tensor(data).to(device))\n"
            "    return 1.0 / len(test_loader.dataset)\n")
    from torchcopylint.verify.standins import settings_for

    settings = settings_for(ast.parse(code).body[0], ["model", "test_loader", "configs", "device"], {}, "cpu")
    assert settings[0].plan.kinds["test_loader"] == "loader", settings[0].plan.kinds


def test_a_tensor_indexed_by_labels_holds_a_row_per_class():
    from torchcopylint.verify.inputs import CLASSES
    from torchcopylint.verify.standins import make, plan, uses

    code = ("def loss(model, x, y, cw_eps):\n    out = model(x)\n    batch_eps = cw_eps[y]\n"
            "    return F.cross_entropy(out, y) * batch_eps.mean()\n")
    node = ast.parse(code).body[0]
    built = plan(["model", "x", "y", "cw_eps"], uses(node), {}, {"model": "network"})
    assert built.kinds["cw_eps"] == "tensor" and built.per_class == ("cw_eps",), (built.kinds, built.per_class)
    made = make(built, "cpu")
    assert tuple(made["cw_eps"].shape) == (CLASSES,)
    assert made["cw_eps"][made["y"]].shape == made["y"].shape  # every label the stand-ins hold indexes a row


def test_an_option_copied_to_a_local_is_used_as_that_local():
    from torchcopylint.verify.standins import settings_for

    # `use_rs = config.use_rs`, then `if not use_rs:`: a flag; `n_iter = config.perturb_steps`, a count.
    code = textwrap.dedent("""\
        def apgd_attack(config, model, x, y):
            use_rs = config.use_rs
            n_iter = config.perturb_steps
            if not use_rs:
                x_adv = x.clone()
            for i in range(n_iter):
                x_adv = x_adv + model(x_adv).sum() * 0.1
            return x_adv
        """)
    plan = settings_for(ast.parse(code).body[0], ["config", "model", "x", "y"], {}, "cpu")[0].plan
    assert plan.kinds["config"] == "options"
    assert (plan.kinds["config.use_rs"], plan.kinds["config.perturb_steps"]) == ("bool", "count"), plan.kinds


def test_a_value_only_passed_to_a_function_of_the_file_that_calls_it_is_a_loss_or_a_network():
    # An attack's `create_adv_test(model, X, y, eps, criterion)` hands both on to `adv_attack`, which
    # calls them: a tensor given for either was "not callable" (fresh52).
    from torchcopylint.verify.standins import settings_for

    tree = ast.parse(textwrap.dedent("""
        def adv_attack(model, image, epsilon, labels, criterion):
            image = image.clone().detach().requires_grad_(True)
            outputs = model(image)
            model.zero_grad()
            cost = criterion(outputs, labels)
            cost.backward()
            return image + epsilon * image.grad.sign()

        def create_adv_test(model, images, labels, eps, criterion):
            return torch.tensor(adv_attack(model, images, eps, labels, criterion))
        """))
    kinds = settings_for(tree.body[1], ["model", "images", "labels", "eps", "criterion"], {}, "cpu",
                         tree=tree)[0].plan.kinds
    assert kinds["criterion"] == "loss" and kinds["model"] == "module" and kinds["images"] == "tensor", kinds
    # A value the outer function also uses as a tensor stays one.
    tree = ast.parse(textwrap.dedent("""
        def apply(f, x):
            return f(x)

        def outer(f, x):
            return apply(f.clone(), x)
        """))
    assert settings_for(tree.body[1], ["f", "x"], {}, "cpu", tree=tree)[0].plan.kinds["f"] == "tensor"


def test_a_one_hot_class_count_and_a_bound_of_a_multi_dimensional_slice_are_whole_numbers():
    from torchcopylint.verify.standins import kind_of, uses

    function = ast.parse(textwrap.dedent("""
        def step(output, labels, n_classes, end):
            one_hot = F.one_hot(labels, n_classes)
            return output[:, :end] * one_hot
    """)).body[0]
    found = uses(function)
    assert kind_of("n_classes", found["n_classes"]) == "int"
    assert kind_of("end", found["end"]) == "int"


def test_a_value_passed_to_a_function_the_file_imports_from_the_project_is_what_that_function_uses_it_as(
        tmp_path, monkeypatch):
    # A course's conditional GAN trainer: `get_one_hot_labels(labels, n_classes)` from its `scripts/utils.py`.
    from torchcopylint.verify.standins import settings_for

    (tmp_path / "helpers_of_the_project.py").write_text(textwrap.dedent("""
        import torch.nn.functional as F

        def get_one_hot_labels(labels, n_classes):
            return F.one_hot(labels, n_classes)
    """), encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    tree = ast.parse(textwrap.dedent("""
        from helpers_of_the_project import get_one_hot_labels as one_hot_of

        def fit(images, labels, n_classes):
            return images.clone() * one_hot_of(labels, n_classes)
    """))
    kinds = settings_for(tree.body[1], ["images", "labels", "n_classes"], {}, "cpu", tree=tree)[0].plan.kinds
    assert kinds["n_classes"] == "int", kinds


def test_two_views_per_batch_a_loss_per_sample_and_keywords_read_from_kwargs_are_made_as_the_code_reads_them():
    # A SimCLR trainer (fresh52): `for i, ((x1, x2), idx, targets) in enumerate(dataloader)`, a loss of
    # `reduction="none"` indexed per sample, and `kwargs['epoch']` that every caller passes.
    import torch

    from torchcopylint.verify.standins import missing_parameters, settings_for

    source = textwrap.dedent("""
        def train(model, dataloader, criterion, shadow, **kwargs):
            for i, ((x1, x2), idx, targets) in enumerate(dataloader):
                z1, z2 = model(x1), model(x2)
                loss = criterion(z1, z2)
                for count in range(x1.shape[0]):
                    if kwargs['epoch'] > 1:
                        shadow[count] = 0.9 * shadow[count] + loss[count].detach()
        """)
    namespace: dict = {}
    exec(compile(source, "<train>", "exec"), namespace)
    node = ast.parse(source).body[0]
    names, annotations = missing_parameters(namespace["train"], node)
    assert names == ["model", "dataloader", "criterion", "shadow", "epoch"], names
    setting = settings_for(node, names, annotations, "cpu")[0]
    assert setting.plan.kinds["epoch"] == "count" and setting.plan.kinds["criterion"] == "loss", setting.plan.kinds
    made, text = setting.make()
    (first, second), _, _ = made["dataloader"][0]
    assert first.shape == second.shape and first.dim() == 2
    assert made["criterion"](first, second).shape == (first.shape[0],)
    assert "mean squared difference of each sample" in text, text
    assert isinstance(made["shadow"], torch.Tensor)


def test_a_loader_read_by_dunder_iter_or_through_a_progress_bar_and_a_weight_of_torch_mul_are_made_as_used():
    # SimGAN's trainer (fresh53): `self.loader.__iter__().next()` and `torch.mul(loss, self.delta)`; an
    # image-colorization GAN (fresh52): `loop = tqdm(loader)`, then `for (x, y), _ in loop:`.
    from torchcopylint.verify.standins import kind_of, uses

    function = ast.parse(textwrap.dedent("""
        def train(self, loader):
            images, _ = self.loader.__iter__().next()
            loss = torch.mul(self.net(images).mean(), self.delta)
            loop = tqdm(loader, leave=True)
            for (inputs, targets), _ in loop:
                pass
            for grey, colour, _ in tqdm(iter(colour_loader)):
                pass
    """)).body[0]
    found = uses(function)
    assert found["colour_loader"].unpacked == 3  # ChromaGAN's trainer (fresh53)
    assert kind_of("self.loader", found["self.loader"]) == "loader"
    assert kind_of("self.delta", found["self.delta"]) == "float"
    assert found["loader"].unpacked == 2 and found["loader"].views == 2


def test_what_torch_cat_or_stack_joins_is_a_sequence_of_one_tensor_per_sample():
    # A DQN's optimize step (fresh53): `torch.cat(batch.state)` of a replay memory's transitions.
    import torch

    from torchcopylint.verify.standins import settings_for

    node = ast.parse(textwrap.dedent("""
        def optimize(batch, rewards, net):
            states = torch.cat(batch.state)
            values = torch.stack(rewards)
            loss = (net(states) - values.mean()).pow(2).mean()
            return loss.clone().detach()
        """)).body[0]
    setting = settings_for(node, ["batch", "rewards", "net"], {}, "cpu")[0]
    assert setting.plan.kinds["batch.state"] == "tensor sequence" == setting.plan.kinds["rewards"], setting.plan.kinds
    made, text = setting.make()
    assert torch.cat(made["batch"].state).shape == torch.stack(made["rewards"]).shape, text
    assert "rewards = 4 tensors of (8,) float32" in text, text


def test_a_value_whose_requires_grad_is_switched_and_that_is_cloned_is_a_tensor_not_a_network():
    # An image-quality attack (fresh53): `img.requires_grad_(True)` (a module has that method too) and
    # `img.clone()`; read as a network, `model(img)` got "no tensor".
    from torchcopylint.verify.standins import kind_of, uses

    function = ast.parse(textwrap.dedent("""
        def attack(model, img, criterion, target):
            hist = [model(img)[0].clone().detach()]
            ori_img = img.clone()
            img.requires_grad_(True)
            loss = criterion(target, model(img))
            loss.backward()
            frozen.requires_grad_(False)
            frozen.eval()
    """)).body[0]
    found = uses(function)
    assert kind_of("img", found["img"]) == "tensor" and kind_of("model", found["model"]) == "module"
    assert kind_of("frozen", found["frozen"]) == "module"


def test_entries_of_a_dict_of_settings_are_what_their_use_says_and_forward_calls_count_outputs():
    # AnoGAN's trainer (fresh53): `torch.ones(config['batch_size'], 1)`, `range(config['epoch'])`,
    # `lr=config['learning_rate']`; `dis_fake, _ = discriminator.forward(gen_fake)`.
    import torch

    from torchcopylint.verify.standins import settings_for

    node = ast.parse(textwrap.dedent("""
        def train(config, generator, discriminator, images):
            ones_label = torch.ones(config['batch_size'], 1)
            dis_optim = torch.optim.Adam(discriminator.parameters(), lr=config['learning_rate'])
            for i in range(config['epoch']):
                gen_fake = generator.forward(torch.randn(config['batch_size'], 100))
                dis_fake, _ = discriminator.forward(gen_fake)
                loss = (dis_fake - ones_label).pow(2).mean() + config['images'].mean()
        """)).body[0]
    setting = settings_for(node, ["config", "generator", "discriminator", "images"], {}, "cpu")[0]
    made, text = setting.make()
    config = made["config"]
    assert isinstance(config["batch_size"], int) and isinstance(config["epoch"], int), config
    assert isinstance(config["learning_rate"], float), config
    assert config["images"].dim() == 2  # an entry used as a tensor stays one
    assert len(made["discriminator"](made["generator"](torch.randn(4, 100)))) == 2


def test_a_loss_called_through_its_forward_method_is_a_loss():
    # A CS7643 assignment (fresh52): `loss = criterion.forward(out, target)`; as a network, its scores
    # per sample made `loss.backward()` fail ("grad can be implicitly created only for scalar outputs").
    from torchcopylint.verify.standins import settings_for

    node = ast.parse(textwrap.dedent("""
        def train(model, criterion, data, target):
            out = model(data)
            loss = criterion.forward(out, target)
            loss.backward()
            return loss.clone().detach()
        """)).body[0]
    setting = settings_for(node, ["model", "criterion", "data", "target"], {}, "cpu")[0]
    assert setting.plan.kinds["criterion"] == "loss" and setting.plan.kinds["model"] == "module"
    made, _ = setting.make()
    assert made["criterion"].forward(made["model"](made["data"]), made["target"]).dim() == 0
    # A list of losses (`criterion[0](out, y)`, a course project): each the stand-in.
    assert made["criterion"][1](made["model"](made["data"]), made["target"]).dim() == 0


def test_a_tuple_unpacked_from_a_call_and_a_device_type_read_in_one_function_are_both_read():
    # The set of called expressions was rebound while reading `a, b = net(x)`: a later `device.type` then
    # failed with "argument of type 'Attribute' is not iterable" (fresh54, fresh55).
    from torchcopylint.verify.standins import kind_of, uses

    function = ast.parse(textwrap.dedent("""
        def run(net, x, device):
            features, scores = net(x)
            if device.type == "cuda":
                scores = scores.half()
            return features, scores
    """)).body[0]
    found = uses(function)
    assert found["net"].returns == 2 and kind_of("device", found["device"]) == "torch.device"


def test_the_entries_of_a_settings_dict_the_constructor_keeps_are_what_the_methods_read_them_as(tmp_path):
    # A course GAN trainer: `self.config = config`, then `self.config["lr"]` for its optimizer and
    # `self.config["workspace_dir"]` for its folders (fresh57; a tensor `lr` failed the run).
    from torchcopylint.verify.standins import constructor_standins

    code = textwrap.dedent("""
        import os

        import torch
        from torch import nn


        class Trainer:
            def __init__(self, config):
                self.config = config

            def prepare(self):
                self.model = nn.Linear(8, 1)
                self.opt = torch.optim.Adam(self.model.parameters(), lr=self.config["lr"])
                os.makedirs(os.path.join(self.config["workspace_dir"], "checkpoints"), exist_ok=True)
                for epoch in range(self.config["n_epoch"]):
                    pass
        """)
    path = tmp_path / "trainer.py"
    path.write_text(code, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("trainer", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    made, names = constructor_standins(module.Trainer, ast.parse(code), "Trainer", "cpu")
    assert names == ("config",)
    assert made.plan.kinds == {"config": "dict", "config['lr']": "float", "config['workspace_dir']": "path",
                               "config['n_epoch']": "count"}


def test_positions_an_index_takes_fit_every_dim_a_stand_in_has_and_a_compared_default_is_tried_the_other_way():
    # `layer.weight.index_select(dim, index)`: `index` holds positions along the layer's rows, so it is
    # made of indices below the stand-ins' widths (ten classes would run past an eight-row layer);
    # `prune_layer(layer, index)` hands both on, and they are a layer and positions there too.
    # `dim=0` and `if dim == 1:`: the other value the code compares it with is a setting of its own.
    from torchcopylint.verify.standins import FEATURES, make, other_defaults, plan, uses

    tree = ast.parse(textwrap.dedent("""
        def prune_rows(layer, index, dim=0):
            kept = layer.weight.index_select(dim, index).clone().detach()
            if dim == 1:
                return kept
            return layer.bias[index]

        def prune(layer, index):
            if isinstance(layer, nn.Linear):
                return prune_rows(layer, index)
    """))
    rows, wrapper = tree.body
    found = uses(rows)
    planned = plan(["layer", "index"], found, {}, {})
    assert planned.kinds == {"layer": "layer", "index": "labels"} and planned.positions == ("index",)
    made = make(planned, "cpu")
    assert int(made["index"].max()) < FEATURES <= made["layer"].weight.shape[0]
    assert "index = indices [" in planned.describe(made)

    def prune_rows_at_run_time(layer, index, dim=0):
        return layer, index, dim

    assert other_defaults(prune_rows_at_run_time, rows) == [("dim", 1)]
    from torchcopylint.verify.standins import settings_for

    through = settings_for(wrapper, ["layer", "index"], {}, "cpu", tree=tree)[0].plan
    assert through.kinds == {"layer": "layer", "index": "labels"} and through.positions == ("index",)



def test_a_device_default_no_caller_keeps_is_the_verification_device():
    from torchcopylint.verify.standins import device_defaults

    def attack(model, images, eps, device="gpu", mode="gpu", log=False):  # callers pass their device
        return images

    def moved(x, dev="cuda:1", device="cpu"):
        return x

    assert device_defaults(attack, "cpu") == {"device": "cpu"}  # "gpu" names no device torch knows
    assert device_defaults(moved, "cpu") == {"dev": "cpu"}  # a GPU's name; the CPU is kept as it is


def test_a_loader_given_to_a_function_reports_a_real_length_after_a_try_that_divided_by_a_part_of_it():
    # `log_interval = len(dataloader) // 10`, then `batch % log_interval`: zero for the stand-in's four
    # batches (fresh70's DCGAN homework); the next try's loaders say a real loader's length.
    from torchcopylint.verify import script
    from torchcopylint.verify.batches import LONG_LOADER_LENGTH
    from torchcopylint.verify.standins import BATCHES, stand_in_loader

    script.begin()
    loader = stand_in_loader(2, "classes", "cpu")
    assert len(loader) == BATCHES and not script.learn_from("TypeError: something else")
    try:
        BATCHES % (len(loader) // 10)
    except ZeroDivisionError as error:
        assert script.learn_from(f"{type(error).__name__}: {error}")
    script.begin(keep_learned=True)
    assert len(loader) == LONG_LOADER_LENGTH and len(list(loader)) == BATCHES
    assert f"`len()` of a stand-in loader gave {LONG_LOADER_LENGTH}" in script.stood_in()
    script.begin()  # a new diagnosis starts with short loaders again
    assert len(loader) == BATCHES


def test_a_universal_claim_settled_in_its_first_settings_tries_no_more_and_says_so(monkeypatch):
    from torchcopylint.verify import reach
    from torchcopylint.verify.reach import Run, confirmed, decide, refuted

    class Setting:
        def __init__(self, description):
            self.description = description

    clock = iter([0.0, 1.0, 2.0, 30.0, 31.0])
    monkeypatch.setattr(reach.time, "perf_counter", lambda: next(clock))
    runs = {"A()": Run(confirmed("equal"), {10, 12}), "A(x=1)": Run(confirmed("equal"), {10, 12}),
            "A(x=2)": Run(refuted("needed"), {10, 12})}
    outcome = decide([Setting(d) for d in runs], lambda s: runs[s.description], {10: "the copy", 12: "its read"},
                     universal=True)
    assert outcome.status == "confirmed", outcome
    assert "(same in 2 configurations; every line had run after 30 s: no further configuration was tried)" \
        in outcome.evidence, outcome.evidence
    # Within the time, every setting is tried, and one that shows the copy needed refutes.
    clock = iter([0.0, 1.0, 2.0, 3.0, 4.0])
    outcome = decide([Setting(d) for d in runs], lambda s: runs[s.description], {10: "the copy", 12: "its read"},
                     universal=True)
    assert outcome.status == "refuted" and "A(x=2)" in outcome.evidence


def test_a_position_along_a_dim_is_a_small_int_and_a_renamed_argument_is_used_as_its_new_name_is():
    from torchcopylint.verify.standins import make, plan, uses

    node = ast.parse(textwrap.dedent("""
        def attack(self, x_in, scores):
            x = x_in
            noise = torch.rand(x.shape)
            target = scores.sort(dim=1)[1][:, -self.target_class]
            column = scores[:, chosen]
            return x + noise, target, column
        """)).body[0]
    planned = plan(["x_in", "scores", "self.target_class", "chosen"], uses(node), {}, {})
    assert planned.kinds == {"x_in": "tensor", "scores": "tensor", "self.target_class": "position",
                             "chosen": "position"}
    made = make(planned, "cpu")
    assert made["self.target_class"] == 1 and made["chosen"] == 1
    # A name bound twice is no rename: its second value says nothing of the first, and the argument keeps
    # what its own uses say. Where it has none, the local's uses are all that says what it is.
    node = ast.parse(textwrap.dedent("""
        def f(x_in, flag):
            x = x_in
            if flag:
                x = torch.zeros(3)
            return x.clone(), list(range(x_in))
        """)).body[0]
    assert plan(["x_in", "flag"], uses(node), {}, {}).kinds["x_in"] != "tensor"
    node.body[-1].value = node.body[-1].value.elts[0]
    assert plan(["x_in", "flag"], uses(node), {}, {}).kinds["x_in"] == "tensor"


def test_labels_an_attack_compares_with_predictions_are_also_tried_as_the_network_predicts_them():
    from torchcopylint.verify.standins import settings_for

    node = ast.parse(textwrap.dedent("""
        def perturb(model, x, y):
            acc = model(x).max(1)[1] == y
            ind_to_fool = acc.nonzero().squeeze()
            if ind_to_fool.numel() != 0:
                return x[ind_to_fool].clone()
            return x
        """)).body[0]
    settings = settings_for(node, ["model", "x", "y"], {}, "cpu")
    predicted = [s for s in settings if s.plan.predicted_labels]
    assert len(predicted) == 1 and predicted[0].description == "stand-ins (labels the network predicts)"
    made, described = predicted[0].make()
    assert made["y"].tolist() == made["model"](made["x"]).argmax(1).tolist()
    assert "as the network predicts them" in described
    # Code that never tells right from wrong predictions gets no such setting.
    plain = ast.parse("def train(model, x, y):\n    return F.cross_entropy(model(x), y)\n").body[0]
    assert not any(s.plan.predicted_labels for s in settings_for(plain, ["model", "x", "y"], {}, "cpu"))


def test_a_value_joined_to_a_tuple_is_a_shape_of_one_sample():
    from torchcopylint.verify.standins import make, plan, uses

    node = ast.parse(textwrap.dedent("""
        def sample(self, n_new):
            return torch.rand((n_new,) + self.img_shape) * 2 - 1
        """)).body[0]
    planned = plan(["self.img_shape", "n_new"], uses(node), {}, {})
    assert planned.kinds["self.img_shape"] == "shape"
    assert make(planned, "cpu")["self.img_shape"] == tuple(planned.sample)


def test_a_batch_size_the_constructor_sets_is_also_the_stand_in_loader_s():
    # fresh74's WGAN trainers: `self.batch_size = 32` in `__init__`, and the loop skips every batch of
    # another size (`if images.size()[0] != self.batch_size: continue`), so no step ever ran.
    from torchcopylint.verify.standins import settings_for

    node = ast.parse(textwrap.dedent("""
        def train(self, train_loader):
            for images, _ in train_loader:
                if images.size()[0] != self.batch_size:
                    continue
                self.D(images).mean().backward()
        """)).body[0]
    settings = settings_for(node, ["train_loader", "self.batch_size", "self.D"], {}, "cpu",
                            defaults={"self.batch_size": 32})
    sized = [s for s in settings if s.description == "stand-ins (batches of 32, as `self.batch_size` says)"]
    assert len(sized) == 1
    made, _ = sized[0].make()
    images, _ = made["train_loader"][0]
    assert images.shape[0] == 32 and made["self.batch_size"] == 32
    # The first setting keeps the small batches every other one has.
    made, _ = settings[0].make()
    assert made["train_loader"][0][0].shape[0] == 4


def test_a_name_bound_in_each_branch_to_the_same_attribute_is_used_as_that_attribute_is():
    # fresh76's Square attack (an AutoAttack copy): `eps = self.eps` under each norm, then
    # `torch.zeros([n, eps])`: a number of pixels, an int, not the float a radius would be.
    from torchcopylint.verify.standins import plan, uses

    node = ast.parse(textwrap.dedent("""
        def attack(self, x):
            if self.norm == "L0":
                eps = self.eps
                kept = torch.zeros([x.shape[0], eps])
            else:
                eps = self.eps
                kept = x.clone()
            return kept
        """)).body[0]
    assert plan(["self.eps", "self.norm", "x"], uses(node), {}, {}).kinds["self.eps"] == "int"
    # Bound to two different values, the name says nothing of either.
    node = ast.parse(textwrap.dedent("""
        def attack(self, x):
            if self.norm == "L0":
                eps = self.eps
            else:
                eps = self.other
            return torch.zeros([x.shape[0], eps])
        """)).body[0]
    assert plan(["self.eps", "self.other", "self.norm", "x"], uses(node), {}, {}).kinds["self.eps"] != "int"


def test_an_object_built_with_its_defaults_has_its_large_iteration_counts_cut():
    # Square's `n_queries=5000` on the CPU, in each of the settings tried, ran past the experiment's time
    # limit (fresh72's and fresh75's torchattacks copies); a count of a hundred or fewer is kept.
    from torchcopylint.verify.standins import ITERATION_CAP, iteration_caps

    class Square:
        def __init__(self, model, norm="Linf", n_queries=5000, n_restarts=1, steps=10, seed=5000, max_iter=10 ** 4):
            pass

    assert iteration_caps(Square.__init__) == {"n_queries": ITERATION_CAP, "max_iter": ITERATION_CAP}
    assert ITERATION_CAP == 100


@pytest.mark.parametrize("per_sample", [False, True])
def test_a_stand_in_loss_backpropagates_into_every_floating_input(per_sample):
    # A loss of three scores (`loss_d(real_right, real_wrong, fake_right)`) reads the third too; integer
    # labels stay out of it (they carry no gradient), and one value per sample stays one per sample.
    import torch

    from torchcopylint.verify.standins import StandInLoss

    scores = [torch.rand(4, 1, requires_grad=True) for _ in range(3)]
    labels = torch.tensor([0, 1, 2, 3])
    loss = StandInLoss(per_sample)(*scores, labels)
    assert loss.shape == ((4,) if per_sample else ())
    loss.sum().backward()
    assert all(score.grad is not None and score.grad.abs().sum() > 0 for score in scores)


def test_a_network_whose_output_is_subtracted_from_data_gives_samples_and_one_scored_gives_classes():
    from dataclasses import replace

    from torchcopylint.verify.standins import make, plan, uses

    function = ast.parse(textwrap.dedent("""
        def fit(codes, images, decoder, classifier, labels):
            error = ((decoder(codes) - images) ** 2).mean()
            scores = classifier(images)
            out = classifier(codes)
            return error + (scores.argmax(1) == labels).float().mean() + (out - 1).sum()
    """)).body[0]
    found = uses(function)
    assert found["decoder"].compared_with_data
    # `scores` is only compared with labels; `out - 1` subtracts a number, not data.
    assert not found["classifier"].compared_with_data
    planned = replace(plan(["codes", "images", "decoder", "classifier", "labels"], found, {}, {}), sample=(3, 4, 4))
    made = make(planned, "cpu")
    assert made["decoder"].out_shape == (3, 4, 4) and made["classifier"].out_shape == (10,)


def test_a_network_whose_output_meets_the_rows_of_a_tensor_gives_samples():
    # fresh107's CLIP debiasing attack: `feat = model(z)`, `logits = scale * feat @ self.text.T` (and one
    # sample's, `feat[0] @ mix[:4].t()`): the output is as wide as the rows it meets; ten class scores
    # failed "mat1 and mat2 shapes cannot be multiplied". A product with what is not turned over says nothing.
    from torchcopylint.verify.standins import uses

    function = ast.parse(textwrap.dedent("""
        def attack(self, z, model, encoder, other, mix, weights):
            feat = model(z)
            feat = feat / feat.norm(dim=-1, keepdim=True)
            logits = self.scale * feat @ self.text.T
            single = (encoder(z)[0] @ mix[:4].t()).mean()
            plain = other(z) @ weights
            return logits, single, plain
    """)).body[0]
    found = uses(function)
    assert found["model"].compared_with_data and found["encoder"].compared_with_data
    assert not found["other"].compared_with_data


def test_the_sizes_a_script_binds_once_are_read_through_its_products():
    from torchcopylint.verify.datasites import top_level_whole_numbers

    tree = ast.parse("CHANNELS = 3\nWIDTH = CHANNELS * 8 * 8\nLR = 0.1\nSTEPS = 5\nSTEPS = 6\nHALF = WIDTH // 2\n")
    # Bound twice (STEPS), not a whole number (LR) or not a product (HALF): not read.
    assert top_level_whole_numbers(tree) == {"CHANNELS": 3, "WIDTH": 192}


def test_an_input_reshaped_by_a_computed_size_beside_the_script_s_batch_size_gets_both():
    # A GAN script computes `mnist_dim` from its dataset and makes targets of its global `batch_size`:
    # the values its loaded module holds shape the stand-in input, rows and width.
    from torchcopylint.verify.standins import settings_for

    node = ast.parse(textwrap.dedent("""
        def d_train(x):
            x_real, y_real = x.view(-1, mnist_dim), torch.ones(batch_size, 1)
            return D(x_real), y_real
    """)).body[0]
    settings = settings_for(node, ["x"], {}, "cpu", numbers={"mnist_dim": 784, "batch_size": 32, "epochs": 5})
    made = {s.description: s for s in settings}
    assert "stand-ins (samples of shape (784,), as the code reshapes its input to (-1, mnist_dim))" in made
    both = "stand-ins (batches of 32 samples of shape (784,), as `batch_size` and the code's reshape to (-1, mnist_dim) say)"
    assert both in made
    assert made[both].make(seed=0)[0]["x"].shape == (32, 784)


def test_a_transform_the_constructor_builds_hands_back_its_input_and_private_methods_are_the_class_s():
    # fresh101's white-box attack: `self.preprocess = transforms.Compose([...ToTensor()...])` stood in as a
    # network, whose parameters made the image require grad (a TCL005 confirmed on that alone), and its
    # private methods (`self.__loss(...)`, stored as `_WhiteBoxAttack__loss`) as stand-in networks.
    import torch

    from torchcopylint.verify.standins import TRANSFORM, constructor_defaults, make, mangled, plan, self_attributes, uses

    tree = ast.parse(textwrap.dedent("""
        class WhiteBoxAttack:
            def __init__(self, model, size=224):
                self.model = model
                self.preprocess = transforms.Compose([transforms.Resize(size), transforms.ToTensor()])

            def forward(self, image):
                x = self.preprocess(image).unsqueeze(0)
                return self.__loss(self.model(x), x.clone().detach())

            def __loss(self, prediction, origin):
                return (prediction - origin).abs().mean()
        """))
    defaults = constructor_defaults(tree, "WhiteBoxAttack")
    assert defaults == {"self.preprocess": TRANSFORM}
    method = tree.body[0].body[1]
    built = plan(["self.preprocess", "self.model", "image"], uses(method), {}, {}, defaults)
    made = make(built, "cpu")
    given = torch.ones(3, 4)
    assert made["self.preprocess"] is TRANSFORM and made["self.preprocess"](given) is given
    assert "self.preprocess = a transform handing back what it is given" in built.describe(made)

    namespace: dict = {}
    exec(compile(tree, "<attack>", "exec"), namespace)  # noqa: S102 - the test's own class
    cls = namespace["WhiteBoxAttack"]
    assert mangled(cls, "__loss") == "_WhiteBoxAttack__loss" and mangled(cls, "model") == "model"
    assert mangled(cls, "__init__") == "__init__"
    assert sorted(self_attributes(cls, method)) == ["self.model", "self.preprocess"]  # not the private method


def test_a_value_checked_for_a_python_number_is_one_and_so_is_what_must_share_its_type():
    # fresh110's PGD: `eps` is a float or a per-sample tensor; the tensor branch views it, the callers pass
    # `eps=8./255.`. Asked `isinstance(eps, float)`, the code takes the number; `alpha` must match its type.
    code = """
        def pgd(model, x, y, eps, alpha, steps):
            assert type(eps) == type(alpha), "eps and alpha type should match"
            assert isinstance(eps, float) or isinstance(eps, torch.Tensor)
            if isinstance(eps, torch.Tensor):
                eps = eps.view(-1, 1, 1, 1)
                alpha = alpha.view(-1, 1, 1, 1)
            for _ in range(steps):
                x = x + alpha * torch.randn_like(x)
                x = torch.min(torch.max(x, x - eps), x + eps)
            return model(x)
    """
    kinds = _kinds(code, ["eps", "alpha", "x"])
    assert kinds["eps"] == "float" and kinds["alpha"] == "float"
    assert kinds["x"] == "tensor"


def test_a_tensor_checked_as_one_stays_a_tensor():
    code = """
        def scale(x, factor):
            if isinstance(x, torch.Tensor):
                x = x.view(-1)
            return x * factor
    """
    assert _kinds(code, ["x"])["x"] == "tensor"


def test_a_seed_is_a_whole_number_and_labels_made_into_tensors_from_numpy_are_an_array():
    # fresh115's EEG GAN: `random.seed(nseed)` refuses a tensor, `np.random.seed` a float; and
    # `torch.from_numpy(label)` needs the labels as an array, one per row of the data array beside them.
    import numpy as np

    from torchcopylint.verify.standins import kind_of, make, plan, uses

    function = ast.parse(textwrap.dedent("""
        def train(datatrain, label, nseed):
            random.seed(nseed)
            np.random.seed(nseed)
            torch.manual_seed(nseed)
            datatrain = torch.from_numpy(datatrain)
            label = torch.from_numpy(label)
            dataset = torch.utils.data.TensorDataset(datatrain, label)
            for x, _ in dataset:
                loss = F.cross_entropy(model(x), label)
    """)).body[0]
    found = uses(function)
    assert kind_of("nseed", found["nseed"]) == "int"
    assert kind_of("label", found["label"]) == "label array"
    assert kind_of("datatrain", found["datatrain"]) == "array"
    made = make(plan(["datatrain", "label", "nseed"], found, {}, {}), "cpu")
    assert type(made["nseed"]) is int
    assert isinstance(made["label"], np.ndarray) and made["label"].dtype.kind == "i"
    assert len(made["label"]) == len(made["datatrain"])  # a TensorDataset of both has rows of each


def test_an_entry_compared_with_true_is_a_flag():
    # fresh116's MAML trainer: `if Params['Alex'] == True:` of a stand-in tensor raised "Boolean value of
    # Tensor with more than one value is ambiguous"; a flag, it takes the branch and the one after.
    from torchcopylint.verify.standins import plan, uses

    function = ast.parse(textwrap.dedent("""
        def train(model, tasks, Params):
            optimizer = torch.optim.Adam(model.parameters(), lr=Params['MetaLR'])
            for x, y in tasks:
                if Params['Alex'] == True:
                    loss = F.cross_entropy(model(x), y)
                if Params['aug'] != False:
                    x = x.flip(0)
    """)).body[0]
    found = uses(function)
    kinds = plan(["model", "tasks", "Params"], found, {}, {}).kinds
    assert kinds["Params"] == "dict"
    assert kinds["Params['Alex']"] == "bool" and kinds["Params['aug']"] == "bool", kinds
    assert kinds["Params['MetaLR']"] == "float", kinds


def test_a_value_asserted_to_be_one_of_listed_literals_is_one_of_them():
    # fresh116's GAN trainer package: `assert target_size in [64, 128, 256]` beside `if target_size >= 128:`
    # was made a float (0.1), which the assertion refused; it is one of the listed sizes.
    from torchcopylint.verify.standins import kind_of, make, plan, uses

    function = ast.parse(textwrap.dedent("""
        def build(target_size, mode):
            assert target_size in [64, 128, 256], "Target size can only be one of 64, 128, 256"
            if target_size >= 128:
                layers = 5
            if mode not in ("a", "b"):
                raise ValueError(mode)
    """)).body[0]
    found = uses(function)
    assert kind_of("target_size", found["target_size"]) == "choice"
    made = make(plan(["target_size"], found, {}, {}), "cpu")
    assert made["target_size"] == 64


def test_a_constructor_argument_handed_to_a_class_of_a_sibling_module_is_what_that_class_uses_it_as(tmp_path,
                                                                                                   monkeypatch):
    # The trainer's `__init__` only passes `target_size` on: `self.generator = Generator(target_size, ...)`,
    # imported relatively from the package's generator.py, whose `__init__` asserts it is 64, 128 or 256.
    import importlib

    from torchcopylint.verify.standins import constructor_standins

    package = tmp_path / "ganpkg"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    (package / "generator.py").write_text(textwrap.dedent("""\
        from torch import nn


        class Generator(nn.Module):
            def __init__(self, target_size, channels):
                super().__init__()
                assert target_size in [64, 128, 256]
                self.blocks = 4 if target_size >= 128 else 3
                self.out = nn.Conv2d(8, channels, 3)
    """), encoding="utf-8")
    trainer_source = textwrap.dedent("""\
        from .generator import Generator


        class Trainer:
            def __init__(self, target_size, channels):
                self.generator = Generator(target_size, channels)
    """)
    (package / "trainer.py").write_text(trainer_source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("ganpkg.trainer")
    made, names = constructor_standins(module.Trainer, ast.parse(trainer_source), "Trainer", "cpu")
    assert names == ("target_size", "channels")
    assert made.plan.kinds["target_size"] == "choice", made.plan.kinds
    values, _ = made.make(seed=0)
    module.Trainer(values["target_size"], 3)  # builds: the size is one the assertion allows

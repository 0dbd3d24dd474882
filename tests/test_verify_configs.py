"""Missing configuration packages (verify/configs.py): plain equivalents hold the code's own settings.

Scripts keep their settings in configargparse parsers, OmegaConf configurations, EasyDicts or
simple_parsing dataclasses. Where the package is not installed, the experiment must still get the
values the code wrote, and never read a user's configuration file.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from conftest import only_verdict

from torchcopylint.verify.absent import AbsentPackageUsed
from torchcopylint.verify.noops import NoOpModule, is_no_op, stood_in_as, used_in

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                reason="--verify needs torch (pip install torchcopylint[verify])")


def test_configargparse_parses_its_defaults_and_ignores_config_files_and_environment_variables():
    # fresh112's denoising flows: `configargparse.ArgumentParser()` with `-c` as the config file; the
    # whole script stopped at "needs `configargparse`".
    assert is_no_op("configargparse")
    configargparse = NoOpModule("configargparse")
    parser = configargparse.ArgumentParser(default_config_files=["train.ini"], auto_env_var_prefix="TRAIN_")
    parser.add("-c", is_config_file=True, type=str, help="config file path")
    parser.add_argument("--lr", type=float, default=0.1, env_var="LR")
    parser.add_argument("--dataset", choices=["spirals", "moons"], default="moons")
    args = parser.parse_args([])
    assert (args.c, args.lr, args.dataset) == (None, 0.1, "moons")
    assert configargparse.ArgParser is configargparse.ArgumentParser
    # What else configargparse has is not a parser: its use names the missing package.
    with pytest.raises(AbsentPackageUsed, match="configargparse"):
        configargparse.YAMLConfigFileParser()


def test_omegaconf_configurations_the_code_writes_are_attribute_dicts_and_its_files_are_never_read():
    # fresh112's adversarial-robustness repository: `cfg = OmegaConf.create({...})` in default_config.py,
    # star-imported by every script.
    omegaconf = NoOpModule("omegaconf")
    OmegaConf = omegaconf.OmegaConf
    cfg = OmegaConf.create({"model": {"arch": "resnet18", "widths": [{"out": 64}]}, "lr": 1e-3})
    assert cfg.model.arch == "resnet18" and cfg.model.widths[0].out == 64 and cfg["lr"] == 1e-3
    merged = OmegaConf.merge(cfg, {"model": {"depth": 18}}, {"lr": 0.1})
    assert merged.model == {"arch": "resnet18", "widths": [{"out": 64}], "depth": 18} and merged.lr == 0.1
    assert "depth" not in cfg.model and cfg.lr == 1e-3  # a merge leaves what it merged alone
    assert OmegaConf.to_container(merged) == {"model": {"arch": "resnet18", "widths": [{"out": 64}], "depth": 18},
                                              "lr": 0.1}
    assert type(OmegaConf.to_container(merged)["model"]) is dict
    assert OmegaConf.save(config=cfg, f="config.yaml") is None  # writes nothing
    assert omegaconf.DictConfig({"a": 1}).a == 1
    with pytest.raises(AbsentPackageUsed, match=r"omegaconf.OmegaConf.load"):
        OmegaConf.load("configs/train.yaml")  # a user's file: never read
    # The evidence says what stood in, for `from omegaconf import OmegaConf` too.
    assert used_in({"OmegaConf": OmegaConf}) == ["omegaconf"]
    assert stood_in_as("omegaconf") == stood_in_as("configargparse") != stood_in_as("matplotlib") == "no-ops"


def test_a_missing_easydict_holds_a_configuration_as_easydict_does():
    # DM-GAN, ControlGAN and many research repositories keep their configuration in an EasyDict.
    import copy

    assert is_no_op("easydict")
    EasyDict = NoOpModule("easydict").EasyDict
    cfg = EasyDict({"TRAIN": {"LR": 2e-4, "STAGES": [{"size": 64}]}}, GPU_ID=0)
    cfg.TRAIN.BATCH_SIZE = 16
    cfg.update({"TREE": {"BRANCH_NUM": 3}})
    assert cfg.TRAIN.LR == 2e-4 and cfg["TRAIN"]["BATCH_SIZE"] == 16 and cfg.TRAIN.STAGES[0].size == 64
    assert cfg.TREE.BRANCH_NUM == 3 and cfg.GPU_ID == 0 and isinstance(cfg, dict)
    assert copy.deepcopy(cfg).TRAIN.BATCH_SIZE == 16
    with pytest.raises(AttributeError):
        cfg.MISSING


def test_a_missing_simple_parsing_parses_its_dataclasses_as_their_defaults():
    # fresh58's IFT6135 GAN: `parser.add_arguments(Hyperparameters, dest="hyperparameters")`, then
    # `main(args.management, args.hyperparameters)` at the top level; without the package the whole
    # script stopped at "needs `simple_parsing`".
    import dataclasses

    @dataclasses.dataclass
    class Hyperparameters:
        batch_size: int = 64
        lr: float = 2e-4

    parser = NoOpModule("simple_parsing").ArgumentParser("a course's GAN")
    parser.add_arguments(Hyperparameters, dest="hyperparameters")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args([])
    assert args.hyperparameters == Hyperparameters() and args.seed == 1


CONFIGURED_SCRIPT = '''\
import configargparse
import torch
from omegaconf import OmegaConf
from torch import nn

defaults = OmegaConf.create({"model": {"hidden": 16}, "train": {"lr": 0.01, "epochs": 2}})


def parse_args():
    parser = configargparse.ArgumentParser(default_config_files=["train.ini"])
    parser.add_argument("-c", "--config", is_config_file=True, help="config file path")
    parser.add_argument("--batch-size", type=int, default=8, env_var="BATCH_SIZE")
    return parser.parse_args()


def train(args, cfg):
    model = nn.Sequential(nn.Linear(4, cfg.model.hidden), nn.ReLU(), nn.Linear(cfg.model.hidden, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.train.lr)
    total = 0
    for _ in range(cfg.train.epochs):
        x = torch.randn(args.batch_size, 4)
        loss = model(x).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss
    return total


if __name__ == "__main__":
    cfg = OmegaConf.merge(defaults, {"train": {"epochs": 3}})
    print(OmegaConf.to_yaml(cfg))
    train(parse_args(), cfg)
'''


@pytest.mark.skipif(any(importlib.util.find_spec(name) for name in ("omegaconf", "configargparse")),
                    reason="the stand-ins are for where the packages are missing")
def test_a_script_configured_by_missing_packages_is_confirmed_on_its_own_settings(tmp_path: Path):
    (tmp_path / "train_cfg.py").write_text(CONFIGURED_SCRIPT, encoding="utf-8")
    verdict = only_verdict(tmp_path, "train_cfg.py", "TCL007")
    assert verdict["status"] == "confirmed", verdict
    # Three epochs, as the merged configuration says, and both packages named as stood in.
    assert "after 3 iterations" in verdict["evidence"], verdict["evidence"]
    for package in ("configargparse", "omegaconf"):
        assert f"`{package}` is not installed: plain dicts and argparse parsers" in verdict["evidence"], verdict

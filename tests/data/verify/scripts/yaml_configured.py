"""A course's GAN script of 2019: its settings come from a YAML file read with `yaml.load(f)` (no
`Loader`, which PyYAML 6 requires) into the argparse namespace by `setattr`, and it logs with a
lab-notebook package that is not installed, used only through calls that say they log."""

import argparse

import labnotes
import torch
import yaml


def train(args):
    labnotes.log_hyperparams({"bs": args.bs, "z_size": args.z_size})
    fixed_noise = torch.randn(args.bs, args.z_size)
    fixed = torch.tensor(fixed_noise)  # expect: TCL008
    labnotes.log({"norm": fixed.norm().item()})
    return fixed


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="yaml_configured.yaml", type=str)
    args = parser.parse_args()
    with open(args.config) as f:
        config = yaml.load(f)
    for key, value in config["train"].items():
        setattr(args, key, value)
    train(args)

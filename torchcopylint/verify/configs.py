"""Stand-ins for missing configuration packages: what they hold is the code's own settings.

Runs in the verification child process. A configuration package only carries the values a
script gives it (defaults in the code, a dict literal, a dataclass) to the code that reads
them, so where it is not installed a plain equivalent stands in: `easydict.EasyDict` and
`omegaconf.OmegaConf.create` give a dict whose keys are attributes, `configargparse` and
`simple_parsing` give argparse parsers of the defaults. What would need a user's file
(`OmegaConf.load("config.yaml")`, `configargparse`'s `-c config.ini`) is never read: the
loader stays absent (its use makes the verdict `unverified`, naming it), and a config-file
option parses as one the run did not give.
"""

from __future__ import annotations

import argparse
import dataclasses
from typing import Any, Optional

from torchcopylint.verify.absent import AbsentName


class AttributeDict(dict):
    """`easydict.EasyDict`, for a configuration (`cfg = EasyDict(); cfg.TRAIN.LR = 2e-4`): a dict whose
    keys are also attributes, nested dicts (and those in lists) made so too."""

    def __init__(self, values=None, **more):
        super().__init__()
        self.update(values, **more)

    def __setitem__(self, key, value):
        super().__setitem__(key, _attribute_dicts(value))

    def __setattr__(self, key, value):
        self[key] = value

    def __getattr__(self, key):
        if key.startswith("__") and key.endswith("__"):
            raise AttributeError(key)
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def __delattr__(self, key):
        del self[key]

    def update(self, values=None, **more):
        for key, value in {**dict(values or {}), **more}.items():
            self[key] = value


def _attribute_dicts(value):
    if isinstance(value, dict) and not isinstance(value, AttributeDict):
        return AttributeDict(value)
    if isinstance(value, (list, tuple)):
        return type(value)(_attribute_dicts(item) for item in value)
    return value


class DataclassArgumentParser(argparse.ArgumentParser):
    """simple_parsing's ArgumentParser, where it is missing: `add_arguments(Options, dest="options")`
    puts an `Options()` of the dataclass's defaults under `options` in what `parse_args()` gives."""

    def add_arguments(self, options: type, dest: str, default=None, **kwargs):
        self.set_defaults(**{dest: default if default is not None else options()})


# What configargparse adds to argparse's keywords: where config files and environment variables
# would give values. None is read here; the options keep their defaults.
_CONFIG_PARSER_KEYWORDS = frozenset({
    "default_config_files", "ignore_unknown_config_file_keys", "config_file_parser_class",
    "args_for_setting_config_path", "config_arg_is_required", "config_arg_help_message",
    "args_for_writing_out_config_file", "write_out_config_file_arg_help_message", "auto_env_var_prefix",
    "config_file_open_func",
})
_CONFIG_OPTION_KEYWORDS = frozenset({"is_config_file", "is_config_file_arg", "is_write_out_config_file_arg",
                                     "env_var"})


class ConfigArgumentParser(argparse.ArgumentParser):
    """configargparse's ArgumentParser, where it is missing: argparse's, its options at their defaults.
    A config-file option (`add_argument("-c", is_config_file=True)`) is an ordinary option no run gives."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **{key: value for key, value in kwargs.items()
                                   if key not in _CONFIG_PARSER_KEYWORDS})

    def add_argument(self, *args, **kwargs):
        return super().add_argument(*args, **{key: value for key, value in kwargs.items()
                                              if key not in _CONFIG_OPTION_KEYWORDS})

    add = add_argument  # configargparse's short names
    add_arg = add_argument


def _config(content: Any = None) -> Any:
    """A configuration made of `content`: a dict (or a dataclass, its class or an argparse namespace)
    as an AttributeDict, a list as a list of them."""
    if content is None:
        return AttributeDict()
    if isinstance(content, type) and dataclasses.is_dataclass(content):
        content = content()
    if dataclasses.is_dataclass(content):
        content = dataclasses.asdict(content)
    elif isinstance(content, argparse.Namespace):
        content = vars(content)
    if isinstance(content, dict):
        return AttributeDict(content)
    if isinstance(content, (list, tuple)):
        return [_attribute_dicts(item) for item in content]
    raise TypeError(f"a configuration cannot be made of {type(content).__name__}")


def _merged(*configs: Any) -> AttributeDict:
    merged = AttributeDict()
    for config in configs:
        _merge_into(merged, _config(_plain(config)))  # rebuilt: merging leaves its inputs alone
    return merged


def _merge_into(target: dict, source: dict) -> None:
    for key, value in source.items():
        if isinstance(value, dict) and isinstance(target.get(key), dict):
            _merge_into(target[key], value)
        else:
            target[key] = value


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    return value


class _OmegaConf:
    """omegaconf's OmegaConf, where it is missing, for configurations the code writes: `create`,
    `merge`, `structured`, `to_container`. The rest (`load`, which would read a user's file) is absent."""

    create = staticmethod(_config)
    structured = staticmethod(_config)
    merge = staticmethod(_merged)

    @staticmethod
    def to_container(config: Any, resolve: bool = False, **kwargs) -> Any:
        return _plain(config)

    @staticmethod
    def to_yaml(config: Any, **kwargs) -> str:
        return repr(_plain(config))

    @staticmethod
    def save(config: Any = None, f: Any = None, **kwargs) -> None:
        """Writes nothing: verification leaves the user's files alone."""

    @staticmethod
    def set_readonly(config: Any, value: Optional[bool]) -> None:
        """A guard against the code's own mistakes; a plain dict has none."""

    set_struct = set_readonly

    def __getattr__(self, attribute: str):
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        return AbsentName(f"omegaconf.OmegaConf.{attribute}")


STAND_INS = {
    "easydict.EasyDict": AttributeDict,  # a configuration's container: it must hold what the code puts in it
    "simple_parsing.ArgumentParser": DataclassArgumentParser,
    **dict.fromkeys(("configargparse.ArgumentParser", "configargparse.ArgParser", "configargparse.Parser"),
                    ConfigArgumentParser),
    "omegaconf.OmegaConf": _OmegaConf(),
    "omegaconf.DictConfig": _config,
    "omegaconf.ListConfig": _config,
}
# Packages of which nothing else stands in: anything of theirs not above is absent (a use names it).
ONLY_THESE = frozenset({"configargparse", "omegaconf"})
PACKAGES = frozenset(name.split(".")[0] for name in STAND_INS)
# What the evidence says stood in for one of them.
STOOD_IN = "plain dicts and argparse parsers of the code's own settings"


def package_of(value: Any) -> Optional[str]:
    """The configuration package `value` stands in for, if it is one of STAND_INS."""
    return next((name.split(".")[0] for name, stand_in in STAND_INS.items() if stand_in is value), None)

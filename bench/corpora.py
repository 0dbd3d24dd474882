"""Real PyTorch code to lint: pinned wheels unpacked under bench/corpora/, and torch's own sources.

    python bench/corpora.py                      # fetch the default corpora, print their paths
    python bench/corpora.py timm transformers    # only these
    python bench/corpora.py --wheel-dir DIR --list

Wheels are zip files: `pip download --no-deps` fetches one (or it is taken from
--wheel-dir, or the cache, when already there) and its Python sources are
unpacked into bench/corpora/<name>/ (gitignored). The torch corpora are not
copied: they point into the installed torch package.

Nothing here imports torch: its directory is found from the import system's
metadata, so a machine without a working torch still gets the other corpora.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

BENCH = Path(__file__).resolve().parent
CORPORA_DIR = BENCH / "corpora"
DEFAULT_WHEEL_CACHE = Path(os.environ.get("TORCHCOPYLINT_WHEEL_CACHE",
                                          Path.home() / ".cache" / "torchcopylint" / "wheels"))
# More folders of wheels already downloaded, looked in before asking the registry: the
# os.pathsep-separated $TORCHCOPYLINT_WHEEL_DIRS (no machine's path is built in).
KNOWN_WHEEL_DIRS = tuple(Path(part) for part in os.environ.get("TORCHCOPYLINT_WHEEL_DIRS", "").split(os.pathsep)
                         if part)


@dataclass(frozen=True)
class Wheel:
    """A pinned distribution: `package` is the top-level import package inside the wheel."""

    distribution: str
    version: str
    package: str
    # The part of the package that is "model code" for this corpus, relative to the package.
    subdir: str = ""

    @property
    def requirement(self) -> str:
        return f"{self.distribution}=={self.version}"

    @property
    def wheel_prefix(self) -> str:
        # Wheel file names normalise '-' to '_' in the distribution part.
        return f"{self.distribution.replace('-', '_')}-{self.version}-"


WHEELS: dict[str, Wheel] = {
    "timm": Wheel("timm", "1.0.31", "timm"),
    "torchvision": Wheel("torchvision", "0.29.1", "torchvision"),
    "transformers": Wheel("transformers", "5.23.0", "transformers", subdir="models"),
    "transformers-all": Wheel("transformers", "5.23.0", "transformers"),
    # Optional: only fetched when asked for by name.
    "diffusers": Wheel("diffusers", "0.42.1", "diffusers"),
    "pytorch-lightning": Wheel("pytorch-lightning", "2.6.6", "pytorch_lightning"),
}

# Corpora inside the installed torch package: name -> directory relative to torch/.
TORCH_CORPORA: dict[str, str] = {
    "torch": "",
    "torch-nn": "nn",
    "torch-optim": "optim",
}

DEFAULT_CORPORA = ("timm", "torchvision", "transformers", "torch-nn", "torch-optim")
ALL_CORPORA = tuple(WHEELS) + tuple(TORCH_CORPORA)


class CorpusError(Exception):
    """A corpus that cannot be had: unknown name, no network, no torch."""


def torch_dir() -> Path:
    """The installed torch package's directory, found without importing torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or not spec.submodule_search_locations:
        raise CorpusError("torch is not installed in this environment")
    return Path(list(spec.submodule_search_locations)[0])


def find_wheel(wheel: Wheel, wheel_dirs: list[Path]) -> Optional[Path]:
    for directory in wheel_dirs:
        if not directory.is_dir():
            continue
        matches = sorted(p for p in directory.glob("*.whl")
                         if p.name.lower().startswith(wheel.wheel_prefix.lower()))
        if matches:
            return matches[0]
    return None


def download_wheel(wheel: Wheel, destination: Path) -> Path:
    destination.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
               "--dest", str(destination), wheel.requirement]
    print(f"$ {' '.join(command)}", file=sys.stderr)
    result = subprocess.run(command, stdout=sys.stderr, stderr=sys.stderr)
    if result.returncode != 0:
        raise CorpusError(f"pip download {wheel.requirement} failed (exit {result.returncode})")
    found = find_wheel(wheel, [destination])
    if found is None:
        raise CorpusError(f"pip download {wheel.requirement} produced no wheel in {destination}")
    return found


def unpack_sources(wheel_file: Path, target: Path) -> int:
    """Extract the .py/.pyi files of `wheel_file` into `target`; returns how many."""
    staging = target.with_name(target.name + ".partial")
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    count = 0
    with zipfile.ZipFile(wheel_file) as archive:
        for member in archive.infolist():
            name = member.filename
            if member.is_dir() or not name.endswith((".py", ".pyi")) or ".dist-info/" in name:
                continue
            destination = (staging / name).resolve()
            if staging.resolve() not in destination.parents:  # a hostile path like ../x
                continue
            destination.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(member) as source, open(destination, "wb") as out:
                shutil.copyfileobj(source, out)
            count += 1
    (staging / ".source").write_text(wheel_file.name + "\n")
    if target.exists():
        shutil.rmtree(target)
    staging.rename(target)
    return count


def corpus_path(name: str, wheel_dir: Optional[Path] = None, download: bool = True) -> Path:
    """The directory of corpus `name`, fetching and unpacking it first if need be."""
    if name in TORCH_CORPORA:
        path = torch_dir() / TORCH_CORPORA[name]
        if not path.is_dir():
            raise CorpusError(f"{path} does not exist in the installed torch")
        return path
    if name not in WHEELS:
        raise CorpusError(f"unknown corpus {name!r}; known: {', '.join(ALL_CORPORA)}")
    wheel = WHEELS[name]
    unpacked = CORPORA_DIR / f"{wheel.distribution}-{wheel.version}"
    marker = unpacked / ".source"
    if not marker.exists():
        wheel_dirs = ([wheel_dir] if wheel_dir is not None else []) + [DEFAULT_WHEEL_CACHE, *KNOWN_WHEEL_DIRS]
        wheel_file = find_wheel(wheel, wheel_dirs)
        if wheel_file is None:
            if not download:
                raise CorpusError(f"no wheel for {wheel.requirement} in {', '.join(map(str, wheel_dirs))}")
            wheel_file = download_wheel(wheel, wheel_dir or DEFAULT_WHEEL_CACHE)
        count = unpack_sources(wheel_file, unpacked)
        print(f"unpacked {count} files of {wheel_file.name} into {unpacked}", file=sys.stderr)
    path = unpacked / wheel.package
    if wheel.subdir:
        path = path / wheel.subdir
    if not path.is_dir():
        raise CorpusError(f"{path} is not in the wheel of {wheel.requirement}")
    return path


def split_names(values: list[str]) -> list[str]:
    names = [part.strip() for value in values for part in value.split(",") if part.strip()]
    return names


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="*", help=f"names (default: {','.join(DEFAULT_CORPORA)}); "
                                                   f"known: {', '.join(ALL_CORPORA)}")
    parser.add_argument("--wheel-dir", type=Path, default=None,
                        help=f"look for wheels here first and download into it (default cache: {DEFAULT_WHEEL_CACHE})")
    parser.add_argument("--no-download", action="store_true", help="fail rather than ask the registry")
    parser.add_argument("--list", action="store_true", help="list the known corpora and exit")
    args = parser.parse_args(argv)
    if args.list:
        for name, wheel in WHEELS.items():
            print(f"{name:18} {wheel.requirement}{'  (' + wheel.package + '/' + wheel.subdir + ')' if wheel.subdir else ''}")
        for name, sub in TORCH_CORPORA.items():
            print(f"{name:18} installed torch/{sub}")
        return 0
    status = 0
    for name in split_names(args.corpora) or list(DEFAULT_CORPORA):
        try:
            print(f"{name}\t{corpus_path(name, args.wheel_dir, download=not args.no_download)}")
        except CorpusError as error:
            print(f"{name}\terror: {error}", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())

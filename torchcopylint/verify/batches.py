"""Stand-in data for the datasets and loaders a script makes, and the limits on its training loops.

Runs in the verification child process. verify/datasites.py replaced every
expression that would make data with `__tcl_data__(site, batch, size)`; here
that call returns an object that answers as the real one would (a loader
iterated into `[images, labels]` batches, a dataset indexed into samples,
TensorFlow's `mnist.train.next_batch(n)`), holding random values. Nothing is
read and nothing is downloaded.

The shape of a sample is decided when the first batch is made, by which time
the script has built its networks: the dataset's known shape first (MNIST is
1x28x28), then a `Resize`/`Grayscale` its transforms name, then the shapes the
networks' first layers read. A run that fails before its claim is decided is
tried again with the next candidate (`choice`), so the stand-in fits the
network that consumes it. The evidence names each stand-in as it was made.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import re
import sys
import time
import types
from dataclasses import dataclass
from typing import Any, Callable, Optional

import torch
from torch import nn

from torchcopylint.verify import arrays, images, importing, samples, tables
from torchcopylint.verify.absent import unread_data
from torchcopylint.verify.inputs import CLASSES, Batches, class_indices, forward_runs
from torchcopylint.verify.datasites import (CLASS_NAMES, DATA_FUNCTION, DATA_HELPER, FULL_TEST_ROWS, KNOWN_DATASETS,
                                              LOOP_HELPER, SIZE_TRANSFORMS, SKLEARN_PREPROCESSORS, WHILE_HELPER,
                                              DataSite, known_dataset, made_in_module)

BATCHES = 4            # batches a stand-in loader yields
DEFAULT_BATCH = 4      # samples in a batch when the code does not say
ENCLOSING_LIMIT = 8    # iterations of a loop that holds the flagged line (the flagged iteration is among them)
# A loop whose flagged line runs every k-th iteration runs up to k + 1 (datasites.MAX_SPARSE_ITERATIONS), but
# past ENCLOSING_LIMIT only for this long: 500 steps of a large network would outrun the diagnosis's timeout.
SPARSE_SECONDS = 12.0
OTHER_LIMIT = 2        # iterations of another training loop the slice kept (it changes what the claim reads):
#                        two, as code after it may divide by the last index (`running_loss / i`)
MAX_CANDIDATES = 6
# A DataLoader made at run time over data that is not here (`loaders_over_absent_data`) finds its run's plan
# by this helper in the calling code's namespace; its sites are numbered from FIRST_RUNTIME_SITE on, past
# any the rewrite gave.
LOADER_HELPER = "__tcl_loader__"
FIRST_RUNTIME_SITE = 100_000
MAX_FRAMES_UP = 8      # frames from a DataLoader call up to the code of the run that holds the helper
MAX_FIXED_BATCH = 256  # a reshape that names its batch size (`x.view(batch_size, 1, 28, 28)`) gets it, up to this
# The known datasets whose samples have one shape (not a folder of images of any size).
FIXED_SAMPLES = frozenset(KNOWN_DATASETS) - {"ImageFolder", "DatasetFolder", "CocoDetection", "VOCSegmentation",
                                             "CelebA", "LSUN"}
MAX_DATASET = 1024     # samples of a stand-in dataset sized from the counts the code reads it with
# Samples of a stand-in dataset nothing sizes: a split by fractions of its length (`int(0.8 * n)` and
# `int(0.2 * n)`, 0.9/0.1, 0.7/0.3, 0.8/0.1/0.1) adds up to it, as it does for the real dataset's.
DATASET_LENGTH = 20
SLICED_BATCHES = 3       # a claim about a loop's iterations (TCL007) needs three of them
MAX_SLICED_BATCH = 256   # larger batches, sliced by the code itself, would make a step a timeout on the CPU
MAX_EXACT_DATASET = 100_000  # `random_split(dataset, [50000, 10000])` needs exactly their sum (samples are lazy)
RESHAPE_ERROR = re.compile(r"shape '\[([-\d, ]+)\]' is invalid for input of size (\d+)")
# A layer given samples of another shape than it reads: a linear layer's width, a convolution's channels.
SHAPE_MISMATCH = re.compile(r"mat1 and mat2 shapes cannot be multiplied|expected input\[[\d, ]+\] to have \d+ channels")
# Sizes that disagree, as PyTorch words it: a stand-in batch cut to SMALL_BATCH beside a tensor the code
# sized by its own batch size (`torch.ones(batch_size, 1)`, `alpha.expand(batch_size, n)`).
BATCH_MISMATCH = re.compile(r"The expanded size of the tensor \(\d+\) must match the existing size|"
                            r"The size of tensor a \(\d+\) must match the size of tensor b|"
                            r"Using a target size \(torch\.Size|Expected input batch_size \(\d+\) to match target|"
                            r"Sizes of tensors must match except in dimension|"
                            r"Target size \(torch\.Size\(\[\d+")
# Sides that disagree (not batch sizes: dimension 0), as PyTorch words it.
SIDE_MISMATCH = re.compile(r"The size of tensor a \((\d+)\) must match the size of tensor b \((\d+)\) at "
                           r"non-singleton dimension (\d+)")
# `torch.cat([images, label_maps], dim=1)` of stand-in images beside maps the code sized for its real
# ones (`embed(labels).view(n, 1, img_size, img_size)`); the dimension that disagrees is not named.
CONCATENATED_MISMATCH = re.compile(r"Sizes of tensors must match except in dimension \d+\. Expected size (\d+) "
                                   r"but got size (\d+)()")
CHANNEL_MISMATCH = re.compile(r"expected input\[\d+, (\d+), (\d+), (\d+)\] to have (\d+) channels")
# A 1-D convolution (audio, signals) given stand-in images, then sequences of another channel count.
CONV1D_GIVEN_IMAGES = re.compile(r"Expected 2D \(unbatched\) or 3D \(batched\) input to conv1d, but got input of "
                                 r"size: \[\d+, (\d+), (\d+), (\d+)\]")
# The same, where the code added the channel itself (`D(x.unsqueeze(1))`): its samples are one sequence each.
CONV1D_GIVEN_CHANNELED_IMAGES = re.compile(r"Expected 2D \(unbatched\) or 3D \(batched\) input to conv1d, but got "
                                           r"input of size: \[\d+, 1, (\d+), (\d+), (\d+)\]")
SEQUENCE_STEPS = 64  # a signal's length where nothing says it: what 1-D networks' strides usually divide
SEQUENCE_CHANNEL_MISMATCH = re.compile(r"expected input\[\d+, (\d+), (\d+)\] to have (\d+) channels")
MAX_PAIR_SCALE = 8
# A network that downsamples images smaller than one of its kernels, as PyTorch words it.
MAX_JOINED_FEATURES = 16  # values a conditional network joins to each sample (a one-hot label, a condition)
# A linear layer given what it does not read: "(rows x given) and (reads x out)".
LINEAR_MISMATCH = re.compile(r"mat1 and mat2 shapes cannot be multiplied \((\d+)x(\d+) and (\d+)x(\d+)\)")
TOO_SMALL = re.compile(r"Kernel size can't be greater than actual input size|Expected more than 1 spatial element "
                       r"when training|Output size is too small")
# (An embedding of labels, `nn.Embedding(num_classes, ...)`, words it as any lookup out of range.)
# (The last: labels that index a table of the code's, one row per class: `onehot[y_]` of a gender GAN's two.)
LABEL_OUT_OF_RANGE = re.compile(r"Target -?\d+ is out of bounds|t >= 0 && t < n_classes|index out of range in self"
                                r"|index \d+ is out of bounds for dimension 0 with size \d+")
# Indexing one-dim values by two (`labels[:, 0]` of labels made one per sample): PyTorch's words.
LABELS_AS_COLUMN = re.compile(r"too many indices for tensor of dimension 1")
SMALL_BATCH = 4        # a loader's batches are cut to this first: a full-size DCGAN step takes seconds on a CPU
# A sample index past the end of a batch the code took apart (`images[idx]`): PyTorch's words.
PAST_THE_BATCH = re.compile(r"index (\d+) is out of bounds for dimension 0 with size (\d+)")
LONG_LOADER_LENGTH = 100  # a stand-in loader's `len()` after a run divided by a fraction of BATCHES (zero)
# A run cut short by a fraction of a stand-in loader's length, which BATCHES made zero: divided by it
# (`batch % (len(loader) // 10)`), or a loop left at it (`max_steps = len(loader) // 5`, then `if i >=
# max_steps: break`, after one pass: TCL007's accumulation ran once).
SHORT_LENGTH = re.compile(r"ZeroDivisionError|division by zero|modulo by zero|the accumulation ran 1 time\(s\)")


def long_length_note(loader: str, batches: int) -> str:
    """What the evidence says of a stand-in loader that reported LONG_LOADER_LENGTH."""
    return (f"`len()` of {loader} gave {LONG_LOADER_LENGTH}, a length real data would give (an earlier run was cut "
            f"short by a part of {batches} that came to zero), though it yields {batches} batches")
# Image sides a stand-in batch for a convolutional network takes when nothing says the data's, and the
# larger ones probed when none of those runs the network (verify/inputs.py's LARGE_SIDES, and 512).
USUAL_SIDES = (64, 32, 28)
LARGER_SIDES = (96, 128, 224, 256, 512)
MIN_LEARNED_SIDE = 8    # the smallest image side a mismatch of sides may ask for (`learn_side`)
IMAGE_LAYOUTS = [(1, 28), (3, 32), (3, 64), (1, 32), (1, 64), (3, 28), (3, 96), (3, 128)]


class DataPlan:
    """The stand-ins of one run of a script: its data, in the `choice`-th candidate shape, and its loop limits."""

    def __init__(self, sites: list, choice: int = 0, loops: list = (), flagged_line: int = 0,
                 full_batches: bool = False, learned: tuple = (), pair_scale: int = 1,
                 two_classes: bool = False, resized: tuple = (), runtime_layout=None,
                 long_loaders: bool = False, watched: frozenset = frozenset(), small_batch: int = SMALL_BATCH,
                 column_labels: bool = False) -> None:
        self.sites = {site.index: site for site in sites}
        self.choice = choice
        self.full_batches = full_batches  # False: batches cut to `small_batch` (the code may size its noise by them)
        self.small_batch = small_batch    # SMALL_BATCH, or more where the code took more samples of a batch
        self.cut = False                  # a batch was cut: a run with full batches may fit where this one failed
        self.cut_from: set[int] = set()   # the sizes the code asked for where a batch was cut
        self.loops = {loop.index: loop for loop in loops}
        self.flagged_line = flagged_line
        # Lines the experiment looks at besides (the flagged line in a function a top-level call runs):
        # the loops around them run as many passes as those around the flagged line.
        self.watched = frozenset(watched)
        self.namespace: dict = {}
        self.used = False               # a batch or sample was made: its shape may be why the run failed
        self.candidate_count = 1
        self.described: dict = {}  # site index (or (index, what)) -> what stood in for it
        self.stopped: dict[int, str] = {}
        self._counts: dict[int, int] = {}
        self._began: dict[int, float] = {}  # when each limited loop's current run began
        self._shapes: dict[int, tuple] = {}
        self._reshaped_for: dict[tuple, str] = {}  # a candidate shape -> the code's reshape it was made for
        # Reshapes a failed run applied to a stand-in batch (`view(-1, 784)` on 4x3x64x64 values), read
        # from its error: the next run's samples are shaped for them (verify/script.py run_top_level).
        self.learned = tuple(learned)
        self.batch_sizes: set[int] = set()  # the numbers of values of the batches made, to recognise them
        self.shrunk: dict[str, int] = {}  # a top-level batch-size setting -> the value it had (`_shrink_setting`)
        self._layouts: dict[int, Optional[samples.SampleLayout]] = {}
        self._layouts_in_use: set = set()  # layouts read off the loops over the data, not a dataset's code
        # How many times the side of a pair's first image its later images have: a super-resolution
        # pair (`lr, hr`) whose target an earlier run found larger than its input (`learn_pair_scale`).
        self.pair_scale = pair_scale
        # Sample shapes (and why) an earlier run's sizes asked for (`learn_side`): tried first.
        self.resized = tuple(resized)
        # What a sample of a loader made at run time in another module holds, as the file's loops take
        # its batches apart (verify/datasites.py Rewritten.runtime_layout).
        self.runtime_layout = runtime_layout
        # Labels of two classes only: after a run whose network scored fewer classes than the stand-in
        # labels held (`Target 9 is out of bounds` for an `ImageFolder` of three).
        self.two_classes = two_classes
        # Each sample's label a column of one (a batch's labels N x 1): after a run that indexed the labels'
        # second dim (`labels[:, 0]`, a CSV dataset's label column) on N labels.
        self.column_labels = column_labels
        # Stand-in loaders whose `len()` is a real loader's (LONG_LOADER_LENGTH), though they yield
        # BATCHES batches: after a run that divided by a fraction of their length (`batch % (len(loader)
        # // 10)`), which BATCHES makes zero.
        self.long_loaders = long_loaders
        self.length_read = False
        self._pair_sides: set[int] = set()  # the sides of the later images of the pairs made
        self.loaders_made_in: set[str] = set()  # modules of the project whose loaders are this run's stand-ins
        # Where line N of the code is, when not in the flagged file (a caller's `main.py, line N`).
        self.place: Optional[Callable[[int], str]] = None

    def helpers(self) -> dict:
        return {DATA_HELPER: self.make, LOOP_HELPER: self.few, WHILE_HELPER: self.still,
                LOADER_HELPER: self.loader_over_absent_data}

    # -------------------------------------------------------------------------- data

    def make(self, index: int, batch: Optional[Callable] = None, size: Optional[Callable] = None,
             hints: Optional[dict] = None) -> Any:
        site = self.sites.get(index) or DataSite(index, 0, 0, "data", "data")
        if site.kind == "unread":
            self.describe(site, "not run: only the data stood in for reads it")
            return (None,) * site.unpack if site.unpack > 1 else None
        if site.kind == "unread-file":
            self.describe(site, "not opened: only the data stood in for reads it")
            return contextlib.nullcontext()
        if site.kind == "keras":
            return arrays.keras_data(self, site)
        if site.kind == "table":
            return tables.made(self, site)
        if site.kind == "unpacked":
            return arrays.unpacked(self, site)
        if site.kind == "mnist-csv":
            return arrays.mnist_csv(self, site)
        if site.kind == "data-tensor":
            return self._data_tensor(site)
        if site.kind == "unread-array":
            self.describe(site, "not read: a value whose first use stops the run")
            return unread_data(f"{site.callee}(...)", site.line,
                               named_arrays=site.callee.rsplit(".", 1)[-1] == "loadmat")
        if site.kind == "arrays":
            return arrays.made(self, site, {name: _evaluate(value) for name, value in (hints or {}).items()})
        if site.kind == "split":
            last = site.callee.rsplit(".", 1)[-1]
            if last in SKLEARN_PREPROCESSORS:
                return arrays.scaler(self, site)
            return arrays.helper(self, site) if last in arrays.HELPERS else arrays.splitter(self, site)
        batch_size = _evaluate(batch)
        image_size = _evaluate(size)
        if site.kind == "data" and site.dataset_import and not (site.known or image_size):
            # (Channels alone, from a `Normalize` the call passes, leave the dataset and its size unsaid.)
            site, image_size = self._made_by_function(site, hints or {})
        over = _evaluate((hints or {}).get("dataset"))
        if site.kind == "loader" and isinstance(over, (StandInDataset, StandInLoader)) \
                and over._site.index != site.index:
            # The dataset the loader is over, as the run made it (the branch that ran, or what a function
            # of another module that makes data returned, `train_set, val_set = Dataset()`): its data.
            site = dataclasses.replace(site, known=over._site.known, channels=over._site.channels,
                                       layout=over._site.layout, dataset_import=over._site.dataset_import,
                                       layout_in_use=site.layout_in_use or over._site.layout_in_use,
                                       over=over._site.callee, views=over._site.views)
            self.sites[index] = site
            image_size = over._image_size if over._image_size is not None else image_size
        if site.kind in ("tf-mnist", "splits"):
            return StandInSplits(self, site)
        if site.kind == "dataset" or site.returns_dataset:
            return StandInDataset(self, site, image_size, length=None,
                                  project_class=_project_class(_evaluate((hints or {}).get("class"))))
        size_of_batch = int(batch_size) if isinstance(batch_size, int) and batch_size > 0 else \
            (1 if site.kind == "loader" and batch is None else DEFAULT_BATCH)
        requested = size_of_batch
        if size_of_batch > self.small_batch and not self.full_batches and not site.whole:
            size_of_batch = self.small_batch
            self.cut = True
            self.cut_from.add(requested)
            self._shrink_setting(site, requested)
        if site.unpack > 1:
            return tuple(StandInLoader(self, site, size_of_batch, image_size, requested) for _ in range(site.unpack))
        return StandInLoader(self, site, size_of_batch, image_size, requested)

    def _data_tensor(self, site: DataSite) -> Any:
        """Random samples for a file's tensor or array a DataLoader iterates, or class indices where it holds
        the targets a TensorDataset pairs with them; in an `.npz` archive where the code reads one. A
        function's value unpacked into several such names: one of each, in the order of the names."""
        if site.parts:
            made = [self._random_data(dataclasses.replace(site, targets=targets)) for targets in site.parts]
            names = [name.strip() for name in site.target.split(",")]
            roles = ", ".join(f"`{name}` {'labels' if targets else 'samples'}"
                              for name, targets in zip(names, site.parts))
            said = "; ".join(dict.fromkeys(text for _, text in made))  # each kind of value once
            self.describe(site, f"{len(made)} {'NumPy arrays' if site.as_array else 'tensors'} ({roles}): {said} "
                                f"(the files are not read){self._loaders_batch_cut(site)}")
            return tuple(data.numpy() if site.as_array else data for data, _ in made)
        data, made = self._random_data(site)
        cut = self._loaders_batch_cut(site) if not site.targets else ""
        if site.archive:
            if site.target_keys:
                labels, said = self._random_data(dataclasses.replace(site, targets=True))
                keys = ", ".join(f"`{key}`" for key in site.target_keys)
                self.describe(site, f"an `.npz` archive whose entries are {made}, and {said} under {keys} (the "
                                    f"file is not read){cut}")
                return arrays.StandInArchive(data.numpy(), {key: labels.numpy() for key in site.target_keys})
            self.describe(site, f"an `.npz` archive whose every entry is {made} (the file is not read){cut}")
            return arrays.StandInArchive(data.numpy())
        self.describe(site, f"{made}{' (a NumPy array)' if site.as_array else ''} (the file is not read){cut}")
        return data.numpy() if site.as_array else data

    def _random_data(self, site: DataSite) -> tuple[torch.Tensor, str]:
        """A data-tensor's values (samples, or the class indices of its targets), and what they are."""
        length, why = self._data_length(site)
        if site.targets:
            classes = self.classes(site)
            self.used = True
            return class_indices(length, classes, "cpu"), f"{length} class indices in 0..{classes - 1}{why}"
        shape = self.sample_shape(site, None)
        stored = (*shape[1:], shape[0]) if site.channels_last and len(shape) == 3 else shape
        data = torch.rand(length, *stored, generator=torch.Generator().manual_seed(1000 * site.index))
        channels_last = ", channels last" if stored != shape else ""
        samples = "sample" if length == 1 else "samples"
        return data, f"{length} random {samples} {self.shape_text(shape)} in [0, 1){channels_last}{why}"

    def _data_length(self, site: DataSite) -> tuple[int, str]:
        """How many samples a file's tensor or array holds, and why, where not DATASET_LENGTH: as many as
        the rows of the stand-in tables where the code reads one (the samples' labels, CelebA's
        attributes paired with its images in a TensorDataset); enough for SLICED_BATCHES of the batches
        a loop slices them by (`for i in range(0, len(X), 64): ... X[i:i + 64]`, which stops where a
        batch would run short), up to batches of MAX_SLICED_BATCH."""
        length, why = DATASET_LENGTH, ""
        if site.one_sample:
            return 1, " (one sample, as the function that reads it returns a batch of one)"
        if any(other.kind == "table" for other in self.sites.values()):
            length, why = tables.ROWS, " (as many as the stand-in table's rows)"
        batch = site.sliced_batch
        if batch and SLICED_BATCHES * batch > length and batch <= MAX_SLICED_BATCH:
            length, why = SLICED_BATCHES * batch, f" ({SLICED_BATCHES} batches of the {batch} a loop slices)"
        return length, why

    def _loaders_batch_cut(self, site: DataSite) -> str:
        """The loaders over a file's samples take batches of a top-level setting (`batch_size = 200`): cut
        to SMALL_BATCH, as a stand-in loader's are, so that the stand-in samples make several batches
        (a claim about a loop's iterations needs them); what the evidence says of it."""
        name = site.batch_name
        requested = self.namespace.get(name) if name else None
        if type(requested) is not int or requested <= self.small_batch or self.full_batches:
            return ""
        self._shrink_setting(site, requested)
        return f"; the script's `{name}` ({requested}) read as {self.small_batch} from there on, as its loaders' batch size"

    def _features_read(self, error: BaseException) -> Optional[tuple[tuple, str]]:
        """The width of samples a linear layer reads, where it was given stand-in samples of this plan (an
        MLP over rows of a file's features): as they were made (the width it was given is a sample's
        values, or its last dimension's), or with a few values the code joined to them (a conditional
        network's `torch.cat([x, labels], 1)`: it reads as many more than the samples' width)."""
        match = LINEAR_MISMATCH.search(str(error))
        if match is None:
            return None
        if any(len(shape) == 1 for shape, _ in self.resized):
            return None  # a width learned already: a later layer that disagrees reads something else (a latent code)
        given, reads = int(match.group(2)), int(match.group(3))
        for shape in self._shapes.values():
            width = math.prod(shape) if given >= math.prod(shape) else shape[-1]
            joined = given - width
            if 0 <= joined < min(width, MAX_JOINED_FEATURES + 1) and reads - joined > 0 \
                    and (reads - joined,) not in self._shapes.values():
                also = f" and {joined} the code joined to them" if joined else ""
                return (reads - joined,), (f"{reads - joined} features: an earlier run's linear layer, which reads "
                                           f"{reads}, was given the samples' {width}{also}")
        return None

    def _sequences_read(self, error: BaseException) -> Optional[tuple[tuple, str]]:
        """The samples a 1-D convolution reads (an audio or signal model's): sequences of the images' channels
        by their width where it was given stand-in images, then of the channels it takes where it was
        given sequences of others."""
        images = CONV1D_GIVEN_IMAGES.search(str(error))
        if images is not None:
            shape = tuple(int(images.group(index)) for index in (1, 2, 3))
            if shape in self._shapes.values():
                return (shape[0], shape[2]), (f"sequences of {shape[0]} channels by {shape[2]} steps: an earlier "
                                              f"run's 1-D convolution was given "
                                              f"{shape[0]}x{shape[1]}x{shape[2]} images")
        channeled = CONV1D_GIVEN_CHANNELED_IMAGES.search(str(error))
        if channeled is not None and tuple(int(channeled.group(index)) for index in (1, 2, 3)) in self._shapes.values():
            return (SEQUENCE_STEPS,), (f"sequences of {SEQUENCE_STEPS} steps: an earlier run's 1-D convolution was "
                                       f"given stand-in images with a channel the code added to each sample")
        sequences = SEQUENCE_CHANNEL_MISMATCH.search(str(error))
        if sequences is not None:
            got, length, expected = (int(sequences.group(index)) for index in (1, 2, 3))
            if (got, length) in self._shapes.values() and expected != got:
                return (expected, length), (f"sequences of {expected} channels: an earlier run's 1-D convolution, "
                                            f"which takes {expected}, was given {got}")
        return None

    def loader_over_absent_data(self, line: int, over: str, batch_size: Any, module: str = "",
                                image_size: Any = None, dataset_module: str = "") -> "StandInLoader":
        """Stand-in batches for a DataLoader the rewrite could not see to be one over files (its dataset
        made in another module), found at run time to iterate data that is not here (`over`), sized by
        `image_size` (what its transform's `Resize` was given). `module`: the project module that made
        it, when not the run's own code (its loader is this run's: the next run imports it anew,
        `forget_modules`); `dataset_module`: the module that defines the dataset's class."""
        if module:
            self.loaders_made_in.add(module)
        index = FIRST_RUNTIME_SITE + len([i for i in self.sites if i >= FIRST_RUNTIME_SITE])
        known = over.rsplit(".", 1)[-1]
        callee = f"{module}.DataLoader" if module else "DataLoader"  # made as `module` was imported at `line`
        # The dataset class of the module that made the loader (`return DataLoader(MNIST_Digits(...))` in a
        # data module) says what a sample holds (`return sample`: an image alone).
        # Else the class's own module (`DatasetFromFolder` of `dataset01`, whose `__getitem__` returns
        # an image and four labels), when the class is the project's.
        layouts = (samples.layout_in_module(source, known) for source in (module, dataset_module)
                   if source and "." not in over)
        layout = next((found for found in layouts if found is not None), None)
        self.sites[index] = DataSite(index, line, line, callee, "loader", over=over,
                                     known=known_dataset(known), layout=layout,
                                     layout_in_use=self.runtime_layout)
        return self.make(index, batch=lambda: batch_size, size=lambda: image_size)

    def _made_by_function(self, site: DataSite, hints: dict) -> tuple[DataSite, Any]:
        """Data made by a function of another module (`trainloader = utils.load_data(bs, img_size)`): what
        its code says of the samples (MNIST, `Resize(img_size)`), the size through the argument the call
        passes for that parameter."""
        made = made_in_module(site.dataset_import)
        if made is None:
            return site, None
        inner, parameters = made
        image_size = None
        if inner.size_text in parameters:
            position = str(parameters.index(inner.size_text))
            image_size = _evaluate(hints.get(inner.size_text) or hints.get(position))
        elif inner.size_text:
            image_size = self.value_of(inner.size_text)  # a number, or a name of the run's own
        site = dataclasses.replace(site, known=inner.known, channels=site.channels or inner.channels, over=inner.callee,
                                   layout=site.layout or inner.layout)
        self.sites[site.index] = site
        return site, image_size

    def forget_modules(self) -> None:
        """The next run imports the modules that made this run's stand-in loaders anew, so that their
        loaders are its own (with what it learned from this one)."""
        for name in self.loaders_made_in:
            sys.modules.pop(name, None)

    def _shrink_setting(self, site: DataSite, requested: int) -> None:
        """`BATCH_SIZE = 128` at the script's top level, given to the loader: from here on the script
        reads it as the stand-in batches' size, so what it sizes by it (`torch.randn(BATCH_SIZE,
        NOISE_DIM)`) agrees with them and a step costs what a small batch costs."""
        name = site.batch_name
        value = self.namespace.get(name) if name else None
        if type(value) is int and value == requested and name not in self.shrunk:
            self.namespace[name] = self.small_batch
            self.shrunk[name] = requested

    def sample_shape(self, site: DataSite, image_size: Any) -> tuple:
        if site.index not in self._shapes:
            candidates = self.candidates(site, image_size)
            self.candidate_count = max(self.candidate_count, len(candidates))
            self._shapes[site.index] = candidates[min(self.choice, len(candidates) - 1)]
        self.used = True
        return self._shapes[site.index]

    def candidates(self, site: DataSite, image_size: Any) -> list[tuple]:
        """Sample shapes, most likely first: how the code reshapes a batch (`imgs.view(-1, 784)`), what the
        code says of the data, then what the networks read."""
        # TensorFlow's MNIST reader always serves flat rows of 784 values, whatever the code does later.
        found: list[tuple] = [(784,)] if site.kind == "tf-mnist" else []
        side = _side(image_size)
        known = KNOWN_DATASETS.get(site.known or "", (None, None))[0]
        said = None
        if known is not None or side is not None or site.channels is not None:
            channels = site.channels or (known[0] if known else 3)
            height, width = side or (known[1:] if known else (64, 64))
            said = (channels, height, width)
        learned = [(dimensions, "the reshape to {} an earlier run failed on") for dimensions in self.learned]
        reshapes = [(dimensions, "the code's reshape of a batch to {}") for dimensions in self._reshapes(site)]
        if not learned and said is not None and site.known in FIXED_SAMPLES:
            # A dataset whose samples are fixed (CIFAR10: 3x32x32): that shape before the code's reshapes,
            # read off loops over a name a notebook may rebind to several datasets. (A reshape an earlier
            # run failed on comes first.)
            found.append(said)
        for shape, why in self.resized:
            self._reshaped_for.setdefault(shape, why)
            found.append(shape)
        reshapes = learned + reshapes
        for dimensions, what in reshapes:
            sample = dimensions[1:]
            if sample and all(isinstance(v, int) and v > 0 for v in sample):
                for shape in _samples_for(sample, said):
                    self._reshaped_for.setdefault(shape, what.format(f"({', '.join(map(str, dimensions))})"))
                    found.append(shape)
        if said is not None:
            found.append(said)
        for network in _networks(self.namespace):
            found.extend(_shapes_read_by(network, side))
        found += [(3, 64, 64), (3, 32, 32), (1, 28, 28), (784,)]
        unique = list(dict.fromkeys(found))
        if site.channels_last:  # the code moves the channels of images first: samples are images
            unique = [shape for shape in unique if len(shape) == 3] or unique
        return unique[:MAX_CANDIDATES]

    def _reshapes(self, site: DataSite) -> list[tuple]:
        """The site's reshapes as numbers, in this run's namespace: (batch or -1, *sample dimensions)."""
        found = []
        for texts in site.reshapes:
            values: list = []
            for position, text in enumerate(texts):
                if text is not None and text.startswith("*"):  # `*img_shape`
                    unpacked = self.value_of(text[1:])
                    if not (isinstance(unpacked, (tuple, list, torch.Size)) and
                            all(isinstance(v, int) and not isinstance(v, bool) for v in unpacked)):
                        break
                    values.extend(int(v) for v in unpacked)
                    continue
                value = self.value_of(text)
                if not isinstance(value, int) or isinstance(value, bool):
                    if position:
                        break
                    value = -1  # a batch size the code computes where it runs: the batch's own
                values.append(value)
            else:
                found.append(tuple(values))
        return found

    def fixed_batch(self, site: DataSite) -> Optional[int]:
        """The batch size a reshape of the code names (`x.view(batch_size, 1, 28, 28)`): the stand-in
        batches must hold exactly that many samples (not cut to SMALL_BATCH)."""
        for dimensions in [*self.learned, *self._reshapes(site)]:
            if dimensions and 0 < dimensions[0] <= MAX_FIXED_BATCH:
                return dimensions[0]
        return None

    def value_of(self, text: Optional[str]) -> Any:
        """A plain expression the code wrote (names, numbers, arithmetic), evaluated in the run's namespace."""
        if text is None:
            return None
        try:
            return eval(text, {"__builtins__": {}}, self.namespace)  # noqa: S307 - names and arithmetic only
        except Exception:  # noqa: BLE001 - a name the run has not bound: no hint
            return None

    def dataset_length(self, site: DataSite, default: int, most: int = MAX_DATASET) -> int:
        """How many samples a stand-in dataset holds: enough for the counts the code reads it with
        (`X[:500]`, `len(dataset) // batch_size`), up to `most`; the exact sum a `random_split`
        with fixed lengths asks for."""
        least = default
        for kind, text in site.counts:
            value = self.value_of(text)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                continue
            if kind == "exactly" and value <= MAX_EXACT_DATASET:
                return value
            least = max(least, min(value, most))
        return least

    def counts_known(self, site: DataSite) -> bool:
        """Can every count the code reads the data with be evaluated now? (A notebook's
        `random_split(dataset, [train_size, val_size])` names sizes a later cell defines.)"""
        return all(self.value_of(text) is not None for _, text in site.counts)

    def reshaped_to_asked_size(self, error: BaseException) -> bool:
        """Did the run fail on a reshape to the batch size the code asked for, of values made from a
        batch cut smaller (`outputs.view(config.batch_size, -1)`)?"""
        match = RESHAPE_ERROR.search(str(error))
        first = match.group(1).split(",")[0].strip() if match is not None else ""
        return first.isdigit() and int(first) in self.cut_from

    def larger_small_batch(self, error: BaseException) -> Optional[int]:
        """A run that indexed past the end of a batch cut to `small_batch` (`fake[idx]` for `idx in
        range(8)`, a plotting helper's grid): twice the size, or more, up to what it took; None when the
        error is not that, or no batch was cut (the code's own size is the next try then)."""
        match = PAST_THE_BATCH.search(str(error))
        if match is None or not self.cut or int(match.group(2)) != self.small_batch:
            return None
        larger = self.small_batch * 2
        while larger <= int(match.group(1)):
            larger *= 2
        return larger if larger < min(self.cut_from, default=0) else None

    def learn(self, error: BaseException) -> Optional[tuple]:
        """The reshape a run failed on, when it was applied to a stand-in batch of this plan: its
        dimensions (`x.view(-1, 784)` on 4x3x64x64 values -> (-1, 784)); None otherwise."""
        match = RESHAPE_ERROR.search(str(error))
        if match is None or int(match.group(2)) not in self.batch_sizes:
            return None
        try:
            dimensions = tuple(int(value) for value in match.group(1).split(","))
        except ValueError:
            return None
        return dimensions if dimensions not in self.learned and len(dimensions) > 1 else None

    def layout(self, site: DataSite) -> Optional[samples.SampleLayout]:
        """What a sample of the project's dataset class holds, when it is not an image and a label
        (verify/samples.py): read off the file's class, or the module the class is imported from."""
        if site.index not in self._layouts:
            module, _, name = site.dataset_import.rpartition(".")
            self._layouts[site.index] = site.layout or (samples.layout_in_module(module, name) if module else None)
            if self._layouts[site.index] is None and site.layout_in_use is not None:
                self._layouts[site.index] = site.layout_in_use
                self._layouts_in_use.add(site.layout_in_use)
        return self._layouts[site.index]

    def laid_out(self, layout: samples.SampleLayout, images: torch.Tensor, labels: torch.Tensor, paths: Any) -> Any:
        """A batch (or a sample) in the layout: the first image item the given values, each later one
        random values of the same shape (its sides times `pair_scale`), labels and paths as made."""
        if layout.frames and images.dim() >= 3:
            # Clips: each image item is that many images stacked before their channels, the first frame
            # the given values.
            images = torch.cat([images.unsqueeze(-4), _another_random(
                (*images.shape[:-3], layout.frames - 1, *images.shape[-3:]), layout.frames, images)], dim=-4)
        if layout.single:
            return images
        later = (*images.shape[:-2], *(side * self.pair_scale for side in images.shape[-2:])) \
            if images.dim() >= 3 else tuple(images.shape)
        items, image_items = [], 0
        for kind in layout.kinds:
            if kind == samples.IMAGE:
                items.append(images if image_items == 0 else _another_random(later, image_items, images))
                if image_items:
                    self._pair_sides.add(later[-1])
                image_items += 1
            else:
                items.append(labels if kind == samples.LABEL else paths)
        return dict(zip(layout.keys, items)) if layout.keys is not None else list(items)

    def views(self, images: torch.Tensor, count: int) -> list:
        """`count` views of the same images: the given values, then random ones of their shape."""
        return [images] + [_another_random(images.shape, view, images) for view in range(1, count)]

    def layout_text(self, layout: samples.SampleLayout, shape: tuple, site: DataSite) -> str:
        scaled = f", the later ones {self.pair_scale} times as high and wide (an earlier run compared them " \
                 f"with that size)" if self.pair_scale != 1 else ""
        said_by = "the loops over it take batches apart" if layout in self._layouts_in_use else \
            "the class's `__getitem__` returns them"
        labels = self.label_text(site) if samples.LABEL in layout.kinds else ""
        return f"{layout.describe()} as {said_by}, each image " \
               f"{self.shape_text(shape)} in [0, 1){scaled}{labels}"

    def learn_pair_scale(self, error: BaseException) -> Optional[int]:
        """A run whose pairs' later image was compared with something k times its side (`mse(G(lr), hr)`
        with G upscaling by k): k, for the next run's pairs; None otherwise."""
        match = SIDE_MISMATCH.search(str(error))
        if match is None or self.pair_scale != 1 or int(match.group(3)) == 0:
            return None
        larger, smaller = sorted((int(match.group(1)), int(match.group(2))), reverse=True)
        if smaller not in self._pair_sides or larger % smaller or not 2 <= larger // smaller <= MAX_PAIR_SCALE:
            return None
        return larger // smaller

    def learn_side(self, error: BaseException) -> Optional[tuple[tuple, str]]:
        """A run whose network's output was compared with something of a side the code fixed itself
        (a patch discriminator's 4x4 scores against `target = ones(batch, 1, 8, 8)`, made for the
        128-pixel images the script trains on), or whose network found the images too small for its
        kernels: the stand-in image shape whose side makes them fit, and why; None when the error is
        neither or the run's images had no single side. Also a linear layer given the stand-in samples
        themselves (an MLP over rows of a file's features): samples of the width it reads."""
        features = self._features_read(error) or self._sequences_read(error)
        if features is not None:
            return features
        images = {shape for shape in self._shapes.values() if len(shape) == 3 and (shape[1] == shape[2] or shape[0] <= 4)}
        if len(images) != 1:
            return None
        channels, height, width = images.pop()
        match = SIDE_MISMATCH.search(str(error))
        if match is not None and height != width:
            return self._learn_one_axis(channels, height, width, match)
        side = height
        if TOO_SMALL.search(str(error)) and side * 2 <= LARGER_SIDES[-1]:
            # A network that downsamples more than the stand-in images allow (a 70x70 PatchGAN's 4x4
            # kernel on what is left of 64 pixels): twice the side.
            return (channels, side * 2, side * 2), (f"side {side * 2}: an earlier run's network found {side}-pixel "
                                                    f"images too small")
        channel = CHANNEL_MISMATCH.search(str(error))
        if channel is not None and channels <= 4 and (int(channel.group(2)), int(channel.group(3))) == (side, side):
            # The convolution read `got` channels where it takes `expected`: the images had that many
            # too many, also when a `torch.cat([x, label_map], 1)` before it added channels of its own.
            got, expected = int(channel.group(1)), int(channel.group(4))
            fewer = channels - (got - expected)
            if 1 <= fewer <= 4 and fewer != channels:
                return (fewer, side, side), (f"{fewer} channels: an earlier run's convolution, which takes {expected}, "
                                             f"read {got}, the images' {channels} and {got - channels} joined to them")
            return None
        linear = LINEAR_MISMATCH.search(str(error))
        if linear is not None:
            # A discriminator's feature maps flattened into a linear layer sized for the real images
            # (`nn.Linear(8 * 8 * 8, 1)` after a stride-2 convolution of 16-pixel images): the maps had
            # ratio² times the values it reads, so the images were ratio times too wide (or too narrow).
            given, reads = int(linear.group(2)), int(linear.group(3))
            larger, smaller = max(given, reads), min(given, reads)
            ratio = math.isqrt(larger // smaller) if larger % smaller == 0 else 0
            if ratio not in (2, 4, 8, 16) or ratio * ratio * smaller != larger or given > reads and side % ratio:
                return None
            new_side = side // ratio if given > reads else side * ratio
            if not MIN_LEARNED_SIDE <= new_side <= LARGER_SIDES[-1]:
                return None
            return (channels, new_side, new_side), (f"side {new_side}: an earlier run's linear layer, which reads "
                                                    f"{reads} values, was given {given} from {side}-pixel images")
        match = SIDE_MISMATCH.search(str(error)) or CONCATENATED_MISMATCH.search(str(error))
        dimension = match.group(3) if match is not None else None  # "" for a concatenation: not named
        if match is None or (dimension and int(dimension) < 2):
            return None  # a batch or channel mismatch: not the images' side
        made, asked = int(match.group(1)), int(match.group(2))
        if side in (made, asked) and dimension == "3":
            # The width of batches of images disagreed; their height may not (a 96x160 patch pasted on
            # them): that width only, and a later run's height if that differs too.
            return self._learn_one_axis(channels, height, width, match)
        if side in (made, asked):
            # The stand-in images themselves beside a tensor the code sized for its real ones
            # (`input_A.copy_(batch["A"])` into `torch.ones(1, 3, 256, 256)`): that tensor's side.
            other = asked if made == side else made
            if MIN_LEARNED_SIDE <= other <= LARGER_SIDES[-1]:
                at = f"at dimension {dimension}" if dimension else "in a concatenation"
                return (channels, other, other), (f"side {other}: an earlier run on {side}-pixel images met a "
                                                  f"tensor of side {other} {at}")
            return None
        if not dimension:
            return None  # a concatenation does not say which dimension disagreed: only the side itself tells
        # PyTorch names the input first and the target second (`mse_loss(output, target)`): the side
        # that scales the output to the target's. Only whole powers of two a network's strides make.
        larger, smaller = max(made, asked), min(made, asked)
        if larger % smaller or larger // smaller not in (2, 4, 8, 16):
            return None
        new_side = side * asked // made if asked > made else side // (made // asked)
        if not MIN_LEARNED_SIDE <= new_side <= LARGER_SIDES[-1] or new_side == side:
            return None
        shape = (channels, new_side, new_side)
        return shape, (f"side {new_side}: an earlier run on {side}-pixel images compared {made} with {asked} "
                       f"at dimension {match.group(3)}")

    def _learn_one_axis(self, channels: int, height: int, width: int,
                        match: re.Match) -> Optional[tuple[tuple, str]]:
        """Batches of images whose height (dimension 2) or width (dimension 3) disagreed with a tensor the
        code sized for its real images: that side only, the other kept."""
        made, asked, dimension = int(match.group(1)), int(match.group(2)), match.group(3)
        axis = {"2": "height", "3": "width"}.get(dimension)
        current = height if axis == "height" else width
        if axis is None or current not in (made, asked):
            return None
        other = asked if made == current else made
        if not MIN_LEARNED_SIDE <= other <= LARGER_SIDES[-1]:
            return None
        shape = (channels, other, width) if axis == "height" else (channels, height, other)
        return shape, (f"{axis} {other}: an earlier run on {height}x{width} images met a tensor of {axis} {other} "
                       f"at dimension {dimension}")

    def classes(self, site: DataSite) -> int:
        return 2 if self.two_classes else KNOWN_DATASETS.get(site.known or "", (None, CLASSES))[1]

    def as_columns(self, site: DataSite) -> bool:
        """Are the site's labels columns of one? Only a dataset the code defines (or imports from a module
        not here) may make them so: torchvision's give class indices."""
        return self.column_labels and site.known is None

    def label_text(self, site: DataSite) -> str:
        return ", each a column of one (an earlier run indexed the labels' second dim)" if self.as_columns(site) else ""

    def label(self, site: DataSite, value: int):
        """A sample's label: the class index, or a column of it (`column_labels`)."""
        return torch.tensor([value]) if self.as_columns(site) else value

    def needs_column_labels(self, error: BaseException) -> bool:
        """Did a run fail as it indexed the second dim of the stand-in labels of this plan, one per sample?"""
        return self.used and not self.column_labels and LABELS_AS_COLUMN.search(str(error)) is not None

    def needs_fewer_classes(self, error: BaseException) -> bool:
        """Did a run fail as its network scored fewer classes than the stand-in labels of this plan hold?"""
        return self.used and not self.two_classes and LABEL_OUT_OF_RANGE.search(str(error)) is not None

    def shape_text(self, shape: tuple) -> str:
        """`1x28x28`, and the reshape it was chosen for, if one was."""
        why = self._reshaped_for.get(tuple(shape))
        return _shape_text(shape) + (f" (for {why})" if why else "")

    @property
    def batch_count(self) -> int:
        """The batches a stand-in loader yields: BATCHES, or as many as a loop over data around the
        flagged line takes to reach it where it runs every k-th batch (`if (i + 1) % 100 == 0:`)."""
        return max([BATCHES] + [loop.sparse_iterations for loop in self.loops.values() if loop.over_data])

    def needs_long_loaders(self, error: BaseException) -> bool:
        """Was the run cut short by a fraction of a stand-in loader's length, which BATCHES made zero?"""
        return self.length_read and not self.long_loaders and SHORT_LENGTH.search(str(error)) is not None

    def describe(self, site: DataSite, text: str) -> None:
        label = site.label.replace(f"(line {site.line})", f"({self.place(site.line)})") if self.place \
            else site.label
        self.described.setdefault(site.index, f"{label}: {text}")

    # -------------------------------------------------------------------------- loops

    def few(self, index: int, iterable: Any):
        limit = self._limit(index)
        self._began[index] = time.monotonic()
        for count, item in enumerate(iterable):
            if count >= limit or self._out_of_time(index, count):
                self._stop(index, count)
                return
            self._start_inner_loops_over(index)
            yield item

    def still(self, index: int, test: Any) -> bool:
        """The test of a limited `while` loop. Its count starts over once the loop is left (its test
        false, or the limit reached), and at each iteration of a limited loop around it: an episode's
        `while not done:` inside the training loop runs again in the next episode, also when it was
        left by `break`."""
        count = self._counts.get(index, 0)
        if count == 0:
            self._began[index] = time.monotonic()
        if test and (count >= self._limit(index) or self._out_of_time(index, count)):
            self._stop(index, count)
            self._counts[index] = 0
            return False
        self._counts[index] = count + 1 if test else 0
        if test:
            self._start_inner_loops_over(index)
        return test

    def _start_inner_loops_over(self, index: int) -> None:
        outer = self.loops.get(index)
        if outer is None:
            return
        for inner in self.loops.values():
            if inner.index != index and outer.line <= inner.line and inner.end_line <= outer.end_line:
                self._counts.pop(inner.index, None)

    def _out_of_time(self, index: int, count: int) -> bool:
        """Has a loop run to a sparse line's k-th iteration for longer than SPARSE_SECONDS, past the
        iterations any enclosing loop runs?"""
        return count >= ENCLOSING_LIMIT and time.monotonic() - self._began.get(index, time.monotonic()) > SPARSE_SECONDS

    def _limit(self, index: int) -> int:
        loop = self.loops.get(index)
        encloses = loop is not None and any(loop.line <= line <= loop.end_line
                                            for line in (self.flagged_line, *self.watched))
        if encloses:
            return max(ENCLOSING_LIMIT, loop.sparse_iterations)
        return BATCHES if loop is not None and loop.gathers else OTHER_LIMIT

    def _stop(self, index: int, iterations: int) -> None:
        loop = self.loops.get(index)
        where = f"line {loop.line}" if loop else "a loop"
        self.stopped[index] = f"the loop at {where} stopped after {iterations} iteration{'s' * (iterations != 1)}"


def loaders_in_process() -> None:
    """Every DataLoader of the run loads in the verification process itself (`num_workers=0`): a worker
    process would hide what failed behind "Caught RuntimeError in DataLoader worker process 0", and
    start processes for a few stand-in batches. What the batches hold does not change."""
    from torch.utils.data import DataLoader

    original = DataLoader.__init__
    if getattr(original, "in_process", False):
        return

    def in_process(self, *args, **kwargs):
        for name in ("prefetch_factor", "multiprocessing_context", "persistent_workers"):
            kwargs.pop(name, None)
        if len(args) > 5:  # positional: dataset, batch_size, shuffle, sampler, batch_sampler, num_workers, ...
            args = (*args[:5], 0, *args[6:])
        else:
            kwargs["num_workers"] = 0
        return original(self, *args, **kwargs)

    in_process.in_process = True
    DataLoader.__init__ = in_process


def loaders_over_absent_data() -> None:
    """A DataLoader over a dataset of a package that is not installed (a no-op stand-in, verify/noops.py)
    or over no samples at all (a dataset class listing a folder that is not here), made where the static
    rewrite could not see it was data (`Mnist(args.datadir).train_data()` of a sibling module), gets the
    stand-in batches of the run that makes it: the plan whose helper is in the namespace of the calling
    code. Elsewhere (no run of ours up the stack) the DataLoader is made as written."""
    from torch.utils.data import DataLoader

    if getattr(DataLoader.__dict__.get("__new__"), "stands_in", False):
        return

    def new(cls, *args, **kwargs):
        dataset = args[0] if args else kwargs.get("dataset")
        absent = _absent_data(dataset)
        caller = frame = sys._getframe(1)
        for _ in range(MAX_FRAMES_UP):
            if absent is None or frame is None or LOADER_HELPER in frame.f_globals:
                break
            frame = frame.f_back
        if absent is None or frame is None or LOADER_HELPER not in frame.f_globals:
            return object.__new__(cls)
        batch_size = args[1] if len(args) > 1 else kwargs.get("batch_size", 1)
        made_in = caller.f_globals.get("__name__", "") if caller is not frame else ""
        return frame.f_globals[LOADER_HELPER](frame.f_lineno, absent, batch_size, made_in,
                                              _transformed_size(dataset), _class_module(dataset))

    new.stands_in = True
    DataLoader.__new__ = new


def _absent_data(dataset: Any) -> Optional[str]:
    """What a DataLoader's dataset is, when it holds no data here (None when it holds some): the call of
    the package that is not installed (`torchvision.datasets.MNIST`), or the class that found no samples."""
    from torchcopylint.verify.noops import NoOp

    if isinstance(dataset, NoOp):
        name = object.__getattribute__(dataset, "_name")
        return name[:-2] if name.endswith("()") else name
    try:
        empty = hasattr(type(dataset), "__len__") and len(dataset) == 0
    except Exception:  # noqa: BLE001 - a dataset whose length fails: it is left as written
        return None
    return type(dataset).__name__ if empty else None


def _class_module(dataset: Any) -> str:
    """The module of the project's dataset class a loader is over (`dataset01` for its
    `DatasetFromFolder`, which found no samples here); "" for a no-op stand-in."""
    from torchcopylint.verify.noops import NoOp

    return "" if isinstance(dataset, NoOp) else getattr(type(dataset), "__module__", "") or ""


def _transformed_size(dataset: Any) -> Any:
    """The image size a no-op dataset's transform resizes or crops to (`datasets.MNIST(root,
    transform=transforms.Compose([transforms.Resize(64), ...]))` with torchvision missing: 64), as the
    static rewrite reads it where it sees the dataset made (the last step that sizes the image:
    `Resize(IMAGE_SIZE + 2)`, then `CenterCrop(IMAGE_SIZE)`)."""
    from torchcopylint.verify.noops import Composed, NoOp

    def arguments(value: Any) -> tuple:
        return getattr(value, "_arguments", ((), {})) if isinstance(value, NoOp) else ((), {})

    given_args, given_kwargs = arguments(dataset)
    made = [given_kwargs.get("transform"), *given_args]
    transform = next((value for value in made if isinstance(value, (Composed, NoOp))), None)
    steps = transform.transforms if isinstance(transform, Composed) else [transform]
    size = None
    for step in steps:
        name = object.__getattribute__(step, "_name").rsplit(".", 1)[-1] if isinstance(step, NoOp) else ""
        step_args, step_kwargs = arguments(step)
        wanted = step_args[0] if step_args else step_kwargs.get("size")
        if name.endswith("()") and name[:-2] in SIZE_TRANSFORMS and wanted is not None:
            size = wanted
    return size


def _evaluate(make: Optional[Callable]) -> Any:
    if make is None:
        return None
    try:
        return make()
    except Exception:  # noqa: BLE001 - the code's expression needs what the slice left out: no hint
        return None


def _samples_for(sample: tuple, said: Optional[tuple]) -> list[tuple]:
    """Sample shapes a reshape of a batch to (batch, *sample) accepts: an image shape where the sample is
    flat (`view(-1, 784)`: what the data says, or 1x28x28), else the sample itself; (H, W) as one channel."""
    if len(sample) == 1:
        values = sample[0]
        images = [said] if said is not None and math.prod(said) == values else []
        images += [(c, side, side) for c, side in IMAGE_LAYOUTS if c * side * side == values]
        return list(dict.fromkeys(images)) + [sample]
    if len(sample) == 2:
        return [(1, *sample)]
    return [tuple(sample)]


def _side(size: Any) -> Optional[tuple[int, int]]:
    if isinstance(size, int) and not isinstance(size, bool) and 1 < size <= 1024:
        return (size, size)
    if isinstance(size, (tuple, list)) and len(size) == 2 and all(isinstance(v, int) for v in size):
        return (int(size[0]), int(size[1]))
    return None


def _networks(namespace: dict) -> list[nn.Module]:
    found = []
    for value in list(namespace.values()):
        if isinstance(value, nn.Module) and value not in found:
            found.append(value)
    return found


def _shapes_read_by(network: nn.Module, side: Optional[tuple]) -> list[tuple]:
    """Sample shapes (no batch dimension) the network's first layer reads."""
    for layer in network.modules():
        if isinstance(layer, nn.Conv2d):
            sides = [side] if side else _sides_taken(network, layer.in_channels)
            return [(layer.in_channels, *s) for s in sides]
        if isinstance(layer, nn.Linear):
            features = layer.in_features
            images = [(c, s, s) for c, s in IMAGE_LAYOUTS if c * s * s == features]
            return images + [(features,)]
        if isinstance(layer, nn.Conv1d):
            return [(layer.in_channels, 64)]
        if isinstance(layer, (nn.BatchNorm2d, nn.InstanceNorm2d)):
            return [(layer.num_features, *(side or (32, 32)))]
    return []


def _sides_taken(network: nn.Module, channels: int) -> list[tuple[int, int]]:
    """Image sides to try on a network that starts with a convolution, when nothing says the data's: the
    usual ones (64, 32, 28) when any of them runs the network's forward; else the first larger side
    that does (a DCGAN discriminator for 512-pixel images ends in `nn.Linear(13 * 13, 1)`), then the usual."""
    if any(_forward_takes(network, channels, side) for side in USUAL_SIDES):
        return [(side, side) for side in USUAL_SIDES]
    larger = next((side for side in LARGER_SIDES if _forward_takes(network, channels, side)), None)
    return [(side, side) for side in ((larger,) if larger else ()) + USUAL_SIDES]


def _forward_takes(network: nn.Module, channels: int, side: int) -> bool:
    """Does the network's forward run on two images of this side?"""
    parameter = next(network.parameters(), None)
    device = parameter.device if parameter is not None else "cpu"
    return forward_runs(network, torch.rand(2, channels, side, side, device=device))


def _another_random(shape: tuple, number: int, first: torch.Tensor) -> torch.Tensor:
    """The `number`-th further image of a sample whose first image is `first`: random values of
    `shape`, fixed by the two."""
    return torch.rand(shape, generator=torch.Generator().manual_seed(7919 * number + first.numel()))


def _shape_text(shape: tuple) -> str:
    return "x".join(str(v) for v in shape)


class StandInLoader:
    """A DataLoader stand-in: BATCHES batches of `[images, labels]` (or of images alone, where the code
    takes a batch as one tensor), random values, fixed by the batch number."""

    def __init__(self, plan: DataPlan, site: DataSite, batch_size: int, image_size: Any,
                 requested: Optional[int] = None) -> None:
        self._plan, self._site, self.batch_size, self._image_size = plan, site, batch_size, image_size
        self._requested = requested or batch_size
        self.dataset = StandInDataset(plan, site, image_size, length=batch_size * BATCHES)
        self.num_workers = 0
        self.drop_last = False
        # `len(loader.sampler.indices)`: a subset sampler over the samples the stand-in batches hold.
        self.sampler = StandInSampler(list(range(batch_size * BATCHES)))

    def _batch(self, number: int):
        shape = self._plan.sample_shape(self._site, self._image_size)
        fixed = self._plan.fixed_batch(self._site)
        if fixed is not None and fixed != self.batch_size:
            self.batch_size = fixed  # the code reshapes a batch to exactly this many samples
        classes = self._plan.classes(self._site)
        generator = torch.Generator().manual_seed(1000 * self._site.index + number)
        images = torch.rand(self.batch_size, *shape, generator=generator, device="cpu")
        self._plan.batch_sizes.add(images.numel())
        labels = class_indices(self.batch_size, classes, "cpu").roll(number)
        if self._plan.as_columns(self._site):
            labels = labels.unsqueeze(1)
        name = self._site.batch_name
        if name in self._plan.shrunk:
            cut = f" (of the {self._plan.shrunk[name]} the code asks for; the script's `{name}` read as " \
                  f"{self._plan.small_batch} from there on)"
        elif fixed is not None and fixed != self._requested:
            cut = " (the size the code reshapes a batch to)"
        else:
            cut = f" (of the {self._requested} the code asks for)" if self._requested != self.batch_size else ""
        batches = f"{self._plan.batch_count} batches of {self.batch_size}{cut}"
        layout = self._plan.layout(self._site)
        if layout is not None:  # the project's dataset class returns image pairs, or a dict (verify/samples.py)
            self._plan.describe(self._site, f"{batches} random {self._plan.layout_text(layout, shape, self._site)}")
            paths = [f"sample_{number}_{i}.png" for i in range(self.batch_size)]
            return self._plan.laid_out(layout, images, labels, paths)
        if self._site.views > 1:  # a contrastive transform's views of each image: a list of that many batches
            views = self._plan.views(images, self._site.views)
            self._plan.describe(self._site, f"{batches} random samples, each "
                                            f"{self._site.views} views {self._plan.shape_text(shape)} in [0, 1) "
                                            f"(what the file's transform makes of an image), labels in 0..{classes - 1}"
                                            f"{self._plan.label_text(self._site)}")
            return views if self._site.single else [views, labels]
        if self._site.single:  # the code takes each batch as one tensor: images without labels
            self._plan.describe(self._site, f"{batches} random samples {self._plan.shape_text(shape)} in [0, 1), "
                                            f"without labels")
            return images
        self._plan.describe(self._site, f"{batches} random samples {self._plan.shape_text(shape)} in [0, 1), "
                                        f"labels in 0..{classes - 1}{self._plan.label_text(self._site)}")
        return [images, labels]

    def __iter__(self):
        return Batches(self._batch, self._plan.batch_count)

    def __len__(self) -> int:
        self._plan.length_read = True
        if not self._plan.long_loaders:
            return BATCHES
        self._plan.described.setdefault((self._site.index, "length"), long_length_note(self._site.label, BATCHES))
        return LONG_LOADER_LENGTH

    def __repr__(self) -> str:
        return f"<stand-in loader for {self._site.label}>"

    def __getattr__(self, name: str):
        # A data maker of the project stood in for (`data = ReadData(path)`, then
        # `data.getdataloader(batch_size=64)`, `data.get_dataset()`): its methods named for data give
        # these batches, or their dataset.
        if name.startswith("_") or not DATA_FUNCTION.match(name):
            raise AttributeError(name)
        made = self.dataset if re.search(r"sets?$", name, re.IGNORECASE) else self
        return lambda *args, **kwargs: made


@dataclass
class StandInSampler:
    """What a loader's `.sampler` offers the code that reads it: its indices, their count."""

    indices: list

    def __iter__(self):
        return iter(self.indices)

    def __len__(self) -> int:
        return len(self.indices)


class StandInDataset:
    """A map-style dataset stand-in: `dataset[i]` is `(image, label)`; also `.classes`, `.class_to_idx`, `.targets`,
    `.labels`, `.data`."""

    def __init__(self, plan: DataPlan, site: DataSite, image_size: Any, length: Optional[int] = BATCHES * DEFAULT_BATCH,
                 project_class: Optional[type] = None) -> None:
        self._plan, self._site, self._image_size = plan, site, image_size
        self._project_class = project_class  # the project's dataset class it stands for, whose own methods it runs
        self._fixed_length = length  # None: sized from the counts the code reads it with, when first needed
        self.transform = self.target_transform = None
        self.root = ""
        self._targets = None  # what the code set `.targets` to
        self._labels = None  # what the code set `.labels` to

    def _shape(self) -> tuple:
        return self._plan.sample_shape(self._site, self._image_size)

    @property
    def _length(self) -> int:
        if self._fixed_length is None:
            length = self._plan.dataset_length(self._site, DATASET_LENGTH)
            if not self._plan.counts_known(self._site):
                return length  # sized again once the code has defined them (`dataset[11001]` before the split)
            self._fixed_length = length
        return self._fixed_length

    def __getitem__(self, index: int):
        # Past the end wraps around: code that indexes up to a constant of its own (`dataset[i]` for i in
        # range(1000)) reads samples, as it would from the real, larger dataset.
        if isinstance(index, torch.Tensor) and index.numel() == 1 and not index.is_floating_point():
            index = int(index)
        if isinstance(index, bool) or not hasattr(index, "__index__") or index < -self._length:
            raise IndexError(index)  # an int, a NumPy integer, a one-element integer tensor
        index = int(index) % self._length
        shape = self._shape()
        classes = self._plan.classes(self._site)
        image = torch.rand(*shape, generator=torch.Generator().manual_seed(1000 * self._site.index + index),
                           device="cpu")
        if self._site.views > 1:
            self._plan.describe(self._site, f"{self._length} random samples, each {self._site.views} views "
                                            f"{self._plan.shape_text(shape)} in [0, 1) (what the file's transform "
                                            f"makes of an image), with labels in 0..{classes - 1}")
            return self._plan.views(image, self._site.views), self._plan.label(self._site, index % classes)
        layout = self._plan.layout(self._site)
        if layout is not None:
            self._plan.describe(self._site, f"{self._length} random {self._plan.layout_text(layout, shape, self._site)}")
            return self._plan.laid_out(layout, image, torch.as_tensor(self._plan.label(self._site, index % classes)),
                                       f"sample_{index}.png")
        self._plan.describe(self._site, f"{self._length} random samples {self._plan.shape_text(shape)} in [0, 1) "
                                        f"with labels "
                                        f"in 0..{classes - 1}{self._plan.label_text(self._site)}")
        return image, self._plan.label(self._site, index % classes)

    def __len__(self) -> int:
        return self._length

    def __iter__(self):
        return (self[i] for i in range(self._length))

    @property
    def classes(self) -> list:
        count = self._plan.classes(self._site)
        names = CLASS_NAMES.get(self._site.known or "")
        # torchvision's own names where they are known (`dataset.classes.index("Trouser")`); numbers otherwise.
        return list(names[:count]) if names and len(names) >= count else [str(c) for c in range(count)]

    @property
    def class_to_idx(self) -> dict:
        return {name: index for index, name in enumerate(self.classes)}

    @property
    def targets(self) -> torch.Tensor:
        if self._targets is not None:
            return self._targets
        return torch.arange(self._length, device="cpu") % self._plan.classes(self._site)

    @targets.setter
    def targets(self, value) -> None:
        self._targets = value  # `ds.targets = ds.targets[ds.targets == 7]` (the horses of CIFAR10)

    @property
    def samples(self) -> list:
        """ImageFolder's `(path, class index)` of each sample (also `.imgs`). The paths name image files
        of the sample's size, written into the temporary folder on first use: code that opens one
        (`plt.imread(dataset.imgs[0][0])`, to check the size) reads an image, never the user's data."""
        files = sample_files(self._shape(), self._site.index)
        self._plan.described.setdefault((self._site.index, "files"), (
            f"the file list of {self._site.label}: {len(files)} random images of the samples' size in the "
            f"temporary folder"))
        classes = self._plan.classes(self._site)
        return [(files[index % len(files)], index % classes) for index in range(self._length)]

    imgs = samples

    @property
    def labels(self):
        """SVHN's and STL10's name for the targets, a NumPy array there (`len(set(train.labels))`)."""
        return self.targets.numpy() if self._labels is None else self._labels

    @labels.setter
    def labels(self, value) -> None:
        self._labels = value  # `dataset.labels = [breeds.index(b) for b in ...]`: what the code set

    @property
    def data(self) -> Any:
        """The images as torchvision keeps them before any transform: the MNIST family's a (N, 28, 28)
        uint8 tensor (`mnist.data.size(1)` is a side, `mnist.data.float() / 255` the pixels), CIFAR's
        a (N, 32, 32, 3) uint8 NumPy array; another dataset's samples, stacked."""
        known = self._site.known or ""
        if known.endswith("MNIST") or known.startswith("CIFAR"):
            channels, height, width = KNOWN_DATASETS[known][0]
            pixels = torch.randint(0, 256, (self._length, height, width, channels), dtype=torch.uint8,
                                   generator=torch.Generator().manual_seed(1000 * self._site.index))
            self._plan.described.setdefault((self._site.index, "data"), (
                f"`.data` of {self._site.label}: {self._length} random images {height}x{width} of bytes"))
            return pixels[..., 0] if known.endswith("MNIST") else pixels.numpy()
        return torch.stack([self[i][0] for i in range(self._length)])

    @data.setter
    def data(self, value) -> None:
        # `ds.data = ds.data[mask]`: as torchvision's datasets, the dataset holds as many samples as its
        # data (random ones still).
        try:
            length = len(value)
        except TypeError:
            return
        if length > 0:
            self._fixed_length = length

    # torchvision's older names, still read by many MNIST scripts (`mnist.train_data.size(1)`).
    train_data = test_data = data
    train_labels = test_labels = targets

    def __getattr__(self, attribute: str):
        # Only for what the stand-in lacks: a method the project's class adds (`get_dataloader`, which
        # wraps the dataset in a DataLoader) runs on the stand-in's samples; one that reads the real
        # data (`self.cifar`) fails there, as a stand-in must.
        method = _own_method(self.__dict__.get("_project_class"), attribute)
        if method is None:
            raise AttributeError(attribute)
        self._plan.described.setdefault((self._site.index, attribute), (
            f"`{attribute}` of {self._project_class.__name__} ran on the stand-in for {self._site.label}"))
        return method.__get__(self)

    def __repr__(self) -> str:
        return f"<stand-in dataset for {self._site.label}>"


def _project_class(value: Any) -> Optional[type]:
    """A class of the user's code: not Python's own, nor one of an installed package (torch's `Dataset`)."""
    if not isinstance(value, type) or value.__module__ == "builtins" or not importing.of_the_project(value):
        return None
    return value


def _own_method(project_class: Optional[type], attribute: str) -> Optional[Callable]:
    """A plain method the project's class (or a project base of it) defines by that name; never a special one."""
    if project_class is None or (attribute.startswith("__") and attribute.endswith("__")):
        return None
    for klass in project_class.__mro__:
        if _project_class(klass) is None:
            continue
        method = klass.__dict__.get(attribute)
        if isinstance(method, types.FunctionType):
            return method
    return None


SAMPLE_FILES = 4


def sample_files(shape: tuple, index: int) -> list[str]:
    """Paths of SAMPLE_FILES images of random pixels of a sample's size (C x H x W, H x W; 32 x 32
    otherwise), different per dataset site."""
    if len(shape) == 3 and shape[0] in (1, 3):
        channels, height, width = shape
    elif len(shape) == 2:
        channels, (height, width) = 1, shape
    else:
        channels, height, width = 3, 32, 32
    return [images.random_image(channels, height, width, seed=SAMPLE_FILES * index + number)
            for number in range(SAMPLE_FILES)]


TEN_THOUSAND_TEST_IMAGES = frozenset({"MNIST", "FashionMNIST", "KMNIST", "CIFAR10", "CIFAR100"})


class StandInSplits:
    """TensorFlow's `read_data_sets(...)` result: `.train`, `.test`, `.validation`, each with `next_batch(n)`;
    also by key (`['train']`), as a course's reader of that kind returns them."""

    def __init__(self, plan: DataPlan, site: DataSite) -> None:
        self.train = self.validation = StandInSplit(plan, site, StandInSplit.LENGTH)
        # The test split of the datasets that have one of 10,000 images (MNIST's family, CIFAR's; SVHN's is
        # larger) has them all where the code names that count (`x_test.reshape(10000, -1)`).
        full = site.known in TEN_THOUSAND_TEST_IMAGES and site.full_test_split
        self.test = StandInSplit(plan, site, FULL_TEST_ROWS if full else StandInSplit.LENGTH)

    def __getitem__(self, name: str) -> "StandInSplit":
        return self.test if name == "test" else self.train


class StandInSplit:
    LENGTH = 512  # the rows `.images` holds: enough for a sampler that picks a batch within half of them

    def __init__(self, plan: DataPlan, site: DataSite, length: int) -> None:
        self._plan, self._site, self._served, self._length = plan, site, 0, length

    def _arrays(self, count: int, offset: int):
        import numpy as np

        # TensorFlow's rows are flat; a project's reader serves images as its code makes them.
        shape = self._plan.sample_shape(self._site, None)
        shape = (math.prod(shape),) if self._site.kind == "tf-mnist" else tuple(shape)
        classes = self._plan.classes(self._site)
        generator = np.random.default_rng(1000 * self._site.index + offset)
        images = generator.random((count, *shape), dtype=np.float32)
        indices = (np.arange(count) + offset) % classes
        labels = np.eye(classes, dtype=np.float64)[indices] if self._site.one_hot else indices
        self._plan.describe(self._site, f"batches of random arrays ({_shape_text(shape)} values in [0, 1)) with "
                                        f"{'one-hot ' if self._site.one_hot else ''}labels in 0..{classes - 1}")
        return images, labels

    def next_batch(self, count: int, *args, **kwargs):
        self._served += 1
        return self._arrays(int(count), self._served)

    @property
    def images(self):
        return self._arrays(self._length, 0)[0]

    @property
    def labels(self):
        return self._arrays(self._length, 0)[1]

    @property
    def num_examples(self) -> int:
        return self._length

"""Stand-ins for torchvision's image classifiers when torchvision is not installed.

Runs in the verification child process. Attack toolkits, distillation and
pruning code build their networks with `torchvision.models.resnet18(pretrained=
True)` and then compute with them: a perturbation's gradient, a teacher's
logits, a layer's activations through a hook. A claim about that code (a clone
recorded for nothing, a graph kept alive) holds or fails on any image
classifier, so where torchvision is missing, a small one of the same layout
stands in: the attributes code reaches for (`fc` and `layer1`..`layer4` of a
ResNet, `features` and `classifier` of a VGG or a MobileNet) are there, with
the widths of the real heads (`fc.in_features` is 512 for a ResNet-18, the
VGG's `classifier[6]` reads 4096 features), and it ends in `num_classes`
scores (1000 unless the call says). Its weights are random: nothing is
downloaded. The evidence names each one made. `timm.create_model(name)` stands in
the same way where timm is not installed (with its `forward_features`,
`reset_classifier`, `num_features` and `default_cfg`). A network the code needs for
what its weights compute (a perceptual loss judged by its values) is the
same to the run; the claims verified here are about graphs, copies and writes.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from torch import nn

# What stood in during the diagnosis being verified (here and in verify/zoos.py), for its evidence:
# script.begin clears it and script.stood_in reads it (this module may not import script, which imports
# the no-op packages).
notes: list[str] = []

# Constructor names by the head the real network has, and that head's width (what code that replaces
# the head reads or writes: `nn.Linear(model.fc.in_features, 10)`, `model.classifier[6] = nn.Linear(4096, 10)`).
WITH_FC = re.compile(r"^(resnet|resnext|wide_resnet|regnet|shufflenet|googlenet|inception)")
WITH_CLASSIFIER = re.compile(r"^(vgg|alexnet|mobilenet|efficientnet|mnasnet|densenet|squeezenet|convnext|"
                             r"maxvit|vit|swin)")
WIDE_FC = re.compile(r"^(resnet(50|101|152)|resnext|wide_resnet|inception)")


def is_classifier_constructor(name: str) -> bool:
    return bool(WITH_FC.match(name) or WITH_CLASSIFIER.match(name))


# torchvision's VGG configurations (channels of each convolution, "M" a max-pool): a stand-in's
# `features` has its layers at the same indices, so code that slices or indexes it (a perceptual loss's
# `vgg19(...).features[:4]`, `features[x] for x in range(18, 27)`) gets what it asks for.
VGG_LAYOUTS = {
    "vgg11": (64, "M", 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"),
    "vgg13": (64, 64, "M", 128, 128, "M", 256, 256, "M", 512, 512, "M", 512, 512, "M"),
    "vgg16": (64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"),
    "vgg19": (64, 64, "M", 128, 128, "M", 256, 256, 256, 256, "M", 512, 512, 512, 512, "M", 512, 512, 512, 512, "M"),
}
# torchvision's letters for its VGG layouts (`vgg.cfgs["E"]` is VGG-19's).
VGG_LETTERS = {"A": "vgg11", "B": "vgg13", "D": "vgg16", "E": "vgg19"}
VGG_NARROWING = 4  # the stand-in's convolutions are this many times narrower (the last keeps the head's 512)


def _vgg_features(name: str) -> nn.Sequential:
    layout = VGG_LAYOUTS[name.removesuffix("_bn")]
    layers: list[nn.Module] = []
    channels = 3
    last = max(index for index, item in enumerate(layout) if item != "M")
    for index, item in enumerate(layout):
        if item == "M":
            layers.append(nn.MaxPool2d(2, 2, ceil_mode=True))
            continue
        width = item if index == last else item // VGG_NARROWING
        layers.append(nn.Conv2d(channels, width, 3, padding=1))
        if name.endswith("_bn"):
            layers.append(nn.BatchNorm2d(width))
        layers.append(nn.ReLU(inplace=True))
        channels = width
    return nn.Sequential(*layers)


def convolution(inputs: int, outputs: int, stride: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(inputs, outputs, 3, stride=stride, padding=1, bias=False),
                         nn.BatchNorm2d(outputs), nn.ReLU(inplace=True))


# Inception v3's named blocks, in order: (name, input and output channels, kernel, stride, a max-pool after
# it). Code that computes FID rebuilds the network from them (`inception.Conv2d_1a_3x3`, ...,
# `inception.Mixed_7c`), reading the real widths at the block ends (64, 192, 768, 2048). Each is one
# convolution here (1x1 but the first, which keeps a CPU run short).
INCEPTION_BLOCKS = (
    ("Conv2d_1a_3x3", 3, 32, 3, 2, False), ("Conv2d_2a_3x3", 32, 32, 1, 1, False),
    ("Conv2d_2b_3x3", 32, 64, 1, 1, True), ("Conv2d_3b_1x1", 64, 80, 1, 1, False),
    ("Conv2d_4a_3x3", 80, 192, 1, 1, True), ("Mixed_5b", 192, 256, 1, 1, False), ("Mixed_5c", 256, 288, 1, 1, False),
    ("Mixed_5d", 288, 288, 1, 1, False), ("Mixed_6a", 288, 768, 1, 2, False), ("Mixed_6b", 768, 768, 1, 1, False),
    ("Mixed_6c", 768, 768, 1, 1, False), ("Mixed_6d", 768, 768, 1, 1, False), ("Mixed_6e", 768, 768, 1, 1, False),
    ("Mixed_7a", 768, 1280, 1, 2, False), ("Mixed_7b", 1280, 2048, 1, 1, False), ("Mixed_7c", 2048, 2048, 1, 1, False),
)


def _block(inputs: int, outputs: int, kernel: int, stride: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(inputs, outputs, kernel, stride=stride, padding=kernel // 2, bias=False),
                         nn.BatchNorm2d(outputs), nn.ReLU(inplace=True))


class StandInBackbone(nn.Module):
    """A small image classifier of 3-channel images, laid out as the torchvision network `name` is:
    one convolution per stage, the real head's width."""

    def __init__(self, name: str, num_classes: int = 1000) -> None:
        super().__init__()
        self.stands_for = name
        self.with_fc = bool(WITH_FC.match(name))
        self.inception = name.startswith("inception")
        if self.inception:  # Inception v3: its named blocks, `AuxLogits`, pooled, `fc`
            self.width = 2048
            for block, inputs, outputs, kernel, stride, pooled in INCEPTION_BLOCKS:
                setattr(self, block, _block(inputs, outputs, kernel, stride))
                if pooled:
                    setattr(self, f"maxpool{1 if block == 'Conv2d_2b_3x3' else 2}", nn.MaxPool2d(3, stride=2))
            self.AuxLogits = nn.Sequential(nn.AdaptiveAvgPool2d((1, 1)), nn.Flatten(), nn.Linear(768, num_classes))
            self.AuxLogits.fc = self.AuxLogits[2]  # (what fine-tuning code replaces: `model.AuxLogits.fc`)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.dropout = nn.Dropout(0.5)
            self.fc = nn.Linear(2048, num_classes)
            return
        if self.with_fc:  # ResNet: stem, four stages, pooled, `fc`
            width = self.width = 2048 if WIDE_FC.match(name) else 512
            self.conv1 = nn.Conv2d(3, 64, 7, stride=2, padding=3, bias=False)
            self.bn1 = nn.BatchNorm2d(64)
            self.relu = nn.ReLU(inplace=True)
            self.maxpool = nn.MaxPool2d(3, stride=2, padding=1)
            self.layer1 = convolution(64, 64, 1)
            self.layer2 = convolution(64, 128, 2)
            self.layer3 = convolution(128, 256, 2)
            self.layer4 = convolution(256, width, 2)
            self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
            self.fc = nn.Linear(width, num_classes)
            return
        # VGG, AlexNet, MobileNet, EfficientNet, DenseNet: `features`, pooled, `classifier`.
        width = 1024 if name.startswith("densenet") else 512 if name.startswith(("vgg", "alexnet")) else 1280
        self.width = width
        self.features = _vgg_features(name) if name.removesuffix("_bn") in VGG_LAYOUTS else \
            nn.Sequential(nn.Conv2d(3, 64, 3, stride=2, padding=1), nn.ReLU(inplace=True),
                          nn.MaxPool2d(2, ceil_mode=True), nn.Conv2d(64, width, 3, stride=2, padding=1),
                          nn.ReLU(inplace=True), nn.MaxPool2d(2, ceil_mode=True))
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        if name.startswith(("vgg", "alexnet")):
            self.classifier = nn.Sequential(nn.Linear(width, 4096), nn.ReLU(True), nn.Dropout(),
                                            nn.Linear(4096, 4096), nn.ReLU(True), nn.Dropout(),
                                            nn.Linear(4096, num_classes))
        elif name.startswith("densenet"):
            self.classifier = nn.Linear(width, num_classes)
        else:
            self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(width, num_classes))

    def forward_features(self, x):
        if self.inception:
            for block, *_, pooled in INCEPTION_BLOCKS:
                x = getattr(self, block)(x)
                if pooled:
                    x = getattr(self, f"maxpool{1 if block == 'Conv2d_2b_3x3' else 2}")(x)
            return x
        if self.with_fc:
            x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
            return self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.features(x)

    def forward(self, x):
        return self.get_classifier()(self.avgpool(self.forward_features(x)).flatten(1))

    # timm's interface (`timm.create_model` stands in with this network too).
    @property
    def num_features(self) -> int:
        return self.width

    @property
    def default_cfg(self) -> dict:
        return {"input_size": (3, 224, 224), "mean": (0.485, 0.456, 0.406), "std": (0.229, 0.224, 0.225),
                "num_classes": 1000}

    pretrained_cfg = default_cfg

    def get_classifier(self) -> nn.Module:
        return self.fc if self.with_fc else self.classifier

    def reset_classifier(self, num_classes: int, *args, **kwargs) -> None:
        head = nn.Linear(self.num_features, num_classes) if num_classes else nn.Identity()
        if self.with_fc:
            self.fc = head
        else:
            self.classifier = head


SUBMODULES = frozenset({"resnet", "vgg", "mobilenet", "mobilenetv2", "mobilenetv3", "densenet", "efficientnet",
                        "alexnet", "squeezenet", "shufflenetv2", "regnet", "googlenet", "inception", "convnext"})


class ModelsNamespace:
    """`torchvision.models` (and its submodules, `torchvision.models.resnet`) while torchvision is not
    installed: its classifier constructors make stand-ins, its weight enums are no-ops; any other
    name is absent, as before."""

    def __init__(self, name: str, absent: Any, no_op: Any = None) -> None:
        self._name = name
        self._absent = absent  # how an absent name is made (verify/absent.py's AbsentName)
        self._no_op = no_op or absent  # how a no-op is made (verify/noops.py's NoOp)

    def __getattr__(self, attribute: str):
        if attribute.startswith("__") and attribute.endswith("__"):
            raise AttributeError(attribute)
        name = f"{self._name}.{attribute}"
        # The submodule first: `inception` is one, and also reads as a constructor's name.
        if attribute in SUBMODULES and self._name.count(".") < 2:
            return ModelsNamespace(name, self._absent, self._no_op)  # `torchvision.models.resnet.resnet18`
        if is_classifier_constructor(attribute) and attribute == attribute.lower():
            return _constructor(name, attribute)
        if attribute in ("cfgs", "cfg") and self._name.endswith(".vgg"):
            # `vgg.cfgs["E"]`, the layer widths code builds its own VGG-19 from (a style transfer's): the
            # real ones, which torchvision keeps by letter (`cfg` before torchvision 0.5).
            return {letter: list(VGG_LAYOUTS[name]) for letter, name in VGG_LETTERS.items()}
        if attribute == "model_urls":
            # `model_zoo.load_url(vgg.model_urls["vgg19"])`: where the weights would come from (nothing is
            # downloaded: the loader stands in, verify/checkpoints.py).
            return _ModelUrls(name)
        if attribute.endswith("_Weights"):
            # `models.ResNet50_Weights.IMAGENET1K_V1`: which weights to download (none is), and its
            # `.transforms()`, their preprocessing (`.mean`, `.std`): nothing of a network.
            return self._no_op(name)
        return self._absent(name)


class _ModelUrls(dict):
    """A model module's `model_urls` while torchvision is not installed: any network's name gives a URL
    that says so."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self._name = name

    def __missing__(self, key: str) -> str:
        return f"https://torchvision-not-installed.invalid/{self._name}/{key}.pth"


def _constructor(qualified: str, name: str):
    def make(*args, num_classes: int = 1000, **kwargs):
        layout = "`Conv2d_1a_3x3`..`Mixed_7c`, `AuxLogits`, `fc`" if name.startswith("inception") else \
            "`fc`, `layer1`..`layer4`" if WITH_FC.match(name) else \
            f"`features` of its {len(VGG_LAYOUTS[name.removesuffix('_bn')])} convolutions and pools, narrower, " \
            "and `classifier`" if name.removesuffix("_bn") in VGG_LAYOUTS else "`features`, `classifier`"
        note(f"`{qualified}` (torchvision is not installed) stood in: a small network of its layout ({layout}), "
             f"random weights, {num_classes} classes")
        return StandInBackbone(name, num_classes)
    return make


def classifier_maker(qualified: str) -> Callable[..., StandInBackbone]:
    """A model zoo's maker of classifiers by name (`timm.create_model(name, ...)`,
    `pytorchcv.model_provider.get_model(name, pretrained=True)`), where its package is not installed: the
    stand-in of the name's family (a ResNet-like one for names of no torchvision family)."""
    package = qualified.split(".")[0]

    def create(name: str, pretrained: bool = False, num_classes: int = 1000, **kwargs) -> StandInBackbone:
        family = name if is_classifier_constructor(name) else "resnet50"
        note(f"`{qualified}({name!r})` ({package} is not installed) stood in: a small network of the "
             f"{'ResNet' if WITH_FC.match(family) else 'VGG/MobileNet'} layout, random weights, "
             f"{num_classes} classes")
        network = StandInBackbone(family)
        network.reset_classifier(num_classes)  # 0: no head, the pooled features (as timm makes it)
        return network

    return create


timm_create_model = classifier_maker("timm.create_model")


def timm_list_models(*args, **kwargs) -> list:
    """`timm.list_models(...)` where timm is not installed: none (code that chooses between timm and
    torchvision by name takes torchvision's path, whose classifiers stand in)."""
    note("`timm.list_models()` (timm is not installed) listed no models")
    return []


def hub_loads_standing_in(hub: Any) -> None:
    """`torch.hub.load("pytorch/vision:v0.10.0", "resnet18", pretrained=True)` (a notebook's way to a
    pretrained classifier) downloads torchvision's code and weights, which --verify never does: the
    stand-in of that network instead, named in the evidence. Any other hub model loads as torch does
    (and the sandbox refuses its download)."""
    original = hub.load
    if getattr(original, "stands_in", False):
        return

    def load(repo_or_dir, model, *args, **kwargs):
        repository = str(repo_or_dir).split(":")[0].rstrip("/")
        if repository in ("pytorch/vision", "pytorch/vision/") and is_classifier_constructor(model):
            classes = kwargs.get("num_classes", 1000)
            note(f"`torch.hub.load({repo_or_dir!r}, {model!r})` (nothing is downloaded) stood in: a small network "
                 f"of its layout, random weights, {classes} classes")
            return StandInBackbone(model, classes)
        return original(repo_or_dir, model, *args, **kwargs)

    load.stands_in = True
    hub.load = load


def note(text: str) -> None:
    if text not in notes:
        notes.append(text)

"""Stand-ins for the networks of model-zoo packages, when the package is not installed.

Runs in the verification child process. Kaggle kernels and applied projects
build their networks from packages of pretrained models:
`EfficientNet.from_pretrained("efficientnet-b0")` (efficientnet_pytorch),
`pretrainedmodels.__dict__["se_resnext50_32x4d"](pretrained="imagenet")`,
`smp.Unet("resnet34", classes=1)` (segmentation_models_pytorch), then replace
the head (`model._fc = nn.Linear(1280, 1)`, `model.last_linear.in_features`)
and train. A claim about that training (a loss summed with its graph, a batch
copy-constructed) holds or fails on any network of the same interface, so a
small one stands in: the attributes code reaches for, with the real head's
width, random weights; nothing is downloaded. smp's losses stand in as a
differentiable score of the prediction, and the image-quality metrics of lpips, pyiqa, piq and
pytorch_msssim (`lpips.LPIPS(net="alex")`, `pyiqa.create_metric("ssim")`, `piq.psnr(x, y)`) as a
differentiable distance of the images they compare (a loss, as some code uses them, or a score to
log). ttach's test-time augmentation wrappers run the network they wrap once, on the images as given.
The evidence names each one made
(through verify/backbones.py's notes). Any other name of these packages stays
absent (verify/absent.py), and the verdict names it.
"""

from __future__ import annotations

from typing import Any, Callable

import torch
from torch import nn

from torchcopylint.verify.backbones import convolution, note

# Image-quality metrics: perceptual distances (LPIPS, a pretrained network) and structural similarity.
METRIC_PACKAGES = frozenset({"lpips", "pyiqa", "piq", "pytorch_msssim"})
# Test-time augmentation (`tta.ClassificationTTAWrapper(model, tta.aliases.d4_transform())`).
AUGMENTATION_WRAPPERS = frozenset({"ttach"})
PACKAGES = frozenset({"efficientnet_pytorch", "pretrainedmodels", "segmentation_models_pytorch"}) | METRIC_PACKAGES \
    | AUGMENTATION_WRAPPERS
# Their modules on the way to a name that stands in (`smp.utils.losses.DiceLoss`, `tta.aliases.d4_transform`).
SUBMODULES = frozenset([*(f"segmentation_models_pytorch.{name}" for name in ("losses", "encoders", "utils",
                                                                             "utils.losses")),
                        *(f"ttach.{name}" for name in ("aliases", "transforms", "wrappers"))])

# The width of each EfficientNet's last convolution, which its `_fc` reads (`nn.Linear(1280, 1)`).
EFFICIENTNET_WIDTHS = {"b0": 1280, "b1": 1280, "b2": 1408, "b3": 1536, "b4": 1792, "b5": 2048, "b6": 2304,
                       "b7": 2560, "b8": 2816, "l2": 5504}


class EfficientNet(nn.Module):
    """efficientnet_pytorch's `EfficientNet`, small: `_conv_stem`, `_bn0`, `_blocks`, `_conv_head`, `_bn1`,
    `_avg_pooling`, `_dropout`, `_fc` of the real width, `extract_features`. Code that tells networks apart
    by `'EfficientNet' in str(model.__class__)` reads this class's name."""

    def __init__(self, model_name: str = "efficientnet-b0", num_classes: int = 1000, in_channels: int = 3) -> None:
        super().__init__()
        width = EFFICIENTNET_WIDTHS.get(model_name.rsplit("-", 1)[-1], 1280)
        self._conv_stem = nn.Conv2d(in_channels, 32, 3, stride=2, padding=1, bias=False)
        self._bn0 = nn.BatchNorm2d(32)
        self._blocks = nn.ModuleList([convolution(32, 64, 2), convolution(64, 128, 2), convolution(128, 320, 2)])
        self._conv_head = nn.Conv2d(320, width, 1, bias=False)
        self._bn1 = nn.BatchNorm2d(width)
        self._avg_pooling = nn.AdaptiveAvgPool2d(1)
        self._dropout = nn.Dropout(0.2)
        self._fc = nn.Linear(width, num_classes)
        self._swish = nn.SiLU()

    @classmethod
    def from_pretrained(cls, model_name: str, weights_path: Any = None, advprop: bool = False,
                        in_channels: int = 3, num_classes: int = 1000, **override) -> "EfficientNet":
        return cls._made("from_pretrained", model_name, in_channels, num_classes)

    @classmethod
    def from_name(cls, model_name: str, in_channels: int = 3, **override) -> "EfficientNet":
        return cls._made("from_name", model_name, in_channels, override.get("num_classes", 1000))

    @classmethod
    def _made(cls, how: str, model_name: str, in_channels: int, num_classes: int) -> "EfficientNet":
        note(f"`EfficientNet.{how}({model_name!r})` (efficientnet_pytorch is not installed) stood in: a small "
             f"network of its layout (`_conv_stem`, `_blocks`, `_conv_head`, `_fc`), random weights, "
             f"{num_classes} classes")
        return cls(model_name, num_classes, in_channels)

    @staticmethod
    def get_image_size(model_name: str) -> int:
        return 224

    def set_swish(self, memory_efficient: bool = True) -> None:
        pass

    def extract_features(self, inputs):
        x = self._swish(self._bn0(self._conv_stem(inputs)))
        for block in self._blocks:
            x = block(x)
        return self._swish(self._bn1(self._conv_head(x)))

    def forward(self, inputs):
        pooled = self._avg_pooling(self.extract_features(inputs)).flatten(1)
        return self._fc(self._dropout(pooled))


# The width of each pretrainedmodels network's `last_linear` input.
PRETRAINEDMODELS_WIDTHS = {
    **dict.fromkeys(("resnet18", "resnet34"), 512),
    **dict.fromkeys(("resnet50", "resnet101", "resnet152", "fbresnet152", "cafferesnet101", "resnext101_32x4d",
                     "resnext101_64x4d", "se_resnet50", "se_resnet101", "se_resnet152", "se_resnext50_32x4d",
                     "se_resnext101_32x4d", "senet154", "xception", "polynet"), 2048),
    **dict.fromkeys(("inceptionv3",), 2048), **dict.fromkeys(("inceptionv4", "inceptionresnetv2"), 1536),
    "bninception": 1024, "densenet121": 1024, "densenet169": 1664, "densenet201": 1920, "densenet161": 2208,
    "nasnetalarge": 4032, "nasnetamobile": 1056, "pnasnet5large": 4320, "dpn68": 832, "dpn68b": 832,
    **dict.fromkeys(("dpn92", "dpn98", "dpn107", "dpn131"), 2688),
    **dict.fromkeys(("alexnet", "vgg11", "vgg11_bn", "vgg13", "vgg13_bn", "vgg16", "vgg16_bn", "vgg19", "vgg19_bn"),
                    4096),
}


class PretrainedModelsNetwork(nn.Module):
    """A pretrainedmodels network, small: `features(x)`, `logits(features)`, `avg_pool`, `last_linear` of the
    real width, and the preprocessing settings (`input_size`, `mean`, `std`)."""

    input_size = [3, 224, 224]
    input_space = "RGB"
    input_range = [0, 1]
    mean = [0.485, 0.456, 0.406]
    std = [0.229, 0.224, 0.225]

    def __init__(self, name: str, num_classes: int = 1000) -> None:
        super().__init__()
        width = PRETRAINEDMODELS_WIDTHS[name]
        self.stands_for = name
        self.layer0 = convolution(3, 64, 2)
        self.layer1 = convolution(64, width, 2)
        self.avg_pool = nn.AdaptiveAvgPool2d(1)
        self.dropout = nn.Dropout(0.2)
        self.last_linear = nn.Linear(width, num_classes)

    def features(self, x):
        return self.layer1(self.layer0(x))

    def logits(self, features):
        return self.last_linear(self.dropout(self.avg_pool(features).flatten(1)))

    def forward(self, x):
        return self.logits(self.features(x))


def _pretrainedmodels_constructor(name: str) -> Callable[..., PretrainedModelsNetwork]:
    def make(num_classes: int = 1000, pretrained: Any = "imagenet") -> PretrainedModelsNetwork:
        note(f"`pretrainedmodels.{name}` (pretrainedmodels is not installed) stood in: a small network of its "
             f"interface (`features`, `logits`, `last_linear`), random weights, {num_classes} classes")
        return PretrainedModelsNetwork(name, num_classes)
    return make


SEGMENTATION_ARCHITECTURES = frozenset({"Unet", "UnetPlusPlus", "FPN", "Linknet", "PSPNet", "PAN", "DeepLabV3",
                                        "DeepLabV3Plus", "MAnet", "UPerNet", "Segformer"})


class SegmentationNetwork(nn.Module):
    """A segmentation_models_pytorch network, small: `encoder`, `decoder`, `segmentation_head` (and
    `classification_head` with `aux_params`); it maps images to `classes` maps of their size."""

    def __init__(self, architecture: str, in_channels: int = 3, classes: int = 1,
                 aux_params: dict | None = None) -> None:
        super().__init__()
        self.stands_for = architecture
        self.encoder = nn.Sequential(convolution(in_channels, 32, 2), convolution(32, 64, 2))
        self.decoder = nn.Sequential(nn.Upsample(scale_factor=4), convolution(64, 16, 1))
        self.segmentation_head = nn.Conv2d(16, classes, 3, padding=1)
        self.classification_head = None
        if aux_params is not None:
            self.classification_head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                                                     nn.Linear(64, aux_params.get("classes", 1)))

    def forward(self, x):
        features = self.encoder(x)
        masks = self.segmentation_head(self.decoder(features))
        masks = nn.functional.interpolate(masks, size=x.shape[-2:]) if masks.shape[-2:] != x.shape[-2:] else masks
        if self.classification_head is not None:
            return masks, self.classification_head(features)
        return masks

    def predict(self, x):
        self.eval()
        with torch.no_grad():
            return self(x)


def _segmentation_constructor(architecture: str) -> Callable[..., SegmentationNetwork]:
    def make(encoder_name: str = "resnet34", encoder_depth: int = 5, encoder_weights: Any = "imagenet",
             *args, in_channels: int = 3, classes: int = 1, aux_params: dict | None = None, **kwargs):
        note(f"`segmentation_models_pytorch.{architecture}({encoder_name!r})` (segmentation_models_pytorch is not "
             f"installed) stood in: a small encoder and decoder, random weights, {classes} "
             f"class{'' if classes == 1 else 'es'}")
        return SegmentationNetwork(architecture, in_channels, classes, aux_params)
    return make


def _create_segmentation_model(arch: str, encoder_name: str = "resnet34", encoder_weights: Any = "imagenet",
                               in_channels: int = 3, classes: int = 1, **kwargs) -> SegmentationNetwork:
    architecture = next((name for name in SEGMENTATION_ARCHITECTURES if name.lower() == arch.lower()), arch)
    return _segmentation_constructor(architecture)(encoder_name, encoder_weights=encoder_weights,
                                                   in_channels=in_channels, classes=classes,
                                                   aux_params=kwargs.get("aux_params"))


class SegmentationLoss(nn.Module):
    """A loss of segmentation_models_pytorch (`DiceLoss("binary")`): the mean of the prediction's sigmoid.
    It is differentiable in the prediction, as the real one is; its value is not the real one's (the
    claims verified are about graphs, copies and writes, not values)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.stands_for = name

    def forward(self, prediction, target=None, *args, **kwargs):
        return prediction.float().sigmoid().mean()


def _loss_class(qualified: str):
    def make(*args, **kwargs) -> SegmentationLoss:
        note(f"`{qualified}` (segmentation_models_pytorch is not installed) stood in: the mean of the "
             f"prediction's sigmoid, a differentiable loss of its value")
        return SegmentationLoss(qualified)
    return make


def _identity_preprocessing(*args, **kwargs) -> Callable[..., Any]:
    """`smp.encoders.get_preprocessing_fn(encoder, "imagenet")`: the normalisation of the data, which
    stand-in batches replace; it gives back what it is given."""
    return lambda image, *more, **options: image


class AugmentedNetwork(nn.Module):
    """ttach's `ClassificationTTAWrapper(model, transforms)` (and its segmentation and keypoint kin):
    the network it wraps, run once on the images as given. The real wrapper merges the network's outputs
    on flipped and rotated copies (their mean, by default): the same network's graph, once per copy."""

    def __init__(self, model: nn.Module, transforms: Any = None, merge_mode: str = "mean",
                 output_label_key: Any = None, output_mask_key: Any = None, **kwargs) -> None:
        super().__init__()
        self.model = model
        self.output_key = output_label_key or output_mask_key

    def forward(self, image, *args):
        output = self.model(image, *args)
        return output[self.output_key] if self.output_key is not None else output


class NoAugmentation(list):
    """ttach's `Compose([...])` and the transforms its aliases make (`d4_transform()`): no copy but the
    images as given, which AugmentedNetwork runs the network on."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__()


def _augmentation(qualified: str) -> Callable[..., Any]:
    def make(*args, **kwargs):
        if qualified.endswith("Wrapper"):
            note(f"`{qualified}` (ttach is not installed) stood in: the network it wraps, run once on the "
                 f"images as given (no flipped or rotated copies)")
            return AugmentedNetwork(*args, **kwargs)
        return NoAugmentation()
    return make


class ImageDistance(nn.Module):
    """An image-quality metric of a missing package: the mean absolute difference of the two images
    (of one image from zero, for a metric without a reference). Differentiable in both, as LPIPS and
    SSIM are; its value is not theirs (the claims verified are about graphs, copies and writes)."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.stands_for = name

    def forward(self, image, reference=None, *args, **kwargs):
        other = reference if isinstance(reference, torch.Tensor) else torch.zeros_like(image)
        return (image.float() - other.float()).abs().mean()


def _metric(qualified: str) -> Callable[..., Any]:
    """A metric class (`lpips.LPIPS`, `piq.SSIMLoss`) or maker (`pyiqa.create_metric`): makes an
    ImageDistance; a metric function (`piq.psnr(x, y)`, `pytorch_msssim.ssim(x, y)`): computes one."""
    package, _, last = qualified.rpartition(".")
    said = f"`{qualified}` ({package.split('.')[0]} is not installed) stood in: the mean absolute difference " \
           f"of the images it compares"
    if last[:1].isupper() or last == "create_metric":
        def make(*args, **kwargs) -> ImageDistance:
            note(said)
            return ImageDistance(qualified if last != "create_metric" or not args else f"{qualified}({args[0]!r})")

        return make

    def compute(image, reference=None, *args, **kwargs):
        note(said)
        return ImageDistance(qualified)(image, reference)

    return compute


def stand_in(name: str) -> Any:
    """What the model-zoo name `name` (`efficientnet_pytorch.EfficientNet`) stands in as, or None (absent)."""
    package, _, rest = name.partition(".")
    last = rest.rsplit(".", 1)[-1]
    if package in METRIC_PACKAGES and rest:
        if last in ("list_models", "list_metrics"):
            return lambda *args, **kwargs: []
        return None if last.startswith("_") else _metric(name)
    if package in AUGMENTATION_WRAPPERS and rest and not last.startswith("_") and name not in SUBMODULES:
        return _augmentation(name)
    if package == "efficientnet_pytorch" and last == "EfficientNet":
        return EfficientNet
    if package == "pretrainedmodels" and rest in PRETRAINEDMODELS_WIDTHS:
        return _pretrainedmodels_constructor(rest)
    if package == "pretrainedmodels" and rest == "model_names":
        return sorted(PRETRAINEDMODELS_WIDTHS)
    if package == "segmentation_models_pytorch":
        if rest in SEGMENTATION_ARCHITECTURES:
            return _segmentation_constructor(rest)
        if rest == "create_model":
            return _create_segmentation_model
        if rest.startswith(("losses.", "utils.losses.")) and last.endswith("Loss"):
            return _loss_class(name)
        if last == "get_preprocessing_fn":
            return _identity_preprocessing
    return None


def module_names(package: str) -> dict[str, Any]:
    """The names a stand-in of `package` holds in its `__dict__`, for code that looks a constructor up
    there (`pretrainedmodels.__dict__[model_name](pretrained="imagenet")`)."""
    if package != "pretrainedmodels":
        return {}
    return {name: _pretrainedmodels_constructor(name) for name in PRETRAINEDMODELS_WIDTHS}

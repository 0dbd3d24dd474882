"""torchvision's shape-changing transforms where torchvision is missing (verify/transforms.py).

An RL script's own frames go through `Compose([ToPILImage(), Grayscale(1), Resize((84, 84)),
ToTensor()])` into a network built for one channel of 84x84: the stand-in transforms must give
that shape, or the experiment fails on the first convolution.
"""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest

from conftest import only_verdict

pytestmark = pytest.mark.skipif(importlib.util.find_spec("torch") is None,
                                reason="--verify needs torch (pip install torchcopylint[verify])")


@pytest.fixture
def torchvision():
    from torchcopylint.verify.noops import NoOpModule

    return NoOpModule("torchvision")


def test_an_atari_frame_becomes_one_channel_of_84_by_84(torchvision):
    import numpy as np
    import torch

    T = torchvision.transforms
    preprocess = T.Compose([T.ToPILImage(), T.Grayscale(1), T.Resize((84, 84)), T.ToTensor()])
    frame = np.random.randint(0, 256, (210, 160, 3), dtype=np.uint8)
    tensor = preprocess(frame)
    assert isinstance(tensor, torch.Tensor) and tensor.shape == (1, 84, 84) and tensor.dtype == torch.float32
    assert 0.0 <= float(tensor.min()) and float(tensor.max()) <= 1.0  # ToTensor's scaling of the uint8 frame


def test_resize_and_center_crop_give_torchvision_s_shapes_on_tensors_and_batches(torchvision):
    import torch

    T, F = torchvision.transforms, torchvision.transforms.functional
    image = torch.rand(3, 210, 160)
    assert T.Resize(64)(image).shape == (3, 84, 64)  # the smaller edge to 64, the other in proportion
    assert T.Resize([32])(image).shape == (3, 42, 32)
    assert T.Resize(32)(torch.rand(8, 3, 64, 128)).shape == (8, 3, 32, 64)
    assert T.CenterCrop(100)(image).shape == (3, 100, 100)
    assert T.CenterCrop((50, 20))(image).shape == (3, 50, 20)
    assert F.resize(image, [20, 30]).shape == (3, 20, 30)
    assert F.center_crop(image, 64).shape == (3, 64, 64)
    assert T.Grayscale(num_output_channels=3)(image).shape == (3, 210, 160)
    assert F.rgb_to_grayscale(image).shape == (1, 210, 160)
    # The others stay the identity on a tensor, as before.
    assert T.Normalize((0.5,), (0.5,))(image) is image
    assert T.RandomHorizontalFlip()(image) is image


@pytest.mark.skipif(importlib.util.find_spec("PIL") is None, reason="a PIL image needs Pillow")
def test_a_pil_image_stays_a_pil_image(torchvision):
    import numpy as np
    from PIL import Image

    T = torchvision.transforms
    picture = Image.fromarray(np.zeros((210, 160, 3), dtype=np.uint8))
    resized = T.Resize((50, 40))(picture)
    assert isinstance(resized, Image.Image) and resized.size == (40, 50)
    assert T.Grayscale()(picture).mode == "L"
    assert T.ToTensor()(T.Resize(64)(picture)).shape == (3, 84, 64)


ATARI_SCRIPT = textwrap.dedent("""\
    import gym
    import torch
    import torchvision
    from torch import nn

    preprocess = torchvision.transforms.Compose([
        torchvision.transforms.ToPILImage(),
        torchvision.transforms.Grayscale(1),
        torchvision.transforms.Resize((84, 84)),
        torchvision.transforms.ToTensor(),
    ])


    class QNet(nn.Module):
        def __init__(self, actions):
            super().__init__()
            self.conv = nn.Sequential(nn.Conv2d(1, 16, 8, stride=4), nn.ReLU(), nn.Conv2d(16, 32, 4, stride=2),
                                      nn.ReLU())
            self.head = nn.Linear(32 * 9 * 9, actions)

        def forward(self, x):
            return self.head(self.conv(x).flatten(1))


    env = gym.make("Breakout-v0")
    q = QNet(env.action_space.n)
    optimizer = torch.optim.Adam(q.parameters(), lr=1e-4)
    obs = preprocess(env.reset()).unsqueeze(0)
    priorities = []
    for step in range(100000):
        action = q(obs).argmax(1).item()
        frame, reward, done, info = env.step(action)
        next_obs = preprocess(frame).unsqueeze(0)
        target = reward + 0.99 * q(next_obs).max(1)[0].detach()
        loss = (q(obs)[0, action] - target).pow(2)
        priority = loss.detach().clone() + 1e-5
        priorities.append(priority.item())
        optimizer.zero_grad()
        loss.mean().backward()
        optimizer.step()
        obs = preprocess(env.reset()).unsqueeze(0) if done else next_obs
    """)


@pytest.mark.skipif(any(importlib.util.find_spec(name) for name in ("gym", "torchvision")),
                    reason="the stand-ins are for where gym and torchvision are missing")
def test_a_dqn_on_preprocessed_atari_frames_is_confirmed(tmp_path: Path):
    # fresh112's coursework DQNs on Breakout and Gravitar: the stand-in environment gave CartPole's four
    # numbers, then the identity transforms gave three channels of 210x160 to a one-channel network.
    (tmp_path / "dqn_breakout.py").write_text(ATARI_SCRIPT, encoding="utf-8")
    verdict = only_verdict(tmp_path, "dqn_breakout.py", "TCL001")
    assert verdict["status"] == "confirmed", verdict
    for part in ("observations of shape (210, 160, 3), 4 actions",
                 "torchvision's `Grayscale` (torchvision is not installed) gave the shape torchvision would",
                 "torchvision's `Resize`"):
        assert part in verdict["evidence"], verdict["evidence"]

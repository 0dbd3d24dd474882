"""Evaluates a generator trained under DataParallel: the keys of each checkpoint lose their `module.`
prefix before they are loaded; then every sample is kept, graph and all, to pick the best ones
(fresh64's conditional WGAN evaluation, TCL007). --verify reads no checkpoint: the networks keep
their initial weights, what the dict made from the checkpoint loads too, and so does a dict of its entries
taken by name (the critic's layers renamed, as fresh120's style transfer renames a downloaded VGG's)."""

import torch
import torch.nn as nn


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 3 * 8 * 8), nn.Tanh())

    def forward(self, z):
        return self.net(z).view(-1, 3, 8, 8)


class Critic(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(3 * 8 * 8, 1))

    def forward(self, image):
        return self.net(image)


def main():
    generator, critic = Generator(), Critic()
    state = torch.load("w_generator.pth", weights_only=True)
    generator.load_state_dict({key.replace("module.", ""): value for key, value in state.items()})
    state = torch.load("w_critic.pth", weights_only=True)
    critic.load_state_dict({"net.1.weight": state["linear.weight"], "net.1.bias": state["linear.bias"]})
    generator.eval()
    samples, scores = [], []
    for _ in range(500):
        image = generator(torch.randn(1, 16))
        scores.append(critic(image).item())
        samples.append(image.squeeze(0))
    return [samples[i] for i in sorted(range(len(scores)), key=scores.__getitem__)[-10:]]


if __name__ == "__main__":
    main()

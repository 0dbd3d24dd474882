"""A VAE assignment: the data module's splits, the test one left out, handed to each epoch as a pair."""
import torch
from torch import nn

from split_loaders import binary_digits


class VAE(nn.Module):
    def __init__(self, hidden=64, z_dim=8):
        super().__init__()
        self.encoder = nn.Linear(784, 2 * z_dim)
        self.decoder = nn.Sequential(nn.Linear(z_dim, hidden), nn.ReLU(), nn.Linear(hidden, 784), nn.Sigmoid())

    def forward(self, images):
        mean, log_std = self.encoder(images).chunk(2, dim=1)
        z = mean + log_std.exp() * torch.randn_like(mean)
        reconstruction = self.decoder(z)
        recon = nn.functional.binary_cross_entropy(reconstruction, images, reduction="none").sum(1)
        kl = 0.5 * (mean ** 2 + (2 * log_std).exp() - 1 - 2 * log_std).sum(1)
        return (recon + kl).mean()


def run_epoch(model, data, optimizer):
    train_data, val_data = data
    model.train()
    train_elbos = []
    for batch in train_data:
        elbo = model(batch.view(-1, 784))
        optimizer.zero_grad()
        elbo.backward()
        optimizer.step()
        train_elbos.append(elbo)  # expect: TCL007
    model.eval()
    with torch.no_grad():
        val_elbo = sum(model(batch.view(-1, 784)) for batch in val_data)
    return torch.stack(train_elbos).mean(), val_elbo


def main():
    data = binary_digits()[:2]
    model = VAE()
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(40):
        run_epoch(model, data, optimizer)


if __name__ == "__main__":
    main()

"""A VAE trained on a loader of images alone: each batch is one tensor, not (inputs, labels)."""
import torch
import torch.nn.functional as F


def loss_fn(x, y_hat, mean, logvar, kl_weight=0.00025):
    recons_loss = F.mse_loss(y_hat, x)
    kl_loss = torch.mean(-0.5 * torch.sum(1 + logvar - mean ** 2 - torch.exp(logvar), 1), 0)
    return recons_loss + kl_loss * kl_weight


def train(device, dataloader, model, n_epochs=2):
    optimizer = torch.optim.Adam(model.parameters(), 0.005)
    for i in range(n_epochs):
        loss_sum = 0
        for x in dataloader:
            x = x.to(device)
            y_hat, mean, logvar = model(x)
            loss = loss_fn(x, y_hat, mean, logvar)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            loss_sum += loss
        print(f"epoch {i}: loss {loss_sum / len(dataloader.dataset)}")

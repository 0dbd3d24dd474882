"""A VAE's training epoch: the model computes its own loss (the negative ELBO, one value), and the loop
reads each batch as flat 28x28 images. Nothing in the file calls `train_epoch`."""
import torch

MAX_NORM = 5.0


def train_epoch(model, data, optimizer):
    elbos = []
    for batch in data:
        optimizer.zero_grad()
        elbo = model(batch.view(-1, 28 * 28))
        elbos.append(elbo)
        elbo.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=MAX_NORM)
        optimizer.step()
    return torch.stack(elbos).mean()

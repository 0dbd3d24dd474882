# The question on WGAN-GP: the penalty differentiates the interpolates' output with respect to them, and
# its backward goes on through the generator's part of the undetached interpolates.
import torch

from homework_networks import Discriminator, Generator
from homework_train import train_model


def discriminator_loss(real, fake, interp_output, interp, lamb):
    gradient = torch.autograd.grad(interp_output.sum(), interp, create_graph=True)[0]
    penalty = ((gradient.flatten(1).norm(dim=1) - 1) ** 2).mean()
    return fake.mean() - real.mean() + lamb * penalty


def generator_loss(fake):
    return -fake.mean()


if __name__ == "__main__":
    train_model(Generator().cuda(), Discriminator().cuda(), num_iterations=30000, batch_size=256,
                disc_loss_fn=discriminator_loss, gen_loss_fn=generator_loss)

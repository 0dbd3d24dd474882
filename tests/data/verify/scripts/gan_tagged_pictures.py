"""A GAN script whose dataset class, imported from a sibling module, is not named for data.

`main(args)` feeds the discriminator `gen(noise)` without `.detach()` (TCL003). Its loader
iterates `TaggedPictures(args.tags, args.pictures)` (tag_pictures.py), which reads the user's
files: stand-in batches of images take its place, whatever the class is called.
"""

import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader

from tag_pictures import TaggedPictures


def main(args):
    pictures = TaggedPictures(args.tags, args.pictures)
    loader = DataLoader(pictures, batch_size=args.batch_size, shuffle=True)
    gen = nn.Sequential(nn.Linear(args.noise, 3 * 16 * 16), nn.Tanh())
    dis = nn.Sequential(nn.Flatten(), nn.Linear(3 * 16 * 16, 1), nn.Sigmoid())
    optimizer_gen = torch.optim.Adam(gen.parameters(), lr=2e-4)
    optimizer_dis = torch.optim.Adam(dis.parameters(), lr=2e-4)
    criterion = nn.BCELoss()
    for epoch in range(args.epochs):
        for image in loader:
            noise = torch.randn(image.shape[0], args.noise)
            fake = gen(noise)
            optimizer_dis.zero_grad()
            loss_dis = criterion(dis(image), torch.ones(image.shape[0], 1)) + \
                criterion(dis(fake), torch.zeros(image.shape[0], 1))
            loss_dis.backward()
            optimizer_dis.step()

            optimizer_gen.zero_grad()
            loss_gen = criterion(dis(fake), torch.ones(image.shape[0], 1))
            loss_gen.backward()
            optimizer_gen.step()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--tags", required=True)
    parser.add_argument("--pictures", required=True)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--noise", type=int, default=100)
    parser.add_argument("--epochs", type=int, default=5)
    main(parser.parse_args())

"""A training script whose dataset comes from a package that is not installed, with visdom
plots, TensorBoard logging (through torch's own wrapper, which refuses to import without
tensorboard) and a tqdm progress bar in the loop. The claim (TCL007) needs none of them."""

import os

import torch
import tqdm
import visdom
from handwriting_datasets_not_installed import DigitsDataset
from torch import nn
from torch.utils.data import DataLoader
from torch.utils.tensorboard import SummaryWriter

MARKERS = os.environ.get("TCL_TEST_MARKERS", os.path.dirname(os.path.abspath(__file__)))
viz = visdom.Visdom(env="digits")
writer = SummaryWriter("runs/digits")
train_set = DigitsDataset(root="digits/", split="train", download=True)
loader = DataLoader(train_set, batch_size=8, shuffle=True)
model = nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 32), nn.ReLU(), nn.Linear(32, 10))
optimizer = torch.optim.Adam(model.parameters())

total_loss = 0.0
for step, (images, labels) in enumerate(tqdm.tqdm(loader)):
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(images), labels)
    viz.line(X=[step], Y=[loss.item()], win="loss", update="append")
    writer.add_scalar("loss", loss.item(), step)
    loss.backward()
    optimizer.step()
    total_loss += loss

with open(os.path.join(MARKERS, "after_loop"), "w") as marker:
    marker.write(f"{total_loss}\n")
raise SystemExit("the script ran to its end")

"""A saliency patch attack: the patch the script passes is data, but each pass rebinds it to
`patch + patch.grad * lr`, computed from the leaf the pass made, so from the second pass on the
copy at the top of the loop is of a tensor that requires grad (fresh85's patch attacks: refuted on
the first pass alone, the loop of the function cut to one pass)."""
import torch
from torch import nn

model = nn.Sequential(nn.Flatten(), nn.Linear(3 * 4 * 4, 2))


def patch_attack(patch, target, loss_target, lr):
    loss = 0
    while loss_target > loss:
        patch = patch.clone().detach().requires_grad_(True)  # expect: TCL005
        loss = ((model(patch) - target) ** 2).mean()
        loss.backward()
        patch = patch + patch.grad * lr
    return patch


first_patch = torch.rand(1, 3, 4, 4)
final_patch = patch_attack(first_patch, torch.ones(1, 2), loss_target=1e9, lr=1.0)

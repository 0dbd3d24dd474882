"""A helper that keeps the best adversarial example so far: its first call has no best yet (`None`),
and that path holds the flagged copies. The stand-ins try `best_loss = None` too."""

import torch


def keep_best(loss, best_loss, x, best_x):
    if best_loss is None:
        best_x = x.clone().detach()  # expect: TCL005
        best_loss = loss.clone().detach()  # expect: TCL005
    else:
        better = best_loss < loss
        best_x[better] = x[better].detach()
        best_loss = torch.maximum(best_loss, loss.detach())
    return best_loss, best_x

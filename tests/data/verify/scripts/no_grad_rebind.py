"""A hand-written gradient step that rebinds the weight under no-grad: the new `w` is a tensor that
does not require grad, so the next backward leaves `w.grad` None (TCL012, confirmed by the run)."""
import torch


def manual_step():
    w = torch.ones(3, requires_grad=True)
    loss = (w * 2).sum()
    loss.backward()
    with torch.no_grad():
        w = w - 0.1 * w.grad
    print("gradient after the step:", w.grad)
    return w


manual_step()

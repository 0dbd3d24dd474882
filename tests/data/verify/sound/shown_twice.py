"""A style-transfer notebook's display helper, called at the top level first with the content image
(which does not require grad) and then with the target image being optimised (which does): each
top-level call is judged on what it passes itself, not on what an earlier call of its slice passed."""
import torch


def to_picture(tensor):
    return tensor.to("cpu").clone().detach().squeeze(0)  # expect: TCL005


content = torch.rand(1, 3, 8, 8)
shown = to_picture(content)
target = content.clone().requires_grad_(True)
optimizer = torch.optim.Adam([target], lr=0.003)
for step in range(100):
    loss = (target ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
final = to_picture(target)

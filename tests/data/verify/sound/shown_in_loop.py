"""A style-transfer notebook shows its images at the top level: the content and style images before
training, the target every 400 steps inside the loop (which the experiment cuts before that), and the
target at the end. The plain statements' calls are tried first: the last one shows the target."""
import torch


def to_picture(tensor):
    return tensor.to("cpu").clone().detach().squeeze(0)  # expect: TCL005


content = torch.rand(1, 3, 8, 8)
style = torch.rand(1, 3, 8, 8)
first = to_picture(content)
second = to_picture(style)
target = content.clone().requires_grad_(True)
optimizer = torch.optim.Adam([target], lr=0.003)
for step in range(1, 2001):
    loss = ((target - style) ** 2).mean()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 400 == 0:
        shown = to_picture(target)
again = to_picture(content)
final = to_picture(target)

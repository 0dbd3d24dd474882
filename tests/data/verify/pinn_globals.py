"""A physics-informed network whose methods read the script's constants, all bound in a main guard
written the other way round; the network is built from a list of layer widths bound there too."""

import torch
from torch import nn


class FCN(nn.Module):
    def __init__(self, layers):
        super().__init__()
        self.activation = nn.Tanh()
        self.loss_func = nn.MSELoss()
        self.linears = nn.ModuleList([nn.Linear(layers[j], layers[j + 1]) for j in range(len(layers) - 1)])

    def forward(self, x):
        a = (x - x_lb) / (x_ub - x_lb)
        for layer in self.linears[:-1]:
            a = self.activation(layer(a))
        return self.linears[-1](a)

    def loss_pde(self, x_pde):
        y_hat = self.forward(x_pde)
        lhs = torch.empty_like(y_hat)
        for idx, t in enumerate(x_pde):
            n = torch.tensor(torch.ceil(lamda * t), dtype=torch.int32)
            lhs[idx] = y_hat[idx] * n
        return self.loss_func(lhs, rho * y_hat)


if "__main__" == __name__:
    layers = [1, 16, 16, 3]
    lamda = torch.tensor(20.0)
    rho = torch.tensor(28.0)
    x_lb = torch.tensor(1e-8)
    x_ub = torch.tensor(3.0)
    model = FCN(layers)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    x_pde = torch.rand(50, 1) * (x_ub - x_lb) + x_lb
    for epoch in range(10000):
        loss = model.loss_pde(x_pde)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

"""An attack whose step (a subclass's) computes its loss through a method it inherits from the attack
it derives from, which reads `self.criterion` and `self.model`; the step asks for gradients with
`retain_graph=True` that no later backward needs (TCL011). The subclass's constructor needs a logger
of the user's, so the object is made of stand-ins: those of what the inherited method reads too
(fresh76's hidden adversarial attacks: before, `'...' object has no attribute 'criterion'`)."""

import torch


class IterativeAttack:
    def __init__(self, model, criterion, eps=0.03):
        self.model = model
        self.criterion = criterion
        self.eps = eps

    def get_loss(self, x, y):
        self.model.zero_grad()
        return self.criterion(self.model(x), y)


class SignAttack(IterativeAttack):
    def __init__(self, model, criterion, logger, eps=0.03):
        super().__init__(model, criterion, eps)
        self.logger = logger
        self.metric_names = logger.metric_names()

    def step(self, x, y):
        loss = self.get_loss(x, y)
        grad = torch.autograd.grad(loss, x, retain_graph=True)[0]
        return x.detach() + self.eps * grad.sign()

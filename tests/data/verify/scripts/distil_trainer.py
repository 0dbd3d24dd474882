"""A trainer whose constructor hands everything to a base class of another module, and whose
student learns from the teacher snapshots `train_teacher` leaves (a user calls it first)."""
import copy

import torch
import torch.nn.functional as F

from trainer_base import BaseTrainer


class Distiller(BaseTrainer):
    def __init__(self, teacher, student, train_loader, val_loader, optimizer, temperature=4.0):
        super().__init__(teacher, student, train_loader, val_loader, optimizer)
        self.temperature = temperature
        self.anchors = []

    def train_teacher(self, epochs=1):
        for epoch in range(epochs):
            for x, y in self.train_loader:
                F.cross_entropy(self.teacher(x), y).backward()
            self.anchors.append(copy.deepcopy(self.teacher))

    def train_student(self, epochs=3):
        history = []
        for epoch in range(epochs):
            teacher = self.anchors[epoch % len(self.anchors)]
            epoch_loss = 0.0
            for x, y in self.train_loader:
                with torch.no_grad():
                    soft = F.softmax(teacher(x) / self.temperature, dim=1)
                scores = self.student(x)
                loss = F.cross_entropy(scores, y) + F.kl_div(
                    F.log_softmax(scores / self.temperature, dim=1), soft, reduction="batchmean")
                self.optimizer.zero_grad()
                loss.backward()
                self.optimizer.step()
                epoch_loss += loss.item()
            accuracy = self.evaluate()
            history.append((loss, accuracy))
        return history

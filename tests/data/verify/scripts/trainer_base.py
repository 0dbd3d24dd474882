"""The base of a distillation trainer: it keeps what it is given and evaluates on `val_loader`."""
import torch


class BaseTrainer:
    def __init__(self, teacher, student, train_loader, val_loader, optimizer):
        self.teacher = teacher
        self.student = student
        self.train_loader = train_loader
        self.val_loader = val_loader
        self.optimizer = optimizer

    def evaluate(self):
        correct, total = 0, 0
        with torch.no_grad():
            for x, y in self.val_loader:
                correct += (self.student(x).argmax(1) == y).sum().item()
                total += len(y)
        return correct / max(total, 1)

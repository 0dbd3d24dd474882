"""A course's CIFAR-10 reader (the sibling of course_cifar_splits.py): pickled batches read from a folder
into splits that hand out batches by `next_batch`, as TensorFlow's MNIST reader does."""

import os
import pickle

import numpy as np


class DataSet:
    def __init__(self, images, labels):
        self._images, self._labels, self._index = images, labels, 0

    @property
    def images(self):
        return self._images

    @property
    def labels(self):
        return self._labels

    def next_batch(self, batch_size):
        start, self._index = self._index, self._index + batch_size
        return self._images[start:self._index], self._labels[start:self._index]


def _read_batches(folder, names):
    images, labels = [], []
    for name in names:
        with open(os.path.join(folder, name), "rb") as file:
            batch = pickle.load(file, encoding="latin1")
        images.append(batch["data"].reshape(-1, 3, 32, 32).astype(np.float32) / 255.0)
        labels.append(np.eye(10)[batch["labels"]])
    return np.concatenate(images), np.concatenate(labels)


def get_cifar10(data_dir="cifar10/cifar-10-batches-py", one_hot=True):
    train = DataSet(*_read_batches(data_dir, [f"data_batch_{i}" for i in range(1, 6)]))
    test = DataSet(*_read_batches(data_dir, ["test_batch"]))
    return {"train": train, "validation": test, "test": test}

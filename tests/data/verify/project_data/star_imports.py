"""What a course's notebooks import with `*`: torch, torchvision's datasets and transforms, a DataLoader."""

import torch
import torch.nn as nn
import torchvision.datasets as datasets
import torchvision.transforms as transforms
from torch.utils.data import DataLoader

# The data helpers of a project: MNIST at the size the caller asks for (torchvision is not needed to
# read this: verification finds it by its code and never runs it).
import torchvision.datasets as datasets
import torchvision.transforms as transforms
from torch.utils.data import DataLoader


def load_data(batch_size, img_size):
    transform = transforms.Compose([transforms.Resize(img_size), transforms.ToTensor(),
                                    transforms.Normalize((0.5,), (0.5,))])
    trainset = datasets.MNIST("./data", train=True, download=True, transform=transform)
    return DataLoader(trainset, batch_size=batch_size, shuffle=True)

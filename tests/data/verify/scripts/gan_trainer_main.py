# The program that uses gan_trainer_lib.py: MNIST resized to 32 pixels, split, handed to the trainer.
import torch
import torchvision.datasets as datasets
import torchvision.transforms as transforms

from gan_trainer_lib import evaluate_at_length, train_gan

IMAGE_SIZE = 32
transform = transforms.Compose([transforms.Resize(IMAGE_SIZE), transforms.ToTensor(),
                                transforms.Normalize([0.5], [0.5])])

if __name__ == "__main__":
    dataset = datasets.MNIST(root="data", train=True, download=True, transform=transform)
    train_set, test_set = torch.utils.data.random_split(dataset, [50000, 10000])
    generator = train_gan(train_set)
    evaluate_at_length(train_set, test_set)

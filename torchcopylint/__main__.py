from torchcopylint.cli import main

main()

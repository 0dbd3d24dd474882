from torchcopylint import drop_working_directory_from_path

drop_working_directory_from_path()

from torchcopylint.cli import main  # noqa: E402 - after the path is safe

main()

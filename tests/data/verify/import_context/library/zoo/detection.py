from detector_lib_not_installed.registry import DATASETS
from detector_lib_not_installed.datasets import BaseDetDataset


@DATASETS.register_module()
class BoxesDataset(BaseDetDataset):
    def load(self):
        return self.data_list

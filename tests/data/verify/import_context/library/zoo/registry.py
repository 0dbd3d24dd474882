class Registry:
    """Files each class under a name once; a second filing under the same name is refused."""

    def __init__(self):
        self.classes = {}

    def register(self, name):
        def file(cls):
            if name in self.classes:
                raise KeyError(f"{name} is already registered")
            self.classes[name] = cls
            return cls
        return file


ATTACKS = Registry()

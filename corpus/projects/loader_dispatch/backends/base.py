class Backend:
    name = "base"

    def distribute(self, model=None, optimizer=None, training_data=None):
        return self._distribute(model, optimizer, training_data)

    def _distribute(self, model, optimizer, training_data):
        raise NotImplementedError


class PassThrough(Backend):
    name = "none"

    def _distribute(self, model, optimizer, training_data):
        return model, optimizer, training_data


class Wrapped(Backend):
    name = "wrapped"

    def _distribute(self, model, optimizer, training_data):
        return model, optimizer, training_data

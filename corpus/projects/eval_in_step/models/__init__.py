from .gan_model import GanModel, RestoringModel


def create_model(opt):
    return GanModel(opt)

from .base_model import BaseModel
from .reset_model import ResetModel


def create_model(opt):
    if opt.reset:
        return ResetModel(opt)
    return BaseModel(opt)

from .sr_model import SRModel, SwitchingModel


def create_model(opt):
    if opt.switching:
        return SwitchingModel(opt)
    return SRModel(opt)


def build_sr(opt):
    return SRModel(opt)


def build_switching(opt):
    return SwitchingModel(opt)

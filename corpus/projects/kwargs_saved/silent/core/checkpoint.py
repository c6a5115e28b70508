import torch
import torch.nn as nn


class CheckpointIO:
    def __init__(self, template, **kwargs):
        self.template = template
        self.module_dict = kwargs

    def save(self, step):
        outdict = {}
        for name, module in self.module_dict.items():
            if isinstance(module, nn.DataParallel):
                outdict[name] = module.module.state_dict()
            else:
                # ok: TL504
                outdict[name] = module.state_dict()
        torch.save(outdict, self.template.format(step))

    def load(self, step):
        state = torch.load(self.template.format(step), map_location="cpu", weights_only=True)
        for name, module in self.module_dict.items():
            if isinstance(module, nn.DataParallel):
                module = module.module
            module.load_state_dict(state[name])

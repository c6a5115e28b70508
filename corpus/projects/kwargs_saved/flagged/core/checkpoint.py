import torch


class CheckpointIO:
    def __init__(self, template, **kwargs):
        self.template = template
        self.module_dict = kwargs

    def save(self, step):
        outdict = {}
        for name, module in self.module_dict.items():
            # expect: TL504
            outdict[name] = module.state_dict()
        torch.save(outdict, self.template.format(step))

    def load(self, step):
        state = torch.load(self.template.format(step), map_location="cpu", weights_only=True)
        for name, module in self.module_dict.items():
            module.load_state_dict(state[name])

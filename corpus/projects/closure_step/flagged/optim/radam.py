import math

import torch
from torch.optim import Optimizer


class PlainRAdam(Optimizer):
    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8):
        super().__init__(params, dict(lr=lr, betas=betas, eps=eps))

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = torch.zeros_like(p)
                    state["exp_avg_sq"] = torch.zeros_like(p)
                state["step"] += 1
                t = state["step"]
                state["exp_avg"].mul_(beta1).add_(p.grad, alpha=1 - beta1)
                state["exp_avg_sq"].mul_(beta2).addcmul_(p.grad, p.grad, value=1 - beta2)
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * t * beta2**t / (1 - beta2**t)
                step_size = group["lr"] / (1 - beta1**t)
                if rho_t > 4:
                    r = math.sqrt((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t))
                    denom = (state["exp_avg_sq"] / (1 - beta2**t)).sqrt().add_(group["eps"])
                    p.addcdiv_(state["exp_avg"], denom, value=-step_size * r)
                else:
                    p.add_(state["exp_avg"], alpha=-step_size)
        return loss

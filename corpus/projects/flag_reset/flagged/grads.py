def reset_grads(optimizer):
    optimizer.zero_grad()

"""TL215 sampler-epoch-not-set reproduction.

One rank (rank 0 of 2, given to the sampler: no process group is needed) of
a data-parallel run trains a linear classifier for several epochs on a
DataLoader drawing from a shuffling DistributedSampler, and records the
order in which it sees the examples. flagged.py never calls
`sampler.set_epoch(epoch)`; fixed.py calls it at the start of each epoch
(the one line that differs).

Signal: how many different example orders the epochs saw (one: every epoch
repeats the first), the share of positions at which an epoch's order
matches the first epoch's, and the loss after training.
"""
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def run(device, iters, meter):
    torch.manual_seed(0)
    features, classes, examples = 16, 4, 512
    g = torch.Generator().manual_seed(0)
    centers = torch.randn(classes, features, generator=g)
    ys = torch.randint(0, classes, (examples,), generator=g)
    xs = centers[ys] + torch.randn(examples, features, generator=g)
    dataset = TensorDataset(torch.arange(examples), xs, ys)
    sampler = DistributedSampler(dataset, num_replicas=2, rank=0, shuffle=True, seed=0)
    loader = DataLoader(dataset, batch_size=32, sampler=sampler, num_workers=0)
    model = torch.nn.Linear(features, classes).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    orders = []
    loss = None
    for epoch in range(iters):
        order = []
        # expect: TL215
        for index, x, y in loader:
            order.extend(index.tolist())
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x.to(device)), y.to(device))
            loss.backward()
            optimizer.step()
        orders.append(order)
        meter.tick()
    same = [sum(a == b for a, b in zip(order, orders[0])) / len(order) for order in orders[1:]]
    return {"epochs": len(orders), "distinct_orders": len({tuple(o) for o in orders}),
            "mean_match_with_first_epoch": sum(same) / len(same), "final_loss": loss.item()}


if __name__ == "__main__":
    import sys
    from pathlib import Path
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
    from caselib import main
    sys.exit(main(run))

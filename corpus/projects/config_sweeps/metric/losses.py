import torch
import torch.nn.functional as F


class ArcLoss(torch.nn.Module):
    def __init__(self, num_classes, embedding_size, margin=0.5, scale=30.0):
        super().__init__()
        self.W = torch.nn.Parameter(torch.randn(embedding_size, num_classes))
        self.margin = margin
        self.scale = scale

    def forward(self, embeddings, labels):
        logits = F.normalize(embeddings) @ F.normalize(self.W, dim=0)
        return F.cross_entropy(self.scale * (logits - self.margin), labels)


class MemoryLoss(torch.nn.Module):
    def __init__(self, inner, embedding_size, memory_size=64):
        super().__init__()
        self.inner = inner
        self.register_buffer("queue", torch.zeros(memory_size, embedding_size))
        self.queue_idx = 0

    def forward(self, embeddings, labels):
        n = embeddings.size(0)
        self.queue[self.queue_idx:self.queue_idx + n] = embeddings.detach()
        self.queue_idx = (self.queue_idx + n) % self.queue.size(0)
        return self.inner(embeddings, labels)


class PairMiner(torch.nn.Module):
    def __init__(self, angle):
        super().__init__()
        self.angle = angle

    def forward(self, embeddings):
        sim = F.normalize(embeddings) @ F.normalize(embeddings).t()
        return (sim > self.angle).nonzero()

"""Word-level LSTM language model with truncated backpropagation through time (corpus script).

The classic recipe: a corpus batchified into columns, BPTT windows of
`--bptt` tokens, an LSTM whose hidden state is carried from window to
window and detached with `repackage_hidden`, gradient clipping, a learning
rate annealed on validation loss, perplexity evaluation and text sampling.
A second stage fine-tunes on a domain corpus with tied-weight regularisation.
Pitfalls with `expect` annotations: the fine-tuning stage carries the hidden
state across windows without detaching it (TL103; its `retain_graph=True`
is then needed to avoid the error, so it is not a TL104 finding: detaching
the state is the fix for both); a mid-epoch validation check
leaves the model in eval mode for the rest of the epoch (TL203); the window
helper "moves" the targets to the device without keeping the result (TL206);
the sampling temperature check feeds probabilities to NLLLoss (TL210).
Correct spots that look similar carry `ok` annotations.
"""
import argparse
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class RNNLM(nn.Module):
    def __init__(self, ntoken, ninp=400, nhid=1150, nlayers=3, dropout=0.4, tie_weights=True):
        super().__init__()
        self.drop = nn.Dropout(dropout)
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers, dropout=dropout)
        self.decoder = nn.Linear(nhid, ntoken)
        if tie_weights:
            if nhid != ninp:
                self.proj = nn.Linear(nhid, ninp)
                self.decoder = nn.Linear(ninp, ntoken)
            self.decoder.weight = self.encoder.weight
        self.nlayers, self.nhid, self.ntoken = nlayers, nhid, ntoken

    def forward(self, tokens, hidden):
        emb = self.drop(self.encoder(tokens))
        output, hidden = self.rnn(emb, hidden)
        output = self.drop(output)
        if hasattr(self, "proj"):
            output = self.proj(output)
        logits = self.decoder(output)
        return F.log_softmax(logits, dim=-1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid),
                weight.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    """Cuts the hidden state off from the graph of the previous window."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def batchify(ids: torch.Tensor, bsz, device):
    nbatch = ids.size(0) // bsz
    ids = ids.narrow(0, 0, nbatch * bsz)
    return ids.view(bsz, -1).t().contiguous().to(device)


def get_batch(source: torch.Tensor, i, bptt, device):
    seq_len = min(bptt, len(source) - 1 - i)
    data = source[i:i + seq_len]
    target = source[i + 1:i + 1 + seq_len].reshape(-1)
    # expect: TL206
    target.to(device)
    return data, target


@torch.no_grad()
def evaluate(model, source, bptt, eval_bsz, device):
    model.eval()
    total, hidden = 0.0, model.init_hidden(eval_bsz)
    for i in range(0, source.size(0) - 1, bptt):
        data, targets = get_batch(source, i, bptt, device)
        # ok: TL103
        log_probs, hidden = model(data, hidden)
        total += len(data) * F.nll_loss(log_probs.view(-1, model.ntoken), targets).item()
        hidden = repackage_hidden(hidden)
    return total / (len(source) - 1)


def train_epoch(model, train_data, val_data, optimizer, args, device):
    model.train()
    hidden = model.init_hidden(args.batch_size)
    start, running = time.time(), 0.0
    for batch, i in enumerate(range(0, train_data.size(0) - 1, args.bptt)):
        data, targets = get_batch(train_data, i, args.bptt, device)
        hidden = repackage_hidden(hidden)
        optimizer.zero_grad()
        # ok: TL103
        log_probs, hidden = model(data, hidden)
        # ok: TL210
        loss = F.nll_loss(log_probs.view(-1, model.ntoken), targets)
        # ok: TL104
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        optimizer.step()
        # expect: TL304
        running += loss.item()
        if batch % args.log_interval == 0 and batch > 0:
            print(f"| batch {batch:5d} | ms/batch {(time.time() - start) * 1000 / args.log_interval:5.1f} "
                  f"| loss {running / args.log_interval:5.2f} | ppl {math.exp(running / args.log_interval):8.2f}")
            running, start = 0.0, time.time()
        if args.check_every and batch % args.check_every == 0 and batch > 0:
            # expect: TL203
            val_loss = evaluate(model, val_data, args.bptt, 10, device)
            print(f"| mid-epoch check | valid ppl {math.exp(val_loss):8.2f}")


def finetune(model, domain_data, optimizer, args, device):
    model.train()
    hidden = model.init_hidden(args.batch_size)
    for i in range(0, domain_data.size(0) - 1, args.bptt):
        data, targets = get_batch(domain_data, i, args.bptt, device)
        optimizer.zero_grad()
        # expect: TL103
        log_probs, hidden = model(data, hidden)
        loss = F.nll_loss(log_probs.view(-1, model.ntoken), targets)
        loss = loss + args.ar * hidden[0].pow(2).mean()
        # the retained graph is reached again only through the undetached hidden state:
        # detaching it (TL103) makes retain_graph needless
        # expect: TL104
        loss.backward(retain_graph=True)
        optimizer.step()


@torch.no_grad()
def sample(model, first, steps, temperature, device):
    model.eval()
    hidden = model.init_hidden(1)
    token = torch.full((1, 1), first, dtype=torch.long, device=device)
    words = []
    for _ in range(steps):
        # ok: TL103
        log_probs, hidden = model(token, hidden)
        probs = (log_probs.squeeze() / temperature).exp()
        token = torch.multinomial(probs, 1).view(1, 1)
        words.append(token.item())
    return words


@torch.no_grad()
def calibration_check(model, source, bptt, device):
    """Loss of the sampling distribution itself (with temperature) on held-out text."""
    model.eval()
    hidden = model.init_hidden(1)
    data, targets = get_batch(source, 0, bptt, device)
    log_probs, hidden = model(data, hidden)
    probs = F.softmax(log_probs / 0.8, dim=-1)
    # expect: TL210
    return F.nll_loss(probs.view(-1, model.ntoken), targets).item()


def main():
    p = argparse.ArgumentParser(description="LSTM language model with TBPTT")
    p.add_argument("--data", default="./data/wikitext-2.pt")
    p.add_argument("--domain", default="")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=20)
    p.add_argument("--bptt", type=int, default=70)
    p.add_argument("--lr", type=float, default=20.0)
    p.add_argument("--clip", type=float, default=0.25)
    p.add_argument("--ar", type=float, default=2.0)
    p.add_argument("--log-interval", type=int, default=200)
    p.add_argument("--check-every", type=int, default=0)
    args = p.parse_args()

    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    corpus = torch.load(args.data, weights_only=True)
    train_data = batchify(corpus["train"], args.batch_size, device)
    val_data = batchify(corpus["valid"], 10, device)
    model = RNNLM(corpus["ntokens"]).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)

    best = None
    for epoch in range(1, args.epochs + 1):
        # ok: TL203
        train_epoch(model, train_data, val_data, optimizer, args, device)
        # ok: TL203
        val_loss = evaluate(model, val_data, args.bptt, 10, device)
        print(f"| end of epoch {epoch:3d} | valid ppl {math.exp(val_loss):8.2f}")
        if best is None or val_loss < best:
            best = val_loss
            torch.save(model.state_dict(), "lm.pt")
        else:
            for group in optimizer.param_groups:
                group["lr"] /= 4.0

    if args.domain:
        domain = batchify(torch.load(args.domain, weights_only=True), args.batch_size, device)
        finetune(model, domain, torch.optim.Adam(model.parameters(), lr=1e-4), args, device)
    print(calibration_check(model, val_data, args.bptt, device))
    print(sample(model, 0, 50, 0.8, device))


if __name__ == "__main__":
    main()

"""Causal language model fine-tuning with gradient accumulation (corpus script).

Hugging Face style without Trainer: `model(**batch).loss`, bf16 autocast,
gradient accumulation with a conditional step/reset, a linear warmup
schedule, a guarded evaluation loop reporting perplexity, and an optional
embedding warm-up stage for newly added tokens. Pitfalls with `expect`
annotations: the warm-up stage never resets gradients (TL201), a
label-smoothed loss computed after the autocast block (TL401), per-step loss
tensors kept for an end-of-epoch statistic (TL101), and a prompt perplexity
check run after model.eval() without no_grad (TL102).
"""
import argparse
import math
import os

import torch
import torch.nn.functional as F
from datasets import load_dataset
from torch.utils.data import DataLoader
from transformers import AutoModelForCausalLM, AutoTokenizer, default_data_collator, get_linear_schedule_with_warmup

SANITY_PROMPTS = [
    "The capital of France is",
    "def fibonacci(n):",
    "In 1969, the first humans",
]


def parse_args():
    p = argparse.ArgumentParser(description="fine-tune a causal LM")
    p.add_argument("--model-name", default="gpt2")
    p.add_argument("--dataset-name", default="wikitext")
    p.add_argument("--dataset-config", default="wikitext-2-raw-v1")
    p.add_argument("--output-dir", default="./runs/lm")
    p.add_argument("--block-size", type=int, default=512)
    p.add_argument("--batch-size", type=int, default=4)
    p.add_argument("--gradient-accumulation-steps", type=int, default=8)
    p.add_argument("--learning-rate", type=float, default=5e-5)
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--num-train-epochs", type=int, default=3)
    p.add_argument("--num-warmup-steps", type=int, default=100)
    p.add_argument("--max-grad-norm", type=float, default=1.0)
    p.add_argument("--label-smoothing", type=float, default=0.0)
    p.add_argument("--new-tokens", nargs="*", default=[])
    p.add_argument("--embedding-warmup-steps", type=int, default=200)
    return p.parse_args()


def build_dataloaders(tokenizer, args):
    raw = load_dataset(args.dataset_name, args.dataset_config)
    columns = raw["train"].column_names
    tokenized = raw.map(lambda ex: tokenizer(ex["text"]), batched=True, remove_columns=columns)
    block = args.block_size

    def chunk(examples):
        joined = {k: sum(examples[k], []) for k in examples}
        usable = (len(joined["input_ids"]) // block) * block
        out = {k: [seq[i:i + block] for i in range(0, usable, block)] for k, seq in joined.items()}
        out["labels"] = [ids[:] for ids in out["input_ids"]]
        return out

    lm_data = tokenized.map(chunk, batched=True)
    # the loaders reach the training loop as the tuple build_dataloaders returns
    # expect: TL308
    train_dataloader = DataLoader(
        lm_data["train"], shuffle=True, batch_size=args.batch_size,
        collate_fn=default_data_collator, pin_memory=True,
    )
    # expect: TL308
    eval_dataloader = DataLoader(
        lm_data["validation"], batch_size=args.batch_size,
        collate_fn=default_data_collator, pin_memory=True,
    )
    return train_dataloader, eval_dataloader


def warmup_new_embeddings(model, train_dataloader, device, steps, lr):
    """Train only the input embeddings for a few steps so that new tokens get usable vectors."""
    for p in model.parameters():
        p.requires_grad_(False)
    embeddings = model.get_input_embeddings()
    embeddings.weight.requires_grad_(True)
    emb_optimizer = torch.optim.AdamW([embeddings.weight], lr=lr)
    model.train()
    emb_optimizer.zero_grad()
    for step, batch in enumerate(train_dataloader):
        if step >= steps:
            break
        batch = {k: v.to(device) for k, v in batch.items()}
        with torch.autocast("cuda", dtype=torch.bfloat16):
            outputs = model(**batch)
        outputs.loss.backward()
        # expect: TL201
        emb_optimizer.step()
    for p in model.parameters():
        p.requires_grad_(True)


@torch.no_grad()
def evaluate(model, eval_dataloader, device):
    model.eval()
    losses = []
    for batch in eval_dataloader:
        batch = {k: v.to(device) for k, v in batch.items()}
        with torch.autocast("cuda", dtype=torch.bfloat16):
            # ok: TL102
            outputs = model(**batch)
        # ok: TL101, TL401
        losses.append(outputs.loss.repeat(batch["input_ids"].size(0)))
    eval_loss = torch.cat(losses).mean().item()
    try:
        perplexity = math.exp(eval_loss)
    except OverflowError:
        perplexity = float("inf")
    return eval_loss, perplexity


def prompt_perplexity(model, tokenizer, prompts, device):
    """Print the perplexity of a few fixed prompts as a quick sanity check between epochs."""
    model.eval()
    for prompt in prompts:
        enc = tokenizer(prompt, return_tensors="pt")
        input_ids = enc["input_ids"].to(device)
        # expect: TL102
        out = model(input_ids=input_ids, labels=input_ids)
        print(f"    ppl {math.exp(out.loss.item()):9.2f}  {prompt!r}")


def main():
    args = parse_args()
    os.makedirs(args.output_dir, exist_ok=True)
    device = torch.device("cuda")

    tokenizer = AutoTokenizer.from_pretrained(args.model_name)
    model = AutoModelForCausalLM.from_pretrained(args.model_name).to(device)
    if args.new_tokens:
        tokenizer.add_tokens(args.new_tokens)
        model.resize_token_embeddings(len(tokenizer))

    train_dataloader, eval_dataloader = build_dataloaders(tokenizer, args)
    if args.new_tokens:
        warmup_new_embeddings(model, train_dataloader, device, args.embedding_warmup_steps, lr=1e-3)

    no_decay = ("bias", "ln_1.weight", "ln_2.weight", "ln_f.weight")
    param_groups = [
        {"params": [p for n, p in model.named_parameters() if not n.endswith(no_decay)],
         "weight_decay": args.weight_decay},
        {"params": [p for n, p in model.named_parameters() if n.endswith(no_decay)],
         "weight_decay": 0.0},
    ]
    optimizer = torch.optim.AdamW(param_groups, lr=args.learning_rate)
    updates_per_epoch = math.ceil(len(train_dataloader) / args.gradient_accumulation_steps)
    max_train_steps = args.num_train_epochs * updates_per_epoch
    lr_scheduler = get_linear_schedule_with_warmup(optimizer, args.num_warmup_steps, max_train_steps)

    completed_steps = 0
    best_ppl = float("inf")
    for epoch in range(args.num_train_epochs):
        model.train()
        total_loss = 0.0
        epoch_losses = []
        for step, batch in enumerate(train_dataloader):
            batch = {k: v.to(device) for k, v in batch.items()}
            with torch.autocast("cuda", dtype=torch.bfloat16):
                outputs = model(**batch)
            if args.label_smoothing > 0:
                logits = outputs.logits[:, :-1, :]
                labels = batch["labels"][:, 1:]
                # expect: TL401
                loss = F.cross_entropy(
                    logits.reshape(-1, logits.size(-1)), labels.reshape(-1),
                    ignore_index=-100, label_smoothing=args.label_smoothing,
                )
            else:
                # ok: TL401
                loss = outputs.loss
            loss = loss / args.gradient_accumulation_steps
            # ok: TL101
            total_loss += loss.detach().float()
            loss.backward()
            # expect: TL101
            epoch_losses.append(loss)
            last_micro_step = step == len(train_dataloader) - 1
            if (step + 1) % args.gradient_accumulation_steps == 0 or last_micro_step:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
                # ok: TL201
                optimizer.step()
                # ok: TL201
                lr_scheduler.step()
                optimizer.zero_grad(set_to_none=True)
                completed_steps += 1
                if completed_steps % 50 == 0:
                    print(f"step {completed_steps}  lr {lr_scheduler.get_last_lr()[0]:.2e}")

        spread = torch.stack(epoch_losses).std().item() * args.gradient_accumulation_steps
        train_loss = total_loss.item() * args.gradient_accumulation_steps / len(train_dataloader)
        eval_loss, ppl = evaluate(model, eval_dataloader, device)
        print(f"epoch {epoch}: train {train_loss:.4f} (spread {spread:.3f})  eval {eval_loss:.4f}  ppl {ppl:.2f}")
        prompt_perplexity(model, tokenizer, SANITY_PROMPTS, device)

        if ppl < best_ppl:
            best_ppl = ppl
            model.save_pretrained(os.path.join(args.output_dir, "best"))
            tokenizer.save_pretrained(os.path.join(args.output_dir, "best"))
        torch.save(
            {"optimizer": optimizer.state_dict(), "lr_scheduler": lr_scheduler.state_dict(),
             "epoch": epoch, "completed_steps": completed_steps},
            os.path.join(args.output_dir, "trainer_state.pt"),
        )


if __name__ == "__main__":
    main()

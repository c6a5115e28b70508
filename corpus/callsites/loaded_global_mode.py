"""A model loaded whole from a checkpoint, put in eval mode where the
module runs, then read by a function the module calls: the function runs
it in eval mode (the module holds no other module the switch could also
be of), so its forward records a graph no backward uses (TL102)."""
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
state = torch.load("detector.pth.tar")
detector = state["model"].to(device)
detector.eval()


def detect(image, min_score):
    # expect: TL102
    scores = detector(image.unsqueeze(0))
    return scores[scores > min_score]


@torch.no_grad()
def detect_no_grad(image, min_score):
    # ok: TL102
    scores = detector(image.unsqueeze(0))
    return scores[scores > min_score]


if __name__ == "__main__":
    frame = torch.rand(3, 300, 300, device=device)
    print(detect(frame, 0.5), detect_no_grad(frame, 0.5))

import torch.nn.functional as F


class BoxAndClassLoss:
    """Weighted box regression and classification terms."""

    def __init__(self, box_weight=5.0, cls_weight=1.0):
        self.box_weight = box_weight
        self.cls_weight = cls_weight

    def __call__(self, boxes, logits, target_boxes, target_labels):
        box_term = F.smooth_l1_loss(boxes, target_boxes)
        cls_term = F.cross_entropy(logits, target_labels)
        terms = {
            "box": self.box_weight * box_term,
            "cls": self.cls_weight * cls_term,
        }
        return sum(terms.values()), terms


class PlainTerms:
    """The same loss, with its terms handed back as numbers for logging."""

    def __call__(self, boxes, logits, target_boxes, target_labels):
        box_term = F.smooth_l1_loss(boxes, target_boxes)
        cls_term = F.cross_entropy(logits, target_labels)
        terms = {"box": box_term.item(), "cls": cls_term.item()}
        return box_term + cls_term, terms


def make_criterion(kind):
    crit = BoxAndClassLoss(box_weight=kind)
    return crit


def make_plain():
    return PlainTerms()

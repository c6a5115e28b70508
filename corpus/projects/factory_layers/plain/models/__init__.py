from models.detector import Detector


def build_detector(phi, num_classes):
    detector = Detector(phi, num_classes)
    return detector

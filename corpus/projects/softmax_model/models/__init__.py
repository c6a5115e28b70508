from .heads import LogitHead, ProbHead
from .wrapped import BigProbHead

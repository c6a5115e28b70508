from .heads import ProbHead


class BigProbHead(ProbHead):
    pass

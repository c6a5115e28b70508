from .gate import NoisyGate

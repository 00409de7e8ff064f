"""spanproof: cited answers bound to exact spans, and the bench that proves the grader can say no."""

__version__ = "0.1.0"

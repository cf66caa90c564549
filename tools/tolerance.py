# Shared by tools/gen_fixtures.py and tools/train/reference.py: how a fixture's tolerance is
# rounded (a measured float32 error times a margin, rounded up to a readable number).
import math


def nice_up(v):
    """Round v up to 1, 2 or 5 times a power of ten."""
    e = math.floor(math.log10(v))
    for m in (1, 2, 5, 10):
        c = m * 10.0 ** e
        if c >= v * (1 - 1e-12):
            return float("%.0e" % c)
    raise AssertionError

#!/usr/bin/python3
# Writes the poem texts the page ships beside the poem model, from the same corpus and the same
# train / held-out split as train.py (crc32 of the body, so independent of file order):
#   web/models/poems/heldout.txt  300 held-out poems, one per line: the neurons view searches
#                                 them for a neuron's top-activating lines (never trained on).
#   web/models/poems/train.txt    3,000 training poems, one per line: the Train view's Tang
#                                 sample (a learner trains on it in the page).
# Poems are taken in crc32 order (a fixed, corpus-wide shuffle), five- and seven-character
# alike. Run it through tools/train/run's cache:  tools/train/samples.py --corpus TGZ
import argparse
import os
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train  # noqa: E402

OUT = os.path.join(train.ROOT, "web", "models", "poems")
COUNTS = {"heldout.txt": 300, "train.txt": 3000}


def pick(poems, n):
    """n distinct bodies in crc32 order (ties by body), so the choice is the same on every run."""
    bodies = sorted({b for b, _ in poems}, key=lambda b: (zlib.crc32(b.encode()), b))
    if len(bodies) < n:
        raise SystemExit("samples: only %d poems, %d asked" % (len(bodies), n))
    return bodies[:n]


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--cache", default=os.path.join(train.ROOT, ".cache", "train"))
    args = ap.parse_args()
    train_p, held = train.load_poems(args.cache, args.corpus)
    for name, poems in (("heldout.txt", held), ("train.txt", train_p)):
        bodies = pick(poems, COUNTS[name])
        path = os.path.join(OUT, name)
        with open(path, "w", encoding="utf-8", newline="\n") as f:
            f.write("\n".join(bodies) + "\n")
        print("samples: %s: %d poems, %d characters, %d bytes"
              % (os.path.relpath(path, train.ROOT), len(bodies), sum(map(len, bodies)),
                 os.path.getsize(path)))


if __name__ == "__main__":
    main()

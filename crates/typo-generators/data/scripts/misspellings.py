#!/usr/bin/env python3
"""Convert data/sources/misspellings.txt (curated for capkit) to data/english/misspellings.json.

    python3 misspellings.py ../sources/misspellings.txt > ../english/misspellings.json

Each non-comment line is one group: the correct spelling, then its misspellings. Duplicate words
inside a group are dropped (first kept); a repeated group line is kept once. Output order is the
file order. Deterministic: same input, same bytes out.
"""
import json
import sys


def main(path):
    groups, seen = [], set()
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split()
            if not fields or fields[0].startswith("#"):
                continue
            group = list(dict.fromkeys(fields))
            if len(group) < 2 or tuple(group) in seen:
                continue
            seen.add(tuple(group))
            groups.append(group)
    json.dump(groups, sys.stdout, ensure_ascii=False, indent=0)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])

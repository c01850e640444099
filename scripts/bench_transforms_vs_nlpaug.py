"""capkit-transforms against nlpaug's rule-based augmenters, side by side, texts per second.

    python3 scripts/bench_transforms_vs_nlpaug.py --nlpaug-python VENV/bin/python [--texts 2000] [--reps 3]

One run: a deterministic corpus of English sentences (written to a temporary file, removed at the
end), then for each pair the capkit transform (the release `throughput` example: built once, each
text hashed and transformed, passes over the corpus until 0.5 s of CPU time have passed) and
nlpaug's counterpart in one Python process (`aug.augment(text)` per text over the first
--nlpaug-texts texts). Both sides are timed in CPU seconds of the process or thread doing the
work, so a loaded shared machine slows both without biasing the ratio much. capkit's figure is
given twice: each text hashed by the call (a transform applied alone), and with the text's hash
computed beforehand (as in a profile, where one blake3 hash per text serves every seeded stage).
With --reps N the two sides run N times, interleaved (capkit, nlpaug, capkit, ...), and the table
shows the medians of the texts/s and of the per-repetition ratios. Parameters are matched as closely as the two models allow (nlpaug's character
augmenters pick words, then characters in them: aug_word_p=0.3 x aug_char_p=0.3 is about capkit's
rate 0.1 per character). The load average before and after is printed with the table.
Build first: cargo build --release -p capkit-transforms --example throughput
nlpaug: `python3 -m venv V && V/bin/pip install nlpaug==1.1.11` (pulls numpy, pandas, requests, gdown;
no model, no download at run time for these augmenters).
SpellingAug reads a dictionary this script writes (nlpaug's English one is a download) and ReservedAug
the same phrase table as capkit's `slang` row.
SynonymAug / AntonymAug against `synonym` / `antonym` on the same WordNet 3.0 database, Debian's
`wordnet-base` (--wordnet, default /usr/share/wordnet; `pip install nltk` in the venv too): nltk reads
it through a temporary NLTK_DATA directory holding copies of its files plus the `lexnames` file that package
lacks, written from its own lexnames(5WN) manual page, and an empty `index.sense` (sense keys, which
the package lacks too; nltk reads them only to map other WordNet versions, for OMW). nltk's POS tagger (the averaged perceptron) is a
download, so nlpaug's `WordNet.pos_tag` is replaced by a stand-in tagging every token `JJ`: nlpaug looks
up adjectives, as `synonym`/`antonym` do by default (`pos: "adj"`), and skips its tagging cost, which
makes nlpaug faster than it is and these two ratios lower. `nltk.download` is replaced by a function that
raises: nothing is fetched here. Without the database (or nltk) the two rows are left out, with a line
saying so.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import random
import re
import shutil
import statistics
import subprocess
import tempfile

# (capkit transform, its params, nlpaug constructor expression, note)
PAIRS = [
    ("keyboard", {"rate": 0.1}, "nac.KeyboardAug(aug_word_p=0.3, aug_char_p=0.3)", "QWERTY neighbours"),
    ("ocr", {"rate": 0.1}, "nac.OcrAug(aug_word_p=0.3, aug_char_p=0.3)", ""),
    ("char_insert", {"rate": 0.1}, "nac.RandomCharAug(action='insert', aug_word_p=0.3, aug_char_p=0.3)", ""),
    ("char_substitute", {"rate": 0.1}, "nac.RandomCharAug(action='substitute', aug_word_p=0.3, aug_char_p=0.3)", ""),
    ("char_swap", {"rate": 0.1}, "nac.RandomCharAug(action='swap', aug_word_p=0.3, aug_char_p=0.3)", ""),
    # nlpaug's swap is adjacent by default (swap_mode='adjacent'): neighbour_swap is the closer one.
    ("neighbour_swap", {"rate": 0.1}, "nac.RandomCharAug(action='swap', aug_word_p=0.3, aug_char_p=0.3)", ""),
    ("char_delete", {"rate": 0.1}, "nac.RandomCharAug(action='delete', aug_word_p=0.3, aug_char_p=0.3)", ""),
    ("word_delete", {"rate": 0.3}, "naw.RandomWordAug(action='delete', aug_p=0.3)", ""),
    ("word_swap", {"rate": 0.3}, "naw.RandomWordAug(action='swap', aug_p=0.3)", ""),
    ("word_crop", {"rate": 0.3}, "naw.RandomWordAug(action='crop', aug_p=0.3)", ""),
    ("word_split", {"rate": 0.3}, "naw.SplitAug(aug_p=0.3)", ""),
    # Per-word dictionary look-ups. Both read a table this script writes (TABLE / DICT below):
    # nlpaug's own spelling dictionary is a download, and ReservedAug has no built-in table.
    ("typo_cm", {"rate": 0.3}, "naw.SpellingAug(dict_path=DICT, aug_p=0.3)",
     "capkit: typo-tasks' misspellings; nlpaug: one misspelling per corpus word"),
    ("slang", {"rate": 0.3, "table": "TABLE"}, "naw.ReservedAug(reserved_tokens=RESERVED, aug_p=0.3)",
     "the same phrase table on both sides"),
]

# The same WordNet 3.0 files on both sides (see the module doc: nlpaug's tagger is a stand-in).
WORDNET_PAIRS = [
    ("synonym", {"rate": 0.3, "wordnet": "WORDNET"}, "naw.SynonymAug(aug_src='wordnet', aug_p=0.3)", ""),
    ("antonym", {"rate": 0.3, "wordnet": "WORDNET"}, "naw.AntonymAug(aug_p=0.3)", ""),
]

# Where Debian's wordnet-base puts the lexicographer file list (lexnames(5WN)).
LEXNAMES_MAN = "/usr/share/man/man5/lexnames.5WN.gz"

# Replacements for ReservedAug and the `slang` table (written for this benchmark).
RESERVED = [["people", "ppl"], ["because", "cuz"], ["good", "gud"], ["about", "abt"],
            ["your", "ur"], ["little", "lil"], ["years", "yrs"], ["through", "thru"]]

WORDS = (
    "the of and to in is was for that with as on by at from his her they we you it this be are have "
    "not but had were which one all their there been has when who will more no if out so said what "
    "up its about into than them can only other new some could time these two may then do first any "
    "my now such like our over man me even most made after also did many before must through back "
    "years where much your way well down should because each just those people how too little state "
    "good very make world still own see men work long get here between both life being under never day "
    "same another know while last might us great old year off come since against go came right used "
    "take three colour centre organised neighbour quickly brown fox lazy dog service delivery refund"
).split()

NLPAUG = r'''
import json, os, sys, time
if os.environ.get("NLTK_DATA"):
    import nltk
    def no_download(*args, **kwargs):
        raise RuntimeError("nltk.download called: this benchmark fetches nothing")
    nltk.download = no_download
    from nlpaug.model.word_dict.wordnet import WordNet
    # nltk's tagger is a download: every token an adjective (see the script's doc).
    WordNet.pos_tag = classmethod(lambda cls, tokens: [(t, "JJ") for t in tokens])
import nlpaug.augmenter.char as nac
import nlpaug.augmenter.word as naw
texts = [l.rstrip("\n") for l in open(sys.argv[1], encoding="utf-8")][:int(sys.argv[2])]
DICT, RESERVED = sys.argv[4], json.loads(sys.argv[5])
out = {}
for expr in json.loads(sys.argv[3]):
    aug = eval(expr)
    aug.augment(texts[0])  # warm-up (imports, tables)
    start = time.process_time()
    for t in texts:
        aug.augment(t)
    out[expr] = len(texts) / (time.process_time() - start)
print(json.dumps(out))
'''


def corpus(n: int) -> list[str]:
    rng = random.Random(20)
    texts = []
    for _ in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(8, 24))]
        words[0] = words[0].capitalize()
        texts.append(" ".join(words) + rng.choice([".", "!", "?", "."]))
    return texts


def nltk_wordnet(wordnet: str, tmp: str) -> str | None:
    """An NLTK_DATA directory whose corpora/wordnet holds `wordnet`'s files, with a `lexnames`
    file (from the directory, or written from lexnames(5WN)); None when that cannot be made."""
    if not os.path.isfile(os.path.join(wordnet, "data.adj")):
        return None
    root = os.path.join(tmp, "nltk_data")
    corpus = os.path.join(root, "corpora", "wordnet")
    os.makedirs(corpus)
    # Copies (about 30 MB, removed with the temporary directory): nltk refuses links out of its root.
    for name in os.listdir(wordnet):
        if os.path.isfile(os.path.join(wordnet, name)):
            shutil.copyfile(os.path.join(wordnet, name), os.path.join(corpus, name))
    if not os.path.exists(os.path.join(corpus, "index.sense")):
        # Sense keys serve nltk's mapping to other WordNet versions (for OMW), never a synonym
        # or antonym look-up; wordnet-base does not ship them, and an empty index is no mapping.
        open(os.path.join(corpus, "index.sense"), "w").close()
    if not os.path.exists(os.path.join(corpus, "lexnames")):
        if not os.path.isfile(LEXNAMES_MAN):
            return None
        with gzip.open(LEXNAMES_MAN, "rt", encoding="utf-8") as f:
            rows = re.findall(r"^(\d\d)\t(\S+)", f.read(), re.M)
        category = {"noun": 1, "verb": 2, "adj": 3, "adv": 4}
        with open(os.path.join(corpus, "lexnames"), "w", encoding="utf-8") as f:
            for number, name in rows:
                f.write(f"{number}\t{name}\t{category[name.split('.')[0]]}\n")
    return root


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nlpaug-python", required=True, help="a Python with nlpaug 1.1.11 installed")
    ap.add_argument("--texts", type=int, default=2000, help="corpus size (capkit side)")
    ap.add_argument("--nlpaug-texts", type=int, default=300, help="texts nlpaug runs (it is slow)")
    ap.add_argument("--throughput", default="target/release/examples/throughput")
    ap.add_argument("--reps", type=int, default=1, help="interleaved repetitions (medians shown)")
    ap.add_argument("--wordnet", default="/usr/share/wordnet", help="WordNet 3.0 dict directory")
    args = ap.parse_args()
    pairs = list(PAIRS)
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "corpus.txt")
        with open(path, "w", encoding="utf-8") as f:
            f.write("\n".join(corpus(args.texts)) + "\n")
        table = os.path.join(tmp, "slang.tsv")
        with open(table, "w", encoding="utf-8") as f:
            f.write("".join(f"{a}\t{b}\n" for a, b in RESERVED))
        spelling = os.path.join(tmp, "spelling.txt")
        with open(spelling, "w", encoding="utf-8") as f:
            # A doubled last letter: one misspelling per corpus word.
            f.write("".join(f"{w} {w + w[-1]}\n" for w in sorted(set(WORDS))))
        env = dict(os.environ)
        nltk_data = nltk_wordnet(args.wordnet, tmp)
        has_nltk = subprocess.run([args.nlpaug_python, "-c", "import nltk"], capture_output=True).returncode == 0
        if nltk_data and has_nltk:
            env["NLTK_DATA"] = nltk_data
            pairs += WORDNET_PAIRS
        else:
            print(f"synonym/antonym left out: {'no WordNet database at ' + args.wordnet if not nltk_data else 'no nltk'}")
        given = {"TABLE": table, "WORDNET": args.wordnet}
        cmd = [args.throughput, path]
        for name, params, _, _ in pairs:
            cmd += [name, json.dumps({k: given.get(v, v) if isinstance(v, str) else v for k, v in params.items()})]
        exprs = [p[2] for p in pairs]
        runs = []
        for _ in range(args.reps):
            ours = {}
            out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
            for line in out.splitlines():
                row = json.loads(line)
                ours[row["transform"]] = (row["texts_per_s"], row["shared_hash_texts_per_s"])
            theirs = json.loads(
                subprocess.run(
                    [args.nlpaug_python, "-c", NLPAUG, path, str(args.nlpaug_texts), json.dumps(exprs),
                     spelling, json.dumps(RESERVED)],
                    check=True,
                    capture_output=True,
                    text=True,
                    env=env,
                ).stdout
            )
            runs.append((ours, theirs))
    load_after = os.getloadavg()
    print(f"corpus: {args.texts} sentences of 8-24 words (nlpaug: the first {args.nlpaug_texts}); "
          f"{os.cpu_count()} CPUs; load average before {load_before[0]:.2f}, after {load_after[0]:.2f}")
    print()
    print(f"{args.reps} interleaved repetition(s); medians")
    print()
    print("| capkit transform | params | capkit texts/s | ratio | hash shared: texts/s | ratio "
          "| nlpaug counterpart | nlpaug texts/s |")
    print("|---|---|---:|---:|---:|---:|---|---:|")
    med = statistics.median
    for name, params, expr, _ in pairs:
        a = med(o[name][0] for o, _ in runs)
        shared = med(o[name][1] for o, _ in runs)
        b = med(t[expr] for _, t in runs)
        ra = med(o[name][0] / t[expr] for o, t in runs)
        rs = med(o[name][1] / t[expr] for o, t in runs)
        print(f"| `{name}` | `{json.dumps(params)}` | {a:,.0f} | {ra:,.0f}x | {shared:,.0f} | "
              f"{rs:,.0f}x | `{expr}` | {b:,.0f} |")


if __name__ == "__main__":
    main()

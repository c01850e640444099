"""The pieces of the distillation example: corpus, teacher, students, suites.

The teacher is VADER (``vaderSentiment``: a lexicon- and rule-based sentiment model whose lexicon
ships in the wheel, so nothing is downloaded at run time). It labels real English text ``pos``,
``neg`` or ``neu`` by its compound score with VADER's own thresholds (±0.05). The two students are
scikit-learn pipelines trained on the teacher's labels only: TF-IDF over character n-grams, and
TF-IDF over words, each followed by a logistic regression. Everything random takes a seed.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any, Dict, List, Sequence

from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import SGDClassifier
from sklearn.model_selection import train_test_split
from sklearn.pipeline import Pipeline
from vaderSentiment.vaderSentiment import SentimentIntensityAnalyzer

from capkit_rs import (CapabilitySuite, case_jitter_invariance, keyboard_typo_corruption,
                       transforms, whitespace_invariance)

#: Where Debian's `fortunes` package puts its English fortune files.
FORTUNES_DIR = Path("/usr/share/games/fortunes")

HERE = Path(__file__).resolve().parent

#: The suite `capkit profile default-suite` prints, as a suite file.
DEFAULT_SUITE: Dict[str, Any] = {
    "corruptions": [
        {"name": f"typo_{name}", "transform": "keyboard_typo", "rate": rate, "seed": 0, "rng": "chacha"}
        for name, rate in (("05", 0.05), ("10", 0.10), ("20", 0.20))
    ],
    "invariances": [
        {"name": "case", "transform": "case_jitter"},
        {"name": "whitespace", "transform": "whitespace"},
    ],
    "probes": ["", "   ", "a", "1234567890", "?!.,;:", "ÀÉÎÕÜ çñß", "日本語のテキスト", "🙂👍",
               "Ωmega и текст 123", "a" * 1000],
}


def fortune_texts(directory: Path = FORTUNES_DIR) -> List[str]:
    """Every fortune of the plain fortune files in ``directory`` (files without an extension,
    in name order; ``%`` lines separate fortunes), stripped, first occurrence kept."""
    if not directory.is_dir():
        raise FileNotFoundError(
            f"{directory}: no fortunes; install Debian's `fortunes` package or pass --texts FILE")
    texts: List[str] = []
    for path in sorted(p for p in directory.iterdir() if p.is_file() and "." not in p.name):
        body = path.read_text(encoding="utf-8", errors="replace")
        texts.extend(re.split(r"^%\n", body, flags=re.MULTILINE))
    return unique_nonempty(texts)


def file_texts(path: Path) -> List[str]:
    """One text per non-empty line of ``path``, first occurrence kept."""
    return unique_nonempty(path.read_text(encoding="utf-8").splitlines())


def unique_nonempty(texts: Sequence[str]) -> List[str]:
    seen: Dict[str, None] = {}
    for text in texts:
        text = text.strip()
        if text:
            seen.setdefault(text, None)
    return list(seen)


class Teacher:
    """VADER as a batch model: ``pos`` / ``neg`` / ``neu`` by the compound score."""

    def __init__(self) -> None:
        self.analyzer = SentimentIntensityAnalyzer()

    def label(self, text: str) -> str:
        compound = self.analyzer.polarity_scores(text)["compound"]
        if compound >= 0.05:
            return "pos"
        if compound <= -0.05:
            return "neg"
        return "neu"

    def batch(self, texts: Sequence[str]) -> List[str]:
        return [self.label(text) for text in texts]


class Student:
    """A trained scikit-learn pipeline as a batch model."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline

    def batch(self, texts: Sequence[str]) -> List[str]:
        return [str(label) for label in self.pipeline.predict(list(texts))]


def student_pipelines(seed: int) -> Dict[str, Pipeline]:
    """The two students, untrained: TF-IDF over character 2-4-grams (within words) and over
    words and word pairs, each into a logistic regression (trained by SGD: seconds, not minutes,
    on the CI-sized run, and deterministic for a seed)."""
    def logreg() -> SGDClassifier:
        return SGDClassifier(loss="log_loss", alpha=1e-5, max_iter=50, tol=None, random_state=seed)

    return {
        "char_ngram": Pipeline([
            ("tfidf", TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 4), min_df=2,
                                      sublinear_tf=True, max_features=50_000)),
            ("logreg", logreg()),
        ]),
        "word": Pipeline([
            ("tfidf", TfidfVectorizer(analyzer="word", ngram_range=(1, 2), sublinear_tf=True)),
            ("logreg", logreg()),
        ]),
    }


def split(texts: Sequence[str], labels: Sequence[str], held_out: float, seed: int):
    """Train and held-out texts and labels (stratified by the teacher's label)."""
    return train_test_split(list(texts), list(labels), test_size=held_out, random_state=seed,
                            stratify=list(labels))


def sample(texts: Sequence[str], limit: int, seed: int) -> List[str]:
    """``limit`` texts drawn without replacement with ``seed`` (all of them when ``limit`` is 0)."""
    if limit <= 0 or limit >= len(texts):
        return list(texts)
    return random.Random(seed).sample(list(texts), limit)


def load_suite(spec: Dict[str, Any]) -> CapabilitySuite:
    """A suite file's JSON (the shape `capkit profile --suite` reads) as a ``CapabilitySuite``.

    ``keyboard_typo``, ``case_jitter`` and ``whitespace`` are the built-in stages; any other
    ``transform`` is the catalogue's (:mod:`capkit_rs.transforms`, ``capkit profile
    transforms``), its parameters the entry's other keys."""
    def catalogue(stage: Dict[str, Any]) -> Any:
        factory = getattr(transforms, stage["transform"], None)
        if factory is None or stage["transform"] not in transforms.__all__:
            raise ValueError(f"stage {stage['name']!r}: unknown transform {stage['transform']!r}")
        params = {k: v for k, v in stage.items() if k not in ("name", "transform", "allow_corrupting")}
        return factory(**params)

    corruptions = {}
    for stage in spec.get("corruptions", []):
        if stage["transform"] == "keyboard_typo":
            corruptions[stage["name"]] = keyboard_typo_corruption(
                stage["rate"], seed=stage.get("seed", 0), rng=stage.get("rng", "chacha"))
        else:
            corruptions[stage["name"]] = catalogue(stage)
    builtin = {"case_jitter": case_jitter_invariance, "whitespace": whitespace_invariance}
    invariances = {}
    for stage in spec.get("invariances", []):
        invariances[stage["name"]] = builtin[stage["transform"]] if stage["transform"] in builtin \
            else catalogue(stage)
    return CapabilitySuite(corruptions=corruptions, invariances=invariances,
                           probes=list(spec.get("probes", [])))


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))

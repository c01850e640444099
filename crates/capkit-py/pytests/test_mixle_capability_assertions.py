"""The assertions of mixle 0.7.0's own capability test files, against capkit_rs, with scikit-learn
students.

mixle ships ``mixle/tests/capability_suite_test.py`` (5 tests) and
``generative_capability_test.py`` (7 tests). Both ``importorskip("torch")`` and distil their
students with torch (``distill_for_routing``, ``distill_extractor``); ``test_mixle_own_tests.py``
runs them as they are where Debian's CPU torch is installed (CI). This file runs on any machine
with the test requirements: the same fixtures in spirit
(a keyword spam/ham teacher, a name-extracting teacher), students distilled from the teachers'
answers with scikit-learn, and the same assertions, run against capkit_rs and, as a control,
against mixle's own modules (the import line a user switches). Nothing of mixle's test code is
copied.
"""

from __future__ import annotations

import json
import os

import pytest

if not os.environ.get("CAPKIT_REQUIRE_ORACLE"):
    pytest.importorskip("sklearn")
    pytest.importorskip("mixle.task.capability")
import numpy as np  # noqa: E402
from sklearn.feature_extraction.text import HashingVectorizer  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

import capkit_rs  # noqa: E402
import mixle.task.capability as mixle_cap  # noqa: E402
import mixle.task.generative_capability as mixle_gen  # noqa: E402

# (capability module, generative module): capkit_rs is both.
LIBS = {"capkit_rs": (capkit_rs, capkit_rs), "mixle": (mixle_cap, mixle_gen)}

SPAM = ["free", "winner", "prize", "buy", "cheap", "offer", "click"]
HAM = ["meeting", "lunch", "project", "report", "schedule", "team", "review"]
FILLER = ["the", "a", "today", "tomorrow", "please", "thanks", "we", "you"]


def spam_corpus(seed, per_class=150):
    rng = np.random.RandomState(seed)
    texts = []
    for words in (SPAM, HAM):
        for _ in range(per_class):
            tokens = list(rng.choice(words, size=2)) + list(rng.choice(FILLER, size=rng.randint(3, 7)))
            rng.shuffle(tokens)
            texts.append(" ".join(tokens))
    rng.shuffle(texts)
    return texts


def spam_teacher(texts):
    # Case-insensitive by construction.
    return ["spam" if any(w in t.lower().split() for w in SPAM) else "ham" for t in texts]


class SpamStudent:
    """Character n-grams and a logistic regression fitted to the teacher's labels, with a
    decision API that escalates (``None``) when unsure."""

    def __init__(self, texts, threshold=0.75):
        self.vec = HashingVectorizer(analyzer="char_wb", ngram_range=(2, 4), n_features=2**14, alternate_sign=False)
        self.clf = LogisticRegression(C=10.0, max_iter=1000).fit(self.vec.transform(texts), spam_teacher(texts))
        self.threshold = threshold

    def batch(self, texts):
        return list(self.clf.predict(self.vec.transform(list(texts))))

    def batch_decide(self, texts):
        proba = self.clf.predict_proba(self.vec.transform(list(texts)))
        return [self.clf.classes_[p.argmax()] if p.max() >= self.threshold else None for p in proba]


def spam_suite(cap):
    return cap.CapabilitySuite(
        corruptions={
            "typo_10": cap.keyboard_typo_corruption(0.1, seed=1),
            "typo_40": cap.keyboard_typo_corruption(0.4, seed=1),
            "typo_80": cap.keyboard_typo_corruption(0.8, seed=1),
        },
        invariances={"case_jitter": cap.case_jitter_invariance},
    )


@pytest.fixture(scope="module")
def spam_student():
    return SpamStudent(spam_corpus(seed=1))


@pytest.mark.parametrize("lib", sorted(LIBS))
def test_clean_agreement_high_and_degrades_under_typos(lib, spam_student):
    cap, _ = LIBS[lib]
    profile = cap.capture_profile(spam_student, spam_teacher, spam_corpus(seed=99), spam_suite(cap))
    assert profile["clean_agreement"] > 0.8
    scores = [profile["corruptions"][level] for level in ("typo_10", "typo_40", "typo_80")]
    assert scores[-1] < profile["clean_agreement"]
    assert scores[-1] <= scores[0] + 1e-9


@pytest.mark.parametrize("lib", sorted(LIBS))
def test_case_jitter_near_zero_violation_for_a_case_insensitive_teacher(lib, spam_student):
    cap, _ = LIBS[lib]
    profile = cap.capture_profile(spam_student, spam_teacher, spam_corpus(seed=88), spam_suite(cap))
    assert profile["invariances"]["case_jitter"]["teacher_violation_rate"] < 0.05


@pytest.mark.parametrize("lib", sorted(LIBS))
def test_abstention_reported_for_a_student_with_a_decision_api(lib, spam_student):
    cap, _ = LIBS[lib]
    profile = cap.capture_profile(spam_student, spam_teacher, spam_corpus(seed=77), spam_suite(cap))
    assert "abstention" in profile
    assert profile["abstention"]["student_escalation_rate"] is not None
    assert profile["abstention"]["teacher_escalation_rate"] is None


@pytest.mark.parametrize("lib", sorted(LIBS))
def test_profile_round_trips_json(lib, spam_student):
    cap, _ = LIBS[lib]
    profile = cap.capture_profile(spam_student, spam_teacher, spam_corpus(seed=55), spam_suite(cap))
    assert json.loads(json.dumps(profile)) == profile


@pytest.mark.parametrize("lib", sorted(LIBS))
def test_empty_suite_yields_clean_agreement_only(lib, spam_student):
    cap, _ = LIBS[lib]
    profile = cap.capture_profile(spam_student, spam_teacher, spam_corpus(seed=66), cap.CapabilitySuite())
    assert profile["corruptions"] == {} and profile["invariances"] == {}
    assert "probes" not in profile


def test_both_libraries_give_the_same_profiles(spam_student):
    texts = spam_corpus(seed=99)
    ours = capkit_rs.capture_profile(spam_student, spam_teacher, texts, spam_suite(capkit_rs))
    theirs = mixle_cap.capture_profile(spam_student, spam_teacher, texts, spam_suite(mixle_cap))
    assert ours == theirs


# ---- extraction ----

NAMES = ["alice", "bob", "carol", "david", "erin", "frank", "grace", "henry"]
TEMPLATES = [
    "hi my name is {n} nice to meet you",
    "hello, i am {n} and i like tea",
    "{n} said hello to the team today",
    "please welcome {n} to the call",
]


def name_teacher(texts):
    out = []
    for t in texts:
        found = next((n for n in NAMES if n in t.lower()), None)
        out.append({"name": found} if found else {})
    return out


def name_corpus(seed=0, per_name=18):
    rng = np.random.RandomState(seed)
    texts = [TEMPLATES[rng.randint(len(TEMPLATES))].format(n=n) for n in NAMES for _ in range(per_name)]
    rng.shuffle(texts)
    return texts


class NameStudent:
    """Word features and a logistic regression over the teacher's answers (a name, or none),
    decoding only a name that occurs in the text (a span, so grounded by construction)."""

    def __init__(self, texts):
        # Texts with the name struck out teach the "no name" answer.
        negatives = [" ".join(w for w in t.split() if w.strip(",") not in NAMES) for t in texts]
        train = list(texts) + negatives
        labels = [r.get("name", "") for r in name_teacher(train)]
        self.vec = HashingVectorizer(analyzer="word", n_features=2**12, alternate_sign=False)
        self.clf = LogisticRegression(C=10.0, max_iter=1000).fit(self.vec.transform(train), labels)

    def batch(self, texts):
        out = []
        for t, name in zip(texts, self.clf.predict(self.vec.transform(list(texts)))):
            out.append({"name": str(name)} if name and name in t else {})
        return out


@pytest.fixture(scope="module")
def name_student():
    return NameStudent(name_corpus())


@pytest.mark.parametrize("lib", sorted(LIBS))
def test_validate_extraction_schema_checks(lib):
    _, gen = LIBS[lib]
    check = gen.validate_extraction_schema({"name": "alice"}, "hi my name is alice", ["name"])
    assert check == {"complete": True, "grounded": True, "missing": [], "ungrounded": []}
    check = gen.validate_extraction_schema({}, "hi there", ["name"])
    assert not check["complete"] and "name" in check["missing"]
    check = gen.validate_extraction_schema({"name": "zach"}, "hi my name is alice", ["name"])
    assert not check["grounded"] and "name" in check["ungrounded"]


@pytest.mark.parametrize("lib", sorted(LIBS))
def test_clean_f1_is_high_and_schema_valid(lib, name_student):
    cap, gen = LIBS[lib]
    profile = gen.extractive_capture_profile(name_student, name_teacher, name_corpus(), cap.CapabilitySuite(), fields=["name"])
    assert profile["clean_f1"] > 0.85
    assert profile["schema_validity"] == {"student": 1.0, "teacher": 1.0}


@pytest.mark.parametrize("lib", sorted(LIBS))
def test_extraction_degrades_measurably_under_corruption(lib, name_student):
    cap, gen = LIBS[lib]
    suite = cap.CapabilitySuite(corruptions={"typo_40": cap.keyboard_typo_corruption(0.4, seed=0)})
    profile = gen.extractive_capture_profile(name_student, name_teacher, name_corpus(), suite, fields=["name"])
    assert profile["corruptions"]["typo_40"]["student_f1"] < profile["clean_f1"]


@pytest.mark.parametrize("lib", sorted(LIBS))
def test_agreement_can_mask_what_f1_against_the_teacher_shows(lib, name_student):
    # Under heavy typos both sides mostly find no name and "agree"; F1 against the teacher's
    # clean answers does not have that blind spot.
    cap, gen = LIBS[lib]
    texts = name_corpus()
    suite = cap.CapabilitySuite(corruptions={"typo_70": cap.keyboard_typo_corruption(0.7, seed=1)})
    extractive = gen.extractive_capture_profile(name_student, name_teacher, texts, suite, fields=["name"])
    base = cap.capture_profile(name_student, name_teacher, texts, suite)
    agreement = base["corruptions"]["typo_70"]
    assert agreement > 0.9
    assert extractive["corruptions"]["typo_70"]["student_f1"] < agreement - 0.3


@pytest.mark.parametrize("lib", sorted(LIBS))
def test_invariances_report_f1_per_side(lib, name_student):
    cap, gen = LIBS[lib]
    suite = cap.CapabilitySuite(invariances={"case_jitter": lambda t: t.swapcase()})
    profile = gen.extractive_capture_profile(name_student, name_teacher, name_corpus(), suite, fields=["name"])
    assert set(profile["invariances"]["case_jitter"]) >= {"student_f1", "teacher_f1"}

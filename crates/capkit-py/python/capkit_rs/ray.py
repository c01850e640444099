"""Profiles on Ray: the models run as Ray Data batch inference, capkit plans and folds.

Optional extra: ``pip install "capkit-rs[ray]"``. Nothing else in ``capkit_rs`` imports Ray.

The work is split in three, so that a teacher behind many GPUs is used the way Ray users already
run batch inference:

1. **plan** -- for each shard of texts, the distinct texts of every stage (clean, corruptions,
   invariances), computed by capkit's own profile engine: each distinct text of a shard is
   predicted once per model, exactly as in a single process;
2. **predict** -- Ray Data runs each model over those texts with ``map_batches`` and the options
   you give (``num_gpus``, ``concurrency``, ``batch_size``, ...);
3. **fold** -- each shard's predictions are folded into the additive counts of a profile report
   and the shard reports are merged (:func:`capkit_rs.merge_reports`).

The result equals :func:`capkit_rs.capture_profile_report` (or
:func:`capkit_rs.extractive_profile_report`) over the same texts, for any number of shards,
blocks or workers: counts are sums, so neither the split nor the order of blocks can change
them. Decision APIs are not reached on Ray (the report has no abstention block).

A teacher on a budget (``teacher_sample=`` / ``teacher_budget=`` / ``teacher_seed=``, as for
:func:`capkit_rs.capture_profile_report`): the plan marks which transformed texts the teacher is
asked about (those of the sampled texts, drawn per text by content) and Ray runs the teacher on
those only; a budget becomes one fraction from the *total* number of texts before sharding.
The result is the single-process sampled report over the same texts, for any number of shards.

Typo corpora on Ray: :func:`typo_corpus` turns names (a list or a Ray Dataset with a ``"name"``
column) into a Ray Dataset of examples -- the records ``capkit typo emit`` writes, splits
included -- for a training pipeline to read (or ``.write_parquet(...)``);
:func:`write_typo_jsonl` writes JSONL shards whose concatenation, in shard order, is byte for
byte the single-process corpus of the same names, and fingerprints the corpus as it writes.

A model is what a Ray Data user writes for ``map_batches``: a function or a callable class whose
batch (a ``dict`` of numpy arrays) has a ``"text"`` column and which returns a batch with a
``"label"`` column (classifiers) or a ``"record"`` column of ``dict`` s (extractors), or simply a
list of labels or records. Wrap it with :func:`model` to pass ``map_batches`` options::

    teacher = capkit_rs.ray.model(VllmTeacher, concurrency=4, num_gpus=1, batch_size=256)
    report = capkit_rs.ray.profile(texts, suite, student=student, teacher=teacher, shards=64)
"""

from __future__ import annotations

import json
import pickle
import re
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Optional, Sequence

import ray

from . import _native

__all__ = ["RayModel", "ledger_offsets", "model", "profile", "typo_corpus", "write_typo_jsonl"]


@dataclass
class RayModel:
    """A batch-inference callable (function or class) and the ``map_batches`` options to run it with."""

    fn: Any
    options: Dict[str, Any] = field(default_factory=dict)


def model(fn: Any, **map_batches_options: Any) -> RayModel:
    """Wraps a function or callable class with its ``map_batches`` options (``num_gpus``,
    ``concurrency``, ``batch_size``, ``fn_constructor_args``, ``fn_constructor_kwargs``, ...)."""
    return RayModel(fn, dict(map_batches_options))


class _Side:
    """Runs one side's model inside a Ray worker and turns its answers into text columns."""

    def __init__(self, fn: Any, side: str, task: str, ctor_args: Sequence[Any], ctor_kwargs: Dict[str, Any]):
        self.side = side
        self.task = task
        try:
            self.model = fn(*ctor_args, **ctor_kwargs) if isinstance(fn, type) else fn
        except Exception as exc:
            raise RuntimeError(
                f"{side} model failed on a batch of 0 texts (its constructor {getattr(fn, '__name__', fn)!s} "
                f"raised before any shard, stage or text): {type(exc).__name__}: {exc}"
            ) from exc

    def __call__(self, batch: Dict[str, Any]) -> Dict[str, Any]:
        texts = [str(t) for t in batch["text"]]
        try:
            out = self.model({"text": batch["text"]})
            column = "label" if self.task == "classify" else "record"
            answers = list(out[column]) if isinstance(out, dict) else list(out)
            if len(answers) != len(texts):
                raise ValueError(f"returned {len(answers)} answers for {len(texts)} texts")
            if self.task == "classify":
                encoded = [str(a) for a in answers]
            else:
                records = [_plain(a) for a in answers]
                for r in records:
                    # The single-process check of a record (a set or custom object refused
                    # alike). Pickled, not JSON: tuples, bytes, NaN and non-str keys stay.
                    if isinstance(r, dict):
                        _native.validate_extraction_schema(r, "", [])
                encoded = [pickle.dumps(r) for r in records]
        except Exception as exc:
            stages: Dict[int, List[str]] = {}
            for shard, stage in zip(batch["shard"], batch["stage"]):
                seen = stages.setdefault(int(shard), [])
                if str(stage) not in seen:
                    seen.append(str(stage))
            where = "; ".join(f"shard {s}: {', '.join(st)}" for s, st in sorted(stages.items()))
            ids = [f"{int(s)}:{int(p)}" for s, p in zip(batch["shard"], batch["pos"])]
            shown = ", ".join(ids[:10]) + (", ..." if len(ids) > 10 else "")
            raise RuntimeError(
                f"{self.side} model failed on a batch of {len(ids)} texts ({where}; text ids "
                f"shard:position {shown}): {type(exc).__name__}: {exc}"
            ) from exc
        return {**batch, self.side: encoded}


def _plain(value: Any) -> Any:
    """numpy scalars and arrays inside a record as plain Python values."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _compute(concurrency: Any, is_class: bool) -> Any:
    """The ``compute`` strategy Ray Data's deprecated ``concurrency=`` option stands for: an actor
    pool for a callable class (``n``, or ``(min, max)`` / ``(min, max, initial)``), a task pool
    for a function (``n`` at most at once; ``None``, Ray's default)."""
    from ray.data import ActorPoolStrategy, TaskPoolStrategy

    if isinstance(concurrency, tuple) and len(concurrency) in (2, 3) and is_class:
        return ActorPoolStrategy(
            min_size=concurrency[0],
            max_size=concurrency[1],
            **({"initial_size": concurrency[2]} if len(concurrency) == 3 else {}),
        )
    if concurrency is None:
        return ActorPoolStrategy(min_size=1, max_size=None) if is_class else TaskPoolStrategy()
    if isinstance(concurrency, int) and not isinstance(concurrency, bool):
        return ActorPoolStrategy(size=concurrency) if is_class else TaskPoolStrategy(size=concurrency)
    raise ValueError(
        f"concurrency must be an int (or, for a class, a (min, max[, initial]) tuple), got {concurrency!r}"
    )


def _map(ds: Any, side: str, task: str, m: Any) -> Any:
    if not isinstance(m, RayModel):
        m = RayModel(m)
    options = dict(m.options)
    ctor_args = options.pop("fn_constructor_args", ())
    ctor_kwargs = options.pop("fn_constructor_kwargs", {})
    options.setdefault("batch_format", "numpy")
    is_class = isinstance(m.fn, type)
    if "compute" not in options:
        # `concurrency=` is deprecated since Ray 2.51: pass the strategy it stands for.
        options["compute"] = _compute(options.pop("concurrency", 1 if is_class else None), is_class)
    if is_class:
        return ds.map_batches(
            _Side,
            fn_constructor_args=(m.fn, side, task, tuple(ctor_args), dict(ctor_kwargs)),
            **options,
        )
    side_fn = _Side(m.fn, side, task, (), {})
    return ds.map_batches(side_fn, **options)


def _shards(items: Any, shards: int, column: str = "text") -> List[List[str]]:
    """`items` (a list, or a Ray Dataset streamed through in order, read from `column`) in
    `shards` contiguous shards, cut by the plan's rule (``_native._plan_shards``: a positive
    int, anything else is a ``ValueError``)."""
    _native._plan_shards(0, shards)  # refuse a bad count before reading a Dataset
    if hasattr(items, "iter_batches"):
        flat = [str(t) for b in items.iter_batches(batch_format="numpy") for t in b[column]]
    else:
        flat = [str(t) for t in items]
    return [flat[start:end] for start, end in _native._plan_shards(len(flat), shards)]


def _decode(task: str, value: Any) -> Any:
    """A prediction as the worker encoded it: a label's str() form, or a record pickled (by our
    own worker, in this job)."""
    return str(value) if task == "classify" else pickle.loads(value)


def profile(
    texts: Any,
    suite: Any,
    *,
    student: Any,
    teacher: Any,
    fields: Optional[Iterable[Any]] = None,
    shards: int = 8,
    student_name: Optional[str] = None,
    teacher_name: Optional[str] = None,
    level: float = 0.95,
    break_even: float = 0.9,
    teacher_sample: Optional[float] = None,
    teacher_budget: Optional[int] = None,
    teacher_seed: int = 0,
    examples: int = 5,
    ledger: Optional[str] = None,
    reference: Optional[str] = None,
) -> Dict[str, Any]:
    """The profile report of `student` against `teacher` on `texts` under `suite`, on Ray.

    `texts`: a list/iterable of texts or a Ray Dataset with a ``"text"`` column. `student`,
    `teacher`: batch-inference functions or callable classes (see the module doc), optionally
    wrapped by :func:`model` with their ``map_batches`` options. With `fields`, the models are
    extractors and the report is the extractive one. Returns the same ``dict`` as
    :func:`capkit_rs.capture_profile_report` / :func:`capkit_rs.extractive_profile_report` over
    the same texts (no texts at all: the single-process report). A failing model fails the whole
    call with the side, shard, stage and text ids in the message, and so does a failing transform
    or a record the single process refuses; a partial report is never returned. `shards` must be
    a positive int (``ValueError``). `teacher_sample` (a fraction) or `teacher_budget` (teacher
    calls on transformed texts over all shards), with `teacher_seed`: the teacher answers the
    transformed versions of a seeded sample of the texts only (classifiers only; see the module
    doc). `examples` and `reference` as for :func:`capkit_rs.capture_profile_report`
    (classifiers only; the merged examples are exactly a single run's). `ledger`: a directory
    (made if missing) where each shard writes its per-text ledger, ``shard-00000.jsonl``,
    ``shard-00001.jsonl``, … (classifiers only): the lines of shard *k* are the single-process
    ledger of that shard's texts, so its ``id`` is the position within the shard; joined in shard
    order with each ``id`` offset by the shard's first position (``ledger_offsets``), they list
    every text, a text repeated in another shard carrying its answers there again.
    """
    import os

    import ray.data

    task = "classify" if fields is None else "extract"
    field_list = None if fields is None else list(fields)
    options: Dict[str, Any] = {"student_name": student_name, "teacher_name": teacher_name, "level": level, "break_even": break_even}
    if task == "classify":
        options.update(examples=examples, reference=reference)
    elif ledger is not None or reference is not None:
        raise ValueError("ledger and reference are for classifiers (no fields)")
    if ledger is not None:
        os.makedirs(ledger, exist_ok=True)
    parts = _shards(texts, shards)
    # One fraction for every shard, from the total count (a budget is split over all texts).
    fraction = _native._teacher_fraction(
        suite, sum(len(p) for p in parts), teacher_sample, teacher_budget, extract=task == "extract"
    )
    if fraction is not None:
        options.update(teacher_sample=fraction, teacher_seed=teacher_seed)
    refs = [ray.put(part) for part in parts]

    # Probes (classifiers only) are predicted once, on the driver's side of the job, and every
    # shard's report carries the same probe predictions, so the reports merge.
    probes = _native._plan_probes(suite, extract=task == "extract")
    probe_rows = [{"shard": -1, "pos": i, "stage": "probes", "text": p} for i, p in enumerate(probes)]
    probe_lookup = _collect(_predict(ray.data.from_items(probe_rows), task, student, teacher), task) if probe_rows else {}
    probe_answers = probe_lookup.get(-1, {"student": {}, "teacher": {}})
    if not any(parts):
        # No texts: nothing for Ray to plan (an empty plan cannot be grouped); the report is
        # the single-process one over no texts, with the probes as Ray answered them.
        return _native._merge_shards([_report(task, probe_answers, [], suite, field_list, options)], [])

    def plan(row: Dict[str, Any]) -> List[Dict[str, Any]]:
        shard = int(row["shard"])
        texts = ray.get(refs[shard])
        try:
            planned = _native._plan_texts(texts, suite, teacher_sample=fraction, teacher_seed=teacher_seed)
        except Exception as exc:
            raise _shard_error("planning", shard, texts, exc) from exc
        return [
            {"shard": shard, "pos": pos, "stage": stage, "text": text, "ask_teacher": ask}
            for pos, (text, stage, ask) in enumerate(planned)
        ]

    def fold(group: Dict[str, Any]) -> Dict[str, Any]:
        shard = int(group["shard"][0])
        answers = {"student": dict(probe_answers["student"]), "teacher": dict(probe_answers["teacher"])}
        for text, value in zip(group["text"], group["student"]):
            answers["student"][str(text)] = _decode(task, value)
        for text, value, ask in zip(group["text"], group["teacher"], group["ask_teacher"]):
            if ask:  # a text the teacher was not asked about has no answer, and none is read
                answers["teacher"][str(text)] = _decode(task, value)
        texts = ray.get(refs[shard])
        try:
            report = _report(task, answers, texts, suite, field_list, _shard_options(options, ledger, shard))
        except Exception as exc:
            raise _shard_error("folding", shard, texts, exc) from exc
        return {"shard": [shard], "report": [json.dumps(report)]}

    shards_ds = ray.data.from_items([{"shard": i} for i in range(len(parts))])
    planned = shards_ds.flat_map(plan)
    folded = _predict(planned, task, student, teacher, sampled=fraction is not None).groupby("shard", num_partitions=max(1, min(len(parts), 64))).map_groups(
        fold, batch_format="numpy"
    )
    try:
        rows = folded.take_all()
    except Exception as exc:  # Ray wraps worker errors; surface ours, whole
        raise _unwrap(exc) from exc

    # A shard whose plan was empty (no texts) has no group: its report is the empty one.
    by_shard: Dict[int, str] = {}
    for row in rows:
        shard, report = int(row["shard"]), str(row["report"])
        if by_shard.setdefault(shard, report) != report:
            raise RuntimeError(f"shard {shard} was folded twice with different results")
    reports = []
    for shard, part in enumerate(parts):
        if shard in by_shard:
            reports.append(json.loads(by_shard[shard]))
        else:
            reports.append(_report(task, probe_answers, part, suite, field_list, _shard_options(options, ledger, shard)))
    # The shards of one run, cut by position: merged with the whole run's texts block, as a
    # single process writes it (two shards may hold the same texts without counting twice).
    return _native._merge_shards(reports, [t for part in parts for t in part])


def _shard_options(options: Dict[str, Any], ledger: Optional[str], shard: int) -> Dict[str, Any]:
    """A shard's report options: with its own ledger file when a ledger directory is given."""
    if ledger is None:
        return options
    import os

    return {**options, "ledger": os.path.join(ledger, f"shard-{shard:05d}.jsonl")}


def ledger_offsets(texts: Any, shards: int = 8) -> List[int]:
    """The first position of each shard :func:`profile` cuts `texts` into: add ``offsets[k]``
    to the ``id`` of a line of ``shard-k.jsonl`` for its position among all the texts."""
    return [start for start, _ in _native._plan_shards(len(list(texts)), shards)]


def _predict(ds: Any, task: str, student: Any, teacher: Any, sampled: bool = False) -> Any:
    ds = _map(ds, "student", task, student)
    if not sampled:
        return _map(ds, "teacher", task, teacher)
    # The teacher sees only the rows the plan asks it about (its batches stay full); the others
    # get an empty answer column so the two parts have one schema.
    asked = _map(ds.filter(lambda row: bool(row["ask_teacher"])), "teacher", task, teacher)
    skipped = ds.filter(lambda row: not row["ask_teacher"]).map_batches(_unasked, batch_format="numpy")
    return asked.union(skipped)


def _unasked(batch: Dict[str, Any]) -> Dict[str, Any]:
    return {**batch, "teacher": [""] * len(batch["text"])}


def _collect(ds: Any, task: str) -> Dict[int, Dict[str, Dict[str, Any]]]:
    try:
        rows = ds.take_all()
    except Exception as exc:
        raise _unwrap(exc) from exc
    out: Dict[int, Dict[str, Dict[str, Any]]] = {}
    for row in rows:
        lookup = out.setdefault(int(row["shard"]), {"student": {}, "teacher": {}})
        for side in ("student", "teacher"):
            lookup[side][str(row["text"])] = _decode(task, row[side])
    return out


def _report(task, answers, texts, suite, fields, options):
    s, t = _Lookup(answers["student"]), _Lookup(answers["teacher"])
    if task == "classify":
        return _native.capture_profile_report(s, t, texts, suite, **options)
    return _native.extractive_profile_report(s, t, texts, suite, fields=fields, **options)


class _Lookup:
    """A batch model answering from the predictions Ray computed."""

    def __init__(self, answers: Dict[str, Any]):
        self.answers = answers

    def batch(self, texts: List[str]) -> List[Any]:
        return [self.answers[str(t)] for t in texts]


def _shard_error(what: str, shard: int, texts: List[str], exc: BaseException) -> RuntimeError:
    """A failure of a shard's planning (its transforms) or folding (its report): the shard, its
    text ids, and the side and stage the error's own notes name."""
    notes = "; ".join(str(n) for n in getattr(exc, "__notes__", []) or [])
    ids = f"{shard}:0..{shard}:{len(texts) - 1}" if texts else "none"
    return RuntimeError(
        f"{what} shard {shard} failed ({notes or 'no side or stage named'}; text ids shard:position {ids}): "
        f"{type(exc).__name__}: {exc}"
    )


# The first line of each error capkit_rs.ray raises inside Ray.
_OURS = re.compile(r"(?:(?:student|teacher) model failed on a batch|(?:planning|folding) shard \d+ failed)[^\n]*")


def _unwrap(exc: BaseException) -> BaseException:
    """The capkit error inside Ray's wrapping (RayTaskError and friends), if there is one."""
    seen = exc
    while seen is not None:
        if isinstance(seen, RuntimeError):
            found = _OURS.match(str(seen).split("\n")[0])
            if found:
                return RuntimeError(found.group(0))
        cause = getattr(seen, "cause", None) or seen.__cause__
        if cause is seen:
            break
        seen = cause
    found = _OURS.search(str(exc))
    return RuntimeError(found.group(0)) if found else exc


# --- typo corpora -------------------------------------------------------------------------------


def _emit_shard(names: List[str], settings: Dict[str, Any]) -> Any:
    """One shard's corpus, exactly as the single process makes it for these names."""
    from . import typo

    registry = typo.Registry()
    tasks = registry.tasks() if settings["tasks"] is None else registry.select(*settings["tasks"])
    emit = typo.emit_with_empty if settings["with_empty"] else typo.emit
    corpus = emit(tasks, names, settings["source"])
    if settings["split"]:
        corpus.assign(settings["ratio"], settings["salt"])
    if settings["drop_unrepresentable"]:
        corpus = corpus.representable_only()
    return corpus


def _typo_settings(tasks, source, ratio, salt, split, with_empty, drop_unrepresentable) -> Dict[str, Any]:
    return {
        "tasks": None if tasks is None else [str(t) for t in tasks],
        "source": source,
        "ratio": ratio,
        "salt": salt,
        "split": split,
        "with_empty": with_empty,
        "drop_unrepresentable": drop_unrepresentable,
    }


def typo_corpus(
    names: Any,
    *,
    tasks: Optional[Iterable[str]] = None,
    source: str = "",
    ratio: Any = None,
    salt: str = "",
    split: bool = True,
    with_empty: bool = False,
    drop_unrepresentable: bool = False,
    shards: int = 8,
) -> Any:
    """A Ray Dataset of typo-task examples (``Example.to_dict()`` rows: task, input, expect, split,
    source) for `names`, in `shards` parallel shards; the same examples as
    ``capkit typo emit`` / :func:`capkit_rs.typo.emit` over the same names and settings. Splits are
    per name (a stable hash of salt and name), so sharding never moves a name between splits."""
    import ray.data

    settings = _typo_settings(tasks, source, ratio, salt, split, with_empty, drop_unrepresentable)
    refs = [ray.put(part) for part in _shards(names, shards, "name")]

    def rows(row: Dict[str, Any]) -> List[Dict[str, Any]]:
        shard = int(row["shard"])
        return [
            {"shard": shard, "position": i, **example.to_dict()}
            for i, example in enumerate(_emit_shard(ray.get(refs[shard]), settings))
        ]

    return ray.data.from_items([{"shard": i} for i in range(len(refs))]).flat_map(rows)


@ray.remote
def _jsonl_shard(names: List[str], settings: Dict[str, Any]) -> Any:
    """One shard's JSONL bytes and example count, from the emitter ``capkit typo emit`` and
    :func:`capkit_rs.typo.write_jsonl_stream` write with."""
    import io

    from . import typo

    tasks = None if settings["tasks"] is None else typo.Registry().select(*settings["tasks"])
    out = io.BytesIO()
    written = typo.write_jsonl_stream(
        names,
        out,
        tasks=tasks,
        source=settings["source"],
        split=settings["split"],
        ratio=settings["ratio"] if settings["split"] else None,
        salt=settings["salt"] if settings["split"] else "",
        with_empty=settings["with_empty"],
        drop_unrepresentable=settings["drop_unrepresentable"],
    )
    return out.getvalue(), written["stats"].examples


def write_typo_jsonl(
    names: Any,
    out_dir: str,
    *,
    tasks: Optional[Iterable[str]] = None,
    source: str = "",
    ratio: Any = None,
    salt: str = "",
    split: bool = True,
    with_empty: bool = False,
    drop_unrepresentable: bool = False,
    shards: int = 8,
    in_flight: int = 4,
) -> Dict[str, Any]:
    """Emits the corpus of `names` on Ray and writes it as ``out_dir/part-00000.jsonl``, ... in
    shard order: ``cat part-*.jsonl`` is byte for byte the single-process corpus.

    The shards are generated in parallel (at most `in_flight` ahead of the writer) and written in
    order by this process, which fingerprints the bytes as it writes them: the returned
    ``fingerprint`` is the corpus fingerprint ``capkit typo emit``/``stats`` print, computed at
    write (a BLAKE3 of a concatenation cannot be derived from the shards' own hashes, which are
    returned too, for checking a shard on its own). Each shard is written to a temporary file and
    renamed. A directory already holding ``part-*`` files is refused (``FileExistsError``, before
    any work: older shards would join the concatenation), and a failure removes every shard this
    call wrote, so nothing is left behind. Files get the mode the umask gives a new file."""
    import os

    from .typo import Fingerprinter, fingerprint

    settings = _typo_settings(tasks, source, ratio, salt, split, with_empty, drop_unrepresentable)
    parts = _shards(names, shards, "name")
    if os.path.isdir(out_dir):
        older = sorted(n for n in os.listdir(out_dir) if n.startswith("part-"))
        if older:
            shown = ", ".join(older[:3]) + (", ..." if len(older) > 3 else "")
            raise FileExistsError(
                f"{out_dir} already holds {len(older)} part-* file(s) ({shown}): "
                "their concatenation with the new shards would not be the corpus; "
                "write into an empty directory or remove them"
            )
    os.makedirs(out_dir, exist_ok=True)
    corpus = Fingerprinter()
    manifest: List[Dict[str, Any]] = []
    pending: List[Any] = []
    next_to_submit = 0
    try:
        for index in range(len(parts)):
            while next_to_submit < len(parts) and len(pending) < max(1, in_flight):
                pending.append(_jsonl_shard.remote(parts[next_to_submit], settings))
                next_to_submit += 1
            try:
                data, examples = ray.get(pending.pop(0))
            except Exception as exc:
                raise RuntimeError(f"typo shard {index} ({len(parts[index])} names) failed: {exc}") from exc
            path = os.path.join(out_dir, f"part-{index:05d}.jsonl")
            # As every file capkit writes (the library `outfile`): a temporary file beside it,
            # synced and renamed into place, removed on failure, with the umask's mode.
            _native._write_atomically(path, data)
            manifest.append({"path": path, "names": len(parts[index]), "examples": examples, "bytes": len(data), "fingerprint": fingerprint(data)})
            corpus.update(data)
    except BaseException:
        for written in manifest:
            try:
                os.unlink(written["path"])
            except OSError:
                pass
        raise
    return {"fingerprint": corpus.hexdigest(), "shards": manifest}

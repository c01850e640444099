"""Real models as students and teachers: capkit's model adapters (the ``capkit-model-adapters``
Rust crate), the models ``capkit profile --student/--teacher`` reaches, from Python::

    from capkit_rs import CapabilitySuite, capture_profile, case_jitter_invariance, models

    teacher = models.openai("Qwen/Qwen2.5-7B-Instruct", base_url="http://localhost:8000/v1",
                            prompt_template="Answer pos or neg.\\n{text}")
    student = models.cmd(["python3", "student.py"])      # speaks capkit's JSONL protocol
    suite = CapabilitySuite(invariances={"case": case_jitter_invariance})
    profile = capture_profile(student, teacher, ["good food", "Bad service"], suite)

* ``cmd(argv)`` -- a program reading ``{"id", "text"}`` lines on stdin and answering
  ``{"id", "label"}`` (or ``"record"``, optionally ``"decision"``) lines, in order; started on
  first use, never through a shell, ended by ``close()`` (or when the model is garbage
  collected).
* ``http(url)`` -- POST ``{"texts": [...]}``, answer ``{"labels": [...]}`` (or ``"records"``,
  optionally ``"decisions"``), ``batch_size`` texts per request, ``concurrency`` at once.
* ``openai(model, prompt_template=...)`` -- an OpenAI-compatible chat API (vLLM, llama.cpp,
  Ollama, hosted APIs; https included), one completion per text; the label is the trimmed
  reply, a record the reply as a JSON object. Timeouts, retries with jitter and ``Retry-After``
  are the Rust client's; the API key is read from ``api_key_env`` and never shown.
* ``file(path)`` -- precomputed ``{"text", "label"}`` lines.
* ``parse(spec)`` -- any spec string the command line takes (``"cmd:python3 m.py"``,
  ``"openai:MODEL@URL"``, ...).

Each returns an :class:`AdapterModel`, usable as the student or the teacher of every profile
(``capture_profile``, ``extractive_capture_profile``, the reports, ``compare_students``); its
decision API, when the model answers with decisions, is used too. Profiles call it in Rust
with the GIL released. Answers are kept on disk (``cache=True``: ``$XDG_CACHE_HOME/capkit``,
else ``~/.cache/capkit``, the command line's cache, shared with it; ``cache=DIR``;
``cache=False``), so a second profile asks only about texts the model has not answered. A
cache that cannot be used is a ``RuntimeWarning``, never a failed run.
"""

from __future__ import annotations

from . import _native
from ._reexport import adopt

__all__ = ["AdapterModel", "cmd", "file", "http", "openai", "parse"]

AdapterModel = _native.AdapterModel
cmd = _native.models_cmd
file = _native.models_file
http = _native.models_http
openai = _native.models_openai
parse = _native.models_parse

adopt(globals(), __all__)

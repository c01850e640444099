"""The prediction cache's upkeep from Python: what ``capkit cache stats|verify|compact|export``
does on the command line, through the same Rust code (crate ``capkit-model-adapters``)::

    from capkit_rs import cache

    info = cache.stats()                  # the default cache, shared with `capkit profile`
    print(info["path"], info["bytes"], info["answers"])
    assert cache.verify() == []           # problems, each naming what is wrong
    before, after = cache.compact()       # bytes on disk before and after
    n = cache.export("answers.jsonl")     # every answer as JSONL, written atomically
    cache.export("replies.jsonl", replies=True)  # openai: models' raw replies

Every function takes ``dir`` (default :func:`default_dir`: ``$XDG_CACHE_HOME/capkit``, else
``~/.cache/capkit``) and never creates a cache: one that is not there is a
``FileNotFoundError``. Models cache their answers there with ``cache=True`` (see
:mod:`capkit_rs.models`).
"""

from __future__ import annotations

from . import _native
from ._reexport import adopt

__all__ = ["compact", "default_dir", "export", "stats", "verify"]

compact = _native.cache_compact
default_dir = _native.cache_default_dir
export = _native.cache_export
stats = _native.cache_stats
verify = _native.cache_verify

adopt(globals(), __all__)

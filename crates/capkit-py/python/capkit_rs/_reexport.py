"""What ``capkit_rs.typo`` and ``capkit_rs.mutator`` do to the native names they re-export."""

from __future__ import annotations

from typing import Any, Dict, Iterable


def adopt(namespace: Dict[str, Any], names: Iterable[str]) -> None:
    """Makes the native functions among ``names`` report the re-exporting module as their
    ``__module__``, so ``help()`` and tracebacks point where users import them from."""
    for name in names:
        obj = namespace[name]
        if callable(obj) and getattr(obj, "__module__", None) == "capkit_rs._native":
            try:
                obj.__module__ = namespace["__name__"]
            except (AttributeError, TypeError):
                pass

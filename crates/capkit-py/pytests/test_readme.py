"""Every ```python block of the README and of its Python guide (docs/python.md) runs as written.

(Other guides' Python blocks are programs of another kind, e.g. docs/model-protocol.md's `cmd:`
model reading stdin; they are not run here.)
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = [ROOT / "README.md", ROOT / "docs" / "python.md"]


def python_blocks(page: Path):
    return re.findall(r"```python\n(.*?)```", page.read_text(), flags=re.S)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_python_examples_run(page, capsys, monkeypatch):
    # The examples name files relative to the repository root, as a reader runs them.
    monkeypatch.chdir(ROOT)
    blocks = python_blocks(page)
    assert blocks, f"{page.name} has Python examples"
    for block in blocks:
        exec(compile(block, str(page), "exec"), {})
    assert "clean_agreement" in capsys.readouterr().out

"""Every ```python block of the README's Python section runs as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parents[3] / "README.md"


def python_blocks():
    text = README.read_text()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_python_examples_run(capsys):
    blocks = python_blocks()
    assert blocks, "the README has Python examples"
    for block in blocks:
        exec(compile(block, str(README), "exec"), {})
    assert "clean_agreement" in capsys.readouterr().out

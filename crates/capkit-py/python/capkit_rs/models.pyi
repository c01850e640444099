"""Real models as students and teachers (type stubs of ``capkit_rs.models``)."""

import os
from typing import Any, Dict, Iterable, List, Literal, Optional, Sequence, Union, final

__all__ = ["AdapterModel", "cmd", "file", "http", "openai", "parse"]

_Cache = Union[bool, str, "os.PathLike[str]"]

@final
class AdapterModel:
    """A model reached through capkit's adapters; pass it as a student or teacher."""

    @property
    def spec(self) -> str: ...
    def batch(
        self, texts: Iterable[str], *, task: Literal["classify", "extract"] = "classify"
    ) -> List[Any]: ...
    def cache_info(self) -> Dict[str, Dict[str, Any]]: ...
    def close(self) -> None: ...
    def __enter__(self) -> AdapterModel: ...
    def __exit__(self, *_exc: object) -> bool: ...

def cmd(argv: Sequence[str], *, timeout: float = 60.0, cache: _Cache = True) -> AdapterModel: ...
def http(
    url: str,
    *,
    batch_size: int = 64,
    concurrency: int = 4,
    timeout: float = 60.0,
    retries: int = 3,
    cache: _Cache = True,
) -> AdapterModel: ...
def openai(
    model: str,
    *,
    prompt_template: str,
    base_url: Optional[str] = None,
    api_key_env: str = "OPENAI_API_KEY",
    concurrency: int = 4,
    timeout: float = 60.0,
    retries: int = 3,
    cache: _Cache = True,
) -> AdapterModel: ...
def file(path: Union[str, "os.PathLike[str]"]) -> AdapterModel: ...
def parse(
    spec: str,
    *,
    prompt_template: Optional[str] = None,
    base_url: Optional[str] = None,
    api_key_env: str = "OPENAI_API_KEY",
    batch_size: int = 64,
    concurrency: int = 4,
    timeout: float = 60.0,
    retries: int = 3,
    cache: _Cache = True,
) -> AdapterModel: ...

"""The plan capkit_rs.ray runs by (issue 24: Ray calls the rules, Rust holds them): shards and
probes, equal to what the Python module computed before."""

from __future__ import annotations

import pytest

import capkit_rs
from capkit_rs import _native


def old_python_shards(flat, shards):
    """capkit_rs.ray's rule before it moved into Rust (kept here as the oracle)."""
    shards = max(1, min(shards, len(flat) or 1))
    size = -(-len(flat) // shards) if flat else 0
    return [flat[i * size : (i + 1) * size] for i in range(shards)]


def test_shards_are_cut_as_before():
    for count in [0, 1, 2, 3, 9, 10, 97, 2000]:
        flat = [str(i) for i in range(count)]
        for shards in [1, 2, 3, 4, 6, 7, 8, 64, 10**30]:
            got = [flat[a:b] for a, b in _native._plan_shards(count, shards)]
            assert got == old_python_shards(flat, shards), (count, shards)


@pytest.mark.parametrize("shards", [0, -1, True, False, 1.5, "2", None])
def test_shards_must_be_a_positive_int(shards):
    with pytest.raises(ValueError, match=r"shards must be a positive int, got " + repr(shards).replace("(", r"\(")):
        _native._plan_shards(10, shards)


def test_probes_are_the_distinct_probe_texts_in_order():
    suite = capkit_rs.CapabilitySuite(probes=["", "good", "GOOD!!!", "good", ""])
    assert _native._plan_probes(suite) == ["", "good", "GOOD!!!"]
    assert _native._plan_probes(suite) == list(dict.fromkeys(suite.probes))
    assert _native._plan_probes(suite, extract=True) == []
    assert _native._plan_probes(capkit_rs.CapabilitySuite()) == []
    # As the single-process report refuses them (Ray predicted their str() before).
    bad = capkit_rs.CapabilitySuite(probes=["a", 1])
    with pytest.raises(TypeError, match="suite.probes must hold str values"):
        capkit_rs.capture_profile_report(lambda ts: ts, lambda ts: ts, ["a"], bad)
    with pytest.raises(TypeError, match="suite.probes must hold str values"):
        _native._plan_probes(bad)

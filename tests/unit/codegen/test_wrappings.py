"""Commands, renames, moves and replies in the wrappings people type (``bench/wrapping_bench.py``).

The held-out file is evaluated once, by the bench, never by a test (docs/benchmarks.md); here
only its seal is checked.
"""

from __future__ import annotations

from codemem.bench.wrapping_bench import WRAPPINGS_SHA256, held_out_digest


def test_the_held_out_wrappings_are_unchanged_since_they_were_written():
    assert held_out_digest() == WRAPPINGS_SHA256

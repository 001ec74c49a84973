"""One real extraction pool for the memory tests (starting worker processes costs time)."""

from __future__ import annotations

import pytest

from codemem.memory.codeindex.walk import PoolExtractor


@pytest.fixture(scope="session")
def pool():
    extractor = PoolExtractor(workers=1)
    yield extractor
    extractor.close()

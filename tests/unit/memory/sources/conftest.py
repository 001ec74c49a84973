"""One real extraction pool for the folder (starting worker processes costs time)."""

from __future__ import annotations

import pytest

from codemem.memory.codeindex.walk import PoolExtractor


@pytest.fixture(scope="session")
def source_pool():
    extractor = PoolExtractor(workers=1)
    yield extractor
    extractor.close()

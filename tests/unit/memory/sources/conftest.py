"""One real extraction pool for the folder (starting worker processes costs time), and the two
fetch engines every clone test runs with (the git binary's skipped where there is none)."""

from __future__ import annotations

import shutil

import pytest

from codemem.memory.codeindex.walk import PoolExtractor

NO_GIT = "no git binary on PATH: only the dulwich engine (the stock Cat image's) is tested"
ENGINES = [pytest.param("dulwich", id="dulwich"),
           pytest.param("git", id="git",
                        marks=pytest.mark.skipif(shutil.which("git") is None, reason=NO_GIT))]


@pytest.fixture(scope="session")
def source_pool():
    extractor = PoolExtractor(workers=1)
    yield extractor
    extractor.close()


@pytest.fixture(params=ENGINES)
def engine(request) -> str:
    """The fetch engine of the test: "dulwich" or "git" (``CloneLimits.engine``)."""
    return str(request.param)

"""Fixtures of the opt-in real-Cat integration tests (see cat_harness.py for the how and why).

Without ``CCAT_CORE_DIR`` every test here skips with a message saying how to enable them. The
Cat imports this file too (it imports every ``.py`` of the plugin): nothing runs at import time.
"""

from __future__ import annotations

import contextlib
import shutil

import pytest

from . import cat_harness


@pytest.fixture(scope="session")
def cat_core():
    """The Cat core folder; skips (not enabled) or fails (enabled but unusable)."""
    core = cat_harness.configured_core()
    if core is None:
        pytest.skip(cat_harness.HOW_TO_ENABLE)
    problem = cat_harness.core_problem(core)
    if problem:
        pytest.fail(f"{problem}. {cat_harness.HOW_TO_ENABLE}", pytrace=False)
    return core


@pytest.fixture(autouse=True)
def _integration_enabled(cat_core):
    """Every test of this folder needs the Cat, even one that does not ask for a fixture."""
    return cat_core


@pytest.fixture(scope="module")
def cat_run(cat_core, tmp_path_factory):
    """One Cat per test module, plugin toggled on, in-memory cache."""
    with cat_harness.booted_cat(cat_core, tmp_path_factory.mktemp("cat")) as run:
        yield run


@pytest.fixture
def boot_cat(cat_core, tmp_path):
    """Factory for a dedicated Cat: ``with boot_cat(settings={...}) as run: ...``.

    The plugin folders of these boots (kept for a second boot, or not) are removed afterwards,
    even if the test failed between two boots; only these: other test runs may share the core.
    """
    created = []

    @contextlib.contextmanager
    def boot(**kwargs):
        workdir = kwargs.pop("workdir", tmp_path)
        with cat_harness.booted_cat(cat_core, workdir, **kwargs) as run:
            created.append(run.plugins_name)
            yield run

    yield boot
    for name in created:
        shutil.rmtree(cat_core / name, ignore_errors=True)  # symlinks unlinked, never followed

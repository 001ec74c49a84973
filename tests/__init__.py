"""Mount the plugin root as the package ``codemem`` so tests import ``codemem.memory`` etc.

Inside the Cat the plugin is ``cat.plugins.<id>``; under pytest it has no package name at all.
Registering one alias keeps the code's relative imports working in both places. The Cat also
imports this file (it imports every ``.py`` of a plugin), so the mount is idempotent and cheap.
"""

import importlib.machinery
import importlib.util
import pathlib
import sys

ALIAS = "codemem"
ROOT = pathlib.Path(__file__).resolve().parents[1]


def mount(alias: str = ALIAS) -> None:
    """Register the plugin root as package ``alias`` (no-op when it already is)."""
    if alias in sys.modules:
        return
    spec = importlib.machinery.ModuleSpec(alias, None, is_package=True)
    spec.submodule_search_locations = [str(ROOT)]
    module = importlib.util.module_from_spec(spec)
    sys.modules[alias] = module


mount()

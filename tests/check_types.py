"""Type-check the plugin: ``mypy --strict`` on the cores and ``app/``, plain on the root glue.

Why a script: the plugin has no package name of its own (inside the Cat it is
``cat.plugins.<id>``), and mypy needs one to follow the relative imports. The script mounts the
plugin root as ``codemem`` in a temporary folder (a symlink) and checks it there. The Cat
imports every ``.py`` of a plugin and has no mypy: nothing runs at import time, and mypy is
imported only when the script runs. Run: ``python tests/check_types.py`` (``make typecheck``).
"""

import os
import pathlib
import sys
import tempfile

#: Checked with --strict: they never import the Cat, so every type is ours to state (``app/``
#: meets the Cat's objects through its own Protocols, ``app/host/cat_types.py``).
STRICT = ("memory", "codegen", "llm", "app")
#: Modules the Cat has no stubs for, or whose stubs are incomplete.
COMMON = ["--python-version", "3.10", "--ignore-missing-imports", "--no-error-summary",
          "--show-error-codes", "--hide-error-context"]


def _glue(root: pathlib.Path) -> list[str]:
    return sorted(p.stem for p in root.glob("*.py") if p.stem != "__init__")


def check(root: pathlib.Path, cache: pathlib.Path) -> int:
    """Run both passes; return the number of failing passes."""
    from mypy import api  # only here: the Cat imports this file and has no mypy

    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        (pathlib.Path(tmp) / "codemem").symlink_to(root, target_is_directory=True)
        os.chdir(tmp)  # mypy finds ``codemem`` in the current folder
        passes = [
            ["--strict", *[a for core in STRICT for a in ("-p", f"codemem.{core}")]],
            [*[a for mod in _glue(root) for a in ("-m", f"codemem.{mod}")]],
        ]
        for extra in passes:
            out, err, status = api.run([*COMMON, "--config-file", str(root / "pyproject.toml"),
                                        "--cache-dir", str(cache), *extra])
            sys.stdout.write(out)
            sys.stderr.write(err)
            failures += status != 0
    return failures


if __name__ == "__main__":
    repo = pathlib.Path(__file__).resolve().parents[1]
    sys.exit(1 if check(repo, repo / ".mypy_cache") else 0)

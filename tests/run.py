"""Run a plugin module (a benchmark or an example) as a script, under the ``codemem`` alias.

Benchmarks and examples live inside the plugin and use relative imports like the rest of it,
so they need a package name: ``python -m tests.run bench.memory_bench --sizes 1000``.
"""

import runpy
import sys

from . import ALIAS, mount


def main(argv: list[str]) -> None:
    """Run ``codemem.<module>`` as ``__main__`` with the remaining arguments."""
    if not argv:
        raise SystemExit("usage: python -m tests.run <module, e.g. bench.memory_bench> [args...]")
    mount()
    module = argv[0].removesuffix(".py").replace("/", ".")
    sys.argv = [module, *argv[1:]]
    runpy.run_module(f"{ALIAS}.{module}", run_name="__main__", alter_sys=True)


if __name__ == "__main__":
    main(sys.argv[1:])

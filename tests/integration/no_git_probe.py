"""The plugin in a Cat whose machine has no ``git`` binary, as in the stock Cat image: ``PATH``
without git, then boot, toggle, chat and ask the status tool in a process of its own
(``python -m tests.integration.no_git_probe``), reporting what happened as JSON. Nothing happens
at import time (the Cat imports every ``.py`` file of the plugin, this one included)."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import sys
from typing import Any

from .cat_harness import PLUGIN_ID, booted_cat


def path_without_git(path: str) -> str:
    """``path`` minus every directory that holds a ``git`` executable."""
    keep = [d for d in path.split(os.pathsep)
            if d and not os.access(os.path.join(d, "git"), os.X_OK)]
    return os.pathsep.join(keep)


def no_git_probe(core: pathlib.Path, workdir: pathlib.Path) -> dict:
    """Boot, toggle, chat once and ask the status tool, all without git; report what happened."""
    report: dict[str, Any] = {"git_on_path": shutil.which("git"),
                              "git_imported_before": "git" in sys.modules}
    with booted_cat(core, workdir) as run:
        report["active"] = run.plugin.active
        report["load_errors"] = run.load_errors()
        report["registered"] = run.registered()
        frame = run.chat("hello from a machine without git")
        report["chat_type"] = frame.get("type")
        report["state"] = run.plugin_state()
        tool = next(t for t in run.ccat.mad_hatter.tools if t.plugin_id == PLUGIN_ID)
        report["status"] = tool.func("", cat=run.stray())
    report["git_imported_after"] = "git" in sys.modules
    try:
        import git  # noqa: F401  (proves the environment really lacks git)

        report["import_git"] = "ok"
    except ImportError as err:
        report["import_git"] = f"ImportError: {err}"
    return report


def main(argv: list[str]) -> int:
    """``python -m tests.integration.no_git_probe no-git-probe <core> <workdir> <report.json>``."""
    if len(argv) != 4 or argv[0] != "no-git-probe":
        print(main.__doc__, file=sys.stderr)
        return 2
    report = no_git_probe(pathlib.Path(argv[1]), pathlib.Path(argv[2]))
    pathlib.Path(argv[3]).write_text(json.dumps(report, default=str, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""The launcher's contract (codegen/sandbox/boot_types.py) against both of its sides.

The launcher runs by path and cannot import the types it is checked with, so a key written
on one side and misspelt on the other would pass every type check: these tests hold the JSON
the Cat builds, the report the launcher writes and the keys the Cat reads to the TypedDicts.
"""

from __future__ import annotations

import pathlib
import re
import sys

from codemem.codegen.sandbox import boot_types as contract
from codemem.codegen.sandbox.env import HostPlan

SANDBOX = pathlib.Path(contract.__file__).resolve().parent


def test_the_launcher_config_the_cat_builds_fits_the_contract(tmp_path):
    config = HostPlan(python=sys.executable, uids=None).launcher_config(
        str(tmp_path), str(tmp_path / "work"), ["python", "-c", "pass"], uid=None,
        namespaces=False, require=("files",), disk_quota_mb=64, memory_mb=512, cpu_s=5.0,
        fsize_mb=64, nofile=256, nproc=64)
    assert set(config) <= set(contract.LauncherConfig.__annotations__)
    assert config["landlock"] is not None
    assert set(config["landlock"]) == set(contract.LandlockRules.__annotations__)
    for mask in config["masks"]:
        assert set(mask) <= set(contract.Mask.__annotations__), mask
    assert config["argv"][0] == sys.executable  # "python" resolved to the interpreter


def test_every_report_key_written_or_read_is_in_the_contract():
    written = set(re.findall(r'report\["(\w+)"\]',
                             (SANDBOX / "boot.py").read_text(encoding="utf-8")))
    protect = (SANDBOX / "protect.py").read_text(encoding="utf-8")
    read = set(re.findall(r'\bs(?:etup)?\.get\("(\w+)"', protect))
    read |= set(re.findall(r"\bs(?:etup)?\.get\('(\w+)'", protect))
    read |= set(re.findall(r"\bs\['(\w+)'\]", protect))
    declared = set(contract.SetupReport.__annotations__)
    assert written and read
    assert written <= declared, written - declared
    assert read <= declared, read - declared


def test_the_shutdown_recognises_the_launcher_by_the_path_it_is_started_with():
    """``process.CHILD_MARKERS`` finds sandboxes on the command line by the launcher's path."""
    from codemem.app import process
    from codemem.codegen.sandbox.run import SANDBOX_LAUNCHER

    assert pathlib.Path(SANDBOX_LAUNCHER).is_file()
    assert pathlib.Path(SANDBOX_LAUNCHER).parent == SANDBOX
    assert SANDBOX_LAUNCHER in process.CHILD_MARKERS

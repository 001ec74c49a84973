"""trees: module layouts, library exclusions, the walk order and the size cap."""

from __future__ import annotations

import os

from codemem.memory.codeindex.records import WalkedFile
from codemem.memory.sources.trees import (
    SIZE_CAP,
    ModuleLayout,
    excluded,
    exclusions,
    folder_tree,
    indexable,
    installed_tree,
    layout_for,
    ordered,
)


def test_layouts_map_paths_to_modules():
    src = layout_for(["src/pkg/__init__.py", "src/pkg/a.py", "docs/conf.py"])
    assert src == ModuleLayout("src/", "", frozenset({"pkg"}), True)
    assert src.module("src/pkg/a.py") == "pkg.a"
    assert src.module("docs/conf.py") is None
    flat = layout_for(["pkg/__init__.py", "pkg/a.py", "tools/x.py"])
    assert flat.module("pkg/a.py") == "pkg.a" and flat.module("tools/x.py") is None
    assert flat.module("setup.py") == "setup"  # top-level files are modules
    folder = layout_for(["__init__.py", "core.py"], root_is_package=True, package="mylib")
    assert folder.module("core.py") == "mylib.core"
    assert ModuleLayout().module("ns/deep/m.py") == "ns.deep.m"  # no package files needed


def test_library_exclusions():
    library = exclusions(include_private=False)
    assert excluded("pkg/tests/test_a.py", library) and excluded("conftest.py", library)
    assert excluded("pkg/_private/x.py", library) and excluded("setup.py", library)
    assert not excluded("pkg/core.py", library)
    everything = exclusions(include_private=True)
    assert not excluded("pkg/tests/test_a.py", everything)
    assert excluded("pkg/__pycache__/a.py", everything)
    assert indexable("a.py") and indexable("README.md") and not indexable("data.bin")


def test_public_modules_come_first_and_the_cap_cuts_from_the_end():
    layout = ModuleLayout()
    walked = [WalkedFile("pkg/_impl.py", None, 400), WalkedFile("README.md", None, 300),
              WalkedFile("pkg/api.py", None, 500), WalkedFile("big.bin", "skipped:x", 10**9)]
    out, cut = ordered(walked, layout, max_bytes=1000)
    assert [w.path for w in out] == ["pkg/api.py", "README.md", "pkg/_impl.py", "big.bin"]
    assert [w.status for w in out] == [None, None, SIZE_CAP, "skipped:x"]
    assert cut == 1 and "cap" in out[2].detail


def test_folder_tree_walks_a_package_folder(tmp_path):
    root = tmp_path / "mylib"
    (root / "tests").mkdir(parents=True)
    (root / "__init__.py").write_text("from .core import run\n")
    (root / "core.py").write_text("def run():\n    pass\n")
    (root / "tests" / "test_core.py").write_text("def test():\n    pass\n")
    (root / "GUIDE.md").write_text("# Guide\n")
    (root / "data.bin").write_bytes(b"\x00")
    tree = folder_tree(str(root), include_private=False, max_file_bytes=1 << 20)
    accepted = sorted(w.path for w in tree.walked if w.status is None)
    assert accepted == ["GUIDE.md", "__init__.py", "core.py"]
    assert any(w.path == "tests/" and w.status for w in tree.walked)  # pruned, with a status
    assert tree.layout.module("core.py") == "mylib.core" and tree.origin == "folder"
    assert tree.opaque == set()  # tests/ is no package here


def test_a_pruned_package_of_a_folder_source_is_known_but_not_read(tmp_path):
    """A private package left out by default exists: the API check must not call a use of
    it an unknown name."""
    root = tmp_path / "mylib"
    (root / "_private").mkdir(parents=True)
    (root / "__init__.py").write_text("from ._private import run\n")
    (root / "_private" / "__init__.py").write_text("def run():\n    pass\n")
    tree = folder_tree(str(root), include_private=False, max_file_bytes=1 << 20)
    assert sorted(w.path for w in tree.walked if w.status is None) == ["__init__.py"]
    assert tree.opaque == {"mylib._private"}


def test_installed_tree_reads_only_what_record_lists_inside_root(tmp_path):
    pkg = tmp_path / "lib"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("x = 1\n")
    (pkg / "_speed.cpython-310-x86_64-linux-gnu.so").write_bytes(b"\x7fELF")
    os.symlink(pkg / "__init__.py", pkg / "alias.py")
    files = ["lib/__init__.py", "lib/_speed.cpython-310-x86_64-linux-gnu.so", "lib/alias.py",
             "lib/gone.py", "../../bin/tool", "lib/tests/test_x.py"]
    tree = installed_tree(str(tmp_path), files, include_private=False, version="1.0")
    status = {w.path: w.status for w in tree.walked}
    assert status == {"lib/__init__.py": None, "lib/alias.py": "skipped:symlink",
                      "lib/gone.py": "error:vanished"}
    assert tree.opaque == {"lib._speed", "lib.tests.test_x"}
    assert tree.version == "1.0" and tree.origin == "installed"

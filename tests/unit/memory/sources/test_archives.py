"""Hostile and broken archives: nothing leaves the cache zip, nothing is ever unpacked."""

from __future__ import annotations

import io
import stat
import tarfile
import zipfile

import pytest

from codemem.memory.sources.archives import (
    ArchiveLimits,
    ArchiveRefused,
    ArchiveTree,
    normalise_archive,
    safe_member_name,
)

from .library import TEXTKIT_V1, build_wheel


def members(path: str) -> list[str]:
    with zipfile.ZipFile(path) as zf:
        return sorted(zf.namelist())


def test_member_names_that_could_escape_are_refused():
    for bad in ("/etc/passwd", "../x.py", "a/../../x.py", "C:/x.py", "a\\b.py", "a\x00.py", ""):
        assert safe_member_name(bad) is None, bad
    assert safe_member_name("./pkg//mod.py") == "pkg/mod.py"


def test_a_wheel_keeps_code_and_docs_only(tmp_path):
    wheel = build_wheel(tmp_path, "textkit", "1.0", {**TEXTKIT_V1, "textkit/data.bin": "x",
                                                      "textkit/mod.cpython-310.pyc": "x"})
    out = str(tmp_path / "cache.zip")
    count = normalise_archive(wheel, out, ArchiveLimits())
    kept = members(out)
    assert count == len(kept) == 5
    assert "textkit/_core.py" in kept and "textkit-1.0.dist-info/METADATA" in kept
    assert not any(k.endswith((".bin", ".pyc", "WHEEL", "RECORD")) for k in kept)
    assert {p.name for p in tmp_path.iterdir()} == {"textkit-1.0-py3-none-any.whl",
                                                    "cache.zip"}


def test_traversal_links_and_special_members_of_a_zip_are_dropped(tmp_path):
    archive = tmp_path / "evil.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("../escape.py", "x = 1")
        zf.writestr("/abs.py", "x = 1")
        link = zipfile.ZipInfo("pkg/link.py")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        zf.writestr(link, "/etc/passwd")
        zf.writestr("pkg/ok.py", "x = 1")
    out = str(tmp_path / "out.zip")
    normalise_archive(str(archive), out, ArchiveLimits())
    assert members(out) == ["pkg/ok.py"]
    assert not (tmp_path.parent / "escape.py").exists()


def test_a_tar_sdist_with_links_devices_and_a_top_folder(tmp_path):
    archive = tmp_path / "textkit-1.0.tar.gz"
    with tarfile.open(archive, "w:gz") as tf:
        for rel, text in [("textkit-1.0/src/textkit/__init__.py", "def f():\n    pass\n"),
                          ("textkit-1.0/README.md", "# Textkit\n\nhello\n")]:
            info = tarfile.TarInfo(rel)
            info.size = len(text)
            tf.addfile(info, io.BytesIO(text.encode()))
        for kind, name in ((tarfile.SYMTYPE, "textkit-1.0/evil.py"),
                           (tarfile.LNKTYPE, "textkit-1.0/hard.py"),
                           (tarfile.CHRTYPE, "textkit-1.0/dev.py")):
            info = tarfile.TarInfo(name)
            info.type = kind
            info.linkname = "/etc/passwd"
            tf.addfile(info)
    out = str(tmp_path / "out.zip")
    normalise_archive(str(archive), out, ArchiveLimits(), strip_top=True)
    assert members(out) == ["README.md", "src/textkit/__init__.py"]


def test_size_caps_refuse_bombs_and_skip_big_members(tmp_path):
    archive = tmp_path / "bomb.zip"
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("pkg/big.py", "#" * 5000)
        zf.writestr("pkg/small.py", "x = 1")
        for n in range(3):
            zf.writestr(f"pkg/m{n}.py", "#" * 900)
    out = str(tmp_path / "out.zip")
    normalise_archive(str(archive), out, ArchiveLimits(max_file_bytes=1000))
    assert "pkg/big.py" not in members(out)  # the big member is skipped, not truncated
    assert "pkg/small.py" in members(out)
    with pytest.raises(ArchiveRefused, match="inflates past"):
        normalise_archive(str(archive), str(tmp_path / "x.zip"),
                          ArchiveLimits(max_file_bytes=1000, max_inflated_bytes=3000))
    with pytest.raises(ArchiveRefused, match="bytes of sources"):
        normalise_archive(str(archive), str(tmp_path / "y.zip"),
                          ArchiveLimits(max_total_bytes=3))
    assert not (tmp_path / "x.zip").exists() and not (tmp_path / "y.zip").exists()


def test_damaged_archives_are_refused_with_a_message(tmp_path):
    junk = tmp_path / "junk.whl"
    junk.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ArchiveRefused):
        normalise_archive(str(junk), str(tmp_path / "out.zip"), ArchiveLimits())
    assert [p.name for p in tmp_path.iterdir()] == ["junk.whl"]  # no temp file left behind


def test_archive_tree_walks_and_reads_members_safely(tmp_path):
    wheel = build_wheel(tmp_path, "textkit", "1.0", TEXTKIT_V1)
    out = str(tmp_path / "cache.zip")
    normalise_archive(wheel, out, ArchiveLimits())
    tree = ArchiveTree(out)
    walked = tree.walk()
    assert [w.path for w in walked][:2] == ["textkit-1.0.dist-info/METADATA",
                                            "textkit/__init__.py"]
    assert all(w.status is None and w.size and w.mtime_ns for w in walked)
    read = tree.read("ignored", "textkit/slug.py", 1 << 20)
    assert read.data == TEXTKIT_V1["textkit/slug.py"].encode()
    assert tree.read("", "../textkit/slug.py", 1 << 20).status == "skipped:unsafe_path"
    assert tree.read("", "textkit/slug.py", 10).status == "skipped:too_large"
    assert tree.read("", "nope.py", 100).status == "error:vanished"
    tree.close()

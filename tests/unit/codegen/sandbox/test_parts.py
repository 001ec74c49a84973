"""The sandbox's parts on their own: protections and policy, uid leases, the disk watcher."""

from __future__ import annotations

import os

import pytest

from codemem.codegen.sandbox.landlock import abi_version
from codemem.codegen.sandbox.protect import LAYERS, Protections, SandboxPolicy
from codemem.codegen.sandbox.seccomp import load_library
from codemem.codegen.sandbox.watch import UID_BASE, DiskWatch, UidLease, uid_pool

DOCKER_NO_NS = {"netns": False, "pidns": False, "uid_dropped": True, "uid": UID_BASE + 7,
                "landlock": 3, "landlock_net": False, "landlock_scoped": False,
                "seccomp": "seccomp (69 rules)", "subreaper": True, "rlimits": True,
                "nproc": True, "disk_quota_mb": 512}


def test_protections_of_a_docker_run_without_namespaces():
    got = Protections.from_setup(DOCKER_NO_NS)
    assert got.missing(list(LAYERS)) == []
    assert "Landlock ABI 3" in got.files.detail and "seccomp" in got.network.detail
    assert "own uid" in got.cleanup.detail or "uid" in got.cleanup.detail
    assert got.summary().startswith("files=on network=on")


def test_each_missing_protection_says_why_and_how():
    setup = dict(DOCKER_NO_NS, landlock=0, landlock_error="the kernel has no Landlock",
                 seccomp="", seccomp_error="libseccomp.so.2 not found", uid_dropped=False,
                 uid=1000, nproc=False)
    got = Protections.from_setup(setup)
    assert got.missing(SandboxPolicy.require_all.required()) == [
        "files", "network", "host_processes", "cleanup", "limits"]
    assert "Linux 5.13+" in got.files.detail and "libseccomp2" in got.network.detail
    assert got.unprivileged.active and "1000" in got.unprivileged.detail
    assert "files: " in got.explain(["files", "network"])


def test_root_is_never_unprivileged_and_unknown_names_raise():
    assert not Protections.from_setup(dict(DOCKER_NO_NS, uid=0, uid_dropped=False)
                                      ).unprivileged.active
    assert Protections.from_setup(None).notes
    with pytest.raises(ValueError):
        Protections().missing(["magic"])


def test_policies_name_their_requirements():
    assert SandboxPolicy.require_isolation.required() == ("files", "network")
    assert SandboxPolicy.require_all.required() == LAYERS
    assert SandboxPolicy.allow_weaker.required() == ()


def test_uid_pool_fits_the_uid_map(tmp_path):
    full = tmp_path / "full"
    full.write_text("         0          0 4294967295\n")
    assert uid_pool(str(full)) == range(UID_BASE, UID_BASE + 100_000)
    remapped = tmp_path / "remapped"  # a user-namespaced Docker maps 65,536 uids
    remapped.write_text("         0     100000      65536\n")
    pool = uid_pool(str(remapped))
    assert pool is not None and pool.stop <= 65534 and pool.start >= 1000
    assert uid_pool(str(tmp_path / "missing")) is None


def test_a_uid_lease_is_exclusive(tmp_path):
    pool = range(UID_BASE + 10, UID_BASE + 12)
    first, second, third = (UidLease(pool, str(tmp_path / "locks")) for _ in range(3))
    a, b = first.acquire(), second.acquire()
    assert {a, b} == set(pool)
    with pytest.raises(OSError):
        third.acquire(attempts=8)
    first.release()
    assert third.acquire() == a
    second.release()
    third.release()


def test_disk_watch_counts_the_tree_and_deleted_open_files(tmp_path):
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "sub" / "a.bin").write_bytes(b"x" * (3 << 20))
    watch = DiskWatch(str(work), limit_mb=4)
    assert watch.check([]) == ""
    with open(work / "hidden.bin", "wb") as hidden:
        os.unlink(work / "hidden.bin")
        hidden.write(b"y" * (2 << 20))
        hidden.flush()
        os.fsync(hidden.fileno())
        assert watch.check([]) == ""  # invisible in the tree ...
        assert "disk quota exceeded" in watch.check([os.getpid()])  # ... seen through /proc
    assert watch.peak >= 5 << 20


def test_the_host_offers_landlock_and_libseccomp_or_says_why():
    abi, reason = abi_version()
    assert abi > 0 or reason
    lib, why = load_library()
    assert lib is not None or "libseccomp2" in why

"""Concurrent writers lose nothing and never surface "database is locked"."""

from __future__ import annotations

import threading

from codemem.memory.system import MemorySystem

from .child_scripts import WRITER, spawn
from .helpers import async_llm


def run_in_threads(work, count: int = 8) -> None:
    """Run ``work(t)`` for t in range(count) in threads and wait (bounded) for all."""
    threads = [threading.Thread(target=work, args=(t,)) for t in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)


def test_eight_threads_sharing_one_system(tmp_path):
    ids: list[str] = []
    errors: list[BaseException] = []
    lock = threading.Lock()
    with MemorySystem(async_llm(), str(tmp_path / "m.db")) as system:

        def work(t: int) -> None:
            try:
                for i in range(40):
                    memory_id = system.add_memory(f"thread {t} item {i}", {"t": t})
                    if i % 10 == 0:
                        system.update_memory(memory_id, metadata={"t": t, "u": i})
                    with lock:
                        ids.append(memory_id)
            except BaseException as err:  # noqa: BLE001 - reported below
                errors.append(err)

        run_in_threads(work)
        assert errors == []
        assert len(set(ids)) == 320 and system.count_memories() == 320
        assert all(system.get_memory(i) is not None for i in ids)


def test_eight_threads_with_their_own_connections(tmp_path):
    path = str(tmp_path / "m.db")
    errors: list[BaseException] = []
    created: list[str] = []
    lock = threading.Lock()

    def work(t: int) -> None:
        try:
            with MemorySystem(async_llm(), path) as system:
                batch = system.add_memories([f"conn {t} item {i}" for i in range(30)])
                single = [system.add_memory(f"conn {t} single {i}") for i in range(10)]
                with lock:
                    created.extend(batch + single)
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)

    run_in_threads(work)
    assert errors == []
    with MemorySystem(async_llm(), path) as system:
        assert system.count_memories() == 320 == len(set(created))
        assert system._store.integrity_check() == "ok"


def test_two_processes_writing_the_same_file(tmp_path):
    path = str(tmp_path / "shared.db")
    procs = [spawn(tmp_path / name, WRITER, path, name, "250")
             for name in ("p1", "p2") if (tmp_path / name).mkdir() is None]
    outputs = [p.communicate(timeout=120) for p in procs]
    for proc, (_, err) in zip(procs, outputs, strict=True):
        assert proc.returncode == 0, err
        assert "locked" not in err.lower()
    acked = [line for out, _ in outputs for line in out.split()]
    assert len(acked) == 500 == len(set(acked))
    with MemorySystem(async_llm(), path) as system:
        assert system.count_memories() == 500
        for tag in ("p1", "p2"):
            texts = {m["text"] for m in system.list_memories({"tag": tag})}
            assert texts == {f"{tag} memory {i}" for i in range(250)}
        assert all(system.get_memory(i) is not None for i in acked)

"""Source of the child processes used by the concurrency and crash tests.

They are written into the test's tmp_path at run time (never stored as .py fixtures in the repo)
and import the plugin through the same ``codemem`` mount as the tests.
"""

from __future__ import annotations

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[4]

PRELUDE = f"""
import sys
sys.path.insert(0, {str(ROOT)!r})
from tests import mount
mount()
from codemem.memory.system import MemorySystem

async def llm(prompt):
    return '{{"score": 1, "reason": "x"}}'
"""

WRITER = PRELUDE + """
db, tag, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
system = MemorySystem(llm, db)
for i in range(n):
    print(system.add_memory(f"{tag} memory {i}", {"tag": tag, "i": i}), flush=True)
system.close()
"""

CRASHER = PRELUDE + """
db, tag = sys.argv[1], sys.argv[2]
system = MemorySystem(llm, db)
print("ready", flush=True)
i = 0
while True:
    i += 1
    memory_id = system.add_memory(f"{tag} single {i}", {"tag": tag, "i": i})
    print("add", memory_id, f"{tag} single {i}", flush=True)
    if i % 5 == 0:
        texts = [f"{tag} batch {i} {j}" for j in range(20)]
        for memory_id, text in zip(system.add_memories(texts), texts):
            print("add", memory_id, text, flush=True)
    if i % 3 == 0:
        print("try", memory_id, f"{tag} updated {i}", flush=True)
        system.update_memory(memory_id, text=f"{tag} updated {i}")
        print("upd", memory_id, f"{tag} updated {i}", flush=True)
"""


def spawn(tmp_path: pathlib.Path, source: str, *args: str) -> subprocess.Popen:
    script = tmp_path / "child_memory_script.txt"
    script.write_text(source, encoding="utf-8")
    return subprocess.Popen([sys.executable, str(script), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)

"""A small indexed repository in a real manifest, and a real Cat-shaped Qdrant collection."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient

from codemem.memory.codeindex.manifest import CodeManifest, EntityRow, FileRow
from codemem.memory.codeindex.vector_sink import CatVectorSink, point_id
from codemem.memory.embedding import HashingEmbedder

from .catlike import CatLikeCollection

DIM = 16
REPO = "repo-1"
EMBEDDER = HashingEmbedder(DIM)
ENTITIES = [  # path, qualified name, kind, signature, start line
    ("pkg/a.py", "parse", "function", "def parse(text):", 1),
    ("pkg/a.py", "Parser", "class", "class Parser:", 5),
    ("pkg/a.py", "Parser.feed", "method", "def feed(self, chunk):", 6),
    ("pkg/b.py", "render", "function", "def render(tree):", 1),
]


def metadata(path: str, name: str, kind: str, signature: str, line: int) -> dict[str, Any]:
    return {"type": "code_entity", "repo_id": REPO, "path": path, "qualified_name": name,
            "name": name.rsplit(".", 1)[-1], "kind": kind, "language": "python",
            "signature": signature, "start_line": line, "end_line": line + 2,
            "entity_hash": f"h-{name}"}


class World:
    """A manifest holding ``ENTITIES`` (no vectors stored) and their memory texts."""

    def __init__(self, tmp_path: Path) -> None:
        self.manifest = CodeManifest(str(tmp_path / "code.db"))
        self.manifest.upsert_repo(REPO, str(tmp_path), EMBEDDER.name, DIM)
        self.memories: dict[str, tuple[str, dict[str, Any]]] = {}
        rows = []
        for n, (path, name, kind, signature, line) in enumerate(ENTITIES):
            mid = f"mem-{n}"
            self.memories[mid] = (f"{signature}\n    ...", metadata(path, name, kind, signature,
                                                                    line))
            rows.append(EntityRow(mid, path, name, 0, f"h-{name}",
                                  point_id(REPO, path, name), None))

        def write(conn: Any) -> None:
            for path in sorted({e[0] for e in ENTITIES}):
                CodeManifest.put_file(conn, REPO, FileRow(path, f"f-{path}", "python",
                                                          "indexed", 10, 1, 3, ()))
            CodeManifest.put_entities(conn, REPO, rows)
        self.manifest.transaction(write)

    def payloads(self, repo_id: str, memory_ids: Any) -> list[tuple[str, str, dict[str, Any]]]:
        return [(mid, *self.memories[mid]) for mid in memory_ids if mid in self.memories]


def cat_sink() -> tuple[CatVectorSink, QdrantClient, CatLikeCollection]:
    client = QdrantClient(":memory:")
    collection = CatLikeCollection(client, "declarative", "E", DIM)
    return CatVectorSink(collection), client, collection


def point_ids(client: QdrantClient) -> set[str]:
    records, _ = client.scroll(collection_name="declarative", limit=1000)
    return {str(r.id) for r in records}


def payload_kinds(client: QdrantClient) -> dict[str, str]:
    records, _ = client.scroll(collection_name="declarative", limit=1000, with_payload=True)
    return {r.payload["metadata"]["path"]: r.payload["metadata"]["kind"] for r in records}

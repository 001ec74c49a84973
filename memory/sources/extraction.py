"""The indexer's extraction seam for a source: parse, keep what a caller needs, cap, label.

Code goes through the project's crash-contained parsing pool, documentation through the
section splitter; then each file's entities are reduced to the public surface (as API
reference texts) and the per-source entity cap is applied in walk order, so that when a big
library hits the cap it is the private and deep parts that are left out, deterministically,
each left-out file with a ``skipped:entity_cap`` status.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace

from ..code_context import DOCUMENTATION, SOURCE_ENTITY
from ..codeindex.walk import ExtractorFn
from ..extract.entities import INDEXED, CodeEntity, FileExtraction
from .docs import docs_language, extract_docs
from .public import PublicSurface, surface_entities
from .trees import ModuleLayout

ENTITY_CAP = "skipped:entity_cap"


class SourceExtractor:
    """``ExtractorFn`` for one source run; remembers counts, caps and public names."""

    def __init__(self, inner: ExtractorFn, *, layout: ModuleLayout, surface: PublicSurface,
                 order: Mapping[str, int], budget: Callable[[set[str]], int],
                 max_file_bytes: int) -> None:
        self.inner, self.layout, self.surface = inner, layout, surface
        self.order, self.budget, self.max_file_bytes = order, budget, max_file_bytes
        #: Entities kept per extracted file, and the files the cap left out.
        self.counts: dict[str, int] = {}
        self.capped: set[str] = set()
        self.public_names: dict[tuple[str, str, int], str] = {}

    def __call__(self, items: Iterable[tuple[str, bytes]]) -> Iterator[FileExtraction]:
        docs: list[FileExtraction] = []

        def code(pairs: Iterable[tuple[str, bytes]]) -> Iterator[tuple[str, bytes]]:
            for path, data in pairs:
                if is_doc(path):
                    docs.append(extract_docs(path, data, self.max_file_bytes))
                else:
                    yield path, data

        results = list(self.inner(code(items))) + docs
        results.sort(key=lambda r: (self.order.get(r.path, len(self.order)), r.path))
        left = self.budget({r.path for r in results})
        for result in results:
            if result.status != INDEXED:
                self.counts[result.path] = 0
                yield result
                continue
            kept = self._reduce(result)
            if self.capped or len(kept) > left:
                self.capped.add(result.path)
                self.counts[result.path] = 0
                yield replace(result, status=ENTITY_CAP, entities=(),
                              detail="over the source's entity cap")
                continue
            left -= len(kept)
            self.counts[result.path] = len(kept)
            yield replace(result, entities=tuple(kept))

    def _reduce(self, result: FileExtraction) -> list[CodeEntity]:
        if is_doc(result.path):
            return list(result.entities)
        module = self.layout.module(result.path)
        kept = []
        for entity, name in surface_entities(result.entities, module, self.surface):
            self.public_names[(entity.path, entity.qualified_name, entity.occurrence)] = name
            kept.append(entity)
        return kept


def is_doc(path: str) -> bool:
    return docs_language(path) is not None


def labeller(extractor: SourceExtractor, *, name: str, version: str,
             kind: str) -> Callable[[CodeEntity], dict[str, str]]:
    """The ``labels`` seam: every entity names its source and version; sections become
    documentation memories, code becomes source entities with the name a caller uses."""
    base = {"source_name": name, "source_version": version, "source_kind": kind}

    def labels(entity: CodeEntity) -> dict[str, str]:
        if entity.kind == "section":
            category = f"{name} {version} docs".replace("  ", " ")
            return {**base, "type": DOCUMENTATION, "title": f"{name}: {entity.qualified_name}",
                    "category": category, "file_path": entity.path}
        key = (entity.path, entity.qualified_name, entity.occurrence)
        return {**base, "type": SOURCE_ENTITY,
                "public_name": extractor.public_names.get(key, entity.qualified_name)}

    return labels

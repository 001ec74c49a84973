"""extraction: a source's seam parses code and docs, keeps the public surface, caps, labels."""

from __future__ import annotations

from codemem.memory.extract.api import extract_file
from codemem.memory.sources.extraction import ENTITY_CAP, SourceExtractor, is_doc, labeller
from codemem.memory.sources.public import PublicSurface
from codemem.memory.sources.trees import ModuleLayout

FILES = {
    "lib/api.py": b"def run():\n    pass\n\n\ndef _hidden():\n    pass\n",
    "lib/more.py": b"def extra():\n    pass\n\n\ndef again():\n    pass\n",
    "README.md": b"# Lib\n\nIntro.\n\n## Usage\n\nCall run.\n",
}
SURFACE = PublicSurface({("lib.api", "run"): "lib.run", ("lib.more", "extra"): "lib.extra",
                         ("lib.more", "again"): "lib.more.again"})


def _extractor(budget: int, order: dict[str, int]) -> SourceExtractor:
    def inner(items):
        return [extract_file(path, data) for path, data in items]

    return SourceExtractor(inner, layout=ModuleLayout(), surface=SURFACE, order=order,
                           budget=lambda paths: budget, max_file_bytes=1 << 20)


def test_is_doc():
    assert is_doc("README.md") and is_doc("docs/guide.rst") and is_doc("PKG-INFO")
    assert not is_doc("lib/api.py")


def test_code_keeps_the_public_surface_and_docs_their_sections():
    extractor = _extractor(100, {"lib/api.py": 0, "README.md": 1, "lib/more.py": 2})
    results = list(extractor(FILES.items()))
    assert [r.path for r in results] == ["lib/api.py", "README.md", "lib/more.py"]  # walk order
    api, readme, more = results
    assert [e.qualified_name for e in api.entities] == ["run"]  # ``_hidden`` left out
    assert api.entities[0].source.startswith("from lib import run\n")
    assert readme.engine == "docs" and len(readme.entities) == 2
    assert extractor.counts == {"lib/api.py": 1, "README.md": 2, "lib/more.py": 2}
    assert extractor.public_names[("lib/api.py", "run", 0)] == "lib.run"
    assert not extractor.capped


def test_the_cap_leaves_out_whole_files_from_the_end():
    extractor = _extractor(3, {"lib/api.py": 0, "README.md": 1, "lib/more.py": 2})
    more = list(extractor(FILES.items()))[-1]
    assert more.status == ENTITY_CAP and more.entities == ()
    assert extractor.capped == {"lib/more.py"} and extractor.counts["lib/more.py"] == 0


def test_labels_name_the_source_and_the_callers_name():
    extractor = _extractor(100, {})
    results = {r.path: r for r in extractor(FILES.items())}
    api, readme = results["lib/api.py"], results["README.md"]
    labels = labeller(extractor, name="lib", version="1.0", kind="pip")
    assert labels(api.entities[0]) == {
        "source_name": "lib", "source_version": "1.0", "source_kind": "pip",
        "type": "source_entity", "public_name": "lib.run"}
    section = labels(readme.entities[0])
    assert section["type"] == "documentation" and section["category"] == "lib 1.0 docs"
    assert section["title"].startswith("lib: ") and section["file_path"] == "README.md"

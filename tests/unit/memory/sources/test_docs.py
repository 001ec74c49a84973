"""Documentation files split into sections named by their heading paths."""

from __future__ import annotations

from codemem.memory.sources.docs import MAX_SECTION_CHARS, extract_docs

from .library import metadata

MARKDOWN = """Intro text before any heading.

# Guide

Welcome.

## Install

Run `pip install textkit`.

```python
# this is code, not a heading
print("hi")
```

Setext title
------------

Body under a setext heading.

## Empty

### Deep

Deep text.
"""


def names(result):
    return [e.qualified_name for e in result.entities]


def test_markdown_sections_with_heading_paths_and_code_fences_respected():
    result = extract_docs("docs/guide.md", MARKDOWN.encode(), 1 << 20)
    assert result.status == "indexed" and result.language == "markdown"
    assert names(result) == ["guide.md", "Guide", "Guide > Install", "Guide > Setext title",
                             "Guide > Empty > Deep"]
    install = result.entities[2]
    assert "print(\"hi\")" in install.source and install.source.startswith("Guide > Install")
    assert install.kind == "section" and install.start_line == 7


def test_rest_titles_with_underlines_and_overlines():
    text = ("=====\nTitle\n=====\n\nIntro.\n\nUsage\n-----\n\nCall it.\n\n"
            "Details\n~~~~~~~\n\nMore.\n\nOther\n-----\n\nLast.\n")
    result = extract_docs("docs/index.rst", text.encode(), 1 << 20)
    assert names(result) == ["Title", "Title > Usage", "Title > Usage > Details",
                             "Title > Other"]


def test_package_metadata_description_and_summary():
    result = extract_docs("textkit-1.0.dist-info/METADATA",
                          metadata("textkit", "1.0").encode(), 1 << 20)
    assert names(result) == ["package description", "Textkit", "Textkit > Slugs"]
    assert result.entities[0].source == "package description\n\nSmall text helpers"
    assert "textkit.slugify(title)" in result.entities[2].source


def test_long_sections_are_split_and_duplicates_numbered():
    paragraph = "word " * 400
    text = "# Big\n\n" + "\n\n".join([paragraph] * 8) + "\n\n# Big\n\nagain\n"
    result = extract_docs("big.md", text.encode(), 1 << 20)
    parts = [e for e in result.entities if e.qualified_name.startswith("Big")]
    assert len(parts) >= 3 and all(len(e.source) <= MAX_SECTION_CHARS + 20 for e in parts)
    assert [e.occurrence for e in parts if e.qualified_name == "Big"] == [0, 1]


def test_binary_oversized_and_foreign_files_get_a_status():
    assert extract_docs("a.md", b"\x00\x01", 100).status == "skipped:binary"
    assert extract_docs("a.md", b"x" * 200, 100).status == "skipped:too_large"
    assert extract_docs("a.txt", b"text", 100).status == "skipped:unsupported_language"

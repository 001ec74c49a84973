"""Documentation files of a source as sections (heading + text): Markdown, reStructuredText and a
package's description (``METADATA`` / ``PKG-INFO``).

Why sections and not files: a question about one function of a library should retrieve the
paragraph that explains it, not a 3,000-line README. Each section becomes a documentation memory
through the same incremental indexer as code (the section is an entity whose qualified name is
its heading path), so unchanged sections keep their vectors. Pure text processing: nothing here
runs or renders the documents.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from email.parser import HeaderParser
from pathlib import PurePosixPath

from ..extract.decode import decode_source
from ..extract.entities import INDEXED, CodeEntity, FileExtraction, sha256_hex, skipped

MARKDOWN = "markdown"
REST = "restructuredtext"
DOC_SUFFIXES = {".md": MARKDOWN, ".markdown": MARKDOWN, ".rst": REST}
METADATA_NAMES = ("METADATA", "PKG-INFO")

#: A section longer than this is split into parts at paragraph boundaries.
MAX_SECTION_CHARS = 6000
#: Sections kept per file at most (a generated API dump can have thousands).
MAX_SECTIONS = 400

_ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_ADORNMENT = re.compile(r"""^([=\-`:'"~^_*+#<>.])\1{2,}[ \t]*$""")


@dataclass(frozen=True)
class Heading:
    """A heading found at ``line`` (0-based index of its first line), ``span`` lines long."""

    line: int
    level: int
    title: str
    span: int


def docs_language(path: str) -> str | None:
    """``markdown``/``restructuredtext`` for a documentation file, ``metadata`` for a
    package description, None for anything else."""
    pure = PurePosixPath(path)
    if pure.name in METADATA_NAMES:
        return "metadata"
    return DOC_SUFFIXES.get(pure.suffix.lower())


def extract_docs(path: str, data: bytes, max_bytes: int) -> FileExtraction:
    """The sections of one documentation file, as a ``FileExtraction`` like the code parsers'."""
    language = docs_language(path)
    # The fields every outcome shares; each return below states its own status on a copy.
    head = FileExtraction(path=path, status="", file_hash=sha256_hex(data), size=len(data))
    if language is None:
        return replace(head, status=skipped("unsupported_language"))
    if len(data) > max_bytes:
        return replace(head, status=skipped("too_large"), language=language,
                       detail=f"{len(data)} bytes > limit {max_bytes}")
    decoded = decode_source(data, language)
    if decoded.text is None:
        return replace(head, status=decoded.reason or "error:decode", language=language,
                       detail=decoded.detail)
    text = decoded.text.replace("\r\n", "\n").replace("\r", "\n")
    intro = PurePosixPath(path).name
    if language == "metadata":
        text, language = package_description(text)
        intro = "package description"
    lines = text.split("\n")
    headings = (markdown_headings(lines) if language == MARKDOWN else rest_headings(lines))
    entities = tuple(sections(path, language, lines, headings, intro))[:MAX_SECTIONS]
    return replace(head, status=INDEXED, language=language, entities=entities,
                   line_count=len(lines), engine="docs")


def package_description(text: str) -> tuple[str, str]:
    """The long description of a ``METADATA``/``PKG-INFO`` file and its markup language."""
    head, _, body = text.partition("\n\n")
    headers = HeaderParser().parsestr(head + "\n\n")
    payload = headers.get_payload()  # the text after the headers: a HeaderParser never splits it
    body = body or (payload if isinstance(payload, str) else "")
    if not body.strip():
        body = str(headers.get("Description", "") or "")
    summary = str(headers.get("Summary", "") or "").strip()
    content_type = str(headers.get("Description-Content-Type", "") or "").lower()
    markdown = "markdown" in content_type or (
        "rst" not in content_type and re.search(r"^#{1,6} ", body, re.M) is not None)
    if summary:
        body = f"{summary}\n\n{body}"
    return body, MARKDOWN if markdown else REST


def markdown_headings(lines: list[str]) -> list[Heading]:
    """ATX (``# x``) and setext (``x`` over ``===``) headings outside fenced code blocks."""
    found: list[Heading] = []
    fence = ""
    for i, line in enumerate(lines):
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = ""
            continue
        if opened:
            fence = opened.group(1)
            continue
        atx = _ATX.match(line)
        if atx and (atx.group(2) or "").strip():
            found.append(Heading(i, len(atx.group(1)), atx.group(2).strip(), 1))
            continue
        setext = _SETEXT.match(line)
        previous = lines[i - 1].strip() if i else ""
        if setext and previous and not _is_block_start(lines[i - 1]) and (
                not found or found[-1].line != i - 1):
            level = 1 if setext.group(1)[0] == "=" else 2
            found.append(Heading(i - 1, level, previous, 2))
    return found


def _is_block_start(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith(("- ", "* ", "+ ", "> ", "|", "#")) or line.startswith("    ")


def rest_headings(lines: list[str]) -> list[Heading]:
    """reST section titles (underlined, optionally overlined); levels in order of first use."""
    styles: list[tuple[str, bool]] = []
    found: list[Heading] = []
    i = 0
    while i < len(lines) - 1:
        title, under = lines[i], lines[i + 1]
        over = i > 0 and _ADORNMENT.match(lines[i - 1]) is not None and (
            lines[i - 1].strip()[0] == under.strip()[:1])
        if (title.strip() and not title[0].isspace() and not _ADORNMENT.match(title)
                and _ADORNMENT.match(under) and len(under.rstrip()) >= len(title.rstrip())):
            style = (under.strip()[0], bool(over))
            if style not in styles:
                styles.append(style)
            start = i - 1 if over else i
            found.append(Heading(start, styles.index(style) + 1, title.strip(), 3 if over else 2))
            i += 2
            continue
        i += 1
    return found


def sections(path: str, language: str, lines: list[str], headings: list[Heading],
             intro: str) -> Iterator[CodeEntity]:
    """One entity per section (parts of long sections are numbered); heading paths as names.
    Text before the first heading is a section named ``intro``."""
    bounds = [(h, h.line, (headings[n + 1].line if n + 1 < len(headings) else len(lines)))
              for n, h in enumerate(headings)]
    first = headings[0].line if headings else len(lines)
    if "\n".join(lines[:first]).strip():
        bounds.insert(0, (Heading(0, 0, intro, 0), 0, first))
    trail: list[Heading] = []
    seen: dict[str, int] = {}
    for heading, start, end in bounds:
        if heading.level:
            trail = [h for h in trail if h.level < heading.level] + [heading]
        name = " > ".join(h.title for h in trail)[:300] if heading.level else intro
        body = "\n".join(lines[start + heading.span:end]).strip()
        if not body:
            continue
        for part, (text, offset) in enumerate(_parts(body), start=1):
            qualified = name if part == 1 else f"{name} (part {part})"
            occurrence = seen.get(qualified, 0)
            seen[qualified] = occurrence + 1
            source = f"{name}\n\n{text}"
            yield CodeEntity(
                path=path, language=language, kind="section", name=heading.title[:200],
                qualified_name=qualified, signature=name, source=source,
                start_line=start + 1 + offset, end_line=end, content_hash=sha256_hex(source),
                occurrence=occurrence)


def _parts(body: str) -> Iterator[tuple[str, int]]:
    """``(text, line offset)`` chunks of at most ``MAX_SECTION_CHARS``, cut between paragraphs
    (or hard, for one giant paragraph)."""
    if len(body) <= MAX_SECTION_CHARS:
        yield body, 0
        return
    chunk: list[str] = []
    size, offset, line = 0, 0, 0
    for paragraph in body.split("\n\n"):
        while len(paragraph) > MAX_SECTION_CHARS:
            if chunk:
                yield "\n\n".join(chunk), offset
                chunk, size = [], 0
            yield paragraph[:MAX_SECTION_CHARS], line
            paragraph = paragraph[MAX_SECTION_CHARS:]
        if chunk and size + len(paragraph) > MAX_SECTION_CHARS:
            yield "\n\n".join(chunk), offset
            chunk, size, offset = [], 0, line
        chunk.append(paragraph)
        size += len(paragraph) + 2
        line += paragraph.count("\n") + 2
    if chunk:
        yield "\n\n".join(chunk), offset

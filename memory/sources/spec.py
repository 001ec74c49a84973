"""What the user configured as associative sources: the setting text parsed into typed sources.

Why a parser of its own: the setting is free text typed in the admin panel or in chat ("add
source ..."), so every item that cannot be used must come back as a problem naming the item and
what to write instead, never as an exception or a silently ignored line.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from .git_url import GitUrl, looks_like_url, parse_git_url, redact

FOLDER = "folder"
PIP = "pip"
DEPENDENCY = "dependency"
GIT = "git"

_SEPARATORS = re.compile(r"[\n,]")
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://", re.I)


@dataclass(frozen=True)
class FolderSource:
    """A local folder: another repository, a vendored library, a docs folder."""

    path: str
    name: str

    kind = FOLDER

    @property
    def repo_id(self) -> str:
        """The source's namespace in the store: stable for the same real folder."""
        digest = hashlib.sha256(os.path.realpath(self.path).encode("utf-8", "surrogateescape"))
        return f"src-dir-{_slug(self.name)}-{digest.hexdigest()[:10]}"

    @property
    def spec(self) -> str:
        return self.path


@dataclass(frozen=True)
class PipSource:
    """A Python distribution (``pip:NAME``, ``pip:NAME==VERSION``, or a declared dependency)."""

    name: str
    #: A PEP 440 specifier ("" for any version), e.g. ``==2.32.3`` or ``>=2,<3``.
    specifier: str = ""
    #: ``pip`` when the user listed it, ``dependency`` when the repository declares it.
    origin: str = PIP

    @property
    def kind(self) -> str:
        return self.origin

    @property
    def repo_id(self) -> str:
        """Stable across versions, so that a new version replaces the old entities."""
        return f"src-pip-{_slug(self.name)}"

    @property
    def spec(self) -> str:
        return f"pip:{self.name}{self.specifier}"


@dataclass(frozen=True)
class UrlSource:
    """A repository by URL (``https://``, ``http://``, ``ssh://``, ``user@host:path``,
    ``file://``) at an optional ref: cloned shallowly into the data folder, then indexed like a
    folder. ``spec`` keeps the URL's credentials (the setting's text); ``label`` never does."""

    location: GitUrl
    name: str

    kind = GIT

    @property
    def repo_id(self) -> str:
        """The URL and ref without credentials, hashed: a new ref is a new source."""
        return f"src-git-{_slug(self.name)}-{self.location.key}"

    @property
    def spec(self) -> str:
        return self.location.spec

    @property
    def ref(self) -> str:
        return self.location.ref


Source = FolderSource | PipSource | UrlSource


def source_label(source: Source) -> str:
    """How a source is shown anywhere (chat, status, REST, logs): its spec, with a URL's
    credentials replaced by ``***``. The one function for it."""
    return source.location.display if isinstance(source, UrlSource) else source.spec


@dataclass(frozen=True)
class ParsedSources:
    """The usable sources, in setting order, and one message per item that is not usable."""

    sources: tuple[Source, ...] = ()
    problems: tuple[str, ...] = ()


def canonical_name(name: str) -> str:
    """PEP 503 normalised distribution name (``Foo_Bar.baz`` -> ``foo-bar-baz``)."""
    return re.sub(r"[-_.]+", "-", name).lower().strip("-")


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9_-]+", "_", text.lower()).strip("_")[:40] or "source"


def split_items(text: str) -> list[str]:
    """Items of the setting: one per line, commas also accepted; ``#`` starts a comment."""
    items: list[str] = []
    for line in str(text or "").splitlines():
        line = line.split(" #", 1)[0].strip()
        if line.startswith("#"):
            continue
        items.extend(part.strip() for part in _SEPARATORS.split(line) if part.strip())
    return items


def parse_pip(item: str, origin: str = PIP) -> PipSource:
    """``NAME``, ``NAME==1.0`` or ``NAME>=1,<2`` (extras and markers dropped) as a source.

    Raises ``ValueError`` with the reason when it is not a requirement.
    """
    from packaging.requirements import InvalidRequirement, Requirement

    try:
        requirement = Requirement(item.strip())
    except InvalidRequirement as err:
        raise ValueError(f"not a package requirement ({err})") from None
    if requirement.url:
        raise ValueError("direct URLs are not fetched: use a name and a version")
    return PipSource(canonical_name(requirement.name), str(requirement.specifier), origin)


def parse_item(item: str, file_roots: Sequence[str] = ()) -> Source:
    """One item of the setting as a source; ``ValueError`` saying what to write instead
    (``file_roots``: the folders ``file://`` URLs may name)."""
    if "\x00" in item:
        raise ValueError("contains a NUL byte")
    if item.lower().startswith("pip:"):
        return parse_pip(item[4:])
    if _URL.match(item) or looks_like_url(item):
        location = parse_git_url(item, file_roots=file_roots)
        return UrlSource(location, location.name)
    path = os.path.expanduser(item)
    if not os.path.isabs(path):
        raise ValueError("use an absolute folder path (e.g. /workspace/other-repo) "
                         "or pip:NAME")
    path = os.path.normpath(path)
    return FolderSource(path, os.path.basename(path.rstrip(os.sep)) or "root")


def parse_sources(text: str, file_roots: Sequence[str] = ()) -> ParsedSources:
    """Every item of the setting text; duplicates collapse, folder names stay unique."""
    sources: list[Source] = []
    problems: list[str] = []
    for item in split_items(text):
        try:
            source = parse_item(item, file_roots)
        except ValueError as err:
            problems.append(f"`{redact(item)[:120]}`: {err}")
            continue
        sources.append(source)
    return ParsedSources(unique_sources(sources), tuple(problems))


def unique_sources(sources: Iterable[Source]) -> tuple[Source, ...]:
    """First occurrence wins (same folder, same distribution); folder names made unique."""
    out: list[Source] = []
    seen_keys: set[str] = set()
    names: set[str] = set()
    for source in sources:
        key = source.repo_id if not isinstance(source, PipSource) else f"pip:{source.name}"
        if key in seen_keys:
            continue
        seen_keys.add(key)
        if isinstance(source, FolderSource):
            source = FolderSource(source.path, _unique(source.name, names))
        elif isinstance(source, UrlSource):
            source = UrlSource(source.location, _unique(source.name, names))
        names.add(source.name)
        out.append(source)
    return tuple(out)


def _unique(name: str, taken: set[str]) -> str:
    if name not in taken:
        return name
    n = 2
    while f"{name}-{n}" in taken:
        n += 1
    return f"{name}-{n}"


def find_source(sources: Iterable[Source], text: str) -> Source | None:
    """The source a user means by ``text``: its name, its spec, its folder or its package."""
    wanted = text.strip()
    as_path = os.path.normpath(os.path.expanduser(wanted)) if wanted else ""
    package = re.split(r"[=<>!~;\[ ]", wanted.removeprefix("pip:"), maxsplit=1)[0]
    as_package = canonical_name(package)
    for source in sources:
        if wanted in (source.name, source.spec, source_label(source)):
            return source
        if isinstance(source, UrlSource) and wanted in (source.location.url,
                                                        redact(source.location.url)):
            return source
        if isinstance(source, FolderSource) and source.path == as_path:
            return source
        if isinstance(source, PipSource) and source.name == as_package:
            return source
    return None


def format_sources(sources: Iterable[Source]) -> str:
    """The setting text for ``sources`` (one per line), as ``add``/``remove`` write it back."""
    return "\n".join(source.spec for source in sources)

"""Associative memory: other repositories, libraries and docs the drafts learn from.

Sources are parsed from the settings (``spec``), resolved to trees (``trees``,
``distributions``, ``archives``, ``package_index``), indexed into the project's code memory
under their own namespace (``indexing``), and looked up for validation (``api_lookup``).
Nothing from a source is ever imported or executed.
"""

from .api_lookup import ApiAnswer, ApiTable
from .catalog import SourceCatalog, SourceRow
from .declared import Declared, declared_dependencies
from .distributions import SourceUnavailable
from .indexing import AssociativeMemory, SourceOptions, SourceResult
from .package_index import PackageIndex, PackageIndexError, configured_index
from .spec import (
    FolderSource,
    ParsedSources,
    PipSource,
    Source,
    find_source,
    format_sources,
    parse_item,
    parse_sources,
)

__all__ = [
    "ApiAnswer",
    "ApiTable",
    "AssociativeMemory",
    "Declared",
    "FolderSource",
    "PackageIndex",
    "PackageIndexError",
    "ParsedSources",
    "PipSource",
    "Source",
    "SourceCatalog",
    "SourceOptions",
    "SourceResult",
    "SourceRow",
    "SourceUnavailable",
    "configured_index",
    "declared_dependencies",
    "find_source",
    "format_sources",
    "parse_item",
    "parse_sources",
]

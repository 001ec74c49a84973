"""Framework-free memory core: the memory API, the code index, the draft history, the scratchpad.

Never imports ``cat``. This is the package's one entry point: the glue (``app/``) and users
import its public names from here (``from ..memory import CodeMemorySystem``), never from its
modules, so what the core offers is this list. The names resolve lazily and are never cached
here (``llm/exports.py`` says why): importing the package is cheap and has no side effects, and
after the Cat re-imports the plugin every name is the current import's. The ``TYPE_CHECKING``
block gives the type checker the same names; a test keeps it equal to ``_EXPORTS``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..llm.exports import lazy_exports

_EXPORTS: dict[str, str] = {
    # errors
    "CodeMemoryError": ".errors",
    "StoreCorrupt": ".errors",
    "TaskNotFound": ".errors",
    # the memory API (docs/memory-api.md) and its defaults (one table)
    "MEMORY_DEFAULTS": ".defaults",
    "CODE_MEMORY_DEFAULTS": ".defaults",
    "MemorySystem": ".system",
    "SyncMemorySystem": ".synchronous",
    "CodeMemorySystem": ".codebase",
    "CodeContext": ".code_context",
    "SOURCE_ENTITY": ".code_context",
    "Filters": ".store.support",
    "Metadata": ".store.support",
    "Candidate": ".retrieval.results",
    "ScoredMemory": ".retrieval.results",
    "Embedder": ".embedding",
    "HashingEmbedder": ".embedding",
    # the scratchpad
    "Scratchpad": ".scratchpad",
    "ScratchpadError": ".scratchpad",
    # the code index and the Cat's declarative memory
    "LANGUAGES": ".extract.languages",
    "read_file_safely": ".extract.walker",
    "walk_repository": ".extract.walker",
    "EXTRACT_WORKER_MARKER": ".extract.pool",
    "IndexProgress": ".codeindex.records",
    "WalkedFile": ".codeindex.records",
    "default_walker": ".codeindex.walk",
    "watch_changes": ".codeindex.watch",
    "watch_source": ".codeindex.watch",
    "WATCH_DEFAULTS": ".codeindex.watch",
    "Impact": ".codeindex.impact",
    "SinkMode": ".codeindex.sink_sync",
    "CatVectorSink": ".codeindex.vector_sink",
    "NamedEmbedder": ".codeindex.vector_sink",
    "is_code_point": ".codeindex.vector_sink",
    "VectorCollection": ".codeindex.vector_sink",
    # the draft history
    "CommitIndex": ".commits.index",
    "CommitInfo": ".commits.info",
    "is_good": ".commits.message",
    # the user's repository
    "check_repository_root": ".repository.root",
    "WriteBackRefused": ".repository.writeback",
    "write_back": ".repository.writeback",
    # associative sources
    "AssociativeMemory": ".sources.indexing",
    "SourceOptions": ".sources.indexing",
    "SourceResult": ".sources.indexing",
    "SourceRow": ".sources.catalog",
    "ApiTable": ".sources.api_lookup",
    "declared_dependencies": ".sources.declared",
    "configured_index": ".sources.package_index",
    "FolderSource": ".sources.spec",
    "UrlSource": ".sources.spec",
    "Source": ".sources.spec",
    "source_label": ".sources.spec",
    "redact": ".sources.git_url",
    "CLONE_DEFAULTS": ".sources.clone",
    "CLONE_WORKER": ".sources.clone",
    "CloneLimits": ".sources.clone",
    "find_source": ".sources.spec",
    "format_sources": ".sources.spec",
    "parse_item": ".sources.spec",
    "parse_sources": ".sources.spec",
    "split_items": ".sources.spec",
    "unique_sources": ".sources.spec",
}

__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__package__ or __name__, _EXPORTS)

if TYPE_CHECKING:
    from .code_context import SOURCE_ENTITY as SOURCE_ENTITY
    from .code_context import CodeContext as CodeContext
    from .codebase import CodeMemorySystem as CodeMemorySystem
    from .codeindex.impact import Impact as Impact
    from .codeindex.records import IndexProgress as IndexProgress
    from .codeindex.records import WalkedFile as WalkedFile
    from .codeindex.sink_sync import SinkMode as SinkMode
    from .codeindex.vector_sink import CatVectorSink as CatVectorSink
    from .codeindex.vector_sink import NamedEmbedder as NamedEmbedder
    from .codeindex.vector_sink import VectorCollection as VectorCollection
    from .codeindex.vector_sink import is_code_point as is_code_point
    from .codeindex.walk import default_walker as default_walker
    from .codeindex.watch import WATCH_DEFAULTS as WATCH_DEFAULTS
    from .codeindex.watch import watch_changes as watch_changes
    from .codeindex.watch import watch_source as watch_source
    from .commits.index import CommitIndex as CommitIndex
    from .commits.info import CommitInfo as CommitInfo
    from .commits.message import is_good as is_good
    from .defaults import CODE_MEMORY_DEFAULTS as CODE_MEMORY_DEFAULTS
    from .defaults import MEMORY_DEFAULTS as MEMORY_DEFAULTS
    from .embedding import Embedder as Embedder
    from .embedding import HashingEmbedder as HashingEmbedder
    from .errors import CodeMemoryError as CodeMemoryError
    from .errors import StoreCorrupt as StoreCorrupt
    from .errors import TaskNotFound as TaskNotFound
    from .extract.languages import LANGUAGES as LANGUAGES
    from .extract.pool import EXTRACT_WORKER_MARKER as EXTRACT_WORKER_MARKER
    from .extract.walker import read_file_safely as read_file_safely
    from .extract.walker import walk_repository as walk_repository
    from .repository.root import check_repository_root as check_repository_root
    from .repository.writeback import WriteBackRefused as WriteBackRefused
    from .repository.writeback import write_back as write_back
    from .retrieval.results import Candidate as Candidate
    from .retrieval.results import ScoredMemory as ScoredMemory
    from .scratchpad import Scratchpad as Scratchpad
    from .scratchpad import ScratchpadError as ScratchpadError
    from .sources.api_lookup import ApiTable as ApiTable
    from .sources.catalog import SourceRow as SourceRow
    from .sources.clone import CLONE_DEFAULTS as CLONE_DEFAULTS
    from .sources.clone import CLONE_WORKER as CLONE_WORKER
    from .sources.clone import CloneLimits as CloneLimits
    from .sources.declared import declared_dependencies as declared_dependencies
    from .sources.git_url import redact as redact
    from .sources.indexing import AssociativeMemory as AssociativeMemory
    from .sources.indexing import SourceOptions as SourceOptions
    from .sources.indexing import SourceResult as SourceResult
    from .sources.package_index import configured_index as configured_index
    from .sources.spec import FolderSource as FolderSource
    from .sources.spec import Source as Source
    from .sources.spec import UrlSource as UrlSource
    from .sources.spec import find_source as find_source
    from .sources.spec import format_sources as format_sources
    from .sources.spec import parse_item as parse_item
    from .sources.spec import parse_sources as parse_sources
    from .sources.spec import source_label as source_label
    from .sources.spec import split_items as split_items
    from .sources.spec import unique_sources as unique_sources
    from .store.support import Filters as Filters
    from .store.support import Metadata as Metadata
    from .synchronous import SyncMemorySystem as SyncMemorySystem
    from .system import MemorySystem as MemorySystem

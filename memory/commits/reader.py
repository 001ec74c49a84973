"""Reading the history: commit headers (cached), full drafts, ancestry walks.

Commits are immutable, so parsed headers are cached by id for the life of the index; that makes a
``log`` of a 1,000-commit task a dictionary walk after the first call. Anything missing or
unparsable while walking from a ref is corruption and is reported with the object named.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import replace

from .backend import Backend
from .errors import CommitNotFound, RepositoryCorrupt
from .info import CommitInfo, info_from_raw
from .message import decode_json, digest
from .names import RESERVED_ROOT_NAMES
from .objects import parse_commit, parse_tree

MAX_CACHED = 100_000


class HistoryReader:
    """Read-side of the index over one backend (callers hold the index's mutex)."""

    def __init__(self, backend: Backend) -> None:
        self._backend = backend
        self._infos: dict[str, CommitInfo] = {}

    def _read(self, sha: str, kind: str) -> bytes:
        try:
            found, body = self._backend.read_object(sha)
        except KeyError:
            if kind == "commit":
                raise CommitNotFound(f"no commit {sha} in this history") from None
            raise RepositoryCorrupt(f"{kind} {sha} is missing from the history") from None
        if found != kind:
            raise CommitNotFound(f"{sha} is a {found}, not a {kind}")
        return body

    def info(self, sha: str) -> CommitInfo:
        """Header fields of a commit (cached)."""
        cached = self._infos.get(sha)
        if cached is None:
            cached = info_from_raw(parse_commit(sha, self._read(sha, "commit")))
            if len(self._infos) >= MAX_CACHED:
                self._infos.clear()
            self._infos[sha] = cached
        return cached

    def at_ref(self, ref: str, sha: str) -> CommitInfo:
        """``info`` for the target of a ref: a dangling ref is corruption, not "not found"."""
        try:
            return self.info(sha)
        except CommitNotFound as err:
            raise RepositoryCorrupt(
                f"{ref} points to {sha}, which is not a readable commit"
            ) from err

    def tree_bytes(self, sha: str) -> dict[str, bytes]:
        """Every file of a commit's tree, including ``metacode.json``/``working_memory.json``."""
        body = self._read(sha, "commit")
        out: dict[str, bytes] = {}
        stack = [("", parse_commit(sha, body).tree)]
        while stack:
            prefix, tree = stack.pop()
            for is_tree, name, child in parse_tree(tree, self._read(tree, "tree")):
                if is_tree:
                    stack.append((f"{prefix}{name}/", child))
                else:
                    out[prefix + name] = self._read(child, "blob")
        return out

    def full(self, sha: str) -> CommitInfo:
        """``info`` plus files, meta-code and the snapshot (its digest verified)."""
        head = self.info(sha)
        blobs = self.tree_bytes(sha)
        try:
            meta, snap = blobs.pop("metacode.json"), blobs.pop("working_memory.json")
        except KeyError as err:
            raise RepositoryCorrupt(f"commit {sha} lacks {err.args[0]}") from err
        if digest(snap) != head.snapshot_digest:
            raise RepositoryCorrupt(f"commit {sha}: working_memory.json does not match its digest")
        try:
            files = {path: data.decode("utf-8") for path, data in blobs.items()}
        except UnicodeDecodeError as err:
            raise RepositoryCorrupt(f"commit {sha} holds a file that is not UTF-8: {err}") from err
        return replace(
            head,
            files=files,
            metacode=decode_json(sha, "metacode.json", meta),
            snapshot=decode_json(sha, "working_memory.json", snap),
        )

    def files(self, sha: str) -> dict[str, str]:
        """The draft files of a commit (text), without the index's own JSON files."""
        blobs = self.tree_bytes(sha)
        return {
            p: d.decode("utf-8", "replace")
            for p, d in blobs.items()
            if p not in RESERVED_ROOT_NAMES
        }

    def chain(self, head: str) -> Iterator[CommitInfo]:
        """First-parent history from ``head``, newest first (the task's own line)."""
        sha: str | None = head
        while sha is not None:
            info = self.info(sha)
            yield info
            sha = info.parent

    def reachable(self, heads: Iterable[str]) -> dict[str, CommitInfo]:
        """Every commit reachable from ``heads`` through any parent."""
        seen: dict[str, CommitInfo] = {}
        stack = list(heads)
        while stack:
            sha = stack.pop()
            if sha in seen:
                continue
            info = self.info(sha)
            seen[sha] = info
            stack.extend(p for p in info.parents if p not in seen)
        return seen

    def is_ancestor(self, ancestor: str, head: str) -> bool:
        """True when ``ancestor`` is ``head`` or reachable from it."""
        return ancestor in self.reachable([head])

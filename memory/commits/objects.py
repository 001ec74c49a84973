"""Git object encoding shared by both backends: blobs, trees and commits as raw bytes.

Building the objects here (instead of in dulwich or GitPython) means both backends store the very
same bytes, so the same draft at the same second gets the same commit id on either backend, and the
format that ``git fsck --strict`` checks is decided in one place. Backends only persist and fetch
``(type, body)`` pairs.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

from .errors import InvalidDraft, RepositoryCorrupt

IDENTITY = "Code Working Memory <codemem@localhost>"
FILE_MODE = b"100644"
TREE_MODE = b"40000"


@dataclass(frozen=True)
class RawObject:
    """One loose object to write: its type (``blob``/``tree``/``commit``), body and id."""

    kind: str
    body: bytes
    sha: str


@dataclass(frozen=True)
class RawCommit:
    """The parsed header and message of a commit object."""

    sha: str
    tree: str
    parents: tuple[str, ...]
    time: int
    message: str


def make_object(kind: str, body: bytes) -> RawObject:
    """Hash ``body`` as git does (``<type> <len>\\0<body>``)."""
    header = f"{kind} {len(body)}\0".encode("ascii")
    return RawObject(kind, body, hashlib.sha1(header + body).hexdigest())


def _nest(files: Mapping[str, bytes]) -> dict[str, object]:
    root: dict[str, object] = {}
    for path in sorted(files):
        node = root
        parts = path.split("/")
        for part in parts[:-1]:
            child = node.setdefault(part, {})
            if not isinstance(child, dict):
                raise InvalidDraft(f"path {path!r} needs {part!r} to be a folder, but it is a file")
            node = child
        if parts[-1] in node:
            raise InvalidDraft(f"path {path!r} is both a file and a folder in the draft")
        node[parts[-1]] = files[path]
    return root


def _tree(node: dict[str, object], out: list[RawObject]) -> str:
    entries: list[tuple[bytes, bytes, bytes]] = []
    for name, value in node.items():
        raw_name = name.encode("utf-8")
        if isinstance(value, dict):
            sha, mode, key = _tree(value, out), TREE_MODE, raw_name + b"/"
        else:
            assert isinstance(value, bytes)
            blob = make_object("blob", value)
            out.append(blob)
            sha, mode, key = blob.sha, FILE_MODE, raw_name
        entries.append((key, mode + b" " + raw_name + b"\0", bytes.fromhex(sha)))
    entries.sort(key=lambda entry: entry[0])  # git orders a folder "x" as "x/"
    tree = make_object("tree", b"".join(head + sha for _, head, sha in entries))
    out.append(tree)
    return tree.sha


def build_tree(files: Mapping[str, bytes]) -> tuple[str, list[RawObject]]:
    """Return the root tree id and every blob/tree object needed (children before parents)."""
    out: list[RawObject] = []
    return _tree(_nest(files), out), out


def build_commit(tree: str, parents: tuple[str, ...], message: str, when: int) -> RawObject:
    """Commit object with the fixed identity, UTC timestamps and ``message`` verbatim."""
    lines = [f"tree {tree}"] + [f"parent {p}" for p in parents]
    lines += [f"author {IDENTITY} {when} +0000", f"committer {IDENTITY} {when} +0000"]
    return make_object("commit", ("\n".join(lines) + "\n\n" + message).encode("utf-8"))


def parse_commit(sha: str, body: bytes) -> RawCommit:
    """Parse a commit body; anything unexpected is reported as corruption, naming the commit."""
    try:
        head, _, message = body.partition(b"\n\n")
        tree, parents, when = "", [], 0
        for line in head.decode("utf-8").split("\n"):
            key, _, value = line.partition(" ")
            if key == "tree":
                tree = value
            elif key == "parent":
                parents.append(value)
            elif key == "committer":
                when = int(value.rsplit(" ", 2)[1])
        if not tree:
            raise ValueError("no tree header")
        return RawCommit(sha, tree, tuple(parents), when, message.decode("utf-8"))
    except (ValueError, IndexError) as err:
        raise RepositoryCorrupt(f"commit {sha} cannot be parsed: {err}") from err


def parse_tree(sha: str, body: bytes) -> list[tuple[bool, str, str]]:
    """Return ``(is_tree, name, sha)`` entries of a tree body."""
    entries, pos = [], 0
    try:
        while pos < len(body):
            space = body.index(b" ", pos)
            nul = body.index(b"\0", space)
            mode, name = body[pos:space], body[space + 1 : nul].decode("utf-8")
            entries.append((mode == TREE_MODE, name, body[nul + 1 : nul + 21].hex()))
            pos = nul + 21
    except ValueError as err:
        raise RepositoryCorrupt(f"tree {sha} cannot be parsed: {err}") from err
    return entries

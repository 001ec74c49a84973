"""Pure helpers of the SQLite store: timestamps, canonical metadata, content hashes, mounts.

Kept apart from ``memory_store.py`` so they can be tested (and reused) without a database.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

#: Metadata as the user gave it: any JSON-able mapping (``Any``: JSON values of any shape)
Metadata = Mapping[str, Any]
#: A JSON object the API hands back or takes (metadata, ``get_memory`` dicts, statistics)
JSONDict = dict[str, Any]
#: A metadata filter (JSON values; the grammar is ``retrieval.compile_filter``'s)
Filters = Mapping[str, Any]

NETWORK_FS_PREFIXES = ("nfs", "cifs", "smb", "9p", "virtiofs", "fuse", "ceph", "glusterfs")


def utc_now() -> str:
    """ISO 8601 UTC timestamp with microseconds, e.g. ``2026-11-21T12:00:00.000000+00:00``."""
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def canonical_json(metadata: Metadata | None) -> str:
    """Metadata as sorted, strict JSON; ``ValueError`` for non-JSON values or NaN."""
    if metadata is None:
        return "{}"
    if not isinstance(metadata, Mapping):
        raise ValueError(f"metadata must be a dict or None, got {type(metadata).__name__}")
    try:
        return json.dumps(dict(metadata), sort_keys=True, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as err:
        raise ValueError(f"metadata is not JSON-serialisable: {err}") from err


def content_hash(text: str, metadata_json: str) -> str:
    """Identity of a memory's content: exact duplicates and score-cache keys use it."""
    return hashlib.sha256(f"{text}\x00{metadata_json}".encode()).hexdigest()


def journal_mode_for(path: str, mountinfo: str | None = None) -> str:
    """``"wal"`` unless the file's mount is a network/VM-shared filesystem (then ``"delete"``)."""
    if path == ":memory:":
        return "memory"
    if mountinfo is None:
        try:
            with open("/proc/self/mountinfo", encoding="utf-8", errors="replace") as fh:
                mountinfo = fh.read()
        except OSError:
            return "wal"
    target = os.path.realpath(os.path.dirname(os.path.abspath(path)))
    best, fstype = "", ""
    for line in mountinfo.splitlines():
        fields = line.split(" - ", 1)
        head = fields[0].split()
        if len(fields) < 2 or len(head) < 5:
            continue
        mount_point = head[4].replace("\\040", " ")
        inside = target == mount_point or target.startswith(mount_point.rstrip("/") + "/")
        if inside and len(mount_point) >= len(best):
            best, fstype = mount_point, fields[1].split()[0]
    return "delete" if fstype.lower().startswith(NETWORK_FS_PREFIXES) else "wal"

"""Validation of every name that reaches git: task ids, ref names, file paths, commit ids.

Task ids, paths and commit ids come from users and from the LLM, so they are treated as hostile:
nothing unvalidated is ever turned into a ref name, a tree entry or a git argument. The checks are
allow-lists where possible (task ids, commit ids) and git's own rules where not (ref names follow
``git check-ref-format``; paths follow ``verify_path`` plus our stricter limits).
"""

from __future__ import annotations

import hashlib
import re

from ..errors import UnsafeInput

TASK_ID_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")
COMMIT_ID_RE = re.compile(r"[0-9a-fA-F]{7,40}")
FULL_SHA_RE = re.compile(r"[0-9a-f]{40}")
MAX_PATH = 4096
#: Tree entries the index writes itself at the root of every commit.
RESERVED_ROOT_NAMES = frozenset({"metacode.json", "working_memory.json"})
_REF_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]")
_PATH_FORBIDDEN = re.compile(r"[\x00-\x1f\x7f\\]")


def _show(value: object) -> str:
    """Name the offending value in a message without flooding the log with 1 MB strings."""
    text = repr(value)
    return text if len(text) <= 120 else text[:117] + "..."


def check_task_id(task_id: object) -> str:
    """Return ``task_id`` if it is a safe task id, else raise ``UnsafeInput``.

    Allowed: 1-100 of ``[A-Za-z0-9._-]``, starting with a letter or digit, no ``..``, not ending in
    ``.`` or ``.lock``. No ``/``: a task id is exactly one ref component, so ``tasks/a`` and
    ``tasks/a/b`` can never collide (git cannot hold both). Use ``slug_task_id`` for free text.
    """
    if not isinstance(task_id, str) or TASK_ID_RE.fullmatch(task_id) is None:
        raise UnsafeInput(f"unsafe task id {_show(task_id)}: use 1-100 of [A-Za-z0-9._-]")
    if ".." in task_id or task_id.endswith((".", ".lock")):
        raise UnsafeInput(f"unsafe task id {_show(task_id)}: no '..', no trailing '.' or '.lock'")
    return task_id


def slug_task_id(text: str) -> str:
    """Map free text (a scratchpad task id, a title) to a valid, stable task id.

    Text that is already valid is returned unchanged; anything else becomes a slug plus a short hash
    of the original, so two different inputs never share a history.
    """
    try:
        return check_task_id(text)
    except UnsafeInput:
        pass
    slug = re.sub(r"[^A-Za-z0-9._-]+", "-", text).strip(".-_")
    slug = re.sub(r"\.{2,}", ".", slug)[:80].rstrip(".-_") or "task"
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return check_task_id(f"{slug}-{digest}")


def check_ref_name(ref: object) -> str:
    """Apply the ten rules of ``git check-ref-format`` (multi-level names only)."""
    if not isinstance(ref, str) or not ref or len(ref) > 1024:
        raise UnsafeInput(f"unsafe ref name {_show(ref)}")
    problems = (
        _REF_FORBIDDEN.search(ref) is not None,
        ".." in ref,
        "@{" in ref,
        ref == "@",
        ref.startswith("/") or ref.endswith(("/", ".")) or "//" in ref,
        "/" not in ref,
        any(part.startswith(".") or part.endswith(".lock") for part in ref.split("/")),
    )
    if any(problems):
        raise UnsafeInput(f"unsafe ref name {_show(ref)}: violates git check-ref-format")
    return ref


def check_path(path: object) -> str:
    """Return ``path`` if it is a safe repository-relative file path, else raise ``UnsafeInput``.

    Refused: non-strings, empty, absolute, leading ``-``, backslashes, control characters (NUL, CR,
    LF...), empty/``.``/``..`` components, ``.git`` or ``.gitmodules`` in any case (and their
    trailing-dot/space spellings that Windows and macOS fold), and the two reserved root names.
    """
    if not isinstance(path, str) or not path or len(path) > MAX_PATH:
        raise UnsafeInput(f"unsafe path {_show(path)}: must be a non-empty relative path")
    if path.startswith(("/", "-")) or _PATH_FORBIDDEN.search(path) is not None:
        raise UnsafeInput(f"unsafe path {_show(path)}: absolute, option-like or control characters")
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        raise UnsafeInput(f"unsafe path {_show(path)}: not valid UTF-8") from None
    for part in path.split("/"):
        folded = part.casefold().rstrip(". ")
        if part in ("", ".", "..") or folded in (".git", ".gitmodules", "git~1"):
            raise UnsafeInput(f"unsafe path {_show(path)}: component {_show(part)} is not allowed")
    if path in RESERVED_ROOT_NAMES:
        raise UnsafeInput(f"unsafe path {_show(path)}: reserved for the index's own files")
    return path


def check_commit_id(commit_id: object) -> str:
    """Return the lower-cased id if it is 7-40 hex digits, else raise ``UnsafeInput``.

    Revision syntax (``HEAD~1``, ``@{-1}``, ``main``) is refused on purpose: only object ids reach
    the object database, so no rev-parse machinery is ever exposed to untrusted text.
    """
    if not isinstance(commit_id, str) or COMMIT_ID_RE.fullmatch(commit_id) is None:
        raise UnsafeInput(f"unsafe commit id {_show(commit_id)}: use 7-40 hex digits")
    return commit_id.lower()


def task_ref(task_id: str) -> str:
    """``refs/heads/tasks/<task id>``: the branch holding a task's drafts."""
    return check_ref_name(f"refs/heads/tasks/{check_task_id(task_id)}")


def undo_prefix(task_id: str) -> str:
    """Refs that keep rolled-back heads reachable, one per rollback, for ``redo``."""
    return f"refs/codemem/undo/{check_task_id(task_id)}/"


def attic_prefix(task_id: str) -> str:
    """Refs keeping abandoned redo entries reachable after a new commit (history is never lost)."""
    return f"refs/codemem/attic/{check_task_id(task_id)}/"


def final_ref(task_id: str) -> str:
    """``refs/tags/final/<task id>``: the draft the user accepted."""
    return check_ref_name(f"refs/tags/final/{check_task_id(task_id)}")

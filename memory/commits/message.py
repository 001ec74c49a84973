"""Commit message and JSON payload format: what makes one commit enough to replay its state.

Message layout (git's own conventions, so ``git log`` and ``git interpret-trailers`` read it)::

    <name>                          one line
                                    blank
    <reason>                        free text, may span paragraphs (omitted when empty)
                                    blank
    Task: <task id>                 trailers: always the last paragraph
    Iteration: <n>
    Verdict: <verdict>
    Snapshot-Digest: sha256:<hex of working_memory.json>

The trailer block is always written by us and always last, so a reason that itself contains
``Key: value`` lines or blank lines parses back unchanged.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from ..errors import UnsafeInput
from .errors import InvalidDraft, RepositoryCorrupt, UnknownVerdict
from .names import check_path
from .objects import RawObject, build_tree

MAX_NAME = 200
MAX_REASON = 64 * 1024
MAX_JSON = 16 * 1024 * 1024
#: What a stored ``Verdict:`` trailer may hold (old repositories: any such label).
VERDICT_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9 _.:/+-]{0,79}")


class Verdict(str, Enum):
    """How a draft commit was judged: the one vocabulary of the ``Verdict:`` trailer.

    A new commit must carry one of these (``check_verdict``); the stored text is the value.
    Commits written by older versions may hold any label: they still parse, their verdict is
    kept as text, and a label that is not a member is never good (``is_good``).
    """

    #: The draft passed every check.
    PASSED = "passed"
    #: The draft was rejected by validation (kept: what was tried and why it failed).
    FAILED = "failed"
    #: The user's own files, the first commit of a task: always a safe baseline.
    IMPORTED = "imported"
    #: The task's final draft (the documented one, after the extended steps).
    FINAL = "final"
    #: A good commit written by earlier versions; still a rollback target.
    COMMITTED = "committed"

    def __str__(self) -> str:  # the value, as stored, on every Python (3.12 changed format())
        return self.value

    @property
    def good(self) -> bool:
        """A rollback target: everything but a rejected draft."""
        return self is not Verdict.FAILED

    @classmethod
    def of(cls, label: str) -> Verdict | None:
        """The member a label names (case and outer spaces ignored); None for any other."""
        try:
            return cls(label.strip().lower())
        except ValueError:
            return None


#: Verdicts that make a commit a rollback target ("good"); compared case-insensitively.
GOOD_VERDICTS = frozenset(v for v in Verdict if v.good)


@dataclass(frozen=True)
class Trailers:
    """The machine-readable part of a message."""

    task_id: str
    iteration: int
    verdict: str
    snapshot_digest: str


def is_good(verdict: str) -> bool:
    """True for the verdicts listed in ``GOOD_VERDICTS``; a stored label that is not a
    ``Verdict`` (an old free-form one) is never good."""
    known = Verdict.of(verdict)
    return known is not None and known.good


def normalize_name(name: object) -> str:
    """One line, whitespace collapsed, at most ``MAX_NAME`` characters; NUL is refused."""
    if not isinstance(name, str):
        raise InvalidDraft(f"commit name must be a string, got {type(name).__name__}")
    if "\0" in name:
        raise UnsafeInput(f"commit name {name[:60]!r} contains NUL")
    line = " ".join(name.split())
    if not line:
        raise InvalidDraft("commit name is empty")
    return line if len(line) <= MAX_NAME else line[: MAX_NAME - 1] + "…"


def normalize_reason(reason: object) -> str:
    """Newlines normalised to LF and outer whitespace stripped; NUL and >64 KiB are refused."""
    if not isinstance(reason, str):
        raise InvalidDraft(f"commit reason must be a string, got {type(reason).__name__}")
    if "\0" in reason:
        raise UnsafeInput(f"commit reason {reason[:60]!r} contains NUL")
    text = reason.replace("\r\n", "\n").replace("\r", "\n").strip()
    if len(text) > MAX_REASON:
        raise InvalidDraft(f"commit reason is {len(text)} characters; the limit is {MAX_REASON}")
    return text


def check_verdict(verdict: object) -> Verdict:
    """The ``Verdict`` a new commit carries: a member, or its value in any case (mapped here,
    the one place a label becomes a verdict). Anything else is refused: a free-form label
    (``pass``, ``failed:syntax``) would be stored and never count as good."""
    if isinstance(verdict, Verdict):
        return verdict
    if not isinstance(verdict, str) or VERDICT_RE.fullmatch(verdict) is None:
        raise UnsafeInput(f"unsafe verdict {str(verdict)[:60]!r}: use 1-80 of [A-Za-z0-9 _.:/+-]")
    known = Verdict.of(verdict)
    if known is None:
        raise UnknownVerdict(f"unknown verdict {verdict!r}; use one of "
                             f"{', '.join(v.value for v in Verdict)}")
    return known


def format_message(name: str, reason: str, trailers: Trailers) -> str:
    """Render a message from already-normalised parts."""
    block = (
        f"Task: {trailers.task_id}\nIteration: {trailers.iteration}\n"
        f"Verdict: {trailers.verdict}\nSnapshot-Digest: {trailers.snapshot_digest}\n"
    )
    return f"{name}\n\n{reason}\n\n{block}" if reason else f"{name}\n\n{block}"


def parse_message(sha: str, message: str) -> tuple[str, str, Trailers]:
    """Inverse of ``format_message``; a message we did not write is reported as corruption."""
    head, sep, block = message.rstrip("\n").rpartition("\n\n")
    fields = dict(line.partition(": ")[::2] for line in block.split("\n"))
    try:
        trailers = Trailers(
            fields["Task"], int(fields["Iteration"]), fields["Verdict"], fields["Snapshot-Digest"]
        )
    except (KeyError, ValueError) as err:
        raise RepositoryCorrupt(f"commit {sha} has no codemem trailers ({err})") from err
    name, _, reason = head.partition("\n\n")
    return name, reason, trailers


def encode_json(kind: str, value: object) -> bytes:
    """Canonical JSON (sorted keys, 2-space indent, UTF-8) that must round-trip exactly.

    Tuples, non-string keys, NaN or objects would come back different, so they are refused here
    rather than silently changed: a restored snapshot must equal the one committed.
    """
    if not isinstance(value, dict):
        raise InvalidDraft(f"{kind} must be a dict, got {type(value).__name__}")
    try:
        text = json.dumps(value, sort_keys=True, indent=2, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as err:
        raise InvalidDraft(f"{kind} is not plain JSON data: {err}") from err
    if json.loads(text) != value:
        raise InvalidDraft(f"{kind} does not survive a JSON round trip (tuples or non-str keys?)")
    try:
        data = (text + "\n").encode("utf-8", "strict")
    except UnicodeEncodeError as err:
        raise InvalidDraft(f"{kind} holds text that is not valid UTF-8: {err}") from err
    if len(data) > MAX_JSON:
        raise InvalidDraft(f"{kind} is {len(data)} bytes; the limit is {MAX_JSON}")
    return data


def decode_json(sha: str, kind: str, data: bytes) -> dict[str, Any]:
    """Parse a stored payload; failure means the repository was damaged."""
    try:
        value = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as err:
        raise RepositoryCorrupt(f"commit {sha}: {kind} is not valid JSON: {err}") from err
    if not isinstance(value, dict):
        raise RepositoryCorrupt(f"commit {sha}: {kind} is not a JSON object")
    return value


def digest(data: bytes) -> str:
    """``sha256:<hex>``, the Snapshot-Digest trailer value."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def encode_draft(
    files: Mapping[str, str], metacode: dict[str, Any], snapshot: dict[str, Any]
) -> tuple[str, list[RawObject], bytes]:
    """Validate a draft and build its tree: ``(tree id, objects to write, snapshot bytes)``."""
    if not isinstance(files, Mapping):
        raise InvalidDraft(f"files must be a mapping of path -> text, got {type(files).__name__}")
    blobs: dict[str, bytes] = {}
    for path, text in files.items():
        check_path(path)
        if not isinstance(text, str):
            raise InvalidDraft(f"file {path!r} must be text (str), got {type(text).__name__}")
        try:
            blobs[path] = text.encode("utf-8")
        except UnicodeEncodeError as err:
            raise InvalidDraft(f"file {path!r} is not encodable as UTF-8: {err}") from err
    snap = encode_json("snapshot", snapshot)
    blobs["metacode.json"] = encode_json("metacode", metacode)
    blobs["working_memory.json"] = snap
    tree, objects = build_tree(blobs)
    return tree, objects, snap

"""A repository URL as an associative source: read, checked, and shown without its secrets.

Why a module of its own: a URL typed in chat or in the settings reaches a git client, and a git
URL is a classic way in. ``ext::sh -c ...`` and ``fd::`` run commands or read descriptors,
``ssh://-oProxyCommand=...`` and ``--upload-pack=...`` are options in disguise, ``file://`` reads
any folder of the Cat's machine, and ``https://user:token@host`` carries a secret into every log
line that prints it. So a URL is accepted only in the five forms the plugin fetches
(``https://``, ``http://``, ``ssh://``, ``user@host:path`` and ``file://``, the last one only under
folders the admin allowed), every part is checked (no whitespace, no control character, nothing
that starts like an option), and ``redact`` is the one way a URL is ever shown: the credentials
of a URL leave it only towards the git client. No I/O but ``os.path.realpath`` for ``file://``.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

HTTP_SCHEMES = ("https", "http")
SCHEMES = (*HTTP_SCHEMES, "ssh", "file")
#: ``user@host:path`` (git's "scp-like" syntax): a user and a host, then the path.
_SCP = re.compile(r"^(?P<user>[A-Za-z0-9._~+-]+)@(?P<host>[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])"
                  r":(?P<path>.*)$")
_SCHEME = re.compile(r"^(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://")
#: ``transport::address``: git's remote helpers (``ext::``, ``fd::``, ``persistent-https::``).
_HELPER = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*::")
_HOST = re.compile(r"^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?"
                   r"(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])$")
#: What a ref (branch, tag, commit) may be: git's ref format, a bit stricter.
_REF = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._/+-]{0,199}$")
_PATH_CHARS = re.compile(r"^[A-Za-z0-9._~/+%:=,-]*$")
_HEX = re.compile(r"^[0-9a-f]{7,40}$")
#: What may look like a URL source (the spec parser asks before anything else).
_LOOKS_LIKE = re.compile(r"^(?:[A-Za-z][A-Za-z0-9+.-]*:(?://|:)|-|[^\s/@:]+@[^\s/:@]+:)")
_SECRET = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/@\s]*)@")


class UnsafeUrl(ValueError):
    """A URL the plugin refuses; the message says why and what to write instead."""


@dataclass(frozen=True)
class GitUrl:
    """A checked repository URL: what the git client gets (``url``, credentials included) and
    what everything else shows (``display``), the ``ref`` asked for ("" for the default branch)
    and the repository's ``name`` (its last path segment without ``.git``)."""

    url: str
    ref: str = ""
    scheme: str = "https"
    host: str = ""
    path: str = ""

    @property
    def name(self) -> str:
        tail = self.path.rstrip("/").rsplit("/", 1)[-1].rsplit(":", 1)[-1]
        return tail.removesuffix(".git") or self.host or "repository"

    @property
    def display(self) -> str:
        """The URL and ``@ref`` with the credentials replaced by ``***``."""
        return redact(self.url) + (f"@{self.ref}" if self.ref else "")

    @property
    def spec(self) -> str:
        """The setting's text for this source (credentials kept: the setting is the admin's)."""
        return self.url + (f"@{self.ref}" if self.ref else "")

    @property
    def has_credentials(self) -> bool:
        return redact(self.url) != self.url

    @property
    def key(self) -> str:
        """A stable key for the folder and the store namespace: never the credentials."""
        return hashlib.sha256(self.display.encode("utf-8", "surrogateescape")).hexdigest()[:10]


def looks_like_url(item: str) -> bool:
    """Whether ``item`` is meant as a URL (or dressed as one): the URL parser decides on it."""
    return bool(_LOOKS_LIKE.match(item.strip())) or "://" in item


def redact(text: str) -> str:
    """``text`` with the credentials of every URL in it replaced by ``***`` (for ssh, a user
    without a password is kept: ``git@`` is no secret)."""
    def hide(match: re.Match[str]) -> str:
        scheme, userinfo = match.group("scheme"), match.group("userinfo")
        if scheme.lower() == "ssh://" and ":" not in userinfo:
            return match.group(0)
        return f"{scheme}***@"
    return _SECRET.sub(hide, str(text))


def parse_git_url(item: str, *, file_roots: Sequence[str] = ()) -> GitUrl:
    """``item`` (a URL with an optional ``@ref``) as a ``GitUrl``; ``UnsafeUrl`` saying why
    not. ``file://`` URLs must name a folder under one of ``file_roots`` (symlinks resolved)."""
    text = item.strip()
    if _HELPER.match(text):
        raise UnsafeUrl(f"`{text.split('::', 1)[0]}::` URLs run git remote helpers (commands); "
                        "use https://, ssh://, user@host:path or an allowed file:// URL")
    if text.startswith("-"):
        raise UnsafeUrl("it starts with '-', like a command-line option "
                        "(e.g. --upload-pack=...): only a repository URL is accepted")
    if not text or any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in text):
        raise UnsafeUrl("a URL cannot hold spaces or control characters")
    scheme = _SCHEME.match(text)
    if scheme is None:
        return _scp(text)
    name = scheme.group("scheme").lower()
    if name not in SCHEMES:
        raise UnsafeUrl(f"`{name}://` URLs are not fetched; use https://, http://, ssh://, "
                        "user@host:path or an allowed file:// URL")
    if name == "file":
        return _file(text, file_roots)
    return _network(text, name)


def _network(text: str, scheme: str) -> GitUrl:
    parts = urlsplit(text)
    if parts.query or parts.fragment:
        raise UnsafeUrl("a repository URL has no ?query or #fragment")
    netloc = parts.netloc
    userinfo, _, hostport = netloc.rpartition("@")
    host = hostport
    port = ""
    if not host.startswith("[") and ":" in host or host.startswith("[") and "]:" in host:
        host, port = host.rsplit(":", 1)
    if port and not (port.isdigit() and 0 < int(port) < 65536):
        raise UnsafeUrl(f"`{port[:20]}` is not a port number")
    _check_host(host)
    if userinfo and unquote(userinfo).startswith("-"):
        raise UnsafeUrl("the user name starts with '-', like a command-line option")
    path, ref = _split_ref(parts.path)
    _check_path(path)
    base = f"{scheme}://{netloc}{path}"
    return GitUrl(base, ref, scheme, host, path)


def _scp(text: str) -> GitUrl:
    match = _SCP.match(text)
    if match is None:
        raise UnsafeUrl("not a repository URL: use https://host/owner/repo, "
                        "ssh://host/path, user@host:path or file:///folder")
    _check_host(match.group("host"))
    path, ref = _split_ref(match.group("path"))
    _check_path(path)
    url = f"{match.group('user')}@{match.group('host')}:{path}"
    return GitUrl(url, ref, "ssh", match.group("host"), path)


def _file(text: str, file_roots: Sequence[str]) -> GitUrl:
    parts = urlsplit(text)
    if parts.netloc not in ("", "localhost"):
        raise UnsafeUrl("a file:// URL names a folder of this machine: file:///path")
    if parts.query or parts.fragment:
        raise UnsafeUrl("a repository URL has no ?query or #fragment")
    raw, ref = _split_ref(unquote(parts.path))
    _check_path(raw)
    folder = os.path.normpath(raw)
    if not raw.startswith("/"):
        raise UnsafeUrl("a file:// URL needs an absolute path: file:///srv/repos/name")
    allowed = [os.path.realpath(r) for r in file_roots if r.strip()]
    if not allowed:
        raise UnsafeUrl("file:// URLs are switched off: the admin lists the folders they may "
                        "name in the setting *Sources: folders for file:// URLs*")
    real = os.path.realpath(folder)
    if not any(real == r or real.startswith(r.rstrip(os.sep) + os.sep) for r in allowed):
        raise UnsafeUrl(f"`{folder}` is outside the folders allowed for file:// URLs "
                        f"({', '.join(allowed)})")
    return GitUrl(f"file://{folder}", ref, "file", "", folder)


def _split_ref(path: str) -> tuple[str, str]:
    """``/owner/repo.git@v1.0`` -> (``/owner/repo.git``, ``v1.0``), the ref checked."""
    if "@" not in path:
        return path, ""
    base, _, ref = path.rpartition("@")
    if not _REF.match(ref) or ".." in ref or ref.endswith((".lock", "/", ".")) or "@{" in ref:
        raise UnsafeUrl(f"`@{ref[:60]}` is not a branch, tag or commit name")
    return base, ref


def _check_host(host: str) -> None:
    if not host:
        raise UnsafeUrl("the URL names no host")
    if host.startswith("-") or not _HOST.match(host):
        raise UnsafeUrl(f"`{host[:80]}` is not a host name")


def _check_path(path: str) -> None:
    if not _PATH_CHARS.match(path):
        raise UnsafeUrl("the path holds characters a repository path does not have (quotes, "
                        "backslashes, ...)")
    segments = [unquote(s) for s in path.replace(":", "/").split("/") if s]
    if not segments:
        raise UnsafeUrl("the URL names no repository (add its path, e.g. /owner/name)")
    if any(s.startswith("-") for s in segments):
        raise UnsafeUrl("a part of the path starts with '-', like a command-line option")
    if any(s == ".." for s in segments):
        raise UnsafeUrl("the path holds '..'")


def is_commit(ref: str) -> bool:
    """Whether ``ref`` can only be a commit id (hex, 7 to 40 digits)."""
    return bool(_HEX.match(ref))

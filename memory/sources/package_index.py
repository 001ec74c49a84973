"""Finding and downloading a distribution file from the configured package index (PEP 503/691).

Why a small client of our own instead of pip: pip would install (and run build backends); here
a file is only fetched, checked against the index's sha256 and read. Requests go only to the
configured index and to the file host it names (the index's own origin, or PyPI's file host for
pypi.org); a redirect elsewhere is refused. Pages and files are size-capped while reading.
"""

from __future__ import annotations

import base64
import configparser
import hashlib
import json
import os
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from html.parser import HTMLParser
from http.client import HTTPMessage
from typing import IO, Any

from ..errors import CodeMemoryError
from .spec import canonical_name

DEFAULT_INDEX = "https://pypi.org/simple"
#: Hosts that serve the files of an index at another origin.
FILE_HOSTS = {"pypi.org": ("https://files.pythonhosted.org",)}
MAX_PAGE_BYTES = 32 << 20
JSON_TYPE = "application/vnd.pypi.simple.v1+json"


class PackageIndexError(CodeMemoryError):
    """The package index could not be reached or did not offer a usable file."""


@dataclass(frozen=True)
class IndexFile:
    """One file the index lists for a project."""

    filename: str
    url: str
    sha256: str = ""
    yanked: bool = False
    requires_python: str = ""


def configured_index(setting: str = "", environ: dict[str, str] | None = None) -> str:
    """The index to use: the setting, else ``PIP_INDEX_URL``, else pip's config files, else
    PyPI."""
    env = os.environ if environ is None else environ
    for candidate in (setting, env.get("PIP_INDEX_URL", "")):
        if candidate.strip():
            return candidate.strip()
    return _pip_config_index(env) or DEFAULT_INDEX


def _pip_config_index(env: Mapping[str, str]) -> str:
    home = os.path.expanduser("~")
    paths = [env.get("PIP_CONFIG_FILE", ""), "/etc/pip.conf",
             os.path.join(env.get("XDG_CONFIG_HOME", "") or os.path.join(home, ".config"),
                          "pip", "pip.conf"),
             os.path.join(home, ".pip", "pip.conf")]
    found = ""
    for path in paths:  # later files override earlier ones, as in pip
        if not path or not os.path.isfile(path):
            continue
        parser = configparser.RawConfigParser()
        try:
            parser.read(path, encoding="utf-8")
        except (configparser.Error, OSError, UnicodeDecodeError):
            continue
        for section in ("global", "download", "install"):
            if parser.has_option(section, "index-url"):
                found = parser.get(section, "index-url").strip() or found
    return found


def redact(url: str) -> str:
    """The URL without credentials, for messages."""
    parts = urllib.parse.urlsplit(url)
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, netloc, parts.path, "", ""))


class PackageIndex:
    """A simple-API index: list a project's files, download one (capped and verified)."""

    def __init__(self, url: str, *, timeout: float = 30.0) -> None:
        parts = urllib.parse.urlsplit(url.strip())
        self.url = url.strip().rstrip("/") + "/"
        self.timeout = timeout
        #: Set when the index cannot be used (a bad URL, a failed connection): later listings
        #: fail at once with this message (see ``files``).
        self.unreachable = ""
        if parts.scheme not in ("http", "https", "file"):
            self.unreachable = f"package index URL must be http(s) or file: {redact(url)}"
        self._auth = ""
        if parts.username is not None:
            user = urllib.parse.unquote(parts.username)
            secret = urllib.parse.unquote(parts.password or "")
            self._auth = base64.b64encode(f"{user}:{secret}".encode()).decode()
        origin = _origin(self.url)
        self.allowed = (origin, *FILE_HOSTS.get(parts.hostname or "", ()))

    def __repr__(self) -> str:
        return f"PackageIndex({redact(self.url)!r})"

    # -- listing ---------------------------------------------------------------------------------
    def files(self, name: str) -> list[IndexFile]:
        """Every file the index lists for ``name`` (empty when the project is unknown)."""
        if self.unreachable:  # one pass over 40 dependencies must not wait 40 timeouts
            raise PackageIndexError(self.unreachable)
        page = urllib.parse.urljoin(self.url, canonical_name(name) + "/")
        if page.startswith("file:"):
            return self._directory_files(page)
        try:
            body, content_type, final = self._get(page, MAX_PAGE_BYTES,
                                                  f"{JSON_TYPE}, text/html;q=0.1")
        except urllib.error.HTTPError as err:
            if err.code == 404:
                return []
            raise PackageIndexError(f"{redact(page)} answered HTTP {err.code}") from None
        if JSON_TYPE in content_type:
            return _json_files(body, final)
        return _html_files(body.decode("utf-8", "replace"), final)

    def _directory_files(self, page: str) -> list[IndexFile]:
        folder = urllib.request.url2pathname(urllib.parse.urlsplit(page).path)
        if not os.path.isdir(folder):
            return []
        return [IndexFile(n, urllib.parse.urljoin(page, urllib.parse.quote(n)))
                for n in sorted(os.listdir(folder)) if os.path.isfile(os.path.join(folder, n))]

    # -- downloading -----------------------------------------------------------------------------
    def download(self, file: IndexFile, destination: str, max_bytes: int) -> str:
        """Fetch ``file`` into ``destination`` (at most ``max_bytes``); returns its sha256.

        Raises ``PackageIndexError`` when the file is too big, its hash does not match the index's,
        or it is not on an allowed origin.
        """
        self._check_origin(file.url)
        try:
            with self._open(file.url, "*/*") as response, open(destination, "wb") as out:
                digest = _copy_capped(response, out, max_bytes, file.filename)
        except (urllib.error.URLError, OSError) as err:
            raise PackageIndexError(f"download of {file.filename} failed: {err}") from None
        if file.sha256 and digest != file.sha256.lower():
            os.unlink(destination)
            raise PackageIndexError(f"{file.filename}: sha256 {digest[:12]}... does not match the "
                              f"index's {file.sha256[:12]}...")
        return digest

    # -- HTTP ------------------------------------------------------------------------------------
    def _get(self, url: str, limit: int, accept: str) -> tuple[bytes, str, str]:
        try:
            with self._open(url, accept) as response:
                body = response.read(limit + 1)
                if len(body) > limit:
                    raise PackageIndexError(f"{redact(url)} is larger than {limit} bytes")
                return body, response.headers.get("Content-Type", ""), response.geturl()
        except urllib.error.HTTPError:
            raise
        except (urllib.error.URLError, OSError) as err:
            message = (f"cannot reach the package index {redact(self.url)}: "
                       f"{getattr(err, 'reason', err)}")
            self.unreachable = f"{message} (tried once in this pass)"
            raise PackageIndexError(message) from None

    def _open(self, url: str, accept: str) -> Any:  # urllib's response: typeshed says Any
        self._check_origin(url)
        request = urllib.request.Request(url, headers={"Accept": accept,
                                                       "User-Agent": "code-working-memory"})
        if self._auth and _origin(url) == self.allowed[0]:
            request.add_header("Authorization", f"Basic {self._auth}")
        opener = urllib.request.build_opener(_GuardedRedirects(self.allowed))
        return opener.open(request, timeout=self.timeout)

    def _check_origin(self, url: str) -> None:
        if _origin(url) not in self.allowed:
            raise PackageIndexError(f"refused {redact(url)}: not on the configured package index "
                              f"({', '.join(redact(a) for a in self.allowed)})")


class _GuardedRedirects(urllib.request.HTTPRedirectHandler):
    """Follow redirects only inside the allowed origins."""

    def __init__(self, allowed: Iterable[str]) -> None:
        self.allowed = tuple(allowed)

    def redirect_request(self, req: urllib.request.Request, fp: IO[bytes], code: int, msg: str,
                         headers: HTTPMessage, newurl: str) -> urllib.request.Request | None:
        if _origin(newurl) not in self.allowed:
            raise PackageIndexError(f"refused a redirect to {redact(newurl)} (outside the index)")
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _origin(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "file":
        return "file://"
    port = f":{parts.port}" if parts.port and parts.port not in (80, 443) else ""
    return f"{parts.scheme}://{(parts.hostname or '').lower()}{port}"


def _copy_capped(response: IO[bytes], out: IO[bytes], limit: int, name: str) -> str:
    digest = hashlib.sha256()
    total = 0
    while True:
        chunk = response.read(1 << 16)
        if not chunk:
            return digest.hexdigest()
        total += len(chunk)
        if total > limit:
            raise PackageIndexError(f"{name} is larger than the source size cap ({limit} bytes)")
        digest.update(chunk)
        out.write(chunk)


def _json_files(body: bytes, page: str) -> list[IndexFile]:
    try:
        data = json.loads(body)
    except ValueError as err:
        raise PackageIndexError(f"the index answered invalid JSON: {err}") from None
    out = []
    for item in data.get("files", []) if isinstance(data, dict) else []:
        if not isinstance(item, dict) or not item.get("filename") or not item.get("url"):
            continue
        hashes = item.get("hashes")
        if not isinstance(hashes, dict):
            hashes = {}
        out.append(IndexFile(str(item["filename"]), urllib.parse.urljoin(page, item["url"]),
                             str(hashes.get("sha256", "")), bool(item.get("yanked")),
                             str(item.get("requires-python") or "")))
    return out


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[dict[str, str], str]] = []
        self._current: dict[str, str] | None = None
        self._text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "a":
            self._current = {k: v or "" for k, v in attrs}
            self._text = ""

    def handle_data(self, data: str) -> None:
        if self._current is not None:
            self._text += data

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" and self._current is not None:
            self.links.append((self._current, self._text.strip()))
            self._current = None


def _html_files(html: str, page: str) -> list[IndexFile]:
    parser = _Links()
    parser.feed(html)
    out = []
    for attrs, text in parser.links:
        href = attrs.get("href", "")
        if not href:
            continue
        url, _, fragment = urllib.parse.urljoin(page, href).partition("#")
        name = text or urllib.parse.unquote(url.rsplit("/", 1)[-1])
        sha = fragment.split("=", 1)[1] if fragment.startswith("sha256=") else ""
        out.append(IndexFile(name, url, sha, "data-yanked" in attrs,
                             attrs.get("data-requires-python", "")))
    return out

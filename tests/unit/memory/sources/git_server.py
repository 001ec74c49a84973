"""A real git server on loopback for the URL-source tests: dulwich's smart HTTP application
served by ``wsgiref`` in a thread, repositories built with dulwich, an optional Basic-auth
gate (401 without the password), and a "silent" host that accepts connections and never
answers. Nothing happens at import time (the Cat imports every ``.py`` file)."""

from __future__ import annotations

import base64
import contextlib
import io
import os
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field


@dataclass
class Served:
    """A served repository: its URL, folder and commits (oldest first)."""

    url: str
    path: str
    commits: list[str] = field(default_factory=list)


def commit_files(path: str, files: dict[str, str | None], message: str = "change",
                 tag: str = "") -> str:
    """Write ``files`` (None deletes) into the repository at ``path`` and commit them."""
    from dulwich import porcelain
    from dulwich.repo import Repo

    if not os.path.isdir(os.path.join(path, ".git")):
        os.makedirs(path, exist_ok=True)
        Repo.init(path).close()
    for rel, text in files.items():
        full = os.path.join(path, rel)
        if text is None:
            porcelain.remove(path, [full])
            continue
        os.makedirs(os.path.dirname(full), exist_ok=True)
        with open(full, "w", encoding="utf-8") as handle:
            handle.write(text)
        porcelain.add(path, [full])
    sha = porcelain.commit(path, message=message.encode(), author=b"T <t@example.org>",
                           committer=b"T <t@example.org>").decode()
    if tag:
        porcelain.tag_create(path, tag.encode(), annotated=True, message=b"release",
                             author=b"T <t@example.org>")
    return sha


def _basic_auth(app, user: str, password: str):
    expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

    def gate(environ, start_response):
        if environ.get("HTTP_AUTHORIZATION") != expected:
            start_response("401 Unauthorized", [("WWW-Authenticate", 'Basic realm="git"'),
                                                ("Content-Length", "0")])
            return [b""]
        return app(environ, start_response)

    return gate


@contextlib.contextmanager
def serve_wsgi(app, name: str = "test-http") -> Iterator[str]:
    """Serve the WSGI ``app`` on 127.0.0.1 in a daemon thread, quietly; yields its base URL and
    stops the server when the block ends."""
    from wsgiref.simple_server import WSGIRequestHandler, make_server

    class Quiet(WSGIRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def get_stderr(self):  # dulwich's server fails a step of git's shallow negotiation
            return io.StringIO()  # (git asks again and gets its pack): not the test's output

    server = make_server("127.0.0.1", 0, app, handler_class=Quiet)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              name=name, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@contextlib.contextmanager
def git_http_server(repos: dict[str, str], *, password: str = "",
                    seen: list[str] | None = None) -> Iterator[str]:
    """Serve ``repos`` (URL path -> repository folder) over smart HTTP on 127.0.0.1; yields
    the base URL. With ``password``, every request needs Basic auth as ``user:password``;
    ``seen`` receives each request's path and ``Authorization`` header."""
    from dulwich.repo import Repo
    from dulwich.server import DictBackend
    from dulwich.web import make_wsgi_chain

    opened = {f"/{name}": Repo(path) for name, path in repos.items()}
    app = make_wsgi_chain(DictBackend(opened))
    if password:
        app = _basic_auth(app, "user", password)
    if seen is not None:
        app = _recording(app, seen)
    try:
        with serve_wsgi(app, "test-git-http") as url:
            yield url
    finally:
        for repo in opened.values():
            repo.close()


def _recording(app, seen: list[str]):
    def record(environ, start_response):
        seen.append(f"{environ.get('PATH_INFO')} {environ.get('HTTP_AUTHORIZATION', '')}")
        return app(environ, start_response)

    return record


@contextlib.contextmanager
def redirecting_host(target: str) -> Iterator[str]:
    """A host that answers every request with a redirect to the same path under ``target``;
    yields its base URL."""
    def redirect(environ, start_response):
        query = environ.get("QUERY_STRING", "")
        start_response("302 Found", [("Location", target + environ["PATH_INFO"]
                                      + (f"?{query}" if query else "")),
                                     ("Content-Length", "0")])
        return [b""]

    with serve_wsgi(redirect, "test-redirect") as url:
        yield url


@contextlib.contextmanager
def silent_host() -> Iterator[str]:
    """A host that accepts TCP connections and never says a word; yields ``host:port``."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.settimeout(0.05)
    held: list[socket.socket] = []
    stop = threading.Event()

    def hold() -> None:
        while not stop.is_set():
            with contextlib.suppress(OSError):
                held.append(listener.accept()[0])

    thread = threading.Thread(target=hold, name="test-silent-host", daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{listener.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        for conn in held:
            conn.close()
        listener.close()


def clone_workers(pid: int) -> list[int]:
    """Live children of ``pid`` running the clone worker (other tests' children, such as the
    parsing pool's workers, are not counted)."""
    from codemem.memory.sources.clone import CLONE_WORKER

    found = []
    for child in children_of(pid):
        try:
            with open(f"/proc/{child}/cmdline", "rb") as handle:
                if CLONE_WORKER.encode() in handle.read():
                    found.append(child)
        except OSError:
            continue
    return found


def processes_in(folder: str) -> list[int]:
    """Live processes (this one aside) working in ``folder`` or naming it on their command
    line: a git left behind by a stopped fetch."""
    root = os.path.realpath(folder)
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            cwd = os.path.realpath(os.readlink(f"/proc/{entry}/cwd"))
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                cmdline = handle.read().decode("utf-8", "replace")
            with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                zombie = handle.read().rsplit(")", 1)[1].split()[0] == "Z"
        except OSError:
            continue
        if not zombie and (cwd == root or cwd.startswith(root + os.sep) or root in cmdline):
            found.append(int(entry))
    return found


@contextlib.contextmanager
def command_lines() -> Iterator[set[str]]:
    """Every process command line on the machine, sampled every few milliseconds while the
    block runs (what another user could read in ``ps``)."""
    seen: set[str] = set()
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            for entry in os.listdir("/proc"):
                with contextlib.suppress(OSError), open(f"/proc/{entry}/cmdline", "rb") as handle:
                    seen.add(handle.read().replace(b"\0", b" ").decode("utf-8", "replace"))
            stop.wait(0.002)

    thread = threading.Thread(target=sample, name="test-command-lines", daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        stop.set()
        thread.join(5)


def children_of(pid: int) -> list[int]:
    """Live child processes of ``pid`` (Linux ``/proc``), zombies excluded."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="utf-8") as handle:
                fields = handle.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid and fields[0] != "Z":
            out.append(int(entry))
    return out


def wait_until(check, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return bool(check())

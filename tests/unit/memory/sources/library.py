"""A small made-up library (``textkit``), real wheels of it, and a real package index on
loopback (``http.server`` serving PEP 503 HTML or PEP 691 JSON pages): no network in tests."""

from __future__ import annotations

import hashlib
import http.server
import json
import os
import threading
import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial

TEXTKIT_V1 = {
    "textkit/__init__.py": (
        '"""Text helpers."""\n'
        "from ._core import Tokenizer, words\n"
        "from .slug import slugify\n\n"
        '__all__ = ["Tokenizer", "words", "slugify"]\n'
    ),
    "textkit/_core.py": (
        "class Tokenizer:\n"
        '    """Split text into tokens."""\n\n'
        "    def __init__(self, lowercase: bool = True, *, stopwords=None):\n"
        "        self.lowercase = lowercase\n"
        "        self.stopwords = stopwords or set()\n\n"
        "    def tokens(self, text: str) -> list[str]:\n"
        '        """The tokens of ``text``, lower-cased unless told otherwise."""\n'
        "        return [self._normalise(t) for t in text.split()]\n\n"
        "    def _normalise(self, token):\n"
        "        return token.lower() if self.lowercase else token\n\n\n"
        "def words(text: str, limit: int = 0) -> list[str]:\n"
        '    """The words of ``text`` (at most ``limit`` when it is not 0)."""\n'
        "    found = text.split()\n"
        "    return found[:limit] if limit else found\n\n\n"
        "def _helper():\n"
        "    return None\n"
    ),
    "textkit/slug.py": (
        "def slugify(text: str, sep: str = '-') -> str:\n"
        '    """A URL slug of ``text``: lower-case words joined by ``sep``."""\n'
        "    return sep.join(text.lower().split())\n"
    ),
    "textkit/tests/test_core.py": "def test_words():\n    assert True\n",
}

TEXTKIT_V2 = {
    **TEXTKIT_V1,
    "textkit/__init__.py": TEXTKIT_V1["textkit/__init__.py"].replace("words", "split_words"),
    "textkit/_core.py": TEXTKIT_V1["textkit/_core.py"].replace("def words(", "def split_words("),
    "textkit/slug.py": (
        "def slugify(text: str, sep: str = '-', *, max_length: int = 0) -> str:\n"
        '    """A URL slug of ``text``, cut at ``max_length`` characters when not 0."""\n'
        "    slug = sep.join(text.lower().split())\n"
        "    return slug[:max_length] if max_length else slug\n"
    ),
}

README = (
    "Textkit\n=======\n\nSmall text helpers.\n\n"
    "Slugs\n-----\n\nUse ``textkit.slugify(title)`` to make a URL slug.\n"
)


def metadata(name: str, version: str, description: str = README) -> str:
    return (f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
            "Summary: Small text helpers\nDescription-Content-Type: text/x-rst\n\n"
            + description)


def build_wheel(folder, name: str, version: str, files: dict[str, str]) -> str:
    """A real ``py3-none-any`` wheel of ``files`` in ``folder``; returns its path."""
    filename = f"{name}-{version}-py3-none-any.whl"
    path = os.path.join(str(folder), filename)
    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as wheel:
        for rel, text in files.items():
            wheel.writestr(rel, text)
        wheel.writestr(f"{info}/METADATA", metadata(name, version))
        wheel.writestr(f"{info}/WHEEL", "Wheel-Version: 1.0\nRoot-Is-Purelib: true\n"
                                        "Tag: py3-none-any\n")
        wheel.writestr(f"{info}/RECORD", "")
    return path


def sha256(path: str) -> str:
    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


def write_index(root, project: str, files: list[str], *, json_api: bool = False,
                hashes: dict[str, str] | None = None) -> None:
    """The simple page of ``project`` listing ``files`` (paths), with sha256 fragments."""
    page = os.path.join(str(root), "simple", project)
    os.makedirs(page, exist_ok=True)
    names = [os.path.basename(f) for f in files]
    sums = {os.path.basename(f): (hashes or {}).get(os.path.basename(f), sha256(f))
            for f in files}
    if json_api:
        body = {"meta": {"api-version": "1.0"}, "name": project,
                "files": [{"filename": n, "url": f"../../files/{n}", "hashes": {"sha256": sums[n]}}
                          for n in names]}
        with open(os.path.join(page, "index.json"), "w") as fh:
            json.dump(body, fh)
    links = "".join(f'<a href="../../files/{n}#sha256={sums[n]}">{n}</a><br>' for n in names)
    with open(os.path.join(page, "index.html"), "w") as fh:
        fh.write(f"<!DOCTYPE html><html><body>{links}</body></html>")


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the folder; answers PEP 691 JSON when asked for it and a page has one."""

    requests: list[str]

    def log_message(self, *args: object) -> None:  # keep test output clean
        return None

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.requests.append(self.path)
        accept = self.headers.get("Accept", "")
        folder = self.translate_path(self.path)
        if "vnd.pypi.simple.v1+json" in accept and os.path.isfile(
                os.path.join(folder, "index.json")):
            with open(os.path.join(folder, "index.json"), "rb") as fh:
                body = fh.read()
            self.send_response(200)
            self.send_header("Content-Type", "application/vnd.pypi.simple.v1+json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()


@contextmanager
def serve(root) -> Iterator[tuple[str, list[str]]]:
    """``(index URL, request log)`` of a real HTTP server on 127.0.0.1 serving ``root``."""
    log: list[str] = []
    handler = type("Handler", (_Handler,), {"requests": log})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             partial(handler, directory=str(root)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/simple/", log
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def publish(root, name: str, version: str, files: dict[str, str], *,
            json_api: bool = False) -> str:
    """Build a wheel into ``root/files`` and list every wheel there on the project's page."""
    folder = os.path.join(str(root), "files")
    os.makedirs(folder, exist_ok=True)
    build_wheel(folder, name, version, files)
    wheels = sorted(os.path.join(folder, f) for f in os.listdir(folder)
                    if f.startswith(f"{name}-"))
    write_index(root, name, wheels, json_api=json_api)
    return os.path.join(folder, f"{name}-{version}-py3-none-any.whl")


def facts_of(files: dict[str, str], label: str):
    """The ``ApiTable`` ``memory.sources`` builds for these module sources (read with ast)."""
    from codemem.memory.sources.api_facts import module_name, read_module
    from codemem.memory.sources.api_lookup import ApiTable

    modules = {}
    for path, text in files.items():
        name = module_name(path)
        modules[name] = (read_module(path, name, text.encode()), label)
    return ApiTable(modules)

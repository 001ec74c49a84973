"""Repositories by URL: the two fetch engines (dulwich, the git binary) timed on one clone.

Run from the plugin root (prints a Markdown section for docs/benchmarks.md)::

    .venv/bin/python -m tests.run bench.clone_bench [--files 3000] [--runs 5]

A repository of ``--files`` real Python files (the standard library's, one commit), its objects
packed (as a forge serves them, or after ``git gc``) and then loose (just committed), is served
three ways on loopback: ``git http-backend`` behind a small WSGI bridge (what the forges run:
the server is git), dulwich's smart HTTP server (the unit tests' server: the server is Python),
and a ``file://`` URL. Each engine clones it with ``fetch_clone`` (the child process, depth 1,
the checkout, the size measured, the swap: what "add source" waits for), ``--runs`` times
each, alternating engines; the medians are reported, with the "unchanged" check (refs listed,
nothing fetched). Each fetch runs in a fresh process of its own, which reports its wall time
and the CPU time of the processes the fetch ran (the worker, and git's where it runs; the
server's aside, except for ``file://`` where git's upload-pack is the fetch's own child and
dulwich reads the repository in the worker). On a shared machine both move with the others'
load: compare the engines within one run, where their runs alternate.
Compare figures of the same run only.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..memory.sources.clone import CloneLimits, fetch_clone
from ..memory.sources.git_url import parse_git_url
from ..tests.unit.memory.sources.git_server import git_http_server, serve_wsgi
from .index_bench import copy_stdlib

ENGINES = ("dulwich", "git")


def build_repository(path: Path, files: int, packed: bool) -> tuple[int, int]:
    """One commit of ``files`` standard-library files at ``path``, its objects packed (as a
    forge serves them, or a repository after ``git gc``) or loose (just committed); (files,
    bytes)."""
    count = copy_stdlib(path, files)
    size = sum(p.stat().st_size for p in path.rglob("*.py"))
    env = {"PATH": os.environ.get("PATH", ""), "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_CONFIG_GLOBAL": os.devnull, "HOME": str(path)}
    steps = [["init", "-q", "-b", "main"], ["add", "-A"],
             ["-c", "user.name=B", "-c", "user.email=b@example.org", "commit", "-qm", "x"]]
    for args in steps + ([["repack", "-adq"]] if packed else []):
        subprocess.run(["git", "-C", str(path), *args], check=True, env=env)
    return count, size


def bench_layout(base: Path, files: int, packed: bool, runs: int) -> dict[str, Any]:
    """The three servers of one repository layout: {row name: medians per engine}."""
    layout = "packed" if packed else "loose"
    repo = base / layout / "repo.git"
    build_repository(repo, files, packed)
    results = {}
    with git_backend_server(str(repo.parent)) as url:
        results[f"git http-backend, {layout}"] = time_engines(f"{url}/repo.git",
                                                              base / f"w1{layout}", runs)
    with git_http_server({"repo.git": str(repo)}) as url:
        results[f"dulwich smart HTTP, {layout}"] = time_engines(f"{url}/repo.git",
                                                                base / f"w2{layout}", runs)
    results[f"file://, {layout}"] = time_engines(f"file://{repo}", base / f"w3{layout}", runs)
    return results


def _backend(root: str) -> Callable[..., Any]:
    """A WSGI application running ``git http-backend`` (CGI) for the repositories under
    ``root``: git's own smart HTTP server."""

    def app(environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        body = environ["wsgi.input"].read(int(environ.get("CONTENT_LENGTH") or 0))
        env = {"PATH": os.environ.get("PATH", ""), "GIT_PROJECT_ROOT": root,
               "GIT_HTTP_EXPORT_ALL": "1", "GIT_CONFIG_NOSYSTEM": "1",
               "GIT_CONFIG_GLOBAL": os.devnull, "REMOTE_ADDR": "127.0.0.1",
               "CONTENT_LENGTH": str(len(body))}
        for key in ("REQUEST_METHOD", "PATH_INFO", "QUERY_STRING", "CONTENT_TYPE",
                    "HTTP_GIT_PROTOCOL", "HTTP_CONTENT_ENCODING"):
            env[key] = str(environ.get(key, ""))
        out = subprocess.run(["git", "http-backend"], input=body, env=env,
                             capture_output=True, check=False).stdout
        head, _, payload = out.partition(b"\r\n\r\n")
        status, headers = "200 OK", []
        for line in head.decode("latin-1").split("\r\n"):
            name, _, value = line.partition(":")
            if name.lower() == "status":
                status = value.strip()
            elif name:
                headers.append((name, value.strip()))
        start_response(status, headers + [("Content-Length", str(len(payload)))])
        return [payload]

    return app


@contextmanager
def git_backend_server(root: str) -> Iterator[str]:
    """``git http-backend`` serving ``root`` on 127.0.0.1; yields the base URL."""
    with serve_wsgi(_backend(root), "bench-git-backend") as url:
        yield url


def measure_one(url: str, dest: str, engine: str, known: str = "") -> dict[str, Any]:
    """One ``fetch_clone`` in a fresh process: wall seconds, the CPU seconds of the fetch's
    processes, the commit."""
    job = json.dumps({"url": url, "dest": dest, "engine": engine, "known": known})
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-m", "tests.run", "bench.clone_bench", "--one", job],
                         cwd=root, capture_output=True, text=True, check=True).stdout
    return dict(json.loads(out.strip().splitlines()[-1]))


def _one(job: dict[str, str]) -> None:
    """The child of ``measure_one``: the fetch, then what it cost, as one JSON line."""
    import resource

    location = parse_git_url(job["url"], file_roots=["/"])
    limits = CloneLimits(max_bytes=1 << 30, timeout_s=600, engine=job["engine"])
    start = time.perf_counter()
    fetched = fetch_clone(location, job["dest"], limits, known=job["known"])
    wall = time.perf_counter() - start
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    assert fetched.engine == job["engine"] and fetched.unchanged == bool(job["known"])
    print(json.dumps({"wall": wall, "cpu": used.ru_utime + used.ru_stime,
                      "commit": fetched.commit}))


def time_engines(url: str, work: Path, runs: int) -> dict[str, dict[str, float]]:
    """Medians per engine: a fresh clone's wall and CPU seconds, and the "unchanged" check's
    wall seconds (runs alternate the engines' order)."""
    seen: dict[str, dict[str, list[float]]] = {
        e: {"wall": [], "cpu": [], "unchanged": []} for e in ENGINES}
    for run in range(runs):
        for engine in ENGINES if run % 2 == 0 else ENGINES[::-1]:
            dest = work / f"{engine}-{run}" / "repo"
            clone = measure_one(url, str(dest), engine)
            for key in ("wall", "cpu"):
                seen[engine][key].append(clone[key])
            again = measure_one(url, str(dest), engine, clone["commit"])
            seen[engine]["unchanged"].append(again["wall"])
            shutil.rmtree(dest.parent)
    return {e: {k: statistics.median(v) for k, v in kinds.items()} for e, kinds in seen.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        return _one(json.loads(args.one))
    if shutil.which("git") is None:
        raise SystemExit("the git engine needs a git binary on PATH")
    base = Path(tempfile.mkdtemp(prefix="clone-bench-"))
    try:
        results = {**bench_layout(base, args.files, True, args.runs),
                   **bench_layout(base, args.files, False, args.runs)}
        files = len(list((base / "packed" / "repo.git").rglob("*.py")))
        size = sum(p.stat().st_size for p in (base / "packed" / "repo.git").rglob("*.py"))
    finally:
        shutil.rmtree(base, ignore_errors=True)
    git_version = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout
    print(f"{files} files, {size / 2**20:.1f} MiB of Python, one commit; {git_version.strip()}; "
          f"medians of {args.runs} runs\n")
    print("| server | engine | clone (s) | CPU of the fetch (s) | unchanged check (s) |")
    print("|---|---|---:|---:|---:|")
    for server, engines in results.items():
        for engine, m in engines.items():
            print(f"| {server} | {engine} | {m['wall']:.2f} | {m['cpu']:.2f} "
                  f"| {m['unchanged']:.2f} |")


if __name__ == "__main__":
    main()

"""The child process that fetches a repository: run by path (``python -I clone_worker.py``),
never imported for its work (the Cat imports it like every module: nothing happens then).

Why a process: a fetch is network I/O with no upper bound, in a library (dulwich) that cannot be
interrupted from another thread. In a process of its own, ``clone.py`` can stop it at any moment
(the time limit, the size cap measured on disk, the plugin winding down) by killing its process
group, and nothing is left: not a thread, not a half-written folder (the parent removes the
temporary folder). The job comes on standard input as JSON (so a URL's credentials never show in
the process list) and the answer is one JSON line on standard output. Only the standard library
and dulwich are imported here (and ``clone_git.py``, beside this file, loaded by its path).

Two engines do the same job and give the same answer (which one ran is in it: ``engine``):
dulwich, the pure-Python git the stock Cat image has (no git binary there), and the git binary
(``clone_git.py``, confined as its docstring says). The job's ``engine`` chooses: "dulwich",
"git", or "auto" (the default): git where there is a binary, which ``bench/clone_bench.py``
measured faster (docs/benchmarks.md); dulwich otherwise (no binary; an ssh URL holding a
password, which git would put on ssh's command line).

The fetch: the remote's refs are listed, the ref resolved (a branch, a tag, or a commit id; none:
the remote's HEAD). When the remote is at the commit already indexed (``known``), that is the
answer, without a fetch. Otherwise that one commit is fetched at depth 1 (a commit that is no
ref's tip, which servers may refuse at depth 1, is fetched with the branches' history, under the
same caps) and checked out without symlinks (a link is written as a small file holding its
target: nothing a repository holds can point a write, or a read, outside the clone).
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

#: How a failure is reported: its kind (``clone.py`` words it for the user) and a detail.
AUTH, NOT_FOUND, REF_NOT_FOUND, UNREACHABLE, TOO_BIG, FAILED = (
    "auth", "not_found", "ref_not_found", "unreachable", "too_big", "failed")


class Failure(Exception):
    """A failure of a kind ``clone.py`` explains to the user."""

    def __init__(self, kind: str, detail: str = "") -> None:
        super().__init__(detail)
        self.kind = kind


def main() -> int:
    job = json.loads(sys.stdin.read() or "{}")
    try:
        answer = run(job)
    except Failure as err:
        answer = {"ok": False, "kind": err.kind, "detail": str(err)[:500]}
    except Exception as err:  # the process's boundary: every failure is an answer
        answer = {"ok": False, "kind": classify(err), "detail": f"{type(err).__name__}: {err}"}
    sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()
    return 0


def run(job: dict[str, Any]) -> dict[str, Any]:
    """The job done by the git binary (``clone_git.py``) or by dulwich; the answer names it."""
    git = git_engine(job)
    if git is not None:
        return dict(git.run(job, resolve, Failure))
    from dulwich.client import get_transport_and_path

    client, path = get_transport_and_path(job["url"])
    keep_credentials_home(client, job["url"])
    remote: Any = client.get_refs(path)
    refs: dict[bytes, bytes] = getattr(remote, "refs", remote)  # newer dulwich: LsRemoteResult
    commit, name = resolve(refs, job.get("ref", ""))
    if commit == job.get("known"):
        return {"ok": True, "commit": commit, "ref": name, "unchanged": True,
                "engine": "dulwich"}
    fetch(client, path, job["dest"], commit, name, int(job["max_bytes"]))
    return {"ok": True, "commit": commit, "ref": name, "unchanged": False, "engine": "dulwich"}


def keep_credentials_home(client: Any, url: str) -> None:
    """The URL's credentials go to the URL's own host only. dulwich puts them in its HTTP pool's
    headers, sent with every request; after a redirect it talks to the new host directly, so
    the token would follow. Each request to another scheme, host or port goes without them
    (urllib3 already drops them from the redirect itself)."""
    pool = getattr(client, "pool_manager", None)
    if pool is None or not any(k.lower() == "authorization" for k in pool.headers):
        return
    from urllib.parse import urlsplit

    def place(target: str) -> tuple[str, str, int | None]:
        parts = urlsplit(target)
        return parts.scheme, (parts.hostname or "").lower(), parts.port

    home, send = place(url), pool.request

    def request(method: str, target: str, **kwargs: Any) -> Any:
        if place(target) != home:
            headers = kwargs.get("headers") or pool.headers
            kwargs["headers"] = {k: v for k, v in headers.items()
                                 if k.lower() != "authorization"}
        return send(method, target, **kwargs)

    pool.request = request


def git_engine(job: dict[str, Any]) -> Any:
    """``clone_git.py`` (loaded by its path, beside this file) when the job's ``engine`` is
    ``git``, or ``auto`` (the default) with a git binary and a URL it takes
    (``clone_git.preferred``); else None (dulwich). ``git`` without a binary is a failure,
    never a silent dulwich fetch."""
    import importlib.util
    import shutil

    choice = job.get("engine") or "auto"
    if choice not in ("auto", "git", "dulwich"):
        raise Failure(FAILED, f"unknown engine {choice!r}")
    if choice == "dulwich" or choice == "auto" and shutil.which("git") is None:
        return None
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "clone_git.py")
    spec = importlib.util.spec_from_file_location("codemem_clone_git", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if choice == "git" or module.preferred(job["url"]):
        return module
    return None


def resolve(refs: dict[bytes, bytes], ref: str) -> tuple[str, str]:
    """The commit ``ref`` names on the remote, and the ref's name as the user sees it."""
    def peeled(name: bytes) -> bytes:
        return refs.get(name + b"^{}", refs[name])

    if not ref:
        if b"HEAD" not in refs:
            raise Failure(REF_NOT_FOUND, "the repository is empty (no HEAD)")
        head = refs[b"HEAD"]
        branch = next((n for n, sha in sorted(refs.items())
                       if n.startswith(b"refs/heads/") and sha == head), b"")
        return head.decode(), branch.decode()[len("refs/heads/"):] or "HEAD"
    wanted = ref.encode()
    for name in (b"refs/heads/" + wanted, b"refs/tags/" + wanted, wanted):
        if name in refs and not name.endswith(b"^{}"):
            return peeled(name).decode(), ref
    lowered = ref.lower()
    if all(c in "0123456789abcdef" for c in lowered) and 7 <= len(lowered) <= 40:
        tips = {sha.decode() for sha in refs.values()}
        matches = sorted(t for t in tips if t.startswith(lowered))
        if len(matches) == 1:
            return matches[0], ref
        if len(lowered) == 40:
            return lowered, ref
        raise Failure(REF_NOT_FOUND, "a commit that is no branch's or tag's tip must be "
                      "named by its full 40-digit id")
    raise Failure(REF_NOT_FOUND, f"no branch, tag or commit `{ref}`")


def fetch(client: Any, path: str, dest: str, commit: str, name: str, max_bytes: int) -> None:
    from dulwich.repo import Repo

    os.makedirs(dest, exist_ok=False)
    repo = Repo.init(dest)
    want = commit.encode()
    try:
        _fetch_pack(client, path, repo, lambda refs, depth=None: [want], 1, max_bytes)
    except Exception as err:
        if classify(err) != FAILED or want in repo.object_store:
            raise
        # a commit that is no tip: the branches and tags, their whole history
        _fetch_pack(client, path, repo, lambda refs, depth=None: sorted(
            {sha for name, sha in refs.items() if name.startswith((b"refs/heads/",
                                                                  b"refs/tags/"))
             and not name.endswith(b"^{}")}), None, max_bytes)
    if want not in repo.object_store:
        raise Failure(REF_NOT_FOUND, f"the remote has no commit {commit}")
    checkout(repo, want, name)


def _fetch_pack(client: Any, path: str, repo: Any, wants: Any, depth: int | None,
                max_bytes: int) -> None:
    from tempfile import SpooledTemporaryFile

    received = [0]
    spool = SpooledTemporaryFile(max_size=8 << 20, dir=repo.object_store.path)

    def write(data: bytes) -> None:
        received[0] += len(data)
        if received[0] > max_bytes:
            raise Failure(TOO_BIG, f"more than {max_bytes} bytes received")
        spool.write(data)

    try:
        result = client.fetch_pack(path, wants, repo.get_graph_walker(), write, depth=depth)
        if spool.tell():
            spool.seek(0)
            repo.object_store.add_thin_pack(spool.read, None)
    finally:
        spool.close()
    repo.update_shallow(result.new_shallow, result.new_unshallow)


def checkout(repo: Any, commit: bytes, name: str) -> None:
    """The commit's files into the working tree, links as plain files, HEAD at the commit on
    a local branch named after the ref (``clone.clone_state`` reads both)."""
    from dulwich.index import build_index_from_tree

    obj = repo[commit]
    while obj.type_name == b"tag":
        obj = repo[obj.object[1]]
    if obj.type_name != b"commit":
        raise Failure(REF_NOT_FOUND, "the ref names no commit")

    def no_link(target: bytes | str, link: bytes | str, **_: Any) -> None:
        data = target if isinstance(target, bytes) else target.encode("utf-8", "surrogateescape")
        with open(link, "wb") as handle:
            handle.write(data)

    build_index_from_tree(repo.path, repo.index_path(), repo.object_store, obj.tree,
                          honor_filemode=False, symlink_fn=no_link)
    branch = b"refs/heads/" + (name.encode() if name not in ("", "HEAD") else b"source")
    repo.refs[branch] = obj.id
    repo.refs.set_symbolic_ref(b"HEAD", branch)


def classify(err: BaseException) -> str:
    """A dulwich or network error's kind."""
    if isinstance(err, Failure):
        return err.kind
    name = type(err).__name__
    text = str(err).lower()
    if name in ("HTTPUnauthorized", "HTTPProxyUnauthorized") or "401" in text or "403" in text \
            or "permission denied" in text or "authentication" in text:
        return AUTH
    if name in ("NotGitRepository", "HangupException") and "404" not in text:
        return NOT_FOUND if name == "NotGitRepository" else UNREACHABLE
    if "404" in text or "not found" in text or "does not appear to be a git" in text \
            or "not a git repository" in text or "no such file" in text:
        return NOT_FOUND
    if isinstance(err, OSError) or name in ("MaxRetryError", "NewConnectionError",
                                            "ProtocolError", "HangupException") \
            or "connection" in text or "name or service" in text or "timed out" in text:
        return UNREACHABLE
    return FAILED


if __name__ == "__main__":
    sys.exit(main())

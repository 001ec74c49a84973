"""The clone worker's second engine: the git binary, where there is one.

Loaded by ``clone_worker.py`` by its path, in the worker's process only (the Cat imports it like
every module: nothing happens then; only the standard library is imported). The job and the
answer are the worker's (see its docstring): the remote's refs are listed (``git ls-remote``),
the ref resolved by the worker's own ``resolve`` (the same names, the same messages), nothing
fetched when the remote is at ``known``; otherwise ``git init`` and one ``git fetch --depth 1``
of that ref (a commit that is no tip, which servers refuse alone, is fetched with the branches'
and tags' history, under the same caps), then the commit checked out on a local branch named
after the ref, exactly the layout the dulwich engine writes (``clone.clone_state`` reads it).
The time limit, the size cap on disk and the stop are the parent's (``clone.py`` kills the
worker's process group, git and its helpers included).

The same safety as the dulwich engine, stated here because git has more doors:

- the URL already passed ``git_url.py``'s rules; here it is refused again unless its scheme is
  https, http, ssh (``user@host:path`` included) or file, and git is confined to that one
  scheme: ``protocol.allow=never`` plus ``protocol.<scheme>.allow=always`` (never ``ext``,
  ``fd`` or another helper); every command puts ``--`` before the URL;
- credentials never reach a command line (another user of the machine could read it) nor
  git's messages: git sees an http(s) URL without its ``user:token``, which wait in the
  environment (readable by the Cat's user only) for the one credential helper (``_HELPER_SH``,
  a shell function: no secret in its arguments), which answers only the URL's own protocol
  and host: a redirect to another host gets nothing (git asks again there). An ssh URL with
  a password, or credentials holding a control character, are left to dulwich (``fits``);
- no system or global configuration (``GIT_CONFIG_NOSYSTEM``, ``GIT_CONFIG_GLOBAL=/dev/null``,
  and ``HOME`` an empty folder for a git older than 2.32; ssh finds the Cat user's keys by
  its account, not by ``HOME``), no templates, no hooks (``core.hooksPath`` an empty folder),
  no other credential helper, no prompt (``GIT_TERMINAL_PROMPT=0``, ``GIT_ASKPASS`` empty,
  standard input closed), no background maintenance (``gc.auto=0``: nothing outlives the
  worker);
- ``core.symlinks=false``: a link is checked out as a small file holding its target, as the
  dulwich engine writes it; git itself refuses ``.git`` and ``..`` path elements.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urlsplit, urlunsplit

#: The worker's failure kinds (``clone.py`` words them for the user).
AUTH, NOT_FOUND, REF_NOT_FOUND, UNREACHABLE, FAILED = (
    "auth", "not_found", "ref_not_found", "unreachable", "failed")
SCHEMES = ("https", "http", "ssh", "file")
#: ``transport::address``: git's remote helpers (``ext::`` runs a command).
_HELPER = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)::")
#: What git says, lower-cased, and the kind it means (the first match wins).
_SAYS = (
    (AUTH, ("could not read username", "could not read password", "authentication failed",
            "terminal prompts disabled", "error: 401", "error: 403", "permission denied",
            "access denied", "invalid username or password")),
    (NOT_FOUND, ("not found", "does not appear to be a git repository",
                 "not a git repository", "error: 404", "no such file or directory")),
    (UNREACHABLE, ("unable to access", "could not resolve", "failed to connect",
                   "couldn't connect", "connection refused", "timed out", "unreachable",
                   "connection reset", "could not read from remote", "ssl", "certificate",
                   "remote end hung up")),
)
#: Configuration every command runs with (see the module docstring).
_CONFIG = ("protocol.allow=never", "core.symlinks=false", "gc.auto=0", "maintenance.auto=false",
           "fetch.writeCommitGraph=false", "core.fsmonitor=false", "credential.helper=",
           "submodule.recurse=false")

#: The credential helper: for a "get" whose protocol and host are the URL's, the user name
#: and password from the environment; nothing for another host, nothing stored or erased.
_HELPER_SH = ('!f() { test "$1" = get || exit 0; p=; h=; '
              'while IFS= read -r line && test -n "$line"; do case "$line" in '
              'protocol=*) p="${line#protocol=}";; host=*) h="${line#host=}";; esac; done; '
              'if test "$p" = "$CODEMEM_GIT_PROTOCOL" && test "$h" = "$CODEMEM_GIT_HOST"; then '
              "printf 'username=%s\\npassword=%s\\n' \"$CODEMEM_GIT_USERNAME\" "
              '"$CODEMEM_GIT_PASSWORD"; fi; }; f')

Fail = Callable[[str, str], Exception]


def preferred(url: str) -> bool:
    """Whether "auto" fetches ``url`` with git: wherever git can fetch it without a credential
    on its command line. ``bench/clone_bench.py`` measured git faster over HTTP (against git's
    own server and dulwich's, packed or loose objects) and over ``file://`` from a packed
    repository; slower only over ``file://`` from a repository whose objects were never packed
    (git's upload-pack compresses them afresh): docs/benchmarks.md."""
    return fits(url)


def fits(url: str) -> bool:
    """Whether git can fetch ``url`` without a credential on its command line."""
    scheme = scheme_of(url)
    if scheme not in SCHEMES or "://" not in url:
        return scheme == "ssh"
    parts = urlsplit(url)
    if scheme == "ssh":
        return parts.password is None
    secret = unquote(parts.username or "") + unquote(parts.password or "")
    return not any(ord(c) < 32 or ord(c) == 127 for c in secret)


def scheme_of(url: str) -> str:
    """``url``'s scheme (``user@host:path`` is ssh; ``ext::...`` is ``ext``, refused)."""
    if "://" in url:
        return url.split("://", 1)[0].lower()
    helper = _HELPER.match(url)
    return helper.group(1).lower() if helper else "ssh"


def run(job: dict[str, Any], resolve: Callable[[dict[bytes, bytes], str], tuple[str, str]],
        fail: Fail) -> dict[str, Any]:
    """The worker's job done with git: the same answer as the dulwich engine's."""
    git = Git(job["url"], os.path.dirname(os.path.abspath(job["dest"])), fail)
    refs = git.ls_remote()
    commit, name = resolve(refs, job.get("ref", ""))
    if commit == job.get("known"):
        return {"ok": True, "commit": commit, "ref": name, "unchanged": True, "engine": "git"}
    commit = git.fetch(job["dest"], _remote_name(refs, job.get("ref", ""), commit), commit)
    git.checkout(job["dest"], commit, name)
    return {"ok": True, "commit": commit, "ref": name, "unchanged": False, "engine": "git"}


def _remote_name(refs: dict[bytes, bytes], ref: str, commit: str) -> str:
    """What to fetch: the remote's ref the user named (a tag stays a tag), else the commit."""
    if not ref:
        return "HEAD"
    for name in (f"refs/heads/{ref}", f"refs/tags/{ref}", ref):
        if name.encode() in refs and not name.endswith("^{}"):
            return name
    return commit


class Git:
    """The git binary, confined to one URL's scheme, with the URL's credentials kept off its
    command line."""

    def __init__(self, url: str, work: str, fail: Fail) -> None:
        scheme = scheme_of(url)
        binary = shutil.which("git")
        if binary is None:
            raise fail(FAILED, "the git engine was asked for and there is no git binary")
        if scheme not in SCHEMES or url.startswith("-") or not fits(url):
            raise fail(FAILED, f"the git engine does not fetch {scheme} URLs like this one")
        self.fail = fail
        self.url, login = _without_credentials(url)
        hooks, home = os.path.join(work, "no-hooks"), os.path.join(work, "git-home")
        os.makedirs(hooks, exist_ok=True)
        os.makedirs(home, exist_ok=True)
        self.argv = [binary, "-c", f"protocol.{scheme}.allow=always", "-c",
                     f"core.hooksPath={hooks}"]
        for item in _CONFIG:
            self.argv += ["-c", item]
        if login:
            self.argv += ["-c", f"credential.helper={_HELPER_SH}"]
        self.env = _environment(login)
        self.env.update(HOME=home, XDG_CONFIG_HOME=home)  # no user config, whatever git's age

    def ls_remote(self) -> dict[bytes, bytes]:
        out = self.call(["ls-remote", "--", self.url])
        refs = {}
        for line in out.splitlines():
            sha, _, name = line.partition("\t")
            if sha and name:
                refs[name.strip().encode()] = sha.strip().encode()
        return refs

    def fetch(self, dest: str, what: str, commit: str) -> str:
        """Fetch ``what`` (a ref name or a commit) into a new repository at ``dest``; the
        commit fetched (a ref that moved since it was listed is taken where it is now)."""
        os.makedirs(dest, exist_ok=False)
        self.call(["init", "-q", "--template=", "--", dest])
        self.call(["-C", dest, "config", "core.symlinks", "false"])
        fetch = ["-C", dest, "fetch", "-q", "--no-tags", "--no-recurse-submodules"]
        if what != commit:
            self.call([*fetch, "--depth", "1", "--", self.url, what])
            return self.call(["-C", dest, "rev-parse", "--verify", "FETCH_HEAD^{commit}"]).strip()
        try:
            self.call([*fetch, "--depth", "1", "--", self.url, commit])
        except Exception as err:
            if getattr(err, "kind", FAILED) != FAILED:
                raise
            # a commit that is no tip: the branches and tags, their whole history
            self.call([*fetch, "--", self.url, "+refs/heads/*:refs/fetched/heads/*",
                       "+refs/tags/*:refs/fetched/tags/*"])
        try:
            return self.call(["-C", dest, "rev-parse", "--verify", f"{commit}^{{commit}}"]).strip()
        except Exception:
            raise self.fail(REF_NOT_FOUND, f"the remote has no commit {commit}") from None

    def checkout(self, dest: str, commit: str, name: str) -> None:
        """The commit's files (links as plain files), HEAD on a branch named after the ref."""
        branch = "refs/heads/" + (name if name not in ("", "HEAD") else "source")
        self.call(["-C", dest, "symbolic-ref", "HEAD", branch])
        self.call(["-C", dest, "reset", "-q", "--hard", commit])
        fetch_head = os.path.join(dest, ".git", "FETCH_HEAD")
        if os.path.exists(fetch_head):
            os.remove(fetch_head)

    def call(self, args: list[str]) -> str:
        done = subprocess.run([*self.argv, *args], stdin=subprocess.DEVNULL,
                              capture_output=True, env=self.env, check=False)
        if done.returncode == 0:
            return done.stdout.decode("utf-8", "replace")
        said = done.stderr.decode("utf-8", "replace")
        raise self.fail(classify(said), _detail(said))


def _without_credentials(url: str) -> tuple[str, dict[str, str]]:
    """``url`` without its ``user:token``, and what the credential helper answers with them
    (http and https; another URL is returned as it is, with nothing)."""
    if scheme_of(url) not in ("http", "https"):
        return url, {}
    parts = urlsplit(url)
    if parts.username is None:
        return url, {}
    host = parts.netloc.rpartition("@")[2]
    login = {"CODEMEM_GIT_PROTOCOL": scheme_of(url), "CODEMEM_GIT_HOST": host,
             "CODEMEM_GIT_USERNAME": unquote(parts.username),
             "CODEMEM_GIT_PASSWORD": unquote(parts.password or "")}
    return urlunsplit(parts._replace(netloc=host)), login


def _environment(login: dict[str, str]) -> dict[str, str]:
    """The worker's (already scrubbed) environment without git's own variables, plus the
    confinement and the credentials the helper gives (``login``)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("GIT_", "CODEMEM_GIT_")) and k != "SSH_ASKPASS"
           or k == "GIT_SSH_COMMAND"}
    env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull, GIT_TERMINAL_PROMPT="0",
               GIT_ASKPASS="", LC_ALL="C", **login)
    return env


def classify(said: str) -> str:
    """The kind of failure git's standard error tells."""
    lowered = said.lower()
    for kind, words in _SAYS:
        if any(w in lowered for w in words):
            return kind
    return FAILED


def _detail(said: str) -> str:
    """git's last ``fatal:`` or ``error:`` line, without the prefix (else its last line)."""
    lines = [line.strip() for line in said.splitlines() if line.strip()]
    for line in reversed(lines):
        for prefix in ("fatal: ", "error: "):
            if line.startswith(prefix):
                return line[len(prefix):][:300]
    return (lines[-1] if lines else "git failed")[:300]

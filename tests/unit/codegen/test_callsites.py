"""Call sites of the target against its new signature, alone and inside validate_draft."""

from __future__ import annotations

import pytest

from codemem.codegen.checks.callsites import check_call_sites
from codemem.codegen.checks.validate import validate_draft

HTTP = "def fetch(url, timeout, *, retries=3):\n    return url\n\n\ndef head(url):\n" \
       "    return fetch(url, 1)\n"
FILES = {
    "net/__init__.py": "",
    "net/http.py": HTTP,
    "app/main.py": "from net.http import fetch\n\n\ndef run(u):\n    return fetch(u)\n",
    "app/alias.py": "from net.http import fetch as grab\n\n\ndef go(u):\n"
                    "    return grab(u, 2, retries=1, verbose=True)\n",
    "app/mod.py": "import net.http\nfrom net import http as h\n\n\ndef a(u):\n"
                  "    return net.http.fetch(u, 1) + h.fetch(u, timeout=2, timeout2=3)\n",
    "net/rel.py": "from .http import fetch\n\n\ndef b(u, args, kw):\n"
                  "    return fetch(*args, **kw) + fetch(u, 1, 2)\n",
    "app/other.py": "def fetch(x):\n    return x\n\n\ndef c():\n    return fetch(1)\n",
}


def _failures(paths, symbol="fetch", kind="function", files=FILES, target="net/http.py"):
    return [(r.where, r.message) for r in check_call_sites(files, paths, target, symbol, kind)]


def test_every_call_that_cannot_bind_is_named_with_its_line() -> None:
    found = _failures(sorted(FILES))
    assert found == [
        ("app/alias.py:5", "the call grab(u, 2, retries=1, verbose=True) does not match the new "
                           "signature of fetch: unexpected keyword argument 'verbose'"),
        ("app/main.py:5", "the call fetch(u) does not match the new signature of fetch: "
                          "missing argument(s) 'timeout'"),
        ("app/mod.py:6", "the call h.fetch(u, timeout=2, timeout2=3) does not match the new "
                         "signature of fetch: unexpected keyword argument 'timeout2'"),
        ("net/rel.py:5", "the call fetch(u, 1, 2) does not match the new signature of fetch: "
                         "3 positional arguments given, it takes at most 2"),
    ]  # head() in net/http.py binds; *args/**kw are not judged; app/other.py has its own fetch


def test_only_the_files_asked_for_are_checked() -> None:
    assert _failures(["net/http.py"]) == []
    assert [w for w, _ in _failures(["net/http.py", "app/main.py"])] == ["app/main.py:5"]


@pytest.mark.parametrize(("source", "call", "problem"), [
    ("def f(a, /, b):\n    pass\n", "f(a=1, b=2)", "'a' is positional-only"),
    ("def f(a, b=1):\n    pass\n", "f(1, a=2)", "argument 'a' given twice"),
    ("def f(a, *, k):\n    pass\n", "f(1)", "missing argument(s) 'k'"),
    ("def f(*args, **kw):\n    pass\n", "f(1, 2, x=3)", None),
    ("class f:\n    def __init__(self, a):\n        pass\n", "f()", "missing argument(s) 'a'"),
    ("class f:\n    pass\n", "f(1, 2)", None),
])
def test_the_rules_of_binding(source: str, call: str, problem: str | None) -> None:
    files = {"m.py": source + f"\n\nx = {call}\n"}
    kind = "class" if source.startswith("class") else "function"
    found = _failures(["m.py"], "f", kind, files, "m.py")
    assert [m.rsplit(": ", 1)[-1] for _, m in found] == ([problem] if problem else [])


def test_a_method_is_checked_through_self_and_cls_in_its_class() -> None:
    source = ("class Client:\n    def send(self, url, body):\n        return url\n\n"
              "    def get(self, url):\n        return self.send(url)\n\n"
              "    @classmethod\n    def make(cls):\n        return cls.send(cls(), 1, 2)\n")
    found = _failures(["c.py"], "Client.send", "method", {"c.py": source}, "c.py")
    assert found == [("c.py:6", "the call self.send(url) does not match the new signature of "
                                "Client.send: missing argument(s) 'body'")]


def test_validate_draft_reports_callers_of_every_checked_file_as_signature_failures() -> None:
    report = validate_draft(FILES, target_path="net/http.py", expected_symbol="fetch",
                            expected_params=["url", "timeout", "retries"],
                            expected_kind="function", checks=("parse", "signature"),
                            draft_paths=["net/http.py", "app/main.py"])
    failed = [r for r in report.results if r.failed]
    assert [(r.check, r.where) for r in failed] == [("signature", "app/main.py:5")]
    assert "missing argument(s) 'timeout'" in report.as_feedback()
    alone = validate_draft(FILES, target_path="net/http.py", expected_symbol="fetch",
                           checks=("parse", "signature"))
    assert alone.ok  # the target's own file binds: a single-entity draft is judged as before

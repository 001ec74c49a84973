"""A rename read from the model's proposal (``rename_reading``): the same file, a new name the
request uses, the parameters of the one definition the request names; never a request for new
code, a new name already taken, or an ambiguous old one."""

from __future__ import annotations

import pytest

from codemem.codegen.metacode.model import MetaCode
from codemem.codegen.refactor.reading import rename_reading
from codemem.codegen.refactor.request import RenameRequest

BEFORE = ("def fetch(url, timeout=10):\n    return url\n\n\n"
          "class Client:\n    def send(self, to):\n        return to\n")


def _meta(symbol, signature, kind="function"):
    return MetaCode.from_dict({
        "target_path": "net/http.py", "symbol": symbol, "kind": kind, "signature": signature,
        "behaviour": "Same as before, new name.", "acceptance_checks": ["callers use it"]})


@pytest.mark.parametrize("request_text", [
    "fetch should be called get from now on",
    "let's call fetch get everywhere",
    "I'd prefer the name get instead of fetch",
])
def test_a_proposal_that_renames_the_named_definition_reads_as_a_rename(request_text):
    meta = _meta("get", "def get(url, timeout=10)")
    assert rename_reading(meta, request_text, BEFORE) == RenameRequest("fetch", "get",
                                                                       "net/http.py")


def test_a_method_keeps_its_class():
    meta = _meta("Client.deliver", "def deliver(self, to)", kind="method")
    assert rename_reading(meta, "Client.send should be named deliver", BEFORE) == \
        RenameRequest("Client.send", "deliver", "net/http.py")


@pytest.mark.parametrize(("request_text", "meta"), [
    ("add a function get that wraps fetch", _meta("get", "def get(url, timeout=10)")),
    ("write get next to fetch", _meta("get", "def get(url, timeout=10)")),
    ("fetch should be called get", _meta("get", "def get(url)")),  # other parameters
    ("get should also retry", _meta("get", "def get(url, timeout=10)")),  # no old name named
    ("fetch should be called Client", _meta("Client", "class Client", kind="class")),
    ("make fetch faster", _meta("fetch", "def fetch(url, timeout=10)")),
])
def test_anything_else_is_not_a_rename(request_text, meta):
    assert rename_reading(meta, request_text, BEFORE) is None

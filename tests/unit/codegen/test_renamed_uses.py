"""A drafted change that renames or removes a name: every place that still names it where no
parser follows (dynamic access, an exact string, ``__all__``, a star import) is named
``path:line`` and fails the ``signature`` check; prose is left alone."""

from __future__ import annotations

from codemem.codegen.checks.renamed_uses import check_removed_names, dynamic_uses, removed_names
from codemem.codegen.checks.validate import validate_draft

BASE = {
    "net/__init__.py": '__all__ = ["fetch"]\nfrom .http import fetch\n',
    "net/http.py": '"""fetch things."""\n\n\ndef fetch(url):\n    return url\n',
    "app/hooks.py": "import net.http\n\n\ndef pick():\n    return getattr(net.http, 'fetch')\n",
    "app/star.py": "from net.http import *\n\n\ndef run(u):\n    return fetch(u)\n",
    "app/registry.py": 'HANDLERS = {"load": "net.http.fetch"}\n',
    "app/log.py": 'def warn():\n    return "fetch failed, retrying"\n',
}
RENAMED = {"net/http.py": '"""fetch things."""\n\n\ndef get(url):\n    return url\n'}


def test_a_renamed_function_is_found_and_every_place_that_still_names_it_is_listed():
    files = {**BASE, **RENAMED}
    assert removed_names(BASE, files, ["net/http.py"]) == [("net/http.py", "fetch")]
    places = dynamic_uses(files, "fetch", "net/http.py")
    assert places == [
        "app/hooks.py:5: dynamic access names `fetch` in a string",
        "app/registry.py:1: the string 'net.http.fetch' names `fetch`",
        "app/star.py:1: `from net.http import *` may bring `fetch`",
        "net/__init__.py:1: `__all__` lists `fetch`",
    ]  # not the docstring, not the log message


def test_the_check_fails_the_signature_with_the_places_for_the_model_and_the_user():
    files = {**BASE, **RENAMED}
    [result] = check_removed_names(BASE, files, ["net/http.py"])
    assert result.check == "signature" and result.failed and result.where == "net/http.py"
    assert result.message.startswith("`fetch` is no longer defined in net/http.py")
    assert "app/hooks.py:5" in result.message and "net/__init__.py:1" in result.message


def test_a_change_that_keeps_the_name_or_an_alias_of_it_is_not_a_rename():
    kept = {"net/http.py": BASE["net/http.py"].replace("return url", "return url.strip()")}
    alias = {"net/http.py": RENAMED["net/http.py"] + "\n\nfetch = get\n"}
    for draft in (kept, alias):
        assert check_removed_names(BASE, {**BASE, **draft}, ["net/http.py"]) == []


def test_a_rename_whose_places_the_draft_updated_passes():
    files = {**BASE, **RENAMED,
             "app/hooks.py": BASE["app/hooks.py"].replace("'fetch'", "'get'"),
             "net/__init__.py": '__all__ = ["get"]\nfrom .http import get\n',
             "app/star.py": "from net.http import *\n\n\ndef run(u):\n    return get(u)\n",
             "app/registry.py": 'HANDLERS = {"load": "net.http.get"}\n'}
    paths = ["net/http.py", "app/hooks.py", "net/__init__.py", "app/star.py", "app/registry.py"]
    assert check_removed_names(BASE, files, paths) == []


def test_a_renamed_method_is_checked_by_its_bare_name():
    base = {"mail/client.py": "class Client:\n    def send(self, to):\n        return to\n",
            "mail/jobs.py": "def go(c):\n    return getattr(c, 'send')('x')\n"}
    draft = {"mail/client.py": base["mail/client.py"].replace("def send", "def deliver")}
    [result] = check_removed_names(base, {**base, **draft}, ["mail/client.py"])
    assert "`send` is no longer defined" in result.message and "mail/jobs.py:2" in result.message


def test_validate_draft_runs_it_with_the_repository_before_the_draft():
    files = {**BASE, **RENAMED}
    report = validate_draft(files, target_path="net/http.py", expected_symbol="get",
                            expected_params=["url"], expected_kind="function",
                            checks={"parse", "signature"}, base_files=BASE)
    failed = [r for r in report.results if r.failed]
    assert len(failed) == 1 and "app/hooks.py:5" in failed[0].message
    assert "app/hooks.py:5" in report.as_feedback()
    plain = validate_draft(files, target_path="net/http.py", expected_symbol="get",
                           expected_params=["url"], expected_kind="function",
                           checks={"parse", "signature"})
    assert not [r for r in plain.results if r.failed]  # without the base: nothing to compare

"""validate_draft with real libcst, real ruff and real pytest runs in the real sandbox."""

from __future__ import annotations

import os

import pytest

from codemem.codegen.checks import lint
from codemem.codegen.checks.pytest_runner import parse_junit
from codemem.codegen.checks.validate import UnknownCheck, validate_draft
from codemem.codegen.metacode.testgen import example_tests
from codemem.codegen.report import FEEDBACK_LIMIT, CheckResult, ValidationReport
from codemem.codegen.sandbox.api import run_in_sandbox

from .helpers_codegen import GOOD_SLUG, WRONG_SLUG, slug_meta

AREA = "def area(r):\n    return 3 * r * r\n"
TEST_AREA = ("from pkg.mod import area\n\nclass TestArea:\n    def test_one(self):\n"
             "        assert area(1) == 3\n\ndef test_two():\n    value = area(2)\n"
             "    assert value == 13\n")


def repo(**extra: str) -> dict[str, str]:
    files = {"pkg/__init__.py": "", "pkg/mod.py": AREA, "README.md": "# demo\n"}
    files.update(extra)
    return files


class RecordingSandbox:
    """Calls the real sandbox and remembers what it was asked to run."""

    def __init__(self) -> None:
        self.calls: list[tuple[dict, list]] = []

    def __call__(self, files, argv, **kw):
        self.calls.append((dict(files), list(argv)))
        return run_in_sandbox(files, argv, **kw)


def by_check(report: ValidationReport, check: str) -> list[CheckResult]:
    return [r for r in report.results if r.check == check]


def test_parse_uses_the_repository_python_version_and_stops_before_tests():
    src = "def area(r):\n    match r:\n        case 0:\n            return 0\n    return r\n"
    box = RecordingSandbox()
    old = validate_draft(repo(**{"pkg/mod.py": src}), target_path="pkg/mod.py",
                         expected_symbol="area", test_files={"test_a.py": TEST_AREA},
                         python_version="3.8", sandbox=box)
    parse = by_check(old, "parse")[0]
    assert parse.status == "failed" and parse.where.startswith("pkg/mod.py:")
    assert parse.where.count(":") == 2  # path:line:col
    assert "3.8" in parse.message and "Pattern matching" in parse.message
    assert [r.status for r in by_check(old, "tests")] == ["skipped"]
    assert box.calls == []
    new = validate_draft(repo(**{"pkg/mod.py": src}), target_path="pkg/mod.py",
                         expected_symbol="area", checks=("parse", "signature"),
                         python_version="3.10")
    assert new.ok


def test_newer_syntax_than_the_cat_is_parsed_by_libcst():
    src = "type Number = int\n\ndef area[T](r: T) -> T:\n    return r\n"
    files = repo(**{"pkg/mod.py": src})
    assert validate_draft(files, target_path="pkg/mod.py", expected_symbol="area",
                          expected_params=["r"], checks=("parse", "signature"),
                          python_version="3.12").ok
    failed = validate_draft(files, target_path="pkg/mod.py", checks=("parse",),
                            python_version="3.10")
    assert by_check(failed, "parse")[0].where.startswith("pkg/mod.py:1:")


def test_pathological_nesting_is_refused_without_crashing():
    src = "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"
    report = validate_draft(repo(**{"pkg/mod.py": src}), target_path="pkg/mod.py",
                            python_version="3.12")
    assert "nested deeper" in by_check(report, "parse")[0].message


@pytest.mark.parametrize("symbol,params,kind,expect", [
    ("area", ["r"], "function", "passed"),
    ("area", ["radius"], None, "parameters are (r), expected (radius)"),
    ("volume", ["r"], None, "'volume' is not defined"),
    ("area", None, "class", "should be a class"),
    ("Shape.grow", ["by", "*rest", "**kw"], "method", "passed"),
    ("Shape.grow", ["by"], "method", "parameters are (by, *rest, **kw)"),
])
def test_signature_against_the_expectation(symbol, params, kind, expect):
    src = AREA + "\n\nclass Shape:\n    def grow(self, by, *rest, **kw):\n        return by\n"
    report = validate_draft(repo(**{"pkg/mod.py": src}), target_path="pkg/mod.py",
                            expected_symbol=symbol, expected_params=params, expected_kind=kind,
                            checks=("parse", "signature"))
    sig = by_check(report, "signature")[0]
    assert sig.status == expect if expect == "passed" else expect in sig.message


def test_lint_reports_undefined_names_with_location_and_skips_tests():
    box = RecordingSandbox()
    report = validate_draft(repo(**{"pkg/mod.py": "def area(r):\n    return pi * r\n"}),
                            target_path="pkg/mod.py", expected_symbol="area",
                            test_files={"test_a.py": TEST_AREA}, sandbox=box)
    failed = by_check(report, "lint")[0]
    assert failed.status == "failed" and failed.where == "pkg/mod.py:2:12"
    assert "F821" in failed.message and "pi" in failed.message
    assert box.calls == [] and not report.ok
    assert "lint failed at pkg/mod.py:2:12" in report.as_feedback()


def test_lint_is_skipped_not_failed_without_ruff(monkeypatch):
    monkeypatch.setattr(lint, "ruff_available", lambda: False)
    report = validate_draft(repo(), target_path="pkg/mod.py", checks=("lint",))
    assert [r.status for r in report.results] == ["skipped"]
    assert report.ok


def test_ruff_syntax_codes_of_both_schemas_read_as_syntax_errors():
    for code in ("E999", "invalid-syntax", None):
        item = {"code": code, "message": "Expected an expression",
                "location": {"row": 3, "column": 9}}
        result = lint._finding(item, "a.py")
        assert result.message.startswith("syntax error") and result.where == "a.py:3:9"


def test_tests_run_in_the_sandbox_with_per_test_results():
    box = RecordingSandbox()
    files = repo(**{"pkg/unrelated.py": "import nothing_here\n", "docs/x.md": "doc"})
    report = validate_draft(files, target_path="pkg/mod.py", expected_symbol="area",
                            expected_params=["r"], test_files={"tests/test_area.py": TEST_AREA},
                            sandbox=box, timeout_s=60)
    tests = {r.where: r for r in by_check(report, "tests")}
    assert tests["tests/test_area.py::TestArea::test_one"].status == "passed"
    two = tests["tests/test_area.py::test_two"]
    assert two.status == "failed" and "assert 12 == 13" in two.message
    sent, argv = box.calls[0]
    assert "pkg/unrelated.py" not in sent and "docs/x.md" not in sent
    assert {"pkg/mod.py", "pkg/__init__.py", "tests/test_area.py"} <= set(sent)
    assert argv[:3] == ["python", "-m", "pytest"] and "-p" in argv
    assert "test_two" in report.as_feedback() and "test_one" not in report.as_feedback()


def test_missing_third_party_module_is_an_environment_problem():
    tests = {"tests/test_dep.py": "import yaml_not_installed_xyz\n\ndef test_x():\n    pass\n",
             "tests/test_local.py": "from pkg.mod import gone\n\ndef test_y():\n    pass\n",
             "tests/test_area.py": TEST_AREA.replace("13", "12")}
    report = validate_draft(repo(), target_path="pkg/mod.py", test_files=tests)
    status = {r.where: r.status for r in by_check(report, "tests")}
    assert status["tests/test_dep.py"] == "env_error"
    assert status["tests/test_local.py"] == "failed"  # the draft's fault: a local import
    assert status["tests/test_area.py::test_two"] == "passed"
    assert "environment problem" in report.as_feedback()


def test_an_endless_test_is_stopped_and_reported():
    test = "from pkg.mod import area\n\ndef test_forever():\n    while True:\n        area(1)\n"
    report = validate_draft(repo(), target_path="pkg/mod.py",
                            test_files={"test_loop.py": test}, timeout_s=3)
    last = by_check(report, "tests")[-1]
    assert last.status == "failed" and "stopped after 3 s" in last.message


def test_repository_conftest_and_plugins_only_run_inside_the_sandbox(tmp_path):
    host_canary = tmp_path / "conftest_ran.txt"
    escape = (f"try:\n    open({str(host_canary)!r} + SUFFIX, 'w').write('escaped')\n"
              "except OSError as e:\n    print('refused', e)\n")
    conftest = ("import os\nimport evil\nSUFFIX = ''\n"
                "open(os.path.join(os.getcwd(), 'inside.txt'), 'w').write('x')\n" + escape)
    test = ("import os\n\ndef test_where():\n    assert os.path.exists('inside.txt')\n"
            "    assert os.environ['PYTEST_DISABLE_PLUGIN_AUTOLOAD'] == '1'\n"
            "    assert os.getuid() != 0 or not os.access('/root', os.W_OK)\n")
    files = repo(**{"conftest.py": conftest,
                    "pyproject.toml": "[tool.pytest.ini_options]\naddopts = \"-p evil\"\n",
                    "evil.py": "SUFFIX = '.plugin'\n" + escape})
    report = validate_draft(files, target_path="pkg/mod.py", test_files={"test_w.py": test})
    assert [r.status for r in by_check(report, "tests")] == ["passed"], report.as_feedback()
    assert not host_canary.exists() and not os.path.exists(str(host_canary) + ".plugin")


def test_a_repository_plugin_that_cannot_load_is_an_environment_problem():
    files = repo(**{"pytest.ini": "[pytest]\naddopts = -p evil_plugin_not_here\n"})
    report = validate_draft(files, target_path="pkg/mod.py",
                            test_files={"test_a.py": TEST_AREA.replace("13", "12")})
    assert [r.status for r in by_check(report, "tests")] == ["env_error"]
    assert "evil_plugin_not_here" in report.as_feedback()


def test_meta_code_example_tests_pass_for_a_good_draft_and_fail_for_a_wrong_one():
    meta = slug_meta()
    tests = example_tests(meta)
    good = validate_draft({"text/__init__.py": "", "text/slug.py": GOOD_SLUG},
                          target_path=meta.target_path, expected_symbol=meta.symbol,
                          expected_params=list(meta.params()), test_files=tests)
    assert good.ok, good.as_feedback()
    wrong = validate_draft({"text/__init__.py": "", "text/slug.py": WRONG_SLUG},
                           target_path=meta.target_path, expected_symbol=meta.symbol,
                           expected_params=list(meta.params()), test_files=tests)
    assert not wrong.ok and "Hello World" in wrong.as_feedback()


def test_checks_subset_and_unknown_check():
    report = validate_draft(repo(), target_path="pkg/mod.py", checks=("parse",))
    assert [r.check for r in report.results] == ["parse"]
    with pytest.raises(UnknownCheck):
        validate_draft(repo(), target_path="pkg/mod.py", checks=("typecheck",))


def test_missing_target_is_a_parse_failure():
    report = validate_draft(repo(), target_path="pkg/new.py", expected_symbol="f")
    assert by_check(report, "parse")[0].message == "pkg/new.py is missing from the draft"


def test_junit_with_doctype_is_refused_and_feedback_stays_short():
    bomb = '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><testsuites/>'
    assert parse_junit(bomb, set())[0].status == "failed"
    cases = "".join(f'<testcase classname="t" name="test_{i}" file="t.py"><failure '
                    f'message="assert {i} == -1">E   assert {i} == -1</failure></testcase>'
                    for i in range(300))
    results = parse_junit(f"<testsuites><testsuite>{cases}</testsuite></testsuites>", set())
    assert len(results) == 200
    assert len(ValidationReport(results).as_feedback()) <= FEEDBACK_LIMIT

"""safety.precheck: pathological files are refused before any parser sees them."""

from __future__ import annotations

from codemem.memory.extract.safety import Limits, precheck

LIMITS = Limits()


def test_ordinary_source_passes():
    text = "def f(a, b):\n    return [(a, {b: (1, 2)})]\n" * 50
    assert precheck(text, "python", LIMITS) is None
    assert precheck("int main() { return (1 + (2)); }\n", "c", LIMITS) is None


def test_a_long_line_is_refused():
    reason, detail = precheck("x = 1\n" + "y" * 25_000 + "\n", "python", LIMITS)
    assert reason == "skipped:long_line"
    assert "25000 characters" in detail and "20000" in detail
    long_text = ("a = 1\n" * 500) + "z" * 30_000  # the long path of the line scan
    assert precheck(long_text, "python", LIMITS)[0] == "skipped:long_line"
    assert precheck("x = 1\n" * 1000, "python", LIMITS) is None


def test_deep_brackets_are_refused_and_counted():
    deep = "x = " + "(" * 150 + "1" + ")" * 150 + "\n"
    reason, detail = precheck(deep, "python", LIMITS)
    assert reason == "skipped:nesting"
    assert detail == "bracket depth 150 (limit 100)"
    assert precheck(deep, "python", Limits(max_bracket_depth=200)) is None


def test_brackets_in_strings_and_comments_do_not_count():
    quoted = "x = '" + "(" * 500 + "'  # " + "[" * 500 + "\n"
    assert precheck(quoted, "python", LIMITS) is None
    c_comment = "/* " + "{" * 500 + " */ int x;\n" + '// ' + "(" * 500 + "\n"
    assert precheck(c_comment, "c", LIMITS) is None
    ruby = "# " + "(" * 500 + "\nx = 1\n"
    assert precheck(ruby, "ruby", LIMITS) is None


def test_deep_indentation_is_refused():
    text = "x = 1\n" + " " * 900 + "y = 2\n"
    assert precheck(text, "python", LIMITS) == (
        "skipped:nesting", "indentation over 800 characters")
    assert precheck(text, "python", Limits(max_indent_chars=1000)) is None

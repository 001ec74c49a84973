"""Lower-case compound identifiers split into English words (memory/store/segment.py)."""

from __future__ import annotations

import sqlite3

from codemem.memory.store import fts
from codemem.memory.store.lexical import LEXICAL_VERSION, lexical_query, tokens
from codemem.memory.store.memory_store import MemoryStore, NewRow, canonical_json, content_hash
from codemem.memory.store.segment import english_words, segment


def test_compounds_split_into_the_fewest_longest_listed_words():
    assert segment("readlink") == ("read", "link")
    assert segment("formatmonth") == ("format", "month")
    assert segment("getpreparationdata") == ("get", "preparation", "data")
    assert segment("askopenfiles") == ("ask", "open", "files")


def test_words_short_names_and_non_letters_stay_whole():
    assert "island" in english_words() and segment("island") == ()  # a word: never split
    assert segment("getid") == ()  # under six letters
    assert segment("setseq2") == segment("parse_args") == segment("ReadLink") == ()
    assert segment("xqzvbwrtk") == ()  # no split into listed words
    assert segment("abandonabandonabandonabandon") == ()  # would need four parts


def test_tokens_add_the_words_of_a_compound_after_its_identifier_parts():
    assert tokens("readlink") == ["readlink", "read", "link"]
    assert tokens("set_defaultvalue") == ["set_defaultvalu", "set", "defaultvalu", "default",
                                          "valu"]
    assert tokens("isreading") == ["isread"]  # "is" is under three letters: left whole


def test_a_question_in_words_finds_a_lower_case_compound_name(tmp_path):
    store = MemoryStore(str(tmp_path / "m.db"))

    def code(name, body):
        meta = canonical_json({"type": "code_entity", "kind": "function", "name": name,
                               "qualified_name": name, "path": "p.py"})
        text = f"def {name}(self):\n    {body}"
        return NewRow(name, text, meta, content_hash(text, meta))
    store.insert_many([code("readlink", "return os.readlink(self.strpath)"),
                       code("resolve", "return self.real")], None)
    assert store.lexical(lexical_query("The value of a symbolic link"), 5) == [1]
    store.close()


def test_an_index_built_by_the_previous_analysis_is_rebuilt_with_the_parts(tmp_path):
    path = str(tmp_path / "m.db")
    store = MemoryStore(path)
    meta = canonical_json({"type": "code_entity", "kind": "function", "name": "formatmonth",
                           "qualified_name": "TextCalendar.formatmonth", "path": "cal.py"})
    text = "def formatmonth(self, year, month):\n    return self.lines(year, month)"
    store.insert_many([NewRow("m", text, meta, content_hash(text, meta))], None)
    store.close()
    with sqlite3.connect(path, isolation_level=None) as conn:  # as the previous version left it
        conn.execute("DELETE FROM lexical_fts")
        conn.execute("INSERT INTO lexical_fts (rowid, name, qualname, signature, body, calls, "
                     "meta) VALUES (1, 'formatmonth', 'textcalendar formatmonth cal py', '', "
                     "'formatmonth', '', 'kind function')")
        conn.execute("UPDATE meta SET value='code-fields-1' WHERE key='lexical_version'")
        assert fts.search(conn, ["format"], 5) == []
    store = MemoryStore(path)  # opening notices the older analysis and rebuilds
    assert store.lexical(["format"], 5) == [1]
    store.close()
    with sqlite3.connect(path) as conn:
        assert fts.meta_value(conn, "lexical_version") == LEXICAL_VERSION

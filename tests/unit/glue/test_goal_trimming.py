"""At a 4,096-token window the generation prompt keeps what the goal needs.

The regression (issue 35): in a real Cat with TinyDB as a library source, the generation prompt
of "write save_note, store the note in the 'notes' table, use the TinyDB API" kept the
1,900-character docstring of the ``TinyDB`` class and cut ``Table.insert``, the one call the
goal needs. Here a TinyDB-like library (its classes' long docstrings, the ``Table`` methods,
queries, storages and middlewares that share the goal's words) is an associative source of a
repository; the model is a scripted stand-in whose scorer ranks as the real model did: the
``TinyDB`` class and its ``table`` method first, then ``Table``, ``Query`` and ``JSONStorage``,
then ``Table.insert``, then the repository's helpers; the window is 4,096 tokens. The
generation prompt the model receives (after the plugin fitted it) must hold the
``Table.insert`` fact, and say what it cut. (Before the fitting kept what the goal names, the
last block went first: ``Table.insert``, ranked last, was cut.)
"""

from __future__ import annotations

import pytest

from codemem.app import entry, process
from codemem.app.host import llm_port

from ...fakes import FunctionLLM
from .glue_support import drafting_reply, make_cat, say, settings_of, state_of, wait_for_draft

REQUEST = ("write save_note in text_utils.py, store the note in the 'notes' table, use the "
           "TinyDB API")
METACODE = {
    "target_path": "text_utils.py", "symbol": "save_note", "kind": "function",
    "signature": "def save_note(note: str) -> int",
    "behaviour": "Store the note in the 'notes' table of a TinyDB database and return its id.",
    "examples": [{"call": "isinstance(save_note('hi'), int)", "expected": True},
                 {"call": "save_note(None)", "raises": "TypeError"}],
    "constraints": ["store the note in the 'notes' table", "use the TinyDB API"],
    "acceptance_checks": ["the note is stored in the notes table"]}
DRAFT = ("```python entity=text_utils.py::save_note\ndef save_note(note: str) -> int:\n"
         "    from tinydb import TinyDB\n"
         "    return TinyDB('db.json').table('notes').insert({'note': note})\n```\n")


def _paragraphs(subject: str, count: int) -> str:
    """A long docstring body: ``count`` paragraphs about ``subject`` (about 300 characters
    each), as real libraries write them."""
    text = [f"{subject} keeps documents of the database in a table, with an id for each one.",
            ""]
    for i in range(count):
        text += [f"    Usage note {i + 1}: the {subject} works with any storage; documents are "
                 "plain dicts, queries are built with Query, and every change is written "
                 "through the storage, which a middleware such as CachingMiddleware may wrap "
                 "to keep writes in memory until the database is closed.", ""]
    return "\n".join(text).rstrip()


def library() -> dict[str, str]:
    """A TinyDB-like package: the database's class with a 1,900-character docstring, its
    tables' methods, and the classes around them that share the goal's words."""
    return {
        "__init__.py": '"""A tiny document database."""\nfrom .database import TinyDB\n'
                       "from .queries import Query, where\nfrom .table import Document, Table\n",
        "database.py": _database(), "table.py": _table(), **_around()}


def _database() -> str:
    return f'''from .table import Table


class TinyDB:
    """{_paragraphs("TinyDB database", 7)}
    """

    def __init__(self, path: str, storage: object = None) -> None:
        self.path = path

    def table(self, name: str, cache_size: int = 10) -> Table:
        """The table called name (created on first use)."""
        return Table(self, name)

    def tables(self) -> set:
        """The names of every table."""
        return set()

    def drop_table(self, name: str) -> None:
        """Remove the table called name and its documents."""

    def close(self) -> None:
        """Close the storage."""
'''


def _table() -> str:
    return f'''class Document(dict):
    """{_paragraphs("Document", 2)}
    """

    def __init__(self, value: dict, doc_id: int) -> None:
        super().__init__(value)
        self.doc_id = doc_id


class Table:
    """{_paragraphs("Table", 3)}
    """

    def __init__(self, db: object, name: str) -> None:
        self.name = name

    def insert(self, document: dict) -> int:
        """Insert a new document into the table and return its document id."""
        return 1

    def insert_multiple(self, documents: list) -> list:
        """Insert several documents into the table; their ids."""
        return []

    def all(self) -> list:
        """Every document of the table."""
        return []

    def search(self, cond: object) -> list:
        """The documents of the table matching the condition."""
        return []

    def update(self, fields: dict, cond: object = None) -> list:
        """Update the documents of the table matching the condition."""
        return []

    def remove(self, cond: object = None) -> list:
        """Remove the documents of the table matching the condition."""
        return []

    def truncate(self) -> None:
        """Remove every document of the table."""
'''


def _around() -> dict[str, str]:
    return {
        "queries.py": f'''class Query:
    """{_paragraphs("Query", 5)}
    """

    def __init__(self) -> None:
        self.path = ()


def where(key: str) -> Query:
    """A query on the field key of every document in a table."""
    return Query()
''',
        "storages.py": f'''class Storage:
    """{_paragraphs("Storage", 3)}
    """

    def read(self) -> dict:
        """The database's tables as a dict."""
        return {{}}


class JSONStorage(Storage):
    """{_paragraphs("JSONStorage", 3)}
    """


class MemoryStorage(Storage):
    """{_paragraphs("MemoryStorage", 2)}
    """
''',
        "middlewares.py": f'''class CachingMiddleware:
    """{_paragraphs("CachingMiddleware", 4)}
    """

    def flush(self) -> None:
        """Write every cached table of the database through to the storage."""
''',
    }


def repository() -> dict[str, str]:
    """The user's repository: text helpers that share words with any goal ("return", "text"),
    each a screen long, which the retrieval keeps and the goal never names."""
    helpers = []
    for name in ("shout", "whisper", "title_case", "wrap_lines", "strip_accents", "count_words"):
        helpers.append(f'''def {name}(text: str) -> str:
    """Return the text changed by {name}.

    The text is read as given; the result is returned as a new string and the input is left
    unchanged. Empty text returns empty text; every other return value keeps the line breaks.
    """
    result = []
    for line in text.splitlines():
        words = [word for word in line.split(" ") if word]
        result.append(" ".join(words))
    return "\\n".join(result)
''')
    return {"text_utils.py": "\n\n".join(helpers)}


#: the scores the stand-in gives, by a phrase of the memory (the first that matches)
RANKING = (("tinydb.TinyDB  (class", 0.95), ("tinydb.TinyDB.table ", 0.95),
           ("tinydb.Table  (class", 0.9), ("tinydb.Query  (class", 0.9),
           ("JSONStorage  (class", 0.9), ("tinydb.Table.insert ", 0.8),
           ("(text: str) -> str", 0.75))


def score(memory: str) -> tuple[float, str]:
    return next(((value, "ranked") for phrase, value in RANKING if phrase in memory),
                (0.1, "unrelated"))


def answer(prompt: str) -> str:
    return drafting_reply(prompt, score, METACODE, DRAFT)


@pytest.fixture
def cat(tmp_path, monkeypatch):
    repo = tmp_path / "workspace"
    repo.mkdir()
    for name, text in repository().items():
        (repo / name).write_text(text)
    package = tmp_path / "vendor" / "tinydb"
    package.mkdir(parents=True)
    for name, text in library().items():
        (package / name).write_text(text)
    cat, _, _ = make_cat(tmp_path, repo)
    settings_of(cat).update(associative_sources=str(tmp_path / "vendor"), extended_loop=False,
                            check_tests=False, check_judge=False, context_window="4096")
    monkeypatch.setattr(llm_port, "cat_llm", FunctionLLM(answer, limit=20))
    entry.start_indexing(cat)
    for project in process.GENERATION.registry.projects():
        project.indexer.join(120)
    return cat


def test_the_table_insert_fact_reaches_save_notes_generation_prompt_at_4096(cat):
    assert len(library()["database.py"].split('"""')[1]) > 1900  # the class's long docstring
    say(cat, REQUEST)
    assert say(cat, "go").startswith("Drafting `save_note`")
    wait_for_draft(cat)
    generation = next(p for p in llm_port.cat_llm.prompts
                      if p.startswith("You write Python code for one goal"))
    api = state_of(cat).note("iter1.context")["api"]
    assert api.index("tinydb.Table.insert (vendor)") == len(api) - 1  # retrieved, ranked last
    assert "Table.insert" in generation and "def insert(self, document: dict) -> int" in \
        generation, generation
    assert "TinyDB" in generation  # the class the goal names is there too...
    assert "Usage note 2" not in generation  # ... its docstring cut to its first paragraph
    assert "cut to fit the model's context window" in generation  # and the cut is said

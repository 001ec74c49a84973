"""Method renames: self/cls uses, the class by name, property decorators; unknown receivers
and overrides refused with their places."""

from __future__ import annotations

from codemem.codegen.refactor.edits import Refused, Renamed
from codemem.codegen.refactor.rename import rename_symbol

HTTP = ("class Client:\n    def send(self, u):\n        return u\n\n"
        "    def get(self, u):\n        return self.send(u)\n\n"
        "    @classmethod\n    def make(cls):\n        return cls.send(cls(), 1)\n\n"
        "    @property\n    def size(self):\n        return 1\n\n"
        "    @size.setter\n    def size(self, v):\n        pass\n")
USE = "from net.http import Client\n\n\ndef go():\n    return Client.send(Client(), 1)\n"


def test_definition_self_cls_and_class_uses_are_renamed() -> None:
    result = rename_symbol({"net/http.py": HTTP, "app/use.py": USE}, "net/http.py",
                           "Client.send", "post")
    assert isinstance(result, Renamed)
    assert result.files["net/http.py"] == HTTP.replace("def send", "def post").replace(
        "self.send(u)", "self.post(u)").replace("cls.send(", "cls.post(")
    assert result.files["app/use.py"] == USE.replace("Client.send(", "Client.post(")


def test_a_property_and_its_setter_follow_together() -> None:
    result = rename_symbol({"net/http.py": HTTP}, "net/http.py", "Client.size", "length")
    assert isinstance(result, Renamed)
    text = result.files["net/http.py"]
    assert "def length(self):" in text and "@length.setter\n    def length(self, v):" in text
    assert "size" not in text


def test_unknown_receivers_overrides_and_taken_names_are_refused() -> None:
    repo = {"net/http.py": HTTP,
            "app/use.py": "from net.http import Client\n\n\ndef go(c):\n    return c.send(1)\n",
            "app/sub.py": "from net.http import Client\n\n\nclass Mine(Client):\n"
                          "    def send(self, u):\n        return u\n"}
    result = rename_symbol(repo, "net/http.py", "Client.send", "post")
    assert isinstance(result, Refused)
    assert result.places == (
        "app/sub.py:5: `Mine.send` overrides `Client.send`; rename it too, by hand",
        "app/use.py:5: cannot tell whether `c.send` is `Client.send` (the object's type is "
        "unknown)")
    taken = rename_symbol({"net/http.py": HTTP}, "net/http.py", "Client.send", "get")
    assert isinstance(taken, Refused)
    assert taken.places == ("net/http.py:5: `get` is already a member of `Client`",)
    missing = rename_symbol({"net/http.py": HTTP}, "net/http.py", "Client.nope", "x")
    assert isinstance(missing, Refused)
    assert missing.message() == "`Client.nope` is not defined in net/http.py"

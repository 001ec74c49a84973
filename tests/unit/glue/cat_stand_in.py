"""A stand-in for the parts of the ``cat`` package the plugin's glue imports, so that
``hooks.py``, ``tools.py``, ``forms.py``, ``settings.py`` and ``endpoints.py`` import and run
without the Cat.

It keeps the rules the plugin depends on (docs/cat-plugin-api.md): decorated hooks, tools, forms
and ``@plugin`` overrides are objects the loader finds by type in each module; a form's state
machine (``CatFormState``), ``validate`` with the model class, and an LLM ``update`` that
learns nothing here. ``installed()`` puts the modules into ``sys.modules`` for the duration of a
test and takes them out again (the plugin's own unit tests run without any ``cat`` module).
"""

from __future__ import annotations

import contextlib
import sys
import types
from collections.abc import Callable, Iterator
from enum import Enum
from typing import Any

from pydantic import ValidationError


class HookStandIn:
    """``CatHook``: a hook's name, function and priority."""

    def __init__(self, name: str, function: Callable[..., Any], priority: int) -> None:
        self.name, self.function, self.priority = name, function, priority


def hook(*args: Any, priority: int = 1) -> Any:
    """``@hook``, ``@hook(priority=2)`` or ``@hook("name", priority=2)``."""
    if len(args) == 1 and callable(args[0]):
        return HookStandIn(args[0].__name__, args[0], priority)
    name = args[0] if args else None
    return lambda function: HookStandIn(name or function.__name__, function, priority)


class ToolStandIn:
    """``CatTool``: name, function (called as ``func(input, cat=cat)``), examples."""

    def __init__(self, function: Callable[..., Any], return_direct: bool,
                 examples: list[str]) -> None:
        assert function.__doc__, "the Cat refuses a tool without a docstring"
        self.name, self.func = function.__name__, function
        self.return_direct, self.examples = return_direct, examples


def tool(*args: Any, return_direct: bool = False, examples: list[str] | None = None) -> Any:
    if len(args) == 1 and callable(args[0]):
        return ToolStandIn(args[0], return_direct, [])
    return lambda function: ToolStandIn(function, return_direct, examples or [])


class PluginOverride:
    """``CatPluginDecorator``: one of the six overrides, keyed by the function's name."""

    def __init__(self, function: Callable[..., Any]) -> None:
        self.name, self.function = function.__name__, function


def plugin(function: Callable[..., Any]) -> PluginOverride:
    return PluginOverride(function)


class CatFormState(Enum):
    INCOMPLETE = "incomplete"
    COMPLETE = "complete"
    WAIT_CONFIRM = "wait_confirm"
    CLOSED = "closed"


class CatForm:
    """``CatForm``'s state, ``validate`` and LLM ``update`` (nothing more is used)."""

    model_class: Any = None
    _autopilot = False

    def __init__(self, cat: Any) -> None:
        self._cat = cat
        self._state = CatFormState.INCOMPLETE
        self._model: dict[str, Any] = {}
        self._missing_fields: list[str] = []
        self._errors: list[str] = []
        self.llm_extractions = 0

    @property
    def cat(self) -> Any:
        return self._cat

    def __getstate__(self) -> dict[str, Any]:
        """Pickled without its cat: the simulated Cat re-attaches the turn's cat on load."""
        return {k: v for k, v in vars(self).items() if k != "_cat"}

    def validate(self) -> None:
        self._missing_fields, self._errors = [], []
        try:
            self.model_class(**self._model)
            self._state = CatFormState.COMPLETE
        except ValidationError as err:
            for error in err.errors():
                name = error["loc"][0]
                if error["type"] == "missing":
                    self._missing_fields.append(name)
                else:
                    self._errors.append(f"{name}: {error['msg']}")
                    del self._model[name]
            self._state = CatFormState.INCOMPLETE

    def update(self) -> None:
        self.llm_extractions += 1  # the Cat would ask its LLM here; the stand-in learns nothing
        self.validate()


def form(cls: type) -> type:
    cls._autopilot = True  # type: ignore[attr-defined]
    cls.name = cls.__name__  # type: ignore[attr-defined]
    return cls


class EndpointStandIn:
    """``CustomEndpoint``: the route (``/custom`` + path), its methods and function."""

    def __init__(self, path: str, methods: set[str], function: Callable[..., Any]) -> None:
        self.name, self.methods, self.function = "/custom" + path, methods, function


class _Endpoints:
    """``endpoint``: ``@endpoint.get(path, tags=...)``, ``@endpoint.post(path)``."""

    def _route(self, path: str, methods: set[str]) -> Callable[..., EndpointStandIn]:
        return lambda function: EndpointStandIn(path, methods, function)

    def get(self, path: str, **kwargs: Any) -> Callable[..., EndpointStandIn]:
        return self._route(path, {"GET"})

    def post(self, path: str, **kwargs: Any) -> Callable[..., EndpointStandIn]:
        return self._route(path, {"POST"})


class AuthResource(str, Enum):
    STATUS = "STATUS"
    MEMORY = "MEMORY"
    CONVERSATION = "CONVERSATION"


class AuthPermission(str, Enum):
    WRITE = "WRITE"
    EDIT = "EDIT"
    LIST = "LIST"
    READ = "READ"
    DELETE = "DELETE"


def check_permissions(resource: AuthResource, permission: AuthPermission) -> object:
    """The Cat's dependency; here only what a route asked for."""
    return (resource, permission)


class CheshireCatStandIn:
    """``CheshireCat()``: the Cat's shared LLM (calls outside a user's turn)."""

    llm: Callable[[str], str] = staticmethod(lambda prompt: "CAT-ANSWER")  # type: ignore


@contextlib.contextmanager
def installed(shared_llm: Callable[[str], str]) -> Iterator[None]:
    """The stand-in ``cat`` modules in ``sys.modules`` for the duration of the block."""
    modules = {
        "cat": {}, "cat.mad_hatter": {},
        "cat.mad_hatter.decorators": {"hook": hook, "tool": tool, "plugin": plugin,
                                      "endpoint": _Endpoints()},
        "cat.auth": {},
        "cat.auth.permissions": {"AuthResource": AuthResource, "AuthPermission": AuthPermission,
                                 "check_permissions": check_permissions},
        "cat.experimental": {},
        "cat.experimental.form": {"CatForm": CatForm, "CatFormState": CatFormState,
                                  "form": form},
        "cat.looking_glass": {},
        "cat.looking_glass.cheshire_cat": {"CheshireCat": CheshireCatStandIn},
    }
    saved = {name: sys.modules.get(name) for name in modules}
    CheshireCatStandIn.llm = staticmethod(shared_llm)  # type: ignore[assignment]
    for name, members in modules.items():
        module = types.ModuleType(name)
        module.__path__ = []  # type: ignore[attr-defined]  # a package, for the submodules
        vars(module).update(members)
        sys.modules[name] = module
    try:
        yield
    finally:
        for name, module in saved.items():
            if module is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = module

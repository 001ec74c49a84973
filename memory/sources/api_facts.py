"""What a Python module of a source offers a caller, read with ``ast`` (never imported or run).

Why facts beside the entity memories: validation must answer "does ``requests.Session`` take a
``timeout`` keyword?" exactly and fast, for names re-exported through ``__init__`` files and
inherited through base classes. The facts are small JSON-friendly records per module (names,
signatures, imports, ``__all__``), stored per file and content hash, so re-indexing a library
re-reads only the files that changed. Anything this reader cannot see for sure (a module-level
``__getattr__``, ``globals()`` tricks, syntax newer than the Cat's Python) marks the module
``dynamic`` or ``parsed=False``: the lookup then answers "unknown" instead of guessing.
"""

from __future__ import annotations

import ast
from dataclasses import asdict, dataclass, field, replace
from pathlib import PurePosixPath
from typing import Any  # only for JSON objects (to_dict/from_dict): values are any JSON

from ..extract.decode import decode_source
from ..extract.safety import Limits, precheck

#: Decorators that keep a function's call signature (anything else makes it unknown).
TRANSPARENT_DECORATORS = frozenset({
    "abstractmethod", "abc.abstractmethod", "final", "typing.final", "override",
    "typing.override", "typing_extensions.override", "typing_extensions.final",
    "functools.lru_cache", "lru_cache", "functools.cache", "cache",
})
METHOD_DECORATORS = frozenset({"staticmethod", "classmethod"})
PROPERTY_DECORATORS = frozenset({"property", "functools.cached_property", "cached_property",
                                 "abc.abstractproperty"})

_MAX_TEXT = 160


@dataclass(frozen=True)
class Param:
    """One parameter: ``kind`` is posonly, normal, varargs, kwonly or varkw."""

    name: str
    kind: str
    default: bool = False
    text: str = ""


@dataclass(frozen=True)
class FunctionFact:
    """A function or method: its parameters and how it is decorated."""

    name: str
    params: tuple[Param, ...]
    returns: str = ""
    decorators: tuple[str, ...] = ()
    #: How many definitions share the name (overloads, conditional definitions).
    definitions: int = 1
    line: int = 0


@dataclass(frozen=True)
class ClassFact:
    """A class: its bases as written, its methods and the attributes it assigns."""

    name: str
    bases: tuple[str, ...] = ()
    decorators: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()
    methods: dict[str, FunctionFact] = field(default_factory=dict)
    attributes: tuple[str, ...] = ()
    classes: dict[str, ClassFact] = field(default_factory=dict)
    dynamic: bool = False
    line: int = 0


@dataclass(frozen=True)
class ModuleFact:
    """A module's top-level names. ``imports`` maps a local name to an absolute dotted path."""

    module: str
    path: str
    parsed: bool = True
    functions: dict[str, FunctionFact] = field(default_factory=dict)
    classes: dict[str, ClassFact] = field(default_factory=dict)
    variables: tuple[str, ...] = ()
    imports: dict[str, str] = field(default_factory=dict)
    star_imports: tuple[str, ...] = ()
    all_names: tuple[str, ...] | None = None
    dynamic: bool = False
    detail: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ModuleFact:
        return cls(
            module=data["module"], path=data["path"], parsed=data.get("parsed", True),
            functions={k: _function(v) for k, v in data.get("functions", {}).items()},
            classes={k: _class(v) for k, v in data.get("classes", {}).items()},
            variables=tuple(data.get("variables", ())), imports=dict(data.get("imports", {})),
            star_imports=tuple(data.get("star_imports", ())),
            all_names=None if data.get("all_names") is None else tuple(data["all_names"]),
            dynamic=bool(data.get("dynamic")), detail=str(data.get("detail", "")))

    def public_names(self) -> list[str]:
        """Names a caller may use: ``__all__`` when given, else every non-underscore name."""
        if self.all_names is not None:
            return list(self.all_names)
        names = [*self.functions, *self.classes, *self.variables, *self.imports]
        return sorted({n for n in names if not n.startswith("_")})


def with_runtime(stub: ModuleFact, runtime: ModuleFact) -> ModuleFact:
    """A stub's signatures plus the names of the module it describes: stubs can be incomplete,
    so a name either defines exists, and either being dynamic (or the runtime module being
    unreadable) makes the module dynamic."""
    if not stub.parsed:
        return runtime
    classes = dict(runtime.classes)
    for name, cls in stub.classes.items():
        other = classes.get(name)
        classes[name] = cls if other is None else replace(
            cls, methods={**other.methods, **cls.methods},
            attributes=tuple(sorted(set(cls.attributes) | set(other.attributes))),
            classes={**other.classes, **cls.classes}, dynamic=cls.dynamic or other.dynamic)
    return replace(
        stub, functions={**runtime.functions, **stub.functions}, classes=classes,
        variables=tuple(sorted(set(stub.variables) | set(runtime.variables))),
        imports={**runtime.imports, **stub.imports},
        star_imports=tuple(dict.fromkeys(stub.star_imports + runtime.star_imports)),
        dynamic=stub.dynamic or runtime.dynamic or not runtime.parsed)


def _function(data: dict[str, Any]) -> FunctionFact:
    return FunctionFact(data["name"], tuple(Param(**p) for p in data["params"]),
                        data.get("returns", ""), tuple(data.get("decorators", ())),
                        int(data.get("definitions", 1)), int(data.get("line", 0)))


def _class(data: dict[str, Any]) -> ClassFact:
    return ClassFact(
        data["name"], tuple(data.get("bases", ())), tuple(data.get("decorators", ())),
        tuple(data.get("keywords", ())),
        {k: _function(v) for k, v in data.get("methods", {}).items()},
        tuple(data.get("attributes", ())),
        {k: _class(v) for k, v in data.get("classes", {}).items()},
        bool(data.get("dynamic")), int(data.get("line", 0)))


def module_name(path: str, prefix: str = "") -> str | None:
    """``pkg/sub/mod.py`` -> ``pkg.sub.mod`` (``__init__`` is the package); None if the path
    cannot be a module (not ``.py``/``.pyi``, a hyphen or dot in a folder name)."""
    pure = PurePosixPath(path)
    if pure.suffix not in (".py", ".pyi"):
        return None
    parts = [*pure.parent.parts, pure.stem]
    if parts[-1] == "__init__":
        parts.pop()
    if prefix:
        parts.insert(0, prefix)
    if not parts or not all(p.isidentifier() for p in parts):
        return None
    return ".".join(parts)


def read_module(path: str, module: str, data: bytes, limits: Limits | None = None) -> ModuleFact:
    """The facts of one module's source bytes; a file that cannot be read is ``parsed=False``."""
    decoded = decode_source(data, "python")
    if decoded.text is None:
        return ModuleFact(module, path, parsed=False, detail=decoded.reason or "undecodable")
    refused = precheck(decoded.text, "python", limits or Limits())
    if refused is not None:
        return ModuleFact(module, path, parsed=False, detail=refused[0])
    try:
        tree = ast.parse(decoded.text, filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as err:
        return ModuleFact(module, path, parsed=False, detail=f"{type(err).__name__}: {err}"[:200])
    return _ModuleReader(module, path.endswith("__init__.py") or path.endswith("__init__.pyi"),
                         path).read(tree)


class _ModuleReader:
    """Collects the top-level names of one parsed module (conditional blocks included)."""

    def __init__(self, module: str, is_package: bool, path: str) -> None:
        self.module, self.path = module, path
        self.package = module if is_package else module.rpartition(".")[0]
        self.functions: dict[str, FunctionFact] = {}
        self.classes: dict[str, ClassFact] = {}
        self.variables: set[str] = set()
        self.imports: dict[str, str] = {}
        self.stars: list[str] = []
        self.all_names: list[str] | None = None
        self.dynamic = False

    def read(self, tree: ast.Module) -> ModuleFact:
        for node in _top_level(tree.body):
            self._statement(node)
        self.dynamic = self.dynamic or _uses_dynamic_globals(tree)
        self.variables |= _declared_globals(tree)
        return ModuleFact(
            self.module, self.path, True, self.functions, self.classes,
            tuple(sorted(self.variables - set(self.functions) - set(self.classes))),
            self.imports, tuple(self.stars),
            None if self.all_names is None else tuple(self.all_names), self.dynamic)

    def _statement(self, node: ast.stmt) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if node.name == "__getattr__":
                self.dynamic = True
            self.functions[node.name] = _merge(self.functions.get(node.name), function_fact(node))
        elif isinstance(node, ast.ClassDef):
            self.classes[node.name] = class_fact(node)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self._import(node)
        else:
            self._assignment(node)

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self.imports[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    self.imports.setdefault(top, top)
            return
        base = self._absolute(node.module or "", node.level)
        for alias in node.names:
            if alias.name == "*":
                self.stars.append(base)
            else:
                self.imports[alias.asname or alias.name] = f"{base}.{alias.name}".strip(".")

    def _absolute(self, module: str, level: int) -> str:
        if not level:
            return module
        parts = self.package.split(".") if self.package else []
        parts = parts[:len(parts) - (level - 1)] if level > 1 else parts
        return ".".join([*parts, module] if module else parts)

    def _assignment(self, node: ast.stmt) -> None:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                self.all_names = _string_list(node.value)
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
            if (isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name)
                    and node.target.id == "__all__" and self.all_names is not None):
                self.all_names += _string_list(node.value) or []
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    self.variables.add(name.id)


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements at module level, including those inside ``if``/``try``/``with`` blocks."""
    out: list[ast.stmt] = []
    for node in body:
        if isinstance(node, ast.If):
            out += _top_level(node.body) + _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            out += _top_level(node.body) + _top_level(node.orelse) + _top_level(node.finalbody)
            for handler in node.handlers:
                out += _top_level(handler.body)
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            out += _top_level(node.body)
        else:
            out.append(node)
    return out


def _uses_dynamic_globals(tree: ast.Module) -> bool:
    """``globals()``/``vars()`` or ``setattr(sys.modules[...], ...)``: names we cannot see."""
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
            continue
        if node.func.id in ("globals", "vars") and not node.args:
            return True
        if node.func.id == "setattr" and node.args and "modules" in ast.unparse(node.args[0]):
            return True
    return False


def _declared_globals(tree: ast.Module) -> set[str]:
    """Names that functions declare ``global`` (assigned at run time, but module names)."""
    return {name for node in ast.walk(tree) if isinstance(node, ast.Global)
            for name in node.names}


def _string_list(node: ast.expr) -> list[str] | None:
    if isinstance(node, (ast.List, ast.Tuple)):
        names = [e.value for e in node.elts if isinstance(e, ast.Constant)
                 and isinstance(e.value, str)]
        return names if len(names) == len(node.elts) else None
    return None


def dotted(node: ast.expr) -> str:
    """``a.b.c`` of a Name/Attribute chain (calls like ``x()`` are ``""``)."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    if isinstance(node, ast.Call):
        return dotted(node.func)  # @decorator(args): the decorator's name
    return ""


def _text(node: ast.expr | None) -> str:
    if node is None:
        return ""
    text = ast.unparse(node)
    return text if len(text) <= _MAX_TEXT else text[:_MAX_TEXT - 3] + "..."


def function_fact(node: ast.FunctionDef | ast.AsyncFunctionDef) -> FunctionFact:
    """The parameters (with rendered annotations and defaults) and decorators of a def."""
    args = node.args
    params: list[Param] = []
    positional = [*args.posonlyargs, *args.args]
    defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
    for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind = "posonly" if i < len(args.posonlyargs) else "normal"
        params.append(_param(arg, kind, default))
    if args.vararg:
        params.append(_param(args.vararg, "varargs", None))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        params.append(_param(arg, "kwonly", default))
    if args.kwarg:
        params.append(_param(args.kwarg, "varkw", None))
    return FunctionFact(node.name, tuple(params), _text(node.returns),
                        tuple(dotted(d) for d in node.decorator_list), 1, node.lineno)


def _param(arg: ast.arg, kind: str, default: ast.expr | None) -> Param:
    text = arg.arg
    if arg.annotation is not None:
        text += f": {_text(arg.annotation)}"
    if default is not None:
        text += f" = {_text(default)}" if arg.annotation is not None else f"={_text(default)}"
    prefix = {"varargs": "*", "varkw": "**"}.get(kind, "")
    return Param(arg.arg, kind, default is not None, prefix + text)


def _merge(old: FunctionFact | None, new: FunctionFact) -> FunctionFact:
    """A second definition of the same name (overload, if/else): remember there were several."""
    if old is None:
        return new
    decorators = tuple(dict.fromkeys(old.decorators + new.decorators))
    return FunctionFact(new.name, new.params, new.returns, decorators,
                        old.definitions + 1, new.line)


def class_fact(node: ast.ClassDef) -> ClassFact:
    """Methods, nested classes and every attribute a class body or its methods assign."""
    methods: dict[str, FunctionFact] = {}
    classes: dict[str, ClassFact] = {}
    attributes: set[str] = set()
    for item in _top_level(node.body):
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            methods[item.name] = _merge(methods.get(item.name), function_fact(item))
            attributes |= _self_attributes(item)
        elif isinstance(item, ast.ClassDef):
            classes[item.name] = class_fact(item)
        elif isinstance(item, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = item.targets if isinstance(item, ast.Assign) else [item.target]
            attributes |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    dynamic = bool({"__getattr__", "__getattribute__"} & set(methods))
    return ClassFact(
        node.name, tuple(dotted(b) for b in node.bases),
        tuple(dotted(d) for d in node.decorator_list),
        tuple(k.arg or "**" for k in node.keywords), methods,
        tuple(sorted(attributes - set(methods))), classes, dynamic, node.lineno)


def _self_attributes(method: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """``self.x = ...`` (any first-parameter name) inside a method."""
    if not method.args.args and not method.args.posonlyargs:
        return set()
    first = (method.args.posonlyargs or method.args.args)[0].arg
    found = set()
    for node in ast.walk(method):
        if (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store)
                and isinstance(node.value, ast.Name) and node.value.id == first):
            found.add(node.attr)
    return found

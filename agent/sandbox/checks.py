"""Static checks run before untrusted node code executes.

`check_code(code)` returns a one-line refusal reason (`"forbidden: open"`) or
None. The rules close the usual ways out of a restricted namespace:

- imports only from `ALLOWED_MODULES` (and the worker hands out trimmed copies
  of those modules, without their submodules: `re.enum.sys` does not exist);
- no name, attribute, argument or pattern attribute starting with `_`
  (so no `__class__`, `__globals__`, `__subclasses__` walks);
- the attribute rules below hold for every way the language names an
  attribute: `x.attr` (read, assigned, deleted, in f-strings, decorators and
  `case a.b:` value patterns), class-pattern keywords (`case str(format=f)`
  reads `x.format`), `from module import name` (an attribute of the module),
  `hasattr(x, "name")` (only with a literal name that passes the rules) and
  `str.format` fields (below);
- positional class patterns (`case C(p)`) read the attributes the class's
  `__match_args__` names, which the code does not show: they are allowed only
  for the built-in types that match themselves (`case str(s)`), and
  named-tuple field names (which fill `__match_args__`) are judged like
  attributes, here for literal names and in the worker for computed ones;
- no attribute of an exception that carries an object (`AttributeError.obj`:
  inside a format walk, an object node code never held);
- no frame, code or traceback attributes (`gi_frame`, `f_back`, `tb_frame`,
  `co_code`, ...), which walk to other frames' globals without underscores;
- `.format` / `.format_map` only called directly on a string literal whose
  fields hold no attribute access (`"{0.__class__}".format(x)` is refused);
- builtins only from `ALLOWED_BUILTINS`: reading a forbidden one (`open`,
  `eval`, `getattr`, ...) is refused as forbidden, so it never looks like a
  placeholder to expand;
- no assignment to the injected helpers (`run`, `print`, `re`, ...);
- no assignment or deletion of an attribute of anything node code did not
  make: a module, a name imported from one (now or by an earlier node), a
  helper or a builtin, however deep the attribute (`json.JSONEncoder.encode
  = f`, `from json import JSONEncoder; del JSONEncoder.encode`). The worker
  also makes those classes immutable, for the aliases this cannot see.

Pure standard library: it runs in the parent (to reject an LLM answer early)
and in the worker process.
"""

from __future__ import annotations

import ast
import builtins
import string

from agent.runtime.code import ALLOWED_MODULES, DEFAULT_HELPERS, UnparsableCode, safe_parse

# Names of a module that node code may reach (None: every public non-module name).
MODULE_EXPORTS: dict[str, frozenset[str] | None] = {
    "functools": frozenset({"reduce", "partial", "cmp_to_key", "lru_cache", "cache"}),
}
# Public names left out even though they are not modules.
MODULE_EXCLUDED: dict[str, frozenset[str]] = {
    "string": frozenset({"Formatter"}),  # Formatter().vformat walks attributes like str.format
    # Their methods forward to a `.data` node code chooses: UserString.format formats a template
    # held in a variable, which the rules on `.format` exist to refuse.
    "collections": frozenset({"UserString", "UserList", "UserDict"}),
}

_PLAIN_BUILTINS = frozenset(
    {
        "abs", "all", "any", "ascii", "bin", "bool", "bytearray", "bytes", "callable", "chr",
        "complex", "dict", "divmod", "enumerate", "filter", "float", "format", "frozenset",
        "hasattr", "hash", "hex", "id", "int", "isinstance", "issubclass", "iter", "len", "list",
        "map", "max", "min", "next", "oct", "ord", "pow", "print", "range", "repr", "reversed",
        "round", "set", "slice", "sorted", "str", "sum", "tuple", "zip",
        "True", "False", "None", "Ellipsis", "NotImplemented",
    }
)
_EXCEPTIONS = frozenset(
    name for name, value in vars(builtins).items() if isinstance(value, type) and issubclass(value, BaseException)
)
ALLOWED_BUILTINS: frozenset[str] = _PLAIN_BUILTINS | _EXCEPTIONS
# `site` adds exit, quit, help, ... to builtins; a worker started with -S lacks them,
# but they are forbidden names everywhere.
_SITE_BUILTINS = frozenset({"exit", "quit", "help", "copyright", "credits", "license"})
FORBIDDEN_BUILTINS: frozenset[str] = _SITE_BUILTINS | frozenset(
    name for name in dir(builtins) if not name.startswith("_") and name not in ALLOWED_BUILTINS
)


# Attribute prefixes of frames, code objects, tracebacks, generators and coroutines.
_INTROSPECTION_PREFIXES = ("f_", "gi_", "cr_", "ag_", "tb_", "co_")
_FORBIDDEN_ATTRIBUTES = frozenset({"vformat", "get_field", "format_field", "mro"})
# Exception attributes that hold an object rather than text node code gave (AttributeError.obj).
_OBJECT_CARRYING_ATTRIBUTES = frozenset({"obj"})
# Classes whose one positional sub-pattern matches the subject itself (no attribute is read).
SELF_MATCHING = frozenset(
    {"bool", "bytearray", "bytes", "dict", "float", "frozenset", "int", "list", "set", "str", "tuple"}
)
_FORMAT_METHODS = frozenset({"format", "format_map"})
# Python 3.12 type parameters (`class C[T]:`) bind names.
_TYPE_PARAMS = tuple(
    getattr(ast, n)  # dynamic: these node classes exist only from Python 3.12
    for n in ("TypeVar", "ParamSpec", "TypeVarTuple")
    if hasattr(ast, n)  # dynamic: 3.12+ node classes
)


class _Refused(Exception):
    pass


def check_code(
    code: str,
    known_names: frozenset[str] | set[str] = frozenset(),
    helper_names: frozenset[str] | set[str] = DEFAULT_HELPERS,
    mode: str = "exec",
    imported_names: frozenset[str] | set[str] = frozenset(),
) -> str | None:
    """The reason `code` may not run untrusted, or None when it passes.

    `known_names` are variables already bound: a variable that shadows a
    forbidden builtin (`object = "apple 1"`) may be read. `imported_names` are
    the known names an earlier node bound by an import. Code that does not
    parse passes (compiling it reports the syntax error as usual).
    """
    try:
        tree = safe_parse(code, mode=mode)
    except UnparsableCode as exc:
        return f"forbidden: code that cannot be checked ({exc.msg})"
    except SyntaxError:
        return None
    try:
        _check_tree(tree, frozenset(known_names), frozenset(helper_names), frozenset(imported_names))
    except _Refused as exc:
        return str(exc)
    except RecursionError:
        return "forbidden: code nested too deeply to check"
    return None


def _check_tree(tree: ast.AST, known: frozenset[str], helpers: frozenset[str], imported: frozenset[str]) -> None:
    nodes = list(ast.walk(tree))
    # Report the first problem in reading order (the innermost of nested attributes).
    nodes.sort(key=_position)
    bound = _bound_names(nodes)
    not_made_here = helpers | ALLOWED_MODULES | imported | _import_bindings(nodes)
    namedtuple_names = _namedtuple_aliases(nodes)
    format_calls = {
        id(n.func)
        for n in nodes
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in _FORMAT_METHODS
    }
    for node in nodes:
        if isinstance(node, ast.Name):
            _check_name(node.id)
            if isinstance(node.ctx, ast.Load):
                if node.id in FORBIDDEN_BUILTINS and node.id not in bound and node.id not in known:
                    raise _Refused(f"forbidden: {node.id}")
            elif node.id in helpers:
                raise _Refused(f"forbidden: assignment to the helper `{node.id}`")
        elif isinstance(node, ast.Attribute):
            _check_attribute(node.attr)
            if not isinstance(node.ctx, ast.Load):
                root = _attribute_root(node)
                shared_builtin = root in ALLOWED_BUILTINS and root not in bound and root not in known
                if root in not_made_here or shared_builtin:
                    raise _Refused(f"forbidden: changing `{ast.unparse(node)}` (only objects the code made may change)")
            if node.attr in _FORMAT_METHODS:
                if id(node) not in format_calls:
                    raise _Refused(f"forbidden: .{node.attr} used other than as a direct call")
                _check_format_receiver(node)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                _check_module(alias.name)
                bind = alias.asname or alias.name
                _check_name(bind)
                if bind in helpers and bind != alias.name:
                    raise _Refused(f"forbidden: assignment to the helper `{bind}`")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                raise _Refused("forbidden: relative import")
            _check_module(node.module or "")
            for alias in node.names:
                if alias.name == "*":
                    raise _Refused(f"forbidden: from {node.module} import *")
                _check_name(alias.name)
                _check_attribute(alias.name)  # `from m import a` reads the attribute `m.a`
                bind = alias.asname or alias.name
                _check_name(bind)
                if bind in helpers:
                    raise _Refused(f"forbidden: assignment to the helper `{bind}`")
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            _check_name(node.name)
            if node.name in helpers:
                raise _Refused(f"forbidden: assignment to the helper `{node.name}`")
        elif isinstance(node, ast.arg):
            _check_name(node.arg)
        elif isinstance(node, ast.keyword) and node.arg is not None:
            _check_name(node.arg)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            for name in node.names:
                _check_name(name)
                if name in helpers:
                    raise _Refused(f"forbidden: assignment to the helper `{name}`")
        elif isinstance(node, ast.ExceptHandler) and node.name:
            _check_name(node.name)
            if node.name in helpers:
                raise _Refused(f"forbidden: assignment to the helper `{node.name}`")
        elif isinstance(node, ast.MatchClass):
            for attr in node.kwd_attrs:  # `case C(attr=p)` reads `subject.attr`
                _check_attribute(attr)
                if attr in _FORMAT_METHODS:
                    raise _Refused(f"forbidden: .{attr} used other than as a direct call (a class pattern)")
            if node.patterns:
                _check_positional_patterns(node.cls, bound | known)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hasattr":
            _check_hasattr(node, bound | known)
        elif isinstance(node, ast.Call) and _names_namedtuple(node.func, namedtuple_names):
            _check_namedtuple_fields(node)
        elif isinstance(node, _TYPE_PARAMS):
            _check_name(node.name)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            _check_name(node.name)
            if node.name in helpers:
                raise _Refused(f"forbidden: assignment to the helper `{node.name}`")
        elif isinstance(node, ast.MatchMapping) and node.rest:
            _check_name(node.rest)
        elif isinstance(node, (ast.AsyncFor, ast.AsyncWith, ast.Await)):
            raise _Refused("forbidden: async code")


def _attribute_root(node: ast.Attribute) -> str:
    """The name an attribute chain starts from (`json` for `json.JSONEncoder.encode`), or ""."""
    base: ast.expr = node.value
    while isinstance(base, ast.Attribute):
        base = base.value
    return base.id if isinstance(base, ast.Name) else ""


def _import_bindings(nodes: list[ast.AST]) -> set[str]:
    names: set[str] = set()
    for node in nodes:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                names.add((alias.asname or alias.name).split(".")[0])
    return names


def _position(node: ast.AST) -> tuple[int, int, int, int]:
    return (
        getattr(node, "lineno", 0),  # dynamic: not every ast.AST has positions
        getattr(node, "col_offset", 0),  # dynamic: not every ast.AST has positions
        getattr(node, "end_lineno", 0) or 0,  # dynamic: not every ast.AST has positions
        getattr(node, "end_col_offset", 0) or 0,  # dynamic: not every ast.AST has positions
    )


def _bound_names(nodes: list[ast.AST]) -> set[str]:
    bound: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                bound.add((alias.asname or alias.name).split(".")[0])
    return bound


def _check_positional_patterns(cls: ast.expr, shadowing: frozenset[str] | set[str]) -> None:
    """`case C(p)` binds `subject.<C.__match_args__[0]>`: an attribute the code does not name."""
    if isinstance(cls, ast.Name) and cls.id in SELF_MATCHING and cls.id not in shadowing:
        return
    raise _Refused(
        f"forbidden: positional sub-patterns of `{ast.unparse(cls)}` (they read attributes the code does not name;"
        " name them: `case C(attr=p)`)"
    )


def _namedtuple_aliases(nodes: list[ast.AST]) -> set[str]:
    """The names this code binds to `collections.namedtuple` (`from collections import namedtuple as nt`)."""
    names = {"namedtuple"}
    for node in nodes:
        if isinstance(node, ast.ImportFrom) and node.module == "collections":
            names.update(alias.asname or alias.name for alias in node.names if alias.name == "namedtuple")
    return names


def _names_namedtuple(func: ast.expr, names: set[str]) -> bool:
    if isinstance(func, ast.Attribute):
        return func.attr == "namedtuple"
    return isinstance(func, ast.Name) and func.id in names


def _check_namedtuple_fields(call: ast.Call) -> None:
    """A named tuple's fields are attributes of its class (and fill `__match_args__`): the same rules."""
    fields = call.args[1] if len(call.args) > 1 else None
    for keyword in call.keywords:
        if keyword.arg == "field_names":
            fields = keyword.value
    literals: list[ast.expr] = []
    if isinstance(fields, (ast.List, ast.Tuple, ast.Set)):
        literals = list(fields.elts)
    elif fields is not None:
        literals = [fields]
    for literal in literals:
        if isinstance(literal, ast.Constant) and isinstance(literal.value, str):
            for name in literal.value.replace(",", " ").split():
                _check_field(name)
    # Computed names are judged by the worker's `namedtuple` when the class is made.


def _check_field(name: str) -> None:
    _check_attribute(name)
    if name in _FORMAT_METHODS:  # readable as `case C(f)` over a class whose `format` is str.format
        raise _Refused(f"forbidden: attribute `.{name}` as a named tuple field")


def field_refusal(name: str) -> str | None:
    """Why a named tuple may not have the field `name` (None: it may): judged like an attribute, at run time."""
    try:
        _check_field(name)
    except _Refused as exc:
        return str(exc)
    return None


def _check_name(name: str) -> None:
    if name.startswith("_") and name != "_":  # a lone `_` (`for _ in ...`) reaches nothing
        raise _Refused(f"forbidden: name `{name}` (names starting with _ are not allowed)")


def _check_attribute(attr: str) -> None:
    if attr.startswith("_"):
        raise _Refused(f"forbidden: attribute `.{attr}` (attributes starting with _ are not allowed)")
    if attr.startswith(_INTROSPECTION_PREFIXES) or attr in _FORBIDDEN_ATTRIBUTES:
        raise _Refused(f"forbidden: attribute `.{attr}`")
    if attr in _OBJECT_CARRYING_ATTRIBUTES:
        raise _Refused(f"forbidden: attribute `.{attr}` (an exception's object; use the message, or another name)")


def _check_hasattr(call: ast.Call, shadowing: frozenset[str] | set[str]) -> None:
    """`hasattr(x, "name")` names an attribute too: a literal name under the same rules."""
    if "hasattr" in shadowing:  # a variable of that name, not the builtin
        return
    name = call.args[1] if len(call.args) == 2 and not call.keywords else None
    if not (isinstance(name, ast.Constant) and isinstance(name.value, str)):
        raise _Refused("forbidden: hasattr with an attribute name that is not a string literal")
    _check_attribute(name.value)


def _check_module(name: str) -> None:
    if name not in ALLOWED_MODULES:
        allowed = ", ".join(sorted(ALLOWED_MODULES))
        raise _Refused(f"forbidden: import {name} (allowed modules: {allowed})")


def _check_format_receiver(node: ast.Attribute) -> None:
    receiver = node.value
    if not (isinstance(receiver, ast.Constant) and isinstance(receiver.value, str)):
        raise _Refused(f"forbidden: .{node.attr} on anything but a string literal")
    if not _safe_template(receiver.value, 0):
        raise _Refused(f"forbidden: .{node.attr} with attribute access in a field")


def _safe_template(template: str, depth: int) -> bool:
    if depth > 2:
        return False
    try:
        parts = list(string.Formatter().parse(template))
    except ValueError:
        return False
    for _literal, field, spec, _conversion in parts:
        if field is not None and "." in field:
            return False
        if spec and not _safe_template(spec, depth + 1):
            return False
    return True

# The type stubs (maxent/__init__.pyi) against the module itself: every public function and
# method has a stub whose parameters have the same names, in the same order, of the same kind
# (positional or keyword-only), with a default exactly where the module has one (and the same
# default where the stub writes one out). The module's signatures: the first line of every
# pybind11 docstring (each overload's line for overloaded functions), inspect.signature for the
# helpers written in Python. And the committed stub is python/tools/make_stubs.py's output for
# the module under test, byte for byte.
import ast
import importlib.util
import inspect
import os
import re
import sys

import pytest

import maxent
from maxent import _core

STUB = os.path.join(os.path.dirname(maxent.__file__), "__init__.pyi")
# The source tree: CTest names it (MAXENT_PY_SOURCE); otherwise the one this file lies in.
SOURCE = os.path.normpath(os.environ.get("MAXENT_PY_SOURCE")
                          or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
GENERATOR = os.path.join(SOURCE, "python", "tools", "make_stubs.py")
COMMITTED = os.path.join(SOURCE, "python", "maxent", "__init__.pyi")


# --- the stubs ---------------------------------------------------------------------------------

def _stub_params(fn):
    """[(name, kind, has_default, default or None)] of a stub's def; kind: positional, keyword, var."""
    a = fn.args
    pos = a.posonlyargs + a.args
    defaults = [None] * (len(pos) - len(a.defaults)) + list(a.defaults)
    out = []
    for arg, d in zip(pos, defaults):
        out.append((arg.arg, "positional", d is not None, d))
    if a.vararg:
        out.append(("*" + a.vararg.arg, "var", False, None))
    for arg, d in zip(a.kwonlyargs, a.kw_defaults):
        out.append((arg.arg, "keyword", d is not None, d))
    if a.kwarg:
        out.append(("**" + a.kwarg.arg, "var", False, None))
    return out


def _is_property(fn):
    return any((isinstance(d, ast.Name) and d.id == "property") or
               (isinstance(d, ast.Attribute) and d.attr in ("setter", "getter", "deleter"))
               for d in fn.decorator_list)


def stubs():
    """{'name' or 'Class.name': [params of each def (several for @overload)]}."""
    tree = ast.parse(open(STUB, encoding="utf-8").read())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out.setdefault(node.name, []).append(_stub_params(node))
        elif isinstance(node, ast.ClassDef):
            for f in node.body:
                if isinstance(f, ast.FunctionDef) and not _is_property(f):
                    out.setdefault(f"{node.name}.{f.name}", []).append(_stub_params(f))
    return out


# --- the module --------------------------------------------------------------------------------

def _split(s):
    """Splits a parameter list at the commas outside brackets and quotes."""
    out, depth, cur, quote = [], 0, "", None
    for ch in s:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
        if ch == "," and depth == 0 and not quote:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _split_default(arg):
    """'name: T = d' -> ('name: T', 'd') with '=' outside brackets and quotes; ('name: T', None)."""
    depth, quote = 0, None
    for i, ch in enumerate(arg):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
        elif depth == 0 and arg.startswith(" = ", i):
            return arg[:i], arg[i + 3:]
    return arg, None


def _parse_line(line, name):
    m = re.match(r"^%s\((.*)\)( -> .*)?$" % re.escape(name), line.strip())
    if not m:
        return None
    out, kind = [], "positional"
    for a in _split(m.group(1)):
        if a == "*":
            kind = "keyword"
            continue
        if a == "/":
            continue
        head, default = _split_default(a)
        pname = head.split(":")[0].strip()
        if pname.startswith("*"):
            out.append((pname, "var", False, None))
            if not pname.startswith("**"):
                kind = "keyword"
            continue
        out.append((pname, kind, default is not None, default))
    return out


def module_signatures(obj, name):
    """The parameter lists of a callable of the module: its docstring's first line (each overload's
    line when pybind11 overloads it; a Python wrapper of a compiled function carries its
    docstring), else inspect.signature of a function written in Python."""
    doc = (getattr(obj, "__doc__", None) or "").strip().splitlines()
    if doc and "Overloaded function." in doc[:3]:
        found = [_parse_line(l[l.index(".") + 1:], name) for l in doc if re.match(r"^\d+\. ", l)]
        return [f for f in found if f is not None]
    first = _parse_line(doc[0], name) if doc else None
    if first is not None:
        return [first]
    method = isinstance(obj, _AsMethod)
    fn = obj.fn if method else obj
    if not inspect.isfunction(fn):
        return []
    out = [("self", "positional", False, None)] if method else []
    for p in list(inspect.signature(fn, follow_wrapped=False).parameters.values())[1 if method else 0:]:
        kind = {p.VAR_POSITIONAL: "var", p.VAR_KEYWORD: "var", p.KEYWORD_ONLY: "keyword"}.get(p.kind, "positional")
        pname = ("*" if p.kind == p.VAR_POSITIONAL else "**" if p.kind == p.VAR_KEYWORD else "") + p.name
        has = p.default is not p.empty
        out.append((pname, kind, has, repr(p.default) if has else None))
    return [out]


class _AsMethod:
    """A function written in Python set on a compiled class: its first parameter named self."""
    def __init__(self, fn):
        self.fn = fn

    def __call__(self, *args, **kwargs):
        return self.fn(*args, **kwargs)


def public_callables():
    """('name' or 'Class.name', object) for every public function of maxent and method of its classes."""
    for n in sorted(dir(maxent)):
        if n.startswith("_"):
            continue
        obj = getattr(maxent, n)
        if inspect.ismodule(obj) or isinstance(obj, type) and issubclass(obj, BaseException):
            continue
        if isinstance(obj, type):
            for m, attr in sorted(vars(obj).items()):
                if (m.startswith("_") and m not in ("__init__", "__call__")) or isinstance(attr, property):
                    continue
                if isinstance(attr, (staticmethod, classmethod)):
                    attr = attr.__func__
                elif inspect.isfunction(attr):  # a method written in Python: its first parameter is self
                    attr = _AsMethod(attr)
                if callable(attr):
                    yield f"{n}.{m}", attr, m
        elif callable(obj):
            yield n, obj, n


# --- the comparison ----------------------------------------------------------------------------

def _literal(node):
    try:
        return ast.literal_eval(node)
    except ValueError:
        return Ellipsis


def _mismatch(stub, real):
    """A description of how a stub's parameters differ from the module's, or None."""
    names_s = [(p[0], p[1]) for p in stub]
    names_r = [(p[0], p[1]) for p in real]
    if names_s != names_r:
        return f"parameters {names_s} in the stub, {names_r} in the module"
    for i, (s, r) in enumerate(zip(stub, real)):
        if s[2] and not r[2]:
            return f"{s[0]}: a default in the stub, none in the module"
        if r[2] and not s[2]:
            # A stub cannot give a default before a required positional parameter (pybind11 can):
            # make_stubs.py drops it there, nowhere else.
            later_required = any(q[1] == "positional" and not q[2] for q in real[i + 1:])
            if not later_required:
                return f"{s[0]}: default {r[3]} in the module, none in the stub"
        if s[2] and s[3] is not None:
            v = _literal(s[3])
            if v is not Ellipsis and repr(v) != r[3] and str(v) != r[3]:
                return f"{s[0]}: default {v!r} in the stub, {r[3]} in the module"
    return None


def test_every_public_function_has_a_stub_with_the_modules_parameters():
    stub = stubs()
    problems, compared = [], 0
    for qual, obj, name in public_callables():
        reals = module_signatures(obj, name)
        if not reals:
            continue  # no readable signature (none of the module's public callables today)
        if qual not in stub:
            problems.append(f"{qual}: no stub")
            continue
        for real in reals:
            errors = [_mismatch(s, real) for s in stub[qual]]
            if all(e is not None for e in errors):
                problems.append(f"{qual}: " + "; ".join(sorted(set(errors))))
        compared += 1
    assert problems == [], "\n".join(problems)
    assert compared > 80  # the module's functions and methods were read (not silently skipped)


@pytest.mark.parametrize("line, expected", [
    ("f(a: int, b: Tuple[int, int] = (0, 0), *, c: str = 'x, y') -> None",
     [("a", "positional", False, None), ("b", "positional", True, "(0, 0)"), ("c", "keyword", True, "'x, y'")]),
    ("f(*args, **kwargs) -> Any", [("*args", "var", False, None), ("**kwargs", "var", False, None)]),
])
def test_the_docstring_parser(line, expected):
    assert _parse_line(line, "f") == expected


def test_a_missing_parameter_is_found():
    real = [("world", "positional", False, None), ("knn_k", "keyword", True, "0")]
    assert _mismatch([("world", "positional", False, None)], real) is not None
    assert _mismatch([("world", "positional", False, None), ("knn_k", "keyword", True, None)], real) is None
    assert _mismatch([("world", "positional", False, None), ("knn_k", "keyword", False, None)], real) is not None


# --- the generator -----------------------------------------------------------------------------

def load_generator():
    """python/tools/make_stubs.py as a module (the test is skipped without a source tree)."""
    if not (os.path.isfile(GENERATOR) and os.path.isfile(COMMITTED)):
        pytest.skip(f"no source tree with python/tools/make_stubs.py and python/maxent/__init__.pyi at {SOURCE} "
                    "(set MAXENT_PY_SOURCE to the repository)")
    spec = importlib.util.spec_from_file_location("make_stubs", GENERATOR)
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    return generator


def test_the_committed_stub_is_the_generators_output(tmp_path):
    generator = load_generator()
    out = tmp_path / "__init__.pyi"
    generator.main(str(out))
    written = out.read_text(encoding="utf-8")
    committed = open(COMMITTED, encoding="utf-8").read()
    if written != committed:
        import difflib
        diff = "".join(list(difflib.unified_diff(committed.splitlines(True), written.splitlines(True),
                                                 "committed", "generated"))[:60])
        package = os.path.dirname(os.path.dirname(maxent.__file__))
        pytest.fail(f"{COMMITTED} is not make_stubs.py's output for the module in {package}; regenerate it "
                    f"(from the repository root, after building the module):\n"
                    f"  PYTHONPATH={package} {sys.executable} python/tools/make_stubs.py python/maxent/__init__.pyi\n"
                    f"{diff}")


def test_a_stale_override_stops_the_generator():
    generator = load_generator()
    assert generator.override("TrainResult.policy", "Any") == "Union[Policy, ObservationFeaturePolicy, GaussianPolicy]"
    assert generator.override("TrainResult.seed", "int") == "int"  # not in the table
    with pytest.raises(SystemExit, match="OVERRIDES.*filter_sequence.actions.*Sequence\\[int\\]"):
        generator.override("filter_sequence.actions", "Sequence[int]")  # the module already says it
    assert generator.optional_none("Model", "None") == "Optional[Model]"
    assert generator.optional_none("Any", "None") == "Any" and generator.optional_none("int", "0") == "int"

"""Writes python/maxent/__init__.pyi, the type stubs of the package maxent, from the signatures
pybind11 puts first in every docstring of the compiled module, plus the pure-Python helpers.
The committed stub is this script's output, byte for byte (python/tests/test_stubs.py checks):
after a change to the module's signatures or docstrings, build the module and regenerate it:

    PYTHONPATH=build-release/python /usr/bin/python3 python/tools/make_stubs.py python/maxent/__init__.pyi
"""
import ast
import inspect
import re
import sys

import maxent
from maxent import _core

TYPES = [
    (r"maxent\._core\.", ""), (r"maxent::python::", ""), (r"maxent::programs::", ""),
    (r"\bhandle\b", "Any"), (r"\bobject\b", "Any"), (r"\bfunction\b", "Callable[..., Any]"),
    (r"\biterable\b", "Iterable[Any]"), (r"\bsequence\b", "Sequence[Any]"), (r"\bbuffer\b", "Any"),
    (r"\bnumpy\.float64\b", "float"),
]


# Types pybind11 (2.10) cannot write: a callable's result built as a py::object, or a parameter
# whose C++ type accepts more than its caster's name says. Keyed by qualified name (a function,
# 'Class.method' or 'Class.property' for the result, '<qualified name>.<parameter>' for a
# parameter): (what pybind11 writes, after conv; the stub's type). A key that matches nothing, or a
# type that is no longer the one expected, stops the script (the table would be stale). A type the
# C++ can say itself is said there (e.g. TrainResult.prior returns std::optional<std::string>:
# Optional[str]), and a parameter whose default is None reads Optional[...] (optional_none).
OVERRIDES = {
    # a tabular Policy, or the Python object of a simulator run's feature or Gaussian policy
    "TrainResult.policy": ("Any", "Union[Policy, ObservationFeaturePolicy, GaussianPolicy]"),
    # std::vector<std::size_t> accepts any sequence of ints; the prior is read by hand (sequences.cpp)
    "filter_sequence.actions": ("List[int]", "Sequence[int]"),
    "filter_sequence.observations": ("List[int]", "Sequence[int]"),
    "filter_sequence.prior": ("Any", "Union[None, str, numpy.ndarray, Sequence[float]]"),
    "filter_sequence": ("dict", "Dict[str, Any]"),  # beliefs, log_likelihood, prior, prior_belief, ...
}
_used = set()


def override(key, generated):
    """The stub's type for `key` (OVERRIDES), else `generated`."""
    if key not in OVERRIDES:
        return generated
    expected, chosen = OVERRIDES[key]
    if generated != expected:
        sys.exit(f"make_stubs.py: OVERRIDES[{key!r}] expects {expected!r}, the module now writes {generated!r}: "
                 "update the table (or drop the entry if the module's type is now right)")
    _used.add(key)
    return chosen


def optional_none(t, default):
    """A parameter with the default None whose caster's name does not say so (a std::shared_ptr that
    may be null): Optional[t]."""
    if default == "None" and t not in ("Any",) and not t.startswith("Optional["):
        return f"Optional[{t}]"
    return t


def docstring(text, indent):
    """The body of a def: the docstring (when it can be written verbatim) and `...`, else ` ...`."""
    if text and '"""' not in text and "\\" not in text:
        return f'\n{indent}    """{text}"""\n{indent}    ...\n'
    return " ...\n"


def drop_array_brackets(t):
    """numpy.ndarray[numpy.float64[m, n]] -> numpy.ndarray (brackets matched)."""
    key = "numpy.ndarray["
    while key in t:
        i = t.index(key) + len(key) - 1
        depth = 0
        for j in range(i, len(t)):
            depth += {"[": 1, "]": -1}.get(t[j], 0)
            if depth == 0:
                break
        t = t[:i] + t[j + 1:]
    return t


def conv(t):
    t = drop_array_brackets(t)
    for a, b in TYPES:
        t = re.sub(a, b, t)
    return t


def split_args(s):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[(":
            depth += 1
        elif ch in "])":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def stub_def(name, doc, indent="", self_name=None, qual=None):
    first = (doc or "").strip().splitlines()[0] if doc else ""
    m = re.match(r"^(\w+)\((.*)\)( -> (.*))?$", first)
    if not m:
        return f"{indent}def {name}(*args: Any, **kwargs: Any) -> Any: ...\n"
    args = []
    for a in split_args(m.group(2)):
        if a in ("*", "/") or a.startswith("*"):
            args.append(a)
            continue
        a, _, given = a.partition(" = ")
        default = " = ..." if given else ""
        head, _, t = a.partition(": ")
        if self_name is not None and not args:
            args.append("self")
            continue
        t = override(f"{qual or name}.{head}", optional_none(conv(t), given)) if t else t
        args.append(f"{head}: {t}{default}" if t else head + default)
    # pybind11 allows a default before a required positional argument (train's updater=None,
    # policy); a stub cannot: such defaults are dropped (the argument is then passed positionally).
    positional = args[: args.index("*")] if "*" in args else args
    last_required = max((i for i, a in enumerate(positional) if not a.endswith(" = ...") and a != "self"),
                        default=-1)
    for i in range(last_required):
        if args[i].endswith(" = ..."):
            args[i] = args[i][: -len(" = ...")]
    ret = override(qual or name, conv(m.group(4) or "None"))
    rest = "\n".join((doc or "").strip().splitlines()[1:]).strip()
    return f"{indent}def {name}({', '.join(args)}) -> {ret}:{docstring(rest, indent)}"


def stub_class(name, cls):
    bases = [b.__name__ for b in cls.__bases__ if b.__name__ not in ("pybind11_object", "object")]
    if issubclass(cls, BaseException):
        return f"class {name}({', '.join(bases) or 'Exception'}): ...\n"
    lines = [f"class {name}:\n"]
    doc = (cls.__doc__ or "").strip()
    if doc and '"""' not in doc and "\\" not in doc:
        lines.append(f'    """{doc}"""\n')
    for attr, v in sorted(cls.__dict__.items()):
        if attr.startswith("__") and attr not in ("__init__", "__call__", "__getstate__", "__setstate__"):
            continue
        if attr.startswith("_") and not attr.startswith("__"):
            continue
        if isinstance(v, property):
            t = "Any"
            fdoc = (v.fget.__doc__ or "").strip().splitlines() or [""]
            m = re.match(r".*\) -> (.*)$", fdoc[0])
            if m:
                t = override(f"{name}.{attr}", conv(m.group(1)))
            lines.append(f"    @property\n    def {attr}(self) -> {t}:{docstring((v.__doc__ or '').strip(), '    ')}")
            if v.fset is not None:
                lines.append(f"    @{attr}.setter\n    def {attr}(self, value: {t}) -> None: ...\n")
        elif callable(v) and hasattr(v, "__doc__") and type(v).__name__ == "instancemethod":
            lines.append(stub_def(attr, v.__doc__, "    ", self_name="self", qual=f"{name}.{attr}"))
        elif isinstance(v, staticmethod) or callable(v):
            continue
    return "".join(lines)


HEADER = '''# Type stubs of the package maxent (the compiled maxent._core and the helpers of _extras.py).
# Written by python/tools/make_stubs.py from the docstrings' signatures; Policy.save/load,
# pickling and the helpers by hand (EXTRAS there).
from os import PathLike
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union, overload

import numpy

__version__: str

'''

EXTRAS = '''
# --- pure-Python helpers (maxent/_extras.py) ---
def save_policy(policy: Union[Policy, ObservationFeaturePolicy, GaussianPolicy], path: Union[str, PathLike[str]]) -> str: ...
def load_policy(path: Union[str, PathLike[str]]) -> Union[Policy, ObservationFeaturePolicy, GaussianPolicy]: ...
class ProgressBar:
    def __init__(self, iterations: int, runs: int = ..., stream: Any = ..., interval: float = ..., label: str = ...) -> None: ...
    def __call__(self, info: Dict[str, Any]) -> bool: ...
    def close(self) -> None: ...
def visit_counts(world: Any, policy: Policy, updater: Any = ..., episodes: int = ..., seed: int = ..., counting: str = ...) -> numpy.ndarray: ...
def read_study(folder: Union[str, PathLike[str]]) -> Dict[str, Dict[str, Any]]: ...
def learning_curve(source: Any, metric: str = ..., label: Optional[str] = ...) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray]: ...
def plot_learning_curve(source: Any, metric: str = ..., label: Optional[str] = ..., ax: Any = ..., smooth: int = ..., uniform: Any = ..., **line: Any) -> Any: ...
def plot_heatmap(source: Any, label: Optional[str] = ..., model: Optional[Model] = ..., ax: Any = ..., cmap: str = ...) -> Any: ...
'''

GYM_EXTRAS = '''
# --- Gymnasium-style environments (maxent/_gym.py) ---
class GymWorld:
    """A Gymnasium-style environment (reset(seed=) -> (obs, info), step(a) -> (obs, reward, terminated,
truncated, info)) as a simulator world with vector observations; beliefs are refused (no likelihood)."""
    horizon: int
    num_actions: int
    num_state_bins: int
    observation_dim: int
    observation_shape: Tuple[int, ...]
    state_point_dim: int
    def __init__(self, env: Any, horizon: int, *, num_actions: Optional[int] = ..., action_of: Optional[Callable[[int], Any]] = ..., state_of: Optional[Callable[[Any], Any]] = ..., num_state_bins: Optional[int] = ..., state_bin: Optional[Callable[[Any], int]] = ..., observation_of: Optional[Callable[[Any], Any]] = ..., probe_seed: int = ...) -> None: ...
    @property
    def env(self) -> Any: ...
    def filter(self) -> ParticleFilter: ...
    def train(self, policy: ObservationFeaturePolicy, feedback: Any = ..., *args: Any, **kwargs: Any) -> Any: ...
    def evaluate(self, policy: ObservationFeaturePolicy, episodes: int = ..., seed: int = ..., *, counting: str = ..., knn_k: int = ..., knn_min_distance: Optional[float] = ...) -> dict: ...
    def evaluate_uniform(self, episodes: int = ..., seed: int = ..., *, counting: str = ..., knn_k: int = ..., knn_min_distance: Optional[float] = ...) -> dict: ...
    def sample_initial_state(self, rng: Rng) -> Any: ...
    def sample_initial_observation(self, s: Any, rng: Rng) -> numpy.ndarray: ...
    def sample_next_state(self, s: Any, a: int, rng: Rng) -> Any: ...
    def sample_observation(self, a: int, s: Any, rng: Rng) -> numpy.ndarray: ...
    def state_bin(self, s: Any) -> int: ...
    def state_point(self, s: Any) -> numpy.ndarray: ...
'''

FEATURE_POLICY_EXTRAS = '''    def save(self, path: Union[str, PathLike[str]]) -> str: ...
    @staticmethod
    def load(path: Union[str, PathLike[str]]) -> Union[Policy, ObservationFeaturePolicy, GaussianPolicy]: ...
    def __eq__(self, other: object) -> bool: ...
'''

POLICY_EXTRAS = '''    def save(self, path: Union[str, PathLike[str]]) -> str: ...
    @staticmethod
    def load(path: Union[str, PathLike[str]]) -> Policy: ...
    def __eq__(self, other: object) -> bool: ...
'''


def main(out):
    parts = [HEADER]
    names = sorted(n for n in dir(_core) if not n.startswith("_"))
    classes = [n for n in names if inspect.isclass(getattr(_core, n))]
    # exceptions: bases first
    classes.sort(key=lambda n: len(getattr(_core, n).__mro__))
    for n in classes:
        text = stub_class(n, getattr(_core, n))
        if n == "Policy":
            text += POLICY_EXTRAS
        if n in ("ObservationFeaturePolicy", "GaussianPolicy"):
            text += FEATURE_POLICY_EXTRAS
        if n in ("ObservationFeatures", "ActionBox"):
            text += "    def __eq__(self, other: object) -> bool: ...\n"
        parts.append(text + "\n")
    for n in names:
        v = getattr(_core, n)
        if not inspect.isclass(v):
            if callable(v):
                # train and train_learned are wrapped in Python; their signatures are the compiled ones
                parts.append(stub_def(n, v.__doc__))
            else:
                parts.append(f"{n}: {type(v).__name__}\n")
    parts.append(EXTRAS)
    parts.append(GYM_EXTRAS)
    text = "".join(parts)
    ast.parse(text)
    unused = sorted(set(OVERRIDES) - _used)
    if unused:
        sys.exit(f"make_stubs.py: OVERRIDES {unused} match nothing in the module: drop them")
    with open(out, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


if __name__ == "__main__":
    main(sys.argv[1])

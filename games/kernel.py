"""Kernels: the functions that hold the games' rules and the searches, each written once
in the subset of Python that numba compiles (ints, numpy scalars and arrays, tuples).

- `kernel` compiles a function with numba (cached on disk, the GIL released) where numba
  imports, and leaves it plain Python where it does not.
- Every kernel also runs uncompiled: `interpreted(f)` is the same source run by the
  interpreter, every kernel it calls replaced by its interpreted twin. A kernel built on a
  numba intrinsic (`popcount`, `lowest_bit`, `monotonic_ns`, or one of a game's) carries a
  plain-Python version for that (`twin`).
- `specialise` binds functions written once over a game's kernel names (`play`,
  `legal_moves`, ...) to one game's kernels, each binding compiled and cached apart.

A process chooses once between the two, when it first makes a kernel or reads
`COMPILING`, `NUMBA_MISSING` or one of the intrinsic kernels (`popcount`, ...):
compiled where numba imports, unless ENGINE_NO_NUMBA is set in its environment or it
called `interpret_kernels()` before. Importing this module imports no numba.

Numba's cache notices a change of a kernel's own file, not of a file it calls, nor of
the data compiled in, so the cache lives in a directory named after a digest of every
source file kernels come from (`games/` and `search/`) and of the games' evaluation
weights (`weights.json`, and tables such as `pattern_weights.npy` or any other stored
`.npy` table): any change there starts a fresh cache.

Boards cross into kernels as `np.uint64`: a Python int of 2**63 or more would overflow
int64, and a smaller one would compile a signed twin of every function. Each helper here
takes and returns fixed types so that a game's kernels compile once.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import time
import types
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Mapping

_ROOT = Path(__file__).resolve().parent.parent
#: The packages whose files define kernels.
_SOURCES = ("games", "search")


def source_digest() -> str:
    """A digest of every source file kernels are compiled from, and of the weights,
    multi-ProbCut fits and tables (`.npy`) compiled in."""
    digest = hashlib.sha256()
    for folder in _SOURCES:
        for path in sorted([*(_ROOT / folder).rglob("*.py"), *(_ROOT / folder).rglob("weights.json"),
                            *(_ROOT / folder).rglob("*.npy"), *(_ROOT / folder).rglob("probcut.json")]):
            digest.update(str(path.relative_to(_ROOT)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    """Where compiled kernels are cached: $ENGINE_NUMBA_CACHE, else `.numba-cache` beside
    the packages when writable, else the user's cache directory; in a sub-directory named
    after `source_digest()`."""
    base = os.environ.get("ENGINE_NUMBA_CACHE")
    if base:
        root = Path(base)
    elif os.access(_ROOT, os.W_OK):
        root = _ROOT / ".numba-cache"
    else:
        root = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "engine-numba"
    return root / source_digest()


def _import_numba() -> str | None:
    """Import numba and point its cache at `cache_dir()`; why it cannot be used, or None."""
    if os.environ.get("ENGINE_NO_NUMBA"):
        return "ENGINE_NO_NUMBA is set"
    try:
        with _scipy_hidden():
            import numba
            # Imported by numba the first time it loads compiled code: here, with scipy
            # hidden, it finds no BLAS (no kernel does linear algebra).
            import numba.np.arraymath  # noqa: F401
    except ImportError as error:  # depends on the installation
        return f"numba cannot be imported ({error})"
    numba.config.CACHE_DIR = str(cache_dir())
    return None


@contextlib.contextmanager
def _scipy_hidden() -> Iterator[None]:
    """Within the block, scipy cannot be imported (unless it already was).

    Where scipy is installed, numba imports it to check its version (80 ms), and its
    array maths imports scipy.linalg to look for a BLAS (0.2 s), the latter in the middle
    of loading a game's compiled code, which a CodinGame first turn waits for."""
    if "scipy" in sys.modules:
        yield
        return
    sys.modules["scipy"] = None  # type: ignore[assignment]  # an import of it fails
    try:
        yield
    finally:
        del sys.modules["scipy"]


# ---- choosing: compiled or interpreted -------------------------------------------------

#: What this module defines once the process has chosen how to run its kernels:
#: NUMBA_MISSING, why kernels cannot be compiled in this process (None when they are);
#: COMPILING, whether they are; and the intrinsic kernels.
_CHOSEN = ("NUMBA_MISSING", "COMPILING", "borrowed", "popcount", "lowest_bit", "monotonic_ns", "prefetch")


def interpret_kernels() -> None:
    """Run every kernel of this process interpreted, and never import numba: for a
    process that only reads the rules (a bot, the adapter), which importing numba would
    cost a third of a second of start-up.

    Call it before the process makes its first kernel (before it imports a game's rules
    or `search`); once the kernels are compiled it raises RuntimeError."""
    if "COMPILING" not in globals():
        _choose("the process runs its kernels interpreted (interpret_kernels)")
    elif COMPILING:
        raise RuntimeError("interpret_kernels() comes too late: this process compiles its kernels")


def __getattr__(name: str) -> Any:
    """The names of `_CHOSEN`, made when first read (PEP 562): the process chooses then."""
    if name not in _CHOSEN:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    _choose()
    return globals()[name]


def _compiling() -> bool:
    """Whether this process compiles its kernels; it chooses at the first call."""
    if "COMPILING" not in globals():
        _choose()
    return COMPILING


def _choose(interpreted_because: str | None = None) -> None:
    """Choose how this process runs its kernels: interpreted, `interpreted_because` this,
    where it is given; else compiled where `_import_numba` can. Then make the intrinsic
    kernels."""
    global NUMBA_MISSING, COMPILING, _ctpop, _cttz, _clock_ns, _borrowed, _prefetch
    global borrowed, popcount, lowest_bit, monotonic_ns, prefetch
    NUMBA_MISSING = interpreted_because or _import_numba()
    COMPILING = NUMBA_MISSING is None
    if COMPILING:
        _ctpop, _cttz, _clock_ns, _borrowed, _prefetch = _intrinsics()
    borrowed = twin(_same)(kernel(_borrowed_kernel, inline=True))
    prefetch = twin(_no_prefetch)(kernel(_prefetch_kernel, inline=True))
    popcount = twin(_popcount)(kernel(_popcount_kernel, inline=True))
    lowest_bit = twin(_lowest_bit)(kernel(_lowest_bit_kernel, inline=True))
    monotonic_ns = twin(_monotonic_ns)(kernel(_monotonic_ns_kernel, inline=True))


# ---- making kernels -----------------------------------------------------------------------


def kernel(function: Callable | None = None, *, inline: bool = False, counted: bool = True) -> Any:
    """Decorator: `function` as a kernel, compiled where numba imports (cached, without
    the GIL; `inline` inlines it into its callers; not `counted`, without numba's
    reference counts: see `uncounted_template`), else the function itself."""
    def decorate(function: Callable) -> Any:
        if not _compiling():
            return function
        from numba import njit

        options: dict[str, Any] = {"cache": True, "nogil": True}
        if inline:
            options["inline"] = "always"
        if not counted:
            options["_nrt"] = False
        return njit(**options)(function)

    return decorate if function is None else decorate(function)


#: The plain-Python version of each kernel built on an intrinsic.
_TWINS: dict[Any, Callable] = {}


def twin(python_version: Callable) -> Callable[[Any], Any]:
    """Decorator over a kernel that calls a numba intrinsic: `python_version` is what it
    computes, run where it is interpreted (and in its place where numba is missing)."""
    def register(compiled: Any) -> Any:
        if not _compiling():
            return python_version
        _TWINS[compiled] = python_version
        return compiled

    return register


# ---- interpreting kernels ------------------------------------------------------------

_NAMESPACES: dict[int, tuple[dict, dict]] = {}
_INTERPRETED: dict[Any, Callable] = {}


def interpreted(function: Any) -> Callable:
    """The plain-Python function of the kernel `function`: its own source run by the
    interpreter, every kernel it calls (through its module's names) interpreted too.

    Kernels must reach the kernels they call through global names, never closures."""
    if not _compiling() or not _hashable(function):
        return function
    found = _TWINS.get(function) or _INTERPRETED.get(function)
    if found is not None:
        return found
    python = getattr(function, "py_func", None)
    if python is None:
        return function
    plain = types.FunctionType(python.__code__, _interpreted_globals(python.__globals__),
                               python.__name__, python.__defaults__, python.__closure__)
    plain.__qualname__ = python.__qualname__
    plain.__doc__ = python.__doc__
    _INTERPRETED[function] = plain
    return plain


def _interpreted_globals(namespace: dict) -> dict:
    """A copy of a kernel's globals with every kernel in it interpreted (built once)."""
    known = _NAMESPACES.get(id(namespace))
    if known is not None:
        return known[1]
    copy = dict(namespace)
    _NAMESPACES[id(namespace)] = (namespace, copy)  # the original is kept alive with it
    if not _compiling():
        return copy
    from numba.core.dispatcher import Dispatcher

    for name, value in namespace.items():
        if isinstance(value, Dispatcher) or (_hashable(value) and value in _TWINS):
            copy[name] = interpreted(value)
    return copy


def _hashable(value: object) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


_MODULES: dict[str, types.SimpleNamespace] = {}


def interpreted_namespace(module: types.ModuleType) -> types.SimpleNamespace:
    """Every public name of `module`, its kernels interpreted (made once per module)."""
    namespace = _MODULES.get(module.__name__)
    if namespace is None:
        namespace = _MODULES[module.__name__] = types.SimpleNamespace(**{
            name: interpreted(value) for name, value in vars(module).items() if not name.startswith("__")
        })
    return namespace


# ---- specialising ---------------------------------------------------------------------


def specialise(templates: Iterable[Callable], label: str, bindings: Mapping[str, object],
               compiled: bool = True) -> types.SimpleNamespace:
    """`templates` (plain functions of one module, written over free global names such as
    a game's `play`) with those names bound to `bindings`, as kernels named
    `name[label]` (numba caches each label apart), or interpreted when not `compiled`.

    The templates call one another, and themselves, through the names they are bound
    under, so a recursive template recurses into its own specialisation."""
    templates = list(templates)
    if compiled:
        namespace = dict(templates[0].__globals__)
        namespace.update(bindings)
    else:
        namespace = dict(_interpreted_globals(templates[0].__globals__))
        namespace.update({name: interpreted(value) for name, value in bindings.items()})
    made = {}
    for template in templates:
        function = types.FunctionType(template.__code__, namespace, template.__name__,
                                      template.__defaults__, template.__closure__)
        function.__qualname__ = f"{template.__qualname__}[{label}]"
        function.__doc__ = template.__doc__
        inline = getattr(template, "inline", False)
        counted = getattr(template, "counted", True)
        made[template.__name__] = kernel(function, inline=inline, counted=counted) if compiled else function
    namespace.update(made)
    return types.SimpleNamespace(**made)


def uncounted_template(template: Callable) -> Callable:
    """Decorator over a template of `specialise`: compiled, its specialisations keep no
    reference counts of the arrays they hold (numba's `_nrt=False`). Counted, a search
    calls the runtime twice for each array view it makes and each array it hands to an
    inlined kernel, even for `borrowed` arrays, whose counts are no-ops: 5.6% of a
    middle-game search's time was in those calls (a sampling profile). Such a template
    makes, returns and keeps no array: only views of the arrays it is given, which
    outlive it."""
    template.counted = False  # type: ignore[attr-defined]
    return template


def inline_template(template: Callable) -> Callable:
    """Decorator over a template of `specialise`: compiled, its specialisations are
    inlined into their callers (as `kernel(inline=True)`); for small ones on hot paths."""
    template.inline = True  # type: ignore[attr-defined]
    return template


# ---- intrinsics -------------------------------------------------------------------------


def _popcount(board: int) -> int:
    return int(board).bit_count()


def _lowest_bit(board: int) -> int:
    board = int(board)
    return (board & -board).bit_length() - 1 if board else 64


def _monotonic_ns() -> int:
    return time.monotonic_ns()


def _no_prefetch(array, row: int) -> None:
    return None


def _intrinsics() -> tuple[Any, Any, Any, Any, Any]:
    """The numba intrinsics of the intrinsic kernels: `_ctpop`, `_cttz`, `_clock_ns`,
    `_borrowed` and `_prefetch` (numba imported)."""
    from llvmlite import ir
    from numba import types as nbtypes
    from numba.core import cgutils
    from numba.extending import intrinsic

    @intrinsic
    def ctpop(typingctx, board):
        signature = nbtypes.int64(nbtypes.uint64)

        def codegen(context, builder, sig, args):
            function = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
            return builder.call(function, args)

        return signature, codegen

    @intrinsic
    def cttz(typingctx, board):
        signature = nbtypes.int64(nbtypes.uint64)

        def codegen(context, builder, sig, args):
            function = builder.module.declare_intrinsic("llvm.cttz", [ir.IntType(64), ir.IntType(1)])
            return builder.call(function, [args[0], ir.Constant(ir.IntType(1), 0)])

        return signature, codegen

    @intrinsic
    def clock_ns(typingctx):
        signature = nbtypes.int64()

        def codegen(context, builder, sig, args):
            i32, i64 = ir.IntType(32), ir.IntType(64)
            timespec = ir.LiteralStructType([i64, i64])
            prototype = ir.FunctionType(i32, [i32, timespec.as_pointer()])
            clock_gettime = cgutils.get_or_insert_function(builder.module, prototype, "clock_gettime")
            spec = cgutils.alloca_once(builder, timespec)
            builder.call(clock_gettime, [ir.Constant(i32, 1), spec])  # CLOCK_MONOTONIC
            seconds = builder.load(cgutils.gep_inbounds(builder, spec, 0, 0))
            nanoseconds = builder.load(cgutils.gep_inbounds(builder, spec, 0, 1))
            return builder.add(builder.mul(seconds, ir.Constant(i64, 1_000_000_000)), nanoseconds)

        return signature, codegen

    @intrinsic
    def borrowed(typingctx, array):
        signature = array(array)

        def codegen(context, builder, sig, args):
            source = context.make_array(sig.args[0])(context, builder, value=args[0])
            view = context.make_array(sig.return_type)(context, builder)
            null = cgutils.get_null_value(view.meminfo.type)
            context.populate_array(view, data=source.data, shape=source.shape, strides=source.strides,
                                   itemsize=source.itemsize, meminfo=null,
                                   parent=cgutils.get_null_value(view.parent.type))
            return view._getvalue()

        return signature, codegen

    @intrinsic
    def prefetch(typingctx, array, row):
        signature = nbtypes.none(array, nbtypes.int64)

        def codegen(context, builder, sig, args):
            source = context.make_array(sig.args[0])(context, builder, value=args[0])
            stride = builder.extract_value(source.strides, 0)
            address = builder.add(builder.ptrtoint(source.data, ir.IntType(64)), builder.mul(args[1], stride))
            i8_pointer = ir.IntType(8).as_pointer()
            i32 = ir.IntType(32)
            prototype = ir.FunctionType(ir.VoidType(), [i8_pointer, i32, i32, i32])
            function = cgutils.get_or_insert_function(builder.module, prototype, "llvm.prefetch.p0")
            # A read (0), kept in every cache level (3), of data (1).
            builder.call(function, [builder.inttoptr(address, i8_pointer), ir.Constant(i32, 0),
                                    ir.Constant(i32, 3), ir.Constant(i32, 1)])
            return context.get_dummy_value()

        return signature, codegen

    return ctpop, cttz, clock_ns, borrowed, prefetch


def _same(array):
    return array


# The sources of the intrinsic kernels, which `_choose` makes: compiled, they call the
# intrinsics; interpreted, their plain-Python twins stand in for them.


def _borrowed_kernel(array):
    """`array` without its owner: a view the compiled code keeps no reference count for.
    Every compiled function that holds an array increments and decrements its count, an
    atomic operation that also waits for every memory access under way; a search holding
    borrowed arrays does neither. Only for arrays that outlive the call that borrows
    them, never returned or stored."""
    return _borrowed(array)


def _prefetch_kernel(array, row):
    """Start loading row `row` of `array` (its first axis) into the cache, for a read
    soon after: a hint, which changes no value. Interpreted, it does nothing."""
    _prefetch(array, row)


def _popcount_kernel(board):
    """The number of set bits of a uint64."""
    return _ctpop(board)


def _lowest_bit_kernel(board):
    """The index of the lowest set bit of a uint64 (64 for zero)."""
    return _cttz(board)


def _monotonic_ns_kernel():
    """CLOCK_MONOTONIC in nanoseconds: the clock of Python's `time.monotonic_ns()`."""
    return _clock_ns()

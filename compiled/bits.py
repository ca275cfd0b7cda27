"""Bit helpers for 64-bit boards and the monotonic clock, as LLVM intrinsics.

Boards cross into numba as `np.uint64`: a Python int of 2**63 or more would overflow
int64, and a smaller one would silently compile a signed twin of every function. Every
helper here takes and returns fixed types so that a game's kernels compile once.
"""

from __future__ import annotations

import compiled

compiled.configure()

from llvmlite import ir  # noqa: E402
from numba import njit, types  # noqa: E402
from numba.core import cgutils  # noqa: E402
from numba.extending import intrinsic  # noqa: E402


@intrinsic
def _ctpop(typingctx, board):
    signature = types.int64(types.uint64)

    def codegen(context, builder, sig, args):
        function = builder.module.declare_intrinsic("llvm.ctpop", [ir.IntType(64)])
        return builder.call(function, args)

    return signature, codegen


@intrinsic
def _cttz(typingctx, board):
    signature = types.int64(types.uint64)

    def codegen(context, builder, sig, args):
        function = builder.module.declare_intrinsic("llvm.cttz", [ir.IntType(64), ir.IntType(1)])
        return builder.call(function, [args[0], ir.Constant(ir.IntType(1), 0)])

    return signature, codegen


@intrinsic
def _clock_ns(typingctx):
    signature = types.int64()

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


@njit(cache=True, nogil=True, inline="always")
def popcount(board):
    """The number of set bits of a uint64."""
    return _ctpop(board)


@njit(cache=True, nogil=True, inline="always")
def lowest_bit(board):
    """The index of the lowest set bit of a non-zero uint64 (64 for zero)."""
    return _cttz(board)


@njit(cache=True, nogil=True, inline="always")
def monotonic_ns():
    """CLOCK_MONOTONIC in nanoseconds: the clock of Python's `time.monotonic_ns()`."""
    return _clock_ns()

"""Unmanaged array views: the same memory, without Numba's reference counting.

Numba increments and decrements (atomically) the reference count of every array argument
of every non-inlined call.  A game's state array goes through thousands of small helper
calls per game, and profiling showed those atomic operations taking a third of the run
time.  A view made with ``numba.carray`` over the same buffer has no meminfo, so the
reference-count calls become no-ops.  The owning array must outlive the view: create the
view in the function that owns the array and pass only the view down.
"""
import numba
from numba import carray, njit, types
from numba.extending import intrinsic


@intrinsic
def _address_to_int64_ptr(typingctx, address):
    sig = types.CPointer(types.int64)(types.intp)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(types.CPointer(types.int64)))
    return sig, codegen


@intrinsic
def _address_to_float64_ptr(typingctx, address):
    sig = types.CPointer(types.float64)(types.intp)

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], context.get_value_type(types.CPointer(types.float64)))
    return sig, codegen


@njit(cache=True, inline="always")
def unmanaged_i8(a):
    """A reference-count-free view of a contiguous 1-D int64 array."""
    return carray(_address_to_int64_ptr(a.ctypes.data), a.shape[0])


@njit(cache=True, inline="always")
def unmanaged_f8(a):
    """A reference-count-free view of a contiguous 1-D float64 array."""
    return carray(_address_to_float64_ptr(a.ctypes.data), a.shape[0])


if numba.config.DISABLE_JIT:          # pure-Python runs (NUMBA_DISABLE_JIT=1): plain arrays
    def unmanaged_i8(a):  # noqa: F811
        return a

    def unmanaged_f8(a):  # noqa: F811
        return a

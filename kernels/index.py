"""Array indices without numba's negative-index wraparound, through numba's public typing.

Numba lowers an index of a signed integer type with a wraparound (``a[-1]`` is the last
element): a compare and select on every access, which also keeps LLVM from folding the address
arithmetic of the flat state arrays. An index of an unsigned type has no wraparound, so the
kernels' hot variable indices are cast with ``nowrap`` (a no-op cast in the generated code). The
index must be non-negative: a negative one would read out of bounds, which a run with
``NUMBA_BOUNDSCHECK=1`` turns into an ``IndexError`` (tests/test_bounds.py plays batches so).
"""

import numpy as np

#: cast an index known to be >= 0 to an unsigned type (no wraparound in numba's lowering)
nowrap = np.uint64

"""How the playout kernels are compiled: numba, cached on disk, the GIL released (plain
Python when numba is missing, much slower)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, cast

F = TypeVar("F", bound=Callable[..., Any])


def kernel(fn: F) -> F:
    try:
        import numba
    except ImportError:  # pragma: no cover - numba is optional
        return fn
    return cast(F, numba.njit(cache=True, nogil=True)(fn))


def inline_kernel(fn: F) -> F:
    """A small kernel helper compiled into its callers (the innermost loops)."""
    try:
        import numba
    except ImportError:  # pragma: no cover - numba is optional
        return fn
    return cast(F, numba.njit(cache=True, nogil=True, inline="always")(fn))

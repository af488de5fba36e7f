"""Seeds and random generators, as the Scientific Python ecosystem passes them (SPEC 7).

Every function of hybridsched that draws random numbers (the generators, the
trace importers, the simulations, ``run_method`` and ``compare``) takes
``rng``, as NumPy and SciPy do
(https://scientific-python.org/specs/spec-0007/), and still takes the older
``seed`` keyword: give one or the other, not both (a :class:`TypeError`
naming both). What ``rng`` may be, and what it means:

``int`` (>= 0, at most :data:`MAX_SEED`)
    The seed of every draw, exactly as ``seed=`` was: ``rng=5`` gives what
    ``seed=5`` gives, bit for bit (instances of earlier versions stay the
    same).
``None``
    The function's default seed (0, as before ``rng`` existed): hybridsched
    is reproducible by default. This departs from SPEC 7 on purpose, where
    ``None`` means fresh entropy from the operating system; pass
    ``numpy.random.default_rng()`` for that.
:class:`numpy.random.Generator` (or a ``SeedSequence`` or ``BitGenerator``)
    One integer in ``[0, MAX_SEED]`` is drawn from it (its state advances by
    that one draw: a generator passed in is *consumed*, so passing the same
    generator twice gives two different results), and the function runs with
    that integer as its seed. That integer is what the function records (an
    instance's name and provenance, a pull instance's behaviour seed,
    :attr:`Result.seed <hybridsched.result.Result.seed>`), so the record
    alone reproduces the result: ``generate(..., rng=recorded)``.

Why a seed is drawn rather than the generator used directly: instance files
and result tables record an integer seed, and sub-streams are derived from it
(``default_rng([seed, host])``); an integer is the one thing both can hold.

This module imports NumPy only when it is given something other than an
integer or ``None``: the registry (and so ``hybridsched methods``) imports it.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any, TypeAlias

from hybridsched.errors import ParameterError

if TYPE_CHECKING:
    import numpy as np

    #: What an ``rng`` parameter accepts (see the module docstring).
    RNGLike: TypeAlias = int | np.random.Generator | np.random.SeedSequence | None
else:
    RNGLike: TypeAlias = Any

#: Largest seed: seeds are recorded in files, whose integers are 64-bit signed.
MAX_SEED = 2**63 - 1


def resolve_seed(rng: RNGLike = None, seed: int | None = None, *, default: int = 0) -> int:
    """The integer seed a function runs with, from ``rng`` or the legacy ``seed``.

    Parameters
    ----------
    rng:
        An integer seed, ``None``, or a :class:`numpy.random.Generator` (or
        anything :func:`numpy.random.default_rng` accepts), from which one
        integer is drawn (see the module docstring).
    seed:
        The legacy keyword: an integer seed or ``None``.
    default:
        The seed when both are ``None``.

    Returns
    -------
    int
        A seed in ``[0, MAX_SEED]``.

    Raises
    ------
    TypeError
        Both ``rng`` and ``seed`` are given.
    ParameterError
        A seed that is not an integer in ``[0, MAX_SEED]``, or an ``rng`` that
        is neither a seed nor something NumPy makes a generator of; the
        message names the parameter (``rng`` or ``seed``).

    Examples
    --------
    >>> import numpy as np
    >>> resolve_seed(5), resolve_seed(seed=5), resolve_seed()
    (5, 5, 0)
    >>> drawn = resolve_seed(np.random.default_rng(1))
    >>> drawn == resolve_seed(np.random.default_rng(1))
    True
    """
    if rng is not None and seed is not None:
        raise TypeError("give rng or seed, not both (seed is the older name of rng)")
    if rng is None:
        return default if seed is None else _checked(seed, "seed")
    if _is_integer(rng) or isinstance(rng, bool):  # a bool is refused, not taken for 0/1
        return _checked(rng, "rng")
    import numpy as np

    try:
        generator = np.random.default_rng(rng)
    except (TypeError, ValueError):
        raise ParameterError("rng", "must be a seed (an integer >= 0), None or a "
                                    f"numpy.random.Generator, got {_short(rng)}") from None
    return int(generator.integers(0, MAX_SEED, endpoint=True))


def resolve_rng(rng: RNGLike = None, seed: int | None = None, *, default: int | None = 0
                ) -> np.random.Generator:
    """A :class:`numpy.random.Generator` from ``rng`` or the legacy ``seed``.

    For code that records no seed: a generator passed in is returned as it is
    (and then consumed by the caller's draws); an integer gives
    ``numpy.random.default_rng(integer)``, as ``seed=`` did. ``default`` is
    the seed when both are ``None`` (``None``: fresh entropy). Raises as
    :func:`resolve_seed` does.

    Examples
    --------
    >>> import numpy as np
    >>> g = np.random.default_rng(3)
    >>> resolve_rng(g) is g
    True
    >>> resolve_rng(3).random() == np.random.default_rng(3).random()
    True
    """
    import numpy as np

    if rng is not None and seed is not None:
        raise TypeError("give rng or seed, not both (seed is the older name of rng)")
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None and seed is None:
        return np.random.default_rng(default)
    return np.random.default_rng(resolve_seed(rng, seed))


def _is_integer(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def _checked(value: Any, name: str) -> int:
    """``value`` as an int seed, or a :class:`ParameterError` naming ``name``."""
    if not _is_integer(value) or not 0 <= operator.index(value) <= MAX_SEED:
        raise ParameterError(name, f"must be an integer in [0, 2**63 - 1], got {_short(value)}")
    return operator.index(value)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."

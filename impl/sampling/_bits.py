"""Random bits read one at a time: a draw consumes only the bits it reads.

An exact sampler that decides its output from the first ``k`` bits of a
uniform ``U`` (a *stopping time*: whether it stops after ``k`` bits depends on
those bits alone) leaves the bits after them independent of its output and of
each other.  So the bits a draw does not read can serve the next draw: a
:class:`RandomBits` buffer draws from the generator in blocks and hands them
out as they are read.  This is what lets a Knuth–Yao draw cost ``H + 2`` bits
on average (``H`` the entropy of its law) rather than a fixed 64.

Each :class:`random.Random` gets one buffer (:func:`bits_of`), held in a
weak-keyed table so it dies with its generator.  Buffered bits are never handed
out twice: a buffer has a lock, and after ``os.fork`` the child empties every
buffer (the parent keeps its own), so two processes never share bits.  Bits
buffered before a generator is re-seeded are still used after it: a seeded
sequence of draws is reproducible from a fresh generator, not from a re-seeded
one.
"""

from __future__ import annotations

import os
import random
import threading
import weakref

__all__ = ["BLOCK_BITS", "RandomBits", "bits_of"]

#: Bits drawn from the generator at a time.
BLOCK_BITS = 256


class RandomBits:
    """A buffer of random bits drawn from one generator, read most significant bit first.

    :meth:`peek` shows the next ``k`` bits without consuming them; :meth:`consume`
    drops the first ``k``.  ``consumed`` counts the bits consumed so far (for the
    benchmark of bits per draw).  Hold :attr:`lock` across a peek and its consume
    when threads share the generator.
    """

    __slots__ = ("_buffer", "_count", "consumed", "lock", "__weakref__")

    def __init__(self) -> None:
        self._buffer = 0
        self._count = 0
        #: Bits consumed through this buffer since it was made.
        self.consumed = 0
        self.lock = threading.Lock()

    def peek(self, rng: random.Random, k: int) -> int:
        """The next ``k`` bits as an integer in ``[0, 2^k)`` (drawn from ``rng`` as needed), not consumed."""
        count = self._count
        if count < k:
            more = max(BLOCK_BITS, k - count)
            self._buffer = (self._buffer << more) | rng.getrandbits(more)
            count = self._count = count + more
        return self._buffer >> (count - k)

    def consume(self, k: int) -> None:
        """Drop the next ``k`` bits (they must have been peeked)."""
        count = self._count - k
        self._buffer &= (1 << count) - 1
        self._count = count
        self.consumed += k

    def clear(self) -> None:
        """Forget the buffered bits."""
        self._buffer = 0
        self._count = 0


_BUFFERS: weakref.WeakKeyDictionary[random.Random, RandomBits] = weakref.WeakKeyDictionary()
_TABLE_LOCK = threading.Lock()
_LAST: tuple[weakref.ReferenceType[random.Random], RandomBits] | None = None


def bits_of(rng: random.Random) -> RandomBits:
    """The bit buffer of ``rng`` (made on first use; a generator that takes no weak reference gets a fresh one)."""
    global _LAST
    last = _LAST
    if last is not None and last[0]() is rng:
        return last[1]
    try:
        buffer = _BUFFERS.get(rng)
        if buffer is None:
            with _TABLE_LOCK:
                buffer = _BUFFERS.setdefault(rng, RandomBits())
        _LAST = (weakref.ref(rng), buffer)
    except TypeError:  # no weak reference to this generator: nothing can be kept for it
        return RandomBits()
    return buffer


def _forget_in_child() -> None:
    global _LAST
    _LAST = None
    for buffer in list(_BUFFERS.values()):
        buffer.clear()
        buffer.lock = threading.Lock()  # a thread of the parent may have held it at the fork


os.register_at_fork(after_in_child=_forget_in_child)

"""The ``local`` backend: a run's chunks played in this process, each on all Numba threads."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa

from .. import api, chunks

#: With a progress bar, a chunk is played in slices of about this many seconds so the bar
#: moves; the slices are joined before writing, so the files are the same either way.
PROGRESS_SLICE_S = 0.5
MIN_SLICE_GAMES = 1_000


def _play_in_slices(resolved, start, count, events, progress, rate, trajectory=False):
    """Play a chunk in slices, advancing ``progress`` after each; return (tables, rate)."""
    parts, done = [], 0
    while done < count:
        n = MIN_SLICE_GAMES if rate is None else max(MIN_SLICE_GAMES, int(rate * PROGRESS_SLICE_S))
        n = min(n, count - done)
        t0 = time.perf_counter()
        parts.append(chunks.play_chunk_to_tables(resolved, start + done, n, events, **_extra(trajectory)))
        dt = time.perf_counter() - t0
        if dt > 0:
            rate = n / dt
        done += n
        progress.advance(n)
    if len(parts) == 1:
        return parts[0], rate
    tables = {name: pa.concat_tables([p[name] for p in parts]) for name in parts[0]}
    return tables, rate


def _extra(trajectory):
    """The optional tables' keywords, given only when asked for."""
    return {"trajectory": True} if trajectory else {}


class _Advances:
    """The progress bar as the playing thread sees it: it stops counting once the run has
    stopped (an interrupt), so a chunk still finishing in the background draws nothing."""

    def __init__(self, progress):
        self.progress = progress
        self.stopped = threading.Event()

    def advance(self, n):
        if not self.stopped.is_set():
            self.progress.advance(n)


def local_backend(resolved, pending, writer, *, events, threads, progress, trajectory=False):
    """Play pending chunks in order in this process, all Numba threads on each chunk.

    Chunk k+1 plays in a worker thread (the kernels release the GIL) while this thread
    writes chunk k, so the Parquet writing and hashing overlap the next chunk's play
    instead of leaving the cores idle.  Only this thread writes files and the manifest,
    chunk by chunk in order, so the files, their sha256 and what an interrupt or a kill
    leaves behind are what one thread would give; at most one chunk is played ahead (memory
    stays flat: two chunks' tables at most).  On an interrupt the chunk in play is not
    waited for: it is dropped, as an unfinished chunk always was.
    """
    api.set_threads(threads)
    sliced = getattr(progress, "enabled", False)  # only a visible bar needs slices
    bar = _Advances(progress)
    rate = [None]

    def play(start, count):
        api.set_threads(threads)  # numba's thread count is per calling thread
        if not sliced:
            return chunks.play_chunk_to_tables(resolved, start, count, events, **_extra(trajectory))
        tables, rate[0] = _play_in_slices(resolved, start, count, events, bar, rate[0], trajectory)
        return tables

    pool = ThreadPoolExecutor(1, thread_name_prefix="boardsim-play")
    try:
        ahead = pool.submit(play, *pending[0][1:]) if pending else None
        for i, (index, start, count) in enumerate(pending):
            tables = ahead.result()
            ahead = pool.submit(play, *pending[i + 1][1:]) if i + 1 < len(pending) else None
            writer.write_chunk(index, start, count, tables)
            del tables
            if not sliced:
                progress.advance(count)
    except BaseException:
        bar.stopped.set()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()

"""Serial vs overlapped local backend, same kernels: ``python ab_runner.py CONFIG serial|local GAMES``."""

import hashlib
import json
import resource
import shutil
import sys
import tempfile
import time

from sim import api, runner


def serial(resolved, pending, writer, *, events, threads, progress):
    """The local backend before issue 17: play a chunk, write it, play the next."""
    api.set_threads(threads)
    for index, start, count in pending:
        tables = runner.play_chunk_to_tables(resolved, start, count, events)
        writer.write_chunk(index, start, count, tables)
        del tables
        progress.advance(count)


runner.register_backend("serial", serial)
config, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
api.play_range(api.resolve(config), 0, 1000)  # load the kernels
where = tempfile.mkdtemp(dir="/tmp/speed2")
t0, c0 = time.perf_counter(), time.process_time()
m = runner.run_dataset(config, where + "/x", games=n, backend=mode)
wall, cpu = time.perf_counter() - t0, time.process_time() - c0
shas = "".join(f["sha256"] for c in m["chunks"] for f in c["files"].values())
out = {
    "mode": mode,
    "gps": round(n / wall),
    "cpu_us": round(cpu / n * 1e6, 2),
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
    "files": hashlib.sha256(shas.encode()).hexdigest()[:12],
}
print(json.dumps(out))
shutil.rmtree(where)

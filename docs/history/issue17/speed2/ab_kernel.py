"""Kernel + Arrow alone: ``python ab_kernel.py CONFIG GAMES [THREADS]`` -> median of 3 passes."""

import json
import sys
import time

from sim import api

resolved = api.resolve(sys.argv[1])
n = int(sys.argv[2])
api.set_threads(int(sys.argv[3]) if len(sys.argv) > 3 else None)
api.play_range(resolved, 0, 2000)  # load the kernels
passes = []
for k in range(3):
    t0, c0 = time.perf_counter(), time.process_time()
    api.play_range(resolved, 1_000_000 + k * n, n)
    passes.append((time.perf_counter() - t0, time.process_time() - c0))
wall = sorted(p[0] for p in passes)[1]
cpu = sorted(p[1] for p in passes)[1]
walls = [round(p[0], 3) for p in passes]
print(json.dumps({"gps": round(n / wall), "cpu_us": round(cpu / n * 1e6, 2), "walls": walls}))

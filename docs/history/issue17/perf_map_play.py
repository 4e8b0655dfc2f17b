"""Play 3-player long games of one strategy on 1 thread under a perf map of the kernels.

Usage (a cold cache: the addresses come from the library's object code, which the JIT consumes
when it loads a cached kernel)::

    mkdir -p /tmp/speed
    BOARDSIM_CACHE_DIR=$(mktemp -d) PYTHONPATH=. python benchmarks/issue17/perf_map_play.py expert 25 &
    benchmarks/issue17/perfwait.sh   # perf record -g -p PID for 20 s once the map is written

Writes ``/tmp/perf-PID.map`` (every function of the block kernel's library, internal ones too;
sizes from the object code's symbol table) and signals readiness via ``/tmp/speed/ready``.
"""

import os
import sys
import time

from sim import api

if os.environ.get("NOINLINE"):
    # Profiling only: keep these callees (substrings of mangled names, e.g.
    # "strat_heuristic6action") out-of-line in the entry point, so perf can tell them apart;
    # needs a cold cache (BOARDSIM_CACHE_DIR=$(mktemp -d)).
    from kernels import cold_compile

    keep = os.environ["NOINLINE"].split(",")
    own = cold_compile._own_copies_of_callees

    def own_copies(module):
        own(module)
        for f in module.functions:
            if not f.is_declaration and any(k in f.name for k in keep):
                f.add_function_attribute("noinline")

    cold_compile._own_copies_of_callees = own_copies

cfg = {
    "game": "bloody_inn",
    "players": 3,
    "rules": {"length": "long"},
    "seed": 1,
    "seats": [{"strategy": sys.argv[1]}],
    "games": 1000,
}
r = api.resolve(cfg)
api.set_threads(1)
api.play_range(r, 0, 200)  # compile

syms = {}
seen = set()


def elf_functions(obj):
    """(name, offset in its section, section index, binding, size) of every function symbol of an ELF64
    object, local ones too (the entry point's internal copies of its callees are not
    exported, so the JIT cannot be asked for their addresses)."""
    import struct

    (shoff,) = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    out = []
    for sh in sections:
        if sh[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sh[6]]
        for off in range(sh[4], sh[4] + sh[5], 24):
            name, info, _, shndx, value, size = struct.unpack_from("<IBBHQQ", obj, off)
            if info & 0xF != 2 or shndx == 0:  # STT_FUNC, defined
                continue
            start = strtab[4] + name
            out.append((obj[start : obj.index(b"\0", start)].decode(), value, shndx, info >> 4, size))
    return out


def visit(disp):
    for cres in disp.overloads.values():
        lib = cres.library
        if id(lib) in seen:
            continue
        seen.add(id(lib))
        obj = getattr(lib, "_compiled_object", None)
        if not obj:
            continue
        funcs = elf_functions(obj)
        base = {}  # section index -> load address, from an exported function in it
        for name, value, shndx, binding, _ in funcs:
            if shndx in base or binding != 1:  # an exported (global) name: the JIT knows it
                continue
            try:
                a = lib.get_pointer_to_function(name)
            except Exception:
                a = 0
            if a:
                base[shndx] = a - value
        for name, value, shndx, _, size in funcs:
            if shndx in base:
                syms.setdefault(base[shndx] + value, (name, size))
        if os.environ.get("DUMP_OBJECT"):  # for objdump: the object and each section's load address
            with open(os.environ["DUMP_OBJECT"], "wb") as fh:
                fh.write(obj)
            with open(os.environ["DUMP_OBJECT"] + ".sections", "w") as fh:
                for shndx, b in base.items():
                    fh.write(f"{shndx} {b:x}\n")


# Only the block kernel's library: it is the code that runs (it calls its own internal
# copies of the callees, kernels/cold_compile.py); the callees' own libraries put their
# linkonce copies in sections of their own, whose load addresses the JIT does not tell.
from kernels.bloody_inn import play  # noqa: E402

visit(play._play_block)
addrs = sorted(syms)
with open(f"/tmp/perf-{os.getpid()}.map", "w") as fh:
    for a in addrs:
        fh.write(f"{a:x} {max(syms[a][1], 1):x} {syms[a][0]}\n")
print("map", len(addrs), "functions", file=sys.stderr, flush=True)
open("/tmp/speed/ready", "w").write(str(os.getpid()))
t = time.time()
n = 0
while time.time() - t < float(sys.argv[2]):
    api.play_range(r, n, 5000)
    n += 5000
print("played", n, "in", time.time() - t, file=sys.stderr)

"""Opt-in cold-compile trims: numba defaults that cost compile time and buy these kernels nothing.

Off by default and in CI: ``BOARDSIM_FAST_COMPILE=1`` installs them (``kernels/__init__.py``
calls :func:`cheaper_cold_compile`; the flag is part of the compile cache's key, so code built
with them is never loaded without them).  Each trim touches a numba internal (checked on
0.68) and is skipped when that internal is missing; the default build uses numba's public API
only.  None of them changes what the kernels compute: the trims that touch the front end
produce the same IR (``tests/test_cold_compile.py`` compares the LLVM IR of a kernel built
with and without them), the entry point's own copies of its callees change only how much
LLVM optimises, and the others skip work whose result no kernel uses.

* A library compiled as a callee skips numba's final module passes; only the outermost
  compile (the entry point called from Python, e.g. the block kernel) runs them, over
  everything linked in.  Numba links every callee's module into its caller's and optimises
  the linked module again, so each kernel level re-optimised the whole game below it.  A
  callee later called from Python itself (tests) runs less optimised, nothing else.
* The entry point runs its own copies of its callees: before its final passes every linked
  callee (``linkonce_odr``) becomes ``internal``, under a name of its own (see
  :func:`_own_copies_of_callees`), so LLVM optimises the whole game as one
  program (inlining the small rules and helpers, no exported copies to keep) and its machine
  code calls only its own copies.  With ``linkonce_odr`` the JIT resolved each callee's name
  to the first copy loaded, the callee's own library, compiled without the final passes: the
  heuristic's ``action`` ran with none of its callees inlined (about −12 % CPU per
  random game and −5 to −10 % per expert game, rows identical).  For linking into a later
  caller the library keeps its module from before the change (numba's ``linkonce_odr``
  copies): internal copies there would be linked as duplicates, one more game per level.
* No C-ABI wrapper (``cfunc``-style, for first-class function use, which no kernel makes) is
  built for an njit function unless its flags ask for one.
* ``inline="always"`` callees: numba runs its whole untyped front end (bytecode, IR,
  rewrites, nested inlining) on the callee at every call site, then deep-copies the callee's
  blocks twice, one block at a time; each block's copy copies the function's whole variable
  scope again, so a copy costs blocks × variables.  Here the front end's IR of a callee is
  kept per process (each call site still gets its own copy, under a fresh function identity,
  so its variables are renamed apart as before), and the blocks of one copy share one copy of
  their scope, as the blocks of the original do.
* Compile flags: numba hashes and compares a ``Flags`` object (~40 options, each read through
  a property) at every typing of an ``@overload`` call.  The hash is over the option *names*
  only (a constant of the class), so it is computed once; equality compares only the options
  set explicitly on either side (the others hold their defaults on both).
"""

import copy
import os

import llvmlite.binding as ll


class _CompileDepth:
    """``numba:compile`` listener: how many dispatcher compiles are in progress (numba
    compiles a callee inside its caller's compile, under one global lock)."""

    depth = 0

    def on_start(self, event):
        _CompileDepth.depth += 1

    def on_end(self, event):
        _CompileDepth.depth -= 1


#: entry points given their own copies in this process, and a token of the process (the
#: copies' names stay apart from those of the cached kernels other processes compiled)
_OWN = [0, os.urandom(4).hex()]


def _own_copies_of_callees(module):
    """Make every linked callee of an entry point's module ``internal``, under a name of its
    own: the JIT looks functions up by name across every module it holds (a dispatcher
    called from Python asks for its wrapper's address by name), and with the callee's own
    name an internal copy was found in place of the callee's exported one (a crash)."""
    _OWN[0] += 1
    suffix = f".own{_OWN[1]}.{_OWN[0]}"
    for fn in module.functions:
        if not fn.is_declaration and fn.linkage == ll.Linkage.linkonce_odr:
            fn.linkage = ll.Linkage.internal
            fn.name = fn.name + suffix


def _final_passes_only_at_the_entry_point(codegen, event):
    lib = codegen.CPUCodeLibrary
    if not hasattr(lib, "_optimize_final_module"):
        return
    listener = type("CompileDepth", (_CompileDepth, event.Listener), {})()
    event.register("numba:compile", listener)
    full = lib._optimize_final_module

    def optimize_final_module(self):
        if _CompileDepth.depth <= 1:
            self._boardsim_for_linking = self._final_module.clone()
            _own_copies_of_callees(self._final_module)
            full(self)

    lib._optimize_final_module = optimize_final_module
    for_linking = lib._get_module_for_linking

    def get_module_for_linking(self):
        kept = getattr(self, "_boardsim_for_linking", None)
        if kept is None or self._shared_module is not None:
            return for_linking(self)
        for fn in kept.functions:  # as numba's: exported functions become linkonce_odr
            if not fn.is_declaration and fn.linkage == ll.Linkage.external:
                fn.linkage = ll.Linkage.linkonce_odr
        self._shared_module = kept
        self._boardsim_for_linking = None
        return kept

    lib._get_module_for_linking = get_module_for_linking


def _no_cfunc_wrappers(cpu):
    opts = cpu.CPUTargetOptions
    if not hasattr(opts, "finalize"):
        return
    finalize = opts.finalize

    def finalize_flags(self, flags, options):
        finalize(self, flags, options)
        if not flags.is_set("no_cfunc_wrapper"):
            flags.no_cfunc_wrapper = True

    opts.finalize = finalize_flags


class _ScopeSharingCopy:
    """Stands in for the ``copy`` module inside numba's inliner, whose ``copy_ir`` copies a
    function's blocks one ``deepcopy`` at a time right after ``FunctionIR.copy()``: the blocks
    of one such copy get one copy of their (shared) scope instead of one each."""

    def __init__(self, ir):
        self._ir = ir
        self._scope = None  # (the source scope, its copy) of the copy in progress

    def start(self):
        self._scope = None

    def deepcopy(self, x, memo=None):
        if memo is not None or not isinstance(x, self._ir.Block):
            return copy.deepcopy(x, memo)
        memo = {}
        if self._scope is not None and self._scope[0] is x.scope:
            memo[id(x.scope)] = self._scope[1]
        out = copy.deepcopy(x, memo)
        self._scope = (x.scope, out.scope)
        return out

    def __getattr__(self, name):
        return getattr(copy, name)


def _hashable(v):
    try:
        hash(v)
        return v
    except TypeError:
        return repr(v)  # numba's option values (FastMathOptions, …) repr their settings


def _front_end_once_per_callee(ir, inline_closurecall, bytecode):
    worker = inline_closurecall.InlineWorker
    if not (
        hasattr(worker, "run_untyped_passes")
        and hasattr(worker, "inline_ir")
        and getattr(inline_closurecall, "copy", None) is copy
    ):
        return
    copier = _ScopeSharingCopy(ir)
    inline_closurecall.copy = copier
    ir_copy = ir.FunctionIR.copy

    def function_ir_copy(self):
        copier.start()
        return ir_copy(self)

    ir.FunctionIR.copy = function_ir_copy
    front_end = worker.run_untyped_passes
    kept = {}

    def run_untyped_passes(self, func, enable_ssa=False):
        try:
            key = (
                func,
                enable_ssa,
                id(self.typingctx),
                id(self.targetctx),
                tuple(sorted((k, _hashable(v)) for k, v in (self.locals or {}).items())),
                tuple((k, _hashable(v)) for k, v in self.flags.values().items() if k != "enable_ssa"),
            )
            hash(key)
        except TypeError:
            return front_end(self, func, enable_ssa)
        if key not in kept:
            kept[key] = front_end(self, func, enable_ssa)
        self.flags.enable_ssa = enable_ssa  # numba's front end sets it on the caller's flags
        callee = copy.copy(kept[key])  # inline_ir deep-copies the blocks before changing them
        callee.func_id = bytecode.FunctionIdentity.from_function(func)  # fresh unique name
        return callee

    worker.run_untyped_passes = run_untyped_passes


def _flags_hash_once(targetconfig):
    config = targetconfig.TargetConfig
    if not (hasattr(config, "values") and "_values" in getattr(config, "__slots__", ())):
        return
    slow_eq = config.__eq__
    hashes, defaults = {}, {}

    def __hash__(self):
        cls = type(self)
        if cls not in hashes:
            hashes[cls] = hash(tuple(sorted(self.options)))  # numba: hash(tuple(sorted(self.values())))
        return hashes[cls]

    def __eq__(self, other):
        cls = type(self)
        if self is other:
            return True
        if cls is not type(other):
            return slow_eq(self, other)
        a, b = self._values, other._values
        if a == b:
            return True
        if cls not in defaults:
            defaults[cls] = {k: o.default for k, o in cls.options.items()}
        d = defaults[cls]
        return all(a.get(k, d[k]) == b.get(k, d[k]) for k in (a.keys() | b.keys()) & d.keys())

    config.__hash__ = __hash__
    config.__eq__ = __eq__


def cheaper_cold_compile():
    """Install the trims above, once per process (see the module's docstring)."""
    from numba.core import bytecode, codegen, cpu, event, inline_closurecall, ir, targetconfig

    if getattr(codegen.CPUCodeLibrary, "_boardsim_cheaper", False):
        return
    _final_passes_only_at_the_entry_point(codegen, event)
    _no_cfunc_wrappers(cpu)
    _front_end_once_per_callee(ir, inline_closurecall, bytecode)
    _flags_hash_once(targetconfig)
    codegen.CPUCodeLibrary._boardsim_cheaper = True


# --- a second process compiling part of a cold start --------------------------------------

#: entry dispatcher -> plan(argument types) -> [(dispatcher, argument types)], see help_compile
_PLANS: dict = {}

#: seconds the compiling process waits for the helper's next kernel before compiling it itself
HELPER_PATIENCE_S = 120.0


def help_compile(entry, plan):
    """Let a helper process compile part of ``entry``'s cold compile.

    When the dispatcher ``entry`` starts a real compile (nothing in the on-disk cache), a
    second Python process is started that compiles ``plan(argtypes)`` — a list of
    ``(dispatcher, argument types)`` of kernels that ``entry``'s compile will need later,
    in the order it needs them — into the same on-disk cache, as callees (no final module
    passes, like the ones this process compiles).  When this process's typing reaches one
    of them, it waits until the helper has written that one and loads it from the cache
    instead of compiling it; if the helper failed on it (or died, or took longer than
    :data:`HELPER_PATIENCE_S`) this process compiles it itself.  Either way the kernels are
    the same: a cached callee is linked into its caller exactly like a freshly compiled one
    (its bitcode is kept in the cache for that).  The numba compile is single-threaded and
    takes most of a cold start, so on two cores this nearly halves the part it takes over.

    Only with ``BOARDSIM_FAST_COMPILE=1``; no helper without a second core, with
    ``BOARDSIM_COMPILE_HELPER=0``, or without a writable cache (there is nothing to share then).
    """
    from kernels import fast_compile

    if not fast_compile():
        return
    _PLANS[entry] = plan
    _install_helper_starter()


def _helper_wanted():
    if os.environ.get("BOARDSIM_COMPILE_HELPER", "1") == "0":
        return False
    try:
        return len(os.sched_getaffinity(0)) >= 2
    except (AttributeError, OSError):
        return (os.cpu_count() or 1) >= 2


class _Helper:
    """The helper process of one cold compile and the waits of this process on it."""

    def __init__(self, targets):
        import pickle
        import subprocess
        import sys
        from pathlib import Path

        self.targets = targets
        self.done = -1  # index of the last target the helper reported (it goes in order)
        self.ok = set()  # the targets it compiled
        self.asked = set()  # the targets this process's typing asked for
        self.compiles = 0  # function versions the helper compiled (it says so after each)
        here = str(Path(__file__).resolve().parent.parent)  # the tree these kernels come from
        env = dict(os.environ, NUMBA_NUM_THREADS="1")
        env["PYTHONPATH"] = os.pathsep.join([here] + [p for p in [env.get("PYTHONPATH")] if p])
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kernels.compile_helper"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
            bufsize=0,  # unbuffered: select() on the pipe sees every line
        )
        spec = [(d.py_func.__module__, d.py_func.__qualname__, tuple(a)) for d, a in targets]
        try:
            self.proc.stdin.write(pickle.dumps(spec))
            self.proc.stdin.close()
        except OSError:
            self.done = len(targets)  # it died at once: compile everything here
        for i, (disp, _) in enumerate(targets):
            disp.compile = self._waiting_compile(disp, i)

    def _waiting_compile(self, disp, i):
        def compile(sig):
            self.asked.add(i)
            self.wait_for(i)
            self._release(disp)
            return disp.compile(sig)  # numba's own: finds the helper's version in the cache

        return compile

    @staticmethod
    def _release(disp):
        disp.__dict__.pop("compile", None)

    def wait_for(self, i):
        import select
        import time

        end = time.monotonic() + HELPER_PATIENCE_S
        while self.done < i:
            left = end - time.monotonic()
            if left <= 0 or not select.select([self.proc.stdout], [], [], left)[0]:
                self.stop()  # too slow: this process compiles the rest itself
                return
            line = self.proc.stdout.readline().split()
            if len(line) != 3 or not (line[1].isdigit() and line[2].isdigit()):
                self.stop()  # it died (end of file) or said something unexpected
                return
            self.done = int(line[1])
            if line[0] == b"done":
                self.ok.add(self.done)
            HELPED["compiles"] = HELPED.get("compiles", 0) + int(line[2]) - self.compiles
            self.compiles = int(line[2])

    def stop(self):
        self.done = len(self.targets)
        for disp, _ in self.targets:
            self._release(disp)
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()


#: the helper of the cold compile in progress (one at a time: numba compiles under one lock)
_HELPER: list = []

#: what this process's helpers did: ``helpers`` started, function versions they ``compiles``
#: (``sim bench`` reports them beside this process's own compiles)
HELPED: dict = {}


class _HelperStarter:
    """``numba:compile`` listener: starts the helper when a planned entry starts compiling
    and stops it when that compile ends."""

    def on_start(self, event):
        d = event.data or {}
        plan = _PLANS.get(d.get("dispatcher"))
        if plan is None or _HELPER or not _helper_wanted():
            return
        targets = [(disp, a) for disp, a in plan(tuple(d["args"])) if disp._can_compile]
        if not targets:
            return
        try:
            helper = _Helper(targets)
        except OSError:  # no process to be had (limits, no interpreter): compile alone
            return
        _HELPER.append(helper)
        HELPED["helpers"] = HELPED.get("helpers", 0) + 1

    def on_end(self, event):
        d = event.data or {}
        if _HELPER and d.get("dispatcher") in _PLANS:
            _HELPER.pop().stop()


def _install_helper_starter():
    from numba.core import event

    if getattr(_HelperStarter, "_installed", False):
        return
    event.register("numba:compile", type("HelperStarter", (_HelperStarter, event.Listener), {})())
    _HelperStarter._installed = True

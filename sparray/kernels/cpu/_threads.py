"""How many threads a kernel call may use: :func:`team`, the one door to numba's thread pool.

A parallel kernel splits its work over numba's threads and returns when the last of them is done,
so one thread that cannot run holds the whole call back. Three things take threads away from a
call, and :func:`team` looks at each before a kernel starts:

- **Other processes.** A core that another process keeps busy gives a numba thread on it a time
  slice now and then: the call waits for it (on this 2-core VM, with one core spinning, ``A @ x``
  at 1e7 entries took 26-32 ms on 2 threads, 14 ms on one). Long calls of kernels that hand
  their chunks to whichever thread is free (``shared``) still use such a core. :func:`free_cores` reads, at most every
  ``SAMPLE_PERIOD`` seconds, how much CPU time the other processes used on the cores this process
  may run on (``/proc/stat`` less this process's own CPU time, so sparray's threads never count
  against themselves), and a core that others keep at least ``BUSY_CORE`` busy is not handed out.
  Where ``/proc/stat`` does not exist (macOS, Windows) every core counts as free.
- **Other callers in this process.** Python threads (a Dask pool, ``concurrent.futures``, a web
  server) that call kernels at once would each wake a team of numba's full size: with 4 callers
  on 2 cores, 8 threads. Each call takes its share, ``cap // callers`` threads (at least one),
  where ``callers`` counts the Python threads inside a kernel call right now.
- **The caller's own limit.** ``numba.set_num_threads(n)`` in the calling thread (or
  ``NUMBA_NUM_THREADS``) caps every call of that thread, as numba documents.

Work below ``grain`` runs on the calling thread alone: waking the pool costs more than it saves.

Under numba's workqueue layer (chosen where neither OpenMP nor TBB loads) a parallel region
entered by two Python threads at once aborts the process ("Concurrent access has been
detected"), on one thread too: :func:`team` then holds a process-wide lock around every kernel
it encloses, so concurrent calls take turns instead. (The lean paths' serial kernels, which open
no parallel region, run outside any team.)

Which layer: unless ``NUMBA_THREADING_LAYER`` or ``NUMBA_THREADING_LAYER_PRIORITY`` is set, or
numba's pool already started, sparray asks numba for OpenMP first, then TBB, then workqueue
(:data:`LAYER_PRIORITY`; numba's own order puts TBB first). Installing a package that brings TBB
(``mkl`` does) then leaves the layer sparray runs on as it was.

Waiting: after a parallel call numba's OpenMP threads spin a while for the next one, then sleep.
Unless ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` is set, sparray shortens that spin to
:data:`GOMP_SPINCOUNT` iterations (set only while numba's pool starts; it holds for the GNU
OpenMP runtime numba loads, which other libraries bundling their own OpenMP do not share): a
sparray call then leaves about 0.3 ms of spinning behind instead of 3.5, so the cores go back to
the program's other work (and to other processes) at once.

>>> import numba
>>> with team(0) as threads:           # small work: the calling thread alone
...     threads, numba.get_num_threads()
(1, 1)
>>> last_team()
1
"""

from __future__ import annotations

import os
import threading
import time

import numba

__all__ = ["BUSY_CORE", "GOMP_SPINCOUNT", "LAYER_PRIORITY", "SAMPLE_PERIOD", "WATCH_LOAD", "free_cores", "last_team", "layer", "team"]

#: Seconds between two readings of the other processes' CPU use (each reading costs ~15 us).
SAMPLE_PERIOD = 0.2
#: A core that other processes keep at least this busy (a fraction of one core) is not used.
BUSY_CORE = 0.7
#: False: every core counts as free, whatever other processes do (``SPARRAY_WATCH_LOAD=0``; the test
#: suite sets it, its two workers being each other's load, so that a test forcing a parallel path
#: gets one).
WATCH_LOAD = os.environ.get("SPARRAY_WATCH_LOAD", "1") != "0"
#: How long numba's OpenMP threads spin for the next parallel region before they sleep, in GNU
#: OpenMP's spin iterations, unless OMP_WAIT_POLICY or GOMP_SPINCOUNT is set (its default, 300000,
#: burnt 3.5 ms of a core after every parallel call on this VM, taken from whatever else runs; 10000
#: burns 0.3 ms and cg's back-to-back kernels keep their speed: 1e4 and 1e5 unknowns 10.2 and 212
#: ms either way; OMP_WAIT_POLICY=passive, no spinning at all, made them 47 and 698 ms).
GOMP_SPINCOUNT = 10000
#: The threading layers sparray asks numba for, in order, when the user has not chosen.
LAYER_PRIORITY = ["omp", "tbb", "workqueue"]

_LOCAL = threading.local()  # per Python thread: depth (nested teams), last (threads of the last call)
_ACTIVE: dict[int, int] = {}  # the Python threads inside a kernel call that may go parallel (ids)
_WORKQUEUE_LOCK = threading.RLock()
_STATE_LOCK = threading.Lock()
_layer: str | None = None
_get = _set = None
#: None, or a function called with (threads granted, Python threads in a kernel call then) at
#: every outermost team: how the tests count the threads each call uses.
observer = None


def _pool():
    """Start numba's thread pool (the layer is chosen then) and bind the raw thread-count calls."""
    global _layer, _get, _set
    if _layer is None:
        from numba.core import config
        from numba.np.ufunc import parallel

        with _STATE_LOCK:
            if _layer is None:
                env = os.environ
                fresh = not getattr(parallel, "_is_initialized", True)
                if (fresh and str(config.THREADING_LAYER).lower() == "default"
                        and "NUMBA_THREADING_LAYER" not in env and "NUMBA_THREADING_LAYER_PRIORITY" not in env):
                    config.THREADING_LAYER_PRIORITY = list(LAYER_PRIORITY)
                # GNU OpenMP reads its spin count when it loads (with numba's pool, now): set it
                # only for that moment, and only where the user has not said how OpenMP waits
                spin = fresh and not any(k in env for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT"))
                if spin:
                    env["GOMP_SPINCOUNT"] = str(GOMP_SPINCOUNT)
                try:
                    parallel._launch_threads()
                finally:
                    if spin:
                        env.pop("GOMP_SPINCOUNT", None)
                _get = getattr(parallel, "_get_num_threads", numba.get_num_threads)
                _set = getattr(parallel, "_set_num_threads", numba.set_num_threads)
                _layer = numba.threading_layer()
    return _layer


def layer() -> str:
    """The threading layer numba runs sparray's kernels on (``"omp"``, ``"tbb"`` or ``"workqueue"``);
    starts numba's thread pool if it has not started."""
    return _pool()


# ---- the other processes' load ------------------------------------------------------------------

_sample = None  # (monotonic time, busy seconds of our cores, this process's CPU seconds)
_others = 0.0  # cores' worth of CPU the other processes used over the last period
_free = 1  # what free_cores() answered last
_TICK = 1.0 / (os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100)
_now = time.monotonic  # the clocks free_cores reads (tests put their own in)
_own_cpu = time.process_time


def _cores():
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:
        return list(range(os.cpu_count() or 1))


def _busy_seconds(cores):
    """CPU time spent busy on ``cores`` since boot (user, nice, system, irq, softirq, steal), or None."""
    try:
        with open("/proc/stat", "rb") as f:
            text = f.read(1 << 16)
    except OSError:
        return None
    wanted = {b"cpu%d" % c for c in cores}
    busy = 0
    for line in text.split(b"\n"):
        if not line.startswith(b"cpu"):
            break
        f = line.split()
        if f[0] in wanted:
            user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in f[1:9])
            busy += user + nice + system + irq + softirq + steal
    return busy * _TICK


def free_cores() -> int:
    """Cores of this process's affinity set that no other process keeps busy (at least 1), as
    measured over the last ``SAMPLE_PERIOD`` or more; the first call, with nothing measured yet,
    counts every core as free. Between two readings the last answer is kept (0.1 us a call)."""
    global _sample, _others, _free
    now = _now()
    last = _sample
    if last is not None and now - last[0] < SAMPLE_PERIOD:
        return _free
    cores = _cores()
    busy = _busy_seconds(cores)
    if busy is None:
        _sample, _free = (now, 0.0, 0.0), len(cores)
        return _free
    mine = _own_cpu()
    if last is not None and last[1]:
        wall = now - last[0]
        others = max(0.0, (busy - last[1]) - (mine - last[2])) / wall
        # after a long pause the window is old news: trust it no more than a fresh one
        _others = others if wall < 4 * SAMPLE_PERIOD else 0.5 * (others + _others)
    _sample = (now, busy, mine)
    _free = max(1, len(cores) - int(_others + (1.0 - BUSY_CORE)))
    return _free


# ---- the door -----------------------------------------------------------------------------------


def last_team() -> int:
    """Threads granted to the last kernel call of this Python thread (1 for a serial one)."""
    return getattr(_LOCAL, "last", 1)


class team:
    """Run the enclosed kernels with the threads this call may use (see the module docstring):
    one below ``grain`` units of work, else the caller's limit shared among the Python threads in a
    kernel call now, on the cores other processes leave free; ``with team(work) as threads`` gives
    that count (a caller with a serial twin of its kernel runs the twin when it is 1). Nested teams
    keep the outer one's. (A class, not a generator: 0.5 us a call instead of 2.)

    ``shared``: for a kernel that hands its chunks out by :func:`._common.claim`, the work from
    which a thread on a busy core is worth having anyway: it takes the chunks it gets to and never
    holds the call back by more than one chunk, so a long call gets the share of that core the
    other process leaves (about half of it) on top of the free ones. Below it, and for kernels
    with a fixed split, busy cores are left alone."""

    __slots__ = ("work", "grain", "shared", "cap", "threads", "counted", "locked", "nested")

    def __init__(self, work, grain=1 << 15, shared=None):
        self.work = work
        self.grain = grain
        self.shared = shared

    def __enter__(self):
        local = _LOCAL
        depth = getattr(local, "depth", 0)
        self.nested = depth > 0
        if self.nested:  # a kernel inside a kernel call: the outer call decided
            local.depth = depth + 1
            return _get()
        if _layer is None:
            _pool()
        cap = self.cap = _get()
        self.counted = self.work >= self.grain and cap > 1
        if self.counted:
            _ACTIVE[threading.get_ident()] = 1
            free = cap if not WATCH_LOAD or (self.shared is not None and self.work >= self.shared) else free_cores()
            threads = max(1, min(cap, free, cap // len(_ACTIVE)))
        else:
            threads = 1
        self.threads = threads
        if observer is not None:
            observer(threads, len(_ACTIVE) if self.counted else 0)
        local.depth = 1
        local.last = threads
        if threads != cap:
            _set(threads)
        self.locked = _layer == "workqueue"  # every parallel kernel enters the pool, on one thread too
        if self.locked:
            _WORKQUEUE_LOCK.acquire()
        return threads

    def __exit__(self, *exc):
        local = _LOCAL
        if self.nested:
            local.depth -= 1
            return False
        if self.locked:
            _WORKQUEUE_LOCK.release()
        if self.threads != self.cap:
            _set(self.cap)
        local.depth = 0
        if self.counted:
            _ACTIVE.pop(threading.get_ident(), None)
        return False

"""Timing helpers of ``benchmarks/run.py``: blocks of samples (``bench``) and the share of
the CPU other processes use (``check_idle``); run.py's docstring explains the method."""
from __future__ import annotations

import gc
import math
import os
import time

import numpy as np

COOLDOWN = 0.2   # seconds of sleep before each block of samples
BLOCK_WARMUP = 0.02  # seconds of untimed calls at the start of each block (at least 2)


def _sample(fn, number):
    gc.collect()
    t = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - t) / number


def bench(impls, repeats, budget, passes=3, min_sample=0.01, max_passes=15, warmup=0.3):
    """Median seconds per call of each callable in ``impls`` ({label: fn}).

    Every implementation is first warmed up; then the implementations are timed in
    ``passes`` passes (more while ``budget`` seconds last), each pass timing every
    implementation in turn as one *block*: a pause of COOLDOWN seconds, BLOCK_WARMUP
    seconds of untimed calls, then ``ceil(repeats / passes)`` samples of ``number``
    calls each.

    Returns {label: (median, iqr_relative, samples, number, minimum)}.
    """
    numbers = {}
    for label, fn in impls.items():
        fn()  # first call: compilation, caches
        n, t0 = 0, time.perf_counter()
        while n < 3 or (time.perf_counter() - t0 < warmup and n < 50):
            fn()
            n += 1
        per_call = (time.perf_counter() - t0) / n
        numbers[label] = max(1, math.ceil(min_sample / per_call))
    per_block = max(1, math.ceil(repeats / passes))
    samples = {label: [] for label in impls}
    # A full collection costs ~0.1 s with torch and jax loaded: do one, then freeze the
    # survivors so that the collection before every sample only sees new objects.
    gc.collect()
    gc.freeze()
    try:
        t0 = time.perf_counter()
        done = 0
        while done < passes or (time.perf_counter() - t0 < budget and done < max_passes):
            for label, fn in impls.items():
                gc.collect()
                time.sleep(COOLDOWN)
                n, tw = 0, time.perf_counter()
                while n < 2 or time.perf_counter() - tw < BLOCK_WARMUP:
                    fn()
                    n += 1
                for _ in range(per_block):
                    samples[label].append(_sample(fn, numbers[label]))
            done += 1
    finally:
        gc.unfreeze()
    out = {}
    for label, s in samples.items():
        q1, med, q3 = np.percentile(s, [25, 50, 75])
        out[label] = (float(med), float((q3 - q1) / med), len(s), numbers[label], float(min(s)))
    return out


def _cpu_snapshot():
    """(busy ticks of all CPUs, total ticks, this process's CPU seconds) or None."""
    try:
        with open("/proc/stat") as f:
            v = [int(t) for t in f.readline().split()[1:]]
    except OSError:
        return None
    t = os.times()
    return sum(v[:8]) - v[3] - v[4], sum(v[:8]), t.user + t.system


def _busy_others(a, b):
    """Fraction of the machine's CPU time used by other processes between two snapshots."""
    if a is None or b is None:
        return None
    busy = (b[0] - a[0]) - (b[2] - a[2]) * os.sysconf("SC_CLK_TCK")
    return min(max(busy / max(b[1] - a[1], 1), 0.0), 1.0)


def cpu_busy_others(seconds=1.0):
    """Fraction of the machine's CPU time used by *other* processes over ``seconds``
    (/proc/stat minus this process's own CPU time, since its thread pools may still be
    spinning); None where /proc/stat is absent."""
    a = _cpu_snapshot()
    time.sleep(seconds)
    return _busy_others(a, _cpu_snapshot())


def check_idle(wait):
    """Print how busy other processes keep the machine; with ``wait`` > 0, first wait (up
    to ``wait`` seconds) until they use less than 10% of it three seconds in a row."""
    busy = cpu_busy_others()
    if busy is None:
        return
    deadline, streak = time.monotonic() + wait, 0
    while wait > 0 and time.monotonic() < deadline:
        streak = streak + 1 if busy < 0.1 else 0
        if streak >= 3:
            break
        busy = cpu_busy_others()
    warn = "" if busy < 0.1 else ("  !! timings of multithreaded code (BLAS, numba, torch, "
                                  "XLA) will be inflated and erratic (see --wait-idle)")
    print(f"  CPU used by other processes just before timing: {busy * 100:.0f}% of "
          f"{os.cpu_count()} cores{warn}")

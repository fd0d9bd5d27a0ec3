#!/usr/bin/env python3
"""What a pause before each call costs, and why: one library called from Python after
nothing (back to back), a 32 ms sleep, a write of every cache line of 256 MB (the caches
evicted without any pause), and 32 ms of spinning on the calling thread (a pause without
sleeping: the core stays busy, the session's workers park as in a sleep). 30 calls each,
P50 and P95 in ms.

    python3 bench/paced_causes.py MODEL.so [--threads 1] [--input NAME] [--calls 30]

The model's inputs are random float32 of its static shapes. If spinning costs what sleeping
costs, neither the pool's wake-up nor an idle core's power state is the cause; if the
eviction costs it too, the weights falling out of the caches are.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--calls", type=int, default=30)
    args = ap.parse_args()
    import infc
    m = infc.load(args.model, num_threads=args.threads)
    rng = np.random.default_rng(0)
    inputs = {i.name: rng.standard_normal(i.shape).astype(np.float32) for i in m.inputs}
    scratch = np.zeros(256 * 1024 * 1024 // 4, np.float32)
    for _ in range(5):
        m(**inputs)

    def spin():
        end = time.perf_counter() + 0.032
        while time.perf_counter() < end:
            pass

    def evict():
        scratch[::16] += 1.0  # every 64-byte line

    for name, before in (("back to back", lambda: None), ("sleep 32 ms", lambda: time.sleep(0.032)),
                         ("evict 256 MB", evict), ("spin 32 ms", spin)):
        times = []
        for _ in range(args.calls):
            before()
            start = time.perf_counter()
            m(**inputs)
            times.append(time.perf_counter() - start)
        print(f"{name:14s} P50 {np.median(times) * 1e3:7.2f} ms  P95 "
              f"{np.percentile(times, 95) * 1e3:7.2f}", flush=True)


if __name__ == "__main__":
    main()

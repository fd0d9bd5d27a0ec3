#!/usr/bin/env python3
"""Two builds of one decoder library side by side: TPOT after a 128-token prompt (48 steps),
8 sequences decoded together (24 steps, tokens/s) and TTFT at 128 tokens, each library in
its own process, alternating (the order reversed every other round), medians of the rounds.

    python3 bench/llm_ab.py OLD.so NEW.so [--threads 1,2] [--rounds 2]

For a change to the compiler or the runtime of --decoder libraries: compile the model with
both infc builds (e.g. bench/llm.py's cached bench/.cache/llm/smollm2_30_512.so and a new
one) and compare. Prints one line per library and thread count.
"""
import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
def worker(so, threads):
    import infc
    m = infc.load(so, num_threads=threads); s = m.session(num_threads=threads); s.llm_open(200)
    rng = np.random.default_rng(0)
    q = s.add_sequence(); lg = s.step({q: rng.integers(0, 49152, 128)})[q]
    st = []
    for _ in range(48):
        t = time.perf_counter(); lg = s.step({q: [int(np.argmax(lg))]})[q]; st.append(time.perf_counter() - t)
    s.remove_sequence(q)
    seqs = [s.add_sequence() for _ in range(8)]
    last = s.step({q: rng.integers(0, 49152, 128) for q in seqs})
    t = time.perf_counter()
    for _ in range(24):
        last = s.step({q: [int(np.argmax(last[q]))] for q in seqs})
    tps = 8 * 24 / (time.perf_counter() - t)
    t = time.perf_counter(); q = s.add_sequence(); s.step({q: rng.integers(0, 49152, 128)}); ttft = time.perf_counter() - t
    return dict(tpot=float(np.median(st)) * 1e3, tps=tps, single_tps=1000 / (float(np.median(st)) * 1e3), ttft128=ttft * 1e3)
if len(sys.argv) > 1 and sys.argv[1] == "--worker":
    print(json.dumps(worker(sys.argv[2], int(sys.argv[3]))))
    sys.exit()
ap = argparse.ArgumentParser(description=__doc__,
                             formatter_class=argparse.RawDescriptionHelpFormatter)
ap.add_argument("old")
ap.add_argument("new")
ap.add_argument("--threads", default="1,2")
ap.add_argument("--rounds", type=int, default=2)
args = ap.parse_args()
old, new = args.old, args.new
for threads in [int(t) for t in args.threads.split(",")]:
    res = {"old": [], "new": []}
    for r in range(args.rounds):
        for name, so in (("old", old), ("new", new)) if r % 2 == 0 else (("new", new), ("old", old)):
            out = subprocess.run([sys.executable, __file__, "--worker", so, str(threads)],
                                 capture_output=True, text=True, check=True)
            res[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
    for name in res:
        med = {k: float(np.median([x[k] for x in res[name]])) for k in res[name][0]}
        print(threads, name, {k: round(v, 2) for k, v in med.items()}, "batch/single", round(med["tps"] / med["single_tps"], 2))

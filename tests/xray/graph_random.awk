# A random llvm-xray YAML trace for graph comparisons (vs_llvm.sh):
#   awk -v seed=N [-v nozero=1] -f graph_random.awk > t.yaml
# 1-5 threads with nested calls over 3-300 functions (so llvm-xray's
# DenseMaps grow and collide), TSCs that repeat within and across threads
# (calls of 0 ticks), records of different threads not in TSC order in the
# file (llvm-xray sorts them), function 0, tail exits, and in some traces
# skipped or bogus exits (for -d and -k). Each thread's TSCs never decrease.
function pick(n) { return int(rand() * n) }
BEGIN {
    srand(seed)
    split("1 1 2 3 5", tn, " "); nthreads = tn[pick(5) + 1]
    split("3 10 40 100 300", fn, " "); nfuncs = fn[pick(5) + 1]
    split("0 1000 3 2400000000 1000000000", fq, " "); freq = fq[pick(5) + 1]
    # nozero=1: no call of 0 ticks, so tracekit's unsorted replay runs
    if (nozero) split("1 1 1 2 5 100 1000", st, " ")
    else split("0 0 1 2 5 100 1000", st, " ")
    bad = rand() < 0.3
    n = 0
    for (t = 0; t < nthreads; t++) {
        tid[t] = 1 + pick(100000) * 7 + t; tsc = pick(1000); depth = 0
        m = 1 + pick(200); cnt[t] = 0
        for (i = 0; i < m; i++) {
            tsc += st[pick(7) + 1]
            if (depth > 0 && rand() < 0.45) {
                f = stack[--depth]
                kind = rand() < 0.7 ? "function-exit" : "function-tail-exit"
                if (bad && rand() < 0.1) {
                    if (rand() < 0.5) continue
                    f = pick(nfuncs + 1)
                }
            } else {
                f = rand() < 0.05 ? 0 : 1 + pick(nfuncs)
                stack[depth++] = f
                kind = rand() < 0.8 ? "function-enter" : "function-enter-arg"
            }
            rec[t, cnt[t]] = sprintf("  - { type: 0, func-id: %d, cpu: 0, thread: %d, kind: %s, tsc: %d }", f, tid[t], kind, tsc)
            ts[t, cnt[t]++] = tsc
        }
        at[t] = 0
    }
    printf "---\nheader:\n  version: 1\n  type: 0\n  constant-tsc: true\n"
    printf "  nonstop-tsc: true\n  cycle-frequency: %d\nrecords:\n", freq
    for (;;) { # merge the threads, mostly in TSC order
        k = 0; best = -1
        for (t = 0; t < nthreads; t++)
            if (at[t] < cnt[t]) {
                live[k++] = t
                if (best < 0 || ts[t, at[t]] < ts[best, at[best]]) best = t
            }
        if (k == 0) break
        t = rand() < 0.7 ? best : live[pick(k)]
        print rec[t, at[t]++]
    }
    print "..."
}

# Sourced by bench/run.sh (from bench_xray): graph-diff of the two traces
# llvm-xray is compared on (acmp_fdr, acmp_basic), tracekit against
# llvm-xray graph-diff with labels and colours: at least 10x faster
# (issue 24), the DOT text identical.
bench_xray_graph_diff() {
    a=${acmp_fdr:-} b=${acmp_basic:-}
    if [ -z "$llvm" ] || [ -z "$a" ] || [ -z "$b" ]; then
        xray_verdicts="${xray_verdicts}SKIP xray graph-diff: no llvm-xray or comparison traces
"
        return 0
    fi
    set -- -e sum -v med -c 90p -b sum "$a" "$b"
    # tracekit reads A and B on two threads: not pinned to one CPU (as
    # bench_xray_diff); llvm-xray has one thread either way
    gd_pin=$pin
    pin=
    measure gd_tk "$tk" graph-diff "$@"
    pin=$gd_pin
    "$tk" graph-diff "$@" >"$tmp.gd.tk" 2>/dev/null
    if ! measure_once gd_llvm "$llvm" graph-diff "$@" 2>/dev/null; then
        xray_verdicts="${xray_verdicts}SKIP xray graph-diff: llvm-xray failed
"
        return 0
    fi
    "$llvm" graph-diff "$@" >"$tmp.gd.llvm" 2>/dev/null
    if cmp -s "$tmp.gd.tk" "$tmp.gd.llvm"; then same=identical; else same=DIFFERENT; fi
    speed=$(awk -v a="$t_gd_llvm" -v b="$t_gd_tk" 'BEGIN { printf "%.1f", a / b }')
    echo "graph-diff $(basename "$a") $(basename "$b"): tracekit $(printf '%.2f' "$t_gd_tk") s, $((rss_gd_tk / 1024)) MiB; llvm-xray $(printf '%.2f' "$t_gd_llvm") s, $((rss_gd_llvm / 1024)) MiB; DOT $same"
    ok=$(awk -v s="$speed" 'BEGIN { print (s >= 10) ? 1 : 0 }')
    if [ "$ok" = 1 ] && [ $same = identical ]; then word=PASS; else word=MISS; miss=1; fi
    xray_verdicts="$xray_verdicts$word xray graph-diff: ${speed}x faster than llvm-xray (target >= 10x), output $same
"
}

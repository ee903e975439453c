# Sourced by bench/run.sh: the "shapes" section (issue 23). Degenerate
# traces, each stressing one dimension, against a normal trace of the
# same number of records: every command's time per record within
# SHAPES_MAX_RATIO (3x) of the normal trace's, and the state per entity
# (function or thread: (RSS - the normal trace's RSS) / entities) at most
# SHAPES_MAX_ENTITY bytes. BENCH_SHAPES_N (default 1M): entities per shape
# (2N records; "exits" has N records, normal 2N).
SHAPES_MAX_RATIO=3
SHAPES_MAX_ENTITY=128

shapes_cmds="validate|account -k|stack -k|graph -k|report|report --html -o @.html|convert --to perfetto -o @.pftrace|convert --to parquet -o @.pq"

# shapes_run FILE: sets sh_t_<i> (seconds) and sh_rss_<i> (KiB) per command i
shapes_run() {
    si=0 # not i: measure uses it
    echo "$shapes_cmds" | tr '|' '\n' >"$tmp.cmds"
    while IFS= read -r cmd; do
        rm -rf "$tmp.out.pq" "$tmp.out.html" "$tmp.out.pftrace"
        # exit 1 is an answer here (exits alone: "no instrumented calls");
        # shellcheck disable=SC2086 # the command's words
        measure shape sh -c '"$@"; [ $? -le 1 ]' sh "$tk" $(echo "$cmd" | sed "s#@#$tmp.out#") "$1"
        eval "sh_t_$si=\$t_shape sh_rss_$si=\$rss_shape"
        si=$((si + 1))
    done <"$tmp.cmds"
}

bench_shapes() {
    gen=$build/tk-gen-xray-shapes
    n=$(bytes_of "${BENCH_SHAPES_N:-1M}")
    echo "== shapes (XRay basic v3: $n entities per shape; time per record against the normal trace)"
    "$gen" normal $((2 * n)) -o "$work/shape-normal.bin"
    shapes_run "$work/shape-normal.bin"
    si=0
    while [ $si -lt 8 ]; do
        eval "n_t_$si=\$sh_t_$si n_rss_$si=\$sh_rss_$si"
        si=$((si + 1))
    done
    printf '%-9s' shape
    echo "$shapes_cmds" | tr '|' '\n' | while IFS= read -r cmd; do
        printf ' %18s' "$(echo "$cmd" | sed 's/ -o.*//; s/convert --to/to/; s/ -k//')"
    done
    echo
    for shape in normal roots threads deep exits; do
        f=$work/shape-$shape.bin
        recs=$((2 * n))
        [ "$shape" = exits ] && recs=$n
        [ "$shape" = normal ] || "$gen" "$shape" "$n" -o "$f"
        [ "$shape" = normal ] || shapes_run "$f"
        printf '%-9s' "$shape"
        worst=0 worst_cmd= ent=0
        si=0
        echo "$shapes_cmds" | tr '|' '\n' >"$tmp.cmds"
        while IFS= read -r cmd; do
            eval "t=\$sh_t_$si r=\$sh_rss_$si nt=\$n_t_$si nr=\$n_rss_$si"
            ratio=$(awk -v t="$t" -v r="$recs" -v nt="$nt" -v n="$n" 'BEGIN {
                printf "%.1f", (t / r) / ((nt > 0.001 ? nt : 0.001) / (2 * n)) }')
            printf ' %6.2fs %4dM %4sx' "$t" $((r / 1024)) "$ratio"
            if awk -v a="$ratio" -v b="$worst" 'BEGIN { exit !(a > b) }'; then
                worst=$ratio worst_cmd=$(echo "$cmd" | sed 's/ -o.*//')
            fi
            e=$(awk -v r="$r" -v nr="$nr" -v n="$n" 'BEGIN { d = (r - nr) * 1024 / n; printf "%d", (d > 0 ? d : 0) }')
            if [ "$e" -gt "$ent" ]; then ent=$e; fi
            si=$((si + 1))
        done <"$tmp.cmds"
        echo
        [ "$shape" = normal ] && continue
        ok=$(awk -v w="$worst" -v m="$SHAPES_MAX_RATIO" 'BEGIN { print (w <= m) ? 1 : 0 }')
        oke=1
        case $shape in roots|threads) [ "$ent" -le $SHAPES_MAX_ENTITY ] || oke=0 ;; esac
        if [ "$ok" = 1 ] && [ "$oke" = 1 ]; then word=PASS; else word=MISS; miss=1; fi
        line="$word shapes xray $shape: worst ${worst}x the normal time per record ($worst_cmd; target <= ${SHAPES_MAX_RATIO}x); state per entity $ent bytes (target <= $SHAPES_MAX_ENTITY for roots, threads)"
        echo "$line"
        verdicts="$verdicts$line
"
        [ "${BENCH_CLEAN:-0}" = 1 ] && rm -f "$f"
    done
    echo
}

# Sourced by bench/run.sh: the "shapes" section (issue 23). Degenerate
# traces, each stressing one dimension, against a normal trace of the
# same number of records: every command's time per record within
# SHAPES_MAX_RATIO (3x) of the normal trace's, and the state per entity
# (function or thread: (RSS - the normal trace's RSS) / entities) at most
# SHAPES_MAX_ENTITY bytes. BENCH_SHAPES_N (default 1M): entities per shape
# (2N records; "exits" has N records, normal 2N). XRay; the other formats
# below.
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

shapes_xray() {
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

# ------------------------------------------- Cacheray, casemate, UCIR
# The same comparison for the other formats: every command of the format
# (info, validate, dump, report, report --html, convert to Perfetto and
# Parquet, and its own: cachesim and mrc, bbm, replay) on a normal trace of
# about 2N records and on each shape (bench/gen_<format>_shapes.c). Time is
# CPU time (user + sys, pinned to one CPU), per record (per inflated byte
# for UCIR's bigsys, whose records carry 1 MiB each); the state per entity
# is (RSS - the normal trace's RSS) / the entities of the shape.
# BENCH_SHAPES_RUNS (default 3, as the rest of the bench): runs per
# command, the best kept (one run of the nested Cacheray shape took 0.09
# to 0.18 s of CPU to convert to Perfetto: 1.8x to 3.6x the floor).
# BENCH_SHAPES_FORMATS (default: all four) picks formats. CPU times are
# counted in 10 ms ticks, so a normal time under SHAPES_MIN_CPU counts as
# that much (at small N the ratios are then upper bounds of noise, not
# measurements; the default N gives the normal traces 0.1 s and more).
SHAPES_MIN_CPU=0.05

# sf_units FILE records|bytes: records, or inflated bytes, of FILE
sf_units() {
    key=records
    [ "$2" = bytes ] && key=inflated_bytes
    "$tk" info --json "$1" | grep -o "\"$key\":[0-9]*" | head -n 1 | cut -d: -f2
}

# sf_run FILE: sets sf_t_<i> (CPU seconds) and sf_rss_<i> (KiB) per command;
# @M in a command is the trace's middle instruction, @ the output prefix
sf_run() {
    mid=0
    case $sf_cmds in *@M*)
        mid=$("$tk" info --json "$1" | grep -o '"instructions":[0-9]*' | head -n 1 | cut -d: -f2)
        mid=$((mid / 2)) ;;
    esac
    si=0
    echo "$sf_cmds" | tr '|' '\n' >"$tmp.cmds"
    while IFS= read -r cmd; do
        best='' peak=0 k=0
        while [ $k -lt "${BENCH_SHAPES_RUNS:-3}" ]; do
            rm -rf "$tmp.out".*
            words=$(echo "$cmd" | sed "s#@M#$mid#g; s#@#$tmp.out#g")
            # exit 1 is an answer (a violation, a warning), not a failure
            # shellcheck disable=SC2086 # the command's words
            if $pin /usr/bin/time -f '%M %U %S' -o "$tmp.rss" "$tk" $words "$1" >/dev/null 2>"$tmp.err"; then st=0; else st=$?; fi
            if [ "$st" -gt 1 ]; then
                echo "bench: '$tk $words $1' failed:" >&2
                cat "$tmp.err" "$tmp.rss" >&2
                exit 1
            fi
            # shellcheck disable=SC2046 # RSS, user and system time
            set -- "$1" $(tail -n 1 "$tmp.rss")
            c=$(awk -v u="$3" -v s="$4" 'BEGIN { printf "%.3f", u + s }')
            best=$(awk -v t="$c" -v b="$best" 'BEGIN { print (b == "" || t < b) ? t : b }')
            peak=$(awk -v r="$2" -v p="$peak" 'BEGIN { print (r > p) ? r : p }')
            set -- "$1"
            k=$((k + 1))
        done
        eval "sf_t_$si=\$best sf_rss_$si=\$peak"
        si=$((si + 1))
    done <"$tmp.cmds"
}

# sf_row SHAPE UNITS ENTITIES: the shape's line (after sf_run), against
# the normal trace's (sn_t_<i>, sn_rss_<i>, sn_units); sets sf_worst,
# sf_worst_cmd, sf_ent
sf_row() {
    printf '%-8s' "$1"
    sf_worst=0 sf_worst_cmd='' sf_ent=0 si=0
    while IFS= read -r cmd; do
        eval "t=\$sf_t_$si r=\$sf_rss_$si nt=\$sn_t_$si nr=\$sn_rss_$si"
        ratio=$(awk -v t="$t" -v u="$2" -v nt="$nt" -v nu="$sn_units" -v m="$SHAPES_MIN_CPU" 'BEGIN {
            printf "%.1f", (t / u) / ((nt > m ? nt : m) / nu) }')
        printf ' %6.2fs %4dM %4sx' "$t" $((r / 1024)) "$ratio"
        if awk -v a="$ratio" -v b="$sf_worst" 'BEGIN { exit !(a > b) }'; then
            sf_worst=$ratio sf_worst_cmd=$(echo "$cmd" | sed 's/ -o.*//; s/ --index.*//')
        fi
        e=$(awk -v r="$r" -v nr="$nr" -v n="$3" 'BEGIN { d = (r - nr) * 1024 / n; printf "%d", (d > 0 ? d : 0) }')
        if [ "$e" -gt "$sf_ent" ]; then sf_ent=$e; fi
        si=$((si + 1))
    done <"$tmp.cmds"
    echo
}

# shapes_format FORMAT "NORMAL GENERATOR ARGS" "SHAPE:UNITS:ENTITIES ..." CMDS
# (UNITS records|bytes; ENTITIES a multiple of N, "n" or "n/4"; "-" for no
# per-entity target)
shapes_format() {
    fmt=$1 sf_cmds=$4
    n=$(bytes_of "${BENCH_SHAPES_N:-1M}")
    echo "== shapes ($fmt: N = $n; CPU time per record against the normal trace, peak RSS)"
    # shellcheck disable=SC2086 # the generator and its arguments
    "$build"/$2 -o "$work/shape-$fmt-normal" 2>/dev/null
    sf_run "$work/shape-$fmt-normal"
    si=0
    while [ $si -lt 12 ]; do
        eval "sn_t_$si=\${sf_t_$si:-0} sn_rss_$si=\${sf_rss_$si:-0}"
        si=$((si + 1))
    done
    printf '%-8s' shape
    echo "$sf_cmds" | tr '|' '\n' | while IFS= read -r cmd; do
        printf ' %18s' "$(echo "$cmd" | sed 's/ -o.*//; s/convert --to/to/; s/ --index.*//; s/ --at @M/ --at/')"
    done
    echo
    sn_units=$(sf_units "$work/shape-$fmt-normal" records)
    sf_row normal "$sn_units" "$n"
    for spec in $3; do
        shape=${spec%%:*} rest=${spec#*:}
        unit=${rest%%:*} ents=${rest#*:}
        f=$work/shape-$fmt-$shape
        "$build/tk-gen-$fmt-shapes" "$shape" "$n" -o "$f"
        sf_run "$f"
        if [ "$unit" = bytes ]; then
            saved=$sn_units
            sn_units=$(sf_units "$work/shape-$fmt-normal" bytes)
        fi
        ne=$n
        case $ents in n/*) ne=$((n / ${ents#n/})) ;; esac
        sf_row "$shape" "$(sf_units "$f" "$unit")" "$ne"
        [ "$unit" = bytes ] && sn_units=$saved
        ok=$(awk -v w="$sf_worst" -v m="$SHAPES_MAX_RATIO" 'BEGIN { print (w <= m) ? 1 : 0 }')
        oke=1 target="state per entity $sf_ent bytes (target <= $SHAPES_MAX_ENTITY)"
        if [ "$ents" = - ]; then
            target="state per entity not targeted ($sf_ent bytes per N)"
        elif [ "$sf_ent" -gt $SHAPES_MAX_ENTITY ]; then
            oke=0
        fi
        if [ "$ok" = 1 ] && [ "$oke" = 1 ]; then word=PASS; else word=MISS; miss=1; fi
        line="$word shapes $fmt $shape: worst ${sf_worst}x the normal CPU time per $( [ "$unit" = bytes ] && echo byte || echo record) ($sf_worst_cmd; target <= ${SHAPES_MAX_RATIO}x); $target"
        echo "$line"
        verdicts="$verdicts$line
"
        [ "${BENCH_CLEAN:-0}" = 1 ] && rm -f "$f"
    done
    [ "${BENCH_CLEAN:-0}" = 1 ] && rm -f "$work/shape-$fmt-normal"
    echo
}

sf_common="info|validate|dump|report|report --html -o @.html|convert --to perfetto -o @.pftrace|convert --to parquet -o @.pq"

bench_shapes() {
    for fmt in ${BENCH_SHAPES_FORMATS:-xray cacheray casemate ucir}; do
        n=$(bytes_of "${BENCH_SHAPES_N:-1M}")
        case $fmt in
        xray) shapes_xray ;;
        cacheray)
            shapes_format cacheray "tk-gen-cacheray --records $((2 * n)) --threads 4" \
                "live:records:n churn:records:n nested:records:n empty:records:n threads:records:n" \
                "$sf_common|cachesim|mrc" ;;
        casemate)
            shapes_format casemate "tk-gen-casemate --events $((2 * n))" \
                "roots:records:n locks:records:n tables:records:n/4 threads:records:n" \
                "$sf_common|bbm" ;;
        ucir)
            shapes_format ucir "tk-gen-ucir --bytes $((26 * n))" \
                "maps:records:n rmaps:records:n holes:records:n bigsys:bytes:- sysops:records:n frames:records:n" \
                "$sf_common|replay|replay --at @M --index @.idx" ;;
        *) echo "bench: unknown shapes format $fmt" >&2; exit 2 ;;
        esac
    done
}

#!/bin/sh
# tracekit benchmark (`make bench`): throughput and memory of the tracekit
# command on large generated traces, next to `cat FILE >/dev/null` as the
# speed of just reading the file from the page cache.
#
#   bench/run.sh BUILD_DIR
#
# Per format: generate a trace of BENCH_SIZE (default 1G = 1 GiB) and one
# half that size into the work dir (kept and reused by later runs while the
# generator is unchanged), then time each command BENCH_RUNS times (default
# 3) with a warm page cache, pinned to one CPU, and report the best run:
# wall time, GB/s (10^9 bytes of input per second), records/s, peak RSS
# (max over the runs) and the ratio to cat. Target, per format: validate at
# least BENCH_TARGET_GBPS (default 1) GB/s on one core, and flat memory
# (validate's peak RSS on the full trace at most 1.25x that on the half).
#
# Environment: BENCH_DIR (work dir, default bench/out, git-ignored),
# BENCH_SIZE, BENCH_RUNS, BENCH_TARGET_GBPS, BENCH_FORMATS (default: all),
# BENCH_CASEMATE_SIZE, BENCH_CASEMATE_TARGET_MEPS, BENCH_BBM_TARGET_MEPS,
# BENCH_BBM_MAX_RSS_MB (see bench_casemate),
# BENCH_XRAY_BASIC_SIZE, BENCH_XRAY_CMP_SIZE, BENCH_XRAY_LLVM_RUNS (see
# bench_xray),
# BENCH_UCIR_SIZE (see bench_ucir),
# BENCH_CACHESIM_RECORDS, BENCH_CACHESIM_TARGET_MAPS (see bench_cachesim),
# BENCH_CACHESIM_RANDOM_RECORDS, BENCH_CACHESIM_RANDOM_BIG,
# BENCH_CACHESIM_FOOTPRINT (see bench_cachesim_random),
# BENCH_MRC_RECORDS, BENCH_MRC_TARGET_MAPS (see bench_mrc; BENCH_FORMATS=mrc
# runs it alone),
# BENCH_CR_PERFETTO_TARGET_MRPS (see bench_cacheray_perfetto),
# BENCH_XR_PERFETTO_TARGET_MRPS, BENCH_XR_PERFETTO_MAX_RSS_MB (see
# bench_xray_perfetto),
# BENCH_XR_PARQUET_TARGET_MBPS, BENCH_XR_PARQUET_MAX_RSS_MB (see
# bench_xray_parquet),
# BENCH_XRAY_DIFF_SIZE (see bench_xray_diff),
# BENCH_PROGRESS_RUNS (see bench_progress),
# BENCH_SHAPES_N, BENCH_SHAPES_FORMATS, BENCH_SHAPES_RUNS (see bench/shapes.sh;
# BENCH_FORMATS=shapes runs it alone),
# BENCH_CPU (the CPU to pin to; default: the fastest, see below),
# BENCH_CLEAN=1 (delete the generated traces at the end),
# BENCH_STRICT=1 (exit 1 on a MISS; by default only the line says so).
#
# Adding a format: write bench_<format>() below (generate, measure, table,
# verdict: see bench_cacheray) and add <format> to all_formats.
set -eu

all_formats="cacheray xray casemate ucir"

[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=${BENCH_DIR:-$here/out}
size=${BENCH_SIZE:-1G}
runs=${BENCH_RUNS:-3}
target_gbps=${BENCH_TARGET_GBPS:-1}
formats=${BENCH_FORMATS:-$all_formats shapes}
tk=$build/tracekit
flat_ratio=1.25

[ -x "$tk" ] || { echo "bench: $tk not built" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
mkdir -p "$work"
tmp=$work/.tmp.$$
trap 'rm -rf "$tmp".*' EXIT INT TERM

# ---------------------------------------------------------------- helpers

bytes_of() { # 1G / 512M / 300K / 1000 -> bytes
    awk -v s="$1" 'BEGIN {
        n = s + 0; u = toupper(substr(s, length(s)))
        if (u == "K") n *= 1024; else if (u == "M") n *= 1048576; else if (u == "G") n *= 1073741824
        printf "%d", n }'
}
human() { # bytes -> "1 GiB"
    awk -v b="$1" 'BEGIN { split("B KiB MiB GiB TiB", u, " "); i = 1
        while (b >= 1024 && i < 5) { b /= 1024; i++ }
        printf (b == int(b) ? "%d %s" : "%.1f %s"), b, u[i] }'
}
file_size() { wc -c <"$1" | tr -d ' '; }

# Run on one CPU, so "one core" is what is measured: the fastest by a
# short calibration (a CPU-bound awk loop, best of 3 on each), because in
# a virtual machine the vCPUs can differ by half at a time, and which one
# is slow changes. BENCH_CPU=N picks one instead.
now_ns() { date +%s%N; }
fastest_cpu() {
    best_cpu=0 best_ns=
    c=0
    while [ "$c" -lt "$(nproc)" ]; do
        for _ in 1 2 3; do
            t0=$(now_ns)
            taskset -c "$c" awk 'BEGIN { for (i = 0; i < 2000000; i++) s += i }' 2>/dev/null || break
            ns=$(($(now_ns) - t0))
            if [ -z "$best_ns" ] || [ "$ns" -lt "$best_ns" ]; then best_ns=$ns best_cpu=$c; fi
        done
        c=$((c + 1))
    done
    echo "$best_cpu"
}
pin=
if command -v taskset >/dev/null 2>&1; then
    cpu=${BENCH_CPU:-$(fastest_cpu)}
    pin="taskset -c $cpu"
fi

# ensure_trace FILE BYTES GENERATOR [ARGS...]: (re)generate FILE with
# "GENERATOR ARGS --bytes BYTES -o FILE" unless it exists, is at least BYTES
# long and is newer than the generator binary.
ensure_trace() {
    file=$1 want=$2
    shift 2
    if [ -f "$file" ] && [ "$(file_size "$file")" -ge "$want" ] && ! [ "$1" -nt "$file" ]; then
        echo "  reusing $file"
        return
    fi
    echo "  generating $file ($(human "$want"))"
    "$@" --bytes "$want" -o "$file.part" 2>"$tmp.gen" || { cat "$tmp.gen" >&2; exit 1; }
    mv "$file.part" "$file"
}

# measure NAME CMD...: run CMD $runs times (stdout to /dev/null, pinned);
# sets t_NAME to the best wall time in seconds and rss_NAME to the peak RSS
# in KiB (max over the runs). A failing command stops the benchmark.
# measure_once NAME CMD...: like measure, one run (for what changes state)
measure_once() {
    saved_runs=$runs
    runs=1
    measure "$@"
    runs=$saved_runs
}

# measure_spread NAME CMD...: measure on the calibrated CPU and on one more
# (unless BENCH_CPU is set), keeping the best time and the highest RSS.
# Over the minutes the cache simulator's runs take, which vCPU is slow
# changes: at one moment the two ran a chain of adds at 3.1 and 2.0 G/s.
measure_spread() {
    ms_name=$1
    shift
    if [ -n "${BENCH_CPU:-}" ] || [ -z "$pin" ]; then
        measure "$ms_name" "$@"
        return
    fi
    ms_saved=$pin ms_t='' ms_m=0 ms_n=0 c=$cpu
    while [ "$ms_n" -lt 2 ] && [ "$ms_n" -lt "$(nproc)" ]; do
        pin="taskset -c $c"
        measure spread "$@"
        ms_t=$(awk -v t="$t_spread" -v b="$ms_t" 'BEGIN { print (b == "" || t < b) ? t : b }')
        ms_m=$(awk -v r="$rss_spread" -v p="$ms_m" 'BEGIN { print (r > p) ? r : p }')
        ms_n=$((ms_n + 1))
        c=$(((c + 1) % $(nproc)))
    done
    pin=$ms_saved
    eval "t_$ms_name=\$ms_t rss_$ms_name=\$ms_m"
}

measure() {
    name=$1
    shift
    best= peak=0 i=0
    while [ $i -lt "$runs" ]; do
        t0=$(date +%s%N)
        if ! $pin /usr/bin/time -f %M -o "$tmp.rss" "$@" >/dev/null 2>"$tmp.err"; then
            echo "bench: '$*' failed:" >&2
            cat "$tmp.err" "$tmp.rss" >&2
            exit 1
        fi
        t1=$(date +%s%N)
        t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
        r=$(tail -n 1 "$tmp.rss")
        best=$(awk -v t="$t" -v b="$best" 'BEGIN { print (b == "" || t < b) ? t : b }')
        peak=$(awk -v r="$r" -v p="$peak" 'BEGIN { print (r > p) ? r : p }')
        i=$((i + 1))
    done
    eval "t_$name=\$best rss_$name=\$peak"
}

gbps() { awk -v b="$1" -v t="$2" 'BEGIN { printf "%.2f", b / t / 1e9 }'; }

header() {
    printf '%-36s %9s %8s %9s %10s %7s\n' command "time s" "GB/s" "Mrec/s" "peak RSS" "vs cat"
}

# row LABEL BYTES RECORDS SECONDS RSS_KIB CAT_SECONDS (RECORDS "-": none)
row() {
    awk -v l="$1" -v b="$2" -v n="$3" -v t="$4" -v r="$5" -v c="$6" 'BEGIN {
        mrec = (n == "-") ? "-" : sprintf("%.1f", n / t / 1e6)
        printf "%-36s %9.3f %8.2f %9s %7.1f MiB %6.2fx\n", l, t, b / t / 1e9, mrec, r / 1024, c / t }'
}

verdicts=
miss=0
# verdict FORMAT VALIDATE_GBPS RSS_FULL_KIB RSS_HALF_KIB
verdict() {
    fast=$(awk -v g="$2" -v t="$target_gbps" 'BEGIN { print (g >= t) ? 1 : 0 }')
    ratio=$(awk -v a="$3" -v b="$4" 'BEGIN { printf "%.2f", a / b }')
    flat=$(awk -v r="$ratio" -v f="$flat_ratio" 'BEGIN { print (r <= f) ? 1 : 0 }')
    if [ "$fast" = 1 ] && [ "$flat" = 1 ]; then word=PASS; else word=MISS; miss=1; fi
    speed="validate $2 GB/s $([ "$fast" = 1 ] && echo '>=' || echo '<') $target_gbps GB/s on one core"
    mem="memory $([ "$flat" = 1 ] && echo flat || echo 'NOT flat'): peak RSS x$ratio for 2x the input (limit x$flat_ratio)"
    line="$word $1: $speed; $mem"
    echo "$line"
    verdicts="$verdicts$line
"
}

# --------------------------------------------------------------- cacheray

# report --html of FILE (FORMAT's big bench trace) against the text
# report of the same file: time, peak RSS and the page's size, which must
# stay within 5 MB whatever the trace (issue 21). Extra args: options both
# reports take.
bench_html() {
    fmt=$1 file=$2
    shift 2
    measure txt "$tk" report "$@" "$file"
    measure html "$tk" report --html -o "$tmp.html" "$@" "$file"
    html_bytes=$(file_size "$tmp.html")
    verdict=PASS
    [ "$html_bytes" -le 5000000 ] || verdict=MISS
    echo "$fmt report --html: $(human "$html_bytes") page ($verdict: at most 5 MB), $(printf '%.2f' "$t_html") s and $((rss_html / 1024)) MiB; the text report $(printf '%.2f' "$t_txt") s and $((rss_txt / 1024)) MiB; best of $runs${pin:+, $pin}"
    [ "$verdict" = PASS ] || [ "${BENCH_STRICT:-0}" != 1 ] || exit 1
    rm -f "$tmp.html"
}

bench_cacheray() {
    gen=$build/tk-gen-cacheray
    [ -x "$gen" ] || { echo "bench: $gen not built" >&2; exit 2; }
    full_bytes=$(bytes_of "$size")
    half_bytes=$((full_bytes / 2))
    full=$work/cacheray-$size.bin
    half=$work/cacheray-half-$size.bin
    echo "== cacheray"
    ensure_trace "$full" "$full_bytes" "$gen"
    ensure_trace "$half" "$half_bytes" "$gen"
    bytes=$(file_size "$full")
    hbytes=$(file_size "$half")
    records=$("$tk" info --json "$full" | sed -n 's/^{[^[]*"records":\([0-9]*\).*/\1/p')
    order=$("$tk" info --json "$full" | sed -n 's/.*"byte_order":"\([a-z]*\)".*/\1/p')
    "$tk" validate -q "$full" >/dev/null ||
        { echo "bench: the generated trace does not validate" >&2; exit 1; }
    cat "$full" "$half" >/dev/null # warm the page cache

    measure cat cat "$full"
    measure validate "$tk" validate "$full"
    measure info "$tk" info "$full"
    measure dump "$tk" dump --json "$full"
    measure convert "$tk" convert --to cacheray -o - "$full"
    measure half "$tk" validate "$half"

    echo
    echo "cacheray: $(human "$bytes") ($bytes bytes), $records records, $order-endian;" \
         "best of $runs, warm cache${pin:+, $pin}"
    header
    row "cat FILE >/dev/null" "$bytes" - "$t_cat" "$rss_cat" "$t_cat"
    row "tracekit validate" "$bytes" "$records" "$t_validate" "$rss_validate" "$t_cat"
    row "tracekit info" "$bytes" "$records" "$t_info" "$rss_info" "$t_cat"
    row "tracekit dump --json >/dev/null" "$bytes" "$records" "$t_dump" "$rss_dump" "$t_cat"
    row "tracekit convert --to cacheray" "$bytes" "$records" "$t_convert" "$rss_convert" "$t_cat"
    row "tracekit validate ($(human "$hbytes") file)" "$hbytes" - "$t_half" "$rss_half" "$t_cat"
    echo
    verdict cacheray "$(gbps "$bytes" "$t_validate")" "$rss_validate" "$rss_half"
    echo
    bench_progress "$full"
    bench_cacheray_perfetto "$full" "$records"
    bench_cacheray_parquet "$full" "$records"
    bench_html cacheray "$full"
    if [ "${BENCH_CLEAN:-0}" = 1 ]; then
        rm -f "$full" "$half"
    fi
    bench_cachesim
    bench_mrc
}

# convert --to perfetto of FILE (RECORDS records): the timeline alone
# (region slices, per-thread counters) and with a one-level simulation
# (L1 32K 8-way 64 B LRU, misses per window). Target: the timeline alone at
# least BENCH_CR_PERFETTO_TARGET_MRPS (default 50) M records/s on one core.
bench_cacheray_perfetto() {
    pf_target=${BENCH_CR_PERFETTO_TARGET_MRPS:-50}
    "$tk" convert --to perfetto -o "$tmp.pftrace" "$1" ||
        { echo "bench: tracekit convert --to perfetto failed" >&2; exit 1; }
    pf_bytes=$(file_size "$tmp.pftrace")
    rm -f "$tmp.pftrace"
    measure pf "$tk" convert --to perfetto -o - "$1"
    measure pfsim "$tk" convert --to perfetto -l L1:32K:8:64:lru -o - "$1"
    echo "cacheray -> perfetto: $2 records, output $(human "$pf_bytes"); best of $runs${pin:+, $pin}"
    header
    row "convert --to perfetto" "$(file_size "$1")" "$2" "$t_pf" "$rss_pf" "$t_cat"
    row "convert --to perfetto -l L1:32K:8:64" "$(file_size "$1")" "$2" "$t_pfsim" "$rss_pfsim" \
        "$t_cat"
    mrps=$(awk -v n="$2" -v t="$t_pf" 'BEGIN { printf "%.1f", n / t / 1e6 }')
    if awk -v m="$mrps" -v t="$pf_target" 'BEGIN { exit !(m >= t) }'; then word=PASS; else word=MISS; miss=1; fi
    line="$word cacheray convert --to perfetto: $mrps M records/s"
    line="$line $([ $word = PASS ] && echo '>=' || echo '<') $pf_target on one core (no cachesim)"
    echo "$line"
    verdicts="$verdicts$line
"
    echo
}

# convert --to parquet of FILE (RECORDS records): the accesses and regions
# tables (ZSTD, delta encoding). Target: the output at most 1/3 of the
# input's size; records/s reported.
bench_cacheray_parquet() {
    pq_dir=$tmp.parquet
    rm -rf "$pq_dir"
    measure pq "$tk" convert --to parquet -o "$pq_dir" "$1"
    pq_bytes=$(cat "$pq_dir"/*.parquet | wc -c | tr -d ' ')
    rm -rf "$pq_dir"
    in_bytes=$(file_size "$1")
    echo "cacheray -> parquet: $2 records, output $(human "$pq_bytes"); best of $runs${pin:+, $pin}"
    header
    row "convert --to parquet" "$in_bytes" "$2" "$t_pq" "$rss_pq" "$t_cat"
    pq_ratio=$(awk -v o="$pq_bytes" -v i="$in_bytes" 'BEGIN { printf "%.3f", o / i }')
    pq_mrps=$(awk -v n="$2" -v t="$t_pq" 'BEGIN { printf "%.2f", n / t / 1e6 }')
    if awk -v r="$pq_ratio" 'BEGIN { exit !(r <= 1 / 3) }'; then word=PASS; else word=MISS; miss=1; fi
    line="$word cacheray convert --to parquet: output $pq_ratio of the input"
    line="$line $([ $word = PASS ] && echo '<=' || echo '>') 1/3 (ZSTD + delta); $pq_mrps M records/s"
    echo "$line"
    verdicts="$verdicts$line
"
    echo
}

# The progress line's cost, on the command where it weighs most: validate
# of FILE (the fastest reader, so the most chunks a second for the input's
# hook) with --progress always (stderr to a file, drawn 10 times a second)
# against --progress never. BENCH_PROGRESS_RUNS (default 9) runs of each,
# alternating which goes first, best of each; the gap between the two best
# runs without the line shows the noise. Target: under 1%.
bench_progress() {
    pfile=$1
    pruns=${BENCH_PROGRESS_RUNS:-9}
    offs='' ons='' pi=0
    while [ "$pi" -lt "$pruns" ]; do
        for pmode in $([ $((pi % 2)) = 0 ] && echo "never always" || echo "always never"); do
            measure_once "$pmode" "$tk" validate --progress "$pmode" "$pfile"
            [ "$pmode" = never ] ||
                draws=$(tr '\r' '\n' <"$tmp.err" | grep -c '^tracekit: validate' || true)
        done
        offs="$offs $t_never" ons="$ons $t_always"
        pi=$((pi + 1))
    done
    best_off=$(echo "$offs" | tr ' ' '\n' | sed '/^$/d' | sort -n | head -n 1)
    next_off=$(echo "$offs" | tr ' ' '\n' | sed '/^$/d' | sort -n | sed -n 2p)
    best_on=$(echo "$ons" | tr ' ' '\n' | sed '/^$/d' | sort -n | head -n 1)
    cost=$(awk -v a="$best_on" -v b="$best_off" 'BEGIN { printf "%.2f", (a - b) / b * 100 }')
    noise=$(awk -v a="${next_off:-$best_off}" -v b="$best_off" 'BEGIN { printf "%.2f", (a - b) / b * 100 }')
    echo "progress line: tracekit validate of $(human "$(file_size "$pfile")")," \
         "best of $pruns each, alternating${pin:+, $pin}"
    printf '  %-22s %8.3f s\n' "--progress never" "$best_off"
    printf '  %-22s %8.3f s   (%s drawings in the last run)\n' "--progress always" "$best_on" \
        "$draws"
    if awk -v c="$cost" 'BEGIN { exit !(c < 1) }'; then word=PASS; else word=MISS; miss=1; fi
    line="$word progress line: costs $cost% of validate's time (target < 1%; noise: the"
    line="$line two best runs without it differ by $noise%)"
    if awk -v n="$noise" 'BEGIN { exit !(n >= 1) }'; then
        line="$line, a busy machine: rerun it alone"
    fi
    echo "$line"
    verdicts="$verdicts$line
"
    echo
}

# The cache simulator on a trace of BENCH_CACHESIM_RECORDS records (default
# 101M: at least 100 M accesses) from tk-gen-cacheray (two threads: stack,
# sweeps through typed arrays, random elements, reallocations, a falsely
# shared line). Measured: tracekit validate (decode only: every record
# read and checked), tracekit cachesim with one level (L1 32K 8-way 64 B
# LRU; also with --no-3c) and with three (+ L2 1M 16-way, L3 32M 16-way),
# every analysis on; each best of $runs on each of two CPUs
# (measure_spread), every run on one. Targets: one level at least
# BENCH_CACHESIM_TARGET_MAPS (default 50) M accesses/s on one core, three
# levels at least a third of that.
bench_cachesim() {
    sim_records=${BENCH_CACHESIM_RECORDS:-101000000}
    sim_target=${BENCH_CACHESIM_TARGET_MAPS:-50}
    sim=$work/cachesim-$sim_records.bin
    echo "== cacheray cachesim"
    if [ -f "$sim" ] && ! [ "$gen" -nt "$sim" ]; then
        echo "  reusing $sim"
    else
        echo "  generating $sim ($sim_records records)"
        "$gen" --records "$sim_records" -o "$sim.part" 2>"$tmp.gen" || { cat "$tmp.gen" >&2; exit 1; }
        mv "$sim.part" "$sim"
    fi
    one="--level L1:32K:8:64:lru"
    three="$one --level L2:1M:16:64:lru --level L3:32M:16:64:lru"
    # shellcheck disable=SC2086
    "$tk" cachesim --json $one "$sim" >"$tmp.sim" ||
        { echo "bench: tracekit cachesim failed" >&2; exit 1; }
    accesses=$(sed -n 's/^{[^[]*"accesses":\([0-9]*\).*/\1/p' "$tmp.sim")
    l1miss=$(sed -n 's/.*"miss_rate":\([0-9.e-]*\).*/\1/p' "$tmp.sim")
    bytes=$(file_size "$sim")
    cat "$sim" >/dev/null # warm the page cache
    measure_spread cat cat "$sim"
    measure_spread decode "$tk" validate "$sim"
    # shellcheck disable=SC2086
    measure_spread one "$tk" cachesim $one "$sim"
    # shellcheck disable=SC2086
    measure_spread no3c "$tk" cachesim --no-3c $one "$sim"
    # shellcheck disable=SC2086
    measure_spread three "$tk" cachesim $three "$sim"
    echo
    spread="${pin:+, $pin}"
    if [ -z "${BENCH_CPU:-}" ] && [ -n "$pin" ] && [ "$(nproc)" -gt 1 ]; then
        spread=", on CPU $cpu and the next"
    fi
    echo "cachesim: $(human "$bytes"), $accesses accesses (L1 miss rate $l1miss);" \
         "best of $runs, warm cache$spread"
    printf '%-44s %9s %12s %11s %9s\n' command "time s" "M acc/s" "peak RSS" "vs decode"
    for r in "decode|tracekit validate (decode only)" "one|cachesim, 1 level" \
             "no3c|cachesim, 1 level, --no-3c" "three|cachesim, 3 levels"; do
        eval "t=\$t_${r%%|*} m=\$rss_${r%%|*}"
        awk -v l="${r#*|}" -v n="$accesses" -v t="$t" -v m="$m" -v d="$t_decode" 'BEGIN {
            printf "%-44s %9.3f %12.1f %7.1f MiB %8.2fx\n", l, t, n / t / 1e6, m / 1024, d / t }'
    done
    echo
    maps=$(awk -v n="$accesses" -v t="$t_one" 'BEGIN { printf "%.1f", n / t / 1e6 }')
    share=$(awk -v a="$t_one" -v b="$t_three" 'BEGIN { printf "%.2f", a / b }')
    fast=$(awk -v m="$maps" -v t="$sim_target" 'BEGIN { print (m >= t) ? 1 : 0 }')
    deep=$(awk -v s="$share" 'BEGIN { print (s >= 1 / 3) ? 1 : 0 }')
    if [ "$fast" = 1 ] && [ "$deep" = 1 ]; then word=PASS; else word=MISS; miss=1; fi
    line="$word cacheray cachesim: 1 level $maps M accesses/s $([ "$fast" = 1 ] && echo '>=' || echo '<')"
    line="$line $sim_target on one core; 3 levels at ${share}x of 1 level (target >= 0.33)"
    echo "$line"
    verdicts="$verdicts$line
"
    echo
    bench_cachesim_cores "$sim" "$accesses" "$three"
    bench_cachesim_random
    if [ "${BENCH_CLEAN:-0}" = 1 ]; then
        rm -f "$sim"
    fi
}

# The two-core ratio (issue 22, part 3) on the locality trace FILE
# (ACCESSES accesses) with the LEVELS of three: levels 2-3 on a second
# thread (the default) against TRACEKIT_CACHESIM_THREADS=1, wall clock,
# not pinned. Target: >= 1.4x.
bench_cachesim_cores() {
    cc_saved=$pin
    pin=
    # shellcheck disable=SC2086
    measure cores2 "$tk" cachesim $3 "$1"
    # shellcheck disable=SC2086
    measure cores1 env TRACEKIT_CACHESIM_THREADS=1 "$tk" cachesim $3 "$1"
    pin=$cc_saved
    ratio=$(awk -v a="$t_cores1" -v b="$t_cores2" 'BEGIN { printf "%.2f", a / b }')
    echo "cachesim, 3 levels, locality trace: one thread $(printf '%.3f' "$t_cores1") s," \
         "two $(printf '%.3f' "$t_cores2") s ($(awk -v n="$2" -v t="$t_cores2" 'BEGIN { printf "%.1f", n / t / 1e6 }') M acc/s); best of $runs, not pinned"
    if awk -v r="$ratio" 'BEGIN { exit !(r >= 1.4) }'; then word=PASS; else word=MISS; miss=1; fi
    line="$word cacheray cachesim: 3 levels on two cores ${ratio}x one (target >= 1.4)"
    echo "$line"
    verdicts="$verdicts$line
"
    echo
}

# Traffic without locality (issue 22): uniformly random 8-byte accesses
# over BENCH_CACHESIM_FOOTPRINT (default 128M), 1/4 writes, two threads
# interleaved at random, and one thread; BENCH_CACHESIM_RANDOM_RECORDS
# (default 10M) records for the speed rows, BENCH_CACHESIM_RANDOM_BIG
# (default 100M) for the memory row. Wall clock, not pinned (three levels
# take two cores), default analyses. Targets: 1 level >= 25 M accesses/s
# and 3 levels (32K/8, 1M/16, 8M/16) >= 10 M/s on two threads' traffic,
# one thread's at least as fast; peak RSS of 3 levels on the big trace
# <= 200 MB (<= 64 bytes per distinct line, 2 M lines).
bench_cachesim_random() {
    rn=${BENCH_CACHESIM_RANDOM_RECORDS:-10000000}
    rbig=${BENCH_CACHESIM_RANDOM_BIG:-100000000}
    fp=${BENCH_CACHESIM_FOOTPRINT:-128M}
    r1=$work/cachesim-random1-$rn.bin r2=$work/cachesim-random2-$rn.bin
    rb=$work/cachesim-random2-$rbig.bin
    for spec in "$r1 1 $rn" "$r2 2 $rn" "$rb 2 $rbig"; do
        set -- $spec
        if ! [ -f "$1" ] || [ "$gen" -nt "$1" ]; then
            echo "  generating $1 ($3 records, $2 thread(s), footprint $fp)"
            "$gen" --pattern random --threads "$2" --footprint "$fp" --records "$3" \
                -o "$1.part" 2>"$tmp.gen" || { cat "$tmp.gen" >&2; exit 1; }
            mv "$1.part" "$1"
        fi
    done
    one="--level L1:32K:8:64:lru"
    three="$one --level L2:1M:16:64:lru --level L3:8M:16:64:lru"
    rr_saved=$pin
    pin=
    # shellcheck disable=SC2086
    { measure r2one "$tk" cachesim $one "$r2"; measure r2three "$tk" cachesim $three "$r2"
      measure r1one "$tk" cachesim $one "$r1"; measure r1three "$tk" cachesim $three "$r1"; }
    saved_runs=$runs
    runs=1
    # shellcheck disable=SC2086
    measure big "$tk" cachesim $three "$rb"
    runs=$saved_runs
    pin=$rr_saved
    acc=$((rn - 1)) # the first record types the array
    echo "cachesim, random traffic over $fp: $acc accesses; best of $runs, not pinned"
    printf '%-44s %9s %12s %11s\n' command "time s" "M acc/s" "peak RSS"
    for r in "r2one|1 level, two threads" "r2three|3 levels, two threads" \
             "r1one|1 level, one thread" "r1three|3 levels, one thread"; do
        eval "t=\$t_${r%%|*} m=\$rss_${r%%|*}"
        awk -v l="${r#*|}" -v n="$acc" -v t="$t" -v m="$m" 'BEGIN {
            printf "%-44s %9.3f %12.1f %7.1f MiB\n", l, t, n / t / 1e6, m / 1024 }'
    done
    awk -v n="$((rbig - 1))" -v t="$t_big" -v m="$rss_big" 'BEGIN {
        printf "%-44s %9.3f %12.1f %7.1f MiB\n", sprintf("3 levels, two threads, %.0f M accesses", n / 1e6),
            t, n / t / 1e6, m / 1024 }'
    echo
    rate() { awk -v n="$acc" -v t="$1" 'BEGIN { printf "%.1f", n / t / 1e6 }'; }
    m1=$(rate "$t_r2one") m3=$(rate "$t_r2three") o1=$(rate "$t_r1one") o3=$(rate "$t_r1three")
    mb=$((rss_big / 1024))
    ok=$(awk -v a="$m1" -v b="$m3" -v c="$o1" -v d="$o3" -v m="$mb" 'BEGIN {
        print (a >= 25 && b >= 10 && c >= 25 && d >= 10 && m <= 200) ? 1 : 0 }')
    if [ "$ok" = 1 ]; then word=PASS; else word=MISS; miss=1; fi
    line="$word cacheray cachesim random traffic: 1 level $m1 M acc/s (one thread $o1; target >= 25),"
    line="$line 3 levels $m3 (one thread $o3; target >= 10); peak RSS $mb MiB on $((rbig / 1000000)) M"
    line="$line accesses (target <= 200)"
    echo "$line"
    verdicts="$verdicts$line
"
    echo
    if [ "${BENCH_CLEAN:-0}" = 1 ]; then
        rm -f "$r1" "$r2" "$rb"
    fi
}

# ------------------------------------------------------------- cacheray mrc
#
# tracekit mrc on two traces of BENCH_MRC_RECORDS records (default 20M)
# from tk-gen-cacheray: a program's traffic (the default pattern) and
# uniformly random 8-byte accesses over 128 MiB (two threads). Measured
# (best of $runs, pinned): the exact LRU curve, SHARDS at fixed rates 0.01
# and 0.001 and at fixed size S = 8K, and miniature simulation (8-way LRU
# at rate 0.01, 8 sizes from 32K) whose miss rates are compared with full
# `cachesim` runs of each size. Errors: SHARDS' mean absolute error against
# the exact curve at the JSON points from 4/R lines to the footprint (as
# `mrc --exact` computes it); the miniatures' largest error over the 8
# sizes. Targets: MAE <= 0.01, SHARDS at a fixed rate >= 150 M accesses/s
# (BENCH_MRC_TARGET_MAPS), the miniatures within 0.02, and fixed size's
# peak RSS flat (at most 1.25x between the two traces, whose footprints
# differ about 100-fold).
mrc_py=python3
[ -x /usr/bin/python3 ] && mrc_py=/usr/bin/python3

# mrc_cpu CMD...: the best user + system seconds of $runs runs (pinned):
# on a shared machine the wall time also counts the waits for the CPU
mrc_cpu() {
    mc_best= mc_i=0
    while [ $mc_i -lt "$runs" ]; do
        $pin /usr/bin/time -f '%U %S' -o "$tmp.cpu" "$@" >/dev/null 2>&1 || true
        mc_t=$(tail -n 1 "$tmp.cpu" | awk '{ printf "%.3f", $1 + $2 }')
        mc_best=$(awk -v t="$mc_t" -v b="$mc_best" 'BEGIN { print (b == "" || t < b) ? t : b }')
        mc_i=$((mc_i + 1))
    done
    echo "$mc_best"
}

# mrc_mae EXACT_JSON SHARDS_JSON: SHARDS' mean absolute error
mrc_mae() {
    "$mrc_py" - "$1" "$2" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["curves"][0]
s = json.load(open(sys.argv[2]))["curves"][0]
exact = {p["lines"]: p["miss_rate"] for p in e["points"]}
errs, prev = [], 0
for p in s["points"]:
    if prev >= e["lines"]:
        break
    prev = p["lines"]
    if p["miss_rate"] is not None and p["lines"] in exact:
        errs.append(abs(p["miss_rate"] - exact[p["lines"]]))
print("%.4f" % (sum(errs) / len(errs)) if errs else "nan")
PY
}

# mrc_trace NAME FILE: the rows of one trace into $mrc_rows, verdicts
mrc_trace() {
    mt_name=$1 mt_file=$2
    "$tk" mrc --json "$mt_file" >"$tmp.exact" || { echo "bench: tracekit mrc failed" >&2; exit 1; }
    mt_acc=$(sed -n 's/^{[^[]*"accesses":\([0-9]*\).*/\1/p' "$tmp.exact")
    mt_lines=$("$mrc_py" -c 'import json,sys; print(json.load(open(sys.argv[1]))["curves"][0]["lines"])' "$tmp.exact")
    echo
    echo "mrc on $mt_name: $(human "$(file_size "$mt_file")"), $mt_acc accesses, $mt_lines distinct 64-byte lines; best of $runs${pin:+, $pin}"
    printf '%-34s %9s %10s %11s %8s  %s\n' method "time s" "M acc/s" "peak RSS" error \
        "verdict (M acc/s of CPU time: user + system)"
    measure exact "$tk" mrc "$mt_file"
    awk -v t="$t_exact" -v n="$mt_acc" -v m="$rss_exact" 'BEGIN {
        printf "%-34s %9.3f %10.1f %7.1f MiB %8s\n", "exact LRU", t, n / t / 1e6, m / 1024, "-" }'
    for v in "0.01|--sample 0.01" "0.001|--sample 0.001" "S=8K|--max-samples 8K"; do
        label="SHARDS ${v%%|*}"
        # shellcheck disable=SC2086
        "$tk" mrc --json ${v#*|} "$mt_file" >"$tmp.shards"
        err=$(mrc_mae "$tmp.exact" "$tmp.shards")
        # shellcheck disable=SC2086
        measure shards "$tk" mrc ${v#*|} "$mt_file"
        maps=$(awk -v t="$t_shards" -v n="$mt_acc" 'BEGIN { printf "%.1f", n / t / 1e6 }')
        ok=$(awk -v e="$err" -v m="$maps" -v t="$mrc_target" -v f="${v%%|*}" 'BEGIN {
            print (e != "nan" && e <= 0.01 && (f ~ /^S=/ || m >= t)) ? "PASS" : "MISS" }')
        [ "$ok" = PASS ] || miss=1
        # shellcheck disable=SC2086
        cpu=$(mrc_cpu "$tk" mrc ${v#*|} "$mt_file")
        printf '%-34s %9.3f %10s %7.1f MiB %8s  %s (%s)\n' "$label" "$t_shards" "$maps" \
            "$(awk -v m="$rss_shards" 'BEGIN { printf "%.1f", m / 1024 }')" "$err" "$ok" \
            "$(awk -v t="$cpu" -v n="$mt_acc" 'BEGIN { printf "%.1f", n / t / 1e6 }')"
        line="$ok cacheray mrc $mt_name: SHARDS ${v%%|*} MAE $err (target <= 0.01), $cpu s of CPU"
        case $v in S=*) eval "mrc_rss_$mt_name=\$rss_shards" ;;
                   *) line="$line, $maps M accesses/s (target >= $mrc_target)" ;; esac
        verdicts="$verdicts$line
"
    done
    mrc_minis "$mt_name" "$mt_file"
}

# mrc_minis NAME FILE: miniature simulation against cachesim at 8 sizes
mrc_minis() {
    "$tk" mrc --json --ways 8 --policy lru --sample 0.01 "$2" >"$tmp.mini"
    measure mini "$tk" mrc --ways 8 --policy lru --sample 0.01 "$2"
    : >"$tmp.full"
    for s in 32K 64K 128K 256K 512K 1M 2M 4M; do
        "$tk" cachesim --json --no-3c --level "L1:$s:8:64:lru" "$2" >>"$tmp.full"
    done
    err=$("$mrc_py" - "$tmp.mini" "$tmp.full" <<'PY'
import json, sys
mini = [p["miss_rate"] for p in json.load(open(sys.argv[1]))["miniature"]["points"]]
full = [json.loads(l)["levels"][0]["miss_rate"] for l in open(sys.argv[2]) if l.strip()]
print("%.4f %s" % (max(abs(a - b) for a, b in zip(mini, full)),
                   " ".join("%.3f/%.3f" % (a, b) for a, b in zip(mini, full))))
PY
)
    ok=$(awk -v e="${err%% *}" 'BEGIN { print (e <= 0.02) ? "PASS" : "MISS" }')
    [ "$ok" = PASS ] || miss=1
    maps=$(awk -v t="$t_mini" -v n="$mt_acc" 'BEGIN { printf "%.1f", n / t / 1e6 }')
    printf '%-34s %9.3f %10s %7.1f MiB %8s  %s\n' "miniature 8-way LRU R=0.01" "$t_mini" "$maps" \
        "$(awk -v m="$rss_mini" 'BEGIN { printf "%.1f", m / 1024 }')" "${err%% *}" "$ok"
    echo "  miniature/cachesim miss rate at 32K..4M: ${err#* }"
    verdicts="${verdicts}$ok cacheray mrc $1: miniature 8-way LRU at 8 sizes, largest error ${err%% *} against cachesim (target <= 0.02)
"
}

bench_mrc() {
    gen=$build/tk-gen-cacheray
    mrc_records=${BENCH_MRC_RECORDS:-20000000}
    mrc_target=${BENCH_MRC_TARGET_MAPS:-150}
    echo "== cacheray mrc"
    for p in program random; do
        f=$work/mrc-$p-$mrc_records.bin
        if [ -f "$f" ] && ! [ "$gen" -nt "$f" ]; then
            echo "  reusing $f"
        else
            echo "  generating $f ($mrc_records records, $p)"
            "$gen" --records "$mrc_records" --pattern "$p" --threads 2 -o "$f.part" 2>"$tmp.gen" ||
                { cat "$tmp.gen" >&2; exit 1; }
            mv "$f.part" "$f"
        fi
        cat "$f" >/dev/null # warm the page cache
        mrc_trace "$p" "$f"
    done
    ratio=$(awk -v a="$mrc_rss_random" -v b="$mrc_rss_program" 'BEGIN {
        r = a / b; if (r < 1) r = 1 / r; printf "%.2f", r }')
    ok=$(awk -v r="$ratio" 'BEGIN { print (r <= 1.25) ? "PASS" : "MISS" }')
    [ "$ok" = PASS ] || miss=1
    line="$ok cacheray mrc: SHARDS S=8K peak RSS $((mrc_rss_program / 1024)) MiB (program) and $((mrc_rss_random / 1024)) MiB (random): x$ratio (limit x1.25)"
    echo
    echo "$line"
    verdicts="$verdicts$line
"
    echo
    if [ "${BENCH_CLEAN:-0}" = 1 ]; then
        rm -f "$work"/mrc-*-"$mrc_records".bin
    fi
}

# ------------------------------------------------------------------- xray
#
# Traces from tk-gen-xray (bench/gen_xray.c): a multi-threaded FDR v5 trace
# of BENCH_SIZE and one half that size, and a basic-mode v3 trace of
# BENCH_XRAY_BASIC_SIZE (default 256M). Measured: tracekit account (best
# of $runs) next to llvm-xray account (BENCH_XRAY_LLVM_RUNS runs, default
# 1), and tracekit convert --to yaml next to llvm-xray convert -f yaml once
# tracekit has a yaml target. llvm-xray holds the whole trace in memory
# (~163 B per record for account, ~250 for convert): when a file would
# need more than 60% of MemAvailable, both tools are compared on a trace
# of BENCH_XRAY_CMP_SIZE (default 128M) generated with the same parameters.
#
# The FDR traces use 4 MiB per-thread buffers (the runtime's buffer_size
# option; its default is 16 KiB): llvm-xray 14 sorts each thread's blocks
# with an invalid comparator (wall-clock seconds < && micros <), which
# std::sort turns into a shuffle once a thread has more than 16 blocks,
# and account then fails on the first misplaced exit. With 4 MiB buffers
# the 128M comparison trace has 8 blocks per thread.
#
# Targets: account at least 10x faster than llvm-xray with at most 1/5 of
# its peak RSS; convert --to yaml with flat memory (peak RSS on the full
# trace at most 1.25x that on the half).

xray_threads=4
xray_fdr_args="--mode fdr --version 5 --threads $xray_threads --buffer-size 4M --functions 1000"
xray_basic_args="--mode basic --version 3 --threads $xray_threads --functions 1000"
xray_acct_bpr=170  # llvm-xray account: bytes of RAM per record (notes: ~163)
xray_conv_bpr=260  # llvm-xray convert -f yaml (measured: ~250)

# xray_measure RUNS NAME CMD...: like measure, but RUNS runs and a failure
# returns 1 (message in $tmp.err) instead of stopping. The last run's
# standard output is kept in $tmp.out.NAME when xray_keep=1.
xray_measure() {
    xn=$1 name=$2
    shift 2
    best= peak=0 i=0
    while [ $i -lt "$xn" ]; do
        out=/dev/null
        [ "${xray_keep:-0}" = 1 ] && out=$tmp.out.$name
        t0=$(date +%s%N)
        if ! $pin /usr/bin/time -f %M -o "$tmp.rss" "$@" >"$out" 2>"$tmp.err"; then
            tail -n 1 "$tmp.rss" >>"$tmp.err"
            return 1
        fi
        t1=$(date +%s%N)
        t=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f", (b - a) / 1e9 }')
        r=$(tail -n 1 "$tmp.rss")
        best=$(awk -v t="$t" -v b="$best" 'BEGIN { print (b == "" || t < b) ? t : b }')
        peak=$(awk -v r="$r" -v p="$peak" 'BEGIN { print (r > p) ? r : p }')
        i=$((i + 1))
    done
    eval "t_$name=\$best rss_$name=\$peak"
}

xray_records() { "$tk" info --json "$1" | grep -o '"records":[0-9]*' | head -n 1 | cut -d: -f2; }
xray_blocks() { "$tk" info --json "$1" | grep -o '"blocks":[0-9]*' | head -n 1 | cut -d: -f2; }

# xray_fits RECORDS BYTES_PER_RECORD: would llvm-xray stay under 60% of
# MemAvailable? Sets xray_need (bytes) for the message.
xray_fits() {
    avail=$(awk '/^MemAvailable:/ { print $2 * 1024 }' /proc/meminfo)
    xray_need=$(awk -v n="$1" -v b="$2" 'BEGIN { printf "%.0f", n * b }')
    awk -v n="$xray_need" -v a="$avail" 'BEGIN { exit !(n <= 0.6 * a) }'
}

xray_header() {
    printf '%-34s %-26s %8s %7s %8s %11s\n' command file "time s" "GB/s" "Mrec/s" "peak RSS"
}

# xray_row LABEL FILE SECONDS RSS_KIB RECORDS
xray_row() {
    awk -v l="$1" -v f="$(basename "$2")" -v b="$(file_size "$2")" -v t="$3" -v r="$4" -v n="$5" 'BEGIN {
        printf "%-34s %-26s %8.3f %7.2f %8.2f %7.1f MiB\n", l, f, t, b / t / 1e9, n / t / 1e6, r / 1024 }'
}

# xray_compare WHAT FORMAT T_TK RSS_TK T_LLVM RSS_LLVM FILE: append the
# ratios to $notes and, for WHAT = account, the verdict to $xray_verdicts.
xray_compare() {
    speed=$(awk -v a="$5" -v b="$3" 'BEGIN { printf "%.1f", a / b }')
    frac=$(awk -v a="$4" -v b="$6" 'BEGIN { printf "%.1f", 100 * a / b }')
    notes="$notes  $1 $2 on $(basename "$7"): tracekit ${speed}x faster than llvm-xray, peak RSS $(awk -v a="$4" 'BEGIN { printf "%.1f", a / 1024 }') MiB = $frac% of llvm-xray's $(awk -v a="$6" 'BEGIN { printf "%.1f", a / 1024 }') MiB
"
    [ "$1" = account ] || return 0
    fast=$(awk -v s="$speed" 'BEGIN { print (s >= 10) ? 1 : 0 }')
    small=$(awk -v f="$frac" 'BEGIN { print (f <= 20) ? 1 : 0 }')
    if [ "$fast" = 1 ] && [ "$small" = 1 ]; then word=PASS; else word=MISS; miss=1; fi
    xray_verdicts="$xray_verdicts$word xray account $2 ($(basename "$7")): ${speed}x faster than llvm-xray (target >= 10x); peak RSS $frac% of llvm-xray's (target <= 20%)
"
}

# xray_pick_cmp FILE RECORDS BYTES_PER_RECORD CMP_FILE GEN_ARGS: sets
# xray_cmp to FILE when llvm-xray fits in memory for it, else generates
# CMP_FILE (same generator arguments, BENCH_XRAY_CMP_SIZE) and uses that.
xray_pick_cmp() {
    if xray_fits "$2" "$3"; then
        xray_cmp=$1
        return
    fi
    echo "  llvm-xray would need ~$(human "$xray_need") for $(basename "$1") ($2 records x $3 B)," \
         "over 60% of MemAvailable: comparing on $(basename "$4") instead"
    # shellcheck disable=SC2086
    ensure_trace "$4" "$(bytes_of "$cmp_size")" "$gen" $5
    xray_cmp=$4
}

# convert --to perfetto of the FDR trace FILE (RECORDS records), and the
# sizes of its output and of convert --to chrome's (counted through a pipe,
# not stored). Targets: at least BENCH_XR_PERFETTO_TARGET_MRPS (default 20)
# M records/s on one core, peak RSS under BENCH_XR_PERFETTO_MAX_RSS_MB
# (default 64) MiB, output at most 1/4 of the Chrome JSON's size.
bench_xray_perfetto() {
    pf_target=${BENCH_XR_PERFETTO_TARGET_MRPS:-20}
    pf_rss=${BENCH_XR_PERFETTO_MAX_RSS_MB:-64}
    pf_bytes=$("$tk" convert --to perfetto -o - "$1" | wc -c | tr -d ' ')
    ch_bytes=$("$tk" convert --to chrome -o - "$1" | wc -c | tr -d ' ')
    measure xpf "$tk" convert --to perfetto -o - "$1"
    xray_row "tracekit convert --to perfetto" "$1" "$t_xpf" "$rss_xpf" "$2"
    echo "  output: perfetto $(human "$pf_bytes"), chrome $(human "$ch_bytes")"
    mrps=$(awk -v n="$2" -v t="$t_xpf" 'BEGIN { printf "%.1f", n / t / 1e6 }')
    mib=$(awk -v r="$rss_xpf" 'BEGIN { printf "%.1f", r / 1024 }')
    share=$(awk -v a="$pf_bytes" -v b="$ch_bytes" 'BEGIN { printf "%.3f", a / b }')
    fast=$(awk -v m="$mrps" -v t="$pf_target" 'BEGIN { print (m >= t) ? 1 : 0 }')
    small=$(awk -v r="$mib" -v l="$pf_rss" 'BEGIN { print (r < l) ? 1 : 0 }')
    tight=$(awk -v s="$share" 'BEGIN { print (s <= 0.25) ? 1 : 0 }')
    if [ "$fast$small$tight" = 111 ]; then word=PASS; else word=MISS; miss=1; fi
    line="$word xray convert --to perfetto: $mrps M records/s $([ "$fast" = 1 ] && echo '>=' || echo '<')"
    line="$line $pf_target on one core; peak RSS $mib MiB $([ "$small" = 1 ] && echo '<' || echo '>=')"
    line="$line $pf_rss MiB; output ${share}x the Chrome JSON's (target <= 0.25)"
    echo "$line"
    xray_verdicts="$xray_verdicts$line
"
}

# convert --to parquet of the FDR trace FILE (RECORDS records) into
# $work/xray-parquet (replaced each run): MB/s (10^6 bytes of input) on
# one core and peak RSS, and the tables' sizes. Then DuckDB (node and
# tests/node's @duckdb/node-api; skipped without them) runs the
# per-function count and sum of duration_ns over the calls table, one
# thread, the whole node process timed, next to tracekit account on the
# raw trace (t_acct_full). Targets: at least BENCH_XR_PARQUET_TARGET_MBPS
# (default 100) MB/s, peak RSS under BENCH_XR_PARQUET_MAX_RSS_MB (default
# 256) MiB; DuckDB's query faster than account.
bench_xray_parquet() {
    pq_target=${BENCH_XR_PARQUET_TARGET_MBPS:-100}
    pq_rss=${BENCH_XR_PARQUET_MAX_RSS_MB:-256}
    pq_dir=$work/xray-parquet
    measure xpq "$tk" convert --to parquet -o "$pq_dir" "$1"
    xray_row "tracekit convert --to parquet" "$1" "$t_xpq" "$rss_xpq" "$2"
    sizes=
    for t in calls records events; do
        sizes="$sizes$t $(human "$(file_size "$pq_dir/$t.parquet")"), "
    done
    echo "  output: ${sizes}input $(human "$(file_size "$1")")"
    mbps=$(awk -v b="$(file_size "$1")" -v t="$t_xpq" 'BEGIN { printf "%.1f", b / t / 1e6 }')
    mib=$(awk -v r="$rss_xpq" 'BEGIN { printf "%.1f", r / 1024 }')
    fast=$(awk -v m="$mbps" -v t="$pq_target" 'BEGIN { print (m >= t) ? 1 : 0 }')
    small=$(awk -v r="$mib" -v l="$pq_rss" 'BEGIN { print (r < l) ? 1 : 0 }')
    if [ "$fast$small" = 11 ]; then word=PASS; else word=MISS; miss=1; fi
    line="$word xray convert --to parquet: $mbps MB/s $([ "$fast" = 1 ] && echo '>=' || echo '<')"
    line="$line $pq_target on one core; peak RSS $mib MiB $([ "$small" = 1 ] && echo '<' || echo '>=') $pq_rss MiB"
    echo "$line"
    xray_verdicts="$xray_verdicts$line
"
    node_dir=$here/../tests/node
    if ! command -v node >/dev/null 2>&1 || [ ! -d "$node_dir/node_modules/@duckdb/node-api" ]; then
        line="skipped: DuckDB over the xray calls table (no node or tests/node's @duckdb/node-api)"
    else
        cat >"$tmp.duck.mjs" <<EOF
import { createRequire } from 'node:module'
const require = createRequire('$node_dir/package.json')
const { DuckDBInstance } = require('@duckdb/node-api')
const con = await (await DuckDBInstance.create(':memory:', { threads: '1' })).connect()
const r = await con.runAndReadAll("select function, count(*), sum(duration_ns) from read_parquet('$pq_dir/calls.parquet') group by function")
console.log(r.getRows().length)
EOF
        measure duck node "$tmp.duck.mjs"
        xray_row "duckdb: count, sum by function" "$1" "$t_duck" "$rss_duck" "$2"
        ratio=$(awk -v a="$t_acct_full" -v b="$t_duck" 'BEGIN { printf "%.1f", a / b }')
        if awk -v a="$t_acct_full" -v b="$t_duck" 'BEGIN { exit !(b < a) }'; then word=PASS; else word=MISS; miss=1; fi
        line="$word xray DuckDB over calls.parquet (1 thread, node included): $t_duck s"
        line="$line vs tracekit account on the trace $t_acct_full s (${ratio}x faster)"
    fi
    echo "$line"
    xray_verdicts="$xray_verdicts$line
"
}

# tracekit diff of two FDR traces (BENCH_XRAY_DIFF_SIZE each, default 512M;
# two seeds) against tracekit account on each, one after the other: target
# diff >= 1.5x faster than the two accounts together, peak RSS within its
# --memory-limit (64M default) + 64 MiB. Not pinned: diff reads B on a
# thread of its own while it reads A (the accounts run unpinned too).
bench_xray_diff() {
    df_size=${BENCH_XRAY_DIFF_SIZE:-512M}
    df_a=$work/xray-diff-a-$df_size.bin
    df_b=$work/xray-diff-b-$df_size.bin
    # shellcheck disable=SC2086
    ensure_trace "$df_a" "$(bytes_of "$df_size")" "$gen" $xray_fdr_args --seed 11
    # shellcheck disable=SC2086
    ensure_trace "$df_b" "$(bytes_of "$df_size")" "$gen" $xray_fdr_args --seed 12
    df_pin=$pin
    pin=
    measure dfa "$tk" account "$df_a"
    measure dfb "$tk" account "$df_b"
    measure dfd "$tk" diff "$df_a" "$df_b"
    pin=$df_pin
    xray_row "tracekit account A" "$df_a" "$t_dfa" "$rss_dfa" "$(xray_records "$df_a")"
    xray_row "tracekit account B" "$df_b" "$t_dfb" "$rss_dfb" "$(xray_records "$df_b")"
    xray_row "tracekit diff A B (B's size)" "$df_b" "$t_dfd" "$rss_dfd" "$(xray_records "$df_b")"
    speed=$(awk -v a="$t_dfa" -v b="$t_dfb" -v d="$t_dfd" 'BEGIN { printf "%.2f", (a + b) / d }')
    mib=$(awk -v r="$rss_dfd" 'BEGIN { printf "%.1f", r / 1024 }')
    fast=$(awk -v s="$speed" 'BEGIN { print (s >= 1.5) ? 1 : 0 }')
    small=$(awk -v m="$mib" 'BEGIN { print (m <= 64 + 64) ? 1 : 0 }')
    if [ "$fast$small" = 11 ]; then word=PASS; else word=MISS; miss=1; fi
    line="$word xray diff of two $df_size traces: ${speed}x the speed of account on both"
    line="$line (target >= 1.5x); peak RSS $mib MiB (target <= 64 MiB limit + 64 MiB)"
    echo "$line"
    xray_verdicts="$xray_verdicts$line
"
}

bench_xray() {
    gen=$build/tk-gen-xray
    [ -x "$gen" ] || { echo "bench: $gen not built" >&2; exit 2; }
    basic_size=${BENCH_XRAY_BASIC_SIZE:-256M}
    cmp_size=${BENCH_XRAY_CMP_SIZE:-128M}
    llvm_runs=${BENCH_XRAY_LLVM_RUNS:-1}
    xray_verdicts=
    full_bytes=$(bytes_of "$size")
    full=$work/xray-fdr-$size.bin
    half=$work/xray-fdr-half-$size.bin
    cmpf=$work/xray-fdr-$cmp_size.bin
    basic=$work/xray-basic-$basic_size.bin
    cmpb=$work/xray-basic-$cmp_size.bin
    echo "== xray"
    started=$(date +%s)
    # shellcheck disable=SC2086
    ensure_trace "$full" "$full_bytes" "$gen" $xray_fdr_args
    # shellcheck disable=SC2086
    ensure_trace "$half" "$((full_bytes / 2))" "$gen" $xray_fdr_args
    # shellcheck disable=SC2086
    ensure_trace "$basic" "$(bytes_of "$basic_size")" "$gen" $xray_basic_args
    for f in "$full" "$basic"; do
        "$tk" validate -q "$f" >/dev/null ||
            { echo "bench: $f does not validate" >&2; exit 1; }
    done
    n_full=$(xray_records "$full")
    n_half=$(xray_records "$half")
    n_basic=$(xray_records "$basic")

    llvm=
    for c in llvm-xray llvm-xray-14 /usr/lib/llvm-14/bin/llvm-xray; do
        if command -v "$c" >/dev/null 2>&1; then llvm=$(command -v "$c"); break; fi
    done
    yaml=0
    "$tk" convert --help 2>&1 | grep -Eq '^[[:space:]]+yaml([[:space:]]|$)' && yaml=1

    if [ -n "$llvm" ]; then
        xray_pick_cmp "$full" "$n_full" "$xray_acct_bpr" "$cmpf" "$xray_fdr_args"
        acmp_fdr=$xray_cmp
        xray_pick_cmp "$basic" "$n_basic" "$xray_acct_bpr" "$cmpb" "$xray_basic_args"
        acmp_basic=$xray_cmp
        if [ $yaml = 1 ]; then
            xray_pick_cmp "$full" "$n_full" "$xray_conv_bpr" "$cmpf" "$xray_fdr_args"
            ccmp_fdr=$xray_cmp
            xray_pick_cmp "$basic" "$n_basic" "$xray_conv_bpr" "$cmpb" "$xray_basic_args"
            ccmp_basic=$xray_cmp
        fi
    fi
    for f in "$full" "$half" "$basic" "$cmpf" "$cmpb"; do
        [ -f "$f" ] && cat "$f" >/dev/null # warm the page cache
    done

    echo
    echo "xray: $(basename "$full"): FDR v5, $(human "$(file_size "$full")"), $n_full records," \
         "$xray_threads threads, $(xray_blocks "$full") blocks"
    echo "      $(basename "$half"): $n_half records;" \
         "$(basename "$basic"): basic v3, $(human "$(file_size "$basic")"), $n_basic records"
    echo "      tracekit best of $runs, llvm-xray $llvm_runs run(s); warm cache${pin:+, $pin}"
    echo "      llvm-xray: ${llvm:-not found}"
    echo
    xray_header
    # tracekit account: memory growth on the full and half FDR traces
    xray_keep=1
    xray_measure "$runs" acct_full "$tk" account "$full" ||
        { echo "bench: tracekit account failed:" >&2; cat "$tmp.err" >&2; exit 1; }
    xray_keep=0
    xray_row "tracekit account" "$full" "$t_acct_full" "$rss_acct_full" "$n_full"
    xray_measure "$runs" acct_half "$tk" account "$half" ||
        { echo "bench: tracekit account failed:" >&2; cat "$tmp.err" >&2; exit 1; }
    xray_row "tracekit account" "$half" "$t_acct_half" "$rss_acct_half" "$n_half"

    # account: tracekit vs llvm-xray on the same files
    notes=
    for kind in fdr basic; do
        if [ $kind = fdr ]; then f=$full; n=$n_full; else f=$basic; n=$n_basic; fi
        if [ -z "$llvm" ]; then
            if [ $kind = basic ]; then
                xray_measure "$runs" tk "$tk" account "$f" ||
                    { echo "bench: tracekit account failed:" >&2; cat "$tmp.err" >&2; exit 1; }
                xray_row "tracekit account" "$f" "$t_tk" "$rss_tk" "$n"
            fi
            continue
        fi
        eval "c=\$acmp_$kind"
        [ "$c" = "$f" ] || n=$(xray_records "$c")
        if [ "$c" = "$full" ]; then
            t_tk=$t_acct_full rss_tk=$rss_acct_full
        else
            xray_keep=1
            xray_measure "$runs" tk "$tk" account "$c" ||
                { echo "bench: tracekit account failed:" >&2; cat "$tmp.err" >&2; exit 1; }
            xray_row "tracekit account" "$c" "$t_tk" "$rss_tk" "$n"
        fi
        xray_keep=1
        if xray_measure "$llvm_runs" llvm "$llvm" account "$c"; then
            xray_keep=0
            xray_row "llvm-xray account" "$c" "$t_llvm" "$rss_llvm" "$n"
            [ "$c" = "$full" ] && cp "$tmp.out.acct_full" "$tmp.out.tk"
            xray_compare account "$kind" "$t_tk" "$rss_tk" "$t_llvm" "$rss_llvm" "$c"
            if cmp -s "$tmp.out.tk" "$tmp.out.llvm"; then same="identical"; else same="DIFFERENT"; fi
            notes="$notes    (account tables printed by the two tools: $same)
"
        else
            xray_keep=0
            echo "llvm-xray account $(basename "$c"): FAILED"
            notes="$notes  llvm-xray account failed on $(basename "$c"), no comparison: $(head -c 300 "$tmp.err")
"
            xray_verdicts="${xray_verdicts}SKIP xray account $kind: llvm-xray failed on $(basename "$c")
"
        fi
    done

    # convert to YAML, once tracekit has the target
    if [ $yaml = 1 ]; then
        xray_measure "$runs" conv_full "$tk" convert --to yaml -o - "$full" ||
            { echo "bench: tracekit convert failed:" >&2; cat "$tmp.err" >&2; exit 1; }
        xray_row "tracekit convert --to yaml" "$full" "$t_conv_full" "$rss_conv_full" "$n_full"
        xray_measure "$runs" conv_half "$tk" convert --to yaml -o - "$half" ||
            { echo "bench: tracekit convert failed:" >&2; cat "$tmp.err" >&2; exit 1; }
        xray_row "tracekit convert --to yaml" "$half" "$t_conv_half" "$rss_conv_half" "$n_half"
        for kind in fdr basic; do
            [ -n "$llvm" ] || break
            eval "c=\$ccmp_$kind"
            n=$(xray_records "$c")
            if [ "$c" = "$full" ]; then
                t_tk=$t_conv_full rss_tk=$rss_conv_full
            else
                xray_measure "$runs" tk "$tk" convert --to yaml -o - "$c" ||
                    { echo "bench: tracekit convert failed:" >&2; cat "$tmp.err" >&2; exit 1; }
                xray_row "tracekit convert --to yaml" "$c" "$t_tk" "$rss_tk" "$n"
            fi
            if xray_measure "$llvm_runs" llvm "$llvm" convert -f yaml -o - "$c"; then
                xray_row "llvm-xray convert -f yaml" "$c" "$t_llvm" "$rss_llvm" "$n"
                xray_compare convert "$kind" "$t_tk" "$rss_tk" "$t_llvm" "$rss_llvm" "$c"
            else
                notes="$notes  llvm-xray convert failed on $(basename "$c"): $(head -c 300 "$tmp.err")
"
            fi
        done
    fi

    bench_xray_perfetto "$full" "$n_full"
    bench_xray_parquet "$full" "$n_full"
    bench_xray_diff
    bench_xray_graph_diff
    bench_html xray "$full"

    echo
    [ -n "$llvm" ] || echo "skipped: llvm-xray not found (Debian package llvm-14-tools); no comparison"
    printf '%s' "$notes"
    echo "  tracekit account peak RSS: $(awk -v a="$rss_acct_full" 'BEGIN { printf "%.1f", a / 1024 }') MiB" \
         "on $(basename "$full"), $(awk -v a="$rss_acct_half" 'BEGIN { printf "%.1f", a / 1024 }') MiB" \
         "on $(basename "$half"): x$(awk -v a="$rss_acct_full" -v b="$rss_acct_half" 'BEGIN { printf "%.2f", a / b }')" \
         "for x$(awk -v a="$n_full" -v b="$n_half" 'BEGIN { printf "%.2f", a / b }') the records"
    echo
    printf '%s' "$xray_verdicts"
    verdicts="$verdicts$xray_verdicts"
    if [ $yaml = 1 ]; then
        ratio=$(awk -v a="$rss_conv_full" -v b="$rss_conv_half" 'BEGIN { printf "%.2f", a / b }')
        if awk -v r="$ratio" -v f="$flat_ratio" 'BEGIN { exit !(r <= f) }'; then word=PASS; else word=MISS; miss=1; fi
        line="$word xray convert --to yaml: memory $([ $word = PASS ] && echo flat || echo 'NOT flat'): peak RSS x$ratio for 2x the input (limit x$flat_ratio)"
    else
        line="skipped: tracekit has no yaml target yet (xray convert comparison)"
    fi
    echo "$line"
    verdicts="$verdicts$line
"
    echo "  (xray section: $(($(date +%s) - started)) s)"
    echo
    if [ "${BENCH_CLEAN:-0}" = 1 ]; then
        rm -f "$full" "$half" "$basic" "$cmpf" "$cmpb"
    fi
}

# --------------------------------------------------------------- casemate
#
# A log from tk-gen-casemate (bench/gen_casemate.c) of BENCH_CASEMATE_SIZE
# (default 256M, about 2.5 M events: break-before-make cycles on 4-level
# stage-2 trees, 4 threads, 3 roots, canonical keyword form) and one half
# that size, plus the same events in the compact form. Measured: tracekit
# validate (the parser: what the break-before-make checker will read with),
# info, dump --json and convert --to casemate-compact. Target: validate at
# least BENCH_CASEMATE_TARGET_MEPS (default 10) million events/s on one core,
# twice the checker's 5 M events/s, and flat memory (peak RSS on the full
# log at most 1.25x that on the half).
#
# The break-before-make checker, tracekit bbm, on the same logs (they pass
# it): parse + check at least BENCH_BBM_TARGET_MEPS (default 5) million
# events/s on one core in less than BENCH_BBM_MAX_RSS_MB (default 64) MiB.

bench_casemate() {
    gen=$build/tk-gen-casemate
    [ -x "$gen" ] || { echo "bench: $gen not built" >&2; exit 2; }
    cm_size=${BENCH_CASEMATE_SIZE:-256M}
    cm_target=${BENCH_CASEMATE_TARGET_MEPS:-10}
    full_bytes=$(bytes_of "$cm_size")
    full=$work/casemate-$cm_size.log
    half=$work/casemate-half-$cm_size.log
    compact=$work/casemate-compact-$cm_size.log
    echo "== casemate"
    ensure_trace "$full" "$full_bytes" "$gen"
    ensure_trace "$half" "$((full_bytes / 2))" "$gen"
    ensure_trace "$compact" "$((full_bytes * 2 / 3))" "$gen" --style compact
    bytes=$(file_size "$full")
    hbytes=$(file_size "$half")
    cbytes=$(file_size "$compact")
    records=$("$tk" info --json "$full" | sed -n 's/^{[^[]*"records":\([0-9]*\).*/\1/p')
    crecords=$("$tk" info --json "$compact" | sed -n 's/^{[^[]*"records":\([0-9]*\).*/\1/p')
    "$tk" validate -q "$full" >/dev/null ||
        { echo "bench: the generated log does not validate" >&2; exit 1; }
    cat "$full" "$half" "$compact" >/dev/null # warm the page cache

    measure cat cat "$full"
    measure validate "$tk" validate "$full"
    measure info "$tk" info "$full"
    measure dump "$tk" dump --json "$full"
    measure convert "$tk" convert --to casemate-compact -o - "$full"
    measure half "$tk" validate "$half"
    measure compact "$tk" validate "$compact"
    "$tk" bbm -q "$full" >/dev/null ||
        { echo "bench: the generated log does not pass tracekit bbm" >&2; exit 1; }
    measure bbm "$tk" bbm -q "$full"
    measure bbmhalf "$tk" bbm -q "$half"
    measure bbmcompact "$tk" bbm -q "$compact"

    echo
    echo "casemate: $(human "$bytes") ($bytes bytes), $records events, keyword form;" \
         "best of $runs, warm cache${pin:+, $pin}"
    header
    row "cat FILE >/dev/null" "$bytes" - "$t_cat" "$rss_cat" "$t_cat"
    row "tracekit validate" "$bytes" "$records" "$t_validate" "$rss_validate" "$t_cat"
    row "tracekit info" "$bytes" "$records" "$t_info" "$rss_info" "$t_cat"
    row "tracekit dump --json >/dev/null" "$bytes" "$records" "$t_dump" "$rss_dump" "$t_cat"
    row "tracekit convert --to compact" "$bytes" "$records" "$t_convert" "$rss_convert" "$t_cat"
    row "tracekit validate ($(human "$hbytes") file)" "$hbytes" - "$t_half" "$rss_half" "$t_cat"
    row "tracekit validate (compact form)" "$cbytes" "$crecords" "$t_compact" "$rss_compact" "$t_cat"
    row "tracekit bbm" "$bytes" "$records" "$t_bbm" "$rss_bbm" "$t_cat"
    row "tracekit bbm ($(human "$hbytes") file)" "$hbytes" - "$t_bbmhalf" "$rss_bbmhalf" "$t_cat"
    row "tracekit bbm (compact form)" "$cbytes" "$crecords" "$t_bbmcompact" "$rss_bbmcompact" "$t_cat"
    echo
    meps=$(awk -v n="$records" -v t="$t_validate" 'BEGIN { printf "%.1f", n / t / 1e6 }')
    fast=$(awk -v m="$meps" -v t="$cm_target" 'BEGIN { print (m >= t) ? 1 : 0 }')
    ratio=$(awk -v a="$rss_validate" -v b="$rss_half" 'BEGIN { printf "%.2f", a / b }')
    flat=$(awk -v r="$ratio" -v f="$flat_ratio" 'BEGIN { print (r <= f) ? 1 : 0 }')
    if [ "$fast" = 1 ] && [ "$flat" = 1 ]; then word=PASS; else word=MISS; miss=1; fi
    line="$word casemate: validate $meps M events/s ($(gbps "$bytes" "$t_validate") GB/s)"
    line="$line $([ "$fast" = 1 ] && echo '>=' || echo '<') $cm_target M events/s on one core;"
    line="$line memory $([ "$flat" = 1 ] && echo flat || echo 'NOT flat'): peak RSS"
    line="$line $(awk -v a="$rss_validate" 'BEGIN { printf "%.1f", a / 1024 }') MiB, x$ratio for 2x the input (limit x$flat_ratio)"
    echo "$line"
    verdicts="$verdicts$line
"
    bbm_target=${BENCH_BBM_TARGET_MEPS:-5}
    bbm_rss=${BENCH_BBM_MAX_RSS_MB:-64}
    meps=$(awk -v n="$records" -v t="$t_bbm" 'BEGIN { printf "%.1f", n / t / 1e6 }')
    fast=$(awk -v m="$meps" -v t="$bbm_target" 'BEGIN { print (m >= t) ? 1 : 0 }')
    small=$(awk -v r="$rss_bbm" -v l="$bbm_rss" 'BEGIN { print (r / 1024 < l) ? 1 : 0 }')
    if [ "$fast" = 1 ] && [ "$small" = 1 ]; then word=PASS; else word=MISS; miss=1; fi
    line="$word casemate bbm: $meps M events/s $([ "$fast" = 1 ] && echo '>=' || echo '<') $bbm_target"
    line="$line M events/s on one core; peak RSS $(awk -v a="$rss_bbm" 'BEGIN { printf "%.1f", a / 1024 }') MiB"
    line="$line $([ "$small" = 1 ] && echo '<' || echo '>=') $bbm_rss MiB"
    echo "$line"
    verdicts="$verdicts$line
"
    bench_html casemate "$full"
    echo
    if [ "${BENCH_CLEAN:-0}" = 1 ]; then
        rm -f "$full" "$half" "$compact"
    fi
}

# ------------------------------------------------------------------- ucir
#
# A 2016-spec UCIR trace from tk-gen-ucir (bench/gen_ucir.c) holding
# BENCH_UCIR_SIZE (default 1G) of ops once inflated (x86_64 loops: EXEC
# ops, register changes, memory reads/writes, syscalls, a keyframe every
# 64 frames of 1 MiB), and one half that size. Measured: the raw inflate
# speed of its frames on one thread with tracekit's zlib library
# (tk-gen-ucir --inflate-only: the ceiling), tracekit validate --threads 1
# (pinned to one CPU) and --threads $(nproc) (not pinned), all in MB/s of
# inflated data. Targets: one thread at least 85% of raw inflate; all
# threads at least 1.7x one thread (when there are 2 or more CPUs); flat
# memory (peak RSS on the full trace at most 1.25x that on the half).

ucir_ensure() { # FILE INFLATED_BYTES
    if [ -f "$1" ] && ! [ "$build/tk-gen-ucir" -nt "$1" ]; then
        echo "  reusing $1"
        return
    fi
    echo "  generating $1 ($(human "$2") inflated)"
    "$build/tk-gen-ucir" --bytes "$2" -o "$1.part" 2>"$tmp.gen" || { cat "$tmp.gen" >&2; exit 1; }
    mv "$1.part" "$1"
}

# ucir_row LABEL SECONDS RSS_KIB INFLATED_BYTES
ucir_row() {
    awk -v l="$1" -v t="$2" -v r="$3" -v b="$4" 'BEGIN {
        printf "%-44s %9.3f %12.0f %7.1f MiB\n", l, t, b / t / 1e6, r / 1024 }'
}

bench_ucir() {
    gen=$build/tk-gen-ucir
    [ -x "$gen" ] || { echo "bench: $gen not built" >&2; exit 2; }
    uc_size=${BENCH_UCIR_SIZE:-1G}
    full_bytes=$(bytes_of "$uc_size")
    full=$work/ucir-$uc_size.ucir
    half=$work/ucir-half-$uc_size.ucir
    echo "== ucir"
    ucir_ensure "$full" "$full_bytes"
    ucir_ensure "$half" "$((full_bytes / 2))"
    "$tk" validate -q "$full" >/dev/null ||
        { echo "bench: the generated trace does not validate" >&2; exit 1; }
    "$tk" info --json "$full" >"$tmp.info"
    inflated=$(sed -n 's/.*"inflated_bytes":\([0-9]*\).*/\1/p' "$tmp.info")
    records=$(sed -n 's/^{[^[]*"records":\([0-9]*\).*/\1/p' "$tmp.info")
    frames=$(sed -n 's/.*"frames":\([0-9]*\).*/\1/p' "$tmp.info")
    bytes=$(file_size "$full")
    ncpu=$(nproc)
    lib=$("$gen" --inflate-only "$half" | sed -n 's/.* with \(.*\): .*/\1/p')
    cat "$full" "$half" >/dev/null # warm the page cache

    measure inflate "$gen" --inflate-only "$full"
    measure one "$tk" validate --threads 1 "$full"
    measure half "$tk" validate --threads 1 "$half"
    saved_pin=$pin
    pin=
    measure all "$tk" validate --threads "$ncpu" "$full"
    # replay: build the checkpoint index once (all cores), then seek to the
    # middle instruction (one process per seek, as a user runs it)
    idx=$work/ucir-$uc_size.idx
    rm -f "$idx"
    measure_once index "$tk" replay --index "$idx" --at 0 "$full"
    pin=$saved_pin
    ninstr=$("$tk" replay --index "$idx" --at 999999999999999 "$full" 2>&1 |
             sed -n 's/.* has \([0-9]*\) instructions.*/\1/p')
    [ -n "$ninstr" ] || { echo "bench: cannot count the instructions" >&2; exit 1; }
    measure seek "$tk" replay --index "$idx" --at "$((ninstr / 2))" "$full"

    echo
    echo "ucir: $(human "$bytes") file, $(human "$inflated") inflated ($inflated bytes)," \
         "$records records, $frames frames; best of $runs, warm cache"
    printf '%-44s %9s %12s %11s\n' command "time s" "MB/s infl." "peak RSS"
    ucir_row "raw inflate, 1 thread ($lib)" "$t_inflate" "$rss_inflate" "$inflated"
    ucir_row "tracekit validate --threads 1" "$t_one" "$rss_one" "$inflated"
    ucir_row "tracekit validate --threads $ncpu (not pinned)" "$t_all" "$rss_all" "$inflated"
    ucir_row "replay: build the checkpoint index" "$t_index" "$rss_index" "$inflated"
    printf '%-44s %9s %12s %11s\n' "replay --at $((ninstr / 2)) (seek to the middle)" "$t_seek" "-" \
        "$(awk -v r="$rss_seek" 'BEGIN { printf "%.1f MiB", r / 1024 }')"
    echo "  ($ninstr instructions; index $(human "$(file_size "$idx")"))"
    echo
    share=$(awk -v a="$t_inflate" -v b="$t_one" 'BEGIN { printf "%.2f", a / b }')
    speedup=$(awk -v a="$t_one" -v b="$t_all" 'BEGIN { printf "%.2f", a / b }')
    ratio=$(awk -v a="$rss_one" -v b="$rss_half" 'BEGIN { printf "%.2f", a / b }')
    ok1=$(awk -v s="$share" 'BEGIN { print (s >= 0.85) ? 1 : 0 }')
    okn=$(awk -v s="$speedup" -v n="$ncpu" 'BEGIN { print (n < 2 || s >= 1.7) ? 1 : 0 }')
    okm=$(awk -v r="$ratio" -v f="$flat_ratio" 'BEGIN { print (r <= f) ? 1 : 0 }')
    oks=$(awk -v t="$t_seek" 'BEGIN { print (t < 0.05) ? 1 : 0 }')
    for check in "$oks|a replay seek to the middle takes ${t_seek} s, whole process (target < 0.05 s)" \
                  "$ok1|one thread decodes at ${share}x the raw inflate speed (target 0.85x)" \
                 "$okn|$ncpu threads decode at ${speedup}x one thread (target 1.7x)" \
                 "$okm|memory x$ratio for 2x the input (limit x$flat_ratio)"; do
        if [ "${check%%|*}" = 1 ]; then word=PASS; else word=MISS; miss=1; fi
        line="$word ucir: ${check#*|}"
        echo "$line"
        verdicts="$verdicts$line
"
    done
    bench_html ucir "$full"
    echo
    if [ "${BENCH_CLEAN:-0}" = 1 ]; then
        rm -f "$full" "$half"
    fi
}

# ----------------------------------------------------------------- shapes

. "$here/shapes.sh"
. "$here/xray_graph_diff.sh"

# Sections run alone (BENCH_FORMATS=cachesim or xray_parity): the cache
# simulator's rows (its traces, not the 1 GiB one), and XRay's diff and
# graph-diff (on the BENCH_XRAY_CMP_SIZE traces), to re-measure one issue.
bench_cachesim_only() {
    gen=$build/tk-gen-cacheray
    bench_cachesim
}
bench_xray_parity() {
    gen=$build/tk-gen-xray
    cmp_size=${BENCH_XRAY_CMP_SIZE:-128M}
    xray_verdicts=
    llvm=
    for c in llvm-xray llvm-xray-14 /usr/lib/llvm-14/bin/llvm-xray; do
        if command -v "$c" >/dev/null 2>&1; then llvm=$(command -v "$c"); break; fi
    done
    acmp_fdr=$work/xray-fdr-$cmp_size.bin
    acmp_basic=$work/xray-basic-$cmp_size.bin
    echo "== xray diff and graph-diff"
    # shellcheck disable=SC2086
    ensure_trace "$acmp_fdr" "$(bytes_of "$cmp_size")" "$gen" $xray_fdr_args
    # shellcheck disable=SC2086
    ensure_trace "$acmp_basic" "$(bytes_of "$cmp_size")" "$gen" $xray_basic_args
    xray_header
    bench_xray_diff
    bench_xray_graph_diff
    printf '%s' "$xray_verdicts"
    verdicts="$verdicts$xray_verdicts"
    echo
}

# ------------------------------------------------------------------- main

echo "tracekit benchmark: $("$tk" --version), $(uname -sr)"
echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1) ($(nproc) CPUs)"
echo "work dir: $work"
echo
for f in $formats; do
    case " $all_formats mrc shapes cachesim xray_parity " in
        *" $f "*) ;;
        *) echo "bench: unknown format $f" >&2; exit 2 ;;
    esac
    case $f in cachesim) bench_cachesim_only ;; *) "bench_$f" ;; esac
done
echo "summary:"
printf '%s' "$verdicts"
if [ $miss = 1 ]; then
    echo "bench: MISS"
    [ "${BENCH_STRICT:-0}" = 1 ] && exit 1
else
    echo "bench: PASS"
fi
exit 0

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
# BENCH_CLEAN=1 (delete the generated traces at the end),
# BENCH_STRICT=1 (exit 1 on a MISS; by default only the line says so).
#
# Adding a format: write bench_<format>() below (generate, measure, table,
# verdict: see bench_cacheray) and add <format> to all_formats.
set -eu

all_formats="cacheray"

[ $# -eq 1 ] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
work=${BENCH_DIR:-$here/out}
size=${BENCH_SIZE:-1G}
runs=${BENCH_RUNS:-3}
target_gbps=${BENCH_TARGET_GBPS:-1}
formats=${BENCH_FORMATS:-$all_formats}
tk=$build/tracekit
flat_ratio=1.25

[ -x "$tk" ] || { echo "bench: $tk not built" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench: needs /usr/bin/time (Debian package 'time')" >&2; exit 2; }
mkdir -p "$work"
tmp=$work/.tmp.$$
trap 'rm -f "$tmp".*' EXIT INT TERM

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

# Run on one CPU (the last), so "one core" is what is measured.
pin=
if command -v taskset >/dev/null 2>&1; then
    cpu=$(($(nproc) - 1))
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
    records=$("$tk" info --json "$full" | sed -n 's/.*"records":\([0-9]*\).*/\1/p')
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
    if [ "${BENCH_CLEAN:-0}" = 1 ]; then
        rm -f "$full" "$half"
    fi
}

# ------------------------------------------------------------------- main

echo "tracekit benchmark: $("$tk" --version), $(uname -sr)"
echo "cpu: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1) ($(nproc) CPUs)"
echo "work dir: $work"
echo
for f in $formats; do
    case " $all_formats " in *" $f "*) ;; *) echo "bench: unknown format $f" >&2; exit 2 ;; esac
    "bench_$f"
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

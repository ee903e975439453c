#!/bin/sh
# The progress line (--progress). Forced on with stderr in a file, every
# command draws it as "\r<line>\033[K" and takes it away with "\r\033[K"
# before anything else is printed: stdout is byte-identical to
# --progress never, and so is stderr once the line's sequences are taken
# out; with stdout and stderr in one file, that file too. The line's
# format, with a size and from a pipe (no size: no percentage, no ETA).
# auto draws nothing without a terminal; on a pseudo-terminal (python3's
# pty; skipped without python3) it draws after a second, erases the line
# before the result, and draws nothing with TERM=dumb or stdout in a pipe.
# Usage: progress_test.sh TRACEKIT EXAMPLES_DIR
set -u
tk=$1
ex=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-progress-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../cli_lib.sh"

cr=$(printf '\r')
esc=$(printf '\033')
draw="$cr[^$cr$esc]+$esc\\[K"  # ERE: one drawing of the line
erase="$cr$esc\\[K"

# strip FILE: the text without the line's drawings and erasures
strip() { sed -E -e "s/$draw//g" -e "s/$erase//g" "$1"; }

# shape FILE: the sequence of drawings (D), erasures (E) and other text (T)
# on one line, runs squeezed: "DET" for drawn, erased, then the result
shape() {
    tr '\n' ' ' <"$1" | sed -E -e "s/$draw/$cr/g" -e "s/$erase/$esc/g" \
        -e "s/[^$cr$esc]+/T/g" -e "s/$cr/D/g" -e "s/$esc/E/g" -e 's/D+/D/g'
}

# check_run NAME ARGS...: run with --progress always and never; compare.
check_run() {
    name=$1
    shift
    "$tk" "$@" --progress always >"$tmp/a.out" 2>"$tmp/a.err"
    rc_a=$?
    "$tk" "$@" --progress never >"$tmp/n.out" 2>"$tmp/n.err"
    rc_n=$?
    [ "$rc_a" = "$rc_n" ] || fail "$name: exit $rc_a with the line, $rc_n without"
    cmp -s "$tmp/a.out" "$tmp/n.out" || fail "$name: stdout differs with the line"
    strip "$tmp/a.err" >"$tmp/a.stripped"
    cmp -s "$tmp/a.stripped" "$tmp/n.err" ||
        fail "$name: stderr differs once the line is taken out: $(cat -v "$tmp/a.err")"
    grep -q "$cr" "$tmp/n.err" && fail "$name: --progress never drew"
    s=$(shape "$tmp/a.err")
    case $s in
    D*) ;;
    *) fail "$name: the line was not drawn first: $s" ;;
    esac
    # drawn, then always erased before other text and at the end
    case $s in
    *DT* | *D) fail "$name: text printed over the line, or left on screen: $s" ;;
    esac
    # stdout and stderr in one file: stdout's text erases the line too
    "$tk" "$@" --progress always >"$tmp/a.both" 2>&1
    "$tk" "$@" --progress never >"$tmp/n.both" 2>&1
    strip "$tmp/a.both" >"$tmp/a.both.stripped"
    cmp -s "$tmp/a.both.stripped" "$tmp/n.both" || fail "$name: 2>&1 differs with the line"
    case $(shape "$tmp/a.both") in
    *DT* | *D) fail "$name, 2>&1: text printed over the line: $(shape "$tmp/a.both")" ;;
    esac
}

# every command that reads a trace, on every format
for f in "$ex"/cacheray/heap.trace "$ex"/cacheray/heap-be.trace "$ex"/casemate/*.log \
         "$ex"/ucir/hello.ucir "$ex"/xray/*.xray; do
    for cmd in info dump validate report; do
        check_run "$cmd $(basename "$f")" "$cmd" "$f"
    done
    check_run "convert $(basename "$f")" convert --to jsonl -o - "$f"
done
check_run "cachesim" cachesim "$ex/cacheray/heap.trace"
check_run "bbm" bbm "$ex/casemate/missing-tlbi.log"
check_run "replay" replay "$ex/ucir/hello.ucir"
for cmd in account stack graph; do
    check_run "$cmd" "$cmd" "$ex/xray/fdr-v5.xray"
done
# errors and warnings on stderr come after an erasure
head -c 1000 "$ex/cacheray/heap.trace" >"$tmp/cut.trace"
check_run "a truncated trace" validate "$tmp/cut.trace"
grep -q 'truncated\|runs past\|offset' "$tmp/a.err" || fail "no error line: $(cat -v "$tmp/a.err")"
check_run "account with failures" account -k "$ex/xray/basic-v3.xray"

# the line: "tracekit: COMMAND FILE: DONE of SIZE (P%)[, RATE/s, ETA T]"
unit='[0-9.]+ (B|kB|MB|GB|TB)'
lines() { grep -Eo "$draw" "$1" | tr -d "$cr" | sed "s/$esc\\[K\$//"; }
run 0 validate --progress always "$ex/cacheray/heap.trace"
lines "$tmp/err" >"$tmp/lines"
[ -s "$tmp/lines" ] || fail "validate --progress always drew nothing"
grep -Evq "^tracekit: validate $ex/cacheray/heap.trace: $unit of $unit \\([0-9]+%\\)(, $unit/s, ETA [0-9a-z ]+)?\$" \
    "$tmp/lines" && fail "line format: $(cat "$tmp/lines")"
grep -q '(100%)' "$tmp/lines" || fail "the whole file read, but not 100%: $(cat "$tmp/lines")"
# from a pipe, slowly: a rate, and no size (so no percentage and no ETA)
{ head -c 4000 "$ex/cacheray/heap.trace"; sleep 0.4; tail -c +4001 "$ex/cacheray/heap.trace"; } |
    "$tk" validate --progress always - >"$tmp/out" 2>"$tmp/err"
lines "$tmp/err" >"$tmp/lines"
grep -Evq "^tracekit: validate <stdin>: $unit(, $unit/s)?\$" "$tmp/lines" &&
    fail "pipe line format: $(cat "$tmp/lines")"
grep -Eq "^tracekit: validate <stdin>: $unit, $unit/s\$" "$tmp/lines" ||
    fail "no rate after a slow read: $(cat "$tmp/lines")"
expect_out "<stdin> format=cacheray valid=yes warnings=0"

# auto: stderr is not a terminal here, so nothing is drawn
run 0 validate "$ex/cacheray/heap.trace"
[ -s "$tmp/err" ] && fail "auto drew without a terminal: $(cat -v "$tmp/err")"
run 0 validate --progress auto "$ex/cacheray/heap.trace"
[ -s "$tmp/err" ] && fail "--progress auto drew without a terminal"
run 2 validate --progress sometimes "$ex/cacheray/heap.trace"
expect_err "tracekit: validate: --progress takes auto, always or never, not 'sometimes' (try 'tracekit validate --help')"
for cmd in info dump validate convert report account stack graph bbm replay cachesim; do
    "$tk" "$cmd" --help | grep -q -- '--progress WHEN' || fail "$cmd --help does not list --progress"
done

# auto on a terminal: a pseudo-terminal for stdout and stderr, input that
# takes 1.5 s to arrive. The transcript (output post-processing turns
# "\n" into "\r\n") must hold a drawing, and be the plain result once the
# line and the carriage returns are taken out.
on_pty() { # TERM COMMAND...: the transcript in $tmp/pty
    python3 - "$@" >"$tmp/pty" <<'EOF'
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.environ["TERM"] = sys.argv[1]
    os.execvp(sys.argv[2], sys.argv[2:])
out = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
os.waitpid(pid, 0)
sys.stdout.buffer.write(out)
EOF
}
if command -v python3 >/dev/null 2>&1; then
    slow="{ cat '$ex/cacheray/heap.trace'; sleep 1.5; } | '$tk' validate -"
    on_pty xterm sh -c "$slow"
    shape "$tmp/pty" | grep -q '^DE' || fail "auto on a terminal: not drawn, then erased: $(cat -v "$tmp/pty")"
    strip "$tmp/pty" | tr -d "$cr" >"$tmp/pty.plain"
    echo "<stdin> format=cacheray valid=yes warnings=0" >"$tmp/pty.want"
    cmp -s "$tmp/pty.plain" "$tmp/pty.want" || fail "auto on a terminal: $(cat -v "$tmp/pty")"
    on_pty dumb sh -c "$slow"
    grep -q "$esc" "$tmp/pty" && fail "TERM=dumb: drawn anyway: $(cat -v "$tmp/pty")"
    on_pty xterm sh -c "$slow --progress never"
    grep -q "$esc" "$tmp/pty" && fail "--progress never on a terminal: $(cat -v "$tmp/pty")"
    on_pty xterm sh -c "$slow | cat"
    grep -q "$esc" "$tmp/pty" && fail "auto with stdout into a pipe: $(cat -v "$tmp/pty")"
else
    echo "skipped: the terminal checks (no python3)"
fi

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "progress: all passed"

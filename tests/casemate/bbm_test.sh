#!/bin/sh
# tracekit bbm through the command line.
#
#   bbm_test.sh cli TRACEKIT EXAMPLES_DIR   exit codes, the last line, the
#       context block, -q, --json, --dot, -p, --watch, --dry-run, stdin,
#       malformed logs (FILE:LINE:COL on stderr), usage and unsupported
#       configurations, on the examples and small logs written here;
#   bbm_test.sh corpus TRACEKIT CORPUS_DIR  conformance with casemate's 23
#       expected logs: each log's last line is its expected result ('!
#       MESSAGE', or a pass when it ends with a record). Exit 77 (skipped)
#       when CORPUS_DIR is absent.
set -u
mode=$1
tk=$2
dir=$3
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-bbm-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
pass_line="log checked successfully."
. "$(dirname "$0")/../cli_lib.sh"

last_is() {
    [ "$(tail -n 1 "$tmp/out")" = "$1" ] || fail "last line '$(tail -n 1 "$tmp/out")', wanted '$1'"
}

has() {
    grep -qF -- "$1" "$tmp/out" || fail "output lacks '$1': $(cat "$tmp/out")"
}

lines_are() {
    [ "$(wc -l <"$tmp/out")" -eq "$1" ] || fail "$(wc -l <"$tmp/out") lines, wanted $1: $(cat "$tmp/out")"
}

no_stderr() {
    [ -s "$tmp/err" ] && fail "unexpected stderr: $(cat "$tmp/err")"
}

# -------------------------------------------------------------- corpus
if [ "$mode" = corpus ]; then
    [ -d "$dir" ] || { echo "SKIP: no corpus at $dir"; exit 77; }
    n=0 ok=0
    for f in "$dir"/*.log; do
        [ -e "$f" ] || continue
        name=$(basename "$f" .log)
        want=$(tail -n 1 "$f")
        case $want in '!'*) rc=1 ;; *) want=$pass_line rc=0 ;; esac
        # simple.log predates mem-init: casemate-check itself needs -I for
        # it. bad_race needs nothing: tracekit reports the first violation
        # where casemate-check's context printer replaced it.
        opts=
        [ "$name" = simple ] && opts=-I
        n=$((n + 1))
        # shellcheck disable=SC2086
        "$tk" bbm $opts "$f" >"$tmp/out" 2>"$tmp/err"
        got=$?
        if [ "$got" = "$rc" ] && [ "$(tail -n 1 "$tmp/out")" = "$want" ] && ! [ -s "$tmp/err" ]; then
            ok=$((ok + 1))
        else
            fail "$name${opts:+ ($opts)}: exit $got, last line '$(tail -n 1 "$tmp/out")', wanted '$want'"
        fi
        # the same through -q and --json
        "$tk" bbm -q $opts "$f" >"$tmp/out" 2>&1
        [ "$(cat "$tmp/out")" = "$want" ] || fail "$name -q: $(cat "$tmp/out")"
        "$tk" bbm --json $opts "$f" >"$tmp/out" 2>&1
        case $want in
        '!'*) grep -qF "\"ok\":false" "$tmp/out" && grep -qF "\"message\":\"${want#! }\"" "$tmp/out" ;;
        *) grep -qF '"ok":true' "$tmp/out" && grep -qF '"violation":null}' "$tmp/out" ;;
        esac || fail "$name --json: $(cat "$tmp/out")"
    done
    [ "$n" -eq 23 ] || fail "$n logs in $dir, wanted 23"
    echo "conformance: $ok/$n expected results (simple.log with -I)"
    [ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
    exit 0
fi

# ----------------------------------------------------------------- cli
good=$dir/bbm.log
bad=$dir/missing-tlbi.log

run 0 bbm "$good"
last_is "$pass_line"
has "events: 21"
has "roots: 1 (stage 1: 0, stage 2: 1)"
has "entries: 1024 (valid 2, invalid-unclean 0, invalid-clean 1022)"
no_stderr
run 1 bbm "$bad"
last_is "! BBM invalid unclean->valid"
has "casemate violation: bbm-missing-tlbi"
has "  message: BBM invalid unclean->valid"
has '  record: id 10, tid 1, src "examples/bbm.c:38"'
has '    (mem-write (id 10) (tid 1) (mem-order plain) (address 0x81000) (value 0x800004fd) (src "examples/bbm.c:38"))'
has "    0x81000=0x0 S2 L1 IU(dsbed, tid 1) root:0x80000 ia:0x0-0x3fffffff old:0x400004fd"
has "  at: $bad:13:1 (record 10)"
no_stderr

# -q: the last line only
run 0 bbm -q "$good"
lines_are 1
last_is "$pass_line"
run 1 bbm --quiet "$bad"
lines_are 1
last_is "! BBM invalid unclean->valid"

# --json: one object
run 0 bbm --json "$good"
[ "$(cat "$tmp/out")" = "{\"file\":\"$good\",\"format\":\"casemate\",\"ok\":true,\"records\":21,\"violation\":null}" ] ||
    fail "json: $(cat "$tmp/out")"
run 1 bbm --json -q "$bad"
[ "$(cat "$tmp/out")" = "{\"file\":\"$bad\",\"format\":\"casemate\",\"ok\":false,\"records\":11,\"violation\":{\"code\":\"bbm_missing_tlbi\",\"message\":\"BBM invalid unclean->valid\",\"record\":10,\"line\":13,\"id\":10,\"thread\":1,\"src\":\"examples/bbm.c:38\"}}" ] ||
    fail "json: $(cat "$tmp/out")"
printf '(unlock 1 2 10)\n' >"$tmp/nosrc.log"
run 1 bbm --json "$tmp/nosrc.log"
[ "$(cat "$tmp/out")" = "{\"file\":\"$tmp/nosrc.log\",\"format\":\"casemate\",\"ok\":false,\"records\":1,\"violation\":{\"code\":\"unlock_not_held\",\"message\":\"Tried to unlock a component that was not held\",\"record\":0,\"line\":1,\"id\":1,\"thread\":2}}" ] ||
    fail "json: $(cat "$tmp/out")"

# --dot: the trees at the end, or at the violation (entry outlined)
run 1 bbm -q --dot "$tmp/v.dot" "$bad"
head -n 1 "$tmp/v.dot" | grep -qx 'digraph casemate {' || fail "--dot: $(head -n 1 "$tmp/v.dot")"
grep -qF 'label="bbm-missing-tlbi: BBM invalid unclean->valid (record id 10, tid 1)";' "$tmp/v.dot" ||
    fail "--dot lacks the violation"
grep -qF '<td port="e0" align="left" bgcolor="salmon" color="red" border="3">[0] 0x0 IU dsbed tid 1 old 0x400004fd</td>' "$tmp/v.dot" ||
    fail "--dot lacks the IU entry"
grep -qF '"t0x80000":e0 -> "t0x81000";' "$tmp/v.dot" || fail "--dot lacks the table edge"
[ "$(tail -n 1 "$tmp/v.dot")" = "}" ] || fail "--dot is not whole"
run 0 bbm -q --dot "$tmp/g.dot" "$good"
grep -qF '[0] 0x800004fd V' "$tmp/g.dot" || fail "--dot (pass) lacks the new entry"
if command -v dot >/dev/null 2>&1; then
    dot -Tsvg "$tmp/g.dot" >/dev/null 2>"$tmp/err" || fail "dot rejects the graph: $(cat "$tmp/err")"
fi
run 2 bbm -q --dot "$tmp/no/such/dir/x.dot" "$good"

# -p: each record with the state after it; --watch: records touching a slot
run 0 bbm -p "$good"
has '(lock (id 10) (tid 1) (address 0x90000) (src "examples/bbm.c:30"))'
has "  roots: S2 0x80000 vmid 1 L0 refs 1 lock 0x90000"
has "  unclean: 0x81000 S2 L1 dsbed tid 1"
[ "$(grep -c '^  locks:' "$tmp/out")" -eq 21 ] || fail "-p: not one state per record"
run 0 bbm --watch 0x81004 -W 90000 "$good"
[ "$(grep -c '^watch: ' "$tmp/out")" -eq 11 ] || fail "--watch: $(cat "$tmp/out")"
has "  watch 0x81000=0x0 S2 L1 IU(dsb_tlbi_ipa, tid 1) root:0x80000 ia:0x0-0x3fffffff old:0x400004fd"
run 1 bbm -q -W 81000 "$bad"
lines_are 1

# options: -I, -R, -S, --promote-tlbi-by-id, --hw-af, --dry-run
printf '(mem-write 0 0 plain 1000 0)\n(unlock 1 0 10)\n' >"$tmp/uninit.log"
run 1 bbm -q "$tmp/uninit.log"
last_is "! Attempted write to uninitialised location"
run 0 bbm -q -I "$tmp/uninit.log"
run 0 bbm -q --ignore-uninit "$tmp/uninit.log"
printf '(mem-init 0 0 10000 1000)\n(sysreg-write 1 0 vttbr_el2 10000)\n(mem-write 2 0 plain 10000 0)\n' >"$tmp/nolock.log"
run 1 bbm -q "$tmp/nolock.log"
last_is "! must have associated root with a lock"
run 0 bbm -q -R "$tmp/nolock.log"
run 0 bbm -q --racy "$tmp/nolock.log"
run 1 bbm -q -S "$tmp/nolock.log"
last_is "! attempted read of uninitialised system register without read_sysreg side effect installed"
run 1 bbm -q --no-sysreg-defaults "$tmp/nolock.log"
cat >"$tmp/vmid.log" <<'EOF'
(mem-init 0 0 10000 1000)
(mem-init 1 0 30000 1000)
(hint 2 0 set_root_lock 10000 90000)
(mem-write 3 0 plain 10000 400004fd)
(sysreg-write 4 0 tcr_el2 19)
(sysreg-write 5 0 vtcr_el2 19)
(sysreg-write 6 0 vttbr_el2 10000)
(lock 7 0 90000)
(mem-write 8 0 plain 10000 0)
(barrier 9 0 dsb ish)
(sysreg-write 10 0 vttbr_el2 1000000030000)
(tlbi 11 0 vmalls12e1is)
(barrier 12 0 dsb ish)
(mem-write 13 0 release 10000 800004fd)
EOF
run 1 bbm -q "$tmp/vmid.log"
last_is "! BBM invalid unclean->valid"
run 0 bbm -q --promote-tlbi-by-id "$tmp/vmid.log"
# --hw-af: a valid block with AF = 0 given a new output address needs no
# break while HA is off (the default), one with HA on (--hw-af, or a logged
# VTCR_EL2 write with HA, bit 21, set; off again after a write clearing it)
cat >"$tmp/af0.log" <<'EOF'
(mem-init 0 0 10000 2000)
(hint 1 0 set_root_lock 10000 90000)
(mem-write 2 0 plain 10000 11003)
(mem-write 3 0 plain 11000 400000fd)
(sysreg-write 4 0 vttbr_el2 10000)
(lock 5 0 90000)
(mem-write 6 0 plain 11000 800000fd)
EOF
run 0 bbm -q "$tmp/af0.log"
last_is "$pass_line"
run 1 bbm -q --hw-af "$tmp/af0.log"
last_is "! BBM valid->valid"
run 1 bbm --json --hw-af "$tmp/af0.log"
has '"code":"bbm_no_break"'
sed 's/^(lock 5 0 90000)$/(sysreg-write 5 0 vtcr_el2 200010)\n(lock 6 0 90000)/' "$tmp/af0.log" >"$tmp/af0-ha.log"
run 1 bbm -q "$tmp/af0-ha.log"
last_is "! BBM valid->valid"
sed 's/^(lock 5 0 90000)$/(sysreg-write 5 0 vtcr_el2 200010)\n(sysreg-write 6 0 vtcr_el2 10)\n(lock 7 0 90000)/' "$tmp/af0.log" >"$tmp/af0-ha-off.log"
run 0 bbm -q "$tmp/af0-ha-off.log"
run 0 bbm --dry-run "$bad"
last_is "log parsed: 11 records (--dry-run: not checked)"
has "events: 11"

# a log whose '!' line is not reproduced says so, and still passes
printf '(lock 1 0 10)\n! BBM valid->valid\n' >"$tmp/expect.log"
run 0 bbm "$tmp/expect.log"
has "expected: ! BBM valid->valid (the log's last line; not reproduced)"
last_is "$pass_line"

# standard input
run 1 bbm -q - <"$bad"
last_is "! BBM invalid unclean->valid"

# malformed: one line on stderr with line:col, exit 1, nothing on stdout
printf '(lock 1 0 10)\r\n(lock 2 0 zz "x")\r\n' >"$tmp/bad.log"
run 1 bbm "$tmp/bad.log"
[ "$(cat "$tmp/err")" = "tracekit: $tmp/bad.log:2:11 (record 1): expected the address (a hex number), got 'zz'" ] ||
    fail "malformed: $(cat "$tmp/err")"
[ -s "$tmp/out" ] && fail "malformed: stdout '$(cat "$tmp/out")'"
run 1 bbm --json "$tmp/bad.log"
[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "malformed --json: stderr $(cat "$tmp/err")"

# unsupported configuration: a clear error with the record's place, exit 2
printf '(sysreg-write 0 0 vtcr_el2 4010)\n(mem-init 1 0 10000 1000)\n(sysreg-write 2 0 vttbr_el2 10000)\n' >"$tmp/64k.log"
run 2 bbm "$tmp/64k.log"
[ "$(cat "$tmp/err")" = "tracekit: $tmp/64k.log:3:1 (record 2): unsupported by the checker: VTCR_EL2.TG0 = 1 selects 64 KiB pages; only 4 KiB pages are modelled" ] ||
    fail "unsupported: $(cat "$tmp/err")"

# usage
run 0 bbm --help
has "usage: tracekit bbm [OPTIONS] FILE"
run 2 bbm
run 2 bbm --no-such-option "$good"
run 2 bbm -W zz "$good"
run 2 bbm "$good" "$bad"
run 2 bbm "$tmp/missing.log"
printf '\001\002\003\004garbage that is not a casemate log\n' >"$tmp/other.bin"
"$tk" bbm "$tmp/other.bin" >/dev/null 2>&1
[ $? -ne 0 ] || fail "bbm accepted a file that is not a casemate log"
run 0 --help
has "bbm"

[ "$failures" -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "bbm cli: ok"

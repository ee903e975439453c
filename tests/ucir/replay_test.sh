#!/bin/sh
# tracekit replay through the command line on examples/ucir/hello.ucir (a
# loop summing four words, then write and exit_group): states with and
# without the checkpoint index, memory, register and memory history, exit
# codes. The index goes to a private cache directory.
# Usage: replay_test.sh TRACEKIT EXAMPLES_DIR
set -u
tk=$1
trace=$2/hello.ucir
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-replay-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
XDG_CACHE_HOME=$tmp/cache
export XDG_CACHE_HOME
. "$(dirname "$0")/../cli_lib.sh"

# instruction 4 (the first loop iteration's add): rax = word 0, rcx = 4
run 0 replay --at 4 --json --mem 0x401000:16 "$trace"
expect_out '{"file":"'"$trace"'","format":"ucir","insn":4,"pc":4194322,"registers":[{"reg":"eflags","value":582},{"reg":"rax","value":1},{"reg":"rcx","value":4},{"reg":"rsi","value":4198408},{"reg":"rsp","value":2147479552}],"maps":[{"addr":4194304,"size":4096,"prot":5,"perms":"r-x"},{"addr":4198400,"size":4096,"prot":3,"perms":"rw-"},{"addr":2147414016,"size":69632,"prot":3,"perms":"rw-"}],"memory":[{"addr":4198400,"size":16,"data":"01000000000000000200000000000000"}],"syscall_count":0,"exited":false}'
ls "$tmp/cache/tracekit/"ucir-*.idx >/dev/null 2>&1 || fail "no checkpoint index in the cache"
cp "$tmp/out" "$tmp/indexed"
run 0 replay --at 4 --json --mem 0x401000:16 --no-index "$trace"
cmp -s "$tmp/out" "$tmp/indexed" || fail "--no-index state differs from the indexed one"
run 0 replay --at 4 --json --mem 0x401000:16 --index "$tmp/own.idx" "$trace"
cmp -s "$tmp/out" "$tmp/indexed" || fail "--index state differs"
[ -s "$tmp/own.idx" ] || fail "--index PATH did not write the index"

# the end: the write syscall returned 7 in rax; the stack has "sum=10\n"
run 0 replay --mem 0x7fffef00:7 "$trace"
grep -q '^instruction 16 at 0x40001a$' "$tmp/out" || fail "final instruction: $(head -1 "$tmp/out")"
grep -q '^records applied: 50, syscalls: 2, exited$' "$tmp/out" || fail "final counts: $(sed -n 2p "$tmp/out")"
grep -q '^  rax      0x0000000000000007$' "$tmp/out" || fail "final rax"
grep -q '|sum=10.|$' "$tmp/out" || fail "memory of the write: $(tail -1 "$tmp/out")"

# register history: the loop counter
run 0 replay --reg rcx "$trace"
[ "$(wc -l <"$tmp/out")" = 5 ] || fail "rcx changes: $(cat "$tmp/out")"
grep -q '^14  *0x400016  *rcx = 0x0000000000000000 (was 0x0000000000000001)$' "$tmp/out" ||
    fail "last rcx change: $(tail -1 "$tmp/out")"
run 0 replay --reg RCX --json "$trace"
sed -n 2p "$tmp/out" >"$tmp/line"
printf '%s\n' '{"insn":5,"pc":4194326,"reg":"rcx","value":3,"old_value":4}' | cmp -s - "$tmp/line" ||
    fail "rcx json: $(cat "$tmp/line")"

# memory history: the setup write, then the loop's read of word 1
run 0 replay --history 0x401008:4 --json "$trace"
[ "$(wc -l <"$tmp/out")" = 2 ] || fail "history lines: $(cat "$tmp/out")"
tail -1 "$tmp/out" >"$tmp/line"
printf '%s\n' '{"insn":6,"pc":4194319,"kind":"mem_read","addr":4198408,"size":8,"data":"0200000000000000"}' |
    cmp -s - "$tmp/line" || fail "history read: $(cat "$tmp/line")"

# report: the replay's summary
run 0 report --json "$trace"
printf '%s\n' '{"file":"'"$trace"'","format":"ucir","arch":"x86_64","os":"linux","instructions":17,"records":50,"frames":3,"skipped_keyframe_records":0,"unique_code_addresses":8,"exited":true,"by_kind":[{"kind":"frame","count":3},{"kind":"exec_abs","count":4},{"kind":"exec_rel","count":13},{"kind":"reg_change","count":17},{"kind":"mem_read","count":5},{"kind":"mem_write","count":2},{"kind":"mem_map","count":3},{"kind":"syscall","count":2},{"kind":"exit","count":1}],"syscalls":[{"num":1,"count":1},{"num":231,"count":1}],"maps":[{"addr":4194304,"size":4096,"prot":5,"perms":"r-x"},{"addr":4198400,"size":4096,"prot":3,"perms":"rw-"},{"addr":2147414016,"size":69632,"prot":3,"perms":"rw-"}],"registers":[{"reg":"eflags","value":582},{"reg":"rax","value":7},{"reg":"rcx","value":0},{"reg":"rsi","value":4198432},{"reg":"rsp","value":2147479552}]}' |
    cmp -s - "$tmp/out" || fail "report: $(cat "$tmp/out")"

# usage trouble: exit 2 with one line
run 2 replay --at 17 "$trace"
grep -q 'has 17 instructions' "$tmp/err" || fail "past the end: $(cat "$tmp/err")"
run 2 replay --at x "$trace"
run 2 replay --mem 0x1000 "$trace"
run 2 replay --reg nosuchreg "$trace"
printf '(mem-write (id 1) (tid 0) (mem-order plain) (address 0x10) (value 0x1) (src "x"))\n' >"$tmp/cm.log"
run 2 replay "$tmp/cm.log"
grep -q 'replay reads Usercorn' "$tmp/err" || fail "non-ucir input: $(cat "$tmp/err")"

# a damaged trace: exit 1 with the location
head -c 200 "$trace" >"$tmp/cut.ucir"
run 1 replay --at 3 "$tmp/cut.ucir"
[ "$(wc -l <"$tmp/err")" = 1 ] || fail "cut trace: $(cat "$tmp/err")"

[ "$failures" = 0 ] && echo "replay cli: all passed"
exit "$failures"

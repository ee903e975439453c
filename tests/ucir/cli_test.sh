#!/bin/sh
# UCIR through the command line: detection, info/dump/validate of the
# example, the one-line errors (offset, record, frame +offset), --threads
# giving the same output, convert to ucir and jsonl, atomic output, stdin.
# Usage: cli_test.sh TRACEKIT EXAMPLES_DIR
set -u
tk=$1
ex=$2
hello=$ex/hello.ucir
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-ucir-cli-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../cli_lib.sh"

# ---- the example
run 0 validate "$hello"
expect_out "$hello format=ucir valid=yes warnings=0"
run 0 info "$hello"
grep -q '^format: ucir$' "$tmp/out" || fail "info does not name the format"
grep -q '^records: 50$' "$tmp/out" || fail "info record count: $(cat "$tmp/out")"
grep -q '^frames: 3$' "$tmp/out" || fail "info frame count"
grep -q '^instructions: 17$' "$tmp/out" || fail "info instructions"
run 0 info --json "$hello"
grep -q '"arch":"x86_64","os":"linux","frames":3,"keyframes":1,"records":50,' "$tmp/out" ||
    fail "info --json: $(cat "$tmp/out")"
run 0 dump --records raw --skip 44 --limit 2 "$hello"
cat >"$tmp/want" <<'EOF'
44 f2+0x71 syscall num=1 ret=0x7 args=0x1,0x7fffef00,0x7 op_count=2
45 f2+0x98 mem_read depth=1 addr=0x7fffef00 size=7 data=73756d3d31300a
EOF
cmp -s "$tmp/out" "$tmp/want" || fail "dump --skip 44 --limit 2: $(cat "$tmp/out")"
# --skip/--limit count instructions with --json too, as in the listing
run 0 dump --json --skip 1 --limit 1 "$hello"
cat >"$tmp/want" <<'EOF'
{"record":10,"frame":1,"frame_offset":186,"op_offset":24,"kind":"exec_rel","depth":0,"size":7,"insn":1,"pc":4194307,"disasm":"lea rsi, [rip + 0xff6]"}
{"record":11,"frame":1,"frame_offset":186,"op_offset":29,"kind":"reg_change","depth":0,"reg":"rsi","reg_num":43,"value":4198400,"insn":1}
EOF
cmp -s "$tmp/out" "$tmp/want" || fail "dump --json --skip 1 --limit 1: $(cat "$tmp/out")"
run 0 dump --json --limit 2 "$hello" # the setup, then instructions 0 and 1
[ "$(wc -l <"$tmp/out")" -eq 12 ] || fail "dump --json --limit 2 printed $(wc -l <"$tmp/out") lines"
[ "$(grep -c '"pc":' "$tmp/out")" -eq 2 ] || fail "dump --json --limit 2: not 2 instructions"
"$tk" dump --json "$hello" >"$tmp/all.jsonl" || fail "dump --json"
[ "$(wc -l <"$tmp/all.jsonl")" -eq 50 ] || fail "dump --json printed $(wc -l <"$tmp/all.jsonl") lines, wanted 50"
# the per-instruction listing: code from the setup's memory writes, disassembled
run 0 dump --skip 3 --limit 2 "$hello"
cat >"$tmp/want" <<'EOF'
3       0x40000f     480306                  add rax, qword ptr [rsi]
        read  0x401000 [8] 0100000000000000
        rax = 0x1
4       0x400012     4883c608                add rsi, 8
        rsi = 0x401008
EOF
cmp -s "$tmp/out" "$tmp/want" || fail "dump --skip 3 --limit 2: $(cat "$tmp/out")"
run 0 dump "$hello"
[ "$(grep -c '^[0-9]' "$tmp/out")" -eq 17 ] || fail "the listing shows $(grep -c '^[0-9]' "$tmp/out") instructions, wanted 17"
grep -q '^15      0x400018     0f05                    syscall$' "$tmp/out" || fail "instruction 15: $(grep '^15 ' "$tmp/out")"
# the example's last instruction lies past the code its setup wrote
grep -q '^16      0x40001a                             (code unknown)$' "$tmp/out" || fail "instruction 16: $(grep '^16 ' "$tmp/out")"
grep -q '^        syscall 1(0x1, 0x7fffef00, 0x7) = 0x7$' "$tmp/out" || fail "syscall line"
grep -q '^          read  0x7fffef00 \[7\] 73756d3d31300a$' "$tmp/out" || fail "nested syscall op"
[ "$(sed -n 1p "$tmp/out")" = setup ] || fail "the listing does not start with the setup"
"$tk" dump --records raw --threads 1 "$hello" >"$tmp/t1" || fail "dump --threads 1"
"$tk" dump --records raw --threads 3 "$hello" >"$tmp/t3" || fail "dump --threads 3"
cmp -s "$tmp/t1" "$tmp/t3" || fail "dump differs between 1 and 3 threads"
[ "$(wc -l <"$tmp/t1")" -eq 50 ] || fail "dump printed $(wc -l <"$tmp/t1") lines, wanted 50"
run 2 validate --threads x "$hello"
expect_err "tracekit: $hello: --threads: 'x' is not a non-negative number"

# ---- errors: exit 1, one line with offset, record and frame +offset
head -c 80 "$hello" >"$tmp/top.ucir"
printf '\007' >>"$tmp/top.ucir"
run 1 validate "$tmp/top.ucir"
expect_err "tracekit: $tmp/top.ucir: offset 0x50 (record 0): OP_MEM_WRITE outside a frame (the top level holds only OP_FRAME)"
expect_out "$tmp/top.ucir format=ucir valid=no warnings=0 error=\"OP_MEM_WRITE outside a frame (the top level holds only OP_FRAME)\" offset=0x50 record=0"
# a frame with one unknown op (a stored zlib block by hand)
head -c 80 "$hello" >"$tmp/op.ucir"
printf '\001\001\000\000\000\001\000\000\000\014\170\001\001\001\000\376\377\052\000\053\000\053' >>"$tmp/op.ucir"
run 1 validate "$tmp/op.ucir"
expect_err "tracekit: $tmp/op.ucir: offset 0x50 (record 1): frame 0 +0x0: unknown op 0x2a"
run 1 dump --records raw "$tmp/op.ucir"
[ "$(wc -l <"$tmp/out")" -eq 1 ] || fail "dump printed $(wc -l <"$tmp/out") records before the error, wanted 1"
run 1 validate --threads 2 "$tmp/op.ucir"
expect_err "tracekit: $tmp/op.ucir: offset 0x50 (record 1): frame 0 +0x0: unknown op 0x2a"
# the Adler-32 of frame 1 (it ends at 80 + 10 + 96 + 10 + 97 = 293)
cp "$hello" "$tmp/z.ucir"
printf '\377' | dd of="$tmp/z.ucir" bs=1 seek=292 conv=notrunc 2>/dev/null
run 1 validate "$tmp/z.ucir"
expect_err "tracekit: $tmp/z.ucir: offset 0xc4 (record 8): frame 1: corrupt zlib data"
head -c 150 "$hello" >"$tmp/cut.ucir"
run 1 validate "$tmp/cut.ucir"
expect_err "tracekit: $tmp/cut.ucir: offset 0x50 (record 0): frame 0: truncated: OP_FRAME needs 96 compressed bytes, 60 left"
printf 'UCIR\000\000\000\011' >"$tmp/v.ucir"
run 1 info "$tmp/v.ucir"
expect_err "tracekit: $tmp/v.ucir: offset 0x4: unsupported UCIR version 9 (the 2016 spec has 0, usercorn .uc files 1)"

# ---- convert: ucir (frames kept) and jsonl, atomic output
run 0 convert --to ucir -o "$tmp/c1.ucir" "$hello"
run 0 convert --to ucir -o "$tmp/c2.ucir" "$tmp/c1.ucir"
cmp -s "$tmp/c1.ucir" "$tmp/c2.ucir" || fail "convert --to ucir is not a fixed point"
"$tk" dump --records raw "$tmp/c1.ucir" | sed 's/compressed_size=[0-9]*//' >"$tmp/d1"
"$tk" dump --records raw "$hello" | sed 's/compressed_size=[0-9]*//' >"$tmp/d0"
cmp -s "$tmp/d0" "$tmp/d1" || fail "convert --to ucir changed the records"
run 0 convert --to jsonl -o "$tmp/out.jsonl" "$hello"
"$tk" dump --records raw --json "$hello" >"$tmp/dump.jsonl"
cmp -s "$tmp/out.jsonl" "$tmp/dump.jsonl" || fail "convert --to jsonl differs from dump --json"
mkdir "$tmp/o"
for to in ucir jsonl; do
    run 1 convert --to "$to" -o "$tmp/o/x.out" "$tmp/op.ucir"
    [ -z "$(ls -A "$tmp/o")" ] || fail "failed convert --to $to left: $(ls -A "$tmp/o")"
done
run 2 convert --to casemate -o "$tmp/x" "$hello"
expect_err "tracekit: convert: ucir cannot be converted to 'casemate'"

# ---- standard input gives what the file gives
cat "$hello" | "$tk" dump - >"$tmp/pipe.dump" || fail "cat | dump -"
"$tk" dump "$hello" >"$tmp/file.dump"
cmp -s "$tmp/file.dump" "$tmp/pipe.dump" || fail "dump of a pipe differs"
cat "$tmp/op.ucir" | "$tk" validate - >/dev/null 2>"$tmp/err"
expect_err "tracekit: <stdin>: offset 0x50 (record 1): frame 0 +0x0: unknown op 0x2a"

if [ "$failures" -ne 0 ]; then
    echo "$failures ucir CLI check(s) failed"
    exit 1
fi
echo "all ucir CLI checks passed"

#!/bin/sh
# CLI tests of the XRay commands' options: account's output format (its own
# --output-format, and llvm-xray's --format text|csv), -o for account and
# stack, and llvm-xray's spellings, which never touch operands.
# Usage: cli_xray_test.sh TRACEKIT EXAMPLES_DIR
set -u
tk=$1
basic=$2/xray/basic-v3.xray
fdr=$2/xray/fdr-v5.xray
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-cli-xray-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$(dirname "$0")/../cli_lib.sh"

# same NAME ARGS...: tracekit ARGS succeeds and prints $tmp/want.
same() {
    what=$1
    shift
    run 0 "$@"
    cmp -s "$tmp/out" "$tmp/want" || fail "$what: tracekit $* printed other output"
}

# ---- account: the table style
"$tk" account -f csv "$fdr" >"$tmp/want" || fail "account -f csv"
head -n 1 "$tmp/want" | grep -q '^funcid,count,min,median,' || fail "account -f csv: not CSV"
for args in "--format=csv" "--format csv" "-format=csv" "-format csv" "--output-format csv" \
            "--output-format=csv" "-output-format=csv" "-f=csv" "--f=csv" \
            "--format xray --output-format csv" "--format=xray -f csv" "-f csv --format=xray" \
            "--format text --format csv" "-f text -f csv"; do
    # shellcheck disable=SC2086
    same "account $args" account $args "$fdr"
done
"$tk" account "$fdr" >"$tmp/want" || fail "account"
head -n 1 "$tmp/want" | grep -q '^Functions with latencies: ' || fail "account: not the table"
for args in "--format text" "--format=text" "-format=text" "-f text" "--output-format=text" \
            "--format xray" "-f csv --format text"; do
    # shellcheck disable=SC2086
    same "account $args" account $args "$fdr"
done
run 2 account --output-format xml "$fdr"
expect_err "tracekit: account: --output-format takes text or csv, not 'xml' (try 'tracekit account --help')"
run 2 account -f=xray "$fdr"
expect_err "tracekit: account: --output-format takes text or csv, not 'xray' (try 'tracekit account --help')"
run 2 account --format=xml "$fdr"
expect_err "tracekit: account: unknown format 'xml' (try 'tracekit account --help')"
run 2 account -format json "$fdr"
expect_err "tracekit: account: unknown format 'json' (try 'tracekit account --help')"
run 2 account -f "$fdr"
[ -s "$tmp/out" ] && fail "account -f without a value printed a table"

# ---- -o: the file gets what standard output gets
for cmd in "account -s count" "account --json" "stack" "stack --folded" "graph -e sum"; do
    # shellcheck disable=SC2086
    "$tk" $cmd "$basic" >"$tmp/want" || fail "$cmd"
    rm -f "$tmp/o.txt"
    # shellcheck disable=SC2086
    run 0 $cmd -o "$tmp/o.txt" "$basic"
    [ -s "$tmp/out" ] && fail "$cmd -o wrote to standard output"
    cmp -s "$tmp/o.txt" "$tmp/want" || fail "$cmd -o: the file differs"
    rm -f "$tmp/o.txt"
    # shellcheck disable=SC2086
    run 0 $cmd "-output=$tmp/o.txt" "$basic"
    cmp -s "$tmp/o.txt" "$tmp/want" || fail "$cmd -output=: the file differs"
done
run 2 account -o "$tmp/nodir/o.txt" "$basic"
grep -q "^tracekit: $tmp/nodir/o.txt: cannot create a temporary file beside it: No such file or directory\$" \
    "$tmp/err" || fail "account -o into a missing directory: $(cat "$tmp/err")"
if [ -w /dev/full ]; then
    for cmd in "account" "account -f csv" "account --json" "stack" "graph"; do
        # shellcheck disable=SC2086
        run 2 $cmd -o /dev/full "$basic"
        expect_err "tracekit: /dev/full: write failed: No space left on device"
        # shellcheck disable=SC2086
        "$tk" $cmd "$basic" >/dev/full 2>"$tmp/err"
        [ $? -eq 2 ] || fail "$cmd >/dev/full did not exit 2"
        expect_err "tracekit: <stdout>: write failed: No space left on device"
    done
fi

# ---- llvm-xray's spellings: the same output as tracekit's
"$tk" account -s count -r dsc -p 3 -k -d "$basic" >"$tmp/want"
same "account llvm" account -sort=count -sortorder=dsc -top=3 -keep-going -deduce-sibling-calls "$basic"
same "account llvm bools" account -sort count -sortorder dsc -top 3 -k=1 -d=true -recursive-calls-only=false "$basic"
same "account --letter=" account --s=count --r=dsc --p=3 -kd "$basic"
"$tk" stack --all-stacks --stack-format flame --aggregation-type count "$fdr" >"$tmp/want"
same "stack llvm" stack -all-stacks -stack-format=flame -aggregation-type=count "$fdr"
same "stack -all" stack -all -stack-format flame -aggregation-type count -per-thread-stacks=0 "$fdr"
"$tk" graph -e sum -v count -c max -b 90p -d "$fdr" >"$tmp/want"
same "graph llvm" graph -edge-label=sum -vertex-label=count -color-edges=max -color-vertices=90p -deduce-sibling-calls=1 "$fdr"
same "graph letters" graph -e=sum -v=count -c=max -b=90p -d "$fdr"
for pair in "yaml:yaml" "trace_event:chrome" "raw:xray-basic"; do
    "$tk" convert --to "${pair#*:}" "$fdr" >"$tmp/want"
    same "convert -f ${pair%:*}" convert -f "${pair%:*}" "$fdr"
    same "convert -output-format=${pair%:*}" convert "-output-format=${pair%:*}" "$fdr"
done
"$tk" convert --to yaml --no-sort "$fdr" >"$tmp/want"
same "convert -sort=false" convert -output-format=yaml -sort=false "$fdr"
same "convert -s=0" convert -f=yaml -s=0 "$fdr"
"$tk" convert --to yaml "$fdr" >"$tmp/want"
same "convert -sort" convert -f=yaml -sort "$fdr"
run 2 convert -f json "$fdr"
expect_err "tracekit: convert: --output-format takes yaml, trace_event or raw, not 'json' (try 'tracekit convert --help')"
run 2 account -keep-going=maybe "$basic"
expect_err "tracekit: account: bad option '--keep-going=maybe' or missing value (try 'tracekit account --help')"
run 2 account -sort "$basic"
expect_err "tracekit: account: --sort: unknown field '$basic' (try 'tracekit account --help')"
# every command: info's and dump's options the LLVM way too
"$tk" info --json "$basic" >"$tmp/want"
same "info -json" info -json "$basic"
"$tk" dump --records logical --limit 3 "$fdr" >"$tmp/want"
same "dump -records=" dump -records=logical -limit 3 "$fdr"

# ---- operands are never respelled: files named like options
cp "$basic" "$tmp/-sort=count"
cp "$basic" "$tmp/-keep-going"
"$tk" account "$basic" >"$tmp/want"
(cd "$tmp" && "$tk" account -- -sort=count) >"$tmp/out" 2>"$tmp/err" || fail "account -- -sort=count"
cmp -s "$tmp/out" "$tmp/want" || fail "account -- -sort=count: not the file's table"
(cd "$tmp" && "$tk" account -k -- -keep-going) >"$tmp/out" 2>"$tmp/err" || fail "account -- -keep-going"
cmp -s "$tmp/out" "$tmp/want" || fail "account -- -keep-going: not the file's table"
# nor the value of an option: -o's file is called -top=1
rm -f "$tmp/-top=1"
(cd "$tmp" && "$tk" account -o -top=1 -- -keep-going) || fail "account -o -top=1"
cmp -s "$tmp/-top=1" "$tmp/want" || fail "account -o -top=1: not written to the file -top=1"

if [ "$failures" -ne 0 ]; then
    echo "$failures XRay CLI check(s) failed"
    exit 1
fi
echo "all XRay CLI checks passed"

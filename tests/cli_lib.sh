# Shared by the command-line test scripts (sourced after setting $tk, the
# tracekit binary, and $tmp, a scratch directory).

failures=0

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# run EXPECTED_RC ARGS...: run tracekit, keep stdout/stderr in $tmp/out, $tmp/err.
run() {
    want=$1
    shift
    "$tk" "$@" >"$tmp/out" 2>"$tmp/err"
    got=$?
    [ "$got" = "$want" ] || fail "tracekit $* exited $got, wanted $want; stderr: $(cat "$tmp/err")"
}

# expect_err TEXT: stderr is exactly this one line.
expect_err() {
    printf '%s\n' "$1" >"$tmp/want_err"
    cmp -s "$tmp/err" "$tmp/want_err" || fail "stderr was '$(cat "$tmp/err")', wanted '$1'"
}

# expect_out TEXT: stdout is exactly TEXT (plus a final newline).
expect_out() {
    printf '%s\n' "$1" >"$tmp/want_out"
    cmp -s "$tmp/out" "$tmp/want_out" || fail "stdout was '$(cat "$tmp/out")', wanted '$1'"
}

#!/bin/sh
# src/cli/ names no format, none of the formats' own commands and none of
# their APIs, and includes only its own headers besides the public ones:
# the formats' commands and options come from the registry
# (include/tracekit/command.h), so adding a format touches no file there.
# Format names come from `tracekit --help` (and the five known ones); the
# formats' commands are those --help lists that src/cli/ does not define.
# A self-test runs first: copies of CLI_DIR that name a format, call a
# format's API, name a format's command or include an internal header must
# each fail the check.
# usage: cli_names_test.sh TRACEKIT CLI_DIR
set -u
tk=$1
dir=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-names-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT

formats=$("$tk" --help | sed -n '/^formats:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ -n "$formats" ] || { echo "FAIL: no formats in tracekit --help"; exit 1; }
formats=$(printf '%s\n' $formats xray cacheray casemate ucir usercorn | sort -u)
commands=$(for c in $("$tk" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }'); do
               grep -rqF ".name = \"$c\"" "$dir" || echo "$c"
           done)
commands=$(printf '%s\n' $commands account stack graph bbm replay cachesim | sort -u)
format_re=$(echo $formats | tr ' ' '|')
command_re=$(echo $commands | tr ' ' '|')

# check DIR: print each offending line; fails when there is one
check() {
    {
        grep -rniE "$format_re" "$1"
        grep -rniwE "$command_re" "$1"
        # quoted includes: only files of the directory itself
        grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$1" | while IFS= read -r hit; do
            name=$(echo "$hit" | sed 's/.*include[[:space:]]*"\([^"]*\)".*/\1/')
            case $name in */*) echo "$hit" ;; *) [ -f "$1/$name" ] || echo "$hit" ;; esac
        done
    } >"$tmp/hits"
    cat "$tmp/hits"
    [ ! -s "$tmp/hits" ]
}

# the self-test: each injected line must be found
n=0
for line in '/* reads XRay traces too */' 'static int x = TK_UCIR_SPEC;' \
            'const char *c = "cachesim";' '#include "../core/format_ops.h"' \
            '#include "xray/cmd/cmd.h"' '#include <stdio.h> /* Casemate */'; do
    n=$((n + 1))
    rm -rf "$tmp/copy" && cp -r "$dir" "$tmp/copy" || exit 2
    echo "$line" >>"$tmp/copy/main.c"
    check "$tmp/copy" >/dev/null && { echo "FAIL: self-test: not found: $line"; exit 1; }
done

if ! check "$dir" >"$tmp/found"; then
    echo "FAIL: $dir names a format, a format's command or an internal header:"
    cat "$tmp/found"
    exit 1
fi
echo "$dir names none of: $(echo $formats $commands); includes only its own headers ($n self-tests)"

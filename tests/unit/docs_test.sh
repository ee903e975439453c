#!/bin/sh
# The help texts, the man page and the README say what the option tables
# hold: every option they document exists, and every option a command takes
# is documented in its --help and in its part of the man page; convert's
# targets are the formats' targets; --version, CMakeLists.txt, the man page
# and CHANGELOG.md name one version. The tables come from the command itself
# (`tracekit CMD --list-options`, `tracekit --list-targets`).
# usage: docs_test.sh TRACEKIT SOURCE_DIR
set -u
tk=$1
src=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-docs-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
. "$src/tests/cli_lib.sh"
man=$src/docs/tracekit.1

commands=$("$tk" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }')
[ -n "$commands" ] || fail "no commands in tracekit --help"
# options every command shares, and every option of any command
"$tk" info --list-options | grep -- '^--' | cut -d' ' -f1 >"$tmp/common"
for cmd in $commands; do "$tk" "$cmd" --list-options; done | cut -d' ' -f1 | sort -u >"$tmp/any"

# man_section CMD: the man page's text about CMD (from its .BI line to the
# next command's), with roff's \- turned into -
man_section() {
    awk -v cmd="$1" '
        /^\.SH/ { on = 0 }
        /^\.BI "[a-z][a-z-]* / { split($0, w, "\""); split(w[2], n, " "); on = (n[1] == cmd) }
        on' "$man" | sed 's/\\-/-/g'
}
# the man page's sections for options several commands share
sed -n '/^\.SH COMMON OPTIONS/,/^\.SH EXIT/p' "$man" | sed 's/\\-/-/g' >"$tmp/shared"

for cmd in $commands; do
    "$tk" "$cmd" --list-options >"$tmp/table" || fail "$cmd --list-options"
    "$tk" "$cmd" --help >"$tmp/help"
    man_section "$cmd" >"$tmp/man"
    [ -s "$tmp/man" ] || fail "the man page has no section for $cmd"
    # documented options exist
    for o in $(grep -o -- '--[a-z][a-z0-9_-]*' "$tmp/help" "$tmp/man" | cut -d: -f2 | sort -u); do
        cut -d' ' -f1 "$tmp/table" | grep -qx -- "$o" ||
            fail "$cmd: '$o' is documented (--help or man page) but $cmd does not take it"
    done
    # options taken are documented: all in --help, the command's own in the
    # man page (the shared ones are in its COMMON OPTIONS)
    while read -r o letter; do
        case $o in
        --*) grep -q -- "$o\([^a-z_-]\|\$\)" "$tmp/help" ||
                 fail "$cmd takes $o, which its --help does not mention"
             grep -q -- "$o\([^a-z_-]\|\$\)" "$tmp/man" "$tmp/shared" ||
                 { [ -n "$letter" ] && grep -q -- "\(^\|[ (]\)$letter\([ ,)]\|\$\)" "$tmp/man"; } ||
                 fail "$cmd takes $o, which its man page section does not mention" ;;
        -?) grep -q -- "\(^\|[ (]\)$o[ ,)]" "$tmp/help" ||
                fail "$cmd takes $o, which its --help does not mention" ;;
        esac
    done <"$tmp/table"
done

# the man page's COMMON OPTIONS: each one exists
for o in $(sed -n '/^\.SH COMMON OPTIONS/,/^\.SH /p' "$man" | sed 's/\\-/-/g' |
           grep -o -- '--[a-z][a-z0-9_-]*' | sort -u); do
    grep -qx -- "$o" "$tmp/any" || fail "COMMON OPTIONS documents $o, which no command takes"
done

# convert's targets: --help, man page and the formats agree
"$tk" --list-targets | sort >"$tmp/targets"
"$tk" convert --help | sed -n '/^targets:/,/^$/p' | awk 'NR > 1 && /^  [a-z]/ { print $1 }' |
    sort -u >"$tmp/help_targets"
cmp -s "$tmp/targets" "$tmp/help_targets" ||
    fail "convert --help targets differ from the formats': $(diff "$tmp/help_targets" "$tmp/targets" | grep '^[<>]' | tr '\n' ' ')"
man_section convert | sed -n '/^\.RB (/p' | grep -o '[a-z][a-z-]*' | sort -u >"$tmp/man_targets"
cmp -s "$tmp/targets" "$tmp/man_targets" ||
    fail "man page convert targets differ: $(diff "$tmp/man_targets" "$tmp/targets" | grep '^[<>]' | tr '\n' ' ')"

# README: every `tracekit CMD ...` line uses options CMD takes
grep -o 'tracekit [a-z]\{2,\} [^`|]*' "$src/README.md" | while read -r _ cmd rest; do
    echo "$commands" | grep -qx "$cmd" || continue
    "$tk" "$cmd" --list-options >"$tmp/table"
    for o in $(echo "$rest" | grep -o -- '\(^\| \)--\{0,1\}[a-z][a-z0-9_-]*' | tr -d ' '); do
        case $o in --*) long=${o%%=*} ;; -?) long=$o ;; *) long=-${o%%=*} ;; esac
        cut -d' ' -f1 "$tmp/table" | grep -qx -- "$long" ||
            { [ ${#long} -eq 2 ] && grep -q -- " $long\$" "$tmp/table"; } ||
            fail "README: tracekit $cmd ... $o: no such option"
    done
done

# one version: tracekit --version (the library's), CMakeLists.txt, the man
# page's header and CHANGELOG.md's latest release
v=$("$tk" --version | sed -n 's/^tracekit //p')
grep -q "^project(tracekit VERSION $v " "$src/CMakeLists.txt" ||
    fail "CMakeLists.txt's project version is not $v (tracekit --version)"
grep -q "^\.TH TRACEKIT 1 \"[^\"]*\" \"tracekit $v\"" "$man" ||
    fail "the man page's header does not say tracekit $v"
[ "$(sed -n 's/^## \[\([0-9][^]]*\)\].*/\1/p' "$src/CHANGELOG.md" | head -n 1)" = "$v" ] ||
    fail "CHANGELOG.md's latest release is not $v"

if [ "$failures" -ne 0 ]; then
    echo "$failures documentation check(s) failed"
    exit 1
fi
echo "help, man page and README agree with the option tables"

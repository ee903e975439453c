#!/bin/sh
# Checks that the README's first commands need nothing scripts/deps.sh does
# not install, as on a fresh Debian 12 machine with only make and the tree:
#  1. `make build` with cmocka hidden from CMake builds the tool and says
#     that the tests are skipped; `make demo` then runs the whole demo, which
#     must show every command `tracekit --help` lists. Both run with a PATH
#     holding only programs of the packages `deps.sh build demo` installs,
#     of those they depend on and of Debian's required ones (what
#     debootstrap installs): a tool missing from deps.sh fails here even on
#     a machine where it happens to be installed.
#  2. Every header that build compiled, library it linked or loads and
#     program CMake found belongs to one of those packages.
#  3. `make test-release` without cmocka stops at configure, loudly.
#  4. Given TEST_BUILD, a `make test` build: 2. for it against `deps.sh
#     build test`.
# Usage: scripts/check_deps.sh [TEST_BUILD]   (under a minute on 2 cores)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
test_build=
[ $# -eq 0 ] || test_build=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
b=$tmp/build
hide=-DCMAKE_DISABLE_FIND_PACKAGE_cmocka=ON
make=$(command -v make)

fail() {
    echo "check_deps: $*" >&2
    exit 1
}

# packages OUT ROLE...: the roles' packages and, recursively, what they
# depend on (apt-get --no-install-recommends installs no more), and
# Debian's required packages; installed ones, one a line.
packages() {
    out=$1
    shift
    # shellcheck disable=SC2046
    apt-cache depends --recurse --installed --no-recommends --no-suggests \
        --no-conflicts --no-breaks --no-replaces --no-enhances \
        $(sh "$root/scripts/deps.sh" --list "$@") \
        $(dpkg-query -W -f='${Package} ${Priority}\n' | awk '$2 == "required" { print $1 }') |
        grep -v -e '^ ' -e '^<' | sed 's/:.*//' | sort -u >"$out"
    [ -s "$out" ] || fail "apt-cache depends listed no packages"
}

# path_farm PACKAGES DIR: DIR gets a link to every program in /usr/bin,
# /usr/sbin, /bin and /sbin that those packages install (alternatives such
# as cc and awk by where they lead).
path_farm() {
    mkdir -p "$2"
    # shellcheck disable=SC2046
    dpkg -L $(cat "$1") 2>/dev/null | grep -E '/s?bin/[^/]+$' |
        xargs readlink -f | sort -u >"$tmp/progs"
    find /bin/ /sbin/ /usr/bin /usr/sbin -maxdepth 1 ! -type d | sort >"$tmp/names"
    xargs readlink -f <"$tmp/names" >"$tmp/reals"
    paste "$tmp/names" "$tmp/reals" |
        awk -F '\t' 'NR == FNR { ok[$1] = 1; next }
            ($2 in ok) { n = $1; sub(/.*\//, "", n); if (!(n in seen)) { seen[n] = 1; print $1 } }' \
            "$tmp/progs" - |
        while read -r p; do ln -s "$p" "$2/${p##*/}"; done
}

# used BUILD: the files outside its source tree and BUILD that the build
# used: headers (the compiler's depfiles), libraries on link lines,
# programs and files in CMake's cache; one a line.
used() {
    src=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' "$1/CMakeCache.txt")
    [ -n "$src" ] || fail "$1: no CMakeCache.txt"
    used_all "$1" | grep -v -F -e "$src/" -e "$1/" || true
}

used_all() {
    find "$1" -name '*.o.d' -exec cat {} + | tr ' ' '\n' | grep '^/' || true
    find "$1" -name link.txt -exec cat {} + | tr ' ' '\n' | grep -E '^/.*\.(a|so[.0-9]*)$' || true
    find "$1" -name link.txt -exec cat {} + | tr ' ' '\n' | sed -n 's/^-l\(.*\)/\1/p' | sort -u |
        while read -r l; do
            # the file -lNAME found (libdl: only libdl.a); a bare name: neither
            for ext in so a; do
                f=$(cc -print-file-name="lib$l.$ext")
                case $f in /*) echo "$f"; break ;; esac
            done
        done
    # TK_CXX_FOR_FIXTURES: a C++ compiler is optional (tests/cr_layout)
    sed -n 's/^\([A-Za-z_0-9]*\):FILEPATH=\(\/.*\)/\1 \2/p' "$1/CMakeCache.txt" |
        while read -r var f; do
            if [ "$var" != TK_CXX_FOR_FIXTURES ] && [ -f "$f" ]; then echo "$f"; fi
        done
}

# owned PACKAGES LIST WHAT: every file in LIST belongs to a package in
# PACKAGES. ldd and dpkg may disagree on /lib vs /usr/lib, and alternatives
# are symlinks no package owns: each file is looked up as it is, resolved,
# and with /usr added or removed.
owned() {
    sort -u "$2" | while read -r p; do
        for c in "$p" "$(readlink -f "$p")"; do
            case $c in
            /usr/*) printf '%s\t%s\n%s\t%s\n' "$p" "$c" "$p" "${c#/usr}" ;;
            *) printf '%s\t%s\n%s\t/usr%s\n' "$p" "$c" "$p" "$c" ;;
            esac
        done
    done | sort -u >"$tmp/cand"
    cut -f 2 "$tmp/cand" | sort -u | xargs dpkg -S 2>/dev/null >"$tmp/owners" || true
    awk -F '\t' -v what="$3" '
        FILENAME == ARGV[1] { ok[$1] = 1; next }
        FILENAME == ARGV[2] {
            i = index($0, ": /")
            if (i == 0 || $0 ~ /^diversion /) next
            by[substr($0, i + 2)] = substr($0, 1, i - 1)
            next
        }
        { files[$1] = 1 }
        $2 in by {
            if (index(owner[$1], by[$2]) == 0) owner[$1] = owner[$1] (owner[$1] == "" ? "" : " or ") by[$2]
            n = split(by[$2], pk, ", ")
            for (j = 1; j <= n; j++) { sub(/:.*/, "", pk[j]); if (pk[j] in ok) good[$1] = 1 }
        }
        END {
            bad = 0
            for (f in files) {
                if (f in good) continue
                if (f in owner) print what ": " f " is from " owner[f] ", not a package deps.sh installs"
                else print what ": " f " is from no Debian package"
                bad = 1
            }
            exit bad
        }' "$1" "$tmp/owners" "$tmp/cand" >&2
}

echo "check_deps: make build and make demo with only deps.sh build demo's packages"
packages "$tmp/demo.pkgs" build demo
path_farm "$tmp/demo.pkgs" "$tmp/bin"
mkdir -p "$b"
if ! PATH=$tmp/bin "$make" -C "$root" --no-print-directory build BUILD="$b" CMAKE_ARGS="$hide" \
    >"$tmp/build.log" 2>&1; then
    tail -n 30 "$tmp/build.log" >&2
    fail "make build without cmocka failed"
fi
grep -q 'tests skipped: cmocka not found' "$tmp/build.log" ||
    fail "make build without cmocka: no 'tests skipped' message"
[ ! -d "$b/tests" ] || fail "make build without cmocka configured tests/"
if ! PATH=$tmp/bin "$make" -C "$root" --no-print-directory demo BUILD="$b" >"$tmp/demo.out" 2>&1; then
    tail -n 30 "$tmp/demo.out" >&2
    fail "make demo failed"
fi
# demo.sh skips a part, with a note, when clang or jq is missing
if grep -n 'not found:' "$tmp/demo.out" >&2; then
    fail "make demo skipped a part"
fi
for cmd in $("$b/tracekit" --help | awk '/^commands:/ { on = 1; next } on && !NF { exit }
        on && $1 != "help" { print $1 }'); do
    grep -q "^\\\$ tracekit $cmd " "$tmp/demo.out" || fail "the demo never runs tracekit $cmd"
done

echo "check_deps: the files that build used, against deps.sh build demo"
{
    used "$b"
    ldd "$b/tracekit" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) .*/\1/p'
} >"$tmp/demo.used"
owned "$tmp/demo.pkgs" "$tmp/demo.used" "build demo" || fail "deps.sh build demo misses packages"

echo "check_deps: make test-release without cmocka stops at configure"
if "$make" -C "$root" --no-print-directory test-release BUILD="$b" CMAKE_ARGS="$hide" \
    >"$tmp/test.log" 2>&1; then
    fail "make test-release passed without cmocka"
fi
grep -q 'need cmocka' "$tmp/test.log" || {
    tail -n 20 "$tmp/test.log" >&2
    fail "make test-release without cmocka: not the configure error"
}

if [ -n "$test_build" ]; then
    echo "check_deps: the files $test_build used, against deps.sh build test"
    [ -d "$test_build/tests" ] || fail "$test_build has no tests configured"
    packages "$tmp/test.pkgs" build test
    used "$test_build" >"$tmp/test.used"
    owned "$tmp/test.pkgs" "$tmp/test.used" "build test" || fail "deps.sh build test misses packages"
fi
echo "check_deps: ok"

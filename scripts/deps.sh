#!/bin/sh
# Install the Debian packages tracekit needs to build and test, skipping
# those already installed. Usage: scripts/deps.sh [--list] [build|test|fuzz|bench|demo]...
# --list prints the roles' packages, one a line, and installs nothing
# (scripts/check_deps.sh checks them against what a build really uses).
set -eu

list=no
npm_test=no
if [ "${1:-}" = --list ]; then
    list=yes
    shift
fi

want="cmake make gcc pkg-config libbsd-dev libelf-dev libdw-dev libiberty-dev libyaml-dev"
want="$want zlib1g-dev libdeflate-dev libsnappy-dev libzstd-dev libcapstone-dev libjansson-dev"
for role in "$@"; do
    case "$role" in
    build) ;;
    # test: llvm (llvm-xray, llvm-cxxfilt) and libllvm14, whose demangler
    # tracekit loads at run time (the C++ names are compared with LLVM's);
    # python3-jsonschema checks the --json outputs against docs/schema;
    # package.examples links examples/api/ fully static: libdw.a needs
    # libbz2.a, Snappy's libsnappy.a libstdc++.a; protoc and python3-protobuf
    # parse and check the perfetto outputs against Perfetto's proto
    # (tests/perfetto/check.py)
    test) want="$want libcmocka-dev clang llvm libllvm14 llvm-14-tools libclang-rt-14-dev python3 python3-jsonschema"
          want="$want libbz2-dev libstdc++-12-dev protobuf-compiler python3-protobuf"
          # the Parquet tests' readers (DuckDB, hyparquet) and the HTML
          # reports' browser driver (puppeteer-core) come from npm, into
          # tests/node/ (npm_install below); the browser is Debian's chromium
          want="$want nodejs npm chromium"
          npm_test=yes ;;
    fuzz) want="$want clang libclang-rt-14-dev" ;;
    bench) want="$want time llvm llvm-14-tools" ;;
    # demo: clang records examples/xray/demo.c and the Cacheray programs;
    # jq filters one --json output, as users would
    demo) want="$want clang libclang-rt-14-dev jq" ;;
    *) echo "deps.sh: unknown role '$role'" >&2; exit 2 ;;
    esac
done

if [ "$list" = yes ]; then
    # shellcheck disable=SC2086
    printf '%s\n' $want
    exit 0
fi

# The test role's npm packages (tests/node/package.json, exact versions in
# its package-lock.json), test-only: never needed to build or run tracekit.
npm_install() {
    [ "$npm_test" = yes ] || return 0
    dir=$(dirname "$0")/../tests/node
    # installed already: every package of package.json is in node_modules
    missing_npm=no
    for p in $(sed -n '/"dependencies"/,/}/s/^ *"\([^"]*\)": *"[^"]*",\{0,1\}$/\1/p' "$dir/package.json"); do
        [ -f "$dir/node_modules/$p/package.json" ] || missing_npm=yes
    done
    [ "$missing_npm" = no ] && return 0
    echo "deps.sh: npm packages for the tests into tests/node/"
    (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error) || {
        echo "deps.sh: npm ci in tests/node failed" >&2
        exit 1
    }
}

missing=""
for pkg in $want; do
    # NodeSource's nodejs brings npm (and conflicts with Debian's npm)
    if [ "$pkg" = npm ] && command -v npm >/dev/null 2>&1; then
        continue
    fi
    if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $pkg"
    fi
done
if [ -z "$missing" ]; then
    npm_install
    exit 0
fi

if [ "$(id -u)" -ne 0 ]; then
    echo "deps.sh: missing packages:$missing (run as root, or install them)" >&2
    exit 2
fi
echo "deps.sh: installing$missing"
export DEBIAN_FRONTEND=noninteractive
# apt's chatter (debconf notes, progress) only when it fails
log=$(mktemp)
# shellcheck disable=SC2086
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing; } >"$log" 2>&1; then
    cat "$log" >&2
    rm -f "$log"
    echo "deps.sh: installing$missing failed" >&2
    exit 1
fi
rm -f "$log"
npm_install

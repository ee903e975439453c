#!/bin/sh
# The library as a user gets it: `cmake --install` BUILD into a temporary
# prefix, then build each example of examples/api/ against it through
# pkg-config, as docs/api.md says,
#   shared:  cc EX.c $(pkg-config --cflags --libs tracekit) -Wl,-rpath,LIBDIR
#   static:  cc EX.c $(pkg-config --static --cflags --libs tracekit) -static
# and check that the first loads libtracekit.so from the prefix, that the
# second is fully static, and (examples_check.py) that both print what the
# installed tracekit command says about examples/*/*.
# Usage: examples_test.sh SOURCE_DIR BUILD_DIR   (about 10 s on 2 cores)
set -u
src=$(cd "$1" && pwd)
build=$2
cc=${CC:-cc}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-examples-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
failed=0

fail() {
    echo "FAIL: $*"
    failed=1
}

if ! cmake --install "$build" --prefix "$prefix" >"$tmp/install.log" 2>&1; then
    cat "$tmp/install.log"
    echo "FAIL: cmake --install $build --prefix $prefix"
    exit 1
fi
libdir=$prefix/$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
export PKG_CONFIG_PATH="$libdir/pkgconfig"
shared_flags=$(pkg-config --cflags --libs tracekit) || exit 1
static_flags=$(pkg-config --static --cflags --libs tracekit) || exit 1

for ex in "$src"/examples/api/*.c; do
    name=$(basename "$ex" .c)
    # shellcheck disable=SC2086 # the flags are words
    if ! $cc -std=c11 -O2 -Wall -Wextra -Werror -o "$tmp/$name-shared" "$ex" $shared_flags \
        -Wl,-rpath,"$libdir" 2>"$tmp/cc.log"; then
        cat "$tmp/cc.log"
        fail "$name: the shared build failed"
        continue
    fi
    case $(ldd "$tmp/$name-shared") in
    *"libtracekit.so.0 => $libdir/libtracekit.so.0 "*) ;;
    *) fail "$name-shared does not load libtracekit.so.0 from $libdir: $(ldd "$tmp/$name-shared")" ;;
    esac
    # glibc warns that dlopen (capstone, libLLVM's demangler, loaded when
    # first needed) wants its own shared libraries at run time: expected
    # shellcheck disable=SC2086
    if ! $cc -std=c11 -O2 -Wall -Wextra -Werror -o "$tmp/$name-static" "$ex" $static_flags \
        -static 2>"$tmp/cc.log"; then
        cat "$tmp/cc.log"
        fail "$name: the fully static build failed"
        continue
    fi
    if readelf -l "$tmp/$name-static" | grep -q -e INTERP -e DYNAMIC; then
        fail "$name-static is not fully static"
    fi
done
[ "$failed" -eq 0 ] || exit 1
[ -n "$(ls "$tmp"/*-static 2>/dev/null)" ] || { echo "FAIL: no examples in $src/examples/api"; exit 1; }

# A program may use every name outside tk_: one defining each global of
# the library's internals (sb_free, cs_insert, ...) links with libtracekit.a
# and runs. It needs every format (through the registry: with an archive of
# separate objects, as before 0.2.0, 45 of its names clashed) and demangles
# a C++ name, which in a fully static program must not load libLLVM.
{
    echo '#include <stdio.h>'
    echo '#include <stdlib.h>'
    echo '#include <tracekit/tracekit.h>'
    nm -g --defined-only "$build/libtracekit_internal.a" | awk 'NF == 3 && $3 !~ /^tk_/ { print $3 }' |
        sort -u | sed 's/.*/void &(void);\nvoid &(void) {}/'
    cat <<'EOF'
int main(void)
{
    tk_error err;
    char *name = tk_xray_demangle("_ZN3foo3barEv", &err);
    int ok = name && puts(name) >= 0 && tk_format_at(0);
    free(name);
    return !ok;
}
EOF
} >"$tmp/clash.c"
grep -q 'void sb_free(void)' "$tmp/clash.c" || fail "no internal names found in $build/libtracekit_internal.a"
# shellcheck disable=SC2086
$cc -std=c11 -o "$tmp/clash" "$tmp/clash.c" $static_flags -static 2>"$tmp/cc.log" ||
    { grep -v 'statically linked applications' "$tmp/cc.log" | head -n 5; fail "a program defining the library's internal names does not link"; }
if [ "$failed" -eq 0 ] && [ "$("$tmp/clash")" != "foo::bar()" ]; then
    fail "the static program defining the internal names: '$("$tmp/clash" 2>&1)', not foo::bar()"
fi

python3 "$src/tests/package/examples_check.py" "$prefix/bin/tracekit" "$src" "$tmp" || failed=1
exit "$failed"

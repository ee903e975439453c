#!/bin/sh
# tracekit.pc names where `cmake --install` put the library and headers,
# with absolute paths, for
#  1. PREFIX=/usr: a scratch configure (GNUInstallDirs picks the multiarch
#     libdir there, lib/x86_64-linux-gnu on Debian) installed with DESTDIR;
#  2. a custom prefix given at install time (cmake --install --prefix) to
#     BUILD, whose libdir is then PREFIX/lib;
# and its --static flags name every library a static link needs (the
# examples test links with them).
# Usage: pc_test.sh SOURCE_DIR BUILD_DIR   (about a second)
set -u
src=$1
build=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-pc-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
failed=0

fail() {
    echo "FAIL: $*"
    failed=1
}

# expect PCDIR VAR WANT: pkg-config's value of VAR in PCDIR's tracekit.pc
expect() {
    got=$(PKG_CONFIG_PATH=$1 PKG_CONFIG_LIBDIR=$1 pkg-config --variable="$2" tracekit 2>&1)
    [ "$got" = "$3" ] || fail "$1/tracekit.pc: $2 is '$got', not '$3'"
}

# 1. /usr with the multiarch libdir
cmake -S "$src" -B "$tmp/usr-build" -DCMAKE_INSTALL_PREFIX=/usr -DTK_TESTS=OFF \
    >"$tmp/configure.log" 2>&1 || { cat "$tmp/configure.log"; exit 1; }
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$tmp/usr-build/CMakeCache.txt")
multiarch=$(cc -print-multiarch 2>/dev/null)
if [ -n "$multiarch" ] && [ "$libdir" != "lib/$multiarch" ]; then
    fail "CMAKE_INSTALL_LIBDIR for /usr is '$libdir', not lib/$multiarch: the /usr case is not tested"
fi
DESTDIR=$tmp/root cmake --install "$tmp/usr-build" --component tk_pkgconfig >/dev/null ||
    fail "installing tracekit.pc with DESTDIR"
pc=$tmp/root/usr/$libdir/pkgconfig
if [ -f "$pc/tracekit.pc" ]; then
    expect "$pc" prefix /usr
    expect "$pc" libdir "/usr/$libdir"
    expect "$pc" includedir /usr/include
else
    fail "no tracekit.pc in DESTDIR/usr/$libdir/pkgconfig: $(find "$tmp/root" -type f)"
fi

# 2. a prefix given at install time
libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$build/CMakeCache.txt")
cmake --install "$build" --component tk_pkgconfig --prefix "$tmp/custom" >/dev/null ||
    fail "cmake --install --prefix"
pc=$tmp/custom/$libdir/pkgconfig
if [ -f "$pc/tracekit.pc" ]; then
    expect "$pc" prefix "$tmp/custom"
    expect "$pc" libdir "$tmp/custom/$libdir"
    expect "$pc" includedir "$tmp/custom/include"
    # shellcheck disable=SC2046 # echo $(...): pkg-config ends with a space
    flags=$(echo $(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs tracekit))
    [ "$flags" = "-I$tmp/custom/include -L$tmp/custom/$libdir -ltracekit" ] ||
        fail "pkg-config --cflags --libs: '$flags'"
    # --static names every library libtracekit.so is linked with (its
    # link line: -lNAME and /path/libNAME.so or .a)
    static=$(PKG_CONFIG_PATH=$pc pkg-config --static --libs tracekit)
    libs=$(tr ' ' '\n' <"$build/CMakeFiles/tracekit_shared.dir/link.txt" |
        sed -n 's/^-l\(.*\)/\1/p; s/^\/.*\/lib\([^/]*\)\.\(so\|a\)$/\1/p')
    [ -n "$libs" ] || fail "no libraries on tracekit_shared's link line"
    for l in tracekit $libs; do
        case " $static " in *" -l$l "*) ;; *) fail "pkg-config --static --libs lacks -l$l: '$static'" ;; esac
    done
else
    fail "no tracekit.pc in PREFIX/$libdir/pkgconfig"
fi

[ "$failed" -eq 0 ] && echo "tracekit.pc: ok"
exit "$failed"

#!/bin/sh
# C++ names from -m: tracekit account, stack, graph and convert must print
# exactly what llvm-xray prints on traces of programs/names.cc (lambdas,
# operator templates, `>>`, inheriting constructors, std::thread with a
# lambda), recorded now in basic mode single-threaded and with a thread.
# libLLVM is loaded only for C++ names; TRACEKIT_NO_LLVM_DEMANGLE=1 falls
# back to GCC's demangler, which still demangles (in its own spelling).
# usage: names_vs_llvm.sh TRACEKIT SRCDIR CLANG CLANGXX LLVM_XRAY
set -u
tk=$1 src=$2 cc=$3 cxx=$4 xr=$5
if [ ! -x "$cc" ] || [ ! -x "$cxx" ] || [ ! -x "$xr" ]; then
    echo "skipped: clang, clang++ or llvm-xray missing"; exit 77
fi
# the libLLVM llvm-xray runs with is the one tracekit should load
if ! ldd "$xr" 2>/dev/null | grep -q 'libLLVM-1[456]\.so'; then
    echo "skipped: llvm-xray is not linked to libLLVM-14/15/16"; exit 77
fi
unset TRACEKIT_NO_LLVM_DEMANGLE # the fallback is checked below, on purpose
dir=$(mktemp -d) || exit 2
trap 'rm -rf "$dir"' EXIT
flags="-O0 -fxray-instrument -fxray-instruction-threshold=1"
$cxx $flags -pthread "$src/programs/names.cc" -o "$dir/names" || exit 2
$cc $flags "$src/programs/acct_st.c" -o "$dir/c" || exit 2
basic="patch_premain=true xray_mode=xray-basic"
# no argument: one thread; an argument: main and a std::thread
(cd "$dir" && XRAY_OPTIONS="$basic xray_logfile_base=st-" \
    XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./names 2>/dev/null)
(cd "$dir" && XRAY_OPTIONS="$basic xray_logfile_base=mt-" \
    XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./names two 2>/dev/null)
(cd "$dir" && XRAY_OPTIONS="$basic xray_logfile_base=c-" \
    XRAY_BASIC_OPTIONS="func_duration_threshold_us=0" ./c 2>/dev/null)
st=$(ls "$dir"/st-names.* 2>/dev/null) && mt=$(ls "$dir"/mt-names.* 2>/dev/null) &&
    ctrace=$(ls "$dir"/c-c.* 2>/dev/null) || { echo "no trace recorded"; exit 1; }
bin=$dir/names
fail=0 n=0

bad() { echo "FAIL: $*"; fail=$((fail + 1)); }

same() { # same DESCRIPTION TK-ARGS... -- XRAY-ARGS...
    what=$1; shift
    n=$((n + 1))
    tkargs="" ; while [ "$1" != "--" ]; do tkargs="$tkargs $1"; shift; done; shift
    # shellcheck disable=SC2086
    "$tk" $tkargs > "$dir/tk.out" 2>&1
    "$xr" "$@" > "$dir/xr.out" 2>&1
    if ! cmp -s "$dir/tk.out" "$dir/xr.out"; then
        bad "$what"; diff "$dir/tk.out" "$dir/xr.out" | head -10
    fi
}

# llvm-xray account fails on multi-threaded traces (its global TSC floor):
# account on the single-threaded one only
same "account -m" account -m "$bin" "$st" -- account -m "$bin" "$st"
same "account -m csv" account -m "$bin" --format csv "$st" -- account -m "$bin" -f csv "$st"
for t in "$st" "$mt"; do
    k=$(basename "$t")
    same "stack -m $k" stack -m "$bin" "$t" -- stack -m "$bin" "$t"
    same "stack -m per-thread $k" stack -m "$bin" --per-thread-stacks "$t" \
        -- stack -m "$bin" --per-thread-stacks "$t"
    same "stack -m flame $k" stack -m "$bin" --all-stacks --stack-format flame "$t" \
        -- stack -m "$bin" --all-stacks --stack-format flame "$t"
    same "graph -m $k" graph -m "$bin" "$t" -- graph -m "$bin" "$t"
    same "graph -m -e sum -v count $k" graph -m "$bin" -e sum -v count "$t" \
        -- graph -m "$bin" -e sum -v count "$t"
    same "convert yaml -m $k" convert --to yaml -m "$bin" -o - "$t" \
        -- convert -f yaml -y -m "$bin" "$t"
done

# the outputs hold the troublesome shapes (full names: account, flame stacks)
"$tk" account -m "$bin" "$st" > "$dir/acct.out"
"$tk" stack -m "$bin" --all-stacks --stack-format flame "$mt" > "$dir/flame.out"
for name in "shapes::Derived::Derived(int)" \
            "bool shapes::operator<<char>(shapes::Box<char> const&, shapes::Box<char> const&)" \
            "int shapes::operator<<<int>(shapes::Box<int> const&, int)" \
            "int shapes::apply_twice<int>(int)::'lambda'(int)::operator()(int) const" \
            "std::allocator<std::vector<int, std::allocator<int> > > > const&)"; do
    n=$((n + 1))
    grep -qF "$name" "$dir/acct.out" || bad "account lacks '$name'"
done
n=$((n + 1))
grep -qF "std::thread::thread<main::\$_0, void>(main::\$_0&&)" "$dir/flame.out" ||
    bad "flame stacks lack std::thread::thread<main::\$_0, void>"

# libLLVM is loaded for the C++ map only (never for a C program's map, nor
# under TRACEKIT_NO_LLVM_DEMANGLE)
loads() { # loads ENV-ASSIGNMENT TK-ARGS...: how often libLLVM was loaded
    e=$1; shift
    env $e LD_DEBUG=files "$tk" "$@" 2>&1 >/dev/null | grep -c 'file=libLLVM-.*dynamically loaded'
}
n=$((n + 3))
[ "$(loads X=1 account -m "$bin" "$st")" = 1 ] || bad "libLLVM not loaded for C++ names"
[ "$(loads X=1 account -m "$dir/c" "$ctrace")" = 0 ] || bad "libLLVM loaded for a C map"
[ "$(loads TRACEKIT_NO_LLVM_DEMANGLE=1 account -m "$bin" "$st")" = 0 ] ||
    bad "libLLVM loaded despite TRACEKIT_NO_LLVM_DEMANGLE"

# the fallback: GCC's demangler still demangles, in its own spelling
TRACEKIT_NO_LLVM_DEMANGLE=1 "$tk" account -m "$bin" "$st" > "$dir/gnu.out"
n=$((n + 4))
[ "$(wc -l < "$dir/gnu.out")" = "$(wc -l < "$dir/acct.out")" ] || bad "fallback: rows differ"
grep -q ' _Z' "$dir/gnu.out" && bad "fallback: mangled names left"
grep -qF "shapes::Derived::Base(int)" "$dir/gnu.out" || bad "fallback: not GCC's spelling"
cmp -s "$dir/gnu.out" "$dir/acct.out" && bad "fallback: same output as libLLVM"

echo "$n checks, $fail failed"
[ "$fail" -eq 0 ]

#!/bin/sh
# Regenerate the committed fuzz seed corpora (tests/fuzz/corpus/<format>/)
# from tests/fuzz/make_seeds.c. Usage: tests/fuzz/make_seeds.sh [CORPUS_DIR]
# Seeds are rewritten in place; files the generator does not make (crash
# reproducers added by hand) are left alone. ctest's fuzz-seeds-current
# fails when the committed seeds and the generator disagree.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${1:-"$here/corpus"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
${CC:-cc} -std=c11 -O1 -Wall -Wextra -Werror -o "$tmp/make_seeds" "$here/make_seeds.c"
"$tmp/make_seeds" "$out"
"$tmp/make_seeds" --check "$out"

#!/bin/sh
# Writes the test tables (pq_write) and reads them back with DuckDB and
# hyparquet (check.mjs). Both readers are npm packages that
# `scripts/deps.sh test` installs into tests/node/: without them (or
# without node), the test is skipped (exit 77).
# Usage: readers_test.sh PQ_WRITE SOURCE_DIR VERSION   (about 20 s)
set -u
pq_write=$1
src=$2
version=$3
node_dir=$src/tests/node
if ! command -v node >/dev/null 2>&1; then
    echo "SKIP: no node (scripts/deps.sh test installs nodejs)"
    exit 77
fi
for m in @duckdb/node-api hyparquet hyparquet-compressors; do
    if [ ! -d "$node_dir/node_modules/$m" ]; then
        echo "SKIP: no $m in tests/node/node_modules (scripts/deps.sh test installs it)"
        exit 77
    fi
done
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tk-parquet-XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
"$pq_write" "$tmp" || exit 1
node "$src/tests/parquet/check.mjs" "$tmp" "$node_dir" "$version"

#!/bin/sh
# The JSON outputs against docs/schema (schema_test.py says what is checked).
# Skipped (77) without python3 or its jsonschema module (Debian:
# python3-jsonschema, scripts/deps.sh test).
# usage: schema_test.sh TRACEKIT SOURCE_DIR [MKTRACE FIXTURE]
command -v python3 >/dev/null 2>&1 || { echo "skipped: no python3"; exit 77; }
python3 -c 'import jsonschema' 2>/dev/null ||
    { echo "skipped: python3 has no jsonschema module (python3-jsonschema)"; exit 77; }
exec python3 "$2/tests/unit/schema_test.py" "$@"

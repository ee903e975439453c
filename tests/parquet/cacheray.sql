# Cacheray Parquet tables (tests/parquet/cacheray.cmake): NAME<TAB>SQL, run by
# tables.mjs with DuckDB; compare_cacheray.py checks each against report --json
# (per_thread, per_type) and info --json (by_kind, rtta_types, live_at_end).
per_thread	select thread, count(*) filter (where kind = 'read'), count(*) filter (where kind = 'write'), sum(size) from accesses group by thread
per_type	select coalesce(type_name, '(untyped)'), count(*) filter (where kind = 'read'), count(*) filter (where kind = 'write'), sum(size) from accesses group by 1
by_kind	select kind, count(*), count(*) filter (where atomic), count(*) filter (where unaligned), sum(size) from accesses group by kind
rtta_types	select type_name, count(*), sum(elem_count), sum(bytes) from regions group by type_name
live_at_end	select count(*) from regions where ended_by = 'trace_end'

# casemate tables: the queries tests/parquet/compare_casemate.py checks against
# tracekit's own analyses (report --json, bbm --json). NAME<TAB>SQL per line.
by_kind	select kind, count(*) as count from events group by kind order by kind
threads	select count(distinct thread) from events
records	select count(*), min("index"), max("index") from events
codes	select code, count(*) from violations group by code order by code
violation	select code, message, record, line, id, thread from violations

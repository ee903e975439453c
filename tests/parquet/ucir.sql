# UCIR tables (docs/formats/ucir.md, "Parquet tables"): queries that must
# reproduce tracekit's own numbers (tests/parquet/compare_ucir.py checks them
# against report --json, info --json and dump --json). NAME<TAB>SQL per line.
syscalls_per_num	select num, count(*) as n from syscalls group by num order by num
syscalls_per_name	select coalesce(name, 'syscall ' || num) as name, count(*) as n from syscalls group by all order by name
instructions	select count(*), count(distinct insn), coalesce(max(insn) + 1, 0) from instructions
unique_code_addresses	select count(distinct pc) from instructions where pc is not null
bytes_written	select coalesce(sum(size), 0) from memory where kind = 'write'
bytes_read	select coalesce(sum(size), 0) from memory where kind = 'read'
records_per_instruction	select i.insn, count(m.record) from instructions i left join memory m on m.insn = i.insn group by i.insn order by i.insn limit 5

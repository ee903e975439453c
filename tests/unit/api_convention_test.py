#!/usr/bin/env python3
"""The error convention of the public headers (include/tracekit/*.h), as
"Conventions" in include/tracekit/tracekit.h states it: a call that can fail
takes a `tk_error *` last and returns tk_status, NULL or -1; each function
says what it returns, who owns what and whether it is thread-safe.

What is checked, per function declaration (its documentation is the comment
right above it, a comment after it on its line, or the documentation of the
declaration on the line before, for groups):

  documented   every function has documentation;
  status       a function returning tk_status takes a tk_error *;
  constructor  tk_*_new / tk_*_open / tk_*_from_* returning a pointer takes
               a tk_error * (allocation can always fail);
  failure      a function whose documentation speaks of failing (fail,
               error, out of memory, allocation, TK_E...) takes a tk_error *,
               unless it says it cannot fail ("cannot fail", "never
               fails") or that the case is "not an error";
  minus-one    a function whose documentation says it returns -1 takes a
               tk_error *, unless the -1 is "not an error" (a lookup past
               the end, an unknown size);
  size_t-1     no documentation mentions (size_t)-1 (a count is returned
               through an out parameter, with a tk_status);
  last         the tk_error * is the last parameter (tk_error_* excepted:
               they work on the error itself);
  says-how     a function taking a tk_error * and returning a pointer says
               "NULL", one returning an integer says "-1";
  mutating     a function that takes a non-const handle first and returns
               an integer without a tk_error * says it cannot fail;
and per header: it says how it behaves with threads.

include/tracekit/cacheray_record.h is left out: its calls stand in for
malloc inside the recorded program and keep malloc's convention (it says
so). Usage: api_convention_test.py INCLUDE_DIR | --self-test
(checking a directory runs the self-test first: declarations in the shapes
the convention replaced must each break their rule).
"""
import os
import re
import sys

EXEMPT_HEADERS = {"cacheray_record.h"}

FAILURE_WORDS = re.compile(
    r"\b(fail(s|ed|ure|ures|ing)?|errors?|out of memory|allocation|"
    r"TK_E[A-Z]+|ENOMEM)\b")
CANNOT_FAIL = re.compile(r"(?i)cannot fail|never fails?")
NOT_AN_ERROR = re.compile(r"(?i)not an? (error|failure)")
MINUS_ONE = re.compile(r"(?<![\w)])-1\b")
THREADS = re.compile(r"(?i)one thread at a time|thread-safe|any thread|at once|"
                     r"concurrent")
INTEGER = re.compile(r"^(const\s+)?(unsigned\s+)?(int|long|size_t|ssize_t|"
                     r"u?int(8|16|32|64)_t)$")


def prose_of(comment):
    """A comment's words on one line, without its /* */ and leading stars."""
    body = comment[2:-2]
    lines = [re.sub(r"^\s*\*(?!/)", "", ln) for ln in body.split("\n")]
    return " ".join(" ".join(lines).split())


def strip_comments_and_preprocessor(text):
    """The code with comments and preprocessor lines blanked (offsets and
    newlines kept), and the comments as (start, end, prose)."""
    comments = []
    out = list(text)
    for m in re.finditer(r"/\*.*?\*/", text, re.S):
        comments.append((m.start(), m.end(), prose_of(m.group(0))))
        for i in range(m.start(), m.end()):
            if out[i] != "\n":
                out[i] = " "
    code = "".join(out)
    # the C++ guards hold an extern "C" brace each
    code = re.sub(r"#ifdef __cplusplus.*?#endif",
                  lambda m: re.sub(r"[^\n]", " ", m.group(0)), code, flags=re.S)
    code = re.sub(r"^[ \t]*#.*$", lambda m: " " * len(m.group(0)), code, flags=re.M)
    code = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)",
                  lambda m: " " * len(m.group(0)), code)
    return code, comments


def statements(code):
    """Top-level statements: (start, end) offsets, end at the ';' or '}'."""
    depth = 0
    start = None
    for i, c in enumerate(code):
        if start is None and not c.isspace():
            start = i
        if c in "({":
            depth += 1
        elif c in ")}":
            depth -= 1
            if depth == 0 and c == "}" and code[start:i].lstrip().startswith("static"):
                yield start, i + 1  # an inline definition
                start = None
        elif c == ";" and depth == 0:
            yield start, i + 1
            start = None


def split_params(params):
    out, depth, cur = [], 0, ""
    for c in params:
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
            continue
        depth += c in "(["
        depth -= c in ")]"
        cur += c
    if cur.strip():
        out.append(cur.strip())
    return [] if out == ["void"] else out


def line_of(text, pos):
    return text.count("\n", 0, pos)


def depths_of(code):
    """The brace depth at each offset of the code (comments inside structs
    and enums document their fields, not the next function)."""
    depths, d = [], 0
    for c in code:
        depths.append(d)
        d += c == "{"
        d -= c == "}"
    return depths


def functions(text):
    """Every function declared: name, return type, parameters, doc, line.
    A function's doc is the last comment on lines of its own before it,
    outside braces, with no blank line between (other statements, such as
    an enum of its flags, may come between), and a comment after it on its
    last line; a declaration on the line after a documented one shares its
    doc (a group)."""
    code, comments = strip_comments_and_preprocessor(text)
    depth = depths_of(code)
    found = []
    prev = None  # the function just before: (end line, doc, end offset)
    fn_end = 0   # where the last function declared ends
    for start, end in statements(code):
        stmt = " ".join(code[start:end].split())
        if stmt.startswith(("typedef", "enum", "struct", "extern")) and "(" not in stmt.split("{")[0]:
            prev = None
            continue
        if stmt.startswith("typedef"):
            prev = None
            continue
        m = re.match(r"^(?:static\s+inline\s+|extern\s+)?(.*?)\b(tk_\w+)\s*\((.*?)\)\s*[;{]",
                     stmt)
        if not m:
            prev = None
            continue
        ret, name, params = m.group(1).strip(), m.group(2), m.group(3)
        first = line_of(text, start)
        last = line_of(text, end)
        doc = []
        above = None
        for cs, ce, ctext in comments:
            own_line = text[text.rfind("\n", 0, cs) + 1:cs].strip() == ""
            between = text[ce:start]
            if (ce <= start and own_line and depth[cs] == 0
                    and not re.search(r"\n[ \t]*\n", between)
                    and ce > fn_end):
                above = ctext
            if cs >= end and line_of(text, cs) == last and text[end:cs].strip() == "":
                doc.append(ctext)
        if above:
            doc.insert(0, above)
        if not doc and prev and prev[0] == first - 1:
            doc = prev[1]
        found.append({"name": name, "ret": ret, "params": split_params(params),
                      "doc": " ".join(doc), "line": first + 1})
        prev = (last, doc, end)
        fn_end = end
    return found


def is_error_param(p):
    return re.match(r"^tk_error\s*\*", p) is not None  # non-const


def check_function(f):
    """The problems of one declaration, as strings."""
    name, ret, params = f["name"], f["ret"], f["params"]
    doc = f["doc"]
    prose = re.sub(r'"[^"]*"', '""', doc)  # quoted text is not prose
    takes_err = any(is_error_param(p) for p in params)
    pointer = ret.endswith("*")
    integer = INTEGER.match(ret) is not None
    problems = []
    if not doc:
        problems.append("documented: no comment says what it does and returns")
    if ret == "tk_status" and not takes_err:
        problems.append("status: returns tk_status without a tk_error *")
    if pointer and re.search(r"_(new|open)(_\w+)?$|_from_\w+$", name) and not takes_err:
        problems.append("constructor: can fail (allocation) but takes no tk_error *")
    if ret != "void" and not takes_err and not CANNOT_FAIL.search(prose):
        words = FAILURE_WORDS.search(NOT_AN_ERROR.sub("", prose))
        if words:
            problems.append("failure: its documentation says it can fail ('%s') "
                            "but it takes no tk_error *" % words.group(0))
        if MINUS_ONE.search(prose) and not NOT_AN_ERROR.search(prose):
            problems.append("minus-one: returns -1 without a tk_error * (or say "
                            "the -1 is not an error)")
    if "(size_t)-1" in doc:
        problems.append("size_t-1: a count that is (size_t)-1 on failure: return "
                        "tk_status and the count through a pointer")
    if takes_err and not name.startswith("tk_error_") and not is_error_param(params[-1]):
        problems.append("last: the tk_error * is not the last parameter")
    if takes_err and pointer and "NULL" not in prose:
        problems.append("says-how: returns a pointer but does not say it is NULL "
                        "on failure")
    if takes_err and integer and not MINUS_ONE.search(prose):
        problems.append("says-how: returns an integer but does not say it is -1 "
                        "on failure")
    if (integer and not takes_err and params
            and re.match(r"^tk_\w+\s*\*", params[0]) and not is_error_param(params[0])
            and not CANNOT_FAIL.search(prose)):
        problems.append("mutating: changes its handle and returns an integer without "
                        "a tk_error *: take one, or say it cannot fail")
    return problems


def check_header(path, text):
    problems = []
    base = os.path.basename(path)
    if base in EXEMPT_HEADERS:
        return problems
    _, comments = strip_comments_and_preprocessor(text)
    if not any(THREADS.search(c[2]) for c in comments):
        problems.append("%s: says nothing about threads (thread-safe, one thread at "
                        "a time, ...)" % base)
    fns = functions(text)
    for f in fns:
        for p in check_function(f):
            problems.append("%s:%d: %s: %s" % (base, f["line"], f["name"], p))
    return problems


def check_dir(inc):
    problems, count = [], 0
    names = sorted(n for n in os.listdir(inc) if n.endswith(".h"))
    for n in names:
        with open(os.path.join(inc, n), encoding="utf-8") as fh:
            text = fh.read()
        count += len(functions(text))
        problems += check_header(os.path.join(inc, n), text)
    if "tracekit.h" in names:
        with open(os.path.join(inc, "tracekit.h"), encoding="utf-8") as fh:
            if "Conventions." not in fh.read():
                problems.append("tracekit.h: no \"Conventions.\" paragraph")
    return problems, count


# Declarations in the shapes the convention replaced (tracekit 0.1's), each
# with the rule it must break: the rules are not vacuous.
SELF_TEST = [
    ("tk_x *tk_x_new(const tk_x_options *o);", "constructor"),
    ("/* Returns TK_EIO if writing failed, TK_ENOMEM, else TK_OK. */\n"
     "tk_status tk_x_print(tk_x *s, FILE *out);", "status"),
    ("/* 0, a failure kind, or -1 when out of memory. */\n"
     "int tk_x_add(tk_x *a, const tk_x_record *rec);", "failure"),
    ("/* Returns the number of rows, or (size_t)-1 when out of memory. */\n"
     "size_t tk_x_rows(tk_x *a, tk_x_row **rows);", "size_t-1"),
    ("/* The default path into buf. 0 or -1. */\n"
     "int tk_x_default_path(const char *trace, char *buf, size_t size);", "minus-one"),
    ("/* A copy the caller frees; NULL only when out of memory. */\n"
     "char *tk_x_demangle(const char *name);", "failure"),
    ("/* The lines shared, sorted. */\n"
     "size_t tk_x_count(tk_x *s, uint64_t *shared);", "mutating"),
    ("int tk_x_undocumented(const tk_x *x);", "documented"),
    ("/* 1 record, 0 end. */\n"
     "int tk_x_next(tk_x *r, tk_x_record *rec, tk_error *err);", "says-how"),
    ("/* An x. */\n"
     "tk_x *tk_x_open(tk_error *err, const char *path);", "last"),
]
SELF_TEST_CLEAN = [
    "/* The format called `name`, NULL if there is none (a lookup, not an\n"
    " * error). */\nconst tk_format *tk_format_find(const char *name);",
    "/* A copy; NULL when out of memory (TK_ENOMEM). */\n"
    "char *tk_x_demangle(const char *name, tk_error *err);",
    "/* Rows in *rows (caller frees) and *n: TK_ENOMEM on failure. */\n"
    "tk_status tk_x_rows(tk_x *a, tk_x_row **rows, size_t *n, tk_error *err);",
    "/* Size, or -1 when unknown (not an error). */\n"
    "int64_t tk_x_size(const tk_x *x);",
    "/* Make one; NULL on failure. */\ntk_x *tk_x_new(tk_error *err);\n"
    "void tk_x_free(tk_x *x);",
]


def self_test():
    bad = 0
    for decl, rule in SELF_TEST:
        got = [p for f in functions(decl) for p in check_function(f)]
        if not any(p.startswith(rule + ":") for p in got):
            print("self-test: rule '%s' missed:\n%s\n(got %s)" % (rule, decl, got))
            bad += 1
    for decl in SELF_TEST_CLEAN:
        got = [p for f in functions(decl) for p in check_function(f)]
        if got:
            print("self-test: a clean declaration was flagged:\n%s\n%s" % (decl, got))
            bad += 1
    return bad


def main():
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1])
        return 2
    if sys.argv[1] == "--self-test":
        bad = self_test()
        print("self-test: %s" % ("ok" if not bad else "%d failed" % bad))
        return 1 if bad else 0
    if self_test():
        print("self-test failed: the rules above do not catch what they should")
        return 1
    problems, count = check_dir(sys.argv[1])
    for p in problems:
        print(p)
    if count == 0:
        print("no functions found in %s" % sys.argv[1])
        return 1
    print("%d functions in %s: %s" % (count, sys.argv[1],
                                       "%d problems" % len(problems) if problems else "ok"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

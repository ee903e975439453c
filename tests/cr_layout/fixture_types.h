/* The types the layout tests read back from DWARF. The fixture programs
 * compile them with -g; the tests include them too, so every expected
 * offset and size comes from offsetof/sizeof, not from written numbers. */
#ifndef CR_FIXTURE_TYPES_H
#define CR_FIXTURE_TYPES_H

struct Basic {
    int a;
    long b;
    char *c;
};

/* anonymous struct, known only by its typedef (LLVM: "struct.TdBasic") */
typedef struct {
    int at;
    int bt;
} TdBasic;

/* typedef chains and qualifiers lead to the struct */
typedef const volatile struct Basic CvBasic;
typedef TdBasic TdAgain;

/* 7 bytes of tail padding: sizeof is 16, the stride of an array */
struct Pad {
    long x;
    char c;
};

struct Inner {
    short x;
    int y;
};

struct Nested {
    char tag;            /* then padding */
    struct Inner inner;  /* inner.x, inner.y */
    union {              /* anonymous: i, d (overlapping) */
        int i;
        double d;
    };
    struct {             /* anonymous: p, q */
        char p;
        long q;
    };
    int arr[5];          /* one field for the whole array */
    struct Inner pairs[2]; /* an array of structs is one field too */
    struct Deeper {
        struct Inner in;
        char last;
    } deeper;            /* deeper.in.x, deeper.in.y, deeper.last */
};

struct Bits {
    unsigned a : 3;
    unsigned b : 7;
    unsigned c : 12;     /* bits 10..21: bytes 1..2 */
    char d;
    unsigned long e : 40;
    unsigned f : 1;
    unsigned : 0;
    unsigned g : 9;
};

union U {
    int i;
    char c[6];
    struct Inner in;     /* in.x, in.y */
};

/* flexible array member: sizeof excludes it */
struct Flex {
    long n;
    char tag;
    int data[];
};

/* a struct tag declared inside another (C puts it at file scope) */
struct Outer {
    struct InnerDef {
        int k;
    } in;
    char *name;
};

/* the original tool's sample (cacheray/test/structs) */
typedef struct TdNamed {
    int at;
    int bt;
} TheTdNamed;

struct Deep {
    int a;
    struct Basic b;
    struct Basic *c;
    TheTdNamed d;
    TheTdNamed *e;
};

/* Defined differently in the two fixture files: the first (fixture_main.c,
 * linked first) is kept. */
#ifdef CR_FIXTURE_SECOND
struct Conflict {
    long y;
    long z;
};
#else
struct Conflict {
    int x;
};
#endif

#endif

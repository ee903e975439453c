/* Struct layouts for the per-field tests, read back from this program's
 * DWARF (tracekit cachesim --debug-info). */
struct Pad {   /* 16 bytes: 7 of them tail padding */
    long a;
    char b;
};

struct Basic { /* the original tool's sample type */
    int a;
    long b;
    char *c;
};
typedef struct Basic TdBasic;

struct Pad pads[3];
TdBasic basic;

int main(void) { return (int)(pads[0].b + basic.a); }

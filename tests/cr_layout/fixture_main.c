/* A program whose only job is to carry fixture_types.h in its DWARF. */
#include "fixture_types.h"

struct Basic g_basic;
TdBasic g_td;
CvBasic *g_cv;
TdAgain g_again;
struct Pad g_pad;
struct Nested g_nested;
struct Bits g_bits;
union U g_u;
struct Flex *g_flex;
struct Outer g_outer;
struct Deep g_deep;
struct Conflict g_conflict;

int fixture_second(void);

int main(void)
{
    return fixture_second();
}

/* A second unit: the same struct Basic again (ignored) and a different
 * struct Conflict (the first one wins). */
#define CR_FIXTURE_SECOND
#include "fixture_types.h"

struct Basic g_basic_again;
struct Conflict g_conflict_again;

int fixture_second(void)
{
    return (int)g_conflict_again.y;
}

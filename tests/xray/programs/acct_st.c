/* Single-threaded workload in basic mode (single-threaded, so llvm-xray
 * account's global TSC floor is not hit). */
#include "work.h"

int main(void) { return (int)(workload() & 1); }

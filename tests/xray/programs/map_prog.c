/* Instrumentation-map test program (tests/xray/test_map.c): compiled with
 * clang -fxray-instrument -fxray-instruction-threshold=1 as an executable,
 * PIE, shared object and .o, for x86-64 and AArch64. No #include, so it
 * compiles for any target without a sysroot. The test finds each function's
 * line by searching for "int map_<name>(": keep each definition on the line
 * of its name. */
static int map_leaf(int x) { return x * 3 + 1; }
int map_mid(int x) { return map_leaf(x) + map_leaf(x + 1); }
__attribute__((xray_always_instrument)) int map_always(int x) { return x - 1; }
__attribute__((xray_always_instrument, xray_log_args(1))) int map_logged(int x) { return x ^ 5; }
int map_event(int x) {
    static const char msg[] = "hey";
    __xray_customevent(msg, 3);
    return x + 2;
}
__attribute__((noinline)) int map_callee(int x) { return x * 7; }
int map_tail(int x) { return map_callee(x + 1); }

int main(int argc, char **argv)
{
    (void)argv;
    return map_mid(argc) + map_always(argc) + map_logged(argc) +
               map_event(argc) + map_tail(argc) >
           1000;
}

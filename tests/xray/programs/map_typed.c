/* A typed-event sled (kind 5), which llvm-xray 14 refuses to read
 * (tests/xray/test_map.c). */
int map_typed(int x)
{
    static const char msg[] = "hi";
    __xray_typedevent(7, msg, 2);
    return x + 1;
}

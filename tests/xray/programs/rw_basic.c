/* Basic-mode driver for rw_work.c: patched at start-up by
 * XRAY_OPTIONS=patch_premain=true xray_mode=xray-basic. Basic mode has
 * no event handler: rw_event's events are dropped. */
long rw_run(int threads, int iters, int events);

int main(void)
{
    return rw_run(3, 60, 1) == -12345 ? 3 : 0; /* keep the result; exit 0 */
}

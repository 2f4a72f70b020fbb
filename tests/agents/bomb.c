/*
 * bomb: an adversarial bucket_brigade agent whose simfleet_act grows its memory without
 * bound, 16 pages (1 MiB) at a time, writing to every new page. It never stops on its own:
 * when a grow is refused (memory.grow returns -1) it traps, so the host's refusal ends the
 * call at once. init and reset behave.
 */
#include "simfleet.h"

#define PAGE 65536u
#define STEP 16u

SF_EXPORT("simfleet_init") int simfleet_init(int len) {
    (void)len;
    return 0;
}

SF_EXPORT("simfleet_reset") void simfleet_reset(long long seed) {
    (void)seed;
}

SF_EXPORT("simfleet_act") long long simfleet_act(int len) {
    (void)len;
    for (;;) {
        int old = __builtin_wasm_memory_grow(0, STEP);
        if (old < 0) __builtin_trap(); /* refused: the host stopped it */
        for (uint32_t k = 0; k < STEP; k++) {
            volatile uint8_t *page = (volatile uint8_t *)(uintptr_t)(((uint32_t)old + k) * PAGE);
            *page = 1;
        }
    }
}

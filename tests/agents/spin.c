/*
 * spin: an adversarial bucket_brigade agent whose simfleet_act never returns (the host must
 * stop it). init and reset behave.
 */
#include "simfleet.h"

/* Volatile: every increment is a side effect, so the loop cannot be removed. */
static volatile uint32_t spins;

SF_EXPORT("simfleet_init") int simfleet_init(int len) {
    (void)len;
    return 0;
}

SF_EXPORT("simfleet_reset") void simfleet_reset(long long seed) {
    (void)seed;
}

SF_EXPORT("simfleet_act") long long simfleet_act(int len) {
    (void)len;
    for (;;) spins = spins + 1;
}

/*
 * trap: an adversarial bucket_brigade agent that answers [0, 0, 0] for the first two
 * decisions of each episode, then traps (unreachable) on every later one.
 */
#include "simfleet.h"

static uint32_t decisions;

SF_EXPORT("simfleet_init") int simfleet_init(int len) {
    (void)len;
    return 0;
}

SF_EXPORT("simfleet_reset") void simfleet_reset(long long seed) {
    (void)seed;
    decisions = 0;
}

SF_EXPORT("simfleet_act") long long simfleet_act(int len) {
    (void)len;
    decisions += 1;
    if (decisions >= 3) __builtin_trap();
    sf_writer w = sf_output_writer();
    sf_w_array(&w, 3);
    sf_w_uint(&w, 0);
    sf_w_uint(&w, 0);
    sf_w_uint(&w, 0);
    return sf_answer(&w);
}

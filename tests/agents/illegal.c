/*
 * illegal: an adversarial bucket_brigade agent that always answers [7, 99, 5]: a
 * well-formed answer whose codes are out of range in both phases (signal 7, house 99,
 * mode 5).
 */
#include "simfleet.h"

SF_EXPORT("simfleet_init") int simfleet_init(int len) {
    (void)len;
    return 0;
}

SF_EXPORT("simfleet_reset") void simfleet_reset(long long seed) {
    (void)seed;
}

SF_EXPORT("simfleet_act") long long simfleet_act(int len) {
    (void)len;
    sf_writer w = sf_output_writer();
    sf_w_array(&w, 3);
    sf_w_uint(&w, 7);
    sf_w_uint(&w, 99);
    sf_w_uint(&w, 5);
    return sf_answer(&w);
}

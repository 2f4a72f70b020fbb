/*
 * forbidden: an otherwise valid bucket_brigade agent (it answers [0, 0, 0]) that imports a
 * function the ABI does not allow, `env`.`clock_ms` () -> i64, and calls it in act. The host
 * must refuse the module before running it.
 */
#include "simfleet.h"

SF_IMPORT("env", "clock_ms") long long clock_ms(void);

static volatile long long last_clock;

SF_EXPORT("simfleet_init") int simfleet_init(int len) {
    (void)len;
    return 0;
}

SF_EXPORT("simfleet_reset") void simfleet_reset(long long seed) {
    (void)seed;
}

SF_EXPORT("simfleet_act") long long simfleet_act(int len) {
    (void)len;
    last_clock = clock_ms();
    sf_writer w = sf_output_writer();
    sf_w_array(&w, 3);
    sf_w_uint(&w, 0);
    sf_w_uint(&w, 0);
    sf_w_uint(&w, 0);
    return sf_answer(&w);
}

/*
 * cogsguard_random: cogsguard's `random` policy (shared/src/games/cogsguard/policies/mod.rs):
 * each decision answers index(12), one draw from the seat's stream, as a MessagePack uint.
 * It takes no parameter (init refuses any, as the built-in does) and ignores the observation.
 */
#include "simfleet.h"

/* types.rs: action::COUNT */
#define ACTION_COUNT 12u

SF_EXPORT("simfleet_init") int simfleet_init(int len) {
    sf_reader r = sf_input_reader(len);
    uint32_t entries;
    if (!sf_read_map(&r, &entries)) return 1;
    for (uint32_t e = 0; e < entries; e++) {
        const char *k;
        uint32_t kn;
        if (!sf_read_str(&r, &k, &kn)) return 1;
        if (sf_key_eq(k, kn, "params")) {
            uint32_t np;
            if (!sf_read_map(&r, &np)) return 1;
            if (np != 0) return 1; /* `random` has no parameter */
        } else if (!sf_skip(&r)) {
            return 1;
        }
    }
    return r.err ? 1 : 0;
}

SF_EXPORT("simfleet_reset") void simfleet_reset(long long seed) {
    (void)seed;
}

SF_EXPORT("simfleet_act") long long simfleet_act(int len) {
    (void)len;
    sf_writer w = sf_output_writer();
    sf_w_uint(&w, sf_index(ACTION_COUNT));
    return sf_answer(&w);
}

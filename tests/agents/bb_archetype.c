/*
 * bb_archetype: Bucket Brigade's heuristic policy with the five archetype vectors, a port of
 * shared/src/games/bucket_brigade/policies/{heuristic,archetype,params}.rs.
 *
 * Param `archetype=<name>` (firefighter, free_rider, hero, coordinator, liar; default
 * firefighter). Any other parameter, or an unknown name, is refused (init returns 1).
 *
 * It draws exactly what the built-in policy in its seat draws, in the same order, and does
 * the same IEEE double operations in the same order (build with -ffp-contract=off):
 *   signal: 1 draw (honesty);
 *   act:    weighted_nonnegative over ten weights, unit (works), unit (exploration)
 *           [+ index(10), index(2) when exploring] [+ unit (fatigue) when it has a previous
 *           action].
 */
#include "simfleet.h"

#define NUM_HOUSES 10u
#define MAX_AGENTS 10u

/* House states and modes: the spec's codes. */
#define SAFE 0u
#define BURNING 1u
#define REST 0u
#define WORK 1u

/* θ0..θ9 (params.rs). */
enum {
    HONESTY_BIAS,
    WORK_TENDENCY,
    NEIGHBOR_HELP_BIAS,
    OWN_HOUSE_PRIORITY,
    RISK_AVERSION,
    COORDINATION_WEIGHT,
    EXPLORATION_RATE,
    FATIGUE_MEMORY,
    REST_REWARD_BIAS,
    ALTRUISM_FACTOR,
};

/* archetype.rs, in the spec's order. */
static const struct {
    const char *name;
    double t[10];
} ARCHETYPES[5] = {
    /*                θ0   θ1   θ2   θ3   θ4   θ5   θ6    θ7   θ8   θ9 */
    {"firefighter", {1.0, 0.9, 0.5, 0.8, 0.5, 0.7, 0.1, 0.0, 0.0, 0.8}},
    {"free_rider", {0.7, 0.2, 0.0, 0.9, 0.0, 0.0, 0.1, 0.0, 0.9, 0.0}},
    {"hero", {1.0, 1.0, 1.0, 0.5, 0.1, 0.5, 0.0, 0.9, 0.0, 1.0}},
    {"coordinator", {0.9, 0.6, 0.7, 0.6, 0.8, 1.0, 0.05, 0.0, 0.2, 0.6}},
    {"liar", {0.1, 0.7, 0.0, 0.9, 0.2, 0.8, 0.3, 0.0, 0.4, 0.2}},
};

/* The parameters and the seat (its home), from init. */
static double T[10];
static uint32_t home;
static int ready;

/* Per episode (HeuristicPolicy's fields): set by reset. */
static double base[NUM_HOUSES];        /* 0.1/(1 + d(h, home)) + θ3·[h = home] */
static double base_weight[NUM_HOUSES]; /* max(base, 0.01) */
static int has_prev;                   /* prev: Option<(u8, Mode)> */
static uint32_t prev_house, prev_mode;
static double intent;                  /* this night's intent, from the signal phase */
static uint32_t signal_mode;           /* this night's signal */

/* f64::max(x, 0.01) for the non-NaN values here (and 0.01 for NaN, as Rust's max). */
static inline double max_001(double x) {
    return x >= 0.01 ? x : 0.01;
}

/* Ring distance d(a, b) = min(|a−b|, 10−|a−b|) (house.rs). */
static inline uint32_t distance(uint32_t a, uint32_t b) {
    uint32_t d = a > b ? a - b : b - a;
    return d <= NUM_HOUSES - d ? d : NUM_HOUSES - d;
}

/* ---------------------------------------------------------------- init */

static void build_layouts(void);

SF_EXPORT("simfleet_init") int simfleet_init(int len) {
    sf_reader r = sf_input_reader(len);
    uint32_t entries;
    int archetype = 0, have_seat = 0;
    uint64_t seat = 0;
    ready = 0;
    if (!sf_read_map(&r, &entries)) return 1;
    for (uint32_t e = 0; e < entries; e++) {
        const char *k;
        uint32_t kn;
        if (!sf_read_str(&r, &k, &kn)) return 1;
        if (sf_key_eq(k, kn, "seat")) {
            if (!sf_read_uint(&r, &seat)) return 1;
            have_seat = 1;
        } else if (sf_key_eq(k, kn, "params")) {
            uint32_t np;
            if (!sf_read_map(&r, &np)) return 1;
            for (uint32_t i = 0; i < np; i++) {
                const char *pk, *pv;
                uint32_t pkn, pvn;
                if (!sf_read_str(&r, &pk, &pkn) || !sf_read_str(&r, &pv, &pvn)) return 1;
                if (!sf_key_eq(pk, pkn, "archetype")) return 1; /* unknown parameter */
                int found = -1;
                for (int a = 0; a < 5; a++) {
                    if (sf_key_eq(pv, pvn, ARCHETYPES[a].name)) found = a;
                }
                if (found < 0) return 1; /* unknown archetype */
                archetype = found;
            }
        } else {
            /* "game" and anything else */
            if (!sf_skip(&r)) return 1;
        }
    }
    if (r.err || !have_seat || seat >= MAX_AGENTS) return 1;
    for (int i = 0; i < 10; i++) T[i] = ARCHETYPES[archetype].t[i];
    home = (uint32_t)seat;
    build_layouts();
    ready = 1;
    return 0;
}

/* ---------------------------------------------------------------- reset */

SF_EXPORT("simfleet_reset") void simfleet_reset(long long seed) {
    (void)seed;
    double own = T[OWN_HOUSE_PRIORITY];
    for (uint32_t h = 0; h < NUM_HOUSES; h++) {
        /* PROXIMITY[d] = 0.1/(1 + d): the same IEEE division Rust does at compile time. */
        double proximity = 0.1 / (1.0 + (double)distance(h, home));
        base[h] = h == home ? proximity + own : proximity;
        base_weight[h] = max_001(base[h]);
    }
    has_prev = 0;
    prev_house = 0;
    prev_mode = REST;
    intent = 0.0;
    signal_mode = REST;
}

/* ---------------------------------------------------------------- the observation */

typedef struct {
    uint32_t phase;
    uint32_t n; /* agents: the length of "locations" */
    const uint8_t *houses;    /* NUM_HOUSES codes */
    const uint8_t *locations; /* n codes */
    const uint8_t *signals;   /* n_signals codes */
    uint32_t n_signals;
    int have_phase, have_houses, have_locations, have_signals;
    /* Where the general reader puts the codes (the fast path points into the input). */
    uint8_t own_houses[NUM_HOUSES], own_locations[MAX_AGENTS], own_signals[MAX_AGENTS];
} obs_t;

/* ---------------------------------------------------------------- the host's layout
 *
 * The host writes the observation in one layout: the contract's eight keys in order, each a
 * fixarray of codes below 0x80 (docs/agents.md): 94 + 5n bytes for n agents. init builds that
 * layout for every n (the bytes, and a mask that keeps all but each code's low 7 bits), so an
 * observation is checked 8 bytes at a time and its codes read at fixed offsets; anything else
 * goes to the general reader. (init's state is part of the snapshot the host restores, so the
 * layouts are built once per instance.) */
#define LAYOUT_WORDS 19 /* (94 + 5 * MAX_AGENTS) / 8, rounded up */
#define LAYOUT_BASE 94u
static uint64_t layout_bits[MAX_AGENTS + 1][LAYOUT_WORDS];
static uint64_t layout_mask[MAX_AGENTS + 1][LAYOUT_WORDS];
/* The offsets of the codes that the heuristic reads (the same for every n up to locations). */
static uint32_t at_phase, at_houses, at_locations, at_signals[MAX_AGENTS + 1];

/* Appends one byte of the layout: `fixed` bytes must match, a code only be below 0x80. */
static void put(uint8_t *bits, uint8_t *mask, uint32_t *i, uint8_t b, int fixed) {
    bits[*i] = fixed ? b : 0;
    mask[*i] = fixed ? 0xff : 0x80;
    *i += 1;
}

static void put_key(uint8_t *bits, uint8_t *mask, uint32_t *i, const char *k, uint32_t codes) {
    uint32_t kn = 0;
    while (k[kn]) kn++;
    put(bits, mask, i, (uint8_t)(0xa0 | kn), 1);
    for (uint32_t c = 0; c < kn; c++) put(bits, mask, i, (uint8_t)k[c], 1);
    put(bits, mask, i, (uint8_t)(0x90 | codes), 1);
    for (uint32_t c = 0; c < codes; c++) put(bits, mask, i, 0, 0);
}

static void build_layouts(void) {
    for (uint32_t n = 1; n <= MAX_AGENTS; n++) {
        uint8_t bits[LAYOUT_WORDS * 8] = {0}, mask[LAYOUT_WORDS * 8] = {0};
        uint32_t i = 0;
        put(bits, mask, &i, 0x88, 1);
        put_key(bits, mask, &i, "phase", 1);
        at_phase = i - 1;
        put_key(bits, mask, &i, "night", 1);
        put_key(bits, mask, &i, "houses", NUM_HOUSES);
        at_houses = i - NUM_HOUSES;
        put_key(bits, mask, &i, "locations", n);
        at_locations = i - n;
        put_key(bits, mask, &i, "last_houses", n);
        put_key(bits, mask, &i, "last_modes", n);
        put_key(bits, mask, &i, "last_signals", n);
        put_key(bits, mask, &i, "signals", n);
        at_signals[n] = i - n;
        /* i == LAYOUT_BASE + 5n */
        for (uint32_t w = 0; w < LAYOUT_WORDS; w++) {
            uint64_t b = 0, m = 0;
            for (uint32_t k = 0; k < 8; k++) {
                b |= (uint64_t)bits[8 * w + k] << (8 * k);
                m |= (uint64_t)mask[8 * w + k] << (8 * k);
            }
            layout_bits[n][w] = b;
            layout_mask[n][w] = m;
        }
    }
}

/* Whether each of the `n` codes at p is at most `max` (codes already below 0x80). */
static inline int at_most(const uint8_t *p, uint32_t n, uint8_t max) {
    uint8_t over = 0;
    for (uint32_t k = 0; k < n; k++) over |= (uint8_t)(p[k] > max);
    return !over;
}

/* The observation in the host's layout, read at the layout's offsets; 0 when the bytes are
 * laid out otherwise (the general reader below then reads them). */
static int read_obs_fast(int len, obs_t *o) {
    if (len < (int)(LAYOUT_BASE + 1) || len > (int)(LAYOUT_BASE + 5 * MAX_AGENTS) || (len - LAYOUT_BASE) % 5) return 0;
    uint32_t n = ((uint32_t)len - LAYOUT_BASE) / 5, words = ((uint32_t)len + 7) / 8;
    /* sf_input is 16-byte aligned and longer than any layout: whole words are read, and the
     * bytes past `len` are masked out. */
    const uint64_t *in = (const uint64_t *)(const void *)sf_input;
    const uint64_t *bits = layout_bits[n], *mask = layout_mask[n];
    uint64_t diff = 0;
    for (uint32_t w = 0; w < words; w++) diff |= (in[w] ^ bits[w]) & mask[w];
    if (diff) return 0;
    const uint8_t *p = sf_input;
    if (p[at_phase] > 1 || !at_most(p + at_houses, NUM_HOUSES, 2) || !at_most(p + at_locations, n, NUM_HOUSES - 1) ||
        !at_most(p + at_signals[n], n, 1))
        return 0;
    o->phase = p[at_phase];
    o->houses = p + at_houses;
    o->locations = p + at_locations;
    o->signals = p + at_signals[n];
    o->n = o->n_signals = n;
    o->have_phase = o->have_houses = o->have_locations = o->have_signals = 1;
    return 1;
}

/* Reads and checks the observation; 0 when it is malformed. */
static int read_obs(int len, obs_t *o) {
    if (read_obs_fast(len, o)) {
        if (o->n < 1 || home >= o->n || o->n_signals != o->n) return 0;
        return 1;
    }
    sf_reader r = sf_input_reader(len);
    uint32_t entries;
    o->houses = o->own_houses;
    o->locations = o->own_locations;
    o->signals = o->own_signals;
    o->have_phase = o->have_houses = o->have_locations = o->have_signals = 0;
    o->n = o->n_signals = 0;
    if (!sf_read_map(&r, &entries)) return 0;
    for (uint32_t e = 0; e < entries; e++) {
        const char *k;
        uint32_t kn, count;
        if (!sf_read_str(&r, &k, &kn)) return 0;
        if (sf_key_eq(k, kn, "phase")) {
            uint8_t p[1];
            if (!sf_read_u8_array(&r, p, 1, 1, &count) || count != 1) return 0;
            o->phase = p[0];
            o->have_phase = 1;
        } else if (sf_key_eq(k, kn, "houses")) {
            if (!sf_read_u8_array(&r, o->own_houses, NUM_HOUSES, 2, &count) || count != NUM_HOUSES) return 0;
            o->houses = o->own_houses;
            o->have_houses = 1;
        } else if (sf_key_eq(k, kn, "locations")) {
            if (!sf_read_u8_array(&r, o->own_locations, MAX_AGENTS, NUM_HOUSES - 1, &count)) return 0;
            o->locations = o->own_locations;
            o->n = count;
            o->have_locations = 1;
        } else if (sf_key_eq(k, kn, "signals")) {
            if (!sf_read_u8_array(&r, o->own_signals, MAX_AGENTS, 1, &count)) return 0;
            o->signals = o->own_signals;
            o->n_signals = count;
            o->have_signals = 1;
        } else {
            /* "night", "last_houses", "last_modes", "last_signals": not read by the heuristic */
            if (!sf_skip(&r)) return 0;
        }
    }
    if (r.err || !o->have_phase || !o->have_houses || !o->have_locations) return 0;
    if (o->n < 1 || home >= o->n) return 0;
    if (o->have_signals && o->n_signals != o->n) return 0;
    if (o->phase == 1 && !o->have_signals) return 0;
    return 1;
}

/* ---------------------------------------------------------------- the policy */

/* intent = clamp((θ1 + θ4·b + [home Burning]·0.5·θ3)·(1 − θ8), 0, 1); the agent wants to WORK
 * iff intent > 0.5 and says so with probability θ0, else says the opposite. */
static uint32_t heuristic_signal(const obs_t *o) {
    uint32_t burning = 0;
    for (uint32_t h = 0; h < NUM_HOUSES; h++) burning += o->houses[h] == BURNING;
    double b = (double)burning / 10.0;
    double home_burning = o->houses[home] == BURNING ? 0.5 * T[OWN_HOUSE_PRIORITY] : 0.0;
    double raw = (T[WORK_TENDENCY] + T[RISK_AVERSION] * b + home_burning) * (1.0 - T[REST_REWARD_BIAS]);
    /* f64::clamp(0.0, 1.0). clang lowers this to f64.max/f64.min, which differ from Rust's
     * compare-and-replace only for -0.0 (max gives +0.0); raw is never -0.0 (a product of
     * sums of non-negative terms), and NaN stays NaN in both. */
    if (raw < 0.0) raw = 0.0;
    if (raw > 1.0) raw = 1.0;
    intent = raw;
    uint32_t want = intent > 0.5 ? WORK : REST;
    signal_mode = sf_unit() < T[HONESTY_BIAS] ? want : 1u - want;
    return signal_mode;
}

/* w(h) = max(score(h), 0.01), the terms added in the Rust order and only where it adds them:
 * score = base + 0.5·[Burning] + 0.3·θ2·[nb ≥ 1] + 0.1·θ5·C(h) − 0.2·θ4·nb. */
static void weights(const obs_t *o, double w[NUM_HOUSES]) {
    uint32_t crowd[NUM_HOUSES] = {0};
    for (uint32_t j = 0; j < o->n; j++) {
        if (j != home && o->signals[j] == WORK) crowd[o->locations[j]] += 1;
    }
    double help = 0.3 * T[NEIGHBOR_HELP_BIAS];
    double coord = 0.1 * T[COORDINATION_WEIGHT];
    double risk = 0.2 * T[RISK_AVERSION];
    for (uint32_t h = 0; h < NUM_HOUSES; h++) {
        uint32_t is_burning = o->houses[h] == BURNING;
        uint32_t from_left = o->houses[(h + NUM_HOUSES - 1) % NUM_HOUSES] == BURNING;
        uint32_t from_right = o->houses[(h + 1) % NUM_HOUSES] == BURNING;
        if (!(is_burning || from_left || from_right || crowd[h] > 0)) {
            w[h] = base_weight[h];
            continue;
        }
        uint32_t nb = from_left + from_right;
        double score = base[h];
        if (is_burning) score += 0.5;
        if (nb >= 1) score += help;
        if (crowd[h] > 0) score += coord * (double)crowd[h];
        if (nb >= 1) score -= risk * (double)nb;
        w[h] = max_001(score);
    }
}

static void heuristic_act(const obs_t *o, uint32_t *house_out, uint32_t *mode_out) {
    /* 1. Sample a house by score. */
    double w[NUM_HOUSES];
    weights(o, w);
    uint32_t house = sf_weighted_nonnegative(w, NUM_HOUSES);

    /* 2. Keep a WORK signal w.p. θ0; work after a REST signal w.p. intent·θ9. */
    double u = sf_unit();
    int works = signal_mode == WORK ? u < T[HONESTY_BIAS] : u < intent * T[ALTRUISM_FACTOR];
    uint32_t mode = works ? WORK : REST;

    /* 3. Exploration: a uniform action. */
    if (sf_unit() < T[EXPLORATION_RATE]) {
        house = sf_index(NUM_HOUSES);
        mode = sf_index(2) == 0 ? REST : WORK;
    }

    /* 4. Fatigue / inertia: repeat last night's action. */
    if (has_prev) {
        if (sf_unit() < T[FATIGUE_MEMORY]) {
            house = prev_house;
            mode = prev_mode;
        }
    }

    /* 5. */
    has_prev = 1;
    prev_house = house;
    prev_mode = mode;
    *house_out = house;
    *mode_out = mode;
}

/* ---------------------------------------------------------------- act */

SF_EXPORT("simfleet_act") long long simfleet_act(int len) {
    obs_t o;
    if (!ready || !read_obs(len, &o)) return 0; /* an empty answer: the host refuses it */
    sf_writer w = sf_output_writer();
    sf_w_array(&w, 3);
    if (o.phase == 0) {
        sf_w_uint(&w, heuristic_signal(&o));
        sf_w_uint(&w, 0);
        sf_w_uint(&w, 0);
    } else {
        uint32_t house, mode;
        heuristic_act(&o, &house, &mode);
        sf_w_uint(&w, 0);
        sf_w_uint(&w, house);
        sf_w_uint(&w, mode);
    }
    return sf_answer(&w);
}

/* fuzz_rng.c - bl_rng_seed, bl_rng_next_u32, bl_rng_uniform, bl_rng_normal and the three fill
   functions, on seeded states and on states whose pos, has_gauss and gauss come from the input
   (pos out of range included). Input: seed, how to spoil the state, then a list of calls.
   Checks: a fill call equals the same single draws on a copy of the state, uniforms are in
   [0, 1), pos always stays in [0, 624], a bad pos is refused without a draw. */
#include "fuzz_common.h"

static const int bad_pos[] = {-1, -2, -624, -625, -100000, INT_MIN, INT_MIN + 1, 625, 626,
                              1248, INT_MAX, 0, 1, 623, 624};

/* A fill of n (kind 0 uniform, 1 normal, 2 normal as float) equals n single draws on the
   copy of the state it started from, and leaves the same state. */
static FZ_QUIET void check_fill(const bl_rng *rng, bl_rng *copy, const void *out, size_t n,
                                int kind) {
    for (size_t i = 0; i < n; i++) {
        double one = kind == 0 ? bl_rng_uniform(copy) : bl_rng_normal(copy);
        double got = kind == 2 ? ((const float *)out)[i] : ((const double *)out)[i];
        if (kind == 2) one = (float)one;
        FZ_CHECK(memcmp(&one, &got, 8) == 0 || (one != one && got != got),
                 "fill[%zu] %.17g, single draw %.17g", i, got, one);
        if (kind == 0) FZ_CHECK(got >= 0.0 && got < 1.0, "uniform %.17g", got);
    }
    FZ_CHECK(memcmp(copy, rng, sizeof *rng) == 0, "fill and single draws left different states");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fz_in in = {data, size};
    bl_rng *rng = fz_alloc(sizeof *rng), *copy = fz_alloc(sizeof *copy);   /* exact: a read */
    bl_rng_seed(rng, fz_u32(&in));                                        /* before mt[] shows */
    FZ_CHECK(rng->pos == 624 && rng->has_gauss == 0, "seeded pos %d", rng->pos);
    unsigned spoil = fz_byte(&in);
    if (spoil & 1) rng->pos = bad_pos[fz_byte(&in) % (sizeof bad_pos / sizeof bad_pos[0])];
    if (spoil & 2) rng->pos = (int)fz_u32(&in);
    if (spoil & 4) rng->has_gauss = (int)fz_u32(&in);
    if (spoil & 8) {
        uint32_t lo = fz_u32(&in), hi = fz_u32(&in);
        uint64_t bits = (uint64_t)hi << 32 | lo;
        memcpy(&rng->gauss, &bits, 8);
    }
    for (int calls = 0; calls < 64 && in.n; calls++) {
        unsigned op = fz_byte(&in);
        int valid = rng->pos >= 0 && rng->pos <= 624;
        if (op % 8 < 3) {
            /* a fill: n from the input (sometimes past BL_MAX_ELEMS), exact buffers */
            unsigned nb = fz_byte(&in);
            size_t n = nb < 250 ? nb * (size_t)(1 + (op >> 3) % 8) : nb == 250 ? 0
                     : (size_t)BL_MAX_ELEMS + (nb - 250);
            int too_large = n > BL_MAX_ELEMS, drop = (op >> 6) == 3 && n > 0;
            size_t nbuf = too_large ? 1 : n;
            size_t esz = op % 8 == 2 ? sizeof(float) : sizeof(double);
            void *out = fz_alloc(nbuf * esz);
            bl_status want = !valid ? BL_ERR_VALUE : drop ? BL_ERR_NULL
                           : too_large ? BL_ERR_TOO_LARGE : BL_OK;
            memcpy(copy, rng, sizeof *rng);
            bl_error err;
            bl_status st = op % 8 == 0 ? bl_rng_uniform_f64(rng, drop ? NULL : out, n, &err)
                         : op % 8 == 1 ? bl_rng_normal_f64(rng, drop ? NULL : out, n, &err)
                                       : bl_rng_normal_f32(rng, drop ? NULL : out, n, &err);
            fz_check_status("bl_rng fill", st, want, &err);
            if (st != BL_OK) {
                FZ_CHECK(memcmp(copy, rng, sizeof *rng) == 0, "a refused fill changed the state");
                continue;
            }
            check_fill(rng, copy, out, n, op % 8);
            continue;
        }
        int drew = 1;                    /* a single draw reads mt[] (a cached normal does not) */
        if (op % 8 < 5) {
            (void)bl_rng_next_u32(rng);
        } else if (op % 8 < 7) {
            double u = bl_rng_uniform(rng);
            FZ_CHECK(u >= 0.0 && u < 1.0, "uniform %.17g", u);
        } else {
            drew = !rng->has_gauss;
            double g = bl_rng_normal(rng);
            FZ_CHECK(!drew || isfinite(g), "normal %g from a fresh pair", g);
        }
        if (drew) FZ_CHECK(rng->pos >= 1 && rng->pos <= 624, "pos %d after a draw", rng->pos);
    }
    fz_free_all();
    return 0;
}

/* Only in modules built for profiling: the clock and the per-node accumulators. */

#include <time.h>
/* Seconds on the monotonic clock (the one time.perf_counter reads on Linux). */
static inline double og_clock(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
/* Node k ran since t0: add its time and one call (row 0 seconds, row 1 calls). */
static inline void og_prof_add(OGState *st, int k, double t0) {
    st->prof[k] += og_clock() - t0;
    st->prof[OG_NNODES + k] += 1.0;
}

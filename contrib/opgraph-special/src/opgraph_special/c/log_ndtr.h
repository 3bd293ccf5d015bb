
static double ogsp_log_ndtr(double x) {
    if (x != x) return x;
    if (x > 0.0) return log1p(-0.5 * erfc(x * 0.70710678118654752440));
    if (x > -1.0) return log(0.5 * erfc(-x * 0.70710678118654752440));
    return log(0.5 * ogsp_erfcx(-x * 0.70710678118654752440)) - 0.5 * x * x;
}

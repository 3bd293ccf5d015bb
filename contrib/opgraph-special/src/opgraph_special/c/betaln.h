
/* Stirling's correction lgamma(z) - ((z - 1/2) log z - z + log(2 pi)/2), z >= 10. */
static double ogsp_stirling_corr(double z) {
    if (z == HUGE_VAL) return 0.0;
    double r = 1.0 / z, r2 = r * r;
    return r * (1.0 / 12 - r2 * (1.0 / 360 - r2 * (1.0 / 1260 - r2 * (1.0 / 1680
           - r2 * (1.0 / 1188 - r2 * (691.0 / 360360 - r2 * (1.0 / 156)))))));
}
static double ogsp_betaln_pos(double a, double b) {   /* 0 < a <= b */
    if (b == HUGE_VAL) return -HUGE_VAL;
    if (b < 10.0) return lgamma(a) + lgamma(b) - lgamma(a + b);
    double corr = ogsp_stirling_corr(b) - ogsp_stirling_corr(a + b);
    if (a < 10.0)
        return lgamma(a) - (b - 0.5) * log1p(a / b) - a * log(a + b) + a + corr;
    return 0.91893853320467274178 - 0.5 * log(a) - a * log1p(b / a)
           - (b - 0.5) * log1p(a / b) + ogsp_stirling_corr(a) + corr;
}
static double ogsp_betaln(double a, double b) {
    if (a != a || b != b) return NAN;
    if (a <= 0.0 && a == floor(a)) {                  /* SciPy's rule for a <= 0 integer */
        if (b == floor(b) && 1.0 - a - b > 0.0) return ogsp_betaln(1.0 - a - b, b);
        return HUGE_VAL;
    }
    if (b <= 0.0 && b == floor(b)) {
        if (a == floor(a) && 1.0 - a - b > 0.0) return ogsp_betaln(1.0 - a - b, a);
        return HUGE_VAL;
    }
    if (a > 0.0 && b > 0.0) return a <= b ? ogsp_betaln_pos(a, b) : ogsp_betaln_pos(b, a);
    return lgamma(a) + lgamma(b) - lgamma(a + b);
}

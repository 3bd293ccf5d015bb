
static double ogsp_digamma_pos(double x) {   /* x > 0, finite */
    double dr = x - @ROOT_HI@;
    if (fabs(dr) < 0.25) {
        double d = dr - @ROOT_LO@;
        return d * @HORNER@;
    }
    double acc = 0.0;
    while (x < 10.0) { acc -= 1.0 / x; x += 1.0; }
    double z = 1.0 / (x * x);
    double tail = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240
                  - z * (1.0 / 132 - z * (691.0 / 32760 - z * (1.0 / 12)))))));
    return acc + log(x) - 0.5 / x - tail;
}
static double ogsp_digamma(double x) {
    if (x != x) return x;
    if (x == HUGE_VAL) return x;
    if (x == 0.0) return signbit(x) ? HUGE_VAL : -HUGE_VAL;
    if (x > 0.0) return ogsp_digamma_pos(x);
    if (x == floor(x)) return NAN;                 /* poles, and -inf */
    double r = x - round(x);                       /* exact; tan(pi x) = tan(pi r) */
    return ogsp_digamma_pos(1.0 - x) - 3.14159265358979323846 / tan(3.14159265358979323846 * r);
}

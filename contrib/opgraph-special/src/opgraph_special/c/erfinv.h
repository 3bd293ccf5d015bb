
static double ogsp_erfinv(double y) {
    if (y != y || y < -1.0 || y > 1.0) return NAN;
    if (y == 0.0) return y;
    double a = fabs(y), x;
    if (a == 1.0) return copysign(HUGE_VAL, y);
    const double k = 1.12837916709551257390;    /* 2 / sqrt(pi) */
    if (a < 0.5) {
        x = a / k * (1.0 + 0.2617993877991494 * a * a);   /* series start */
        for (int i = 0; i < 40; i++) {
            double f = erf(x) - a, d = f / (k * exp(-x * x) + x * f);
            x -= d;
            if (fabs(d) <= 1e-17 * x) break;
        }
    } else {
        double q = 1.0 - a;                          /* exact for a >= 1/2 */
        x = sqrt(-log(q * (2.0 - q)));               /* start from the tail's log */
        if (x < 0.5) x = 0.5;
        for (int i = 0; i < 60; i++) {
            double f = erfc(x) - q, d = f / (-k * exp(-x * x) + x * f);
            x -= d;
            if (fabs(d) <= 1e-17 * x) break;
        }
    }
    return copysign(x, y);
}


#define OG_MAX(a, b) (((a) >= (b) || (a) != (a)) ? (a) : (b))
#define OG_MIN(a, b) (((a) <= (b) || (a) != (a)) ? (a) : (b))
#define og_isnan(x) ((x) != (x))
#define og_isinf(x) (((x) - (x)) != ((x) - (x)) && (x) == (x))

static inline npy_int64 og_floordiv_i64(npy_int64 a, npy_int64 b) {
    if (b == 0) return 0;
    if (b == -1) return (npy_int64)(0 - (npy_uint64)a);
    npy_int64 q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) q -= 1;
    return q;
}
static inline npy_uint64 og_floordiv_u64(npy_uint64 a, npy_uint64 b) { return b ? a / b : 0; }
static inline npy_int64 og_mod_i64(npy_int64 a, npy_int64 b) {
    if (b == 0 || b == -1) return 0;
    npy_int64 r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
static inline npy_uint64 og_mod_u64(npy_uint64 a, npy_uint64 b) { return b ? a % b : 0; }

#define OG_FLOAT_HELPERS(T, F)                                                     \
static inline T og_divmod##F(T a, T b, T *modulus) {                               \
    T mod = fmod##F(a, b), div, floordiv;                                          \
    if (!b) { *modulus = mod; return a / b; }                                      \
    div = (a - mod) / b;                                                           \
    if (mod) { if ((b < 0) != (mod < 0)) { mod += b; div -= (T)1; } }              \
    else { mod = copysign##F((T)0, b); }                                           \
    if (div) { floordiv = floor##F(div); if (div - floordiv > (T)0.5) floordiv += (T)1; } \
    else { floordiv = copysign##F((T)0, a / b); }                                  \
    *modulus = mod; return floordiv;                                               \
}                                                                                  \
static inline T og_floordiv_f##F(T a, T b) {                                       \
    T m; if (!b) return a / b; return og_divmod##F(a, b, &m);                      \
}                                                                                  \
static inline T og_mod_f##F(T a, T b) {                                            \
    T m; if (!b) return fmod##F(a, b); og_divmod##F(a, b, &m); return m;           \
}                                                                                  \
static inline T og_sigmoid##F(T x) {                                               \
    T e = exp##F(-fabs##F(x));                                                     \
    return x >= 0 ? (T)1 / ((T)1 + e) : e / ((T)1 + e);                            \
}                                                                                  \
static inline T og_softplus##F(T x) {                                              \
    if (x == 0) return (T)0.693147180559945309417232121458176568;                  \
    if (x > 0) return x + log1p##F(exp##F(-x));                                    \
    if (x < 0) return log1p##F(exp##F(x));                                         \
    return x;                                                                      \
}
OG_FLOAT_HELPERS(npy_float64, )
OG_FLOAT_HELPERS(npy_float32, f)


typedef @BLASINT@ og_blasint;
enum { OG_ROW = 101, OG_NOTRANS = 111, OG_TRANS = 112 };
extern void @PREFIX@cblas_dgemm@SUFFIX@(int, int, int, og_blasint, og_blasint, og_blasint, double,
    const double *, og_blasint, const double *, og_blasint, double, double *, og_blasint);
extern void @PREFIX@cblas_sgemm@SUFFIX@(int, int, int, og_blasint, og_blasint, og_blasint, float,
    const float *, og_blasint, const float *, og_blasint, float, float *, og_blasint);
extern void @PREFIX@cblas_dgemv@SUFFIX@(int, int, og_blasint, og_blasint, double, const double *,
    og_blasint, const double *, og_blasint, double, double *, og_blasint);
extern void @PREFIX@cblas_sgemv@SUFFIX@(int, int, og_blasint, og_blasint, float, const float *,
    og_blasint, const float *, og_blasint, float, float *, og_blasint);
extern double @PREFIX@cblas_ddot@SUFFIX@(og_blasint, const double *, og_blasint, const double *,
    og_blasint);
extern float @PREFIX@cblas_sdot@SUFFIX@(og_blasint, const float *, og_blasint, const float *, og_blasint);

/* Row-major leading dimension of an r x c matrix with byte strides s0, s1 and
   item size e, with *trans set when it is column-major; 0 when BLAS cannot
   read it as it is. */
static og_blasint og_ld2(npy_intp r, npy_intp c, npy_intp s0, npy_intp s1, npy_intp e,
                         int *trans) {
    if ((s1 == e || c == 1) && s0 % e == 0 && s0 / e >= (c > 1 ? c : 1)) {
        *trans = 0;
        return (og_blasint)(s0 / e);
    }
    if ((s0 == e || r == 1) && s1 % e == 0 && s1 / e >= (r > 1 ? r : 1)) {
        *trans = 1;
        return (og_blasint)(s1 / e);
    }
    return 0;
}

static og_blasint og_ld(PyArrayObject *a, int *trans) {
    return og_ld2(PyArray_DIMS(a)[0], PyArray_DIMS(a)[1], PyArray_STRIDES(a)[0],
                  PyArray_STRIDES(a)[1], PyArray_ITEMSIZE(a), trans);
}

/* Replace the owned reference *a by a C-ordered copy. */
static int og_copy_c(PyArrayObject **a) {
    PyArrayObject *c = (PyArrayObject *)PyArray_NewCopy(*a, NPY_CORDER);
    if (!c) return -1;
    Py_DECREF(*a);
    *a = c;
    return 0;
}

/* A matrix operand (owned reference in *a) as BLAS takes it: leading
   dimension and transpose flag; copied only when it has no unit stride. */
static int og_mat_operand(PyArrayObject **a, og_blasint *ld, int *trans) {
    *ld = og_ld(*a, trans);
    if (*ld) return 0;
    if (og_copy_c(a)) return -1;
    *trans = 0;
    *ld = (og_blasint)(PyArray_DIMS(*a)[1] > 1 ? PyArray_DIMS(*a)[1] : 1);
    return 0;
}

/* A vector operand as BLAS takes it: a positive element stride, else a copy. */
static int og_vec_operand(PyArrayObject **a, og_blasint *inc) {
    npy_intp e = PyArray_ITEMSIZE(*a), s = PyArray_STRIDES(*a)[0];
    if (PyArray_DIMS(*a)[0] <= 1) { *inc = 1; return 0; }
    if (s > 0 && s % e == 0) { *inc = (og_blasint)(s / e); return 0; }
    if (og_copy_c(a)) return -1;
    *inc = 1;
    return 0;
}

/* The last two axes of a batched operand readable by gemm, else a C-ordered copy. */
static int og_batch_operand(PyArrayObject **a, int nd) {
    int tr;
    if (og_ld2(PyArray_DIMS(*a)[nd - 2], PyArray_DIMS(*a)[nd - 1], PyArray_STRIDES(*a)[nd - 2],
               PyArray_STRIDES(*a)[nd - 1], PyArray_ITEMSIZE(*a), &tr)) return 0;
    return og_copy_c(a);
}

/* Where Gemm/Gemv write (owned reference in *o, which holds the previous
   call's buffer or NULL): z itself when inplace and BLAS can write it as it
   is, else a fresh C-ordered array that starts as z when use_z (beta != 0).
   An inplace node copies the result back into z when *o is not z. */
static int og_blas_target(PyArrayObject **o, PyArrayObject *z, int inplace, int use_z,
                          int typenum, PyArrayObject **ins, int nin) {
    int nd = PyArray_NDIM(z), tr = 0;
    npy_intp e = PyArray_ITEMSIZE(z);
    npy_intp s = PyArray_STRIDES(z)[0];
    int direct = nd == 2 ? og_ld(z, &tr) != 0
                         : (PyArray_DIMS(z)[0] <= 1 || (s > 0 && s % e == 0));
    PyArrayObject *t;
    if (inplace && direct && PyArray_ISWRITEABLE(z)) {
        Py_INCREF(z);
        t = z;
    } else {
        t = (PyArrayObject *)og_new_array(nd, PyArray_DIMS(z), typenum, inplace ? NULL : *o,
                                           ins, nin);
        if (!t) return -1;
        if (use_z && og_copy_same(t, z) < 0) { Py_DECREF(t); return -1; }
    }
    Py_XDECREF(*o);
    *o = t;
    return 0;
}

/* Matrix-vector products small enough to sit in L2, in C: a BLAS call costs
   tens of nanoseconds before it multiplies (a scan step of an 8-wide recurrence
   pays it a thousand times), and these loops also multiply faster than
   OpenBLAS's up to 512 x 512 (A x, row-major A) and 128 x 128 (A^T x), measured
   in docs/scan.md.  Written with GCC's vector extensions (eight lanes) and
   contracted to FMA as BLAS is; other compilers always call BLAS.  A x sums
   eight rows at once and reduces their eight vector sums with one transposing
   tree; A^T x keeps up to 32 outputs in registers while rows of A stream past. */
#if defined(__GNUC__) && !defined(__clang__)
#define OG_SMALL_N ((npy_intp)1 << 18)
#define OG_SMALL_T ((npy_intp)1 << 14)
#define OG_SMALL_GEMV(t, T, VB)                                                              \
typedef T og_v8##t __attribute__((vector_size(VB)));                                         \
static inline og_v8##t og_ld8##t(const T *p) { og_v8##t v; memcpy(&v, p, VB); return v; }    \
/* [sum(a0), ..., sum(a7)] */                                                                \
static inline og_v8##t og_hsum8##t(og_v8##t a0, og_v8##t a1, og_v8##t a2, og_v8##t a3,      \
                                   og_v8##t a4, og_v8##t a5, og_v8##t a6, og_v8##t a7) {    \
    const og_v8i##t e = {0, 8, 2, 10, 4, 12, 6, 14}, o = {1, 9, 3, 11, 5, 13, 7, 15};        \
    const og_v8i##t p = {0, 1, 8, 9, 4, 5, 12, 13}, q = {2, 3, 10, 11, 6, 7, 14, 15};        \
    const og_v8i##t r = {0, 1, 2, 3, 8, 9, 10, 11}, s = {4, 5, 6, 7, 12, 13, 14, 15};        \
    og_v8##t t0 = __builtin_shuffle(a0, a1, e) + __builtin_shuffle(a0, a1, o);               \
    og_v8##t t1 = __builtin_shuffle(a2, a3, e) + __builtin_shuffle(a2, a3, o);               \
    og_v8##t t2 = __builtin_shuffle(a4, a5, e) + __builtin_shuffle(a4, a5, o);               \
    og_v8##t t3 = __builtin_shuffle(a6, a7, e) + __builtin_shuffle(a6, a7, o);               \
    og_v8##t u0 = __builtin_shuffle(t0, t1, p) + __builtin_shuffle(t0, t1, q);               \
    og_v8##t u1 = __builtin_shuffle(t2, t3, p) + __builtin_shuffle(t2, t3, q);               \
    return __builtin_shuffle(u0, u1, r) + __builtin_shuffle(u0, u1, s);                      \
}                                                                                            \
/* Zig-zag over a matrix too large for L2 with the rest of a loop's step (over 1 MiB): \
   a recurrence reads the same matrix at every step, and a pass in one direction finds \
   none of it left in L2 (the last rows read evicted the first); every other pass over \
   the same matrix runs its row blocks in reverse, starting where the last one ended, \
   on rows still in L2 (an LSTM-like cell's 2 MiB weights at hidden 256: 44-47 -> \
   32-35 us a product).  Each row's sum is the same in either order.  Per thread, a \
   few matrices remembered by address. */                                                    \
static inline int og_zigzag_##t(const T *a, npy_intp bytes) {                               \
    static __thread const T *seen[8];                                                        \
    static __thread unsigned char dir[8];                                                    \
    if (bytes <= ((npy_intp)1 << 20)) return 0;                                              \
    const unsigned slot = (unsigned)(((size_t)a >> 12) & 7);                                 \
    if (seen[slot] != a) { seen[slot] = a; dir[slot] = 0; }                                  \
    dir[slot] ^= 1;                                                                          \
    return dir[slot] == 0;                                                                   \
}                                                                                            \
/* s (m) = A x, A row-major m x k (k >= 8) with row stride lda: eight rows at a time \
   (a last block of fewer reads its last row again and drops those sums), the last \
   columns from each row's last eight with the lanes already summed masked out (not \
   multiplied by zero, which would turn an inf there into a nan). */                              \
__attribute__((optimize("fp-contract=fast")))                                                \
static void og_small_gemv_n_##t(npy_intp m, npy_intp k, const T *a, npy_intp lda,           \
                                const T *x, T *s) {                                          \
    const npy_intp k8 = k & ~(npy_intp)7;                                                    \
    og_v8##t xt = {0};                                                                       \
    og_v8i##t keep = {0};                                                                    \
    if (k8 < k) {                                                                            \
        xt = og_ld8##t(x + k - 8);                                                           \
        for (int l = 0; l < 8; l++) keep[l] = k - 8 + l >= k8 ? -1 : 0;                      \
    }                                                                                        \
    const npy_intp nblk = (m + 7) / 8;                                                       \
    const int rev = og_zigzag_##t(a, m * k * (npy_intp)sizeof(T));                           \
    for (npy_intp b = 0; b < nblk; b++) {                                                    \
        const npy_intp i = 8 * (rev ? nblk - 1 - b : b);                                     \
        const int nr = m - i < 8 ? (int)(m - i) : 8;                                         \
        const T *p[8];                                                                       \
        for (int r = 0; r < 8; r++) p[r] = a + (i + (r < nr ? r : nr - 1)) * lda;            \
        og_v8##t c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0}, c4 = {0}, c5 = {0}, c6 = {0},       \
                 c7 = {0};                                                                   \
        for (npy_intp j = 0; j < k8; j += 8) {                                               \
            const og_v8##t xv = og_ld8##t(x + j);                                            \
            c0 += og_ld8##t(p[0] + j) * xv; c1 += og_ld8##t(p[1] + j) * xv;                  \
            c2 += og_ld8##t(p[2] + j) * xv; c3 += og_ld8##t(p[3] + j) * xv;                  \
            c4 += og_ld8##t(p[4] + j) * xv; c5 += og_ld8##t(p[5] + j) * xv;                  \
            c6 += og_ld8##t(p[6] + j) * xv; c7 += og_ld8##t(p[7] + j) * xv;                  \
        }                                                                                    \
        if (k8 < k) {                                                                        \
            const npy_intp j = k - 8;                                                        \
            c0 += OG_LANES##t(og_ld8##t(p[0] + j) * xt, keep);                               \
            c1 += OG_LANES##t(og_ld8##t(p[1] + j) * xt, keep);                               \
            c2 += OG_LANES##t(og_ld8##t(p[2] + j) * xt, keep);                               \
            c3 += OG_LANES##t(og_ld8##t(p[3] + j) * xt, keep);                               \
            c4 += OG_LANES##t(og_ld8##t(p[4] + j) * xt, keep);                               \
            c5 += OG_LANES##t(og_ld8##t(p[5] + j) * xt, keep);                               \
            c6 += OG_LANES##t(og_ld8##t(p[6] + j) * xt, keep);                               \
            c7 += OG_LANES##t(og_ld8##t(p[7] + j) * xt, keep);                               \
        }                                                                                    \
        const og_v8##t sum = og_hsum8##t(c0, c1, c2, c3, c4, c5, c6, c7);                    \
        if (nr == 8) memcpy(s + i, &sum, VB);                                                \
        else for (int r = 0; r < nr; r++) s[i + r] = sum[r];                                 \
    }                                                                                        \
}                                                                                            \
/* s (nb * 8) = A^T x for nb <= 4 blocks of eight columns of a row-major A with k rows: \
   even and odd rows summed apart (two chains per block). */                                    \
__attribute__((optimize("fp-contract=fast")))                                                \
static inline void og_small_gemv_tb_##t(int nb, npy_intp k, const T *a, npy_intp lda,       \
                                        const T *x, T *s) {                                  \
    og_v8##t acc[4] = {{0}}, acc2[4] = {{0}};                                                \
    npy_intp j = 0;                                                                          \
    for (; j + 2 <= k; j += 2) {                                                             \
        const T *r0 = a + j * lda, *r1 = r0 + lda;                                           \
        const og_v8##t x0 = (og_v8##t){0} + x[j], x1 = (og_v8##t){0} + x[j + 1];             \
        for (int b = 0; b < nb; b++) {                                                       \
            acc[b] += og_ld8##t(r0 + 8 * b) * x0;                                            \
            acc2[b] += og_ld8##t(r1 + 8 * b) * x1;                                           \
        }                                                                                    \
    }                                                                                        \
    if (j < k) {                                                                             \
        const og_v8##t x0 = (og_v8##t){0} + x[j];                                            \
        for (int b = 0; b < nb; b++) acc[b] += og_ld8##t(a + j * lda + 8 * b) * x0;          \
    }                                                                                        \
    for (int b = 0; b < nb; b++) {                                                           \
        const og_v8##t v = acc[b] + acc2[b];                                                 \
        memcpy(s + 8 * b, &v, VB);                                                           \
    }                                                                                        \
}                                                                                            \
/* s (m) = A^T x, A row-major k x m (m >= 8): the last columns from the last eight. */       \
static void og_small_gemv_t_##t(npy_intp m, npy_intp k, const T *a, npy_intp lda,           \
                                const T *x, T *s) {                                          \
    npy_intp i = 0;                                                                          \
    for (; i + 32 <= m; i += 32) og_small_gemv_tb_##t(4, k, a + i, lda, x, s + i);           \
    for (; i + 8 <= m; i += 8) og_small_gemv_tb_##t(1, k, a + i, lda, x, s + i);             \
    if (i < m) {                                                                             \
        T last[8];                                                                           \
        og_small_gemv_tb_##t(1, k, a + m - 8, lda, x, last);                                 \
        for (npy_intp l = i; l < m; l++) s[l] = last[l - (m - 8)];                           \
    }                                                                                        \
}                                                                                            \
/* y = beta * y + alpha * A x through the loops above when A is small enough (x \
   gathered when strided); 0 when BLAS should do it. */                                        \
static int og_small_gemv_##t(npy_intp m, npy_intp k, T alpha, const T *a, og_blasint lda,    \
                             int tra, const T *x, og_blasint incx, T beta, T *y,             \
                             og_blasint incy) {                                              \
    if (m > 1024 || k > 1024 || (tra ? m < 8 || m * k > OG_SMALL_T : k < 8 || m * k > OG_SMALL_N)) \
        return 0;                                                                            \
    T xs[1024], s[1024];                                                                     \
    if (incx != 1) {                                                                         \
        for (npy_intp j = 0; j < k; j++) xs[j] = x[j * incx];                                \
        x = xs;                                                                              \
    }                                                                                        \
    if (tra) og_small_gemv_t_##t(m, k, a, lda, x, s);                                        \
    else og_small_gemv_n_##t(m, k, a, lda, x, s);                                            \
    if (beta == 0)                                                                           \
        for (npy_intp i = 0; i < m; i++) y[i * incy] = alpha * s[i];                         \
    else if (alpha == 1 && beta == 1)                                                        \
        for (npy_intp i = 0; i < m; i++) y[i * incy] += s[i];                                \
    else                                                                                     \
        for (npy_intp i = 0; i < m; i++) y[i * incy] = beta * y[i * incy] + alpha * s[i];    \
    return 1;                                                                                \
}
typedef npy_int64 og_v8id __attribute__((vector_size(64)));
typedef npy_int32 og_v8is __attribute__((vector_size(32)));
/* v where the lanes of mask are all ones, +0 elsewhere */
#define OG_LANESd(v, mask) ((og_v8d)((og_v8id)(v) & (mask)))
#define OG_LANESs(v, mask) ((og_v8s)((og_v8is)(v) & (mask)))
OG_SMALL_GEMV(d, double, 64)
OG_SMALL_GEMV(s, float, 32)
#else
#define og_small_gemv_d(m, k, alpha, a, lda, tra, x, incx, beta, y, incy) 0
#define og_small_gemv_s(m, k, alpha, a, lda, tra, x, incx, beta, y, incy) 0
#endif

/* Products whose operands hold subnormals.  A multiplication by a subnormal
   (or one whose result is subnormal) costs this CPU a microcode assist, up to
   a hundred times a normal one: a weight gradient summed over the steps of a
   loop whose cotangent decays through the subnormal range (the stacked
   deltas' rows) spends most of a GEMM there.  So when one operand has, along
   the summed dimension K, slices holding entries below 2^-shift in magnitude
   ("small": subnormals and the tiny normals whose products would underflow),
   the product is formed as the sum of two:
     C = beta C + alpha (X_rest @ Y) + (alpha 2^-shift) (X_small' @ Y_S)
   where X_rest is the operand with its small entries zeroed, X_small' holds
   those entries times 2^shift over the slices S that have one, and Y_S the
   other operand's slices S.  Every entry goes to exactly one part and both
   scalings are exact powers of two, so the result equals the product to
   rounding (a GEMM's summation order is unspecified anyway) and a result in
   the subnormal range is rounded there, never flushed to zero.  Anything the
   split could change is left to the plain product: alpha too small for the
   scaled alpha to stay normal, or Y_S holding an inf, a nan or an entry above
   2^(bias/2) (0 * inf, or an overflow of the scaled sum).  Detecting small
   entries is one O(mk + kn) pass, done only for products large enough that it
   is cheap against the O(mnk) product (OG_TINY_GEMM_MIN: 128 x 128 outputs). */
#define OG_TINY_GEMM(t, T, U, S, MBITS, EMASK, BIAS, SHIFT)                                  \
/* 1 when v is nonzero and below 2^-SHIFT in magnitude (exponent field below \
   BIAS - SHIFT; nan and inf never are). */                                                  \
static inline int og_small_##t(T v) {                                                        \
    U b; memcpy(&b, &v, sizeof b);                                                           \
    b &= ~((U)1 << (sizeof(U) * 8 - 1));                                                     \
    return (U)(b - 1) < ((U)(BIAS - SHIFT) << MBITS) - 1;                                    \
}                                                                                            \
/* 1 when v is finite and below 2^(BIAS/2) in magnitude. */                                  \
static inline int og_tame_##t(T v) {                                                         \
    U b; memcpy(&b, &v, sizeof b);                                                           \
    return ((b >> MBITS) & EMASK) < (U)(BIAS + BIAS / 2);                                    \
}                                                                                            \
/* Whether the n contiguous entries at p hold a small one: written so the \
   compiler vectorises it (signed compares of the magnitude bits), as this \
   pass runs before every large enough product. */                                           \
static OG_VECTORIZE int og_any_small_##t(const T *p, npy_intp n) {                          \
    const U mask = ~((U)1 << (sizeof(U) * 8 - 1));                                           \
    const S lim = (S)((U)(BIAS - SHIFT) << MBITS);                                           \
    U any = 0;                                                                               \
    for (npy_intp i = 0; i < n; i++) {                                                       \
        U b; memcpy(&b, p + i, sizeof b);                                                    \
        const S m = (S)(b & mask);                                                           \
        any |= (U)((m < lim) & (m != 0));                                                    \
    }                                                                                        \
    return any != 0;                                                                         \
}                                                                                            \
/* Whether the r x k operand (entry (i, l) at p[i * sr + l * sk]) has a small \
   entry; with f, f[l] = 1 for each slice l holding one. */                                  \
static int og_tiny_slices_##t(const T *p, npy_intp r, npy_intp k, npy_intp sr, npy_intp sk, \
                              unsigned char *f) {                                            \
    int any = 0;                                                                             \
    if (sr == 1 || sk != 1) {                                                                \
        for (npy_intp l = 0; l < k; l++) {                                                   \
            int s = 0;                                                                       \
            for (npy_intp i = 0; i < r; i++) s |= og_small_##t(p[i * sr + l * sk]);          \
            if (f) f[l] = (unsigned char)s;                                                  \
            any |= s;                                                                        \
        }                                                                                    \
    } else {                                                                                 \
        if (f) memset(f, 0, (size_t)k);                                                      \
        for (npy_intp i = 0; i < r; i++) {                                                   \
            const T *row = p + i * sr;                                                       \
            int s = 0;                                                                       \
            for (npy_intp l = 0; l < k; l++) s |= og_small_##t(row[l]);                      \
            if (s && f) for (npy_intp l = 0; l < k; l++) f[l] |= og_small_##t(row[l]);       \
            any |= s;                                                                        \
        }                                                                                    \
    }                                                                                        \
    return any;                                                                              \
}                                                                                            \
/* Whether the operand has a small entry: contiguous runs through og_any_small. */          \
static int og_tiny_any_##t(const T *p, npy_intp r, npy_intp k, npy_intp sr, npy_intp sk) {  \
    if (sk == 1 && sr == k) return og_any_small_##t(p, r * k);                               \
    if (sr == 1 && sk == r) return og_any_small_##t(p, r * k);                               \
    if (sk == 1) {                                                                           \
        for (npy_intp i = 0; i < r; i++) if (og_any_small_##t(p + i * sr, k)) return 1;      \
        return 0;                                                                            \
    }                                                                                        \
    if (sr == 1) {                                                                           \
        for (npy_intp l = 0; l < k; l++) if (og_any_small_##t(p + l * sk, r)) return 1;      \
        return 0;                                                                            \
    }                                                                                        \
    return og_tiny_slices_##t(p, r, k, sr, sk, NULL);                                        \
}                                                                                            \
/* The split product when x (rx x k, entry (i, l) at x[i * xr + l * xk]) has \
   small entries and y (ry x k, the other operand seen with K last) is tame \
   on those slices: c = beta c + alpha op(x, y), where x_is_a says whether x \
   is the left operand.  0 (nothing written) when the split does not apply. */              \
static int og_tiny_split_##t(int x_is_a, npy_intp m, npy_intp n, npy_intp k, T alpha,      \
                             const T *x, npy_intp xr, npy_intp xk, const T *y, npy_intp yr,  \
                             npy_intp yk, const T *a, og_blasint lda, int tra, const T *b,   \
                             og_blasint ldb, int trb, T beta, T *c, og_blasint ldc) {        \
    const npy_intp rx = x_is_a ? m : n, ry = x_is_a ? n : m;                                 \
    unsigned char *f = (unsigned char *)malloc((size_t)k + (size_t)k * sizeof(npy_intp));   \
    if (!f) return 0;                                                                        \
    npy_intp *S = (npy_intp *)(f + k), ns = 0;                                               \
    og_tiny_slices_##t(x, rx, k, xr, xk, f);                                                 \
    for (npy_intp l = 0; l < k; l++) if (f[l]) S[ns++] = l;                                  \
    T *rest = (T *)malloc(sizeof(T) * (size_t)(rx * k + rx * ns + ry * ns));                 \
    if (!rest) { free(f); return 0; }                                                        \
    T *xs = rest + rx * k, *ys = xs + rx * ns;                                               \
    int ok = 1;                                                                              \
    for (npy_intp i = 0; i < ry && ok; i++)                                                  \
        for (npy_intp s = 0; s < ns; s++) {                                                  \
            const T v = y[i * yr + S[s] * yk];                                               \
            ok &= og_tame_##t(v);                                                            \
            ys[i * ns + s] = v;                                                              \
        }                                                                                    \
    if (ok) {                                                                                \
        for (npy_intp i = 0; i < rx; i++) {                                                  \
            for (npy_intp l = 0; l < k; l++) rest[i * k + l] = x[i * xr + l * xk];           \
            for (npy_intp s = 0; s < ns; s++) {                                              \
                T *v = rest + i * k + S[s];                                                  \
                const int small = og_small_##t(*v);                                          \
                xs[i * ns + s] = small ? (T)ldexp((double)*v, SHIFT) : (T)0;                 \
                if (small) *v = 0;                                                           \
            }                                                                                \
        }                                                                                    \
        const T scaled = (T)ldexp((double)alpha, -SHIFT);                                    \
        if (x_is_a) {                                                                        \
            @PREFIX@cblas_##t##gemm@SUFFIX@(OG_ROW, OG_NOTRANS, trb ? OG_TRANS : OG_NOTRANS, m, n, k, \
                alpha, rest, k, b, ldb, beta, c, ldc);                                       \
            @PREFIX@cblas_##t##gemm@SUFFIX@(OG_ROW, OG_NOTRANS, OG_TRANS, m, n, ns, scaled,  \
                xs, ns, ys, ns, 1, c, ldc);                                                  \
        } else {                                                                             \
            @PREFIX@cblas_##t##gemm@SUFFIX@(OG_ROW, tra ? OG_TRANS : OG_NOTRANS, OG_TRANS, m, n, k, \
                alpha, a, lda, rest, k, beta, c, ldc);                                       \
            @PREFIX@cblas_##t##gemm@SUFFIX@(OG_ROW, OG_NOTRANS, OG_TRANS, m, n, ns, scaled,  \
                ys, ns, xs, ns, 1, c, ldc);                                                  \
        }                                                                                    \
    }                                                                                        \
    free(rest);                                                                              \
    free(f);                                                                                 \
    return ok;                                                                               \
}                                                                                            \
/* c = beta c + alpha op(a) op(b) split as above when a (else b) has small \
   entries; 0 when the plain product should run. */                                          \
static int og_tiny_gemm_##t(npy_intp m, npy_intp n, npy_intp k, T alpha, const T *a,        \
                            og_blasint lda, int tra, const T *b, og_blasint ldb, int trb,    \
                            T beta, T *c, og_blasint ldc) {                                  \
    if (m * n < OG_TINY_GEMM_MIN * (m + n)) return 0;                                        \
    if (!(fabs((double)alpha) >= ldexp(1.0, SHIFT + 2 - BIAS)) || !og_tame_##t(alpha))       \
        return 0;                                                                            \
    /* a (m x k): (i, l) at a[i * lda + l] (tra: a[l * lda + i]); b seen as n x k */          \
    const npy_intp ar = tra ? 1 : lda, ak = tra ? lda : 1;                                   \
    const npy_intp br = trb ? ldb : 1, bk = trb ? 1 : ldb;                                   \
    if (og_tiny_any_##t(a, m, k, ar, ak))                                                    \
        return og_tiny_split_##t(1, m, n, k, alpha, a, ar, ak, b, br, bk, a, lda, tra, b,   \
                                 ldb, trb, beta, c, ldc);                                    \
    if (og_tiny_any_##t(b, n, k, br, bk))                                                    \
        return og_tiny_split_##t(0, m, n, k, alpha, b, br, bk, a, ar, ak, a, lda, tra, b,   \
                                 ldb, trb, beta, c, ldc);                                    \
    return 0;                                                                                \
}
#if defined(OG_FLUSH_SUBNORMALS) && OG_FLUSH_SUBNORMALS
/* config.fast_math: the CPU flushes subnormals itself (runtime/fpenv.c) */
#define og_tiny_gemm_d(m, n, k, alpha, a, lda, tra, b, ldb, trb, beta, c, ldc) 0
#define og_tiny_gemm_s(m, n, k, alpha, a, lda, tra, b, ldb, trb, beta, c, ldc) 0
#else
/* the pass costs about 0.1 ns an entry, a product about 0.03 ns a multiply-add:
   products with m n >= 64 (m + n) (128 x 128 and up) pay at most a few percent */
#define OG_TINY_GEMM_MIN 64
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define OG_VECTORIZE __attribute__((optimize("O3"), target("prefer-vector-width=512")))
#elif defined(__GNUC__) && !defined(__clang__)
#define OG_VECTORIZE __attribute__((optimize("O3")))
#else
#define OG_VECTORIZE
#endif
OG_TINY_GEMM(d, double, npy_uint64, npy_int64, 52, 0x7ff, 1023, 600)
OG_TINY_GEMM(s, float, npy_uint32, npy_int32, 23, 0xff, 127, 80)
#endif

/* The typed entry points: gemm/gemv/dot on operands described by (pointer,
   leading dimension or increment, transpose flag), with empty shapes handled
   here (BLAS rejects them) and alpha == 0 still forming the product, so an
   inf or nan in an operand gives nan as NumPy's alpha * (x @ y) does. */
#define OG_BLAS_FUNCS(t, T)                                                                  \
static void og_gemm_##t(npy_intp m, npy_intp n, npy_intp k, T alpha, const T *a,            \
                        og_blasint lda, int tra, const T *b, og_blasint ldb, int trb, T beta, \
                        T *c, og_blasint ldc) {                                              \
    if (m <= 0 || n <= 0) return;                                                            \
    if (k <= 0) {                                                                            \
        for (npy_intp i = 0; i < m; i++)                                                     \
            for (npy_intp j = 0; j < n; j++)                                                 \
                c[i * ldc + j] = (beta == 0 ? (T)0 : beta * c[i * ldc + j]) + alpha * (T)0;  \
        return;                                                                              \
    }                                                                                        \
    if (og_tiny_gemm_##t(m, n, k, alpha, a, lda, tra, b, ldb, trb, beta, c, ldc)) return;    \
    @PREFIX@cblas_##t##gemm@SUFFIX@(OG_ROW, tra ? OG_TRANS : OG_NOTRANS, trb ? OG_TRANS : OG_NOTRANS,    \
                        m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);                       \
}                                                                                            \
/* y (m) = beta * y + alpha * A x, A an m x k matrix stored as (lda, tra). */                \
static void og_gemv_##t(npy_intp m, npy_intp k, T alpha, const T *a, og_blasint lda, int tra, \
                        const T *x, og_blasint incx, T beta, T *y, og_blasint incy) {        \
    if (m <= 0) return;                                                                      \
    if (k <= 0) {                                                                            \
        for (npy_intp i = 0; i < m; i++)                                                     \
            y[i * incy] = (beta == 0 ? (T)0 : beta * y[i * incy]) + alpha * (T)0;            \
        return;                                                                              \
    }                                                                                        \
    if (og_small_gemv_##t(m, k, alpha, a, lda, tra, x, incx, beta, y, incy)) return;        \
    if (!tra)                                                                                \
        @PREFIX@cblas_##t##gemv@SUFFIX@(OG_ROW, OG_NOTRANS, m, k, alpha, a, lda, x, incx, beta, y, incy);\
    else                                                                                     \
        @PREFIX@cblas_##t##gemv@SUFFIX@(OG_ROW, OG_TRANS, k, m, alpha, a, lda, x, incx, beta, y, incy);  \
}                                                                                            \
static T og_dot_##t(npy_intp n, const T *x, og_blasint incx, const T *y, og_blasint incy) {  \
    return n > 0 ? @PREFIX@cblas_##t##dot@SUFFIX@(n, x, incx, y, incy) : (T)0;                           \
}                                                                                            \
/* out (m x n, row- or column-major) = beta * out + alpha * x @ y. */                        \
static int og_gemm_into_##t(PyArrayObject *out, T alpha, const T *x, og_blasint ldx,        \
                            int trx, const T *y, og_blasint ldy, int try_, T beta,           \
                            npy_intp m, npy_intp n, npy_intp k) {                            \
    int trc = 0;                                                                             \
    og_blasint ldc = og_ld(out, &trc);                                                       \
    T *c = (T *)PyArray_DATA(out);                                                           \
    if (!ldc) ldc = (og_blasint)(n > 1 ? n : 1);                                             \
    if (alpha == 0 && m > 0 && n > 0 && k > 0) {                                             \
        T *tmp = (T *)PyMem_Malloc((size_t)(m * n) * sizeof(T));                             \
        if (!tmp) { PyErr_NoMemory(); return -1; }                                           \
        og_gemm_##t(m, n, k, 1, x, ldx, trx, y, ldy, try_, 0, tmp, (og_blasint)n);            \
        for (npy_intp i = 0; i < m; i++)                                                     \
            for (npy_intp j = 0; j < n; j++) {                                               \
                T *cij = trc ? c + j * ldc + i : c + i * ldc + j;                            \
                *cij = (beta == 0 ? (T)0 : beta * *cij) + alpha * tmp[i * n + j];            \
            }                                                                                \
        PyMem_Free(tmp);                                                                     \
        return 0;                                                                            \
    }                                                                                        \
    if (trc) /* column-major out: out^T = beta * out^T + alpha * y^T x^T */                  \
        og_gemm_##t(n, m, k, alpha, y, ldy, !try_, x, ldx, !trx, beta, c, ldc);              \
    else                                                                                     \
        og_gemm_##t(m, n, k, alpha, x, ldx, trx, y, ldy, try_, beta, c, ldc);                \
    return 0;                                                                                \
}                                                                                            \
/* out (m, stride incy) = beta * out + alpha * A @ x. */                                     \
static int og_gemv_into_##t(T *out, og_blasint incy, T alpha, const T *a, og_blasint lda,   \
                            int tra, const T *x, og_blasint incx, T beta, npy_intp m,        \
                            npy_intp k) {                                                    \
    if (incy <= 0) incy = 1;                                                                 \
    if (alpha == 0 && m > 0 && k > 0) {                                                      \
        T *tmp = (T *)PyMem_Malloc((size_t)m * sizeof(T));                                   \
        if (!tmp) { PyErr_NoMemory(); return -1; }                                           \
        og_gemv_##t(m, k, 1, a, lda, tra, x, incx, 0, tmp, 1);                               \
        for (npy_intp i = 0; i < m; i++)                                                     \
            out[i * incy] = (beta == 0 ? (T)0 : beta * out[i * incy]) + alpha * tmp[i];      \
        PyMem_Free(tmp);                                                                     \
        return 0;                                                                            \
    }                                                                                        \
    og_gemv_##t(m, k, alpha, a, lda, tra, x, incx, beta, out, incy);                         \
    return 0;                                                                                \
}

OG_BLAS_FUNCS(d, double)
OG_BLAS_FUNCS(s, float)

/* Gemm whose z and x @ y differ in shape and broadcast (a length-1 row or
   column on either side): b * z + a * (x @ y) with NumPy's operations, z
   unread when b == 0, the result written into z when inplace and z has the
   broadcast shape.  Rare (only a Gemm built by hand), so not on BLAS. */
static int og_gemm_broadcast(PyArrayObject **o, PyArrayObject *z, PyArrayObject *a,
                             PyArrayObject *x, PyArrayObject *y, PyArrayObject *b,
                             int inplace, int b_is_zero) {
    PyObject *p = PyArray_MatrixProduct2((PyObject *)x, (PyObject *)y, NULL);
    if (!p) return -1;
    PyObject *ap = PyNumber_Multiply((PyObject *)a, p);
    Py_DECREF(p);
    if (!ap) return -1;
    PyObject *bz = b_is_zero
        ? PyArray_Zeros(PyArray_NDIM(z), PyArray_DIMS(z), PyArray_DescrFromType(PyArray_TYPE(z)), 0)
        : PyNumber_Multiply((PyObject *)b, (PyObject *)z);
    if (!bz) { Py_DECREF(ap); return -1; }
    PyObject *r = PyNumber_Add(bz, ap);
    Py_DECREF(bz);
    Py_DECREF(ap);
    if (!r) return -1;
    PyArrayObject *ra = (PyArrayObject *)r;
    if (inplace && PyArray_NDIM(ra) == 2 && PyArray_DIMS(ra)[0] == PyArray_DIMS(z)[0]
            && PyArray_DIMS(ra)[1] == PyArray_DIMS(z)[1]) {
        int bad = PyArray_CopyInto(z, ra) < 0;
        Py_DECREF(r);
        if (bad) return -1;
        Py_INCREF(z);
        r = (PyObject *)z;
    }
    Py_XDECREF(*o);
    *o = (PyArrayObject *)r;
    return 0;
}
#define og_gemm_f og_gemm_s
#define og_gemv_f og_gemv_s
#define og_dot_f og_dot_s
#define og_gemm_into_f og_gemm_into_s
#define og_gemv_into_f og_gemv_into_s

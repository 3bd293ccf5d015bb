/* Draws of a RandomVariable node through NumPy's C random API (numpy/random/distributions.h,
   linked from NumPy's libnpyrandom.a): the functions Generator.normal & co. (and SciPy's
   halfnorm.rvs, through Generator.standard_normal) call, on the
   Generator's own bitgen_t, so a seeded stream gives the very numbers the Python perform
   gives and leaves the Generator in the same state.

   A node's C calls og_rng_draw2 with its distribution's code (OG_RNG_*); NumPy's checks of
   the parameters run first (no draw on bad parameters), then one draw per element of the
   output in C order, each with its broadcast parameters, as NumPy's `cont` loops. */

enum { OG_RNG_NORMAL = 0, OG_RNG_LOGNORMAL = 1, OG_RNG_HALFNORMAL = 2 };

static double og_rng_one(int dist, bitgen_t *b, double p0, double p1) {
    if (dist == OG_RNG_LOGNORMAL) return random_lognormal(b, p0, p1);
    if (dist == OG_RNG_HALFNORMAL) {
        /* scipy.stats.halfnorm.rvs: |standard normal| * scale + loc, two roundings (the
           volatile keeps the compiler from fusing them into one fma) */
        volatile double scaled = fabs(random_standard_normal(b)) * p1;
        return scaled + p0;
    }
    return random_normal(b, p0, p1);
}

/* The name of the second parameter that must not be negative (NumPy's CONS_NON_NEGATIVE). */
static const char *og_rng_nonneg_name(int dist) {
    return dist == OG_RNG_LOGNORMAL ? "sigma" : "scale";
}

/* The bit generator state of a numpy Generator (borrowed: the Generator keeps it alive). */
static bitgen_t *og_rng_bitgen(PyObject *gen) {
    PyObject *bg = PyObject_GetAttrString(gen, "bit_generator");
    if (bg == NULL) {
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "random variable: the rng must be a numpy Generator, "
                     "got %.100s", Py_TYPE(gen)->tp_name);
        return NULL;
    }
    PyObject *cap = PyObject_GetAttrString(bg, "capsule");
    Py_DECREF(bg);
    if (cap == NULL) return NULL;
    bitgen_t *b = (bitgen_t *)PyCapsule_GetPointer(cap, "BitGenerator");
    Py_DECREF(cap);
    return b;
}

/* opgraph.tensor.random.utils.custom_rng_deepcopy(gen): what a non-inplace draw starts from. */
static PyObject *og_rng_copy(PyObject *gen) {
    static PyObject *fn = NULL;
    if (fn == NULL) {
        PyObject *m = PyImport_ImportModule("opgraph.tensor.random.utils");
        if (m == NULL) return NULL;
        fn = PyObject_GetAttrString(m, "custom_rng_deepcopy");
        Py_DECREF(m);
        if (fn == NULL) return NULL;
    }
    return PyObject_CallOneArg(fn, gen);
}

/* The check of the second parameter before any draw: NumPy's CONS_NON_NEGATIVE (NaN passes,
   -0.0 does not: "scale < 0"), or for halfnormal SciPy's (scale >= 0, NaN fails). Sets
   *all_zero when every scale is 0 (SciPy then returns loc without drawing). */
static int og_rng_check(int dist, PyArrayObject *p, int *all_zero) {
    npy_intp n = PyArray_SIZE(p);
    if (!PyArray_IS_C_CONTIGUOUS(p)) {
        PyArrayObject *c = (PyArrayObject *)PyArray_NewCopy(p, NPY_CORDER);
        if (c == NULL) return -1;
        int rc = og_rng_check(dist, c, all_zero);
        Py_DECREF(c);
        return rc;
    }
    const double *d = (const double *)PyArray_DATA(p);
    *all_zero = 0;
    if (dist == OG_RNG_HALFNORMAL) {
        int zero = 1;
        for (npy_intp i = 0; i < n; i++) {
            if (!(d[i] >= 0.0)) {
                PyErr_SetString(PyExc_ValueError, "Domain error in arguments. The `scale` "
                                "parameter must be positive for all distributions (halfnorm)");
                return -1;
            }
            zero &= d[i] == 0.0;
        }
        *all_zero = zero;
        return 0;
    }
    for (npy_intp i = 0; i < n; i++)
        if (!isnan(d[i]) && signbit(d[i])) {
            PyErr_Format(PyExc_ValueError, "%s < 0", og_rng_nonneg_name(dist));
            return -1;
        }
    return 0;
}

/* The draw's shape: `size` (a vector of ints) or, when it is None, the parameters' broadcast
   shape. Returns the number of axes, or -1 with an exception. */
static int og_rng_shape(PyObject *size, PyArrayObject *a, PyArrayObject *b, npy_intp *dims) {
    if (size == Py_None) {
        int nd = PyArray_NDIM(a) > PyArray_NDIM(b) ? PyArray_NDIM(a) : PyArray_NDIM(b);
        for (int k = 0; k < nd; k++) {
            int ka = k - (nd - PyArray_NDIM(a)), kb = k - (nd - PyArray_NDIM(b));
            npy_intp da = ka >= 0 ? PyArray_DIMS(a)[ka] : 1;
            npy_intp db = kb >= 0 ? PyArray_DIMS(b)[kb] : 1;
            if (da != db && da != 1 && db != 1) {
                PyErr_SetString(PyExc_ValueError, "shape mismatch: objects cannot be "
                                "broadcast to a single shape");
                return -1;
            }
            dims[k] = da == 1 ? db : da;
        }
        return nd;
    }
    PyArrayObject *s = (PyArrayObject *)PyArray_FROMANY(size, NPY_INTP, 1, 1,
                                                        NPY_ARRAY_CARRAY_RO);
    if (s == NULL) return -1;
    int nd = (int)PyArray_DIMS(s)[0];
    if (nd > NPY_MAXDIMS) {
        Py_DECREF(s);
        PyErr_SetString(PyExc_ValueError, "random variable: size has too many entries");
        return -1;
    }
    for (int k = 0; k < nd; k++) {
        dims[k] = ((const npy_intp *)PyArray_DATA(s))[k];
        if (dims[k] < 0) {
            Py_DECREF(s);
            PyErr_SetString(PyExc_ValueError, "negative dimensions are not allowed");
            return -1;
        }
    }
    Py_DECREF(s);
    return nd;
}

/* Fill out (C-ordered double) with draws, the parameters broadcast against it. */
static int og_rng_fill(int dist, bitgen_t *bg, PyArrayObject *out, PyArrayObject *a,
                       PyArrayObject *b, int no_draw) {
    double *o = (double *)PyArray_DATA(out);
    if (no_draw) return PyArray_CopyInto(out, a);  /* every scale 0: loc, broadcast */
    if (PyArray_NDIM(a) == 0 && PyArray_NDIM(b) == 0) {  /* scalar parameters */
        double pa = *(const double *)PyArray_DATA(a), pb = *(const double *)PyArray_DATA(b);
        for (npy_intp i = 0, n = PyArray_SIZE(out); i < n; i++) o[i] = og_rng_one(dist, bg, pa, pb);
        return 0;
    }
    PyArrayMultiIterObject *it = (PyArrayMultiIterObject *)PyArray_MultiIterNew(3, out, a, b);
    if (it == NULL) return -1;
    int same = PyArray_MultiIter_NDIM(it) == PyArray_NDIM(out);
    for (int k = 0; same && k < PyArray_NDIM(out); k++)
        same = PyArray_MultiIter_DIMS(it)[k] == PyArray_DIMS(out)[k];
    if (!same) {
        Py_DECREF(it);
        PyErr_SetString(PyExc_ValueError, "random variable: the parameters do not broadcast "
                        "to the requested size");
        return -1;
    }
    while (PyArray_MultiIter_NOTDONE(it)) {
        *(double *)PyArray_MultiIter_DATA(it, 0) = og_rng_one(
            dist, bg, *(const double *)PyArray_MultiIter_DATA(it, 1),
            *(const double *)PyArray_MultiIter_DATA(it, 2));
        PyArray_MultiIter_NEXT(it);
    }
    Py_DECREF(it);
    return 0;
}

/* One node: (rng, size, p0, p1) -> (rng', draw of typenum). inplace: draw from rng itself,
   else from a copy of it. The outputs are replaced only on success. */
static int og_rng_draw2(int dist, int inplace, int typenum, PyObject *rng, PyObject *size,
                        PyObject *p0, PyObject *p1, PyArrayObject **rng_out,
                        PyArrayObject **draw_out) {
    PyArrayObject *a = (PyArrayObject *)PyArray_FROMANY(p0, NPY_DOUBLE, 0, 0, NPY_ARRAY_ALIGNED);
    PyArrayObject *b = a ? (PyArrayObject *)PyArray_FROMANY(p1, NPY_DOUBLE, 0, 0,
                                                            NPY_ARRAY_ALIGNED) : NULL;
    PyObject *gen = NULL;
    PyArrayObject *out = NULL;
    npy_intp dims[NPY_MAXDIMS];
    int nd, no_draw = 0;
    if (b == NULL || og_rng_check(dist, b, &no_draw) < 0) goto fail;
    if ((nd = og_rng_shape(size, a, b, dims)) < 0) goto fail;
    gen = inplace ? (Py_INCREF(rng), rng) : og_rng_copy(rng);
    if (gen == NULL) goto fail;
    bitgen_t *bg = og_rng_bitgen(gen);
    if (bg == NULL) goto fail;
    out = (PyArrayObject *)PyArray_EMPTY(nd, dims, NPY_DOUBLE, 0);
    if (out == NULL || og_rng_fill(dist, bg, out, a, b, no_draw) < 0) goto fail;
    if (typenum != NPY_DOUBLE) {
        PyArrayObject *cast = (PyArrayObject *)PyArray_Cast(out, typenum);
        Py_DECREF(out);
        out = cast;
        if (out == NULL) goto fail;
    }
    Py_DECREF(a); Py_DECREF(b);
    Py_XSETREF(*rng_out, (PyArrayObject *)gen);
    Py_XSETREF(*draw_out, out);
    return 0;
fail:
    Py_XDECREF(a); Py_XDECREF(b); Py_XDECREF(gen); Py_XDECREF(out);
    return -1;
}

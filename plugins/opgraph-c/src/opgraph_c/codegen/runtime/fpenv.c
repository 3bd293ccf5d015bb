/* The graph's own run function (generated); og_run wraps it.  Under
   config.fast_math (OG_FLUSH_SUBNORMALS) the call flushes subnormal results and
   operands to zero (x86 MXCSR FTZ and DAZ, AArch64 FPCR FZ), as XLA does on CPU:
   arithmetic on a subnormal takes the CPU's slow path, up to a hundred times a
   normal operation, and a gradient decaying through a float32 loop reaches
   them.  The calling thread's control word is restored on return; threads a
   BLAS library starts keep their own. */
static PyObject *og_run_graph(PyObject *cap, PyObject *unused);
#if OG_FLUSH_SUBNORMALS && (defined(__x86_64__) || defined(__SSE2__))
#include <xmmintrin.h>
static PyObject *og_run(PyObject *cap, PyObject *unused) {
    unsigned int saved = _mm_getcsr();
    _mm_setcsr(saved | 0x8040u);  /* FTZ (bit 15) and DAZ (bit 6) */
    PyObject *r = og_run_graph(cap, unused);
    _mm_setcsr(saved);
    return r;
}
#elif OG_FLUSH_SUBNORMALS && defined(__aarch64__)
static PyObject *og_run(PyObject *cap, PyObject *unused) {
    unsigned long long saved;
    __asm__ volatile("mrs %0, fpcr" : "=r"(saved));
    __asm__ volatile("msr fpcr, %0" : : "r"(saved | (1ULL << 24)));  /* FZ */
    PyObject *r = og_run_graph(cap, unused);
    __asm__ volatile("msr fpcr, %0" : : "r"(saved));
    return r;
}
#else
static PyObject *og_run(PyObject *cap, PyObject *unused) { return og_run_graph(cap, unused); }
#endif

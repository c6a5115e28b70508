/* Non-contiguous tensors (guidance in skills/, no rule): reading a row-major
 * matrix along rows (consecutive threads read consecutive addresses:
 * coalesced) vs along columns (consecutive threads read addresses a row
 * apart: strided, as a transposed view is read). Effective bandwidth of a
 * copy kernel of each kind. */
#include "bench.h"

#define ROWS 8192
#define COLS 8192

/* dst[i] = src[i]: thread i reads element i. */
__global__ void copy_contiguous(const float *src, float *dst, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (; i < n; i += (size_t)gridDim.x * blockDim.x)
		dst[i] = src[i];
}

/* dst[i] = src^T[i]: thread i reads element (i % ROWS, i / ROWS), a row apart
 * from its neighbour's; writes stay contiguous. */
__global__ void copy_strided(const float *src, float *dst, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (; i < n; i += (size_t)gridDim.x * blockDim.x)
		dst[i] = src[(i % ROWS) * COLS + i / ROWS];
}

int main(void)
{
	size_t n = (size_t)ROWS * COLS, bytes = n * sizeof(float);
	float *src, *dst;
	cudaStream_t s;
	BenchTimer t;
	CHECK(cudaMalloc((void **)&src, bytes));
	CHECK(cudaMalloc((void **)&dst, bytes));
	CHECK(cudaMemset(src, 0, bytes));
	CHECK(cudaStreamCreate(&s));
	bench_timer_init(&t);
	double cv[BENCH_REPS], sv[BENCH_REPS];
	copy_contiguous<<<2048, 256, 0, s>>>(src, dst, n); /* warm-up */
	copy_strided<<<2048, 256, 0, s>>>(src, dst, n);
	for (int r = 0; r < BENCH_REPS; r++) {
		bench_timer_begin(&t, s);
		copy_contiguous<<<2048, 256, 0, s>>>(src, dst, n);
		cv[r] = bench_timer_end(&t, s);
		bench_timer_begin(&t, s);
		copy_strided<<<2048, 256, 0, s>>>(src, dst, n);
		sv[r] = bench_timer_end(&t, s);
	}
	double c = bench_median(cv, BENCH_REPS), st = bench_median(sv, BENCH_REPS);
	bench_begin("strided_vs_contiguous", "coalesced vs strided reads of a matrix in a copy kernel",
		    "(guidance: non-contiguous tensors)");
	bench_num("bytes", (double)bytes);
	bench_num("contiguous_ms", c);
	bench_num("strided_ms", st);
	bench_num("contiguous_GBps", 2.0 * bytes / c / 1e6);
	bench_num("strided_GBps", 2.0 * bytes / st / 1e6);
	bench_num("slowdown", st / c);
	bench_end();
	bench_timer_release(&t);
	cudaFree(src);
	cudaFree(dst);
	return 0;
}

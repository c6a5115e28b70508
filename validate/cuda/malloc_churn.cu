/* TL305 and TL307: cudaMalloc/cudaFree around every step vs one buffer
 * reused (what torch.cuda.empty_cache() every step forces on PyTorch's
 * caching allocator, and what the caching allocator normally avoids), plus
 * the stream-ordered pool allocator (cudaMallocAsync) for comparison. Each
 * step writes the buffer with a kernel so the allocation is really used. */
#include "bench.h"

#define STEPS 200

__global__ void fill(float *x, size_t n)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (; i < n; i += (size_t)gridDim.x * blockDim.x)
		x[i] = 1.0f;
}

/* mode 0: reuse one buffer; 1: cudaMalloc + cudaFree per step; 2: cudaMallocAsync
 * + cudaFreeAsync per step. Milliseconds per step. */
static double run(int mode, size_t bytes, cudaStream_t s, BenchTimer *t)
{
	double v[BENCH_REPS];
	size_t n = bytes / sizeof(float);
	float *keep = NULL;
	if (mode == 0)
		CHECK(cudaMalloc((void **)&keep, bytes));
	for (int r = 0; r < BENCH_REPS; r++) {
		bench_timer_begin(t, s);
		for (int i = 0; i < STEPS; i++) {
			float *x = keep;
			if (mode == 1)
				CHECK(cudaMalloc((void **)&x, bytes));
			else if (mode == 2)
				CHECK(cudaMallocAsync((void **)&x, bytes, s));
			fill<<<1024, 256, 0, s>>>(x, n);
			if (mode == 1)
				CHECK(cudaFree(x));
			else if (mode == 2)
				CHECK(cudaFreeAsync(x, s));
		}
		v[r] = bench_timer_end(t, s) / STEPS;
	}
	if (keep)
		cudaFree(keep);
	return bench_median(v, BENCH_REPS);
}

int main(void)
{
	static const size_t sizes[] = { 1u << 20, 64u << 20, 512u << 20 };
	cudaStream_t s;
	BenchTimer t;
	CHECK(cudaStreamCreate(&s));
	bench_timer_init(&t);
	run(0, sizes[0], s, &t); /* warm-up */
	bench_begin("malloc_churn", "cudaMalloc/cudaFree every step vs one reused buffer (and cudaMallocAsync)",
		    "TL305 TL307");
	bench_num("steps", STEPS);
	for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		char key[64];
		double reuse = run(0, sizes[k], s, &t);
		double churn = run(1, sizes[k], s, &t);
		double pool = run(2, sizes[k], s, &t);
		unsigned mib = (unsigned)(sizes[k] >> 20);
		snprintf(key, sizeof key, "reuse_ms_per_step_%uMiB", mib);
		bench_num(key, reuse);
		snprintf(key, sizeof key, "malloc_free_ms_per_step_%uMiB", mib);
		bench_num(key, churn);
		snprintf(key, sizeof key, "malloc_async_ms_per_step_%uMiB", mib);
		bench_num(key, pool);
		snprintf(key, sizeof key, "churn_slowdown_%uMiB", mib);
		bench_num(key, churn / reuse);
	}
	bench_end();
	bench_timer_release(&t);
	return 0;
}

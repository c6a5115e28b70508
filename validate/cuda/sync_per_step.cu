/* TL304: a host sync after every small kernel (what `.item()` does each
 * step) vs launching them back to back and syncing once. Each "step" is
 * STEP_KERNELS short kernels, as a small model's forward and backward are;
 * with a sync per step the host waits for the GPU, then the GPU waits for the
 * host's next launches. Also a 4-byte device-to-host copy per step, which is
 * what `.item()` really issues. */
#include <time.h>

#include "bench.h"

#define STEPS 2000
#define STEP_KERNELS 20

__global__ void tiny(float *x)
{
	x[threadIdx.x] = x[threadIdx.x] * 0.5f + 1.0f;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* mode 0: no per-step sync; 1: cudaStreamSynchronize per step; 2: a 4-byte
 * device-to-host copy per step (synchronous, like .item()). Wall ms per step. */
static double run(int mode, float *dev, float *host, cudaStream_t s)
{
	double v[BENCH_REPS];
	for (int r = 0; r < BENCH_REPS; r++) {
		CHECK(cudaStreamSynchronize(s));
		double t0 = now_ms();
		for (int i = 0; i < STEPS; i++) {
			for (int k = 0; k < STEP_KERNELS; k++)
				tiny<<<1, 32, 0, s>>>(dev);
			if (mode == 1)
				CHECK(cudaStreamSynchronize(s));
			else if (mode == 2) {
				CHECK(cudaMemcpyAsync(host, dev, sizeof(float), cudaMemcpyDeviceToHost, s));
				CHECK(cudaStreamSynchronize(s));
			}
		}
		CHECK(cudaStreamSynchronize(s));
		v[r] = (now_ms() - t0) / STEPS;
	}
	return bench_median(v, BENCH_REPS);
}

int main(void)
{
	float *dev, *host;
	cudaStream_t s;
	CHECK(cudaMalloc(&dev, 32 * sizeof(float)));
	CHECK(cudaMemset(dev, 0, 32 * sizeof(float)));
	CHECK(cudaMallocHost(&host, sizeof(float)));
	CHECK(cudaStreamCreate(&s));
	run(0, dev, host, s); /* warm-up: module load, first launches */
	double none = run(0, dev, host, s);
	double sync = run(1, dev, host, s);
	double item = run(2, dev, host, s);
	bench_begin("sync_per_step", "a host sync after every step of small kernels vs one sync at the end",
		    "TL304");
	bench_num("steps", STEPS);
	bench_num("kernels_per_step", STEP_KERNELS);
	bench_num("no_sync_ms_per_step", none);
	bench_num("stream_sync_ms_per_step", sync);
	bench_num("item_copy_ms_per_step", item);
	bench_num("sync_slowdown", sync / none);
	bench_num("item_slowdown", item / none);
	bench_end();
	cudaFreeHost(host);
	cudaFree(dev);
	return 0;
}

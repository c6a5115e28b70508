/* TL301: creating a tensor on the host and copying it (`torch.zeros(n).cuda()`:
 * host allocation, host fill, pageable copy) vs filling it on the device
 * (`torch.zeros(n, device="cuda")`: one kernel). Milliseconds per tensor. */
#include <time.h>

#include "bench.h"

__global__ void fill(float *x, size_t n, float value)
{
	size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	for (; i < n; i += (size_t)gridDim.x * blockDim.x)
		x[i] = value;
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void)
{
	static const size_t sizes[] = { 1u << 20, 16u << 20, 64u << 20 };
	float *dev;
	cudaStream_t s;
	CHECK(cudaStreamCreate(&s));
	CHECK(cudaMalloc((void **)&dev, sizes[2]));
	fill<<<1024, 256, 0, s>>>(dev, sizes[2] / sizeof(float), 0.0f); /* warm-up */
	CHECK(cudaStreamSynchronize(s));
	bench_begin("host_fill_vs_device_fill", "host allocation + fill + copy vs a device fill", "TL301");
	for (unsigned k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		size_t bytes = sizes[k], n = bytes / sizeof(float);
		double hv[BENCH_REPS], dv[BENCH_REPS];
		for (int r = 0; r < BENCH_REPS; r++) {
			double t0 = now_ms();
			float *host = (float *)malloc(bytes);
			if (!host)
				return 1;
			for (size_t i = 0; i < n; i++)
				host[i] = 0.0f;
			CHECK(cudaMemcpyAsync(dev, host, bytes, cudaMemcpyHostToDevice, s));
			CHECK(cudaStreamSynchronize(s));
			free(host);
			hv[r] = now_ms() - t0;
			t0 = now_ms();
			fill<<<1024, 256, 0, s>>>(dev, n, 0.0f);
			CHECK(cudaStreamSynchronize(s));
			dv[r] = now_ms() - t0;
		}
		char key[64];
		unsigned mib = (unsigned)(bytes >> 20);
		double h = bench_median(hv, BENCH_REPS), d = bench_median(dv, BENCH_REPS);
		snprintf(key, sizeof key, "host_fill_copy_ms_%uMiB", mib);
		bench_num(key, h);
		snprintf(key, sizeof key, "device_fill_ms_%uMiB", mib);
		bench_num(key, d);
		snprintf(key, sizeof key, "slowdown_%uMiB", mib);
		bench_num(key, h / d);
	}
	bench_end();
	cudaFree(dev);
	return 0;
}

/* TL306 (and the copy behind TL301, TL302): host-to-device copies from
 * pageable vs pinned host memory. Measures the copy bandwidth of each, then
 * how much of an asynchronous copy overlaps a kernel running on another
 * stream: overlap = (kernel alone + copy alone - both together) / copy alone,
 * 1 when the copy is fully hidden, 0 when it is serialised. */
#include "bench.h"

#define BYTES (256u << 20)

static double copy_ms(void *dst, const void *src, cudaStream_t s, BenchTimer *t)
{
	double v[BENCH_REPS];
	for (int i = 0; i < BENCH_REPS; i++) {
		bench_timer_begin(t, s);
		CHECK(cudaMemcpyAsync(dst, src, BYTES, cudaMemcpyHostToDevice, s));
		v[i] = bench_timer_end(t, s);
	}
	return bench_median(v, BENCH_REPS);
}

/* Wall time of a kernel on `ks` plus a copy on `cs`, issued together. */
static double together_ms(void *dst, const void *src, cudaStream_t ks, cudaStream_t cs, long long cycles,
			  BenchTimer *t)
{
	double v[BENCH_REPS];
	cudaEvent_t copied;
	CHECK(cudaEventCreate(&copied));
	for (int i = 0; i < BENCH_REPS; i++) {
		CHECK(cudaDeviceSynchronize());
		bench_timer_begin(t, ks);
		bench_spin<<<1, 32, 0, ks>>>(cycles, NULL);
		CHECK(cudaMemcpyAsync(dst, src, BYTES, cudaMemcpyHostToDevice, cs));
		CHECK(cudaEventRecord(copied, cs));
		CHECK(cudaStreamWaitEvent(ks, copied, 0));
		v[i] = bench_timer_end(t, ks);
	}
	cudaEventDestroy(copied);
	return bench_median(v, BENCH_REPS);
}

static double kernel_ms(cudaStream_t s, long long cycles, BenchTimer *t)
{
	double v[BENCH_REPS];
	for (int i = 0; i < BENCH_REPS; i++) {
		bench_timer_begin(t, s);
		bench_spin<<<1, 32, 0, s>>>(cycles, NULL);
		v[i] = bench_timer_end(t, s);
	}
	return bench_median(v, BENCH_REPS);
}

int main(void)
{
	void *dev, *pinned, *pageable;
	cudaStream_t ks, cs;
	BenchTimer t;
	CHECK(cudaMalloc(&dev, BYTES));
	CHECK(cudaMallocHost(&pinned, BYTES));
	pageable = malloc(BYTES);
	if (!pageable)
		return 1;
	memset(pageable, 1, BYTES);
	memset(pinned, 1, BYTES);
	CHECK(cudaStreamCreateWithFlags(&ks, cudaStreamNonBlocking));
	CHECK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
	bench_timer_init(&t);

	double pageable_ms = copy_ms(dev, pageable, cs, &t);
	double pinned_ms = copy_ms(dev, pinned, cs, &t);
	/* A kernel about as long as the pinned copy, found by calibration. */
	long long cycles = 1000000;
	double k = kernel_ms(ks, cycles, &t);
	if (k > 0)
		cycles = (long long)(cycles * (pinned_ms / k));
	k = kernel_ms(ks, cycles, &t);
	double both_pageable = together_ms(dev, pageable, ks, cs, cycles, &t);
	double both_pinned = together_ms(dev, pinned, ks, cs, cycles, &t);

	bench_begin("pinned_vs_pageable", "host-to-device copy from pageable vs pinned memory, and its overlap "
					  "with a kernel on another stream",
		    "TL306 TL301 TL302");
	bench_num("bytes", BYTES);
	bench_num("pageable_copy_ms", pageable_ms);
	bench_num("pinned_copy_ms", pinned_ms);
	bench_num("pageable_GBps", BYTES / pageable_ms / 1e6);
	bench_num("pinned_GBps", BYTES / pinned_ms / 1e6);
	bench_num("kernel_ms", k);
	bench_num("kernel_and_pageable_copy_ms", both_pageable);
	bench_num("kernel_and_pinned_copy_ms", both_pinned);
	bench_num("pageable_overlap", (k + pageable_ms - both_pageable) / pageable_ms);
	bench_num("pinned_overlap", (k + pinned_ms - both_pinned) / pinned_ms);
	bench_end();

	bench_timer_release(&t);
	free(pageable);
	cudaFreeHost(pinned);
	cudaFree(dev);
	return 0;
}

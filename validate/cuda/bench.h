/* Shared helpers for the CUDA microbenchmarks in validate/cuda/: error
 * checks, event timing, medians and a small JSON writer. Each benchmark
 * prints one JSON object on stdout; validate/run.py --cuda-bench stores it
 * in validate/results/<device>/cuda-<name>.json. */
#ifndef TL_BENCH_H
#define TL_BENCH_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(call)                                                                        \
	do {                                                                               \
		cudaError_t err_ = (call);                                                 \
		if (err_ != cudaSuccess) {                                                 \
			fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,     \
				cudaGetErrorString(err_));                                 \
			exit(1);                                                           \
		}                                                                          \
	} while (0)

/* Repetitions of every measurement; the median is reported, which keeps one
 * slow outlier (a page fault, a clock change) from deciding a result. */
#define BENCH_REPS 21

static inline int bench_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Median of n values; reorders them. */
static inline double bench_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, bench_cmp_double);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

typedef struct {
	cudaEvent_t start, stop;
} BenchTimer;

static inline void bench_timer_init(BenchTimer *t)
{
	CHECK(cudaEventCreate(&t->start));
	CHECK(cudaEventCreate(&t->stop));
}

static inline void bench_timer_release(BenchTimer *t)
{
	cudaEventDestroy(t->start);
	cudaEventDestroy(t->stop);
}

static inline void bench_timer_begin(BenchTimer *t, cudaStream_t s)
{
	CHECK(cudaEventRecord(t->start, s));
}

/* Milliseconds since bench_timer_begin; waits for the stream. */
static inline double bench_timer_end(BenchTimer *t, cudaStream_t s)
{
	float ms = 0;
	CHECK(cudaEventRecord(t->stop, s));
	CHECK(cudaEventSynchronize(t->stop));
	CHECK(cudaEventElapsedTime(&ms, t->start, t->stop));
	return ms;
}

/* The JSON object: bench_begin, then bench_num for each field, then bench_end. */
static inline void bench_begin(const char *name, const char *mechanism, const char *rules)
{
	cudaDeviceProp p;
	int dev = 0, driver = 0, runtime = 0;
	CHECK(cudaGetDevice(&dev));
	CHECK(cudaGetDeviceProperties(&p, dev));
	CHECK(cudaDriverGetVersion(&driver));
	CHECK(cudaRuntimeGetVersion(&runtime));
	printf("{\n  \"benchmark\": \"%s\",\n  \"mechanism\": \"%s\",\n  \"rules\": \"%s\",\n", name, mechanism,
	       rules);
	printf("  \"device\": \"%s\",\n  \"capability\": \"%d.%d\",\n", p.name, p.major, p.minor);
	printf("  \"cuda_driver_api\": %d,\n  \"cuda_runtime\": %d,\n  \"repetitions\": %d", driver, runtime,
	       BENCH_REPS);
}

static inline void bench_num(const char *key, double value)
{
	printf(",\n  \"%s\": %.9g", key, value);
}

static inline void bench_end(void)
{
	printf("\n}\n");
}

/* A kernel that runs for about `cycles` clock cycles, to have something on
 * the GPU for copies to overlap with or for the host to wait for. */
__global__ void bench_spin(long long cycles, int *sink)
{
	long long start = clock64();
	while (clock64() - start < cycles) {
	}
	if (threadIdx.x == 0 && sink)
		*sink = 1;
}

#endif

/* What the analyses of a project read of each other (deps.h). */
#include "project/deps.h"

#include <stdint.h>
#include <string.h>

#include "base/alloc.h"

void tl_deps_init(TlDeps *d)
{
	tl_strmap_init(&d->node_of);
	tl_array_init(&d->paths);
	tl_array_init(&d->out);
	tl_strmap_init(&d->edge_of);
}

void tl_deps_release(TlDeps *d)
{
	tl_strmap_release(&d->node_of);
	tl_str_array_release(&d->paths);
	for (uint32_t i = 0; i < d->out.size; i++)
		tl_array_release(&d->out.items[i]);
	tl_array_release(&d->out);
	tl_strmap_release(&d->edge_of);
	tl_deps_init(d);
}

static int32_t tl_deps__node(TlDeps *d, const char *path)
{
	size_t n = strlen(path);
	int32_t at;
	if (tl_strmap_get(&d->node_of, path, n, &at))
		return at;
	at = (int32_t)d->paths.size;
	tl_array_push(&d->paths, tl_strdup(path));
	TlIntArray none;
	tl_array_init(&none);
	tl_array_push(&d->out, none);
	tl_strmap_put(&d->node_of, path, n, at);
	return at;
}

void tl_deps_add(TlDeps *d, const char *from, const char *to)
{
	if (strcmp(from, to) == 0)
		return;
	int32_t a = tl_deps__node(d, from), b = tl_deps__node(d, to);
	char key[8];
	memcpy(key, &a, 4);
	memcpy(key + 4, &b, 4);
	int32_t seen;
	if (tl_strmap_get(&d->edge_of, key, sizeof key, &seen))
		return;
	tl_strmap_put(&d->edge_of, key, sizeof key, 1);
	tl_array_push(&d->out.items[a], b);
}

void tl_deps_reaching(const TlDeps *d, const char *path, TlStrArray *out)
{
	int32_t start;
	if (!tl_strmap_get(&d->node_of, path, strlen(path), &start))
		return;
	uint32_t n = d->paths.size;
	/* The reversed edges, as lists: into[first[b] .. first[b + 1]) are the
	 * nodes that read b. */
	uint32_t *first = tl_calloc(n + 1, sizeof *first);
	uint32_t edges = 0;
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t k = 0; k < d->out.items[a].size; k++) {
			first[d->out.items[a].items[k] + 1]++;
			edges++;
		}
	for (uint32_t b = 0; b < n; b++)
		first[b + 1] += first[b];
	int32_t *into = tl_malloc((edges ? edges : 1) * sizeof *into);
	uint32_t *fill = tl_malloc((n ? n : 1) * sizeof *fill);
	memcpy(fill, first, n * sizeof *fill);
	for (uint32_t a = 0; a < n; a++)
		for (uint32_t k = 0; k < d->out.items[a].size; k++)
			into[fill[d->out.items[a].items[k]]++] = (int32_t)a;
	bool *seen = tl_calloc(n, sizeof *seen);
	int32_t *queue = tl_malloc(n * sizeof *queue);
	uint32_t head = 0, tail = 0;
	queue[tail++] = start;
	seen[start] = true;
	while (head < tail) {
		int32_t b = queue[head++];
		tl_array_push(out, tl_strdup(d->paths.items[b]));
		for (uint32_t k = first[b]; k < first[b + 1]; k++)
			if (!seen[into[k]]) {
				seen[into[k]] = true;
				queue[tail++] = into[k];
			}
	}
	tl_free(queue);
	tl_free(seen);
	tl_free(fill);
	tl_free(into);
	tl_free(first);
}

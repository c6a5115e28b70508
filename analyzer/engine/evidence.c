#include "engine/evidence.h"

#include <jansson.h>
#include <string.h>

#include "base/alloc.h"
#include "base/embedded.h"

/* Where validate/report.py writes the summary (repository-relative, as
 * tools/embed.c records the path). */
#define TL_EVIDENCE_PATH "validate/results/summary.json"

char *tl_evidence_text(const char *code, char **status)
{
	char *text = NULL;
	json_t *root = NULL;
	if (status)
		*status = NULL;
	for (unsigned i = 0; i < tl_embedded_count; i++) {
		const TlEmbeddedFile *f = &tl_embedded_files[i];
		if (strcmp(f->path, TL_EVIDENCE_PATH) != 0)
			continue;
		root = json_loadb(f->data, f->size, 0, NULL);
		break;
	}
	if (!root)
		goto cleanup;
	json_t *entry = json_object_get(json_object_get(root, "rules"), code);
	const char *t = json_string_value(json_object_get(entry, "text"));
	if (!t)
		goto cleanup;
	text = tl_strdup(t);
	const char *s = json_string_value(json_object_get(entry, "status"));
	if (status && s)
		*status = tl_strdup(s);
cleanup:
	json_decref(root);
	return text;
}

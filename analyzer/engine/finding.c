/* Releasing findings and notices (finding.h). */
#include "engine/finding.h"

#include "base/alloc.h"

void tl_finding_release(TlFinding *f)
{
	tl_free(f->message);
	tl_free(f->fingerprint);
	f->message = f->fingerprint = NULL;
	tl_edits_release(&f->edits);
}

void tl_findings_release(TlFindings *f)
{
	for (uint32_t i = 0; i < f->size; i++)
		tl_finding_release(&f->items[i]);
	tl_array_release(f);
}

void tl_notices_release(TlNotices *n)
{
	for (uint32_t i = 0; i < n->size; i++)
		tl_free(n->items[i].message);
	tl_array_release(n);
}

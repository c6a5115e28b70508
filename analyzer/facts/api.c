/* APIs, keywords and devices: which torch API a call is (factories, deprecated
 * AMP entry points, torch.load, hub downloads, checkpoint, empty_cache, DataLoader), which
 * keywords it passes, device expressions and moves to a device.
 *
 * Owns: tl_facts_is_api, tl_facts_passes_keyword, tl_facts_argument (and whether an
 * argument is passed; whether it is off is TL216's, rules/checks/TL216.c), tl_facts_is_device, tl_facts_moves_to_device. */
#include "model/apitable.h"
#include "facts/internal.h"
#include "model/model.h"

#include <stdio.h>

/* ---- APIs, keywords, devices ------------------------------------------------------ */

/* Which set of the table's `sets` column each TlApi is (api/api.tsv). */
static const uint64_t tl_facts__api_sets[TL_API_COUNT] = {
	[TL_API_TENSOR_FACTORY] = TL_APIS_TENSOR_FACTORY,
	[TL_API_RANDOM_FACTORY] = TL_APIS_RANDOM_FACTORY,
	[TL_API_TENSOR_FROM_DATA] = TL_APIS_TENSOR_FROM_DATA,
	[TL_API_DEPRECATED_AMP] = TL_APIS_DEPRECATED_AMP,
	[TL_API_CPU_AMP] = TL_APIS_CPU_AMP,
	[TL_API_TORCH_LOAD] = TL_APIS_TORCH_LOAD,
	[TL_API_HUB_LOAD] = TL_APIS_HUB_LOAD,
	[TL_API_ACTIVATION_CHECKPOINT] = TL_APIS_ACTIVATION_CHECKPOINT,
	[TL_API_EMPTY_CACHE] = TL_APIS_EMPTY_CACHE,
	[TL_API_DATA_LOADER] = TL_APIS_DATA_LOADER,
	[TL_API_LOG] = TL_APIS_LOG,
	[TL_API_SOFTMAX_FUNCTION] = TL_APIS_SOFTMAX_FUNCTION,
	[TL_API_SOFTMAX_MODULE] = TL_APIS_SOFTMAX_MODULE,
	[TL_API_FUNCTIONAL_DROPOUT] = TL_APIS_FUNCTIONAL_DROPOUT,
	[TL_API_DROPOUT_MODULE] = TL_APIS_DROPOUT_MODULE,
	[TL_API_ANOMALY_MODE] = TL_APIS_ANOMALY_MODE,
	[TL_API_TORCH_SAVE] = TL_APIS_TORCH_SAVE,
	[TL_API_OUT_OF_PLACE] = TL_APIS_OUT_OF_PLACE,
};

size_t tl_facts_api_words(TlApi api, const char **out, size_t cap)
{
	if ((unsigned)api >= TL_API_COUNT)
		return 0;
	const TlApiTable *t = tl_api_table();
	size_t count = 0;
	for (size_t i = 0; i < t->count; i++) {
		const TlApiRow *r = &t->rows[i];
		if (r->form != TL_API_QUALIFIED || !(r->sets & tl_facts__api_sets[api]))
			continue;
		/* The last part of the name: the rows borrow the table's text,
		 * which lives as long as the process. */
		const char *w = r->name;
		size_t n = r->len;
		for (size_t k = r->len; k > 0; k--)
			if (r->name[k - 1] == '.') {
				w = r->name + k;
				n = r->len - k;
				break;
			}
		bool seen = false;
		for (size_t k = 0; k < count && !seen; k++)
			seen = strlen(out[k]) == n && memcmp(out[k], w, n) == 0;
		if (!seen && count < cap)
			out[count++] = w;
	}
	return count;
}

bool tl_facts__qname_is_api(const char *q, TlApi api)
{
	const TlApiRow *r = (unsigned)api < TL_API_COUNT ? tl_api_qualified(q) : NULL;
	return r && (r->sets & tl_facts__api_sets[api]);
}

bool tl_facts_is_api(const TlIndex *idx, TSNode node, TlApi api)
{
	const TlSyms *sy = tl_syms();
	node = tl_index_unparen(node);
	if (ts_node_is_null(node))
		return false;
	TSSymbol s = ts_node_symbol(node);
	if (s == sy->call) {
		const TlCall *c = tl_index_call_at(idx, node);
		return c && c->qname && tl_facts__qname_is_api(c->qname, api);
	}
	if (s != sy->identifier && s != sy->attribute)
		return false;
	const char *q = tl_index_qualified(idx, node);
	return q && tl_facts__qname_is_api(q, api);
}

bool tl_facts_passes_keyword(const TlIndex *idx, TSNode call, const char *name)
{
	const TlSyms *sy = tl_syms();
	call = tl_index_unparen(call);
	if (ts_node_is_null(call) || ts_node_symbol(call) != sy->call)
		return false;
	TSNode args = tl_tree_field(call, sy->f_arguments);
	if (ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return false;
	uint32_t count = ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		TSSymbol s = ts_node_symbol(a);
		/* f(**options) may pass it: the file cannot say it does not. */
		if (s == sy->dictionary_splat)
			return true;
		if (s == sy->keyword_argument &&
		    tl_index_text_is(idx, tl_tree_field(a, sy->f_name), name))
			return true;
	}
	return false;
}

/* ---- arguments by parameter name ------------------------------------------------------ */

/* The place of parameter `name` in the signature of the API `call` calls
 * (the table's params column): 0-based, or -1 when the callee or the
 * parameter is not in the table. A torch.nn name reads the row of
 * torch.nn.<last part> or torch.nn.functional.<last part> when its own
 * has no params (`torch.nn.modules.activation.Softmax` is
 * `torch.nn.Softmax`). */
static int tl_facts__param_place(const TlIndex *idx, TSNode call, const char *name)
{
	const TlCall *c = tl_index_call_at(idx, call);
	if (!c || !c->qname)
		return -1;
	const TlApiRow *r = tl_api_qualified(c->qname);
	for (int i = 0; i < 2 && (!r || !r->params) && tl_facts__starts(c->qname, "torch.nn."); i++) {
		char row[128];
		int n = snprintf(row, sizeof row, i ? "torch.nn.functional.%s" : "torch.nn.%s",
				 tl_facts__last(c->qname));
		r = n > 0 && (size_t)n < sizeof row ? tl_api_qualified(row) : NULL;
	}
	return tl_api_param_place(r, name);
}

/* The positional argument at `place` of `call`, or null; *splat is set
 * when a `*args` at or before that place may supply it instead. */
static TSNode tl_facts__positional(TSNode call, int place, bool *splat)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	*splat = false;
	TSNode args = tl_tree_field(call, sy->f_arguments);
	if (place < 0 || ts_node_is_null(args) || ts_node_symbol(args) != sy->argument_list)
		return none;
	int pos = 0;
	uint32_t count = ts_node_named_child_count(args);
	for (uint32_t i = 0; i < count; i++) {
		TSNode a = ts_node_named_child(args, i);
		TSSymbol s = ts_node_symbol(a);
		if (s == sy->keyword_argument || s == sy->comment || s == sy->dictionary_splat)
			continue;
		if (s == sy->list_splat) {
			*splat = true;
			return none;
		}
		if (pos++ == place)
			return a;
	}
	return none;
}

TSNode tl_facts_argument(const TlIndex *idx, TSNode call, const char *name)
{
	const TlSyms *sy = tl_syms();
	TSNode none = { 0 };
	call = tl_index_unparen(call);
	if (ts_node_is_null(call) || ts_node_symbol(call) != sy->call)
		return none;
	TSNode v = tl_facts__kwarg(idx, call, name);
	if (!ts_node_is_null(v))
		return v;
	bool splat;
	return tl_facts__positional(call, tl_facts__param_place(idx, call, name), &splat);
}

bool tl_facts_passes_argument(const TlIndex *idx, TSNode call, const char *name)
{
	const TlSyms *sy = tl_syms();
	call = tl_index_unparen(call);
	if (ts_node_is_null(call) || ts_node_symbol(call) != sy->call)
		return false;
	if (tl_facts_passes_keyword(idx, call, name))
		return true;
	bool splat;
	TSNode v = tl_facts__positional(call, tl_facts__param_place(idx, call, name), &splat);
	return splat || !ts_node_is_null(v);
}

/* The text of a string literal without prefix and quotes, or NULL; *len
 * receives its length. */
const char *tl_facts__string_body(const TlIndex *idx, TSNode n, uint32_t *len)
{
	const TlSyms *sy = tl_syms();
	if (ts_node_is_null(n) || ts_node_symbol(n) != sy->string)
		return NULL;
	uint32_t tlen;
	const char *t = tl_index_text(idx, n, &tlen);
	uint32_t k = 0;
	while (k < tlen && t[k] != '"' && t[k] != '\'')
		k++;
	uint32_t q = 0;
	while (k + q < tlen && (t[k + q] == '"' || t[k + q] == '\'') && q < 3)
		q++;
	if (tlen < k + 2 * q)
		return NULL;
	*len = tlen - k - 2 * q;
	return t + k + q;
}

/* A device, as written (model/model.h: the model's `.to(e)` reads the
 * same). */
bool tl_facts_is_device(const TlIndex *idx, TSNode expr)
{
	return tl_model_names_device(idx, expr);
}

bool tl_facts_moves_to_device(const TlIndex *idx, TSNode call)
{
	call = tl_index_unparen(call);
	const TlCall *c = tl_index_call_at(idx, call);
	if (!c || !c->method || !c->receiver.id || tl_facts__user_method(idx, c))
		return false;
	if (strcmp(c->method, "cuda") == 0)
		return true;
	if (strcmp(c->method, "to") != 0)
		return false;
	TSNode a = tl_facts__arg(call, 0);
	if (!ts_node_is_null(a) && tl_model_names_device(idx, a))
		return true;
	TSNode d = tl_facts__kwarg(idx, call, "device");
	return !ts_node_is_null(d) && tl_model_names_device(idx, d);
}

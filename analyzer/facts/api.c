/* APIs, keywords and devices: which torch API a call is (factories, deprecated
 * AMP entry points, torch.load, hub downloads, checkpoint, empty_cache, DataLoader), which
 * keywords it passes, device expressions and moves to a device.
 *
 * Owns: tl_facts_is_api, tl_facts_passes_keyword, tl_facts_argument (and whether an
 * argument is passed; whether it is off is TL216's, rules/checks/TL216.c), tl_facts_is_device, tl_facts_moves_to_device. */
#include "model/apitable.h"
#include "facts/internal.h"
#include "model/model.h"

#include <pthread.h>
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

/* Whether `c` is a word character of the pre-filter's reading (rules/
 * queryset.c): [A-Za-z0-9_]. */
static bool tl_facts__word_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/* Whether byte `o` lies in a plain string or a comment (*s, *k: the next
 * of each to look at; `o` ascends from one call to the next). */
static bool tl_facts__in_text(const TlIndex *idx, uint32_t o, uint32_t *s, uint32_t *k)
{
	while (*s < idx->plain_strings.size && (uint32_t)idx->plain_strings.items[*s] <= o)
		(*s)++;
	if (*s < idx->plain_strings.size && (uint32_t)(idx->plain_strings.items[*s] >> 32) <= o)
		return true;
	while (*k < idx->comments.size && ts_node_end_byte(idx->comments.items[*k]) <= o)
		(*k)++;
	return *k < idx->comments.size && ts_node_start_byte(idx->comments.items[*k]) <= o;
}

/* How many times the file's text holds `w` (`wl` bytes) where an
 * identifier node could: outside plain strings and comments, followed by
 * no word character, and preceded by none, or inside a run of them that
 * starts with a digit or follows a backslash (as the pre-filter reads a
 * node's whole text: `0xlog`). At least the number of identifier nodes
 * whose text is `w`; counting stops past `most`. */
static uint32_t tl_facts__word_count(const TlIndex *idx, const char *w, size_t wl, uint32_t most)
{
	const char *text = idx->src->text;
	size_t len = idx->src->length;
	uint32_t n = 0, s = 0, k = 0; /* the next plain string, the next comment */
	if (!wl || wl > len)
		return 0;
	/* The pre-filter's reading, when the engine has it: the same places. */
	uint32_t offs[64];
	uint32_t found = idx->word_offsets ? idx->word_offsets(idx->word_ctx, w, wl, offs, 64) : UINT32_MAX;
	if (found <= 64) {
		for (uint32_t i = 0; i < found && n <= most; i++)
			n += !tl_facts__in_text(idx, offs[i], &s, &k);
		return n;
	}
	const char *end = text + len, *last = end - wl + 1;
	for (const char *at = text; at < last; at++) {
		at = memchr(at, w[0], (size_t)(last - at));
		if (!at)
			break;
		if (memcmp(at + 1, w + 1, wl - 1) != 0)
			continue;
		/* Not inside a plain string or a comment: no node of code there. */
		if (tl_facts__in_text(idx, (uint32_t)(at - text), &s, &k))
			continue;
		const unsigned char *p = (const unsigned char *)at;
		bool ok = at + wl == end || !tl_facts__word_char(p[wl]);
		if (ok && at > text && tl_facts__word_char(p[-1])) {
			const unsigned char *r = p;
			while ((const char *)r > text && tl_facts__word_char(r[-1]))
				r--;
			ok = (*r >= '0' && *r <= '9') || ((const char *)r > text && r[-1] == '\\');
		}
		n += ok;
		if (n > most)
			break;
	}
	return n;
}

/* Each API's words (tl_facts_api_words), found once for the process; a
 * kind with TL_FACTS_API_WORDS of them may have more. */
#define TL_FACTS_API_WORDS 16
static struct {
	const char *words[TL_FACTS_API_WORDS];
	size_t count;
} tl_facts__words[TL_API_COUNT];
static pthread_once_t tl_facts__words_once = PTHREAD_ONCE_INIT;

static void tl_facts__words_load(void)
{
	for (int a = 0; a < TL_API_COUNT; a++)
		tl_facts__words[a].count = tl_facts_api_words((TlApi)a, tl_facts__words[a].words, TL_FACTS_API_WORDS);
}

/* Whether qualified name `q` ends with one of words[0..n) (its last part). */
static bool tl_facts__last_part_in(const char *q, const char *const *words, size_t n)
{
	const char *dot = strrchr(q, '.');
	const char *last = dot ? dot + 1 : q;
	for (size_t j = 0; j < n; j++)
		if (strcmp(last, words[j]) == 0)
			return true;
	return false;
}

bool tl_facts_api_nowhere(const TlIndex *idx, TlApi api)
{
	/* tl_facts_is_api holds of a call whose qualified callee is of the
	 * API, or of an identifier or attribute chain that qualifies to one
	 * (tl_index_qualify). Such a name ends with one of the API's words:
	 * the last identifier of the chain (only its root is replaced), or,
	 * for a lone identifier, what an import binds or the value an
	 * assignment aliases (an identifier or chain: with the word again).
	 * So it holds nowhere when no call's qualified callee is of the API,
	 * no import binds a name of it, and every occurrence of each word in
	 * the code (not in a plain string or a comment) is the last
	 * identifier of a call's callee (an identifier or attribute, not
	 * parenthesized): no other node ends with one. */
	pthread_once(&tl_facts__words_once, tl_facts__words_load);
	if ((unsigned)api >= TL_API_COUNT)
		return false;
	const char *const *words = tl_facts__words[api].words;
	size_t nw = tl_facts__words[api].count;
	if (nw == 0 || nw == TL_FACTS_API_WORDS)
		return false; /* none to count, or perhaps more than these */
	const TlSyms *sy = tl_syms();
	uint32_t tails[TL_FACTS_API_WORDS] = { 0 };
	for (uint32_t i = 0; i < idx->calls.size; i++) {
		const TlCall *c = &idx->calls.items[i];
		size_t j = nw;
		for (size_t k = 0; c->method && k < nw && j == nw; k++)
			if (c->method[0] == words[k][0] && strcmp(c->method, words[k]) == 0)
				j = k;
		/* An attribute callee's qualified name ends with its attribute
		 * (the method); a lone name's may not (an alias, an import). */
		if (c->qname && (j < nw || (!c->receiver.id && tl_facts__last_part_in(c->qname, words, nw))) &&
		    tl_facts__qname_is_api(c->qname, api))
			return false;
		if (j < nw) {
			TSSymbol s = ts_node_symbol(c->callee);
			if (s == sy->identifier || s == sy->attribute)
				tails[j]++;
		}
	}
	for (uint32_t i = 0; i < idx->bindings.size; i++) {
		const TlBinding *b = &idx->bindings.items[i];
		if (b->kind == TL_BIND_IMPORT && b->qname && tl_facts__qname_is_api(b->qname, api))
			return false;
	}
	for (size_t j = 0; j < nw; j++)
		if (tl_facts__word_count(idx, words[j], strlen(words[j]), tails[j]) != tails[j])
			return false;
	return true;
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
